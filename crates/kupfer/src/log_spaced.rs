//! Ranges evenly spaced on a log scale (`logspace`, `geomspace`): an evenly spaced
//! exponent from [`linspace`] raised by the ufuncs, with NumPy's exact endpoints.

use crate::array::Array;
use crate::creation::{arange, linspace};
use crate::scalar::Scalar;
use crate::ufuncs;
use kupfer_core::{DType, Error, Result};

/// `base ** linspace(start, stop, num, endpoint)` in float64, cast to `dtype` when given
/// (NumPy's `logspace`).
///
/// ```
/// let a = kupfer::logspace(0.0, 3.0, 4, true, 10.0, None)?;
/// assert_eq!(a.to_vec::<f64>()?, vec![1.0, 10.0, 100.0, 1000.0]);
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn logspace(
    start: f64,
    stop: f64,
    num: usize,
    endpoint: bool,
    base: f64,
    dtype: Option<DType>,
) -> Result<Array> {
    let y = linspace(start, stop, num, endpoint, Some(DType::F64))?;
    let r = ufuncs::power(base, y)?;
    match dtype {
        Some(d) => r.astype(d),
        None => Ok(r),
    }
}

/// `num` numbers evenly spaced on a log scale from `start` to `stop` (NumPy's `geomspace`):
/// the endpoints are exact, negative ranges keep their sign, zero is refused.
///
/// ```
/// let a = kupfer::geomspace(1.0, 1000.0, 4, true, None)?;
/// assert_eq!(a.to_vec::<f64>()?, vec![1.0, 10.0, 100.0, 1000.0]);
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn geomspace(
    start: f64,
    stop: f64,
    num: usize,
    endpoint: bool,
    dtype: Option<DType>,
) -> Result<Array> {
    if start == 0.0 || stop == 0.0 {
        return Err(Error::invalid("Geometric sequence cannot include zero"));
    }
    let sign = if start < 0.0 { -1.0 } else { 1.0 };
    let (a, b) = (start / sign, stop / sign);
    let body = logspace(a.log10(), b.log10(), num, endpoint, 10.0, None)?;
    let index = arange(0.0, num as f64, 1.0, Some(DType::I32))?;
    let last = if endpoint && num > 1 {
        num as i64 - 1
    } else {
        -1
    };
    let ends = ufuncs::where_(
        ufuncs::equal(&index, last)?,
        b,
        ufuncs::where_(ufuncs::equal(&index, 0)?, a, body)?,
    )?;
    let r = ufuncs::multiply(ends, sign)?;
    match dtype {
        Some(d) => r.astype(d),
        None => Ok(r),
    }
}

/// `num` complex numbers evenly spaced on a log scale from `start` to `stop` (NumPy's
/// `geomspace` of complex endpoints): a straight line through the origin's ray when both are
/// purely imaginary, otherwise an arc of the logarithmic spiral, with exact endpoints. The
/// result is complex128 (complex64 on adapters without float64; `dtype` casts it), as NumPy
/// gives for Python complex endpoints.
///
/// ```
/// use kupfer::Complex64;
/// let a = kupfer::geomspace_complex(Complex64::new(0.0, 1.0), Complex64::new(0.0, 100.0), 3, true, None)?;
/// assert!((a.to_vec::<Complex64>()?[1] - Complex64::new(0.0, 10.0)).norm() < 1e-12);
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn geomspace_complex(
    start: num_complex::Complex64,
    stop: num_complex::Complex64,
    num: usize,
    endpoint: bool,
    dtype: Option<DType>,
) -> Result<Array> {
    use num_complex::Complex64 as C;
    if start == C::new(0.0, 0.0) || stop == C::new(0.0, 0.0) {
        return Err(Error::invalid("Geometric sequence cannot include zero"));
    }
    // NumPy's steps: purely imaginary endpoints become real ones times 1j; otherwise both are
    // divided by the sign (z / |z|) of `start`, keeping the signs of zeros of that division
    // (they choose the branch of the logarithm, hence the way round the circle).
    let (mut a, mut b, mut sign) = (start, stop, C::new(1.0, 0.0));
    if a.re == 0.0 && b.re == 0.0 {
        a = C::new(a.im, 0.0);
        b = C::new(b.im, 0.0);
        sign = C::new(0.0, 1.0);
    }
    let s = a / C::new(a.norm(), 0.0);
    let divide = |z: C| {
        let d = s.re * s.re + s.im * s.im;
        C::new(
            (z.re * s.re + z.im * s.im) / d,
            (z.im * s.re - z.re * s.im) / d,
        )
    };
    let (a, b) = (divide(a), divide(b));
    let sign = sign * s;
    // exp of the evenly spaced natural logarithms (NumPy's 10 ** of evenly spaced log10s).
    let (la, lb) = (a.ln(), b.ln());
    let re = linspace(la.re, lb.re, num, endpoint, None)?;
    let im = linspace(la.im, lb.im, num, endpoint, None)?;
    let body = ufuncs::exp(ufuncs::make_complex(re, im)?)?;
    let index = arange(0.0, num as f64, 1.0, Some(DType::I32))?;
    let last = if endpoint && num > 1 {
        num as i64 - 1
    } else {
        -1
    };
    let ends = ufuncs::where_(
        ufuncs::equal(&index, last)?,
        Scalar::Complex { re: b.re, im: b.im },
        ufuncs::where_(
            ufuncs::equal(&index, 0)?,
            Scalar::Complex { re: a.re, im: a.im },
            body,
        )?,
    )?;
    let r = ufuncs::multiply(
        ends,
        Scalar::Complex {
            re: sign.re,
            im: sign.im,
        },
    )?;
    match dtype {
        Some(d) => r.astype(d),
        None => Ok(r),
    }
}
