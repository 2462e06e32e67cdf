//! A per-dispatch GPU profile: with profiling on ([`crate::RuntimeConfig::profile`],
//! `KUPFER_PROFILE=1`, or [`Context::set_profiling`]), every compute dispatch a submission
//! encodes is enclosed by two GPU timestamps (written inside the compute pass where the
//! device has TIMESTAMP_QUERY_INSIDE_PASSES, else by a compute pass of its own with
//! beginning- and end-of-pass timestamps). Each submission resolves its timestamps into a
//! read-back buffer; [`Context::take_profile`] reads them all, labelled by the kernel each
//! dispatch ran (its template in `shaders/` and its entry point) and its workgroup count.
//!
//! Off, the cost is one check of an unset cell per submission. On Vulkan a timestamp is
//! written when all earlier commands have finished (BOTTOM_OF_PIPE), so a dispatch's time
//! includes the barrier wait and launch before it; the gaps between dispatches are the
//! copies, submission boundaries and host round trips between them.

use crate::batch::Command;
use crate::context::Context;
#[cfg(not(target_arch = "wasm32"))]
use kupfer_core::{Error, Result};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Dispatches timed per submission at most (two queries each: wgpu allows 4096 per set);
/// a batch holds at most 1024 dispatches (batch.rs), so none is left out in practice.
const MAX_TIMED: usize = 2048;
/// Submissions whose timestamps wait to be read; past this many, later submissions are not
/// timed (and counted in [`Profile::untimed_submissions`]) until the profile is taken.
const MAX_PENDING: usize = 512;

