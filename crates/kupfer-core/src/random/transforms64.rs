//! The float64 forms of the transforms of uniforms ([`Transform::has_f64`]: uniform, laplace,
//! logistic, gumbel, weibull, pareto, power, rayleigh, standard_cauchy, wald, triangular,
//! geometric, logseries and the `-log(U)` exponential; the quotients of beta, f and
//! standard_t and noncentral_chisquare's shifted square, whose gamma and normal draws come in
//! as parameters; von Mises, zipf and hypergeometric, emulated in [`super::vonmises`],
//! [`super::zipf`] and [`super::hypergeometric`] with the helpers here), drawn as
//! [`super::RandomOp::Det`] in float64 (`shaders/random_det64.wgsl`), and the float64 gamma
//! ([`gamma_f64`], `kp_gamma_det_f64`): their CPU emulation, bit for bit.
//!
//! As in float32 ([`super::transforms`]) only +, -, * (correctly rounded), comparisons,
//! floor/ceil, exact scaling by powers of two and conversions decide a value; the WGSL fences
//! every product that is added. The float64 helpers: [`ln_d64`] (the fenced float32
//! logarithm of the reduced significand refined by two Newton steps on [`expm1_small`], a
//! Taylor polynomial to r^14), [`exp_d64`] (`kp_exp_neg_fenced_f64`), [`expm1_d64`],
//! [`log1p_d64`], [`div_d64`] (a Newton reciprocal of the divisor's significand with an
//! exact-product correction) and [`sqrt_d64`] (a Newton reciprocal root with an exact-residual
//! correction), each within a few ulp (tested against float64's correctly rounded functions).
//! Results below 2^-1022 are 0 everywhere (no driver's subnormal handling decides a bit).
//!
//! Words: element `e`'s uniform is word 0 and the x word of its block 1 (`kp_u01_f64`, the
//! float64 `random`; the open one `((w0 >> 6) 2^26 + (x >> 6) + 1/2) 2^-52`); logseries'
//! second uniform is block 1's y and z words; standard_cauchy's turn word 0 and block 1's x
//! (its lowest bit set: never a multiple of pi/2); wald's normal the float64 Box-Muller pair
//! of block 1, its uniform word 0 and block 2's x.

use super::gamma::{recip_det, rsqrt_det};
use super::transforms::Transform;
use super::ziggurat::exp_neg_fenced_f64;
use super::{ln_unit_fenced, philox4x32_10, stream_word, u01_f64};

const LN2_HI: f64 = 6.931_471_803_691_238e-1;
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
const MIN_NORMAL: f64 = f64::MIN_POSITIVE;

impl Transform {
    /// Whether the transform has a deterministic float64 form (`kp_det_<name>_f64`).
    pub fn has_f64(self) -> bool {
        matches!(
            self,
            Transform::Uniform
                | Transform::Laplace
                | Transform::Logistic
                | Transform::Gumbel
                | Transform::Weibull
                | Transform::Pareto
                | Transform::Power
                | Transform::Rayleigh
                | Transform::Triangular
                | Transform::Geometric
                | Transform::Logseries
                | Transform::Exponential
                | Transform::Quotient
                | Transform::StudentT
                | Transform::Noncentral
                | Transform::Cauchy
                | Transform::Wald
                | Transform::VonMises
                | Transform::Zipf
                | Transform::Hypergeometric
        )
    }

