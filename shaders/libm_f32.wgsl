// kupfer libm, f32: accurate transcendental functions for generated elementwise kernels.
//
// Public functions: kp_<name>_f32(x) (kp_arctan2_f32(y, x), kp_hypot_f32(x, y),
// kp_power_f32(x, y) take two arguments). Everything else is an internal helper (kpl32_*,
// KPL32_*, Kpl32*). Pure WGSL: no bindings, no entry points, no enable directives, and nothing
// from the kernel (no uniforms): the library is self-contained.
//
// Design rules, because drivers differ in ways WGSL allows:
// - No transcendental builtin is used (they are approximate on many drivers). Only + - * /,
//   fma, sqrt, abs, floor/round, select, bitcast and integer ops.
// - fma() is never relied on to be fused: Vulkan lets a driver evaluate it as a rounded multiply
//   followed by a rounded add, and Mesa's lavapipe does exactly that. Exact products come from
//   kpl32_mul (Dekker's product on 12-bit halves obtained by masking the bits, so every partial
//   product is exact and the result is the same whether or not the compiler contracts a*b+c).
// - Division and sqrt are repaired with one residual step where their error would show (Vulkan
//   allows 2.5 ulp for x/y and more for sqrt).
// - Subnormal inputs and outputs never go through float arithmetic where it matters: exponent
//   extraction (kpl32_frexp) and scaling by 2^k (kpl32_scale) are done on the bit patterns, so
//   results are the same on drivers that flush subnormals to zero.
// - NaN and infinity tests are done on the bits.
// - Error-free transformations and residual corrections are fenced against algebraic rewriting.
//   Without NoContraction decorations (naga emits none) drivers treat float ops as
//   reassociable: Mesa's NIR rewrites (a + b) - a to b, NVIDIA's compiler rewrites
//   (x - y) - z to x - (y + z), and either silently turns error terms into 0. kpl32_opq(x) =
//   min(x, largest f32) is x for every value it is given (all finite, never NaN) but no compiler
//   can see through it; every intermediate whose exact rounding an algorithm depends on (the
//   operands and results inside two_sum, fast_two_sum, the product split, the div/sqrt
//   residuals, reductions such as x - k ln2_hi, and the small-term sums added last to a
//   leading term) goes through it. A fence made of "x - uniform zero" is not enough: NVIDIA
//   reassociates across it. Paths where a fenced value could be +inf (min(+inf, MAX) = MAX) are
//   cut off before the fences (see kp_power_f32).
//
// Error bounds quoted per function are the maxima measured against correctly rounded results
// (NumPy's umath validation sets plus random and edge inputs), see the kupfer libm report.

// ---------------------------------------------------------------------------------------------
// Constants (exact hex literals; _H/_L pairs are unevaluated double-f32 sums).

const KPL32_MAX: f32 = 0x1.fffffep+127f;
const KPL32_LN2_HI: f32 = 0x1.62e4p-1f;      // ln2 to 16 bits: k * LN2_HI is exact for |k| < 256
const KPL32_LN2_LO: f32 = 0x1.7f7d1cp-20f;
const KPL32_LN2_H: f32 = 0x1.62e43p-1f;
const KPL32_LN2_L: f32 = -0x1.05c61p-29f;
const KPL32_LOG2E: f32 = 0x1.715476p+0f;
const KPL32_INVLN2_H: f32 = 0x1.715476p+0f;
const KPL32_INVLN2_L: f32 = 0x1.4ae0cp-26f;
const KPL32_INVLN10_H: f32 = 0x1.bcb7b2p-2f;
const KPL32_INVLN10_L: f32 = -0x1.5b235ep-27f;
const KPL32_LOG10_2_HI: f32 = 0x1.344p-2f;   // log10(2) to 16 bits
const KPL32_LOG10_2_LO: f32 = 0x1.3509f8p-18f;
const KPL32_PIO2_H: f32 = 0x1.921fb6p+0f;
const KPL32_PIO2_L: f32 = -0x1.777a5cp-25f;
const KPL32_PI_H: f32 = 0x1.921fb6p+1f;
const KPL32_PI_L: f32 = -0x1.777a5cp-24f;
const KPL32_PIO4_H: f32 = 0x1.921fb6p-1f;
const KPL32_PIO4_L: f32 = -0x1.777a5cp-26f;
const KPL32_3PIO4: f32 = 0x1.2d97c8p+1f;
const KPL32_2OPI: f32 = 0x1.45f306p-1f;
const KPL32_2O3_H: f32 = 0x1.555556p-1f;
const KPL32_2O3_L: f32 = -0x1.555556p-26f;
// pi/2 = C1 + C2 + C3 + C4 (+8e-20); C1..C3 have at most 12 significant bits, so n * Ci is
// exact for |n| < 2^12.
const KPL32_PIO2_C1: f32 = 0x1.92p+0f;
const KPL32_PIO2_C2: f32 = 0x1.fb4p-12f;
const KPL32_PIO2_C3: f32 = 0x1.444p-24f;
const KPL32_PIO2_C4: f32 = 0x1.68c234p-39f;

