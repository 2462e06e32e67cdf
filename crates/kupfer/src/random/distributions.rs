//! The distributions of [`Generator`]: each a lazy draw of a primitive (uniform, normal,
//! bounded integer; see [`kupfer_core::random`]) composed with elementwise functions, so a
//! draw and everything done to it elementwise run as one kernel.
//!
//! Parameters broadcast (`normal(mu_array, 2.0, None)`); results are float32 unless a
//! parameter array is float64 (kupfer's rule: 32-bit operands are never widened implicitly).
//! Invalid parameters give NumPy's errors (`scale < 0`, ...): scalars are checked on the host;
//! arrays natively by a reduction read back (not on wasm32, where reads cannot block).
//!
//! float32 draws with float parameters of uniform, laplace, logistic, gumbel, weibull, pareto,
//! power, rayleigh, standard_cauchy, wald, triangular, geometric, logseries, vonmises (these
//! in float64 too: [`kupfer_core::random::transforms64`]), poisson,
//! binomial, negative_binomial, zipf and hypergeometric (float32 or float64, `counts.rs`),
//! and the quotients of beta, f, standard_t, dirichlet and noncentral_chisquare are
//! one deterministic kernel each
//! ([`kupfer_core::random::transforms`]): the same bits on every driver, unless
//! `KUPFER_RANDDET=off`.

use super::{float_dtype, out_shape, Generator};
use crate::array::Array;
use crate::scalar::{Operand, Scalar};
use crate::ufuncs as uf;
use kupfer_core::random::transforms::{self, Transform};
use kupfer_core::random::RandomOp;
use kupfer_core::SliceArg;
use kupfer_core::{DType, Error, Result};

/// A parameter's validity rule.
#[derive(Clone, Copy)]
enum Rule {
    /// Must be >= 0.
    NonNegative,
    /// Must be > 0.
    Positive,
    /// Must be in [0, 1].
    Probability,
    /// Must be in [0, 1); NaN fails too.
    BelowOne,
}

impl Rule {
    fn bad(self, x: f64) -> bool {
        match self {
            Rule::NonNegative => x < 0.0,
            Rule::Positive => x <= 0.0,
            Rule::Probability => !(0.0..=1.0).contains(&x),
            Rule::BelowOne => !(0.0..1.0).contains(&x),
        }
    }
}

/// Checks parameter `p` (NumPy's `ValueError: {msg}` when any element breaks `rule`; NaN
/// passes, as in NumPy).
fn check(p: &Operand, rule: Rule, msg: &str) -> Result<()> {
    let bad = match p {
        Operand::Scalar(s) => rule.bad(s.as_f64()),
        #[cfg(not(target_arch = "wasm32"))]
        Operand::Array(a) if a.size() > 0 => {
            let b = match rule {
                Rule::NonNegative => uf::less(a, 0.0)?,
                Rule::Positive => uf::less_equal(a, 0.0)?,
                Rule::Probability => uf::logical_or(uf::less(a, 0.0)?, uf::greater(a, 1.0)?)?,
                Rule::BelowOne => uf::logical_not(uf::logical_and(
                    uf::greater_equal(a, 0.0)?,
                    uf::less(a, 1.0)?,
                )?)?,
            };
            matches!(
                crate::reduce::any(&b, crate::reduce::Axis::All, false)?.item()?,
                Scalar::Bool(true)
            )
        }
        Operand::Array(_) => false,
    };
    if bad {
        Err(Error::invalid(msg.to_string()))
    } else {
        Ok(())
    }
}

/// The float dtype a distribution draws in: float64 when a parameter array is float64.
fn draw_dtype(params: &[&Operand]) -> DType {
    if params
        .iter()
        .any(|p| matches!(p, Operand::Array(a) if a.dtype() == DType::F64))
    {
        DType::F64
    } else {
        DType::F32
    }
}

/// Whether a parameter is a Python scalar or a float array (drawn with as a parameter of the
/// draw's dtype; other arrays take the ufunc path, which promotes as NumPy does).
fn is_float(p: &Operand) -> bool {
    match p {
        Operand::Scalar(_) => true,
        Operand::Array(a) => matches!(a.dtype(), DType::F32 | DType::F64),
    }
}

/// `f(a, b)` of two parameters: computed on the host when both are Python scalars (a 0-d
/// float64 array would widen a float32 draw), else the ufunc `g`.
fn pp(
    a: &Operand,
    b: &Operand,
    f: fn(f64, f64) -> f64,
    g: fn(Operand, Operand) -> Result<Array>,
) -> Result<Operand> {
    Ok(match (a, b) {
        (Operand::Scalar(x), Operand::Scalar(y)) => {
            Operand::Scalar(Scalar::Float(f(x.as_f64(), y.as_f64())))
        }
        _ => Operand::Array(g(a.clone(), b.clone())?),
    })
}

/// `f(a)` of a parameter, on the host for a Python scalar (see [`pp`]).
fn pu(a: &Operand, f: fn(f64) -> f64, g: fn(Operand) -> Result<Array>) -> Result<Operand> {
    Ok(match a {
        Operand::Scalar(x) => Operand::Scalar(Scalar::Float(f(x.as_f64()))),
        _ => Operand::Array(g(a.clone())?),
    })
}

fn f64_of(x: f64) -> Operand {
    Operand::Scalar(Scalar::Float(x))
}

/// Whether a draw in `d` with the parameters `params` takes its deterministic float32 kernel
/// ([`Transform`]: the same bits on every driver): float32 with float parameters, unless
/// `KUPFER_RANDDET=off`.
fn deterministic(d: DType, params: &[&Operand]) -> bool {
    d == DType::F32 && transforms::enabled() && params.iter().all(|p| is_float(p))
}

/// The dtype of `t`'s deterministic kernel for a draw in `d` with the parameters `params`:
/// float32 as [`deterministic`]; float64 where `t` has its float64 form
/// ([`Transform::has_f64`]); `None` for the libm compositions.
fn deterministic_in(t: Transform, d: DType, params: &[&Operand]) -> Option<DType> {
    let f64_form = d == DType::F64 && t.has_f64() && transforms::enabled();
    (deterministic(d, params) || (f64_form && params.iter().all(|p| is_float(p)))).then_some(d)
}

impl Generator {
    /// A draw of the deterministic float32 transform `t` with the parameters `params`.
    pub(super) fn draw_det(
        &self,
        t: Transform,
        shape: &[usize],
        params: &[&Operand],
    ) -> Result<Array> {
        self.draw_det_in(t, DType::F32, shape, params)
    }

    /// A draw of the deterministic transform `t` in `d` (float32, or float64 where
    /// [`Transform::has_f64`]) with the parameters `params`.
    pub(super) fn draw_det_in(
        &self,
        t: Transform,
        d: DType,
        shape: &[usize],
        params: &[&Operand],
    ) -> Result<Array> {
        let params = params
            .iter()
            .map(|p| param_as(p, shape, d))
            .collect::<Result<Vec<_>>>()?;
        self.draw(RandomOp::Det(t), shape, d, params)
    }
}

impl Generator {
    /// Uniform floats in [0, 1) (`Generator.random`); `dtype` float32 (default) or float64.
    pub fn random(&self, size: &[usize], dtype: Option<DType>) -> Result<Array> {
        let d = float_dtype(dtype, "random")?;
        self.draw(RandomOp::Uniform, size, d, vec![])
    }

    /// Uniform floats in the open interval (0, 1): the base of the inversion methods.
    pub fn open_uniform(&self, size: &[usize], dtype: Option<DType>) -> Result<Array> {
        let d = float_dtype(dtype, "open_uniform")?;
        self.draw(RandomOp::OpenUniform, size, d, vec![])
    }

    /// Standard normal floats (`Generator.standard_normal`).
    pub fn standard_normal(&self, size: &[usize], dtype: Option<DType>) -> Result<Array> {
        let d = float_dtype(dtype, "standard_normal")?;
        self.draw(RandomOp::Normal, size, d, vec![])
    }

