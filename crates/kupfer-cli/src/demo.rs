//! `kupfer demo`: the CuPy tutorial's first walkthrough (shared/seeds/000_*), done the kupfer
//! way on the default device and printed for a person to read: the device, arrays on the GPU,
//! elementwise math, what host↔device transfers cost, a correctness check against the CPU,
//! and CPU-vs-GPU timings over a few sizes. Exits with status 1 when the check fails.

use crate::bench::{cpu_time, gpu_time, wall_time, Timing};
use crate::common::{adapter_advice, fmt_bytes, fmt_count, fmt_ms, median, para, HostRng};
use crate::error::{CliError, CliResult, EXIT_CHECK_FAILED};
use crate::outln;
use kupfer as kp;
use kupfer::{Array, Axis, DType};
use kupfer_eval::format::{array_str, PrintOptions};
use std::hint::black_box;
use std::time::Instant;

/// Arguments of `kupfer demo`.
#[derive(Debug, clap::Args)]
pub struct DemoArgs {
    /// Use the small sizes meant for CPU adapters even on a real GPU.
    #[arg(long)]
    pub small: bool,
}

/// Sizes of the demo, by kind of adapter.
struct Sizes {
    /// Elements of the transfer lesson.
    transfer: usize,
    /// Elements of the correctness check.
    check: usize,
    /// Elements of the timing table's rows.
    table: &'static [usize],
}

/// Software adapters (lavapipe) run shaders on the CPU: keep the demo to a few seconds there.
const CPU_SIZES: Sizes = Sizes {
    transfer: 1 << 20,
    check: 1 << 20,
    table: &[1 << 10, 1 << 14, 1 << 18, 1 << 20],
};

const GPU_SIZES: Sizes = Sizes {
    transfer: 1 << 24,
    check: 1 << 22,
    table: &[1 << 10, 1 << 14, 1 << 18, 1 << 22, 1 << 24],
};

/// NumPy's `str(arr)` of a device array, indented under its heading.
fn show(a: &Array) -> CliResult<String> {
    let text = array_str(&a.to_host()?, &PrintOptions::default());
    Ok(text.replace('\n', "\n       "))
}

/// Prints a section heading.
fn section(n: usize, title: &str) {
    outln!();
    outln!("{n}. {title}");
}

/// `2 * x + y` on the GPU (lazy until evaluated).
fn saxpy(x: &Array, y: &Array) -> kp::Result<Array> {
    kp::add(kp::multiply(2.0, x)?, y)
}

/// `sin(x) + cos(x)` on the GPU (lazy until evaluated).
fn sin_cos(x: &Array) -> kp::Result<Array> {
    kp::add(kp::sin(x)?, kp::cos(x)?)
}

fn saxpy_cpu(x: &[f32], y: &[f32]) -> Vec<f32> {
    x.iter().zip(y).map(|(a, b)| 2.0 * a + b).collect()
}

fn sin_cos_cpu(x: &[f32]) -> Vec<f32> {
    x.iter().map(|a| a.sin() + a.cos()).collect()
}

