//! Index functions from kupfer's `indexing` module: `nonzero`, `flatnonzero`, `argwhere`,
//! `take`, `take_along_axis`, `put`, `put_along_axis`, `fill_diagonal`, `place`, `putmask`, `copyto`,
//! `compress`, `extract`, `choose`, `select`, `indices`, `ix_`, `unravel_index`,
//! `ravel_multi_index`, `diag_indices`, `diag_indices_from`, `tril_indices`, `triu_indices`,
//! `tril_indices_from`, `triu_indices_from`, `mask_indices`
//! and `ufunc.at` (`np.add.at`, `subtract`, `multiply`, `maximum`, `minimum`, `bitwise_and`,
//! `bitwise_or`, `bitwise_xor` atomically; every other elementwise ufunc, unary or binary,
//! through [`kupfer::ufunc_at_with`]'s rounds). Functions that read a value
//! back (data-dependent sizes, bounds checks) block natively and are a clear error in the
//! browser when they would have to wait.

use super::{to_array, to_int, to_operand, Call, Registry};
use crate::error::{EvalError, Result};
use crate::program::wait;
use crate::value::Value;
use kupfer::{Array, AtOp, Casting, Index, IndexOrder, Operand, SliceArg, TakeMode};

pub(super) fn register(r: &mut Registry) {
    r.native(&["nonzero"], nonzero);
    r.native(&["flatnonzero"], flatnonzero);
    r.native(&["argwhere"], argwhere);
    r.native(&["take"], take);
    r.native(&["take_along_axis"], take_along_axis);
    r.native(&["put"], put);
    r.native(&["put_along_axis"], put_along_axis);
    r.native(&["fill_diagonal"], fill_diagonal);
    r.native(&["place"], place);
    r.native(&["putmask"], putmask);
    r.native(&["copyto"], copyto);
    r.native(&["compress"], compress);
    r.native(&["extract"], extract);
    r.native(&["choose"], choose);
    r.native(&["select"], select);
    r.native(&["indices"], indices);
    r.native(&["ix_"], ix);
    r.native(&["unravel_index"], unravel_index);
    r.native(&["ravel_multi_index"], ravel_multi_index);
    r.native(&["diag_indices"], diag_indices);
    r.native(&["diag_indices_from"], diag_indices_from);
    r.native(&["tril_indices"], tril_indices);
    r.native(&["tril_indices_from"], |c| triangle_from(c, true));
    r.native(&["triu_indices_from"], |c| triangle_from(c, false));
    r.native(&["triu_indices"], triu_indices);
    r.native(&["mask_indices"], mask_indices);
    r.native(
        &["degrees.at", "radians.at", "deg2rad.at", "rad2deg.at"],
        general_at,
    );
    // NumPy's `ufunc.at` takes single-output ufuncs only.
    r.native(&["modf.at", "frexp.at", "divmod.at"], |c| {
        Err(EvalError::value_error(
            c.span,
            "Only single output ufuncs supported at this time",
        ))
    });
    r.native(&["add.at"], add_at);
    r.native(&["subtract.at"], subtract_at);
    r.native(&["multiply.at"], multiply_at);
    r.native(&["maximum.at"], maximum_at);
    r.native(&["minimum.at"], minimum_at);
    r.native(&["bitwise_and.at"], |c| at(c, AtOp::BitwiseAnd));
    r.native(&["bitwise_or.at"], |c| at(c, AtOp::BitwiseOr));
    r.native(&["bitwise_xor.at"], |c| at(c, AtOp::BitwiseXor));
}

fn arrays(v: Vec<Array>) -> Value {
    Value::Tuple(v.into_iter().map(Value::Array).collect())
}

fn mode(a: &mut super::Args) -> Result<TakeMode> {
    let span = a.span();
    match a.string("mode")? {
        None => Ok(TakeMode::Raise),
        Some(s) => TakeMode::parse(&s).map_err(EvalError::kupfer(span)),
    }
}

fn axis(a: &mut super::Args, p: &str) -> Result<Option<isize>> {
    let span = a.span();
    match a.get(p) {
        None | Some(Value::None) => Ok(None),
        Some(v) => Ok(Some(to_int(&v, "'axis'", span)? as isize)),
    }
}

/// `nonzero(a)`.
pub(crate) fn nonzero(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a"])?;
    let x = a.array("a")?;
    let r = wait(kupfer::nonzero_async(&x), "np.nonzero").map_err(EvalError::kupfer(span))?;
    Ok(arrays(r))
}

