// Float64 forms of random_det.wgsl's transforms of uniforms, the same bits on every driver
// (RandomOp::Det in float64; kupfer_core::random::transforms64 is the CPU emulation, bit for
// bit). As in float32 only +, -, * (correctly rounded), comparisons, floor/ceil, exact
// scaling by powers of two (kpl64_frexp, ldexp) and conversions decide a value: every product
// that is added is fenced (kpl64_opq), the float64 logarithm, exponential, expm1 and log1p are
// the fenced polynomials and Newton steps below, a quotient is a fenced Newton reciprocal of
// the divisor's significand with an exact-product correction, and a square root a fenced
// Newton reciprocal root corrected by its exact residual. Results below 2^-1022 are 0 (the
// same everywhere: a driver may flush them).

// NaN tested through float32 (its bits: a driver may fold x != x to false).
fn kp_d64_isnan(x: f64) -> bool {
    return kp_det_isnan_f32(f32(x));
}

fn kp_d64_nonfinite(x: f64) -> bool {
    return kp_d64_isnan(x) || abs(x) > KPL64_MAX;
}

// x fenced where it is finite.
fn kp_d64_fence(x: f64) -> f64 {
    return select(kpl64_opq(x), x, kp_d64_nonfinite(x));
}

// m in [1/2, 4) rounded to a float32 exactly, whatever a driver's conversion rounds to:
// round(m s) / s with s = 2^23 below 2 (2^22 below 4), both steps exact.
fn kp_d64_to_f32(m: f64, s: f64, inv: f64) -> f32 {
    return f32(floor(m * s + 0.5lf) * inv);
}

// x, or the one quiet NaN (0x7ff8...) for any NaN: which NaN an operation on NaN gives
// differs between processors (every float64 transform's value passes through this).
fn kp_d64_canon(x: f64) -> f64 {
    return select(x, kpl64_nan(), kp_d64_isnan(x));
}

// loc + scale z with the product fenced.
fn kp_d64_affine(z: f64, loc: f64, scale: f64) -> f64 {
    return kp_d64_fence(scale * z) + loc;
}

// expm1(r) for |r| <= 0.36: r + r^2 P(r), P the Taylor polynomial to the r^14 term
// (truncation below 2^-60 relative), fenced.
fn kp_d64_expm1_small(r: f64) -> f64 {
    var p = kpl64_opq(r * 1.1470745597729725e-11lf) + 1.6059043836821613e-10lf;
    p = kpl64_opq(r * p) + 2.08767569878681e-09lf;
    p = kpl64_opq(r * p) + 2.505210838544172e-08lf;
    p = kpl64_opq(r * p) + 2.755731922398589e-07lf;
    p = kpl64_opq(r * p) + 2.7557319223985893e-06lf;
    p = kpl64_opq(r * p) + 2.48015873015873e-05lf;
    p = kpl64_opq(r * p) + 0.0001984126984126984lf;
    p = kpl64_opq(r * p) + 0.001388888888888889lf;
    p = kpl64_opq(r * p) + 0.008333333333333333lf;
    p = kpl64_opq(r * p) + 0.041666666666666664lf;
    p = kpl64_opq(r * p) + 0.16666666666666666lf;
    p = kpl64_opq(r * p) + 0.5lf;
    return kpl64_opq(kpl64_opq(r * r) * p) + r;
}

// exp(x), fenced (kp_exp_neg_fenced_f64): +inf above 709.78, 0 below -707 (no subnormal
// results), NaN for NaN; above 709 as exp(x - 1) e (x - 1 exact; the reduction's 2^n stays finite).
fn kp_d64_exp(x0: f64) -> f64 {
    if (kp_d64_isnan(x0)) {
        return x0;
    }
    if (x0 > 709.782712893384lf) {
        return kpl64_inf();
    }
    // Fenced: inlined, a caller's product could otherwise be contracted with the reduction.
    let x = kpl64_opq(x0);
    if (x < -707.0lf) {
        return 0.0lf;
    }
    if (x > 709.0lf) {
        return kpl64_opq(kp_exp_neg_fenced_f64(1.0lf - x)) * 2.718281828459045lf;
    }
    return kp_exp_neg_fenced_f64(-x);
}

// exp(x) - 1, fenced: x = n ln 2 + r, 2^n expm1(r) + (2^n - 1); -1 below -40, exp(x) - 1
// above 40; NaN for NaN.
fn kp_d64_expm1(x0: f64) -> f64 {
    if (kp_d64_isnan(x0)) {
        return x0;
    }
    let x = kpl64_opq(x0);
    if (x > 40.0lf) {
        return kp_d64_exp(x) - 1.0lf;
    }
    if (x < -40.0lf) {
        return -1.0lf;
    }
    let n = floor(kpl64_opq(x * 1.4426950408889634lf) + 0.5lf);
    let r = kpl64_opq(kpl64_opq(x - kpl64_opq(n * 6.931471803691238e-1lf))
        - kpl64_opq(n * 1.9082149292705877e-10lf));
    let m = kp_d64_expm1_small(r);
    if (n == 0.0lf) {
        return m;
    }
    let t = ldexp(1.0lf, i32(n));
    return kpl64_opq(m * t) + (t - 1.0lf);
}

