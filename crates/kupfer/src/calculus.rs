//! Integration and differences on sampled data: NumPy's `trapezoid`, `ediff1d`, `gradient`
//! and `unwrap`.

use crate::array::Array;
use crate::ufuncs as uf;
use kupfer_core::{DType, Error, Result, SliceArg};

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

/// The dtype `gradient` and a float `unwrap` compute in: float dtypes keep theirs; integers and
/// bool become float64 in NumPy, float32 here for inputs of at most 32 bits (kupfer's rule).
fn float_of(a: &Array) -> DType {
    float_dtype(a.dtype())
}

fn float_dtype(d: DType) -> DType {
    match d {
        d if d.is_float() || d.is_complex() => d,
        d if d.is_64bit() => DType::F64,
        _ => DType::F32,
    }
}

/// The gradient of `f` along one axis with uniform spacing `h`: central differences inside,
/// one-sided differences of `edge_order` (1 or 2) at the ends (NumPy's `np.gradient`).
fn gradient_along(f: &Array, axis: usize, h: f64, edge_order: u32) -> Result<Array> {
    let n = f.shape()[axis];
    if n < edge_order as usize + 1 {
        return Err(Error::invalid(
            "Shape of array too small to calculate a numerical gradient, at least (edge_order \
             + 1) elements are required.",
        ));
    }
    let at = |i: isize| {
        range_along(
            f,
            axis,
            Some(i),
            Some(if i == -1 { isize::MAX } else { i + 1 }),
        )
    };
    let interior = uf::divide(
        uf::subtract(
            range_along(f, axis, Some(2), None)?,
            range_along(f, axis, None, Some(-2))?,
        )?,
        2.0 * h,
    )?;
    let (first, last) = if edge_order == 1 {
        (
            uf::divide(uf::subtract(at(1)?, at(0)?)?, h)?,
            uf::divide(uf::subtract(at(-1)?, at(-2)?)?, h)?,
        )
    } else {
        // (-3 f0 + 4 f1 - f2) / 2h and (3 f[-1] - 4 f[-2] + f[-3]) / 2h.
        let lo = uf::subtract(
            uf::add(uf::multiply(-1.5, at(0)?)?, uf::multiply(2.0, at(1)?)?)?,
            uf::multiply(0.5, at(2)?)?,
        )?;
        let hi = uf::add(
            uf::subtract(uf::multiply(1.5, at(-1)?)?, uf::multiply(2.0, at(-2)?)?)?,
            uf::multiply(0.5, at(-3)?)?,
        )?;
        (uf::divide(lo, h)?, uf::divide(hi, h)?)
    };
    crate::manip::concatenate(&[first, interior, last], Some(axis as isize), None)
}

/// The gradient of `f` (NumPy's `np.gradient` with scalar spacings): one array per axis in
/// `axes` (every axis when `None`), with second-order central differences inside and
/// one-sided differences of `edge_order` (1 or 2) at the boundaries. `spacing` is empty (unit
/// spacing), one value for every axis, or one value per axis. Integer input gives float32
/// (float64 for int64), NumPy's float64 under kupfer's 32-bit rule.
///
/// ```
/// # use kupfer as kp;
/// let f = kp::Array::from_slice(&[1.0f64, 2.0, 4.0, 7.0, 11.0, 16.0], &[6])?;
/// let g = kp::gradient(&f, &[], None, 1)?;
/// assert_eq!(g[0].to_vec::<f64>()?, vec![1.0, 1.5, 2.5, 3.5, 4.5, 5.0]);
/// # Ok::<(), kp::Error>(())
/// ```
pub fn gradient(
    f: &Array,
    spacing: &[f64],
    axes: Option<&[isize]>,
    edge_order: u32,
) -> Result<Vec<Array>> {
    if !(1..=2).contains(&edge_order) {
        return Err(Error::invalid("'edge_order' greater than 2 not supported"));
    }
    let axes: Vec<usize> = match axes {
        None => (0..f.ndim()).collect(),
        Some(list) => list
            .iter()
            .map(|&a| normal_axis(a, f.ndim()))
            .collect::<Result<_>>()?,
    };
    let h: Vec<f64> = match spacing.len() {
        0 => vec![1.0; axes.len()],
        1 => vec![spacing[0]; axes.len()],
        n if n == axes.len() => spacing.to_vec(),
        _ => return Err(Error::invalid("invalid number of arguments")),
    };
    let x = f.astype(float_of(f))?;
    axes.iter()
        .zip(h)
        .map(|(&axis, h)| gradient_along(&x, axis, h, edge_order))
        .collect()
}

