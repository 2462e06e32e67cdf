//! Array manipulation from kupfer's `manip`: joining (`concatenate`, `stack`, `block`, ...),
//! splitting, flipping and rolling, `pad`, `tile`, `repeat`, triangles, `insert` / `delete`,
//! `resize`, `trim_zeros`, and `np.array` of a list of arrays.

use super::{to_array, to_dtype, to_int, Args, Call, Registry};
use crate::ast::Span;
use crate::error::{EvalError, Result};
use crate::value::{flatten_nested, Value};
use kupfer::casting::{can_cast, Casting};
use kupfer::{Array, Block, DType, InsertAt, PadMode, Repeats, Scalar, Sections, SliceArg};

pub(super) fn register(r: &mut Registry) {
    r.native(&["concatenate", "concat"], concatenate);
    r.native(&["stack"], stack);
    r.native(&["hstack"], hstack);
    r.native(&["vstack", "row_stack"], vstack);
    r.native(&["dstack"], dstack);
    r.native(&["column_stack"], column_stack);
    r.native(&["block"], block);
    r.native(&["append"], append);
    r.native(&["split"], split);
    r.native(&["array_split"], array_split);
    r.native(&["hsplit"], hsplit);
    r.native(&["vsplit"], vsplit);
    r.native(&["dsplit"], dsplit);
    r.native(&["unstack"], unstack);
    r.native(&["flip"], flip);
    r.native(&["fliplr"], fliplr);
    r.native(&["flipud"], flipud);
    r.native(&["rot90"], rot90);
    r.native(&["roll"], roll);
    r.native(&["rollaxis"], rollaxis);
    r.native(&["tile"], tile);
    r.native(&["repeat"], repeat);
    r.native(&["pad"], pad);
    r.native(&["tril"], tril);
    r.native(&["triu"], triu);
    r.native(&["tri"], tri);
    r.native(&["diagflat"], diagflat);
    r.native(&["insert"], insert);
    r.native(&["delete"], delete);
    r.native(&["resize"], resize);
    r.native(&["trim_zeros"], trim_zeros);
}

fn kerr(span: Span) -> impl FnOnce(kupfer::Error) -> EvalError {
    EvalError::kupfer(span)
}

/// True when parameter `p` was passed explicitly as `None` (which [`Args::get`] hides).
fn passed_none(a: &Args, p: &str) -> bool {
    a.slots
        .iter()
        .any(|(n, v)| *n == p && matches!(v, Some(Value::None)))
}

/// The arrays of a sequence argument (a list or tuple; an array is a sequence of its rows).
fn sequence(v: &Value, fname: &str, span: Span) -> Result<Vec<Array>> {
    match v {
        Value::List(items) | Value::Tuple(items) => {
            items.iter().map(|i| to_array(i, None, span)).collect()
        }
        Value::Array(a) if a.ndim() > 0 => (0..a.shape()[0] as isize)
            .map(|i| a.slice(&[SliceArg::Index(i)]).map_err(kerr(span)))
            .collect(),
        other => Err(EvalError::type_error(
            span,
            format!(
                "{fname}() argument must be a sequence of arrays, got '{}'",
                other.type_name()
            ),
        )),
    }
}

