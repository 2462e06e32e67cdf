//! Complex helpers that are not plain ufuncs: `np.angle(z, deg=False)`, and assignment to
//! `a.real` / `a.imag`.

use super::{Call, Registry};
use crate::ast::Span;
use crate::error::{EvalError, Result};
use crate::value::Value;
use kupfer::{Array, DType, Operand, Scalar};

pub(super) fn register(r: &mut Registry) {
    r.native(&["angle"], angle);
}

/// `np.angle(z, deg=False)`: `arctan2(z.imag, z.real)` (in degrees with `deg`). A Python
/// scalar gives a float computed on the host in float64, as NumPy's float64 result.
fn angle(call: Call) -> Result<Value> {
    let span = call.span;
    let mut a = call.bind(&["z", "deg="])?;
    let z = a.req("z")?;
    let deg = a.bool_or("deg", false)?;
    let scale = if deg {
        180.0 / std::f64::consts::PI
    } else {
        1.0
    };
    if let Value::Scalar(s) = &z {
        let (re, im) = match *s {
            Scalar::Complex { re, im } => (re, im),
            other => (other.as_f64(), 0.0),
        };
        return Ok(Value::Scalar(Scalar::Float(im.atan2(re) * scale)));
    }
    let z = super::to_array(&z, None, span)?;
    let r = (|| {
        let t = if z.dtype().is_complex() {
            kupfer::arctan2(kupfer::imag(&z)?, kupfer::real(&z)?)?
        } else {
            kupfer::arctan2(0.0, &z)?
        };
        if deg {
            kupfer::multiply(&t, scale)
        } else {
            Ok(t)
        }
    })()
    .map_err(EvalError::kupfer(span))?;
    Ok(Value::Array(r))
}

/// `base.real = value` / `base.imag = value`: NumPy writes through the part's view, so a
/// complex `base` keeps its other part and takes `value` (broadcast to its shape, cast
/// unsafely to the part's dtype: a complex value gives its real part) in this one; a real
/// `base`'s `real` is the array itself, and its `imag` cannot be set. Every view of `base`
/// sees the write.
pub(crate) fn set_part(base: &Array, attr: &str, value: Value, span: Span) -> Result<()> {
    let k = EvalError::kupfer(span);
    let d = base.dtype();
    if !d.is_complex() {
        if attr == "imag" {
            return Err(EvalError::type_error(
                span,
                "array does not have imaginary part to set",
            ));
        }
        let v = super::to_array(&value, None, span)?;
        check_broadcast(&v, base, span)?;
        let v = v.astype(d).map_err(EvalError::kupfer(span))?;
        return crate::program::wait(
            base.set_async(&[kupfer::Index::Basic(kupfer::SliceArg::Ellipsis)], v),
            "assignment to a.real",
        )
        .map_err(k);
    }
    let part = d.real_part();
    let v = super::to_array(&value, None, span)?;
    check_broadcast(&v, base, span)?;
    let v = v
        .astype(part)
        .and_then(|v| v.broadcast_to(base.shape()))
        .map_err(EvalError::kupfer(span))?;
    let ty = if part == DType::F32 {
        "vec2<f32>"
    } else {
        "vec2<f64>"
    };
    let body = if attr == "real" {
        format!("y = {ty}(v, z.y);")
    } else {
        format!("y = {ty}(z.x, v);")
    };
    let params = format!("{d} z, {part} v");
    let kernel = kupfer::ElementwiseKernel::new(&params, &format!("{d} y"), &body, "kp_set_part")
        .map_err(EvalError::kupfer(span))?;
    let new = kernel
        .call(&[Operand::Array(base.clone()), Operand::Array(v)])
        .and_then(|n| n.copy())
        .map_err(EvalError::kupfer(span))?;
    crate::program::wait(
        base.set_async(&[kupfer::Index::Basic(kupfer::SliceArg::Ellipsis)], new),
        "assignment to a.real or a.imag",
    )
    .map_err(k)
}

/// NumPy's error when a value does not broadcast into the array it is assigned to.
fn check_broadcast(v: &Array, base: &Array, span: Span) -> Result<()> {
    match kupfer::broadcast_shapes(v.shape(), base.shape()) {
        Ok(s) if s == base.shape() => Ok(()),
        _ => Err(EvalError::value_error(
            span,
            format!(
                "could not broadcast input array from shape {} into shape {}",
                super::elementwise::shape_text(v.shape()),
                super::elementwise::shape_text(base.shape())
            ),
        )),
    }
}
