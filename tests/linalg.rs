//! Linear algebra (dot, vdot, inner, outer, tensordot, kron, einsum, linalg.norm, trace,
//! diag, diagonal) against NumPy.
//!
//! Every case draws random inputs (fixed seeds), uploads them, builds views with kupfer's view
//! API and runs the kupfer function; NumPy (python3 subprocess, the oracle) gets the same
//! bytes and a Python expression for the same views and function. NumPy evaluates it twice:
//! on the inputs as they are (for the result's shape and dtype, or its error) and on the
//! inputs widened to 64 bits (the reference values). Float products are compared with a
//! tolerance relative to the same expression over |inputs| (the magnitude of the sum, so
//! cancellation is allowed for); integer and bool results must match exactly. Result dtypes
//! are NumPy's, except that 64-bit results from 32-bit inputs are 32-bit (kupfer never
//! widens implicitly). Where NumPy raises, kupfer must return an error (never panic).
//!
//! Needs python3 with NumPy and a GPU adapter (lavapipe will do); fails, never skips,
//! without them. Run: `cargo test -p kupfer-suite --test linalg`.

mod common;

use common::eps;

use kp::{s, Array, DType};
use kupfer as kp;
use kupfer::linalg::{norm, NormOrd};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// How kupfer computes a case from its uploaded inputs.
type RunFn = Box<dyn Fn(&[Array]) -> kp::Result<Array>>;

struct Input {
    dtype: DType,
    shape: Vec<usize>,
    /// Values (complex: re, im pairs).
    data: Vec<f64>,
}

struct Case {
    id: String,
    inputs: Vec<Input>,
    /// NumPy expression over `a`, `b`, `c` (the uploaded inputs); `np` is numpy.
    expr: String,
    /// Length of the longest sum behind one result element (for the tolerance).
    k: usize,
    run: RunFn,
}

fn input(seed: u64, dtype: DType, shape: &[usize]) -> Input {
    let n: usize = shape.iter().product();
    let data = match dtype {
        DType::Complex64 => common::values(seed, 0x11aa, 2 * n, DType::F32, -1.0, 1.0),
        DType::Complex128 => common::values(seed, 0x11aa, 2 * n, DType::F64, -1.0, 1.0),
        DType::Bool => common::values(seed, 0x11aa, n, dtype, 0.0, 1.0),
        d if d.is_int() => common::values(seed, 0x11aa, n, dtype, -9.0, 9.0),
        d => common::values(seed, 0x11aa, n, d, -1.0, 1.0),
    };
    Input {
        dtype,
        shape: shape.to_vec(),
        data,
    }
}

fn upload(i: &Input) -> Array {
    if i.dtype == DType::Complex64 {
        let v: Vec<kp::Complex32> = i
            .data
            .chunks(2)
            .map(|c| kp::Complex32::new(c[0] as f32, c[1] as f32))
            .collect();
        return Array::from_slice(&v, &i.shape).expect("upload");
    }
    if i.dtype == DType::Complex128 {
        let v: Vec<kp::Complex64> = i
            .data
            .chunks(2)
            .map(|c| kp::Complex64::new(c[0], c[1]))
            .collect();
        return Array::from_slice(&v, &i.shape).expect("upload");
    }
    common::upload(&i.data, i.dtype, &i.shape)
}

fn bytes(i: &Input) -> Vec<u8> {
    if i.dtype == DType::Complex64 {
        return i
            .data
            .iter()
            .flat_map(|&v| (v as f32).to_le_bytes())
            .collect();
    }
    common::raw_bytes(&i.data, i.dtype)
}

const ORACLE: &str = r#"
import json, sys, warnings, numpy as np
d = sys.argv[1]
cases = json.load(open(d + "/manifest.json"))
out = {}
def wide(x):
    if x.dtype == np.bool_: return x
    if x.dtype.kind == "c": return x.astype(np.complex128)
    if x.dtype.kind == "f": return x.astype(np.float64)
    return x.astype(np.int64)
for c in cases:
    ins = []
    for k, i in enumerate(c["inputs"]):
        dt = i["dtype"]
        raw = np.fromfile(d + "/%s.%d.in" % (c["id"], k), dtype=np.uint8 if dt == "bool" else dt)
        ins.append((raw.astype(bool) if dt == "bool" else raw).reshape(i["shape"]))
    names = "abc"
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = np.asarray(eval(c["expr"], {"np": np, **dict(zip(names, ins))}))
            w = np.asarray(eval(c["expr"], {"np": np, **dict(zip(names, map(wide, ins)))}))
            s = np.asarray(eval(c["expr"], {"np": np, **dict(zip(names, [np.abs(wide(x)) if x.dtype != np.bool_ else x for x in ins]))}))
        except Exception as e:
            out[c["id"]] = {"error": type(e).__name__ + ": " + str(e)}
            continue
    cplx = w.dtype.kind == "c"
    np.ascontiguousarray(w, dtype=np.complex128 if cplx else np.float64).tofile(d + "/" + c["id"] + ".out")
    np.ascontiguousarray(np.abs(s), dtype=np.float64).tofile(d + "/" + c["id"] + ".scale")
    out[c["id"]] = {"shape": list(r.shape), "dtype": str(r.dtype), "complex": bool(cplx)}
