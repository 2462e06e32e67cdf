//! Sorting: `sort`, `argsort` (also `a.argsort()`), `lexsort`, `sort_complex`, `partition`,
//! `argpartition`, `searchsorted`, `digitize`, `median`, `quantile`, `percentile` (kupfer's `sort`
//! module), `unique` and the array API's `unique_*`, `isin`, `intersect1d`, `setdiff1d`,
//! `union1d`, `setxor1d`
//! (these read a size back: natively they block, in the browser they are a clear error).
//! `q` of quantiles is a Python number or a sequence of them. Every `kind` is accepted and stable; `order=` (structured arrays) is not
//! supported.

use super::{to_array, Call, Registry};
use crate::error::{EvalError, Result};
use crate::value::{NamedTuple, Value};

pub(super) fn register(r: &mut Registry) {
    r.native(&["sort"], sort);
    r.native(&["argsort"], argsort);
    r.native(&["lexsort"], lexsort);
    r.native(&["sort_complex"], sort_complex);
    r.native(&["partition"], partition);
    r.native(&["argpartition"], argpartition);
    r.native(&["median"], |c| with_out(c, median, false));
    r.native(&["quantile"], |c| with_out(c, quantile, true));
    r.native(&["percentile"], |c| with_out(c, percentile, true));
    r.native(&["nanmedian"], |c| with_out(c, nanmedian, false));
    r.native(&["nanquantile"], |c| with_out(c, nanquantile, true));
    r.native(&["nanpercentile"], |c| with_out(c, nanpercentile, true));
    r.native(&["searchsorted"], searchsorted);
    r.native(&["digitize"], digitize);
    r.native(&["isin"], isin);
    r.native(&["unique"], unique);
    r.native(&["unique_values"], unique_values);
    r.native(&["unique_counts"], unique_counts);
    r.native(&["unique_inverse"], unique_inverse);
    r.native(&["unique_all"], unique_all);
    r.native(&["intersect1d"], intersect1d);
    r.native(&["setdiff1d"], setdiff1d);
    r.native(&["union1d"], union1d);
    r.native(&["setxor1d"], setxor1d);
}

/// `out=` (a keyword argument) of the order statistics: the result is written into `out`
/// in place (`kupfer::reduce_into`: NumPy's shape check, then a cast) and `out` is the value.
/// The quantile forms check NumPy's `same_kind` rule first (NumPy writes them with `np.add`;
/// the median forms go through `np.mean`, which casts unsafely). `overwrite_input=` is
/// accepted; `median` then leaves its input partitioned as NumPy's does (see
/// `overwrite_median_input`), the others never write to their input (NumPy's contents are
/// undefined there).
fn with_out(mut call: Call, f: fn(Call) -> Result<Value>, same_kind: bool) -> Result<Value> {
    let span = call.span;
    let at = call.kwargs.iter().position(|(k, _)| k == "out");
    let out = match at.map(|i| call.kwargs.remove(i).1) {
        None | Some(Value::None) => return f(call),
        Some(Value::Array(o)) => o,
        Some(_) => return Err(EvalError::type_error(span, "output must be an array")),
    };
    let r = match f(call)? {
        Value::Array(r) => r,
        v => to_array(&v, None, span)?,
    };
    if same_kind && !kupfer::can_cast(r.dtype(), out.dtype(), kupfer::Casting::SameKind) {
        return Err(EvalError::type_error(
            span,
            format!(
                "Cannot cast ufunc 'add' output from dtype('{}') to dtype('{}') with casting \
                 rule 'same_kind'",
                r.dtype(),
                out.dtype()
            ),
        ));
    }
    Ok(Value::Array(
        kupfer::reduce_into(&out, &r, "add").map_err(EvalError::kupfer(span))?,
    ))
}

