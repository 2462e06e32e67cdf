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

// The sign bit of x, -0.0 and NaN included (f32(x) keeps it; an f64 has no portable bitcast).
fn kp_signbit_T(x: T) -> bool {
    return (bitcast<u32>(f32(x)) & 0x80000000u) != 0u;
}

// -0 or +0, built from bits: optimisers fold arithmetic on zeros (0 * -1, 0 - x) without
// regard to its sign.
fn kp_signed_zero_T(negative: bool) -> T {
    return T(bitcast<f32>(select(0u, 0x80000000u, negative)));
}

// A quiet NaN, from bits: optimisers fold (a - a) / (b - b) to 0. Through a `let`: WebGPU
// rejects constant expressions that are not finite.
fn kp_nan_T() -> T {
    let bits = 0x7fc00000u;
    return T(bitcast<f32>(bits));
}

// kp_fmod_T (C fmod, exact) is generated beside this file: it differs per type.

// Python/NumPy remainder (npy_remainder): the sign of the divisor.
fn kp_remainder_T(a: T, b: T) -> T {
    var m = kp_fmod_T(a, b);
    if (b == T(0) || kp_isnan_T(m)) { return m; }
    if (m == T(0)) { return kp_signed_zero_T(kp_signbit_T(b)); }
    if ((b < T(0)) != (m < T(0))) { m = m + b; }
    return m;
}

// Python/NumPy floor division (npy_floor_divide / npy_divmod).
fn kp_floor_divide_T(a: T, b: T) -> T {
    if (b == T(0)) {
        if (a == T(0) || kp_isnan_T(a)) { return kp_nan_T(); }
        let inf_bits = 0x7f800000u;
        let inf = T(bitcast<f32>(inf_bits));
        return select(inf, -inf, kp_signbit_T(a) != kp_signbit_T(b));
    }
    let m = kp_fmod_T(a, b);
    if (kp_isnan_T(m)) { return m; }
    var d = (a - m) / b;
    if (m != T(0) && ((b < T(0)) != (m < T(0)))) { d = d - T(1); }
    if (d == T(0)) { return kp_signed_zero_T(kp_signbit_T(a) != kp_signbit_T(b)); }
    var f = KP_FLOOR(d);
    if (d - f > T(0.5)) { f = f + T(1); }
    return f;
}

// |a| with the sign bit of b (NaN's included).
fn kp_copysign_T(a: T, b: T) -> T {
    let m = abs(a);
    return select(m, -m, kp_signbit_T(b));
}
