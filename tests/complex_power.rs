//! Complex `power` against NumPy over a grid of bases and exponents built from special parts
//! (signed zeros, infinities, NaN, huge and tiny values, integers around NumPy's |n| < 100
//! repeated-multiplication cut-off), for complex64 and complex128 (where the adapter has f64).
//!
//! Every NaN, infinity and sign of a zero must be NumPy's exactly; finite values agree to 64
//! machine epsilons of |result| times the condition of exp(b log a), max(1, |b| |log a|) (the
//! few ulp of log a grow by that factor, in NumPy's result as in kupfer's).

mod common;

use kp::{Array, Complex32, Complex64, DType};
use kupfer as kp;

/// The parts the grid's bases and exponents are made of.
const PARTS: [f64; 18] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -2.5,
    2.0,
    3.0,
    1e10,
    -3e-10,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    1e20,
    100.0,
    1.0 / 3.0,
    -7.0,
    1e-20,
];

/// Real exponents on both sides of NumPy's integral fast paths (1, 2, 3, |n| < 100).
const REAL_EXPONENTS: [f64; 18] = [
    1.0, 2.0, 3.0, 4.0, 5.0, 7.0, 99.0, 100.0, -1.0, -2.0, -3.0, -4.0, -99.0, -100.0, 0.5, -0.5,
    1e10, 2.5,
];

/// The (base, exponent) pairs: every base against every exponent.
fn grid() -> Vec<(Complex64, Complex64)> {
    let bases: Vec<Complex64> = PARTS
        .iter()
        .flat_map(|&re| PARTS.iter().map(move |&im| Complex64::new(re, im)))
        .collect();
    let exponents: Vec<Complex64> = PARTS
        .iter()
        .step_by(2)
        .flat_map(|&re| {
            PARTS
                .iter()
                .skip(1)
                .step_by(3)
                .map(move |&im| Complex64::new(re, im))
        })
        .chain(REAL_EXPONENTS.iter().map(|&re| Complex64::new(re, 0.0)))
        .chain([Complex64::new(0.0, -0.0), Complex64::new(-0.0, 0.0)])
        .collect();
    bases
        .iter()
        .flat_map(|&a| exponents.iter().map(move |&b| (a, b)))
        .collect()
}