    /// The WGSL function of the float64 form (`shaders/random_det64.wgsl`).
    pub fn function_f64(self) -> &'static str {
        match self {
            Transform::Uniform => "kp_det_uniform_f64",
            Transform::Laplace => "kp_det_laplace_f64",
            Transform::Logistic => "kp_det_logistic_f64",
            Transform::Gumbel => "kp_det_gumbel_f64",
            Transform::Weibull => "kp_det_weibull_f64",
            Transform::Pareto => "kp_det_pareto_f64",
            Transform::Power => "kp_det_power_f64",
            Transform::Rayleigh => "kp_det_rayleigh_f64",
            Transform::Triangular => "kp_det_triangular_f64",
            Transform::Geometric => "kp_det_geometric_f64",
            Transform::Logseries => "kp_det_logseries_f64",
            Transform::Exponential => "kp_det_exponential_f64",
            Transform::Quotient => "kp_det_quotient_f64",
            Transform::StudentT => "kp_det_student_t_f64",
            Transform::Noncentral => "kp_det_noncentral_f64",
            Transform::Cauchy => "kp_det_cauchy_f64",
            Transform::Wald => "kp_det_wald_f64",
            Transform::VonMises => "kp_det_vonmises_f64",
            Transform::Zipf => "kp_det_zipf_f64",
            Transform::Hypergeometric => "kp_det_hypergeometric_f64",
            // Not drawn in float64 (RandomOp::check refuses it).
            _ => self.function(),
        }
    }

    /// The WGSL call of the float64 form for element `e` (key `k`, draw `d`, word 0 `w0`).
    pub fn wgsl_f64(self, k: &str, d: &str, e: &str, w0: &str, params: &[String]) -> String {
        let mut args = vec![k.to_string(), d.to_string(), e.to_string(), w0.to_string()];
        args.extend(params.iter().take(self.params()).cloned());
        format!("kp_d64_canon({}({}))", self.function_f64(), args.join(", "))
    }

    /// Element `e`'s float64 value in draw `draw` under `key` with the parameters `p` (the
    /// GPU's bits, NaN as the one quiet NaN `0x7ff8...`; only for [`Transform::has_f64`]).
    pub fn value_f64(self, key: [u32; 2], draw: u64, e: u32, p: &[f64]) -> f64 {
        let v = self.raw_f64(key, draw, e, p);
        if v.is_nan() {
            f64::from_bits(0x7ff8_0000_0000_0000)
        } else {
            v
        }
    }

    /// [`Transform::value_f64`] before NaN is made the one quiet NaN.
    fn raw_f64(self, key: [u32; 2], draw: u64, e: u32, p: &[f64]) -> f64 {
        let w0 = stream_word(key, draw, e, 0);
        let w1 = stream_word(key, draw, e, 1);
        let u = u01_f64(w0, w1);
        let mid = u01_mid(w0, w1);
        let exp1 = || -ln_d64(mid);
        match self {
            Transform::Uniform => affine(u, p[0], p[1]),
            Transform::Laplace => {
                let x = if mid < 0.5 {
                    ln_d64(2.0 * mid)
                } else {
                    -ln_d64(2.0 - 2.0 * mid)
                };
                affine(x, p[0], p[1])
            }
            Transform::Logistic => affine(ln_d64(div_d64(mid, 1.0 - mid)), p[0], p[1]),
            Transform::Gumbel => affine(-ln_d64(exp1()), p[0], p[1]),
            Transform::Weibull => {
                if p[0] == 0.0 {
                    0.0
                } else {
                    exp_d64(div_d64(ln_d64(exp1()), p[0]))
                }
            }
            Transform::Pareto => expm1_d64(div_d64(exp1(), p[0])),
            Transform::Power => exp_d64(div_d64(ln_d64(mid), p[0])),
            Transform::Rayleigh => p[0] * sqrt_d64(2.0 * exp1()),
            Transform::Triangular => {
                let (left, mode, right) = (p[0], p[1], p[2]);
                let base = right - left;
                let (lb, rb) = (mode - left, right - mode);
                if u <= div_d64(lb, base) {
                    left + sqrt_d64((u * lb) * base)
                } else {
                    right - sqrt_d64(((1.0 - u) * rb) * base)
                }
            }
            Transform::Geometric => div_d64(ln_d64(mid), log1p_d64(-p[0])).ceil().max(1.0),
            Transform::Logseries => {
                let v = mid;
                if v >= p[0] {
                    return 1.0;
                }
                let u2 = u01_f64(stream_word(key, draw, e, 2), stream_word(key, draw, e, 3));
                let q = -expm1_d64(log1p_d64(-p[0]) * u2);
                if v <= q * q {
                    (div_d64(ln_d64(v), ln_d64(q)) + 1.0).floor().max(1.0)
                } else if v >= q {
                    1.0
                } else {
                    2.0
                }
            }
            Transform::Exponential => exp1(),
            Transform::Quotient => div_d64(p[0], p[1]),
            Transform::StudentT => div_d64(p[0], sqrt_d64(div_d64(p[1], p[2]))),
            Transform::Noncentral => {
                let t = p[1] + sqrt_d64(p[2]);
                p[0] + t * t
            }
            Transform::Cauchy => {
                let [c, s] = sincos_turn(w0, w1 | 0x40);
                div_d64(c, s)
            }
            Transform::Wald => {
                let (mean, scale) = (p[0], p[1]);
                let b1 = philox4x32_10([e, 1, draw as u32, (draw >> 32) as u32], key);
                let z = normal_pair(b1)[0];
                let y = mean * (z * z);
                let root = sqrt_d64((4.0 * scale) * y + y * y);
                let x = mean + div_d64(mean, 2.0 * scale) * (y - root);
                if u01_f64(w0, stream_word(key, draw, e, 5)) <= div_d64(mean, mean + x) {
                    x
                } else {
                    div_d64(mean * mean, x)
                }
            }
            Transform::VonMises => super::vonmises::vonmises_f64(key, draw, e, p[0], p[1]),
            Transform::Zipf => super::zipf::zipf_f64(key, draw, e, p[0]),
            Transform::Hypergeometric => {
                super::hypergeometric::hypergeometric_f64(key, draw, e, p[0], p[1], p[2])
            }
            _ => f64::NAN,
        }
    }
}

