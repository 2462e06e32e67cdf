//! Multidimensional histograms: `numpy.histogramdd` and `numpy.histogram2d`.
//!
//! Each dimension's edges are NumPy's: `linspace(min, max, n + 1)` for a bin count (in the
//! sample's float dtype when the range comes from the data, float64 otherwise; an empty range
//! widened by 0.5), or the given increasing edges. One kernel
//! (`shaders/histogramdd_bins.wgsl`) finds every sample's bin in every dimension as NumPy
//! does (`searchsorted(edges, x, side='right') - 1`, the right-most edge inclusive, NaN and
//! values outside the edges dropped; uniform edges by arithmetic checked against the edges,
//! the others by binary search) and writes its flattened index. Counts then come from the
//! bincount kernel (32-bit atomics); weighted sums from a stable sort of the indices and
//! differences of the cumulative sorted weights (in float64 where the adapter has it, as
//! NumPy's `bincount` sums in float64). The histogram is float64 as NumPy's (float32 on
//! adapters without SHADER_F64).
//!
//! Sync points: the data range (for a bin count without `range`) and the edges' order (for
//! given edges) are read back before binning, so the functions have `_async` forms for the
//! browser.

use crate::array::Array;
use crate::reduce::{self, Axis};
use kupfer_core::histogram::{generate_bin_index, BIN_INDEX_DTYPES};
use kupfer_core::{DType, Error, Layout, Result, SliceArg};
use kupfer_wgpu::{Binding, ShaderChecks};

/// The bins of one dimension of [`histogramdd`] / [`histogram2d`].
#[derive(Debug, Clone)]
pub enum DimBins {
    /// This many equal-width bins over the dimension's range.
    Count(usize),
    /// Bin edges (1-D, increasing): bins `[e0, e1), ..., [e_{n-1}, e_n]`.
    Edges(Array),
}

/// `numpy.histogramdd(sample, bins, range, density, weights)`: `(hist, edges)`.
///
/// `sample` is `(N, D)` (a 1-D array is `N` samples of one dimension). `bins` has one entry
/// per dimension, or a single [`DimBins::Count`] for all (NumPy's integer `bins`). `range`,
/// if given, has one entry per dimension (`None`: the data's range). `weights` has shape
/// `(N,)`. `hist` has one axis per dimension, the number of bins long, and is float64 as
/// NumPy's (float32 without SHADER_F64); with `density` it is divided by the bin volumes and
/// the total count.
///
/// ```
/// use kupfer as kp;
/// use kp::sort::DimBins;
/// let s = kp::Array::from_slice(&[0.0f32, 0.0, 1.0, 1.0, 1.0, 0.5], &[3, 2])?;
/// let (h, edges) = kp::sort::histogramdd(&s, &[DimBins::Count(2)], None, false, None)?;
/// assert_eq!(h.astype(kp::DType::F32)?.to_vec::<f32>()?, vec![1.0, 0.0, 0.0, 2.0]);
/// assert_eq!(edges[1].to_vec::<f32>()?, vec![0.0, 0.5, 1.0]);
/// # Ok::<(), kp::Error>(())
/// ```
#[cfg(not(target_arch = "wasm32"))]
pub fn histogramdd(
    sample: &Array,
    bins: &[DimBins],
    range: Option<&[Option<(f64, f64)>]>,
    density: bool,
    weights: Option<&Array>,
) -> Result<(Array, Vec<Array>)> {
    pollster::block_on(histogramdd_async(sample, bins, range, density, weights))
}

