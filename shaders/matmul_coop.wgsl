// GEMM on tensor cores through WGSL cooperative matrices (wgpu's experimental
// wgpu_cooperative_matrix). A workgroup of WM x WN subgroups (SG threads each) computes a
// BM x BN tile of C; each subgroup owns a grid of 16x16 accumulator fragments. Per k step, the
// workgroup stages BM x BK of A and BK x BN of B in (double-buffered) workgroup memory as f16,
// the next step's tiles read into registers (vec4 where the layout allows) while this one is
// multiplied (float32 operands
// are rounded to f16 here: the opt-in reduced-precision mode), and every subgroup multiplies
// its fragments from there. Fragments go out through a per-subgroup f32 staging tile, so that
// ragged edges and the output dtype are handled by plain stores. (The bindings are AA, BB, CC:
// A, B and C are the fragment roles.)
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
// Padded row lengths of the staged tiles (8 halves = 16 bytes keep rows aligned and spread
// the banks).
const BKP: u32 = BK + 8u;
const BNP: u32 = BN + 8u;

var<workgroup> As: array<f16, 2 * {{BM}} * ({{BK}} + 8)>;
var<workgroup> Bs: array<f16, 2 * {{BK}} * ({{BN}} + 8)>;
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
        {
            let k0 = 0u;
            let buf = 0u;
            let bufb = 0u;
{{FETCH}}
{{PUT}}
        }
        workgroupBarrier();
        for (var s = 0u; s < ntiles; s++) {
            let cur = s & 1u;
            if (s + 1u < ntiles) {
                let k0 = (s + 1u) * BK;
{{FETCH}}
            }
            let ab = cur * BM * BKP;
            let bb = cur * BK * BNP;
            for (var kk = 0u; kk < BK; kk += 16u) {
{{MADS}}
            }
            if (s + 1u < ntiles) {
                let k0 = (s + 1u) * BK;
                let buf = (cur ^ 1u) * BM * BKP;
                let bufb = (cur ^ 1u) * BK * BNP;
{{PUT}}
            }
            workgroupBarrier();
        }
{{STORES}}
    }
}
