//! Array creation: `zeros`, `ones`, `empty`, `full` and their `_like` forms, `arange`,
//! `linspace`, `eye`, `identity`, `meshgrid`, `array`/`asarray`, `copy`, and the dtype
//! helpers `dtype` and `can_cast`.

use super::{to_array, to_dtype, Args, Call, Registry};
use crate::error::{EvalError, Result};
use crate::value::Value;
use kupfer::{Array, DType, Scalar};

pub(super) fn register(r: &mut Registry) {
    r.native(&["zeros"], zeros);
    r.native(&["ones"], ones);
    r.native(&["empty"], empty);
    r.native(&["full"], full);
    r.native(&["zeros_like"], zeros_like);
    r.native(&["ones_like"], ones_like);
    r.native(&["empty_like"], empty_like);
    r.native(&["full_like"], full_like);
    r.native(&["arange"], arange);
    r.native(&["linspace"], linspace);
    r.native(&["eye"], eye);
    r.native(&["identity"], identity);
    r.native(&["meshgrid"], meshgrid);
    r.native(&["array"], array);
    r.native(&["asarray", "asanyarray"], asarray);
    r.native(&["ascontiguousarray"], ascontiguousarray);
    r.native(&["copy"], copy);
    r.native(&["dtype"], dtype);
    r.native(&["can_cast"], can_cast);
}

fn kerr(span: crate::ast::Span) -> impl FnOnce(kupfer::Error) -> EvalError {
    EvalError::kupfer(span)
}

/// A new C-ordered array laid out as `order=` `'F'` asks (the values are the same; the layout
/// shows in `ravel(order='K')` and the flags).
fn in_order(a: Array, order: kupfer::Order, span: crate::ast::Span) -> Result<Array> {
    match order {
        kupfer::Order::F if a.ndim() > 1 => a.copy_order(order).map_err(kerr(span)),
        _ => Ok(a),
    }
}

fn filled(call: Call, f: fn(&[usize], Option<DType>) -> kupfer::Result<Array>) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["shape", "dtype=", "order=", "*device=", "*like="])?;
    let order = a.order_cf("order")?;
    let shape = a.shape("shape")?;
    let dtype = a.dtype("dtype")?;
    let out = f(&shape, dtype).map_err(kerr(span))?;
    Ok(Value::Array(in_order(out, order, span)?))
}

fn zeros(call: Call) -> Result<Value> {
    filled(call, kupfer::zeros)
}

fn ones(call: Call) -> Result<Value> {
    filled(call, kupfer::ones)
}

fn empty(call: Call) -> Result<Value> {
    filled(call, kupfer::empty)
}

/// `value` (a Python scalar, or an array broadcast to `shape`) filling `shape`.
fn fill(shape: &[usize], value: &Value, dtype: Option<DType>, a: &Args) -> Result<Array> {
    let span = a.span();
    match value {
        Value::Scalar(s) => kupfer::full(shape, *s, dtype).map_err(kerr(span)),
        other => {
            let v = to_array(other, dtype, span)?;
            v.broadcast_to(shape)
                .and_then(|b| b.copy())
                .map_err(kerr(span))
        }
    }
}

fn full(call: Call) -> Result<Value> {
    let mut a = call.bind(&[
        "shape",
        "fill_value",
        "dtype=",
        "order=",
        "*device=",
        "*like=",
    ])?;
    let order = a.order_cf("order")?;
    let shape = a.shape("shape")?;
    let value = a.req("fill_value")?;
    let dtype = a.dtype("dtype")?;
    let out = fill(&shape, &value, dtype, &a)?;
    Ok(Value::Array(in_order(out, order, a.span())?))
}

/// The prototype, dtype and shape of a `*_like` call.
fn like(a: &mut Args) -> Result<(Array, DType, Vec<usize>)> {
    let proto = a.array("a")?;
    let dtype = a.dtype("dtype")?.unwrap_or(proto.dtype());
    let shape = match a.get("shape") {
        Some(s) => super::to_shape(&s, "argument 'shape'", a.span())?,
        None => proto.shape().to_vec(),
    };
    Ok((proto, dtype, shape))
}

/// A `*_like` result laid out as `order=` (default `'K'`) says for the prototype.
fn like_layout(out: Array, proto: &Array, a: &mut Args) -> Result<Value> {
    let order = a.order("order", kupfer::Order::K)?;
    Ok(Value::Array(
        out.with_layout_of(proto, order).map_err(kerr(a.span()))?,
    ))
}

const LIKE_PARAMS: [&str; 6] = ["a", "dtype=", "order=", "subok=", "shape=", "*device="];

fn zeros_like(call: Call) -> Result<Value> {
    let mut a = call.bind(&LIKE_PARAMS)?;
    let (proto, dtype, shape) = like(&mut a)?;
    let out = kupfer::zeros(&shape, Some(dtype)).map_err(kerr(a.span()))?;
    like_layout(out, &proto, &mut a)
}

