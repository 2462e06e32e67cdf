//! Deferred producers: results of an op family's own kernels that are not computed until
//! needed (a matrix product today), held in an expression as [`Expr::Deferred`]. The lazy
//! engine knows them only through [`Deferred`]: it runs one when its value is read, or lets
//! it take the elementwise expression around it as its epilogue.

use super::Expr;
use crate::device::Device;
use crate::kernels::Shared;
use kupfer_core::{DType, Result};
use kupfer_wgpu::GpuBuffer;
use std::sync::Arc;

/// A result computed by an op family's kernel on first use (see the module docs).
pub(crate) trait Deferred: std::fmt::Debug + Shared {
    /// The result's dtype.
    fn dtype(&self) -> DType;

    /// The result's shape (it is C-contiguous).
    fn shape(&self) -> &[usize];

    /// The result, computed now if it has not been yet (then kept: later calls return it).
    fn buffer(&self) -> Result<Arc<GpuBuffer>>;

    /// True while the result has not been computed and can still take an epilogue.
    fn takes_epilogue(&self) -> bool {
        false
    }

    /// Computes `expr` (of `shape`) as this producer's epilogue: `expr` reads the result
    /// through `this` (the expression node holding `self`), which flattens as
    /// `Node::Load(PRODUCT)` ([`super::Flattener::flatten_around`]). None when the
    /// expression does not suit an epilogue (the caller then runs it as usual).
    fn with_epilogue(
        &self,
        device: &Device,
        expr: &Arc<Expr>,
        this: &Arc<Expr>,
        shape: &[usize],
    ) -> Result<Option<Arc<GpuBuffer>>> {
        let _ = (device, expr, this, shape);
        Ok(None)
    }
}