/// NumPy's `a ** b` in `dtype` for each pair, as (re, im) in f64.
fn numpy_power(pairs: &[(Complex64, Complex64)], dtype: DType) -> Vec<Complex64> {
    let dir = std::env::temp_dir().join(format!(
        "kupfer-complex-power-{dtype}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let bytes: Vec<u8> = pairs
        .iter()
        .flat_map(|(a, b)| [a.re, a.im, b.re, b.im])
        .flat_map(f64::to_le_bytes)
        .collect();
    std::fs::write(dir.join("in.bin"), bytes).unwrap();
    let script = format!(
        "import numpy as np, sys\n\
         d = sys.argv[1]\n\
         v = np.fromfile(d + '/in.bin', dtype='<f8').reshape(-1, 4)\n\
         t = np.{}\n\
         a = (v[:, 0] + 1j * v[:, 1]).astype(t)\n\
         b = (v[:, 2] + 1j * v[:, 3]).astype(t)\n\
         a.real, a.imag = v[:, 0], v[:, 1]\n\
         b.real, b.imag = v[:, 2], v[:, 3]\n\
         with np.errstate(all='ignore'):\n\
         \x20   r = np.power(a, b)\n\
         np.stack([r.real, r.imag], 1).astype('<f8').tofile(d + '/out.bin')\n",
        if dtype == DType::Complex64 {
            "complex64"
        } else {
            "complex128"
        }
    );
    std::fs::write(dir.join("oracle.py"), script).unwrap();
    let o = std::process::Command::new("python3")
        .arg(dir.join("oracle.py"))
        .arg(&dir)
        .output()
        .expect("python3 with NumPy (the oracle of these tests)");
    assert!(
        o.status.success(),
        "oracle failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let out = std::fs::read(dir.join("out.bin")).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    out.chunks_exact(16)
        .map(|c| {
            let re = f64::from_le_bytes(c[..8].try_into().unwrap());
            let im = f64::from_le_bytes(c[8..].try_into().unwrap());
            Complex64::new(re, im)
        })
        .collect()
}

/// kupfer's `a ** b` in `dtype`, as (re, im) in f64.
fn kupfer_power(pairs: &[(Complex64, Complex64)], dtype: DType) -> Vec<Complex64> {
    let n = pairs.len();
    let (a, b) = if dtype == DType::Complex64 {
        let narrow = |z: Complex64| Complex32::new(z.re as f32, z.im as f32);
        let a: Vec<Complex32> = pairs.iter().map(|p| narrow(p.0)).collect();
        let b: Vec<Complex32> = pairs.iter().map(|p| narrow(p.1)).collect();
        (
            Array::from_slice(&a, &[n]).unwrap(),
            Array::from_slice(&b, &[n]).unwrap(),
        )
    } else {
        let a: Vec<Complex64> = pairs.iter().map(|p| p.0).collect();
        let b: Vec<Complex64> = pairs.iter().map(|p| p.1).collect();
        (
            Array::from_slice(&a, &[n]).unwrap(),
            Array::from_slice(&b, &[n]).unwrap(),
        )
    };
    let r = kp::power(&a, &b).unwrap();
    assert_eq!(r.dtype(), dtype);
    common::host_pairs(&r)
        .into_iter()
        .map(|(re, im)| Complex64::new(re, im))
        .collect()
}

/// True when `got` is not NumPy's `want` for `a ** b` (the rules of the module documentation).
/// Where the phase of exp(b log a) is lost to rounding (condition x eps > 1e-3, e.g.
/// (-2.5j) ** (1e10 + 0.5j), whose phase is 1.6e10 to a few ulp), the signs of its zeros and
/// infinities are noise in NumPy's result as in kupfer's: there only which parts are NaN,
/// infinite or zero must agree. So is the sign of a zero or an infinity (an underflow or
/// overflow) whose phase factor (cos or sin of the phase) is within that rounding of 0.
fn mismatch(got: Complex64, want: Complex64, a: Complex64, b: Complex64, eps: f64) -> bool {
    let log_a = if a.norm() == 0.0 { 0.0 } else { a.ln().norm() };
    let condition = (b.norm() * log_a).max(1.0);
    let noisy = condition * eps > 1e-3;
    let phase = if a.norm() == 0.0 {
        0.0
    } else {
        (b * a.ln()).im
    };
    let near_zero = |f: f64| !f.is_finite() || f.abs() < 64.0 * condition * eps;
    let (cos_near_zero, sin_near_zero) = (near_zero(phase.cos()), near_zero(phase.sin()));
    let same_special = |g: f64, w: f64, factor_near_zero: bool| {
        if w.is_nan() || g.is_nan() {
            return w.is_nan() && g.is_nan();
        }
        if w.is_infinite() || g.is_infinite() {
            let either_sign = noisy || factor_near_zero;
            return g == w || (either_sign && g.is_infinite() && w.is_infinite());
        }
        if w == 0.0 && g == 0.0 {
            return noisy || factor_near_zero || w.is_sign_negative() == g.is_sign_negative();
        }
        true
    };
    if !same_special(got.re, want.re, cos_near_zero)
        || !same_special(got.im, want.im, sin_near_zero)
    {
        return true;
    }
    if !(want.re.is_finite() && want.im.is_finite()) {
        return false;
    }
    let err = (got.re - want.re).abs().max((got.im - want.im).abs());
    err > 64.0 * eps * condition * want.norm()
}

fn check(dtype: DType) {
    let pairs = grid();
    let want = numpy_power(&pairs, dtype);
    let got = kupfer_power(&pairs, dtype);
    let eps = common::eps(dtype);
    let bad: Vec<String> = pairs
        .iter()
        .zip(got.iter().zip(&want))
        .filter(|((a, b), (g, w))| {
            // complex64 operands were rounded to f32 on both sides.
            let (a, b) = if dtype == DType::Complex64 {
                let r = |z: &Complex64| Complex64::new(z.re as f32 as f64, z.im as f32 as f64);
                (r(a), r(b))
            } else {
                (*a, *b)
            };
            mismatch(**g, **w, a, b, eps)
        })
        .map(|((a, b), (g, w))| format!("({a}) ** ({b}): kupfer {g}, NumPy {w}"))
        .collect();
    assert!(
        bad.is_empty(),
        "{dtype}: {} of {} differ:\n{}",
        bad.len(),
        pairs.len(),
        bad.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn complex64_power_matches_numpy_at_the_edges() {
    common::default_device();
    check(DType::Complex64);
}

#[test]
fn complex128_power_matches_numpy_at_the_edges() {
    let dev = common::default_device();
    if dev.supports(DType::Complex128) {
        check(DType::Complex128);
    } else {
        // Without f64 complex128 is a clear error, never a wrong value.
        let z = Array::from_slice(&[Complex64::new(1.0, 1.0)], &[1]);
        assert!(z.is_err() || kp::power(z.unwrap(), 2).is_err());
    }
}

#[test]
fn integral_exponents_are_exact_products() {
    common::default_device();
    // NumPy multiplies for |n| < 100: exact where the products are.
    let z =
        Array::from_slice(&[Complex32::new(1.0, 1.0), Complex32::new(3.0, -4.0)], &[2]).unwrap();
    let sq = common::host_pairs(&kp::power(&z, 2).unwrap());
    assert_eq!(sq, vec![(0.0, 2.0), (-7.0, -24.0)]);
    let inv = common::host_pairs(&kp::power(&z, -2).unwrap());
    assert_eq!(inv[0], (0.0, -0.5));
    let cube = common::host_pairs(&kp::power(&z, 3).unwrap());
    assert_eq!(cube, vec![(-2.0, 2.0), (-117.0, -44.0)]);
}
