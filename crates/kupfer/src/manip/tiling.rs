//! Repetition: `tile`, `repeat` and `resize`, each one gather kernel (`repeat` with
//! per-element counts reads the counts back first: its result's size depends on them).

use super::launch::gather;
use crate::array::Array;
use kupfer_core::layout::normalize_axis;
use kupfer_core::manip::AxisMap;
use kupfer_core::{DType, Error, Result};

/// `a` repeated `reps[d]` times along each axis (`numpy.tile`): `reps` shorter than `a`'s
/// rank is padded with ones in front, `a` is given leading unit axes where `reps` is longer.
///
/// ```
/// let a = kupfer::Array::from_slice(&[1i32, 2], &[2])?;
/// let t = kupfer::tile(&a, &[2, 2])?;
/// assert_eq!(t.shape(), &[2, 4]);
/// assert_eq!(t.to_vec::<i32>()?, [1, 2, 1, 2, 1, 2, 1, 2]);
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn tile(a: &Array, reps: &[isize]) -> Result<Array> {
    if reps.iter().any(|&r| r < 0) {
        return Err(Error::invalid("negative dimensions are not allowed"));
    }
    let nd = a.ndim().max(reps.len());
    let mut shape = vec![1isize; nd - a.ndim()];
    shape.extend(a.shape().iter().map(|&s| s as isize));
    let a = a.reshape(&shape)?;
    let mut r = vec![1usize; nd - reps.len()];
    r.extend(reps.iter().map(|&x| x as usize));
    let out = a
        .shape()
        .iter()
        .zip(&r)
        .map(|(&s, &k)| {
            s.checked_mul(k)
                .ok_or_else(|| Error::invalid(kupfer_core::layout::TOO_BIG))
        })
        .collect::<Result<Vec<usize>>>()?;
    kupfer_core::layout::checked_size(&out, a.dtype().host_size())?;
    let maps = vec![AxisMap::Wrap { add: 0 }; nd];
    if a.size() == 0 || out.iter().product::<usize>() == 0 {
        return crate::creation::zeros(&out, Some(a.dtype()));
    }
    gather(&a, &out, &maps, &[], &[])
}

/// How many times [`repeat`] repeats elements.
#[derive(Debug, Clone)]
pub enum Repeats {
    /// Every element the same number of times.
    Each(usize),
    /// One count per element along the axis (an integer array, read back to the host once:
    /// the result's size depends on the counts).
    Counts(Array),
}

/// Repeats each element along `axis` (the flattened array when `None`) (`numpy.repeat`).
/// Per-element counts ([`Repeats::Counts`]) are read back to size the result — a
/// synchronisation; on wasm32, where nothing may block, counts are an error here: use
/// [`repeat_async`].
///
/// ```
/// let a = kupfer::Array::from_slice(&[1i32, 2], &[2])?;
/// let r = kupfer::repeat(&a, &kupfer::Repeats::Each(2), None)?;
/// assert_eq!(r.to_vec::<i32>()?, [1, 1, 2, 2]);
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn repeat(a: &Array, repeats: &Repeats, axis: Option<isize>) -> Result<Array> {
    match repeats {
        Repeats::Each(k) => repeat_each(a, *k, axis),
        #[cfg(target_arch = "wasm32")]
        Repeats::Counts(_) => Err(Error::unsupported(
            "repeat with per-element counts blocks on a read-back of the counts; use \
             repeat_async in the browser",
        )),
        #[cfg(not(target_arch = "wasm32"))]
        Repeats::Counts(c) => {
            check_counts(c)?;
            let host: Vec<i64> = match c.dtype() {
                DType::I64 => c.to_vec::<i64>()?,
                DType::U32 => c.to_vec::<u32>()?.into_iter().map(i64::from).collect(),
                _ => c
                    .astype(DType::I32)?
                    .to_vec::<i32>()?
                    .into_iter()
                    .map(i64::from)
                    .collect(),
            };
            repeat_counts(a, &count_values(&host)?, axis)
        }
    }
}

