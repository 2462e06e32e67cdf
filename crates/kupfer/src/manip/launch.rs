//! Launchers of the two manipulation kernels of kupfer-core's `manip`: joining along an axis
//! and the per-axis gather. Both copy storage units, so they serve every dtype.

use crate::array::Array;
use crate::device::Device;
use crate::kernels;
use crate::scalar::Scalar;
use kupfer_core::layout::size_of;
use kupfer_core::manip::{AxisMap, GatherKernel, JoinKernel, Unit, MAX_GATHER_RANK, MAX_JOINED};
use kupfer_core::{DType, Error, Layout, Result};
use kupfer_wgpu::{Binding, GpuBuffer};
use std::sync::Arc;

/// One input of a join: its buffer and where its rows lie (element offset of row 0, element
/// step between rows; the `width` elements of a row are contiguous).
pub(crate) struct JoinPart {
    pub buffer: Arc<GpuBuffer>,
    pub offset: usize,
    pub row_stride: usize,
    pub width: usize,
}

/// Threads per workgroup of both kernels.
const WORKGROUP: usize = 256;

fn grid(device: &Device, threads: usize) -> Result<[u32; 3]> {
    let max_dim = device.context().max_workgroups_per_dim() as usize;
    let groups = threads.div_ceil(WORKGROUP).max(1);
    let gx = groups.min(max_dim);
    let gy = groups.div_ceil(gx);
    if gy > max_dim {
        return Err(Error::unsupported("dispatch grid too large"));
    }
    Ok([gx as u32, gy as u32, 1])
}

fn whole(buffer: &Arc<GpuBuffer>) -> Binding {
    Binding {
        buffer: buffer.clone(),
        offset: 0,
        size: buffer.size(),
    }
}

fn check_binding(device: &Device, bytes: u64, what: &str) -> Result<()> {
    let max = device.context().max_binding_size();
    if bytes > max {
        return Err(Error::unsupported(format!(
            "{what} of {bytes} bytes: more than this adapter's largest binding ({max} bytes)"
        )));
    }
    Ok(())
}

fn u32_of(v: usize, what: &str) -> Result<u32> {
    u32::try_from(v).map_err(|_| Error::unsupported(format!("{what} beyond 2^32 elements")))
}

/// Writes `parts` side by side into rows of `sum(width)` elements, `rows` rows: the output
/// of concatenate along an axis with `rows` = the product of the axes before it. One dispatch
/// per group of up to [`MAX_JOINED`] inputs, each writing its columns of every row.
pub(crate) fn join(
    device: &Device,
    dtype: DType,
    rows: usize,
    parts: &[JoinPart],
) -> Result<Array> {
    let width: usize = parts.iter().map(|p| p.width).sum();
    let n = rows * width;
    let unit = Unit::of(dtype);
    let bytes = (n * unit.bytes()) as u64;
    let ctx = device.context();
    let out = Arc::new(ctx.alloc(bytes.div_ceil(16).max(1) * 16)?);
    let shape = vec![rows, width];
    if n == 0 {
        return Ok(Array::from_buffer(
            device.clone(),
            dtype,
            out,
            Layout::contiguous(&shape),
        ));
    }
    check_binding(device, bytes, "a joined array")?;
    u32_of(n, "a joined array of")?;
    let parts: Vec<&JoinPart> = parts.iter().filter(|p| p.width > 0).collect();
    let limit = (device.info().limits.max_storage_buffers_per_shader_stage as usize)
        .saturating_sub(1)
        .clamp(1, MAX_JOINED);
    let single = parts.len() <= limit;
    let mut col0 = 0usize;
    for group in parts.chunks(limit) {
        let cols: usize = group.iter().map(|p| p.width).sum();
        let vector = single && unit == Unit::Word && n.is_multiple_of(4);
        let kernel = JoinKernel {
            unit,
            inputs: group.len(),
            vector,
        };
        let (pipeline, _) = kernels::compiled(device, &kernel, |_| Ok((kernel.wgsl(), ())))?;
        let count = if vector { n / 4 } else { rows * cols };
        let g = grid(device, count)?;
        let mut words = vec![
            count as u32,
            width as u32,
            col0 as u32,
            cols as u32,
            g[0],
            0,
            0,
            0,
        ];
        let mut bound = [0u32; 8];
        let mut off = [0u32; 8];
        let mut rstride = [0u32; 8];
        let mut at = col0;
        let mut bindings = Vec::with_capacity(group.len() + 1);
        for (j, p) in group.iter().enumerate() {
            bound[j] = at as u32;
            off[j] = u32_of(p.offset, "an element offset")?;
            rstride[j] = u32_of(p.row_stride, "a row stride")?;
            at += p.width;
            check_binding(device, p.buffer.size(), "an input")?;
            bindings.push(whole(&p.buffer));
        }
        bound[group.len()] = at as u32;
        words.extend(bound);
        words.extend(off);
        words.extend(rstride);
        bindings.push(Binding {
            buffer: out.clone(),
            offset: 0,
            size: out.size(),
        });
        let params: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        ctx.dispatch(&pipeline, &params, bindings, g)?;
        col0 = at;
    }
    Array::from_buffer(device.clone(), dtype, out, Layout::contiguous(&shape)).into_packed_result()
}

