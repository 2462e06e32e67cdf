//! `kupfer bench [--json] [CASE...]`: the CuPy anchor's benchmark cases on kupfer.
//!
//! `--json` prints one JSON object per line with the anchor's case names, parameters and
//! metrics (`{"case": NAME, "ms": MEDIAN_MS, "n": N, "gbs": FIGURE}`), so one script can put
//! kupfer's figures beside `shared/bench/cupy_anchor.py`'s. The default output is a table
//! with a CPU reference (the same computation in plain Rust) and the speed-up over it.
//!
//! Timing rule (the anchor's): 3 warm-up runs, then the median of 20 (10 for transfers, 2000
//! for the per-op wall-clock cases). GPU cases are timed between two device events that
//! enclose all the work, including the materialisation of the lazy expression; `*_wall` and
//! transfer cases by the wall clock up to a synchronize.

mod cases;
mod fft_cases;
mod index_cases;
mod linalg_cases;
mod loop_cases;
mod manip_cases;
mod matmul;
mod packed_cases;
mod profile;
mod random_cases;
mod signal_cases;
mod sort_cases;

use crate::common::{count_arg, fmt_count, fmt_ms, median};
use crate::error::{CliError, CliResult};
use crate::outln;
use cases::{Case, Group, Measurement, CASES};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use kupfer as kp;
use serde_json::Value;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// Warm-up runs before timing (at least).
const WARMUP: usize = 3;
/// Wall time the warm-up keeps the device busy for after its first run (which compiles and
/// tunes): an idle GPU raises its clocks only after some milliseconds of work, and the H100's
/// driver at times leaves the SM clock near 400 MHz after the idle gaps of pipeline
/// compilations, so that everything after runs ~4x slower (rfft 2^22 0.13 -> 0.53 ms, the
/// "full run" slowdown of earlier stops) until the GPU has been kept busy for a while: 400
/// ms of back-to-back work brought it back in every trial, 50 ms did not always.
const WARM_BUSY: Duration = Duration::from_millis(400);
/// Most warm-up runs.
const WARM_MAX_RUNS: usize = 20000;
/// Warm-up runs between synchronizations (so that the device has work queued throughout).
const WARM_SYNC_EVERY: usize = 64;

/// Runs `step` (one warm-up run) [`WARMUP`] times, and after the first run (compiling and
/// tuning) more until the device has been kept busy for [`WARM_BUSY`].
fn warm_up(dev: &kp::Device, mut step: impl FnMut() -> kp::Result<()>) -> CliResult<()> {
    step()?;
    dev.synchronize()?;
    let start = Instant::now();
    let mut runs = 1;
    while runs < WARMUP || (start.elapsed() < WARM_BUSY && runs < WARM_MAX_RUNS) {
        step()?;
        runs += 1;
        if runs % WARM_SYNC_EVERY == 0 {
            dev.synchronize()?;
        }
    }
    dev.synchronize()?;
    Ok(())
}

/// Size presets of `kupfer bench`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Sizes {
    /// The anchor's sizes (up to 2^26 elements).
    Full,
    /// At most 2^20 elements: quick, for CPU adapters (lavapipe) and CI.
    Small,
}

/// Arguments of `kupfer bench`.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// Cases to run, by the anchor's names (default: all; `--list` shows them).
    #[arg(value_name = "CASE")]
    pub cases: Vec<String>,
    /// One JSON object per line, as shared/bench/cupy_anchor.py prints them.
    #[arg(long)]
    pub json: bool,
    /// `full`: the anchor's sizes; `small`: at most 2^20 elements.
    #[arg(long, value_enum, default_value_t = Sizes::Full)]
    pub sizes: Sizes,
    /// Caps the element count (e.g. 65536, 2^16, 1<<16, 64K): larger sizes run at the cap;
    /// fixed-size cases above it (the 4096² matrix) are skipped.
    #[arg(long, value_name = "N", value_parser = count_arg)]
    pub max_n: Option<usize>,
    /// Leave out the CPU reference (always left out with --json).
    #[arg(long)]
    pub no_cpu: bool,
    /// List the cases and exit.
    #[arg(long)]
    pub list: bool,
    /// After each case's timed runs, one more run with every dispatch timed on the GPU:
    /// wall time, GPU time, gaps between dispatches, and a table by kernel (with --json, a
    /// "profile" object in the case's line).
    #[arg(long)]
    pub profile: bool,
}

