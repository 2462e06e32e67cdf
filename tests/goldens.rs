//! Golden tests: kupfer against NumPy.
//!
//! `tests/goldens/gen.py` (NumPy 2 as the oracle) writes inputs, expected outputs and a
//! manifest of cases into a directory under target/; this test uploads every input, rebuilds
//! the views with kupfer's view API, calls the kupfer function, reads the result back and
//! compares: the dtype must match exactly, integers and bools exactly, floats within the
//! case's ULP bound (NaN where NumPy has NaN, infinities and the sign of zero exact), complex
//! within a bound relative to the magnitude. Expected errors must come back as the right
//! `kupfer::Error` variant, never as a panic. Every failure is collected and printed before
//! the test fails, so one run shows everything.
//!
//! Needs python3 with NumPy 2 (`pip install numpy`) and a GPU adapter (lavapipe will do);
//! without either it fails, it never skips. `GOLDEN_FILTER=<op name or id part>` runs a subset
//! (e.g. `GOLDEN_FILTER=arctan2`, `GOLDEN_FILTER=views-`); `GOLDEN_SECTIONS=unary,binary`
//! runs only the named sections (the part of a case's id before the first `-`), as the GL
//! subset of `cargo xtask test` does. Each process writes its cases into a directory of its
//! own, so two backends can run the goldens at once; `GOLDEN_THREADS` (default 2) threads
//! check contiguous parts of the cases.

use kp::{Array, DType, Error, HostArray, HostData, Operand, Scalar, SliceArg};
use kupfer as kp;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn generate() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("goldens-{}", std::process::id()));
    let script = root.join("tests/goldens/gen.py");
    let (unary, binary, transcendental) = golden_ops();
    let res = Command::new("python3")
        .arg(&script)
        .arg(&out)
        .args([unary, binary, transcendental])
        .current_dir(root)
        .output();
    match res {
        Err(e) => panic!(
            "cannot run python3 ({e}). The golden tests use NumPy as their oracle: install \
             Python 3, then `pip install numpy`"
        ),
        Ok(o) if !o.status.success() => panic!(
            "{} failed ({}):\n{}{}\nThe golden tests need Python 3 with NumPy 2: `pip install numpy`",
            script.display(),
            o.status,
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
        Ok(o) => eprint!("{}", String::from_utf8_lossy(&o.stdout)),
    }
    out
}

/// The ufuncs gen.py covers, from kupfer-core's op table (comma-separated NumPy names): the
/// unary and binary ops marked `goldens`, and those computed by the libm (checked to ULP
/// bounds of transcendentals).
fn golden_ops() -> (String, String, String) {
    let mut unary: Vec<&str> = kp::UnaryOp::ALL
        .iter()
        .filter(|op| op.in_goldens())
        .map(|op| op.name())
        .collect();
    // `positive` is a composite, no row of the table; it keeps its place after `negative` so
    // that the seeded inputs of every later case stay what they were.
    unary.insert(1, "positive");
    let binary: Vec<&str> = kp::BinaryOp::ALL
        .iter()
        .filter(|op| op.in_goldens())
        .map(|op| op.name())
        .collect();
    let transcendental: Vec<&str> = (kp::UnaryOp::ALL.iter())
        .filter(|op| op.is_libm())
        .map(|op| op.name())
        .chain(
            (kp::BinaryOp::ALL.iter())
                .filter(|op| op.is_libm())
                .map(|op| op.name()),
        )
        .collect();
    (unary.join(","), binary.join(","), transcendental.join(","))
}

// ------------------------------------------------------------------------------------------
// manifest values

/// Floats travel as decimal strings (Rust's parser is correctly rounded; JSON's may not be).
fn jf(v: &Value) -> f64 {
    match v {
        Value::String(s) => match s.as_str() {
            "nan" => f64::NAN,
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            other => other
                .parse()
                .unwrap_or_else(|_| panic!("bad float {other}")),
        },
        v => v.as_f64().unwrap_or_else(|| panic!("bad float {v}")),
    }
}

fn scalar(v: &Value) -> Scalar {
    let a = v.as_array().expect("scalar is a list");
    match a[0].as_str().unwrap() {
        "bool" => Scalar::Bool(a[1].as_bool().unwrap()),
        "int" => Scalar::Int(a[1].as_i64().expect("int scalar fits i64")),
        "float" => Scalar::Float(jf(&a[1])),
        "complex" => Scalar::Complex {
            re: jf(&a[1]),
            im: jf(&a[2]),
        },
        k => panic!("bad scalar kind {k}"),
    }
}

fn dtype_param(v: &Value) -> Option<DType> {
    v.as_str()
        .map(|s| DType::from_name(s).unwrap_or_else(|e| panic!("{e}")))
}

fn usizes(v: &Value) -> Vec<usize> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect()
}

fn isizes(v: &Value) -> Vec<isize> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap() as isize)
        .collect()
}

