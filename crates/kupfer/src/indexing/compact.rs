//! Stream compaction on the device: the values of the elements whose flag is set, in C
//! order, with ONE read-back (the count). The shared building block of mask selection,
//! `nonzero`, `compress`, `extract` (and of anything else whose result size depends on the
//! data).
//!
//! Passes (all queued in the device's one command batch, kernels from
//! `shaders/compact.wgsl`): a count pass (one workgroup per block of
//! [`COMPACT_BLOCK`] elements writes its number of set flags), an exclusive scan of the block
//! counts (kupfer's scan kernels, reduce-then-scan), and a write pass (each block ranks its
//! set elements with a workgroup scan and writes their values from its block's offset; the
//! last block writes the total). The flag and the value are fused elementwise expressions, so
//! `x[x > 0.5]` reads `x` in the count pass and again in the write pass and never writes the
//! mask. No workgroup waits on another (no forward-progress assumption).
//!
//! Sync point: [`Compaction::finish_async`] reads the 4-byte count back (this waits for the
//! three passes). The output buffer is allocated for every element up front, so nothing waits
//! between the passes; the result is a view of its first `count` values.

use crate::array::Array;
use crate::device::Device;
use crate::fusion::Lazy;
use crate::indexing::launch::{check_size, launch, prefix_binding, whole};
use kupfer_core::indexing::{IndexKernel, COMPACT_BLOCK};
use kupfer_core::layout::size_of;
use kupfer_core::{DType, Error, Layout, Result};
use kupfer_wgpu::GpuBuffer;
use std::sync::Arc;

/// A compaction whose kernels are queued; its size is not known on the host yet.
pub(crate) struct Compaction {
    device: Device,
    dtype: DType,
    out: Arc<GpuBuffer>,
    count: Option<Arc<GpuBuffer>>,
}

/// Queues the compaction of `value` (any dtype) where `flag` (bool) is set, both lazy
/// expressions over `shape` (broadcast to it). No sync.
pub(crate) fn compact(
    device: &Device,
    flag: &Lazy,
    value: &Lazy,
    shape: &[usize],
) -> Result<Compaction> {
    if flag.dtype() != DType::Bool {
        return Err(Error::invalid("compaction flags must be bool"));
    }
    let dtype = value.dtype();
    device.check(dtype)?;
    let n = size_of(shape);
    check_size(n, "compacting")?;
    let ctx = device.context();
    let out_bytes = (n.max(1) * dtype.gpu_size()) as u64;
    let out = Arc::new(ctx.alloc(out_bytes.div_ceil(16) * 16)?);
    if n == 0 {
        return Ok(Compaction {
            device: device.clone(),
            dtype,
            out,
            count: None,
        });
    }
    let nblocks = n.div_ceil(COMPACT_BLOCK as usize);
    let counts = Arc::new(ctx.alloc(((nblocks * 4) as u64).div_ceil(16) * 16)?);
    launch(
        device,
        IndexKernel::CompactCount,
        dtype,
        &[flag],
        shape,
        vec![prefix_binding(&counts, (nblocks * 4) as u64)],
        Some(nblocks),
        COMPACT_BLOCK,
        nblocks as u32,
    )?;
    let prefix = crate::scan::exclusive_sum_u32(device, counts, nblocks)?;
    let count = Arc::new(ctx.alloc(16)?);
    launch(
        device,
        IndexKernel::CompactWrite,
        dtype,
        &[flag, value],
        shape,
        vec![whole(&prefix), whole(&out), whole(&count)],
        Some(nblocks),
        COMPACT_BLOCK,
        nblocks as u32,
    )?;
    Ok(Compaction {
        device: device.clone(),
        dtype,
        out,
        count: Some(count),
    })
}

impl Compaction {
    /// Reads the count back (the sync point) and returns the compacted values as a 1-D
    /// array (a view of the front of the output buffer).
    pub(crate) async fn finish_async(self) -> Result<Array> {
        let count = match &self.count {
            None => 0,
            Some(c) => {
                self.device
                    .context()
                    .read_with_async(c, 0, 4, |b| {
                        u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize
                    })
                    .await?
            }
        };
        Ok(Array::from_buffer(
            self.device,
            self.dtype,
            self.out,
            Layout::contiguous(&[count]),
        ))
    }
}