/// `numpy.histogram2d(x, y, bins, range, density, weights)`: `(hist, xedges, yedges)`.
/// `bins` is one [`DimBins`] for both dimensions or one per dimension; `x` and `y` are 1-D
/// of the same length. See [`histogramdd`].
///
/// ```
/// use kupfer as kp;
/// use kp::sort::DimBins;
/// let x = kp::Array::from_slice(&[0.0f64, 1.0, 2.0], &[3])?;
/// let y = kp::Array::from_slice(&[0.0f64, 0.0, 3.0], &[3])?;
/// let (h, _, ye) = kp::sort::histogram2d(&x, &y, &[DimBins::Count(2)], None, false, None)?;
/// assert_eq!(h.to_vec::<f64>()?, vec![1.0, 0.0, 1.0, 1.0]);
/// assert_eq!(ye.to_vec::<f64>()?, vec![0.0, 1.5, 3.0]);
/// # Ok::<(), kp::Error>(())
/// ```
#[cfg(not(target_arch = "wasm32"))]
pub fn histogram2d(
    x: &Array,
    y: &Array,
    bins: &[DimBins],
    range: Option<&[Option<(f64, f64)>]>,
    density: bool,
    weights: Option<&Array>,
) -> Result<(Array, Array, Array)> {
    pollster::block_on(histogram2d_async(x, y, bins, range, density, weights))
}

/// [`histogram2d`], async (the browser's only form: it reads the data range back).
pub async fn histogram2d_async(
    x: &Array,
    y: &Array,
    bins: &[DimBins],
    range: Option<&[Option<(f64, f64)>]>,
    density: bool,
    weights: Option<&Array>,
) -> Result<(Array, Array, Array)> {
    if x.ndim() == 0 || y.ndim() == 0 {
        return Err(Error::invalid("len() of unsized object"));
    }
    if x.shape()[0] != y.shape()[0] {
        return Err(Error::invalid("x and y must have the same length."));
    }
    if x.ndim() != 1 || y.ndim() != 1 {
        return Err(Error::invalid("histogram2d needs 1-D x and y"));
    }
    let bins: Vec<DimBins> = match bins {
        [one] => vec![one.clone(), one.clone()],
        _ => bins.to_vec(),
    };
    let common = kupfer_core::promote::result_type(x.dtype(), y.dtype())?;
    let sample = crate::manip::stack(&[x.astype(common)?, y.astype(common)?], 1, None)?;
    let (hist, mut edges) = histogramdd_async(&sample, &bins, range, density, weights).await?;
    let ye = edges.pop().expect("two dimensions");
    let xe = edges.pop().expect("two dimensions");
    Ok((hist, xe, ye))
}

/// The float dtype of the histogram (NumPy's float64).
fn wide(device: &crate::Device) -> DType {
    if device.supports(DType::F64) {
        DType::F64
    } else {
        DType::F32
    }
}

/// `a[start..stop]` of a 1-D array.
fn part(a: &Array, start: Option<isize>, stop: Option<isize>) -> Result<Array> {
    a.slice(&[SliceArg::Slice {
        start,
        stop,
        step: None,
    }])
}

