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
//! - [`views`]: `reshape`, `transpose`, `slice` / [`s!`], `broadcast_to`, ...; `order.rs`:
//!   `ravel`, `flatten`, `reshape`, `copy` in [`Order`] C, F, A or K; `memory.rs`:
//!   `Array::view_as` (`a.view(dtype)`), [`shares_memory`], [`may_share_memory`].
//! - [`reduce`]: `sum`, `prod`, `mean`, `max`, `min`, `any`, `all` over any axes, fused with
//!   their elementwise input; `reduce_options.rs`: their `initial=` and `where=`
//!   ([`sum_with`], [`max_with`], ...).
//! - [`bits`]: `packbits`, `unpackbits`.
//! - [`covariance`]: `cov`, `corrcoef` (a centred matmul).
//! - [`indexing`]: `a.get(&idx![...])`, `a.set(...)`, masks, integer arrays, `nonzero`,
//!   `take`, `put`, `fill_diagonal`, device stream compaction; `accumulate/`: `ufunc.at` (`ufunc_at`:
//!   atomics, or a sort and a segmented scan where WGSL has none; `ufunc_at_with`: any
//!   elementwise op, repeated indices in rounds of distinct elements).
//! - [`grids`]: `mgrid` / `ogrid` (NumPy's index-trick grids).
//! - [`linalg`]: `dot`, `vdot`, `inner`, `outer`, `tensordot`, `kron`, `einsum`, `norm`,
//!   `diagonal`, `diag`, `trace`.
//! - [`manip`]: `concatenate`, `stack`, `split`, `flip`, `roll`, `pad`, `tile`, `repeat`,
//!   `tril`, `insert`, ... (views where NumPy gives views; joins and gathers otherwise).
//! - [`matmul`](mod@matmul): `matmul` / `@` with NumPy semantics (tiled SIMT, gemv and
//!   tensor-core kernels).
//! - [`fft`]: `numpy.fft`'s transforms (any length, any axes), frequencies and shifts.
//! - [`Device`] (device.rs): adapters, the current device, memory pool, events.
//! - [`io`]: `.npy` reading and writing.
//! - [`random`]: `Generator` (Philox4x32-10, lazy draws that fuse), distributions, NumPy's
//!   module functions.
//! - [`sort`](mod@sort): `sort`, `argsort`, `lexsort`, searching, sets, order statistics.
//! - [`signal`]: `convolve2d`, `correlate2d`, `convolve`, `correlate` as `scipy.signal`.
//! - [`custom`]: custom kernels in WGSL ([`ElementwiseKernel`], [`ReductionKernel`],
//!   [`RawKernel`], [`RawModule`]); [`fuse()`] (fuse.rs): a closure of array ops as one kernel.
//! - [`numeric`]: `isclose`, `allclose`, `array_equal`, `nan_to_num`, `heaviside`,
//!   `logaddexp`, `sinc`, `modf`, ... composed from the ufuncs; [`windows`]: `hanning`,
//!   `kaiser`, ...; [`polynomial`]: `polyval`, `polymul`, ...; [`calculus`]: `trapezoid`,
//!   `ediff1d`, `gradient`, `unwrap`, `interp`; `dtype_info.rs`: `finfo`, `iinfo`.
//! - [`config`]: [`Config`], the settings a device runs by (FFT schedule, matmul tuning and
//!   precision, the runtime's adapter/shader checks/cache directory), from `KUPFER_*`
//!   variables or set in code ([`Device::with_config`]); the only reader of the environment.
//! - The runtime layer, which names no op family (`module_graph.rs` tests it): `fusion/`,
//!   lazy expressions and their materialisation as one kernel, with deferred producers (a
//!   matmul awaiting its epilogue) behind its `Deferred` trait; `kernels.rs`, the device's
//!   type-keyed caches (each family owns its kernel map or plan cache) and kernel
//!   compilation.
//! - `checks.rs`: deferred checks: errors found in device values (a negative integer
//!   exponent), reported by the device's next sync.
//!
//! Type promotion follows NumPy 2 (NEP 50) except that 32-bit operands are never widened to
//! 64 bits implicitly; see [`kupfer_core::promote`] for the table.

#![warn(missing_docs)]

mod accumulate;
mod array;
pub mod bits;
pub mod calculus;
mod checks;
pub mod config;
mod copy_pool;
pub mod covariance;
pub mod creation;
pub mod custom;
mod device;
mod dtype_info;
pub mod fft;
pub mod fuse;
mod fusion;
pub mod grids;
mod host;
pub mod indexing;
#[cfg(feature = "npy")]
pub mod io;
mod kernels;
pub mod linalg;
mod log_spaced;
pub mod manip;
pub mod matmul;
mod memory;
mod module_graph;
pub mod nanfuncs;
#[cfg(feature = "ndarray")]
mod ndarray_interop;
pub mod numeric;
mod ops;
mod order;
mod packed;
mod padding;
pub mod polynomial;
pub mod random;
pub mod reduce;
mod reduce_options;
mod scalar;
pub mod scan;
pub mod signal;
pub mod sort;
pub mod stats;
pub mod ufuncs;
pub mod views;
pub mod windows;

