//! Factorizations (solve, inv, det, slogdet, cholesky, lu_factor) judged as LAPACK's own
//! tests judge them: scaled residuals computed on the host in float64,
//! `||A x - b|| / (||A|| ||x|| eps n)`, `||A A^-1 - I|| / (||A|| ||A^-1|| eps n)`,
//! `||L L^T - A|| / (||A|| eps n)`, and values against NumPy / SciPy (python3 subprocess, the
//! oracle) for det, slogdet, the Cholesky factor and lu_factor. Both kernel paths are covered
//! (order <= 32: one matrix per workgroup; larger: column steps), with batches, broadcast
//! batches, transposed and strided views, ill-conditioned and singular matrices, and the
//! errors NumPy raises.
//!
//! Needs python3 with NumPy and SciPy and a GPU adapter (lavapipe will do); fails, never
//! skips, without them. Run: `cargo test -p kupfer-suite --test linalg_factor`.

mod common;

use common::eps;
use kp::{Array, DType, Error, LinAlgError};
use kupfer as kp;
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
    common::host_pairs(a)
        .into_iter()
        .map(|(re, _)| re)
        .collect()
}

/// Random values in [-1, 1) (rounded to `dtype`).
fn random(seed: u64, n: usize, dtype: DType) -> Vec<f64> {
    common::values(seed, 0x1a1f, n, dtype, -1.0, 1.0)
}

fn upload(data: &[f64], dtype: DType, shape: &[usize]) -> Array {
    common::upload(data, dtype, shape)
}

/// Row-major `n x m` blocks of a stack.
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

/// `||A X - B|| / (||A|| ||X|| eps n)` (infinity norms), for one system.
fn solve_residual(a: &[f64], x: &[f64], b: &[f64], n: usize, m: usize, e: f64) -> f64 {
    let ax = matmul(a, x, n, n, m);
    let r: Vec<f64> = ax.iter().zip(b).map(|(p, q)| p - q).collect();
    let denom = norm_inf(a, n, n) * norm_inf(x, n, m) * e * n as f64;
    if denom == 0.0 {
        norm_inf(&r, n, m)
    } else {
        norm_inf(&r, n, m) / denom
    }
}

/// A residual under the threshold (NaN is not).
fn small(r: f64) -> bool {
    r < THRESHOLD
}

/// NumPy's broadcast of two batch shapes (valid ones).
fn broadcast(a: &[usize], b: &[usize]) -> Vec<usize> {
    let n = a.len().max(b.len());
    (0..n)
        .map(|i| {
            let x = if i + a.len() >= n {
                a[i + a.len() - n]
            } else {
                1
            };
            let y = if i + b.len() >= n {
                b[i + b.len() - n]
            } else {
                1
            };
            x.max(y)
        })
        .collect()
}

fn is_err(r: kp::Result<Array>, want: LinAlgError) -> bool {
    matches!(r, Err(Error::LinAlg(e)) if e == want)
}

