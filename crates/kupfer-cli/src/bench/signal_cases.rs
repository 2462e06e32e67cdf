//! The image convolution cases of the anchor (`convolve2d_1024_3x3`,
//! `convolve2d_4096_3x3`): the seed's box blur, `convolve2d(img, ones((3, 3)) / 9,
//! mode="same", boundary="symm")` on a random float32 image, with a single-threaded
//! plain-Rust direct convolution as the CPU reference.

use super::cases::Measurement;
use super::{gpu_time, Timing};
use crate::common::HostRng;
use crate::error::CliResult;
use kupfer::signal::{self, Boundary, Mode};
use kupfer::{Array, DType};
use std::hint::black_box;

/// The image side of a case.
pub fn side(name: &str) -> usize {
    match name {
        "convolve2d_1024_3x3" => 1024,
        _ => 4096,
    }
}

/// SciPy's symmetric extension of index `i` into `0..n` (edge repeated, period 2n).
fn symm(i: isize, n: usize) -> usize {
    let p = 2 * n as isize;
    let r = i.rem_euclid(p) as usize;
    if r < n {
        r
    } else {
        2 * n - 1 - r
    }
}

/// `convolve2d(img, k, mode="same", boundary="symm")` on the CPU (odd kernel sides).
pub fn cpu_convolve_same_symm(
    img: &[f32],
    h: usize,
    w: usize,
    k: &[f32],
    kh: usize,
    kw: usize,
) -> Vec<f32> {
    let (ch, cw) = ((kh / 2) as isize, (kw / 2) as isize);
    let mut out = vec![0.0f32; h * w];
    for m in 0..h {
        for n in 0..w {
            let mut acc = 0.0f32;
            for j in 0..kh {
                let r = symm(m as isize + ch - j as isize, h);
                for q in 0..kw {
                    let c = symm(n as isize + cw - q as isize, w);
                    acc += k[j * kw + q] * img[r * w + c];
                }
            }
            out[m * w + n] = acc;
        }
    }
    out
}

/// Runs a convolution case.
pub fn run(name: &str, t: &Timing) -> CliResult<Measurement> {
    let dev = &t.device;
    let s = side(name);
    let h = HostRng::new(8).uniform_f32(s * s);
    let img = Array::from_slice_on(dev, &h, &[s, s])?;
    let k3 = vec![1.0f32 / 9.0; 9];
    let k = Array::from_slice_on(dev, &k3, &[3, 3])?;
    debug_assert_eq!(k.dtype(), DType::F32);
    let ms = gpu_time(t, 20, || {
        signal::convolve2d(&img, &k, Mode::Same, Boundary::Symm, 0.0)
    })?;
    let c = t.cpu.then(|| {
        super::cpu_time(if s > 2048 { 2 } else { 5 }, || {
            black_box(cpu_convolve_same_symm(&h, s, s, &k3, 3, 3));
        })
    });
    Ok(Measurement::new(ms).cpu(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetric_extension_is_scipys() {
        let n = 3;
        let got: Vec<usize> = (-7..10).map(|i| symm(i, n)).collect();
        // ... c b a | a b c | c b a | a b c ...
        assert_eq!(got, vec![0, 0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 1, 0, 0, 1, 2, 2]);
    }

    #[test]
    fn box_blur_of_a_constant_is_the_constant() {
        let img = vec![2.0f32; 20];
        let k = vec![1.0f32 / 9.0; 9];
        for v in cpu_convolve_same_symm(&img, 4, 5, &k, 3, 3) {
            assert!((v - 2.0).abs() < 1e-6);
        }
    }
}
