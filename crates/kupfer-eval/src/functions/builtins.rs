//! The Python builtins usable as bare names: `abs`, `round`, `len`, `float`, `int`, `bool`,
//! `complex`, `slice`, `sum`, `min`, `max`, `any`, `all`, `pow`, `type` (of numbers and NumPy
//! scalars). They work on Python values
//! with Python's semantics; on arrays `abs`, `round` and `pow` are NumPy's, `sum(a)` adds the
//! rows (`a[0] + a[1] + ...`, as Python iterates an array), and what needs an array's
//! contents on the host (`float(a)`, `max(a)`) says that they stay on the GPU.

use super::{to_int, Call, Registry};
use crate::ast::{BinOp, CmpOp, Span};
use crate::error::{EvalError, Result};
use crate::pyscalar::ScalarError;
use crate::value::{Slice, Value};
use kupfer::Scalar;

pub(super) fn register(r: &mut Registry) {
    r.native(&["builtins.abs"], abs);
    r.native(&["builtins.round"], round);
    r.native(&["builtins.len"], len);
    r.native(&["builtins.float"], float);
    r.native(&["builtins.int"], int);
    r.native(&["builtins.bool"], bool_);
    r.native(&["builtins.complex"], complex);
    r.native(&["builtins.slice"], slice);
    r.native(&["builtins.sum"], sum);
    r.native(&["builtins.min"], min);
    r.native(&["builtins.max"], max);
    r.native(&["builtins.any"], any);
    r.native(&["builtins.all"], all);
    r.native(&["builtins.pow"], pow);
    r.native(&["builtins.divmod"], divmod);
    r.native(&["builtins.type"], type_);
}

/// `type(x)` of a Python number (the builtin `float`, `int`, `bool` or `complex`) or a NumPy
/// scalar, which kupfer eval holds as a 0-d array (its dtype, which NumPy's scalar types are
/// in kupfer eval: `type(np.float32(1))(2)` is `np.float32(2)`). Other values have no type
/// object here.
fn type_(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["object/"])?;
    let name = match a.get_raw("object") {
        Some(Value::Scalar(Scalar::Float(_))) => "builtins.float",
        Some(Value::Scalar(Scalar::Int(_) | Scalar::BigInt(_))) => "builtins.int",
        Some(Value::Scalar(Scalar::Bool(_))) => "builtins.bool",
        Some(Value::Scalar(Scalar::Complex { .. })) => "builtins.complex",
        Some(Value::Array(x)) if x.ndim() == 0 => return Ok(Value::DType(x.dtype())),
        Some(v) => {
            return Err(EvalError::not_supported(
                span,
                format!("type() of a '{}' value", v.type_name()),
            ))
        }
        None => return Err(EvalError::type_error(span, "type() takes 1 or 3 arguments")),
    };
    let (key, _) =
        super::lookup(name).ok_or_else(|| EvalError::not_supported(span, format!("'{name}'")))?;
    Ok(Value::Function(key))
}

fn array_contents(span: Span, what: &str) -> EvalError {
    EvalError::not_supported(
        span,
        format!("{what} of an array (kupfer eval keeps array contents on the GPU)"),
    )
}

fn scalar_err(span: Span) -> impl FnOnce(ScalarError) -> EvalError {
    move |e| match e {
        ScalarError::Type(m) => EvalError::type_error(span, m),
        ScalarError::Value(m) => EvalError::value_error(span, m),
    }
}

fn abs(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["x"])?;
    match a.req("x")? {
        Value::Scalar(s) => Ok(Value::Scalar(match s {
            Scalar::Bool(b) => Scalar::Int(i64::from(b)),
            Scalar::Int(_) | Scalar::BigInt(_) => Scalar::int(
                s.as_i128()
                    .unwrap_or_default()
                    .checked_abs()
                    .ok_or_else(|| EvalError::value_error(span, "integer overflow in abs()"))?,
            ),
            Scalar::Float(f) => Scalar::Float(f.abs()),
            Scalar::Complex { re, im } => Scalar::Float(re.hypot(im)),
        })),
        Value::Array(x) => Ok(Value::Array(
            kupfer::absolute(&x).map_err(EvalError::kupfer(span))?,
        )),
        v => Err(EvalError::type_error(
            span,
            format!("bad operand type for abs(): '{}'", v.type_name()),
        )),
    }
}

