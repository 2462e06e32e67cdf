//! Order statistics: `median`, `quantile`, `percentile` with NumPy's 13 methods, along any
//! axes, with `keepdims`.
//!
//! The reduced axes move last and the order statistics each quantile reads (known on the
//! host from the row length: NumPy's `_quantile` positions) are found per row by radix
//! selection where that applies (`selection.rs`: rows of 1024 elements or more, few long
//! rows), else by sorting the rows (NaN last). A row holding NaN gives NaN (its largest
//! order statistic is NaN). The result is a gather of the two neighbouring order statistics
//! of every (row, q) and NumPy's interpolation (`_lerp`: `a + (b - a) t`, or
//! `b - (b - a)(1 - t)` for t >= 0.5, with NumPy's rounding). Nothing is read back; the
//! `nan` forms read the per-row counts of non-NaN values back (their ranks depend on them).
//!
//! Dtypes: float input keeps its dtype (NumPy gives float64 for an array `q`; kupfer never
//! widens 32-bit types implicitly); integer and bool input give float64 where the adapter
//! has it for 64-bit input, else the device's default float (int32: float32).

use super::engine;
use super::order::Rows;
use super::selection::{self, Ranks};
use crate::array::Array;
use kupfer_core::layout::normalize_axis;
use kupfer_core::{DType, Error, Result};
use std::str::FromStr;

/// NumPy's quantile methods (`method=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuantileMethod {
    /// `inverted_cdf` (discontinuous).
    InvertedCdf,
    /// `averaged_inverted_cdf`.
    AveragedInvertedCdf,
    /// `closest_observation`.
    ClosestObservation,
    /// `interpolated_inverted_cdf` (alpha 0, beta 1).
    InterpolatedInvertedCdf,
    /// `hazen` (alpha = beta = 1/2).
    Hazen,
    /// `weibull` (alpha = beta = 0).
    Weibull,
    /// `linear`, the default (alpha = beta = 1).
    Linear,
    /// `median_unbiased` (alpha = beta = 1/3).
    MedianUnbiased,
    /// `normal_unbiased` (alpha = beta = 3/8).
    NormalUnbiased,
    /// `lower`.
    Lower,
    /// `higher`.
    Higher,
    /// `midpoint`.
    Midpoint,
    /// `nearest` (ties to even, as `np.around`).
    Nearest,
}

impl FromStr for QuantileMethod {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        use QuantileMethod::*;
        Ok(match s {
            "inverted_cdf" => InvertedCdf,
            "averaged_inverted_cdf" => AveragedInvertedCdf,
            "closest_observation" => ClosestObservation,
            "interpolated_inverted_cdf" => InterpolatedInvertedCdf,
            "hazen" => Hazen,
            "weibull" => Weibull,
            "linear" => Linear,
            "median_unbiased" => MedianUnbiased,
            "normal_unbiased" => NormalUnbiased,
            "lower" => Lower,
            "higher" => Higher,
            "midpoint" => Midpoint,
            "nearest" => Nearest,
            _ => {
                return Err(Error::invalid(format!(
                    "'{s}' is not a valid method. Use one of: dict_keys(['inverted_cdf', \
                     'averaged_inverted_cdf', 'closest_observation', \
                     'interpolated_inverted_cdf', 'hazen', 'weibull', 'linear', \
                     'median_unbiased', 'normal_unbiased', 'lower', 'higher', 'midpoint', \
                     'nearest'])"
                )))
            }
        })
    }
}

