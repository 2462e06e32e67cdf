//! Python-style scalars (weak operands, NEP 50) and elementwise operands.

use crate::Array;
use kupfer_core::promote::WeakKind;
use kupfer_core::{DType, Error, Result};

/// A Python scalar: an operand whose dtype adapts to the array it meets (NEP 50 "weak").
///
/// ```no_run
/// # use kupfer as kp;
/// let x = kp::arange(0.0, 4.0, 1.0, Some(kp::DType::F32))?;
/// let y = kp::multiply(&x, 2.5)?; // stays float32
/// assert_eq!(y.dtype(), kp::DType::F32);
/// # Ok::<(), kp::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    /// Python `bool`.
    Bool(bool),
    /// Python `int` within `i64`.
    Int(i64),
    /// Python `int` outside `i64` (a uint64 from 2^63 up, `2**64`): Python ints are exact
    /// here up to 128 bits. Only such values take this form; [`Scalar::int`] picks the form.
    BigInt(i128),
    /// Python `float`.
    Float(f64),
    /// Python `complex`.
    Complex {
        /// Real part.
        re: f64,
        /// Imaginary part.
        im: f64,
    },
}

impl Scalar {
    /// The Python int `v`: [`Scalar::Int`] when it fits `i64`, else [`Scalar::BigInt`].
    ///
    /// ```
    /// # use kupfer::Scalar;
    /// assert_eq!(Scalar::int(5), Scalar::Int(5));
    /// assert_eq!(Scalar::int(1 << 63), Scalar::BigInt(1 << 63));
    /// ```
    pub fn int(v: i128) -> Scalar {
        i64::try_from(v).map_or(Scalar::BigInt(v), Scalar::Int)
    }

    /// The value of a Python int (or bool) as `i128`; `None` for floats and complex.
    pub fn as_i128(&self) -> Option<i128> {
        match *self {
            Scalar::Bool(b) => Some(i128::from(b)),
            Scalar::Int(i) => Some(i.into()),
            Scalar::BigInt(i) => Some(i),
            _ => None,
        }
    }

    /// The promotion kind.
    pub fn kind(&self) -> WeakKind {
        match self {
            Scalar::Bool(_) => WeakKind::Bool,
            Scalar::Int(_) | Scalar::BigInt(_) => WeakKind::Int,
            Scalar::Float(_) => WeakKind::Float,
            Scalar::Complex { .. } => WeakKind::Complex,
        }
    }

    /// The value as f64 (real part for complex; 1/0 for bool).
    pub fn as_f64(&self) -> f64 {
        match *self {
            Scalar::Bool(b) => f64::from(u8::from(b)),
            Scalar::Int(i) => i as f64,
            Scalar::BigInt(i) => i as f64,
            Scalar::Float(f) => f,
            Scalar::Complex { re, .. } => re,
        }
    }

    /// The dtype NumPy gives this scalar on its own on `device` (`np.asarray(5)`).
    pub fn default_dtype(&self, device: &crate::Device) -> DType {
        match self {
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int(_) => device.default_int(),
            // NumPy gives a Python int that only fits uint64 that dtype (`np.asarray(2**63)`).
            Scalar::BigInt(i) if u64::try_from(*i).is_ok() => DType::U64,
            Scalar::BigInt(_) => device.default_int(),
            Scalar::Float(_) => device.default_float(),
            Scalar::Complex { .. } => device.default_float().complex_of(),
        }
    }

