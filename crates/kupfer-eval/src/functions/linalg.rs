//! Linear algebra: `@` / `matmul` / `linalg.matmul`, `dot`, `vdot`, `inner`, `outer`,
//! `tensordot`, `einsum` (subscripts string or NumPy's interleaved sublists), `kron`, `trace`,
//! `diag`, `diagonal`, `linalg.norm` and the array-API
//! spellings in `linalg` (`linalg.tensordot`, `linalg.outer`, `linalg.trace`,
//! `linalg.diagonal`, `linalg.vector_norm`, `linalg.matrix_norm`, `linalg.vecdot`, `vecdot`),
//! `matvec`, `vecmat`, `linalg.multi_dot`, `linalg.matrix_power`, `cross` and `linalg.cross`.
//! Methods `a.dot(b)`, `a.trace()` and `a.diagonal()` call the same handlers.
//!
//! Operands convert as NumPy's `asarray` does (a Python int is an int64 array), so
//! `np.dot(2, x)` has NumPy's dtype. Result dtypes are kupfer's (32-bit operands are never
//! widened: the trace of an int32 matrix is int32).

use super::{loops, to_array, to_axes, to_int, Args, Call, Registry};
use crate::ast::Span;
use crate::error::{EvalError, Result};
use crate::value::Value;
use kupfer::casting::Casting;
use kupfer::linalg::{norm, NormOrd};
use kupfer::{Array, Operand, Scalar, TensorAxes};

pub(super) fn register(r: &mut Registry) {
    r.native(&["matmul", "linalg.matmul"], matmul_fn);
    r.native(&["dot"], dot_fn);
    r.native(&["vdot"], vdot_fn);
    r.native(&["inner"], inner_fn);
    r.native(&["outer"], outer_fn);
    r.native(&["linalg.outer"], linalg_outer);
    r.native(&["kron"], kron_fn);
    r.native(&["tensordot", "linalg.tensordot"], tensordot_fn);
    r.native(&["einsum"], einsum_fn);
    r.native(&["trace"], trace_fn);
    r.native(&["linalg.trace"], linalg_trace);
    r.native(&["diagonal"], diagonal_fn);
    r.native(&["linalg.diagonal"], linalg_diagonal);
    r.native(&["diag"], diag_fn);
    r.native(&["linalg.norm"], norm_fn);
    r.native(&["linalg.vector_norm"], vector_norm);
    r.native(&["linalg.matrix_norm"], matrix_norm);
    r.native(&["vecdot", "linalg.vecdot"], vecdot_fn);
    r.native(&["matvec"], matvec_fn);
    r.native(&["vecmat"], vecmat_fn);
    r.native(&["linalg.multi_dot"], multi_dot_fn);
    r.native(&["linalg.matrix_power"], matrix_power_fn);
    r.native(&["cross"], cross_fn);
    r.native(&["linalg.cross"], linalg_cross);
}

fn kerr(span: Span) -> impl FnOnce(kupfer::Error) -> EvalError {
    EvalError::kupfer(span)
}

fn no_out(a: &mut Args) -> Result<()> {
    match a.get("out") {
        None => Ok(()),
        Some(_) => Err(EvalError::not_supported(
            a.span(),
            "out= (kupfer eval computes new arrays; it never writes into one)",
        )),
    }
}

/// Two array operands `names` (Python values uploaded as NumPy's asarray does).
fn pair(a: &mut Args, x: &str, y: &str) -> Result<(Array, Array)> {
    Ok((a.array(x)?, a.array(y)?))
}

/// `a @ b` (NumPy's `matmul`).
pub(crate) fn matmul(a: &Value, b: &Value, span: Span) -> Result<Value> {
    let (x, y) = (to_array(a, None, span)?, to_array(b, None, span)?);
    Ok(Value::Array(kupfer::matmul(&x, &y).map_err(kerr(span))?))
}

