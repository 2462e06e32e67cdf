//! Reductions and NaN-aware reductions: `sum`, `prod`, `mean`, `var`, `std`, `max`/`amax`,
//! `min`/`amin`, `argmax`, `argmin`, `any`, `all`, `count_nonzero`, `ptp`, `average` and the
//! `nan*` family, over any axes with `keepdims=`, `ddof=` and `dtype=` where kupfer supports
//! them. Array methods (`a.sum(axis=0)`) call the same handlers with the array first.
//!
//! Result dtypes are kupfer's (which never widen 32-bit types to 64 bits implicitly): the sum
//! of an int32 array is int32 where NumPy gives int64, the mean of integers is float32
//! (float64 for int64).

use super::{to_array, Args, Call, Registry};
use crate::ast::Span;
use crate::error::{EvalError, Result};
use crate::value::Value;
use kupfer::{Array, Axis, DType, ReduceOptions, Scalar};

pub(super) fn register(r: &mut Registry) {
    r.native(&["sum"], |c| with_out(c, sum, "add"));
    r.native(&["prod"], |c| with_out(c, prod, "multiply"));
    r.native(&["nansum"], |c| with_out(c, nansum, "add"));
    r.native(&["nanprod"], |c| with_out(c, nanprod, "multiply"));
    r.native(&["mean"], |c| with_out(c, mean, "add"));
    r.native(&["nanmean"], |c| with_out(c, nanmean, "add"));
    r.native(&["var"], |c| with_out(c, var, "var"));
    r.native(&["std"], |c| with_out(c, std, "std"));
    r.native(&["nanvar"], |c| with_out(c, nanvar, "nanvar"));
    r.native(&["nanstd"], |c| with_out(c, nanstd, "nanstd"));
    r.native(&["max", "amax"], |c| with_out(c, max, "maximum"));
    r.native(&["min", "amin"], |c| with_out(c, min, "minimum"));
    r.native(&["nanmax"], |c| with_out(c, nanmax, "fmax"));
    r.native(&["nanmin"], |c| with_out(c, nanmin, "fmin"));
    r.native(&["argmax"], |c| with_out(c, argmax, "argmax"));
    r.native(&["argmin"], |c| with_out(c, argmin, "argmin"));
    r.native(&["nanargmax"], |c| with_out(c, nanargmax, "nanargmax"));
    r.native(&["nanargmin"], |c| with_out(c, nanargmin, "nanargmin"));
    r.native(&["any"], |c| with_out(c, any, "logical_or"));
    r.native(&["all"], |c| with_out(c, all, "logical_and"));
    r.native(&["count_nonzero"], count_nonzero);
    r.native(&["ptp"], |c| with_out(c, ptp, "ptp"));
    r.native(&["average"], average);
}

/// `out=` (a keyword argument): the reduction `f` computes a new array, which is written into
/// `out` in place (kupfer::reduce_into: NumPy's shape check, an unsafe cast); `out` is the
/// value, so views of it and its name see the result.
fn with_out(mut call: Call, f: fn(Call) -> Result<Value>, ufunc: &str) -> Result<Value> {
    let span = call.span;
    let at = call.kwargs.iter().position(|(k, _)| k == "out");
    let out = match at.map(|i| call.kwargs.remove(i).1) {
        None | Some(Value::None) => return f(call),
        Some(Value::Array(o)) => o,
        Some(Value::Tuple(v)) if v.len() == 1 && matches!(v[0], Value::Array(_)) => match &v[0] {
            Value::Array(o) => o.clone(),
            _ => unreachable!("matched above"),
        },
        Some(_) => return Err(EvalError::type_error(span, "output must be an array")),
    };
    let r = match f(call)? {
        Value::Array(r) => r,
        v => to_array(&v, None, span)?,
    };
    Ok(Value::Array(
        kupfer::reduce_into(&out, &r, ufunc).map_err(kerr(span))?,
    ))
}

fn kerr(span: Span) -> impl FnOnce(kupfer::Error) -> EvalError {
    EvalError::kupfer(span)
}

