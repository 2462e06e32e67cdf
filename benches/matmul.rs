//! Criterion benchmarks of matrix products, with the anchor case names of `../shared/bench`
//! (matmul_float32 and matmul_float16 at n = 1024, 4096, 8192; batched_matmul_64x256;
//! gemv_4096). Each iteration runs the product and waits for the GPU. On CPU adapters
//! (lavapipe) only the small sizes run. Set `KUPFER_BENCH_GPU_TIME=1` to also print the
//! median GPU time of each case from timestamp events (3 warm-ups, median of 10), as the
//! anchor script measures; `KUPFER_TF32=1` selects the reduced-precision float32 mode.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kupfer as kp;

fn random(shape: &[usize], dtype: kp::DType) -> kp::Array {
    let n: usize = shape.iter().product();
    let h: Vec<f32> = (0..n).map(|i| ((i * 7919) % 1013) as f32 * 1e-3).collect();
    let a = kp::Array::from_slice(&h, shape)
        .and_then(|a| a.astype(dtype))
        .expect("upload");
    a.eval().expect("eval");
    a
}

/// Median GPU milliseconds of `f` (3 warm-ups, 10 timed runs), printed as the anchor's JSON
/// line when asked for.
fn gpu_time(dev: &kp::Device, name: &str, param: &str, metric: (&str, f64), f: &dyn Fn()) {
    if std::env::var_os("KUPFER_BENCH_GPU_TIME").is_none() {
        return;
    }
    for _ in 0..3 {
        f();
    }
    dev.synchronize().expect("sync");
    let mut ms = Vec::new();
    for _ in 0..10 {
        let a = dev.record_event().expect("event");
        f();
        let b = dev.record_event().expect("event");
        ms.push(a.elapsed_ms(&b).expect("elapsed"));
    }
    ms.sort_by(f64::total_cmp);
    let m = ms[ms.len() / 2];
    let (key, amount) = metric;
    let scale = if key == "tflops" { 1e12 } else { 1e9 };
    println!(
        "{{\"case\": \"{name}\", \"ms\": {m:.4}{param}, \"{key}\": {:.2}}}",
        amount / (m * 1e-3) / scale
    );
}

fn matmul(c: &mut Criterion) {
    let dev = kp::Device::default_device().expect("a GPU adapter (or lavapipe)");
    let cpu = dev.info().device_type == "Cpu";
    let sizes: &[usize] = if cpu { &[256] } else { &[1024, 4096, 8192] };
    let mut g = c.benchmark_group("matmul");
    g.sample_size(10);
    for (name, dtype) in [
        ("matmul_float32", kp::DType::F32),
        ("matmul_float16", kp::DType::F16),
    ] {
        if !dev.supports(dtype) {
            continue;
        }
        for &n in sizes {
            let a = random(&[n, n], dtype);
            let b = random(&[n, n], dtype);
            let run = || {
                kp::matmul(&a, &b)
                    .and_then(|c| c.eval().cloned())
                    .expect("matmul");
                dev.synchronize().expect("sync");
            };
            let flops = 2.0 * (n as f64).powi(3);
            gpu_time(
                &dev,
                name,
                &format!(", \"n\": {n}"),
                ("tflops", flops),
                &|| {
                    kp::matmul(&a, &b)
                        .and_then(|c| c.eval().cloned())
                        .expect("matmul");
                },
            );
            g.throughput(Throughput::Elements(flops as u64));
            g.bench_with_input(BenchmarkId::new(name, n), &n, |bch, _| bch.iter(run));
        }
    }
    let side = if cpu { 64 } else { 256 };
    let m = random(&[64, side, side], kp::DType::F32);
    let flops = 64.0 * 2.0 * (side as f64).powi(3);
    gpu_time(
        &dev,
        "batched_matmul_64x256",
        "",
        ("tflops", flops),
        &|| {
            kp::matmul(&m, &m)
                .and_then(|c| c.eval().cloned())
                .expect("matmul");
        },
    );
    g.throughput(Throughput::Elements(flops as u64));
    g.bench_function("batched_matmul_64x256", |bch| {
        bch.iter(|| {
            kp::matmul(&m, &m)
                .and_then(|c| c.eval().cloned())
                .expect("matmul");
            dev.synchronize().expect("sync");
        })
    });
    let n = if cpu { 1024 } else { 4096 };
    let a = random(&[n, n], kp::DType::F32);
    let v = random(&[n], kp::DType::F32);
    let bytes = 4.0 * (n * n) as f64;
    gpu_time(&dev, "gemv_4096", "", ("gbs", bytes), &|| {
        kp::matmul(&a, &v).expect("gemv");
    });
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("gemv_4096", |bch| {
        bch.iter(|| {
            kp::matmul(&a, &v).expect("gemv");
            dev.synchronize().expect("sync");
        })
    });
    g.finish();
}

criterion_group!(benches, matmul);
criterion_main!(benches);
