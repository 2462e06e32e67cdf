// Elementwise kernel template. Each 256-thread workgroup handles a block of consecutive
// elements; thread t takes elements (or, in the vectorised form, vec4s) t, t + 256, ... so
// every load is coalesced, and all of a thread's loads are issued before any arithmetic
// (independent loads in flight hide memory latency). The grid is 2-D so that more than 65535
// workgroups spill into y.
// Filled in by kupfer-core's codegen (placeholders in double braces): enables, the uniform
// struct fields, bindings, helpers, the prologue that every thread runs first (staging the
// ziggurat tables in workgroup memory, or nothing), and the per-item index, load, compute
// and store code.
{{ENABLES}}
struct Params {
{{PARAMS}}
}

@group(0) @binding(0) var<uniform> P: Params;
{{BINDINGS}}
{{HELPERS}}
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
{{PROLOGUE}}
    // base: this thread's first index (element or vec4) within the dispatch's chunk (P.n
    // elements from global index P.start). Items past the end use a clamped index and are not
    // stored.
    let base = (wid.x + wid.y * nwg.x) * {{PER_GROUP}}u + lid;
    if (base >= {{LIMIT}}) {
        return;
    }
{{BODY}}
}
