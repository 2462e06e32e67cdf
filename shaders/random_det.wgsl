// Float32 distributions built from uniforms (and a fenced Box-Muller normal) whose values are
// the same bits on every driver (RandomOp::Det; KUPFER_RANDDET=off selects the old libm
// compositions). Only +, -, * (correctly rounded in WGSL), comparisons, floor/ceil and bit
// operations decide a value: every product that is added is fenced (kpl32_opq: no compiler
// can contract it into a fused multiply-add), integers convert exactly, the logarithm and
// exponential are random.wgsl's fenced polynomials, a quotient is a fenced Newton reciprocal
// of the divisor's significand with an exact-product correction, and square roots are
// corrected to the correctly rounded ones. kupfer_core::random::transforms is the CPU
// emulation, bit for bit. Results below 2^-126 may be flushed to zero by a driver.

// NaN and infinity are tested on the bits: a driver may assume that no float is NaN (lavapipe
// folded `x != x` to false: weibull(nan) gave 0) and min(NaN, MAX) may be either operand.
fn kp_det_isnan_f32(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}

fn kp_det_nonfinite_f32(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) >= 0x7f800000u;
}

// x fenced where it is finite (min would clamp an infinite one; an infinite value rounds the
// same fused or not).
fn kp_det_fence_f32(x: f32) -> f32 {
    return select(kpl32_opq(x), x, kp_det_nonfinite_f32(x));
}

// loc + scale z with the product fenced (kp_affine_f32 with the bit test of
// kp_det_fence_f32: a NaN product passes).
fn kp_det_affine_f32(z: f32, loc: f32, scale: f32) -> f32 {
    return kp_det_fence_f32(scale * z) + loc;
}

// exp(x), fenced (kp_exp_det_f32), NaN for NaN by a bit test.
fn kp_det_exp_f32(x: f32) -> f32 {
    if (kp_det_isnan_f32(x)) {
        return x;
    }
    return kp_exp_det_f32(x);
}

// The significand of a finite nonzero |x| in [1, 2) and its biased exponent (subnormals
// normalised in integers, so a driver that flushes them still divides them exactly; their
// exponent, 1 - shift, wraps as a u32 and is read back with i32()).
fn kp_det_unpack_f32(bits: u32) -> vec2<u32> {
    let m = bits & 0x7fffffffu;
    if (m >= 0x00800000u) {
        return vec2<u32>((m & 0x007fffffu) | 0x3f800000u, m >> 23u);
    }
    let s = countLeadingZeros(m) - 8u;
    return vec2<u32>(((m << s) & 0x007fffffu) | 0x3f800000u, 1u - s);
}

// a / b, the same bits on every driver (within an ulp of the quotient): the significands
// x, m in [1, 2), y = 1 / m by kp_recip_det_f32, q = x y fenced and corrected once by the
// exact residual x - q m (kpl32_mul: exact partial products), the exponent put back in
// integers. Infinities, zeros and NaN as IEEE division gives them.
fn kp_det_div_f32(a: f32, b: f32) -> f32 {
    let ab = bitcast<u32>(a);
    let bb = bitcast<u32>(b);
    let sign = (ab ^ bb) & 0x80000000u;
    let am = ab & 0x7fffffffu;
    let bm = bb & 0x7fffffffu;
    let nan = am > 0x7f800000u || bm > 0x7f800000u || (am == 0u && bm == 0u)
        || (am == 0x7f800000u && bm == 0x7f800000u);
    if (nan) {
        return bitcast<f32>(sign | 0x7fc00000u);
    }
    if (am == 0x7f800000u || bm == 0u) {
        return bitcast<f32>(sign | 0x7f800000u);
    }
    if (am == 0u || bm == 0x7f800000u) {
        return bitcast<f32>(sign);
    }
    let xa = kp_det_unpack_f32(am);
    let xb = kp_det_unpack_f32(bm);
    let x = bitcast<f32>(xa.x);
    let m = bitcast<f32>(xb.x);
    let y = kp_recip_det_f32(m);
    let q0 = kpl32_opq(x * y);
    let p = kpl32_mul(q0, m);
    let r = kpl32_opq(kpl32_opq(x - p.x) - p.y);
    let qb = bitcast<u32>(q0 + kpl32_opq(r * y));
    let ex = i32(qb >> 23u) + i32(xa.y) - i32(xb.y);
    if (ex >= 255) {
        return bitcast<f32>(sign | 0x7f800000u);
    }
    if (ex >= 1) {
        return bitcast<f32>(sign | (u32(ex) << 23u) | (qb & 0x007fffffu));
    }
    if (ex < -25) {
        return bitcast<f32>(sign);
    }
    // A subnormal quotient: rounded by a multiply by 2^-64 (a driver may flush it).
    let t = bitcast<f32>((u32(ex + 64) << 23u) | (qb & 0x007fffffu)) * 5.421010862427522e-20;
    return bitcast<f32>(sign | bitcast<u32>(t));
}

