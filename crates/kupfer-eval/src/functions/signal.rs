//! `scipy.signal` in kupfer eval: `signal.convolve2d`, `signal.correlate2d`,
//! `signal.convolve`, `signal.correlate`, `signal.fftconvolve` (also spelled
//! `scipy.signal.…`), and NumPy's 1-D `np.convolve` / `np.correlate`, from kupfer's `signal`
//! module.

use super::{to_array, Args, Call, Registry};
use crate::ast::Span;
use crate::error::{EvalError, Result};
use crate::value::Value;
use kupfer::signal::{self, Boundary, Method, Mode};
use kupfer::{Array, Scalar, SliceArg};

pub(super) fn register(r: &mut Registry) {
    r.native(&["signal.convolve2d"], convolve2d);
    r.native(&["signal.correlate2d"], correlate2d);
    r.native(&["signal.convolve"], convolve);
    r.native(&["signal.correlate"], correlate);
    r.native(&["signal.fftconvolve"], fftconvolve);
    r.native(&["convolve"], np_convolve);
    r.native(&["correlate"], np_correlate);
}

fn kerr(span: Span) -> impl FnOnce(kupfer::Error) -> EvalError {
    EvalError::kupfer(span)
}

/// The `mode` argument (SciPy's names; `default` when absent).
fn mode(a: &mut Args, default: Mode) -> Result<Mode> {
    let span = a.span();
    match a.string("mode")? {
        None => Ok(default),
        Some(s) => s.parse().map_err(kerr(span)),
    }
}

fn method(a: &mut Args) -> Result<Method> {
    let span = a.span();
    match a.string("method")? {
        None => Ok(Method::Auto),
        Some(s) => s.parse().map_err(kerr(span)),
    }
}

fn conv2d(call: Call, correlate: bool) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["in1", "in2", "mode=", "boundary=", "fillvalue="])?;
    let in1 = a.array("in1")?;
    let in2 = a.array("in2")?;
    let mode = mode(&mut a, Mode::Full)?;
    let boundary: Boundary = match a.string("boundary")? {
        None => Boundary::Fill,
        Some(s) => s.parse().map_err(kerr(span))?,
    };
    let fill = match a.get("fillvalue") {
        None => Scalar::Int(0),
        Some(Value::Scalar(s)) => s,
        Some(Value::Array(x)) if x.size() == 1 => array_item(&x).map_err(kerr(span))?,
        Some(_) => {
            return Err(EvalError::value_error(
                span,
                "fillvalue must be scalar or an array with one element.",
            ))
        }
    };
    let out = if correlate {
        signal::correlate2d(&in1, &in2, mode, boundary, fill)
    } else {
        signal::convolve2d(&in1, &in2, mode, boundary, fill)
    };
    Ok(Value::Array(out.map_err(kerr(span))?))
}

/// `signal.convolve2d(in1, in2, mode='full', boundary='fill', fillvalue=0)`.
fn convolve2d(call: Call) -> Result<Value> {
    conv2d(call, false)
}

/// `signal.correlate2d(in1, in2, mode='full', boundary='fill', fillvalue=0)`.
fn correlate2d(call: Call) -> Result<Value> {
    conv2d(call, true)
}

fn conv_nd(call: Call, correlate: bool) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["in1", "in2", "mode=", "method="])?;
    let in1 = a.array("in1")?;
    let in2 = a.array("in2")?;
    let mode = mode(&mut a, Mode::Full)?;
    let method = method(&mut a)?;
    let out = if correlate {
        signal::correlate(&in1, &in2, mode, method)
    } else {
        signal::convolve(&in1, &in2, mode, method)
    };
    Ok(Value::Array(out.map_err(kerr(span))?))
}

/// `signal.convolve(in1, in2, mode='full', method='auto')`.
fn convolve(call: Call) -> Result<Value> {
    conv_nd(call, false)
}

/// `signal.correlate(in1, in2, mode='full', method='auto')`.
fn correlate(call: Call) -> Result<Value> {
    conv_nd(call, true)
}

/// `signal.fftconvolve(in1, in2, mode='full', axes=None)`.
fn fftconvolve(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["in1", "in2", "mode=", "axes="])?;
    let in1 = a.array("in1")?;
    let in2 = a.array("in2")?;
    let mode = mode(&mut a, Mode::Full)?;
    let axes = a.axes("axes")?;
    let out = signal::fftconvolve(&in1, &in2, mode, axes.as_deref()).map_err(kerr(span))?;
    Ok(Value::Array(out))
}

/// A 1-D operand of `np.convolve` / `np.correlate` (0-d counts as one element).
fn one_d(v: &Value, which: &str, span: Span) -> Result<Array> {
    let x = to_array(v, None, span)?;
    let x = match x.ndim() {
        0 => x.reshape(&[1]).map_err(kerr(span))?,
        1 => x,
        _ => {
            return Err(EvalError::value_error(
                span,
                "object too deep for desired array",
            ))
        }
    };
    if x.size() == 0 {
        return Err(EvalError::value_error(
            span,
            format!("{which} cannot be empty"),
        ));
    }
    Ok(x)
}

/// `np.convolve(a, v, mode='full')`: the longer input is the signal, so `same` has the
/// longer length.
fn np_convolve(call: Call) -> Result<Value> {
    let span = call.span;
    let mut args = call.bind(&["a", "v", "mode="])?;
    let a = one_d(&args.req("a")?, "a", span)?;
    let v = one_d(&args.req("v")?, "v", span)?;
    let mode = mode(&mut args, Mode::Full)?;
    let (long, short) = if v.size() > a.size() {
        (&v, &a)
    } else {
        (&a, &v)
    };
    let out = signal::convolve(long, short, mode, Method::Auto).map_err(kerr(span))?;
    Ok(Value::Array(out))
}

/// `np.correlate(a, v, mode='valid')`: `c[k] = sum_n a[n + k] * conj(v[n])`; a shorter `a`
/// is handled as NumPy does (the swapped correlation, conjugated and reversed).
fn np_correlate(call: Call) -> Result<Value> {
    let span = call.span;
    let mut args = call.bind(&["a", "v", "mode="])?;
    let a = one_d(&args.req("a")?, "first array argument", span)?;
    let v = one_d(&args.req("v")?, "second array argument", span)?;
    let mode = mode(&mut args, Mode::Valid)?;
    let out = if a.size() >= v.size() {
        signal::correlate(&a, &v, mode, Method::Auto)
    } else {
        // NumPy swaps the inputs: the plain correlation of conj(v) with a, reversed.
        let rev = |x: &Array| {
            x.slice(&[SliceArg::Slice {
                start: None,
                stop: None,
                step: Some(-1),
            }])
        };
        (|| {
            let cv = if v.dtype().is_complex() {
                kupfer::conj(&v)?
            } else {
                v.clone()
            };
            rev(&signal::convolve(&cv, &rev(&a)?, mode, Method::Auto)?)
        })()
    };
    Ok(Value::Array(out.map_err(kerr(span))?))
}

/// A one-element array's value: a blocking read-back natively; in the browser, where nothing
/// may block, a clear error asking for a number instead.
fn array_item(x: &kupfer::Array) -> kupfer::Result<Scalar> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        x.item()
    }
    #[cfg(target_arch = "wasm32")]
    {
        let _ = x;
        Err(kupfer::Error::unsupported(
            "an array fillvalue in the browser (pass a number)",
        ))
    }
}