#[test]
fn solve_residuals_are_small_for_every_path_and_batch() {
    device();
    let mut failures = Vec::new();
    let mut total = 0;
    // (a's shape, b's shape)
    let shapes: Vec<(Vec<usize>, Vec<usize>)> = vec![
        (vec![1, 1], vec![1]),
        (vec![3, 3], vec![3]),
        (vec![4, 4], vec![4, 2]),
        (vec![5, 8, 8], vec![5, 8, 3]),
        (vec![2, 1, 32, 32], vec![3, 32, 4]),
        (vec![33, 33], vec![33]),
        (vec![2, 40, 40], vec![40, 5]),
        (vec![70, 70], vec![70, 70]),
        (vec![2, 3, 3], vec![3]),
    ];
    for dtype in dtypes() {
        for (seed, (sa, sb)) in shapes.iter().enumerate() {
            total += 1;
            let na: usize = sa.iter().product();
            let nb: usize = sb.iter().product();
            let a = upload(&random(seed as u64, na, dtype), dtype, sa);
            let b = upload(&random(100 + seed as u64, nb, dtype), dtype, sb);
            let x = match kp::linalg::solve(&a, &b) {
                Ok(x) => x,
                Err(e) => {
                    failures.push(format!("{dtype} {sa:?} {sb:?}: {e}"));
                    continue;
                }
            };
            // The broadcast problem, computed on the host.
            let n = sa[sa.len() - 1];
            let vector = sb.len() == 1;
            let m = if vector { 1 } else { sb[sb.len() - 1] };
            let bb: Vec<usize> = if vector {
                vec![]
            } else {
                sb[..sb.len() - 2].to_vec()
            };
            let batch = broadcast(&sa[..sa.len() - 2], &bb);
            let mut want_shape = batch.clone();
            want_shape.push(n);
            if !vector {
                want_shape.push(m);
            }
            if x.shape() != want_shape.as_slice() || x.dtype() != dtype {
                failures.push(format!(
                    "{dtype} {sa:?} {sb:?}: shape {:?} dtype {}",
                    x.shape(),
                    x.dtype()
                ));
                continue;
            }
            let mut full_a = batch.clone();
            full_a.extend([n, n]);
            let mut full_b = batch.clone();
            full_b.extend([n, m]);
            let bview = if vector {
                b.reshape(&[n as isize, 1]).unwrap()
            } else {
                b.clone()
            };
            let ah = host(&a.broadcast_to(&full_a).unwrap().copy().unwrap());
            let bh = host(&bview.broadcast_to(&full_b).unwrap().copy().unwrap());
            let xh = host(&x);
            let count: usize = batch.iter().product();
            for k in 0..count {
                let r = solve_residual(
                    block(&ah, k, n, n),
                    block(&xh, k, n, m),
                    block(&bh, k, n, m),
                    n,
                    m,
                    eps(dtype),
                );
                if !small(r) {
                    failures.push(format!("{dtype} {sa:?} {sb:?} matrix {k}: residual {r}"));
                    break;
                }
            }
        }
    }
    common::assert_no_failures(&failures, total);
}

#[test]
fn inverse_residuals_are_small_on_views_and_ill_conditioned_matrices() {
    device();
    let mut failures = Vec::new();
    let mut total = 0;
    for dtype in dtypes() {
        for (seed, n, batch) in [(1u64, 2usize, 1usize), (2, 7, 3), (3, 32, 2), (4, 48, 1)] {
            total += 1;
            let data = random(seed, batch * n * n, dtype);
            let base = upload(&data, dtype, &[batch, n, n]);
            // A transposed view: the kernels must read the view, not the buffer.
            let a = base.swapaxes(-1, -2).unwrap();
            let ai = kp::linalg::inv(&a).unwrap();
            let ah = host(&a.copy().unwrap());
            let ih = host(&ai);
            for k in 0..batch {
                let p = matmul(block(&ah, k, n, n), block(&ih, k, n, n), n, n, n);
                let mut r = 0.0f64;
                for i in 0..n {
                    let row: f64 = (0..n)
                        .map(|j| (p[i * n + j] - if i == j { 1.0 } else { 0.0 }).abs())
                        .sum();
                    r = r.max(row);
                }
                let scaled = r
                    / (norm_inf(block(&ah, k, n, n), n, n)
                        * norm_inf(block(&ih, k, n, n), n, n)
                        * eps(dtype)
                        * n as f64);
                if !small(scaled) {
                    failures.push(format!("{dtype} n={n} matrix {k}: residual {scaled}"));
                }
            }
        }
        // Hilbert matrices (condition ~1e10 at n = 8): LU with partial pivoting is backward
        // stable, so the solve residual stays small.
        for n in [8usize, 40] {
            total += 1;
            let h: Vec<f64> = (0..n * n)
                .map(|e| 1.0 / ((e / n + e % n + 1) as f64))
                .collect();
            let a = upload(&h, dtype, &[n, n]);
            let b = upload(&vec![1.0; n], dtype, &[n]);
            let x = host(&kp::linalg::solve(&a, &b).unwrap());
            let r = solve_residual(&host(&a), &x, &vec![1.0; n], n, 1, eps(dtype));
            if !small(r) {
                failures.push(format!("{dtype} hilbert {n}: residual {r}"));
            }
        }
    }
    common::assert_no_failures(&failures, total);
}

