//! The sorting cases of `shared/bench/cupy_anchor_wave2.py`'s `sort` section (and the old
//! anchor's `sort`, the same case): random inputs made as the anchor makes them, with plain
//! Rust (`sort_unstable_by`, a sorted-slice binary search) as the CPU reference.

use super::cases::Measurement;
use super::{cpu_time, gpu_time, Timing};
use crate::common::HostRng;
use crate::error::CliResult;
use kupfer as kp;
use kupfer::{Array, DType};
use std::hint::black_box;

/// Sizes of the cases that run at several (`for n in (1 << 20, 1 << 24, 1 << 26)`).
const SORT_SIZES: &[usize] = &[1 << 20, 1 << 24, 1 << 26];

/// The sizes a case runs at (empty: one fixed size).
pub fn sizes(name: &str) -> &'static [usize] {
    match name {
        "sort" | "argsort" => SORT_SIZES,
        _ => &[],
    }
}

/// Elements of a fixed-size case (for the size cap).
pub fn fixed_elements(name: &str) -> usize {
    match name {
        "sort_axis1_4096sq" | "percentile_axis1_4096sq" => 4096 * 4096,
        "isin_2^22_2^20" => 1 << 22,
        _ => 1 << 24,
    }
}

fn reps(n: usize) -> usize {
    if n >= 1 << 24 {
        2
    } else {
        5
    }
}

/// CPU time of sorting a copy of `h` with `sort_unstable_by(total_cmp)`.
fn cpu_sort(t: &Timing, h: &[f32]) -> Option<f64> {
    t.cpu.then(|| {
        cpu_time(reps(h.len()), || {
            let mut v = h.to_vec();
            v.sort_unstable_by(|a, b| a.total_cmp(b));
            black_box(v);
        })
    })
}

