// Symmetric eigenproblems of small matrices (eigh, eigvalsh; order N <= 32) by the parallel
// two-sided cyclic Jacobi method, one launch: G matrices per workgroup, each in workgroup
// memory as an N2 x N2 matrix (N2 = N rounded up to even; an odd order gets a zero row and
// column, whose pairs never rotate) with its eigenvectors V (VECTORS).
//
// A sweep is N2 - 1 rounds of the round-robin ordering: every round pairs all N2 indices
// into HALF = N2 / 2 disjoint pairs (p, q), so its rotations commute and apply at once.
// Per round: HALF threads per matrix compute their pair's rotation (Golub & Van Loan's
// symmetric Schur step, 8.5.2), skipped while |a_pq| <= EPS * max(sqrt|a_pp| sqrt|a_qq|,
// max|a| / N2): the relative test keeps small eigenvalues accurate, the absolute floor
// bounds the sweeps; then each of HALF * HALF threads per matrix applies J^T A J to one
// 2 x 2 block (the rows of one pair, the columns of another), setting a rotated pair's
// a_pq to zero, and updates two rows of V's columns p and q. Two barriers per round.
// Sweeps repeat until one rotates nothing (the workgroup's flag, read uniformly), at most
// MAX_SWEEPS times.
//
// The input is read from the lower (uplo 0) or upper (uplo 1) triangle, mirrored. Outputs:
// the eigenvalues ascending (a stable rank of the diagonal), V's columns in that order,
// and aux[matrix] = 0, 1 for a non-finite input entry (of the triangle read), 2 when
// MAX_SWEEPS sweeps did not converge.
// Per-thread loops: about MAX_SWEEPS * (N2 - 1) * 3, plus a few N2 * N2 / threads.
{{ENABLES}}
alias T = {{T}};
const N: u32 = {{N}}u;
const N2: u32 = {{N2}}u;
const HALF: u32 = {{HALF}}u;
const TPM: u32 = {{TPM}}u;
const G: u32 = {{G}}u;
const WG: u32 = {{WG}}u;
const NN2: u32 = {{NN2}}u;
const VECTORS: bool = {{VECTORS}};
const MAX_SWEEPS: u32 = {{MAX_SWEEPS}}u;
const EPS: T = T({{EPS}});
const MAX_FINITE: T = T({{MAX_FINITE}});