/// `np.matmul(x1, x2, out=None, *, dtype=None, casting='same_kind')`: `dtype=` picks the
/// loop as for any ufunc (operands cast to it first, under `casting`).
fn matmul_fn(call: Call) -> Result<Value> {
    let (name, span) = (call.display_name(), call.span);
    let mut a = call.bind(&["x1/", "x2/", "out=", "*dtype=", "*casting="])?;
    let target = super::elementwise::UfuncOut::take(&mut a)?;
    let dtype = a.dtype("dtype")?;
    let casting = loops::casting(&mut a, Casting::SameKind)?;
    let (x, y) = pair(&mut a, "x1", "x2")?;
    let ops = [Operand::Array(x), Operand::Array(y)];
    let shapes = super::elementwise::operand_shapes(&ops);
    let r = loops::run(&name, ops, dtype, casting, span, |[x, y]| {
        kupfer::matmul(&operand_array(x)?, &operand_array(y)?)
    })?;
    target.write("matmul", &shapes, r, casting)
}

/// The array of an operand that `loops::run` was given as an array (a weak scalar, which it
/// never makes, becomes a 0-d array).
fn operand_array(op: Operand) -> kupfer::Result<Array> {
    match op {
        Operand::Array(a) => Ok(a),
        Operand::Scalar(s) => kupfer::full(&[], s, None),
    }
}

type Binary = fn(&Array, &Array) -> kupfer::Result<Array>;

/// `f(a, b)` with NumPy parameter names `x`, `y` and an optional `out=`.
fn binary(call: Call, names: &[&'static str], f: Binary) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(names)?;
    let (x, y) = pair(&mut a, names[0], names[1])?;
    Ok(Value::Array(f(&x, &y).map_err(kerr(span))?))
}

/// `np.dot(a, b, out=None)`: `out` must be exactly the result's dtype and shape, C-contiguous.
fn dot_fn(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "b", "out="])?;
    let out = super::outputs::take_out(&mut a, "'out' must be an array")?;
    let (x, y) = pair(&mut a, "a", "b")?;
    let r = kupfer::dot(&x, &y).map_err(kerr(span))?;
    match out {
        None => Ok(Value::Array(r)),
        Some(out) => super::outputs::write(out, r, super::outputs::Check::Exact, span),
    }
}

fn vdot_fn(call: Call) -> Result<Value> {
    binary(call, &["a", "b"], kupfer::vdot)
}

fn inner_fn(call: Call) -> Result<Value> {
    binary(call, &["a", "b"], kupfer::inner)
}

/// `np.outer(a, b, out=None)`: `multiply(a.ravel()[:, None], b.ravel()[None, :], out)`.
fn outer_fn(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "b", "out="])?;
    let target = super::elementwise::UfuncOut::take(&mut a)?;
    let (x, y) = pair(&mut a, "a", "b")?;
    let shapes = vec![vec![x.size(), 1], vec![1, y.size()]];
    let r = kupfer::outer(&x, &y).map_err(kerr(span))?;
    target.write("multiply", &shapes, r, Casting::SameKind)
}

fn kron_fn(call: Call) -> Result<Value> {
    binary(call, &["a", "b"], kupfer::kron)
}

/// `np.linalg.outer(x1, x2)`: 1-D operands only (the array API).
fn linalg_outer(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["x1", "x2"])?;
    let (x, y) = pair(&mut a, "x1", "x2")?;
    if x.ndim() != 1 || y.ndim() != 1 {
        return Err(EvalError::value_error(
            span,
            format!(
                "np.linalg.outer: input arrays must be one-dimensional, got shapes {:?} and {:?}",
                x.shape(),
                y.shape()
            ),
        ));
    }
    Ok(Value::Array(kupfer::outer(&x, &y).map_err(kerr(span))?))
}

/// `axes=` of tensordot: an int, or a pair of ints / sequences of ints.
fn tensor_axes(v: Option<Value>, span: Span) -> Result<TensorAxes> {
    let ctx = "np.tensordot(): argument 'axes'";
    match v {
        None => Ok(TensorAxes::Last(2)),
        Some(Value::Tuple(p) | Value::List(p)) if p.len() == 2 => Ok(TensorAxes::Pairs(
            to_axes(&p[0], ctx, span)?,
            to_axes(&p[1], ctx, span)?,
        )),
        Some(v @ Value::Scalar(_)) => {
            let n = to_int(&v, ctx, span)?;
            // NumPy contracts no axes for a negative count (an outer product), as for 0.
            Ok(TensorAxes::Last(usize::try_from(n).unwrap_or(0)))
        }
        Some(v) => Err(EvalError::type_error(
            span,
            format!(
                "{ctx} must be an int or a pair of axis sequences, got '{}'",
                v.type_name()
            ),
        )),
    }
}

