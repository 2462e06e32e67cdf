// Index kernels (gather, scatter, last-write claims, ufunc.at accumulation). One thread per
// element g of an iteration shape of P.n elements; kp_eval(g) evaluates a fused elementwise
// program with several roots (kupfer-core `indexing`):
//   gather:      out[g] = src[r.off]                     roots: off
//   scatter:     if (r.pred) { dst[r.off] = r.val; }      roots: pred, off, val
//   claim:       if (r.pred) { atomicMax(&win[r.off], g + 1); }
//   scatter_last:if (r.pred && win[r.off] == g + 1) { dst[r.off] = r.val; }
//   accumulate:  if (r.pred) { dst[r.off] = dst[r.off] OP r.val } atomically
// `off` is an element offset into the raw buffer (u32, strides and negative indices already
// folded in by the host-built expression).
{{ENABLES}}
struct Params {
{{PARAMS}}
}

@group(0) @binding(0) var<uniform> P: Params;
{{BINDINGS}}
{{HELPERS}}
struct KpRoots {
{{ROOT_FIELDS}}
}

fn kp_eval(g: u32) -> KpRoots {
{{MAP}}
}

@compute @workgroup_size({{WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let g = (wid.x + wid.y * nwg.x) * {{WG}}u + lid;
    if (g >= P.n) {
        return;
    }

{{BODY}}
}
