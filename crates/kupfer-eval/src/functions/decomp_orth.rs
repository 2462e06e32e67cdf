//! The orthogonal decompositions and what is built on them: `linalg.qr`, `linalg.svd`,
//! `linalg.svdvals`, `linalg.eigh`, `linalg.eigvalsh`, `linalg.lstsq`, `linalg.pinv`,
//! `linalg.matrix_rank`, `linalg.cond`, `linalg.tensorsolve`, `linalg.tensorinv`,
//! `polyfit`, and SciPy's `scipy.linalg.lu`, `lu_solve`, `cho_factor`, `cho_solve`.
//! Every one reads a status back (convergence, rank, singularity), which the browser cannot
//! block on: there they are refused with a clear message.

use super::Registry;

const NAMES: &[&str] = &[
    "linalg.qr",
    "linalg.svd",
    "linalg.svdvals",
    "linalg.eigh",
    "linalg.eigvalsh",
    "linalg.lstsq",
    "linalg.pinv",
    "linalg.matrix_rank",
    "linalg.cond",
    "linalg.tensorsolve",
    "linalg.tensorinv",
    "polyfit",
    "scipy.linalg.lu",
    "scipy.linalg.lu_solve",
    "scipy.linalg.cho_factor",
    "scipy.linalg.cho_solve",
];

