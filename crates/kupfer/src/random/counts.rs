//! `zipf` and `hypergeometric`: rejection samplers of counts that run per element inside the
//! draw's kernel, with deterministic arithmetic (`shaders/random_det.wgsl`,
//! `shaders/random_det64.wgsl`: the same bits on every driver; `KUPFER_RANDDET=off`: the libm
//! forms of `shaders/random_float.wgsl`; algorithms and loop bounds in
//! [`kupfer_core::random`]). `multivariate_hypergeometric` is NumPy's marginal method over
//! the hypergeometric sampler.
//!
//! Both compute in float64 where the adapter has it (NumPy's precision: counts exact to 2^53)
//! and in float32 elsewhere (WebGPU, Metal): there zipf counts above 2^24 are rounded to
//! float32's spacing and hypergeometric populations are limited to 2^24. The counts are int64
//! where the adapter has it, else int32.

use super::distributions::param_as;
use super::{out_shape, Generator};
use crate::array::Array;
use crate::device::Device;
use crate::scalar::{Operand, Scalar};
use crate::ufuncs as uf;
use kupfer_core::random::RandomOp;
use kupfer_core::{DType, Error, Kind, Result};

/// True when any element of the boolean array `bad` is true (native: a reduction read back;
/// wasm32 cannot block on a read, so array parameters are not checked there).
fn any_bad(bad: Array) -> Result<bool> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        Ok(matches!(
            crate::reduce::any(&bad, crate::reduce::Axis::All, false)?.item()?,
            Scalar::Bool(true)
        ))
    }
    #[cfg(target_arch = "wasm32")]
    {
        let _ = bad;
        Ok(false)
    }
}

/// An integer parameter: a Python number truncates toward zero (NumPy's cast to int64); an
/// array must be of an integer dtype (NumPy's safe cast).
fn int_param(p: Operand) -> Result<Operand> {
    match p {
        Operand::Scalar(s) => Ok(Operand::Scalar(Scalar::Float(s.as_f64().trunc()))),
        Operand::Array(a) if matches!(a.dtype().kind(), Kind::Float | Kind::Complex) => {
            Err(Error::invalid(format!(
                "Cannot cast array data from dtype('{}') to dtype('int64') according to the \
                 rule 'safe'",
                a.dtype().name()
            )))
        }
        other => Ok(other),
    }
}

/// A parameter as a float64 value when it is a Python number.
fn scalar_of(p: &Operand) -> Option<f64> {
    match p {
        Operand::Scalar(s) => Some(s.as_f64()),
        Operand::Array(_) => None,
    }
}

/// True when any element of `p` satisfies `bad` (scalars on the host, arrays through `array`).
fn violates(
    p: &Operand,
    bad: fn(f64) -> bool,
    array: impl FnOnce(&Array) -> Result<Array>,
) -> Result<bool> {
    match p {
        Operand::Scalar(s) => Ok(bad(s.as_f64())),
        Operand::Array(a) if a.size() == 0 => Ok(false),
        Operand::Array(a) => any_bad(array(a)?),
    }
}

impl Generator {
    /// Zipf counts >= 1 of exponent `a > 1` (`Generator.zipf`), Devroye's rejection method
    /// as NumPy (truncated below 2^63 as NumPy's is); int64 where the adapter has it.
    ///
    /// ```
    /// use kupfer as kp;
    /// let rng = kp::random::default_rng(Some(7));
    /// let k = rng.zipf(2.0, Some(&[1000]))?.astype(kp::DType::F64)?.to_vec::<f64>()?;
    /// assert!(k.iter().all(|&v| v >= 1.0 && v.fract() == 0.0));
    /// assert!(rng.zipf(1.0, None).is_err()); // a <= 1 or a is NaN
    /// # Ok::<(), kp::Error>(())
    /// ```
    pub fn zipf(&self, a: impl Into<Operand>, size: Option<&[usize]>) -> Result<Array> {
        let work = Device::current()?.default_float();
        self.zipf_computed_in(a, size, work)
    }

    /// [`Generator::zipf`] computed in `work` (float32 or float64): the tests check the
    /// float32 path on adapters that have float64.
    #[doc(hidden)]
    pub fn zipf_computed_in(
        &self,
        a: impl Into<Operand>,
        size: Option<&[usize]>,
        work: DType,
    ) -> Result<Array> {
        let a = a.into();
        let msg = if matches!(a, Operand::Array(_)) {
            "a <= 1 or a contains NaNs"
        } else {
            "a <= 1 or a is NaN"
        };
        if violates(&a, |x| x <= 1.0 || x.is_nan(), |a| uf::less_equal(a, 1.0))? {
            return Err(Error::invalid(msg));
        }
        if let Operand::Array(arr) = &a
            && arr.dtype().kind() == Kind::Float
            && any_bad(uf::isnan(arr)?)?
        {
            return Err(Error::invalid(msg));
        }
        let shape = out_shape(size, &[&a])?;
        let device = Device::current()?;
        let k = if kupfer_core::random::transforms::enabled() {
            // The same bits on every driver, in float32 (the browser's path) or float64.
            let t = kupfer_core::random::transforms::Transform::Zipf;
            self.draw_det_in(t, work, &shape, &[&a])?
        } else {
            let p = param_as(&a, &shape, work)?;
            self.draw(RandomOp::Zipf, &shape, work, vec![p])?
        };
        k.astype(device.default_int())
    }

