// Very small solves and inverses, one matrix per thread in registers: the order N (at most
// TINY_MAX = 8) is a constant of each variant, so every loop has a constant trip count and
// unrolls, and every index into the thread's private arrays is constant — the matrix stays in
// registers. LU with partial pivoting (rows exchanged by selects, never by a computed index;
// the pivot rule and the zero-pivot rule are linalg_small.wgsl's), then
// the right-hand sides (MODE 0) or the identity's columns (MODE 1) solved column by column.
// Unlike linalg_small.wgsl, each pivot is divided once: multipliers and back substitution
// multiply by its reciprocal (at most an ulp from dividing; the results are checked by
// residuals). A singular pivot still gives inf/NaN there, and the aux flag reports it.
// aux[matrix] = 1 + the first column whose pivot is exactly zero (0: none).
// Threads are matrices: thread t of workgroup (wx, wy) is matrix (wy * gx + wx) * 64 + t.
// Per-thread loops: about N^3 for the factorization plus nrhs * 3 N^2 for the solves (the
// host keeps nrhs small).
// MODE: 0 solve, 1 inv.
{{ENABLES}}
alias T = {{T}};
const MODE: u32 = {{MODE}}u;
const N: u32 = {{N}}u;
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

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let bidx = (wid.y * P.gx + wid.x) * WG + lid;
    if (bidx >= P.batch) {
        return;
    }
    let base = bidx * N * N;
    var m: array<T, {{NN}}>;
    for (var e = 0u; e < N * N; e = e + 1u) {
        m[e] = a[base + e];
    }
    var piv: array<u32, {{N}}>;
    var inv_diag: array<T, {{N}}>;
    var info = 0u;
    for (var k = 0u; k < N; k = k + 1u) {
        var p = k;
        var best = abs(m[k * N + k]);
        for (var i = k + 1u; i < N; i = i + 1u) {
            let v = abs(m[i * N + k]);
            if (v > best) {
                best = v;
                p = i;
            }
        }
        piv[k] = p;
        if (best == T(0) && info == 0u) {
            info = k + 1u;
        }
        for (var i = k + 1u; i < N; i = i + 1u) {
            let swap = i == p;
            for (var j = 0u; j < N; j = j + 1u) {
                let t = m[k * N + j];
                m[k * N + j] = select(t, m[i * N + j], swap);
                m[i * N + j] = select(m[i * N + j], t, swap);
            }
        }
        let d = m[k * N + k];
        // One division per pivot; the multipliers and the back substitution multiply by
        // its reciprocal (a float64 division is a long software sequence on most GPUs).
        inv_diag[k] = T(1) / d;
        if (d != T(0)) {
            for (var i = k + 1u; i < N; i = i + 1u) {
                m[i * N + k] = m[i * N + k] * inv_diag[k];
            }
        }
        for (var i = k + 1u; i < N; i = i + 1u) {
            let l = m[i * N + k];
            for (var j = k + 1u; j < N; j = j + 1u) {
                m[i * N + j] = m[i * N + j] - l * m[k * N + j];
            }
        }
    }
    var cols = N;
    if (MODE == 0u) {
        cols = P.nrhs;
    }
    for (var j = 0u; j < cols; j = j + 1u) {
        var x: array<T, {{N}}>;
        for (var i = 0u; i < N; i = i + 1u) {
            if (MODE == 1u) {
                x[i] = select(T(0), T(1), i == j);
            } else {
                x[i] = {{LOAD_RHS}};
            }
        }
        for (var k = 0u; k < N; k = k + 1u) {
            let p = piv[k];
            for (var i = k + 1u; i < N; i = i + 1u) {
                let swap = i == p;
                let t = x[k];
                x[k] = select(t, x[i], swap);
                x[i] = select(x[i], t, swap);
            }
        }
        for (var i = 1u; i < N; i = i + 1u) {
            var s = x[i];
            for (var k = 0u; k < i; k = k + 1u) {
                s = s - m[i * N + k] * x[k];
            }
            x[i] = s;
        }
        for (var ii = 0u; ii < N; ii = ii + 1u) {
            let i = N - 1u - ii;
            var s = x[i];
            for (var k = i + 1u; k < N; k = k + 1u) {
                s = s - m[i * N + k] * x[k];
            }
            x[i] = s * inv_diag[i];
        }
        for (var i = 0u; i < N; i = i + 1u) {
            out[(bidx * N + i) * cols + j] = x[i];
        }
    }
    aux[bidx] = i32(info);
}
