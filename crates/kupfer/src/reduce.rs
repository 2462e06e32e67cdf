//! Reductions over any axes, fused with their (lazy) elementwise input: `sum(x * x)` reads `x`
//! once and never writes `x * x`.
//!
//! The input expression is viewed with the kept axes first and the reduced axes last, so that
//! value `k` of output `o` sits at linear index `o * R + k`; the kernel (`shaders/reduce.wgsl`)
//! either gives each output a workgroup (contiguous reduced axes) or each output a thread
//! (contiguous kept axes), split over several workgroups with a second pass when one output
//! has many values.

use crate::array::Array;
use crate::fusion::{param_bytes, CompiledKernel, Flattener};
use kupfer_core::layout::{collapse_axes, contiguous_strides, normalize_axis, size_of};
use kupfer_core::reduce::{self, Combine, ReduceProgram, Strategy};
use kupfer_core::{Access, DType, Error, InputSpec, Kind, Layout, Program, Result};
use kupfer_wgpu::Binding;
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
fn reduced_axes(axis: &Axis, ndim: usize) -> Result<Vec<usize>> {
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

fn out_shape(shape: &[usize], axes: &[usize], keepdims: bool) -> Vec<usize> {
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

/// Reduces `a` over `axis` with `combine`, accumulating in `acc` and returning `out`.
pub(crate) fn reduce_raw(
    a: &Array,
    axis: &Axis,
    keepdims: bool,
    combine: Combine,
    acc: DType,
    out: DType,
    name: &str,
) -> Result<Array> {
    let device = a.device().clone();
    device.check(acc)?;
    device.check(out)?;
    let shape = a.shape().to_vec();
    let axes = reduced_axes(axis, shape.len())?;
    let kept: Vec<usize> = (0..shape.len()).filter(|i| !axes.contains(i)).collect();
    let m: usize = kept.iter().map(|&i| shape[i]).product();
    let r: usize = axes.iter().map(|&i| shape[i]).product();
    let result_shape = out_shape(&shape, &axes, keepdims);
    if r == 0 {
        return match combine {
            Combine::Sum | Combine::Prod => {
                let v = if combine == Combine::Sum { 0i64 } else { 1 };
                crate::creation::full_on(&device, &result_shape, v, Some(out))
            }
            _ => Err(Error::invalid(format!(
                "zero-size array to reduction operation {name} which has no identity"
            ))),
        };
    }
    if m == 0 {
        return crate::creation::full_on(&device, &result_shape, 0i64, Some(out));
    }
    if m > u32::MAX as usize || r > u32::MAX as usize || m * r > u32::MAX as usize {
        return Err(Error::unsupported(
            "reductions over more than 2^32 elements",
        ));
    }

    // The map: the input expression over the permuted shape (kept axes, then reduced axes).
    let lazy = a.lazy();
    let (fl, output) = Flattener::flatten(&lazy.root);
    let perm: Vec<isize> = kept.iter().chain(&axes).map(|&i| i as isize).collect();
    let pshape: Vec<usize> = perm.iter().map(|&i| shape[i as usize]).collect();
    let layouts: Vec<Layout> = fl
        .inputs
        .iter()
        .map(|(_, l, _)| l.broadcast_to(&shape).and_then(|l| l.permute(&perm)))
        .collect::<Result<_>>()?;
    // Strategy from the biggest input: contiguous reduced axes → inner; else outer.
    let main = layouts
        .iter()
        .zip(&fl.inputs)
        .max_by_key(|(_, (b, _, _))| b.size())
        .map(|(l, _)| l);
    let stride_of = |l: &Layout, ax: usize| l.strides[ax].unsigned_abs();
    let strategy = match main {
        Some(l) if !axes.is_empty() && stride_of(l, pshape.len() - 1) == 1 => Strategy::Inner,
        Some(l) if !kept.is_empty() && m >= 32 && stride_of(l, kept.len() - 1) == 1 => {
            Strategy::Outer
        }
        _ => Strategy::Inner,
    };
    let mut all = vec![contiguous_strides(&pshape)];
    all.extend(layouts.iter().map(|l| l.strides.clone()));
    let (cshape, cstrides) = collapse_axes(&pshape, &all);
    let access: Vec<Access> = cstrides[1..]
        .iter()
        .map(|s| {
            if *s == cstrides[0] {
                Access::Contiguous
            } else if s.iter().all(|&x| x == 0) {
                Access::Broadcast
            } else {
                Access::Strided
            }
        })
        .collect();
    let rank = if access.contains(&Access::Strided) {
        cshape.len()
    } else {
        0
    };
    let map = Program {
        nodes: fl.nodes.clone(),
        inputs: fl
            .inputs
            .iter()
            .zip(&access)
            .map(|((_, _, d), &access)| InputSpec { dtype: *d, access })
            .collect(),
        scalars: fl.scalars.iter().map(|(d, _)| *d).collect(),
        output,
        rank,
        vector: false,
    };

    let splits = match strategy {
        Strategy::Inner => r.div_ceil(INNER_SLICE).min((8192 / m).max(1)),
        Strategy::Outer => r.div_ceil(OUTER_SLICE).min((1 << 17) / m).clamp(1, 65535),
    };
    let chunk = r.div_ceil(splits);
    let splits = r.div_ceil(chunk);
    let pass_out = if splits > 1 { acc } else { out };
    let rp = ReduceProgram {
        map,
        combine,
        acc,
        out: pass_out,
        strategy,
    };
    let (pipeline, params) = kernel(a, &rp)?;

    let ctx = device.context();
    let max_binding = ctx.max_binding_size();
    let mut bindings = Vec::with_capacity(fl.inputs.len() + 1);
    let mut offsets = Vec::with_capacity(fl.inputs.len());
    for ((buffer, _, _), l) in fl.inputs.iter().zip(&layouts) {
        if buffer.size() > max_binding {
            return Err(Error::unsupported(format!(
                "reducing an array of {} bytes, more than this adapter's largest binding ({max_binding} bytes)",
                buffer.size()
            )));
        }
        bindings.push(Binding {
            buffer: buffer.clone(),
            offset: 0,
            size: buffer.size(),
        });
        offsets.push(l.offset as u32);
    }
    let n_out = m * splits;
    let out_buf = Arc::new(ctx.alloc((n_out * pass_out.gpu_size()) as u64)?);
    bindings.push(Binding {
        buffer: out_buf.clone(),
        offset: 0,
        size: ((n_out * pass_out.gpu_size()) as u64).div_ceil(4) * 4,
    });
    let bytes = param_bytes(
        &params,
        (m * r) as u32,
        0,
        &[m as u32, r as u32, splits as u32, chunk as u32],
        &cshape,
        &cstrides[1..],
        &offsets,
        &fl.scalars,
    );
    let max_dim = ctx.max_workgroups_per_dim() as usize;
    let groups = match strategy {
        Strategy::Inner => {
            let total = m * splits;
            let gx = total.min(max_dim);
            [gx, total.div_ceil(gx), 1]
        }
        Strategy::Outer => [m.div_ceil(256), splits, 1],
    };
    if groups[0] > max_dim || groups[1] > max_dim {
        return Err(Error::unsupported("reduction grid too large"));
    }
    ctx.dispatch(
        &pipeline,
        &bytes,
        bindings,
        [groups[0] as u32, groups[1] as u32, groups[2] as u32],
    )?;

    let result = if splits > 1 {
        // Partials: [m, splits] (inner) or [splits, m] (outer); reduce over the splits.
        let partial = match strategy {
            Strategy::Inner => Array::from_buffer(
                device.clone(),
                acc,
                out_buf,
                Layout::contiguous(&[m, splits]),
            ),
            Strategy::Outer => Array::from_buffer(
                device.clone(),
                acc,
                out_buf,
                Layout::contiguous(&[splits, m]).transpose(),
            ),
        };
        reduce_raw(
            &partial,
            &Axis::Many(vec![1]),
            false,
            combine,
            acc,
            out,
            name,
        )?
    } else {
        Array::from_buffer(device.clone(), out, out_buf, Layout::contiguous(&[m]))
    };
    let dims: Vec<isize> = result_shape.iter().map(|&d| d as isize).collect();
    if size_of(&result_shape) != m {
        return Err(Error::invalid("internal: reduction output size mismatch"));
    }
    result.reshape(&dims)
}

fn kernel(a: &Array, rp: &ReduceProgram) -> Result<CompiledKernel> {
    let device = a.device();
    let cache = &device.kernels.reductions;
    if let Some(k) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(rp) {
        return Ok(k.clone());
    }
    let (wgsl, params) = reduce::generate(rp, &device.context().target())?;
    let pipeline = device.context().pipeline(&wgsl)?;
    let entry = (pipeline, Arc::new(params));
    cache
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(rp.clone(), entry.clone());
    Ok(entry)
}

fn check_numeric(a: &Array, name: &str) -> Result<()> {
    if a.dtype().is_complex() {
        return Err(Error::unsupported(format!("{name} of complex arrays")));
    }
    Ok(())
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
    check_numeric(a, "sum")?;
    let d = a.dtype();
    reduce_raw(
        a,
        &axis.into(),
        keepdims,
        Combine::Sum,
        reduce::sum_acc(d),
        reduce::sum_result(d),
        "sum",
    )
}

/// Product of elements over `axis`.
pub fn prod(a: &Array, axis: impl Into<Axis>, keepdims: bool) -> Result<Array> {
    check_numeric(a, "prod")?;
    let d = a.dtype();
    reduce_raw(
        a,
        &axis.into(),
        keepdims,
        Combine::Prod,
        reduce::sum_acc(d),
        reduce::sum_result(d),
        "prod",
    )
}

/// Maximum over `axis` (NaN propagates; an empty reduction is an error, as in NumPy).
pub fn max(a: &Array, axis: impl Into<Axis>, keepdims: bool) -> Result<Array> {
    check_numeric(a, "max")?;
    let (acc, d) = minmax_types(a.dtype());
    reduce_raw(a, &axis.into(), keepdims, Combine::Max, acc, d, "maximum")
}

/// Minimum over `axis` (NaN propagates; an empty reduction is an error, as in NumPy).
pub fn min(a: &Array, axis: impl Into<Axis>, keepdims: bool) -> Result<Array> {
    check_numeric(a, "min")?;
    let (acc, d) = minmax_types(a.dtype());
    reduce_raw(a, &axis.into(), keepdims, Combine::Min, acc, d, "minimum")
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

/// True where any element over `axis` is true.
pub fn any(a: &Array, axis: impl Into<Axis>, keepdims: bool) -> Result<Array> {
    let b = a.astype(DType::Bool)?;
    reduce_raw(
        &b,
        &axis.into(),
        keepdims,
        Combine::Max,
        DType::U32,
        DType::Bool,
        "logical_or",
    )
}

/// True where every element over `axis` is true.
pub fn all(a: &Array, axis: impl Into<Axis>, keepdims: bool) -> Result<Array> {
    let b = a.astype(DType::Bool)?;
    reduce_raw(
        &b,
        &axis.into(),
        keepdims,
        Combine::Min,
        DType::U32,
        DType::Bool,
        "logical_and",
    )
}

/// Arithmetic mean over `axis`: float inputs keep their dtype (float16 accumulates in
/// float32), integers give float32 (float64 for int64).
pub fn mean(a: &Array, axis: impl Into<Axis>, keepdims: bool) -> Result<Array> {
    check_numeric(a, "mean")?;
    let axis = axis.into();
    let d = a.dtype();
    let (acc, result) = match d.kind() {
        Kind::Float => (reduce::sum_acc(d), d),
        _ if d == DType::I64 => (DType::F64, DType::F64),
        _ => (DType::F32, DType::F32),
    };
    let axes = reduced_axes(&axis, a.ndim())?;
    let count: usize = axes.iter().map(|&i| a.shape()[i]).product();
    let s = reduce_raw(a, &axis, keepdims, Combine::Sum, acc, acc, "add")?;
    crate::ufuncs::divide(&s, count as f64)?.astype(result)
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
}
