//! Criterion benchmarks of custom kernels with the anchor case names of `../shared/bench`:
//! saxpy_kernel (an ElementwiseKernel) and chain5_fused (`kupfer::fuse`), plus the saxpy
//! RawKernel and a ReductionKernel sum of squares beside them. GPU time per iteration includes
//! the launch and waiting for it.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kupfer as kp;

const SAXPY_RAW: &str = "
struct Params { a: f32, n: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> y: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(256)
fn saxpy(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = g.x + g.y * nwg.x * 256u;
    if (i < p.n) { out[i] = p.a * x[i] + y[i]; }
}";

fn custom(c: &mut Criterion) {
    let dev = kp::Device::default_device().expect("a GPU adapter (or lavapipe)");
    let sizes: &[usize] = if dev.info().device_type == "Cpu" {
        &[1 << 16, 1 << 20]
    } else {
        &[1 << 20, 1 << 24, 1 << 26]
    };
    let saxpy = kp::ElementwiseKernel::new(
        "float32 x, float32 y",
        "float32 z",
        "z = 2.0 * x + y;",
        "saxpy_k",
    )
    .expect("kernel");
    let chain5 = kp::fuse(|x: &kp::Array, y: &kp::Array| (x * 2.0 + y * 3.0) / (x + y + 1.0));
    let raw = kp::RawKernel::new(SAXPY_RAW, "saxpy").expect("raw kernel");
    let ssq = kp::ReductionKernel::new("T x", "T y", "x * x", "a + b", "y = a", "0", "ssq")
        .expect("reduction kernel");
    let mut g = c.benchmark_group("custom");
    g.sample_size(20);
    for &n in sizes {
        let hx: Vec<f32> = (0..n).map(|i| (i % 1013) as f32 * 1e-3).collect();
        let hy: Vec<f32> = (0..n).map(|i| (i % 917) as f32 * 2e-3).collect();
        let x = kp::Array::from_slice(&hx, &[n]).expect("x");
        let y = kp::Array::from_slice(&hy, &[n]).expect("y");
        let out = kp::empty(&[n], Some(kp::DType::F32)).expect("out");
        g.throughput(Throughput::Bytes(12 * n as u64));
        g.bench_with_input(BenchmarkId::new("saxpy_kernel", n), &n, |b, _| {
            b.iter(|| {
                saxpy
                    .call(kp::args![&x, &y])
                    .expect("saxpy")
                    .eval()
                    .expect("eval");
                dev.synchronize().expect("sync");
            })
        });
        g.bench_with_input(BenchmarkId::new("chain5_fused", n), &n, |b, _| {
            b.iter(|| {
                chain5.call(&[&x, &y]).expect("chain5");
                dev.synchronize().expect("sync");
            })
        });
        let groups = (n as u32).div_ceil(256);
        let (gx, gy) = (groups.min(65535), groups.div_ceil(65535));
        g.bench_with_input(BenchmarkId::new("saxpy_raw", n), &n, |b, _| {
            b.iter(|| {
                raw.launch([gx, gy, 1], kp::args![2.0, &x, &y, &out, n])
                    .expect("raw");
                dev.synchronize().expect("sync");
            })
        });
        g.throughput(Throughput::Bytes(4 * n as u64));
        g.bench_with_input(BenchmarkId::new("sum_of_squares_kernel", n), &n, |b, _| {
            b.iter(|| {
                ssq.call(kp::args![&x], kp::Axis::All, false)
                    .expect("ssq")
                    .eval()
                    .expect("eval");
                dev.synchronize().expect("sync");
            })
        });
    }
    g.finish();
}

criterion_group!(benches, custom);
criterion_main!(benches);
