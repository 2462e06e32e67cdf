// The nonsymmetric eigenproblem (LAPACK's geev path), one workgroup of 64 threads per
// matrix, in global memory. Real matrices live in `h` / `z` (n x n, row-major); complex ones
// in `tc` / `zc` (n x n of interleaved (re, im) pairs). Entry points, in the order the host
// records them:
//
// - hess_real / hess_cplx: Householder reduction to upper Hessenberg form, H = Q^H A Q, for
//   the columns k0..k1 of this launch, accumulating Q into z / zc (set to the identity by
//   the launch with k0 = 0; with mode bit 0 clear, Q is not accumulated). Where one column's
//   step would loop past the budget (large n), P.part splits it over launches: part 1 the
//   reflector of column k = P.k0 (its tau kept in u at index k, a slot no step k reads
//   otherwise), part 2 its application from the left to the columns P.steps..P.maxits, part
//   3 from the right to the rows P.steps..P.maxits (of H and Z); part 0 runs whole steps.
// - qr_real: Francis double-shift QR (dlahqr) to the real Schur form, 2 x 2 blocks with
//   real eigenvalues split by a rotation; qr_cplx: single-shift complex QR (zlahqr) to the
//   complex Schur form. Each launch runs at most P.steps actions (a deflation check or one
//   bulge-chasing step); the state of every matrix (active end, iteration counts, the sweep
//   in progress) lives in `st` (8 words per matrix) between launches. A matrix that needs
//   more than P.maxits sweeps sets its failure word.
// - to_complex: the real Schur form's 2 x 2 blocks (complex pairs) triangularized by a
//   complex rotation (rsf2csf), in tc / zc (the host copies h and z there first), for the
//   blocks starting at columns k0..k1 of this launch.
// - backsub: the eigenvectors of the triangular T (one workgroup per column and matrix),
//   x[j] = 1 and back substitution upwards (ztrevc, small divisors raised to smin); large
//   orders split the substitution's steps over launches (P.part 1).
// - vecs: V = Z X column by column, normalized to unit 2-norm with its largest component
//   real (zgeev); for real input (mode bit 1) the vector of a real eigenvalue is real and
//   the second of a conjugate pair is the conjugate of the first (dgeev). Large orders run
//   the product by ranges of rows (P.part 1), then the normalization (P.part 2).
//
// Per-thread loops stay within lavapipe's loop budget: a launch's k range, its step count and
// the largest order are chosen by the host (see linalg/eig.rs).
{{ENABLES}}
alias T = {{T}};
alias C = vec2<T>;
const WG: u32 = 64u;
const EPS: T = T({{EPS}});
const SAFMIN: T = T({{SAFMIN}});

const DONE: u32 = 0u;
const NONE: u32 = 1u;
const REFLECT: u32 = 2u;
const ROT2: u32 = 3u;

