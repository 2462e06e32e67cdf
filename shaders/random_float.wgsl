// Random transforms written once for both float precisions: this text is the float32 library,
// and kupfer_core::random derives the float64 one by reading every `f32` as `f64` (so every
// `var`/`let` whose initialiser is a bare literal carries its type, and constants are written
// to float64 precision). It calls the bit generator of random.wgsl (kp_rng_block, kp_lane,
// kp_mulhi), the per-precision uniform `kp_unit_f32` / `kp_unit_f64` of random.wgsl, and the
// libm of that precision. kupfer_core::random documents the algorithms and their bounds.

// log(k!) for k < 16.
fn kp_logfact_small_f32(k: u32) -> f32 {
    var t = array<f32, 16>(0.0, 0.0, 0.693147180559945, 1.7917594692280554,
        3.178053830347945, 4.787491742782047, 6.579251212010102, 8.525161361065415,
        10.604602902745249, 12.801827480081467, 15.104412573075514, 17.502307845873887,
        19.987214495661885, 22.55216385312342, 25.191221182738683, 27.89927138384089);
    return t[min(k, 15u)];
}

// Loader's bd0(x, m) = x log(x / m) + m - x, without cancellation near x = m.
fn kp_bd0_f32(x: f32, m: f32) -> f32 {
    if (abs(x - m) < 0.1 * (x + m)) {
        let v = (x - m) / (x + m);
        let v2 = v * v;
        var s = (x - m) * v;
        var ej = 2.0 * x * v;
        for (var j = 1u; j < 40u; j++) {
            ej = ej * v2;
            let s1 = s + ej / f32(2u * j + 1u);
            if (s1 == s) {
                break;
            }
            s = s1;
        }
        return s;
    }
    return x * kp_log_f32(x / m) + m - x;
}

// Loader's stirlerr(k) = log(k!) - ((k + 1/2) log k - k + log(2 pi) / 2), k >= 1 (the
// asymptotic series to the k^-9 term from k = 16 on).
fn kp_stirlerr_f32(k: f32) -> f32 {
    if (k < 16.0) {
        return kp_logfact_small_f32(u32(k)) - (k + 0.5) * kp_log_f32(k) + k
            - 0.9189385332046727;
    }
    let k2 = k * k;
    return (1.0 / 12.0 - (1.0 / 360.0 - (1.0 / 1260.0 - (1.0 / 1680.0 - (1.0 / 1188.0) / k2)
        / k2) / k2) / k2) / k;
}

// log of the binomial(n, p) probability of k (q = 1 - p), Loader's saddle-point form: stable
// for large n (no cancelling log-gammas).
fn kp_binomial_logpmf_f32(k: f32, n: f32, p: f32, q: f32) -> f32 {
    if (k == 0.0) {
        return n * kp_log1p_f32(-p);
    }
    if (k == n) {
        return n * kp_log_f32(p);
    }
    let lc = kp_stirlerr_f32(n) - kp_stirlerr_f32(k) - kp_stirlerr_f32(n - k)
        - kp_bd0_f32(k, n * p) - kp_bd0_f32(n - k, n * q);
    let lf = 1.8378770664093453 + kp_log_f32(k) + kp_log1p_f32(-k / n);
    return lc - 0.5 * lf;
}

