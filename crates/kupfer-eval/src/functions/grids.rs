//! NumPy's index-trick objects: `np.mgrid[...]`, `np.ogrid[...]` (kupfer's `grids` module:
//! slices with int, float or complex-count steps) and `np.s_[...]`, `np.index_exp[...]`
//! (the index itself, as a value). They are names that are subscripted, never called: the
//! interpreter hands the subscript to [`subscript`].

use super::{Call, Registry};
use crate::ast::{Expr, ExprKind};
use crate::error::{EvalError, Result};
use crate::value::Value;
use kupfer::grids::{GridAxis, GridStep};
use kupfer::Scalar;

pub(super) fn register(r: &mut Registry) {
    r.native(&["mgrid"], |c| not_callable(c, "MGridClass"));
    r.native(&["ogrid"], |c| not_callable(c, "OGridClass"));
    r.native(&["s_"], |c| not_callable(c, "IndexExpression"));
    r.native(&["index_exp"], |c| not_callable(c, "IndexExpression"));
}

fn not_callable(call: Call, ty: &str) -> Result<Value> {
    Err(EvalError::type_error(
        call.span,
        format!("'{ty}' object is not callable"),
    ))
}

/// Whether `f` (a registered function key) is one of the index-trick objects.
pub(crate) fn is_index_trick(f: &str) -> bool {
    matches!(f, "mgrid" | "ogrid" | "s_" | "index_exp")
}

/// `np.s_[index]` / `np.index_exp[index]` (an evaluated index: `index_exp` always makes a
/// tuple).
pub(crate) fn index_expression(f: &str, index: Value) -> Value {
    match (f, index) {
        ("index_exp", v @ Value::Tuple(_)) => v,
        ("index_exp", v) => Value::Tuple(vec![v]),
        (_, v) => v,
    }
}

/// `np.mgrid[key]` / `np.ogrid[key]`: `slice_part` evaluates one part of a slice.
pub(crate) fn grid(
    f: &str,
    key: &Expr,
    slice_part: &dyn Fn(&Expr) -> Result<Value>,
) -> Result<Value> {
    let span = key.span;
    let axis = |e: &Expr| -> Result<GridAxis> {
        let ExprKind::Slice { start, stop, step } = &e.kind else {
            return Err(EvalError::type_error(
                e.span,
                format!("np.{f} takes slices (start:stop:step), one per axis"),
            ));
        };
        let part = |p: &Option<Box<Expr>>| -> Result<Option<Scalar>> {
            match p {
                None => Ok(None),
                Some(x) => match slice_part(x)? {
                    Value::None => Ok(None),
                    Value::Scalar(s) => Ok(Some(s)),
                    Value::Array(a) if a.ndim() == 0 => Ok(Some(
                        crate::program::wait(a.item_async(), "a 0-d array as a slice part")
                            .map_err(EvalError::kupfer(x.span))?,
                    )),
                    v => Err(EvalError::type_error(
                        x.span,
                        format!(
                            "a grid slice part must be a number, not '{}'",
                            v.type_name()
                        ),
                    )),
                },
            }
        };
        let start = part(start)?.unwrap_or(Scalar::Int(0));
        let stop = part(stop)?
            .ok_or_else(|| EvalError::type_error(e.span, format!("np.{f} slices need a stop")))?;
        let step = match part(step)?.unwrap_or(Scalar::Int(1)) {
            // NumPy: a complex step is a point count, `int(abs(step))`.
            Scalar::Complex { re, im } => GridStep::Count(re.hypot(im) as usize),
            Scalar::Bool(b) => GridStep::By(Scalar::Int(i64::from(b))),
            s => GridStep::By(s),
        };
        let fix = |s: Scalar| match s {
            Scalar::Bool(b) => Scalar::Int(i64::from(b)),
            s => s,
        };
        Ok(GridAxis {
            start: fix(start),
            stop: fix(stop),
            step,
        })
    };
    let k = EvalError::kupfer(span);
    match &key.kind {
        ExprKind::Tuple(items) => {
            let axes = items.iter().map(axis).collect::<Result<Vec<_>>>()?;
            if f == "ogrid" {
                let parts = kupfer::grids::ogrid(&axes).map_err(k)?;
                Ok(Value::Tuple(parts.into_iter().map(Value::Array).collect()))
            } else {
                Ok(Value::Array(kupfer::grids::mgrid(&axes).map_err(k)?))
            }
        }
        _ => Ok(Value::Array(
            kupfer::grids::grid_axis(&axis(key)?).map_err(k)?,
        )),
    }
}