/// Casts `arrays` to `dtype` under `casting` (NumPy's `dtype=` / `casting=` of the joining
/// functions); without `dtype` the inputs promote and every rule allows that.
fn cast_all(
    arrays: Vec<Array>,
    dtype: Option<DType>,
    casting: Option<String>,
    span: Span,
) -> Result<(Vec<Array>, Option<DType>)> {
    let rule = match casting.as_deref() {
        None | Some("same_kind") => return Ok((arrays, dtype)),
        Some("no") => Casting::No,
        Some("equiv") => Casting::Equiv,
        Some("safe") => Casting::Safe,
        Some("unsafe") => Casting::Unsafe,
        Some(other) => {
            return Err(EvalError::value_error(
                span,
                format!(
                    "casting must be one of 'no', 'equiv', 'safe', 'same_kind', or 'unsafe' \
                     (got '{other}')"
                ),
            ))
        }
    };
    let Some(d) = dtype else {
        return Ok((arrays, None));
    };
    let mut out = Vec::with_capacity(arrays.len());
    for a in arrays {
        if !can_cast(a.dtype(), d, rule) {
            return Err(EvalError::type_error(
                span,
                format!(
                    "Cannot cast array data from dtype('{}') to dtype('{d}') according to the \
                     rule '{}'",
                    a.dtype(),
                    casting.as_deref().unwrap_or("same_kind")
                ),
            ));
        }
        out.push(a.astype(d).map_err(kerr(span))?);
    }
    Ok((out, Some(d)))
}

fn concatenate(call: Call) -> Result<Value> {
    let span = call.span;
    let fname = call.display_name();
    let mut a = call.bind(&["arrays", "axis=", "out=", "*dtype=", "*casting="])?;
    let out = super::outputs::take_out(&mut a, "'out' must be an array")?;
    let arrays = sequence(&a.req("arrays")?, &fname, span)?;
    let axis = if passed_none(&a, "axis") {
        None
    } else {
        Some(a.int("axis")?.unwrap_or(0) as isize)
    };
    let dtype = a.dtype("dtype")?;
    out_or_dtype(&out, dtype, &fname, span)?;
    let casting = a.string("casting")?;
    let rule = join_casting(casting.as_deref(), span)?;
    let (arrays, dtype) = cast_all(arrays, dtype, casting, span)?;
    let r = kupfer::concatenate(&arrays, axis, dtype).map_err(kerr(span))?;
    write_join(out, r, rule, span)
}

/// NumPy's refusal of `out=` together with `dtype=` in `concatenate`/`stack`.
fn out_or_dtype(out: &Option<Array>, dtype: Option<DType>, fname: &str, span: Span) -> Result<()> {
    if out.is_some() && dtype.is_some() {
        return Err(EvalError::type_error(
            span,
            format!(
                "{}() only takes `out` or `dtype` as an argument, but both were provided.",
                fname.trim_start_matches("np.")
            ),
        ));
    }
    Ok(())
}

fn join_casting(casting: Option<&str>, span: Span) -> Result<kupfer::Casting> {
    match casting {
        None => Ok(kupfer::Casting::SameKind),
        Some(c) => kupfer::Casting::from_name(c).map_err(kerr(span)),
    }
}

/// The joined result written into `out`: its exact shape, cast under `casting`.
fn write_join(out: Option<Array>, r: Array, casting: kupfer::Casting, span: Span) -> Result<Value> {
    match out {
        None => Ok(Value::Array(r)),
        Some(out) => super::outputs::write(
            out,
            r,
            super::outputs::Check::ShapeAndCasting("Output array is the wrong shape", casting),
            span,
        ),
    }
}

fn stack(call: Call) -> Result<Value> {
    let span = call.span;
    let fname = call.display_name();
    let mut a = call.bind(&["arrays", "axis=", "out=", "*dtype=", "*casting="])?;
    let out = super::outputs::take_out(&mut a, "'out' must be an array")?;
    let arrays = sequence(&a.req("arrays")?, &fname, span)?;
    let axis = a.int("axis")?.unwrap_or(0) as isize;
    let dtype = a.dtype("dtype")?;
    out_or_dtype(&out, dtype, &fname, span)?;
    let casting = a.string("casting")?;
    let rule = join_casting(casting.as_deref(), span)?;
    let (arrays, dtype) = cast_all(arrays, dtype, casting, span)?;
    let r = kupfer::stack(&arrays, axis, dtype).map_err(kerr(span))?;
    write_join(out, r, rule, span)
}

