//! Statistics: `bincount`, `histogram` and `histogram_bin_edges` (uniform bins, explicit
//! edges or NumPy's bin rules), `histogram2d` and `histogramdd`, from kupfer's `stats`,
//! `sort::histogram` and `sort::histogramdd` modules; `cov` and `corrcoef` (kupfer's
//! `covariance`).

use super::{to_array, to_f64, Call, Registry};
use crate::ast::Span;
use crate::error::{EvalError, Result};
use crate::value::Value;
use kupfer::sort::{Bins, DimBins};
use kupfer::{Array, DType};

pub(super) fn register(r: &mut Registry) {
    r.native(&["bincount"], bincount);
    r.native(&["histogram"], histogram);
    r.native(&["histogram_bin_edges"], histogram_bin_edges);
    r.native(&["histogramdd"], histogramdd);
    r.native(&["histogram2d"], histogram2d);
    r.native(&["cov"], cov);
    r.native(&["corrcoef"], corrcoef);
}

/// An optional array argument.
fn optional_array(a: &mut super::Args, p: &str) -> Result<Option<kupfer::Array>> {
    let span = a.span();
    a.get(p).map(|v| to_array(&v, None, span)).transpose()
}

/// `cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *,
/// dtype=None)`.
fn cov(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&[
        "m",
        "y=",
        "rowvar=",
        "bias=",
        "ddof=",
        "fweights=",
        "aweights=",
        "*dtype=",
    ])?;
    let ddof = match a.get("ddof") {
        None => None,
        Some(Value::Scalar(kupfer::Scalar::Float(f))) if f.fract() != 0.0 || !f.is_finite() => {
            return Err(EvalError::value_error(span, "ddof must be integer"))
        }
        Some(Value::Scalar(kupfer::Scalar::Float(f))) => Some(f as i64),
        Some(v) => Some(super::to_int(&v, "argument 'ddof'", span)?),
    };
    let m = a.array("m")?;
    let y = optional_array(&mut a, "y")?;
    let opts = kupfer::CovOptions {
        rowvar: a.bool_or("rowvar", true)?,
        bias: a.bool_or("bias", false)?,
        ddof,
        fweights: optional_array(&mut a, "fweights")?,
        aweights: optional_array(&mut a, "aweights")?,
        dtype: a.dtype("dtype")?,
    };
    let c = kupfer::cov(&m, y.as_ref(), &opts).map_err(EvalError::kupfer(span))?;
    Ok(Value::Array(c))
}

/// `corrcoef(x, y=None, rowvar=True, *, dtype=None)`.
fn corrcoef(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["x", "y=", "rowvar=", "*dtype="])?;
    let x = a.array("x")?;
    let y = optional_array(&mut a, "y")?;
    let rowvar = a.bool_or("rowvar", true)?;
    let dtype = a.dtype("dtype")?;
    let c = kupfer::corrcoef(&x, y.as_ref(), rowvar, dtype).map_err(EvalError::kupfer(span))?;
    Ok(Value::Array(c))
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
    if let Some(w) = weights
        .as_ref()
        .filter(|w| matches!(w.dtype(), DType::F64 | DType::I64 | DType::U64))
    {
        return wide_bincount(&x, w, minlength, span);
    }
    let out =
        blocking::bincount(&x, weights.as_ref(), minlength).map_err(EvalError::kupfer(span))?;
    Ok(Value::Array(out))
}

/// bincount with 64-bit weights: float64 sums as NumPy's, in NumPy's order, through
/// `np.add.at`'s sort-and-scan path (kupfer's bincount accumulates with 32-bit atomics). The
/// unweighted count checks `x` and gives the length.
fn wide_bincount(x: &Array, w: &Array, minlength: usize, span: Span) -> Result<Value> {
    let k = EvalError::kupfer(span);
    if w.shape() != x.shape() {
        return Err(EvalError::value_error(
            span,
            "The weights and list don't have the same length.",
        ));
    }
    let counts = blocking::bincount(x, None, minlength).map_err(k)?;
    if x.size() == 0 {
        // NumPy's default integer zeros, weights or not.
        return Ok(Value::Array(counts));
    }
    let k = || EvalError::kupfer(span);
    let sums = kupfer::zeros(&[counts.size()], Some(DType::F64)).map_err(k())?;
    let index = if x.dtype() == DType::Bool {
        x.astype(DType::I32).map_err(k())?
    } else {
        x.clone()
    };
    let values = w.astype(DType::F64).map_err(k())?;
    crate::program::wait(
        kupfer::ufunc_at_async(
            kupfer::AtOp::Add,
            &sums,
            &[kupfer::Index::Array(index)],
            values,
        ),
        "np.bincount with float64 weights",
    )
    .map_err(k())?;
    Ok(Value::Array(sums))
}

