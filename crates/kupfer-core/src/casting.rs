//! NumPy's casting rules: which dtype may become which under `casting='no'`, `'equiv'`,
//! `'safe'`, `'same_kind'` or `'unsafe'` (the `casting=` of ufuncs and `einsum`, and
//! `np.can_cast`).
//!
//! ```
//! use kupfer_core::casting::{can_cast, Casting};
//! use kupfer_core::DType;
//! assert!(can_cast(DType::I32, DType::F64, Casting::Safe));
//! assert!(!can_cast(DType::I32, DType::F32, Casting::Safe)); // float32 cannot hold every int32
//! assert!(can_cast(DType::F64, DType::F16, Casting::SameKind)); // a float stays a float
//! assert!(!can_cast(DType::F32, DType::I32, Casting::SameKind));
//! ```

use crate::dtype::{DType, Kind};
use crate::error::{Error, Result};
use crate::promote::WeakKind;

/// A casting rule, as NumPy names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Casting {
    /// `'no'`: the dtype must not change.
    No,
    /// `'equiv'`: byte-order changes only; kupfer arrays are native-endian, so as `No`.
    Equiv,
    /// `'safe'`: only casts that keep every value (int32 → float64, not int32 → float32).
    Safe,
    /// `'same_kind'`: safe casts, or casts within a kind (float64 → float32). The default of
    /// ufuncs.
    SameKind,
    /// `'unsafe'`: any cast.
    Unsafe,
}

impl Casting {
    /// The rule named `name` (`"no"`, `"equiv"`, `"safe"`, `"same_kind"`, `"unsafe"`).
    pub fn from_name(name: &str) -> Result<Casting> {
        Ok(match name {
            "no" => Casting::No,
            "equiv" => Casting::Equiv,
            "safe" => Casting::Safe,
            "same_kind" => Casting::SameKind,
            "unsafe" => Casting::Unsafe,
            other => {
                return Err(Error::InvalidArgument(format!(
                    "casting must be one of 'no', 'equiv', 'safe', 'same_kind', or 'unsafe', \
                     got '{other}'"
                )))
            }
        })
    }

    /// NumPy's name of the rule.
    pub fn name(self) -> &'static str {
        match self {
            Casting::No => "no",
            Casting::Equiv => "equiv",
            Casting::Safe => "safe",
            Casting::SameKind => "same_kind",
            Casting::Unsafe => "unsafe",
        }
    }
}

/// Rank of a dtype's kind for `same_kind`: NumPy orders `b < u < i < f < c`, and a cast may
/// go up (or stay) but not down, so uint32 → int32 is same-kind and int32 → uint32 is not.
fn kind_rank(d: DType) -> u8 {
    match d {
        DType::Bool => 0,
        DType::U8 | DType::U16 | DType::U32 | DType::U64 => 1,
        DType::I8 | DType::I16 | DType::I32 | DType::I64 => 2,
        DType::F16 | DType::F32 | DType::F64 => 3,
        DType::Complex64 | DType::Complex128 => 4,
    }
}

/// Whether every value of `from` is a value of `to`.
fn safe(from: DType, to: DType) -> bool {
    if from == to || from == DType::Bool {
        return true;
    }
    // Bits of a float's mantissa (with the implicit one): the integers it holds exactly.
    let mantissa = |d: DType| match d.real_part() {
        DType::F16 => 11,
        DType::F32 => 24,
        _ => 53,
    };
    match (from.kind(), to.kind()) {
        (Kind::Int, Kind::Int) => match (from.is_signed_int(), to.is_signed_int()) {
            (true, false) => false,
            (false, true) => to.bits() > from.bits(),
            _ => to.bits() >= from.bits(),
        },
        // NumPy counts int64 → float64 as safe, so compare against 53 bits leniently: any
        // integer of at most 64 bits goes to float64, int32 and uint32 to nothing smaller.
        (Kind::Int, Kind::Float | Kind::Complex) => {
            mantissa(to) == 53 || mantissa(to) > from.bits()
        }
        (Kind::Float, Kind::Float) => to.bits() >= from.bits(),
        (Kind::Float, Kind::Complex) => to.real_part().bits() >= from.bits(),
        (Kind::Complex, Kind::Complex) => to.bits() >= from.bits(),
        _ => false,
    }
}

/// Whether an array of dtype `from` may be cast to `to` under `casting` (NumPy's
/// `np.can_cast(from, to, casting)`).
pub fn can_cast(from: DType, to: DType, casting: Casting) -> bool {
    match casting {
        Casting::No | Casting::Equiv => from == to,
        Casting::Safe => safe(from, to),
        Casting::SameKind => safe(from, to) || kind_rank(from) <= kind_rank(to),
        Casting::Unsafe => true,
    }
}

/// Whether a weak Python scalar of kind `from` may become `to` under `casting`: a Python
/// number casts to any dtype of its kind or above (`1.5` to float16, not to int32).
pub fn can_cast_weak(from: WeakKind, to: DType, casting: Casting) -> bool {
    let kind = match from {
        WeakKind::Bool => Kind::Bool,
        WeakKind::Int => Kind::Int,
        WeakKind::Float => Kind::Float,
        WeakKind::Complex => Kind::Complex,
    };
    casting == Casting::Unsafe || kind <= to.kind()
}