/// `axis` of sort-like functions: absent is -1, an explicit `None` flattens.
fn sort_axis(a: &mut super::Args) -> Result<Option<isize>> {
    match a.get_raw("axis") {
        None => Ok(Some(-1)),
        Some(Value::None) => Ok(None),
        Some(v) => {
            let ctx = "sort(): argument 'axis'".to_string();
            Ok(Some(super::to_int(&v, &ctx, a.span())? as isize))
        }
    }
}

/// `kind=` and `stable=` (NumPy's `stable=True` is `kind='stable'`), `order=` refused.
fn sort_kind(a: &mut super::Args) -> Result<Option<String>> {
    let span = a.span();
    if a.get("order").is_some() {
        return Err(EvalError::not_supported(
            span,
            "order= (kupfer has no structured arrays)",
        ));
    }
    let kind = a.string("kind")?;
    let stable = a.get("stable").is_some();
    if stable && kind.is_some() {
        return Err(EvalError::value_error(
            span,
            "`kind` and `stable` parameters can't be provided at the same time. Use only one \
             of them.",
        ));
    }
    Ok(if stable { Some("stable".into()) } else { kind })
}

fn sort(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "axis=", "kind=", "order=", "stable="])?;
    let v = a.req("a")?;
    let x = to_array(&v, None, span)?;
    let axis = sort_axis(&mut a)?;
    let kind = sort_kind(&mut a)?;
    Ok(Value::Array(
        kupfer::sort(&x, axis, kind.as_deref()).map_err(EvalError::kupfer(span))?,
    ))
}

fn argsort(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "axis=", "kind=", "order=", "stable="])?;
    let v = a.req("a")?;
    let x = to_array(&v, None, span)?;
    let axis = sort_axis(&mut a)?;
    let kind = sort_kind(&mut a)?;
    Ok(Value::Array(
        kupfer::argsort(&x, axis, kind.as_deref()).map_err(EvalError::kupfer(span))?,
    ))
}

fn lexsort(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["keys", "axis="])?;
    let keys = a.req("keys")?;
    let axis = a.int("axis")?.unwrap_or(-1) as isize;
    let arrays: Vec<kupfer::Array> = match &keys {
        Value::List(items) | Value::Tuple(items) => items
            .iter()
            .map(|k| to_array(k, None, span))
            .collect::<Result<_>>()?,
        other => {
            // A 2-D array: its rows are the keys.
            let x = to_array(other, None, span)?;
            if x.ndim() == 0 {
                return Err(EvalError::type_error(
                    span,
                    "need sequence of keys with len > 0 in lexsort",
                ));
            }
            (0..x.shape()[0])
                .map(|i| {
                    x.slice(&[kupfer::SliceArg::Index(i as isize)])
                        .map_err(EvalError::kupfer(span))
                })
                .collect::<Result<_>>()?
        }
    };
    Ok(Value::Array(
        kupfer::lexsort(&arrays, axis).map_err(EvalError::kupfer(span))?,
    ))
}

fn sort_complex(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a"])?;
    let v = a.req("a")?;
    let x = to_array(&v, None, span)?;
    Ok(Value::Array(
        kupfer::sort_complex(&x).map_err(EvalError::kupfer(span))?,
    ))
}

/// `kth` of partition: an int or a sequence of ints.
fn kth_of(a: &mut super::Args) -> Result<Vec<isize>> {
    let span = a.span();
    let v = a.req("kth")?;
    super::to_axes(&v, "partition(): argument 'kth'", span)
}

fn partition_like(call: Call, arg: bool) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "kth", "axis=", "kind=", "order="])?;
    let v = a.req("a")?;
    let x = to_array(&v, None, span)?;
    let kth = kth_of(&mut a)?;
    let axis = sort_axis(&mut a)?;
    if let Some(k) = a.string("kind")? {
        if k != "introselect" {
            return Err(EvalError::value_error(
                span,
                format!("Unknown selectkind {k}"),
            ));
        }
    }
    if a.get("order").is_some() {
        return Err(EvalError::not_supported(
            span,
            "order= (kupfer has no structured arrays)",
        ));
    }
    let f = if arg {
        kupfer::argpartition
    } else {
        kupfer::partition
    };
    Ok(Value::Array(
        f(&x, &kth, axis).map_err(EvalError::kupfer(span))?,
    ))
}

