//! `out=` of the NumPy functions that are not ufuncs (`dot`, `trace`, `einsum`, `take`,
//! `compress`, `choose`, `concatenate`/`stack`): each checks `out` as NumPy does for that
//! function, then the result is copied into it (views write into their base) and `out` is
//! the call's value. The ufunc form is `elementwise::UfuncOut`.

use super::Args;
use crate::ast::Span;
use crate::error::{EvalError, Result};
use crate::value::Value;
use kupfer::casting::Casting;
use kupfer::{Array, DType};

/// The `out=` argument: `None` when absent or `None`; an error for anything but an array.
pub(super) fn take_out(a: &mut Args, not_array: &str) -> Result<Option<Array>> {
    match a.get("out") {
        None | Some(Value::None) => Ok(None),
        Some(Value::Array(o)) => Ok(Some(o)),
        Some(_) => Err(EvalError::type_error(a.span(), not_array.to_string())),
    }
}

/// How a function checks its `out`.
pub(super) enum Check {
    /// Same shape; the result cast unsafely (`choose`, `trace`-like writes).
    Shape(&'static str),
    /// Same shape, and `out`'s dtype casts safely back to the input's (`take` and `compress`
    /// in mode 'raise': NumPy writes through a copy of `out` that it casts back).
    ShapeAndSafeBack(&'static str, DType),
    /// Same shape, the result cast under `casting` (`concatenate`, `stack`).
    ShapeAndCasting(&'static str, Casting),
    /// Exactly the result's dtype and shape, C-contiguous (`dot`).
    Exact,
    /// Same shape and a safe cast, in NumPy's iterator's words (`einsum`).
    Iterator(Casting),
}

/// Writes `r` into `out` after `check`; the value is `out`.
pub(super) fn write(out: Array, r: Array, check: Check, span: Span) -> Result<Value> {
    let shape_err = |msg: &str| -> EvalError {
        if msg.starts_with("choose") {
            EvalError::type_error(span, msg.to_string())
        } else {
            EvalError::value_error(span, msg.to_string())
        }
    };
    let cast_err = |from: DType, to: DType, rule: &str| {
        EvalError::type_error(
            span,
            format!("Cannot cast array data from dtype('{from}') to dtype('{to}') according to the rule '{rule}'"),
        )
    };
    match check {
        Check::Shape(msg) => {
            if out.shape() != r.shape() {
                return Err(shape_err(msg));
            }
        }
        Check::ShapeAndSafeBack(msg, input) => {
            if out.shape() != r.shape() {
                return Err(shape_err(msg));
            }
            if !kupfer::can_cast(out.dtype(), input, Casting::Safe) {
                return Err(cast_err(out.dtype(), input, "safe"));
            }
        }
        Check::ShapeAndCasting(msg, casting) => {
            if out.shape() != r.shape() {
                return Err(shape_err(msg));
            }
            if !kupfer::can_cast(r.dtype(), out.dtype(), casting) {
                return Err(cast_err(r.dtype(), out.dtype(), casting.name()));
            }
        }
        Check::Exact => {
            let contiguous = out
                .layout()
                .map_err(EvalError::kupfer(span))?
                .is_c_contiguous();
            if out.shape() != r.shape() || out.dtype() != r.dtype() || !contiguous {
                return Err(EvalError::value_error(
                    span,
                    "output array is not acceptable (must have the right datatype, number of \
                     dimensions, and be a C-Array)",
                ));
            }
        }
        Check::Iterator(casting) => {
            if out.shape() != r.shape() {
                return Err(EvalError::value_error(
                    span,
                    format!(
                        "operands could not be broadcast together with remapped shapes \
                         [original->remapped]: the output's {:?} against the result's {:?}",
                        out.shape(),
                        r.shape()
                    ),
                ));
            }
            if !kupfer::can_cast(r.dtype(), out.dtype(), casting) {
                return Err(EvalError::type_error(
                    span,
                    format!(
                        "Iterator requested dtype could not be cast from dtype('{}') to \
                         dtype('{}'), the operand 1 dtype, according to the rule '{}'",
                        r.dtype(),
                        out.dtype(),
                        casting.name()
                    ),
                ));
            }
        }
    }
    kupfer::copyto(&out, &r, Casting::Unsafe, None).map_err(EvalError::kupfer(span))?;
    Ok(Value::Array(out))
}
