//! Complex64 and complex128 det, slogdet and cholesky against NumPy (python3 is the oracle):
//! determinants and log-determinants to a relative tolerance, the Cholesky factor against
//! NumPy's (it is unique) within `30 n eps ||L||`, upper and lower, batched, transposed views, singular matrices (sign 0, log -inf) and NumPy's
//! errors.
//!
//! Needs python3 with NumPy and a GPU adapter (lavapipe will do); fails, never skips.
//! Run: `cargo test -p kupfer-suite --test linalg_complex`.

mod common;

use kp::{Array, DType, Error, LinAlgError};
use kupfer as kp;
use serde_json::{json, Value};

const THRESHOLD: f64 = 30.0;

fn device() -> kp::Device {
    common::default_device()
}

fn dtypes() -> Vec<DType> {
    let mut d = vec![DType::Complex64];
    if device().supports(DType::F64) {
        d.push(DType::Complex128);
    }
    d
}

fn name(d: DType) -> &'static str {
    if d == DType::Complex64 {
        "complex64"
    } else {
        "complex128"
    }
}

fn random(seed: u64, n: usize) -> Vec<f64> {
    common::values(seed, 0xc0f, n, DType::F64, -1.0, 1.0)
}

/// `len` complex values (rounded to `d`'s precision).
fn cvalues(seed: u64, len: usize, d: DType) -> Vec<(f64, f64)> {
    let re = random(seed, len);
    let im = random(seed + 77, len);
    re.into_iter()
        .zip(im)
        .map(|(a, b)| {
            if d == DType::Complex64 {
                (a as f32 as f64, b as f32 as f64)
            } else {
                (a, b)
            }
        })
        .collect()
}

fn upload(v: &[(f64, f64)], d: DType, shape: &[usize]) -> Array {
    if d == DType::Complex64 {
        let h: Vec<kp::Complex32> = v
            .iter()
            .map(|&(a, b)| kp::Complex32::new(a as f32, b as f32))
            .collect();
        Array::from_slice(&h, shape).unwrap()
    } else {
        let h: Vec<kp::Complex64> = v.iter().map(|&(a, b)| kp::Complex64::new(a, b)).collect();
        Array::from_slice(&h, shape).unwrap()
    }
}

fn pairs(v: &Value) -> Vec<(f64, f64)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_f64().unwrap(), p[1].as_f64().unwrap()))
        .collect()
}

fn close(got: (f64, f64), want: (f64, f64), tol: f64) -> bool {
    let d = ((got.0 - want.0).powi(2) + (got.1 - want.1).powi(2)).sqrt();
    let s = (want.0.powi(2) + want.1.powi(2)).sqrt().max(1e-300);
    d <= tol * s || (got == want)
}

const ORACLE: &str = r#"
import json, sys, numpy as np
d = sys.argv[1]
out = []
for c in json.load(open(d + '/manifest.json')):
    a = np.array([complex(x, y) for x, y in c['m']]).reshape(c['shape']).astype(c['dtype'])
    if c['t']:
        a = a.swapaxes(-1, -2)
    r = {}
    if c['op'] == 'det':
        dt = np.linalg.det(a)
        s, l = np.linalg.slogdet(a)
        # Overflowed determinants (70 x 70 in complex64) are compared through slogdet only.
        r['det'] = [[float(z.real), float(z.imag)] if np.isfinite(z) else None for z in np.ravel(dt)]
        r['sign'] = [[float(z.real), float(z.imag)] for z in np.ravel(s)]
        r['log'] = [float(x) if np.isfinite(x) else None for x in np.ravel(l)]
        r['sign_dtype'] = str(s.dtype); r['log_dtype'] = str(l.dtype)
    else:
        try:
            L = np.linalg.cholesky(a, upper=c['upper'])
            r['l'] = [[float(z.real), float(z.imag)] for z in np.ravel(L)]
        except np.linalg.LinAlgError:
            r['error'] = 1
    out.append(r)
json.dump(out, open(d + '/results.json', 'w'))
"#;

