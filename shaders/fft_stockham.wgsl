// One pass of a Stockham autosort FFT in workgroup memory: a workgroup transforms C
// sub-sequences of R values (R = product of the sub-radices), after the pass's outer
// twiddle. Two generated bodies: workgroup-memory sub-passes (any radix), or register
// sub-passes (powers of two: each thread holds its butterflies' values in registers,
// workgroup memory only exchanges them, one f32 component at a time). Butterflies are
// generated straight-line code. Follows `fft_common.wgsl` (bindings, load/store, lines).

// Workgroup memory (complex values, or one f32 component of them in register passes),
// padded against bank conflicts: one slot after every 32 values and one after each
// sub-sequence (so power-of-two strides spread over the banks).
const LS: u32 = {{LS}}u;
var<workgroup> sm: array<{{SM_T}}, {{SM}}>;

fn ix(c: u32, r: u32) -> u32 {
    return c * LS + r + (r >> 5u);
}

// The sub-sequences of this workgroup, worked out once.
var<workgroup> lines: array<Line, C>;

// Value r of sub-sequence c of this workgroup, after the outer twiddle (zero past the batch).
fn load_value(c: u32, r: u32) -> vec2<f32> {
    return load_line(lines[c], r);
}

// Stores output value r of sub-sequence c (nothing past the batch).
fn store_value(c: u32, r: u32, v: vec2<f32>) {
    store_line(lines[c], r, v);
}

// g0: this workgroup's tile (its C sub-sequences are work items g0 * C...); a pipelined
// register pass takes every ng-th tile from there, prefetching the next one's values.
@compute @workgroup_size({{WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let g0 = wid.x + wid.y * p.groups_x;
    let ng = p.groups_x * nwg.y;
    // The twiddle tables stay in the bind group even where every twiddle is computed.
    _ = arrayLength(&tw);
{{BODY}}
}