/// SPD test matrices `M M^T + n I`.
fn spd(seed: u64, n: usize, batch: usize) -> Vec<f64> {
    let m = random(seed, batch * n * n, DType::F64);
    let mut out = Vec::with_capacity(batch * n * n);
    for k in 0..batch {
        let mk = block(&m, k, n, n);
        for i in 0..n {
            for j in 0..n {
                let s: f64 = (0..n).map(|l| mk[i * n + l] * mk[j * n + l]).sum();
                out.push(s + if i == j { n as f64 } else { 0.0 });
            }
        }
    }
    out
}

const ORACLE: &str = r#"
import json, sys, numpy as np, scipy.linalg as sl
d = sys.argv[1]
cases = json.load(open(d + '/manifest.json'))
res = {}
for c in cases:
    a = np.array(c['data'], dtype=c['dtype']).reshape(c['shape'])
    op = c['op']
    if op == 'det':
        out = np.linalg.det(a.astype(np.float64))
    elif op == 'slogdet':
        s, l = np.linalg.slogdet(a.astype(np.float64))
        out = np.stack([s, l], -1)
    elif op == 'cholesky':
        out = np.linalg.cholesky(a.astype(np.float64), upper=c['upper'])
    elif op == 'lu_factor':
        lu, piv = sl.lu_factor(a.astype(np.float64))
        out = np.concatenate([lu.ravel(), piv.astype(np.float64).ravel()])
    # JSON has no -inf: null stands for it.
    res[c['id']] = [None if np.isneginf(v) else v for v in np.asarray(out, dtype=np.float64).ravel().tolist()]
json.dump(res, open(d + '/results.json', 'w'))
"#;

fn oracle(cases: &[Value]) -> Value {
    let dir = std::env::temp_dir().join(format!("kupfer_linalg_factor_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let results = common::run_oracle(&dir, &json!(cases), ORACLE);
    let _ = std::fs::remove_dir_all(&dir);
    results
}

fn close(got: &[f64], want: &[f64], rtol: f64, atol: f64) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} values, numpy {}", got.len(), want.len()));
    }
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = if w.is_infinite() {
            g == w
        } else {
            (g - w).abs() <= atol + rtol * w.abs()
        };
        if !ok {
            return Err(format!("element {i}: {g} vs numpy {w}"));
        }
    }
    Ok(())
}