fn tensordot_fn(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "b", "axes="])?;
    let (x, y) = pair(&mut a, "a", "b")?;
    let axes = tensor_axes(a.get("axes"), span)?;
    Ok(Value::Array(
        kupfer::tensordot(&x, &y, axes).map_err(kerr(span))?,
    ))
}

/// `np.einsum(subscripts, *operands, out=None, dtype=None, order='K', casting='safe',
/// optimize=False)`.
fn einsum_fn(call: Call) -> Result<Value> {
    let span = call.span;
    let (args, mut k) =
        call.split_varargs(&["out=", "dtype=", "order=", "casting=", "optimize="])?;
    let out = super::outputs::take_out(&mut k, "out must be an array")?;
    let dtype = k.dtype("dtype")?;
    let order = k.order("order", kupfer::Order::K)?;
    let casting = loops::casting(&mut k, Casting::Safe)?;
    let _ = k.get("optimize");
    let (subscripts, operands) = match args.first() {
        Some(Value::Str(s)) => (s.clone(), args[1..].to_vec()),
        Some(_) => interleaved_subscripts(args, span)?,
        None => {
            return Err(EvalError::type_error(
                span,
                "np.einsum() missing required argument 'subscripts'",
            ))
        }
    };
    let mut ops: Vec<Array> = operands
        .iter()
        .map(|v| to_array(v, None, span))
        .collect::<Result<_>>()?;
    if let Some(d) = dtype {
        // dtype= is the dtype computed in: each operand casts to it under `casting`.
        for (i, op) in ops.iter_mut().enumerate() {
            if !kupfer::can_cast(op.dtype(), d, casting) {
                return Err(EvalError::type_error(
                    span,
                    format!(
                        "np.einsum(): cannot cast operand {i} from {} to {} with casting rule \
                         '{}'",
                        op.dtype().name(),
                        d.name(),
                        casting.name()
                    ),
                ));
            }
            *op = op.astype(d).map_err(kerr(span))?;
        }
    }
    let refs: Vec<&Array> = ops.iter().collect();
    // The result is C-ordered; order='F' asks for a Fortran-ordered one (K and A keep it).
    let r = kupfer::einsum(&subscripts, &refs)
        .and_then(|r| r.as_order(order))
        .map_err(kerr(span))?;
    match out {
        None => Ok(Value::Array(r)),
        Some(out) => super::outputs::write(out, r, super::outputs::Check::Iterator(casting), span),
    }
}

/// NumPy's interleaved einsum form, `einsum(op0, sublist0, op1, sublist1, ..., [sublistout])`,
/// as the subscripts string it stands for (label `s` is `A`-`Z` for 0-25 and `a`-`z` for
/// 26-51, as NumPy maps them, so an implicit output orders its labels as NumPy's does) and
/// the operands.
fn interleaved_subscripts(args: Vec<Value>, span: Span) -> Result<(String, Vec<Value>)> {
    let sublist = |v: &Value| -> Result<String> {
        let items = match v {
            Value::List(items) | Value::Tuple(items) => items,
            other => {
                return Err(EvalError::type_error(
                    span,
                    format!(
                        "the subscripts for each operand must be a list or a tuple, got '{}'",
                        other.type_name()
                    ),
                ))
            }
        };
        let mut labels = String::new();
        for item in items {
            if matches!(item, Value::Ellipsis) {
                labels.push_str("...");
                continue;
            }
            let s = match item {
                Value::Scalar(Scalar::Int(i)) => *i,
                other => {
                    return Err(EvalError::type_error(
                        span,
                        format!(
                            "each subscript must be either an integer or an ellipsis, got '{}'",
                            other.type_name()
                        ),
                    ))
                }
            };
            let label = match s {
                0..=25 => (b'A' + s as u8) as char,
                26..=51 => (b'a' + (s - 26) as u8) as char,
                _ => {
                    return Err(EvalError::value_error(
                        span,
                        format!("subscript {s} is not within the valid range [0, 52)"),
                    ))
                }
            };
            labels.push(label);
        }
        Ok(labels)
    };
    let mut inputs = Vec::new();
    let mut operands = Vec::new();
    let mut rest = args.into_iter();
    let mut output = None;
    while let Some(op) = rest.next() {
        match rest.next() {
            Some(sub) => {
                inputs.push(sublist(&sub)?);
                operands.push(op);
            }
            None => output = Some(sublist(&op)?),
        }
    }
    let mut subscripts = inputs.join(",");
    if let Some(out) = output {
        subscripts.push_str("->");
        subscripts.push_str(&out);
    }
    Ok((subscripts, operands))
}