    /// Standard exponential floats (`Generator.standard_exponential`) by the ziggurat (the
    /// same bits on every driver; `KUPFER_RANDEXP=log`: `-log(U)` with U uniform in (0, 1)).
    pub fn standard_exponential(&self, size: &[usize], dtype: Option<DType>) -> Result<Array> {
        let d = float_dtype(dtype, "standard_exponential")?;
        if kupfer_core::random::exponential_form() == kupfer_core::random::ExponentialForm::Ziggurat
        {
            return self.draw(RandomOp::Exponential, size, d, vec![]);
        }
        if let Some(dd) = deterministic_in(Transform::Exponential, d, &[]) {
            // -ln U through the fenced logarithm: the same bits on every driver.
            return self.draw_det_in(Transform::Exponential, dd, size, &[]);
        }
        uf::negative(uf::log(self.draw(
            RandomOp::OpenUniform,
            size,
            d,
            vec![],
        )?)?)
    }

    /// Uniform floats in [low, high): `low + (high - low) * U` (`Generator.uniform`).
    pub fn uniform(
        &self,
        low: impl Into<Operand>,
        high: impl Into<Operand>,
        size: Option<&[usize]>,
    ) -> Result<Array> {
        let (low, high) = (low.into(), high.into());
        if let (Operand::Scalar(a), Operand::Scalar(b)) = (&low, &high)
            && !(b.as_f64() - a.as_f64()).is_finite()
        {
            return Err(Error::invalid("high - low range exceeds valid bounds"));
        }
        let shape = out_shape(size, &[&low, &high])?;
        let d = draw_dtype(&[&low, &high]);
        let width = pp(&high, &low, |h, l| h - l, uf::subtract)?;
        if let Some(dd) = deterministic_in(Transform::Uniform, d, &[&low, &width]) {
            return self.draw_det_in(Transform::Uniform, dd, &shape, &[&low, &width]);
        }
        let u = self.random(&shape, Some(d))?;
        uf::add(low, uf::multiply(width, u)?)
    }

    /// Normal floats with mean `loc` and standard deviation `scale` (`Generator.normal`).
    pub fn normal(
        &self,
        loc: impl Into<Operand>,
        scale: impl Into<Operand>,
        size: Option<&[usize]>,
    ) -> Result<Array> {
        let (loc, scale) = (loc.into(), scale.into());
        check(&scale, Rule::NonNegative, "scale < 0")?;
        let shape = out_shape(size, &[&loc, &scale])?;
        let d = draw_dtype(&[&loc, &scale]);
        if is_float(&loc) && is_float(&scale) {
            // One draw with the product fenced: the same bits on every driver.
            let (l, s) = (param_as(&loc, &shape, d)?, param_as(&scale, &shape, d)?);
            return self.draw(RandomOp::NormalAffine, &shape, d, vec![l, s]);
        }
        let z = self.standard_normal(&shape, Some(d))?;
        uf::add(loc, uf::multiply(scale, z)?)
    }

    /// Exponential floats with mean `scale` (`Generator.exponential`).
    pub fn exponential(&self, scale: impl Into<Operand>, size: Option<&[usize]>) -> Result<Array> {
        let scale = scale.into();
        check(&scale, Rule::NonNegative, "scale < 0")?;
        let shape = out_shape(size, &[&scale])?;
        let e = self.standard_exponential(&shape, Some(draw_dtype(&[&scale])))?;
        uf::multiply(scale, e)
    }

    /// Log-normal floats: `exp(mean + sigma * Z)` (`Generator.lognormal`), with the product
    /// and the exponential fenced for float parameters (the same bits on every driver).
    pub fn lognormal(
        &self,
        mean: impl Into<Operand>,
        sigma: impl Into<Operand>,
        size: Option<&[usize]>,
    ) -> Result<Array> {
        let (mean, sigma) = (mean.into(), sigma.into());
        check(&sigma, Rule::NonNegative, "sigma < 0")?;
        if is_float(&mean) && is_float(&sigma) {
            // One draw, the product and the exponential fenced: the same bits everywhere.
            let shape = out_shape(size, &[&mean, &sigma])?;
            let d = draw_dtype(&[&mean, &sigma]);
            let (m, s) = (param_as(&mean, &shape, d)?, param_as(&sigma, &shape, d)?);
            return self.draw(RandomOp::LogNormal, &shape, d, vec![m, s]);
        }
        uf::exp(self.normal(mean, sigma, size)?)
    }

    /// Laplace floats by inversion (`Generator.laplace`).
    pub fn laplace(
        &self,
        loc: impl Into<Operand>,
        scale: impl Into<Operand>,
        size: Option<&[usize]>,
    ) -> Result<Array> {
        let (loc, scale) = (loc.into(), scale.into());
        check(&scale, Rule::NonNegative, "scale < 0")?;
        let shape = out_shape(size, &[&loc, &scale])?;
        let d = draw_dtype(&[&loc, &scale]);
        if let Some(dd) = deterministic_in(Transform::Laplace, d, &[&loc, &scale]) {
            return self.draw_det_in(Transform::Laplace, dd, &shape, &[&loc, &scale]);
        }
        let u = self.open_uniform(&shape, Some(d))?;
        let two_u = uf::multiply(&u, 2.0)?;
        // U < 1/2: log(2U); else -log(2 - 2U) (both exact arguments, both finite).
        let x = uf::where_(
            uf::less(&u, 0.5)?,
            uf::log(&two_u)?,
            uf::negative(uf::log(uf::subtract(2.0, &two_u)?)?)?,
        )?;
        uf::add(loc, uf::multiply(scale, x)?)
    }

    /// Logistic floats: `loc + scale * log(U / (1 - U))` (`Generator.logistic`).
    pub fn logistic(
        &self,
        loc: impl Into<Operand>,
        scale: impl Into<Operand>,
        size: Option<&[usize]>,
    ) -> Result<Array> {
        let (loc, scale) = (loc.into(), scale.into());
        check(&scale, Rule::NonNegative, "scale < 0")?;
        let shape = out_shape(size, &[&loc, &scale])?;
        let d = draw_dtype(&[&loc, &scale]);
        if let Some(dd) = deterministic_in(Transform::Logistic, d, &[&loc, &scale]) {
            return self.draw_det_in(Transform::Logistic, dd, &shape, &[&loc, &scale]);
        }
        let u = self.open_uniform(&shape, Some(d))?;
        let x = uf::log(uf::divide(&u, uf::subtract(1.0, &u)?)?)?;
        uf::add(loc, uf::multiply(scale, x)?)
    }

    /// Gumbel floats: `loc - scale * log(-log(U))` (`Generator.gumbel`).
    pub fn gumbel(
        &self,
        loc: impl Into<Operand>,
        scale: impl Into<Operand>,
        size: Option<&[usize]>,
    ) -> Result<Array> {
        let (loc, scale) = (loc.into(), scale.into());
        check(&scale, Rule::NonNegative, "scale < 0")?;
        let shape = out_shape(size, &[&loc, &scale])?;
        let d = draw_dtype(&[&loc, &scale]);
        if let Some(dd) = deterministic_in(Transform::Gumbel, d, &[&loc, &scale]) {
            return self.draw_det_in(Transform::Gumbel, dd, &shape, &[&loc, &scale]);
        }
        let u = self.open_uniform(&shape, Some(d))?;
        let x = uf::log(uf::negative(uf::log(u)?)?)?;
        uf::subtract(loc, uf::multiply(scale, x)?)
    }

