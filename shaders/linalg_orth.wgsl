// Orthogonal factorizations of matrices of any size, one step per dispatch in global memory
// (the host records the steps back to back; nothing is read back between them):
//
// - house: the Householder reflector H = I - tau v v^T of column k of each m x n matrix of
//   `a` (rows k..m), LAPACK's convention (v[k] = 1, stored below the diagonal; beta on it;
//   tau = 0 when the column below the diagonal is already zero). One workgroup per matrix.
// - house_apply: applies reflector k (read from `a` and `tau`) to columns c0..c1 of `a`
//   itself (mode 0) or of the m x xc matrices of `x` (mode 1, for forming Q). One workgroup
//   per (column, matrix).
// - jacobi_step: one round of the one-sided (Hestenes) Jacobi SVD: the n columns of each
//   matrix are the rows of `x` (n x m, so each column is contiguous), paired by the circle
//   method (round s of np - 1 for np = n rounded up to even); each workgroup orthogonalizes
//   one pair of columns by a plane rotation, applied also to the rows of `v` (n x n) when
//   P.mode is 1. A pair still further from orthogonal than tol_conv sets flags[matrix];
//   `tau` holds each matrix's squared Frobenius norm (negligible columns are skipped).
// - jacobi_step_cplx: jacobi_step on complex matrices, `x` and `a` holding interleaved
//   (re, im) pairs: the pair's inner product gamma = x_p^H x_q is complex; column q is first
//   turned by the phase conj(gamma) / |gamma|, which makes gamma real, and the real rotation
//   follows (V's columns, the rows of `a`, alike, so V stays unitary and A V = G).
// - piv_perm: the row permutation (perm[i]: the row of A that is row i of P^T A) from
//   LAPACK-style sequential pivots, one thread per matrix.
//
// Per-thread loops are bounded by m / 64 (reductions, updates) or by n (piv_perm).
{{ENABLES}}
alias T = {{T}};
const WG: u32 = 64u;

struct Params {
    m: u32,
    n: u32,
    k: u32,
    batch0: u32,
    count: u32,
    mode: u32,
    c0: u32,
    c1: u32,
    xc: u32,
    kmax: u32,
    tol_rot: f32,
    tol_conv: f32,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> a: array<T>;
@group(0) @binding(2) var<storage, read_write> x: array<T>;
@group(0) @binding(3) var<storage, read_write> tau: array<T>;
@group(0) @binding(4) var<storage, read_write> flags: array<atomic<u32>>;

var<workgroup> red0: array<T, 64>;
var<workgroup> red1: array<T, 64>;
var<workgroup> red2: array<T, 64>;
var<workgroup> red3: array<T, 64>;

// Sums red0..red2 over the workgroup (results in element 0).
fn reduce3(lid: u32) {
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s >> 1u) {
        if (lid < s) {
            red0[lid] = red0[lid] + red0[lid + s];
            red1[lid] = red1[lid] + red1[lid + s];
            red2[lid] = red2[lid] + red2[lid + s];
        }
        workgroupBarrier();
    }
}

@compute @workgroup_size(64)
fn house(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = P.batch0 + wid.y;
    let m = P.m;
    let n = P.n;
    let k = P.k;
    let base = b * m * n;
    // Read before the barriers below: thread 0 overwrites it with beta at the end.
    let alpha = a[base + k * n + k];
    // The largest |value| below the diagonal first, so the sum of squares cannot overflow.
    var big = T(0);
    for (var i = k + 1u + lid; i < m; i = i + WG) {
        big = max(big, abs(a[base + i * n + k]));
    }
    red0[lid] = big;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s >> 1u) {
        if (lid < s) {
            red0[lid] = max(red0[lid], red0[lid + s]);
        }
        workgroupBarrier();
    }
    let scale = red0[0];
    workgroupBarrier();
    var ss = T(0);
    if (scale > T(0)) {
        for (var i = k + 1u + lid; i < m; i = i + WG) {
            let v = a[base + i * n + k] / scale;
            ss = ss + v * v;
        }
    }
    red0[lid] = ss;
    red1[lid] = T(0);
    red2[lid] = T(0);
    reduce3(lid);
    let xnorm = scale * sqrt(red0[0]);
    if (xnorm == T(0)) {
        if (lid == 0u) {
            tau[b * P.kmax + k] = T(0);
        }
        return;
    }
    let big2 = max(abs(alpha), xnorm);
    let ra = alpha / big2;
    let rx = xnorm / big2;
    var beta = big2 * sqrt(ra * ra + rx * rx);
    if (alpha >= T(0)) {
        beta = -beta;
    }
    let inv = T(1) / (alpha - beta);
    for (var i = k + 1u + lid; i < m; i = i + WG) {
        a[base + i * n + k] = a[base + i * n + k] * inv;
    }
    if (lid == 0u) {
        tau[b * P.kmax + k] = (beta - alpha) / beta;
        a[base + k * n + k] = beta;
    }
}

