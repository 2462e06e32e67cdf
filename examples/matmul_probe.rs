//! Checks and times every matmul kernel on the current adapter: the tensor-core
//! (cooperative-matrix) kernels against the SIMT and simple kernels, and the forced tile
//! configurations against each other. For kernel development on a real GPU; the tests in
//! `tests/matmul.rs` are the correctness suite.
//!
//! `cargo run --release --example matmul_probe [check|time N|all N|coop N...|simt N...]`

use kupfer as kp;
use kupfer::{Array, DType, Force, MatmulPrecision};

fn random(shape: &[usize], seed: u64) -> Array {
    let n: usize = shape.iter().product();
    let mut s = seed.wrapping_mul(0x9e3779b97f4a7c15) | 1;
    let h: Vec<f32> = (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        })
        .collect();
    Array::from_slice(&h, shape).expect("upload")
}

fn as_f32(a: &Array) -> Vec<f32> {
    a.astype(DType::F32).unwrap().to_vec::<f32>().unwrap()
}

/// Largest |x - y| / (k * 2^-10 + |y|).
fn rel_err(x: &[f32], y: &[f32], k: usize) -> f64 {
    x.iter()
        .zip(y)
        .map(|(a, b)| {
            let d = (f64::from(*a) - f64::from(*b)).abs();
            d / ((k as f64).sqrt() * 1e-3 + f64::from(b.abs()))
        })
        .fold(0.0, f64::max)
}

fn check() {
    let dev = kp::Device::current().unwrap();
    let coop = dev.context().cooperative_matrix();
    println!("adapter {}: cooperative matrices {coop:?}", dev.info().name);
    let shapes: &[(&[usize], &[usize], bool, bool)] = &[
        (&[256, 256], &[256, 256], false, false),
        (&[1000, 777], &[777, 1031], false, false),
        (&[3, 130, 70], &[70, 66], false, false),
        // K and N multiples of 4 but not 8: the 4-wide float16 loads of the tensor-core kernel.
        (&[260, 132], &[132, 196], false, false),
        (&[300, 200], &[300, 100], true, false),
        (&[200, 300], &[100, 300], false, true),
        (&[2048, 2048], &[2048, 2048], false, false),
        // float16 operands read 8 at a time (the tensor-core kernel's streamed k loop) with
        // ragged M and N edges and a partial last k step, batched and broadcast.
        (&[1000, 776], &[776, 1032], false, false),
        (&[3, 136, 72], &[72, 200], false, false),
    ];
    let mut ok = true;
    for &(sa, sb, ta, tb) in shapes {
        let (a, b, k) = operands(sa, sb, ta, tb);
        let exact = kp::matmul_forced(&a, &b, MatmulPrecision::Exact, Force::Simple).unwrap();
        let want = as_f32(&exact);
        let mut line = format!(
            "{sa:?}{}@{sb:?}{}:",
            if ta { ".T" } else { "" },
            if tb { ".T" } else { "" }
        );
        // SIMT tiled f32 (automatic choice) against the simple kernel.
        let tiled = as_f32(&kp::matmul(&a, &b).unwrap());
        let e = rel_err(&tiled, &want, k);
        line += &format!(" f32 auto {e:.2e}");
        ok &= e < 1e-3;
        // f16 operands (auto: coop where available) against the f32 product of the f16 values.
        let (a16, b16) = (a.astype(DType::F16).unwrap(), b.astype(DType::F16).unwrap());
        // The f16 values, rounded on the host and uploaded as f32.
        let host16 = |x: &Array| {
            let v: Vec<f32> = x
                .to_vec::<kp::f16>()
                .unwrap()
                .iter()
                .map(|h| h.to_f32())
                .collect();
            Array::from_slice(&v, x.shape()).unwrap()
        };
        let want16 = as_f32(
            &kp::matmul_forced(
                &host16(&a16),
                &host16(&b16),
                MatmulPrecision::Exact,
                Force::Simple,
            )
            .unwrap(),
        );
        let simple16 =
            as_f32(&kp::matmul_forced(&a16, &b16, MatmulPrecision::Exact, Force::Simple).unwrap());
        line += &format!(" f16 simple {:.2e}", rel_err(&simple16, &want16, k));
        let h = as_f32(&kp::matmul(&a16, &b16).unwrap());
        let e = rel_err(&h, &want16, k);
        line += &format!(" f16 auto {e:.2e}");
        ok &= e < 2e-2;
        if let Some(coop) = coop {
            let r = as_f32(&kp::matmul_with(&a, &b, MatmulPrecision::ReducedF16).unwrap());
            let e = rel_err(&r, &want, k);
            line += &format!(" f32 reduced {e:.2e}");
            // f16 rounding of the operands: about 2^-11 sqrt(K) |a| |b| per element.
            ok &= e < 0.2;
            for cfg in kp::CoopConfig::candidates(coop.subgroup_size) {
                let r = as_f32(
                    &kp::matmul_forced(&a16, &b16, MatmulPrecision::Exact, Force::Coop(cfg))
                        .unwrap(),
                );
                let e = rel_err(&r, &want16, k);
                if e > 2e-2 {
                    line += &format!(" BAD coop {cfg:?} {e:.2e}");
                    ok = false;
                }
            }
        }
        println!("{line}");
    }
    println!("{}", if ok { "CHECK OK" } else { "CHECK FAILED" });
}