// Minimax coefficients (generated with a Remez exchange in mpmath, rounded to f32 one at a
// time with the rest refitted). Relative error of each fit in the comment.
// expm1(r) = r + r^2 (E0 + E1 r + ... + E5 r^5), |r| <= 0.35: 2^-28
const KPL32_E0: f32 = 0x1.0p-1f;
const KPL32_E1: f32 = 0x1.55552ap-3f;
const KPL32_E2: f32 = 0x1.5554fep-5f;
const KPL32_E3: f32 = 0x1.115756p-7f;
const KPL32_E4: f32 = 0x1.6d34eep-10f;
const KPL32_E5: f32 = 0x1.3b6eaep-13f;
// sin(r) = r + r^3 (S0 + S1 z + S2 z^2 + S3 z^3), z = r^2, |r| <= pi/4: 2^-32
const KPL32_S0: f32 = -0x1.555556p-3f;
const KPL32_S1: f32 = 0x1.111174p-7f;
const KPL32_S2: f32 = -0x1.a05954p-13f;
const KPL32_S3: f32 = 0x1.7c2c4ep-19f;
// cos(r) = 1 - z/2 + z^2 (C0 + C1 z + C2 z^2), |r| <= pi/4: 2^-31
const KPL32_C0: f32 = 0x1.555554p-5f;
const KPL32_C1: f32 = -0x1.6c114ep-10f;
const KPL32_C2: f32 = 0x1.9b305cp-16f;
// tan(r) = r + r^3 (T0 + ... + T6 z^6), |r| <= pi/4: 2^-29
const KPL32_T0: f32 = 0x1.55556p-2f;
const KPL32_T1: f32 = 0x1.110d9ep-3f;
const KPL32_T2: f32 = 0x1.bad9c2p-5f;
const KPL32_T3: f32 = 0x1.5cc0d4p-6f;
const KPL32_T4: f32 = 0x1.62cb3p-7f;
const KPL32_T5: f32 = 0x1.9c0ef6p-14f;
const KPL32_T6: f32 = 0x1.1e91bep-8f;
// atan(u) = u + u^3 (A0 + ... + A5 z^5), |u| <= tan(pi/8): 2^-33
const KPL32_A0: f32 = -0x1.555554p-2f;
const KPL32_A1: f32 = 0x1.99989p-3f;
const KPL32_A2: f32 = -0x1.246fc6p-3f;
const KPL32_A3: f32 = 0x1.c2f3ep-4f;
const KPL32_A4: f32 = -0x1.5347a2p-4f;
const KPL32_A5: f32 = 0x1.647458p-5f;
// asin(x) = x + x^3 (B0 + ... + B5 z^5), |x| <= 1/2: 2^-31
const KPL32_B0: f32 = 0x1.55554cp-3f;
const KPL32_B1: f32 = 0x1.3338acp-4f;
const KPL32_B2: f32 = 0x1.6ca754p-5f;
const KPL32_B3: f32 = 0x1.04d2e6p-5f;
const KPL32_B4: f32 = 0x1.d523p-7f;
const KPL32_B5: f32 = 0x1.34c54cp-5f;
// 2 atanh(s)/s - 2 = z (LR0 + LR1 z + LR2 z^2), z = s^2 <= 0.0295: 2^-29 absolute
const KPL32_LR0: f32 = 0x1.55557ap-1f;
const KPL32_LR1: f32 = 0x1.995ed4p-2f;
const KPL32_LR2: f32 = 0x1.31e0d8p-2f;
// (2 atanh(s)/s - 2 - 2z/3) / z^2 = LP0 + ... + LP3 z^3 (the precise log used by power): 2^-26
const KPL32_LP0: f32 = 0x1.99999ap-2f;
const KPL32_LP1: f32 = 0x1.24918cp-2f;
const KPL32_LP2: f32 = 0x1.c7705ap-3f;
const KPL32_LP3: f32 = 0x1.7870a6p-3f;
// sinh(x) = x + x^3 (SH0 + ... + SH3 z^3), |x| <= 1: 2^-31
const KPL32_SH0: f32 = 0x1.555556p-3f;
const KPL32_SH1: f32 = 0x1.1110ep-7f;
const KPL32_SH2: f32 = 0x1.a022bcp-13f;
const KPL32_SH3: f32 = 0x1.756c1ep-19f;
// tanh(x) = x + x^3 (TH0 + ... + TH5 z^5), |x| <= 0.55: 2^-33
const KPL32_TH0: f32 = -0x1.555554p-2f;
const KPL32_TH1: f32 = 0x1.111082p-3f;
const KPL32_TH2: f32 = -0x1.b9f392p-5f;
const KPL32_TH3: f32 = 0x1.63b826p-6f;
const KPL32_TH4: f32 = -0x1.0c820ep-7f;
const KPL32_TH5: f32 = 0x1.192cb8p-9f;
// cbrt(a) ~ CB0 + CB1 a + CB2 a^2 + CB3 a^3 on [1, 8]: 2^-7.5 (a Newton seed)
const KPL32_CB0: f32 = 0x1.5d05a8p-1f;
const KPL32_CB1: f32 = 0x1.7546e8p-2f;
const KPL32_CB2: f32 = -0x1.62ccp-5f;
const KPL32_CB3: f32 = 0x1.2f32ecp-9f;

// ---------------------------------------------------------------------------------------------
// Bit-level helpers.

// Through a `let`: WebGPU rejects constant expressions that are not finite.
fn kpl32_inf() -> f32 { let b = 0x7f800000u; return bitcast<f32>(b); }
fn kpl32_nan() -> f32 { let b = 0x7fc00000u; return bitcast<f32>(b); }
fn kpl32_isnan(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }

// |m| with the sign of s.
fn kpl32_copysign(m: f32, s: f32) -> f32 {
    return bitcast<f32>((bitcast<u32>(m) & 0x7fffffffu) | (bitcast<u32>(s) & 0x80000000u));
}

// 2^k for -126 <= k <= 127.
fn kpl32_pow2(k: i32) -> f32 { return bitcast<f32>(u32(k + 127) << 23u); }

struct Kpl32Frexp { m: f32, e: i32 }

// |x| = m * 2^e with m in [1, 2), for finite nonzero x. Subnormals are normalised with integer
// ops (no float arithmetic on them).
fn kpl32_frexp(x: f32) -> Kpl32Frexp {
    let b = bitcast<u32>(x) & 0x7fffffffu;
    var ex = i32(b >> 23u);
    var mant = b & 0x007fffffu;
    if (ex == 0) {
        let s = countLeadingZeros(mant) - 8u;
        mant = (mant << s) & 0x007fffffu;
        ex = 1 - i32(s);
    }
    return Kpl32Frexp(bitcast<f32>(mant | 0x3f800000u), ex - 127);
}

// v * 2^k for finite normal (or zero) v and any k: exact in the normal range, correctly rounded
// (to nearest even) into the subnormal range, +-inf on overflow. Integer ops only.
fn kpl32_scale(v: f32, k: i32) -> f32 {
    let b = bitcast<u32>(v);
    let sgn = b & 0x80000000u;
    let ex = i32((b >> 23u) & 0xffu);
    if (ex == 0) { return v; }
    let ne = ex + k;
    if (ne >= 255) { return bitcast<f32>(sgn | 0x7f800000u); }
    if (ne >= 1) { return bitcast<f32>(sgn | (u32(ne) << 23u) | (b & 0x007fffffu)); }
    if (ne < -24) { return bitcast<f32>(sgn); }
    let sh = u32(1 - ne);
    let m = (b & 0x007fffffu) | 0x00800000u;
    var r = m >> sh;
    let rem = m & ((1u << sh) - 1u);
    let half = 1u << (sh - 1u);
    if (rem > half || (rem == half && (r & 1u) == 1u)) { r = r + 1u; }
    return bitcast<f32>(sgn | r);
}

// ---------------------------------------------------------------------------------------------
// Double-f32 arithmetic: a pair (hi, lo) stands for the unevaluated sum hi + lo.

// The value of x, hidden from algebraic simplification (see the header): min(x, MAX) is x for
// every x but +inf and NaN, which never reach a fence in a path whose result is used.
fn kpl32_opq(x: f32) -> f32 { return min(x, KPL32_MAX); }

// hi + lo == a + b exactly (Knuth). The operands are fenced too, so that an expression passed
// in cannot be reassociated with the sum.
fn kpl32_two_sum(a0: f32, b0: f32) -> vec2<f32> {
    let a = kpl32_opq(a0);
    let b = kpl32_opq(b0);
    let s = kpl32_opq(a + b);
    let bb = kpl32_opq(s - a);
    return vec2<f32>(s, kpl32_opq(a - kpl32_opq(s - bb)) + kpl32_opq(b - bb));
}

// hi + lo == a + b exactly when |a| >= |b| or a == 0 (Dekker).
fn kpl32_fast_two_sum(a0: f32, b0: f32) -> vec2<f32> {
    let a = kpl32_opq(a0);
    let b = kpl32_opq(b0);
    let s = kpl32_opq(a + b);
    return vec2<f32>(s, b - kpl32_opq(s - a));
}

// a = hi + lo with hi the top 12 significant bits (bit mask: immune to FMA contraction).
fn kpl32_split(a0: f32) -> vec2<f32> {
    let a = kpl32_opq(a0);
    let h = bitcast<f32>(bitcast<u32>(a) & 0xfffff000u);
    return vec2<f32>(h, kpl32_opq(a - h));
}

// a * b as a pair, exact up to ~2^-48 relative. Every partial product is exact, so this does not
// depend on whether fma is fused or whether the compiler contracts.
fn kpl32_mul(a: f32, b: f32) -> vec2<f32> {
    let sa = kpl32_split(a);
    let sb = kpl32_split(b);
    let p = kpl32_fast_two_sum(sa.x * sb.x, sa.x * sb.y);
    let q = kpl32_fast_two_sum(p.x, sa.y * sb.x);
    return vec2<f32>(q.x, (p.y + q.y) + sa.y * sb.y);
}