struct Params {
    n: u32,
    batch0: u32,
    steps: u32,
    mode: u32,
    maxits: u32,
    k0: u32,
    k1: u32,
    part: u32,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> h: array<T>;
@group(0) @binding(2) var<storage, read_write> z: array<T>;
@group(0) @binding(3) var<storage, read_write> tc: array<T>;
@group(0) @binding(4) var<storage, read_write> zc: array<T>;
@group(0) @binding(5) var<storage, read_write> u: array<T>;
@group(0) @binding(6) var<storage, read_write> st: array<i32>;
@group(0) @binding(7) var<storage, read_write> y: array<T>;
@group(0) @binding(8) var<storage, read_write> vout: array<T>;

var<workgroup> red: array<T, 64>;
var<workgroup> redi: array<u32, 64>;
var<workgroup> w_act: u32;
var<workgroup> w_k: u32;
var<workgroup> w_hi: u32;
var<workgroup> w_nr: u32;
var<workgroup> w_v: array<T, 4>;
var<workgroup> w_c: array<C, 2>;

// ---- complex arithmetic ----
fn cmul(a: C, b: C) -> C {
    return C(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
fn conj(a: C) -> C {
    return C(a.x, -a.y);
}
fn cabs1(a: C) -> T {
    return abs(a.x) + abs(a.y);
}
fn hyp(a: T, b: T) -> T {
    let m = max(abs(a), abs(b));
    if (m == T(0)) {
        return T(0);
    }
    let p = a / m;
    let q = b / m;
    return m * sqrt(p * p + q * q);
}
fn cabs(a: C) -> T {
    return hyp(a.x, a.y);
}
// Smith's division a / b.
fn cdiv(a: C, b: C) -> C {
    if (abs(b.x) >= abs(b.y)) {
        let r = b.y / b.x;
        let d = b.x + b.y * r;
        return C((a.x + a.y * r) / d, (a.y - a.x * r) / d);
    }
    let r = b.x / b.y;
    let d = b.y + b.x * r;
    return C((a.x * r + a.y) / d, (a.y * r - a.x) / d);
}
// The principal square root.
fn csqrt(a: C) -> C {
    if (a.x == T(0) && a.y == T(0)) {
        return C(T(0), T(0));
    }
    let r = cabs(a);
    if (a.x >= T(0)) {
        let t = sqrt((r + a.x) * T(0.5));
        return C(t, a.y / (T(2) * t));
    }
    let t = sqrt((r - a.x) * T(0.5));
    var s = t;
    if (a.y < T(0)) {
        s = -t;
    }
    return C(abs(a.y) / (T(2) * t), s);
}
fn sgn(a: T) -> T {
    if (a < T(0)) {
        return T(-1);
    }
    return T(1);
}

// ---- element access ----
fn hi(b: u32, i: u32, j: u32) -> u32 {
    return (b * P.n + i) * P.n + j;
}
fn tget(b: u32, i: u32, j: u32) -> C {
    let e = 2u * hi(b, i, j);
    return C(tc[e], tc[e + 1u]);
}
fn tset(b: u32, i: u32, j: u32, v: C) {
    let e = 2u * hi(b, i, j);
    tc[e] = v.x;
    tc[e + 1u] = v.y;
}
fn zget(b: u32, i: u32, j: u32) -> C {
    let e = 2u * hi(b, i, j);
    return C(zc[e], zc[e + 1u]);
}
fn zset(b: u32, i: u32, j: u32, v: C) {
    let e = 2u * hi(b, i, j);
    zc[e] = v.x;
    zc[e + 1u] = v.y;
}
fn yget(b: u32, i: u32, j: u32) -> C {
    let e = 2u * hi(b, i, j);
    return C(y[e], y[e + 1u]);
}
fn yset(b: u32, i: u32, j: u32, v: C) {
    let e = 2u * hi(b, i, j);
    y[e] = v.x;
    y[e + 1u] = v.y;
}
fn vget(b: u32, i: u32, j: u32) -> C {
    let e = 2u * hi(b, i, j);
    return C(vout[e], vout[e + 1u]);
}
fn vset(b: u32, i: u32, j: u32, v: C) {
    let e = 2u * hi(b, i, j);
    vout[e] = v.x;
    vout[e + 1u] = v.y;
}

fn wants_z() -> bool {
    return (P.mode & 1u) != 0u;
}

// Mode bit 2 of the Hessenberg launches: the host has set Z to the identity (orders whose
// n^2 / 64 iterations would not fit one launch).
fn z_preset() -> bool {
    return (P.mode & 4u) != 0u;
}

// Sums red over the workgroup (result in red[0]; every thread must call it).
fn reduce_sum(lid: u32) {
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s >> 1u) {
        if (lid < s) {
            red[lid] = red[lid] + red[lid + s];
        }
        workgroupBarrier();
    }
}
fn reduce_max(lid: u32) {
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s >> 1u) {
        if (lid < s) {
            red[lid] = max(red[lid], red[lid + s]);
        }
        workgroupBarrier();
    }
}

// ---- Hessenberg reduction ----

// The reflector of column k of H (rows k + 1..): v into u (v[k + 1] = 1), tau into u[k],
// the column made (beta, 0, ...).
fn hess_reflector_real(b: u32, k: u32, lid: u32) {
    let n = P.n;
    let ub = b * n;
    let alpha = h[hi(b, k + 1u, k)];
    var big = T(0);
    for (var i = k + 2u + lid; i < n; i = i + WG) {
        big = max(big, abs(h[hi(b, i, k)]));
    }
    red[lid] = big;
    reduce_max(lid);
    let scale = red[0];
    workgroupBarrier();
    var ss = T(0);
    if (scale > T(0)) {
        for (var i = k + 2u + lid; i < n; i = i + WG) {
            let v = h[hi(b, i, k)] / scale;
            ss = ss + v * v;
        }
    }
    red[lid] = ss;
    reduce_sum(lid);
    let xnorm = scale * sqrt(red[0]);
    var tau = T(0);
    var inv = T(0);
    var beta = alpha;
    if (xnorm > T(0)) {
        beta = -sgn(alpha) * hyp(alpha, xnorm);
        tau = (beta - alpha) / beta;
        inv = T(1) / (alpha - beta);
    }
    for (var i = k + 1u + lid; i < n; i = i + WG) {
        if (i == k + 1u) {
            u[ub + i] = T(1);
            h[hi(b, i, k)] = beta;
        } else {
            u[ub + i] = h[hi(b, i, k)] * inv;
            h[hi(b, i, k)] = T(0);
        }
    }
    if (lid == 0u) {
        u[ub + k] = tau;
    }
}

// Left: H[k+1:, j] -= tau v (v^T H[k+1:, j]) for the columns j of j0..j1 past k.
fn hess_left_real(b: u32, k: u32, j0: u32, j1: u32, lid: u32) {
    let n = P.n;
    let ub = b * n;
    let tau = u[ub + k];
    for (var j = max(j0, k + 1u) + lid; j < j1; j = j + WG) {
        var s = T(0);
        for (var i = k + 1u; i < n; i = i + 1u) {
            s = s + u[ub + i] * h[hi(b, i, j)];
        }
        s = s * tau;
        for (var i = k + 1u; i < n; i = i + 1u) {
            h[hi(b, i, j)] = h[hi(b, i, j)] - s * u[ub + i];
        }
    }
}

// Right: H[i, k+1:] -= tau (H[i, k+1:] v) v^T for the rows i of i0..i1, and Z alike.
fn hess_right_real(b: u32, k: u32, i0: u32, i1: u32, lid: u32) {
    let n = P.n;
    let ub = b * n;
    let tau = u[ub + k];
    for (var i = i0 + lid; i < i1; i = i + WG) {
        var s = T(0);
        for (var j = k + 1u; j < n; j = j + 1u) {
            s = s + h[hi(b, i, j)] * u[ub + j];
        }
        s = s * tau;
        for (var j = k + 1u; j < n; j = j + 1u) {
            h[hi(b, i, j)] = h[hi(b, i, j)] - s * u[ub + j];
        }
        if (wants_z()) {
            var t = T(0);
            for (var j = k + 1u; j < n; j = j + 1u) {
                t = t + z[hi(b, i, j)] * u[ub + j];
            }
            t = t * tau;
            for (var j = k + 1u; j < n; j = j + 1u) {
                z[hi(b, i, j)] = z[hi(b, i, j)] - t * u[ub + j];
            }
        }
    }
}

@compute @workgroup_size(64)
fn hess_real(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = P.batch0 + wid.x;
    let n = P.n;
    if (P.k0 == 0u && P.part <= 1u && wants_z() && !z_preset()) {
        for (var e = lid; e < n * n; e = e + WG) {
            z[b * n * n + e] = select(T(0), T(1), e / n == e % n);
        }
    }
    storageBarrier();
    if (P.part == 1u) {
        hess_reflector_real(b, P.k0, lid);
        return;
    }
    if (P.part == 2u) {
        hess_left_real(b, P.k0, P.steps, P.maxits, lid);
        return;
    }
    if (P.part == 3u) {
        hess_right_real(b, P.k0, P.steps, P.maxits, lid);
        return;
    }
    for (var k = P.k0; k < P.k1; k = k + 1u) {
        hess_reflector_real(b, k, lid);
        storageBarrier();
        hess_left_real(b, k, 0u, n, lid);
        storageBarrier();
        hess_right_real(b, k, 0u, n, lid);
        storageBarrier();
    }
}

fn uget(ub: u32, i: u32) -> C {
    return C(u[2u * (ub + i)], u[2u * (ub + i) + 1u]);
}

// The complex reflector of column k of H (as hess_reflector_real; tau complex in u[k]).
fn hess_reflector_cplx(b: u32, k: u32, lid: u32) {
    let n = P.n;
    let ub = b * n;
    let alpha = tget(b, k + 1u, k);
    var big = T(0);
    for (var i = k + 2u + lid; i < n; i = i + WG) {
        let v = tget(b, i, k);
        big = max(big, max(abs(v.x), abs(v.y)));
    }
    red[lid] = big;
    reduce_max(lid);
    let scale = red[0];
    workgroupBarrier();
    var ss = T(0);
    if (scale > T(0)) {
        for (var i = k + 2u + lid; i < n; i = i + WG) {
            let v = tget(b, i, k) / scale;
            ss = ss + dot(v, v);
        }
    }
    red[lid] = ss;
    reduce_sum(lid);
    let xnorm = scale * sqrt(red[0]);
    var tau = C(T(0), T(0));
    var inv = C(T(0), T(0));
    var beta = alpha;
    if (xnorm > T(0) || alpha.y != T(0)) {
        let bb = -sgn(alpha.x) * hyp(cabs(alpha), xnorm);
        beta = C(bb, T(0));
        tau = C((bb - alpha.x) / bb, -alpha.y / bb);
        inv = cdiv(C(T(1), T(0)), alpha - beta);
    }
    for (var i = k + 1u + lid; i < n; i = i + WG) {
        let e = 2u * (ub + i);
        if (i == k + 1u) {
            u[e] = T(1);
            u[e + 1u] = T(0);
            tset(b, i, k, beta);
        } else {
            let v = cmul(tget(b, i, k), inv);
            u[e] = v.x;
            u[e + 1u] = v.y;
            tset(b, i, k, C(T(0), T(0)));
        }
    }
    if (lid == 0u) {
        u[2u * (ub + k)] = tau.x;
        u[2u * (ub + k) + 1u] = tau.y;
    }
}

// Left: H := (I - conj(tau) v v^H) H on rows k+1.., for the columns j0..j1 past k.
fn hess_left_cplx(b: u32, k: u32, j0: u32, j1: u32, lid: u32) {
    let n = P.n;
    let ub = b * n;
    let ctau = conj(uget(ub, k));
    for (var j = max(j0, k + 1u) + lid; j < j1; j = j + WG) {
        var s = C(T(0), T(0));
        for (var i = k + 1u; i < n; i = i + 1u) {
            s = s + cmul(conj(uget(ub, i)), tget(b, i, j));
        }
        s = cmul(s, ctau);
        for (var i = k + 1u; i < n; i = i + 1u) {
            tset(b, i, j, tget(b, i, j) - cmul(s, uget(ub, i)));
        }
    }
}

// Right: H := H (I - tau v v^H) on the rows i0..i1, and Z alike.
fn hess_right_cplx(b: u32, k: u32, i0: u32, i1: u32, lid: u32) {
    let n = P.n;
    let ub = b * n;
    let tau = uget(ub, k);
    for (var i = i0 + lid; i < i1; i = i + WG) {
        var s = C(T(0), T(0));
        for (var j = k + 1u; j < n; j = j + 1u) {
            s = s + cmul(tget(b, i, j), uget(ub, j));
        }
        s = cmul(s, tau);
        for (var j = k + 1u; j < n; j = j + 1u) {
            tset(b, i, j, tget(b, i, j) - cmul(s, conj(uget(ub, j))));
        }
        if (wants_z()) {
            var t = C(T(0), T(0));
            for (var j = k + 1u; j < n; j = j + 1u) {
                t = t + cmul(zget(b, i, j), uget(ub, j));
            }
            t = cmul(t, tau);
            for (var j = k + 1u; j < n; j = j + 1u) {
                zset(b, i, j, zget(b, i, j) - cmul(t, conj(uget(ub, j))));
            }
        }
    }
}

@compute @workgroup_size(64)
fn hess_cplx(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = P.batch0 + wid.x;
    let n = P.n;
    if (P.k0 == 0u && P.part <= 1u && wants_z() && !z_preset()) {
        for (var e = lid; e < n * n; e = e + WG) {
            zset(b, e / n, e % n, C(select(T(0), T(1), e / n == e % n), T(0)));
        }
    }
    storageBarrier();
    if (P.part == 1u) {
        hess_reflector_cplx(b, P.k0, lid);
        return;
    }
    if (P.part == 2u) {
        hess_left_cplx(b, P.k0, P.steps, P.maxits, lid);
        return;
    }
    if (P.part == 3u) {
        hess_right_cplx(b, P.k0, P.steps, P.maxits, lid);
        return;
    }
    for (var k = P.k0; k < P.k1; k = k + 1u) {
        hess_reflector_cplx(b, k, lid);
        storageBarrier();
        hess_left_cplx(b, k, 0u, n, lid);
        storageBarrier();
        hess_right_cplx(b, k, 0u, n, lid);
        storageBarrier();
    }
}

// ---- QR iterations, real ----

fn hr(b: u32, i: u32, j: u32) -> T {
    return h[hi(b, i, j)];
}

// The active block's lower end: the largest l <= ihi whose subdiagonal entry is negligible
// (set to zero), or 0. `abs1` of the real or complex entries.
fn deflation_real(b: u32, ihi: u32) -> u32 {
    var l = ihi;
    loop {
        if (l == 0u) {
            break;
        }
        let sub = abs(hr(b, l, l - 1u));
        var tst = abs(hr(b, l - 1u, l - 1u)) + abs(hr(b, l, l));
        if (tst == T(0)) {
            if (l >= 2u) {
                tst = tst + abs(hr(b, l - 1u, l - 2u));
            }
            if (l + 1u <= ihi) {
                tst = tst + abs(hr(b, l + 1u, l));
            }
        }
        if (sub <= SAFMIN || sub <= EPS * tst) {
            h[hi(b, l, l - 1u)] = T(0);
            break;
        }
        l = l - 1u;
    }
    return l;
}

// The reflector of step k of a sweep over l..ihi taking (x, y, z) to (beta, 0, 0).
fn reflect_real(b: u32, k: u32, l: u32, ihi: u32, x: T, yy: T, zz: T) {
    let nr = min(3u, ihi - k + 1u);
    let xn = hyp(yy, zz);
    var tau = T(0);
    var v1 = T(0);
    var v2 = T(0);
    var beta = x;
    if (xn > T(0)) {
        beta = -sgn(x) * hyp(x, xn);
        tau = (beta - x) / beta;
        let sc = T(1) / (x - beta);
        v1 = yy * sc;
        v2 = zz * sc;
    }
    if (k > l) {
        h[hi(b, k, k - 1u)] = beta;
        h[hi(b, k + 1u, k - 1u)] = T(0);
        if (nr == 3u) {
            h[hi(b, k + 2u, k - 1u)] = T(0);
        }
    }
    w_v[0] = v1;
    w_v[1] = v2;
    w_v[2] = tau;
    w_k = k;
    w_hi = ihi;
    w_nr = nr;
    w_act = REFLECT;
}

// The (scaled) 2 x 2 block at (l, l): a, b, c, d over s = |a| + |b| + |c| + |d|.
fn block(b: u32, l: u32) -> vec4<T> {
    let v = vec4<T>(hr(b, l, l), hr(b, l, l + 1u), hr(b, l + 1u, l), hr(b, l + 1u, l + 1u));
    let s = abs(v.x) + abs(v.y) + abs(v.z) + abs(v.w);
    if (s == T(0)) {
        return v;
    }
    return v / s;
}

// Thread 0: what this step of qr_real does (w_act and its parameters), updating st.
fn plan_real(b: u32) {
    let sb = b * 8u;
    let ihi1 = st[sb];
    if (st[sb + 2u] != 0 || ihi1 <= 0) {
        w_act = DONE;
        return;
    }
    let ihi = u32(ihi1 - 1);
    if (st[sb + 4u] != 0) {
        // The next bulge-chasing step of the sweep in progress.
        let k = u32(st[sb + 5u]);
        let l = u32(st[sb + 6u]);
        var zz = T(0);
        if (k + 2u <= ihi) {
            zz = hr(b, k + 2u, k - 1u);
        }
        reflect_real(b, k, l, ihi, hr(b, k, k - 1u), hr(b, k + 1u, k - 1u), zz);
        if (k + 1u >= ihi) {
            st[sb + 4u] = 0;
        } else {
            st[sb + 5u] = i32(k + 1u);
        }
        return;
    }
    let l = deflation_real(b, ihi);
    if (l == ihi) {
        st[sb] = ihi1 - 1;
        st[sb + 1u] = 0;
        w_act = NONE;
        return;
    }
    if (l + 1u == ihi) {
        st[sb] = ihi1 - 2;
        st[sb + 1u] = 0;
        let q = block(b, l);
        let p = T(0.5) * (q.x - q.w);
        let disc = p * p + q.y * q.z;
        if (disc >= T(0)) {
            // Real eigenvalues: the rotation whose first column is the eigenvector
            // (lambda - d, c) of lambda = d + p + sign(p) sqrt(disc).
            let zz = p + sgn(p) * sqrt(disc);
            let r = hyp(zz, q.z);
            w_v[0] = zz / r;
            w_v[1] = q.z / r;
            w_k = l;
            w_act = ROT2;
        } else {
            w_act = NONE;
        }
        return;
    }
    let its = st[sb + 1u] + 1;
    let total = st[sb + 3u] + 1;
    st[sb + 1u] = its;
    st[sb + 3u] = total;
    if (u32(total) > P.maxits) {
        st[sb + 2u] = 1;
        w_act = DONE;
        return;
    }
    // Shifts (dlahqr): the trailing 2 x 2 block's eigenvalues, or exceptional ones.
    var h11 = hr(b, ihi - 1u, ihi - 1u);
    var h21 = hr(b, ihi, ihi - 1u);
    var h12 = hr(b, ihi - 1u, ihi);
    var h22 = hr(b, ihi, ihi);
    if (its % 30 == 10) {
        let s = abs(hr(b, l + 1u, l)) + abs(hr(b, l + 2u, l + 1u));
        h11 = T(0.75) * s + hr(b, l, l);
        h12 = T(-0.4375) * s;
        h21 = s;
        h22 = h11;
    } else if (its % 30 == 20) {
        let s = abs(hr(b, ihi, ihi - 1u)) + abs(hr(b, ihi - 1u, ihi - 2u));
        h11 = T(0.75) * s + hr(b, ihi, ihi);
        h12 = T(-0.4375) * s;
        h21 = s;
        h22 = h11;
    }
    let s = abs(h11) + abs(h12) + abs(h21) + abs(h22);
    var rt1r = T(0);
    var rt1i = T(0);
    var rt2r = T(0);
    var rt2i = T(0);
    if (s != T(0)) {
        let a11 = h11 / s;
        let a21 = h21 / s;
        let a12 = h12 / s;
        let a22 = h22 / s;
        let tr = (a11 + a22) * T(0.5);
        let det = (a11 - tr) * (a22 - tr) - a12 * a21;
        let rtdisc = sqrt(abs(det));
        if (det >= T(0)) {
            rt1r = tr * s;
            rt2r = rt1r;
            rt1i = rtdisc * s;
            rt2i = -rt1i;
        } else {
            rt1r = tr + rtdisc;
            rt2r = tr - rtdisc;
            if (abs(rt1r - a22) <= abs(rt2r - a22)) {
                rt1r = rt1r * s;
                rt2r = rt1r;
            } else {
                rt2r = rt2r * s;
                rt1r = rt2r;
            }
        }
    }
    // The first column of (H - s1 I)(H - s2 I), scaled.
    let hll = hr(b, l, l);
    var h21s = hr(b, l + 1u, l);
    let sc = abs(hll - rt2r) + abs(rt2i) + abs(h21s);
    var x = T(0);
    var yy = T(0);
    var zz = T(0);
    if (sc != T(0)) {
        h21s = h21s / sc;
        x = h21s * hr(b, l, l + 1u) + (hll - rt1r) * ((hll - rt2r) / sc) - rt1i * (rt2i / sc);
        yy = h21s * (hll + hr(b, l + 1u, l + 1u) - rt1r - rt2r);
        zz = h21s * hr(b, l + 2u, l + 1u);
    }
    reflect_real(b, l, l, ihi, x, yy, zz);
    st[sb + 4u] = 1;
    st[sb + 5u] = i32(l + 1u);
    st[sb + 6u] = i32(l);
}

@compute @workgroup_size(64)
fn qr_real(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = P.batch0 + wid.x;
    let n = P.n;
    for (var step = 0u; step < P.steps; step = step + 1u) {
        if (lid == 0u) {
            plan_real(b);
        }
        storageBarrier();
        let act = workgroupUniformLoad(&w_act);
        if (act == DONE) {
            break;
        }
        let k = w_k;
        if (act == REFLECT) {
            let v1 = w_v[0];
            let v2 = w_v[1];
            let tau = w_v[2];
            let three = w_nr == 3u;
            for (var j = k + lid; j < n; j = j + WG) {
                var s = hr(b, k, j) + v1 * hr(b, k + 1u, j);
                if (three) {
                    s = s + v2 * hr(b, k + 2u, j);
                }
                s = s * tau;
                h[hi(b, k, j)] = hr(b, k, j) - s;
                h[hi(b, k + 1u, j)] = hr(b, k + 1u, j) - s * v1;
                if (three) {
                    h[hi(b, k + 2u, j)] = hr(b, k + 2u, j) - s * v2;
                }
            }
            storageBarrier();
            let last = min(k + 3u, w_hi);
            for (var i = lid; i <= last; i = i + WG) {
                var s = hr(b, i, k) + v1 * hr(b, i, k + 1u);
                if (three) {
                    s = s + v2 * hr(b, i, k + 2u);
                }
                s = s * tau;
                h[hi(b, i, k)] = hr(b, i, k) - s;
                h[hi(b, i, k + 1u)] = hr(b, i, k + 1u) - s * v1;
                if (three) {
                    h[hi(b, i, k + 2u)] = hr(b, i, k + 2u) - s * v2;
                }
            }
            if (wants_z()) {
                for (var i = lid; i < n; i = i + WG) {
                    var s = z[hi(b, i, k)] + v1 * z[hi(b, i, k + 1u)];
                    if (three) {
                        s = s + v2 * z[hi(b, i, k + 2u)];
                    }
                    s = s * tau;
                    z[hi(b, i, k)] = z[hi(b, i, k)] - s;
                    z[hi(b, i, k + 1u)] = z[hi(b, i, k + 1u)] - s * v1;
                    if (three) {
                        z[hi(b, i, k + 2u)] = z[hi(b, i, k + 2u)] - s * v2;
                    }
                }
            }
        } else if (act == ROT2) {
            let cs = w_v[0];
            let sn = w_v[1];
            for (var j = k + lid; j < n; j = j + WG) {
                let p = hr(b, k, j);
                let q = hr(b, k + 1u, j);
                h[hi(b, k, j)] = cs * p + sn * q;
                h[hi(b, k + 1u, j)] = cs * q - sn * p;
            }
            storageBarrier();
            for (var i = lid; i <= k + 1u; i = i + WG) {
                let p = hr(b, i, k);
                let q = hr(b, i, k + 1u);
                h[hi(b, i, k)] = cs * p + sn * q;
                h[hi(b, i, k + 1u)] = cs * q - sn * p;
            }
            if (wants_z()) {
                for (var i = lid; i < n; i = i + WG) {
                    let p = z[hi(b, i, k)];
                    let q = z[hi(b, i, k + 1u)];
                    z[hi(b, i, k)] = cs * p + sn * q;
                    z[hi(b, i, k + 1u)] = cs * q - sn * p;
                }
            }
            storageBarrier();
            if (lid == 0u) {
                h[hi(b, k + 1u, k)] = T(0);
            }
        }
        storageBarrier();
    }
}

// ---- QR iterations, complex ----

fn deflation_cplx(b: u32, ihi: u32) -> u32 {
    var l = ihi;
    loop {
        if (l == 0u) {
            break;
        }
        let sub = cabs1(tget(b, l, l - 1u));
        var tst = cabs1(tget(b, l - 1u, l - 1u)) + cabs1(tget(b, l, l));
        if (tst == T(0)) {
            if (l >= 2u) {
                tst = tst + abs(tget(b, l - 1u, l - 2u).x);
            }
            if (l + 1u <= ihi) {
                tst = tst + abs(tget(b, l + 1u, l).x);
            }
        }
        if (sub <= SAFMIN || sub <= EPS * tst) {
            tset(b, l, l - 1u, C(T(0), T(0)));
            break;
        }
        l = l - 1u;
    }
    return l;
}

// The rotation G = [[c, s], [-conj(s), c]] of step k taking (x, y) to (r, 0).
fn rotate_cplx(b: u32, k: u32, l: u32, ihi: u32, x: C, yy: C) {
    let ax = cabs(x);
    let ay = cabs(yy);
    var c = T(1);
    var s = C(T(0), T(0));
    var r = x;
    if (ay == T(0)) {
        c = T(1);
    } else if (ax == T(0)) {
        c = T(0);
        s = conj(yy) / ay;
        r = C(ay, T(0));
    } else {
        let nrm = hyp(ax, ay);
        c = ax / nrm;
        let ph = x / ax;
        s = cmul(ph, conj(yy)) / nrm;
        r = ph * nrm;
    }
    if (k > l) {
        tset(b, k, k - 1u, r);
        tset(b, k + 1u, k - 1u, C(T(0), T(0)));
    }
    w_v[0] = c;
    w_c[0] = s;
    w_k = k;
    w_hi = ihi;
    w_act = REFLECT;
}

fn plan_cplx(b: u32) {
    let sb = b * 8u;
    let ihi1 = st[sb];
    if (st[sb + 2u] != 0 || ihi1 <= 0) {
        w_act = DONE;
        return;
    }
    let ihi = u32(ihi1 - 1);
    if (st[sb + 4u] != 0) {
        let k = u32(st[sb + 5u]);
        let l = u32(st[sb + 6u]);
        rotate_cplx(b, k, l, ihi, tget(b, k, k - 1u), tget(b, k + 1u, k - 1u));
        if (k + 1u >= ihi) {
            st[sb + 4u] = 0;
        } else {
            st[sb + 5u] = i32(k + 1u);
        }
        return;
    }
    let l = deflation_cplx(b, ihi);
    if (l == ihi) {
        st[sb] = ihi1 - 1;
        st[sb + 1u] = 0;
        w_act = NONE;
        return;
    }
    let its = st[sb + 1u] + 1;
    let total = st[sb + 3u] + 1;
    st[sb + 1u] = its;
    st[sb + 3u] = total;
    if (u32(total) > P.maxits) {
        st[sb + 2u] = 1;
        w_act = DONE;
        return;
    }
    // Shift (zlahqr): the trailing block's eigenvalue nearer its last entry, or exceptional.
    var t = tget(b, ihi, ihi);
    if (its % 30 == 10) {
        t = tget(b, l, l) + C(T(0.75) * abs(tget(b, l + 1u, l).x), T(0));
    } else if (its % 30 == 20) {
        t = t + C(T(0.75) * abs(tget(b, ihi, ihi - 1u).x), T(0));
    } else {
        let uu = cmul(csqrt(tget(b, ihi - 1u, ihi)), csqrt(tget(b, ihi, ihi - 1u)));
        var s = cabs1(uu);
        if (s != T(0)) {
            let x = (tget(b, ihi - 1u, ihi - 1u) - t) * T(0.5);
            let sx = cabs1(x);
            s = max(s, sx);
            let xs = x / s;
            let us = uu / s;
            var yv = csqrt(cmul(xs, xs) + cmul(us, us)) * s;
            if (sx > T(0)) {
                let xn = x / sx;
                if (xn.x * yv.x + xn.y * yv.y < T(0)) {
                    yv = -yv;
                }
            }
            t = t - cmul(uu, cdiv(uu, x + yv));
        }
    }
    rotate_cplx(b, l, l, ihi, tget(b, l, l) - t, tget(b, l + 1u, l));
    if (l + 1u < ihi) {
        st[sb + 4u] = 1;
        st[sb + 5u] = i32(l + 1u);
        st[sb + 6u] = i32(l);
    }
}

@compute @workgroup_size(64)
fn qr_cplx(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = P.batch0 + wid.x;
    let n = P.n;
    for (var step = 0u; step < P.steps; step = step + 1u) {
        if (lid == 0u) {
            plan_cplx(b);
        }
        storageBarrier();
        let act = workgroupUniformLoad(&w_act);
        if (act == DONE) {
            break;
        }
        if (act == REFLECT) {
            let k = w_k;
            let c = w_v[0];
            let s = w_c[0];
            for (var j = k + lid; j < n; j = j + WG) {
                let p = tget(b, k, j);
                let q = tget(b, k + 1u, j);
                tset(b, k, j, c * p + cmul(s, q));
                tset(b, k + 1u, j, c * q - cmul(conj(s), p));
            }
            storageBarrier();
            let last = min(k + 2u, w_hi);
            for (var i = lid; i <= last; i = i + WG) {
                let p = tget(b, i, k);
                let q = tget(b, i, k + 1u);
                tset(b, i, k, c * p + cmul(conj(s), q));
                tset(b, i, k + 1u, c * q - cmul(s, p));
            }
            if (wants_z()) {
                for (var i = lid; i < n; i = i + WG) {
                    let p = zget(b, i, k);
                    let q = zget(b, i, k + 1u);
                    zset(b, i, k, c * p + cmul(conj(s), q));
                    zset(b, i, k + 1u, c * q - cmul(s, p));
                }
            }
        }
        storageBarrier();
    }
}

// ---- the real Schur form made complex triangular ----

@compute @workgroup_size(64)
fn to_complex(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = P.batch0 + wid.x;
    let n = P.n;
    for (var j = P.k0; j + 1u < n && j < P.k1; j = j + 1u) {
        if (lid == 0u) {
            w_act = NONE;
            if (hr(b, j + 1u, j) != T(0)) {
                // The same scaled block and discriminant as plan_real's (negative here).
                let v = vec4<T>(hr(b, j, j), hr(b, j, j + 1u), hr(b, j + 1u, j), hr(b, j + 1u, j + 1u));
                let sc = abs(v.x) + abs(v.y) + abs(v.z) + abs(v.w);
                let q = v / sc;
                let p = T(0.5) * (q.x - q.w);
                let disc = p * p + q.y * q.z;
                let im = sqrt(max(-disc, T(0)));
                // Eigenvector (lambda - d, c) of lambda = d + p + i im, normalized: (alpha, beta).
                let r = hyp(hyp(p, im), q.z);
                w_c[0] = C(p / r, im / r);
                w_v[0] = q.z / r;
                w_c[1] = C((q.w + p) * sc, im * sc);
                w_act = ROT2;
            }
        }
        storageBarrier();
        let act = workgroupUniformLoad(&w_act);
        if (act == ROT2) {
            let al = w_c[0];
            let be = w_v[0];
            // Rows: G^H = [[conj(al), be], [-be, al]].
            for (var c = j + lid; c < n; c = c + WG) {
                let p = tget(b, j, c);
                let q = tget(b, j + 1u, c);
                tset(b, j, c, cmul(conj(al), p) + be * q);
                tset(b, j + 1u, c, cmul(al, q) - be * p);
            }
            storageBarrier();
            // Columns: G = [[al, -be], [be, conj(al)]].
            for (var i = lid; i <= j + 1u; i = i + WG) {
                let p = tget(b, i, j);
                let q = tget(b, i, j + 1u);
                tset(b, i, j, cmul(al, p) + be * q);
                tset(b, i, j + 1u, cmul(conj(al), q) - be * p);
            }
            if (wants_z()) {
                for (var i = lid; i < n; i = i + WG) {
                    let p = zget(b, i, j);
                    let q = zget(b, i, j + 1u);
                    zset(b, i, j, cmul(al, p) + be * q);
                    zset(b, i, j + 1u, cmul(conj(al), q) - be * p);
                }
            }
            storageBarrier();
            if (lid == 0u) {
                let lam = w_c[1];
                tset(b, j + 1u, j, C(T(0), T(0)));
                tset(b, j, j, lam);
                tset(b, j + 1u, j + 1u, conj(lam));
            }
        }
        storageBarrier();
        workgroupBarrier();
    }
}

// ---- eigenvectors ----

@compute @workgroup_size(64)
fn backsub(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let j = wid.x;
    let b = P.batch0 + wid.y;
    let n = P.n;
    // P.part 1: only the steps P.k0..P.k1 of the substitution (the launch with P.k0 = 0
    // also sets up y); part 0: all of it.
    var first = 0u;
    var last = j;
    if (P.part == 1u) {
        first = P.k0;
        last = min(P.k1, j);
    }
    if (first == 0u) {
        for (var i = lid; i < n; i = i + WG) {
            var v = C(T(0), T(0));
            if (i < j) {
                v = tget(b, i, j);
            } else if (i == j) {
                v = C(T(1), T(0));
            }
            yset(b, i, j, v);
        }
    }
    let lam = tget(b, j, j);
    let smin = max(EPS * cabs1(lam), SAFMIN * (T(n) / EPS));
    storageBarrier();
    for (var ii = first; ii < last; ii = ii + 1u) {
        let i = j - 1u - ii;
        if (lid == 0u) {
            var d = tget(b, i, i) - lam;
            if (cabs1(d) < smin) {
                d = C(smin, T(0));
            }
            let x = -cdiv(yget(b, i, j), d);
            yset(b, i, j, x);
            w_c[0] = x;
        }
        workgroupBarrier();
        let x = w_c[0];
        for (var r = lid; r < i; r = r + WG) {
            yset(b, r, j, yget(b, r, j) + cmul(tget(b, r, i), x));
        }
        storageBarrier();
        workgroupBarrier();
    }
}

@compute @workgroup_size(64)
fn vecs(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let j = wid.x;
    let b = P.batch0 + wid.y;
    let n = P.n;
    let real_input = (P.mode & 2u) != 0u;
    var src = j;
    var flip = false;
    if (real_input && j > 0u && tget(b, j, j).y < T(0)) {
        src = j - 1u;
        flip = true;
    }
    let real_vec = real_input && tget(b, src, src).y == T(0);
    // P.part 1: only the rows P.k0..P.k1 of the product; part 2: only the normalization;
    // part 0: both.
    if (P.part != 2u) {
        var r0 = 0u;
        var r1 = n;
        if (P.part == 1u) {
            r0 = P.k0;
            r1 = min(P.k1, n);
        }
        for (var i = r0 + lid; i < r1; i = i + WG) {
            var acc = C(T(0), T(0));
            for (var k = 0u; k <= src; k = k + 1u) {
                acc = acc + cmul(zget(b, i, k), yget(b, k, src));
            }
            if (real_vec) {
                acc.y = T(0);
            }
            vset(b, i, j, acc);
        }
        if (P.part == 1u) {
            return;
        }
        storageBarrier();
    }
    var big = T(0);
    for (var i = lid; i < n; i = i + WG) {
        let acc = vget(b, i, j);
        big = max(big, max(abs(acc.x), abs(acc.y)));
    }
    red[lid] = big;
    reduce_max(lid);
    let scale = red[0];
    workgroupBarrier();
    // The sum of squares (scaled) and the first index of the largest |v_i|^2.
    var ss = T(0);
    var best = T(-1);
    var at = 0u;
    for (var i = lid; i < n; i = i + WG) {
        var v = vget(b, i, j);
        if (scale > T(0)) {
            v = v / scale;
        }
        let m = dot(v, v);
        ss = ss + m;
        if (m > best) {
            best = m;
            at = i;
        }
    }
    red[lid] = ss;
    reduce_sum(lid);
    let nrm = scale * sqrt(red[0]);
    workgroupBarrier();
    red[lid] = best;
    redi[lid] = at;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s >> 1u) {
        if (lid < s) {
            let o = red[lid + s];
            let oi = redi[lid + s];
            if (o > red[lid] || (o == red[lid] && oi < redi[lid])) {
                red[lid] = o;
                redi[lid] = oi;
            }
        }
        workgroupBarrier();
    }
    let kmax = redi[0];
    var f = C(T(1), T(0));
    if (nrm > T(0)) {
        f = C(T(1) / nrm, T(0));
        if (!real_vec) {
            let vk = vget(b, kmax, j);
            let a = cabs(vk);
            if (a > T(0)) {
                f = conj(vk) / (a * nrm);
            }
        }
    }
    storageBarrier();
    for (var i = lid; i < n; i = i + WG) {
        var v = cmul(vget(b, i, j), f);
        if (i == kmax || real_vec) {
            v.y = T(0);
        }
        if (flip) {
            v = conj(v);
        }
        vset(b, i, j, v);
    }
}
