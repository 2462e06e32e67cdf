//! NumPy's everyday elementwise helpers composed from the ufuncs (so each one is lazy and fuses
//! with its neighbours): closeness tests (`isclose`, `allclose`, `array_equal`, `array_equiv`),
//! classification (`isposinf`, `isneginf`, `iscomplex`, `isreal`, ...), `nan_to_num`,
//! `heaviside`, `logaddexp`/`logaddexp2`, `float_power`, `sinc`, `modf` and `divmod`.

use crate::array::Array;
use crate::device::Device;
use crate::scalar::{Operand, Scalar};
use crate::ufuncs::{self as uf};
use kupfer_core::expr::OperandType;
use kupfer_core::promote::{result_type_weak, WeakKind};
use kupfer_core::{BinaryOp, DType, Error, Result};

fn operand_type(op: &Operand) -> OperandType {
    match op {
        Operand::Array(a) => OperandType::Strong(a.dtype()),
        Operand::Scalar(s) => OperandType::Weak(s.kind()),
    }
}

fn device_of(ops: &[&Operand]) -> Result<Device> {
    for op in ops {
        if let Operand::Array(a) = op {
            return Ok(a.device().clone());
        }
    }
    Device::current()
}

/// The operand as an array of dtype `d` (a scalar becomes a 0-d array).
fn as_array(op: &Operand, d: DType, device: &Device) -> Result<Array> {
    match op {
        Operand::Array(a) => a.astype(d),
        Operand::Scalar(s) => crate::creation::full_on(device, &[], *s, Some(d)),
    }
}

/// The float dtype NumPy's float-only binary loops compute `a` and `b` in (integers go to
/// their float dtype), with both operands as arrays of it.
fn float_pair(a: Operand, b: Operand, name: &str) -> Result<(Array, Array, DType)> {
    let device = device_of(&[&a, &b])?;
    let (ta, tb) = match (&a, &b) {
        (Operand::Scalar(x), Operand::Scalar(y)) => (
            OperandType::Strong(x.default_dtype(&device)),
            OperandType::Strong(y.default_dtype(&device)),
        ),
        _ => (operand_type(&a), operand_type(&b)),
    };
    let d = BinaryOp::Copysign
        .signature(ta, tb)
        .map_err(|_| {
            Error::unsupported(format!(
                "ufunc '{name}' not supported for the input types ({}, {})",
                describe(ta),
                describe(tb)
            ))
        })?
        .0;
    device.check(d)?;
    Ok((as_array(&a, d, &device)?, as_array(&b, d, &device)?, d))
}

fn describe(t: OperandType) -> String {
    match t {
        OperandType::Strong(d) => d.name().to_string(),
        OperandType::Weak(k) => format!("Python {k:?}").to_lowercase(),
    }
}

/// The operand as an array of its float dtype (integers and bools as NumPy's float loops take
/// them; complex refused with `name`'s message).
fn float_array(x: Operand, name: &str) -> Result<Array> {
    let device = device_of(&[&x])?;
    let d = match &x {
        Operand::Array(a) => a.dtype(),
        Operand::Scalar(s) => s.default_dtype(&device),
    };
    if d.is_complex() {
        return Err(Error::unsupported(format!(
            "ufunc '{name}' not supported for the input type {d}"
        )));
    }
    let f = kupfer_core::promote::float_result(d);
    device.check(f)?;
    as_array(&x, f, &device)
}