#[test]
fn det_slogdet_cholesky_and_lu_factor_match_numpy() {
    device();
    struct Run {
        id: String,
        dtype: DType,
        got: kp::Result<Vec<f64>>,
        rtol: f64,
        atol: f64,
    }
    let mut cases = Vec::new();
    let mut runs = Vec::new();
    for dtype in dtypes() {
        let tol = if dtype == DType::F32 { 2e-3 } else { 1e-9 };
        for (seed, shape) in [
            (1u64, vec![3usize, 3]),
            (2, vec![4, 2, 6, 6]),
            (3, vec![32, 32]),
            (4, vec![2, 50, 50]),
        ] {
            let count: usize = shape.iter().product();
            let n = shape[shape.len() - 1];
            let mut data = random(seed, count, dtype);
            // A singular matrix in the batch: first row zero (det 0, slogdet (0, -inf)).
            if seed == 2 {
                for v in &mut data[..n] {
                    *v = 0.0;
                }
            }
            let a = upload(&data, dtype, &shape);
            let name = dtype.to_string();
            for op in ["det", "slogdet", "lu_factor"] {
                if op == "lu_factor" && seed == 2 {
                    continue;
                }
                let id = format!("{op} {name} {shape:?}");
                cases
                    .push(json!({"id": id, "op": op, "dtype": name, "shape": shape, "data": data}));
                let got = match op {
                    "det" => kp::linalg::det(&a).map(|d| host(&d)),
                    "slogdet" => kp::linalg::slogdet(&a).map(|(s, l)| {
                        let (s, l) = (host(&s), host(&l));
                        s.iter().zip(&l).flat_map(|(a, b)| [*a, *b]).collect()
                    }),
                    _ => kp::linalg::lu_factor(&a).map(|(lu, piv)| {
                        let mut v = host(&lu);
                        v.extend(piv.to_vec::<i32>().unwrap().into_iter().map(f64::from));
                        v
                    }),
                };
                // det values are products: relative error grows with n.
                let rtol = tol * n as f64;
                runs.push(Run {
                    id,
                    dtype,
                    got,
                    rtol,
                    atol: if op == "det" { 0.0 } else { tol * n as f64 },
                });
            }
            let sdata = spd(seed, n, count / (n * n));
            let s = upload(&sdata, dtype, &shape);
            // The upper variant reads the upper triangle: give it a matrix whose lower
            // triangle is garbage to prove it.
            let su = s.swapaxes(-1, -2).unwrap();
            for upper in [false, true] {
                let id = format!("cholesky {name} {shape:?} upper={upper}");
                cases.push(
                    json!({"id": id, "op": "cholesky", "dtype": name, "shape": shape,
                                   "data": sdata, "upper": upper}),
                );
                let src = if upper { &su } else { &s };
                let got = kp::linalg::cholesky(src, upper).map(|l| host(&l));
                runs.push(Run {
                    id,
                    dtype,
                    got,
                    rtol: tol,
                    atol: tol * (n as f64).sqrt(),
                });
            }
        }
    }
    let res = oracle(&cases);
    let mut failures = Vec::new();
    for r in &runs {
        let want: Vec<f64> = res[&r.id]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap_or(f64::NEG_INFINITY))
            .collect();
        match &r.got {
            Err(e) => failures.push(format!("{}: kupfer error {e}", r.id)),
            Ok(g) => {
                if let Err(m) = close(g, &want, r.rtol, r.atol) {
                    failures.push(format!("{} ({}): {m}", r.id, r.dtype));
                }
            }
        }
    }
    common::assert_no_failures(&failures, runs.len());
}

#[test]
fn cholesky_reconstructs_large_batches() {
    device();
    for dtype in dtypes() {
        for (n, batch) in [(4usize, 300usize), (45, 2)] {
            let data = spd(9, n, batch);
            let a = upload(&data, dtype, &[batch, n, n]);
            let l = host(&kp::linalg::cholesky(&a, false).unwrap());
            for k in 0..batch {
                let lk = block(&l, k, n, n);
                let mut lt = vec![0.0; n * n];
                for i in 0..n {
                    for j in 0..n {
                        assert!(j <= i || lk[i * n + j] == 0.0, "not lower triangular");
                        lt[j * n + i] = lk[i * n + j];
                    }
                }
                let p = matmul(lk, &lt, n, n, n);
                let ak = block(&data, k, n, n);
                let d: Vec<f64> = p.iter().zip(ak).map(|(x, y)| x - y).collect();
                let r = norm_inf(&d, n, n) / (norm_inf(ak, n, n) * eps(dtype) * n as f64);
                assert!(r < THRESHOLD, "{dtype} n={n} matrix {k}: residual {r}");
            }
        }
    }
}

