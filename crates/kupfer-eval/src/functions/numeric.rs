//! NumPy's everyday helpers beside the ufuncs: closeness tests, classification,
//! `nan_to_num`, `heaviside`, `logaddexp`, `sinc`, `frexp`/`modf`, `i0`, window functions,
//! `logspace`/`geomspace`, `trapezoid`/`ediff1d`/`gradient`/`unwrap`, the `poly*` helpers and
//! `finfo`/`iinfo`.

use super::{to_array, Args, Call, Registry};
use crate::ast::Span;
use crate::error::{EvalError, Result};
use crate::value::Value;
use kupfer::{Array, DType, Scalar};

pub(super) fn register(r: &mut Registry) {
    r.native(&["isclose"], isclose);
    r.native(&["allclose"], allclose);
    r.native(&["array_equal"], array_equal);
    r.native(&["array_equiv"], array_equiv);
    r.native(&["shares_memory"], |c| memory_overlap(c, true));
    r.native(&["may_share_memory"], |c| memory_overlap(c, false));
    r.native(&["isposinf"], |c| unary_out(c, kupfer::isposinf));
    r.native(&["isneginf"], |c| unary_out(c, kupfer::isneginf));
    r.native(&["iscomplex"], |c| unary(c, kupfer::iscomplex));
    r.native(&["isreal"], |c| unary(c, kupfer::isreal));
    r.native(&["sinc"], |c| unary(c, kupfer::sinc));
    r.native(&["i0"], |c| unary(c, kupfer::i0));
    r.native(&["iscomplexobj"], |c| dtype_test(c, |d| d.is_complex()));
    r.native(&["isrealobj"], |c| dtype_test(c, |d| !d.is_complex()));
    r.native(&["isscalar"], isscalar);
    r.native(&["real_if_close"], real_if_close);
    r.native(&["nan_to_num"], nan_to_num);
    r.native(&["frexp"], frexp);
    r.native(&["modf"], modf);
    r.native(&["hanning"], |c| window(c, kupfer::hanning));
    r.native(&["hamming"], |c| window(c, kupfer::hamming));
    r.native(&["blackman"], |c| window(c, kupfer::blackman));
    r.native(&["bartlett"], |c| window(c, kupfer::bartlett));
    r.native(&["kaiser"], kaiser);
    r.native(&["logspace"], logspace);
    r.native(&["geomspace"], geomspace);
    r.native(&["trapezoid"], trapezoid);
    r.native(&["ediff1d"], ediff1d);
    r.native(&["gradient"], gradient);
    r.native(&["gcd.reduce"], |c| fold_reduce(c, kupfer::gcd));
    r.native(&["lcm.reduce"], |c| fold_reduce(c, kupfer::lcm));
    r.native(&["unwrap"], unwrap);
    #[cfg(not(target_arch = "wasm32"))]
    r.native(&["interp"], interp);
    r.native(&["polyval"], polyval);
    r.native(&["vander"], vander);
    r.native(&["polyadd"], |c| poly_pair(c, kupfer::polyadd));
    r.native(&["polysub"], |c| poly_pair(c, kupfer::polysub));
    r.native(&["polymul"], |c| poly_pair(c, kupfer::polymul));
    r.native(&["polyder"], polyder);
    r.native(&["polyint"], polyint);
    r.native(&["isdtype"], isdtype);
    r.native(&["issubdtype"], issubdtype);
    r.native(ABSTRACT_TYPES, abstract_type);
    r.native(TEXT_TYPES, text_type);
    r.native(&["finfo"], finfo);
    r.native(&["iinfo"], iinfo);
}