    /// Weibull floats: `E^(1/a)` with E standard exponential; `a = 0` gives 0
    /// (`Generator.weibull`).
    pub fn weibull(&self, a: impl Into<Operand>, size: Option<&[usize]>) -> Result<Array> {
        let a = a.into();
        check(&a, Rule::NonNegative, "a < 0")?;
        let shape = out_shape(size, &[&a])?;
        if let Some(dd) = deterministic_in(Transform::Weibull, draw_dtype(&[&a]), &[&a]) {
            return self.draw_det_in(Transform::Weibull, dd, &shape, &[&a]);
        }
        let e = self.standard_exponential(&shape, Some(draw_dtype(&[&a])))?;
        let inv = pp(&f64_of(1.0), &a, |x, y| x / y, uf::divide)?;
        let x = uf::power(&e, inv)?;
        match &a {
            Operand::Scalar(s) if s.as_f64() == 0.0 => uf::multiply(&e, 0.0),
            Operand::Scalar(_) => Ok(x),
            _ => uf::where_(uf::equal(a, 0.0)?, 0.0, x),
        }
    }

    /// Pareto II (Lomax) floats: `exp(E / a) - 1` (`Generator.pareto`).
    pub fn pareto(&self, a: impl Into<Operand>, size: Option<&[usize]>) -> Result<Array> {
        let a = a.into();
        check(&a, Rule::Positive, "a <= 0")?;
        let shape = out_shape(size, &[&a])?;
        if let Some(dd) = deterministic_in(Transform::Pareto, draw_dtype(&[&a]), &[&a]) {
            return self.draw_det_in(Transform::Pareto, dd, &shape, &[&a]);
        }
        let e = self.standard_exponential(&shape, Some(draw_dtype(&[&a])))?;
        uf::expm1(uf::divide(e, a)?)
    }

    /// Power-distribution floats in [0, 1]: `(1 - exp(-E))^(1/a)` (`Generator.power`).
    pub fn power(&self, a: impl Into<Operand>, size: Option<&[usize]>) -> Result<Array> {
        let a = a.into();
        check(&a, Rule::Positive, "a <= 0")?;
        let shape = out_shape(size, &[&a])?;
        if let Some(dd) = deterministic_in(Transform::Power, draw_dtype(&[&a]), &[&a]) {
            return self.draw_det_in(Transform::Power, dd, &shape, &[&a]);
        }
        let e = self.standard_exponential(&shape, Some(draw_dtype(&[&a])))?;
        let inv = pp(&f64_of(1.0), &a, |x, y| x / y, uf::divide)?;
        uf::power(uf::negative(uf::expm1(uf::negative(e)?)?)?, inv)
    }

    /// Rayleigh floats: `scale * sqrt(2 E)` (`Generator.rayleigh`).
    pub fn rayleigh(&self, scale: impl Into<Operand>, size: Option<&[usize]>) -> Result<Array> {
        let scale = scale.into();
        check(&scale, Rule::NonNegative, "scale < 0")?;
        let shape = out_shape(size, &[&scale])?;
        if let Some(dd) = deterministic_in(Transform::Rayleigh, draw_dtype(&[&scale]), &[&scale]) {
            return self.draw_det_in(Transform::Rayleigh, dd, &shape, &[&scale]);
        }
        let e = self.standard_exponential(&shape, Some(draw_dtype(&[&scale])))?;
        uf::multiply(scale, uf::sqrt(uf::multiply(e, 2.0)?)?)
    }

    /// Standard Cauchy floats: the ratio of two standard normals (`Generator.standard_cauchy`).
    pub fn standard_cauchy(&self, size: &[usize], dtype: Option<DType>) -> Result<Array> {
        let d = float_dtype(dtype, "standard_cauchy")?;
        if let Some(dd) = deterministic_in(Transform::Cauchy, d, &[]) {
            return self.draw_det_in(Transform::Cauchy, dd, size, &[]);
        }
        let a = self.standard_normal(size, Some(d))?;
        let b = self.standard_normal(size, Some(d))?;
        uf::divide(a, b)
    }

    /// Triangular floats on [left, right] with mode `mode`, by inversion
    /// (`Generator.triangular`).
    pub fn triangular(
        &self,
        left: impl Into<Operand>,
        mode: impl Into<Operand>,
        right: impl Into<Operand>,
        size: Option<&[usize]>,
    ) -> Result<Array> {
        let (l, m, r) = (left.into(), mode.into(), right.into());
        if let (Operand::Scalar(l), Operand::Scalar(m), Operand::Scalar(r)) = (&l, &m, &r) {
            let (l, m, r) = (l.as_f64(), m.as_f64(), r.as_f64());
            if l > m {
                return Err(Error::invalid("left > mode"));
            }
            if m > r {
                return Err(Error::invalid("mode > right"));
            }
            if l == r {
                return Err(Error::invalid("left == right"));
            }
        }
        let shape = out_shape(size, &[&l, &m, &r])?;
        if let Some(dd) = deterministic_in(
            Transform::Triangular,
            draw_dtype(&[&l, &m, &r]),
            &[&l, &m, &r],
        ) {
            return self.draw_det_in(Transform::Triangular, dd, &shape, &[&l, &m, &r]);
        }
        let u = self.random(&shape, Some(draw_dtype(&[&l, &m, &r])))?;
        let sub = |a: &Operand, b: &Operand| pp(a, b, |x, y| x - y, uf::subtract);
        let base = sub(&r, &l)?;
        let left_base = sub(&m, &l)?;
        let right_base = sub(&r, &m)?;
        let ratio = pp(&left_base, &base, |x, y| x / y, uf::divide)?;
        let lower = uf::add(
            l,
            uf::sqrt(uf::multiply(uf::multiply(&u, left_base)?, base.clone())?)?,
        )?;
        let upper = uf::subtract(
            r,
            uf::sqrt(uf::multiply(
                uf::multiply(uf::subtract(1.0, &u)?, right_base)?,
                base,
            )?)?,
        )?;
        uf::where_(uf::less_equal(&u, ratio)?, lower, upper)
    }

    /// Wald (inverse Gaussian) floats (`Generator.wald`), by Michael, Schucany and Haas's
    /// transformation of a normal and a uniform.
    pub fn wald(
        &self,
        mean: impl Into<Operand>,
        scale: impl Into<Operand>,
        size: Option<&[usize]>,
    ) -> Result<Array> {
        let (mean, scale) = (mean.into(), scale.into());
        check(&mean, Rule::Positive, "mean <= 0")?;
        check(&scale, Rule::Positive, "scale <= 0")?;
        let shape = out_shape(size, &[&mean, &scale])?;
        let d = draw_dtype(&[&mean, &scale]);
        if let Some(dd) = deterministic_in(Transform::Wald, d, &[&mean, &scale]) {
            return self.draw_det_in(Transform::Wald, dd, &shape, &[&mean, &scale]);
        }
        let z = self.standard_normal(&shape, Some(d))?;
        let u = self.random(&shape, Some(d))?;
        // y = mean z^2; x = mean + mean/(2 scale) (y - sqrt(4 scale y + y^2))
        let y = uf::multiply(mean.clone(), uf::square(z)?)?;
        let four_scale = pu(&scale, |s| 4.0 * s, |s| uf::multiply(s, 4.0))?;
        let root = uf::sqrt(uf::add(uf::multiply(four_scale, &y)?, uf::square(&y)?)?)?;
        // 2 scale first, so that a Python scalar stays one (a 0-d float64 array from the
        // product of two scalars would widen a float32 draw).
        let two_scale = pu(&scale, |s| 2.0 * s, |s| uf::multiply(s, 2.0))?;
        let ratio = pp(&mean, &two_scale, |m, t| m / t, uf::divide)?;
        let x = uf::add(mean.clone(), uf::multiply(ratio, uf::subtract(&y, root)?)?)?;
        // Keep x when U <= mean / (mean + x), else mean^2 / x.
        let keep = uf::less_equal(u, uf::divide(mean.clone(), uf::add(mean.clone(), &x)?)?)?;
        let other = uf::divide(pu(&mean, |m| m * m, uf::square)?, &x)?;
        uf::where_(keep, x, other)
    }