fn slice_args(v: &Value) -> Vec<SliceArg> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|a| match a {
            Value::String(s) if s == "newaxis" => SliceArg::NewAxis,
            Value::String(s) if s == "..." => SliceArg::Ellipsis,
            Value::Object(o) => {
                let f = |k: &str| o.get(k).and_then(Value::as_i64).map(|x| x as isize);
                SliceArg::Slice {
                    start: f("start"),
                    stop: f("stop"),
                    step: f("step"),
                }
            }
            Value::Number(n) => SliceArg::Index(n.as_i64().unwrap() as isize),
            other => panic!("bad index {other}"),
        })
        .collect()
}

/// Rebuilds a view with kupfer's view API.
fn apply_views(mut a: Array, views: &Value) -> kp::Result<Array> {
    for v in views.as_array().unwrap() {
        let v = v.as_array().unwrap();
        a = match v[0].as_str().unwrap() {
            "transpose" if v[1].is_null() => a.transpose(None)?,
            "transpose" => a.transpose(Some(&isizes(&v[1])))?,
            "slice" => a.slice(&slice_args(&v[1]))?,
            "broadcast_to" => a.broadcast_to(&usizes(&v[1]))?,
            "reshape" => a.reshape(&isizes(&v[1]))?,
            "squeeze" if v[1].is_null() => a.squeeze(None)?,
            "squeeze" => a.squeeze(Some(&isizes(&v[1])))?,
            "expand_dims" => a.expand_dims(v[1].as_i64().unwrap() as isize)?,
            "swapaxes" => a.swapaxes(
                v[1].as_i64().unwrap() as isize,
                v[2].as_i64().unwrap() as isize,
            )?,
            "ravel" => a.ravel()?,
            "flatten" => a.flatten()?,
            other => panic!("unknown view op {other}"),
        };
    }
    Ok(a)
}

// ------------------------------------------------------------------------------------------
// calling kupfer

fn call_ufunc(op: &str, args: Vec<Operand>) -> kp::Result<Array> {
    let mut it = args.into_iter();
    let r = match it.len() {
        1 => {
            let a = it.next().unwrap();
            match op {
                "positive" => Some(kp::positive(a)),
                _ => kp::UnaryOp::from_name(op).map(|u| kp::unary(u, a)),
            }
        }
        2 => {
            let (a, b) = (it.next().unwrap(), it.next().unwrap());
            kp::BinaryOp::from_name(op).map(|f| kp::binary(f, a, b))
        }
        3 => {
            let (a, b, c) = (it.next().unwrap(), it.next().unwrap(), it.next().unwrap());
            match op {
                "where" => Some(kp::where_(a, b, c)),
                "clip" => Some(kp::clip(a, b, c)),
                _ => None,
            }
        }
        _ => None,
    };
    r.unwrap_or_else(|| panic!("no kupfer function '{op}' for this many arguments"))
}

fn as_array(o: &Operand) -> Array {
    match o {
        Operand::Array(a) => a.clone(),
        Operand::Scalar(s) => panic!("expected an array argument, got {s:?}"),
    }
}

struct Ctx {
    dir: PathBuf,
    uploads: HashMap<String, kp::Result<Array>>,
    hosts: HashMap<String, HostArray>,
    /// Files kupfer::io::read_npy read with a shape other than the one NumPy wrote.
    io_failures: Vec<String>,
}

impl Ctx {
    fn host(&mut self, file: &str) -> HostArray {
        self.host_shaped(file, None)
    }

    /// Reads a .npy with kupfer::io::read_npy; a wrong shape is recorded as a failure (and the
    /// data reshaped, so the cases using the file still test the computation).
    fn host_shaped(&mut self, file: &str, shape: Option<Vec<usize>>) -> HostArray {
        if let Some(h) = self.hosts.get(file) {
            return h.clone();
        }
        let mut h = kp::io::read_npy(self.dir.join(file))
            .unwrap_or_else(|e| panic!("reading {file} with kupfer::io::read_npy: {e}"));
        if let Some(s) = shape {
            if h.shape != s {
                self.io_failures.push(format!(
                    "kupfer::io::read_npy({file}) gave shape {:?}, NumPy wrote {s:?}",
                    h.shape
                ));
                h.shape = s;
            }
        }
        self.hosts.insert(file.to_string(), h.clone());
        h
    }

    fn upload(&mut self, file: &str) -> kp::Result<Array> {
        if let Some(a) = self.uploads.get(file) {
            return a.clone();
        }
        let h = self.host(file);
        let a = Array::from_host(&h);
        self.uploads.insert(file.to_string(), a.clone());
        a
    }

    fn operand(&mut self, arg: &Value) -> kp::Result<Operand> {
        if let Some(s) = arg.get("s") {
            return Ok(Operand::Scalar(scalar(s)));
        }
        let file = arg["a"].as_str().unwrap();
        self.host_shaped(file, arg.get("shape").map(usizes));
        let a = self.upload(file)?;
        Ok(Operand::Array(apply_views(a, &arg["v"])?))
    }

