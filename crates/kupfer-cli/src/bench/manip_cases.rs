//! The array-manipulation cases of `shared/bench/cupy_anchor_wave2.py` (section `index`):
//! concatenate_4x2^24, stack_axis1_4x2^24 (four random float32 vectors of 2^24 elements),
//! pad_reflect_4096sq (pad 16), roll_axis1_4096sq (shift 7), flip_copy_4096sq and
//! tril_4096sq (a random float32 4096 x 4096 matrix), each with a plain-Rust CPU reference;
//! and the packed uint8 cases (`packed_cases`).

use super::cases::Measurement;
use super::{cpu_time, gpu_time, Timing};
use crate::common::HostRng;
use crate::error::CliResult;
use kupfer as kp;
use kupfer::{Array, PadMode};
use std::hint::black_box;

/// Elements of each vector of the joining cases.
const PART: usize = 1 << 24;
/// Vectors joined.
const PARTS: usize = 4;
/// Side of the matrix cases.
const SIDE: usize = 4096;

/// Elements a case reads (for the size cap).
pub fn elements(name: &str) -> usize {
    if super::packed_cases::is_case(name) {
        return super::packed_cases::elements(name);
    }
    if name.ends_with("4x2^24") {
        PARTS * PART
    } else {
        SIDE * SIDE
    }
}

/// NumPy's reflect index of `i` (may be outside `0..n`) into `0..n`.
fn reflect(i: isize, n: usize) -> usize {
    let p = 2 * n as isize - 2;
    let r = i.rem_euclid(p) as usize;
    if r < n {
        r
    } else {
        p as usize - r
    }
}

/// Runs a case.
pub fn run(name: &str, t: &Timing) -> CliResult<Measurement> {
    if super::packed_cases::is_case(name) {
        return super::packed_cases::run(name, t);
    }
    let dev = &t.device;
    let cpu_reps = 2;
    if name.ends_with("4x2^24") {
        let mut rng = HostRng::new(11);
        let host: Vec<Vec<f32>> = (0..PARTS).map(|_| rng.uniform_f32(PART)).collect();
        let parts = host
            .iter()
            .map(|h| Array::from_slice_on(dev, h, &[PART]))
            .collect::<kp::Result<Vec<_>>>()?;
        let bytes = 2.0 * (PARTS * 4 * PART) as f64;
        let stack = name.starts_with("stack");
        let ms = if stack {
            gpu_time(t, 20, || kp::stack(&parts, 1, None))?
        } else {
            gpu_time(t, 20, || kp::concatenate(&parts, Some(0), None))?
        };
        let c = t.cpu.then(|| {
            cpu_time(cpu_reps, || {
                let mut out = Vec::with_capacity(PARTS * PART);
                if stack {
                    for i in 0..PART {
                        out.extend(host.iter().map(|h| h[i]));
                    }
                } else {
                    for h in &host {
                        out.extend_from_slice(h);
                    }
                }
                black_box(out);
            })
        });
        return Ok(Measurement::new(ms).gbs(bytes).cpu(c));
    }
    let n = SIDE;
    let hm = HostRng::new(1).uniform_f32(n * n);
    let m = Array::from_slice_on(dev, &hm, &[n, n])?;
    let (ms, c) = match name {
        "pad_reflect_4096sq" => {
            let p = 16;
            let ms = gpu_time(t, 20, || kp::pad(&m, &[(p, p)], &PadMode::Reflect))?;
            let c = t.cpu.then(|| {
                cpu_time(cpu_reps, || {
                    let w = n + 2 * p;
                    let mut out = vec![0f32; w * w];
                    for (i, row) in out.chunks_exact_mut(w).enumerate() {
                        let src = &hm[reflect(i as isize - p as isize, n) * n..][..n];
                        for (j, o) in row.iter_mut().enumerate() {
                            *o = src[reflect(j as isize - p as isize, n)];
                        }
                    }
                    black_box(out);
                })
            });
            (ms, c)
        }
        "roll_axis1_4096sq" => {
            let ms = gpu_time(t, 20, || kp::roll(&m, &[7], Some(&[1])))?;
            let c = t.cpu.then(|| {
                cpu_time(cpu_reps, || {
                    let mut out = vec![0f32; n * n];
                    for (o, row) in out.chunks_exact_mut(n).zip(hm.chunks_exact(n)) {
                        o[7..].copy_from_slice(&row[..n - 7]);
                        o[..7].copy_from_slice(&row[n - 7..]);
                    }
                    black_box(out);
                })
            });
            (ms, c)
        }
        "flip_copy_4096sq" => {
            let ms = gpu_time(t, 20, || kp::flip(&m, Some(&[0]))?.copy())?;
            let c = t.cpu.then(|| {
                cpu_time(cpu_reps, || {
                    let out: Vec<f32> = hm.chunks_exact(n).rev().flatten().copied().collect();
                    black_box(out);
                })
            });
            (ms, c)
        }
        "tril_4096sq" => {
            let ms = gpu_time(t, 20, || kp::tril(&m, 0))?;
            let c = t.cpu.then(|| {
                cpu_time(cpu_reps, || {
                    let mut out = hm.clone();
                    for (i, row) in out.chunks_exact_mut(n).enumerate() {
                        row[i + 1..].fill(0.0);
                    }
                    black_box(out);
                })
            });
            (ms, c)
        }
        other => unreachable!("{other} is not a manipulation case"),
    };
    Ok(Measurement::new(ms).cpu(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reflection_is_numpys() {
        // np.pad(np.arange(3), 4, mode='reflect') = [2 1 0 1 | 0 1 2 | 1 0 1 2]
        let got: Vec<usize> = (-4..7).map(|i| reflect(i, 3)).collect();
        assert_eq!(got, vec![0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2]);
    }
}
