//! [`cross`]: the cross product of 3-element (or 2-element) vectors, as one fused
//! elementwise kernel.

use super::products::shape_str;
use crate::array::Array;
use crate::scalar::Scalar;
use kupfer_core::layout::normalize_axis;
use kupfer_core::{DType, Error, Result, SliceArg};

/// Component `k` of the vectors along the last axis of `x` (a view).
fn part(x: &Array, k: isize) -> Result<Array> {
    x.slice(&[SliceArg::Ellipsis, SliceArg::Index(k)])
}

fn sub(x: Array, y: Array) -> Result<Array> {
    crate::subtract(x, y)
}

fn mul(x: &Array, y: &Array) -> Result<Array> {
    crate::multiply(x, y)
}

/// NumPy's `cross`: the cross product of the vectors along axis `axisa` of `a` and `axisb`
/// of `b` (the other axes broadcast), with the result's vectors along `axisc`.
///
/// Vectors have 3 or 2 components; a 2-component vector is one with a zero third component,
/// and the product of two of them is the scalar z component (so that result has no vector
/// axis and `axisc` is not used), as in NumPy. The dtype is the operands' promoted dtype;
/// bool operands are an error, as NumPy's subtraction of booleans is.
///
/// ```no_run
/// let x = kupfer::Array::from_slice(&[1.0f32, 0.0, 0.0], &[3])?;
/// let y = kupfer::Array::from_slice(&[0.0f32, 1.0, 0.0], &[3])?;
/// assert_eq!(kupfer::linalg::cross(&x, &y, -1, -1, -1)?.to_vec::<f32>()?, [0.0, 0.0, 1.0]);
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn cross(a: &Array, b: &Array, axisa: isize, axisb: isize, axisc: isize) -> Result<Array> {
    if a.ndim() == 0 || b.ndim() == 0 {
        return Err(Error::invalid(format!(
            "cross: the operands must have at least one axis, got shapes {} and {}",
            shape_str(a.shape()),
            shape_str(b.shape())
        )));
    }
    let a = a.permute_dims(&vector_last(a.ndim(), axisa)?)?;
    let b = b.permute_dims(&vector_last(b.ndim(), axisb)?)?;
    let (na, nb) = (a.shape()[a.ndim() - 1], b.shape()[b.ndim() - 1]);
    if !matches!(na, 2 | 3) || !matches!(nb, 2 | 3) {
        return Err(Error::invalid(format!(
            "cross: incompatible dimensions for cross product (dimension must be 2 or 3), got \
             {na} and {nb}"
        )));
    }
    if a.dtype() == DType::Bool && b.dtype() == DType::Bool {
        return Err(Error::invalid(
            "cross: boolean operands (the product subtracts, and booleans do not)",
        ));
    }
    let a = |k| part(&a, k);
    let b = |k| part(&b, k);
    // z = a0 b1 - a1 b0 is common to every case.
    let z = sub(mul(&a(0)?, &b(1)?)?, mul(&a(1)?, &b(0)?)?)?;
    let (x, y) = match (na, nb) {
        (2, 2) => return Ok(z),
        (2, _) => (mul(&a(1)?, &b(2)?)?, crate::negative(mul(&a(0)?, &b(2)?)?)?),
        (_, 2) => (crate::negative(mul(&a(2)?, &b(1)?)?)?, mul(&a(2)?, &b(0)?)?),
        _ => (
            sub(mul(&a(1)?, &b(2)?)?, mul(&a(2)?, &b(1)?)?)?,
            sub(mul(&a(2)?, &b(0)?)?, mul(&a(0)?, &b(2)?)?)?,
        ),
    };
    let v = stack_last(&x, &y, &z)?;
    let axisc = normalize_axis(axisc, v.ndim())?;
    // The vector axis is last; move it to `axisc`.
    let mut perm: Vec<isize> = (0..v.ndim() as isize - 1).collect();
    perm.insert(axisc, v.ndim() as isize - 1);
    v.permute_dims(&perm)
}

/// The permutation moving `axis` of an array of rank `ndim` to the end.
fn vector_last(ndim: usize, axis: isize) -> Result<Vec<isize>> {
    let axis = normalize_axis(axis, ndim)?;
    Ok((0..ndim)
        .filter(|&k| k != axis)
        .chain([axis])
        .map(|k| k as isize)
        .collect())
}

/// `[x, y, z]` stacked along a new last axis: one lazy select on the component index, so it
/// fuses with the products into one kernel.
fn stack_last(x: &Array, y: &Array, z: &Array) -> Result<Array> {
    let k = crate::arange(0i64, 3i64, 1i64, Some(DType::I32))?;
    let (x, y, z) = (x.expand_dims(-1)?, y.expand_dims(-1)?, z.expand_dims(-1)?);
    let is = |i: i64| crate::equal(&k, Scalar::Int(i));
    crate::where_(is(0)?, x, crate::where_(is(1)?, y, z)?)
}