struct Params {
    n: u32,
    batch: u32,
    gx: u32,
    uplo: u32,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> a: array<T>;
@group(0) @binding(2) var<storage, read_write> w: array<T>;
{{V_BINDING}}
@group(0) @binding(4) var<storage, read_write> aux: array<i32>;

var<workgroup> A: array<T, {{A_SIZE}}>;
var<workgroup> V: array<T, {{V_SIZE}}>;
var<workgroup> rot_c: array<T, {{ROT_SIZE}}>;
var<workgroup> rot_s: array<T, {{ROT_SIZE}}>;
var<workgroup> red: array<T, {{WG}}>;
var<workgroup> scale: array<T, {{G}}>;
var<workgroup> bad: array<atomic<u32>, {{G}}>;
var<workgroup> perm: array<u32, {{A_PERM}}>;
var<workgroup> rotated: atomic<u32>;
var<workgroup> again: u32;

// Pair k of round r of the round-robin ordering (index N2 - 1 fixed, the others circling).
fn pair(r: u32, k: u32) -> vec2<u32> {
    let m = N2 - 1u;
    var p = m;
    var q = r;
    if (k != 0u) {
        // (r + k) mod m and (r - k) mod m without a division (r, k < m).
        p = r + k;
        p = select(p, p - m, p >= m);
        q = r + m - k;
        q = select(q, q - m, q >= m);
    }
    return vec2<u32>(min(p, q), max(p, q));
}

@compute @workgroup_size({{WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let first = (wid.y * P.gx + wid.x) * G;
    // Uniform over the workgroup: a surplus workgroup of the 2-D grid leaves at once.
    if (first >= P.batch) {
        return;
    }
    let count = min(G, P.batch - first);
    let g = lid / TPM;
    let t = lid % TPM;
    let k1 = t / HALF;
    let k2 = t % HALF;
    let ab = g * NN2;

    for (var e = lid; e < G * NN2; e = e + WG) {
        A[e] = T(0);
        if (VECTORS) {
            V[e] = select(T(0), T(1), (e % NN2) / N2 == e % N2);
        }
    }
    if (lid < G) {
        atomicStore(&bad[lid], 0u);
    }
    if (lid == 0u) {
        atomicStore(&rotated, 0u);
    }
    workgroupBarrier();
    for (var e = lid; e < count * N * N; e = e + WG) {
        let gg = e / (N * N);
        let i = (e % (N * N)) / N;
        let j = e % N;
        if (select(i <= j, i >= j, P.uplo == 0u)) {
            let x = a[first * N * N + e];
            A[gg * NN2 + i * N2 + j] = x;
            A[gg * NN2 + j * N2 + i] = x;
            if (!(abs(x) <= MAX_FINITE)) {
                atomicStore(&bad[gg], 1u);
            }
        }
    }
    workgroupBarrier();
    var m = T(0);
    for (var e = t; e < NN2; e = e + TPM) {
        m = max(m, abs(A[ab + e]));
    }
    red[lid] = m;
    workgroupBarrier();
    if (t == 0u) {
        var s = T(0);
        for (var u = 0u; u < TPM; u = u + 1u) {
            s = max(s, red[g * TPM + u]);
        }
        scale[g] = s;
    }
    workgroupBarrier();
    let floor = scale[g] / T(N2);

    var converged = false;
    for (var sweep = 0u; sweep < MAX_SWEEPS; sweep = sweep + 1u) {
        for (var r = 0u; r < N2 - 1u; r = r + 1u) {
            if (t < HALF) {
                let pq = pair(r, t);
                let app = A[ab + pq.x * N2 + pq.x];
                let aqq = A[ab + pq.y * N2 + pq.y];
                let apq = A[ab + pq.x * N2 + pq.y];
                var c = T(1);
                var s = T(0);
                if (abs(apq) > EPS * max(sqrt(abs(app)) * sqrt(abs(aqq)), floor)) {
                    let tau = (aqq - app) / (T(2) * apq);
                    // tau * tau may overflow: then t is 0 (the rotation is negligible).
                    let tt = select(T(-1), T(1), tau >= T(0))
                        / (abs(tau) + sqrt(T(1) + tau * tau));
                    c = T(1) / sqrt(T(1) + tt * tt);
                    s = tt * c;
                    atomicStore(&rotated, 1u);
                }
                rot_c[g * HALF + t] = c;
                rot_s[g * HALF + t] = s;
            }
            workgroupBarrier();
            let pq1 = pair(r, k1);
            let pq2 = pair(r, k2);
            let c1 = rot_c[g * HALF + k1];
            let s1 = rot_s[g * HALF + k1];
            let c2 = rot_c[g * HALF + k2];
            let s2 = rot_s[g * HALF + k2];
            let i_pp = ab + pq1.x * N2 + pq2.x;
            let i_pq = ab + pq1.x * N2 + pq2.y;
            let i_qp = ab + pq1.y * N2 + pq2.x;
            let i_qq = ab + pq1.y * N2 + pq2.y;
            let x_pp = A[i_pp];
            let x_pq = A[i_pq];
            let x_qp = A[i_qp];
            let x_qq = A[i_qq];
            // Rows by J1^T, then columns by J2.
            let y_pp = c1 * x_pp - s1 * x_qp;
            let y_pq = c1 * x_pq - s1 * x_qq;
            let y_qp = s1 * x_pp + c1 * x_qp;
            let y_qq = s1 * x_pq + c1 * x_qq;
            var z_pq = s2 * y_pp + c2 * y_pq;
            var z_qp = c2 * y_qp - s2 * y_qq;
            if (k1 == k2 && s1 != T(0)) {
                z_pq = T(0);
                z_qp = T(0);
            }
            A[i_pp] = c2 * y_pp - s2 * y_pq;
            A[i_pq] = z_pq;
            A[i_qp] = z_qp;
            A[i_qq] = s2 * y_qp + c2 * y_qq;
            if (VECTORS) {
                for (var h = 0u; h < 2u; h = h + 1u) {
                    let row = ab + (2u * k1 + h) * N2;
                    let vp = V[row + pq2.x];
                    let vq = V[row + pq2.y];
                    V[row + pq2.x] = c2 * vp - s2 * vq;
                    V[row + pq2.y] = s2 * vp + c2 * vq;
                }
            }
            workgroupBarrier();
        }
        if (lid == 0u) {
            again = atomicLoad(&rotated);
            atomicStore(&rotated, 0u);
        }
        if (workgroupUniformLoad(&again) == 0u) {
            converged = true;
            break;
        }
    }

    // Ascending order: the rank of each diagonal entry (ties by index).
    for (var i = t; i < N; i = i + TPM) {
        let d = A[ab + i * N2 + i];
        var rank = 0u;
        for (var j = 0u; j < N; j = j + 1u) {
            let o = A[ab + j * N2 + j];
            if (o < d || (o == d && j < i)) {
                rank = rank + 1u;
            }
        }
        perm[g * N2 + rank] = i;
    }
    workgroupBarrier();
    for (var e = lid; e < count * N; e = e + WG) {
        let gg = e / N;
        let i = perm[gg * N2 + e % N];
        w[first * N + e] = A[gg * NN2 + i * N2 + i];
    }
    if (VECTORS) {
        for (var e = lid; e < count * N * N; e = e + WG) {
            let gg = e / (N * N);
            let row = (e % (N * N)) / N;
            let col = perm[gg * N2 + e % N];
            {{V_STORE}}
        }
    }
    if (t == 0u && g < count) {
        var info = 0;
        if (atomicLoad(&bad[g]) != 0u) {
            info = 1;
        } else if (!converged) {
            info = 2;
        }
        aux[first + g] = info;
    }
}
