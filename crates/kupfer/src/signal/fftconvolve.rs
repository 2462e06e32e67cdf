//! `fftconvolve`: N-d convolution through the FFT (`scipy.signal.fftconvolve`): real inputs
//! go through `rfftn` / `irfftn`, complex ones through `fftn` / `ifftn`, each padded to a
//! 2,3,5,7-smooth length (the FFT's fast sizes) of at least `n + k - 1` along every axis
//! convolved; the mode then takes SciPy's centred part of the full result.

use super::mode::{swap_needed, Mode};
use crate::array::Array;
use crate::fft::{self, Norm};
use kupfer_core::layout::normalize_axis;
use kupfer_core::{promote, DType, Error, Result, SliceArg};

/// Convolves two N-d arrays of the same rank through the FFT
/// (`scipy.signal.fftconvolve`), over `axes` (all by default); along the other axes the
/// inputs must agree or be 1 (they broadcast). Modes as in [`crate::signal`]. Two 0-d inputs
/// multiply; an empty input gives an empty 1-D result, as SciPy's.
///
/// Results are float32 for real inputs and complex64 for complex ones (kupfer's FFT is
/// single precision: float64 and integer inputs are transformed in float32, where SciPy
/// returns float64).
///
/// ```no_run
/// use kupfer as kp;
/// use kp::signal::Mode;
/// let a = kp::Array::from_slice(&[1.0f32, 2.0, 3.0], &[3])?;
/// let v = kp::Array::from_slice(&[0.0f32, 1.0, 0.5], &[3])?;
/// let c = kp::signal::fftconvolve(&a, &v, Mode::Same, None)?; // [1, 2.5, 4]
/// # Ok::<(), kp::Error>(())
/// ```
pub fn fftconvolve(in1: &Array, in2: &Array, mode: Mode, axes: Option<&[isize]>) -> Result<Array> {
    in1.device().same(in2.device())?;
    if in1.ndim() == 0 && in2.ndim() == 0 {
        return crate::ufuncs::multiply(in1, in2);
    }
    if in1.ndim() != in2.ndim() {
        return Err(Error::invalid(
            "in1 and in2 should have the same dimensionality",
        ));
    }
    let complex = in1.dtype().is_complex() || in2.dtype().is_complex();
    // The transforms run in the result's precision: double where an input is 64-bit
    // (float64, int64, complex128), single otherwise (kupfer's 32-bit rule).
    let common = promote::result_type(in1.dtype(), in2.dtype())?;
    let out_dtype = match (complex, common.is_64bit()) {
        (true, _) => common.complex_of(),
        (false, true) => DType::F64,
        (false, false) => DType::F32,
    };
    let (in1, in2) = (&in1.astype(out_dtype)?, &in2.astype(out_dtype)?);
    if in1.size() == 0 || in2.size() == 0 {
        return crate::creation::full_on(in1.device(), &[0], 0i64, Some(out_dtype));
    }
    let nd = in1.ndim();
    let (s1, s2) = (in1.shape(), in2.shape());
    let mut axes: Vec<usize> = match axes {
        None => (0..nd).collect(),
        Some([]) => return Err(Error::invalid("when provided, axes cannot be empty")),
        Some(ax) => {
            let mut v = Vec::with_capacity(ax.len());
            for &a in ax {
                let a = normalize_axis(a, nd)?;
                if v.contains(&a) {
                    return Err(Error::invalid("all axes must be unique"));
                }
                v.push(a);
            }
            v
        }
    };
    // Axes of length 1 broadcast in the product: no transform needed.
    axes.retain(|&a| s1[a] != 1 && s2[a] != 1);
    if (0..nd)
        .filter(|a| !axes.contains(a))
        .any(|a| s1[a] != s2[a] && s1[a] != 1 && s2[a] != 1)
    {
        return Err(Error::invalid(format!(
            "incompatible shapes for in1 and in2: {s1:?} and {s2:?}"
        )));
    }
    let (a, b) = if swap_needed(mode, s1, s2, &axes)? {
        (in2, in1)
    } else {
        (in1, in2)
    };
    let (s1, s2) = (a.shape().to_vec(), b.shape().to_vec());
    let full: Vec<usize> = (0..nd)
        .map(|i| {
            if axes.contains(&i) {
                s1[i] + s2[i] - 1
            } else {
                s1[i].max(s2[i])
            }
        })
        .collect();
    let ret = if axes.is_empty() {
        crate::ufuncs::multiply(a, b)?
    } else {
        let fshape: Vec<usize> = axes.iter().map(|&i| fast_len(full[i])).collect();
        let iaxes: Vec<isize> = axes.iter().map(|&i| i as isize).collect();
        let (s, ax) = (Some(fshape.as_slice()), Some(iaxes.as_slice()));
        let spec = if complex {
            let p = crate::ufuncs::multiply(
                fft::fftn(a, s, ax, Norm::Backward)?,
                fft::fftn(b, s, ax, Norm::Backward)?,
            )?;
            fft::ifftn(&p, s, ax, Norm::Backward)?
        } else {
            let p = crate::ufuncs::multiply(
                fft::rfftn(a, s, ax, Norm::Backward)?,
                fft::rfftn(b, s, ax, Norm::Backward)?,
            )?;
            fft::irfftn(&p, s, ax, Norm::Backward)?
        };
        let args: Vec<SliceArg> = (0..nd)
            .map(|i| SliceArg::range(0, full[i] as isize))
            .collect();
        spec.slice(&args)?
    };
    let ret = ret.astype(out_dtype)?;
    let want: Vec<usize> = match mode {
        Mode::Full => return Ok(ret),
        Mode::Same => s1.clone(),
        Mode::Valid => (0..nd)
            .map(|i| {
                if axes.contains(&i) {
                    s1[i] + 1 - s2[i]
                } else {
                    full[i]
                }
            })
            .collect(),
    };
    centered(&ret, &want)
}

/// SciPy's `_centered`: the centre `want` of `a` (start `(len - want) / 2` per axis).
fn centered(a: &Array, want: &[usize]) -> Result<Array> {
    let args: Vec<SliceArg> = a
        .shape()
        .iter()
        .zip(want)
        .map(|(&len, &w)| {
            let start = (len - w.min(len)) / 2;
            SliceArg::range(start as isize, (start + w) as isize)
        })
        .collect();
    a.slice(&args)
}

/// The smallest 2,3,5,7-smooth length at least `n` (the FFT's fast sizes).
pub(crate) fn fast_len(n: usize) -> usize {
    let smooth = |mut m: usize| {
        for p in [2, 3, 5, 7] {
            while m.is_multiple_of(p) {
                m /= p;
            }
        }
        m == 1
    };
    (n.max(1)..).find(|&m| smooth(m)).unwrap_or(n)
}

#[cfg(test)]
mod tests {
    use super::fast_len;

    #[test]
    fn fast_lengths_are_smooth_and_minimal() {
        assert_eq!(fast_len(1), 1);
        assert_eq!(fast_len(11), 12);
        assert_eq!(fast_len(97), 98);
        assert_eq!(fast_len(1024), 1024);
        assert_eq!(fast_len(1025), 1029);
    }
}
