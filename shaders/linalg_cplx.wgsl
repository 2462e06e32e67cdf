// LU with partial pivoting and Cholesky of complex matrices (interleaved (re, im) pairs of
// T), one workgroup of 64 threads per matrix, in place in global memory, for the columns
// k0..k1 of this launch (the host splits the columns over launches within lavapipe's loop
// budget; the factors and pivots carry the state between launches).
//
// - lu_cplx: LAPACK's getrf: the pivot is the first row of largest |re| + |im| in column k;
//   piv[k] (i32, n per matrix) is the row swapped with row k; an exactly zero pivot column
//   is left as it is (U_kk = 0: a singular matrix).
// - chol_cplx: the lower factor L (A = L L^H) from the lower triangle, the strict upper
//   triangle zeroed; a non-positive (or NaN) Re A_kk sets info (i32 per matrix) to k + 1
//   once (the factor is then meaningless and the host reports it).
// - qr_cplx: Householder QR of m x n matrices (zgeqrf's convention: H = I - tau v v^H,
//   v[k] = 1 stored below the diagonal, the real beta on it), reflectors k0..k1; tau is
//   complex, kmax = min(m, n) per matrix.
// - formq_cplx: X := H_k X for k from k1 - 1 down to k0, X the m x xc matrices of `x`
//   (Q's first xc columns when X starts as the identity and every reflector is applied).
{{ENABLES}}
alias T = {{T}};
alias C = vec2<T>;
const WG: u32 = 64u;