#[cfg(test)]
mod tests {
    use super::*;
    use DType::*;

    const ALL: [DType; 14] = DType::ALL;

    /// The targets NumPy 2.4's `np.can_cast(from, to, rule)` allows, row by row (generated
    /// from NumPy).
    fn numpy(from: DType, rule: Casting) -> Vec<DType> {
        match (rule, from) {
            (Casting::Safe, Bool) => vec![
                Bool, I8, U8, I16, U16, I32, U32, I64, U64, F16, F32, F64, Complex64, Complex128,
            ],
            (Casting::Safe, I8) => vec![I8, I16, I32, I64, F16, F32, F64, Complex64, Complex128],
            (Casting::Safe, U8) => vec![
                U8, I16, U16, I32, U32, I64, U64, F16, F32, F64, Complex64, Complex128,
            ],
            (Casting::Safe, I16) => vec![I16, I32, I64, F32, F64, Complex64, Complex128],
            (Casting::Safe, U16) => vec![U16, I32, U32, I64, U64, F32, F64, Complex64, Complex128],
            (Casting::Safe, I32) => vec![I32, I64, F64, Complex128],
            (Casting::Safe, U32) => vec![U32, I64, U64, F64, Complex128],
            (Casting::Safe, I64) => vec![I64, F64, Complex128],
            (Casting::Safe, U64) => vec![U64, F64, Complex128],
            (Casting::Safe, F16) => vec![F16, F32, F64, Complex64, Complex128],
            (Casting::Safe, F32) => vec![F32, F64, Complex64, Complex128],
            (Casting::Safe, F64) => vec![F64, Complex128],
            (Casting::Safe, Complex64) => vec![Complex64, Complex128],
            (Casting::Safe, Complex128) => vec![Complex128],
            (Casting::SameKind, Bool) => vec![
                Bool, I8, U8, I16, U16, I32, U32, I64, U64, F16, F32, F64, Complex64, Complex128,
            ],
            (Casting::SameKind, I8) => {
                vec![I8, I16, I32, I64, F16, F32, F64, Complex64, Complex128]
            }
            (Casting::SameKind, U8) => vec![
                I8, U8, I16, U16, I32, U32, I64, U64, F16, F32, F64, Complex64, Complex128,
            ],
            (Casting::SameKind, I16) => {
                vec![I8, I16, I32, I64, F16, F32, F64, Complex64, Complex128]
            }
            (Casting::SameKind, U16) => vec![
                I8, U8, I16, U16, I32, U32, I64, U64, F16, F32, F64, Complex64, Complex128,
            ],
            (Casting::SameKind, I32) => {
                vec![I8, I16, I32, I64, F16, F32, F64, Complex64, Complex128]
            }
            (Casting::SameKind, U32) => vec![
                I8, U8, I16, U16, I32, U32, I64, U64, F16, F32, F64, Complex64, Complex128,
            ],
            (Casting::SameKind, I64) => {
                vec![I8, I16, I32, I64, F16, F32, F64, Complex64, Complex128]
            }
            (Casting::SameKind, U64) => vec![
                I8, U8, I16, U16, I32, U32, I64, U64, F16, F32, F64, Complex64, Complex128,
            ],
            (Casting::SameKind, F16) => vec![F16, F32, F64, Complex64, Complex128],
            (Casting::SameKind, F32) => vec![F16, F32, F64, Complex64, Complex128],
            (Casting::SameKind, F64) => vec![F16, F32, F64, Complex64, Complex128],
            (Casting::SameKind, Complex64) => vec![Complex64, Complex128],
            (Casting::SameKind, Complex128) => vec![Complex64, Complex128],
            _ => unreachable!("only safe and same_kind are tabulated"),
        }
    }

    #[test]
    fn safe_and_same_kind_match_numpy() {
        for rule in [Casting::Safe, Casting::SameKind] {
            for from in ALL {
                let got: Vec<DType> = ALL
                    .into_iter()
                    .filter(|&t| can_cast(from, t, rule))
                    .collect();
                let mut want = numpy(from, rule);
                want.sort();
                assert_eq!(got, want, "{from:?} under {rule:?}");
            }
        }
    }

    #[test]
    fn no_and_unsafe() {
        for from in ALL {
            for to in ALL {
                assert_eq!(can_cast(from, to, Casting::No), from == to);
                assert!(can_cast(from, to, Casting::Unsafe));
            }
        }
    }

    #[test]
    fn weak_scalars_cast_within_or_above_their_kind() {
        assert!(can_cast_weak(WeakKind::Int, I32, Casting::SameKind));
        assert!(can_cast_weak(WeakKind::Float, F16, Casting::SameKind));
        assert!(!can_cast_weak(WeakKind::Float, I32, Casting::SameKind));
        assert!(!can_cast_weak(WeakKind::Complex, F64, Casting::Safe));
        assert!(can_cast_weak(WeakKind::Complex, F64, Casting::Unsafe));
    }

    #[test]
    fn names_round_trip() {
        for c in [
            Casting::No,
            Casting::Equiv,
            Casting::Safe,
            Casting::SameKind,
            Casting::Unsafe,
        ] {
            assert_eq!(Casting::from_name(c.name()).unwrap(), c);
        }
        assert!(Casting::from_name("sometimes").is_err());
    }
}
