// Counter-based random numbers for generated kernels: Philox4x32-10 (Salmon et al., "Parallel
// random numbers: as easy as 1, 2, 3", SC 2011) and the transforms of kupfer's distributions.
// u32 arithmetic only (the high half of a 32x32 product from 16-bit halves), so every backend,
// WebGPU included, computes the same bits. The counter layout is documented in
// kupfer-core/src/random.rs; `k` is the 64-bit key, `d` the 64-bit draw number and `e` the
// element's index within the draw. kupfer_core::random holds a CPU reference of every function.

// The high 32 bits of the 64-bit product a * b, exact, from 16-bit halves (every backend).
// Kernels call `kp_mulhi`, which the code generator defines as this function or, on adapters
// with SHADER_INT64, as kp_mulhi_u64: the same bits either way (kupfer_core::random::library).
fn kp_mulhi_u16(a: u32, b: u32) -> u32 {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let mid = ((a0 * b0) >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
    return a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u);
}

// The high 32 bits of a * b with one widening 64-bit multiply (SHADER_INT64 adapters).
fn kp_mulhi_u64(a: u32, b: u32) -> u32 {
    return u32((u64(a) * u64(b)) >> 32u);
}

// One Philox4x32 round, then the key's Weyl bump. Kernels call `kp_philox_round`, which the
// code generator defines as this function or, on adapters with SHADER_INT64, as
// kp_philox_round_u64 (the same bits; kupfer_core::random::library).
fn kp_philox_round_mulhi(x: vec4<u32>, k: vec2<u32>) -> vec4<u32> {
    let hi0 = kp_mulhi(0xD2511F53u, x.x);
    let hi1 = kp_mulhi(0xCD9E8D57u, x.z);
    return vec4<u32>(hi1 ^ x.y ^ k.x, 0xCD9E8D57u * x.z, hi0 ^ x.w ^ k.y, 0xD2511F53u * x.x);
}

// One Philox4x32 round with each 32 x 32-bit product taken once as 64 bits (its high and low
// words from one widening multiply).
fn kp_philox_round_u64(x: vec4<u32>, k: vec2<u32>) -> vec4<u32> {
    let p0 = u64(0xD2511F53u) * u64(x.x);
    let p1 = u64(0xCD9E8D57u) * u64(x.z);
    return vec4<u32>(u32(p1 >> 32u) ^ x.y ^ k.x, u32(p1), u32(p0 >> 32u) ^ x.w ^ k.y, u32(p0));
}

// Philox4x32-10 of counter `c` under key `k` (ten rounds, unrolled: no loop budget spent).
fn kp_philox(c: vec4<u32>, k: vec2<u32>) -> vec4<u32> {
    let w = vec2<u32>(0x9E3779B9u, 0xBB67AE85u);
    var x = kp_philox_round(c, k);
    x = kp_philox_round(x, k + w);
    x = kp_philox_round(x, k + 2u * w);
    x = kp_philox_round(x, k + 3u * w);
    x = kp_philox_round(x, k + 4u * w);
    x = kp_philox_round(x, k + 5u * w);
    x = kp_philox_round(x, k + 6u * w);
    x = kp_philox_round(x, k + 7u * w);
    x = kp_philox_round(x, k + 8u * w);
    return kp_philox_round(x, k + 9u * w);
}

// The block holding element e's first word: counter (e / 4, 0, draw); e's word is lane e % 4.
fn kp_rng_block0(k: vec2<u32>, d: vec2<u32>, e: u32) -> vec4<u32> {
    return kp_philox(vec4<u32>(e >> 2u, 0u, d.x, d.y), k);
}

// Element e's own block j >= 1 (its words 4 (j - 1) + 1 ... 4 j): counter (e, j, draw).
fn kp_rng_block(k: vec2<u32>, d: vec2<u32>, e: u32, j: u32) -> vec4<u32> {
    return kp_philox(vec4<u32>(e, j, d.x, d.y), k);
}

// Lane `i` of a block (a runtime index into a value vector, spelled out for every compiler).
fn kp_lane(b: vec4<u32>, i: u32) -> u32 {
    return select(select(b.w, b.z, i == 2u), select(b.y, b.x, i == 0u), i < 2u);
}

// A float32 in [0, 1): the top 24 bits of w times 2^-24.
fn kp_u01_f32(w: u32) -> f32 {
    return f32(w >> 8u) * 5.9604644775390625e-8;
}

// A float32 in (0, 1]: (top 24 bits + 1) times 2^-24.
fn kp_u01_open_f32(w: u32) -> f32 {
    return f32((w >> 8u) + 1u) * 5.9604644775390625e-8;
}

// Lemire's unbiased bounded integer in [0, r) (r = 0 stands for 2^32) from the word w0 and,
// when w0 is rejected, element e's own blocks 1..16 (64 more words). The chance that all 65
// are rejected is below 2^-65; then the last candidate is kept.
fn kp_bounded(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, r: u32) -> u32 {
    if (r == 0u) {
        return w0;
    }
    // The threshold t = 2^32 mod r is below r: a low product of at least r is accepted
    // without computing it (the modulo runs with probability r / 2^32).
    if (w0 * r >= r) {
        return kp_mulhi(w0, r);
    }
    let t = (0u - r) % r;
    if (w0 * r >= t) {
        return kp_mulhi(w0, r);
    }
    var w = w0;
    for (var j = 1u; j <= 16u; j++) {
        let b = kp_rng_block(k, d, e, j);
        for (var i = 0u; i < 4u; i++) {
            w = kp_lane(b, i);
            if (w * r >= t) {
                return kp_mulhi(w, r);
            }
        }
    }
    return kp_mulhi(w, r);
}

// A float64 in [0, 1) from two words: ((a >> 5) 2^26 + (b >> 6)) 2^-53, as NumPy builds it.
fn kp_u01_f64(a: u32, b: u32) -> f64 {
    return (f64(a >> 5u) * 67108864.0lf + f64(b >> 6u)) * 1.1102230246251565e-16lf;
}

// The natural logarithm of a positive normal float32 for sampling (about 1 ulp; no special
// cases): x = 2^k m with m in [sqrt(1/2), sqrt(2)), f = m - 1, s = f / (2 + f),
// log(m) = f - f^2/2 + s (f^2/2 + R(s^2)) with libm_f32's R.
fn kp_ln_sample_f32(x: f32) -> f32 {
    let b = bitcast<u32>(x) + 0x004afb0du;  // 0x3f800000 - bits of sqrt(1/2)
    let k = f32(i32(b >> 23u) - 127);
    let m = bitcast<f32>((b & 0x007fffffu) + 0x3f3504f3u);
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    let r = z * (KPL32_LR0 + z * (KPL32_LR1 + z * KPL32_LR2));
    let hf = 0.5 * f * f;
    return (((s * (hf + r) + k * KPL32_LN2_LO) - hf) + f) + k * KPL32_LN2_HI;
}

