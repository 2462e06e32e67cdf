//! Element types and their names, sizes and WGSL representations.

use crate::error::{Error, Result};
use std::fmt;

/// The element type of an array.
///
/// Storage on the GPU: `Bool` is one `u32` per element (WGSL has no byte-addressed storage).
/// A materialised `int8`/`uint8` array is packed four elements to a 32-bit word and
/// `int16`/`uint16` two (little-endian: NumPy's bytes, see [`crate::packing`]); packed buffers
/// are never written after they are made, so no kernel writes part of a word. Kernels compute
/// on the small integers as one sign- or zero-extended 32-bit word per element (`i32`/`u32`,
/// [`DType::gpu_size`] and [`DType::wgsl_storage`] describe that word form): the fused
/// elementwise kernel extracts them from the packed words, other families read an unpacked
/// copy, and a family that writes into an array turns its storage into words. Every result
/// is wrapped back into the dtype's range (NumPy's modular arithmetic). Every other dtype is
/// stored as its own WGSL type (`Complex64` as `vec2<f32>`). On the host and in `.npy` files
/// every dtype has NumPy's size (`Bool` one byte).
///
/// ```
/// use kupfer_core::DType;
/// assert_eq!(DType::from_name("float32").unwrap(), DType::F32);
/// assert_eq!(DType::from_name("uint8").unwrap(), DType::U8);
/// assert_eq!(DType::from_name("uint64").unwrap(), DType::U64);
/// assert_eq!(DType::F16.name(), "float16");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// `bool`.
    Bool,
    /// `int8`: packed four to a word on the GPU, computed on as `i32`.
    I8,
    /// `uint8`: packed four to a word on the GPU, computed on as `u32`.
    U8,
    /// `int16`: packed two to a word on the GPU, computed on as `i32`.
    I16,
    /// `uint16`: packed two to a word on the GPU, computed on as `u32`.
    U16,
    /// `int32`.
    I32,
    /// `uint32`.
    U32,
    /// `int64` (adapters with SHADER_INT64).
    I64,
    /// `uint64` (adapters with SHADER_INT64).
    U64,
    /// `float16` (adapters with SHADER_F16).
    F16,
    /// `float32`.
    F32,
    /// `float64` (adapters with SHADER_F64).
    F64,
    /// `complex64`: two `float32`.
    Complex64,
    /// `complex128`: two `float64` (adapters with SHADER_F64).
    Complex128,
}

/// The NumPy kind of a dtype, in promotion order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// `b`
    Bool,
    /// `i` and `u`
    Int,
    /// `f`
    Float,
    /// `c`
    Complex,
}

impl DType {
    /// Every dtype kupfer knows.
    pub const ALL: [DType; 14] = [
        DType::Bool,
        DType::I8,
        DType::U8,
        DType::I16,
        DType::U16,
        DType::I32,
        DType::U32,
        DType::I64,
        DType::U64,
        DType::F16,
        DType::F32,
        DType::F64,
        DType::Complex64,
        DType::Complex128,
    ];

