//! The interpreter: walks the syntax tree with Python's evaluation order and NumPy's
//! semantics. Names are looked up in the session's variables, then in NumPy's namespace
//! (`sin`, `pi`, `float32`, ... also without `np.`), then among the Python builtins.
//!
//! Arrays stay lazy on the device; nothing is read back during evaluation, so whatever needs
//! an array's contents on the host (`bool(a)`, `a and b`, `a[a.argmax()]`) says so.

use crate::ast::{BinOp, BoolOpKind, CmpOp, Expr, ExprKind, UnaryOp};
use crate::ast::{Keyword, Span};
use crate::error::{EvalError, Result};
use crate::functions::{self, methods, Call, Resolved};
use crate::pyscalar::{self, ScalarError};
use crate::value::{Slice, Value};
use kupfer::{Array, DType, Index, Operand, Scalar, SliceArg};
use std::collections::HashMap;

/// Variables for evaluating expressions: input arrays (or any [`Value`]) bound to names.
///
/// ```no_run
/// let mut s = kupfer_eval::Session::new();
/// s.set_array("x", kupfer::arange(0, 10, 1, None)?);
/// let v = s.eval("x[::-1].sum()")?;
/// assert_eq!(v.to_host()?.to_string(), "45");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Session {
    vars: HashMap<String, Value>,
    /// Names bound by a lambda's parameters or a comprehension (not the session's own
    /// variables): a lambda written here keeps their values, and looks the others up when
    /// it is called.
    locals: Vec<(String, LocalKind)>,
    /// What `print(...)` statements wrote since the last [`Session::take_printed`].
    pub(crate) printed: String,
}

/// What bound a local name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LocalKind {
    /// A lambda's parameter.
    Parameter,
    /// A comprehension's loop variable.
    LoopVariable,
}

/// Evaluates `src` with each `(name, array)` of `inputs` bound: the one-call form of
/// [`Session`].
pub fn evaluate(src: &str, inputs: &[(String, Array)]) -> Result<Value> {
    let mut s = Session::new();
    for (name, a) in inputs {
        s.set_array(name.clone(), a.clone());
    }
    s.run(src)
}

impl Session {
    /// A session without variables.
    pub fn new() -> Session {
        Session::default()
    }

    /// Binds `name` to `value` (replacing an earlier binding). Variables shadow NumPy's
    /// names: binding `e` hides `np.e` as a bare name (`np.e` still works).
    pub fn set(&mut self, name: impl Into<String>, value: Value) {
        self.vars.insert(name.into(), value);
    }

    /// True when `name` is a variable of the session or a local.
    pub(crate) fn is_bound(&self, name: &str) -> bool {
        self.vars.contains_key(name) || self.locals.iter().any(|(n, _)| n == name)
    }

    /// Binds `name` as a lambda parameter or comprehension variable.
    pub(crate) fn set_local(&mut self, name: &str, value: Value, kind: LocalKind) {
        self.locals.retain(|(n, _)| n != name);
        self.locals.push((name.to_string(), kind));
        self.vars.insert(name.to_string(), value);
    }

    /// The lambda parameters and comprehension variables bound here, with their values.
    pub(crate) fn local_bindings(&self) -> Vec<(String, Value, LocalKind)> {
        self.locals
            .iter()
            .filter_map(|(n, k)| self.vars.get(n).map(|v| (n.clone(), v.clone(), *k)))
            .collect()
    }

    /// Binds `name` to an array.
    pub fn set_array(&mut self, name: impl Into<String>, array: Array) {
        self.set(name, Value::Array(array));
    }

