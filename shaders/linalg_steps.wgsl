// Blocked dense factorizations of matrices of any size in global memory, a few launches per
// panel of columns (LAPACK's right-looking algorithms): the host records every launch back to
// back in one command stream, with no read-back between them (pivot search and row swaps run
// on the device).
//
// LU with partial pivoting runs on the augmented system [A | R] (R: m right-hand-side
// columns, m = 0 for a bare factorization; augmented column c >= n is R's column c - n). Per
// panel of columns k0..k1:
// - lu_panel (one workgroup per matrix) factors the tall panel rows k0..n, columns k0..k1:
//   per column the pivot search (first largest |a[i, k]|, i >= k, as LAPACK's), the swap of
//   the two rows inside the panel, the scaling of the column and the rank-1 update of the
//   panel's remaining columns, with workgroup barriers between the phases; it records the
//   pivot rows and the first zero pivot in aux (per matrix: [info, piv_0, .., piv_{n-1}]).
// - lu_swap applies the panel's row swaps to every other augmented column (one thread per
//   column, the swaps in order).
// - trsm (mode 0) solves the unit-lower L11 X = [A12 | R1] for the panel's block row.
// - gemm_sub (mode 0) updates the trailing rows: [A22 | R2] -= L21 @ [U12 | R1], in place.
// Then the solve of U X = R runs by blocks of 32 rows from the bottom: trsm (mode 1, or 2 for a
// unit diagonal) on the diagonal block, gemm_sub for the rows above. lu_logdet reduces sign
// and log|det| per matrix (one workgroup each).
// Cholesky (lower) per panel: chol_panel factors the tall panel in one workgroup (it holds
// L21 when done; with in-place matmul updates it factors the diagonal block only and
// chol_rows solves the rows below in parallel), gemm_sub (mode 1) the trailing lower
// triangle A22 -= L21 @ L21^T (tiles above the diagonal are skipped); chol_zero clears the
// strict upper triangle at the end.
//
// With in-place matmul updates (linalg/blocked.rs), pack copies the operands of the large
// trailing updates out of the factored matrices first.
// Matrices are contiguous n x n blocks (R: n x m blocks); P.batch0 is the first matrix of
// this dispatch, wid.y or wid.z the matrix within it. No workgroup waits on another. Loops
// per thread: the panel kernels' about n * w^2 / 512 (the host picks the panel width w so it
// stays within lavapipe's budget; w <= 32), trsm's w^2 / 16, gemm_sub's (k1 - k0), lu_swap's w,
// lu_logdet's n / 256.
{{ENABLES}}
alias T = {{T}};

struct Params {
    n: u32,
    m: u32,
    // The panel's columns (for gemm_sub: the contraction range).
    k0: u32,
    k1: u32,
    batch0: u32,
    count: u32,
    mode: u32,
    // A region of the augmented matrix: rows r0..r1, columns c0..c1.
    r0: u32,
    r1: u32,
    c0: u32,
    c1: u32,
    neg_inf: f32,
    // pack: the copy's first element, row stride and per-matrix stride in `out`.
    off: u32,
    ld: u32,
    sstride: u32,
    pad: u32,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> a: array<T>;
@group(0) @binding(2) var<storage, read_write> r: array<T>;
@group(0) @binding(3) var<storage, read_write> aux: array<i32>;
@group(0) @binding(4) var<storage, read_write> out: array<T>;

const WG: u32 = 256u;
var<workgroup> red_v: array<T, 256>;
var<workgroup> red_i: array<u32, 256>;
var<workgroup> urow: array<T, 32>;
var<workgroup> xs: array<T, 512>;
var<workgroup> tri: array<T, 1024>;
var<workgroup> ta: array<T, 512>;
var<workgroup> tb: array<T, 512>;

// Element (i, c) of matrix b of the augmented [A | R].
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

// The pivot of column k (rows k..n of matrix base): the first row of largest |a[i, k]|
// (the workgroup's threads scan strided rows, then a tree keeps the lower row on ties);
// red_v[0] holds its magnitude until the caller's next barrier.
fn pivot_row(base: u32, k: u32, lid: u32) -> u32 {
    let n = P.n;
    var bv = T(-1);
    var bi = k;
    for (var i = k + lid; i < n; i = i + WG) {
        let v = abs(a[base + i * n + k]);
        if (v > bv) {
            bv = v;
            bi = i;
        }
    }
    red_v[lid] = bv;
    red_i[lid] = bi;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s >> 1u) {
        if (lid < s) {
            let v = red_v[lid + s];
            let i = red_i[lid + s];
            if (v > red_v[lid] || (v == red_v[lid] && i < red_i[lid])) {
                red_v[lid] = v;
                red_i[lid] = i;
            }
        }
        workgroupBarrier();
    }
    return red_i[0];
}

