//! Integration and differences on sampled data: NumPy's `trapezoid`, `ediff1d`, `gradient`,
//! `unwrap` and `interp`.

use crate::array::Array;
use crate::scalar::Operand;
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

/// The differences between consecutive elements of the flattened array, with `to_begin`
/// and `to_end` (flattened) put before and after them (NumPy's `ediff1d`). The result keeps
/// `a`'s dtype; `to_begin` and `to_end` must cast to it under the same-kind rule.
///
/// ```
/// # use kupfer as kp;
/// let a = kp::Array::from_slice(&[1i64, 2, 4, 7, 0], &[5])?;
/// let pad = kp::Array::from_slice(&[88i64, 99], &[2])?;
/// let d = kp::ediff1d(&a, Some(&pad), None)?;
/// assert_eq!(d.to_vec::<i64>()?, vec![1, 2, 3, -7, 88, 99]);
/// # Ok::<(), kp::Error>(())
/// ```
pub fn ediff1d(a: &Array, to_end: Option<&Array>, to_begin: Option<&Array>) -> Result<Array> {
    let flat = a.ravel()?;
    let d = flat.dtype();
    let diffs = if flat.shape()[0] == 0 {
        flat.clone()
    } else {
        crate::scan::diff(&flat, 1, 0)?
    };
    let edge = |e: Option<&Array>, name: &str| -> Result<Option<Array>> {
        let Some(e) = e else { return Ok(None) };
        if !kupfer_core::casting::can_cast(e.dtype(), d, kupfer_core::casting::Casting::SameKind) {
            return Err(Error::invalid(format!(
                "dtype of `{name}` must be compatible with input `ary` under the `same_kind` \
                 rule."
            )));
        }
        Ok(Some(e.ravel()?.astype(d)?))
    };
    let (begin, end) = (edge(to_begin, "to_begin")?, edge(to_end, "to_end")?);
    if begin.is_none() && end.is_none() {
        return Ok(diffs);
    }
    let parts: Vec<Array> = begin.into_iter().chain([diffs]).chain(end).collect();
    crate::manip::concatenate(&parts, Some(0), None)
}

/// The Array API's running sum (`numpy.cumulative_sum`): like [`cumsum`](crate::cumsum), but `axis` may be
/// left out only for 0-d and 1-d input (a 0-d input counts as 1-d), and `include_initial`
/// puts the sum of nothing (0) before the running sums along `axis`.
///
/// ```
/// # use kupfer as kp;
/// let x = kp::Array::from_slice(&[1i32, 2, 3], &[3])?;
/// let s = kp::cumulative_sum(&x, None, None, true)?;
/// assert_eq!(s.to_vec::<i32>()?, vec![0, 1, 3, 6]);
/// # Ok::<(), kp::Error>(())
/// ```
pub fn cumulative_sum(
    x: &Array,
    axis: Option<isize>,
    dtype: Option<DType>,
    include_initial: bool,
) -> Result<Array> {
    cumulative(x, axis, dtype, include_initial, false)
}

/// The Array API's running product (`numpy.cumulative_prod`), as [`cumulative_sum`] with 1
/// as the initial value.
pub fn cumulative_prod(
    x: &Array,
    axis: Option<isize>,
    dtype: Option<DType>,
    include_initial: bool,
) -> Result<Array> {
    cumulative(x, axis, dtype, include_initial, true)
}

