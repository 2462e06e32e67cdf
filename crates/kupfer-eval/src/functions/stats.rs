//! Statistics: `bincount`, `histogram` and `histogram_bin_edges` (uniform bins, explicit
//! edges or NumPy's bin rules), from kupfer's `stats` and `sort::histogram` modules.

use super::{to_array, to_f64, Call, Registry};
use crate::error::{EvalError, Result};
use crate::value::Value;
use kupfer::sort::Bins;

pub(super) fn register(r: &mut Registry) {
    r.native(&["bincount"], bincount);
    r.native(&["histogram"], histogram);
    r.native(&["histogram_bin_edges"], histogram_bin_edges);
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

/// `histogram(a, bins=10, range=None, density=None, weights=None)`: `(counts, bin_edges)`;
/// `bins` a count, edges or a rule name.
fn histogram(call: Call) -> Result<Value> {
    let (counts, edges) = histogram_args(call)?;
    Ok(Value::Tuple(vec![
        Value::Array(counts),
        Value::Array(edges),
    ]))
}

/// `histogram_bin_edges(a, bins=10, range=None, weights=None)`.
fn histogram_bin_edges(call: Call) -> Result<Value> {
    Ok(Value::Array(histogram_args(call)?.1))
}

fn histogram_args(call: Call) -> Result<(kupfer::Array, kupfer::Array)> {
    let span = call.span;
    let mut a = call.bind(&["a", "bins=", "range=", "density=", "weights="])?;
    let x = a.array("a")?;
    let bins = match a.get("bins") {
        None => Bins::Count(10),
        Some(v @ (Value::Array(_) | Value::List(_) | Value::Tuple(_))) => {
            Bins::Edges(to_array(&v, None, span)?)
        }
        Some(Value::Str(rule)) => Bins::Rule(rule),
        Some(v) => {
            let n = super::to_int(&v, "'bins'", span)?;
            Bins::Count(usize::try_from(n).ok().filter(|&n| n > 0).ok_or_else(|| {
                EvalError::value_error(span, "`bins` must be positive, when an integer")
            })?)
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
    blocking::histogram_bins(&x, bins, range, weights.as_ref()).map_err(EvalError::kupfer(span))
}

/// `bincount` and `histogram` read a value back before they can size their output: natively
/// they block on it; in the browser, where nothing may block, they are a clear error.
mod blocking {
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) use kupfer::bincount;
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) use kupfer::sort::histogram_bins;

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
    pub(super) fn histogram_bins(
        _a: &kupfer::Array,
        _bins: kupfer::sort::Bins,
        _range: Option<(f64, f64)>,
        _w: Option<&kupfer::Array>,
    ) -> kupfer::Result<(kupfer::Array, kupfer::Array)> {
        Err(kupfer::Error::unsupported(
            "histogram in the browser (it reads the data range back before binning, and the \
             page must not block)",
        ))
    }
}
