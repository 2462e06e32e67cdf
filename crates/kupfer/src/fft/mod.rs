//! Discrete Fourier transforms, as `numpy.fft` / `cupy.fft`: [`fft`], [`ifft`], [`rfft`],
//! [`irfft`], [`hfft`], [`ihfft`], their 2-D and n-D forms, [`fftfreq`], [`rfftfreq`],
//! [`fftshift`], [`ifftshift`].
//!
//! Every length works: 2,3,5,7-smooth sizes run as Stockham passes in workgroup memory (one
//! dispatch when a line fits, a few passes beyond), other sizes as Bluestein's chirp-z
//! transform over a power-of-two size, O(n log n) everywhere. Any axis of an n-d array is
//! transformed, batched over the others; strided views are read in place (no copy) when the
//! axes before and after the transformed one each collapse to one stride. Plans (pass
//! schedule, twiddle tables, pipelines) are cached per device and size (`plan.rs`).
//! Twiddles are computed in f64 on the host and rounded once to f32.
//!
//! Precision follows the input, with kupfer's 32-bit rule: float32, float16, int32 and
//! complex64 input gives complex64 (`irfft`/`hfft`: float32); float64, int64 and complex128
//! input (adapters with SHADER_F64) transforms in double precision — complex128 values, f64
//! twiddle tables and scale factors — and gives complex128 (float64), as NumPy does.
//!
//! ```no_run
//! use kupfer as kp;
//! use kp::fft::Norm;
//! let x = kp::Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4])?;
//! let spec = kp::fft::rfft(&x, None, -1, Norm::Backward)?; // 3 complex64 values
//! let back = kp::fft::irfft(&spec, Some(4), -1, Norm::Backward)?; // [1, 2, 3, 4]
//! # Ok::<(), kp::Error>(())
//! ```

mod bluestein;
mod freq;
pub(crate) mod plan;

pub use freq::{fftfreq, fftshift, ifftshift, rfftfreq};

use crate::array::Array;
use kupfer_core::fft::LoadKind;
use kupfer_core::layout::normalize_axis;
use kupfer_core::{Error, Layout, Result};
use plan::{Job, Lines, Precision};

/// Normalisation of a transform pair, as NumPy's `norm=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Norm {
    /// No scaling forward, 1/n inverse (NumPy's default).
    #[default]
    Backward,
    /// 1/sqrt(n) both ways.
    Ortho,
    /// 1/n forward, no scaling inverse.
    Forward,
}

impl Norm {
    /// Parses NumPy's names (`"backward"`, `"ortho"`, `"forward"`).
    pub fn from_name(name: &str) -> Result<Norm> {
        match name {
            "backward" => Ok(Norm::Backward),
            "ortho" => Ok(Norm::Ortho),
            "forward" => Ok(Norm::Forward),
            _ => Err(Error::invalid(format!(
                "Invalid norm value {name}; should be \"backward\", \"ortho\" or \"forward\"."
            ))),
        }
    }

    fn swap(self) -> Norm {
        match self {
            Norm::Backward => Norm::Forward,
            Norm::Ortho => Norm::Ortho,
            Norm::Forward => Norm::Backward,
        }
    }

    /// The factor of a transform of length `n` in direction `forward`.
    fn scale(self, n: usize, forward: bool) -> f64 {
        let n = n as f64;
        match (self, forward) {
            (Norm::Ortho, _) => 1.0 / n.sqrt(),
            (Norm::Backward, true) | (Norm::Forward, false) => 1.0,
            _ => 1.0 / n,
        }
    }
}

/// Which 1-D transform runs along an axis.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Complex to complex.
    C2C,
    /// Real to the first n/2+1 complex values.
    R2C,
    /// Hermitian (n/2+1 complex values) to n real values.
    C2R,
}

/// Collapses `(size, stride)` dims to one stride when they are one C-order run (size-1 dims
/// ignored); `None` when they are not.
fn one_stride(dims: &[(usize, isize)]) -> Option<isize> {
    let live: Vec<_> = dims.iter().filter(|(s, _)| *s != 1).collect();
    for w in live.windows(2) {
        if w[0].1 != w[1].1 * w[1].0 as isize {
            return None;
        }
    }
    Some(live.last().map_or(0, |d| d.1))
}

fn bad_n(n: usize) -> Error {
    Error::invalid(format!(
        "Invalid number of FFT data points ({n}) specified."
    ))
}