// Zipf(a) for a > 1 as a count (Devroye's rejection method, as NumPy): U uniform on
// (2^(-63 (a - 1)), 1], X = floor(U^(-1 / (a - 1))), kept when V X (T - 1) / (b - 1) <= T / b
// with T = (1 + 1 / X)^(a - 1), b = 2^(a - 1); counts of 2^63 and more are rejected (NumPy's
// truncation to int64). -log U and T - 1 go through log1p / expm1, so a near 1 keeps its
// precision. Attempts take two words from the element's own blocks 1..32 (64 attempts, each
// accepted with probability above 0.7: all fail with probability below 1e-33; then 1, the
// mode). a >= 1025 gives 1 (the chance of more is below 1e-308), as NumPy.
fn kp_zipf_f32(k: vec2<u32>, d: vec2<u32>, e: u32, a: f32) -> f32 {
    if (!(a < 1025.0)) {
        return 1.0;
    }
    let am1 = a - 1.0;
    const ln2 = 0.6931471805599453;
    let b = kp_exp_f32(am1 * ln2);
    let bm1 = kp_expm1_f32(am1 * ln2);
    // 1 - Umin, Umin = 2^(-63 (a - 1)).
    let span = -kp_expm1_f32(-am1 * (63.0 * ln2));
    for (var j = 1u; j <= 32u; j++) {
        let blk = kp_rng_block(k, d, e, j);
        for (var h = 0u; h < 2u; h++) {
            let u = kp_unit_f32(kp_lane(blk, 2u * h));
            let v = kp_unit_f32(kp_lane(blk, 2u * h + 1u));
            // U = 1 - u (1 - Umin): -log U = -log1p(-u (1 - Umin)).
            let x = floor(kp_exp_f32(-kp_log1p_f32(-u * span) / am1));
            if (x < 1.0 || x >= 9.223372036854775807e18) {
                continue;
            }
            if (x == 1.0) {
                // T = b: accepted whatever V.
                return x;
            }
            let t1 = kp_expm1_f32(am1 * kp_log1p_f32(1.0 / x));
            if (v * x * t1 / bm1 <= (1.0 + t1) / b) {
                return x;
            }
        }
    }
    return 1.0;
}

// The log of C(mn, x) C(mx, cs - x) up to a term that does not depend on x: binomial
// log-probabilities of x of mn and cs - x of mx at p = cs / (mn + mx), q = 1 - p (Loader's
// stable forms: no cancelling log-factorials of large populations).
fn kp_hyper_logw_f32(x: f32, mn: f32, mx: f32, cs: f32, p: f32, q: f32) -> f32 {
    return kp_binomial_logpmf_f32(x, mn, p, q) + kp_binomial_logpmf_f32(cs - x, mx, p, q);
}

// NumPy's urn draws for hypergeometric (sample or its complement below 10; total = good + bad):
// exact integer arithmetic, the same bits in both precisions and on every driver.
fn kp_hyper_urn_f32(k: vec2<u32>, d: vec2<u32>, e: u32, good: f32, total: f32,
    sample: f32) -> f32 {
    let flip = sample > floor(total * 0.5);
    var left = select(sample, total - sample, flip);
    var rt = total;
    var rg = good;
    var blk = vec4<u32>(0u);
    for (var c = 0u; c < 137u; c++) {
        if (!(left > 0.0 && rg > 0.0 && rt > rg)) {
            break;
        }
        if ((c & 3u) == 0u) {
            blk = kp_rng_block(k, d, e, 1u + min(c >> 2u, 31u));
        }
        let w = kp_lane(blk, c & 3u);
        let r = u32(rt);
        let low = w * r;
        if (c < 128u && low < r && low < (0u - r) % r) {
            continue;
        }
        if (kp_mulhi(w, r) < u32(rg)) {
            rg = rg - 1.0;
        }
        rt = rt - 1.0;
        left = left - 1.0;
    }
    if (rt == rg) {
        rg = rg - left;
    }
    return select(good - rg, rg, flip);
}