// sqrt(y) of y >= 0 correctly rounded (kp_sqrt_rounded_f32), +inf for +inf; a subnormal y
// is normalised in integers (y 2^128) and its root scaled back by 2^-64 (exact).
fn kp_det_sqrt_f32(y: f32) -> f32 {
    let b = bitcast<u32>(y);
    if (b != 0u && b < 0x00800000u) {
        let u = kp_det_unpack_f32(b);
        let scaled = bitcast<f32>(((u.y + 128u) << 23u) | (u.x & 0x007fffffu));
        return kp_sqrt_rounded_f32(scaled) * 5.421010862427522e-20;
    }
    if (kp_det_nonfinite_f32(y)) {
        return y;
    }
    return kp_sqrt_rounded_f32(y);
}

// expm1(r) for |r| <= 0.35: r + r^2 P(r), P the Taylor polynomial to the r^9 term (relative
// error below 1e-9), fenced.
fn kp_det_expm1_small_f32(r: f32) -> f32 {
    var p = kpl32_opq(r * 2.755731922398589e-6) + 2.48015873015873e-5;
    p = kpl32_opq(r * p) + 0.0001984126984126984;
    p = kpl32_opq(r * p) + 0.001388888888888889;
    p = kpl32_opq(r * p) + 0.008333333333333333;
    p = kpl32_opq(r * p) + 0.041666666666666664;
    p = kpl32_opq(r * p) + 0.16666666666666666;
    p = kpl32_opq(r * p) + 0.5;
    return kpl32_opq(kpl32_opq(r * r) * p) + r;
}

// exp(x) - 1, fenced: x = n ln 2 + r (|r| <= ln 2 / 2), 2^n expm1(r) + (2^n - 1); -1 below
// -17.5, exp(x) - 1 above 17.5 (where the 1 no longer counts); NaN for NaN. The argument is
// fenced first: inlined, a product passed in could otherwise be contracted with x - n ln2_hi.
fn kp_det_expm1_f32(x0: f32) -> f32 {
    if (kp_det_isnan_f32(x0)) {
        return x0;  // before the fence: min(NaN, MAX) may be MAX
    }
    let x = kpl32_opq(x0);
    if (x > 17.5) {
        return kp_exp_det_f32(x) - 1.0;
    }
    if (x < -17.5) {
        return -1.0;
    }
    let n = floor(kpl32_opq(x * 1.4426950408889634) + 0.5);
    let r = kpl32_opq(kpl32_opq(x - kpl32_opq(n * KPL32_LN2_HI)) - kpl32_opq(n * KPL32_LN2_LO));
    let m = kp_det_expm1_small_f32(r);
    if (n == 0.0) {
        return m;
    }
    let t = bitcast<f32>(u32(127 + i32(n)) << 23u);
    return kpl32_opq(m * t) + (t - 1.0);
}

// log(1 + x) for x >= -1, fenced: u = 1 + x, x where u rounds to 1, else
// ln(u) x / (u - 1) (u - 1 exact): -inf at -1, NaN below. The argument is fenced first (a
// product passed in could otherwise be contracted with the 1).
fn kp_det_log1p_f32(x0: f32) -> f32 {
    if (kp_det_isnan_f32(x0)) {
        return x0;
    }
    let x = kpl32_opq(x0);
    let u = kpl32_opq(1.0 + x);
    if (u == 1.0) {
        return x;
    }
    if (u == 0.0) {
        return bitcast<f32>(0xff800000u);
    }
    if (!(u > 0.0)) {
        return bitcast<f32>(bitcast<u32>(x) | 0x7fc00000u);
    }
    return kpl32_opq(kp_ln_unit_fenced_f32(u) * kp_det_div_f32(x, u - 1.0));
}

// The standard exponential -ln U of the open uniform of w (in [6e-8, 16.6]).
fn kp_det_exp1_f32(w: u32) -> f32 {
    return -kp_ln_unit_fenced_f32(kp_u01_mid_f32(w));
}

// standard_exponential in the `-log(U)` form (KUPFER_RANDEXP=log): the fenced -ln U.
fn kp_det_exponential_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32) -> f32 {
    return kp_det_exp1_f32(w0);
}

