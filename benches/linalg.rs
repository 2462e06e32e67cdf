//! Criterion benchmarks of the factorizations with the anchor case names of
//! `../shared/bench/cupy_anchor_wave2.py` (section `linalg`): solve, inv, cholesky and det
//! (`{op}_{dtype}/{n}`, n = 1024 and 4096), qr_4096x1024 (`qr_{m}x{n}_{dtype}`, mode
//! 'reduced', Q and R) and batched_inv / batched_solve / batched_eigh
//! (`/{batch}x{k}`; eigh of `b + b^T`)
//! in float32 and float64 (where the adapter has it). Each iteration runs the operation and
//! waits for the GPU. On a CPU adapter (lavapipe) only n = 256, qr of 256 x 64 and the
//! smallest batch run.

use criterion::{criterion_group, criterion_main, Criterion};
use kupfer as kp;
use kupfer::DType;

/// Uniform-ish values in [0, 1) plus `n` on the diagonal, `count` matrices of order `n`.
fn matrices(count: usize, n: usize, dtype: DType) -> kp::Array {
    let h: Vec<f32> = (0..count * n * n)
        .map(|e| {
            let v = ((e * 7919) % 1013) as f32 * 1e-3;
            if (e / n) % n == e % n {
                v + n as f32
            } else {
                v
            }
        })
        .collect();
    let a = kp::Array::from_slice(&h, &[count, n, n]).expect("upload");
    a.astype(dtype).expect("astype")
}

fn factorizations(c: &mut Criterion) {
    let dev = kp::Device::default_device().expect("a GPU adapter (or lavapipe)");
    kp::Device::set_default(&dev);
    let cpu = dev.info().device_type == "Cpu";
    let mut g = c.benchmark_group("linalg");
    g.sample_size(10);
    let sizes: &[usize] = if cpu { &[256] } else { &[1024, 4096] };
    let batched: &[(usize, usize)] = if cpu {
        &[(1000, 4)]
    } else {
        &[(10000, 4), (10000, 8), (1000, 32)]
    };
    for dtype in [DType::F32, DType::F64] {
        if !dev.supports(dtype) {
            continue;
        }
        let name = if dtype == DType::F32 {
            "float32"
        } else {
            "float64"
        };
        for &n in sizes {
            let a = matrices(1, n, dtype)
                .reshape(&[n as isize, n as isize])
                .expect("2-D");
            let s = kp::add(kp::matmul(&a, &a.t().expect("t")).expect("gram"), 0.0).expect("spd");
            let b = kp::ones(&[n, 1], Some(dtype)).expect("rhs");
            let mut bench = |op: &str, f: &dyn Fn() -> kp::Result<kp::Array>| {
                g.bench_function(format!("{op}_{name}/{n}"), |it| {
                    it.iter(|| {
                        f().expect(op).eval().expect("eval");
                        dev.synchronize().expect("sync");
                    })
                });
            };
            bench("solve", &|| kp::linalg::solve(&a, &b));
            bench("inv", &|| kp::linalg::inv(&a));
            bench("cholesky", &|| kp::linalg::cholesky(&s, false));
            bench("det", &|| kp::linalg::det(&a));
        }
        let (qm, qn) = if cpu { (256, 64) } else { (4096, 1024) };
        let t = matrices(1, qm, dtype)
            .reshape(&[qm as isize, qm as isize])
            .expect("2-D")
            .slice(&[kp::SliceArg::FULL, kp::SliceArg::range(0, qn as isize)])
            .expect("columns")
            .copy()
            .expect("copy");
        g.bench_function(format!("qr_{qm}x{qn}_{name}"), |it| {
            it.iter(|| {
                let qr = kp::linalg::qr(&t, kp::linalg::QrMode::Reduced).expect("qr");
                qr.r.eval().expect("eval");
                qr.q.expect("q").eval().expect("eval");
                dev.synchronize().expect("sync");
            })
        });
        for &(count, k) in batched {
            let a = matrices(count, k, dtype);
            let rhs = kp::ones(&[count, k, 1], Some(dtype)).expect("rhs");
            g.bench_function(format!("batched_inv_{name}/{count}x{k}"), |it| {
                it.iter(|| {
                    kp::linalg::inv(&a).expect("inv").eval().expect("eval");
                    dev.synchronize().expect("sync");
                })
            });
            g.bench_function(format!("batched_solve_{name}/{count}x{k}"), |it| {
                it.iter(|| {
                    kp::linalg::solve(&a, &rhs)
                        .expect("solve")
                        .eval()
                        .expect("eval");
                    dev.synchronize().expect("sync");
                })
            });
            let h = kp::add(&a, a.swapaxes(-1, -2).expect("transpose"))
                .expect("symmetric")
                .copy()
                .expect("copy");
            g.bench_function(format!("batched_eigh_{name}/{count}x{k}"), |it| {
                it.iter(|| {
                    let (w, v) = kp::linalg::eigh(&h, kp::linalg::Uplo::Lower).expect("eigh");
                    w.eval().expect("eval");
                    v.eval().expect("eval");
                    dev.synchronize().expect("sync");
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, factorizations);
criterion_main!(benches);
