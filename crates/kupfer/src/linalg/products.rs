//! Products of arrays: [`dot`], [`vdot`], [`inner`], [`outer`], [`tensordot`], [`kron`],
//! [`vecdot`], [`matvec`], [`vecmat`].
//!
//! Every contraction is one matrix product: the contracted axes of each operand are moved
//! together (a view) and the operands reshaped to matrices (a copy only where the strides
//! demand it), as NumPy's `tensordot` does.

use super::mm;
use crate::array::Array;
use kupfer_core::layout::normalize_axis;
use kupfer_core::{Error, Result};

/// Which axes [`tensordot`] contracts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TensorAxes {
    /// The last `n` axes of `a` with the first `n` of `b` (NumPy's `axes=n`).
    Last(usize),
    /// These axes of `a` with these of `b`, pairwise (NumPy's `axes=(list, list)`).
    Pairs(Vec<isize>, Vec<isize>),
}

impl From<usize> for TensorAxes {
    fn from(n: usize) -> Self {
        TensorAxes::Last(n)
    }
}

impl From<(Vec<isize>, Vec<isize>)> for TensorAxes {
    fn from((a, b): (Vec<isize>, Vec<isize>)) -> Self {
        TensorAxes::Pairs(a, b)
    }
}

/// Shape as NumPy prints it: `(2, 3)`, `(5,)`, `()`.
pub(crate) fn shape_str(s: &[usize]) -> String {
    match s {
        [one] => format!("({one},)"),
        _ => format!(
            "({})",
            s.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Normalised, distinct axes of an array of rank `ndim`.
fn axes_of(axes: &[isize], ndim: usize) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(axes.len());
    for &ax in axes {
        let a = normalize_axis(ax, ndim)?;
        if out.contains(&a) {
            return Err(Error::invalid(format!("tensordot: repeated axis {ax}")));
        }
        out.push(a);
    }
    Ok(out)
}

/// Contracts `a` and `b` over the given axes (validated, same sizes): one matrix product of
/// `a` viewed as (free, contracted) and `b` as (contracted, free). Result axes: the free axes
/// of `a`, then those of `b`, in order.
fn contract(a: &Array, b: &Array, ax_a: &[usize], ax_b: &[usize]) -> Result<Array> {
    let free_a: Vec<usize> = (0..a.ndim()).filter(|i| !ax_a.contains(i)).collect();
    let free_b: Vec<usize> = (0..b.ndim()).filter(|i| !ax_b.contains(i)).collect();
    let dims = |x: &Array, axes: &[usize]| axes.iter().map(|&i| x.shape()[i]).collect::<Vec<_>>();
    let k: usize = dims(a, ax_a).iter().product();
    let (fa, fb) = (dims(a, &free_a), dims(b, &free_b));
    let perm = |first: &[usize], second: &[usize]| {
        first
            .iter()
            .chain(second)
            .map(|&i| i as isize)
            .collect::<Vec<_>>()
    };
    let m = fa.iter().product::<usize>() as isize;
    let n = fb.iter().product::<usize>() as isize;
    let a2 = a
        .permute_dims(&perm(&free_a, ax_a))?
        .reshape(&[m, k as isize])?;
    let b2 = b
        .permute_dims(&perm(ax_b, &free_b))?
        .reshape(&[k as isize, n])?;
    let out: Vec<isize> = fa.iter().chain(&fb).map(|&d| d as isize).collect();
    mm(&a2, &b2)?.reshape(&out)
}

/// Checks that contracted axes have equal lengths; `what` builds the error.
fn check_pairs(
    a: &Array,
    b: &Array,
    ax_a: &[usize],
    ax_b: &[usize],
    what: impl Fn(usize, usize) -> String,
) -> Result<()> {
    for (&i, &j) in ax_a.iter().zip(ax_b) {
        if a.shape()[i] != b.shape()[j] {
            return Err(Error::invalid(what(i, j)));
        }
    }
    Ok(())
}

/// Tensor contraction over `axes` (NumPy's `tensordot`): `axes = n` contracts the last `n`
/// axes of `a` with the first `n` of `b`; a pair of lists contracts them pairwise. The result
/// has the remaining axes of `a`, then those of `b`.
///
/// ```no_run
/// let a = kupfer::ones(&[3, 4, 5], None)?;
/// let b = kupfer::ones(&[4, 3, 2], None)?;
/// let c = kupfer::tensordot(&a, &b, (vec![1, 0], vec![0, 1]))?; // shape [5, 2]
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn tensordot(a: &Array, b: &Array, axes: impl Into<TensorAxes>) -> Result<Array> {
    let (ax_a, ax_b) = match axes.into() {
        TensorAxes::Last(n) => {
            if n > a.ndim() || n > b.ndim() {
                return Err(Error::invalid(format!(
                    "tensordot: cannot contract {n} axes of shapes {} and {}",
                    shape_str(a.shape()),
                    shape_str(b.shape())
                )));
            }
            ((a.ndim() - n..a.ndim()).collect(), (0..n).collect())
        }
        TensorAxes::Pairs(x, y) => {
            if x.len() != y.len() {
                return Err(Error::invalid(format!(
                    "tensordot: shape-mismatch for sum: {} axes of a, {} of b",
                    x.len(),
                    y.len()
                )));
            }
            (axes_of(&x, a.ndim())?, axes_of(&y, b.ndim())?)
        }
    };
    check_pairs(a, b, &ax_a, &ax_b, |i, j| {
        format!(
            "tensordot: shape-mismatch for sum: {} (axis {i} of {}) != {} (axis {j} of {})",
            a.shape()[i],
            shape_str(a.shape()),
            b.shape()[j],
            shape_str(b.shape())
        )
    })?;
    contract(a, b, &ax_a, &ax_b)
}

/// NumPy's `dot`: scalars (0-d) multiply; 1-D · 1-D is the inner product (0-d); otherwise
/// the last axis of `a` is contracted with the second-to-last of `b` (its only axis when
/// 1-D), giving `a.shape[:-1] + b.shape[:-2] + b.shape[-1:]`.
///
/// ```no_run
/// let a = kupfer::ones(&[2, 3], None)?;
/// let b = kupfer::ones(&[3, 4], None)?;
/// assert_eq!(kupfer::dot(&a, &b)?.shape(), &[2, 4]);
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn dot(a: &Array, b: &Array) -> Result<Array> {
    if a.ndim() == 0 || b.ndim() == 0 {
        return crate::multiply(a, b);
    }
    let (i, j) = (a.ndim() - 1, b.ndim().saturating_sub(2));
    check_pairs(a, b, &[i], &[j], |i, j| {
        format!(
            "dot: shapes {} and {} not aligned: {} (dim {i}) != {} (dim {j})",
            shape_str(a.shape()),
            shape_str(b.shape()),
            a.shape()[i],
            b.shape()[j]
        )
    })?;
    contract(a, b, &[i], &[j])
}

/// NumPy's `vdot`: both arrays flattened, the first conjugated (complex), then their inner
/// product (a 0-d array). The sizes must match.
pub fn vdot(a: &Array, b: &Array) -> Result<Array> {
    if a.size() != b.size() {
        return Err(Error::invalid(format!(
            "vdot: vectors have different lengths: {} has {} elements, {} has {}",
            shape_str(a.shape()),
            a.size(),
            shape_str(b.shape()),
            b.size()
        )));
    }
    let x = if a.dtype().is_complex() {
        crate::conj(a)?
    } else {
        a.clone()
    };
    contract(&x.ravel()?, &b.ravel()?, &[0], &[0])
}

/// NumPy's `inner`: the last axes of `a` and `b` contracted (scalars multiply); the result
/// has shape `a.shape[:-1] + b.shape[:-1]`.
pub fn inner(a: &Array, b: &Array) -> Result<Array> {
    if a.ndim() == 0 || b.ndim() == 0 {
        return crate::multiply(a, b);
    }
    let (i, j) = (a.ndim() - 1, b.ndim() - 1);
    check_pairs(a, b, &[i], &[j], |_, _| {
        format!(
            "inner: shapes {} and {} not aligned: last dimensions {} != {}",
            shape_str(a.shape()),
            shape_str(b.shape()),
            a.shape()[i],
            b.shape()[j]
        )
    })?;
    contract(a, b, &[i], &[j])
}

/// NumPy's `outer`: both arrays flattened, `out[i, j] = a[i] * b[j]` (lazy: it fuses with
/// what follows).
pub fn outer(a: &Array, b: &Array) -> Result<Array> {
    crate::multiply(&a.reshape(&[-1, 1])?, &b.reshape(&[1, -1])?)
}

/// NumPy's `kron`: the Kronecker product, blocks `a[i, j, ...] * b`. The shorter shape is
/// padded with leading ones; the result has shape `a.shape * b.shape` axis by axis.
pub fn kron(a: &Array, b: &Array) -> Result<Array> {
    let n = a.ndim().max(b.ndim());
    let padded = |x: &Array| {
        let mut s = vec![1usize; n - x.ndim()];
        s.extend_from_slice(x.shape());
        s
    };
    let (sa, sb) = (padded(a), padded(b));
    // a as (a0, 1, a1, 1, ...) times b as (1, b0, 1, b1, ...), then the pairs merged.
    let inter = |s: &[usize], first: bool| -> Vec<isize> {
        s.iter()
            .flat_map(|&d| {
                if first {
                    [d as isize, 1]
                } else {
                    [1, d as isize]
                }
            })
            .collect()
    };
    let p = crate::multiply(
        &a.reshape(&inter(&sa, true))?,
        &b.reshape(&inter(&sb, false))?,
    )?;
    let out: Vec<isize> = sa
        .iter()
        .zip(&sb)
        .map(|(&x, &y)| (x * y) as isize)
        .collect();
    p.reshape(&out)
}

/// NumPy's `vecdot`: `sum(conj(a) * b)` along `axis` of each operand (their lengths must
/// match), the other axes broadcast. Lazy input to one fused reduction.
pub fn vecdot(a: &Array, b: &Array, axis: isize) -> Result<Array> {
    let (i, j) = (
        normalize_axis(axis, a.ndim())?,
        normalize_axis(axis, b.ndim())?,
    );
    check_pairs(a, b, &[i], &[j], |i, j| {
        format!(
            "vecdot: shapes {} and {} have different lengths along the axis: {} != {}",
            shape_str(a.shape()),
            shape_str(b.shape()),
            a.shape()[i],
            b.shape()[j]
        )
    })?;
    let dtype = kupfer_core::promote::result_type(a.dtype(), b.dtype())?;
    let x = if a.dtype().is_complex() {
        crate::conj(a)?
    } else {
        a.clone()
    };
    let p = crate::multiply(&x.moveaxis_last(i)?, &b.moveaxis_last(j)?)?;
    super::sum(&p, -1, false)?.astype(dtype)
}

/// NumPy's `matvec`: matrices `a` (`..., m, n`) times vectors `x` (`..., n`), giving
/// `..., m`; the batch axes broadcast.
///
/// ```no_run
/// let a = kupfer::ones(&[5, 2, 3], None)?;
/// let x = kupfer::ones(&[3], None)?;
/// assert_eq!(kupfer::linalg::matvec(&a, &x)?.shape(), &[5, 2]);
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn matvec(a: &Array, x: &Array) -> Result<Array> {
    if a.ndim() < 2 || x.ndim() < 1 {
        return Err(Error::invalid(format!(
            "matvec: needs matrices and vectors, got shapes {} and {}",
            shape_str(a.shape()),
            shape_str(x.shape())
        )));
    }
    if a.shape()[a.ndim() - 1] != x.shape()[x.ndim() - 1] {
        return Err(Error::invalid(format!(
            "matvec: shapes {} and {} not aligned: {} (last dim of the matrices) != {} (of \
             the vectors)",
            shape_str(a.shape()),
            shape_str(x.shape()),
            a.shape()[a.ndim() - 1],
            x.shape()[x.ndim() - 1]
        )));
    }
    crate::matmul(a, &x.expand_dims(-1)?)?.squeeze(Some(&[-1]))
}

/// NumPy's `vecmat`: the conjugates of vectors `x` (`..., n`) times matrices `a`
/// (`..., n, m`), giving `..., m`; the batch axes broadcast.
pub fn vecmat(x: &Array, a: &Array) -> Result<Array> {
    if a.ndim() < 2 || x.ndim() < 1 {
        return Err(Error::invalid(format!(
            "vecmat: needs vectors and matrices, got shapes {} and {}",
            shape_str(x.shape()),
            shape_str(a.shape())
        )));
    }
    if x.shape()[x.ndim() - 1] != a.shape()[a.ndim() - 2] {
        return Err(Error::invalid(format!(
            "vecmat: shapes {} and {} not aligned: {} (last dim of the vectors) != {} \
             (second-to-last of the matrices)",
            shape_str(x.shape()),
            shape_str(a.shape()),
            x.shape()[x.ndim() - 1],
            a.shape()[a.ndim() - 2]
        )));
    }
    let x = if x.dtype().is_complex() {
        crate::conj(x)?
    } else {
        x.clone()
    };
    crate::matmul(&x.expand_dims(-2)?, a)?.squeeze(Some(&[-2]))
}

impl Array {
    /// This array with axis `i` moved to the end (a view).
    fn moveaxis_last(&self, i: usize) -> Result<Array> {
        let perm: Vec<isize> = (0..self.ndim())
            .filter(|&k| k != i)
            .chain([i])
            .map(|k| k as isize)
            .collect();
        self.permute_dims(&perm)
    }

    /// [`dot`] as a method (`a.dot(b)`).
    pub fn dot(&self, other: &Array) -> Result<Array> {
        dot(self, other)
    }
}