    /// Runs one case up to its output arrays.
    fn run(&mut self, case: &Value) -> kp::Result<Vec<Array>> {
        let kind = case["kind"].as_str().unwrap();
        let op = case["op"].as_str().unwrap();
        let params = &case["params"];
        let mut args = Vec::new();
        for a in case["args"].as_array().unwrap() {
            args.push(self.operand(a)?);
        }
        Ok(match kind {
            "ufunc" => vec![call_ufunc(op, args)?],
            "view" => vec![as_array(&args[0])],
            "round" => {
                let d = params["decimals"].as_i64().unwrap() as i32;
                vec![kp::round(args.into_iter().next().unwrap(), d)?]
            }
            "astype" => vec![as_array(&args[0]).astype(dtype_param(&params["dtype"]).unwrap())?],
            "chain" => {
                let mut temps: Vec<Array> = Vec::new();
                for step in params["program"].as_array().unwrap() {
                    let step = step.as_array().unwrap();
                    let ops: Vec<Operand> = step[1..]
                        .iter()
                        .map(|r| match r {
                            Value::Number(n) => args[n.as_u64().unwrap() as usize].clone(),
                            Value::String(t) => {
                                Operand::Array(temps[t[1..].parse::<usize>().unwrap()].clone())
                            }
                            other => panic!("bad ref {other}"),
                        })
                        .collect();
                    temps.push(call_ufunc(step[0].as_str().unwrap(), ops)?);
                }
                vec![temps.pop().unwrap()]
            }
            "creation" => {
                let dt = dtype_param(&params["dtype"]);
                match op {
                    "arange" => vec![kp::arange(
                        scalar(&params["start"]),
                        scalar(&params["stop"]),
                        scalar(&params["step"]),
                        dt,
                    )?],
                    "linspace" => vec![kp::linspace(
                        jf(&params["start"]),
                        jf(&params["stop"]),
                        params["num"].as_u64().unwrap() as usize,
                        params["endpoint"].as_bool().unwrap(),
                        dt,
                    )?],
                    "eye" => vec![kp::eye(
                        params["n"].as_u64().unwrap() as usize,
                        params["m"].as_u64().map(|m| m as usize),
                        params["k"].as_i64().unwrap() as isize,
                        dt,
                    )?],
                    "identity" => vec![kp::identity(params["n"].as_u64().unwrap() as usize, dt)?],
                    "zeros" => vec![kp::zeros(&usizes(&params["shape"]), dt)?],
                    "ones" => vec![kp::ones(&usizes(&params["shape"]), dt)?],
                    "full" => vec![kp::full(
                        &usizes(&params["shape"]),
                        scalar(&params["value"]),
                        dt,
                    )?],
                    "meshgrid" => {
                        let xs: Vec<Array> = args.iter().map(as_array).collect();
                        kp::meshgrid(&xs, params["indexing"].as_str().unwrap())?
                    }
                    other => panic!("unknown creation op {other}"),
                }
            }
            other => panic!("unknown case kind {other}"),
        })
    }

    /// A short description of a case's arguments: dtypes, shapes, views, scalars.
    fn describe_args(&mut self, case: &Value) -> String {
        let mut parts = Vec::new();
        for a in case["args"].as_array().unwrap() {
            if let Some(s) = a.get("s") {
                parts.push(format!("scalar {s}"));
            } else {
                let h = self.host(a["a"].as_str().unwrap());
                let views = &a["v"];
                if views.as_array().is_some_and(|v| !v.is_empty()) {
                    parts.push(format!("{}{:?} {}", h.dtype(), h.shape, views));
                } else {
                    parts.push(format!("{}{:?}", h.dtype(), h.shape));
                }
            }
        }
        if let Some(p) = case["params"].as_object().filter(|p| !p.is_empty()) {
            parts.push(format!("params {}", Value::Object(p.clone())));
        }
        parts.join(", ")
    }

    /// The input elements that produced output element `flat` of an output of `shape`: for
    /// elementwise cases whose array arguments have no view ops (broadcasting allowed).
    fn inputs_at(&mut self, case: &Value, shape: &[usize], flat: usize) -> Option<String> {
        if !matches!(
            case["kind"].as_str(),
            Some("ufunc" | "round" | "astype" | "chain")
        ) {
            return None;
        }
        let idx = unravel(flat, shape);
        let mut parts = Vec::new();
        for a in case["args"].as_array()? {
            if let Some(s) = a.get("s") {
                parts.push(format!("{s}"));
                continue;
            }
            if a["v"].as_array().is_some_and(|v| !v.is_empty()) {
                return None;
            }
            let h = self.host(a["a"].as_str()?);
            // right-aligned broadcasting: axes of length 1 take index 0
            let off = idx.len().checked_sub(h.shape.len())?;
            let mut k = 0usize;
            for (d, &n) in h.shape.iter().enumerate() {
                k = k * n + if n == 1 { 0 } else { idx[off + d] };
            }
            parts.push(element(&h.data, k));
        }
        Some(parts.join(", "))
    }

