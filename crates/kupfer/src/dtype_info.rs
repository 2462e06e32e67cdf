//! Machine limits of the dtypes: NumPy's `finfo` and `iinfo`.

use kupfer_core::{DType, Error, Result};

/// Machine limits of a float dtype (NumPy's `finfo`; a complex dtype describes its parts).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FInfo {
    /// The float dtype described.
    pub dtype: DType,
    /// Bits of the type.
    pub bits: u32,
    /// Difference between 1.0 and the next float.
    pub eps: f64,
    /// Difference between 1.0 and the float before it.
    pub epsneg: f64,
    /// Largest finite value.
    pub max: f64,
    /// Most negative finite value (`-max`).
    pub min: f64,
    /// Smallest positive normal value.
    pub smallest_normal: f64,
    /// Smallest positive subnormal value.
    pub smallest_subnormal: f64,
    /// Approximate decimal resolution, `10**-precision`.
    pub resolution: f64,
    /// Approximate number of exact decimal digits.
    pub precision: u32,
    /// Bits of the mantissa (without the implicit bit).
    pub nmant: u32,
}

impl FInfo {
    /// Alias of [`FInfo::smallest_normal`] (NumPy's `tiny`).
    pub fn tiny(&self) -> f64 {
        self.smallest_normal
    }
}

/// Machine limits of an integer dtype (NumPy's `iinfo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IInfo {
    /// The integer dtype described.
    pub dtype: DType,
    /// Bits of the type.
    pub bits: u32,
    /// Smallest value.
    pub min: i128,
    /// Largest value.
    pub max: i128,
}

/// The limits of a float or complex dtype.
///
/// ```
/// let f = kupfer::finfo(kupfer::DType::F32)?;
/// assert_eq!(f.eps, f32::EPSILON as f64);
/// assert_eq!(f.precision, 6);
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn finfo(dtype: DType) -> Result<FInfo> {
    let (real, bits, nmant, min_exp, precision) = match dtype {
        DType::F16 => (DType::F16, 16, 10, -14, 3),
        DType::F32 | DType::Complex64 => (DType::F32, 32, 23, -126, 6),
        DType::F64 | DType::Complex128 => (DType::F64, 64, 52, -1022, 15),
        d => return Err(Error::invalid(format!("data type {d} not inexact"))),
    };
    let eps = 2f64.powi(-(nmant as i32));
    let max = (2.0 - eps) * 2f64.powi(-min_exp + 1);
    let smallest_normal = 2f64.powi(min_exp);
    Ok(FInfo {
        dtype: real,
        bits,
        eps,
        epsneg: eps / 2.0,
        max,
        min: -max,
        smallest_normal,
        smallest_subnormal: smallest_normal * eps,
        resolution: 10f64.powi(-(precision as i32)),
        precision,
        nmant,
    })
}

/// The limits of an integer dtype.
///
/// ```
/// let i = kupfer::iinfo(kupfer::DType::I32)?;
/// assert_eq!((i.min, i.max), (i32::MIN as i128, i32::MAX as i128));
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn iinfo(dtype: DType) -> Result<IInfo> {
    let (bits, min, max) = match dtype {
        DType::I8 => (8, i128::from(i8::MIN), i128::from(i8::MAX)),
        DType::U8 => (8, 0, i128::from(u8::MAX)),
        DType::I16 => (16, i128::from(i16::MIN), i128::from(i16::MAX)),
        DType::U16 => (16, 0, i128::from(u16::MAX)),
        DType::I32 => (32, i128::from(i32::MIN), i128::from(i32::MAX)),
        DType::U32 => (32, 0, i128::from(u32::MAX)),
        DType::I64 => (64, i128::from(i64::MIN), i128::from(i64::MAX)),
        DType::U64 => (64, 0, i128::from(u64::MAX)),
        d => return Err(Error::invalid(format!("Invalid integer data type '{d}'."))),
    };
    Ok(IInfo {
        dtype,
        bits,
        min,
        max,
    })
}
