//! Per-adapter tile configurations: a small autotune at first use of a shape class, cached
//! beside the compiled pipelines (in the device's kernel cache).
//!
//! A shape class is the output dtype, the kernel's load variants and the problem size rounded
//! to a power of two of its cube root (so 4000³ and 4096³ share one tuning). The tuner runs
//! each candidate that fits the adapter's limits on the real problem (every candidate compiled
//! and run once first, so that no compilation leaves the GPU idle between timings; then the
//! default, untimed, until the device has been busy 400 ms, so that no candidate meets a
//! clocked-down GPU; then two rounds over the candidates, each of one warm-up and three timed
//! runs with GPU timestamps where the adapter has them) and keeps the fastest.
//! Choices are also kept on disk per adapter (`tune_store.rs`), so a later process reuses
//! them without tuning. Software adapters (lavapipe) and `KUPFER_MATMUL_TUNE=0` skip tuning and
//! take the default; `KUPFER_MATMUL_TUNE=1` tunes on software adapters too (the device's
//! `Config::matmul`).

use super::launch::Geometry;
use super::tune_store;
use crate::config::MatmulTune;
use crate::device::Device;
use kupfer_core::matmul::{acc_dtype, CoopConfig, MatmulKernel, TileConfig};
use kupfer_core::{DType, Result};

/// Key of one tuning: output dtype, kernel family and load variant (as a kernel with a
/// placeholder configuration), size class.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct TuneKey {
    out: DType,
    variant: String,
    size_class: u32,
    batched: bool,
}

/// The kernels tuned on a device, per shape class (the device's cache entry of this module).
#[derive(Default)]
struct TunedKernels(std::sync::Mutex<std::collections::HashMap<TuneKey, MatmulKernel>>);

fn size_class(geo: &Geometry) -> u32 {
    let work = (geo.m as f64) * (geo.n as f64) * (geo.k as f64);
    work.cbrt().log2().round() as u32
}

/// Problems smaller than this (in multiply-adds) take the default without tuning.
const MIN_TUNED_WORK: f64 = 256.0 * 256.0 * 256.0;

fn tuning_enabled(device: &Device, geo: &Geometry) -> bool {
    if cfg!(target_arch = "wasm32") {
        return false;
    }
    let forced = match device.config().matmul.tune {
        MatmulTune::Never => return false,
        MatmulTune::Always => true,
        MatmulTune::Auto => false,
    };
    let work = (geo.m as f64) * (geo.n as f64) * (geo.k as f64) * geo.batch as f64;
    (forced || device.info().device_type != "Cpu") && work >= MIN_TUNED_WORK
}

fn fits(device: &Device, threads: u32, bytes: u32) -> bool {
    let l = &device.info().limits;
    threads <= l.max_compute_invocations_per_workgroup
        && threads <= l.max_compute_workgroup_size_x
        && bytes <= l.max_compute_workgroup_storage_size
}

/// Timed runs of each candidate (after one untimed warm-up run); the tuner keeps the best.
const TIMED_RUNS: usize = 3;

/// Milliseconds of one run of `kernel` (the fastest of [`TIMED_RUNS`] after a warm-up run
/// that also compiles it), or None when it failed (e.g. did not compile on this driver).
#[cfg(not(target_arch = "wasm32"))]
fn time_kernel(device: &Device, geo: &Geometry, out: DType, kernel: MatmulKernel) -> Option<f64> {
    use super::launch::launch;
    let ctx = device.context();
    let scratch = launch(device, geo, out, kernel, None, None).ok()?;
    ctx.synchronize().ok()?;
    let mut best = f64::INFINITY;
    for _ in 0..TIMED_RUNS {
        let start = ctx.record_event().ok()?;
        launch(device, geo, out, kernel, Some(scratch.clone()), None).ok()?;
        let end = ctx.record_event().ok()?;
        ctx.synchronize().ok()?;
        best = best.min(start.elapsed_ms(&end).ok()?);
    }
    Some(best)
}

/// Rounds over the candidates when tuning (each keeps its best time).
const TUNE_ROUNDS: usize = 2;

/// Device-busy milliseconds of untimed runs before the candidates are timed (400 ms of
/// back-to-back work brought the H100's clocks back up in every trial).
const WARM_BUSY_MS: f64 = 400.0;

/// Runs `kernel` untimed until the device has been busy about [`WARM_BUSY_MS`] (at most 2000
/// rounds; at once on failure).
fn warm_up(device: &Device, geo: &Geometry, out: DType, kernel: MatmulKernel) {
    let mut busy = 0.0;
    for _ in 0..2000 {
        match time_kernel(device, geo, out, kernel) {
            Some(ms) if busy < WARM_BUSY_MS => busy += ms * (TIMED_RUNS + 1) as f64,
            _ => break,
        }
    }
}

/// Compiles and runs `kernel` once (untimed); None when it failed.
#[cfg(not(target_arch = "wasm32"))]
fn run_once(device: &Device, geo: &Geometry, out: DType, kernel: MatmulKernel) -> Option<()> {
    super::launch::launch(device, geo, out, kernel, None, None).ok()?;
    device.context().synchronize().ok()
}

#[cfg(target_arch = "wasm32")]
fn run_once(_: &Device, _: &Geometry, _: DType, _: MatmulKernel) -> Option<()> {
    None
}

#[cfg(target_arch = "wasm32")]
fn time_kernel(_: &Device, _: &Geometry, _: DType, _: MatmulKernel) -> Option<f64> {
    None
}

