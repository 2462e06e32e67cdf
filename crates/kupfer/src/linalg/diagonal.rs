//! Diagonals: [`diagonal`] (a strided view, no copy), [`diag`] (1-D → 2-D construction,
//! 2-D → its diagonal) and [`trace`] (the sum of a diagonal).

use crate::array::Array;
use kupfer_core::layout::normalize_axis;
use kupfer_core::{DType, Error, Layout, Result};

/// The diagonal of `a` over `axis1` and `axis2` with `offset` (above the main diagonal when
/// positive), as NumPy's `diagonal`: those two axes are removed and the diagonal becomes the
/// last axis. A view sharing `a`'s buffer (its stride is the sum of the two axes' strides).
///
/// ```no_run
/// let a = kupfer::arange(0, 12, 1, None)?.reshape(&[3, 4])?;
/// let d = kupfer::diagonal(&a, 1, 0, 1)?; // [1, 6, 11]
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn diagonal(a: &Array, offset: isize, axis1: isize, axis2: isize) -> Result<Array> {
    let n = a.ndim();
    if n < 2 {
        return Err(Error::invalid(format!(
            "diagonal requires an array of at least two dimensions (got shape {:?})",
            a.shape()
        )));
    }
    let (x, y) = (normalize_axis(axis1, n)?, normalize_axis(axis2, n)?);
    if x == y {
        return Err(Error::invalid("axis1 and axis2 cannot be the same"));
    }
    a.view(|l| Ok(diagonal_layout(l, offset, x, y)))
}

/// The layout of the diagonal view (axes `x != y`, both in range).
fn diagonal_layout(l: &Layout, offset: isize, x: usize, y: usize) -> Layout {
    let (nx, ny) = (l.shape[x] as isize, l.shape[y] as isize);
    // Rows start at max(0, -offset), columns at max(0, offset).
    let (r0, c0) = (0.max(-offset), 0.max(offset));
    let len = (nx - r0).min(ny - c0).max(0);
    let mut out = Layout {
        shape: Vec::with_capacity(l.ndim() - 1),
        strides: Vec::with_capacity(l.ndim() - 1),
        offset: l.offset,
    };
    for ax in (0..l.ndim()).filter(|&ax| ax != x && ax != y) {
        out.shape.push(l.shape[ax]);
        out.strides.push(l.strides[ax]);
    }
    if len > 0 && out.shape.iter().all(|&d| d > 0) {
        out.offset = (l.offset as isize + r0 * l.strides[x] + c0 * l.strides[y]) as usize;
    }
    out.shape.push(len as usize);
    out.strides.push(l.strides[x] + l.strides[y]);
    out
}

/// NumPy's `diag`: a 1-D `v` gives a 2-D array with `v` on diagonal `k` (zeros elsewhere);
/// a 2-D `v` gives its diagonal `k` (a view).
///
/// ```no_run
/// let v = kupfer::Array::from_slice(&[1.0f32, 2.0], &[2])?;
/// let m = kupfer::diag(&v, -1)?; // [[0, 0, 0], [1, 0, 0], [0, 2, 0]]
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn diag(v: &Array, k: isize) -> Result<Array> {
    match v.ndim() {
        1 => {
            let len = v.shape()[0];
            let n = len + k.unsigned_abs();
            // v padded to length n (at offset 0 for k >= 0, at |k| below), then placed where
            // column - row == k: row i of the result holds v[i] (k >= 0) or v[i - |k|].
            let pad = embed(v, n, if k < 0 { k.unsigned_abs() } else { 0 })?;
            let col = crate::arange(0, n as i64, 1, Some(DType::I32))?;
            let row = col.reshape(&[-1, 1])?;
            let on = crate::equal(crate::subtract(&col, &row)?, k as i64)?;
            let zero = crate::zeros(&[], Some(v.dtype()))?;
            crate::where_(on, pad.reshape(&[-1, 1])?, zero)
        }
        2 => diagonal(v, k, 0, 1),
        _ => Err(Error::invalid(format!(
            "diag: input must be 1-d or 2-d (got shape {:?})",
            v.shape()
        ))),
    }
}

/// `v` (1-D) placed at `at` inside zeros of length `n`: one fused reduction,
/// `out[i] = sum_m (i == m + at ? v[m] : 0)`, as kupfer has no scatter.
fn embed(v: &Array, n: usize, at: usize) -> Result<Array> {
    let len = v.shape()[0];
    if n == len {
        return Ok(v.clone());
    }
    if len == 0 {
        return crate::zeros(&[n], Some(v.dtype()));
    }
    let i = crate::arange(0, n as i64, 1, Some(DType::I32))?.reshape(&[-1, 1])?;
    let m = crate::arange(at as i64, (at + len) as i64, 1, Some(DType::I32))?;
    let zero = crate::zeros(&[], Some(v.dtype()))?;
    let picked = crate::where_(crate::equal(i, m)?, v, zero)?;
    super::sum(&picked, 1, false)?.astype(v.dtype())
}

/// Sum along the diagonal (`offset`, `axis1`, `axis2` as [`diagonal`]), as NumPy's `trace`;
/// `dtype` is the accumulator and result type when given. Without it the result dtype is
/// [`sum`](crate::sum)'s (bool and int32 give int32: kupfer never widens to 64 bits).
pub fn trace(
    a: &Array,
    offset: isize,
    axis1: isize,
    axis2: isize,
    dtype: Option<DType>,
) -> Result<Array> {
    let d = diagonal(a, offset, axis1, axis2)?;
    let Some(t) = dtype else {
        return super::sum(&d, -1, false);
    };
    // The sum of a bool diagonal counts in int32: back to bool, NumPy's OR (`dtype=bool`).
    super::sum(&d.astype(t)?, -1, false)?.astype(t)
}

impl Array {
    /// [`diagonal`] as a method.
    pub fn diagonal(&self, offset: isize, axis1: isize, axis2: isize) -> Result<Array> {
        diagonal(self, offset, axis1, axis2)
    }

    /// [`trace`] as a method.
    pub fn trace(&self, offset: isize, axis1: isize, axis2: isize) -> Result<Array> {
        trace(self, offset, axis1, axis2, None)
    }
}