// (ah + al) / (bh + bl) as a pair: one residual correction of the (possibly approximate) quotient.
// The residual is divided by the whole divisor, so the pairs need not be normalised. q is fenced
// so that (ah / bh) * bh cannot be folded to ah; ah - p.x is exact and must be rounded before
// p.y is subtracted (NVIDIA would otherwise form ah - (p.x + p.y), losing p.y).
fn kpl32_div_dd(ah0: f32, al: f32, bh0: f32, bl: f32) -> vec2<f32> {
    let ah = kpl32_opq(ah0);
    let bh = kpl32_opq(bh0);
    let q = kpl32_opq(ah / bh);
    let p = kpl32_mul(q, bh);
    let rho = kpl32_opq(kpl32_opq(ah - p.x) - p.y) + (al - q * bl);
    return vec2<f32>(q, rho / (bh + bl));
}

// sqrt(h + l) as a pair, h >= 0: one residual correction (also repairs an inexact sqrt).
fn kpl32_sqrt_dd(h0: f32, l: f32) -> vec2<f32> {
    let h = kpl32_opq(h0);
    let s = kpl32_opq(sqrt(h));                  // fenced, as q in kpl32_div_dd (sqrt(h)^2 -> h)
    if (s == 0.0) { return vec2<f32>(s, 0.0); }
    let p = kpl32_mul(s, s);
    let rho = kpl32_opq(kpl32_opq(h - p.x) - p.y) + l;
    return vec2<f32>(s, rho / (2.0 * s));
}

// ---------------------------------------------------------------------------------------------
// exp family.

struct Kpl32Exp { k: i32, h: f32, l: f32 }

// 2^k * exp(r + rl) = 2^k * (h + l) for |r| <= 0.35 and |rl| << |r|; h + l is good to ~2^-28.
fn kpl32_exp_dd(r: f32, rl: f32, k: i32) -> Kpl32Exp {
    let q = r * r * (KPL32_E0 + r * (KPL32_E1 + r * (KPL32_E2 + r * (KPL32_E3 + r * (KPL32_E4 + r * KPL32_E5)))));
    let c = rl + rl * (r + q);
    let s = kpl32_fast_two_sum(1.0, r);
    return Kpl32Exp(k, s.x, kpl32_opq(s.y + (q + c)));
}

// exp(x) = 2^k (h + l) for |x| <= 104: k = round(x/ln2), r = x - k ln2 with the k*LN2_HI
// product exact (LN2_HI has 16 bits).
fn kpl32_exp_core(x: f32) -> Kpl32Exp {
    let kf = round(x * KPL32_LOG2E);
    let r = kpl32_opq(x - kf * KPL32_LN2_HI);    // exact (also when contracted into an fma)
    return kpl32_exp_dd(r, -kf * KPL32_LN2_LO, i32(kf));
}

// exp: < 1 ulp. Overflow above 88.7228, subnormal results built by kpl32_scale.
fn kp_exp_f32(x: f32) -> f32 {
    if (kpl32_isnan(x)) { return x; }
    if (x > 89.0) { return kpl32_inf(); }
    if (x < -104.0) { return 0.0; }
    let e = kpl32_exp_core(x);
    return kpl32_scale(e.h + e.l, e.k);
}

// exp2: < 1 ulp. 2^x = 2^k * exp((x - k) ln2), x - k exact.
fn kp_exp2_f32(x: f32) -> f32 {
    if (kpl32_isnan(x)) { return x; }
    if (x >= 128.0) { return kpl32_inf(); }
    if (x < -151.0) { return 0.0; }
    let kf = round(x);
    let r = kpl32_opq(x - kf);
    let t = kpl32_mul(r, KPL32_LN2_H);
    let e = kpl32_exp_dd(t.x, t.y + r * KPL32_LN2_L, i32(kf));
    return kpl32_scale(e.h + e.l, e.k);
}

// expm1: < 1 ulp. Small |x| by the polynomial directly; otherwise 2^k (h + l - 2^-k) with the
// subtraction done exactly before the single rounding.
fn kp_expm1_f32(x: f32) -> f32 {
    let ax = bitcast<u32>(x) & 0x7fffffffu;
    if (ax < 0x33000000u) { return x; }          // |x| < 2^-25 (and NaN falls through below)
    if (kpl32_isnan(x)) { return x; }
    if (x > 89.0) { return kpl32_inf(); }
    if (x < -18.0) { return -1.0; }
    if (abs(x) < 0.3465) {
        return x + x * x * (KPL32_E0 + x * (KPL32_E1 + x * (KPL32_E2 + x * (KPL32_E3 + x * (KPL32_E4 + x * KPL32_E5)))));
    }
    let e = kpl32_exp_core(x);
    let p = select(0.0, kpl32_pow2(-e.k), e.k < 100);
    let s = kpl32_two_sum(e.h, -p);
    return kpl32_scale(s.x + kpl32_opq(s.y + e.l), e.k);
}

// ---------------------------------------------------------------------------------------------
// log family.

struct Kpl32Log { e: f32, h: f32, l: f32 }

// log(hi + lo) = e ln2 + h + l for finite hi > 0 (normal or subnormal), |lo| <= ulp(hi).
// m = hi / 2^e in [sqrt(1/2), sqrt(2)), f = m - 1 (exact), s = f / (2 + f):
// log1p(f) = f - f^2/2 + s (f^2/2 + R(s^2)) with R = 2 atanh(s)/s - 2. f - f^2/2 is kept as an
// exact pair, so h + l is good to ~2^-28 relative.
fn kpl32_log_core(hi: f32, lo: f32) -> Kpl32Log {
    let fr = kpl32_frexp(hi);
    var m = fr.m;
    var e = fr.e;
    if (m > 1.41421356) { m = 0.5 * m; e = e + 1; }
    let f = kpl32_opq(m - 1.0);                  // exact
    let c = select(0.0, lo / hi, lo != 0.0);
    let s = f / (2.0 + f);
    let z = s * s;
    let rr = z * (KPL32_LR0 + z * (KPL32_LR1 + z * KPL32_LR2));
    let ff = kpl32_mul(f, f);
    let hh = 0.5 * ff.x;
    let t = kpl32_fast_two_sum(f, -hh);
    return Kpl32Log(f32(e), t.x, kpl32_opq(t.y + ((s * (hh + rr) - 0.5 * ff.y) + c)));
}

// e ln2 + h + l rounded once.
fn kpl32_log_finish(g: Kpl32Log) -> f32 {
    let a = kpl32_fast_two_sum(g.e * KPL32_LN2_HI, g.h);
    return a.x + kpl32_opq(a.y + (g.l + g.e * KPL32_LN2_LO));
}

// NaN for x < 0, -inf for +-0, x for NaN and +inf; 0 otherwise (x is an ordinary positive).
fn kpl32_log_special(x: f32) -> f32 {
    let b = bitcast<u32>(x);
    if ((b & 0x7fffffffu) == 0u) { return -kpl32_inf(); }
    if (b > 0x7f800000u && b < 0x80000000u) { return x; }  // +NaN
    if (b > 0x80000000u) { return select(kpl32_nan(), x, b > 0xff800000u); }
    return x;  // +inf
}
fn kpl32_log_ordinary(x: f32) -> bool {
    let b = bitcast<u32>(x);
    return b != 0u && b < 0x7f800000u;
}

