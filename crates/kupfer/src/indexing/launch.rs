//! Launching index kernels: several lazy expressions over one iteration shape become the
//! roots of one fused program (kupfer-core `indexing`), plus the raw buffers a kernel reads or
//! writes; and the u32 offset expressions (`Offsets`) those kernels index buffers with.

use crate::device::Device;
use crate::fusion::{Expr, Flattener, Lazy, MapSource, PRODUCT};
use crate::kernels::{self, param_bytes};
use kupfer_core::expr::Node;
use kupfer_core::indexing::{self, IndexKernel, IndexProgram, WORKGROUP_SIZE};
use kupfer_core::layout::size_of;
use kupfer_core::{BinaryOp, DType, Error, Layout, Result};
use kupfer_wgpu::{Binding, GpuBuffer};
use std::sync::Arc;

/// A u32 scalar expression.
pub(crate) fn u32_scalar(v: u32) -> Lazy {
    Lazy::scalar(v.to_le_bytes().to_vec(), DType::U32)
}

/// `a op b` over u32 (wrapping: negative strides travel as two's complement).
pub(crate) fn u32_op(op: BinaryOp, a: Lazy, b: Lazy) -> Lazy {
    Lazy::binary(op, a, b, DType::U32)
}

/// A whole-buffer binding.
pub(crate) fn whole(buffer: &Arc<GpuBuffer>) -> Binding {
    Binding {
        buffer: buffer.clone(),
        offset: 0,
        size: buffer.size(),
    }
}

/// A binding of the first `bytes` bytes (rounded up to 16) of `buffer`.
pub(crate) fn prefix_binding(buffer: &Arc<GpuBuffer>, bytes: u64) -> Binding {
    Binding {
        buffer: buffer.clone(),
        offset: 0,
        size: bytes.div_ceil(16).max(1) * 16,
    }
}

/// The C-order coordinate `j` of the linear index `g` over `shape`, as a u32 expression.
pub(crate) fn coordinate(shape: &[usize], j: usize) -> Lazy {
    let inner: usize = shape[j + 1..].iter().product();
    let mut c = Lazy::index();
    if inner != 1 {
        c = u32_op(BinaryOp::FloorDivide, c, u32_scalar(inner as u32));
    }
    if j > 0 {
        c = u32_op(BinaryOp::Remainder, c, u32_scalar(shape[j] as u32));
    }
    c
}

/// The element offset of linear index `g` of `layout`'s shape into its buffer (u32):
/// `offset + sum(coordinate_j * stride_j)`, or `offset + g` for C-contiguous layouts.
pub(crate) fn layout_offset(layout: &Layout) -> Lazy {
    let base = u32_scalar(layout.offset as u32);
    if layout.is_c_contiguous() {
        return u32_op(BinaryOp::Add, base, Lazy::index());
    }
    let mut acc = base;
    for (j, (&d, &s)) in layout.shape.iter().zip(&layout.strides).enumerate() {
        if d == 1 || s == 0 {
            continue;
        }
        let term = u32_op(
            BinaryOp::Multiply,
            coordinate(&layout.shape, j),
            u32_scalar(s as i32 as u32),
        );
        acc = u32_op(BinaryOp::Add, acc, term);
    }
    acc
}

/// Refuses iteration spaces a u32 index cannot walk.
pub(crate) fn check_size(n: usize, doing: &str) -> Result<()> {
    if n > u32::MAX as usize {
        return Err(Error::unsupported(format!(
            "{doing} more than 2^32 elements"
        )));
    }
    Ok(())
}

/// The buffer a scatter writes, and the layout (over the iteration shape) at which the map
/// may read it (the element being written: the fused in-place update).
pub(crate) struct Dst {
    pub buffer: Arc<GpuBuffer>,
    pub same: Option<Layout>,
}

/// Runs one index kernel of `kind` over `shape` with `roots` (see `IndexKernel` for their
/// order), `data` the dtype of the raw buffers in `extra` (bound after the map's inputs, in
/// the kernel's order), `workgroups` workgroups (one thread per element when `None`) and the
/// uniform extras `block`, `nblocks`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn launch(
    device: &Device,
    kind: IndexKernel,
    data: DType,
    roots: &[&Lazy],
    shape: &[usize],
    extra: Vec<Binding>,
    workgroups: Option<usize>,
    block: u32,
    nblocks: u32,
) -> Result<()> {
    let vector = matches!(
        kind,
        IndexKernel::CompactCount | IndexKernel::CompactWrite { .. }
    );
    run(
        device, kind, data, roots, shape, None, extra, workgroups, block, nblocks, vector, None,
        None,
    )
}