    /// The value bound to `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.vars.get(name)
    }

    /// Removes the binding of `name`, returning its value.
    pub fn remove(&mut self, name: &str) -> Option<Value> {
        self.vars.remove(name)
    }

    /// The bound names, sorted.
    pub fn names(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.vars.keys().map(String::as_str).collect();
        v.sort_unstable();
        v
    }

    /// Parses and evaluates one expression.
    pub fn eval(&self, src: &str) -> Result<Value> {
        let expr = crate::parse(src)?;
        self.eval_expr(&expr)
    }

    /// Evaluates a parsed expression.
    pub fn eval_expr(&self, e: &Expr) -> Result<Value> {
        self.eval_node(e)
            .map(Value::plain)
            .map_err(|err| err.at(e.span))
    }

    /// Evaluates `e` keeping a named tuple's field names (for attribute access and for
    /// binding a name: `uniq = np.unique_all(x)` then `uniq.counts`).
    pub(crate) fn eval_keep_named(&self, e: &Expr) -> Result<Value> {
        self.eval_node(e).map_err(|err| err.at(e.span))
    }

    fn eval_node(&self, e: &Expr) -> Result<Value> {
        let span = e.span;
        match &e.kind {
            ExprKind::Int(i) => Ok(Value::Scalar(Scalar::int(*i))),
            ExprKind::Float(x) => Ok(Value::Scalar(Scalar::Float(*x))),
            ExprKind::Imag(x) => Ok(Value::Scalar(Scalar::Complex { re: 0.0, im: *x })),
            ExprKind::Str(s) => Ok(Value::Str(s.clone())),
            ExprKind::Bool(b) => Ok(Value::Scalar(Scalar::Bool(*b))),
            ExprKind::None => Ok(Value::None),
            ExprKind::Ellipsis => Ok(Value::Ellipsis),
            ExprKind::Name(n) => self.name(n, span),
            ExprKind::Attribute { value, attr } => {
                let v = self.eval_keep_named(value)?;
                self.attribute(v, attr, e)
            }
            ExprKind::Call {
                func,
                args,
                keywords,
            } => self.call(func, args, keywords, span),
            ExprKind::Subscript { value, index } => {
                let v = self.eval_expr(value)?;
                if let Value::Function(f) = v {
                    if functions::grids::is_index_trick(f) {
                        if f == "mgrid" || f == "ogrid" {
                            return functions::grids::grid(f, index, &|x| self.eval_expr(x));
                        }
                        let i = self.eval_expr(index)?;
                        return Ok(functions::grids::index_expression(f, i));
                    }
                }
                let i = self.eval_expr(index)?;
                subscript(v, i, span)
            }
            ExprKind::Slice { start, stop, step } => {
                let part = |p: &Option<Box<Expr>>| -> Result<Option<i64>> {
                    match p {
                        None => Ok(None),
                        Some(x) => match self.eval_expr(x)? {
                            Value::None => Ok(None),
                            Value::Scalar(Scalar::Int(i)) => Ok(Some(i)),
                            // Python clamps slice bounds; beyond 64 bits is beyond any length.
                            Value::Scalar(Scalar::BigInt(i)) => {
                                Ok(Some(if i < 0 { i64::MIN } else { i64::MAX }))
                            }
                            Value::Scalar(Scalar::Bool(b)) => Ok(Some(i64::from(b))),
                            v => Err(EvalError::type_error(
                                x.span,
                                format!(
                                    "slice indices must be integers or None, not '{}'",
                                    v.type_name()
                                ),
                            )),
                        },
                    }
                };
                Ok(Value::Slice(Slice {
                    start: part(start)?,
                    stop: part(stop)?,
                    step: part(step)?,
                }))
            }
            ExprKind::Unary { op, operand } => {
                let v = self.eval_expr(operand)?;
                unary(*op, v, span)
            }
            ExprKind::Binary { op, left, right } => {
                let l = self.eval_expr(left)?;
                let r = self.eval_expr(right)?;
                binary(*op, l, r, span)
            }
            ExprKind::Compare { left, rest } => {
                let mut l = self.eval_expr(left)?;
                let mut l_expr: &Expr = left;
                let mut result = Value::Scalar(Scalar::Bool(true));
                for (i, (op, right)) in rest.iter().enumerate() {
                    let r = self.eval_expr(right)?;
                    result = match op {
                        CmpOp::Is | CmpOp::IsNot => {
                            // One name is one object, whatever it holds.
                            let named_twice = matches!((&l_expr.kind, &right.kind),
                                (ExprKind::Name(a), ExprKind::Name(b)) if a == b);
                            match named_twice {
                                true => Value::Scalar(Scalar::Bool(*op == CmpOp::Is)),
                                false => compare(*op, &l, &r, span)?,
                            }
                        }
                        _ => compare(*op, &l, &r, span)?,
                    };
                    if i + 1 < rest.len() {
                        // `a < b < c` is `a < b and b < c`: the truth value decides.
                        if !truthy(&result, span)? {
                            return Ok(result);
                        }
                        l = r;
                        l_expr = right;
                    }
                }
                Ok(result)
            }
            ExprKind::BoolOp { op, values } => {
                let mut last = Value::None;
                for (i, x) in values.iter().enumerate() {
                    last = self.eval_expr(x)?;
                    if i + 1 < values.len() {
                        let t = truthy(&last, x.span)?;
                        match op {
                            BoolOpKind::And if !t => return Ok(last),
                            BoolOpKind::Or if t => return Ok(last),
                            _ => {}
                        }
                    }
                }
                Ok(last)
            }
            ExprKind::Tuple(items) => Ok(Value::Tuple(
                items
                    .iter()
                    .map(|x| self.eval_expr(x))
                    .collect::<Result<_>>()?,
            )),
            ExprKind::List(items) => Ok(Value::List(
                items
                    .iter()
                    .map(|x| self.eval_expr(x))
                    .collect::<Result<_>>()?,
            )),
            ExprKind::Lambda { params, body } => Ok(self.lambda(params, body)),
            ExprKind::Starred(_) => Err(EvalError::type_error(
                span,
                "can't use starred expression here",
            )),
            ExprKind::ListComp { element, clauses } => {
                self.list_comprehension(element, clauses, span)
            }
            ExprKind::Dict(pairs) => {
                let pairs = pairs
                    .iter()
                    .map(|(k, v)| Ok((self.eval_expr(k)?, self.eval_expr(v)?)))
                    .collect::<Result<Vec<_>>>()?;
                Value::dict(pairs).map_err(|m| EvalError::type_error(span, m))
            }
        }
    }

    fn name(&self, n: &str, span: Span) -> Result<Value> {
        if let Some(v) = self.vars.get(n) {
            return Ok(v.clone());
        }
        match functions::resolve("", n, true).map_err(|e| e.at(span))? {
            Resolved::Value(v) => Ok(v),
            Resolved::Planned => Err(EvalError::not_supported(span, format!("'np.{n}'"))),
            Resolved::Unknown => Err(EvalError::UnknownName {
                name: n.to_string(),
                span,
            }),
        }
    }

    fn attribute(&self, v: Value, attr: &str, e: &Expr) -> Result<Value> {
        let span = e.span;
        match v {
            Value::Module(m) => match functions::resolve(m, attr, false).map_err(|e| e.at(span))? {
                Resolved::Value(v) => Ok(v),
                Resolved::Planned => {
                    let full = if m.is_empty() {
                        format!("'np.{attr}'")
                    } else {
                        format!("'np.{m}.{attr}'")
                    };
                    Err(EvalError::not_supported(span, full))
                }
                Resolved::Unknown => Err(EvalError::UnknownName {
                    name: e.dotted_name().unwrap_or_else(|| attr.to_string()),
                    span,
                }),
            },
            Value::Array(a) => methods::attribute(&a, attr, span),
            Value::Poly1d(p) => functions::poly1d::attribute(&p, attr, span),
            Value::Named(t) => match t.field(attr) {
                Some(v) => Ok(v.clone()),
                None => Err(no_attribute(t.type_name, attr, span)),
            },
            Value::Generator(g) => match functions::random::generator_method(attr) {
                Some(m) => Ok(Value::GeneratorMethod(g, m)),
                // kupfer's one bit generator is the generator itself (np.random.PCG64(seed)
                // and the others make a Generator).
                None if attr == "bit_generator" => Ok(Value::Generator(g)),
                None => Err(no_attribute("numpy.random.Generator", attr, span)),
            },
            // `np.add.at` and the other `ufunc.at`; `np.gcd.reduce` and the other reductions
            // of a ufunc kupfer eval registers under `NAME.reduce`.
            Value::Function(f) if attr == "at" || attr == "reduce" => {
                match functions::lookup(&format!("{f}.{attr}")) {
                    Some((key, _)) => Ok(Value::Function(key)),
                    None => Err(no_attribute("numpy.ufunc", attr, span)),
                }
            }
            Value::DType(d) => match attr {
                "name" => Ok(Value::Str(d.name().to_string())),
                "itemsize" => Ok(Value::Scalar(Scalar::Int(d.host_size() as i64))),
                "kind" => Ok(Value::Str(
                    match d {
                        DType::Bool => "b",
                        DType::I8 | DType::I16 | DType::I32 | DType::I64 => "i",
                        DType::U8 | DType::U16 | DType::U32 | DType::U64 => "u",
                        DType::F16 | DType::F32 | DType::F64 => "f",
                        DType::Complex64 | DType::Complex128 => "c",
                    }
                    .to_string(),
                )),
                _ => Err(no_attribute("numpy.dtype", attr, span)),
            },
            Value::Scalar(s) => match (attr, s) {
                ("real", Scalar::Complex { re, .. }) => Ok(Value::Scalar(Scalar::Float(re))),
                ("imag", Scalar::Complex { im, .. }) => Ok(Value::Scalar(Scalar::Float(im))),
                ("real", s) => Ok(Value::Scalar(s)),
                ("imag", Scalar::Float(_)) => Ok(Value::Scalar(Scalar::Float(0.0))),
                ("imag", _) => Ok(Value::Scalar(Scalar::Int(0))),
                _ => Err(no_attribute(pyscalar::type_name(&s), attr, span)),
            },
            other => Err(no_attribute(other.type_name(), attr, span)),
        }
    }

    fn call(&self, func: &Expr, args: &[Expr], keywords: &[Keyword], span: Span) -> Result<Value> {
        let callee = match self.eval_expr(func) {
            Err(EvalError::UnknownName { name, span })
                if func.dotted_name() == Some(name.clone()) =>
            {
                return Err(EvalError::UnknownFunction { name, span })
            }
            r => r?,
        };
        let mut values = Vec::with_capacity(args.len());
        for a in args {
            match &a.kind {
                ExprKind::Starred(inner) => values.extend(crate::callable::iterate(
                    self.eval_expr(inner)?,
                    inner.span,
                )?),
                _ => values.push(self.eval_expr(a)?),
            }
        }
        // Lambdas see the variables as they are now (Python's late binding).
        let rebind = |v: Value| match v {
            Value::Lambda(l) => Value::Lambda(std::sync::Arc::new(l.rebound(self))),
            Value::Vectorized(f) => match &f.func {
                Value::Lambda(l) => {
                    Value::Vectorized(std::sync::Arc::new(crate::callable::Vectorized {
                        func: Value::Lambda(std::sync::Arc::new(l.rebound(self))),
                        ..(*f).clone()
                    }))
                }
                _ => Value::Vectorized(f),
            },
            v => v,
        };
        let args: Vec<Value> = values.into_iter().map(rebind).collect();
        let kwargs = keywords
            .iter()
            .map(|k| Ok((k.name.clone(), rebind(self.eval_expr(&k.value)?))))
            .collect::<Result<Vec<_>>>()?;
        let callee = rebind(callee);
        call_value(callee, args, kwargs, span, func.span)
    }
}