/// True where `a` and `b` are equal within `atol + rtol * |b|` (NumPy's `isclose`: infinities
/// are close only to themselves; NaNs only with `equal_nan`). `b` is taken in its float dtype.
///
/// ```
/// # use kupfer as kp;
/// let a = kp::Array::from_slice(&[1e10f64, 1e-7], &[2])?;
/// let b = kp::Array::from_slice(&[1.00001e10f64, 1e-8], &[2])?;
/// let c = kp::isclose(&a, &b, 1e-5, 1e-8, false)?;
/// assert_eq!(c.to_vec::<bool>()?, vec![true, false]);
/// # Ok::<(), kp::Error>(())
/// ```
pub fn isclose(
    a: impl Into<Operand>,
    b: impl Into<Operand>,
    rtol: f64,
    atol: f64,
    equal_nan: bool,
) -> Result<Array> {
    let (x, y) = (a.into(), b.into());
    let y = match y {
        Operand::Array(arr) if !arr.dtype().is_float() && !arr.dtype().is_complex() => {
            let d = result_type_weak(arr.dtype(), WeakKind::Float)?;
            Operand::Array(arr.astype(d)?)
        }
        Operand::Scalar(Scalar::Int(v)) => Operand::Scalar(Scalar::Float(v as f64)),
        Operand::Scalar(Scalar::Bool(v)) => Operand::Scalar(Scalar::Float(f64::from(u8::from(v)))),
        y => y,
    };
    let x = match (&x, &y) {
        (Operand::Scalar(s), Operand::Scalar(_)) => {
            Operand::Array(s.to_array(&Device::current()?)?)
        }
        _ => x,
    };
    let tolerance = uf::add(atol, uf::multiply(rtol, uf::abs(y.clone())?)?)?;
    let close = uf::less_equal(uf::abs(uf::subtract(x.clone(), y.clone())?)?, tolerance)?;
    let mut r = uf::logical_or(
        uf::logical_and(close, uf::isfinite(y.clone())?)?,
        uf::equal(x.clone(), y.clone())?,
    )?;
    if equal_nan {
        r = uf::logical_or(r, uf::logical_and(uf::isnan(x)?, uf::isnan(y)?)?)?;
    }
    Ok(r)
}

/// True (a 0-d bool array) when every element of `a` is close to `b` (NumPy's `allclose`).
pub fn allclose(
    a: impl Into<Operand>,
    b: impl Into<Operand>,
    rtol: f64,
    atol: f64,
    equal_nan: bool,
) -> Result<Array> {
    crate::reduce::all(&isclose(a, b, rtol, atol, equal_nan)?, None, false)
}

/// True (a 0-d bool array) when `a` and `b` have the same shape and elements (NumPy's
/// `array_equal`; NaNs equal each other with `equal_nan`).
pub fn array_equal(a: &Array, b: &Array, equal_nan: bool) -> Result<Array> {
    if a.shape() != b.shape() {
        return crate::creation::full_on(a.device(), &[], false, Some(DType::Bool));
    }
    let mut eq = uf::equal(a, b)?;
    if equal_nan {
        eq = uf::logical_or(eq, uf::logical_and(uf::isnan(a)?, uf::isnan(b)?)?)?;
    }
    crate::reduce::all(&eq, None, false)
}

/// True (a 0-d bool array) when `a` and `b` broadcast together and are equal everywhere
/// (NumPy's `array_equiv`).
pub fn array_equiv(a: &Array, b: &Array) -> Result<Array> {
    if kupfer_core::layout::broadcast_shapes(a.shape(), b.shape()).is_err() {
        return crate::creation::full_on(a.device(), &[], false, Some(DType::Bool));
    }
    crate::reduce::all(&uf::equal(a, b)?, None, false)
}

fn refuse_complex(x: &Operand) -> Result<()> {
    if matches!(x, Operand::Array(a) if a.dtype().is_complex())
        || matches!(x, Operand::Scalar(Scalar::Complex { .. }))
    {
        return Err(Error::unsupported(
            "This operation is not supported for complex values because it would be ambiguous.",
        ));
    }
    Ok(())
}

/// True where `x` is +inf (NumPy's `isposinf`; complex input is refused as NumPy does).
pub fn isposinf(x: impl Into<Operand>) -> Result<Array> {
    let x = x.into();
    refuse_complex(&x)?;
    uf::logical_and(uf::isinf(x.clone())?, uf::logical_not(uf::signbit(x)?)?)
}

/// True where `x` is -inf (NumPy's `isneginf`; complex input is refused as NumPy does).
pub fn isneginf(x: impl Into<Operand>) -> Result<Array> {
    let x = x.into();
    refuse_complex(&x)?;
    uf::logical_and(uf::isinf(x.clone())?, uf::signbit(x)?)
}