/// Runs a sorting case (`n` for the cases with several sizes).
pub fn run(name: &str, n: Option<usize>, t: &Timing) -> CliResult<Measurement> {
    let dev = &t.device;
    let _guard = dev.use_device();
    let mut rng = HostRng::new(11);
    let m = match name {
        "sort" | "argsort" => {
            let n = n.unwrap_or(1 << 20);
            let h = rng.uniform_f32(n);
            let x = Array::from_slice_on(dev, &h, &[n])?;
            let ms = if name == "sort" {
                gpu_time(t, 10, || kp::sort(&x, Some(-1), None))?
            } else {
                gpu_time(t, 10, || kp::argsort(&x, Some(-1), None))?
            };
            let cpu = cpu_sort(t, &h);
            Measurement::new(ms)
                .n(n)
                .metric("mkeys_s", n as f64 / (ms * 1e-3) / 1e6)
                .cpu(cpu)
        }
        "sort_int32" => {
            let n = 1usize << 24;
            let h: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
            let x = Array::from_slice_on(dev, &h, &[n])?;
            let ms = gpu_time(t, 10, || kp::sort(&x, Some(-1), None))?;
            let cpu = t.cpu.then(|| {
                cpu_time(2, || {
                    let mut v = h.clone();
                    v.sort_unstable();
                    black_box(v);
                })
            });
            Measurement::new(ms).n(n).cpu(cpu)
        }
        "sort_float64" => {
            let n = 1usize << 24;
            if !dev.supports(DType::F64) {
                return Err(kp::Error::unsupported("float64 on this adapter").into());
            }
            // Every mantissa bit random, as CuPy's `rng.random(n, dtype=float64)`.
            let h: Vec<f64> = (0..n).map(|_| rng.next_f64()).collect();
            let x = Array::from_slice_on(dev, &h, &[n])?;
            let ms = gpu_time(t, 10, || kp::sort(&x, Some(-1), None))?;
            let cpu = t.cpu.then(|| {
                cpu_time(2, || {
                    let mut v = h.clone();
                    v.sort_unstable_by(|a, b| a.total_cmp(b));
                    black_box(v);
                })
            });
            Measurement::new(ms).n(n).cpu(cpu)
        }
        "sort_axis1_4096sq" | "percentile_axis1_4096sq" => {
            let s = 4096usize;
            let h = rng.uniform_f32(s * s);
            let x = Array::from_slice_on(dev, &h, &[s, s])?;
            let ms = if name == "sort_axis1_4096sq" {
                gpu_time(t, 10, || kp::sort(&x, Some(1), None))?
            } else {
                gpu_time(t, 10, || {
                    kp::percentiles(&x, &[5.0, 50.0, 95.0], Some(&[1]), "linear", false)
                })?
            };
            let cpu = t.cpu.then(|| {
                cpu_time(2, || {
                    let mut v = h.clone();
                    for row in v.chunks_mut(s) {
                        row.sort_unstable_by(|a, b| a.total_cmp(b));
                    }
                    black_box(v);
                })
            });
            Measurement::new(ms).cpu(cpu)
        }
        "partition_median_2^24" | "median" => {
            let n = 1usize << 24;
            let h = rng.uniform_f32(n);
            let x = Array::from_slice_on(dev, &h, &[n])?;
            let ms = if name == "median" {
                gpu_time(t, 10, || kp::median(&x, None, false))?
            } else {
                gpu_time(t, 10, || kp::partition(&x, &[(n / 2) as isize], Some(-1)))?
            };
            let cpu = t.cpu.then(|| {
                cpu_time(2, || {
                    let mut v = h.clone();
                    let (_, mid, _) = v.select_nth_unstable_by(n / 2, |a, b| a.total_cmp(b));
                    black_box(*mid);
                })
            });
            let m = Measurement::new(ms).cpu(cpu);
            if name == "median" {
                m.n(n)
            } else {
                m
            }
        }
        "searchsorted_2^24_q2^20" => {
            let n = 1usize << 24;
            let mut h = rng.uniform_f32(n);
            let hq = rng.uniform_f32(1 << 20);
            let x = Array::from_slice_on(dev, &h, &[n])?;
            let srt = kp::sort(&x, Some(-1), None)?;
            let q = Array::from_slice_on(dev, &hq, &[1 << 20])?;
            let ms = gpu_time(t, 20, || {
                kp::searchsorted(&srt, &q, kp::sort::Side::Left, None)
            })?;
            h.sort_unstable_by(|a, b| a.total_cmp(b));
            let cpu = t.cpu.then(|| {
                cpu_time(3, || {
                    let r: Vec<usize> = hq.iter().map(|v| h.partition_point(|x| x < v)).collect();
                    black_box(r);
                })
            });
            Measurement::new(ms).cpu(cpu)
        }
        "unique_int32_2^24" | "unique_counts_int32_2^24" => {
            let n = 1usize << 24;
            let h: Vec<i32> = (0..n)
                .map(|_| (rng.next_u64() % (1 << 20)) as i32)
                .collect();
            let x = Array::from_slice_on(dev, &h, &[n])?;
            let counts = name == "unique_counts_int32_2^24";
            let ms = gpu_time(t, 10, || {
                let u = kp::unique(&x, false, false, counts, true)?;
                Ok(u.counts.unwrap_or(u.values))
            })?;
            let cpu = t.cpu.then(|| {
                cpu_time(2, || {
                    let mut v = h.clone();
                    v.sort_unstable();
                    v.dedup();
                    black_box(v);
                })
            });
            Measurement::new(ms).cpu(cpu)
        }
        "isin_2^22_2^20" => {
            let ha: Vec<i32> = (0..1 << 22)
                .map(|_| (rng.next_u64() % (1 << 22)) as i32)
                .collect();
            let hb: Vec<i32> = (0..1 << 20)
                .map(|_| (rng.next_u64() % (1 << 22)) as i32)
                .collect();
            let a = Array::from_slice_on(dev, &ha, &[ha.len()])?;
            let b = Array::from_slice_on(dev, &hb, &[hb.len()])?;
            let ms = gpu_time(t, 10, || kp::isin(&a, &b, false))?;
            let cpu = t.cpu.then(|| {
                cpu_time(2, || {
                    let mut s = hb.clone();
                    s.sort_unstable();
                    let r: Vec<bool> = ha.iter().map(|v| s.binary_search(v).is_ok()).collect();
                    black_box(r);
                })
            });
            Measurement::new(ms).cpu(cpu)
        }
        other => unreachable!("{other} is not a sort case"),
    };
    Ok(m)
}