/// `np.isdtype(dtype, kind)`: `kind` is a dtype, one of the array API's kind names ('bool',
/// 'signed integer', 'unsigned integer', 'integral', 'real floating', 'complex floating',
/// 'numeric') or a tuple of them.
fn isdtype(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["dtype", "kind"])?;
    let d = match a.req("dtype")? {
        Value::DType(d) => d,
        v => {
            return Err(EvalError::type_error(
                span,
                format!(
                    "dtype argument must be a NumPy dtype, but it is a {}.",
                    v.type_name()
                ),
            ))
        }
    };
    let kinds = match a.req("kind")? {
        Value::Tuple(v) => v,
        v => vec![v],
    };
    let mut answer = false;
    for k in kinds {
        answer |= match k {
            Value::DType(k) => k == d,
            Value::Str(name) => match name.as_str() {
                "bool" => d == DType::Bool,
                "signed integer" => d.is_signed_int(),
                "unsigned integer" => d.is_int() && !d.is_signed_int(),
                "integral" => d.is_int(),
                "real floating" => d.is_float(),
                "complex floating" => d.is_complex(),
                "numeric" => d != DType::Bool,
                other => {
                    return Err(EvalError::value_error(
                        span,
                        format!(
                            "kind argument is a string, but '{other}' is not a known kind name."
                        ),
                    ))
                }
            },
            v => {
                return Err(EvalError::type_error(
                    span,
                    format!(
                        "kind argument must be comprised of NumPy dtypes or strings only, but \
                         is a {}.",
                        v.type_name()
                    ),
                ))
            }
        };
    }
    Ok(Value::Scalar(Scalar::Bool(answer)))
}

/// NumPy's abstract scalar types, names for [`issubdtype`]'s second argument.
const ABSTRACT_TYPES: &[&str] = &[
    "generic",
    "number",
    "integer",
    "signedinteger",
    "unsignedinteger",
    "inexact",
    "floating",
    "complexfloating",
];

/// NumPy's scalar types of text (`np.bytes_`, `np.str_`): kupfer stores no text arrays, but
/// `np.issubdtype` answers about them and the `'S'`/`'U'` codes.
const TEXT_TYPES: &[&str] = &["bytes_", "str_"];

/// Calling a text type (`np.bytes_(b"a")`): kupfer has no text arrays.
fn text_type(call: Call) -> Result<Value> {
    Err(EvalError::not_supported(
        call.span,
        format!("np.{} (kupfer has no text arrays)", call.name),
    ))
}

/// The text type a value names: `np.bytes_`/`'S'`/`'S5'`/`'a'` are `bytes_`, `np.str_`/`'U'`/
/// `'U5'`/`'str'` are `str_`; `None` for everything else.
fn text_kind(v: &Value) -> Option<&'static str> {
    let code = |s: &str, letters: &[char]| {
        let s = s.trim_start_matches(['<', '>', '|', '=']);
        s.starts_with(letters) && s[1..].chars().all(|c| c.is_ascii_digit())
    };
    match v {
        Value::Function("bytes_") => Some("bytes_"),
        Value::Function("str_") => Some("str_"),
        Value::Str(s) if s == "bytes" || code(s, &['S', 'a']) => Some("bytes_"),
        Value::Str(s) if s == "str" || code(s, &['U']) => Some("str_"),
        _ => None,
    }
}

/// Calling an abstract type (`np.floating(1)`) is an error, as in NumPy.
fn abstract_type(call: Call) -> Result<Value> {
    Err(EvalError::type_error(
        call.span,
        format!("cannot create '{}' instances", call.display_name()),
    ))
}

/// True when `d` belongs to NumPy's abstract type `name`.
fn in_abstract(d: DType, name: &str) -> bool {
    match name {
        "generic" => true,
        "number" => d != DType::Bool,
        "integer" => d.is_int(),
        "signedinteger" => d.is_signed_int(),
        "unsignedinteger" => d.is_int() && !d.is_signed_int(),
        "inexact" => d.is_float() || d.is_complex(),
        "floating" => d.is_float(),
        "complexfloating" => d.is_complex(),
        _ => false,
    }
}

