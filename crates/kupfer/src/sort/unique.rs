//! `unique` (with `return_index`, `return_inverse`, `return_counts`, `equal_nan`), the array
//! API's `unique_values` / `unique_counts` / `unique_inverse` / `unique_all`, and `isin`.
//!
//! unique: a stable sort of the flattened array (when neither indices nor the inverse are
//! asked for, any order of equal values gives the same values and counts: integers of at
//! most 32 bits spanning a small range are counted per value instead, after one more
//! read-back of their extremes, and other dtypes take a keys-only sort),
//! flags where a run of equal values starts
//! (-0.0 equals 0.0; NaN equals NaN unless `equal_nan` is false), the positions of the set
//! flags by the device stream compaction of `indexing` (ONE read-back of the count: the sync
//! point, hence the `_async` forms, the only ones on wasm32); counts are the differences of
//! consecutive run starts, the inverse an inclusive scan of the flags scattered through the
//! sort permutation. Values are the first element of each run, indices the first occurrence
//! (the sort is stable). With `equal_nan`, complex values with a NaN part form one run whose
//! value is the first of them in sort order (NumPy's choice there is not consistent between
//! the value and its index). The set functions select with the same compaction.
//!
//! isin: the test elements sorted (keys only), then one launch of the two-tier search that
//! compares each element with the value found (`search.rs`): no read-back.

use super::engine::{self, Perm};
use super::order::Rows;
use crate::array::Array;
use crate::fusion::Lazy;
use crate::indexing::compact::compact;
use crate::indexing::set::scatter_permutation;
use kupfer_core::{DType, Layout, Result, SliceArg};
use kupfer_wgpu::GpuBuffer;
use std::sync::Arc;

/// What [`unique`] returns: the sorted unique values and the arrays asked for.
#[derive(Debug, Clone)]
pub struct Unique {
    /// The sorted unique values (1-D).
    pub values: Array,
    /// The first position of each value in the flattened input (`return_index`).
    pub indices: Option<Array>,
    /// For each input element, the position of its value in `values`, in the input's shape
    /// (`return_inverse`).
    pub inverse: Option<Array>,
    /// How often each value occurs (`return_counts`).
    pub counts: Option<Array>,
}

/// `numpy.unique(a, return_index, return_inverse, return_counts, equal_nan=)` over the
/// flattened array (axis=None). Index arrays have the default integer dtype.
///
/// ```
/// use kupfer as kp;
/// let a = kp::Array::from_slice(&[3i32, 1, 3, 2, 1], &[5])?;
/// let u = kp::unique(&a, true, true, true, true)?;
/// assert_eq!(u.values.to_vec::<i32>()?, vec![1, 2, 3]);
/// assert_eq!(u.counts.unwrap().astype(kp::DType::I32)?.to_vec::<i32>()?, vec![2, 1, 2]);
/// # Ok::<(), kp::Error>(())
/// ```
#[cfg(not(target_arch = "wasm32"))]
pub fn unique(
    a: &Array,
    return_index: bool,
    return_inverse: bool,
    return_counts: bool,
    equal_nan: bool,
) -> Result<Unique> {
    pollster::block_on(unique_async(
        a,
        return_index,
        return_inverse,
        return_counts,
        equal_nan,
    ))
}

