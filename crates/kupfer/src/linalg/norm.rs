//! `linalg.norm`: vector norms (any order p, ±inf, 0) and matrix norms ('fro', 1, -1, inf,
//! -inf) as reductions over `|x|` — no kernel of their own. The matrix orders 2, -2 and
//! 'nuc' reduce the singular values ([`super::svdvals`]; natively only: the SVD reads its
//! convergence check back, which blocks).

use crate::array::Array;
use crate::reduce::{self, Axis};
use kupfer_core::layout::normalize_axis;
use kupfer_core::{DType, Error, Result};

/// The `ord` of [`norm`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NormOrd {
    /// A number: for vectors `sum(|x|^p)^(1/p)` (`inf`/`-inf`: max/min of `|x|`, `0`: the
    /// count of non-zeros); for matrices 1, -1, inf, -inf (max/min column or row sums).
    P(f64),
    /// `'fro'`: the Frobenius norm of a matrix.
    Fro,
    /// `'nuc'`: the nuclear norm (the sum of the singular values).
    Nuc,
}

impl From<f64> for NormOrd {
    fn from(p: f64) -> Self {
        NormOrd::P(p)
    }
}

/// The result dtype (NumPy: inexact inputs keep theirs, complex gives its real type, the rest
/// become float — float32 in kupfer for 32-bit inputs) and the dtype computed in.
fn dtypes(d: DType) -> (DType, DType) {
    match d {
        DType::F16 => (DType::F16, DType::F32),
        DType::F64 | DType::I64 | DType::U64 | DType::Complex128 => (DType::F64, DType::F64),
        _ => (DType::F32, DType::F32),
    }
}

/// NumPy's `linalg.norm(x, ord, axis, keepdims)`.
///
/// - `axis = None`: with `ord = None`, the 2-norm of all elements, any rank; with an `ord`,
///   `x` must be 1-D (vector norm) or 2-D (matrix norm).
/// - `axis = [k]`: vector norms along axis `k`; `axis = [r, c]`: matrix norms over those axes.
///
/// The result is float (float32 for 32-bit inputs, float16 for float16 — accumulated in
/// float32 — the real dtype for complex).
///
/// ```no_run
/// use kupfer::linalg::{norm, NormOrd};
/// let v = kupfer::Array::from_slice(&[3.0f32, -4.0], &[2])?;
/// let two = norm(&v, None, None, false)?; // 5
/// let one = norm(&v, Some(NormOrd::P(1.0)), None, false)?; // 7
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn norm(
    x: &Array,
    ord: Option<NormOrd>,
    axis: Option<&[isize]>,
    keepdims: bool,
) -> Result<Array> {
    let (out, compute) = dtypes(x.dtype());
    let absx = if x.dtype().is_complex() {
        crate::abs(x)?
    } else {
        crate::abs(&x.astype(compute)?)?
    };
    let axes: Vec<usize> = match axis {
        None if ord.is_none() => {
            return two_norm(&absx, Axis::All, keepdims)?.astype(out);
        }
        None => match x.ndim() {
            1 | 2 => (0..x.ndim()).collect(),
            _ => return Err(Error::invalid("Improper number of dimensions to norm.")),
        },
        Some(ax) => ax
            .iter()
            .map(|&a| normalize_axis(a, x.ndim()))
            .collect::<Result<_>>()?,
    };
    let r = match axes.as_slice() {
        [a] => vector(x, &absx, ord, *a, keepdims)?,
        [r, c] if r == c => return Err(Error::invalid("norm: duplicate axes given")),
        [r, c] => {
            let m = matrix(x, &absx, ord, *r, *c)?;
            if keepdims {
                let mut s: Vec<isize> = x.shape().iter().map(|&d| d as isize).collect();
                s[*r] = 1;
                s[*c] = 1;
                m.reshape(&s)?
            } else {
                m
            }
        }
        _ => return Err(Error::invalid("Improper number of dimensions to norm.")),
    };
    r.astype(out)
}

/// The largest of non-negative values along `axis`, 0 where that axis is empty (NumPy's
/// `initial=0` in its norms: `norm(zeros(0), inf)` is 0, where `max` of nothing is an error).
fn max_nonneg(a: &Array, axis: usize, keepdims: bool) -> Result<Array> {
    if a.shape().get(axis) == Some(&0) {
        reduce::sum(a, axis as isize, keepdims)
    } else {
        reduce::max(a, axis as isize, keepdims)
    }
}

fn two_norm(absx: &Array, axis: Axis, keepdims: bool) -> Result<Array> {
    crate::sqrt(reduce::sum(&crate::square(absx)?, axis, keepdims)?)
}

