// Shared by the FFT pass templates (`fft_stockham.wgsl`, `fft_lanes.wgsl`): the uniform
// block, bindings, complex helpers, twiddles, and how a pass reads and writes its lines.
// Line b, global step j (0 <= j < L = n / R), value r: reads natural index j + r * L, writes
// (j / ns) * ns * R + j % ns + r * ns. Twiddle tables hold exp(-2 pi i t / N) (forward);
// p.sgn = 1 forward, -1 inverse.

struct Params {
    n: u32, l: u32, ns: u32, lines: u32,
    total: u32, blo: u32, groups_x: u32, nlog: u32,
    in_off: u32, in_stride: u32, in_shi: u32, in_slo: u32,
    in_len: u32, out_off: u32, out_stride: u32, out_shi: u32,
    out_slo: u32, out_len: u32, tw_inner: u32, tw_lo: u32,
    tw_hi: u32, tw_shift: u32, load_aux: u32, store_aux: u32,
    sgn: f32, scale: f32, conj_in: f32, tw_q: f32,
    tw_ch: f32, tw_cl: f32, dc_n: u32, dc_imag: f32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<{{SRC_T}}>;
@group(0) @binding(2) var<storage, read_write> dst: array<{{DST_T}}>;
@group(0) @binding(3) var<storage, read> tw: array<vec2<f32>>;
@group(0) @binding(4) var<storage, read> aux: array<vec2<f32>>;

const R: u32 = {{R}}u;
const C: u32 = {{C}}u;
const WG: u32 = {{WG}}u;

fn cmul(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// A table twiddle in the transform's direction.
fn twid(t: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(t.x, t.y * p.sgn);
}

// exp(-2 pi i m / N) (forward) for m < N <= 2^25, computed: with q the quadrant nearest to
// m / N and r = 4m - qN (exact integers), the angle is q pi / 2 + a, a = (pi / 2) r / N in
// [-pi/4, pi/4] (q4 = 4 / N; pi / (2N) = ch + cl, two f32 in one fma); sin a and cos a from
// their Taylor series to a^9 and a^10 (truncation below 2e-9 there, under f32 rounding),
// rotated by the quadrant.
fn twiddle_of(m: u32, big: u32, q4: f32, ch: f32, cl: f32) -> vec2<f32> {
    let q = u32(round(f32(m) * q4));
    let r = f32(i32(4u * m) - i32(q * big));
    let a = fma(r, ch, r * cl);
    let a2 = a * a;
    let s = fma(a * a2, fma(a2, fma(a2, fma(a2, 2.7557319e-6, -1.9841270e-4), 8.3333333e-3), -1.6666667e-1), a);
    let c = fma(a2, fma(a2, fma(a2, fma(a2, fma(a2, -2.7557319e-7, 2.4801587e-5), -1.3888889e-3), 4.1666667e-2), -0.5), 1.0);
    let w = select(vec2<f32>(c, -s), vec2<f32>(-s, -c), (q & 1u) != 0u);
    return select(w, -w, (q & 2u) != 0u);
}

// exp(-2 pi i t / R) in the transform's direction (inner twiddles of the sub-passes).
fn inner_tw(t: u32) -> vec2<f32> {
{{INNER_TW}}
}

// exp(-2 pi i m / (ns R)) in the transform's direction, from two tables or computed.
fn outer_tw(m: u32) -> vec2<f32> {
{{OUTER_TW}}
}

// The raw input value at index `idx` of the line at `base` (zero outside the input): a plain
// read, so that a prefetch never waits for it.
fn fetch(base: u32, idx: u32) -> vec2<f32> {
    var v = vec2<f32>(0.0, 0.0);
{{FETCH}}
    return v;
}

// A fetched value of index `idx` made ready: conjugation, the load factor.
fn fix(idx: u32, v0: vec2<f32>) -> vec2<f32> {
    var v = v0;
{{FIX}}
    return v;
}

fn store(base: u32, idx: u32, v0: vec2<f32>) {
    if (idx >= p.out_len) {
        return;
    }
    var v = v0 * p.scale;
{{STORE}}
}

// One sub-sequence: its input and output line bases, step j (NONE: past the end of the
// batch) and j % ns.
const NONE: u32 = 0xffffffffu;
struct Line {
    inb: u32,
    outb: u32,
    j: u32,
    k: u32,
}

// The sub-sequence of global work item jj (the only runtime divisions of a pass).
fn line_of(jj: u32) -> Line {
    var ln = Line(0u, 0u, NONE, 0u);
    if (jj < p.total) {
{{SPLIT}}
        let hi = b / p.blo;
        let lo = b % p.blo;
        ln.inb = p.in_off + hi * p.in_shi + lo * p.in_slo;
        ln.outb = p.out_off + hi * p.out_shi + lo * p.out_slo;
        ln.j = jw;
        ln.k = jw % p.ns;
    }
    return ln;
}

// The raw value r of a sub-sequence (zero past the batch; see `finish_line`).
fn fetch_line(ln: Line, r: u32) -> vec2<f32> {
    var v = vec2<f32>(0.0, 0.0);
    if (ln.j != NONE) {
        v = fetch(ln.inb, ln.j + r * p.l);
    }
    return v;
}

// A fetched value r of a sub-sequence made ready, after the outer twiddle.
fn finish_line(ln: Line, r: u32, raw: vec2<f32>) -> vec2<f32> {
    if (ln.j == NONE) {
        return vec2<f32>(0.0, 0.0);
    }
    var v = fix(ln.j + r * p.l, raw);
    if (p.ns > 1u && r > 0u) {
        v = cmul(v, outer_tw(ln.k * r));
    }
    return v;
}

// Value r of a sub-sequence, after the outer twiddle (zero past the batch).
fn load_line(ln: Line, r: u32) -> vec2<f32> {
    return finish_line(ln, r, fetch_line(ln, r));
}

// Stores output value r of a sub-sequence (nothing past the batch).
fn store_line(ln: Line, r: u32, v: vec2<f32>) {
    if (ln.j != NONE) {
        store(ln.outb, (ln.j - ln.k) * R + ln.k + r * p.ns, v);
    }
}