fn flatnonzero(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a"])?;
    let x = a.array("a")?;
    let r =
        wait(kupfer::flatnonzero_async(&x), "np.flatnonzero").map_err(EvalError::kupfer(span))?;
    Ok(Value::Array(r))
}

fn argwhere(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a"])?;
    let x = a.array("a")?;
    let r = wait(kupfer::argwhere_async(&x), "np.argwhere").map_err(EvalError::kupfer(span))?;
    Ok(Value::Array(r))
}

/// `take(a, indices, axis=None, out=None, mode='raise')`.
pub(crate) fn take(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "indices", "axis=", "out=", "mode="])?;
    let x = a.array("a")?;
    let idx = a.operand("indices")?;
    let ax = axis(&mut a, "axis")?;
    let out = super::outputs::take_out(&mut a, "output must be an array")?;
    let m = mode(&mut a)?;
    let r =
        wait(kupfer::take_async(&x, &idx, ax, m), "np.take").map_err(EvalError::kupfer(span))?;
    take_out_write(out, r, x.dtype(), span)
}

/// `out=` of `take` and `compress`: the result's shape, and `out`'s dtype must cast safely
/// to the input's (NumPy writes through a copy of `out` in every mode).
fn take_out_write(
    out: Option<kupfer::Array>,
    r: kupfer::Array,
    input: kupfer::DType,
    span: crate::ast::Span,
) -> Result<Value> {
    let Some(out) = out else {
        return Ok(Value::Array(r));
    };
    let msg = "output array does not match result of ndarray.take";
    let check = super::outputs::Check::ShapeAndSafeBack(msg, input);
    super::outputs::write(out, r, check, span)
}

fn take_along_axis(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["arr", "indices", "axis="])?;
    let x = a.array("arr")?;
    let idx = a.array("indices")?;
    let ax = match a.get("axis") {
        None => Some(-1),
        Some(Value::None) => None,
        Some(v) => Some(to_int(&v, "'axis'", span)? as isize),
    };
    let r = wait(
        kupfer::take_along_axis_async(&x, &idx, ax),
        "np.take_along_axis",
    )
    .map_err(EvalError::kupfer(span))?;
    Ok(Value::Array(r))
}

/// `put(a, ind, v, mode='raise')`.
pub(crate) fn put(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "ind", "v", "mode="])?;
    let x = a.array("a")?;
    let ind = a.operand("ind")?;
    let v = a.operand("v")?;
    let m = mode(&mut a)?;
    wait(kupfer::put_async(&x, &ind, v, m), "np.put").map_err(EvalError::kupfer(span))?;
    Ok(Value::None)
}

fn put_along_axis(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["arr", "indices", "values", "axis"])?;
    let x = a.array("arr")?;
    let idx = a.array("indices")?;
    let v = a.operand("values")?;
    let ax = axis(&mut a, "axis")?;
    wait(
        kupfer::put_along_axis_async(&x, &idx, v, ax),
        "np.put_along_axis",
    )
    .map_err(EvalError::kupfer(span))?;
    Ok(Value::None)
}

fn fill_diagonal(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "val", "wrap="])?;
    let x = a.array("a")?;
    let v = a.operand("val")?;
    let wrap = a.bool_or("wrap", false)?;
    wait(kupfer::fill_diagonal_async(&x, v, wrap), "np.fill_diagonal")
        .map_err(EvalError::kupfer(span))?;
    Ok(Value::None)
}

fn place(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["arr", "mask", "vals"])?;
    let x = a.array("arr")?;
    let m = a.array("mask")?;
    let v = a.operand("vals")?;
    wait(kupfer::place_async(&x, &m, v), "np.place").map_err(EvalError::kupfer(span))?;
    Ok(Value::None)
}

fn putmask(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "mask", "values"])?;
    let x = a.array("a")?;
    let m = a.array("mask")?;
    let v = a.operand("values")?;
    kupfer::putmask(&x, &m, v).map_err(EvalError::kupfer(span))?;
    Ok(Value::None)
}

