//! Orthogonal decompositions (qr, svd, svdvals, eigh, eigvalsh) and what is built on them
//! (lstsq, pinv, matrix_rank, cond, norm 2/-2/'nuc', tensorsolve, tensorinv, scipy's lu,
//! lu_solve, cho_factor, cho_solve, polyfit), judged as LAPACK's tests judge them: scaled
//! residuals and invariants computed on the host in float64 (`||Q^T Q - I|| / (m eps)`,
//! `||A - Q R|| / (||A|| m eps)`, `||A V - V L|| / (||A|| n eps)`,
//! `||A - U S Vh|| / (||A|| max(m, n) eps)`) and values against NumPy / SciPy (python3 is
//! the oracle), over well- and ill-conditioned, rank-deficient, batched, broadcast and
//! transposed inputs, with NumPy's errors.
//!
//! Needs python3 with NumPy and SciPy and a GPU adapter (lavapipe will do); fails, never
//! skips, without them. Run: `cargo test -p kupfer-suite --test linalg_decomp`.

mod common;

use common::eps;
use kp::{Array, DType, Error, LinAlgError};
use kupfer as kp;
use kupfer::linalg::{QrMode, Uplo};
use serde_json::{json, Value};

/// The largest scaled residual accepted (LAPACK's test threshold is 30).
const THRESHOLD: f64 = 30.0;

fn device() -> kp::Device {
    common::default_device()
}

fn dtypes() -> Vec<DType> {
    let d = device();
    [DType::F32, DType::F64]
        .into_iter()
        .filter(|&t| d.supports(t))
        .collect()
}

fn host(a: &Array) -> Vec<f64> {
    let a = if a.dtype().is_float() {
        a.clone()
    } else {
        a.astype(DType::F32).unwrap()
    };
    common::host_pairs(&a)
        .into_iter()
        .map(|(re, _)| re)
        .collect()
}

fn random(seed: u64, n: usize, dtype: DType) -> Vec<f64> {
    common::values(seed, 0xdec0, n, dtype, -1.0, 1.0)
}

fn upload(data: &[f64], dtype: DType, shape: &[usize]) -> Array {
    common::upload(data, dtype, shape)
}

/// Row-major `rows x cols` matrices.
#[derive(Clone)]
struct Mat {
    rows: usize,
    cols: usize,
    v: Vec<f64>,
}

impl Mat {
    fn at(&self, i: usize, j: usize) -> f64 {
        self.v[i * self.cols + j]
    }
    fn t(&self) -> Mat {
        let mut v = vec![0.0; self.v.len()];
        for i in 0..self.rows {
            for j in 0..self.cols {
                v[j * self.rows + i] = self.at(i, j);
            }
        }
        Mat {
            rows: self.cols,
            cols: self.rows,
            v,
        }
    }
    fn mul(&self, o: &Mat) -> Mat {
        assert_eq!(self.cols, o.rows);
        let mut v = vec![0.0; self.rows * o.cols];
        for i in 0..self.rows {
            for l in 0..self.cols {
                let x = self.at(i, l);
                for j in 0..o.cols {
                    v[i * o.cols + j] += x * o.at(l, j);
                }
            }
        }
        Mat {
            rows: self.rows,
            cols: o.cols,
            v,
        }
    }
    fn sub(&self, o: &Mat) -> Mat {
        Mat {
            rows: self.rows,
            cols: self.cols,
            v: self.v.iter().zip(&o.v).map(|(a, b)| a - b).collect(),
        }
    }
    /// The 1-norm (largest column sum).
    fn norm1(&self) -> f64 {
        (0..self.cols)
            .map(|j| (0..self.rows).map(|i| self.at(i, j).abs()).sum::<f64>())
            .fold(0.0, f64::max)
    }
    fn eye_minus(&self) -> Mat {
        let mut m = self.clone();
        for i in 0..m.rows.min(m.cols) {
            m.v[i * m.cols + i] -= 1.0;
        }
        m
    }
}

/// The matrices of a stack (`..., rows, cols`) read back.
fn mats(a: &Array) -> Vec<Mat> {
    let s = a.shape();
    let (rows, cols) = (s[s.len() - 2], s[s.len() - 1]);
    let v = host(a);
    let per = rows * cols;
    if per == 0 {
        return vec![];
    }
    v.chunks(per)
        .map(|c| Mat {
            rows,
            cols,
            v: c.to_vec(),
        })
        .collect()
}

fn scaled(r: f64, denom: f64) -> f64 {
    if denom == 0.0 {
        r
    } else {
        r / denom
    }
}

/// Test matrices `batch x m x n` of a kind: "random", "graded" (columns scaled over 1e-6..1:
/// ill-conditioned), "rank" (rank 2), "exact" (small integers whose later columns are exact
/// multiples of earlier ones and whose first row is zero: rank-deficient with no rounding in
/// the input, as NumPy's svdvals example `[[1, 2, 3], [2, 4, 6], [-1, 1, -1]]`).
fn matrix(kind: &str, seed: u64, batch: usize, m: usize, n: usize, dtype: DType) -> Vec<f64> {
    let base = random(seed, batch * m * n, DType::F64);
    let v: Vec<f64> = match kind {
        "graded" => base
            .iter()
            .enumerate()
            .map(|(i, x)| x * 10f64.powf(-6.0 * (i % n) as f64 / n.max(2) as f64))
            .collect(),
        "rank" => {
            let l = random(seed + 7, batch * m * 2, DType::F64);
            let r = random(seed + 9, batch * 2 * n, DType::F64);
            let mut out = Vec::new();
            for b in 0..batch {
                for i in 0..m {
                    for j in 0..n {
                        out.push(
                            (0..2)
                                .map(|k| l[b * m * 2 + i * 2 + k] * r[b * 2 * n + k * n + j])
                                .sum(),
                        );
                    }
                }
            }
            out
        }
        "exact" => {
            let half = n.div_ceil(2);
            let mut out = Vec::with_capacity(batch * m * n);
            for b in 0..batch {
                for i in 0..m {
                    for j in 0..n {
                        let col = j % half;
                        let scale = if j < half { 1.0 } else { -2.0 };
                        let v = ((b * 11 + i * 7 + col * 3) % 5) as f64 - 2.0;
                        out.push(if i == 0 { 0.0 } else { scale * v });
                    }
                }
            }
            out
        }
        _ => base,
    };
    v.iter()
        .map(|&x| {
            if dtype == DType::F32 {
                x as f32 as f64
            } else {
                x
            }
        })
        .collect()
}

