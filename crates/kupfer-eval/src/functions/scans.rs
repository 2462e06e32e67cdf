//! Scans: `cumsum`, `cumprod`, `nancumsum`, `nancumprod` (kupfer's `scan` module),
//! `cumulative_sum`, `cumulative_prod` and `diff`. Array methods `a.cumsum(axis=1)` and `a.cumprod()` call the same handlers.
//!
//! Result dtypes are kupfer's: bool and int32 accumulate in int32 where NumPy gives int64.

use super::{to_array, Call, Registry};
use crate::error::{EvalError, Result};
use crate::value::Value;
use kupfer::{Array, DType};

pub(super) fn register(r: &mut Registry) {
    r.native(&["cumsum"], cumsum);
    r.native(&["cumprod"], cumprod);
    r.native(&["nancumsum"], nancumsum);
    r.native(&["nancumprod"], nancumprod);
    r.native(&["diff"], diff);
    r.native(&["cumulative_sum"], cumulative_sum);
    r.native(&["cumulative_prod"], cumulative_prod);
}

type CumulativeFn = fn(&Array, Option<isize>, Option<DType>, bool) -> kupfer::Result<Array>;

/// `f(x, /, *, axis=None, dtype=None, out=None, include_initial=False)` (the Array API's
/// `cumulative_sum` and `cumulative_prod`).
fn cumulative(call: Call, f: CumulativeFn) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["x", "*axis=", "*dtype=", "*out=", "*include_initial="])?;
    let out = a.get("out");
    let x = a.array("x")?;
    let span_axis = a.span();
    let axis = a
        .get("axis")
        .map(|v| super::to_index_int(&v, span_axis).map(|v| v as isize))
        .transpose()?;
    let dtype = a.dtype("dtype")?;
    let initial = a.bool_or("include_initial", false)?;
    let r = f(&x, axis, dtype, initial).map_err(EvalError::kupfer(span))?;
    write_out(out, r, span)
}

/// NumPy's `out=` of an accumulation: `out` has the result's shape exactly and takes the
/// result in its own dtype (an unsafe cast, as NumPy's `ufunc.accumulate` writes it); `out`
/// is the value, so its name and views see the result.
fn write_out(out: Option<Value>, r: Array, span: crate::ast::Span) -> Result<Value> {
    match out {
        None | Some(Value::None) => Ok(Value::Array(r)),
        Some(Value::Array(o)) => {
            if o.shape() != r.shape() {
                return Err(EvalError::value_error(
                    span,
                    "provided out is the wrong size for the accumulation.",
                ));
            }
            kupfer::copyto(&o, &r, kupfer::Casting::Unsafe, None)
                .map_err(EvalError::kupfer(span))?;
            Ok(Value::Array(o))
        }
        Some(_) => Err(EvalError::type_error(span, "output must be an array")),
    }
}

fn cumulative_sum(call: Call) -> Result<Value> {
    cumulative(call, kupfer::cumulative_sum)
}

fn cumulative_prod(call: Call) -> Result<Value> {
    cumulative(call, kupfer::cumulative_prod)
}

type ScanFn = fn(&Array, Option<isize>, Option<DType>) -> kupfer::Result<Array>;

/// `f(a, axis=None, dtype=None, out=None)`.
fn scan(call: Call, f: ScanFn) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "axis=", "dtype=", "out="])?;
    let out = a.get("out");
    let x = a.array("a")?;
    let span_axis = a.span();
    let axis = a
        .get("axis")
        .map(|v| super::to_index_int(&v, span_axis).map(|v| v as isize))
        .transpose()?;
    let dtype = a.dtype("dtype")?;
    let r = f(&x, axis, dtype).map_err(EvalError::kupfer(span))?;
    write_out(out, r, span)
}

fn cumsum(call: Call) -> Result<Value> {
    scan(call, kupfer::cumsum)
}

fn cumprod(call: Call) -> Result<Value> {
    scan(call, kupfer::cumprod)
}

fn nancumsum(call: Call) -> Result<Value> {
    scan(call, kupfer::nancumsum)
}

fn nancumprod(call: Call) -> Result<Value> {
    scan(call, kupfer::nancumprod)
}

/// `diff(a, n=1, axis=-1, prepend=, append=)`.
fn diff(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "n=", "axis=", "prepend=", "append="])?;
    if a.get("prepend").is_some() || a.get("append").is_some() {
        return Err(EvalError::not_supported(
            span,
            "np.diff() with prepend= or append=",
        ));
    }
    let v = a.req("a")?;
    let x = to_array(&v, None, span)?;
    let n = a.int("n")?.unwrap_or(1);
    let n = usize::try_from(n).map_err(|_| {
        EvalError::value_error(span, format!("order must be non-negative but got {n}"))
    })?;
    let axis = a.int("axis")?.unwrap_or(-1) as isize;
    Ok(Value::Array(
        kupfer::diff(&x, n, axis).map_err(EvalError::kupfer(span))?,
    ))
}
