//! `a.flat` ([`Value::FlatIter`]): NumPy's flat iterator, indexed as the C-order flattening
//! of `a`. Reads copy (as NumPy's do); assignment writes into `a` itself, with the value
//! flattened and repeated to fill the selection as NumPy's `flatiter` assignment does
//! (`a.flat[[0, 2, 4]] = [1, 2]` writes 1, 2, 1).

use crate::ast::Span;
use crate::error::{EvalError, Result};
use crate::value::Value;
use kupfer::{Array, Index, Operand};

/// The flattening of `a` (a view where `a` is C-contiguous).
fn flattened(a: &Array, span: Span) -> Result<Array> {
    a.reshape(&[-1]).map_err(EvalError::kupfer(span))
}

/// NumPy's flatiter takes one index: an integer, a slice, `...`, or an integer or boolean
/// array (a tuple of several is refused).
fn check_index(index: &Value, span: Span) -> Result<()> {
    match index {
        Value::Tuple(items) if items.len() > 1 => Err(EvalError::value_error(
            span,
            format!(
                "too many indices for flat iterator: flat iterator is 1-dimensional, but {} \
                 were indexed",
                items.len()
            ),
        )),
        _ => Ok(()),
    }
}

/// `a.flat[index]`: the flattening indexed by `index`, as a new array.
pub(crate) fn read(
    a: &Array,
    index: Value,
    span: Span,
    subscript: impl FnOnce(Value, Value, Span) -> Result<Value>,
) -> Result<Value> {
    check_index(&index, span)?;
    match subscript(Value::Array(flattened(a, span)?), index, span)? {
        Value::Array(r) => Ok(Value::Array(r.copy().map_err(EvalError::kupfer(span))?)),
        other => Ok(other),
    }
}

/// `a.flat[entries] = value`: `value` flattened and repeated to the selection's size, written
/// into `a` (through a C-order copy written back where `a` is not contiguous).
pub(crate) fn write(
    a: &Array,
    index: &Value,
    entries: &[Index],
    value: Operand,
    span: Span,
) -> Result<()> {
    check_index(index, span)?;
    let k = EvalError::kupfer(span);
    let flat = a.flatten().map_err(k)?;
    let selected = crate::program::wait(flat.get_async(entries), "a.flat[...] read")
        .map_err(EvalError::kupfer(span))?;
    let value = match value {
        Operand::Array(v) if v.size() > 0 => {
            let v = v.reshape(&[-1]).map_err(EvalError::kupfer(span))?;
            let n = selected.size();
            let picked = if v.size() == n {
                v
            } else {
                // Indices 0..n wrapped around the value's length repeat it.
                let cycle = Operand::Array(
                    kupfer::arange(0i64, n as i64, 1i64, None).map_err(EvalError::kupfer(span))?,
                );
                crate::program::wait(
                    kupfer::take_async(&v, &cycle, None, kupfer::TakeMode::Wrap),
                    "a.flat[...] = value",
                )
                .map_err(EvalError::kupfer(span))?
            };
            Operand::Array(
                picked
                    .reshape(
                        &selected
                            .shape()
                            .iter()
                            .map(|&d| d as isize)
                            .collect::<Vec<_>>(),
                    )
                    .map_err(EvalError::kupfer(span))?,
            )
        }
        v => v,
    };
    crate::program::wait(flat.set_async(entries, value), "assignment through a.flat")
        .map_err(EvalError::kupfer(span))?;
    let shape: Vec<isize> = a.shape().iter().map(|&d| d as isize).collect();
    let back = flat.reshape(&shape).map_err(EvalError::kupfer(span))?;
    kupfer::copyto(a, &back, kupfer::Casting::Unsafe, None).map_err(EvalError::kupfer(span))
}