const SHAPES: &[(&[usize], usize, usize)] = &[
    (&[], 5, 3),
    (&[], 3, 5),
    (&[2], 4, 4),
    (&[2, 3], 6, 2),
    (&[], 40, 33),
    (&[3], 33, 40),
    (&[], 1, 1),
    (&[], 70, 70),
];

#[test]
fn qr_factors_are_orthonormal_and_reconstruct() {
    device();
    let mut failures = Vec::new();
    let mut total = 0;
    for dtype in dtypes() {
        let e = eps(dtype);
        for (si, &(batch, m, n)) in SHAPES.iter().enumerate() {
            for kind in ["random", "graded", "rank"] {
                for mode in [QrMode::Reduced, QrMode::Complete] {
                    total += 1;
                    let count: usize = batch.iter().product();
                    let data = matrix(kind, si as u64, count, m, n, dtype);
                    let shape: Vec<usize> = batch.iter().copied().chain([m, n]).collect();
                    let a = upload(&data, dtype, &shape);
                    let id = format!("{dtype} {shape:?} {kind} {mode:?}");
                    let qr = match kp::linalg::qr(&a, mode) {
                        Ok(qr) => qr,
                        Err(err) => {
                            failures.push(format!("{id}: {err}"));
                            continue;
                        }
                    };
                    let q = qr.q.unwrap();
                    let k = if mode == QrMode::Complete {
                        m
                    } else {
                        m.min(n)
                    };
                    let mut want_q = shape.clone();
                    *want_q.last_mut().unwrap() = k;
                    let mut want_r = shape.clone();
                    want_r[shape.len() - 2] = k;
                    if q.shape() != want_q || qr.r.shape() != want_r || q.dtype() != dtype {
                        failures.push(format!("{id}: shapes {:?} {:?}", q.shape(), qr.r.shape()));
                        continue;
                    }
                    let am = mats(&a);
                    for (b, (qm, rm)) in mats(&q).iter().zip(mats(&qr.r)).enumerate() {
                        let orth = qm.t().mul(qm).eye_minus().norm1() / (m as f64 * e);
                        let back = scaled(
                            am[b].sub(&qm.mul(&rm)).norm1(),
                            am[b].norm1() * m as f64 * e,
                        );
                        let lower = (0..rm.rows)
                            .flat_map(|i| (0..i.min(rm.cols)).map(move |j| (i, j)))
                            .any(|(i, j)| rm.at(i, j) != 0.0);
                        if !(orth < THRESHOLD && back < THRESHOLD) || lower {
                            failures.push(format!(
                                "{id} matrix {b}: |QtQ-I| {orth:.1}, |A-QR| {back:.1}, R lower {lower}"
                            ));
                        }
                    }
                }
            }
        }
    }
    common::assert_no_failures(&failures, total);
}

