//! Covariance and correlation matrices: [`cov`] and [`corrcoef`] as NumPy computes them. The
//! variables' means (weighted where frequency or analytic weights are given) are subtracted,
//! then one matrix product of the centred observations with their (weighted) conjugate
//! transpose gives every pair at once, scaled by the reciprocal of the degrees of freedom.
//!
//! Dtypes: the computation runs in float32 for 32-bit and smaller inputs and in float64 for
//! 64-bit ones (NumPy always promotes with float64; kupfer never widens 32-bit operands);
//! complex input stays complex. `dtype=` chooses the type, which must be inexact.
//!
//! The weights' values are checked (whole numbers, not negative, a non-zero sum) by reading
//! them back, so weighted [`cov`] is native only and [`cov_async`] serves everywhere.

use crate::array::Array;
use crate::reduce::{self, Axis};
use crate::ufuncs as uf;
use kupfer_core::{DType, Error, Result};

/// The keyword arguments of [`cov`] (NumPy's `rowvar`, `bias`, `ddof`, `fweights`,
/// `aweights` and `dtype`); `Default` is NumPy's defaults.
#[derive(Debug, Clone)]
pub struct CovOptions {
    /// Each row is a variable and each column an observation (`false`: the transpose).
    pub rowvar: bool,
    /// Normalise by the number of observations `N` rather than `N - 1` (unless `ddof` is set).
    pub bias: bool,
    /// Delta degrees of freedom, overriding `bias` (`None`: 1, or 0 with `bias`).
    pub ddof: Option<i64>,
    /// Integer frequency weights, one per observation.
    pub fweights: Option<Array>,
    /// Analytic (reliability) weights, one per observation.
    pub aweights: Option<Array>,
    /// The type of the computation and result (float or complex).
    pub dtype: Option<DType>,
}

impl Default for CovOptions {
    fn default() -> Self {
        CovOptions {
            rowvar: true,
            bias: false,
            ddof: None,
            fweights: None,
            aweights: None,
            dtype: None,
        }
    }
}

/// The covariance matrix of the variables in `m` (and `y`, stacked below them), NumPy's
/// `np.cov`: `[n, n]` for `n` variables, squeezed (one variable gives a 0-d array).
///
/// ```
/// # use kupfer as kp;
/// let m = kp::Array::from_slice(&[0.0f32, 1.0, 2.0, 2.0, 1.0, 0.0], &[2, 3])?;
/// let c = kp::cov(&m, None, &kp::CovOptions::default())?;
/// assert_eq!(c.to_vec::<f32>()?, vec![1.0, -1.0, -1.0, 1.0]);
/// # Ok::<(), kp::Error>(())
/// ```
///
/// With `fweights` or `aweights` it reads their checks back, so in the browser it refuses
/// them: use [`cov_async`] there.
pub fn cov(m: &Array, y: Option<&Array>, opts: &CovOptions) -> Result<Array> {
    if opts.fweights.is_none() && opts.aweights.is_none() {
        let Some(observations) = variables(m, y, opts.rowvar, opts.dtype)? else {
            return empty(m, opts.dtype);
        };
        return centred_product(&observations, None, None, ddof(opts));
    }
    #[cfg(not(target_arch = "wasm32"))]
    return pollster::block_on(cov_async(m, y, opts));
    #[cfg(target_arch = "wasm32")]
    Err(Error::unsupported(
        "cov with fweights or aweights in the browser (their values are checked by reading \
         them back, and the page must not block): use cov_async",
    ))
}

/// [`cov`], async (the browser's form: weights are checked by reading them back).
pub async fn cov_async(m: &Array, y: Option<&Array>, opts: &CovOptions) -> Result<Array> {
    let Some(observations) = variables(m, y, opts.rowvar, opts.dtype)? else {
        return empty(m, opts.dtype);
    };
    let n = observations.shape()[1];
    let real = observations.dtype().real_part();
    let fweights = match &opts.fweights {
        Some(f) => Some(checked_weights(f, "fweights", n, real, true).await?),
        None => None,
    };
    let aweights = match &opts.aweights {
        Some(a) => Some(checked_weights(a, "aweights", n, real, false).await?),
        None => None,
    };
    let weights = match (&fweights, &aweights) {
        (Some(f), Some(a)) => Some(uf::multiply(f, a)?),
        (Some(w), None) | (None, Some(w)) => Some(w.clone()),
        (None, None) => None,
    };
    if let Some(w) = &weights
        && scalar(&reduce::sum(w, Axis::All, false)?).await? == 0.0
    {
        return Err(Error::invalid("Weights sum to zero, can't be normalized"));
    }
    centred_product(
        &observations,
        weights.as_ref(),
        aweights.as_ref(),
        ddof(opts),
    )
}