/// [`unique`], async (the browser's only form: it reads the number of values back).
pub async fn unique_async(
    a: &Array,
    return_index: bool,
    return_inverse: bool,
    return_counts: bool,
    equal_nan: bool,
) -> Result<Unique> {
    let device = a.device().clone();
    let int = device.default_int();
    let n = a.size();
    if n == 0 {
        let e = |d| crate::creation::full_on(&device, &[0], 0i64, Some(d));
        return Ok(Unique {
            values: e(a.dtype())?,
            indices: return_index.then(|| e(int)).transpose()?,
            inverse: return_inverse
                .then(|| crate::creation::full_on(&device, a.shape(), 0i64, Some(int)))
                .transpose()?,
            counts: return_counts.then(|| e(int)).transpose()?,
        });
    }
    // Values and counts alone take any order of equal values: counting where the integers
    // span a small range, else the keys-only sort (no permutation to carry or apply) where
    // the dtype has one.
    let plain = !return_index && !return_inverse && !old_path();
    if plain && let Some((values, counts)) = by_counting(a, return_counts).await? {
        return Ok(Unique {
            values,
            indices: None,
            inverse: None,
            counts,
        });
    }
    let (sorted, perm) = if plain {
        let flat = a.reshape(&[n as isize])?;
        let sorted = super::order::sort(&flat, Some(-1), None)?.ascontiguousarray()?;
        (sorted, None)
    } else {
        let rows = Rows::along(a, None)?;
        let perm = rows.perm()?;
        let sorted = rows.gather(&perm)?.reshape(&[n as isize])?;
        let perm = match perm {
            Perm::Local(b) | Perm::Global(b) => b,
        };
        (sorted, Some(perm))
    };
    let first_arr = run_start_positions(&sorted, equal_nan).await?;
    let count = first_arr.size();
    let (first, _) = first_arr.buffer_and_layout()?;
    let values = engine::take_rows(&sorted, n, &first, count, true, 1, count, count)?
        .reshape(&[count as isize])?;
    let u32_array = |b: Arc<GpuBuffer>, len: usize| {
        Array::from_buffer(device.clone(), DType::U32, b, Layout::contiguous(&[len]))
    };
    let indices = if let (true, Some(perm)) = (return_index, &perm) {
        let perm_arr = u32_array(perm.clone(), n);
        let perm_arr = perm_arr.reshape(&[1, n as isize])?;
        Some(
            engine::take_rows(&perm_arr, n, &first, count, true, 1, count, count)?
                .reshape(&[count as isize])?
                .astype(int)?,
        )
    } else {
        None
    };
    let counts = if return_counts {
        // A run ends where the next begins (the last at n).
        let end = crate::creation::full_on(&device, &[1], n as i64, Some(DType::U32))?;
        let next = crate::manip::concatenate(
            &[
                first_arr.slice(&[SliceArg::Slice {
                    start: Some(1),
                    stop: None,
                    step: None,
                }])?,
                end,
            ],
            Some(0),
            None,
        )?;
        Some(crate::ufuncs::subtract(&next, &first_arr)?.astype(int)?)
    } else {
        None
    };
    let inverse = if let (true, Some(perm)) = (return_inverse, &perm) {
        // The run of sorted element i is (number of run starts up to i) - 1.
        let flags = run_starts(&sorted, equal_nan)?;
        let run =
            crate::ufuncs::subtract(&crate::scan::cumsum(&flags, None, Some(DType::U32))?, 1u32)?;
        let inverse = Array::from_buffer(
            device.clone(),
            DType::U32,
            engine::alloc_words(&device, n)?,
            Layout::contiguous(&[n]),
        );
        scatter_permutation(&inverse, &u32_array(perm.clone(), n), &run.lazy()?)?;
        let shape: Vec<isize> = a.shape().iter().map(|&s| s as isize).collect();
        Some(inverse.astype(int)?.reshape(&shape)?)
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

/// The fewest elements [`by_counting`] takes (below, its extra read-back costs more than
/// the sort it saves).
const COUNTING_MIN: usize = 4096;

/// unique's values (and counts) of an integer array of at most 32 bits whose values span at
/// most 4 bins per element (and at most 2^26 bins): the minimum and maximum read back (one
/// more sync point), a count per value by bincount's kernel, then the compaction of the
/// nonzero bins: no sort. None where the dtype, the size or the range does not fit.
async fn by_counting(a: &Array, return_counts: bool) -> Result<Option<(Array, Option<Array>)>> {
    let d = a.dtype();
    let n = a.size();
    let ints = [
        DType::I8,
        DType::I16,
        DType::I32,
        DType::U8,
        DType::U16,
        DType::U32,
    ];
    if n < COUNTING_MIN || !ints.contains(&d) {
        return Ok(None);
    }
    let device = a.device().clone();
    let flat = a.reshape(&[n as isize])?;
    let wide = if d == DType::U32 {
        DType::U32
    } else {
        DType::I32
    };
    let lo = crate::reduce::min(&flat, crate::reduce::Axis::All, false)?.astype(wide)?;
    let hi = crate::reduce::max(&flat, crate::reduce::Axis::All, false)?.astype(wide)?;
    let ends = crate::manip::concatenate(&[lo.reshape(&[1])?, hi.reshape(&[1])?], Some(0), None)?;
    let (lo_v, hi_v) = if wide == DType::U32 {
        let v = ends.to_vec_async::<u32>().await?;
        (i64::from(v[0]), i64::from(v[1]))
    } else {
        let v = ends.to_vec_async::<i32>().await?;
        (i64::from(v[0]), i64::from(v[1]))
    };
    let bins = (hi_v - lo_v + 1) as usize;
    if bins > (4 * n).max(1 << 16) || bins > 1 << 26 {
        return Ok(None);
    }
    // Offsets from the minimum fit in 32 bits without wrapping (the range is small).
    let offset = if wide == DType::U32 {
        crate::ufuncs::subtract(&flat.astype(DType::U32)?, lo_v as u32)?
    } else {
        crate::ufuncs::subtract(&flat.astype(DType::I32)?, lo_v as i32)?.astype(DType::U32)?
    };
    let counts = crate::stats::count_values(&offset.ascontiguousarray()?, bins)?;
    let present = crate::ufuncs::not_equal(&counts, 0u32)?;
    let at = compact(&device, &present.lazy()?, &Lazy::index(), &[bins])?
        .finish_async()
        .await?;
    let values = if wide == DType::U32 {
        crate::ufuncs::add(&at, lo_v as u32)?
    } else {
        crate::ufuncs::add(&at.astype(DType::I32)?, lo_v as i32)?
    }
    .astype(d)?;
    let counts = if return_counts {
        let m = at.size();
        let (idx, _) = at.buffer_and_layout()?;
        let c = engine::take_rows(
            &counts.reshape(&[1, bins as isize])?,
            bins,
            &idx,
            m,
            true,
            1,
            m,
            m,
        )?;
        Some(c.reshape(&[m as isize])?.astype(device.default_int())?)
    } else {
        None
    };
    Ok(Some((values, counts)))
}

/// Whether `KUPFER_UNIQUE=old` asks for the earlier unique (a stable sort and materialised
/// run-start flags whatever is asked for; read once).
fn old_path() -> bool {
    static OLD: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *OLD.get_or_init(|| std::env::var("KUPFER_UNIQUE").is_ok_and(|v| v == "old"))
}

/// The positions (uint32) where a run of equal values starts in the sorted 1-D `sorted`
/// (see [`run_starts`]), by one compaction whose flags are computed in its passes (never
/// written): the one read-back of the count.
async fn run_start_positions(sorted: &Array, equal_nan: bool) -> Result<Array> {
    let n = sorted.size();
    let device = sorted.device();
    let head = crate::creation::full_on(device, &[1], 0i64, Some(DType::U32))?;
    if n == 1 {
        return Ok(head);
    }
    if old_path() {
        let flags = run_starts(sorted, equal_nan)?;
        return compact(device, &flags.lazy()?, &Lazy::index(), &[n])?
            .finish_async()
            .await;
    }
    // Element i + 1 starts a run where it differs from element i.
    let later = compact(
        device,
        &run_differs(sorted, equal_nan)?.lazy()?,
        &Lazy::index(),
        &[n - 1],
    )?
    .finish_async()
    .await?;
    crate::manip::concatenate(&[head, crate::ufuncs::add(&later, 1u32)?], Some(0), None)
}

/// Whether each element of the sorted 1-D `sorted` after the first differs from the one
/// before it (NaN unequal to everything unless `equal_nan`; -0.0 equals 0.0): a lazy bool
/// array of `n - 1` elements (`n >= 2`).
fn run_differs(sorted: &Array, equal_nan: bool) -> Result<Array> {
    let n = sorted.size();
    let cur = sorted.slice(&[SliceArg::Slice {
        start: Some(1),
        stop: None,
        step: None,
    }])?;
    let prev = sorted.slice(&[SliceArg::Slice {
        start: None,
        stop: Some(n as isize - 1),
        step: None,
    }])?;
    let mut differs = crate::ufuncs::not_equal(&cur, &prev)?;
    if equal_nan && (sorted.dtype().is_float() || sorted.dtype().is_complex()) {
        let both_nan = crate::ufuncs::logical_and(
            &crate::ufuncs::isnan(&cur)?,
            &crate::ufuncs::isnan(&prev)?,
        )?;
        differs = crate::ufuncs::logical_and(&differs, &crate::ufuncs::logical_not(&both_nan)?)?;
    }
    Ok(differs)
}

/// Where a run of equal values starts in the sorted 1-D `sorted` (bool, materialised):
/// element 0, and every element unequal to the one before it (see [`run_differs`]).
fn run_starts(sorted: &Array, equal_nan: bool) -> Result<Array> {
    let device = sorted.device();
    let head = crate::creation::full_on(device, &[1], true, Some(DType::Bool))?;
    if sorted.size() == 1 {
        return Ok(head);
    }
    crate::manip::concatenate(&[head, run_differs(sorted, equal_nan)?], Some(0), None)
}

/// `numpy.isin(element, test_elements, invert=)`: for each element, whether it equals some
/// test element (NaN equals nothing; -0.0 equals 0.0); the result has `element`'s shape.
/// Both are compared in their common dtype. No read-back.
///
/// ```
/// use kupfer as kp;
/// let a = kp::Array::from_slice(&[1i32, 5, 2], &[3])?;
/// let b = kp::Array::from_slice(&[2i32, 1, 1], &[3])?;
/// assert_eq!(kp::isin(&a, &b, false)?.to_vec::<bool>()?, vec![true, false, true]);
/// # Ok::<(), kp::Error>(())
/// ```
pub fn isin(element: &Array, test_elements: &Array, invert: bool) -> Result<Array> {
    let device = element.device().clone();
    let common = kupfer_core::promote::result_type(element.dtype(), test_elements.dtype())?;
    let nb = test_elements.size();
    let shape = element.shape().to_vec();
    if nb == 0 || element.size() == 0 {
        return crate::creation::full_on(&device, &shape, i64::from(invert), Some(DType::Bool));
    }
    let b = test_elements.astype(common)?.reshape(&[-1])?;
    let x = element.astype(common)?.ascontiguousarray()?;
    let shape_i: Vec<isize> = shape.iter().map(|&s| s as isize).collect();
    if !super::search::one_tier() {
        // The keys-only sort of the test elements (any order of equal values will do) and
        // one search launch that compares too.
        let b_sorted = super::order::sort(&b, Some(-1), None)?.ascontiguousarray()?;
        if let Some(hit) = super::search::membership(&b_sorted, &x, invert)? {
            return hit.reshape(&shape_i);
        }
    }
    let b_sorted = super::order::sort(&b, Some(-1), Some("stable"))?.ascontiguousarray()?;
    let pos = super::search::searchsorted(&b_sorted, &x, super::search::Side::Left, None)?;
    let clipped = crate::ufuncs::minimum(&pos, (nb - 1) as i64)?
        .astype(DType::U32)?
        .ascontiguousarray()?;
    let (cb, _) = clipped.buffer_and_layout()?;
    let m = x.size();
    let found = engine::take_rows(&b_sorted, nb, &cb, m, false, 1, m, m)?;
    let x_flat = x.reshape(&[1, m as isize])?;
    let hit = crate::ufuncs::equal(&found, &x_flat)?;
    let hit = hit.reshape(&shape_i)?;
    if invert {
        crate::ufuncs::logical_not(&hit)
    } else {
        Ok(hit)
    }
}

/// `numpy.unique_values(x)`: the sorted distinct values (NaN values distinct, as the array
/// API's `equal_nan=False`).
#[cfg(not(target_arch = "wasm32"))]
pub fn unique_values(x: &Array) -> Result<Array> {
    Ok(unique(x, false, false, false, false)?.values)
}

/// `numpy.unique_counts(x)`: (values, counts).
#[cfg(not(target_arch = "wasm32"))]
pub fn unique_counts(x: &Array) -> Result<(Array, Array)> {
    let u = unique(x, false, false, true, false)?;
    Ok((u.values, u.counts.expect("asked for counts")))
}

/// `numpy.unique_inverse(x)`: (values, inverse_indices in `x`'s shape).
#[cfg(not(target_arch = "wasm32"))]
pub fn unique_inverse(x: &Array) -> Result<(Array, Array)> {
    let u = unique(x, false, true, false, false)?;
    Ok((u.values, u.inverse.expect("asked for inverse")))
}

/// `numpy.unique_all(x)`: values, first indices, inverse indices and counts.
#[cfg(not(target_arch = "wasm32"))]
pub fn unique_all(x: &Array) -> Result<Unique> {
    unique(x, true, true, true, false)
}

/// The elements of 1-D `values` where the bool `mask` (same length) is true (the device
/// compaction: one read-back of the count).
async fn select(values: &Array, mask: &Array) -> Result<Array> {
    compact(
        values.device(),
        &crate::ufuncs::not_equal(mask, false)?.lazy()?,
        &values.lazy()?,
        values.shape(),
    )?
    .finish_async()
    .await
}

/// `numpy.intersect1d(a, b)`: the sorted values in both (flattened) arrays; with
/// `return_indices`, also the first positions of those values in `a` and in `b`.
#[cfg(not(target_arch = "wasm32"))]
pub fn intersect1d(
    a: &Array,
    b: &Array,
    return_indices: bool,
) -> Result<(Array, Option<(Array, Array)>)> {
    pollster::block_on(intersect1d_async(a, b, return_indices))
}

/// [`intersect1d`], async (it reads sizes back).
pub async fn intersect1d_async(
    a: &Array,
    b: &Array,
    return_indices: bool,
) -> Result<(Array, Option<(Array, Array)>)> {
    let common = kupfer_core::promote::result_type(a.dtype(), b.dtype())?;
    let ua = unique_async(&a.astype(common)?, return_indices, false, false, true).await?;
    let ub = unique_async(&b.astype(common)?, return_indices, false, false, true).await?;
    let mask = isin(&ua.values, &ub.values, false)?;
    let values = select(&ua.values, &mask).await?;
    if !return_indices {
        return Ok((values, None));
    }
    let ia = select(ua.indices.as_ref().expect("indices"), &mask).await?;
    let mask_b = isin(&ub.values, &ua.values, false)?;
    let ib = select(ub.indices.as_ref().expect("indices"), &mask_b).await?;
    Ok((values, Some((ia, ib))))
}

/// `numpy.setdiff1d(a, b)`: the sorted unique values of `a` that are not in `b`.
#[cfg(not(target_arch = "wasm32"))]
pub fn setdiff1d(a: &Array, b: &Array) -> Result<Array> {
    pollster::block_on(setdiff1d_async(a, b))
}

/// [`setdiff1d`], async.
pub async fn setdiff1d_async(a: &Array, b: &Array) -> Result<Array> {
    let common = kupfer_core::promote::result_type(a.dtype(), b.dtype())?;
    let ua = unique_async(&a.astype(common)?, false, false, false, true).await?;
    let mask = isin(&ua.values, b, true)?;
    select(&ua.values, &mask).await
}

/// `numpy.union1d(a, b)`: the sorted unique values of both (flattened) arrays, in their
/// common dtype.
///
/// ```
/// use kupfer as kp;
/// let a = kp::Array::from_slice(&[3i32, 1, 3], &[3])?;
/// let b = kp::Array::from_slice(&[2i32, 1], &[2])?;
/// assert_eq!(kp::union1d(&a, &b)?.to_vec::<i32>()?, vec![1, 2, 3]);
/// # Ok::<(), kp::Error>(())
/// ```
#[cfg(not(target_arch = "wasm32"))]
pub fn union1d(a: &Array, b: &Array) -> Result<Array> {
    pollster::block_on(union1d_async(a, b))
}

/// [`union1d`], async (it reads the size back).
pub async fn union1d_async(a: &Array, b: &Array) -> Result<Array> {
    let both = crate::manip::concatenate(&[a.clone(), b.clone()], None, None)?;
    Ok(unique_async(&both, false, false, false, true).await?.values)
}

/// `numpy.setxor1d(a, b, assume_unique)`: the sorted values in exactly one of the two
/// (flattened) arrays. As NumPy, it compares neighbours of the sorted unique values with
/// `!=`, so a NaN in both arrays appears twice.
///
/// ```
/// use kupfer as kp;
/// let a = kp::Array::from_slice(&[1i32, 2, 3, 2], &[4])?;
/// let b = kp::Array::from_slice(&[2i32, 3, 5], &[3])?;
/// assert_eq!(kp::setxor1d(&a, &b, false)?.to_vec::<i32>()?, vec![1, 5]);
/// # Ok::<(), kp::Error>(())
/// ```
#[cfg(not(target_arch = "wasm32"))]
pub fn setxor1d(a: &Array, b: &Array, assume_unique: bool) -> Result<Array> {
    pollster::block_on(setxor1d_async(a, b, assume_unique))
}

/// [`setxor1d`], async (it reads sizes back).
pub async fn setxor1d_async(a: &Array, b: &Array, assume_unique: bool) -> Result<Array> {
    let (a, b) = if assume_unique {
        (a.reshape(&[-1])?, b.reshape(&[-1])?)
    } else {
        (
            unique_async(a, false, false, false, true).await?.values,
            unique_async(b, false, false, false, true).await?.values,
        )
    };
    let aux = crate::manip::concatenate(&[a, b], None, None)?;
    let n = aux.size();
    if n == 0 {
        return Ok(aux);
    }
    let aux = super::order::sort(&aux, Some(-1), Some("stable"))?;
    use kupfer_core::SliceArg;
    let head = aux.slice(&[SliceArg::Slice {
        start: None,
        stop: Some(-1),
        step: None,
    }])?;
    let tail = aux.slice(&[SliceArg::Slice {
        start: Some(1),
        stop: None,
        step: None,
    }])?;
    let edge = crate::creation::full_on(aux.device(), &[1], 1i64, Some(DType::Bool))?;
    let differs = crate::ufuncs::not_equal(&tail, &head)?;
    let flag = crate::manip::concatenate(&[edge.clone(), differs, edge], None, None)?;
    let keep = crate::ufuncs::logical_and(
        &flag.slice(&[SliceArg::Slice {
            start: Some(1),
            stop: None,
            step: None,
        }])?,
        &flag.slice(&[SliceArg::Slice {
            start: None,
            stop: Some(-1),
            step: None,
        }])?,
    )?;
    select(&aux, &keep).await
}