#[test]
fn svd_reconstructs_and_matches_numpy_singular_values() {
    device();
    let mut failures = Vec::new();
    let mut cases = Vec::new();
    let mut runs = Vec::new();
    for dtype in dtypes() {
        let e = eps(dtype);
        for (si, &(batch, m, n)) in SHAPES.iter().enumerate() {
            for kind in ["random", "graded", "rank", "exact"] {
                for full in [false, true] {
                    let count: usize = batch.iter().product();
                    let data = matrix(kind, 100 + si as u64, count, m, n, dtype);
                    let shape: Vec<usize> = batch.iter().copied().chain([m, n]).collect();
                    let id = format!("{dtype} {shape:?} {kind} full={full}");
                    // Transposed views: upload the transpose and swap it back.
                    let a = if si % 2 == 0 {
                        upload(&data, dtype, &shape)
                    } else {
                        let mut ts = shape.clone();
                        let l = ts.len();
                        ts.swap(l - 1, l - 2);
                        let mut t = vec![0.0; data.len()];
                        for b in 0..count {
                            for i in 0..m {
                                for j in 0..n {
                                    t[b * m * n + j * m + i] = data[b * m * n + i * n + j];
                                }
                            }
                        }
                        upload(&t, dtype, &ts).swapaxes(-1, -2).unwrap()
                    };
                    cases.push(json!({"id": id, "data": data, "shape": shape,
                        "expr": "np.linalg.svd(a, compute_uv=False)"}));
                    let got = kp::linalg::svd(&a, full, false);
                    let vals = kp::linalg::svdvals(&a);
                    runs.push((id.clone(), got, vals));
                    let Ok((u, s, vh)) = &runs.last().unwrap().1 else {
                        continue;
                    };
                    let k = m.min(n);
                    let (uc, vr) = if full { (m, n) } else { (k, k) };
                    let ws = |core: &[usize]| -> Vec<usize> {
                        batch.iter().copied().chain(core.iter().copied()).collect()
                    };
                    if u.shape() != ws(&[m, uc])
                        || s.shape() != ws(&[k])
                        || vh.shape() != ws(&[vr, n])
                    {
                        failures.push(format!(
                            "{id}: shapes {:?} {:?} {:?}",
                            u.shape(),
                            s.shape(),
                            vh.shape()
                        ));
                        continue;
                    }
                    let am = mats(&a);
                    let sv = host(s);
                    for (b, (um, vm)) in mats(u).iter().zip(mats(vh)).enumerate() {
                        let uo = um.t().mul(um).eye_minus().norm1() / (m as f64 * e);
                        let vo = vm.mul(&vm.t()).eye_minus().norm1() / (n as f64 * e);
                        // U[:, :k] diag(s) Vh[:k]
                        let mut us = Mat {
                            rows: m,
                            cols: k,
                            v: vec![0.0; m * k],
                        };
                        for i in 0..m {
                            for j in 0..k {
                                us.v[i * k + j] = um.at(i, j) * sv[b * k + j];
                            }
                        }
                        let vk = Mat {
                            rows: k,
                            cols: n,
                            v: vm.v[..k * n].to_vec(),
                        };
                        let back = scaled(
                            am[b].sub(&us.mul(&vk)).norm1(),
                            am[b].norm1() * m.max(n) as f64 * e,
                        );
                        if !(uo < THRESHOLD && vo < THRESHOLD && back < THRESHOLD) {
                            failures.push(format!(
                                "{id} matrix {b}: |UtU-I| {uo:.1}, |VVt-I| {vo:.1}, |A-USVh| {back:.1}"
                            ));
                        }
                    }
                }
            }
        }
    }
    let res = oracle("svd", &cases);
    for (id, got, vals) in runs {
        let want: Vec<f64> = serde_json::from_value(res[&id].clone()).unwrap();
        let e = if id.starts_with("float32") {
            eps(DType::F32)
        } else {
            eps(DType::F64)
        };
        let smax = want.iter().copied().fold(0.0, f64::max);
        let tol = 30.0 * 70.0 * e * smax.max(f64::MIN_POSITIVE);
        for (what, s) in [("svd", got.map(|g| g.1)), ("svdvals", vals)] {
            match s {
                Ok(s) => {
                    let s = host(&s);
                    if s.len() != want.len()
                        || s.iter().zip(&want).any(|(g, w)| (g - w).abs() > tol)
                    {
                        failures.push(format!("{id} {what}: {s:?} vs numpy {want:?}"));
                    }
                }
                Err(err) => failures.push(format!("{id} {what}: {err}")),
            }
        }
    }
    common::assert_no_failures(&failures, res.as_object().unwrap().len());
}

#[test]
fn eigh_residuals_are_small_and_eigenvalues_match_numpy() {
    device();
    let mut failures = Vec::new();
    let mut cases = Vec::new();
    let mut runs = Vec::new();
    let dev = device();
    // The one-launch solver of orders up to 32 (the default) and, for small orders, the
    // one-sided Jacobi it replaced (`KUPFER_LINALG_EIGH=old`).
    for (small, dtype) in [true, false]
        .into_iter()
        .flat_map(|s| dtypes().into_iter().map(move |d| (s, d)))
    {
        let mut config = dev.config().clone();
        config.linalg.small_eigh = small;
        let configured = dev.with_config(config);
        let _guard = configured.use_device();
        let path = if small { "one launch" } else { "previous" };
        let e = eps(dtype);
        for (si, &(batch, n)) in [
            (&[][..], 1usize),
            (&[], 2),
            (&[3], 4),
            (&[2, 2], 8),
            (&[5], 3),
            (&[3], 17),
            (&[2], 32),
            (&[], 33),
            (&[2], 50),
        ]
        .iter()
        .enumerate()
        {
            if !small && (n > 8 || n == 3) {
                continue;
            }
            for (kind, uplo) in [
                ("random", Uplo::Lower),
                ("rank", Uplo::Upper),
                ("graded", Uplo::Lower),
                ("exact", Uplo::Upper),
            ] {
                let count: usize = batch.iter().product();
                let data = matrix(kind, 200 + si as u64, count, n, n, dtype);
                let shape: Vec<usize> = batch.iter().copied().chain([n, n]).collect();
                let uplo_s = if uplo == Uplo::Lower { "L" } else { "U" };
                let id = format!("{dtype} {shape:?} {kind} {uplo_s} {path}");
                let a = upload(&data, dtype, &shape);
                cases.push(json!({"id": id, "data": data, "shape": shape,
                    "expr": format!("np.linalg.eigvalsh(a, UPLO='{uplo_s}')")}));
                let got = kp::linalg::eigh(&a, uplo);
                let vals = kp::linalg::eigvalsh(&a, uplo);
                if let Ok((w, v)) = &got {
                    // The symmetric matrix NumPy reads.
                    let wv = host(w);
                    for (b, (am, vm)) in mats(&a).iter().zip(mats(v)).enumerate() {
                        let mut s = am.clone();
                        for i in 0..n {
                            for j in 0..n {
                                let (r, c) = if (uplo == Uplo::Lower) == (i >= j) {
                                    (i, j)
                                } else {
                                    (j, i)
                                };
                                s.v[i * n + j] = am.at(r, c);
                            }
                        }
                        let mut vl = vm.clone();
                        for i in 0..n {
                            for j in 0..n {
                                vl.v[i * n + j] *= wv[b * n + j];
                            }
                        }
                        let res = scaled(s.mul(&vm).sub(&vl).norm1(), s.norm1() * n as f64 * e);
                        let orth = vm.t().mul(&vm).eye_minus().norm1() / (n as f64 * e);
                        let sorted = wv[b * n..(b + 1) * n].windows(2).all(|p| p[0] <= p[1]);
                        if !(res < THRESHOLD && orth < THRESHOLD && sorted) {
                            failures.push(format!("{id} matrix {b}: |AV-VL| {res:.1}, |VtV-I| {orth:.1}, sorted {sorted}"));
                        }
                    }
                }
                runs.push((id, got.map(|g| g.0), vals, data));
            }
        }
    }
    let res = oracle("eigh", &cases);
    for (id, got, vals, data) in runs {
        let want: Vec<f64> = serde_json::from_value(res[&id].clone()).unwrap();
        let e = if id.starts_with("float32") {
            eps(DType::F32)
        } else {
            eps(DType::F64)
        };
        let amax = data.iter().map(|x| x.abs()).fold(0.0, f64::max);
        let tol = 30.0 * 50.0 * e * amax.max(f64::MIN_POSITIVE) * 8.0;
        for (what, w) in [("eigh", got), ("eigvalsh", vals)] {
            match w {
                Ok(w) => {
                    let w = host(&w);
                    if w.len() != want.len()
                        || w.iter().zip(&want).any(|(g, x)| (g - x).abs() > tol)
                    {
                        failures.push(format!("{id} {what}: {w:?} vs numpy {want:?}"));
                    }
                }
                Err(err) => failures.push(format!("{id} {what}: {err}")),
            }
        }
    }
    common::assert_no_failures(&failures, res.as_object().unwrap().len());
}