/// True where the imaginary part is nonzero (all false for real dtypes).
pub fn iscomplex(x: impl Into<Operand>) -> Result<Array> {
    uf::not_equal(uf::imag(x)?, 0)
}

/// True where the imaginary part is zero (all true for real dtypes).
pub fn isreal(x: impl Into<Operand>) -> Result<Array> {
    uf::equal(uf::imag(x)?, 0)
}

/// True when the array's dtype is complex (NumPy's `iscomplexobj`).
pub fn iscomplexobj(x: &Array) -> bool {
    x.dtype().is_complex()
}

/// True when the array's dtype is not complex (NumPy's `isrealobj`).
pub fn isrealobj(x: &Array) -> bool {
    !x.dtype().is_complex()
}

/// The real part of a complex array whose imaginary parts are all below `tol` machine
/// epsilons (`tol` itself when it is below 1), else the array itself (NumPy's
/// `real_if_close`). Reads one flag back to decide the result's dtype.
#[cfg(not(target_arch = "wasm32"))]
pub fn real_if_close(a: &Array, tol: f64) -> Result<Array> {
    if !a.dtype().is_complex() {
        return Ok(a.clone());
    }
    let eps = crate::finfo(a.dtype().real_part())?.eps;
    let tol = if tol > 1.0 { tol * eps } else { tol };
    let small = crate::reduce::all(&uf::less(uf::abs(uf::imag(a)?)?, tol)?, None, false)?;
    match small.item()? {
        Scalar::Bool(true) => uf::real(a),
        _ => Ok(a.clone()),
    }
}

/// NaN replaced by `nan`, +inf by `posinf` and -inf by `neginf` (by default the dtype's
/// largest and most negative finite values), for the real and imaginary parts of complex
/// input; integers and bools are returned as they are (NumPy's `nan_to_num`). Each
/// replacement is a number or an array that broadcasts to `x`'s shape (element-wise
/// replacements, as NumPy 2 allows); the result keeps `x`'s dtype.
///
/// ```
/// # use kupfer as kp;
/// let x = kp::Array::from_slice(&[f64::INFINITY, f64::NAN, 1.0], &[3])?;
/// let y = kp::nan_to_num(&x, 0.0.into(), Some(9.0.into()), None)?;
/// assert_eq!(y.to_vec::<f64>()?, vec![9.0, 0.0, 1.0]);
/// # Ok::<(), kp::Error>(())
/// ```
pub fn nan_to_num(
    x: &Array,
    nan: Operand,
    posinf: Option<Operand>,
    neginf: Option<Operand>,
) -> Result<Array> {
    let d = x.dtype();
    for r in [Some(&nan), posinf.as_ref(), neginf.as_ref()]
        .into_iter()
        .flatten()
    {
        if let Operand::Array(r) = r {
            let b = kupfer_core::layout::broadcast_shapes(x.shape(), r.shape());
            if b.as_deref().ok() != Some(x.shape()) {
                return Err(Error::ShapeMismatch {
                    op: "nan_to_num".into(),
                    lhs: r.shape().to_vec(),
                    rhs: x.shape().to_vec(),
                });
            }
        }
    }
    if d.is_complex() {
        let re = nan_to_num(&uf::real(x)?, nan.clone(), posinf.clone(), neginf.clone())?;
        let im = nan_to_num(&uf::imag(x)?, nan, posinf, neginf)?;
        return uf::make_complex(re, im)?.astype(d);
    }
    if !d.is_float() {
        return Ok(x.clone());
    }
    let info = crate::finfo(d)?;
    let hi = posinf.unwrap_or_else(|| info.max.into());
    let lo = neginf.unwrap_or_else(|| info.min.into());
    // Replacements are cast to x's dtype first, as NumPy's copyto into x.
    let cast = |r: Operand| -> Result<Operand> {
        Ok(match r {
            Operand::Array(a) => a.astype(d)?.into(),
            s => s,
        })
    };
    let inner = uf::where_(
        isposinf(x)?,
        cast(hi)?,
        uf::where_(isneginf(x)?, cast(lo)?, x)?,
    )?;
    uf::where_(uf::isnan(x)?, cast(nan)?, inner)?.astype(d)
}

