//! NumPy's `polyfit`: a least-squares polynomial fit through [`super::lstsq`] on the
//! column-scaled Vandermonde matrix, as NumPy computes it.

use super::lstsq::lstsq_async;
use crate::array::Array;
use kupfer_core::{DType, Error, Result};

/// The result of [`polyfit`]: the coefficients (highest power first; `(deg + 1,)` or
/// `(deg + 1, k)` for a 2-D `y`) and, as NumPy's `full=True` adds, the residuals, rank,
/// singular values and `rcond` used.
#[derive(Debug, Clone)]
pub struct Polyfit {
    /// The coefficients.
    pub coefficients: Array,
    /// The sum of squared residuals of the fit (empty when the scaled Vandermonde matrix
    /// is rank deficient or square).
    pub residuals: Array,
    /// The rank of the scaled Vandermonde matrix.
    pub rank: usize,
    /// Its singular values.
    pub singular_values: Array,
    /// The relative cutoff used (`len(x) * eps` by default).
    pub rcond: f64,
}

/// NumPy's `polyfit(x, y, deg, rcond=None, full=False, w=None)`: the polynomial of degree
/// `deg` minimizing the (weighted) squared error at the points `x` (1-D) for each column of
/// `y` (1-D or 2-D). NumPy warns (`RankWarning`) when the fit is rank deficient; kupfer
/// returns the rank in the result instead.
///
/// ```
/// use kupfer as kp;
/// let x = kp::Array::from_slice(&[0.0f64, 1.0, 2.0, 3.0], &[4])?;
/// let y = kp::Array::from_slice(&[1.0f64, 3.0, 5.0, 7.0], &[4])?;
/// let c: Vec<f64> = kp::polyfit(&x, &y, 1, None, None)?.coefficients.to_vec()?;
/// assert!((c[0] - 2.0).abs() < 1e-12 && (c[1] - 1.0).abs() < 1e-12);
/// # Ok::<(), kp::Error>(())
/// ```
#[cfg(not(target_arch = "wasm32"))]
pub fn polyfit(
    x: &Array,
    y: &Array,
    deg: i64,
    rcond: Option<f64>,
    w: Option<&Array>,
) -> Result<Polyfit> {
    pollster::block_on(polyfit_async(x, y, deg, rcond, w))
}

/// [`polyfit`], async.
pub async fn polyfit_async(
    x: &Array,
    y: &Array,
    deg: i64,
    rcond: Option<f64>,
    w: Option<&Array>,
) -> Result<Polyfit> {
    if deg < 0 {
        return Err(Error::invalid("expected deg >= 0"));
    }
    if x.ndim() != 1 {
        return Err(Error::invalid("expected 1D vector for x"));
    }
    if x.size() == 0 {
        return Err(Error::invalid("expected non-empty vector for x"));
    }
    if y.ndim() < 1 || y.ndim() > 2 {
        return Err(Error::invalid("expected 1D or 2D array for y"));
    }
    if x.shape()[0] != y.shape()[0] {
        return Err(Error::invalid("expected x and y to have same length"));
    }
    // NumPy adds 0.0: integer points become float.
    let float = |a: &Array| -> Result<Array> {
        let d = match a.dtype() {
            DType::F32 | DType::F64 | DType::F16 => a.dtype(),
            DType::I64 | DType::U64 => DType::F64,
            _ => DType::F32,
        };
        a.astype(if d == DType::F16 { DType::F32 } else { d })
    };
    let (x, y) = (float(x)?, float(y)?);
    let order = deg as usize + 1;
    let eps = if x.dtype() == DType::F64 {
        f64::EPSILON
    } else {
        f32::EPSILON as f64
    };
    let rcond = rcond.unwrap_or(x.shape()[0] as f64 * eps);
    let powers = {
        let _guard = x.device().use_device();
        crate::creation::arange(deg as f64, -1.0, -1.0, Some(x.dtype()))?
    };
    let mut lhs = crate::power(&x.expand_dims(-1)?, &powers)?;
    let mut rhs = y.clone();
    if let Some(w) = w {
        if w.ndim() != 1 {
            return Err(Error::invalid("expected a 1-d array for weights"));
        }
        if w.shape()[0] != y.shape()[0] {
            return Err(Error::invalid("expected w and y to have the same length"));
        }
        let w = float(w)?;
        lhs = crate::multiply(&lhs, &w.expand_dims(-1)?)?;
        rhs = if rhs.ndim() == 2 {
            crate::multiply(&rhs, &w.expand_dims(-1)?)?
        } else {
            crate::multiply(&rhs, &w)?
        };
    }
    let scale = crate::sqrt(&crate::sum(&crate::square(&lhs)?, 0isize, false)?)?;
    let lhs = crate::divide(&lhs, &scale)?;
    let fit = lstsq_async(&lhs, &rhs, Some(rcond)).await?;
    let coefficients = if fit.x.ndim() == 2 {
        crate::divide(&fit.x, &scale.expand_dims(-1)?)?
    } else {
        crate::divide(&fit.x, &scale)?
    };
    debug_assert_eq!(coefficients.shape()[0], order);
    Ok(Polyfit {
        coefficients,
        residuals: fit.residuals,
        rank: fit.rank,
        singular_values: fit.s,
        rcond,
    })
}
