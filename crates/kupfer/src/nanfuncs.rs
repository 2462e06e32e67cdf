//! NaN-ignoring reductions (NumPy's `nanfunctions`): `nansum`, `nanprod`, `nanmax`, `nanmin`,
//! `nanargmax`, `nanargmin`, `nanmean`, `nanvar`, `nanstd`. Each is one fused reduction (the
//! NaN test is part of the map); integer and bool inputs have no NaN and reduce as usual.

use crate::array::Array;
use crate::reduce::{self, reduce_raw, reduced_axes, Axis, Spec};
use crate::ufuncs;
use kupfer_core::reduce::{sum_acc, sum_result, Combine};
use kupfer_core::{DType, Result};

fn has_nan(a: &Array) -> bool {
    a.dtype().is_float()
}

/// Sum ignoring NaN (NaN counts as 0).
pub fn nansum(a: &Array, axis: impl Into<Axis>, keepdims: bool) -> Result<Array> {
    if !has_nan(a) {
        return reduce::sum(a, axis, keepdims);
    }
    reduce::sum(&ufuncs::where_(ufuncs::isnan(a)?, 0.0, a)?, axis, keepdims)
}

/// Product ignoring NaN (NaN counts as 1).
pub fn nanprod(a: &Array, axis: impl Into<Axis>, keepdims: bool) -> Result<Array> {
    if !has_nan(a) {
        return reduce::prod(a, axis, keepdims);
    }
    reduce::prod(&ufuncs::where_(ufuncs::isnan(a)?, 1.0, a)?, axis, keepdims)
}

fn nan_extreme(
    a: &Array,
    axis: Axis,
    keepdims: bool,
    combine: Combine,
    name: &'static str,
) -> Result<Array> {
    let d = a.dtype();
    let acc = if d == DType::Bool { DType::U32 } else { d };
    reduce_raw(
        a,
        &axis,
        keepdims,
        Spec {
            combine,
            acc,
            out: d,
            ddof: 0,
            name,
        },
    )
}

/// Maximum ignoring NaN (NaN where every value is NaN).
pub fn nanmax(a: &Array, axis: impl Into<Axis>, keepdims: bool) -> Result<Array> {
    nan_extreme(a, axis.into(), keepdims, Combine::NanMax, "fmax")
}

/// Minimum ignoring NaN (NaN where every value is NaN).
pub fn nanmin(a: &Array, axis: impl Into<Axis>, keepdims: bool) -> Result<Array> {
    nan_extreme(a, axis.into(), keepdims, Combine::NanMin, "fmin")
}

