//! Functions that call a Python function: `np.fromfunction` and `np.apply_along_axis`
//! (with a `lambda` or any callable value), and Python's `range` for comprehensions.

use super::{to_array, Call, Registry};
use crate::callable::call_value;
use crate::error::{EvalError, Result};
use crate::value::Value;
use kupfer::{Array, Scalar, SliceArg};

pub(super) fn register(r: &mut Registry) {
    r.native(&["fromfunction"], fromfunction);
    r.native(&["apply_along_axis"], apply_along_axis);
    r.native(&["builtins.range"], range);
    r.native(&["builtins.sorted"], sorted);
    r.native(&["vectorize"], vectorize);
}

/// `vectorize(pyfunc, otypes=None, doc=None, excluded=None, cache=False, signature=None)`:
/// a callable that calls `pyfunc` once per element, or per core slice with a gufunc
/// `signature` (see `callable::call_vectorized`).
fn vectorize(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&[
        "pyfunc",
        "otypes=",
        "doc=",
        "excluded=",
        "cache=",
        "signature=",
    ])?;
    let otypes = match a.get("otypes") {
        None | Some(Value::None) => None,
        Some(Value::Str(s)) => {
            let mut types = Vec::new();
            for c in s.chars() {
                if !"?bhilqnpBHILQNPefdgFDGSUVOMm".contains(c) {
                    return Err(EvalError::value_error(
                        span,
                        format!("Invalid otype specified: {c}"),
                    ));
                }
                // NumPy's type characters (C `long` is 64 bits, as on Linux).
                let name = match c {
                    '?' => "bool",
                    'b' => "int8",
                    'B' => "uint8",
                    'h' => "int16",
                    'H' => "uint16",
                    'i' => "int32",
                    'I' => "uint32",
                    'l' | 'q' | 'n' | 'p' => "int64",
                    'L' | 'Q' | 'N' | 'P' => "uint64",
                    'e' => "float16",
                    'f' => "float32",
                    'd' => "float64",
                    'F' => "complex64",
                    'D' => "complex128",
                    other => {
                        return Err(EvalError::not_supported(
                            span,
                            format!("np.vectorize(otypes=) with the type character '{other}'"),
                        ))
                    }
                };
                types.push(super::to_dtype(&Value::Str(name.into()), "otypes", span)?);
            }
            Some(types)
        }
        Some(Value::List(v) | Value::Tuple(v)) => Some(
            v.iter()
                .map(|t| super::to_dtype(t, "otypes", span))
                .collect::<Result<Vec<_>>>()?,
        ),
        Some(_) => return Err(EvalError::value_error(span, "Invalid otype specification")),
    };
    let mut excluded = crate::callable::Excluded::default();
    match a.get("excluded") {
        None | Some(Value::None) => {}
        Some(Value::List(v) | Value::Tuple(v)) => {
            for e in v {
                match e {
                    Value::Scalar(kupfer::Scalar::Int(i)) if i >= 0 => {
                        excluded.positions.push(i as usize)
                    }
                    // A negative position never matches an argument, as in NumPy.
                    Value::Scalar(kupfer::Scalar::Int(_)) => {}
                    Value::Str(n) => excluded.names.push(n),
                    other => {
                        return Err(EvalError::not_supported(
                            span,
                            format!(
                                "np.vectorize(excluded=) entries of type '{}'",
                                other.type_name()
                            ),
                        ))
                    }
                }
            }
        }
        Some(other) => {
            return Err(EvalError::type_error(
                span,
                format!("'{}' object is not iterable", other.type_name()),
            ))
        }
    }
    let signature = match a.get("signature") {
        None | Some(Value::None) => None,
        Some(Value::Str(s)) => Some(crate::callable::Signature::parse(&s).ok_or_else(|| {
            let compact: String = s.chars().filter(|c| !c.is_whitespace()).collect();
            EvalError::value_error(span, format!("not a valid gufunc signature: {compact}"))
        })?),
        Some(other) => {
            return Err(EvalError::type_error(
                span,
                format!(
                    "expected string or bytes-like object, got '{}'",
                    other.type_name()
                ),
            ))
        }
    };
    let func = a.req("pyfunc")?;
    Ok(Value::Vectorized(std::sync::Arc::new(
        crate::callable::Vectorized {
            func,
            otypes,
            excluded,
            signature,
        },
    )))
}

