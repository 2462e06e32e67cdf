//! The FFT cases of the anchor (`fft_c64`, `rfft_f32`, `fft_c64_batched_1024x4096`,
//! `fft2_c64_4096sq`, `fft_c64_nonpow2`) with their CPU reference: an iterative radix-2
//! Cooley-Tukey FFT in f32 with a precomputed twiddle table (Bluestein over it for other
//! sizes), single-threaded plain Rust.

use super::cases::Measurement;
use super::{gpu_time, Timing};
use crate::common::HostRng;
use crate::error::CliResult;
use kupfer::fft::{self, Norm};
use kupfer::{Array, Complex32};
use std::hint::black_box;

/// Sizes of `fft_c64` and `rfft_f32` (`for n in (1 << 12, 1 << 20, 1 << 24)`).
pub const POW2_SIZES: &[usize] = &[1 << 12, 1 << 20, 1 << 24];
/// Sizes of `fft_c64_nonpow2` (`for n in (1000, 1 << 20 | 1, 999983)`).
pub const NONPOW2_SIZES: &[usize] = &[1000, (1 << 20) | 1, 999983];

/// The sizes a case runs at (empty: one fixed-size run).
pub fn sizes(name: &str) -> &'static [usize] {
    match name {
        "fft_c64" | "rfft_f32" => POW2_SIZES,
        "fft_c64_nonpow2" => NONPOW2_SIZES,
        _ => &[],
    }
}

/// Elements of a fixed-size case (for the size cap).
pub fn fixed_elements(name: &str) -> usize {
    match name {
        "fft_c64_batched_1024x4096" => 1024 * 4096,
        _ => 4096 * 4096,
    }
}

type C = Complex32;

fn cmul(a: C, b: C) -> C {
    a * b
}

/// A radix-2 plan: bit-reversal and twiddles (computed in f64).
struct Pow2 {
    n: usize,
    tw: Vec<C>,
}

impl Pow2 {
    fn new(n: usize) -> Pow2 {
        let tw = (0..n / 2)
            .map(|k| {
                let a = -2.0 * std::f64::consts::PI * k as f64 / n as f64;
                C::new(a.cos() as f32, a.sin() as f32)
            })
            .collect();
        Pow2 { n, tw }
    }

    /// In-place forward FFT (`inverse`: conjugate twiddles, unscaled).
    fn run(&self, x: &mut [C], inverse: bool) {
        let n = self.n;
        let bits = n.trailing_zeros();
        if n > 1 {
            for i in 0..n {
                let j = i.reverse_bits() >> (usize::BITS - bits);
                if j > i {
                    x.swap(i, j);
                }
            }
        }
        let mut len = 2;
        while len <= n {
            let step = n / len;
            for start in (0..n).step_by(len) {
                for k in 0..len / 2 {
                    let mut w = self.tw[k * step];
                    if inverse {
                        w = w.conj();
                    }
                    let a = x[start + k];
                    let b = cmul(x[start + k + len / 2], w);
                    x[start + k] = a + b;
                    x[start + k + len / 2] = a - b;
                }
            }
            len <<= 1;
        }
    }
}

/// A CPU FFT of any size (radix-2, or Bluestein over radix-2).
struct CpuFft {
    n: usize,
    pow2: Pow2,
    chirp: Vec<C>,
    b: Vec<C>,
}

impl CpuFft {
    fn new(n: usize) -> CpuFft {
        if n.is_power_of_two() {
            return CpuFft {
                n,
                pow2: Pow2::new(n),
                chirp: Vec::new(),
                b: Vec::new(),
            };
        }
        let m = (2 * n - 1).next_power_of_two();
        let pow2 = Pow2::new(m);
        let chirp: Vec<C> = (0..n)
            .map(|j| {
                let k = (j as u128 * j as u128 % (2 * n as u128)) as f64;
                let a = -std::f64::consts::PI * k / n as f64;
                C::new(a.cos() as f32, a.sin() as f32)
            })
            .collect();
        let mut b = vec![C::new(0.0, 0.0); m];
        for j in 0..n {
            b[j] = chirp[j].conj();
            if j > 0 {
                b[m - j] = chirp[j].conj();
            }
        }
        pow2.run(&mut b, false);
        CpuFft { n, pow2, chirp, b }
    }

    fn run(&self, x: &[C]) -> Vec<C> {
        if self.chirp.is_empty() {
            let mut v = x.to_vec();
            self.pow2.run(&mut v, false);
            return v;
        }
        let m = self.b.len();
        let mut a = vec![C::new(0.0, 0.0); m];
        for j in 0..self.n {
            a[j] = x[j] * self.chirp[j];
        }
        self.pow2.run(&mut a, false);
        for (v, b) in a.iter_mut().zip(&self.b) {
            *v = *v * *b;
        }
        self.pow2.run(&mut a, true);
        let s = 1.0 / m as f32;
        (0..self.n).map(|k| a[k] * self.chirp[k] * s).collect()
    }
}