    /// dtypes a case needs from the device (inputs, result, astype/creation targets).
    /// The dtype kupfer's defaults give where NumPy's expected `lacking` dtype comes only from
    /// NumPy's defaults (Python scalars, dtype=None) and the adapter lacks it; None where an
    /// input array or a dtype= asks for `lacking` itself.
    fn default_narrowing(
        &mut self,
        case: &Value,
        dev: &kp::Device,
        lacking: DType,
    ) -> Option<DType> {
        let narrow = match lacking {
            DType::I64 => dev.default_int(),
            DType::F64 => dev.default_float(),
            DType::Complex128 => DType::Complex64,
            _ => return None,
        };
        let mut asked = Vec::new();
        for a in case["args"].as_array()? {
            if let Some(f) = a.get("a").and_then(Value::as_str) {
                asked.push(self.host(f).dtype());
            }
        }
        asked.extend(dtype_param(&case["params"]["dtype"]));
        let wide = [DType::I64, DType::F64, DType::Complex128];
        (narrow != lacking && !asked.iter().any(|d| wide.contains(d))).then_some(narrow)
    }

    fn dtypes_needed(&mut self, case: &Value) -> Vec<DType> {
        let mut v = Vec::new();
        for a in case["args"].as_array().unwrap() {
            if let Some(f) = a.get("a").and_then(Value::as_str) {
                v.push(self.host(f).dtype());
            }
        }
        if let Some(d) = case["expect"].get("dtype").and_then(Value::as_str) {
            v.extend(DType::from_name(d).ok());
        }
        v.extend(dtype_param(&case["params"]["dtype"]));
        v
    }
}

// ------------------------------------------------------------------------------------------
// comparing

struct Tol {
    ulp: u64,
    zero_sign: bool,
    crel: f64,
    /// Flat indices of complex `power` results that NumPy's own value does not determine
    /// (gen.py's `power_noise`: a phase that is rounding noise, or a result at the overflow
    /// threshold): left out of the comparison.
    noise: Vec<usize>,
}

fn tol_of(case: &Value) -> Tol {
    let t = &case["tol"];
    Tol {
        ulp: t["ulp"].as_u64().unwrap_or(0),
        zero_sign: t["zero_sign"].as_bool().unwrap_or(true),
        crel: t["crel"].as_f64().unwrap_or(0.0),
        noise: case["noise"]
            .as_array()
            .map(|v| {
                v.iter()
                    .filter_map(|i| i.as_u64())
                    .map(|i| i as usize)
                    .collect()
            })
            .unwrap_or_default(),
    }
}

/// `got` with the elements at `tol.noise` replaced by the expected ones.
fn without_noise(got: &HostArray, exp: &HostArray, tol: &Tol) -> HostArray {
    let mut g = got.clone();
    match (&mut g.data, &exp.data) {
        (HostData::Complex64(g), HostData::Complex64(e)) => {
            for &i in &tol.noise {
                g[i] = e[i];
            }
        }
        (HostData::Complex128(g), HostData::Complex128(e)) => {
            for &i in &tol.noise {
                g[i] = e[i];
            }
        }
        _ => {}
    }
    g
}

/// A float as (value, position on the ordered integer line of its format).
trait Ulp: Copy + std::fmt::Debug {
    fn val(self) -> f64;
    fn ord(self) -> i128;
}

impl Ulp for f32 {
    fn val(self) -> f64 {
        self.into()
    }
    fn ord(self) -> i128 {
        let b = self.to_bits();
        let m = (b & 0x7fff_ffff) as i128;
        if b >> 31 == 1 {
            -m
        } else {
            m
        }
    }
}

impl Ulp for f64 {
    fn val(self) -> f64 {
        self
    }
    fn ord(self) -> i128 {
        let b = self.to_bits();
        let m = (b & 0x7fff_ffff_ffff_ffff) as i128;
        if b >> 63 == 1 {
            -m
        } else {
            m
        }
    }
}

impl Ulp for kp::f16 {
    fn val(self) -> f64 {
        self.into()
    }
    fn ord(self) -> i128 {
        let b = self.to_bits();
        let m = (b & 0x7fff) as i128;
        if b >> 15 == 1 {
            -m
        } else {
            m
        }
    }
}

/// None when `g` is acceptable for `e`, else the distance in ULPs (u128::MAX: NaN/inf/sign).
fn float_err<T: Ulp>(g: T, e: T, tol: &Tol) -> Option<u128> {
    let (gv, ev) = (g.val(), e.val());
    if ev.is_nan() || gv.is_nan() {
        return if ev.is_nan() && gv.is_nan() {
            None
        } else {
            Some(u128::MAX)
        };
    }
    if ev.is_infinite() || gv.is_infinite() {
        return if ev == gv { None } else { Some(u128::MAX) };
    }
    if tol.zero_sign && ev == 0.0 && gv == 0.0 && ev.is_sign_negative() != gv.is_sign_negative() {
        return Some(u128::MAX);
    }
    let d = (g.ord() - e.ord()).unsigned_abs();
    if d <= tol.ulp as u128 {
        None
    } else {
        Some(d)
    }
}