/// Where and how cases are timed.
pub struct Timing {
    /// The device under test.
    pub device: kp::Device,
    /// Whether to time the CPU reference too.
    pub cpu: bool,
    /// Whether to profile one more run of each case (`--profile`).
    pub profile: bool,
    /// The profiled run of the case last timed.
    pub profiled: std::cell::RefCell<Option<profile::ProfiledRun>>,
}

/// Median GPU milliseconds of `f` between two events that enclose building the expression and
/// materialising it (`record → f() → eval() → record`), after [`WARMUP`] runs.
pub fn gpu_time(
    t: &Timing,
    reps: usize,
    mut f: impl FnMut() -> kp::Result<kp::Array>,
) -> CliResult<f64> {
    let dev = &t.device;
    let _guard = dev.use_device();
    warm_up(dev, || f()?.eval().map(|_| ()))?;
    let mut ms = Vec::with_capacity(reps);
    for _ in 0..reps {
        let start = dev.record_event()?;
        let a = f()?;
        a.eval()?;
        let end = dev.record_event()?;
        ms.push(start.elapsed_ms(&end)?);
        drop(a);
    }
    profile::profile_once(t, || {
        let a = f()?;
        a.eval()?;
        Ok(a)
    })?;
    Ok(median(ms))
}

/// Median wall-clock milliseconds of `f` followed by a device synchronize, after [`WARMUP`]
/// runs. What `f` returns lives until after the synchronize.
pub fn wall_time<T>(
    t: &Timing,
    reps: usize,
    mut f: impl FnMut() -> kp::Result<T>,
) -> CliResult<f64> {
    let dev = &t.device;
    let _guard = dev.use_device();
    warm_up(dev, || {
        let r = f()?;
        dev.synchronize()?;
        drop(r);
        Ok(())
    })?;
    let mut ms = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t0 = Instant::now();
        let r = f()?;
        dev.synchronize()?;
        ms.push(t0.elapsed().as_secs_f64() * 1e3);
        drop(r);
    }
    profile::profile_once(t, &mut f)?;
    Ok(median(ms))
}

/// Median milliseconds of a CPU computation after one warm-up run.
pub fn cpu_time(reps: usize, mut f: impl FnMut()) -> f64 {
    f();
    let ms = (0..reps.max(1))
        .map(|_| {
            let t0 = Instant::now();
            f();
            t0.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    median(ms)
}

/// One run of one case at one size.
#[derive(Debug, Clone, Copy)]
struct Step {
    case: &'static Case,
    /// Element count for the vector and transfer cases.
    n: Option<usize>,
}

/// The selected cases, validated against the registry.
fn select(names: &[String]) -> CliResult<Vec<&'static Case>> {
    if names.is_empty() {
        return Ok(CASES.iter().collect());
    }
    let mut out: Vec<&'static Case> = Vec::new();
    for name in names {
        let Some(case) = cases::find(name) else {
            let known: Vec<&str> = CASES.iter().map(|c| c.name).collect();
            return Err(CliError::usage(format!(
                "unknown bench case '{name}' (cases: {})",
                known.join(", ")
            )));
        };
        if !out.iter().any(|c| c.name == case.name) {
            out.push(case);
        }
    }
    // The anchor's order, whatever order they were named in.
    out.sort_by_key(|c| CASES.iter().position(|k| k.name == c.name));
    Ok(out)
}

/// `sizes` with every size above `cap` lowered to it, without repeats.
/// Plans a case that runs at each of `sizes` (those within the cap), or once at a fixed size
/// (`fixed(name)` elements) when `sizes` is empty; a case over the cap gets a note instead.
fn plan_sized(
    case: &'static Case,
    sizes: &[usize],
    fixed: fn(&str) -> usize,
    cap: Option<usize>,
    steps: &mut Vec<Step>,
    notes: &mut Vec<String>,
) {
    if !sizes.is_empty() {
        steps.extend(
            capped(sizes, cap)
                .into_iter()
                .map(|n| Step { case, n: Some(n) }),
        );
        return;
    }
    let elems = fixed(case.name);
    if cap.is_none_or(|c| c >= elems) {
        steps.push(Step { case, n: None });
    } else {
        notes.push(format!(
            "{} skipped: its {} elements exceed the size cap",
            case.name,
            fmt_count(elems)
        ));
    }
}

fn capped(sizes: &[usize], cap: Option<usize>) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    for &n in sizes {
        let n = cap.map_or(n, |c| n.min(c));
        if !out.contains(&n) {
            out.push(n);
        }
    }
    out
}