// log: < 1 ulp.
fn kp_log_f32(x: f32) -> f32 {
    if (!kpl32_log_ordinary(x)) { return kpl32_log_special(x); }
    return kpl32_log_finish(kpl32_log_core(x, 0.0));
}

// log2: < 1 ulp; exact for powers of two.
fn kp_log2_f32(x: f32) -> f32 {
    if (!kpl32_log_ordinary(x)) { return kpl32_log_special(x); }
    let g = kpl32_log_core(x, 0.0);
    let p = kpl32_mul(g.h, KPL32_INVLN2_H);
    let pl = p.y + (g.h * KPL32_INVLN2_L + g.l * KPL32_INVLN2_H);
    let a = kpl32_fast_two_sum(g.e, p.x);
    return a.x + kpl32_opq(a.y + pl);
}

// log10: < 1 ulp.
fn kp_log10_f32(x: f32) -> f32 {
    if (!kpl32_log_ordinary(x)) { return kpl32_log_special(x); }
    let g = kpl32_log_core(x, 0.0);
    let p = kpl32_mul(g.h, KPL32_INVLN10_H);
    let pl = p.y + (g.h * KPL32_INVLN10_L + g.l * KPL32_INVLN10_H) + g.e * KPL32_LOG10_2_LO;
    let a = kpl32_two_sum(g.e * KPL32_LOG10_2_HI, p.x);
    return a.x + kpl32_opq(a.y + pl);
}

// log1p: < 1 ulp. 1 + x is formed exactly as a pair and handed to the log core.
fn kp_log1p_f32(x: f32) -> f32 {
    let ax = bitcast<u32>(x) & 0x7fffffffu;
    if (ax < 0x33800000u) { return x; }          // |x| < 2^-24: log1p(x) rounds to x
    if (kpl32_isnan(x)) { return x; }
    if (x == -1.0) { return -kpl32_inf(); }
    if (x < -1.0) { return kpl32_nan(); }
    if (ax == 0x7f800000u) { return x; }
    let u = kpl32_two_sum(1.0, x);
    return kpl32_log_finish(kpl32_log_core(u.x, u.y));
}

// ---------------------------------------------------------------------------------------------
// Trigonometric functions.

struct Kpl32Red { n: i32, h: f32, l: f32 }

// 32x32 -> 64-bit unsigned product as (lo, hi), from 16-bit halves.
fn kpl32_mul_wide(a: u32, b: u32) -> vec2<u32> {
    let al = a & 0xffffu;
    let ah = a >> 16u;
    let bl = b & 0xffffu;
    let bh = b >> 16u;
    let ll = al * bl;
    let lh = al * bh;
    let hl = ah * bl;
    let mid = (ll >> 16u) + (lh & 0xffffu) + (hl & 0xffffu);
    return vec2<u32>((ll & 0xffffu) | (mid << 16u), ah * bh + (lh >> 16u) + (hl >> 16u) + (mid >> 16u));
}

// Bits [pos, pos + 32) of the multi-word integer p (p[0] least significant).
fn kpl32_bits32(p: ptr<function, array<u32, 6>>, pos: u32) -> u32 {
    let w = pos >> 5u;
    let sh = pos & 31u;
    let lo = (*p)[w] >> sh;
    let hi = (*p)[w + 1u] << ((32u - sh) & 31u);
    return select(lo | hi, lo, sh == 0u);
}

// Payne-Hanek reduction for finite |x| >= 2^12: x * 2/pi computed exactly enough in integer
// arithmetic (24-bit mantissa times 128 bits of 2/pi picked at the exponent), giving the
// quadrant n and the reduced argument as a pair (h + l) in [-pi/4, pi/4] to ~2^-48.
fn kpl32_rem_pio2_large(x: f32) -> Kpl32Red {
    var tbl = array<u32, 8>(0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u,
                            0xdb629599u, 0x3c439041u, 0xfe5163abu, 0xdebbc561u);
    let b = bitcast<u32>(x) & 0x7fffffffu;
    let m = (b & 0x007fffffu) | 0x00800000u;
    let e = i32(b >> 23u) - 150;                 // |x| = m * 2^e
    // Bits of 2/pi at positions <= e - 2 only contribute multiples of 4: skip whole words of them.
    let k0 = max(e - 2, 0) / 32;
    var p: array<u32, 6>;
    var carry = 0u;
    for (var i = 0; i < 4; i = i + 1) {
        let w = kpl32_mul_wide(m, tbl[k0 + 3 - i]);
        let lo = w.x + carry;
        carry = w.y + select(0u, 1u, lo < w.x);
        p[i] = lo;
    }
    p[4] = carry;
    p[5] = 0u;
    // x * 2/pi = p * 2^-s (mod 4).
    let s = u32(32 * (k0 + 4) - e);
    var n = kpl32_bits32(&p, s) & 3u;
    var fhi = kpl32_bits32(&p, s - 32u);
    var flo = kpl32_bits32(&p, s - 64u);
    var neg = false;
    if (fhi >= 0x80000000u) {                    // fraction >= 1/2: take fraction - 1
        n = n + 1u;
        neg = true;
        flo = ~flo + 1u;
        fhi = ~fhi + select(0u, 1u, flo == 0u);
    }
    var sh = 0u;
    if (fhi == 0u) { fhi = flo; flo = 0u; sh = 32u; }
    let z = countLeadingZeros(fhi);
    if (z > 0u) {
        fhi = (fhi << z) | (flo >> (32u - z));
        flo = flo << z;
    }
    sh = sh + z;
    let sc = bitcast<f32>(u32(103 - i32(sh)) << 23u);            // 2^-(24 + sh)
    let a = f32(fhi >> 8u) * sc;
    let bb = f32(((fhi & 0xffu) << 16u) | (flo >> 16u)) * sc * 0x1.0p-24f;
    let pr = kpl32_mul(a, KPL32_PIO2_H);
    var r = kpl32_fast_two_sum(pr.x, pr.y + (a * KPL32_PIO2_L + bb * KPL32_PIO2_H));
    var ni = i32(n & 3u);
    if (neg != (x < 0.0)) { r = -r; }
    if (x < 0.0) { ni = -ni; }
    return Kpl32Red(ni, r.x, r.y);
}

// x = n pi/2 + (h + l), |h + l| <= pi/4 (+tiny), for finite |x| >= pi/4.
// |x| < 6433: Cody-Waite with pi/2 in four pieces, the first three with 12-bit mantissas so that
// n * Ci is exact (n < 2^12), accumulated as a pair. Larger |x|: Payne-Hanek.
fn kpl32_rem_pio2(x: f32) -> Kpl32Red {
    if (abs(x) < 6433.0) {
        let nf = round(x * KPL32_2OPI);
        let t = kpl32_opq(x - nf * KPL32_PIO2_C1);   // exact
        let s = kpl32_two_sum(t, -nf * KPL32_PIO2_C2);
        let u = kpl32_two_sum(s.x, -nf * KPL32_PIO2_C3);
        let r = kpl32_fast_two_sum(u.x, (s.y + u.y) - nf * KPL32_PIO2_C4);
        return Kpl32Red(i32(nf), r.x, r.y);
    }
    return kpl32_rem_pio2_large(x);
}

// sin(h + l), |h| <= pi/4: h + h^3 S(h^2) + l (1 - h^2/2).
fn kpl32_sin_k(h: f32, l: f32) -> f32 {
    let z = h * h;
    let p = z * h * (KPL32_S0 + z * (KPL32_S1 + z * (KPL32_S2 + z * KPL32_S3)));
    return h + kpl32_opq(p + l * (1.0 - 0.5 * z));
}