// uniform(low, high): low + (high - low) U, U in [0, 1) (the product fenced).
fn kp_det_uniform_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, low: f32, width: f32) -> f32 {
    return kp_det_affine_f32(kp_u01_f32(w0), low, width);
}

// laplace(loc, scale): ln(2U) below U = 1/2, else -ln(2 - 2U) (exact arguments).
fn kp_det_laplace_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, loc: f32, scale: f32) -> f32 {
    let u = kp_u01_mid_f32(w0);
    let x = select(-kp_ln_unit_fenced_f32(2.0 - 2.0 * u), kp_ln_unit_fenced_f32(2.0 * u), u < 0.5);
    return kp_det_affine_f32(x, loc, scale);
}

// logistic(loc, scale): ln(U / (1 - U)).
fn kp_det_logistic_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, loc: f32, scale: f32) -> f32 {
    let u = kp_u01_mid_f32(w0);
    return kp_det_affine_f32(kp_ln_unit_fenced_f32(kp_det_div_f32(u, 1.0 - u)), loc, scale);
}

// gumbel(loc, scale): loc - scale ln(-ln U).
fn kp_det_gumbel_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, loc: f32, scale: f32) -> f32 {
    return kp_det_affine_f32(-kp_ln_unit_fenced_f32(kp_det_exp1_f32(w0)), loc, scale);
}

// weibull(a): E^(1/a) = exp(ln(E) / a); 0 for a = 0.
fn kp_det_weibull_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, a: f32) -> f32 {
    if (a == 0.0) {
        return 0.0;
    }
    return kp_det_exp_f32(kp_det_div_f32(kp_ln_unit_fenced_f32(kp_det_exp1_f32(w0)), a));
}

// pareto(a): expm1(E / a).
fn kp_det_pareto_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, a: f32) -> f32 {
    return kp_det_expm1_f32(kp_det_div_f32(kp_det_exp1_f32(w0), a));
}

// power(a): U^(1/a) = exp(ln(U) / a) (NumPy's (1 - exp(-E))^(1/a) is the same law).
fn kp_det_power_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, a: f32) -> f32 {
    return kp_det_exp_f32(kp_det_div_f32(kp_ln_unit_fenced_f32(kp_u01_mid_f32(w0)), a));
}

// rayleigh(scale): scale sqrt(2 E) (fenced against a contraction with what follows).
fn kp_det_rayleigh_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, scale: f32) -> f32 {
    return kp_det_fence_f32(scale * kp_det_sqrt_f32(2.0 * kp_det_exp1_f32(w0)));
}

// standard_cauchy: cot of a uniform angle 2 pi (2 (w0 >> 9) + 1) / 2^24 (never a multiple of
// pi / 2, so finite and nonzero): the cosine over the sine of kp_sincos_turn24_fenced.
fn kp_det_cauchy_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32) -> f32 {
    let cs = kp_sincos_turn24_fenced(((w0 >> 9u) << 1u) | 1u);
    return kp_det_div_f32(cs.x, cs.y);
}

// wald(mean, scale), Michael, Schucany and Haas as NumPy: the fenced normal of the element's
// block 1, the uniform of word 0.
fn kp_det_wald_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, mean: f32, scale: f32) -> f32 {
    let b1 = kp_rng_block(k, d, e, 1u);
    let z = kp_normal_pair_fenced_f32(b1.x, b1.y).x;
    let y = kp_det_fence_f32(mean * kpl32_opq(z * z));
    let root = kp_det_sqrt_f32(kp_det_fence_f32(kp_det_fence_f32(4.0 * scale) * y)
        + kp_det_fence_f32(y * y));
    let x = mean + kp_det_fence_f32(kp_det_div_f32(mean, 2.0 * scale) * kpl32_opq(y - root));
    if (kp_u01_f32(w0) <= kp_det_div_f32(mean, mean + x)) {
        return x;
    }
    return kp_det_div_f32(kp_det_fence_f32(mean * mean), x);
}

// triangular(left, mode, right) by inversion of U in [0, 1).
fn kp_det_triangular_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, left: f32, mode: f32,
    right: f32) -> f32 {
    let u = kp_u01_f32(w0);
    let base = right - left;
    let lb = mode - left;
    let rb = right - mode;
    if (u <= kp_det_div_f32(lb, base)) {
        return left + kp_det_sqrt_f32(kp_det_fence_f32(kp_det_fence_f32(u * lb) * base));
    }
    return right - kp_det_sqrt_f32(kp_det_fence_f32(kp_det_fence_f32((1.0 - u) * rb) * base));
}