/// A row gather ([`IndexKernel::GatherRows`]): `roots` evaluated over the rows' shape
/// `rows`, `units` units copied per row, one thread per unit (or, for `kind` with `items >
/// 1` and one-unit rows, `items` rows per thread); `extra` = source, output and (with
/// checks) the bounds words.
pub(crate) fn launch_rows(
    device: &Device,
    kind: IndexKernel,
    roots: &[&Lazy],
    rows: &[usize],
    units: usize,
    extra: Vec<Binding>,
) -> Result<()> {
    let threads = size_of(rows)
        .checked_mul(units)
        .ok_or_else(|| Error::unsupported("indexing more than 2^64 elements"))?;
    let block =
        u32::try_from(units).map_err(|_| Error::unsupported("rows of more than 2^32 units"))?;
    let (items, workgroup) = match kind {
        IndexKernel::GatherRows {
            items, workgroup, ..
        } => (usize::from(items.max(1)), usize::from(workgroup)),
        _ => (1, WORKGROUP_SIZE as usize),
    };
    if items > 1 && units != 1 {
        return Err(Error::invalid("several rows per thread need one-unit rows"));
    }
    // Several rows per thread: `stride` threads, thread g copying rows g, g + stride, ...
    // (or g * items, g * items + 1, ...).
    let stride = threads.div_ceil(items);
    let (workgroups, nblocks) = if items > 1 {
        (Some(stride.div_ceil(workgroup)), stride as u32)
    } else {
        (Some(threads.div_ceil(workgroup)), 0)
    };
    run(
        device,
        kind,
        DType::U32,
        roots,
        rows,
        None,
        extra,
        workgroups,
        block,
        nblocks,
        false,
        Some(threads),
        None,
    )
}

/// A scatter-kind kernel writing `dst` (bound first among the raw buffers, then `extra`).
pub(crate) fn launch_into(
    device: &Device,
    kind: IndexKernel,
    data: DType,
    roots: &[&Lazy],
    shape: &[usize],
    dst: &Dst,
    extra: Vec<Binding>,
) -> Result<()> {
    run(
        device,
        kind,
        data,
        roots,
        shape,
        Some(dst),
        extra,
        None,
        0,
        0,
        false,
        None,
        None,
    )
}

/// The source of a fused gather: the deferred result `product` in the roots stands for
/// `buffer` (of `dtype`) read at the `off` root.
pub(crate) struct Gathered<'a> {
    pub product: &'a Arc<Expr>,
    pub buffer: Arc<GpuBuffer>,
    pub dtype: DType,
}

/// A gather with the expression around it ([`IndexKernel::GatherMap`]): `roots` are
/// `off`, `val` (reading `gathered.product`) and `checks` pairs of bounds words, over
/// `shape`; `extra` = the output (of `val`'s dtype) and (with checks) the bounds words.
pub(crate) fn launch_gather_map(
    device: &Device,
    roots: &[&Lazy],
    shape: &[usize],
    gathered: Gathered<'_>,
    checks: u8,
    extra: Vec<Binding>,
) -> Result<()> {
    let data = roots[1].dtype();
    run(
        device,
        IndexKernel::GatherMap { checks, source: 0 },
        data,
        roots,
        shape,
        None,
        extra,
        None,
        0,
        0,
        false,
        None,
        Some(gathered),
    )
}

