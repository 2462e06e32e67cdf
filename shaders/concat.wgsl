// Joining arrays along one axis (concatenate, stack, hstack, ...), every output element
// written once. The output is seen as rows of `width` elements; input k fills the columns
// [bound[k], bound[k + 1]) of every row from its own rows (element offset off[k], row stride
// rstride[k], columns contiguous). A dispatch covers the columns [col0, col0 + cols) of every
// row, for the inputs it binds ({{INPUTS}} here). Elements are copied as storage units ({{UNIT}}):
// no conversion. The vector form ({{PER}} elements per thread) writes a vec4 of 4-byte units.
{{ENABLE}}
struct Params {
    count: u32, width: u32, col0: u32, cols: u32,
    groups_x: u32, p0: u32, p1: u32, p2: u32,
    bound: array<vec4<u32>, 2>,
    off: array<vec4<u32>, 2>,
    rstride: array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<uniform> p: Params;
{{BINDINGS}}

// The element at column `col` of row `row`, from the input holding that column.
fn load(row: u32, col: u32) -> {{UNIT}} {
{{LOADS}}
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x + gid.y * p.groups_x * 256u;
    if (i >= p.count) {
        return;
    }
{{BODY}}
}