    /// Integers in [low, high), or [low, high] with `endpoint` (`Generator.integers`; `high`
    /// `None`: [0, low)). `dtype` any integer dtype or bool (default the device's default
    /// int); ranges up to 2^32 values. See [`Generator::integers_broadcast`] for array bounds.
    pub fn integers(
        &self,
        low: i64,
        high: Option<i64>,
        size: &[usize],
        dtype: Option<DType>,
        endpoint: bool,
    ) -> Result<Array> {
        let high = high.map(|h| Operand::Scalar(Scalar::Int(h)));
        self.integers_broadcast(Scalar::Int(low).into(), high, Some(size), dtype, endpoint)
    }

    /// [`Generator::integers`] with array-valued bounds that broadcast with each other and
    /// with `size` (`rng.integers([1, 5, 7], 10)`, `rng.integers(1, [3, 5, 10], size=(2, 3))`).
    /// NumPy's bound checks: "low is out of bounds for {dtype}", "high is out of bounds for
    /// {dtype}", "low >= high" ("low > high" with `endpoint`); array bounds are checked by a
    /// reduction read back natively (not on wasm32, where reads cannot block). Float bounds
    /// truncate, as NumPy casts them.
    ///
    /// ```
    /// use kupfer as kp;
    /// let rng = kp::random::default_rng(Some(7));
    /// let high = kp::Array::from_slice(&[3i32, 5, 10], &[3])?;
    /// let x = rng.integers_broadcast(1.into(), Some(high.into()), None, None, false)?;
    /// let v = x.astype(kp::DType::I32)?.to_vec::<i32>()?;
    /// assert!((1..3).contains(&v[0]) && (1..5).contains(&v[1]) && (1..10).contains(&v[2]));
    /// # Ok::<(), kp::Error>(())
    /// ```
    pub fn integers_broadcast(
        &self,
        low: Operand,
        high: Option<Operand>,
        size: Option<&[usize]>,
        dtype: Option<DType>,
        endpoint: bool,
    ) -> Result<Array> {
        let device = crate::device::Device::current()?;
        let dtype = dtype.unwrap_or_else(|| device.default_int());
        let (min, max) = integer_bounds(dtype).ok_or_else(|| {
            Error::invalid(format!("Unsupported dtype {} for integers", dtype.name()))
        })?;
        let (low, high) = match high {
            Some(h) => (low, h),
            None => (Scalar::Int(0).into(), low),
        };
        let shape = out_shape(size, &[&low, &high])?;
        // Work in u32 (wrapping: every value of a dtype of up to 32 bits has its own residue
        // mod 2^32) or in the dtype itself for int64 and uint64.
        let wide = matches!(dtype, DType::I64 | DType::U64);
        let work = if wide { dtype } else { DType::U32 };
        let range: Operand;
        let low_w: Operand;
        if let (Operand::Scalar(l), Operand::Scalar(h)) = (&low, &high) {
            let lo = scalar_int(l)?;
            let top = scalar_int(h)? - i128::from(!endpoint);
            if lo < min {
                return Err(out_of_bounds("low", dtype));
            }
            if top > max {
                return Err(out_of_bounds("high", dtype));
            }
            if lo > top {
                return Err(Error::invalid(low_above_high(endpoint)));
            }
            let r = top - lo + 1;
            if r > 1 << 32 {
                return Err(too_wide(r));
            }
            range = Scalar::Int(i64::from((r as u64 & 0xffff_ffff) as u32)).into();
            low_w = Scalar::int(if wide {
                lo
            } else {
                i128::from(lo as i64 as u32)
            })
            .into();
        } else {
            #[cfg(not(target_arch = "wasm32"))]
            check_integer_bounds(&low, &high, min, max, endpoint, dtype)?;
            let lw = to_work(&low, work)?;
            let hw = to_work(&high, work)?;
            let mut r = uf::subtract(hw, lw.clone())?;
            if endpoint {
                r = uf::add(r, 1)?;
            }
            if wide {
                #[cfg(not(target_arch = "wasm32"))]
                if any_true(&uf::greater(&r, 1i64 << 32)?)? {
                    return Err(Error::unsupported(
                        "integers over a range of more than 2^32 values".to_string(),
                    ));
                }
                r = r.astype(DType::U32)?; // 2^32 travels as 0
            }
            range = r.into();
            low_w = lw;
        }
        let rp = param_as(&range, &shape, DType::U32)?;
        let k = self.draw(RandomOp::Bounded, &shape, DType::U32, vec![rp])?;
        if matches!(&low_w, Operand::Scalar(s) if s.as_f64() == 0.0) {
            return k.astype(dtype);
        }
        uf::add(k.astype(work)?, low_w)?.astype(dtype)
    }

    /// Geometric integers >= 1 (trials to the first success), `ceil(log(U) / log1p(-p))`
    /// (`Generator.geometric`); int64 where the adapter has it, else int32.
    pub fn geometric(&self, p: impl Into<Operand>, size: Option<&[usize]>) -> Result<Array> {
        let p = p.into();
        check(&p, Rule::Probability, "p < 0, p > 1 or p is NaN")?;
        if let Operand::Scalar(s) = &p
            && s.as_f64() == 0.0
        {
            return Err(Error::invalid("p <= 0, p > 1 or p contains NaNs"));
        }
        let shape = out_shape(size, &[&p])?;
        let device = crate::device::Device::current()?;
        if let Some(dd) = deterministic_in(Transform::Geometric, draw_dtype(&[&p]), &[&p]) {
            let k = self.draw_det_in(Transform::Geometric, dd, &shape, &[&p])?;
            return k.astype(device.default_int());
        }
        let u = self.open_uniform(&shape, Some(draw_dtype(&[&p])))?;
        let denom = pu(&p, |p| (-p).ln_1p(), |p| uf::log1p(uf::negative(p)?))?;
        let k = uf::ceil(uf::divide(uf::log(u)?, denom)?)?;
        // p = 1: log1p(-1) = -inf, the quotient -0; one trial.
        let k = uf::maximum(k, 1.0)?;
        k.astype(device.default_int())
    }
}

impl Generator {
    /// Logarithmic-series counts >= 1 (`Generator.logseries`), Kemp's second method (as
    /// NumPy): with V, U uniform, `q = 1 - (1 - p)^U`, the count is 1 when `V >= p`,
    /// `floor(1 + log V / log q)` when `V <= q^2`, else 1 or 2 as `V >= q`. No loop: one
    /// elementwise kernel. Computed in float32 (float64 for float64 `p`): counts are exact up
    /// to 2^24; int64 where the adapter has it, else int32.
    pub fn logseries(&self, p: impl Into<Operand>, size: Option<&[usize]>) -> Result<Array> {
        let p = p.into();
        check(&p, Rule::BelowOne, "p < 0, p >= 1 or p is NaN")?;
        let shape = out_shape(size, &[&p])?;
        let d = draw_dtype(&[&p]);
        if let Some(dd) = deterministic_in(Transform::Logseries, d, &[&p]) {
            let k = self.draw_det_in(Transform::Logseries, dd, &shape, &[&p])?;
            return k.astype(crate::device::Device::current()?.default_int());
        }
        let v = self.open_uniform(&shape, Some(d))?;
        let u = self.random(&shape, Some(d))?;
        let r = pu(&p, |p| (-p).ln_1p(), |p| uf::log1p(uf::negative(p)?))?;
        let q = uf::negative(uf::expm1(uf::multiply(r, u)?)?)?;
        let tail = uf::maximum(
            uf::floor(uf::add(uf::divide(uf::log(&v)?, uf::log(&q)?)?, 1.0)?)?,
            1.0,
        )?;
        let small = uf::where_(uf::greater_equal(&v, &q)?, 1.0, 2.0)?;
        let k = uf::where_(uf::less_equal(&v, uf::square(&q)?)?, tail, small)?;
        let k = uf::where_(uf::greater_equal(&v, p)?, 1.0, k)?;
        k.astype(crate::device::Device::current()?.default_int())
    }
}