// ln x of a positive x, fenced: x = 2^e m with m in (sqrt(1/2), sqrt(2)] (exact scaling),
// y = the fenced float32 ln m, then two Newton steps y + (f - expm1(y)) c with f = m - 1
// (exact) and c = 1 / m (a float32 reciprocal and one fenced float64 Newton step); the
// result (e ln2_lo + y) + e ln2_hi (e ln2_hi exact). -inf at 0, +inf at +inf, NaN below 0.
fn kp_d64_ln(x0: f64) -> f64 {
    if (kp_d64_isnan(x0)) {
        return x0;
    }
    if (x0 <= 0.0lf) {
        return select(kpl64_nan(), -kpl64_inf(), x0 == 0.0lf);
    }
    if (x0 > KPL64_MAX) {
        return x0;
    }
    // Fenced: inlined, a caller's product could otherwise be contracted with m - 1.
    let x = kpl64_opq(x0);
    let fr = kpl64_frexp(x);
    var m = fr.m;
    var e = f64(fr.e);
    if (m > 1.4142135623730951lf) {
        m = 0.5lf * m;
        e = e + 1.0lf;
    }
    let m32 = kp_d64_to_f32(m, 8388608.0lf, 1.1920928955078125e-7lf);
    let c0 = f64(kp_recip_det_f32(m32));
    let c = kpl64_opq(c0 * kpl64_opq(2.0lf - kpl64_opq(m * c0)));
    let f = m - 1.0lf;
    var y = f64(kp_ln_unit_fenced_f32(m32));
    for (var i = 0u; i < 2u; i++) {
        y = y + kpl64_opq(kpl64_opq(f - kp_d64_expm1_small(y)) * c);
    }
    return kpl64_opq(kpl64_opq(e * 1.9082149292705877e-10lf) + y) + e * 6.931471803691238e-1lf;
}

// a / b, the same bits on every driver (within an ulp): the significands x, m in [1, 2)
// (kpl64_frexp), y = 1 / m from the float32 reciprocal and two fenced Newton steps,
// q = x y corrected once by the exact residual x - q m (kpl64_two_prod), scaled back by the
// exponents. IEEE's infinities, zeros and NaN; quotients below 2^-1022 are 0.
fn kp_d64_div(a: f64, b: f64) -> f64 {
    if (kp_d64_isnan(a) || kp_d64_isnan(b)) {
        return kpl64_nan();
    }
    let neg = kpl64_signbit(a) != kpl64_signbit(b);
    let sg = select(1.0lf, -1.0lf, neg);
    let a_inf = abs(a) > KPL64_MAX;
    let b_inf = abs(b) > KPL64_MAX;
    if ((a == 0.0lf && b == 0.0lf) || (a_inf && b_inf)) {
        return kpl64_nan();
    }
    if (a_inf || b == 0.0lf) {
        return sg * kpl64_inf();
    }
    if (a == 0.0lf || b_inf) {
        return sg * 0.0lf;
    }
    // Fenced: inlined, a caller's product could otherwise be contracted with x - q m.
    let fa = kpl64_frexp(kpl64_opq(a));
    let fb = kpl64_frexp(kpl64_opq(b));
    let x = fa.m;
    let m = fb.m;
    var y = f64(kp_recip_det_f32(kp_d64_to_f32(m, 8388608.0lf, 1.1920928955078125e-7lf)));
    for (var i = 0u; i < 2u; i++) {
        y = kpl64_opq(y * kpl64_opq(2.0lf - kpl64_opq(m * y)));
    }
    let q0 = kpl64_opq(x * y);
    let p = kpl64_two_prod(q0, m);
    let r = kpl64_opq(kpl64_opq(x - p.x) - p.y);
    let q = kpl64_opq(q0 + kpl64_opq(r * y));
    let ex = fa.e - fb.e;
    if (ex > 1024) {
        return sg * kpl64_inf();
    }
    if (ex < -1023) {
        return sg * 0.0lf;
    }
    let v = kpl64_scale(q, ex);
    if (v < 2.2250738585072014e-308lf) {
        return sg * 0.0lf;
    }
    return sg * v;
}

// sqrt(y) of y >= 0 (y = 2^2k m, m in [1, 4)): r = 1 / sqrt(m) from the float32 reciprocal
// root and two fenced Newton steps, s = m r corrected by the exact residual (m - s^2) r / 2,
// scaled back by 2^k (within an ulp). 0, +inf and NaN give themselves.
fn kp_d64_sqrt(y: f64) -> f64 {
    if (kp_d64_nonfinite(y) || y == 0.0lf) {
        return y;
    }
    let fr = kpl64_frexp(kpl64_opq(y));  // fenced as in kp_d64_div
    var m = fr.m;
    var e = fr.e;
    if ((e & 1) != 0) {
        m = 2.0lf * m;
        e = e - 1;
    }
    let h = 0.5lf * m;
    var r = f64(kp_rsqrt_det_f32(kp_d64_to_f32(m, 4194304.0lf, 2.384185791015625e-7lf)));
    for (var i = 0u; i < 2u; i++) {
        r = kpl64_opq(r * kpl64_opq(1.5lf - kpl64_opq(kpl64_opq(h * r) * r)));
    }
    let s = kpl64_opq(m * r);
    let p = kpl64_two_prod(s, s);
    let d = kpl64_opq(kpl64_opq(m - p.x) - p.y);
    let s1 = s + kpl64_opq(kpl64_opq(d * r) * 0.5lf);
    return kpl64_scale(s1, e / 2);
}

// log(1 + x) for x >= -1, fenced: x where 1 + x rounds to 1, else ln(u) x / (u - 1) with
// u = 1 + x (u - 1 exact): -inf at -1, NaN below.
fn kp_d64_log1p(x0: f64) -> f64 {
    if (kp_d64_isnan(x0)) {
        return x0;
    }
    let x = kpl64_opq(x0);
    let u = kpl64_opq(1.0lf + x);
    if (u == 1.0lf) {
        return x;
    }
    if (u == 0.0lf) {
        return -kpl64_inf();
    }
    if (!(u > 0.0lf)) {
        return kpl64_nan();
    }
    return kpl64_opq(kp_d64_ln(u) * kp_d64_div(x, u - 1.0lf));
}

// The float64 uniform in [0, 1) of word 0 and the x word of the element's block 1
// (kp_u01_f64: the same as random(dtype=float64)).
fn kp_d64_u01(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32) -> f64 {
    return kp_u01_f64(w0, kp_rng_block(k, d, e, 1u).x);
}