fn nan_arg(
    a: &Array,
    axis: Option<isize>,
    keepdims: bool,
    combine: Combine,
    name: &'static str,
) -> Result<Array> {
    let arg = if combine == Combine::NanArgMax {
        reduce::argmax
    } else {
        reduce::argmin
    };
    if !has_nan(a) && !a.dtype().is_complex() {
        return arg(a, axis, keepdims);
    }
    // NumPy raises for an all-NaN slice: check it first (one small reduction and read-back).
    let ax: Axis = axis.into();
    #[cfg(not(target_arch = "wasm32"))]
    {
        let all_nan = reduce::all(&ufuncs::isnan(a)?, ax.clone(), false)?;
        let any_all_nan = reduce::any(&all_nan, Axis::All, false)?.item()?;
        if any_all_nan == crate::Scalar::Bool(true) {
            return Err(kupfer_core::Error::invalid("All-NaN slice encountered"));
        }
    }
    if a.dtype().is_complex() {
        // NumPy's complex nanargmax/nanargmin: an element with a NaN part becomes -inf+0j
        // (+inf+0j for nanargmin), then the lexicographic argmax/argmin (so a replaced
        // element ties with a genuine -inf+0j, and the first of them wins).
        let inf = if combine == Combine::NanArgMax {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
        let fill = crate::Scalar::Complex { re: inf, im: 0.0 };
        return arg(&ufuncs::where_(ufuncs::isnan(a)?, fill, a)?, axis, keepdims);
    }
    let acc = if a.dtype().is_64bit() {
        a.dtype()
    } else {
        DType::U32
    };
    let s = Spec {
        combine,
        acc,
        out: a.device().default_int(),
        ddof: 0,
        name,
    };
    match axis {
        Some(_) => reduce_raw(a, &ax, keepdims, s),
        None => {
            let flat = reduce_raw(&a.reshape(&[-1])?, &Axis::All, false, s)?;
            if keepdims {
                flat.reshape(&vec![1; a.ndim()])
            } else {
                Ok(flat)
            }
        }
    }
}

/// Index of the maximum ignoring NaN; an all-NaN slice is an error, as in NumPy. Complex
/// values compare lexicographically, and one with a NaN part is skipped.
pub fn nanargmax(a: &Array, axis: Option<isize>, keepdims: bool) -> Result<Array> {
    nan_arg(a, axis, keepdims, Combine::NanArgMax, "nanargmax")
}

/// Index of the minimum ignoring NaN; an all-NaN slice is an error, as in NumPy. Complex
/// values compare lexicographically, and one with a NaN part is skipped.
pub fn nanargmin(a: &Array, axis: Option<isize>, keepdims: bool) -> Result<Array> {
    nan_arg(a, axis, keepdims, Combine::NanArgMin, "nanargmin")
}

/// Mean of the non-NaN values (NaN where there are none).
pub fn nanmean(a: &Array, axis: impl Into<Axis>, keepdims: bool) -> Result<Array> {
    if !has_nan(a) {
        return reduce::mean(a, axis, keepdims);
    }
    let axis = axis.into();
    let d = a.dtype();
    let acc = sum_acc(d);
    let clean = ufuncs::where_(ufuncs::isnan(a)?, 0.0, a)?;
    let total = reduce_raw(
        &clean,
        &axis,
        keepdims,
        Spec {
            combine: Combine::Sum,
            acc,
            out: acc,
            ddof: 0,
            name: "add",
        },
    )?;
    let count = reduce::sum(&ufuncs::logical_not(ufuncs::isnan(a)?)?, axis, keepdims)?;
    ufuncs::divide(&total, &count)?.astype(sum_result(d))
}

/// Variance of the non-NaN values with `ddof`, in one pass.
pub fn nanvar(a: &Array, axis: impl Into<Axis>, ddof: u32, keepdims: bool) -> Result<Array> {
    if !has_nan(a) {
        return reduce::var(a, axis, ddof, keepdims);
    }
    let axis = axis.into();
    let axes = reduced_axes(&axis, a.ndim())?;
    let d = a.dtype();
    let acc = if d == DType::F64 {
        DType::F64
    } else {
        DType::F32
    };
    // The kernel shifts each line by its first value (the variance is shift-invariant, and
    // small shifted values keep f32 accurate when the mean is large relative to the spread),
    // but a NaN first value cannot serve. Shift by the line's NaN-ignoring maximum instead,
    // in the accumulator dtype and fused into the reduction's input. An all-NaN line stays
    // all NaN; a line with an infinity gets a non-finite mean and so NaN, as in NumPy.
    let count: usize = axes.iter().map(|&i| a.shape()[i]).product();
    let a = &if count > 0 && a.size() > 0 {
        let x = a.astype(acc)?;
        let shift = nan_extreme(&x, axis.clone(), true, Combine::NanMax, "fmax")?;
        ufuncs::subtract(&x, &shift)?
    } else {
        a.clone()
    };
    let s = Spec {
        combine: Combine::NanMoments,
        acc,
        out: acc,
        ddof,
        name: "nanvar",
    };
    reduce_raw(a, &axis, keepdims, s)?.astype(d)
}

/// Standard deviation of the non-NaN values with `ddof`.
pub fn nanstd(a: &Array, axis: impl Into<Axis>, ddof: u32, keepdims: bool) -> Result<Array> {
    ufuncs::sqrt(&nanvar(a, axis, ddof, keepdims)?)
}
