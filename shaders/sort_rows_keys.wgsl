// Sorts short rows of values inside workgroup memory, keys only (`sort` of the default kind,
// whose order of equal values is free): a workgroup holds SLOTS keys, that is SLOTS / L rows
// padded to L (a power of two) with the largest key, runs a bitonic network over them and
// writes the values back from the keys (load_key and store_value generated: the sort's
// bit-exact bijective keys, so -0.0 sorts before 0.0 and NaNs keep their bits; padding keys
// equal to a real key write back that same value). Against the
// (key, position) row sort it moves half the workgroup memory per exchange and needs no
// permutation and no gather. Rows are numbered x + y * grid_x workgroups over (SLOTS / L)
// rows each.
struct Params {
    rowlen: u32,
    nrows: u32,
    grid_x: u32,
    // Element offset of the raw source.
    off: u32,
}

const WG: u32 = {{WG}}u;
const L: u32 = {{L}}u;
const SLOTS: u32 = {{SLOTS}}u;

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> values_out: array<u32>;

var<workgroup> sk: array<u32, SLOTS>;

{{KEY_HELPERS}}

fn load_key(i: u32) -> u32 {
{{LOAD}}
}

fn store_value(k: u32) -> u32 {
{{STORE}}
}

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
            k = load_key(row * P.rowlen + j);
        }
        sk[s] = k;
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
                if ((ka > kb) == ascending && ka != kb) {
                    sk[a] = kb;
                    sk[b] = ka;
                }
            }
            workgroupBarrier();
        }
    }
    for (var s = lid; s < SLOTS; s = s + WG) {
        let row = first_row + s / L;
        let j = s % L;
        if (row < P.nrows && j < P.rowlen) {
            values_out[row * P.rowlen + j] = store_value(sk[s]);
        }
    }
}
