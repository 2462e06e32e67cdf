//! Type promotion: NumPy 2 rules (NEP 50, Python scalars are weak) with one documented
//! exception — 32-bit operands are never widened to 64 bits implicitly.
//!
//! The rule, in one sentence: take NumPy 2's result dtype; if it is 64-bit (int64, float64,
//! complex128) and no operand is 64-bit, use its 32-bit counterpart (int32, float32,
//! complex64). So `int32 + float32 → float32`, `int32 / int32 → float32`,
//! `int32 + uint32 → int32`, but `int64 + float32 → float64` as in NumPy.
//!
//! | operands            | NumPy 2   | kupfer    |
//! |---------------------|-----------|-----------|
//! | int32 + uint32      | int64     | int32     |
//! | int8 + uint8        | int16     | int16     |
//! | int8 + uint32       | int64     | int32     |
//! | uint8 + float16     | float16   | float16   |
//! | int16 + float16     | float32   | float32   |
//! | uint8 / uint8       | float64   | float32   |
//! | sin(uint8)          | float16   | float16   |
//! | sin(int16)          | float32   | float32   |
//! | uint8 array + 300   | OverflowError | error |
//! | int32 + float16     | float64   | float32   |
//! | int32 + float32     | float64   | float32   |
//! | uint32 + float32    | float64   | float32   |
//! | int64 + float32     | float64   | float64   |
//! | int32 / int32       | float64   | float32   |
//! | sin(int32)          | float64   | float32   |
//! | sin(bool)           | float16   | float16   |
//! | int32 + complex64   | complex128| complex64 |
//! | bool array + 1      | int64     | int32     |
//! | int32 array + 1.5   | float64   | float32   |
//! | int64 array + 1.5   | float64   | float64   |
//! | float16 array + 1.5 | float16   | float16   |
//! | float32 array + 1j  | complex64 | complex64 |
//! | uint64 + int8..int64 | float64  | float64   |
//! | uint64 + uint8..uint32 | uint64 | uint64    |
//! | uint64 + float16/32 | float64   | float64   |
//! | uint64 + complex64  | complex128| complex128|
//! | uint64 array + 1    | uint64    | uint64    |
//! | uint64 array + -1 or + 2**64 | OverflowError | error |
//! | int64 array + 2**63 | OverflowError | error |
//!
//! uint64 with a signed integer has no common integer type (NumPy's float64; uint64 is 64-bit,
//! so kupfer's 32-bit rule does not apply). A Python int beside a uint64 array must lie in
//! [0, 2**64); comparisons are the exception, as in NumPy: `a > -1` and `a == 2**64` compare
//! the exact values.
//!
//! complex128 results follow the same rule: complex64 + float64 → complex128 as in NumPy, but
//! complex64 + int32 → complex64.

use crate::dtype::{DType, Kind};
use crate::error::Result;

/// The kind of a weak (Python) scalar operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WeakKind {
    /// Python `bool`.
    Bool,
    /// Python `int`.
    Int,
    /// Python `float`.
    Float,
    /// Python `complex`.
    Complex,
}

impl WeakKind {
    fn kind(self) -> Kind {
        match self {
            WeakKind::Bool => Kind::Bool,
            WeakKind::Int => Kind::Int,
            WeakKind::Float => Kind::Float,
            WeakKind::Complex => Kind::Complex,
        }
    }
}

/// NumPy's common dtype of two arrays, without kupfer's 32-bit exception (int32 with
/// float32 is float64 here): the loop a `ufunc.at` resolves, where only the destination's
/// dtype is visible in the result.
///
/// ```
/// use kupfer_core::{promote::numpy_result_type, DType};
/// assert_eq!(numpy_result_type(DType::I32, DType::F32), DType::F64);
/// assert_eq!(numpy_result_type(DType::U8, DType::I64), DType::I64);
/// ```
pub fn numpy_result_type(a: DType, b: DType) -> DType {
    numpy_pair(a, b)
}