/// Every step in run order (the anchor's: vector cases by size, then the matrix, the tiny
/// cases, the transfers), and notes about skipped cases.
fn plan(selected: &[&'static Case], cap: Option<usize>) -> (Vec<Step>, Vec<String>) {
    let of = |g: Group| selected.iter().copied().filter(move |c| c.group == g);
    let mut steps = Vec::new();
    let mut notes = Vec::new();
    for n in capped(cases::VECTOR_SIZES, cap) {
        steps.extend(of(Group::Vector).map(|case| Step { case, n: Some(n) }));
    }
    let square = cases::SQUARE * cases::SQUARE;
    if cap.is_none_or(|c| c >= square) {
        steps.extend(of(Group::Square).map(|case| Step { case, n: None }));
    } else {
        for case in of(Group::Square) {
            notes.push(format!(
                "{} skipped: its {} elements exceed the size cap",
                case.name,
                fmt_count(square)
            ));
        }
    }
    for n in matmul::MATMUL_SIZES.iter().copied() {
        if cap.is_none_or(|c| c >= n * n) {
            steps.extend(of(Group::Matmul).map(|case| Step { case, n: Some(n) }));
        } else {
            for case in of(Group::Matmul) {
                notes.push(format!(
                    "{} at n={n} skipped: its {} elements exceed the size cap",
                    case.name,
                    fmt_count(n * n)
                ));
            }
        }
    }
    let gemv = cases::SQUARE * cases::SQUARE;
    if cap.is_none_or(|c| c >= gemv) {
        steps.extend(of(Group::MatmulFixed).map(|case| Step { case, n: None }));
    } else {
        for case in of(Group::MatmulFixed) {
            notes.push(format!(
                "{} skipped: its {} elements exceed the size cap",
                case.name,
                fmt_count(gemv)
            ));
        }
    }
    for case in of(Group::Fft) {
        let (sizes, fixed) = (fft_cases::sizes(case.name), fft_cases::fixed_elements);
        plan_sized(case, sizes, fixed, cap, &mut steps, &mut notes);
    }
    for case in of(Group::Sort) {
        let (sizes, fixed) = (sort_cases::sizes(case.name), sort_cases::fixed_elements);
        plan_sized(case, sizes, fixed, cap, &mut steps, &mut notes);
    }
    for case in of(Group::Signal) {
        let elems = signal_cases::side(case.name).pow(2);
        if cap.is_none_or(|c| c >= elems) {
            steps.push(Step { case, n: None });
        } else {
            notes.push(format!(
                "{} skipped: its {} elements exceed the size cap",
                case.name,
                fmt_count(elems)
            ));
        }
    }
    for case in of(Group::Linalg) {
        for &n in linalg_cases::sizes(case.name) {
            let elems = linalg_cases::elements(case.name, n);
            if cap.is_none_or(|c| c >= elems) {
                steps.push(Step { case, n: Some(n) });
            } else {
                notes.push(format!(
                    "{} at n={n} skipped: its {} elements exceed the size cap",
                    case.name,
                    fmt_count(elems)
                ));
            }
        }
    }
    for case in of(Group::Manip) {
        let elems = manip_cases::elements(case.name);
        if cap.is_none_or(|c| c >= elems) {
            steps.push(Step { case, n: None });
        } else {
            notes.push(format!(
                "{} skipped: its {} elements exceed the size cap",
                case.name,
                fmt_count(elems)
            ));
        }
    }
    for case in of(Group::Random) {
        let (sizes, fixed) = (random_cases::sizes(case.name), random_cases::fixed_elements);
        plan_sized(case, sizes, fixed, cap, &mut steps, &mut notes);
    }
    for case in of(Group::Index) {
        let (sizes, fixed) = (index_cases::sizes(case.name), index_cases::fixed_elements);
        plan_sized(case, sizes, fixed, cap, &mut steps, &mut notes);
    }
    steps.extend(of(Group::Tiny).map(|case| Step { case, n: None }));
    steps.extend(of(Group::Loop).map(|case| Step { case, n: None }));
    for n in capped(cases::TRANSFER_SIZES, cap) {
        steps.extend(of(Group::Transfer).map(|case| Step { case, n: Some(n) }));
    }
    (steps, notes)
}

/// Inputs shared by consecutive steps of one group and size.
enum Loaded {
    Nothing,
    Vector(usize, cases::VectorInputs),
    Square(cases::SquareInputs),
}

fn run_step(step: Step, loaded: &mut Loaded, t: &Timing) -> CliResult<Measurement> {
    let dev = &t.device;
    match step.case.group {
        Group::Vector => {
            let n = step.n.unwrap_or(cases::VECTOR_SIZES[0]);
            if !matches!(loaded, Loaded::Vector(m, _) if *m == n) {
                release(loaded, dev);
                *loaded = Loaded::Vector(n, cases::VectorInputs::new(dev, n)?);
            }
            let Loaded::Vector(_, inp) = &*loaded else {
                unreachable!("loaded just above")
            };
            cases::run_vector(step.case, inp, t)
        }
        Group::Square => {
            if !matches!(loaded, Loaded::Square(_)) {
                release(loaded, dev);
                *loaded = Loaded::Square(cases::SquareInputs::new(dev)?);
            }
            let Loaded::Square(inp) = &*loaded else {
                unreachable!("loaded just above")
            };
            cases::run_square(step.case, inp, t)
        }
        Group::Tiny => {
            release(loaded, dev);
            cases::run_tiny(step.case, t)
        }
        Group::Matmul | Group::MatmulFixed => {
            release(loaded, dev);
            let r = matmul::run(step.case, step.n.unwrap_or(0), t);
            let _ = dev.synchronize();
            dev.memory_pool().free_all_blocks();
            r
        }
        Group::Transfer => {
            release(loaded, dev);
            let n = step.n.unwrap_or(cases::TRANSFER_SIZES[0]);
            cases::run_transfer(step.case, n, t)
        }
        Group::Fft => {
            release(loaded, dev);
            fft_cases::run(step.case.name, step.n, t)
        }
        Group::Signal => {
            release(loaded, dev);
            signal_cases::run(step.case.name, t)
        }
        Group::Linalg => {
            release(loaded, dev);
            let r = linalg_cases::run(step.case.name, step.n.unwrap_or(0), t);
            let _ = dev.synchronize();
            dev.memory_pool().free_all_blocks();
            r
        }
        Group::Manip => {
            release(loaded, dev);
            let r = manip_cases::run(step.case.name, t);
            let _ = dev.synchronize();
            dev.memory_pool().free_all_blocks();
            r
        }
        Group::Random => {
            release(loaded, dev);
            let r = random_cases::run(step.case.name, step.n, t);
            let _ = dev.synchronize();
            dev.memory_pool().free_all_blocks();
            r
        }
        Group::Sort => {
            release(loaded, dev);
            let r = sort_cases::run(step.case.name, step.n, t);
            let _ = dev.synchronize();
            dev.memory_pool().free_all_blocks();
            r
        }
        Group::Index => {
            release(loaded, dev);
            let r = index_cases::run(step.case.name, step.n, t);
            let _ = dev.synchronize();
            dev.memory_pool().free_all_blocks();
            r
        }
        Group::Loop => {
            release(loaded, dev);
            loop_cases::run(step.case.name, t)
        }
    }
}

/// Drops the inputs of the previous group and gives their memory back to the driver (the
/// biggest sizes need it on small GPUs and on CPU adapters).
fn release(loaded: &mut Loaded, dev: &kp::Device) {
    if !matches!(loaded, Loaded::Nothing) {
        *loaded = Loaded::Nothing;
        let _ = dev.synchronize();
        dev.memory_pool().free_all_blocks();
    }
}

/// `{"case": ..., "ms": ..., params..., metric, extra...}` with the anchor's key order and
/// Python's `json.dumps` spacing; `ms` rounded to 4 decimals as the anchor rounds it.
fn json_line(case: &str, m: &Measurement) -> String {
    let mut fields = vec![
        ("case", Value::from(case)),
        ("ms", Value::from((m.ms * 1e4).round() / 1e4)),
    ];
    fields.extend(m.params.iter().cloned());
    if let Some((k, x)) = m.metric {
        fields.push((k, Value::from(x)));
    }
    fields.extend(m.extra.iter().cloned());
    json_object(&fields)
}

/// A JSON object with its keys in the given order, spaced as Python's `json.dumps`.
fn json_object(fields: &[(&str, Value)]) -> String {
    let body: Vec<String> = fields
        .iter()
        .map(|(k, x)| format!("{}: {}", Value::from(*k), x))
        .collect();
    format!("{{{}}}", body.join(", "))
}

/// A speed-up with three significant digits (`12.3x`, `0.00123x`).
fn fmt_speedup(s: f64) -> String {
    if !s.is_finite() || s <= 0.0 {
        return "-".into();
    }
    let decimals = (2 - s.log10().floor() as i32).clamp(0, 6) as usize;
    format!("{s:.decimals$}x")
}

/// The parameters column of the table.
fn params_text(step: Step, m: &Measurement) -> String {
    match step.case.group {
        Group::Vector | Group::Transfer => format!("n={}", fmt_count(step.n.unwrap_or(0))),
        Group::Fft | Group::Sort => match step.n {
            Some(n) => format!("n={}", fmt_count(n)),
            None => "-".into(),
        },
        Group::Square => format!("{0}x{0}", cases::SQUARE),
        Group::Matmul => format!("n={}", step.n.unwrap_or(0)),
        Group::MatmulFixed | Group::Loop => "-".into(),
        Group::Signal => format!("{0}x{0}", signal_cases::side(step.case.name)),
        Group::Linalg if linalg_cases::is_batched(step.case.name) => {
            let k = step.n.unwrap_or(0);
            format!("{}x{k}x{k}", linalg_cases::batch(k))
        }
        Group::Linalg if linalg_cases::is_tall(step.case.name) => {
            format!("4096x{}", step.n.unwrap_or(0))
        }
        Group::Linalg => format!("n={}", step.n.unwrap_or(0)),
        Group::Manip => "-".into(),
        Group::Random => match step.n {
            Some(n) => format!("n={}", fmt_count(n)),
            None => format!(
                "n={}",
                fmt_count(random_cases::fixed_elements(step.case.name))
            ),
        },
        Group::Index => match step.n {
            Some(n) => format!("n={}", fmt_count(n)),
            None => "-".into(),
        },
        Group::Tiny => {
            let mode = m.extra.iter().find(|(k, _)| *k == "mode");
            match mode.and_then(|(_, v)| v.as_str()) {
                Some("amortized") => format!("n=16, {}/sync", cases::TINY_OPS_PER_SYNC),
                Some(_) => "n=16, sync each".into(),
                None => "n=16".into(),
            }
        }
    }
}

const TABLE_HEADER: &str =
    "case                        params               ms  GB/s|TF/s     CPU ms   speed-up";

fn table_row(step: Step, m: &Measurement) -> String {
    // The figure of merit (GB/s, or TFLOP/s for matmul), three significant digits when small.
    let gbs = m
        .metric
        .map(|(_, x)| {
            if x >= 10.0 || x == 0.0 {
                format!("{x:.1}")
            } else {
                format!("{x:.3}")
            }
        })
        .unwrap_or_else(|| "-".into());
    let (cpu, speedup) = match m.cpu_ms {
        Some(c) => (fmt_ms(c), fmt_speedup(c / m.ms)),
        None => ("-".into(), "-".into()),
    };
    format!(
        "{:<27} {:<16} {:>10} {:>10} {:>10} {:>10}",
        step.case.name,
        params_text(step, m),
        fmt_ms(m.ms),
        gbs,
        cpu,
        speedup
    )
}

fn progress_bar(len: usize, json: bool) -> ProgressBar {
    let pb = ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::stderr());
    if json || !std::io::stderr().is_terminal() {
        pb.set_draw_target(ProgressDrawTarget::hidden());
        return pb;
    }
    let style = ProgressStyle::with_template("{spinner} [{bar:30}] {pos}/{len} {elapsed} {msg}")
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
    pb.set_style(style);
    pb.enable_steady_tick(Duration::from_millis(150));
    pb
}