/// The correlation coefficients of the variables in `x` (and `y`), NumPy's `np.corrcoef`:
/// the covariance divided by the outer product of the standard deviations, real parts (and
/// imaginary parts) clipped to [-1, 1]. One variable gives `c / c` (1, or NaN).
///
/// ```
/// # use kupfer as kp;
/// let x = kp::Array::from_slice(&[1.0f32, 2.0, 3.0, 3.0, 2.0, 1.0], &[2, 3])?;
/// let r = kp::corrcoef(&x, None, true, None)?;
/// assert_eq!(r.to_vec::<f32>()?, vec![1.0, -1.0, -1.0, 1.0]);
/// # Ok::<(), kp::Error>(())
/// ```
pub fn corrcoef(x: &Array, y: Option<&Array>, rowvar: bool, dtype: Option<DType>) -> Result<Array> {
    let Some(observations) = variables(x, y, rowvar, dtype)? else {
        return empty(x, dtype);
    };
    let c = centred_product(&observations, None, None, 1)?;
    if c.ndim() == 0 {
        return uf::divide(&c, &c);
    }
    let deviation = uf::sqrt(uf::real(crate::linalg::diagonal(&c, 0, 0, 1)?)?)?;
    let c = uf::divide(
        uf::divide(&c, deviation.expand_dims(1)?)?,
        deviation.expand_dims(0)?,
    )?;
    if c.dtype().is_complex() {
        let re = uf::clip(uf::real(&c)?, -1.0, 1.0)?;
        let im = uf::clip(uf::imag(&c)?, -1.0, 1.0)?;
        uf::add(
            re,
            uf::multiply(im, crate::Scalar::Complex { re: 0.0, im: 1.0 })?,
        )?
        .astype(c.dtype())
    } else {
        uf::clip(&c, -1.0, 1.0)
    }
}

/// NumPy's `ddof` rule: `ddof`, else 1 (0 with `bias`).
fn ddof(opts: &CovOptions) -> i64 {
    opts.ddof.unwrap_or(if opts.bias { 0 } else { 1 })
}

/// The computation's dtype: `dtype=` (which must be inexact), else float32 for 32-bit and
/// smaller inputs, float64 for 64-bit ones, complex kept.
fn compute_dtype(m: &Array, y: Option<&Array>, dtype: Option<DType>) -> Result<DType> {
    if let Some(d) = dtype {
        if d.is_float() || d.is_complex() {
            return Ok(d);
        }
        let from = if m.device().supports(DType::F64) {
            "float64"
        } else {
            "float32"
        };
        return Err(Error::invalid(format!(
            "Cannot cast ufunc 'subtract' output from dtype('{from}') to dtype('{}') with \
             casting rule 'same_kind'",
            d.name()
        )));
    }
    let d = match y {
        Some(y) => kupfer_core::promote::result_type(m.dtype(), y.dtype())?,
        None => m.dtype(),
    };
    Ok(match d {
        DType::Complex64 | DType::Complex128 | DType::F64 => d,
        DType::I64 | DType::U64 => DType::F64,
        _ => DType::F32,
    })
}

/// The observations as `[variables, observations]` in the computation's dtype (`m`'s
/// variables, then `y`'s), or `None` when `m` has no variables (NumPy returns a `[0, 0]`
/// array then, before looking at `y`).
fn variables(
    m: &Array,
    y: Option<&Array>,
    rowvar: bool,
    dtype: Option<DType>,
) -> Result<Option<Array>> {
    if m.ndim() > 2 {
        return Err(Error::invalid("m has more than 2 dimensions"));
    }
    if y.is_some_and(|y| y.ndim() > 2) {
        return Err(Error::invalid("y has more than 2 dimensions"));
    }
    let d = compute_dtype(m, y, dtype)?;
    let mut x = crate::manip::atleast_2d(&m.astype(d)?)?;
    if !rowvar && m.ndim() != 1 {
        x = x.t()?;
    }
    if x.shape()[0] == 0 {
        return Ok(None);
    }
    if let Some(y) = y {
        let mut y = crate::manip::atleast_2d(&y.astype(d)?)?;
        if !rowvar && y.shape()[0] != 1 {
            y = y.t()?;
        }
        x = crate::manip::concatenate(&[x, y], Some(0), None)?;
    }
    Ok(Some(x))
}

