//! `pad` (`numpy.pad`). The constant, edge, reflect, symmetric and wrap modes are one gather
//! kernel over the output (`shaders/gather_axes.wgsl`: every output coordinate maps to a
//! source coordinate or a constant). The statistic modes (maximum, minimum, mean, median)
//! and linear_ramp pad axis after axis as NumPy does: a reduction (or a ramp) per side joined
//! with the array by one concatenation kernel. The odd reflections (`reflect_type='odd'`)
//! follow NumPy's iteration: chunks of at most one period, `2 * edge - chunk`, reflected
//! about the current edge, one concatenation per round.

use crate::array::Array;
use crate::manip::concatenate;
use crate::manip::launch::gather;
use crate::scalar::Scalar;
use kupfer_core::manip::AxisMap;
use kupfer_core::{DType, Error, Result, SliceArg};

/// How [`pad`] fills the new elements.
#[derive(Debug, Clone, PartialEq)]
pub enum PadMode {
    /// Constant values per axis `(before, after)`: one pair for all axes or one per axis
    /// (empty: zeros).
    Constant(Vec<(Scalar, Scalar)>),
    /// The edge values repeated.
    Edge,
    /// Mirrored about the edge values (which are not repeated).
    Reflect,
    /// Mirrored with the edge values repeated.
    Symmetric,
    /// The other end's values (periodic).
    Wrap,
    /// A linear ramp from the end values `(before, after)` (one pair or one per axis; empty:
    /// zeros) to the edge values.
    LinearRamp(Vec<(Scalar, Scalar)>),
    /// The maximum of the `stat_length` values nearest each edge (all of them when `None`).
    Maximum(Option<Vec<(usize, usize)>>),
    /// The minimum, as [`PadMode::Maximum`].
    Minimum(Option<Vec<(usize, usize)>>),
    /// The mean, as [`PadMode::Maximum`] (rounded for integer arrays).
    Mean(Option<Vec<(usize, usize)>>),
    /// The median, as [`PadMode::Mean`] (rounded half to even for integer arrays).
    Median(Option<Vec<(usize, usize)>>),
    /// [`PadMode::Reflect`] with NumPy's `reflect_type='odd'`: each mirrored value `v`
    /// becomes `2 * edge - v`, so the data continues through the edge.
    ReflectOdd,
    /// [`PadMode::Symmetric`] with `reflect_type='odd'`.
    SymmetricOdd,
}

impl PadMode {
    /// NumPy's name of the mode.
    pub fn name(&self) -> &'static str {
        match self {
            PadMode::Constant(_) => "constant",
            PadMode::Edge => "edge",
            PadMode::Reflect => "reflect",
            PadMode::Symmetric => "symmetric",
            PadMode::Wrap => "wrap",
            PadMode::LinearRamp(_) => "linear_ramp",
            PadMode::Maximum(_) => "maximum",
            PadMode::Minimum(_) => "minimum",
            PadMode::Mean(_) => "mean",
            PadMode::Median(_) => "median",
            PadMode::ReflectOdd => "reflect",
            PadMode::SymmetricOdd => "symmetric",
        }
    }
}

/// One `(before, after)` pair per axis from one pair or one per axis, as NumPy broadcasts
/// `pad_width`, `constant_values`, `end_values` and `stat_length`.
pub(crate) fn per_axis<T: Clone>(pairs: &[T], ndim: usize, default: T) -> Result<Vec<T>> {
    match pairs.len() {
        0 => Ok(vec![default; ndim]),
        1 => Ok(vec![pairs[0].clone(); ndim]),
        n if n == ndim => Ok(pairs.to_vec()),
        n => Err(Error::invalid(format!(
            "operands could not be broadcast together with remapped shapes \
             [original->remapped]: ({n},2)  and requested shape ({ndim},2)"
        ))),
    }
}