// geometric(p) as a float count: max(ceil(ln U / log1p(-p)), 1).
fn kp_det_geometric_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, p: f32) -> f32 {
    let u = kp_u01_mid_f32(w0);
    return max(ceil(kp_det_div_f32(kp_ln_unit_fenced_f32(u), kp_det_log1p_f32(-p))), 1.0);
}

// logseries(p) as a float count, Kemp's second method (as NumPy): V the open uniform of word
// 0, U in [0, 1) from the element's block 1, q = -expm1(log1p(-p) U).
fn kp_det_logseries_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, p: f32) -> f32 {
    let v = kp_u01_mid_f32(w0);
    if (v >= p) {
        return 1.0;
    }
    let u = kp_u01_f32(kp_rng_block(k, d, e, 1u).x);
    let q = -kp_det_expm1_f32(kpl32_opq(kp_det_log1p_f32(-p) * u));
    if (v <= kpl32_opq(q * q)) {
        let t = kp_det_div_f32(kp_ln_unit_fenced_f32(v), kp_ln_unit_fenced_f32(q));
        return max(floor(t + 1.0), 1.0);
    }
    return select(2.0, 1.0, v >= q);
}

// x / y of two parameters (beta, f, dirichlet: the gamma draws come in as parameters).
fn kp_det_quotient_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, x: f32, y: f32) -> f32 {
    return kp_det_div_f32(x, y);
}

// standard_t: z / sqrt(c / df) of the normal z and the chi-square c.
fn kp_det_student_t_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, z: f32, c: f32,
    df: f32) -> f32 {
    return kp_det_div_f32(z, kp_det_sqrt_f32(kp_det_div_f32(c, df)));
}

// Poisson(lam) as a float32 count, the same bits on every driver: random_float.wgsl's
// kp_poisson_f32 (inversion below lam = 10, Hormann's PTRS above, Loader's log-probabilities)
// with every product that is added fenced, kp_det_div_f32 for its quotients (the inversion's
// p lam / n as p lam times kp_recip_det_f32(n): fewer operations per term), the fenced
// logarithm and exponential and the corrected root (kupfer_core::random::poisson).
fn kp_det_poisson_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, lam: f32) -> f32 {
    if (kp_det_isnan_f32(lam) || lam <= 0.0) {
        return 0.0;
    }
    if (lam < 10.0) {
        let u = kp_u01_f32(w0);
        var p = kp_det_exp_f32(-lam);
        var s = p;
        var n: f32 = 0.0;
        for (var j = 0u; j < 256u; j++) {
            if (u < s) {
                break;
            }
            n = n + 1.0;
            p = kpl32_opq(kpl32_opq(p * lam) * kp_recip_det_f32(n));
            let s1 = s + p;
            if (s1 == s && n > lam) {
                break;
            }
            s = s1;
        }
        return n;
    }
    let slam = kp_det_sqrt_f32(lam);
    let loglam = kp_ln_unit_fenced_f32(lam);
    // b fenced: b - 3.4 would otherwise fold into F - 2.469 (constants regrouped).
    let b = kpl32_opq(0.931 + kpl32_opq(2.53 * slam));
    let a = -0.059 + kpl32_opq(0.02483 * b);
    let ln_invalpha = kp_ln_unit_fenced_f32(1.1239 + kp_det_div_f32(1.1328, b - 3.4));
    let vr = 0.9277 - kp_det_div_f32(3.6224, b - 2.0);
    for (var j = 1u; j <= 16u; j++) {
        let blk = kp_rng_block(k, d, e, j);
        for (var h = 0u; h < 2u; h++) {
            let uu = kp_u01_mid_f32(kp_lane(blk, 2u * h)) - 0.5;
            let v = kp_u01_mid_f32(kp_lane(blk, 2u * h + 1u));
            let us = 0.5 - abs(uu);
            // The partial sum fenced: Mesa's NIR regroups (x + lam) + 0.43 as x + (lam + 0.43).
            let n = floor(kpl32_opq(kpl32_opq(kpl32_opq(kp_det_div_f32(2.0 * a, us) + b) * uu) + lam)
                + 0.43);
            if (us >= 0.07 && v <= vr) {
                return n;
            }
            if (n < 0.0 || (us < 0.013 && v > us)) {
                continue;
            }
            let lhs = (kp_ln_unit_fenced_f32(v) + ln_invalpha)
                - kp_ln_unit_fenced_f32(kp_det_div_f32(a, kpl32_opq(us * us)) + b);
            if (lhs <= kp_det_poisson_logpmf_f32(n, lam, loglam)) {
                return n;
            }
        }
    }
    return floor(lam);
}

