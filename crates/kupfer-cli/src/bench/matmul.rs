//! The matmul cases of the anchor (`matmul_float32` / `matmul_float16` at n = 1024, 4096,
//! 8192 with `tflops`; `batched_matmul_64x256` with `tflops`; `gemv_4096` with `gbs`), with a
//! plain-Rust CPU reference (a cache-blocked i-k-j product) where it finishes in seconds; and
//! `matmul_epilogue_float32`, `(a @ b) * 2 + c` (not an anchor case: CuPy runs it as three
//! kernels, kupfer as one); `matmul_float64` and `matmul_complex64` (not anchor cases:
//! NumPy's default dtype, and the complex products of signal processing).

use super::cases::{Case, Measurement};
use super::{cpu_time, gpu_time, Timing};
use crate::common::HostRng;
use crate::error::CliResult;
use kupfer as kp;
use kupfer::{Array, DType};
use std::hint::black_box;

/// Matrix sides of the square matmul cases.
pub const MATMUL_SIZES: &[usize] = &[1024, 4096, 8192];

/// Largest side whose CPU reference is timed (8 GFLOP at most in plain Rust).
const CPU_MAX_SIDE: usize = 1024;

/// C += A @ B for row-major n x k and k x m blocks (i-k-j order: contiguous inner loop).
fn cpu_matmul<T>(a: &[T], b: &[T], c: &mut [T], n: usize, k: usize, m: usize)
where
    T: Copy + std::ops::Mul<Output = T> + std::ops::AddAssign,
{
    for i in 0..n {
        let row = &mut c[i * m..(i + 1) * m];
        for p in 0..k {
            let x = a[i * k + p];
            for (o, y) in row.iter_mut().zip(&b[p * m..(p + 1) * m]) {
                *o += x * *y;
            }
        }
    }
}

/// Milliseconds of the CPU reference of an n x n product of row-major `a` and `b`.
fn cpu_reference<T>(a: &[T], b: &[T], n: usize) -> f64
where
    T: Copy + Default + std::ops::Mul<Output = T> + std::ops::AddAssign,
{
    cpu_time(1, || {
        let mut c = vec![T::default(); n * n];
        cpu_matmul(a, b, &mut c, n, n, n);
        black_box(c);
    })
}

fn random(dev: &kp::Device, seed: u64, shape: &[usize]) -> CliResult<(Vec<f32>, Array)> {
    let n = shape.iter().product();
    let h = HostRng::new(seed).uniform_f32(n);
    let a = Array::from_slice_on(dev, &h, shape)?;
    Ok((h, a))
}

/// The dtype a case needs beyond the ones every adapter has (its run is left out without it).
pub fn needs_dtype(case: &str) -> Option<DType> {
    (case == "matmul_float64").then_some(DType::F64)
}

/// Runs a matmul case (`n` the matrix side of the square cases).
pub fn run(case: &Case, n: usize, t: &Timing) -> CliResult<Measurement> {
    let dev = &t.device;
    let _guard = dev.use_device();
    let tf32 = std::env::var("KUPFER_TF32").unwrap_or_else(|_| "0".into());
    let r = match case.name {
        "matmul_float32" | "matmul_float16" | "matmul_float64" => {
            let (ha, a) = random(dev, 10, &[n, n])?;
            let (hb, b) = random(dev, 11, &[n, n])?;
            let (a, b) = match case.name {
                "matmul_float16" => (a.astype(DType::F16)?, b.astype(DType::F16)?),
                "matmul_float64" => (a.astype(DType::F64)?, b.astype(DType::F64)?),
                _ => (a, b),
            };
            a.eval()?;
            b.eval()?;
            let ms = gpu_time(t, 10, || kp::matmul(&a, &b))?;
            let cpu = (t.cpu && n <= CPU_MAX_SIDE).then(|| {
                if case.name == "matmul_float64" {
                    let wide = |v: &[f32]| v.iter().map(|&x| f64::from(x)).collect::<Vec<_>>();
                    cpu_reference(&wide(&ha), &wide(&hb), n)
                } else {
                    cpu_reference(&ha, &hb, n)
                }
            });
            Measurement::new(ms)
                .n(n)
                .tflops(2.0 * (n as f64).powi(3))
                .extra("tf32", tf32)
                .cpu(cpu)
        }
        "matmul_complex64" => {
            let (hr, re) = random(dev, 12, &[n, n])?;
            let (hi, im) = random(dev, 13, &[n, n])?;
            let i = kp::Scalar::Complex { re: 0.0, im: 1.0 };
            let a = kp::add(&re.astype(DType::Complex64)?, &kp::multiply(&im, i)?)?;
            let b = kp::multiply(&a.t()?, 0.5)?;
            a.eval()?;
            b.eval()?;
            let ms = gpu_time(t, 10, || kp::matmul(&a, &b))?;
            let cpu = (t.cpu && n <= CPU_MAX_SIDE).then(|| {
                let ha: Vec<kp::Complex32> = hr
                    .iter()
                    .zip(&hi)
                    .map(|(&r, &i)| kp::Complex32::new(r, i))
                    .collect();
                let hb: Vec<kp::Complex32> =
                    (0..n * n).map(|x| ha[(x % n) * n + x / n] * 0.5).collect();
                cpu_reference(&ha, &hb, n)
            });
            Measurement::new(ms)
                .n(n)
                .tflops(8.0 * (n as f64).powi(3))
                .cpu(cpu)
        }
        "matmul_epilogue_float32" => {
            let (_, a) = random(dev, 15, &[n, n])?;
            let (_, b) = random(dev, 16, &[n, n])?;
            let (_, c) = random(dev, 17, &[n, n])?;
            let ms = gpu_time(t, 10, || Ok(&kp::matmul(&a, &b)? * 2.0 + &c))?;
            Measurement::new(ms)
                .n(n)
                .tflops(2.0 * (n as f64).powi(3))
                .extra("tf32", tf32)
        }
        "batched_matmul_64x256" => {
            let (hm, m) = random(dev, 12, &[64, 256, 256])?;
            let ms = gpu_time(t, 20, || kp::matmul(&m, &m))?;
            let cpu = t.cpu.then(|| {
                cpu_time(1, || {
                    let mut c = vec![0f32; 64 * 256 * 256];
                    for (z, cz) in c.chunks_exact_mut(256 * 256).enumerate() {
                        let mz = &hm[z * 256 * 256..(z + 1) * 256 * 256];
                        cpu_matmul(mz, mz, cz, 256, 256, 256);
                    }
                    black_box(c);
                })
            });
            Measurement::new(ms)
                .tflops(64.0 * 2.0 * 256f64.powi(3))
                .cpu(cpu)
        }
        "gemv_4096" => {
            let (hv, v) = random(dev, 13, &[4096])?;
            let (ha, a) = random(dev, 14, &[4096, 4096])?;
            let ms = gpu_time(t, 20, || kp::matmul(&a, &v))?;
            let cpu = t.cpu.then(|| {
                cpu_time(10, || {
                    let out: Vec<f32> = ha
                        .chunks_exact(4096)
                        .map(|r| r.iter().zip(&hv).map(|(x, y)| x * y).sum())
                        .collect();
                    black_box(out);
                })
            });
            Measurement::new(ms).gbs(4.0 * 4096.0 * 4096.0).cpu(cpu)
        }
        other => unreachable!("{other} is not a matmul case"),
    };
    Ok(r)
}