/// The Heaviside step function: 0 for `x1 < 0`, `x2` for `x1 == 0`, 1 for `x1 > 0`, NaN for
/// NaN, in the operands' float dtype (NumPy's `heaviside`).
pub fn heaviside(x1: impl Into<Operand>, x2: impl Into<Operand>) -> Result<Array> {
    let (x, h0, d) = float_pair(x1.into(), x2.into(), "heaviside")?;
    let step = uf::greater(&x, 0)?.astype(d)?;
    uf::where_(uf::isnan(&x)?, &x, uf::where_(uf::equal(&x, 0)?, h0, step)?)
}

/// log(exp(a) + exp(b)) without overflow (NumPy's `logaddexp`).
pub fn logaddexp(a: impl Into<Operand>, b: impl Into<Operand>) -> Result<Array> {
    let (x, y, _) = float_pair(a.into(), b.into(), "logaddexp")?;
    let tail = uf::log1p(uf::exp(uf::negative(uf::abs(uf::subtract(&x, &y)?)?)?)?)?;
    uf::where_(
        uf::equal(&x, &y)?,
        uf::add(&x, std::f64::consts::LN_2)?,
        uf::add(uf::maximum(&x, &y)?, tail)?,
    )
}

/// log2(2**a + 2**b) without overflow (NumPy's `logaddexp2`).
pub fn logaddexp2(a: impl Into<Operand>, b: impl Into<Operand>) -> Result<Array> {
    let (x, y, _) = float_pair(a.into(), b.into(), "logaddexp2")?;
    let tail = uf::multiply(
        uf::log1p(uf::exp2(uf::negative(uf::abs(uf::subtract(&x, &y)?)?)?)?)?,
        std::f64::consts::LOG2_E,
    )?;
    uf::where_(
        uf::equal(&x, &y)?,
        uf::add(&x, 1.0)?,
        uf::add(uf::maximum(&x, &y)?, tail)?,
    )
}

/// `a ** b` computed in float64 (complex128 for complex operands), as NumPy's `float_power`.
pub fn float_power(a: impl Into<Operand>, b: impl Into<Operand>) -> Result<Array> {
    let (a, b) = (a.into(), b.into());
    let device = device_of(&[&a, &b])?;
    let complex = [&a, &b].iter().any(|o| match o {
        Operand::Array(x) => x.dtype().is_complex(),
        Operand::Scalar(s) => matches!(s, Scalar::Complex { .. }),
    });
    let d = if complex {
        DType::Complex128
    } else {
        DType::F64
    };
    device.check(d)?;
    uf::power(as_array(&a, d, &device)?, as_array(&b, d, &device)?)
}

/// sin(pi x) / (pi x), 1 at 0 (NumPy's `sinc`, computed as NumPy does: pi x with 0 replaced
/// by the dtype's epsilon).
pub fn sinc(x: impl Into<Operand>) -> Result<Array> {
    let x = float_array(x.into(), "sinc")?;
    let eps = crate::finfo(x.dtype())?.eps;
    let px = uf::multiply(std::f64::consts::PI, &x)?;
    let y = uf::where_(uf::equal(&px, 0)?, eps, &px)?;
    uf::divide(uf::sin(&y)?, &y)
}

/// `(fractional part, integral part)`, both with the sign of `x` (NumPy's `modf`).
pub fn modf(x: impl Into<Operand>) -> Result<(Array, Array)> {
    let x = float_array(x.into(), "modf")?;
    let whole = uf::trunc(&x)?;
    let frac = uf::where_(uf::isinf(&x)?, 0.0, uf::subtract(&x, &whole)?)?;
    Ok((uf::copysign(frac, &x)?, whole))
}

/// `(a // b, a % b)` (NumPy's `divmod`).
pub fn divmod(a: impl Into<Operand>, b: impl Into<Operand>) -> Result<(Array, Array)> {
    let (a, b) = (a.into(), b.into());
    Ok((
        uf::floor_divide(a.clone(), b.clone())?,
        uf::remainder(a, b)?,
    ))
}