/// [`repeat`] with the read-back of per-element counts awaited (every target, wasm32 too).
pub async fn repeat_async(a: &Array, repeats: &Repeats, axis: Option<isize>) -> Result<Array> {
    match repeats {
        Repeats::Each(k) => repeat_each(a, *k, axis),
        Repeats::Counts(c) => {
            check_counts(c)?;
            let host: Vec<i64> = match c.dtype() {
                DType::I64 => c.to_vec_async::<i64>().await?,
                DType::U32 => c
                    .to_vec_async::<u32>()
                    .await?
                    .into_iter()
                    .map(i64::from)
                    .collect(),
                _ => c
                    .astype(DType::I32)?
                    .to_vec_async::<i32>()
                    .await?
                    .into_iter()
                    .map(i64::from)
                    .collect(),
            };
            repeat_counts(a, &count_values(&host)?, axis)
        }
    }
}

/// Checks the counts array: integers, 0-d or 1-d.
fn check_counts(c: &Array) -> Result<()> {
    if !(c.dtype().is_int() || c.dtype() == DType::Bool) {
        return Err(Error::invalid(format!(
            "Cannot cast array data from dtype('{}') to dtype('int64') according to the rule \
             'safe'",
            c.dtype()
        )));
    }
    if c.ndim() > 1 {
        return Err(Error::invalid("repeats must be 0-d or 1-d"));
    }
    Ok(())
}

/// The counts as sizes (none negative).
fn count_values(values: &[i64]) -> Result<Vec<usize>> {
    values
        .iter()
        .map(|&v| {
            usize::try_from(v)
                .map_err(|_| Error::invalid("repeats may not contain negative values."))
        })
        .collect()
}

/// `a` flattened when `axis` is `None`, and the axis to repeat along.
fn along(a: &Array, axis: Option<isize>) -> Result<(Array, usize)> {
    match axis {
        None => Ok((a.ravel()?, 0)),
        Some(ax) => {
            if a.ndim() == 0 {
                return Err(Error::invalid(format!(
                    "axis {ax} is out of bounds for array of dimension 0"
                )));
            }
            Ok((a.clone(), normalize_axis(ax, a.ndim())?))
        }
    }
}

fn repeat_each(a: &Array, count: usize, axis: Option<isize>) -> Result<Array> {
    let (a, ax) = along(a, axis)?;
    let mut out = a.shape().to_vec();
    out[ax] *= count;
    let mut maps = vec![AxisMap::IDENTITY; a.ndim()];
    maps[ax] = AxisMap::Divide { count };
    gather(&a, &out, &maps, &[], &[])
}

fn repeat_counts(a: &Array, counts: &[usize], axis: Option<isize>) -> Result<Array> {
    let (a, ax) = along(a, axis)?;
    let len = a.shape()[ax];
    if counts.len() == 1 {
        return repeat_each(&a, counts[0], Some(ax as isize));
    }
    if counts.len() != len {
        return Err(Error::invalid(format!(
            "operands could not be broadcast together with shape ({len},) ({},)",
            counts.len()
        )));
    }
    let mut table = Vec::with_capacity(counts.iter().sum());
    for (i, &c) in counts.iter().enumerate() {
        table.extend(std::iter::repeat_n(i as u32, c));
    }
    let mut out = a.shape().to_vec();
    out[ax] = table.len();
    if table.is_empty() {
        return crate::creation::zeros(&out, Some(a.dtype()));
    }
    let mut maps = vec![AxisMap::IDENTITY; a.ndim()];
    maps[ax] = AxisMap::Table { start: 0 };
    gather(&a, &out, &maps, &[], &table)
}

/// `a` flattened and repeated cyclically (or cut) to `shape` (`numpy.resize`).
pub fn resize(a: &Array, shape: &[isize]) -> Result<Array> {
    if shape.iter().any(|&s| s < 0) {
        return Err(Error::invalid(
            "all elements of `new_shape` must be non-negative",
        ));
    }
    let out: Vec<usize> = shape.iter().map(|&s| s as usize).collect();
    let n: usize = out.iter().product();
    let flat = a.ravel()?;
    if flat.size() == 0 || n == 0 {
        return crate::creation::zeros(&out, Some(a.dtype()));
    }
    gather(&flat, &[n], &[AxisMap::Wrap { add: 0 }], &[], &[])?.reshape(shape)
}
