//! Scans, diff, bincount and histogram against NumPy.
//!
//! Every case draws random data (a fixed seed), uploads it, builds a view with kupfer's view
//! API and runs the kupfer function; NumPy (python3 subprocess, the independent oracle) gets
//! the same data and a Python expression for the same view and operation. Integer and bool
//! results must match exactly; float scans are compared with a float64 reference within a
//! bound that scales with the running sum of |x| (NumPy itself sums sequentially, so its own
//! error grows linearly with the length); float16 scans accumulate in float32 (kupfer's
//! rule), so their oracle is the float32 scan rounded to float16.
//!
//! Needs python3 with NumPy and a GPU adapter (lavapipe will do); fails, never skips,
//! without them. Run: `cargo test -p kupfer-suite --test scans`.

mod common;

use kp::{Array, DType, Error};
use kupfer as kp;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

// ------------------------------------------------------------------------------------------
// data

use common::{dtypes, ident, raw_bytes, read_f64, upload};

/// Random values for this file's cases (see [`common::values`]).
fn values(seed: u64, n: usize, dtype: DType, lo: f64, hi: f64) -> Vec<f64> {
    common::values(seed, 0x1234, n, dtype, lo, hi)
}

// ------------------------------------------------------------------------------------------
// cases

/// How a result is compared.
#[derive(Clone, Copy, Debug)]
enum Check {
    /// Bit-exact (ints, bools, and float ops that round once the same way as NumPy).
    Exact,
    /// A float sum: |got - ref| <= eps(dtype) * (16 + 2 sqrt(k+1)) * scale + eps |ref|, where
    /// `scale` is the running maximum of |partial sum| plus max |x| (float64, from the
    /// oracle) and k the position along the line. NumPy's own sequential sum has a bound
    /// linear in k; kupfer's block scan adds O(sqrt) terms in practice.
    Sum(f64),
    /// A float product: relative error <= eps * 4 (k + 2).
    Prod(f64),
    /// Float counts/weights accumulated in another order: relative 1e-5.
    Close,
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
    /// Optional NumPy expression for the tolerance scale (same shape as the result).
    scale: Option<String>,
    /// Position of each element along its scanned line, for the sum/prod bounds.
    check: Check,
    /// The dtype kupfer must return.
    want: DType,
    run: RunFn,
}

fn eps(d: DType) -> f64 {
    match d {
        DType::F16 => 9.77e-4,
        DType::F32 => 1.19e-7,
        _ => 2.22e-16,
    }
}

fn np_name(d: DType) -> &'static str {
    d.name()
}

// ------------------------------------------------------------------------------------------
// oracle

const ORACLE: &str = r#"
import json, sys, numpy as np
def runmax(c, axis):
    c = np.abs(np.asarray(c, dtype=np.float64))
    if axis is None:
        return np.maximum.accumulate(c.ravel()) if c.size else c.ravel()
    return np.maximum.accumulate(c, axis=axis) if c.size else c
def maxabs(x):
    x = np.asarray(x, dtype=np.float64)
    return float(np.abs(x).max()) if x.size else 0.0
d = sys.argv[1]
cases = json.load(open(d + "/manifest.json"))
out = {}
for c in cases:
    dt = c["dtype"]
    raw = np.fromfile(d + "/" + c["id"] + ".in", dtype=np.uint8 if dt == "bool" else dt)
    a = raw.astype(bool) if dt == "bool" else raw
    a = a.reshape(c["shape"])
    with np.errstate(all="ignore"):
        try:
            r = np.asarray(eval(c["expr"]))
        except Exception as e:
            out[c["id"]] = {"error": type(e).__name__ + ": " + str(e)}
            continue
        np.ascontiguousarray(r, dtype=np.float64).tofile(d + "/" + c["id"] + ".out")
        res = {"shape": list(r.shape)}
        if c.get("scale"):
            s = np.asarray(eval(c["scale"]), dtype=np.float64)
            np.ascontiguousarray(s).tofile(d + "/" + c["id"] + ".scale")
        if c.get("pos"):
            p = np.asarray(eval(c["pos"]), dtype=np.float64)
            np.ascontiguousarray(p).tofile(d + "/" + c["id"] + ".pos")
    out[c["id"]] = res
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
        let pos = match c.check {
            Check::Sum(_) | Check::Prod(_) => Some("POS"),
            _ => None,
        };
        manifest.push(json!({
            "id": c.id,
            "dtype": np_name(c.dtype),
            "shape": c.shape,
            "expr": c.expr,
            "scale": c.scale,
            "pos": pos.map(|_| pos_expr(&c.expr)),
        }));
    }
    common::run_oracle(dir, &serde_json::Value::from(manifest), ORACLE)
}

