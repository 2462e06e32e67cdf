//! Reading through an index (`a[idx]`): basic indices give views; a boolean mask of the
//! array's shape is one fused compaction (`x[x > 0.5]` reads `x` twice and writes only the
//! selected values; a lazy `x` is never materialised); every other advanced index is one
//! gather kernel whose offsets are a fused expression of the index arrays.
//!
//! Sync points: a mask's count (one 4-byte read-back, [`crate::indexing::compact`]); device
//! integer index arrays' bounds (one min/max read-back, [`crate::indexing::resolve`]). Basic
//! indexing and host lists never wait.

use crate::array::Array;
use crate::indexing::compact::compact;
use crate::indexing::index::{check_mask, single_mask, Index};
use crate::indexing::launch::{launch, whole};
use crate::indexing::resolve::{offsets, resolve, Resolved};
use kupfer_core::indexing::IndexKernel;
use kupfer_core::layout::size_of;
use kupfer_core::{Layout, Result};
use std::sync::Arc;

impl Array {
    /// NumPy indexing, `a[index]`, async (the browser's form: masks and device index arrays
    /// read a value back). See [`Index`] and [`idx!`](crate::idx).
    pub async fn get_async(&self, index: &[Index]) -> Result<Array> {
        // A mask over the whole array needs no materialised source (fused compaction).
        if let Some(mask) = single_mask(index, self.ndim()) {
            check_mask(mask.shape(), self.shape(), 0)?;
            mask.device().same(self.device())?;
            return compact(self.device(), &mask.lazy(), &self.lazy(), self.shape())?
                .finish_async()
                .await;
        }
        let (buffer, layout) = self.buffer_and_layout()?;
        match resolve(self, &layout, index).await? {
            Resolved::Basic(args) => self.slice(&args),
            Resolved::Plan(plan) => {
                let device = self.device();
                let n = size_of(&plan.shape);
                let isz = self.dtype().gpu_size() as u64;
                let out = Arc::new(
                    device
                        .context()
                        .alloc((n.max(1) as u64 * isz).div_ceil(16) * 16)?,
                );
                if n > 0 {
                    let off = offsets(&plan)?;
                    launch(
                        device,
                        IndexKernel::Gather,
                        self.dtype(),
                        &[&off],
                        &plan.shape,
                        vec![whole(&buffer), whole(&out)],
                        None,
                        0,
                        0,
                    )?;
                }
                Ok(Array::from_buffer(
                    device.clone(),
                    self.dtype(),
                    out,
                    Layout::contiguous(&plan.shape),
                ))
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
