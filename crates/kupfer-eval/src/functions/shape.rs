//! Shapes and views: `reshape`, `transpose`, `permute_dims`, `swapaxes`, `moveaxis`,
//! `matrix_transpose`, `squeeze`, `expand_dims`, `ravel`, `broadcast_to`,
//! `broadcast_arrays`, `broadcast_shapes`, `atleast_Nd`, `shape`, `ndim`, `size`, `astype`.

use super::{int_tuple, to_array, to_axes, to_shape, Args, Call, Registry};
use crate::ast::Span;
use crate::error::{EvalError, Result};
use crate::value::{flatten_nested, Value};
use kupfer::{Array, Scalar};

pub(super) fn register(r: &mut Registry) {
    r.native(&["reshape"], reshape);
    r.native(&["transpose"], transpose);
    r.native(&["permute_dims"], permute_dims);
    r.native(&["swapaxes"], swapaxes);
    r.native(&["moveaxis"], moveaxis);
    r.native(
        &["matrix_transpose", "linalg.matrix_transpose"],
        matrix_transpose,
    );
    r.native(&["squeeze"], squeeze);
    r.native(&["expand_dims"], expand_dims);
    r.native(&["ravel"], ravel);
    r.native(&["broadcast_to"], broadcast_to);
    r.native(&["broadcast_arrays"], broadcast_arrays);
    r.native(&["broadcast_shapes"], broadcast_shapes);
    r.native(&["atleast_1d"], atleast_1d);
    r.native(&["atleast_2d"], atleast_2d);
    r.native(&["atleast_3d"], atleast_3d);
    r.native(&["shape"], shape);
    r.native(&["ndim"], ndim);
    r.native(&["size"], size);
    r.native(&["astype"], astype);
}

fn kerr(span: Span) -> impl FnOnce(kupfer::Error) -> EvalError {
    EvalError::kupfer(span)
}

/// `-1`-able shape entries (`reshape`).
pub(crate) fn to_new_shape(v: &Value, ctx: &str, span: Span) -> Result<Vec<isize>> {
    to_axes(v, ctx, span)
}

/// Reshapes with NumPy's `order=` (C, F, or A).
pub(crate) fn reshape_to(
    a: &Array,
    shape: &[isize],
    order: Option<&str>,
    span: Span,
) -> Result<Array> {
    let order = match order {
        None => kupfer::Order::C,
        Some(o) => kupfer::Order::parse(o).map_err(kerr(span))?,
    };
    a.reshape_order(shape, order).map_err(kerr(span))
}

fn reshape(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "shape=", "order=", "*newshape=", "*copy="])?;
    let arr = a.array("a")?;
    let shape = match (a.get("shape"), a.get("newshape")) {
        (Some(s), None) | (None, Some(s)) => to_new_shape(&s, "np.reshape(): 'shape'", span)?,
        (Some(_), Some(_)) => {
            return Err(EvalError::type_error(
                span,
                "np.reshape(): pass shape or newshape, not both",
            ))
        }
        (None, None) => {
            return Err(EvalError::type_error(
                span,
                "np.reshape() missing required argument 'shape'",
            ))
        }
    };
    let order = a.string("order")?;
    Ok(Value::Array(reshape_to(
        &arr,
        &shape,
        order.as_deref(),
        span,
    )?))
}

fn transpose(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "axes="])?;
    let arr = a.array("a")?;
    let axes = a.axes("axes")?;
    Ok(Value::Array(
        arr.transpose(axes.as_deref()).map_err(kerr(span))?,
    ))
}

fn permute_dims(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "axes="])?;
    let arr = a.array("a")?;
    let axes = a.axes("axes")?;
    Ok(Value::Array(
        arr.transpose(axes.as_deref()).map_err(kerr(span))?,
    ))
}

fn swapaxes(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "axis1", "axis2"])?;
    let arr = a.array("a")?;
    let a1 = a.req_int("axis1")? as isize;
    let a2 = a.req_int("axis2")? as isize;
    Ok(Value::Array(arr.swapaxes(a1, a2).map_err(kerr(span))?))
}

