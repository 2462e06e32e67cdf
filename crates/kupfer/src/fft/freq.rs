//! Sample frequencies (`fftfreq`, `rfftfreq`) and the zero-frequency shifts (`fftshift`,
//! `ifftshift`, a circular shift kernel from `shaders/roll.wgsl`).

use crate::array::Array;
use crate::device::Device;
use kupfer_core::fft::ROLL_WGSL as ROLL;
use kupfer_core::layout::normalize_axis;
use kupfer_core::{DType, Error, Layout, Result};
use kupfer_wgpu::Binding;
use std::sync::Arc;

/// Checks `n` frequencies with spacing `d` before anything is built on the host: NumPy's
/// ZeroDivisionError for `d = 0`, and the adapter's largest buffer for `n`.
fn check(name: &str, n: usize, d: f64) -> Result<Device> {
    if d == 0.0 {
        return Err(Error::invalid(format!(
            "{name} with d = 0 (division by zero)"
        )));
    }
    let device = Device::current()?;
    let width = if device.default_float() == DType::F64 {
        8
    } else {
        4
    };
    let max = device.info().limits.max_buffer_size;
    if (n as u128) * width > u128::from(max) || n > u32::MAX as usize {
        return Err(Error::OutOfMemory(format!(
            "{name}: {n} frequencies exceed this adapter's largest buffer ({max} bytes)"
        )));
    }
    Ok(device)
}

fn freqs(device: &Device, values: Vec<f64>) -> Result<Array> {
    let n = values.len();
    if device.default_float() == DType::F64 {
        Array::from_slice_on(device, &values, &[n])
    } else {
        let v: Vec<f32> = values.iter().map(|&x| x as f32).collect();
        Array::from_slice_on(device, &v, &[n])
    }
}

/// The sample frequencies of an `n`-point FFT with sample spacing `d` (`numpy.fft.fftfreq`):
/// `[0, 1, ..., (n-1)/2, -(n/2), ..., -1] / (d * n)`, float64 (float32 without SHADER_F64).
pub fn fftfreq(n: usize, d: f64) -> Result<Array> {
    if n == 0 {
        return Err(Error::invalid("fftfreq of n = 0 (division by zero)"));
    }
    let device = check("fftfreq", n, d)?;
    let val = 1.0 / (n as f64 * d);
    let pos = (n - 1) / 2 + 1;
    let v = (0..n)
        .map(|i| {
            let k = if i < pos {
                i as f64
            } else {
                i as f64 - n as f64
            };
            k * val
        })
        .collect();
    freqs(&device, v)
}

/// The `n / 2 + 1` non-negative sample frequencies of [`super::rfft`] (`numpy.fft.rfftfreq`).
pub fn rfftfreq(n: usize, d: f64) -> Result<Array> {
    if n == 0 {
        return Err(Error::invalid("rfftfreq of n = 0 (division by zero)"));
    }
    let device = check("rfftfreq", n / 2 + 1, d)?;
    let val = 1.0 / (n as f64 * d);
    freqs(&device, (0..n / 2 + 1).map(|i| i as f64 * val).collect())
}

/// Moves the zero-frequency term to the centre along `axes` (default: all), as
/// `numpy.fft.fftshift`: a roll by `n / 2`.
pub fn fftshift(a: &Array, axes: Option<&[isize]>) -> Result<Array> {
    shift(a, axes, true)
}

/// Inverse of [`fftshift`] (`numpy.fft.ifftshift`): a roll by `-(n / 2)`.
pub fn ifftshift(a: &Array, axes: Option<&[isize]>) -> Result<Array> {
    shift(a, axes, false)
}

fn shift(a: &Array, axes: Option<&[isize]>, forward: bool) -> Result<Array> {
    let nd = a.ndim();
    let mut shifts = vec![0usize; nd];
    let axes: Vec<usize> = match axes {
        Some(ax) => ax
            .iter()
            .map(|&x| normalize_axis(x, nd))
            .collect::<Result<_>>()?,
        None => (0..nd).collect(),
    };
    for ax in axes {
        let s = a.shape()[ax];
        if s > 0 {
            let h = s / 2;
            shifts[ax] = (shifts[ax] + if forward { h } else { s - h }) % s;
        }
    }
    roll(a, &shifts)
}

/// `a` rolled by `shifts[d]` (each in `[0, shape[d])`) along every axis, C-contiguous.
fn roll(a: &Array, shifts: &[usize]) -> Result<Array> {
    if a.dtype() == DType::F16 {
        return roll(&a.astype(DType::F32)?, shifts)?.astype(DType::F16);
    }
    if shifts.iter().all(|&s| s == 0) || a.size() == 0 {
        return a.copy();
    }
    let (src, mut layout) = a.read_buffer_and_layout()?;
    let mut src = src;
    if layout.shape.len() > 8 {
        let c = a.ascontiguousarray()?;
        (src, layout) = c.read_buffer_and_layout()?;
        // Merge leading unshifted axes is not needed for correctness; refuse above rank 8.
        if layout.shape.len() > 8 {
            return Err(Error::unsupported(
                "fftshift of arrays with more than 8 axes",
            ));
        }
    }
    let device = a.device();
    let ctx = device.context();
    let words = (a.dtype().gpu_size() / 4) as u32;
    let count = a.size();
    let bytes = (count * a.dtype().gpu_size()) as u64;
    if count as u64 * u64::from(words) > u64::from(u32::MAX) || bytes > ctx.max_binding_size() {
        return Err(Error::unsupported("fftshift of an array this large"));
    }
    let out = Arc::new(ctx.alloc(bytes.div_ceil(16) * 16)?);
    let groups = count.div_ceil(256);
    let max_dim = ctx.max_workgroups_per_dim() as usize;
    let gx = groups.min(max_dim).max(1);
    let gy = groups.div_ceil(gx);
    let mut w: Vec<u32> = vec![
        count as u32,
        layout.shape.len() as u32,
        layout.offset as u32,
        words,
        gx as u32,
        0,
        0,
        0,
    ];
    let mut pad8 = |v: Vec<u32>| {
        let mut v = v;
        v.resize(8, 1);
        w.extend(v);
    };
    pad8(layout.shape.iter().map(|&s| s as u32).collect());
    pad8(layout.strides.iter().map(|&s| s as i64 as u32).collect());
    pad8(shifts.to_vec().iter().map(|&s| s as u32).collect());
    let bytes_p: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
    let pipeline = ctx.pipeline(ROLL)?;
    let size = src.size();
    ctx.dispatch(
        &pipeline,
        &bytes_p,
        vec![
            Binding {
                buffer: src,
                offset: 0,
                size,
            },
            Binding {
                buffer: out.clone(),
                offset: 0,
                size: bytes.div_ceil(16) * 16,
            },
        ],
        [gx as u32, gy as u32, 1],
    )?;
    Array::from_buffer(
        device.clone(),
        a.dtype(),
        out,
        Layout::contiguous(a.shape()),
    )
    .into_packed_result()
}