/// Runs `kupfer demo`.
pub fn run(args: &DemoArgs) -> CliResult {
    let started = Instant::now();
    let dev = kp::Device::default_device()?;
    let _guard = dev.use_device();
    let info = dev.info().clone();
    let software = info.device_type == "Cpu";
    let sizes = if software || args.small {
        &CPU_SIZES
    } else {
        &GPU_SIZES
    };
    let t = Timing {
        device: dev.clone(),
        cpu: true,
        profile: false,
        profiled: Default::default(),
    };

    outln!("kupfer demo: the CuPy tutorial, the kupfer way");
    outln!("(Where CuPy says `import cupy as cp`, a kupfer program says `use kupfer as kp`.)");

    // 1. The device.
    section(1, "The device (cp.cuda.Device())");
    outln!(
        "   {} via {} ({} adapter)",
        info.name,
        info.backend,
        info.device_type
    );
    outln!("   driver: {}", info.driver);
    outln!(
        "   float64 {}, int64 {}, float16 {}; timing by {}",
        yes_no(dev.supports(DType::F64)),
        yes_no(dev.supports(DType::I64)),
        yes_no(dev.supports(DType::F16)),
        if dev.context().has_gpu_timestamps() {
            "GPU timestamps"
        } else {
            "the wall clock (no GPU timestamp queries)"
        }
    );
    if let Some(advice) = adapter_advice(&info) {
        para(&advice);
    }
    if software {
        para(
            "The sizes below are small, and the GPU is not expected to beat plain Rust by \
             much on a software adapter.",
        );
    }
    if cfg!(debug_assertions) {
        para(
            "(This kupfer was built without optimisations, so its plain-Rust CPU figures are \
             far too slow; build with --release for fair timings.)",
        );
    }

    // 2. Creating arrays.
    section(2, "Arrays on the GPU");
    let a = kp::asarray(&[1.0f32, 2.0, 3.0, 4.0, 5.0])?;
    outln!("   kp::asarray(&[1.0f32, 2.0, 3.0, 4.0, 5.0])     # cp.array([1., 2., 3., 4., 5.])");
    outln!(
        "     = {}   ({}, shape {:?})",
        show(&a)?,
        a.dtype(),
        a.shape()
    );
    let b = kp::ones(&[3, 3], None)?;
    outln!("   kp::ones(&[3, 3], None)                        # cp.ones((3, 3))");
    outln!("     = {}   ({})", show(&b)?, b.dtype());
    let r = kp::arange(0, 10, 1, None)?;
    outln!("   kp::arange(0, 10, 1, None)                     # cp.arange(10)");
    outln!("     = {}   ({})", show(&r)?, r.dtype());
    let c = kp::random::default_rng(Some(7)).standard_normal(&[1000, 1000], None)?;
    let mean = kp::mean(&c, Axis::All, false)?.item()?.as_f64();
    let std = kp::reduce::std(&c, Axis::All, 0, false)?.item()?.as_f64();
    outln!("   c = kp::random::default_rng(Some(7)).standard_normal(&[1000, 1000], None)");
    outln!("                                      # cp.random.default_rng(7).standard_normal((1000, 1000))");
    outln!(
        "     drawn on the GPU (Philox4x32-10): the same numbers on every GPU and in the browser"
    );
    outln!("     mean {mean:.4}, std {std:.4} (reduced on the GPU; NumPy expects about 0 and 1)");

    // 3. Elementwise math.
    section(
        3,
        "Elementwise math (lazy: each expression runs as one fused kernel)",
    );
    let ten = kp::asarray(&[10.0f32, 20.0, 30.0, 40.0, 50.0])?;
    outln!("   a                = {}", show(&a)?);
    outln!("   b                = {}", show(&ten)?);
    outln!("   a + b            = {}", show(&kp::add(&a, &ten)?)?);
    let x = kp::asarray(&[0.0f32, 0.5, 1.0, 1.5, 2.0])?;
    let y = kp::asarray(&[1.0f32, 1.0, 1.0, 1.0, 1.0])?;
    outln!("   x                = {}", show(&x)?);
    outln!("   2 * x + y        = {}", show(&saxpy(&x, &y)?)?);
    outln!("   sin(x) + cos(x)  = {}", show(&sin_cos(&x)?)?);

    // 4. Transfers.
    section(4, "What host <-> device transfers cost");
    transfer_lesson(&t, sizes.transfer, software)?;

    // 5. Correctness.
    section(5, "Correctness against the same computation on the CPU");
    let passed = correctness(sizes.check)?;

    // 6. Timings.
    section(6, "CPU (plain Rust) vs GPU");
    timing_table(&t, sizes.table)?;

    // 7. Memory pool.
    section(7, "Memory pool (cp.get_default_memory_pool())");
    let pool = dev.memory_pool();
    outln!(
        "   used {}, cached for reuse {}, total {}",
        fmt_bytes(pool.used_bytes()),
        fmt_bytes(pool.free_bytes()),
        fmt_bytes(pool.total_bytes())
    );
    drop((a, b, r, c, ten, x, y));
    dev.synchronize()?;
    pool.free_all_blocks();
    outln!(
        "   after dropping the arrays and free_all_blocks(): total {}",
        fmt_bytes(pool.total_bytes())
    );

    outln!();
    outln!(
        "Correctness: {}   (demo took {:.1} s)",
        if passed { "PASS" } else { "FAIL" },
        started.elapsed().as_secs_f64()
    );
    if passed {
        Ok(())
    } else {
        Err(CliError {
            message: "the demo's correctness check failed".into(),
            code: EXIT_CHECK_FAILED,
        })
    }
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// Times `2 * x + y` with the data already on the GPU against the same with the upload of
/// `x`, `y` and the download of the result, and says what that means.
fn transfer_lesson(t: &Timing, n: usize, software: bool) -> CliResult {
    let dev = &t.device;
    let mut rng = HostRng::new(3);
    let (hx, hy) = (rng.uniform_f32(n), rng.uniform_f32(n));
    let x = Array::from_slice(&hx, &[n])?;
    let y = Array::from_slice(&hy, &[n])?;
    let gpu_only = gpu_time(t, 5, || saxpy(&x, &y))?;
    // Warm the same path once, then time its parts by the wall clock.
    let mut parts = Vec::new();
    for _ in 0..4 {
        let t0 = Instant::now();
        let x = Array::from_slice(&hx, &[n])?;
        let y = Array::from_slice(&hy, &[n])?;
        dev.synchronize()?;
        let t1 = Instant::now();
        let z = saxpy(&x, &y)?;
        z.eval()?;
        dev.synchronize()?;
        let t2 = Instant::now();
        black_box(z.to_vec::<f32>()?);
        let t3 = Instant::now();
        let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e3;
        parts.push([ms(t0, t1), ms(t1, t2), ms(t2, t3)]);
    }
    let parts = &parts[1..];
    let med = |i: usize| median(parts.iter().map(|p| p[i]).collect());
    let (up, compute, down) = (med(0), med(1), med(2));
    let total = up + compute + down;
    let mib = fmt_bytes(4 * n as u64);
    outln!(
        "   z = 2 * x + y with n = {} float32 ({mib} per array):",
        fmt_count(n)
    );
    outln!(
        "     data already on the GPU (GPU time)            {:>9} ms",
        fmt_ms(gpu_only)
    );
    outln!(
        "     upload x and y, compute, download z (wall)    {:>9} ms   ({:.1}x)",
        fmt_ms(total),
        total / gpu_only
    );
    outln!(
        "       of which upload {} ms, compute {} ms, download {} ms",
        fmt_ms(up),
        fmt_ms(compute),
        fmt_ms(down)
    );
    let ratio = (up + down) / gpu_only;
    if software {
        para(&format!(
            "On a CPU adapter \"device memory\" is host memory, so a transfer is a plain memory \
             copy and costs about as much as the computation (the copies took {ratio:.1}x its \
             time here). On a real GPU \
             the bus (PCIe, ~25 GB/s) is tens of times slower than GPU memory, and the \
             transfers dominate: keep arrays on the GPU and bring back only results."
        ));
    } else if ratio > 1.5 {
        para(&format!(
            "Moving the data took {ratio:.0}x as long as computing on it: 2*x+y touches each \
             number once, so the copy over the bus is the whole cost. Keep arrays on the GPU \
             across many operations and bring back only the results you need."
        ));
    } else {
        para(&format!(
            "Here the transfers cost about as much as the computation ({ratio:.1}x), as on an \
             integrated GPU sharing memory with the CPU. Still, keep arrays on the GPU across \
             many operations and bring back only results."
        ));
    }
    Ok(())
}

/// Largest absolute and relative errors of `got` against `want`.
fn errors(got: &[f32], want: &[f32]) -> (f64, f64) {
    got.iter()
        .zip(want)
        .fold((0.0f64, 0.0f64), |(abs, rel), (&g, &w)| {
            let d = (f64::from(g) - f64::from(w)).abs();
            let r = d / f64::from(w).abs().max(f64::MIN_POSITIVE);
            (abs.max(d), rel.max(r))
        })
}

/// Compares GPU results with the CPU's; true when every check passes.
fn correctness(n: usize) -> CliResult<bool> {
    let mut rng = HostRng::new(4);
    // x in [-10^4, 10^4): large arguments, where a GPU's native sin and cos lose their
    // accuracy; kupfer's own libm reduces the argument exactly.
    let hx: Vec<f32> = rng
        .uniform_f32(n)
        .into_iter()
        .map(|v| (v * 2.0 - 1.0) * 1.0e4)
        .collect();
    let hy = rng.uniform_f32(n);
    let x = Array::from_slice(&hx, &[n])?;
    let y = Array::from_slice(&hy, &[n])?;
    outln!("   n = {} random float32 values", fmt_count(n));
    outln!(
        "   {:<16} {:>12} {:>12}   {:<36} result",
        "expression",
        "max abs err",
        "max rel err",
        "tolerance"
    );
    let mut all = true;
    let mut report = |name: &str, abs: f64, rel: f64, ok: bool, tol: &str| {
        all &= ok;
        outln!(
            "   {name:<16} {abs:>12.3e} {rel:>12.3e}   {tol:<36} {}",
            if ok { "PASS" } else { "FAIL" }
        );
    };

    let (abs, rel) = errors(&saxpy(&x, &y)?.to_vec::<f32>()?, &saxpy_cpu(&hx, &hy));
    // One rounding, or two without a fused multiply-add: a few float32 ulps.
    report(
        "2 * x + y",
        abs,
        rel,
        rel <= 1e-6,
        "rel <= 1e-6 (a few ulps)",
    );

    let exact: Vec<f32> = hx
        .iter()
        .map(|&a| (f64::from(a).sin() + f64::from(a).cos()) as f32)
        .collect();
    let (abs, rel) = errors(&sin_cos(&x)?.to_vec::<f32>()?, &exact);
    // sin and cos are each within an ulp (<= 6e-8) of the exact value; the sum adds one
    // rounding (the reference is computed in f64 and rounded once).
    report(
        "sin(x) + cos(x)",
        abs,
        rel,
        abs <= 1e-6,
        "abs <= 1e-6 (a few ulps of 1)",
    );

    let gpu_sum = kp::sum(&y, Axis::All, false)?.item()?.as_f64();
    let cpu_sum: f64 = hy.iter().map(|&v| f64::from(v)).sum();
    let d = (gpu_sum - cpu_sum).abs();
    let r = d / cpu_sum.abs().max(f64::MIN_POSITIVE);
    report("sum(y)", d, r, r <= 1e-5, "rel <= 1e-5 vs a float64 sum");
    Ok(all)
}

/// CPU and GPU times of `2 * x + y` and `sin(x) + cos(x)` over `sizes`.
fn timing_table(t: &Timing, sizes: &[usize]) -> CliResult {
    outln!(
        "   {:<8} {:<16} {:>10} {:>10} {:>12} {:>9}",
        "n",
        "expression",
        "CPU ms",
        "GPU ms",
        "GPU wall ms",
        "speed-up"
    );
    let mut wins_from: Option<usize> = None;
    let mut rng = HostRng::new(5);
    for &n in sizes {
        let (hx, hy) = (rng.uniform_f32(n), rng.uniform_f32(n));
        let x = Array::from_slice(&hx, &[n])?;
        let y = Array::from_slice(&hy, &[n])?;
        let reps = if n >= 1 << 22 { 3 } else { 10 };
        type GpuFn<'a> = Box<dyn Fn() -> kp::Result<Array> + 'a>;
        type CpuFn<'a> = Box<dyn Fn() -> Vec<f32> + 'a>;
        let rows: [(&str, GpuFn, CpuFn); 2] = [
            (
                "2 * x + y",
                Box::new(|| saxpy(&x, &y)),
                Box::new(|| saxpy_cpu(&hx, &hy)),
            ),
            (
                "sin(x) + cos(x)",
                Box::new(|| sin_cos(&x)),
                Box::new(|| sin_cos_cpu(&hx)),
            ),
        ];
        for (name, gpu, cpu) in rows {
            let cpu_ms = cpu_time(reps, || {
                black_box(cpu());
            });
            let gpu_ms = gpu_time(t, 5, &gpu)?;
            let wall_ms = wall_time(t, 5, || {
                let z = gpu()?;
                z.eval()?;
                Ok(z)
            })?;
            let speedup = cpu_ms / wall_ms;
            if speedup > 1.0 && wins_from.is_none() {
                wins_from = Some(n);
            }
            outln!(
                "   {:<8} {:<16} {:>10} {:>10} {:>12} {:>8.2}x",
                fmt_count(n),
                name,
                fmt_ms(cpu_ms),
                fmt_ms(gpu_ms),
                fmt_ms(wall_ms),
                speedup
            );
        }
    }
    para(
        "GPU ms: the work itself, between device events. GPU wall ms: launch and wait for the \
         result, as a program sees it. speed-up = CPU ms / GPU wall ms.",
    );
    match wins_from {
        Some(n) if n == sizes[0] => para("The GPU is faster at every size here."),
        Some(n) => para(&format!(
            "Below {} elements the fixed cost of a launch and a wait outweighs the work: small \
             arrays are faster on the CPU, as the tutorial says (use the GPU for large arrays).",
            fmt_count(n)
        )),
        None => para(
            "The CPU wins at every size here: the fixed cost of a launch and a wait outweighs \
             the work, and this adapter has no more compute than the CPU itself.",
        ),
    }
    Ok(())
}