/// The first characters of each template's first line, by template name: a kernel's label
/// is the template whose header its source holds (a unit test keeps this in step with the
/// files).
const TEMPLATES: &[(&str, &str)] = &[
    (
        "at_segments",
        "// ufunc.at without atomics (kupfer-core `at_segments`), for",
    ),
    (
        "compact",
        "// Stream compaction (mask selection, nonzero): keep the val",
    ),
    (
        "complex_f32",
        "// kupfer complex64 functions: kp_<name>_c64(z) for exp, log",
    ),
    (
        "concat",
        "// Joining arrays along one axis (concatenate, stack, hstack",
    ),
    (
        "convolve2d",
        "// Direct 2-D convolution / correlation (SciPy's convolve2d ",
    ),
    (
        "elementwise",
        "// Elementwise kernel template. Each 256-thread workgroup ha",
    ),
    (
        "elementwise_float",
        "// NumPy-semantics helpers for one float type T (f16, f32 or",
    ),
    (
        "elementwise_int",
        "// NumPy-semantics helpers for one integer type T (i32, u32 ",
    ),
    (
        "fft_common",
        "// Shared by the FFT pass templates (`fft_stockham.wgsl`, `f",
    ),
    (
        "fft_lanes",
        "// One pass of a Stockham autosort FFT in registers and subg",
    ),
    (
        "fft_stockham",
        "// One pass of a Stockham autosort FFT in workgroup memory: ",
    ),
    (
        "gather_axes",
        "// A gather whose source index is a separate map of every ou",
    ),
    (
        "histogram",
        "// Histogram / bincount kernel template. Element i of the (c",
    ),
    (
        "histogramdd_bins",
        "// histogramdd's bin index kernel: one thread per sample (a ",
    ),
    (
        "index_map",
        "// Index kernels (gather, scatter, last-write claims, ufunc.",
    ),
    (
        "libm_f32",
        "// kupfer libm, f32: accurate transcendental functions for g",
    ),
    (
        "libm_f64",
        "// kupfer libm, f64: accurate transcendental functions for g",
    ),
    (
        "linalg_cplx",
        "// LU with partial pivoting and Cholesky of complex matrices",
    ),
    (
        "linalg_eig",
        "// The nonsymmetric eigenproblem (LAPACK's geev path), one w",
    ),
    (
        "linalg_fused",
        "// Blocked LU and Cholesky with two launches per panel of co",
    ),
    (
        "linalg_jacobi",
        "// Symmetric eigenproblems of small matrices (eigh, eigvalsh",
    ),
    (
        "linalg_orth",
        "// Orthogonal factorizations of matrices of any size, one st",
    ),
    (
        "linalg_panel",
        "// Panel factorizations held in registers: one workgroup of ",
    ),
    (
        "linalg_qr",
        "// Blocked Householder QR (LAPACK's geqrf / orgqr with compa",
    ),
    (
        "linalg_rows",
        "// Small solves and inverses with one thread per matrix row:",
    ),
    (
        "linalg_small",
        "// Small dense factorizations, one matrix per workgroup in w",
    ),
    (
        "linalg_steps",
        "// Blocked dense factorizations of matrices of any size in g",
    ),
    (
        "linalg_tiny",
        "// Very small solves and inverses, one matrix per thread in ",
    ),
    (
        "matmul_common",
        "// Shared by every matmul kernel: the uniform block and the ",
    ),
    (
        "matmul_coop",
        "// GEMM on tensor cores through WGSL cooperative matrices (w",
    ),
    (
        "matmul_gemv",
        "// Matrix-vector product, bandwidth-bound: out[z, r] = sum_k",
    ),
    (
        "matmul_simple",
        "// Matmul for every dtype: one thread per output element, a ",
    ),
    (
        "matmul_tiled",
        "// Tiled SIMT GEMM with f32 accumulation (float16 and float3",
    ),
    (
        "pack",
        "// Conversion between packed small integers (int8/uint8: 4 p",
    ),
    (
        "pack_write",
        "// Contiguous assignment into packed small integers (int8/ui",
    ),
    (
        "random",
        "// Counter-based random numbers for generated kernels: Philo",
    ),
    (
        "random_choice",
        "// choice(a, p=...) in exact integer arithmetic, so that a s",
    ),
    (
        "random_det",
        "// Float32 distributions built from uniforms (and a fenced B",
    ),
    (
        "random_det64",
        "// Float64 forms of random_det.wgsl's transforms of uniforms",
    ),
    (
        "random_float",
        "// Random transforms written once for both float precisions:",
    ),
    (
        "reduce",
        "// Reduction kernel template: P.m outputs, each the combinat",
    ),
    (
        "roll",
        "// Circular shift of an n-d array (rank <= 8) into a C-conti",
    ),
    (
        "scan",
        "// Scan (cumulative sum / product) kernel template. P.m line",
    ),
    (
        "sign_flag",
        "// Deferred-check flag (crates/kupfer/src/checks.rs): flag[0",
    ),
    (
        "sort_key_fns",
        "// Order-preserving key words of the radix sort, selection a",
    ),
    (
        "sort_keys",
        "// Order-preserving keys: element p of a contiguous array (r",
    ),
    (
        "sort_partition",
        "// Partition by selection (`partition`, `argpartition`): the",
    ),
    (
        "sort_radix",
        "// One pass of kupfer's portable LSD radix sort: 8-bit digit",
    ),
    (
        "sort_rows",
        "// Sorts short rows inside workgroup memory: a workgroup hol",
    ),
    (
        "sort_rows_keys",
        "// Sorts short rows of values inside workgroup memory, keys ",
    ),
    (
        "sort_search",
        "// Binary search of sorted keys (`searchsorted`): one thread",
    ),
    (
        "sort_search_tiered",
        "// Binary search of sorted keys (`searchsorted`) in two tier",
    ),
    (
        "sort_select",
        "// Radix selection: the keys of T order statistics (ranks) o",
    ),
    (
        "sort_select_rows",
        "// Radix selection per row: one workgroup finds T order stat",
    ),
    (
        "sort_take",
        "// Gathers elements along rows: output element e = (row, col",
    ),
];

/// Templates spliced into others (shared helpers and libraries): a kernel is labelled by one
/// of these only when it holds no other template.
const LIBRARIES: &[&str] = &[
    "complex_f32",
    "elementwise_float",
    "elementwise_int",
    "fft_common",
    "libm_f32",
    "libm_f64",
    "matmul_common",
    "random",
    "random_det",
    "random_det64",
    "random_float",
    "sort_key_fns",
];

/// The profile label of entry point `entry` of `wgsl`: `template/entry` (`sort_radix/
/// onesweep`), `template` for an entry point named `main`, and `kernel/entry` for a source
/// no template of `shaders/` starts (a user's RawKernel).
pub(crate) fn kernel_label(wgsl: &str, entry: &str) -> Arc<str> {
    let mut best: Option<(bool, usize, &str)> = None;
    for (name, header) in TEMPLATES {
        if let Some(at) = wgsl.find(header) {
            let key = (LIBRARIES.contains(name), at, *name);
            if best.is_none_or(|b| (key.0, key.1) < (b.0, b.1)) {
                best = Some(key);
            }
        }
    }
    let template = best.map_or("kernel", |b| b.2);
    if entry == "main" {
        template.into()
    } else {
        format!("{template}/{entry}").into()
    }
}

