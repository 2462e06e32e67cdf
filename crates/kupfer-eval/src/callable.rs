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

/// `np.vectorize(pyfunc, otypes=, excluded=, signature=)`: the function, its output dtypes
/// if fixed, the arguments passed through unvectorized and the gufunc signature.
#[derive(Debug, Clone)]
pub struct Vectorized {
    /// The function called per element (or per core slice with a signature).
    pub(crate) func: Value,
    /// `otypes=`: the outputs' dtypes (else each first result's).
    pub(crate) otypes: Option<Vec<kupfer::DType>>,
    /// `excluded=`: positions and keyword names passed to `func` as they are.
    pub(crate) excluded: Excluded,
    /// `signature=`: core dimensions of the inputs and outputs.
    pub(crate) signature: Option<Signature>,
}

/// The arguments `np.vectorize(excluded=)` leaves unvectorized.
#[derive(Debug, Clone, Default)]
pub(crate) struct Excluded {
    pub(crate) positions: Vec<usize>,
    pub(crate) names: Vec<String>,
}

/// A generalized ufunc signature, `(m,n),(n)->(m)`: the core dimension names of each input
/// and each output.
#[derive(Debug, Clone)]
pub(crate) struct Signature {
    pub(crate) inputs: Vec<Vec<String>>,
    pub(crate) outputs: Vec<Vec<String>>,
}

impl Signature {
    /// NumPy's `_parse_gufunc_signature`: whitespace ignored, names are `\w+`.
    pub(crate) fn parse(text: &str) -> Option<Signature> {
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let (ins, outs) = compact.split_once("->")?;
        Some(Signature {
            inputs: Self::argument_list(ins)?,
            outputs: Self::argument_list(outs)?,
        })
    }

    /// `(a,b),(c),()`: one list of names per argument.
    fn argument_list(text: &str) -> Option<Vec<Vec<String>>> {
        let mut args = Vec::new();
        let mut rest = text;
        loop {
            let body = rest.strip_prefix('(')?;
            let close = body.find(')')?;
            let names = &body[..close];
            let dims: Vec<String> = if names.is_empty() {
                Vec::new()
            } else {
                names.split(',').map(str::to_string).collect()
            };
            let word =
                |n: &String| !n.is_empty() && n.chars().all(|c| c.is_alphanumeric() || c == '_');
            if !dims.iter().all(word) {
                return None;
            }
            args.push(dims);
            rest = &body[close + 1..];
            if rest.is_empty() {
                return Some(args);
            }
            rest = rest.strip_prefix(',')?;
        }
    }
}

