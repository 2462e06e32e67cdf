// GEMM on tensor cores through WGSL cooperative matrices (wgpu's experimental
// wgpu_cooperative_matrix). A workgroup of WM x WN subgroups (SG threads each) computes a
// BM x BN tile of C; each subgroup owns a grid of 16x16 accumulator fragments. Per k step, the
// workgroup stages BM x BK of A and BK x BN of B in workgroup memory as f16 (float32 operands
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

var<workgroup> As: array<f16, {{BM}} * ({{BK}} + 8)>;
var<workgroup> Bs: array<f16, {{BK}} * ({{BN}} + 8)>;
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
        for (var k0 = 0u; k0 < P.k; k0 += BK) {
            for (var t = lid; t < BM * BK; t += WG) {
                let r = t / BK;
                let kk = t % BK;
                let gr = row0 + r;
                let gk = k0 + kk;
                var v = f16(0.0);
                if (gr < P.m && gk < P.k) {
                    v = {{A_ELEM}};
                }
                As[r * BKP + kk] = v;
            }
            for (var t = lid; t < BN * BK; t += WG) {
                let kk = t / BN;
                let c = t % BN;
                let gc = col0 + c;
                let gk = k0 + kk;
                var v = f16(0.0);
                if (gc < P.n && gk < P.k) {
                    v = {{B_ELEM}};
                }
                Bs[kk * BNP + c] = v;
            }
            workgroupBarrier();
            for (var kk = 0u; kk < BK; kk += 16u) {
{{MADS}}
            }
            workgroupBarrier();
        }
{{STORES}}
    }
}