@compute @workgroup_size(256)
fn lu_panel(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = P.batch0 + wid.y;
    let n = P.n;
    let base = b * n * n;
    let abase = b * (n + 1u);
    let w = P.k1 - P.k0;
    for (var k = P.k0; k < P.k1; k = k + 1u) {
        let p = pivot_row(base, k, lid);
        if (lid == 0u) {
            aux[abase + 1u + k] = i32(p);
            if (red_v[0] == T(0) && aux[abase] == 0) {
                aux[abase] = i32(k + 1u);
            }
        }
        if (p != k && lid < w) {
            let j = P.k0 + lid;
            let t = a[base + k * n + j];
            a[base + k * n + j] = a[base + p * n + j];
            a[base + p * n + j] = t;
        }
        storageBarrier();
        workgroupBarrier();
        if (lid < w) {
            urow[lid] = a[base + k * n + P.k0 + lid];
        }
        let d = a[base + k * n + k];
        if (d != T(0)) {
            for (var i = k + 1u + lid; i < n; i = i + WG) {
                a[base + i * n + k] = a[base + i * n + k] / d;
            }
        }
        storageBarrier();
        workgroupBarrier();
        // The rank-1 update of the panel's columns right of k, element by element so that
        // neighbouring threads touch neighbouring columns.
        let cols = P.k1 - k - 1u;
        if (cols > 0u) {
            let total = (n - k - 1u) * cols;
            for (var e = lid; e < total; e = e + WG) {
                let i = k + 1u + e / cols;
                let j = k + 1u + e % cols;
                let at = base + i * n + j;
                a[at] = a[at] - a[base + i * n + k] * urow[j - P.k0];
            }
        }
        storageBarrier();
        workgroupBarrier();
    }
}

@compute @workgroup_size(256)
fn lu_swap(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let b = P.batch0 + wid.y;
    let w = P.k1 - P.k0;
    let t = gid.x;
    if (t >= P.n + P.m - w) {
        return;
    }
    // Every augmented column outside the panel.
    let c = select(t + w, t, t < P.k0);
    let abase = b * (P.n + 1u);
    for (var k = P.k0; k < P.k1; k = k + 1u) {
        let p = u32(aux[abase + 1u + k]);
        if (p != k) {
            let x = aug_get(b, k, c);
            aug_set(b, k, c, aug_get(b, p, c));
            aug_set(b, p, c, x);
        }
    }
}

// Triangular solve of the diagonal block rows k0..k1 (at most 32) for augmented columns
// c0..c1, in place: mode 0 X = L^-1 X with L unit lower, mode 1 X = U^-1 X with U upper,
// mode 2 the same with a unit diagonal. A workgroup takes 16 columns; the block's triangle
// and the columns are staged in workgroup memory, and its 16 rows of threads share each
// step's rows.
@compute @workgroup_size(16, 16)
fn trsm(@builtin(local_invocation_id) l: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let b = P.batch0 + wid.z;
    let n = P.n;
    let base = b * n * n;
    let k0 = P.k0;
    let w = P.k1 - k0;
    let c = P.c0 + wid.x * 16u + l.x;
    let live = c < P.c1;
    for (var e = l.y * 16u + l.x; e < w * w; e = e + 256u) {
        let i = e / w;
        let t = e % w;
        tri[i * 32u + t] = a[base + (k0 + i) * n + k0 + t];
    }
    if (live) {
        for (var i = l.y; i < w; i = i + 16u) {
            xs[i * 16u + l.x] = aug_get(b, k0 + i, c);
        }
    }
    workgroupBarrier();
    if (P.mode == 0u) {
        for (var t = 0u; t < w; t = t + 1u) {
            let xt = xs[t * 16u + l.x];
            for (var i = t + 1u + l.y; i < w; i = i + 16u) {
                xs[i * 16u + l.x] = xs[i * 16u + l.x] - tri[i * 32u + t] * xt;
            }
            workgroupBarrier();
        }
    } else {
        for (var s = 0u; s < w; s = s + 1u) {
            let t = w - 1u - s;
            if (P.mode == 1u && l.y == 0u) {
                xs[t * 16u + l.x] = xs[t * 16u + l.x] / tri[t * 32u + t];
            }
            workgroupBarrier();
            let xt = xs[t * 16u + l.x];
            for (var i = l.y; i < t; i = i + 16u) {
                xs[i * 16u + l.x] = xs[i * 16u + l.x] - tri[i * 32u + t] * xt;
            }
            workgroupBarrier();
        }
    }
    if (live) {
        for (var i = l.y; i < w; i = i + 16u) {
            aug_set(b, k0 + i, c, xs[i * 16u + l.x]);
        }
    }
}