fn vector(
    x: &Array,
    absx: &Array,
    ord: Option<NormOrd>,
    ax: usize,
    keepdims: bool,
) -> Result<Array> {
    let axis = Axis::from(ax as isize);
    let p = match ord {
        None => 2.0,
        Some(NormOrd::P(p)) => p,
        Some(o) => {
            let name = if o == NormOrd::Fro { "fro" } else { "nuc" };
            return Err(Error::invalid(format!(
                "norm: invalid norm order '{name}' for vectors"
            )));
        }
    };
    match p {
        p if p == f64::INFINITY => max_nonneg(absx, ax, keepdims),
        p if p == f64::NEG_INFINITY => reduce::min(absx, axis, keepdims),
        0.0 => reduce::sum(
            &crate::not_equal(x, 0)?.astype(absx.dtype())?,
            axis,
            keepdims,
        ),
        1.0 => reduce::sum(absx, axis, keepdims),
        2.0 => two_norm(absx, axis, keepdims),
        // sum(|x|^nan)^(1/nan): NaN whatever x is (NumPy's result, not an error).
        p if p.is_nan() => {
            let shape = reduce::sum(absx, axis, keepdims)?;
            crate::creation::full_like(&shape, f64::NAN, None)
        }
        // An empty vector: 0^(1/p), 0 for p > 0 and inf for p < 0 as NumPy gives, without a
        // power of a constant array (lavapipe's compiler took ~50 s over kp_power of two
        // uniform operands).
        p if absx.shape().get(ax) == Some(&0) => {
            let zero = reduce::sum(absx, axis, keepdims)?;
            if p > 0.0 {
                Ok(zero)
            } else {
                crate::creation::full_like(&zero, f64::INFINITY, None)
            }
        }
        p => crate::power(
            reduce::sum(&crate::power(absx, p)?, axis, keepdims)?,
            1.0 / p,
        ),
    }
}

/// The singular values of the matrices over axes `r, c` reduced: the largest (`which` 2),
/// the smallest (-2) or their sum (0, the nuclear norm).
fn singular(x: &Array, r: usize, c: usize, which: i32) -> Result<Array> {
    let n = x.ndim();
    let perm: Vec<isize> = (0..n)
        .filter(|&i| i != r && i != c)
        .chain([r, c])
        .map(|i| i as isize)
        .collect();
    let moved = x.permute_dims(&perm)?;
    #[cfg(target_arch = "wasm32")]
    {
        let _ = (moved, which);
        Err(Error::unsupported(
            "norm of order 2, -2 or 'nuc' in the browser (use linalg::svdvals_async)",
        ))
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let s = super::svdvals(&moved)?;
        match which {
            2 => reduce::max(&s, -1isize, false),
            -2 => reduce::min(&s, -1isize, false),
            _ => reduce::sum(&s, -1isize, false),
        }
    }
}

fn matrix(x: &Array, absx: &Array, ord: Option<NormOrd>, r: usize, c: usize) -> Result<Array> {
    // After reducing axis `a`, axis `b` moves down by one if it came after it.
    let after = |b: usize, a: usize| if b > a { b - 1 } else { b };
    let sum = |ax: usize| reduce::sum(absx, ax as isize, false);
    match ord {
        None | Some(NormOrd::Fro) => {
            two_norm(absx, Axis::Many(vec![r as isize, c as isize]), false)
        }
        Some(NormOrd::P(1.0)) => max_nonneg(&sum(r)?, after(c, r), false),
        Some(NormOrd::P(-1.0)) => reduce::min(&sum(r)?, after(c, r) as isize, false),
        Some(NormOrd::P(p)) if p == f64::INFINITY => max_nonneg(&sum(c)?, after(r, c), false),
        Some(NormOrd::P(p)) if p == f64::NEG_INFINITY => {
            reduce::min(&sum(c)?, after(r, c) as isize, false)
        }
        Some(NormOrd::P(p)) if p == 2.0 || p == -2.0 => singular(x, r, c, p as i32),
        Some(NormOrd::Nuc) => singular(x, r, c, 0),
        Some(NormOrd::P(p)) => Err(Error::invalid(format!(
            "norm: invalid norm order {p} for matrices"
        ))),
    }
}

/// The array API's `linalg.vector_norm(x, ord, axis, keepdims)`: the norm of order `ord` of
/// the vectors along `axis` — one axis, several (merged into one vector), or all (`None`).
pub fn vector_norm(x: &Array, ord: f64, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    let n = x.ndim();
    let red: Vec<usize> = match axis {
        None => (0..n).collect(),
        Some(ax) => reduce::reduced_axes(&Axis::Many(ax.to_vec()), n)?,
    };
    if red.len() == 1 {
        return norm(x, Some(NormOrd::P(ord)), Some(&[red[0] as isize]), keepdims);
    }
    // The reduced axes moved last and merged into one (a copy unless the strides allow).
    let kept: Vec<usize> = (0..n).filter(|i| !red.contains(i)).collect();
    let perm: Vec<isize> = kept.iter().chain(&red).map(|&i| i as isize).collect();
    let mut shape: Vec<isize> = kept.iter().map(|&i| x.shape()[i] as isize).collect();
    shape.push(red.iter().map(|&i| x.shape()[i]).product::<usize>() as isize);
    let flat = x.permute_dims(&perm)?.reshape(&shape)?;
    let r = norm(&flat, Some(NormOrd::P(ord)), Some(&[-1]), false)?;
    if !keepdims {
        return Ok(r);
    }
    let out: Vec<isize> = (0..n)
        .map(|i| {
            if red.contains(&i) {
                1
            } else {
                x.shape()[i] as isize
            }
        })
        .collect();
    r.reshape(&out)
}

/// The array API's `linalg.matrix_norm(x, ord, keepdims)`: [`norm`] over the last two axes.
pub fn matrix_norm(x: &Array, ord: NormOrd, keepdims: bool) -> Result<Array> {
    norm(x, Some(ord), Some(&[-2, -1]), keepdims)
}
