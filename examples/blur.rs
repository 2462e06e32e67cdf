//! Image in, image out: the seed's box blur on the GPU.
//!
//! ```sh
//! cargo run --release --example blur -- photo.jpg blurred.png [SIZE]
//! ```
//!
//! Reads a PNG or JPEG, converts it to grayscale float32 in 0..255 as PIL's
//! `Image.convert("L")` does (ITU-R 601-2 luma, PIL's fixed-point rounding), blurs it with a
//! SIZE x SIZE box kernel (default 3) through `kupfer::signal::convolve2d(img, k,
//! mode="same", boundary="symm")` — CuPy's `cupyx.scipy.signal.convolve2d` — and writes an
//! 8-bit grayscale PNG (values rounded half to even and clipped to 0..255, as
//! `np.clip(np.rint(x), 0, 255).astype(np.uint8)`).

use kupfer as kp;
use kupfer::signal::{Boundary, Mode};
use std::error::Error;
use std::path::Path;

/// A grayscale image as float32 values in 0..255, row-major.
pub struct Gray {
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    /// `height * width` luma values.
    pub pixels: Vec<f32>,
}

/// PIL's "L" conversion of one RGB pixel: `(r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16`.
pub fn luma(r: u8, g: u8, b: u8) -> u8 {
    ((u32::from(r) * 19595 + u32::from(g) * 38470 + u32::from(b) * 7471 + 0x8000) >> 16) as u8
}

/// Reads a PNG or JPEG (format from the contents) as grayscale.
pub fn read_gray(path: &Path) -> Result<Gray, Box<dyn Error>> {
    let img = image::ImageReader::open(path)?
        .with_guessed_format()?
        .decode()?;
    let pixels: Vec<f32> = match &img {
        image::DynamicImage::ImageLuma8(g) => g.as_raw().iter().map(|&v| f32::from(v)).collect(),
        other => other
            .to_rgb8()
            .pixels()
            .map(|p| f32::from(luma(p[0], p[1], p[2])))
            .collect(),
    };
    Ok(Gray {
        width: img.width() as usize,
        height: img.height() as usize,
        pixels,
    })
}

/// The box blur on the GPU: `convolve2d(img, ones((size, size)) / size², "same", "symm")`.
pub fn blur(gray: &Gray, size: usize) -> kp::Result<Vec<f32>> {
    let img = kp::Array::from_slice(&gray.pixels, &[gray.height, gray.width])?;
    let k = kp::full(
        &[size, size],
        1.0 / (size * size) as f64,
        Some(kp::DType::F32),
    )?;
    kp::signal::convolve2d(&img, &k, Mode::Same, Boundary::Symm, 0.0)?.to_vec::<f32>()
}

/// Values rounded half to even and clipped to 0..255.
pub fn to_u8(values: &[f32]) -> Vec<u8> {
    values
        .iter()
        .map(|&v| v.round_ties_even().clamp(0.0, 255.0) as u8)
        .collect()
}

/// Reads `input`, blurs it with a `size` x `size` box kernel, writes `output` (PNG).
pub fn blur_file(input: &Path, output: &Path, size: usize) -> Result<(), Box<dyn Error>> {
    if size == 0 {
        return Err("the kernel size must be at least 1".into());
    }
    let gray = read_gray(input)?;
    if gray.width == 0 || gray.height == 0 {
        return Err(format!("{} has no pixels", input.display()).into());
    }
    let out = to_u8(&blur(&gray, size)?);
    image::GrayImage::from_raw(gray.width as u32, gray.height as u32, out)
        .ok_or("output buffer size")?
        .save_with_format(output, image::ImageFormat::Png)?;
    Ok(())
}

#[allow(dead_code)]
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 || args.len() > 3 {
        eprintln!("usage: blur INPUT(.png|.jpg) OUTPUT.png [SIZE (default 3)]");
        std::process::exit(2);
    }
    let size = match args.get(2).map(|s| s.parse::<usize>()) {
        None => 3,
        Some(Ok(n)) => n,
        Some(Err(_)) => {
            eprintln!("blur: SIZE must be a positive integer, got {:?}", args[2]);
            std::process::exit(2);
        }
    };
    let t0 = std::time::Instant::now();
    if let Err(e) = blur_file(Path::new(&args[0]), Path::new(&args[1]), size) {
        eprintln!("blur: {e}");
        std::process::exit(1);
    }
    println!(
        "{} -> {} ({size}x{size} box blur, mode=same, boundary=symm) in {:.1} ms",
        args[0],
        args[1],
        t0.elapsed().as_secs_f64() * 1e3
    );
}