/// Complex results: exact per component for exact ops (add, subtract, negative, conj, casts,
/// ...); within `crel` machine epsilons of |expected| for multiply/divide-like ops. Where
/// those give a non-finite expected value (overflow, division by zero), the pattern of
/// NaN/inf components is the implementation's (NumPy does not follow C99 Annex G either): a
/// non-finite component is required, not the same one.
fn complex_ok(g: kp::Complex64, e: kp::Complex64, eps: f64, tol: &Tol) -> bool {
    let exact = Tol {
        ulp: 0,
        zero_sign: true,
        crel: 0.0,
        noise: Vec::new(),
    };
    if tol.crel == 0.0 {
        return float_err(g.re, e.re, &exact).is_none() && float_err(g.im, e.im, &exact).is_none();
    }
    let finite = |z: kp::Complex64| z.re.is_finite() && z.im.is_finite();
    if !finite(e) || !finite(g) {
        return !finite(e) && !finite(g);
    }
    let mag = e.re.hypot(e.im);
    let err = (g.re - e.re).abs().max((g.im - e.im).abs());
    err <= tol.crel * eps * mag
}

fn element(d: &HostData, i: usize) -> String {
    match d {
        HostData::Bool(v) => format!("{:?}", v[i]),
        HostData::I32(v) => format!("{:?}", v[i]),
        HostData::U32(v) => format!("{:?}", v[i]),
        HostData::I8(v) => format!("{:?}", v[i]),
        HostData::U8(v) => format!("{:?}", v[i]),
        HostData::I16(v) => format!("{:?}", v[i]),
        HostData::U16(v) => format!("{:?}", v[i]),
        HostData::I64(v) => format!("{:?}", v[i]),
        HostData::U64(v) => format!("{:?}", v[i]),
        HostData::F16(v) => format!("{:?}", v[i]),
        HostData::F32(v) => format!("{:?}", v[i]),
        HostData::F64(v) => format!("{:?}", v[i]),
        HostData::Complex64(v) => format!("{:?}", v[i]),
        HostData::Complex128(v) => format!("{:?}", v[i]),
    }
}

fn unravel(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        if shape[d] > 0 {
            idx[d] = i % shape[d];
            i /= shape[d];
        }
    }
    idx
}

/// A failed comparison: a headline and the elements worth showing (description, flat index).
struct Mismatch {
    header: String,
    items: Vec<(String, usize)>,
}

/// Elementwise comparison of same-typed data. `bad` gives None for a match, else the error in
/// ULPs (0 for exact types, u128::MAX for a NaN/inf/sign-of-zero mismatch). Reports the first
/// NaN/inf/sign mismatch and the worst finite error separately.
fn compare_slices<T: std::fmt::Debug>(
    g: &[T],
    e: &[T],
    shape: &[usize],
    bad: impl Fn(&T, &T) -> Option<u128>,
) -> Option<Mismatch> {
    let (mut count, mut special_count) = (0usize, 0usize);
    let mut special: Option<usize> = None;
    let mut worst: Option<(u128, usize)> = None;
    for (i, (a, b)) in g.iter().zip(e).enumerate() {
        if let Some(d) = bad(a, b) {
            count += 1;
            if d == u128::MAX {
                special_count += 1;
                special.get_or_insert(i);
            } else if worst.is_none_or(|(w, _)| d > w) {
                worst = Some((d, i));
            }
        }
    }
    if count == 0 {
        return None;
    }
    let show = |label: String, i: usize| {
        (
            format!(
                "{label} at {:?}: got {:?}, expected {:?}",
                unravel(i, shape),
                g[i],
                e[i]
            ),
            i,
        )
    };
    let mut items = Vec::new();
    if let Some(i) = special {
        items.push(show(
            format!("{special_count} NaN/inf/sign-of-zero mismatches, first"),
            i,
        ));
    }
    if let Some((d, i)) = worst {
        let label = if d > 0 {
            format!("worst finite error {d} ULP")
        } else {
            format!("{} mismatches, first", count - special_count)
        };
        items.push(show(label, i));
    }
    Some(Mismatch {
        header: format!("{count} of {} elements differ", g.len()),
        items,
    })
}

fn exact<T: PartialEq>(a: &T, b: &T) -> Option<u128> {
    if a == b {
        None
    } else {
        Some(0)
    }
}