/// Python's `sorted(iterable, *, reverse=False)`: a list; a 1-D array's elements (0-d
/// arrays) sort on the device, Python numbers on the host.
fn sorted(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["iterable/", "*key=", "*reverse="])?;
    if a.get("key").is_some() {
        return Err(EvalError::not_supported(span, "sorted(key=...)"));
    }
    let reverse = a.bool_or("reverse", false)?;
    let items = match a.req("iterable")? {
        Value::Array(x) if x.ndim() == 1 => {
            let s = kupfer::sort(&x, Some(0), Some("stable")).map_err(EvalError::kupfer(span))?;
            let s = if reverse {
                kupfer::flip(&s, None).map_err(EvalError::kupfer(span))?
            } else {
                s
            };
            return Ok(Value::List(crate::callable::iterate(
                Value::Array(s),
                span,
            )?));
        }
        Value::Array(x) if x.ndim() > 1 => {
            return Err(EvalError::value_error(
                span,
                "The truth value of an array with more than one element is ambiguous. Use \
                 a.any() or a.all()",
            ))
        }
        v => crate::callable::iterate(v, span)?,
    };
    let mut numbers = items
        .iter()
        .map(|v| match v {
            Value::Scalar(s) if !matches!(s, Scalar::Complex { .. }) => Ok(*s),
            other => Err(EvalError::not_supported(
                span,
                format!(
                    "sorted() of '{}' items (kupfer eval sorts Python numbers and 1-D arrays)",
                    other.type_name()
                ),
            )),
        })
        .collect::<Result<Vec<Scalar>>>()?;
    // Python's sort is stable; reverse=True keeps equal items in their order too.
    numbers.sort_by(|x, y| x.as_f64().total_cmp(&y.as_f64()));
    if reverse {
        numbers.reverse();
        // Restore the original order among equal items after reversing.
        let mut out: Vec<Scalar> = Vec::with_capacity(numbers.len());
        for run in numbers.chunk_by(|x, y| x.as_f64() == y.as_f64()) {
            out.extend(run.iter().rev());
        }
        numbers = out;
    }
    Ok(Value::List(
        numbers.into_iter().map(Value::Scalar).collect(),
    ))
}

/// `fromfunction(function, shape, *, dtype=float, like=None, **kwargs)`: `function` called
/// once with the index grids of `shape` (as NumPy does; it is not called per element).
fn fromfunction(call: Call) -> Result<Value> {
    let span = call.span;
    let Call {
        name,
        args,
        mut kwargs,
        ..
    } = call;
    let take = |kwargs: &mut Vec<(String, Value)>, k: &str| {
        kwargs
            .iter()
            .position(|(n, _)| n == k)
            .map(|i| kwargs.remove(i).1)
    };
    let mut args = args.into_iter();
    let function = match (args.next(), take(&mut kwargs, "function")) {
        (Some(f), None) | (None, Some(f)) => f,
        _ => {
            return Err(EvalError::type_error(
                span,
                "fromfunction() missing required argument 'function' (pos 0)",
            ))
        }
    };
    let shape = match (args.next(), take(&mut kwargs, "shape")) {
        (Some(s), None) | (None, Some(s)) => s,
        _ => {
            return Err(EvalError::type_error(
                span,
                "fromfunction() missing required argument 'shape' (pos 1)",
            ))
        }
    };
    if args.next().is_some() {
        return Err(EvalError::type_error(
            span,
            "fromfunction() takes 2 positional arguments but 3 or more were given",
        ));
    }
    let dtype = match take(&mut kwargs, "dtype") {
        None => super::to_dtype(&Value::Function("builtins.float"), "dtype", span)?,
        Some(d) => super::to_dtype(&d, &format!("{}(): argument 'dtype'", name), span)?,
    };
    take(&mut kwargs, "like");
    let shape = super::to_shape(&shape, "fromfunction(): argument 'shape'", span)?;
    // One index grid per axis (broadcast views of the sparse grids).
    let grids: Vec<Array> = kupfer::indices(&shape, Some(dtype), true)
        .and_then(|g| g.iter().map(|a| a.broadcast_to(&shape)).collect())
        .map_err(EvalError::kupfer(span))?;
    call_value(
        function,
        grids.into_iter().map(Value::Array).collect::<Vec<_>>(),
        kwargs,
        span,
    )
}