fn int_or(a: &mut Args, p: &str, default: i64) -> Result<isize> {
    Ok(a.int(p)?.unwrap_or(default) as isize)
}

/// `np.trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None)`.
fn trace_fn(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "offset=", "axis1=", "axis2=", "dtype=", "out="])?;
    let out = super::outputs::take_out(&mut a, "output must be an array")?;
    let x = a.array("a")?;
    let (off, a1, a2) = (
        int_or(&mut a, "offset", 0)?,
        int_or(&mut a, "axis1", 0)?,
        int_or(&mut a, "axis2", 1)?,
    );
    let dtype = a.dtype("dtype")?;
    let r = kupfer::trace(&x, off, a1, a2, dtype).map_err(kerr(span))?;
    // NumPy sums the diagonal with add.reduce: a reduction's out (shape checked, unsafe cast).
    match out {
        None => Ok(Value::Array(r)),
        Some(out) => Ok(Value::Array(
            kupfer::reduce_into(&out, &r, "add").map_err(kerr(span))?,
        )),
    }
}

/// `np.linalg.trace(x, /, *, offset=0, dtype=None)`: over the last two axes.
fn linalg_trace(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["x", "*offset=", "*dtype="])?;
    let x = a.array("x")?;
    let off = int_or(&mut a, "offset", 0)?;
    let dtype = a.dtype("dtype")?;
    Ok(Value::Array(
        kupfer::trace(&x, off, -2, -1, dtype).map_err(kerr(span))?,
    ))
}

/// `np.diagonal(a, offset=0, axis1=0, axis2=1)`: a view.
fn diagonal_fn(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "offset=", "axis1=", "axis2="])?;
    let x = a.array("a")?;
    let (off, a1, a2) = (
        int_or(&mut a, "offset", 0)?,
        int_or(&mut a, "axis1", 0)?,
        int_or(&mut a, "axis2", 1)?,
    );
    Ok(Value::Array(
        kupfer::diagonal(&x, off, a1, a2).map_err(kerr(span))?,
    ))
}

/// `np.linalg.diagonal(x, /, *, offset=0)`: over the last two axes.
fn linalg_diagonal(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["x", "*offset="])?;
    let x = a.array("x")?;
    let off = int_or(&mut a, "offset", 0)?;
    Ok(Value::Array(
        kupfer::diagonal(&x, off, -2, -1).map_err(kerr(span))?,
    ))
}

/// `np.diag(v, k=0)`.
fn diag_fn(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["v", "k="])?;
    let x = a.array("v")?;
    let k = int_or(&mut a, "k", 0)?;
    Ok(Value::Array(kupfer::diag(&x, k).map_err(kerr(span))?))
}

/// `ord=`: a number (`np.inf` too) or `'fro'` / `'nuc'`.
pub(super) fn norm_ord(v: Option<Value>, span: Span) -> Result<Option<NormOrd>> {
    match v {
        None => Ok(None),
        Some(Value::Str(s)) => match s.as_str() {
            "fro" => Ok(Some(NormOrd::Fro)),
            "nuc" => Ok(Some(NormOrd::Nuc)),
            other => Err(EvalError::value_error(
                span,
                format!("Invalid norm order '{other}' for matrices"),
            )),
        },
        Some(Value::Scalar(s)) if !matches!(s, Scalar::Complex { .. }) => {
            Ok(Some(NormOrd::P(s.as_f64())))
        }
        Some(v) => Err(EvalError::type_error(
            span,
            format!(
                "np.linalg.norm(): 'ord' must be a number, 'fro' or 'nuc', got '{}'",
                v.type_name()
            ),
        )),
    }
}

