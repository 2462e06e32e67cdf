// kupfer complex64 functions: kp_<name>_c64(z) for exp, log, log2, log10, sqrt, sin, cos,
// tan, sinh, cosh and tanh. A complex64 is a vec2<f32> (re, im). Built on
// the f32 libm (libm_f32.wgsl, which is searched together with this file for the functions a
// kernel needs). The complex128 forms (kp_<name>_c128 on libm_f64.wgsl) are this file with
// f32 read as f64 (kupfer-core's libm.rs writes them). The
// formulas are C99's (Annex G) for finite arguments: results match NumPy's complex64 to a few
// ulp of the larger part; exactly zero imaginary parts of real arguments stay zero.

fn kp_exp_c64(z: vec2<f32>) -> vec2<f32> {
    let e = kp_exp_f32(z.x);
    if (z.y == 0.0) {
        return vec2<f32>(e, z.y);
    }
    // exp(-inf + iy) is 0 for every y, an infinite or NaN y included (C99).
    if (e == 0.0) {
        return vec2<f32>(0.0, 0.0);
    }
    return vec2<f32>(e * kp_cos_f32(z.y), e * kp_sin_f32(z.y));
}

fn kp_log_c64(z: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(kp_log_f32(kp_hypot_f32(z.x, z.y)), kp_arctan2_f32(z.y, z.x));
}

fn kp_log2_c64(z: vec2<f32>) -> vec2<f32> {
    return kp_log_c64(z) * 1.4426950408889634;
}

fn kp_log10_c64(z: vec2<f32>) -> vec2<f32> {
    return kp_log_c64(z) * 0.4342944819032518;
}

// The principal square root: t = sqrt((|x| + |z|) / 2) (halved first against overflow), the
// other part y / 2t, the sign of the imaginary part kept (sqrt(-4 - 0j) = -2j).
fn kp_sqrt_c64(z: vec2<f32>) -> vec2<f32> {
    if (z.x == 0.0 && z.y == 0.0) {
        return vec2<f32>(0.0, z.y);
    }
    let t = sqrt(abs(z.x) * 0.5 + kp_hypot_f32(z.x, z.y) * 0.5);
    if (z.x >= 0.0) {
        return vec2<f32>(t, z.y / (2.0 * t));
    }
    return vec2<f32>(abs(z.y) / (2.0 * t), select(t, -t, z.y < 0.0 || (z.y == 0.0 && (bitcast<u32>(f32(z.y)) & 0x80000000u) != 0u)));
}

fn kp_sinh_c64(z: vec2<f32>) -> vec2<f32> {
    if (z.y == 0.0) {
        return vec2<f32>(kp_sinh_f32(z.x), z.y);
    }
    return vec2<f32>(kp_sinh_f32(z.x) * kp_cos_f32(z.y), kp_cosh_f32(z.x) * kp_sin_f32(z.y));
}

fn kp_cosh_c64(z: vec2<f32>) -> vec2<f32> {
    if (z.y == 0.0) {
        return vec2<f32>(kp_cosh_f32(z.x), z.y * z.x);
    }
    return vec2<f32>(kp_cosh_f32(z.x) * kp_cos_f32(z.y), kp_sinh_f32(z.x) * kp_sin_f32(z.y));
}

// tanh(x + iy) with t = tan y, s = sinh x, b = 1 + t^2 (Kahan's form):
// (b s sqrt(1 + s^2) + i t) / (1 + b s^2), finite up to the poles of tan y (tanh(i pi/2) is
// about 1.6e16 i, as NumPy's); beyond |x| = 10 (20 in the f64 form) the real part is +-1 to
// the precision and the imaginary part 4 sin y cos y e^(-2|x|) (no inf / inf).
fn kp_tanh_c64(z: vec2<f32>) -> vec2<f32> {
    if (z.y == 0.0) {
        return vec2<f32>(kp_tanh_f32(z.x), z.y);
    }
    if (abs(z.x) > 10.0) {
        let e = kp_exp_f32(-2.0 * abs(z.x));
        return vec2<f32>(sign(z.x), 4.0 * kp_sin_f32(z.y) * kp_cos_f32(z.y) * e);
    }
    let t = kp_tan_f32(z.y);
    let b = 1.0 + t * t;
    let s = kp_sinh_f32(z.x);
    let d = 1.0 + b * s * s;
    return vec2<f32>(b * s * sqrt(1.0 + s * s) / d, t / d);
}

// sin z = -i sinh(iz), cos z = cosh(iz), tan z = -i tanh(iz), with iz = (-y, x).
fn kp_sin_c64(z: vec2<f32>) -> vec2<f32> {
    let s = kp_sinh_c64(vec2<f32>(-z.y, z.x));
    return vec2<f32>(s.y, -s.x);
}

fn kp_cos_c64(z: vec2<f32>) -> vec2<f32> {
    return kp_cosh_c64(vec2<f32>(-z.y, z.x));
}

fn kp_tan_c64(z: vec2<f32>) -> vec2<f32> {
    let t = kp_tanh_c64(vec2<f32>(-z.y, z.x));
    return vec2<f32>(t.y, -t.x);
}

// NumPy's complex product (the plain formula, as npy_cpow uses it).
fn kp_cpmul_c64(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// 1 / x by Smith's algorithm (NumPy's complex division of 1 by x).
fn kp_cprecip_c64(x: vec2<f32>) -> vec2<f32> {
    if (abs(x.y) <= abs(x.x)) {
        let r = x.y / x.x;
        let s = 1.0 / (x.x + x.y * r);
        return vec2<f32>(s, -r * s);
    }
    let r = x.x / x.y;
    let s = 1.0 / (x.x * r + x.y);
    return vec2<f32>(r * s, -s);
}

// a ** b as NumPy's npy_cpow: 1 for a zero exponent; for a zero base 0 under an exponent of
// positive real part (NumPy 2.4: 0 ** (1-1j) is 0) and NaN under any other; a real integer exponent with |n| < 100 by repeated
// squaring (the inverse by one reciprocal at the end); exp(b log a) otherwise.
fn kp_power_c64(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
    if (b.x == 0.0 && b.y == 0.0) {
        return vec2<f32>(1.0, 0.0);
    }
    if (a.x == 0.0 && a.y == 0.0) {
        if (b.x > 0.0) {
            return vec2<f32>(0.0, 0.0);
        }
        let n = kp_cnan_f32();
        return vec2<f32>(n, n);
    }
    if (b.y == 0.0 && b.x == trunc(b.x) && abs(b.x) < 100.0) {
        let n = i32(b.x);
        if (n == 1) {
            return a;
        }
        if (n == 2) {
            return kp_cpmul_c64(a, a);
        }
        if (n == 3) {
            return kp_cpmul_c64(kp_cpmul_c64(a, a), a);
        }
        var m = abs(n);
        var r = vec2<f32>(1.0, 0.0);
        var p = a;
        loop {
            if ((m & 1) != 0) {
                r = kp_cpmul_c64(r, p);
            }
            m = m >> 1u;
            if (m == 0) {
                break;
            }
            p = kp_cpmul_c64(p, p);
        }
        if (n < 0) {
            return kp_cprecip_c64(r);
        }
        return r;
    }
    return kp_exp_c64(kp_cpmul_c64(b, kp_log_c64(a)));
}
