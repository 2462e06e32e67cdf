// Matrix-vector product, bandwidth-bound: out[z, r] = sum_k A[z, r, k] * B[z, k] where A is
// the matrix (row stride sam, k stride sak) and B the vector (stride sbk). The host swaps the
// operands for a vector on the left. Two shapes of workgroup:
// - rows: the matrix's k axis is contiguous; RL lanes share a row and stride along k (vec4
//   loads where the layout allows), then reduce in workgroup memory;
// - cols: the row axis is contiguous; 64 threads take 64 neighbouring rows (coalesced) and 4
//   groups split k, reduced in workgroup memory.
{{ENABLES}}
{{COMMON}}
@group(0) @binding(1) var<storage, read> A: array<{{A_TYPE}}>;
@group(0) @binding(2) var<storage, read> B: array<{{B_TYPE}}>;
@group(0) @binding(3) var<storage, read_write> C: array<{{C_STORAGE}}>;

fn kp_load_a(i: i32) -> {{ACC}} {
    let x = A[u32(i)];
    return {{CAST_A}};
}

fn kp_load_b(i: i32) -> {{ACC}} {
    let x = B[u32(i)];
    return {{CAST_B}};
}

fn kp_mad(acc: {{ACC}}, a: {{ACC}}, b: {{ACC}}) -> {{ACC}} {
    return {{MAD}};
}

const LANES: u32 = {{LANES}}u;
const GROUPS: u32 = 256u / LANES;

var<workgroup> red: array<{{ACC}}, 256>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
{{BODY}}
}