fn complex_input(seed: u64, n: usize, imag: bool) -> Vec<C> {
    let mut rng = HostRng::new(seed);
    let re = rng.uniform_f32(n);
    let im = if imag {
        rng.uniform_f32(n)
    } else {
        vec![0.0; n]
    };
    re.into_iter().zip(im).map(|(r, i)| C::new(r, i)).collect()
}

fn cpu(t: &Timing, reps: usize, f: impl FnMut()) -> Option<f64> {
    t.cpu.then(|| super::cpu_time(reps, f))
}

/// Runs an FFT case (`n` for the sized ones).
pub fn run(name: &str, n: Option<usize>, t: &Timing) -> CliResult<Measurement> {
    let dev = &t.device;
    let big = |n: usize| if n >= 1 << 22 { 2 } else { 5 };
    let m = match name {
        "fft_c64" => {
            let n = n.unwrap_or(POW2_SIZES[0]);
            let h = complex_input(3, n, true);
            let z = Array::from_slice_on(dev, &h, &[n])?;
            let ms = gpu_time(t, 20, || fft::fft(&z, None, -1, Norm::Backward))?;
            let plan = CpuFft::new(n);
            let c = cpu(t, big(n), || {
                black_box(plan.run(&h));
            });
            Measurement::new(ms).n(n).gbs(16.0 * n as f64).cpu(c)
        }
        "rfft_f32" => {
            let n = n.unwrap_or(POW2_SIZES[0]);
            let h = HostRng::new(4).uniform_f32(n);
            let r = Array::from_slice_on(dev, &h, &[n])?;
            let ms = gpu_time(t, 20, || fft::rfft(&r, None, -1, Norm::Backward))?;
            let plan = CpuFft::new(n);
            let hc: Vec<C> = h.iter().map(|&x| C::new(x, 0.0)).collect();
            let c = cpu(t, big(n), || {
                let mut v = plan.run(&hc);
                v.truncate(n / 2 + 1);
                black_box(v);
            });
            Measurement::new(ms).n(n).cpu(c)
        }
        "fft_c64_batched_1024x4096" => {
            let (rows, cols) = (1024, 4096);
            let h = complex_input(5, rows * cols, false);
            let z = Array::from_slice_on(dev, &h, &[rows, cols])?;
            let ms = gpu_time(t, 20, || fft::fft(&z, None, 1, Norm::Backward))?;
            let plan = CpuFft::new(cols);
            let c = cpu(t, 3, || {
                for row in h.chunks_exact(cols) {
                    black_box(plan.run(row));
                }
            });
            Measurement::new(ms).cpu(c)
        }
        "fft2_c64_4096sq" => {
            let s = 4096;
            let h = complex_input(6, s * s, false);
            let z = Array::from_slice_on(dev, &h, &[s, s])?;
            let ms = gpu_time(t, 20, || fft::fft2(&z, None, None, Norm::Backward))?;
            let plan = CpuFft::new(s);
            let c = cpu(t, 2, || {
                let mut rows: Vec<C> = h.chunks_exact(s).flat_map(|r| plan.run(r)).collect();
                let mut col = vec![C::new(0.0, 0.0); s];
                for j in 0..s {
                    for i in 0..s {
                        col[i] = rows[i * s + j];
                    }
                    let f = plan.run(&col);
                    for i in 0..s {
                        rows[i * s + j] = f[i];
                    }
                }
                black_box(rows);
            });
            Measurement::new(ms).cpu(c)
        }
        "fft_c64_nonpow2" => {
            let n = n.unwrap_or(NONPOW2_SIZES[0]);
            let h = complex_input(7, n, false);
            let z = Array::from_slice_on(dev, &h, &[n])?;
            let ms = gpu_time(t, 20, || fft::fft(&z, None, -1, Norm::Backward))?;
            let plan = CpuFft::new(n);
            let c = cpu(t, big(n), || {
                black_box(plan.run(&h));
            });
            Measurement::new(ms).n(n).cpu(c)
        }
        other => unreachable!("{other} is not an FFT case"),
    };
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dft(x: &[C]) -> Vec<C> {
        let n = x.len();
        (0..n)
            .map(|k| {
                x.iter().enumerate().fold(C::new(0.0, 0.0), |acc, (j, v)| {
                    let a = -2.0 * std::f64::consts::PI * ((j * k) % n) as f64 / n as f64;
                    acc + v * C::new(a.cos() as f32, a.sin() as f32)
                })
            })
            .collect()
    }

    #[test]
    fn cpu_reference_matches_a_dft() {
        for n in [1usize, 2, 8, 12, 17, 64, 100] {
            let x = complex_input(1, n, true);
            let want = dft(&x);
            let got = CpuFft::new(n).run(&x);
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).norm() < 1e-4 * (n as f32), "n={n}: {g} vs {w}");
            }
        }
    }
}
