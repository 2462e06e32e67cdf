// One pass of a Stockham autosort FFT: a workgroup transforms C sub-sequences of R values
// (R = product of the sub-radices), after the pass's outer twiddle. Two generated bodies:
// workgroup-memory sub-passes (any radix), or register sub-passes (powers of two: each
// thread holds its butterflies' values in registers, workgroup memory only exchanges them,
// one f32 component at a time). Butterflies are generated straight-line code.
// Line b, global step j (0 <= j < L = n / R), value r: reads natural index j + r * L, writes
// (j / ns) * ns * R + j % ns + r * ns. Generated parts: constants, load/store, the body.
// Twiddle tables hold exp(-2 pi i t / N) (forward); p.sgn = 1 forward, -1 inverse.

struct Params {
    n: u32, l: u32, ns: u32, lines: u32,
    total: u32, blo: u32, groups_x: u32, nlog: u32,
    in_off: u32, in_stride: u32, in_shi: u32, in_slo: u32,
    in_len: u32, out_off: u32, out_stride: u32, out_shi: u32,
    out_slo: u32, out_len: u32, tw_inner: u32, tw_lo: u32,
    tw_hi: u32, tw_shift: u32, load_aux: u32, store_aux: u32,
    sgn: f32, scale: f32, conj_in: f32, pad: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<{{SRC_T}}>;
@group(0) @binding(2) var<storage, read_write> dst: array<{{DST_T}}>;
@group(0) @binding(3) var<storage, read> tw: array<vec2<f32>>;
@group(0) @binding(4) var<storage, read> aux: array<vec2<f32>>;

const R: u32 = {{R}}u;
const C: u32 = {{C}}u;
const WG: u32 = {{WG}}u;

// Workgroup memory (complex values, or one f32 component of them in register passes),
// padded against bank conflicts: one slot after every 32 values and one after each
// sub-sequence (so power-of-two strides spread over the banks).
const LS: u32 = {{LS}}u;
var<workgroup> sm: array<{{SM_T}}, {{SM}}>;

fn ix(c: u32, r: u32) -> u32 {
    return c * LS + r + (r >> 5u);
}

fn cmul(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// A table twiddle in the transform's direction.
fn twid(t: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(t.x, t.y * p.sgn);
}

// exp(-2 pi i m / (ns R)) from two tables (m = hi * 2^shift + lo).
fn outer_tw(m: u32) -> vec2<f32> {
    let lo = tw[p.tw_lo + (m & ((1u << p.tw_shift) - 1u))];
    let hi = tw[p.tw_hi + (m >> p.tw_shift)];
    return twid(cmul(lo, hi));
}

fn load(base: u32, idx: u32) -> vec2<f32> {
    var v = vec2<f32>(0.0, 0.0);
{{LOAD}}
    return v;
}

fn store(base: u32, idx: u32, v0: vec2<f32>) {
    if (idx >= p.out_len) {
        return;
    }
    var v = v0 * p.scale;
{{STORE}}
}

// Per sub-sequence of this workgroup: input and output line bases, step j (NONE: past the
// end of the batch) and j % ns, computed once (the only runtime divisions of the kernel).
const NONE: u32 = 0xffffffffu;
var<workgroup> l_in: array<u32, C>;
var<workgroup> l_out: array<u32, C>;
var<workgroup> l_j: array<u32, C>;
var<workgroup> l_k: array<u32, C>;

// Value r of sub-sequence c of this workgroup, after the outer twiddle (zero past the batch).
fn load_value(c: u32, r: u32) -> vec2<f32> {
    let j = l_j[c];
    var v = vec2<f32>(0.0, 0.0);
    if (j != NONE) {
        v = load(l_in[c], j + r * p.l);
        if (p.ns > 1u && r > 0u) {
            v = cmul(v, outer_tw(l_k[c] * r));
        }
    }
    return v;
}

// Stores output value r of sub-sequence c (nothing past the batch).
fn store_value(c: u32, r: u32, v: vec2<f32>) {
    let j = l_j[c];
    if (j != NONE) {
        let k = l_k[c];
        store(l_out[c], (j - k) * R + k + r * p.ns, v);
    }
}

@compute @workgroup_size({{WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let jj0 = (wid.x + wid.y * p.groups_x) * C;
    for (var c = t; c < C; c += WG) {
        let jj = jj0 + c;
        var j = NONE;
        var bi = 0u;
        var bo = 0u;
        var k = 0u;
        if (jj < p.total) {
{{SPLIT}}
            j = jw;
            let hi = b / p.blo;
            let lo = b % p.blo;
            bi = p.in_off + hi * p.in_shi + lo * p.in_slo;
            bo = p.out_off + hi * p.out_shi + lo * p.out_slo;
            k = j % p.ns;
        }
        l_in[c] = bi;
        l_out[c] = bo;
        l_j[c] = j;
        l_k[c] = k;
    }
    workgroupBarrier();
{{BODY}}
}