/// `kp_u01_mid_f64`: the open uniform `((a >> 6) 2^26 + (b >> 6) + 1/2) 2^-52`.
pub(crate) fn u01_mid(a: u32, b: u32) -> f64 {
    (f64::from(a >> 6) * 67_108_864.0 + f64::from(b >> 6) + 0.5) * f64::EPSILON
}

/// `kp_d64_affine`: `loc + scale z`, one rounding each.
fn affine(z: f64, loc: f64, scale: f64) -> f64 {
    scale * z + loc
}

/// `kpl64_frexp`: (m, e) with |x| = m 2^e, m in [1, 2), for finite nonzero x.
fn frexp(x: f64) -> (f64, i32) {
    let b = x.abs().to_bits();
    let (b, bias) = if b < 1 << 52 {
        ((x.abs() * 2f64.powi(64)).to_bits(), 64)
    } else {
        (b, 0)
    };
    let e = (b >> 52) as i32 - 1023 - bias;
    (f64::from_bits((b & ((1 << 52) - 1)) | (1023 << 52)), e)
}

/// `kp_d64_to_f32`: m rounded to `bits` fraction bits, converted exactly.
fn to_f32(m: f64, bits: i32) -> f32 {
    let s = pow2(bits);
    ((m * s + 0.5).floor() / s) as f32
}

/// 2^k for -1022 <= k <= 1023.
fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// `kpl64_scale`: v 2^(k/2) 2^(k - k/2).
fn scale(v: f64, k: i32) -> f64 {
    let k1 = k / 2;
    v * pow2(k1) * pow2(k - k1)
}

/// `kpl64_split`.
fn split(a: f64) -> [f64; 2] {
    let t = a * 134_217_728.0;
    let h = (t + a) - t;
    [h, a - h]
}

/// `kpl64_two_prod`: a b as an unevaluated pair (Dekker).
fn two_prod(a: f64, b: f64) -> [f64; 2] {
    let p = a * b;
    let [ah, al] = split(a);
    let [bh, bl] = split(b);
    let e1 = ah * bh - p;
    let e2 = e1 + ah * bl;
    [p, (e2 + al * bh) + al * bl]
}

/// `kp_d64_expm1_small`: expm1(r) for |r| <= 0.36 (Taylor to r^14).
pub fn expm1_small(r: f64) -> f64 {
    let mut p = r * 1.147_074_559_772_972_5e-11 + 1.605_904_383_682_161_3e-10;
    for c in [
        2.087_675_698_786_81e-9,
        2.505_210_838_544_172e-8,
        2.755_731_922_398_589e-7,
        2.755_731_922_398_589_3e-6,
        2.480_158_730_158_73e-5,
        0.000_198_412_698_412_698_4,
        0.001_388_888_888_888_889,
        0.008_333_333_333_333_333,
        0.041_666_666_666_666_664,
        0.166_666_666_666_666_66,
        0.5,
    ] {
        p = r * p + c;
    }
    (r * r) * p + r
}

/// `kp_d64_exp`: exp(x) as every driver computes it (+inf above 709.78, 0 below -707).
pub fn exp_d64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x > 709.782_712_893_384 {
        return f64::INFINITY;
    }
    if x < -707.0 {
        return 0.0;
    }
    if x > 709.0 {
        return exp_neg_fenced_f64(1.0 - x) * std::f64::consts::E;
    }
    exp_neg_fenced_f64(-x)
}

/// `kp_d64_expm1`: exp(x) - 1 as every driver computes it.
pub fn expm1_d64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let x = x.min(f64::MAX);
    if x > 40.0 {
        return exp_d64(x) - 1.0;
    }
    if x < -40.0 {
        return -1.0;
    }
    let n = (x * std::f64::consts::LOG2_E + 0.5).floor();
    let r = (x - n * LN2_HI) - n * LN2_LO;
    let m = expm1_small(r);
    if n == 0.0 {
        return m;
    }
    let t = pow2(n as i32);
    m * t + (t - 1.0)
}

/// `kp_d64_ln`: ln x as every driver computes it (-inf at 0, NaN below, +inf at +inf).
pub fn ln_d64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x <= 0.0 {
        return if x == 0.0 {
            f64::NEG_INFINITY
        } else {
            f64::NAN
        };
    }
    if x > f64::MAX {
        return x;
    }
    let (mut m, e) = frexp(x);
    let mut e = f64::from(e);
    if m > std::f64::consts::SQRT_2 {
        m *= 0.5;
        e += 1.0;
    }
    let m32 = to_f32(m, 23);
    let c0 = f64::from(recip_det(m32));
    let c = c0 * (2.0 - m * c0);
    let f = m - 1.0;
    let mut y = f64::from(ln_unit_fenced(m32));
    for _ in 0..2 {
        y += (f - expm1_small(y)) * c;
    }
    (e * LN2_LO + y) + e * LN2_HI
}

