//! Arithmetic on Python scalars (`bool`, `int`, `float`, `complex`) with Python's semantics,
//! computed on the host: `7 // 2 == 3`, `-7 % 3 == 2`, `2 ** -1 == 0.5`, `1 / 0` raises,
//! `True + True == 2`. Python ints are unbounded; kupfer eval's are exact up to 128 bits
//! ([`Scalar::Int`] within i64, [`Scalar::BigInt`] beyond) and overflow is an error rather
//! than a wrong answer.

use crate::ast::{BinOp, CmpOp, UnaryOp};
use kupfer::Scalar;
use std::cmp::Ordering;

/// Why a scalar operation failed: a Python `TypeError` or a value error (`ZeroDivisionError`,
/// `OverflowError`, `ValueError`).
#[derive(Debug, Clone, PartialEq)]
pub enum ScalarError {
    /// The operation does not apply to these types.
    Type(String),
    /// The operation applies but the values are out of its domain.
    Value(String),
}

type R = Result<Scalar, ScalarError>;

/// Python's type name of a scalar.
pub fn type_name(s: &Scalar) -> &'static str {
    match s {
        Scalar::Bool(_) => "bool",
        Scalar::Int(_) | Scalar::BigInt(_) => "int",
        Scalar::Float(_) => "float",
        Scalar::Complex { .. } => "complex",
    }
}

/// Python truthiness.
pub fn truthy(s: &Scalar) -> bool {
    match *s {
        Scalar::Bool(b) => b,
        Scalar::Int(i) => i != 0,
        Scalar::BigInt(i) => i != 0,
        Scalar::Float(f) => f != 0.0,
        Scalar::Complex { re, im } => re != 0.0 || im != 0.0,
    }
}

fn overflow() -> ScalarError {
    ScalarError::Value(
        "integer overflow: the result does not fit in 128 bits (kupfer eval's Python ints are \
         128-bit)"
            .into(),
    )
}

fn unsupported(op: &str, a: &Scalar, b: &Scalar) -> ScalarError {
    ScalarError::Type(format!(
        "unsupported operand type(s) for {op}: '{}' and '{}'",
        type_name(a),
        type_name(b)
    ))
}

/// The numeric rank of a scalar in Python's tower (bool < int < float < complex).
fn rank(s: &Scalar) -> u8 {
    match s {
        Scalar::Bool(_) => 0,
        Scalar::Int(_) | Scalar::BigInt(_) => 1,
        Scalar::Float(_) => 2,
        Scalar::Complex { .. } => 3,
    }
}

fn as_int(s: &Scalar) -> Option<i128> {
    s.as_i128()
}

fn as_complex(s: &Scalar) -> (f64, f64) {
    match *s {
        Scalar::Complex { re, im } => (re, im),
        other => (other.as_f64(), 0.0),
    }
}

/// Python's `float.__floordiv__` / `__mod__` (`divmod` with the remainder taking the sign
/// of the divisor).
fn float_divmod(x: f64, y: f64) -> (f64, f64) {
    let mut m = x % y;
    let mut div = (x - m) / y;
    if m != 0.0 {
        if (y < 0.0) != (m < 0.0) {
            m += y;
            div -= 1.0;
        }
    } else {
        m = 0.0f64.copysign(y);
    }
    let floordiv = if div != 0.0 {
        let mut f = div.floor();
        if div - f > 0.5 {
            f += 1.0;
        }
        f
    } else {
        0.0f64.copysign(x / y)
    };
    (floordiv, m)
}

