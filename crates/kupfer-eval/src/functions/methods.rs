//! Array attributes (`a.T`, `a.shape`, `a.dtype`, ...) and methods (`a.sum(axis=0)`,
//! `a.reshape(2, -1)`, `a.astype('float16')`, ...).
//!
//! Most methods are the NumPy function of the same name with the array as first argument
//! and route to the function table; `reshape`, `transpose`, `astype`, `flatten`, `ravel`,
//! `copy`, `compress`, `item` and `view` have signatures of their own, and `sort` and
//! `partition` work in place (they return None and write into the array's memory through
//! kupfer's assignment path, so every view of it sees the result, as in NumPy).

use super::shape::{matrix_transpose_of, reshape_to, to_new_shape};
use super::{int_tuple, lookup, to_axes, Call, PLANNED_METHODS};
use crate::ast::Span;
use crate::error::{EvalError, Result};
use crate::value::Value;
use kupfer::{Array, Scalar};

/// Methods that are the NumPy function of the same name with the array prepended:
/// (method name, function key, name in messages).
const FORWARDED: &[(&str, &str, &str)] = &[
    ("sum", "sum", "ndarray.sum"),
    ("prod", "prod", "ndarray.prod"),
    ("mean", "mean", "ndarray.mean"),
    ("std", "std", "ndarray.std"),
    ("var", "var", "ndarray.var"),
    ("max", "max", "ndarray.max"),
    ("min", "min", "ndarray.min"),
    ("argmax", "argmax", "ndarray.argmax"),
    ("argmin", "argmin", "ndarray.argmin"),
    ("all", "all", "ndarray.all"),
    ("any", "any", "ndarray.any"),
    ("squeeze", "squeeze", "ndarray.squeeze"),
    ("swapaxes", "swapaxes", "ndarray.swapaxes"),
    ("clip", "clip", "ndarray.clip"),
    ("round", "round", "ndarray.round"),
    ("conj", "conjugate", "ndarray.conj"),
    ("conjugate", "conjugate", "ndarray.conjugate"),
    ("dot", "dot", "ndarray.dot"),
    ("trace", "trace", "ndarray.trace"),
    ("diagonal", "diagonal", "ndarray.diagonal"),
    ("cumsum", "cumsum", "ndarray.cumsum"),
    ("cumprod", "cumprod", "ndarray.cumprod"),
    ("repeat", "repeat", "ndarray.repeat"),
    ("argsort", "argsort", "ndarray.argsort"),
    ("argpartition", "argpartition", "ndarray.argpartition"),
    ("searchsorted", "searchsorted", "ndarray.searchsorted"),
    ("nonzero", "nonzero", "ndarray.nonzero"),
    ("take", "take", "ndarray.take"),
    ("put", "put", "ndarray.put"),
    ("choose", "choose", "ndarray.choose"),
];

/// Methods with signatures of their own.
const OWN: &[&str] = &[
    "reshape",
    "transpose",
    "astype",
    "flatten",
    "ravel",
    "copy",
    "compress",
    "item",
    "view",
    "sort",
    "partition",
];

/// Every method kupfer eval implements, sorted (for completion in a playground).
pub fn method_names() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = FORWARDED.iter().map(|(m, _, _)| *m).collect();
    v.extend_from_slice(OWN);
    v.sort_unstable();
    v
}

fn kerr(span: Span) -> impl FnOnce(kupfer::Error) -> EvalError {
    EvalError::kupfer(span)
}

/// `a.NAME`: an attribute's value or a bound method.
pub(crate) fn attribute(a: &Array, name: &str, span: Span) -> Result<Value> {
    let int = |n: usize| Value::Scalar(Scalar::Int(n as i64));
    Ok(match name {
        "T" => Value::Array(a.transpose(None).map_err(kerr(span))?),
        "mT" => Value::Array(matrix_transpose_of(a, span)?),
        "shape" => int_tuple(a.shape()),
        "ndim" => int(a.ndim()),
        "size" => int(a.size()),
        "nbytes" => int(a.size() * a.dtype().host_size()),
        "itemsize" => int(a.dtype().host_size()),
        "dtype" => Value::DType(a.dtype()),
        "flat" => Value::FlatIter(a.clone()),
        "real" => Value::Array(kupfer::real(a).map_err(kerr(span))?),
        "imag" => Value::Array(kupfer::imag(a).map_err(kerr(span))?),
        "ptp" => {
            return Err(EvalError::type_error(
                span,
                "ndarray.ptp was removed in NumPy 2.0: use np.ptp(a)",
            ))
        }
        _ => {
            if let Some((m, _, _)) = FORWARDED.iter().find(|(m, _, _)| *m == name) {
                return Ok(Value::Method(a.clone(), m));
            }
            if let Some(m) = OWN.iter().find(|m| **m == name) {
                return Ok(Value::Method(a.clone(), m));
            }
            if PLANNED_METHODS.contains(&name) {
                return Err(EvalError::not_supported(span, format!("'ndarray.{name}'")));
            }
            return Err(EvalError::type_error(
                span,
                format!("'numpy.ndarray' object has no attribute '{name}'"),
            ));
        }
    })
}