fn cumulative(
    x: &Array,
    axis: Option<isize>,
    dtype: Option<DType>,
    include_initial: bool,
    product: bool,
) -> Result<Array> {
    let x = if x.ndim() == 0 {
        x.reshape(&[1])?
    } else {
        x.clone()
    };
    let axis = match axis {
        Some(a) => a,
        None if x.ndim() >= 2 => {
            return Err(Error::invalid(
                "For arrays which have more than one dimension ``axis`` argument is required.",
            ))
        }
        None => 0,
    };
    let running = if product {
        crate::scan::cumprod(&x, Some(axis), dtype)?
    } else {
        crate::scan::cumsum(&x, Some(axis), dtype)?
    };
    if !include_initial {
        return Ok(running);
    }
    let ax = normal_axis(axis, running.ndim())?;
    let mut shape = running.shape().to_vec();
    shape[ax] = 1;
    let identity = crate::creation::full_on(
        running.device(),
        &shape,
        if product { 1i64 } else { 0i64 },
        Some(running.dtype()),
    )?;
    crate::manip::concatenate(&[identity, running], Some(ax as isize), None)
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

/// `f`'s slice `[i]` (or `[i:]` for `-1`) along `axis`, keeping the axis.
fn at_along(f: &Array, axis: usize, i: isize) -> Result<Array> {
    range_along(
        f,
        axis,
        Some(i),
        Some(if i == -1 { isize::MAX } else { i + 1 }),
    )
}

/// The gradient of `f` along one axis with uniform spacing `h`: central differences inside,
/// one-sided differences of `edge_order` (1 or 2) at the ends (NumPy's `np.gradient`).
/// `h * k`: a number stays a (weak) number, so it keeps `f`'s float dtype.
fn scaled(h: &Operand, k: f64) -> Result<Operand> {
    Ok(match h {
        Operand::Scalar(s) => Operand::Scalar(crate::scalar::Scalar::Float(s.as_f64() * k)),
        Operand::Array(a) => uf::multiply(a, k)?.into(),
    })
}

/// `h` is a number or a 0-d array (the first step of coordinates found to be uniform).
fn gradient_along(f: &Array, axis: usize, h: Operand, edge_order: u32) -> Result<Array> {
    let at = |i: isize| at_along(f, axis, i);
    let interior = uf::divide(
        uf::subtract(
            range_along(f, axis, Some(2), None)?,
            range_along(f, axis, None, Some(-2))?,
        )?,
        scaled(&h, 2.0)?,
    )?;
    let (first, last) = if edge_order == 1 {
        (
            uf::divide(uf::subtract(at(1)?, at(0)?)?, h.clone())?,
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
        (uf::divide(lo, h.clone())?, uf::divide(hi, h)?)
    };
    crate::manip::concatenate(&[first, interior, last], Some(axis as isize), None)
}

/// The gradient of `f` along one axis at the sample coordinates `x` (1-d, `f.shape[axis]`
/// long): NumPy's second-order differences for uneven spacing inside (`a f[i-1] + b f[i] +
/// c f[i+1]` with weights from the two neighbouring steps) and its one-sided formulas of
/// `edge_order` at the ends.
fn gradient_along_coordinates(f: &Array, axis: usize, x: &Array, edge_order: u32) -> Result<Array> {
    let nd = f.ndim();
    // The steps, shaped to broadcast along `axis`.
    let dx = crate::scan::diff(x, 1, 0)?.astype(f.dtype().real_part())?;
    let mut shape = vec![1isize; nd];
    shape[axis] = -1;
    let dx = dx.reshape(&shape)?;
    let step = |i: isize| at_along(&dx, axis, i);
    let weighted = |w: [Array; 3], v: [Array; 3]| -> Result<Array> {
        let [wa, wb, wc] = w;
        let [va, vb, vc] = v;
        uf::add(
            uf::add(uf::multiply(wa, va)?, uf::multiply(wb, vb)?)?,
            uf::multiply(wc, vc)?,
        )
    };
    let (dx1, dx2) = (
        range_along(&dx, axis, None, Some(-1))?,
        range_along(&dx, axis, Some(1), None)?,
    );
    let sum = uf::add(&dx1, &dx2)?;
    let interior = weighted(
        [
            uf::divide(uf::negative(&dx2)?, uf::multiply(&dx1, &sum)?)?,
            uf::divide(uf::subtract(&dx2, &dx1)?, uf::multiply(&dx1, &dx2)?)?,
            uf::divide(&dx1, uf::multiply(&dx2, &sum)?)?,
        ],
        [
            range_along(f, axis, None, Some(-2))?,
            range_along(f, axis, Some(1), Some(-1))?,
            range_along(f, axis, Some(2), None)?,
        ],
    )?;
    let at = |i: isize| at_along(f, axis, i);
    let (first, last) = if edge_order == 1 {
        (
            uf::divide(uf::subtract(at(1)?, at(0)?)?, step(0)?)?,
            uf::divide(uf::subtract(at(-1)?, at(-2)?)?, step(-1)?)?,
        )
    } else {
        let (d1, d2) = (step(0)?, step(1)?);
        let s = uf::add(&d1, &d2)?;
        let first = weighted(
            [
                uf::divide(
                    uf::negative(uf::add(uf::multiply(&d1, 2.0)?, &d2)?)?,
                    uf::multiply(&d1, &s)?,
                )?,
                uf::divide(&s, uf::multiply(&d1, &d2)?)?,
                uf::divide(uf::negative(&d1)?, uf::multiply(&d2, &s)?)?,
            ],
            [at(0)?, at(1)?, at(2)?],
        )?;
        let (d1, d2) = (step(-2)?, step(-1)?);
        let s = uf::add(&d1, &d2)?;
        let last = weighted(
            [
                uf::divide(&d2, uf::multiply(&d1, &s)?)?,
                uf::divide(uf::negative(&s)?, uf::multiply(&d1, &d2)?)?,
                uf::divide(
                    uf::add(uf::multiply(&d2, 2.0)?, &d1)?,
                    uf::multiply(&d2, &s)?,
                )?,
            ],
            [at(-3)?, at(-2)?, at(-1)?],
        )?;
        (first, last)
    };
    crate::manip::concatenate(&[first, interior, last], Some(axis as isize), None)
}

/// The sample spacing of one axis of [`gradient`]: a uniform step, or the coordinates of the
/// samples (a 1-d array as long as the axis).
#[derive(Debug, Clone)]
pub enum Spacing {
    /// Samples `h` apart.
    Uniform(f64),
    /// Samples at these coordinates (any real dtype; integers compute as float).
    Coordinates(Array),
}

impl From<f64> for Spacing {
    fn from(h: f64) -> Spacing {
        Spacing::Uniform(h)
    }
}

impl From<Array> for Spacing {
    fn from(x: Array) -> Spacing {
        Spacing::Coordinates(x)
    }
}

/// The gradient of `f` (NumPy's `np.gradient`): one array per axis in `axes` (every axis
/// when `None`), with second-order central differences inside and one-sided differences of
/// `edge_order` (1 or 2) at the boundaries. `spacing` is empty (unit spacing), one spacing
/// for every axis, or one per axis; a spacing is a step or the samples' coordinates
/// ([`Spacing`]). Integer input gives float32 (float64 for int64), NumPy's float64 under
/// kupfer's 32-bit rule.
///
/// ```
/// # use kupfer as kp;
/// let f = kp::Array::from_slice(&[1.0f64, 2.0, 4.0, 7.0, 11.0, 16.0], &[6])?;
/// let g = kp::gradient(&f, &[], None, 1)?;
/// assert_eq!(g[0].to_vec::<f64>()?, vec![1.0, 1.5, 2.5, 3.5, 4.5, 5.0]);
/// let x = kp::Array::from_slice(&[0.0f64, 1.0, 1.5, 3.5, 4.0, 6.0], &[6])?;
/// let g = kp::gradient(&f, &[x.into()], None, 1)?.remove(0).to_vec::<f64>()?;
/// for (got, want) in g.iter().zip([1.0, 3.0, 3.5, 6.7, 6.9, 2.5]) {
///     assert!((got - want).abs() < 1e-12);
/// }
/// # Ok::<(), kp::Error>(())
/// ```
pub fn gradient(
    f: &Array,
    spacing: &[Spacing],
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
    let h: Vec<Spacing> = match spacing.len() {
        0 => vec![Spacing::Uniform(1.0); axes.len()],
        1 if matches!(spacing[0], Spacing::Uniform(_)) => vec![spacing[0].clone(); axes.len()],
        n if n == axes.len() => spacing.to_vec(),
        _ => return Err(Error::invalid("invalid number of arguments")),
    };
    let x = f.astype(float_of(f))?;
    axes.iter()
        .zip(h)
        .map(|(&axis, h)| {
            let n = x.shape()[axis];
            if n < edge_order as usize + 1 {
                return Err(Error::invalid(
                    "Shape of array too small to calculate a numerical gradient, at least \
                     (edge_order + 1) elements are required.",
                ));
            }
            match h {
                Spacing::Uniform(h) => gradient_along(&x, axis, h.into(), edge_order),
                Spacing::Coordinates(c) => {
                    if c.ndim() != 1 {
                        return Err(Error::invalid("distances must be either scalars or 1d"));
                    }
                    if c.shape()[0] != n {
                        return Err(Error::invalid(
                            "when 1d, distances must match the length of the corresponding \
                             dimension",
                        ));
                    }
                    if c.dtype().is_complex() {
                        return Err(Error::unsupported("complex sample coordinates in gradient"));
                    }
                    let c = c.astype(float_dtype(kupfer_core::promote::result_type(
                        c.dtype(),
                        x.dtype().real_part(),
                    )?))?;
                    // NumPy takes evenly spaced coordinates as their first step: decided on
                    // the device (both formulas, selected), so nothing is read back.
                    let steps = crate::scan::diff(&c, 1, 0)?;
                    let first = range_along(&steps, 0, Some(0), Some(1))?.reshape(&[])?;
                    let even = crate::reduce::all(
                        &uf::equal(&steps, &first)?,
                        crate::reduce::Axis::All,
                        false,
                    )?;
                    let by_step = gradient_along(&x, axis, first.into(), edge_order)?;
                    let by_coordinates = gradient_along_coordinates(&x, axis, &c, edge_order)?;
                    uf::where_(even, by_step, by_coordinates)?.astype(x.dtype())
                }
            }
        })
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

/// One-dimensional linear interpolation (NumPy's `np.interp`): the values at
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
/// let y = kp::interp(&x, &xp, &fp, None, None, None)?.to_vec::<f64>()?;
/// assert_eq!(y, vec![3.0, 2.5, 0.5, 0.0]);
/// # Ok::<(), kp::Error>(())
/// ```
///
/// With `period`, the coordinates are angles: `x` and `xp` are taken modulo `period`, `xp`
/// need not be sorted, the ends wrap around, and `left`/`right` are ignored (NumPy's).
#[cfg(not(target_arch = "wasm32"))]
pub fn interp(
    x: &Array,
    xp: &Array,
    fp: &Array,
    left: Option<f64>,
    right: Option<f64>,
    period: Option<f64>,
) -> Result<Array> {
    use crate::indexing::functions::{take, TakeMode};
    use kupfer_core::promote::result_type;
    if let Some(period) = period {
        if period == 0.0 {
            return Err(Error::invalid("period must be a non-zero value"));
        }
        if xp.ndim() != 1 || fp.ndim() != 1 {
            return Err(Error::invalid("Data points must be 1-D sequences"));
        }
        if xp.shape()[0] != fp.shape()[0] {
            return Err(Error::invalid("fp and xp are not of the same length"));
        }
        let period = period.abs();
        let real = float_dtype(result_type(x.dtype(), xp.dtype())?).real_part();
        let x = uf::remainder(x.astype(real)?, period)?;
        let xp = uf::remainder(xp.astype(real)?, period)?;
        let order = crate::sort::argsort(&xp, Some(-1), None)?;
        let xp = take(&xp, &(&order).into(), None, TakeMode::Clip)?;
        let fp = take(fp, &(&order).into(), None, TakeMode::Clip)?;
        let n = xp.shape()[0] as isize;
        let (xp_first, xp_last) = (
            range_along(&xp, 0, Some(0), Some(1))?,
            range_along(&xp, 0, Some(n - 1), None)?,
        );
        let (fp_first, fp_last) = (
            range_along(&fp, 0, Some(0), Some(1))?,
            range_along(&fp, 0, Some(n - 1), None)?,
        );
        let xp = crate::manip::concatenate(
            &[
                uf::subtract(xp_last, period)?,
                xp,
                uf::add(xp_first, period)?,
            ],
            Some(0),
            None,
        )?;
        let fp = crate::manip::concatenate(&[fp_last, fp, fp_first], Some(0), None)?;
        return interp(&x, &xp, &fp, None, None, None);
    }
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
