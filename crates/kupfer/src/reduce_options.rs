//! NumPy's `initial=` and `where=` of the reductions: [`sum_with`], [`prod_with`],
//! [`max_with`], [`min_with`], [`any_with`], [`all_with`] and [`mean_with`]. The mask selects
//! the elements that take part (the others are replaced by the reduction's identity, or by
//! `initial` for max and min, in the reduction's fused input: no copy is written); `initial`
//! joins every output. [`var_with`], [`std_with`], [`nanvar_with`] and [`nanstd_with`] take
//! `where=` in two passes, as NumPy's `_var`. [`reduce_into`] is `out=`: a result written into an existing array.

use crate::array::Array;
use crate::reduce::{self, Axis};
use crate::scalar::Scalar;
use crate::ufuncs as uf;
use kupfer_core::layout::broadcast_shapes;
use kupfer_core::{DType, Error, Result};

/// The optional arguments of a reduction: `initial=` and `where=`.
#[derive(Debug, Clone, Default)]
pub struct ReduceOptions {
    /// A value every output starts from (for max and min it also makes empty reductions and
    /// masks possible).
    pub initial: Option<Scalar>,
    /// Which elements take part (broadcast to the input's shape).
    pub where_: Option<Array>,
}

impl ReduceOptions {
    /// Options with `initial=` set.
    pub fn initial(mut self, value: impl Into<Scalar>) -> Self {
        self.initial = Some(value.into());
        self
    }

    /// Options with `where=` set.
    pub fn where_(mut self, mask: &Array) -> Self {
        self.where_ = Some(mask.clone());
        self
    }
}

/// NumPy's `out=` of a reduction named `ufunc` (`"add"`, `"maximum"`, ...): writes `result`
/// into `out` in place (views of `out` see it) and returns `out`. `out` must have the result's
/// shape; the result is cast to `out`'s dtype whatever the kinds (NumPy's reductions cast
/// their `out=` unsafely: a float sum into an int32 array truncates).
///
/// ```
/// # use kupfer as kp;
/// let x = kp::Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
/// let out = kp::zeros(&[2], Some(kp::DType::F64))?;
/// kp::reduce_into(&out, &kp::sum(&x, 0, false)?, "add")?;
/// assert_eq!(out.to_vec::<f64>()?, vec![4.0, 6.0]);
/// # Ok::<(), kp::Error>(())
/// ```
pub fn reduce_into(out: &Array, result: &Array, ufunc: &str) -> Result<Array> {
    if out.shape() != result.shape() {
        return Err(Error::invalid(if out.ndim() != result.ndim() {
            format!(
                "output parameter for reduction operation {ufunc} has the wrong number of \
                 dimensions: Found {} but expected {}",
                out.ndim(),
                result.ndim()
            )
        } else {
            format!(
                "output parameter for reduction operation {ufunc} has shape {:?} but the \
                 result has shape {:?}",
                out.shape(),
                result.shape()
            )
        }));
    }
    let casting = kupfer_core::casting::Casting::Unsafe;
    crate::indexing::functions::copyto(out, result, casting, None)?;
    Ok(out.clone())
}

type Reduce = fn(&Array, Axis, bool) -> Result<Array>;

/// `a` with the elements outside the mask replaced by `fill` (the mask broadcast to `a`).
fn masked(a: &Array, mask: &Array, fill: Scalar) -> Result<Array> {
    let shape = broadcast_shapes(a.shape(), mask.shape()).map_err(|_| mask_error(a, mask))?;
    if shape != a.shape() {
        return Err(mask_error(a, mask));
    }
    uf::where_(mask, a, fill)
}

fn mask_error(a: &Array, mask: &Array) -> Error {
    Error::invalid(format!(
        "operands could not be broadcast together with remapped shapes [original->remapped]: \
         where= of shape {:?} does not broadcast to the input's shape {:?}",
        mask.shape(),
        a.shape()
    ))
}

/// A reduction with an identity (`sum`, `prod`, `any`, `all`): the mask fills with the
/// identity and `initial` joins the result through `join`.
fn with_identity(
    a: &Array,
    axis: Axis,
    keepdims: bool,
    opts: &ReduceOptions,
    identity: Scalar,
    reduce: Reduce,
    join: fn(Array, Scalar) -> Result<Array>,
) -> Result<Array> {
    let input = match &opts.where_ {
        Some(mask) => masked(a, mask, identity)?,
        None => a.clone(),
    };
    let r = reduce(&input, axis, keepdims)?;
    match opts.initial {
        Some(v) => {
            let d = r.dtype();
            join(r, v)?.astype(d)
        }
        None => Ok(r),
    }
}