json.dump(out, open(d + "/results.json", "w"))
"#;

fn run_oracle(dir: &Path, cases: &[Case]) -> Value {
    std::fs::create_dir_all(dir).unwrap();
    let mut manifest = Vec::new();
    for c in cases {
        for (k, i) in c.inputs.iter().enumerate() {
            std::fs::write(dir.join(format!("{}.{k}.in", c.id)), bytes(i)).unwrap();
        }
        let ins: Vec<Value> = c
            .inputs
            .iter()
            .map(|i| json!({"dtype": i.dtype.name(), "shape": i.shape}))
            .collect();
        manifest.push(json!({"id": c.id, "inputs": ins, "expr": c.expr}));
    }
    common::run_oracle(dir, &serde_json::Value::from(manifest), ORACLE)
}

/// kupfer's dtype for NumPy's result `name` (64-bit only when an input is 64-bit).
fn want_dtype(name: &str, inputs: &[Input]) -> DType {
    let wide = inputs.iter().any(|i| i.dtype.is_64bit());
    match (name, wide) {
        ("complex128", false) => DType::Complex64,
        ("int64", false) => DType::I32,
        ("float64", false) => DType::F32,
        (n, _) => DType::from_name(n).expect("a kupfer dtype"),
    }
}

/// Result values as (re, im) pairs.
fn values_of(a: &Array) -> Result<Vec<(f64, f64)>, String> {
    let h = a.to_host().map_err(|e| format!("read-back: {e}"))?;
    Ok(match &h.data {
        kp::HostData::Complex64(v) => v.iter().map(|c| (c.re.into(), c.im.into())).collect(),
        kp::HostData::Complex128(v) => v.iter().map(|c| (c.re, c.im)).collect(),
        d => (0..h.shape.iter().product())
            .map(|i| (d.get_f64(i), 0.0))
            .collect(),
    })
}

fn compare(case: &Case, got: &Array, dir: &Path, res: &Value) -> Result<(), String> {
    if let Some(e) = res.get("error") {
        return Err(format!("numpy raised {e} but kupfer returned a result"));
    }
    let want_shape: Vec<usize> = serde_json::from_value(res["shape"].clone()).unwrap();
    if got.shape() != want_shape.as_slice() {
        return Err(format!("shape {:?}, numpy {:?}", got.shape(), want_shape));
    }
    let want = want_dtype(res["dtype"].as_str().unwrap(), &case.inputs);
    if got.dtype() != want {
        return Err(format!("dtype {}, expected {want}", got.dtype()));
    }
    let g = values_of(got)?;
    let raw = common::read_f64(&dir.join(format!("{}.out", case.id)));
    let w: Vec<(f64, f64)> = if res["complex"].as_bool().unwrap() {
        raw.chunks(2).map(|c| (c[0], c[1])).collect()
    } else {
        raw.iter().map(|&v| (v, 0.0)).collect()
    };
    let scale = common::read_f64(&dir.join(format!("{}.scale", case.id)));
    // Accumulation in float32 (float16 inputs too), or the input precision.
    let acc = case
        .inputs
        .iter()
        .map(|i| {
            if i.dtype == DType::F16 {
                DType::F32
            } else {
                i.dtype
            }
        })
        .max_by(|x, y| eps(*x).total_cmp(&eps(*y)))
        .unwrap();
    let acc = if want.is_float() || want.is_complex() {
        acc
    } else {
        want
    };
    let (ea, eo) = (eps(acc), eps(want));
    for (i, (&(gr, gi), &(wr, wi))) in g.iter().zip(&w).enumerate() {
        let mag = (wr * wr + wi * wi).sqrt();
        let tol = (ea * (32.0 + case.k as f64) + 2.0 * eo) * scale[i] + eo * mag;
        let close = |x: f64, y: f64| x == y || (x.is_nan() && y.is_nan()) || (x - y).abs() <= tol;
        if !close(gr, wr) || !close(gi, wi) {
            return Err(format!(
                "element {i}: kupfer ({gr}, {gi}), numpy ({wr}, {wi}) (tol {tol:e})"
            ));
        }
    }
    Ok(())
}