impl Generator {
    /// Binomial counts of `n` trials with success probability `p` (`Generator.binomial`):
    /// inversion below `n p = 10`, Hörmann's BTRS above (one kernel; see
    /// [`kupfer_core::random`]). Computed in float32 (`n` at most 2^24), or in float64 when a
    /// parameter array is float64 (`n` at most 2^53); non-integer `n` truncates as NumPy's
    /// cast does. int64 where the adapter has it, else int32.
    pub fn binomial(
        &self,
        n: impl Into<Operand>,
        p: impl Into<Operand>,
        size: Option<&[usize]>,
    ) -> Result<Array> {
        let (n, p) = (n.into(), p.into());
        check(&n, Rule::NonNegative, "n < 0")?;
        check(&p, Rule::Probability, "p < 0, p > 1 or p is NaN")?;
        if let Operand::Scalar(s) = &p
            && s.as_f64().is_nan()
        {
            return Err(Error::invalid("p < 0, p > 1 or p is NaN"));
        }
        let d = draw_dtype(&[&n, &p]);
        let n = match n {
            Operand::Scalar(s) => {
                let v = s.as_f64().trunc();
                if d == DType::F32 && v > 16_777_216.0 {
                    return Err(Error::unsupported(format!(
                        "binomial with n = {v} (kupfer draws binomials in float32: n <= 2^24; \
                         a float64 parameter array draws in float64)"
                    )));
                }
                if v > 9_007_199_254_740_992.0 {
                    return Err(Error::unsupported(format!(
                        "binomial with n = {v} (kupfer draws binomials in float64 at most: \
                         n <= 2^53)"
                    )));
                }
                Operand::Scalar(Scalar::Float(v))
            }
            Operand::Array(a) if a.dtype().kind() == kupfer_core::Kind::Float => {
                Operand::Array(uf::trunc(&a)?)
            }
            other => other,
        };
        let shape = out_shape(size, &[&n, &p])?;
        // Integer parameter arrays are cast to the draw's dtype either way.
        let k = if d == DType::F32 && transforms::enabled() {
            self.draw_det(Transform::Binomial, &shape, &[&n, &p])?
        } else {
            let params = vec![param_as(&n, &shape, d)?, param_as(&p, &shape, d)?];
            self.draw(RandomOp::Binomial, &shape, d, params)?
        };
        k.astype(crate::device::Device::current()?.default_int())
    }

    /// Von Mises angles in [-pi, pi] of mode `mu` and concentration `kappa`
    /// (`Generator.vonmises`): Best and Fisher's rejection method around 0 (one kernel;
    /// `kappa` below 1e-8 is uniform, above 1e6 a wrapped normal), then shifted by `mu` and
    /// wrapped as NumPy wraps. float32, or float64 when a parameter array is float64.
    pub fn vonmises(
        &self,
        mu: impl Into<Operand>,
        kappa: impl Into<Operand>,
        size: Option<&[usize]>,
    ) -> Result<Array> {
        let (mu, kappa) = (mu.into(), kappa.into());
        check(&kappa, Rule::NonNegative, "kappa < 0")?;
        let shape = out_shape(size, &[&mu, &kappa])?;
        let d = draw_dtype(&[&mu, &kappa]);
        if let Some(dd) = deterministic_in(Transform::VonMises, d, &[&mu, &kappa]) {
            return self.draw_det_in(Transform::VonMises, dd, &shape, &[&mu, &kappa]);
        }
        let k = param_as(&kappa, &shape, d)?;
        let x = self.draw(RandomOp::VonMises, &shape, d, vec![k])?;
        // r = x + mu; |r| wrapped into [-pi, pi) keeping r's sign, as NumPy does.
        let r = uf::add(x, mu)?;
        let pi = std::f64::consts::PI;
        let m = uf::subtract(
            uf::remainder(uf::add(uf::absolute(&r)?, pi)?, 2.0 * pi)?,
            pi,
        )?;
        uf::where_(uf::less(&r, 0.0)?, uf::negative(&m)?, m)
    }

    /// Multinomial counts (`Generator.multinomial(n, pvals, size)`): shape `size + [k]` for
    /// `k` categories, by conditional binomials (category i draws from what the earlier ones
    /// left, with probability `p_i / (1 - p_0 - ... - p_{i-1})`; the last takes the rest).
    pub fn multinomial(&self, n: u64, pvals: &[f64], size: &[usize]) -> Result<Array> {
        if pvals.iter().any(|p| !(0.0..=1.0).contains(p)) {
            return Err(Error::invalid(
                "pvals < 0, pvals > 1 or pvals contains NaNs",
            ));
        }
        let k = pvals.len();
        if k == 0 {
            return Err(Error::invalid("pvals must have at least 1 dimension"));
        }
        let head: f64 = pvals[..k - 1].iter().sum();
        if head > 1.0 + 1e-12 {
            return Err(Error::invalid(format!(
                "sum(pvals[:-1].astype(np.float64)) = {head} > 1.0. The pvals array is cast \
                 to 64-bit floating point prior to checking the sum. Precision changes when \
                 casting may cause problems even if the sum of the original pvals is valid."
            )));
        }
        let device = crate::device::Device::current()?;
        let int = device.default_int();
        let mut left: Operand = Operand::Scalar(Scalar::Float(n as f64));
        let mut used = 0.0;
        let mut parts = Vec::with_capacity(k);
        for (i, &p) in pvals.iter().enumerate() {
            let x = if i + 1 == k {
                let Operand::Array(a) = &left else {
                    return crate::creation::full(
                        &[size, &[k]].concat(),
                        Scalar::Int(n as i64),
                        Some(int),
                    );
                };
                a.astype(int)?
            } else {
                let q = if used >= 1.0 {
                    0.0
                } else {
                    (p / (1.0 - used)).min(1.0)
                };
                used += p;
                let x = self.binomial(left.clone(), q, Some(size))?;
                x.eval()?;
                left = Operand::Array(uf::subtract(left.clone(), &x)?);
                if let Operand::Array(a) = &left {
                    a.eval()?;
                }
                x
            };
            parts.push(
                x.reshape(
                    &[
                        size.iter().map(|&d| d as isize).collect::<Vec<_>>(),
                        vec![1],
                    ]
                    .concat(),
                )?,
            );
        }
        crate::concatenate(&parts, Some(-1), None)
    }
}