// (cos, sin) of the angle 2 pi t / 2^24 of a 24-bit t (about 1 ulp): the quadrant comes from
// t's top bits and the remainder r in [-2^21, 2^21) scales exactly to [-pi/4, pi/4), so there
// is no range-reduction error; libm_f32's sine and cosine polynomials.
fn kp_sincos_turn24(t: u32) -> vec2<f32> {
    let qq = (t + 0x200000u) >> 22u;
    let x = f32(i32(t) - i32(qq << 22u)) * 3.7450702829239e-7;  // 2 pi / 2^24
    let z = x * x;
    let s = x + x * z * (KPL32_S0 + z * (KPL32_S1 + z * (KPL32_S2 + z * KPL32_S3)));
    let c = (1.0 - 0.5 * z) + z * z * (KPL32_C0 + z * (KPL32_C1 + z * KPL32_C2));
    let q = qq & 3u;
    let odd = (q & 1u) == 1u;
    let cs = select(c, s, odd);
    let sn = select(s, c, odd);
    return vec2<f32>(select(cs, -cs, q == 1u || q == 2u), select(sn, -sn, q >= 2u));
}

// The natural logarithm of a Box-Muller uniform u1 in (0, 1] (a positive normal float32),
// without a division: x = 2^k m with m in [sqrt(1/2), sqrt(2)), f = m - 1 (exact), ln(m) =
// f + f^2 S(f) with S a degree-7 minimax fit of (ln(1 + f) - f) / f^2 (relative error 3e-8;
// about 1.7 ulp evaluated in float32). k comes from an exact conversion and f is fenced:
// NVIDIA distributes a product over the subtraction of a constant ((v - c) w into
// fma(v, w, -(c w)), rounding the folded constant), which cancels badly where f is small.
fn kp_ln_unit_f32(x: f32) -> f32 {
    let b = bitcast<u32>(x) + 0x004afb0du;  // 0x3f800000 - bits of sqrt(1/2)
    let k = f32(i32(b >> 23u) - 127);
    let f = kpl32_opq(bitcast<f32>((b & 0x007fffffu) + 0x3f3504f3u) - 1.0);
    let s = -0.49999991059303284 + f * (0.33333948254585266 + f * (-0.2500174939632416
        + f * (0.1996210813522339 + f * (-0.1657068282365799 + f * (0.1491774320602417
        + f * (-0.14306095242500305 + f * 0.08733724057674408))))));
    return (f * f * s + f + k * KPL32_LN2_LO) + k * KPL32_LN2_HI;
}

// (cos, sin) of the angle 2 pi t / 2^24 of a 24-bit t: kp_sincos_turn24's exact quadrant
// reduction, the remainder converted exactly (a magic-number conversion, (bitcast(r + magic)
// - magic) 2 pi 2^-24, became fma(bitcast(r + magic), 2 pi 2^-24, -(magic 2 pi 2^-24)) on
// NVIDIA: up to 4117 ulp on normals near zero), minimax polynomials of degrees 7 (sine, 1.2 ulp) and 8 (cosine, 1.7 ulp) on
// [-pi/4, pi/4], and the quadrant's signs applied as sign-bit flips.
fn kp_sincos_turn24_lean(t: u32) -> vec2<f32> {
    let qq = (t + 0x200000u) >> 22u;
    let x = f32(bitcast<i32>(t - (qq << 22u))) * 3.7450702829239e-7;  // 2 pi / 2^24, exact
    let z = x * x;
    let s = x + x * z * (-0.16666655242443085 + z * (0.008332162164151669
        + z * -0.0001951544836629182));
    let c = (1.0 - 0.5 * z) + z * z * (0.04166664555668831 + z * (-0.0013887317618355155
        + z * 2.4433285943814553e-05));
    let odd = (qq & 1u) == 1u;
    let cs = bitcast<u32>(select(c, s, odd)) ^ (((qq + 1u) << 30u) & 0x80000000u);
    let sn = bitcast<u32>(select(s, c, odd)) ^ ((qq << 30u) & 0x80000000u);
    return vec2<f32>(bitcast<f32>(cs), bitcast<f32>(sn));
}

// Box-Muller on the words a (u1 = ((a >> 8) + 1) 2^-24 in (0, 1]) and b (u2 = (b >> 8) 2^-24):
// (r cos(2 pi u2), r sin(2 pi u2)) with r = sqrt(-2 ln u1), through the lean logarithm and
// sine/cosine above (KUPFER_RANDN=lean; kp_normal_pair_f32, below, is the default).
fn kp_normal_pair_lean_f32(a: u32, b: u32) -> vec2<f32> {
    let r = sqrt(-2.0 * kp_ln_unit_f32(kp_u01_open_f32(a)));
    return r * kp_sincos_turn24_lean(b >> 8u);
}

// One element of a Box-Muller pair: the cosine branch, or the sine branch when `odd`.
fn kp_normal_lean_f32(a: u32, b: u32, odd: bool) -> f32 {
    let p = kp_normal_pair_lean_f32(a, b);
    return select(p.x, p.y, odd);
}

// The four normals of a block (lanes x, y and z, w are the two pairs).
fn kp_normal4_lean_f32(b: vec4<u32>) -> vec4<f32> {
    return vec4<f32>(kp_normal_pair_lean_f32(b.x, b.y), kp_normal_pair_lean_f32(b.z, b.w));
}

// The Box-Muller form whose float32 results are the same bits on every driver
// (KUPFER_RANDN=fenced, the default): the lean polynomials below with every product that is
// added fenced (kpl32_opq: no compiler can contract it into a fused multiply-add, so every
// driver rounds the product, then the sum, as IEEE float32 does), no division, and the square
// root rounded correctly by an exact u32 test of the driver's root. Only +, -, * (correctly
// rounded in WGSL) and bit operations decide the value: kupfer_core::random::normal_pair_fenced
// is its CPU emulation, bit for bit.

// ln(x) of a Box-Muller uniform x in (0, 1]: kp_ln_unit_f32's fit, fenced (the products that
// are added, and the partial sums, which a compiler could otherwise regroup).
fn kp_ln_unit_fenced_f32(x: f32) -> f32 {
    let b = bitcast<u32>(x) + 0x004afb0du;  // 0x3f800000 - bits of sqrt(1/2)
    // k by an exact conversion and f fenced: NVIDIA distributes a product over a subtraction
    // of a constant ((v - c) w -> fma(v, w, -(c w)), rounding the folded constant).
    let k = f32(i32(b >> 23u) - 127);
    let f = kpl32_opq(bitcast<f32>((b & 0x007fffffu) + 0x3f3504f3u) - 1.0);
    var s = kpl32_opq(f * 0.08733724057674408) - 0.14306095242500305;
    s = kpl32_opq(f * s) + 0.1491774320602417;
    s = kpl32_opq(f * s) - 0.1657068282365799;
    s = kpl32_opq(f * s) + 0.1996210813522339;
    s = kpl32_opq(f * s) - 0.2500174939632416;
    s = kpl32_opq(f * s) + 0.33333948254585266;
    s = kpl32_opq(f * s) - 0.49999991059303284;
    let lo = kpl32_opq(kpl32_opq((f * f) * s) + f) + kpl32_opq(k * KPL32_LN2_LO);
    return kpl32_opq(lo) + k * KPL32_LN2_HI;  // k LN2_HI is exact: fused or not, one rounding
}

