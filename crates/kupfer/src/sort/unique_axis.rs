//! `numpy.unique(a, axis=k)`: the unique slices along an axis.
//!
//! NumPy compares the slices `a[i]` (after moving `axis` first) as records of their
//! elements: lexicographically, element by element in each element's own order (NaN last,
//! -0.0 equal to 0.0), equal when every element is equal (so a slice holding NaN equals no
//! other slice: `equal_nan` has no effect with an axis; NumPy's float16 fields put NaN
//! first instead). kupfer sorts the slices with one
//! stable `lexsort` whose primary key is the first column, flags the slices that differ from
//! the one before (any unequal element), and selects the flagged ones with the device stream
//! compaction (one read-back of their count: the sync point, hence the `_async` form). The
//! indices are the first occurrences (the sort is stable), the inverse is 1-D as NumPy 2's
//! with an axis, counts are differences of consecutive starts.

use super::histogram::gather;
use super::unique::Unique;
use crate::array::Array;
use crate::fusion::Lazy;
use crate::indexing::compact::compact;
use crate::indexing::set::scatter_permutation;
use kupfer_core::layout::normalize_axis;
use kupfer_core::{DType, Layout, Result, SliceArg};

/// `numpy.unique(a, return_index, return_inverse, return_counts, axis=axis)`: the sorted
/// unique slices of `a` along `axis` (in `a`'s axis order), the first index of each, the
/// inverse (1-D, the length of the axis) and the counts. Index arrays have the default
/// integer dtype. `equal_nan` is accepted for NumPy's signature and, as in NumPy, has no
/// effect with an axis (a slice holding NaN is unique). A 1-D `a` is [`unique`](fn@super::unique)'s
/// flattened case.
///
/// ```
/// use kupfer as kp;
/// let a = kp::Array::from_slice(&[3i32, 1, 1, 2, 3, 1], &[3, 2])?;
/// let u = kp::sort::unique_axis(&a, 0, false, true, true, true)?;
/// assert_eq!(u.values.to_vec::<i32>()?, vec![1, 2, 3, 1]);
/// assert_eq!(u.inverse.unwrap().astype(kp::DType::I32)?.to_vec::<i32>()?, vec![1, 0, 1]);
/// # Ok::<(), kp::Error>(())
/// ```
#[cfg(not(target_arch = "wasm32"))]
pub fn unique_axis(
    a: &Array,
    axis: isize,
    return_index: bool,
    return_inverse: bool,
    return_counts: bool,
    equal_nan: bool,
) -> Result<Unique> {
    pollster::block_on(unique_axis_async(
        a,
        axis,
        return_index,
        return_inverse,
        return_counts,
        equal_nan,
    ))
}

/// `a[start..stop]` along the first axis.
fn rows(a: &Array, start: Option<isize>, stop: Option<isize>) -> Result<Array> {
    a.slice(&[SliceArg::Slice {
        start,
        stop,
        step: None,
    }])
}

/// Flat positions of whole rows `r` of an `(.., m)` contiguous matrix: `r * m + j`.
fn row_positions(r: &Array, m: usize) -> Result<Array> {
    let device = r.device();
    let _scope = device.use_device();
    let cols =
        crate::creation::arange(0i64, m as i64, 1i64, Some(DType::U32))?.reshape(&[1, -1])?;
    let base = crate::ufuncs::multiply(&r.astype(DType::U32)?.reshape(&[-1, 1])?, m as u32)?;
    crate::ufuncs::add(&base, &cols)
}

