//! Criterion benchmarks of the FFT with the anchor case names of `../shared/bench`
//! (fft_c64 and rfft_f32 at 2^12, 2^20, 2^24; fft_c64_batched_1024x4096; fft2_c64_4096sq;
//! fft_c64_nonpow2 at 1000, 1048577, 999983). Each iteration runs the transform and waits for
//! the GPU. On a CPU adapter (lavapipe) the sizes are capped at 2^20 and the 4096² cases
//! left out.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use kupfer as kp;
use kupfer::fft::{self, Norm};

fn complex(n: usize, shape: &[usize]) -> kp::Array {
    let h: Vec<kp::Complex32> = (0..n)
        .map(|i| {
            kp::Complex32::new(
                ((i * 7919) % 1013) as f32 * 1e-3,
                ((i * 31) % 97) as f32 * 1e-2,
            )
        })
        .collect();
    kp::Array::from_slice(&h, shape).expect("upload")
}

fn ffts(c: &mut Criterion) {
    let dev = kp::Device::default_device().expect("a GPU adapter (or lavapipe)");
    kp::Device::set_default(&dev);
    let cpu = dev.info().device_type == "Cpu";
    let cap = if cpu { 1 << 20 } else { usize::MAX };
    let mut g = c.benchmark_group("fft");
    g.sample_size(10);
    let wait = |a: kp::Array| {
        a.eval().expect("eval");
        dev.synchronize().expect("sync");
    };
    for n in [1usize << 12, 1 << 20, 1 << 24]
        .into_iter()
        .filter(|&n| n <= cap)
    {
        let z = complex(n, &[n]);
        g.bench_function(BenchmarkId::new("fft_c64", n), |b| {
            b.iter(|| wait(fft::fft(&z, None, -1, Norm::Backward).expect("fft")))
        });
        let hr: Vec<f32> = (0..n).map(|i| ((i * 7919) % 1013) as f32 * 1e-3).collect();
        let r = kp::Array::from_slice(&hr, &[n]).expect("upload");
        g.bench_function(BenchmarkId::new("rfft_f32", n), |b| {
            b.iter(|| wait(fft::rfft(&r, None, -1, Norm::Backward).expect("rfft")))
        });
    }
    if !cpu {
        let z = complex(1 << 22, &[1024, 4096]);
        g.bench_function("fft_c64_batched_1024x4096", |b| {
            b.iter(|| wait(fft::fft(&z, None, 1, Norm::Backward).expect("fft")))
        });
        let z = complex(1 << 24, &[4096, 4096]);
        g.bench_function("fft2_c64_4096sq", |b| {
            b.iter(|| wait(fft::fft2(&z, None, None, Norm::Backward).expect("fft2")))
        });
    }
    for n in [1000usize, (1 << 20) | 1, 999983]
        .into_iter()
        .filter(|&n| n <= cap.max(1 << 21))
    {
        let z = complex(n, &[n]);
        g.bench_function(BenchmarkId::new("fft_c64_nonpow2", n), |b| {
            b.iter(|| wait(fft::fft(&z, None, -1, Norm::Backward).expect("fft")))
        });
    }
    g.finish();
}

criterion_group!(benches, ffts);
criterion_main!(benches);