/// Python's `round(x)` (half to even) / `round(x, n)`.
fn round(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["number", "ndigits="])?;
    let x = a.req("number")?;
    let nd = a.int("ndigits")?;
    match x {
        Value::Array(arr) => {
            let d = i32::try_from(nd.unwrap_or(0))
                .map_err(|_| EvalError::value_error(span, "round(): ndigits out of range"))?;
            Ok(Value::Array(
                kupfer::round(&arr, d).map_err(EvalError::kupfer(span))?,
            ))
        }
        Value::Scalar(s @ (Scalar::Bool(_) | Scalar::Int(_))) => {
            let i = to_int(&Value::Scalar(s), "round()", span)?;
            match nd {
                None | Some(0..) => Ok(Value::Scalar(Scalar::Int(i))),
                Some(n) => {
                    let p = 10i64.checked_pow(n.unsigned_abs() as u32);
                    Ok(Value::Scalar(Scalar::Int(match p {
                        None => 0,
                        Some(p) => {
                            let q = i.div_euclid(p);
                            let r = i.rem_euclid(p);
                            let up = 2 * r > p || (2 * r == p && q % 2 != 0);
                            (q + i64::from(up)) * p
                        }
                    })))
                }
            }
        }
        Value::Scalar(Scalar::Float(f)) => match nd {
            None => {
                if !f.is_finite() {
                    return Err(EvalError::value_error(
                        span,
                        format!(
                            "cannot convert float {} to integer",
                            crate::format::py_float_repr(f)
                        ),
                    ));
                }
                Ok(Value::Scalar(Scalar::Int(f.round_ties_even() as i64)))
            }
            Some(n) => {
                let n = n.clamp(-400, 400) as i32;
                let r = if n >= 0 {
                    let p = 10f64.powi(n);
                    let y = (f * p).round_ties_even() / p;
                    if y.is_finite() {
                        y
                    } else {
                        f
                    }
                } else {
                    let p = 10f64.powi(-n);
                    (f / p).round_ties_even() * p
                };
                Ok(Value::Scalar(Scalar::Float(r)))
            }
        },
        v => Err(EvalError::type_error(
            span,
            format!("type {} doesn't define __round__ method", v.type_name()),
        )),
    }
}

fn len(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["obj"])?;
    let n = match a.req("obj")? {
        Value::Array(x) => match x.shape().first() {
            Some(&n) => n,
            None => return Err(EvalError::type_error(span, "len() of unsized object")),
        },
        Value::Tuple(v) | Value::List(v) => v.len(),
        Value::Str(s) => s.chars().count(),
        v => {
            return Err(EvalError::type_error(
                span,
                format!("object of type '{}' has no len()", v.type_name()),
            ))
        }
    };
    Ok(Value::Scalar(Scalar::Int(n as i64)))
}

/// The one Python scalar argument of a conversion (`float(x)`), `default` without one.
/// The element of a 0-d array (a NumPy scalar) as a Python scalar, read back from the device
/// (natively; the browser cannot wait for it): what `int()`, `float()` and `complex()` take.
pub(crate) fn array_scalar(a: &kupfer::Array, what: &str, span: Span) -> Result<Scalar> {
    if a.ndim() != 0 {
        return Err(EvalError::type_error(
            span,
            "only 0-dimensional arrays can be converted to Python scalars",
        ));
    }
    crate::program::wait(a.item_async(), &format!("{what}() of an array"))
        .map_err(EvalError::kupfer(span))
}

fn scalar_arg(call: Call, what: &str, default: Scalar) -> Result<(Scalar, Span)> {
    let span = call.span;
    let mut a = call.bind(&["x="])?;
    match a.get("x") {
        None => Ok((default, span)),
        Some(Value::Scalar(s)) => Ok((s, span)),
        // NumPy casts a complex scalar to a real one by its real part (with a warning).
        Some(Value::Array(x)) => Ok((
            match array_scalar(&x, what, span)? {
                Scalar::Complex { re, .. } => Scalar::Float(re),
                s => s,
            },
            span,
        )),
        Some(Value::Str(s)) => parse_str(&s, what, span).map(|s| (s, span)),
        Some(v) => Err(EvalError::type_error(
            span,
            format!(
                "{what}() argument must be a string or a number, not '{}'",
                v.type_name()
            ),
        )),
    }
}

