//! Reductions (sum, prod, mean, var/std, max/min, argmax/argmin, any/all, count_nonzero, ptp,
//! average and the NaN-ignoring variants) against NumPy.
//!
//! Every case draws random data (a fixed seed), uploads it, builds a view with kupfer's view
//! API (or a lazy elementwise expression) and runs the kupfer reduction; NumPy (python3
//! subprocess, the independent oracle) gets the same data and a Python expression for the same
//! view and reduction. NumPy computes float references in float64 (int64 for integer sums), so
//! the comparison tolerates the rounding of kupfer's 32-bit (or float16) result and of its
//! accumulation order; integer, bool, max/min and index results must match exactly. Result
//! dtypes follow kupfer's rule (NumPy's, except that 64-bit results NumPy produces from 32-bit
//! inputs stay 32-bit, and float16 accumulates in float32 but returns float16). Where NumPy
//! raises, kupfer must return an error (never panic).
//!
//! Needs python3 with NumPy and a GPU adapter (lavapipe will do); fails, never skips,
//! without them. Run: `cargo test -p kupfer-suite --test reductions`.

mod common;

use kp::{Array, Axis, DType, Error};
use kupfer as kp;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

// ------------------------------------------------------------------------------------------
// data

use common::{dtypes, eps, ident, raw_bytes, read_f64, upload, Rng};

/// Random values for this file's cases (see [`common::values`]).
fn values(seed: u64, n: usize, dtype: DType, lo: f64, hi: f64) -> Vec<f64> {
    common::values(seed, 0x5678, n, dtype, lo, hi)
}

/// How a result is compared with NumPy's float64 (or int64) reference `w`.
#[derive(Clone, Copy, Debug)]
enum Check {
    /// Bit-exact (ints, bools, indices, max/min, ptp).
    Exact,
    /// A float sum or mean of up to `n` values accumulated in dtype `acc`:
    /// |got - w| <= eps(acc) (16 + 2 sqrt(n)) scale + eps(out) |w|, where `scale` is the same
    /// reduction of |x| (so cancellation is allowed for).
    Sum { acc: DType, n: usize },
    /// A float product of up to `n` values: relative eps(acc) 4 (n + 2) + eps(out).
    Prod { acc: DType, n: usize },
    /// A variance or standard deviation of up to `n` values: relative
    /// eps(acc) (64 + 4 sqrt(n)) + eps(out).
    Var { acc: DType, n: usize },
}

/// How kupfer computes a case from the uploaded base array.
type RunFn = Box<dyn Fn(&Array) -> kp::Result<Array>>;

struct Case {
    id: String,
    dtype: DType,
    shape: Vec<usize>,
    data: Vec<f64>,
    /// NumPy expression over `a` (the uploaded base array); `np` is numpy.
    expr: String,
    /// NumPy expression for the tolerance scale (same shape as the result), for `Check::Sum`.
    scale: Option<String>,
    check: Check,
    /// The dtype kupfer must return.
    want: DType,
    run: RunFn,
}

// ------------------------------------------------------------------------------------------
// oracle

const ORACLE: &str = r#"
import json, sys, numpy as np
d = sys.argv[1]
cases = json.load(open(d + "/manifest.json"))
out = {}
for c in cases:
    dt = c["dtype"]
    raw = np.fromfile(d + "/" + c["id"] + ".in", dtype=np.uint8 if dt == "bool" else dt)
    a = raw.astype(bool) if dt == "bool" else raw
    a = a.reshape(c["shape"])
    with np.errstate(all="ignore"):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                r = np.asarray(eval(c["expr"]))
            except Exception as e:
                out[c["id"]] = {"error": type(e).__name__ + ": " + str(e)}
                continue
            np.ascontiguousarray(r, dtype=np.float64).tofile(d + "/" + c["id"] + ".out")
            if c.get("scale"):
                s = np.asarray(eval(c["scale"]), dtype=np.float64)
                np.ascontiguousarray(s).tofile(d + "/" + c["id"] + ".scale")
    out[c["id"]] = {"shape": list(r.shape)}
json.dump(out, open(d + "/results.json", "w"))
"#;

fn run_oracle(dir: &Path, cases: &[Case]) -> Value {
    std::fs::create_dir_all(dir).unwrap();
    let mut manifest = Vec::new();
    for c in cases {
        std::fs::write(
            dir.join(format!("{}.in", c.id)),
            raw_bytes(&c.data, c.dtype),
        )
        .unwrap();
        manifest.push(json!({
            "id": c.id,
            "dtype": c.dtype.name(),
            "shape": c.shape,
            "expr": c.expr,
            "scale": c.scale,
        }));
    }
    common::run_oracle(dir, &serde_json::Value::from(manifest), ORACLE)
}

fn compare(case: &Case, got: &Array, dir: &Path, res: &Value) -> Result<(), String> {
    common::check_shape_and_dtype(got, case.want, res)?;
    let host = got.to_host().map_err(|e| format!("read-back: {e}"))?;
    let want = read_f64(&dir.join(format!("{}.out", case.id)));
    let scale = case
        .scale
        .as_ref()
        .map(|_| read_f64(&dir.join(format!("{}.scale", case.id))));
    let out = eps(case.want);
    let mut bad = 0;
    let mut first = String::new();
    for (i, &w) in want.iter().enumerate() {
        let g = host.data.get_f64(i);
        let tol = match case.check {
            Check::Exact => 0.0,
            Check::Sum { acc, n } => {
                let s = scale.as_ref().map_or(w.abs(), |s| s[i]);
                eps(acc) * (16.0 + 2.0 * (n as f64 + 1.0).sqrt()) * s + out * w.abs()
            }
            Check::Prod { acc, n } => (eps(acc) * 4.0 * (n as f64 + 2.0) + out) * w.abs(),
            Check::Var { acc, n } => {
                (eps(acc) * (64.0 + 4.0 * (n as f64).sqrt()) + 2.0 * out) * w.abs()
            }
        };
        let ok = g == w || (g.is_nan() && w.is_nan()) || (g - w).abs() <= tol;
        if !ok {
            if bad == 0 {
                first = format!("first bad element {i}: kupfer {g}, numpy {w} (tol {tol:e})");
            }
            bad += 1;
        }
    }
    if bad > 0 {
        return Err(format!("{bad} of {} elements differ; {first}", want.len()));
    }
    Ok(())
}