// sqrt(y) of y >= 0, correctly rounded: the driver's root r0 = m 2^(e - 150) (WGSL only
// bounds its error) moved by an ulp where the square of the midpoint (2 m +- 1) 2^(e - 151)
// next to it says so, compared with y = ym 2^(ey - 150) = (ym << s) 2^(2 e - 302) in wrapping
// u32 arithmetic: d = (2 m)^2 + 1 - (ym << s) is below 2^28 in magnitude for a root within an
// ulp, so its low 32 bits are d; (2 m + 1)^2 <= ym << s exactly when d <= -4 m, and
// (2 m - 1)^2 > ym << s when d > 4 m. At a power of two (m = 2^23: (2 m)^2 wraps to 0) the
// midpoint below is a quarter ulp away: (4 m - 1)^2 > 4 (ym << s), i.e. 4 d - 3 > 8 m.
fn kp_sqrt_rounded_f32(y: f32) -> f32 {
    let r0 = sqrt(y);
    let rb = bitcast<u32>(r0);
    let yb = bitcast<u32>(y);
    let m = (rb & 0x7fffffu) | 0x800000u;
    let s = (yb >> 23u) + 152u - 2u * (rb >> 23u);  // 24 to 27 for a root within an ulp
    let d = bitcast<i32>(4u * m * m + 1u - (((yb & 0x7fffffu) | 0x800000u) << s));
    let w = bitcast<i32>(4u * m);
    let above = d <= -w;
    let below = select(d > w, 4 * d - 3 > 2 * w, m == 0x800000u);
    let fixed = bitcast<f32>(rb + select(0u, 1u, above) - select(0u, 1u, below));
    return select(fixed, r0, !(y > 0.0));
}

// (cos, sin) of the angle 2 pi t / 2^24 of a 24-bit t: kp_sincos_turn24_lean, fenced.
fn kp_sincos_turn24_fenced(t: u32) -> vec2<f32> {
    let qq = (t + 0x200000u) >> 22u;
    // The remainder by an exact conversion, not a magic number: NVIDIA turned
    // (bitcast(r + magic) - magic) * c into fma(bitcast(r + magic), c, -(magic c)), whose
    // folded constant's rounding put up to 4117 ulp on normals near zero.
    let x = f32(bitcast<i32>(t - (qq << 22u))) * 3.7450702829239e-7;  // 2 pi / 2^24
    let z = x * x;
    let sp = kpl32_opq(z * (kpl32_opq(z * -0.0001951544836629182) + 0.008332162164151669))
        - 0.16666655242443085;
    let s = kpl32_opq((x * z) * sp) + x;
    let cp = kpl32_opq(z * (kpl32_opq(z * 2.4433285943814553e-05) - 0.0013887317618355155))
        + 0.04166664555668831;
    let c = kpl32_opq((z * z) * cp) + kpl32_opq(1.0 - 0.5 * z);
    let odd = (qq & 1u) == 1u;
    let cs = bitcast<u32>(select(c, s, odd)) ^ (((qq + 1u) << 30u) & 0x80000000u);
    let sn = bitcast<u32>(select(s, c, odd)) ^ ((qq << 30u) & 0x80000000u);
    return vec2<f32>(bitcast<f32>(cs), bitcast<f32>(sn));
}

// Box-Muller on the words a (u1 in (0, 1]) and b (u2), in the fenced form.
fn kp_normal_pair_fenced_f32(a: u32, b: u32) -> vec2<f32> {
    let r = kp_sqrt_rounded_f32(-2.0 * kp_ln_unit_fenced_f32(kp_u01_open_f32(a)));
    return r * kp_sincos_turn24_fenced(b >> 8u);
}

fn kp_normal_fenced_f32(a: u32, b: u32, odd: bool) -> f32 {
    let p = kp_normal_pair_fenced_f32(a, b);
    return select(p.x, p.y, odd);
}

fn kp_normal4_fenced_f32(b: vec4<u32>) -> vec4<f32> {
    return vec4<f32>(kp_normal_pair_fenced_f32(b.x, b.y), kp_normal_pair_fenced_f32(b.z, b.w));
}

// The default Box-Muller form: libm_f32's logarithm with its division and the libm's sine
// and cosine polynomials (relative accuracy near zero too; gamma and von Mises use it).
fn kp_normal_pair_f32(a: u32, b: u32) -> vec2<f32> {
    let r = sqrt(-2.0 * kp_ln_sample_f32(kp_u01_open_f32(a)));
    return r * kp_sincos_turn24(b >> 8u);
}

fn kp_normal_f32(a: u32, b: u32, odd: bool) -> f32 {
    let p = kp_normal_pair_f32(a, b);
    return select(p.x, p.y, odd);
}

fn kp_normal4_f32(b: vec4<u32>) -> vec4<f32> {
    return vec4<f32>(kp_normal_pair_f32(b.x, b.y), kp_normal_pair_f32(b.z, b.w));
}

// The four float32 uniforms in [0, 1) of a block.
fn kp_u01x4_f32(b: vec4<u32>) -> vec4<f32> {
    return vec4<f32>(b >> vec4<u32>(8u)) * 5.9604644775390625e-8;
}

// The four float32 uniforms in (0, 1) of a block.
fn kp_u01_midx4_f32(b: vec4<u32>) -> vec4<f32> {
    return (vec4<f32>(b >> vec4<u32>(9u)) + 0.5) * 1.1920928955078125e-7;
}

// Box-Muller in float64: u1 from the words w0 and x.x, u2 from x.y and x.z (x: the element's
// block 1); the cosine branch.
fn kp_normal_f64(w0: u32, x: vec4<u32>) -> f64 {
    let u1 = 1.0lf - kp_u01_f64(w0, x.x);
    let u2 = kp_u01_f64(x.y, x.z);
    return sqrt(-2.0lf * kp_log_f64(u1)) * kp_cos_f64(6.283185307179586lf * u2);
}

// The per-precision words-to-values helpers that random_float.wgsl calls (its float32 form
// calls the _f32 ones, its float64 form the _f64 ones; the float64 ones use 32-bit words).

// A uniform in [0, 1) of one word: float32 kp_u01_f32; float64 w 2^-32.
fn kp_u01w_f32(w: u32) -> f32 {
    return kp_u01_f32(w);
}

