//! Inserting and deleting along an axis (`insert`, `delete`: one join and one table gather,
//! the table built on the host from the indices, which are host values), and `trim_zeros`
//! (the bounding box of the nonzero elements, read back once).

use super::joining::concatenate;
use super::launch::gather;
use crate::array::Array;
use kupfer_core::layout::normalize_axis;
use kupfer_core::manip::AxisMap;
use kupfer_core::{DType, Error, Result, SliceArg};

/// `arr` flattened when `axis` is `None`, with the axis to work along.
fn along(arr: &Array, axis: Option<isize>) -> Result<(Array, usize)> {
    match axis {
        None => Ok((arr.ravel()?, 0)),
        Some(ax) => Ok((arr.clone(), normalize_axis(ax, arr.ndim())?)),
    }
}

/// `a` with its positions along `axis` taken from `table` (one gather).
fn pick(a: &Array, axis: usize, table: &[u32]) -> Result<Array> {
    let mut out = a.shape().to_vec();
    out[axis] = table.len();
    if table.is_empty() || a.size() == 0 {
        return crate::creation::zeros(&out, Some(a.dtype()));
    }
    let mut maps = vec![AxisMap::IDENTITY; a.ndim()];
    maps[axis] = AxisMap::Table { start: 0 };
    gather(a, &out, &maps, &[], table)
}

fn out_of_bounds(index: isize, axis: usize, len: usize) -> Error {
    Error::invalid(format!(
        "index {index} is out of bounds for axis {axis} with size {len}"
    ))
}

/// `arr` without the positions `indices` along `axis` (flattened first when `None`)
/// (`numpy.delete`; negative indices count from the end, repeats are allowed).
///
/// ```
/// let a = kupfer::arange(0, 5, 1, Some(kupfer::DType::I32))?;
/// let d = kupfer::delete(&a, &[1, -1], None)?;
/// assert_eq!(d.to_vec::<i32>()?, [0, 2, 3]);
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn delete(arr: &Array, indices: &[isize], axis: Option<isize>) -> Result<Array> {
    let (a, ax) = along(arr, axis)?;
    if a.ndim() == 0 {
        return Err(Error::invalid(
            "axis 0 is out of bounds for array of dimension 0",
        ));
    }
    let len = a.shape()[ax];
    let mut keep = vec![true; len];
    for &i in indices {
        let j = if i < 0 { i + len as isize } else { i };
        if j < 0 || j >= len as isize {
            return Err(out_of_bounds(i, ax, len));
        }
        keep[j as usize] = false;
    }
    let table: Vec<u32> = (0..len as u32).filter(|&i| keep[i as usize]).collect();
    pick(&a, ax, &table)
}

/// Where [`insert`] inserts: before one index (values given as for `a[..., i, ...]`), or
/// before each of several indices (values given as for `a[..., [i, j], ...]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InsertAt {
    /// One position (NumPy's scalar `obj`).
    Index(isize),
    /// Several positions (NumPy's sequence `obj`), each an index into the original array.
    Indices(Vec<isize>),
}

/// `arr` with `values` inserted before the given positions along `axis` (flattened first
/// when `None`) (`numpy.insert`; values are cast to `arr`'s dtype and broadcast as NumPy
/// does).
///
/// ```
/// use kupfer::InsertAt;
/// let a = kupfer::arange(0, 3, 1, Some(kupfer::DType::I32))?;
/// let v = kupfer::Array::from_slice(&[9i32], &[1])?;
/// let b = kupfer::insert(&a, &InsertAt::Index(1), &v, None)?;
/// assert_eq!(b.to_vec::<i32>()?, [0, 9, 1, 2]);
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn insert(arr: &Array, at: &InsertAt, values: &Array, axis: Option<isize>) -> Result<Array> {
    let (a, ax) = along(arr, axis)?;
    if a.ndim() == 0 {
        return Err(Error::invalid(
            "axis 0 is out of bounds for array of dimension 0",
        ));
    }
    let n = a.shape()[ax];
    let nd = a.ndim();
    let single = match at {
        InsertAt::Index(i) => Some((*i, true)),
        InsertAt::Indices(v) if v.len() == 1 => Some((v[0], false)),
        InsertAt::Indices(_) => None,
    };
    let values = values.astype(a.dtype())?;
    if let Some((index, scalar)) = single {
        if index < -(n as isize) || index > n as isize {
            return Err(out_of_bounds(index, ax, n));
        }
        let index = if index < 0 { index + n as isize } else { index } as usize;
        // NumPy: values with at least a.ndim axes (leading ones added); a scalar index moves
        // the values' first axis to `axis`.
        let mut shape = vec![1isize; nd.saturating_sub(values.ndim())];
        shape.extend(values.shape().iter().map(|&s| s as isize));
        let mut v = values.reshape(&shape)?;
        if scalar {
            v = super::reorder::moveaxis(&v, &[0], &[ax as isize])?;
        }
        let numnew = v.shape()[ax];
        let mut target = a.shape().to_vec();
        target[ax] = numnew;
        let v = v.broadcast_to(&target)?;
        let mut args = vec![SliceArg::FULL; nd];
        args[ax] = SliceArg::range(0, index as isize);
        let head = a.slice(&args)?;
        args[ax] = SliceArg::range(index as isize, n as isize);
        let tail = a.slice(&args)?;
        return concatenate(&[head, v, tail], Some(ax as isize), None);
    }
    let InsertAt::Indices(indices) = at else {
        unreachable!("single positions handled above")
    };
    let mut idx = Vec::with_capacity(indices.len());
    for &i in indices {
        if i < -(n as isize) || i > n as isize {
            return Err(out_of_bounds(i, ax, n));
        }
        idx.push(if i < 0 { i + n as isize } else { i } as usize);
    }
    let numnew = idx.len();
    let mut target = a.shape().to_vec();
    target[ax] = numnew;
    let v = values.broadcast_to(&target)?;
    // NumPy: the k-th inserted value (in stable sorted order of the indices) lands at
    // index + k; the original elements fill the rest in order.
    let mut order: Vec<usize> = (0..numnew).collect();
    order.sort_by_key(|&k| idx[k]);
    let total = n + numnew;
    let mut source: Vec<Option<u32>> = vec![None; total];
    for (rank, &k) in order.iter().enumerate() {
        source[idx[k] + rank] = Some((n + k) as u32);
    }
    let mut next = 0u32;
    let table: Vec<u32> = source
        .into_iter()
        .map(|s| {
            s.unwrap_or_else(|| {
                next += 1;
                next - 1
            })
        })
        .collect();
    let joined = concatenate(&[a, v], Some(ax as isize), None)?;
    pick(&joined, ax, &table)
}

