// Sorts short rows inside workgroup memory: a workgroup holds SLOTS (key, position) pairs,
// that is SLOTS / L rows padded to L (a power of two) with the largest key, and runs a
// bitonic network over (key, position) pairs, so ties keep their order (stable) and padding
// stays last. Writes each row's permutation (positions within the row, 0..rowlen).
// Rows are numbered x + y * grid_x workgroups over (SLOTS / L) rows each.
struct Params {
    rowlen: u32,
    nrows: u32,
    grid_x: u32,
    pad: u32,
}

const WG: u32 = {{WG}}u;
const L: u32 = {{L}}u;
const SLOTS: u32 = {{SLOTS}}u;

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read_write> perm: array<u32>;

var<workgroup> sk: array<u32, SLOTS>;
var<workgroup> sp: array<u32, SLOTS>;

@compute @workgroup_size({{WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let first_row = (wid.x + wid.y * P.grid_x) * (SLOTS / L);
    if (first_row >= P.nrows) {
        return;
    }
    for (var s = lid; s < SLOTS; s = s + WG) {
        let row = first_row + s / L;
        let j = s % L;
        var k = 0xffffffffu;
        if (row < P.nrows && j < P.rowlen) {
            k = keys[row * P.rowlen + j];
        }
        sk[s] = k;
        sp[s] = j;
    }
    workgroupBarrier();
    for (var size = 2u; size <= L; size = size << 1u) {
        for (var stride = size >> 1u; stride > 0u; stride = stride >> 1u) {
            for (var t = lid; t < SLOTS / 2u; t = t + WG) {
                let a = 2u * t - (t & (stride - 1u));
                let b = a + stride;
                let ascending = size == L || (a & size) == 0u;
                let ka = sk[a];
                let kb = sk[b];
                let pa = sp[a];
                let pb = sp[b];
                let greater = ka > kb || (ka == kb && pa > pb);
                if (greater == ascending) {
                    sk[a] = kb;
                    sk[b] = ka;
                    sp[a] = pb;
                    sp[b] = pa;
                }
            }
            workgroupBarrier();
        }
    }
    for (var s = lid; s < SLOTS; s = s + WG) {
        let row = first_row + s / L;
        let j = s % L;
        if (row < P.nrows && j < P.rowlen) {
            perm[row * P.rowlen + j] = sp[s];
        }
    }
}
