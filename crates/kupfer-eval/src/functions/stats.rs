//! Statistics that need no sort: `bincount` and `histogram` (uniform bins), from kupfer's
//! `stats` module.

use super::{to_array, to_f64, Call, Registry};
use crate::error::{EvalError, Result};
use crate::value::Value;

pub(super) fn register(r: &mut Registry) {
    r.native(&["bincount"], bincount);
    r.native(&["histogram"], histogram);
}

/// `bincount(x, weights=None, minlength=0)`.
fn bincount(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["x", "weights=", "minlength="])?;
    let x = a.array("x")?;
    let weights = a
        .get("weights")
        .map(|w| to_array(&w, None, span))
        .transpose()?;
    let minlength = a.int("minlength")?.unwrap_or(0);
    let minlength = usize::try_from(minlength)
        .map_err(|_| EvalError::value_error(span, "'minlength' must not be negative"))?;
    let out =
        blocking::bincount(&x, weights.as_ref(), minlength).map_err(EvalError::kupfer(span))?;
    Ok(Value::Array(out))
}

/// `histogram(a, bins=10, range=None, density=None, weights=None)`: `(counts, bin_edges)`.
fn histogram(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "bins=", "range=", "density=", "weights="])?;
    let x = a.array("a")?;
    let bins = match a.get("bins") {
        None => 10,
        Some(Value::Array(_)) | Some(Value::List(_)) | Some(Value::Tuple(_)) => {
            return Err(EvalError::not_supported(
                span,
                "bins given as edges (kupfer's histogram has uniform bins: pass a count)",
            ))
        }
        Some(v) => {
            let n = super::to_int(&v, "'bins'", span)?;
            usize::try_from(n).ok().filter(|&n| n > 0).ok_or_else(|| {
                EvalError::value_error(span, "`bins` must be positive, when an integer")
            })?
        }
    };
    let range = match a.get("range") {
        None => None,
        Some(Value::Tuple(items)) | Some(Value::List(items)) if items.len() == 2 => Some((
            to_f64(&items[0], "range", span)?,
            to_f64(&items[1], "range", span)?,
        )),
        Some(_) => {
            return Err(EvalError::value_error(
                span,
                "'range' must be a (min, max) pair",
            ));
        }
    };
    if a.bool_or("density", false)? {
        return Err(EvalError::not_supported(span, "density=True"));
    }
    let weights = a
        .get("weights")
        .map(|w| to_array(&w, None, span))
        .transpose()?;
    let (counts, edges) =
        blocking::histogram(&x, bins, range, weights.as_ref()).map_err(EvalError::kupfer(span))?;
    Ok(Value::Tuple(vec![
        Value::Array(counts),
        Value::Array(edges),
    ]))
}

/// `bincount` and `histogram` read a value back before they can size their output: natively
/// they block on it; in the browser, where nothing may block, they are a clear error.
mod blocking {
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) use kupfer::{bincount, histogram};

    #[cfg(target_arch = "wasm32")]
    pub(super) fn bincount(
        _x: &kupfer::Array,
        _w: Option<&kupfer::Array>,
        _minlength: usize,
    ) -> kupfer::Result<kupfer::Array> {
        Err(kupfer::Error::unsupported(
            "bincount in the browser (it reads the maximum back before sizing its output, \
             and the page must not block)",
        ))
    }

    #[cfg(target_arch = "wasm32")]
    pub(super) fn histogram(
        _a: &kupfer::Array,
        _bins: usize,
        _range: Option<(f64, f64)>,
        _w: Option<&kupfer::Array>,
    ) -> kupfer::Result<(kupfer::Array, kupfer::Array)> {
        Err(kupfer::Error::unsupported(
            "histogram in the browser (it reads the data range back before binning, and the \
             page must not block)",
        ))
    }
}