fn copyto(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["dst", "src", "casting=", "where="])?;
    let dst = match a.req("dst")? {
        Value::Array(d) => d,
        other => {
            return Err(EvalError::type_error(
                span,
                format!(
                    "copyto() argument 1 must be numpy.ndarray, not {}",
                    other.type_name()
                ),
            ))
        }
    };
    let src = a.operand("src")?;
    let casting = match a.string("casting")?.as_deref() {
        None | Some("same_kind") => Casting::SameKind,
        Some("no") => Casting::No,
        Some("equiv") => Casting::Equiv,
        Some("safe") => Casting::Safe,
        Some("unsafe") => Casting::Unsafe,
        Some(o) => {
            return Err(EvalError::value_error(
                span,
                format!("casting must be one of 'no', 'equiv', 'safe', 'same_kind', or 'unsafe' (got '{o}')"),
            ))
        }
    };
    let where_ = match a.get("where") {
        None | Some(Value::Scalar(kupfer::Scalar::Bool(true))) => None,
        Some(w) => Some(to_array(&w, None, span)?),
    };
    kupfer::copyto(&dst, src, casting, where_.as_ref()).map_err(EvalError::kupfer(span))?;
    Ok(Value::None)
}

/// `compress(condition, a, axis=None, out=None)`.
pub(crate) fn compress(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["condition", "a", "axis=", "out="])?;
    let c = a.array("condition")?;
    let x = a.array("a")?;
    let ax = axis(&mut a, "axis")?;
    let out = super::outputs::take_out(&mut a, "output must be an array")?;
    let r =
        wait(kupfer::compress_async(&c, &x, ax), "np.compress").map_err(EvalError::kupfer(span))?;
    take_out_write(out, r, x.dtype(), span)
}

fn extract(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["condition", "arr"])?;
    let c = a.array("condition")?;
    let x = a.array("arr")?;
    let r = wait(kupfer::extract_async(&c, &x), "np.extract").map_err(EvalError::kupfer(span))?;
    Ok(Value::Array(r))
}

fn operands(v: Value, ctx: &str, span: crate::ast::Span) -> Result<Vec<Operand>> {
    match v {
        Value::List(items) | Value::Tuple(items) => {
            items.iter().map(|i| to_operand(i, ctx, span)).collect()
        }
        Value::Array(a) if a.ndim() > 0 => (0..a.shape()[0])
            .map(|k| {
                a.slice(&[kupfer::SliceArg::Index(k as isize)])
                    .map(Operand::Array)
                    .map_err(EvalError::kupfer(span))
            })
            .collect(),
        other => Err(EvalError::type_error(
            span,
            format!("{ctx} must be a sequence, got '{}'", other.type_name()),
        )),
    }
}

/// `choose(a, choices, out=None, mode='raise')`.
pub(crate) fn choose(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "choices", "out=", "mode="])?;
    let x = a.array("a")?;
    let choices = operands(a.req("choices")?, "'choices'", span)?;
    let out = super::outputs::take_out(&mut a, "choose: output must be an array")?;
    let m = mode(&mut a)?;
    let r = wait(kupfer::choose_async(&x, &choices, m), "np.choose")
        .map_err(EvalError::kupfer(span))?;
    match out {
        None => Ok(Value::Array(r)),
        Some(out) => super::outputs::write(
            out,
            r,
            super::outputs::Check::Shape("choose: invalid shape for output array."),
            span,
        ),
    }
}

fn select(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["condlist", "choicelist", "default="])?;
    let conds: Vec<Array> = match a.req("condlist")? {
        Value::List(items) | Value::Tuple(items) => items
            .iter()
            .map(|i| to_array(i, None, span))
            .collect::<Result<_>>()?,
        other => vec![to_array(&other, None, span)?],
    };
    let choices = operands(a.req("choicelist")?, "'choicelist'", span)?;
    let default = match a.get("default") {
        None => Operand::Scalar(kupfer::Scalar::Int(0)),
        Some(v) => to_operand(&v, "'default'", span)?,
    };
    let r = kupfer::select(&conds, &choices, default).map_err(EvalError::kupfer(span))?;
    Ok(Value::Array(r))
}

fn indices(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["dimensions", "dtype=", "sparse="])?;
    let dims = a.shape("dimensions")?;
    let dtype = a.dtype("dtype")?;
    let sparse = a.bool_or("sparse", false)?;
    let r = kupfer::indices(&dims, dtype, sparse).map_err(EvalError::kupfer(span))?;
    if sparse {
        Ok(arrays(r))
    } else {
        Ok(Value::Array(r.into_iter().next().ok_or_else(|| {
            EvalError::value_error(span, "indices of no dimensions")
        })?))
    }
}