/// The two positions and the weight of quantile `q` of `n` sorted values (NumPy's
/// `_quantile`): the result is `lerp(x[lo], x[hi], gamma)`.
fn positions(method: QuantileMethod, n: usize, q: f64) -> (usize, usize, f64) {
    use QuantileMethod::*;
    let nf = n as f64;
    let last = n - 1;
    let clamp = |i: f64| (i.max(0.0) as usize).min(last);
    // Discrete methods: one position.
    let discrete = |index: f64, take_previous: &dyn Fn(f64, f64) -> bool| {
        let previous = index.floor();
        let gamma = index - previous;
        let pick = if take_previous(gamma, index) {
            previous
        } else {
            previous + 1.0
        };
        clamp(pick)
    };
    let single = |i: usize| (i, i, 0.0);
    match method {
        Lower => single(clamp(((nf - 1.0) * q).floor())),
        Higher => single(clamp(((nf - 1.0) * q).ceil())),
        Nearest => single(clamp(((nf - 1.0) * q).round_ties_even())),
        InvertedCdf => single(discrete(nf * q - 1.0, &|g, _| g == 0.0)),
        ClosestObservation => single(discrete(nf * q - 1.0 - 0.5, &|g, i| {
            g == 0.0 && i.floor().rem_euclid(2.0) == 1.0
        })),
        _ => {
            let virtual_index = match method {
                Linear => (nf - 1.0) * q,
                AveragedInvertedCdf => nf * q - 1.0,
                Midpoint => 0.5 * (((nf - 1.0) * q).floor() + ((nf - 1.0) * q).ceil()),
                m => {
                    let (alpha, beta) = match m {
                        InterpolatedInvertedCdf => (0.0, 1.0),
                        Hazen => (0.5, 0.5),
                        Weibull => (0.0, 0.0),
                        MedianUnbiased => (1.0 / 3.0, 1.0 / 3.0),
                        _ => (3.0 / 8.0, 3.0 / 8.0),
                    };
                    nf * q + (alpha + q * (1.0 - alpha - beta)) - 1.0
                }
            };
            let mut previous = virtual_index.floor();
            let (lo, hi) = if virtual_index >= nf - 1.0 {
                previous = -1.0;
                (last, last)
            } else if virtual_index < 0.0 {
                previous = 0.0;
                (0, 0)
            } else {
                (previous as usize, previous as usize + 1)
            };
            let gamma = virtual_index - previous;
            let gamma = match method {
                AveragedInvertedCdf => {
                    if gamma == 0.0 {
                        0.5
                    } else {
                        1.0
                    }
                }
                Midpoint => {
                    if virtual_index % 1.0 == 0.0 {
                        0.0
                    } else {
                        0.5
                    }
                }
                _ => gamma,
            };
            (lo, hi, gamma)
        }
    }
}

/// The float dtype order statistics of `d` are computed in.
fn result_dtype(a: &Array) -> DType {
    match a.dtype() {
        d @ (DType::F16 | DType::F32 | DType::F64 | DType::Complex64 | DType::Complex128) => d,
        DType::I64 | DType::U64 if a.device().supports(DType::F64) => DType::F64,
        _ => DType::F32,
    }
}

/// `a` with `axes` (None: all) moved last and merged into one: rows plus the result shape
/// (without the q axis) and keepdims shape.
fn reduced_rows(a: &Array, axes: Option<&[isize]>) -> Result<(Rows, Vec<usize>, Vec<usize>)> {
    let nd = a.ndim();
    let mut red: Vec<usize> = match axes {
        None => (0..nd).collect(),
        Some(ax) => ax
            .iter()
            .map(|&x| normalize_axis(x, nd))
            .collect::<Result<_>>()?,
    };
    red.sort_unstable();
    if red.windows(2).any(|w| w[0] == w[1]) {
        return Err(Error::invalid("repeated axis"));
    }
    let keep: Vec<usize> = (0..nd).filter(|k| !red.contains(k)).collect();
    let out_shape: Vec<usize> = keep.iter().map(|&k| a.shape()[k]).collect();
    let keep_shape: Vec<usize> = (0..nd)
        .map(|k| if red.contains(&k) { 1 } else { a.shape()[k] })
        .collect();
    let perm: Vec<isize> = keep.iter().chain(&red).map(|&k| k as isize).collect();
    let moved = a.transpose(Some(&perm))?.ascontiguousarray()?;
    let len: usize = red.iter().map(|&k| a.shape()[k]).product();
    let mut flat_shape: Vec<isize> = out_shape.iter().map(|&s| s as isize).collect();
    flat_shape.push(len as isize);
    let flat = moved.reshape(&flat_shape)?;
    Ok((Rows::along(&flat, Some(-1))?, out_shape, keep_shape))
}

