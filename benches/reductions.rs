//! Criterion benchmarks of reductions and scans, with the anchor case names of
//! `../shared/bench` (sum, max, argmax, cumsum at 2^20 and 2^24; sum_axis0_4096sq,
//! sum_axis1_4096sq, std_axis1_4096sq, broadcast_mul_mean_axis0). Each iteration runs the op
//! and waits for the GPU. Set `KUPFER_BENCH_GPU_TIME=1` to also print the median GPU time of
//! each case from timestamp events (3 warm-ups, median of 20), as the anchor script measures.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kupfer as kp;

fn vector(n: usize) -> kp::Array {
    let h: Vec<f32> = (0..n).map(|i| ((i * 7919) % 1013) as f32 * 1e-3).collect();
    kp::Array::from_slice(&h, &[n]).expect("upload")
}

/// Median GPU milliseconds of `f` (3 warm-ups, 20 timed runs), when asked for.
fn gpu_time(dev: &kp::Device, name: &str, n: usize, bytes: f64, f: &dyn Fn()) {
    if std::env::var_os("KUPFER_BENCH_GPU_TIME").is_none() {
        return;
    }
    for _ in 0..3 {
        f();
    }
    dev.synchronize().expect("sync");
    let mut ms = Vec::new();
    for _ in 0..20 {
        let a = dev.record_event().expect("event");
        f();
        let b = dev.record_event().expect("event");
        ms.push(a.elapsed_ms(&b).expect("elapsed"));
    }
    ms.sort_by(f64::total_cmp);
    let m = ms[ms.len() / 2];
    println!(
        "{{\"case\": \"{name}\", \"n\": {n}, \"ms\": {m:.4}, \"gbs\": {:.1}}}",
        bytes / (m * 1e-3) / 1e9
    );
}

type Case<'a> = (&'static str, Box<dyn Fn() + 'a>);

fn reductions(c: &mut Criterion) {
    let dev = kp::Device::default_device().expect("a GPU adapter (or lavapipe)");
    let cpu = dev.info().device_type == "Cpu";
    let sizes: &[usize] = if cpu {
        &[1 << 16, 1 << 20]
    } else {
        &[1 << 20, 1 << 24, 1 << 26]
    };
    let mut g = c.benchmark_group("reductions");
    g.sample_size(20);
    for &n in sizes {
        let x = vector(n);
        g.throughput(Throughput::Bytes(4 * n as u64));
        let sum = || {
            kp::sum(&x, kp::Axis::All, false)
                .expect("sum")
                .eval()
                .expect("eval");
        };
        let max = || {
            kp::max(&x, kp::Axis::All, false)
                .expect("max")
                .eval()
                .expect("eval");
        };
        let argmax = || {
            kp::argmax(&x, None, false)
                .expect("argmax")
                .eval()
                .expect("eval");
        };
        let cumsum = || {
            kp::cumsum(&x, None, None).expect("cumsum");
        };
        g.bench_with_input(BenchmarkId::new("sum", n), &n, |b, _| {
            b.iter(|| {
                sum();
                dev.synchronize().expect("sync");
            })
        });
        g.bench_with_input(BenchmarkId::new("max", n), &n, |b, _| {
            b.iter(|| {
                max();
                dev.synchronize().expect("sync");
            })
        });
        g.bench_with_input(BenchmarkId::new("argmax", n), &n, |b, _| {
            b.iter(|| {
                argmax();
                dev.synchronize().expect("sync");
            })
        });
        g.throughput(Throughput::Bytes(8 * n as u64));
        g.bench_with_input(BenchmarkId::new("cumsum", n), &n, |b, _| {
            b.iter(|| {
                cumsum();
                dev.synchronize().expect("sync");
            })
        });
        gpu_time(&dev, "sum", n, 4.0 * n as f64, &sum);
        gpu_time(&dev, "max", n, 4.0 * n as f64, &max);
        gpu_time(&dev, "argmax", n, 4.0 * n as f64, &argmax);
        gpu_time(&dev, "cumsum", n, 8.0 * n as f64, &cumsum);
    }

    let side = if cpu { 1024 } else { 4096 };
    let m = vector(side * side)
        .reshape(&[side as isize, side as isize])
        .expect("reshape");
    let w = kp::linspace(0.0, 1.0, side, true, Some(kp::DType::F32)).expect("linspace");
    let bytes = 4 * side * side;
    g.throughput(Throughput::Bytes(bytes as u64));
    let cases: [Case; 4] = [
        (
            "sum_axis0_4096sq",
            Box::new(|| {
                kp::sum(&m, 0, false).expect("sum").eval().expect("eval");
            }),
        ),
        (
            "sum_axis1_4096sq",
            Box::new(|| {
                kp::sum(&m, 1, false).expect("sum").eval().expect("eval");
            }),
        ),
        (
            "std_axis1_4096sq",
            Box::new(|| {
                m.std(1, 0, false).expect("std").eval().expect("eval");
            }),
        ),
        (
            "broadcast_mul_mean_axis0",
            Box::new(|| {
                (&m * &w)
                    .mean(0, false)
                    .expect("mean")
                    .eval()
                    .expect("eval");
            }),
        ),
    ];
    for (name, f) in &cases {
        g.bench_function(*name, |b| {
            b.iter(|| {
                f();
                dev.synchronize().expect("sync");
            })
        });
        gpu_time(&dev, name, side * side, bytes as f64, f.as_ref());
    }
    g.finish();
}

criterion_group!(benches, reductions);
criterion_main!(benches);