fn ix(call: Call) -> Result<Value> {
    let span = call.span;
    let xs = call
        .args
        .iter()
        .map(|v| to_array(v, None, span))
        .collect::<Result<Vec<_>>>()?;
    let r = wait(kupfer::ix_async(&xs), "np.ix_").map_err(EvalError::kupfer(span))?;
    Ok(arrays(r))
}

fn order(a: &mut super::Args) -> Result<IndexOrder> {
    let span = a.span();
    match a.string("order")? {
        None => Ok(IndexOrder::C),
        Some(s) => IndexOrder::parse(&s).map_err(EvalError::kupfer(span)),
    }
}

fn unravel_index(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["indices", "shape", "order="])?;
    let idx = to_array(&a.req("indices")?, None, span)?;
    let shape = a.shape("shape")?;
    let o = order(&mut a)?;
    let r = wait(
        kupfer::unravel_index_order_async(&idx, &shape, o),
        "np.unravel_index",
    )
    .map_err(EvalError::kupfer(span))?;
    Ok(arrays(r))
}

fn ravel_multi_index(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["multi_index", "dims", "mode=", "order="])?;
    let mi: Vec<Array> = match a.req("multi_index")? {
        Value::List(items) | Value::Tuple(items) => items
            .iter()
            .map(|i| to_array(i, None, span))
            .collect::<Result<_>>()?,
        // An array's rows (its first axis) are the coordinate arrays, as NumPy iterates it.
        Value::Array(arr) if arr.ndim() > 0 => (0..arr.shape()[0])
            .map(|i| arr.slice(&[SliceArg::Index(i as isize)]))
            .collect::<kupfer::Result<_>>()
            .map_err(EvalError::kupfer(span))?,
        other => {
            return Err(EvalError::type_error(
                span,
                format!(
                    "multi_index must be a sequence, got '{}'",
                    other.type_name()
                ),
            ))
        }
    };
    let dims = a.shape("dims")?;
    let modes: Vec<TakeMode> = match a.get("mode") {
        None | Some(Value::None) => vec![TakeMode::Raise],
        Some(Value::Str(s)) => vec![TakeMode::parse(&s).map_err(EvalError::kupfer(span))?],
        Some(Value::List(items)) | Some(Value::Tuple(items)) => items
            .iter()
            .map(|m| match m {
                Value::Str(s) => TakeMode::parse(s).map_err(EvalError::kupfer(span)),
                other => Err(EvalError::type_error(
                    span,
                    format!("clipmode must be a string, got '{}'", other.type_name()),
                )),
            })
            .collect::<Result<_>>()?,
        Some(other) => {
            return Err(EvalError::type_error(
                span,
                format!("clipmode must be a string, got '{}'", other.type_name()),
            ))
        }
    };
    let o = order(&mut a)?;
    let r = wait(
        kupfer::ravel_multi_index_modes_async(&mi, &dims, &modes, o),
        "np.ravel_multi_index",
    )
    .map_err(EvalError::kupfer(span))?;
    Ok(Value::Array(r))
}

fn diag_indices(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["n", "ndim="])?;
    let n = a.req_int("n")?;
    let nd = a.int("ndim")?.unwrap_or(2);
    if n < 0 || nd < 0 {
        return Err(EvalError::value_error(
            span,
            "negative dimensions are not allowed",
        ));
    }
    let r = kupfer::diag_indices(n as usize, nd as usize).map_err(EvalError::kupfer(span))?;
    Ok(arrays(r))
}

fn diag_indices_from(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["arr"])?;
    let arr = a.array("arr")?;
    let r = kupfer::diag_indices_from(&arr).map_err(EvalError::kupfer(span))?;
    Ok(arrays(r))
}

/// `tril_indices_from(arr, k=0)` / `triu_indices_from`: the triangle of a 2-D array's shape.
fn triangle_from(call: Call, lower: bool) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["arr", "k="])?;
    let arr = a.array("arr")?;
    if arr.ndim() != 2 {
        return Err(EvalError::value_error(span, "input array must be 2-d"));
    }
    let k = a.int("k")?.unwrap_or(0);
    let (n, m) = (arr.shape()[0], arr.shape()[1]);
    let r = if lower {
        kupfer::tril_indices(n, k, Some(m))
    } else {
        kupfer::triu_indices(n, k, Some(m))
    }
    .map_err(EvalError::kupfer(span))?;
    Ok(arrays(r))
}