@compute @workgroup_size(64)
fn house_apply(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = P.batch0 + wid.y;
    let j = P.c0 + wid.x;
    if (j >= P.c1) {
        return;
    }
    let m = P.m;
    let n = P.n;
    let k = P.k;
    // A zero tau (no reflection) makes w zero: the column is rewritten unchanged.
    let t = tau[b * P.kmax + k];
    let abase = b * m * n;
    var cols = n;
    if (P.mode == 1u) {
        cols = P.xc;
    }
    let xbase = b * m * cols;
    var dot = T(0);
    for (var i = k + lid; i < m; i = i + WG) {
        var v = T(1);
        if (i > k) {
            v = a[abase + i * n + k];
        }
        var e: T;
        if (P.mode == 0u) {
            e = a[xbase + i * cols + j];
        } else {
            e = x[xbase + i * cols + j];
        }
        dot = dot + v * e;
    }
    red0[lid] = dot;
    red1[lid] = T(0);
    red2[lid] = T(0);
    reduce3(lid);
    let w = t * red0[0];
    for (var i = k + lid; i < m; i = i + WG) {
        var v = T(1);
        if (i > k) {
            v = a[abase + i * n + k];
        }
        if (P.mode == 0u) {
            a[xbase + i * cols + j] = a[xbase + i * cols + j] - v * w;
        } else {
            x[xbase + i * cols + j] = x[xbase + i * cols + j] - v * w;
        }
    }
}

@compute @workgroup_size(64)
fn jacobi_step(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = P.batch0 + wid.y;
    let m = P.m;
    let n = P.n;
    // The circle method: player np - 1 stays, the others rotate by one each round.
    let np1 = P.kmax - 1u;
    let s = P.k;
    let i = wid.x;
    var p: u32;
    var q: u32;
    if (i == 0u) {
        p = s;
        q = np1;
    } else {
        p = (s + i) % np1;
        q = (s + np1 - i) % np1;
    }
    if (p >= n || q >= n) {
        return;
    }
    let pb = (b * n + p) * m;
    let qb = (b * n + q) * m;
    var al = T(0);
    var be = T(0);
    var ga = T(0);
    for (var r = lid; r < m; r = r + WG) {
        let xp = x[pb + r];
        let xq = x[qb + r];
        al = al + xp * xp;
        be = be + xq * xq;
        ga = ga + xp * xq;
    }
    red0[lid] = al;
    red1[lid] = be;
    red2[lid] = ga;
    reduce3(lid);
    let alpha = red0[0];
    let beta = red1[0];
    let gamma = red2[0];
    let size = sqrt(alpha) * sqrt(beta);
    // A column of squared norm below eps^2 m ||A||_F^2 (tau[b] holds ||A||_F^2) is zero to
    // working precision: its pairs count as orthogonal and are not rotated (rotating the
    // rounding noise left in it against another column never converges).
    if (min(alpha, beta) <= T(P.tol_rot) * T(P.tol_rot) * T(m) * tau[b]) {
        return;
    }
    if (lid == 0u && abs(gamma) > T(P.tol_conv) * size) {
        atomicMax(&flags[b], 1u);
    }
    if (!(abs(gamma) > T(P.tol_rot) * size)) {
        return;
    }
    let zeta = (beta - alpha) / (T(2) * gamma);
    var t: T;
    if (abs(zeta) > T(1e15)) {
        t = T(0.5) / zeta;
    } else {
        t = T(1) / (abs(zeta) + sqrt(T(1) + zeta * zeta));
        if (zeta < T(0)) {
            t = -t;
        }
    }
    let c = T(1) / sqrt(T(1) + t * t);
    let sn = c * t;
    for (var r = lid; r < m; r = r + WG) {
        let xp = x[pb + r];
        let xq = x[qb + r];
        x[pb + r] = c * xp - sn * xq;
        x[qb + r] = sn * xp + c * xq;
    }
    if (P.mode == 1u) {
        let vp = (b * n + p) * n;
        let vq = (b * n + q) * n;
        for (var r = lid; r < n; r = r + WG) {
            let xp = a[vp + r];
            let xq = a[vq + r];
            a[vp + r] = c * xp - sn * xq;
            a[vq + r] = sn * xp + c * xq;
        }
    }
}

// The circle method's pair (p, q) of round P.k for workgroup i (player np - 1 stays, the
// others rotate by one each round).
fn circle_pair(i: u32) -> vec2<u32> {
    let np1 = P.kmax - 1u;
    let s = P.k;
    if (i == 0u) {
        return vec2<u32>(s, np1);
    }
    return vec2<u32>((s + i) % np1, (s + np1 - i) % np1);
}

// The rotation (c, s) that makes a pair with squared norms alpha, beta and real inner
// product gamma > 0 orthogonal.
fn jacobi_rotation(alpha: T, beta: T, gamma: T) -> vec2<T> {
    let zeta = (beta - alpha) / (T(2) * gamma);
    var t: T;
    if (abs(zeta) > T(1e15)) {
        t = T(0.5) / zeta;
    } else {
        t = T(1) / (abs(zeta) + sqrt(T(1) + zeta * zeta));
        if (zeta < T(0)) {
            t = -t;
        }
    }
    let c = T(1) / sqrt(T(1) + t * t);
    return vec2<T>(c, c * t);
}

