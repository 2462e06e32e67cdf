//! The blocked factorizations (orders above 32: panels of columns, block-row triangular
//! solves, in-place GEMM updates, back substitution by blocks of 64 rows) at the sizes where
//! blocks begin and end: one below, at and above a panel width (32) and a back-substitution
//! block (64), `3 * 32 + 5` and `3 * 64 + 5`, in float32 and float64, batched and on
//! transposed views. Judged by LAPACK-style scaled residuals computed on the host in float64
//! (`||A x - b|| / (||A|| ||x|| eps n)`, `||P A - L U||`, `||L L^T - A||`), determinants
//! against a float64 LU on the host, and exact zero pivots found in a later panel raising
//! NumPy's `LinAlgError`. The same checks run with 8-column panels and with the
//! global-memory panel kernels (device configs).
//!
//! Needs a GPU adapter (lavapipe will do); fails, never skips, without one. Run:
//! `cargo test -p kupfer-suite --test linalg_blocked`.

mod common;

use common::eps;
use kp::{Array, DType, Error, LinAlgError};
use kupfer as kp;

/// The largest scaled residual accepted (LAPACK's test threshold is 30).
const THRESHOLD: f64 = 30.0;

/// Orders around the panel width (32) and the back-substitution block (64).
const SIZES: [usize; 6] = [33, 63, 64, 65, 101, 197];

/// A residual under the threshold (NaN is not).
fn small(r: f64) -> bool {
    r < THRESHOLD
}

fn device() -> kp::Device {
    common::default_device()
}

fn dtypes() -> Vec<DType> {
    common::dtypes(&device())
        .into_iter()
        .filter(|d| matches!(d, DType::F32 | DType::F64))
        .collect()
}

fn host(a: &Array) -> Vec<f64> {
    common::host_pairs(a)
        .into_iter()
        .map(|(re, _)| re)
        .collect()
}

fn random(seed: u64, n: usize, dtype: DType) -> Vec<f64> {
    common::values(seed, 0xb10c, n, dtype, -1.0, 1.0)
}

fn block(v: &[f64], b: usize, rows: usize, cols: usize) -> &[f64] {
    &v[b * rows * cols..(b + 1) * rows * cols]
}

fn norm_inf(a: &[f64], rows: usize, cols: usize) -> f64 {
    (0..rows)
        .map(|i| {
            a[i * cols..(i + 1) * cols]
                .iter()
                .map(|x| x.abs())
                .sum::<f64>()
        })
        .fold(0.0, f64::max)
}

fn matmul(a: &[f64], b: &[f64], n: usize, k: usize, m: usize) -> Vec<f64> {
    let mut c = vec![0.0; n * m];
    for i in 0..n {
        for l in 0..k {
            let x = a[i * k + l];
            for j in 0..m {
                c[i * m + j] += x * b[l * m + j];
            }
        }
    }
    c
}

/// `||A X - B|| / (||A|| ||X|| eps n)`.
fn solve_residual(a: &[f64], x: &[f64], b: &[f64], n: usize, m: usize, e: f64) -> f64 {
    let ax = matmul(a, x, n, n, m);
    let r: Vec<f64> = ax.iter().zip(b).map(|(p, q)| p - q).collect();
    norm_inf(&r, n, m) / (norm_inf(a, n, n) * norm_inf(x, n, m) * e * n as f64)
}

/// `(sign, log|det|)` from a float64 LU with partial pivoting on the host.
fn host_slogdet(a: &[f64], n: usize) -> (f64, f64) {
    let mut m = a.to_vec();
    let (mut sign, mut log) = (1.0, 0.0);
    for k in 0..n {
        let p = (k..n)
            .max_by(|&i, &j| m[i * n + k].abs().total_cmp(&m[j * n + k].abs()))
            .unwrap_or(k);
        if m[p * n + k] == 0.0 {
            return (0.0, f64::NEG_INFINITY);
        }
        if p != k {
            for j in 0..n {
                m.swap(k * n + j, p * n + j);
            }
            sign = -sign;
        }
        let d = m[k * n + k];
        sign *= d.signum();
        log += d.abs().ln();
        for i in k + 1..n {
            let l = m[i * n + k] / d;
            for j in k + 1..n {
                m[i * n + j] -= l * m[k * n + j];
            }
        }
    }
    (sign, log)
}

