//! The nonsymmetric eigenproblem: `linalg.eig`, `linalg.eigvals` and `roots` (the
//! eigenvalues of the companion matrix). Each reads a convergence state back, which the
//! browser cannot block on: there they are refused with a clear message.

use super::Registry;

pub(super) fn register(r: &mut Registry) {
    r.native(&["linalg.eig"], imp::eig);
    r.native(&["linalg.eigvals"], imp::eigvals);
    r.native(&["roots"], imp::roots);
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use super::super::Call;
    use crate::error::{EvalError, Result};
    use crate::value::Value;

    pub(super) fn refused(call: Call) -> Result<Value> {
        Err(EvalError::kupfer(call.span)(kupfer::Error::unsupported(
            format!(
                "{} in the browser (it reads a convergence check back, and the page must not \
                 block)",
                call.display_name()
            ),
        )))
    }

    pub(super) use refused as eig;
    pub(super) use refused as eigvals;
    pub(super) use refused as roots;
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::super::Call;
    use crate::error::{EvalError, Result};
    use crate::value::Value;

    /// `np.linalg.eig(a)`: `(eigenvalues, eigenvectors)`.
    pub(super) fn eig(call: Call) -> Result<Value> {
        let span = call.span;
        let mut a = call.bind(&["a"])?;
        let x = a.array("a")?;
        let (w, v) = kupfer::linalg::eig(&x).map_err(EvalError::kupfer(span))?;
        Ok(Value::Tuple(vec![Value::Array(w), Value::Array(v)]))
    }

    /// `np.linalg.eigvals(a)`.
    pub(super) fn eigvals(call: Call) -> Result<Value> {
        let span = call.span;
        let mut a = call.bind(&["a"])?;
        let x = a.array("a")?;
        let w = kupfer::linalg::eigvals(&x).map_err(EvalError::kupfer(span))?;
        Ok(Value::Array(w))
    }

    /// `np.roots(p)`.
    pub(super) fn roots(call: Call) -> Result<Value> {
        let span = call.span;
        let mut a = call.bind(&["p"])?;
        let p = a.array("p")?;
        let r = kupfer::roots(&p).map_err(EvalError::kupfer(span))?;
        Ok(Value::Array(r))
    }
}