// log of the Poisson(lam) probability of k (kp_poisson_logpmf_f32, fenced).
fn kp_det_poisson_logpmf_f32(k: f32, lam: f32, loglam: f32) -> f32 {
    if (k < 16.0) {
        return (-lam + kpl32_opq(k * loglam)) - kp_logfact_small_f32(u32(k));
    }
    return (-kp_det_stirlerr_f32(k) - kp_det_bd0_f32(k, lam))
        - kpl32_opq(0.5 * kp_ln_unit_fenced_f32(6.283185307179586 * k));
}

// Loader's stirlerr(k) for k >= 16: the asymptotic series to the k^-9 term, fenced.
fn kp_det_stirlerr_f32(k: f32) -> f32 {
    let k2 = kpl32_opq(k * k);
    var t = kp_det_div_f32(0.0008417508417508417, k2);
    t = kp_det_div_f32(0.0005952380952380953 - t, k2);
    t = kp_det_div_f32(0.0007936507936507937 - t, k2);
    t = kp_det_div_f32(0.002777777777777778 - t, k2);
    return kp_det_div_f32(0.08333333333333333 - t, k);
}

// Loader's bd0(x, m) = x log(x / m) + m - x (kp_bd0_f32, fenced).
fn kp_det_bd0_f32(x: f32, m: f32) -> f32 {
    if (abs(x - m) < kpl32_opq(0.1 * kpl32_opq(x + m))) {
        let v = kp_det_div_f32(x - m, x + m);
        let v2 = kpl32_opq(v * v);
        var s = kpl32_opq(kpl32_opq(x - m) * v);
        var ej = kpl32_opq((2.0 * x) * v);
        for (var j = 1u; j < 40u; j++) {
            ej = kpl32_opq(ej * v2);
            let s1 = s + kp_det_div_f32(ej, f32(2u * j + 1u));
            if (s1 == s) {
                break;
            }
            s = s1;
        }
        return s;
    }
    return (kpl32_opq(x * kp_ln_unit_fenced_f32(kp_det_div_f32(x, m))) + m) - x;
}

// Loader's stirlerr(k) for k >= 1 (kp_stirlerr_f32, fenced): the table below 16, else
// kp_det_stirlerr_f32's series.
fn kp_det_stirlerr_any_f32(k: f32) -> f32 {
    if (k < 16.0) {
        let t = kpl32_opq(kpl32_opq(k + 0.5) * kp_ln_unit_fenced_f32(k));
        return kpl32_opq(kpl32_opq(kp_logfact_small_f32(u32(k)) - t) + k) - 0.9189385332046727;
    }
    return kp_det_stirlerr_f32(k);
}

// log of the binomial(n, p) probability of k, q = 1 - p (kp_binomial_logpmf_f32, fenced).
fn kp_det_binomial_logpmf_f32(k: f32, n: f32, p: f32, q: f32) -> f32 {
    if (k == 0.0) {
        return kpl32_opq(n * kp_det_log1p_f32(-p));
    }
    if (k == n) {
        return kpl32_opq(n * kp_ln_unit_fenced_f32(p));
    }
    let lc = kpl32_opq(kpl32_opq(kpl32_opq(kp_det_stirlerr_any_f32(n) - kp_det_stirlerr_any_f32(k))
        - kp_det_stirlerr_any_f32(n - k)) - kp_det_bd0_f32(k, kpl32_opq(n * p)))
        - kp_det_bd0_f32(n - k, kpl32_opq(n * q));
    let lf = kpl32_opq(1.8378770664093453 + kp_ln_unit_fenced_f32(k))
        + kp_det_log1p_f32(-kp_det_div_f32(k, n));
    return lc - kpl32_opq(0.5 * lf);
}