fn kp_u01w_f64(w: u32) -> f64 {
    return f64(w) * 2.3283064365386963e-10lf;
}

// A uniform in (0, 1] of one word: float64 (w + 1) 2^-32.
fn kp_u01_open_f64(w: u32) -> f64 {
    return (f64(w) + 1.0lf) * 2.3283064365386963e-10lf;
}

// The logarithm the samplers take (float64: the libm's).
fn kp_ln_sample_f64(x: f64) -> f64 {
    return kp_log_f64(x);
}

// cos(pi U) for the uniform U in [0, 1) of a word: float32 through the turn's quadrant form of
// its top 23 bits, float64 through the libm.
fn kp_cos_pi_unit_f32(w: u32) -> f32 {
    return kp_sincos_turn24(w >> 9u).x;
}

fn kp_cos_pi_unit_f64(w: u32) -> f64 {
    return kp_cos_f64(3.141592653589793lf * kp_u01w_f64(w));
}

// Box-Muller in float64 on the words a (u1 in (0, 1]) and b (u2 in [0, 1)): a pair of normals.
fn kp_normal_pair_f64(a: u32, b: u32) -> vec2<f64> {
    let r = sqrt(-2.0lf * kp_log_f64(kp_u01_open_f64(a)));
    let t = 6.283185307179586lf * kp_u01w_f64(b);
    return r * vec2<f64>(kp_cos_f64(t), kp_sin_f64(t));
}

// The uniform in (0, 1) of one word that random_float.wgsl's float32 transforms take: the
// open float32 uniform ((w >> 9) + 1/2) 2^-23.
fn kp_unit_f32(w: u32) -> f32 {
    return kp_u01_mid_f32(w);
}

// The uniform in (0, 1) of one word that random_float.wgsl's float64 transforms take:
// (w + 1/2) 2^-32 (exact).
fn kp_unit_f64(w: u32) -> f64 {
    return (f64(w) + 0.5lf) * 2.3283064365386963e-10lf;
}

// A float32 in (0, 1), never 0 or 1: ((w >> 9) + 1/2) 2^-23 (exact: 24 significant bits).
fn kp_u01_mid_f32(w: u32) -> f32 {
    return (f32(w >> 9u) + 0.5) * 1.1920928955078125e-7;
}

// A float64 in (0, 1): ((a >> 6) 2^26 + (b >> 6) + 1/2) 2^-52 (exact: 53 significant bits).
fn kp_u01_mid_f64(a: u32, b: u32) -> f64 {
    return (f64(a >> 6u) * 67108864.0lf + f64(b >> 6u) + 0.5lf) * 2.220446049250313e-16lf;
}

// A 32-bit mixing function (xor-shift-multiply, constants of C. Wellons's "lowbias32").
fn kp_mix32(x: u32) -> u32 {
    var h = x;
    h = (h ^ (h >> 16u)) * 0x7feb352du;
    h = (h ^ (h >> 15u)) * 0x846ca68bu;
    return h ^ (h >> 16u);
}

// A bijection of [0, 4^h): a balanced four-round Feistel network on two h-bit halves whose
// round function is kp_mix32 of the right half xor the round key.
fn kp_feistel(x: u32, h: u32, rk: vec4<u32>) -> u32 {
    let mask = (1u << h) - 1u;
    var l = x >> h;
    var r = x & mask;
    var t = l ^ (kp_mix32(r ^ rk.x) & mask);
    l = r;
    r = t;
    t = l ^ (kp_mix32(r ^ rk.y) & mask);
    l = r;
    r = t;
    t = l ^ (kp_mix32(r ^ rk.z) & mask);
    l = r;
    r = t;
    t = l ^ (kp_mix32(r ^ rk.w) & mask);
    return (r << h) | t;
}

// Permutations of [0, n) up to this size rank random 64-bit keys (exactly uniform); larger
// ones walk a Feistel bijection (uniform parity, but not every permutation is reachable).
const KP_RANK_MAX: u32 = 64u;

// Element e of a random permutation of [0, n). n <= KP_RANK_MAX: the rank of e's key among
// the n keys. Otherwise the Feistel bijection of the smallest [0, 4^h) holding n, keyed by the
// Philox block at counter (0, 2^32 - 1, draw), walked along its cycle until it lands below n
// (cycle walking: a bijection of [0, n)).
fn kp_permute(k: vec2<u32>, d: vec2<u32>, e: u32, n: u32) -> u32 {
    if (n <= KP_RANK_MAX) {
        return kp_permute_rank(k, d, 0u, e, n);
    }
    return kp_cycle_walk(kp_philox(vec4<u32>(0u, 0xffffffffu, d.x, d.y), k), e, n);
}

// The rank of element j's 64-bit key among the keys of elements 0..n (ties by index), the key
// of element i being words x, y of the block at counter (base + i, 2^32 - 3, draw): the ranks of
// i.i.d. keys are a uniformly random permutation (n <= KP_RANK_MAX: n Philox blocks each).
fn kp_permute_rank(k: vec2<u32>, d: vec2<u32>, base: u32, j: u32, n: u32) -> u32 {
    let kj = kp_philox(vec4<u32>(base + j, 0xfffffffdu, d.x, d.y), k);
    var rank = 0u;
    for (var i = 0u; i < n; i++) {
        let ki = kp_philox(vec4<u32>(base + i, 0xfffffffdu, d.x, d.y), k);
        let less = ki.x < kj.x || (ki.x == kj.x && (ki.y < kj.y || (ki.y == kj.y && i < j)));
        rank += select(0u, 1u, less);
    }
    return rank;
}

// Element j of the keyed permutation of [0, n) under round keys rk (n > 1). A balanced
// Feistel network only makes even permutations, so positions 0 and 1 are first swapped when
// a key bit says so: the parity is uniform. Each walk step lands below n with probability
// above 1/4; 512 steps bound the walk (all outside: probability below 1e-63).
fn kp_cycle_walk(rk: vec4<u32>, j: u32, n: u32) -> u32 {
    if (n <= 1u) {
        return 0u;
    }
    let bits = 32u - countLeadingZeros(n - 1u);
    let h = (bits + 1u) / 2u;
    var x = select(j, j ^ 1u, j < 2u && (kp_mix32(rk.x ^ rk.w) & 1u) == 1u);
    for (var i = 0u; i < 512u; i++) {
        x = kp_feistel(x, h, rk);
        if (x < n) {
            break;
        }
    }
    return x;
}

// Element e of a draw of independent random permutations of [0, n), one per row of n
// elements (`permuted` along an axis): row r = e / n takes the rank method (n <= KP_RANK_MAX,
// keys of elements r n + i) or the walk keyed by the block at counter (r, 2^32 - 2, draw).
fn kp_permute_rows(k: vec2<u32>, d: vec2<u32>, e: u32, n: u32) -> u32 {
    let row = e / max(n, 1u);
    let j = e - row * n;
    if (n <= KP_RANK_MAX) {
        return kp_permute_rank(k, d, row * n, j, n);
    }
    let rk = kp_philox(vec4<u32>(row, 0xfffffffeu, d.x, d.y), k);
    return kp_cycle_walk(rk, j, n);
}