#[allow(clippy::too_many_arguments)]
fn run(
    device: &Device,
    kind: IndexKernel,
    data: DType,
    roots: &[&Lazy],
    shape: &[usize],
    dst: Option<&Dst>,
    extra: Vec<Binding>,
    workgroups: Option<usize>,
    block: u32,
    nblocks: u32,
    vector: bool,
    threads: Option<usize>,
    gathered: Option<Gathered<'_>>,
) -> Result<()> {
    let n = threads.unwrap_or_else(|| size_of(shape));
    if n == 0 {
        return Ok(());
    }
    check_size(n, "indexing")?;
    let pshape: Vec<usize> = if shape.is_empty() {
        vec![1]
    } else {
        shape.to_vec()
    };
    let exprs: Vec<_> = roots.iter().map(|l| &l.root).collect();
    let (mut fl, ids) = match &gathered {
        Some(g) => Flattener::flatten_many_around(&exprs, Some(g.product))?,
        None => Flattener::flatten_many(&exprs)?,
    };
    let mut kind = kind;
    if let (Some(g), IndexKernel::GatherMap { checks, .. }) = (&gathered, kind) {
        // The gathered buffer is one more input, bound whole and read at `off` only.
        let source = fl.inputs.len();
        let layout = Layout {
            shape: pshape.clone(),
            strides: vec![0; pshape.len()],
            offset: 0,
        };
        fl.inputs.push((g.buffer.clone(), layout, g.dtype));
        for (node, _) in fl.nodes.iter_mut() {
            if matches!(node, Node::Load(PRODUCT)) {
                *node = Node::Load(source);
            }
        }
        let source = u8::try_from(source)
            .map_err(|_| Error::unsupported("a gather reading more than 255 arrays"))?;
        kind = IndexKernel::GatherMap { checks, source };
    }
    let mut inputs = fl
        .inputs
        .iter()
        .map(|(b, l, d)| Ok((b.clone(), l.broadcast_to(&pshape)?, *d)))
        .collect::<Result<Vec<_>>>()?;
    // The destination read in place (at the element written) is read through `dst`.
    let mut dst_input = None;
    if let Some(dst) = dst {
        for (k, (b, l, _)) in fl.inputs.iter().enumerate() {
            if Arc::ptr_eq(b, &dst.buffer) {
                if dst_input.is_some() || dst.same.as_ref() != Some(l) {
                    return Err(Error::invalid(
                        "an index kernel would read its destination at other elements",
                    ));
                }
                dst_input = Some(k);
            }
        }
    }
    let limit = device.info().limits.max_storage_buffers_per_shader_stage as usize;
    if inputs.len() + extra.len() + usize::from(dst.is_some()) + table_bindings(&fl.nodes)
        > limit + usize::from(dst_input.is_some())
    {
        return Err(Error::unsupported(format!(
            "an index expression reading {} arrays (this adapter binds at most {limit} storage \
             buffers per kernel)",
            inputs.len()
        )));
    }
    // Keep the input in the map (its layout is the element written), bind it nowhere.
    let _ = &mut inputs;
    let source = MapSource {
        inputs,
        nodes: &fl.nodes,
        output: ids[0],
        scalars: &fl.scalars,
        pshape: pshape.clone(),
        partials: false,
    };
    let (map, cshape, cstrides) = source.program();
    // vec4 loads: every input contiguous 4-byte (or broadcast), 4-aligned, and the last
    // vector inside its buffer.
    let vector = vector
        && kupfer_core::scan::vector_map(&map)
        && source
            .inputs
            .iter()
            .zip(&map.inputs)
            .all(|((b, l, d), spec)| {
                spec.access != kupfer_core::Access::Contiguous
                    || (l.offset.is_multiple_of(4)
                        && ((l.offset + n).div_ceil(4) * 4 * d.gpu_size()) as u64 <= b.size())
            });
    let ip = IndexProgram {
        map,
        roots: ids,
        kind,
        data,
        vector,
        dst_input,
    };
    let (pipeline, params) =
        kernels::compiled(device, &ip, |target| indexing::generate(&ip, target))?;
    let (all, offsets) = source.bindings(device, "indexing")?;
    let mut bindings: Vec<Binding> = all
        .into_iter()
        .enumerate()
        .filter(|(k, _)| Some(*k) != dst_input)
        .map(|(_, b)| b)
        .collect();
    if let Some(dst) = dst {
        bindings.push(whole(&dst.buffer));
    }
    bindings.extend(extra);
    let bytes = param_bytes(
        &params,
        n as u32,
        0,
        &[block, nblocks],
        &cshape,
        &cstrides[1..],
        &offsets,
        source.scalars,
    );
    let groups = workgroups.unwrap_or_else(|| n.div_ceil(WORKGROUP_SIZE as usize));
    let ctx = device.context();
    let [gx, gy] = grid(groups, ctx.max_workgroups_per_dim() as usize)?;
    ctx.dispatch(&pipeline, &bytes, bindings, [gx, gy, 1])
}

/// The storage bindings of shared ziggurat tables that the random draws among `nodes` add to
/// a kernel: one per float dtype drawn from a ziggurat (float32 and float64 tables are
/// separate buffers).
fn table_bindings(nodes: &[(Node, DType)]) -> usize {
    let dtypes: std::collections::BTreeSet<DType> = nodes
        .iter()
        .filter(|(n, d)| matches!(n, Node::Random(op, _) if op.table_bindings(*d) > 0))
        .map(|(_, d)| *d)
        .collect();
    dtypes.len()
}

/// `groups` workgroups as a 2-D grid of as few idle workgroups as possible: `gy` rows of
/// `gx` (65536 groups are 2 x 32768, not 2 x 65535 with half of them idle).
pub(crate) fn grid(groups: usize, max_dim: usize) -> Result<[u32; 2]> {
    let groups = groups.max(1);
    let gy = groups.div_ceil(max_dim);
    if gy > max_dim {
        return Err(Error::unsupported("index kernel grid too large"));
    }
    let gx = groups.div_ceil(gy);
    Ok([gx as u32, gy as u32])
}

#[cfg(test)]
mod tests {
    use super::grid;

    #[test]
    fn grids_leave_few_workgroups_idle() {
        assert_eq!(grid(4096, 65535).unwrap(), [4096, 1]);
        assert_eq!(grid(65536, 65535).unwrap(), [32768, 2]);
        for groups in [1usize, 65535, 65536, 262144, 1 << 22] {
            let [gx, gy] = grid(groups, 65535).unwrap();
            let launched = gx as usize * gy as usize;
            assert!(
                launched >= groups && launched - groups < gy as usize,
                "{groups}"
            );
            assert!(gx <= 65535 && gy <= 65535);
        }
        assert!(grid(65536 * 65536, 65535).is_err());
    }
}
