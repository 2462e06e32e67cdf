//! `dtype=` and `casting=` of ufunc calls (and of the `matmul` and `vecdot` gufuncs): which
//! loop runs, and whether the operands may be cast to it, as NumPy decides.
//!
//! `dtype=d` asks for a loop whose result is `d`. NumPy looks for one among the ufunc's
//! loops; kupfer tries, in order, the loop the operands pick on their own, the loop computing
//! in `d`'s complex type when an operand is complex (`absolute` of complex numbers; its
//! operands must cast safely, as in NumPy's search), and the loop computing in `d`. The
//! first whose result has dtype `d`, and whose operands cast to it under the casting rule
//! (`'same_kind'` unless `casting=` says otherwise), runs. So
//! `np.add(i32, i32, dtype=np.float16)` adds in float16, `np.abs(c64, dtype=np.float64)`
//! takes complex magnitudes, and `np.add(f32, f32, dtype=np.int32)` is an error, as in NumPy.

use super::Args;
use crate::ast::Span;
use crate::error::{EvalError, Result};
use kupfer::casting::{can_cast, can_cast_weak, Casting};
use kupfer::promote::WeakKind;
use kupfer::{Array, DType, Operand};

/// `casting=` of a call, or `default` when absent.
pub(super) fn casting(a: &mut Args, default: Casting) -> Result<Casting> {
    match a.string("casting")? {
        None => Ok(default),
        Some(name) => Casting::from_name(&name).map_err(EvalError::kupfer(a.span())),
    }
}

/// Casts every operand to `to`, or says which one `casting` refuses.
fn cast_all<const N: usize>(
    name: &str,
    ops: &[Operand; N],
    to: DType,
    casting: Casting,
    span: Span,
) -> Result<[Operand; N]> {
    let mut cast = ops.clone();
    for (i, op) in cast.iter_mut().enumerate() {
        let (ok, from) = match op {
            Operand::Array(a) => (can_cast(a.dtype(), to, casting), a.dtype().name()),
            Operand::Scalar(s) => (
                can_cast_weak(s.kind(), to, casting),
                match s.kind() {
                    WeakKind::Bool => "Python bool",
                    WeakKind::Int => "Python int",
                    WeakKind::Float => "Python float",
                    WeakKind::Complex => "Python complex",
                },
            ),
        };
        if !ok {
            return Err(EvalError::type_error(
                span,
                format!(
                    "{name}(): cannot cast input {i} from {from} to {} with casting rule '{}'",
                    to.name(),
                    casting.name()
                ),
            ));
        }
        if let Operand::Array(a) = op {
            if a.dtype() != to {
                *a = a.astype(to).map_err(EvalError::kupfer(span))?;
            }
        }
    }
    Ok(cast)
}

/// Under `'no'` and `'equiv'`, the loop the operands pick on their own runs only if it needs
/// no cast: every array operand already has the dtype it computes in.
fn natural_needs_no_cast(ops: &[Operand], result: DType) -> bool {
    let arrays: Vec<DType> = ops
        .iter()
        .filter_map(|op| match op {
            Operand::Array(a) => Some(a.dtype()),
            Operand::Scalar(_) => None,
        })
        .collect();
    let Some(&first) = arrays.first() else {
        return true;
    };
    let same = arrays.iter().all(|&d| d == first);
    // Predicates (bool results) and complex magnitudes compute in their operands' dtype.
    let computes_in = if result == DType::Bool || result.kind() < first.kind() {
        first
    } else {
        result
    };
    same && first == computes_in
}

/// Runs the ufunc `f` (named `name`, as `np.add`) on `ops` with NumPy's `dtype=` and
/// `casting=` rules.
pub(super) fn run<const N: usize>(
    name: &str,
    ops: [Operand; N],
    dtype: Option<DType>,
    casting: Casting,
    span: Span,
    f: impl Fn([Operand; N]) -> kupfer::Result<Array>,
) -> Result<Array> {
    let strict = matches!(casting, Casting::No | Casting::Equiv);
    let natural = f(ops.clone());
    if let Ok(r) = &natural {
        let wanted = dtype.is_none_or(|d| r.dtype() == d);
        if wanted && (!strict || natural_needs_no_cast(&ops, r.dtype())) {
            return natural.map_err(EvalError::kupfer(span));
        }
    }
    let Some(d) = dtype else {
        return match natural {
            Ok(_) => Err(EvalError::type_error(
                span,
                format!(
                    "{name}(): the operands need a cast, which casting rule '{}' forbids",
                    casting.name()
                ),
            )),
            Err(e) => Err(EvalError::kupfer(span)(e)),
        };
    };
    // NumPy searches its loops for one whose operands cast *safely*: for complex operands
    // and a real `d`, that is the complex-to-real loop (`absolute` of complex128 to
    // float64), tried first so that even `casting='unsafe'` never drops imaginary parts.
    let mut candidates = Vec::new();
    let complex_operand = ops
        .iter()
        .any(|op| matches!(op, Operand::Array(a) if a.dtype().is_complex()));
    if d.is_float() && complex_operand {
        let strictest = match casting {
            Casting::No | Casting::Equiv => casting,
            _ => Casting::Safe,
        };
        candidates.push((d.complex_of(), strictest));
    }
    candidates.push((d, casting));
    let mut refusal = None;
    for (t, rule) in candidates {
        match cast_all(name, &ops, t, rule, span) {
            Ok(cast) => {
                if let Ok(r) = f(cast) {
                    if r.dtype() == d {
                        return Ok(r);
                    }
                }
            }
            // The refusal of the loop computing in `d` is the one NumPy reports.
            Err(e) if t == d => refusal = Some(e),
            Err(_) => {}
        }
    }
    Err(refusal.unwrap_or_else(|| {
        EvalError::type_error(
            span,
            format!(
                "{name}(): no loop matching the specified signature and casting was found \
                 for dtype={}",
                d.name()
            ),
        )
    }))
}
