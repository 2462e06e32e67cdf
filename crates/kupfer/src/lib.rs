//! # kupfer — CuPy for Rust on every GPU
//!
//! NumPy-compatible n-dimensional arrays whose operations run as WGSL compute shaders through
//! wgpu (Vulkan, Metal, DX12, WebGPU). Where CuPy says `import cupy as cp`, write
//! `use kupfer as kp`.
//!
//! ```no_run
//! use kupfer as kp;
//! let x = kp::arange(0.0, 1e6, 1.0, Some(kp::DType::F32))?;
//! let y = kp::add(kp::sin(&x)?, kp::cos(&x)?)?; // one fused kernel, run when needed
//! let host: Vec<f32> = y.to_vec()?;
//! # Ok::<(), kp::Error>(())
//! ```
//!
//! Where things live:
//! - [`Array`] (array.rs): the handle, transfers, `astype`, `eval`.
//! - [`ufuncs`]: every elementwise function (`add`, `sin`, `where_`, `clip`, ...).
//! - [`creation`]: `zeros`, `arange`, `linspace`, `eye`, `meshgrid`, ...
//! - [`views`]: `reshape`, `transpose`, `slice` / [`s!`], `broadcast_to`, ...
//! - [`reduce`]: `sum`, `prod`, `mean`, `max`, `min`, `any`, `all` over any axes, fused with
//!   their elementwise input.
//! - [`indexing`]: `a.get(&idx![...])`, `a.set(...)`, masks, integer arrays, `nonzero`,
//!   `take`, `put`, `ufunc.at`, device stream compaction.
//! - [`linalg`]: `dot`, `vdot`, `inner`, `outer`, `tensordot`, `kron`, `einsum`, `norm`,
//!   `diagonal`, `diag`, `trace`.
//! - [`matmul`](mod@matmul): `matmul` / `@` with NumPy semantics (tiled SIMT, gemv and
//!   tensor-core kernels).
//! - [`fft`]: `numpy.fft`'s transforms (any length, any axes), frequencies and shifts.
//! - [`Device`] (device.rs): adapters, the current device, memory pool, events.
//! - [`io`]: `.npy` reading and writing.
//! - [`signal`]: `convolve2d`, `correlate2d`, `convolve`, `correlate` as `scipy.signal`.
//! - [`custom`]: custom kernels in WGSL ([`ElementwiseKernel`], [`ReductionKernel`],
//!   [`RawKernel`], [`RawModule`]); [`fuse`] (fuse.rs): a closure of array ops as one kernel.
//! - `fusion.rs`: lazy expressions and their materialisation as one kernel.
//!
//! Type promotion follows NumPy 2 (NEP 50) except that 32-bit operands are never widened to
//! 64 bits implicitly; see [`kupfer_core::promote`] for the table.

#![warn(missing_docs)]

mod array;
pub mod creation;
pub mod custom;
mod device;
pub mod fft;
pub mod fuse;
mod fusion;
mod host;
pub mod indexing;
#[cfg(feature = "npy")]
pub mod io;
mod kernels;
pub mod linalg;
pub mod matmul;
pub mod nanfuncs;
#[cfg(feature = "ndarray")]
mod ndarray_interop;
mod ops;
pub mod reduce;
mod scalar;
pub mod scan;
pub mod signal;
pub mod stats;
pub mod ufuncs;
pub mod views;

pub use array::Array;
pub use creation::*;
pub use custom::{ElementwiseKernel, RawKernel, RawModule, ReductionKernel};
#[cfg(not(target_arch = "wasm32"))]
pub use device::synchronize;
pub use device::{init, Device, DeviceGuard};
pub use fuse::{fuse, Fused};
pub use half::f16;
pub use host::{Element, HostArray, HostData};
pub use indexing::functions::*;
#[cfg(not(target_arch = "wasm32"))]
pub use indexing::{add_at, ufunc_at};
pub use indexing::{ufunc_at_async, AtOp, Index, MaskedReads};
pub use kupfer_core::casting::{can_cast, Casting};
pub use kupfer_core::{casting, promote, DType, Error, Kind, Layout, Result, SliceArg};
pub use kupfer_wgpu::{wgpu, AdapterChoice, DeviceInfo, Event, MemoryPool};
pub use linalg::{
    diag, diagonal, dot, einsum, inner, kron, outer, tensordot, trace, vdot, TensorAxes,
};
pub use matmul::{matmul, matmul_with, MatmulPrecision};
#[doc(hidden)]
pub use matmul::{matmul_forced, CoopConfig, Force, TileConfig};
pub use nanfuncs::{
    nanargmax, nanargmin, nanmax, nanmean, nanmin, nanprod, nanstd, nansum, nanvar,
};
pub use num_complex::{Complex32, Complex64};
pub use reduce::{
    all, amax, amin, any, argmax, argmin, average, count_nonzero, max, mean, min, prod, ptp, sum,
    var, Axis,
};
pub use scalar::{Operand, Scalar};
pub use scan::{cumprod, cumsum, diff, nancumprod, nancumsum};
#[cfg(not(target_arch = "wasm32"))]
pub use stats::{bincount, histogram};
pub use stats::{bincount_async, histogram_async};
pub use ufuncs::*;
pub use views::broadcast_arrays;