fn tuple_join(
    call: Call,
    f: fn(&[Array], Option<DType>) -> kupfer::Result<Array>,
) -> Result<Value> {
    let span = call.span;
    let fname = call.display_name();
    let mut a = call.bind(&["tup", "*dtype=", "*casting="])?;
    let arrays = sequence(&a.req("tup")?, &fname, span)?;
    let dtype = a.dtype("dtype")?;
    let casting = a.string("casting")?;
    let (arrays, dtype) = cast_all(arrays, dtype, casting, span)?;
    Ok(Value::Array(f(&arrays, dtype).map_err(kerr(span))?))
}

fn hstack(call: Call) -> Result<Value> {
    tuple_join(call, kupfer::hstack)
}

fn vstack(call: Call) -> Result<Value> {
    tuple_join(call, kupfer::vstack)
}

fn dstack(call: Call) -> Result<Value> {
    let span = call.span;
    let fname = call.display_name();
    let mut a = call.bind(&["tup"])?;
    let arrays = sequence(&a.req("tup")?, &fname, span)?;
    Ok(Value::Array(kupfer::dstack(&arrays).map_err(kerr(span))?))
}

fn column_stack(call: Call) -> Result<Value> {
    let span = call.span;
    let fname = call.display_name();
    let mut a = call.bind(&["tup"])?;
    let arrays = sequence(&a.req("tup")?, &fname, span)?;
    Ok(Value::Array(
        kupfer::column_stack(&arrays).map_err(kerr(span))?,
    ))
}

fn to_block(v: &Value, span: Span) -> Result<Block> {
    match v {
        Value::List(items) => Ok(Block::List(
            items
                .iter()
                .map(|i| to_block(i, span))
                .collect::<Result<_>>()?,
        )),
        Value::Tuple(_) => Err(EvalError::type_error(
            span,
            "arrays is a tuple. Only lists can be used to arrange blocks, and np.block does \
             not allow implicit conversion from tuple to ndarray.",
        )),
        other => Ok(Block::Array(to_array(other, None, span)?)),
    }
}

fn block(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["arrays"])?;
    let b = to_block(&a.req("arrays")?, span)?;
    Ok(Value::Array(kupfer::block(&b).map_err(kerr(span))?))
}

fn append(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["arr", "values", "axis="])?;
    let arr = a.array("arr")?;
    let values = a.array("values")?;
    let axis = a.int("axis")?.map(|x| x as isize);
    Ok(Value::Array(
        kupfer::append(&arr, &values, axis).map_err(kerr(span))?,
    ))
}

fn sections(v: &Value, span: Span) -> Result<Sections> {
    match v {
        Value::List(items) | Value::Tuple(items) => Ok(Sections::Indices(
            items
                .iter()
                .map(|i| to_int(i, "split indices", span).map(|x| x as isize))
                .collect::<Result<_>>()?,
        )),
        // NumPy's array_like of ints: a 1-D array lists the split points, a 0-d one is the
        // number of sections (read to the host, one sync).
        Value::Array(arr) if arr.ndim() <= 1 => {
            let ints = super::host_ints(arr, "indices_or_sections", span)?;
            if arr.ndim() == 1 {
                Ok(Sections::Indices(
                    ints.iter().map(|&x| x as isize).collect(),
                ))
            } else {
                usize::try_from(ints[0]).map(Sections::Count).map_err(|_| {
                    EvalError::value_error(span, "number sections must be larger than 0.")
                })
            }
        }
        other => {
            let n = to_int(other, "indices_or_sections", span)?;
            usize::try_from(n)
                .map(Sections::Count)
                .map_err(|_| EvalError::value_error(span, "number sections must be larger than 0."))
        }
    }
}

fn pieces(parts: kupfer::Result<Vec<Array>>, span: Span) -> Result<Value> {
    Ok(Value::List(
        parts
            .map_err(kerr(span))?
            .into_iter()
            .map(Value::Array)
            .collect(),
    ))
}

