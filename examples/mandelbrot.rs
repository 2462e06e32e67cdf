//! The seed's `mandelbrot_cupy`, ported line by line: a complex grid, masked updates of the
//! active points (`Z[mask] = Z[mask] * Z[mask] + C[mask]`, one fused kernel), smooth escape
//! counts where points escape, and the early exit once no point is active. Writes a PNG.
//!
//! `cargo run --release --example mandelbrot -- [WIDTH HEIGHT MAX_ITER OUT.png]`

use kupfer as kp;
use kupfer::{Array, DType};

/// `mandelbrot_cupy(x_min, x_max, y_min, y_max, width, height, max_iter)`: the smooth
/// escape count of every point of a `width` x `height` grid (indexing "ij": shape
/// `(width, height)`), 0 where the point never escaped.
pub fn mandelbrot(
    x_min: f64,
    x_max: f64,
    y_min: f64,
    y_max: f64,
    width: usize,
    height: usize,
    max_iter: usize,
) -> kp::Result<Array> {
    // 1. Create coordinate grid on GPU
    let x = kp::linspace(x_min, x_max, width, true, Some(DType::F64))?;
    let y = kp::linspace(y_min, y_max, height, true, Some(DType::F64))?;
    let grid = kp::meshgrid(&[x, y], "ij")?;
    let (xg, yg) = (&grid[0], &grid[1]);

    // 2. Complex plane on GPU
    let c = kp::add(
        xg,
        &kp::multiply(kp::Scalar::Complex { re: 0.0, im: 1.0 }, yg)?,
    )?;
    c.eval()?;

    // 3. Initialize arrays on GPU
    let z = kp::zeros_like(&c, Some(DType::Complex128))?;
    z.eval()?;
    let mat = kp::zeros(c.shape(), Some(DType::F64))?;
    mat.eval()?;
    let mask = kp::ones(c.shape(), Some(DType::Bool))?;
    mask.eval()?;

    // 4. Vectorized iteration loop
    for n in 0..max_iter {
        // Update active points: Z[mask] = Z[mask] * Z[mask] + C[mask]
        z.update_masked(&mask, |m| Ok(&m.get(&z)? * &m.get(&z)? + &m.get(&c)?))?;

        // Check divergence
        let escaped = kp::greater(&kp::abs(&z)?, 2.0)?;
        let newly_escaped = kp::logical_and(&escaped, &mask)?;
        newly_escaped.eval()?;

        if kp::any(&newly_escaped, kp::Axis::All, false)?
            .item()?
            .as_f64()
            != 0.0
        {
            // Smooth coloring
            let z_new = z.get_mask(&newly_escaped)?;
            let smooth = kp::subtract(
                (n + 1) as f64,
                &kp::divide(&kp::log(&kp::log(&kp::abs(&z_new)?)?)?, 2f64.ln())?,
            )?;
            mat.set_mask(&newly_escaped, smooth)?;
            mask.set_mask(&newly_escaped, false)?;
        }

        if kp::any(&mask, kp::Axis::All, false)?.item()?.as_f64() == 0.0 {
            break;
        }
    }
    Ok(mat)
}

#[allow(dead_code)]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |k: usize, d: usize| args.get(k).and_then(|s| s.parse().ok()).unwrap_or(d);
    let (width, height, max_iter) = (arg(0, 600), arg(1, 400), arg(2, 100));
    let out = args
        .get(3)
        .cloned()
        .unwrap_or_else(|| "mandelbrot.png".into());
    let t0 = std::time::Instant::now();
    let mat = mandelbrot(-2.0, 1.0, -1.0, 1.0, width, height, max_iter)?;
    let values: Vec<f64> = mat.to_vec()?;
    println!(
        "{width}x{height}, {max_iter} iterations: {:.1} ms",
        t0.elapsed().as_secs_f64() * 1e3
    );
    // mat is (width, height) ("ij"); pixel (col, row) = mat[col, row].
    let top = values.iter().copied().fold(1.0f64, f64::max);
    let img = image::RgbImage::from_fn(width as u32, height as u32, |col, row| {
        let v = values[col as usize * height + row as usize];
        if v == 0.0 {
            return image::Rgb([0, 0, 0]);
        }
        let t = (v / top).clamp(0.0, 1.0).sqrt();
        image::Rgb([
            (255.0 * t) as u8,
            (255.0 * t * t) as u8,
            (128.0 + 127.0 * (1.0 - t)) as u8,
        ])
    });
    img.save(&out)?;
    println!("wrote {out}");
    Ok(())
}
