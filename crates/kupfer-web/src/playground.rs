//! The array playground: a NumPy-style expression (the language of `kupfer eval`) evaluated
//! on the GPU over a few generated arrays, printed as NumPy prints it.

use kupfer as kp;
use kupfer::{Array, DType, Result};

/// The expressions the page offers as examples (each must evaluate; the tests check them).
pub const EXAMPLES: &[&str] = &[
    "a.sum(axis=0)",
    "np.sin(x).max()",
    "(r > 0.5).mean()",
    "(a * b).sum(axis=1)",
    "np.cumsum(b) * 1.5",
    "a[:, ::-1] - b",
    "x.std()",
    "np.where(a % 2 == 0, a, -1)",
    "np.random.default_rng(42).random(6)",
    "np.random.default_rng(42).integers(0, 1000, 6)",
    "np.random.default_rng(7).standard_normal(4)",
    "np.random.default_rng(9).permutation(100)[:6]",
    "np.random.default_rng(3).choice(5, 6, p=[0.1, 0, 0.3, 0.6, 0])",
    "np.random.default_rng(3).choice(4, 5, p=np.array([0.25, 0.0, 0.5, 0.25]))",
    "np.random.default_rng(7).standard_normal(6).view(np.uint32)",
    "np.random.default_rng(7).standard_exponential(6).view(np.uint32)",
    "np.random.default_rng(7).gamma(2.5, 1.0, 6).view(np.uint32)",
    "c = a.copy(); c[c > 5] = 0; c[:, 0] += 100; c",
];

/// The generated arrays the playground binds, with a line about each for the page.
pub fn inputs() -> Result<Vec<(String, Array, &'static str)>> {
    // demo:begin playground
    let a = kp::arange(0, 12, 1, Some(DType::F32))?.reshape(&[3, 4])?;
    let b = kp::arange(0, 4, 1, Some(DType::I32))?;
    let x = kp::linspace(
        0.0,
        std::f64::consts::TAU,
        1_000_000,
        true,
        Some(DType::F32),
    )?;
    // uniform noise in [0, 1): a 32-bit integer hash of the index, on the GPU
    let i = kp::arange(0, 1000, 1, Some(DType::U32))?;
    let h = kp::multiply(
        kp::bitwise_xor(&i, kp::right_shift(&i, 16u32)?)?,
        0x045d_9f3b_u32,
    )?;
    let h = kp::multiply(
        kp::bitwise_xor(&h, kp::right_shift(&h, 16u32)?)?,
        0x045d_9f3b_u32,
    )?;
    let h = kp::bitwise_xor(&h, kp::right_shift(&h, 16u32)?)?;
    let r = kp::divide(kp::right_shift(h, 8u32)?.astype(DType::F32)?, 16_777_216.0)?;
    // demo:end playground
    r.eval()?;
    Ok(vec![
        ("a".into(), a, "float32 (3, 4): arange(12).reshape(3, 4)"),
        ("b".into(), b, "int32 (4,): arange(4)"),
        (
            "x".into(),
            x,
            "float32 (1000000,): linspace(0, 2π, 1000000)",
        ),
        ("r".into(), r, "float32 (1000,): uniform noise in [0, 1)"),
    ])
}

/// Evaluates `expr` over `inputs` and prints the result as NumPy's `print()` would; an error
/// is one line (syntax errors name the column).
pub async fn run(expr: &str, inputs: &[(String, Array)]) -> std::result::Result<String, String> {
    match kupfer_eval::evaluate_async(expr, inputs).await {
        Ok(v) => Ok(v.to_string()),
        Err(e) => Err(e.to_string()),
    }
}