/// How dispatches are timed on a device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfileSupport {
    /// Timestamps written inside the compute pass around each dispatch
    /// (TIMESTAMP_QUERY_INSIDE_PASSES: Vulkan, DX12, some Metal).
    InsidePasses,
    /// Each dispatch in a compute pass of its own, timed at the pass's beginning and end
    /// (TIMESTAMP_QUERY only, as in WebGPU; or forced by `KUPFER_PROFILE=pass`).
    PerPass,
    /// No timestamp queries (GL, or a browser without `timestamp-query`): no profile.
    Unsupported,
}

/// One timed dispatch.
#[derive(Debug, Clone, PartialEq)]
pub struct DispatchTime {
    /// The kernel: its template and entry point (`sort_radix/onesweep`).
    pub label: Arc<str>,
    /// Workgroups launched (x, y, z).
    pub groups: [u32; 3],
    /// GPU nanoseconds from the profile's first timestamp to the dispatch's start.
    pub start_ns: f64,
    /// GPU nanoseconds from the profile's first timestamp to the dispatch's end.
    pub end_ns: f64,
}

impl DispatchTime {
    /// Nanoseconds between the dispatch's two timestamps.
    pub fn ns(&self) -> f64 {
        self.end_ns - self.start_ns
    }
}

/// The dispatches profiled since profiling was turned on or last taken, in submission order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Profile {
    /// Every timed dispatch.
    pub dispatches: Vec<DispatchTime>,
    /// Submissions left untimed because too many waited to be read.
    pub untimed_submissions: u64,
}

/// The dispatches of one label in a [`Profile`].
#[derive(Debug, Clone, PartialEq)]
pub struct LabelTotal {
    /// The kernel.
    pub label: Arc<str>,
    /// Dispatches.
    pub count: usize,
    /// GPU milliseconds of all of them.
    pub total_ms: f64,
    /// Fewest and most workgroups (x * y * z) of one of them.
    pub groups: (u64, u64),
}

impl Profile {
    /// Sum of the dispatches' GPU milliseconds.
    pub fn gpu_ms(&self) -> f64 {
        self.dispatches.iter().map(DispatchTime::ns).sum::<f64>() / 1e6
    }

    /// Milliseconds from the first dispatch's start to the last one's end.
    pub fn span_ms(&self) -> f64 {
        let start = self
            .dispatches
            .iter()
            .map(|d| d.start_ns)
            .fold(f64::INFINITY, f64::min);
        let end = self
            .dispatches
            .iter()
            .map(|d| d.end_ns)
            .fold(f64::NEG_INFINITY, f64::max);
        if self.dispatches.is_empty() {
            0.0
        } else {
            (end - start) / 1e6
        }
    }

    /// Milliseconds in which some dispatch ran (the union of their intervals: never more
    /// than [`span_ms`](Self::span_ms)).
    pub fn busy_ms(&self) -> f64 {
        let mut spans: Vec<(f64, f64)> = self
            .dispatches
            .iter()
            .map(|d| (d.start_ns, d.end_ns.max(d.start_ns)))
            .collect();
        spans.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut busy = 0.0;
        let mut open: Option<(f64, f64)> = None;
        for (s, e) in spans {
            open = match open {
                Some((os, oe)) if s <= oe => Some((os, oe.max(e))),
                Some((os, oe)) => {
                    busy += oe - os;
                    Some((s, e))
                }
                None => Some((s, e)),
            };
        }
        if let Some((os, oe)) = open {
            busy += oe - os;
        }
        busy / 1e6
    }

    /// Milliseconds of the span in which no dispatch ran: barriers, copies, submission
    /// boundaries and host round trips.
    pub fn gap_ms(&self) -> f64 {
        (self.span_ms() - self.busy_ms()).max(0.0)
    }

    /// The dispatches grouped by label, the largest total first.
    pub fn by_label(&self) -> Vec<LabelTotal> {
        let mut out: Vec<LabelTotal> = Vec::new();
        for d in &self.dispatches {
            let groups = d.groups.iter().map(|&g| u64::from(g)).product::<u64>();
            match out.iter_mut().find(|t| t.label == d.label) {
                Some(t) => {
                    t.count += 1;
                    t.total_ms += d.ns() / 1e6;
                    t.groups = (t.groups.0.min(groups), t.groups.1.max(groups));
                }
                None => out.push(LabelTotal {
                    label: d.label.clone(),
                    count: 1,
                    total_ms: d.ns() / 1e6,
                    groups: (groups, groups),
                }),
            }
        }
        out.sort_by(|a, b| b.total_ms.total_cmp(&a.total_ms));
        out
    }
}

