//! The Mandelbrot explorer: the seed's CuPy example done the kupfer way.
//!
//! CuPy updates `Z[mask]` through boolean indexing; kupfer keeps the whole grid and selects
//! with `where_`, which fuses: one iteration is one generated kernel per array it updates, and
//! escaped points stay frozen (so |z| never overflows). The smooth colouring is NumPy's
//! `n + 1 - log(log|z|) / log 2` at the iteration a point escapes.

use kupfer as kp;
use kupfer::{Array, DType, Result, Scalar};

/// A rectangle of the complex plane sampled on a `width × height` grid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View {
    /// Real part at the left edge.
    pub x_min: f64,
    /// Real part at the right edge.
    pub x_max: f64,
    /// Imaginary part at the top edge.
    pub y_min: f64,
    /// Imaginary part at the bottom edge.
    pub y_max: f64,
    /// Pixels across.
    pub width: usize,
    /// Pixels down.
    pub height: usize,
    /// Iterations before a point counts as inside the set.
    pub max_iter: usize,
}

impl View {
    /// The classic whole-set view.
    pub fn home(width: usize, height: usize, max_iter: usize) -> View {
        View {
            x_min: -2.2,
            x_max: 0.8,
            y_min: -1.2,
            y_max: 1.2,
            width,
            height,
            max_iter,
        }
    }
}

// demo:begin mandelbrot
/// Smooth escape counts, float32 of shape (height, width); 0 inside the set.
pub fn smooth_counts(v: &View) -> Result<Array> {
    // 1. The grid of c = x + iy, as in `cp.meshgrid(x, y)` (row = imaginary part).
    let x = kp::linspace(v.x_min, v.x_max, v.width, true, Some(DType::F32))?;
    let y = kp::linspace(v.y_min, v.y_max, v.height, true, Some(DType::F32))?;
    let g = kp::meshgrid(&[x, y], "xy")?;
    let i = Scalar::Complex { re: 0.0, im: 1.0 };
    let c = kp::add(&g[0], kp::multiply(&g[1], i)?)?; // complex64

    // 2. State: z, the smooth count, and which points are still iterating.
    let mut z = kp::zeros(c.shape(), Some(DType::Complex64))?;
    let mut smooth = kp::zeros(c.shape(), Some(DType::F32))?;
    let mut active = kp::ones(c.shape(), Some(DType::Bool))?;

    // 3. The iteration: where(mask, ...) instead of Z[mask] = ..., fused per step:
    //    one kernel for z, one each for the smooth count and the mask (no read-back).
    for n in 0..v.max_iter {
        z = kp::where_(&active, kp::add(kp::multiply(&z, &z)?, &c)?, &z)?;
        z.eval()?;
        let r = kp::abs(&z)?; // |z|, float32
        let escaped = kp::logical_and(kp::greater(&r, 2.0)?, &active)?;
        let mu = kp::subtract(
            (n + 1) as f64,
            kp::divide(kp::log(kp::log(&r)?)?, std::f64::consts::LN_2)?,
        )?;
        smooth = kp::where_(&escaped, mu, &smooth)?;
        active = kp::logical_and(&active, kp::logical_not(&escaped)?)?;
        smooth.eval()?;
        active.eval()?;
    }
    Ok(smooth)
}

/// Colours the smooth counts as packed RGBA (uint32, little-endian bytes R, G, B, A):
/// a cosine palette, black inside the set.
pub fn colour(smooth: &Array, max_iter: usize) -> Result<Array> {
    let t = kp::sqrt(kp::divide(smooth, max_iter as f64)?)?;
    let channel = |phase: f64| -> Result<Array> {
        // 0.5 + 0.5 cos(2π (3t + phase)) scaled to 0..255, as uint32
        let v = kp::cos(kp::multiply(
            kp::add(kp::multiply(&t, 3.0)?, phase)?,
            std::f64::consts::TAU,
        )?)?;
        let byte = kp::multiply(kp::add(kp::multiply(v, 0.5)?, 0.5)?, 255.0)?;
        let byte = kp::where_(kp::greater(smooth, 0.0)?, byte, 0.0)?;
        byte.astype(DType::U32)
    };
    let (r, g, b) = (channel(0.0)?, channel(0.1)?, channel(0.2)?);
    let rgba = kp::bitwise_or(r, kp::left_shift(g, 8u32)?)?;
    let rgba = kp::bitwise_or(rgba, kp::left_shift(b, 16u32)?)?;
    let rgba = kp::bitwise_or(rgba, 0xff00_0000u32)?;
    rgba.eval()?;
    Ok(rgba)
}
// demo:end mandelbrot

/// A rendered frame: RGBA bytes and the smooth counts behind them.
#[derive(Debug, Clone)]
pub struct Frame {
    /// `width * height * 4` bytes, row-major, ready for `ImageData`.
    pub rgba: Vec<u8>,
    /// The smooth escape counts (0 inside the set).
    pub smooth: Vec<f32>,
}

/// Computes and reads back one frame (no blocking: awaits the read-backs).
pub async fn render(v: &View) -> Result<Frame> {
    let smooth = smooth_counts(v)?;
    let rgba = colour(&smooth, v.max_iter)?;
    read_frame(&smooth, &rgba).await
}

/// Reads back a frame computed by [`smooth_counts`] and [`colour`].
pub async fn read_frame(smooth: &Array, rgba: &Array) -> Result<Frame> {
    let packed: Vec<u32> = rgba.to_vec_async().await?;
    let smooth: Vec<f32> = smooth.to_vec_async().await?;
    Ok(Frame {
        rgba: packed.iter().flat_map(|p| p.to_le_bytes()).collect(),
        smooth,
    })
}