/// Calls method `name` of `a`.
pub(crate) fn call_method(
    a: Array,
    name: &'static str,
    span: Span,
    args: Vec<Value>,
    kwargs: Vec<(String, Value)>,
) -> Result<Value> {
    if let Some((_, key, display)) = FORWARDED.iter().find(|(m, _, _)| *m == name) {
        let (_, f) = lookup(key)
            .ok_or_else(|| EvalError::not_supported(span, format!("'ndarray.{name}'")))?;
        let mut all = Vec::with_capacity(args.len() + 1);
        all.push(Value::Array(a));
        all.extend(args);
        // `a.put(indices, values, mode)` names its parameters unlike `np.put(a, ind, v, mode)`.
        let kwargs = if name == "put" {
            let mut renamed = Vec::with_capacity(kwargs.len());
            for (k, v) in kwargs {
                renamed.push(match k.as_str() {
                    "indices" => ("ind".to_string(), v),
                    "values" => ("v".to_string(), v),
                    "ind" | "v" => {
                        return Err(EvalError::type_error(
                            span,
                            format!("'{k}' is an invalid keyword argument for put()"),
                        ))
                    }
                    _ => (k, v),
                });
            }
            renamed
        } else {
            kwargs
        };
        return super::call(
            f,
            Call {
                name: display,
                span,
                args: all,
                kwargs,
            },
        );
    }
    if name == "compress" {
        // a.compress(condition, axis=None): np.compress(condition, a, axis).
        let (_, f) = lookup("compress")
            .ok_or_else(|| EvalError::not_supported(span, "'ndarray.compress'"))?;
        let mut args = args.into_iter();
        let mut all = Vec::new();
        let mut kwargs = kwargs;
        match args.next() {
            Some(condition) => all.push(condition),
            None => match kwargs.iter().position(|(k, _)| k == "condition") {
                Some(at) => all.push(kwargs.remove(at).1),
                None => {
                    return Err(EvalError::type_error(
                        span,
                        "ndarray.compress() missing required argument 'condition' (pos 0)",
                    ))
                }
            },
        }
        all.push(Value::Array(a));
        all.extend(args);
        return super::call(
            f,
            Call {
                name: "ndarray.compress",
                span,
                args: all,
                kwargs,
            },
        );
    }
    let call = |n: &'static str| Call {
        name: n,
        span,
        args: args.clone(),
        kwargs: kwargs.clone(),
    };
    match name {
        "reshape" => {
            let (shape, mut k) = call("ndarray.reshape").split_varargs(&["*order=", "*copy="])?;
            let shape = match shape.as_slice() {
                [] => {
                    return Err(EvalError::type_error(
                        span,
                        "ndarray.reshape() missing required argument 'shape'",
                    ))
                }
                [one] => to_new_shape(one, "ndarray.reshape(): 'shape'", span)?,
                many => to_new_shape(
                    &Value::Tuple(many.to_vec()),
                    "ndarray.reshape(): 'shape'",
                    span,
                )?,
            };
            let order = k.string("order")?;
            k.bool_or("copy", false)?;
            Ok(Value::Array(reshape_to(
                &a,
                &shape,
                order.as_deref(),
                span,
            )?))
        }
        "transpose" => {
            let (axes, _) = call("ndarray.transpose").split_varargs(&[])?;
            let axes = match axes.as_slice() {
                [] | [Value::None] => None,
                [one] => Some(to_axes(one, "ndarray.transpose(): 'axes'", span)?),
                many => Some(to_axes(
                    &Value::Tuple(many.to_vec()),
                    "ndarray.transpose(): 'axes'",
                    span,
                )?),
            };
            Ok(Value::Array(
                a.transpose(axes.as_deref()).map_err(kerr(span))?,
            ))
        }
        "astype" => {
            let mut k =
                call("ndarray.astype").bind(&["dtype", "order=", "casting=", "subok=", "copy="])?;
            let order = k.order("order", kupfer::Order::K)?;
            if let Some(c) = k.string("casting")? {
                if c != "unsafe" {
                    return Err(EvalError::not_supported(
                        span,
                        format!("astype(casting='{c}') (kupfer casts like casting='unsafe')"),
                    ));
                }
            }
            let dtype = k.dtype("dtype")?.ok_or_else(|| {
                EvalError::type_error(span, "ndarray.astype(): dtype must not be None")
            })?;
            let copy = k.bool_or("copy", true)?;
            let out = if dtype == a.dtype() {
                if copy {
                    a.copy_order(order)
                } else {
                    a.as_order(order)
                }
            } else {
                a.astype(dtype).and_then(|o| o.with_layout_of(&a, order))
            };
            Ok(Value::Array(out.map_err(kerr(span))?))
        }
        "flatten" | "ravel" | "copy" => {
            let display = match name {
                "flatten" => "ndarray.flatten",
                "ravel" => "ndarray.ravel",
                _ => "ndarray.copy",
            };
            let mut k = call(display).bind(&["order="])?;
            let order = k.order("order", kupfer::Order::C)?;
            let out = match name {
                "flatten" => a.flatten_order(order),
                "ravel" => a.ravel_order(order),
                _ => a.copy_order(order),
            };
            Ok(Value::Array(out.map_err(kerr(span))?))
        }
        "item" => item(&a, &args, &kwargs, span),
        "sort" => {
            let mut k = call("ndarray.sort").bind(&["axis=", "kind=", "order=", "*stable="])?;
            let axis = method_axis(&mut k)?;
            let kind = method_kind(&mut k, "sort")?;
            let stable = k.get("stable");
            if stable.is_some() && kind.is_some() {
                return Err(EvalError::value_error(
                    span,
                    "`kind` and keyword parameters can't be provided at the same time. Use \
                     only one of them.",
                ));
            }
            let kind = match stable {
                Some(s) if crate::interp::truthy(&s, span)? => Some("stable".to_string()),
                _ => kind,
            };
            no_fields(&mut k)?;
            let f = a.sort_in_place_async(axis, kind.as_deref());
            crate::program::wait(f, "ndarray.sort()").map_err(kerr(span))?;
            Ok(Value::None)
        }
        "partition" => {
            let mut k = call("ndarray.partition").bind(&["kth", "axis=", "kind=", "order="])?;
            let kth = k.req("kth")?;
            let axis = method_axis(&mut k)?;
            match k.get_raw("kind") {
                None => {}
                Some(Value::Str(s)) if s == "introselect" => {}
                Some(Value::Str(s)) => {
                    return Err(EvalError::value_error(
                        span,
                        format!("select kind must be 'introselect' (got '{s}')"),
                    ))
                }
                Some(v) => {
                    return Err(EvalError::type_error(
                        span,
                        format!("select kind must be str, not {}", v.type_name()),
                    ))
                }
            }
            no_fields(&mut k)?;
            let kth = partition_index(&kth, span)?;
            let f = a.partition_in_place_async(&kth, axis);
            crate::program::wait(f, "ndarray.partition()").map_err(kerr(span))?;
            Ok(Value::None)
        }
        "view" => {
            let mut k = call("ndarray.view").bind(&["dtype=", "type="])?;
            if k.get("type").is_some() {
                return Err(EvalError::not_supported(span, "ndarray.view(type=)"));
            }
            Ok(Value::Array(
                match k.dtype("dtype")? {
                    None => a.view_as(a.dtype()),
                    Some(d) => a.view_as(d),
                }
                .map_err(kerr(span))?,
            ))
        }
        _ => Err(EvalError::not_supported(span, format!("'ndarray.{name}'"))),
    }
}

