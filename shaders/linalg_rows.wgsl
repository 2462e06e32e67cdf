// Small solves and inverses with one thread per matrix row: G matrices of order N per
// workgroup of G * N threads (N, R and G are constants of each variant, so every loop over a
// row has a constant trip count and the thread's row stays in registers). The workgroup's G
// matrices are one contiguous block of `a`: loaded coalesced through workgroup memory, and
// the results leave the same way.
//
// LU with partial pivoting, rows never moved: each thread keeps its row and the row's current
// position `pos`, and a pivot "swap" only exchanges two positions. Step k: every row at a
// position >= k offers |its column-k entry| as a key; each thread scans its matrix's keys and
// finds the pivot by linalg_small.wgsl's rule (LAPACK's idamax: the first position of the
// largest |value|, NaN rows skipped, the row at position k kept when its value is NaN or
// infinite; only ordered comparisons decide). The pivot row publishes its entries and its
// right-hand sides (a double buffer, so one barrier per step besides the keys'), and every
// row below it subtracts its multiple: the forward substitution runs with the elimination.
// The back substitution goes column by column: the row at position k scales its right-hand
// sides by the reciprocal of its pivot and publishes them, the rows above subtract.
// aux[matrix] = 1 + the first column whose pivot is exactly zero (0: none); a zero pivot
// leaves its column's multipliers undivided and gives inf/NaN in the result, as the other
// kernels do.
// Per-thread loops: about N (N + R) for each of N steps, then N R per back step.
// MODE: 0 solve (R = the right-hand-side columns), 1 inv (R = N, the identity's columns).
{{ENABLES}}
alias T = {{T}};
const MODE: u32 = {{MODE}}u;
const N: u32 = {{N}}u;
const R: u32 = {{R}}u;
const G: u32 = {{G}}u;
const WG: u32 = {{WG}}u;
const MAX_FINITE: T = T({{MAX_FINITE}});

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

// The workgroup's matrices on the way in, its results on the way out.
var<workgroup> stage: array<T, {{STAGE}}>;
var<workgroup> keys: array<T, WG>;
var<workgroup> key_pos: array<u32, WG>;
// Pivot rows (N entries, R right-hand sides) per matrix, two steps' worth.
var<workgroup> prow: array<T, {{PROW}}>;
// Solved rows of the back substitution per matrix, two steps' worth.
var<workgroup> xrow: array<T, {{XROW}}>;

@compute @workgroup_size({{WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let first = (wid.y * P.gx + wid.x) * G;
    // Uniform over the workgroup: a surplus workgroup of the 2-D grid leaves at once.
    if (first >= P.batch) {
        return;
    }
    let count = min(G, P.batch - first);
    let g = lid / N;
    let i = lid % N;
    let bidx = first + g;
    let live = g < count;

    for (var e = lid; e < G * N * N; e = e + WG) {
        if (e < count * N * N) {
            stage[e] = a[first * N * N + e];
        }
    }
    workgroupBarrier();
    var row: array<T, N>;
    var b: array<T, R>;
    for (var j = 0u; j < N; j = j + 1u) {
        row[j] = select(T(0), stage[lid * N + j], live);
    }
    for (var j = 0u; j < R; j = j + 1u) {
        if (MODE == 1u) {
            b[j] = select(T(0), T(1), j == i);
        } else if (live) {
            b[j] = {{LOAD_RHS}};
        } else {
            b[j] = T(0);
        }
    }

    var pos = i;
    var info = 0u;
    // U's diagonal entry of this row (its pivot), known once the row is chosen.
    var diag = T(1);
    let base = g * N;
    for (var k = 0u; k < N; k = k + 1u) {
        var ak = T(0);
        for (var j = 0u; j < N; j = j + 1u) {
            ak = select(ak, row[j], j == k);
        }
        var key = T(-2);
        if (pos >= k) {
            let v = abs(ak);
            key = select(T(-1), v, v >= T(0));
            if (pos == k) {
                key = select(-T(P.neg_inf), v, v <= MAX_FINITE);
            }
        }
        keys[lid] = key;
        key_pos[lid] = pos;
        workgroupBarrier();
        var best = base;
        var best_key = keys[base];
        var best_pos = key_pos[base];
        for (var t = 1u; t < N; t = t + 1u) {
            let o = keys[base + t];
            let o_pos = key_pos[base + t];
            if (o > best_key || (o == best_key && o_pos < best_pos)) {
                best = base + t;
                best_key = o;
                best_pos = o_pos;
            }
        }
        let buf = (k & 1u) * G * (N + R) + g * (N + R);
        if (lid == best) {
            for (var j = 0u; j < N; j = j + 1u) {
                prow[buf + j] = row[j];
            }
            for (var j = 0u; j < R; j = j + 1u) {
                prow[buf + N + j] = b[j];
            }
            diag = ak;
        }
        // The row at position k takes the pivot's place; the pivot row becomes position k.
        if (pos == k) {
            pos = best_pos;
        }
        if (lid == best) {
            pos = k;
        }
        workgroupBarrier();
        let d = prow[buf + k];
        if (d == T(0) && info == 0u) {
            info = k + 1u;
        }
        if (pos > k) {
            var l = ak;
            if (d != T(0)) {
                l = ak / d;
            }
            for (var j = 0u; j < N; j = j + 1u) {
                if (j > k) {
                    row[j] = row[j] - l * prow[buf + j];
                }
            }
            for (var j = 0u; j < R; j = j + 1u) {
                b[j] = b[j] - l * prow[buf + N + j];
            }
        }
    }

    for (var kk = 0u; kk < N; kk = kk + 1u) {
        let k = N - 1u - kk;
        let xb = (kk & 1u) * G * R + g * R;
        if (pos == k) {
            // One division per row; its right-hand sides multiply by the reciprocal.
            let r = T(1) / diag;
            for (var j = 0u; j < R; j = j + 1u) {
                b[j] = b[j] * r;
                xrow[xb + j] = b[j];
            }
        }
        workgroupBarrier();
        if (pos < k) {
            var u = T(0);
            for (var j = 0u; j < N; j = j + 1u) {
                u = select(u, row[j], j == k);
            }
            for (var j = 0u; j < R; j = j + 1u) {
                b[j] = b[j] - u * xrow[xb + j];
            }
        }
    }

    for (var j = 0u; j < R; j = j + 1u) {
        stage[(base + pos) * R + j] = b[j];
    }
    workgroupBarrier();
    for (var e = lid; e < G * N * R; e = e + WG) {
        if (e < count * N * R) {
            out[first * N * R + e] = stage[e];
        }
    }
    if (live && i == 0u) {
        aux[bidx] = i32(info);
    }
}
