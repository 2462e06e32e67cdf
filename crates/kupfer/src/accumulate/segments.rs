//! `ufunc.at` where WGSL's 32-bit atomics cannot accumulate (float64, complex128, and
//! products and extrema of int64 and complex64): no atomics at all. The target offsets are
//! sorted stably with kupfer's radix sort (the original positions as payload), so each run
//! of equal offsets lists its updates in the order NumPy applies them; a segmented scan
//! (kupfer-core `at_segments`) combines each run starting from the old value, and one plain
//! write per run stores the result. Repeated indices are therefore exact for integers and
//! extrema; float and complex sums and products of a run longer than one chunk associate
//! chunk by chunk (NumPy's order inside each chunk). Needs no read-back.

use crate::device::Device;
use crate::fusion::{materialise, Expr, Lazy};
use crate::indexing::launch::{check_size, grid};
use crate::sort::engine::{radix_sort, RadixInput};
use kupfer_core::at_segments::{self, AT_CHUNK, AT_WORKGROUP};
use kupfer_core::indexing::AtOp;
use kupfer_core::layout::size_of;
use kupfer_core::sort::KeyStore;
use kupfer_core::{DType, Error, Result};
use kupfer_wgpu::pipeline::Pipeline;
use kupfer_wgpu::{Binding, GpuBuffer, ShaderChecks};
use std::sync::Arc;

/// The kernels of one `(op, dtype)` and the device they run on.
struct Kernels<'a> {
    device: &'a Device,
    wgsl: String,
    esize: u64,
}

/// A binding of the first `bytes` bytes of `buffer`.
fn bind(buffer: &Arc<GpuBuffer>, bytes: u64) -> Binding {
    Binding {
        buffer: buffer.clone(),
        offset: 0,
        size: (bytes.div_ceil(4) * 4).clamp(4, buffer.size()),
    }
}

impl Kernels<'_> {
    fn pipeline(&self, entry: &str) -> Result<Arc<Pipeline>> {
        self.device
            .context()
            .pipeline_with(&self.wgsl, entry, ShaderChecks::Trusted)
    }

    fn alloc(&self, bytes: u64) -> Result<Arc<GpuBuffer>> {
        let max = self.device.context().max_binding_size();
        if bytes > max {
            return Err(Error::unsupported(format!(
                "ufunc.at needs a buffer of {bytes} bytes, more than this adapter's largest \
                 binding ({max} bytes)"
            )));
        }
        Ok(Arc::new(self.device.context().alloc(bytes.max(16))?))
    }

    /// Runs `entry` with one thread per `threads` over `n` elements.
    fn dispatch(
        &self,
        entry: &str,
        threads: usize,
        n: usize,
        keyed: bool,
        bindings: Vec<(u32, Binding)>,
    ) -> Result<()> {
        let ctx = self.device.context();
        let groups = threads.div_ceil(AT_WORKGROUP as usize);
        let [gx, gy] = grid(groups, ctx.max_workgroups_per_dim() as usize)?;
        let params: Vec<u8> = [n as u32, gx, u32::from(keyed), 0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let pipeline = self.pipeline(entry)?;
        ctx.dispatch_with(&pipeline, Some(&params), bindings, [gx, gy, 1])
    }

    /// Segmented inclusive scan, in place, of `m` values `vals` with head flags `flags`
    /// (one level above the elements).
    fn scan_level(&self, flags: &Arc<GpuBuffer>, vals: &Arc<GpuBuffer>, m: usize) -> Result<()> {
        let chunks = m.div_ceil(AT_CHUNK as usize);
        let agg_flag = self.alloc(chunks as u64 * 4)?;
        let agg_val = self.alloc(chunks as u64 * self.esize)?;
        let e = self.esize;
        self.dispatch(
            "level",
            chunks,
            m,
            false,
            vec![
                (1, bind(flags, m as u64 * 4)),
                (5, bind(vals, m as u64 * e)),
                (6, bind(&agg_flag, chunks as u64 * 4)),
                (7, bind(&agg_val, chunks as u64 * e)),
            ],
        )?;
        if chunks > 1 {
            self.scan_level(&agg_flag, &agg_val, chunks)?;
            self.dispatch(
                "carry",
                chunks - 1,
                m,
                false,
                vec![
                    (1, bind(flags, m as u64 * 4)),
                    (5, bind(vals, m as u64 * e)),
                    (8, bind(&agg_val, chunks as u64 * e)),
                ],
            )?;
        }
        Ok(())
    }
}

