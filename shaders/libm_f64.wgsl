// kupfer libm, f64: accurate transcendental functions for generated elementwise kernels.
//
// Public functions: kp_<name>_f64(x) (kp_arctan2_f64(y, x), kp_hypot_f64(x, y),
// kp_power_f64(x, y) take two arguments). Everything else is an internal helper (kpl64_*,
// KPL64_*, Kpl64*). Pure WGSL: no bindings, no entry points, no enable directives.
//
// Design rules (as in libm_f32.wgsl), with what f64 on Vulkan adds:
// - SPIR-V has no f64 transcendentals, so only + - * /, sqrt, abs, floor/round, select, min/max,
//   ldexp and conversions are used on f64.
// - No 64-bit integers: naga can only bitcast an f64 to a 64-bit integer, which would make every
//   f64 kernel need SHADER_INT64. Exponents are therefore found by exact scaling (kpl64_frexp),
//   powers of two are built with ldexp on 1.0, NaN is !(x == x), infinity is |x| > MAX, and the
//   sign of a zero is the sign of 1/x.
// - Nothing depends on whether the compiler fuses a*b+c: exact products (Dekker) split their
//   operands with t = a * 2^27, h = (t + a) - t, where the only product is exact, so a fused and
//   an unfused evaluation give the same bits. fma() is not used.
// - Division and sqrt are used in double-f64 routines that repair them with one residual step.
// - Error-free transformations are fenced against algebraic rewriting ((a + b) - a -> b in Mesa's
//   NIR, (x - y) - z -> x - (y + z) in NVIDIA's compiler; WGSL cannot mark an op exact) by
//   kpl64_opq, a min() with the largest double that no compiler can see through (a fence made of
//   "x - uniform zero" is not enough: NVIDIA reassociates across it). It needs nothing from the
//   kernel. The exact transforms fence their operands as well as their intermediates.
// - Inner computations are carried as double-f64 pairs (hi + lo) and rounded once at the end.
//
// Accuracy quoted per function was measured on lavapipe against mpmath (correctly rounded): NumPy's
// float64 validation sets plus 12k-40k random and edge inputs per function (trig arguments up to
// 1.8e308, including the double closest to a multiple of pi/2). "Within 1 ulp" functions are
// correctly rounded on ~99% of inputs; the rest are 1 ulp off. No 2-ulp result was seen.
//
// All constants are kupfer's own: exact values from mpmath, and minimax polynomials fitted with
// mpmath (see the comment above the coefficient sets).

// ---------------------------------------------------------------------------------------------
// Constants (hex literals; _H/_L pairs are unevaluated double-f64 sums).

const KPL64_MAX: f64 = 0x1.fffffffffffffp+1023lf;
const KPL64_SQRT2: f64 = 0x1.6a09e667f3bcdp+0lf;
// pi/2 = C1 + C2 + C3 + C4 (+2^-159): pi/2 rounded to 32 significant bits, the remainder rounded
// to 32 bits twice more, then to 53. n * Ci is exact for |n| < 2^21.
const KPL64_PIO2_C1: f64 = 0x1.921fb54400000p+0lf;
const KPL64_PIO2_C2: f64 = 0x1.0b4611a600000p-34lf;
const KPL64_PIO2_C3: f64 = 0x1.3198a2e000000p-69lf;
const KPL64_PIO2_C4: f64 = 0x1.b839a252049c1p-104lf;
const KPL64_PIO2_H: f64 = 0x1.921fb54442d18p+0lf;
const KPL64_PIO2_L: f64 = 0x1.1a62633145c07p-54lf;
const KPL64_PI_H: f64 = 0x1.921fb54442d18p+1lf;
const KPL64_PI_L: f64 = 0x1.1a62633145c07p-53lf;
const KPL64_PIO4_H: f64 = 0x1.921fb54442d18p-1lf;
const KPL64_PIO4_L: f64 = 0x1.1a62633145c07p-55lf;
const KPL64_3PIO4_H: f64 = 0x1.2d97c7f3321d2p+1lf;
const KPL64_3PIO4_L: f64 = 0x1.a79394c9e8a0ap-54lf;
const KPL64_2OPI: f64 = 0x1.45f306dc9c883p-1lf;
// ln2 = LN2_HI + LN2_LO (+2^-90) with LN2_HI of 29 bits: k * LN2_HI is exact for |k| < 2^24.
const KPL64_LN2_HI: f64 = 0x1.62e42ff000000p-1lf;
const KPL64_LN2_LO: f64 = -0x1.718432a1b0e26p-35lf;
const KPL64_LN2_H: f64 = 0x1.62e42fefa39efp-1lf;
const KPL64_LN2_L: f64 = 0x1.abc9e3b39803fp-56lf;
const KPL64_INVLN2_H: f64 = 0x1.71547652b82fep+0lf;
const KPL64_INVLN2_L: f64 = 0x1.777d0ffda0d24p-56lf;
const KPL64_INVLN10_H: f64 = 0x1.bcb7b1526e50ep-2lf;
const KPL64_INVLN10_L: f64 = 0x1.95355baaafad3p-57lf;
const KPL64_LOG10_2_H: f64 = 0x1.34413509f79ffp-2lf;
const KPL64_LOG10_2_L: f64 = -0x1.9dc1da994fd21p-59lf;
const KPL64_2O3_H: f64 = 0x1.5555555555555p-1lf;
const KPL64_2O3_L: f64 = 0x1.5555555555555p-55lf;
// exp(r) = 1 + r + r^2/2 + r^3 (EXP3 + EXP4 r + ... + EXP14 r^11) (Taylor), |r| <= 0.35: 2^-63
const KPL64_EXP3: f64 = 0x1.5555555555555p-3lf;
const KPL64_EXP4: f64 = 0x1.5555555555555p-5lf;
const KPL64_EXP5: f64 = 0x1.1111111111111p-7lf;
const KPL64_EXP6: f64 = 0x1.6c16c16c16c17p-10lf;
const KPL64_EXP7: f64 = 0x1.a01a01a01a01ap-13lf;
const KPL64_EXP8: f64 = 0x1.a01a01a01a01ap-16lf;
const KPL64_EXP9: f64 = 0x1.71de3a556c734p-19lf;
const KPL64_EXP10: f64 = 0x1.27e4fb7789f5cp-22lf;
const KPL64_EXP11: f64 = 0x1.ae64567f544e4p-26lf;
const KPL64_EXP12: f64 = 0x1.1eed8eff8d898p-29lf;
const KPL64_EXP13: f64 = 0x1.6124613a86d09p-33lf;
const KPL64_EXP14: f64 = 0x1.93974a8c07c9dp-37lf;
// 2 atanh(s) = 2s + (2/3) s^3 + (2/5) s^5 + s^7 (LOGP3 + LOGP4 z + ... + LOGP13 z^10), z = s^2
const KPL64_LOGP3: f64 = 0x1.2492492492492p-2lf;
const KPL64_LOGP4: f64 = 0x1.c71c71c71c71cp-3lf;
const KPL64_LOGP5: f64 = 0x1.745d1745d1746p-3lf;
const KPL64_LOGP6: f64 = 0x1.3b13b13b13b14p-3lf;
const KPL64_LOGP7: f64 = 0x1.1111111111111p-3lf;
const KPL64_LOGP8: f64 = 0x1.e1e1e1e1e1e1ep-4lf;
const KPL64_LOGP9: f64 = 0x1.af286bca1af28p-4lf;
const KPL64_LOGP10: f64 = 0x1.8618618618618p-4lf;
const KPL64_LOGP11: f64 = 0x1.642c8590b2164p-4lf;
const KPL64_LOGP12: f64 = 0x1.47ae147ae147bp-4lf;
const KPL64_LOGP13: f64 = 0x1.2f684bda12f68p-4lf;
const KPL64_2O5_H: f64 = 0x1.999999999999ap-2lf;
const KPL64_2O5_L: f64 = -0x1.999999999999ap-56lf;
// Minimax polynomials in z = x^2, fitted by a Remez exchange in mpmath (60 digits) on the relative
// error of the whole function, then rounded to double one coefficient at a time (lowest degree
// first) with the remaining ones refitted. Each comment gives the largest relative error of the
// rounded fit (measured on 20001 points); evaluation rounding comes on top.
// sin(x) = x + x^3 (S0 + S1 z + ... + S6 z^6), |x| <= 0.7854: 2^-63.2
const KPL64_S0: f64 = -0x1.5555555555555p-3lf;
const KPL64_S1: f64 = 0x1.1111111111068p-7lf;
const KPL64_S2: f64 = -0x1.a01a019ffe08bp-13lf;
const KPL64_S3: f64 = 0x1.71de3a332c263p-19lf;
const KPL64_S4: f64 = -0x1.ae642b992b42fp-26lf;
const KPL64_S5: f64 = 0x1.61093a09d20e3p-33lf;
const KPL64_S6: f64 = -0x1.9fb6743297a08p-41lf;
// cos(x) = 1 - z/2 + z^2 (C0 + C1 z + ... + C6 z^6), |x| <= 0.7854: 2^-69.0
const KPL64_C0: f64 = 0x1.5555555555555p-5lf;
const KPL64_C1: f64 = -0x1.6c16c16c16b30p-10lf;
const KPL64_C2: f64 = 0x1.a01a019ffcb74p-16lf;
const KPL64_C3: f64 = -0x1.27e4fb5a1ec3ep-22lf;
const KPL64_C4: f64 = 0x1.1eed6f7dcfb9ep-29lf;
const KPL64_C5: f64 = -0x1.93744f20dba7cp-37lf;
const KPL64_C6: f64 = 0x1.9dac3c6ea9710p-45lf;
// asin(x) = x + x^3 (B0 + B1 z + ... + B14 z^14), |x| <= 1/2: 2^-65.0
const KPL64_B0: f64 = 0x1.5555555555556p-3lf;
const KPL64_B1: f64 = 0x1.3333333333136p-4lf;
const KPL64_B2: f64 = 0x1.6db6db6dd824ep-5lf;
const KPL64_B3: f64 = 0x1.f1c71c6027bccp-6lf;
const KPL64_B4: f64 = 0x1.6e8ba5ae53b66p-6lf;
const KPL64_B5: f64 = 0x1.1c4e7c7594eeep-6lf;
const KPL64_B6: f64 = 0x1.c9a3bcf7c0aa2p-7lf;
const KPL64_B7: f64 = 0x1.7a06fcd676720p-7lf;
const KPL64_B8: f64 = 0x1.447604e0c3353p-7lf;
const KPL64_B9: f64 = 0x1.e8d5f6686a5d9p-8lf;
const KPL64_B10: f64 = 0x1.8243937a1cac4p-7lf;
const KPL64_B11: f64 = -0x1.20ec4362117ccp-7lf;
const KPL64_B12: f64 = 0x1.51af4592368c3p-5lf;
const KPL64_B13: f64 = -0x1.7d03fef7fda50p-5lf;
const KPL64_B14: f64 = 0x1.5f6ad6b0fdc4dp-5lf;
// atan(u) = u + u^3 (A0 + A1 z + ... + A11 z^11), |u| <= 0.41422 (tan(pi/8) = 0.414214): 2^-63.9
const KPL64_A0: f64 = -0x1.5555555555554p-2lf;
const KPL64_A1: f64 = 0x1.9999999999584p-3lf;
const KPL64_A2: f64 = -0x1.249249246f58dp-3lf;
const KPL64_A3: f64 = 0x1.c71c71b458cfcp-4lf;
const KPL64_A4: f64 = -0x1.745d1450478a8p-4lf;
const KPL64_A5: f64 = 0x1.3b1364f01e2e4p-4lf;
const KPL64_A6: f64 = -0x1.110beb766a07bp-4lf;
const KPL64_A7: f64 = 0x1.e167bb688976fp-5lf;
const KPL64_A8: f64 = -0x1.ab3bf439e9f9dp-5lf;
const KPL64_A9: f64 = 0x1.6fe4f3cf2ecaap-5lf;
const KPL64_A10: f64 = -0x1.0fd5614e666f7p-5lf;
const KPL64_A11: f64 = 0x1.e84d06e2faad7p-7lf;
// cbrt(a) ~ CB0 + CB1 a + CB2 a^2 + CB3 a^3 on [1, 8]: 2^-7.5 (a Newton seed)
const KPL64_CB0: f64 = 0x1.5d05a8p-1lf;
const KPL64_CB1: f64 = 0x1.7546e8p-2lf;
const KPL64_CB2: f64 = -0x1.62ccp-5lf;
const KPL64_CB3: f64 = 0x1.2f32ecp-9lf;