/// One batched 1-D transform of `a` along `axis` (normalised), of logical length `n`.
fn transform(
    a: &Array,
    axis: usize,
    n: usize,
    kind: Kind,
    sgn: i8,
    scale: f64,
    conj_in: bool,
) -> Result<Array> {
    if n < 1 {
        return Err(bad_n(n));
    }
    let device = a.device().clone();
    // 64-bit input (float64, int64, complex128) transforms in double precision, the rest in
    // single (kupfer's 32-bit rule: float32 and int32 stay complex64).
    let precision = if a.dtype().is_64bit() {
        Precision::Double
    } else {
        Precision::Single
    };
    // Input dtype and load kind.
    let (src, load) = match kind {
        Kind::R2C => {
            if a.dtype().is_complex() {
                return Err(Error::invalid(format!(
                    "rfft/ihfft need real input (got {}); use fft",
                    a.dtype()
                )));
            }
            (a.astype(precision.real())?, LoadKind::Real)
        }
        Kind::C2C if !a.dtype().is_complex() => (a.astype(precision.real())?, LoadKind::Real),
        Kind::C2C => (a.astype(precision.complex())?, LoadKind::Complex),
        Kind::C2R => (a.astype(precision.complex())?, LoadKind::Hermitian),
    };
    let shape = src.shape().to_vec();
    let out_n = match kind {
        Kind::R2C => n / 2 + 1,
        _ => n,
    };
    let needed = match kind {
        Kind::C2R => n / 2 + 1,
        _ => n,
    };
    let mut out_shape = shape.clone();
    out_shape[axis] = out_n;
    let out_dtype = if kind == Kind::C2R {
        precision.real()
    } else {
        precision.complex()
    };
    let outer: usize = shape[..axis].iter().product();
    let inner: usize = shape[axis + 1..].iter().product();
    let lines = outer * inner;
    if lines == 0 {
        return crate::creation::full_on(&device, &out_shape, 0i64, Some(out_dtype));
    }
    let (mut buffer, mut layout) = src.read_buffer_and_layout()?;
    let strides = |l: &Layout| {
        let dims: Vec<(usize, isize)> = l.shape.iter().copied().zip(l.strides.clone()).collect();
        (
            one_stride(&dims[..axis]),
            one_stride(&dims[axis + 1..]),
            l.strides[axis],
        )
    };
    let (mut s_hi, mut s_lo, mut s_ax) = strides(&layout);
    if s_hi.is_none() || s_lo.is_none() {
        let c = src.ascontiguousarray()?;
        (buffer, layout) = c.read_buffer_and_layout()?;
        (s_hi, s_lo, s_ax) = strides(&layout);
    }
    let w = |s: isize| s as i64 as u32;
    let input = Lines {
        buffer,
        off: layout.offset as u32,
        stride: w(s_ax),
        shi: w(s_hi.unwrap_or(0)),
        slo: w(s_lo.unwrap_or(0)),
    };
    let out_elems = lines * out_n;
    let out_bytes = (out_elems * out_dtype.gpu_size()) as u64;
    plan::check_size(
        &device,
        out_bytes.max((lines * precision.complex_bytes()) as u64),
        precision,
    )?;
    let out_buffer = std::sync::Arc::new(device.context().alloc(out_bytes.div_ceil(16) * 16)?);
    let output = Lines {
        buffer: out_buffer.clone(),
        off: 0,
        stride: inner as u32,
        shi: (out_n * inner) as u32,
        slo: 1,
    };
    let job = Job {
        lines,
        blo: inner,
        input,
        in_len: shape[axis].min(needed),
        load,
        conj_in,
        output,
        out_len: out_n,
        store_real: kind == Kind::C2R,
        sgn,
        scale,
        nlog: n,
        // Real input: outputs 0 and n/2 are exactly real. NumPy stores +0 there in forward
        // transforms and -0 in ihfft (the conjugate of rfft); its ifft of real input carries
        // its own rounding noise there, so that one is left as computed.
        real_dc: match (load == LoadKind::Real, kind, sgn) {
            (true, Kind::R2C, -1) => Some((n, -0.0)),
            (true, _, 1) => Some((n, 0.0)),
            _ => None,
        },
    };
    let kind = plan::LineKind {
        strided: inner > 1,
        small: lines.saturating_mul(n) <= plan::SMALL_BATCH,
        mid: plan::MID_BATCH.contains(&lines.saturating_mul(n)),
        large: lines.saturating_mul(n) > *plan::MID_BATCH.end(),
    };
    let p = plan::plan(&device, n, sgn, kind, precision)?;
    p.run(&device, &job)?;
    Ok(Array::from_buffer(
        device,
        out_dtype,
        out_buffer,
        Layout::contiguous(&out_shape),
    ))
}