/// `axis` of `a.sort()` / `a.partition()`: an integer, -1 when absent (NumPy's methods
/// have no flattening `axis=None`).
fn method_axis(k: &mut super::Args) -> Result<isize> {
    let span = k.span();
    match k.get_raw("axis") {
        None => Ok(-1),
        Some(Value::None) => Err(EvalError::type_error(
            span,
            "'NoneType' object cannot be interpreted as an integer",
        )),
        Some(Value::Scalar(Scalar::Float(_))) => Err(EvalError::type_error(
            span,
            "integer argument expected, got float",
        )),
        Some(v) => Ok(super::to_index_int(&numpy_int(v, span)?, span)? as isize),
    }
}

/// A 0-d integer array (a NumPy integer scalar such as `np.int64(1)`) as a Python int;
/// anything else as it is.
fn numpy_int(v: Value, span: Span) -> Result<Value> {
    match v {
        Value::Array(arr) if arr.ndim() == 0 && arr.dtype().is_int() => {
            let s = crate::program::wait(arr.item_async(), "an integer argument")
                .map_err(kerr(span))?;
            Ok(Value::Scalar(s))
        }
        other => Ok(other),
    }
}

/// `kind` of `a.sort()`: None or a string NumPy accepts (checked by kupfer's sort).
fn method_kind(k: &mut super::Args, what: &str) -> Result<Option<String>> {
    let span = k.span();
    match k.get("kind") {
        None => Ok(None),
        Some(Value::Str(s)) => match s.chars().next().map(|c| c.to_ascii_lowercase()) {
            Some('q' | 'h' | 's' | 'm') => Ok(Some(s.to_ascii_lowercase())),
            _ => Err(EvalError::value_error(
                span,
                format!("sort kind must be one of 'quick', 'heap', or 'stable' (got '{s}')"),
            )),
        },
        Some(v) => Err(EvalError::type_error(
            span,
            format!("{what} kind must be str, not {}", v.type_name()),
        )),
    }
}