    /// NumPy's name: `"float32"`, `"bool"`, ...
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I8 => "int8",
            DType::U8 => "uint8",
            DType::I16 => "int16",
            DType::U16 => "uint16",
            DType::I32 => "int32",
            DType::U32 => "uint32",
            DType::I64 => "int64",
            DType::U64 => "uint64",
            DType::F16 => "float16",
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::Complex64 => "complex64",
            DType::Complex128 => "complex128",
        }
    }

    /// Parses a NumPy dtype name or type code (`"float32"`, `"f4"`, `"<f4"`, `"int"`, `"bool"`,
    /// `"complex64"`, `"c8"`, ...). Python's `float`/`int`/`complex` map to 64-bit types as in
    /// NumPy.
    pub fn from_name(name: &str) -> Result<DType> {
        let n = name.trim().trim_start_matches(['<', '=', '|']);
        let n = n.strip_prefix("np.").unwrap_or(n);
        let n = n.strip_prefix("numpy.").unwrap_or(n);
        Ok(match n {
            "bool" | "bool_" | "?" | "b1" => DType::Bool,
            "int8" | "i1" | "byte" | "b" => DType::I8,
            "uint8" | "u1" | "ubyte" | "B" => DType::U8,
            "int16" | "i2" | "short" | "h" => DType::I16,
            "uint16" | "u2" | "ushort" | "H" => DType::U16,
            "int32" | "i4" | "intc" => DType::I32,
            "uint32" | "u4" | "uintc" => DType::U32,
            "int64" | "i8" | "int" | "int_" | "intp" | "long" | "longlong" | "q" | "l" | "p" => {
                DType::I64
            }
            // NumPy 2 on Linux: `uint` is `uintp`, and `L` (C unsigned long) is 64 bits.
            "uint64" | "u8" | "uint" | "uintp" | "ulong" | "ulonglong" | "Q" | "L" | "P" => {
                DType::U64
            }
            "float16" | "f2" | "half" | "e" => DType::F16,
            "float32" | "f4" | "single" | "f" => DType::F32,
            "float64" | "f8" | "float" | "double" | "d" | "float_" => DType::F64,
            "complex64" | "c8" | "csingle" | "F" => DType::Complex64,
            "complex128" | "c16" | "complex" | "cdouble" | "complex_" | "D" => DType::Complex128,
            _ => {
                return Err(Error::unsupported(format!(
                    "dtype '{name}' (kupfer has bool, int8, uint8, int16, uint16, int32, uint32, \
                     int64, uint64, float16, float32, float64, complex64, complex128)"
                )))
            }
        })
    }

    /// The promotion kind.
    pub fn kind(self) -> Kind {
        match self {
            DType::Bool => Kind::Bool,
            DType::I8
            | DType::U8
            | DType::I16
            | DType::U16
            | DType::I32
            | DType::U32
            | DType::I64
            | DType::U64 => Kind::Int,
            DType::F16 | DType::F32 | DType::F64 => Kind::Float,
            DType::Complex64 | DType::Complex128 => Kind::Complex,
        }
    }

    /// Bytes per element in host memory and in `.npy` files.
    pub fn host_size(self) -> usize {
        match self {
            DType::Bool | DType::I8 | DType::U8 => 1,
            DType::F16 | DType::I16 | DType::U16 => 2,
            DType::I32 | DType::U32 | DType::F32 => 4,
            DType::I64 | DType::U64 | DType::F64 | DType::Complex64 => 8,
            DType::Complex128 => 16,
        }
    }

    /// Bytes per element in the word form kernels compute on (4 for bool and the small
    /// integers, whose arrays at rest are packed: see the type's storage note).
    pub fn gpu_size(self) -> usize {
        match self {
            DType::Bool | DType::I8 | DType::U8 | DType::I16 | DType::U16 => 4,
            d => d.host_size(),
        }
    }

    /// The WGSL type that stores one element.
    pub fn wgsl_storage(self) -> &'static str {
        match self {
            DType::Bool | DType::U8 | DType::U16 | DType::U32 => "u32",
            DType::I8 | DType::I16 | DType::I32 => "i32",
            DType::I64 => "i64",
            DType::U64 => "u64",
            DType::F16 => "f16",
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::Complex64 => "vec2<f32>",
            DType::Complex128 => "vec2<f64>",
        }
    }

    /// The WGSL type of a value of this dtype inside a kernel.
    pub fn wgsl_value(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            d => d.wgsl_storage(),
        }
    }

    /// True for float16/32/64.
    pub fn is_float(self) -> bool {
        self.kind() == Kind::Float
    }

    /// True for the integer dtypes (not bool).
    pub fn is_int(self) -> bool {
        self.kind() == Kind::Int
    }

    /// True for the signed integer dtypes.
    pub fn is_signed_int(self) -> bool {
        matches!(self, DType::I8 | DType::I16 | DType::I32 | DType::I64)
    }

    /// True for the integers narrower than 32 bits (int8, uint8, int16, uint16), which the GPU
    /// holds widened to one 32-bit word per element.
    pub fn is_small_int(self) -> bool {
        matches!(self, DType::I8 | DType::U8 | DType::I16 | DType::U16)
    }

    /// The dtype kernels compute a value of this dtype in: int32 for int8/int16, uint32 for
    /// uint8/uint16 (their results are then wrapped back, see [`DType::wrap_expr`]); the dtype
    /// itself otherwise.
    ///
    /// ```
    /// use kupfer_core::DType;
    /// assert_eq!(DType::U8.compute(), DType::U32);
    /// assert_eq!(DType::F32.compute(), DType::F32);
    /// ```
    pub fn compute(self) -> DType {
        match self {
            DType::I8 | DType::I16 => DType::I32,
            DType::U8 | DType::U16 => DType::U32,
            d => d,
        }
    }

    /// The WGSL expression wrapping the 32-bit value `x` (of [`DType::compute`]'s type) into
    /// this small integer dtype's range, as NumPy's modular arithmetic does (`uint8`: `x & 255`;
    /// `int8`: the low 8 bits sign-extended). Other dtypes return `x` unchanged.
    ///
    /// ```
    /// use kupfer_core::DType;
    /// assert_eq!(DType::U8.wrap_expr("v"), "((v) & 255u)");
    /// assert_eq!(DType::I32.wrap_expr("v"), "v");
    /// ```
    pub fn wrap_expr(self, x: &str) -> String {
        match self {
            DType::U8 => format!("(({x}) & 255u)"),
            DType::U16 => format!("(({x}) & 65535u)"),
            DType::I8 => format!("(bitcast<i32>(bitcast<u32>({x}) << 24u) >> 24u)"),
            DType::I16 => format!("(bitcast<i32>(bitcast<u32>({x}) << 16u) >> 16u)"),
            _ => x.to_string(),
        }
    }

    /// The range of an integer dtype as (min, max); `None` for other dtypes.
    pub fn int_range(self) -> Option<(i128, i128)> {
        Some(match self {
            DType::I8 => (i8::MIN.into(), i8::MAX.into()),
            DType::U8 => (0, u8::MAX.into()),
            DType::I16 => (i16::MIN.into(), i16::MAX.into()),
            DType::U16 => (0, u16::MAX.into()),
            DType::I32 => (i32::MIN.into(), i32::MAX.into()),
            DType::U32 => (0, u32::MAX.into()),
            DType::I64 => (i64::MIN.into(), i64::MAX.into()),
            DType::U64 => (0, u64::MAX.into()),
            _ => return None,
        })
    }

    /// True for complex dtypes.
    pub fn is_complex(self) -> bool {
        self.kind() == Kind::Complex
    }

    /// True for 64-bit dtypes (those needing SHADER_F64 / SHADER_INT64): int64, uint64, float64
    /// and complex128 (two float64). complex64 is two 32-bit floats and does not count.
    pub fn is_64bit(self) -> bool {
        matches!(
            self,
            DType::I64 | DType::U64 | DType::F64 | DType::Complex128
        )
    }

    /// The real dtype of one component: float32 for complex64, float64 for complex128, the
    /// dtype itself for every real dtype (NumPy's `x.real.dtype`).
    ///
    /// ```
    /// use kupfer_core::DType;
    /// assert_eq!(DType::Complex128.real_part(), DType::F64);
    /// assert_eq!(DType::I32.real_part(), DType::I32);
    /// ```
    pub fn real_part(self) -> DType {
        match self {
            DType::Complex64 => DType::F32,
            DType::Complex128 => DType::F64,
            d => d,
        }
    }

    /// The complex dtype whose components are this float dtype's precision: complex128 for
    /// float64, complex64 for every other dtype (kupfer's 32-bit rule: nothing widens to
    /// 64 bits implicitly).
    pub fn complex_of(self) -> DType {
        match self {
            DType::F64 | DType::I64 | DType::U64 | DType::Complex128 => DType::Complex128,
            _ => DType::Complex64,
        }
    }

    /// Bits of one (real) component, as NumPy's itemsize*8 for real types.
    pub fn bits(self) -> u32 {
        match self {
            DType::Bool | DType::I8 | DType::U8 => 8,
            DType::F16 | DType::I16 | DType::U16 => 16,
            DType::I32 | DType::U32 | DType::F32 | DType::Complex64 => 32,
            DType::I64 | DType::U64 | DType::F64 | DType::Complex128 => 64,
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for DType {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        DType::from_name(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for d in DType::ALL {
            assert_eq!(DType::from_name(d.name()).unwrap(), d);
        }
        assert_eq!(DType::from_name("<f8").unwrap(), DType::F64);
        assert_eq!(DType::from_name("np.float16").unwrap(), DType::F16);
        assert_eq!(DType::from_name("i1").unwrap(), DType::I8);
        for name in [
            "uint64",
            "u8",
            "<u8",
            "uint",
            "uintp",
            "ulonglong",
            "Q",
            "L",
            "P",
        ] {
            assert_eq!(DType::from_name(name).unwrap(), DType::U64, "{name}");
        }
        for name in ["q", "l", "longlong", "p"] {
            assert_eq!(DType::from_name(name).unwrap(), DType::I64, "{name}");
        }
        assert!(DType::from_name("uint128").is_err());
    }

    #[test]
    fn small_ints_are_one_word_each() {
        for d in [DType::I8, DType::U8, DType::I16, DType::U16] {
            assert!(d.is_small_int() && d.is_int());
            assert_eq!(d.gpu_size(), 4);
            assert_eq!(d.wgsl_storage(), d.compute().wgsl_storage());
        }
        assert!(DType::I8.is_signed_int() && !DType::U16.is_signed_int());
    }
}