fn parse_str(s: &str, what: &str, span: Span) -> Result<Scalar> {
    let t = s.trim();
    let bad = || {
        EvalError::value_error(
            span,
            format!(
                "could not convert string to {what}: {}",
                crate::format::py_str_repr(s)
            ),
        )
    };
    match what {
        "int" => t
            .replace('_', "")
            .parse::<i128>()
            .map(Scalar::int)
            .map_err(|_| bad()),
        _ => {
            let lower = t.to_ascii_lowercase();
            let v = match lower.trim_start_matches(['+', '-']) {
                "inf" | "infinity" => f64::INFINITY,
                "nan" => f64::NAN,
                _ => return t.parse::<f64>().map(Scalar::Float).map_err(|_| bad()),
            };
            Ok(Scalar::Float(if lower.starts_with('-') { -v } else { v }))
        }
    }
}

fn float(call: Call) -> Result<Value> {
    let (s, span) = scalar_arg(call, "float", Scalar::Float(0.0))?;
    match s {
        Scalar::Complex { .. } => Err(EvalError::type_error(
            span,
            "float() argument must be a string or a real number, not 'complex'",
        )),
        s => Ok(Value::Scalar(Scalar::Float(s.as_f64()))),
    }
}

fn int(call: Call) -> Result<Value> {
    let (s, span) = scalar_arg(call, "int", Scalar::Int(0))?;
    match s {
        Scalar::Bool(b) => Ok(Value::Scalar(Scalar::Int(i64::from(b)))),
        Scalar::Int(_) | Scalar::BigInt(_) => Ok(Value::Scalar(s)),
        // Below 2^127 in magnitude a float's integer part is exact as an i128.
        Scalar::Float(f) if f.is_finite() && f.abs() < 1.701_411_834_604_692_3e38 => {
            Ok(Value::Scalar(Scalar::int(f.trunc() as i128)))
        }
        Scalar::Float(f) if f.is_finite() => Err(EvalError::value_error(
            span,
            "integer overflow: the result does not fit in 128 bits (kupfer eval's Python ints \
             are 128-bit)",
        )),
        Scalar::Float(f) => Err(EvalError::value_error(
            span,
            format!(
                "cannot convert float {} to integer",
                crate::format::py_float_repr(f)
            ),
        )),
        Scalar::Complex { .. } => Err(EvalError::type_error(
            span,
            "int() argument must be a string, a bytes-like object or a real number, not \
             'complex'",
        )),
    }
}

fn bool_(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["x="])?;
    let b = match a.get("x") {
        None => false,
        Some(Value::Scalar(s)) => crate::pyscalar::truthy(&s),
        Some(Value::Str(s)) => !s.is_empty(),
        Some(Value::Tuple(v) | Value::List(v)) => !v.is_empty(),
        Some(v @ Value::Array(_)) => crate::interp::truthy(&v, span)?,
        Some(_) => true,
    };
    Ok(Value::Scalar(Scalar::Bool(b)))
}

fn complex(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["real=", "imag="])?;
    // (real part, imaginary part if the argument is complex)
    let part = |v: Option<Value>| -> Result<Option<(f64, Option<f64>)>> {
        match v {
            None => Ok(None),
            Some(Value::Scalar(Scalar::Complex { re, im })) => Ok(Some((re, Some(im)))),
            Some(Value::Scalar(s)) => Ok(Some((s.as_f64(), None))),
            Some(Value::Array(x)) => match array_scalar(&x, "complex", span)? {
                Scalar::Complex { re, im } => Ok(Some((re, Some(im)))),
                s => Ok(Some((s.as_f64(), None))),
            },
            Some(v) => Err(EvalError::type_error(
                span,
                format!(
                    "complex() argument must be a number, not '{}'",
                    v.type_name()
                ),
            )),
        }
    };
    let real = part(a.get("real"))?;
    let imag = part(a.get("imag"))?;
    // CPython's rule: the parts combine by arithmetic only where an argument is complex, so
    // complex(0., -0.) keeps its negative zero.
    let (r_re, r_im) = real.unwrap_or((0.0, None));
    let (re, im) = match imag {
        None => (r_re, r_im.unwrap_or(0.0)),
        Some((i_re, i_im)) => (
            i_im.map_or(r_re, |i_im| r_re - i_im),
            r_im.map_or(i_re, |r_im| i_re + r_im),
        ),
    };
    Ok(Value::Scalar(Scalar::Complex { re, im }))
}