struct Params {
    n: u32,
    batch0: u32,
    k0: u32,
    k1: u32,
    m: u32,
    xc: u32,
    pad0: u32,
    pad1: u32,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> a: array<T>;
@group(0) @binding(2) var<storage, read_write> aux: array<i32>;
@group(0) @binding(3) var<storage, read_write> tau: array<T>;
@group(0) @binding(4) var<storage, read_write> x: array<T>;

var<workgroup> red: array<T, 64>;
var<workgroup> redi: array<u32, 64>;

fn cmul(x: C, y: C) -> C {
    return C(x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x);
}
// Smith's division x / y.
fn cdiv(x: C, y: C) -> C {
    if (abs(y.x) >= abs(y.y)) {
        let r = y.y / y.x;
        let d = y.x + y.y * r;
        return C((x.x + x.y * r) / d, (x.y - x.x * r) / d);
    }
    let r = y.x / y.y;
    let d = y.y + y.x * r;
    return C((x.x * r + x.y) / d, (x.y * r - x.x) / d);
}
fn at(b: u32, i: u32, j: u32) -> u32 {
    return 2u * ((b * P.n + i) * P.n + j);
}
fn load(b: u32, i: u32, j: u32) -> C {
    let e = at(b, i, j);
    return C(a[e], a[e + 1u]);
}
fn store(b: u32, i: u32, j: u32, v: C) {
    let e = at(b, i, j);
    a[e] = v.x;
    a[e + 1u] = v.y;
}

@compute @workgroup_size(64)
fn lu_cplx(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = P.batch0 + wid.x;
    let n = P.n;
    for (var k = P.k0; k < P.k1; k = k + 1u) {
        // The pivot: the first row of largest |re| + |im| in column k, rows k..n.
        var best = T(-1);
        var row = k;
        for (var i = k + lid; i < n; i = i + WG) {
            let v = load(b, i, k);
            let m = abs(v.x) + abs(v.y);
            if (m > best) {
                best = m;
                row = i;
            }
        }
        red[lid] = best;
        redi[lid] = row;
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
        let p = redi[0];
        let zero = red[0] == T(0);
        if (lid == 0u) {
            aux[b * n + k] = i32(p);
        }
        if (p != k) {
            for (var j = lid; j < n; j = j + WG) {
                let x = load(b, k, j);
                store(b, k, j, load(b, p, j));
                store(b, p, j, x);
            }
        }
        storageBarrier();
        let pivot = load(b, k, k);
        if (!zero) {
            for (var i = k + 1u + lid; i < n; i = i + WG) {
                store(b, i, k, cdiv(load(b, i, k), pivot));
            }
        }
        storageBarrier();
        let m = n - k - 1u;
        for (var e = lid; e < m * m; e = e + WG) {
            let i = k + 1u + e / m;
            let j = k + 1u + e % m;
            store(b, i, j, load(b, i, j) - cmul(load(b, i, k), load(b, k, j)));
        }
        storageBarrier();
        workgroupBarrier();
    }
}

@compute @workgroup_size(64)
fn chol_cplx(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = P.batch0 + wid.x;
    let n = P.n;
    for (var k = P.k0; k < P.k1; k = k + 1u) {
        let d = load(b, k, k).x;
        if (!(d > T(0)) && lid == 0u && aux[b] == 0) {
            aux[b] = i32(k + 1u);
        }
        let l = sqrt(d);
        storageBarrier();
        if (lid == 0u) {
            store(b, k, k, C(l, T(0)));
        }
        for (var i = k + 1u + lid; i < n; i = i + WG) {
            store(b, i, k, load(b, i, k) / l);
            store(b, k, i, C(T(0), T(0)));
        }
        storageBarrier();
        let m = n - k - 1u;
        for (var e = lid; e < m * m; e = e + WG) {
            let i = k + 1u + e / m;
            let j = k + 1u + e % m;
            if (j <= i) {
                let y = load(b, j, k);
                store(b, i, j, load(b, i, j) - cmul(load(b, i, k), C(y.x, -y.y)));
            }
        }
        storageBarrier();
        workgroupBarrier();
    }
}

// ---- Householder QR (m x n, row-major) ----

fn qa(b: u32, i: u32, j: u32) -> u32 {
    return 2u * ((b * P.m + i) * P.n + j);
}
fn qload(b: u32, i: u32, j: u32) -> C {
    let e = qa(b, i, j);
    return C(a[e], a[e + 1u]);
}
fn qstore(b: u32, i: u32, j: u32, v: C) {
    let e = qa(b, i, j);
    a[e] = v.x;
    a[e + 1u] = v.y;
}
fn hyp(p: T, q: T) -> T {
    let s = max(abs(p), abs(q));
    if (s == T(0)) {
        return T(0);
    }
    return s * sqrt((p / s) * (p / s) + (q / s) * (q / s));
}
fn conj(v: C) -> C {
    return C(v.x, -v.y);
}
// v_i of reflector k (1 at row k).
fn vk(b: u32, i: u32, k: u32) -> C {
    if (i == k) {
        return C(T(1), T(0));
    }
    return qload(b, i, k);
}

@compute @workgroup_size(64)
fn qr_cplx(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = P.batch0 + wid.x;
    let m = P.m;
    let n = P.n;
    let kmax = min(m, n);
    for (var k = P.k0; k < P.k1; k = k + 1u) {
        let alpha = qload(b, k, k);
        var big = T(0);
        for (var i = k + 1u + lid; i < m; i = i + WG) {
            let v = qload(b, i, k);
            big = max(big, max(abs(v.x), abs(v.y)));
        }
        red[lid] = big;
        workgroupBarrier();
        for (var s = WG / 2u; s > 0u; s = s >> 1u) {
            if (lid < s) {
                red[lid] = max(red[lid], red[lid + s]);
            }
            workgroupBarrier();
        }
        let scale = red[0];
        workgroupBarrier();
        var ss = T(0);
        if (scale > T(0)) {
            for (var i = k + 1u + lid; i < m; i = i + WG) {
                let v = qload(b, i, k) / scale;
                ss = ss + dot(v, v);
            }
        }
        red[lid] = ss;
        workgroupBarrier();
        for (var s = WG / 2u; s > 0u; s = s >> 1u) {
            if (lid < s) {
                red[lid] = red[lid] + red[lid + s];
            }
            workgroupBarrier();
        }
        let xnorm = scale * sqrt(red[0]);
        var t = C(T(0), T(0));
        var inv = C(T(0), T(0));
        var beta = alpha;
        if (xnorm > T(0) || alpha.y != T(0)) {
            var bb = hyp(hyp(alpha.x, alpha.y), xnorm);
            if (alpha.x >= T(0)) {
                bb = -bb;
            }
            beta = C(bb, T(0));
            t = C((bb - alpha.x) / bb, -alpha.y / bb);
            inv = cdiv(C(T(1), T(0)), alpha - beta);
        }
        for (var i = k + 1u + lid; i < m; i = i + WG) {
            qstore(b, i, k, cmul(qload(b, i, k), inv));
        }
        if (lid == 0u) {
            qstore(b, k, k, beta);
            tau[2u * (b * kmax + k)] = t.x;
            tau[2u * (b * kmax + k) + 1u] = t.y;
        }
        storageBarrier();
        // Columns k+1..n := H^H columns: a_j -= conj(tau) v (v^H a_j).
        let ct = conj(t);
        for (var j = k + 1u + lid; j < n; j = j + WG) {
            var s = C(T(0), T(0));
            for (var i = k; i < m; i = i + 1u) {
                s = s + cmul(conj(vk(b, i, k)), qload(b, i, j));
            }
            s = cmul(s, ct);
            for (var i = k; i < m; i = i + 1u) {
                qstore(b, i, j, qload(b, i, j) - cmul(s, vk(b, i, k)));
            }
        }
        storageBarrier();
        workgroupBarrier();
    }
}

@compute @workgroup_size(64)
fn formq_cplx(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = P.batch0 + wid.x;
    let m = P.m;
    let xc = P.xc;
    let kmax = min(m, P.n);
    for (var r = P.k0; r < P.k1; r = r + 1u) {
        let k = P.k1 - 1u - (r - P.k0);
        let t = C(tau[2u * (b * kmax + k)], tau[2u * (b * kmax + k) + 1u]);
        for (var j = lid; j < xc; j = j + WG) {
            var s = C(T(0), T(0));
            for (var i = k; i < m; i = i + 1u) {
                let e = 2u * ((b * m + i) * xc + j);
                s = s + cmul(conj(vk(b, i, k)), C(x[e], x[e + 1u]));
            }
            s = cmul(s, t);
            for (var i = k; i < m; i = i + 1u) {
                let e = 2u * ((b * m + i) * xc + j);
                let v = C(x[e], x[e + 1u]) - cmul(s, vk(b, i, k));
                x[e] = v.x;
                x[e + 1u] = v.y;
            }
        }
        storageBarrier();
        workgroupBarrier();
    }
}