fn split_with(
    call: Call,
    f: fn(&Array, &Sections, isize) -> kupfer::Result<Vec<Array>>,
) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["ary", "indices_or_sections", "axis="])?;
    let arr = a.array("ary")?;
    let s = sections(&a.req("indices_or_sections")?, span)?;
    let axis = a.int("axis")?.unwrap_or(0) as isize;
    pieces(f(&arr, &s, axis), span)
}

fn split(call: Call) -> Result<Value> {
    split_with(call, kupfer::split)
}

fn array_split(call: Call) -> Result<Value> {
    split_with(call, kupfer::array_split)
}

fn split_fixed(
    call: Call,
    f: fn(&Array, &Sections) -> kupfer::Result<Vec<Array>>,
) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["ary", "indices_or_sections"])?;
    let arr = a.array("ary")?;
    let s = sections(&a.req("indices_or_sections")?, span)?;
    pieces(f(&arr, &s), span)
}

fn hsplit(call: Call) -> Result<Value> {
    split_fixed(call, kupfer::hsplit)
}

fn vsplit(call: Call) -> Result<Value> {
    split_fixed(call, kupfer::vsplit)
}

/// `np.unstack(x, /, *, axis=0)`: a tuple of views along `axis`.
fn unstack(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["x/", "*axis="])?;
    let arr = a.array("x")?;
    let axis = a.int("axis")?.unwrap_or(0) as isize;
    let parts = kupfer::unstack(&arr, axis).map_err(kerr(span))?;
    Ok(Value::Tuple(parts.into_iter().map(Value::Array).collect()))
}

fn dsplit(call: Call) -> Result<Value> {
    split_fixed(call, kupfer::dsplit)
}

fn flip(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["m", "axis="])?;
    let arr = a.array("m")?;
    let axes = a.axes("axis")?;
    Ok(Value::Array(
        kupfer::flip(&arr, axes.as_deref()).map_err(kerr(span))?,
    ))
}

fn fliplr(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["m"])?;
    let arr = a.array("m")?;
    Ok(Value::Array(kupfer::fliplr(&arr).map_err(kerr(span))?))
}

fn flipud(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["m"])?;
    let arr = a.array("m")?;
    Ok(Value::Array(kupfer::flipud(&arr).map_err(kerr(span))?))
}

fn rot90(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["m", "k=", "axes="])?;
    let arr = a.array("m")?;
    let k = a.int("k")?.unwrap_or(1);
    let axes = a.axes("axes")?.unwrap_or_else(|| vec![0, 1]);
    if axes.len() != 2 {
        return Err(EvalError::value_error(span, "len(axes) must be 2."));
    }
    Ok(Value::Array(
        kupfer::rot90(&arr, k, [axes[0], axes[1]]).map_err(kerr(span))?,
    ))
}

fn roll(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "shift", "axis="])?;
    let arr = a.array("a")?;
    let shift = a.axes("shift")?.unwrap_or_default();
    let axes = a.axes("axis")?;
    Ok(Value::Array(
        kupfer::roll(&arr, &shift, axes.as_deref()).map_err(kerr(span))?,
    ))
}

fn rollaxis(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "axis", "start="])?;
    let arr = a.array("a")?;
    let axis = a.req_int("axis")? as isize;
    let start = a.int("start")?.unwrap_or(0) as isize;
    Ok(Value::Array(
        kupfer::rollaxis(&arr, axis, start).map_err(kerr(span))?,
    ))
}

fn tile(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["A", "reps"])?;
    let arr = a.array("A")?;
    let reps = a.axes("reps")?.unwrap_or_default();
    Ok(Value::Array(kupfer::tile(&arr, &reps).map_err(kerr(span))?))
}