/// `initial=` and `where=` where a reduction does not take them (and a positional `out`:
/// `with_out` takes `out=` as a keyword).
fn check_unsupported(a: &mut Args, params: &[&str]) -> Result<()> {
    for p in params {
        match (*p, a.get(p)) {
            (_, None) | ("where", Some(Value::Scalar(Scalar::Bool(true)))) => {}
            ("out", Some(_)) => {
                return Err(EvalError::not_supported(
                    a.span(),
                    "out= (kupfer eval computes new arrays; it never writes into one)",
                ))
            }
            (p, Some(_)) => {
                return Err(EvalError::not_supported(
                    a.span(),
                    format!("{p}= of a reduction"),
                ))
            }
        }
    }
    Ok(())
}

/// The input array (Python values uploaded), cast to `dtype=` when given.
fn input(a: &mut Args, dtype: Option<DType>) -> Result<Array> {
    let span = a.span();
    let v = a.req("a")?;
    to_array(&v, dtype, span)
}

/// `axis=`: `None` (all axes), an int or a tuple of ints.
fn axis(a: &mut Args) -> Result<Axis> {
    Ok(match a.axis_tuple("axis")? {
        None => Axis::All,
        Some(v) => Axis::Many(v),
    })
}

/// `axis=` of the arg-reductions: `None` or one int.
fn single_axis(a: &mut Args) -> Result<Option<isize>> {
    let span = a.span();
    match a.get("axis") {
        None => Ok(None),
        Some(v @ (Value::Tuple(_) | Value::List(_))) => Err(EvalError::type_error(
            span,
            format!(
                "'{}' object cannot be interpreted as an integer (this reduction takes one \
                 axis)",
                v.type_name()
            ),
        )),
        Some(v) => Ok(Some(super::to_index_int(&v, span)? as isize)),
    }
}

/// `ddof=` (or its array-API spelling `correction=`), a non-negative integer.
fn ddof(a: &mut Args) -> Result<u32> {
    let span = a.span();
    let d = match (a.get("ddof"), a.get("correction")) {
        (Some(_), Some(_)) => {
            return Err(EvalError::value_error(
                span,
                "ddof and correction can't be provided simultaneously",
            ))
        }
        (Some(v), None) | (None, Some(v)) => v,
        (None, None) => return Ok(0),
    };
    let n = match d {
        Value::Scalar(Scalar::Float(f)) if f.fract() == 0.0 => f as i64,
        other => super::to_int(&other, "argument 'ddof'", span)?,
    };
    u32::try_from(n).map_err(|_| {
        EvalError::not_supported(span, format!("ddof={n} (kupfer takes 0 <= ddof < 2**32)"))
    })
}

/// The result cast to `dtype=` when it differs.
fn finish(r: Array, dtype: Option<DType>, span: Span) -> Result<Value> {
    match dtype {
        Some(d) if d != r.dtype() => Ok(Value::Array(r.astype(d).map_err(kerr(span))?)),
        _ => Ok(Value::Array(r)),
    }
}

type AxisFn = fn(&Array, Axis, bool) -> kupfer::Result<Array>;

/// A reduction taking `initial=` and `where=` ([`kupfer::ReduceOptions`]).
type OptionsFn = fn(&Array, Axis, bool, &ReduceOptions) -> kupfer::Result<Array>;

/// `initial=` (a Python number) and `where=` (a bool array or sequence; `True` is no mask).
fn options(a: &mut Args) -> Result<ReduceOptions> {
    let span = a.span();
    let initial = a.scalar("initial")?;
    let where_ = match a.get("where") {
        None | Some(Value::Scalar(Scalar::Bool(true))) => None,
        Some(v) => Some(to_array(&v, Some(DType::Bool), span)?),
    };
    Ok(ReduceOptions { initial, where_ })
}

/// The reduction `f`, or `with` when `initial=` or `where=` is given.
fn reduce_with(
    x: &Array,
    ax: Axis,
    keep: bool,
    opts: &ReduceOptions,
    f: AxisFn,
    with: Option<OptionsFn>,
    span: Span,
) -> Result<Array> {
    let r = match with {
        Some(w) if opts.initial.is_some() || opts.where_.is_some() => w(x, ax, keep, opts),
        _ => f(x, ax, keep),
    };
    r.map_err(kerr(span))
}

