//! Reading through an index (`a[idx]`): basic indices give views; a boolean mask of the
//! array's shape is one fused compaction (`x[x > 0.5]` reads `x` twice and writes only the
//! selected values; a lazy `x` is never materialised); every other advanced index is one
//! gather kernel whose offsets are a fused expression of the index arrays. The gather is a
//! deferred producer (`pending.rs`): an elementwise expression over its result alone
//! (`x[idx] * 2`) runs inside the gather's kernel.
//!
//! A single index array over one axis of an array whose later axes are contiguous (`m[rows]`,
//! `x[idx]`, `take(a, idx, axis)`) copies whole rows as raw 4-, 8- or 16-byte units (vec4
//! loads and stores where the row's bytes allow), one thread per unit.
//!
//! Sync points: a mask's count (one 4-byte read-back, [`crate::indexing::compact`]). Device
//! integer index arrays are bounds-checked inside the gather and an out-of-bounds index is
//! reported at the next sync ([`crate::indexing::resolve`]). Basic indexing and host lists
//! never wait.

use crate::array::Array;
use crate::fusion::Lazy;
use crate::indexing::compact::compact;
use crate::indexing::index::Plan;
use crate::indexing::index::{check_mask, single_mask, Index};
use crate::indexing::launch::{launch, launch_rows, whole};
use crate::indexing::pending::PendingGather;
use crate::indexing::resolve::{bounds_words, offsets, resolve, Resolved};
use kupfer_core::indexing::IndexKernel;
use kupfer_core::layout::size_of;
use kupfer_core::{Error, Layout, Result};
use kupfer_wgpu::GpuBuffer;
use std::sync::Arc;

/// `a[plan]` into a new C-contiguous array: a row gather where the plan allows one, else one
/// gather kernel over the result's elements. Device index arrays are checked by the kernel.
pub(crate) fn gather(a: &Array, buffer: &Arc<GpuBuffer>, plan: &Plan) -> Result<Array> {
    let device = a.device();
    let n = size_of(&plan.shape);
    let isz = a.dtype().gpu_size() as u64;
    let out = Arc::new(
        device
            .context()
            .alloc((n.max(1) as u64 * isz).div_ceil(16) * 16)?,
    );
    let result = Array::from_buffer(
        device.clone(),
        a.dtype(),
        out.clone(),
        Layout::contiguous(&plan.shape),
    );
    if n == 0 {
        return Ok(result);
    }
    let rows = row_plan(plan, isz as usize);
    let p = rows.as_ref().map_or(plan, |(rp, _, _)| rp);
    let off = offsets(p)?;
    let (words, report) = bounds_words(p)?;
    let checks =
        u8::try_from(report.len()).map_err(|_| Error::unsupported("more than 255 index arrays"))?;
    let mut extra = vec![whole(buffer), whole(&out)];
    if checks > 0 {
        let zeros = vec![0u8; 8 * checks as usize];
        let err = device.context().upload(&zeros)?;
        extra.push(whole(&err));
        device.checks.push_words(
            err,
            0,
            2 * u64::from(checks),
            Box::new(move |w| report.describe(w)),
        );
    }
    let mut roots: Vec<&Lazy> = vec![&off];
    roots.extend(words.iter());
    match &rows {
        Some((rp, unit, units)) => launch_rows(
            device,
            IndexKernel::GatherRows {
                unit: *unit,
                checks,
                // One-unit rows (`x[idx]`): several per thread (`KUPFER_GATHER_ITEMS`,
                // `KUPFER_TAKE`), strided or consecutive, on workgroups of a chosen size.
                items: if *units == 1 {
                    device.config().indexing.gather_items.clamp(1, 8) as u8
                } else {
                    1
                },
                contiguous: *units == 1 && device.config().indexing.gather_contiguous,
                workgroup: gather_workgroup(device),
            },
            &roots,
            &rp.shape,
            *units,
            extra,
        )?,
        None => launch(
            device,
            IndexKernel::Gather { checks },
            a.dtype(),
            &roots,
            &plan.shape,
            extra,
            None,
            0,
            0,
        )?,
    }
    Ok(result)
}

