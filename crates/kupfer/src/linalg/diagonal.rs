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
        // v on diagonal k of zeros: O(n) gather of the padded diagonal, one n x n select.
        1 => crate::manip::diagflat(v, k),
        2 => diagonal(v, k, 0, 1),
        _ => Err(Error::invalid(format!(
            "diag: input must be 1-d or 2-d (got shape {:?})",
            v.shape()
        ))),
    }
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