impl Generator {
    /// Multinomial counts with an array (or scalar) `n` and N-D `pvals` whose last axis holds
    /// the categories (`Generator.multinomial(n, pvals, size)` in full): `n` and
    /// `pvals[..., 0]` broadcast (with `size` when given) to the batch shape; the result is
    /// `batch + [k]`, default int. Conditional binomials per category, as NumPy draws them.
    /// NumPy's errors: "n < 0", "pvals < 0, pvals > 1 or pvals contains NaNs" (arrays checked
    /// by a reduction read back natively), the sum of a 1-D `pvals[:-1]` above 1, and
    /// "pvals must have at least 1 dimension and the last dimension of pvals must be greater
    /// than 0.".
    ///
    /// ```
    /// use kupfer as kp;
    /// let rng = kp::random::default_rng(Some(4));
    /// let n = kp::Array::from_slice(&[10i32, 20], &[2])?;
    /// let p = kp::Array::from_slice(&[0.5f32, 0.5, 0.1, 0.9], &[2, 2])?;
    /// let x = rng.multinomial_broadcast(n.into(), &p, None)?;
    /// assert_eq!(x.shape(), &[2, 2]);
    /// let v = x.astype(kp::DType::I32)?.to_vec::<i32>()?;
    /// assert_eq!((v[0] + v[1], v[2] + v[3]), (10, 20));
    /// # Ok::<(), kp::Error>(())
    /// ```
    pub fn multinomial_broadcast(
        &self,
        n: Operand,
        pvals: &Array,
        size: Option<&[usize]>,
    ) -> Result<Array> {
        let k = match pvals.shape().last() {
            Some(&k) if k > 0 => k,
            _ => {
                return Err(Error::invalid(
                    "pvals must have at least 1 dimension and the last dimension of pvals \
                     must be greater than 0.",
                ))
            }
        };
        check(&n, Rule::NonNegative, "n < 0")?;
        let bad_p = "pvals < 0, pvals > 1 or pvals contains NaNs";
        #[cfg(not(target_arch = "wasm32"))]
        if pvals.size() > 0 {
            let ok = uf::logical_and(uf::greater_equal(pvals, 0.0)?, uf::less_equal(pvals, 1.0)?)?;
            if any_true(&uf::logical_not(ok)?)? {
                return Err(Error::invalid(bad_p));
            }
            if pvals.ndim() == 1 && k > 1 {
                let head = pvals.slice(&[kupfer_core::layout::SliceArg::Slice {
                    start: Some(0),
                    stop: Some(k as isize - 1),
                    step: None,
                }])?;
                let sum =
                    crate::reduce::sum(&head.astype(DType::F64)?, crate::reduce::Axis::All, false)?
                        .item()?
                        .as_f64();
                if sum > 1.0 + 1e-12 {
                    return Err(Error::invalid(format!(
                        "sum(pvals[:-1].astype(np.float64)) = {sum} > 1.0. The pvals array is \
                         cast to 64-bit floating point prior to checking the sum. Precision \
                         changes when casting may cause problems even if the sum of the \
                         original pvals is valid."
                    )));
                }
            }
        }
        let _ = bad_p;
        let category = |i: usize| -> Result<Array> {
            let mut args = vec![kupfer_core::layout::SliceArg::FULL; pvals.ndim() - 1];
            args.push(kupfer_core::layout::SliceArg::Index(i as isize));
            pvals.slice(&args)
        };
        let first = Operand::Array(category(0)?);
        let shape = out_shape(size, &[&n, &first])?;
        let d = draw_dtype(&[&n, &first]);
        let int = crate::device::Device::current()?.default_int();
        let n = match n {
            Operand::Scalar(s) => Operand::Scalar(Scalar::Float(s.as_f64().trunc())),
            Operand::Array(a) if a.dtype().kind() == kupfer_core::Kind::Float => {
                Operand::Array(uf::trunc(&a)?)
            }
            other => other,
        };
        let mut left = n;
        let mut remaining = Operand::Scalar(Scalar::Float(1.0));
        let mut parts = Vec::with_capacity(k);
        let column: Vec<isize> = shape.iter().map(|&s| s as isize).chain([1]).collect();
        for i in 0..k - 1 {
            let p = category(i)?;
            // The probability of category i given that the earlier ones were not drawn.
            let q = uf::where_(
                uf::greater(remaining.clone(), 0.0)?,
                uf::minimum(uf::divide(&p, remaining.clone())?, 1.0)?,
                0.0,
            )?;
            let params = vec![param_as(&left, &shape, d)?, param_as(&q.into(), &shape, d)?];
            let x = self
                .draw(RandomOp::Binomial, &shape, d, params)?
                .astype(int)?;
            x.eval()?;
            let rest = uf::subtract(left.clone(), &x)?;
            rest.eval()?;
            left = Operand::Array(rest);
            let r = uf::subtract(remaining.clone(), &p)?;
            r.eval()?;
            remaining = Operand::Array(r);
            parts.push(x.reshape(&column)?);
        }
        let last = match left {
            Operand::Array(a) => a.astype(int)?.broadcast_to(&shape)?,
            Operand::Scalar(s) => {
                crate::creation::full(&shape, Scalar::Int(s.as_f64() as i64), Some(int))?
            }
        };
        parts.push(last.reshape(&column)?);
        crate::concatenate(&parts, Some(-1), None)
    }
}

/// The smallest and largest value of an integer dtype (`None` for the others).
fn integer_bounds(dtype: DType) -> Option<(i128, i128)> {
    Some(match dtype {
        DType::Bool => (0, 1),
        DType::I8 => (i8::MIN.into(), i8::MAX.into()),
        DType::U8 => (0, u8::MAX.into()),
        DType::I16 => (i16::MIN.into(), i16::MAX.into()),
        DType::U16 => (0, u16::MAX.into()),
        DType::I32 => (i32::MIN.into(), i32::MAX.into()),
        DType::U32 => (0, u32::MAX.into()),
        DType::I64 => (i64::MIN.into(), i64::MAX.into()),
        DType::U64 => (0, u64::MAX.into()),
        _ => return None,
    })
}

/// A scalar bound as an integer (floats truncate, as NumPy casts them).
fn scalar_int(s: &Scalar) -> Result<i128> {
    match *s {
        Scalar::Int(i) => Ok(i.into()),
        Scalar::BigInt(i) => Ok(i),
        Scalar::Bool(b) => Ok(b.into()),
        _ => {
            let x = s.as_f64();
            if !x.is_finite() {
                return Err(Error::invalid(
                    "cannot convert float NaN or infinity to integer",
                ));
            }
            Ok(x.trunc() as i128)
        }
    }
}

fn out_of_bounds(which: &str, dtype: DType) -> Error {
    Error::invalid(format!("{which} is out of bounds for {}", dtype.name()))
}

fn low_above_high(endpoint: bool) -> &'static str {
    if endpoint {
        "low > high"
    } else {
        "low >= high"
    }
}

fn too_wide(range: i128) -> Error {
    Error::unsupported(format!(
        "integers over a range of more than 2^32 values ({range} requested)"
    ))
}

/// A bound as an operand of the work dtype (u32 wraps mod 2^32; floats truncate first).
fn to_work(p: &Operand, work: DType) -> Result<Operand> {
    Ok(match p {
        Operand::Scalar(s) => {
            let v = scalar_int(s)?;
            Scalar::Int(if work == DType::U32 {
                i64::from(v as i64 as u32)
            } else {
                v as i64
            })
            .into()
        }
        Operand::Array(a) => {
            let a = if a.dtype().is_float() || a.dtype() == DType::Bool {
                let int = if work.bits() == 64 {
                    DType::I64
                } else {
                    DType::I32
                };
                a.astype(int)?
            } else {
                a.clone()
            };
            a.astype(work)?.into()
        }
    })
}

/// Whether any element of the boolean array `b` is true (a reduction read back).
#[cfg(not(target_arch = "wasm32"))]
fn any_true(b: &Array) -> Result<bool> {
    Ok(b.size() > 0
        && matches!(
            crate::reduce::any(b, crate::reduce::Axis::All, false)?.item()?,
            Scalar::Bool(true)
        ))
}

/// Whether some element of `p` compares `cmp` ("lt" or "gt") with `bound`; an integer array
/// whose dtype cannot hold `bound` answers without a kernel.
#[cfg(not(target_arch = "wasm32"))]
fn any_beyond(p: &Operand, less: bool, bound: i128) -> Result<bool> {
    match p {
        Operand::Scalar(s) => {
            let v = scalar_int(s)?;
            Ok(if less { v < bound } else { v > bound })
        }
        Operand::Array(a) => {
            let b = match integer_bounds(a.dtype()) {
                Some((amin, amax)) if a.dtype() != DType::Bool => {
                    if less && bound <= amin || !less && bound >= amax {
                        return Ok(false);
                    }
                    if less && bound > amax || !less && bound < amin {
                        return Ok(a.size() > 0);
                    }
                    Scalar::Int(bound as i64)
                }
                _ => Scalar::Float(bound as f64),
            };
            let a = if a.dtype() == DType::Bool {
                a.astype(DType::I32)?
            } else {
                a.clone()
            };
            any_true(&if less {
                uf::less(&a, b)?
            } else {
                uf::greater(&a, b)?
            })
        }
    }
}