fn run_cases(name: &str, cases: Vec<Case>) {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("linalg-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let t0 = std::time::Instant::now();
    let results = run_oracle(&dir, &cases);
    let t1 = std::time::Instant::now();
    let mut failures = Vec::new();
    for c in &cases {
        let arrays: Vec<Array> = c.inputs.iter().map(upload).collect();
        let res = &results[&c.id];
        let run = || (c.run)(&arrays);
        if let Err(e) = common::judge(res, run, |got| compare(c, got, &dir, res)) {
            failures.push(format!("{} [{}]: {e}", c.id, c.expr));
        }
    }
    common::assert_no_failures(&failures, cases.len());
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "{name}: {} cases passed (numpy {:.1} s, kupfer {:.1} s)",
        cases.len(),
        (t1 - t0).as_secs_f64(),
        t1.elapsed().as_secs_f64()
    );
}

fn device() -> kp::Device {
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        std::env::set_var("XDG_RUNTIME_DIR", "/tmp");
    }
    kp::Device::default_device().expect("a GPU adapter (lavapipe will do)")
}

/// The dtypes every function is tested in: float32, float16, int32, complex64, and float64
/// and complex128 where the adapter has them.
fn test_dtypes(dev: &kp::Device) -> Vec<DType> {
    [
        DType::F32,
        DType::F16,
        DType::I32,
        DType::Complex64,
        DType::F64,
        DType::Complex128,
    ]
    .into_iter()
    .filter(|&d| dev.supports(d))
    .collect()
}

/// Builds cases with distinct ids and seeds.
struct Cases {
    v: Vec<Case>,
    seed: u64,
}

impl Cases {
    fn add(
        &mut self,
        ins: &[(DType, &[usize])],
        expr: &str,
        k: usize,
        run: impl Fn(&[Array]) -> kp::Result<Array> + 'static,
    ) {
        let inputs = ins
            .iter()
            .map(|(d, s)| {
                self.seed += 1;
                input(self.seed, *d, s)
            })
            .collect();
        self.v.push(Case {
            id: format!("c{}", self.v.len()),
            inputs,
            expr: expr.to_string(),
            k,
            run: Box::new(run),
        });
    }
}

// ------------------------------------------------------------------------------------------
// the cases