/// Sum over `axis` with `initial=` and `where=` (NumPy's `sum(..., initial=, where=)`).
///
/// ```
/// # use kupfer as kp;
/// let a = kp::Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
/// let mask = kp::Array::from_slice(&[true, false], &[2])?;
/// let opts = kp::ReduceOptions::default().initial(10.0).where_(&mask);
/// assert_eq!(kp::sum_with(&a, 1, false, &opts)?.to_vec::<f32>()?, vec![11.0, 13.0]);
/// # Ok::<(), kp::Error>(())
/// ```
pub fn sum_with(
    a: &Array,
    axis: impl Into<Axis>,
    keepdims: bool,
    opts: &ReduceOptions,
) -> Result<Array> {
    let join = |r: Array, v: Scalar| uf::add(r, v);
    with_identity(
        a,
        axis.into(),
        keepdims,
        opts,
        Scalar::Bool(false),
        reduce::sum,
        join,
    )
}

/// Product over `axis` with `initial=` and `where=`.
pub fn prod_with(
    a: &Array,
    axis: impl Into<Axis>,
    keepdims: bool,
    opts: &ReduceOptions,
) -> Result<Array> {
    let join = |r: Array, v: Scalar| uf::multiply(r, v);
    with_identity(
        a,
        axis.into(),
        keepdims,
        opts,
        Scalar::Bool(true),
        reduce::prod,
        join,
    )
}

/// Any over `axis` with `initial=` and `where=`.
pub fn any_with(
    a: &Array,
    axis: impl Into<Axis>,
    keepdims: bool,
    opts: &ReduceOptions,
) -> Result<Array> {
    let join = |r: Array, v: Scalar| uf::logical_or(r, v);
    with_identity(
        a,
        axis.into(),
        keepdims,
        opts,
        Scalar::Bool(false),
        reduce::any,
        join,
    )
}

/// All over `axis` with `initial=` and `where=`.
pub fn all_with(
    a: &Array,
    axis: impl Into<Axis>,
    keepdims: bool,
    opts: &ReduceOptions,
) -> Result<Array> {
    let join = |r: Array, v: Scalar| uf::logical_and(r, v);
    with_identity(
        a,
        axis.into(),
        keepdims,
        opts,
        Scalar::Bool(true),
        reduce::all,
        join,
    )
}

/// Max or min: no identity, so a mask needs `initial` (NumPy's rule), which also stands in for
/// an empty reduction.
fn extremum(
    a: &Array,
    axis: Axis,
    keepdims: bool,
    opts: &ReduceOptions,
    name: &str,
    reduce: Reduce,
    join: fn(Array, Scalar) -> Result<Array>,
) -> Result<Array> {
    let Some(initial) = opts.initial else {
        if opts.where_.is_some() {
            return Err(Error::invalid(format!(
                "reduction operation '{name}' does not have an identity, so to use a where \
                 mask one has to specify 'initial'"
            )));
        }
        return reduce(a, axis, keepdims);
    };
    if a.size() == 0 {
        // Every output is `initial`: the shape comes from a sum over the same axes.
        let shape = reduce::sum(a, axis, keepdims)?;
        return crate::creation::full_like(&shape, initial, Some(a.dtype()));
    }
    let input = match &opts.where_ {
        Some(mask) => masked(a, mask, initial)?,
        None => a.clone(),
    };
    let r = reduce(&input, axis, keepdims)?;
    let d = r.dtype();
    join(r, initial)?.astype(d)
}

/// Maximum over `axis` with `initial=` and `where=` (a mask needs `initial`).
pub fn max_with(
    a: &Array,
    axis: impl Into<Axis>,
    keepdims: bool,
    opts: &ReduceOptions,
) -> Result<Array> {
    let join = |r: Array, v: Scalar| uf::maximum(r, v);
    extremum(a, axis.into(), keepdims, opts, "maximum", reduce::max, join)
}

/// Minimum over `axis` with `initial=` and `where=` (a mask needs `initial`).
pub fn min_with(
    a: &Array,
    axis: impl Into<Axis>,
    keepdims: bool,
    opts: &ReduceOptions,
) -> Result<Array> {
    let join = |r: Array, v: Scalar| uf::minimum(r, v);
    extremum(a, axis.into(), keepdims, opts, "minimum", reduce::min, join)
}

/// Mean over `axis` of the elements selected by `where` (NumPy's `mean(..., where=)`; NaN
/// where nothing is selected).
pub fn mean_with(a: &Array, axis: impl Into<Axis>, keepdims: bool, mask: &Array) -> Result<Array> {
    let axis = axis.into();
    // The mean over every element of the masked input, divided by the selected fraction.
    let total = reduce::mean(
        &masked(a, mask, Scalar::Bool(false))?,
        axis.clone(),
        keepdims,
    )?;
    let d = total.dtype();
    let ones = crate::creation::full_like(a, 1, Some(d))?;
    let fraction = reduce::mean(&masked(&ones, mask, Scalar::Bool(false))?, axis, keepdims)?;
    uf::divide(total, fraction)?.astype(d)
}