fn repeat(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "repeats", "axis="])?;
    let arr = a.array("a")?;
    let repeats =
        match a.req("repeats")? {
            Value::Scalar(s) => {
                let n = to_int(&Value::Scalar(s), "np.repeat(): repeats", span)?;
                Repeats::Each(usize::try_from(n).map_err(|_| {
                    EvalError::value_error(span, "negative dimensions are not allowed")
                })?)
            }
            v => Repeats::Counts(to_array(&v, None, span)?),
        };
    let axis = a.int("axis")?.map(|x| x as isize);
    Ok(Value::Array(
        blocking::repeat(&arr, &repeats, axis).map_err(kerr(span))?,
    ))
}

/// A `(before, after)` argument of `pad` broadcast to `(ndim, 2)` as NumPy does: a scalar,
/// `(v,)`, `(before, after)`, `((before, after),)` or one pair (or one value) per axis.
fn pad_pairs<T: Clone>(
    v: &Value,
    ndim: usize,
    span: Span,
    conv: &dyn Fn(&Value) -> Result<T>,
) -> Result<Vec<(T, T)>> {
    // An integer array (`np.pad(a, np.array([1, 2]))`) is read as the nested list it holds.
    if let Some(h) = super::host_int_value(v, 2, span)? {
        return pad_pairs(&h, ndim, span, conv);
    }
    let rows: Vec<Vec<T>> = match v {
        Value::List(items) | Value::Tuple(items) => {
            let nested = items
                .iter()
                .any(|i| matches!(i, Value::List(_) | Value::Tuple(_)));
            if nested {
                items
                    .iter()
                    .map(|i| match i {
                        Value::List(p) | Value::Tuple(p) => p.iter().map(conv).collect(),
                        other => Ok(vec![conv(other)?]),
                    })
                    .collect::<Result<_>>()?
            } else {
                vec![items.iter().map(conv).collect::<Result<_>>()?]
            }
        }
        other => vec![vec![conv(other)?]],
    };
    let shape = (rows.len(), rows.first().map_or(0, Vec::len));
    let ok_rows = rows.len() == 1 || rows.len() == ndim;
    let ok_cols = rows.iter().all(|r| r.len() == shape.1) && (shape.1 == 1 || shape.1 == 2);
    if !ok_rows || !ok_cols {
        return Err(EvalError::value_error(
            span,
            format!(
                "operands could not be broadcast together with remapped shapes \
                 [original->remapped]: ({},{})  and requested shape ({ndim},2)",
                shape.0, shape.1
            ),
        ));
    }
    let pair = |r: &Vec<T>| (r[0].clone(), r[r.len() - 1].clone());
    Ok(if rows.len() == 1 {
        vec![pair(&rows[0]); ndim.max(1)]
    } else {
        rows.iter().map(pair).collect()
    })
}

/// NumPy 2.4's dict form of `pad_width`, `{axis: width or (before, after), ...}` (other
/// axes unpadded; negative axes count from the end), with NumPy's errors.
fn pad_dict(pairs: &[(Value, Value)], ndim: usize, span: Span) -> Result<Vec<(usize, usize)>> {
    if ndim == 0 {
        // NumPy's empty list of pairs is a float array.
        return Err(EvalError::type_error(
            span,
            "`pad_width` must be of integral type.",
        ));
    }
    let int = |v: &Value| match v {
        Value::Scalar(Scalar::Int(i)) => Some(*i),
        Value::Scalar(Scalar::Bool(b)) => Some(i64::from(*b)),
        _ => None,
    };
    let mut widths = vec![(0i64, 0i64); ndim];
    for (axis, width) in pairs {
        let pair = match width {
            Value::Tuple(items) if items.len() == 2 => int(&items[0]).zip(int(&items[1])),
            w => int(w).map(|both| (both, both)),
        };
        let Some(pair) = pair else {
            let shown = width
                .host_repr()
                .unwrap_or_else(|| format!("an {}", width.type_name()));
            return Err(EvalError::value_error(
                span,
                format!("Expected code to be unreachable, but got: {shown}"),
            ));
        };
        let Some(k) = int(axis) else {
            return Err(EvalError::type_error(
                span,
                format!(
                    "list indices must be integers or slices, not {}",
                    axis.type_name()
                ),
            ));
        };
        let slot = if k < 0 { k + ndim as i64 } else { k };
        if slot < 0 || slot >= ndim as i64 {
            return Err(EvalError::value_error(
                span,
                "list assignment index out of range",
            ));
        }
        widths[slot as usize] = pair;
    }
    widths
        .into_iter()
        .map(|(b, e)| match (usize::try_from(b), usize::try_from(e)) {
            (Ok(b), Ok(e)) => Ok((b, e)),
            _ => Err(EvalError::value_error(
                span,
                "index can't contain negative values",
            )),
        })
        .collect()
}