/// Calls `callee` (a function, method, poly1d, generator method, dtype or lambda); `func_span`
/// is where the callee is written.
pub(crate) fn call_value(
    callee: Value,
    args: Vec<Value>,
    kwargs: Vec<(String, Value)>,
    span: Span,
    func_span: Span,
) -> Result<Value> {
    {
        match callee {
            Value::Lambda(l) => crate::callable::call_lambda(&l, args, kwargs, span),
            Value::Vectorized(v) => crate::callable::call_vectorized(&v, args, kwargs, span),
            Value::Function(name) => {
                let (name, f) =
                    functions::lookup(name).ok_or_else(|| EvalError::UnknownFunction {
                        name: name.to_string(),
                        span: func_span,
                    })?;
                functions::call(
                    f,
                    Call {
                        name,
                        span,
                        args,
                        kwargs,
                    },
                )
            }
            Value::Method(a, name) if name.starts_with("poly1d.") => {
                let call = Call {
                    name,
                    span,
                    args,
                    kwargs,
                };
                functions::poly1d::call_method(&a, name, call)
                    .unwrap_or_else(|| Err(EvalError::not_supported(span, format!("'{name}'"))))
            }
            Value::Method(a, name) => methods::call_method(a, name, span, args, kwargs),
            Value::Poly1d(p) if kwargs.is_empty() => functions::poly1d::call(&p, args, span),
            Value::GeneratorMethod(g, name) => functions::random::call_generator_method(
                &g,
                name,
                Call {
                    name: functions::random::generator_method_call_name(name),
                    span,
                    args,
                    kwargs,
                },
            ),
            Value::DType(d) => dtype_call(d, span, args, kwargs),
            other => Err(EvalError::type_error(
                func_span,
                format!("'{}' object is not callable", other.type_name()),
            )),
        }
    }
}