/// `np.linalg.norm(x, ord=None, axis=None, keepdims=False)`.
fn norm_fn(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["x", "ord=", "axis=", "keepdims="])?;
    let x = a.array("x")?;
    let ord = norm_ord(a.get("ord"), span)?;
    let axis = a.axes("axis")?;
    let keepdims = a.bool_or("keepdims", false)?;
    Ok(Value::Array(
        norm(&x, ord, axis.as_deref(), keepdims).map_err(kerr(span))?,
    ))
}

/// `np.linalg.vector_norm(x, /, *, axis=None, keepdims=False, ord=2)`: any axes, the whole
/// array flattened when `axis=None`.
fn vector_norm(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["x", "*axis=", "*keepdims=", "*ord="])?;
    let x = a.array("x")?;
    let axis = a.axes("axis")?;
    let keepdims = a.bool_or("keepdims", false)?;
    let ord = norm_ord(a.get("ord"), span)?.unwrap_or(NormOrd::P(2.0));
    if !matches!(ord, NormOrd::P(_)) {
        return Err(EvalError::value_error(
            span,
            "np.linalg.vector_norm: 'ord' must be a number",
        ));
    }
    let p = match ord {
        NormOrd::P(p) => p,
        _ => unreachable!("checked above"),
    };
    Ok(Value::Array(
        kupfer::linalg::vector_norm(&x, p, axis.as_deref(), keepdims).map_err(kerr(span))?,
    ))
}

/// `np.linalg.matrix_norm(x, /, *, keepdims=False, ord='fro')`: over the last two axes.
fn matrix_norm(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["x", "*keepdims=", "*ord="])?;
    let x = a.array("x")?;
    let keepdims = a.bool_or("keepdims", false)?;
    let ord = norm_ord(a.get("ord"), span)?.unwrap_or(NormOrd::Fro);
    Ok(Value::Array(
        kupfer::linalg::matrix_norm(&x, ord, keepdims).map_err(kerr(span))?,
    ))
}

/// `np.vecdot(x1, x2, axis=-1)`: `sum(conj(x1) * x2, axis)` with broadcasting.
fn vecdot_fn(call: Call) -> Result<Value> {
    let (name, span) = (call.display_name(), call.span);
    let mut a = call.bind(&["x1", "x2", "*axis=", "*out=", "*dtype=", "*casting="])?;
    no_out(&mut a)?;
    let (x, y) = pair(&mut a, "x1", "x2")?;
    let axis = int_or(&mut a, "axis", -1)?;
    let dtype = a.dtype("dtype")?;
    let casting = loops::casting(&mut a, Casting::SameKind)?;
    let ops = [Operand::Array(x), Operand::Array(y)];
    let r = loops::run(&name, ops, dtype, casting, span, |[x, y]| {
        kupfer::linalg::vecdot(&operand_array(x)?, &operand_array(y)?, axis)
    })?;
    Ok(Value::Array(r))
}

type Gufunc = fn(&Array, &Array) -> kupfer::Result<Array>;

/// `matvec`/`vecmat(x1, x2, /, out=None, *, dtype=None, casting='same_kind')`.
fn gufunc(call: Call, f: Gufunc) -> Result<Value> {
    let (name, span) = (call.display_name(), call.span);
    let mut a = call.bind(&[
        "x1",
        "x2",
        "out=",
        "*dtype=",
        "*casting=",
        "*axes=",
        "*axis=",
    ])?;
    no_out(&mut a)?;
    if a.get("axes").is_some() || a.get("axis").is_some() {
        return Err(EvalError::not_supported(
            span,
            format!("{name}() with axes= or axis= (it uses the last axes)"),
        ));
    }
    let dtype = a.dtype("dtype")?;
    let casting = loops::casting(&mut a, Casting::SameKind)?;
    let (x, y) = pair(&mut a, "x1", "x2")?;
    let ops = [Operand::Array(x), Operand::Array(y)];
    let r = loops::run(&name, ops, dtype, casting, span, |[x, y]| {
        f(&operand_array(x)?, &operand_array(y)?)
    })?;
    Ok(Value::Array(r))
}

