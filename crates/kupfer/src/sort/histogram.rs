//! Histograms that need order: explicit bin edges (NumPy's sorted-data method: sort, two
//! `searchsorted`s, differences) and NumPy's bin-width rules (`'auto'`, `'fd'`, `'sturges'`,
//! `'doane'`, `'scott'`, `'stone'`, `'rice'`, `'sqrt'`), which size uniform bins from a few
//! statistics read back (range, standard deviation, quartiles, skewness; for `'stone'` the
//! counts of every candidate histogram) and then run the uniform histogram of
//! [`crate::stats`].

use super::order::sort;
use super::search::{searchsorted, Side};
use crate::array::Array;
use crate::reduce::{self, Axis};
use kupfer_core::{DType, Error, Result, SliceArg};

/// The `bins` argument of [`histogram_bins`]: a count of uniform bins, explicit edges, or one
/// of NumPy's rules.
#[derive(Debug, Clone)]
pub enum Bins {
    /// This many equal-width bins.
    Count(usize),
    /// Bin edges (1-D, increasing): bins `[e0, e1), [e1, e2), ..., [e_{n-1}, e_n]`.
    Edges(Array),
    /// A bin-width rule: `auto`, `fd`, `sturges`, `doane`, `scott`, `stone`, `rice` or
    /// `sqrt`.
    Rule(String),
}

async fn scalar(a: &Array) -> Result<f64> {
    Ok(a.item_async().await?.as_f64())
}

fn tail(a: &Array, start: Option<isize>, stop: Option<isize>) -> Result<Array> {
    a.slice(&[SliceArg::Slice {
        start,
        stop,
        step: None,
    }])
}

/// `numpy.histogram(a, bins, range, weights=)` for every form of `bins`: `(counts,
/// bin_edges)`. Counts have the default integer dtype (the weights' dtype when weighted).
/// `range` bounds uniform and rule-sized bins (it is not supported together with a rule).
///
/// ```
/// use kupfer as kp;
/// use kp::sort::Bins;
/// let a = kp::Array::from_slice(&[0.5f32, 1.0, 1.5, 2.0, 7.0], &[5])?;
/// let edges = kp::Array::from_slice(&[0.0f32, 1.0, 2.0], &[3])?;
/// let (counts, _) = kp::sort::histogram_bins(&a, Bins::Edges(edges), None, None)?;
/// assert_eq!(counts.astype(kp::DType::I32)?.to_vec::<i32>()?, vec![1, 3]);
/// # Ok::<(), kp::Error>(())
/// ```
#[cfg(not(target_arch = "wasm32"))]
pub fn histogram_bins(
    a: &Array,
    bins: Bins,
    range: Option<(f64, f64)>,
    weights: Option<&Array>,
) -> Result<(Array, Array)> {
    pollster::block_on(histogram_bins_async(a, bins, range, weights))
}

/// `numpy.histogram_bin_edges(a, bins, range, weights=)`: the edges [`histogram_bins`] uses.
#[cfg(not(target_arch = "wasm32"))]
pub fn histogram_bin_edges(
    a: &Array,
    bins: Bins,
    range: Option<(f64, f64)>,
    weights: Option<&Array>,
) -> Result<Array> {
    Ok(pollster::block_on(histogram_bins_async(a, bins, range, weights))?.1)
}

