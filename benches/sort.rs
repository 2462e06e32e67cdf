//! Criterion benchmarks of sorting with the anchor case names of `../shared/bench`'s
//! `sort` section (sort and argsort of float32 at 2^20 and 2^24 — 2^26 on a real GPU —,
//! sort_axis1_4096sq, median, searchsorted). Each iteration runs the op and waits for the
//! GPU; lavapipe runs smaller sizes. `kupfer bench sort ...` gives the anchor's figures.

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
    g.finish();
}

criterion_group!(benches, sorting);
criterion_main!(benches);