/// `axis` in `[-ndim, ndim)` as a non-negative index.
fn normalize_axis(axis: isize, ndim: usize, span: Span) -> Result<usize> {
    let n = ndim as isize;
    if axis < -n || axis >= n {
        return Err(EvalError::Kupfer {
            source: kupfer::Error::invalid(format!(
                "axis {axis} is out of bounds for array of dimension {ndim}"
            )),
            span,
        });
    }
    Ok(if axis < 0 {
        (axis + n) as usize
    } else {
        axis as usize
    })
}

fn moveaxis(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "source", "destination"])?;
    let arr = a.array("a")?;
    let source = a.axes("source")?.unwrap_or_default();
    let dest = a.axes("destination")?.unwrap_or_default();
    Ok(Value::Array(
        kupfer::moveaxis(&arr, &source, &dest).map_err(kerr(span))?,
    ))
}

pub(crate) fn matrix_transpose_of(arr: &Array, span: Span) -> Result<Array> {
    if arr.ndim() < 2 {
        return Err(EvalError::value_error(
            span,
            "matrix transpose with ndim < 2 is undefined",
        ));
    }
    arr.swapaxes(-1, -2).map_err(kerr(span))
}

fn matrix_transpose(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["x"])?;
    let arr = a.array("x")?;
    Ok(Value::Array(matrix_transpose_of(&arr, span)?))
}

fn squeeze(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "axis="])?;
    let arr = a.array("a")?;
    let axes = a.axes("axis")?;
    Ok(Value::Array(
        arr.squeeze(axes.as_deref()).map_err(kerr(span))?,
    ))
}

/// NumPy's `expand_dims` with one axis or several.
pub(crate) fn expand_dims_of(arr: &Array, axes: &[isize], span: Span) -> Result<Array> {
    let out_ndim = arr.ndim() + axes.len();
    let mut norm = axes
        .iter()
        .map(|&x| normalize_axis(x, out_ndim, span))
        .collect::<Result<Vec<_>>>()?;
    norm.sort_unstable();
    if norm.windows(2).any(|w| w[0] == w[1]) {
        return Err(EvalError::value_error(span, "repeated axis"));
    }
    let mut out = arr.clone();
    for ax in norm {
        out = out.expand_dims(ax as isize).map_err(kerr(span))?;
    }
    Ok(out)
}

fn expand_dims(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "axis"])?;
    let arr = a.array("a")?;
    let axes = a.axes("axis")?.unwrap_or_default();
    Ok(Value::Array(expand_dims_of(&arr, &axes, span)?))
}

fn ravel(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "order="])?;
    let order = a.order("order", kupfer::Order::C)?;
    let arr = a.array("a")?;
    Ok(Value::Array(arr.ravel_order(order).map_err(kerr(span))?))
}

fn broadcast_to(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["array", "shape", "subok="])?;
    let arr = a.array("array")?;
    let shape = a.shape("shape")?;
    Ok(Value::Array(arr.broadcast_to(&shape).map_err(kerr(span))?))
}

fn broadcast_arrays(call: Call) -> Result<Value> {
    let span = call.span;
    let (args, _) = call.split_varargs(&["*subok="])?;
    let arrays = args
        .iter()
        .map(|v| to_array(v, None, span))
        .collect::<Result<Vec<_>>>()?;
    let out = kupfer::broadcast_arrays(&arrays).map_err(kerr(span))?;
    Ok(Value::Tuple(out.into_iter().map(Value::Array).collect()))
}