/// `histogram(a, bins=10, range=None, density=None, weights=None)`: `(counts, bin_edges)`;
/// `bins` a count, edges or a rule name.
fn histogram(call: Call) -> Result<Value> {
    let span = call.span;
    let density = call
        .kwargs
        .iter()
        .position(|(k, _)| k == "density")
        .map(|i| call.kwargs[i].1.clone());
    let density = match density {
        None | Some(Value::None) => false,
        Some(v) => crate::interp::truthy(&v, span)?,
    };
    let (counts, edges) = histogram_args(call)?;
    let counts = if density {
        // NumPy: n / np.diff(bin_edges).astype(float) / n.sum().
        let float = super::device(span)?.default_float();
        (|| {
            let widths = kupfer::diff(&edges, 1, -1)?.astype(float)?;
            let total = counts.sum(kupfer::Axis::All, false)?;
            kupfer::divide(kupfer::divide(&counts, &widths)?, &total)
        })()
        .map_err(EvalError::kupfer(span))?
    } else {
        counts
    };
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
    // density= is applied by `histogram` (histogram_bin_edges ignores it, as NumPy's does).
    let _ = a.get("density");
    let weights = a
        .get("weights")
        .map(|w| to_array(&w, None, span))
        .transpose()?;
    blocking::histogram_bins(&x, bins, range, weights.as_ref()).map_err(EvalError::kupfer(span))
}

/// One dimension's `bins[i]` of histogramdd: an integer count or 1-D edges.
fn dim_bins(v: &Value, i: usize, span: Span) -> Result<DimBins> {
    match v {
        Value::Scalar(kupfer::Scalar::Int(n)) => {
            if *n < 1 {
                return Err(EvalError::value_error(
                    span,
                    format!("`bins[{i}]` must be positive, when an integer"),
                ));
            }
            Ok(DimBins::Count(*n as usize))
        }
        Value::Scalar(kupfer::Scalar::Float(f)) => Err(if *f < 1.0 {
            EvalError::value_error(
                span,
                format!("`bins[{i}]` must be positive, when an integer"),
            )
        } else {
            EvalError::type_error(
                span,
                format!("`bins[{i}]` must be an integer, when a scalar"),
            )
        }),
        Value::Str(_) => Err(EvalError::type_error(
            span,
            "'<' not supported between instances of 'str' and 'int'",
        )),
        Value::Array(a) if a.ndim() == 0 => Err(EvalError::not_supported(
            span,
            "a 0-d array as a bin count (pass a Python integer)",
        )),
        v => Ok(DimBins::Edges(to_array(v, None, span)?)),
    }
}

/// histogramdd's `bins`: one count for every dimension, or one entry per dimension.
fn dd_bins(v: Option<Value>, span: Span) -> Result<Vec<DimBins>> {
    match v {
        None => Ok(vec![DimBins::Count(10)]),
        Some(Value::List(items)) | Some(Value::Tuple(items)) => items
            .iter()
            .enumerate()
            .map(|(i, b)| dim_bins(b, i, span))
            .collect(),
        Some(Value::Array(a)) if a.ndim() == 2 => (0..a.shape()[0])
            .map(|i| {
                Ok(DimBins::Edges(
                    a.slice(&[kupfer::SliceArg::Index(i as isize)])
                        .map_err(EvalError::kupfer(span))?,
                ))
            })
            .collect(),
        Some(Value::Array(a)) if a.ndim() == 1 => Err(EvalError::not_supported(
            span,
            "bins as a 1-D array of per-dimension counts (pass a list)",
        )),
        Some(v) => Ok(vec![dim_bins(&v, 0, span)?]),
    }
}

/// One `(min, max)` or `None` per dimension.
type Ranges = Vec<Option<(f64, f64)>>;

/// histogramdd's `range`: `None` or one `None` / `(min, max)` per dimension.
fn dd_range(v: Option<Value>, span: Span) -> Result<Option<Ranges>> {
    match v {
        None | Some(Value::None) => Ok(None),
        Some(Value::List(items)) | Some(Value::Tuple(items)) => items
            .iter()
            .map(|r| match r {
                Value::None => Ok(None),
                Value::List(p) | Value::Tuple(p) if p.len() == 2 => Ok(Some((
                    to_f64(&p[0], "range", span)?,
                    to_f64(&p[1], "range", span)?,
                ))),
                _ => Err(EvalError::value_error(
                    span,
                    "each entry of 'range' must be None or a (min, max) pair",
                )),
            })
            .collect::<Result<Vec<_>>>()
            .map(Some),
        Some(_) => Err(EvalError::type_error(
            span,
            "'range' must be a sequence of one entry per dimension",
        )),
    }
}