// Hypergeometric(good, bad, sample) as a count of good items among `sample` drawn without
// replacement (as NumPy). When sample < 10 or sample > good + bad - 10: NumPy's urn draws of
// the smaller of sample and its complement (at most 9 draws), each draw good with
// probability (good left) / (items left) by Lemire's exact bounded integer on the element's own
// words (blocks 1..32; a word is rejected with probability below 1/2, and past 128 words none
// is: bias only then, probability below 1e-27). Otherwise Stadlober's ratio-of-uniforms
// (HRUA, as NumPy, its acceptance test on Loader's log-probabilities), two words an attempt
// from blocks 1..64 (128 attempts, each accepted with probability above 0.4: all fail with
// probability below 1e-28; then the mode).
fn kp_hypergeometric_f32(k: vec2<u32>, d: vec2<u32>, e: u32, good: f32, bad: f32,
    sample: f32) -> f32 {
    let total = good + bad;
    if (sample < 10.0 || sample > total - 10.0) {
        return kp_hyper_urn_f32(k, d, e, good, total, sample);
    }
    let cs = min(sample, total - sample);
    let mn = min(good, bad);
    let mx = max(good, bad);
    let p = mn / total;
    let q = mx / total;
    let a = cs * p + 0.5;
    let c = sqrt((total - cs) * cs * p * q / (total - 1.0) + 0.5);
    let h = 1.7155277699214135 * c + 0.8989161620588988;
    let bound = min(min(cs, mn) + 1.0, floor(a + 16.0 * c));
    let pw = cs / total;
    let qw = (total - cs) / total;
    // The mode: NumPy's floor((cs + 1) (mn + 1) / (total + 2)), its neighbours checked so that
    // rounding cannot move it.
    var m = floor((cs + 1.0) * (mn + 1.0) / (total + 2.0));
    var g = kp_hyper_logw_f32(m, mn, mx, cs, pw, qw);
    for (var i = 0u; i < 2u; i++) {
        let m2 = m - 1.0 + 2.0 * f32(i);
        if (m2 >= 0.0 && m2 <= min(cs, mn) && m2 >= cs - mx) {
            let g2 = kp_hyper_logw_f32(m2, mn, mx, cs, pw, qw);
            if (g2 > g) {
                m = m2;
                g = g2;
            }
        }
    }
    // X = a + h (V - 1/2) / U split as floor(a) + (fract(a) + h (V - 1/2) / U): the integer
    // part stays exact for large a.
    let a0 = floor(a);
    let af = a - a0;
    var x = m;
    for (var j = 1u; j <= 64u; j++) {
        let blk = kp_rng_block(k, d, e, j);
        var done = false;
        for (var i = 0u; i < 2u; i++) {
            let u = kp_unit_f32(kp_lane(blk, 2u * i));
            let v = kp_unit_f32(kp_lane(blk, 2u * i + 1u));
            let kk = a0 + floor(af + h * (v - 0.5) / u);
            if (kk < 0.0 || kk >= bound) {
                continue;
            }
            let t = kp_hyper_logw_f32(kk, mn, mx, cs, pw, qw) - g;
            if (u * (4.0 - u) - 3.0 <= t) {
                x = kk;
                done = true;
                break;
            }
            if (u * (u - t) >= 1.0) {
                continue;
            }
            if (2.0 * kp_log_f32(u) <= t) {
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

// One Marsaglia-Tsang attempt with the normal z and the word w (its uniform): the candidate
// dd v, or -1 when rejected. Every product that is added is fenced and the logarithm is
// kp_ln_det's: in float32 the same decision on every driver.
fn kp_mt_try_f32(dd: f32, c: f32, z: f32, w: u32) -> f32 {
    let v0 = kp_opq_f32(c * z) + 1.0;
    if (v0 <= 0.0) {
        return -1.0;
    }
    let v = kp_opq_f32(v0 * v0 * v0);
    let u = kp_u01_open_f32(w);
    let z2 = kp_opq_f32(z * z);
    if (u < 1.0 - kp_opq_f32(0.0331 * kp_opq_f32(z2 * z2))) {
        return dd * v;
    }
    let bound = kp_opq_f32(0.5 * z2) + kp_opq_f32(dd * ((1.0 - v) + kp_ln_det_f32(v)));
    if (kp_ln_det_f32(u) < bound) {
        return dd * v;
    }
    return -1.0;
}

// Standard gamma of shape a (Marsaglia and Tsang 2000). Attempts come two per block from the
// element's own blocks 1..16 (the deterministic Box-Muller pair of lanes x, y gives two
// normals; lanes z, w their uniforms): at most 32 attempts, each accepted with probability
// above 0.95, so all fail with probability below 1e-41; then the last candidate d is
// returned. a < 1 draws gamma(a + 1) times U^(1/a) = exp(-(-ln U) (1 / a)), U from word 0.
// a = 0 gives 0; NaN gives NaN. float32: the same bits on every driver
// (kupfer_core::random::ziggurat::gamma_f32 is its CPU emulation).
fn kp_gamma_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, a: f32) -> f32 {
    if (kp_rand_isnan_f32(a)) {
        return a;
    }
    if (a <= 0.0) {
        return 0.0;
    }
    let boost = a < 1.0;
    let s = select(a, a + 1.0, boost);
    let dd = s - 1.0 / 3.0;
    let c = kp_rsqrt_det_f32(9.0 * dd);
    var x = dd;
    for (var j = 1u; j <= 16u; j++) {
        let b = kp_rng_block(k, d, e, j);
        let z = kp_normal_pair_det_f32(b.x, b.y);
        let g0 = kp_mt_try_f32(dd, c, z.x, b.z);
        if (g0 >= 0.0) {
            x = g0;
            break;
        }
        let g1 = kp_mt_try_f32(dd, c, z.y, b.w);
        if (g1 >= 0.0) {
            x = g1;
            break;
        }
    }
    if (boost) {
        let h = kp_opq_f32(-kp_ln_det_f32(kp_u01_open_f32(w0)) * kp_recip_det_f32(a));
        x = x * kp_exp_neg_det_f32(h);
    }
    return x;
}

// log of the Poisson(lam) probability of k, stable for large lam: Loader's saddle-point form
// -stirlerr(k) - bd0(k, lam) - log(2 pi k) / 2 for k >= 16.
fn kp_poisson_logpmf_f32(k: f32, lam: f32, loglam: f32) -> f32 {
    if (k < 16.0) {
        return -lam + k * loglam - kp_logfact_small_f32(u32(k));
    }
    return -kp_stirlerr_f32(k) - kp_bd0_f32(k, lam) - 0.5 * kp_log_f32(6.283185307179586 * k);
}

// Poisson(lam) as a float32 count. lam < 10: inversion of word 0 (the cumulative sum stops
// once the remaining terms no longer change it, at most 256 terms). lam >= 10: Hormann's PTRS
// (transformed rejection with squeeze), two words an attempt from the element's own blocks
// 1..16 (32 attempts, each accepted with probability above 0.89; past them the mode).
fn kp_poisson_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, lam: f32) -> f32 {
    if (!(lam > 0.0)) {
        return 0.0;
    }
    if (lam < 10.0) {
        let u = kp_u01w_f32(w0);
        var p = kp_exp_f32(-lam);
        var s = p;
        var n: f32 = 0.0;
        for (var j = 0u; j < 256u; j++) {
            if (u < s) {
                break;
            }
            n = n + 1.0;
            p = p * lam / n;
            let s1 = s + p;
            if (s1 == s && n > lam) {
                break;
            }
            s = s1;
        }
        return n;
    }
    let slam = sqrt(lam);
    let loglam = kp_log_f32(lam);
    let b = 0.931 + 2.53 * slam;
    let a = -0.059 + 0.02483 * b;
    let invalpha = 1.1239 + 1.1328 / (b - 3.4);
    let vr = 0.9277 - 3.6224 / (b - 2.0);
    for (var j = 1u; j <= 16u; j++) {
        let blk = kp_rng_block(k, d, e, j);
        for (var h = 0u; h < 2u; h++) {
            let uu = kp_unit_f32(kp_lane(blk, 2u * h)) - 0.5;
            let v = kp_unit_f32(kp_lane(blk, 2u * h + 1u));
            let us = 0.5 - abs(uu);
            let n = floor((2.0 * a / us + b) * uu + lam + 0.43);
            if (us >= 0.07 && v <= vr) {
                return n;
            }
            if (n < 0.0 || (us < 0.013 && v > us)) {
                continue;
            }
            let lhs = kp_log_f32(v) + kp_log_f32(invalpha) - kp_log_f32(a / (us * us) + b);
            if (lhs <= kp_poisson_logpmf_f32(n, lam, loglam)) {
                return n;
            }
        }
    }
    return floor(lam);
}

// Binomial(n, p) for p <= 1/2 as a float32 count. n p < 10: inversion of word 0 (at most 256
// terms; the count is capped at n). Otherwise Hormann's BTRS (transformed rejection with
// squeeze), two words an attempt from the element's own blocks 1..16 (32 attempts, each
// accepted with probability above 0.8; past them the mode), its acceptance test on Loader's
// log-probabilities.
fn kp_binomial_low_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, n: f32, p: f32) -> f32 {
    let q = 1.0 - p;
    if (n * p < 10.0) {
        let s = p / q;
        let a = (n + 1.0) * s;
        var r = kp_exp_f32(n * kp_log1p_f32(-p));
        var u = kp_u01w_f32(w0);
        var x: f32 = 0.0;
        for (var j = 0u; j < 256u; j++) {
            if (u <= r || x >= n) {
                break;
            }
            u = u - r;
            x = x + 1.0;
            r = r * (a / x - s);
        }
        return min(x, n);
    }
    let spq = sqrt(n * p * q);
    let b = 1.15 + 2.53 * spq;
    let a = -0.0873 + 0.0248 * b + 0.01 * p;
    let c = n * p + 0.5;
    let vr = 0.92 - 4.2 / b;
    let alpha = (2.83 + 5.1 / b) * spq;
    let m = floor((n + 1.0) * p);
    let logm = kp_binomial_logpmf_f32(m, n, p, q);
    for (var j = 1u; j <= 16u; j++) {
        let blk = kp_rng_block(k, d, e, j);
        for (var h = 0u; h < 2u; h++) {
            let u = kp_unit_f32(kp_lane(blk, 2u * h)) - 0.5;
            let v = kp_unit_f32(kp_lane(blk, 2u * h + 1u));
            let us = 0.5 - abs(u);
            let x = floor((2.0 * a / us + b) * u + c);
            if (x < 0.0 || x > n) {
                continue;
            }
            if (us >= 0.07 && v <= vr) {
                return x;
            }
            let lhs = kp_log_f32(v * alpha / (a / (us * us) + b));
            if (lhs <= kp_binomial_logpmf_f32(x, n, p, q) - logm) {
                return x;
            }
        }
    }
    return m;
}

// Binomial(n, p) as a float32 count: 0 for n < 1 or p <= 0 (and NaN p), n for p >= 1; p > 1/2
// draws n minus a binomial of 1 - p (exact in float32).
fn kp_binomial_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, n: f32, p: f32) -> f32 {
    if (!(n >= 1.0) || !(p > 0.0)) {
        return 0.0;
    }
    if (p >= 1.0) {
        return n;
    }
    let flip = p > 0.5;
    let x = kp_binomial_low_f32(k, d, e, w0, n, select(p, 1.0 - p, flip));
    return select(x, n - x, flip);
}