// ---------------------------------------------------------------------------------------------
// Classification and exponent helpers (no 64-bit integers).

// Through a `let`: WebGPU rejects constant expressions that are not finite.
fn kpl64_inf() -> f64 { let b = 0x7f800000u; return f64(bitcast<f32>(b)); }
fn kpl64_nan() -> f64 { let b = 0x7fc00000u; return f64(bitcast<f32>(b)); }
fn kpl64_isnan(x: f64) -> bool { return !(x == x); }
// Finite (false for NaN and +-inf).
fn kpl64_finite(x: f64) -> bool { return abs(x) <= KPL64_MAX; }
// Sign bit, including that of -0 (1/-0 = -inf).
fn kpl64_signbit(x: f64) -> bool {
    return x < 0.0lf || (x == 0.0lf && 1.0lf / x < 0.0lf);
}
// |m| with the sign of s.
fn kpl64_copysign(m: f64, s: f64) -> f64 {
    let a = abs(m);
    return select(a, -a, kpl64_signbit(s));
}

// 2^k for -1022 <= k <= 1023.
fn kpl64_pow2(k: i32) -> f64 { return ldexp(1.0lf, k); }

struct Kpl64Frexp { m: f64, e: i32 }

// |x| = m * 2^e with m in [1, 2), for finite nonzero x (subnormals included), by exact scaling.
fn kpl64_frexp(x: f64) -> Kpl64Frexp {
    var m = abs(x);
    var e = 0;
    if (m < 0x1.0p-1022lf) { m = m * 0x1.0p+64lf; e = -64; }
    if (m < 1.0lf) { m = m * 0x1.0p+1022lf; e = e - 1022; }
    if (m >= 0x1.0p+512lf) { m = m * 0x1.0p-512lf; e = e + 512; }
    if (m >= 0x1.0p+256lf) { m = m * 0x1.0p-256lf; e = e + 256; }
    if (m >= 0x1.0p+128lf) { m = m * 0x1.0p-128lf; e = e + 128; }
    if (m >= 0x1.0p+64lf) { m = m * 0x1.0p-64lf; e = e + 64; }
    if (m >= 0x1.0p+32lf) { m = m * 0x1.0p-32lf; e = e + 32; }
    if (m >= 0x1.0p+16lf) { m = m * 0x1.0p-16lf; e = e + 16; }
    if (m >= 0x1.0p+8lf) { m = m * 0x1.0p-8lf; e = e + 8; }
    if (m >= 0x1.0p+4lf) { m = m * 0x1.0p-4lf; e = e + 4; }
    if (m >= 0x1.0p+2lf) { m = m * 0x1.0p-2lf; e = e + 2; }
    if (m >= 0x1.0p+1lf) { m = m * 0.5lf; e = e + 1; }
    return Kpl64Frexp(m, e);
}

// v * 2^k for |k| <= 2044: exact in the normal range, one rounding into the subnormal range,
// +-inf on overflow. v * 2^(k/2) is exact for the v (~1) this is used with.
fn kpl64_scale(v: f64, k: i32) -> f64 {
    let k1 = k / 2;
    return v * kpl64_pow2(k1) * kpl64_pow2(k - k1);
}

