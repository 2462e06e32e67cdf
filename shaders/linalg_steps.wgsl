// Dense factorizations of matrices of any size, one step (one column k) per dispatch, in
// global memory: the host records the n steps back to back in one command stream, with no
// read-back between them (the pivot search and row swaps run on the device).
//
// LU with partial pivoting runs on the augmented system [A | R] (R: m right-hand-side
// columns, m = 0 for a bare factorization): lu_pivot finds the pivot of column k (first
// largest |a[i, k]|, i >= k), swaps rows k and p of A and R, records p and the first zero
// pivot in aux (per matrix: [info, piv_0, .., piv_{n-1}]) and divides the column below the
// pivot; lu_update subtracts the rank-1 product from the trailing rows of A and R;
// lu_backsub then solves U x = R column by column (from k = n-1 down, rows P.r0..k: the
// host updates the rows above a diagonal block by GEMM); lu_logdet reads sign
// and log|det| off U and the pivots. Cholesky (lower): chol_col takes the square root of the
// pivot (recording the first non-positive one) and divides the column, chol_update updates
// the trailing lower triangle, chol_zero clears the strict upper triangle.
//
// The updates work on a region (P.r0..r1 x P.c0..c1) so the host can run them blocked: the
// column steps only inside a panel of columns (and, for LU, the panel's block row: the
// triangular solve for U12), the trailing matrix updated once per panel by a GEMM (matmul's
// kernel) whose product sub_block subtracts.
//
// Matrices are contiguous n x n blocks (R: n x m blocks); P.batch0 is the first matrix of
// this dispatch, wid.z (or wid.y) the matrix within it. Per-thread loops are bounded by
// n / 256 + (n + m) / 256 (pivot), n (backsub, logdet) or by one element (updates).
{{ENABLES}}
alias T = {{T}};