/// Shapes the `(nrows, m)` result: q's shape first (none for a scalar q), then the kept
/// axes (keepdims: the reduced axes as 1).
fn finish(
    res: Array,
    q_shape: Option<&[usize]>,
    out_shape: &[usize],
    keep_shape: &[usize],
    keepdims: bool,
) -> Result<Array> {
    let tail = if keepdims { keep_shape } else { out_shape };
    let mut shape: Vec<isize> = q_shape.unwrap_or(&[]).iter().map(|&s| s as isize).collect();
    shape.extend(tail.iter().map(|&s| s as isize));
    res.transpose(None)?.reshape(&shape)
}

/// The quantiles `q` (values in [0, 1]; `q_shape` None: a scalar q) of `a` over `axes`.
fn quantile_impl(
    a: &Array,
    q: &[f64],
    q_shape: Option<&[usize]>,
    axes: Option<&[isize]>,
    method: QuantileMethod,
    keepdims: bool,
) -> Result<Array> {
    if a.dtype().is_complex() {
        return Err(Error::invalid("a must be an array of real numbers"));
    }
    if q.iter().any(|v| !(0.0..=1.0).contains(v)) {
        return Err(Error::invalid("Quantiles must be in the range [0, 1]"));
    }
    let device = a.device().clone();
    let rd = result_dtype(a);
    device.check(rd)?;
    let (rows, out_shape, keep_shape) = reduced_rows(a, axes)?;
    let m = q.len();
    let n = rows.rowlen;
    if n == 0 || rows.nrows == 0 || m == 0 {
        if rows.nrows * m == 0 {
            let z = crate::creation::full_on(&device, &[rows.nrows, m], 0i64, Some(rd))?;
            return finish(z, q_shape, &out_shape, &keep_shape, keepdims);
        }
        let nan = crate::creation::full_on(&device, &[rows.nrows, m], f64::NAN, Some(rd))?;
        return finish(nan, q_shape, &out_shape, &keep_shape, keepdims);
    }
    let plan: Vec<(usize, usize, f64)> = q.iter().map(|&qv| positions(method, n, qv)).collect();
    let nan_check = rd.is_float() && a.dtype().is_float();
    let mut wanted: Vec<usize> = plan.iter().flat_map(|&(l, h, _)| [l, h]).collect();
    if nan_check {
        wanted.push(n - 1);
    }
    let stats = OrderStats::of(&rows, rd, wanted)?;
    let lo: Vec<usize> = plan.iter().map(|p| p.0).collect();
    let hi: Vec<usize> = plan.iter().map(|p| p.1).collect();
    let gamma: Vec<f64> = plan.iter().map(|p| p.2).collect();
    let below = stats.take(&lo)?;
    let res = if lo == hi {
        below
    } else {
        lerp(&below, &stats.take(&hi)?, &gamma, &[m], rd)?
    };
    // Rows holding NaN (largest in the order) give NaN.
    let res = if nan_check {
        let last = stats.take(&[n - 1])?;
        crate::ufuncs::where_(crate::ufuncs::isnan(&last)?, f64::NAN, &res)?
    } else {
        res
    };
    finish(res, q_shape, &out_shape, &keep_shape, keepdims)
}

/// Order statistics of every row: the values of the wanted ranks by radix selection where
/// that applies (see `selection.rs`), else the sorted rows; in the result dtype.
struct OrderStats {
    /// `(nrows, cols)`.
    values: Array,
    nrows: usize,
    cols: usize,
    /// The rank of each column (None: column k holds rank k, the rows sorted).
    ranks: Option<Vec<usize>>,
}