// cos(h + l), |h| <= pi/4: (1 - h^2/2) formed exactly, + h^4 C(h^2) - h l.
fn kpl32_cos_k(h: f32, l: f32) -> f32 {
    let zz = kpl32_mul(h, h);
    let z = zz.x;
    let w = kpl32_fast_two_sum(1.0, -0.5 * z);
    let t = z * z * (KPL32_C0 + z * (KPL32_C1 + z * KPL32_C2)) - h * l;
    return w.x + kpl32_opq(w.y + (t - 0.5 * zz.y));
}

// sin: < 1 ulp for all finite x (sin(-0) = -0, sin(+-inf) = NaN).
fn kp_sin_f32(x: f32) -> f32 {
    let ax = bitcast<u32>(x) & 0x7fffffffu;
    if (ax < 0x39800000u) { return x; }          // |x| < 2^-12
    if (ax >= 0x7f800000u) { return kpl32_nan(); }
    if (ax <= 0x3f490fdbu) { return kpl32_sin_k(x, 0.0); }
    let r = kpl32_rem_pio2(x);
    let q = r.n & 3;
    var v: f32;
    if ((q & 1) == 0) { v = kpl32_sin_k(r.h, r.l); } else { v = kpl32_cos_k(r.h, r.l); }
    return select(v, -v, q >= 2);
}

// cos: < 1 ulp for all finite x.
fn kp_cos_f32(x: f32) -> f32 {
    let ax = bitcast<u32>(x) & 0x7fffffffu;
    if (ax < 0x39800000u) { return 1.0; }
    if (ax >= 0x7f800000u) { return kpl32_nan(); }
    if (ax <= 0x3f490fdbu) { return kpl32_cos_k(x, 0.0); }
    let r = kpl32_rem_pio2(x);
    let q = r.n & 3;
    var v: f32;
    if ((q & 1) == 0) { v = kpl32_cos_k(r.h, r.l); } else { v = kpl32_sin_k(r.h, r.l); }
    return select(v, -v, q == 1 || q == 2);
}

// tan: < 1.5 ulp. tan(r) by polynomial as a pair; odd quadrants -1/tan(r) with one residual
// correction of the reciprocal.
fn kp_tan_f32(x: f32) -> f32 {
    let ax = bitcast<u32>(x) & 0x7fffffffu;
    if (ax < 0x39800000u) { return x; }
    if (ax >= 0x7f800000u) { return kpl32_nan(); }
    var r = Kpl32Red(0, x, 0.0);
    if (ax > 0x3f490fdbu) { r = kpl32_rem_pio2(x); }
    let h = r.h;
    let z = h * h;
    let p = z * h * (KPL32_T0 + z * (KPL32_T1 + z * (KPL32_T2 + z * (KPL32_T3 + z * (KPL32_T4 + z * (KPL32_T5 + z * KPL32_T6))))));
    let t = kpl32_fast_two_sum(h, p);
    let tl = kpl32_opq(t.y + r.l * (1.0 + t.x * t.x));
    if ((r.n & 1) == 0) { return t.x + tl; }
    let q = kpl32_opq(-1.0 / t.x);
    let pq = kpl32_mul(q, t.x);
    let d = kpl32_opq(kpl32_opq(1.0 + pq.x) + pq.y) + q * tl;   // 1 + pq.x is exact
    return q + kpl32_opq(q * d);
}

// ---------------------------------------------------------------------------------------------
// Inverse trigonometric functions.

// atan(u) - u for |u| <= tan(pi/8).
fn kpl32_atan_p(u: f32) -> f32 {
    let z = u * u;
    return z * u * (KPL32_A0 + z * (KPL32_A1 + z * (KPL32_A2 + z * (KPL32_A3 + z * (KPL32_A4 + z * KPL32_A5)))));
}

// atan(t + tl) as a pair for t >= 0 (finite or +inf). Three ranges, each reduced to
// |u| <= tan(pi/8): u = t; pi/4 + atan((t-1)/(t+1)); pi/2 + atan(-1/t). The reduced argument is
// a corrected pair, the constant a pair.
fn kpl32_atan_dd(t: f32, tl: f32) -> vec2<f32> {
    if (t <= 0.41421356) {
        return kpl32_fast_two_sum(t, tl / (1.0 + t * t) + kpl32_atan_p(t));
    }
    var c = vec2<f32>(KPL32_PIO2_H, KPL32_PIO2_L);
    var u: vec2<f32>;
    if (t <= 2.41421356) {
        c = vec2<f32>(KPL32_PIO4_H, KPL32_PIO4_L);
        let num = kpl32_two_sum(t, -1.0);
        let den = kpl32_two_sum(t, 1.0);
        u = kpl32_div_dd(num.x, num.y + tl, den.x, den.y + tl);
    } else {
        if (t > 0x1.0p+25f) { return c; }
        u = kpl32_div_dd(-1.0, 0.0, t, tl);
    }
    let s = kpl32_two_sum(c.x, u.x);
    return kpl32_fast_two_sum(s.x, s.y + (c.y + (u.y / (1.0 + u.x * u.x) + kpl32_atan_p(u.x))));
}

// arctan: < 1 ulp.
fn kp_arctan_f32(x: f32) -> f32 {
    let ax = bitcast<u32>(x) & 0x7fffffffu;
    if (ax < 0x39800000u) { return x; }
    if (ax > 0x7f800000u) { return x; }
    let r = kpl32_atan_dd(bitcast<f32>(ax), 0.0);
    return kpl32_copysign(r.x + r.y, x);
}

// arctan2(y, x): < 1 ulp; IEEE/C99 special cases (signed zeros, infinities). |y/x| is formed
// from mantissas and exponents, so subnormal and huge operands need no float scaling.
fn kp_arctan2_f32(y: f32, x: f32) -> f32 {
    if (kpl32_isnan(x) || kpl32_isnan(y)) { return x + y; }
    let ay = bitcast<u32>(y) & 0x7fffffffu;
    let ax = bitcast<u32>(x) & 0x7fffffffu;
    let xneg = bitcast<u32>(x) >= 0x80000000u;
    var r: f32;
    if (ay == 0u) {
        r = select(0.0, KPL32_PI_H, xneg);
    } else if (ax == 0u) {
        r = KPL32_PIO2_H;
    } else if (ax == 0x7f800000u) {
        if (ay == 0x7f800000u) { r = select(KPL32_PIO4_H, KPL32_3PIO4, xneg); }
        else { r = select(0.0, KPL32_PI_H, xneg); }
    } else if (ay == 0x7f800000u) {
        r = KPL32_PIO2_H;
    } else {
        let fy = kpl32_frexp(y);
        let fx = kpl32_frexp(x);
        let d = fy.e - fx.e;
        if (d > 30) {
            r = KPL32_PIO2_H;
        } else if (d < -30) {
            r = select(kpl32_scale(fy.m / fx.m, d), KPL32_PI_H, xneg);
        } else {
            let q = kpl32_div_dd(fy.m, 0.0, fx.m, 0.0);
            let sc = kpl32_pow2(d);
            let a = kpl32_atan_dd(q.x * sc, q.y * sc);
            if (xneg) {
                let s = kpl32_two_sum(KPL32_PI_H, -a.x);
                r = s.x + kpl32_opq(s.y + (KPL32_PI_L - a.y));
            } else {
                r = a.x + a.y;
            }
        }
    }
    return kpl32_copysign(r, y);
}

