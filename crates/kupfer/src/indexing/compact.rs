//! Stream compaction on the device: the values of the elements whose flag is set, in C
//! order, with ONE read-back (the count). The shared building block of mask selection,
//! `nonzero`, `compress`, `extract` (and of anything else whose result size depends on the
//! data).
//!
//! Passes (all queued in the device's one command batch, kernels from
//! `shaders/compact.wgsl`): a count pass (one workgroup per block of 1024 to
//! [`COMPACT_BLOCK`] elements, sized for about 512 workgroups, writes its number of set
//! flags), an exclusive scan of the block counts (kupfer's scan kernels, reduce-then-scan;
//! skipped up to 2048 blocks, where each write workgroup sums the counts before it itself),
//! and a write pass (each block ranks its set elements with a workgroup scan and writes
//! their values from its block's offset; the last block writes the total). Up to 8192
//! elements are one block and the write pass is the only launch. `KUPFER_COMPACT=old` keeps
//! 8192-element blocks, the count pass and the scan. The flag and the value are fused elementwise expressions, so
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
    let direct = device.config().indexing.direct_compaction;
    let block = block_size(n, direct);
    let nblocks = n.div_ceil(block as usize);
    let counts = Arc::new(ctx.alloc(((nblocks * 4) as u64).div_ceil(16) * 16)?);
    // One block (direct): no block before it, no count pass (the write pass alone).
    if !(direct && nblocks == 1) {
        launch(
            device,
            IndexKernel::CompactCount,
            dtype,
            &[flag],
            shape,
            vec![prefix_binding(&counts, (nblocks * 4) as u64)],
            Some(nblocks),
            block,
            nblocks as u32,
        )?;
    }
    // Few blocks: the write pass sums the earlier blocks' counts itself (no scan launch).
    let direct = direct && nblocks <= DIRECT_BLOCKS;
    let offsets = if direct {
        counts
    } else {
        crate::scan::exclusive_sum_u32(device, counts, nblocks)?
    };
    let count = Arc::new(ctx.alloc(16)?);
    launch(
        device,
        IndexKernel::CompactWrite { direct },
        dtype,
        &[flag, value],
        shape,
        vec![whole(&offsets), whole(&out), whole(&count)],
        Some(nblocks),
        block,
        nblocks as u32,
    )?;
    Ok(Compaction {
        device: device.clone(),
        dtype,
        out,
        count: Some(count),
    })
}

/// Most blocks whose write pass sums the earlier blocks' counts itself (each of its threads
/// loads at most `DIRECT_BLOCKS / 256` counts).
const DIRECT_BLOCKS: usize = 2048;

/// Elements per block (a multiple of 1024, at most [`COMPACT_BLOCK`]): with `direct`, the
/// whole input up to [`COMPACT_BLOCK`] elements (one block: the write pass is the only
/// launch), else small enough for about 512 workgroups (an H100 has 132 multiprocessors: 128 blocks of 8192
/// leave most of them one workgroup of 256 threads at 2^20 elements), else
/// [`COMPACT_BLOCK`].
fn block_size(n: usize, direct: bool) -> u32 {
    if !direct {
        return COMPACT_BLOCK;
    }
    if n <= COMPACT_BLOCK as usize {
        // One workgroup: a single launch beats parallelism at this size.
        return (n.div_ceil(1024) * 1024) as u32;
    }
    let per = n.div_ceil(512).div_ceil(1024) * 1024;
    per.clamp(1024, COMPACT_BLOCK as usize) as u32
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
        Array::from_buffer(
            self.device,
            self.dtype,
            self.out,
            Layout::contiguous(&[count]),
        )
        .into_packed_result()
    }
}