/// Unwraps `p` along `axis` by changing differences larger than `discont` (`period / 2`
/// when `None`) to their `period` complement (NumPy's `np.unwrap`). Integer `p` with an
/// integral `period` stays integer, as in NumPy; otherwise the result is float (float32 for
/// integers of at most 32 bits, kupfer's rule).
///
/// ```
/// # use kupfer as kp;
/// let p = kp::Array::from_slice(&[0i32, 1, 2, -1, 0], &[5])?;
/// let u = kp::unwrap(&p, None, -1, 4.0)?;
/// assert_eq!(u.to_vec::<i32>()?, vec![0, 1, 2, 3, 4]);
/// # Ok::<(), kp::Error>(())
/// ```
pub fn unwrap(p: &Array, discont: Option<f64>, axis: isize, period: f64) -> Result<Array> {
    if p.ndim() == 0 {
        return Err(Error::invalid(format!(
            "axis {axis} is out of bounds for array of dimension 0"
        )));
    }
    let ax = normal_axis(axis, p.ndim())?;
    let integral = (p.dtype().is_int() || p.dtype() == DType::Bool) && period.fract() == 0.0;
    let (dtype, high, ambiguous) = if integral {
        let d = if p.dtype() == DType::Bool {
            DType::I32
        } else {
            p.dtype()
        };
        (d, (period / 2.0).floor(), period.rem_euclid(2.0) == 0.0)
    } else {
        (float_of(p), period / 2.0, true)
    };
    let x = p.astype(dtype)?;
    let discont = discont.unwrap_or(period / 2.0).max(period / 2.0);
    let scalar = |v: f64| -> crate::Operand {
        if integral {
            crate::Operand::from(v as i64)
        } else {
            crate::Operand::from(v)
        }
    };
    let dd = crate::scan::diff(&x, 1, ax as isize)?;
    let low = -high;
    let mut ddmod = uf::add(
        uf::remainder(uf::subtract(&dd, scalar(low))?, scalar(period))?,
        scalar(low),
    )?;
    if ambiguous {
        let at_low = uf::logical_and(uf::equal(&ddmod, scalar(low))?, uf::greater(&dd, 0)?)?;
        ddmod = uf::where_(at_low, scalar(high), &ddmod)?;
    }
    let correct = uf::subtract(&ddmod, &dd)?;
    let correct = uf::where_(
        uf::less(uf::absolute(&dd)?, scalar(discont))?,
        scalar(0.0),
        correct,
    )?;
    let shift = crate::scan::cumsum(&correct, Some(ax as isize), Some(dtype))?;
    let head = range_along(&x, ax, None, Some(1))?;
    let tail = uf::add(range_along(&x, ax, Some(1), None)?, shift)?.astype(dtype)?;
    crate::manip::concatenate(&[head, tail], Some(ax as isize), None)
}