fn matvec_fn(call: Call) -> Result<Value> {
    gufunc(call, kupfer::linalg::matvec)
}

fn vecmat_fn(call: Call) -> Result<Value> {
    gufunc(call, kupfer::linalg::vecmat)
}

/// `np.linalg.multi_dot(arrays, *, out=None)`.
fn multi_dot_fn(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["arrays", "*out="])?;
    no_out(&mut a)?;
    let arrays = match a.req("arrays")? {
        Value::List(v) | Value::Tuple(v) => v
            .iter()
            .map(|x| to_array(x, None, span))
            .collect::<Result<Vec<_>>>()?,
        v => {
            return Err(EvalError::type_error(
                span,
                format!(
                    "np.linalg.multi_dot(): 'arrays' must be a list of arrays, got '{}'",
                    v.type_name()
                ),
            ))
        }
    };
    let refs: Vec<&Array> = arrays.iter().collect();
    Ok(Value::Array(
        kupfer::linalg::multi_dot(&refs).map_err(kerr(span))?,
    ))
}

/// `np.linalg.matrix_power(a, n)`.
fn matrix_power_fn(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "n"])?;
    let x = a.array("a")?;
    let n = match a.req("n")? {
        Value::Scalar(Scalar::Int(n)) => n,
        Value::Scalar(Scalar::Bool(b)) => i64::from(b),
        v => {
            return Err(EvalError::type_error(
                span,
                format!(
                    "np.linalg.matrix_power(): exponent must be an integer, got '{}'",
                    v.type_name()
                ),
            ))
        }
    };
    Ok(Value::Array(
        kupfer::linalg::matrix_power(&x, n).map_err(kerr(span))?,
    ))
}

/// `np.cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None)`: `axis` sets all three.
fn cross_fn(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "b", "axisa=", "axisb=", "axisc=", "axis="])?;
    let (x, y) = pair(&mut a, "a", "b")?;
    let (mut axa, mut axb, mut axc) = (
        int_or(&mut a, "axisa", -1)?,
        int_or(&mut a, "axisb", -1)?,
        int_or(&mut a, "axisc", -1)?,
    );
    if let Some(axis) = a.int("axis")? {
        let axis = axis as isize;
        (axa, axb, axc) = (axis, axis, axis);
    }
    Ok(Value::Array(
        kupfer::linalg::cross(&x, &y, axa, axb, axc).map_err(kerr(span))?,
    ))
}

/// `np.linalg.cross(x1, x2, /, *, axis=-1)`: 3-element vectors only.
fn linalg_cross(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["x1", "x2", "*axis="])?;
    let (x, y) = pair(&mut a, "x1", "x2")?;
    let axis = int_or(&mut a, "axis", -1)?;
    let (nx, ny) = (axis_len(&x, axis, span)?, axis_len(&y, axis, span)?);
    if nx != 3 || ny != 3 {
        return Err(EvalError::value_error(
            span,
            format!(
                "np.linalg.cross(): both input arrays must be (arrays of) 3-dimensional \
                 vectors, but they are {nx} and {ny} dimensional instead"
            ),
        ));
    }
    Ok(Value::Array(
        kupfer::linalg::cross(&x, &y, axis, axis, axis).map_err(kerr(span))?,
    ))
}

/// The length of `axis` of `arr` (an error for an axis it does not have).
fn axis_len(arr: &Array, axis: isize, span: Span) -> Result<usize> {
    let n = arr.ndim() as isize;
    let i = if axis < 0 { axis + n } else { axis };
    if !(0..n).contains(&i) {
        return Err(EvalError::value_error(
            span,
            format!("axis {axis} is out of bounds for array of dimension {n}"),
        ));
    }
    Ok(arr.shape()[i as usize])
}
