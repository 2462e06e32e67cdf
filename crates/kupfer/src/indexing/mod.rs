//! NumPy indexing on the GPU: reading (`a[idx]`), assignment (`a[idx] = v`, augmented
//! forms, the fused masked update), `ufunc.at` accumulation, and the index functions
//! (`nonzero`, `take`, `put`, `where` with one argument, ...).
//!
//! - `index.rs`: [`Index`], [`idx!`](crate::idx), and the resolution of an index into a plan.
//! - `compact.rs`: device stream compaction (flags, scan, scatter; one read-back of the
//!   count), the building block of every data-dependent size.
//! - `resolve.rs`: masks to integer arrays, bounds checks, offset expressions.
//! - `get.rs`, `set.rs`, `at.rs`: reading, writing, accumulating.
//! - `crate::fusion::readers`: the lazy-reader rule of in-place writes (the lazy engine's).
//! - `launch.rs`: running the index kernels (kupfer-core `indexing`).
//!
//! Out-of-bounds indices raise as in NumPy (CuPy wraps instead): host integers and lists are
//! checked on the host; device index arrays cost one read-back (their min and max) per
//! indexing operation. Results whose size depends on the data (masks, `nonzero`) cost one
//! read-back of the count.

mod at;
pub(crate) mod compact;
mod fill_diagonal;
pub mod functions;
mod get;
mod index;
pub(crate) mod launch;
/// The lazy-reader rule lives with the lazy engine (`fusion/readers.rs`).
pub(crate) use crate::fusion::readers;
mod resolve;
pub(crate) mod set;

pub use at::ufunc_at_async;
#[cfg(not(target_arch = "wasm32"))]
pub use at::{add_at, ufunc_at};
#[cfg(not(target_arch = "wasm32"))]
pub use fill_diagonal::fill_diagonal;
pub use fill_diagonal::fill_diagonal_async;
pub use functions::*;
pub use index::{Index, IntoIndex};
pub use kupfer_core::indexing::AtOp;
pub use set::MaskedReads;