/// `np.issubdtype(arg1, arg2)`: `arg2` a dtype (equality) or an abstract type (`np.floating`).
fn issubdtype(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["arg1", "arg2"])?;
    let one = a.req("arg1")?;
    if let Some(t) = text_kind(&one) {
        let answer = match a.req("arg2")? {
            Value::Function("generic") => true,
            two => text_kind(&two) == Some(t),
        };
        return Ok(Value::Scalar(Scalar::Bool(answer)));
    }
    let d = match &one {
        Value::Function(f) if ABSTRACT_TYPES.contains(f) => {
            let two = a.req("arg2")?;
            let answer = match two {
                Value::Function(g) if ABSTRACT_TYPES.contains(&g) => {
                    g == "generic"
                        || *f == g
                        || (g == "number" && *f != "generic")
                        || (g == "integer" && f.ends_with("integer"))
                        || (g == "inexact" && matches!(*f, "floating" | "complexfloating"))
                }
                _ => false,
            };
            return Ok(Value::Scalar(Scalar::Bool(answer)));
        }
        v => super::to_dtype(v, "np.issubdtype(): argument 'arg1'", span)?,
    };
    let answer = match a.req("arg2")? {
        v if text_kind(&v).is_some() => false,
        Value::Function(g) if ABSTRACT_TYPES.contains(&g) => in_abstract(d, g),
        v => super::to_dtype(&v, "np.issubdtype(): argument 'arg2'", span)? == d,
    };
    Ok(Value::Scalar(Scalar::Bool(answer)))
}

/// `np.finfo(dtype)`: a namespace value (`finfo.float32`) whose attributes
/// [`info_attribute`] answers.
fn finfo(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["dtype"])?;
    let d = info_dtype(&mut a, "dtype")?;
    let info = kupfer::finfo(d).map_err(kerr(span))?;
    Ok(Value::Module(match info.dtype {
        DType::F16 => "finfo.float16",
        DType::F32 => "finfo.float32",
        _ => "finfo.float64",
    }))
}

/// `np.iinfo(dtype)`, as [`finfo`].
fn iinfo(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["int_type"])?;
    let d = info_dtype(&mut a, "int_type")?;
    let info = kupfer::iinfo(d).map_err(kerr(span))?;
    Ok(Value::Module(match info.dtype {
        DType::I8 => "iinfo.int8",
        DType::U8 => "iinfo.uint8",
        DType::I16 => "iinfo.int16",
        DType::U16 => "iinfo.uint16",
        DType::I32 => "iinfo.int32",
        DType::U32 => "iinfo.uint32",
        DType::U64 => "iinfo.uint64",
        _ => "iinfo.int64",
    }))
}

/// The dtype argument of finfo/iinfo: a dtype, or an array or number's dtype.
fn info_dtype(a: &mut Args, param: &str) -> Result<DType> {
    let span = a.span();
    let v = a.req(param)?;
    match &v {
        Value::Array(x) => Ok(x.dtype()),
        Value::Scalar(Scalar::Complex { .. }) => Ok(DType::Complex128),
        Value::Scalar(Scalar::Float(_)) => Ok(DType::F64),
        Value::Scalar(_) => Ok(DType::I64),
        v => super::to_dtype(v, "argument 'dtype'", span),
    }
}

/// An attribute of a `finfo.<dtype>` or `iinfo.<dtype>` namespace value, `None` for other
/// namespaces.
pub(super) fn info_attribute(module: &str, name: &str) -> Option<super::Resolved> {
    use super::Resolved;
    let dtype = |n: &str| DType::from_name(n).ok();
    if let Some(d) = module.strip_prefix("finfo.").and_then(dtype) {
        let f = kupfer::finfo(d).ok()?;
        let float = |x: f64| {
            kupfer::full(&[], x, Some(d))
                .map(Value::Array)
                .map_or(Resolved::Unknown, Resolved::Value)
        };
        let int = |x: u32| Resolved::Value(Value::Scalar(Scalar::Int(i64::from(x))));
        return Some(match name {
            "eps" => float(f.eps),
            "epsneg" => float(f.epsneg),
            "max" => float(f.max),
            "min" => float(f.min),
            "tiny" | "smallest_normal" => float(f.smallest_normal),
            "smallest_subnormal" => float(f.smallest_subnormal),
            "resolution" => float(f.resolution),
            "precision" => int(f.precision),
            "bits" => int(f.bits),
            "nmant" => int(f.nmant),
            "dtype" => Resolved::Value(Value::DType(d)),
            _ => Resolved::Unknown,
        });
    }
    if let Some(d) = module.strip_prefix("iinfo.").and_then(dtype) {
        let i = kupfer::iinfo(d).ok()?;
        let int = |x: i128| Resolved::Value(Value::Scalar(Scalar::int(x)));
        return Some(match name {
            "min" => int(i.min),
            "max" => int(i.max),
            "bits" => int(i128::from(i.bits)),
            "dtype" => Resolved::Value(Value::DType(d)),
            _ => Resolved::Unknown,
        });
    }
    None
}