/// `kp_d64_div`: a / b as every driver computes it (within an ulp; IEEE's infinities, zeros
/// and NaN; quotients below 2^-1022 are 0).
pub fn div_d64(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        return f64::NAN;
    }
    let sg = if a.is_sign_negative() != b.is_sign_negative() {
        -1.0
    } else {
        1.0
    };
    let (a_inf, b_inf) = (a.is_infinite(), b.is_infinite());
    if (a == 0.0 && b == 0.0) || (a_inf && b_inf) {
        return f64::NAN;
    }
    if a_inf || b == 0.0 {
        return sg * f64::INFINITY;
    }
    if a == 0.0 || b_inf {
        return sg * 0.0;
    }
    let (x, ea) = frexp(a);
    let (m, eb) = frexp(b);
    let mut y = f64::from(recip_det(to_f32(m, 23)));
    for _ in 0..2 {
        y *= 2.0 - m * y;
    }
    let q0 = x * y;
    let p = two_prod(q0, m);
    let r = (x - p[0]) - p[1];
    let q = q0 + r * y;
    let ex = ea - eb;
    if ex > 1024 {
        return sg * f64::INFINITY;
    }
    if ex < -1023 {
        return sg * 0.0;
    }
    let v = scale(q, ex);
    if v < MIN_NORMAL {
        return sg * 0.0;
    }
    sg * v
}

/// `kp_d64_sqrt`: sqrt(y) of y >= 0 as every driver computes it (within an ulp).
pub fn sqrt_d64(y: f64) -> f64 {
    if !y.is_finite() || y == 0.0 {
        return y;
    }
    let (mut m, mut e) = frexp(y);
    if e & 1 != 0 {
        m *= 2.0;
        e -= 1;
    }
    let h = 0.5 * m;
    let mut r = f64::from(rsqrt_det(to_f32(m, 22)));
    for _ in 0..2 {
        r *= 1.5 - (h * r) * r;
    }
    let s = m * r;
    let p = two_prod(s, s);
    let d = (m - p[0]) - p[1];
    scale(s + (d * r) * 0.5, e / 2)
}

/// `kp_d64_log1p`: log(1 + x) as every driver computes it (-inf at -1, NaN below).
pub fn log1p_d64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let x = x.min(f64::MAX);
    let u = 1.0 + x;
    if u == 1.0 {
        return x;
    }
    if u == 0.0 {
        return f64::NEG_INFINITY;
    }
    if u.is_nan() || u < 0.0 {
        return f64::NAN;
    }
    ln_d64(u) * div_d64(x, u - 1.0)
}

/// `kp_u01_open53_f64`: the (0, 1] uniform `((a >> 5) 2^26 + (b >> 6) + 1) 2^-53`.
fn u01_open53(a: u32, b: u32) -> f64 {
    (f64::from(a >> 5) * 67_108_864.0 + f64::from((b >> 6) + 1)) * (1.0 / 9_007_199_254_740_992.0)
}

/// `kp_d64_sincos_turn`: (cos, sin) of 2 pi t for the 53-bit turn t of the words a, b.
pub fn sincos_turn(a: u32, b: u32) -> [f64; 2] {
    let h = a >> 5;
    let q = (h + 0x0100_0000) >> 25;
    let r = (f64::from(h as i32 - (q << 25) as i32) * 67_108_864.0 + f64::from(b >> 6))
        * (1.0 / 9_007_199_254_740_992.0);
    let x = r * std::f64::consts::TAU;
    let z = x * x;
    let mut sp = z * 2.811_457_254_345_520_6e-15 - 7.647_163_731_819_816e-13;
    for c in [
        1.605_904_383_682_161_3e-10,
        -2.505_210_838_544_172e-8,
        2.755_731_922_398_589_3e-6,
        -0.000_198_412_698_412_698_4,
        0.008_333_333_333_333_333,
        -0.166_666_666_666_666_66,
    ] {
        sp = z * sp + c;
    }
    let s = (x * z) * sp + x;
    let mut cp = z * -1.561_920_696_858_622_5e-16 + 4.779_477_332_387_385e-14;
    for c in [
        -1.147_074_559_772_972_5e-11,
        2.087_675_698_786_81e-9,
        -2.755_731_922_398_589e-7,
        2.480_158_730_158_73e-5,
        -0.001_388_888_888_888_889,
        0.041_666_666_666_666_664,
    ] {
        cp = z * cp + c;
    }
    let c = (z * z) * cp + (1.0 - 0.5 * z);
    match q & 3 {
        1 => [-s, c],
        2 => [-c, -s],
        3 => [s, -c],
        _ => [c, s],
    }
}

