//! Signal processing as `scipy.signal` / `cupyx.scipy.signal` computes it: direct 2-D
//! convolution and correlation with boundary rules ([`convolve2d`], [`correlate2d`]), and
//! N-d convolution and correlation ([`convolve`], [`correlate`], [`fftconvolve`]).
//!
//! Modes follow SciPy: `full` (every overlap, shape `n + k - 1`), `same` (the shape of
//! `in1`, centred on the full result) and `valid` (only complete overlaps, shape
//! `n - k + 1`; the inputs are swapped when `in2` is the larger one, and neither being at
//! least as large as the other in every dimension is an error).
//!
//! Dtypes: float32, float64 (SHADER_F64), complex64, int32, uint32 and int64 (exact integer
//! arithmetic with wrap-around, as SciPy's direct method). Mixed inputs promote by kupfer's
//! rule (`int32` with `float32` gives `float32`, where SciPy gives `float64`); bool and
//! float16 results are refused as SciPy refuses them.

mod convolve2d;
mod convolve_nd;
mod fftconvolve;
mod mode;

pub use convolve2d::{convolve2d, correlate2d};
pub use convolve_nd::{convolve, correlate, Method};
pub use fftconvolve::fftconvolve;
pub use kupfer_core::convolve::Boundary;
pub use mode::Mode;