/// Variance over `axis` of the elements selected by `mask` (broadcast to `a`'s shape) with
/// `ddof` (NumPy's `var(..., where=)`): two passes as NumPy's `_var`, the mean of the selected
/// elements, then the sum of their squared deviations divided by `max(count - ddof, 0)` (so
/// inf or NaN where `ddof` reaches the count, NaN where nothing is selected). Integers give
/// float32 (float64 for int64); complex input gives its real dtype.
///
/// ```
/// # use kupfer as kp;
/// let a = kp::Array::from_slice(&[1.0f32, 9.0, 3.0, 5.0], &[4])?;
/// let mask = kp::Array::from_slice(&[true, false, true, true], &[4])?;
/// assert_eq!(kp::var_with(&a, kp::Axis::All, 1, false, &mask)?.to_vec::<f32>()?, vec![4.0]);
/// # Ok::<(), kp::Error>(())
/// ```
pub fn var_with(
    a: &Array,
    axis: impl Into<Axis>,
    ddof: u32,
    keepdims: bool,
    mask: &Array,
) -> Result<Array> {
    masked_moments(a, axis.into(), ddof, keepdims, mask, false)
}

/// Standard deviation of the elements selected by `mask` (the square root of [`var_with`]).
pub fn std_with(
    a: &Array,
    axis: impl Into<Axis>,
    ddof: u32,
    keepdims: bool,
    mask: &Array,
) -> Result<Array> {
    uf::sqrt(var_with(a, axis, ddof, keepdims, mask)?)
}

/// Variance of the non-NaN elements selected by `mask` (NumPy's `nanvar(..., where=)`): NaN
/// where `count - ddof <= 0` for float input (NumPy's nanvar), as [`var_with`] for integers.
pub fn nanvar_with(
    a: &Array,
    axis: impl Into<Axis>,
    ddof: u32,
    keepdims: bool,
    mask: &Array,
) -> Result<Array> {
    let nan_aware = a.dtype().is_float() || a.dtype().is_complex();
    masked_moments(a, axis.into(), ddof, keepdims, mask, nan_aware)
}

/// Standard deviation of the non-NaN elements selected by `mask` (the root of [`nanvar_with`]).
pub fn nanstd_with(
    a: &Array,
    axis: impl Into<Axis>,
    ddof: u32,
    keepdims: bool,
    mask: &Array,
) -> Result<Array> {
    uf::sqrt(nanvar_with(a, axis, ddof, keepdims, mask)?)
}

/// The masked variance: `skip_nan` also deselects NaN elements and gives NaN (not inf) where
/// the degrees of freedom are not positive.
fn masked_moments(
    a: &Array,
    axis: Axis,
    ddof: u32,
    keepdims: bool,
    mask: &Array,
    skip_nan: bool,
) -> Result<Array> {
    let d = a.dtype();
    let (acc, result) = match d {
        DType::Complex64 | DType::Complex128 => (d, d.real_part()),
        DType::F64 | DType::I64 | DType::U64 => (DType::F64, DType::F64),
        DType::F16 => (DType::F32, DType::F16),
        _ => (DType::F32, DType::F32),
    };
    let real = acc.real_part();
    let shape = broadcast_shapes(a.shape(), mask.shape()).map_err(|_| mask_error(a, mask))?;
    if shape != a.shape() {
        return Err(mask_error(a, mask));
    }
    let selected = mask.astype(DType::Bool)?.broadcast_to(a.shape())?;
    let selected = if skip_nan {
        uf::logical_and(&selected, uf::logical_not(uf::isnan(a)?)?)?
    } else {
        selected
    };
    let x = a.astype(acc)?;
    let count_kept = reduce::sum(&selected.astype(real)?, axis.clone(), true)?;
    let total = reduce::sum(&uf::where_(&selected, &x, 0)?, axis.clone(), true)?;
    let mean = uf::divide(total, count_kept)?.astype(acc)?;
    let deviation = uf::where_(&selected, uf::subtract(&x, &mean)?, 0)?;
    let squares = if acc.is_complex() {
        let (re, im) = (uf::real(&deviation)?, uf::imag(&deviation)?);
        uf::add(uf::multiply(&re, &re)?, uf::multiply(&im, &im)?)?
    } else {
        uf::multiply(&deviation, &deviation)?
    };
    let sum_squares = reduce::sum(&squares, axis.clone(), keepdims)?;
    let count = reduce::sum(&selected.astype(real)?, axis, keepdims)?;
    let dof = uf::subtract(&count, f64::from(ddof))?;
    let v = if skip_nan {
        let v = uf::divide(&sum_squares, &dof)?;
        uf::where_(uf::less_equal(&dof, 0)?, f64::NAN, v)?
    } else {
        uf::divide(&sum_squares, uf::maximum(&dof, 0)?)?
    };
    v.astype(result)
}