fn no_attribute(ty: &str, attr: &str, span: Span) -> EvalError {
    EvalError::type_error(span, format!("'{ty}' object has no attribute '{attr}'"))
}

fn kerr(span: Span) -> impl FnOnce(kupfer::Error) -> EvalError {
    EvalError::kupfer(span)
}

fn scalar_err(span: Span) -> impl FnOnce(ScalarError) -> EvalError {
    move |e| match e {
        ScalarError::Type(m) => EvalError::type_error(span, m),
        ScalarError::Value(m) => EvalError::value_error(span, m),
    }
}

/// `np.float32(x)`: a 0-d array (NumPy's scalar) or an array cast to the dtype.
fn dtype_call(
    d: DType,
    span: Span,
    args: Vec<Value>,
    kwargs: Vec<(String, Value)>,
) -> Result<Value> {
    let name: &'static str = match d {
        DType::Bool => "bool_",
        DType::I8 => "int8",
        DType::U8 => "uint8",
        DType::I16 => "int16",
        DType::U16 => "uint16",
        DType::I32 => "int32",
        DType::U32 => "uint32",
        DType::I64 => "int64",
        DType::U64 => "uint64",
        DType::F16 => "float16",
        DType::F32 => "float32",
        DType::F64 => "float64",
        DType::Complex64 => "complex64",
        DType::Complex128 => "complex128",
    };
    let mut a = Call {
        name,
        span,
        args,
        kwargs,
    }
    .bind(&["value="])?;
    let v = a.get("value").unwrap_or(Value::Scalar(Scalar::Int(0)));
    match v {
        Value::Array(x) => Ok(Value::Array(x.astype(d).map_err(kerr(span))?)),
        v @ (Value::Scalar(_) | Value::Tuple(_) | Value::List(_)) => {
            Ok(Value::Array(functions::to_array(&v, Some(d), span)?))
        }
        Value::Str(text) if d.is_int() || d.is_float() => {
            Ok(Value::Array(number_from_str(&text, d, span)?))
        }
        other => Err(EvalError::type_error(
            span,
            format!(
                "np.{name}() argument must be a number or an array, not '{}'",
                other.type_name()
            ),
        )),
    }
}