// Binomial(n, p) for p <= 1/2 as a float32 count (kp_binomial_low_f32, fenced: inversion of
// word 0 below n p = 10, Hormann's BTRS above).
fn kp_det_binomial_low_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, n: f32, p: f32) -> f32 {
    // Fenced: 1 - p is not exact below 1/2, and n (1 - p) could become fma(-p, n, n).
    let q = kpl32_opq(1.0 - p);
    let np = kpl32_opq(n * p);
    if (np < 10.0) {
        let s = kp_det_div_f32(p, q);
        let a = kpl32_opq(kpl32_opq(n + 1.0) * s);
        var r = kp_det_exp_f32(kpl32_opq(n * kp_det_log1p_f32(-p)));
        var u = kp_u01_f32(w0);
        var x: f32 = 0.0;
        for (var j = 0u; j < 256u; j++) {
            if (u <= r || x >= n) {
                break;
            }
            u = u - r;
            x = x + 1.0;
            r = kpl32_opq(r * kpl32_opq(kp_det_div_f32(a, x) - s));
        }
        return min(x, n);
    }
    let spq = kp_det_sqrt_f32(kpl32_opq(np * q));
    let b = kpl32_opq(1.15 + kpl32_opq(2.53 * spq));
    let a = kpl32_opq(-0.0873 + kpl32_opq(0.0248 * b)) + kpl32_opq(0.01 * p);
    let c = kpl32_opq(np + 0.5);
    let vr = 0.92 - kp_det_div_f32(4.2, b);
    let alpha = kpl32_opq(kpl32_opq(2.83 + kp_det_div_f32(5.1, b)) * spq);
    let m = floor(kpl32_opq(kpl32_opq(n + 1.0) * p));
    let logm = kp_det_binomial_logpmf_f32(m, n, p, q);
    for (var j = 1u; j <= 16u; j++) {
        let blk = kp_rng_block(k, d, e, j);
        for (var h = 0u; h < 2u; h++) {
            let u = kp_u01_mid_f32(kp_lane(blk, 2u * h)) - 0.5;
            let v = kp_u01_mid_f32(kp_lane(blk, 2u * h + 1u));
            let us = 0.5 - abs(u);
            let x = floor(kpl32_opq(kpl32_opq(kpl32_opq(kp_det_div_f32(2.0 * a, us) + b) * u) + c));
            if (x < 0.0 || x > n) {
                continue;
            }
            if (us >= 0.07 && v <= vr) {
                return x;
            }
            let den = kp_det_div_f32(a, kpl32_opq(us * us)) + b;
            let lhs = kp_ln_unit_fenced_f32(kp_det_div_f32(kpl32_opq(v * alpha), den));
            if (lhs <= kp_det_binomial_logpmf_f32(x, n, p, q) - logm) {
                return x;
            }
        }
    }
    return m;
}

// Binomial(n, p) as a float32 count, the same bits on every driver (kp_binomial_f32's
// edges: 0 for n < 1 or p <= 0 and NaN p, n for p >= 1, p > 1/2 as n minus a binomial of
// 1 - p; kupfer_core::random::binomial).
fn kp_det_binomial_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, n: f32, p: f32) -> f32 {
    if (kp_det_isnan_f32(n) || kp_det_isnan_f32(p) || n < 1.0 || p <= 0.0) {
        return 0.0;
    }
    if (p >= 1.0) {
        return n;
    }
    let flip = p > 0.5;
    let x = kp_det_binomial_low_f32(k, d, e, w0, n, select(p, 1.0 - p, flip));
    return select(x, n - x, flip);
}

// noncentral_chisquare's df > 1 branch: c + (z + sqrt(nonc))^2 of the chi-square c of df - 1
// and the normal z (the square fenced, the root corrected).
fn kp_det_noncentral_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, c: f32, z: f32,
    nonc: f32) -> f32 {
    let t = z + kp_det_sqrt_f32(nonc);
    return c + kp_det_fence_f32(t * t);
}

// x P(x^2) of libm_f32's arcsine fit (kpl32_asin_p) by a fenced Horner scheme.
fn kp_det_asin_p_f32(z: f32) -> f32 {
    var p = kpl32_opq(z * KPL32_B5) + KPL32_B4;
    p = kpl32_opq(z * p) + KPL32_B3;
    p = kpl32_opq(z * p) + KPL32_B2;
    p = kpl32_opq(z * p) + KPL32_B1;
    p = kpl32_opq(z * p) + KPL32_B0;
    return kpl32_opq(z * p);
}

// arccos(x) for x in [-1, 1], fenced (a few ulp): |x| <= 1/2: pi/2 - (x + x P(x^2));
// else with s = sqrt((1 - |x|) / 2) (corrected root): 2 (s + s P(s^2)), or pi minus that for
// x < 0.
fn kp_det_arccos_f32(x: f32) -> f32 {
    let a = abs(x);
    if (a <= 0.5) {
        let t = kpl32_opq(x + kpl32_opq(x * kp_det_asin_p_f32(kpl32_opq(x * x))));
        return kpl32_opq(KPL32_PIO2_H - t) + KPL32_PIO2_L;
    }
    let z = 0.5 * (1.0 - a);
    let s = kp_det_sqrt_f32(z);
    let h = 2.0 * kpl32_opq(s + kpl32_opq(s * kp_det_asin_p_f32(z)));
    if (x > 0.0) {
        return h;
    }
    return kpl32_opq(KPL32_PI_H - h) + KPL32_PI_L;
}