// The open float64 uniform ((w0 >> 6) 2^26 + (x >> 6) + 1/2) 2^-52 of the same words.
fn kp_d64_mid(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32) -> f64 {
    return kp_u01_mid_f64(w0, kp_rng_block(k, d, e, 1u).x);
}

// The standard exponential -ln U of the open uniform (in [3.6e-17, 36.7]).
fn kp_d64_exp1(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32) -> f64 {
    return -kp_d64_ln(kp_d64_mid(k, d, e, w0));
}

fn kp_det_exponential_f64(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32) -> f64 {
    return kp_d64_exp1(k, d, e, w0);
}

fn kp_det_uniform_f64(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, low: f64, width: f64) -> f64 {
    return kp_d64_affine(kp_d64_u01(k, d, e, w0), low, width);
}

fn kp_det_laplace_f64(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, loc: f64, scale: f64) -> f64 {
    let u = kp_d64_mid(k, d, e, w0);
    var x: f64;
    if (u < 0.5lf) {
        x = kp_d64_ln(2.0lf * u);
    } else {
        x = -kp_d64_ln(2.0lf - 2.0lf * u);
    }
    return kp_d64_affine(x, loc, scale);
}

fn kp_det_logistic_f64(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, loc: f64, scale: f64) -> f64 {
    let u = kp_d64_mid(k, d, e, w0);
    return kp_d64_affine(kp_d64_ln(kp_d64_div(u, 1.0lf - u)), loc, scale);
}

fn kp_det_gumbel_f64(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, loc: f64, scale: f64) -> f64 {
    return kp_d64_affine(-kp_d64_ln(kp_d64_exp1(k, d, e, w0)), loc, scale);
}

fn kp_det_weibull_f64(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, a: f64) -> f64 {
    if (a == 0.0lf) {
        return 0.0lf;
    }
    return kp_d64_exp(kp_d64_div(kp_d64_ln(kp_d64_exp1(k, d, e, w0)), a));
}

fn kp_det_pareto_f64(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, a: f64) -> f64 {
    return kp_d64_expm1(kp_d64_div(kp_d64_exp1(k, d, e, w0), a));
}

fn kp_det_power_f64(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, a: f64) -> f64 {
    return kp_d64_exp(kp_d64_div(kp_d64_ln(kp_d64_mid(k, d, e, w0)), a));
}

fn kp_det_rayleigh_f64(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, scale: f64) -> f64 {
    return kp_d64_fence(scale * kp_d64_sqrt(2.0lf * kp_d64_exp1(k, d, e, w0)));
}

fn kp_det_triangular_f64(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, left: f64, mode: f64,
    right: f64) -> f64 {
    let u = kp_d64_u01(k, d, e, w0);
    let base = right - left;
    let lb = mode - left;
    let rb = right - mode;
    if (u <= kp_d64_div(lb, base)) {
        return left + kp_d64_sqrt(kp_d64_fence(kp_d64_fence(u * lb) * base));
    }
    return right - kp_d64_sqrt(kp_d64_fence(kp_d64_fence((1.0lf - u) * rb) * base));
}

fn kp_det_geometric_f64(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, p: f64) -> f64 {
    let u = kp_d64_mid(k, d, e, w0);
    return max(ceil(kp_d64_div(kp_d64_ln(u), kp_d64_log1p(-p))), 1.0lf);
}

// logseries(p), Kemp's second method: V the open uniform, U in [0, 1) of block 1's y and z.
fn kp_det_logseries_f64(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, p: f64) -> f64 {
    let b1 = kp_rng_block(k, d, e, 1u);
    let v = kp_u01_mid_f64(w0, b1.x);
    if (v >= p) {
        return 1.0lf;
    }
    let u = kp_u01_f64(b1.y, b1.z);
    let q = -kp_d64_expm1(kpl64_opq(kp_d64_log1p(-p) * u));
    if (v <= kpl64_opq(q * q)) {
        let t = kp_d64_div(kp_d64_ln(v), kp_d64_ln(q));
        return max(floor(t + 1.0lf), 1.0lf);
    }
    return select(2.0lf, 1.0lf, v >= q);
}

// (cos, sin) of the turn t = (h 2^26 + l) 2^-53 of two words (h = a >> 5, l = b >> 6), fenced:
// t = q / 4 + r with |r| <= 1/8 in integers (exact), x = 2 pi r, Taylor polynomials to x^17
// (sine) and x^18 (cosine), the quadrant q applied by swaps and signs.
fn kp_d64_sincos_turn(a: u32, b: u32) -> vec2<f64> {
    let h = a >> 5u;
    let q = (h + 0x01000000u) >> 25u;
    let r = (f64(i32(h) - i32(q << 25u)) * 67108864.0lf + f64(b >> 6u)) * 1.1102230246251565e-16lf;
    let x = kpl64_opq(r * 6.283185307179586lf);
    let z = kpl64_opq(x * x);
    var sp = kpl64_opq(z * 2.8114572543455206e-15lf) - 7.647163731819816e-13lf;
    sp = kpl64_opq(z * sp) + 1.6059043836821613e-10lf;
    sp = kpl64_opq(z * sp) - 2.505210838544172e-08lf;
    sp = kpl64_opq(z * sp) + 2.7557319223985893e-06lf;
    sp = kpl64_opq(z * sp) - 0.0001984126984126984lf;
    sp = kpl64_opq(z * sp) + 0.008333333333333333lf;
    sp = kpl64_opq(z * sp) - 0.16666666666666666lf;
    let s = kpl64_opq(kpl64_opq(x * z) * sp) + x;
    var cp = kpl64_opq(z * -1.5619206968586225e-16lf) + 4.779477332387385e-14lf;
    cp = kpl64_opq(z * cp) - 1.1470745597729725e-11lf;
    cp = kpl64_opq(z * cp) + 2.08767569878681e-09lf;
    cp = kpl64_opq(z * cp) - 2.755731922398589e-07lf;
    cp = kpl64_opq(z * cp) + 2.48015873015873e-05lf;
    cp = kpl64_opq(z * cp) - 0.001388888888888889lf;
    cp = kpl64_opq(z * cp) + 0.041666666666666664lf;
    let c = kpl64_opq(kpl64_opq(z * z) * cp) + kpl64_opq(1.0lf - 0.5lf * z);
    switch (q & 3u) {
        case 1u: {
            return vec2<f64>(-s, c);
        }
        case 2u: {
            return vec2<f64>(-c, -s);
        }
        case 3u: {
            return vec2<f64>(s, -c);
        }
        default: {
            return vec2<f64>(c, s);
        }
    }
}