/// [`unique_axis`], async (the browser's only form: it reads the number of slices back).
pub async fn unique_axis_async(
    a: &Array,
    axis: isize,
    return_index: bool,
    return_inverse: bool,
    return_counts: bool,
    equal_nan: bool,
) -> Result<Unique> {
    let nd = a.ndim();
    let ax = normalize_axis(axis, nd)?;
    if nd == 1 {
        return super::unique::unique_async(
            a,
            return_index,
            return_inverse,
            return_counts,
            equal_nan,
        )
        .await;
    }
    let device = a.device().clone();
    let int = device.default_int();
    let moved = crate::manip::moveaxis(a, &[ax as isize], &[0])?;
    let rest: Vec<usize> = moved.shape()[1..].to_vec();
    let n = moved.shape()[0];
    let m: usize = rest.iter().product();
    let restore = |values: Array, count: usize| -> Result<Array> {
        let mut shape = vec![count as isize];
        shape.extend(rest.iter().map(|&s| s as isize));
        crate::manip::moveaxis(&values.reshape(&shape)?, &[0], &[ax as isize])
    };
    let full =
        |shape: &[usize], v: i64, d: DType| crate::creation::full_on(&device, shape, v, Some(d));
    if n == 0 || m == 0 {
        // No slices, or slices of no elements (all equal: one unique slice).
        let count = n.min(1);
        let first = full(&[count], 0, int)?;
        return Ok(Unique {
            values: restore(full(&[count * m], 0, a.dtype())?, count)?,
            indices: return_index.then(|| first.clone()),
            inverse: return_inverse.then(|| full(&[n], 0, int)).transpose()?,
            counts: return_counts
                .then(|| full(&[count], n as i64, int))
                .transpose()?,
        });
    }
    let mat = moved
        .reshape(&[n as isize, m as isize])?
        .ascontiguousarray()?;
    // A stable lexicographic sort of the rows: lexsort's last key is the primary one.
    // NumPy's record comparison puts a float16 NaN before every number (float32/64 NaN
    // last, as everywhere): float16 columns get a more significant "is a number" key.
    let mut keys = Vec::with_capacity(2 * m);
    for j in (0..m).rev() {
        let col = mat.slice(&[
            SliceArg::Slice {
                start: None,
                stop: None,
                step: None,
            },
            SliceArg::Index(j as isize),
        ])?;
        if a.dtype() == DType::F16 {
            let number = crate::ufuncs::logical_not(&crate::ufuncs::isnan(&col)?)?;
            keys.push(col);
            keys.push(number);
        } else {
            keys.push(col);
        }
    }
    let perm = super::order::lexsort(&keys, -1)?.astype(DType::U32)?;
    let flat = mat.reshape(&[-1])?;
    let sorted = gather(&flat, &row_positions(&perm, m)?)?.reshape(&[n as isize, m as isize])?;
    // A slice starts a run where any element differs from the slice before it.
    let head = full(&[1], 1, DType::Bool)?;
    let flags = if n == 1 {
        head
    } else {
        let differs = crate::ufuncs::not_equal(
            &rows(&sorted, Some(1), None)?,
            &rows(&sorted, None, Some(n as isize - 1))?,
        )?;
        let any = crate::reduce::any(&differs, 1isize, false)?;
        crate::manip::concatenate(&[head, any], Some(0), None)?
    };
    let first = compact(&device, &flags.lazy()?, &Lazy::index(), &[n])?
        .finish_async()
        .await?;
    let count = first.size();
    let values = gather(&sorted.reshape(&[-1])?, &row_positions(&first, m)?)?;
    let values = restore(values, count)?;
    let indices = if return_index {
        Some(gather(&perm, &first)?.astype(int)?)
    } else {
        None
    };
    let counts = if return_counts {
        let end = full(&[1], n as i64, DType::U32)?;
        let next = crate::manip::concatenate(&[rows(&first, Some(1), None)?, end], Some(0), None)?;
        Some(crate::ufuncs::subtract(&next, &first)?.astype(int)?)
    } else {
        None
    };
    let inverse = if return_inverse {
        let run =
            crate::ufuncs::subtract(&crate::scan::cumsum(&flags, None, Some(DType::U32))?, 1u32)?;
        let inverse = Array::from_buffer(
            device.clone(),
            DType::U32,
            super::engine::alloc_words(&device, n)?,
            Layout::contiguous(&[n]),
        );
        scatter_permutation(&inverse, &perm.ascontiguousarray()?, &run.lazy()?)?;
        Some(inverse.astype(int)?)
    } else {
        None
    };
    Ok(Unique {
        values,
        indices,
        inverse,
        counts,
    })
}
