// NumPy-semantics helpers for one float type T (f16, f32 or f64), instantiated by codegen.
// kp_isnan_T / kp_isinf_T are generated beside this file (their bit tests differ per type).

fn kp_maximum_T(a: T, b: T) -> T {
    if (kp_isnan_T(a)) { return a; }
    if (kp_isnan_T(b)) { return b; }
    return max(a, b);
}

fn kp_minimum_T(a: T, b: T) -> T {
    if (kp_isnan_T(a)) { return a; }
    if (kp_isnan_T(b)) { return b; }
    return min(a, b);
}

fn kp_fmax_T(a: T, b: T) -> T {
    if (kp_isnan_T(a)) { return b; }
    if (kp_isnan_T(b)) { return a; }
    return max(a, b);
}

fn kp_fmin_T(a: T, b: T) -> T {
    if (kp_isnan_T(a)) { return b; }
    if (kp_isnan_T(b)) { return a; }
    return min(a, b);
}

fn kp_sign_T(x: T) -> T {
    if (kp_isnan_T(x)) { return x; }
    // The zero is the uniform P.zero (always +0.0), not a constant: optimisers turn the constant
    // form into their sign instruction, which keeps the sign of -0.0 where NumPy gives +0.0.
    return select(select(T(P.zero), T(-1), x < T(0)), T(1), x > T(0));
}

// -0 or +0 with the sign of s.
fn kp_signed_zero_T(negative: bool) -> T {
    return T(0) * select(T(1), T(-1), negative);
}

// C fmod: a - b * trunc(a / b) with the sign of a. The fused multiply-add makes it exact
// whenever the quotient is below 2^(mantissa bits); one correction step covers a quotient
// that rounded across an integer.
fn kp_fmod_T(a: T, b: T) -> T {
    if (b == T(0) || kp_isinf_T(a) || kp_isnan_T(a) || kp_isnan_T(b)) {
        return (a - a) / (b - b);
    }
    if (kp_isinf_T(b)) { return a; }
    let ab = abs(b);
    var r = fma(-ab, trunc(abs(a) / ab), abs(a));
    if (r < T(0)) { r = r + ab; }
    if (r >= ab) { r = r - ab; }
    if (r == T(0)) { return kp_signed_zero_T(a < T(0)); }
    return select(r, -r, a < T(0));
}

// Python/NumPy remainder: the sign of the divisor.
fn kp_remainder_T(a: T, b: T) -> T {
    if (b == T(0)) { return kp_fmod_T(a, b); }
    var m = kp_fmod_T(a, b);
    if (m != T(0)) {
        if ((b < T(0)) != (m < T(0))) { m = m + b; }
    } else {
        m = kp_signed_zero_T(b < T(0));
    }
    return m;
}

// Python/NumPy floor division (npy_divmod).
fn kp_floor_divide_T(a: T, b: T) -> T {
    if (b == T(0)) { return a / b; }
    let m = kp_fmod_T(a, b);
    var d = (a - m) / b;
    if (m != T(0) && ((b < T(0)) != (m < T(0)))) { d = d - T(1); }
    if (d == T(0)) { return kp_signed_zero_T((a < T(0)) != (b < T(0))); }
    var f = floor(d);
    if (d - f > T(0.5)) { f = f + T(1); }
    return f;
}