// Ziggurat (Marsaglia and Tsang, "The ziggurat method for generating random variables", 2000):
// the default float32 normals (16384 layers by default, KUPFER_ZIG_NORMAL32: L = 4096, 8192 or
// 16384) and exponentials (256 layers), the same bits on
// every driver. The tables (kupfer_core::random::ziggurat, computed on the host in float64 and
// rounded) are read through accessors that the code generator appends with the tables
// behind them (by default a read-only storage buffer bound to the kernel, one copy per
// device; KUPFER_ZIG_TABLES=private: module-scope var<private> arrays of exact bits):
// kp_zig_n32_fast(i) = (K_i, W_i) with W_i = x_i 2^-b (x_i: layer i's width; b = 32 - log2 L,
// 18 for 16384 layers) and K_i = floor(2^b x_{i+1} / x_i); kp_zig_n32_slow(i) = (f(x_i),
// f(x_{i+1}) - f(x_i)); the generator appends the layout's constants KP_ZIG_N32_MASK = L - 1,
// KP_ZIG_N32_SHIFT = log2 L and KP_ZIG_N32_HALF = 2^b, and the tail's KP_ZIG_N32_R;
// kp_zig_e32_* likewise with 2^-24 and 2^24 (the bits a word has besides its layer's).
// The fast path is exact by construction: an integer converted exactly, ONE multiply by a
// table value (correctly rounded), the acceptance test in integers. The slow path (wedge,
// tail) fences every product that is added, so it too rounds the same on every driver; its
// words come from the element's own blocks (counter (e, j, draw), j = 1..17), which the fast
// path (block 0) never reads. kupfer_core::random::ziggurat emulates both on the CPU.

// exp(-h) for h >= -88.73, fenced: n = round(h / ln 2), r = n ln 2 - h in [-ln 2 / 2, ln 2 / 2]
// (n ln2_hi exact for |n| <= 512), the degree-7 Taylor polynomial of exp(r) (relative error
// below 6e-9) by Horner with every product fenced, times 2^-clamp(n, -100, 100) and then
// 2^-(n - that) (exact but for a result below 2^-126, which a driver may flush to zero, and
// one above the largest float, infinite); 0 beyond h = 104.
fn kp_exp_neg_fenced_f32(h: f32) -> f32 {
    if (!(h <= 104.0)) {
        return select(0.0, h, h != h);
    }
    let n = floor(kpl32_opq(h * 1.4426950408889634) + 0.5);
    let r = kpl32_opq(kpl32_opq(n * KPL32_LN2_HI) - h) + kpl32_opq(n * KPL32_LN2_LO);
    var p = kpl32_opq(r * 0.0001984126984126984) + 0.001388888888888889;
    p = kpl32_opq(r * p) + 0.008333333333333333;
    p = kpl32_opq(r * p) + 0.041666666666666664;
    p = kpl32_opq(r * p) + 0.16666666666666666;
    p = kpl32_opq(r * p) + 0.5;
    p = kpl32_opq(r * p) + 1.0;
    p = kpl32_opq(r * p) + 1.0;
    let n1 = clamp(i32(n), -100, 100);
    let scaled = kpl32_opq(p * bitcast<f32>(u32(127 - n1) << 23u));
    return scaled * bitcast<f32>(u32(127 - (i32(n) - n1)) << 23u);
}

// The fast path of a normal from one word w: layer i = w & KP_ZIG_N32_MASK (16384 layers: the
// low 14 bits), the odd integer s = 2 (w >> KP_ZIG_N32_SHIFT) + 1 - KP_ZIG_N32_HALF (16384
// layers: in (-2^18, 2^18), sign and 17-bit magnitude, exact in float32), x = s W_i (fenced, so
// that an expression fused with the draw cannot contract it); accepted when |s| < K_i (16384
// layers: 0.03% of words are not; 4096: 0.12%); (x, accepted, i, s).
fn kp_zig_normal_try_f32(w: u32) -> vec4<f32> {
    let i = w & KP_ZIG_N32_MASK;
    let s = bitcast<i32>(((w >> KP_ZIG_N32_SHIFT) << 1u) | 1u) - KP_ZIG_N32_HALF;
    let t = kp_zig_n32_fast(i);
    let x = kpl32_opq(f32(s) * bitcast<f32>(t.y));
    let fast = u32(abs(s)) < t.x;
    return vec4<f32>(x, select(0.0, 1.0, fast), f32(i), f32(s));
}

// The slow path of element e's normal whose fast try (layer i, odd integer s, value x) was
// rejected: the wedge test against the fenced exp(-x^2 / 2), or Marsaglia's tail beyond r
// (x = -ln(U1) / r, y = -ln(U2) until 2 y > x^2, then r + x with s's sign); a rejected wedge
// draws the next try (of the same layers) from the same block. Attempt j reads the element's own block j; past
// 16 (probability below 1e-34) the fenced Box-Muller normal of block 17.
fn kp_zig_normal_slow_f32(k: vec2<u32>, d: vec2<u32>, e: u32, first: vec4<f32>) -> f32 {
    var x = first.x;
    var i = u32(first.z);
    var s = first.w;
    var tail = i == 0u;
    for (var j = 1u; j <= 16u; j++) {
        let blk = kp_rng_block(k, d, e, j);
        if (tail) {
            let tx = kpl32_opq(kp_ln_unit_fenced_f32(kp_u01_open_f32(blk.x)) * KP_ZIG_N32_NEG_RINV);
            let ty = -kp_ln_unit_fenced_f32(kp_u01_open_f32(blk.y));
            if (ty + ty > kpl32_opq(tx * tx)) {
                let v = tx + KP_ZIG_N32_R;
                return select(v, -v, s < 0.0);
            }
            continue;
        }
        let sl = kp_zig_n32_slow(i);
        let h = kpl32_opq(0.5 * kpl32_opq(x * x));
        let y = kpl32_opq(kp_u01_f32(blk.x) * bitcast<f32>(sl.y)) + bitcast<f32>(sl.x);
        if (y < kp_exp_neg_fenced_f32(h)) {
            return x;
        }
        let t = kp_zig_normal_try_f32(blk.y);
        if (t.y == 1.0) {
            return t.x;
        }
        x = t.x;
        i = u32(t.z);
        s = t.w;
        tail = i == 0u;
    }
    let last = kp_rng_block(k, d, e, 17u);
    return kp_normal_pair_fenced_f32(last.x, last.y).x;
}

