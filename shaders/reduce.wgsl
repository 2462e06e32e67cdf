// Reduction kernel template: P.m outputs, each the combination of P.r values; value k of output
// o is kp_lift(kp_value(o * P.r + k), k), where kp_value is a fused elementwise expression over
// the input permuted so that the reduced axes come last (or, in a second pass, a load of the
// first pass's partial accumulators) and kp_lift turns a value into an accumulator (a sum, a
// (key, index) pair for arg-reductions, (count, mean, M2) moments for var/std). The reduction
// of each output may be split into P.splits slices of P.chunk values that write partial
// accumulators, combined again by a second pass.
// Two strategies fill the body of main: "inner" (a workgroup per output slice, threads striding
// over k, then a tree in workgroup memory — for reduced axes that are contiguous) and "outer"
// (a thread per output, looping over k — for contiguous kept axes, so loads coalesce across
// threads).
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

fn kp_lift(v: {{VALUE}}, k: u32, shift: {{ACC_COMPONENT}}) -> {{ACC}} {
    return {{LIFT}};
}

fn kp_combine(a: {{ACC}}, b: {{ACC}}) -> {{ACC}} {
{{COMBINE}}
}

var<workgroup> partial: array<{{ACC}}, 256>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
{{STRATEGY}}
}