/// `apply_along_axis(func1d, axis, arr, *args, **kwargs)`: `func1d` called on each 1-D slice
/// along `axis` (one call per slice, in C order of the other axes); the results, cast to the
/// first one's dtype, take the place of that axis.
fn apply_along_axis(call: Call) -> Result<Value> {
    let span = call.span;
    let Call { args, kwargs, .. } = call;
    if args.len() < 3 {
        let missing = ["func1d", "axis", "arr"][args.len()..]
            .iter()
            .map(|p| format!("'{p}'"))
            .collect::<Vec<_>>();
        return Err(EvalError::type_error(
            span,
            format!(
                "apply_along_axis() missing {} required positional argument{}: {}",
                missing.len(),
                if missing.len() == 1 { "" } else { "s" },
                missing.join(" and ")
            ),
        ));
    }
    let mut args = args.into_iter();
    let (func, axis, arr) = match (args.next(), args.next(), args.next()) {
        (Some(f), Some(a), Some(x)) => (f, a, x),
        _ => unreachable!("three arguments checked above"),
    };
    let extra: Vec<Value> = args.collect();
    let arr = to_array(&arr, None, span)?;
    let axis = super::to_index_int(&axis, span)?;
    let nd = arr.ndim();
    let axis = kupfer::normalize_axis(axis as isize, nd).map_err(EvalError::kupfer(span))?;
    // The other axes first, then `axis`.
    let mut order: Vec<isize> = (0..nd as isize).filter(|&i| i != axis as isize).collect();
    order.push(axis as isize);
    let view = arr
        .transpose(Some(&order))
        .map_err(EvalError::kupfer(span))?;
    let outer: Vec<usize> = view.shape()[..nd - 1].to_vec();
    let count: usize = outer.iter().product();
    if count == 0 {
        return Err(EvalError::value_error(
            span,
            "Cannot apply_along_axis when any iteration dimensions are 0",
        ));
    }
    let mut results: Vec<Array> = Vec::with_capacity(count);
    let mut index = vec![0usize; outer.len()];
    for _ in 0..count {
        let parts: Vec<SliceArg> = index.iter().map(|&i| SliceArg::Index(i as isize)).collect();
        let line = view.slice(&parts).map_err(EvalError::kupfer(span))?;
        let mut call_args = vec![Value::Array(line)];
        call_args.extend(extra.iter().cloned());
        let r = call_value(func.clone(), call_args, kwargs.clone(), span)?;
        let r = to_array(&r, None, span)?;
        let r = match results.first() {
            None => r,
            Some(first) => r
                .astype(first.dtype())
                .and_then(|r| r.broadcast_to(first.shape()))
                .map_err(EvalError::kupfer(span))?,
        };
        results.push(r);
        // The next index in C order.
        for d in (0..index.len()).rev() {
            index[d] += 1;
            if index[d] < outer[d] {
                break;
            }
            index[d] = 0;
        }
    }
    let res_shape = results[0].shape().to_vec();
    let stacked = kupfer::stack(&results, 0, None).map_err(EvalError::kupfer(span))?;
    let mut buff_shape: Vec<isize> = outer.iter().map(|&d| d as isize).collect();
    buff_shape.extend(res_shape.iter().map(|&d| d as isize));
    let buff = stacked
        .reshape(&buff_shape)
        .map_err(EvalError::kupfer(span))?;
    // NumPy's buff_permute: the result's axes go where `axis` was.
    let (bn, rn) = (buff.ndim(), res_shape.len());
    let mut permute: Vec<isize> = (0..axis as isize).collect();
    permute.extend((bn - rn) as isize..bn as isize);
    permute.extend(axis as isize..(bn - rn) as isize);
    Ok(Value::Array(
        buff.transpose(Some(&permute))
            .map_err(EvalError::kupfer(span))?,
    ))
}

/// Python's `range(stop)` / `range(start, stop[, step])`, as a list of ints (kupfer eval has
/// no lazy range object; it serves comprehensions and `np.array(range(n))`).
fn range(call: Call) -> Result<Value> {
    let span = call.span;
    let (args, _) = call.split_varargs(&[])?;
    let ints = args
        .iter()
        .map(|v| match v {
            Value::Scalar(Scalar::Int(i)) => Ok(*i),
            Value::Scalar(Scalar::Bool(b)) => Ok(i64::from(*b)),
            other => Err(EvalError::type_error(
                span,
                format!(
                    "'{}' object cannot be interpreted as an integer",
                    match other {
                        Value::Scalar(s) => crate::pyscalar::type_name(s),
                        o => o.type_name(),
                    }
                ),
            )),
        })
        .collect::<Result<Vec<i64>>>()?;
    let (start, stop, step) = match ints.as_slice() {
        [stop] => (0, *stop, 1),
        [start, stop] => (*start, *stop, 1),
        [start, stop, step] => (*start, *stop, *step),
        [] => {
            return Err(EvalError::type_error(
                span,
                "range expected at least 1 argument, got 0",
            ))
        }
        more => {
            return Err(EvalError::type_error(
                span,
                format!("range expected at most 3 arguments, got {}", more.len()),
            ))
        }
    };
    if step == 0 {
        return Err(EvalError::value_error(
            span,
            "range() arg 3 must not be zero",
        ));
    }
    let len = if step > 0 {
        (stop.saturating_sub(start)).max(0) as i128
    } else {
        (start.saturating_sub(stop)).max(0) as i128
    };
    let n = (len + i128::from(step.unsigned_abs()) - 1) / i128::from(step.unsigned_abs());
    if n > 1 << 20 {
        return Err(EvalError::not_supported(
            span,
            "a range of more than 2**20 items (kupfer eval makes it a list; use np.arange)",
        ));
    }
    Ok(Value::List(
        (0..n as i64)
            .map(|k| Value::Scalar(Scalar::Int(start + k * step)))
            .collect(),
    ))
}