// A pair of standard normals, float64 Box-Muller on a block: R = sqrt(-2 ln U1) with U1 the
// (0, 1] uniform of words x, y, the angle the turn of words z, w (fenced; kp_d64_* helpers).
fn kp_d64_normal_pair(blk: vec4<u32>) -> vec2<f64> {
    let rr = kp_d64_sqrt(-2.0lf * kp_d64_ln(kp_u01_open53_f64(blk.x, blk.y)));
    let cs = kp_d64_sincos_turn(blk.z, blk.w);
    return vec2<f64>(kpl64_opq(rr * cs.x), kpl64_opq(rr * cs.y));
}

// One Marsaglia-Tsang attempt (kp_mt_try_f32 in float64 with the kp_d64 logarithm): the
// candidate dd v, or -1 when rejected.
fn kp_d64_mt_try(dd: f64, c: f64, z: f64, u: f64) -> f64 {
    let v0 = kpl64_opq(c * z) + 1.0lf;
    if (v0 <= 0.0lf) {
        return -1.0lf;
    }
    let v = kpl64_opq(kpl64_opq(v0 * v0) * v0);
    let z2 = kpl64_opq(z * z);
    if (u < 1.0lf - kpl64_opq(0.0331lf * kpl64_opq(z2 * z2))) {
        return kpl64_opq(dd * v);
    }
    let bound = kpl64_opq(0.5lf * z2) + kpl64_opq(dd * ((1.0lf - v) + kp_d64_ln(v)));
    if (kp_d64_ln(u) < bound) {
        return kpl64_opq(dd * v);
    }
    return -1.0lf;
}

// Float64 standard gamma of shape a, the same bits on every driver (Marsaglia and Tsang):
// attempt j = 1..16 takes the float64 Box-Muller pair of the element's block 2j - 1 and the
// (0, 1] uniforms of block 2j (words x, y and z, w); then the last candidate d. a < 1: gamma(a
// + 1) times exp(-(-ln U) / a), U of word 0 and block 33's x. 0 for a <= 0, NaN for NaN.
fn kp_gamma_det_f64(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, a: f64) -> f64 {
    if (kp_d64_isnan(a)) {
        return kpl64_nan();
    }
    if (a <= 0.0lf) {
        return 0.0lf;
    }
    let boost = a < 1.0lf;
    let s = select(a, a + 1.0lf, boost);
    let dd = s - 0.3333333333333333lf;
    let c = kp_d64_div(1.0lf, kp_d64_sqrt(9.0lf * dd));
    var x = dd;
    for (var j = 1u; j <= 16u; j++) {
        let z = kp_d64_normal_pair(kp_rng_block(k, d, e, 2u * j - 1u));
        let b = kp_rng_block(k, d, e, 2u * j);
        let g0 = kp_d64_mt_try(dd, c, z.x, kp_u01_open53_f64(b.x, b.y));
        if (g0 >= 0.0lf) {
            x = g0;
            break;
        }
        let g1 = kp_d64_mt_try(dd, c, z.y, kp_u01_open53_f64(b.z, b.w));
        if (g1 >= 0.0lf) {
            x = g1;
            break;
        }
    }
    if (boost) {
        let u = kp_u01_open53_f64(w0, kp_rng_block(k, d, e, 33u).x);
        x = kpl64_opq(x * kp_d64_exp(-kp_d64_div(-kp_d64_ln(u), a)));
        // No subnormal results (a driver may flush them): 0 below 2^-1022.
        x = select(x, 0.0lf, x < 2.2250738585072014e-308lf);
    }
    return x;
}

// x / y of two parameters (beta, f: the gamma draws come in as parameters).
fn kp_det_quotient_f64(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, x: f64, y: f64) -> f64 {
    return kp_d64_div(x, y);
}

// standard_t: z / sqrt(c / df) of the normal z and the chi-square c.
fn kp_det_student_t_f64(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, z: f64, c: f64,
    df: f64) -> f64 {
    return kp_d64_div(z, kp_d64_sqrt(kp_d64_div(c, df)));
}

// noncentral_chisquare's df > 1 branch: c + (z + sqrt(nonc))^2 (the square fenced).
fn kp_det_noncentral_f64(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, c: f64, z: f64,
    nonc: f64) -> f64 {
    let t = z + kp_d64_sqrt(nonc);
    return c + kp_d64_fence(t * t);
}

// standard_cauchy: cot of the turn of word 0 and block 1's x with its lowest bit set (never
// a multiple of 1/4: finite and nonzero), the cosine over the sine of kp_d64_sincos_turn.
fn kp_det_cauchy_f64(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32) -> f64 {
    let cs = kp_d64_sincos_turn(w0, kp_rng_block(k, d, e, 1u).x | 0x40u);
    return kp_d64_div(cs.x, cs.y);
}

