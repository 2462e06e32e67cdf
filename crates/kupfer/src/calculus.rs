//! Integration and differences on sampled data: NumPy's `trapezoid` and `ediff1d`.

use crate::array::Array;
use crate::ufuncs as uf;
use kupfer_core::{Error, Result, SliceArg};

/// Normalises `axis` for an array of rank `ndim`.
fn normal_axis(axis: isize, ndim: usize) -> Result<usize> {
    let n = ndim as isize;
    if axis < -n || axis >= n {
        return Err(Error::invalid(format!(
            "axis {axis} is out of bounds for array of dimension {ndim}"
        )));
    }
    Ok(axis.rem_euclid(n.max(1)) as usize)
}

/// `a[..., from:to, ...]` along `axis`.
fn range_along(a: &Array, axis: usize, start: Option<isize>, stop: Option<isize>) -> Result<Array> {
    let mut args = vec![SliceArg::FULL; a.ndim()];
    args[axis] = SliceArg::Slice {
        start,
        stop,
        step: None,
    };
    a.slice(&args)
}

/// The integral of `y` along `axis` by the trapezoidal rule, with sample points `x` (1-d along
/// `axis`, or `y`'s shape) or the spacing `dx` (NumPy's `trapezoid`).
///
/// ```
/// # use kupfer as kp;
/// let y = kp::Array::from_slice(&[1.0f64, 2.0, 3.0], &[3])?;
/// assert_eq!(kp::trapezoid(&y, None, 1.0, -1)?.to_vec::<f64>()?, vec![4.0]);
/// # Ok::<(), kp::Error>(())
/// ```
pub fn trapezoid(y: &Array, x: Option<&Array>, dx: f64, axis: isize) -> Result<Array> {
    if y.ndim() == 0 {
        return Err(Error::invalid(format!(
            "axis {axis} is out of bounds for array of dimension 0"
        )));
    }
    let ax = normal_axis(axis, y.ndim())?;
    let upper = range_along(y, ax, Some(1), None)?;
    let lower = range_along(y, ax, None, Some(-1))?;
    let pair = uf::add(upper, lower)?;
    let weighted = match x {
        None => uf::multiply(dx, pair)?,
        Some(x) if x.ndim() == 1 => {
            let d = crate::scan::diff(x, 1, -1)?;
            let mut shape = vec![1isize; y.ndim()];
            shape[ax] = d.shape()[0] as isize;
            uf::multiply(d.reshape(&shape)?, pair)?
        }
        Some(x) => uf::multiply(crate::scan::diff(x, 1, axis)?, pair)?,
    };
    crate::reduce::sum(&uf::divide(weighted, 2.0)?, axis, false)
}

/// The differences between consecutive elements of the flattened array (NumPy's `ediff1d`
/// without `to_begin`/`to_end`).
pub fn ediff1d(a: &Array) -> Result<Array> {
    let flat = a.ravel()?;
    if flat.shape()[0] == 0 {
        return Ok(flat);
    }
    crate::scan::diff(&flat, 1, 0)
}
