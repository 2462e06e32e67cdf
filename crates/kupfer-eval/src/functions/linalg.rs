//! Matrix products. `@`, `np.matmul`, `np.dot` and `np.linalg.matmul` route here; kupfer's
//! matmul arrives with a later issue, until then they say so.

use super::{to_operand, Call, Registry};
use crate::ast::Span;
use crate::error::{EvalError, Result};
use crate::value::Value;

pub(super) fn register(r: &mut Registry) {
    r.native(&["matmul", "linalg.matmul"], matmul_fn);
    r.native(&["dot"], dot_fn);
}

/// `a @ b` (NumPy's `matmul`).
pub(crate) fn matmul(a: &Value, b: &Value, span: Span) -> Result<Value> {
    to_operand(a, "matmul operand", span)?;
    to_operand(b, "matmul operand", span)?;
    Err(EvalError::not_supported(
        span,
        "matrix multiplication (`@`, np.matmul, np.dot)",
    ))
}

fn matmul_fn(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["x1", "x2", "out=", "*dtype="])?;
    let x1 = a.req("x1")?;
    let x2 = a.req("x2")?;
    matmul(&x1, &x2, span)
}

fn dot_fn(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "b", "out="])?;
    let x1 = a.req("a")?;
    let x2 = a.req("b")?;
    matmul(&x1, &x2, span)
}
