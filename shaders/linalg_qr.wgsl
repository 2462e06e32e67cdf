// Blocked Householder QR (LAPACK's geqrf / orgqr with compact-WY block reflectors) of stacks
// of m x n row-major matrices, a few launches per panel of columns k0..k1 (w = k1 - k0 <= W);
// the trailing updates run on kupfer's tiled matmul (linalg/qr_blocked.rs records them).
//
// Per matrix, the scratch `vs` holds T (W x W, row-major, upper triangular: the panel's
// reflectors H_k0 ... H_{k1-1} = I - V T V^T), then W2 (W rows of P.ld), then V (m rows of
// P.vw: the panel's rows k0..m, unit diagonal, zeros above it); `ws` holds W1 (W rows of
// P.ld per part).
// - qr_panel (one workgroup of 256 threads per matrix):
//   mode 0 factors the panel rows k0..m, columns k0..k1 of `a` in place (geqrf's panel):
//   per column k the norm of a[k+1.., k] (a scaled sum of squares, no overflow), the
//   reflector by LAPACK's larfg (beta = -sign(alpha) * norm, tau = (beta - alpha) / beta,
//   v = x / (alpha - beta) stored below the diagonal, v_k = 1 implied; tau = 0 and the column
//   unchanged when x is zero), then in one pass over the rows the dot products of v with
//   every other panel column: with the later ones they give the reflector's application to
//   them, with the earlier ones (their reflectors) T's next column (larft: T[0:k, k] =
//   -tau T[0:k, 0:k] (V^T v)). Dot products run with P.slots threads per row (one per
//   column, coalesced along the row) and 256 / P.slots rows at a time.
//   With P.tcount > 0 mode 0 also keeps T in `tc` (slot P.tslot of P.tcount per matrix).
//   mode 1 (orgqr's preparation) reads reflectors and tau left by mode 0 and builds T alone;
//   mode 2 (the same where mode 0 kept T) copies T from `tc`. All end by writing T and the
//   packed V into `vs`. qr_pack does mode 2's work with many workgroups.
// - qr_tw (one thread per column of W1): W2 = -T^T W1 (mode 0: Q^T applied, geqrf) or
//   W2 = -T W1 (mode 1: Q applied, orgqr), and W1 cleared for the next panel (the matmul
//   accumulates W1 = 0 - V^T A2 into it, in P.parts parts over row ranges and a remainder
//   part, which qr_tw sums).
// The matmul then computes A2 -= V W2: A2 - V T^(T) V^T A2.
// Loops per thread: qr_panel about m / 256 + w (2 m P.slots / 1024 + W) + m W / 256 (the
// row loops take four rows per step; the host narrows the panels so it stays within
// lavapipe's budget), qr_tw W^2 / 2.
{{ENABLES}}
alias T = {{T}};
const W: u32 = {{W}}u;
const WG: u32 = 256u;

