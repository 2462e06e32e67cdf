// Panel factorizations held in registers: one workgroup of WG (256, 512 or 1024) threads per
// matrix factors the tall panel rows k0..n, columns k0..k1 (k1 - k0 <= W) of the blocked LU
// and Cholesky (`linalg_steps.wgsl` runs everything else). Thread t holds the panel rows
// k0 + t + WG r (r < RPT, so the panel has at most WG * RPT rows) in a private array: each column step
// moves only a row or a column through workgroup memory, and the panel is read and written
// once. Same results and `aux` records as the global-memory panels of `linalg_steps.wgsl`:
// - lu_panel: per column the pivot (first largest |a[i, k]|, keeping the lower row on
//   ties: a tree through workgroup memory, or with subgroups each subgroup's largest and
//   one barrier, every thread then reading the subgroups' results), the swap of rows k and
//   p through workgroup memory, the scaling and the rank-1 update of the thread's own rows;
//   aux per matrix [info, piv_0, .., piv_{n-1}]. A column takes two barriers with
//   subgroups (the tree: its eight more): the next column's pivot barrier keeps its writes
//   of prow and krow after every thread's update.
// - chol_panel: per column the square root of the pivot (aux per matrix: info, the first
//   non-positive one), the scaled column's top W entries shared, the lower-triangle update;
//   rows k0..P.r1 (P.r1 = k1: the diagonal block only).
// Loops per thread: about (k1 - k0) * RPT * W. lu_panel's column steps are one function
// called with each constant column (generated calls).
{{ENABLES}}
alias T = {{T}};
const RPT: u32 = {{RPT}}u;
const W: u32 = {{W}}u;
const WG: u32 = {{WG}}u;

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
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> a: array<T>;
@group(0) @binding(3) var<storage, read_write> aux: array<i32>;

var<workgroup> red_v: array<T, WG>;
var<workgroup> red_i: array<u32, WG>;
var<workgroup> prow: array<T, W>;
var<workgroup> krow: array<T, W>;

// One column step of lu_panel, called once per column with a constant `kk` so that, inlined,
// the indices into the thread's rows are constants where the compiler unrolls the row and
// column loops. Thread kk holds panel row kk (kk < W <= 32 < WG) as its row 0.
fn lu_column(
    v: ptr<function, array<T, RPT * W>>,
    kk: u32,
    lid: u32,
    k0: u32,
    n: u32,
    abase: u32,
    w: u32,
    sg_lane: u32,
    sg_id: u32,
    sg_count: u32,
) {
    if (kk >= w) {
        return;
    }
    let k = k0 + kk;
    var bv = T(-1);
    var bi = k;
    for (var r = 0u; r < RPT; r = r + 1u) {
        let i = k0 + lid + r * WG;
        if (i >= k && i < n) {
            let x = abs((*v)[r * W + kk]);
            if (x > bv) {
                bv = x;
                bi = i;
            }
        }
    }
{{PIVOT}}
    if (lid == 0u) {
        aux[abase + 1u + k] = i32(p);
        if (pv == T(0) && aux[abase] == 0) {
            aux[abase] = i32(k + 1u);
        }
    }
    // Rows k and p trade places through workgroup memory.
    let tp = (p - k0) % WG;
    let rp = (p - k0) / WG;
    if (lid == tp) {
        for (var r = 0u; r < RPT; r = r + 1u) {
            if (r == rp) {
                for (var j = 0u; j < W; j = j + 1u) {
                    prow[j] = (*v)[r * W + j];
                }
            }
        }
    }
    if (lid == kk) {
        for (var j = 0u; j < W; j = j + 1u) {
            krow[j] = (*v)[j];
        }
    }
    workgroupBarrier();
    if (lid == tp) {
        for (var r = 0u; r < RPT; r = r + 1u) {
            if (r == rp) {
                for (var j = 0u; j < W; j = j + 1u) {
                    (*v)[r * W + j] = krow[j];
                }
            }
        }
    }
    if (lid == kk) {
        for (var j = 0u; j < W; j = j + 1u) {
            (*v)[j] = prow[j];
        }
    }
    let d = prow[kk];
    for (var r = 0u; r < RPT; r = r + 1u) {
        let i = k0 + lid + r * WG;
        if (i > k && i < n) {
            var l = (*v)[r * W + kk];
            if (d != T(0)) {
                l = l / d;
            }
            (*v)[r * W + kk] = l;
            for (var j = kk + 1u; j < W; j = j + 1u) {
                (*v)[r * W + j] = (*v)[r * W + j] - l * prow[j];
            }
        }
    }
}