#[test]
fn failures_are_numpy_linalg_errors() {
    device();
    for dtype in dtypes() {
        for n in [3usize, 40] {
            // Singular: two equal rows, in the second matrix of a batch.
            let mut data = random(5, 2 * n * n, dtype);
            let (first, second) = data.split_at_mut(n * n);
            let _ = first;
            let row: Vec<f64> = second[..n].to_vec();
            second[n..2 * n].copy_from_slice(&row);
            second[..n].iter_mut().for_each(|v| *v = 0.0);
            second[n..2 * n].iter_mut().for_each(|v| *v = 0.0);
            let a = upload(&data, dtype, &[2, n, n]);
            let b = upload(&vec![1.0; n], dtype, &[n]);
            assert!(
                is_err(kp::linalg::solve(&a, &b), LinAlgError::Singular),
                "{dtype} {n}"
            );
            assert!(
                is_err(kp::linalg::inv(&a), LinAlgError::Singular),
                "{dtype} {n}"
            );
            let neg = upload(&vec![-1.0; n * n], dtype, &[n, n]);
            assert!(is_err(
                kp::linalg::cholesky(&neg, false),
                LinAlgError::NotPositiveDefinite
            ));
        }
        let rect = upload(&random(1, 6, dtype), dtype, &[2, 3]);
        assert!(is_err(kp::linalg::inv(&rect), LinAlgError::NotSquare));
        assert!(is_err(kp::linalg::det(&rect), LinAlgError::NotSquare));
        let vec3 = upload(&random(1, 3, dtype), dtype, &[3]);
        assert!(is_err(
            kp::linalg::inv(&vec3),
            LinAlgError::TooFewDimensions(1)
        ));
        let sq = upload(&random(1, 4, dtype), dtype, &[2, 2]);
        let e = kp::linalg::solve(&sq, &vec3).unwrap_err().to_string();
        assert!(e.contains("mismatch in its core dimension 0"), "{e}");
    }
    let half = upload(&[1.0, 0.0, 0.0, 1.0], DType::F16, &[2, 2]);
    let e = kp::linalg::inv(&half).unwrap_err().to_string();
    assert!(e.contains("float16 is unsupported in linalg"), "{e}");
    assert_eq!(
        Error::LinAlg(LinAlgError::Singular).to_string(),
        "LinAlgError: Singular matrix"
    );
}

#[test]
fn empty_stacks_and_integer_input() {
    device();
    let a = upload(&[], DType::F32, &[0, 3, 3]);
    assert_eq!(kp::linalg::inv(&a).unwrap().shape(), &[0, 3, 3]);
    assert_eq!(kp::linalg::det(&a).unwrap().shape(), &[0]);
    let z = upload(&[], DType::F64, &[2, 0, 0]);
    assert_eq!(host(&kp::linalg::det(&z).unwrap()), vec![1.0, 1.0]);
    let (s, l) = kp::linalg::slogdet(&z).unwrap();
    assert_eq!((host(&s), host(&l)), (vec![1.0, 1.0], vec![0.0, 0.0]));
    // int32 input computes in float32 (kupfer never widens 32-bit types).
    let i = upload(&[2.0, 0.0, 0.0, 4.0], DType::I32, &[2, 2]);
    let inv = kp::linalg::inv(&i).unwrap();
    assert_eq!(inv.dtype(), DType::F32);
    assert_eq!(host(&inv), vec![0.5, 0.0, 0.0, 0.25]);
}

#[test]
fn triangular_solves_have_small_residuals() {
    device();
    let mut failures = Vec::new();
    let mut total = 0;
    for dtype in dtypes() {
        for n in [5usize, 70] {
            for (lower, trans, unit) in [
                (false, 0u8, false),
                (true, 0, false),
                (false, 1, false),
                (true, 2, true),
                (false, 0, true),
            ] {
                total += 1;
                let (batch, m) = (2usize, 3usize);
                let mut data = random(n as u64, batch * n * n, dtype);
                for k in 0..batch {
                    for i in 0..n {
                        data[k * n * n + i * n + i] = n as f64;
                    }
                }
                let a = upload(&data, dtype, &[batch, n, n]);
                let bd = random(50 + n as u64, n * m, dtype);
                // b broadcasts over a's batch.
                let b = upload(&bd, dtype, &[n, m]);
                let x = match kp::linalg::solve_triangular(&a, &b, trans, lower, unit) {
                    Ok(x) => host(&x),
                    Err(e) => {
                        failures.push(format!("{dtype} n={n} {lower} {trans} {unit}: {e}"));
                        continue;
                    }
                };
                for k in 0..batch {
                    let ak = block(&data, k, n, n);
                    // op(T) on the host: the triangle read, unit diagonal, transposed.
                    let mut t = vec![0.0; n * n];
                    for i in 0..n {
                        for j in 0..n {
                            let keep = if lower { j <= i } else { j >= i };
                            let v = if i == j && unit {
                                1.0
                            } else if keep {
                                ak[i * n + j]
                            } else {
                                0.0
                            };
                            if trans == 0 {
                                t[i * n + j] = v;
                            } else {
                                t[j * n + i] = v;
                            }
                        }
                    }
                    let r = solve_residual(&t, block(&x, k, n, m), &bd, n, m, eps(dtype));
                    if !small(r) {
                        failures.push(format!(
                            "{dtype} n={n} lower={lower} trans={trans} unit={unit}: {r}"
                        ));
                    }
                }
            }
        }
        let z = upload(&[2.0, 0.0, 1.0, 0.0], dtype, &[2, 2]);
        let b = upload(&[1.0, 1.0], dtype, &[2]);
        total += 1;
        match kp::linalg::solve_triangular(&z, &b, 0, true, false) {
            Err(e) => {
                if e.to_string() != "LinAlgError: singular matrix: resolution failed at diagonal 1"
                {
                    failures.push(format!("singular: {e}"));
                }
            }
            Ok(_) => failures.push("a zero diagonal solved".into()),
        }
    }
    common::assert_no_failures(&failures, total);
}

