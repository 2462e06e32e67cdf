//! The image lab's filters: convolution kernels through `kupfer::signal::convolve2d` (box,
//! Gaussian, sharpen, Sobel) and frequency-domain filters through `kupfer::fft` (a Gaussian
//! low-pass or high-pass mask on the `rfft2` spectrum). Each works on one float32 channel of
//! shape (height, width) and returns the same shape.

use kupfer as kp;
use kupfer::fft::{self, Norm};
use kupfer::signal::{self, Boundary, Mode};
use kupfer::{Array, DType, Result};

/// A filter of the image lab.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Filter {
    /// No filter.
    #[default]
    None,
    /// 3x3 box blur.
    Box3,
    /// 5x5 box blur.
    Box5,
    /// 5x5 Gaussian blur (sigma 1).
    Gaussian,
    /// 3x3 sharpen (the image plus its negative Laplacian).
    Sharpen,
    /// Sobel gradient magnitude of the luminance.
    Sobel,
    /// Gaussian low-pass in the frequency domain; the cut-off in cycles per pixel (0..0.5).
    LowPass(f64),
    /// Gaussian high-pass in the frequency domain (the detail, around mid grey).
    HighPass(f64),
}

impl Filter {
    /// The filter named `name` (none, box3, box5, gaussian, sharpen, sobel, lowpass,
    /// highpass); `cutoff` is the frequency filters' cut-off.
    pub fn parse(name: &str, cutoff: f64) -> Result<Filter> {
        Ok(match name {
            "" | "none" => Filter::None,
            "box3" => Filter::Box3,
            "box5" => Filter::Box5,
            "gaussian" => Filter::Gaussian,
            "sharpen" => Filter::Sharpen,
            "sobel" => Filter::Sobel,
            "lowpass" => Filter::LowPass(cutoff),
            "highpass" => Filter::HighPass(cutoff),
            _ => return Err(kp::Error::invalid(format!("unknown filter {name:?}"))),
        })
    }

    /// The names [`Filter::parse`] takes, in the page's order.
    pub const NAMES: [&'static str; 8] = [
        "none", "box3", "box5", "gaussian", "sharpen", "sobel", "lowpass", "highpass",
    ];
}

/// The 1-D Gaussian of sigma 1 on -2..=2, normalised to sum 1.
pub fn gauss5() -> [f32; 5] {
    let g: Vec<f64> = (-2..=2)
        .map(|x: i32| (-0.5 * (x * x) as f64).exp())
        .collect();
    let s: f64 = g.iter().sum();
    std::array::from_fn(|i| (g[i] / s) as f32)
}

/// The square convolution kernel of a kernel filter (None for the others).
pub fn kernel(f: Filter) -> Option<(Vec<f32>, usize)> {
    match f {
        Filter::Box3 => Some((vec![1.0 / 9.0; 9], 3)),
        Filter::Box5 => Some((vec![1.0 / 25.0; 25], 5)),
        Filter::Gaussian => {
            let g = gauss5();
            Some(((0..25).map(|i| g[i / 5] * g[i % 5]).collect(), 5))
        }
        Filter::Sharpen => Some((vec![0.0, -1.0, 0.0, -1.0, 5.0, -1.0, 0.0, -1.0, 0.0], 3)),
        _ => None,
    }
}

/// The Sobel kernel of the x derivative (its transpose is the y derivative's).
pub const SOBEL_X: [f32; 9] = [1.0, 0.0, -1.0, 2.0, 0.0, -2.0, 1.0, 0.0, -1.0];

// demo:begin filters
/// A kernel filter on one channel: SciPy's convolve2d, output the size of the input, the
/// image mirrored beyond its edges.
fn convolve(c: &Array, k: &[f32], n: usize) -> Result<Array> {
    let k = Array::from_slice(k, &[n, n])?;
    signal::convolve2d(c, &k, Mode::Same, Boundary::Symm, 0.0)
}

/// Sobel edge magnitude: two convolutions, sqrt(gx² + gy²) scaled into 0..1.
fn sobel(lum: &Array) -> Result<Array> {
    let kx = Array::from_slice(&SOBEL_X, &[3, 3])?;
    let gx = signal::convolve2d(lum, &kx, Mode::Same, Boundary::Symm, 0.0)?;
    let gy = signal::convolve2d(lum, &kx.t()?, Mode::Same, Boundary::Symm, 0.0)?;
    let mag = kp::sqrt(kp::add(kp::multiply(&gx, &gx)?, kp::multiply(&gy, &gy)?)?)?;
    kp::multiply(mag, 0.5)
}

/// Frequency filter: rfft2, times a Gaussian mask of the radial frequency, irfft2.
fn fourier(c: &Array, cutoff: f64, high: bool) -> Result<Array> {
    let (h, w) = (c.shape()[0], c.shape()[1]);
    let spec = fft::rfft2(c, None, None, Norm::Backward)?; // (h, w/2+1) complex64
    let fy = fft::fftfreq(h, 1.0)?
        .astype(DType::F32)?
        .reshape(&[h as isize, 1])?;
    let fx = fft::rfftfreq(w, 1.0)?
        .astype(DType::F32)?
        .reshape(&[1, -1])?;
    let r2 = kp::add(kp::multiply(&fy, &fy)?, kp::multiply(&fx, &fx)?)?; // broadcast
    let c2 = cutoff.max(1e-3).powi(2);
    let low = kp::exp(kp::multiply(r2, -0.5 / c2)?)?;
    let mask = if high { kp::subtract(1.0, low)? } else { low };
    let out = fft::irfft2(
        &kp::multiply(&spec, &mask)?,
        Some(&[h, w]),
        None,
        Norm::Backward,
    )?;
    if high {
        kp::add(out, 0.5) // detail around mid grey
    } else {
        Ok(out)
    }
}

/// Applies a per-channel filter (Sobel works on the luminance: see `imagelab::apply`).
pub fn channel(c: &Array, f: Filter) -> Result<Array> {
    match f {
        Filter::LowPass(cut) => fourier(c, cut, false),
        Filter::HighPass(cut) => fourier(c, cut, true),
        Filter::Sobel => sobel(c),
        _ => match kernel(f) {
            Some((k, n)) => convolve(c, &k, n),
            None => Ok(c.clone()),
        },
    }
}
// demo:end filters
