//! Python's functions as values in kupfer eval: `lambda` ([`Lambda`]: the enclosing
//! lambdas' parameters and comprehension variables are kept from where it was written, the
//! session's variables are read when it is called, as Python's closures and globals),
//! list comprehensions (and generator expressions,
//! evaluated as lists), iteration of sequences and arrays (an array iterates over its first
//! axis, as NumPy's does), and calling a callable value from a function such as
//! `np.fromfunction` or `np.apply_along_axis` ([`call_value`]).

use crate::ast::{Comprehension, Expr, Span};
use crate::error::{EvalError, Result};
use crate::interp::{LocalKind, Session};
use crate::value::Value;
use std::sync::Arc;

/// A `lambda`: its parameters, its body and the variables it sees.
#[derive(Debug, Clone)]
pub struct Lambda {
    /// The parameter names.
    pub(crate) params: Vec<String>,
    /// The body expression.
    pub(crate) body: Expr,
    /// The variables bound when the lambda was evaluated (or, once rebound, when it is
    /// called).
    pub(crate) scope: Session,
    /// The enclosing lambdas' parameters and comprehension variables it was written among:
    /// these keep their values; other names are looked up when the lambda is called.
    pub(crate) locals: Vec<(String, Value, LocalKind)>,
}

impl Lambda {
    /// This lambda seeing `current`'s variables (Python's late binding of globals), its
    /// captured locals kept.
    pub(crate) fn rebound(&self, current: &Session) -> Lambda {
        let mut scope = current.clone();
        for (n, v, k) in &self.locals {
            scope.set_local(n, v.clone(), *k);
        }
        Lambda {
            params: self.params.clone(),
            body: self.body.clone(),
            scope,
            locals: self.locals.clone(),
        }
    }
}

/// Comprehensions and calls above this many items or nested calls are refused.
const MAX_ITEMS: usize = 1 << 20;
const MAX_CALL_DEPTH: usize = 64;

