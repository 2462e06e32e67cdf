// Deferred-check flag (crates/kupfer/src/checks.rs): flag[0] becomes non-zero when any
// element of a contiguous run of signed integers is negative. Elements are `words` u32s
// wide (int8/int16/int32 stored sign-extended in one word, int64 as two little-endian words),
// so an element is negative when the top bit of its last word is set. One element per
// thread, no loop; the run starts at word `first` of its binding; the grid is 2-D for runs longer than one dimension's workgroups.

struct Params {
    count: u32,
    words: u32,
    groups_x: u32,
    first: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> flag: array<atomic<u32>>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x + gid.y * p.groups_x * 256u;
    if (i >= p.count) {
        return;
    }
    if ((src[p.first + i * p.words + p.words - 1u] >> 31u) != 0u) {
        atomicOr(&flag[0], 1u);
    }
}