// The factor B[t, c] of gemm_sub: the augmented matrix (mode 0), or A transposed (mode 1).
fn gemm_rhs(b: u32, t: u32, c: u32) -> T {
    if (P.mode == 0u) {
        return aug_get(b, t, c);
    }
    return a[(b * P.n + c) * P.n + t];
}

// Target[i, c] -= sum over t in k0..k1 of A[i, t] * B[t, c] for rows r0..r1 and augmented
// columns c0..c1: a 64 x 64 tile per workgroup, 4 x 4 per thread, k staged 8 at a time in
// workgroup memory. Mode 1 (Cholesky's trailing update) skips tiles above the diagonal.
@compute @workgroup_size(16, 16)
fn gemm_sub(@builtin(local_invocation_id) l: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let b = P.batch0 + wid.z;
    let n = P.n;
    let row0 = P.r0 + wid.y * 64u;
    let col0 = P.c0 + wid.x * 64u;
    if (P.mode == 1u && col0 > row0 + 63u) {
        return;
    }
    let tid = l.y * 16u + l.x;
    var acc: array<T, 16>;
    for (var q = 0u; q < 16u; q = q + 1u) {
        acc[q] = T(0);
    }
    for (var k = P.k0; k < P.k1; k = k + 8u) {
        for (var h = 0u; h < 2u; h = h + 1u) {
            let e = tid + h * 256u;
            // A's tile, read along k (its rows are contiguous).
            let ar = e / 8u;
            let ak = e % 8u;
            var av = T(0);
            if (row0 + ar < P.r1 && k + ak < P.k1) {
                av = a[(b * n + row0 + ar) * n + k + ak];
            }
            ta[ak * 64u + ar] = av;
            // B's tile, read along its contiguous axis.
            var bk = e / 64u;
            var bc = e % 64u;
            if (P.mode == 1u) {
                bk = e % 8u;
                bc = e / 8u;
            }
            var bv = T(0);
            if (col0 + bc < P.c1 && k + bk < P.k1) {
                bv = gemm_rhs(b, k + bk, col0 + bc);
            }
            tb[bk * 64u + bc] = bv;
        }
        workgroupBarrier();
        for (var kk = 0u; kk < 8u; kk = kk + 1u) {
            let a0 = ta[kk * 64u + l.y];
            let a1 = ta[kk * 64u + l.y + 16u];
            let a2 = ta[kk * 64u + l.y + 32u];
            let a3 = ta[kk * 64u + l.y + 48u];
            for (var jj = 0u; jj < 4u; jj = jj + 1u) {
                let bv = tb[kk * 64u + l.x + 16u * jj];
                acc[jj] = acc[jj] + a0 * bv;
                acc[4u + jj] = acc[4u + jj] + a1 * bv;
                acc[8u + jj] = acc[8u + jj] + a2 * bv;
                acc[12u + jj] = acc[12u + jj] + a3 * bv;
            }
        }
        workgroupBarrier();
    }
    for (var ii = 0u; ii < 4u; ii = ii + 1u) {
        let i = row0 + l.y + 16u * ii;
        for (var jj = 0u; jj < 4u; jj = jj + 1u) {
            let c = col0 + l.x + 16u * jj;
            if (i < P.r1 && c < P.c1) {
                aug_set(b, i, c, aug_get(b, i, c) - acc[ii * 4u + jj]);
            }
        }
    }
}

// Copies rows r0..r1, augmented columns c0..c1 of every matrix into `out` (the operands of
// the in-place matmul updates, which may not read the buffer they write), matrix b's copy
// from element b * P.sstride + P.off: row-major with row stride P.ld (mode 0) or transposed
// (mode 1: augmented column c is row c - c0). One thread per element, neighbouring threads
// on neighbouring columns of a row (coalesced reads).
@compute @workgroup_size(256)
fn pack(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let b = P.batch0 + wid.y;
    let cols = P.c1 - P.c0;
    let e = gid.x;
    if (e >= (P.r1 - P.r0) * cols) {
        return;
    }
    let i = e / cols;
    let c = e % cols;
    var at = i * P.ld + c;
    if (P.mode == 1u) {
        at = c * P.ld + i;
    }
    out[b * P.sstride + P.off + at] = aug_get(b, P.r0 + i, P.c0 + c);
}

