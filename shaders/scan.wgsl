// Scan (cumulative sum / product) kernel template. P.m lines of P.r values each; value k of
// line o is kp_lift(kp_value(o * P.r + k)), where kp_value is a fused elementwise expression
// over the input permuted so that the scanned axis comes last (or, for the scan of block
// totals, a load of partial accumulators). Element (o, k) of the output sits at
// (o / P.inner) * P.r * P.inner + k * P.inner + o % P.inner, so lines along any axis of a
// C-contiguous result are written in place.
//
// Each line is cut into P.segs segments of P.chunk values. Reduce-then-scan:
//   phase "reduce": each segment writes its total (an accumulator);
//   (the host scans the totals exclusively, recursively with this same template);
//   phase "scan":   each segment scans its values, starting from its exclusive prefix.
// With P.segs == 1 a single "scan" pass does everything.
//
// Two layouts fill main:
//   "inner": a workgroup per segment, 256 threads x 4 consecutive values per round, a
//            workgroup scan of the thread totals per round (subgroup operations where the
//            adapter has them and every subgroup is full, shared memory otherwise), a carry
//            between rounds. For lines along the contiguous axis.
//   "outer": a thread per (line, segment), serial over k. For many lines along a strided
//            axis (adjacent threads read adjacent elements) or many short lines.
{{ENABLES}}
struct Params {
{{PARAMS}}
}

@group(0) @binding(0) var<uniform> P: Params;
{{BINDINGS}}
{{HELPERS}}
fn kp_value(g: u32) -> {{VALUE}} {
{{MAP}}
}
{{VALUE4}}
fn kp_lift(v: {{VALUE}}) -> {{ACC}} {
    return {{LIFT}};
}

fn kp_combine(a: {{ACC}}, b: {{ACC}}) -> {{ACC}} {
    return {{COMBINE}};
}

fn kp_store(acc: {{ACC}}) -> {{OUT}} {
    return {{STORE}};
}

const KP_IDENTITY: {{ACC}} = {{IDENTITY}};

var<workgroup> kp_sh: array<{{ACC}}, 256>;
var<private> kp_block_total: {{ACC}};

// Exclusive scan of x over the 256 threads of a workgroup (thread order `tid`); sets
// kp_block_total to the combination of all 256 values. Call in uniform control flow.
fn kp_wg_scan(x: {{ACC}}, tid: u32, sg: vec4<u32>) -> {{ACC}} {
{{WG_SCAN}}
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>{{SG_BUILTINS}}) {
{{STRATEGY}}
}