/// `kp_d64_normal_pair`: the float64 Box-Muller pair of a block's four words.
pub fn normal_pair(b: [u32; 4]) -> [f64; 2] {
    let rr = sqrt_d64(-2.0 * ln_d64(u01_open53(b[0], b[1])));
    let [c, s] = sincos_turn(b[2], b[3]);
    [rr * c, rr * s]
}

/// `kp_d64_mt_try`: one Marsaglia-Tsang attempt, the candidate or -1.
fn mt_try(dd: f64, c: f64, z: f64, u: f64) -> f64 {
    let v0 = c * z + 1.0;
    if v0 <= 0.0 {
        return -1.0;
    }
    let v = (v0 * v0) * v0;
    let z2 = z * z;
    if u < 1.0 - 0.0331 * (z2 * z2) {
        return dd * v;
    }
    let bound = 0.5 * z2 + dd * ((1.0 - v) + ln_d64(v));
    if ln_d64(u) < bound {
        return dd * v;
    }
    -1.0
}

/// `kp_gamma_det_f64`: element `e`'s float64 standard gamma of shape `a` in draw `draw` (the
/// GPU's bits).
pub fn gamma_f64(key: [u32; 2], draw: u64, e: u32, a: f64) -> f64 {
    if a.is_nan() {
        return f64::from_bits(0x7ff8_0000_0000_0000);
    }
    if a <= 0.0 {
        return 0.0;
    }
    let block = |j: u32| philox4x32_10([e, j, draw as u32, (draw >> 32) as u32], key);
    let boost = a < 1.0;
    let s = if boost { a + 1.0 } else { a };
    let dd = s - 0.333_333_333_333_333_3;
    let c = div_d64(1.0, sqrt_d64(9.0 * dd));
    let mut x = dd;
    for j in 1..=16u32 {
        let z = normal_pair(block(2 * j - 1));
        let b = block(2 * j);
        let g0 = mt_try(dd, c, z[0], u01_open53(b[0], b[1]));
        if g0 >= 0.0 {
            x = g0;
            break;
        }
        let g1 = mt_try(dd, c, z[1], u01_open53(b[2], b[3]));
        if g1 >= 0.0 {
            x = g1;
            break;
        }
    }
    if boost {
        let u = u01_open53(stream_word(key, draw, e, 0), block(33)[0]);
        x *= exp_d64(-div_d64(-ln_d64(u), a));
        if x < MIN_NORMAL {
            x = 0.0;
        }
    }
    x
}

/// `kp_logfact_small_f64`: log(k!) for k < 16 (random_float.wgsl's table, its literals read
/// as float64).
fn logfact_small(k: u32) -> f64 {
    // The WGSL's literals as written (ln 2 among them).
    #[allow(clippy::approx_constant)]
    const T: [f64; 16] = [
        0.0,
        0.0,
        0.693_147_180_559_945,
        1.791_759_469_228_055_4,
        3.178_053_830_347_945,
        4.787_491_742_782_047,
        6.579_251_212_010_102,
        8.525_161_361_065_415,
        10.604_602_902_745_249,
        12.801_827_480_081_467,
        15.104_412_573_075_514,
        17.502_307_845_873_887,
        19.987_214_495_661_885,
        22.552_163_853_123_42,
        25.191_221_182_738_683,
        27.899_271_383_840_89,
    ];
    T[k.min(15) as usize]
}

/// `kp_d64_stirlerr` (k >= 16).
fn stirlerr(k: f64) -> f64 {
    let k2 = k * k;
    let mut t = div_d64(0.000_841_750_841_750_841_7, k2);
    for c in [
        0.000_595_238_095_238_095_3,
        0.000_793_650_793_650_793_7,
        0.002_777_777_777_777_778,
    ] {
        t = div_d64(c - t, k2);
    }
    div_d64(0.083_333_333_333_333_33 - t, k)
}

/// `kp_d64_bd0`: x log(x / m) + m - x.
fn bd0(x: f64, m: f64) -> f64 {
    if (x - m).abs() < 0.1 * (x + m) {
        let v = div_d64(x - m, x + m);
        let v2 = v * v;
        let mut s = (x - m) * v;
        let mut ej = (2.0 * x) * v;
        for j in 1..40u32 {
            ej *= v2;
            let s1 = s + div_d64(ej, f64::from(2 * j + 1));
            if s1 == s {
                break;
            }
            s = s1;
        }
        return s;
    }
    (x * ln_d64(div_d64(x, m)) + m) - x
}

/// `kp_d64_poisson_logpmf`.
fn poisson_logpmf(k: f64, lam: f64, loglam: f64) -> f64 {
    if k < 16.0 {
        return (-lam + k * loglam) - logfact_small(k as u32);
    }
    (-stirlerr(k) - bd0(k, lam)) - 0.5 * ln_d64(std::f64::consts::TAU * k)
}