/// NumPy's broadcasting of shapes.
pub(crate) fn broadcast_shape_of(shapes: &[Vec<usize>], span: Span) -> Result<Vec<usize>> {
    let n = shapes.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = vec![1usize; n];
    for s in shapes {
        let off = n - s.len();
        for (i, &d) in s.iter().enumerate() {
            let o = &mut out[off + i];
            if *o == 1 {
                *o = d;
            } else if d != 1 && d != *o {
                return Err(EvalError::value_error(
                    span,
                    format!(
                        "shape mismatch: objects cannot be broadcast to a single shape: {} \
                         and {}",
                        crate::format::shape_repr(s),
                        crate::format::shape_repr(&out)
                    ),
                ));
            }
        }
    }
    Ok(out)
}

fn broadcast_shapes(call: Call) -> Result<Value> {
    let span = call.span;
    let (args, _) = call.split_varargs(&[])?;
    let shapes = args
        .iter()
        .map(|v| to_shape(v, "np.broadcast_shapes(): each argument", span))
        .collect::<Result<Vec<_>>>()?;
    Ok(int_tuple(&broadcast_shape_of(&shapes, span)?))
}

fn atleast(call: Call, nd: usize) -> Result<Value> {
    let span = call.span;
    let (args, _) = call.split_varargs(&[])?;
    let mut out = Vec::with_capacity(args.len());
    for v in &args {
        let arr = to_array(v, None, span)?;
        let s: Vec<isize> = arr.shape().iter().map(|&d| d as isize).collect();
        let new: Vec<isize> = match (nd, s.len()) {
            (_, n) if n >= nd => s,
            (1, _) => vec![1],
            (2, 0) => vec![1, 1],
            (2, _) => vec![1, s[0]],
            (3, 0) => vec![1, 1, 1],
            (3, 1) => vec![1, s[0], 1],
            (_, _) => vec![s[0], s[1], 1],
        };
        out.push(Value::Array(arr.reshape(&new).map_err(kerr(span))?));
    }
    Ok(if out.len() == 1 {
        out.remove(0)
    } else {
        Value::Tuple(out)
    })
}

fn atleast_1d(call: Call) -> Result<Value> {
    atleast(call, 1)
}

fn atleast_2d(call: Call) -> Result<Value> {
    atleast(call, 2)
}

fn atleast_3d(call: Call) -> Result<Value> {
    atleast(call, 3)
}

/// The shape of anything array-like, without uploading Python values.
fn shape_of(a: &mut Args, p: &str) -> Result<Vec<usize>> {
    let span = a.span();
    let v = a.req(p)?;
    match &v {
        Value::Array(arr) => Ok(arr.shape().to_vec()),
        Value::Scalar(_) => Ok(vec![]),
        Value::Tuple(_) | Value::List(_) => match flatten_nested(&v) {
            Some(Ok((shape, _))) => Ok(shape),
            _ => Ok(to_array(&v, None, span)?.shape().to_vec()),
        },
        other => Err(EvalError::type_error(
            span,
            format!("'{}' has no shape", other.type_name()),
        )),
    }
}

fn shape(call: Call) -> Result<Value> {
    let mut a = call.bind(&["a"])?;
    Ok(int_tuple(&shape_of(&mut a, "a")?))
}

fn ndim(call: Call) -> Result<Value> {
    let mut a = call.bind(&["a"])?;
    Ok(Value::Scalar(Scalar::Int(
        shape_of(&mut a, "a")?.len() as i64
    )))
}

fn size(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "axis="])?;
    let shape = shape_of(&mut a, "a")?;
    let n = match a.int("axis")? {
        None => shape.iter().product(),
        Some(ax) => shape[normalize_axis(ax as isize, shape.len(), span)?],
    };
    Ok(Value::Scalar(Scalar::Int(n as i64)))
}

fn astype(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["x", "dtype", "*copy=", "*device="])?;
    let arr = a.array("x")?;
    let dtype = a
        .dtype("dtype")?
        .ok_or_else(|| EvalError::type_error(span, "np.astype(): dtype must not be None"))?;
    let copy = a.bool_or("copy", true)?;
    let out = arr.astype(dtype).map_err(kerr(span))?;
    Ok(Value::Array(if copy && dtype == arr.dtype() {
        out.copy().map_err(kerr(span))?
    } else {
        out
    }))
}