#[test]
fn products_match_numpy() {
    let dev = device();
    let mut c = Cases {
        v: Vec::new(),
        seed: 100,
    };
    for d in test_dtypes(&dev) {
        let x: &[usize] = &[];
        c.add(&[(d, &[3, 4]), (d, &[4, 5])], "np.dot(a, b)", 4, |x| {
            kp::dot(&x[0], &x[1])
        });
        c.add(&[(d, &[7]), (d, &[7])], "np.dot(a, b)", 7, |x| {
            kp::dot(&x[0], &x[1])
        });
        c.add(&[(d, &[3, 5]), (d, &[5])], "np.dot(a, b)", 5, |x| {
            kp::dot(&x[0], &x[1])
        });
        c.add(&[(d, &[5]), (d, &[2, 5, 3])], "np.dot(a, b)", 5, |x| {
            kp::dot(&x[0], &x[1])
        });
        c.add(
            &[(d, &[2, 3, 4]), (d, &[5, 4, 2])],
            "np.dot(a, b)",
            4,
            |x| kp::dot(&x[0], &x[1]),
        );
        c.add(&[(d, x), (d, &[2, 3])], "np.dot(a, b)", 1, |x| {
            kp::dot(&x[0], &x[1])
        });
        c.add(&[(d, &[4, 3]), (d, &[4, 6])], "np.dot(a.T, b)", 4, |x| {
            kp::dot(&x[0].t()?, &x[1])
        });
        c.add(
            &[(d, &[6, 5]), (d, &[5, 8])],
            "np.dot(a[::-1, 1:], b[1:, ::-2])",
            4,
            |x| kp::dot(&x[0].slice(&s![..;-1, 1..])?, &x[1].slice(&s![1.., ..;-2])?),
        );
        c.add(&[(d, &[0, 3]), (d, &[3, 4])], "np.dot(a, b)", 3, |x| {
            kp::dot(&x[0], &x[1])
        });
        c.add(&[(d, &[2, 0]), (d, &[0, 3])], "np.dot(a, b)", 1, |x| {
            kp::dot(&x[0], &x[1])
        });
        c.add(&[(d, &[2, 3]), (d, &[4, 5])], "np.dot(a, b)", 1, |x| {
            kp::dot(&x[0], &x[1])
        });
        c.add(&[(d, &[1, 1]), (d, &[1, 1])], "a.dot(b)", 1, |x| {
            x[0].dot(&x[1])
        });
        c.add(&[(d, &[2, 3]), (d, &[6])], "np.vdot(a, b)", 6, |x| {
            kp::vdot(&x[0], &x[1])
        });
        c.add(&[(d, &[3, 2]), (d, &[6])], "np.vdot(a.T, b)", 6, |x| {
            kp::vdot(&x[0].t()?, &x[1])
        });
        c.add(&[(d, &[5]), (d, &[6])], "np.vdot(a, b)", 6, |x| {
            kp::vdot(&x[0], &x[1])
        });
        c.add(&[(d, &[2, 3]), (d, &[4, 3])], "np.inner(a, b)", 3, |x| {
            kp::inner(&x[0], &x[1])
        });
        c.add(&[(d, &[5]), (d, &[5])], "np.inner(a, b)", 5, |x| {
            kp::inner(&x[0], &x[1])
        });
        c.add(&[(d, &[2, 3]), (d, x)], "np.inner(a, b)", 1, |x| {
            kp::inner(&x[0], &x[1])
        });
        c.add(&[(d, &[2, 3]), (d, &[3, 2])], "np.inner(a, b)", 1, |x| {
            kp::inner(&x[0], &x[1])
        });
        c.add(&[(d, &[3]), (d, &[2, 2])], "np.outer(a, b)", 1, |x| {
            kp::outer(&x[0], &x[1])
        });
        c.add(
            &[(d, &[3, 4, 5]), (d, &[4, 5, 2])],
            "np.tensordot(a, b)",
            20,
            |x| kp::tensordot(&x[0], &x[1], 2),
        );
        c.add(
            &[(d, &[3, 4, 5]), (d, &[4, 3, 2])],
            "np.tensordot(a, b, axes=([1, 0], [0, 1]))",
            12,
            |x| kp::tensordot(&x[0], &x[1], (vec![1, 0], vec![0, 1])),
        );
        c.add(
            &[(d, &[2, 3]), (d, &[4])],
            "np.tensordot(a, b, axes=0)",
            1,
            |x| kp::tensordot(&x[0], &x[1], 0),
        );
        c.add(
            &[(d, &[3, 4]), (d, &[5, 3])],
            "np.tensordot(a, b, axes=([0], [1]))",
            3,
            |x| kp::tensordot(&x[0], &x[1], (vec![0], vec![-1])),
        );
        c.add(
            &[(d, &[3, 4]), (d, &[3, 4])],
            "np.tensordot(a, b, axes=([0], [1]))",
            1,
            |x| kp::tensordot(&x[0], &x[1], (vec![0], vec![1])),
        );
        c.add(&[(d, &[2, 3]), (d, &[2, 2])], "np.kron(a, b)", 1, |x| {
            kp::kron(&x[0], &x[1])
        });
        c.add(&[(d, &[3]), (d, &[2, 2])], "np.kron(a, b)", 1, |x| {
            kp::kron(&x[0], &x[1])
        });
        c.add(&[(d, &[2, 2, 2]), (d, &[3])], "np.kron(a.T, b)", 1, |x| {
            kp::kron(&x[0].t()?, &x[1])
        });
    }
    // Mixed dtypes promote; bool products are OR of ANDs.
    c.add(
        &[(DType::F32, &[3, 4]), (DType::I32, &[4, 2])],
        "np.dot(a, b)",
        4,
        |x| kp::dot(&x[0], &x[1]),
    );
    c.add(
        &[(DType::F16, &[3, 4]), (DType::F32, &[4, 2])],
        "np.dot(a, b)",
        4,
        |x| kp::dot(&x[0], &x[1]),
    );
    c.add(
        &[(DType::Bool, &[3, 4]), (DType::Bool, &[4, 2])],
        "np.dot(a, b)",
        4,
        |x| kp::dot(&x[0], &x[1]),
    );
    c.add(
        &[(DType::Bool, &[4]), (DType::Bool, &[4])],
        "np.vdot(a, b)",
        4,
        |x| kp::vdot(&x[0], &x[1]),
    );
    c.add(
        &[(DType::Complex64, &[4]), (DType::F32, &[4])],
        "np.vdot(a, b)",
        4,
        |x| kp::vdot(&x[0], &x[1]),
    );
    c.add(
        &[(DType::Bool, &[3]), (DType::Bool, &[2])],
        "np.outer(a, b)",
        1,
        |x| kp::outer(&x[0], &x[1]),
    );
    for d in test_dtypes(&device()) {
        c.add(&[(d, &[3, 4]), (d, &[4])], "np.vecdot(a, b)", 4, |x| {
            kp::linalg::vecdot(&x[0], &x[1], -1)
        });
        c.add(
            &[(d, &[2, 1, 5]), (d, &[3, 5])],
            "np.vecdot(a, b)",
            5,
            |x| kp::linalg::vecdot(&x[0], &x[1], -1),
        );
        c.add(
            &[(d, &[5, 3]), (d, &[5, 1])],
            "np.vecdot(a, b, axis=0)",
            5,
            |x| kp::linalg::vecdot(&x[0], &x[1], 0),
        );
        c.add(&[(d, &[3, 4]), (d, &[3])], "np.vecdot(a, b)", 1, |x| {
            kp::linalg::vecdot(&x[0], &x[1], -1)
        });
    }
    // Prime and larger shapes, batched products through dot's N-d rule.
    c.add(
        &[(DType::F32, &[31, 37]), (DType::F32, &[37, 41])],
        "np.dot(a, b)",
        37,
        |x| kp::dot(&x[0], &x[1]),
    );
    c.add(
        &[(DType::I32, &[4, 13, 7]), (DType::I32, &[3, 7, 5])],
        "np.dot(a, b)",
        7,
        |x| kp::dot(&x[0], &x[1]),
    );
    c.add(
        &[(DType::F32, &[1, 1]), (DType::F32, &[1])],
        "np.dot(a, b)",
        1,
        |x| kp::dot(&x[0], &x[1]),
    );
    // Longer sums (tolerance relative to the sum of |terms|).
    c.add(
        &[(DType::F32, &[33, 257]), (DType::F32, &[257, 17])],
        "np.dot(a, b)",
        257,
        |x| kp::dot(&x[0], &x[1]),
    );
    run_cases("products", c.v);
}

