//! Triangles and diagonals: `tril`, `triu`, `tri` (one elementwise kernel over the output
//! index, fused with a lazy input) and `diagflat`.

use super::launch::gather;
use crate::array::Array;
use crate::device::Device;
use crate::fusion::Lazy;
use crate::scalar::Scalar;
use kupfer_core::manip::AxisMap;
use kupfer_core::{BinaryOp, DType, Error, Result};

fn u32_scalar(v: u32) -> Lazy {
    Lazy::scalar(v.to_le_bytes().to_vec(), DType::U32)
}

/// True on and below diagonal `k` of the trailing `rows x cols` matrices of an expression
/// evaluated at its own shape (`col <= row + k`, in unsigned arithmetic).
fn lower(rows: usize, cols: usize, k: isize) -> Lazy {
    let c = cols.max(1) as u32;
    let col = Lazy::binary(
        BinaryOp::Remainder,
        Lazy::index(),
        u32_scalar(c),
        DType::U32,
    );
    let row = Lazy::binary(
        BinaryOp::Remainder,
        Lazy::binary(
            BinaryOp::FloorDivide,
            Lazy::index(),
            u32_scalar(c),
            DType::U32,
        ),
        u32_scalar(rows.max(1) as u32),
        DType::U32,
    );
    if k >= 0 {
        let k = k.unsigned_abs().min(cols) as u32;
        let bound = Lazy::binary(BinaryOp::Add, row, u32_scalar(k), DType::U32);
        Lazy::binary(BinaryOp::LessEqual, col, bound, DType::Bool)
    } else {
        let k = k.unsigned_abs().min(rows + 1) as u32;
        let shifted = Lazy::binary(BinaryOp::Add, col, u32_scalar(k), DType::U32);
        Lazy::binary(BinaryOp::LessEqual, shifted, row, DType::Bool)
    }
}

fn check_size(shape: &[usize]) -> Result<()> {
    if shape.iter().product::<usize>() > u32::MAX as usize {
        return Err(Error::unsupported(
            "triangles of arrays of more than 2^32 elements",
        ));
    }
    Ok(())
}

/// `m` with the elements above (`lower`) or below the diagonal zeroed.
fn triangle(m: &Array, k: isize, keep_lower: bool) -> Result<Array> {
    if m.ndim() == 0 {
        return Err(Error::invalid(
            "tril/triu of a 0-d array (NumPy needs at least one axis)",
        ));
    }
    let mut shape = m.shape().to_vec();
    if shape.len() == 1 {
        shape.insert(0, shape[0]);
    }
    check_size(&shape)?;
    let (rows, cols) = (shape[shape.len() - 2], shape[shape.len() - 1]);
    let keep = if keep_lower {
        lower(rows, cols, k)
    } else {
        // col >= row + k is "not (col <= row + k - 1)".
        let below = lower(rows, cols, k - 1);
        Lazy::unary(kupfer_core::UnaryOp::LogicalNot, below, DType::Bool)
    };
    let device = m.device().clone();
    let x = m.operand_within(Array::max_nodes() - 12, Array::max_leaves(&device), &shape)?;
    let zero = Lazy::scalar(Scalar::Int(0).encode(m.dtype())?, m.dtype());
    let out = Array::from_lazy(device, shape, Lazy::select(keep, x, zero, m.dtype()));
    out.eval()?;
    Ok(out)
}

/// The lower triangle of the trailing two axes: elements above diagonal `k` zeroed
/// (`numpy.tril`; batched over leading axes, a 1-D input broadcast to a square). One kernel,
/// reading a lazy input in place.
///
/// ```
/// let m = kupfer::Array::from_slice(&[1i32, 2, 3, 4], &[2, 2])?;
/// assert_eq!(kupfer::tril(&m, 0)?.to_vec::<i32>()?, [1, 0, 3, 4]);
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn tril(m: &Array, k: isize) -> Result<Array> {
    triangle(m, k, true)
}

/// The upper triangle: elements below diagonal `k` zeroed (`numpy.triu`).
pub fn triu(m: &Array, k: isize) -> Result<Array> {
    triangle(m, k, false)
}

/// Ones at and below diagonal `k` of an `n x m` array, zeros elsewhere (`numpy.tri`;
/// `dtype` defaults to the device's default float).
pub fn tri(n: usize, m: Option<usize>, k: isize, dtype: Option<DType>) -> Result<Array> {
    let device = Device::current()?;
    let dtype = dtype.unwrap_or_else(|| device.default_float());
    device.check(dtype)?;
    let m = m.unwrap_or(n);
    check_size(&[n, m])?;
    let out = Array::from_lazy(device, vec![n, m], lower(n, m, k).cast(dtype));
    out.eval()?;
    Ok(out)
}

/// A 2-D array with the flattened input on diagonal `k` (`numpy.diagflat`).
pub fn diagflat(v: &Array, k: isize) -> Result<Array> {
    let v = v.ravel()?;
    let len = v.shape()[0];
    let n = len
        .checked_add(k.unsigned_abs())
        .ok_or_else(|| Error::invalid("Maximum allowed dimension exceeded"))?;
    check_size(&[n, n])?;
    // v placed in zeros of length n: row i of the result holds padded[i].
    let before = if k < 0 { k.unsigned_abs() } else { 0 };
    let zero = (Scalar::Int(0), Scalar::Int(0));
    let padded = gather(&v, &[n], &[AxisMap::Shift { before }], &[zero], &[])?;
    let col = crate::arange(0, n as i64, 1, Some(DType::I32))?;
    let row = col.reshape(&[-1, 1])?;
    let on = crate::equal(crate::subtract(&col, &row)?, k as i64)?;
    let zeros = crate::zeros(&[], Some(v.dtype()))?;
    let out = crate::where_(on, padded.reshape(&[-1, 1])?, zeros)?;
    out.eval()?;
    Ok(out)
}