impl OrderStats {
    fn of(rows: &Rows, rd: DType, mut wanted: Vec<usize>) -> Result<OrderStats> {
        wanted.sort_unstable();
        wanted.dedup();
        if let Some(values) = select_in(rows, rd, &Ranks::Shared(&wanted))? {
            return Ok(OrderStats {
                values,
                nrows: rows.nrows,
                cols: wanted.len(),
                ranks: Some(wanted),
            });
        }
        Ok(OrderStats {
            values: sorted_rows(rows, rd)?,
            nrows: rows.nrows,
            cols: rows.rowlen,
            ranks: None,
        })
    }

    /// The `(nrows, ranks.len())` values of `ranks` (each one of the wanted ranks).
    fn take(&self, ranks: &[usize]) -> Result<Array> {
        let cols: Vec<u32> = ranks
            .iter()
            .map(|&r| match &self.ranks {
                Some(have) => have.partition_point(|&h| h < r) as u32,
                None => r as u32,
            })
            .collect();
        let device = self.values.device();
        let m = cols.len();
        let ia = Array::from_slice_on(device, &cols, &[m])?;
        let (buf, _) = ia.buffer_and_layout()?;
        engine::take_rows(&self.values, self.cols, &buf, m, true, self.nrows, m, 0)
    }
}

/// The rows sorted, in dtype `rd`.
fn sorted_rows(rows: &Rows, rd: DType) -> Result<Array> {
    let data = rows.data.astype(rd)?;
    let sorted_rows = Rows::along(
        &data.reshape(&[rows.nrows as isize, rows.rowlen as isize])?,
        Some(-1),
    )?;
    let perm = sorted_rows.perm()?;
    sorted_rows.gather(&perm)
}

/// The order statistics `ranks` of every row by selection, as `(nrows, t)` in `rd`, or None
/// where the rows are better sorted.
fn select_in(rows: &Rows, rd: DType, ranks: &Ranks) -> Result<Option<Array>> {
    let Some(sd) = selection::selection_dtype(rows.data.dtype()) else {
        return Ok(None);
    };
    let data = if sd == rows.data.dtype() {
        rows.data.clone()
    } else {
        rows.data.astype(sd)?.ascontiguousarray()?
    };
    match selection::select_rows(&data, rows.nrows, rows.rowlen, ranks)? {
        Some(v) => Ok(Some(v.astype(rd)?)),
        None => Ok(None),
    }
}

/// NumPy's `_lerp` of `below` and `above` (`(rows, m)` arrays of `rd`) by the weights
/// `gamma` (of shape `gshape`: `[m]`, one per column, or `[rows, m]`): `a + (b - a) t`, or
/// `b - (b - a)(1 - t)` where t >= 0.5. As with NumPy's Python-float weights, t, 1 - t and
/// the choice are made in float64 on the host and rounded once to `rd`; each product is
/// materialised before its sum, so no multiply-add is fused and the result is NumPy's.
fn lerp(below: &Array, above: &Array, gamma: &[f64], gshape: &[usize], rd: DType) -> Result<Array> {
    let device = below.device();
    let weights = |v: Vec<f64>| -> Result<Array> {
        match rd {
            DType::F64 => Array::from_slice_on(device, &v, gshape),
            _ => Array::from_slice_on(
                device,
                &v.iter().map(|&x| x as f32).collect::<Vec<_>>(),
                gshape,
            )?
            .astype(rd),
        }
    };
    let g = weights(gamma.to_vec())?;
    let one_minus_g = weights(gamma.iter().map(|&t| 1.0 - t).collect())?;
    let take_down: Vec<bool> = gamma.iter().map(|&t| t >= 0.5).collect();
    let take_down = Array::from_slice_on(device, &take_down, gshape)?;
    use crate::ufuncs::{add, multiply, subtract, where_};
    let diff = subtract(above, below)?;
    let up_step = multiply(&diff, &g)?;
    up_step.eval()?;
    let down_step = multiply(&diff, &one_minus_g)?;
    down_step.eval()?;
    let up = add(below, &up_step)?;
    let down = subtract(above, &down_step)?;
    where_(&take_down, down, up)
}