fn kerr(span: Span) -> impl FnOnce(kupfer::Error) -> EvalError {
    EvalError::kupfer(span)
}

/// A 0-d bool array as the Python bool NumPy returns (a blocking read-back natively; in the
/// browser the 0-d array itself, which prints the same).
fn python_bool(a: Array, span: Span) -> Result<Value> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        Ok(Value::Scalar(a.item().map_err(kerr(span))?))
    }
    #[cfg(target_arch = "wasm32")]
    {
        let _ = span;
        Ok(Value::Array(a))
    }
}

fn unary(call: Call, f: fn(kupfer::Operand) -> kupfer::Result<Array>) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["x"])?;
    let x = a.operand("x")?;
    Ok(Value::Array(f(x).map_err(kerr(span))?))
}

/// `f(x, out=None)` (`isposinf`, `isneginf`): the result written into `out` when given.
fn unary_out(call: Call, f: fn(kupfer::Operand) -> kupfer::Result<Array>) -> Result<Value> {
    let (name, span) = (call.display_name(), call.span);
    let mut a = call.bind(&["x", "out="])?;
    let target = super::elementwise::UfuncOut::take(&mut a)?;
    let x = a.operand("x")?;
    let shapes = super::elementwise::operand_shapes(std::slice::from_ref(&x));
    let r = f(x).map_err(kerr(span))?;
    target.write(&name, &shapes, r, kupfer::Casting::SameKind)
}

fn dtype_test(call: Call, test: fn(DType) -> bool) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["x"])?;
    // Anything that is no array or number (a string, None) is not complex, as in NumPy.
    let d = match a.get("x") {
        Some(Value::Scalar(Scalar::Complex { .. })) => DType::Complex128,
        Some(v @ (Value::Array(_) | Value::List(_) | Value::Tuple(_))) => {
            to_array(&v, None, span)?.dtype()
        }
        _ => DType::F64,
    };
    Ok(Value::Scalar(Scalar::Bool(test(d))))
}

fn isscalar(call: Call) -> Result<Value> {
    let mut a = call.bind(&["element"])?;
    let scalar = matches!(a.get("element"), Some(Value::Scalar(_) | Value::Str(_)));
    Ok(Value::Scalar(Scalar::Bool(scalar)))
}

fn closeness(a: &mut Args) -> Result<(kupfer::Operand, kupfer::Operand, f64, f64, bool)> {
    let x = a.operand("a")?;
    let y = a.operand("b")?;
    let rtol = a.float("rtol")?.unwrap_or(1e-5);
    let atol = a.float("atol")?.unwrap_or(1e-8);
    let equal_nan = a.bool_or("equal_nan", false)?;
    Ok((x, y, rtol, atol, equal_nan))
}

fn isclose(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "b", "rtol=", "atol=", "equal_nan="])?;
    let (x, y, rtol, atol, nan) = closeness(&mut a)?;
    Ok(Value::Array(
        kupfer::isclose(x, y, rtol, atol, nan).map_err(kerr(span))?,
    ))
}

fn allclose(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "b", "rtol=", "atol=", "equal_nan="])?;
    let (x, y, rtol, atol, nan) = closeness(&mut a)?;
    python_bool(
        kupfer::allclose(x, y, rtol, atol, nan).map_err(kerr(span))?,
        span,
    )
}

fn array_equal(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a1", "a2", "equal_nan="])?;
    let (x, y) = (a.array("a1")?, a.array("a2")?);
    let nan = a.bool_or("equal_nan", false)?;
    python_bool(kupfer::array_equal(&x, &y, nan).map_err(kerr(span))?, span)
}

/// `np.shares_memory(a, b, max_work=None)` (exact) and `np.may_share_memory(a, b,
/// max_work=None)` (extents; exact with `max_work=-1`, NumPy's MAY_SHARE_EXACT).
fn memory_overlap(call: Call, exact: bool) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "b", "max_work="])?;
    let (x, y) = (a.array("a")?, a.array("b")?);
    let exact = exact || a.int("max_work")? == Some(-1);
    let f = if exact {
        kupfer::shares_memory
    } else {
        kupfer::may_share_memory
    };
    Ok(Value::Scalar(Scalar::Bool(f(&x, &y).map_err(kerr(span))?)))
}