struct Params {
    n: u32,
    m: u32,
    k: u32,
    batch0: u32,
    count: u32,
    mode: u32,
    // A region of the augmented matrix [A | R]: rows r0..r1, columns c0..c1 (columns from n
    // on are R's).
    r0: u32,
    r1: u32,
    c0: u32,
    c1: u32,
    neg_inf: f32,
    pad: u32,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> a: array<T>;
@group(0) @binding(2) var<storage, read_write> r: array<T>;
@group(0) @binding(3) var<storage, read_write> aux: array<i32>;
@group(0) @binding(4) var<storage, read_write> out: array<T>;

var<workgroup> best_v: array<T, 256>;
var<workgroup> best_i: array<u32, 256>;

@compute @workgroup_size(256)
fn lu_pivot(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = P.batch0 + wid.y;
    let n = P.n;
    let k = P.k;
    let base = b * n * n;
    var bv = T(-1);
    var bi = k;
    for (var i = k + lid; i < n; i = i + 256u) {
        let v = abs(a[base + i * n + k]);
        if (v > bv) {
            bv = v;
            bi = i;
        }
    }
    best_v[lid] = bv;
    best_i[lid] = bi;
    workgroupBarrier();
    for (var s = 128u; s > 0u; s = s >> 1u) {
        if (lid < s) {
            let v = best_v[lid + s];
            let i = best_i[lid + s];
            if (v > best_v[lid] || (v == best_v[lid] && i < best_i[lid])) {
                best_v[lid] = v;
                best_i[lid] = i;
            }
        }
        workgroupBarrier();
    }
    let p = best_i[0];
    let pv = best_v[0];
    let abase = b * (n + 1u);
    if (lid == 0u) {
        aux[abase + 1u + k] = i32(p);
        if (pv == T(0) && aux[abase] == 0) {
            aux[abase] = i32(k + 1u);
        }
    }
    if (p != k) {
        for (var j = lid; j < n; j = j + 256u) {
            let t = a[base + k * n + j];
            a[base + k * n + j] = a[base + p * n + j];
            a[base + p * n + j] = t;
        }
        let m = P.m;
        let rbase = b * n * m;
        for (var j = lid; j < m; j = j + 256u) {
            let t = r[rbase + k * m + j];
            r[rbase + k * m + j] = r[rbase + p * m + j];
            r[rbase + p * m + j] = t;
        }
    }
    storageBarrier();
    workgroupBarrier();
    let d = a[base + k * n + k];
    if (d != T(0)) {
        for (var i = k + 1u + lid; i < n; i = i + 256u) {
            a[base + i * n + k] = a[base + i * n + k] / d;
        }
    }
}

@compute @workgroup_size(16, 16)
fn lu_update(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let b = P.batch0 + wid.z;
    let n = P.n;
    let m = P.m;
    let k = P.k;
    let i = P.r0 + gid.y;
    let j = P.c0 + gid.x;
    if (i >= P.r1 || j >= P.c1) {
        return;
    }
    let base = b * n * n;
    let l = a[base + i * n + k];
    if (j < n) {
        a[base + i * n + j] = a[base + i * n + j] - l * a[base + k * n + j];
    } else {
        let rbase = b * n * m;
        let jr = j - n;
        r[rbase + i * m + jr] = r[rbase + i * m + jr] - l * r[rbase + k * m + jr];
    }
}

// Subtracts a product computed by matmul (`out`: count blocks of (r1 - r0) x (c1 - c0),
// contiguous) from the region rows r0..r1, columns c0..c1 of A (mode 0) or R (mode 1).
@compute @workgroup_size(16, 16)
fn sub_block(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let b = P.batch0 + wid.z;
    let rows = P.r1 - P.r0;
    let cols = P.c1 - P.c0;
    if (gid.y >= rows || gid.x >= cols) {
        return;
    }
    let p = out[(b * rows + gid.y) * cols + gid.x];
    let i = P.r0 + gid.y;
    let j = P.c0 + gid.x;
    if (P.mode == 0u) {
        let at = b * P.n * P.n + i * P.n + j;
        a[at] = a[at] - p;
    } else {
        let at = b * P.n * P.m + i * P.m + j;
        r[at] = r[at] - p;
    }
}

@compute @workgroup_size(64)
fn lu_backsub(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let b = P.batch0 + wid.y;
    let n = P.n;
    let m = P.m;
    let k = P.k;
    let j = gid.x;
    if (j >= m) {
        return;
    }
    let base = b * n * n;
    let rbase = b * n * m;
    // P.mode 1: a unit diagonal (solve_triangular's unit_diagonal).
    var x = r[rbase + k * m + j];
    if (P.mode == 0u) {
        x = x / a[base + k * n + k];
    }
    r[rbase + k * m + j] = x;
    for (var i = P.r0; i < k; i = i + 1u) {
        r[rbase + i * m + j] = r[rbase + i * m + j] - a[base + i * n + k] * x;
    }
}

@compute @workgroup_size(64)
fn lu_logdet(@builtin(global_invocation_id) gid: vec3<u32>) {
    let b = gid.x;
    if (b >= P.count) {
        return;
    }
    let n = P.n;
    let base = b * n * n;
    let abase = b * (n + 1u);
    var sign = T(1);
    var logabs = T(0);
    for (var k = 0u; k < n; k = k + 1u) {
        let d = a[base + k * n + k];
        if (aux[abase + 1u + k] != i32(k)) {
            sign = -sign;
        }
        if (d < T(0)) {
            sign = -sign;
        }
        logabs = logabs + {{LOG}}(abs(d));
    }
    if (aux[abase] != 0) {
        sign = T(0);
        logabs = T(P.neg_inf);
    }
    if (P.mode == 0u) {
        out[b] = sign * {{EXP}}(logabs);
    } else {
        out[2u * b] = sign;
        out[2u * b + 1u] = logabs;
    }
}

@compute @workgroup_size(256)
fn chol_col(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = P.batch0 + wid.y;
    let n = P.n;
    let k = P.k;
    let base = b * n * n;
    let d = a[base + k * n + k];
    let l = sqrt(d);
    if (lid == 0u && !(d > T(0)) && aux[b] == 0) {
        aux[b] = i32(k + 1u);
    }
    for (var i = k + 1u + lid; i < n; i = i + 256u) {
        a[base + i * n + k] = a[base + i * n + k] / l;
    }
    storageBarrier();
    workgroupBarrier();
    if (lid == 0u) {
        a[base + k * n + k] = l;
    }
}

@compute @workgroup_size(16, 16)
fn chol_update(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let b = P.batch0 + wid.z;
    let n = P.n;
    let k = P.k;
    let i = P.r0 + gid.y;
    let j = P.c0 + gid.x;
    if (i >= P.r1 || j >= P.c1 || j > i) {
        return;
    }
    let base = b * n * n;
    a[base + i * n + j] = a[base + i * n + j] - a[base + i * n + k] * a[base + j * n + k];
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