/// [`histogramdd`], async (the browser's only form: it reads the data range back).
pub async fn histogramdd_async(
    sample: &Array,
    bins: &[DimBins],
    range: Option<&[Option<(f64, f64)>]>,
    density: bool,
    weights: Option<&Array>,
) -> Result<(Array, Vec<Array>)> {
    let device = sample.device().clone();
    let sample = match sample.ndim() {
        0 => sample.reshape(&[1, 1])?,
        1 => sample.reshape(&[-1, 1])?,
        2 => sample.clone(),
        _ => {
            return Err(Error::invalid(format!(
                "too many values to unpack (expected 2): histogramdd needs an (N, D) sample, \
                 got shape {:?}",
                sample.shape()
            )))
        }
    };
    let (n, d) = (sample.shape()[0], sample.shape()[1]);
    let sd = sample.dtype();
    if sd.is_complex() {
        return Err(Error::unsupported(format!("histograms of {sd} arrays")));
    }
    if d == 0 {
        return Err(Error::invalid("histogramdd needs at least one dimension"));
    }
    let bins: Vec<DimBins> = match bins {
        [DimBins::Count(c)] => vec![DimBins::Count(*c); d],
        b if b.len() == d => b.to_vec(),
        _ => {
            return Err(Error::invalid(
                "The dimension of bins must be equal to the dimension of the sample x.",
            ))
        }
    };
    let ranges: Vec<Option<(f64, f64)>> = match range {
        None => vec![None; d],
        Some(r) if r.len() == d => r.to_vec(),
        Some(_) => {
            return Err(Error::invalid(
                "range argument must have one entry per dimension",
            ))
        }
    };
    if let Some(w) = weights {
        if w.ndim() != 1 {
            return Err(Error::invalid("object too deep for desired array"));
        }
        if w.size() != n {
            return Err(Error::invalid(
                "The weights and list don't have the same length.",
            ));
        }
        if w.dtype().is_complex() {
            return Err(Error::invalid(format!(
                "Cannot cast array data from dtype('{}') to dtype('float64') according to the \
                 rule 'safe'",
                w.dtype()
            )));
        }
    }
    let wide = wide(&device);
    // The data range of every dimension sized by a count without a range: one read-back.
    let need_range = (0..d).any(|i| matches!(bins[i], DimBins::Count(_)) && ranges[i].is_none());
    let (mins, maxs) = if need_range && n > 0 {
        let lo = reduce::min(&sample, Axis::from(0), false)?;
        let hi = reduce::max(&sample, Axis::from(0), false)?;
        let both = crate::manip::concatenate(&[lo, hi], None, Some(wide))?;
        let v: Vec<f64> = if wide == DType::F64 {
            both.to_vec_async::<f64>().await?
        } else {
            both.to_vec_async::<f32>()
                .await?
                .into_iter()
                .map(f64::from)
                .collect()
        };
        (v[..d].to_vec(), v[d..].to_vec())
    } else {
        (vec![0.0; d], vec![1.0; d])
    };
    let mut edges = Vec::with_capacity(d);
    let mut uniform = Vec::with_capacity(d);
    for (i, b) in bins.iter().enumerate() {
        match b {
            DimBins::Count(c) => {
                if *c == 0 {
                    return Err(Error::invalid(format!(
                        "`bins[{i}]` must be positive, when an integer"
                    )));
                }
                if *c >= i32::MAX as usize {
                    return Err(Error::unsupported(format!(
                        "`bins[{i}]` of {c} bins (at most 2^31 - 2)"
                    )));
                }
                edges.push(count_edges(
                    &device, sd, *c, ranges[i], mins[i], maxs[i], n,
                )?);
                uniform.push(true);
            }
            DimBins::Edges(e) => {
                if e.ndim() != 1 {
                    return Err(Error::invalid(format!(
                        "`bins[{i}]` must be a scalar or 1d array"
                    )));
                }
                if e.dtype().is_complex() {
                    return Err(Error::unsupported("histograms with complex bin edges"));
                }
                if e.size() == 0 {
                    return Err(Error::invalid(
                        "index -1 is out of bounds for axis 0 with size 0",
                    ));
                }
                e.device().same(&device)?;
                edges.push(e.clone());
                uniform.push(false);
            }
        }
    }
    // Given edges must increase: one read-back for all of them.
    let given: Vec<Array> = (0..d)
        .filter(|&i| !uniform[i] && edges[i].size() >= 2)
        .map(|i| {
            let e = &edges[i];
            let dec = crate::ufuncs::greater(&part(e, None, Some(-1))?, &part(e, Some(1), None)?)?;
            reduce::any(&dec, Axis::All, false)?.reshape(&[1])
        })
        .collect::<Result<_>>()?;
    if !given.is_empty() {
        let flags = crate::manip::concatenate(&given, None, Some(DType::U32))?
            .to_vec_async::<u32>()
            .await?;
        let mut k = 0;
        for i in 0..d {
            if !uniform[i] && edges[i].size() >= 2 {
                if flags[k] != 0 {
                    return Err(Error::invalid(format!(
                        "`bins[{i}]` must be monotonically increasing, when an array"
                    )));
                }
                k += 1;
            }
        }
    }
    let core: Vec<usize> = edges.iter().map(|e| e.size() - 1).collect();
    let total = core.iter().try_fold(1usize, |acc, &m| acc.checked_mul(m));
    let total = match total {
        Some(t) if t <= i32::MAX as usize => t,
        _ => {
            return Err(Error::unsupported(format!(
                "histogramdd with {core:?} bins (at most 2^31 - 1 in all)"
            )))
        }
    };
    let hist = if n == 0 || total == 0 {
        crate::creation::full_on(&device, &core, 0i64, Some(wide))?
    } else {
        let flat = bin_indices(&sample, &edges, &uniform, &core)?;
        let sums = match weights {
            None => crate::stats::count_values(&flat, total)?.astype(wide)?,
            Some(w) => weighted_sums(&flat, &w.astype(wide)?, total)?,
        };
        let shape: Vec<isize> = core.iter().map(|&m| m as isize).collect();
        sums.reshape(&shape)?
    };
    let hist = if density {
        let s = reduce::sum(&hist, Axis::All, false)?;
        let mut h = hist;
        for (i, e) in edges.iter().enumerate() {
            let widths =
                crate::ufuncs::subtract(&part(e, Some(1), None)?, &part(e, None, Some(-1))?)?;
            let mut shape = vec![1isize; d];
            shape[i] = -1;
            h = crate::ufuncs::divide(&h, &widths.reshape(&shape)?)?;
        }
        crate::ufuncs::divide(&h, &s)?.astype(wide)?
    } else {
        hist
    };
    Ok((hist, edges))
}