/// `numpy.quantile(a, q, axis, method=, keepdims=)` for a scalar `q` in [0, 1]: the result
/// has the shape of `a` without `axes` (None: all axes). NaN in a reduced row gives NaN.
///
/// ```
/// use kupfer as kp;
/// let a = kp::Array::from_slice(&[1.0f32, 4.0, 2.0, 3.0], &[4])?;
/// let q = kp::quantile(&a, 0.5, None, "linear", false)?;
/// assert_eq!(q.to_vec::<f32>()?, vec![2.5]);
/// # Ok::<(), kp::Error>(())
/// ```
pub fn quantile(
    a: &Array,
    q: f64,
    axes: Option<&[isize]>,
    method: &str,
    keepdims: bool,
) -> Result<Array> {
    quantile_impl(a, &[q], None, axes, method.parse()?, keepdims)
}

/// [`quantile`] for a 1-D sequence of quantiles: the result's first axis runs over `q`.
pub fn quantiles(
    a: &Array,
    q: &[f64],
    axes: Option<&[isize]>,
    method: &str,
    keepdims: bool,
) -> Result<Array> {
    quantile_impl(a, q, Some(&[q.len()]), axes, method.parse()?, keepdims)
}

/// `numpy.percentile`: [`quantile`] with `q` in percent ([0, 100]).
pub fn percentile(
    a: &Array,
    q: f64,
    axes: Option<&[isize]>,
    method: &str,
    keepdims: bool,
) -> Result<Array> {
    percentiles_impl(a, &[q], None, axes, method, keepdims)
}

/// [`percentile`] for a 1-D sequence of percentiles.
pub fn percentiles(
    a: &Array,
    q: &[f64],
    axes: Option<&[isize]>,
    method: &str,
    keepdims: bool,
) -> Result<Array> {
    percentiles_impl(a, q, Some(&[q.len()]), axes, method, keepdims)
}

fn percentiles_impl(
    a: &Array,
    q: &[f64],
    q_shape: Option<&[usize]>,
    axes: Option<&[isize]>,
    method: &str,
    keepdims: bool,
) -> Result<Array> {
    if q.iter().any(|v| !(0.0..=100.0).contains(v)) {
        return Err(Error::invalid("Percentiles must be in the range [0, 100]"));
    }
    let q: Vec<f64> = q.iter().map(|v| v / 100.0).collect();
    quantile_impl(a, &q, q_shape, axes, method.parse()?, keepdims)
}

/// `numpy.median(a, axis, keepdims=)`: the middle value of each reduced row, or the mean of
/// the two middle values (`(a + b) / 2` in the result dtype). NaN in a row gives NaN.
///
/// ```
/// use kupfer as kp;
/// let a = kp::Array::from_slice(&[5i32, 1, 4, 2], &[2, 2])?;
/// assert_eq!(kp::median(&a, Some(&[1]), false)?.to_vec::<f32>()?, vec![3.0, 3.0]);
/// # Ok::<(), kp::Error>(())
/// ```
pub fn median(a: &Array, axes: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    if a.dtype().is_complex() {
        return Err(Error::invalid("a must be an array of real numbers"));
    }
    let device = a.device().clone();
    let rd = result_dtype(a);
    device.check(rd)?;
    let (rows, out_shape, keep_shape) = reduced_rows(a, axes)?;
    let n = rows.rowlen;
    if n == 0 || rows.nrows == 0 {
        let fill = if rows.nrows == 0 { 0.0 } else { f64::NAN };
        let z = crate::creation::full_on(&device, &[rows.nrows, 1], fill, Some(rd))?;
        return finish(z, None, &out_shape, &keep_shape, keepdims);
    }
    let nan_check = a.dtype().is_float();
    let mut wanted = vec![(n - 1) / 2, n / 2];
    if nan_check {
        wanted.push(n - 1);
    }
    let stats = OrderStats::of(&rows, rd, wanted)?;
    let mid = if n % 2 == 1 {
        stats.take(&[n / 2])?
    } else {
        crate::ufuncs::divide(
            crate::ufuncs::add(stats.take(&[n / 2 - 1])?, stats.take(&[n / 2])?)?,
            2.0,
        )?
    };
    let mid = if nan_check {
        let last = stats.take(&[n - 1])?;
        crate::ufuncs::where_(crate::ufuncs::isnan(&last)?, f64::NAN, &mid)?
    } else {
        mid
    };
    finish(mid, None, &out_shape, &keep_shape, keepdims)
}