fn numpy_pair(a: DType, b: DType) -> DType {
    use DType::*;
    if a == b {
        return a;
    }
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    match (lo.kind(), hi.kind()) {
        (Kind::Bool, _) => hi,
        (Kind::Int, Kind::Int) => int_pair(lo, hi),
        (Kind::Int, Kind::Float) => float_pair(int_float(lo), hi),
        (Kind::Int, Kind::Complex) => complex_of_part(float_pair(int_float(lo), hi.real_part())),
        (Kind::Float, Kind::Float) => float_pair(lo, hi),
        (Kind::Float, Kind::Complex) => complex_of_part(float_pair(lo, hi.real_part())),
        _ => {
            if lo == Complex128 || hi == Complex128 {
                Complex128
            } else {
                Complex64
            }
        }
    }
}

/// NumPy's common type of two integer dtypes: the wider of two of one signedness; a signed
/// type wider than the unsigned one; otherwise the signed type of twice the unsigned width
/// (uint8 + int8 → int16, uint32 + int32 → int64), and float64 for uint64 with any signed
/// type.
fn int_pair(a: DType, b: DType) -> DType {
    use DType::*;
    let (signed, unsigned) = match (a.is_signed_int(), b.is_signed_int()) {
        (true, true) | (false, false) => return if a.bits() >= b.bits() { a } else { b },
        (true, false) => (a, b),
        (false, true) => (b, a),
    };
    if signed.bits() > unsigned.bits() {
        return signed;
    }
    match unsigned {
        U8 => I16,
        U16 => I32,
        U32 => I64,
        // No integer holds both uint64 and int64: NumPy's answer is float64.
        _ => F64,
    }
}

/// The smallest float that holds every value of an integer dtype: float16 for 8 bits,
/// float32 for 16, float64 beyond.
fn int_float(d: DType) -> DType {
    match d.bits() {
        0..=8 => DType::F16,
        9..=16 => DType::F32,
        _ => DType::F64,
    }
}

fn float_pair(a: DType, b: DType) -> DType {
    if a.bits() >= b.bits() {
        a
    } else {
        b
    }
}

fn complex_of_part(part: DType) -> DType {
    if part == DType::F64 {
        DType::Complex128
    } else {
        DType::Complex64
    }
}

/// NumPy's result `d` with kupfer's exception: a 64-bit result of operands that are all
/// 32-bit (or narrower) is its 32-bit counterpart.
fn demote(d: DType, any_64bit: bool) -> DType {
    if !d.is_64bit() || any_64bit {
        return d;
    }
    match d {
        DType::I64 => DType::I32,
        DType::Complex128 => DType::Complex64,
        _ => DType::F32,
    }
}

/// Result dtype of a binary arithmetic op on two arrays.
///
/// ```
/// use kupfer_core::{promote::result_type, DType};
/// assert_eq!(result_type(DType::I32, DType::F32).unwrap(), DType::F32);
/// assert_eq!(result_type(DType::I64, DType::F32).unwrap(), DType::F64);
/// ```
pub fn result_type(a: DType, b: DType) -> Result<DType> {
    Ok(demote(numpy_pair(a, b), a.is_64bit() || b.is_64bit()))
}

/// Result dtype of an array of dtype `a` combined with a weak Python scalar.
pub fn result_type_weak(a: DType, s: WeakKind) -> Result<DType> {
    if s.kind() <= a.kind() {
        return Ok(a);
    }
    let wide = match (a.kind(), s) {
        (Kind::Bool, WeakKind::Int) => DType::I64,
        (Kind::Float, WeakKind::Complex) => a.complex_of(),
        (_, WeakKind::Float) => DType::F64,
        (_, WeakKind::Complex) => DType::Complex128,
        _ => a,
    };
    Ok(demote(wide, a.is_64bit()))
}

/// Dtype of a float-valued unary function (sin, sqrt, exp, ...) of `a`: NumPy's smallest safe
/// float (bool → float16, int32 → float64 → demoted to float32, int64 → float64).
pub fn float_result(a: DType) -> DType {
    match a {
        DType::Bool | DType::I8 | DType::U8 => DType::F16,
        DType::I16 | DType::U16 | DType::I32 | DType::U32 => DType::F32,
        DType::I64 | DType::U64 => DType::F64,
        d => d,
    }
}