/// Runs the checks of [`solve_and_inv_residuals_across_panel_boundaries`] at `sizes` on the current device; returns the failures and the number of cases.
fn solve_and_inv(sizes: &[usize]) -> (Vec<String>, usize) {
    let mut failures = Vec::new();
    let mut total = 0;
    for dtype in dtypes() {
        let e = eps(dtype);
        for (seed, &n) in sizes.iter().enumerate() {
            total += 1;
            let (batch, m) = (2usize, 3usize);
            // A transposed view of the matrices: the factorization reads the view.
            let data = random(seed as u64, batch * n * n, dtype);
            let a = common::upload(&data, dtype, &[batch, n, n])
                .swapaxes(-1, -2)
                .unwrap();
            let b = common::upload(
                &random(50 + seed as u64, batch * n * m, dtype),
                dtype,
                &[batch, n, m],
            );
            let ah = host(&a.copy().unwrap());
            let bh = host(&b);
            match kp::linalg::solve(&a, &b) {
                Ok(x) => {
                    let xh = host(&x);
                    for k in 0..batch {
                        let r = solve_residual(
                            block(&ah, k, n, n),
                            block(&xh, k, n, m),
                            block(&bh, k, n, m),
                            n,
                            m,
                            e,
                        );
                        if !small(r) {
                            failures.push(format!("solve {dtype} n={n} matrix {k}: {r}"));
                        }
                    }
                }
                Err(err) => failures.push(format!("solve {dtype} n={n}: {err}")),
            }
            // A vector right-hand side broadcast against the batch.
            let v = common::upload(&random(90 + seed as u64, n, dtype), dtype, &[n]);
            match kp::linalg::solve(&a, &v) {
                Ok(x) if x.shape() == [batch, n] => {
                    let (xh, vh) = (host(&x), host(&v));
                    for k in 0..batch {
                        let r =
                            solve_residual(block(&ah, k, n, n), block(&xh, k, n, 1), &vh, n, 1, e);
                        if !small(r) {
                            failures.push(format!("solve vector {dtype} n={n} matrix {k}: {r}"));
                        }
                    }
                }
                Ok(x) => failures.push(format!("solve vector {dtype} n={n}: {:?}", x.shape())),
                Err(err) => failures.push(format!("solve vector {dtype} n={n}: {err}")),
            }
            match kp::linalg::inv(&a) {
                Ok(ai) => {
                    let ih = host(&ai);
                    for k in 0..batch {
                        let p = matmul(block(&ah, k, n, n), block(&ih, k, n, n), n, n, n);
                        let mut d = p.clone();
                        for i in 0..n {
                            d[i * n + i] -= 1.0;
                        }
                        let r = norm_inf(&d, n, n)
                            / (norm_inf(block(&ah, k, n, n), n, n)
                                * norm_inf(block(&ih, k, n, n), n, n)
                                * e
                                * n as f64);
                        if !small(r) {
                            failures.push(format!("inv {dtype} n={n} matrix {k}: {r}"));
                        }
                    }
                }
                Err(err) => failures.push(format!("inv {dtype} n={n}: {err}")),
            }
        }
    }
    (failures, total)
}

#[test]
fn solve_and_inv_residuals_across_panel_boundaries() {
    device();
    let (failures, total) = solve_and_inv(&SIZES);
    common::assert_no_failures(&failures, total);
}