fn print_cases() {
    outln!("{:<27} {:<16} what", "case", "sizes");
    for c in CASES {
        let sizes = match c.group {
            Group::Vector => sizes_text(cases::VECTOR_SIZES),
            Group::Transfer => sizes_text(cases::TRANSFER_SIZES),
            Group::Square => format!("{0}x{0}", cases::SQUARE),
            Group::Matmul => sizes_text(matmul::MATMUL_SIZES),
            Group::MatmulFixed | Group::Loop => "-".into(),
            Group::Tiny => format!("n={}", cases::TINY),
            Group::Signal => format!("{0}x{0}", signal_cases::side(c.name)),
            Group::Linalg if linalg_cases::is_batched(c.name) => "k=4, 8, 32".into(),
            Group::Linalg => sizes_text(linalg_cases::sizes(c.name)),
            Group::Manip => format!("{} elements", fmt_count(manip_cases::elements(c.name))),
            Group::Random => match random_cases::sizes(c.name) {
                [] => format!("n={}", fmt_count(random_cases::fixed_elements(c.name))),
                sizes => sizes_text(sizes),
            },
            Group::Sort => {
                let s = sort_cases::sizes(c.name);
                if s.is_empty() {
                    "-".into()
                } else {
                    sizes_text(s)
                }
            }
            Group::Index => {
                let s = index_cases::sizes(c.name);
                if s.is_empty() {
                    "-".into()
                } else {
                    sizes_text(s)
                }
            }
            Group::Fft => {
                let s = fft_cases::sizes(c.name);
                if s.is_empty() {
                    "-".into()
                } else {
                    sizes_text(s)
                }
            }
        };
        outln!("{:<27} {:<16} {}", c.name, sizes, c.about);
    }
}

