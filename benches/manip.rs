//! Criterion benchmarks of array manipulation with the anchor case names of
//! `../shared/bench/cupy_anchor_wave2.py` (section `index`): concatenate_4x2^24,
//! stack_axis1_4x2^24, pad_reflect_4096sq, roll_axis1_4096sq, flip_copy_4096sq, tril_4096sq
//! (float32). Each iteration runs the operation and waits for the GPU. On a CPU adapter
//! (lavapipe) the sizes shrink to 4 x 2^20 and 1024 x 1024.

use criterion::{criterion_group, criterion_main, Criterion};
use kupfer as kp;
use kupfer::PadMode;

fn values(n: usize, seed: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i * 7919 + seed * 104_729) % 1013) as f32 * 1e-3)
        .collect()
}

fn manip(c: &mut Criterion) {
    let dev = kp::Device::default_device().expect("a GPU adapter (or lavapipe)");
    kp::Device::set_default(&dev);
    let cpu = dev.info().device_type == "Cpu";
    let (part, side) = if cpu {
        (1 << 20, 1024)
    } else {
        (1 << 24, 4096)
    };
    let mut g = c.benchmark_group("manip");
    g.sample_size(10);
    let run = |out: kp::Result<kp::Array>| {
        out.expect("the operation").eval().expect("eval");
        dev.synchronize().expect("sync");
    };
    let parts: Vec<kp::Array> = (0..4)
        .map(|s| kp::Array::from_slice(&values(part, s), &[part]).expect("upload"))
        .collect();
    g.bench_function("concatenate_4x2^24", |b| {
        b.iter(|| run(kp::concatenate(&parts, Some(0), None)))
    });
    g.bench_function("stack_axis1_4x2^24", |b| {
        b.iter(|| run(kp::stack(&parts, 1, None)))
    });
    drop(parts);
    let m = kp::Array::from_slice(&values(side * side, 9), &[side, side]).expect("upload");
    g.bench_function("pad_reflect_4096sq", |b| {
        b.iter(|| run(kp::pad(&m, &[(16, 16)], &PadMode::Reflect)))
    });
    g.bench_function("roll_axis1_4096sq", |b| {
        b.iter(|| run(kp::roll(&m, &[7], Some(&[1]))))
    });
    g.bench_function("flip_copy_4096sq", |b| {
        b.iter(|| run(kp::flip(&m, Some(&[0])).and_then(|f| f.copy())))
    });
    g.bench_function("tril_4096sq", |b| b.iter(|| run(kp::tril(&m, 0))));
    g.finish();
}

criterion_group!(benches, manip);
criterion_main!(benches);
