//! `fftconvolve`: N-d convolution through the FFT (`scipy.signal.fftconvolve`).

use super::mode::Mode;
use crate::array::Array;
use kupfer_core::{Error, Result};

/// Convolves two N-d arrays of the same rank through the FFT
/// (`scipy.signal.fftconvolve`), over `axes` (all by default).
pub fn fftconvolve(in1: &Array, in2: &Array, mode: Mode, axes: Option<&[isize]>) -> Result<Array> {
    let _ = (in1, in2, mode, axes);
    Err(Error::unsupported("fftconvolve (the FFT is not built yet)"))
}