pub(super) fn register(r: &mut Registry) {
    let handlers: [super::Native; 16] = [
        imp::qr,
        imp::svd,
        imp::svdvals,
        imp::eigh,
        imp::eigvalsh,
        imp::lstsq,
        imp::pinv,
        imp::matrix_rank,
        imp::cond,
        imp::tensorsolve,
        imp::tensorinv,
        imp::polyfit,
        imp::lu,
        imp::lu_solve,
        imp::cho_factor,
        imp::cho_solve,
    ];
    for (i, f) in handlers.into_iter().enumerate() {
        r.native(&NAMES[i..=i], f);
    }
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use super::super::Call;
    use crate::error::{EvalError, Result};
    use crate::value::Value;

    pub(super) fn refused(call: Call) -> Result<Value> {
        Err(EvalError::kupfer(call.span)(kupfer::Error::unsupported(
            format!(
                "{} in the browser (it reads a convergence, rank or singularity check back, and \
             the page must not block)",
                call.display_name()
            ),
        )))
    }

    pub(super) use refused as qr;
    pub(super) use refused as svd;
    pub(super) use refused as svdvals;
    pub(super) use refused as eigh;
    pub(super) use refused as eigvalsh;
    pub(super) use refused as lstsq;
    pub(super) use refused as pinv;
    pub(super) use refused as matrix_rank;
    pub(super) use refused as cond;
    pub(super) use refused as tensorsolve;
    pub(super) use refused as tensorinv;
    pub(super) use refused as polyfit;
    pub(super) use refused as lu;
    pub(super) use refused as lu_solve;
    pub(super) use refused as cho_factor;
    pub(super) use refused as cho_solve;
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::super::{linalg::norm_ord, to_int, Args, Call};
    use crate::error::{EvalError, Result};
    use crate::value::Value;
    use kupfer::linalg::{self as la, QrMode, Uplo};
    use kupfer::{Array, DType, Scalar};

    fn arr(a: Array) -> Value {
        Value::Array(a)
    }

    /// A rank as NumPy's lstsq gives it: an int32 scalar.
    fn rank(v: usize, span: crate::ast::Span) -> Result<Value> {
        let a = Array::from_slice(&[v as i32], &[]).map_err(EvalError::kupfer(span))?;
        Ok(Value::Array(a))
    }

    /// An optional float argument (`None` or absent gives `None`).
    fn opt_float(a: &mut Args, name: &str) -> Result<Option<f64>> {
        match a.get(name) {
            None | Some(Value::None) => Ok(None),
            Some(_) => a.float(name),
        }
    }

    fn eps_times_max(x: &Array) -> f64 {
        let s = x.shape();
        let big = s[s.len().saturating_sub(2)..]
            .iter()
            .copied()
            .max()
            .unwrap_or(0);
        let eps = if matches!(x.dtype(), DType::F64 | DType::I64 | DType::U64) {
            f64::EPSILON
        } else {
            f32::EPSILON as f64
        };
        eps * big as f64
    }

    /// `np.linalg.qr(a, mode='reduced')`.
    pub(super) fn qr(call: Call) -> Result<Value> {
        let span = call.span;
        let mut a = call.bind(&["a", "mode="])?;
        let x = a.array("a")?;
        let mode: QrMode = a
            .string("mode")?
            .unwrap_or_else(|| "reduced".into())
            .parse()
            .map_err(|e: kupfer::Error| EvalError::value_error(span, e.to_string()))?;
        let r = la::qr(&x, mode).map_err(EvalError::kupfer(span))?;
        Ok(match r.q {
            None => arr(r.r),
            Some(q) => Value::Tuple(vec![arr(q), arr(r.r)]),
        })
    }

    /// `np.linalg.svd(a, full_matrices=True, compute_uv=True, hermitian=False)`.
    pub(super) fn svd(call: Call) -> Result<Value> {
        let span = call.span;
        let mut a = call.bind(&["a", "full_matrices=", "compute_uv=", "hermitian="])?;
        let x = a.array("a")?;
        let full = a.bool_or("full_matrices", true)?;
        let uv = a.bool_or("compute_uv", true)?;
        let herm = a.bool_or("hermitian", false)?;
        if !uv {
            let s = if herm {
                la::svdvals_hermitian(&x)
            } else {
                la::svdvals(&x)
            };
            return Ok(arr(s.map_err(EvalError::kupfer(span))?));
        }
        let (u, s, vh) = la::svd(&x, full, herm).map_err(EvalError::kupfer(span))?;
        Ok(Value::Tuple(vec![arr(u), arr(s), arr(vh)]))
    }

    /// `np.linalg.svdvals(x, /)`.
    pub(super) fn svdvals(call: Call) -> Result<Value> {
        let span = call.span;
        let mut a = call.bind(&["x"])?;
        let x = a.array("x")?;
        Ok(arr(la::svdvals(&x).map_err(EvalError::kupfer(span))?))
    }

    fn uplo(a: &mut Args) -> Result<Uplo> {
        let span = a.span();
        a.string("UPLO")?
            .unwrap_or_else(|| "L".into())
            .parse()
            .map_err(|e: kupfer::Error| EvalError::value_error(span, e.to_string()))
    }

    /// `np.linalg.eigh(a, UPLO='L')`: `(eigenvalues, eigenvectors)`.
    pub(super) fn eigh(call: Call) -> Result<Value> {
        let span = call.span;
        let mut a = call.bind(&["a", "UPLO="])?;
        let x = a.array("a")?;
        let u = uplo(&mut a)?;
        let (w, v) = la::eigh(&x, u).map_err(EvalError::kupfer(span))?;
        Ok(Value::Tuple(vec![arr(w), arr(v)]))
    }

    /// `np.linalg.eigvalsh(a, UPLO='L')`.
    pub(super) fn eigvalsh(call: Call) -> Result<Value> {
        let span = call.span;
        let mut a = call.bind(&["a", "UPLO="])?;
        let x = a.array("a")?;
        let u = uplo(&mut a)?;
        Ok(arr(la::eigvalsh(&x, u).map_err(EvalError::kupfer(span))?))
    }

    /// `np.linalg.lstsq(a, b, rcond=None)`: `(x, residuals, rank, s)`.
    pub(super) fn lstsq(call: Call) -> Result<Value> {
        let span = call.span;
        let mut a = call.bind(&["a", "b", "rcond="])?;
        let (x, y) = (a.array("a")?, a.array("b")?);
        let rcond = opt_float(&mut a, "rcond")?;
        let r = la::lstsq(&x, &y, rcond).map_err(EvalError::kupfer(span))?;
        Ok(Value::Tuple(vec![
            arr(r.x),
            arr(r.residuals),
            rank(r.rank, span)?,
            arr(r.s),
        ]))
    }

    /// `np.linalg.pinv(a, rcond=None, hermitian=False, *, rtol=<unset>)`.
    pub(super) fn pinv(call: Call) -> Result<Value> {
        let span = call.span;
        let mut a = call.bind(&["a", "rcond=", "hermitian=", "*rtol="])?;
        let x = a.array("a")?;
        let rcond = opt_float(&mut a, "rcond")?;
        let herm = a.bool_or("hermitian", false)?;
        let rtol = a.get("rtol");
        let rcond = match (rcond, rtol) {
            (Some(_), Some(_)) => {
                return Err(EvalError::value_error(
                    span,
                    "`rtol` and `rcond` can't be both set.",
                ))
            }
            (r, None) => r,
            (None, Some(Value::None)) => Some(eps_times_max(&x)),
            (None, Some(v)) => Some(match v {
                Value::Scalar(s) => s.as_f64(),
                _ => return Err(EvalError::type_error(span, "rtol must be a float")),
            }),
        };
        Ok(arr(
            la::pinv(&x, rcond, herm).map_err(EvalError::kupfer(span))?
        ))
    }

    /// `np.linalg.matrix_rank(A, tol=None, hermitian=False, *, rtol=None)`.
    pub(super) fn matrix_rank(call: Call) -> Result<Value> {
        let span = call.span;
        let mut a = call.bind(&["A", "tol=", "hermitian=", "*rtol="])?;
        let x = a.array("A")?;
        let tol = opt_float(&mut a, "tol")?;
        let herm = a.bool_or("hermitian", false)?;
        let rtol = opt_float(&mut a, "rtol")?;
        Ok(arr(
            la::matrix_rank(&x, tol, herm, rtol).map_err(EvalError::kupfer(span))?
        ))
    }

    /// `np.linalg.cond(x, p=None)`.
    pub(super) fn cond(call: Call) -> Result<Value> {
        let span = call.span;
        let mut a = call.bind(&["x", "p="])?;
        let x = a.array("x")?;
        let p = match a.get("p") {
            None | Some(Value::None) => None,
            v => norm_ord(v, span)?,
        };
        Ok(arr(la::cond(&x, p).map_err(EvalError::kupfer(span))?))
    }

    /// `np.linalg.tensorsolve(a, b, axes=None)`.
    pub(super) fn tensorsolve(call: Call) -> Result<Value> {
        let span = call.span;
        let mut a = call.bind(&["a", "b", "axes="])?;
        let (x, y) = (a.array("a")?, a.array("b")?);
        let axes = a.axes("axes")?;
        Ok(arr(
            la::tensorsolve(&x, &y, axes.as_deref()).map_err(EvalError::kupfer(span))?
        ))
    }

    /// `np.linalg.tensorinv(a, ind=2)`.
    pub(super) fn tensorinv(call: Call) -> Result<Value> {
        let span = call.span;
        let mut a = call.bind(&["a", "ind="])?;
        let x = a.array("a")?;
        let ind = a.int("ind")?.unwrap_or(2);
        if ind <= 0 {
            return Err(EvalError::value_error(span, "Invalid ind argument."));
        }
        Ok(arr(
            la::tensorinv(&x, ind as usize).map_err(EvalError::kupfer(span))?
        ))
    }

    /// `np.polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False)`.
    pub(super) fn polyfit(call: Call) -> Result<Value> {
        let span = call.span;
        let mut a = call.bind(&["x", "y", "deg", "rcond=", "full=", "w=", "cov="])?;
        let (x, y) = (a.array("x")?, a.array("y")?);
        let deg = a.req_int("deg")?;
        let rcond = opt_float(&mut a, "rcond")?;
        let full = a.bool_or("full", false)?;
        let w = match a.get("w") {
            None | Some(Value::None) => None,
            Some(_) => Some(a.array("w")?),
        };
        if a.bool_or("cov", false)? {
            return Err(EvalError::kupfer(span)(kupfer::Error::unsupported(
                "polyfit(cov=True)",
            )));
        }
        let f = kupfer::polyfit(&x, &y, deg, rcond, w.as_ref()).map_err(EvalError::kupfer(span))?;
        if !full {
            return Ok(arr(f.coefficients));
        }
        Ok(Value::Tuple(vec![
            arr(f.coefficients),
            arr(f.residuals),
            rank(f.rank, span)?,
            arr(f.singular_values),
            Value::Scalar(Scalar::Float(f.rcond)),
        ]))
    }

    /// `scipy.linalg.lu(a, permute_l=False, overwrite_a=False, check_finite=True,
    /// p_indices=False)`.
    pub(super) fn lu(call: Call) -> Result<Value> {
        let span = call.span;
        let mut a = call.bind(&[
            "a",
            "permute_l=",
            "overwrite_a=",
            "check_finite=",
            "p_indices=",
        ])?;
        let x = a.array("a")?;
        let permute_l = a.bool_or("permute_l", false)?;
        let _ = a.bool_or("overwrite_a", false)?;
        let _ = a.bool_or("check_finite", true)?;
        if a.bool_or("p_indices", false)? {
            return Err(EvalError::kupfer(span)(kupfer::Error::unsupported(
                "scipy.linalg.lu(p_indices=True)",
            )));
        }
        let (p, l, u) = la::lu(&x, permute_l).map_err(EvalError::kupfer(span))?;
        let mut out = vec![arr(p), arr(l)];
        out.extend(u.map(arr));
        Ok(Value::Tuple(out))
    }

    /// A `(x, y)` tuple argument's two arrays.
    fn pair(v: Value, what: &str, span: crate::ast::Span) -> Result<(Value, Value)> {
        match v {
            Value::Tuple(mut t) | Value::List(mut t) if t.len() == 2 => {
                let second = t.pop().unwrap_or(Value::None);
                let first = t.pop().unwrap_or(Value::None);
                Ok((first, second))
            }
            _ => Err(EvalError::type_error(
                span,
                format!("{what} must be a tuple of two items"),
            )),
        }
    }

    /// `scipy.linalg.lu_solve((lu, piv), b, trans=0, overwrite_b=False, check_finite=True)`.
    pub(super) fn lu_solve(call: Call) -> Result<Value> {
        let span = call.span;
        let mut a = call.bind(&["lu_and_piv", "b", "trans=", "overwrite_b=", "check_finite="])?;
        let (lu, piv) = pair(a.req("lu_and_piv")?, "lu_and_piv", span)?;
        let lu = super::super::to_array(&lu, None, span)?;
        let piv = super::super::to_array(&piv, None, span)?;
        let y = a.array("b")?;
        let trans = match a.get("trans") {
            None => 0,
            Some(v) => to_int(&v, "trans", span)?,
        };
        if !(0..=2).contains(&trans) {
            return Err(EvalError::value_error(span, "Invalid trans argument"));
        }
        let _ = a.bool_or("overwrite_b", false)?;
        let _ = a.bool_or("check_finite", true)?;
        Ok(arr(
            la::lu_solve(&lu, &piv, &y, trans as u8).map_err(EvalError::kupfer(span))?
        ))
    }

    /// `scipy.linalg.cho_factor(a, lower=False, overwrite_a=False, check_finite=True)`:
    /// `(c, lower)`.
    pub(super) fn cho_factor(call: Call) -> Result<Value> {
        let span = call.span;
        let mut a = call.bind(&["a", "lower=", "overwrite_a=", "check_finite="])?;
        let x = a.array("a")?;
        let lower = a.bool_or("lower", false)?;
        let _ = a.bool_or("overwrite_a", false)?;
        let _ = a.bool_or("check_finite", true)?;
        let (c, low) = la::cho_factor(&x, lower).map_err(EvalError::kupfer(span))?;
        Ok(Value::Tuple(vec![arr(c), Value::Scalar(Scalar::Bool(low))]))
    }

    /// `scipy.linalg.cho_solve((c, lower), b, overwrite_b=False, check_finite=True)`.
    pub(super) fn cho_solve(call: Call) -> Result<Value> {
        let span = call.span;
        let mut a = call.bind(&["c_and_lower", "b", "overwrite_b=", "check_finite="])?;
        let (c, lower) = pair(a.req("c_and_lower")?, "c_and_lower", span)?;
        let c = super::super::to_array(&c, None, span)?;
        let lower = match lower {
            Value::Scalar(s) => s.as_f64() != 0.0,
            _ => return Err(EvalError::type_error(span, "lower must be a bool")),
        };
        let y = a.array("b")?;
        let _ = a.bool_or("overwrite_b", false)?;
        let _ = a.bool_or("check_finite", true)?;
        Ok(arr(
            la::cho_solve(&c, lower, &y).map_err(EvalError::kupfer(span))?
        ))
    }
}