fn triangle(call: Call, lower: bool) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["n", "k=", "m="])?;
    let n = a.req_int("n")?.max(0) as usize;
    let k = a.int("k")?.unwrap_or(0);
    let m = match a.get("m") {
        None | Some(Value::None) => None,
        Some(v) => Some(to_int(&v, "'m'", span)?.max(0) as usize),
    };
    let r = if lower {
        kupfer::tril_indices(n, k, m)
    } else {
        kupfer::triu_indices(n, k, m)
    }
    .map_err(EvalError::kupfer(span))?;
    Ok(arrays(r))
}

/// `np.mask_indices(n, mask_func, k=0)`: NumPy's definition, `mask_func(ones((n, n), int),
/// k)`'s nonzero indices, for any function kupfer eval registers (`np.triu`, `np.tril`).
fn mask_indices(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["n", "mask_func", "k="])?;
    let n = to_int(&a.req("n")?, "n", span)?;
    let n = usize::try_from(n)
        .map_err(|_| EvalError::value_error(span, "negative dimensions are not allowed"))?;
    let func = a.req("mask_func")?;
    let k = a.get("k").unwrap_or(Value::Scalar(kupfer::Scalar::Int(0)));
    let Value::Function(name) = func else {
        return Err(EvalError::not_supported(
            span,
            format!(
                "np.mask_indices with a mask_func of type '{}' (a NumPy function such as \
                 np.triu is supported)",
                func.type_name()
            ),
        ));
    };
    let Some((key, f)) = super::lookup(name) else {
        return Err(EvalError::value_error(
            span,
            format!("unknown function '{name}'"),
        ));
    };
    let ones = kupfer::ones(&[n, n], Some(kupfer::DType::I64)).map_err(EvalError::kupfer(span))?;
    let masked = super::call(
        f,
        Call {
            name: key,
            span,
            args: vec![Value::Array(ones), k],
            kwargs: Vec::new(),
        },
    )?;
    let masked = to_array(&masked, None, span)?;
    let nz = kupfer::not_equal(&masked, 0).map_err(EvalError::kupfer(span))?;
    let r = wait(kupfer::nonzero_async(&nz), "np.mask_indices").map_err(EvalError::kupfer(span))?;
    Ok(arrays(r))
}

fn tril_indices(call: Call) -> Result<Value> {
    triangle(call, true)
}

fn triu_indices(call: Call) -> Result<Value> {
    triangle(call, false)
}

/// The destination and index of a `ufunc.at` call, with its optional `b`.
fn at_args(call: Call) -> Result<(Array, Vec<Index>, Option<Operand>)> {
    let span = call.span;
    let mut a = call.bind(&["a", "indices", "b="])?;
    let x = match a.req("a")? {
        Value::Array(x) => x,
        other => {
            return Err(EvalError::type_error(
                span,
                format!(
                    "first operand must be an array, not '{}'",
                    other.type_name()
                ),
            ))
        }
    };
    let iv = a.req("indices")?;
    let index: Vec<Index> = match &iv {
        Value::Tuple(items) => items
            .iter()
            .map(|i| to_index(i, span))
            .collect::<Result<_>>()?,
        other => vec![to_index(other, span)?],
    };
    let b = match a.get("b") {
        Some(Value::None) | None => None,
        Some(v) => Some(to_operand(&v, "'b'", span)?),
    };
    Ok((x, index, b))
}

fn at(call: Call, op: AtOp) -> Result<Value> {
    let span = call.span;
    let name = call.name;
    let (x, index, b) = at_args(call)?;
    let Some(b) = b else {
        return Err(EvalError::value_error(
            span,
            "second operand needed for ufunc",
        ));
    };
    match wait(
        kupfer::ufunc_at_async(op, &x, &index, b.clone()),
        "ufunc.at",
    ) {
        // Combinations without an atomic or segmented kernel (64-bit destinations with a
        // wider loop) take the general rounds path.
        Err(kupfer::Error::Unsupported(_)) => rounds_at(name, span, x, index, Some(b)),
        r => r.map(|()| Value::None).map_err(EvalError::kupfer(span)),
    }
}

