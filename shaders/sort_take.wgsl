// Gathers elements along rows: output element e = (row, col) of a (rows, m) result takes
// element row * rowlen + idx[row * idx_row_stride + col] of a contiguous source (from its
// element offset), copying raw u32 words, so one kernel serves every dtype (WPE words per
// element; float16 packs two elements per word, one thread per output word). With rowlen 0
// and idx_row_stride m the indices are flat (a global permutation).
struct Params {
    n: u32,
    m: u32,
    rowlen: u32,
    idx_row_stride: u32,
    off: u32,
    grid_x: u32,
    pad0: u32,
    pad1: u32,
}

const WPE: u32 = {{WPE}}u;

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read> idx: array<u32>;
@group(0) @binding(3) var<storage, read_write> out: array<u32>;

fn source_element(e: u32) -> u32 {
    let row = e / P.m;
    let col = e - row * P.m;
    return P.off + row * P.rowlen + idx[row * P.idx_row_stride + col];
}

fn half_bits(e: u32) -> u32 {
    return (src[e >> 1u] >> ((e & 1u) * 16u)) & 0xffffu;
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let t = gid.x + gid.y * P.grid_x * 256u;
{{BODY}}
}
