// kupfer complex64 functions: kp_<name>_c64(z) for exp, log, log2, log10, sqrt, sin, cos,
// tan, sinh, cosh and tanh. A complex64 is a vec2<f32> (re, im). Built on
// the f32 libm (libm_f32.wgsl, which is searched together with this file for the functions a
// kernel needs). The complex128 forms (kp_<name>_c128 on libm_f64.wgsl) are this file with
// f32 read as f64 (kupfer-core's libm.rs writes them). The
// formulas are C99's (Annex G) for finite arguments: results match NumPy's complex64 to a few
// ulp of the larger part; exactly zero imaginary parts of real arguments stay zero.

// exp(x + iy) = e^x (cos y + i sin y), with glibc's special values (NumPy's complex exp is
// glibc's cexp): a zero y kept (exp(x + 0i) is real); +-inf x gives +-0 or inf parts signed
// as cos y and sin y, and NaN parts as C99 Annex G; a finite x past e^x's overflow is scaled
// as glibc does (e^89 cos 3 is finite in f32).
fn kp_exp_c64(z: vec2<f32>) -> vec2<f32> {
    let n = kp_cnan_f32();
    if (kp_cisnan_f32(z.x)) {
        return vec2<f32>(n, select(n, z.y, z.y == 0.0));
    }
    let y_finite = !(kp_cisnan_f32(z.y) || kp_cisinf_f32(z.y));
    if (kp_cisinf_f32(z.x)) {
        let v = select(z.x, 0.0, z.x < 0.0);
        if (!y_finite) {
            if (z.x < 0.0) {
                return vec2<f32>(0.0, kp_ccopysign_f32(0.0, z.y));
            }
            return vec2<f32>(z.x, n);
        }
        if (z.y == 0.0) {
            return vec2<f32>(v, z.y);
        }
        return vec2<f32>(kp_ccopysign_f32(v, kp_cos_f32(z.y)), kp_ccopysign_f32(v, kp_sin_f32(z.y)));
    }
    if (!y_finite) {
        return vec2<f32>(n, n);
    }
    // glibc's scaling: past t, e^t moves into cos y and sin y (once or twice) so that
    // e^x cos y is finite where it should be; beyond 3t the parts are MAX times those.
    var c = 1.0 + 0.0 * z.x;
    var s = z.y;
    if (z.y != 0.0) {
        c = kp_cos_f32(z.y);
        s = kp_sin_f32(z.y);
    }
    var x = z.x;
    let t = kp_cexp_cut_f32();
    if (x > t) {
        let et = kp_exp_f32(t);
        x = x - t;
        c = c * et;
        s = s * et;
        if (x > t) {
            x = x - t;
            c = c * et;
            s = s * et;
        }
    }
    if (x > t) {
        return vec2<f32>(kp_cmax_f32() * c, kp_cmax_f32() * s);
    }
    let e = kp_exp_f32(x);
    return vec2<f32>(e * c, e * s);
}

