//! The packed small-integer cases (issue 24; no CuPy anchor section yet): uint8 images of
//! 2^26 elements stored four to a word. `uint8_affine_to_f32_2^26` is
//! `x.astype(float32) * 0.5 + 3` (reads n bytes, writes 4n), `uint8_add_2^26` is `x + y` in
//! uint8 (reads 2n bytes, writes n). `uint8_sort_2^24` sorts a packed array (an unpacked
//! copy in, a packed result out), `uint8_setitem_strided_2^26` writes every other element in
//! place (atomics on packed words), `uint8_setitem_contiguous_2^26` a contiguous range of
//! whole words (one word-wise write; `KUPFER_PACKED_SET=old`: packed by a fused kernel, then
//! copied) and `uint8_add_at_2^26` is `np.add.at` with 2^22 random indices (both update packed
//! words atomically). `KUPFER_PACK=0` / `=unpack` / `=convert` time the word storage, the
//! unpacked-copy reads of fused kernels and the old convert-for-good families.

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
        "uint8_sort_2^24" => {
            let m = 1usize << 24;
            let xs = Array::from_slice_on(dev, &hx[..m], &[m])?;
            let ms = gpu_time(t, 10, || kp::sort(&xs, Some(-1), None))?;
            let cpu = t.cpu.then(|| {
                cpu_time(2, || {
                    let mut z = hx[..m].to_vec();
                    z.sort_unstable();
                    black_box(z);
                })
            });
            Ok(Measurement::new(ms).n(m).gbs(2.0 * m as f64).cpu(cpu))
        }
        "uint8_setitem_strided_2^26" => {
            let ms = gpu_time(t, 20, || {
                x.set(&kp::idx![1..;2], 7)?;
                Ok(x.clone())
            })?;
            let cpu = t.cpu.then(|| {
                let mut z = hx.clone();
                cpu_time(2, || {
                    z.iter_mut().skip(1).step_by(2).for_each(|v| *v = 7);
                    black_box(&z);
                })
            });
            Ok(Measurement::new(ms).n(N / 2).gbs(2.0 * N as f64).cpu(cpu))
        }
        "uint8_setitem_contiguous_2^26" => {
            let hy = bytes_u8(6);
            let y = Array::from_slice_on(dev, &hy, &[N])?;
            let tail = y.slice(&kp::s![4..])?;
            let ms = gpu_time(t, 20, || {
                x.set(&kp::idx![4..], &tail)?;
                Ok(x.clone())
            })?;
            let cpu = t.cpu.then(|| {
                let mut z = hx.clone();
                cpu_time(2, || {
                    z[4..].copy_from_slice(&hy[4..]);
                    black_box(&z);
                })
            });
            Ok(Measurement::new(ms).n(N - 4).gbs(2.0 * N as f64).cpu(cpu))
        }
        "uint8_add_at_2^26" => {
            let m = 1usize << 22;
            let mut rng = HostRng::new(7);
            let hidx: Vec<i64> = (0..m).map(|_| (rng.next_u64() % N as u64) as i64).collect();
            let idx = Array::from_slice_on(dev, &hidx, &[m])?;
            let ms = gpu_time(t, 20, || {
                kp::ufunc_at(kp::AtOp::Add, &x, &[kp::Index::Array(idx.clone())], 1)?;
                Ok(x.clone())
            })?;
            let cpu = t.cpu.then(|| {
                let mut z = hx.clone();
                cpu_time(2, || {
                    for &i in &hidx {
                        z[i as usize] = z[i as usize].wrapping_add(1);
                    }
                    black_box(&z);
                })
            });
            Ok(Measurement::new(ms).n(m).gbs(12.0 * m as f64).cpu(cpu))
        }
        other => unreachable!("{other} is not a packed case"),
    }
}