/// `a` padded by `pad_width[d] = (before, after)` elements along each axis (one pair for all
/// axes, or one per axis) (`numpy.pad`).
///
/// ```
/// use kupfer::PadMode;
/// let a = kupfer::Array::from_slice(&[1i32, 2, 3], &[3])?;
/// let p = kupfer::pad(&a, &[(2, 1)], &PadMode::Reflect)?;
/// assert_eq!(p.to_vec::<i32>()?, [3, 2, 1, 2, 3, 2]);
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn pad(a: &Array, pad_width: &[(usize, usize)], mode: &PadMode) -> Result<Array> {
    let nd = a.ndim();
    if pad_width.is_empty() {
        return Err(Error::invalid("pad_width must not be empty"));
    }
    let widths = per_axis(pad_width, nd, (0, 0))?;
    if nd == 0 {
        return a.copy();
    }
    if !matches!(mode, PadMode::Constant(_)) {
        for (d, (&len, &(b, af))) in a.shape().iter().zip(&widths).enumerate() {
            if len == 0 && (b > 0 || af > 0) {
                return Err(Error::invalid(format!(
                    "can't extend empty axis {d} using modes other than 'constant' or 'empty'"
                )));
            }
        }
    }
    let out: Vec<usize> = a
        .shape()
        .iter()
        .zip(&widths)
        .map(|(&len, &(b, af))| len + b + af)
        .collect();
    let gathered = |map: &dyn Fn(usize, usize) -> AxisMap, fills: &[(Scalar, Scalar)]| {
        let maps: Vec<AxisMap> = a
            .shape()
            .iter()
            .zip(&widths)
            .map(|(&len, &(b, _))| map(len, b))
            .collect();
        gather(a, &out, &maps, fills, &[])
    };
    match mode {
        PadMode::Constant(values) => {
            let zero = (Scalar::Int(0), Scalar::Int(0));
            let fills = per_axis(values, nd, zero)?;
            gathered(&|_, before| AxisMap::Shift { before }, &fills)
        }
        PadMode::Edge => gathered(&|_, before| AxisMap::Edge { before }, &[]),
        PadMode::Reflect => gathered(&|_, before| AxisMap::Reflect { before }, &[]),
        PadMode::Symmetric => gathered(&|_, before| AxisMap::Symmetric { before }, &[]),
        PadMode::Wrap => gathered(
            &|len, before| AxisMap::Wrap {
                add: (len - before % len.max(1)) % len.max(1),
            },
            &[],
        ),
        PadMode::LinearRamp(ends) => {
            let zero = (Scalar::Int(0), Scalar::Int(0));
            let ends = per_axis(ends, nd, zero)?;
            axis_by_axis(a, &widths, |cur, d, len, side| {
                let end = if side == 0 { ends[d].0 } else { ends[d].1 };
                ramp(cur, d, len, side, end)
            })
        }
        PadMode::ReflectOdd | PadMode::SymmetricOdd => {
            let symmetric = *mode == PadMode::SymmetricOdd;
            if widths.iter().all(|&(b, af)| b == 0 && af == 0) {
                return a.copy();
            }
            let mut cur = a.clone();
            for (d, &(b, af)) in widths.iter().enumerate() {
                cur = reflect_odd_axis(&cur, d, b, af, symmetric)?;
            }
            Ok(cur)
        }
        PadMode::Maximum(lengths)
        | PadMode::Minimum(lengths)
        | PadMode::Mean(lengths)
        | PadMode::Median(lengths) => {
            let lengths: Vec<(Option<usize>, Option<usize>)> = match lengths {
                None => vec![(None, None); nd],
                Some(l) => per_axis(l, nd, (0, 0))?
                    .into_iter()
                    .map(|(x, y)| (Some(x), Some(y)))
                    .collect(),
            };
            axis_by_axis(a, &widths, |cur, d, len, side| {
                let n = cur.shape()[d];
                let want = if side == 0 {
                    lengths[d].0
                } else {
                    lengths[d].1
                };
                let take = want.unwrap_or(n).min(n);
                if take == 0 && !matches!(mode, PadMode::Mean(_) | PadMode::Median(_)) {
                    return Err(Error::invalid(
                        "stat_length of 0 yields no value for padding",
                    ));
                }
                let range = if side == 0 { (0, take) } else { (n - take, n) };
                let mut args = vec![SliceArg::FULL; cur.ndim()];
                args[d] = SliceArg::range(range.0 as isize, range.1 as isize);
                let chunk = cur.slice(&args)?;
                let ax = d as isize;
                let stat = match mode {
                    PadMode::Maximum(_) => crate::reduce::max(&chunk, ax, true)?,
                    PadMode::Minimum(_) => crate::reduce::min(&chunk, ax, true)?,
                    _ => {
                        let m = if matches!(mode, PadMode::Median(_)) {
                            crate::sort::median(&chunk, Some(&[ax]), true)?
                        } else {
                            crate::reduce::mean(&chunk, ax, true)?
                        };
                        if cur.dtype().is_int() || cur.dtype() == DType::Bool {
                            crate::ufuncs::rint(&m)?
                        } else {
                            m
                        }
                    }
                };
                let mut shape = cur.shape().to_vec();
                shape[d] = len;
                stat.astype(cur.dtype())?.broadcast_to(&shape)
            })
        }
    }
}

