//! Memory questions about views: `ndarray.view(dtype)` (the same bytes as another dtype) and
//! `np.shares_memory` / `np.may_share_memory` (exact for views of one storage).

use crate::array::Array;
use kupfer_core::{DType, Error, Layout, Result};
use std::sync::Arc;

/// Dtypes whose device storage holds NumPy's bytes, so a view may reinterpret them. The small
/// integers, bool and float16 are stored in a layout of kupfer's own.
fn reinterpretable(d: DType) -> bool {
    matches!(
        d,
        DType::I32
            | DType::U32
            | DType::F32
            | DType::I64
            | DType::U64
            | DType::F64
            | DType::Complex64
            | DType::Complex128
    )
}

impl Array {
    /// `a.view(dtype)`: the same memory read as `dtype` (no copy; writes through either are
    /// seen by both). With a different itemsize the last axis must be contiguous and its
    /// length scales by the ratio of the itemsizes, as in NumPy (`complex128` as `float64`
    /// doubles it).
    ///
    /// ```
    /// let z = kupfer::Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4])?;
    /// let bits = z.view_as(kupfer::DType::U32)?;
    /// assert_eq!(bits.to_vec::<u32>()?[0], 1.0f32.to_bits());
    /// # Ok::<(), kupfer::Error>(())
    /// ```
    pub fn view_as(&self, dtype: DType) -> Result<Array> {
        let from = self.dtype();
        if dtype == from {
            return self.view(|l| Ok(l.clone()));
        }
        self.device().check(dtype)?;
        if !reinterpretable(from) || !reinterpretable(dtype) {
            return Err(Error::unsupported(format!(
                "a view of {from} as {dtype} (kupfer stores bool, int8, uint8, int16, uint16 \
                 and float16 in a layout of its own; views reinterpret the other dtypes)"
            )));
        }
        let (old, new) = (from.host_size(), dtype.host_size());
        let layout = self.layout()?;
        self.reinterpret(dtype, resized_layout(&layout, old, new)?)
    }
}

/// The layout of the same bytes as elements of `new` bytes instead of `old`.
fn resized_layout(l: &Layout, old: usize, new: usize) -> Result<Layout> {
    if old == new {
        return Ok(l.clone());
    }
    let Some(last) = l.shape.len().checked_sub(1) else {
        return Err(Error::invalid(
            "Changing the dtype of a 0d array is only supported if the itemsize is unchanged",
        ));
    };
    if l.shape[last] != 1 && l.strides[last] != 1 {
        return Err(Error::invalid(
            "To change to a dtype of a different size, the last axis must be contiguous",
        ));
    }
    let last_bytes = l.shape[last] * old;
    if !last_bytes.is_multiple_of(new) {
        return Err(Error::invalid(
            "When changing to a larger dtype, its size must be a divisor of the total size in \
             bytes of the last axis of the array.",
        ));
    }
    let bytes = |elements: isize| elements * old as isize;
    let unaligned = || {
        Error::unsupported(format!(
            "a view whose elements of {new} bytes do not start at multiples of {new} bytes of \
             the storage"
        ))
    };
    if bytes(l.offset as isize) % new as isize != 0 {
        return Err(unaligned());
    }
    let mut strides = Vec::with_capacity(l.strides.len());
    for (axis, &s) in l.strides.iter().enumerate() {
        if axis == last {
            strides.push(1);
        } else if bytes(s) % new as isize != 0 {
            return Err(unaligned());
        } else {
            strides.push(bytes(s) / new as isize);
        }
    }
    let mut shape = l.shape.clone();
    shape[last] = last_bytes / new;
    Ok(Layout {
        shape,
        strides,
        offset: l.offset * old / new,
    })
}

/// The byte range `[lo, hi)` a layout of `itemsize`-byte elements touches.
fn byte_extent(l: &Layout, itemsize: usize) -> Option<(usize, usize)> {
    l.span()
        .map(|(lo, hi)| (lo * itemsize, (hi + 1) * itemsize))
}

