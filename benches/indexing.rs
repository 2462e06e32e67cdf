//! Criterion benchmarks of indexing with the anchor case names of
//! `../shared/bench/cupy_anchor_wave2.py` (section `index`): mask_select, mask_assign_scalar,
//! take_random and nonzero at 2^20, 2^24 and 2^26 (2^16 and 2^20 on CPU adapters),
//! mask_update_mandelbrot_2048sq (the fused in-place update) and take_rows_4096sq. Each
//! iteration runs the operation and waits for the GPU.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kupfer as kp;
use kupfer::{Array, DType, Index};

fn uniform(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 24) as f32
        })
        .collect()
}

fn indexing(c: &mut Criterion) {
    let dev = kp::Device::default_device().expect("a GPU adapter (or lavapipe)");
    kp::Device::set_default(&dev);
    let cpu = dev.info().device_type == "Cpu";
    let sizes: &[usize] = if cpu {
        &[1 << 16, 1 << 20]
    } else {
        &[1 << 20, 1 << 24, 1 << 26]
    };
    let mut g = c.benchmark_group("index");
    g.sample_size(10);
    for &n in sizes {
        let x = Array::from_slice(&uniform(n, 1), &[n]).expect("upload");
        let y = x.copy().expect("copy");
        let idx: Vec<i32> = uniform(n, 2)
            .iter()
            .map(|&u| (u * n as f32) as i32 % n as i32)
            .collect();
        let idx = Array::from_slice(&idx, &[n]).expect("upload");
        g.throughput(Throughput::Bytes(4 * n as u64));
        g.bench_with_input(BenchmarkId::new("mask_select", n), &n, |b, _| {
            b.iter(|| {
                let m = kp::greater(&x, 0.5).expect("mask");
                x.get(&[Index::Array(m)]).expect("select");
                dev.synchronize().expect("sync");
            })
        });
        g.bench_with_input(BenchmarkId::new("mask_assign_scalar", n), &n, |b, _| {
            b.iter(|| {
                y.set(&[Index::Array(kp::greater(&y, 0.5).expect("mask"))], 0.0)
                    .expect("assign");
                dev.synchronize().expect("sync");
            })
        });
        g.bench_with_input(BenchmarkId::new("take_random", n), &n, |b, _| {
            b.iter(|| {
                x.get(&[Index::Array(idx.clone())]).expect("take");
                dev.synchronize().expect("sync");
            })
        });
        g.bench_with_input(BenchmarkId::new("nonzero", n), &n, |b, _| {
            b.iter(|| {
                kp::nonzero(&kp::greater(&x, 0.5).expect("mask")).expect("nonzero");
                dev.synchronize().expect("sync");
            })
        });
    }
    let side = if cpu { 512 } else { 2048 };
    let re = Array::from_slice(&uniform(side * side, 3), &[side, side]).expect("upload");
    let im = Array::from_slice(&uniform(side * side, 4), &[side, side]).expect("upload");
    let z = kp::add(
        &re,
        kp::multiply(&im, kp::Scalar::Complex { re: 0.0, im: 1.0 }).expect("mul"),
    )
    .expect("add")
    .astype(DType::Complex64)
    .expect("astype");
    z.eval().expect("eval");
    let cz = z.copy().expect("copy");
    let mask = kp::greater(
        Array::from_slice(&uniform(side * side, 5), &[side, side]).expect("upload"),
        0.5,
    )
    .expect("mask");
    mask.eval().expect("eval");
    g.bench_function(
        BenchmarkId::new("mask_update_mandelbrot_2048sq", side),
        |b| {
            b.iter(|| {
                z.update_masked(&mask, |m| Ok(&m.get(&z)? * &m.get(&z)? + &m.get(&cz)?))
                    .expect("update");
                dev.synchronize().expect("sync");
            })
        },
    );
    let side = if cpu { 1024 } else { 4096 };
    let m = Array::from_slice(&uniform(side * side, 6), &[side, side]).expect("upload");
    let rows: Vec<i32> = uniform(side, 7)
        .iter()
        .map(|&u| (u * side as f32) as i32 % side as i32)
        .collect();
    let rows = Array::from_slice(&rows, &[side]).expect("upload");
    g.bench_function(BenchmarkId::new("take_rows_4096sq", side), |b| {
        b.iter(|| {
            m.get(&[Index::Array(rows.clone())]).expect("rows");
            dev.synchronize().expect("sync");
        })
    });
    g.finish();
}

criterion_group!(benches, indexing);
criterion_main!(benches);