#[test]
fn einsum_matches_numpy() {
    let dev = device();
    let mut c = Cases {
        v: Vec::new(),
        seed: 200,
    };
    let e = |s: &'static str| move |x: &[Array]| kp::einsum(s, &x.iter().collect::<Vec<_>>());
    let np = |s: &str, n: usize| {
        let names = ["a", "b", "c"];
        format!("np.einsum('{s}', {})", names[..n].join(", "))
    };
    for d in test_dtypes(&dev) {
        let two: &[(&str, &[usize], &[usize])] = &[
            ("ij,jk->ik", &[3, 4], &[4, 5]),
            ("ij,jk", &[3, 4], &[4, 5]),
            ("bij,bjk->bik", &[2, 3, 4], &[2, 4, 5]),
            ("i,i", &[7], &[7]),
            ("i,j->ij", &[3], &[4]),
            ("ij,ij->ij", &[3, 4], &[3, 4]),
            ("ij,ij->ij", &[1, 4], &[3, 4]),
            ("ij,ij->", &[3, 4], &[3, 4]),
            ("ijk,jil->kl", &[3, 4, 2], &[4, 3, 5]),
            ("...ij,...jk", &[5, 1, 2, 3], &[4, 3, 2]),
            ("ij,kj->ik", &[3, 4], &[5, 4]),
            ("ij,j->i", &[3, 4], &[4]),
            ("bij,bkj->bki", &[2, 3, 4], &[1, 5, 4]),
            ("ij,jk->ik", &[0, 4], &[4, 5]),
            ("ij,jk->ik", &[3, 0], &[0, 5]),
            ("ij,jk->ik", &[3, 4], &[5, 2]),
            ("ij,jk->ki", &[2, 3], &[3, 2]),
            ("ik,kj->", &[2, 3], &[3, 2]),
            ("i,i->i", &[1], &[4]),
        ];
        for (s, sa, sb) in two {
            c.add(&[(d, sa), (d, sb)], &np(s, 2), sa.iter().product(), e(s));
        }
        let one: &[(&str, &[usize])] = &[
            ("ii", &[4, 4]),
            ("ii->i", &[4, 4]),
            ("ij->ji", &[3, 4]),
            ("ij->", &[3, 4]),
            ("ij->j", &[3, 4]),
            ("bA", &[3, 4]),
            ("i...->...", &[5, 2, 3]),
            ("...", &[2, 3]),
            ("iij->ji", &[3, 3, 2]),
            ("ii", &[3, 4]),
            ("ij->k", &[3, 4]),
            ("i,j", &[3]),
            ("ij", &[3]),
            ("i$", &[3, 3]),
            ("ij->ii", &[3, 3]),
        ];
        for (s, sa) in one {
            c.add(&[(d, sa)], &np(s, 1), sa.iter().product(), e(s));
        }
        c.add(
            &[(d, &[2, 3]), (d, &[3, 4]), (d, &[4, 2])],
            &np("ij,jk,kl->il", 3),
            12,
            e("ij,jk,kl->il"),
        );
        c.add(
            &[(d, &[3, 3]), (d, &[3]), (d, &[3])],
            &np("ij,i,j", 3),
            9,
            e("ij,i,j"),
        );
        c.add(&[(d, &[4, 3])], "np.einsum('ij,jk', a.T, a)", 4, |x| {
            kp::einsum("ij,jk", &[&x[0].t()?, &x[0]])
        });
        c.add(
            &[(d, &[4, 6])],
            "np.einsum('ij->i', a[::-1, ::2])",
            3,
            |x| kp::einsum("ij->i", &[&x[0].slice(&s![..;-1, ..;2])?]),
        );
    }
    c.add(
        &[(DType::Bool, &[3, 4]), (DType::Bool, &[4, 2])],
        &np("ij,jk", 2),
        4,
        e("ij,jk"),
    );
    c.add(&[(DType::Bool, &[5])], &np("i->", 1), 5, e("i->"));
    // Three operands of mixed dtypes: the intermediate product is in the result dtype (bool
    // pairs count, they do not OR; float16 pairs do not round to float16).
    let dtypes = test_dtypes(&dev);
    for (d, last) in [
        (DType::Bool, DType::F32),
        (DType::Bool, DType::I32),
        (DType::I32, DType::F32),
        (DType::F16, DType::F32),
    ] {
        if !dtypes.contains(&d) {
            continue;
        }
        c.add(
            &[(d, &[2, 5]), (d, &[5, 3]), (last, &[3, 2])],
            &np("ij,jk,kl->il", 3),
            15,
            e("ij,jk,kl->il"),
        );
        c.add(
            &[(d, &[6]), (d, &[6]), (last, &[6])],
            &np("i,i,i->", 3),
            6,
            e("i,i,i->"),
        );
    }
    c.add(
        &[(DType::F32, &[3, 4]), (DType::I32, &[4])],
        &np("ij,j", 2),
        4,
        e("ij,j"),
    );
    // Two operands, one with a label of its own summed before the product: that sum is in the
    // result dtype too (bool counts, float16 does not round to float16).
    for (d, other, s, sa, sb) in [
        (DType::Bool, DType::F32, "ij,j->", &[5, 4][..], &[4][..]),
        (DType::Bool, DType::I32, "ij,jk->k", &[5, 4], &[4, 3]),
        (DType::F32, DType::Bool, "ij,jk->", &[3, 4], &[4, 6]),
        (DType::F16, DType::F32, "ij,jk->k", &[40, 4], &[4, 3]),
        (DType::Bool, DType::Complex64, "ij,j->j", &[5, 4], &[4]),
    ] {
        let ok = |t: DType| t == DType::Bool || dtypes.contains(&t);
        if !ok(d) || !ok(other) {
            continue;
        }
        c.add(
            &[(d, sa), (other, sb)],
            &np(s, 2),
            sa.iter().product::<usize>() * sb.iter().product::<usize>(),
            e(s),
        );
    }
    // An explicit output without '...' cannot drop the broadcast axes (NumPy raises).
    c.add(&[(DType::F32, &[2, 3])], &np("...i->i", 1), 1, e("...i->i"));
    c.add(&[(DType::F32, &[3])], &np("...i->i", 1), 3, e("...i->i"));
    run_cases("einsum", c.v);
}