// von Mises(mu, kappa) in [-pi, pi] as float32, the same bits on every driver:
// random_float.wgsl's kp_vonmises_f32 (Best and Fisher, as NumPy) with every product that is
// added fenced, kp_det_div_f32 for its quotients, the fenced turn cosine, logarithm and
// arccosine, then shifted by mu and wrapped as NumPy wraps (fmod(|r| + pi, 2 pi) - pi with
// r's sign; the fmod by a deterministic quotient). kupfer_core::random::vonmises emulates it.
fn kp_det_vonmises_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, mu: f32, kappa: f32) -> f32 {
    var x: f32;
    if (kp_det_isnan_f32(kappa)) {
        x = kappa;
    } else if (kappa < 1e-8) {
        x = 3.141592653589793 * kpl32_opq(2.0 * kp_u01_mid_f32(w0) - 1.0);
    } else if (kappa > 1e6) {
        let b = kp_rng_block(k, d, e, 1u);
        x = kp_det_div_f32(kp_normal_pair_fenced_f32(b.x, b.y).x, kp_det_sqrt_f32(kappa));
    } else {
        var s: f32;
        if (kappa < 1e-5) {
            s = kp_det_div_f32(1.0, kappa) + kappa;
        } else {
            let r = 1.0 + kp_det_sqrt_f32(1.0 + kpl32_opq(kpl32_opq(4.0 * kappa) * kappa));
            let rho = kp_det_div_f32(r - kp_det_sqrt_f32(2.0 * r), 2.0 * kappa);
            s = kp_det_div_f32(1.0 + kpl32_opq(rho * rho), 2.0 * rho);
        }
        var w: f32 = 0.0;
        for (var j = 1u; j <= 16u; j++) {
            let blk = kp_rng_block(k, d, e, j);
            var done = false;
            for (var h = 0u; h < 2u; h++) {
                let z = kp_sincos_turn24_fenced(kp_lane(blk, 2u * h) >> 9u).x;
                w = clamp(kp_det_div_f32(1.0 + kpl32_opq(s * z), s + z), -1.0, 1.0);
                // Differences fenced: (c - y) y could become fma(-y, y, c y).
                let y = kpl32_opq(kappa * kpl32_opq(s - w));
                let v = kp_u01_mid_f32(kp_lane(blk, 2u * h + 1u));
                if (kpl32_opq(y * kpl32_opq(2.0 - y)) - v >= 0.0) {
                    done = true;
                    break;
                }
                if (kpl32_opq(kp_ln_unit_fenced_f32(kp_det_div_f32(y, v)) + 1.0) - y >= 0.0) {
                    done = true;
                    break;
                }
            }
            if (done) {
                break;
            }
        }
        let angle = kp_det_arccos_f32(w);
        x = select(angle, -angle, w0 < 0x80000000u);
    }
    let r = x + mu;
    if (kp_det_nonfinite_f32(r)) {
        return bitcast<f32>(bitcast<u32>(r) | 0x7fc00000u);  // NaN for NaN or infinite r
    }
    let m = kpl32_opq(abs(r) + 3.141592653589793);
    let q = floor(kp_det_div_f32(m, 6.283185307179586));
    let wrapped = kpl32_opq(m - kpl32_opq(q * 6.283185307179586)) - 3.141592653589793;
    return select(wrapped, -wrapped, r < 0.0);
}

// Zipf(a) as a float32 count, the same bits on every driver: random_float.wgsl's kp_zipf_f32
// (Devroye's rejection method, as NumPy) with the fenced exp, expm1 and log1p and
// deterministic quotients (kupfer_core::random::zipf). The float32 path of zipf (adapters
// without float64: the browser).
fn kp_det_zipf_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, a: f32) -> f32 {
    if (kp_det_isnan_f32(a) || a >= 1025.0) {
        return 1.0;
    }
    let am1 = kpl32_opq(a - 1.0);
    let t = kpl32_opq(am1 * 0.6931471805599453);
    let b = kp_det_exp_f32(t);
    let bm1 = kp_det_expm1_f32(t);
    // 1 - Umin, Umin = 2^(-63 (a - 1)).
    let span = -kp_det_expm1_f32(kpl32_opq(-am1 * 43.668272375276554));
    for (var j = 1u; j <= 32u; j++) {
        let blk = kp_rng_block(k, d, e, j);
        for (var h = 0u; h < 2u; h++) {
            let u = kp_u01_mid_f32(kp_lane(blk, 2u * h));
            let v = kp_u01_mid_f32(kp_lane(blk, 2u * h + 1u));
            let lu = -kp_det_log1p_f32(-kpl32_opq(u * span));
            let x = floor(kp_det_exp_f32(kp_det_div_f32(lu, am1)));
            if (x < 1.0 || x >= 9.223372036854775807e18) {
                continue;
            }
            if (x == 1.0) {
                return x;
            }
            let t1 = kp_det_expm1_f32(kpl32_opq(am1 * kp_det_log1p_f32(kp_det_div_f32(1.0, x))));
            let lhs = kp_det_div_f32(kpl32_opq(kpl32_opq(v * x) * t1), bm1);
            if (lhs <= kp_det_div_f32(1.0 + t1, b)) {
                return x;
            }
        }
    }
    return 1.0;
}