// ---------------------------------------------------------------------------------------------
// Double-f64 arithmetic: a pair (hi, lo) stands for the unevaluated sum hi + lo.

// The value of a, hidden from algebraic simplification. Without NoContraction decorations (naga
// emits none), drivers treat f64 ops as reassociable: Mesa's NIR rewrites (a + b) - a to b, and
// NVIDIA's compiler rewrites (x - y) - z to x - (y + z), either of which silently turns the error
// terms below into 0. min(a, MAX) is a for every finite a, but no compiler can see through it
// (a fence made of "x - uniform zero" does not stop NVIDIA's reassociation). Every
// intermediate whose rounding the algorithms depend on goes through it; the operands are always
// finite there.
fn kpl64_opq(a: f64) -> f64 { return min(a, KPL64_MAX); }

// hi + lo == a + b exactly (Knuth). The operands are fenced too, so that an expression passed in
// cannot be reassociated with (or contracted into) the sum.
fn kpl64_two_sum(a0: f64, b0: f64) -> vec2<f64> {
    let a = kpl64_opq(a0);
    let b = kpl64_opq(b0);
    let s = kpl64_opq(a + b);
    let bb = kpl64_opq(s - a);
    return vec2<f64>(s, kpl64_opq(a - kpl64_opq(s - bb)) + kpl64_opq(b - bb));
}

// hi + lo == a + b exactly when |a| >= |b| or a == 0 (Dekker).
fn kpl64_fast_two_sum(a0: f64, b0: f64) -> vec2<f64> {
    let a = kpl64_opq(a0);
    let b = kpl64_opq(b0);
    let s = kpl64_opq(a + b);
    return vec2<f64>(s, b - kpl64_opq(s - a));
}

// a = hi + lo with hi of at most 26 significant bits and lo of at most 27 (|a| < 2^995). The
// only product, a * 2^27, is exact, so contracting it into an fma changes nothing.
fn kpl64_split(a0: f64) -> vec2<f64> {
    let a = kpl64_opq(a0);
    let t = a * 0x1.0p+27lf;
    let h = kpl64_opq(kpl64_opq(t + a) - t);
    return vec2<f64>(h, kpl64_opq(a - h));
}

// a * b as a pair (Dekker's product): every partial product is exact.
fn kpl64_two_prod(a: f64, b: f64) -> vec2<f64> {
    let p = kpl64_opq(a * b);
    let sa = kpl64_split(a);
    let sb = kpl64_split(b);
    let e1 = kpl64_opq(sa.x * sb.x - p);
    let e2 = kpl64_opq(e1 + sa.x * sb.y);
    let e = kpl64_opq(e2 + sa.y * sb.x) + sa.y * sb.y;
    return vec2<f64>(p, e);
}

fn kpl64_dd_add(a: vec2<f64>, b: vec2<f64>) -> vec2<f64> {
    let s = kpl64_two_sum(a.x, b.x);
    return kpl64_fast_two_sum(s.x, s.y + (a.y + b.y));
}

fn kpl64_dd_mul(a: vec2<f64>, b: vec2<f64>) -> vec2<f64> {
    let p = kpl64_two_prod(a.x, b.x);
    return kpl64_fast_two_sum(p.x, p.y + (a.x * b.y + a.y * b.x));
}

// a / b as a pair: one residual correction of the (possibly inexact) quotient. q is fenced:
// NVIDIA's compiler otherwise folds (a / b) * b to a inside the residual, which zeroes it.
fn kpl64_dd_div(a: vec2<f64>, b: vec2<f64>) -> vec2<f64> {
    let q = kpl64_opq(a.x / b.x);
    let p = kpl64_two_prod(q, b.x);
    let rho = ((kpl64_opq(a.x - p.x) - p.y) + a.y) - q * b.y;
    return kpl64_fast_two_sum(q, rho / b.x);
}

// sqrt(h + l) as a pair, h >= 0: one residual correction (also repairs an inexact sqrt).
fn kpl64_dd_sqrt(h: f64, l: f64) -> vec2<f64> {
    let s = kpl64_opq(sqrt(h));                  // fenced, as q in kpl64_dd_div (sqrt(h)^2 -> h)
    if (s == 0.0lf) { return vec2<f64>(s, 0.0lf); }
    let p = kpl64_two_prod(s, s);
    let rho = (kpl64_opq(h - p.x) - p.y) + l;
    return kpl64_fast_two_sum(s, rho / (2.0lf * s));
}

// ---------------------------------------------------------------------------------------------
// exp family.

// exp(r + rl) as a pair for |r| <= 0.35, |rl| <= 2^-50: good to ~2^-60.
fn kpl64_exp_poly(r: f64, rl: f64) -> vec2<f64> {
    let q = KPL64_EXP3 + r * (KPL64_EXP4 + r * (KPL64_EXP5 + r * (KPL64_EXP6 + r * (KPL64_EXP7
        + r * (KPL64_EXP8 + r * (KPL64_EXP9 + r * (KPL64_EXP10 + r * (KPL64_EXP11 + r * (KPL64_EXP12
        + r * (KPL64_EXP13 + r * KPL64_EXP14))))))))));
    let r2 = kpl64_two_prod(r, r);
    let hr2 = 0.5lf * r2.x;
    let a = kpl64_fast_two_sum(1.0lf, r);
    let b = kpl64_fast_two_sum(a.x, hr2);
    let lo = b.y + (a.y + (0.5lf * r2.y + r2.x * r * q));
    let c = kpl64_fast_two_sum(b.x, lo);
    return kpl64_fast_two_sum(c.x, c.y + rl * c.x);
}

struct Kpl64Exp { k: i32, h: f64, l: f64 }

// exp(x + xl) = 2^k (h + l) for |x| <= 746 (and |xl| <= 2^-40): k = round(x / ln2),
// x - k LN2_HI exact, the rest of the reduced argument kept as a pair.
fn kpl64_exp_core(x: f64, xl: f64) -> Kpl64Exp {
    let kf = round(x * KPL64_INVLN2_H);
    let r = kpl64_two_sum(x - kf * KPL64_LN2_HI, xl - kf * KPL64_LN2_LO);
    let e = kpl64_exp_poly(r.x, r.y);
    return Kpl64Exp(i32(kf), e.x, e.y);
}

// exp: within 1 ulp of correctly rounded (subnormal results: scaled after one rounding, so possibly 1 ulp of the subnormal).
fn kp_exp_f64(x: f64) -> f64 {
    if (kpl64_isnan(x)) { return x; }
    if (x > 709.8lf) { return kpl64_inf(); }
    if (x < -745.2lf) { return 0.0lf; }
    let e = kpl64_exp_core(x, 0.0lf);
    return kpl64_scale(e.h + e.l, e.k);
}

// exp2: 2^x = 2^k exp((x - k) ln2), x - k exact.
fn kp_exp2_f64(x: f64) -> f64 {
    if (kpl64_isnan(x)) { return x; }
    if (x >= 1024.0lf) { return kpl64_inf(); }
    if (x < -1076.0lf) { return 0.0lf; }
    let kf = round(x);
    let r = x - kf;
    let t = kpl64_two_prod(r, KPL64_LN2_H);
    let e = kpl64_exp_poly(t.x, t.y + r * KPL64_LN2_L);
    return kpl64_scale(e.x + e.y, i32(kf));
}