/// The quantiles of each row ignoring NaN (`numpy.nanquantile`): rows sorted NaN-last, the
/// count of non-NaN values per row read back (the one sync point), positions per row from
/// that count, one gather per neighbour and the same interpolation. All-NaN rows give NaN.
async fn nan_quantile_impl(
    a: &Array,
    q: &[f64],
    q_shape: Option<&[usize]>,
    axes: Option<&[isize]>,
    method: QuantileMethod,
    keepdims: bool,
    median: bool,
) -> Result<Array> {
    if !a.dtype().is_float() {
        if median {
            return self::median(a, axes, keepdims);
        }
        return quantile_impl(a, q, q_shape, axes, method, keepdims);
    }
    if q.iter().any(|v| !(0.0..=1.0).contains(v)) {
        return Err(Error::invalid("Quantiles must be in the range [0, 1]"));
    }
    let device = a.device().clone();
    let rd = a.dtype();
    let (rows, out_shape, keep_shape) = reduced_rows(a, axes)?;
    let m = q.len();
    let n = rows.rowlen;
    let nrows = rows.nrows;
    if n == 0 || nrows == 0 || m == 0 {
        let fill = if nrows * m == 0 { 0.0 } else { f64::NAN };
        let z = crate::creation::full_on(&device, &[nrows, m], fill, Some(rd))?;
        return finish(z, q_shape, &out_shape, &keep_shape, keepdims);
    }
    let grid = rows.data.reshape(&[nrows as isize, n as isize])?;
    let valid = crate::ufuncs::logical_not(crate::ufuncs::isnan(&grid)?)?;
    let counts = crate::reduce::sum(&valid, crate::reduce::Axis::Many(vec![1]), false)?
        .astype(DType::U32)?
        .to_vec_async::<u32>()
        .await?;
    let mut lo = Vec::with_capacity(nrows * m);
    let mut hi = Vec::with_capacity(nrows * m);
    let mut gamma = Vec::with_capacity(nrows * m);
    let mut empty = Vec::with_capacity(nrows * m);
    // Per row: the m lower ranks, then the m upper ones (the selection's targets).
    let mut ranks = Vec::with_capacity(nrows * 2 * m);
    for &c in &counts {
        let row_start = lo.len();
        for &qv in q {
            let (l, h, g) = if c == 0 {
                (0, 0, 0.0)
            } else {
                positions(method, c as usize, qv)
            };
            lo.push(l as u32);
            hi.push(h as u32);
            gamma.push(g);
            empty.push(c == 0);
        }
        ranks.extend_from_slice(&lo[row_start..]);
        ranks.extend_from_slice(&hi[row_start..]);
    }
    let (below, above) = match select_in(&rows, rd, &Ranks::PerRow(&ranks, 2 * m))? {
        Some(v) => {
            let half = |start: usize| -> Result<Array> {
                v.slice(&[
                    kupfer_core::SliceArg::FULL,
                    kupfer_core::SliceArg::range(start as isize, (start + m) as isize),
                ])
            };
            (half(0)?, half(m)?)
        }
        None => {
            let sorted = sorted_rows(&rows, rd)?;
            let take = |idx: &[u32]| -> Result<Array> {
                let ia = Array::from_slice_on(&device, idx, &[nrows * m])?;
                let (buf, _) = ia.buffer_and_layout()?;
                engine::take_rows(&sorted, n, &buf, nrows * m, true, nrows, m, m)
            };
            (take(&lo)?, take(&hi)?)
        }
    };
    use crate::ufuncs::{add, where_};
    let res = if median {
        // The mean of the two middle values, as NumPy's nanmedian (the middle one for odd
        // counts, where gamma is 0).
        let same = Array::from_slice_on(
            &device,
            &gamma.iter().map(|&g| g == 0.0).collect::<Vec<_>>(),
            &[nrows, m],
        )?;
        let mean = crate::ufuncs::divide(add(&below, &above)?, 2.0)?;
        where_(&same, &below, mean)?
    } else if lo == hi {
        below
    } else {
        lerp(&below, &above, &gamma, &[nrows, m], rd)?
    };
    let empty = Array::from_slice_on(&device, &empty, &[nrows, m])?;
    let res = where_(&empty, f64::NAN, &res)?;
    finish(res, q_shape, &out_shape, &keep_shape, keepdims)
}

