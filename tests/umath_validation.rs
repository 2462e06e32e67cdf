//! Transcendentals against NumPy's own validation sets (`umath-validation-set-*.csv` inside the
//! numpy package), within the ULP bounds NumPy gives for each input, for float32 and float64.

use kupfer as kp;
use std::path::PathBuf;
use std::process::Command;

fn data_dir() -> PathBuf {
    let out = Command::new("python3")
        .args([
            "-c",
            "import numpy, os; print(os.path.join(os.path.dirname(numpy.__file__), '_core', 'tests', 'data'))",
        ])
        .output()
        .expect("python3 is needed for the NumPy oracle (apt-get install python3)");
    assert!(
        out.status.success(),
        "NumPy is needed for the validation sets: pip install numpy\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

struct Row {
    input: u64,
    output: u64,
    tol: u64,
}

fn rows(name: &str, dtype: &str) -> Vec<Row> {
    let path = data_dir().join(format!("umath-validation-set-{name}.csv"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| l.starts_with(dtype))
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let hex =
                |s: &str| u64::from_str_radix(s.trim().trim_start_matches("0x"), 16).expect("hex");
            Row {
                input: hex(f[1]),
                output: hex(f[2]),
                tol: f[3].trim().parse().expect("ulp tolerance"),
            }
        })
        .collect()
}

/// Distance in units of least precision between two floats given as ordered integers.
fn ulp_f32(a: f32, b: f32) -> u64 {
    if a.is_nan() && b.is_nan() {
        return 0;
    }
    if a.is_nan() || b.is_nan() {
        return u64::MAX;
    }
    let key = |x: f32| {
        let i = x.to_bits() as i32;
        if i < 0 {
            i32::MIN - i
        } else {
            i
        }
    };
    (i64::from(key(a)) - i64::from(key(b))).unsigned_abs()
}

fn ulp_f64(a: f64, b: f64) -> u64 {
    if a.is_nan() && b.is_nan() {
        return 0;
    }
    if a.is_nan() || b.is_nan() {
        return u64::MAX;
    }
    let key = |x: f64| {
        let i = x.to_bits() as i64;
        if i < 0 {
            i64::MIN - i
        } else {
            i
        }
    };
    (i128::from(key(a)) - i128::from(key(b))).unsigned_abs() as u64
}

type Ufunc = fn(&kp::Array) -> kp::Result<kp::Array>;

const FUNCS: &[(&str, Ufunc)] = &[
    ("sin", |a| kp::sin(a)),
    ("cos", |a| kp::cos(a)),
    ("tan", |a| kp::tan(a)),
    ("arcsin", |a| kp::arcsin(a)),
    ("arccos", |a| kp::arccos(a)),
    ("arctan", |a| kp::arctan(a)),
    ("sinh", |a| kp::sinh(a)),
    ("cosh", |a| kp::cosh(a)),
    ("tanh", |a| kp::tanh(a)),
    ("arcsinh", |a| kp::arcsinh(a)),
    ("arccosh", |a| kp::arccosh(a)),
    ("arctanh", |a| kp::arctanh(a)),
    ("exp", |a| kp::exp(a)),
    ("exp2", |a| kp::exp2(a)),
    ("expm1", |a| kp::expm1(a)),
    ("log", |a| kp::log(a)),
    ("log2", |a| kp::log2(a)),
    ("log10", |a| kp::log10(a)),
    ("log1p", |a| kp::log1p(a)),
    ("cbrt", |a| kp::cbrt(a)),
];

/// Subnormal outputs are allowed to flush to zero only where the adapter flushes them; the
/// result must then be a zero of the same sign.
fn flushed_f32(expected: f32, got: f32) -> bool {
    expected.is_subnormal() && got == 0.0 && expected.is_sign_negative() == got.is_sign_negative()
}

#[test]
fn float32_within_numpy_ulp_bounds() {
    let dev = kp::Device::default_device().expect("a GPU adapter (install mesa-vulkan-drivers)");
    let mut failures = Vec::new();
    let mut checked = 0usize;
    for (name, f) in FUNCS {
        let rows = rows(name, "np.float32");
        assert!(!rows.is_empty(), "no float32 rows for {name}");
        let xs: Vec<f32> = rows
            .iter()
            .map(|r| f32::from_bits(r.input as u32))
            .collect();
        let a = kp::Array::from_slice_on(&dev, &xs, &[xs.len()]).expect("upload");
        let got: Vec<f32> = f(&a).and_then(|y| y.to_vec()).expect(name);
        for (r, (&x, &g)) in rows.iter().zip(xs.iter().zip(&got)) {
            let want = f32::from_bits(r.output as u32);
            let err = ulp_f32(g, want);
            if err > r.tol && !flushed_f32(want, g) {
                failures.push(format!(
                    "{name}({x:e} = {:#010x}): got {g:e}, want {want:e} ({err} ulp > {})",
                    r.input, r.tol
                ));
            }
            checked += 1;
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} float32 values outside NumPy's bounds:\n{}",
        failures.len(),
        failures
            .iter()
            .take(60)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn float64_within_numpy_ulp_bounds() {
    let dev = kp::Device::default_device().expect("a GPU adapter (install mesa-vulkan-drivers)");
    if !dev.supports(kp::DType::F64) {
        // Not a skip: on adapters without SHADER_F64 the dtype must be refused clearly.
        let err = kp::Array::from_slice_on(&dev, &[1.0f64], &[1]).expect_err("f64 must be refused");
        assert!(matches!(err, kp::Error::Unsupported(_)), "{err}");
        return;
    }
    let mut failures = Vec::new();
    let mut checked = 0usize;
    for (name, f) in FUNCS {
        let rows = rows(name, "np.float64");
        if rows.is_empty() {
            continue;
        }
        let xs: Vec<f64> = rows.iter().map(|r| f64::from_bits(r.input)).collect();
        let a = kp::Array::from_slice_on(&dev, &xs, &[xs.len()]).expect("upload");
        let got: Vec<f64> = f(&a).and_then(|y| y.to_vec()).expect(name);
        for (r, (&x, &g)) in rows.iter().zip(xs.iter().zip(&got)) {
            let want = f64::from_bits(r.output);
            let err = ulp_f64(g, want);
            let flushed = want.is_subnormal() && g == 0.0;
            if err > r.tol && !flushed {
                failures.push(format!(
                    "{name}({x:e}): got {g:e}, want {want:e} ({err} ulp > {})",
                    r.tol
                ));
            }
            checked += 1;
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} float64 values outside NumPy's bounds:\n{}",
        failures.len(),
        failures
            .iter()
            .take(60)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The seed's example: sin(a) + cos(a) over arange(10**6) must match NumPy float32 to ~1e-5.
#[test]
fn seed_sin_plus_cos_large_arguments() {
    let a = kp::arange(0, 1_000_000, 1, Some(kp::DType::F32)).expect("arange");
    let y: Vec<f32> = kp::add(kp::sin(&a).unwrap(), kp::cos(&a).unwrap())
        .and_then(|y| y.to_vec())
        .expect("sin + cos");
    let mut worst = 0f64;
    for (i, &v) in y.iter().enumerate() {
        let x = i as f32 as f64;
        let exact = x.sin() + x.cos();
        // relative to the magnitude of the terms (the sum itself can cancel to ~0)
        worst = worst.max((f64::from(v) - exact).abs() / 1.0f64.max(exact.abs()));
    }
    assert!(worst < 1e-5, "worst error {worst:e}");
}
