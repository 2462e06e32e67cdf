//! Matrix factorizations: `linalg.solve`, `linalg.inv`, `linalg.det`, `linalg.slogdet`,
//! `linalg.cholesky` (numpy.linalg) and `scipy.linalg.lu_factor`, `scipy.linalg.solve_triangular`,
//! `scipy.linalg.cholesky`
//! (SciPy's `lower=False` default), from kupfer's GPU factorizations. `solve`, `inv` and
//! `cholesky` read a status back to raise NumPy's `LinAlgError`, which the browser cannot
//! block on: there they are refused with a clear message.

use super::{Call, Registry};
use crate::error::{EvalError, Result};
use crate::value::Value;

pub(super) fn register(r: &mut Registry) {
    r.native(&["linalg.solve"], solve);
    r.native(&["linalg.inv"], inv);
    r.native(&["linalg.det"], det);
    r.native(&["linalg.slogdet"], slogdet);
    r.native(&["linalg.cholesky"], cholesky);
    r.native(&["scipy.linalg.cholesky"], scipy_cholesky);
    r.native(&["scipy.linalg.lu_factor"], lu_factor);
    r.native(&["scipy.linalg.solve_triangular"], solve_triangular);
}

/// `scipy.linalg.solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False,
/// overwrite_b=False, check_finite=True)`; `trans` is 0, 1, 2 or 'N', 'T', 'C'.
fn solve_triangular(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&[
        "a",
        "b",
        "trans=",
        "lower=",
        "unit_diagonal=",
        "overwrite_b=",
        "check_finite=",
    ])?;
    let (x, y) = (a.array("a")?, a.array("b")?);
    let trans = match a.get("trans") {
        None => 0,
        Some(Value::Str(s)) => match s.as_str() {
            "N" => 0,
            "T" => 1,
            "C" => 2,
            _ => {
                return Err(EvalError::value_error(
                    span,
                    format!("Invalid trans argument {s}"),
                ))
            }
        },
        Some(v) => super::to_int(&v, "trans", span)? as u8,
    };
    let lower = a.bool_or("lower", false)?;
    let unit = a.bool_or("unit_diagonal", false)?;
    let _ = a.bool_or("overwrite_b", false)?;
    let _ = a.bool_or("check_finite", true)?;
    Ok(Value::Array(
        blocking::solve_triangular(&x, &y, trans, lower, unit).map_err(EvalError::kupfer(span))?,
    ))
}

/// `np.linalg.solve(a, b)`.
fn solve(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "b"])?;
    let (x, y) = (a.array("a")?, a.array("b")?);
    Ok(Value::Array(
        blocking::solve(&x, &y).map_err(EvalError::kupfer(span))?,
    ))
}

/// `np.linalg.inv(a)`.
fn inv(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a"])?;
    let x = a.array("a")?;
    Ok(Value::Array(
        blocking::inv(&x).map_err(EvalError::kupfer(span))?,
    ))
}

/// `np.linalg.det(a)`.
fn det(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a"])?;
    let x = a.array("a")?;
    Ok(Value::Array(
        kupfer::linalg::det(&x).map_err(EvalError::kupfer(span))?,
    ))
}

/// `np.linalg.slogdet(a)`: the tuple `(sign, logabsdet)`.
fn slogdet(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a"])?;
    let x = a.array("a")?;
    let (s, l) = kupfer::linalg::slogdet(&x).map_err(EvalError::kupfer(span))?;
    Ok(Value::Tuple(vec![Value::Array(s), Value::Array(l)]))
}

/// `np.linalg.cholesky(a, /, *, upper=False)`.
fn cholesky(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "*upper="])?;
    let x = a.array("a")?;
    let upper = a.bool_or("upper", false)?;
    Ok(Value::Array(
        blocking::cholesky(&x, upper).map_err(EvalError::kupfer(span))?,
    ))
}

/// `scipy.linalg.cholesky(a, lower=False, overwrite_a=False, check_finite=True)`: the upper
/// factor unless `lower`.
fn scipy_cholesky(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "lower=", "overwrite_a=", "check_finite="])?;
    let x = a.array("a")?;
    let lower = a.bool_or("lower", false)?;
    let _ = a.bool_or("overwrite_a", false)?;
    let _ = a.bool_or("check_finite", true)?;
    Ok(Value::Array(
        blocking::cholesky(&x, !lower).map_err(EvalError::kupfer(span))?,
    ))
}

/// `scipy.linalg.lu_factor(a, overwrite_a=False, check_finite=True)`: `(lu, piv)`.
fn lu_factor(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["a", "overwrite_a=", "check_finite="])?;
    let x = a.array("a")?;
    let _ = a.bool_or("overwrite_a", false)?;
    let _ = a.bool_or("check_finite", true)?;
    let (lu, piv) = kupfer::linalg::lu_factor(&x).map_err(EvalError::kupfer(span))?;
    Ok(Value::Tuple(vec![Value::Array(lu), Value::Array(piv)]))
}

mod blocking {
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) use kupfer::linalg::{cholesky, inv, solve, solve_triangular};

    #[cfg(target_arch = "wasm32")]
    fn refused(name: &str) -> kupfer::Error {
        kupfer::Error::unsupported(format!(
            "{name} in the browser (it reads the LinAlgError check back, and the page must \
             not block)"
        ))
    }

    #[cfg(target_arch = "wasm32")]
    pub(super) fn solve(_a: &kupfer::Array, _b: &kupfer::Array) -> kupfer::Result<kupfer::Array> {
        Err(refused("linalg.solve"))
    }

    #[cfg(target_arch = "wasm32")]
    pub(super) fn inv(_a: &kupfer::Array) -> kupfer::Result<kupfer::Array> {
        Err(refused("linalg.inv"))
    }

    #[cfg(target_arch = "wasm32")]
    pub(super) fn solve_triangular(
        _a: &kupfer::Array,
        _b: &kupfer::Array,
        _trans: u8,
        _lower: bool,
        _unit: bool,
    ) -> kupfer::Result<kupfer::Array> {
        Err(refused("scipy.linalg.solve_triangular"))
    }

    #[cfg(target_arch = "wasm32")]
    pub(super) fn cholesky(_a: &kupfer::Array, _upper: bool) -> kupfer::Result<kupfer::Array> {
        Err(refused("linalg.cholesky"))
    }
}
