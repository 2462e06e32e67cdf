//! The random-number cases of the anchor (`cupy_anchor_wave2.py`, section `random`): rand,
//! randn, integers (0..1000, int32) and exponential at n = 2^20, 2^24, 2^26;
//! rand_affine_2^26 (`rng.random(n) * 2 - 1`, one fused kernel); permutation, gamma (shape 2)
//! and poisson (lam 3) at 2^24; choice_noreplace_2^20. The CPU reference of rand and randn is
//! kupfer's own Philox4x32-10 and transforms in plain single-threaded Rust.

use super::cases::Measurement;
use super::{cpu_time, gpu_time, Timing};
use crate::error::CliResult;
use kupfer::random::{default_rng, philox};
use kupfer::DType;
use std::hint::black_box;

/// The sizes a case runs at (empty: one fixed size).
pub fn sizes(name: &str) -> &'static [usize] {
    match name {
        "rand" | "randn" | "integers" | "exponential" => super::cases::VECTOR_SIZES,
        _ => &[],
    }
}

/// Elements of a fixed-size case.
pub fn fixed_elements(name: &str) -> usize {
    match name {
        "rand_affine_2^26" => 1 << 26,
        "choice_noreplace_2^20" => 1 << 20,
        _ => 1 << 24,
    }
}

/// Runs a random case at `n` elements (`None`: its fixed size).
pub fn run(name: &str, n: Option<usize>, t: &Timing) -> CliResult<Measurement> {
    let n = n.unwrap_or_else(|| fixed_elements(name));
    let rng = default_rng(Some(0));
    let key = philox::seed_key(0);
    let cpu_uniform = |n: usize| {
        t.cpu.then(|| {
            cpu_time(if n >= 1 << 24 { 2 } else { 5 }, || {
                let v: Vec<f32> = (0..n as u32)
                    .map(|e| philox::u01_f32(philox::stream_word(key, 0, e, 0)))
                    .collect();
                black_box(v);
            })
        })
    };
    let bytes = 4.0 * n as f64;
    Ok(match name {
        "rand" => {
            let ms = gpu_time(t, 20, || rng.random(&[n], Some(DType::F32)))?;
            Measurement::new(ms).n(n).gbs(bytes).cpu(cpu_uniform(n))
        }
        "randn" => {
            let ms = gpu_time(t, 20, || rng.standard_normal(&[n], Some(DType::F32)))?;
            let cpu = t.cpu.then(|| {
                cpu_time(if n >= 1 << 24 { 2 } else { 5 }, || {
                    let v: Vec<f64> = (0..n as u32)
                        .map(|e| {
                            philox::reference(philox::RandomOp::Normal, DType::F32, key, 0, e, 0)
                        })
                        .collect();
                    black_box(v);
                })
            });
            Measurement::new(ms).n(n).gbs(bytes).cpu(cpu)
        }
        "integers" => {
            let ms = gpu_time(t, 20, || {
                rng.integers(0, Some(1000), &[n], Some(DType::I32), false)
            })?;
            Measurement::new(ms).n(n)
        }
        "exponential" => {
            let ms = gpu_time(t, 20, || rng.standard_exponential(&[n], Some(DType::F32)))?;
            Measurement::new(ms).n(n)
        }
        "rand_affine_2^26" => {
            let ms = gpu_time(t, 20, || {
                let x = rng.random(&[n], Some(DType::F32))?;
                Ok(&x * 2.0 - 1.0)
            })?;
            Measurement::new(ms)
        }
        "permutation" => Measurement::new(gpu_time(t, 10, || rng.permutation(n))?).n(n),
        "gamma" => {
            let ms = gpu_time(t, 20, || rng.standard_gamma(2.0, Some(&[n]), None))?;
            Measurement::new(ms).n(n)
        }
        "poisson" => Measurement::new(gpu_time(t, 20, || rng.poisson(3.0, Some(&[n])))?).n(n),
        "choice_noreplace_2^20" => Measurement::new(gpu_time(t, 5, || rng.choice(n, &[n], false))?),
        other => unreachable!("{other} is not a random case"),
    })
}