/// Which ends [`trim_zeros`] trims.
fn trim_ends(trim: &str) -> Result<(bool, bool)> {
    match trim.to_lowercase().as_str() {
        "fb" | "bf" => Ok((true, true)),
        "f" => Ok((true, false)),
        "b" => Ok((false, true)),
        _ => Err(Error::invalid(format!(
            "unexpected character(s) in `trim`: '{trim}'"
        ))),
    }
}

/// Per axis: (any nonzero, first nonzero index, last nonzero index) as one int32 array.
fn bounds_array(a: &Array) -> Result<Array> {
    let nz = crate::ufuncs::not_equal(a, 0i64)?;
    let nd = a.ndim();
    let mut parts = vec![crate::reduce::any(&nz, None::<isize>, false)?
        .astype(DType::I32)?
        .reshape(&[1])?];
    for d in 0..nd {
        let others: Vec<isize> = (0..nd as isize).filter(|&x| x != d as isize).collect();
        let line = if others.is_empty() {
            nz.clone()
        } else {
            crate::reduce::any(&nz, others, false)?
        };
        let first = crate::reduce::argmax(&line, None, false)?;
        let last = crate::reduce::argmax(&super::reorder::flip(&line, None)?, None, false)?;
        parts.push(first.astype(DType::I32)?.reshape(&[1])?);
        parts.push(last.astype(DType::I32)?.reshape(&[1])?);
    }
    concatenate(&parts, Some(0), None)
}

fn trimmed(
    a: &Array,
    bounds: &[i32],
    front: bool,
    back: bool,
    axis: Option<usize>,
) -> Result<Array> {
    let nd = a.ndim();
    let found = bounds[0] != 0;
    let mut args = vec![SliceArg::FULL; nd];
    for (d, arg) in args.iter_mut().enumerate() {
        if axis.is_some_and(|x| x != d) {
            continue;
        }
        let len = a.shape()[d] as isize;
        let (first, last) = if found {
            (
                bounds[1 + 2 * d] as isize,
                len - 1 - bounds[2 + 2 * d] as isize,
            )
        } else {
            (0, -1)
        };
        let start = if front { first } else { 0 };
        let stop = if back { last + 1 } else { len };
        *arg = SliceArg::range(start, stop.max(start));
    }
    a.slice(&args)
}

fn trim_axis(a: &Array, axis: Option<isize>) -> Result<Option<usize>> {
    axis.map(|x| normalize_axis(x, a.ndim())).transpose()
}

/// `a` without its leading (`'f'`), trailing (`'b'`) or both (`"fb"`) zeros — along every
/// axis (the bounding box of the nonzero elements) or only `axis` (`numpy.trim_zeros`). A
/// view; the bounds are read back once (a synchronisation: see [`trim_zeros_async`]).
#[cfg(not(target_arch = "wasm32"))]
pub fn trim_zeros(a: &Array, trim: &str, axis: Option<isize>) -> Result<Array> {
    let (front, back) = trim_ends(trim)?;
    let axis = trim_axis(a, axis)?;
    if a.ndim() == 0 {
        return Ok(a.clone());
    }
    let bounds = bounds_array(a)?.to_vec::<i32>()?;
    trimmed(a, &bounds, front, back, axis)
}

/// [`trim_zeros`] with the read-back awaited (every target, wasm32 too).
pub async fn trim_zeros_async(a: &Array, trim: &str, axis: Option<isize>) -> Result<Array> {
    let (front, back) = trim_ends(trim)?;
    let axis = trim_axis(a, axis)?;
    if a.ndim() == 0 {
        return Ok(a.clone());
    }
    let bounds = bounds_array(a)?.to_vec_async::<i32>().await?;
    trimmed(a, &bounds, front, back, axis)
}