/// NumPy's `linspace(smin, smax, count + 1)` edges of one dimension (`_get_outer_edges`).
fn count_edges(
    device: &crate::Device,
    sd: DType,
    count: usize,
    range: Option<(f64, f64)>,
    lo: f64,
    hi: f64,
    n: usize,
) -> Result<Array> {
    let wide = wide(device);
    // The dtype of linspace's result (and of the `± 0.5` widening).
    let (mut first, mut last, dtype) = match range {
        Some((a, b)) => {
            if a > b {
                return Err(Error::invalid(
                    "max must be larger than min in range parameter.",
                ));
            }
            if !(a.is_finite() && b.is_finite()) {
                return Err(Error::invalid(format!(
                    "supplied range of [{a}, {b}] is not finite"
                )));
            }
            (a, b, wide)
        }
        None if n == 0 => (0.0, 1.0, wide),
        None => {
            if !(lo.is_finite() && hi.is_finite()) {
                return Err(Error::invalid(format!(
                    "autodetected range of [{lo}, {hi}] is not finite"
                )));
            }
            (lo, hi, if sd.is_float() { sd } else { wide })
        }
    };
    if first == last {
        first = crate::stats::round_to(dtype, first - 0.5);
        last = crate::stats::round_to(dtype, last + 0.5);
    }
    let host = crate::stats::linspace_in(dtype, first, last, count + 1);
    let len = [count + 1];
    match dtype {
        DType::F16 => Array::from_slice_on(
            device,
            &host
                .iter()
                .map(|&v| half::f16::from_f64(v))
                .collect::<Vec<_>>(),
            &len,
        ),
        DType::F32 => Array::from_slice_on(
            device,
            &host.iter().map(|&v| v as f32).collect::<Vec<_>>(),
            &len,
        ),
        _ => Array::from_slice_on(device, &host, &len),
    }
}

/// The dtype samples and edges are compared in: a common dtype in which the comparisons
/// equal NumPy's (float64 where NumPy's promotion is a float and the operands differ).
fn comparison_dtype(device: &crate::Device, sample: DType, edges: &[Array]) -> Result<DType> {
    let mut common = sample;
    let mut mixed = false;
    for e in edges {
        mixed |= e.dtype() != sample;
        common = kupfer_core::promote::result_type(common, e.dtype())?;
    }
    let common = match common {
        DType::Bool | DType::I8 | DType::I16 | DType::U8 | DType::U16 => DType::I32,
        d if d.is_float() && mixed && device.supports(DType::F64) => DType::F64,
        d => d,
    };
    if !BIN_INDEX_DTYPES.contains(&common) {
        return Err(Error::unsupported(format!(
            "histogramdd comparing values of dtype {common}"
        )));
    }
    Ok(common)
}

