//! NumPy's `roots`: the zeros of a polynomial as the eigenvalues of its companion matrix
//! ([`super::eigvals`]), leading zeros of the coefficients dropped and trailing zeros
//! returned as zero roots, as NumPy does.

use super::eig::eigvals_async;
use super::factor;
use crate::array::Array;
use kupfer_core::{Error, Result, SliceArg};

fn range(start: usize, stop: usize) -> SliceArg {
    SliceArg::Stepped {
        start: start as isize,
        stop: Some(stop as isize),
        step: 1,
    }
}

/// NumPy's `roots(p)`: the roots of the polynomial with coefficients `p` (1-D, highest
/// power first), the eigenvalues of its companion matrix. Leading zeros of `p` are
/// dropped; trailing zeros give zero roots (after the others). A constant or all-zero `p`
/// has no roots.
///
/// Dtypes: as [`super::eigvals`] of the companion matrix (real when every root is real,
/// complex otherwise); integer coefficients compute in float64 (int64) or float32. Where
/// NumPy gives float64 for a polynomial without finite roots, kupfer keeps `p`'s precision.
/// Which coefficients are zero is read back (it decides the result's length).
///
/// Errors: `Input must be a rank-1 array.` for `p` of more than one dimension; eigvals'.
///
/// ```
/// use kupfer as kp;
/// let p = kp::Array::from_slice(&[1.0f64, -3.0, 2.0], &[3])?;
/// let mut r: Vec<f64> = kp::roots(&p)?.to_vec()?;
/// r.sort_by(f64::total_cmp);
/// assert!((r[0] - 1.0).abs() < 1e-12 && (r[1] - 2.0).abs() < 1e-12);
/// # Ok::<(), kp::Error>(())
/// ```
#[cfg(not(target_arch = "wasm32"))]
pub fn roots(p: &Array) -> Result<Array> {
    pollster::block_on(roots_async(p))
}

/// [`roots`], async (the browser's only form).
pub async fn roots_async(p: &Array) -> Result<Array> {
    if p.ndim() > 1 {
        return Err(Error::invalid("Input must be a rank-1 array."));
    }
    let p = p.reshape(&[p.size() as isize])?;
    let dtype = if p.dtype().is_complex() {
        p.dtype()
    } else {
        factor::compute_dtype(p.dtype())?
    };
    let p = p.astype(dtype)?;
    let device = p.device().clone();
    let nonzero: Vec<bool> = crate::not_equal(&p, 0.0)?.to_vec_async().await?;
    let (Some(first), Some(last)) = (
        nonzero.iter().position(|&b| b),
        nonzero.iter().rposition(|&b| b),
    ) else {
        return crate::creation::full_on(&device, &[0], 0i64, Some(dtype));
    };
    let trailing = nonzero.len() - last - 1;
    let p = p.slice(&[range(first, last + 1)])?;
    let n = last + 1 - first;
    let found = if n > 1 {
        // The companion matrix: -p[1:] / p[0] on the first row, ones below the diagonal.
        let lead = p.slice(&[range(0, 1)])?;
        let row = crate::negative(&crate::divide(&p.slice(&[range(1, n)])?, &lead)?)?;
        let below = {
            let _guard = device.use_device();
            crate::creation::eye(n - 2, Some(n - 1), 0, Some(dtype))?
        };
        let a = crate::concatenate(&[row.reshape(&[1, n as isize - 1])?, below], Some(0), None)?;
        eigvals_async(&a).await?
    } else {
        crate::creation::full_on(&device, &[0], 0i64, Some(dtype))?
    };
    if trailing == 0 {
        return Ok(found);
    }
    let zeros = crate::creation::full_on(&device, &[trailing], 0i64, Some(found.dtype()))?;
    crate::concatenate(&[found, zeros], Some(0), None)
}