/// `numpy.nanquantile` for a scalar `q`: [`quantile`] ignoring NaN (all-NaN rows give NaN).
/// Reads the per-row counts back (the one sync point; see [`nanquantile_async`]).
#[cfg(not(target_arch = "wasm32"))]
pub fn nanquantile(
    a: &Array,
    q: &[f64],
    scalar_q: bool,
    axes: Option<&[isize]>,
    method: &str,
    keepdims: bool,
) -> Result<Array> {
    pollster::block_on(nanquantile_async(a, q, scalar_q, axes, method, keepdims))
}

/// [`nanquantile`], async. `q` values in [0, 1]; `scalar_q`: one q and no q axis.
pub async fn nanquantile_async(
    a: &Array,
    q: &[f64],
    scalar_q: bool,
    axes: Option<&[isize]>,
    method: &str,
    keepdims: bool,
) -> Result<Array> {
    let shape = [q.len()];
    let q_shape = (!scalar_q).then_some(&shape[..]);
    nan_quantile_impl(a, q, q_shape, axes, method.parse()?, keepdims, false).await
}

/// `numpy.nanpercentile`: [`nanquantile`] with `q` in percent.
#[cfg(not(target_arch = "wasm32"))]
pub fn nanpercentile(
    a: &Array,
    q: &[f64],
    scalar_q: bool,
    axes: Option<&[isize]>,
    method: &str,
    keepdims: bool,
) -> Result<Array> {
    if q.iter().any(|v| !(0.0..=100.0).contains(v)) {
        return Err(Error::invalid("Percentiles must be in the range [0, 100]"));
    }
    let q: Vec<f64> = q.iter().map(|v| v / 100.0).collect();
    nanquantile(a, &q, scalar_q, axes, method, keepdims)
}

/// `numpy.nanmedian`: the median ignoring NaN (all-NaN rows give NaN).
#[cfg(not(target_arch = "wasm32"))]
pub fn nanmedian(a: &Array, axes: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    if !a.dtype().is_float() {
        return median(a, axes, keepdims);
    }
    pollster::block_on(nanmedian_async(a, axes, keepdims))
}

/// [`nanmedian`], async.
pub async fn nanmedian_async(a: &Array, axes: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    if !a.dtype().is_float() {
        return median(a, axes, keepdims);
    }
    nan_quantile_impl(
        a,
        &[0.5],
        None,
        axes,
        QuantileMethod::Linear,
        keepdims,
        true,
    )
    .await
}