// expm1(x) as a pair for -40 <= x <= 700 (relative accuracy ~2^-60).
fn kpl64_expm1_dd(x: f64) -> vec2<f64> {
    if (abs(x) < 0.3465lf) {
        let q = KPL64_EXP3 + x * (KPL64_EXP4 + x * (KPL64_EXP5 + x * (KPL64_EXP6 + x * (KPL64_EXP7
            + x * (KPL64_EXP8 + x * (KPL64_EXP9 + x * (KPL64_EXP10 + x * (KPL64_EXP11 + x * (KPL64_EXP12
            + x * (KPL64_EXP13 + x * KPL64_EXP14))))))))));
        let x2 = kpl64_two_prod(x, x);
        let s = kpl64_fast_two_sum(x, 0.5lf * x2.x);
        return kpl64_fast_two_sum(s.x, s.y + (0.5lf * x2.y + x2.x * x * q));
    }
    let e = kpl64_exp_core(x, 0.0lf);
    let p = kpl64_pow2(e.k);
    let s = kpl64_two_sum(e.h * p, -1.0lf);
    return kpl64_fast_two_sum(s.x, s.y + e.l * p);
}

// expm1: within 1 ulp of correctly rounded.
fn kp_expm1_f64(x: f64) -> f64 {
    if (abs(x) < 0x1.0p-54lf) { return x; }      // also keeps -0
    if (kpl64_isnan(x)) { return x; }
    if (x > 709.8lf) { return kpl64_inf(); }
    if (x < -38.0lf) { return -1.0lf; }
    if (x > 700.0lf) {
        let e = kpl64_exp_core(x, 0.0lf);
        return kpl64_scale(e.h + e.l, e.k);
    }
    let r = kpl64_expm1_dd(x);
    return r.x + r.y;
}

// ---------------------------------------------------------------------------------------------
// log family.

struct Kpl64Log { e: f64, h: f64, l: f64 }

// log(hi + lo) = e ln2 + (h + l) for finite hi > 0 (normal or subnormal), |lo| <= ulp(hi), with
// h + l good to ~2^-70 relative. m = hi / 2^e in [sqrt(1/2), sqrt(2)), f = m - 1 (exact),
// s = f / (2 + f) as a pair, log(m) = 2 atanh(s) = 2s + (2/3)s^3 + (2/5)s^5 (pairs) + s^7 P(s^2).
fn kpl64_log_core(hi: f64, lo: f64) -> Kpl64Log {
    let fr = kpl64_frexp(hi);
    var m = fr.m;
    var e = fr.e;
    if (m > KPL64_SQRT2) { m = 0.5lf * m; e = e + 1; }
    let f = m - 1.0lf;
    let fl = kpl64_scale(lo, -e);                 // lo / 2^e, exact
    let den = kpl64_two_sum(2.0lf, f);
    let num = kpl64_two_sum(f, fl);
    let s = kpl64_dd_div(num, kpl64_fast_two_sum(den.x, den.y + fl));
    let z = kpl64_dd_mul(s, s);
    let s3 = kpl64_dd_mul(z, s);
    let s5 = kpl64_dd_mul(s3, z);
    let t3 = kpl64_dd_mul(s3, vec2<f64>(KPL64_2O3_H, KPL64_2O3_L));
    let t5 = kpl64_dd_mul(s5, vec2<f64>(KPL64_2O5_H, KPL64_2O5_L));
    let zz = z.x;
    let t7 = s5.x * zz * (KPL64_LOGP3 + zz * (KPL64_LOGP4 + zz * (KPL64_LOGP5 + zz * (KPL64_LOGP6
        + zz * (KPL64_LOGP7 + zz * (KPL64_LOGP8 + zz * (KPL64_LOGP9 + zz * (KPL64_LOGP10
        + zz * (KPL64_LOGP11 + zz * (KPL64_LOGP12 + zz * KPL64_LOGP13))))))))));
    let a = kpl64_fast_two_sum(2.0lf * s.x, t3.x);
    let b = kpl64_fast_two_sum(a.x, t5.x);
    return Kpl64Log(f64(e), b.x, b.y + (a.y + (2.0lf * s.y + (t3.y + (t5.y + t7)))));
}

// e ln2 + h + l as a pair.
fn kpl64_log_dd(g: Kpl64Log) -> vec2<f64> {
    let a = kpl64_two_sum(g.e * KPL64_LN2_HI, g.h);
    return kpl64_fast_two_sum(a.x, a.y + (g.l + g.e * KPL64_LN2_LO));
}

fn kpl64_log_finish(g: Kpl64Log) -> f64 {
    let r = kpl64_log_dd(g);
    return r.x + r.y;
}

// NaN for x < 0, -inf for +-0, x for NaN and +inf (call only where !kpl64_log_ordinary(x)).
fn kpl64_log_special(x: f64) -> f64 {
    if (x == 0.0lf) { return -kpl64_inf(); }
    if (x < 0.0lf) { return kpl64_nan(); }
    return x;
}
fn kpl64_log_ordinary(x: f64) -> bool { return x > 0.0lf && x <= KPL64_MAX; }

// log: correctly rounded on every input tested.
fn kp_log_f64(x: f64) -> f64 {
    if (!kpl64_log_ordinary(x)) { return kpl64_log_special(x); }
    return kpl64_log_finish(kpl64_log_core(x, 0.0lf));
}

// log2: correctly rounded on every input tested; exact for powers of two.
fn kp_log2_f64(x: f64) -> f64 {
    if (!kpl64_log_ordinary(x)) { return kpl64_log_special(x); }
    let g = kpl64_log_core(x, 0.0lf);
    let p = kpl64_dd_mul(vec2<f64>(g.h, g.l), vec2<f64>(KPL64_INVLN2_H, KPL64_INVLN2_L));
    let a = kpl64_two_sum(g.e, p.x);
    return a.x + kpl64_opq(a.y + p.y);
}

// log10: correctly rounded on every input tested.
fn kp_log10_f64(x: f64) -> f64 {
    if (!kpl64_log_ordinary(x)) { return kpl64_log_special(x); }
    let g = kpl64_log_core(x, 0.0lf);
    let p = kpl64_dd_mul(vec2<f64>(g.h, g.l), vec2<f64>(KPL64_INVLN10_H, KPL64_INVLN10_L));
    let q = kpl64_two_prod(g.e, KPL64_LOG10_2_H);
    let a = kpl64_two_sum(q.x, p.x);
    return a.x + kpl64_opq(a.y + (p.y + (q.y + g.e * KPL64_LOG10_2_L)));
}

// log1p: correctly rounded on every input tested. 1 + x is formed exactly as a pair and handed to the log core.
fn kp_log1p_f64(x: f64) -> f64 {
    if (abs(x) < 0x1.0p-54lf) { return x; }      // also keeps -0
    if (kpl64_isnan(x)) { return x; }
    if (x == -1.0lf) { return -kpl64_inf(); }
    if (x < -1.0lf) { return kpl64_nan(); }
    if (x > KPL64_MAX) { return x; }
    let u = kpl64_two_sum(1.0lf, x);
    return kpl64_log_finish(kpl64_log_core(u.x, u.y));
}

// ---------------------------------------------------------------------------------------------
// Trigonometric functions.

struct Kpl64Red { n: i32, h: f64, l: f64 }

