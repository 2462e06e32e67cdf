//! Reductions over any axes, fused with their (lazy) elementwise input: `sum(x * x)` reads `x`
//! once and never writes `x * x`.
//!
//! The input expression is viewed with the kept axes first and the reduced axes last, so that
//! value `k` of output `o` sits at linear index `o * R + k`; the kernel (`shaders/reduce.wgsl`)
//! either gives each output a workgroup (contiguous reduced axes) or each output a thread
//! (contiguous kept axes), split over several workgroups with a second pass when one output
//! has many values.

use crate::array::Array;
use crate::fusion::{Flattener, MapSource};
use crate::kernels::{self, param_bytes, CompiledKernel};
use kupfer_core::custom::UserReduce;
use kupfer_core::layout::normalize_axis;
use kupfer_core::reduce::{self, Combine, ReduceProgram, Strategy};
use kupfer_core::{DType, Error, Layout, Result};
use kupfer_wgpu::{Binding, GpuBuffer};
use std::sync::Arc;

/// Which axes a reduction runs over.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Axis {
    /// All axes (`axis=None`).
    #[default]
    All,
    /// These axes (negative counts from the end).
    Many(Vec<isize>),
}

impl From<isize> for Axis {
    fn from(a: isize) -> Self {
        Axis::Many(vec![a])
    }
}

impl From<i32> for Axis {
    fn from(a: i32) -> Self {
        Axis::Many(vec![a as isize])
    }
}

impl From<Option<isize>> for Axis {
    fn from(a: Option<isize>) -> Self {
        a.map_or(Axis::All, |a| Axis::Many(vec![a]))
    }
}

impl From<&[isize]> for Axis {
    fn from(a: &[isize]) -> Self {
        Axis::Many(a.to_vec())
    }
}

impl From<Vec<isize>> for Axis {
    fn from(a: Vec<isize>) -> Self {
        Axis::Many(a)
    }
}

/// Normalised, sorted reduced axes (NumPy's rules: out-of-range and repeated axes are errors).
pub(crate) fn reduced_axes(axis: &Axis, ndim: usize) -> Result<Vec<usize>> {
    match axis {
        Axis::All => Ok((0..ndim).collect()),
        Axis::Many(v) => {
            let mut out = Vec::with_capacity(v.len());
            for &a in v {
                let a = normalize_axis(a, ndim)?;
                if out.contains(&a) {
                    return Err(Error::invalid(format!("duplicate value in 'axis': {a}")));
                }
                out.push(a);
            }
            out.sort_unstable();
            Ok(out)
        }
    }
}