    /// The value converted to `dtype`, as little-endian bytes of that dtype's uniform encoding
    /// (f16 as f32, bool as u32). Python ints that don't fit an integer dtype are an error, as
    /// in NumPy 2.
    pub fn encode(&self, dtype: DType) -> Result<Vec<u8>> {
        let v = *self;
        let int = |lo: i128, hi: i128| -> Result<i128> {
            match v {
                Scalar::Int(_) | Scalar::BigInt(_) => {
                    let i = v.as_i128().unwrap_or_default();
                    python_int_fits(i, dtype, lo, hi)?;
                    Ok(i)
                }
                Scalar::Bool(b) => Ok(i128::from(b)),
                Scalar::Float(f) => Ok(f as i128),
                Scalar::Complex { re, .. } => Ok(re as i128),
            }
        };
        Ok(match dtype {
            DType::Bool => {
                let b = match v {
                    Scalar::Bool(b) => b,
                    Scalar::Int(i) => i != 0,
                    Scalar::BigInt(i) => i != 0,
                    Scalar::Float(f) => f != 0.0,
                    Scalar::Complex { re, im } => re != 0.0 || im != 0.0,
                };
                u32::from(b).to_le_bytes().to_vec()
            }
            // The small integers travel as their 32-bit compute type.
            DType::I8 | DType::I16 => {
                let (lo, hi) = dtype.int_range().unwrap_or_default();
                (int(lo, hi)? as i32).to_le_bytes().to_vec()
            }
            DType::U8 | DType::U16 => {
                let (lo, hi) = dtype.int_range().unwrap_or_default();
                (int(lo, hi)? as u32).to_le_bytes().to_vec()
            }
            DType::I32 => (int(i32::MIN.into(), i32::MAX.into())? as i32)
                .to_le_bytes()
                .to_vec(),
            DType::U32 => (int(0, u32::MAX.into())? as u32).to_le_bytes().to_vec(),
            DType::I64 => (int(i64::MIN.into(), i64::MAX.into())? as i64)
                .to_le_bytes()
                .to_vec(),
            DType::U64 => (int(0, u64::MAX.into())? as u64).to_le_bytes().to_vec(),
            DType::F16 | DType::F32 => {
                let f = match dtype {
                    DType::F16 => f32::from(half::f16::from_f64(v.as_f64())),
                    _ => v.as_f64() as f32,
                };
                f.to_le_bytes().to_vec()
            }
            DType::F64 => v.as_f64().to_le_bytes().to_vec(),
            DType::Complex64 | DType::Complex128 => {
                let (re, im) = match v {
                    Scalar::Complex { re, im } => (re, im),
                    other => (other.as_f64(), 0.0),
                };
                if dtype == DType::Complex64 {
                    let mut b = (re as f32).to_le_bytes().to_vec();
                    b.extend_from_slice(&(im as f32).to_le_bytes());
                    b
                } else {
                    let mut b = re.to_le_bytes().to_vec();
                    b.extend_from_slice(&im.to_le_bytes());
                    b
                }
            }
        })
    }
}

/// NumPy 2's check of a Python int `i` converted to the integer dtype `dtype` of range
/// `lo..=hi`: an int that is no C `long` (for a signed dtype) or fits neither `long` nor
/// `unsigned long long` is CPython's overflow, any other out of range NumPy's.
fn python_int_fits(i: i128, dtype: DType, lo: i128, hi: i128) -> Result<()> {
    let long = i64::try_from(i).is_ok();
    let ulonglong = u64::try_from(i).is_ok();
    if !long && (!ulonglong || lo < 0) {
        return Err(Error::invalid("Python int too large to convert to C long"));
    }
    if i < lo || i > hi {
        return Err(Error::invalid(format!(
            "Python integer {i} out of bounds for {dtype}"
        )));
    }
    Ok(())
}

macro_rules! scalar_from {
    ($($t:ty => $v:ident as $c:ty),*) => {$(
        impl From<$t> for Scalar {
            fn from(x: $t) -> Self {
                Scalar::$v(x as $c)
            }
        }
        impl From<$t> for Operand {
            fn from(x: $t) -> Self {
                Operand::Scalar(Scalar::$v(x as $c))
            }
        }
    )*};
}
scalar_from!(f64 => Float as f64, f32 => Float as f64, i64 => Int as i64, i32 => Int as i64,
             u32 => Int as i64, usize => Int as i64, isize => Int as i64);

impl From<u64> for Scalar {
    fn from(x: u64) -> Self {
        Scalar::int(x.into())
    }
}

impl From<u64> for Operand {
    fn from(x: u64) -> Self {
        Operand::Scalar(x.into())
    }
}

impl From<bool> for Scalar {
    fn from(b: bool) -> Self {
        Scalar::Bool(b)
    }
}

impl From<bool> for Operand {
    fn from(b: bool) -> Self {
        Operand::Scalar(Scalar::Bool(b))
    }
}

/// An elementwise operand: an array or a Python scalar.
#[derive(Debug, Clone)]
pub enum Operand {
    /// An array.
    Array(Array),
    /// A weak Python scalar.
    Scalar(Scalar),
}

impl From<Array> for Operand {
    fn from(a: Array) -> Self {
        Operand::Array(a)
    }
}

impl From<&Array> for Operand {
    fn from(a: &Array) -> Self {
        Operand::Array(a.clone())
    }
}

impl From<Scalar> for Operand {
    fn from(s: Scalar) -> Self {
        Operand::Scalar(s)
    }
}