fn partition(call: Call) -> Result<Value> {
    partition_like(call, false)
}

fn argpartition(call: Call) -> Result<Value> {
    partition_like(call, true)
}

/// `q`: a number (None shape) or a 1-D sequence of numbers.
fn q_of(a: &mut super::Args) -> Result<(Vec<f64>, bool)> {
    let span = a.span();
    let ctx = "quantile(): argument 'q'";
    match a.req("q")? {
        Value::List(items) | Value::Tuple(items) => Ok((
            items
                .iter()
                .map(|i| super::to_f64(i, ctx, span))
                .collect::<Result<_>>()?,
            true,
        )),
        other => Ok((vec![super::to_f64(&other, ctx, span)?], false)),
    }
}

/// 0: quantile, 1: percentile; `nan`: the NaN-ignoring forms.
fn quantile_like(call: Call, percent: bool) -> Result<Value> {
    quantile_any(call, percent, false)
}

fn nanquantile(call: Call) -> Result<Value> {
    quantile_any(call, false, true)
}

fn nanpercentile(call: Call) -> Result<Value> {
    quantile_any(call, true, true)
}

fn nanmedian(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "axis=", "out=", "overwrite_input=", "keepdims="])?;
    let v = a.req("a")?;
    let x = to_array(&v, None, span)?;
    let axes = a.axes("axis")?;
    if a.get("out").is_some() {
        return Err(EvalError::not_supported(
            span,
            "a positional out (pass out=)",
        ));
    }
    let _ = a.get("overwrite_input");
    let keepdims = a.bool_or("keepdims", false)?;
    Ok(Value::Array(
        blocking::nanmedian(&x, axes.as_deref(), keepdims).map_err(EvalError::kupfer(span))?,
    ))
}

fn quantile_any(call: Call, percent: bool, nan: bool) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&[
        "a",
        "q",
        "axis=",
        "out=",
        "overwrite_input=",
        "method=",
        "keepdims=",
        "weights=",
        "interpolation=",
    ])?;
    let v = a.req("a")?;
    let x = to_array(&v, None, span)?;
    let (q, seq) = q_of(&mut a)?;
    let axes = a.axes("axis")?;
    if a.get("out").is_some() || a.get("weights").is_some() || a.get("interpolation").is_some() {
        return Err(EvalError::not_supported(
            span,
            "a positional out, weights= or interpolation=",
        ));
    }
    let _ = a.get("overwrite_input");
    let method = a.string("method")?.unwrap_or_else(|| "linear".into());
    let keepdims = a.bool_or("keepdims", false)?;
    let axes = axes.as_deref();
    if nan {
        let r = if percent {
            blocking::nanpercentile(&x, &q, !seq, axes, &method, keepdims)
        } else {
            blocking::nanquantile(&x, &q, !seq, axes, &method, keepdims)
        };
        return Ok(Value::Array(r.map_err(EvalError::kupfer(span))?));
    }
    let r = match (percent, seq) {
        (false, false) => kupfer::quantile(&x, q[0], axes, &method, keepdims),
        (false, true) => kupfer::quantiles(&x, &q, axes, &method, keepdims),
        (true, false) => kupfer::percentile(&x, q[0], axes, &method, keepdims),
        (true, true) => kupfer::percentiles(&x, &q, axes, &method, keepdims),
    };
    Ok(Value::Array(r.map_err(EvalError::kupfer(span))?))
}

fn quantile(call: Call) -> Result<Value> {
    quantile_like(call, false)
}

fn percentile(call: Call) -> Result<Value> {
    quantile_like(call, true)
}