fn pad(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&[
        "array",
        "pad_width",
        "mode=",
        "*constant_values=",
        "*end_values=",
        "*stat_length=",
        "*reflect_type=",
    ])?;
    let arr = a.array("array")?;
    let nd = arr.ndim();
    let width = |v: &Value| -> Result<usize> {
        let n = to_int(v, "np.pad(): pad_width", span)?;
        usize::try_from(n)
            .map_err(|_| EvalError::value_error(span, "index can't contain negative values"))
    };
    let widths = match a.req("pad_width")? {
        Value::Dict(pairs) => pad_dict(&pairs, nd, span)?,
        other => pad_pairs(&other, nd, span, &width)?,
    };
    let scalar = |v: &Value| -> Result<Scalar> {
        match v {
            Value::Scalar(s) => Ok(*s),
            other => Err(EvalError::type_error(
                span,
                format!(
                    "np.pad(): values must be numbers, got '{}'",
                    other.type_name()
                ),
            )),
        }
    };
    let mode = a.string("mode")?.unwrap_or_else(|| "constant".into());
    // NumPy reflects oddly for 'odd' only (any other string is the even reflection).
    let odd = a.string("reflect_type")?.as_deref() == Some("odd");
    let stat = |a: &mut Args| -> Result<Option<Vec<(usize, usize)>>> {
        match a.get("stat_length") {
            None => Ok(None),
            Some(v) => Ok(Some(pad_pairs(&v, nd, span, &width)?)),
        }
    };
    let pairs_of = |v: Option<Value>| -> Result<Vec<(Scalar, Scalar)>> {
        match v {
            None => Ok(Vec::new()),
            Some(v) => pad_pairs(&v, nd, span, &scalar),
        }
    };
    let mode = match mode.as_str() {
        "constant" => PadMode::Constant(pairs_of(a.get("constant_values"))?),
        "empty" => PadMode::Constant(Vec::new()),
        "edge" => PadMode::Edge,
        "reflect" if odd => PadMode::ReflectOdd,
        "reflect" => PadMode::Reflect,
        "symmetric" if odd => PadMode::SymmetricOdd,
        "symmetric" => PadMode::Symmetric,
        "wrap" => PadMode::Wrap,
        "linear_ramp" => PadMode::LinearRamp(pairs_of(a.get("end_values"))?),
        "maximum" => PadMode::Maximum(stat(&mut a)?),
        "minimum" => PadMode::Minimum(stat(&mut a)?),
        "mean" => PadMode::Mean(stat(&mut a)?),
        "median" => PadMode::Median(stat(&mut a)?),
        other => {
            return Err(EvalError::value_error(
                span,
                format!("mode '{other}' is not supported"),
            ))
        }
    };
    let widths = if nd == 0 { vec![(0, 0)] } else { widths };
    Ok(Value::Array(
        kupfer::pad(&arr, &widths, &mode).map_err(kerr(span))?,
    ))
}

fn triangle(call: Call, f: fn(&Array, isize) -> kupfer::Result<Array>) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["m", "k="])?;
    let arr = a.array("m")?;
    let k = a.int("k")?.unwrap_or(0) as isize;
    Ok(Value::Array(f(&arr, k).map_err(kerr(span))?))
}

