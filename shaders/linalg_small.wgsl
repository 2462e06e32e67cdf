// Small dense factorizations, one matrix per workgroup in workgroup memory (n <= 32):
// LU with partial pivoting followed by a solve, an inverse, det, slogdet or the packed
// factors (scipy's lu_factor), or Cholesky (lower). Matrices are contiguous n x n blocks of
// `a`; the workgroup grid is 2-D (gx workgroups along x) so batches beyond 65535 run.
// Every loop is bounded by n <= 32 or by the right-hand-side count over 64 threads.
// MODE: 0 solve, 1 inv, 2 det, 3 slogdet, 4 lu_factor, 5 cholesky.
{{ENABLES}}
alias T = {{T}};
const MODE: u32 = {{MODE}}u;
const MAXN: u32 = 32u;
const WG: u32 = 64u;

struct Params {
    n: u32,
    nrhs: u32,
    batch: u32,
    gx: u32,
    neg_inf: f32,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> a: array<T>;
{{RHS_BINDING}}
@group(0) @binding(3) var<storage, read_write> out: array<T>;
@group(0) @binding(4) var<storage, read_write> aux: array<i32>;

var<workgroup> m: array<T, 1024>;
var<workgroup> piv: array<u32, 32>;
var<workgroup> info: u32;
var<workgroup> cand: array<T, 32>;
var<workgroup> cand_at: array<u32, 32>;
// The reciprocals of U's diagonal, made once for every column's back substitution (a
// float64 division is a long software sequence on most GPUs).
var<workgroup> inv_diag: array<T, 32>;

// PIVOT_TREE: LU's pivot of column k by a tree over 32 threads (5 barrier steps) instead of
// one thread's loop over the rows, with the loop's (LAPACK's idamax) choice: the first row
// of the largest |value|, NaN rows skipped, and row k kept when its |value| is NaN or
// infinite (nothing compares greater). Only ordered comparisons, which are false for NaN,
// decide: rows outside k..n rank -2, NaN rows -1, row k +inf when it is not finite.
const PIVOT_TREE: bool = {{PIVOT_TREE}};
const MAX_FINITE: T = T({{MAX_FINITE}});

// The pivot row of column k (every thread calls it and gets it).
fn pivot_tree(n: u32, k: u32, lid: u32) -> u32 {
    if (lid < 32u) {
        var key = T(-2);
        if (lid >= k && lid < n) {
            let v = abs(m[lid * n + k]);
            key = select(T(-1), v, v >= T(0));
            if (lid == k) {
                key = select(-T(P.neg_inf), v, v <= MAX_FINITE);
            }
        }
        cand[lid] = key;
        cand_at[lid] = lid;
    }
    workgroupBarrier();
    for (var s = 16u; s > 0u; s = s >> 1u) {
        if (lid < s) {
            let o = cand[lid + s];
            let c = cand[lid];
            if (o > c || (o == c && cand_at[lid + s] < cand_at[lid])) {
                cand[lid] = o;
                cand_at[lid] = cand_at[lid + s];
            }
        }
        workgroupBarrier();
    }
    return cand_at[0];
}

// LU with partial pivoting of m (row stride n) in place; piv[k] is the row swapped with k;
// info is 1 + the first column whose pivot is exactly zero (0: none).
fn lu(n: u32, lid: u32) {
    for (var k = 0u; k < n; k = k + 1u) {
        if (PIVOT_TREE) {
            let p = pivot_tree(n, k, lid);
            if (lid == 0u) {
                piv[k] = p;
                if (abs(m[p * n + k]) == T(0) && info == 0u) {
                    info = k + 1u;
                }
            }
        } else if (lid == 0u) {
            var p = k;
            var best = abs(m[k * n + k]);
            for (var i = k + 1u; i < n; i = i + 1u) {
                let v = abs(m[i * n + k]);
                if (v > best) {
                    best = v;
                    p = i;
                }
            }
            piv[k] = p;
            if (best == T(0) && info == 0u) {
                info = k + 1u;
            }
        }
        workgroupBarrier();
        let p = piv[k];
        if (lid < n && p != k) {
            let t = m[k * n + lid];
            m[k * n + lid] = m[p * n + lid];
            m[p * n + lid] = t;
        }
        workgroupBarrier();
        let d = m[k * n + k];
        if (d != T(0)) {
            for (var i = k + 1u + lid; i < n; i = i + WG) {
                m[i * n + k] = m[i * n + k] / d;
            }
        }
        workgroupBarrier();
        let r = n - k - 1u;
        for (var e = lid; e < r * r; e = e + WG) {
            let i = k + 1u + e / r;
            let j = k + 1u + e % r;
            m[i * n + j] = m[i * n + j] - m[i * n + k] * m[k * n + j];
        }
        workgroupBarrier();
    }
}

// Cholesky (lower) of m in place; info is 1 + the first non-positive (or NaN) pivot.
fn cholesky(n: u32, lid: u32) {
    for (var k = 0u; k < n; k = k + 1u) {
        if (lid == 0u) {
            let d = m[k * n + k];
            if (!(d > T(0)) && info == 0u) {
                info = k + 1u;
            }
            m[k * n + k] = sqrt(d);
        }
        workgroupBarrier();
        let l = m[k * n + k];
        for (var i = k + 1u + lid; i < n; i = i + WG) {
            m[i * n + k] = m[i * n + k] / l;
        }
        workgroupBarrier();
        let r = n - k - 1u;
        for (var e = lid; e < r * r; e = e + WG) {
            let i = k + 1u + e / r;
            let j = k + 1u + e % r;
            if (j <= i) {
                m[i * n + j] = m[i * n + j] - m[i * n + k] * m[j * n + k];
            }
        }
        workgroupBarrier();
    }
}

// Column j of the right-hand side (or of the identity for MODE 1) solved with the factors.
fn solve_column(n: u32, bidx: u32, j: u32, cols: u32) {
    var x: array<T, 32>;
    for (var i = 0u; i < n; i = i + 1u) {
        if (MODE == 1u) {
            x[i] = select(T(0), T(1), i == j);
        } else {
            x[i] = {{LOAD_RHS}};
        }
    }
    for (var k = 0u; k < n; k = k + 1u) {
        let p = piv[k];
        if (p != k) {
            let t = x[k];
            x[k] = x[p];
            x[p] = t;
        }
    }
    for (var i = 1u; i < n; i = i + 1u) {
        var s = x[i];
        for (var k = 0u; k < i; k = k + 1u) {
            s = s - m[i * n + k] * x[k];
        }
        x[i] = s;
    }
    for (var ii = 0u; ii < n; ii = ii + 1u) {
        let i = n - 1u - ii;
        var s = x[i];
        for (var k = i + 1u; k < n; k = k + 1u) {
            s = s - m[i * n + k] * x[k];
        }
        x[i] = s * inv_diag[i];
    }
    for (var i = 0u; i < n; i = i + 1u) {
        out[(bidx * n + i) * cols + j] = x[i];
    }
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let bidx = wid.y * P.gx + wid.x;
    if (bidx >= P.batch) {
        return;
    }
    let n = P.n;
    let base = bidx * n * n;
    for (var e = lid; e < n * n; e = e + WG) {
        m[e] = a[base + e];
    }
    if (lid == 0u) {
        info = 0u;
    }
    workgroupBarrier();
    if (MODE == 5u) {
        cholesky(n, lid);
        for (var e = lid; e < n * n; e = e + WG) {
            let i = e / n;
            let j = e % n;
            out[base + e] = select(T(0), m[e], j <= i);
        }
        if (lid == 0u) {
            aux[bidx] = i32(info);
        }
        return;
    }
    lu(n, lid);
    if (MODE <= 1u) {
        if (lid < n) {
            inv_diag[lid] = T(1) / m[lid * n + lid];
        }
        workgroupBarrier();
        let cols = select(P.nrhs, n, MODE == 1u);
        for (var j = lid; j < cols; j = j + WG) {
            solve_column(n, bidx, j, cols);
        }
        if (lid == 0u) {
            aux[bidx] = i32(info);
        }
    } else if (MODE <= 3u) {
        if (lid == 0u) {
            var sign = T(1);
            var logabs = T(0);
            for (var k = 0u; k < n; k = k + 1u) {
                let d = m[k * n + k];
                if (piv[k] != k) {
                    sign = -sign;
                }
                if (d < T(0)) {
                    sign = -sign;
                }
                logabs = logabs + {{LOG}}(abs(d));
            }
            if (info != 0u) {
                sign = T(0);
                logabs = T(P.neg_inf);
            }
            if (MODE == 2u) {
                out[bidx] = sign * {{EXP}}(logabs);
            } else {
                out[2u * bidx] = sign;
                out[2u * bidx + 1u] = logabs;
            }
        }
    } else {
        for (var e = lid; e < n * n; e = e + WG) {
            out[base + e] = m[e];
        }
        for (var k = lid; k < n; k = k + WG) {
            aux[bidx * n + k] = i32(piv[k]);
        }
    }
}
{{LIBM}}
