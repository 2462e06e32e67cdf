// NumPy-semantics helpers for one integer type T (i32, u32 or i64), instantiated by codegen.
// BITS is the width of T. Division by zero gives 0, as NumPy does (with its warning).

// The operands pass through an OR with the uniform zero (always 0): without it, Mesa's
// compiler narrows an i64 division of sign-extended i32 values and gets it wrong.
fn kp_opaque_T(x: T) -> T {
    return x | T(bitcast<u32>(P.zero));
}

// a / b truncated, for b != 0. The most negative a over -1 overflows (WGSL gives a, a
// software GPU's CPU division traps): negated with wrap-around instead, as NumPy wraps.
fn kp_trunc_div_T(a: T, b: T) -> T {
    if (b == ~T(0) && ~T(0) < T(0)) { return T(0) - a; }
    return a / b;
}

// Remainders are a - (a / b) * b, never `%`: GLSL (the GL backend) leaves `%` of negative
// operands undefined, and llvmpipe's differs from WGSL's.
fn kp_floor_divide_T(a0: T, b0: T) -> T {
    let a = kp_opaque_T(a0);
    let b = kp_opaque_T(b0);
    if (b == T(0)) { return T(0); }
    var q = kp_trunc_div_T(a, b);
    let r = a - q * b;
    if ((r != T(0)) && ((r < T(0)) != (b < T(0)))) { q = q - T(1); }
    return q;
}

fn kp_remainder_T(a0: T, b0: T) -> T {
    let a = kp_opaque_T(a0);
    let b = kp_opaque_T(b0);
    if (b == T(0)) { return T(0); }
    var r = a - kp_trunc_div_T(a, b) * b;
    if (r != T(0) && ((r < T(0)) != (b < T(0)))) { r = r + b; }
    return r;
}

// C's `%` (NumPy's fmod): the sign of the dividend; 0 for a zero divisor, as NumPy gives.
fn kp_fmod_T(a0: T, b0: T) -> T {
    let a = kp_opaque_T(a0);
    let b = kp_opaque_T(b0);
    if (b == T(0)) { return T(0); }
    return a - kp_trunc_div_T(a, b) * b;
}

// Exponentiation by squaring with wrap-around. A negative exponent (NumPy raises) gives the
// truncated result of 1/a**|b|: 1 for a == 1, ±1 for a == -1, 0 otherwise.
fn kp_power_T(a: T, b: T) -> T {
    if (b < T(0)) {
        if (a == T(1)) { return T(1); }
        if (a == ~T(0)) { return select(T(1), a, (b & T(1)) != T(0)); }
        return T(0);
    }
    var base = a;
    var e = b;
    var r = T(1);
    loop {
        if (e == T(0)) { break; }
        if ((e & T(1)) != T(0)) { r = r * base; }
        e = e / T(2);
        base = base * base;
    }
    return r;
}

fn kp_sign_T(x: T) -> T {
    return select(select(T(0), ~T(0), x < T(0)), T(1), x > T(0));
}

fn kp_left_shift_T(a0: T, b0: T) -> T {
    let a = kp_opaque_T(a0);
    let b = kp_opaque_T(b0);
    if (b < T(0) || b >= T(BITS)) { return T(0); }
    return a << u32(b);
}

fn kp_right_shift_T(a0: T, b0: T) -> T {
    let a = kp_opaque_T(a0);
    let b = kp_opaque_T(b0);
    if (b < T(0) || b >= T(BITS)) { return select(T(0), ~T(0), a < T(0)); }
    return a >> u32(b);
}

// Greatest common divisor of |a| and |b| by Euclid's algorithm (at most about 1.5 * BITS steps).
fn kp_gcd_T(a0: T, b0: T) -> T {
    let a = kp_opaque_T(a0);
    let b = kp_opaque_T(b0);
    var x = select(a, T(0) - a, a < T(0));
    var y = select(b, T(0) - b, b < T(0));
    loop {
        if (y == T(0)) { break; }
        let r = x % y;
        x = y;
        y = r;
    }
    return x;
}

// Least common multiple |a / gcd * b| (0 when either is 0).
fn kp_lcm_T(a: T, b: T) -> T {
    let g = kp_gcd_T(a, b);
    if (g == T(0)) { return T(0); }
    let l = (kp_opaque_T(a) / g) * b;
    return select(l, T(0) - l, l < T(0));
}