fn ones_like(call: Call) -> Result<Value> {
    let mut a = call.bind(&LIKE_PARAMS)?;
    let (proto, dtype, shape) = like(&mut a)?;
    let out = kupfer::ones(&shape, Some(dtype)).map_err(kerr(a.span()))?;
    like_layout(out, &proto, &mut a)
}

fn empty_like(call: Call) -> Result<Value> {
    let mut a = call.bind(&LIKE_PARAMS)?;
    let (proto, dtype, shape) = like(&mut a)?;
    let _on = proto.device().use_device();
    let out = kupfer::empty(&shape, Some(dtype)).map_err(kerr(a.span()))?;
    like_layout(out, &proto, &mut a)
}

fn full_like(call: Call) -> Result<Value> {
    let mut a = call.bind(&[
        "a",
        "fill_value",
        "dtype=",
        "order=",
        "subok=",
        "shape=",
        "*device=",
    ])?;
    let (proto, dtype, shape) = like(&mut a)?;
    let value = a.req("fill_value")?;
    let out = fill(&shape, &value, Some(dtype), &a)?;
    like_layout(out, &proto, &mut a)
}

fn arange(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["start", "stop=", "step=", "dtype=", "*device=", "*like="])?;
    let first = a.scalar("start")?.ok_or_else(|| {
        EvalError::type_error(span, "np.arange(): argument 'start' must not be None")
    })?;
    let (start, stop) = match a.scalar("stop")? {
        Some(stop) => (first, stop),
        None => (Scalar::Int(0), first),
    };
    let step = a.scalar("step")?.unwrap_or(Scalar::Int(1));
    let dtype = a.dtype("dtype")?;
    Ok(Value::Array(
        kupfer::arange(start, stop, step, dtype).map_err(kerr(span))?,
    ))
}

fn linspace(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&[
        "start",
        "stop",
        "num=",
        "endpoint=",
        "retstep=",
        "dtype=",
        "axis=",
        "*device=",
    ])?;
    let start = a.float("start")?.unwrap_or(0.0);
    let stop = a.float("stop")?.unwrap_or(0.0);
    let num = a.int("num")?.unwrap_or(50);
    let num = usize::try_from(num).map_err(|_| {
        EvalError::value_error(
            span,
            format!("Number of samples, {num}, must be non-negative."),
        )
    })?;
    let endpoint = a.bool_or("endpoint", true)?;
    let retstep = a.bool_or("retstep", false)?;
    let dtype = a.dtype("dtype")?;
    if a.int("axis")?.unwrap_or(0) != 0 {
        return Err(EvalError::not_supported(
            span,
            "np.linspace() with axis other than 0",
        ));
    }
    let samples =
        Value::Array(kupfer::linspace(start, stop, num, endpoint, dtype).map_err(kerr(span))?);
    if !retstep {
        return Ok(samples);
    }
    let div = if endpoint { num.saturating_sub(1) } else { num };
    let step = if div > 0 {
        (stop - start) / div as f64
    } else {
        f64::NAN
    };
    Ok(Value::Tuple(vec![
        samples,
        Value::Scalar(Scalar::Float(step)),
    ]))
}

fn dim(a: &mut Args, p: &str) -> Result<usize> {
    let span = a.span();
    let n = a.req_int(p)?;
    usize::try_from(n)
        .map_err(|_| EvalError::value_error(span, "negative dimensions are not allowed"))
}

fn eye(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["N", "M=", "k=", "dtype=", "order=", "*device=", "*like="])?;
    let order = a.order_cf("order")?;
    let n = dim(&mut a, "N")?;
    let m = match a.get("M") {
        Some(v) => Some(
            usize::try_from(super::to_int(&v, "np.eye(): argument 'M'", span)?)
                .map_err(|_| EvalError::value_error(span, "negative dimensions are not allowed"))?,
        ),
        None => None,
    };
    let k = a.int("k")?.unwrap_or(0) as isize;
    let dtype = a.dtype("dtype")?;
    let out = kupfer::eye(n, m, k, dtype).map_err(kerr(span))?;
    Ok(Value::Array(in_order(out, order, span)?))
}

fn identity(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["n", "dtype=", "*like="])?;
    let n = dim(&mut a, "n")?;
    let dtype = a.dtype("dtype")?;
    Ok(Value::Array(
        kupfer::identity(n, dtype).map_err(kerr(span))?,
    ))
}