/// NumPy's unary ufuncs that kupfer eval implements as composites (native functions).
const UNARY_NATIVE_UFUNCS: &[&str] = &["degrees", "radians", "deg2rad", "rad2deg"];

/// `np.NAME.at` for any elementwise ufunc `NAME` without an atomic kernel
/// (`np.negative.at(a, [0, 1])`, `np.power.at(a, i, 2)`): [`kupfer::ufunc_at_with`]'s rounds,
/// each step evaluated as `np.NAME` evaluates it (its dtype rules and errors) and cast into
/// `a`'s dtype unsafely, as NumPy's `ufunc.at` does. Reads the selected element numbers back
/// once (one sync).
pub(super) fn general_at(call: Call) -> Result<Value> {
    let span = call.span;
    let name = call.name;
    let (x, index, b) = at_args(call)?;
    rounds_at(name, span, x, index, b)
}

fn rounds_at(
    name: &'static str,
    span: crate::ast::Span,
    x: Array,
    index: Vec<Index>,
    b: Option<Operand>,
) -> Result<Value> {
    let uname = name.strip_suffix(".at").unwrap_or(name);
    let Some((ukey, f)) = super::lookup(uname) else {
        return Err(EvalError::value_error(span, format!("no ufunc '{uname}'")));
    };
    let unary = match f {
        super::Func::Unary(_) => true,
        super::Func::Binary(_) => false,
        super::Func::Native(_) => UNARY_NATIVE_UFUNCS.contains(&uname),
    };
    match (unary, &b) {
        (true, Some(_)) => {
            return Err(EvalError::value_error(
                span,
                "second operand provided when ufunc is unary",
            ))
        }
        (false, None) => {
            return Err(EvalError::value_error(
                span,
                "second operand needed for ufunc",
            ))
        }
        _ => {}
    }
    // An error of the ufunc itself is the eval error it raises; kupfer sees a placeholder.
    let mut failed: Option<EvalError> = None;
    let step = |cur: &Array, bv: Option<Operand>| -> kupfer::Result<Array> {
        let mut args = vec![Value::Array(cur.clone())];
        match bv {
            Some(Operand::Array(v)) => args.push(Value::Array(v)),
            Some(Operand::Scalar(s)) => args.push(Value::Scalar(s)),
            None => {}
        }
        let c = Call {
            name: ukey,
            span,
            args,
            kwargs: Vec::new(),
        };
        match super::call(f, c) {
            Ok(Value::Array(r)) => Ok(r),
            Ok(_) => Err(kupfer::Error::invalid(
                "ufunc.at: the ufunc returned no array",
            )),
            Err(e) => {
                failed = Some(e);
                Err(kupfer::Error::invalid("ufunc.at: the ufunc failed"))
            }
        }
    };
    let r = wait(kupfer::ufunc_at_with_async(&x, &index, b, step), "ufunc.at");
    if let Some(e) = failed {
        return Err(e);
    }
    r.map_err(EvalError::kupfer(span))?;
    Ok(Value::None)
}

fn to_index(v: &Value, span: crate::ast::Span) -> Result<Index> {
    Ok(match v {
        Value::Scalar(kupfer::Scalar::Int(i)) => Index::Basic(kupfer::SliceArg::Index(*i as isize)),
        Value::Slice(s) => Index::Basic(kupfer::SliceArg::Slice {
            start: s.start.map(|x| x as isize),
            stop: s.stop.map(|x| x as isize),
            step: s.step.map(|x| x as isize),
        }),
        Value::List(items)
            if items
                .iter()
                .all(|x| matches!(x, Value::Scalar(kupfer::Scalar::Int(_)))) =>
        {
            Index::List(
                items
                    .iter()
                    .map(|x| match x {
                        Value::Scalar(kupfer::Scalar::Int(i)) => *i,
                        _ => 0,
                    })
                    .collect(),
            )
        }
        other => Index::Array(to_array(other, None, span)?),
    })
}

fn add_at(call: Call) -> Result<Value> {
    at(call, AtOp::Add)
}

fn subtract_at(call: Call) -> Result<Value> {
    at(call, AtOp::Subtract)
}

fn multiply_at(call: Call) -> Result<Value> {
    at(call, AtOp::Multiply)
}

fn maximum_at(call: Call) -> Result<Value> {
    at(call, AtOp::Maximum)
}

fn minimum_at(call: Call) -> Result<Value> {
    at(call, AtOp::Minimum)
}