/// [`histogram_bins`], async (the browser's only form: it reads statistics back).
pub async fn histogram_bins_async(
    a: &Array,
    bins: Bins,
    range: Option<(f64, f64)>,
    weights: Option<&Array>,
) -> Result<(Array, Array)> {
    match bins {
        Bins::Count(n) => crate::stats::histogram_async(a, n, range, weights).await,
        Bins::Edges(edges) => histogram_edges(a, &edges, weights).await,
        Bins::Rule(rule) => {
            if weights.is_some() {
                return Err(Error::invalid(
                    "Automated estimation of the number of bins is not supported for weighted \
                     data",
                ));
            }
            let n = match range {
                None => rule_bins(a, &rule, None).await?,
                Some((lo, hi)) => {
                    // NumPy's `_get_outer_edges` checks, then the rule sees only the data
                    // inside the range, and the bins span the range.
                    crate::stats::check_outer_range(lo, hi)?;
                    let (first, last) = if lo == hi {
                        (lo - 0.5, hi + 0.5)
                    } else {
                        (lo, hi)
                    };
                    if rule == "stone" {
                        return Err(Error::unsupported("the 'stone' rule together with `range`"));
                    }
                    let flat = a.reshape(&[-1])?;
                    let keep = crate::ufuncs::logical_and(
                        crate::ufuncs::greater_equal(&flat, first)?,
                        crate::ufuncs::less_equal(&flat, last)?,
                    )?;
                    let inside = crate::indexing::functions::extract_async(&keep, &flat).await?;
                    rule_bins(&inside, &rule, Some((first, last))).await?
                }
            };
            crate::stats::histogram_async(a, n, range, None).await
        }
    }
}

/// The number of equal bins NumPy's rule `rule` gives the data of `a`, over `edges` (the
/// outer edges of an explicit range; else the data's own).
async fn rule_bins(a: &Array, rule: &str, edges: Option<(f64, f64)>) -> Result<usize> {
    let rules = [
        "auto", "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt",
    ];
    if !rules.contains(&rule) {
        return Err(Error::invalid(format!(
            "'{rule}' is not a valid estimator for `bins`"
        )));
    }
    if a.dtype().is_complex() {
        return Err(Error::unsupported(format!(
            "histograms of {} arrays",
            a.dtype()
        )));
    }
    let n = a.size();
    if n == 0 {
        return Ok(1);
    }
    let wide = if a.device().supports(DType::F64) {
        DType::F64
    } else {
        DType::F32
    };
    let x = a.reshape(&[-1])?.astype(wide)?;
    let lo = scalar(&reduce::min(&x, Axis::All, false)?).await?;
    let hi = scalar(&reduce::max(&x, Axis::All, false)?).await?;
    if !(lo.is_finite() && hi.is_finite()) {
        return Err(Error::invalid(format!(
            "autodetected range of [{lo}, {hi}] is not finite"
        )));
    }
    let (first, last) = match edges {
        Some(e) => e,
        None if lo == hi => (lo - 0.5, hi + 0.5),
        None => (lo, hi),
    };
    if rule == "stone" {
        return stone_bins(a, lo, hi).await;
    }
    let nf = n as f64;
    let ptp = hi - lo;
    let sturges = ptp / (nf.log2() + 1.0);
    let fd = || async {
        let q = super::quantile::percentiles(&x, &[75.0, 25.0], None, "linear", false)?;
        let q75 = scalar(&q.slice(&[SliceArg::Index(0)])?).await?;
        let q25 = scalar(&q.slice(&[SliceArg::Index(1)])?).await?;
        Ok::<f64, Error>(2.0 * (q75 - q25) * nf.powf(-1.0 / 3.0))
    };
    let width = match rule {
        "sqrt" => ptp / nf.sqrt(),
        "sturges" => sturges,
        "rice" => ptp / (2.0 * nf.powf(1.0 / 3.0)),
        "scott" => {
            let sd = scalar(&reduce::std(&x, Axis::All, 0, false)?).await?;
            (24.0 * std::f64::consts::PI.sqrt() / nf).powf(1.0 / 3.0) * sd
        }
        "fd" => fd().await?,
        "auto" => {
            let f = fd().await?;
            if f != 0.0 {
                f.min(sturges)
            } else {
                sturges
            }
        }
        _ => {
            // doane
            if n > 2 {
                let sg1 = (6.0 * (nf - 2.0) / ((nf + 1.0) * (nf + 3.0))).sqrt();
                let sd = scalar(&reduce::std(&x, Axis::All, 0, false)?).await?;
                if sd > 0.0 {
                    let mean = scalar(&reduce::mean(&x, Axis::All, false)?).await?;
                    let z = crate::ufuncs::divide(crate::ufuncs::subtract(&x, mean)?, sd)?;
                    let cube = crate::ufuncs::multiply(&crate::ufuncs::multiply(&z, &z)?, &z)?;
                    let g1 = scalar(&reduce::mean(&cube, Axis::All, false)?).await?;
                    ptp / (1.0 + nf.log2() + (1.0 + g1.abs() / sg1).log2())
                } else {
                    0.0
                }
            } else {
                0.0
            }
        }
    };
    if width == 0.0 || width.is_nan() {
        return Ok(1);
    }
    let width = if !(a.dtype().is_float()) && width < 1.0 {
        1.0
    } else {
        width
    };
    let bins = ((last - first) / width).ceil();
    if !(bins >= 1.0 && bins < i32::MAX as f64) {
        return Err(Error::unsupported(format!(
            "a histogram of {bins} bins from the '{rule}' rule"
        )));
    }
    Ok(bins as usize)
}

