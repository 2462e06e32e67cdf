// One pass of a Stockham autosort FFT: a workgroup transforms C sub-sequences of R values
// (R = product of the sub-radices), after the pass's outer twiddle. Two generated bodies:
// workgroup-memory sub-passes (any radix), or register sub-passes (powers of two: each
// thread holds its butterflies' values in registers, workgroup memory only exchanges them).
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
const HALF: f32 = 0.70710678118654752;

// Workgroup memory, padded against bank conflicts: one slot after every 32 values and one
// after each sub-sequence (so power-of-two strides spread over the banks).
const LS: u32 = {{LS}}u;
var<workgroup> sm: array<vec2<f32>, {{SM}}>;

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

// v * exp(-i pi / 2 * sgn).
fn rot(v: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(v.y * p.sgn, -v.x * p.sgn);
}

// exp(-2 pi i m / (ns R)) from two tables (m = hi * 2^shift + lo).
fn outer_tw(m: u32) -> vec2<f32> {
    let lo = tw[p.tw_lo + (m & ((1u << p.tw_shift) - 1u))];
    let hi = tw[p.tw_hi + (m >> p.tw_shift)];
    return twid(cmul(lo, hi));
}

fn dft2(a: array<vec2<f32>, 2>) -> array<vec2<f32>, 2> {
    return array<vec2<f32>, 2>(a[0] + a[1], a[0] - a[1]);
}

fn dft4(a: array<vec2<f32>, 4>) -> array<vec2<f32>, 4> {
    let y0 = a[0] + a[2];
    let y1 = a[0] - a[2];
    let y2 = a[1] + a[3];
    let y3 = rot(a[1] - a[3]);
    return array<vec2<f32>, 4>(y0 + y2, y1 + y3, y0 - y2, y1 - y3);
}

fn dft8(a: array<vec2<f32>, 8>) -> array<vec2<f32>, 8> {
    let e = dft4(array<vec2<f32>, 4>(a[0], a[2], a[4], a[6]));
    var o = dft4(array<vec2<f32>, 4>(a[1], a[3], a[5], a[7]));
    let s = p.sgn;
    o[1] = cmul(o[1], vec2<f32>(HALF, -HALF * s));
    o[2] = rot(o[2]);
    o[3] = cmul(o[3], vec2<f32>(-HALF, -HALF * s));
    return array<vec2<f32>, 8>(e[0] + o[0], e[1] + o[1], e[2] + o[2], e[3] + o[3],
                               e[0] - o[0], e[1] - o[1], e[2] - o[2], e[3] - o[3]);
}

const C16: f32 = 0.92387953251128676;
const S16: f32 = 0.38268343236508977;

// Radix 16 as 4 x 4: DFT4 over a[4 n1 + n2] for each n2, twiddle W16^(n2 k1), DFT4 over n2.
fn dft16(a: array<vec2<f32>, 16>) -> array<vec2<f32>, 16> {
    let s = p.sgn;
    let b0 = dft4(array<vec2<f32>, 4>(a[0], a[4], a[8], a[12]));
    var b1 = dft4(array<vec2<f32>, 4>(a[1], a[5], a[9], a[13]));
    var b2 = dft4(array<vec2<f32>, 4>(a[2], a[6], a[10], a[14]));
    var b3 = dft4(array<vec2<f32>, 4>(a[3], a[7], a[11], a[15]));
    b1[1] = cmul(b1[1], vec2<f32>(C16, -S16 * s));
    b1[2] = cmul(b1[2], vec2<f32>(HALF, -HALF * s));
    b1[3] = cmul(b1[3], vec2<f32>(S16, -C16 * s));
    b2[1] = cmul(b2[1], vec2<f32>(HALF, -HALF * s));
    b2[2] = rot(b2[2]);
    b2[3] = cmul(b2[3], vec2<f32>(-HALF, -HALF * s));
    b3[1] = cmul(b3[1], vec2<f32>(S16, -C16 * s));
    b3[2] = cmul(b3[2], vec2<f32>(-HALF, -HALF * s));
    b3[3] = cmul(b3[3], vec2<f32>(-C16, S16 * s));
    let x0 = dft4(array<vec2<f32>, 4>(b0[0], b1[0], b2[0], b3[0]));
    let x1 = dft4(array<vec2<f32>, 4>(b0[1], b1[1], b2[1], b3[1]));
    let x2 = dft4(array<vec2<f32>, 4>(b0[2], b1[2], b2[2], b3[2]));
    let x3 = dft4(array<vec2<f32>, 4>(b0[3], b1[3], b2[3], b3[3]));
    return array<vec2<f32>, 16>(x0[0], x1[0], x2[0], x3[0], x0[1], x1[1], x2[1], x3[1],
                                x0[2], x1[2], x2[2], x3[2], x0[3], x1[3], x2[3], x3[3]);
}

{{ODD_DFTS}}

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