fn slice(call: Call) -> Result<Value> {
    let span = call.span;
    let (args, _) = call.split_varargs(&[])?;
    let part = |v: &Value| -> Result<Option<i64>> {
        match v {
            Value::None => Ok(None),
            v => to_int(v, "slice indices", span).map(Some),
        }
    };
    let parts = args.iter().map(part).collect::<Result<Vec<_>>>()?;
    let s = match parts.as_slice() {
        [stop] => Slice {
            start: None,
            stop: *stop,
            step: None,
        },
        [start, stop] => Slice {
            start: *start,
            stop: *stop,
            step: None,
        },
        [start, stop, step] => Slice {
            start: *start,
            stop: *stop,
            step: *step,
        },
        _ => {
            return Err(EvalError::type_error(
                span,
                format!("slice expected 1 to 3 arguments, got {}", parts.len()),
            ))
        }
    };
    Ok(Value::Slice(s))
}

/// Python's `sum(iterable, start=0)`: Python numbers add up on the host; an array adds its
/// rows (NumPy's `sum(axis=0)` plus `start`).
fn sum(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["iterable", "start="])?;
    let it = a.req("iterable")?;
    let start = a.get("start").unwrap_or(Value::Scalar(Scalar::Int(0)));
    match it {
        Value::Array(x) => {
            if x.ndim() == 0 {
                return Err(EvalError::type_error(span, "iteration over a 0-d array"));
            }
            let rows = kupfer::sum(&x, 0isize, false).map_err(EvalError::kupfer(span))?;
            let start = super::to_operand(&start, "sum(): argument 'start'", span)?;
            Ok(Value::Array(
                kupfer::add(start, rows).map_err(EvalError::kupfer(span))?,
            ))
        }
        Value::Tuple(items) | Value::List(items) => {
            let mut acc = start;
            for v in items {
                acc = match (acc, v) {
                    (Value::Scalar(x), Value::Scalar(y)) => Value::Scalar(
                        crate::pyscalar::binary(BinOp::Add, x, y).map_err(scalar_err(span))?,
                    ),
                    (x, y) => {
                        let x = super::to_operand(&x, "sum(): an item", span)?;
                        let y = super::to_operand(&y, "sum(): an item", span)?;
                        Value::Array(kupfer::add(x, y).map_err(EvalError::kupfer(span))?)
                    }
                };
            }
            Ok(acc)
        }
        v => Err(EvalError::type_error(
            span,
            format!("'{}' object is not iterable", v.type_name()),
        )),
    }
}

