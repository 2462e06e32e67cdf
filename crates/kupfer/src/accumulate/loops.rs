//! How a `ufunc.at` computes when the values' dtype is not the destination's. NumPy resolves
//! the ufunc's loop on (destination dtype, values dtype) (values converted as `np.asarray`
//! converts them: a Python int is int64, or uint64 from 2**63, a float float64), computes
//! each step there and casts the result back into the destination with the unsafe cast, one
//! step after another. kupfer takes one of three routes:
//!
//! - [`Route::Direct`]: the values cast to the destination's dtype first give the same
//!   result (the loop is the destination's dtype; integer sums and products wrap alike in
//!   any width; extrema of floats commute with the monotone float casts; a complex value's
//!   real part is all a real destination keeps).
//! - [`Route::Wide`]: a compare-exchange loop that computes each step in the loop dtype
//!   (integer destinations with float values, bool destinations with numbers, float16 and
//!   float32 destinations with wider values; `IndexKernel::AccumulateWide`). Steps at one
//!   element apply in an unspecified order, as float sums do.
//! - [`Route::Extrema`]: `maximum`/`minimum` into integer or bool destinations of values
//!   their dtype cannot hold. Every step is either "replace by `c`" (a value above the range
//!   of `maximum`, NaN) or "the extremum with `c`" (a value in range; `c` the destination's
//!   bound for one beyond it on the other side), with `c` in the destination's dtype; so the
//!   element ends as `c` of its last replacing step combined with the extremum of the steps
//!   after it, in NumPy's order: a claim pass finds each element's last replacing position,
//!   it writes its `c`, and the later steps' extrema follow atomically.

use crate::array::Array;
use crate::device::Device;
use crate::fusion::Lazy;
use crate::scalar::{Operand, Scalar};
use crate::ufuncs::{
    greater, isnan, less, logical_and, logical_not, logical_or, not_equal, where_,
};
use kupfer_core::dtype::Kind;
use kupfer_core::indexing::AtOp;
use kupfer_core::promote::{numpy_result_type, result_type};
use kupfer_core::{DType, Error, Result};

/// The route of one `ufunc.at` (see the module).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Route {
    /// Values cast to the destination's dtype first.
    Direct,
    /// A compare-exchange loop computing in this dtype.
    Wide(DType),
    /// Replacing steps claimed in order, then the extrema after them.
    Extrema,
}

/// The dtype NumPy gives `values` in a `ufunc.at` (`np.asarray`'s): an array's own, a Python
/// int's int64 (uint64 from 2**63; beyond, NumPy's OverflowError), float64, complex128, bool.
/// A Python scalar's 64-bit dtype the device lacks is its 32-bit counterpart.
pub(crate) fn value_dtype(device: &Device, values: &Operand) -> Result<DType> {
    let s = match values {
        Operand::Array(v) => return Ok(v.dtype()),
        Operand::Scalar(s) => *s,
    };
    let (wide, narrow) = match s {
        Scalar::Bool(_) => return Ok(DType::Bool),
        Scalar::Int(_) => (DType::I64, DType::I32),
        Scalar::BigInt(i) if (0..1i128 << 64).contains(&i) => (DType::U64, DType::U32),
        Scalar::BigInt(_) => {
            return Err(Error::invalid("Python int too large to convert to C long"));
        }
        Scalar::Float(_) => (DType::F64, DType::F32),
        Scalar::Complex { .. } => (DType::Complex128, DType::Complex64),
    };
    Ok(if device.check(wide).is_ok() {
        wide
    } else {
        narrow
    })
}

/// The loop dtype a wide route computes in: NumPy's loop where the device has it, else
/// kupfer's 32-bit counterpart; small integers compute in their 32-bit word.
fn loop_dtype(device: &Device, dst: DType, values: DType) -> Result<DType> {
    let numpy = numpy_result_type(dst, values);
    if device.check(numpy).is_ok() {
        return Ok(numpy);
    }
    result_type(dst, values)
}

/// The route of `np.<op>.at` into `dst` with values of dtype `values` (see the module).
pub(crate) fn route(device: &Device, op: AtOp, dst: DType, values: DType) -> Result<Route> {
    // A real destination keeps a complex step's real part only.
    let values = if values.is_complex() && !dst.is_complex() {
        values.real_part()
    } else {
        values
    };
    if numpy_result_type(dst, values) == dst {
        return Ok(Route::Direct);
    }
    let extrema = matches!(op, AtOp::Maximum | AtOp::Minimum);
    let small = dst.bits() <= 32;
    let unsupported = || {
        Err(Error::unsupported(format!(
            "np.{}.at of {values} values into a {dst} array (NumPy computes it in {} and casts \
             back; kupfer does that for destinations of 32 bits and fewer)",
            op.name(),
            numpy_result_type(dst, values)
        )))
    };
    let wide = |l: DType| -> Result<Route> {
        let l = loop_dtype(device, dst, l)?;
        Ok(if l == dst {
            Route::Direct
        } else {
            Route::Wide(l)
        })
    };
    Ok(match dst.kind() {
        Kind::Complex => Route::Direct,
        Kind::Float if extrema || dst == DType::F64 => Route::Direct,
        Kind::Float => wide(values)?,
        Kind::Bool if extrema => Route::Extrema,
        Kind::Bool => wide(values)?,
        Kind::Int => {
            let loop_is_int = numpy_result_type(dst, values).kind() == Kind::Int;
            match (loop_is_int, extrema, small) {
                // Sums and products wrap alike in every integer width.
                (true, false, _) => Route::Direct,
                (_, true, true) => Route::Extrema,
                (false, false, true) => wide(values)?,
                _ => return unsupported(),
            }
        }
    })
}