/// Up to this many elements (both arrays together), `shares_memory` lists every element's
/// bytes; beyond it, overlapping extents it cannot decide otherwise are an error.
const EXACT_LIMIT: usize = 1 << 22;

/// The byte ranges of every element of `l`, sorted.
fn element_ranges(l: &Layout, itemsize: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::with_capacity(l.size());
    let mut index = vec![0usize; l.shape.len()];
    for _ in 0..l.size() {
        let at = l.offset as isize
            + index
                .iter()
                .zip(&l.strides)
                .map(|(&i, &s)| i as isize * s)
                .sum::<isize>();
        let start = at.max(0) as usize * itemsize;
        out.push((start, start + itemsize));
        for axis in (0..index.len()).rev() {
            index[axis] += 1;
            if index[axis] < l.shape[axis] {
                break;
            }
            index[axis] = 0;
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// True when a layout covers every byte of its extent (no gaps), as a contiguous block does.
fn dense(l: &Layout) -> bool {
    let mut dims: Vec<(usize, usize)> = l
        .shape
        .iter()
        .zip(&l.strides)
        .filter(|&(&n, _)| n > 1)
        .map(|(&n, &s)| (s.unsigned_abs(), n))
        .collect();
    dims.sort_unstable();
    let mut expect = 1;
    for (s, n) in dims {
        if s != expect {
            return false;
        }
        expect *= n;
    }
    true
}

/// `np.shares_memory(a, b)`: whether some byte belongs to an element of both, exactly. Arrays
/// not yet computed (lazy expressions) own no memory and share none, except with themselves.
///
/// ```
/// let x = kupfer::arange(0, 10, 1, None)?;
/// let x = x.copy()?;
/// let even = x.get(&[kupfer::Index::Basic(kupfer::SliceArg::Slice { start: None, stop: None, step: Some(2) })])?;
/// let odd = x.get(&[kupfer::Index::Basic(kupfer::SliceArg::Slice { start: Some(1), stop: None, step: Some(2) })])?;
/// assert!(kupfer::shares_memory(&x, &even)?);
/// assert!(!kupfer::shares_memory(&even, &odd)?);
/// assert!(kupfer::may_share_memory(&even, &odd)?);
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn shares_memory(a: &Array, b: &Array) -> Result<bool> {
    overlap(a, b, true)
}

/// `np.may_share_memory(a, b)`: whether the byte extents of the two arrays in one storage
/// overlap (NumPy's bounds check; [`shares_memory`] answers exactly).
pub fn may_share_memory(a: &Array, b: &Array) -> Result<bool> {
    overlap(a, b, false)
}

fn overlap(a: &Array, b: &Array, exact: bool) -> Result<bool> {
    if a.size() == 0 || b.size() == 0 {
        return Ok(false);
    }
    if a.same_handle(b) {
        return Ok(true);
    }
    let (Some((sa, la)), Some((sb, lb))) = (a.memory(), b.memory()) else {
        return Ok(false);
    };
    if !Arc::ptr_eq(&sa, &sb) {
        return Ok(false);
    }
    let (ia, ib) = (a.dtype().gpu_size(), b.dtype().gpu_size());
    let (Some((a0, a1)), Some((b0, b1))) = (byte_extent(&la, ia), byte_extent(&lb, ib)) else {
        return Ok(false);
    };
    if a1 <= b0 || b1 <= a0 {
        return Ok(false);
    }
    if !exact || (dense(&la) && dense(&lb)) {
        return Ok(true);
    }
    if a.size() + b.size() > EXACT_LIMIT {
        return Err(Error::unsupported(format!(
            "np.shares_memory of strided views of more than {EXACT_LIMIT} elements whose \
             extents overlap (use np.may_share_memory)"
        )));
    }
    let (ra, rb) = (element_ranges(&la, ia), element_ranges(&lb, ib));
    let (mut i, mut j) = (0, 0);
    while i < ra.len() && j < rb.len() {
        if ra[i].1 <= rb[j].0 {
            i += 1;
        } else if rb[j].1 <= ra[i].0 {
            j += 1;
        } else {
            return Ok(true);
        }
    }
    Ok(false)
}