/// Batches of very small matrices on every kernel: one thread per matrix row (the default,
/// `rows_from = 1`), one matrix per thread in registers (`KUPFER_LINALG_ROWS=old`, orders up
/// to `thread_max`, the default 8) and one matrix per workgroup (`thread_max = 0`,
/// `KUPFER_LINALG_THREAD_MAX=old`), its pivots found by a tree or by one thread's loop
/// (`KUPFER_LINALG_PIVOT=serial`). Every order 1 to 9 (9 is past the per-thread kernel) and,
/// per row, orders up to 32 and 33 (the blocked path), batches that leave the last
/// workgroup partial,
/// vector and matrix right-hand sides (65 columns go to the workgroup kernel), a
/// broadcast right-hand side, a transposed view, and one singular matrix (an exactly
/// zero row) at various places in a batch: NumPy's "Singular matrix" whichever it is.
#[test]
fn small_batches_per_thread_and_per_workgroup() {
    let dev = device();
    let mut failures = Vec::new();
    let mut total = 0;
    let old = u32::MAX;
    for (rows_from, thread_max, tree) in [
        (1, 8u32, false),
        (old, 8, true),
        (old, 0, true),
        (old, 0, false),
    ] {
        let mut config = dev.config().clone();
        config.linalg.rows_from = rows_from;
        config.linalg.thread_max = thread_max;
        config.linalg.pivot_tree = tree;
        let configured = dev.with_config(config);
        let _guard = configured.use_device();
        let orders: Vec<usize> = if rows_from == 1 {
            (1..=9).chain([12, 16, 17, 31, 32, 33]).collect()
        } else {
            (1..=9).collect()
        };
        for dtype in dtypes() {
            for n in orders.iter().copied() {
                let batch = if n > 16 { 37 } else { 130 };
                let m = if n == 4 { 65 } else { 1 + n % 3 };
                let label = format!(
                    "rows_from {rows_from} thread_max {thread_max} tree {tree} {dtype} n={n}"
                );
                total += 1;
                let seed = 900 + n as u64;
                let data = random(seed, batch * n * n, dtype);
                let base = upload(&data, dtype, &[batch, n, n]);
                // Odd orders read a transposed view (the kernels must read the view).
                let a = if n % 2 == 1 {
                    base.swapaxes(-1, -2).unwrap()
                } else {
                    base
                };
                let ah = host(&a.copy().unwrap());
                let bdata = random(seed + 50, batch * n * m, dtype);
                let b = upload(&bdata, dtype, &[batch, n, m]);
                let vector = upload(&bdata[..n], dtype, &[n]);
                let checks = [
                    (kp::linalg::solve(&a, &b), m, bdata.clone(), "solve"),
                    (
                        kp::linalg::solve(&a, &vector),
                        1,
                        (0..batch).flat_map(|_| bdata[..n].to_vec()).collect(),
                        "solve vector",
                    ),
                ];
                for (x, m, bh, what) in checks {
                    let x = match x {
                        Ok(x) => host(&x),
                        Err(e) => {
                            failures.push(format!("{label} {what}: {e}"));
                            continue;
                        }
                    };
                    for k in 0..batch {
                        let r = solve_residual(
                            block(&ah, k, n, n),
                            block(&x, k, n, m),
                            block(&bh, k, n, m),
                            n,
                            m,
                            eps(dtype),
                        );
                        if !small(r) {
                            failures.push(format!("{label} {what} matrix {k}: residual {r}"));
                            break;
                        }
                    }
                }
                match kp::linalg::inv(&a) {
                    Ok(ai) => {
                        let ih = host(&ai);
                        for k in 0..batch {
                            let identity: Vec<f64> = (0..n * n)
                                .map(|e| if e / n == e % n { 1.0 } else { 0.0 })
                                .collect();
                            let r = solve_residual(
                                block(&ah, k, n, n),
                                block(&ih, k, n, n),
                                &identity,
                                n,
                                n,
                                eps(dtype),
                            );
                            if !small(r) {
                                failures.push(format!("{label} inv matrix {k}: residual {r}"));
                                break;
                            }
                        }
                    }
                    Err(e) => failures.push(format!("{label} inv: {e}")),
                }
                // One singular matrix in the batch: first, inside, last.
                for at in [0, batch / 2 + 1, batch - 1] {
                    total += 1;
                    let mut sing = data.clone();
                    sing[at * n * n..at * n * n + n]
                        .iter_mut()
                        .for_each(|v| *v = 0.0);
                    let s = upload(&sing, dtype, &[batch, n, n]);
                    if !is_err(kp::linalg::solve(&s, &b), LinAlgError::Singular)
                        || !is_err(kp::linalg::inv(&s), LinAlgError::Singular)
                    {
                        failures.push(format!("{label}: singular matrix {at} not reported"));
                    }
                }
            }
        }
    }
    common::assert_no_failures(&failures, total);
}

