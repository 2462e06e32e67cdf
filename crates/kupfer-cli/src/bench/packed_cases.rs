//! The packed small-integer cases (issue 24; no CuPy anchor section yet): uint8 images of
//! 2^26 elements stored four to a word. `uint8_affine_to_f32_2^26` is
//! `x.astype(float32) * 0.5 + 3` (reads n bytes, writes 4n), `uint8_add_2^26` is `x + y` in
//! uint8 (reads 2n bytes, writes n). `KUPFER_PACK=0` / `=unpack` time the word storage and
//! the unpacked-copy reads.

use super::cases::Measurement;
use super::{cpu_time, gpu_time, Timing};
use crate::common::HostRng;
use crate::error::CliResult;
use kupfer as kp;
use kupfer::{Array, DType};
use std::hint::black_box;

/// Elements of each image.
const N: usize = 1 << 26;

/// True for the cases of this module.
pub fn is_case(name: &str) -> bool {
    name.starts_with("uint8_")
}

/// Elements a case reads (for the size cap).
pub fn elements(_name: &str) -> usize {
    N
}

fn bytes_u8(seed: u64) -> Vec<u8> {
    let mut rng = HostRng::new(seed);
    (0..N).map(|_| rng.next_u64() as u8).collect()
}

/// Runs a case.
pub fn run(name: &str, t: &Timing) -> CliResult<Measurement> {
    let dev = &t.device;
    let hx = bytes_u8(5);
    let x = Array::from_slice_on(dev, &hx, &[N])?;
    match name {
        "uint8_affine_to_f32_2^26" => {
            let ms = gpu_time(t, 20, || {
                kp::add(kp::multiply(x.astype(DType::F32)?, 0.5f32)?, 3.0f32)
            })?;
            let cpu = t.cpu.then(|| {
                cpu_time(2, || {
                    let z: Vec<f32> = hx.iter().map(|&v| f32::from(v) * 0.5 + 3.0).collect();
                    black_box(z);
                })
            });
            Ok(Measurement::new(ms).n(N).gbs(5.0 * N as f64).cpu(cpu))
        }
        "uint8_add_2^26" => {
            let hy = bytes_u8(6);
            let y = Array::from_slice_on(dev, &hy, &[N])?;
            let ms = gpu_time(t, 20, || kp::add(&x, &y))?;
            let cpu = t.cpu.then(|| {
                cpu_time(2, || {
                    let z: Vec<u8> = hx
                        .iter()
                        .zip(&hy)
                        .map(|(a, b)| a.wrapping_add(*b))
                        .collect();
                    black_box(z);
                })
            });
            Ok(Measurement::new(ms).n(N).gbs(3.0 * N as f64).cpu(cpu))
        }
        other => unreachable!("{other} is not a packed case"),
    }
}