/// One of the parts of an extremum step, as an expression or a host constant.
fn lazy_of(device: &Device, x: Operand, dtype: DType) -> Result<Lazy> {
    Ok(match x {
        Operand::Scalar(s) => Lazy::scalar(s.encode(dtype)?, dtype),
        Operand::Array(a) => {
            a.device().same(device)?;
            a.lazy()?.cast(dtype)
        }
    })
}

/// The steps of an [`Route::Extrema`] `ufunc.at` into `dst`: (replaces, `c`), a bool and a
/// value of `dst`'s dtype per value (see the module).
pub(crate) fn extrema_steps(
    device: &Device,
    op: AtOp,
    dst: DType,
    values: &Operand,
) -> Result<(Lazy, Lazy)> {
    let v: Array = match values {
        Operand::Array(v) => v.clone(),
        Operand::Scalar(s) => {
            let d = value_dtype(device, values)?;
            crate::creation::full_on(device, &[], *s, Some(d))?
        }
    };
    let v = if v.dtype().is_complex() {
        v.astype(v.dtype().real_part())?
    } else {
        v
    };
    let max = op == AtOp::Maximum;
    let no = || Operand::Scalar(Scalar::Bool(false));
    let (replaces, c): (Operand, Operand) = if dst == DType::Bool {
        // max(x, v) != 0: true for v > 0 or NaN, else x. min(x, v) != 0: x for v > 0,
        // else replaced by v != 0 (NaN and negatives are true).
        let positive = greater(&v, 0)?;
        if max {
            let c = if v.dtype().is_float() {
                logical_or(&positive, &isnan(&v)?)?
            } else {
                positive
            };
            (no(), c.into())
        } else {
            (logical_not(&positive)?.into(), not_equal(&v, 0)?.into())
        }
    } else {
        let (lo, hi) = dst
            .int_range()
            .ok_or_else(|| Error::invalid(format!("extremum steps into {dst}")))?;
        let (lo_s, hi_s) = (Scalar::int(lo), Scalar::int(hi));
        if v.dtype().is_float() {
            let cast = x86_cast(device, &v, dst)?;
            // Compared exactly: float16 widened, the bounds as floats of the values' width.
            let w = if v.dtype() == DType::F64 {
                v.clone()
            } else {
                v.astype(DType::F32)?
            };
            let (lo_f, hi_f) = (Scalar::Float(lo as f64), Scalar::Float(hi as f64));
            let nan = isnan(&w)?;
            if max {
                let replaces = logical_or(&nan, &greater(&w, hi_f)?)?;
                let c = where_(&less(&w, lo_f)?, lo_s, &cast)?;
                (replaces.into(), c.into())
            } else {
                let replaces = logical_or(&nan, &less(&w, lo_f)?)?;
                let c = where_(&greater(&w, hi_f)?, hi_s, &cast)?;
                (replaces.into(), c.into())
            }
        } else {
            let cast = v.astype(dst)?;
            let (vlo, vhi) = v
                .dtype()
                .int_range()
                .ok_or_else(|| Error::invalid(format!("extremum steps of {}", v.dtype())))?;
            // Comparisons only against bounds inside the values' own range.
            let above = |b: i128| -> Result<Operand> {
                Ok(if vhi > b {
                    greater(&v, Scalar::int(b))?.into()
                } else {
                    no()
                })
            };
            let below = |b: i128| -> Result<Operand> {
                Ok(if vlo < b {
                    less(&v, Scalar::int(b))?.into()
                } else {
                    no()
                })
            };
            if max {
                (above(hi)?, where_(below(lo)?, lo_s, &cast)?.into())
            } else {
                (below(lo)?, where_(above(hi)?, hi_s, &cast)?.into())
            }
        }
    };
    Ok((
        lazy_of(device, replaces, DType::Bool)?,
        lazy_of(device, c, dst)?,
    ))
}

/// A Python int `i` wrapped into the integer dtype `dst` (NumPy's int64 loop cast back).
pub(crate) fn wrap_int(i: i128, dst: DType) -> Scalar {
    let bits = dst.bits();
    let modulus = 1i128 << bits;
    let mut m = i.rem_euclid(modulus);
    if dst.is_signed_int() && m >= modulus / 2 {
        m -= modulus;
    }
    Scalar::int(m)
}

/// Float values cast to the integer dtype `dst` (32 bits or fewer) as NumPy's C casts convert
/// on x86-64 (see `kupfer_core::indexing::x86_float_to_int`, the kernels' form): through a
/// 32-bit conversion whose out-of-range result is -2**31, then wrapped; uint32 through a
/// 64-bit one where the device has int64.
fn x86_cast(device: &Device, v: &Array, dst: DType) -> Result<Array> {
    let w = if v.dtype() == DType::F64 {
        v.clone()
    } else {
        v.astype(DType::F32)?
    };
    let between = |lo: f64, hi: f64| -> Result<Array> {
        logical_and(
            &greater(&w, Scalar::Float(lo))?,
            &less(&w, Scalar::Float(hi))?,
        )
    };
    if dst == DType::U32 && device.check(DType::I64).is_ok() {
        let inside = between(-9223372036854775808.0, 9223372036854775808.0)?;
        return where_(&inside, &w.astype(DType::I64)?.astype(DType::U32)?, 0);
    }
    let inside = between(-2147483649.0, 2147483648.0)?;
    where_(&inside, &w.astype(DType::I32)?, i32::MIN)?.astype(dst)
}