/// Dtype of true division of `a` by `b` (NumPy: integers divide to float64, then demoted).
pub fn true_divide_result(a: DType, b: DType) -> Result<DType> {
    let common = result_type(a, b)?;
    Ok(match common.kind() {
        Kind::Bool | Kind::Int => {
            if common.is_64bit() {
                DType::F64
            } else {
                DType::F32
            }
        }
        _ => common,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use DType::*;

    #[test]
    fn pairs_are_symmetric() {
        for a in DType::ALL {
            for b in DType::ALL {
                assert_eq!(result_type(a, b).ok(), result_type(b, a).ok(), "{a} {b}");
            }
        }
    }

    #[test]
    fn no_implicit_widening() {
        assert_eq!(result_type(I32, U32).unwrap(), I32);
        assert_eq!(result_type(I32, F32).unwrap(), F32);
        assert_eq!(result_type(U32, F16).unwrap(), F32);
        assert_eq!(result_type(I64, F32).unwrap(), F64);
        assert_eq!(result_type(I32, Complex64).unwrap(), Complex64);
        assert_eq!(result_type(F64, Complex64).unwrap(), Complex128);
        assert_eq!(result_type(I64, Complex64).unwrap(), Complex128);
        assert_eq!(result_type(F32, Complex128).unwrap(), Complex128);
        assert_eq!(true_divide_result(I32, I32).unwrap(), F32);
        assert_eq!(true_divide_result(I64, I32).unwrap(), F64);
    }

    #[test]
    fn small_integers_follow_numpy() {
        assert_eq!(result_type(I8, U8).unwrap(), I16);
        assert_eq!(result_type(I8, U16).unwrap(), I32);
        assert_eq!(result_type(U8, I16).unwrap(), I16);
        assert_eq!(result_type(U8, U16).unwrap(), U16);
        assert_eq!(result_type(I16, U32).unwrap(), I32);
        assert_eq!(result_type(U8, I64).unwrap(), I64);
        assert_eq!(result_type(U8, F16).unwrap(), F16);
        assert_eq!(result_type(I16, F16).unwrap(), F32);
        assert_eq!(result_type(U16, Complex64).unwrap(), Complex64);
        assert_eq!(result_type(Bool, I8).unwrap(), I8);
        assert_eq!(true_divide_result(U8, U8).unwrap(), F32);
        assert_eq!(float_result(I8), F16);
        assert_eq!(float_result(U16), F32);
        assert_eq!(result_type_weak(U8, WeakKind::Int).unwrap(), U8);
        assert_eq!(result_type_weak(U8, WeakKind::Float).unwrap(), F32);
    }

    #[test]
    fn uint64_follows_numpy() {
        for signed in [I8, I16, I32, I64] {
            assert_eq!(result_type(U64, signed).unwrap(), F64, "{signed}");
        }
        for unsigned in [Bool, U8, U16, U32, U64] {
            assert_eq!(result_type(U64, unsigned).unwrap(), U64, "{unsigned}");
        }
        assert_eq!(result_type(U64, F16).unwrap(), F64);
        assert_eq!(result_type(U64, F32).unwrap(), F64);
        assert_eq!(result_type(U64, Complex64).unwrap(), Complex128);
        assert_eq!(result_type_weak(U64, WeakKind::Int).unwrap(), U64);
        assert_eq!(result_type_weak(U64, WeakKind::Float).unwrap(), F64);
        assert_eq!(
            result_type_weak(U64, WeakKind::Complex).unwrap(),
            Complex128
        );
        assert_eq!(true_divide_result(U64, U8).unwrap(), F64);
        assert_eq!(float_result(U64), F64);
    }

    #[test]
    fn weak_scalars() {
        assert_eq!(result_type_weak(F16, WeakKind::Float).unwrap(), F16);
        assert_eq!(result_type_weak(I32, WeakKind::Float).unwrap(), F32);
        assert_eq!(result_type_weak(I64, WeakKind::Float).unwrap(), F64);
        assert_eq!(result_type_weak(Bool, WeakKind::Int).unwrap(), I32);
        assert_eq!(result_type_weak(U32, WeakKind::Int).unwrap(), U32);
        assert_eq!(result_type_weak(F32, WeakKind::Complex).unwrap(), Complex64);
        assert_eq!(
            result_type_weak(F64, WeakKind::Complex).unwrap(),
            Complex128
        );
        assert_eq!(
            result_type_weak(I64, WeakKind::Complex).unwrap(),
            Complex128
        );
        assert_eq!(result_type_weak(I32, WeakKind::Complex).unwrap(), Complex64);
        assert_eq!(result_type_weak(Bool, WeakKind::Bool).unwrap(), Bool);
    }
}