/// A submission's timestamps on their way back.
struct Pending {
    readback: wgpu::Buffer,
    labels: Vec<(Arc<str>, [u32; 3])>,
}

/// A device's profiler (in [`crate::context::Inner`], made when profiling is first asked for).
pub(crate) struct Profiler {
    active: AtomicBool,
    per_pass: bool,
    pending: Mutex<Vec<Pending>>,
    untimed: AtomicU64,
}

/// The timestamps of one submission being encoded (batch.rs).
pub(crate) struct Recording {
    pub(crate) set: wgpu::QuerySet,
    /// Each dispatch in its own pass with pass timestamps (no INSIDE_PASSES).
    pub(crate) per_pass: bool,
    labels: Vec<(Arc<str>, [u32; 3])>,
}

impl Recording {
    /// The query indices of the next dispatch's start and end, or None when the set is full.
    pub(crate) fn next(&mut self, label: &Arc<str>, groups: [u32; 3]) -> Option<(u32, u32)> {
        if self.labels.len() >= MAX_TIMED {
            return None;
        }
        let k = self.labels.len() as u32;
        self.labels.push((label.clone(), groups));
        Some((2 * k, 2 * k + 1))
    }
}

impl Context {
    /// How this device times dispatches for a profile.
    pub fn profile_support(&self) -> ProfileSupport {
        let f = self.inner.info.features;
        if !f.contains(wgpu::Features::TIMESTAMP_QUERY) {
            ProfileSupport::Unsupported
        } else if f.contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES)
            && self.inner.config.profile != crate::config::ProfileMode::PerPass
        {
            ProfileSupport::InsidePasses
        } else {
            ProfileSupport::PerPass
        }
    }

    /// Turns the per-dispatch profile on or off for submissions from now on (work recorded
    /// earlier and not yet submitted is timed if profiling is on at its submission: call
    /// [`flush`](Self::flush) first to leave it out). Returns how dispatches are timed;
    /// [`ProfileSupport::Unsupported`] leaves profiling off.
    pub fn set_profiling(&self, on: bool) -> ProfileSupport {
        let support = self.profile_support();
        if support == ProfileSupport::Unsupported {
            return support;
        }
        if on || self.inner.profiler.get().is_some() {
            self.inner
                .profiler
                .get_or_init(|| Profiler {
                    active: AtomicBool::new(false),
                    per_pass: support == ProfileSupport::PerPass,
                    pending: Mutex::new(Vec::new()),
                    untimed: AtomicU64::new(0),
                })
                .active
                .store(on, Ordering::Relaxed);
        }
        support
    }

    /// True while dispatches are being profiled.
    pub fn profiling(&self) -> bool {
        self.inner
            .profiler
            .get()
            .is_some_and(|p| p.active.load(Ordering::Relaxed))
    }

    /// Starts the timestamps of a submission of `commands`, when profiling.
    pub(crate) fn start_recording(&self, commands: &[Command]) -> Option<Recording> {
        let p = self.inner.profiler.get()?;
        if !p.active.load(Ordering::Relaxed) {
            return None;
        }
        let dispatches = commands
            .iter()
            .filter(|c| matches!(c, Command::Dispatch { .. }))
            .count();
        if dispatches == 0 {
            return None;
        }
        if p.pending.lock().unwrap_or_else(|e| e.into_inner()).len() >= MAX_PENDING {
            p.untimed.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        let n = dispatches.min(MAX_TIMED);
        let set = self
            .inner
            .device
            .create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("kupfer profile"),
                ty: wgpu::QueryType::Timestamp,
                count: 2 * n as u32,
            });
        Some(Recording {
            set,
            per_pass: p.per_pass,
            labels: Vec::with_capacity(n),
        })
    }

    /// Resolves a submission's timestamps into a read-back buffer at the end of `encoder`;
    /// the returned closure files it once the submission is made.
    pub(crate) fn finish_recording(
        &self,
        rec: Recording,
        encoder: &mut wgpu::CommandEncoder,
    ) -> impl FnOnce() + '_ {
        let queries = 2 * rec.labels.len() as u32;
        let bytes = u64::from(queries.max(1)) * 8;
        let buffer = |usage, label| {
            self.inner.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes,
                usage,
                mapped_at_creation: false,
            })
        };
        let resolve = buffer(
            wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            "kupfer profile resolve",
        );
        let readback = buffer(
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            "kupfer profile read-back",
        );
        if queries > 0 {
            encoder.resolve_query_set(&rec.set, 0..queries, &resolve, 0);
            encoder.copy_buffer_to_buffer(&resolve, 0, &readback, 0, bytes);
        }
        let labels = rec.labels;
        move || {
            if let Some(p) = self.inner.profiler.get() {
                p.pending
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(Pending { readback, labels });
            }
        }
    }

    /// Waits for the GPU and returns the dispatches profiled since profiling was turned on
    /// or the profile last taken (empty when profiling was never on). Times are relative to
    /// the earliest timestamp of the profile.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn take_profile(&self) -> Result<Profile> {
        let Some(p) = self.inner.profiler.get() else {
            return Ok(Profile::default());
        };
        self.synchronize()?;
        let pending = std::mem::take(&mut *p.pending.lock().unwrap_or_else(|e| e.into_inner()));
        let period = f64::from(self.inner.queue.get_timestamp_period());
        let mut raw: Vec<(Arc<str>, [u32; 3], u64, u64)> = Vec::new();
        for Pending { readback, labels } in pending {
            let size = readback.size();
            let ticks: Vec<u64> = pollster::block_on(self.map_and_read(&readback, size, |b| {
                b.chunks_exact(8)
                    .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
                    .collect()
            }))?;
            if ticks.len() < 2 * labels.len() {
                return Err(Error::Device(
                    "a profile's timestamps came back short".into(),
                ));
            }
            for (k, (label, groups)) in labels.into_iter().enumerate() {
                raw.push((label, groups, ticks[2 * k], ticks[2 * k + 1]));
            }
        }
        let origin = raw.iter().map(|r| r.2.min(r.3)).min().unwrap_or(0);
        let ns = |t: u64| (t - origin) as f64 * period;
        Ok(Profile {
            dispatches: raw
                .into_iter()
                .map(|(label, groups, s, e)| DispatchTime {
                    label,
                    groups,
                    start_ns: ns(s),
                    end_ns: ns(e),
                })
                .collect(),
            untimed_submissions: p.untimed.swap(0, Ordering::Relaxed),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_is_named_by_its_own_label() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shaders");
        let mut names = Vec::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "wgsl") {
                let name = path.file_stem().unwrap().to_str().unwrap().to_string();
                let text = std::fs::read_to_string(&path).unwrap();
                assert_eq!(&*kernel_label(&text, "main"), name, "{}", path.display());
                names.push(name);
            }
        }
        assert_eq!(
            names.len(),
            TEMPLATES.len(),
            "a template missing from TEMPLATES"
        );
        for lib in LIBRARIES {
            assert!(names.iter().any(|n| n == lib), "{lib}");
        }
        // A kernel built of a library and a template is labelled by the template, wherever
        // the library sits; a source of no template is a user's kernel.
        let fft = format!("{}\n{}", header("fft_common"), header("fft_stockham"));
        assert_eq!(&*kernel_label(&fft, "main"), "fft_stockham");
        let radix = format!("{}\n{}", header("sort_radix"), header("sort_key_fns"));
        assert_eq!(&*kernel_label(&radix, "onesweep"), "sort_radix/onesweep");
        assert_eq!(&*kernel_label("fn f() {}", "f"), "kernel/f");
    }

    fn header(name: &str) -> &'static str {
        TEMPLATES.iter().find(|t| t.0 == name).unwrap().1
    }

    #[test]
    fn totals_busy_time_and_gaps() {
        let d = |label: &str, groups, start_ns, end_ns| DispatchTime {
            label: label.into(),
            groups,
            start_ns,
            end_ns,
        };
        let p = Profile {
            dispatches: vec![
                d("a", [4, 1, 1], 0.0, 1e6),
                d("b", [2, 2, 1], 1e6, 1.5e6),
                d("a", [8, 1, 1], 3e6, 5e6),
                d("c", [1, 1, 1], 4e6, 4.5e6),
            ],
            untimed_submissions: 0,
        };
        assert_eq!(p.gpu_ms(), 4.0);
        assert_eq!(p.span_ms(), 5.0);
        assert_eq!(p.busy_ms(), 3.5);
        assert_eq!(p.gap_ms(), 1.5);
        let t = p.by_label();
        assert_eq!(t.len(), 3);
        assert_eq!((&*t[0].label, t[0].count, t[0].total_ms), ("a", 2, 3.0));
        assert_eq!(t[0].groups, (4, 8));
        assert_eq!(Profile::default().span_ms(), 0.0);
    }
}