/// One launch: each sample's flattened bin index (u32; `u32::MAX` outside the edges).
fn bin_indices(sample: &Array, edges: &[Array], uniform: &[bool], core: &[usize]) -> Result<Array> {
    let device = sample.device().clone();
    let (n, d) = (sample.shape()[0], sample.shape()[1]);
    let cmp = comparison_dtype(&device, sample.dtype(), edges)?;
    let xs = sample.astype(cmp)?.ascontiguousarray()?;
    let cat: Vec<Array> = edges.iter().map(|e| e.astype(cmp)).collect::<Result<_>>()?;
    let all_edges = crate::manip::concatenate(&cat, None, None)?.ascontiguousarray()?;
    let mut table = Vec::with_capacity(4 * d);
    let mut first = 0usize;
    let mut stride = 1usize;
    let mut strides = vec![0usize; d];
    for k in (0..d).rev() {
        strides[k] = stride;
        stride *= core[k];
    }
    for k in 0..d {
        let m = edges[k].size();
        table.extend_from_slice(&[
            first as u32,
            m as u32,
            strides[k] as u32,
            u32::from(uniform[k]),
        ]);
        first += m;
    }
    let table = Array::from_slice_on(&device, &table, &[4 * d])?;
    let ctx = device.context();
    let max_binding = ctx.max_binding_size();
    let bind = |a: &Array| -> Result<Binding> {
        // A contiguous array starting at element 0 of its buffer (copied otherwise).
        let (mut buffer, layout) = a.read_buffer_and_layout()?;
        if layout.offset != 0 {
            buffer = a.copy()?.read_buffer_and_layout()?.0;
        }
        let size = (a.size() as u64 * a.dtype().gpu_size() as u64)
            .div_ceil(4)
            .max(1)
            * 4;
        if size > max_binding {
            return Err(Error::unsupported(format!(
                "histogramdd over {size} bytes, more than this adapter's largest binding \
                 ({max_binding} bytes)"
            )));
        }
        Ok(Binding {
            buffer,
            offset: 0,
            size,
        })
    };
    let out = crate::sort::engine::alloc_words(&device, n)?;
    let pipeline = ctx.pipeline_with(
        &generate_bin_index(cmp, &ctx.target())?,
        "main",
        ShaderChecks::Trusted,
    )?;
    let groups = n.div_ceil(256);
    let gx = groups.min(ctx.max_workgroups_per_dim() as usize);
    let gy = groups.div_ceil(gx);
    let params: Vec<u8> = [n as u32, d as u32, gx as u32, 0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    ctx.dispatch_with(
        &pipeline,
        Some(&params),
        vec![
            (1, bind(&xs)?),
            (2, bind(&all_edges)?),
            (3, bind(&table)?),
            (
                4,
                Binding {
                    buffer: out.clone(),
                    offset: 0,
                    size: (n as u64) * 4,
                },
            ),
        ],
        [gx as u32, gy as u32, 1],
    )?;
    Ok(Array::from_buffer(
        device,
        DType::U32,
        out,
        Layout::contiguous(&[n]),
    ))
}

/// Per-bin sums of `w` over the flat indices `flat` (bins `0..total`; larger indices
/// dropped): the weights in a stable order of their bins, their running sum, and its
/// differences at each bin's start (the running count of the bins before it).
fn weighted_sums(flat: &Array, w: &Array, total: usize) -> Result<Array> {
    let device = flat.device().clone();
    let order = super::order::argsort(flat, Some(-1), Some("stable"))?;
    let ws = super::histogram::gather(w, &order)?;
    let zero = |d: DType| crate::creation::full_on(&device, &[1], 0i64, Some(d));
    let cum = crate::manip::concatenate(
        &[zero(w.dtype())?, crate::scan::cumsum(&ws, Some(0), None)?],
        None,
        None,
    )?;
    let counts = crate::stats::count_values(flat, total)?;
    let starts = crate::manip::concatenate(
        &[
            zero(DType::U32)?,
            crate::scan::cumsum(&counts, Some(0), Some(DType::U32))?,
        ],
        None,
        None,
    )?;
    let sums = super::histogram::gather(&cum, &starts)?;
    crate::ufuncs::subtract(&part(&sums, Some(1), None)?, &part(&sums, None, Some(-1))?)
}
