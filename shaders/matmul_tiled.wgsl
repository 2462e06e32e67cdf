// Tiled SIMT GEMM with f32 accumulation (float16 and float32 operands; EL is f64 for float64
// results). A workgroup of (BN/TN) x (BM/TM) threads computes a BM x BN tile of C: it stages
// BM x BK of A and BK x BN of B in workgroup memory (both k-major, as vec4 rows along m and
// n), and each thread accumulates a TM x TN block in registers from vec4 reads. Global loads
// are vec4 along the operand's contiguous axis where the layout allows it (generated per
// layout), scalar otherwise.
// The k loop of a staged step is unrolled in the generated code (constant offsets).
// Software pipelining: the next k step's tiles are read from global memory into registers
// while the current one is multiplied from workgroup memory, which is double-buffered (one
// barrier per k step).
// Thread (tx, ty) owns the rows 4 * (ty + p * TY) + r and the columns 4 * (tx + q * TX) + c, so
// that neighbouring threads read neighbouring vec4s of workgroup memory.
{{ENABLES}}
{{COMMON}}
@group(0) @binding(1) var<storage, read> A: array<{{A_TYPE}}>;
@group(0) @binding(2) var<storage, read> B: array<{{B_TYPE}}>;
@group(0) @binding(3) var<storage, read_write> C: array<{{C_TYPE}}>;

const BM: u32 = {{BM}}u;
const BN: u32 = {{BN}}u;
const BK: u32 = {{BK}}u;
const TX: u32 = {{TX}}u;
const TY: u32 = {{TY}}u;
const WG: u32 = {{WG}}u;

var<workgroup> As: array<vec4<{{EL}}>, {{AS_LEN2}}>;
var<workgroup> Bs: array<vec4<{{EL}}>, {{BS_LEN2}}>;

@compute @workgroup_size({{WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let tx = lid % TX;
    let ty = lid / TX;
    let row0 = wid.y * BM;
    let col0 = wid.x * BN;
{{SKIP}}
    // One batch index per workgroup (no loop over z: on the H100 the loop cost up to 20% in
    // some tile configurations); the launcher splits batches beyond the grid's z limit into
    // several dispatches, each from its first index P.z0.
    let z = wid.z + P.z0;
    if (z < P.batch) {
        let bo = kp_batch(z);
        let base_a = i32(P.oa) + bo.x;
        let base_b = i32(P.ob) + bo.y;
        var acc: array<vec4<{{EL}}>, {{ACC_LEN}}>;
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
            let ab = cur * {{AS_LEN}}u;
            let bb = cur * {{BS_LEN}}u;
{{KLOOP}}
            if (s + 1u < ntiles) {
                let k0 = (s + 1u) * BK;
                let buf = (cur ^ 1u) * BK * BM;
                let bufb = (cur ^ 1u) * BK * BN;
{{PUT}}
            }
            workgroupBarrier();
        }
{{STORE}}
    }
}