fn median(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "axis=", "out=", "overwrite_input=", "keepdims="])?;
    let v = a.req("a")?;
    let x = to_array(&v, None, span)?;
    let axes = a.axes("axis")?;
    if a.get("out").is_some() {
        return Err(EvalError::not_supported(
            span,
            "a positional out (pass out=)",
        ));
    }
    let overwrite = a.bool_or("overwrite_input", false)?;
    let keepdims = a.bool_or("keepdims", false)?;
    let m = kupfer::median(&x, axes.as_deref(), keepdims).map_err(EvalError::kupfer(span))?;
    if overwrite && matches!(v, Value::Array(_)) {
        overwrite_median_input(&x, axes.as_deref()).map_err(EvalError::kupfer(span))?;
    }
    Ok(Value::Array(m))
}

/// `median(a, overwrite_input=True)`: NumPy leaves the input partitioned around the middle
/// (its contents "undefined"), and so does kupfer: the input array itself along one axis, or
/// for `axis=None` its flattened form (a view of a contiguous array, else a copy, which
/// leaves the input as NumPy's `ravel()` copy does). Several axes leave it as it is.
fn overwrite_median_input(x: &kupfer::Array, axes: Option<&[isize]>) -> kupfer::Result<()> {
    let middle = |n: usize| -> Vec<isize> {
        if n.is_multiple_of(2) {
            vec![n as isize / 2 - 1, n as isize / 2]
        } else {
            vec![n as isize / 2]
        }
    };
    let (target, kth, axis) = match axes {
        None if x.size() > 0 => (x.reshape(&[-1])?, middle(x.size()), -1),
        Some([ax]) if x.size() > 0 && x.ndim() > 0 => {
            let k = kupfer::normalize_axis(*ax, x.ndim())?;
            (x.clone(), middle(x.shape()[k]), *ax)
        }
        _ => return Ok(()),
    };
    crate::program::wait(
        target.partition_in_place_async(&kth, axis),
        "median(overwrite_input=True)",
    )
}

fn searchsorted(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "v", "side=", "sorter="])?;
    let av = a.req("a")?;
    let x = to_array(&av, None, span)?;
    let vv = a.req("v")?;
    let q = to_array(&vv, None, span)?;
    let side: kupfer::sort::Side = a
        .string("side")?
        .unwrap_or_else(|| "left".into())
        .parse()
        .map_err(EvalError::kupfer(span))?;
    let sorter = match a.get("sorter") {
        Some(s) => Some(to_array(&s, None, span)?),
        None => None,
    };
    Ok(Value::Array(
        kupfer::searchsorted(&x, &q, side, sorter.as_ref()).map_err(EvalError::kupfer(span))?,
    ))
}

/// `np.digitize(x, bins, right=False)` (reads the bins' direction back: blocks natively).
fn digitize(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["x", "bins", "right="])?;
    let x = to_array(&a.req("x")?, None, span)?;
    let bins = to_array(&a.req("bins")?, None, span)?;
    let right = a.bool_or("right", false)?;
    let r = crate::program::wait(kupfer::digitize_async(&x, &bins, right), "np.digitize")
        .map_err(EvalError::kupfer(span))?;
    Ok(Value::Array(r))
}

fn isin(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&[
        "element",
        "test_elements",
        "assume_unique=",
        "invert=",
        "kind=",
    ])?;
    let e = a.req("element")?;
    let e = to_array(&e, None, span)?;
    let t = a.req("test_elements")?;
    let t = to_array(&t, None, span)?;
    let _ = a.get("assume_unique");
    let _ = a.string("kind")?;
    let invert = a.bool_or("invert", false)?;
    Ok(Value::Array(
        kupfer::isin(&e, &t, invert).map_err(EvalError::kupfer(span))?,
    ))
}