/// One-dimensional linear interpolation (NumPy's `np.interp` without `period`): the values at
/// `x` of the piecewise linear function through `(xp, fp)`, `xp` increasing. Below `xp[0]` the
/// result is `left` (default `fp[0]`), above `xp[-1]` `right` (default `fp[-1]`); NaN stays
/// NaN. The result is float (complex for complex `fp`): float64 in NumPy, float32 here when
/// every input has at most 32 bits (kupfer's rule). One `searchsorted` and four gathers.
///
/// ```
/// # use kupfer as kp;
/// let xp = kp::Array::from_slice(&[1.0f64, 2.0, 3.0], &[3])?;
/// let fp = kp::Array::from_slice(&[3.0f64, 2.0, 0.0], &[3])?;
/// let x = kp::Array::from_slice(&[0.0f64, 1.5, 2.75, 3.14], &[4])?;
/// let y = kp::interp(&x, &xp, &fp, None, None)?.to_vec::<f64>()?;
/// assert_eq!(y, vec![3.0, 2.5, 0.5, 0.0]);
/// # Ok::<(), kp::Error>(())
/// ```
#[cfg(not(target_arch = "wasm32"))]
pub fn interp(
    x: &Array,
    xp: &Array,
    fp: &Array,
    left: Option<f64>,
    right: Option<f64>,
) -> Result<Array> {
    use crate::indexing::functions::{take, TakeMode};
    use kupfer_core::promote::result_type;
    if xp.ndim() != 1 || fp.ndim() != 1 {
        return Err(Error::invalid("object too deep for desired array"));
    }
    let n = xp.shape()[0];
    if fp.shape()[0] != n {
        return Err(Error::invalid("fp and xp are not of the same length."));
    }
    if n == 0 {
        return Err(Error::invalid("array of sample points is empty"));
    }
    let real = result_type(x.dtype(), xp.dtype())?;
    let all = result_type(real, fp.dtype())?;
    let d = float_dtype(all);
    let part = d.real_part();
    let xs = x.astype(part)?;
    let xpf = xp.astype(part)?;
    let fpf = fp.astype(d)?;
    let first = |a: &Array| range_along(a, 0, Some(0), Some(1))?.reshape(&[]);
    let last = |a: &Array| range_along(a, 0, Some(n as isize - 1), None)?.reshape(&[]);
    let (x0, xn, f0, fnl) = (first(&xpf)?, last(&xpf)?, first(&fpf)?, last(&fpf)?);
    let inside = if n == 1 {
        uf::add(&f0, uf::multiply(&xs, 0)?)?.astype(d)?
    } else {
        let pos = crate::sort::searchsorted(&xpf, &xs, crate::sort::Side::Right, None)?;
        let j = uf::maximum(uf::minimum(uf::subtract(&pos, 1)?, n as i64 - 2)?, 0)?;
        let j1 = uf::add(&j, 1)?;
        let gather = |a: &Array, i: &Array| take(a, &i.into(), None, TakeMode::Clip);
        let (xj, xj1) = (gather(&xpf, &j)?, gather(&xpf, &j1)?);
        let (fj, fj1) = (gather(&fpf, &j)?, gather(&fpf, &j1)?);
        let slope = uf::divide(uf::subtract(&fj1, &fj)?, uf::subtract(&xj1, &xj)?)?;
        let mut r = uf::add(uf::multiply(&slope, uf::subtract(&xs, &xj)?)?, &fj)?;
        if !d.is_complex() {
            // NumPy's fallbacks where the slope overflows: from the right end, then fp[j].
            let again = uf::add(uf::multiply(&slope, uf::subtract(&xs, &xj1)?)?, &fj1)?;
            r = uf::where_(uf::isnan(&r)?, again, &r)?;
            let flat = uf::logical_and(uf::isnan(&r)?, uf::equal(&fj, &fj1)?)?;
            r = uf::where_(flat, &fj, &r)?;
        }
        r = uf::where_(uf::equal(&xs, &xj)?, &fj, &r)?;
        uf::where_(uf::greater_equal(&xs, &xn)?, &fnl, &r)?
    };
    let below: crate::Operand = match left {
        Some(v) => v.into(),
        None => (&f0).into(),
    };
    let above: crate::Operand = match right {
        Some(v) => v.into(),
        None => (&fnl).into(),
    };
    let r = uf::where_(uf::less(&xs, &x0)?, below, inside)?;
    let r = uf::where_(uf::greater(&xs, &xn)?, above, r)?;
    uf::where_(uf::isnan(&xs)?, &xs, r)?.astype(d)
}