fn array_equiv(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a1", "a2"])?;
    let (x, y) = (a.array("a1")?, a.array("a2")?);
    python_bool(kupfer::array_equiv(&x, &y).map_err(kerr(span))?, span)
}

fn real_if_close(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "tol="])?;
    let x = a.array("a")?;
    let tol = a.float("tol")?.unwrap_or(100.0);
    #[cfg(not(target_arch = "wasm32"))]
    {
        Ok(Value::Array(
            kupfer::real_if_close(&x, tol).map_err(kerr(span))?,
        ))
    }
    #[cfg(target_arch = "wasm32")]
    {
        let _ = (x, tol);
        Err(EvalError::not_supported(
            span,
            "np.real_if_close in the browser (its dtype depends on the values)",
        ))
    }
}

/// `np.nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None)`: each replacement a
/// number or an array broadcasting to `x`; `copy=False` writes into an array `x`.
fn nan_to_num(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["x", "copy=", "nan=", "posinf=", "neginf="])?;
    // copy=False replaces in place when `x` is an array (NumPy returns `x` itself).
    let in_place = !a.bool_or("copy", true)?;
    let given = a.req("x")?;
    let x = to_array(&given, None, span)?;
    let replacement = |v: Option<Value>| -> Result<Option<kupfer::Operand>> {
        v.map(|v| match v {
            Value::Scalar(s) => Ok(kupfer::Operand::Scalar(s)),
            other => Ok(kupfer::Operand::Array(to_array(&other, None, span)?)),
        })
        .transpose()
    };
    let nan = replacement(a.get("nan"))?.unwrap_or(kupfer::Operand::Scalar(Scalar::Float(0.0)));
    let (posinf, neginf) = (replacement(a.get("posinf"))?, replacement(a.get("neginf"))?);
    let r = kupfer::nan_to_num(&x, nan, posinf, neginf).map_err(kerr(span))?;
    if in_place && matches!(given, Value::Array(_)) {
        kupfer::copyto(&x, &r, kupfer::Casting::Unsafe, None).map_err(kerr(span))?;
        return Ok(Value::Array(x));
    }
    Ok(Value::Array(r))
}

/// `f(x[, out1, out2], /, out=(None, None), *, where=True, casting='same_kind')` of the
/// two-output ufuncs `frexp` and `modf`.
fn two_outputs(
    call: Call,
    name: &str,
    f: fn(kupfer::Operand) -> kupfer::Result<(Array, Array)>,
) -> Result<Value> {
    let span = call.span;
    super::elementwise::take_out_pair(&call)?;
    let mut a = call.bind(&["x/", "out1=", "out2=", "*out=", "*where=", "*casting="])?;
    let targets = super::elementwise::UfuncOut::take_pair(&mut a)?;
    let casting = super::loops::casting(&mut a, kupfer::Casting::SameKind)?;
    let x = a.operand("x")?;
    let shapes = super::elementwise::operand_shapes(std::slice::from_ref(&x));
    let r = f(x).map_err(kerr(span))?;
    super::elementwise::write_pair(name, targets, &shapes, r, casting)
}

fn frexp(call: Call) -> Result<Value> {
    two_outputs(call, "frexp", kupfer::frexp)
}

fn modf(call: Call) -> Result<Value> {
    two_outputs(call, "modf", kupfer::modf)
}

fn window(call: Call, f: fn(i64) -> kupfer::Result<Array>) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["M"])?;
    let m = a.req_int("M")?;
    Ok(Value::Array(f(m).map_err(kerr(span))?))
}

fn kaiser(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["M", "beta"])?;
    let m = a.req_int("M")?;
    let beta = a.float("beta")?.unwrap_or(0.0);
    Ok(Value::Array(kupfer::kaiser(m, beta).map_err(kerr(span))?))
}

fn count(a: &mut Args, p: &str, default: i64) -> Result<usize> {
    let span = a.span();
    let n = a.int(p)?.unwrap_or(default);
    usize::try_from(n).map_err(|_| {
        EvalError::value_error(
            span,
            format!("Number of samples, {n}, must be non-negative."),
        )
    })
}