/// NumPy's 'stone' rule (`_hist_bin_stone`): the bin count `b` in `1..=max(100, sqrt(n))`
/// that minimises the estimated L2 risk `(2 - (n + 1) * sum(p_k^2)) / h` of the histogram
/// with `b` bins (`p_k` the bin frequencies, `h = ptp / b` in the data's float dtype; the
/// first minimum), then `ceil(ptp / (ptp / b))` bins as NumPy computes them. Every candidate
/// histogram comes from one sort of the data and one `searchsorted` of all candidates' edges
/// (NumPy's uniform binning equals the sorted-edge search); one read-back of the counts.
async fn stone_bins(a: &Array, lo: f64, hi: f64) -> Result<usize> {
    let device = a.device();
    let n = a.size();
    let d = a.dtype();
    // NumPy's ptp and `ptp / b` are in the data's float dtype (float64 for integers); the
    // edges in NumPy's bin type.
    let calc = if d.is_float() { d } else { DType::F64 };
    let wide = if device.supports(DType::F64) {
        DType::F64
    } else {
        DType::F32
    };
    let edge = if d.is_float() { d } else { wide };
    let ptp = crate::stats::round_to(calc, hi - lo);
    if n <= 1 || ptp == 0.0 {
        return Ok(1);
    }
    let upper = 100usize.max((n as f64).sqrt() as usize);
    let mut all = Vec::with_capacity(upper * (upper + 3) / 2);
    for b in 1..=upper {
        all.extend(crate::stats::linspace_in(edge, lo, hi, b + 1));
    }
    let edges = match edge {
        DType::F16 => Array::from_slice_on(
            device,
            &all.iter()
                .map(|&v| half::f16::from_f64(v))
                .collect::<Vec<_>>(),
            &[all.len()],
        )?,
        DType::F32 => Array::from_slice_on(
            device,
            &all.iter().map(|&v| v as f32).collect::<Vec<_>>(),
            &[all.len()],
        )?,
        _ => Array::from_slice_on(device, &all, &[all.len()])?,
    };
    let sorted = sort(&a.reshape(&[-1])?, Some(-1), None)?;
    // The count of values below each edge (the last edge, the maximum, holds all n).
    let below = searchsorted(&sorted, &edges, Side::Left, None)?
        .astype(DType::I32)?
        .to_vec_async::<i32>()
        .await?;
    let nf = n as f64;
    let mut best = (f64::INFINITY, 1usize);
    let mut at = 0usize;
    for b in 1..=upper {
        let cum = &below[at..at + b + 1];
        at += b + 1;
        let mut dot = 0.0f64;
        for k in 0..b {
            let end = if k + 1 == b { n as i32 } else { cum[k + 1] };
            let p = f64::from(end - cum[k]) / nf;
            dot += p * p;
        }
        let h = crate::stats::round_to(calc, ptp / b as f64);
        let risk = (2.0 - (nf + 1.0) * dot) / h;
        if risk < best.0 {
            best = (risk, b);
        }
    }
    let mut width = crate::stats::round_to(calc, ptp / best.1 as f64);
    if !d.is_float() && width < 1.0 {
        width = 1.0;
    }
    let bins = crate::stats::round_to(calc, ptp / width).ceil();
    if !(bins >= 1.0 && bins < i32::MAX as f64) {
        return Err(Error::unsupported(format!(
            "a histogram of {bins} bins from the 'stone' rule"
        )));
    }
    Ok(bins as usize)
}