// Payne-Hanek reduction for finite |x| >= 2^20, in exact f64 integer arithmetic: the 53-bit
// mantissa X (three 24-bit digits) times ten 24-bit digits of 2/pi picked at the exponent,
// summed by columns (each column < 2^51, exact), carries propagated, the integer part taken
// mod 8 and the fraction accumulated as a pair. Gives n (mod 8) and x - n pi/2 as a pair to
// ~2^-120 absolute, enough for the closest double to a multiple of pi/2 (~2^-61 away).
fn kpl64_rem_pio2_large(x: f64) -> Kpl64Red {
    var tbl = array<u32, 56>(
        0xa2f983u, 0x6e4e44u, 0x1529fcu, 0x2757d1u, 0xf534ddu, 0xc0db62u, 0x95993cu, 0x439041u,
        0xfe5163u, 0xabdebbu, 0xc561b7u, 0x246e3au, 0x424dd2u, 0xe00649u, 0x2eea09u, 0xd1921cu,
        0xfe1debu, 0x1cb129u, 0xa73ee8u, 0x8235f5u, 0x2ebb44u, 0x84e99cu, 0x7026b4u, 0x5f7e41u,
        0x3991d6u, 0x398353u, 0x39f49cu, 0x845f8bu, 0xbdf928u, 0x3b1ff8u, 0x97ffdeu, 0x05980fu,
        0xef2f11u, 0x8b5a0au, 0x6d1f6du, 0x367ecfu, 0x27cb09u, 0xb74f46u, 0x3f669eu, 0x5fea2du,
        0x7527bau, 0xc7ebe5u, 0xf17b3du, 0x0739f7u, 0x8a5292u, 0xea6bfbu, 0x5fb11fu, 0x8d5d08u,
        0x560330u, 0x46fc7bu, 0x6babf0u, 0xcfbc20u, 0x9af436u, 0x1da9e3u, 0x91615eu, 0xe61b08u);
    let fr = kpl64_frexp(x);
    let xm = fr.m * 0x1.0p+52lf;                 // |x| = xm * 2^ee, xm an integer < 2^53
    let ee = fr.e - 52;
    // Digits j of 2/pi (weight 2^(-24 (j + 1))) with ee - 24 (j + 1) >= 3 only add multiples of 8.
    let j0 = max(0, (ee - 3) / 24);
    let w0 = ee - 24 * j0 + 24;                  // column k has weight 2^(w0 - 24 k)
    let xh = floor(xm * 0x1.0p-24lf);
    let d0 = floor(xm * 0x1.0p-48lf);
    let d1 = xh - d0 * 0x1.0p+24lf;
    let d2 = xm - xh * 0x1.0p+24lf;
    var col: array<f64, 10>;
    for (var k = 0; k < 10; k = k + 1) {
        var s = d0 * f64(tbl[j0 + k]);
        if (k >= 1) { s = s + d1 * f64(tbl[j0 + k - 1]); }
        if (k >= 2) { s = s + d2 * f64(tbl[j0 + k - 2]); }
        col[k] = s;
    }
    for (var k = 9; k >= 1; k = k - 1) {
        let c = floor(col[k] * 0x1.0p-24lf);
        col[k] = col[k] - c * 0x1.0p+24lf;
        col[k - 1] = col[k - 1] + c;
    }
    // Columns whose lowest bit weighs >= 2^-48 go into acc (mod 8, exact), the rest into the
    // fraction pair.
    let kf = (w0 + 48) / 24;
    var acc = 0.0lf;
    for (var k = 0; k <= kf; k = k + 1) {
        var t = col[k] * kpl64_pow2(w0 - 24 * k);
        t = t - 8.0lf * floor(t * 0.125lf);
        acc = acc + t;
        acc = acc - 8.0lf * floor(acc * 0.125lf);
    }
    var n = floor(acc);
    var sh = acc - n;
    if (sh >= 0.5lf) { sh = sh - 1.0lf; n = n + 1.0lf; }
    var sl = 0.0lf;
    for (var k = kf + 1; k < 10; k = k + 1) {
        let t = kpl64_two_sum(sh, col[k] * kpl64_pow2(w0 - 24 * k));
        sh = t.x;
        sl = sl + t.y;
    }
    let fq = kpl64_fast_two_sum(sh, sl);
    let p = kpl64_two_prod(fq.x, KPL64_PIO2_H);
    var r = kpl64_fast_two_sum(p.x, p.y + (fq.x * KPL64_PIO2_L + fq.y * KPL64_PIO2_H));
    var ni = i32(n) & 7;
    if (x < 0.0lf) { r = -r; ni = -ni; }
    return Kpl64Red(ni, r.x, r.y);
}

// x = n pi/2 + (h + l), |h + l| <= pi/4 (+tiny), for finite |x| >= pi/4.
// |x| < 2^20: Cody-Waite with pi/2 in four pieces (n * C1..C3 exact), accumulated as a pair.
fn kpl64_rem_pio2(x: f64) -> Kpl64Red {
    if (abs(x) < 0x1.0p+20lf) {
        let nf = round(x * KPL64_2OPI);
        let t = x - nf * KPL64_PIO2_C1;
        let s = kpl64_two_sum(t, -nf * KPL64_PIO2_C2);
        let u = kpl64_two_sum(s.x, -nf * KPL64_PIO2_C3);
        let r = kpl64_fast_two_sum(u.x, (s.y + u.y) - nf * KPL64_PIO2_C4);
        return Kpl64Red(i32(nf), r.x, r.y);
    }
    return kpl64_rem_pio2_large(x);
}

// x + x^3 (c0 + r) + extra as a pair, for |x| <= 1, |x^2 (c0 + r)| <= 1/2 and |r| << |c0|, given
// zz = x^2 as an exact pair: x^3 is formed as a pair and multiplied exactly by c0; r (the rest of
// the polynomial) and extra only need ordinary accuracy. Used by the odd kernels (sin, atan).
fn kpl64_odd_poly(x: f64, zz: vec2<f64>, c0: f64, r: f64, extra: f64) -> vec2<f64> {
    let x3 = kpl64_two_prod(zz.x, x);
    let x3l = x3.y + zz.y * x;
    let m = kpl64_two_prod(x3.x, c0);
    let lo = kpl64_opq(m.y + x3l * c0) + x3.x * r;
    let s = kpl64_fast_two_sum(x, m.x);
    return kpl64_fast_two_sum(s.x, kpl64_opq(s.y + kpl64_opq(lo + extra)));
}

// sin(h + l) as a pair, |h| <= pi/4 (+tiny), |l| <= ulp(h): the S polynomial in h^2, plus
// l cos(h) ~ l (1 - h^2/2).
fn kpl64_sin_dd(h: f64, l: f64) -> vec2<f64> {
    let zz = kpl64_two_prod(h, h);
    let z = zz.x;
    let r = z * (KPL64_S1 + z * (KPL64_S2 + z * (KPL64_S3 + z * (KPL64_S4 + z * (KPL64_S5 + z * KPL64_S6)))));
    return kpl64_odd_poly(h, zz, KPL64_S0, r, l * (1.0lf - 0.5lf * z));
}

// cos(h + l) as a pair, |h| <= pi/4 (+tiny): 1 - h^2/2 exactly as a pair, + h^4 C(h^2) - h l.
fn kpl64_cos_dd(h: f64, l: f64) -> vec2<f64> {
    let zz = kpl64_two_prod(h, h);
    let z = zz.x;
    let w = kpl64_fast_two_sum(1.0lf, -0.5lf * z);
    let p = (z * z) * (KPL64_C0 + z * (KPL64_C1 + z * (KPL64_C2 + z * (KPL64_C3 + z * (KPL64_C4
        + z * (KPL64_C5 + z * KPL64_C6))))));
    return kpl64_fast_two_sum(w.x, kpl64_opq(w.y + kpl64_opq((p - h * l) - 0.5lf * zz.y)));
}

fn kpl64_reduce(x: f64) -> Kpl64Red {
    if (abs(x) <= KPL64_PIO4_H) { return Kpl64Red(0, x, 0.0lf); }
    return kpl64_rem_pio2(x);
}

// sin: within 1 ulp of correctly rounded for all finite x (sin(-0) = -0, sin(+-inf) = NaN).
fn kp_sin_f64(x: f64) -> f64 {
    if (abs(x) < 0x1.0p-27lf) { return x; }
    if (!kpl64_finite(x)) { return kpl64_nan(); }
    let r = kpl64_reduce(x);
    let q = r.n & 3;
    var v: vec2<f64>;
    if ((q & 1) == 0) { v = kpl64_sin_dd(r.h, r.l); } else { v = kpl64_cos_dd(r.h, r.l); }
    let s = v.x + v.y;
    return select(s, -s, q >= 2);
}