/// NumPy's checks of array bounds, in its order.
#[cfg(not(target_arch = "wasm32"))]
fn check_integer_bounds(
    low: &Operand,
    high: &Operand,
    min: i128,
    max: i128,
    endpoint: bool,
    dtype: DType,
) -> Result<()> {
    if any_beyond(low, true, min)? {
        return Err(out_of_bounds("low", dtype));
    }
    if any_beyond(high, false, max + i128::from(!endpoint))? {
        return Err(out_of_bounds("high", dtype));
    }
    let cmp = |l: Operand, h: Operand| {
        if endpoint {
            uf::greater(l, h)
        } else {
            uf::greater_equal(l, h)
        }
    };
    if any_true(&cmp(low.clone(), high.clone())?)? {
        return Err(Error::invalid(low_above_high(endpoint)));
    }
    Ok(())
}

/// Parameter `p` of a draw over `shape` as an expression operand of `dtype` (an array
/// parameter broadcasts; a lazy draw of another shape is materialised first).
pub(super) fn param_as(p: &Operand, shape: &[usize], dtype: DType) -> Result<crate::fusion::Lazy> {
    use crate::fusion::Lazy;
    match p {
        Operand::Scalar(s) => Ok(Lazy::scalar(s.encode(dtype)?, dtype)),
        Operand::Array(a) => {
            let max_leaves = Array::max_leaves(a.device());
            Ok(
                a.operand_within(Array::max_nodes() / 4, (max_leaves / 4).max(1), shape)?
                    .cast(dtype),
            )
        }
    }
}

impl Generator {
    /// Standard gamma floats of shape `shape` (`Generator.standard_gamma`), Marsaglia and
    /// Tsang's method (see [`kupfer_core::random`] for the bound on rejections). `dtype`
    /// float32 or float64; without it, float32 unless `shape` is a float64 array.
    pub fn standard_gamma(
        &self,
        shape: impl Into<Operand>,
        size: Option<&[usize]>,
        dtype: Option<DType>,
    ) -> Result<Array> {
        let k = shape.into();
        let d = match dtype {
            Some(_) => float_dtype(dtype, "standard_gamma")?,
            None => draw_dtype(&[&k]),
        };
        check(&k, Rule::NonNegative, "shape < 0")?;
        let out = out_shape(size, &[&k])?;
        let p = param_as(&k, &out, d)?;
        self.draw(RandomOp::Gamma, &out, d, vec![p])
    }

    /// Gamma floats: `scale * standard_gamma(shape)` (`Generator.gamma`).
    pub fn gamma(
        &self,
        shape: impl Into<Operand>,
        scale: impl Into<Operand>,
        size: Option<&[usize]>,
    ) -> Result<Array> {
        let (k, scale) = (shape.into(), scale.into());
        check(&scale, Rule::NonNegative, "scale < 0")?;
        let size = out_shape(size, &[&k, &scale])?;
        let d = draw_dtype(&[&k, &scale]);
        uf::multiply(scale, self.standard_gamma(k, Some(&size), Some(d))?)
    }

    /// Beta floats: `X / (X + Y)` with X, Y standard gamma of shapes `a`, `b`
    /// (`Generator.beta`).
    pub fn beta(
        &self,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
        size: Option<&[usize]>,
    ) -> Result<Array> {
        let (a, b) = (a.into(), b.into());
        check(&a, Rule::Positive, "a <= 0")?;
        check(&b, Rule::Positive, "b <= 0")?;
        let size = out_shape(size, &[&a, &b])?;
        let d = Some(draw_dtype(&[&a, &b]));
        let det = deterministic_in(Transform::Quotient, draw_dtype(&[&a, &b]), &[&a, &b]);
        let x = self.standard_gamma(a, Some(&size), d)?;
        let y = self.standard_gamma(b, Some(&size), d)?;
        let sum = uf::add(&x, y)?;
        if let Some(dd) = det {
            return self.draw_det_in(Transform::Quotient, dd, &size, &[&x.into(), &sum.into()]);
        }
        uf::divide(&x, sum)
    }

    /// Chi-square floats: `2 standard_gamma(df / 2)` (`Generator.chisquare`).
    pub fn chisquare(&self, df: impl Into<Operand>, size: Option<&[usize]>) -> Result<Array> {
        let df = df.into();
        check(&df, Rule::Positive, "df <= 0")?;
        let size = out_shape(size, &[&df])?;
        let d = Some(draw_dtype(&[&df]));
        let half = half_of(&df)?;
        uf::multiply(self.standard_gamma(half, Some(&size), d)?, 2.0)
    }

    /// Noncentral chi-square floats (`Generator.noncentral_chisquare`): `df > 1`: a central
    /// chi-square of `df - 1` plus `(Z + sqrt(nonc))^2`; else a central chi-square of
    /// `df + 2 i` with `i` Poisson of `nonc / 2`.
    pub fn noncentral_chisquare(
        &self,
        df: impl Into<Operand>,
        nonc: impl Into<Operand>,
        size: Option<&[usize]>,
    ) -> Result<Array> {
        let (df, nonc) = (df.into(), nonc.into());
        check(&df, Rule::Positive, "df <= 0")?;
        check(&nonc, Rule::NonNegative, "nonc < 0")?;
        let size = out_shape(size, &[&df, &nonc])?;
        let d = draw_dtype(&[&df, &nonc]);
        let z = self.standard_normal(&size, Some(d))?;
        let central = self.chisquare_any(
            uf::maximum(uf::subtract(df.clone(), 1.0)?, 1e-30)?,
            &size,
            d,
        )?;
        let big = if let Some(dd) = deterministic_in(Transform::Noncentral, d, &[&df, &nonc]) {
            // The square fenced and the root corrected: the same bits on every driver.
            let (c, z) = (central.into(), z.into());
            self.draw_det_in(Transform::Noncentral, dd, &size, &[&c, &z, &nonc])?
        } else {
            let shifted = uf::square(uf::add(z, pu(&nonc, f64::sqrt, uf::sqrt)?)?)?;
            uf::add(central, shifted)?
        };
        let i = self.poisson_counts(uf::multiply(nonc, 0.5)?.into(), &size, d)?;
        let small = self.chisquare_any(uf::add(df.clone(), uf::multiply(i, 2.0)?)?, &size, d)?;
        uf::where_(uf::greater(df, 1.0)?, big, small)
    }

    /// F floats: the ratio of two chi-squares over their degrees of freedom (`Generator.f`).
    pub fn f(
        &self,
        dfnum: impl Into<Operand>,
        dfden: impl Into<Operand>,
        size: Option<&[usize]>,
    ) -> Result<Array> {
        let (a, b) = (dfnum.into(), dfden.into());
        check(&a, Rule::Positive, "dfnum <= 0")?;
        check(&b, Rule::Positive, "dfden <= 0")?;
        let size = out_shape(size, &[&a, &b])?;
        if let Some(dd) = deterministic_in(Transform::Quotient, draw_dtype(&[&a, &b]), &[&a, &b]) {
            let x: Operand = self.chisquare(a.clone(), Some(&size))?.into();
            let y: Operand = self.chisquare(b.clone(), Some(&size))?.into();
            let q = |p: &Operand, r: &Operand| {
                self.draw_det_in(Transform::Quotient, dd, &size, &[p, r])
            };
            let xa: Operand = q(&x, &a)?.into();
            let yb: Operand = q(&y, &b)?.into();
            return q(&xa, &yb);
        }
        let x = uf::divide(self.chisquare(a.clone(), Some(&size))?, a)?;
        let y = uf::divide(self.chisquare(b.clone(), Some(&size))?, b)?;
        uf::divide(x, y)
    }