fn axis_of(a: &Array, axis: isize) -> Result<usize> {
    if a.ndim() == 0 {
        return Err(Error::invalid(
            "FFT of a 0-d array (it needs at least one axis)",
        ));
    }
    normalize_axis(axis, a.ndim())
}

fn check_n(n: Option<usize>) -> Result<()> {
    match n {
        Some(0) => Err(bad_n(0)),
        _ => Ok(()),
    }
}

/// 1-D discrete Fourier transform along `axis` (`numpy.fft.fft`): `n` crops or zero-pads the
/// axis (default: its length). Real input is read as complex with zero imaginary part.
///
/// ```no_run
/// use kupfer as kp;
/// let z = kp::Array::from_slice(&[kp::Complex32::new(1.0, 0.0); 8], &[8])?;
/// let f = kp::fft::fft(&z, None, -1, kp::fft::Norm::Backward)?; // [8, 0, 0, ...]
/// # Ok::<(), kp::Error>(())
/// ```
pub fn fft(a: &Array, n: Option<usize>, axis: isize, norm: Norm) -> Result<Array> {
    check_n(n)?;
    let ax = axis_of(a, axis)?;
    let n = n.unwrap_or(a.shape()[ax]);
    transform(a, ax, n, Kind::C2C, 1, norm.scale(n, true), false)
}

/// Inverse of [`fft`] (`numpy.fft.ifft`).
pub fn ifft(a: &Array, n: Option<usize>, axis: isize, norm: Norm) -> Result<Array> {
    check_n(n)?;
    let ax = axis_of(a, axis)?;
    let n = n.unwrap_or(a.shape()[ax]);
    transform(a, ax, n, Kind::C2C, -1, norm.scale(n, false), false)
}

/// FFT of real input, the `n / 2 + 1` non-negative frequencies (`numpy.fft.rfft`).
pub fn rfft(a: &Array, n: Option<usize>, axis: isize, norm: Norm) -> Result<Array> {
    check_n(n)?;
    let ax = axis_of(a, axis)?;
    let n = n.unwrap_or(a.shape()[ax]);
    transform(a, ax, n, Kind::R2C, 1, norm.scale(n, true), false)
}

/// Inverse of [`rfft`] (`numpy.fft.irfft`): `n` real outputs (default `2 * (m - 1)` for `m`
/// inputs); the imaginary parts of the zero and Nyquist terms are ignored. float32 result.
pub fn irfft(a: &Array, n: Option<usize>, axis: isize, norm: Norm) -> Result<Array> {
    check_n(n)?;
    let ax = axis_of(a, axis)?;
    let n = n.unwrap_or(2 * a.shape()[ax].saturating_sub(1));
    transform(a, ax, n, Kind::C2R, -1, norm.scale(n, false), false)
}

/// FFT of a Hermitian-symmetric signal given by its first half (`numpy.fft.hfft`): `n` real
/// outputs (default `2 * (m - 1)`). float32 result.
pub fn hfft(a: &Array, n: Option<usize>, axis: isize, norm: Norm) -> Result<Array> {
    check_n(n)?;
    let ax = axis_of(a, axis)?;
    let n = n.unwrap_or(2 * a.shape()[ax].saturating_sub(1));
    transform(a, ax, n, Kind::C2R, -1, norm.swap().scale(n, false), true)
}

/// Inverse of [`hfft`] (`numpy.fft.ihfft`): real input, `n / 2 + 1` complex outputs.
pub fn ihfft(a: &Array, n: Option<usize>, axis: isize, norm: Norm) -> Result<Array> {
    check_n(n)?;
    let ax = axis_of(a, axis)?;
    let n = n.unwrap_or(a.shape()[ax]);
    transform(a, ax, n, Kind::R2C, -1, norm.swap().scale(n, true), false)
}

/// The axes and lengths of an n-D transform, as NumPy resolves `s` and `axes`.
fn nd_axes(
    a: &Array,
    s: Option<&[usize]>,
    axes: Option<&[isize]>,
    default_n: impl Fn(usize, usize) -> usize,
) -> Result<Vec<(usize, usize)>> {
    let nd = a.ndim();
    let axes: Vec<isize> = match (axes, s) {
        (Some(ax), _) => ax.to_vec(),
        (None, Some(s)) => {
            if s.len() > nd {
                return Err(Error::invalid(format!(
                    "s has {} entries, more than the array's {nd} axes",
                    s.len()
                )));
            }
            ((nd - s.len())..nd).map(|i| i as isize).collect()
        }
        (None, None) => (0..nd as isize).collect(),
    };
    if let Some(s) = s
        && s.len() != axes.len()
    {
        return Err(Error::invalid("Shape and axes have different lengths."));
    }
    let last = axes.len().saturating_sub(1);
    axes.iter()
        .enumerate()
        .map(|(i, &ax)| {
            let ax = normalize_axis(ax, nd)?;
            let n = match s {
                Some(s) => s[i],
                None => default_n(a.shape()[ax], usize::from(i == last)),
            };
            if n < 1 {
                return Err(bad_n(n));
            }
            Ok((ax, n))
        })
        .collect()
}