/// `f(a, axis=None, dtype=None, out=None, keepdims=False, initial=, where=)`: the input is
/// cast to `dtype` first (it is NumPy's accumulator type).
fn summing(call: Call, f: AxisFn, with: Option<OptionsFn>) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&[
        "a",
        "axis=",
        "dtype=",
        "out=",
        "keepdims=",
        "initial=",
        "where=",
    ])?;
    check_unsupported(&mut a, &["out"])?;
    if with.is_none() {
        check_unsupported(&mut a, &["initial", "where"])?;
    }
    let opts = options(&mut a)?;
    let dtype = a.dtype("dtype")?;
    let x = input(&mut a, dtype)?;
    let ax = axis(&mut a)?;
    let keep = a.bool_or("keepdims", false)?;
    finish(
        reduce_with(&x, ax, keep, &opts, f, with, span)?,
        dtype,
        span,
    )
}

fn sum(call: Call) -> Result<Value> {
    summing(call, kupfer::sum, Some(kupfer::sum_with))
}

fn prod(call: Call) -> Result<Value> {
    summing(call, kupfer::prod, Some(kupfer::prod_with))
}

fn nansum(call: Call) -> Result<Value> {
    summing(call, kupfer::nansum, None)
}

fn nanprod(call: Call) -> Result<Value> {
    summing(call, kupfer::nanprod, None)
}

/// `mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=)`.
fn meaning(call: Call, f: AxisFn, masked: bool) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "axis=", "dtype=", "out=", "keepdims=", "*where="])?;
    check_unsupported(&mut a, &["out"])?;
    if !masked {
        check_unsupported(&mut a, &["where"])?;
    }
    let opts = options(&mut a)?;
    let dtype = a.dtype("dtype")?;
    // A float dtype= is the type of the computation; an integer one only of the result.
    let x = input(&mut a, dtype.filter(|d| d.is_float() || d.is_complex()))?;
    let ax = axis(&mut a)?;
    let keep = a.bool_or("keepdims", false)?;
    let r = match &opts.where_ {
        Some(mask) => kupfer::mean_with(&x, ax, keep, mask),
        None => f(&x, ax, keep),
    };
    finish(r.map_err(kerr(span))?, dtype, span)
}

fn mean(call: Call) -> Result<Value> {
    meaning(call, kupfer::mean, true)
}

fn nanmean(call: Call) -> Result<Value> {
    meaning(call, kupfer::nanmean, false)
}

type MomentFn = fn(&Array, Axis, u32, bool) -> kupfer::Result<Array>;

/// A moment taking `where=` (a mask broadcast to the input).
type MaskedMomentFn = fn(&Array, Axis, u32, bool, &Array) -> kupfer::Result<Array>;

/// `var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=, mean=,
/// correction=)`.
fn moments(call: Call, f: MomentFn, masked: MaskedMomentFn) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&[
        "a",
        "axis=",
        "dtype=",
        "out=",
        "ddof=",
        "keepdims=",
        "*where=",
        "*mean=",
        "*correction=",
    ])?;
    check_unsupported(&mut a, &["out", "mean"])?;
    let opts = options(&mut a)?;
    let dtype = a.dtype("dtype")?;
    let x = input(&mut a, dtype.filter(|d| d.is_float() || d.is_complex()))?;
    let ax = axis(&mut a)?;
    let dd = ddof(&mut a)?;
    let keep = a.bool_or("keepdims", false)?;
    let r = match &opts.where_ {
        Some(mask) => masked(&x, ax, dd, keep, mask),
        None => f(&x, ax, dd, keep),
    };
    finish(r.map_err(kerr(span))?, dtype, span)
}

fn var(call: Call) -> Result<Value> {
    moments(call, kupfer::var, kupfer::var_with)
}

fn std(call: Call) -> Result<Value> {
    moments(call, kupfer::reduce::std, kupfer::std_with)
}

fn nanvar(call: Call) -> Result<Value> {
    moments(call, kupfer::nanvar, kupfer::nanvar_with)
}

fn nanstd(call: Call) -> Result<Value> {
    moments(call, kupfer::nanstd, kupfer::nanstd_with)
}