/// Python's repr of a tuple of core dimension names: `('n',)`, `('m', 'n')`.
fn dims_repr(dims: &[String]) -> String {
    match dims {
        [d] => format!("('{d}',)"),
        ds => format!(
            "({})",
            ds.iter()
                .map(|d| format!("'{d}'"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// NumPy's `_update_dim_sizes`: the trailing axes of `shape` named by `core` bind (or must
/// match) the sizes in `sizes`.
fn update_dim_sizes(
    sizes: &mut Vec<(String, usize)>,
    shape: &[usize],
    core: &[String],
    span: Span,
) -> Result<()> {
    if core.is_empty() {
        return Ok(());
    }
    if shape.len() < core.len() {
        return Err(EvalError::value_error(
            span,
            format!(
                "{}-dimensional argument does not have enough dimensions for all core \
                 dimensions {}",
                shape.len(),
                dims_repr(core)
            ),
        ));
    }
    for (dim, &size) in core.iter().zip(&shape[shape.len() - core.len()..]) {
        match sizes.iter().find(|(d, _)| d == dim) {
            Some(&(_, known)) if known != size => {
                return Err(EvalError::value_error(
                    span,
                    format!("inconsistent size for core dimension '{dim}': {size} vs {known}"),
                ))
            }
            Some(_) => {}
            None => sizes.push((dim.clone(), size)),
        }
    }
    Ok(())
}

/// Where a vectorized argument goes back in the call to `func`.
enum Slot {
    Position(usize),
    Keyword(String),
}

/// Calls a vectorized function as NumPy's `vectorize.__call__`: the arguments not in
/// `excluded` (positional, then keyword) broadcast together over their loop dimensions (all
/// of them, or those before the signature's core dimensions); `func` is called once per loop
/// index in C order with 0-d arrays (or the core slices), and each output stacks its results
/// in the loop shape (plus its core dimensions) in `otypes`'s dtype or its first result's.
pub(crate) fn call_vectorized(
    v: &Vectorized,
    args: Vec<Value>,
    kwargs: Vec<(String, Value)>,
    span: Span,
) -> Result<Value> {
    let k = EvalError::kupfer(span);
    // Split the vectorized arguments from those passed through.
    let mut slots = Vec::new();
    let mut vargs = Vec::new();
    for (i, a) in args.iter().enumerate() {
        if !v.excluded.positions.contains(&i) {
            slots.push(Slot::Position(i));
            vargs.push(a.clone());
        }
    }
    for (name, a) in &kwargs {
        if !v.excluded.names.contains(name) {
            slots.push(Slot::Keyword(name.clone()));
            vargs.push(a.clone());
        }
    }
    if vargs.is_empty() && v.signature.is_none() {
        return call_value(v.func.clone(), args, kwargs, span);
    }
    let call_with = |items: Vec<Value>| {
        let mut a = args.clone();
        let mut kw = kwargs.clone();
        for (slot, item) in slots.iter().zip(items) {
            match slot {
                Slot::Position(i) => a[*i] = item,
                Slot::Keyword(n) => {
                    if let Some(e) = kw.iter_mut().find(|(k, _)| k == n) {
                        e.1 = item;
                    }
                }
            }
        }
        call_value(v.func.clone(), a, kw, span)
    };
    let no_core = Vec::new();
    let (in_core, out_core): (Vec<Vec<String>>, Option<&Vec<Vec<String>>>) = match &v.signature {
        Some(sig) => {
            if vargs.len() != sig.inputs.len() {
                return Err(EvalError::type_error(
                    span,
                    format!(
                        "wrong number of positional arguments: expected {}, got {}",
                        sig.inputs.len(),
                        vargs.len()
                    ),
                ));
            }
            (sig.inputs.clone(), Some(&sig.outputs))
        }
        None => (vec![no_core; vargs.len()], None),
    };
    let arrays = vargs
        .iter()
        .map(|a| crate::functions::to_array(a, None, span))
        .collect::<Result<Vec<_>>>()?;
    // Core dimension sizes and the broadcast loop shape.
    let mut sizes: Vec<(String, usize)> = Vec::new();
    let mut loop_shape: Vec<usize> = Vec::new();
    for (a, core) in arrays.iter().zip(&in_core) {
        update_dim_sizes(&mut sizes, a.shape(), core, span)?;
        let outer = &a.shape()[..a.ndim() - core.len()];
        loop_shape =
            kupfer::broadcast_shapes(&loop_shape, outer).map_err(EvalError::kupfer(span))?;
    }
    let size: usize = loop_shape.iter().product();
    if size > MAX_ITEMS {
        return Err(EvalError::not_supported(
            span,
            format!("a vectorized call over more than {MAX_ITEMS} elements"),
        ));
    }
    // Each argument broadcast to the loop shape plus its core shape, its loop axes flattened.
    let flat = arrays
        .iter()
        .zip(&in_core)
        .map(|(a, core)| {
            let core_shape = &a.shape()[a.ndim() - core.len()..];
            let mut full = loop_shape.clone();
            full.extend_from_slice(core_shape);
            let mut flat_shape = vec![size as isize];
            flat_shape.extend(core_shape.iter().map(|&d| d as isize));
            a.broadcast_to(&full).and_then(|b| b.reshape(&flat_shape))
        })
        .collect::<kupfer::Result<Vec<_>>>()
        .map_err(k)?;
    let nout_fixed = match (out_core, &v.otypes) {
        (Some(o), _) => Some(o.len()),
        (None, Some(t)) => Some(t.len()),
        (None, None) => None,
    };
    let mut outputs: Vec<Vec<kupfer::Array>> = Vec::new();
    for i in 0..size {
        let items = flat
            .iter()
            .map(|a| {
                a.slice(&[kupfer::SliceArg::Index(i as isize)])
                    .map(Value::Array)
                    .map_err(EvalError::kupfer(span))
            })
            .collect::<Result<Vec<_>>>()?;
        let r = call_with(items)?;
        let results = match (r, out_core) {
            // With a signature, a tuple counts its entries as outputs (one output whose
            // result is a 1-tuple takes the tuple as its value).
            (Value::Tuple(t), Some(o)) if o.len() == 1 && t.len() == 1 => {
                vec![Value::Tuple(t)]
            }
            (Value::Tuple(t), _) => t,
            (r, _) => vec![r],
        };
        let nout = nout_fixed.unwrap_or(results.len());
        if results.len() != nout {
            return Err(EvalError::value_error(
                span,
                format!(
                    "wrong number of outputs from pyfunc: expected {nout}, got {}",
                    results.len()
                ),
            ));
        }
        let results = results
            .iter()
            .map(|r| crate::functions::to_array(r, None, span))
            .collect::<Result<Vec<_>>>()?;
        if outputs.is_empty() {
            for (j, r) in results.iter().enumerate() {
                match out_core {
                    Some(o) => update_dim_sizes(&mut sizes, r.shape(), &o[j], span)?,
                    None if r.ndim() != 0 => {
                        return Err(EvalError::value_error(
                            span,
                            "setting an array element with a sequence.",
                        ))
                    }
                    None => {}
                }
            }
            outputs = vec![Vec::with_capacity(size); nout];
        }
        for (j, r) in results.into_iter().enumerate() {
            outputs[j].push(r);
        }
    }
    let core_shape = |j: usize| -> Vec<usize> {
        out_core.map_or(Vec::new(), |o| {
            o[j].iter()
                .map(|d| sizes.iter().find(|(n, _)| n == d).map_or(0, |&(_, s)| s))
                .collect()
        })
    };
    if size == 0 {
        let Some(types) = &v.otypes else {
            return Err(EvalError::value_error(
                span,
                "cannot call `vectorize` on size 0 inputs unless `otypes` is set",
            ));
        };
        if let Some(o) = out_core {
            if o.iter()
                .flatten()
                .any(|d| !sizes.iter().any(|(n, _)| n == d))
            {
                return Err(EvalError::value_error(
                    span,
                    "cannot call `vectorize` with a signature including new output dimensions \
                     on size 0 inputs",
                ));
            }
        }
        let nout = nout_fixed.unwrap_or(types.len());
        let mut made = Vec::with_capacity(nout);
        for (j, d) in types.iter().enumerate().take(nout) {
            let mut shape = loop_shape.clone();
            shape.extend(core_shape(j));
            made.push(Value::Array(
                kupfer::zeros(&shape, Some(*d)).map_err(EvalError::kupfer(span))?,
            ));
        }
        return Ok(if made.len() == 1 {
            made.remove(0)
        } else {
            Value::Tuple(made)
        });
    }
    let mut made = Vec::with_capacity(outputs.len());
    for (j, results) in outputs.iter().enumerate() {
        let d = v
            .otypes
            .as_ref()
            .and_then(|t| t.get(j).copied())
            .unwrap_or(results[0].dtype());
        let core = core_shape(j);
        // Each result broadcast into its slot (as NumPy's `output[index] = result`).
        let cast = results
            .iter()
            .map(|r| {
                if kupfer::broadcast_shapes(r.shape(), &core).ok().as_deref() != Some(&core[..]) {
                    if core.is_empty() {
                        return Err(EvalError::value_error(
                            span,
                            "setting an array element with a sequence.",
                        ));
                    }
                    return Err(EvalError::value_error(
                        span,
                        format!(
                            "could not broadcast input array from shape {} into shape {}",
                            crate::functions::elementwise::shape_text(r.shape()),
                            crate::functions::elementwise::shape_text(&core)
                        ),
                    ));
                }
                r.astype(d)
                    .and_then(|r| r.broadcast_to(&core))
                    .map_err(EvalError::kupfer(span))
            })
            .collect::<Result<Vec<_>>>()?;
        let stacked = kupfer::stack(&cast, 0, None).map_err(EvalError::kupfer(span))?;
        let mut target: Vec<isize> = loop_shape.iter().map(|&d| d as isize).collect();
        target.extend(core.iter().map(|&d| d as isize));
        made.push(Value::Array(
            stacked.reshape(&target).map_err(EvalError::kupfer(span))?,
        ));
    }
    Ok(if made.len() == 1 {
        made.remove(0)
    } else {
        Value::Tuple(made)
    })
}
