//! Bit packing: `packbits` and `unpackbits` (kupfer's `bits` module).

use super::{Args, Call, Registry};
use crate::error::{EvalError, Result};
use crate::value::Value;
use kupfer::BitOrder;

pub(super) fn register(r: &mut Registry) {
    r.native(&["packbits"], packbits);
    r.native(&["unpackbits"], unpackbits);
}

/// `axis=` (`None` or one int) and `bitorder=`.
fn axis_and_order(a: &mut Args) -> Result<(Option<isize>, BitOrder)> {
    let span = a.span();
    let axis = match a.get("axis") {
        None => None,
        Some(v) => Some(super::to_index_int(&v, span)? as isize),
    };
    let order = match a.string("bitorder")? {
        None => BitOrder::Big,
        Some(o) => BitOrder::parse(&o).map_err(EvalError::kupfer(span))?,
    };
    Ok((axis, order))
}

/// `packbits(a, /, axis=None, bitorder='big')`.
fn packbits(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a/", "axis=", "bitorder="])?;
    let x = a.array("a")?;
    let (axis, order) = axis_and_order(&mut a)?;
    let r = kupfer::packbits(&x, axis, order).map_err(EvalError::kupfer(span))?;
    Ok(Value::Array(r))
}

/// `unpackbits(a, /, axis=None, count=None, bitorder='big')`.
fn unpackbits(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a/", "axis=", "count=", "bitorder="])?;
    let x = a.array("a")?;
    let count = match a.get("count") {
        None => None,
        Some(v) => Some(super::to_index_int(&v, span)?),
    };
    let (axis, order) = axis_and_order(&mut a)?;
    let r = kupfer::unpackbits(&x, axis, count, order).map_err(EvalError::kupfer(span))?;
    Ok(Value::Array(r))
}
