//! Programs: statements separated by newlines or `;` — `name = expr` (also chained and with
//! tuple unpacking), `a[idx] = expr`, augmented assignment (`a[m] += 1`, `x *= 2`) — whose
//! last expression is the result.
//!
//! Assignment through an index writes in place (every view of the array sees it, as in
//! NumPy). `a[m] = f(a[m], b[m], ...)` where `m` is a boolean mask of `a`'s shape and `f` is
//! elementwise over reads indexed by the same `m` (the seed's Mandelbrot update
//! `Z[mask] = Z[mask] * Z[mask] + C[mask]`) runs as ONE kernel over the array
//! (`Array::update_masked`): the masked reads are replaced by the whole arrays and the
//! result is written where the mask is set.
//!
//! `print(...)` is a statement: its arguments are evaluated and formatted as Python's `str()`
//! (arrays read back, as NumPy prints them) and collected in the session
//! ([`Session::take_printed`]); `kupfer eval` writes them to stdout before the result.

use crate::ast::{BinOp, Expr, ExprKind, Span, Stmt};
use crate::error::{EvalError, Result};
use crate::interp::{binary_value, index_entries, Session};
use crate::value::Value;
use kupfer::{Array, Index, Operand};

/// Waits for an eval future natively; in the browser only when it needs no read-back.
pub(crate) fn block_on_eval<T>(fut: impl std::future::Future<Output = Result<T>>) -> Result<T> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        pollster_like::block_on(fut)
    }
    #[cfg(target_arch = "wasm32")]
    {
        let mut fut = std::pin::pin!(fut);
        let waker = std::task::Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        match fut.as_mut().poll(&mut cx) {
            std::task::Poll::Ready(r) => r,
            std::task::Poll::Pending => Err(EvalError::not_supported(
                Span::default(),
                "an assert message that reads an array back, in the browser",
            )),
        }
    }
}