#[test]
fn norms_match_numpy() {
    let dev = device();
    let mut c = Cases {
        v: Vec::new(),
        seed: 300,
    };
    let p = |o: f64| Some(NormOrd::P(o));
    let inf = f64::INFINITY;
    for d in test_dtypes(&dev) {
        let vector: &[(Option<NormOrd>, &str)] = &[
            (None, "None"),
            (p(1.0), "1"),
            (p(2.0), "2"),
            (p(inf), "np.inf"),
            (p(-inf), "-np.inf"),
            (p(0.0), "0"),
            (p(3.0), "3"),
            (p(0.5), "0.5"),
            (p(-1.0), "-1"),
            (p(f64::NAN), "np.nan"),
        ];
        for &(o, name) in vector {
            c.add(
                &[(d, &[7])],
                &format!("np.linalg.norm(a, {name})"),
                7,
                move |x| norm(&x[0], o, None, false),
            );
            c.add(
                &[(d, &[3, 5])],
                &format!("np.linalg.norm(a[:, ::-2], {name}, axis=1, keepdims=True)"),
                5,
                move |x| norm(&x[0].slice(&s![.., ..;-2])?, o, Some(&[1]), true),
            );
        }
        let matrix: &[(Option<NormOrd>, &str)] = &[
            (None, "None"),
            (Some(NormOrd::Fro), "'fro'"),
            (p(1.0), "1"),
            (p(-1.0), "-1"),
            (p(inf), "np.inf"),
            (p(-inf), "-np.inf"),
        ];
        for &(o, name) in matrix {
            c.add(
                &[(d, &[3, 4])],
                &format!("np.linalg.norm(a, {name})"),
                12,
                move |x| norm(&x[0], o, None, false),
            );
            c.add(
                &[(d, &[2, 3, 4])],
                &format!("np.linalg.norm(a, {name}, axis=(2, 0), keepdims=True)"),
                12,
                move |x| norm(&x[0], o, Some(&[2, 0]), true),
            );
            c.add(
                &[(d, &[4, 3])],
                &format!("np.linalg.norm(a.T, {name}, axis=(0, 1))"),
                12,
                move |x| norm(&x[0].t()?, o, Some(&[0, 1]), false),
            );
        }
        // Empty operands: NumPy's max-based orders give 0 (`initial=0`), the min-based ones
        // raise.
        for &(o, name) in vector {
            c.add(
                &[(d, &[0])],
                &format!("np.linalg.norm(a, {name})"),
                1,
                move |x| norm(&x[0], o, None, false),
            );
        }
        for shape in [[3usize, 0], [0, 3], [0, 0]] {
            for &(o, name) in matrix {
                c.add(
                    &[(d, &shape)],
                    &format!("np.linalg.norm(a, {name})"),
                    1,
                    move |x| norm(&x[0], o, None, false),
                );
            }
        }
        c.add(&[(d, &[2, 3, 4])], "np.linalg.norm(a)", 24, |x| {
            norm(&x[0], None, None, false)
        });
        c.add(
            &[(d, &[2, 3, 4])],
            "np.linalg.norm(a, keepdims=True)",
            24,
            |x| norm(&x[0], None, None, true),
        );
        c.add(&[(d, &[0])], "np.linalg.norm(a)", 1, |x| {
            norm(&x[0], None, None, false)
        });
        c.add(&[(d, &[2, 3, 4])], "np.linalg.norm(a, 1)", 1, |x| {
            norm(&x[0], Some(NormOrd::P(1.0)), None, false)
        });
        c.add(&[(d, &[3])], "np.linalg.norm(a, axis=(0, 0))", 1, |x| {
            norm(&x[0], None, Some(&[0, 0]), false)
        });
        c.add(&[(d, &[3])], "np.linalg.norm(a, axis=1)", 1, |x| {
            norm(&x[0], None, Some(&[1]), false)
        });
        c.add(&[(d, &[3, 3])], "np.linalg.norm(a, 3)", 1, |x| {
            norm(&x[0], Some(NormOrd::P(3.0)), None, false)
        });
        c.add(&[(d, &[3])], "np.linalg.norm(a, 'fro')", 1, |x| {
            norm(&x[0], Some(NormOrd::Fro), None, false)
        });
    }
    c.add(&[(DType::Bool, &[6])], "np.linalg.norm(a)", 6, |x| {
        norm(&x[0], None, None, false)
    });
    run_cases("norm", c.v);
}