/// Whether a histogramdd `bins` list has the sample's dimension count (NumPy's
/// `len(bins) != D` error; a single count applies to every dimension).
fn check_bins_len(bins: &Option<Value>, d: usize, span: Span) -> Result<()> {
    if let Some(Value::List(items) | Value::Tuple(items)) = bins {
        if items.len() != d {
            return Err(EvalError::value_error(
                span,
                "The dimension of bins must be equal to the dimension of the sample x.",
            ));
        }
    }
    Ok(())
}

/// `histogramdd(sample, bins=10, range=None, density=None, weights=None)`:
/// `(hist, [edges, ...])`; `sample` an (N, D) array or a sequence of D 1-D arrays.
fn histogramdd(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["sample", "bins=", "range=", "density=", "weights="])?;
    let raw = a.req("sample")?;
    let sample = to_array(&raw, None, span)?;
    // NumPy: a sequence of 1-D arrays is `atleast_2d(sample).T`.
    let sample = match raw {
        Value::List(_) | Value::Tuple(_) if sample.ndim() == 2 => {
            sample.t().map_err(EvalError::kupfer(span))?
        }
        _ => sample,
    };
    let d = if sample.ndim() == 2 {
        sample.shape()[1]
    } else {
        1
    };
    let bins_v = a.get("bins");
    check_bins_len(&bins_v, d, span)?;
    let bins = dd_bins(bins_v, span)?;
    let range = dd_range(a.get("range"), span)?;
    let density = a.bool_or("density", false)?;
    let weights = a
        .get("weights")
        .map(|w| to_array(&w, None, span))
        .transpose()?;
    let (hist, edges) =
        blocking::histogramdd(&sample, &bins, range.as_deref(), density, weights.as_ref())
            .map_err(EvalError::kupfer(span))?;
    Ok(Value::Tuple(vec![
        Value::Array(hist),
        Value::List(edges.into_iter().map(Value::Array).collect()),
    ]))
}

/// `histogram2d(x, y, bins=10, range=None, density=None, weights=None)`:
/// `(hist, xedges, yedges)`.
fn histogram2d(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["x", "y", "bins=", "range=", "density=", "weights="])?;
    let x = a.array("x")?;
    let y = a.array("y")?;
    // NumPy: a `bins` of length 1 or 2 is per dimension, any other sequence is the edges of
    // both dimensions.
    let bins = match a.get("bins") {
        Some(Value::List(items) | Value::Tuple(items)) if !matches!(items.len(), 1 | 2) => {
            let e = to_array(&Value::List(items), None, span)?;
            vec![DimBins::Edges(e.clone()), DimBins::Edges(e)]
        }
        Some(Value::Array(e)) if e.ndim() == 1 && !matches!(e.shape()[0], 1 | 2) => {
            vec![DimBins::Edges(e.clone()), DimBins::Edges(e)]
        }
        Some(Value::Str(_)) => {
            return Err(EvalError::type_error(
                span,
                "ufunc 'less' did not contain a loop with signature matching types",
            ))
        }
        other => {
            check_bins_len(&other, 2, span)?;
            dd_bins(other, span)?
        }
    };
    let range = dd_range(a.get("range"), span)?;
    let density = a.bool_or("density", false)?;
    let weights = a
        .get("weights")
        .map(|w| to_array(&w, None, span))
        .transpose()?;
    let (h, xe, ye) =
        blocking::histogram2d(&x, &y, &bins, range.as_deref(), density, weights.as_ref())
            .map_err(EvalError::kupfer(span))?;
    Ok(Value::Tuple(vec![
        Value::Array(h),
        Value::Array(xe),
        Value::Array(ye),
    ]))
}

/// `bincount` and `histogram` read a value back before they can size their output: natively
/// they block on it; in the browser, where nothing may block, they are a clear error.
mod blocking {
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) use kupfer::bincount;
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) use kupfer::sort::histogram_bins;
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) use kupfer::sort::{histogram2d, histogramdd};

    #[cfg(target_arch = "wasm32")]
    pub(super) fn histogramdd(
        _s: &kupfer::Array,
        _bins: &[kupfer::sort::DimBins],
        _range: Option<&[Option<(f64, f64)>]>,
        _density: bool,
        _w: Option<&kupfer::Array>,
    ) -> kupfer::Result<(kupfer::Array, Vec<kupfer::Array>)> {
        Err(kupfer::Error::unsupported(
            "histogramdd in the browser (it reads the data range back before binning, and \
             the page must not block)",
        ))
    }

    #[cfg(target_arch = "wasm32")]
    pub(super) fn histogram2d(
        _x: &kupfer::Array,
        _y: &kupfer::Array,
        _bins: &[kupfer::sort::DimBins],
        _range: Option<&[Option<(f64, f64)>]>,
        _density: bool,
        _w: Option<&kupfer::Array>,
    ) -> kupfer::Result<(kupfer::Array, kupfer::Array, kupfer::Array)> {
        Err(kupfer::Error::unsupported(
            "histogram2d in the browser (it reads the data range back before binning, and \
             the page must not block)",
        ))
    }

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