/// The one-launch eigensolver of small orders reads transposed and strided views and
/// broadcast stacks as their copies (bit for bit: each matrix's result does not depend on
/// its neighbours in a workgroup), ignores the triangle `UPLO` does not name (NaN there
/// too), and reports a non-finite entry of the named triangle as NumPy's "Eigenvalues did
/// not converge", wherever it is in the batch.
#[test]
fn small_eigh_reads_views_and_reports_non_finite_input() {
    let mut failures = Vec::new();
    let mut total = 0;
    let bits = |x: &Array| host(x).iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    for dtype in dtypes() {
        for n in [3usize, 8, 32] {
            total += 1;
            let label = format!("{dtype} n={n}");
            let data = random(400 + n as u64, 6 * n * n, dtype);
            let base = upload(&data, dtype, &[6, n, n]);
            let view = base
                .swapaxes(-1, -2)
                .unwrap()
                .slice(&[kp::SliceArg::Stepped {
                    start: 0,
                    stop: None,
                    step: 2,
                }])
                .unwrap();
            let one = base.slice(&[kp::SliceArg::Index(1)]).unwrap();
            let spread = one.broadcast_to(&[4, n, n]).unwrap();
            for uplo in [Uplo::Lower, Uplo::Upper] {
                let (w, v) = kp::linalg::eigh(&view, uplo).unwrap();
                let (wc, vc) = kp::linalg::eigh(&view.copy().unwrap(), uplo).unwrap();
                let wv = kp::linalg::eigvalsh(&view, uplo).unwrap();
                if bits(&w) != bits(&wc) || bits(&v) != bits(&vc) || bits(&wv) != bits(&wc) {
                    failures.push(format!("{label} {uplo:?}: the view's results differ"));
                }
                let (w1, v1) = kp::linalg::eigh(&one, uplo).unwrap();
                let (ws, vs) = kp::linalg::eigh(&spread, uplo).unwrap();
                let (hw1, hv1) = (bits(&w1), bits(&v1));
                let (hws, hvs) = (bits(&ws), bits(&vs));
                for k in 0..4 {
                    if hws[k * n..(k + 1) * n] != hw1[..]
                        || hvs[k * n * n..(k + 1) * n * n] != hv1[..]
                    {
                        failures.push(format!("{label} {uplo:?}: broadcast matrix {k} differs"));
                    }
                }
            }
            for at in [0usize, 4] {
                total += 1;
                for (i, j, bad) in [(n - 1, 0, f64::NAN), (n - 1, n - 1, f64::INFINITY)] {
                    let mut d = data.clone();
                    d[at * n * n + i * n + j] = bad;
                    let a = upload(&d, dtype, &[6, n, n]);
                    let not_converged = |r: kp::Result<Array>| matches!(r, Err(Error::LinAlg(LinAlgError::NotConverged(ref w))) if w == "Eigenvalues");
                    if !not_converged(kp::linalg::eigh(&a, Uplo::Lower).map(|r| r.0))
                        || !not_converged(kp::linalg::eigvalsh(&a, Uplo::Lower))
                    {
                        failures.push(format!("{label}: {bad} at matrix {at} not reported"));
                    }
                    // Off the diagonal, the upper triangle is not read for UPLO='L'.
                    if i != j {
                        let mut d = data.clone();
                        d[at * n * n + j * n + i] = bad;
                        let a = upload(&d, dtype, &[6, n, n]);
                        let clean = upload(&data, dtype, &[6, n, n]);
                        match (
                            kp::linalg::eigvalsh(&a, Uplo::Lower),
                            kp::linalg::eigvalsh(&clean, Uplo::Lower),
                        ) {
                            (Ok(x), Ok(y)) if bits(&x) == bits(&y) => {}
                            _ => failures.push(format!(
                                "{label}: {bad} in the unread triangle of matrix {at} changed the result"
                            )),
                        }
                    }
                }
            }
        }
    }
    common::assert_no_failures(&failures, total);
}