// asin(x) - x for |x| <= 1/2, as x * P(z), z = x^2.
fn kpl32_asin_p(z: f32) -> f32 {
    return z * (KPL32_B0 + z * (KPL32_B1 + z * (KPL32_B2 + z * (KPL32_B3 + z * (KPL32_B4 + z * KPL32_B5)))));
}

// arcsin: < 1 ulp. |x| > 1/2: pi/2 - 2 asin(s), s = sqrt((1-|x|)/2) as a corrected pair.
fn kp_arcsin_f32(x: f32) -> f32 {
    let ax = bitcast<u32>(x) & 0x7fffffffu;
    if (ax < 0x39800000u) { return x; }
    if (ax > 0x7f800000u) { return x; }
    if (ax > 0x3f800000u) { return kpl32_nan(); }
    let a = bitcast<f32>(ax);
    var r: f32;
    if (a <= 0.5) {
        r = a + a * kpl32_asin_p(a * a);
    } else {
        let z = 0.5 * (1.0 - a);
        let s = kpl32_sqrt_dd(z, 0.0);
        let c = s.y + s.x * kpl32_asin_p(z);
        let d = kpl32_two_sum(KPL32_PIO2_H, -2.0 * s.x);
        r = d.x + kpl32_opq(d.y + (KPL32_PIO2_L - 2.0 * c));
    }
    return kpl32_copysign(r, x);
}

// arccos: < 1 ulp. |x| <= 1/2: pi/2 - asin(x); x > 1/2: 2 asin(s); x < -1/2: pi - 2 asin(s).
fn kp_arccos_f32(x: f32) -> f32 {
    let ax = bitcast<u32>(x) & 0x7fffffffu;
    if (ax > 0x7f800000u) { return x; }
    if (ax > 0x3f800000u) { return kpl32_nan(); }
    let a = bitcast<f32>(ax);
    if (a <= 0.5) {
        let p = x * kpl32_asin_p(x * x);
        let d = kpl32_two_sum(KPL32_PIO2_H, -x);
        return d.x + kpl32_opq(d.y + (KPL32_PIO2_L - p));
    }
    let z = 0.5 * (1.0 - a);
    let s = kpl32_sqrt_dd(z, 0.0);
    let c = s.y + s.x * kpl32_asin_p(z);
    if (x > 0.0) { return 2.0 * s.x + 2.0 * c; }
    let d = kpl32_two_sum(KPL32_PI_H, -2.0 * s.x);
    return d.x + kpl32_opq(d.y + (KPL32_PI_L - 2.0 * c));
}

// ---------------------------------------------------------------------------------------------
// Hyperbolic functions.

// sinh: < 1 ulp. |x| < 1: polynomial; else 2^(k-1) (H - 2^-2k / H) with e^|x| = 2^k H.
fn kp_sinh_f32(x: f32) -> f32 {
    let ax = bitcast<u32>(x) & 0x7fffffffu;
    if (ax < 0x39800000u) { return x; }
    if (ax > 0x7f800000u) { return x; }
    let a = bitcast<f32>(ax);
    var r: f32;
    if (a < 1.0) {
        let z = a * a;
        r = a + a * z * (KPL32_SH0 + z * (KPL32_SH1 + z * (KPL32_SH2 + z * KPL32_SH3)));
    } else if (a > 89.5) {
        r = kpl32_inf();
    } else {
        let e = kpl32_exp_core(a);
        if (a > 9.0) {
            r = kpl32_scale(e.h + e.l, e.k - 1);
        } else {
            let b = kpl32_pow2(-2 * e.k) / (e.h + e.l);
            let d = kpl32_two_sum(e.h, -b);
            r = kpl32_scale(d.x + kpl32_opq(d.y + e.l), e.k - 1);
        }
    }
    return kpl32_copysign(r, x);
}

// cosh: < 1 ulp. 2^(k-1) (H + 2^-2k / H) with e^|x| = 2^k H.
fn kp_cosh_f32(x: f32) -> f32 {
    let ax = bitcast<u32>(x) & 0x7fffffffu;
    if (ax < 0x39800000u) { return 1.0; }
    if (ax > 0x7f800000u) { return x; }
    let a = bitcast<f32>(ax);
    if (a > 89.5) { return kpl32_inf(); }
    let e = kpl32_exp_core(a);
    if (a > 9.0) { return kpl32_scale(e.h + e.l, e.k - 1); }
    let b = kpl32_pow2(-2 * e.k) / (e.h + e.l);
    let d = kpl32_two_sum(e.h, b);
    return kpl32_scale(d.x + kpl32_opq(d.y + e.l), e.k - 1);
}

// tanh: < 1 ulp. |x| < 0.55: polynomial; else (E - 1)/(E + 1), E = e^2|x| as pairs.
fn kp_tanh_f32(x: f32) -> f32 {
    let ax = bitcast<u32>(x) & 0x7fffffffu;
    if (ax < 0x39800000u) { return x; }
    if (ax > 0x7f800000u) { return x; }
    let a = bitcast<f32>(ax);
    var r: f32;
    if (a < 0.55) {
        let z = a * a;
        r = a + a * z * (KPL32_TH0 + z * (KPL32_TH1 + z * (KPL32_TH2 + z * (KPL32_TH3 + z * (KPL32_TH4 + z * KPL32_TH5)))));
    } else if (a > 9.1) {
        r = 1.0;
    } else {
        let e = kpl32_exp_core(2.0 * a);
        let p = kpl32_pow2(e.k);
        let en = kpl32_fast_two_sum(e.h, e.l);
        let hp = en.x * p;
        let lp = en.y * p;
        let n = kpl32_two_sum(hp, -1.0);
        let d = kpl32_two_sum(hp, 1.0);
        let q = kpl32_div_dd(n.x, n.y + lp, d.x, d.y + lp);
        r = q.x + q.y;
    }
    return kpl32_copysign(r, x);
}

// arcsinh: < 1 ulp. log(|x| + sqrt(x^2 + 1)) with the argument as an exact-ish pair.
fn kp_arcsinh_f32(x: f32) -> f32 {
    let ax = bitcast<u32>(x) & 0x7fffffffu;
    if (ax < 0x39800000u) { return x; }
    if (ax >= 0x7f800000u) { return x; }
    let a = bitcast<f32>(ax);
    var g: Kpl32Log;
    if (a > 4096.0) {
        g = kpl32_log_core(a, 0.0);
        g.e = g.e + 1.0;
    } else {
        let sq = kpl32_mul(a, a);
        let s1 = kpl32_two_sum(1.0, sq.x);
        let rt = kpl32_sqrt_dd(s1.x, s1.y + sq.y);
        let w = kpl32_two_sum(a, rt.x);
        g = kpl32_log_core(w.x, w.y + rt.y);
    }
    return kpl32_copysign(kpl32_log_finish(g), x);
}