#[test]
fn diagonals_match_numpy() {
    let dev = device();
    let mut c = Cases {
        v: Vec::new(),
        seed: 400,
    };
    let mut ds = test_dtypes(&dev);
    ds.push(DType::Bool);
    for d in ds {
        for off in [0isize, 1, -2, 5, -7] {
            c.add(
                &[(d, &[4, 6])],
                &format!("np.diagonal(a, {off})"),
                1,
                move |x| kp::diagonal(&x[0], off, 0, 1),
            );
            c.add(
                &[(d, &[4, 6])],
                &format!("np.trace(a, {off})"),
                6,
                move |x| kp::trace(&x[0], off, 0, 1, None),
            );
            c.add(&[(d, &[3])], &format!("np.diag(a, {off})"), 1, move |x| {
                kp::diag(&x[0], off)
            });
            c.add(
                &[(d, &[5, 4])],
                &format!("np.diag(a.T[::-1], {off})"),
                1,
                move |x| kp::diag(&x[0].t()?.slice(&s![..;-1])?, off),
            );
        }
        c.add(&[(d, &[2, 3, 4])], "np.diagonal(a, 1, 2, 1)", 1, |x| {
            kp::diagonal(&x[0], 1, 2, 1)
        });
        c.add(&[(d, &[2, 3, 4])], "a.diagonal(0, -1, 0)", 1, |x| {
            x[0].diagonal(0, -1, 0)
        });
        c.add(&[(d, &[2, 3, 4])], "np.trace(a, -1, 1, 2)", 4, |x| {
            kp::trace(&x[0], -1, 1, 2, None)
        });
        c.add(&[(d, &[3, 3])], "a.trace()", 3, |x| x[0].trace(0, 0, 1));
        c.add(&[(d, &[3, 3])], "np.trace(a[::-1, ::-1], 1)", 3, |x| {
            kp::trace(&x[0].slice(&s![..;-1, ..;-1])?, 1, 0, 1, None)
        });
        c.add(&[(d, &[0, 3])], "np.trace(a)", 1, |x| {
            kp::trace(&x[0], 0, 0, 1, None)
        });
        c.add(&[(d, &[0])], "np.diag(a)", 1, |x| kp::diag(&x[0], 0));
        c.add(&[(d, &[1])], "np.diag(a, -1)", 1, |x| kp::diag(&x[0], -1));
        c.add(&[(d, &[3])], "np.diagonal(a)", 1, |x| {
            kp::diagonal(&x[0], 0, 0, 1)
        });
        c.add(&[(d, &[3, 3])], "np.diagonal(a, 0, 1, 1)", 1, |x| {
            kp::diagonal(&x[0], 0, 1, 1)
        });
        c.add(&[(d, &[3, 3])], "np.diagonal(a, 0, 0, 2)", 1, |x| {
            kp::diagonal(&x[0], 0, 0, 2)
        });
        c.add(&[(d, &[2, 2, 2])], "np.diag(a)", 1, |x| kp::diag(&x[0], 0));
    }
    c.add(
        &[(DType::I32, &[3, 3])],
        "np.trace(a, dtype=np.float32)",
        3,
        |x| kp::trace(&x[0], 0, 0, 1, Some(DType::F32)),
    );
    // dtype=bool: the sum of a bool diagonal is OR, a bool result.
    for d in [DType::F32, DType::I32, DType::Bool] {
        c.add(&[(d, &[3, 3])], "np.trace(a, dtype=bool)", 3, |x| {
            kp::trace(&x[0], 0, 0, 1, Some(DType::Bool))
        });
    }
    c.add(
        &[(DType::F16, &[40, 40])],
        "np.trace(a, dtype=np.float32)",
        40,
        |x| kp::trace(&x[0], 0, 0, 1, Some(DType::F32)),
    );
    run_cases("diagonals", c.v);
}