/// `kp_poisson_det_f64`: element `e`'s float64 Poisson count of mean `lam` in draw `draw`
/// (the GPU's bits).
pub fn poisson_f64(key: [u32; 2], draw: u64, e: u32, lam: f64) -> f64 {
    if lam.is_nan() || lam <= 0.0 {
        return 0.0;
    }
    let block = |j: u32| philox4x32_10([e, j, draw as u32, (draw >> 32) as u32], key);
    if lam < 10.0 {
        let u = u01_f64(stream_word(key, draw, e, 0), block(1)[0]);
        let mut p = exp_d64(-lam);
        let mut s = p;
        let mut n = 0.0f64;
        for _ in 0..256 {
            if u < s {
                break;
            }
            n += 1.0;
            p = div_d64(p * lam, n);
            let s1 = s + p;
            if s1 == s && n > lam {
                break;
            }
            s = s1;
        }
        return n;
    }
    let slam = sqrt_d64(lam);
    let loglam = ln_d64(lam);
    let b = 0.931 + 2.53 * slam;
    let a = -0.059 + 0.02483 * b;
    let ln_invalpha = ln_d64(1.1239 + div_d64(1.1328, b - 3.4));
    let vr = 0.9277 - div_d64(3.6224, b - 2.0);
    for j in 1..=32u32 {
        let blk = block(j);
        let uu = u01_mid(blk[0], blk[1]) - 0.5;
        let v = u01_mid(blk[2], blk[3]);
        let us = 0.5 - uu.abs();
        let n = (((div_d64(2.0 * a, us) + b) * uu + lam) + 0.43).floor();
        if us >= 0.07 && v <= vr {
            return n;
        }
        if n < 0.0 || (us < 0.013 && v > us) {
            continue;
        }
        let lhs = (ln_d64(v) + ln_invalpha) - ln_d64(div_d64(a, us * us) + b);
        if lhs <= poisson_logpmf(n, lam, loglam) {
            return n;
        }
    }
    lam.floor()
}

/// `kp_d64_stirlerr_any`: Loader's stirlerr(k) for k >= 1.
fn stirlerr_any(k: f64) -> f64 {
    if k < 16.0 {
        let t = (k + 0.5) * ln_d64(k);
        return ((logfact_small(k as u32) - t) + k) - 0.918_938_533_204_672_7;
    }
    stirlerr(k)
}

/// `kp_d64_binomial_logpmf`: log of the binomial(n, p) probability of k (q = 1 - p).
pub(crate) fn binomial_logpmf(k: f64, n: f64, p: f64, q: f64) -> f64 {
    if k == 0.0 {
        return n * log1p_d64(-p);
    }
    if k == n {
        return n * ln_d64(p);
    }
    let lc = (((stirlerr_any(n) - stirlerr_any(k)) - stirlerr_any(n - k)) - bd0(k, n * p))
        - bd0(n - k, n * q);
    let lf = (1.837_877_066_409_345_3 + ln_d64(k)) + log1p_d64(-div_d64(k, n));
    lc - 0.5 * lf
}

/// `kp_d64_binomial_low`: binomial(n, p) for p <= 1/2.
fn binomial_low(key: [u32; 2], draw: u64, e: u32, n: f64, p: f64) -> f64 {
    let block = |j: u32| philox4x32_10([e, j, draw as u32, (draw >> 32) as u32], key);
    let q = 1.0 - p;
    let np = n * p;
    if np < 10.0 {
        let s = div_d64(p, q);
        let a = (n + 1.0) * s;
        let mut r = exp_d64(n * log1p_d64(-p));
        let mut u = u01_f64(stream_word(key, draw, e, 0), block(1)[0]);
        let mut x = 0.0f64;
        for _ in 0..256 {
            if u <= r || x >= n {
                break;
            }
            u -= r;
            x += 1.0;
            r *= div_d64(a, x) - s;
        }
        return x.min(n);
    }
    let spq = sqrt_d64(np * q);
    let b = 1.15 + 2.53 * spq;
    let a = (-0.0873 + 0.0248 * b) + 0.01 * p;
    let c = np + 0.5;
    let vr = 0.92 - div_d64(4.2, b);
    let alpha = (2.83 + div_d64(5.1, b)) * spq;
    let m = ((n + 1.0) * p).floor();
    let logm = binomial_logpmf(m, n, p, q);
    for j in 1..=32u32 {
        let blk = block(j);
        let u = u01_mid(blk[0], blk[1]) - 0.5;
        let v = u01_mid(blk[2], blk[3]);
        let us = 0.5 - u.abs();
        let x = ((div_d64(2.0 * a, us) + b) * u + c).floor();
        if x < 0.0 || x > n {
            continue;
        }
        if us >= 0.07 && v <= vr {
            return x;
        }
        let den = div_d64(a, us * us) + b;
        let lhs = ln_d64(div_d64(v * alpha, den));
        if lhs <= binomial_logpmf(x, n, p, q) - logm {
            return x;
        }
    }
    m
}