fn cmul(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

/// Python's complex division (Smith's algorithm as CPython implements it).
fn cdiv(a: (f64, f64), b: (f64, f64)) -> Result<(f64, f64), ScalarError> {
    let (ar, ai) = a;
    let (br, bi) = b;
    let abs_br = br.abs();
    let abs_bi = bi.abs();
    if abs_br >= abs_bi {
        if abs_br == 0.0 {
            return Err(ScalarError::Value("division by zero".into()));
        }
        let ratio = bi / br;
        let denom = br + bi * ratio;
        Ok(((ar + ai * ratio) / denom, (ai - ar * ratio) / denom))
    } else if abs_bi >= abs_br {
        let ratio = br / bi;
        let denom = br * ratio + bi;
        Ok(((ar * ratio + ai) / denom, (ai * ratio - ar) / denom))
    } else {
        Ok((f64::NAN, f64::NAN))
    }
}

/// Python's `complex ** complex`.
fn cpow(a: (f64, f64), b: (f64, f64)) -> Result<(f64, f64), ScalarError> {
    if b == (0.0, 0.0) {
        return Ok((1.0, 0.0));
    }
    if a == (0.0, 0.0) {
        if b.1 != 0.0 || b.0 < 0.0 {
            return Err(ScalarError::Value(
                "zero to a negative or complex power".into(),
            ));
        }
        return Ok((0.0, 0.0));
    }
    // Small integral exponents by repeated squaring, as CPython does.
    if b.1 == 0.0 && b.0 == b.0.trunc() && b.0.abs() <= 100.0 {
        let n = b.0 as i64;
        let mut result = (1.0, 0.0);
        let mut base = a;
        let mut k = n.unsigned_abs();
        while k > 0 {
            if k & 1 == 1 {
                result = cmul(result, base);
            }
            base = cmul(base, base);
            k >>= 1;
        }
        return if n < 0 {
            cdiv((1.0, 0.0), result)
        } else {
            Ok(result)
        };
    }
    let vabs = a.0.hypot(a.1);
    let mut len = vabs.powf(b.0);
    let at = a.1.atan2(a.0);
    let mut phase = at * b.0;
    if b.1 != 0.0 {
        len /= (at * b.1).exp();
        phase += b.1 * vabs.ln();
    }
    Ok((len * phase.cos(), len * phase.sin()))
}

fn float_pow(x: f64, y: f64) -> R {
    if y == 0.0 {
        return Ok(Scalar::Float(1.0));
    }
    if x == 0.0 && y < 0.0 {
        return Err(ScalarError::Value(
            "0.0 cannot be raised to a negative power".into(),
        ));
    }
    if x < 0.0 && x.is_finite() && y.is_finite() && y != y.trunc() {
        // Python 3 gives a complex result here.
        let (re, im) = cpow((x, 0.0), (y, 0.0))?;
        return Ok(Scalar::Complex { re, im });
    }
    let r = x.powf(y);
    if r.is_infinite() && x.is_finite() && y.is_finite() {
        return Err(ScalarError::Value(
            "float power overflowed (numerical result out of range)".into(),
        ));
    }
    Ok(Scalar::Float(r))
}

fn int_pow(a: i128, b: i128) -> R {
    if b < 0 {
        return float_pow(a as f64, b as f64);
    }
    // 0, 1 and -1 take any exponent (only its parity matters).
    let e = match u32::try_from(b) {
        Ok(e) => e,
        Err(_) if matches!(a, -1..=1) => 2 - (b % 2) as u32,
        Err(_) => return Err(overflow()),
    };
    a.checked_pow(e).map(Scalar::int).ok_or_else(overflow)
}

/// `a op b` for two Python scalars.
pub fn binary(op: BinOp, a: Scalar, b: Scalar) -> R {
    use BinOp::*;
    let sym = op.symbol();
    match op {
        BitAnd | BitOr | BitXor => {
            if let (Scalar::Bool(x), Scalar::Bool(y)) = (a, b) {
                return Ok(Scalar::Bool(match op {
                    BitAnd => x & y,
                    BitOr => x | y,
                    _ => x ^ y,
                }));
            }
            let (Some(x), Some(y)) = (as_int(&a), as_int(&b)) else {
                return Err(unsupported(sym, &a, &b));
            };
            return Ok(Scalar::int(match op {
                BitAnd => x & y,
                BitOr => x | y,
                _ => x ^ y,
            }));
        }
        LShift | RShift => {
            let (Some(x), Some(y)) = (as_int(&a), as_int(&b)) else {
                return Err(unsupported(sym, &a, &b));
            };
            if y < 0 {
                return Err(ScalarError::Value("negative shift count".into()));
            }
            if op == RShift {
                return Ok(Scalar::int(if y >= 128 {
                    if x < 0 {
                        -1
                    } else {
                        0
                    }
                } else {
                    x >> y
                }));
            }
            if x == 0 {
                return Ok(Scalar::Int(0));
            }
            if y >= 128 {
                return Err(overflow());
            }
            let r = x << y;
            return if r >> y == x {
                Ok(Scalar::int(r))
            } else {
                Err(overflow())
            };
        }
        MatMul => return Err(unsupported(sym, &a, &b)),
        _ => {}
    }
    let kind = rank(&a).max(rank(&b));
    if kind <= 1 {
        let (x, y) = (as_int(&a).unwrap_or(0), as_int(&b).unwrap_or(0));
        let zero_div = || ScalarError::Value("integer division or modulo by zero".into());
        return match op {
            Add => x.checked_add(y).map(Scalar::int).ok_or_else(overflow),
            Sub => x.checked_sub(y).map(Scalar::int).ok_or_else(overflow),
            Mul => x.checked_mul(y).map(Scalar::int).ok_or_else(overflow),
            Div => {
                if y == 0 {
                    Err(ScalarError::Value("division by zero".into()))
                } else {
                    Ok(Scalar::Float(x as f64 / y as f64))
                }
            }
            FloorDiv => {
                if y == 0 {
                    return Err(zero_div());
                }
                let q = x.checked_div(y).ok_or_else(overflow)?;
                Ok(Scalar::int(if (x % y != 0) && ((x < 0) != (y < 0)) {
                    q - 1
                } else {
                    q
                }))
            }
            Mod => {
                if y == 0 {
                    return Err(zero_div());
                }
                let r = x.checked_rem(y).unwrap_or(0);
                Ok(Scalar::int(if r != 0 && ((r < 0) != (y < 0)) {
                    r + y
                } else {
                    r
                }))
            }
            Pow => int_pow(x, y),
            _ => Err(unsupported(sym, &a, &b)),
        };
    }
    if kind == 2 {
        let (x, y) = (a.as_f64(), b.as_f64());
        let zero = |what: &str| ScalarError::Value(format!("float {what} by zero"));
        return match op {
            Add => Ok(Scalar::Float(x + y)),
            Sub => Ok(Scalar::Float(x - y)),
            Mul => Ok(Scalar::Float(x * y)),
            Div => {
                if y == 0.0 {
                    Err(zero("division"))
                } else {
                    Ok(Scalar::Float(x / y))
                }
            }
            FloorDiv => {
                if y == 0.0 {
                    Err(zero("floor division"))
                } else {
                    Ok(Scalar::Float(float_divmod(x, y).0))
                }
            }
            Mod => {
                if y == 0.0 {
                    Err(zero("modulo"))
                } else {
                    Ok(Scalar::Float(float_divmod(x, y).1))
                }
            }
            Pow => float_pow(x, y),
            _ => Err(unsupported(sym, &a, &b)),
        };
    }
    let (x, y) = (as_complex(&a), as_complex(&b));
    let c = |(re, im): (f64, f64)| Scalar::Complex { re, im };
    match op {
        Add => Ok(c((x.0 + y.0, x.1 + y.1))),
        Sub => Ok(c((x.0 - y.0, x.1 - y.1))),
        Mul => Ok(c(cmul(x, y))),
        Div => cdiv(x, y)
            .map(c)
            .map_err(|_| ScalarError::Value("complex division by zero".into())),
        Pow => cpow(x, y).map(c),
        _ => Err(unsupported(sym, &a, &b)),
    }
}

/// Compares an int with a float exactly, as Python does.
fn cmp_int_float(i: i128, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    // 2^127: every i128 is below it, and every float below it (and at least -2^127) is exact
    // as an i128 once floored.
    const TWO_127: f64 = 1.701_411_834_604_692_3e38;
    if f >= TWO_127 {
        return Some(Ordering::Less);
    }
    if f < -TWO_127 {
        return Some(Ordering::Greater);
    }
    let fl = f.floor();
    match i.cmp(&(fl as i128)) {
        Ordering::Equal if f > fl => Some(Ordering::Less),
        o => Some(o),
    }
}

fn scalar_cmp(a: &Scalar, b: &Scalar) -> Option<Ordering> {
    match (as_int(a), as_int(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        (Some(x), None) => cmp_int_float(x, b.as_f64()),
        (None, Some(y)) => cmp_int_float(y, a.as_f64()).map(Ordering::reverse),
        (None, None) => a.as_f64().partial_cmp(&b.as_f64()),
    }
}

/// `a op b` for a comparison of two Python scalars.
pub fn compare(op: CmpOp, a: &Scalar, b: &Scalar) -> Result<bool, ScalarError> {
    let complex = matches!(a, Scalar::Complex { .. }) || matches!(b, Scalar::Complex { .. });
    if complex {
        let eq = as_complex(a) == as_complex(b);
        return match op {
            CmpOp::Eq => Ok(eq),
            CmpOp::Ne => Ok(!eq),
            _ => Err(ScalarError::Type(format!(
                "'{}' not supported between instances of '{}' and '{}'",
                op.symbol(),
                type_name(a),
                type_name(b)
            ))),
        };
    }
    let o = scalar_cmp(a, b);
    Ok(match op {
        CmpOp::Lt => o == Some(Ordering::Less),
        CmpOp::Le => matches!(o, Some(Ordering::Less | Ordering::Equal)),
        CmpOp::Gt => o == Some(Ordering::Greater),
        CmpOp::Ge => matches!(o, Some(Ordering::Greater | Ordering::Equal)),
        CmpOp::Eq => o == Some(Ordering::Equal),
        CmpOp::Ne => o != Some(Ordering::Equal),
        CmpOp::Is | CmpOp::IsNot => {
            return Err(ScalarError::Type(
                "'is' is an identity test, not a value comparison".into(),
            ))
        }
    })
}

/// `op a` for a Python scalar.
pub fn unary(op: UnaryOp, a: Scalar) -> R {
    let bad = || {
        ScalarError::Type(format!(
            "bad operand type for unary {}: '{}'",
            op.symbol(),
            type_name(&a)
        ))
    };
    match op {
        UnaryOp::Not => Ok(Scalar::Bool(!truthy(&a))),
        UnaryOp::Pos => Ok(match a {
            Scalar::Bool(b) => Scalar::Int(i64::from(b)),
            other => other,
        }),
        UnaryOp::Neg => Ok(match a {
            Scalar::Bool(b) => Scalar::Int(-i64::from(b)),
            Scalar::Int(_) | Scalar::BigInt(_) => Scalar::int(
                as_int(&a)
                    .unwrap_or_default()
                    .checked_neg()
                    .ok_or_else(overflow)?,
            ),
            Scalar::Float(f) => Scalar::Float(-f),
            Scalar::Complex { re, im } => Scalar::Complex { re: -re, im: -im },
        }),
        UnaryOp::Invert => match a {
            Scalar::Bool(b) => Ok(Scalar::Int(!i64::from(b))),
            Scalar::Int(_) | Scalar::BigInt(_) => Ok(Scalar::int(!as_int(&a).unwrap_or_default())),
            _ => Err(bad()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use BinOp::*;

    fn i(v: i64) -> Scalar {
        Scalar::Int(v)
    }
    fn f(v: f64) -> Scalar {
        Scalar::Float(v)
    }

    #[test]
    fn ints() {
        assert_eq!(binary(FloorDiv, i(7), i(2)), Ok(i(3)));
        assert_eq!(binary(FloorDiv, i(-7), i(2)), Ok(i(-4)));
        assert_eq!(binary(Mod, i(-7), i(3)), Ok(i(2)));
        assert_eq!(binary(Mod, i(7), i(-3)), Ok(i(-2)));
        assert_eq!(binary(Div, i(1), i(2)), Ok(f(0.5)));
        assert_eq!(binary(Pow, i(2), i(-1)), Ok(f(0.5)));
        assert_eq!(binary(Pow, i(2), i(10)), Ok(i(1024)));
        assert_eq!(
            binary(Add, Scalar::Bool(true), Scalar::Bool(true)),
            Ok(i(2))
        );
        assert_eq!(
            binary(BitAnd, Scalar::Bool(true), Scalar::Bool(false)),
            Ok(Scalar::Bool(false))
        );
        assert_eq!(binary(LShift, i(1), i(62)), Ok(i(1 << 62)));
        // Exact past 64 bits (Scalar::BigInt), an error past 128.
        assert_eq!(binary(LShift, i(1), i(63)), Ok(Scalar::BigInt(1 << 63)));
        assert!(binary(LShift, i(1), i(127)).is_err());
        assert_eq!(
            binary(Mul, i(i64::MAX), i(2)),
            Ok(Scalar::BigInt(i128::from(i64::MAX) * 2))
        );
        assert_eq!(binary(Sub, Scalar::BigInt(1 << 63), i(1)), Ok(i(i64::MAX)));
        assert!(binary(Mul, Scalar::BigInt(1 << 100), Scalar::BigInt(1 << 30)).is_err());
        assert_eq!(binary(Pow, i(-1), Scalar::BigInt(1 << 70)), Ok(i(1)));
        assert!(binary(Pow, i(2), Scalar::BigInt(1 << 70)).is_err());
        assert!(binary(Div, i(1), i(0)).is_err());
        assert_eq!(
            binary(FloorDiv, i(i64::MIN), i(-1)),
            Ok(Scalar::BigInt(1 << 63))
        );
        assert_eq!(
            compare(
                CmpOp::Lt,
                &Scalar::BigInt(1 << 64),
                &f(18446744073709551616.0)
            ),
            Ok(false)
        );
        assert_eq!(
            compare(
                CmpOp::Gt,
                &Scalar::BigInt((1 << 64) + 1),
                &f(18446744073709551616.0)
            ),
            Ok(true)
        );
        assert_eq!(
            unary(UnaryOp::Neg, i(i64::MIN)),
            Ok(Scalar::BigInt(1 << 63))
        );
        assert_eq!(binary(Mod, i(i64::MIN), i(-1)), Ok(i(0)));
    }

    #[test]
    fn floats_and_complex() {
        assert_eq!(binary(FloorDiv, f(7.5), f(2.0)), Ok(f(3.0)));
        assert_eq!(binary(Mod, f(-7.5), f(2.0)), Ok(f(0.5)));
        assert_eq!(binary(Mod, f(7.5), f(-2.0)), Ok(f(-0.5)));
        assert!(matches!(
            binary(Pow, f(-8.0), f(1.0 / 3.0)),
            Ok(Scalar::Complex { .. })
        ));
        assert!(binary(Pow, f(0.0), i(-1)).is_err());
        assert!(binary(Pow, f(10.0), f(400.0)).is_err());
        let z = Scalar::Complex { re: 1.0, im: 2.0 };
        assert_eq!(
            binary(Pow, z, i(2)),
            Ok(Scalar::Complex { re: -3.0, im: 4.0 })
        );
        assert!(binary(FloorDiv, z, i(2)).is_err());
        assert_eq!(compare(CmpOp::Lt, &i(1), &f(1.5)), Ok(true));
        assert_eq!(
            compare(
                CmpOp::Eq,
                &i(9_007_199_254_740_993),
                &f(9_007_199_254_740_992.0)
            ),
            Ok(false)
        );
        assert_eq!(compare(CmpOp::Ne, &f(f64::NAN), &f(f64::NAN)), Ok(true));
        assert!(compare(CmpOp::Lt, &z, &i(1)).is_err());
        assert_eq!(unary(UnaryOp::Invert, Scalar::Bool(true)), Ok(i(-2)));
        assert!(unary(UnaryOp::Invert, f(1.0)).is_err());
        assert_eq!(unary(UnaryOp::Neg, Scalar::Bool(true)), Ok(i(-1)));
    }
}
