//! Complex helpers that are not plain ufuncs: `np.angle(z, deg=False)`.

use super::{Call, Registry};
use crate::error::{EvalError, Result};
use crate::value::Value;
use kupfer::Scalar;

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
