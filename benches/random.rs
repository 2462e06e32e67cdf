//! Criterion benchmarks of `kupfer::random` with the anchor case names of
//! `../shared/bench/cupy_anchor_wave2.py` (section `random`): rand, randn, integers and
//! exponential at 2^20, 2^24 (and 2^26 off lavapipe), rand_affine_2^26, permutation, gamma and
//! poisson at 2^24, choice_noreplace_2^20 (smaller on a CPU adapter). Each iteration draws,
//! materialises and waits for the GPU.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kupfer as kp;
use kupfer::random::default_rng;
use kupfer::DType;

fn random(c: &mut Criterion) {
    let dev = kp::Device::default_device().expect("a GPU adapter (or lavapipe)");
    let cpu = dev.info().device_type == "Cpu";
    let (sizes, big): (&[usize], usize) = if cpu {
        (&[1 << 16, 1 << 20], 1 << 20)
    } else {
        (&[1 << 20, 1 << 24, 1 << 26], 1 << 24)
    };
    let rng = default_rng(Some(0));
    let run = |a: kp::Result<kp::Array>| {
        a.expect("draw").eval().expect("eval");
        dev.synchronize().expect("sync");
    };
    let mut g = c.benchmark_group("random");
    g.sample_size(10);
    for &n in sizes {
        g.throughput(Throughput::Bytes(4 * n as u64));
        g.bench_with_input(BenchmarkId::new("rand", n), &n, |b, &n| {
            b.iter(|| run(rng.random(&[n], Some(DType::F32))))
        });
        g.bench_with_input(BenchmarkId::new("randn", n), &n, |b, &n| {
            b.iter(|| run(rng.standard_normal(&[n], Some(DType::F32))))
        });
        g.bench_with_input(BenchmarkId::new("integers", n), &n, |b, &n| {
            b.iter(|| run(rng.integers(0, Some(1000), &[n], Some(DType::I32), false)))
        });
        g.bench_with_input(BenchmarkId::new("exponential", n), &n, |b, &n| {
            b.iter(|| run(rng.standard_exponential(&[n], Some(DType::F32))))
        });
    }
    let n = if cpu { 1 << 20 } else { 1 << 26 };
    g.bench_function("rand_affine_2^26", |b| {
        b.iter(|| run(rng.random(&[n], Some(DType::F32)).map(|x| &x * 2.0 - 1.0)))
    });
    g.bench_function("permutation", |b| b.iter(|| run(rng.permutation(big))));
    g.bench_function("gamma", |b| {
        b.iter(|| run(rng.standard_gamma(2.0, Some(&[big]), None)))
    });
    g.bench_function("poisson", |b| {
        b.iter(|| run(rng.poisson(3.0, Some(&[big]))))
    });
    g.bench_function("choice_noreplace_2^20", |b| {
        b.iter(|| run(rng.choice(1 << 20, &[1 << 20], false)))
    });
    g.finish();
}

criterion_group!(benches, random);
criterion_main!(benches);