/// Runs the checks of [`lu_factor_and_determinants_across_panel_boundaries`] at `sizes` on the current device; returns the failures and the number of cases.
fn lu_factor_and_det(sizes: &[usize]) -> (Vec<String>, usize) {
    let mut failures = Vec::new();
    let mut total = 0;
    for dtype in dtypes() {
        let e = eps(dtype);
        for (seed, &n) in sizes.iter().enumerate() {
            total += 1;
            let batch = 2;
            let data = random(10 + seed as u64, batch * n * n, dtype);
            let a = common::upload(&data, dtype, &[batch, n, n]);
            let (lu, piv) = kp::linalg::lu_factor(&a).unwrap();
            let (luh, pivh) = (host(&lu), piv.to_vec::<i32>().unwrap());
            for k in 0..batch {
                // P A = L U, P from the sequence of interchanges.
                let mut pa = block(&data, k, n, n).to_vec();
                for i in 0..n {
                    let p = pivh[k * n + i] as usize;
                    if p < i || p >= n {
                        failures.push(format!("lu_factor {dtype} n={n}: pivot {i} -> {p}"));
                        break;
                    }
                    for j in 0..n {
                        pa.swap(i * n + j, p * n + j);
                    }
                }
                let f = block(&luh, k, n, n);
                let mut l = vec![0.0; n * n];
                let mut u = vec![0.0; n * n];
                for i in 0..n {
                    for j in 0..n {
                        match j.cmp(&i) {
                            std::cmp::Ordering::Less => l[i * n + j] = f[i * n + j],
                            std::cmp::Ordering::Equal => {
                                l[i * n + j] = 1.0;
                                u[i * n + j] = f[i * n + j];
                            }
                            std::cmp::Ordering::Greater => u[i * n + j] = f[i * n + j],
                        }
                    }
                }
                let d: Vec<f64> = matmul(&l, &u, n, n, n)
                    .iter()
                    .zip(&pa)
                    .map(|(x, y)| x - y)
                    .collect();
                let r = norm_inf(&d, n, n) / (norm_inf(&pa, n, n) * e * n as f64);
                if !small(r) {
                    failures.push(format!("lu_factor {dtype} n={n} matrix {k}: {r}"));
                }
                // Partial pivoting bounds |L| by 1.
                if l.iter().any(|x| x.abs() > 1.0) {
                    failures.push(format!("lu_factor {dtype} n={n}: |L| above 1"));
                }
            }
            let (sign, log) = kp::linalg::slogdet(&a).unwrap();
            let det = host(&kp::linalg::det(&a).unwrap());
            let (sh, lh) = (host(&sign), host(&log));
            for k in 0..batch {
                let (ws, wl) = host_slogdet(block(&data, k, n, n), n);
                let tol = 1e3 * e * n as f64;
                if sh[k] != ws || (lh[k] - wl).abs() > tol * wl.abs().max(1.0) {
                    failures.push(format!(
                        "slogdet {dtype} n={n} matrix {k}: ({}, {}) vs ({ws}, {wl})",
                        sh[k], lh[k]
                    ));
                }
                let want = ws * wl.exp();
                // float32 determinants of these orders overflow, to an infinity of the sign.
                let overflows = dtype == DType::F32 && want.abs() > f64::from(f32::MAX);
                let bad = if overflows {
                    det[k] != ws * f64::INFINITY
                } else {
                    (det[k] - want).abs() > tol * want.abs() * wl.abs().max(1.0)
                };
                if bad {
                    failures.push(format!(
                        "det {dtype} n={n} matrix {k}: {} vs {want}",
                        det[k]
                    ));
                }
            }
        }
    }
    (failures, total)
}

#[test]
fn lu_factor_and_determinants_across_panel_boundaries() {
    device();
    let (failures, total) = lu_factor_and_det(&SIZES);
    common::assert_no_failures(&failures, total);
}