// cos: within 1 ulp of correctly rounded for all finite x.
fn kp_cos_f64(x: f64) -> f64 {
    if (abs(x) < 0x1.0p-28lf) { return 1.0lf; }
    if (!kpl64_finite(x)) { return kpl64_nan(); }
    let r = kpl64_reduce(x);
    let q = r.n & 3;
    var v: vec2<f64>;
    if ((q & 1) == 0) { v = kpl64_cos_dd(r.h, r.l); } else { v = kpl64_sin_dd(r.h, r.l); }
    let s = v.x + v.y;
    return select(s, -s, q == 1 || q == 2);
}

// tan: within 1 ulp of correctly rounded. sin/cos of the reduced argument as pairs, divided as pairs.
fn kp_tan_f64(x: f64) -> f64 {
    if (abs(x) < 0x1.0p-27lf) { return x; }
    if (!kpl64_finite(x)) { return kpl64_nan(); }
    let r = kpl64_reduce(x);
    let s = kpl64_sin_dd(r.h, r.l);
    let c = kpl64_cos_dd(r.h, r.l);
    var t: vec2<f64>;
    if ((r.n & 1) == 0) { t = kpl64_dd_div(s, c); } else { t = kpl64_dd_div(-c, s); }
    return t.x + t.y;
}

// ---------------------------------------------------------------------------------------------
// Inverse trigonometric functions.

// atan(u + ul) as a pair for |u| <= tan(pi/8) (+tiny): the A polynomial in u^2, plus
// ul / (1 + u^2).
fn kpl64_atan_small(u: f64, ul: f64) -> vec2<f64> {
    let zz = kpl64_two_prod(u, u);
    let z = zz.x;
    let r = z * (KPL64_A1 + z * (KPL64_A2 + z * (KPL64_A3 + z * (KPL64_A4 + z * (KPL64_A5 + z * (KPL64_A6
        + z * (KPL64_A7 + z * (KPL64_A8 + z * (KPL64_A9 + z * (KPL64_A10 + z * KPL64_A11))))))))));
    return kpl64_odd_poly(u, zz, KPL64_A0, r, ul / (1.0lf + z));
}

// atan(t + tl) as a pair for t >= 0 (finite or +inf), in three ranges split at tan(pi/8) and
// tan(3pi/8), each reduced to |u| <= tan(pi/8): atan(t); pi/4 + atan((t - 1) / (t + 1));
// pi/2 + atan(-1 / t). The reduced argument is a corrected pair, the constant a pair.
fn kpl64_atan_dd(t: f64, tl: f64) -> vec2<f64> {
    if (t <= 0.41421356237309lf) { return kpl64_atan_small(t, tl); }
    if (t >= 0x1.0p+66lf) { return vec2<f64>(KPL64_PIO2_H, KPL64_PIO2_L); }
    var c: vec2<f64>;
    var u: vec2<f64>;
    if (t <= 2.41421356237309lf) {
        c = vec2<f64>(KPL64_PIO4_H, KPL64_PIO4_L);
        let num = kpl64_two_sum(t, -1.0lf);
        let den = kpl64_two_sum(t, 1.0lf);
        u = kpl64_dd_div(vec2<f64>(num.x, num.y + tl), vec2<f64>(den.x, den.y + tl));
    } else {
        c = vec2<f64>(KPL64_PIO2_H, KPL64_PIO2_L);
        u = kpl64_dd_div(vec2<f64>(-1.0lf, 0.0lf), vec2<f64>(t, tl));
    }
    let a = kpl64_atan_small(u.x, u.y);
    return kpl64_dd_add(c, a);
}

// arctan: within 1 ulp of correctly rounded.
fn kp_arctan_f64(x: f64) -> f64 {
    if (abs(x) < 0x1.0p-27lf) { return x; }
    if (kpl64_isnan(x)) { return x; }
    let r = kpl64_atan_dd(abs(x), 0.0lf);
    return kpl64_copysign(r.x + r.y, x);
}

// arctan2(y, x): within 1 ulp of correctly rounded; C99 special cases (signed zeros, infinities). |y/x| is formed from
// mantissas and exponents, so subnormal and huge operands need no float scaling.
fn kp_arctan2_f64(y: f64, x: f64) -> f64 {
    if (kpl64_isnan(x) || kpl64_isnan(y)) { return x + y; }
    let ay = abs(y);
    let ax = abs(x);
    let xneg = kpl64_signbit(x);
    var r: f64;
    if (ay == 0.0lf) {
        r = select(0.0lf, KPL64_PI_H, xneg);
    } else if (ax == 0.0lf) {
        r = KPL64_PIO2_H;
    } else if (ax > KPL64_MAX) {
        if (ay > KPL64_MAX) { r = select(KPL64_PIO4_H, KPL64_3PIO4_H, xneg); }
        else { r = select(0.0lf, KPL64_PI_H, xneg); }
    } else if (ay > KPL64_MAX) {
        r = KPL64_PIO2_H;
    } else {
        let fy = kpl64_frexp(y);
        let fx = kpl64_frexp(x);
        let d = fy.e - fx.e;
        if (d > 60) {
            r = KPL64_PIO2_H;
        } else if (d < -60) {
            let q = kpl64_dd_div(vec2<f64>(fy.m, 0.0lf), vec2<f64>(fx.m, 0.0lf));
            r = select(kpl64_scale(q.x + q.y, d), KPL64_PI_H, xneg);
        } else {
            let q = kpl64_dd_div(vec2<f64>(fy.m, 0.0lf), vec2<f64>(fx.m, 0.0lf));
            let sc = kpl64_pow2(d);
            let a = kpl64_atan_dd(q.x * sc, q.y * sc);
            if (xneg) {
                let s = kpl64_two_sum(KPL64_PI_H, -a.x);
                r = s.x + kpl64_opq(s.y + (KPL64_PI_L - a.y));
            } else {
                r = a.x + a.y;
            }
        }
    }
    return kpl64_copysign(r, y);
}

// (asin(x) - x) / x = z B(z) for z = x^2 <= 1/4 (the B polynomial).
fn kpl64_asin_r(z: f64) -> f64 {
    let b = KPL64_B7 + z * (KPL64_B8 + z * (KPL64_B9 + z * (KPL64_B10 + z * (KPL64_B11 + z * (KPL64_B12
        + z * (KPL64_B13 + z * KPL64_B14))))));
    return z * (KPL64_B0 + z * (KPL64_B1 + z * (KPL64_B2 + z * (KPL64_B3 + z * (KPL64_B4 + z * (KPL64_B5
        + z * (KPL64_B6 + z * b)))))));
}

// arcsin: within 1 ulp of correctly rounded. |x| > 1/2: pi/2 - 2 asin(s), s = sqrt((1-|x|)/2) as a corrected pair.
fn kp_arcsin_f64(x: f64) -> f64 {
    let a = abs(x);
    if (a < 0x1.0p-26lf) { return x; }
    if (kpl64_isnan(x)) { return x; }
    if (a > 1.0lf) { return kpl64_nan(); }
    var r: f64;
    if (a <= 0.5lf) {
        r = a + a * kpl64_asin_r(a * a);
    } else {
        let z = 0.5lf * (1.0lf - a);
        let s = kpl64_dd_sqrt(z, 0.0lf);
        let c = s.y + s.x * kpl64_asin_r(z);
        let d = kpl64_two_sum(KPL64_PIO2_H, -2.0lf * s.x);
        r = d.x + kpl64_opq(d.y + (KPL64_PIO2_L - 2.0lf * c));
    }
    return kpl64_copysign(r, x);
}

// arccos: within 1 ulp of correctly rounded. |x| <= 1/2: pi/2 - asin(x); x > 1/2: 2 asin(s); x < -1/2: pi - 2 asin(s).
fn kp_arccos_f64(x: f64) -> f64 {
    if (kpl64_isnan(x)) { return x; }
    let a = abs(x);
    if (a > 1.0lf) { return kpl64_nan(); }
    if (a <= 0.5lf) {
        let p = x * kpl64_asin_r(x * x);
        let d = kpl64_two_sum(KPL64_PIO2_H, -x);
        return d.x + kpl64_opq(d.y + (KPL64_PIO2_L - p));
    }
    let z = 0.5lf * (1.0lf - a);
    let s = kpl64_dd_sqrt(z, 0.0lf);
    let c = s.y + s.x * kpl64_asin_r(z);
    if (x > 0.0lf) { return 2.0lf * s.x + 2.0lf * c; }
    let d = kpl64_two_sum(KPL64_PI_H, -2.0lf * s.x);
    return d.x + kpl64_opq(d.y + (KPL64_PI_L - 2.0lf * c));
}

