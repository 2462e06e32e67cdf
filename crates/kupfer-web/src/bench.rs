//! A few of `kupfer bench`'s cases (the CuPy anchor's names), at the anchor's smallest size,
//! for the page's benchmark table beside a plain-JavaScript CPU loop.

use kupfer as kp;
use kupfer::{Array, Axis, DType, Result};

/// Elements of each vector (the anchor's `1 << 20`).
pub const N: usize = 1 << 20;

/// The cases: (anchor name, what it computes in NumPy terms).
pub const CASES: &[(&str, &str)] = &[
    ("saxpy_expr", "2.0 * x + y"),
    ("chain5_unfused", "(x * 2 + y * 3) / (x + y + 1)"),
    ("sin_plus_cos", "sin(x) + cos(x)"),
    ("sum", "x.sum()"),
    ("max", "x.max()"),
];

/// The two inputs: `x` in [0, 1) and `y` in [1, 2), float32 of [`N`] elements.
pub fn inputs() -> Result<(Array, Array)> {
    let x = kp::linspace(0.0, 1.0, N, false, Some(DType::F32))?;
    let y = kp::add(&x, 1.0)?;
    y.eval()?;
    Ok((x, y))
}

// demo:begin bench
/// Runs case `name` once (materialised, not read back).
pub fn run(name: &str, x: &Array, y: &Array) -> Result<Array> {
    let out = match name {
        "saxpy_expr" => kp::add(kp::multiply(2.0, x)?, y)?,
        "chain5_unfused" => kp::divide(
            kp::add(kp::multiply(x, 2.0)?, kp::multiply(y, 3.0)?)?,
            kp::add(kp::add(x, y)?, 1.0)?,
        )?,
        "sin_plus_cos" => kp::add(kp::sin(x)?, kp::cos(x)?)?,
        "sum" => kp::sum(x, Axis::All, false)?,
        "max" => kp::max(x, Axis::All, false)?,
        other => return Err(kp::Error::invalid(format!("no benchmark case '{other}'"))),
    };
    out.eval()?;
    Ok(out)
}
// demo:end bench