/// None when equal within `tol`, else the message and the flat index of the first mismatch.
fn compare(got: &HostArray, exp: &HostArray, tol: &Tol) -> Option<Mismatch> {
    if got.dtype() != exp.dtype() {
        return Some(Mismatch {
            header: format!(
                "dtype {} but NumPy (kupfer rule) says {}",
                got.dtype(),
                exp.dtype()
            ),
            items: Vec::new(),
        });
    }
    if got.shape != exp.shape {
        return Some(Mismatch {
            header: format!("shape {:?} but expected {:?}", got.shape, exp.shape),
            items: Vec::new(),
        });
    }
    let masked;
    let got = if tol.noise.is_empty() {
        got
    } else {
        masked = without_noise(got, exp, tol);
        &masked
    };
    let s = &exp.shape;
    match (&got.data, &exp.data) {
        (HostData::Bool(g), HostData::Bool(e)) => compare_slices(g, e, s, exact),
        (HostData::I8(g), HostData::I8(e)) => compare_slices(g, e, s, exact),
        (HostData::U8(g), HostData::U8(e)) => compare_slices(g, e, s, exact),
        (HostData::I16(g), HostData::I16(e)) => compare_slices(g, e, s, exact),
        (HostData::U16(g), HostData::U16(e)) => compare_slices(g, e, s, exact),
        (HostData::I32(g), HostData::I32(e)) => compare_slices(g, e, s, exact),
        (HostData::U32(g), HostData::U32(e)) => compare_slices(g, e, s, exact),
        (HostData::I64(g), HostData::I64(e)) => compare_slices(g, e, s, exact),
        (HostData::U64(g), HostData::U64(e)) => compare_slices(g, e, s, exact),
        (HostData::F16(g), HostData::F16(e)) => {
            compare_slices(g, e, s, |a, b| float_err(*a, *b, tol))
        }
        (HostData::F32(g), HostData::F32(e)) => {
            compare_slices(g, e, s, |a, b| float_err(*a, *b, tol))
        }
        (HostData::F64(g), HostData::F64(e)) => {
            compare_slices(g, e, s, |a, b| float_err(*a, *b, tol))
        }
        (HostData::Complex64(g), HostData::Complex64(e)) => compare_slices(g, e, s, |a, b| {
            let wide = |z: &kp::Complex32| kp::Complex64::new(z.re.into(), z.im.into());
            if complex_ok(wide(a), wide(b), f64::from(f32::EPSILON), tol) {
                None
            } else {
                Some(0)
            }
        }),
        (HostData::Complex128(g), HostData::Complex128(e)) => compare_slices(g, e, s, |a, b| {
            if complex_ok(*a, *b, f64::EPSILON, tol) {
                None
            } else {
                Some(0)
            }
        }),
        _ => unreachable!("dtypes were compared"),
    }
}

/// The .npy files of a case's expected outputs.
fn expect_files(case: &Value) -> Vec<String> {
    let expect = &case["expect"];
    match (expect.get("file"), expect.get("files")) {
        (Some(f), _) => vec![f.as_str().unwrap().to_string()],
        (None, Some(fs)) => fs
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap().to_string())
            .collect(),
        _ => panic!("case without expectation"),
    }
}

/// NumPy's expected values in a narrower default dtype (int64 -> int32, float64 -> float32,
/// complex128 -> complex64), as kupfer computes them on an adapter without the wide one.
fn narrow_host(h: &HostArray, to: DType) -> HostArray {
    let data = match (&h.data, to) {
        (HostData::I64(v), DType::I32) => HostData::I32(v.iter().map(|&x| x as i32).collect()),
        (HostData::F64(v), DType::F32) => HostData::F32(v.iter().map(|&x| x as f32).collect()),
        (HostData::Complex128(v), DType::Complex64) => HostData::Complex64(
            v.iter()
                .map(|z| kp::Complex32::new(z.re as f32, z.im as f32))
                .collect(),
        ),
        (d, _) => d.clone(),
    };
    HostArray {
        shape: h.shape.clone(),
        data,
    }
}

fn error_kind(e: &Error) -> &'static str {
    match e {
        Error::ShapeMismatch { .. } => "ShapeMismatch",
        Error::Unsupported(_) => "Unsupported",
        Error::InvalidArgument(_) => "InvalidArgument",
        Error::OutOfMemory(_) => "OutOfMemory",
        Error::NoAdapter(_) => "NoAdapter",
        Error::Device(_) => "Device",
        Error::Compile { .. } => "Compile",
        Error::Io(_) => "Io",
        Error::LinAlg(_) => "LinAlg",
    }
}

// ------------------------------------------------------------------------------------------
// the test

enum Outcome {
    Pass,
    AllowedUnsupported,
    DeviceUnsupported,
}

