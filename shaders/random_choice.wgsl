// choice(a, p=...) in exact integer arithmetic, so that a seed picks the same indices on every
// adapter (with or without float64). kupfer_core::random::choice_wgsl puts the bit generator
// of random.wgsl (kp_rng_block0, kp_rng_block, kp_lane) and libm_f32's fence kpl32_opq in
// front of this text; kupfer_core::random documents the method and its CPU reference.
//
// With replacement: element e's uniform is the 53-bit integer U = (w0 >> 5) 2^26 + (w1 >> 6) of
// its words 0 and 1 (the integer behind NumPy's float64 uniform U 2^-53), and its index is the
// number of thresholds T_i = ceil(cdf_i 2^53) with T_i <= U (NumPy's
// cdf.searchsorted(U 2^-53, side='right') exactly), by a binary search over the thresholds as
// (high, low) u32 pairs compared lexicographically. The host computes the thresholds of a host
// p in float64; `cumulate` and `thresholds` compute those of a device float32 p.
//
// Without replacement: the n smallest keys E_i / p_i (exponential races), E_i = -ln U_i from
// element i's word 0, through a logarithm whose every product is fenced (no compiler can
// contract it into a fused multiply-add, so it rounds alike everywhere).

struct Params {
    n: u32,       // categories
    m: u32,       // draws (`draw`), chunks (`chunk_totals`, `cumulate`)
    chunk: u32,   // elements per chunk (`chunk_totals`, `cumulate`)
    gx: u32,      // workgroups per grid row
    key: vec2<u32>,
    draw: vec2<u32>,
    divide: u32,  // `race_keys`: 1 when `weights` holds p (device), 0 when it holds 1 / p (host)
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

@group(0) @binding(0) var<uniform> P: Params;
// p (float32), or the host's 1 / p for `race_keys`.
@group(0) @binding(1) var<storage, read> weights: array<f32>;
// The chunks' sums (`chunk_totals` writes them, `cumulate` reads them).
@group(0) @binding(2) var<storage, read_write> totals: array<f32>;
// The cumulative sums (`cumulate`), or the race keys (`race_keys`).
@group(0) @binding(3) var<storage, read_write> sums: array<f32>;
// The thresholds T_i as (high, low) words.
@group(0) @binding(4) var<storage, read_write> thresh: array<vec2<u32>>;
// The drawn indices.
@group(0) @binding(5) var<storage, read_write> picks: array<u32>;

fn kp_choice_thread(id: vec3<u32>) -> u32 {
    return id.y * P.gx * 256u + id.x;
}

// The float32 sum of chunk c of p, added in index order.
@compute @workgroup_size(256)
fn chunk_totals(@builtin(global_invocation_id) id: vec3<u32>) {
    let c = kp_choice_thread(id);
    if (c >= P.m) {
        return;
    }
    let start = c * P.chunk;
    let stop = min(start + P.chunk, P.n);
    var s = 0.0;
    for (var i = start; i < stop; i++) {
        s = kpl32_opq(s + weights[i]);
    }
    totals[c] = s;
}

// The cumulative sums of chunk c: (the chunks before c, summed in order) + (the running sum of
// chunk c from its start), so the order of every addition depends on n alone (the running
// sums are fenced: no compiler may regroup them). The last one is
// the total; every entry from the last positive p on equals it.
@compute @workgroup_size(256)
fn cumulate(@builtin(global_invocation_id) id: vec3<u32>) {
    let c = kp_choice_thread(id);
    if (c >= P.m) {
        return;
    }
    var offset = 0.0;
    for (var j = 0u; j < c; j++) {
        offset = kpl32_opq(offset + totals[j]);
    }
    let start = c * P.chunk;
    let stop = min(start + P.chunk, P.n);
    var r = 0.0;
    for (var i = start; i < stop; i++) {
        r = kpl32_opq(r + weights[i]);
        sums[i] = offset + r;
    }
}

// The significand (as an integer) and exponent of a non-negative float32: x = s 2^(e - 150).
fn kp_choice_parts(x: f32) -> vec2<u32> {
    let b = bitcast<u32>(x);
    let e = b >> 23u;
    let s = select(b & 0x7fffffu, (b & 0x7fffffu) | 0x800000u, e != 0u);
    return vec2<u32>(s, max(e, 1u));
}

// ceil(x / t 2^53) as (high, low) words for 0 <= x <= t, t > 0, by long division of the
// significands (exact: no rounding anywhere).
fn kp_choice_fixed53(x: f32, t: f32) -> vec2<u32> {
    let xp = kp_choice_parts(x);
    let tp = kp_choice_parts(t);
    if (xp.x == 0u || tp.x == 0u) {
        return vec2<u32>(0u, 0u);
    }
    let s = i32(xp.y) - i32(tp.y) + 53;
    if (s < 0) {
        return vec2<u32>(0u, 1u);  // 0 < x / t 2^53 < 1
    }
    // The bits of xp.x 2^s, top first (24 of the significand, then s zeros), divided by tp.x.
    let bits = min(24u + u32(s), 128u);
    var r = 0u;
    var hi = 0u;
    var lo = 0u;
    for (var k = 0u; k < bits; k++) {
        let bit = select(0u, (xp.x >> (23u - min(k, 23u))) & 1u, k < 24u);
        r = 2u * r + bit;
        let q = r >= tp.x;
        r = select(r, r - tp.x, q);
        hi = (hi << 1u) | (lo >> 31u);
        lo = (lo << 1u) | select(0u, 1u, q);
    }
    if (r != 0u) {
        lo = lo + 1u;
        hi = hi + select(0u, 1u, lo == 0u);
    }
    return vec2<u32>(hi, lo);
}

// The thresholds of the cumulative sums `sums` (the total is the last).
@compute @workgroup_size(256)
fn thresholds(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = kp_choice_thread(id);
    if (i >= P.n) {
        return;
    }
    thresh[i] = kp_choice_fixed53(sums[i], sums[P.n - 1u]);
}

// Element e's index: how many thresholds are at most its 53-bit uniform (at most n - 1).
@compute @workgroup_size(256)
fn draw(@builtin(global_invocation_id) id: vec3<u32>) {
    let e = kp_choice_thread(id);
    if (e >= P.m) {
        return;
    }
    let w0 = kp_lane(kp_rng_block0(P.key, P.draw, e), e & 3u);
    let w1 = kp_rng_block(P.key, P.draw, e, 1u).x;
    let uhi = w0 >> 11u;
    let ulo = ((w0 >> 5u) << 26u) | (w1 >> 6u);
    var lo = 0u;
    var hi = P.n;
    for (var step = 0u; step < 33u; step++) {
        if (lo >= hi) {
            break;
        }
        let mid = lo + (hi - lo) / 2u;
        let t = thresh[mid];
        if (t.x < uhi || (t.x == uhi && t.y <= ulo)) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    picks[e] = min(lo, P.n - 1u);
}

// ln(x) of a positive normal float32 (about 2 ulp): x = 2^k m, m in [sqrt(1/2), sqrt(2)),
// f = m - 1 (exact), ln(m) = f + f^2 S(f) with the degree-7 fit S of random.wgsl's
// kp_ln_unit_f32. Every product and sum is fenced (kpl32_opq), so the result depends neither on
// whether a compiler fuses a multiply and an add nor on how it would reassociate.
fn kp_choice_ln(x: f32) -> f32 {
    let b = bitcast<u32>(x) + 0x004afb0du;  // 0x3f800000 - bits of sqrt(1/2)
    let k = f32(i32(b >> 23u) - 127);
    let f = bitcast<f32>((b & 0x007fffffu) + 0x3f3504f3u) - 1.0;
    var s = 0.08733724057674408;
    s = kpl32_opq(kpl32_opq(f * s) - 0.14306095242500305);
    s = kpl32_opq(kpl32_opq(f * s) + 0.1491774320602417);
    s = kpl32_opq(kpl32_opq(f * s) - 0.1657068282365799);
    s = kpl32_opq(kpl32_opq(f * s) + 0.1996210813522339);
    s = kpl32_opq(kpl32_opq(f * s) - 0.2500174939632416);
    s = kpl32_opq(kpl32_opq(f * s) + 0.33333948254585266);
    s = kpl32_opq(kpl32_opq(f * s) - 0.49999991059303284);
    let t = kpl32_opq(kpl32_opq(f * f) * s);
    let lo = kpl32_opq(kpl32_opq(t + f) + kpl32_opq(k * 1.428606765330187e-06));
    return lo + kpl32_opq(k * 0.693145751953125);
}

// Element i's race key: E_i / p_i with E_i = -ln U_i, U_i = ((w >> 9) + 1/2) 2^-23 in (0, 1)
// from its word 0. The host gives 1 / p_i (0 for p_i = 0), a device p gives p_i (the driver's
// division then: WGSL allows 2.5 ulp). p_i = 0 gives the largest float32, drawn last.
@compute @workgroup_size(256)
fn race_keys(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = kp_choice_thread(id);
    if (i >= P.n) {
        return;
    }
    let w = kp_lane(kp_rng_block0(P.key, P.draw, i), i & 3u);
    let u = (f32(w >> 9u) + 0.5) * 1.1920928955078125e-7;
    let e = -kp_choice_ln(u);
    let q = weights[i];
    var key = 3.4028234663852886e38;
    if (P.divide == 1u) {
        if (q > 0.0) {
            key = e / max(q, 1e-37);
        }
    } else if (q > 0.0) {
        key = e * q;
    }
    sums[i] = key;
}