/// The position-along-line expression: the case's expr is `SCAN(x, axis, ...)`, written with
/// the marker `@x@` / `@axis@` by the builders below; positions are a cumsum of ones.
fn pos_expr(expr: &str) -> String {
    // Builders store "POS:<view>|<axis>" after a '#'.
    let meta = expr.split('#').nth(1).unwrap_or("");
    let mut it = meta.split('|');
    let view = it.next().unwrap_or("a");
    let axis = it.next().unwrap_or("None");
    format!("np.cumsum(np.ones(np.shape({view})), axis={axis}) - 1")
}

fn compare(case: &Case, got: &Array, dir: &Path, res: &Value) -> Result<(), String> {
    common::check_shape_and_dtype(got, case.want, res)?;
    let host = got.to_host().map_err(|e| format!("read-back: {e}"))?;
    let want = read_f64(&dir.join(format!("{}.out", case.id)));
    let scale = case
        .scale
        .as_ref()
        .map(|_| read_f64(&dir.join(format!("{}.scale", case.id))));
    let pos = match case.check {
        Check::Sum(_) | Check::Prod(_) => Some(read_f64(&dir.join(format!("{}.pos", case.id)))),
        _ => None,
    };
    let mut bad = 0;
    let mut first = String::new();
    for (i, &w) in want.iter().enumerate() {
        let g = host.data.get_f64(i);
        let ok = match case.check {
            Check::Exact => g == w || (g.is_nan() && w.is_nan()),
            Check::Sum(e) => {
                let k = pos.as_ref().map_or(0.0, |p| p[i]);
                let s = scale.as_ref().map_or(w.abs(), |s| s[i]);
                let tol = e * (16.0 + 2.0 * (k + 1.0).sqrt()) * s + e * w.abs();
                (g - w).abs() <= tol || (g.is_nan() && w.is_nan()) || g == w
            }
            Check::Prod(e) => {
                let k = pos.as_ref().map_or(0.0, |p| p[i]);
                (g - w).abs() <= e * 4.0 * (k + 2.0) * w.abs() || (g.is_nan() && w.is_nan())
            }
            Check::Close => (g - w).abs() <= 1e-5 * w.abs().max(1.0),
        };
        if !ok {
            if bad == 0 {
                first = format!("first bad element {i}: kupfer {g}, numpy {w}");
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
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("scans-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    let results = run_oracle(&dir, &cases);
    let mut failures = Vec::new();
    for c in &cases {
        let a = upload(&c.data, c.dtype, &c.shape);
        let res = &results[&c.id];
        match (c.run)(&a) {
            Ok(got) => {
                if let Err(e) = compare(c, &got, &dir, res) {
                    failures.push(format!("{}: {e}", c.id));
                }
            }
            Err(e) => failures.push(format!("{}: kupfer error {e}", c.id)),
        }
    }
    common::assert_no_failures(&failures, cases.len());
    eprintln!("{name}: {} cases passed", cases.len());
}

fn device() -> kp::Device {
    std::env::set_var(
        "XDG_RUNTIME_DIR",
        std::env::var("XDG_RUNTIME_DIR").unwrap_or("/tmp".into()),
    );
    let dev = kp::Device::default_device().expect("a GPU adapter (lavapipe will do)");
    eprintln!(
        "adapter {} (subgroups: {})",
        dev.info().name,
        dev.info().features.contains(kp::wgpu::Features::SUBGROUP)
    );
    dev
}

type View = (&'static str, fn(&Array) -> kp::Result<Array>);

/// A cumulative case: `op` is "cumsum"/"cumprod"/"nancumsum"/"nancumprod"; the view is
/// applied to the base array `a` in both worlds.
#[allow(clippy::too_many_arguments)]
fn scan_case(
    id: String,
    op: &'static str,
    dtype: DType,
    shape: &[usize],
    data: Vec<f64>,
    view: View,
    axis: Option<isize>,
    dev_f64: bool,
) -> Case {
    let scan_dtype = match op {
        _ if dtype == DType::Bool || dtype == DType::I32 => DType::I32,
        _ => dtype,
    };
    let axis_py = axis.map_or("None".to_string(), |a| a.to_string());
    let v = view.0;
    let f = match op {
        "cumsum" | "nancumsum" => "sum",
        _ => "prod",
    };
    let nan = op.starts_with("nan");
    let (expr, scale, check) = if dtype.is_float() {
        // float64 reference of the same input values (float16: the float32 scan, rounded).
        let src = if nan {
            format!(
                "np.where(np.isnan({v}), {}, {v})",
                if f == "sum" { 0 } else { 1 }
            )
        } else {
            v.to_string()
        };
        if dtype == DType::F16 {
            (
                format!(
                    "np.cum{f}(({src}).astype(np.float32), axis={axis_py}).astype(np.float16)#{v}|{axis_py}"
                ),
                Some(sum_scale(&src, f, &axis_py)),
                if f == "sum" {
                    Check::Sum(eps(DType::F16))
                } else {
                    Check::Prod(eps(DType::F16))
                },
            )
        } else {
            (
                format!("np.cum{f}(({src}).astype(np.float64), axis={axis_py})#{v}|{axis_py}"),
                Some(sum_scale(&src, f, &axis_py)),
                if f == "sum" {
                    Check::Sum(eps(dtype))
                } else {
                    Check::Prod(eps(dtype))
                },
            )
        }
    } else {
        (
            format!(
                "np.cum{f}({v}, axis={axis_py}, dtype=np.{})",
                np_name(scan_dtype)
            ),
            None,
            Check::Exact,
        )
    };
    let _ = dev_f64;
    let apply = view.1;
    let run: RunFn = Box::new(move |a| {
        let x = apply(a)?;
        match op {
            "cumsum" => kp::cumsum(&x, axis, None),
            "cumprod" => kp::cumprod(&x, axis, None),
            "nancumsum" => kp::nancumsum(&x, axis, None),
            _ => kp::nancumprod(&x, axis, None),
        }
    });
    Case {
        id,
        dtype,
        shape: shape.to_vec(),
        data,
        expr,
        scale,
        check,
        want: scan_dtype,
        run,
    }
}

/// Tolerance scale of a float scan: the running maximum of |partial result| plus max |x|.
fn sum_scale(src: &str, f: &str, axis: &str) -> String {
    format!("runmax(np.cum{f}(({src}).astype(np.float64), axis={axis}), {axis}) + maxabs({src})")
}

/// A float scan over integer values, whose float result is exact: compared bit for bit.
fn exact_float_case(
    id: String,
    dtype: DType,
    shape: &[usize],
    seed: u64,
    axis: Option<isize>,
) -> Case {
    let n: usize = shape.iter().product();
    let axis_py = axis.map_or("None".to_string(), |a| a.to_string());
    let acc = if dtype == DType::F16 {
        "np.float32"
    } else {
        "np.float64"
    };
    Case {
        id,
        dtype,
        shape: shape.to_vec(),
        data: values(seed, n, dtype, -3.0, 3.0)
            .into_iter()
            .map(|v| v.round())
            .collect(),
        expr: format!(
            "np.cumsum(a.astype({acc}), axis={axis_py}).astype(np.{})",
            dtype.name()
        ),
        scale: None,
        check: Check::Exact,
        want: dtype,
        run: Box::new(move |a| kp::cumsum(a, axis, None)),
    }
}

// ------------------------------------------------------------------------------------------
// tests

#[test]
fn cumsum_cumprod_1d_all_dtypes_and_sizes() {
    let dev = device();
    let mut cases = Vec::new();
    let sizes = [
        1usize, 2, 7, 255, 1023, 1024, 1025, 4096, 4099, 8192, 8193, 30001, 100_003,
    ];
    for (di, &d) in dtypes(&dev).iter().enumerate() {
        for (si, &n) in sizes.iter().enumerate() {
            let seed = (di * 100 + si) as u64;
            let data = values(seed, n, d, -3.0, 3.0);
            cases.push(scan_case(
                format!("cumsum-{}-{n}", d.name()),
                "cumsum",
                d,
                &[n],
                data,
                ("a", ident),
                None,
                true,
            ));
            // Products: values near 1 (floats) or in {-1, 0, 1, 2} for short int lines.
            let (lo, hi) = if d.is_float() {
                (0.97, 1.03)
            } else {
                (-1.0, 2.0)
            };
            let data = values(seed + 7, n, d, lo, hi);
            cases.push(scan_case(
                format!("cumprod-{}-{n}", d.name()),
                "cumprod",
                d,
                &[n],
                data,
                ("a", ident),
                Some(0),
                true,
            ));
        }
    }
    for &d in &[DType::F32, DType::F64, DType::F16] {
        if !dev.supports(d) {
            continue;
        }
        for (si, &n) in sizes.iter().enumerate() {
            if d == DType::F16 && n > 10_000 {
                continue;
            }
            cases.push(exact_float_case(
                format!("cumsum-exact-{}-{n}", d.name()),
                d,
                &[n],
                40 + si as u64,
                None,
            ));
        }
    }
    run_cases("1d", cases);
}

#[test]
fn cumsum_axes_and_views() {
    let dev = device();
    let mut cases = Vec::new();
    let mut k = 0u64;
    let shapes: &[&[usize]] = &[
        &[33, 1000],
        &[1000, 33],
        &[4, 5, 300],
        &[3000, 5],
        &[5, 3000],
        &[1500, 1200],
        &[2, 70000],
        &[0, 5],
        &[5, 0],
        &[1, 1],
    ];
    for &d in &dtypes(&dev) {
        if matches!(d, DType::F16 | DType::U32) {
            continue;
        }
        for shape in shapes {
            for ax in [None, Some(0isize), Some(-1), Some(1)] {
                k += 1;
                if ax == Some(1) && shape.len() < 3 {
                    continue;
                }
                let n: usize = shape.iter().product();
                cases.push(scan_case(
                    format!("cumsum-{}-{shape:?}-{ax:?}", d.name()),
                    "cumsum",
                    d,
                    shape,
                    values(k, n, d, -2.0, 2.0),
                    ("a", ident),
                    ax,
                    true,
                ));
            }
        }
    }
    // Views: transposed, negative strides, strided slices, broadcast, lazy input.
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
        ("(a * np.float32(2) + np.float32(1))", |a| Ok(a * 2.0 + 1.0)),
        ("(a.T * a.T)", |a| {
            let t = a.t()?;
            Ok(&t * &t)
        }),
    ];
    for &d in &[DType::F32, DType::I32] {
        for shape in [&[300usize, 257][..], &[1100, 40][..], &[6, 2100][..]] {
            for (vi, view) in views.iter().enumerate() {
                for ax in [None, Some(0isize), Some(1)] {
                    k += 1;
                    let n: usize = shape.iter().product();
                    let mut v = *view;
                    if d == DType::I32 && vi == 6 {
                        v = ("(a * 2 + 1)", |a| Ok(a * 2 + 1));
                    }
                    cases.push(scan_case(
                        format!("cumsum-view{vi}-{}-{shape:?}-{ax:?}", d.name()),
                        "cumsum",
                        d,
                        shape,
                        values(k, n, d, -2.0, 2.0),
                        v,
                        ax,
                        true,
                    ));
                }
            }
        }
    }
    run_cases("axes", cases);
}

#[test]
fn nan_scans_and_dtype_argument() {
    let _dev = device();
    let mut cases = Vec::new();
    for (i, op) in ["nancumsum", "nancumprod", "cumsum"].iter().enumerate() {
        for n in [17usize, 5000] {
            let mut data = values(i as u64 + n as u64, n, DType::F32, 0.98, 1.02);
            for j in (0..n).step_by(7) {
                data[j] = f64::NAN;
            }
            cases.push(scan_case(
                format!("{op}-nan-{n}"),
                op,
                DType::F32,
                &[n],
                data,
                ("a", ident),
                None,
                true,
            ));
        }
    }
    // dtype=: int32 input summed as float32, float32 summed as int32 (truncated first), bool.
    let data = values(99, 3000, DType::I32, -100.0, 100.0);
    cases.push(Case {
        id: "cumsum-i32-as-f32".into(),
        dtype: DType::I32,
        shape: vec![3000],
        data,
        expr: "np.cumsum(a.astype(np.float64))#a|None".into(),
        scale: Some("np.cumsum(np.abs(a.astype(np.float64)))".into()),
        check: Check::Sum(eps(DType::F32)),
        want: DType::F32,
        run: Box::new(|a| kp::cumsum(a, None, Some(DType::F32))),
    });
    let data = values(98, 3000, DType::F32, -10.0, 10.0);
    cases.push(Case {
        id: "cumsum-f32-as-i32".into(),
        dtype: DType::F32,
        shape: vec![3000],
        data,
        expr: "np.cumsum(a, dtype=np.int32)".into(),
        scale: None,
        check: Check::Exact,
        want: DType::I32,
        run: Box::new(|a| kp::cumsum(a, None, Some(DType::I32))),
    });
    let data = values(97, 2000, DType::Bool, 0.0, 1.0);
    cases.push(Case {
        id: "cumsum-bool-as-bool".into(),
        dtype: DType::Bool,
        shape: vec![2000],
        data: data.clone(),
        expr: "np.cumsum(a, dtype=bool)".into(),
        scale: None,
        check: Check::Exact,
        want: DType::Bool,
        run: Box::new(|a| kp::cumsum(a, None, Some(DType::Bool))),
    });
    cases.push(Case {
        id: "cumprod-bool".into(),
        dtype: DType::Bool,
        shape: vec![40, 50],
        data,
        expr: "np.cumprod(a, axis=1, dtype=np.int32)".into(),
        scale: None,
        check: Check::Exact,
        want: DType::I32,
        run: Box::new(|a| a.cumprod(Some(1))),
    });
    let data = values(96, 5000, DType::F32, -1.0, 1.0);
    cases.push(Case {
        id: "method-cumsum-2d".into(),
        dtype: DType::F32,
        shape: vec![50, 100],
        data,
        expr: "np.cumsum(a.astype(np.float64), axis=0)#a|0".into(),
        scale: Some("np.cumsum(np.abs(a.astype(np.float64)), axis=0)".into()),
        check: Check::Sum(eps(DType::F32)),
        want: DType::F32,
        run: Box::new(|a| a.cumsum(Some(0))),
    });
    run_cases("nan-dtype", cases);
}

#[test]
fn large_and_multi_level_scans() {
    let _dev = device();
    let mut cases = Vec::new();
    for (i, n) in [1usize << 20, (1 << 20) + 3, 3 << 20]
        .into_iter()
        .enumerate()
    {
        cases.push(scan_case(
            format!("cumsum-large-{n}"),
            "cumsum",
            DType::F32,
            &[n],
            values(500 + i as u64, n, DType::F32, -1.0, 1.0),
            ("a", ident),
            None,
            true,
        ));
    }
    let n = 1 << 20;
    cases.push(scan_case(
        "cumsum-large-i32".into(),
        "cumsum",
        DType::I32,
        &[n],
        values(600, n, DType::I32, -50.0, 50.0),
        ("a", ident),
        None,
        true,
    ));
    cases.push(scan_case(
        "cumsum-large-2d-axis0".into(),
        "cumsum",
        DType::I32,
        &[4096, 300],
        values(601, 4096 * 300, DType::I32, -50.0, 50.0),
        ("a", ident),
        Some(0),
        true,
    ));
    cases.push(exact_float_case(
        "exact-large-f32".into(),
        DType::F32,
        &[3 << 20],
        602,
        None,
    ));
    cases.push(exact_float_case(
        "exact-large-2d".into(),
        DType::F32,
        &[3, 700_001],
        603,
        Some(1),
    ));
    cases.push(exact_float_case(
        "exact-large-2d-ax0".into(),
        DType::F32,
        &[3000, 700],
        604,
        Some(0),
    ));
    run_cases("large", cases);

    // Small segments: three levels of reduce-then-scan on a 2^21 + 5 line (2049 segments,
    // then 3, then 1) and on a few long lines. Only performance depends on the block size.
    kp::scan::set_block_for_tests(1024);
    let mut cases = Vec::new();
    let n = (1 << 21) + 5;
    cases.push(scan_case(
        "multilevel-i32".into(),
        "cumsum",
        DType::I32,
        &[n],
        values(700, n, DType::I32, -9.0, 9.0),
        ("a", ident),
        None,
        true,
    ));
    cases.push(scan_case(
        "multilevel-f32".into(),
        "cumsum",
        DType::F32,
        &[n],
        values(701, n, DType::F32, -1.0, 1.0),
        ("a", ident),
        None,
        true,
    ));
    cases.push(scan_case(
        "multilevel-prod-i32".into(),
        "cumprod",
        DType::I32,
        &[3, 100_000],
        values(702, 300_000, DType::I32, -1.0, 1.0),
        ("a", ident),
        Some(1),
        true,
    ));
    cases.push(exact_float_case(
        "exact-multilevel-f32".into(),
        DType::F32,
        &[n],
        703,
        None,
    ));
    cases.push(exact_float_case(
        "exact-multilevel-2d".into(),
        DType::F32,
        &[5, 300_001],
        704,
        Some(-1),
    ));
    run_cases("multilevel", cases);
    kp::scan::set_block_for_tests(0);
}

#[test]
fn diff_matches_numpy() {
    let dev = device();
    let mut cases = Vec::new();
    let mut k = 1000;
    for &d in &dtypes(&dev) {
        for (shape, axis) in [
            (vec![10usize], -1isize),
            (vec![1], 0),
            (vec![0], 0),
            (vec![6, 7], 0),
            (vec![6, 7], 1),
            (vec![3, 4, 5], -2),
        ] {
            for n in [0usize, 1, 2, 3, 7, 12] {
                k += 1;
                let size: usize = shape.iter().product();
                let data = values(k, size, d, -5.0, 5.0);
                cases.push(Case {
                    id: format!("diff-{}-{shape:?}-ax{axis}-n{n}", d.name()),
                    dtype: d,
                    shape: shape.clone(),
                    data,
                    expr: format!("np.diff(a, n={n}, axis={axis})"),
                    scale: None,
                    check: Check::Exact,
                    want: d,
                    run: Box::new(move |a| kp::diff(a, n, axis)),
                });
            }
        }
    }
    run_cases("diff", cases);
}

#[test]
fn bad_inputs_are_errors() {
    let _dev = device();
    let x = Array::from_slice(&[1.0f32, 2.0, 3.0], &[3]).unwrap();
    assert!(matches!(
        kp::cumsum(&x, Some(1), None),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        kp::cumprod(&x, Some(-2), None),
        Err(Error::InvalidArgument(_))
    ));
    // Complex cumsum and cumprod run (issue 24): exact on small whole parts.
    let c = Array::from_slice(
        &[
            kp::Complex32::new(1.0, 2.0),
            kp::Complex32::new(1.0, 3.0),
            kp::Complex32::new(0.0, -2.0),
        ],
        &[3],
    )
    .unwrap();
    let got: Vec<kp::Complex32> = kp::cumprod(&c, None, None).unwrap().to_vec().unwrap();
    // (1+2i)(1+3i) = -5+5i; times -2i = 10+10i.
    assert_eq!(
        got,
        [
            kp::Complex32::new(1.0, 2.0),
            kp::Complex32::new(-5.0, 5.0),
            kp::Complex32::new(10.0, 10.0)
        ]
    );
    let c = Array::from_slice(
        &[kp::Complex32::new(1.0, 1.0), kp::Complex32::new(2.0, -3.0)],
        &[2],
    )
    .unwrap();
    let got: Vec<kp::Complex32> = kp::cumsum(&c, None, None).unwrap().to_vec().unwrap();
    assert_eq!(
        got,
        [kp::Complex32::new(1.0, 1.0), kp::Complex32::new(3.0, -2.0)]
    );
    let s = Array::from_slice(&[1.0f32], &[]).unwrap();
    assert!(kp::diff(&s, 1, 0).is_err());
    assert!(matches!(kp::diff(&x, 1, 1), Err(Error::InvalidArgument(_))));
    // 0-d with axis=None is a 1-element line, as in NumPy.
    assert_eq!(kp::cumsum(&s, None, None).unwrap().shape(), &[1]);
}

// ------------------------------------------------------------------------------------------
// bincount and histogram

#[allow(clippy::too_many_arguments)]
fn count_case(
    id: String,
    dtype: DType,
    shape: &[usize],
    data: Vec<f64>,
    expr: String,
    check: Check,
    want: DType,
    run: RunFn,
) -> Case {
    Case {
        id,
        dtype,
        shape: shape.to_vec(),
        data,
        expr,
        scale: None,
        check,
        want,
        run,
    }
}

#[test]
fn bincount_matches_numpy() {
    let dev = device();
    let int = dev.default_int();
    let mut cases = Vec::new();
    for &d in &[DType::I32, DType::U32, DType::I64, DType::Bool] {
        if !dev.supports(d) {
            continue;
        }
        for (n, hi, minlength) in [
            (1usize, 0.0, 0usize),
            (10_007, 50.0, 0),
            (10_007, 50.0, 100),
            (50_000, 20_000.0, 0),
            (3, 5.0, 9000),
        ] {
            let data = values(n as u64 + hi as u64, n, d, 0.0, hi);
            cases.push(count_case(
                format!("bincount-{}-{n}-{hi}-{minlength}", d.name()),
                d,
                &[n],
                data,
                format!("np.bincount(a, minlength={minlength})"),
                Check::Exact,
                int,
                Box::new(move |a| kp::bincount(a, None, minlength)),
            ));
        }
    }
    // Weights: row 0 holds the values, row 1 the weights.
    for (n, hi) in [(10_007usize, 40.0), (30_000, 9000.0)] {
        let mut data = values(5, n, DType::I32, 0.0, hi);
        data.extend(values(6, n, DType::F32, 0.0, 1.0));
        cases.push(count_case(
            format!("bincount-weights-{n}"),
            DType::F32,
            &[2, n],
            data,
            "np.bincount(a[0].astype(np.int32), weights=a[1], minlength=3)".into(),
            Check::Close,
            DType::F32,
            Box::new(|a| {
                let x = a.slice(&kp::s![0])?.astype(DType::I32)?;
                let w = a.slice(&kp::s![1])?;
                kp::bincount(&x, Some(&w), 3)
            }),
        ));
    }
    cases.push(count_case(
        "bincount-empty-weights".into(),
        DType::F32,
        &[2, 0],
        vec![],
        "np.bincount(a[0].astype(np.int64), weights=a[1], minlength=3)".into(),
        Check::Exact,
        int,
        Box::new(|a| {
            let x = a.slice(&kp::s![0])?.astype(DType::I32)?;
            let w = a.slice(&kp::s![1])?;
            kp::bincount(&x, Some(&w), 3)
        }),
    ));
    cases.push(count_case(
        "bincount-empty".into(),
        DType::I32,
        &[0],
        vec![],
        "np.bincount(a.astype(np.int64), minlength=4)".into(),
        Check::Exact,
        int,
        Box::new(|a| kp::bincount(a, None, 4)),
    ));
    run_cases("bincount", cases);

    let neg = Array::from_slice(&[1i32, -2, 3], &[3]).unwrap();
    assert!(matches!(
        kp::bincount(&neg, None, 0),
        Err(Error::InvalidArgument(_))
    ));
    let f = Array::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    assert!(matches!(
        kp::bincount(&f, None, 0),
        Err(Error::InvalidArgument(_))
    ));
    let two = Array::from_slice(&[1i32, 2, 3, 4], &[2, 2]).unwrap();
    assert!(kp::bincount(&two, None, 0).is_err());
    let w = Array::from_slice(&[1.0f32], &[1]).unwrap();
    assert!(kp::bincount(&neg, Some(&w), 0).is_err());
}

#[test]
fn histogram_matches_numpy() {
    let dev = device();
    let int = dev.default_int();
    let wide = dev.default_float();
    let mut cases = Vec::new();
    // (dtype, data, bins, range)
    let grid: Vec<f64> = (0..4001).map(|i| (i % 33) as f64 / 8.0).collect();
    type Set = (String, DType, Vec<f64>, usize, Option<(f64, f64)>);
    let mut sets: Vec<Set> = vec![
        (
            "rand".into(),
            DType::F32,
            values(1, 10_007, DType::F32, -3.0, 3.0),
            10,
            None,
        ),
        (
            "rand-range".into(),
            DType::F32,
            values(2, 10_007, DType::F32, -3.0, 3.0),
            10,
            Some((-1.0, 2.5)),
        ),
        ("grid".into(), DType::F32, grid.clone(), 7, None),
        (
            "grid-range".into(),
            DType::F32,
            grid.clone(),
            7,
            Some((0.0, 3.5)),
        ),
        (
            "grid-odd".into(),
            DType::F32,
            grid.clone(),
            13,
            Some((0.1, 3.9)),
        ),
        (
            "many-bins".into(),
            DType::F32,
            values(3, 100_000, DType::F32, 0.0, 1.0),
            5000,
            None,
        ),
        ("const".into(), DType::F32, vec![2.5; 100], 4, None),
        ("one".into(), DType::F32, vec![1.0], 1, None),
        ("empty".into(), DType::F32, vec![], 5, None),
        (
            "int".into(),
            DType::I32,
            values(4, 5000, DType::I32, -20.0, 20.0),
            9,
            None,
        ),
        (
            "int-range".into(),
            DType::I32,
            values(5, 5000, DType::I32, -20.0, 20.0),
            8,
            Some((-10.0, 10.0)),
        ),
        ("int-const".into(), DType::I32, vec![7.0; 10], 3, None),
    ];
    if dev.supports(DType::F64) {
        sets.push(("f64".into(), DType::F64, grid.clone(), 7, None));
        sets.push((
            "f64-rand".into(),
            DType::F64,
            values(6, 9000, DType::F64, -1.0, 1.0),
            11,
            Some((-0.5, 0.75)),
        ));
    }
    if dev.supports(DType::F16) {
        sets.push(("f16".into(), DType::F16, grid.clone(), 7, None));
        sets.push(("f16-range".into(), DType::F16, grid, 6, Some((0.3, 3.3))));
    }
    for (name, d, data, bins, range) in sets {
        let range_py = range.map_or("None".to_string(), |(a, b)| format!("({a:?}, {b:?})"));
        let n = data.len();
        let edge = if d.is_float() { d } else { wide };
        for part in [0usize, 1] {
            cases.push(count_case(
                format!("histogram-{name}-{}", ["counts", "edges"][part]),
                d,
                &[n],
                data.clone(),
                format!("np.histogram(a, bins={bins}, range={range_py})[{part}]"),
                Check::Exact,
                if part == 0 { int } else { edge },
                Box::new(move |a| {
                    let (c, e) = kp::histogram(a, bins, range, None)?;
                    Ok(if part == 0 { c } else { e })
                }),
            ));
        }
    }
    // Weighted: row 0 values, row 1 weights (float32: float32 counts).
    let mut data = values(7, 20_000, DType::F32, -2.0, 2.0);
    data.extend(values(8, 20_000, DType::F32, 0.0, 1.0));
    cases.push(count_case(
        "histogram-weights".into(),
        DType::F32,
        &[2, 20_000],
        data,
        "np.histogram(a[0], bins=12, weights=a[1])[0]".into(),
        Check::Close,
        DType::F32,
        Box::new(|a| {
            let x = a.slice(&kp::s![0])?;
            let w = a.slice(&kp::s![1])?;
            Ok(kp::histogram(&x, 12, None, Some(&w))?.0)
        }),
    ));
    run_cases("histogram", cases);

    let x = Array::from_slice(&[1.0f32, f32::NAN], &[2]).unwrap();
    assert!(kp::histogram(&x, 0, None, None).is_err());
    assert!(matches!(
        kp::histogram(&x, 3, None, None),
        Err(Error::InvalidArgument(_))
    ));
    assert!(kp::histogram(&x, 3, Some((2.0, 1.0)), None).is_err());
    assert!(kp::histogram(&x, 3, Some((0.0, f64::INFINITY)), None).is_err());
    // NaN is outside any given range.
    let (c, _) = kp::histogram(&x, 2, Some((0.0, 2.0)), None).unwrap();
    assert_eq!(
        c.astype(DType::I32).unwrap().to_vec::<i32>().unwrap(),
        vec![0, 1]
    );
}