// Von Mises(0, kappa) as a float32 angle in [-pi, pi] (Best and Fisher's rejection method, as
// NumPy): kappa < 1e-8 uniform on (-pi, pi) from word 0; kappa > 1e6 a normal of variance
// 1 / kappa from the element's block 1 (wrapped by the caller); otherwise attempts of two
// words (z = cos(pi U) from the first's top 23 bits, V from the second) from the element's own
// blocks 1..16 (32 attempts, each accepted with probability above 0.65; past them the last
// candidate), the sign from word 0's top bit.
fn kp_vonmises_f32(k: vec2<u32>, d: vec2<u32>, e: u32, w0: u32, kappa: f32) -> f32 {
    if (kappa != kappa) {
        return kappa;
    }
    if (kappa < 1e-8) {
        return 3.141592653589793 * (2.0 * kp_unit_f32(w0) - 1.0);
    }
    if (kappa > 1e6) {
        let b = kp_rng_block(k, d, e, 1u);
        return kp_normal_pair_f32(b.x, b.y).x / sqrt(kappa);
    }
    var s: f32;
    if (kappa < 1e-5) {
        s = 1.0 / kappa + kappa;
    } else {
        let r = 1.0 + sqrt(1.0 + 4.0 * kappa * kappa);
        let rho = (r - sqrt(2.0 * r)) / (2.0 * kappa);
        s = (1.0 + rho * rho) / (2.0 * rho);
    }
    var w: f32 = 0.0;
    for (var j = 1u; j <= 16u; j++) {
        let blk = kp_rng_block(k, d, e, j);
        var done = false;
        for (var h = 0u; h < 2u; h++) {
            let z = kp_cos_pi_unit_f32(kp_lane(blk, 2u * h));
            w = clamp((1.0 + s * z) / (s + z), -1.0, 1.0);
            let y = kappa * (s - w);
            let v = kp_unit_f32(kp_lane(blk, 2u * h + 1u));
            if (y * (2.0 - y) - v >= 0.0 || kp_log_f32(y / v) + 1.0 - y >= 0.0) {
                done = true;
                break;
            }
        }
        if (done) {
            break;
        }
    }
    let angle = kp_arccos_f32(w);
    return select(angle, -angle, w0 < 0x80000000u);
}
