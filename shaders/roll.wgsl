// Circular shift of an n-d array (rank <= 8) into a C-contiguous result, element by element
// as 1 or 2 u32 words: out[k] = in[(k - shift) mod shape] along every axis.

struct Params {
    count: u32, rank: u32, off: u32, words: u32,
    groups_x: u32, p0: u32, p1: u32, p2: u32,
    shape: array<vec4<u32>, 2>,
    strides: array<vec4<u32>, 2>,
    shift: array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x + gid.y * p.groups_x * 256u;
    if (i >= p.count) {
        return;
    }
    var rem = i;
    var a = p.off;
    for (var d = i32(p.rank) - 1; d >= 0; d--) {
        let q = u32(d) / 4u;
        let c = u32(d) % 4u;
        let s = p.shape[q][c];
        let k = rem % s;
        rem = rem / s;
        a += ((k + s - p.shift[q][c]) % s) * p.strides[q][c];
    }
    for (var w = 0u; w < p.words; w++) {
        dst[i * p.words + w] = src[a * p.words + w];
    }
}