/// Runs the checks of [`cholesky_and_triangular_solves_across_panel_boundaries`] at `sizes` on the current device; returns the failures and the number of cases.
fn cholesky_and_triangular(sizes: &[usize]) -> (Vec<String>, usize) {
    let mut failures = Vec::new();
    let mut total = 0;
    for dtype in dtypes() {
        let e = eps(dtype);
        for (seed, &n) in sizes.iter().enumerate() {
            total += 1;
            let batch = 2;
            // M M^T + n I, symmetric positive definite.
            let mr = random(20 + seed as u64, batch * n * n, DType::F64);
            let mut spd = Vec::with_capacity(batch * n * n);
            for k in 0..batch {
                let mk = block(&mr, k, n, n);
                for i in 0..n {
                    for j in 0..n {
                        let s: f64 = (0..n).map(|t| mk[i * n + t] * mk[j * n + t]).sum();
                        spd.push(s + if i == j { n as f64 } else { 0.0 });
                    }
                }
            }
            let a = common::upload(&spd, dtype, &[batch, n, n]);
            let ah = host(&a);
            let l = match kp::linalg::cholesky(&a, false) {
                Ok(l) => host(&l),
                Err(err) => {
                    failures.push(format!("cholesky {dtype} n={n}: {err}"));
                    continue;
                }
            };
            for k in 0..batch {
                let lk = block(&l, k, n, n);
                let mut lt = vec![0.0; n * n];
                for i in 0..n {
                    for j in 0..n {
                        if j > i && lk[i * n + j] != 0.0 {
                            failures.push(format!("cholesky {dtype} n={n}: not lower"));
                        }
                        lt[j * n + i] = lk[i * n + j];
                    }
                }
                let ak = block(&ah, k, n, n);
                let d: Vec<f64> = matmul(lk, &lt, n, n, n)
                    .iter()
                    .zip(ak)
                    .map(|(x, y)| x - y)
                    .collect();
                let r = norm_inf(&d, n, n) / (norm_inf(ak, n, n) * e * n as f64);
                if !small(r) {
                    failures.push(format!("cholesky {dtype} n={n} matrix {k}: {r}"));
                }
            }
            // The factor's triangles solve systems: L y = b and L^T x = b.
            let lf = common::upload(&l, dtype, &[batch, n, n]);
            let m = 2;
            let b = common::upload(
                &random(70 + seed as u64, batch * n * m, dtype),
                dtype,
                &[batch, n, m],
            );
            let bh = host(&b);
            for (lower, tri) in [(true, lf.clone()), (false, lf.swapaxes(-1, -2).unwrap())] {
                let th = host(&tri.copy().unwrap());
                match kp::linalg::solve_triangular(&tri, &b, 0, lower, false) {
                    Ok(x) => {
                        let xh = host(&x);
                        for k in 0..batch {
                            let r = solve_residual(
                                block(&th, k, n, n),
                                block(&xh, k, n, m),
                                block(&bh, k, n, m),
                                n,
                                m,
                                e,
                            );
                            if !small(r) {
                                failures.push(format!(
                                    "solve_triangular lower={lower} {dtype} n={n}: {r}"
                                ));
                            }
                        }
                    }
                    Err(err) => failures.push(format!("solve_triangular {dtype} n={n}: {err}")),
                }
            }
        }
    }
    (failures, total)
}

#[test]
fn cholesky_and_triangular_solves_across_panel_boundaries() {
    device();
    let (failures, total) = cholesky_and_triangular(&SIZES);
    common::assert_no_failures(&failures, total);
}

#[test]
fn zero_pivots_in_a_later_panel_are_numpy_errors() {
    device();
    for dtype in dtypes() {
        let n = 101;
        // Column 40 (in the second panel) is zero in the second matrix: its pivot is an
        // exact zero.
        let mut data = random(7, 2 * n * n, dtype);
        for i in 0..n {
            data[n * n + i * n + 40] = 0.0;
        }
        let a = common::upload(&data, dtype, &[2, n, n]);
        let b = common::upload(&random(8, n, dtype), dtype, &[n]);
        for r in [kp::linalg::solve(&a, &b), kp::linalg::inv(&a)] {
            assert!(
                matches!(r, Err(Error::LinAlg(LinAlgError::Singular))),
                "{dtype}: {r:?}"
            );
            if let Err(e) = r {
                assert_eq!(e.to_string(), "LinAlgError: Singular matrix");
            }
        }
        let d = host(&kp::linalg::det(&a).unwrap());
        assert!(d[0] != 0.0 && d[1] == 0.0, "{dtype}: det {d:?}");
        let (s, l) = kp::linalg::slogdet(&a).unwrap();
        assert_eq!(host(&s)[1], 0.0);
        assert_eq!(host(&l)[1], f64::NEG_INFINITY);
        // Cholesky: a negative pivot in the third panel.
        let mut spd = vec![0.0; n * n];
        for i in 0..n {
            spd[i * n + i] = if i == 70 { -1.0 } else { 2.0 };
        }
        let c = common::upload(&spd, dtype, &[n, n]);
        let r = kp::linalg::cholesky(&c, false);
        assert!(
            matches!(r, Err(Error::LinAlg(LinAlgError::NotPositiveDefinite))),
            "{dtype}: {r:?}"
        );
    }
}