/// `np.uint64('18446744073709551615')`: a number written as a string, parsed as NumPy does
/// (Python's `int()` or `float()`), so integers beyond kupfer eval's 64-bit Python ints (up to
/// uint64's 2**64 - 1) are written exactly.
fn number_from_str(text: &str, d: DType, span: Span) -> Result<Array> {
    let t = text.trim();
    if d.is_float() {
        let v: f64 = t.parse().map_err(|_| {
            EvalError::value_error(span, format!("could not convert string to float: '{text}'"))
        })?;
        return functions::to_array(&Value::Scalar(Scalar::Float(v)), Some(d), span);
    }
    let v: i128 = t.replace('_', "").parse().map_err(|_| {
        EvalError::value_error(
            span,
            format!("invalid literal for int() with base 10: '{text}'"),
        )
    })?;
    let (lo, hi) = d.int_range().unwrap_or((0, 0));
    if v < lo || v > hi {
        return Err(EvalError::value_error(
            span,
            format!("Python integer {v} out of bounds for {d}"),
        ));
    }
    match i64::try_from(v) {
        Ok(small) => functions::to_array(&Value::Scalar(Scalar::Int(small)), Some(d), span),
        // Only uint64 holds values beyond int64.
        Err(_) => Array::from_slice(&[v as u64], &[]).map_err(kerr(span)),
    }
}

/// Python truthiness; a one-element array's is its element's (one read-back).
pub(crate) fn truthy(v: &Value, span: Span) -> Result<bool> {
    Ok(match v {
        Value::Scalar(s) => pyscalar::truthy(s),
        Value::None => false,
        Value::Str(s) => !s.is_empty(),
        Value::Tuple(v) | Value::List(v) => !v.is_empty(),
        Value::Array(a) if a.size() == 0 => {
            return Err(EvalError::value_error(
                span,
                "The truth value of an empty array is ambiguous. Use `array.size > 0` to \
                 check that an array is not empty.",
            ))
        }
        Value::Array(a) if a.size() > 1 => {
            return Err(EvalError::value_error(
                span,
                "The truth value of an array with more than one element is ambiguous. Use \
                 a.any() or a.all()",
            ))
        }
        // One element: read back (natively; the browser cannot wait for a read-back). A
        // uint64 is tested as bool: its values from 2**63 up are no 64-bit Python int.
        Value::Array(a) if a.dtype() == DType::U64 => truthy(
            &Value::Array(a.astype(DType::Bool).map_err(EvalError::kupfer(span))?),
            span,
        )?,
        Value::Array(a) => pyscalar::truthy(
            &crate::program::wait(a.item_async(), "the truth value of an array")
                .map_err(EvalError::kupfer(span))?,
        ),
        _ => true,
    })
}

fn unary(op: UnaryOp, v: Value, span: Span) -> Result<Value> {
    if op == UnaryOp::Not {
        return Ok(Value::Scalar(Scalar::Bool(!truthy(&v, span)?)));
    }
    match v {
        Value::Scalar(s) => pyscalar::unary(op, s)
            .map(Value::Scalar)
            .map_err(scalar_err(span)),
        Value::Poly1d(p) if op == UnaryOp::Neg => functions::poly1d::negate(&p, span),
        Value::Poly1d(p) if op == UnaryOp::Pos => Ok(Value::Poly1d(p)),
        Value::Array(a) => {
            let r = match op {
                UnaryOp::Neg => kupfer::negative(&a),
                UnaryOp::Pos => kupfer::positive(&a),
                _ => kupfer::invert(&a),
            };
            Ok(Value::Array(r.map_err(kerr(span))?))
        }
        other => Err(EvalError::type_error(
            span,
            format!(
                "bad operand type for unary {}: '{}'",
                op.symbol(),
                other.type_name()
            ),
        )),
    }
}

type Binary = fn(Operand, Operand) -> kupfer::Result<Array>;

fn binary_fn(op: BinOp) -> Option<Binary> {
    Some(match op {
        BinOp::Add => kupfer::add,
        BinOp::Sub => kupfer::subtract,
        BinOp::Mul => kupfer::multiply,
        BinOp::Div => kupfer::divide,
        BinOp::FloorDiv => kupfer::floor_divide,
        BinOp::Mod => kupfer::remainder,
        BinOp::Pow => kupfer::power,
        BinOp::BitAnd => kupfer::bitwise_and,
        BinOp::BitOr => kupfer::bitwise_or,
        BinOp::BitXor => kupfer::bitwise_xor,
        BinOp::LShift => kupfer::left_shift,
        BinOp::RShift => kupfer::right_shift,
        BinOp::MatMul => return None,
    })
}

/// True for values that take part in NumPy arithmetic.
fn numeric(v: &Value) -> bool {
    matches!(
        v,
        Value::Array(_) | Value::Scalar(_) | Value::Tuple(_) | Value::List(_)
    )
}

fn unsupported_operands(sym: &str, l: &Value, r: &Value, span: Span) -> EvalError {
    EvalError::type_error(
        span,
        format!(
            "unsupported operand type(s) for {sym}: '{}' and '{}'",
            l.type_name(),
            r.type_name()
        ),
    )
}

fn repeat(items: &[Value], n: i64) -> Vec<Value> {
    let n = usize::try_from(n).unwrap_or(0);
    let mut out = Vec::with_capacity(items.len().saturating_mul(n).min(1 << 16));
    for _ in 0..n {
        out.extend_from_slice(items);
    }
    out
}