fn tril(call: Call) -> Result<Value> {
    triangle(call, kupfer::tril)
}

fn triu(call: Call) -> Result<Value> {
    triangle(call, kupfer::triu)
}

fn tri(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["N", "M=", "k=", "dtype=", "*like="])?;
    let dim = |v: i64| {
        usize::try_from(v)
            .map_err(|_| EvalError::value_error(span, "negative dimensions are not allowed"))
    };
    let n = dim(a.req_int("N")?)?;
    let m = a.int("M")?.map(dim).transpose()?;
    let k = a.int("k")?.unwrap_or(0) as isize;
    let dtype = match a.get("dtype") {
        None => Some(DType::F64).filter(|_| false),
        Some(v) => Some(to_dtype(&v, "np.tri(): dtype", span)?),
    };
    Ok(Value::Array(
        kupfer::tri(n, m, k, dtype).map_err(kerr(span))?,
    ))
}

fn diagflat(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["v", "k="])?;
    let arr = a.array("v")?;
    let k = a.int("k")?.unwrap_or(0) as isize;
    Ok(Value::Array(kupfer::diagflat(&arr, k).map_err(kerr(span))?))
}

/// Positions along an axis of length `len`: an int, a list of ints or bools, or a slice.
fn positions(v: &Value, len: usize, span: Span) -> Result<(Vec<isize>, bool)> {
    match v {
        Value::Slice(s) => {
            let p = s
                .positions(len)
                .map_err(|m| EvalError::value_error(span, m))?;
            Ok((p.into_iter().map(|x| x as isize).collect(), false))
        }
        Value::List(items) | Value::Tuple(items)
            if !items.is_empty()
                && items
                    .iter()
                    .all(|i| matches!(i, Value::Scalar(Scalar::Bool(_)))) =>
        {
            if items.len() != len {
                return Err(EvalError::value_error(
                    span,
                    format!(
                        "boolean array argument obj to delete must be one dimensional and \
                         match the axis length of {len}"
                    ),
                ));
            }
            Ok((
                items
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| matches!(b, Value::Scalar(Scalar::Bool(true))))
                    .map(|(i, _)| i as isize)
                    .collect(),
                false,
            ))
        }
        Value::List(items) | Value::Tuple(items) => Ok((
            items
                .iter()
                .map(|i| to_int(i, "index", span).map(|x| x as isize))
                .collect::<Result<_>>()?,
            false,
        )),
        // NumPy's array_like: an integer array is the list (or, 0-d, the int) it holds, a
        // 1-D bool array a mask (read to the host, one sync).
        Value::Array(arr) if arr.dtype() == DType::Bool && arr.ndim() == 1 => {
            let bits = super::host_ints(arr, "obj", span)?;
            let items = bits
                .into_iter()
                .map(|b| Value::Scalar(Scalar::Bool(b != 0)))
                .collect();
            positions(&Value::List(items), len, span)
        }
        Value::Array(arr) => match super::host_int_value(v, 1, span)? {
            Some(h) => positions(&h, len, span),
            None => Err(EvalError::type_error(
                span,
                format!(
                    "arrays used as indices must be of integer (or boolean) type, got {}",
                    arr.dtype().name()
                ),
            )),
        },
        other => Ok((vec![to_int(other, "index", span)? as isize], true)),
    }
}

fn axis_len(arr: &Array, axis: Option<i64>, span: Span) -> Result<usize> {
    match axis {
        None => Ok(arr.size()),
        Some(ax) => {
            let n = arr.ndim() as i64;
            if ax < -n || ax >= n {
                return Err(EvalError::value_error(
                    span,
                    format!("axis {ax} is out of bounds for array of dimension {n}"),
                ));
            }
            Ok(arr.shape()[ax.rem_euclid(n.max(1)) as usize])
        }
    }
}