fn tuned(
    device: &Device,
    key: TuneKey,
    default: MatmulKernel,
    candidates: Vec<MatmulKernel>,
    geo: &Geometry,
    out: DType,
    tune: bool,
) -> Result<MatmulKernel> {
    let cache = &device.cache::<TunedKernels>().0;
    if let Some(k) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Ok(*k);
    }
    if !tune {
        return Ok(default);
    }
    let remember = |k: MatmulKernel| {
        cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key.clone(), k);
    };
    let store_key = format!("{key:?}");
    if let Some(choice) = tune_store::load(device, &store_key)
        && let Some(k) = candidates.iter().find(|k| describe(k) == choice)
    {
        remember(*k);
        return Ok(*k);
    }
    // Every candidate is compiled (and run once) first, so that no compilation leaves the GPU
    // idle between timings: on the H100 the driver at times drops the SM clock near 400 MHz
    // after such gaps, until the GPU has been busy for a while (a fresh process then tuned
    // float16 1024^3 to a kernel timed at 9 TFLOP/s instead of ~40, and ran everything after
    // it ~4x slower). Then the default runs untimed until the device has been busy
    // WARM_BUSY_MS, and the candidates are timed in TUNE_ROUNDS rounds, each keeping its best.
    for k in &candidates {
        let _ = run_once(device, geo, out, *k);
    }
    warm_up(device, geo, out, default);
    let mut times = vec![f64::INFINITY; candidates.len()];
    for _ in 0..TUNE_ROUNDS {
        for (k, t) in candidates.iter().zip(times.iter_mut()) {
            if let Some(ms) = time_kernel(device, geo, out, *k) {
                *t = t.min(ms);
            }
        }
    }
    let mut best = (f64::INFINITY, default);
    for (k, ms) in candidates.into_iter().zip(times) {
        if device.config().matmul.tune_log {
            eprintln!("kupfer matmul tune {key:?}: {k:?} {ms:.4} ms");
        }
        if ms < best.0 {
            best = (ms, k);
        }
    }
    if best.0.is_finite() {
        tune_store::save(device, &store_key, &describe(&best.1));
    }
    remember(best.1);
    Ok(best.1)
}

/// A kernel's tuned configuration as the store records it.
fn describe(k: &MatmulKernel) -> String {
    match k {
        MatmulKernel::Tiled { tile, .. } => format!("{tile:?}"),
        MatmulKernel::Coop { cfg, .. } => format!("{cfg:?}"),
        other => format!("{other:?}"),
    }
}

/// The tile configuration of the SIMT kernel for `geo` (`kernel` builds the kernel of a
/// configuration, with the geometry's loads).
pub(crate) fn tile_config(
    device: &Device,
    geo: &Geometry,
    out: DType,
    kernel: impl Fn(TileConfig) -> MatmulKernel,
) -> Result<TileConfig> {
    let default = TileConfig::default_for(geo.m, geo.n);
    let variant = match kernel(default) {
        MatmulKernel::Tiled { a, b, c_vec4, .. } => format!("tiled {a:?} {b:?} {c_vec4}"),
        k => format!("{k:?}"),
    };
    let key = TuneKey {
        out,
        variant,
        size_class: size_class(geo),
        batched: geo.batch > 1,
    };
    let candidates = TileConfig::candidates()
        .into_iter()
        .filter(|t| {
            let bytes = t.workgroup_bytes(acc_dtype(out));
            fits(device, t.threads(), bytes)
        })
        .map(&kernel)
        .collect();
    let tune = tuning_enabled(device, geo);
    match tuned(device, key, kernel(default), candidates, geo, out, tune)? {
        MatmulKernel::Tiled { tile, .. } => Ok(tile),
        _ => Ok(default),
    }
}

/// The cooperative-matrix configuration for `geo`.
pub(crate) fn coop_config(device: &Device, geo: &Geometry, out: DType) -> Result<CoopConfig> {
    let sg = device
        .context()
        .cooperative_matrix()
        .map_or(32, |c| c.subgroup_size);
    // The configurations of `MatmulConfig::coop_configs` (for kernel development), else the
    // tuner's own; either way only those whose registers fit a multiprocessor.
    let listed = device.config().matmul.coop_configs.as_ref().map(|l| {
        l.iter()
            .map(|&f| CoopConfig::from_numbers(f, sg))
            .collect::<Vec<_>>()
    });
    let candidates: Vec<CoopConfig> = listed
        .unwrap_or_else(|| CoopConfig::candidates(sg))
        .into_iter()
        .filter(|c| c.fits_register_file() && fits(device, c.threads(), c.workgroup_bytes()))
        .collect();
    let default = candidates
        .first()
        .copied()
        .unwrap_or(CoopConfig::candidates(sg)[0]);
    let (a, b) = geo.coop_loads();
    let as_kernel = |cfg| MatmulKernel::Coop {
        cfg,
        f16_acc: false,
        a,
        b,
    };
    let key = TuneKey {
        out,
        variant: format!("coop {:?} {:?} {a:?} {b:?}", geo.a_dtype, geo.b_dtype),
        size_class: size_class(geo),
        batched: geo.batch > 1,
    };
    let tune = tuning_enabled(device, geo);
    match tuned(
        device,
        key,
        as_kernel(default),
        candidates.into_iter().map(as_kernel).collect(),
        geo,
        out,
        tune,
    )? {
        MatmulKernel::Coop { cfg, .. } => Ok(cfg),
        _ => Ok(default),
    }
}
