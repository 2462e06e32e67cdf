//! The image lab: elementwise adjustments, an edge filter built from shifted views, and the
//! convolution and FFT filters of [`crate::filters`].
//!
//! Pixels travel as packed RGBA (one uint32 per pixel, the bytes of `ImageData`): they are
//! unpacked into float32 channels with shifts and masks on the GPU, adjusted, and packed
//! again — no per-pixel work on the host.

use crate::filters::{self, Filter};
use kupfer as kp;
use kupfer::{s, Array, DType, Result};

/// The adjustments of the lab's sliders.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Adjust {
    /// Added to every channel (-1..1).
    pub brightness: f64,
    /// Gamma (> 0); 1 leaves the image as it is.
    pub gamma: f64,
    /// Luminance threshold (0..1); negative for none.
    pub threshold: f64,
    /// Replace the image by the magnitude of its luminance gradient.
    pub edges: bool,
    /// A convolution or FFT filter, after the tone adjustments (Sobel replaces the image by
    /// its edge magnitude).
    pub filter: Filter,
}

impl Default for Adjust {
    fn default() -> Self {
        Adjust {
            brightness: 0.0,
            gamma: 1.0,
            threshold: -1.0,
            edges: false,
            filter: Filter::None,
        }
    }
}

// demo:begin imagelab
/// Channel `k` (0 = red) of packed RGBA pixels as float32 in 0..1.
fn channel(px: &Array, k: u32) -> Result<Array> {
    let byte = kp::bitwise_and(kp::right_shift(px, 8 * k)?, 255u32)?;
    kp::divide(byte.astype(DType::F32)?, 255.0)
}

/// Packs float32 channels in 0..1 back into RGBA.
fn pack(r: &Array, g: &Array, b: &Array) -> Result<Array> {
    let byte = |c: &Array, k: u32| -> Result<Array> {
        let v = kp::multiply(kp::clip(c, 0.0, 1.0)?, 255.0)?;
        kp::left_shift(kp::round(v, 0)?.astype(DType::U32)?, 8 * k)
    };
    let rgba = kp::bitwise_or(byte(r, 0)?, byte(g, 1)?)?;
    kp::bitwise_or(kp::bitwise_or(rgba, byte(b, 2)?)?, 0xff00_0000u32)
}

/// The edge filter: central differences from four shifted views of the luminance (Sobel
/// without the smoothing); the result is two pixels smaller in each direction.
#[allow(clippy::reversed_empty_ranges)] // `s![1..-1]` is NumPy's [1:-1], not an empty range
fn edges(lum: &Array) -> Result<Array> {
    let gx = kp::subtract(lum.slice(&s![1..-1, 2..])?, lum.slice(&s![1..-1, ..-2])?)?;
    let gy = kp::subtract(lum.slice(&s![2.., 1..-1])?, lum.slice(&s![..-2, 1..-1])?)?;
    kp::sqrt(kp::add(kp::multiply(&gx, &gx)?, kp::multiply(&gy, &gy)?)?)
}

/// Applies `adj` to packed RGBA pixels of shape (height, width).
pub fn apply(px: &Array, adj: &Adjust) -> Result<Array> {
    let gamma = 1.0 / adj.gamma.max(1e-3);
    let tone = |c: Array| -> Result<Array> {
        let c = kp::clip(kp::add(c, adj.brightness)?, 0.0, 1.0)?;
        kp::power(c, gamma)
    };
    let (mut r, mut g, mut b) = (
        tone(channel(px, 0)?)?,
        tone(channel(px, 1)?)?,
        tone(channel(px, 2)?)?,
    );
    if !matches!(adj.filter, Filter::None | Filter::Sobel) {
        r = filters::channel(&r, adj.filter)?;
        g = filters::channel(&g, adj.filter)?;
        b = filters::channel(&b, adj.filter)?;
    }
    // Rec. 709 luminance
    let lum = kp::add(
        kp::add(kp::multiply(&r, 0.2126)?, kp::multiply(&g, 0.7152)?)?,
        kp::multiply(&b, 0.0722)?,
    )?;
    let out = if adj.filter == Filter::Sobel {
        lum.eval()?; // both convolutions read it
        let e = filters::channel(&lum, Filter::Sobel)?;
        pack(&e, &e, &e)?
    } else if adj.edges {
        lum.eval()?; // the four views below share one buffer
        let e = kp::multiply(edges(&lum)?, 2.0)?;
        pack(&e, &e, &e)?
    } else if adj.threshold >= 0.0 {
        let t = kp::where_(kp::greater(&lum, adj.threshold)?, 1.0, 0.0)?.astype(DType::F32)?;
        pack(&t, &t, &t)?
    } else {
        pack(&r, &g, &b)?
    };
    out.eval()?;
    Ok(out)
}
// demo:end imagelab

/// Packs RGBA bytes (as `ImageData` holds them) into one uint32 per pixel on the GPU.
pub fn upload(rgba: &[u8], width: usize, height: usize) -> Result<Array> {
    if rgba.len() != width * height * 4 {
        return Err(kp::Error::invalid(format!(
            "an RGBA image of {width}x{height} has {} bytes, got {}",
            width * height * 4,
            rgba.len()
        )));
    }
    let packed: Vec<u32> = rgba
        .chunks_exact(4)
        .map(|p| u32::from_le_bytes([p[0], p[1], p[2], p[3]]))
        .collect();
    Array::from_slice(&packed, &[height, width])
}

/// Reads packed RGBA back as bytes.
pub async fn download(px: &Array) -> Result<Vec<u8>> {
    let packed: Vec<u32> = px.to_vec_async().await?;
    Ok(packed.iter().flat_map(|p| p.to_le_bytes()).collect())
}

/// The bundled sample: a procedurally drawn landscape (sky, sun, hills, a checkered field),
/// RGBA bytes of `width × height`. Generated on the host so the page ships no image file.
pub fn sample(width: usize, height: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(width * height * 4);
    let (w, h) = (width.max(1) as f64, height.max(1) as f64);
    for j in 0..height {
        for i in 0..width {
            let (x, y) = (i as f64 / w, j as f64 / h);
            let hill1 = 0.62 + 0.08 * (x * 7.0).sin() + 0.03 * (x * 23.0 + 1.0).sin();
            let hill2 = 0.75 + 0.05 * (x * 4.0 + 2.0).cos();
            let sun = ((x - 0.72).powi(2) + (y - 0.28).powi(2)).sqrt();
            let (r, g, b) = if y > hill2 {
                let check = ((x * 16.0).floor() + (y * 24.0).floor()) as i64 % 2 == 0;
                if check {
                    (0.55, 0.42, 0.20)
                } else {
                    (0.35, 0.55, 0.22)
                }
            } else if y > hill1 {
                (0.18 + 0.2 * y, 0.42 + 0.1 * x, 0.2)
            } else if sun < 0.09 {
                (1.0, 0.85, 0.35)
            } else {
                let glow = (0.25 - sun).max(0.0) * 2.0;
                (
                    0.35 + glow + 0.3 * y,
                    0.55 + glow * 0.6 + 0.25 * y,
                    0.9 - 0.2 * y,
                )
            };
            for c in [r, g, b] {
                out.push((c.clamp(0.0, 1.0) * 255.0).round() as u8);
            }
            out.push(255);
        }
    }
    out
}