/// A plan of one index array whose later view axes are C-contiguous, as rows: the plan over
/// the axes up to the indexed one with strides and offset in copy units, the unit (1, 2 or
/// 4 u32 words: the widest dividing the row's bytes and every offset) and units per row.
fn row_plan(p: &Plan, isz: usize) -> Option<(Plan, u8, usize)> {
    let [k] = p.axes[..] else { return None };
    let view = &p.view;
    let mut inner = 1usize;
    for j in (k + 1..view.ndim()).rev() {
        if view.shape[j] != 1 && view.strides[j] != inner as isize {
            return None;
        }
        inner *= view.shape[j];
    }
    let bytes = inner * isz;
    let offsets_bytes = std::iter::once(view.offset as isize)
        .chain(view.strides[..=k].iter().copied())
        .map(|e| e.unsigned_abs() * isz);
    let all = std::iter::once(bytes)
        .chain(offsets_bytes)
        .collect::<Vec<_>>();
    let unit_bytes = [16usize, 8, 4]
        .into_iter()
        .find(|u| u >= &isz && all.iter().all(|b| b % u == 0))?;
    let ratio = (unit_bytes / isz) as isize;
    let mut rp = p.clone();
    rp.view = Layout {
        shape: view.shape[..=k].to_vec(),
        strides: view.strides[..=k].iter().map(|s| s / ratio).collect(),
        offset: view.offset / ratio as usize,
    };
    let kept = p.shape.len() - (view.ndim() - k - 1);
    rp.shape = p.shape[..kept].to_vec();
    Some((rp, (unit_bytes / 4) as u8, bytes / unit_bytes))
}

impl Array {
    /// NumPy indexing, `a[index]`, async (the browser's form: masks and device index arrays
    /// read a value back). See [`Index`] and [`idx!`](crate::idx).
    pub async fn get_async(&self, index: &[Index]) -> Result<Array> {
        // A mask over the whole array needs no materialised source (fused compaction).
        if let Some(mask) = single_mask(index, self.ndim()) {
            check_mask(mask.shape(), self.shape(), 0)?;
            mask.device().same(self.device())?;
            return compact(self.device(), &mask.lazy()?, &self.lazy()?, self.shape())?
                .finish_async()
                .await;
        }
        let layout = self.layout()?;
        match resolve(self, &layout, index, true).await? {
            Resolved::Basic(args) => self.slice(&args),
            // Deferred: run on first use, or with the elementwise expression around it. It
            // reads the buffer as it is now (an unpacked copy of packed storage).
            Resolved::Plan(plan) => {
                let buffer = self.read_whole_buffer()?;
                Ok(PendingGather::array(self, buffer, plan))
            }
        }
    }

    /// NumPy indexing, `a[index]`: integers, slices, new axes, an ellipsis, boolean masks of
    /// any rank, integer arrays and lists (negative indices count from the end), combined
    /// as NumPy combines them. Out-of-bounds indices are an error (NumPy's message).
    ///
    /// ```
    /// use kupfer::{idx, SliceArg};
    /// let a = kupfer::arange(0, 12, 1, Some(kupfer::DType::I32))?.reshape(&[3, 4])?;
    /// let rows = a.get(&idx![vec![2i64, -3]])?; // a[[2, -3]]
    /// assert_eq!(rows.shape(), &[2, 4]);
    /// let m = kupfer::greater(&a, 9)?;
    /// assert_eq!(a.get(&idx![&m])?.to_vec::<i32>()?, vec![10, 11]);
    /// # Ok::<(), kupfer::Error>(())
    /// ```
    #[cfg(not(target_arch = "wasm32"))]
    pub fn get(&self, index: &[Index]) -> Result<Array> {
        pollster::block_on(self.get_async(index))
    }

    /// `a[mask]` for a boolean mask (any rank up to `a`'s), async.
    pub async fn get_mask_async(&self, mask: &Array) -> Result<Array> {
        self.get_async(&[Index::Array(mask.clone())]).await
    }

    /// `a[mask]` for a boolean mask (any rank up to `a`'s).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn get_mask(&self, mask: &Array) -> Result<Array> {
        pollster::block_on(self.get_mask_async(mask))
    }
}

/// Threads per workgroup of the row gathers (`IndexingConfig::gather_workgroup`): the
/// largest power of two within it and the adapter's limit, at least 64.
fn gather_workgroup(device: &crate::device::Device) -> u16 {
    let limit = device.info().limits.max_compute_invocations_per_workgroup;
    let cap = device
        .config()
        .indexing
        .gather_workgroup
        .min(limit)
        .clamp(64, 1024);
    (1u32 << (31 - cap.leading_zeros())) as u16
}