/// The storage bits of `value` as `dtype`, in 4-byte words (what a constant fill stores).
pub(crate) fn fill_bits(value: Scalar, dtype: DType) -> Result<[u32; 4]> {
    let bytes = match dtype {
        DType::F16 => u32::from(half::f16::from_f64(value.as_f64()).to_bits())
            .to_le_bytes()
            .to_vec(),
        d => value.encode(d)?,
    };
    let mut words = [0u32; 4];
    for (w, chunk) in words.iter_mut().zip(bytes.chunks(4)) {
        let mut b = [0u8; 4];
        b[..chunk.len()].copy_from_slice(chunk);
        *w = u32::from_le_bytes(b);
    }
    Ok(words)
}

/// `a` gathered into a new C-contiguous array of `out_shape`: axis `d` of the output maps to
/// axis `d` of `a` through `maps[d]` (see `shaders/gather_axes.wgsl`); `fills[d]` (values
/// before and after the source, already of `a`'s dtype) stand where a [`AxisMap::Shift`]
/// falls outside `a`; `table` holds the entries of [`AxisMap::Table`] maps. A small-integer
/// result is packed ([`gather_words`] leaves it one word per element).
pub(crate) fn gather(
    a: &Array,
    out_shape: &[usize],
    maps: &[AxisMap],
    fills: &[(Scalar, Scalar)],
    table: &[u32],
) -> Result<Array> {
    gather_words(a, out_shape, maps, fills, table)?.into_packed_result()
}

/// [`gather`] with the result in one word per element (a deferred gather's own buffer,
/// which fused kernels read as words).
pub(crate) fn gather_words(
    a: &Array,
    out_shape: &[usize],
    maps: &[AxisMap],
    fills: &[(Scalar, Scalar)],
    table: &[u32],
) -> Result<Array> {
    let device = a.device().clone();
    let dtype = a.dtype();
    let rank = out_shape.len();
    if rank != a.ndim() || maps.len() != rank {
        return Err(Error::invalid("gather: one map per axis of the source"));
    }
    if rank > MAX_GATHER_RANK {
        return Err(Error::unsupported(format!(
            "this operation on arrays of more than {MAX_GATHER_RANK} dimensions"
        )));
    }
    let unit = Unit::of(dtype);
    let n = size_of(out_shape);
    let bytes = (n * unit.bytes()) as u64;
    let ctx = device.context();
    let out = Arc::new(ctx.alloc(bytes.div_ceil(16).max(1) * 16)?);
    let result = Array::from_buffer(
        device.clone(),
        dtype,
        out.clone(),
        Layout::contiguous(out_shape),
    );
    if n == 0 {
        return Ok(result);
    }
    check_binding(&device, bytes, "the result")?;
    u32_of(n, "a result of")?;
    let (src, mut layout) = a.read_buffer_and_layout()?;
    check_binding(&device, src.size(), "the source")?;
    // A 0-d array is gathered as one element of a 1-d one (the kernel walks a last axis).
    let (out_shape, maps): (Vec<usize>, Vec<AxisMap>) = if rank == 0 {
        layout = Layout {
            shape: vec![1],
            strides: vec![1],
            offset: layout.offset,
        };
        (vec![1], vec![AxisMap::IDENTITY])
    } else {
        (out_shape.to_vec(), maps.to_vec())
    };
    let rank = out_shape.len();
    let vector = out_shape[rank - 1].is_multiple_of(4);
    let kernel = GatherKernel {
        unit,
        table: !table.is_empty(),
        vector,
    };
    let (pipeline, _) = kernels::compiled(&device, &kernel, |_| Ok((kernel.wgsl(), ())))?;
    let g = grid(&device, n / kernel.per_thread())?;
    let mut words: Vec<u32> = vec![
        n as u32,
        rank as u32,
        u32_of(layout.offset, "an element offset")?,
        g[0],
    ];
    for d in 0..MAX_GATHER_RANK {
        let (before, after) = fills
            .get(d)
            .copied()
            .unwrap_or((Scalar::Int(0), Scalar::Int(0)));
        words.extend(fill_bits(before, dtype)?);
        words.extend(fill_bits(after, dtype)?);
    }
    let mut fields = [[0u32; 8]; 6];
    for d in 0..rank {
        let (mode, arg, arg2) = maps[d].encode();
        fields[0][d] = out_shape[d] as u32;
        fields[1][d] = layout.shape[d] as u32;
        fields[2][d] = i32::try_from(layout.strides[d])
            .map_err(|_| Error::unsupported("a stride beyond 2^31 elements"))?
            as u32;
        fields[3][d] = mode;
        fields[4][d] = arg;
        fields[5][d] = arg2;
    }
    for f in fields {
        words.extend(f);
    }
    let params: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut bindings = vec![
        whole(&src),
        Binding {
            buffer: out.clone(),
            offset: 0,
            size: out.size(),
        },
    ];
    if !table.is_empty() {
        let t = Array::from_slice_on(&device, table, &[table.len()])?;
        let (tb, _) = t.buffer_and_layout()?;
        bindings.push(whole(&tb));
    }
    ctx.dispatch(&pipeline, &params, bindings, g)?;
    Ok(result)
}