// Element e's standard normal from its word 0 (w): the ziggurat's fast path, else its slow path.
fn kp_normal_zig_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w: u32) -> f32 {
    let t = kp_zig_normal_try_f32(w);
    if (t.y == 1.0) {
        return t.x;
    }
    return kp_zig_normal_slow_f32(k, d, e, t);
}

// Lane l of four values, by selects (no array indexed at run time: a driver would keep
// such an array in per-thread memory).
fn kp_pick4_f32(t0: vec4<f32>, t1: vec4<f32>, t2: vec4<f32>, t3: vec4<f32>, l: u32) -> vec4<f32> {
    return select(select(t0, t1, l == 1u), select(t2, t3, l == 3u), l >= 2u);
}

// v with lane l replaced by x, by a select.
fn kp_put4_f32(v: vec4<f32>, l: u32, x: f32) -> vec4<f32> {
    return select(v, vec4<f32>(x), vec4<u32>(0u, 1u, 2u, 3u) == vec4<u32>(l));
}

// The four normals of the elements e0 .. e0 + 3 whose block 0 is b: four fast tries, then the
// slow path for the rejected ones.
fn kp_normal4_zig_f32(k: vec2<u32>, d: vec2<u32>, e0: u32, b: vec4<u32>) -> vec4<f32> {
    let t0 = kp_zig_normal_try_f32(b.x);
    let t1 = kp_zig_normal_try_f32(b.y);
    let t2 = kp_zig_normal_try_f32(b.z);
    let t3 = kp_zig_normal_try_f32(b.w);
    var v = vec4<f32>(t0.x, t1.x, t2.x, t3.x);
    // The rejected lanes, taken one per iteration: a thread with one of them (most) runs
    // the slow code once, in step with the other threads of its warp.
    var pending = select(0u, 1u, t0.y == 0.0) | select(0u, 2u, t1.y == 0.0)
        | select(0u, 4u, t2.y == 0.0) | select(0u, 8u, t3.y == 0.0);
    for (var it = 0u; it < 4u && pending != 0u; it++) {
        let l = countTrailingZeros(pending);
        pending &= pending - 1u;
        let x = kp_zig_normal_slow_f32(k, d, e0 + l, kp_pick4_f32(t0, t1, t2, t3, l));
        v = kp_put4_f32(v, l, x);
    }
    return v;
}

// The fast path of an exponential from one word w: layer i = w & 255, the integer
// m = w >> 8 (exact in float32), x = m W_i; (x, accepted, i, 0).
fn kp_zig_exp_try_f32(w: u32) -> vec4<f32> {
    let i = w & 255u;
    let m = w >> 8u;
    let t = kp_zig_e32_fast(i);
    let x = kpl32_opq(f32(m) * bitcast<f32>(t.y));
    return vec4<f32>(x, select(0.0, 1.0, m < t.x), f32(i), 0.0);
}

// The slow path of element e's exponential whose fast try was rejected: in layer 0 the tail,
// r plus a fresh exponential (memoryless: r is added and the draw starts again), else the
// wedge test against the fenced exp(-x); a rejected wedge draws again. Attempt j reads the
// element's own block j; past 16, -ln U of block 17 (fenced) plus the tails taken.
fn kp_zig_exp_slow_f32(k: vec2<u32>, d: vec2<u32>, e: u32, first: vec4<f32>) -> f32 {
    var x = first.x;
    var i = u32(first.z);
    var off = 0.0;
    for (var j = 1u; j <= 16u; j++) {
        let blk = kp_rng_block(k, d, e, j);
        var w = blk.x;
        if (i == 0u) {
            off = off + KP_ZIG_E32_R;
        } else {
            let sl = kp_zig_e32_slow(i);
            let y = kpl32_opq(kp_u01_f32(blk.x) * bitcast<f32>(sl.y)) + bitcast<f32>(sl.x);
            if (y < kp_exp_neg_fenced_f32(x)) {
                return x + off;
            }
            w = blk.y;
        }
        let t = kp_zig_exp_try_f32(w);
        if (t.y == 1.0) {
            return t.x + off;
        }
        x = t.x;
        i = u32(t.z);
    }
    let last = kp_rng_block(k, d, e, 17u);
    return kpl32_opq(-kp_ln_unit_fenced_f32(kp_u01_open_f32(last.x))) + off;
}

// Element e's standard exponential from its word 0 (w).
fn kp_exponential_zig_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w: u32) -> f32 {
    let t = kp_zig_exp_try_f32(w);
    if (t.y == 1.0) {
        return t.x;
    }
    return kp_zig_exp_slow_f32(k, d, e, t);
}

// The four exponentials of the elements e0 .. e0 + 3 whose block 0 is b.
fn kp_exponential4_zig_f32(k: vec2<u32>, d: vec2<u32>, e0: u32, b: vec4<u32>) -> vec4<f32> {
    let t0 = kp_zig_exp_try_f32(b.x);
    let t1 = kp_zig_exp_try_f32(b.y);
    let t2 = kp_zig_exp_try_f32(b.z);
    let t3 = kp_zig_exp_try_f32(b.w);
    var v = vec4<f32>(t0.x, t1.x, t2.x, t3.x);
    // The rejected lanes, taken one per iteration: a thread with one of them (most) runs
    // the slow code once, in step with the other threads of its warp.
    var pending = select(0u, 1u, t0.y == 0.0) | select(0u, 2u, t1.y == 0.0)
        | select(0u, 4u, t2.y == 0.0) | select(0u, 8u, t3.y == 0.0);
    for (var it = 0u; it < 4u && pending != 0u; it++) {
        let l = countTrailingZeros(pending);
        pending &= pending - 1u;
        let x = kp_zig_exp_slow_f32(k, d, e0 + l, kp_pick4_f32(t0, t1, t2, t3, l));
        v = kp_put4_f32(v, l, x);
    }
    return v;
}

// loc + scale z with the product fenced, so that no driver contracts it into a fused
// multiply-add (normal(loc, scale)): the product and the sum each rounded once everywhere.
// An infinite or NaN product bypasses the fence (min would clamp it; fused or not, the sum
// of an infinite product is the same).
fn kp_affine_f32(z: f32, loc: f32, scale: f32) -> f32 {
    let p = scale * z;
    return select(kpl32_opq(p), p, !(abs(p) <= KPL32_MAX)) + loc;
}

fn kp_affine_f64(z: f64, loc: f64, scale: f64) -> f64 {
    let p = scale * z;
    return select(kpl64_opq(p), p, !(abs(p) <= KPL64_MAX)) + loc;
}

// The deterministic helpers of the samplers in random_float.wgsl, per precision (the float64
// form of random_float.wgsl calls the _f64 ones). float32: fenced or built from exact integer
// operations and fenced Newton steps, so every driver computes the same bits (not correctly
// rounded, but the same). float64: the libm (not yet the same bits on every driver).