fn insert(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["arr", "obj", "values", "axis="])?;
    let arr = a.array("arr")?;
    let axis = a.int("axis")?;
    let len = axis_len(&arr, axis, span)?;
    let obj = a.req("obj")?;
    let (idx, scalar) = positions(&obj, len, span)?;
    let at = if scalar {
        InsertAt::Index(idx[0])
    } else {
        InsertAt::Indices(idx)
    };
    let values = to_array(&a.req("values")?, None, span)?;
    Ok(Value::Array(
        kupfer::insert(&arr, &at, &values, axis.map(|x| x as isize)).map_err(kerr(span))?,
    ))
}

fn delete(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["arr", "obj", "axis="])?;
    let arr = a.array("arr")?;
    let axis = a.int("axis")?;
    let len = axis_len(&arr, axis, span)?;
    let (idx, _) = positions(&a.req("obj")?, len, span)?;
    Ok(Value::Array(
        kupfer::delete(&arr, &idx, axis.map(|x| x as isize)).map_err(kerr(span))?,
    ))
}

fn resize(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "new_shape"])?;
    let arr = a.array("a")?;
    let shape = a.axes("new_shape")?.unwrap_or_default();
    Ok(Value::Array(
        kupfer::resize(&arr, &shape).map_err(kerr(span))?,
    ))
}

fn trim_zeros(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["filt", "trim=", "axis="])?;
    let arr = a.array("filt")?;
    let trim = a.string("trim")?.unwrap_or_else(|| "fb".into());
    let axis = a.int("axis")?.map(|x| x as isize);
    Ok(Value::Array(
        blocking::trim_zeros(&arr, &trim, axis).map_err(kerr(span))?,
    ))
}

/// `np.array` / `np.asarray` of a (nested) list mixing arrays and Python values: every item
/// becomes an array, and items of one shape stack along a new first axis.
pub(crate) fn array_of_items(v: &Value, span: Span) -> Result<Array> {
    let items = match v {
        Value::List(items) | Value::Tuple(items) => items,
        other => return to_array(other, None, span),
    };
    let arrays = items
        .iter()
        .map(|i| match i {
            Value::List(_) | Value::Tuple(_) => match flatten_nested(i) {
                Some(Ok(_)) => to_array(i, None, span),
                _ => array_of_items(i, span),
            },
            other => to_array(other, None, span),
        })
        .collect::<Result<Vec<_>>>()?;
    if let Some(first) = arrays.first() {
        if let Some(bad) = arrays.iter().find(|a| a.shape() != first.shape()) {
            let depth = first
                .shape()
                .iter()
                .zip(bad.shape())
                .take_while(|(x, y)| x == y)
                .count();
            let mut detected = vec![arrays.len()];
            detected.extend(&first.shape()[..depth]);
            return Err(EvalError::value_error(
                span,
                format!(
                    "setting an array element with a sequence. The requested array has an \
                     inhomogeneous shape after {} dimensions. The detected shape was {} + \
                     inhomogeneous part.",
                    detected.len(),
                    crate::format::shape_repr(&detected)
                ),
            ));
        }
    }
    kupfer::stack(&arrays, 0, None).map_err(kerr(span))
}

/// `trim_zeros` reads the nonzero bounds back before slicing: natively it blocks on that;
/// in the browser, where nothing may block, it is a clear error (as `repeat` with counts).
mod blocking {
    pub(super) use kupfer::repeat;
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) use kupfer::trim_zeros;

    #[cfg(target_arch = "wasm32")]
    pub(super) fn trim_zeros(
        _a: &kupfer::Array,
        _trim: &str,
        _axis: Option<isize>,
    ) -> kupfer::Result<kupfer::Array> {
        Err(kupfer::Error::unsupported(
            "trim_zeros in the browser (it reads the nonzero bounds back, and the page must \
             not block)",
        ))
    }
}