/// `max(a, axis=None, out=None, keepdims=False, initial=, where=)`.
fn extreme(call: Call, f: AxisFn, with: Option<OptionsFn>) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "axis=", "out=", "keepdims=", "initial=", "where="])?;
    check_unsupported(&mut a, &["out"])?;
    if with.is_none() {
        check_unsupported(&mut a, &["initial", "where"])?;
    }
    let opts = options(&mut a)?;
    let x = input(&mut a, None)?;
    let ax = axis(&mut a)?;
    let keep = a.bool_or("keepdims", false)?;
    Ok(Value::Array(reduce_with(
        &x, ax, keep, &opts, f, with, span,
    )?))
}

fn max(call: Call) -> Result<Value> {
    extreme(call, kupfer::max, Some(kupfer::max_with))
}

fn min(call: Call) -> Result<Value> {
    extreme(call, kupfer::min, Some(kupfer::min_with))
}

fn nanmax(call: Call) -> Result<Value> {
    extreme(call, kupfer::nanmax, None)
}

fn nanmin(call: Call) -> Result<Value> {
    extreme(call, kupfer::nanmin, None)
}

type ArgFn = fn(&Array, Option<isize>, bool) -> kupfer::Result<Array>;

/// `argmax(a, axis=None, out=None, *, keepdims=False)`.
fn arg(call: Call, f: ArgFn) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "axis=", "out=", "*keepdims="])?;
    check_unsupported(&mut a, &["out"])?;
    let x = input(&mut a, None)?;
    let ax = single_axis(&mut a)?;
    let keep = a.bool_or("keepdims", false)?;
    Ok(Value::Array(f(&x, ax, keep).map_err(kerr(span))?))
}

fn argmax(call: Call) -> Result<Value> {
    arg(call, kupfer::argmax)
}

fn argmin(call: Call) -> Result<Value> {
    arg(call, kupfer::argmin)
}

fn nanargmax(call: Call) -> Result<Value> {
    arg(call, kupfer::nanargmax)
}

fn nanargmin(call: Call) -> Result<Value> {
    arg(call, kupfer::nanargmin)
}

/// `any(a, axis=None, out=None, keepdims=False, *, where=)`.
fn logical(call: Call, f: AxisFn, with: OptionsFn) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "axis=", "out=", "keepdims=", "*where="])?;
    check_unsupported(&mut a, &["out"])?;
    let opts = options(&mut a)?;
    let x = input(&mut a, None)?;
    let ax = axis(&mut a)?;
    let keep = a.bool_or("keepdims", false)?;
    Ok(Value::Array(reduce_with(
        &x,
        ax,
        keep,
        &opts,
        f,
        Some(with),
        span,
    )?))
}

fn any(call: Call) -> Result<Value> {
    logical(call, kupfer::any, kupfer::any_with)
}

fn all(call: Call) -> Result<Value> {
    logical(call, kupfer::all, kupfer::all_with)
}

/// `count_nonzero(a, axis=None, *, keepdims=False)`.
fn count_nonzero(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "axis=", "*keepdims="])?;
    let x = input(&mut a, None)?;
    let ax = axis(&mut a)?;
    let keep = a.bool_or("keepdims", false)?;
    Ok(Value::Array(
        kupfer::count_nonzero(&x, ax, keep).map_err(kerr(span))?,
    ))
}

/// `ptp(a, axis=None, out=None, keepdims=False)`.
fn ptp(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "axis=", "out=", "keepdims="])?;
    check_unsupported(&mut a, &["out"])?;
    let x = input(&mut a, None)?;
    let ax = axis(&mut a)?;
    let keep = a.bool_or("keepdims", false)?;
    Ok(Value::Array(kupfer::ptp(&x, ax, keep).map_err(kerr(span))?))
}

/// `average(a, axis=None, weights=None, returned=False, *, keepdims=False)`.
fn average(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "axis=", "weights=", "returned=", "*keepdims="])?;
    let x = input(&mut a, None)?;
    let ax = axis(&mut a)?;
    let weights = match a.get("weights") {
        Some(w) => Some(to_array(&w, None, span)?),
        None => None,
    };
    if a.bool_or("returned", false)? {
        return Err(EvalError::not_supported(
            span,
            "np.average(..., returned=True)",
        ));
    }
    let keep = a.bool_or("keepdims", false)?;
    Ok(Value::Array(
        kupfer::average(&x, ax, weights.as_ref(), keep).map_err(kerr(span))?,
    ))
}