/// The values over the selection's shape as a fresh contiguous buffer.
fn values_buffer(
    device: &Device,
    values: &Lazy,
    vshape: &[usize],
    shape: &[usize],
) -> Result<Arc<GpuBuffer>> {
    // A deferred result is its own buffer (of its own shape): broadcast it as a leaf.
    if vshape != shape && matches!(&*values.root, Expr::Deferred(_)) {
        let own = materialise(device, values, vshape)?;
        let layout = kupfer_core::Layout::contiguous(vshape);
        let leaf = Lazy::leaf(own, layout, values.dtype());
        return materialise(device, &leaf, shape);
    }
    materialise(device, values, shape)
}

/// `dst[off[g]] = op(dst[off[g]], values[g])` for every `g` of `shape`, repeated offsets
/// applied in order. `off` is the u32 element offset into `dst` (in bounds, checked by the
/// caller); `values` is of `dtype`, broadcastable from `vshape` to `shape`, and reads no
/// element of `dst`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn accumulate(
    device: &Device,
    op: AtOp,
    dtype: DType,
    dst: &Arc<GpuBuffer>,
    off: &Lazy,
    values: &Lazy,
    vshape: &[usize],
    shape: &[usize],
) -> Result<()> {
    let n = size_of(shape);
    if n == 0 {
        return Ok(());
    }
    check_size(n, "ufunc.at over")?;
    let ctx = device.context();
    let esize = dtype.gpu_size() as u64;
    if dst.size() > ctx.max_binding_size() {
        return Err(Error::unsupported(format!(
            "np.{}.at on {dtype} arrays larger than this adapter's largest binding ({} bytes)",
            op.name(),
            ctx.max_binding_size()
        )));
    }
    let k = Kernels {
        device,
        wgsl: at_segments::generate(op, dtype, &ctx.target())?,
        esize,
    };
    let keys = materialise(device, off, shape)?;
    let vals = values_buffer(device, values, vshape, shape)?;
    // Offsets are below the buffer's element count: sort only the bits that can differ.
    let elements = (dst.size() / esize).clamp(1, u64::from(u32::MAX));
    let bits = 32 - ((elements - 1) as u32).leading_zeros();
    let (sorted, perm) = radix_sort(
        device,
        RadixInput::words(keys, n, 1),
        1,
        KeyStore::Words,
        None,
        true,
        n,
        bits,
    )?;
    let (Some(sorted), Some(perm)) = (sorted, perm) else {
        return Err(Error::invalid("ufunc.at: the sort wrote no keys"));
    };
    let chunks = n.div_ceil(AT_CHUNK as usize);
    let scan = k.alloc(n as u64 * esize)?;
    let agg_flag = k.alloc(chunks as u64 * 4)?;
    let agg_val = k.alloc(chunks as u64 * esize)?;
    let nb = n as u64;
    k.dispatch(
        "first",
        chunks,
        n,
        true,
        vec![
            (1, bind(&sorted, nb * 4)),
            (2, bind(&perm, nb * 4)),
            (3, bind(&vals, nb * esize)),
            (4, bind(dst, dst.size())),
            (5, bind(&scan, nb * esize)),
            (6, bind(&agg_flag, chunks as u64 * 4)),
            (7, bind(&agg_val, chunks as u64 * esize)),
        ],
    )?;
    if chunks > 1 {
        k.scan_level(&agg_flag, &agg_val, chunks)?;
        k.dispatch(
            "carry",
            chunks - 1,
            n,
            true,
            vec![
                (1, bind(&sorted, nb * 4)),
                (5, bind(&scan, nb * esize)),
                (8, bind(&agg_val, chunks as u64 * esize)),
            ],
        )?;
    }
    k.dispatch(
        "apply",
        n,
        n,
        true,
        vec![
            (1, bind(&sorted, nb * 4)),
            (4, bind(dst, dst.size())),
            (5, bind(&scan, nb * esize)),
        ],
    )
}
