//! kupfer-core: everything in kupfer that needs no GPU.
//!
//! - [`dtype`]: element types ([`DType`]).
//! - [`promote`]: NumPy 2 type promotion with kupfer's no-implicit-widening rule.
//! - [`casting`]: NumPy's casting rules (`casting='safe'`, `'same_kind'`, ...).
//! - [`layout`]: shapes, strides, broadcasting, views ([`Layout`], [`SliceArg`]).
//! - [`ops`]: the table of elementwise operations ([`UnaryOp`], [`BinaryOp`] are made from it).
//! - [`expr`]: the elementwise op IR ([`Program`]), which is also the pipeline-cache key.
//! - [`codegen`]: WGSL generation from the IR and the templates in `shaders/`.
//! - [`custom`]: user WGSL in generated kernels (custom kernels' parameters, wrappers,
//!   validation with errors located in the user's text).
//! - [`manip`]: joining and per-axis gather kernels (concatenate, pad, roll, tile, repeat).
//! - [`matmul`]: matmul kernels (simple, tiled SIMT, gemv, cooperative matrix) and their WGSL.
//! - [`fft`]: FFT pass schedules, twiddle tables and WGSL of Stockham passes.
//! - [`flags`]: kernels that compute deferred checks' flags on the device.
//! - [`convolve`]: direct 2-D convolution kernels (SciPy's convolve2d).
//! - [`indexing`]: gather, scatter, `ufunc.at` and stream-compaction kernels;
//!   [`at_segments`]: `ufunc.at` without atomics (sorted runs, a segmented scan).
//! - [`libm`]: accurate WGSL transcendentals used by generated kernels.
//! - [`random`]: the Philox4x32-10 bit generator, counter layout and distribution transforms.
//! - [`template`]: filling the `{{KEY}}` placeholders of the WGSL templates ([`template::Template`]).
//! - [`error`]: the one [`Error`] type of kupfer.

#![warn(missing_docs)]

pub mod at_segments;
pub mod casting;
pub mod codegen;
pub mod convolve;
pub mod custom;
pub mod dtype;
pub mod eig;
pub mod epilogue;
pub mod error;
pub mod expr;
pub mod fft;
pub mod flags;
pub mod histogram;
pub mod indexing;
pub mod layout;
pub mod libm;
pub mod linalg;
pub mod manip;
pub mod matmul;
#[cfg(test)]
mod naga_check;
pub mod ops;
pub mod promote;
pub mod random;
pub mod reduce;
pub mod scan;
pub mod sort;
pub mod sort_partition;
pub mod sort_rows;
pub mod sort_search;
pub mod sort_select;
pub mod template;

pub use dtype::{DType, Kind};
pub use error::{Error, LinAlgError, Result};
pub use expr::{Access, BinaryOp, InputSpec, Node, Program, UnaryOp};
pub use layout::{Layout, SliceArg};
