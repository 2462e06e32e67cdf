//! `kupfer::signal` against SciPy (`scipy.signal`, run at test time through python3).
//!
//! Every case draws seeded random inputs, runs a kupfer signal function on (views of) them,
//! and asks SciPy for the same call on the same data; the two results must agree in shape,
//! dtype (where both inputs share a dtype; mixed inputs follow kupfer's promotion, which
//! does not widen 32-bit types) and values — integers exactly, floats within the rounding of
//! a sum of `k` products. Where SciPy raises, kupfer must return an error (never panic).
//!
//! Needs python3 with NumPy and SciPy and a GPU adapter (lavapipe will do); fails, never
//! skips, without them. Run: `cargo test -p kupfer-suite --test signal`.

mod common;

use kp::signal::{Boundary, Method, Mode};
use kp::{Array, Complex32, DType, SliceArg};
use kupfer as kp;
use serde_json::{json, Value};
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::process::{Command, Stdio};

/// One input: values (imaginary parts for complex), shape, dtype.
#[derive(Clone)]
struct Input {
    re: Vec<f64>,
    im: Vec<f64>,
    shape: Vec<usize>,
    dtype: DType,
}

fn input(seed: u64, shape: &[usize], dtype: DType) -> Input {
    let n: usize = shape.iter().product();
    let (lo, hi) = match dtype {
        DType::U32 => (0.0, 9.0),
        d if d.is_int() => (-9.0, 9.0),
        _ => (-1.0, 1.0),
    };
    let re = common::values(seed, 0x5167, n, dtype, lo, hi);
    let im = if dtype.is_complex() {
        common::values(seed + 1000, 0x5167, n, DType::F32, -1.0, 1.0)
    } else {
        vec![0.0; n]
    };
    let re = if dtype.is_complex() {
        common::values(seed, 0x5167, n, DType::F32, -1.0, 1.0)
    } else {
        re
    };
    Input {
        re,
        im,
        shape: shape.to_vec(),
        dtype,
    }
}

impl Input {
    fn upload(&self) -> Array {
        if self.dtype == DType::Complex64 {
            let v: Vec<Complex32> = self
                .re
                .iter()
                .zip(&self.im)
                .map(|(&r, &i)| Complex32::new(r as f32, i as f32))
                .collect();
            Array::from_slice(&v, &self.shape).expect("upload")
        } else {
            common::upload(&self.re, self.dtype, &self.shape)
        }
    }

    fn json(&self) -> Value {
        json!({"re": self.re, "im": self.im, "shape": self.shape, "dtype": self.dtype.name()})
    }

    fn max_abs(&self) -> f64 {
        self.re
            .iter()
            .zip(&self.im)
            .map(|(r, i)| r.hypot(*i))
            .fold(0.0, f64::max)
    }
}

type RunFn = Box<dyn Fn(&Array, &Array) -> kp::Result<Array>>;

struct Case {
    id: String,
    a: Input,
    b: Input,
    /// Python expression over `a`, `b` (NumPy arrays) and `sig` (scipy.signal).
    py: String,
    run: RunFn,
    /// Products summed per output value (for the float tolerance).
    terms: usize,
}

fn case(
    id: impl Into<String>,
    a: Input,
    b: Input,
    py: impl Into<String>,
    run: impl Fn(&Array, &Array) -> kp::Result<Array> + 'static,
) -> Case {
    let terms = b
        .shape
        .iter()
        .product::<usize>()
        .max(a.shape.iter().product());
    Case {
        id: id.into(),
        a,
        b,
        py: py.into(),
        run: Box::new(run),
        terms,
    }
}

const SCRIPT: &str = r#"
import json, sys, warnings
import numpy as np
import scipy.signal as sig
warnings.simplefilter("ignore")
cases = json.load(sys.stdin)
out = []
def arr(d):
    x = np.array(d["re"], dtype=np.float64)
    if d["dtype"] == "complex64":
        x = x + 1j * np.array(d["im"], dtype=np.float64)
    return x.astype(d["dtype"]).reshape(d["shape"])
for c in cases:
    a = arr(c["a"]); b = arr(c["b"])
    try:
        r = np.asarray(eval(c["py"]))
    except Exception as e:
        out.append({"error": f"{type(e).__name__}: {e}"}); continue
    f = r.ravel()
    out.append({"shape": list(r.shape), "dtype": str(r.dtype),
                "re": [float(v) for v in f.real], "im": [float(v) for v in f.imag]})