fn binary(op: BinOp, l: Value, r: Value, span: Span) -> Result<Value> {
    if let Some(r) = functions::poly1d::binary(op, &l, &r, span) {
        return r;
    }
    let Some(f) = binary_fn(op) else {
        return crate::functions::linalg::matmul(&l, &r, span);
    };
    // Python's own operators on Python values.
    match (&l, &r, op) {
        (Value::Scalar(a), Value::Scalar(b), _) => {
            return pyscalar::binary(op, *a, *b)
                .map(Value::Scalar)
                .map_err(scalar_err(span))
        }
        (Value::Tuple(a), Value::Tuple(b), BinOp::Add) => {
            return Ok(Value::Tuple(a.iter().chain(b).cloned().collect()))
        }
        (Value::List(a), Value::List(b), BinOp::Add) => {
            return Ok(Value::List(a.iter().chain(b).cloned().collect()))
        }
        (Value::Str(a), Value::Str(b), BinOp::Add) => return Ok(Value::Str(format!("{a}{b}"))),
        (Value::Tuple(a), Value::Scalar(Scalar::Int(n)), BinOp::Mul)
        | (Value::Scalar(Scalar::Int(n)), Value::Tuple(a), BinOp::Mul) => {
            if a.len().saturating_mul(usize::try_from(*n).unwrap_or(0)) > MAX_REPEATED {
                return Err(EvalError::not_supported(
                    span,
                    format!("a repeated tuple of more than {MAX_REPEATED} items"),
                ));
            }
            return Ok(Value::Tuple(repeat(a, *n)));
        }
        (Value::List(a), Value::Scalar(Scalar::Int(n)), BinOp::Mul)
        | (Value::Scalar(Scalar::Int(n)), Value::List(a), BinOp::Mul) => {
            if a.len().saturating_mul(usize::try_from(*n).unwrap_or(0)) > MAX_REPEATED {
                return Err(EvalError::not_supported(
                    span,
                    format!("a repeated list of more than {MAX_REPEATED} items"),
                ));
            }
            return Ok(Value::List(repeat(a, *n)));
        }
        _ => {}
    }
    let has_array = matches!(l, Value::Array(_)) || matches!(r, Value::Array(_));
    if !has_array || !numeric(&l) || !numeric(&r) {
        return Err(unsupported_operands(op.symbol(), &l, &r, span));
    }
    let a = functions::to_operand(&l, "left operand", span)?;
    let b = functions::to_operand(&r, "right operand", span)?;
    Ok(Value::Array(f(a, b).map_err(kerr(span))?))
}

/// The longest list or tuple `seq * n` builds (NumPy's docstrings build 3,000,000 items:
/// `np.array([1, 2e-9, 3e-9] * 1000000)`).
const MAX_REPEATED: usize = 1 << 22;

/// `a == b` for values that are not numbers or arrays (Python's equality).
fn py_equal(l: &Value, r: &Value) -> bool {
    match (l, r) {
        (Value::Scalar(a), Value::Scalar(b)) => pyscalar::compare(CmpOp::Eq, a, b).unwrap_or(false),
        (Value::Tuple(a), Value::Tuple(b)) | (Value::List(a), Value::List(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| py_equal(x, y))
        }
        (Value::Str(a), Value::Str(b)) => a == b,
        (Value::None, Value::None) | (Value::Ellipsis, Value::Ellipsis) => true,
        (Value::DType(a), Value::DType(b)) => a == b,
        (Value::DType(d), Value::Str(s)) | (Value::Str(s), Value::DType(d)) => {
            DType::from_name(s).is_ok_and(|x| x == *d)
        }
        // `a.dtype == int`: Python's types stand for NumPy's defaults (int64, float64, ...).
        (Value::DType(d), t @ Value::Function(_)) | (t @ Value::Function(_), Value::DType(d)) => {
            functions::to_dtype(t, "", Span::default()).is_ok_and(|x| x == *d)
        }
        (Value::Slice(a), Value::Slice(b)) => a == b,
        (Value::Function(a), Value::Function(b)) => a == b,
        (Value::Module(a), Value::Module(b)) => a == b,
        _ => false,
    }
}

/// Python's `l is r` for two values: singletons, arrays (the same handle), functions (NumPy's
/// aliases are one function), lambdas; different kinds of object are never one object.
/// Python ints, floats, strings, containers and dtypes are refused: kupfer eval copies them,
/// so it cannot tell whether NumPy would hold one object or two.
fn identical(l: &Value, r: &Value, span: Span) -> Result<bool> {
    Ok(match (l, r) {
        (Value::None, Value::None) | (Value::Ellipsis, Value::Ellipsis) => true,
        (Value::Scalar(Scalar::Bool(a)), Value::Scalar(Scalar::Bool(b))) => a == b,
        (Value::Array(a), Value::Array(b)) | (Value::Poly1d(a), Value::Poly1d(b)) => {
            a.same_handle(b)
        }
        (Value::Function(a), Value::Function(b)) => functions::same_function(a, b),
        (Value::Module(a), Value::Module(b)) => a == b,
        (Value::Lambda(a), Value::Lambda(b)) => std::sync::Arc::ptr_eq(a, b),
        (Value::Vectorized(a), Value::Vectorized(b)) => std::sync::Arc::ptr_eq(a, b),
        // Bound methods and flat iterators are new objects at every access.
        (Value::Method(..), Value::Method(..))
        | (Value::GeneratorMethod(..), Value::GeneratorMethod(..))
        | (Value::FlatIter(_), Value::FlatIter(_)) => false,
        (a, b) if a.type_name() == b.type_name() => {
            return Err(EvalError::not_supported(
                span,
                format!(
                    "'is' between two values of type '{}' (kupfer eval copies them; use ==)",
                    a.type_name()
                ),
            ))
        }
        _ => false,
    })
}