// The log of C(mn, x) C(mx, cs - x) up to a term free of x (kp_hyper_logw_f32, fenced).
fn kp_det_hyper_logw_f32(x: f32, mn: f32, mx: f32, cs: f32, p: f32, q: f32) -> f32 {
    return kp_det_binomial_logpmf_f32(x, mn, p, q) + kp_det_binomial_logpmf_f32(cs - x, mx, p, q);
}

// Hypergeometric(good, bad, sample) as a float32 count, the same bits on every driver:
// random_float.wgsl's kp_hypergeometric_f32 (NumPy's urn draws in exact integers below 10,
// Stadlober's HRUA otherwise) with every product that is added fenced, deterministic
// quotients and roots and the fenced log-probabilities (kupfer_core::random::hypergeometric).
// The float32 path of hypergeometric (adapters without float64: the browser).
fn kp_det_hypergeometric_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, good: f32, bad: f32,
    sample: f32) -> f32 {
    let total = good + bad;
    if (sample < 10.0 || sample > total - 10.0) {
        return kp_hyper_urn_f32(k, d, e, good, total, sample);
    }
    let cs = min(sample, total - sample);
    let mn = min(good, bad);
    let mx = max(good, bad);
    let p = kp_det_div_f32(mn, total);
    let q = kp_det_div_f32(mx, total);
    let a = kpl32_opq(kpl32_opq(cs * p) + 0.5);
    let var_num = kpl32_opq(kpl32_opq(kpl32_opq((total - cs) * cs) * p) * q);
    let c = kp_det_sqrt_f32(kp_det_div_f32(var_num, total - 1.0) + 0.5);
    let h = kpl32_opq(1.7155277699214135 * c) + 0.8989161620588988;
    let bound = min(min(cs, mn) + 1.0, floor(a + kpl32_opq(16.0 * c)));
    let pw = kp_det_div_f32(cs, total);
    let qw = kp_det_div_f32(total - cs, total);
    var m = floor(kp_det_div_f32(kpl32_opq((cs + 1.0) * (mn + 1.0)), total + 2.0));
    var g = kp_det_hyper_logw_f32(m, mn, mx, cs, pw, qw);
    for (var i = 0u; i < 2u; i++) {
        let m2 = kpl32_opq(m - 1.0) + 2.0 * f32(i);
        if (m2 >= 0.0 && m2 <= min(cs, mn) && m2 >= cs - mx) {
            let g2 = kp_det_hyper_logw_f32(m2, mn, mx, cs, pw, qw);
            if (g2 > g) {
                m = m2;
                g = g2;
            }
        }
    }
    let a0 = floor(a);
    let af = a - a0;
    var x = m;
    for (var j = 1u; j <= 64u; j++) {
        let blk = kp_rng_block(k, d, e, j);
        var done = false;
        for (var i = 0u; i < 2u; i++) {
            let u = kp_u01_mid_f32(kp_lane(blk, 2u * i));
            let v = kp_u01_mid_f32(kp_lane(blk, 2u * i + 1u));
            let kk = a0 + floor(af + kp_det_div_f32(kpl32_opq(h * (v - 0.5)), u));
            if (kk < 0.0 || kk >= bound) {
                continue;
            }
            let t = kp_det_hyper_logw_f32(kk, mn, mx, cs, pw, qw) - g;
            if (kpl32_opq(u * kpl32_opq(4.0 - u)) - 3.0 <= t) {
                x = kk;
                done = true;
                break;
            }
            if (kpl32_opq(u * kpl32_opq(u - t)) >= 1.0) {
                continue;
            }
            if (2.0 * kp_ln_unit_fenced_f32(u) <= t) {
                x = kk;
                done = true;
                break;
            }
        }
        if (done) {
            break;
        }
    }
    if (good > bad) {
        x = cs - x;
    }
    if (cs < sample) {
        x = good - x;
    }
    return x;
}