/// `kp_binomial_det_f64`: element `e`'s float64 binomial count of `n` trials with
/// probability `p` in draw `draw` (the GPU's bits).
pub fn binomial_f64(key: [u32; 2], draw: u64, e: u32, n: f64, p: f64) -> f64 {
    if n.is_nan() || n < 1.0 || p.is_nan() || p <= 0.0 {
        return 0.0;
    }
    if p >= 1.0 {
        return n;
    }
    let flip = p > 0.5;
    let x = binomial_low(key, draw, e, n, if flip { 1.0 - p } else { p });
    if flip {
        n - x
    } else {
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The distance in ulps of `got` from the correctly rounded `want`.
    fn ulps(got: f64, want: f64) -> f64 {
        if got == want {
            return 0.0;
        }
        let w = want.abs();
        let ulp = f64::from_bits(w.to_bits() + 1) - w;
        (got - want).abs() / ulp
    }

    fn samples() -> impl Iterator<Item = f64> {
        (0..40_000u64).map(|i| {
            let m = 0x3ff0_0000_0000_0000 | (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 12);
            let e = (i % 1200) as i32 - 600;
            let v = f64::from_bits(m) * 2f64.powi(e);
            if i % 3 == 0 {
                -v
            } else {
                v
            }
        })
    }

    #[test]
    fn the_float64_quotient_and_root_are_within_an_ulp() {
        let xs: Vec<f64> = samples().collect();
        for (i, &a) in xs.iter().enumerate() {
            let b = xs[(i * 7919 + 13) % xs.len()];
            let want = a / b;
            if want.abs() >= MIN_NORMAL && want.is_finite() {
                let u = ulps(div_d64(a, b), want);
                assert!(u <= 1.0, "{a} / {b}: {u} ulp");
            }
            let s = sqrt_d64(a.abs());
            assert!(ulps(s, a.abs().sqrt()) <= 1.0, "sqrt({a})");
        }
        let tiny = f64::from_bits(3);
        assert_eq!(div_d64(tiny, tiny), 1.0);
        assert_eq!(div_d64(6.0, 3.0), 2.0);
        assert_eq!(div_d64(1e-300, 1e300), 0.0);
        assert_eq!(div_d64(1e300, 1e-300), f64::INFINITY);
        assert_eq!(div_d64(-1.0, 0.0), f64::NEG_INFINITY);
        assert_eq!(div_d64(0.0, -3.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(div_d64(2.0, f64::INFINITY), 0.0);
        assert!(div_d64(0.0, 0.0).is_nan() && div_d64(f64::NAN, 1.0).is_nan());
        assert!(div_d64(f64::INFINITY, f64::NEG_INFINITY).is_nan());
        assert_eq!(sqrt_d64(4.0), 2.0);
        assert!(ulps(sqrt_d64(tiny), tiny.sqrt()) <= 1.0);
        assert_eq!(sqrt_d64(f64::INFINITY), f64::INFINITY);
    }

    #[test]
    fn the_float64_log_exp_expm1_and_log1p_are_within_a_few_ulps() {
        for x in samples().map(f64::abs) {
            let u = ulps(ln_d64(x), x.ln());
            assert!(u <= 2.0, "ln({x}): {u} ulp");
        }
        // Near 1, where the logarithm is small: still relative accuracy.
        for i in 1..20_000u64 {
            for x in [
                1.0 + i as f64 * 2.3e-14,
                1.0 - i as f64 * 1.7e-12,
                0.75 + i as f64 * 3e-5,
            ] {
                assert!(ulps(ln_d64(x), x.ln()) <= 2.0, "ln({x})");
            }
        }
        for i in 0..40_000 {
            let x = (i as f64 - 20_000.0) * 0.0351;
            if x > -707.0 && x < 709.0 {
                assert!(ulps(exp_d64(x), x.exp()) <= 2.0, "exp({x})");
            }
            let t = (i as f64 - 20_000.0) * 0.0021;
            assert!(ulps(expm1_d64(t), t.exp_m1()) <= 2.0, "expm1({t})");
            let s = t * 1e-9;
            assert!(ulps(expm1_d64(s), s.exp_m1()) <= 2.0, "expm1({s})");
        }
        for x in samples().map(f64::abs) {
            let p = x.min(0.999_999_999) * 0.999;
            for v in [p, -p, p * 1e-9] {
                let u = ulps(log1p_d64(v), v.ln_1p());
                assert!(u <= 3.0, "log1p({v}): {u} ulp");
            }
        }
        for x in [709.01, 709.5, 709.78] {
            assert!(ulps(exp_d64(x), x.exp()) <= 2.0, "exp({x})");
        }
        assert_eq!(exp_d64(710.0), f64::INFINITY);
        assert_eq!(exp_d64(-708.0), 0.0);
        assert_eq!(log1p_d64(-1.0), f64::NEG_INFINITY);
        assert!(log1p_d64(-2.0).is_nan() && ln_d64(-1.0).is_nan());
        assert_eq!(log1p_d64(1e-300), 1e-300);
        assert_eq!(expm1_d64(-100.0), -1.0);
        assert_eq!(ln_d64(0.0), f64::NEG_INFINITY);
        assert!(expm1_d64(f64::NAN).is_nan() && ln_d64(f64::NAN).is_nan());
    }

    #[test]
    fn the_float64_transforms_are_in_their_ranges() {
        let key = [3, 4];
        for e in 0..4096 {
            let v = |t: Transform, p: &[f64]| t.value_f64(key, 5, e, p);
            assert!((0.0..=1.0).contains(&v(Transform::Power, &[3.0])));
            assert!(v(Transform::Weibull, &[0.5]) > 0.0);
            assert!(v(Transform::Pareto, &[2.0]) >= 0.0);
            assert!((1.0..=5.0).contains(&v(Transform::Triangular, &[1.0, 2.0, 5.0])));
            assert!(v(Transform::Geometric, &[0.3]) >= 1.0);
            assert!(v(Transform::Logseries, &[0.9]) >= 1.0);
            assert!((0.0..1.0).contains(&v(Transform::Uniform, &[0.0, 1.0])));
        }
    }

    #[test]
    fn the_float64_turn_sine_cosine_and_gammas_are_accurate() {
        for i in 0..50_000u32 {
            let (a, b) = (
                i.wrapping_mul(2_654_435_761),
                i.wrapping_mul(0x85eb_ca6b) ^ 0x1234_5678,
            );
            let t =
                (f64::from(a >> 5) * 67_108_864.0 + f64::from(b >> 6)) / 9_007_199_254_740_992.0;
            let [c, s] = sincos_turn(a, b);
            // The reference angle is itself rounded (to 4.4e-16 after reduction).
            let ang = std::f64::consts::TAU * (t - t.round());
            assert!(
                (c - ang.cos()).abs() < 1e-15 && (s - ang.sin()).abs() < 1e-15,
                "{t}"
            );
        }
        for a in [0.2f64, 1.0, 4.5, 1000.0] {
            let n = 20_000u32;
            let m: f64 = (0..n).map(|e| gamma_f64([9, 8], 1, e, a)).sum::<f64>() / f64::from(n);
            assert!((m - a).abs() < 5.0 * (a / f64::from(n)).sqrt(), "{a}: {m}");
        }
        assert!(gamma_f64([1, 2], 0, 0, f64::NAN).is_nan());
        assert_eq!(gamma_f64([1, 2], 0, 0, 0.0), 0.0);
    }

    #[test]
    fn emulated_float64_poisson_counts_have_the_right_mean_and_variance() {
        for lam in [0.5f64, 3.0, 9.99, 10.0, 42.0, 1e4, 1e12] {
            let n = 20_000u32;
            let v: Vec<f64> = (0..n).map(|e| poisson_f64([1, 2], 3, e, lam)).collect();
            let m = v.iter().sum::<f64>() / f64::from(n);
            let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / f64::from(n);
            let tol = 5.0 * (lam / f64::from(n)).sqrt();
            assert!((m - lam).abs() < tol, "{lam}: mean {m}");
            assert!(
                (var - lam).abs() < 0.05 * lam + 0.05,
                "{lam}: variance {var}"
            );
        }
        assert_eq!(poisson_f64([1, 2], 0, 0, f64::NAN), 0.0);
        assert_eq!(poisson_f64([1, 2], 0, 0, 0.0), 0.0);
    }

    #[test]
    fn emulated_float64_binomial_counts_have_the_right_mean() {
        for (n, p) in [(10.0f64, 0.3f64), (1000.0, 0.7), (1e9, 0.25), (5.0, 0.999)] {
            let k = 20_000u32;
            let m = (0..k)
                .map(|e| binomial_f64([3, 4], 1, e, n, p))
                .sum::<f64>()
                / f64::from(k);
            let tol = 5.0 * (n * p * (1.0 - p) / f64::from(k)).sqrt();
            assert!((m - n * p).abs() < tol, "{n} {p}: mean {m}");
        }
        assert_eq!(binomial_f64([1, 2], 0, 0, 7.0, 1.0), 7.0);
        assert_eq!(binomial_f64([1, 2], 0, 0, 7.0, 0.0), 0.0);
    }
}