#[test]
fn decomposition_errors_are_numpy_linalg_errors() {
    device();
    let v = Array::from_slice(&[1.0f32, 2.0, 3.0], &[3]).unwrap();
    let rect = Array::from_slice(&[1.0f32; 6], &[2, 3]).unwrap();
    let nan = Array::from_slice(&[1.0f32, 0.0, f32::NAN, 1.0], &[2, 2]).unwrap();
    let inf = Array::from_slice(&[1.0f64, 0.0, f64::INFINITY, 1.0], &[2, 2]).unwrap();
    let ten =
        |e: &kp::Result<_>, want: LinAlgError| matches!(e, Err(Error::LinAlg(x)) if *x == want);
    assert!(ten(
        &kp::linalg::qr(&v, QrMode::Reduced).map(|_| ()),
        LinAlgError::TooFewDimensions(1)
    ));
    assert!(ten(
        &kp::linalg::svd(&v, true, false).map(|_| ()),
        LinAlgError::TooFewDimensions(1)
    ));
    assert!(ten(
        &kp::linalg::eigh(&rect, Uplo::Lower).map(|_| ()),
        LinAlgError::NotSquare
    ));
    assert!(ten(
        &kp::linalg::eigvalsh(&rect, Uplo::Upper).map(|_| ()),
        LinAlgError::NotSquare
    ));
    let svd_nc = LinAlgError::NotConverged("SVD".into());
    assert!(ten(
        &kp::linalg::svd(&nan, true, false).map(|_| ()),
        svd_nc.clone()
    ));
    assert!(ten(&kp::linalg::svdvals(&nan).map(|_| ()), svd_nc.clone()));
    if device().supports(DType::F64) {
        assert!(ten(&kp::linalg::svdvals(&inf).map(|_| ()), svd_nc));
    }
    let eig_nc = LinAlgError::NotConverged("Eigenvalues".into());
    assert!(ten(
        &kp::linalg::eigh(&nan, Uplo::Lower).map(|_| ()),
        eig_nc.clone()
    ));
    assert!(ten(
        &kp::linalg::eigvalsh(&nan, Uplo::Lower).map(|_| ()),
        eig_nc
    ));
    assert!("x".parse::<QrMode>().is_err() && "X".parse::<Uplo>().is_err());
    // Complex SVD, qr and eigh are judged in tests/linalg_complex.rs and tests/linalg_eig.rs.
    let z = kp::make_complex(&rect, &rect).unwrap();
    assert!(kp::linalg::svd(&z, false, false).is_ok());
    assert!(kp::linalg::qr(&z, QrMode::Reduced).is_ok());
    assert!(matches!(
        kp::linalg::eigh(&kp::make_complex(&nan, &nan).unwrap(), Uplo::Lower),
        Err(Error::LinAlg(LinAlgError::NotConverged(_)))
    ));
    assert_eq!(kp::linalg::svdvals(&z).unwrap().shape(), &[2]);
}

/// Runs the oracle: each case's `expr` over `a` (and `b`), flattened to float64.
const ORACLE: &str = r#"
import json, sys, numpy as np, scipy.linalg as sl
d = sys.argv[1]
cases = json.load(open(d + '/manifest.json'))
res = {}
for c in cases:
    a = np.array(c['data'], dtype=np.float64).reshape(c['shape'])
    b = np.array(c.get('b', [0.0]), dtype=np.float64).reshape(c.get('bshape', [1]))
    out = eval(c['expr'])
    if not isinstance(out, (tuple, list)):
        out = [out]
    res[c['id']] = np.concatenate([np.asarray(o, dtype=np.float64).ravel() for o in out]).tolist()
json.dump(res, open(d + '/results.json', 'w'))
"#;