/// LU's pivots with ties (entries in {-1, 0, 1}, orders up to 32), NaN and infinite values:
/// the workgroup kernel's pivot tree picks the rows its one-thread loop picks (LAPACK's
/// idamax: the first of the largest |value|, NaN skipped, the diagonal kept when it is NaN
/// or infinite), so `lu_factor`'s pivots and factors are the same either way.
#[test]
fn pivot_tree_picks_the_loops_pivots() {
    let dev = device();
    let mut failures = Vec::new();
    let mut total = 0;
    for n in [5usize, 17, 32] {
        for dtype in dtypes() {
            total += 1;
            let batch = 40;
            let mut data: Vec<f64> = random(70 + n as u64, batch * n * n, dtype)
                .into_iter()
                .map(|v| (v * 1.5).round())
                .collect();
            // NaN below the diagonal, on it, and infinities below and on it.
            data[n * n + n] = f64::NAN;
            data[2 * n * n] = f64::NAN;
            data[3 * n * n + 2 * n] = f64::INFINITY;
            data[4 * n * n] = f64::NEG_INFINITY;
            data[4 * n * n + n] = f64::INFINITY;
            let mut results = Vec::new();
            for tree in [true, false] {
                let mut config = dev.config().clone();
                config.linalg.thread_max = 0;
                config.linalg.pivot_tree = tree;
                let configured = dev.with_config(config);
                let _guard = configured.use_device();
                let a = upload(&data, dtype, &[batch, n, n]);
                let (lu, piv) = kp::linalg::lu_factor(&a).unwrap();
                let piv: Vec<i64> = piv.astype(DType::I64).unwrap().to_vec().unwrap();
                results.push((host(&lu), piv));
            }
            let (t, s) = (&results[0], &results[1]);
            let first_piv = t.1.iter().zip(&s.1).position(|(x, y)| x != y);
            let first_lu =
                t.0.iter()
                    .zip(&s.0)
                    .position(|(x, y)| !(x == y || (x.is_nan() && y.is_nan())));
            if first_piv.is_some() || first_lu.is_some() {
                failures.push(format!(
                    "{dtype} n={n}: the tree's pivots (first difference at {first_piv:?}) or \
                     factors ({first_lu:?}) differ from the loop's"
                ));
            }
        }
    }
    common::assert_no_failures(&failures, total);
}