@compute @workgroup_size(64)
fn jacobi_step_cplx(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = P.batch0 + wid.y;
    let m = P.m;
    let n = P.n;
    let pq = circle_pair(wid.x);
    let p = pq.x;
    let q = pq.y;
    if (p >= n || q >= n) {
        return;
    }
    let pb = (b * n + p) * m * 2u;
    let qb = (b * n + q) * m * 2u;
    var al = T(0);
    var be = T(0);
    var gr = T(0);
    var gi = T(0);
    for (var r = lid; r < m; r = r + WG) {
        let xpr = x[pb + 2u * r];
        let xpi = x[pb + 2u * r + 1u];
        let xqr = x[qb + 2u * r];
        let xqi = x[qb + 2u * r + 1u];
        al = al + xpr * xpr + xpi * xpi;
        be = be + xqr * xqr + xqi * xqi;
        gr = gr + xpr * xqr + xpi * xqi;
        gi = gi + xpr * xqi - xpi * xqr;
    }
    red0[lid] = al;
    red1[lid] = be;
    red2[lid] = gr;
    red3[lid] = gi;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s >> 1u) {
        if (lid < s) {
            red0[lid] = red0[lid] + red0[lid + s];
            red1[lid] = red1[lid] + red1[lid + s];
            red2[lid] = red2[lid] + red2[lid + s];
            red3[lid] = red3[lid] + red3[lid + s];
        }
        workgroupBarrier();
    }
    let alpha = red0[0];
    let beta = red1[0];
    let g_re = red2[0];
    let g_im = red3[0];
    let big = max(abs(g_re), abs(g_im));
    var gabs = T(0);
    if (big > T(0)) {
        gabs = big * sqrt((g_re / big) * (g_re / big) + (g_im / big) * (g_im / big));
    }
    let size = sqrt(alpha) * sqrt(beta);
    // Negligible columns as in jacobi_step.
    if (min(alpha, beta) <= T(P.tol_rot) * T(P.tol_rot) * T(m) * tau[b]) {
        return;
    }
    if (lid == 0u && gabs > T(P.tol_conv) * size) {
        atomicMax(&flags[b], 1u);
    }
    if (!(gabs > T(P.tol_rot) * size)) {
        return;
    }
    let cs = jacobi_rotation(alpha, beta, gabs);
    let c = cs.x;
    let sn = cs.y;
    // The phase e = conj(gamma) / |gamma| applied to column q.
    let er = g_re / gabs;
    let ei = -g_im / gabs;
    for (var r = lid; r < m; r = r + WG) {
        let xpr = x[pb + 2u * r];
        let xpi = x[pb + 2u * r + 1u];
        let yr = x[qb + 2u * r];
        let yi = x[qb + 2u * r + 1u];
        let wr = er * yr - ei * yi;
        let wi = er * yi + ei * yr;
        x[pb + 2u * r] = c * xpr - sn * wr;
        x[pb + 2u * r + 1u] = c * xpi - sn * wi;
        x[qb + 2u * r] = sn * xpr + c * wr;
        x[qb + 2u * r + 1u] = sn * xpi + c * wi;
    }
    if (P.mode == 1u) {
        let vp = (b * n + p) * n * 2u;
        let vq = (b * n + q) * n * 2u;
        for (var r = lid; r < n; r = r + WG) {
            let xpr = a[vp + 2u * r];
            let xpi = a[vp + 2u * r + 1u];
            let yr = a[vq + 2u * r];
            let yi = a[vq + 2u * r + 1u];
            let wr = er * yr - ei * yi;
            let wi = er * yi + ei * yr;
            a[vp + 2u * r] = c * xpr - sn * wr;
            a[vp + 2u * r + 1u] = c * xpi - sn * wi;
            a[vq + 2u * r] = sn * xpr + c * wr;
            a[vq + 2u * r + 1u] = sn * xpi + c * wi;
        }
    }
}

@compute @workgroup_size(64)
fn clear_flags(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < P.count) {
        atomicStore(&flags[gid.x], 0u);
    }
}

// Pivots (int32 in `flags`, n per matrix) to the permutation (written into `flags` at
// offset count * n): perm starts as the identity and row i is exchanged with piv[i] in turn.
@compute @workgroup_size(64)
fn piv_perm(@builtin(global_invocation_id) gid: vec3<u32>) {
    let b = gid.x;
    if (b >= P.count) {
        return;
    }
    let n = P.n;
    let pbase = P.count * n + b * n;
    for (var i = 0u; i < n; i = i + 1u) {
        atomicStore(&flags[pbase + i], i);
    }
    for (var i = 0u; i < n; i = i + 1u) {
        let p = atomicLoad(&flags[b * n + i]);
        if (p != i && p < n) {
            let t = atomicLoad(&flags[pbase + i]);
            atomicStore(&flags[pbase + i], atomicLoad(&flags[pbase + p]));
            atomicStore(&flags[pbase + p], t);
        }
    }
}