fn time_forced(a: &Array, b: &Array, force: Force, reps: usize) -> f64 {
    let dev = a.device();
    let r = kp::matmul_forced(a, b, MatmulPrecision::Exact, force).unwrap();
    drop(r);
    dev.synchronize().unwrap();
    let mut ms = Vec::new();
    for _ in 0..reps {
        let e0 = dev.record_event().unwrap();
        let r = kp::matmul_forced(a, b, MatmulPrecision::Exact, force).unwrap();
        let e1 = dev.record_event().unwrap();
        ms.push(e0.elapsed_ms(&e1).unwrap());
        drop(r);
    }
    ms.sort_by(f64::total_cmp);
    ms[ms.len() / 2]
}

fn time(n: usize) {
    let dev = kp::Device::current().unwrap();
    let a = random(&[n, n], 3);
    let b = random(&[n, n], 4);
    let flops = 2.0 * (n as f64).powi(3);
    let reps = if dev.info().device_type == "Cpu" {
        1
    } else {
        5
    };
    let mut forces = vec![("simple".to_string(), Force::Simple)];
    for t in kp::TileConfig::candidates() {
        forces.push((format!("{t:?}"), Force::Tiled(t)));
    }
    for (name, f) in &forces {
        let ms = time_forced(&a, &b, *f, reps);
        println!(
            "f32 n={n} {name}: {ms:.3} ms {:.2} TFLOP/s",
            flops / ms / 1e9
        );
    }
    coop_times(n, reps);
}

/// Times every tensor-core configuration on float16 n x n operands (when the adapter has
/// cooperative matrices): after `PROBE_WARM` seconds (default 0) of products that wake the
/// GPU, three rounds over all configurations, each configuration's best round reported
/// (rounds interleave the configurations, so a slow phase of the GPU hits all alike).
fn coop_times(n: usize, reps: usize) {
    let dev = kp::Device::current().unwrap();
    let Some(c) = dev.context().cooperative_matrix() else {
        return;
    };
    let flops = 2.0 * (n as f64).powi(3);
    let a16 = random(&[n, n], 3).astype(DType::F16).unwrap();
    let b16 = random(&[n, n], 4).astype(DType::F16).unwrap();
    a16.eval().unwrap();
    b16.eval().unwrap();
    let cfgs = kp::CoopConfig::candidates(c.subgroup_size);
    let warm: f64 = std::env::var("PROBE_WARM")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.0);
    let t0 = std::time::Instant::now();
    while t0.elapsed().as_secs_f64() < warm {
        time_forced(&a16, &b16, Force::Coop(cfgs[0]), reps);
    }
    let mut best = vec![f64::INFINITY; cfgs.len()];
    for _ in 0..3 {
        for (b, cfg) in best.iter_mut().zip(&cfgs) {
            *b = b.min(time_forced(&a16, &b16, Force::Coop(*cfg), reps));
        }
    }
    for (ms, cfg) in best.iter().zip(&cfgs) {
        println!(
            "f16 n={n} coop {cfg:?}: {ms:.3} ms {:.2} TFLOP/s",
            flops / ms / 1e9
        );
    }
}