// arccosh: < 1 ulp. x < 2: log1p(t + sqrt(2t + t^2)), t = x - 1 exact; else
// log(x + sqrt(x^2 - 1)); NaN for x < 1.
fn kp_arccosh_f32(x: f32) -> f32 {
    if (kpl32_isnan(x)) { return x; }
    if (x < 1.0) { return kpl32_nan(); }
    if (x == kpl32_inf()) { return x; }
    var g: Kpl32Log;
    if (x > 4096.0) {
        g = kpl32_log_core(x, 0.0);
        g.e = g.e + 1.0;
    } else if (x >= 2.0) {
        let sq = kpl32_mul(x, x);
        let s1 = kpl32_two_sum(sq.x, -1.0);
        let rt = kpl32_sqrt_dd(s1.x, s1.y + sq.y);
        let w = kpl32_two_sum(x, rt.x);
        g = kpl32_log_core(w.x, w.y + rt.y);
    } else {
        let t = x - 1.0;
        let sq = kpl32_mul(t, t);
        let s1 = kpl32_two_sum(2.0 * t, sq.x);
        let rt = kpl32_sqrt_dd(s1.x, s1.y + sq.y);
        let w = kpl32_two_sum(t, rt.x);
        let u = kpl32_two_sum(1.0, w.x);
        g = kpl32_log_core(u.x, u.y + (w.y + rt.y));
    }
    return kpl32_log_finish(g);
}

// arctanh: < 1 ulp. (log(1 + |x|) - log(1 - |x|)) / 2 with both logs as pairs.
fn kp_arctanh_f32(x: f32) -> f32 {
    let ax = bitcast<u32>(x) & 0x7fffffffu;
    if (ax < 0x39800000u) { return x; }
    if (ax > 0x7f800000u) { return x; }
    if (ax > 0x3f800000u) { return kpl32_nan(); }
    if (ax == 0x3f800000u) { return kpl32_copysign(kpl32_inf(), x); }
    let a = bitcast<f32>(ax);
    let pp = kpl32_two_sum(1.0, a);
    let mm = kpl32_two_sum(1.0, -a);
    let g1 = kpl32_log_core(pp.x, pp.y);
    let g2 = kpl32_log_core(mm.x, mm.y);
    let de = g1.e - g2.e;
    let s = kpl32_two_sum(g1.h, -g2.h);
    let t = kpl32_two_sum(de * KPL32_LN2_HI, s.x);
    let r = 0.5 * (t.x + kpl32_opq(t.y + ((s.y + (g1.l - g2.l)) + de * KPL32_LN2_LO)));
    return kpl32_copysign(r, x);
}

// ---------------------------------------------------------------------------------------------
// Algebraic functions.

// cbrt: < 1 ulp. |x| = a 2^(3q) with a in [1, 8): cubic seed, two Newton steps, then one step
// with the residual a - y^3 computed exactly.
fn kp_cbrt_f32(x: f32) -> f32 {
    let ax = bitcast<u32>(x) & 0x7fffffffu;
    if (ax == 0u || ax >= 0x7f800000u) { return x; }
    let fr = kpl32_frexp(x);
    let q = (fr.e + 300) / 3 - 100;
    let rm = fr.e - 3 * q;
    let a = fr.m * f32(1 << u32(rm));
    var y = KPL32_CB0 + a * (KPL32_CB1 + a * (KPL32_CB2 + a * KPL32_CB3));
    y = (2.0 * y + a / (y * y)) * (1.0 / 3.0);
    y = (2.0 * y + a / (y * y)) * (1.0 / 3.0);
    let y2 = kpl32_mul(y, y);
    let y3 = kpl32_mul(y2.x, y);
    let res = kpl32_opq(y3.x - a) + (y3.y + y2.y * y);   // y3.x - a is exact
    y = y - res / (3.0 * y2.x);
    return kpl32_copysign(y * kpl32_pow2(q), x);
}

// hypot: < 1 ulp, no intermediate overflow or underflow: both operands are brought to the
// larger one's binade with integer exponent arithmetic, summed as exact squares, and the
// result scaled back with kpl32_scale. hypot(+-inf, NaN) = +inf as in C99.
fn kp_hypot_f32(x: f32, y: f32) -> f32 {
    let ax = bitcast<u32>(x) & 0x7fffffffu;
    let ay = bitcast<u32>(y) & 0x7fffffffu;
    if (ax == 0x7f800000u || ay == 0x7f800000u) { return kpl32_inf(); }
    if (ax > 0x7f800000u || ay > 0x7f800000u) { return x + y; }
    let big = max(ax, ay);
    let small = min(ax, ay);
    if (small == 0u) { return bitcast<f32>(big); }
    let fa = kpl32_frexp(bitcast<f32>(big));
    let fb = kpl32_frexp(bitcast<f32>(small));
    let d = fb.e - fa.e;
    if (d < -13) { return bitcast<f32>(big); }
    let b = fb.m * kpl32_pow2(d);
    let p = kpl32_mul(fa.m, fa.m);
    let q = kpl32_mul(b, b);
    let s = kpl32_fast_two_sum(p.x, q.x);
    let r = kpl32_sqrt_dd(s.x, s.y + (p.y + q.y));
    return kpl32_scale(r.x + r.y, fa.e);
}

// log2(x) as a pair accurate to ~2^-40 absolute for finite x > 0 (used by power):
// s = f/(2+f) as a pair, log1p(f) = 2s + (2/3)s^3 (pairs) + s^5 P(s^2).
fn kpl32_log2_dd(x: f32) -> vec2<f32> {
    let fr = kpl32_frexp(x);
    var m = fr.m;
    var e = fr.e;
    if (m > 1.41421356) { m = 0.5 * m; e = e + 1; }
    let f = kpl32_opq(m - 1.0);                  // exact
    let den = kpl32_two_sum(2.0, f);
    let s = kpl32_div_dd(f, 0.0, den.x, den.y);
    let z = kpl32_mul(s.x, s.x);
    let zl = z.y + 2.0 * s.x * s.y;
    let s3 = kpl32_mul(z.x, s.x);
    let s3l = s3.y + (zl * s.x + z.x * s.y);
    let t3 = kpl32_mul(s3.x, KPL32_2O3_H);
    let t3l = t3.y + (s3l * KPL32_2O3_H + s3.x * KPL32_2O3_L);
    let zz = z.x;
    let t5 = s3.x * zz * (KPL32_LP0 + zz * (KPL32_LP1 + zz * (KPL32_LP2 + zz * KPL32_LP3)));
    let a = kpl32_fast_two_sum(2.0 * s.x, t3.x);
    let lh = a.x;
    let ll = kpl32_opq(a.y + (2.0 * s.y + (t3l + t5)));
    // log2 = e + (lh + ll) / ln2
    let p = kpl32_mul(lh, KPL32_INVLN2_H);
    let pl = p.y + (lh * KPL32_INVLN2_L + ll * KPL32_INVLN2_H);
    let g = kpl32_fast_two_sum(f32(e), p.x);
    return kpl32_fast_two_sum(g.x, kpl32_opq(g.y + pl));
}