var<workgroup> red_s: array<T, 256>;
var<workgroup> red_f: array<u32, 256>;

@compute @workgroup_size(256)
fn lu_logdet(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = P.batch0 + wid.y;
    let n = P.n;
    let base = b * n * n;
    let abase = b * (n + 1u);
    // Sign flips (row swaps and negative pivots) and the sum of log|pivot|.
    var flips = 0u;
    var logabs = T(0);
    for (var k = lid; k < n; k = k + WG) {
        let d = a[base + k * n + k];
        if (aux[abase + 1u + k] != i32(k)) {
            flips = flips + 1u;
        }
        if (d < T(0)) {
            flips = flips + 1u;
        }
        logabs = logabs + {{LOG}}(abs(d));
    }
    red_s[lid] = logabs;
    red_f[lid] = flips;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s >> 1u) {
        if (lid < s) {
            red_s[lid] = red_s[lid] + red_s[lid + s];
            red_f[lid] = red_f[lid] + red_f[lid + s];
        }
        workgroupBarrier();
    }
    if (lid == 0u) {
        var sign = select(T(1), T(-1), (red_f[0] & 1u) == 1u);
        var total = red_s[0];
        if (aux[abase] != 0) {
            sign = T(0);
            total = T(P.neg_inf);
        }
        if (P.mode == 0u) {
            out[b] = sign * {{EXP}}(total);
        } else {
            out[2u * b] = sign;
            out[2u * b + 1u] = total;
        }
    }
}

@compute @workgroup_size(256)
fn chol_panel(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = P.batch0 + wid.y;
    let n = P.n;
    let base = b * n * n;
    for (var k = P.k0; k < P.k1; k = k + 1u) {
        let d = a[base + k * n + k];
        let piv = sqrt(d);
        if (lid == 0u && !(d > T(0)) && aux[b] == 0) {
            aux[b] = i32(k + 1u);
        }
        for (var i = k + 1u + lid; i < P.r1; i = i + WG) {
            a[base + i * n + k] = a[base + i * n + k] / piv;
        }
        storageBarrier();
        workgroupBarrier();
        if (lid == 0u) {
            a[base + k * n + k] = piv;
        }
        // The lower triangle of the panel's columns right of k.
        let cols = P.k1 - k - 1u;
        if (cols > 0u) {
            let total = (P.r1 - k - 1u) * cols;
            for (var e = lid; e < total; e = e + WG) {
                let i = k + 1u + e / cols;
                let j = k + 1u + e % cols;
                if (j <= i) {
                    let at = base + i * n + j;
                    a[at] = a[at] - a[base + i * n + k] * a[base + j * n + k];
                }
            }
        }
        storageBarrier();
        workgroupBarrier();
    }
}

// The rows r0..r1 of the panel's columns k0..k1 (at most 32) below its factored diagonal
// block: L21 = A21 L11^-T, one thread per row (a forward substitution over the row's w
// entries against L11 staged in workgroup memory): with it the one-workgroup panel factors
// only the w x w diagonal block.
@compute @workgroup_size(256)
fn chol_rows(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = P.batch0 + wid.y;
    let n = P.n;
    let base = b * n * n;
    let k0 = P.k0;
    let w = P.k1 - k0;
    for (var e = lid; e < w * w; e = e + WG) {
        let i = e / w;
        let t = e % w;
        tri[i * 32u + t] = a[base + (k0 + i) * n + k0 + t];
    }
    workgroupBarrier();
    let i = P.r0 + gid.x;
    if (i >= P.r1) {
        return;
    }
    var x: array<T, 32>;
    for (var t = 0u; t < w; t = t + 1u) {
        var s = a[base + i * n + k0 + t];
        for (var q = 0u; q < t; q = q + 1u) {
            s = s - x[q] * tri[t * 32u + q];
        }
        x[t] = s / tri[t * 32u + t];
        a[base + i * n + k0 + t] = x[t];
    }
}

@compute @workgroup_size(16, 16)
fn chol_zero(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let b = P.batch0 + wid.z;
    let n = P.n;
    if (gid.y >= n || gid.x >= n || gid.x <= gid.y) {
        return;
    }
    a[b * n * n + gid.y * n + gid.x] = T(0);
}
{{LIBM}}