/// The one-thread-per-row kernel against the one-matrix-per-workgroup kernel, matrix by
/// matrix (each a view into its stack), on pivot ties (entries in {-1, 0, 1}, many of them
/// singular), NaN and infinite values: the same matrices are NumPy's "Singular matrix"
/// (an exactly zero pivot, NaN is not zero), the same results hold a NaN or infinity, and the
/// finite ones have small residuals.
#[test]
fn row_kernel_agrees_with_the_workgroup_kernel_on_ties_nan_and_inf() {
    let dev = device();
    let mut failures = Vec::new();
    let mut total = 0;
    let old = u32::MAX;
    for n in [3usize, 8, 17, 32] {
        for dtype in dtypes() {
            let batch = 24;
            let mut data: Vec<f64> = random(170 + n as u64, batch * n * n, dtype)
                .into_iter()
                .map(|v| (v * 1.5).round())
                .collect();
            // Diagonally dominant matrices among the ties, then NaN below the diagonal, on
            // it, and infinities below and on it.
            for k in (6..batch).step_by(3) {
                for i in 0..n {
                    data[k * n * n + i * n + i] += n as f64;
                }
            }
            data[n * n + n] = f64::NAN;
            data[2 * n * n] = f64::NAN;
            data[3 * n * n + 2 * n] = f64::INFINITY;
            data[4 * n * n] = f64::NEG_INFINITY;
            data[4 * n * n + n] = f64::INFINITY;
            let stack = upload(&data, dtype, &[batch, n, n]);
            let rhs = random(171 + n as u64, batch * n, dtype);
            let b = upload(&rhs, dtype, &[batch, n, 1]);
            for k in 0..batch {
                total += 1;
                let a = stack.slice(&[kp::SliceArg::Index(k as isize)]).unwrap();
                let bk = b.slice(&[kp::SliceArg::Index(k as isize)]).unwrap();
                let mut got = Vec::new();
                for rows_from in [1, old] {
                    let mut config = dev.config().clone();
                    config.linalg.rows_from = rows_from;
                    config.linalg.thread_max = 0;
                    let configured = dev.with_config(config);
                    let _guard = configured.use_device();
                    let results = [kp::linalg::solve(&a, &bk), kp::linalg::inv(&a)];
                    got.push(results.map(|r| match r {
                        Ok(x) => Ok(host(&x)),
                        Err(Error::LinAlg(LinAlgError::Singular)) => Err(()),
                        Err(e) => panic!("{dtype} n={n} matrix {k}: {e}"),
                    }));
                }
                let ah = block(&data, k, n, n);
                let identity: Vec<f64> = (0..n * n)
                    .map(|e| if e / n == e % n { 1.0 } else { 0.0 })
                    .collect();
                for (w, what) in ["solve", "inv"].iter().enumerate() {
                    let label = format!("{dtype} n={n} matrix {k} {what}");
                    let (rows, wg) = (&got[0][w], &got[1][w]);
                    match (rows, wg) {
                        (Err(()), Err(())) => {}
                        (Ok(x), Ok(y)) => {
                            let fin_x = x.iter().all(|v| v.is_finite());
                            let fin_y = y.iter().all(|v| v.is_finite());
                            let (m, want) = if w == 0 {
                                (1, &rhs[k * n..(k + 1) * n])
                            } else {
                                (n, &identity[..])
                            };
                            if fin_x != fin_y {
                                failures.push(format!(
                                    "{label}: finite {fin_x} per row, {fin_y} per workgroup"
                                ));
                            } else if fin_x && ah.iter().all(|v| v.is_finite()) {
                                let r = solve_residual(ah, x, want, n, m, eps(dtype));
                                if !small(r) {
                                    failures.push(format!("{label}: residual {r}"));
                                }
                            }
                        }
                        _ => failures.push(format!(
                            "{label}: singular {} per row, {} per workgroup",
                            rows.is_err(),
                            wg.is_err()
                        )),
                    }
                }
            }
        }
    }
    common::assert_no_failures(&failures, total);
}
