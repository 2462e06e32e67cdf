//! `numpy.fill_diagonal`: the diagonal's flat positions (`0, step, 2*step, ...`, with
//! `step = 1 + sum(cumprod(shape[:-1]))`) are an `arange`, and the values go in with
//! [`put_async`](super::functions::put_async), which cycles a shorter value array as NumPy's
//! `a.flat[::step] = val` does. In place: every view of the memory sees the writes.

use super::functions::{put_async, TakeMode};
use crate::array::Array;
use crate::scalar::{Operand, Scalar};
use kupfer_core::{Error, Result};

/// `numpy.fill_diagonal(a, val, wrap)`, in place, async. `a` has at least 2 dimensions, all
/// of equal length beyond 2-D. For a 2-D `a` the diagonal ends at row `ncols` unless `wrap`,
/// with which a tall matrix's diagonal restarts after every `ncols + 1` rows, as NumPy's.
/// `val` is a scalar or an array whose flattened values are cycled along the diagonal; it is
/// cast to `a`'s dtype as NumPy's `a.flat[...] = val` casts (a complex value into a real
/// array is an error).
pub async fn fill_diagonal_async(a: &Array, val: impl Into<Operand>, wrap: bool) -> Result<()> {
    let shape = a.shape().to_vec();
    if shape.len() < 2 {
        return Err(Error::invalid("array must be at least 2-d"));
    }
    let (step, end) = if shape.len() == 2 {
        let end = if wrap {
            a.size()
        } else {
            (shape[1] * shape[1]).min(a.size())
        };
        (shape[1] + 1, end)
    } else {
        if shape.iter().any(|&d| d != shape[0]) {
            return Err(Error::invalid(
                "All dimensions of input must be of equal length",
            ));
        }
        let mut step = 1;
        let mut prod = 1;
        for &d in &shape[..shape.len() - 1] {
            prod *= d;
            step += prod;
        }
        (step, a.size())
    };
    let val = val.into();
    let complex_val = match &val {
        Operand::Array(v) => v.dtype().is_complex(),
        Operand::Scalar(s) => matches!(s, Scalar::Complex { .. }),
    };
    if complex_val && !a.dtype().is_complex() {
        return Err(Error::invalid(format!(
            "cannot write complex values into an array of dtype {}",
            a.dtype()
        )));
    }
    let val = match val {
        Operand::Array(v) => Operand::Array(v.astype(a.dtype())?),
        Operand::Scalar(s) => Operand::Array(crate::creation::full_on(
            a.device(),
            &[1],
            s,
            Some(a.dtype()),
        )?),
    };
    if end == 0 {
        return Ok(());
    }
    let int = a.device().default_int();
    let positions = crate::creation::arange(0i64, end as i64, step as i64, Some(int))?;
    // Every position is in bounds: `Wrap` skips the bounds read-back of `Raise`.
    put_async(a, &Operand::Array(positions), val, TakeMode::Wrap).await
}

/// `numpy.fill_diagonal(a, val, wrap)`, in place (see [`fill_diagonal_async`]).
///
/// ```
/// use kupfer as kp;
/// let a = kp::zeros(&[3, 3], Some(kp::DType::I32))?;
/// kp::fill_diagonal(&a, 5, false)?;
/// assert_eq!(a.to_vec::<i32>()?, vec![5, 0, 0, 0, 5, 0, 0, 0, 5]);
/// # Ok::<(), kp::Error>(())
/// ```
#[cfg(not(target_arch = "wasm32"))]
pub fn fill_diagonal(a: &Array, val: impl Into<Operand>, wrap: bool) -> Result<()> {
    pollster::block_on(fill_diagonal_async(a, val, wrap))
}