print(json.dumps(out))
"#;

fn scipy(cases: &[Case]) -> Vec<Value> {
    let payload: Vec<Value> = cases
        .iter()
        .map(|c| json!({"a": c.a.json(), "b": c.b.json(), "py": c.py}))
        .collect();
    let mut child = Command::new("python3")
        .arg("-c")
        .arg(SCRIPT)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 (with numpy and scipy) is needed for this test");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(serde_json::to_string(&payload).unwrap().as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(
        o.status.success(),
        "python3 failed (pip install numpy scipy): {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("scipy output")
}

fn eps(d: DType) -> f64 {
    match d {
        DType::F64 => f64::EPSILON,
        _ => f32::EPSILON as f64,
    }
}

/// Reads a kupfer result as (re, im) f64 pairs.
fn host_values(a: &Array) -> kp::Result<(Vec<f64>, Vec<f64>)> {
    Ok(match a.dtype() {
        DType::Complex64 => {
            let v = a.to_vec::<Complex32>()?;
            (
                v.iter().map(|c| c.re as f64).collect(),
                v.iter().map(|c| c.im as f64).collect(),
            )
        }
        DType::F32 => (
            a.to_vec::<f32>()?.iter().map(|&x| x as f64).collect(),
            vec![],
        ),
        DType::F64 => (a.to_vec::<f64>()?, vec![]),
        DType::I32 => (
            a.to_vec::<i32>()?.iter().map(|&x| x as f64).collect(),
            vec![],
        ),
        DType::U32 => (
            a.to_vec::<u32>()?.iter().map(|&x| x as f64).collect(),
            vec![],
        ),
        DType::I64 => (
            a.to_vec::<i64>()?.iter().map(|&x| x as f64).collect(),
            vec![],
        ),
        d => panic!("unexpected result dtype {d}"),
    })
}

