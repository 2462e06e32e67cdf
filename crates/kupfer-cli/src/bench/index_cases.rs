//! The indexing cases of `shared/bench/cupy_anchor_wave2.py` (section `index`):
//! `mask_select` (`x[x > 0.5]`), `mask_assign_scalar` (`y[y > 0.5] = 0.0`), `take_random`
//! (`x[idx]`, random int32 indices), `nonzero` (`nonzero(x > 0.5)`) at 2^20, 2^24 and 2^26;
//! `mask_update_mandelbrot_2048sq` (`Z[mask] = Z[mask] * Z[mask] + C[mask]`, complex64, the
//! fused in-place update) and `take_rows_4096sq` (`m[rows]`, 4096 random rows). CPU
//! references in plain Rust.

use super::cases::Measurement;
use super::{gpu_time, Timing};
use crate::common::HostRng;
use crate::error::CliResult;
use kupfer as kp;
use kupfer::{Array, DType, Index};
use serde_json::Value;
use std::hint::black_box;

/// The sizes of a case (empty: one fixed size).
pub fn sizes(name: &str) -> &'static [usize] {
    match name {
        "mask_update_mandelbrot_2048sq" | "take_rows_4096sq" => &[],
        _ => super::cases::VECTOR_SIZES,
    }
}

/// Elements of a fixed-size case.
pub fn fixed_elements(name: &str) -> usize {
    match name {
        "mask_update_mandelbrot_2048sq" => 2048 * 2048,
        _ => 4096 * 4096,
    }
}

fn random_indices(rng: &mut HostRng, n: usize, bound: usize) -> Vec<i32> {
    (0..n)
        .map(|_| (rng.next_u64() % bound as u64) as i32)
        .collect()
}

/// Runs one case (`n` for the sized ones).
pub fn run(name: &str, n: Option<usize>, t: &Timing) -> CliResult<Measurement> {
    let dev = &t.device;
    let mut rng = HostRng::new(23);
    match name {
        "mask_select" | "mask_assign_scalar" | "take_random" | "nonzero" => {
            let n = n.unwrap_or(1 << 20);
            let hx = rng.uniform_f32(n);
            let x = Array::from_slice_on(dev, &hx, &[n])?;
            let (ms, cpu, gbs) = match name {
                "mask_select" => {
                    let ms = gpu_time(t, 20, || x.get(&[Index::Array(kp::greater(&x, 0.5)?)]))?;
                    let c = t.cpu.then(|| {
                        super::cpu_time(5, || {
                            black_box(
                                hx.iter()
                                    .copied()
                                    .filter(|&v| v > 0.5)
                                    .collect::<Vec<f32>>(),
                            );
                        })
                    });
                    (ms, c, None)
                }
                "mask_assign_scalar" => {
                    let y = x.copy()?;
                    let ms = gpu_time(t, 20, || {
                        y.set(&[Index::Array(kp::greater(&y, 0.5)?)], 0.0)?;
                        Ok(y.clone())
                    })?;
                    let mut hy = hx.clone();
                    let c = t.cpu.then(|| {
                        super::cpu_time(5, || {
                            for v in hy.iter_mut() {
                                if *v > 0.5 {
                                    *v = 0.0;
                                }
                            }
                            black_box(&hy);
                        })
                    });
                    (ms, c, None)
                }
                "take_random" => {
                    let hi = random_indices(&mut rng, n, n);
                    let idx = Array::from_slice_on(dev, &hi, &[n])?;
                    let ms = gpu_time(t, 20, || x.get(&[Index::Array(idx.clone())]))?;
                    let c = t.cpu.then(|| {
                        super::cpu_time(5, || {
                            black_box(hi.iter().map(|&i| hx[i as usize]).collect::<Vec<f32>>());
                        })
                    });
                    (ms, c, Some(12.0 * n as f64 / (ms / 1e3) / 1e9))
                }
                _ => {
                    let ms = gpu_time(t, 20, || {
                        let ix = kp::nonzero(&kp::greater(&x, 0.5)?)?;
                        Ok(ix.into_iter().next().unwrap_or(x.clone()))
                    })?;
                    let c = t.cpu.then(|| {
                        super::cpu_time(5, || {
                            black_box(
                                hx.iter()
                                    .enumerate()
                                    .filter(|(_, &v)| v > 0.5)
                                    .map(|(i, _)| i as i64)
                                    .collect::<Vec<i64>>(),
                            );
                        })
                    });
                    (ms, c, None)
                }
            };
            let mut m = Measurement::new(ms).cpu(cpu);
            m.params.push(("n", Value::from(n)));
            if let Some(g) = gbs {
                m.metric = Some(("gbs", g));
            }
            Ok(m)
        }
        "mask_update_mandelbrot_2048sq" => {
            let side = 2048;
            let count = side * side;
            let re = rng.uniform_f32(count);
            let im = rng.uniform_f32(count);
            let hm: Vec<bool> = rng.uniform_f32(count).iter().map(|&v| v > 0.5).collect();
            let z = kp::add(
                &Array::from_slice_on(dev, &re, &[side, side])?,
                &kp::multiply(
                    &Array::from_slice_on(dev, &im, &[side, side])?,
                    kp::Scalar::Complex { re: 0.0, im: 1.0 },
                )?,
            )?
            .astype(DType::Complex64)?;
            z.eval()?;
            let c = z.copy()?;
            let mask = Array::from_slice_on(dev, &hm, &[side, side])?;
            let ms = gpu_time(t, 20, || {
                z.update_masked(&mask, |m| Ok(&m.get(&z)? * &m.get(&z)? + &m.get(&c)?))?;
                Ok(z.clone())
            })?;
            let mut hz: Vec<(f32, f32)> = re.iter().copied().zip(im.iter().copied()).collect();
            let hc = hz.clone();
            let cpu = t.cpu.then(|| {
                super::cpu_time(5, || {
                    for ((zv, cv), &m) in hz.iter_mut().zip(&hc).zip(&hm) {
                        if m {
                            *zv = (zv.0 * zv.0 - zv.1 * zv.1 + cv.0, 2.0 * zv.0 * zv.1 + cv.1);
                        }
                    }
                    black_box(&hz);
                })
            });
            Ok(Measurement::new(ms).cpu(cpu))
        }
        _ => {
            // take_rows_4096sq
            let side = 4096;
            let hm = rng.uniform_f32(side * side);
            let m = Array::from_slice_on(dev, &hm, &[side, side])?;
            let hr = random_indices(&mut rng, side, side);
            let rows = Array::from_slice_on(dev, &hr, &[side])?;
            let ms = gpu_time(t, 20, || m.get(&[Index::Array(rows.clone())]))?;
            let cpu = t.cpu.then(|| {
                super::cpu_time(2, || {
                    let mut out = Vec::with_capacity(side * side);
                    for &r in &hr {
                        out.extend_from_slice(&hm[r as usize * side..(r as usize + 1) * side]);
                    }
                    black_box(out);
                })
            });
            Ok(Measurement::new(ms).cpu(cpu))
        }
    }
}