/// Checks every forced SIMT tile configuration on ragged and transposed shapes, then times
/// each at every size in `ns` (float32).
fn simt(ns: &[usize]) {
    let dev = kp::Device::current().unwrap();
    println!("adapter {}", dev.info().name);
    let shapes: &[(&[usize], &[usize], bool, bool)] = &[
        (&[1000, 777], &[777, 1031], false, false),
        (&[300, 200], &[300, 100], true, false),
        (&[3, 130, 72], &[72, 68], false, false),
    ];
    let mut ok = true;
    for &(sa, sb, ta, tb) in shapes {
        let (a, b, k) = operands(sa, sb, ta, tb);
        let want =
            as_f32(&kp::matmul_forced(&a, &b, MatmulPrecision::Exact, Force::Simple).unwrap());
        for t in kp::TileConfig::candidates() {
            let r = kp::matmul_forced(&a, &b, MatmulPrecision::Exact, Force::Tiled(t));
            match r {
                Ok(r) => {
                    let e = rel_err(&as_f32(&r), &want, k);
                    if e > 1e-3 {
                        println!("BAD {sa:?}@{sb:?} {t:?} {e:.2e}");
                        ok = false;
                    }
                }
                Err(e) => {
                    println!("ERR {t:?} {e}");
                    ok = false;
                }
            }
        }
    }
    println!("{}", if ok { "CHECK OK" } else { "CHECK FAILED" });
    for &n in ns {
        let a = random(&[n, n], 3);
        let b = random(&[n, n], 4);
        let flops = 2.0 * (n as f64).powi(3);
        for t in kp::TileConfig::candidates() {
            let ms = time_forced(&a, &b, Force::Tiled(t), 7);
            println!(
                "f32 n={n} {}x{}x{} {}x{}: {ms:.3} ms {:.2} TFLOP/s",
                t.bm,
                t.bn,
                t.bk,
                t.tm,
                t.tn,
                flops / ms / 1e9
            );
        }
    }
}

/// Random operands of shapes `sa` and `sb` (transposed views when `ta` / `tb`) and their
/// inner dimension.
fn operands(sa: &[usize], sb: &[usize], ta: bool, tb: bool) -> (kp::Array, kp::Array, usize) {
    let a = random(sa, 1);
    let b = random(sb, 2);
    let a = if ta { a.t().unwrap() } else { a };
    let b = if tb { b.t().unwrap() } else { b };
    let k = *a.shape().last().unwrap();
    (a, b, k)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1024);
    match args.first().map(String::as_str) {
        Some("time") => time(n),
        Some("coop") => {
            for n in args[1..].iter().filter_map(|s| s.parse().ok()) {
                coop_times(n, 7);
            }
        }
        Some("simt") => {
            let ns: Vec<usize> = args[1..].iter().filter_map(|s| s.parse().ok()).collect();
            simt(&ns)
        }
        Some("cast") => {
            let a = random(&[8], 1);
            let h = a.to_vec::<f32>().unwrap();
            let r = as_f32(&a.astype(DType::F16).unwrap());
            let r2 = a
                .astype(DType::F16)
                .unwrap()
                .astype(DType::F32)
                .unwrap()
                .to_vec::<f32>()
                .unwrap();
            let want: Vec<f32> = h.iter().map(|&x| f32::from(kp::f16::from_f32(x))).collect();
            println!("{h:?}\n{r:?}\n{r2:?}\n{want:?}");
        }
        Some("all") => {
            check();
            time(n);
        }
        _ => check(),
    }
}