fn run_cases(name: &str, cases: Vec<Case>) {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("reductions-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let t0 = std::time::Instant::now();
    let results = run_oracle(&dir, &cases);
    let t1 = std::time::Instant::now();
    let mut failures = Vec::new();
    for c in &cases {
        let a = upload(&c.data, c.dtype, &c.shape);
        let res = &results[&c.id];
        if let Err(e) = common::judge(res, || (c.run)(&a), |got| compare(c, got, &dir, res)) {
            failures.push(format!("{}: {e}", c.id));
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
    std::env::set_var(
        "XDG_RUNTIME_DIR",
        std::env::var("XDG_RUNTIME_DIR").unwrap_or("/tmp".into()),
    );
    kp::Device::default_device().expect("a GPU adapter (lavapipe will do)")
}

// ------------------------------------------------------------------------------------------
// the reduction catalogue

/// A reduction: kupfer's name (NumPy's function of the same name is the oracle).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Sum,
    Prod,
    Mean,
    Var(u32),
    Std(u32),
    Max,
    Min,
    Amax,
    Amin,
    ArgMax,
    ArgMin,
    Any,
    All,
    CountNonzero,
    Ptp,
    NanSum,
    NanProd,
    NanMean,
    NanVar(u32),
    NanStd(u32),
    NanMax,
    NanMin,
    NanArgMax,
    NanArgMin,
}

const ALL_OPS: [Op; 24] = [
    Op::Sum,
    Op::Prod,
    Op::Mean,
    Op::Var(0),
    Op::Std(1),
    Op::Max,
    Op::Min,
    Op::Amax,
    Op::Amin,
    Op::ArgMax,
    Op::ArgMin,
    Op::Any,
    Op::All,
    Op::CountNonzero,
    Op::Ptp,
    Op::NanSum,
    Op::NanProd,
    Op::NanMean,
    Op::NanVar(1),
    Op::NanStd(0),
    Op::NanMax,
    Op::NanMin,
    Op::NanArgMax,
    Op::NanArgMin,
];

impl Op {
    fn np(self) -> &'static str {
        match self {
            Op::Sum => "sum",
            Op::Prod => "prod",
            Op::Mean => "mean",
            Op::Var(_) => "var",
            Op::Std(_) => "std",
            Op::Max => "max",
            Op::Min => "min",
            Op::Amax => "amax",
            Op::Amin => "amin",
            Op::ArgMax => "argmax",
            Op::ArgMin => "argmin",
            Op::Any => "any",
            Op::All => "all",
            Op::CountNonzero => "count_nonzero",
            Op::Ptp => "ptp",
            Op::NanSum => "nansum",
            Op::NanProd => "nanprod",
            Op::NanMean => "nanmean",
            Op::NanVar(_) => "nanvar",
            Op::NanStd(_) => "nanstd",
            Op::NanMax => "nanmax",
            Op::NanMin => "nanmin",
            Op::NanArgMax => "nanargmax",
            Op::NanArgMin => "nanargmin",
        }
    }

    fn ddof(self) -> Option<u32> {
        match self {
            Op::Var(d) | Op::Std(d) | Op::NanVar(d) | Op::NanStd(d) => Some(d),
            _ => None,
        }
    }

    fn is_arg(self) -> bool {
        matches!(
            self,
            Op::ArgMax | Op::ArgMin | Op::NanArgMax | Op::NanArgMin
        )
    }

    fn is_prod(self) -> bool {
        matches!(self, Op::Prod | Op::NanProd)
    }

    /// Runs the reduction in kupfer.
    fn run(self, x: &Array, axis: &Option<Vec<isize>>, keepdims: bool) -> kp::Result<Array> {
        let ax = || axis.clone().map_or(Axis::All, Axis::Many);
        let one = || -> kp::Result<Option<isize>> {
            match axis.as_deref() {
                None => Ok(None),
                Some([a]) => Ok(Some(*a)),
                Some(_) => Err(Error::InvalidArgument("argmax takes one axis".into())),
            }
        };
        match self {
            Op::Sum => kp::sum(x, ax(), keepdims),
            Op::Prod => kp::prod(x, ax(), keepdims),
            Op::Mean => kp::mean(x, ax(), keepdims),
            Op::Var(d) => kp::var(x, ax(), d, keepdims),
            Op::Std(d) => kp::reduce::std(x, ax(), d, keepdims),
            Op::Max => kp::max(x, ax(), keepdims),
            Op::Min => kp::min(x, ax(), keepdims),
            Op::Amax => kp::amax(x, ax(), keepdims),
            Op::Amin => kp::amin(x, ax(), keepdims),
            Op::ArgMax => kp::argmax(x, one()?, keepdims),
            Op::ArgMin => kp::argmin(x, one()?, keepdims),
            Op::Any => kp::any(x, ax(), keepdims),
            Op::All => kp::all(x, ax(), keepdims),
            Op::CountNonzero => kp::count_nonzero(x, ax(), keepdims),
            Op::Ptp => kp::ptp(x, ax(), keepdims),
            Op::NanSum => kp::nansum(x, ax(), keepdims),
            Op::NanProd => kp::nanprod(x, ax(), keepdims),
            Op::NanMean => kp::nanmean(x, ax(), keepdims),
            Op::NanVar(d) => kp::nanvar(x, ax(), d, keepdims),
            Op::NanStd(d) => kp::nanstd(x, ax(), d, keepdims),
            Op::NanMax => kp::nanmax(x, ax(), keepdims),
            Op::NanMin => kp::nanmin(x, ax(), keepdims),
            Op::NanArgMax => kp::nanargmax(x, one()?, keepdims),
            Op::NanArgMin => kp::nanargmin(x, one()?, keepdims),
        }
    }

    /// The dtype kupfer returns for input `d`.
    fn result(self, d: DType, int: DType) -> DType {
        let float = match d {
            DType::F64 | DType::I64 => DType::F64,
            DType::F16 => DType::F16,
            _ => DType::F32,
        };
        match self {
            Op::Sum | Op::Prod | Op::NanSum | Op::NanProd => {
                if d == DType::Bool {
                    DType::I32
                } else {
                    d
                }
            }
            Op::Mean | Op::Var(_) | Op::Std(_) => float,
            Op::NanMean | Op::NanVar(_) | Op::NanStd(_) => float,
            Op::Max | Op::Min | Op::Amax | Op::Amin | Op::Ptp | Op::NanMax | Op::NanMin => d,
            Op::ArgMax | Op::ArgMin | Op::NanArgMax | Op::NanArgMin | Op::CountNonzero => int,
            Op::Any | Op::All => DType::Bool,
        }
    }
}

type View = (&'static str, fn(&Array) -> kp::Result<Array>);

const IDENT: View = ("a", ident);

fn axis_py(axis: &Option<Vec<isize>>) -> String {
    match axis.as_deref() {
        None => "None".into(),
        Some([]) => "()".into(),
        Some([a]) => a.to_string(),
        Some(v) => format!(
            "({},)",
            v.iter()
                .map(|a| a.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Number of values each output reduces (an upper bound for the tolerance).
fn count(shape: &[usize], axis: &Option<Vec<isize>>) -> usize {
    match axis {
        None => shape.iter().product(),
        Some(v) => v
            .iter()
            .map(|&a| {
                let a = if a < 0 { a + shape.len() as isize } else { a };
                shape.get(a as usize).copied().unwrap_or(1)
            })
            .product(),
    }
}

/// A reduction case: `op` over `view` of the base array `a` (shape `shape`, data `data`).
#[allow(clippy::too_many_arguments)]
fn red_case(
    id: String,
    op: Op,
    dtype: DType,
    shape: &[usize],
    data: Vec<f64>,
    view: View,
    axis: Option<Vec<isize>>,
    keepdims: bool,
    int: DType,
    value_dtype: DType,
    n: usize,
) -> Case {
    let v = view.0;
    let ax = axis_py(&axis);
    let kd = if keepdims { "True" } else { "False" };
    let f = op.np();
    let ddof = op.ddof().map_or(String::new(), |d| format!(", ddof={d}"));
    let float_in = value_dtype.is_float();
    let want = op.result(value_dtype, int);
    // The accumulator of float results: float16 accumulates in float32; 32-bit ints in float32.
    let acc = match want {
        DType::F16 => DType::F32,
        d => d,
    };
    let wide = format!("np.asarray({v}).astype(np.float64)");
    let (expr, scale, check) = match op {
        Op::Sum | Op::Prod | Op::NanSum | Op::NanProd if !float_in => (
            format!("np.{f}({v}, axis={ax}, keepdims={kd}, dtype=np.int64)"),
            None,
            Check::Exact,
        ),
        Op::Sum | Op::NanSum | Op::Mean | Op::NanMean => (
            format!("np.{f}({wide}, axis={ax}, keepdims={kd})"),
            Some(format!("np.{f}(np.abs({wide}), axis={ax}, keepdims={kd})")),
            Check::Sum { acc, n },
        ),
        // Rounded to the result dtype: a float16 product may underflow to 0.
        Op::Prod | Op::NanProd => (
            format!(
                "np.{f}({wide}, axis={ax}, keepdims={kd}).astype(np.{})",
                want.name()
            ),
            None,
            Check::Prod { acc, n },
        ),
        Op::Var(_) | Op::Std(_) | Op::NanVar(_) | Op::NanStd(_) => (
            format!("np.{f}({wide}, axis={ax}, keepdims={kd}{ddof})"),
            None,
            Check::Var { acc, n },
        ),
        // kupfer's float32 power(x, 2) may differ from NumPy's (exact) square by an ulp.
        _ if v.contains("**") => (
            format!("np.{f}({v}, axis={ax}, keepdims={kd})"),
            None,
            Check::Sum { acc, n: 1 },
        ),
        _ => (
            format!("np.{f}({v}, axis={ax}, keepdims={kd})"),
            None,
            Check::Exact,
        ),
    };
    let apply = view.1;
    Case {
        id,
        dtype,
        shape: shape.to_vec(),
        data,
        expr,
        scale,
        check,
        want,
        run: Box::new(move |a| op.run(&apply(a)?, &axis, keepdims)),
    }
}

/// Data suited to `op`: products near 1 (floats) or in {-1, 0, 1} (ints); others in [-3, 3].
fn op_data(seed: u64, n: usize, d: DType, op: Op) -> Vec<f64> {
    if op.is_prod() {
        if d.is_float() {
            values(seed, n, d, 0.9, 1.1)
        } else {
            values(seed, n, d, -1.0, 1.0)
        }
    } else if d == DType::U32 {
        values(seed, n, d, 0.0, 6.0)
    } else if op.is_arg() || matches!(op, Op::Max | Op::Min | Op::Amax | Op::Amin) {
        // Repeated values, so ties (first index wins) are exercised.
        values(seed, n, d, -3.0, 3.0)
            .into_iter()
            .map(|v| (v * 2.0).round() / 2.0)
            .collect()
    } else {
        values(seed, n, d, -3.0, 3.0)
    }
}

// ------------------------------------------------------------------------------------------
// tests

#[test]
fn every_reduction_every_dtype() {
    let dev = device();
    let int = dev.default_int();
    let mut cases = Vec::new();
    let mut k = 0u64;
    // (shape, axis, keepdims)
    type Shape = (Vec<usize>, Option<Vec<isize>>, bool);
    let shapes: Vec<Shape> = vec![
        (vec![], None, false),
        (vec![1], None, false),
        (vec![1001], None, false),
        (vec![1001], Some(vec![0]), true),
        (vec![3, 5, 7], None, true),
        (vec![3, 5, 7], Some(vec![1]), false),
        (vec![3, 5, 7], Some(vec![-1]), true),
        (vec![3, 5, 7], Some(vec![0, 2]), false),
        (vec![3, 5, 7], Some(vec![]), false),
        (vec![67, 70], Some(vec![0]), false),
    ];
    for &d in &dtypes(&dev) {
        // Shader compiles dominate: the 32-bit and bool dtypes see every shape (each kernel
        // variant: contiguous, strided, outer), the others a subset.
        let full = matches!(d, DType::F32 | DType::I32 | DType::Bool);
        for op in ALL_OPS {
            for (si, (shape, axis, keepdims)) in shapes.iter().enumerate() {
                if op.is_arg() && axis.as_ref().is_some_and(|v| v.len() != 1) {
                    continue;
                }
                if !full && [1, 3, 5, 6, 8].contains(&si) {
                    continue;
                }
                k += 1;
                let n: usize = shape.iter().product();
                cases.push(red_case(
                    format!(
                        "{}-{}-{shape:?}-{}-{keepdims}",
                        op.np(),
                        d.name(),
                        axis_py(axis)
                    ),
                    op,
                    d,
                    shape,
                    op_data(k, n, d, op),
                    IDENT,
                    axis.clone(),
                    *keepdims,
                    int,
                    d,
                    count(shape, axis),
                ));
            }
        }
    }
    run_cases("all", cases);
}

#[test]
fn empty_and_degenerate_match_numpy() {
    let dev = device();
    let int = dev.default_int();
    let mut cases = Vec::new();
    let mut k = 5000u64;
    type Shape = (Vec<usize>, Option<Vec<isize>>, bool);
    let shapes: Vec<Shape> = vec![
        (vec![0], None, false),
        (vec![0, 5], Some(vec![0]), true),
        (vec![0, 5], Some(vec![1]), false),
        (vec![5, 0, 3], Some(vec![0, 2]), false),
    ];
    for &d in &[DType::F32, DType::I32, DType::Bool, DType::F16, DType::I64] {
        if !dev.supports(d) {
            continue;
        }
        for op in ALL_OPS {
            for (shape, axis, keepdims) in &shapes {
                if op.is_arg() && axis.as_ref().is_some_and(|v| v.len() != 1) {
                    continue;
                }
                k += 1;
                let n: usize = shape.iter().product();
                cases.push(red_case(
                    format!("{}-{}-{shape:?}-{}", op.np(), d.name(), axis_py(axis)),
                    op,
                    d,
                    shape,
                    op_data(k, n, d, op),
                    IDENT,
                    axis.clone(),
                    *keepdims,
                    int,
                    d,
                    1,
                ));
            }
        }
    }
    // ddof >= n: var gives inf (NaN where all values are equal), nanvar NaN.
    for (d, op) in [
        (DType::F32, Op::Var(5)),
        (DType::F32, Op::Var(7)),
        (DType::F32, Op::Std(6)),
        (DType::F32, Op::NanVar(5)),
        (DType::F32, Op::NanStd(9)),
        (DType::I32, Op::Var(5)),
        (DType::F64, Op::Var(4)),
        (DType::F64, Op::Var(5)),
    ] {
        if !dev.supports(d) {
            continue;
        }
        for (shape, axis) in [(vec![3usize, 5, 7], Some(vec![1isize])), (vec![2], None)] {
            k += 1;
            let n: usize = shape.iter().product();
            let mut data = values(k, n, d, -3.0, 3.0);
            // One line of equal values: M2 = 0, so 0 / 0.
            for v in data.iter_mut().take(7) {
                *v = 1.0;
            }
            cases.push(red_case(
                format!("ddof-{}-{op:?}-{shape:?}", d.name()),
                op,
                d,
                &shape,
                data,
                IDENT,
                axis,
                false,
                int,
                d,
                5,
            ));
        }
    }
    run_cases("empty", cases);
}

#[test]
fn axes_views_and_lazy_inputs() {
    let dev = device();
    let int = dev.default_int();
    let mut cases = Vec::new();
    let mut k = 10_000u64;
    let ops = [
        Op::Sum,
        Op::Mean,
        Op::Var(1),
        Op::Max,
        Op::ArgMax,
        Op::ArgMin,
        Op::CountNonzero,
        Op::NanSum,
        Op::Prod,
    ];
    // 3-D and 4-D with tuple and negative axes.
    let axes: Vec<Option<Vec<isize>>> = vec![
        None,
        Some(vec![1, 3]),
        Some(vec![0, -1]),
        Some(vec![-2]),
        Some(vec![0, 1, 2, 3]),
        Some(vec![2, 0]),
    ];
    for &d in &[DType::F32, DType::I32] {
        for op in ops {
            for (ai, axis) in axes.iter().enumerate() {
                if op.is_arg() && axis.as_ref().is_some_and(|v| v.len() != 1) {
                    continue;
                }
                k += 1;
                let shape = [4usize, 6, 5, 3];
                let n = 360;
                cases.push(red_case(
                    format!("{}-{}-4d-{}", op.np(), d.name(), axis_py(axis)),
                    op,
                    d,
                    &shape,
                    op_data(k, n, d, op),
                    IDENT,
                    axis.clone(),
                    ai % 2 == 1,
                    int,
                    d,
                    count(&shape, axis),
                ));
            }
        }
    }
    // Views of a 2-D base, reduced without a copy, and fused elementwise inputs.
    let views: &[View] = &[
        ("a.T", |a| a.t()),
        ("a[::-1]", |a| a.slice(&kp::s![..;-1])),
        ("a[::-1, ::-2]", |a| a.slice(&kp::s![..;-1, ..;-2])),
        ("a[1::3, 2:]", |a| a.slice(&kp::s![1..;3, 2..])),
        ("np.broadcast_to(a[0], (700, a.shape[1]))", |a| {
            a.slice(&kp::s![0])?.broadcast_to(&[700, a.shape()[1]])
        }),
        ("np.broadcast_to(a[:, :1], (a.shape[0], 900))", |a| {
            a.slice(&kp::s![.., ..1])?
                .broadcast_to(&[a.shape()[0], 900])
        }),
        ("(a * a)", |a| Ok(a * a)),
        ("((a - np.float32(1)) ** 2)", |a| kp::power(&(a - 1.0), 2.0)),
        // A multiply after the add: no a * b + c for a driver to contract into an fma (NVIDIA
        // does, legally in Vulkan), so the result is bit-exact everywhere.
        ("((a.T + a.T) * a.T)", |a| {
            let t = a.t()?;
            Ok(&(&t + &t) * &t)
        }),
    ];
    let vops = [
        Op::Sum,
        Op::Mean,
        Op::Var(0),
        Op::Max,
        Op::ArgMin,
        Op::NanMean,
    ];
    // No index comparisons on (a - 1) ** 2: an ulp of difference may move a near-tie.
    let power_view = 7;
    for shape in [[300usize, 257], [1100, 40]] {
        for (vi, view) in views.iter().enumerate() {
            for (oi, op) in vops.iter().enumerate() {
                for axis in [None, Some(vec![0isize]), Some(vec![1])] {
                    // Thin the grid: each view sees every op, each op every axis.
                    if (vi + oi) % 2 == 1 && axis.is_none() || vi == power_view && op.is_arg() {
                        continue;
                    }
                    // The tall shape (outer kernel) for a few views only.
                    if shape[0] == 1100 && ![0, 1, 4, 6].contains(&vi) {
                        continue;
                    }
                    k += 1;
                    let n = shape[0] * shape[1];
                    cases.push(red_case(
                        format!("view{vi}-{}-{shape:?}-{}", op.np(), axis_py(&axis)),
                        *op,
                        DType::F32,
                        &shape,
                        values(k, n, DType::F32, -2.0, 2.0),
                        *view,
                        axis,
                        false,
                        int,
                        DType::F32,
                        700 * 900,
                    ));
                }
            }
        }
    }
    // The task's examples: sum(x * x) over all, mean((a - 1) ** 2, axis=0).
    let n = 5000 * 64;
    cases.push(red_case(
        "sum-x-times-x".into(),
        Op::Sum,
        DType::F32,
        &[5000, 64],
        values(1, n, DType::F32, -1.0, 1.0),
        ("(a * a)", |a| Ok(a * a)),
        None,
        false,
        int,
        DType::F32,
        n,
    ));
    cases.push(red_case(
        "mean-sq-axis0".into(),
        Op::Mean,
        DType::F32,
        &[5000, 64],
        values(2, n, DType::F32, -1.0, 3.0),
        ("((a - np.float32(1)) ** 2)", |a| kp::power(&(a - 1.0), 2.0)),
        Some(vec![0]),
        false,
        int,
        DType::F32,
        5000,
    ));
    run_cases("views", cases);
}

#[test]
fn nan_propagation_and_nan_functions() {
    let dev = device();
    let int = dev.default_int();
    let mut cases = Vec::new();
    let mut k = 20_000u64;
    let ops = [
        Op::Max,
        Op::Min,
        Op::ArgMax,
        Op::ArgMin,
        Op::Sum,
        Op::Mean,
        Op::Var(0),
        Op::Ptp,
        Op::Any,
        Op::CountNonzero,
        Op::NanSum,
        Op::NanProd,
        Op::NanMean,
        Op::NanVar(0),
        Op::NanStd(1),
        Op::NanMax,
        Op::NanMin,
        Op::NanArgMax,
        Op::NanArgMin,
    ];
    for &d in &[DType::F32, DType::F64, DType::F16] {
        if !dev.supports(d) {
            continue;
        }
        // [6, 50]: NaN every 7th value, row 2 all NaN, row 4 with ±0 and ±inf; and a [6, 5000]
        // split reduction with scattered NaN and no all-NaN row.
        for (shape, all_nan_row) in [([6usize, 50], true), ([6, 5000], false)] {
            if shape[1] == 5000 && d != DType::F32 {
                continue;
            }
            for op in ops {
                for axis in [None, Some(vec![1isize]), Some(vec![0])] {
                    k += 1;
                    let n = shape[0] * shape[1];
                    let mut data = op_data(k, n, d, op);
                    for j in (3..n).step_by(7) {
                        data[j] = f64::NAN;
                    }
                    if all_nan_row {
                        for v in &mut data[2 * shape[1]..3 * shape[1]] {
                            *v = f64::NAN;
                        }
                        let r4 = 4 * shape[1];
                        data[r4] = -0.0;
                        data[r4 + 1] = 0.0;
                        data[r4 + 2] = f64::INFINITY;
                        data[r4 + 5] = f64::NEG_INFINITY;
                        data[r4 + 8] = f64::INFINITY;
                    }
                    cases.push(red_case(
                        format!("nan-{}-{}-{shape:?}-{}", op.np(), d.name(), axis_py(&axis)),
                        op,
                        d,
                        &shape,
                        data,
                        IDENT,
                        axis,
                        false,
                        int,
                        d,
                        n,
                    ));
                }
            }
        }
    }
    run_cases("nan", cases);

    // All-NaN slices: nanargmax/nanargmin are errors (NumPy raises ValueError).
    let x = Array::from_slice(&[1.0f32, f32::NAN, f32::NAN, f32::NAN, 2.0, 5.0], &[3, 2]).unwrap();
    for r in [
        kp::nanargmax(&x, Some(1), false),
        kp::nanargmin(&x, Some(1), false),
    ] {
        assert!(matches!(r, Err(Error::InvalidArgument(_))), "{r:?}");
    }
    let y = Array::from_slice(&[f32::NAN; 3], &[3]).unwrap();
    assert!(matches!(
        kp::nanargmax(&y, None, false),
        Err(Error::InvalidArgument(_))
    ));
    // But not when only some slices have NaN, along the other axis.
    let r = kp::nanargmax(&x, Some(0), false).unwrap();
    assert_eq!(
        r.astype(DType::I32).unwrap().to_vec::<i32>().unwrap(),
        [2, 2]
    );
}

/// float64 sum of f32 values, exactly enough (Neumaier) for a 2e-6 relative check.
fn exact_sum(v: &[f32]) -> f64 {
    let (mut s, mut c) = (0f64, 0f64);
    for &x in v {
        let x = f64::from(x);
        let t = s + x;
        c += if s.abs() >= x.abs() {
            (s - t) + x
        } else {
            (x - t) + s
        };
        s = t;
    }
    s + c
}

#[test]
fn large_reductions_and_accuracy() {
    let dev = device();
    let int = dev.default_int();

    // Sum of 10^7 uniform float32 values within 2e-6 (relative) of the exact sum.
    let n = 10_000_000;
    let mut rng = Rng(12345);
    let data: Vec<f32> = (0..n).map(|_| rng.unit() as f32).collect();
    let exact = exact_sum(&data);
    let x = Array::from_slice(&data, &[n]).unwrap();
    let got = kp::sum(&x, Axis::All, false)
        .unwrap()
        .to_vec::<f32>()
        .unwrap()[0];
    let rel = (f64::from(got) - exact).abs() / exact;
    assert!(rel < 2e-6, "sum of 1e7 f32: {got} vs {exact} (rel {rel:e})");
    let mean = kp::mean(&x, Axis::All, false)
        .unwrap()
        .to_vec::<f32>()
        .unwrap()[0];
    let rel = (f64::from(mean) - exact / n as f64).abs() / (exact / n as f64);
    assert!(rel < 2e-6, "mean of 1e7 f32: rel {rel:e}");
    // The same values as [2500, 4000] along axis 0 (the outer kernel, split and combined).
    let x2 = x.reshape(&[2500, 4000]).unwrap();
    let cols = kp::sum(&x2, 0, false).unwrap().to_vec::<f32>().unwrap();
    for (j, &g) in cols.iter().enumerate().step_by(97) {
        let col: Vec<f32> = (0..2500).map(|i| data[i * 4000 + j]).collect();
        let e = exact_sum(&col);
        assert!(
            (f64::from(g) - e).abs() / e < 2e-6,
            "column {j}: {g} vs {e}"
        );
    }
    drop((x, x2));

    let mut cases = Vec::new();
    let mut k = 30_000u64;
    // Large 1-D (several split slices and a second pass), float16/int32/float32.
    for &d in &[DType::F32, DType::I32, DType::F16, DType::F64, DType::I64] {
        if !dev.supports(d) {
            continue;
        }
        for n in [1usize << 20, (1 << 20) + 3] {
            for op in [
                Op::Sum,
                Op::Mean,
                Op::Var(0),
                Op::Max,
                Op::ArgMax,
                Op::ArgMin,
            ] {
                if matches!(d, DType::F16 | DType::F64 | DType::I64) && n != 1 << 20 {
                    continue;
                }
                // 64-bit and float16: the (value, index) arg kernel and the f32-accumulated sum.
                if d.is_64bit() && op != Op::ArgMax
                    || d == DType::F16 && !matches!(op, Op::Sum | Op::ArgMin)
                    || d == DType::I32 && n != 1 << 20
                {
                    continue;
                }
                k += 1;
                let mut data = op_data(k, n, d, op);
                if op.is_arg() {
                    // The extreme value several times, in different slices: first one wins.
                    for j in [n - 2, 700_001, 300_000, n / 2] {
                        data[j] = if op == Op::ArgMax { 9.0 } else { -9.0 };
                    }
                }
                cases.push(red_case(
                    format!("large-{}-{}-{n}", op.np(), d.name()),
                    op,
                    d,
                    &[n],
                    data,
                    IDENT,
                    None,
                    false,
                    int,
                    d,
                    n,
                ));
            }
        }
    }
    // Large 2-D: long rows (inner, split), long columns (outer, split).
    for (shape, axis) in [
        ([3usize, 700_001], 1isize),
        ([4096, 300], 0),
        ([300_001, 3], 0),
    ] {
        for op in [Op::Sum, Op::Var(1), Op::ArgMax, Op::NanMax] {
            if shape[1] == 3 && !matches!(op, Op::Sum | Op::ArgMax) {
                continue;
            }
            k += 1;
            let n = shape[0] * shape[1];
            cases.push(red_case(
                format!("large2d-{}-{shape:?}-{axis}", op.np()),
                op,
                DType::F32,
                &shape,
                op_data(k, n, DType::F32, op),
                IDENT,
                Some(vec![axis]),
                false,
                int,
                DType::F32,
                shape[axis as usize],
            ));
        }
    }
    // var/std with a mean large relative to the spread (1e4 + noise in [0, 1)).
    let n = 1 << 20;
    for (op, shape, axis) in [
        (Op::Var(0), vec![n], None),
        (Op::Std(1), vec![n], None),
        (Op::Var(1), vec![1024, 1024], Some(vec![0isize])),
        (Op::Std(0), vec![1024, 1024], Some(vec![1isize])),
        (Op::NanVar(0), vec![n], None),
        (Op::NanStd(0), vec![1024, 1024], Some(vec![1])),
        (Op::NanVar(1), vec![1024, 1024], Some(vec![0])),
    ] {
        k += 1;
        let mut data = values(k, n, DType::F32, 1e4, 1e4 + 1.0);
        if matches!(op, Op::NanVar(_) | Op::NanStd(_)) {
            // NaN first in every line (NaN-ignoring moments cannot shift by the first value).
            for j in (0..1024)
                .chain((0..n).step_by(1024))
                .chain((5..n).step_by(11))
            {
                data[j] = f64::NAN;
            }
        }
        cases.push(red_case(
            format!("var-large-mean-{}-{shape:?}", op.np()),
            op,
            DType::F32,
            &shape,
            data,
            IDENT,
            axis,
            false,
            int,
            DType::F32,
            16,
        ));
    }
    run_cases("large", cases);
}

#[test]
fn average_with_weights() {
    let dev = device();
    let int = dev.default_int();
    let mut cases = Vec::new();
    // Row 0 of the base holds the values, row 1 the (positive) weights.
    type Weighted = (&'static str, &'static str, fn(&Array) -> kp::Result<Array>);
    let forms: &[Weighted] = &[
        ("full-all", "np.average(A, weights=W)", |a| {
            kp::average(
                &a.slice(&kp::s![0])?,
                Axis::All,
                Some(&a.slice(&kp::s![1])?),
                false,
            )
        }),
        ("full-axis1", "np.average(A, axis=1, weights=W)", |a| {
            kp::average(&a.slice(&kp::s![0])?, 1, Some(&a.slice(&kp::s![1])?), false)
        }),
        (
            "1d-axis0",
            "np.average(A, axis=0, weights=W[:, 0], keepdims=True)",
            |a| {
                let w = a.slice(&kp::s![1, .., 0])?;
                kp::average(&a.slice(&kp::s![0])?, 0, Some(&w), true)
            },
        ),
        ("1d-axis-1", "np.average(A, axis=-1, weights=W[0])", |a| {
            let w = a.slice(&kp::s![1, 0])?;
            kp::average(&a.slice(&kp::s![0])?, -1, Some(&w), false)
        }),
        ("none", "np.average(A, axis=(0, 1))", |a| {
            kp::average(&a.slice(&kp::s![0])?, vec![0, 1], None, false)
        }),
    ];
    for &d in &[DType::F32, DType::I32, DType::F16, DType::F64] {
        if !dev.supports(d) {
            continue;
        }
        for (fi, (name, expr, run)) in forms.iter().enumerate() {
            let (r, c) = (37usize, 53usize);
            let mut data = values(fi as u64, r * c, d, -3.0, 3.0);
            data.extend(values(fi as u64 + 50, r * c, d, 0.25, 4.0));
            let wide = "a.astype(np.float64)";
            let expr = expr
                .replace('A', &format!("{wide}[0]"))
                .replace('W', &format!("{wide}[1]"));
            let run = *run;
            cases.push(Case {
                id: format!("average-{name}-{}", d.name()),
                dtype: d,
                shape: vec![2, r, c],
                data,
                scale: Some(expr.replace("[0]", "[0].__abs__()")),
                expr,
                // NumPy, like kupfer, rounds float16 products w * a to float16 first.
                check: Check::Sum {
                    acc: if d.is_float() { d } else { DType::F32 },
                    n: r * c,
                },
                want: Op::Mean.result(d, int),
                run: Box::new(run),
            });
        }
    }
    run_cases("average", cases);
}

#[test]
fn bad_inputs_are_errors() {
    let _dev = device();
    let x = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    // Axis out of range / duplicate axes.
    let s = Array::from_slice(&[1.0f32], &[]).unwrap();
    for r in [
        kp::sum(&s, 0, false),
        kp::argmax(&s, Some(-1), false),
        kp::sum(&x, 2, false),
        kp::sum(&x, -3, false),
        kp::mean(&x, vec![0, 2], false),
        kp::max(&x, 5, true),
        kp::argmax(&x, Some(2), false),
        kp::argmin(&x, Some(-3), false),
        kp::var(&x, 3, 0, false),
        kp::nanmean(&x, 2, false),
        kp::nanvar(&x, 2, 0, false),
        kp::nanargmax(&x, Some(2), false),
        kp::count_nonzero(&x, 2, false),
        kp::any(&x, -4, false),
        kp::sum(&x, vec![0, 0], false),
        kp::sum(&x, vec![1, -1], false),
        kp::prod(&x, vec![0, -2], false),
        kp::nanmax(&x, vec![1, 1], false),
    ] {
        assert!(matches!(r, Err(Error::InvalidArgument(_))), "{r:?}");
    }
    // Empty reductions with no identity are errors (NumPy raises ValueError).
    let e = Array::from_slice::<f32>(&[], &[0]).unwrap();
    for r in [
        kp::max(&e, Axis::All, false),
        kp::min(&e, Axis::All, false),
        kp::argmax(&e, None, false),
        kp::nanmin(&e, Axis::All, false),
        kp::ptp(&e, Axis::All, false),
    ] {
        assert!(matches!(r, Err(Error::InvalidArgument(_))), "{r:?}");
    }
    // ... while sum, prod, mean and var have values.
    let one = |r: kp::Result<Array>| r.unwrap().to_vec::<f32>().unwrap()[0];
    assert_eq!(one(kp::sum(&e, Axis::All, false)), 0.0);
    assert_eq!(one(kp::prod(&e, Axis::All, false)), 1.0);
    assert!(one(kp::mean(&e, Axis::All, false)).is_nan());
    assert!(one(kp::var(&e, Axis::All, 0, false)).is_nan());
    assert!(one(kp::nanmean(&e, Axis::All, false)).is_nan());
    // Complex values order lexicographically (NumPy's order); sums, products and moments
    // combine as complex numbers.
    let hz = [
        kp::Complex32::new(1.0, 2.0),
        kp::Complex32::new(-0.5, 0.25),
        kp::Complex32::new(3.0, -1.0),
    ];
    let c = Array::from_slice(&hz, &[3]).unwrap();
    let cz = |r: kp::Result<Array>| r.unwrap().to_vec::<kp::Complex32>().unwrap()[0];
    assert_eq!(cz(kp::max(&c, Axis::All, false)), hz[2]);
    assert_eq!(cz(kp::min(&c, Axis::All, false)), hz[1]);
    // The index dtype is int64 where the adapter has it, int32 otherwise (GL): read either.
    let index = |r: kp::Result<Array>| r.unwrap().to_host().unwrap().data.get_f64(0);
    assert_eq!(index(kp::argmax(&c, None, false)), 2.0);
    assert_eq!(index(kp::argmin(&c, None, false)), 1.0);
    let (re, im): (Vec<f64>, Vec<f64>) = hz.iter().map(|z| (z.re as f64, z.im as f64)).unzip();
    let sum = cz(kp::sum(&c, Axis::All, false));
    assert_eq!((sum.re, sum.im), (3.5, 1.25));
    let prod = cz(kp::prod(&c, Axis::All, false));
    // (1 + 2i)(-0.5 + 0.25i) = -1 - 0.75i; times (3 - i) = -3.75 - 1.25i: exact in f32.
    assert_eq!((prod.re, prod.im), (-3.75, -1.25));
    let mean = cz(kp::mean(&c, Axis::All, false));
    assert!(
        (mean.re as f64 - 3.5 / 3.0).abs() < 1e-6 && (mean.im as f64 - 1.25 / 3.0).abs() < 1e-6
    );
    // var = mean |z - mean z|^2 = var(re) + var(im).
    let var_of = |v: &[f64]| {
        let m = v.iter().sum::<f64>() / 3.0;
        v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / 3.0
    };
    let want = var_of(&re) + var_of(&im);
    let got = one(kp::var(&c, Axis::All, 0, false)) as f64;
    assert!((got - want).abs() < 1e-5 * want, "{got} {want}");
    // ptp of bool: NumPy raises TypeError (boolean subtract).
    let b = Array::from_slice(&[true, false], &[2]).unwrap();
    assert!(kp::ptp(&b, Axis::All, false).is_err());
    // average: weights that match neither the array nor the axis.
    let w = Array::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    for r in [
        kp::average(&x, 1, Some(&w), false),
        kp::average(&x, Axis::All, Some(&w), false),
    ] {
        // NumPy's ValueError: "Axis must be specified when shapes of a and weights differ."
        // or "Shape of weights must be consistent with shape of a along specified axis."
        assert!(
            matches!(&r, Err(Error::InvalidArgument(m)) if m.contains("weights")),
            "{r:?}"
        );
    }
    // Methods agree with the functions.
    assert_eq!(
        x.sum(1, false).unwrap().to_vec::<f32>().unwrap(),
        [6.0, 15.0]
    );
    assert_eq!(x.mean(Axis::All, true).unwrap().shape(), &[1, 1]);
}

#[test]
fn cov_corrcoef_masked_moments_and_packbits() {
    let dev = device();
    let mut cases = Vec::new();
    type Form = (
        &'static str,
        &'static str,
        Option<&'static str>,
        fn(&Array) -> kp::Result<Array>,
    );
    // The base is [6, 40]: rows 0..5 are the variables, row 5 positive weights.
    let centred = "(lambda c: np.abs(c) @ np.abs(c).T)(X - X.mean(1, keepdims=True))";
    let forms: &[Form] = &[
        ("cov", "np.cov(X)", Some("S / 39"), |a| {
            kp::cov(&a.slice(&kp::s![..5])?, None, &kp::CovOptions::default())
        }),
        (
            "cov-rowvar-false-bias",
            "np.cov(X.T, rowvar=False, bias=True)",
            Some("S / 40"),
            |a| {
                let opts = kp::CovOptions {
                    rowvar: false,
                    bias: true,
                    ..Default::default()
                };
                kp::cov(&a.slice(&kp::s![..5])?.t()?, None, &opts)
            },
        ),
        (
            "cov-y-ddof3",
            "np.cov(X[:2], X[2:], ddof=3)",
            Some("S / 37"),
            |a| {
                let opts = kp::CovOptions {
                    ddof: Some(3),
                    ..Default::default()
                };
                kp::cov(
                    &a.slice(&kp::s![..2])?,
                    Some(&a.slice(&kp::s![2..5])?),
                    &opts,
                )
            },
        ),
        (
            "cov-aweights",
            "np.cov(X, aweights=W)",
            Some("S * W.max() / W.sum()"),
            |a| {
                let opts = kp::CovOptions {
                    aweights: Some(a.slice(&kp::s![5])?),
                    ..Default::default()
                };
                kp::cov(&a.slice(&kp::s![..5])?, None, &opts)
            },
        ),
        ("corrcoef", "np.corrcoef(X)", Some("np.ones((5, 5))"), |a| {
            kp::corrcoef(&a.slice(&kp::s![..5])?, None, true, None)
        }),
        (
            "var-where",
            "np.var(X, axis=1, ddof=1, where=X > 0.5)",
            None,
            |a| {
                let x = a.slice(&kp::s![..5])?;
                kp::var_with(&x, 1, 1, false, &kp::greater(&x, 0.5)?)
            },
        ),
        (
            "std-where-keepdims",
            "np.std(X, axis=0, where=X < 1.5, keepdims=True)",
            None,
            |a| {
                let x = a.slice(&kp::s![..5])?;
                kp::std_with(&x, 0, 0, true, &kp::less(&x, 1.5)?)
            },
        ),
    ];
    for &d in &[DType::F32, DType::I32, DType::F64] {
        if !dev.supports(d) {
            continue;
        }
        for (fi, (name, expr, scale, run)) in forms.iter().enumerate() {
            let mut data = values(fi as u64 + 300, 5 * 40, d, -3.0, 3.0);
            data.extend(values(fi as u64 + 350, 40, d, 1.0, 4.0));
            let sub = |e: &str| {
                e.replace("S", centred)
                    .replace('X', "a.astype(np.float64)[:5]")
                    .replace('W', "a.astype(np.float64)[5]")
            };
            let acc = if d == DType::F64 { d } else { DType::F32 };
            let run = *run;
            cases.push(Case {
                id: format!("{name}-{}", d.name()),
                dtype: d,
                shape: vec![6, 40],
                data,
                expr: sub(expr),
                scale: scale.map(sub),
                check: if scale.is_some() {
                    Check::Sum { acc, n: 40 }
                } else {
                    Check::Var { acc, n: 40 }
                },
                want: acc,
                run: Box::new(run),
            });
        }
    }
    // Bits: 0/1 (and other integer) data packed along an axis and unpacked again.
    for &d in &[DType::I32, DType::U8, DType::Bool, DType::F32] {
        type Packing = (&'static str, &'static str, fn(&Array) -> kp::Result<Array>);
        let bits: &[Packing] = &[
            ("packbits-axis1", "np.packbits(a, axis=1)", |a| {
                kp::packbits(a, Some(1), kp::BitOrder::Big)
            }),
            (
                "packbits-flat-little",
                "np.packbits(a[:, ::-1], bitorder='little')",
                |a| {
                    let flipped = kp::flip(a, Some(&[1]))?;
                    kp::packbits(&flipped, None, kp::BitOrder::Little)
                },
            ),
            (
                "unpackbits-axis0",
                "np.unpackbits(np.packbits(a, axis=0), axis=0, count=-3)",
                |a| {
                    let p = kp::packbits(a, Some(0), kp::BitOrder::Big)?;
                    kp::unpackbits(&p, Some(0), Some(-3), kp::BitOrder::Big)
                },
            ),
        ];
        for (bi, (name, expr, run)) in bits.iter().enumerate() {
            let run = *run;
            cases.push(Case {
                id: format!("{name}-{}", d.name()),
                dtype: d,
                shape: vec![11, 13],
                data: values(bi as u64 + 400, 11 * 13, d, 0.0, 3.0),
                expr: expr.to_string(),
                scale: None,
                check: Check::Exact,
                want: DType::U8,
                run: Box::new(run),
            });
        }
    }
    run_cases("cov-bits", cases);
}