fn compare(op: CmpOp, l: &Value, r: &Value, span: Span) -> Result<Value> {
    if matches!(op, CmpOp::Is | CmpOp::IsNot) {
        let same = identical(l, r, span)?;
        return Ok(Value::Scalar(Scalar::Bool(same == (op == CmpOp::Is))));
    }
    if let (Value::Poly1d(p), Value::Poly1d(q), CmpOp::Eq | CmpOp::Ne) = (l, r, op) {
        let eq = functions::poly1d::equal(p, q, span)?;
        return Ok(match (op, eq) {
            (CmpOp::Eq, eq) => eq,
            (_, Value::Array(a)) => Value::Array(kupfer::logical_not(&a).map_err(kerr(span))?),
            (_, other) => Value::Scalar(Scalar::Bool(!truthy(&other, span)?)),
        });
    }
    if let (Value::Scalar(a), Value::Scalar(b)) = (l, r) {
        return pyscalar::compare(op, a, b)
            .map(|b| Value::Scalar(Scalar::Bool(b)))
            .map_err(scalar_err(span));
    }
    let has_array = matches!(l, Value::Array(_)) || matches!(r, Value::Array(_));
    if has_array && numeric(l) && numeric(r) {
        let f: Binary = match op {
            CmpOp::Lt => kupfer::less,
            CmpOp::Le => kupfer::less_equal,
            CmpOp::Gt => kupfer::greater,
            CmpOp::Ge => kupfer::greater_equal,
            CmpOp::Eq => kupfer::equal,
            CmpOp::Ne => kupfer::not_equal,
            // Decided at the top.
            CmpOp::Is => kupfer::equal,
            CmpOp::IsNot => kupfer::not_equal,
        };
        let a = functions::to_operand(l, "left operand", span)?;
        let b = functions::to_operand(r, "right operand", span)?;
        return Ok(Value::Array(f(a, b).map_err(kerr(span))?));
    }
    match op {
        CmpOp::Eq | CmpOp::Ne => {
            let eq = op == CmpOp::Eq;
            if let (Value::Array(a), _) | (_, Value::Array(a)) = (l, r) {
                // NumPy compares an array with an unrelated object elementwise: all unequal.
                return Ok(Value::Array(
                    kupfer::full(a.shape(), Scalar::Bool(!eq), Some(DType::Bool))
                        .map_err(kerr(span))?,
                ));
            }
            Ok(Value::Scalar(Scalar::Bool(py_equal(l, r) == eq)))
        }
        _ => Err(EvalError::type_error(
            span,
            format!(
                "'{}' not supported between instances of '{}' and '{}'",
                op.symbol(),
                l.type_name(),
                r.type_name()
            ),
        )),
    }
}

/// One entry of an array index: integers, slices, `None`, `...`, bools, integer or boolean
/// arrays, and lists (integer lists stay on the host; other lists become arrays).
fn index_entry(v: &Value, span: Span) -> Result<Index> {
    Ok(match v {
        Value::Scalar(Scalar::Int(i)) => {
            Index::Basic(SliceArg::Index(isize::try_from(*i).map_err(|_| {
                EvalError::value_error(span, format!("index {i} is out of bounds"))
            })?))
        }
        Value::Scalar(Scalar::BigInt(_)) => return Err(functions::too_big_for_index(span)),
        Value::Slice(s) => {
            let c =
                |x: Option<i64>| x.map(|v| v.clamp(isize::MIN as i64, isize::MAX as i64) as isize);
            if s.step == Some(0) {
                return Err(EvalError::value_error(span, "slice step cannot be zero"));
            }
            Index::Basic(SliceArg::Slice {
                start: c(s.start),
                stop: c(s.stop),
                step: c(s.step),
            })
        }
        Value::None => Index::Basic(SliceArg::NewAxis),
        Value::Ellipsis => Index::Basic(SliceArg::Ellipsis),
        Value::Scalar(Scalar::Bool(b)) => Index::Bool(*b),
        Value::Array(a) => Index::Array(a.clone()),
        Value::List(items) | Value::Tuple(items)
            if !items.is_empty()
                && items
                    .iter()
                    .all(|x| matches!(x, Value::Scalar(Scalar::Int(_)))) =>
        {
            Index::List(
                items
                    .iter()
                    .map(|x| match x {
                        Value::Scalar(Scalar::Int(i)) => *i,
                        _ => 0,
                    })
                    .collect(),
            )
        }
        Value::List(items) if items.is_empty() => {
            let dev = kupfer::Device::current().map_err(EvalError::kupfer(span))?;
            Index::Array(
                kupfer::full_on(&dev, &[0], 0i64, Some(dev.default_int()))
                    .map_err(EvalError::kupfer(span))?,
            )
        }
        Value::List(_) | Value::Tuple(_) => {
            Index::Array(crate::functions::to_array(v, None, span)?)
        }
        _ => {
            return Err(EvalError::type_error(
                span,
                "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and \
                 integer or boolean arrays are valid indices",
            ))
        }
    })
}