// wald(mean, scale), Michael, Schucany and Haas as NumPy: the float64 Box-Muller normal of
// the element's block 1, the uniform of word 0 and block 2's x.
fn kp_det_wald_f64(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, mean: f64, scale: f64) -> f64 {
    let z = kp_d64_normal_pair(kp_rng_block(k, d, e, 1u)).x;
    let y = kp_d64_fence(mean * kpl64_opq(z * z));
    let root = kp_d64_sqrt(kp_d64_fence(kp_d64_fence(4.0lf * scale) * y)
        + kp_d64_fence(y * y));
    let x = mean + kp_d64_fence(kp_d64_div(mean, 2.0lf * scale) * kpl64_opq(y - root));
    if (kp_u01_f64(w0, kp_rng_block(k, d, e, 2u).x) <= kp_d64_div(mean, mean + x)) {
        return x;
    }
    return kp_d64_div(kp_d64_fence(mean * mean), x);
}

// Loader's stirlerr(k) for k >= 16: the asymptotic series to the k^-9 term, fenced.
fn kp_d64_stirlerr(k: f64) -> f64 {
    let k2 = kpl64_opq(k * k);
    var t = kp_d64_div(0.0008417508417508417lf, k2);
    t = kp_d64_div(0.0005952380952380953lf - t, k2);
    t = kp_d64_div(0.0007936507936507937lf - t, k2);
    t = kp_d64_div(0.002777777777777778lf - t, k2);
    return kp_d64_div(0.08333333333333333lf - t, k);
}

// Loader's bd0(x, m) = x log(x / m) + m - x, fenced.
fn kp_d64_bd0(x: f64, m: f64) -> f64 {
    if (abs(x - m) < kpl64_opq(0.1lf * kpl64_opq(x + m))) {
        let v = kp_d64_div(x - m, x + m);
        let v2 = kpl64_opq(v * v);
        var s = kpl64_opq(kpl64_opq(x - m) * v);
        var ej = kpl64_opq((2.0lf * x) * v);
        for (var j = 1u; j < 40u; j++) {
            ej = kpl64_opq(ej * v2);
            let s1 = s + kp_d64_div(ej, f64(2u * j + 1u));
            if (s1 == s) {
                break;
            }
            s = s1;
        }
        return s;
    }
    return (kpl64_opq(x * kp_d64_ln(kp_d64_div(x, m))) + m) - x;
}

// log of the Poisson(lam) probability of k (Loader's saddle-point form from k = 16).
fn kp_d64_poisson_logpmf(k: f64, lam: f64, loglam: f64) -> f64 {
    if (k < 16.0lf) {
        return (-lam + kpl64_opq(k * loglam)) - kp_logfact_small_f64(u32(k));
    }
    return (-kp_d64_stirlerr(k) - kp_d64_bd0(k, lam))
        - kpl64_opq(0.5lf * kp_d64_ln(kpl64_opq(6.283185307179586lf * k)));
}

// Poisson(lam) as a float64 count, the same bits on every driver (kp_det_poisson_f32 in
// float64): inversion of the 53-bit uniform of word 0 and block 1's x below lam = 10
// (p lam / n by kp_d64_div), Hormann's PTRS above with one attempt per block (j = 1..32: the
// open 52-bit uniforms of words x, y and z, w), then floor(lam). 0 for lam <= 0 or NaN.
fn kp_poisson_det_f64(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, lam: f64) -> f64 {
    if (kp_d64_isnan(lam) || lam <= 0.0lf) {
        return 0.0lf;
    }
    if (lam < 10.0lf) {
        let u = kp_u01_f64(w0, kp_rng_block(k, d, e, 1u).x);
        var p = kp_d64_exp(-lam);
        var s = p;
        var n: f64 = 0.0lf;
        for (var j = 0u; j < 256u; j++) {
            if (u < s) {
                break;
            }
            n = n + 1.0lf;
            p = kp_d64_div(kpl64_opq(p * lam), n);
            let s1 = s + p;
            if (s1 == s && n > lam) {
                break;
            }
            s = s1;
        }
        return n;
    }
    let slam = kp_d64_sqrt(lam);
    let loglam = kp_d64_ln(lam);
    let b = kpl64_opq(0.931lf + kpl64_opq(2.53lf * slam));
    let a = -0.059lf + kpl64_opq(0.02483lf * b);
    let ln_invalpha = kp_d64_ln(1.1239lf + kp_d64_div(1.1328lf, b - 3.4lf));
    let vr = 0.9277lf - kp_d64_div(3.6224lf, b - 2.0lf);
    for (var j = 1u; j <= 32u; j++) {
        let blk = kp_rng_block(k, d, e, j);
        let uu = kp_u01_mid_f64(blk.x, blk.y) - 0.5lf;
        let v = kp_u01_mid_f64(blk.z, blk.w);
        let us = 0.5lf - abs(uu);
        let n = floor(kpl64_opq(kpl64_opq(kpl64_opq(kp_d64_div(2.0lf * a, us) + b) * uu) + lam)
            + 0.43lf);
        if (us >= 0.07lf && v <= vr) {
            return n;
        }
        if (n < 0.0lf || (us < 0.013lf && v > us)) {
            continue;
        }
        let lhs = (kp_d64_ln(v) + ln_invalpha)
            - kp_d64_ln(kp_d64_div(a, kpl64_opq(us * us)) + b);
        if (lhs <= kp_d64_poisson_logpmf(n, lam, loglam)) {
            return n;
        }
    }
    return floor(lam);
}

// Loader's stirlerr(k) for k >= 1: the table below 16, else kp_d64_stirlerr's series.
fn kp_d64_stirlerr_any(k: f64) -> f64 {
    if (k < 16.0lf) {
        let t = kpl64_opq(kpl64_opq(k + 0.5lf) * kp_d64_ln(k));
        return kpl64_opq(kpl64_opq(kp_logfact_small_f64(u32(k)) - t) + k)
            - 0.9189385332046727lf;
    }
    return kp_d64_stirlerr(k);
}

