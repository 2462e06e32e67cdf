// Elementwise kernel template: one thread per output element, C-order, over a 2-D grid of
// 256-thread workgroups (so grids beyond 65535 workgroups spill into y).
// Filled in by kupfer-core's codegen (placeholders in double braces): enables, the uniform
// struct fields, bindings, helpers, coordinates of strided inputs, and the expression body.
{{ENABLES}}
struct Params {
{{PARAMS}}
}

@group(0) @binding(0) var<uniform> P: Params;
{{BINDINGS}}
{{HELPERS}}
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    // i: index within this dispatch's chunk; g: index in the whole output.
    let i = gid.x + gid.y * nwg.x * 256u;
    if (i >= P.n) {
        return;
    }
    let g = P.start + i;
{{COORDS}}
{{BODY}}
}
