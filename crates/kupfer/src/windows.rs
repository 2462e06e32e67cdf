//! NumPy's window functions (`hanning`, `hamming`, `blackman`, `bartlett`, `kaiser`): float64
//! arrays of length `m`, computed on the device with NumPy's formulas.

use crate::array::Array;
use crate::creation::{arange, ones, zeros};
use crate::ufuncs as uf;
use kupfer_core::{DType, Result};
use std::f64::consts::PI;

/// The empty and one-point windows every function shares, else `arange(1 - m, m, 2)`.
fn symmetric_points(m: i64) -> Result<Result<Array, Array>> {
    if m < 1 {
        return Ok(Err(zeros(&[0], Some(DType::F64))?));
    }
    if m == 1 {
        return Ok(Err(ones(&[1], Some(DType::F64))?));
    }
    Ok(Ok(arange((1 - m) as f64, m as f64, 2.0, Some(DType::F64))?))
}

/// `cos(k * pi * n / (m - 1))`, as NumPy orders the operations.
fn cos_term(n: &Array, k: f64, m: i64) -> Result<Array> {
    let angle = if k == 1.0 {
        uf::multiply(PI, n)?
    } else {
        uf::multiply(k * PI, n)?
    };
    uf::cos(uf::divide(angle, (m - 1) as f64)?)
}

/// The Hann window `0.5 + 0.5 cos(pi n / (m - 1))`.
pub fn hanning(m: i64) -> Result<Array> {
    let n = match symmetric_points(m)? {
        Ok(n) => n,
        Err(w) => return Ok(w),
    };
    uf::add(0.5, uf::multiply(0.5, cos_term(&n, 1.0, m)?)?)
}

/// The Hamming window `0.54 + 0.46 cos(pi n / (m - 1))`.
pub fn hamming(m: i64) -> Result<Array> {
    let n = match symmetric_points(m)? {
        Ok(n) => n,
        Err(w) => return Ok(w),
    };
    uf::add(0.54, uf::multiply(0.46, cos_term(&n, 1.0, m)?)?)
}

/// The Blackman window `0.42 + 0.5 cos(pi n / (m - 1)) + 0.08 cos(2 pi n / (m - 1))`.
pub fn blackman(m: i64) -> Result<Array> {
    let n = match symmetric_points(m)? {
        Ok(n) => n,
        Err(w) => return Ok(w),
    };
    uf::add(
        uf::add(0.42, uf::multiply(0.5, cos_term(&n, 1.0, m)?)?)?,
        uf::multiply(0.08, cos_term(&n, 2.0, m)?)?,
    )
}

/// The Bartlett (triangular) window.
pub fn bartlett(m: i64) -> Result<Array> {
    let n = match symmetric_points(m)? {
        Ok(n) => n,
        Err(w) => return Ok(w),
    };
    let t = uf::divide(&n, (m - 1) as f64)?;
    uf::where_(
        uf::less_equal(&n, 0)?,
        uf::add(1.0, &t)?,
        uf::subtract(1.0, &t)?,
    )
}

/// The Kaiser window `i0(beta sqrt(1 - ((n - alpha) / alpha)^2)) / i0(beta)`,
/// `alpha = (m - 1) / 2`, `n = 0..m`.
pub fn kaiser(m: i64, beta: f64) -> Result<Array> {
    if m < 1 {
        return zeros(&[0], Some(DType::F64));
    }
    if m == 1 {
        return ones(&[1], Some(DType::F64));
    }
    let n = arange(0.0, m as f64, 1.0, Some(DType::F64))?;
    let alpha = (m - 1) as f64 / 2.0;
    let r = uf::divide(uf::subtract(&n, alpha)?, alpha)?;
    let arg = uf::multiply(beta, uf::sqrt(uf::subtract(1.0, uf::power(r, 2.0)?)?)?)?;
    uf::divide(uf::i0(arg)?, uf::i0(crate::Scalar::Float(beta))?)
}