    /// Noncentral F floats (`Generator.noncentral_f`): NumPy's construction, a noncentral
    /// chi-square of `dfnum` and `nonc` over `dfnum`, divided by a central chi-square of
    /// `dfden` over `dfden` (the quotients as in [`Generator::f`]).
    ///
    /// ```
    /// use kupfer as kp;
    /// let rng = kp::random::default_rng(Some(3));
    /// let x = rng.noncentral_f(3.0, 20.0, 3.0, Some(&[1000]))?.to_vec::<f32>()?;
    /// assert!(x.iter().all(|&v| v >= 0.0));
    /// assert!(rng.noncentral_f(3.0, 20.0, -1.0, None).is_err()); // nonc < 0
    /// # Ok::<(), kp::Error>(())
    /// ```
    pub fn noncentral_f(
        &self,
        dfnum: impl Into<Operand>,
        dfden: impl Into<Operand>,
        nonc: impl Into<Operand>,
        size: Option<&[usize]>,
    ) -> Result<Array> {
        let (a, b, c) = (dfnum.into(), dfden.into(), nonc.into());
        check(&a, Rule::Positive, "dfnum <= 0")?;
        check(&b, Rule::Positive, "dfden <= 0")?;
        check(&c, Rule::NonNegative, "nonc < 0")?;
        let size = out_shape(size, &[&a, &b, &c])?;
        let x: Operand = self
            .noncentral_chisquare(a.clone(), c.clone(), Some(&size))?
            .into();
        let y: Operand = self.chisquare(b.clone(), Some(&size))?.into();
        let d = draw_dtype(&[&a, &b, &c]);
        if let Some(dd) = deterministic_in(Transform::Quotient, d, &[&a, &b, &c]) {
            let q = |p: &Operand, r: &Operand| {
                self.draw_det_in(Transform::Quotient, dd, &size, &[p, r])
            };
            let xa: Operand = q(&x, &a)?.into();
            let yb: Operand = q(&y, &b)?.into();
            return q(&xa, &yb);
        }
        uf::divide(uf::divide(x, a)?, uf::divide(y, b)?)
    }

    /// Student's t floats: `Z / sqrt(chisquare(df) / df)` (`Generator.standard_t`).
    pub fn standard_t(&self, df: impl Into<Operand>, size: Option<&[usize]>) -> Result<Array> {
        let df = df.into();
        check(&df, Rule::Positive, "df <= 0")?;
        let size = out_shape(size, &[&df])?;
        let z = self.standard_normal(&size, Some(draw_dtype(&[&df])))?;
        let c = self.chisquare(df.clone(), Some(&size))?;
        if let Some(dd) = deterministic_in(Transform::StudentT, draw_dtype(&[&df]), &[&df]) {
            let (z, c) = (z.into(), c.into());
            return self.draw_det_in(Transform::StudentT, dd, &size, &[&z, &c, &df]);
        }
        uf::divide(z, uf::sqrt(uf::divide(c, df)?)?)
    }

    /// Poisson counts of mean `lam` (`Generator.poisson`): int64 where the adapter has it,
    /// else int32; computed in float32 (exact counts up to 2^24), or in float64 when `lam` is
    /// a float64 array.
    pub fn poisson(&self, lam: impl Into<Operand>, size: Option<&[usize]>) -> Result<Array> {
        let lam = lam.into();
        check(&lam, Rule::NonNegative, "lam < 0")?;
        if let Operand::Scalar(s) = &lam
            && s.as_f64() > 9.2e18
        {
            return Err(Error::invalid("lam value too large"));
        }
        let size = out_shape(size, &[&lam])?;
        let d = draw_dtype(&[&lam]);
        let k = self.poisson_counts(lam, &size, d)?;
        k.astype(crate::device::Device::current()?.default_int())
    }

    /// Negative binomial counts: Poisson of a gamma of shape `n` and scale `(1 - p) / p`
    /// (`Generator.negative_binomial`).
    pub fn negative_binomial(
        &self,
        n: impl Into<Operand>,
        p: impl Into<Operand>,
        size: Option<&[usize]>,
    ) -> Result<Array> {
        let (n, p) = (n.into(), p.into());
        check(&n, Rule::Positive, "n <= 0")?;
        check(&p, Rule::Probability, "p < 0, p > 1 or p is NaN")?;
        if let Operand::Scalar(s) = &p
            && s.as_f64() == 0.0
        {
            return Err(Error::invalid("p <= 0, p > 1 or p contains NaNs"));
        }
        let size = out_shape(size, &[&n, &p])?;
        let d = draw_dtype(&[&n, &p]);
        let scale = match &p {
            // (1 - p) / p by the deterministic quotient (the same bits on every driver).
            Operand::Array(a) if deterministic_in(Transform::Quotient, d, &[&p]).is_some() => {
                let q: Operand = uf::subtract(1.0, a)?.into();
                Operand::Array(self.draw_det_in(Transform::Quotient, d, &size, &[&q, &p])?)
            }
            _ => pu(
                &p,
                |p| (1.0 - p) / p,
                |p| uf::divide(uf::subtract(1.0, p.clone())?, p),
            )?,
        };
        let y = uf::multiply(self.standard_gamma(n, Some(&size), Some(d))?, scale)?;
        let k = self.poisson_counts(y.into(), &size, d)?;
        k.astype(crate::device::Device::current()?.default_int())
    }

    /// Dirichlet vectors (`Generator.dirichlet`): gamma draws of the `alpha` shapes along a new
    /// last axis, normalised to sum 1. float32 (NumPy returns float64; kupfer draws in
    /// float32 for Python-number parameters, on every adapter): the deterministic float32
    /// gammas summed in index order (a chain of additions, whatever the number of categories;
    /// the lazy engine materialises a long chain in pieces, which keeps its bits) and the
    /// deterministic quotient, so the same bits on every driver (`KUPFER_RANDDET=off`: a sum
    /// reduction and the driver's division).
    pub fn dirichlet(&self, alpha: &[f64], size: &[usize]) -> Result<Array> {
        if alpha.iter().any(|&a| a <= 0.0 || a.is_nan()) {
            return Err(Error::invalid("alpha <= 0"));
        }
        let k = alpha.len();
        let a32: Vec<f32> = alpha.iter().map(|&a| a as f32).collect();
        let al = Array::from_slice(&a32, &[k])?;
        let mut shape = size.to_vec();
        shape.push(k);
        let g = self.standard_gamma(&al, Some(&shape), None)?;
        if transforms::enabled() {
            // The sum in index order (no reduction kernel, whose order may depend on the
            // adapter), then the deterministic quotient: the same bits on every driver.
            let part = |i: usize| {
                g.slice(&[
                    SliceArg::Ellipsis,
                    SliceArg::Slice {
                        start: Some(i as isize),
                        stop: Some(i as isize + 1),
                        step: None,
                    },
                ])
            };
            let mut sum = part(0)?;
            for i in 1..k {
                sum = uf::add(&sum, part(i)?)?;
            }
            return self.draw_det(Transform::Quotient, &shape, &[&(&g).into(), &sum.into()]);
        }
        let axis = crate::reduce::Axis::from(-1isize);
        uf::divide(&g, crate::reduce::sum(&g, axis, true)?)
    }

    /// A chi-square draw of a (possibly lazy) degrees-of-freedom array over `size`,
    /// drawn in `d` (a scalar `df` made the array float64 and the draw with it).
    fn chisquare_any(&self, df: Array, size: &[usize], d: DType) -> Result<Array> {
        let half = uf::multiply(df, 0.5)?;
        uf::multiply(self.standard_gamma(&half, Some(size), Some(d))?, 2.0)
    }

    /// Poisson counts of `lam` over `size`, as floats of dtype `d`.
    fn poisson_counts(&self, lam: Operand, size: &[usize], d: DType) -> Result<Array> {
        // Integer parameter arrays are cast to the draw's dtype either way.
        if d == DType::F32 && transforms::enabled() {
            return self.draw_det(Transform::Poisson, size, &[&lam]);
        }
        let p = param_as(&lam, size, d)?;
        self.draw(RandomOp::Poisson, size, d, vec![p])
    }
}

/// `df / 2` of a parameter.
fn half_of(df: &Operand) -> Result<Operand> {
    Ok(match df {
        Operand::Scalar(s) => Operand::Scalar(Scalar::Float(s.as_f64() / 2.0)),
        Operand::Array(a) => Operand::Array(uf::multiply(a, 0.5)?),
    })
}
