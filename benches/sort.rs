//! Criterion benchmarks of sorting with the anchor case names of `../shared/bench`'s
//! `sort` section (sort and argsort of float32 at 2^20 and 2^24 — 2^26 on a real GPU —,
//! sort_axis1_4096sq, percentile_axis1_4096sq, median, partition_median, searchsorted,
//! unique_int32, isin).
//! Each iteration runs the op and waits for the GPU; lavapipe runs smaller sizes. `kupfer bench sort ...` gives the anchor's figures.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kupfer as kp;

fn random(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9e3779b97f4a7c15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 24) as f32
        })
        .collect()
}

fn sorting(c: &mut Criterion) {
    let dev = kp::Device::default_device().expect("a GPU adapter (or lavapipe)");
    kp::Device::set_default(&dev);
    let cpu = dev.info().device_type == "Cpu";
    let sizes: &[usize] = if cpu {
        &[1 << 16, 1 << 20]
    } else {
        &[1 << 20, 1 << 24, 1 << 26]
    };
    let mut g = c.benchmark_group("sort");
    g.sample_size(10);
    for &n in sizes {
        let h = random(n, 1);
        let x = kp::Array::from_slice(&h, &[n]).expect("upload");
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("sort", n), &n, |b, _| {
            b.iter(|| {
                kp::sort(&x, Some(-1), None)
                    .expect("sort")
                    .eval()
                    .expect("eval");
                dev.synchronize().expect("sync");
            })
        });
        g.bench_with_input(BenchmarkId::new("argsort", n), &n, |b, _| {
            b.iter(|| {
                kp::argsort(&x, Some(-1), None)
                    .expect("argsort")
                    .eval()
                    .expect("eval");
                dev.synchronize().expect("sync");
            })
        });
        g.bench_with_input(BenchmarkId::new("cpu_sort_unstable", n), &n, |b, _| {
            b.iter(|| {
                let mut v = h.clone();
                v.sort_unstable_by(|a, b| a.total_cmp(b));
                v
            })
        });
    }
    let side = if cpu { 1024 } else { 4096 };
    let m = kp::Array::from_slice(&random(side * side, 2), &[side, side]).expect("upload");
    g.bench_function(BenchmarkId::new("sort_axis1_4096sq", side), |b| {
        b.iter(|| {
            kp::sort(&m, Some(1), None)
                .expect("sort")
                .eval()
                .expect("eval");
            dev.synchronize().expect("sync");
        })
    });
    g.bench_function(BenchmarkId::new("percentile_axis1_4096sq", side), |b| {
        b.iter(|| {
            kp::percentiles(&m, &[5.0, 50.0, 95.0], Some(&[1]), "linear", false)
                .expect("percentile")
                .eval()
                .expect("eval");
            dev.synchronize().expect("sync");
        })
    });
    let n = if cpu { 1 << 20 } else { 1 << 24 };
    let x = kp::Array::from_slice(&random(n, 3), &[n]).expect("upload");
    g.bench_function(BenchmarkId::new("median", n), |b| {
        b.iter(|| {
            kp::median(&x, None, false)
                .expect("median")
                .eval()
                .expect("eval");
            dev.synchronize().expect("sync");
        })
    });
    g.bench_function(BenchmarkId::new("partition_median_2^24", n), |b| {
        b.iter(|| {
            kp::partition(&x, &[(n / 2) as isize], Some(-1))
                .expect("partition")
                .eval()
                .expect("eval");
            dev.synchronize().expect("sync");
        })
    });
    let srt = kp::sort(&x, Some(-1), None).expect("sort");
    let q = kp::Array::from_slice(&random(n / 16, 4), &[n / 16]).expect("upload");
    g.bench_function(BenchmarkId::new("searchsorted_2^24_q2^20", n), |b| {
        b.iter(|| {
            kp::searchsorted(&srt, &q, kp::sort::Side::Left, None)
                .expect("searchsorted")
                .eval()
                .expect("eval");
            dev.synchronize().expect("sync");
        })
    });
    // Integers as the anchor makes them: n in [0, n / 16), and for isin 4 n in [0, 4 n) against
    // n in [0, 4 n) (2^24 / 2^22 / 2^20 on a GPU).
    let ints = |len: usize, range: usize, seed: u64| -> kp::Array {
        let v: Vec<i32> = random(len, seed)
            .iter()
            .map(|u| (u * range as f32) as i32)
            .collect();
        kp::Array::from_slice(&v, &[len]).expect("upload")
    };
    let u = ints(n, n / 16, 5);
    g.bench_function(BenchmarkId::new("unique_int32_2^24", n), |b| {
        b.iter(|| {
            kp::unique(&u, false, false, false, true)
                .expect("unique")
                .values
                .eval()
                .expect("eval");
            dev.synchronize().expect("sync");
        })
    });
    let a = ints(n / 4, n / 4, 6);
    let t = ints(n / 16, n / 4, 7);
    g.bench_function(BenchmarkId::new("isin_2^22_2^20", n / 4), |b| {
        b.iter(|| {
            kp::isin(&a, &t, false).expect("isin").eval().expect("eval");
            dev.synchronize().expect("sync");
        })
    });
    g.finish();
}

criterion_group!(benches, sorting);
criterion_main!(benches);
