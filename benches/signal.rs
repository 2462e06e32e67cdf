//! Criterion benchmarks of `signal.convolve2d` with the anchor case names of
//! `../shared/bench`: convolve2d_1024_3x3 and convolve2d_4096_3x3 (the seed's box blur,
//! mode "same", boundary "symm", float32). Each iteration runs the convolution and waits for
//! the GPU. On a CPU adapter (lavapipe) the 4096² case is left out.

use criterion::{criterion_group, criterion_main, Criterion};
use kupfer as kp;
use kupfer::signal::{Boundary, Mode};

fn image(side: usize) -> kp::Array {
    let h: Vec<f32> = (0..side * side)
        .map(|i| ((i * 7919) % 1013) as f32 * 1e-3)
        .collect();
    kp::Array::from_slice(&h, &[side, side]).expect("upload")
}

fn convolve2d(c: &mut Criterion) {
    let dev = kp::Device::default_device().expect("a GPU adapter (or lavapipe)");
    kp::Device::set_default(&dev);
    let cpu = dev.info().device_type == "Cpu";
    let k3 = kp::full(&[3, 3], 1.0 / 9.0, Some(kp::DType::F32)).expect("kernel");
    let mut g = c.benchmark_group("signal");
    g.sample_size(10);
    for side in [1024usize, 4096] {
        if cpu && side > 1024 {
            continue;
        }
        let img = image(side);
        g.bench_function(format!("convolve2d_{side}_3x3"), |b| {
            b.iter(|| {
                let out = kp::signal::convolve2d(&img, &k3, Mode::Same, Boundary::Symm, 0.0)
                    .expect("convolve2d");
                out.eval().expect("eval");
                dev.synchronize().expect("sync");
            })
        });
    }
    g.finish();
}

criterion_group!(benches, convolve2d);
criterion_main!(benches);