fn sizes_text(sizes: &[usize]) -> String {
    let s: Vec<String> = sizes.iter().map(|&n| fmt_count(n)).collect();
    format!("n={}", s.join(","))
}

/// Runs `kupfer bench`.
pub fn run(args: &BenchArgs) -> CliResult {
    if args.list {
        print_cases();
        return Ok(());
    }
    let selected = select(&args.cases)?;
    let preset_cap = match args.sizes {
        Sizes::Full => None,
        Sizes::Small => Some(1 << 20),
    };
    let cap = match (preset_cap, args.max_n) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let (steps, notes) = plan(&selected, cap);
    for note in &notes {
        eprintln!("kupfer: note: {note}");
    }
    let device = kp::Device::default_device()?;
    // Cases of a dtype this adapter does not have are left out with a note, not failed.
    let mut steps = steps;
    steps.retain(|step| match matmul::needs_dtype(step.case.name) {
        Some(d) if !device.supports(d) => {
            eprintln!(
                "kupfer: note: {} skipped: this adapter has no {d}",
                step.case.name
            );
            false
        }
        _ => true,
    });
    let info = device.info().clone();
    let gpu_timer = device.context().has_gpu_timestamps();
    let profiling = args.profile && {
        let support = device.context().profile_support();
        if support == kp::ProfileSupport::Unsupported {
            eprintln!(
                "kupfer: note: --profile: this adapter ({}, {}) has no GPU timestamp queries; \
                 benchmarking without a profile",
                info.name, info.backend
            );
        }
        support != kp::ProfileSupport::Unsupported
    };
    let timing = Timing {
        device,
        cpu: !args.json && !args.no_cpu,
        profile: profiling,
        profiled: Default::default(),
    };
    if args.json {
        // The anchor's first line describes the device; so does this one.
        let header = json_object(&[
            ("device", Value::from(info.name.as_str())),
            ("backend", Value::from(info.backend.as_str())),
            ("device_type", Value::from(info.device_type.as_str())),
            ("driver", Value::from(info.driver.as_str())),
            (
                "timer",
                Value::from(if gpu_timer {
                    "gpu_timestamps"
                } else {
                    "wall_clock"
                }),
            ),
            ("kupfer", Value::from(env!("CARGO_PKG_VERSION"))),
        ]);
        outln!("{header}");
    } else {
        outln!(
            "kupfer bench on {} ({}, {}); GPU cases timed by {}",
            info.name,
            info.backend,
            info.device_type,
            if gpu_timer {
                "GPU timestamps"
            } else {
                "the wall clock around a synchronize (no GPU timestamp queries here)"
            }
        );
        outln!();
        outln!("{TABLE_HEADER}");
    }
    let pb = progress_bar(steps.len(), args.json);
    let mut loaded = Loaded::Nothing;
    let mut failed = 0usize;
    for &step in &steps {
        let label = match step.n {
            Some(n) => format!("{} n={}", step.case.name, fmt_count(n)),
            None => step.case.name.to_string(),
        };
        pb.set_message(label.clone());
        timing.profiled.borrow_mut().take();
        match run_step(step, &mut loaded, &timing) {
            Ok(mut m) => {
                let profiled = timing.profiled.borrow_mut().take();
                let mut lines = Vec::new();
                if args.json {
                    if let Some(run) = profiled.as_ref() {
                        m.extra.push(("profile", profile::json(run)));
                    } else if profiling {
                        m.extra.push(("profile", Value::Null));
                    }
                    lines.push(json_line(step.case.name, &m));
                } else {
                    lines.push(table_row(step, &m));
                    match profiled.as_ref() {
                        Some(run) => lines.extend(profile::table(run)),
                        None if profiling => {
                            lines.push("  profile: none (this case times its own loop)".into())
                        }
                        None => {}
                    }
                }
                pb.suspend(|| lines.iter().for_each(|l| outln!("{l}")));
            }
            Err(e) => {
                failed += 1;
                pb.suspend(|| eprintln!("kupfer: error: bench case {label} failed: {e}"));
            }
        }
        pb.inc(1);
    }
    pb.finish_and_clear();
    release(&mut loaded, &timing.device);
    if !args.json {
        outln!();
        outln!(
            "ms: median after {WARMUP}+ warm-ups (400 ms of device work); GPU cases between \
             device events around \
             building and materialising the expression, *_wall and transfers by the wall clock."
        );
        if selected.iter().any(|c| c.group == Group::Tiny) {
            outln!(
                "tiny_op_wall synchronizes after every op, as CuPy's does; \
                 tiny_op_amortized_wall is per op of {} ops, then one synchronize (kupfer \
                 batches ops into one submission).",
                cases::TINY_OPS_PER_SYNC
            );
        }
        if timing.cpu {
            outln!(
                "CPU ms: the same computation in plain single-threaded Rust; speed-up = CPU ms / \
                 ms."
            );
            if cfg!(debug_assertions) {
                outln!(
                    "This kupfer was built without optimisations: its CPU figures are far too \
                     slow. Build with --release."
                );
            }
        }
    }
    if failed > 0 {
        return Err(CliError::usage(format!(
            "{failed} of {} bench runs failed",
            steps.len()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_and_plan() {
        assert!(select(&["nope".into()]).is_err());
        let s = select(&["d2h_pageable".into(), "saxpy_expr".into()]).unwrap();
        assert_eq!(s[0].name, "saxpy_expr");
        let (steps, notes) = plan(&s, Some(1 << 10));
        assert_eq!(steps.len(), 2);
        assert_eq!(steps[0].n, Some(1 << 10));
        assert!(notes.is_empty());
        let all = select(&[]).unwrap();
        let (steps, notes) = plan(&all, Some(1 << 20));
        for case in &all {
            let planned = steps.iter().any(|s| s.case.name == case.name);
            let noted = notes.iter().any(|n| n.starts_with(case.name));
            assert!(planned || noted, "{} neither planned nor noted", case.name);
        }
        assert!(notes
            .iter()
            .any(|n| n.starts_with("sum_axis0_4096sq skipped")));
        assert!(!steps.iter().any(|s| s.case.name == "sum_axis0_4096sq"));
        let mm = select(&["matmul_float16".into(), "gemv_4096".into()]).unwrap();
        let (steps, _) = plan(&mm, None);
        let sides: Vec<Option<usize>> = steps.iter().map(|s| s.n).collect();
        assert_eq!(sides, vec![Some(1024), Some(4096), Some(8192), None]);
        assert_eq!(capped(&[1 << 20, 1 << 24], None), vec![1 << 20, 1 << 24]);
        assert_eq!(capped(&[1 << 20, 1 << 24], Some(1 << 10)), vec![1 << 10]);
    }

    #[test]
    fn json_lines_follow_the_anchor() {
        let m = Measurement {
            ms: 0.123456,
            params: vec![("n", 1024.into())],
            metric: Some(("gbs", 99.5)),
            extra: vec![],
            cpu_ms: Some(1.0),
        };
        assert_eq!(
            json_line("saxpy_expr", &m),
            r#"{"case": "saxpy_expr", "ms": 0.1235, "n": 1024, "gbs": 99.5}"#
        );
        assert_eq!(fmt_speedup(12.345), "12.3x");
        assert_eq!(fmt_speedup(0.00123), "0.00123x");
        assert_eq!(fmt_speedup(250.0), "250x");
    }
}
