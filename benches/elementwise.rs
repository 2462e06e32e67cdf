//! Criterion benchmarks of fused elementwise expressions, with the anchor case names of
//! `../shared/bench` (saxpy_expr, chain5_unfused, sin_plus_cos) and the small-op latency.
//! GPU time per iteration includes materialising the lazy expression and waiting for it.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kupfer as kp;

fn inputs(n: usize) -> (kp::Array, kp::Array) {
    let hx: Vec<f32> = (0..n).map(|i| (i % 1013) as f32 * 1e-3).collect();
    let hy: Vec<f32> = (0..n).map(|i| (i % 917) as f32 * 2e-3).collect();
    let x = kp::Array::from_slice(&hx, &[n]).expect("upload x");
    let y = kp::Array::from_slice(&hy, &[n]).expect("upload y");
    (x, y)
}

fn elementwise(c: &mut Criterion) {
    let dev = kp::Device::default_device().expect("a GPU adapter (or lavapipe)");
    let sizes: &[usize] = if dev.info().device_type == "Cpu" {
        &[1 << 16, 1 << 20]
    } else {
        &[1 << 20, 1 << 24, 1 << 26]
    };
    let mut g = c.benchmark_group("elementwise");
    g.sample_size(20);
    for &n in sizes {
        let (x, y) = inputs(n);
        g.throughput(Throughput::Bytes(12 * n as u64));
        g.bench_with_input(BenchmarkId::new("saxpy_expr", n), &n, |b, _| {
            b.iter(|| {
                (2.0 * &x + &y).eval().expect("saxpy");
                dev.synchronize().expect("sync");
            })
        });
        g.bench_with_input(BenchmarkId::new("chain5_unfused", n), &n, |b, _| {
            b.iter(|| {
                ((&x * 2.0 + &y * 3.0) / (&x + &y + 1.0))
                    .eval()
                    .expect("chain5");
                dev.synchronize().expect("sync");
            })
        });
        g.bench_with_input(BenchmarkId::new("sin_plus_cos", n), &n, |b, _| {
            b.iter(|| {
                (kp::sin(&x).expect("sin") + kp::cos(&x).expect("cos"))
                    .eval()
                    .expect("eval");
                dev.synchronize().expect("sync");
            })
        });
    }
    g.finish();
    let t = kp::ones(&[16], Some(kp::DType::F32))
        .and_then(|t| t.copy())
        .expect("tiny");
    c.bench_function("tiny_op_amortized", |b| {
        b.iter(|| {
            (&t + 1.0).eval().expect("tiny op");
        });
        dev.synchronize().expect("sync");
    });
}

criterion_group!(benches, elementwise);
criterion_main!(benches);