struct Case {
    label: String,
    op: &'static str,
    shape: Vec<usize>,
    m: Vec<(f64, f64)>,
    d: DType,
    transposed: bool,
    upper: bool,
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for d in dtypes() {
        for (s, shape) in [
            vec![1, 1],
            vec![3, 3],
            vec![2, 5, 5],
            vec![40, 40],
            vec![70, 70],
        ]
        .into_iter()
        .enumerate()
        {
            let len = shape.iter().product();
            out.push(Case {
                label: format!("det {shape:?} {d}"),
                op: "det",
                shape,
                m: cvalues(s as u64, len, d),
                d,
                transposed: s == 1,
                upper: false,
            });
        }
        // Singular: two equal rows; and a zero matrix.
        let mut sing = cvalues(9, 16, d);
        for j in 0..4 {
            sing[4 + j] = sing[j];
        }
        out.push(Case {
            label: format!("det singular {d}"),
            op: "det",
            shape: vec![4, 4],
            m: sing,
            d,
            transposed: false,
            upper: false,
        });
        out.push(Case {
            label: format!("det zeros {d}"),
            op: "det",
            shape: vec![3, 3],
            m: vec![(0.0, 0.0); 9],
            d,
            transposed: false,
            upper: false,
        });
        // Hermitian positive definite: B B^H + n I, batched; garbage in the unused triangle.
        for (s, (n, upper)) in [(1, false), (4, false), (6, true), (45, false)]
            .into_iter()
            .enumerate()
        {
            let b = cvalues(20 + s as u64, n * n, d);
            let mut m = vec![(0.0, 0.0); n * n];
            for i in 0..n {
                for j in 0..n {
                    let mut acc = (if i == j { n as f64 } else { 0.0 }, 0.0);
                    for k in 0..n {
                        let (x, y) = (b[i * n + k], b[j * n + k]);
                        acc.0 += x.0 * y.0 + x.1 * y.1;
                        acc.1 += x.1 * y.0 - x.0 * y.1;
                    }
                    m[i * n + j] = acc;
                }
            }
            for i in 0..n {
                for j in 0..n {
                    let unused = if upper { j < i } else { j > i };
                    if unused {
                        m[i * n + j] = (9.0, -9.0);
                    }
                }
            }
            let m: Vec<(f64, f64)> = m
                .iter()
                .map(|&(a, b)| {
                    if d == DType::Complex64 {
                        (a as f32 as f64, b as f32 as f64)
                    } else {
                        (a, b)
                    }
                })
                .collect();
            out.push(Case {
                label: format!("cholesky {n} upper={upper} {d}"),
                op: "chol",
                shape: vec![n, n],
                m,
                d,
                transposed: false,
                upper,
            });
        }
        out.push(Case {
            label: format!("cholesky indefinite {d}"),
            op: "chol",
            shape: vec![2, 2],
            m: vec![(1.0, 0.0), (2.0, 1.0), (2.0, -1.0), (1.0, 0.0)],
            d,
            transposed: false,
            upper: false,
        });
    }
    out
}