// ---------------------------------------------------------------------------------------------
// Hyperbolic functions.

// sinh: within 1 ulp of correctly rounded. |x| < 22: (E + E / (E + 1)) / 2 with E = expm1(|x|) as pairs; else
// e^|x| / 2 (overflow-safe scaling).
fn kp_sinh_f64(x: f64) -> f64 {
    let a = abs(x);
    if (a < 0x1.0p-26lf) { return x; }
    if (kpl64_isnan(x)) { return x; }
    var r: f64;
    if (a > 710.5lf) {
        r = kpl64_inf();
    } else if (a < 22.0lf) {
        let em = kpl64_expm1_dd(a);
        let den = kpl64_two_sum(em.x, 1.0lf);
        let q = kpl64_dd_div(em, vec2<f64>(den.x, den.y + em.y));
        let s = kpl64_dd_add(em, q);
        r = 0.5lf * (s.x + s.y);
    } else {
        let e = kpl64_exp_core(a, 0.0lf);
        r = kpl64_scale(e.h + e.l, e.k - 1);
    }
    return kpl64_copysign(r, x);
}

// cosh: within 1 ulp of correctly rounded. (E + 1/E) / 2 with E = e^|x| as a pair.
fn kp_cosh_f64(x: f64) -> f64 {
    let a = abs(x);
    if (kpl64_isnan(x)) { return x; }
    if (a < 0x1.0p-28lf) { return 1.0lf; }
    if (a > 710.5lf) { return kpl64_inf(); }
    let e = kpl64_exp_core(a, 0.0lf);
    if (a >= 22.0lf) { return kpl64_scale(e.h + e.l, e.k - 1); }
    let p = kpl64_pow2(e.k);
    let big = vec2<f64>(e.h * p, e.l * p);
    let inv = kpl64_dd_div(vec2<f64>(1.0lf, 0.0lf), big);
    let s = kpl64_dd_add(big, inv);
    return 0.5lf * (s.x + s.y);
}

// tanh: within 1 ulp of correctly rounded. E / (E + 2) with E = expm1(2|x|) as pairs.
fn kp_tanh_f64(x: f64) -> f64 {
    let a = abs(x);
    if (a < 0x1.0p-27lf) { return x; }
    if (kpl64_isnan(x)) { return x; }
    var r = 1.0lf;
    if (a < 19.5lf) {
        let em = kpl64_expm1_dd(2.0lf * a);
        let den = kpl64_two_sum(em.x, 2.0lf);
        let q = kpl64_dd_div(em, vec2<f64>(den.x, den.y + em.y));
        r = q.x + q.y;
    }
    return kpl64_copysign(r, x);
}

// arcsinh: correctly rounded on every input tested. log(|x| + sqrt(x^2 + 1)) with the argument as a pair.
fn kp_arcsinh_f64(x: f64) -> f64 {
    let a = abs(x);
    if (a < 0x1.0p-26lf) { return x; }
    if (!kpl64_finite(x)) { return x; }
    var g: Kpl64Log;
    if (a > 0x1.0p+28lf) {
        g = kpl64_log_core(a, 0.0lf);
        g.e = g.e + 1.0lf;
    } else {
        let sq = kpl64_two_prod(a, a);
        let s1 = kpl64_two_sum(1.0lf, sq.x);
        let rt = kpl64_dd_sqrt(s1.x, s1.y + sq.y);
        let w = kpl64_two_sum(a, rt.x);
        let wn = kpl64_fast_two_sum(w.x, w.y + rt.y);
        g = kpl64_log_core(wn.x, wn.y);
    }
    return kpl64_copysign(kpl64_log_finish(g), x);
}

// arccosh: correctly rounded on every input tested. log(x + sqrt(x^2 - 1)) as pairs; NaN for x < 1.
fn kp_arccosh_f64(x: f64) -> f64 {
    if (kpl64_isnan(x)) { return x; }
    if (x < 1.0lf) { return kpl64_nan(); }
    if (x > KPL64_MAX) { return x; }
    var g: Kpl64Log;
    if (x > 0x1.0p+28lf) {
        g = kpl64_log_core(x, 0.0lf);
        g.e = g.e + 1.0lf;
    } else {
        let sq = kpl64_two_prod(x, x);
        let s1 = kpl64_two_sum(sq.x, -1.0lf);
        let s1n = kpl64_fast_two_sum(s1.x, s1.y + sq.y);
        let rt = kpl64_dd_sqrt(s1n.x, s1n.y);
        let w = kpl64_two_sum(x, rt.x);
        let wn = kpl64_fast_two_sum(w.x, w.y + rt.y);
        g = kpl64_log_core(wn.x, wn.y);
    }
    return kpl64_log_finish(g);
}

// arctanh: correctly rounded on every input tested. (log(1 + |x|) - log(1 - |x|)) / 2 with both logs as pairs.
fn kp_arctanh_f64(x: f64) -> f64 {
    let a = abs(x);
    if (a < 0x1.0p-27lf) { return x; }
    if (kpl64_isnan(x)) { return x; }
    if (a > 1.0lf) { return kpl64_nan(); }
    if (a == 1.0lf) { return kpl64_copysign(kpl64_inf(), x); }
    let pp = kpl64_two_sum(1.0lf, a);
    let mm = kpl64_two_sum(1.0lf, -a);
    let g1 = kpl64_log_core(pp.x, pp.y);
    let g2 = kpl64_log_core(mm.x, mm.y);
    let de = g1.e - g2.e;
    let s = kpl64_two_sum(g1.h, -g2.h);
    let t = kpl64_two_sum(de * KPL64_LN2_HI, s.x);
    let r = 0.5lf * (t.x + kpl64_opq(t.y + ((s.y + (g1.l - g2.l)) + de * KPL64_LN2_LO)));
    return kpl64_copysign(r, x);
}

// ---------------------------------------------------------------------------------------------
// Algebraic functions.

// cbrt: correctly rounded on every input tested. |x| = a 2^(3q) with a in [1, 8): cubic seed, three Newton steps, then one
// step with the residual a - y^3 computed exactly.
fn kp_cbrt_f64(x: f64) -> f64 {
    if (x == 0.0lf || !kpl64_finite(x)) { return x; }
    let fr = kpl64_frexp(x);
    let q = (fr.e + 3000) / 3 - 1000;
    let rm = fr.e - 3 * q;
    let a = fr.m * kpl64_pow2(rm);
    var y = KPL64_CB0 + a * (KPL64_CB1 + a * (KPL64_CB2 + a * KPL64_CB3));
    y = y - (y * y * y - a) / (3.0lf * y * y);
    y = y - (y * y * y - a) / (3.0lf * y * y);
    y = y - (y * y * y - a) / (3.0lf * y * y);
    let y2 = kpl64_two_prod(y, y);
    let y3 = kpl64_two_prod(y2.x, y);
    let res = kpl64_opq(y3.x - a) + (y3.y + y2.y * y);
    y = y - res / (3.0lf * y2.x);
    return kpl64_copysign(y * kpl64_pow2(q), x);
}