fn meshgrid(call: Call) -> Result<Value> {
    let span = call.span;
    let (xs, mut a) = call.split_varargs(&["*copy=", "*sparse=", "*indexing="])?;
    let indexing = a.string("indexing")?.unwrap_or_else(|| "xy".into());
    if indexing != "xy" && indexing != "ij" {
        return Err(EvalError::value_error(
            span,
            "np.meshgrid(): valid values for `indexing` are 'xy' and 'ij'",
        ));
    }
    let sparse = a.bool_or("sparse", false)?;
    a.bool_or("copy", true)?;
    let arrays = xs
        .iter()
        .map(|x| to_array(x, None, span))
        .collect::<Result<Vec<_>>>()?;
    let k = kerr(span);
    let grids = if sparse {
        let n = arrays.len();
        arrays
            .iter()
            .enumerate()
            .map(|(i, x)| {
                let mut axis = i;
                if indexing == "xy" && n >= 2 && i < 2 {
                    axis = 1 - i;
                }
                let mut s = vec![1isize; n];
                s[axis] = -1;
                x.ravel().and_then(|r| r.reshape(&s))
            })
            .collect::<kupfer::Result<Vec<_>>>()
    } else {
        kupfer::meshgrid(&arrays, &indexing)
    }
    .map_err(k)?;
    Ok(Value::Tuple(grids.into_iter().map(Value::Array).collect()))
}

fn with_ndmin(a: Array, ndmin: usize, span: crate::ast::Span) -> Result<Array> {
    if a.ndim() >= ndmin {
        return Ok(a);
    }
    let mut shape: Vec<isize> = vec![1; ndmin - a.ndim()];
    shape.extend(a.shape().iter().map(|&d| d as isize));
    a.reshape(&shape).map_err(kerr(span))
}

fn array(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&[
        "object", "dtype=", "*copy=", "*order=", "*subok=", "*ndmin=", "*like=",
    ])?;
    let order = a.order("order", kupfer::Order::K)?;
    let obj = a.req("object")?;
    let dtype = a.dtype("dtype")?;
    let copy = a.bool_or("copy", true)?;
    let ndmin = usize::try_from(a.int("ndmin")?.unwrap_or(0))
        .map_err(|_| EvalError::value_error(span, "np.array(): ndmin must be non-negative"))?;
    let arr = to_array(&obj, dtype, span)?;
    let arr = match &obj {
        Value::Array(o) if o.dtype() == arr.dtype() && copy => arr.copy_order(order),
        Value::Array(o) if o.dtype() == arr.dtype() => arr.as_order(order),
        Value::Array(o) => arr.with_layout_of(o, order),
        _ => arr.with_layout_of(&arr, order),
    }
    .map_err(kerr(span))?;
    Ok(Value::Array(with_ndmin(arr, ndmin, span)?))
}

fn asarray(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "dtype=", "order=", "*device=", "*copy=", "*like="])?;
    let order = a.order("order", kupfer::Order::K)?;
    let obj = a.req("a")?;
    let dtype = a.dtype("dtype")?;
    let copy = a.bool_or("copy", false)?;
    let arr = to_array(&obj, dtype, span)?;
    let arr = match &obj {
        Value::Array(o) if o.dtype() == arr.dtype() && copy => arr.copy_order(order),
        Value::Array(o) if o.dtype() == arr.dtype() => arr.as_order(order),
        Value::Array(o) => arr.with_layout_of(o, order),
        _ => arr.with_layout_of(&arr, order),
    }
    .map_err(kerr(span))?;
    Ok(Value::Array(arr))
}

fn ascontiguousarray(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "dtype=", "*like="])?;
    let obj = a.req("a")?;
    let dtype = a.dtype("dtype")?;
    let arr = to_array(&obj, dtype, span)?;
    let arr = with_ndmin(arr, 1, span)?;
    Ok(Value::Array(arr.ascontiguousarray().map_err(kerr(span))?))
}

fn copy(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "order=", "subok="])?;
    let order = a.order("order", kupfer::Order::K)?;
    let arr = a.array("a")?;
    Ok(Value::Array(arr.copy_order(order).map_err(kerr(span))?))
}

fn dtype(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["dtype", "align=", "copy="])?;
    let v = a.req("dtype")?;
    if let Value::Array(arr) = &v {
        return Ok(Value::DType(arr.dtype()));
    }
    Ok(Value::DType(to_dtype(
        &v,
        "np.dtype(): argument 'dtype'",
        span,
    )?))
}

/// `np.can_cast(from_, to, casting='safe')`: `from_` is a dtype or an array. As in NumPy 2,
/// Python numbers are refused (their cast depends on their value).
fn can_cast(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["from_", "to", "casting="])?;
    let from = match a.req("from_")? {
        Value::Array(arr) => arr.dtype(),
        Value::Scalar(_) => {
            return Err(EvalError::type_error(
                span,
                "np.can_cast() does not support Python ints, floats, and complex because the \
                 result used to depend on the value",
            ))
        }
        v => to_dtype(&v, "np.can_cast(): argument 'from_'", span)?,
    };
    let to = to_dtype(&a.req("to")?, "np.can_cast(): argument 'to'", span)?;
    let casting = super::loops::casting(&mut a, kupfer::Casting::Safe)?;
    Ok(Value::Scalar(Scalar::Bool(kupfer::can_cast(
        from, to, casting,
    ))))
}