#[test]
fn complex_det_slogdet_cholesky_match_numpy() {
    let cases = cases();
    let manifest: Vec<Value> = cases
        .iter()
        .map(|c| {
            json!({"op": c.op, "shape": c.shape, "dtype": name(c.d), "t": c.transposed,
                   "upper": c.upper, "m": c.m.iter().map(|&(a, b)| [a, b]).collect::<Vec<_>>()})
        })
        .collect();
    let dir = std::env::temp_dir().join(format!("kupfer_cplx_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let results = common::run_oracle(&dir, &json!(manifest), ORACLE);
    let _ = std::fs::remove_dir_all(&dir);
    let mut failures = Vec::new();
    for (c, r) in cases.iter().zip(results.as_array().unwrap()) {
        let mut a = upload(&c.m, c.d, &c.shape);
        if c.transposed {
            a = a.swapaxes(-1, -2).unwrap();
        }
        let n = c.shape[c.shape.len() - 1];
        let eps = common::eps(c.d);
        if c.op == "det" {
            let det = common::host_pairs(&kp::linalg::det(&a).unwrap());
            let (s, l) = kp::linalg::slogdet(&a).unwrap();
            if s.dtype() != c.d
                || l.dtype()
                    != if c.d == DType::Complex64 {
                        DType::F32
                    } else {
                        DType::F64
                    }
            {
                failures.push(format!("{}: dtypes {} {}", c.label, s.dtype(), l.dtype()));
            }
            let (s, l) = (common::host_pairs(&s), common::host_pairs(&l));
            let tol = 100.0 * n as f64 * eps;
            if c.label.contains("singular") {
                // Rounding decides whether the last pivot is exactly zero (kupfer: 0 and
                // -inf) or tiny (NumPy here): both must be negligible.
                let small = 1e3 * eps;
                if det[0].0.hypot(det[0].1) > small || l[0].0.is_nan() || l[0].0 >= small.ln() {
                    failures.push(format!("{}: det {:?}, log {}", c.label, det[0], l[0].0));
                }
                continue;
            }
            for (i, w) in r["det"].as_array().unwrap().iter().enumerate() {
                if w.is_null() {
                    continue;
                }
                let w = (w[0].as_f64().unwrap(), w[1].as_f64().unwrap());
                if !close(det[i], w, tol) {
                    failures.push(format!("{}: det {:?} against {w:?}", c.label, det[i]));
                }
            }
            for (i, w) in pairs(&r["sign"]).into_iter().enumerate() {
                if !close(s[i], w, tol) {
                    failures.push(format!("{}: sign {:?} against {w:?}", c.label, s[i]));
                }
            }
            for (i, w) in r["log"].as_array().unwrap().iter().enumerate() {
                let w = w.as_f64().unwrap_or(f64::NEG_INFINITY);
                let ok = if w.is_finite() {
                    (l[i].0 - w).abs() <= tol * w.abs().max(1.0)
                } else {
                    // NumPy's -inf for a singular matrix; kupfer's rounding may leave a tiny
                    // nonzero pivot (log below -10 per order) where NumPy's is exactly 0.
                    l[i].0 == w || l[i].0 < -10.0 * n as f64
                };
                if !ok {
                    failures.push(format!("{}: log {} against {w}", c.label, l[i].0));
                }
            }
        } else {
            let got = kp::linalg::cholesky(&a, c.upper);
            match (got, r.get("error")) {
                (Err(Error::LinAlg(LinAlgError::NotPositiveDefinite)), Some(_)) => {}
                (Ok(l), None) => {
                    let l = common::host_pairs(&l);
                    let want = pairs(&r["l"]);
                    let scale = want
                        .iter()
                        .map(|p| p.0 * p.0 + p.1 * p.1)
                        .sum::<f64>()
                        .sqrt();
                    let worst = l
                        .iter()
                        .zip(&want)
                        .map(|(g, w)| ((g.0 - w.0).powi(2) + (g.1 - w.1).powi(2)).sqrt())
                        .fold(0.0, f64::max);
                    if worst > THRESHOLD * n as f64 * eps * scale {
                        failures.push(format!("{}: factor off by {worst:.3e}", c.label));
                    }
                }
                (got, e) => failures.push(format!("{}: got {got:?}, NumPy error {e:?}", c.label)),
            }
        }
    }
    common::assert_no_failures(&failures, cases.len());
}

#[test]
fn complex_solve_triangular_matches_scipy() {
    let mut cases = Vec::new();
    for d in dtypes() {
        for (s, (trans, lower, unit, vector)) in [
            (0u8, false, false, true),
            (0, true, false, false),
            (1, true, false, false),
            (2, false, false, true),
            (2, true, true, false),
            (1, false, true, true),
        ]
        .into_iter()
        .enumerate()
        {
            cases.push((d, s as u64, trans, lower, unit, vector));
        }
    }
    let n = 6;
    let mut manifest = Vec::new();
    let mut inputs = Vec::new();
    for &(d, s, trans, lower, unit, vector) in &cases {
        // Diagonally dominant (well conditioned) with values everywhere (the other triangle
        // must be ignored); b is (n,) or (2, n, 3) against a (2, n, n).
        let mut a = cvalues(100 + s, 2 * n * n, d);
        for k in 0..2 {
            for i in 0..n {
                a[k * n * n + i * n + i].0 += 4.0;
            }
        }
        let b = cvalues(200 + s, if vector { n } else { 2 * n * 3 }, d);
        manifest.push(
            json!({"dtype": name(d), "trans": trans, "lower": lower, "unit": unit,
            "a": a.iter().map(|&(x, y)| [x, y]).collect::<Vec<_>>(),
            "b": b.iter().map(|&(x, y)| [x, y]).collect::<Vec<_>>(), "vector": vector, "n": n}),
        );
        inputs.push((a, b));
    }
    let script = r#"
import json, sys, numpy as np, scipy.linalg as sl
d = sys.argv[1]
out = []
for c in json.load(open(d + '/manifest.json')):
    n = c['n']
    a = np.array([complex(x, y) for x, y in c['a']]).reshape(2, n, n).astype(c['dtype'])
    b = np.array([complex(x, y) for x, y in c['b']]).astype(c['dtype'])
    b = b if c['vector'] else b.reshape(2, n, 3)
    xs = []
    for k in range(2):
        bk = b if c['vector'] else b[k]
        xs.append(sl.solve_triangular(a[k], bk, trans=c['trans'], lower=c['lower'], unit_diagonal=c['unit']))
    x = np.stack(xs)
    out.append({'x': [[float(z.real), float(z.imag)] for z in x.ravel()], 'dtype': str(x.dtype)})
json.dump(out, open(d + '/results.json', 'w'))
"#;
    let dir = std::env::temp_dir().join(format!("kupfer_trsv_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let results = common::run_oracle(&dir, &json!(manifest), script);
    let _ = std::fs::remove_dir_all(&dir);
    let mut failures = Vec::new();
    for (((d, _, trans, lower, unit, vector), (a, b)), r) in
        cases.iter().zip(&inputs).zip(results.as_array().unwrap())
    {
        let label = format!("{d} trans={trans} lower={lower} unit={unit} vector={vector}");
        let a = upload(a, *d, &[2, n, n]);
        let b = if *vector {
            upload(b, *d, &[n])
        } else {
            upload(b, *d, &[2, n, 3])
        };
        let x = match kp::linalg::solve_triangular(&a, &b, *trans, *lower, *unit) {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("{label}: {e}"));
                continue;
            }
        };
        if x.dtype() != *d {
            failures.push(format!("{label}: dtype {}", x.dtype()));
        }
        let want = pairs(&r["x"]);
        let got = common::host_pairs(&x);
        let tol = 100.0 * n as f64 * common::eps(*d);
        if got.len() != want.len() || got.iter().zip(&want).any(|(g, w)| !close(*g, *w, tol)) {
            failures.push(format!("{label}: {got:?} against {want:?}"));
        }
    }
    // SciPy's error for an exactly zero diagonal element.
    let z = upload(
        &[(1.0, 1.0), (0.0, 0.0), (2.0, 0.0), (0.0, 0.0)],
        DType::Complex64,
        &[2, 2],
    );
    let b = upload(&[(1.0, 0.0), (1.0, 0.0)], DType::Complex64, &[2]);
    match kp::linalg::solve_triangular(&z, &b, 0, true, false) {
        Err(Error::LinAlg(LinAlgError::SingularAt(1))) => {}
        other => failures.push(format!("singular: {other:?}")),
    }
    common::assert_no_failures(&failures, cases.len() + 1);
}

fn cmul(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

/// `x @ y` for row-major complex `r x k` and `k x c` host matrices.
fn matmul(x: &[(f64, f64)], y: &[(f64, f64)], r: usize, k: usize, c: usize) -> Vec<(f64, f64)> {
    let mut out = vec![(0.0, 0.0); r * c];
    for i in 0..r {
        for j in 0..c {
            for l in 0..k {
                let p = cmul(x[i * k + l], y[l * c + j]);
                out[i * c + j].0 += p.0;
                out[i * c + j].1 += p.1;
            }
        }
    }
    out
}

#[test]
fn complex_qr_is_unitary_times_triangular_as_numpy() {
    use kp::linalg::QrMode;
    let mut failures = Vec::new();
    let mut manifest = Vec::new();
    let mut cases = Vec::new();
    for d in dtypes() {
        for (s, (batch, m, n)) in [(1, 5, 3), (1, 3, 5), (2, 4, 4), (1, 40, 20), (1, 1, 1)]
            .into_iter()
            .enumerate()
        {
            let a = cvalues(300 + s as u64, batch * m * n, d);
            manifest.push(json!({"dtype": name(d), "shape": [batch, m, n],
                "a": a.iter().map(|&(x, y)| [x, y]).collect::<Vec<_>>()}));
            cases.push((d, batch, m, n, a));
        }
    }
    let script = r#"
import json, sys, numpy as np
d = sys.argv[1]
out = []
for c in json.load(open(d + '/manifest.json')):
    a = np.array([complex(x, y) for x, y in c['a']]).reshape(c['shape']).astype(c['dtype'])
    r = np.linalg.qr(a, mode='r')
    h, tau = np.linalg.qr(a[0], mode='raw')
    out.append({'r': [[float(z.real), float(z.imag)] for z in r.ravel()],
                'tau': [[float(z.real), float(z.imag)] for z in tau.ravel()]})
json.dump(out, open(d + '/results.json', 'w'))
"#;
    let dir = std::env::temp_dir().join(format!("kupfer_cqr_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let results = common::run_oracle(&dir, &json!(manifest), script);
    let _ = std::fs::remove_dir_all(&dir);
    for ((d, batch, m, n, a), res) in cases.iter().zip(results.as_array().unwrap()) {
        let (batch, m, n) = (*batch, *m, *n);
        let label = format!("{d} {batch}x{m}x{n}");
        let eps = common::eps(*d);
        let k = m.min(n);
        let arr = upload(a, *d, &[batch, m, n]);
        let red = kp::linalg::qr(&arr, QrMode::Reduced).unwrap();
        let q = red.q.unwrap();
        if q.shape() != [batch, m, k] || red.r.shape() != [batch, k, n] || q.dtype() != *d {
            failures.push(format!(
                "{label}: shapes {:?} {:?}",
                q.shape(),
                red.r.shape()
            ));
            continue;
        }
        let (qh, rh) = (common::host_pairs(&q), common::host_pairs(&red.r));
        let want_r = pairs(&res["r"]);
        let an = a.iter().map(|p| p.0 * p.0 + p.1 * p.1).sum::<f64>().sqrt();
        for b in 0..batch {
            let qb = &qh[b * m * k..(b + 1) * m * k];
            let rb = &rh[b * k * n..(b + 1) * k * n];
            let ab = &a[b * m * n..(b + 1) * m * n];
            let qr = matmul(qb, rb, m, k, n);
            let res_qr = qr
                .iter()
                .zip(ab)
                .map(|(x, y)| (x.0 - y.0).powi(2) + (x.1 - y.1).powi(2))
                .sum::<f64>()
                .sqrt()
                / (an * m as f64 * eps);
            let qhq: Vec<(f64, f64)> = {
                let mut qt = vec![(0.0, 0.0); k * m];
                for i in 0..m {
                    for j in 0..k {
                        qt[j * m + i] = (qb[i * k + j].0, -qb[i * k + j].1);
                    }
                }
                matmul(&qt, qb, k, m, k)
            };
            let unit = (0..k * k)
                .map(|e| {
                    let want = if e / k == e % k { 1.0 } else { 0.0 };
                    ((qhq[e].0 - want).powi(2) + qhq[e].1.powi(2)).sqrt()
                })
                .fold(0.0, f64::max)
                / (m as f64 * eps);
            if res_qr > THRESHOLD || unit > THRESHOLD {
                failures.push(format!(
                    "{label}[{b}]: ||A-QR|| {res_qr:.2e}, ||Q^HQ-I|| {unit:.2e}"
                ));
            }
            let worst = rb
                .iter()
                .zip(&want_r[b * k * n..(b + 1) * k * n])
                .map(|(g, w)| ((g.0 - w.0).powi(2) + (g.1 - w.1).powi(2)).sqrt())
                .fold(0.0, f64::max);
            if worst > 100.0 * m as f64 * eps * an {
                failures.push(format!("{label}[{b}]: R off NumPy's by {worst:.2e}"));
            }
            for i in 0..k {
                if rb[i * n + i].1 != 0.0 {
                    failures.push(format!("{label}[{b}]: R[{i},{i}] not real"));
                }
            }
        }
        // Complete and raw modes: shapes, and tau against NumPy's.
        let full = kp::linalg::qr(&arr, QrMode::Complete).unwrap();
        if full.q.as_ref().map(|q| q.shape().to_vec()) != Some(vec![batch, m, m])
            || full.r.shape() != [batch, m, n]
        {
            failures.push(format!("{label}: complete shapes"));
        }
        let raw = kp::linalg::qr(&arr, QrMode::Raw).unwrap();
        let tau = common::host_pairs(&raw.r);
        for (i, w) in pairs(&res["tau"]).into_iter().enumerate() {
            if ((tau[i].0 - w.0).powi(2) + (tau[i].1 - w.1).powi(2)).sqrt() > 1e3 * eps {
                failures.push(format!("{label}: tau[{i}] {:?} against {w:?}", tau[i]));
            }
        }
    }
    common::assert_no_failures(&failures, cases.len());
}

/// The conjugate transpose of a row-major complex `r x c` host matrix.
fn ctrans(x: &[(f64, f64)], r: usize, c: usize) -> Vec<(f64, f64)> {
    let mut out = vec![(0.0, 0.0); r * c];
    for i in 0..r {
        for j in 0..c {
            out[j * r + i] = (x[i * c + j].0, -x[i * c + j].1);
        }
    }
    out
}

/// `max |X^H X - I|` of a row-major complex `r x c` host matrix (orthonormal columns).
fn unitarity(x: &[(f64, f64)], r: usize, c: usize) -> f64 {
    let xhx = matmul(&ctrans(x, r, c), x, c, r, c);
    (0..c * c)
        .map(|e| {
            let want = if e / c == e % c { 1.0 } else { 0.0 };
            ((xhx[e].0 - want).powi(2) + xhx[e].1.powi(2)).sqrt()
        })
        .fold(0.0, f64::max)
}

fn frobenius(x: &[(f64, f64)]) -> f64 {
    x.iter().map(|p| p.0 * p.0 + p.1 * p.1).sum::<f64>().sqrt()
}

/// Complex SVD with vectors, as LAPACK's tests judge it (NumPy leaves the phases of the
/// singular vectors free, so they are checked by reconstruction and unitarity, not element
/// by element): `||A - U S Vh|| / (||A|| max(m, n) eps)`, `||U^H U - I|| / (m eps)`,
/// `||Vh Vh^H - I|| / (n eps)`, the singular values against NumPy's, the shapes and dtypes
/// of `full_matrices` both ways, `compute_uv=False`, `hermitian=True`, tall, wide, square,
/// batched, rank-deficient, transposed views and empty stacks.
#[test]
fn complex_svd_reconstructs_with_unitary_factors() {
    let mut failures = Vec::new();
    let mut manifest = Vec::new();
    let mut cases = Vec::new();
    for d in dtypes() {
        // (batch, m, n, kind): "rand", "rank2" (a product through 2 columns), "herm"
        // (A + A^H, for hermitian=True) or "trans" (the transposed view of an n x m array).
        for (s, (batch, m, n, kind)) in [
            (1, 5, 3, "rand"),
            (1, 3, 5, "rand"),
            (3, 4, 4, "rand"),
            (1, 30, 20, "rand"),
            (1, 20, 33, "rand"),
            (1, 1, 1, "rand"),
            (2, 6, 5, "rank2"),
            (1, 4, 7, "rank2"),
            (1, 5, 5, "zero"),
            (2, 6, 6, "herm"),
            (1, 7, 4, "trans"),
            (0, 3, 3, "rand"),
            (2, 0, 3, "rand"),
        ]
        .into_iter()
        .enumerate()
        {
            let mut a = cvalues(500 + s as u64, batch * m * n, d);
            if kind == "rank2" {
                let x = cvalues(600 + s as u64, batch * m * 2, d);
                let y = cvalues(700 + s as u64, batch * 2 * n, d);
                a = (0..batch)
                    .flat_map(|b| {
                        matmul(
                            &x[b * m * 2..(b + 1) * m * 2],
                            &y[b * 2 * n..(b + 1) * 2 * n],
                            m,
                            2,
                            n,
                        )
                    })
                    .collect();
            } else if kind == "zero" {
                a = vec![(0.0, 0.0); a.len()];
            } else if kind == "herm" {
                a = (0..batch)
                    .flat_map(|b| {
                        let x = &a[b * m * n..(b + 1) * m * n];
                        let xh = ctrans(x, m, n);
                        x.iter()
                            .zip(xh)
                            .map(|(p, q)| (p.0 + q.0, p.1 + q.1))
                            .collect::<Vec<_>>()
                    })
                    .collect();
            }
            manifest.push(json!({"dtype": name(d), "shape": [batch, m, n],
                "a": a.iter().map(|&(x, y)| [x, y]).collect::<Vec<_>>()}));
            cases.push((d, batch, m, n, kind, a));
        }
    }
    let script = r#"
import json, sys, numpy as np
d = sys.argv[1]
out = []
for c in json.load(open(d + '/manifest.json')):
    a = np.array([complex(x, y) for x, y in c['a']]).reshape(c['shape']).astype(c['dtype'])
    s = np.linalg.svd(a, compute_uv=False)
    u, s2, vh = np.linalg.svd(a, full_matrices=False)
    out.append({'s': s.ravel().tolist(), 's_dtype': str(s.dtype), 'u_dtype': str(u.dtype)})
json.dump(out, open(d + '/results.json', 'w'))
"#;
    let dir = std::env::temp_dir().join(format!("kupfer_csvd_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let results = common::run_oracle(&dir, &json!(manifest), script);
    let _ = std::fs::remove_dir_all(&dir);
    for ((d, batch, m, n, kind, a), res) in cases.iter().zip(results.as_array().unwrap()) {
        let (batch, m, n, kind) = (*batch, *m, *n, *kind);
        let label = format!("{d} {batch}x{m}x{n} {kind}");
        let eps = common::eps(*d);
        let k = m.min(n);
        let arr = if kind == "trans" {
            let at: Vec<(f64, f64)> = (0..batch)
                .flat_map(|b| {
                    let x = &a[b * m * n..(b + 1) * m * n];
                    ctrans(x, m, n).into_iter().map(|p| (p.0, -p.1))
                })
                .collect();
            upload(&at, *d, &[batch, n, m]).swapaxes(-1, -2).unwrap()
        } else {
            upload(a, *d, &[batch, m, n])
        };
        let want_s: Vec<f64> = res["s"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        let real = if *d == DType::Complex64 {
            DType::F32
        } else {
            DType::F64
        };
        if res["s_dtype"] != real.to_string() || res["u_dtype"] != name(*d) {
            failures.push(format!("{label}: NumPy's dtypes {res}"));
        }
        let herm = kind == "herm";
        for full in [false, true] {
            let (u, s, vh) = match kp::linalg::svd(&arr, full, herm) {
                Ok(r) => r,
                Err(e) => {
                    failures.push(format!("{label} full={full}: {e}"));
                    continue;
                }
            };
            let (uc, vr) = if full { (m, n) } else { (k, k) };
            if u.shape() != [batch, m, uc]
                || s.shape() != [batch, k]
                || vh.shape() != [batch, vr, n]
                || u.dtype() != *d
                || vh.dtype() != *d
                || s.dtype() != real
            {
                failures.push(format!(
                    "{label} full={full}: shapes {:?} {:?} {:?}, dtypes {} {} {}",
                    u.shape(),
                    s.shape(),
                    vh.shape(),
                    u.dtype(),
                    s.dtype(),
                    vh.dtype()
                ));
                continue;
            }
            let (uh, sh, vhh) = (
                common::host_pairs(&u),
                common::host_pairs(&s),
                common::host_pairs(&vh),
            );
            for b in 0..batch {
                let ub = &uh[b * m * uc..(b + 1) * m * uc];
                let vb = &vhh[b * vr * n..(b + 1) * vr * n];
                let sb = &sh[b * k..(b + 1) * k];
                let ab = &a[b * m * n..(b + 1) * m * n];
                let an = frobenius(ab);
                let smax = want_s[b * k..(b + 1) * k]
                    .iter()
                    .fold(0.0, |x: f64, &y| x.max(y));
                // U[:, :k] diag(s) Vh[:k, :].
                let us: Vec<(f64, f64)> = (0..m * k)
                    .map(|e| {
                        let (i, j) = (e / k, e % k);
                        (ub[i * uc + j].0 * sb[j].0, ub[i * uc + j].1 * sb[j].0)
                    })
                    .collect();
                let usv = matmul(&us, &vb[..k * n], m, k, n);
                let diff: Vec<(f64, f64)> = usv
                    .iter()
                    .zip(ab)
                    .map(|(x, y)| (x.0 - y.0, x.1 - y.1))
                    .collect();
                let recon = frobenius(&diff) / (an.max(f64::MIN_POSITIVE) * m.max(n) as f64 * eps);
                let uu = unitarity(ub, m, uc) / (m as f64 * eps);
                let vv = unitarity(&ctrans(vb, vr, n), n, vr) / (n as f64 * eps);
                if (an > 0.0 && recon > THRESHOLD) || (an == 0.0 && frobenius(&usv) != 0.0) {
                    failures.push(format!("{label}[{b}] full={full}: ||A-USVh|| {recon:.2e}"));
                }
                if uu > THRESHOLD || vv > THRESHOLD {
                    failures.push(format!(
                        "{label}[{b}] full={full}: ||U^HU-I|| {uu:.2e}, ||VhVh^H-I|| {vv:.2e}"
                    ));
                }
                for i in 0..k {
                    let w = want_s[b * k + i];
                    if (sb[i].0 - w).abs() > THRESHOLD * m.max(n) as f64 * eps * smax
                        || sb[i].1 != 0.0
                        || (i > 0 && sb[i].0 > sb[i - 1].0)
                    {
                        failures.push(format!("{label}[{b}]: s[{i}] {:?} against {w}", sb[i]));
                    }
                }
            }
        }
        // compute_uv=False and svdvals: the same values, real.
        let s = if herm {
            kp::linalg::svdvals_hermitian(&arr)
        } else {
            kp::linalg::svdvals(&arr)
        };
        match s {
            Ok(s) if s.shape() == [batch, k] && s.dtype() == real => {
                let sh = common::host_pairs(&s);
                for (i, w) in want_s.iter().enumerate() {
                    let smax = want_s[(i / k.max(1)) * k..(i / k.max(1) + 1) * k]
                        .iter()
                        .fold(0.0, |x: f64, &y| x.max(y));
                    if (sh[i].0 - w).abs() > THRESHOLD * m.max(n) as f64 * eps * smax {
                        failures.push(format!("{label}: svdvals[{i}] {} against {w}", sh[i].0));
                    }
                }
            }
            other => failures.push(format!("{label}: svdvals {other:?}")),
        }
    }
    // Non-finite input is NumPy's LinAlgError.
    let nan = upload(
        &[(f64::NAN, 0.0), (1.0, 1.0), (0.0, 2.0), (1.0, 0.0)],
        DType::Complex64,
        &[2, 2],
    );
    match kp::linalg::svd(&nan, true, false) {
        Err(Error::LinAlg(LinAlgError::NotConverged(_))) => {}
        other => failures.push(format!("nan: {:?}", other.map(|_| ()))),
    }
    common::assert_no_failures(&failures, cases.len() + 1);
}
