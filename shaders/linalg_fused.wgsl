// Blocked LU and Cholesky with two launches per panel of columns or one (`linalg/blocked.rs`,
// `KUPFER_LU=fused`, `KUPFER_CHOL=fused`): right-looking, every panel's update of the whole
// trailing matrix in one launch, the row swaps and the block row's triangular solve done
// inside it. No workgroup waits on another: every value a launch reads is one that no
// workgroup of the same launch writes.
//
// LU with partial pivoting of [A | R] (R: m right-hand-side columns; augmented column
// c >= n is R's column c - n), panels of columns k0..k1 (w = k1 - k0 <= W):
// - lu_copy copies the augmented matrix from column c0 on into the scratch `xd` (rows of
//   naug = n + m elements, n rows per matrix).
// - The panel kernel (`linalg_panel.wgsl` or `linalg_steps.wgsl`'s lu_panel) factors rows
//   k0..n of the panel's columns in `a`, in place, and records the pivots in `aux`.
// - lu_update then reads the trailing columns k1..naug from the scratch `xs` as they were
//   before the panel's row swaps, and writes the result of the swaps, the solve of the
//   block row (U12 = L11^-1 A12, redundantly in every workgroup of a column tile) and the
//   rank-w update (A22 -= L21 U12) elsewhere: U12 to `a` / `r` (final), the next panel's
//   columns k1..c0 of rows k1..n to `a` (for the next panel kernel), every other column of
//   rows k1..n to the other scratch `xd`. The two scratches alternate panel by panel.
//   Each workgroup applies the swaps to the rows it reads: thread 0 turns the panel's w
//   pivots into the source row of each of the top w rows and of the rows below them that a
//   swap reached.
//   Columns left of the panel (L) do not receive later panels' swaps: the path serves
//   solve, inv and det, which never read L.
// - lu_back solves U X = R by blocks of B rows from the bottom, one launch per block: every
//   workgroup solves the diagonal block for its columns (one thread per column), the
//   workgroups of the first row tile write X's rows to `y`, and each workgroup updates its
//   tile of the rows above in `r` (R[..i0] -= U[..i0, i0..i1] X). `r`'s rows of the block
//   are only read, so the solution lands in `y`.
// Cholesky (lower), chol_step per panel k0..k1: every workgroup factors the w x w diagonal
// block in workgroup memory and solves its tile's rows of L21 = A21 L11^-T (its row and
// column tiles), updates its tile of the trailing lower triangle in `a` in place
// (A22 -= L21 L21^T; tiles above the diagonal do nothing), and the workgroups of the first
// column tile write L21 (and the first one L11 and info) to `y`, the zeroed output: `a`'s
// panel columns are only read.
// Tiles are TM x TN (lu_back: TM x TNB) on 16 x 16 threads. Loops per thread: at most
// n * naug / (256 * 4096) (lu_copy), W^2 (the solves), TM * W (the updates).
{{ENABLES}}
alias T = {{T}};
const W: u32 = {{W}}u;
const TM: u32 = {{TM}}u;
const TN: u32 = {{TN}}u;
const B: u32 = {{B}}u;
const TNB: u32 = {{TNB}}u;
const RM: u32 = TM / 16u;
const RN: u32 = TN / 16u;
const RNB: u32 = TNB / 16u;