// power (NumPy float power = C99 pow): < 1 ulp for results in the normal range.
// |x|^y = 2^(y log2|x|) with log2|x| and the product as pairs.
fn kp_power_f32(x: f32, y: f32) -> f32 {
    let bx = bitcast<u32>(x);
    let ax = bx & 0x7fffffffu;
    let ay = bitcast<u32>(y) & 0x7fffffffu;
    if (ay == 0u) { return 1.0; }
    if (bx == 0x3f800000u) { return 1.0; }
    if (ax > 0x7f800000u || ay > 0x7f800000u) { return x + y; }
    // Signs and integrality from the bits: drivers that flush subnormals (NVIDIA) would see a
    // subnormal y as 0 in any float comparison, and |y| < 1 is never an integer.
    let xneg = bx >= 0x80000000u;
    let yneg = bitcast<u32>(y) >= 0x80000000u;
    let ya = bitcast<f32>(ay);
    let yint = ay >= 0x4b800000u || (ay >= 0x3f800000u && floor(ya) == ya);
    let yodd = ay < 0x4b800000u && yint && (i32(ya) & 1) == 1;
    let inf = kpl32_inf();
    // A signed zero from the bits: a select between the constants 0.0 and -0.0 may be folded by
    // compilers that ignore the sign of zero.
    let odd_zero = bitcast<f32>(select(0u, bx & 0x80000000u, yodd));
    // |y| = inf, or |y| >= 2^32: |y log2|x|| > 2^8 for every x != +-1, so the result over- or
    // underflows (|y| >= 2^24 is even). This also keeps infinities away from the fences below.
    if (ay >= 0x4f800000u) {
        if (ax == 0x3f800000u) { return 1.0; }
        return select(0.0, inf, (ax > 0x3f800000u) == !yneg);
    }
    if (ax == 0u) {
        if (yneg) { return select(inf, kpl32_copysign(inf, x), yodd); }
        return odd_zero;
    }
    if (ax == 0x7f800000u) {
        if (!xneg) { return select(0.0, inf, !yneg); }
        if (yneg) { return odd_zero; }
        return select(inf, -inf, yodd);
    }
    if (xneg && !yint) { return kpl32_nan(); }
    let l2 = kpl32_log2_dd(bitcast<f32>(ax));
    let w = kpl32_mul(y, l2.x);
    let wl = w.y + y * l2.y;
    var r: f32;
    if (w.x > 129.0) {
        r = inf;
    } else if (w.x < -152.0) {
        r = 0.0;
    } else {
        let kf = round(w.x);
        let u = kpl32_two_sum(w.x - kf, wl);     // w.x - kf is exact
        let t = kpl32_mul(u.x, KPL32_LN2_H);
        let e = kpl32_exp_dd(t.x, t.y + (u.x * KPL32_LN2_L + u.y * KPL32_LN2_H), i32(kf));
        r = kpl32_scale(e.h + e.l, e.k);
    }
    return select(r, -r, xneg && yodd);
}

// ---------------------------------------------------------------------------------------------
// Exact float functions from the bit patterns: nextafter, spacing, frexp, ldexp. The `16`
// variants work on float16 values carried in f32 (their bits through pack2x16float, exact for
// a value that is a float16).

// The float next to x in the direction of y; y when x == y; NaN when either is NaN.
fn kp_nextafter_f32(x: f32, y: f32) -> f32 {
    if (kpl32_isnan(x) || kpl32_isnan(y)) { return kpl32_nan(); }
    if (x == y) { return y; }
    let bx = bitcast<u32>(x);
    if ((bx & 0x7fffffffu) == 0u) { return bitcast<f32>((bitcast<u32>(y) & 0x80000000u) | 1u); }
    // The magnitude grows when y lies beyond x, away from zero.
    let grows = (x < y) == (x > 0.0);
    return bitcast<f32>(select(bx - 1u, bx + 1u, grows));
}

fn kp_nextafter16_f32(x: f32, y: f32) -> f32 {
    if (kpl32_isnan(x) || kpl32_isnan(y)) { return kpl32_nan(); }
    // NumPy's float16 nextafter returns x when x == y (its float and double ones return y).
    if (x == y) { return x; }
    let bx = pack2x16float(vec2<f32>(x, 0.0)) & 0xffffu;
    if ((bx & 0x7fffu) == 0u) { return kpl32_copysign(0x1.0p-24f, y); }
    let grows = (x < y) == (x > 0.0);
    return unpack2x16float(select(bx - 1u, bx + 1u, grows)).x;
}

// The distance from x to the next float away from zero (toward -inf for x < 0), as NumPy's
// spacing: NaN for +-inf and NaN, inf past the largest float.
fn kp_spacing_f32(x: f32) -> f32 {
    let inf = kpl32_inf();
    return kp_nextafter_f32(x, select(inf, -inf, x < 0.0)) - x;
}

fn kp_spacing16_f32(x: f32) -> f32 {
    let inf = kpl32_inf();
    return kp_nextafter16_f32(x, select(inf, -inf, x < 0.0)) - x;
}

// True for zeros, +-inf and NaN: frexp and ldexp return them unchanged.
fn kpl32_frexp_fixed(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) == 0u || (bitcast<u32>(x) & 0x7f800000u) == 0x7f800000u;
}

// frexp's mantissa: x = m * 2^e with 0.5 <= |m| < 1 (x itself for zeros, +-inf and NaN).
fn kp_frexp_m_f32(x: f32) -> f32 {
    if (kpl32_frexp_fixed(x)) { return x; }
    return kpl32_copysign(kpl32_frexp(x).m * 0.5, x);
}

// frexp's exponent (0 for zeros, +-inf and NaN).
fn kp_frexp_e_f32(x: f32) -> i32 {
    if (kpl32_frexp_fixed(x)) { return 0; }
    return kpl32_frexp(x).e + 1;
}

// x * 2^n, exact unless the result is subnormal (then rounded once); n is an integer carried
// as a float (+-inf saturate).
fn kp_ldexp_f32(x: f32, n: f32) -> f32 {
    if (kpl32_frexp_fixed(x) || kpl32_isnan(n)) { return x; }
    let f = kpl32_frexp(x);
    let k = f.e + i32(clamp(n, -400.0, 400.0));
    return kpl32_copysign(kpl32_scale(f.m, clamp(k, -400, 400)), x);
}

// ---------------------------------------------------------------------------------------------
// i0: the modified Bessel function of the first kind of order 0. For |x| <= 15 its power series
// sum_k (x^2/4)^k / (k!)^2 (positive terms: no cancellation); beyond, e^|x| / sqrt(2 pi |x|)
// times the asymptotic series sum_k ((2k-1)!!)^2 / (k! (8|x|)^k), whose first 12 terms are
// below f32's precision there. i0(+-inf) is NaN, as NumPy's (inf / inf).
fn kp_i0_f32(x0: f32) -> f32 {
    let x = abs(x0);
    if (kpl32_isnan(x)) { return x; }
    if (x <= 15.0) {
        let q = 0.25 * x * x;
        var t = 1.0;
        var s = 1.0;
        for (var k = 1; k < 64; k++) {
            t = t * q / f32(k * k);
            s = s + t;
            if (t < s * 1e-8) { break; }
        }
        return s;
    }
    let r = 1.0 / (8.0 * x);
    var t = 1.0;
    var s = 1.0;
    for (var k = 1; k < 13; k++) {
        let j = f32(2 * k - 1);
        t = t * j * j * r / f32(k);
        s = s + t;
    }
    return kp_exp_f32(x) * s / sqrt(6.2831855 * x);
}

// A quiet NaN for the complex functions (complex_f32.wgsl), whose f64 form calls
// kp_cnan_f64.
fn kp_cnan_f32() -> f32 { return kpl32_nan(); }
// Classification, infinity and copysign for the complex functions (their f64 forms are
// libm_f64.wgsl's kp_c*_f64).
fn kp_cinf_f32() -> f32 { return kpl32_inf(); }
fn kp_cisnan_f32(x: f32) -> bool { return kpl32_isnan(x); }
fn kp_cisinf_f32(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u; }
fn kp_ccopysign_f32(m: f32, s: f32) -> f32 { return kpl32_copysign(m, s); }
// The largest finite value, and glibc's cexp cut-off t = int((MAX_EXP - 1) ln 2).
fn kp_cmax_f32() -> f32 { return KPL32_MAX; }
fn kp_cexp_cut_f32() -> f32 { return 88.0; }