// x, hidden from contraction into a fused multiply-add.
fn kp_opq_f32(x: f32) -> f32 {
    return kpl32_opq(x);
}

fn kp_opq_f64(x: f64) -> f64 {
    return kpl64_opq(x);
}

// Whether x is NaN: float32 by its bits (lavapipe folds x != x to false for float32),
// float64 as libm_f64 tests it.
fn kp_rand_isnan_f32(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}

fn kp_rand_isnan_f64(x: f64) -> bool {
    return !(x == x);
}

// ln x of a positive normal x (kp_ln_unit_fenced_f32's reduction holds for any exponent).
fn kp_ln_det_f32(x: f32) -> f32 {
    return kp_ln_unit_fenced_f32(x);
}

fn kp_ln_det_f64(x: f64) -> f64 {
    return kp_log_f64(x);
}

// exp(-h) for h >= 0.
fn kp_exp_neg_det_f32(h: f32) -> f32 {
    return kp_exp_neg_fenced_f32(h);
}

fn kp_exp_neg_det_f64(h: f64) -> f64 {
    return kp_exp_f64(-h);
}

// 1 / a for a positive normal a: an integer first guess (relative error below 1/8), then
// four fenced Newton steps y (2 - a y).
fn kp_recip_det_f32(a: f32) -> f32 {
    var y = bitcast<f32>(0x7ef311c3u - bitcast<u32>(a));
    for (var i = 0u; i < 4u; i++) {
        y = y * (2.0 - kpl32_opq(a * y));
    }
    return y;
}

fn kp_recip_det_f64(a: f64) -> f64 {
    return 1.0lf / a;
}

// 1 / sqrt(x) for a positive normal x: the integer first guess (relative error below 4%),
// then four fenced Newton steps y (3/2 - (x/2) y^2).
fn kp_rsqrt_det_f32(x: f32) -> f32 {
    var y = bitcast<f32>(0x5f3759dfu - (bitcast<u32>(x) >> 1u));
    let h = kpl32_opq(0.5 * x);
    for (var i = 0u; i < 4u; i++) {
        y = y * (1.5 - kpl32_opq(kpl32_opq(h * y) * y));
    }
    return y;
}

fn kp_rsqrt_det_f64(x: f64) -> f64 {
    return 1.0lf / sqrt(x);
}

// A pair of standard normals from the words a and b: the fenced Box-Muller form in float32.
fn kp_normal_pair_det_f32(a: u32, b: u32) -> vec2<f32> {
    return kp_normal_pair_fenced_f32(a, b);
}

fn kp_normal_pair_det_f64(a: u32, b: u32) -> vec2<f64> {
    return kp_normal_pair_f64(a, b);
}

// The float64 ziggurats (accessors kp_zig_n64_fast(i) = (K_i, W_i) with
// K_i = floor(2^52 x_{i+1} / x_i) < 2^52, exact in float64, and W_i = x_i 2^-52;
// kp_zig_n64_slow(i) = (f(x_i), f(x_{i+1}) - f(x_i)); kp_zig_e64_* likewise). The
// candidate's integer (below 2^53) converts exactly, so comparing its float64 with K_i is
// the integer test.
// Element e's candidate takes 52 bits from its word 0 (w0 >> 8: layer w0 & 255) and word 1
// (the x word of its own block 1, >> 4); the slow path's attempt j reads its own block 1 + j
// (j = 1..16; past them the fenced float32 Box-Muller normal, or -ln U, of block 18).

// exp(-h) in float64 for |h| <= 700, fenced: n = round(h / ln 2), r = n ln 2 - h (n ln2_hi
// exact), the degree-13 Taylor polynomial of exp(r) by Horner with every product fenced, times
// 2^-n (exact).
fn kp_exp_neg_fenced_f64(h: f64) -> f64 {
    let n = floor(kpl64_opq(h * 1.4426950408889634lf) + 0.5lf);
    let r = kpl64_opq(kpl64_opq(n * 6.931471803691238e-1lf) - h)
        + kpl64_opq(n * 1.9082149292705877e-10lf);
    var p = kpl64_opq(r * 1.6059043836821613e-10lf) + 2.08767569878681e-9lf;
    p = kpl64_opq(r * p) + 2.505210838544172e-8lf;
    p = kpl64_opq(r * p) + 2.755731922398589e-7lf;
    p = kpl64_opq(r * p) + 2.7557319223985893e-6lf;
    p = kpl64_opq(r * p) + 2.48015873015873e-5lf;
    p = kpl64_opq(r * p) + 0.0001984126984126984lf;
    p = kpl64_opq(r * p) + 0.001388888888888889lf;
    p = kpl64_opq(r * p) + 0.008333333333333333lf;
    p = kpl64_opq(r * p) + 0.041666666666666664lf;
    p = kpl64_opq(r * p) + 0.16666666666666666lf;
    p = kpl64_opq(r * p) + 0.5lf;
    p = kpl64_opq(r * p) + 1.0lf;
    p = kpl64_opq(r * p) + 1.0lf;
    return ldexp(p, -i32(n));
}

// x rounded to the nearest float32, ties to even, for a positive x in float32's normal range:
// WGSL lets a conversion of an inexact float64 give either neighbour, so the rounding is done
// here, exactly: x = m 2^e (kpl64_frexp: exact scaling), t = m 2^23 in [2^23, 2^24) (exact),
// r = floor(t), up by one when t - r (exact) is above 1/2, or is 1/2 and r is odd; r 2^(e - 23)
// is then a float32, which every conversion keeps.
fn kp_f64_to_f32_rne(x: f64) -> f32 {
    let fr = kpl64_frexp(x);
    let t = fr.m * 8388608.0lf;
    let r = floor(t);
    let f = t - r;
    let up = f > 0.5lf || (f == 0.5lf && (u32(r) & 1u) == 1u);
    return f32(ldexp(select(r, r + 1.0lf, up), fr.e - 23));
}

// ln x in float64 for x in (0, 1], deterministic: the fenced float32 logarithm of x rounded
// to float32 (kp_f64_to_f32_rne), then two Newton steps y + (x exp(-y) - 1) with the fenced
// exponential (about an ulp).
fn kp_ln_unit_fenced_f64(x: f64) -> f64 {
    var y = f64(kp_ln_unit_fenced_f32(kp_f64_to_f32_rne(x)));
    for (var i = 0u; i < 2u; i++) {
        y = y + (kpl64_opq(x * kp_exp_neg_fenced_f64(y)) - 1.0lf);
    }
    return y;
}

// A float64 uniform in (0, 1] of two words: ((a >> 5) 2^26 + (b >> 6) + 1) 2^-53 (exact).
fn kp_u01_open53_f64(a: u32, b: u32) -> f64 {
    return (f64(a >> 5u) * 67108864.0lf + f64((b >> 6u) + 1u)) * 1.1102230246251565e-16lf;
}