/// NumPy's result for no variables: a `[0, 0]` array.
fn empty(m: &Array, dtype: Option<DType>) -> Result<Array> {
    let d = compute_dtype(m, None, dtype)?;
    crate::creation::full_on(m.device(), &[0, 0], 0i64, Some(d))
}

/// `weights` checked as NumPy's `cov` does (whole numbers for frequency weights, one axis,
/// one per observation, none negative) and cast to `real`.
async fn checked_weights(
    weights: &Array,
    name: &str,
    observations: usize,
    real: DType,
    whole: bool,
) -> Result<Array> {
    let w = weights.astype(real)?;
    if whole && w.size() > 0 {
        let fractional = reduce::any(&uf::not_equal(&w, uf::round(&w, 0)?)?, Axis::All, false)?;
        if scalar(&fractional).await? != 0.0 {
            return Err(Error::invalid(format!("{name} must be integer")));
        }
    }
    if w.ndim() > 1 {
        return Err(Error::invalid(format!(
            "cannot handle multidimensional {name}"
        )));
    }
    if w.ndim() == 0 {
        return Err(Error::invalid("tuple index out of range"));
    }
    if w.shape()[0] != observations {
        return Err(Error::invalid(format!(
            "incompatible numbers of samples and {name}"
        )));
    }
    if w.size() > 0 {
        let negative = reduce::any(&uf::less(&w, 0)?, Axis::All, false)?;
        if scalar(&negative).await? != 0.0 {
            return Err(Error::invalid(format!("{name} cannot be negative")));
        }
    }
    Ok(w)
}

async fn scalar(a: &Array) -> Result<f64> {
    Ok(a.item_async().await?.as_f64())
}

/// The covariance of `x` (`[variables, observations]`): the (weighted) means subtracted, one
/// matrix product with the conjugate transpose, times `1 / fact` (NumPy's normalisation, 0
/// and so inf where the degrees of freedom are not positive), squeezed.
fn centred_product(
    x: &Array,
    weights: Option<&Array>,
    aweights: Option<&Array>,
    ddof: i64,
) -> Result<Array> {
    let n = x.shape()[1];
    let (centred, weighted) = match weights {
        None => {
            let mean = reduce::mean(x, Axis::Many(vec![1]), true)?.astype(x.dtype())?;
            let centred = uf::subtract(x, &mean)?;
            (centred.clone(), centred)
        }
        Some(w) => {
            let w_sum = reduce::sum(w, Axis::All, false)?;
            let total = reduce::sum(&uf::multiply(x, w)?, Axis::Many(vec![1]), true)?;
            let mean = uf::divide(total, &w_sum)?.astype(x.dtype())?;
            let centred = uf::subtract(x, &mean)?;
            let weighted = uf::multiply(&centred, w)?;
            (centred, weighted)
        }
    };
    let right = if x.dtype().is_complex() {
        uf::conjugate(weighted.t()?)?
    } else {
        weighted.t()?
    };
    let product = crate::matmul::matmul(&centred, &right)?;
    let c = match weights {
        None => {
            let fact = (n as f64 - ddof as f64).max(0.0);
            uf::multiply(product, 1.0 / fact)?
        }
        Some(w) => {
            let w_sum = reduce::sum(w, Axis::All, false)?;
            let fact = match (ddof, aweights) {
                (0, _) => w_sum,
                (_, None) => uf::subtract(&w_sum, ddof as f64)?,
                (_, Some(a)) => {
                    let wa = reduce::sum(&uf::multiply(w, a)?, Axis::All, false)?;
                    let correction = uf::divide(uf::multiply(wa, ddof as f64)?, &w_sum)?;
                    uf::subtract(&w_sum, correction)?
                }
            };
            let fact = uf::where_(uf::less_equal(&fact, 0)?, 0, &fact)?;
            let reciprocal = uf::divide(1.0, &fact)?;
            uf::multiply(product, reciprocal)?.astype(x.dtype())?
        }
    };
    c.squeeze(None)
}