struct Params {
    m: u32,
    n: u32,
    k0: u32,
    k1: u32,
    batch0: u32,
    kmax: u32,
    mode: u32,
    slots: u32,
    // Row stride of W1 and W2; per-matrix strides of `vs` and `ws`.
    ld: u32,
    vstride: u32,
    wstride: u32,
    // qr_tw: the columns of W1 in use.
    cols: u32,
    // The T kept by mode 0 (and read by mode 2): slot and slots per matrix (0: none kept).
    tslot: u32,
    tcount: u32,
    // qr_tw: W1's parts per matrix (P.wstride = parts * W * ld), and the matrix count when
    // a remainder part per matrix follows all of them (0: none).
    parts: u32,
    rem_count: u32,
    // Row stride of the packed V (the panel width rounded up to 4).
    vw: u32,
    // qr_panel: 1 where it packs V itself; 0 where qr_pack follows (mode 0 then leaves the
    // reflectors' scale factors in W2's first row for it).
    pack_here: u32,
    pad1: u32,
    pad2: u32,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> a: array<T>;
@group(0) @binding(2) var<storage, read_write> tau: array<T>;
@group(0) @binding(3) var<storage, read_write> vs: array<T>;
@group(0) @binding(4) var<storage, read_write> ws: array<T>;
@group(0) @binding(5) var<storage, read_write> tc: array<T>;

var<workgroup> red: array<T, 256>;
var<workgroup> nsc: array<T, 256>;
var<workgroup> nsq: array<T, 256>;
var<workgroup> tsh: array<T, 1024>;
// Per panel column: the factor v = scl * x of its reflector (mode 0 keeps x unscaled in `a`
// until the panel ends; 1 where `a` holds v itself).
var<workgroup> scl: array<T, W>;

// Folds |y| into a running scaled sum of squares (sum = sc^2 * sq), as LAPACK's lassq: no
// overflow or underflow; NaN propagates.
fn lassq(y: T, acc: vec2<T>) -> vec2<T> {
    let ay = abs(y);
    if (ay != ay) {
        return vec2<T>(max(acc.x, T(1)), ay);
    }
    if (ay == T(0)) {
        return acc;
    }
    if (acc.x < ay) {
        let r = acc.x / ay;
        return vec2<T>(ay, T(1) + acc.y * r * r);
    }
    let r = ay / acc.x;
    return vec2<T>(acc.x, acc.y + r * r);
}

@compute @workgroup_size(256)
fn qr_panel(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = P.batch0 + wid.y;
    let m = P.m;
    let n = P.n;
    let base = b * m * n;
    let vb = b * P.vstride;
    let k0 = P.k0;
    let w = P.k1 - k0;
    let s_count = P.slots;
    let slot = lid % s_count;
    let group = lid / s_count;
    let groups = WG / s_count;
    let kept = (b * P.tcount + P.tslot) * W * W;
    for (var e = lid; e < W * W; e = e + WG) {
        if (P.mode == 2u) {
            tsh[e] = tc[kept + e];
        } else {
            tsh[e] = T(0);
        }
    }
    if (lid < W) {
        scl[lid] = T(1);
    }
    // The first column's scaled sum of squares below the diagonal (later columns' come with
    // the previous column's update pass).
    var acc = vec2<T>(T(0), T(0));
    if (P.mode == 0u) {
        for (var i = k0 + 1u + lid; i < m; i = i + WG) {
            acc = lassq(a[base + i * n + k0], acc);
        }
    }
    nsc[lid] = acc.x;
    nsq[lid] = acc.y;
    workgroupBarrier();
    let steps = select(w, 0u, P.mode == 2u);
    for (var kk = 0u; kk < steps; kk = kk + 1u) {
        let k = k0 + kk;
        var tk: T;
        var sk = T(1);
        if (P.mode == 0u) {
            let alpha = a[base + k * n + k];
            for (var s = WG / 2u; s > 0u; s = s >> 1u) {
                if (lid < s) {
                    let s1 = nsc[lid];
                    let s2 = nsc[lid + s];
                    let big = max(s1, s2);
                    if (big > T(0)) {
                        let r1 = s1 / big;
                        let r2 = s2 / big;
                        nsq[lid] = nsq[lid] * r1 * r1 + nsq[lid + s] * r2 * r2;
                        nsc[lid] = big;
                    }
                }
                workgroupBarrier();
            }
            let xnorm = nsc[0] * sqrt(nsq[0]);
            workgroupBarrier();
            tk = T(0);
            if (xnorm != T(0)) {
                let big = max(abs(alpha), xnorm);
                let ra = alpha / big;
                let rx = xnorm / big;
                var beta = big * sqrt(ra * ra + rx * rx);
                if (alpha >= T(0)) {
                    beta = -beta;
                }
                tk = (beta - alpha) / beta;
                sk = T(1) / (alpha - beta);
                if (lid == 0u) {
                    a[base + k * n + k] = beta;
                }
            }
            if (lid == 0u) {
                tau[b * P.kmax + k] = tk;
                scl[kk] = sk;
            }
        } else {
            tk = tau[b * P.kmax + k];
        }
        // v^T a[k.., c] for every other panel column c (v_k = 1, v_i = sk a[i, k]): columns
        // after k are to be updated, columns before it hold the earlier reflectors' x (T's
        // next column, scaled below).
        var d = T(0);
        if (slot < w && slot != kk) {
            let c = base + k0 + slot;
            var i = k + group;
            // Four rows per step: independent loads in flight (one workgroup streams the
            // whole panel).
            for (; i + 3u * groups < m; i = i + 4u * groups) {
                let i1 = i + groups;
                let i2 = i1 + groups;
                let i3 = i2 + groups;
                let v0 = select(sk * a[base + i * n + k], T(1), i == k);
                let v1 = sk * a[base + i1 * n + k];
                let v2 = sk * a[base + i2 * n + k];
                let v3 = sk * a[base + i3 * n + k];
                let x0 = a[c + i * n];
                let x1 = a[c + i1 * n];
                let x2 = a[c + i2 * n];
                let x3 = a[c + i3 * n];
                d = d + (v0 * x0 + v1 * x1) + (v2 * x2 + v3 * x3);
            }
            for (; i < m; i = i + groups) {
                let v = select(sk * a[base + i * n + k], T(1), i == k);
                d = d + v * a[c + i * n];
            }
        }
        red[lid] = d;
        workgroupBarrier();
        for (var s = WG / 2u; s >= s_count; s = s >> 1u) {
            if (lid < s) {
                red[lid] = red[lid] + red[lid + s];
            }
            workgroupBarrier();
        }
        // The update of the later columns; column k + 1's scaled sum of squares below its
        // diagonal on the way.
        acc = vec2<T>(T(0), T(0));
        if (P.mode == 0u && slot > kk && slot < w) {
            let f = tk * red[slot];
            let next = slot == kk + 1u;
            let c = base + k0 + slot;
            var i = k + group;
            for (; i + 3u * groups < m; i = i + 4u * groups) {
                let i1 = i + groups;
                let i2 = i1 + groups;
                let i3 = i2 + groups;
                let v0 = select(sk * a[base + i * n + k], T(1), i == k);
                let v1 = sk * a[base + i1 * n + k];
                let v2 = sk * a[base + i2 * n + k];
                let v3 = sk * a[base + i3 * n + k];
                let y0 = a[c + i * n] - f * v0;
                let y1 = a[c + i1 * n] - f * v1;
                let y2 = a[c + i2 * n] - f * v2;
                let y3 = a[c + i3 * n] - f * v3;
                a[c + i * n] = y0;
                a[c + i1 * n] = y1;
                a[c + i2 * n] = y2;
                a[c + i3 * n] = y3;
                if (next) {
                    if (i > k + 1u) {
                        acc = lassq(y0, acc);
                    }
                    if (i1 > k + 1u) {
                        acc = lassq(y1, acc);
                    }
                    acc = lassq(y2, acc);
                    acc = lassq(y3, acc);
                }
            }
            for (; i < m; i = i + groups) {
                let v = select(sk * a[base + i * n + k], T(1), i == k);
                let y = a[c + i * n] - f * v;
                a[c + i * n] = y;
                if (next && i > k + 1u) {
                    acc = lassq(y, acc);
                }
            }
        }
        nsc[lid] = acc.x;
        nsq[lid] = acc.y;
        if (lid < kk) {
            var t = T(0);
            for (var l = lid; l < kk; l = l + 1u) {
                t = t + tsh[lid * W + l] * red[l] * scl[l];
            }
            tsh[lid * W + kk] = -tk * t;
        }
        if (lid == kk) {
            tsh[kk * W + kk] = tk;
        }
        workgroupBarrier();
        storageBarrier();
    }
    for (var e = lid; e < W * W; e = e + WG) {
        vs[vb + e] = tsh[e];
        if (P.mode == 0u && P.tcount > 0u) {
            tc[kept + e] = tsh[e];
        }
    }
    // V: rows k0..m of the panel, unit diagonal, zeros above it and right of column w (mode
    // 0 also scales the reflectors in `a` now), here or by qr_pack.
    if (P.pack_here == 0u) {
        if (lid < W) {
            vs[vb + W * W + lid] = scl[lid];
        }
        return;
    }
    let vo = vb + W * W + W * P.ld;
    let rows = m - k0;
    for (var e = lid; e < rows * P.vw; e = e + WG) {
        let i = e / P.vw;
        let j = e % P.vw;
        var v = T(0);
        if (j < w) {
            if (i == j) {
                v = T(1);
            } else if (i > j) {
                let at = base + (k0 + i) * n + k0 + j;
                v = scl[j] * a[at];
                if (P.mode == 0u) {
                    a[at] = v;
                }
            }
        }
        vs[vo + e] = v;
    }
}

// qr_panel's packing of V spread over many workgroups, one thread per element: after mode 0
// (the reflectors scaled by the factors it left in W2's first row, in `a` too), or for
// mode 2 (orgqr where the factorization kept T: workgroup 0 also copies T).
@compute @workgroup_size(256)
fn qr_pack(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = P.batch0 + wid.y;
    let vb = b * P.vstride;
    let k0 = P.k0;
    let w = P.k1 - k0;
    if (wid.x == 0u && P.mode == 2u) {
        let kept = (b * P.tcount + P.tslot) * W * W;
        for (var e = lid; e < W * W; e = e + WG) {
            vs[vb + e] = tc[kept + e];
        }
    }
    let e = wid.x * WG + lid;
    if (e >= (P.m - k0) * P.vw) {
        return;
    }
    let i = e / P.vw;
    let j = e % P.vw;
    var v = T(0);
    if (j < w) {
        if (i == j) {
            v = T(1);
        } else if (i > j) {
            let at = b * P.m * P.n + (k0 + i) * P.n + k0 + j;
            v = a[at];
            if (P.mode == 0u) {
                v = vs[vb + W * W + j] * v;
                a[at] = v;
            }
        }
    }
    vs[vb + W * W + W * P.ld + e] = v;
}

@compute @workgroup_size(64)
fn qr_tw(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = P.batch0 + wid.y;
    let vb = b * P.vstride;
    let wb = b * P.wstride;
    let w = P.k1 - P.k0;
    let ld = P.ld;
    for (var e = lid; e < W * W; e = e + 64u) {
        tsh[e] = vs[vb + e];
    }
    workgroupBarrier();
    let c = wid.x * 64u + lid;
    if (c >= ld) {
        return;
    }
    let rem = P.rem_count * P.wstride + b * W * ld;
    if (c < P.cols) {
        var col: array<T, W>;
        for (var q = 0u; q < w; q = q + 1u) {
            var x = T(0);
            for (var s = 0u; s < P.parts; s = s + 1u) {
                x = x + ws[wb + s * W * ld + q * ld + c];
            }
            if (P.rem_count > 0u) {
                x = x + ws[rem + q * ld + c];
            }
            col[q] = x;
        }
        for (var p = 0u; p < w; p = p + 1u) {
            var s = T(0);
            if (P.mode == 0u) {
                for (var q = 0u; q <= p; q = q + 1u) {
                    s = s + tsh[q * W + p] * col[q];
                }
            } else {
                for (var q = p; q < w; q = q + 1u) {
                    s = s + tsh[p * W + q] * col[q];
                }
            }
            vs[vb + W * W + p * ld + c] = -s;
        }
    }
    for (var s = 0u; s < P.parts; s = s + 1u) {
        for (var q = 0u; q < W; q = q + 1u) {
            ws[wb + s * W * ld + q * ld + c] = T(0);
        }
    }
    if (P.rem_count > 0u) {
        for (var q = 0u; q < W; q = q + 1u) {
            ws[rem + q * ld + c] = T(0);
        }
    }
}