/// Waits for an indexing future: natively by blocking; in the browser only when it needs no
/// read-back (else a clear error: masks and device index arrays read a value back).
pub(crate) fn wait<T>(
    fut: impl std::future::Future<Output = kupfer::Result<T>>,
    what: &str,
) -> kupfer::Result<T> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = what;
        pollster_like::block_on(fut)
    }
    #[cfg(target_arch = "wasm32")]
    {
        let mut fut = std::pin::pin!(fut);
        let waker = std::task::Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        match fut.as_mut().poll(&mut cx) {
            std::task::Poll::Ready(r) => r,
            std::task::Poll::Pending => Err(kupfer::Error::unsupported(format!(
                "{what} in the browser (it reads a value back from the GPU before it can go on)"
            ))),
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod pollster_like {
    /// Blocks on a future (kupfer's read-backs complete on their own: the device is polled
    /// inside them).
    pub(crate) fn block_on<F: std::future::Future>(fut: F) -> F::Output {
        use std::task::{Context, Poll, Wake, Waker};
        struct Thread(std::thread::Thread);
        impl Wake for Thread {
            fn wake(self: std::sync::Arc<Self>) {
                self.0.unpark();
            }
        }
        let waker = Waker::from(std::sync::Arc::new(Thread(std::thread::current())));
        let mut cx = Context::from_waker(&waker);
        let mut fut = std::pin::pin!(fut);
        loop {
            match fut.as_mut().poll(&mut cx) {
                Poll::Ready(v) => return v,
                Poll::Pending => std::thread::park(),
            }
        }
    }
}

/// NumPy's ufunc name of an operator (for the in-place casting message).
fn ufunc_name(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "add",
        BinOp::Sub => "subtract",
        BinOp::Mul => "multiply",
        BinOp::Div => "divide",
        BinOp::FloorDiv => "floor_divide",
        BinOp::Mod => "remainder",
        BinOp::Pow => "power",
        BinOp::MatMul => "matmul",
        BinOp::BitAnd => "bitwise_and",
        BinOp::BitOr => "bitwise_or",
        BinOp::BitXor => "bitwise_xor",
        BinOp::LShift => "left_shift",
        BinOp::RShift => "right_shift",
    }
}

fn same_kind(result: kupfer::DType, to: kupfer::DType, op: BinOp, span: Span) -> Result<()> {
    if kupfer::can_cast(result, to, kupfer::Casting::SameKind) {
        Ok(())
    } else {
        Err(EvalError::type_error(
            span,
            format!(
                "Cannot cast ufunc '{}' output from dtype('{result}') to dtype('{to}') with \
                 casting rule 'same_kind'",
                ufunc_name(op)
            ),
        ))
    }
}

fn operand(v: Value, span: Span) -> Result<Operand> {
    match v {
        Value::Array(a) => Ok(Operand::Array(a)),
        Value::Scalar(s) => Ok(Operand::Scalar(s)),
        Value::List(_) | Value::Tuple(_) => {
            Ok(Operand::Array(crate::functions::to_array(&v, None, span)?))
        }
        other => Err(EvalError::type_error(
            span,
            format!(
                "could not convert '{}' to an array value",
                other.type_name()
            ),
        )),
    }
}

impl Session {
    /// Parses and runs a program (statements separated by newlines or `;`); the value of
    /// its last statement when that is an expression, else `None`.
    ///
    /// ```no_run
    /// let mut s = kupfer_eval::Session::new();
    /// let v = s.run("a = np.arange(5.0); a[a > 2] = 0; a[[0, 1]] += 10; a")?;
    /// assert_eq!(v.to_host()?.to_string(), "[10. 11.  2.  0.  0.]");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run(&mut self, src: &str) -> Result<Value> {
        let program = crate::parser::parse_program(src)?;
        let mut last = Value::None;
        for stmt in &program {
            last = self.exec(stmt, src)?;
        }
        Ok(last)
    }

    /// Takes what the program's `print(...)` statements wrote (each call's arguments as
    /// Python's `str()` shows them, joined by `sep`, ended by `end`), leaving none. The CLI
    /// writes it to stdout before the result.
    ///
    /// ```no_run
    /// let mut s = kupfer_eval::Session::new();
    /// s.run("a = np.arange(3); print(a, 'x', sep=', ')")?;
    /// assert_eq!(s.take_printed(), "[0 1 2], x\n");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn take_printed(&mut self) -> String {
        std::mem::take(&mut self.printed)
    }

    /// A `print(...)` statement: its arguments evaluated and formatted as Python's `str()`
    /// (arrays as NumPy prints them, one read-back each), appended to [`Session::printed`].
    fn print(&mut self, args: &[Expr], keywords: &[crate::ast::Keyword], span: Span) -> Result<()> {
        let mut sep = " ".to_string();
        let mut end = "\n".to_string();
        for k in keywords {
            let v = self.eval_expr(&k.value)?;
            let slot = match k.name.as_str() {
                "sep" => &mut sep,
                "end" => &mut end,
                "flush" => continue,
                "file" if matches!(v, Value::None) => continue,
                "file" => {
                    return Err(EvalError::not_supported(span, "print(file=...)"));
                }
                other => {
                    return Err(EvalError::type_error(
                        span,
                        format!("'{other}' is an invalid keyword argument for print()"),
                    ))
                }
            };
            match v {
                Value::Str(s) => *slot = s,
                Value::None => {}
                other => {
                    return Err(EvalError::type_error(
                        span,
                        format!(
                            "{} must be None or a string, not {}",
                            k.name,
                            other.type_name()
                        ),
                    ))
                }
            }
        }
        let mut parts = Vec::with_capacity(args.len());
        for a in args {
            let text = match self.eval_expr(a)? {
                Value::Str(s) => s,
                other => block_on_eval(other.to_host_async())?.to_string(),
            };
            parts.push(text);
        }
        self.printed.push_str(&parts.join(&sep));
        self.printed.push_str(&end);
        Ok(())
    }

    fn exec(&mut self, stmt: &Stmt, src: &str) -> Result<Value> {
        match stmt {
            // `print(...)` as a statement (unless a variable is named `print`).
            Stmt::Expr(Expr {
                kind:
                    ExprKind::Call {
                        func,
                        args,
                        keywords,
                    },
                span,
            }) if matches!(&func.kind, ExprKind::Name(n) if n == "print")
                && !self.is_bound("print") =>
            {
                self.print(args, keywords, *span)?;
                Ok(Value::None)
            }
            Stmt::Expr(e) => self.eval_expr(e),
            Stmt::Assert { test, message } => {
                let v = self.eval_expr(test)?;
                if crate::interp::truthy(&v, test.span)? {
                    return Ok(Value::None);
                }
                let text = match message {
                    None => String::new(),
                    Some(m) => match self.eval_expr(m)? {
                        Value::Str(s) => format!(": {s}"),
                        other => {
                            let host = crate::program::block_on_eval(other.to_host_async())?;
                            format!(": {}", host.repr())
                        }
                    },
                };
                Err(EvalError::value_error(
                    test.span,
                    format!("AssertionError{text}"),
                ))
            }
            Stmt::Assign { targets, value } => {
                if let [t] = targets.as_slice() {
                    if let ExprKind::Subscript { value: obj, index } = &t.kind {
                        self.assign_subscript(obj, index, value, None, src)
                            .map_err(|e| e.at(t.span))?;
                        return Ok(Value::None);
                    }
                }
                let v = self.eval_keep_named(value)?;
                for t in targets {
                    self.assign(t, v.clone())?;
                }
                Ok(Value::None)
            }
            Stmt::AugAssign { target, op, value } => {
                match &target.kind {
                    ExprKind::Subscript { value: obj, index } => {
                        self.assign_subscript(obj, index, value, Some(*op), src)
                            .map_err(|e| e.at(target.span))?;
                    }
                    ExprKind::Name(n) => {
                        let old = self.eval_expr(target)?;
                        let v = self.eval_expr(value)?;
                        let span = target.span.to(value.span);
                        match old {
                            Value::Array(a) => {
                                // In place, as NumPy's `a += v` (views see it).
                                let new = binary_value(*op, Value::Array(a.clone()), v, span)?;
                                let Value::Array(new) = new else {
                                    return Err(EvalError::type_error(
                                        span,
                                        "in-place operation result is not an array",
                                    ));
                                };
                                same_kind(new.dtype(), a.dtype(), *op, span)?;
                                if new.shape() != a.shape() {
                                    return Err(EvalError::value_error(
                                        span,
                                        format!(
                                            "non-broadcastable output operand with shape {:?} \
                                             doesn't match the broadcast shape {:?}",
                                            a.shape(),
                                            new.shape()
                                        ),
                                    ));
                                }
                                wait(
                                    a.set_async(&[Index::Basic(kupfer::SliceArg::Ellipsis)], new),
                                    "in-place assignment",
                                )
                                .map_err(EvalError::kupfer(span))?;
                            }
                            other => {
                                let new = binary_value(*op, other, v, span)?;
                                self.set(n.clone(), new);
                            }
                        }
                    }
                    ExprKind::Attribute { value: obj, attr } => {
                        // `a.real += v`: the part read, combined, cast as NumPy's in-place
                        // operators cast (same kind) and written back through the part.
                        let span = target.span.to(value.span);
                        let base = self.eval_expr(obj)?;
                        let old = self.eval_expr(target)?;
                        let v = self.eval_expr(value)?;
                        let new = binary_value(*op, old.clone(), v, span)?;
                        match (base, old, &new) {
                            (Value::Array(base), Value::Array(old), Value::Array(n))
                                if attr == "real" || attr == "imag" =>
                            {
                                same_kind(n.dtype(), old.dtype(), *op, span)?;
                                crate::functions::complex::set_part(&base, attr, new, span)?;
                            }
                            (base, _, _) => return Err(read_only_attribute(&base, attr, span)),
                        }
                    }
                    _ => {
                        return Err(EvalError::type_error(
                            target.span,
                            "illegal expression for augmented assignment",
                        ))
                    }
                }
                Ok(Value::None)
            }
        }
    }

    /// Binds a value to a target: a name, a subscript, or a tuple/list (unpacking).
    fn assign(&mut self, target: &Expr, v: Value) -> Result<()> {
        let span = target.span;
        match &target.kind {
            ExprKind::Name(n) => {
                self.set(n.clone(), v);
                Ok(())
            }
            ExprKind::Subscript { value: obj, index } => {
                let iv = self.eval_expr(index)?;
                let entries = index_entries(&iv, index.span)?;
                let value = operand(v.plain(), span)?;
                if let Value::FlatIter(a) = self.eval_expr(obj)? {
                    return crate::functions::flat::write(&a, &iv, &entries, value, span);
                }
                let a = self.target_array(obj)?;
                wait(a.set_async(&entries, value), "assignment through an index")
                    .map_err(EvalError::kupfer(span))
            }
            ExprKind::Attribute { value: obj, attr } => match (self.eval_expr(obj)?, &obj.kind) {
                (Value::Array(base), _) if attr == "real" || attr == "imag" => {
                    crate::functions::complex::set_part(&base, attr, v.plain(), span)
                }
                (Value::Array(base), _) if attr == "flat" => {
                    // `a.flat = v`: every element in C order, `v` repeated as needed.
                    let all = [Index::Basic(kupfer::SliceArg::Ellipsis)];
                    let value = operand(v.plain(), span)?;
                    crate::functions::flat::write(&base, &Value::Ellipsis, &all, value, span)
                }
                (Value::Array(base), ExprKind::Name(_)) if attr == "shape" => {
                    self.set_shape(&base, &v.plain(), span)
                }
                (base, _) => Err(read_only_attribute(&base, attr, span)),
            },
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                let values: Vec<Value> = match v.plain() {
                    Value::Tuple(vs) | Value::List(vs) => vs,
                    Value::Array(a) if a.ndim() > 0 => (0..a.shape()[0])
                        .map(|k| {
                            a.slice(&[kupfer::SliceArg::Index(k as isize)])
                                .map(Value::Array)
                                .map_err(EvalError::kupfer(span))
                        })
                        .collect::<Result<_>>()?,
                    other => {
                        return Err(EvalError::type_error(
                            span,
                            format!(
                                "cannot unpack non-iterable {} object",
                                match &other {
                                    Value::Scalar(s) => crate::pyscalar::type_name(s),
                                    o => o.type_name(),
                                }
                            ),
                        ))
                    }
                };
                if values.len() > items.len() {
                    return Err(EvalError::value_error(
                        span,
                        format!(
                            "too many values to unpack (expected {}, got {})",
                            items.len(),
                            values.len()
                        ),
                    ));
                }
                if values.len() < items.len() {
                    return Err(EvalError::value_error(
                        span,
                        format!(
                            "not enough values to unpack (expected {}, got {})",
                            items.len(),
                            values.len()
                        ),
                    ));
                }
                for (t, v) in items.iter().zip(values) {
                    self.assign(t, v)?;
                }
                Ok(())
            }
            _ => Err(EvalError::type_error(
                span,
                "cannot assign to this expression",
            )),
        }
    }

    fn target_array(&self, obj: &Expr) -> Result<Array> {
        match self.eval_expr(obj)? {
            Value::Array(a) => Ok(a),
            other => Err(EvalError::type_error(
                obj.span,
                format!(
                    "'{}' object does not support item assignment",
                    match &other {
                        Value::Scalar(s) => crate::pyscalar::type_name(s),
                        o => o.type_name(),
                    }
                ),
            )),
        }
    }

    /// `obj[index] = value` or `obj[index] op= value`.
    fn assign_subscript(
        &mut self,
        obj: &Expr,
        index: &Expr,
        value: &Expr,
        op: Option<BinOp>,
        src: &str,
    ) -> Result<()> {
        let span = obj.span.to(value.span);
        // `a.real[i] = v`, `a.imag[m] += 1`: written into a copy of the part, which is then
        // written back through it (NumPy writes through the part's view).
        let part = self.part_of(obj)?;
        let flat_of = match self.eval_expr(obj)? {
            Value::FlatIter(a) => Some(a),
            _ => None,
        };
        let a = match (&flat_of, &part) {
            (Some(a), _) => a.clone(),
            (None, Some((base, attr))) => {
                if !base.dtype().is_complex() && *attr == "imag" {
                    return Err(EvalError::value_error(
                        span,
                        "assignment destination is read-only",
                    ));
                }
                self.target_array(obj)?
                    .copy()
                    .map_err(EvalError::kupfer(span))?
            }
            (None, None) => self.target_array(obj)?,
        };
        self.write_subscript(obj, index, value, op, src, flat_of, &a, span)?;
        match part {
            Some((base, attr)) => {
                crate::functions::complex::set_part(&base, attr, Value::Array(a), span)
            }
            None => Ok(()),
        }
    }

    /// `a.shape = s`: NumPy reshapes the array object in place, which works only where no
    /// copy is needed; here every name bound to that array (Python's `b = a` aliases) is
    /// rebound to the reshaped view, so they all see the new shape.
    fn set_shape(&mut self, base: &Array, v: &Value, span: Span) -> Result<()> {
        let shape = crate::functions::shape::to_new_shape(v, "shape", span)?;
        let k = EvalError::kupfer(span);
        let reshaped = base.reshape(&shape).map_err(k)?;
        let layout = base.layout().map_err(EvalError::kupfer(span))?;
        if layout.reshape_view(reshaped.shape()).is_none() {
            return Err(EvalError::value_error(
                span,
                "Incompatible shape for in-place modification. Use `.reshape()` to make a \
                 copy with the desired shape.",
            ));
        }
        let aliases: Vec<String> = self
            .names()
            .into_iter()
            .filter(|n| matches!(self.get(n), Some(Value::Array(a)) if a.same_handle(base)))
            .map(str::to_string)
            .collect();
        for n in aliases {
            self.set(n, Value::Array(reshaped.clone()));
        }
        Ok(())
    }

    /// The array and part (`"real"` or `"imag"`) when `obj` is `array.real` or `array.imag`.
    fn part_of(&self, obj: &Expr) -> Result<Option<(Array, &'static str)>> {
        let ExprKind::Attribute { value, attr } = &obj.kind else {
            return Ok(None);
        };
        let attr = match attr.as_str() {
            "real" => "real",
            "imag" => "imag",
            _ => return Ok(None),
        };
        Ok(match self.eval_expr(value)? {
            Value::Array(base) => Some((base, attr)),
            _ => None,
        })
    }

    /// The write of [`Self::assign_subscript`] into `a` (the target array, or the flat
    /// iterator's array).
    #[allow(clippy::too_many_arguments)]
    fn write_subscript(
        &mut self,
        obj: &Expr,
        index: &Expr,
        value: &Expr,
        op: Option<BinOp>,
        src: &str,
        flat_of: Option<Array>,
        a: &Array,
        span: Span,
    ) -> Result<()> {
        let iv = self.eval_expr(index)?;
        let entries = index_entries(&iv, index.span)?;
        // The right-hand side: `value`, or `obj[index] op value`.
        let read = Expr {
            kind: ExprKind::Subscript {
                value: Box::new(obj.clone()),
                index: Box::new(index.clone()),
            },
            span: obj.span.to(index.span),
        };
        let rhs = match op {
            None => value.clone(),
            Some(op) => Expr {
                kind: ExprKind::Binary {
                    op,
                    left: Box::new(read),
                    right: Box::new(value.clone()),
                },
                span,
            },
        };
        if let Some(a) = flat_of {
            let value = operand(self.eval_expr(&rhs)?, span)?;
            return crate::functions::flat::write(&a, &iv, &entries, value, span);
        }
        drop(iv);
        // The fused masked update: a full-rank boolean mask and masked reads in the value.
        if let [Index::Array(m)] = entries.as_slice() {
            if m.dtype() == kupfer::DType::Bool && m.ndim() == a.ndim() {
                let key = text(src, index.span);
                let mut reads = Vec::new();
                if self.fusable(&rhs, &key, src, m.shape(), &mut reads)? && !reads.is_empty() {
                    let result = self.eval_substituted(&rhs, &key, src, &reads)?;
                    return self.finish_masked(a, m, result, op, span);
                }
            }
        }
        let v = self.eval_expr(&rhs)?;
        if let (Some(op), Value::Array(r)) = (op, &v) {
            same_kind(r.dtype(), a.dtype(), op, span)?;
        }
        let value = operand(v, span)?;
        wait(a.set_async(&entries, value), "assignment through an index")
            .map_err(EvalError::kupfer(span))
    }

    fn finish_masked(
        &self,
        a: &Array,
        mask: &Array,
        result: Value,
        op: Option<BinOp>,
        span: Span,
    ) -> Result<()> {
        let r = match result {
            Value::Array(r) => r,
            Value::Scalar(s) => kupfer::full_on(a.device(), a.shape(), s, Some(a.dtype()))
                .map_err(EvalError::kupfer(span))?,
            other => {
                return Err(EvalError::type_error(
                    span,
                    format!("cannot assign a '{}'", other.type_name()),
                ))
            }
        };
        if let Some(op) = op {
            same_kind(r.dtype(), a.dtype(), op, span)?;
        }
        let r = if kupfer::can_cast(r.dtype(), a.dtype(), kupfer::Casting::SameKind) {
            r
        } else {
            // Plain assignment casts as NumPy's does (unsafe).
            r.astype(a.dtype()).map_err(EvalError::kupfer(span))?
        };
        a.update_masked(mask, move |_| Ok(r))
            .map_err(EvalError::kupfer(span))
    }

    /// True when `e` is elementwise over reads `X[key]` of arrays of `shape` and scalars
    /// (collecting the read expressions).
    fn fusable(
        &self,
        e: &Expr,
        key: &str,
        src: &str,
        shape: &[usize],
        reads: &mut Vec<Expr>,
    ) -> Result<bool> {
        Ok(match &e.kind {
            ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Imag(_) | ExprKind::Bool(_) => true,
            ExprKind::Name(n) => match self.get(n) {
                Some(Value::Array(a)) => a.ndim() == 0,
                Some(Value::Scalar(_)) => true,
                _ => false,
            },
            ExprKind::Subscript { value, index } if text(src, index.span) == key => {
                match self.eval_expr(value)? {
                    Value::Array(a) if a.shape() == shape => {
                        reads.push((**value).clone());
                        true
                    }
                    _ => false,
                }
            }
            ExprKind::Unary { operand, .. } => self.fusable(operand, key, src, shape, reads)?,
            ExprKind::Binary { op, left, right } => {
                *op != BinOp::MatMul
                    && self.fusable(left, key, src, shape, reads)?
                    && self.fusable(right, key, src, shape, reads)?
            }
            ExprKind::Compare { left, rest } => {
                let mut ok = self.fusable(left, key, src, shape, reads)?;
                for (_, r) in rest {
                    ok = ok && self.fusable(r, key, src, shape, reads)?;
                }
                ok && rest.len() == 1
            }
            ExprKind::Call {
                func,
                args,
                keywords,
            } if keywords.is_empty() => {
                let elementwise = match func.dotted_name() {
                    Some(name) => {
                        let short = name.rsplit('.').next().unwrap_or(&name).to_string();
                        crate::functions::is_ufunc(&short) || short == "where"
                    }
                    None => false,
                };
                let mut ok = elementwise;
                for a in args {
                    ok = ok && self.fusable(a, key, src, shape, reads)?;
                }
                ok
            }
            _ => false,
        })
    }

    /// Evaluates `e` with every masked read `X[key]` replaced by `X` itself.
    fn eval_substituted(
        &mut self,
        e: &Expr,
        key: &str,
        src: &str,
        reads: &[Expr],
    ) -> Result<Value> {
        let _ = reads;
        let mut names = Vec::new();
        let rewritten = self.substitute(e, key, src, &mut names)?;
        let result = self.eval_expr(&rewritten);
        for n in names {
            self.remove(&n);
        }
        result
    }

    fn substitute(
        &mut self,
        e: &Expr,
        key: &str,
        src: &str,
        names: &mut Vec<String>,
    ) -> Result<Expr> {
        let mut out = e.clone();
        let kind = match &e.kind {
            ExprKind::Subscript { value, index } if text(src, index.span) == key => {
                let v = self.eval_expr(value)?;
                let name = format!("__kupfer_masked_{}", names.len());
                self.set(name.clone(), v);
                names.push(name.clone());
                ExprKind::Name(name)
            }
            ExprKind::Unary { op, operand } => ExprKind::Unary {
                op: *op,
                operand: Box::new(self.substitute(operand, key, src, names)?),
            },
            ExprKind::Binary { op, left, right } => ExprKind::Binary {
                op: *op,
                left: Box::new(self.substitute(left, key, src, names)?),
                right: Box::new(self.substitute(right, key, src, names)?),
            },
            ExprKind::Compare { left, rest } => ExprKind::Compare {
                left: Box::new(self.substitute(left, key, src, names)?),
                rest: rest
                    .iter()
                    .map(|(op, r)| Ok((*op, self.substitute(r, key, src, names)?)))
                    .collect::<Result<_>>()?,
            },
            ExprKind::Call {
                func,
                args,
                keywords,
            } => ExprKind::Call {
                func: func.clone(),
                args: args
                    .iter()
                    .map(|a| self.substitute(a, key, src, names))
                    .collect::<Result<_>>()?,
                keywords: keywords.clone(),
            },
            k => k.clone(),
        };
        out.kind = kind;
        Ok(out)
    }
}

/// The source text of `span` without whitespace (to compare index expressions).
fn text(src: &str, span: Span) -> String {
    src.get(span.start..span.end)
        .unwrap_or("")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

/// NumPy's error for assigning to a read-only attribute of an array; other attribute
/// assignments (`a.dtype = ...`, `a.strides = ...`, attributes of other values) are refused.
fn read_only_attribute(base: &Value, attr: &str, span: Span) -> EvalError {
    const READ_ONLY: &[&str] = &[
        "ndim", "size", "T", "mT", "itemsize", "nbytes", "base", "device", "ctypes", "data",
    ];
    if matches!(base, Value::Array(_)) && READ_ONLY.contains(&attr) {
        return EvalError::type_error(
            span,
            format!("attribute '{attr}' of 'numpy.ndarray' objects is not writable"),
        );
    }
    let ty = match base {
        Value::Scalar(s) => crate::pyscalar::type_name(s),
        o => o.type_name(),
    };
    EvalError::not_supported(
        span,
        format!("assignment to the attribute '{attr}' of a '{ty}'"),
    )
}