/// `order=` of the sort methods: kupfer has no structured arrays, so any order is NumPy's
/// error for an array without fields.
fn no_fields(k: &mut super::Args) -> Result<()> {
    if k.get("order").is_some() {
        return Err(EvalError::value_error(
            k.span(),
            "Cannot specify order when the array has no fields.",
        ));
    }
    Ok(())
}

/// `kth` of `a.partition()`: an integer or a sequence (array) of integers; booleans and
/// floats are NumPy's errors.
fn partition_index(v: &Value, span: Span) -> Result<Vec<isize>> {
    let one = |v: &Value| -> Result<isize> {
        match v {
            Value::Scalar(Scalar::Bool(_)) => Err(EvalError::value_error(
                span,
                "Booleans unacceptable as partition index",
            )),
            Value::Scalar(Scalar::Int(i)) => Ok(*i as isize),
            Value::Scalar(_) => Err(EvalError::type_error(
                span,
                "Partition index must be integer",
            )),
            other => Ok(super::to_index_int(&numpy_int(other.clone(), span)?, span)? as isize),
        }
    };
    match v {
        Value::List(items) | Value::Tuple(items) => {
            if items.is_empty() {
                return Err(EvalError::type_error(
                    span,
                    "Partition index must be integer",
                ));
            }
            items.iter().map(one).collect()
        }
        Value::Array(arr) if arr.ndim() > 0 => {
            if arr.dtype() == kupfer::DType::Bool {
                return Err(EvalError::value_error(
                    span,
                    "Booleans unacceptable as partition index",
                ));
            }
            if !arr.dtype().is_int() {
                return Err(EvalError::type_error(
                    span,
                    "Partition index must be integer",
                ));
            }
            let host =
                crate::program::wait(arr.to_host_async(), "partition(kth)").map_err(kerr(span))?;
            (0..arr.size())
                .map(|i| Ok(host.data.get_f64(i) as isize))
                .collect()
        }
        other => Ok(vec![one(other)?]),
    }
}

/// `a.item(*args)`: the element at a flat index, a multi-index, or of a size-1 array, as a
/// Python scalar (one read-back; NumPy's messages for the wrong size and out-of-bounds).
fn item(a: &Array, args: &[Value], kwargs: &[(String, Value)], span: Span) -> Result<Value> {
    if let Some((k, _)) = kwargs.first() {
        return Err(EvalError::type_error(
            span,
            format!("item() takes no keyword arguments (got '{k}')"),
        ));
    }
    let ints: Vec<i64> = match args {
        [Value::Tuple(items)] => items
            .iter()
            .map(|v| super::to_index_int(v, span))
            .collect::<Result<_>>()?,
        _ => args
            .iter()
            .map(|v| super::to_index_int(v, span))
            .collect::<Result<_>>()?,
    };
    let flat = match ints.as_slice() {
        [] if a.size() == 1 => 0,
        [] => {
            return Err(EvalError::value_error(
                span,
                "can only convert an array of size 1 to a Python scalar",
            ))
        }
        [i] => {
            let n = a.size() as i64;
            let j = if *i < 0 { i + n } else { *i };
            if !(0..n).contains(&j) {
                return Err(EvalError::value_error(
                    span,
                    format!("index {i} is out of bounds for size {n}"),
                ));
            }
            j as usize
        }
        many if many.len() != a.ndim() => {
            return Err(EvalError::value_error(
                span,
                "incorrect number of indices for array",
            ))
        }
        many => {
            let mut flat = 0usize;
            for (axis, (&i, &n)) in many.iter().zip(a.shape()).enumerate() {
                let len = n as i64;
                let j = if i < 0 { i + len } else { i };
                if !(0..len).contains(&j) {
                    return Err(EvalError::value_error(
                        span,
                        format!("index {i} is out of bounds for axis {axis} with size {n}"),
                    ));
                }
                flat = flat * n + j as usize;
            }
            flat
        }
    };
    let element = a
        .reshape(&[-1])
        .and_then(|f| f.slice(&[kupfer::SliceArg::Index(flat as isize)]))
        .map_err(kerr(span))?;
    crate::program::wait(element.item_async(), "ndarray.item()")
        .map(Value::Scalar)
        .map_err(kerr(span))
}