fn unique(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&[
        "ar",
        "return_index=",
        "return_inverse=",
        "return_counts=",
        "axis=",
        "equal_nan=",
        "sorted=",
    ])?;
    let v = a.req("ar")?;
    let x = to_array(&v, None, span)?;
    let ri = a.bool_or("return_index", false)?;
    let rv = a.bool_or("return_inverse", false)?;
    let rc = a.bool_or("return_counts", false)?;
    let axis = a.int("axis")?;
    let equal_nan = a.bool_or("equal_nan", true)?;
    let _ = a.bool_or("sorted", true)?;
    let u = match axis {
        None => blocking::unique(&x, ri, rv, rc, equal_nan),
        Some(ax) => blocking::unique_axis(&x, ax as isize, ri, rv, rc, equal_nan),
    }
    .map_err(EvalError::kupfer(span))?;
    if !(ri || rv || rc) {
        return Ok(Value::Array(u.values));
    }
    let mut out = vec![Value::Array(u.values)];
    out.extend(u.indices.map(Value::Array));
    out.extend(u.inverse.map(Value::Array));
    out.extend(u.counts.map(Value::Array));
    Ok(Value::Tuple(out))
}

/// `unique_values` / `unique_counts` / `unique_inverse` / `unique_all(x)`.
fn unique_api(call: Call, index: bool, inverse: bool, counts: bool) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["x"])?;
    let v = a.req("x")?;
    let x = to_array(&v, None, span)?;
    let u = blocking::unique(&x, index, inverse, counts, false).map_err(EvalError::kupfer(span))?;
    if !(index || inverse || counts) {
        return Ok(Value::Array(u.values));
    }
    let mut items = vec![Value::Array(u.values)];
    items.extend(u.indices.map(Value::Array));
    items.extend(u.inverse.map(Value::Array));
    items.extend(u.counts.map(Value::Array));
    // NumPy 2's named tuples: `uniq.values`, `uniq.counts`, ... (and plain tuple use).
    let (type_name, fields): (&'static str, &'static [&'static str]) = match (index, inverse) {
        (true, _) => (
            "UniqueAllResult",
            &["values", "indices", "inverse_indices", "counts"],
        ),
        (false, true) => ("UniqueInverseResult", &["values", "inverse_indices"]),
        (false, false) => ("UniqueCountsResult", &["values", "counts"]),
    };
    Ok(Value::Named(NamedTuple {
        type_name,
        fields,
        items,
    }))
}

fn unique_values(call: Call) -> Result<Value> {
    unique_api(call, false, false, false)
}

fn unique_counts(call: Call) -> Result<Value> {
    unique_api(call, false, false, true)
}

fn unique_inverse(call: Call) -> Result<Value> {
    unique_api(call, false, true, false)
}

fn unique_all(call: Call) -> Result<Value> {
    unique_api(call, true, true, true)
}

fn intersect1d(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["ar1", "ar2", "assume_unique=", "return_indices="])?;
    let x = a.req("ar1")?;
    let x = to_array(&x, None, span)?;
    let y = a.req("ar2")?;
    let y = to_array(&y, None, span)?;
    let _ = a.get("assume_unique");
    let ri = a.bool_or("return_indices", false)?;
    let (v, idx) = blocking::intersect1d(&x, &y, ri).map_err(EvalError::kupfer(span))?;
    Ok(match idx {
        None => Value::Array(v),
        Some((i, j)) => Value::Tuple(vec![Value::Array(v), Value::Array(i), Value::Array(j)]),
    })
}

fn setdiff1d(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["ar1", "ar2", "assume_unique="])?;
    let x = a.req("ar1")?;
    let x = to_array(&x, None, span)?;
    let y = a.req("ar2")?;
    let y = to_array(&y, None, span)?;
    let _ = a.get("assume_unique");
    Ok(Value::Array(
        blocking::setdiff1d(&x, &y).map_err(EvalError::kupfer(span))?,
    ))
}

fn union1d(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["ar1", "ar2"])?;
    let x = a.req("ar1")?;
    let x = to_array(&x, None, span)?;
    let y = a.req("ar2")?;
    let y = to_array(&y, None, span)?;
    Ok(Value::Array(
        blocking::union1d(&x, &y).map_err(EvalError::kupfer(span))?,
    ))
}