fn check(c: &Case, want: &Value) -> Result<(), String> {
    let (a, b) = (c.a.upload(), c.b.upload());
    let got = catch_unwind(AssertUnwindSafe(|| (c.run)(&a, &b)))
        .map_err(|_| "kupfer panicked".to_string())?;
    if let Some(e) = want.get("error") {
        return match got {
            Err(_) => Ok(()),
            Ok(r) => Err(format!("scipy raised {e}, kupfer returned {r:?}")),
        };
    }
    let got = got.map_err(|e| format!("kupfer error {e}, scipy returned a result"))?;
    let shape: Vec<usize> = want["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as usize)
        .collect();
    if got.shape() != shape.as_slice() {
        return Err(format!("shape {:?}, scipy {shape:?}", got.shape()));
    }
    let want_dtype = want["dtype"].as_str().unwrap();
    if c.a.dtype == c.b.dtype && got.dtype().name() != want_dtype {
        return Err(format!("dtype {}, scipy {want_dtype}", got.dtype()));
    }
    let (re, im) = host_values(&got).map_err(|e| e.to_string())?;
    let wre: Vec<f64> = want["re"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let wim: Vec<f64> = want["im"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let exact = got.dtype().is_int();
    let scale = c.a.max_abs().max(3.0) * c.b.max_abs().max(1.0) * c.terms as f64;
    let tol = if exact {
        0.0
    } else {
        4.0 * eps(got.dtype()) * scale
    };
    for i in 0..wre.len() {
        let gi = im.get(i).copied().unwrap_or(0.0);
        let d = (re[i] - wre[i]).abs().max((gi - wim[i]).abs());
        if d > tol || d.is_nan() {
            return Err(format!(
                "element {i}: got {} {gi}j, scipy {} {}j (tol {tol:e})",
                re[i], wre[i], wim[i]
            ));
        }
    }
    Ok(())
}

fn run_cases(cases: Vec<Case>) {
    kp::Device::current().expect("a GPU adapter (lavapipe will do)");
    let wants = scipy(&cases);
    let mut failures = Vec::new();
    for (c, w) in cases.iter().zip(&wants) {
        if let Err(e) = check(c, w) {
            failures.push(format!("{}: {e}", c.id));
        }
    }
    common::assert_no_failures(&failures, cases.len());
}

const MODES: [(&str, Mode); 3] = [
    ("full", Mode::Full),
    ("same", Mode::Same),
    ("valid", Mode::Valid),
];
const BOUNDARIES: [(&str, Boundary); 3] = [
    ("fill", Boundary::Fill),
    ("wrap", Boundary::Wrap),
    ("symm", Boundary::Symm),
];

fn all(step: isize) -> SliceArg {
    SliceArg::Slice {
        start: None,
        stop: None,
        step: Some(step),
    }
}

#[test]
fn convolve2d_and_correlate2d_match_scipy() {
    let mut cases = Vec::new();
    let shapes: [([usize; 2], [usize; 2]); 10] = [
        ([7, 9], [3, 3]),
        ([6, 5], [4, 2]),
        ([2, 3], [5, 5]),
        ([3, 2], [7, 8]),
        ([1, 1], [1, 1]),
        ([33, 40], [1, 1]),
        ([70, 131], [3, 3]),
        ([37, 66], [2, 5]),
        ([5, 40], [3, 17]),
        ([20, 21], [17, 2]),
    ];
    let mut seed = 1;
    for (sa, sb) in shapes {
        for (mname, mode) in MODES {
            for (bname, boundary) in BOUNDARIES {
                for corr in [false, true] {
                    seed += 1;
                    let (a, b) = (
                        input(seed, &sa, DType::F32),
                        input(seed + 500, &sb, DType::F32),
                    );
                    let f = if corr { "correlate2d" } else { "convolve2d" };
                    let id = format!("{f} {sa:?} {sb:?} {mname} {bname}");
                    let py = format!("sig.{f}(a, b, mode='{mname}', boundary='{bname}')");
                    cases.push(case(id, a, b, py, direct_2d(corr, mode, boundary, 0.0)));
                }
            }
        }
    }
    // fill values, also truncated to an integer dtype
    for (dt, fill) in [(DType::F32, 2.5), (DType::I32, 2.5), (DType::F32, -1.0)] {
        let (a, b) = (input(900, &[6, 7], dt), input(901, &[3, 2], dt));
        cases.push(case(
            format!("fillvalue {fill} {dt}"),
            a,
            b,
            format!("sig.convolve2d(a, b, mode='full', fillvalue={fill})"),
            move |a, b| kp::signal::convolve2d(a, b, Mode::Full, Boundary::Fill, fill),
        ));
    }
    run_cases(cases);
}

#[test]
fn convolve2d_views_dtypes_and_lazy_inputs() {
    let dev = kp::Device::current().expect("a GPU adapter (lavapipe will do)");
    let mut cases = Vec::new();
    // views of the image and the kernel
    type ViewFn = fn(&Array) -> kp::Result<Array>;
    let views: [(&str, &str, ViewFn); 5] = [
        ("transposed", "X.T", |a| a.t()),
        ("strided", "X[::2, 1::3]", |a| {
            a.slice(&[
                all(2),
                SliceArg::Slice {
                    start: Some(1),
                    stop: None,
                    step: Some(3),
                },
            ])
        }),
        ("reversed", "X[::-1, :]", |a| a.slice(&[all(-1), all(1)])),
        ("lazy", "X * 2 + 1", |a| Ok(a * 2.0 + 1.0)),
        ("broadcast row", "np.broadcast_to(X[:1], X.shape)", |a| {
            a.slice(&[SliceArg::range(0, 1), all(1)])?
                .broadcast_to(a.shape())
        }),
    ];
    for (i, (name, pyview, view)) in views.into_iter().enumerate() {
        for (bname, boundary) in BOUNDARIES {
            let (a, b) = (
                input(2000 + i as u64, &[23, 18], DType::F32),
                input(2100 + i as u64, &[3, 4], DType::F32),
            );
            let pv = pyview.to_string();
            cases.push(case(
                format!("image {name} {bname}"),
                a,
                b,
                format!(
                    "sig.convolve2d({}, b, mode='same', boundary='{bname}')",
                    pv.replace('X', "a")
                ),
                move |a, b| kp::signal::convolve2d(&view(a)?, b, Mode::Same, boundary, 0.0),
            ));
            let (a, b) = (
                input(2200 + i as u64, &[12, 15], DType::F32),
                input(2300 + i as u64, &[4, 5], DType::F32),
            );
            let pyk = pv.replace('X', "b");
            cases.push(case(
                format!("kernel {name} {bname}"),
                a,
                b,
                format!("sig.correlate2d(a, {pyk}, mode='full', boundary='{bname}')"),
                move |a, b| kp::signal::correlate2d(a, &view(b)?, Mode::Full, boundary, 0.0),
            ));
        }
    }
    // dtypes
    let mut dts = vec![DType::I32, DType::U32, DType::Complex64];
    dts.extend(
        [DType::F64, DType::I64]
            .into_iter()
            .filter(|&d| dev.supports(d)),
    );
    for dt in dts {
        for (mname, mode) in MODES {
            for (bname, boundary) in BOUNDARIES {
                for corr in [false, true] {
                    let (a, b) = (input(3000, &[9, 70], dt), input(3001, &[3, 4], dt));
                    let f = if corr { "correlate2d" } else { "convolve2d" };
                    cases.push(case(
                        format!("{f} {dt} {mname} {bname}"),
                        a,
                        b,
                        format!("sig.{f}(a, b, mode='{mname}', boundary='{bname}')"),
                        move |a, b| {
                            if corr {
                                kp::signal::correlate2d(a, b, mode, boundary, 0.0)
                            } else {
                                kp::signal::convolve2d(a, b, mode, boundary, 0.0)
                            }
                        },
                    ));
                }
            }
        }
    }
    // mixed dtypes (kupfer's promotion: int32 with float32 gives float32; SciPy's float64)
    for (da, db) in [
        (DType::I32, DType::F32),
        (DType::F32, DType::Complex64),
        (DType::Bool, DType::F32),
    ] {
        cases.push(case(
            format!("mixed {da} {db}"),
            input(3100, &[8, 9], da),
            input(3101, &[2, 3], db),
            "sig.convolve2d(a, b, mode='same', boundary='symm')",
            |a, b| kp::signal::convolve2d(a, b, Mode::Same, Boundary::Symm, 0.0),
        ));
    }
    // complex fill value for a complex result
    cases.push(case(
        "complex fillvalue",
        input(3200, &[5, 6], DType::Complex64),
        input(3201, &[2, 2], DType::Complex64),
        "sig.convolve2d(a, b, fillvalue=1+2j)",
        |a, b| {
            kp::signal::convolve2d(
                a,
                b,
                Mode::Full,
                Boundary::Fill,
                kp::Scalar::Complex { re: 1.0, im: 2.0 },
            )
        },
    ));
    run_cases(cases);
}

#[test]
fn convolve2d_bad_inputs_are_errors() {
    let mut cases = Vec::new();
    let f32_ = DType::F32;
    cases.push(case(
        "1-D image",
        input(1, &[5], f32_),
        input(2, &[2, 2], f32_),
        "sig.convolve2d(a, b)",
        |a, b| kp::signal::convolve2d(a, b, Mode::Full, Boundary::Fill, 0.0),
    ));
    cases.push(case(
        "3-D kernel",
        input(1, &[5, 4], f32_),
        input(2, &[2, 2, 1], f32_),
        "sig.correlate2d(a, b)",
        |a, b| kp::signal::correlate2d(a, b, Mode::Full, Boundary::Fill, 0.0),
    ));
    for (sa, sb) in [([4, 4], [9, 1]), ([2, 8], [3, 3])] {
        cases.push(case(
            format!("valid {sa:?} {sb:?}"),
            input(1, &sa, f32_),
            input(2, &sb, f32_),
            "sig.convolve2d(a, b, mode='valid')",
            |a, b| kp::signal::convolve2d(a, b, Mode::Valid, Boundary::Fill, 0.0),
        ));
    }
    cases.push(case(
        "bool",
        input(1, &[4, 4], DType::Bool),
        input(2, &[2, 2], DType::Bool),
        "sig.convolve2d(a, b)",
        |a, b| kp::signal::convolve2d(a, b, Mode::Full, Boundary::Fill, 0.0),
    ));
    cases.push(case(
        "complex fill for a real result",
        input(1, &[4, 4], f32_),
        input(2, &[2, 2], f32_),
        "sig.convolve2d(a, b, fillvalue=1+2j)",
        |a, b| {
            kp::signal::convolve2d(
                a,
                b,
                Mode::Full,
                Boundary::Fill,
                kp::Scalar::Complex { re: 1.0, im: 2.0 },
            )
        },
    ));
    // Empty inputs: SciPy's convolve and correlate refuse them with every method
    // (fftconvolve returns an empty result; the fftconvolve test covers it).
    for (sa, sb) in [
        (vec![0usize], vec![3usize]),
        (vec![3], vec![0]),
        (vec![0, 3], vec![2, 2]),
        (vec![4, 4], vec![0, 2]),
    ] {
        for (name, method) in [
            ("auto", Method::Auto),
            ("fft", Method::Fft),
            ("direct", Method::Direct),
        ] {
            type Conv = fn(&Array, &Array, Mode, Method) -> kp::Result<Array>;
            let fs: [(&str, Conv); 2] = [
                ("convolve", kp::signal::convolve),
                ("correlate", kp::signal::correlate),
            ];
            for (f, run) in fs {
                cases.push(case(
                    format!("empty {f} {sa:?} {sb:?} {name}"),
                    input(1, &sa, f32_),
                    input(2, &sb, f32_),
                    format!("sig.{f}(a, b, method='{name}')"),
                    move |a, b| run(a, b, Mode::Full, method),
                ));
            }
        }
    }
    run_cases(cases);
    // bad mode and boundary names: SciPy's messages
    let e = "bad".parse::<Mode>().unwrap_err().to_string();
    assert!(e.contains("Acceptable mode flags"), "{e}");
    let e = "reflect".parse::<Boundary>().unwrap_err().to_string();
    assert!(e.contains("Acceptable boundary flags"), "{e}");
    assert_eq!("circular".parse::<Boundary>().unwrap(), Boundary::Wrap);
    assert_eq!("symmetric".parse::<Boundary>().unwrap(), Boundary::Symm);
    assert_eq!("pad".parse::<Boundary>().unwrap(), Boundary::Fill);
}

#[test]
fn convolve_and_correlate_match_scipy() {
    let mut cases = Vec::new();
    let shapes: [(&[usize], &[usize]); 9] = [
        (&[10], &[3]),
        (&[10], &[4]),
        (&[3], &[8]),
        (&[1], &[1]),
        (&[300], &[16]),
        (&[50], &[23]),
        (&[9, 8], &[3, 4]),
        (&[4, 5], &[6, 2]),
        (&[3, 3], &[5, 5]),
    ];
    let mut seed = 5000;
    for (sa, sb) in shapes {
        for (mname, mode) in MODES {
            for corr in [false, true] {
                for dt in [DType::F32, DType::Complex64, DType::I32] {
                    seed += 2;
                    let f = if corr { "correlate" } else { "convolve" };
                    cases.push(case(
                        format!("{f} {sa:?} {sb:?} {mname} {dt}"),
                        input(seed, sa, dt),
                        input(seed + 1, sb, dt),
                        format!("sig.{f}(a, b, mode='{mname}', method='direct')"),
                        direct_nd(corr, mode),
                    ));
                }
            }
        }
    }
    cases.push(case(
        "0-d",
        input(1, &[], DType::F32),
        input(2, &[], DType::F32),
        "sig.convolve(a, b)",
        |a, b| kp::signal::convolve(a, b, Mode::Full, Method::Auto),
    ));
    cases.push(case(
        "rank mismatch",
        input(1, &[4], DType::F32),
        input(2, &[2, 2], DType::F32),
        "sig.correlate(a, b)",
        |a, b| kp::signal::correlate(a, b, Mode::Full, Method::Auto),
    ));
    cases.push(case(
        "valid neither larger",
        input(1, &[4, 2], DType::F32),
        input(2, &[2, 4], DType::F32),
        "sig.convolve(a, b, mode='valid')",
        |a, b| kp::signal::convolve(a, b, Mode::Valid, Method::Auto),
    ));
    run_cases(cases);
    let e = "fast".parse::<Method>().unwrap_err().to_string();
    assert!(e.contains("Acceptable method flags"), "{e}");
}

/// `correlate` (when `corr`) or `convolve` by the direct method.
fn direct_nd(corr: bool, mode: Mode) -> impl Fn(&Array, &Array) -> kp::Result<Array> + 'static {
    move |a, b| {
        if corr {
            kp::signal::correlate(a, b, mode, Method::Direct)
        } else {
            kp::signal::convolve(a, b, mode, Method::Direct)
        }
    }
}

/// `correlate2d` (when `corr`) or `convolve2d` with these settings.
fn direct_2d(
    corr: bool,
    mode: Mode,
    boundary: Boundary,
    fill: f64,
) -> impl Fn(&Array, &Array) -> kp::Result<Array> + 'static {
    move |a, b| {
        if corr {
            kp::signal::correlate2d(a, b, mode, boundary, fill)
        } else {
            kp::signal::convolve2d(a, b, mode, boundary, fill)
        }
    }
}

/// Kernels of more taps than one thread may sum (software Vulkan ends a shader invocation's
/// loops after 65535 iterations, silently): the direct method runs them in blocks of taps.
/// Integers must match exactly and float64 closely, so a lost block of taps shows.
#[test]
fn long_kernels_match_scipy() {
    let mut cases = Vec::new();
    let mut seed = 7000;
    for dt in [DType::I32, DType::F64] {
        if !kp::Device::current().is_ok_and(|d| d.supports(dt)) {
            continue;
        }
        for corr in [false, true] {
            let f = if corr { "correlate" } else { "convolve" };
            for (mname, mode, sa) in [("valid", Mode::Valid, 70003usize), ("same", Mode::Same, 12)]
            {
                seed += 2;
                cases.push(case(
                    format!("{f} 1-d {sa} x 70000 {mname} {dt}"),
                    input(seed, &[sa], dt),
                    input(seed + 1, &[70000], dt),
                    format!("sig.{f}(a, b, mode='{mname}', method='direct')"),
                    direct_nd(corr, mode),
                ));
            }
            // 2-D: blocks of columns (a 2 x 36000 kernel) and of rows and columns (3 x
            // 30000), under every boundary rule.
            seed += 2;
            let f2 = format!("{f}2d");
            cases.push(case(
                format!("{f2} valid 2x36000 {dt}"),
                input(seed, &[2, 40003], dt),
                input(seed + 1, &[2, 36000], dt),
                format!("sig.{f2}(a, b, mode='valid')"),
                direct_2d(corr, Mode::Valid, Boundary::Fill, 0.0),
            ));
            for (bname, boundary) in BOUNDARIES {
                seed += 2;
                cases.push(case(
                    format!("{f2} same 3x30000 {bname} {dt}"),
                    input(seed, &[2, 9], dt),
                    input(seed + 1, &[3, 30000], dt),
                    format!("sig.{f2}(a, b, mode='same', boundary='{bname}', fillvalue=2)"),
                    direct_2d(corr, Mode::Same, boundary, 2.0),
                ));
            }
        }
    }
    run_cases(cases);
}

#[test]
fn fftconvolve_and_the_fft_method_match_scipy() {
    let mut cases = Vec::new();
    let shapes: [(&[usize], &[usize]); 10] = [
        (&[50], &[7]),
        (&[7], &[50]),
        (&[1], &[1]),
        (&[97], &[97]),
        (&[12, 10], &[5, 4]),
        (&[5, 6], &[9, 2]),
        (&[6, 7, 5], &[3, 2, 4]),
        (&[33, 1], &[1, 5]),
        (&[16, 8], &[16, 3]),
        (&[300], &[40]),
    ];
    let mut seed = 7000;
    for (sa, sb) in shapes {
        for (mname, mode) in MODES {
            for dt in [DType::F32, DType::Complex64] {
                seed += 2;
                cases.push(case(
                    format!("fftconvolve {sa:?} {sb:?} {mname} {dt}"),
                    input(seed, sa, dt),
                    input(seed + 1, sb, dt),
                    format!("sig.fftconvolve(a, b, mode='{mname}')"),
                    move |a, b| kp::signal::fftconvolve(a, b, mode, None),
                ));
            }
        }
    }
    // axes: the others broadcast
    for (sa, sb, axes) in [
        ([4usize, 20], [4usize, 5], vec![1isize]),
        ([4, 20], [1, 5], vec![-1]),
        ([6, 9], [3, 9], vec![0]),
        ([6, 9], [3, 4], vec![0, 1]),
    ] {
        for (mname, mode) in MODES {
            seed += 2;
            let ax = axes.clone();
            cases.push(case(
                format!("fftconvolve {sa:?} {sb:?} axes {axes:?} {mname}"),
                input(seed, &sa, DType::F32),
                input(seed + 1, &sb, DType::F32),
                format!("sig.fftconvolve(a, b, mode='{mname}', axes={axes:?})"),
                move |a, b| kp::signal::fftconvolve(a, b, mode, Some(&ax)),
            ));
        }
    }
    // views and mixed inputs
    cases.push(case(
        "fftconvolve transposed and reversed",
        input(7500, &[20, 9], DType::F32),
        input(7501, &[4, 6], DType::F32),
        "sig.fftconvolve(a.T, b[::-1], mode='same')",
        |a, b| kp::signal::fftconvolve(&a.t()?, &b.slice(&[all(-1), all(1)])?, Mode::Same, None),
    ));
    cases.push(case(
        "fftconvolve real with complex",
        input(7502, &[30], DType::F32),
        input(7503, &[6], DType::Complex64),
        "sig.fftconvolve(a, b)",
        |a, b| kp::signal::fftconvolve(a, b, Mode::Full, None),
    ));
    // the FFT method of convolve / correlate, and auto picking it for large kernels
    for (mname, mode) in MODES {
        for corr in [false, true] {
            for method in ["fft", "auto"] {
                seed += 2;
                let f = if corr { "correlate" } else { "convolve" };
                let m: Method = method.parse().unwrap();
                cases.push(case(
                    format!("{f} {mname} method {method}"),
                    input(seed, &[40, 50], DType::F32),
                    input(seed + 1, &[20, 30], DType::F32),
                    format!("sig.{f}(a, b, mode='{mname}', method='{method}')"),
                    move |a, b| {
                        if corr {
                            kp::signal::correlate(a, b, mode, m)
                        } else {
                            kp::signal::convolve(a, b, mode, m)
                        }
                    },
                ));
            }
        }
    }
    cases.push(case(
        "convolve int32 by fft (rounded)",
        input(7600, &[60], DType::I32),
        input(7601, &[30], DType::I32),
        "sig.convolve(a, b, method='fft')",
        |a, b| kp::signal::convolve(a, b, Mode::Full, Method::Fft),
    ));
    cases.push(case(
        "convolve 3-d auto",
        input(7602, &[5, 6, 7], DType::F32),
        input(7603, &[2, 3, 2], DType::F32),
        "sig.convolve(a, b, mode='same')",
        |a, b| kp::signal::convolve(a, b, Mode::Same, Method::Auto),
    ));
    // errors
    for (id, sa, sb, py, axes) in [
        (
            "rank mismatch",
            vec![4usize],
            vec![2usize, 2],
            "sig.fftconvolve(a, b)",
            None,
        ),
        (
            "incompatible",
            vec![4, 5],
            vec![3, 2],
            "sig.fftconvolve(a, b, axes=[0])",
            Some(vec![0isize]),
        ),
        (
            "valid neither",
            vec![4, 2],
            vec![2, 4],
            "sig.fftconvolve(a, b, mode='valid')",
            None,
        ),
        (
            "axis out of range",
            vec![4, 5],
            vec![3, 2],
            "sig.fftconvolve(a, b, axes=[2])",
            Some(vec![2]),
        ),
        (
            "empty axes",
            vec![4, 5],
            vec![3, 2],
            "sig.fftconvolve(a, b, axes=[])",
            Some(vec![]),
        ),
    ] {
        let mode = if id == "valid neither" {
            Mode::Valid
        } else {
            Mode::Full
        };
        cases.push(case(
            id,
            input(1, &sa, DType::F32),
            input(2, &sb, DType::F32),
            py,
            move |a, b| kp::signal::fftconvolve(a, b, mode, axes.as_deref()),
        ));
    }
    cases.push(case(
        "0-d",
        input(1, &[], DType::F32),
        input(2, &[], DType::F32),
        "sig.fftconvolve(a, b)",
        |a, b| kp::signal::fftconvolve(a, b, Mode::Full, None),
    ));
    run_cases(cases);
}