// log of the binomial(n, p) probability of k, q = 1 - p (kp_det_binomial_logpmf_f32 in
// float64). stirlerr of n, k and n - k, and bd0 of (k, n p) and (n - k, n q), each from one
// call in a loop: drivers inline every call, and three (two) inlined copies of these made
// lavapipe compile the samplers that call this one for minutes.
fn kp_d64_binomial_logpmf(k: f64, n: f64, p: f64, q: f64) -> f64 {
    if (k == 0.0lf) {
        return kpl64_opq(n * kp_d64_log1p(-p));
    }
    if (k == n) {
        return kpl64_opq(n * kp_d64_ln(p));
    }
    var s0: f64 = 0.0lf;
    var s1: f64 = 0.0lf;
    var s2: f64 = 0.0lf;
    for (var i = 0u; i < 3u; i++) {
        let s = kp_d64_stirlerr_any(select(select(n - k, k, i == 1u), n, i == 0u));
        if (i == 0u) {
            s0 = s;
        } else if (i == 1u) {
            s1 = s;
        } else {
            s2 = s;
        }
    }
    var d0: f64 = 0.0lf;
    var d1: f64 = 0.0lf;
    for (var i = 0u; i < 2u; i++) {
        let first = i == 0u;
        let d = kp_d64_bd0(select(n - k, k, first), kpl64_opq(n * select(q, p, first)));
        if (first) {
            d0 = d;
        } else {
            d1 = d;
        }
    }
    let lc = kpl64_opq(kpl64_opq(kpl64_opq(s0 - s1) - s2) - d0) - d1;
    let lf = kpl64_opq(1.8378770664093453lf + kp_d64_ln(k)) + kp_d64_log1p(-kp_d64_div(k, n));
    return lc - kpl64_opq(0.5lf * lf);
}

// Binomial(n, p) for p <= 1/2 as a float64 count: inversion of the 53-bit uniform of word 0
// and block 1's x below n p = 10, BTRS above with one attempt per block (j = 1..32, two
// 52-bit open uniforms each), then the mode.
fn kp_d64_binomial_low(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, n: f64, p: f64) -> f64 {
    let q = kpl64_opq(1.0lf - p);
    let np = kpl64_opq(n * p);
    if (np < 10.0lf) {
        let s = kp_d64_div(p, q);
        let a = kpl64_opq(kpl64_opq(n + 1.0lf) * s);
        var r = kp_d64_exp(kpl64_opq(n * kp_d64_log1p(-p)));
        var u = kp_u01_f64(w0, kp_rng_block(k, d, e, 1u).x);
        var x: f64 = 0.0lf;
        for (var j = 0u; j < 256u; j++) {
            if (u <= r || x >= n) {
                break;
            }
            u = u - r;
            x = x + 1.0lf;
            r = kpl64_opq(r * kpl64_opq(kp_d64_div(a, x) - s));
        }
        return min(x, n);
    }
    let spq = kp_d64_sqrt(kpl64_opq(np * q));
    let b = kpl64_opq(1.15lf + kpl64_opq(2.53lf * spq));
    let a = kpl64_opq(-0.0873lf + kpl64_opq(0.0248lf * b)) + kpl64_opq(0.01lf * p);
    let c = kpl64_opq(np + 0.5lf);
    let vr = 0.92lf - kp_d64_div(4.2lf, b);
    let alpha = kpl64_opq(kpl64_opq(2.83lf + kp_d64_div(5.1lf, b)) * spq);
    let m = floor(kpl64_opq(kpl64_opq(n + 1.0lf) * p));
    // Step 0 takes the mode's log-probability, steps 1..32 the attempts: one logpmf call (a
    // driver inlines every call).
    var logm: f64 = 0.0lf;
    for (var j = 0u; j <= 32u; j++) {
        var x = m;
        var lhs: f64 = 0.0lf;
        if (j > 0u) {
            let blk = kp_rng_block(k, d, e, j);
            let u = kp_u01_mid_f64(blk.x, blk.y) - 0.5lf;
            let v = kp_u01_mid_f64(blk.z, blk.w);
            let us = 0.5lf - abs(u);
            x = floor(kpl64_opq(kpl64_opq(kpl64_opq(kp_d64_div(2.0lf * a, us) + b) * u) + c));
            if (x < 0.0lf || x > n) {
                continue;
            }
            if (us >= 0.07lf && v <= vr) {
                return x;
            }
            let den = kp_d64_div(a, kpl64_opq(us * us)) + b;
            lhs = kp_d64_ln(kp_d64_div(kpl64_opq(v * alpha), den));
        }
        let lp = kp_d64_binomial_logpmf(x, n, p, q);
        if (j == 0u) {
            logm = lp;
        } else if (lhs <= lp - logm) {
            return x;
        }
    }
    return m;
}

// Binomial(n, p) as a float64 count, the same bits on every driver (kp_det_binomial_f32's
// edges: 0 for n < 1 or p <= 0 and NaN, n for p >= 1, p > 1/2 as n minus a binomial of 1 - p).
fn kp_binomial_det_f64(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, n: f64, p: f64) -> f64 {
    if (kp_d64_isnan(n) || kp_d64_isnan(p) || n < 1.0lf || p <= 0.0lf) {
        return 0.0lf;
    }
    if (p >= 1.0lf) {
        return n;
    }
    let flip = p > 0.5lf;
    let x = kp_d64_binomial_low(k, d, e, w0, n, select(p, 1.0lf - p, flip));
    return select(x, n - x, flip);
}

