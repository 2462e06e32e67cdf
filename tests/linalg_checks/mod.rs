//! The checks shared by the blocked-factorization tests (`tests/linalg_blocked.rs`,
//! `tests/linalg_fused.rs`): LAPACK-style scaled residuals computed on the host in float64
//! (`||A x - b|| / (||A|| ||x|| eps n)`, `||P A - L U||`, `||L L^T - A||`) and determinants
//! against a float64 LU on the host, each over a list of orders on the current device.

#![allow(dead_code)]

use crate::common;
use common::eps;
use kp::{Array, DType};
use kupfer as kp;

/// The largest scaled residual accepted (LAPACK's test threshold is 30).
pub const THRESHOLD: f64 = 30.0;

/// A residual under the threshold (NaN is not).
pub fn small(r: f64) -> bool {
    r < THRESHOLD
}

/// The default device with the fused LU and Cholesky paths off (`linalg_fused.rs` tests
/// those): the blocked path these checks were written for, still the default above order
/// 2048, at the small orders a test can afford.
pub fn device() -> kp::Device {
    let dev = common::default_device();
    let mut config = dev.config().clone();
    config.linalg.lu_fused_max = 0;
    config.linalg.chol_fused_max = 0;
    dev.with_config(config)
}

pub fn dtypes() -> Vec<DType> {
    common::dtypes(&device())
        .into_iter()
        .filter(|d| matches!(d, DType::F32 | DType::F64))
        .collect()
}

pub fn host(a: &Array) -> Vec<f64> {
    common::host_pairs(a)
        .into_iter()
        .map(|(re, _)| re)
        .collect()
}

pub fn random(seed: u64, n: usize, dtype: DType) -> Vec<f64> {
    common::values(seed, 0xb10c, n, dtype, -1.0, 1.0)
}

pub fn block(v: &[f64], b: usize, rows: usize, cols: usize) -> &[f64] {
    &v[b * rows * cols..(b + 1) * rows * cols]
}

pub fn norm_inf(a: &[f64], rows: usize, cols: usize) -> f64 {
    (0..rows)
        .map(|i| {
            a[i * cols..(i + 1) * cols]
                .iter()
                .map(|x| x.abs())
                .sum::<f64>()
        })
        .fold(0.0, f64::max)
}

pub fn matmul(a: &[f64], b: &[f64], n: usize, k: usize, m: usize) -> Vec<f64> {
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
pub fn solve_residual(a: &[f64], x: &[f64], b: &[f64], n: usize, m: usize, e: f64) -> f64 {
    let ax = matmul(a, x, n, n, m);
    let r: Vec<f64> = ax.iter().zip(b).map(|(p, q)| p - q).collect();
    norm_inf(&r, n, m) / (norm_inf(a, n, n) * norm_inf(x, n, m) * e * n as f64)
}

/// `(sign, log|det|)` from a float64 LU with partial pivoting on the host.
pub fn host_slogdet(a: &[f64], n: usize) -> (f64, f64) {
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
pub fn solve_and_inv(sizes: &[usize]) -> (Vec<String>, usize) {
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

/// Runs the checks of [`lu_factor_and_determinants_across_panel_boundaries`] at `sizes` on the current device; returns the failures and the number of cases.
pub fn lu_factor_and_det(sizes: &[usize]) -> (Vec<String>, usize) {
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

/// Runs the checks of [`cholesky_and_triangular_solves_across_panel_boundaries`] at `sizes` on the current device; returns the failures and the number of cases.
pub fn cholesky_and_triangular(sizes: &[usize]) -> (Vec<String>, usize) {
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

/// Complex64 solves and inverses (they run the blocked LU on the real embedding of order
/// `2 n`), by the scaled residuals of [`solve_residual`] in complex arithmetic on the host.
pub fn complex_solve_and_inv(sizes: &[usize]) -> (Vec<String>, usize) {
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