    /// Hypergeometric counts: the good items among `nsample` drawn without replacement from
    /// `ngood` good and `nbad` bad ones (`Generator.hypergeometric`). NumPy's methods: urn
    /// draws when `nsample` or its complement is below 10, Stadlober's HRUA otherwise. Python
    /// numbers truncate to integers; arrays must be of an integer dtype. int64 where the
    /// adapter has it.
    ///
    /// ```
    /// use kupfer as kp;
    /// let rng = kp::random::default_rng(Some(7));
    /// let k = rng.hypergeometric(7, 5, 12, Some(&[4]))?.astype(kp::DType::F64)?;
    /// assert_eq!(k.to_vec::<f64>()?, vec![7.0; 4]); // the whole population: every good one
    /// # Ok::<(), kp::Error>(())
    /// ```
    pub fn hypergeometric(
        &self,
        ngood: impl Into<Operand>,
        nbad: impl Into<Operand>,
        nsample: impl Into<Operand>,
        size: Option<&[usize]>,
    ) -> Result<Array> {
        let work = Device::current()?.default_float();
        self.hypergeometric_computed_in(ngood, nbad, nsample, size, work)
    }

    /// [`Generator::hypergeometric`] computed in `work` (float32 or float64): the tests check
    /// the float32 path on adapters that have float64.
    #[doc(hidden)]
    pub fn hypergeometric_computed_in(
        &self,
        ngood: impl Into<Operand>,
        nbad: impl Into<Operand>,
        nsample: impl Into<Operand>,
        size: Option<&[usize]>,
        work: DType,
    ) -> Result<Array> {
        let good = int_param(ngood.into())?;
        let bad = int_param(nbad.into())?;
        let sample = int_param(nsample.into())?;
        // NumPy's order of checks: the population limit, the sample, the signs.
        let huge = |x: f64| x >= 1e9;
        if violates(&good, huge, |a| uf::greater_equal(a, 1e9))?
            || violates(&bad, huge, |a| uf::greater_equal(a, 1e9))?
        {
            return Err(Error::invalid(
                "both ngood and nbad must be less than 1000000000",
            ));
        }
        let short = match (scalar_of(&good), scalar_of(&bad), scalar_of(&sample)) {
            (Some(g), Some(b), Some(s)) => g + b < s,
            _ => any_bad(uf::less(
                uf::add(good.clone(), bad.clone())?,
                sample.clone(),
            )?)?,
        };
        if short {
            return Err(Error::invalid("ngood + nbad < nsample"));
        }
        for (p, name) in [(&good, "ngood"), (&bad, "nbad"), (&sample, "nsample")] {
            if violates(p, |x| x < 0.0, |a| uf::less(a, 0))? {
                return Err(Error::invalid(format!("{name} < 0")));
            }
        }
        let shape = out_shape(size, &[&good, &bad, &sample])?;
        let device = Device::current()?;
        if work == DType::F32 {
            let limit = 16_777_216.0;
            let over = match (scalar_of(&good), scalar_of(&bad)) {
                (Some(g), Some(b)) => g + b > limit,
                _ => any_bad(uf::greater(uf::add(good.clone(), bad.clone())?, limit)?)?,
            };
            if over {
                return Err(Error::unsupported(
                    "hypergeometric with ngood + nbad above 2^24 on an adapter without \
                     float64 (kupfer draws them in float32 there)",
                ));
            }
        }
        let k = self.hypergeometric_draw(&good, &bad, &sample, &shape, work)?;
        k.astype(device.default_int())
    }

    /// The hypergeometric counts of checked parameters, as floats of `work`.
    fn hypergeometric_draw(
        &self,
        good: &Operand,
        bad: &Operand,
        sample: &Operand,
        shape: &[usize],
        work: DType,
    ) -> Result<Array> {
        if kupfer_core::random::transforms::enabled() {
            // The same bits on every driver, in float32 (the browser's path) or float64.
            let t = kupfer_core::random::transforms::Transform::Hypergeometric;
            return self.draw_det_in(t, work, shape, &[good, bad, sample]);
        }
        let params = vec![
            param_as(good, shape, work)?,
            param_as(bad, shape, work)?,
            param_as(sample, shape, work)?,
        ];
        self.draw(RandomOp::Hypergeometric, shape, work, params)
    }

