//! Elementwise functions: kupfer's ufuncs with NumPy's names and aliases, plus `clip`,
//! `where`, `round`, `degrees`/`radians` and `divmod`.

use super::{loops, Args, Call, Func, Registry};
use crate::error::{EvalError, Result};
use crate::value::Value;
use kupfer::broadcast_shapes;
use kupfer::casting::Casting;
use kupfer::{Array, Operand};

type Unary = fn(Operand) -> kupfer::Result<Array>;
type Binary = fn(Operand, Operand) -> kupfer::Result<Array>;

/// Registers a table row's eval names for its first public function.
macro_rules! register_row {
    ($r:ident $func:ident [$($eval:literal),*]) => {};
    ($r:ident $func:ident [$($eval:literal),+] $first:ident $(, $alias:ident)*) => {
        $r.add(&[$($eval),+], Func::$func(kupfer::$first));
    };
    ($r:ident $func:ident [] $($fns:ident),*) => {};
}

/// Registers every row of kupfer-core's op table (`kupfer_core::ops`, expanded by `kupfer::unary_op_table!`) with eval names.
macro_rules! register_table {
    ($r:ident $func:ident;
     $($(#[doc = $doc:literal])* $variant:ident $name:literal fns [$($fns:ident),*]
        eval [$($eval:literal),*] kinds [$($kind:ident),*] rule $rule:ident
        body $body:ident $(($arg:literal))? complex $complex:literal goldens $goldens:literal;)*
    ) => {
        $(register_row!($r $func [$($eval),*] $($fns),*);)*
    };
}

pub(super) fn register(r: &mut Registry) {
    macro_rules! unary_rows {
        ($($rows:tt)*) => {
            register_table!(r Unary; $($rows)*);
        };
    }
    macro_rules! binary_rows {
        ($($rows:tt)*) => {
            register_table!(r Binary; $($rows)*);
        };
    }
    kupfer::unary_op_table!(unary_rows);
    kupfer::binary_op_table!(binary_rows);
    // Composites of the ufuncs, not rows of the table.
    let unary: &[(&[&'static str], Unary)] =
        &[(&["positive"], kupfer::positive), (&["fabs"], fabs)];
    for (names, f) in unary {
        r.add(names, Func::Unary(*f));
    }
    let binary: &[(&[&'static str], Binary)] = &[
        (&["heaviside"], kupfer::heaviside),
        (&["logaddexp"], kupfer::logaddexp),
        (&["logaddexp2"], kupfer::logaddexp2),
        (&["float_power"], kupfer::float_power),
    ];
    for (names, f) in binary {
        r.add(names, Func::Binary(*f));
    }
    r.native(&["clip"], clip);
    r.native(&["where"], where_);
    r.native(&["round", "around"], round);
    r.native(&["degrees", "rad2deg"], degrees);
    r.native(&["radians", "deg2rad"], radians);
    r.native(&["divmod"], divmod);
}

/// NumPy's `fabs`: the absolute value in a float loop (integers and bools in their float
/// dtype; complex refused).
fn fabs(x: Operand) -> kupfer::Result<Array> {
    let d = match &x {
        Operand::Array(a) => a.dtype(),
        Operand::Scalar(s) => s.default_dtype(&kupfer::Device::current()?),
    };
    if d.is_complex() {
        return Err(kupfer::Error::unsupported(format!(
            "ufunc 'fabs' not supported for the input type {d}"
        )));
    }
    let f = kupfer::promote::float_result(d);
    match x {
        Operand::Array(a) => kupfer::absolute(a.astype(f)?),
        Operand::Scalar(s) => kupfer::absolute(kupfer::full(&[], s, Some(f))?),
    }
}

/// A unary ufunc call: `f(x, out=None, *, where=True, dtype=None, casting='same_kind')`.
pub(super) fn call_unary(f: Unary, call: Call) -> Result<Value> {
    let (name, span) = (call.display_name(), call.span);
    let mut a = call.bind(&["x/", "out=", "*where=", "*dtype=", "*casting="])?;
    let target = UfuncOut::take(&mut a)?;
    let dtype = a.dtype("dtype")?;
    let casting = loops::casting(&mut a, Casting::SameKind)?;
    let x = a.operand("x")?;
    let shapes = operand_shapes(std::slice::from_ref(&x));
    let r = loops::run(&name, [x], dtype, casting, span, |[x]| f(x))?;
    target.write(&name, &shapes, r, casting)
}

/// A binary ufunc call: `f(x1, x2, out=None, *, where=True, dtype=None, casting='same_kind')`.
pub(super) fn call_binary(f: Binary, call: Call) -> Result<Value> {
    let (name, span) = (call.display_name(), call.span);
    let mut a = call.bind(&["x1/", "x2/", "out=", "*where=", "*dtype=", "*casting="])?;
    let target = UfuncOut::take(&mut a)?;
    let dtype = a.dtype("dtype")?;
    let casting = loops::casting(&mut a, Casting::SameKind)?;
    let ops = [a.operand("x1")?, a.operand("x2")?];
    let shapes = operand_shapes(&ops);
    let r = loops::run(&name, ops, dtype, casting, span, |[x1, x2]| f(x1, x2))?;
    target.write(&name, &shapes, r, casting)
}

/// The shapes of a ufunc's operands (a Python scalar is `()`), for NumPy's broadcast error.
pub(super) fn operand_shapes(ops: &[Operand]) -> Vec<Vec<usize>> {
    ops.iter()
        .map(|o| match o {
            Operand::Array(a) => a.shape().to_vec(),
            Operand::Scalar(_) => Vec::new(),
        })
        .collect()
}

/// NumPy's `out=` and `where=` of a ufunc call: the result is written into `out` in place
/// (a view writes into its base, and the name bound to `out` sees it), only where `where` is
/// true, and `out` is the call's value. `where=` without `out=` is refused: NumPy leaves the
/// unselected elements uninitialised.
pub(super) struct UfuncOut {
    out: Option<Array>,
    mask: Option<Array>,
    span: crate::ast::Span,
}

impl UfuncOut {
    pub(super) fn take(a: &mut Args) -> Result<UfuncOut> {
        let span = a.span();
        let out = match a.get("out") {
            None => None,
            Some(Value::Array(o)) => Some(o),
            Some(Value::Tuple(v)) if v.len() == 1 && matches!(v[0], Value::Array(_)) => {
                match v.into_iter().next() {
                    Some(Value::Array(o)) => Some(o),
                    _ => None,
                }
            }
            Some(Value::Tuple(v)) if v.len() != 1 => {
                return Err(EvalError::value_error(
                    span,
                    format!(
                        "The 'out' tuple must have exactly one entry per ufunc output (1), got \
                         {}",
                        v.len()
                    ),
                ))
            }
            Some(_) => {
                return Err(EvalError::type_error(
                    span,
                    "return arrays must be of ArrayType",
                ))
            }
        };
        let mask = match a.get("where") {
            None | Some(Value::Scalar(kupfer::Scalar::Bool(true))) => None,
            Some(v) => Some(super::to_array(&v, Some(kupfer::DType::Bool), span)?),
        };
        if mask.is_some() && out.is_none() {
            return Err(EvalError::not_supported(
                span,
                "where= of a ufunc without out= (NumPy leaves the unselected elements \
                 uninitialised)",
            ));
        }
        Ok(UfuncOut { out, mask, span })
    }

    /// `r` written into `out` (checked as NumPy checks: `out` takes the broadcast shape and
    /// the result casts to it under `casting`), or `r` itself without `out=`.
    pub(super) fn write(
        self,
        name: &str,
        inputs: &[Vec<usize>],
        r: Array,
        casting: Casting,
    ) -> Result<Value> {
        let Some(out) = self.out else {
            return Ok(Value::Array(r));
        };
        let span = self.span;
        let shape_of = shape_text;
        let mut shape = broadcast_shapes(r.shape(), out.shape()).ok();
        if let (Some(s), Some(m)) = (&shape, &self.mask) {
            shape = broadcast_shapes(s, m.shape()).ok();
        }
        match shape {
            Some(s) if s == out.shape() => {}
            Some(s) => {
                return Err(EvalError::value_error(
                    span,
                    format!(
                        "non-broadcastable output operand with shape {} doesn't match the \
                         broadcast shape {}",
                        shape_of(out.shape()),
                        shape_of(&s)
                    ),
                ))
            }
            None => {
                return Err(EvalError::value_error(
                    span,
                    format!(
                        "operands could not be broadcast together with shapes {} {}",
                        inputs
                            .iter()
                            .map(|s| shape_of(s))
                            .collect::<Vec<_>>()
                            .join(" "),
                        shape_of(out.shape())
                    ),
                ))
            }
        }
        if !kupfer::can_cast(r.dtype(), out.dtype(), casting) {
            return Err(EvalError::type_error(
                span,
                format!(
                    "Cannot cast ufunc '{}' output from dtype('{}') to dtype('{}') with \
                     casting rule '{}'",
                    name.trim_start_matches("np."),
                    r.dtype(),
                    out.dtype(),
                    casting.name()
                ),
            ));
        }
        kupfer::copyto(&out, &r, Casting::Unsafe, self.mask.as_ref())
            .map_err(EvalError::kupfer(span))?;
        Ok(Value::Array(out))
    }
}

/// The two outputs of a two-output ufunc (`divmod`, `modf`, `frexp`): positional `out1, out2`
/// (bound as `out1=`/`out2=` after the inputs) or `out=(o1, o2)`, with `where=`; `None`
/// entries are new arrays.
pub(super) fn take_out_pair(call: &Call) -> Result<()> {
    for (k, _) in &call.kwargs {
        if k == "out1" || k == "out2" {
            return Err(EvalError::type_error(
                call.span,
                format!(
                    "{}() got an unexpected keyword argument '{k}'",
                    call.display_name().trim_start_matches("np.")
                ),
            ));
        }
    }
    Ok(())
}

impl UfuncOut {
    /// `out1`, `out2` and `out` of a bound two-output ufunc call (see [`take_out_pair`]).
    pub(super) fn take_pair(a: &mut Args) -> Result<[UfuncOut; 2]> {
        let span = a.span();
        let positional = [a.get("out1"), a.get("out2")];
        let given = match a.get("out") {
            None | Some(Value::None) => positional,
            Some(_) if positional.iter().any(Option::is_some) => {
                return Err(EvalError::type_error(
                    span,
                    "cannot specify 'out' as both a positional and keyword argument",
                ))
            }
            Some(Value::Tuple(v)) if v.len() == 2 => {
                let mut it = v.into_iter();
                [it.next(), it.next()]
            }
            Some(Value::Tuple(_)) => {
                return Err(EvalError::value_error(
                    span,
                    "The 'out' tuple must have exactly one entry per ufunc output",
                ))
            }
            Some(_) => {
                return Err(EvalError::type_error(
                    span,
                    "'out' must be a tuple of arrays",
                ))
            }
        };
        let mask = match a.get("where") {
            None | Some(Value::Scalar(kupfer::Scalar::Bool(true))) => None,
            Some(v) => Some(super::to_array(&v, Some(kupfer::DType::Bool), span)?),
        };
        let mut outs = Vec::with_capacity(2);
        for g in given {
            let out = match g {
                None | Some(Value::None) => None,
                Some(Value::Array(o)) => Some(o),
                Some(_) => {
                    return Err(EvalError::type_error(
                        span,
                        "return arrays must be of ArrayType",
                    ))
                }
            };
            if mask.is_some() && out.is_none() {
                return Err(EvalError::not_supported(
                    span,
                    "where= of a ufunc without out= (NumPy leaves the unselected elements \
                     uninitialised)",
                ));
            }
            outs.push(UfuncOut {
                out,
                mask: mask.clone(),
                span,
            });
        }
        let second = outs.pop();
        match (outs.pop(), second) {
            (Some(first), Some(second)) => Ok([first, second]),
            _ => unreachable!("two outputs were pushed"),
        }
    }
}

/// Writes a two-output ufunc's results into its targets; the value is the pair.
pub(super) fn write_pair(
    name: &str,
    targets: [UfuncOut; 2],
    inputs: &[Vec<usize>],
    results: (Array, Array),
    casting: Casting,
) -> Result<Value> {
    let [t1, t2] = targets;
    let first = t1.write(name, inputs, results.0, casting)?;
    let second = t2.write(name, inputs, results.1, casting)?;
    Ok(Value::Tuple(vec![first, second]))
}

/// `clip(a, a_min, a_max, out=None, *, min=, max=, where=, dtype=, casting=)`: NumPy's
/// `clip` ufunc (`maximum`/`minimum` with one bound, `positive` with none), `out=` as a ufunc's.
fn clip(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&[
        "a",
        "a_min=",
        "a_max=",
        "out=",
        "*min=",
        "*max=",
        "*where=",
        "*dtype=",
        "*casting=",
    ])?;
    let target = UfuncOut::take(&mut a)?;
    let dtype = a.dtype("dtype")?;
    let casting = loops::casting(&mut a, Casting::SameKind)?;
    let x = a.operand("a")?;
    let bound = |v: Option<Value>, w: Option<Value>, which: &str| match (v, w) {
        (Some(_), Some(_)) => Err(EvalError::type_error(
            span,
            format!("np.clip(): pass a_{which} or {which}, not both"),
        )),
        (v, w) => match v.or(w) {
            None | Some(Value::None) => Ok(None),
            Some(v) => super::to_operand(&v, &format!("np.clip(): '{which}'"), span).map(Some),
        },
    };
    let (a_min, a_max) = (a.get("a_min"), a.get("a_max"));
    if a_min.is_none() && a_max.is_some() {
        return Err(EvalError::type_error(
            span,
            "clip() missing 1 required positional argument: 'a_min'",
        ));
    }
    let lo = bound(a_min, a.get("min"), "min")?;
    let hi = bound(a_max, a.get("max"), "max")?;
    let mut shapes = operand_shapes(std::slice::from_ref(&x));
    for b in [&lo, &hi] {
        shapes.push(b.as_ref().map_or(Vec::new(), |b| {
            operand_shapes(std::slice::from_ref(b)).remove(0)
        }));
    }
    let (name, r) = match (lo, hi) {
        (None, None) => (
            "positive",
            loops::run("np.clip", [x], dtype, casting, span, |[x]| {
                kupfer::positive(x)
            })?,
        ),
        (Some(lo), None) => (
            "maximum",
            loops::run("np.clip", [x, lo], dtype, casting, span, |[x, lo]| {
                kupfer::maximum(x, lo)
            })?,
        ),
        (None, Some(hi)) => (
            "minimum",
            loops::run("np.clip", [x, hi], dtype, casting, span, |[x, hi]| {
                kupfer::minimum(x, hi)
            })?,
        ),
        (Some(lo), Some(hi)) => (
            "clip",
            loops::run(
                "np.clip",
                [x, lo, hi],
                dtype,
                casting,
                span,
                |[x, lo, hi]| kupfer::clip(x, lo, hi),
            )?,
        ),
    };
    target.write(name, &shapes, r, casting)
}

fn where_(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["condition", "x=", "y="])?;
    let cond = a.operand("condition")?;
    match (a.get("x"), a.get("y")) {
        (Some(x), Some(y)) => {
            let x = super::to_operand(&x, "np.where(): 'x'", span)?;
            let y = super::to_operand(&y, "np.where(): 'y'", span)?;
            Ok(Value::Array(
                kupfer::where_(cond, x, y).map_err(EvalError::kupfer(span))?,
            ))
        }
        (None, None) => {
            // One argument: np.nonzero(condition).
            let c = match cond {
                Operand::Array(c) => c,
                Operand::Scalar(s) => super::to_array(&Value::Scalar(s), None, span)?,
            };
            let r = crate::program::wait(kupfer::nonzero_async(&c), "np.where(condition)")
                .map_err(EvalError::kupfer(span))?;
            Ok(Value::Tuple(r.into_iter().map(Value::Array).collect()))
        }
        _ => Err(EvalError::value_error(
            span,
            "np.where(): either both or neither of x and y should be given",
        )),
    }
}

/// `round(a, decimals=0, out=None)` (also `around` and `ndarray.round`). `out=` follows
/// NumPy's `PyArray_Round`: it must hold as many elements as `a` and `a` must broadcast to it;
/// the result casts to it under 'same_kind', and a complex result needs a complex `out`.
fn round(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "decimals=", "out="])?;
    let out = match a.get("out") {
        None | Some(Value::None) => None,
        Some(Value::Array(o)) => Some(o),
        Some(_) => return Err(EvalError::type_error(span, "output must be an array")),
    };
    let decimals = a.int("decimals")?.unwrap_or(0);
    let decimals = i32::try_from(decimals)
        .map_err(|_| EvalError::value_error(span, "np.round(): decimals out of range"))?;
    let x = a.operand("a")?;
    let r = kupfer::round(x.clone(), decimals).map_err(EvalError::kupfer(span))?;
    let Some(out) = out else {
        return Ok(Value::Array(r));
    };
    let in_shape = operand_shapes(std::slice::from_ref(&x)).remove(0);
    if out.size() != in_shape.iter().product::<usize>() {
        return Err(EvalError::value_error(span, "invalid output shape"));
    }
    let in_dtype = r.dtype();
    if in_dtype.is_complex() && !out.dtype().is_complex() {
        return Err(EvalError::type_error(
            span,
            "array does not have imaginary part to set",
        ));
    }
    let integer = !in_dtype.is_float() && !in_dtype.is_complex();
    if integer && decimals >= 0 {
        // NumPy copies an integer array into `out` (no ufunc runs).
        if broadcast_shapes(&in_shape, out.shape()).ok().as_deref() != Some(out.shape()) {
            return Err(EvalError::value_error(
                span,
                format!(
                    "could not broadcast input array from shape {} into shape {}",
                    shape_text(&in_shape),
                    shape_text(out.shape())
                ),
            ));
        }
        if !kupfer::can_cast(in_dtype, out.dtype(), Casting::SameKind) {
            return Err(EvalError::type_error(
                span,
                format!(
                    "Cannot cast array data from dtype('{in_dtype}') to dtype('{}') according \
                     to the rule 'same_kind'",
                    out.dtype()
                ),
            ));
        }
        kupfer::copyto(&out, &r, Casting::Unsafe, None).map_err(EvalError::kupfer(span))?;
        return Ok(Value::Array(out));
    }
    // The first ufunc of NumPy's rounding is the one whose output cast fails first.
    let first = match decimals {
        0 => "rint",
        d if d > 0 => "multiply",
        _ => "divide",
    };
    let target = UfuncOut {
        out: Some(out),
        mask: None,
        span,
    };
    target.write(first, &[in_shape], r, Casting::SameKind)
}

/// A shape as NumPy's iterator errors print it: `(3,)`, `(2,3)`, `()`.
pub(crate) fn shape_text(s: &[usize]) -> String {
    match s {
        [n] => format!("({n},)"),
        s => format!(
            "({})",
            s.iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(",")
        ),
    }
}

/// `degrees`/`radians`: `x * factor` in a float loop (integers in NumPy's default float).
fn scaled(call: Call, factor: f64) -> Result<Value> {
    let (name, span) = (call.display_name(), call.span);
    let mut a = call.bind(&["x/", "out=", "*where=", "*dtype=", "*casting="])?;
    let target = UfuncOut::take(&mut a)?;
    let dtype = a.dtype("dtype")?;
    let casting = loops::casting(&mut a, Casting::SameKind)?;
    let default_float = super::device(span)?.default_float();
    let x = a.operand("x")?;
    let shapes = operand_shapes(std::slice::from_ref(&x));
    let r = loops::run(&name, [x], dtype, casting, span, |[x]| {
        let x = match x {
            // Integers and bools compute in NumPy's default float.
            Operand::Array(arr) if !arr.dtype().is_float() && !arr.dtype().is_complex() => {
                Operand::Array(arr.astype(default_float)?)
            }
            x => x,
        };
        kupfer::multiply(x, factor)
    })?;
    target.write(&name, &shapes, r, casting)
}

fn degrees(call: Call) -> Result<Value> {
    scaled(call, 180.0 / std::f64::consts::PI)
}

fn radians(call: Call) -> Result<Value> {
    scaled(call, std::f64::consts::PI / 180.0)
}

/// `divmod(x1, x2[, out1, out2], /, out=(None, None), *, where=True, casting='same_kind')`.
fn divmod(call: Call) -> Result<Value> {
    let span = call.span;
    take_out_pair(&call)?;
    let mut a = call.bind(&[
        "x1/",
        "x2/",
        "out1=",
        "out2=",
        "*out=",
        "*where=",
        "*casting=",
    ])?;
    let targets = UfuncOut::take_pair(&mut a)?;
    let casting = loops::casting(&mut a, Casting::SameKind)?;
    let x1 = a.operand("x1")?;
    let x2 = a.operand("x2")?;
    let shapes = operand_shapes(&[x1.clone(), x2.clone()]);
    let k = EvalError::kupfer(span);
    let q = kupfer::floor_divide(x1.clone(), x2.clone()).map_err(k)?;
    let r = kupfer::remainder(x1, x2).map_err(EvalError::kupfer(span))?;
    write_pair("divmod", targets, &shapes, (q, r), casting)
}
