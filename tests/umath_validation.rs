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

/// The unary functions of kupfer-core's op table computed by the libm: NumPy's validation sets
/// cover each of them.
fn libm_unary() -> impl Iterator<Item = (&'static str, kp::UnaryOp)> {
    (kp::UnaryOp::ALL.iter())
        .filter(|op| op.is_libm())
        .map(|&op| (op.name(), op))
}

/// Fails with the first 60 of `failures` (of `checked` values) listed.
fn assert_none(failures: &[String], checked: usize, what: &str) {
    assert!(
        failures.is_empty(),
        "{} of {checked} {what}:\n{}",
        failures.len(),
        failures[..failures.len().min(60)].join("\n")
    );
}

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
    for (name, op) in libm_unary() {
        let rows = rows(name, "np.float32");
        assert!(!rows.is_empty(), "no float32 rows for {name}");
        let xs: Vec<f32> = rows
            .iter()
            .map(|r| f32::from_bits(r.input as u32))
            .collect();
        let a = kp::Array::from_slice_on(&dev, &xs, &[xs.len()]).expect("upload");
        let got: Vec<f32> = kp::unary(op, &a).and_then(|y| y.to_vec()).expect(name);
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
    assert_none(&failures, checked, "float32 values outside NumPy's bounds");
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
    for (name, op) in libm_unary() {
        let rows = rows(name, "np.float64");
        if rows.is_empty() {
            continue;
        }
        let xs: Vec<f64> = rows.iter().map(|r| f64::from_bits(r.input)).collect();
        let a = kp::Array::from_slice_on(&dev, &xs, &[xs.len()]).expect("upload");
        let got: Vec<f64> = kp::unary(op, &a).and_then(|y| y.to_vec()).expect(name);
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
    assert_none(&failures, checked, "float64 values outside NumPy's bounds");
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

/// The two-argument functions of the op table computed by the libm (arctan2, hypot, power), in
/// name order, which the binary tests check against NumPy.
fn libm_binary() -> Vec<(&'static str, kp::BinaryOp)> {
    let mut ops: Vec<_> = (kp::BinaryOp::ALL.iter())
        .filter(|op| op.is_libm())
        .map(|&op| (op.name(), op))
        .collect();
    ops.sort_unstable_by_key(|&(name, _)| name);
    ops
}

/// Every ordered pair of `specials`, as the two argument lists.
fn pairs<T: Copy>(specials: &[T]) -> (Vec<T>, Vec<T>) {
    let xs = specials
        .iter()
        .flat_map(|&a| specials.iter().map(move |_| a));
    let ys = specials.iter().flat_map(|_| specials.iter().copied());
    (xs.collect(), ys.collect())
}

/// NumPy's float64 result of `np.<name>(a, b)`, computed by python3 on the same bits.
fn numpy_binary(name: &str, a: &[f64], b: &[f64]) -> Vec<f64> {
    let dir = std::env::temp_dir();
    // Unique per call: the f32 and f64 tests run in parallel threads of one process.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tag = format!("kupfer-umath-{}-{name}-{call}", std::process::id());
    let (pa, pb, po) = (
        dir.join(format!("{tag}-a.bin")),
        dir.join(format!("{tag}-b.bin")),
        dir.join(format!("{tag}-o.bin")),
    );
    let bytes = |v: &[f64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    std::fs::write(&pa, bytes(a)).expect("write a");
    std::fs::write(&pb, bytes(b)).expect("write b");
    let script = format!(
        "import numpy as np, sys\n\
         a = np.fromfile(sys.argv[1], dtype='<f8'); b = np.fromfile(sys.argv[2], dtype='<f8')\n\
         with np.errstate(all='ignore'):\n    r = np.{name}(a, b)\n\
         r.astype('<f8').tofile(sys.argv[3])\n"
    );
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .args([&pa, &pb, &po])
        .output()
        .expect("python3 is needed for the NumPy oracle");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let raw = std::fs::read(&po).expect("numpy output");
    for p in [&pa, &pb, &po] {
        let _ = std::fs::remove_file(p);
    }
    raw.chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Deterministic xorshift64* stream (no rand dependency).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
    /// Log-uniform magnitude in [lo, hi) with a random sign.
    fn logu(&mut self, lo: f64, hi: f64) -> f64 {
        let m = (lo.ln() + self.unit() * (hi.ln() - lo.ln())).exp();
        if self.next() & 1 == 0 {
            m
        } else {
            -m
        }
    }
    /// Any finite nonzero double (uniform over bit patterns).
    fn bits(&mut self) -> f64 {
        loop {
            let v = f64::from_bits(self.next());
            if v.is_finite() && v != 0.0 {
                return v;
            }
        }
    }
}

/// arctan2, hypot and power in float64 against NumPy: every pair of special values (zeros of
/// both signs, infinities, NaN, subnormals, the largest double, +-1, odd and even integers and
/// non-integers for power) must give NumPy's result exactly (sign of zero included), and random
/// pairs over the whole range must agree within 2 ulp (both are within 1 ulp of the correctly
/// rounded result).
#[test]
fn float64_binary_functions_match_numpy() {
    let dev = kp::Device::default_device().expect("a GPU adapter (install mesa-vulkan-drivers)");
    if !dev.supports(kp::DType::F64) {
        return;
    }
    let specials = [
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        -2.0,
        3.0,
        -3.0,
        0.25,
        1.5,
        -2.5,
        5e-324,
        -5e-324,
        1e-310,
        f64::MIN_POSITIVE,
        f64::MAX,
        f64::MIN,
        1e300,
        -1e-300,
        9007199254740992.0,
        -9007199254740994.0,
        18446744073709551616.0,
        709.78,
        -745.5,
        1024.0,
        1.0000000000000002,
        0.9999999999999999,
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut failures = Vec::new();
    let mut checked = 0usize;
    for (name, op) in libm_binary() {
        let (mut xs, mut ys) = pairs(&specials);
        let n_special = xs.len();
        for i in 0..6000 {
            let (a, b) = match (name, i % 3) {
                ("power", 0) => (rng.logu(1e-10, 1e10).abs(), 600.0 * rng.unit() - 300.0),
                ("power", 1) => (rng.logu(1e-2, 1e2), (300.0 * rng.unit() - 150.0).round()),
                ("power", _) => (1.0 + (rng.unit() - 0.5) * 1e-3, rng.logu(1.0, 1e12)),
                (_, 0) => (rng.bits(), rng.bits()),
                (_, 1) => (rng.logu(1e-5, 1e5), rng.logu(1e-5, 1e5)),
                _ => (rng.logu(1e-300, 1e300), rng.logu(1e-300, 1e300)),
            };
            xs.push(a);
            ys.push(b);
        }
        let want = numpy_binary(name, &xs, &ys);
        let a = kp::Array::from_slice_on(&dev, &xs, &[xs.len()]).expect("upload");
        let b = kp::Array::from_slice_on(&dev, &ys, &[ys.len()]).expect("upload");
        let got: Vec<f64> = kp::binary(op, &a, &b).and_then(|r| r.to_vec()).expect(name);
        for (i, ((&x, &y), (&g, &w))) in xs.iter().zip(&ys).zip(got.iter().zip(&want)).enumerate() {
            let exact = i < n_special || !w.is_finite() || w == 0.0;
            let ok = if exact {
                (g.is_nan() && w.is_nan())
                    || (g == w && g.is_sign_negative() == w.is_sign_negative())
                    || (w.is_subnormal() && g == 0.0)
                    || (w.is_finite() && w != 0.0 && ulp_f64(g, w) <= 2)
            } else {
                ulp_f64(g, w) <= 2 || (w.is_subnormal() && g == 0.0)
            };
            if !ok {
                failures.push(format!("{name}({x:e}, {y:e}): got {g:e}, want {w:e}"));
            }
            checked += 1;
        }
    }
    assert_none(
        &failures,
        checked,
        "float64 arctan2/hypot/power values differ from NumPy",
    );
}

/// arctan2, hypot and power in float32: the same special pairs as the float64 test must give
/// NumPy's float32 result exactly (sign of zero included), and random pairs must be within 1 ulp
/// of the reference, NumPy's float64 result rounded to float32 (correctly rounded but for
/// vanishingly rare double roundings).
#[test]
fn float32_binary_functions_match_numpy() {
    let dev = kp::Device::default_device().expect("a GPU adapter (install mesa-vulkan-drivers)");
    let specials: [f32; 36] = [
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        -2.0,
        3.0,
        -3.0,
        0.25,
        1.5,
        -2.5,
        1e-45,
        -1e-45,
        1e-40,
        f32::MIN_POSITIVE,
        f32::MAX,
        f32::MIN,
        1e30,
        -1e-30,
        16777216.0,
        -16777218.0,
        4294967296.0,
        -1099511627776.0,
        88.72,
        -103.9,
        128.0,
        1.0000001,
        0.99999994,
        -1.0000001,
        0.1,
        7.0,
    ];
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let bits32 = |rng: &mut Rng| loop {
        let v = f32::from_bits(rng.next() as u32);
        if v.is_finite() && v != 0.0 {
            return f64::from(v);
        }
    };
    let mut failures = Vec::new();
    let mut checked = 0usize;
    for (name, op) in libm_binary() {
        let (mut xs, mut ys) = pairs(&specials);
        let n_special = xs.len();
        for i in 0..6000 {
            let (a, b) = match (name, i % 3) {
                ("power", 0) => (rng.logu(1e-10, 1e10).abs(), 60.0 * rng.unit() - 30.0),
                ("power", 1) => (rng.logu(1e-2, 1e2), (60.0 * rng.unit() - 30.0).round()),
                ("power", _) => (1.0 + (rng.unit() - 0.5) * 1e-3, rng.logu(1.0, 1e5)),
                (_, 0) => (bits32(&mut rng), bits32(&mut rng)),
                (_, 1) => (rng.logu(1e-5, 1e5), rng.logu(1e-5, 1e5)),
                _ => (rng.logu(1e-30, 1e30), rng.logu(1e-30, 1e30)),
            };
            xs.push(a as f32);
            ys.push(b as f32);
        }
        let wide = |v: &[f32]| v.iter().map(|&x| f64::from(x)).collect::<Vec<f64>>();
        let want: Vec<f32> = numpy_binary(name, &wide(&xs), &wide(&ys))
            .iter()
            .map(|&w| w as f32)
            .collect();
        let a = kp::Array::from_slice_on(&dev, &xs, &[xs.len()]).expect("upload");
        let b = kp::Array::from_slice_on(&dev, &ys, &[ys.len()]).expect("upload");
        let got: Vec<f32> = kp::binary(op, &a, &b).and_then(|r| r.to_vec()).expect(name);
        for (i, ((&x, &y), (&g, &w))) in xs.iter().zip(&ys).zip(got.iter().zip(&want)).enumerate() {
            let exact = i < n_special || !w.is_finite() || w == 0.0;
            let ok = if exact {
                (g.is_nan() && w.is_nan())
                    || (g == w && g.is_sign_negative() == w.is_sign_negative())
                    || flushed_f32(w, g)
                    || (w.is_finite() && w != 0.0 && ulp_f32(g, w) <= 1)
            } else {
                ulp_f32(g, w) <= 1 || flushed_f32(w, g)
            };
            if !ok {
                failures.push(format!("{name}({x:e}, {y:e}): got {g:e}, want {w:e}"));
            }
            checked += 1;
        }
    }
    assert_none(
        &failures,
        checked,
        "float32 arctan2/hypot/power values differ from NumPy",
    );
}