    /// Counts of each color among `nsample` items drawn without replacement from an urn with
    /// `colors[i]` items of color `i` (`Generator.multivariate_hypergeometric`): shape
    /// `size + (len(colors),)`, int64 where the adapter has it, each row summing to
    /// `nsample`.
    ///
    /// Drawn by NumPy's marginal method on the device: `x[0]` is hypergeometric (`colors[0]`
    /// good, the rest bad, `nsample` drawn), `x[1]` hypergeometric of `colors[1]` against the
    /// colors after it with the `nsample - x[0]` items left, and so on; the last color takes
    /// what remains. One draw kernel per color but the last, nothing read back. `method`
    /// `'marginals'` (None: the default) or `'count'`; `'count'` (NumPy's urn simulation)
    /// gives the same distribution, and kupfer draws it by marginals too, so it shares the
    /// marginal method's limit: `sum(colors)` below 10^9 (2^24 on adapters without
    /// float64). Errors are NumPy's, in NumPy's order: the method, negative colors,
    /// a negative `nsample`, `nsample > sum(colors)`, the limit.
    ///
    /// ```
    /// use kupfer as kp;
    /// let rng = kp::random::default_rng(Some(7));
    /// let x = rng.multivariate_hypergeometric(&[16, 8, 4], 6, Some(&[3]), None)?;
    /// assert_eq!(x.shape(), &[3, 3]);
    /// let rows = kp::sum(&x, -1, false)?.astype(kp::DType::I32)?;
    /// assert_eq!(rows.to_vec::<i32>()?, vec![6, 6, 6]);
    /// assert!(rng.multivariate_hypergeometric(&[2, 1], 4, None, None).is_err());
    /// # Ok::<(), kp::Error>(())
    /// ```
    pub fn multivariate_hypergeometric(
        &self,
        colors: &[i64],
        nsample: i64,
        size: Option<&[usize]>,
        method: Option<&str>,
    ) -> Result<Array> {
        let count = match method {
            None | Some("marginals") => false,
            Some("count") => true,
            Some(_) => return Err(Error::invalid("method must be \"count\" or \"marginals\".")),
        };
        if colors.iter().any(|&c| c < 0) {
            return Err(Error::invalid(
                "colors must be a one-dimensional sequence of nonnegative integers not \
                 exceeding 9223372036854775807.",
            ));
        }
        if nsample < 0 {
            return Err(Error::invalid("nsample must be nonnegative."));
        }
        let total = colors
            .iter()
            .try_fold(0i64, |t, &c| t.checked_add(c))
            .ok_or_else(|| {
                Error::invalid(
                    "sum(colors) must not exceed the maximum value of a 64 bit signed integer \
                     (9223372036854775807)",
                )
            })?;
        if nsample > total {
            return Err(Error::invalid("nsample > sum(colors)"));
        }
        let device = Device::current()?;
        let work = device.default_float();
        let limit = if work == DType::F32 {
            16_777_216
        } else {
            1_000_000_000
        };
        if total >= limit {
            return Err(if !count && limit == 1_000_000_000 {
                Error::invalid(
                    "When method is \"marginals\", sum(colors) must be less than 1000000000.",
                )
            } else {
                Error::unsupported(format!(
                    "multivariate_hypergeometric with sum(colors) of {limit} or more (kupfer \
                     draws every method by marginals, whose populations are limited to \
                     {limit} on this adapter)"
                ))
            });
        }
        let mut shape = size.map(<[usize]>::to_vec).unwrap_or_default();
        let k = colors.len();
        let int = device.default_int();
        let Some((_, firsts)) = colors.split_last() else {
            shape.push(0);
            return crate::creation::full_on(&device, &shape, 0i64, Some(int));
        };
        let mut left: Operand = Operand::Scalar(Scalar::Float(nsample as f64));
        let mut rest = total;
        let mut parts = Vec::with_capacity(k);
        for &c in firsts {
            rest -= c;
            let good = Operand::Scalar(Scalar::Float(c as f64));
            let bad = Operand::Scalar(Scalar::Float(rest as f64));
            let x = self.hypergeometric_draw(&good, &bad, &left, &shape, work)?;
            x.eval()?;
            let after = uf::subtract(left, &x)?;
            after.eval()?;
            left = Operand::Array(after);
            parts.push(x);
        }
        parts.push(match left {
            Operand::Array(a) => a,
            Operand::Scalar(s) => crate::creation::full_on(&device, &shape, s, Some(work))?,
        });
        let stacked = crate::manip::stack(&parts, -1, None)?;
        stacked.astype(int)
    }
}