// asin(x) / x - 1 = z P(z) for z = x^2 <= 1/4: the Taylor series of the arcsine to the x^49
// term (coefficients (2n)! / (4^n n!^2 (2n + 1)); truncation below 2^-58 relative), fenced.
fn kp_d64_asin_p(z: f64) -> f64 {
    var p = kpl64_opq(z * 0.002338091892111975lf) + 0.0024894486782468836lf;
    p = kpl64_opq(z * p) + 0.00265787063820729lf;
    p = kpl64_opq(z * p) + 0.002846178401108942lf;
    p = kpl64_opq(z * p) + 0.0030578216492580306lf;
    p = kpl64_opq(z * p) + 0.003297059503473485lf;
    p = kpl64_opq(z * p) + 0.0035692053938259347lf;
    p = kpl64_opq(z * p) + 0.003880964558837669lf;
    p = kpl64_opq(z * p) + 0.004240907093679363lf;
    p = kpl64_opq(z * p) + 0.004660143486915096lf;
    p = kpl64_opq(z * p) + 0.005153309682319905lf;
    p = kpl64_opq(z * p) + 0.005740037670841924lf;
    p = kpl64_opq(z * p) + 0.006447210311889649lf;
    p = kpl64_opq(z * p) + 0.0073125258735988454lf;
    p = kpl64_opq(z * p) + 0.008390335809616815lf;
    p = kpl64_opq(z * p) + 0.009761609529194078lf;
    p = kpl64_opq(z * p) + 0.011551800896139705lf;
    p = kpl64_opq(z * p) + 0.01396484375lf;
    p = kpl64_opq(z * p) + 0.017352764423076924lf;
    p = kpl64_opq(z * p) + 0.022372159090909092lf;
    p = kpl64_opq(z * p) + 0.030381944444444444lf;
    p = kpl64_opq(z * p) + 0.044642857142857144lf;
    p = kpl64_opq(z * p) + 0.075lf;
    p = kpl64_opq(z * p) + 0.16666666666666666lf;
    return kpl64_opq(z * p);
}

// arccos(x) for x in [-1, 1], fenced (within a few ulp): |x| <= 1/2: pi/2 - (x + x P(x^2))
// with pi/2 as two float64s; else with s = sqrt((1 - |x|) / 2) (exact halving, kp_d64_sqrt):
// 2 (s + s P(s^2)), or pi minus that for x < 0.
fn kp_d64_arccos(x: f64) -> f64 {
    let a = abs(x);
    if (a <= 0.5lf) {
        let t = kpl64_opq(x + kpl64_opq(x * kp_d64_asin_p(kpl64_opq(x * x))));
        return kpl64_opq(1.5707963267948966lf - t) + 6.123233995736766e-17lf;
    }
    let z = 0.5lf * (1.0lf - a);
    let s = kp_d64_sqrt(z);
    let h = 2.0lf * kpl64_opq(s + kpl64_opq(s * kp_d64_asin_p(z)));
    if (x > 0.0lf) {
        return h;
    }
    return kpl64_opq(3.141592653589793lf - h) + 1.2246467991473532e-16lf;
}

// von Mises(mu, kappa) in [-pi, pi] as float64, the same bits on every driver:
// kp_det_vonmises_f32 in float64 (Best and Fisher, as NumPy; kappa below 1e-8 uniform, above
// 1e6 the wrapped normal z / sqrt(kappa) of the float64 Box-Muller pair of block 1), one
// attempt per block (j = 1..32: the cosine of the 53-bit turn of words x, y, the open 52-bit
// uniform of words z, w; then the last candidate), the sign from word 0's top bit, shifted by
// mu and wrapped as NumPy wraps (kupfer_core::random::vonmises::vonmises_f64).
fn kp_det_vonmises_f64(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, mu: f64, kappa: f64) -> f64 {
    var x: f64;
    if (kp_d64_isnan(kappa)) {
        x = kappa;
    } else if (kappa < 1e-8lf) {
        x = kpl64_opq(3.141592653589793lf * kpl64_opq(2.0lf * kp_d64_mid(k, d, e, w0) - 1.0lf));
    } else if (kappa > 1e6lf) {
        x = kp_d64_div(kp_d64_normal_pair(kp_rng_block(k, d, e, 1u)).x, kp_d64_sqrt(kappa));
    } else {
        var s: f64;
        if (kappa < 1e-5lf) {
            s = kp_d64_div(1.0lf, kappa) + kappa;
        } else {
            let r = 1.0lf + kp_d64_sqrt(1.0lf + kpl64_opq(kpl64_opq(4.0lf * kappa) * kappa));
            let rho = kp_d64_div(r - kp_d64_sqrt(2.0lf * r), 2.0lf * kappa);
            s = kp_d64_div(1.0lf + kpl64_opq(rho * rho), 2.0lf * rho);
        }
        var w: f64 = 0.0lf;
        for (var j = 1u; j <= 32u; j++) {
            let blk = kp_rng_block(k, d, e, j);
            let z = kp_d64_sincos_turn(blk.x, blk.y).x;
            w = clamp(kp_d64_div(1.0lf + kpl64_opq(s * z), s + z), -1.0lf, 1.0lf);
            // Differences fenced: (c - y) y could become fma(-y, y, c y).
            let y = kpl64_opq(kappa * kpl64_opq(s - w));
            let v = kp_u01_mid_f64(blk.z, blk.w);
            if (kpl64_opq(y * kpl64_opq(2.0lf - y)) - v >= 0.0lf) {
                break;
            }
            if (kpl64_opq(kp_d64_ln(kp_d64_div(y, v)) + 1.0lf) - y >= 0.0lf) {
                break;
            }
        }
        let angle = kp_d64_arccos(w);
        x = select(angle, -angle, w0 < 0x80000000u);
    }
    let r = x + mu;
    if (kp_d64_nonfinite(r)) {
        return kpl64_nan();
    }
    let m = kpl64_opq(abs(r) + 3.141592653589793lf);
    let q = floor(kp_d64_div(m, 6.283185307179586lf));
    let wrapped = kpl64_opq(m - kpl64_opq(q * 6.283185307179586lf)) - 3.141592653589793lf;
    return select(wrapped, -wrapped, r < 0.0lf);
}