fn check_case(ctx: &mut Ctx, case: &Value, dev: &kp::Device) -> Result<Outcome, String> {
    let expect = &case["expect"];
    let device_lacks = ctx
        .dtypes_needed(case)
        .into_iter()
        .find(|d| !dev.supports(*d));
    let result = ctx.run(case).and_then(|outs| {
        outs.iter()
            .map(Array::to_host)
            .collect::<kp::Result<Vec<_>>>()
    });
    if let Some(d) = device_lacks {
        if let Some(narrow) = ctx.default_narrowing(case, dev, d) {
            // NumPy's int64/float64 here comes only from its defaults for Python scalars and
            // dtype=None; kupfer's defaults on an adapter without them are int32/float32
            // (Device::default_int/default_float): the values, in that dtype.
            return match result {
                Ok(got) => {
                    let tol = tol_of(case);
                    let files = expect_files(case);
                    let shape = expect.get("shape").map(usizes);
                    let mut errs = Vec::new();
                    for (g, f) in got.iter().zip(&files) {
                        let e = narrow_host(&ctx.host_shaped(f, shape.clone()), narrow);
                        if let Some(m) = compare(g, &e, &tol) {
                            errs.push(format!(
                                "{} (NumPy {d} -> kupfer default {narrow})",
                                m.header
                            ));
                        }
                    }
                    if errs.is_empty() {
                        Ok(Outcome::Pass)
                    } else {
                        Err(errs.join("; "))
                    }
                }
                Err(Error::Unsupported(_)) => Ok(Outcome::DeviceUnsupported),
                // A Python integer past the narrower default's range: NumPy raises as well
                // when asked for that dtype.
                Err(Error::InvalidArgument(m)) if m.contains("out of bounds for") => {
                    Ok(Outcome::DeviceUnsupported)
                }
                Err(e) => Err(format!("kupfer returned an error: {e:?}")),
            };
        }
        return match result {
            Err(Error::Unsupported(_)) => Ok(Outcome::DeviceUnsupported),
            Err(e) => Err(format!(
                "this adapter lacks {d}: expected Error::Unsupported, got {e:?}"
            )),
            Ok(_) => Err(format!(
                "this adapter lacks {d}, yet kupfer returned a result"
            )),
        };
    }
    if let Some(want) = expect.get("error").and_then(Value::as_str) {
        let why = expect.get("numpy").and_then(Value::as_str).unwrap_or("");
        return match result {
            Ok(h) => Err(format!(
                "expected Error::{want} (NumPy: {why}), but kupfer returned {} {:?}",
                h[0].dtype(),
                h[0].shape
            )),
            Err(e) => {
                let kind = error_kind(&e);
                if !want.split('|').any(|w| w == kind) {
                    return Err(format!("expected Error::{want} (NumPy: {why}), got {e:?}"));
                }
                if let (Error::ShapeMismatch { lhs, rhs, .. }, Some(shapes)) =
                    (&e, expect.get("shapes"))
                {
                    let shapes: Vec<Vec<usize>> =
                        shapes.as_array().unwrap().iter().map(usizes).collect();
                    if case["op"] != "where" && (lhs != &shapes[0] || rhs != &shapes[1]) {
                        return Err(format!(
                            "ShapeMismatch should name the operand shapes {:?} and {:?}: {e}",
                            shapes[0], shapes[1]
                        ));
                    }
                }
                Ok(Outcome::Pass)
            }
        };
    }
    let got = match result {
        Ok(g) => g,
        Err(Error::Unsupported(m)) if case["allow_unsupported"].as_bool() == Some(true) => {
            let _ = m;
            return Ok(Outcome::AllowedUnsupported);
        }
        Err(e) => return Err(format!("kupfer returned an error: {e:?}")),
    };
    let files = expect_files(case);
    if files.len() != got.len() {
        return Err(format!("{} outputs, expected {}", got.len(), files.len()));
    }
    let tol = tol_of(case);
    let mut errs = Vec::new();
    let shape = expect.get("shape").map(usizes);
    for (i, (g, f)) in got.iter().zip(&files).enumerate() {
        let e = ctx.host_shaped(f, shape.clone());
        if let Some(m) = compare(g, &e, &tol) {
            let mut msg = m.header;
            for (desc, at) in m.items {
                msg.push_str(&format!("; {desc}"));
                if let Some(inputs) = ctx.inputs_at(case, &e.shape, at) {
                    msg.push_str(&format!(" (inputs: {inputs})"));
                }
            }
            errs.push(if files.len() > 1 {
                format!("output {i}: {msg}")
            } else {
                msg
            });
        }
    }
    if errs.is_empty() {
        Ok(Outcome::Pass)
    } else {
        Err(errs.join("; "))
    }
}

/// What one thread's golden cases gave.
#[derive(Default)]
struct Tally {
    failures: Vec<String>,
    per_section: BTreeMap<String, (usize, usize, usize)>,
    allowed: Vec<String>,
    lacking: usize,
}

