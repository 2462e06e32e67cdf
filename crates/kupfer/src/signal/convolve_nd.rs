//! `convolve` and `correlate` of N-d arrays (`scipy.signal.convolve` / `correlate`): the
//! direct method for 1-D and 2-D inputs runs the 2-D convolution kernel (a 1-D array is one
//! row); the FFT method (and every rank above 2) goes through [`super::fftconvolve`].

use super::convolve2d::{conv_dtype, direct};
use super::mode::{swap_needed, Mode};
use crate::array::Array;
use kupfer_core::convolve::{Boundary, MAX_TILED};
use kupfer_core::{DType, Error, Result, SliceArg};
use std::str::FromStr;

/// How [`convolve`] and [`correlate`] compute (SciPy's `method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Method {
    /// Direct for 1-D and 2-D inputs with small kernels (at most 16 along every axis) or
    /// few products, and for integer and float64 inputs (exact, or in full precision where
    /// kupfer's FFT is single precision); FFT otherwise (the default).
    #[default]
    Auto,
    /// The sum of products, exact for integers (1-D and 2-D inputs).
    Direct,
    /// Through the FFT ([`super::fftconvolve`], single precision); integer results are
    /// rounded, as SciPy does, and every result is cast to the inputs' result dtype.
    Fft,
}

impl FromStr for Method {
    type Err = Error;

    /// `"auto"`, `"direct"` or `"fft"`.
    fn from_str(s: &str) -> Result<Method> {
        match s {
            "auto" => Ok(Method::Auto),
            "direct" => Ok(Method::Direct),
            "fft" => Ok(Method::Fft),
            _ => Err(Error::invalid(format!(
                "Acceptable method flags are 'auto', 'direct', or 'fft'. (got '{s}')"
            ))),
        }
    }
}

/// Convolves two N-d arrays of the same rank (`scipy.signal.convolve`). Modes as in
/// [`crate::signal`]; `same` has `in1`'s shape. Two 0-d arrays multiply.
///
/// ```no_run
/// use kupfer as kp;
/// use kp::signal::{Method, Mode};
/// let a = kp::Array::from_slice(&[1.0f32, 2.0, 3.0], &[3])?;
/// let v = kp::Array::from_slice(&[0.0f32, 1.0, 0.5], &[3])?;
/// let c = kp::signal::convolve(&a, &v, Mode::Full, Method::Auto)?;
/// assert_eq!(c.to_vec::<f32>()?, vec![0.0, 1.0, 2.5, 4.0, 1.5]);
/// # Ok::<(), kp::Error>(())
/// ```
pub fn convolve(in1: &Array, in2: &Array, mode: Mode, method: Method) -> Result<Array> {
    if in1.ndim() == 0 && in2.ndim() == 0 {
        return crate::ufuncs::multiply(in1, in2);
    }
    if in1.ndim() != in2.ndim() {
        return Err(Error::invalid(
            "volume and kernel should have the same dimensionality",
        ));
    }
    convolve_same_rank(in1, in2, mode, method)
}

/// Cross-correlates two N-d arrays of the same rank (`scipy.signal.correlate`):
/// `convolve(in1, in2[::-1, ...].conj())`, so modes and shapes are those of [`convolve`].
pub fn correlate(in1: &Array, in2: &Array, mode: Mode, method: Method) -> Result<Array> {
    if in1.ndim() == 0 && in2.ndim() == 0 {
        return crate::ufuncs::multiply(in1, crate::ufuncs::conj(in2)?);
    }
    if in1.ndim() != in2.ndim() {
        return Err(Error::invalid(
            "in1 and in2 should have the same dimensionality",
        ));
    }
    let rev = reverse_conj(in2)?;
    convolve_same_rank(in1, &rev, mode, method)
}

/// `a` reversed along every axis and conjugated (SciPy's `_reverse_and_conj`).
pub(crate) fn reverse_conj(a: &Array) -> Result<Array> {
    let rev = a.slice(&vec![
        SliceArg::Slice {
            start: None,
            stop: None,
            step: Some(-1),
        };
        a.ndim()
    ])?;
    if a.dtype().is_complex() {
        crate::ufuncs::conj(&rev)
    } else {
        Ok(rev)
    }
}

fn convolve_same_rank(in1: &Array, in2: &Array, mode: Mode, method: Method) -> Result<Array> {
    in1.device().same(in2.device())?;
    // SciPy refuses empty inputs here (fftconvolve returns an empty result instead).
    if in1.size() == 0 || in2.size() == 0 {
        return Err(Error::invalid(format!(
            "convolve/correlate inputs cannot be empty (shapes {:?} and {:?})",
            in1.shape(),
            in2.shape()
        )));
    }
    let axes: Vec<usize> = (0..in1.ndim()).collect();
    let (a, b) = if swap_needed(mode, in1.shape(), in2.shape(), &axes)? {
        (in2, in1)
    } else {
        (in1, in2)
    };
    let dtype = conv_dtype(a.dtype(), b.dtype())?;
    let small = b.shape().iter().all(|&k| k <= MAX_TILED);
    let out_n: usize = a
        .shape()
        .iter()
        .zip(b.shape())
        .map(|(&n, &k)| super::mode::out_len(mode, n, k))
        .product();
    let few = out_n.saturating_mul(b.size()) <= 1 << 22;
    let single = matches!(dtype, DType::F32 | DType::Complex64);
    let use_direct = match method {
        Method::Direct => true,
        Method::Fft => false,
        Method::Auto => a.ndim() <= 2 && (small || few || !single),
    };
    if !use_direct {
        return fft_method(a, b, mode, dtype);
    }
    if a.ndim() > 2 {
        return Err(Error::unsupported(format!(
            "the direct method for {}-d inputs (1-D and 2-D; use method='fft')",
            a.ndim()
        )));
    }
    a.device().check(dtype)?;
    let row = |x: &Array| -> Result<Array> {
        if x.ndim() == 1 {
            x.reshape(&[1, x.shape()[0] as isize])
        } else {
            Ok(x.clone())
        }
    };
    let (a2, b2) = (row(&a.astype(dtype)?)?, row(&b.astype(dtype)?)?);
    let (n, k) = (a2.shape().to_vec(), b2.shape().to_vec());
    let off = |k: usize| -> i64 {
        let k1 = k as i64 - 1;
        match mode {
            Mode::Full => -k1,
            Mode::Same => (k1 >> 1) - k1,
            Mode::Valid => 0,
        }
    };
    let out_shape = [
        super::mode::out_len(mode, n[0], k[0]),
        super::mode::out_len(mode, n[1], k[1]),
    ];
    let fill = crate::scalar::Scalar::Int(0).encode(dtype)?;
    let out = direct(
        &a2,
        &b2,
        true,
        [off(k[0]), off(k[1])],
        out_shape,
        Boundary::Fill,
        &fill,
    )?;
    if a.ndim() == 1 {
        out.reshape(&[out_shape[1] as isize])
    } else {
        Ok(out)
    }
}

/// SciPy's FFT method: [`super::fftconvolve`], integer results rounded, cast to the
/// inputs' result dtype.
fn fft_method(a: &Array, b: &Array, mode: Mode, dtype: kupfer_core::DType) -> Result<Array> {
    let out = super::fftconvolve(a, b, mode, None)?;
    let out = if dtype.is_int() {
        crate::ufuncs::rint(&out)?
    } else {
        out
    };
    out.astype(dtype)
}