// The exact float64 of the 52-bit integer (h, l) = h 2^32 + l.
fn kp_u52_f64(h: u32, l: u32) -> f64 {
    return f64(h) * 4294967296.0lf + f64(l);
}

// The fast path of a float64 normal from the words w0, w1: the odd s = 2 m + 1 - 2^52 of the
// 52-bit m = (w0 >> 8) 2^28 + (w1 >> 4) as sign and |s| = 2 m' + 1 (m' the low 51 bits of m,
// complemented when s < 0), x = |s| W_i with s's sign (fenced); (x, accepted, layer).
fn kp_zig_normal_try_f64(w0: u32, w1: u32) -> vec3<f64> {
    let i = w0 & 255u;
    let top = w0 >> 8u;
    let neg = (top >> 23u) == 0u;
    let flip = select(0u, 0xffffffffu, neg);
    let mh = ((top & 0x7fffffu) >> 4u) ^ (flip & 0x7ffffu);
    let ml = (((top & 15u) << 28u) | (w1 >> 4u)) ^ flip;
    let h = (mh << 1u) | (ml >> 31u);
    let l = (ml << 1u) | 1u;
    let t = kp_zig_n64_fast(i);
    let m = kp_u52_f64(h, l);
    let x = m * t.y;
    return vec3<f64>(kpl64_opq(select(x, -x, neg)), select(0.0lf, 1.0lf, m < t.x), f64(i));
}

fn kp_zig_normal_slow_f64(k: vec2<u32>, d: vec2<u32>, e: u32, first: vec3<f64>) -> f64 {
    var x = first.x;
    var i = u32(first.z);
    var tail = i == 0u;
    for (var j = 1u; j <= 16u; j++) {
        let blk = kp_rng_block(k, d, e, j + 1u);
        if (tail) {
            let tx = kpl64_opq(kp_ln_unit_fenced_f64(kp_u01_open53_f64(blk.x, blk.y))
                * KP_ZIG_N64_NEG_RINV);
            let ty = -kp_ln_unit_fenced_f64(kp_u01_open53_f64(blk.z, blk.w));
            if (ty + ty > kpl64_opq(tx * tx)) {
                let v = tx + KP_ZIG_N64_R;
                return select(v, -v, x < 0.0lf);
            }
            continue;
        }
        let h = kpl64_opq(0.5lf * kpl64_opq(x * x));
        let u = kp_u01_f64(blk.x, blk.y);
        let sl = kp_zig_n64_slow(i);
        let y = kpl64_opq(u * sl.y) + sl.x;
        if (y < kp_exp_neg_fenced_f64(h)) {
            return x;
        }
        let t = kp_zig_normal_try_f64(blk.z, blk.w);
        if (t.y == 1.0lf) {
            return t.x;
        }
        x = t.x;
        i = u32(t.z);
        tail = i == 0u;
    }
    let last = kp_rng_block(k, d, e, 18u);
    return f64(kp_normal_pair_fenced_f32(last.x, last.y).x);
}

// Element e's float64 standard normal from its word 0 (w0) and its own blocks.
fn kp_normal_zig_f64(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32) -> f64 {
    let t = kp_zig_normal_try_f64(w0, kp_rng_block(k, d, e, 1u).x);
    if (t.y == 1.0lf) {
        return t.x;
    }
    return kp_zig_normal_slow_f64(k, d, e, t);
}

// The fast path of a float64 exponential: m = (w0 >> 8) 2^28 + (w1 >> 4), x = m W_i.
fn kp_zig_exp_try_f64(w0: u32, w1: u32) -> vec3<f64> {
    let i = w0 & 255u;
    let top = w0 >> 8u;
    let h = top >> 4u;
    let l = ((top & 15u) << 28u) | (w1 >> 4u);
    let t = kp_zig_e64_fast(i);
    let m = kp_u52_f64(h, l);
    let x = kpl64_opq(m * t.y);
    return vec3<f64>(x, select(0.0lf, 1.0lf, m < t.x), f64(i));
}

fn kp_zig_exp_slow_f64(k: vec2<u32>, d: vec2<u32>, e: u32, first: vec3<f64>) -> f64 {
    var x = first.x;
    var i = u32(first.z);
    var off = 0.0lf;
    for (var j = 1u; j <= 16u; j++) {
        let blk = kp_rng_block(k, d, e, j + 1u);
        var w = blk.xy;
        if (i == 0u) {
            off = off + KP_ZIG_E64_R;
        } else {
            let u = kp_u01_f64(blk.x, blk.y);
            let sl = kp_zig_e64_slow(i);
            let y = kpl64_opq(u * sl.y) + sl.x;
            if (y < kp_exp_neg_fenced_f64(x)) {
                return x + off;
            }
            w = blk.zw;
        }
        let t = kp_zig_exp_try_f64(w.x, w.y);
        if (t.y == 1.0lf) {
            return t.x + off;
        }
        x = t.x;
        i = u32(t.z);
    }
    let last = kp_rng_block(k, d, e, 18u);
    return kpl64_opq(-kp_ln_unit_fenced_f64(kp_u01_open53_f64(last.x, last.y))) + off;
}

// Element e's float64 standard exponential from its word 0 (w0) and its own blocks.
fn kp_exponential_zig_f64(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32) -> f64 {
    let t = kp_zig_exp_try_f64(w0, kp_rng_block(k, d, e, 1u).x);
    if (t.y == 1.0lf) {
        return t.x;
    }
    return kp_zig_exp_slow_f64(k, d, e, t);
}

// exp(x) in float32, fenced (the same bits on every driver but for results below 2^-126):
// NaN for NaN, infinity above ln(MAX).
fn kp_exp_det_f32(x: f32) -> f32 {
    if (x > 88.72284) {
        return bitcast<f32>(0x7f800000u);
    }
    // NaN by a bit test: lavapipe folds x != x to false (lognormal(nan) gave 0).
    return select(kp_exp_neg_fenced_f32(-x), x, (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u);
}

// exp(x) in float64, fenced: kp_exp_neg_fenced_f64(-x) (NaN for NaN, infinity above
// ln(MAX), 0 below -745.2; results below 2^-1022 may be flushed by a driver).
fn kp_exp_det_f64(x: f64) -> f64 {
    if (x > 709.782712893384lf) {
        return f64(bitcast<f32>(0x7f800000u));
    }
    if (x < -745.2lf) {
        return 0.0lf;
    }
    return select(kp_exp_neg_fenced_f64(-x), x, x != x);
}

// exp(loc + scale z) with the product fenced and the exponential fenced (lognormal).
fn kp_lognormal_f32(z: f32, loc: f32, scale: f32) -> f32 {
    return kp_exp_det_f32(kp_affine_f32(z, loc, scale));
}

fn kp_lognormal_f64(z: f64, loc: f64, scale: f64) -> f64 {
    return kp_exp_det_f64(kp_affine_f64(z, loc, scale));
}