/// A whole index (a tuple is several entries).
pub(crate) fn index_entries(index: &Value, span: Span) -> Result<Vec<Index>> {
    match index {
        Value::Tuple(items) => items.iter().map(|i| index_entry(i, span)).collect(),
        other => Ok(vec![index_entry(other, span)?]),
    }
}

/// A binary operator on two values (Python and NumPy semantics).
pub(crate) fn binary_value(op: BinOp, l: Value, r: Value, span: Span) -> Result<Value> {
    binary(op, l, r, span)
}

fn subscript(v: Value, index: Value, span: Span) -> Result<Value> {
    match v {
        Value::FlatIter(a) => functions::flat::read(&a, index, span, subscript),
        Value::Dict(pairs) => Value::dict_get(&pairs, &index.plain()).map_err(|m| {
            if m.starts_with("unhashable") {
                EvalError::type_error(span, m)
            } else {
                EvalError::value_error(span, format!("KeyError: {m}"))
            }
        }),
        Value::Array(a) => {
            let entries = index_entries(&index, span)?;
            let basic: Option<Vec<SliceArg>> = entries
                .iter()
                .map(|e| match e {
                    Index::Basic(s) => Some(*s),
                    _ => None,
                })
                .collect();
            match basic {
                Some(parts) => {
                    let view = a.slice(&parts).map_err(kerr(span))?;
                    // Integers only give NumPy a scalar: a copy, which later writes into `a`
                    // do not change (an Ellipsis or a slice keeps a view).
                    let scalar =
                        view.ndim() == 0 && parts.iter().all(|p| matches!(p, SliceArg::Index(_)));
                    Ok(Value::Array(if scalar {
                        view.copy().map_err(kerr(span))?
                    } else {
                        view
                    }))
                }
                None => Ok(Value::Array(
                    crate::program::wait(a.get_async(&entries), "indexing with a mask or array")
                        .map_err(kerr(span))?,
                )),
            }
        }
        Value::Tuple(ref items) | Value::List(ref items) if matches!(index, Value::Slice(_)) => {
            let Value::Slice(s) = index else {
                return Err(EvalError::type_error(span, "a slice index was expected"));
            };
            let pos = s
                .positions(items.len())
                .map_err(|m| EvalError::value_error(span, m))?;
            let picked: Vec<Value> = pos.into_iter().map(|i| items[i].clone()).collect();
            Ok(match v {
                Value::List(_) => Value::List(picked),
                _ => Value::Tuple(picked),
            })
        }
        Value::Tuple(items) | Value::List(items) => {
            let i = match index {
                Value::Scalar(Scalar::Int(i)) => i,
                Value::Scalar(Scalar::Bool(b)) => i64::from(b),
                Value::Scalar(Scalar::BigInt(_)) => return Err(functions::too_big_for_index(span)),
                other => {
                    return Err(EvalError::type_error(
                        span,
                        format!(
                            "tuple indices must be integers or slices, not {}",
                            other.type_name()
                        ),
                    ))
                }
            };
            let n = items.len() as i64;
            let j = if i < 0 { i + n } else { i };
            if j < 0 || j >= n {
                return Err(EvalError::value_error(span, "tuple index out of range"));
            }
            Ok(items[j as usize].clone())
        }
        Value::Str(s) => {
            let chars: Vec<char> = s.chars().collect();
            match index {
                Value::Scalar(Scalar::Int(i)) => {
                    let n = chars.len() as i64;
                    let j = if i < 0 { i + n } else { i };
                    if j < 0 || j >= n {
                        return Err(EvalError::value_error(span, "string index out of range"));
                    }
                    Ok(Value::Str(chars[j as usize].to_string()))
                }
                Value::Slice(sl) => {
                    let pos = sl
                        .positions(chars.len())
                        .map_err(|m| EvalError::value_error(span, m))?;
                    Ok(Value::Str(pos.into_iter().map(|i| chars[i]).collect()))
                }
                other => Err(EvalError::type_error(
                    span,
                    format!(
                        "string indices must be integers, not '{}'",
                        other.type_name()
                    ),
                )),
            }
        }
        other => Err(EvalError::type_error(
            span,
            format!("'{}' object is not subscriptable", other.type_name()),
        )),
    }
}
