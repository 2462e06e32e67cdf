// GEMM on tensor cores through WGSL cooperative matrices (wgpu's experimental
// wgpu_cooperative_matrix). A workgroup of WM x WN subgroups (SG threads each) computes a
// BM x BN tile of C; each subgroup owns a grid of 16x16 accumulator fragments. Per k step, the
// workgroup stages BM x BK of A and BK x BN of B in workgroup memory as f16, and every
// subgroup multiplies its fragments from there. float16 operands read 8 elements at a time
// take the streamed k loop (each thread's reads at fixed offsets stepped by k, straight into
// workgroup memory, no bounds checks but in a last partial step); other operands are read
// through bounds-checked registers, the next step's while this one is multiplied (one or two
// buffers).
// The staged tiles are arrays of vec4<f16> units (4 consecutive elements of a row), so that a
// thread stages 8 elements in two 8-byte stores; coopLoadT reads f16 fragments through
// pointers to these units (the stride counts units). Rows are padded by 8 halves. (Units of
// vec4<u32>, 16-byte stores, pass naga but NVIDIA's compiler rejects the fragment loads.)
// float16 operands laid out for it are read as two neighbouring vec4<f16>, never converted;
// float32 operands (the opt-in reduced-precision mode) are rounded to f16 here.
// Fragments go out through a per-subgroup staging tile, so that ragged edges, the output
// dtype and epilogues are handled by plain stores. (The bindings are AA, BB, CC: A, B and C
// are the fragment roles.)
{{ENABLES}}
{{COMMON}}
@group(0) @binding(1) var<storage, read> AA: array<{{A_STORAGE}}>;
@group(0) @binding(2) var<storage, read> BB: array<{{B_STORAGE}}>;
@group(0) @binding(3) var<storage, read_write> CC: array<{{C_STORAGE}}>;

const BM: u32 = {{BM}}u;
const BN: u32 = {{BN}}u;
const BK: u32 = {{BK}}u;
const WN: u32 = {{WN}}u;
const SG: u32 = {{SG}}u;
const WG: u32 = {{WG}}u;

var<workgroup> As: array<vec4<f16>, {{AS_UNITS}}>;
var<workgroup> Bs: array<vec4<f16>, {{BS_UNITS}}>;
var<workgroup> Cs: array<{{ACC_T}}, {{WG}} / {{SG}} * 256>;

@compute @workgroup_size({{WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let sg = lid / SG;
    let lane = lid % SG;
    let wy = sg / WN;
    let wx = sg % WN;
    let row0 = wid.y * BM;
    let col0 = wid.x * BN;
    for (var z = wid.z; z < P.batch; z += nwg.z) {
        let bo = kp_batch(z);
        let base_a = i32(P.oa) + bo.x;
        let base_b = i32(P.ob) + bo.y;
{{FRAGS}}
{{DECL}}
        let ntiles = (P.k + BK - 1u) / BK;
{{KLOOP}}
{{STORES}}
    }
}