/// `src[idx]` for a 1-D `src` and in-bounds integer positions `idx` (no bounds read-back).
pub(super) fn gather(src: &Array, idx: &Array) -> Result<Array> {
    let n = src.size();
    let m = idx.size();
    let src = src.ascontiguousarray()?.reshape(&[1, n as isize])?;
    let idx = idx.astype(DType::U32)?.ascontiguousarray()?;
    let (buf, _) = idx.buffer_and_layout()?;
    super::engine::take_rows(&src, n, &buf, m, true, 1, m, m)?.reshape(&[m as isize])
}

/// NumPy's histogram over explicit edges: the data sorted once, then for each bin the
/// number of values below its right edge (the last edge inclusive) minus those below its
/// left edge. Weighted: differences of the cumulative sorted weights.
async fn histogram_edges(
    a: &Array,
    edges: &Array,
    weights: Option<&Array>,
) -> Result<(Array, Array)> {
    if edges.ndim() != 1 {
        return Err(Error::invalid("`bins` must be 1d, when an array"));
    }
    if a.dtype().is_complex() || edges.dtype().is_complex() {
        return Err(Error::unsupported("histograms of complex arrays"));
    }
    let m = edges.size();
    if m >= 2 {
        let dec =
            crate::ufuncs::greater(&tail(edges, None, Some(-1))?, &tail(edges, Some(1), None)?)?;
        let any = scalar(&reduce::max(&dec, Axis::All, false)?).await?;
        if any != 0.0 {
            return Err(Error::invalid(
                "`bins` must increase monotonically, when an array",
            ));
        }
    }
    crate::stats::check_weights(a, weights)?;
    let device = a.device();
    let int = device.default_int();
    if m == 0 {
        return Err(Error::invalid("`bins` must have at least one edge"));
    }
    let x = a.reshape(&[-1])?;
    let (sorted, order) = match weights {
        None => (sort(&x, Some(-1), Some("stable"))?, None),
        Some(_) => {
            let idx = super::order::argsort(&x, Some(-1), Some("stable"))?;
            (gather(&x, &idx)?, Some(idx))
        }
    };
    let left = searchsorted(&sorted, &tail(edges, None, Some(-1))?, Side::Left, None)?;
    let right = searchsorted(&sorted, &tail(edges, Some(-1), None)?, Side::Right, None)?;
    let cum = crate::manip::concatenate(&[left, right], None, None)?;
    let counts = match (weights, order) {
        (Some(w), Some(idx)) => {
            let ws = gather(&w.reshape(&[-1])?, &idx)?;
            let zero = crate::creation::full_on(device, &[1], 0i64, Some(ws.dtype()))?;
            let cw = crate::manip::concatenate(
                &[zero, crate::scan::cumsum(&ws, Some(0), None)?],
                None,
                None,
            )?;
            let at = gather(&cw, &cum)?;
            crate::ufuncs::subtract(&tail(&at, Some(1), None)?, &tail(&at, None, Some(-1))?)?
        }
        _ => crate::ufuncs::subtract(&tail(&cum, Some(1), None)?, &tail(&cum, None, Some(-1))?)?
            .astype(int)?,
    };
    Ok((counts, edges.clone()))
}