/// One axis of an odd reflection, NumPy's `_set_reflect_both` rounds: each round mirrors a
/// chunk of at most the current length (kept to whole periods of the original `n` values;
/// the edge value excluded for `reflect`, included for `symmetric`) about each edge as
/// `2 * edge - chunk`, until `before` and `after` values are added. A length-1 axis repeats
/// its value (NumPy's legacy rule).
fn reflect_odd_axis(
    a: &Array,
    d: usize,
    before: usize,
    after: usize,
    symmetric: bool,
) -> Result<Array> {
    if before == 0 && after == 0 {
        return Ok(a.clone());
    }
    let n = a.shape()[d];
    let dtype = a.dtype();
    let along = |cur: &Array, lo: usize, hi: usize, reversed: bool| -> Result<Array> {
        let mut args = vec![SliceArg::FULL; cur.ndim()];
        args[d] = SliceArg::range(lo as isize, hi as isize);
        let part = cur.slice(&args)?;
        if !reversed {
            return Ok(part);
        }
        args[d] = SliceArg::Slice {
            start: None,
            stop: None,
            step: Some(-1),
        };
        part.slice(&args)
    };
    if n == 1 {
        let mut shape = a.shape().to_vec();
        shape[d] = before;
        let head = a.broadcast_to(&shape)?;
        shape[d] = after;
        let tail = a.broadcast_to(&shape)?;
        return concatenate(&[head, a.clone(), tail], Some(d as isize), None);
    }
    let odd = |chunk: Array, edge: Array| -> Result<Array> {
        crate::ufuncs::subtract(crate::ufuncs::multiply(&edge, 2i64)?, &chunk)?.astype(dtype)
    };
    let (mut left, mut right) = (before, after);
    let mut cur = a.clone();
    while left > 0 || right > 0 {
        let len = cur.shape()[d];
        let period = if symmetric {
            len / n * n
        } else {
            (len - 1) / (n - 1) * (n - 1)
        };
        let mut parts = Vec::with_capacity(3);
        let mut added_left = 0;
        if left > 0 {
            let c = period.min(left);
            let skip = usize::from(!symmetric);
            let chunk = along(&cur, skip, skip + c, true)?;
            parts.push(odd(chunk, along(&cur, 0, 1, false)?)?);
            added_left = c;
        }
        parts.push(cur.clone());
        let mut added_right = 0;
        if right > 0 {
            let c = period.min(right);
            let end = if symmetric { len } else { len - 1 };
            let chunk = along(&cur, end - c, end, true)?;
            parts.push(odd(chunk, along(&cur, len - 1, len, false)?)?);
            added_right = c;
        }
        cur = concatenate(&parts, Some(d as isize), None)?;
        left -= added_left;
        right -= added_right;
    }
    Ok(cur)
}

/// Pads axis after axis: `side_values(cur, d, width, side)` gives the `width` values before
/// (side 0) or after (side 1) the current array along axis `d`.
fn axis_by_axis(
    a: &Array,
    widths: &[(usize, usize)],
    side_values: impl Fn(&Array, usize, usize, usize) -> Result<Array>,
) -> Result<Array> {
    let mut cur = a.clone();
    let mut padded = false;
    for (d, &(b, af)) in widths.iter().enumerate() {
        if b == 0 && af == 0 {
            continue;
        }
        padded = true;
        let mut parts = Vec::with_capacity(3);
        if b > 0 {
            parts.push(side_values(&cur, d, b, 0)?);
        }
        parts.push(cur.clone());
        if af > 0 {
            parts.push(side_values(&cur, d, af, 1)?);
        }
        cur = concatenate(&parts, Some(d as isize), None)?;
    }
    if padded {
        Ok(cur)
    } else {
        cur.copy()
    }
}

/// NumPy's ramp of `width` values from `end` towards the edge value of `cur` along axis `d`
/// (`linspace(end, edge, width, endpoint=False)`, reversed after the array; integer arrays
/// floor the values).
fn ramp(cur: &Array, d: usize, width: usize, side: usize, end: Scalar) -> Result<Array> {
    let n = cur.shape()[d];
    let mut args = vec![SliceArg::FULL; cur.ndim()];
    args[d] = if side == 0 {
        SliceArg::range(0, 1)
    } else {
        SliceArg::range(n as isize - 1, n as isize)
    };
    let edge = cur.slice(&args)?;
    let dtype = cur.dtype();
    let compute = match dtype {
        DType::F64 | DType::Complex128 | DType::Complex64 => dtype,
        DType::I64 | DType::U64 => DType::F64,
        _ => DType::F32,
    };
    let edge = edge.astype(compute)?;
    let end_arr = crate::creation::full_like(&edge, end, Some(compute))?;
    let step = crate::ufuncs::divide(crate::ufuncs::subtract(&edge, &end_arr)?, width as f64)?;
    let mut jshape = vec![1isize; cur.ndim()];
    jshape[d] = -1;
    let j = if side == 0 {
        crate::creation::arange(0i64, width as i64, 1i64, Some(compute))?
    } else {
        crate::creation::arange(width as i64 - 1, -1i64, -1i64, Some(compute))?
    }
    .reshape(&jshape)?;
    let mut y = crate::ufuncs::add(crate::ufuncs::multiply(&j, &step)?, &end_arr)?;
    if dtype.is_int() {
        y = crate::ufuncs::floor(&y)?;
    }
    let mut shape = cur.shape().to_vec();
    shape[d] = width;
    y.astype(dtype)?.broadcast_to(&shape)
}