// log z = log|z| + i arg z. Near the unit circle (0.5 <= max(|x|, |y|) < 2, the other part
// below 1) log|z| is log1p((m - 1)(m + 1) + n^2) / 2, as glibc's clog: tiny but exact, where
// log(hypot) would round it to 0 and a large exponent would lose it ((1 - 3e-10j) ** 1e10).
fn kp_log_c64(z: vec2<f32>) -> vec2<f32> {
    // A NaN part: (inf + nan i) beside an infinite part, else nan + nan i (C99).
    if (kp_cisnan_f32(z.x) || kp_cisnan_f32(z.y)) {
        let n = kp_cnan_f32();
        if (kp_cisinf_f32(z.x) || kp_cisinf_f32(z.y)) {
            return vec2<f32>(kp_cinf_f32(), n);
        }
        return vec2<f32>(n, n);
    }
    let m = max(abs(z.x), abs(z.y));
    let n = min(abs(z.x), abs(z.y));
    var re = kp_log_f32(kp_hypot_f32(z.x, z.y));
    if (m >= 0.5 && m < 2.0 && n < 1.0) {
        re = 0.5 * kp_log1p_f32((m - 1.0) * (m + 1.0) + n * n);
    }
    return vec2<f32>(re, kp_arctan2_f32(z.y, z.x));
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

// C99 Annex G's product (GCC's __muldc3, which glibc's cpow multiplies b log a with): the
// plain formula, and where both parts come out NaN, infinities recovered from an infinite
// factor or an overflowed partial product.
fn kp_cmul_annexg_c64(z: vec2<f32>, w: vec2<f32>) -> vec2<f32> {
    var a = z.x;
    var b = z.y;
    var c = w.x;
    var d = w.y;
    let ac = a * c;
    let bd = b * d;
    let ad = a * d;
    let bc = b * c;
    let x = ac - bd;
    let y = ad + bc;
    if (!(kp_cisnan_f32(x) && kp_cisnan_f32(y))) {
        return vec2<f32>(x, y);
    }
    // 0 and 1 of the precision (a bare literal would be f32 in the f64 form).
    let unit = vec2<f32>(0.0, 1.0);
    var recalc = false;
    if (kp_cisinf_f32(a) || kp_cisinf_f32(b)) {
        a = kp_ccopysign_f32(select(unit.x, unit.y, kp_cisinf_f32(a)), a);
        b = kp_ccopysign_f32(select(unit.x, unit.y, kp_cisinf_f32(b)), b);
        if (kp_cisnan_f32(c)) { c = kp_ccopysign_f32(0.0, c); }
        if (kp_cisnan_f32(d)) { d = kp_ccopysign_f32(0.0, d); }
        recalc = true;
    }
    if (kp_cisinf_f32(c) || kp_cisinf_f32(d)) {
        c = kp_ccopysign_f32(select(unit.x, unit.y, kp_cisinf_f32(c)), c);
        d = kp_ccopysign_f32(select(unit.x, unit.y, kp_cisinf_f32(d)), d);
        if (kp_cisnan_f32(a)) { a = kp_ccopysign_f32(0.0, a); }
        if (kp_cisnan_f32(b)) { b = kp_ccopysign_f32(0.0, b); }
        recalc = true;
    }
    if (!recalc && (kp_cisinf_f32(ac) || kp_cisinf_f32(bd) || kp_cisinf_f32(ad) || kp_cisinf_f32(bc))) {
        if (kp_cisnan_f32(a)) { a = kp_ccopysign_f32(0.0, a); }
        if (kp_cisnan_f32(b)) { b = kp_ccopysign_f32(0.0, b); }
        if (kp_cisnan_f32(c)) { c = kp_ccopysign_f32(0.0, c); }
        if (kp_cisnan_f32(d)) { d = kp_ccopysign_f32(0.0, d); }
        recalc = true;
    }
    if (recalc) {
        let inf = kp_cinf_f32();
        return vec2<f32>(inf * (a * c - b * d), inf * (a * d + b * c));
    }
    return vec2<f32>(x, y);
}

// 1 / x as NumPy's complex division of 1 + 0i by x (Smith's algorithm with a reciprocal
// scale; a zero x gives inf + nan i). NumPy's (0 - r) and (r + 0) make a zero r +0; they are
// spelled out with select, because drivers fold x + 0 and 0 - x (signed zeros are not kept
// by their algebraic simplification). (1 + 0 r) s and (0 r - 1) s are s and -s: r is finite
// wherever s is.
fn kp_cprecip_c64(x: vec2<f32>) -> vec2<f32> {
    let abr = abs(x.x);
    let abi = abs(x.y);
    if (abr >= abi) {
        if (abr == 0.0 && abi == 0.0) {
            return vec2<f32>(kp_cinf_f32(), kp_cnan_f32());
        }
        let rat = x.y / x.x;
        let scl = 1.0 / (x.x + x.y * rat);
        return vec2<f32>(scl, select(-rat, abs(rat), rat == 0.0) * scl);
    }
    let rat = x.x / x.y;
    let scl = 1.0 / (x.y + x.x * rat);
    return vec2<f32>(select(rat, abs(rat), rat == 0.0) * scl, -scl);
}

// a ** b as NumPy's npy_cpow: 1 for a zero exponent; for a zero base 0 under an exponent of
// positive real part (0 ** (1-1j) is 0) and NaN under any other; a real integral exponent
// with |n| < 100 by repeated squaring with the plain product (exactly: (1+1j) ** 2 is 2j,
// (inf+0j) ** 2 is inf+nanj), a negative one inverted once at the end; otherwise glibc's
// cpow, exp(b log a) with the Annex G product (inf ** (-1-1j) is -0j).
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
            return kp_cpmul_c64(a, kp_cpmul_c64(a, a));
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
    return kp_exp_c64(kp_cmul_annexg_c64(b, kp_log_c64(a)));
}