fn logspace(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&[
        "start",
        "stop",
        "num=",
        "endpoint=",
        "base=",
        "dtype=",
        "axis=",
    ])?;
    let start = a.float("start")?.unwrap_or(0.0);
    let stop = a.float("stop")?.unwrap_or(0.0);
    let num = count(&mut a, "num", 50)?;
    let endpoint = a.bool_or("endpoint", true)?;
    let base = a.get("base");
    let dtype = a.dtype("dtype")?;
    let axis = a.int("axis")?.unwrap_or(0);
    match base {
        // An array of bases: NumPy's `base ** linspace(...)` with the samples along `axis`
        // (-1 or the last; 0 puts them first).
        Some(v @ (Value::List(_) | Value::Tuple(_) | Value::Array(_))) => {
            let base = to_array(&v, None, span)?;
            let y = kupfer::linspace(start, stop, num, endpoint, None).map_err(kerr(span))?;
            let nd = base.ndim() as i64 + 1;
            if axis < -nd || axis >= nd {
                return Err(EvalError::value_error(
                    span,
                    format!("axis {axis} is out of bounds for array of dimension {nd}"),
                ));
            }
            let axis = axis.rem_euclid(nd) as usize;
            let mut bshape: Vec<isize> = base.shape().iter().map(|&d| d as isize).collect();
            bshape.insert(axis, 1);
            let mut yshape = vec![1isize; nd as usize];
            yshape[axis] = num as isize;
            let r = kupfer::power(
                base.reshape(&bshape).map_err(kerr(span))?,
                y.reshape(&yshape).map_err(kerr(span))?,
            )
            .map_err(kerr(span))?;
            let r = match dtype {
                Some(d) => r.astype(d).map_err(kerr(span))?,
                None => r,
            };
            Ok(Value::Array(r))
        }
        other => {
            let base = match other {
                None => 10.0,
                Some(Value::Scalar(s)) if !matches!(s, Scalar::Complex { .. }) => s.as_f64(),
                Some(v) => {
                    return Err(EvalError::type_error(
                        span,
                        format!(
                            "np.logspace(): argument 'base' must be a real number, got '{}'",
                            v.type_name()
                        ),
                    ))
                }
            };
            let r =
                kupfer::logspace(start, stop, num, endpoint, base, dtype).map_err(kerr(span))?;
            Ok(Value::Array(r))
        }
    }
}

fn geomspace(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["start", "stop", "num=", "endpoint=", "dtype=", "axis="])?;
    let start = a.scalar("start")?.unwrap_or(Scalar::Float(0.0));
    let stop = a.scalar("stop")?.unwrap_or(Scalar::Float(0.0));
    let num = count(&mut a, "num", 50)?;
    let endpoint = a.bool_or("endpoint", true)?;
    let dtype = a.dtype("dtype")?;
    let complex = |s: Scalar| match s {
        Scalar::Complex { re, im } => kupfer::Complex64::new(re, im),
        s => kupfer::Complex64::new(s.as_f64(), 0.0),
    };
    let r = if matches!(start, Scalar::Complex { .. }) || matches!(stop, Scalar::Complex { .. }) {
        kupfer::geomspace_complex(complex(start), complex(stop), num, endpoint, dtype)
    } else {
        kupfer::geomspace(start.as_f64(), stop.as_f64(), num, endpoint, dtype)
    };
    Ok(Value::Array(r.map_err(kerr(span))?))
}

fn trapezoid(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["y", "x=", "dx=", "axis="])?;
    let y = a.array("y")?;
    let x = match a.get("x") {
        Some(v) => Some(to_array(&v, None, span)?),
        None => None,
    };
    let dx = a.float("dx")?.unwrap_or(1.0);
    let axis = a.int("axis")?.unwrap_or(-1) as isize;
    let r = kupfer::trapezoid(&y, x.as_ref(), dx, axis).map_err(kerr(span))?;
    Ok(Value::Array(r))
}

