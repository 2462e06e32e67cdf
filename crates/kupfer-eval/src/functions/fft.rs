//! `np.fft`: the transforms of kupfer's `fft` module (`fft.fft(z, axis=0)`, `fft.rfft2(x)`,
//! ...), `fftfreq`/`rfftfreq` and `fftshift`/`ifftshift`.
//!
//! Results are complex64 (float32 for `irfft*`/`hfft`) where NumPy gives complex128/float64:
//! kupfer has no complex128.

use super::{to_shape, Call, Registry};
use crate::error::{EvalError, Result};
use crate::value::Value;
use kupfer::fft::{self, Norm};
use kupfer::Array;

pub(super) fn register(r: &mut Registry) {
    r.native(&["fft.fft"], |c| one(c, fft::fft));
    r.native(&["fft.ifft"], |c| one(c, fft::ifft));
    r.native(&["fft.rfft"], |c| one(c, fft::rfft));
    r.native(&["fft.irfft"], |c| one(c, fft::irfft));
    r.native(&["fft.hfft"], |c| one(c, fft::hfft));
    r.native(&["fft.ihfft"], |c| one(c, fft::ihfft));
    r.native(&["fft.fft2"], |c| many(c, fft::fft2, true));
    r.native(&["fft.ifft2"], |c| many(c, fft::ifft2, true));
    r.native(&["fft.rfft2"], |c| many(c, fft::rfft2, true));
    r.native(&["fft.irfft2"], |c| many(c, fft::irfft2, true));
    r.native(&["fft.fftn"], |c| many(c, fft::fftn, false));
    r.native(&["fft.ifftn"], |c| many(c, fft::ifftn, false));
    r.native(&["fft.rfftn"], |c| many(c, fft::rfftn, false));
    r.native(&["fft.irfftn"], |c| many(c, fft::irfftn, false));
    r.native(&["fft.fftfreq"], |c| freq(c, fft::fftfreq));
    r.native(&["fft.rfftfreq"], |c| freq(c, fft::rfftfreq));
    r.native(&["fft.fftshift"], |c| shift(c, fft::fftshift));
    r.native(&["fft.ifftshift"], |c| shift(c, fft::ifftshift));
}

type OneFn = fn(&Array, Option<usize>, isize, Norm) -> kupfer::Result<Array>;
type ManyFn = fn(&Array, Option<&[usize]>, Option<&[isize]>, Norm) -> kupfer::Result<Array>;

fn norm(a: &mut super::Args) -> Result<Norm> {
    let span = a.span();
    match a.string("norm")? {
        None => Ok(Norm::Backward),
        Some(s) => Norm::from_name(&s).map_err(|e| EvalError::value_error(span, e.to_string())),
    }
}

fn no_out(a: &mut super::Args) -> Result<()> {
    if a.get("out").is_some() {
        return Err(EvalError::not_supported(
            a.span(),
            "out= (kupfer eval computes new arrays; it never writes into one)",
        ));
    }
    Ok(())
}

/// `f(a, n=None, axis=-1, norm=None, out=None)`.
fn one(call: Call, f: OneFn) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "n=", "axis=", "norm=", "out="])?;
    no_out(&mut a)?;
    let x = a.array("a")?;
    let n = match a.int("n")? {
        None => None,
        Some(n) if n < 1 => {
            return Err(EvalError::value_error(
                span,
                format!("Invalid number of FFT data points ({n}) specified."),
            ))
        }
        Some(n) => Some(n as usize),
    };
    let axis = a.int("axis")?.unwrap_or(-1) as isize;
    let norm = norm(&mut a)?;
    Ok(Value::Array(
        f(&x, n, axis, norm).map_err(EvalError::kupfer(span))?,
    ))
}

/// `f(a, s=None, axes=None, norm=None, out=None)` (2-D forms default to axes (-2, -1)).
fn many(call: Call, f: ManyFn, two: bool) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "s=", "axes=", "norm=", "out="])?;
    no_out(&mut a)?;
    let x = a.array("a")?;
    let s = match a.get("s") {
        None => None,
        Some(v) => Some(to_shape(&v, "s", span).map_err(|_| {
            EvalError::value_error(span, "Invalid number of FFT data points specified in s.")
        })?),
    };
    let axes = a.axes("axes")?;
    let norm = norm(&mut a)?;
    let axes = match (axes, two) {
        (Some(ax), _) => Some(ax),
        (None, true) => Some(vec![-2, -1]),
        (None, false) => None,
    };
    Ok(Value::Array(
        f(&x, s.as_deref(), axes.as_deref(), norm).map_err(EvalError::kupfer(span))?,
    ))
}

/// `f(n, d=1.0)`.
fn freq(call: Call, f: fn(usize, f64) -> kupfer::Result<Array>) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["n", "d=", "*device="])?;
    let n = a.req_int("n")?;
    let n = usize::try_from(n)
        .map_err(|_| EvalError::value_error(span, "negative dimensions are not allowed"))?;
    let d = a.float("d")?.unwrap_or(1.0);
    Ok(Value::Array(f(n, d).map_err(EvalError::kupfer(span))?))
}

/// `f(x, axes=None)`.
fn shift(call: Call, f: fn(&Array, Option<&[isize]>) -> kupfer::Result<Array>) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["x", "axes="])?;
    let x = a.array("x")?;
    let axes = a.axes("axes")?;
    Ok(Value::Array(
        f(&x, axes.as_deref()).map_err(EvalError::kupfer(span))?,
    ))
}
