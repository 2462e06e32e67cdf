// Reduction kernel template: P.m outputs, each the combination of P.r mapped values; value k of
// output o is kp_map(o * P.r + k) (the map is a fused elementwise expression over the input
// permuted so that reduced axes come last). The reduction of each output may be split into
// P.splits slices of P.chunk values that write partial results, reduced again by a second pass.
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
fn kp_map(g: u32) -> {{ACC}} {
{{MAP}}
}

fn kp_combine(a: {{ACC}}, b: {{ACC}}) -> {{ACC}} {
    return {{COMBINE}};
}

var<workgroup> partial: array<{{ACC}}, 256>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
{{STRATEGY}}
}