fn ediff1d(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["ary", "to_end=", "to_begin="])?;
    let x = a.array("ary")?;
    let edge = |v: Option<Value>| -> Result<Option<Array>> {
        v.map(|v| to_array(&v, None, span)).transpose()
    };
    let to_end = edge(a.get("to_end"))?;
    let to_begin = edge(a.get("to_begin"))?;
    Ok(Value::Array(
        kupfer::ediff1d(&x, to_end.as_ref(), to_begin.as_ref()).map_err(kerr(span))?,
    ))
}

/// `np.gradient(f, *varargs, axis=None, edge_order=1)`: each spacing a scalar step or an
/// array of sample coordinates; one array for a single axis, else a tuple of arrays.
fn gradient(call: Call) -> Result<Value> {
    let span = call.span;
    let (mut varargs, mut a) = call.split_varargs(&["axis=", "edge_order="])?;
    if varargs.is_empty() {
        return Err(EvalError::type_error(
            span,
            "gradient() missing 1 required positional argument: 'f'",
        ));
    }
    let f = to_array(&varargs.remove(0), None, span)?;
    let axes = a.axis_tuple("axis")?;
    let single = axes.as_ref().is_some_and(|v| v.len() == 1) || (axes.is_none() && f.ndim() == 1);
    let edge_order = a.int("edge_order")?.unwrap_or(1);
    let mut spacing = Vec::new();
    for v in varargs {
        match v {
            Value::Scalar(s) if !matches!(s, Scalar::Complex { .. }) => {
                spacing.push(kupfer::Spacing::Uniform(s.as_f64()))
            }
            other => {
                let x = to_array(&other, None, span)?;
                if x.ndim() == 0 {
                    return Err(EvalError::not_supported(
                        span,
                        "np.gradient with a 0-d array as a spacing (give the step as a number)",
                    ));
                }
                spacing.push(kupfer::Spacing::Coordinates(x));
            }
        }
    }
    let edge_order = u32::try_from(edge_order)
        .map_err(|_| EvalError::value_error(span, "'edge_order' greater than 2 not supported"))?;
    let mut parts =
        kupfer::gradient(&f, &spacing, axes.as_deref(), edge_order).map_err(kerr(span))?;
    if single && parts.len() == 1 {
        return Ok(Value::Array(parts.remove(0)));
    }
    Ok(Value::Tuple(parts.into_iter().map(Value::Array).collect()))
}

/// `np.gcd.reduce(a, axis=0)` and `np.lcm.reduce`: the binary ufunc `op` folded along one
/// axis as a tree of halves (about log2(n) launches; both are associative and commutative).
fn fold_reduce(call: Call, op: fn(Array, Array) -> kupfer::Result<Array>) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["array", "axis=", "dtype=", "out=", "keepdims="])?;
    let x = a.array("array")?;
    if a.get("out").is_some() || a.dtype("dtype")?.is_some() {
        return Err(EvalError::not_supported(
            span,
            "out= and dtype= of a ufunc reduce",
        ));
    }
    let keepdims = a.bool_or("keepdims", false)?;
    let axis = a.int("axis")?.unwrap_or(0) as isize;
    let nd = x.ndim() as isize;
    if axis < -nd || axis >= nd {
        return Err(EvalError::value_error(
            span,
            format!("axis {axis} is out of bounds for array of dimension {nd}"),
        ));
    }
    let ax = axis.rem_euclid(nd) as usize;
    let along = |v: &Array, lo: usize, hi: usize| {
        let mut args = vec![kupfer::SliceArg::FULL; v.ndim()];
        args[ax] = kupfer::SliceArg::Slice {
            start: Some(lo as isize),
            stop: Some(hi as isize),
            step: None,
        };
        v.slice(&args)
    };
    let mut v = x;
    if v.shape()[ax] == 0 {
        return Err(EvalError::not_supported(
            span,
            "a ufunc reduce over an empty axis",
        ));
    }
    while v.shape()[ax] > 1 {
        let n = v.shape()[ax];
        let half = n / 2;
        let folded = op(
            along(&v, 0, half).map_err(kerr(span))?,
            along(&v, half, 2 * half).map_err(kerr(span))?,
        )
        .map_err(kerr(span))?;
        v = if n % 2 == 1 {
            let last = along(&v, n - 1, n).map_err(kerr(span))?;
            kupfer::concatenate(&[folded, last], Some(ax as isize), None).map_err(kerr(span))?
        } else {
            folded
        };
    }
    let out = if keepdims {
        v
    } else {
        v.squeeze(Some(&[ax as isize])).map_err(kerr(span))?
    };
    Ok(Value::Array(out))
}