struct Params {
    n: u32,
    m: u32,
    k0: u32,
    k1: u32,
    batch0: u32,
    count: u32,
    mode: u32,
    r0: u32,
    r1: u32,
    c0: u32,
    c1: u32,
    neg_inf: f32,
    off: u32,
    ld: u32,
    sstride: u32,
    pad: u32,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> a: array<T>;
@group(0) @binding(2) var<storage, read_write> r: array<T>;
@group(0) @binding(3) var<storage, read_write> aux: array<i32>;
@group(0) @binding(4) var<storage, read_write> xs: array<T>;
@group(0) @binding(5) var<storage, read_write> xd: array<T>;
@group(0) @binding(6) var<storage, read_write> y: array<T>;

var<workgroup> us: array<T, W * TN>;
var<workgroup> ls: array<T, TM * W>;
var<workgroup> lc: array<T, TM * W>;
var<workgroup> dg: array<T, W * W>;
var<workgroup> xb: array<T, B * TNB>;
var<workgroup> ub: array<T, B * B>;
var<workgroup> piv: array<u32, W>;
var<workgroup> src_top: array<u32, W>;
var<workgroup> pos_out: array<u32, W>;
var<workgroup> src_out: array<u32, W>;
var<workgroup> n_out: u32;
var<workgroup> row_src: array<u32, TM>;
var<workgroup> bad: u32;

fn naug() -> u32 {
    return P.n + P.m;
}

// Element (i, c) of matrix b of the augmented [A | R] in `a` / `r`.
fn aug_get(b: u32, i: u32, c: u32) -> T {
    if (c < P.n) {
        return a[(b * P.n + i) * P.n + c];
    }
    return r[(b * P.n + i) * P.m + (c - P.n)];
}

fn aug_set(b: u32, i: u32, c: u32, v: T) {
    if (c < P.n) {
        a[(b * P.n + i) * P.n + c] = v;
    } else {
        r[(b * P.n + i) * P.m + (c - P.n)] = v;
    }
}

// xd[rows, c0..naug] = [A | R][rows, c0..naug] for every row; a grid-stride loop (the grid's
// x is capped by the host).
@compute @workgroup_size(256)
fn lu_copy(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let b = P.batch0 + wid.y;
    let na = naug();
    let cols = na - P.c0;
    let total = P.n * cols;
    for (var e = gid.x; e < total; e = e + nwg.x * 256u) {
        let i = e / cols;
        let c = P.c0 + e % cols;
        xd[(b * P.n + i) * na + c] = aug_get(b, i, c);
    }
}

@compute @workgroup_size(16, 16)
fn lu_update(@builtin(local_invocation_id) l: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let b = P.batch0 + wid.z;
    let n = P.n;
    let na = naug();
    let base = b * n * n;
    let abase = b * (n + 1u);
    let k0 = P.k0;
    let k1 = P.k1;
    let w = k1 - k0;
    let tid = l.y * 16u + l.x;
    let col0 = k1 + wid.x * TN;
    let row0 = k1 + wid.y * TM;
    // The panel's swaps as source rows: src_top[t] for row k0 + t, (pos_out[q], src_out[q])
    // for the rows below the panel's top that a swap reached. L11 into workgroup memory.
    if (tid < W) {
        var p = k0 + tid;
        if (tid < w) {
            p = min(u32(aux[abase + 1u + k0 + tid]), n - 1u);
        }
        piv[tid] = p;
    }
    for (var e = tid; e < W * W; e = e + 256u) {
        let i = e / W;
        let t = e % W;
        var v = T(0);
        if (i < w && t < i) {
            v = a[base + (k0 + i) * n + k0 + t];
        }
        dg[e] = v;
    }
    workgroupBarrier();
    if (tid == 0u) {
        for (var t = 0u; t < W; t = t + 1u) {
            src_top[t] = k0 + t;
        }
        var cnt = 0u;
        for (var j = 0u; j < w; j = j + 1u) {
            let p = piv[j];
            if (p > k0 + j) {
                if (p < k1) {
                    let s = src_top[j];
                    src_top[j] = src_top[p - k0];
                    src_top[p - k0] = s;
                } else {
                    var found = cnt;
                    for (var q = 0u; q < cnt; q = q + 1u) {
                        if (pos_out[q] == p) {
                            found = q;
                        }
                    }
                    if (found == cnt) {
                        pos_out[cnt] = p;
                        src_out[cnt] = p;
                        cnt = cnt + 1u;
                    }
                    let s = src_top[j];
                    src_top[j] = src_out[found];
                    src_out[found] = s;
                }
            }
        }
        n_out = cnt;
    }
    workgroupBarrier();
    let cnt = n_out;
    if (tid < TM) {
        let i = row0 + tid;
        var s = i;
        for (var q = 0u; q < cnt; q = q + 1u) {
            if (pos_out[q] == i) {
                s = src_out[q];
            }
        }
        row_src[tid] = s;
    }
    // The block row's tile (swapped, not yet solved) and the tile's rows of L21.
    for (var e = tid; e < W * TN; e = e + 256u) {
        let t = e / TN;
        let c = col0 + e % TN;
        var v = T(0);
        if (t < w && c < na) {
            v = xs[(b * n + src_top[t]) * na + c];
        }
        us[e] = v;
    }
    for (var e = tid; e < TM * W; e = e + 256u) {
        let i = row0 + e / W;
        let t = e % W;
        var v = T(0);
        if (i < n && t < w) {
            v = a[base + i * n + k0 + t];
        }
        ls[e] = v;
    }
    workgroupBarrier();
    // U12 = L11^-1 A12 (unit lower), one thread per column of the tile, the column in
    // registers (rows past w are zeros on both sides).
    if (tid < TN) {
        var x: array<T, W>;
        for (var t = 0u; t < W; t = t + 1u) {
            x[t] = us[t * TN + tid];
        }
        for (var t = 0u; t < W; t = t + 1u) {
            let xt = x[t];
            for (var i = t + 1u; i < W; i = i + 1u) {
                x[i] = x[i] - dg[i * W + t] * xt;
            }
        }
        for (var t = 0u; t < W; t = t + 1u) {
            us[t * TN + tid] = x[t];
        }
    }
    workgroupBarrier();
    if (wid.y == 0u) {
        for (var e = tid; e < W * TN; e = e + 256u) {
            let t = e / TN;
            let c = col0 + e % TN;
            if (t < w && c < na) {
                aug_set(b, k0 + t, c, us[e]);
            }
        }
    }
    // The trailing tile: swapped rows minus L21 U12.
    var acc: array<T, RM * RN>;
    for (var ii = 0u; ii < RM; ii = ii + 1u) {
        let i = row0 + l.y + 16u * ii;
        let src = row_src[l.y + 16u * ii];
        for (var jj = 0u; jj < RN; jj = jj + 1u) {
            let c = col0 + l.x + 16u * jj;
            var v = T(0);
            if (i < n && c < na) {
                v = xs[(b * n + src) * na + c];
            }
            acc[ii * RN + jj] = v;
        }
    }
    for (var t = 0u; t < w; t = t + 1u) {
        var bv: array<T, RN>;
        for (var jj = 0u; jj < RN; jj = jj + 1u) {
            bv[jj] = us[t * TN + l.x + 16u * jj];
        }
        for (var ii = 0u; ii < RM; ii = ii + 1u) {
            let av = ls[(l.y + 16u * ii) * W + t];
            for (var jj = 0u; jj < RN; jj = jj + 1u) {
                acc[ii * RN + jj] = acc[ii * RN + jj] - av * bv[jj];
            }
        }
    }
    for (var ii = 0u; ii < RM; ii = ii + 1u) {
        let i = row0 + l.y + 16u * ii;
        for (var jj = 0u; jj < RN; jj = jj + 1u) {
            let c = col0 + l.x + 16u * jj;
            if (i < n && c < na) {
                if (c < P.c0) {
                    a[base + i * n + c] = acc[ii * RN + jj];
                } else {
                    xd[(b * n + i) * na + c] = acc[ii * RN + jj];
                }
            }
        }
    }
}

// Block k0..k1 (at most B rows) of the back substitution for R's m columns: X = U_kk^-1 R_k
// into `y`, then R[..k0] -= U[..k0, k0..k1] X.
@compute @workgroup_size(16, 16)
fn lu_back(@builtin(local_invocation_id) l: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let b = P.batch0 + wid.z;
    let n = P.n;
    let m = P.m;
    let base = b * n * n;
    let k0 = P.k0;
    let w = P.k1 - k0;
    let tid = l.y * 16u + l.x;
    let col0 = wid.x * TNB;
    let row0 = wid.y * TM;
    for (var e = tid; e < B * TNB; e = e + 256u) {
        let t = e / TNB;
        let c = col0 + e % TNB;
        var v = T(0);
        if (t < w && c < m) {
            v = r[(b * n + k0 + t) * m + c];
        }
        xb[e] = v;
    }
    // The diagonal block (a unit diagonal past w: those rows stay zero).
    for (var e = tid; e < B * B; e = e + 256u) {
        let i = e / B;
        let t = e % B;
        var v = select(T(0), T(1), i == t);
        if (i < w && t < w && t >= i) {
            v = a[base + (k0 + i) * n + k0 + t];
        }
        ub[e] = v;
    }
    workgroupBarrier();
    if (tid < TNB) {
        var x: array<T, B>;
        for (var t = 0u; t < B; t = t + 1u) {
            x[t] = xb[t * TNB + tid];
        }
        for (var s = 0u; s < B; s = s + 1u) {
            let t = B - 1u - s;
            let xt = x[t] / ub[t * B + t];
            x[t] = xt;
            for (var i = 0u; i < t; i = i + 1u) {
                x[i] = x[i] - ub[i * B + t] * xt;
            }
        }
        for (var t = 0u; t < B; t = t + 1u) {
            xb[t * TNB + tid] = x[t];
        }
    }
    workgroupBarrier();
    if (wid.y == 0u) {
        for (var e = tid; e < B * TNB; e = e + 256u) {
            let t = e / TNB;
            let c = col0 + e % TNB;
            if (t < w && c < m) {
                y[(b * n + k0 + t) * m + c] = xb[e];
            }
        }
    }
    var acc: array<T, RM * RNB>;
    for (var ii = 0u; ii < RM; ii = ii + 1u) {
        let i = row0 + l.y + 16u * ii;
        for (var jj = 0u; jj < RNB; jj = jj + 1u) {
            let c = col0 + l.x + 16u * jj;
            var v = T(0);
            if (i < k0 && c < m) {
                v = r[(b * n + i) * m + c];
            }
            acc[ii * RNB + jj] = v;
        }
    }
    for (var t = 0u; t < w; t = t + 1u) {
        var bv: array<T, RNB>;
        for (var jj = 0u; jj < RNB; jj = jj + 1u) {
            bv[jj] = xb[t * TNB + l.x + 16u * jj];
        }
        for (var ii = 0u; ii < RM; ii = ii + 1u) {
            let i = min(row0 + l.y + 16u * ii, n - 1u);
            let av = a[base + i * n + k0 + t];
            for (var jj = 0u; jj < RNB; jj = jj + 1u) {
                acc[ii * RNB + jj] = acc[ii * RNB + jj] - av * bv[jj];
            }
        }
    }
    for (var ii = 0u; ii < RM; ii = ii + 1u) {
        let i = row0 + l.y + 16u * ii;
        for (var jj = 0u; jj < RNB; jj = jj + 1u) {
            let c = col0 + l.x + 16u * jj;
            if (i < k0 && c < m) {
                r[(b * n + i) * m + c] = acc[ii * RNB + jj];
            }
        }
    }
}

// One panel k0..k1 of Cholesky: tile (wid.y, wid.x) of the trailing rows/columns k1..n.
@compute @workgroup_size(16, 16)
fn chol_step(@builtin(local_invocation_id) l: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let b = P.batch0 + wid.z;
    let n = P.n;
    let base = b * n * n;
    let k0 = P.k0;
    let k1 = P.k1;
    let w = k1 - k0;
    let tid = l.y * 16u + l.x;
    if (wid.x > wid.y) {
        return;
    }
    let first = wid.x == 0u && wid.y == 0u;
    let row0 = k1 + wid.y * TM;
    let col0 = k1 + wid.x * TM;
    for (var e = tid; e < W * W; e = e + 256u) {
        let i = e / W;
        let t = e % W;
        var v = T(0);
        if (i < w && t <= i) {
            v = a[base + (k0 + i) * n + k0 + t];
        }
        dg[e] = v;
    }
    for (var e = tid; e < TM * W; e = e + 256u) {
        let q = e / W;
        let t = e % W;
        var v = T(0);
        var u = T(0);
        if (t < w && row0 + q < n) {
            v = a[base + (row0 + q) * n + k0 + t];
        }
        if (t < w && col0 + q < n) {
            u = a[base + (col0 + q) * n + k0 + t];
        }
        ls[e] = v;
        lc[e] = u;
    }
    if (tid == 0u) {
        bad = 0u;
    }
    workgroupBarrier();
    // The diagonal block's factor, column by column: the updates use the unscaled columns
    // (D[i][q] -= D[i][j] D[q][j] / D[j][j]), so a column needs one barrier; the scaling
    // by sqrt(D[j][j]) comes last.
    for (var j = 0u; j < w; j = j + 1u) {
        workgroupBarrier();
        let d = dg[j * W + j];
        for (var e = tid; e < W * W; e = e + 256u) {
            let i = e / W;
            let q = e % W;
            if (i < w && q > j && q <= i) {
                dg[e] = dg[e] - dg[i * W + j] * dg[q * W + j] / d;
            }
        }
        if (tid == 0u && !(d > T(0)) && bad == 0u) {
            bad = k0 + j + 1u;
        }
    }
    workgroupBarrier();
    // Column j scaled by sqrt(D[j][j]): each thread reads the pivot of its own entry.
    var scaled: array<T, 4>;
    for (var s2 = 0u; s2 < 4u; s2 = s2 + 1u) {
        let e = tid + s2 * 256u;
        var v = T(0);
        if (e < W * W) {
            let i = e / W;
            let q = e % W;
            if (i < w && q <= i) {
                let piv_q = sqrt(dg[q * W + q]);
                if (i == q) {
                    v = piv_q;
                } else {
                    v = dg[e] / piv_q;
                }
            }
        }
        scaled[s2] = v;
    }
    workgroupBarrier();
    for (var s2 = 0u; s2 < 4u; s2 = s2 + 1u) {
        let e = tid + s2 * 256u;
        if (e < W * W) {
            dg[e] = scaled[s2];
        }
    }
    workgroupBarrier();
    // L21 rows of the tile: row q of ls (tid < TM) or of lc (TM <= tid < 2 TM), in
    // registers (columns past w are zeros, and D's diagonal there is 0: they are skipped).
    if (tid < 2u * TM) {
        let q = tid % TM;
        var x: array<T, W>;
        for (var t = 0u; t < W; t = t + 1u) {
            if (tid < TM) {
                x[t] = ls[q * W + t];
            } else {
                x[t] = lc[q * W + t];
            }
        }
        for (var t = 0u; t < W; t = t + 1u) {
            if (t < w) {
                let xt = x[t] / dg[t * W + t];
                x[t] = xt;
                for (var i = t + 1u; i < W; i = i + 1u) {
                    x[i] = x[i] - dg[i * W + t] * xt;
                }
            }
        }
        for (var t = 0u; t < W; t = t + 1u) {
            if (tid < TM) {
                ls[q * W + t] = x[t];
            } else {
                lc[q * W + t] = x[t];
            }
        }
    }
    workgroupBarrier();
    if (first) {
        if (tid == 0u && bad != 0u && aux[b] == 0) {
            aux[b] = i32(bad);
        }
        for (var e = tid; e < W * W; e = e + 256u) {
            let i = e / W;
            let t = e % W;
            if (i < w && t <= i) {
                y[base + (k0 + i) * n + k0 + t] = dg[e];
            }
        }
    }
    if (wid.x == 0u) {
        for (var e = tid; e < TM * W; e = e + 256u) {
            let i = row0 + e / W;
            let t = e % W;
            if (i < n && t < w) {
                y[base + i * n + k0 + t] = ls[e];
            }
        }
    }
    var acc: array<T, RM * RM>;
    for (var ii = 0u; ii < RM; ii = ii + 1u) {
        for (var jj = 0u; jj < RM; jj = jj + 1u) {
            acc[ii * RM + jj] = T(0);
        }
    }
    for (var t = 0u; t < w; t = t + 1u) {
        var bv: array<T, RM>;
        for (var jj = 0u; jj < RM; jj = jj + 1u) {
            bv[jj] = lc[(l.x + 16u * jj) * W + t];
        }
        for (var ii = 0u; ii < RM; ii = ii + 1u) {
            let av = ls[(l.y + 16u * ii) * W + t];
            for (var jj = 0u; jj < RM; jj = jj + 1u) {
                acc[ii * RM + jj] = acc[ii * RM + jj] + av * bv[jj];
            }
        }
    }
    for (var ii = 0u; ii < RM; ii = ii + 1u) {
        let i = row0 + l.y + 16u * ii;
        for (var jj = 0u; jj < RM; jj = jj + 1u) {
            let j = col0 + l.x + 16u * jj;
            if (i < n && j <= i) {
                let at = base + i * n + j;
                a[at] = a[at] - acc[ii * RM + jj];
            }
        }
    }
}