#[test]
fn narrow_panels_and_global_memory_panels() {
    let dev = device();
    // (panel width, register panels, sizes): 8-column panels cross many boundaries at
    // small orders; global-memory panels are what panels of more than 4096 rows use.
    let runs: [(u32, bool, &[usize]); 3] = [
        (8, true, &[33, 40, 41, 47, 75]),
        (8, false, &[33, 41, 75]),
        (32, false, &[65, 101]),
    ];
    let mut failures = Vec::new();
    let mut total = 0;
    for (width, registers, sizes) in runs {
        let mut config = dev.config().clone();
        config.linalg.panel_width = width;
        config.linalg.register_panels = registers;
        let configured = dev.with_config(config);
        let _guard = configured.use_device();
        for check in [solve_and_inv, lu_factor_and_det, cholesky_and_triangular] {
            let (f, t) = check(sizes);
            failures.extend(
                f.into_iter()
                    .map(|m| format!("panel {width} registers {registers}: {m}")),
            );
            total += t;
        }
    }
    common::assert_no_failures(&failures, total);
}

/// Complex64 solves and inverses (they run the blocked LU on the real embedding of order
/// `2 n`), by the scaled residuals of [`solve_residual`] in complex arithmetic on the host.
fn complex_solve_and_inv(sizes: &[usize]) -> (Vec<String>, usize) {
    type C = (f64, f64);
    let mul = |x: C, y: C| (x.0 * y.0 - x.1 * y.1, x.0 * y.1 + x.1 * y.0);
    let abs = |x: C| x.0.hypot(x.1);
    let norm = |a: &[C], rows: usize, cols: usize| {
        (0..rows)
            .map(|i| {
                a[i * cols..(i + 1) * cols]
                    .iter()
                    .map(|&z| abs(z))
                    .sum::<f64>()
            })
            .fold(0.0, f64::max)
    };
    // A @ X - B (B None: the identity), n x n times n x m.
    let residual = |a: &[C], x: &[C], b: Option<&[C]>, n: usize, m: usize| -> Vec<C> {
        let mut d = vec![(0.0, 0.0); n * m];
        for i in 0..n {
            for t in 0..n {
                let av = a[i * n + t];
                for j in 0..m {
                    let p = mul(av, x[t * m + j]);
                    d[i * m + j].0 += p.0;
                    d[i * m + j].1 += p.1;
                }
            }
            for j in 0..m {
                let want = b.map_or(if i == j { (1.0, 0.0) } else { (0.0, 0.0) }, |b| {
                    b[i * m + j]
                });
                d[i * m + j].0 -= want.0;
                d[i * m + j].1 -= want.1;
            }
        }
        d
    };
    let complex = |seed: u64, len: usize, shape: &[usize]| {
        let re = random(seed, len, DType::F32);
        let im = random(seed + 1000, len, DType::F32);
        let v: Vec<kp::Complex32> = re
            .iter()
            .zip(&im)
            .map(|(&r, &i)| kp::Complex32::new(r as f32, i as f32))
            .collect();
        Array::from_slice(&v, shape).unwrap()
    };
    let e = eps(DType::Complex64);
    let mut failures = Vec::new();
    let mut total = 0;
    for (seed, &n) in sizes.iter().enumerate() {
        total += 1;
        let m = 2;
        let a = complex(300 + seed as u64, n * n, &[n, n]);
        let b = complex(400 + seed as u64, n * m, &[n, m]);
        let (ah, bh) = (common::host_pairs(&a), common::host_pairs(&b));
        let scale = norm(&ah, n, n) * e * n as f64;
        match kp::linalg::solve(&a, &b) {
            Ok(x) => {
                let xh = common::host_pairs(&x);
                let d = residual(&ah, &xh, Some(&bh), n, m);
                let r = norm(&d, n, m) / (scale * norm(&xh, n, m));
                if !small(r) {
                    failures.push(format!("complex64 solve n={n}: {r}"));
                }
            }
            Err(err) => failures.push(format!("complex64 solve n={n}: {err}")),
        }
        match kp::linalg::inv(&a) {
            Ok(ai) => {
                let ih = common::host_pairs(&ai);
                let d = residual(&ah, &ih, None, n, n);
                let r = norm(&d, n, n) / (scale * norm(&ih, n, n));
                if !small(r) {
                    failures.push(format!("complex64 inv n={n}: {r}"));
                }
            }
            Err(err) => failures.push(format!("complex64 inv n={n}: {err}")),
        }
    }
    (failures, total)
}