fn c2c_nd(a: &Array, axes: &[(usize, usize)], sgn: i8, norm: Norm) -> Result<Array> {
    let mut cur = a.clone();
    for &(ax, n) in axes.iter().rev() {
        cur = transform(&cur, ax, n, Kind::C2C, sgn, norm.scale(n, sgn > 0), false)?;
    }
    if axes.is_empty() {
        cur = cur.astype(cur.dtype().complex_of())?;
    }
    Ok(cur)
}

/// n-D FFT over `axes` (default: all, or the last `s.len()`) with lengths `s`
/// (`numpy.fft.fftn`).
pub fn fftn(a: &Array, s: Option<&[usize]>, axes: Option<&[isize]>, norm: Norm) -> Result<Array> {
    let axes = nd_axes(a, s, axes, |len, _| len)?;
    c2c_nd(a, &axes, 1, norm)
}

/// Inverse of [`fftn`] (`numpy.fft.ifftn`).
pub fn ifftn(a: &Array, s: Option<&[usize]>, axes: Option<&[isize]>, norm: Norm) -> Result<Array> {
    let axes = nd_axes(a, s, axes, |len, _| len)?;
    c2c_nd(a, &axes, -1, norm)
}

/// n-D FFT of real input (`numpy.fft.rfftn`): [`rfft`] along the last of `axes`, then
/// [`fft`] along the others.
pub fn rfftn(a: &Array, s: Option<&[usize]>, axes: Option<&[isize]>, norm: Norm) -> Result<Array> {
    let axes = nd_axes(a, s, axes, |len, _| len)?;
    let Some(&(ax, n)) = axes.last() else {
        return Err(Error::invalid("rfftn needs at least one axis"));
    };
    let first = transform(a, ax, n, Kind::R2C, 1, norm.scale(n, true), false)?;
    c2c_nd(&first, &axes[..axes.len() - 1], 1, norm)
}

/// Inverse of [`rfftn`] (`numpy.fft.irfftn`): [`ifft`] along all but the last of `axes`,
/// then [`irfft`] along the last (default length `2 * (m - 1)`). float32 result.
pub fn irfftn(a: &Array, s: Option<&[usize]>, axes: Option<&[isize]>, norm: Norm) -> Result<Array> {
    let axes = nd_axes(a, s, axes, |len, last| {
        if last == 1 {
            2 * len.saturating_sub(1)
        } else {
            len
        }
    })?;
    let Some(&(ax, n)) = axes.last() else {
        return Err(Error::invalid("irfftn needs at least one axis"));
    };
    let mid = c2c_nd(a, &axes[..axes.len() - 1], -1, norm)?;
    transform(&mid, ax, n, Kind::C2R, -1, norm.scale(n, false), false)
}

const AXES2: [isize; 2] = [-2, -1];

/// 2-D FFT (`numpy.fft.fft2`; default axes `(-2, -1)`).
pub fn fft2(a: &Array, s: Option<&[usize]>, axes: Option<&[isize]>, norm: Norm) -> Result<Array> {
    fftn(a, s, Some(axes.unwrap_or(&AXES2)), norm)
}

/// Inverse of [`fft2`] (`numpy.fft.ifft2`).
pub fn ifft2(a: &Array, s: Option<&[usize]>, axes: Option<&[isize]>, norm: Norm) -> Result<Array> {
    ifftn(a, s, Some(axes.unwrap_or(&AXES2)), norm)
}

/// 2-D FFT of real input (`numpy.fft.rfft2`).
pub fn rfft2(a: &Array, s: Option<&[usize]>, axes: Option<&[isize]>, norm: Norm) -> Result<Array> {
    rfftn(a, s, Some(axes.unwrap_or(&AXES2)), norm)
}

/// Inverse of [`rfft2`] (`numpy.fft.irfft2`).
pub fn irfft2(a: &Array, s: Option<&[usize]>, axes: Option<&[isize]>, norm: Norm) -> Result<Array> {
    irfftn(a, s, Some(axes.unwrap_or(&AXES2)), norm)
}