fn setxor1d(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["ar1", "ar2", "assume_unique="])?;
    let x = a.req("ar1")?;
    let x = to_array(&x, None, span)?;
    let y = a.req("ar2")?;
    let y = to_array(&y, None, span)?;
    let unique = a.bool_or("assume_unique", false)?;
    Ok(Value::Array(
        blocking::setxor1d(&x, &y, unique).map_err(EvalError::kupfer(span))?,
    ))
}

/// unique and the set functions read a size back: natively they block; in the browser,
/// where nothing may block, they are a clear error.
mod blocking {
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) use kupfer::sort::unique_axis;
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) use kupfer::sort::{nanmedian, nanpercentile, nanquantile};
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) use kupfer::{intersect1d, setdiff1d, setxor1d, union1d, unique};

    #[cfg(target_arch = "wasm32")]
    pub(super) fn unique_axis(
        _x: &kupfer::Array,
        _axis: isize,
        _i: bool,
        _v: bool,
        _c: bool,
        _e: bool,
    ) -> kupfer::Result<kupfer::sort::Unique> {
        refuse("unique")
    }

    #[cfg(target_arch = "wasm32")]
    pub(super) fn nanmedian(
        _x: &kupfer::Array,
        _axes: Option<&[isize]>,
        _k: bool,
    ) -> kupfer::Result<kupfer::Array> {
        refuse("nanmedian")
    }

    #[cfg(target_arch = "wasm32")]
    pub(super) fn nanquantile(
        _x: &kupfer::Array,
        _q: &[f64],
        _s: bool,
        _axes: Option<&[isize]>,
        _m: &str,
        _k: bool,
    ) -> kupfer::Result<kupfer::Array> {
        refuse("nanquantile")
    }

    #[cfg(target_arch = "wasm32")]
    pub(super) fn nanpercentile(
        _x: &kupfer::Array,
        _q: &[f64],
        _s: bool,
        _axes: Option<&[isize]>,
        _m: &str,
        _k: bool,
    ) -> kupfer::Result<kupfer::Array> {
        refuse("nanpercentile")
    }

    #[cfg(target_arch = "wasm32")]
    fn refuse<T>(what: &str) -> kupfer::Result<T> {
        Err(kupfer::Error::unsupported(format!(
            "{what} in the browser (it reads its size back, and the page must not block)"
        )))
    }

    #[cfg(target_arch = "wasm32")]
    pub(super) fn unique(
        _x: &kupfer::Array,
        _i: bool,
        _v: bool,
        _c: bool,
        _e: bool,
    ) -> kupfer::Result<kupfer::sort::Unique> {
        refuse("unique")
    }

    #[cfg(target_arch = "wasm32")]
    #[allow(clippy::type_complexity)]
    pub(super) fn intersect1d(
        _x: &kupfer::Array,
        _y: &kupfer::Array,
        _r: bool,
    ) -> kupfer::Result<(kupfer::Array, Option<(kupfer::Array, kupfer::Array)>)> {
        refuse("intersect1d")
    }

    #[cfg(target_arch = "wasm32")]
    pub(super) fn union1d(_x: &kupfer::Array, _y: &kupfer::Array) -> kupfer::Result<kupfer::Array> {
        refuse("union1d")
    }

    #[cfg(target_arch = "wasm32")]
    pub(super) fn setxor1d(
        _x: &kupfer::Array,
        _y: &kupfer::Array,
        _u: bool,
    ) -> kupfer::Result<kupfer::Array> {
        refuse("setxor1d")
    }

    #[cfg(target_arch = "wasm32")]
    pub(super) fn setdiff1d(
        _x: &kupfer::Array,
        _y: &kupfer::Array,
    ) -> kupfer::Result<kupfer::Array> {
        refuse("setdiff1d")
    }
}