/// The trailing updates on the tuned matmul (in place into the factored matrices, one per
/// block of panels; `KUPFER_LINALG_UPDATE`) and on the previous path (every panel's update
/// on the plain tile kernel, orders 101 and 300), at orders that cross several blocks and are
/// multiples of neither the panel, the block nor the matmul tile (300, 517), with narrow blocks at
/// small orders (blocks of 16 and 24 columns over panels of 8). The same residual checks
/// as above, plus complex64 solves and inverses at order 300 (a real embedding of order 600).
#[test]
fn in_place_gemm_updates_and_the_previous_path() {
    let dev = device();
    // (in-place updates, block, panel width, sizes)
    let runs: [(bool, u32, u32, &[usize]); 4] = [
        (true, 0, 16, &[300, 517]),
        (false, 0, 16, &[101, 300]),
        (true, 16, 8, &[33, 41, 75, 101]),
        (true, 24, 8, &[75, 130]),
    ];
    let mut failures = Vec::new();
    let mut total = 0;
    for (gemm, block, width, sizes) in runs {
        let mut config = dev.config().clone();
        config.linalg.gemm_updates = gemm;
        config.linalg.update_block = block;
        config.linalg.panel_width = width;
        let configured = dev.with_config(config);
        let _guard = configured.use_device();
        let label = format!("updates {gemm} block {block} panel {width}");
        for check in [solve_and_inv, lu_factor_and_det, cholesky_and_triangular] {
            let (f, t) = check(sizes);
            failures.extend(f.into_iter().map(|m| format!("{label}: {m}")));
            total += t;
        }
        if sizes.contains(&300) {
            let (f, t) = complex_solve_and_inv(&[300]);
            failures.extend(f.into_iter().map(|m| format!("{label}: {m}")));
            total += t;
        }
    }
    common::assert_no_failures(&failures, total);
}

#[test]
fn subgroup_and_tree_panel_pivots_agree() {
    // The register panel's float32 pivot search by subgroups (the default where the adapter
    // has them) and by the tree: the same pivots, so the same factors bit for bit. Small
    // integer entries make ties in |a| common (the lower row wins both ways); a NaN column
    // entry is never the pivot. The first pivot of each matrix is checked on the host
    // (the first largest |a[i, 0]|, as LAPACK's isamax picks).
    let dev = device();
    let mut failures = Vec::new();
    let mut total = 0;
    for (seed, &n) in [40usize, 65, 300].iter().enumerate() {
        total += 1;
        let batch = 2;
        let mut data: Vec<f64> = random(70 + seed as u64, batch * n * n, DType::F32)
            .iter()
            .map(|x| (x * 4.0).round())
            .collect();
        data[n * n + 5 * n + 3] = f64::NAN;
        let factor = |subgroups: bool| {
            let mut config = dev.config().clone();
            config.linalg.panel_subgroups = subgroups;
            let configured = dev.with_config(config);
            let _guard = configured.use_device();
            let a = common::upload(&data, DType::F32, &[batch, n, n]);
            let (lu, piv) = kp::linalg::lu_factor(&a).unwrap();
            (lu.to_vec::<f32>().unwrap(), piv.to_vec::<i32>().unwrap())
        };
        let (lu_sg, piv_sg) = factor(true);
        let (lu_tree, piv_tree) = factor(false);
        if piv_sg != piv_tree {
            failures.push(format!("n={n}: pivots differ"));
        }
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
        if bits(&lu_sg) != bits(&lu_tree) {
            failures.push(format!("n={n}: factors differ"));
        }
        for k in 0..batch {
            let col = (0..n).map(|i| data[k * n * n + i * n].abs());
            let first = col
                .enumerate()
                .fold(
                    (0, -1.0),
                    |(bi, bv), (i, x)| if x > bv { (i, x) } else { (bi, bv) },
                )
                .0;
            if piv_sg[k * n] as usize != first {
                failures.push(format!(
                    "n={n} matrix {k}: first pivot {} not {first}",
                    piv_sg[k * n]
                ));
            }
        }
    }
    common::assert_no_failures(&failures, total);
}