fn oracle(name: &str, cases: &[Value]) -> Value {
    let dir = std::env::temp_dir().join(format!(
        "kupfer_linalg_decomp_{}_{name}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let results = common::run_oracle(&dir, &json!(cases), ORACLE);
    let _ = std::fs::remove_dir_all(&dir);
    results
}

/// One case of the composed functions: NumPy's expression over `a` and `b`, kupfer's
/// arrays (flattened and concatenated as the oracle does), a tolerance relative to the
/// largest |value|.
struct Composed {
    id: String,
    expr: String,
    a: (Vec<f64>, Vec<usize>),
    b: (Vec<f64>, Vec<usize>),
    got: kp::Result<Vec<Array>>,
    rtol: f64,
}

fn composed_case(
    id: &str,
    expr: &str,
    dtype: DType,
    a: (Vec<f64>, Vec<usize>),
    b: (Vec<f64>, Vec<usize>),
    run: impl FnOnce(&Array, &Array) -> kp::Result<Vec<Array>>,
) -> Composed {
    let aa = upload(&a.0, dtype, &a.1);
    let bb = upload(&b.0, dtype, &b.1);
    Composed {
        id: format!("{dtype} {id}"),
        expr: expr.into(),
        got: run(&aa, &bb),
        a,
        b,
        rtol: 2000.0 * eps(dtype),
    }
}

fn scalar_array(v: f64) -> Array {
    Array::from_slice(&[v], &[1]).unwrap()
}

#[test]
fn composed_functions_match_numpy_and_scipy() {
    device();
    let mut cases = Vec::new();
    for dtype in dtypes() {
        let r = |seed: u64, shape: &[usize]| -> (Vec<f64>, Vec<usize>) {
            let n: usize = shape.iter().product();
            (random(seed, n, dtype), shape.to_vec())
        };
        let rank2 = |seed: u64, m: usize, n: usize| -> (Vec<f64>, Vec<usize>) {
            (matrix("rank", seed, 1, m, n, dtype), vec![m, n])
        };
        let spd = |seed: u64, n: usize| -> (Vec<f64>, Vec<usize>) {
            let m = random(seed, n * n, DType::F64);
            let mut v = vec![0.0; n * n];
            for i in 0..n {
                for j in 0..n {
                    v[i * n + j] = (0..n).map(|l| m[i * n + l] * m[j * n + l]).sum::<f64>()
                        + if i == j { n as f64 } else { 0.0 };
                }
            }
            (v, vec![n, n])
        };
        let lst = |l: kp::linalg::Lstsq| -> Vec<Array> {
            vec![l.x, l.residuals, scalar_array(l.rank as f64), l.s]
        };
        cases.push(composed_case(
            "lstsq tall",
            "np.linalg.lstsq(a, b)",
            dtype,
            r(1, &[9, 4]),
            r(2, &[9]),
            |a, b| kp::linalg::lstsq(a, b, None).map(lst),
        ));
        cases.push(composed_case(
            "lstsq 2-D b",
            "np.linalg.lstsq(a, b)",
            dtype,
            r(3, &[6, 6]),
            r(4, &[6, 3]),
            |a, b| kp::linalg::lstsq(a, b, None).map(lst),
        ));
        cases.push(composed_case(
            "lstsq wide",
            "np.linalg.lstsq(a, b)",
            dtype,
            r(5, &[3, 7]),
            r(6, &[3, 2]),
            |a, b| kp::linalg::lstsq(a, b, None).map(lst),
        ));
        cases.push(composed_case(
            "lstsq rank-deficient",
            "np.linalg.lstsq(a, b, rcond=1e-4)",
            dtype,
            rank2(7, 8, 5),
            r(8, &[8]),
            |a, b| kp::linalg::lstsq(a, b, Some(1e-4)).map(lst),
        ));
        cases.push(composed_case(
            "pinv batched",
            "np.linalg.pinv(a)",
            dtype,
            r(9, &[2, 5, 3]),
            r(0, &[1]),
            |a, _| kp::linalg::pinv(a, None, false).map(|x| vec![x]),
        ));
        cases.push(composed_case(
            "pinv rank-deficient",
            "np.linalg.pinv(a, rcond=1e-4)",
            dtype,
            rank2(10, 6, 6),
            r(0, &[1]),
            |a, _| kp::linalg::pinv(a, Some(1e-4), false).map(|x| vec![x]),
        ));
        cases.push(composed_case(
            "pinv hermitian",
            "np.linalg.pinv(a + np.swapaxes(a, -1, -2), hermitian=True)",
            dtype,
            r(11, &[3, 4, 4]),
            r(0, &[1]),
            |a, _| {
                let s = kp::add(a, &a.swapaxes(-1, -2)?)?;
                kp::linalg::pinv(&s, None, true).map(|x| vec![x])
            },
        ));
        cases.push(composed_case(
            "matrix_rank",
            "np.linalg.matrix_rank(a, rtol=1e-4)",
            dtype,
            rank2(12, 7, 5),
            r(0, &[1]),
            |a, _| kp::linalg::matrix_rank(a, None, false, Some(1e-4)).map(|x| vec![x]),
        ));
        cases.push(composed_case(
            "matrix_rank batch",
            "np.linalg.matrix_rank(a)",
            dtype,
            r(13, &[3, 4, 6]),
            r(0, &[1]),
            |a, _| kp::linalg::matrix_rank(a, None, false, None).map(|x| vec![x]),
        ));
        cases.push(composed_case(
            "matrix_rank tol",
            "np.linalg.matrix_rank(a, tol=0.5)",
            dtype,
            r(14, &[5, 5]),
            r(0, &[1]),
            |a, _| kp::linalg::matrix_rank(a, Some(0.5), false, None).map(|x| vec![x]),
        ));
        for (p, ps) in [
            (None, "None"),
            (Some(2.0), "2"),
            (Some(-2.0), "-2"),
            (Some(1.0), "1"),
            (Some(f64::INFINITY), "np.inf"),
        ] {
            cases.push(composed_case(
                &format!("cond {ps}"),
                &format!("np.linalg.cond(a, {ps})"),
                dtype,
                r(15, &[2, 4, 4]),
                r(0, &[1]),
                move |a, _| kp::linalg::cond(a, p.map(kp::linalg::NormOrd::P)).map(|x| vec![x]),
            ));
        }
        cases.push(composed_case(
            "cond fro",
            "np.linalg.cond(a, 'fro')",
            dtype,
            r(16, &[4, 4]),
            r(0, &[1]),
            |a, _| kp::linalg::cond(a, Some(kp::linalg::NormOrd::Fro)).map(|x| vec![x]),
        ));
        for (o, os) in [
            (kp::linalg::NormOrd::P(2.0), "2"),
            (kp::linalg::NormOrd::P(-2.0), "-2"),
            (kp::linalg::NormOrd::Nuc, "'nuc'"),
        ] {
            cases.push(composed_case(
                &format!("norm {os}"),
                &format!("np.linalg.norm(a, {os})"),
                dtype,
                r(17, &[5, 3]),
                r(0, &[1]),
                move |a, _| kp::linalg::norm(a, Some(o), None, false).map(|x| vec![x]),
            ));
            cases.push(composed_case(
                &format!("norm {os} axes"),
                &format!("np.linalg.norm(a, {os}, axis=(2, 0), keepdims=True)"),
                dtype,
                r(18, &[3, 2, 4]),
                r(0, &[1]),
                move |a, _| kp::linalg::norm(a, Some(o), Some(&[2, 0]), true).map(|x| vec![x]),
            ));
        }
        cases.push(composed_case(
            "tensorsolve",
            "np.linalg.tensorsolve(a + 3 * np.eye(6).reshape(2, 3, 6), b)",
            dtype,
            r(19, &[2, 3, 6]),
            r(20, &[2, 3]),
            |a, b| {
                let a = kp::add(
                    a,
                    &kp::multiply(
                        &kp::eye(6, None, 0, Some(a.dtype()))?.reshape(&[2, 3, 6])?,
                        3.0,
                    )?,
                )?;
                kp::linalg::tensorsolve(&a, b, None).map(|x| vec![x])
            },
        ));
        cases.push(composed_case(
            "tensorsolve axes",
            "np.linalg.tensorsolve(a, b, axes=(0,))",
            dtype,
            r(21, &[4, 2, 2]),
            r(22, &[2, 2]),
            |a, b| kp::linalg::tensorsolve(a, b, Some(&[0])).map(|x| vec![x]),
        ));
        cases.push(composed_case(
            "tensorinv",
            "np.linalg.tensorinv(a, ind=1)",
            dtype,
            r(23, &[6, 2, 3]),
            r(0, &[1]),
            |a, _| kp::linalg::tensorinv(a, 1).map(|x| vec![x]),
        ));
        cases.push(composed_case(
            "lu",
            "sl.lu(a)",
            dtype,
            r(24, &[2, 5, 5]),
            r(0, &[1]),
            |a, _| {
                let (p, l, u) = kp::linalg::lu(a, false)?;
                Ok(vec![p, l, u.unwrap()])
            },
        ));
        cases.push(composed_case(
            "lu 40",
            "sl.lu(a)",
            dtype,
            r(25, &[40, 40]),
            r(0, &[1]),
            |a, _| {
                let (p, l, u) = kp::linalg::lu(a, false)?;
                Ok(vec![p, l, u.unwrap()])
            },
        ));
        cases.push(composed_case(
            "lu permute_l",
            "sl.lu(a, permute_l=True)",
            dtype,
            r(26, &[6, 6]),
            r(0, &[1]),
            |a, _| {
                let (pl, u, _) = kp::linalg::lu(a, true)?;
                Ok(vec![pl, u])
            },
        ));
        for trans in 0..2u8 {
            cases.push(composed_case(
                &format!("lu_solve {trans}"),
                &format!("sl.lu_solve(sl.lu_factor(a), b, trans={trans})"),
                dtype,
                r(27, &[7, 7]),
                r(28, &[7, 2]),
                move |a, b| {
                    let (lu, piv) = kp::linalg::lu_factor(a)?;
                    kp::linalg::lu_solve(&lu, &piv, b, trans).map(|x| vec![x])
                },
            ));
            cases.push(composed_case(
                &format!("lu_solve 40 vector {trans}"),
                &format!("sl.lu_solve(sl.lu_factor(a), b, trans={trans})"),
                dtype,
                r(29, &[40, 40]),
                r(30, &[40]),
                move |a, b| {
                    let (lu, piv) = kp::linalg::lu_factor(a)?;
                    kp::linalg::lu_solve(&lu, &piv, b, trans).map(|x| vec![x])
                },
            ));
        }
        for lower in [false, true] {
            cases.push(composed_case(
                &format!("cho_solve {lower}"),
                &format!(
                    "sl.cho_solve(sl.cho_factor(a, lower={}), b)",
                    if lower { "True" } else { "False" }
                ),
                dtype,
                spd(31, 6),
                r(32, &[6, 2]),
                move |a, b| {
                    let (c, low) = kp::linalg::cho_factor(a, lower)?;
                    kp::linalg::cho_solve(&c, low, b).map(|x| vec![x])
                },
            ));
        }
        // Complex systems (through the real embedding): a[0] + 1j a[1], batched and not.
        let cdt = if dtype == DType::F64 {
            DType::Complex128
        } else {
            DType::Complex64
        };
        let cplx = move |x: &Array| -> kp::Result<Array> {
            let re = x.slice(&[kp::SliceArg::Index(0)])?;
            let im = x.slice(&[kp::SliceArg::Index(1)])?;
            kp::make_complex(&re, &im)?.astype(cdt)
        };
        let parts = |x: Array| -> kp::Result<Vec<Array>> { Ok(vec![kp::real(&x)?, kp::imag(&x)?]) };
        let boost = move |n: usize, d: DType, k: f64| -> kp::Result<Array> {
            kp::multiply(&kp::eye(n, None, 0, Some(d))?, k)?.astype(cdt)
        };
        cases.push(composed_case("complex solve", "(lambda x: (x.real, x.imag))(np.linalg.solve(a[0] + 1j * a[1] + 4 * np.eye(5), b[0] + 1j * b[1]))", dtype, r(40, &[2, 5, 5]), r(41, &[2, 5]), move |a, b| {
            let a = kp::add(&cplx(a)?, &boost(5, a.dtype(), 4.0)?)?;
            kp::linalg::solve(&a, &cplx(b)?).and_then(parts)
        }));
        cases.push(composed_case(
            "complex inv batched",
            "(lambda x: (x.real, x.imag))(np.linalg.inv(a[0] + 1j * a[1] + 3 * np.eye(40)))",
            dtype,
            r(42, &[2, 3, 40, 40]),
            r(0, &[1]),
            move |a, _| {
                let a = kp::add(&cplx(a)?, &boost(40, a.dtype(), 3.0)?)?;
                kp::linalg::inv(&a).and_then(parts)
            },
        ));
        cases.push(composed_case(
            "complex svdvals",
            "np.linalg.svdvals(a[0] + 1j * a[1])",
            dtype,
            r(43, &[2, 3, 6, 4]),
            r(0, &[1]),
            move |a, _| kp::linalg::svdvals(&cplx(a)?).map(|x| vec![x]),
        ));
        cases.push(composed_case("complex lstsq", "(lambda r: (r[0].real, r[0].imag, r[1], r[2], r[3]))(np.linalg.lstsq(a[0] + 1j * a[1], b[0] + 1j * b[1]))", dtype, r(44, &[2, 7, 3]), r(45, &[2, 7, 2]), move |a, b| {
            let l = kp::linalg::lstsq(&cplx(a)?, &cplx(b)?, None)?;
            Ok(vec![kp::real(&l.x)?, kp::imag(&l.x)?, l.residuals, scalar_array(l.rank as f64), l.s])
        }));
        cases.push(composed_case(
            "complex pinv",
            "(lambda x: (x.real, x.imag))(np.linalg.pinv(a[0] + 1j * a[1]))",
            dtype,
            r(46, &[2, 2, 3, 5]),
            r(0, &[1]),
            move |a, _| kp::linalg::pinv(&cplx(a)?, None, false).and_then(parts),
        ));
        cases.push(composed_case("complex rank, cond, norms", "(np.linalg.matrix_rank(a[0] + 1j * a[1]), np.linalg.cond(a[0] + 1j * a[1]), np.linalg.norm(a[0] + 1j * a[1], 2), np.linalg.norm(a[0] + 1j * a[1], 'nuc'))", dtype, r(47, &[2, 5, 5]), r(0, &[1]), move |a, _| {
            let c = cplx(a)?;
            Ok(vec![
                kp::linalg::matrix_rank(&c, None, false, None)?,
                kp::linalg::cond(&c, None)?,
                kp::linalg::norm(&c, Some(kp::linalg::NormOrd::P(2.0)), None, false)?,
                kp::linalg::norm(&c, Some(kp::linalg::NormOrd::Nuc), None, false)?,
            ])
        }));
        cases.push(composed_case(
            "polyfit",
            "np.polyfit(a, b, 3)",
            dtype,
            r(33, &[12]),
            r(34, &[12]),
            |a, b| kp::polyfit(a, b, 3, None, None).map(|f| vec![f.coefficients]),
        ));
        cases.push(composed_case(
            "polyfit full 2-D weighted",
            "np.polyfit(a, b, 2, full=True, w=np.linspace(1, 2, 10))[:4]",
            dtype,
            r(35, &[10]),
            r(36, &[10, 2]),
            |a, b| {
                let w = kp::linspace(1.0, 2.0, 10, true, Some(a.dtype()))?;
                let f = kp::polyfit(a, b, 2, None, Some(&w))?;
                Ok(vec![
                    f.coefficients,
                    f.residuals,
                    scalar_array(f.rank as f64),
                    f.singular_values,
                ])
            },
        ));
    }
    let manifest: Vec<Value> = cases
        .iter()
        .map(|c| json!({"id": c.id, "expr": c.expr, "data": c.a.0, "shape": c.a.1, "b": c.b.0, "bshape": c.b.1}))
        .collect();
    let res = oracle("composed", &manifest);
    let mut failures = Vec::new();
    for c in &cases {
        let want: Vec<f64> = serde_json::from_value(res[&c.id].clone()).unwrap();
        match &c.got {
            Ok(arrays) => {
                let got: Vec<f64> = arrays.iter().flat_map(host).collect();
                let scale = want.iter().map(|x| x.abs()).fold(1.0, f64::max);
                if got.len() != want.len()
                    || got.iter().zip(&want).any(|(g, w)| {
                        !((g - w).abs() <= c.rtol * scale || (g.is_infinite() && g == w))
                    })
                {
                    failures.push(format!("{} ({}): {got:?} vs numpy {want:?}", c.id, c.expr));
                }
            }
            Err(e) => failures.push(format!("{} ({}): {e}", c.id, c.expr)),
        }
    }
    common::assert_no_failures(&failures, cases.len());
}

#[test]
fn composed_function_errors() {
    device();
    let a3 = Array::from_slice(&[1.0f32; 8], &[2, 2, 2]).unwrap();
    let a = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[3, 2]).unwrap();
    let b4 = Array::from_slice(&[1.0f32; 4], &[4]).unwrap();
    let is = |r: kp::Result<()>, want: LinAlgError| matches!(r, Err(Error::LinAlg(e)) if e == want);
    assert!(is(
        kp::linalg::lstsq(&a3, &b4, None).map(|_| ()),
        LinAlgError::NotTwoDimensional(3)
    ));
    assert!(is(
        kp::linalg::lstsq(&a, &b4, None).map(|_| ()),
        LinAlgError::IncompatibleDimensions
    ));
    assert!(is(
        kp::linalg::tensorsolve(&a3, &b4, None).map(|_| ()),
        LinAlgError::TensorShape
    ));
    assert!(matches!(
        kp::linalg::tensorinv(&a3, 0),
        Err(Error::InvalidArgument(_))
    ));
    assert!(is(
        kp::linalg::pinv(&b4, None, false).map(|_| ()),
        LinAlgError::TooFewDimensions(1)
    ));
    assert!(is(
        kp::linalg::lu(&a, false).map(|_| ()),
        LinAlgError::NotSquare
    ));
    assert!(kp::polyfit(&b4, &b4, -1, None, None).is_err());
    assert!(kp::polyfit(&a, &b4, 1, None, None).is_err());
    let singular = Array::from_slice(&[1.0f64, 2.0, 2.0, 4.0], &[2, 2]).unwrap();
    if device().supports(DType::F64) {
        let c: Vec<f64> = kp::linalg::cond(&singular, Some(kp::linalg::NormOrd::P(1.0)))
            .unwrap()
            .to_vec()
            .unwrap();
        assert!(c[0].is_infinite());
        let (c, low) = (
            Array::from_slice(&[1.0f64, 0.0, 0.0, -1.0], &[2, 2]).unwrap(),
            false,
        );
        assert!(matches!(
            kp::linalg::cho_factor(&c, low),
            Err(Error::LinAlg(LinAlgError::NotPositiveDefinite))
        ));
    }
}