@compute @workgroup_size({{WG}})
fn lu_panel(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32{{PIVOT_ARGS}}) {
    let b = P.batch0 + wid.y;
    let n = P.n;
    let base = b * n * n;
    let abase = b * (n + 1u);
    let k0 = P.k0;
    let w = P.k1 - k0;
    var v: array<T, RPT * W>;
    for (var r = 0u; r < RPT; r = r + 1u) {
        let i = k0 + lid + r * WG;
        for (var j = 0u; j < W; j = j + 1u) {
            var x = T(0);
            if (i < n && j < w) {
                x = a[base + i * n + k0 + j];
            }
            v[r * W + j] = x;
        }
    }
{{COLUMNS}}
    for (var r = 0u; r < RPT; r = r + 1u) {
        let i = k0 + lid + r * WG;
        if (i < n) {
            for (var j = 0u; j < w; j = j + 1u) {
                a[base + i * n + k0 + j] = v[r * W + j];
            }
        }
    }
}

@compute @workgroup_size({{WG}})
fn chol_panel(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = P.batch0 + wid.y;
    let n = P.n;
    let base = b * n * n;
    let k0 = P.k0;
    let w = P.k1 - k0;
    // The panel's rows end at P.r1 (n, or k1 where only the diagonal block is factored and
    // chol_rows solves the rows below).
    var v: array<T, RPT * W>;
    for (var r = 0u; r < RPT; r = r + 1u) {
        let i = k0 + lid + r * WG;
        for (var j = 0u; j < W; j = j + 1u) {
            var x = T(0);
            if (i < P.r1 && j < w) {
                x = a[base + i * n + k0 + j];
            }
            v[r * W + j] = x;
        }
    }
    // The panel's top w rows are thread lid's row 0 (w <= W <= 256).
    for (var kk = 0u; kk < w; kk = kk + 1u) {
        let k = k0 + kk;
        if (lid == kk) {
            prow[0] = v[kk];
        }
        workgroupBarrier();
        let d = prow[0];
        let piv = sqrt(d);
        if (lid == 0u && !(d > T(0)) && aux[b] == 0) {
            aux[b] = i32(k + 1u);
        }
        for (var r = 0u; r < RPT; r = r + 1u) {
            let i = k0 + lid + r * WG;
            if (i > k && i < P.r1) {
                v[r * W + kk] = v[r * W + kk] / piv;
            }
        }
        if (lid == kk) {
            v[kk] = piv;
        }
        if (lid > kk && lid < w) {
            krow[lid] = v[kk];
        }
        workgroupBarrier();
        for (var r = 0u; r < RPT; r = r + 1u) {
            let i = k0 + lid + r * WG;
            if (i > k && i < P.r1) {
                let l = v[r * W + kk];
                for (var j = kk + 1u; j < w && k0 + j <= i; j = j + 1u) {
                    v[r * W + j] = v[r * W + j] - l * krow[j];
                }
            }
        }
        workgroupBarrier();
    }
    for (var r = 0u; r < RPT; r = r + 1u) {
        let i = k0 + lid + r * WG;
        if (i < P.r1) {
            for (var j = 0u; j < w; j = j + 1u) {
                a[base + i * n + k0 + j] = v[r * W + j];
            }
        }
    }
}