// Zipf(a) as a float64 count, the same bits on every driver: kp_det_zipf_f32 in float64
// (Devroye's rejection method, as NumPy, with the kp_d64 exp, expm1, log1p and quotients),
// one attempt per block (j = 1..64: the open 52-bit uniforms of words x, y and z, w), then 1
// (kupfer_core::random::zipf::zipf_f64).
fn kp_det_zipf_f64(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, a: f64) -> f64 {
    if (kp_d64_isnan(a) || a >= 1025.0lf) {
        return 1.0lf;
    }
    let am1 = kpl64_opq(a - 1.0lf);
    let t = kpl64_opq(am1 * 0.6931471805599453lf);
    let b = kp_d64_exp(t);
    let bm1 = kp_d64_expm1(t);
    // 1 - Umin, Umin = 2^(-63 (a - 1)).
    let span = -kp_d64_expm1(kpl64_opq(-am1 * 43.66827237527655lf));
    for (var j = 1u; j <= 64u; j++) {
        let blk = kp_rng_block(k, d, e, j);
        let u = kp_u01_mid_f64(blk.x, blk.y);
        let v = kp_u01_mid_f64(blk.z, blk.w);
        let lu = -kp_d64_log1p(-kpl64_opq(u * span));
        let x = floor(kp_d64_exp(kp_d64_div(lu, am1)));
        if (x < 1.0lf || x >= 9.223372036854775807e18lf) {
            continue;
        }
        if (x == 1.0lf) {
            return x;
        }
        let t1 = kp_d64_expm1(kpl64_opq(am1 * kp_d64_log1p(kp_d64_div(1.0lf, x))));
        let lhs = kp_d64_div(kpl64_opq(kpl64_opq(v * x) * t1), bm1);
        if (lhs <= kp_d64_div(1.0lf + t1, b)) {
            return x;
        }
    }
    return 1.0lf;
}

// The log of C(mn, x) C(mx, cs - x) up to a term free of x (kp_det_hyper_logw_f32 in float64;
// its two log-probabilities from one call in a loop, as in kp_d64_binomial_logpmf).
fn kp_d64_hyper_logw(x: f64, mn: f64, mx: f64, cs: f64, p: f64, q: f64) -> f64 {
    var l0: f64 = 0.0lf;
    var l1: f64 = 0.0lf;
    for (var i = 0u; i < 2u; i++) {
        let first = i == 0u;
        let l = kp_d64_binomial_logpmf(select(cs - x, x, first), select(mx, mn, first), p, q);
        if (first) {
            l0 = l;
        } else {
            l1 = l;
        }
    }
    return l0 + l1;
}

// Hypergeometric(good, bad, sample) as a float64 count, the same bits on every driver: the
// urn draws (exact integers, kp_hyper_urn_f64) when the sample or its complement is below 10,
// else kp_det_hypergeometric_f32's HRUA in float64 with one attempt per block (j = 1..128:
// the open 52-bit uniforms of words x, y and z, w), then the mode
// (kupfer_core::random::hypergeometric::hypergeometric_f64).
fn kp_det_hypergeometric_f64(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, good: f64, bad: f64,
    sample: f64) -> f64 {
    let total = good + bad;
    if (sample < 10.0lf || sample > total - 10.0lf) {
        return kp_hyper_urn_f64(k, d, e, good, total, sample);
    }
    let cs = min(sample, total - sample);
    let mn = min(good, bad);
    let mx = max(good, bad);
    let p = kp_d64_div(mn, total);
    let q = kp_d64_div(mx, total);
    let a = kpl64_opq(kpl64_opq(cs * p) + 0.5lf);
    let var_num = kpl64_opq(kpl64_opq(kpl64_opq((total - cs) * cs) * p) * q);
    let c = kp_d64_sqrt(kp_d64_div(var_num, total - 1.0lf) + 0.5lf);
    let h = kpl64_opq(1.7155277699214135lf * c) + 0.8989161620588988lf;
    let bound = min(min(cs, mn) + 1.0lf, floor(a + kpl64_opq(16.0lf * c)));
    let pw = kp_d64_div(cs, total);
    let qw = kp_d64_div(total - cs, total);
    let a0 = floor(a);
    let af = a - a0;
    // One loop, one logw call (a driver inlines every call): steps 0..2 find the mode (NumPy's
    // floor((cs + 1) (mn + 1) / (total + 2)), then its neighbours m - 1 and (the mode so far)
    // + 1 where they beat it), steps 3..130 are the attempts on blocks 1..128.
    var m = floor(kp_d64_div(kpl64_opq((cs + 1.0lf) * (mn + 1.0lf)), total + 2.0lf));
    var g: f64 = 0.0lf;
    var x: f64 = -1.0lf;
    for (var j = 0u; j < 131u; j++) {
        var kk = m;
        var u: f64 = 0.0lf;
        if (j < 3u) {
            if (j > 0u) {
                kk = kpl64_opq(m - 1.0lf) + 2.0lf * f64(j - 1u);
                if (!(kk >= 0.0lf && kk <= min(cs, mn) && kk >= cs - mx)) {
                    continue;
                }
            }
        } else {
            let blk = kp_rng_block(k, d, e, j - 2u);
            u = kp_u01_mid_f64(blk.x, blk.y);
            let v = kp_u01_mid_f64(blk.z, blk.w);
            kk = a0 + floor(af + kp_d64_div(kpl64_opq(h * (v - 0.5lf)), u));
            if (kk < 0.0lf || kk >= bound) {
                continue;
            }
        }
        let lw = kp_d64_hyper_logw(kk, mn, mx, cs, pw, qw);
        if (j < 3u) {
            if (j == 0u || lw > g) {
                m = kk;
                g = lw;
            }
            continue;
        }
        let t = lw - g;
        if (kpl64_opq(u * kpl64_opq(4.0lf - u)) - 3.0lf <= t) {
            x = kk;
            break;
        }
        if (kpl64_opq(u * kpl64_opq(u - t)) >= 1.0lf) {
            continue;
        }
        if (2.0lf * kp_d64_ln(u) <= t) {
            x = kk;
            break;
        }
    }
    if (x < 0.0lf) {
        x = m;
    }
    if (good > bad) {
        x = cs - x;
    }
    if (cs < sample) {
        x = good - x;
    }
    return x;
}