/// The Python numbers of `min`/`max`/`any`/`all`'s arguments (one iterable or several).
fn python_numbers(call: Call, what: &str) -> Result<(Vec<Scalar>, Span)> {
    let span = call.span;
    let (args, _) = call.split_varargs(&[])?;
    let items = match args.as_slice() {
        [Value::Tuple(v) | Value::List(v)] => v.clone(),
        [Value::Array(_)] => {
            return Err(array_contents(
                span,
                &format!("Python's builtin {what}() (use np.{what} or a.{what}())"),
            ))
        }
        [one] => {
            return Err(EvalError::type_error(
                span,
                format!("'{}' object is not iterable", one.type_name()),
            ))
        }
        [] => {
            return Err(EvalError::type_error(
                span,
                format!("{what}() expected at least 1 argument, got 0"),
            ))
        }
        _ if what == "any" || what == "all" => {
            return Err(EvalError::type_error(
                span,
                format!("{what}() takes exactly one argument ({} given)", args.len()),
            ))
        }
        many => many.to_vec(),
    };
    let nums = items
        .iter()
        .map(|v| match v {
            Value::Scalar(s) => Ok(*s),
            Value::Array(_) => Err(array_contents(span, &format!("Python's builtin {what}()"))),
            v => Err(EvalError::type_error(
                span,
                format!("{what}() of '{}' items is not supported", v.type_name()),
            )),
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((nums, span))
}

fn extreme(call: Call, what: &str, op: CmpOp) -> Result<Value> {
    let (nums, span) = python_numbers(call, what)?;
    let mut best: Option<Scalar> = None;
    for x in nums {
        best = Some(match best {
            None => x,
            Some(b) => {
                let better = crate::pyscalar::compare(op, &x, &b).map_err(scalar_err(span))?;
                if better {
                    x
                } else {
                    b
                }
            }
        });
    }
    best.map(Value::Scalar)
        .ok_or_else(|| EvalError::value_error(span, format!("{what}() iterable argument is empty")))
}

fn min(call: Call) -> Result<Value> {
    extreme(call, "min", CmpOp::Lt)
}

fn max(call: Call) -> Result<Value> {
    extreme(call, "max", CmpOp::Gt)
}

fn any(call: Call) -> Result<Value> {
    let (nums, _) = python_numbers(call, "any")?;
    Ok(Value::Scalar(Scalar::Bool(
        nums.iter().any(crate::pyscalar::truthy),
    )))
}

fn all(call: Call) -> Result<Value> {
    let (nums, _) = python_numbers(call, "all")?;
    Ok(Value::Scalar(Scalar::Bool(
        nums.iter().all(crate::pyscalar::truthy),
    )))
}

/// Python's `divmod(a, b)`: Python's own `(a // b, a % b)` for two Python numbers (so
/// `divmod(1, 0)` raises ZeroDivisionError), NumPy's `np.divmod` when an array takes part.
fn divmod(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a/", "b/"])?;
    let (x, y) = (a.req("a")?, a.req("b")?);
    match (x, y) {
        (Value::Scalar(x), Value::Scalar(y)) => {
            if matches!(x, Scalar::Complex { .. }) || matches!(y, Scalar::Complex { .. }) {
                return Err(EvalError::type_error(
                    span,
                    "unsupported operand type(s) for divmod(): 'complex'",
                ));
            }
            let zero = match (&x, &y) {
                (Scalar::Float(_), _) | (_, Scalar::Float(_)) => y.as_f64() == 0.0,
                _ => false,
            };
            if zero {
                // Python names the operation as a whole for floats.
                return Err(EvalError::value_error(span, "float divmod()"));
            }
            let q = crate::pyscalar::binary(BinOp::FloorDiv, x, y).map_err(scalar_err(span))?;
            let r = crate::pyscalar::binary(BinOp::Mod, x, y).map_err(scalar_err(span))?;
            Ok(Value::Tuple(vec![Value::Scalar(q), Value::Scalar(r)]))
        }
        (x, y) => {
            let x = super::to_operand(&x, "divmod(): argument 'a'", span)?;
            let y = super::to_operand(&y, "divmod(): argument 'b'", span)?;
            let q = kupfer::floor_divide(x.clone(), y.clone()).map_err(EvalError::kupfer(span))?;
            let r = kupfer::remainder(x, y).map_err(EvalError::kupfer(span))?;
            Ok(Value::Tuple(vec![Value::Array(q), Value::Array(r)]))
        }
    }
}

/// Python's `pow(base, exp)` (`base ** exp`; NumPy's power for arrays).
fn pow(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["base", "exp", "mod="])?;
    if a.get("mod").is_some() {
        return Err(EvalError::not_supported(span, "pow() with a modulus"));
    }
    let base = a.req("base")?;
    let exp = a.req("exp")?;
    match (base, exp) {
        (Value::Scalar(x), Value::Scalar(y)) => crate::pyscalar::binary(BinOp::Pow, x, y)
            .map(Value::Scalar)
            .map_err(scalar_err(span)),
        (x, y) => {
            let x = super::to_operand(&x, "pow(): argument 'base'", span)?;
            let y = super::to_operand(&y, "pow(): argument 'exp'", span)?;
            Ok(Value::Array(
                kupfer::power(x, y).map_err(EvalError::kupfer(span))?,
            ))
        }
    }
}
