//! Writing a computed (C-contiguous) result into an existing array, for in-place outputs: a
//! buffer copy when the destination is contiguous and 4-byte aligned, else a scatter kernel
//! over the destination's strides.

use crate::array::Array;
use kupfer_core::{DType, Error, Result};
use kupfer_wgpu::{Binding, GpuBuffer};
use std::sync::Arc;

/// Largest rank the scatter kernel handles.
const MAX_RANK: usize = 8;

fn scatter_wgsl(d: DType) -> String {
    let t = d.wgsl_storage();
    let enable = if d == DType::F16 { "enable f16;\n" } else { "" };
    format!(
        "{enable}struct Params {{
    n: u32,
    offset: u32,
    rank: u32,
    pad: u32,
    dims: array<vec4<u32>, 2>,
    strides: array<vec4<i32>, 2>,
}}
@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> src: array<{t}>;
@group(0) @binding(2) var<storage, read_write> dst: array<{t}>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {{
    let i = gid.x + gid.y * nwg.x * 256u;
    if (i >= P.n) {{
        return;
    }}
    var r = i;
    var at = i32(P.offset);
    for (var j = i32(P.rank) - 1; j >= 0; j = j - 1) {{
        let d = P.dims[j / 4][j % 4];
        at = at + i32(r % d) * P.strides[j / 4][j % 4];
        r = r / d;
    }}
    dst[u32(at)] = src[i];
}}
"
    )
}

/// Writes `src` (C-contiguous, `out`'s shape and dtype) into `out`'s elements.
pub(crate) fn write_into(out: &Array, src: Arc<GpuBuffer>) -> Result<()> {
    let n = out.size();
    if n == 0 {
        return Ok(());
    }
    if let Some((packed, layout)) = out.packed_for_write()? {
        return write_packed(out, src, packed.buffer().clone(), &layout);
    }
    let (buffer, layout) = out.buffer_and_layout()?;
    let ctx = out.device().context();
    let isz = out.dtype().gpu_size() as u64;
    let (off, bytes) = (layout.offset as u64 * isz, n as u64 * isz);
    if layout.is_c_contiguous() && off.is_multiple_of(4) && bytes.is_multiple_of(4) {
        ctx.copy_buffer(&src, 0, &buffer, off, bytes);
        return Ok(());
    }
    if layout.shape.len() > MAX_RANK {
        return Err(Error::unsupported(format!(
            "in-place output of more than {MAX_RANK} dimensions with this layout"
        )));
    }
    if buffer.size() > ctx.max_binding_size() || n > u32::MAX as usize {
        return Err(Error::unsupported(
            "in-place output larger than the adapter's largest binding",
        ));
    }
    let pipeline = ctx.pipeline(&scatter_wgsl(out.dtype()))?;
    let mut p = vec![0u8; 16 + 32 + 32];
    let put = |p: &mut Vec<u8>, at: usize, v: u32| p[at..at + 4].copy_from_slice(&v.to_le_bytes());
    put(&mut p, 0, n as u32);
    put(&mut p, 4, layout.offset as u32);
    put(&mut p, 8, layout.shape.len() as u32);
    for (j, (&d, &s)) in layout.shape.iter().zip(&layout.strides).enumerate() {
        put(&mut p, 16 + 4 * j, d as u32);
        put(&mut p, 48 + 4 * j, s as i32 as u32);
    }
    let groups = (n as u64).div_ceil(256);
    let max = u64::from(ctx.max_workgroups_per_dim());
    let gx = groups.min(max);
    let gy = groups.div_ceil(gx);
    ctx.dispatch(
        &pipeline,
        &p,
        vec![
            Binding {
                buffer: src.clone(),
                offset: 0,
                size: (bytes.div_ceil(4) * 4).min(src.size()),
            },
            Binding {
                buffer: buffer.clone(),
                offset: 0,
                size: buffer.size(),
            },
        ],
        [gx as u32, gy as u32, 1],
    )
}

/// [`write_into`] a packed int8/uint8/int16/uint16 `out` (packed words `buffer`): one
/// packed scatter (`IndexKernel::ScatterPacked`: each element's bits replaced atomically, so
/// elements of a word written by different threads never clobber each other).
fn write_packed(
    out: &Array,
    src: Arc<GpuBuffer>,
    buffer: Arc<GpuBuffer>,
    layout: &kupfer_core::Layout,
) -> Result<()> {
    use crate::fusion::Lazy;
    use crate::indexing::launch::{launch_into, layout_offset, Dst};
    use kupfer_core::indexing::IndexKernel;
    crate::fusion::readers::before_write(&buffer, &[])?;
    let val = Lazy::leaf(
        src,
        kupfer_core::Layout::contiguous(out.shape()),
        out.dtype(),
    );
    let pred = Lazy::scalar(1u32.to_le_bytes().to_vec(), DType::Bool);
    launch_into(
        out.device(),
        IndexKernel::ScatterPacked { claimed: false },
        out.dtype(),
        &[&pred, &layout_offset(layout), &val],
        out.shape(),
        &Dst { buffer, same: None },
        vec![],
    )
}