thread_local! {
    static CALL_DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

impl Session {
    /// The value of `lambda params: body` written in this session.
    pub(crate) fn lambda(&self, params: &[String], body: &Expr) -> Value {
        Value::Lambda(Arc::new(Lambda {
            params: params.to_vec(),
            body: body.clone(),
            scope: self.clone(),
            locals: self.local_bindings(),
        }))
    }

    /// `[element for ... in ... if ...]`.
    pub(crate) fn list_comprehension(
        &self,
        element: &Expr,
        clauses: &[Comprehension],
        span: Span,
    ) -> Result<Value> {
        let mut out = Vec::new();
        self.clauses(element, clauses, span, &mut out)?;
        Ok(Value::List(out))
    }

    fn clauses(
        &self,
        element: &Expr,
        clauses: &[Comprehension],
        span: Span,
        out: &mut Vec<Value>,
    ) -> Result<()> {
        let Some((clause, rest)) = clauses.split_first() else {
            if out.len() >= MAX_ITEMS {
                return Err(EvalError::not_supported(
                    span,
                    format!("a comprehension of more than {MAX_ITEMS} items"),
                ));
            }
            let v = self.eval_expr(element)?;
            if escapes_loop(&v) {
                return Err(EvalError::not_supported(
                    element.span,
                    "a lambda that reads a comprehension's loop variable outside its \
                     iteration (Python reads the variable's last value then)",
                ));
            }
            out.push(v);
            return Ok(());
        };
        let items = iterate(self.eval_expr(&clause.iterable)?, clause.iterable.span)?;
        for item in items {
            let mut scope = self.clone();
            bind_targets(&mut scope, &clause.targets, item, span)?;
            let mut keep = true;
            for c in &clause.conditions {
                let v = scope.eval_expr(c)?;
                if !crate::interp::truthy(&v, c.span)? {
                    keep = false;
                    break;
                }
            }
            if keep {
                scope.clauses(element, rest, span, out)?;
            }
        }
        Ok(())
    }
}

/// True when `v` holds a lambda that captured a comprehension's loop variable: Python's
/// closure would see the variable's final value, kupfer's the value of this iteration.
fn escapes_loop(v: &Value) -> bool {
    match v {
        Value::Lambda(l) => l
            .locals
            .iter()
            .any(|(_, _, k)| *k == LocalKind::LoopVariable),
        Value::List(items) | Value::Tuple(items) => items.iter().any(escapes_loop),
        _ => false,
    }
}

/// Binds `targets` to `item` (unpacking it when there are several).
fn bind_targets(scope: &mut Session, targets: &[String], item: Value, span: Span) -> Result<()> {
    if let [one] = targets {
        scope.set_local(one, item, LocalKind::LoopVariable);
        return Ok(());
    }
    let parts = iterate(item, span)?;
    if parts.len() != targets.len() {
        let (what, n) = if parts.len() > targets.len() {
            ("too many values to unpack", targets.len())
        } else {
            ("not enough values to unpack", targets.len())
        };
        return Err(EvalError::value_error(
            span,
            format!("{what} (expected {n}, got {})", parts.len()),
        ));
    }
    for (t, v) in targets.iter().zip(parts) {
        scope.set_local(t, v, LocalKind::LoopVariable);
    }
    Ok(())
}

/// The items of an iterable value: a list's or tuple's items, an array's rows (0-d arrays
/// for a 1-D array).
pub(crate) fn iterate(v: Value, span: Span) -> Result<Vec<Value>> {
    match v.plain() {
        Value::List(items) | Value::Tuple(items) => Ok(items),
        Value::Str(s) => Ok(s.chars().map(|c| Value::Str(c.to_string())).collect()),
        // `a.flat` iterates over the C-order flattening.
        Value::FlatIter(a) => iterate(
            Value::Array(a.reshape(&[-1]).map_err(EvalError::kupfer(span))?),
            span,
        ),
        Value::Array(a) => {
            if a.ndim() == 0 {
                return Err(EvalError::type_error(span, "iteration over a 0-d array"));
            }
            (0..a.shape()[0])
                .map(|k| {
                    a.slice(&[kupfer::SliceArg::Index(k as isize)])
                        .map(Value::Array)
                        .map_err(EvalError::kupfer(span))
                })
                .collect()
        }
        other => Err(EvalError::type_error(
            span,
            format!("'{}' object is not iterable", other.type_name()),
        )),
    }
}

/// Calls `lambda` with positional `args` and keyword `kwargs` (Python's binding and its
/// errors).
pub(crate) fn call_lambda(
    lambda: &Lambda,
    args: Vec<Value>,
    kwargs: Vec<(String, Value)>,
    span: Span,
) -> Result<Value> {
    let n = lambda.params.len();
    if args.len() > n {
        return Err(EvalError::type_error(
            span,
            format!(
                "<lambda>() takes {n} positional argument{} but {} {} given",
                if n == 1 { "" } else { "s" },
                args.len(),
                if args.len() == 1 { "was" } else { "were" }
            ),
        ));
    }
    let mut bound: Vec<Option<Value>> = args.into_iter().map(Some).collect();
    bound.resize(n, None);
    for (k, v) in kwargs {
        let Some(i) = lambda.params.iter().position(|p| *p == k) else {
            return Err(EvalError::type_error(
                span,
                format!("<lambda>() got an unexpected keyword argument '{k}'"),
            ));
        };
        if bound[i].is_some() {
            return Err(EvalError::type_error(
                span,
                format!("<lambda>() got multiple values for argument '{k}'"),
            ));
        }
        bound[i] = Some(v);
    }
    let missing: Vec<String> = lambda
        .params
        .iter()
        .zip(&bound)
        .filter(|(_, v)| v.is_none())
        .map(|(p, _)| format!("'{p}'"))
        .collect();
    if !missing.is_empty() {
        return Err(EvalError::type_error(
            span,
            format!(
                "<lambda>() missing {} required positional argument{}: {}",
                missing.len(),
                if missing.len() == 1 { "" } else { "s" },
                missing.join(" and ")
            ),
        ));
    }
    let mut scope = lambda.scope.clone();
    for (p, v) in lambda.params.iter().zip(bound) {
        scope.set_local(p, v.unwrap_or(Value::None), LocalKind::Parameter);
    }
    let depth = CALL_DEPTH.with(|d| d.get());
    if depth >= MAX_CALL_DEPTH {
        return Err(EvalError::value_error(
            span,
            "maximum recursion depth exceeded",
        ));
    }
    CALL_DEPTH.with(|d| d.set(depth + 1));
    let r = scope.eval_expr(&lambda.body);
    CALL_DEPTH.with(|d| d.set(depth));
    r
}

/// Calls any callable value (a lambda, a NumPy function, a method, a dtype, ...).
pub(crate) fn call_value(
    callee: Value,
    args: Vec<Value>,
    kwargs: Vec<(String, Value)>,
    span: Span,
) -> Result<Value> {
    crate::interp::call_value(callee, args, kwargs, span, span)
}

/// `np.vectorize(pyfunc, otypes=)`: the function and its output dtype, if fixed.
#[derive(Debug, Clone)]
pub struct Vectorized {
    /// The function called per element.
    pub(crate) func: Value,
    /// `otypes=[d]`: the result's dtype (else the first call's).
    pub(crate) otype: Option<kupfer::DType>,
}

/// Calls a vectorized function: the positional arguments broadcast together, `func` called
/// once per element (in C order, with 0-d arrays), the results stacked into the broadcast
/// shape in the first result's dtype (or `otypes`'s).
pub(crate) fn call_vectorized(
    v: &Vectorized,
    args: Vec<Value>,
    kwargs: Vec<(String, Value)>,
    span: Span,
) -> Result<Value> {
    let k = EvalError::kupfer(span);
    if !kwargs.is_empty() {
        return Err(EvalError::not_supported(
            span,
            "keyword arguments of a vectorized function",
        ));
    }
    let arrays = args
        .iter()
        .map(|a| crate::functions::to_array(a, None, span))
        .collect::<Result<Vec<_>>>()?;
    let broadcast = kupfer::broadcast_arrays(&arrays).map_err(k)?;
    let shape: Vec<usize> = broadcast.first().map_or(Vec::new(), |a| a.shape().to_vec());
    let size: usize = shape.iter().product();
    let target: Vec<isize> = shape.iter().map(|&d| d as isize).collect();
    if size == 0 {
        let Some(d) = v.otype else {
            return Err(EvalError::value_error(
                span,
                "cannot call `vectorize` on size 0 inputs unless `otypes` is set",
            ));
        };
        return Ok(Value::Array(
            kupfer::zeros(&shape, Some(d)).map_err(EvalError::kupfer(span))?,
        ));
    }
    if size > MAX_ITEMS {
        return Err(EvalError::not_supported(
            span,
            format!("a vectorized call over more than {MAX_ITEMS} elements"),
        ));
    }
    let flat = broadcast
        .iter()
        .map(|a| a.reshape(&[-1]))
        .collect::<kupfer::Result<Vec<_>>>()
        .map_err(EvalError::kupfer(span))?;
    let mut results = Vec::with_capacity(size);
    for i in 0..size {
        let items = flat
            .iter()
            .map(|a| {
                a.slice(&[kupfer::SliceArg::Index(i as isize)])
                    .map(Value::Array)
                    .map_err(EvalError::kupfer(span))
            })
            .collect::<Result<Vec<_>>>()?;
        let r = call_value(v.func.clone(), items, Vec::new(), span)?;
        if matches!(r, Value::Tuple(_)) {
            return Err(EvalError::not_supported(
                span,
                "a vectorized function with several outputs",
            ));
        }
        let r = crate::functions::to_array(&r, None, span)?;
        if r.ndim() != 0 {
            return Err(EvalError::value_error(
                span,
                "setting an array element with a sequence.",
            ));
        }
        results.push(r);
    }
    let d = v.otype.unwrap_or(results[0].dtype());
    let results = results
        .iter()
        .map(|r| r.astype(d))
        .collect::<kupfer::Result<Vec<_>>>()
        .map_err(EvalError::kupfer(span))?;
    let stacked = kupfer::stack(&results, 0, None).map_err(EvalError::kupfer(span))?;
    Ok(Value::Array(
        stacked.reshape(&target).map_err(EvalError::kupfer(span))?,
    ))
}
