// Conversion between packed small integers (int8/uint8: 4 per u32 word; int16/uint16: 2 per
// word; little-endian, NumPy's bytes) and one sign- or zero-extended u32 word per element.
// `unpack`: one thread per element slot. `pack`: one thread per packed word, so every word has
// exactly one writer and neighbouring elements never clobber each other.

struct Params {
    // unpack: element slots in this dispatch; pack: packed words in this dispatch.
    count: u32,
    // pack: elements present in the word buffer from this dispatch's first element on.
    elements: u32,
    // 8 or 16.
    bits: u32,
    // 1 for int8/int16 (sign extension), 0 for uint8/uint16.
    signed: u32,
    groups_x: u32,
    p0: u32, p1: u32, p2: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

fn thread_index(gid: vec3<u32>) -> u32 {
    return gid.x + gid.y * p.groups_x * 256u;
}

@compute @workgroup_size(256)
fn unpack(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = thread_index(gid);
    if (i >= p.count) {
        return;
    }
    let per = 32u / p.bits;
    let word = src[i / per];
    let shift = (i % per) * p.bits;
    if (p.signed != 0u) {
        dst[i] = bitcast<u32>(extractBits(bitcast<i32>(word), shift, p.bits));
    } else {
        dst[i] = extractBits(word, shift, p.bits);
    }
}

@compute @workgroup_size(256)
fn pack(@builtin(global_invocation_id) gid: vec3<u32>) {
    let w = thread_index(gid);
    if (w >= p.count) {
        return;
    }
    let per = 32u / p.bits;
    var acc = 0u;
    for (var j = 0u; j < per; j++) {
        let e = w * per + j;
        if (e < p.elements) {
            acc = insertBits(acc, src[e], j * p.bits, p.bits);
        }
    }
    dst[w] = acc;
}