pub(crate) fn out_shape(shape: &[usize], axes: &[usize], keepdims: bool) -> Vec<usize> {
    shape
        .iter()
        .enumerate()
        .filter_map(|(i, &n)| match (axes.contains(&i), keepdims) {
            (false, _) => Some(n),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect()
}

/// Values per workgroup (inner) or per thread (outer) before a reduction is split.
const INNER_SLICE: usize = 4096;
const OUTER_SLICE: usize = 64;

/// What a reduction computes: how values combine, the accumulator component dtype, the result
/// dtype, and `ddof` for moments.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Spec {
    pub combine: Combine,
    pub acc: DType,
    pub out: DType,
    pub ddof: u32,
    pub name: &'static str,
}

/// Reduces `a` over `axis` as `spec` says.
pub(crate) fn reduce_raw(a: &Array, axis: &Axis, keepdims: bool, spec: Spec) -> Result<Array> {
    reduce_with(a, axis, keepdims, spec, None)
}

/// Reduces `a` over `axis` as `spec` says, or, with `custom`, as a user's reduction says
/// (then `a` is the map, already of the accumulator dtype).
pub(crate) fn reduce_with(
    a: &Array,
    axis: &Axis,
    keepdims: bool,
    spec: Spec,
    custom: Option<&Arc<UserReduce>>,
) -> Result<Array> {
    // Small integers accumulate in 32 bits; the final cast to the result wraps (NumPy's
    // `np.sum(x, dtype=np.int8)` is modular).
    let spec = Spec {
        acc: spec.acc.compute(),
        ..spec
    };
    let device = a.device().clone();
    device.check(spec.acc)?;
    device.check(spec.out)?;
    if custom.is_none() {
        reduce::check_input(spec.combine, a.dtype())?;
    }
    let shape = a.shape().to_vec();
    let axes = reduced_axes(axis, shape.len())?;
    let kept: Vec<usize> = (0..shape.len()).filter(|i| !axes.contains(i)).collect();
    let m: usize = kept.iter().map(|&i| shape[i]).product();
    let r: usize = axes.iter().map(|&i| shape[i]).product();
    let result_shape = out_shape(&shape, &axes, keepdims);
    if r == 0 {
        return match spec.combine {
            Combine::Sum | Combine::Prod => {
                let v = if spec.combine == Combine::Sum {
                    0i64
                } else {
                    1
                };
                crate::creation::full_on(&device, &result_shape, v, Some(spec.out))
            }
            Combine::Moments | Combine::NanMoments => {
                crate::creation::full_on(&device, &result_shape, f64::NAN, Some(spec.out))
            }
            // any/all: logical_or's identity is False, logical_and's True.
            Combine::Max | Combine::Min
                if spec.out == DType::Bool && spec.name.starts_with("logical") =>
            {
                let v = i64::from(spec.combine == Combine::Min);
                crate::creation::full_on(&device, &result_shape, v, Some(spec.out))
            }
            _ => Err(Error::invalid(format!(
                "zero-size array to reduction operation {} which has no identity",
                spec.name
            ))),
        };
    }
    if m == 0 {
        return crate::creation::full_on(&device, &result_shape, 0i64, Some(spec.out));
    }
    if m > u32::MAX as usize || r > u32::MAX as usize || m * r > u32::MAX as usize {
        return Err(Error::unsupported(
            "reductions over more than 2^32 elements",
        ));
    }
    let perm: Vec<isize> = kept.iter().chain(&axes).map(|&i| i as isize).collect();
    let mut lazy = a.lazy()?;
    // A draw's values follow the index: it fuses only when the kernel walks it in C order.
    if lazy.random && perm.iter().enumerate().any(|(j, &p)| p != j as isize) {
        a.eval()?;
        lazy = a.lazy()?;
    }
    let (fl, output) = Flattener::flatten(&lazy.root)?;
    let pshape: Vec<usize> = perm.iter().map(|&i| shape[i as usize]).collect();
    let inputs = fl
        .inputs
        .iter()
        .map(|(b, l, d)| Ok((b.clone(), l.broadcast_to(&shape)?.permute(&perm)?, *d)))
        .collect::<Result<Vec<_>>>()?;
    // Strategy from the biggest input: contiguous reduced axes → inner; else outer.
    let main = inputs
        .iter()
        .max_by_key(|(b, _, _)| b.size())
        .map(|(_, l, _)| l);
    let stride_of = |l: &Layout, ax: usize| l.strides[ax].unsigned_abs();
    let strategy = match main {
        Some(l) if !axes.is_empty() && stride_of(l, pshape.len() - 1) == 1 => Strategy::Inner,
        Some(l) if !kept.is_empty() && m >= 32 && stride_of(l, kept.len() - 1) == 1 => {
            Strategy::Outer
        }
        _ => Strategy::Inner,
    };
    let splits = match strategy {
        Strategy::Inner => r.div_ceil(INNER_SLICE).min((8192 / m).max(1)),
        Strategy::Outer => r.div_ceil(OUTER_SLICE).min((1 << 18) / m).clamp(1, 65535),
    };
    let pass = MapSource {
        inputs,
        nodes: &fl.nodes,
        output,
        scalars: &fl.scalars,
        pshape,
        partials: false,
    };
    let (buffer, splits, rp) = run_pass(a, &pass, spec, strategy, m, r, splits, custom)?;
    let result = if splits > 1 {
        // Partials: [m, splits] (inner) or [splits, m] (outer); reduce over the splits.
        let layout = match strategy {
            Strategy::Inner => Layout::contiguous(&[m, splits]),
            Strategy::Outer => Layout::contiguous(&[splits, m]).transpose(),
        };
        let strategy2 = if strategy == Strategy::Outer && m >= 32 {
            Strategy::Outer
        } else {
            Strategy::Inner
        };
        let nodes = [(kupfer_core::Node::Load(0), spec.acc)];
        let pass2 = MapSource {
            inputs: vec![(buffer, layout, spec.acc)],
            nodes: &nodes,
            output: 0,
            scalars: &[],
            pshape: vec![m, splits],
            partials: true,
        };
        let _ = rp;
        run_pass(a, &pass2, spec, strategy2, m, splits, 1, custom)?.0
    } else {
        buffer
    };
    let dims: Vec<isize> = result_shape.iter().map(|&d| d as isize).collect();
    Array::from_buffer(device, spec.out, result, Layout::contiguous(&[m]))
        .into_packed_result()?
        .reshape(&dims)
}

/// Launches one reduction kernel; returns its output buffer, the number of splits it used
/// (its output holds partial accumulators when > 1) and its program.
#[allow(clippy::too_many_arguments)]
fn run_pass(
    a: &Array,
    pass: &MapSource,
    spec: Spec,
    strategy: Strategy,
    m: usize,
    r: usize,
    splits: usize,
    custom: Option<&Arc<UserReduce>>,
) -> Result<(Arc<GpuBuffer>, usize, ReduceProgram)> {
    let device = a.device();
    let chunk = r.div_ceil(splits.max(1));
    let splits = r.div_ceil(chunk);
    let (map, cshape, cstrides) = pass.program();
    let rp = ReduceProgram {
        map,
        partials: pass.partials,
        combine: spec.combine,
        acc: spec.acc,
        out: spec.out,
        finalize: splits == 1,
        strategy,
        custom: custom.cloned(),
    };
    let (pipeline, params) = kernel(a, &rp)?;
    let ctx = device.context();
    let (mut bindings, offsets) = pass.bindings(device, "reducing")?;
    let n_out = m * splits;
    let out_bytes = (n_out * rp.out_size()) as u64;
    // A reduction to one value is what loops read back (`float(x.sum())`, `mask.any()`): it
    // goes where a read-back maps it without a copy, where the device allows.
    let out_buf = Arc::new(if rp.finalize && m == 1 {
        ctx.alloc_for_host(out_bytes)?
    } else {
        ctx.alloc(out_bytes)?
    });
    bindings.push(Binding {
        buffer: out_buf.clone(),
        offset: 0,
        size: out_bytes.div_ceil(4) * 4,
    });
    let bytes = param_bytes(
        &params,
        (m * r) as u32,
        0,
        &[m as u32, r as u32, splits as u32, chunk as u32, spec.ddof],
        &cshape,
        &cstrides[1..],
        &offsets,
        pass.scalars,
    );
    let max_dim = ctx.max_workgroups_per_dim() as usize;
    let groups = match strategy {
        Strategy::Inner => {
            let total = m * splits;
            let gx = total.min(max_dim);
            [gx, total.div_ceil(gx)]
        }
        Strategy::Outer => [m.div_ceil(256), splits],
    };
    if groups[0] > max_dim || groups[1] > max_dim {
        return Err(Error::unsupported("reduction grid too large"));
    }
    ctx.dispatch(
        &pipeline,
        &bytes,
        bindings,
        [groups[0] as u32, groups[1] as u32, 1],
    )?;
    Ok((out_buf, splits, rp))
}

fn kernel(a: &Array, rp: &ReduceProgram) -> Result<CompiledKernel> {
    let device = a.device();
    kernels::compiled(device, rp, |target| reduce::generate(rp, target))
}

fn spec(combine: Combine, acc: DType, out: DType, name: &'static str) -> Spec {
    Spec {
        combine,
        acc,
        out,
        ddof: 0,
        name,
    }
}

/// Sum of elements over `axis` (`a.sum(axis, keepdims=...)`). bool and int32 sum to int32
/// (no implicit widening), float16 accumulates in float32.
///
/// ```no_run
/// let x = kupfer::arange(0, 12, 1, Some(kupfer::DType::F32))?.reshape(&[3, 4])?;
/// let cols = kupfer::sum(&x, 0, false)?; // [12, 15, 18, 21]
/// let all = kupfer::sum(&(&x * &x), kupfer::Axis::All, false)?; // fused: x*x is never written
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn sum(a: &Array, axis: impl Into<Axis>, keepdims: bool) -> Result<Array> {
    let d = a.dtype();
    let s = spec(
        Combine::Sum,
        reduce::sum_acc(d),
        reduce::sum_result(d),
        "add",
    );
    reduce_raw(a, &axis.into(), keepdims, s)
}

/// Product of elements over `axis`.
pub fn prod(a: &Array, axis: impl Into<Axis>, keepdims: bool) -> Result<Array> {
    let d = a.dtype();
    let s = spec(
        Combine::Prod,
        reduce::sum_acc(d),
        reduce::sum_result(d),
        "multiply",
    );
    reduce_raw(a, &axis.into(), keepdims, s)
}

/// Maximum over `axis` (NaN propagates; an empty reduction is an error, as in NumPy).
pub fn max(a: &Array, axis: impl Into<Axis>, keepdims: bool) -> Result<Array> {
    let (acc, d) = minmax_types(a.dtype());
    reduce_raw(
        a,
        &axis.into(),
        keepdims,
        spec(Combine::Max, acc, d, "maximum"),
    )
}

/// Minimum over `axis` (NaN propagates; an empty reduction is an error, as in NumPy).
pub fn min(a: &Array, axis: impl Into<Axis>, keepdims: bool) -> Result<Array> {
    let (acc, d) = minmax_types(a.dtype());
    reduce_raw(
        a,
        &axis.into(),
        keepdims,
        spec(Combine::Min, acc, d, "minimum"),
    )
}

/// Alias of [`max`].
pub fn amax(a: &Array, axis: impl Into<Axis>, keepdims: bool) -> Result<Array> {
    max(a, axis, keepdims)
}

/// Alias of [`min`].
pub fn amin(a: &Array, axis: impl Into<Axis>, keepdims: bool) -> Result<Array> {
    min(a, axis, keepdims)
}

fn minmax_types(d: DType) -> (DType, DType) {
    match d {
        DType::Bool => (DType::U32, DType::Bool),
        d => (d, d),
    }
}

/// Index of the first maximum (NaN counts as the maximum, as in NumPy). `axis` is one axis or
/// all (then the index is into the flattened array). The result is NumPy's default integer.
pub fn argmax(a: &Array, axis: Option<isize>, keepdims: bool) -> Result<Array> {
    arg(a, axis, keepdims, Combine::ArgMax, "argmax")
}

/// Index of the first minimum (NaN counts as the minimum, as in NumPy).
pub fn argmin(a: &Array, axis: Option<isize>, keepdims: bool) -> Result<Array> {
    arg(a, axis, keepdims, Combine::ArgMin, "argmin")
}

fn arg(
    a: &Array,
    axis: Option<isize>,
    keepdims: bool,
    combine: Combine,
    name: &'static str,
) -> Result<Array> {
    if a.dtype().is_complex() {
        return complex_arg(a, axis, keepdims, combine);
    }
    let out = a.device().default_int();
    let acc = if a.dtype().is_64bit() {
        a.dtype()
    } else {
        DType::U32
    };
    let s = spec(combine, acc, out, name);
    match axis {
        Some(ax) => reduce_raw(a, &Axis::Many(vec![ax]), keepdims, s),
        None => {
            // The flat index: reduce the C-order flattening (a copy only for non-contiguous views).
            let flat = reduce_raw(&a.reshape(&[-1])?, &Axis::All, false, s)?;
            if keepdims {
                flat.reshape(&vec![1; a.ndim()])
            } else {
                Ok(flat)
            }
        }
    }
}

/// argmax/argmin of a complex array in NumPy's lexicographic order: the first element equal
/// to the max (min), or the first NaN (either part) when there is one, as NumPy's loops stop
/// at the first NaN. Two reductions: the extreme, then the first match.
fn complex_arg(a: &Array, axis: Option<isize>, keepdims: bool, combine: Combine) -> Result<Array> {
    use crate::ufuncs as uf;
    let flat;
    let (src, ax) = match axis {
        Some(ax) => (a, Axis::Many(vec![ax])),
        None => {
            flat = a.reshape(&[-1])?;
            (&flat, Axis::Many(vec![0]))
        }
    };
    let d = src.dtype();
    let extreme = if combine == Combine::ArgMax {
        spec(Combine::Max, d, d, "argmax")
    } else {
        spec(Combine::Min, d, d, "argmin")
    };
    let m = reduce_raw(src, &ax, true, extreme)?;
    let is_nan = |z: &Array| uf::logical_or(uf::isnan(uf::real(z)?)?, uf::isnan(uf::imag(z)?)?);
    let hit = uf::logical_or(
        uf::equal(src, &m)?,
        uf::logical_and(is_nan(src)?, is_nan(&m)?)?,
    )?;
    let axis_index = match ax {
        Axis::Many(v) => v[0],
        _ => 0,
    };
    let r = argmax(&hit, Some(axis_index), keepdims && axis.is_some())?;
    if keepdims && axis.is_none() {
        r.reshape(&vec![1; a.ndim()])
    } else {
        Ok(r)
    }
}

/// Variance over `axis` with `ddof` delta degrees of freedom, in one pass (Welford/Chan
/// moments, accurate when the mean is large relative to the spread). As in NumPy, `ddof` >= the
/// number of values gives inf (NaN where all values are equal), and an empty reduction NaN.
pub fn var(a: &Array, axis: impl Into<Axis>, ddof: u32, keepdims: bool) -> Result<Array> {
    let axis = axis.into();
    let d = a.dtype();
    if d.is_complex() {
        // NumPy's mean of |z - mean z|^2: the variances of the real and imaginary parts add.
        let re = var(&crate::ufuncs::real(a)?, axis.clone(), ddof, keepdims)?;
        let im = var(&crate::ufuncs::imag(a)?, axis, ddof, keepdims)?;
        return crate::ufuncs::add(&re, &im);
    }
    let (acc, result) = float_types(d);
    let mut s = spec(Combine::Moments, acc, acc, "var");
    s.ddof = ddof;
    reduce_raw(a, &axis, keepdims, s)?.astype(result)
}

/// Standard deviation over `axis` with `ddof` (the square root of [`var`]).
pub fn std(a: &Array, axis: impl Into<Axis>, ddof: u32, keepdims: bool) -> Result<Array> {
    let v = var(a, axis, ddof, keepdims)?;
    crate::ufuncs::sqrt(&v)
}

fn float_types(d: DType) -> (DType, DType) {
    match d {
        DType::Complex64 | DType::Complex128 => (d, d),
        DType::F64 | DType::I64 | DType::U64 => (DType::F64, DType::F64),
        DType::F16 => (DType::F32, DType::F16),
        _ => (DType::F32, DType::F32),
    }
}

/// True where any element over `axis` is true.
pub fn any(a: &Array, axis: impl Into<Axis>, keepdims: bool) -> Result<Array> {
    let b = a.astype(DType::Bool)?;
    reduce_raw(
        &b,
        &axis.into(),
        keepdims,
        spec(Combine::Max, DType::U32, DType::Bool, "logical_or"),
    )
}

/// True where every element over `axis` is true.
pub fn all(a: &Array, axis: impl Into<Axis>, keepdims: bool) -> Result<Array> {
    let b = a.astype(DType::Bool)?;
    reduce_raw(
        &b,
        &axis.into(),
        keepdims,
        spec(Combine::Min, DType::U32, DType::Bool, "logical_and"),
    )
}

/// Arithmetic mean over `axis`: float inputs keep their dtype (float16 accumulates in
/// float32), integers give float32 (float64 for int64).
pub fn mean(a: &Array, axis: impl Into<Axis>, keepdims: bool) -> Result<Array> {
    let axis = axis.into();
    let (acc, result) = float_types(a.dtype());
    let axes = reduced_axes(&axis, a.ndim())?;
    let count: usize = axes.iter().map(|&i| a.shape()[i]).product();
    let s = reduce_raw(a, &axis, keepdims, spec(Combine::Sum, acc, acc, "add"))?;
    crate::ufuncs::divide(&s, count as f64)?.astype(result)
}

/// The number of non-zero (true) values over `axis`, as NumPy's default integer.
pub fn count_nonzero(a: &Array, axis: impl Into<Axis>, keepdims: bool) -> Result<Array> {
    let b = a.astype(DType::Bool)?;
    let out = a.device().default_int();
    reduce_raw(
        &b,
        &axis.into(),
        keepdims,
        spec(Combine::Sum, out, out, "add"),
    )
}

/// Peak to peak: `max - min` over `axis`.
pub fn ptp(a: &Array, axis: impl Into<Axis>, keepdims: bool) -> Result<Array> {
    if a.dtype() == DType::Bool {
        return Err(Error::unsupported(
            "numpy boolean subtract is not supported: ptp of a bool array",
        ));
    }
    let axis = axis.into();
    crate::ufuncs::subtract(&max(a, axis.clone(), keepdims)?, &min(a, axis, keepdims)?)
}

/// Weighted average over `axis`; without weights, the mean. As NumPy 2, `weights` has the
/// shape of `a`, or (with `axis` given) the shape of the reduced axes in the order `axis`
/// names them (a 1-D array along a single axis, a 2-D one for two axes, ...).
pub fn average(
    a: &Array,
    axis: impl Into<Axis>,
    weights: Option<&Array>,
    keepdims: bool,
) -> Result<Array> {
    let axis = axis.into();
    let Some(w) = weights else {
        return mean(a, axis, keepdims);
    };
    let w = if w.shape() == a.shape() {
        w.clone()
    } else {
        weights_along_axes(a.shape(), w, &axis)?
    };
    let (acc, result) = float_types(kupfer_core::promote::result_type(a.dtype(), w.dtype())?);
    let num = reduce_raw(
        &crate::ufuncs::multiply(a, &w)?,
        &axis,
        keepdims,
        spec(Combine::Sum, acc, acc, "add"),
    )?;
    let wb = w.broadcast_to(a.shape())?;
    let den = reduce_raw(&wb, &axis, keepdims, spec(Combine::Sum, acc, acc, "add"))?;
    crate::ufuncs::divide(&num, &den)?.astype(result)
}

/// `weights` of the reduced axes' shape (in `axis`'s order) as an array broadcasting against
/// `a` (NumPy's `average`: transpose by argsort(axis), then 1 for every kept axis).
fn weights_along_axes(shape: &[usize], w: &Array, axis: &Axis) -> Result<Array> {
    let Axis::Many(given) = axis else {
        return Err(Error::invalid(
            "Axis must be specified when shapes of a and weights differ.",
        ));
    };
    let mut axes = Vec::with_capacity(given.len());
    for &ax in given {
        let ax = normalize_axis(ax, shape.len())?;
        if axes.contains(&ax) {
            return Err(Error::invalid(format!("duplicate value in 'axis': {ax}")));
        }
        axes.push(ax);
    }
    let expected: Vec<usize> = axes.iter().map(|&ax| shape[ax]).collect();
    if w.shape() != expected {
        return Err(Error::invalid(
            "Shape of weights must be consistent with shape of a along specified axis.",
        ));
    }
    let mut order: Vec<isize> = (0..axes.len() as isize).collect();
    order.sort_by_key(|&i| axes[i as usize]);
    let target: Vec<isize> = shape
        .iter()
        .enumerate()
        .map(|(i, &n)| if axes.contains(&i) { n as isize } else { 1 })
        .collect();
    w.transpose(Some(&order))?.reshape(&target)
}

impl Array {
    /// [`sum`] as a method.
    pub fn sum(&self, axis: impl Into<Axis>, keepdims: bool) -> Result<Array> {
        sum(self, axis, keepdims)
    }

    /// [`mean`] as a method.
    pub fn mean(&self, axis: impl Into<Axis>, keepdims: bool) -> Result<Array> {
        mean(self, axis, keepdims)
    }

    /// [`std`] as a method (`kupfer::reduce::std`; not re-exported at the crate root, where it
    /// would shadow the `std` crate in glob imports).
    pub fn std(&self, axis: impl Into<Axis>, ddof: u32, keepdims: bool) -> Result<Array> {
        std(self, axis, ddof, keepdims)
    }
}