/// Orders NumPy computes with singular values: ones((3, 3)) has singular values (3, 0, 0).
#[test]
fn singular_value_norms_of_a_rank_one_matrix() {
    let _dev = device();
    let m = kp::ones(&[3, 3], Some(DType::F32)).unwrap();
    for (o, want) in [
        (NormOrd::P(2.0), 3.0),
        (NormOrd::P(-2.0), 0.0),
        (NormOrd::Nuc, 3.0),
    ] {
        let got: Vec<f32> = norm(&m, Some(o), None, false).unwrap().to_vec().unwrap();
        assert!((f64::from(got[0]) - want).abs() < 1e-5, "{o:?}: {got:?}");
    }
}

/// Bad inputs name both shapes in one line.
#[test]
fn errors_name_the_shapes() {
    let _dev = device();
    let a = kp::ones(&[2, 3], Some(DType::F32)).unwrap();
    let b = kp::ones(&[4, 5], Some(DType::F32)).unwrap();
    let cases = [
        (kp::dot(&a, &b), "(2, 3) and (4, 5)"),
        (kp::inner(&a, &b), "(2, 3) and (4, 5)"),
        (kp::tensordot(&a, &b, 1), "(2, 3)"),
        (kp::tensordot(&a, &b, 3), "(2, 3) and (4, 5)"),
        (kp::vdot(&a, &b), "(2, 3)"),
        (
            kp::einsum("ij,jk", &[&a, &b]),
            "3 and 4 (operand shapes (2, 3) and (4, 5))",
        ),
        (kp::einsum("ij,jk", &[&a]), "2 operands"),
        (kp::einsum("ijk", &[&a]), "(2, 3)"),
        (kp::einsum("ij->i->j", &[&a]), "invalid subscript"),
        (kp::einsum("...j->j", &[&a]), "output 'j' has no '...'"),
        (
            norm(
                &kp::ones(&[3], None).unwrap(),
                Some(NormOrd::Fro),
                None,
                false,
            ),
            "order 'fro' for vectors",
        ),
        (
            kp::diag(&kp::ones(&[2, 2, 2], None).unwrap(), 0),
            "1-d or 2-d",
        ),
    ];
    for (i, (r, needle)) in cases.into_iter().enumerate() {
        match r {
            Ok(x) => panic!("case {i}: should fail, gave shape {:?}", x.shape()),
            Err(e) => {
                let msg = e.to_string();
                assert!(
                    msg.contains(needle) && !msg.contains('\n'),
                    "case {i}: {msg}"
                );
            }
        }
    }
}

/// diagonal is a strided view of the same buffer: no copy, no kernel.
#[test]
fn diagonal_is_a_view() {
    let _dev = device();
    let a = kp::arange(0, 24, 1, Some(DType::I32))
        .unwrap()
        .reshape(&[4, 6])
        .unwrap();
    let d = kp::diagonal(&a, 1, 0, 1).unwrap();
    let l = d.layout().unwrap();
    assert_eq!(
        (l.shape.clone(), l.strides.clone(), l.offset),
        (vec![4], vec![7], 1)
    );
    assert_eq!(d.to_vec::<i32>().unwrap(), vec![1, 8, 15, 22]);
    let r = a.slice(&s![..;-1, ..]).unwrap();
    let l = kp::diagonal(&r, 0, 0, 1).unwrap().layout().unwrap();
    assert_eq!((l.strides.clone(), l.offset), (vec![-5], 18));
}
