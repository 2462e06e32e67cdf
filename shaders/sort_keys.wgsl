// Order-preserving keys: element p of a contiguous array (read as raw u32 words) becomes one
// 32-bit key word whose unsigned order is NumPy's sort order (signed integers: sign bit
// flipped; floats: all bits flipped for negatives, sign bit set for the rest, NaN the
// largest key, -0.0 the key of 0.0 where order must match NumPy's equality). Multi-word keys
// (64-bit, complex) are sorted word by word, least significant first, each word read through
// the permutation the previous words gave (`perm[i]`), which makes the passes one stable LSD
// sort. The same template writes the inverse transform (keys back to values).
struct Params {
    n: u32,
    off: u32,
    rowlen: u32,
    grid_x: u32,
    stride: u32,
    at: u32,
    pad0: u32,
    pad1: u32,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
{{PERM_BINDING}}

fn key32(b: u32) -> u32 {
    if ((b & 0x7fffffffu) > 0x7f800000u) {
        return 0xffffffffu;
    }
{{NEG_ZERO_32}}
    if ((b & 0x80000000u) != 0u) {
        return ~b;
    }
    return b | 0x80000000u;
}

fn unkey32(k: u32) -> u32 {
    if (k == 0xffffffffu) {
        return 0x7fc00000u;
    }
    if ((k & 0x80000000u) != 0u) {
        return k ^ 0x80000000u;
    }
    return ~k;
}

fn key16(h: u32) -> u32 {
    if ((h & 0x7fffu) > 0x7c00u) {
        return 0xffffu;
    }
    if (h == 0x8000u) {
        return 0x8000u;
    }
    if ((h & 0x8000u) != 0u) {
        return (~h) & 0xffffu;
    }
    return h | 0x8000u;
}

fn half_bits(e: u32) -> u32 {
    return (src[e >> 1u] >> ((e & 1u) * 16u)) & 0xffffu;
}

fn is_nan64(lo: u32, hi: u32) -> bool {
    let h = hi & 0x7fffffffu;
    return h > 0x7ff00000u || (h == 0x7ff00000u && lo != 0u);
}

// Word `high` (true) or low of the 64-bit float key of (lo, hi).
fn key64(lo: u32, hi: u32, high: bool) -> u32 {
    var k = vec2<u32>(lo, hi | 0x80000000u);
    if (is_nan64(lo, hi)) {
        k = vec2<u32>(0xffffffffu, 0xffffffffu);
    } else if (hi == 0x80000000u && lo == 0u) {
        k = vec2<u32>(0u, 0x80000000u);
    } else if ((hi & 0x80000000u) != 0u) {
        k = vec2<u32>(~lo, ~hi);
    }
    return select(k.x, k.y, high);
}

fn is_nan32(b: u32) -> bool {
    return (b & 0x7fffffffu) > 0x7f800000u;
}

// Word of element p (an index into the contiguous array, before the offset).
fn word(p: u32) -> u32 {
    let e = P.off + p;
{{WORD}}
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x + gid.y * P.grid_x * 256u;
    if (i >= P.n) {
        return;
    }
    out[i * P.stride + P.at] = word({{INDEX}});
}
