//! Bit packing: [`packbits`] and [`unpackbits`] as NumPy's, on the device. Packing is a
//! weighted sum of eight 0/1 values per byte along the axis (weights 128 .. 1 for `big`
//! bit order, 1 .. 128 for `little`), unpacking a shift and mask per bit; both are
//! elementwise expressions and one reduction, fused by kupfer's lazy evaluation.

use crate::array::Array;
use crate::reduce::{self, Axis};
use crate::ufuncs as uf;
use kupfer_core::layout::normalize_axis;
use kupfer_core::{DType, Error, Result};

/// The order of the bits in a byte (`bitorder=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BitOrder {
    /// The first element is the most significant bit (NumPy's default).
    #[default]
    Big,
    /// The first element is the least significant bit.
    Little,
}

impl BitOrder {
    /// Parses NumPy's `'big'` / `'little'`.
    pub fn parse(name: &str) -> Result<BitOrder> {
        match name {
            "big" => Ok(BitOrder::Big),
            "little" => Ok(BitOrder::Little),
            _ => Err(Error::invalid("'order' must be either 'little' or 'big'")),
        }
    }

    /// The shift of each of the eight bits of a byte, in element order.
    fn shifts(self) -> [u32; 8] {
        match self {
            BitOrder::Big => [7, 6, 5, 4, 3, 2, 1, 0],
            BitOrder::Little => [0, 1, 2, 3, 4, 5, 6, 7],
        }
    }
}

/// `a` with `axis` (flattened when `None`) moved last; a 0-d array counts as one element.
fn axis_last(a: &Array, axis: Option<isize>) -> Result<(Array, Option<usize>)> {
    match axis {
        _ if a.ndim() == 0 => Ok((a.reshape(&[1])?, None)),
        None => Ok((a.reshape(&[-1])?, None)),
        Some(ax) => {
            let ax = normalize_axis(ax, a.ndim())?;
            Ok((crate::manip::moveaxis(a, &[ax as isize], &[-1])?, Some(ax)))
        }
    }
}

/// `r` with its last axis moved back to `axis`.
fn restore(r: Array, axis: Option<usize>) -> Result<Array> {
    match axis {
        Some(ax) => crate::manip::moveaxis(&r, &[-1], &[ax as isize]),
        None => Ok(r),
    }
}

/// `np.packbits`: the elements of `a` (integer or bool; non-zero is a 1 bit) packed eight
/// to a uint8 along `axis` (the flattened array when `None`), the last byte padded with 0.
///
/// ```
/// # use kupfer as kp;
/// let a = kp::Array::from_slice(&[1i32, 0, 1, 0, 0, 0, 0, 1, 1], &[9])?;
/// let p = kp::packbits(&a, None, kp::BitOrder::Big)?;
/// assert_eq!(p.to_vec::<u8>()?, vec![161, 128]);
/// # Ok::<(), kp::Error>(())
/// ```
pub fn packbits(a: &Array, axis: Option<isize>, order: BitOrder) -> Result<Array> {
    let d = a.dtype();
    if !(d.is_int() || d == DType::Bool) {
        return Err(Error::invalid(
            "Expected an input array of integer or boolean data type",
        ));
    }
    let (x, axis) = axis_last(a, axis)?;
    let n = x.shape()[x.ndim() - 1];
    let bytes = n.div_ceil(8);
    let bits = uf::not_equal(&x, 0)?.astype(DType::U32)?;
    let bits = if bytes * 8 == n {
        bits
    } else {
        let mut pad_shape = x.shape().to_vec();
        *pad_shape
            .last_mut()
            .expect("axis_last gives at least one axis") = bytes * 8 - n;
        let pad = crate::creation::full_on(x.device(), &pad_shape, 0i64, Some(DType::U32))?;
        crate::manip::concatenate(&[bits, pad], Some(-1), None)?
    };
    let mut grouped: Vec<isize> = x.shape()[..x.ndim() - 1]
        .iter()
        .map(|&s| s as isize)
        .collect();
    grouped.extend([bytes as isize, 8]);
    let weights: Vec<u32> = order.shifts().iter().map(|s| 1u32 << s).collect();
    let weights = Array::from_slice_on(x.device(), &weights, &[8])?;
    let packed = reduce::sum(
        &uf::multiply(bits.reshape(&grouped)?, &weights)?,
        Axis::Many(vec![-1]),
        false,
    )?;
    restore(packed.astype(DType::U8)?, axis)
}

/// `np.unpackbits`: each uint8 of `a` unpacked into eight 0/1 uint8 elements along `axis`
/// (the flattened array when `None`); `count` keeps the first `count` bits (padding with
/// zeros past the end; a negative count drops that many from the end).
///
/// ```
/// # use kupfer as kp;
/// let a = kp::Array::from_slice(&[5u8], &[1])?;
/// let u = kp::unpackbits(&a, None, None, kp::BitOrder::Big)?;
/// assert_eq!(u.to_vec::<u8>()?, vec![0, 0, 0, 0, 0, 1, 0, 1]);
/// # Ok::<(), kp::Error>(())
/// ```
pub fn unpackbits(
    a: &Array,
    axis: Option<isize>,
    count: Option<i64>,
    order: BitOrder,
) -> Result<Array> {
    if a.dtype() != DType::U8 {
        return Err(Error::invalid(
            "Expected an input array of unsigned byte data type",
        ));
    }
    let (x, axis) = axis_last(a, axis)?;
    let n = x.shape()[x.ndim() - 1] * 8;
    let shifts: Vec<u32> = order.shifts().to_vec();
    let shifts = Array::from_slice_on(x.device(), &shifts, &[8])?;
    let bits = uf::bitwise_and(
        uf::right_shift(x.astype(DType::U32)?.expand_dims(-1)?, &shifts)?,
        1u32,
    )?
    .astype(DType::U8)?;
    let mut flat_shape: Vec<isize> = x.shape()[..x.ndim() - 1]
        .iter()
        .map(|&s| s as isize)
        .collect();
    flat_shape.push(n as isize);
    let bits = bits.reshape(&flat_shape)?;
    let keep = match count {
        None => n,
        Some(c) if c >= 0 => c as usize,
        Some(c) => n
            .checked_sub(c.unsigned_abs() as usize)
            .ok_or_else(|| Error::invalid("-count larger than number of elements"))?,
    };
    let bits = if keep <= n {
        let mut parts = vec![crate::SliceArg::Ellipsis];
        parts.push(crate::SliceArg::Slice {
            start: None,
            stop: Some(keep as isize),
            step: None,
        });
        bits.slice(&parts)?
    } else {
        let mut pad_shape = bits.shape().to_vec();
        *pad_shape
            .last_mut()
            .expect("axis_last gives at least one axis") = keep - n;
        let pad = crate::creation::full_on(x.device(), &pad_shape, 0i64, Some(DType::U8))?;
        crate::manip::concatenate(&[bits, pad], Some(-1), None)?
    };
    restore(bits, axis)
}