/// `np.interp(x, xp, fp, left=None, right=None, period=None)`.
#[cfg(not(target_arch = "wasm32"))]
fn interp(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["x", "xp", "fp", "left=", "right=", "period="])?;
    let x = a.array("x")?;
    let xp = a.array("xp")?;
    let fp = a.array("fp")?;
    let left = a.float("left")?;
    let right = a.float("right")?;
    let period = a.float("period")?;
    Ok(Value::Array(
        kupfer::interp(&x, &xp, &fp, left, right, period).map_err(kerr(span))?,
    ))
}

/// `np.unwrap(p, discont=None, axis=-1, *, period=2*pi)`.
fn unwrap(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["p", "discont=", "axis=", "*period="])?;
    let p = a.array("p")?;
    let discont = a.float("discont")?;
    let axis = a.int("axis")?.unwrap_or(-1) as isize;
    let period = a.float("period")?.unwrap_or(std::f64::consts::TAU);
    Ok(Value::Array(
        kupfer::unwrap(&p, discont, axis, period).map_err(kerr(span))?,
    ))
}

fn polyval(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["p", "x"])?;
    let p = a.array("p")?;
    let x = a.req("x")?;
    super::poly1d::polyval(&p, &x, span)
}

/// A polynomial function's result: a poly1d where an input was one (NumPy's `truepoly`).
fn poly_result(r: Array, truepoly: bool, span: crate::ast::Span) -> Result<Value> {
    if truepoly {
        super::poly1d::new(r, span)
    } else {
        Ok(Value::Array(r))
    }
}

fn is_poly(v: Option<&Value>) -> bool {
    matches!(v, Some(Value::Poly1d(_)))
}

fn poly_pair(call: Call, f: fn(&Array, &Array) -> kupfer::Result<Array>) -> Result<Value> {
    let span = call.span;
    let truepoly = call.args.iter().any(|v| is_poly(Some(v)))
        || call.kwargs.iter().any(|(_, v)| is_poly(Some(v)));
    let mut a = call.bind(&["a1", "a2"])?;
    let (x, y) = (a.array("a1")?, a.array("a2")?);
    poly_result(f(&x, &y).map_err(kerr(span))?, truepoly, span)
}

fn polyder(call: Call) -> Result<Value> {
    let span = call.span;
    let truepoly = is_poly(call.args.first());
    let mut a = call.bind(&["p", "m="])?;
    let p = a.array("p")?;
    let m = count(&mut a, "m", 1)?;
    poly_result(kupfer::polyder(&p, m).map_err(kerr(span))?, truepoly, span)
}

fn polyint(call: Call) -> Result<Value> {
    let span = call.span;
    let truepoly = is_poly(call.args.first());
    let mut a = call.bind(&["p", "m=", "k="])?;
    let p = a.array("p")?;
    let m = count(&mut a, "m", 1)?;
    let k = match a.get("k") {
        None => vec![],
        Some(Value::Scalar(s)) => vec![s.as_f64(); m],
        Some(Value::List(v) | Value::Tuple(v)) => v
            .iter()
            .map(|x| super::to_f64(x, "np.polyint(): argument 'k'", span))
            .collect::<Result<_>>()?,
        Some(v) => {
            return Err(EvalError::type_error(
                span,
                format!(
                    "np.polyint(): k must be a number or a list, got '{}'",
                    v.type_name()
                ),
            ))
        }
    };
    poly_result(
        kupfer::polyint(&p, m, &k).map_err(kerr(span))?,
        truepoly,
        span,
    )
}

/// `np.vander(x, N=None, increasing=False)`.
fn vander(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["x", "N=", "increasing="])?;
    let x = a.array("x")?;
    let n = a
        .int("N")?
        .map(|n| {
            usize::try_from(n)
                .map_err(|_| EvalError::value_error(span, "negative dimensions are not allowed"))
        })
        .transpose()?;
    let increasing = a.bool_or("increasing", false)?;
    Ok(Value::Array(
        kupfer::vander(&x, n, increasing).map_err(kerr(span))?,
    ))
}