// hypot: correctly rounded on every input tested; no intermediate overflow or underflow: both operands are brought to the
// larger one's binade, summed as exact squares, and the result scaled back.
// hypot(+-inf, NaN) = +inf as in C99.
fn kp_hypot_f64(x: f64, y: f64) -> f64 {
    let ax = abs(x);
    let ay = abs(y);
    if ((ax > KPL64_MAX && ax == ax) || (ay > KPL64_MAX && ay == ay)) { return kpl64_inf(); }
    if (kpl64_isnan(x) || kpl64_isnan(y)) { return x + y; }
    let big = max(ax, ay);
    let small = min(ax, ay);
    if (small == 0.0lf) { return big; }
    let fa = kpl64_frexp(big);
    let fb = kpl64_frexp(small);
    let d = fb.e - fa.e;
    if (d < -30) { return big; }
    let b = fb.m * kpl64_pow2(d);
    let p = kpl64_two_prod(fa.m, fa.m);
    let q = kpl64_two_prod(b, b);
    let s = kpl64_two_sum(p.x, q.x);
    let r = kpl64_dd_sqrt(s.x, s.y + (p.y + q.y));
    return kpl64_scale(r.x + r.y, fa.e);
}

// power (NumPy float power = C99 pow): within 1 ulp of correctly rounded (normal-range results).
// |x|^y = exp(y log|x|) with log|x| (~2^-70) and the product as pairs.
fn kp_power_f64(x: f64, y: f64) -> f64 {
    if (y == 0.0lf) { return 1.0lf; }
    if (x == 1.0lf) { return 1.0lf; }
    if (kpl64_isnan(x) || kpl64_isnan(y)) { return x + y; }
    let ax = abs(x);
    let ay = abs(y);
    let xneg = kpl64_signbit(x);
    let yint = ay >= 0x1.0p+53lf || floor(ay) == ay;
    let yodd = ay < 0x1.0p+53lf && yint && (ay - 2.0lf * floor(0.5lf * ay)) == 1.0lf;
    let inf = kpl64_inf();
    if (ay >= 0x1.0p+64lf) {                    // +-inf, or so large that |x|^y over/underflows
        if (ax == 1.0lf) { return 1.0lf; }
        return select(0.0lf, inf, (ax > 1.0lf) == (y > 0.0lf));
    }
    if (ax == 0.0lf) {
        if (y < 0.0lf) { return select(inf, kpl64_copysign(inf, x), yodd); }
        return select(0.0lf, x, yodd);
    }
    if (ax > KPL64_MAX) {
        if (!xneg) { return select(0.0lf, inf, y > 0.0lf); }
        if (y < 0.0lf) { return select(0.0lf, -0.0lf, yodd); }
        return select(inf, -inf, yodd);
    }
    if (xneg && !yint) { return kpl64_nan(); }
    let l = kpl64_log_dd(kpl64_log_core(ax, 0.0lf));
    let wh = y * l.x;
    var r: f64;
    if (wh > 710.0lf) {
        r = inf;
    } else if (wh < -746.0lf) {
        r = 0.0lf;
    } else {
        let w = kpl64_two_prod(y, l.x);
        let e = kpl64_exp_core(w.x, w.y + y * l.y);
        r = kpl64_scale(e.h + e.l, e.k);
    }
    return select(r, -r, xneg && yodd);
}

// ---------------------------------------------------------------------------------------------
// Exact float functions: nextafter, spacing, frexp, ldexp, by exact scaling (no 64-bit
// integers): a step of one unit in the last place is a power of two found with kpl64_frexp.

// The float next to x in the direction of y; y when x == y; NaN when either is NaN.
fn kp_nextafter_f64(x: f64, y: f64) -> f64 {
    if (kpl64_isnan(x) || kpl64_isnan(y)) { return kpl64_nan(); }
    if (x == y) { return y; }
    if (x == 0.0lf) { return kpl64_copysign(kpl64_scale(1.0lf, -1074), y); }
    if (!kpl64_finite(x)) { return kpl64_copysign(KPL64_MAX, x); }
    // The magnitude grows when y lies beyond x, away from zero.
    let grows = (x < y) == (x > 0.0lf);
    let f = kpl64_frexp(x);
    var e = f.e - 52;
    // Below a power of two the floats are twice as dense.
    if (!grows && f.m == 1.0lf) { e = e - 1; }
    let step = kpl64_scale(1.0lf, max(e, -1074));
    let towards_y = select(-step, step, x < y);
    return x + towards_y;
}

// The distance from x to the next float away from zero (toward -inf for x < 0), as NumPy's
// spacing: NaN for +-inf and NaN, inf past the largest float.
fn kp_spacing_f64(x: f64) -> f64 {
    let inf = kpl64_inf();
    return kp_nextafter_f64(x, select(inf, -inf, x < 0.0lf)) - x;
}

// True for zeros, +-inf and NaN: frexp and ldexp return them unchanged.
fn kpl64_frexp_fixed(x: f64) -> bool {
    return x == 0.0lf || !kpl64_finite(x);
}

// frexp's mantissa: x = m * 2^e with 0.5 <= |m| < 1 (x itself for zeros, +-inf and NaN).
fn kp_frexp_m_f64(x: f64) -> f64 {
    if (kpl64_frexp_fixed(x)) { return x; }
    return kpl64_copysign(kpl64_frexp(x).m * 0.5lf, x);
}

// frexp's exponent (0 for zeros, +-inf and NaN).
fn kp_frexp_e_f64(x: f64) -> i32 {
    if (kpl64_frexp_fixed(x)) { return 0; }
    return kpl64_frexp(x).e + 1;
}

// x * 2^n, exact unless the result is subnormal (then rounded once: the mantissa in [1, 2) is
// scaled by two normal powers of two, the first product exact); n is an integer carried as a
// float (+-inf saturate).
fn kp_ldexp_f64(x: f64, n: f64) -> f64 {
    if (kpl64_frexp_fixed(x) || kpl64_isnan(n)) { return x; }
    let f = kpl64_frexp(x);
    let k = f.e + i32(clamp(n, -2400.0lf, 2400.0lf));
    return kpl64_copysign(kpl64_scale(f.m, clamp(k, -1200, 1200)), x);
}

// ---------------------------------------------------------------------------------------------
// i0: the modified Bessel function of the first kind of order 0. For |x| <= 30 its power series
// sum_k (x^2/4)^k / (k!)^2 (positive terms: no cancellation); beyond, e^|x| / sqrt(2 pi |x|)
// times the asymptotic series sum_k ((2k-1)!!)^2 / (k! (8|x|)^k), whose first 30 terms are
// below f64's precision there. i0(+-inf) is NaN, as NumPy's (inf / inf).
fn kp_i0_f64(x0: f64) -> f64 {
    let x = abs(x0);
    if (kpl64_isnan(x)) { return x; }
    if (x <= 30.0lf) {
        let q = 0.25lf * x * x;
        var t = 1.0lf;
        var s = 1.0lf;
        for (var k = 1; k < 160; k++) {
            t = t * q / f64(k * k);
            s = s + t;
            if (t < s * 1e-17lf) { break; }
        }
        return s;
    }
    let r = 1.0lf / (8.0lf * x);
    var t = 1.0lf;
    var s = 1.0lf;
    for (var k = 1; k < 31; k++) {
        let j = f64(2 * k - 1);
        t = t * j * j * r / f64(k);
        s = s + t;
    }
    return kp_exp_f64(x) * s / sqrt(6.283185307179586lf * x);
}

// A quiet NaN for the complex128 functions (complex_f32.wgsl read as f64).
fn kp_cnan_f64() -> f64 { return kpl64_nan(); }
// Classification, infinity and copysign for the complex128 functions.
fn kp_cinf_f64() -> f64 { return kpl64_inf(); }
fn kp_cisnan_f64(x: f64) -> bool { return kpl64_isnan(x); }
fn kp_cisinf_f64(x: f64) -> bool { return abs(x) == kpl64_inf(); }
fn kp_ccopysign_f64(m: f64, s: f64) -> f64 { return kpl64_copysign(m, s); }
fn kp_cmax_f64() -> f64 { return KPL64_MAX; }
fn kp_cexp_cut_f64() -> f64 { return 709.0lf; }
