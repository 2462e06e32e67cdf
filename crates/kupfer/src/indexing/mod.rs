//! NumPy indexing on the GPU: reading (`a[idx]`), assignment (`a[idx] = v`, augmented
//! forms, the fused masked update) and the index functions
//! (`nonzero`, `take`, `put`, `where` with one argument, ...).
//!
//! - `index.rs`: [`Index`], [`idx!`](crate::idx), and the resolution of an index into a plan.
//! - `compact.rs`: device stream compaction (flags, scan, scatter; one read-back of the
//!   count), the building block of every data-dependent size.
//! - `resolve.rs`: masks to integer arrays, bounds checks, offset expressions.
//! - `get.rs`, `set.rs`: reading, writing (`ufunc.at` accumulation is `crate::accumulate`,
//!   which also needs sort's radix sort).
//! - `crate::fusion::readers`: the lazy-reader rule of in-place writes (the lazy engine's).
//! - `pending.rs`: gathers as deferred producers (an elementwise expression around one
//!   runs in the gather's kernel).
//! - `launch.rs`: running the index kernels (kupfer-core `indexing`).
//!
//! Out-of-bounds indices raise as in NumPy (CuPy wraps instead): host integers and lists are
//! checked on the host; device index arrays cost one read-back (their min and max) per
//! indexing operation. Results whose size depends on the data (masks, `nonzero`) cost one
//! read-back of the count.

pub(crate) mod compact;
mod fill_diagonal;
pub mod functions;
mod get;
pub(crate) mod index;
pub(crate) mod launch;
pub(crate) mod pending;
/// The lazy-reader rule lives with the lazy engine (`fusion/readers.rs`).
pub(crate) use crate::fusion::readers;
pub(crate) mod resolve;
pub(crate) mod set;

#[cfg(not(target_arch = "wasm32"))]
pub use fill_diagonal::fill_diagonal;
pub use fill_diagonal::fill_diagonal_async;
pub use functions::*;
pub use index::{Index, IntoIndex};
pub use kupfer_core::indexing::AtOp;
pub use set::MaskedReads;