#[cfg(not(target_arch = "wasm32"))]
pub use accumulate::{add_at, ufunc_at, ufunc_at_with};
pub use accumulate::{ufunc_at_async, ufunc_at_with_async};
pub use array::Array;
pub use bits::{packbits, unpackbits, BitOrder};
#[cfg(not(target_arch = "wasm32"))]
pub use calculus::interp;
pub use calculus::{
    cumulative_prod, cumulative_sum, ediff1d, gradient, trapezoid, unwrap, Spacing,
};
pub use config::{Config, SortEngine};
pub use covariance::{corrcoef, cov, cov_async, CovOptions};
pub use creation::*;
pub use custom::{ElementwiseKernel, RawKernel, RawModule, ReductionKernel};
#[cfg(not(target_arch = "wasm32"))]
pub use device::synchronize;
pub use device::{init, Device, DeviceGuard};
pub use dtype_info::{finfo, iinfo, FInfo, IInfo};
pub use fuse::{fuse, Fused};
pub use half::f16;
pub use host::{Element, HostArray, HostData};
#[cfg(not(target_arch = "wasm32"))]
pub use indexing::fill_diagonal;
pub use indexing::fill_diagonal_async;
pub use indexing::functions::*;
pub use indexing::{AtOp, Index, MaskedReads};
pub use kupfer_core::casting::{can_cast, Casting};
pub use kupfer_core::layout::{broadcast_shapes, checked_size, normalize_axis, shape_from_signed};
/// The elementwise op table (`kupfer_core::ops`): the ops [`unary`] and [`binary`] apply and
/// the callback macros listing their rows.
pub use kupfer_core::{binary_op_table, unary_op_table, BinaryOp, UnaryOp};
pub use kupfer_core::{
    casting, promote, DType, Error, Kind, Layout, LinAlgError, Result, SliceArg,
};
pub use kupfer_wgpu::{
    wgpu, AdapterChoice, DeviceInfo, DispatchTime, Event, LabelTotal, MemoryPool, Profile,
    ProfileMode, ProfileSupport,
};
pub use linalg::{
    diag, diagonal, dot, einsum, inner, kron, outer, tensordot, trace, vdot, TensorAxes,
};
#[cfg(not(target_arch = "wasm32"))]
pub use linalg::{polyfit, roots};
pub use log_spaced::{geomspace, geomspace_complex, logspace};
pub use manip::*;
pub use matmul::{matmul, matmul_with, MatmulPrecision};
#[doc(hidden)]
pub use matmul::{matmul_forced, CoopConfig, Force, TileConfig};
pub use memory::{may_share_memory, shares_memory};
pub use nanfuncs::{
    nanargmax, nanargmin, nanmax, nanmean, nanmin, nanprod, nanstd, nansum, nanvar,
};
pub use num_complex::{Complex32, Complex64};
pub use numeric::*;
pub use order::Order;
pub use padding::{pad, PadMode};
pub use polynomial::{polyadd, polyder, polyint, polymul, polysub, polyval, vander};
pub use reduce::{
    all, amax, amin, any, argmax, argmin, average, count_nonzero, max, mean, min, prod, ptp, sum,
    var, Axis,
};
pub use reduce_options::{
    all_with, any_with, max_with, mean_with, min_with, nanstd_with, nanvar_with, prod_with,
    reduce_into, std_with, sum_with, var_with, ReduceOptions,
};
pub use scalar::{Operand, Scalar};
pub use scan::{cumprod, cumsum, diff, nancumprod, nancumsum};
#[cfg(not(target_arch = "wasm32"))]
pub use sort::digitize;
pub use sort::digitize_async;
pub use sort::{
    argpartition, argsort, lexsort, median, partition, percentile, percentiles, quantile,
    quantiles, searchsorted, sort, sort_complex,
};
#[cfg(not(target_arch = "wasm32"))]
pub use sort::{intersect1d, setdiff1d, setxor1d, union1d, unique};
pub use sort::{isin, unique_async};
#[cfg(not(target_arch = "wasm32"))]
pub use stats::{bincount, histogram};
pub use stats::{bincount_async, histogram_async};
pub use ufuncs::*;
pub use views::broadcast_arrays;
pub use windows::{bartlett, blackman, hamming, hanning, kaiser};