/// Checks `cases` in turn with a context of its own (uploads and host arrays cached per
/// file).
fn run_cases(cases: &[&Value], dir: &Path, dev: &kp::Device) -> Tally {
    let mut ctx = Ctx {
        dir: dir.to_path_buf(),
        uploads: HashMap::new(),
        hosts: HashMap::new(),
        io_failures: Vec::new(),
    };
    let mut t = Tally::default();
    for &case in cases {
        let id = case["id"].as_str().unwrap();
        let section = id.split('-').next().unwrap().to_string();
        let outcome = catch_unwind(AssertUnwindSafe(|| check_case(&mut ctx, case, dev)))
            .unwrap_or_else(|p| {
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                Err(format!("PANICKED: {msg}"))
            });
        let entry = t.per_section.entry(section).or_default();
        entry.0 += 1;
        match outcome {
            Ok(Outcome::Pass) => entry.1 += 1,
            Ok(Outcome::AllowedUnsupported) => {
                entry.2 += 1;
                t.allowed.push(format!(
                    "{} {}",
                    case["op"].as_str().unwrap(),
                    ctx.describe_args(case)
                ));
            }
            Ok(Outcome::DeviceUnsupported) => t.lacking += 1,
            Err(msg) => {
                let note = case["note"]
                    .as_str()
                    .map(|n| format!(" [{n}]"))
                    .unwrap_or_default();
                t.failures.push(format!(
                    "[{id}] {} {}({}){note}: {msg}",
                    case["kind"].as_str().unwrap(),
                    case["op"].as_str().unwrap(),
                    ctx.describe_args(case)
                ));
            }
        }
    }
    t.failures
        .extend(ctx.io_failures.iter().map(|m| format!("[io] {m}")));
    t
}

#[test]
fn goldens_against_numpy() {
    let dir = generate();
    let dev = kp::Device::default_device()
        .unwrap_or_else(|e| panic!("no GPU adapter for the golden tests (install Mesa's lavapipe: mesa-vulkan-drivers): {e}"));
    eprintln!("device: {:?}", dev);
    let manifest = std::fs::read_to_string(dir.join("manifest.jsonl")).expect("manifest.jsonl");
    let cases: Vec<Value> = manifest
        .lines()
        .map(|l| serde_json::from_str(l).expect("manifest line"))
        .collect();
    let filter = std::env::var("GOLDEN_FILTER").ok();
    let sections = std::env::var("GOLDEN_SECTIONS").ok();
    let sections: Option<Vec<&str>> = sections.as_deref().map(|s| s.split(',').collect());
    let selected: Vec<&Value> = cases
        .iter()
        .filter(|case| {
            let id = case["id"].as_str().unwrap();
            let matches = filter
                .as_ref()
                .is_none_or(|f| id.contains(f.as_str()) || case["op"].as_str() == Some(f.as_str()));
            let section = id.split('-').next().unwrap();
            matches && sections.as_ref().is_none_or(|s| s.contains(&section))
        })
        .collect();
    // The cases in contiguous parts, one thread each (GOLDEN_THREADS, default 2): most of a
    // case's time is host work (the O0 test code, shader compiles), one core's worth.
    let threads = std::env::var("GOLDEN_THREADS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(2)
        .clamp(1, 16);
    let t0 = Instant::now();
    let part = selected.len().div_ceil(threads).max(1);
    let tallies: Vec<Tally> = std::thread::scope(|scope| {
        let handles: Vec<_> = selected
            .chunks(part)
            .map(|chunk| {
                let (dir, dev) = (&dir, &dev);
                scope.spawn(move || run_cases(chunk, dir, dev))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a golden thread"))
            .collect()
    });
    let mut failures: Vec<String> = Vec::new();
    let mut per_section: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
    let (mut allowed, mut lacking) = (Vec::new(), 0usize);
    let run = selected.len();
    for t in tallies {
        failures.extend(t.failures);
        allowed.extend(t.allowed);
        lacking += t.lacking;
        for (section, (n, ok, un)) in t.per_section {
            let e = per_section.entry(section).or_default();
            e.0 += n;
            e.1 += ok;
            e.2 += un;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        run > 0,
        "no golden case matches GOLDEN_FILTER / GOLDEN_SECTIONS"
    );
    let secs = t0.elapsed().as_secs_f64();
    eprintln!("{run} golden cases in {secs:.1} s:");
    for (s, (n, ok, un)) in &per_section {
        eprintln!(
            "  {s:10} {n:5} cases, {ok:5} pass, {un:4} documented-unsupported, {:4} FAIL",
            n - ok - un
        );
    }
    if lacking > 0 {
        eprintln!("  {lacking} cases need a dtype this adapter lacks (kupfer answered Unsupported, as it should)");
    }
    if !allowed.is_empty() {
        eprintln!(
            "  {} cases with complex operands that kupfer documents as unsupported (allowed), e.g. {}",
            allowed.len(),
            allowed.iter().take(3).cloned().collect::<Vec<_>>().join("; ")
        );
    }
    if !failures.is_empty() {
        eprintln!("\n{} FAILURES:", failures.len());
        for f in &failures {
            eprintln!("{f}");
        }
        panic!(
            "{} of {run} golden cases failed (all listed above)",
            failures.len()
        );
    }
}
