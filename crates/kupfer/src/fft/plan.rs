//! FFT plans: the pass schedule and twiddle tables of one transform size, cached per device
//! like cuFFT plans in CuPy's plan cache, and the batched line layout a plan runs over.

use super::bluestein::Bluestein;
use crate::config::FftConfig;
use crate::device::Device;
use kupfer_core::fft::{self, FftParams, FftPass, LoadKind, PassBody};
use kupfer_core::{Error, Result};
use kupfer_wgpu::{Binding, GpuBuffer};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// What a plan is cached by: size, direction sign, line kind, precision.
type PlanKey = (usize, i8, LineKind, Precision);

/// Cached plans of a device.
#[derive(Default)]
struct PlanCache {
    plans: Mutex<HashMap<PlanKey, Arc<Plan>>>,
}

/// The precision a transform runs in: its values, twiddle tables and scale factors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Precision {
    /// complex64 values, f32 twiddles.
    Single,
    /// complex128 values, f64 twiddles (adapters with SHADER_F64).
    Double,
}

impl Precision {
    /// Bytes of one complex value.
    pub(crate) fn complex_bytes(self) -> usize {
        self.complex().gpu_size()
    }

    /// The complex dtype of the values.
    pub(crate) fn complex(self) -> kupfer_core::DType {
        match self {
            Precision::Single => kupfer_core::DType::Complex64,
            Precision::Double => kupfer_core::DType::Complex128,
        }
    }

    /// The real dtype of the values.
    pub(crate) fn real(self) -> kupfer_core::DType {
        self.complex().real_part()
    }

    /// `values` (complex, as f64 pairs) as the bytes of a table of this precision.
    pub(crate) fn table_bytes(self, values: &[[f64; 2]]) -> Vec<u8> {
        match self {
            Precision::Single => values
                .iter()
                .flat_map(|[c, s]| [*c as f32, *s as f32])
                .flat_map(f32::to_le_bytes)
                .collect(),
            Precision::Double => values
                .iter()
                .flatten()
                .flat_map(|v| v.to_le_bytes())
                .collect(),
        }
    }
}

/// How one transform size runs.
pub(crate) enum Plan {
    /// Stockham passes (2,3,5,7-smooth sizes).
    Stockham(Stockham),
    /// Chirp-z through a power-of-two Stockham plan (other sizes).
    Bluestein(Bluestein),
}

/// One global pass of a Stockham plan.
pub(crate) struct PassInfo {
    radices: Vec<u32>,
    body: PassBody,
    radix: u32,
    tw_inner: u32,
    tw_lo: u32,
    tw_hi: u32,
    tw_shift: u32,
}

/// A smooth size's passes and their twiddle tables (one buffer).
pub(crate) struct Stockham {
    n: usize,
    passes: Vec<PassInfo>,
    tables: Arc<GpuBuffer>,
    cap: u32,
    budget: u32,
    precision: Precision,
}

/// Workgroup-memory bytes a pass may use (within 40 KiB so that several workgroups share a
/// multiprocessor; `FftConfig::workgroup_bytes` overrides it, for tuning) and the complex values
/// one padded sub-sequence of that size holds (a power of two). The budget is counted in
/// complex64 values ([`fft::workgroup_bytes`]): double precision gets half of it, as its
/// values are twice as wide.
fn capacity(device: &Device, precision: Precision) -> (u32, u32) {
    let budget = device
        .info()
        .limits
        .max_compute_workgroup_storage_size
        .min(device.config().fft.workgroup_bytes.max(4096))
        / (precision.complex_bytes() / 8) as u32;
    let mut cap = 1u32 << 14;
    while cap > 256 && fft::workgroup_bytes(cap, 1) > budget {
        cap /= 2;
    }
    (cap, budget)
}

// The schedule knobs are the device's `Config::fft` (`crate::config::FftConfig`); what they
// measured on the H100:
// Values a workgroup holds in one pass: on the H100, workgroups of ~1024 values (more of
// them in flight) beat bigger ones by up to 1.8x, even at the cost of an extra pass.
// ^ `FftConfig::group_values` (KUPFER_FFT_GV).
// Values a workgroup of a single-pass transform holds.
// ^ `FftConfig::single_values` (KUPFER_FFT_SINGLE).
// Largest pass radix of big batches of contiguous lines.
// ^ `FftConfig::big_radix` (KUPFER_FFT_RMAX).
// Largest pass radix of small batches of contiguous lines.
// ^ `FftConfig::small_radix` (KUPFER_FFT_SRMAX).
// Largest pass radix of strided lines.
// ^ `FftConfig::strided_radix` (KUPFER_FFT_TRMAX).
// Values per thread (workgroup size = values / this): on the H100, 2 (512 threads for 1024
// values) beat 8 by 1.4x on 2^24 values, 1024x4096 rows and 4096^2 matrices (4: 1.3x; 1 with
// 1024 threads is slower again).
// ^ `FftConfig::values_per_thread` (KUPFER_FFT_VPT).
// Most threads per workgroup (also capped by the device's limit).
// ^ `FftConfig::max_workgroup` (KUPFER_FFT_MAXWG).
// Where register passes run (`KUPFER_FFT_REG`): 0 nowhere, 1 (default) where they measured
// faster than workgroup-memory passes on the H100 (see `Stockham::new`), 2 for every
// power-of-two size (for experiments and the tests).
// ^ `FftConfig::register_mode` (KUPFER_FFT_REG).
// Largest sub-radix of a register pass (values per thread: 16, 8, 4 or 2). On the H100, 8
// (512 threads per 4096-point line) beat 16 by 1.3x and 4 by 1.05x.
// ^ `FftConfig::register_subradix` (KUPFER_FFT_RQ).
// Values a workgroup of a register pass holds (lines longer than this take one each). On the
// H100, 2048 beat 4096 and 1024 for passes of 64 and 256 and was even for 1024.
// ^ `FftConfig::register_values` (KUPFER_FFT_RGV).
// The same for register passes of radix 1024 and more: on the H100 (baked passes), 4096
// (4 lines of 1024) took 2^20 from 0.0348 to 0.0288 ms and rfft 2^20 from 0.0304 to 0.0275.
// ^ `FftConfig::register_values_big` (KUPFER_FFT_RGV_BIG).
// Largest register-pass radix of contiguous lines: a 4096-point line is one pass.
// ^ `FftConfig::register_radix` (KUPFER_FFT_RRMAX).
// Largest register-pass radix of strided lines (`KUPFER_FFT_REG=2` only).
// ^ `FftConfig::register_strided_radix` (KUPFER_FFT_RTRMAX).
// Lanes passes (registers and subgroup shuffles, no workgroup memory) for every power-of-two
// size (`KUPFER_FFT_LANES=1`; off by default). On the H100 they were no faster than the
// passes they replace (per 2^24 values: 0.11 ms at radix 16, 0.13-0.15 at 64 and 0.17-0.48
// at 256 against the register passes' 0.17 at 256, the 4096-point row pass's 0.24 per
// 2^24 against two lanes passes of 64 at 0.27, fft2 columns even at 0.27): every pass is
// bound near the memory system's ~0.11 ms per 2^24 values, and larger radices cost more
// per pass, in registers per thread (Q) or in uncoalesced loads (G).
// ^ `FftConfig::lanes` (KUPFER_FFT_LANES).
// Most values a thread of a lanes pass holds (`Q`; 8 and passes of 64 measured best).
// ^ `FftConfig::lane_values` (KUPFER_FFT_LQ).
// Largest radix of a lanes pass.
// ^ `FftConfig::lane_radix` (KUPFER_FFT_LRMAX).
// Threads per workgroup of a lanes pass.
// ^ `FftConfig::lane_workgroup` (KUPFER_FFT_LWG).
// Outer twiddles computed instead of read from two tables (`KUPFER_FFT_TWPOLY`: 1 on, 0
// off). On the H100 (each pass timed alone, per 2^24 values) as fast or faster: the last
// pass of 2^24, whose table reads scatter most, 0.185 -> 0.175 ms; and as accurate (relative
// L2 error 1.7e-7 against 1.74e-7 at 2^20, 3.5e-7 against 3.7e-7 for Bluestein's 999983).
// ^ `FftConfig::computed_twiddles` (KUPFER_FFT_TWPOLY).
// Inner twiddles computed too (`KUPFER_FFT_TWINNER`: 0 never, 1 always, 2 (default) in
// register passes of radix 1024+). On the H100 (same run) that made the register passes of
// 1024+ faster (2^20 0.0398 -> 0.0374 ms, 1024 x 4096 0.0698 -> 0.0635, the 4096-point rows
// of fft2 4096^2 0.226 -> 0.203) and everything else slower (passes of 256: 2^24 0.450 ->
// 0.510; shared passes: 999983 0.143 -> 0.156; columns of 64: 0.26 -> 0.276).
// ^ `FftConfig::computed_inner` (KUPFER_FFT_TWINNER).
// Tiles each workgroup of a register pass runs in turn where one tile each would take at
// least `KUPFER_FFT_PIPE_MIN` (1024) workgroups, prefetching the next tile while it
// transforms the current one (`KUPFER_FFT_PIPE`; 1: off). On the H100 two tiles took the
// passes of 2^24 from 0.169/0.174/0.185 to 0.146/0.163/0.163 ms and the 4096-point rows of
// fft2 4096^2 from 0.235 to 0.226; with baked passes, 1024 x 4096 from 0.0536 to 0.0489
// (from 1024 workgroups on; from 256, 2^20 and rfft 2^24 lost), the strided columns of
// fft2 4096^2 0.374 -> 0.341 for the whole fft2 (before baking they lost). Three or four
// tiles lost.
// ^ `FftConfig::pipeline_tiles` (KUPFER_FFT_PIPE).
// ^ `FftConfig::pipeline_min_groups` (KUPFER_FFT_PIPE_MIN).
// Passes of batches of at least `KUPFER_FFT_BAKE_MIN` values compile their uniform block
// in (`FftPass::baked`: index arithmetic on constants; a pipeline per shape and pass, where
// smaller batches share one per pass structure). On the H100: 2^24 0.390 -> 0.371 ms,
// 1024 x 4096 0.0574 -> 0.0541, fft2 4096^2 0.403 -> 0.375, rfft 2^24 0.370 -> 0.334,
// Bluestein 1048577 0.172 -> 0.166.
// ^ `FftConfig::bake_min` (KUPFER_FFT_BAKE_MIN).
// Diagnostics on stderr (`KUPFER_FFT_TRACE`): 1 prints each pass's shape, 2 also times each
// pass between GPU timestamps (a synchronisation per pass: for kernel work, not for speed).
// ^ `FftConfig::trace` (KUPFER_FFT_TRACE).
/// The pass radices of `FftConfig::schedule` (`KUPFER_FFT_SCHEDULE`; for tuning) where their
/// product is `n`.
fn forced_schedule(k: &FftConfig, n: usize) -> Option<Vec<u32>> {
    k.schedule
        .as_ref()
        .filter(|r| r.iter().map(|&q| q as usize).product::<usize>() == n)
        .cloned()
}

/// Largest size whose contiguous lines take register passes by default in mid-sized batches.
const REGISTER_MAX_N: usize = 1 << 20;
/// Register-pass radix of strided lines (by default).
const REGISTER_STRIDED_RADIX: u32 = 64;
/// Register-pass radix of contiguous lines longer than [`REGISTER_MAX_N`] (by default).
const REGISTER_LONG_RADIX: u32 = 256;
/// Batches of this many values ([`LineKind::mid`]) take register passes by default: from
/// 2^20 (below, the workgroup-memory passes won) to 2^22 (32 MiB, within the H100's 50 MB L2;
/// the rows of a 4096^2 fft2, 2^24 values, were 2% slower).
pub(crate) const MID_BATCH: std::ops::RangeInclusive<usize> = (1 << 20)..=(1 << 22);
/// Batches of at most this many values take passes of up to 1024 values with 2 lines per
/// workgroup: they stay in the GPU's cache, where fewer passes win.
pub(crate) const SMALL_BATCH: usize = 1 << 21;

/// How the lines of a transform lie, which decides its passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct LineKind {
    /// Lines are interleaved (the transformed axis is not the last).
    pub(crate) strided: bool,
    /// The whole batch has at most [`SMALL_BATCH`] values.
    pub(crate) small: bool,
    /// The whole batch has [`MID_BATCH`] values.
    pub(crate) mid: bool,
    /// The whole batch has more values than [`MID_BATCH`].
    pub(crate) large: bool,
}

impl Stockham {
    /// The plan of a smooth size `n`; `None` when `n` has a prime factor above 7. Strided
    /// lines take passes of at most 128 values, so that a workgroup reads 8+ neighbouring
    /// lines at once; contiguous lines up to 1024 values take one pass. Power-of-two lines
    /// take register passes where those measured faster (see below; `KUPFER_FFT_REG` moves
    /// that line).
    pub(crate) fn new(
        device: &Device,
        n: usize,
        kind: LineKind,
        precision: Precision,
    ) -> Result<Option<Stockham>> {
        let k = &device.config().fft;
        let (cap, budget) = capacity(device, precision);
        let double = precision == Precision::Double;
        let single = k.single_values.min(cap);
        // Register passes where they measured faster on the H100 (same run, ms; each pass
        // timed alone with KUPFER_FFT_TRACE=2). Contiguous lines up to 2^20 in batches of
        // 2^20 to 2^22 values (2^20: 0.0436 -> 0.0412; rfft 2^20: 0.0405 -> 0.0401); since
        // they exchange one component at a time (half the workgroup memory, more workgroups
        // per multiprocessor): 4096-point lines in batches of 2^20+ values as one pass
        // (1024 x 4096: 0.090 -> 0.070; the rows of fft2 4096^2: 0.314 -> 0.245 as against
        // two workgroup-memory passes of 64), 2^24 as three passes of 256 with 8 lines per
        // workgroup (0.59 -> 0.54), and strided 4096-point columns in batches of 2^22+ as two
        // passes of 64 with 32 columns per workgroup (the columns of fft2 4096^2: 0.322 ->
        // 0.268). Elsewhere they were slower or not measured (a single 4096 line: 0.0147 ->
        // 0.0154; Bluestein 2^21/2^22 inner sizes: 1.4-2x; 4096-point column passes, which
        // read one column per workgroup: 2x).
        let pow2 = n.is_power_of_two() && n > 1;
        let span = lane_span(device);
        // Double precision takes workgroup-memory passes only (the tuned register and lanes
        // passes were measured in single precision).
        let lanes = k.lanes && pow2 && !double;
        let register = !lanes
            && !double
            && match k.register_mode {
                0 => false,
                2 => pow2,
                _ => {
                    pow2 && if kind.strided {
                        kind.large && (1024..=4096).contains(&n)
                    } else {
                        (kind.mid && n <= REGISTER_MAX_N)
                            || (kind.large && (n <= 4096 || n > REGISTER_MAX_N))
                    }
                }
            };
        let radices = if lanes {
            let q = k.lane_values;
            fft::schedule(n, k.lane_radix.min(q * span))
        } else if register {
            let max = match (k.register_mode, kind.strided) {
                (2, true) => k.register_strided_radix,
                (2, false) => k.register_radix,
                // Columns: passes of 64 (32 neighbouring columns per workgroup).
                (_, true) => REGISTER_STRIDED_RADIX,
                // Long lines: passes of 256 (8 sub-sequences per workgroup).
                (_, false) if n > REGISTER_MAX_N => REGISTER_LONG_RADIX,
                (_, false) => k.register_radix,
            };
            fft::schedule(n, max.min(cap))
        } else if kind.strided {
            fft::schedule(n, (cap / 8).min(k.strided_radix))
        } else if n <= single as usize {
            fft::schedule(n, single)
        } else if kind.small {
            fft::schedule(n, (cap / 2).min(k.small_radix))
        } else {
            fft::schedule(n, (cap / 4).min(k.big_radix))
        };
        let Some(radices) = radices else {
            return Ok(None);
        };
        let radices = forced_schedule(k, n).unwrap_or(radices);
        let mut table: Vec<[f64; 2]> = Vec::new();
        let mut passes = Vec::new();
        let mut ns = 1usize;
        for r in radices {
            let tw_inner = table.len() as u32;
            table.extend(fft::twiddles64(r as usize, 0..r as usize));
            let big = ns * r as usize;
            let shift = (usize::BITS - big.leading_zeros()).div_ceil(2);
            let s = 1usize << shift;
            let tw_lo = table.len() as u32;
            table.extend(fft::twiddles64(big, 0..s));
            let tw_hi = table.len() as u32;
            table.extend(fft::twiddles64(big, (0..big.div_ceil(s)).map(|h| h * s)));
            let (body, radices) = if lanes {
                // Q values per thread, G = R / Q lanes.
                let mut q = r.min(k.lane_values);
                while r / q > span {
                    q *= 2;
                }
                (PassBody::Lanes { span }, vec![q, r / q])
            } else if let Some(reg) = register
                .then(|| fft::register_radices(r, k.register_subradix))
                .flatten()
            {
                (PassBody::Register, reg)
            } else {
                (PassBody::Shared, fft::sub_radices(r))
            };
            passes.push(PassInfo {
                body,
                radices,
                radix: r,
                tw_inner,
                tw_lo,
                tw_hi,
                tw_shift: shift,
            });
            ns = big;
        }
        let tables = device.context().upload(&precision.table_bytes(&table))?;
        Ok(Some(Stockham {
            n,
            passes,
            tables,
            cap,
            budget,
            precision,
        }))
    }
}

/// The plan of size `n` in direction `sgn` (1 forward, -1 inverse) for lines of `kind` in
/// `precision`, from the cache.
pub(crate) fn plan(
    device: &Device,
    n: usize,
    sgn: i8,
    kind: LineKind,
    precision: Precision,
) -> Result<Arc<Plan>> {
    let cache = device.cache::<PlanCache>();
    let key = (n, sgn, kind, precision);
    if let Some(p) = cache
        .plans
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&key)
    {
        return Ok(p.clone());
    }
    let plan = match Stockham::new(device, n, kind, precision)? {
        Some(s) => Plan::Stockham(s),
        None => Plan::Bluestein(Bluestein::new(device, n, sgn, kind, precision)?),
    };
    let plan = Arc::new(plan);
    cache
        .plans
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(key, plan.clone());
    Ok(plan)
}

/// Where the lines of a batch live in a buffer: line `b` starts at
/// `off + (b / blo) * shi + (b % blo) * slo` and its values are `stride` apart (elements; the
/// u32 arithmetic wraps, so negative strides work).
#[derive(Clone)]
pub(crate) struct Lines {
    pub(crate) buffer: Arc<GpuBuffer>,
    pub(crate) off: u32,
    pub(crate) stride: u32,
    pub(crate) shi: u32,
    pub(crate) slo: u32,
}

/// One batched 1-D transform over lines.
#[derive(Clone)]
pub(crate) struct Job {
    /// Number of lines.
    pub(crate) lines: usize,
    /// Lines per outer group (the `blo` of [`Lines`]).
    pub(crate) blo: usize,
    /// Input lines.
    pub(crate) input: Lines,
    /// Input values available per line (the rest read as zero).
    pub(crate) in_len: usize,
    /// How the input is read.
    pub(crate) load: LoadKind,
    /// Conjugate the input.
    pub(crate) conj_in: bool,
    /// Output lines.
    pub(crate) output: Lines,
    /// Values stored per line (the first ones).
    pub(crate) out_len: usize,
    /// Store the real part only.
    pub(crate) store_real: bool,
    /// Direction: 1 forward, -1 inverse.
    pub(crate) sgn: i8,
    /// Scale of the result.
    pub(crate) scale: f64,
    /// Logical length of a Hermitian input / of the chirp (0: the plan size).
    pub(crate) nlog: usize,
    /// A transform of real input: its logical length and the imaginary part to store at
    /// outputs 0 and n / 2 (see `FftPass::real_dc`).
    pub(crate) real_dc: Option<(usize, f32)>,
}

/// An extra table bound beside the twiddles: multiply loaded values by `aux[load..]`,
/// stored values by `aux[store..]`.
pub(crate) struct Aux<'a> {
    pub(crate) buffer: &'a Arc<GpuBuffer>,
    pub(crate) load: Option<u32>,
    pub(crate) store: Option<u32>,
}

fn binding(buffer: &Arc<GpuBuffer>) -> Binding {
    Binding {
        buffer: buffer.clone(),
        offset: 0,
        size: buffer.size(),
    }
}

/// Lines of `n` complex values of `precision` in a fresh buffer, laid out as the batch (`blo`
/// lines interleaved).
pub(crate) fn scratch(
    device: &Device,
    lines: usize,
    blo: usize,
    n: usize,
    precision: Precision,
) -> Result<Lines> {
    let bytes = (lines * n * precision.complex_bytes()) as u64;
    check_size(device, bytes, precision)?;
    let buffer = Arc::new(device.context().alloc(bytes.div_ceil(16) * 16)?);
    Ok(Lines {
        buffer,
        off: 0,
        stride: blo as u32,
        shi: (n * blo) as u32,
        slo: 1,
    })
}

/// Refuses buffers above the adapter's largest binding or 2^32 elements.
pub(crate) fn check_size(device: &Device, bytes: u64, precision: Precision) -> Result<()> {
    let max = device.context().max_binding_size();
    if bytes > max || bytes / precision.complex_bytes() as u64 > u64::from(u32::MAX) {
        return Err(Error::unsupported(format!(
            "an FFT buffer of {bytes} bytes, more than this adapter's largest binding ({max} bytes)"
        )));
    }
    Ok(())
}

impl Stockham {
    /// Runs the passes of this plan over `job` (input and output lines must not alias).
    pub(crate) fn run(&self, device: &Device, job: &Job, aux: Option<Aux>) -> Result<()> {
        let k = &device.config().fft;
        let ctx = device.context();
        let n = self.n;
        let batch_fast = job.blo > 1;
        let double = self.precision == Precision::Double;
        let np = self.passes.len();
        let mut ns = 1u32;
        let mut src = job.input.clone();
        for (pi, pass) in self.passes.iter().enumerate() {
            let first = pi == 0;
            let last = pi + 1 == np;
            let r = pass.radix;
            let l = (n / r as usize) as u32;
            let dst = if last {
                job.output.clone()
            } else {
                scratch(device, job.lines, job.blo, n, self.precision)?
            };
            let limits = &device.info().limits;
            let (group, wg) = match pass.body {
                PassBody::Shared => self.shared_shape(k, r, np, job.lines, limits),
                PassBody::Register => self.register_shape(k, pass, np, job.lines, limits),
                PassBody::Lanes { .. } => lanes_shape(k, pass, limits),
            };
            let total = job.lines * l as usize;
            // Workgroups with one tile each.
            let tiles_of_one = total.div_ceil(group as usize);
            let mut program = FftPass {
                radices: pass.radices.clone(),
                group,
                workgroup: wg,
                batch_fast,
                load_r_fast: !batch_fast && l == 1,
                store_r_fast: !batch_fast && ns == 1,
                load: if first { job.load } else { LoadKind::Complex },
                load_mul: first && aux.as_ref().is_some_and(|a| a.load.is_some()),
                store_mul: last && aux.as_ref().is_some_and(|a| a.store.is_some()),
                store_real: last && job.store_real,
                body: pass.body,
                real_dc: last && job.real_dc.is_some() && !job.store_real,
                computed_twiddles: k.computed_twiddles
                    && !double
                    && u64::from(ns) * u64::from(r) <= fft::COMPUTED_TWIDDLES_MAX,
                computed_inner: !double
                    && match k.computed_inner {
                        0 => false,
                        1 => true,
                        _ => pass.body == PassBody::Register && r >= 1024,
                    },
                tiles: if pass.body == PassBody::Register
                    && tiles_of_one >= k.pipeline_min_groups as usize
                {
                    k.pipeline_tiles
                } else {
                    1
                },
                baked: None,
                double,
            };
            let groups = tiles_of_one.div_ceil(program.tiles as usize);
            let max_dim = ctx.max_workgroups_per_dim() as usize;
            let gx = groups.min(max_dim).max(1);
            let gy = groups.div_ceil(gx);
            if gy > max_dim || total > u32::MAX as usize {
                return Err(Error::unsupported("FFT batch too large"));
            }
            let mut params = FftParams {
                n: n as u32,
                l,
                ns,
                lines: job.lines as u32,
                total: total as u32,
                blo: job.blo as u32,
                groups_x: gx as u32,
                nlog: if job.nlog == 0 {
                    n as u32
                } else {
                    job.nlog as u32
                },
                in_off: src.off,
                in_stride: src.stride,
                in_shi: src.shi,
                in_slo: src.slo,
                in_len: if first { job.in_len as u32 } else { n as u32 },
                out_off: dst.off,
                out_stride: dst.stride,
                out_shi: dst.shi,
                out_slo: dst.slo,
                out_len: if last { job.out_len as u32 } else { n as u32 },
                tw_inner: pass.tw_inner,
                tw_lo: pass.tw_lo,
                tw_hi: pass.tw_hi,
                tw_shift: pass.tw_shift,
                load_aux: aux.as_ref().and_then(|a| a.load).unwrap_or(0),
                store_aux: aux.as_ref().and_then(|a| a.store).unwrap_or(0),
                sgn: f32::from(job.sgn),
                scale: if last { job.scale } else { 1.0 },
                conj_in: if first && job.conj_in { -1.0 } else { 1.0 },
                ..FftParams::default()
            };
            params.set_twiddle_constants(u64::from(ns) * u64::from(r));
            if let Some((dc_n, dc_imag)) = job.real_dc {
                params.dc_n = dc_n as u32;
                params.dc_imag = dc_imag;
            }
            // Big batches compile their geometry in (one pipeline per shape and pass).
            if job.lines * n >= k.bake_min as usize && !double {
                program.baked = Some(params.baked());
            }
            let (pipeline, _) =
                crate::kernels::compiled(device, &program, |_| Ok((fft::generate(&program), ())))?;
            let aux_buf = aux.as_ref().map_or(&self.tables, |a| a.buffer);
            let mut bindings = vec![
                binding(&src.buffer),
                binding(&dst.buffer),
                binding(&self.tables),
            ];
            if program.load_mul || program.store_mul {
                bindings.push(binding(aux_buf));
            }
            // GPU time of the pass alone (`KUPFER_FFT_TRACE=2`; read-back blocks: not on wasm32).
            let timed = if k.trace == 2 && cfg!(not(target_arch = "wasm32")) {
                Some(device.record_event()?)
            } else {
                None
            };
            let uniforms = match self.precision {
                Precision::Single => params.bytes(),
                Precision::Double => params.bytes_f64(),
            };
            ctx.dispatch(&pipeline, &uniforms, bindings, [gx as u32, gy as u32, 1])?;
            if k.trace > 0 {
                #[cfg(not(target_arch = "wasm32"))]
                let ms = match timed {
                    Some(e0) => format!(" ms={:.4}", e0.elapsed_ms(&device.record_event()?)?),
                    None => String::new(),
                };
                #[cfg(target_arch = "wasm32")]
                let ms = {
                    let _ = timed; // never taken: no blocking read-back in the browser
                    String::new()
                };
                eprintln!(
                    "fft pass n={n} radix={r} ns={ns} radices={:?} body={:?} group={group} wg={wg} lines={} blo={}{ms}",
                    pass.radices, pass.body, job.lines, job.blo
                );
            }
            ns *= r;
            src = dst;
        }
        Ok(())
    }
}

impl Stockham {
    /// Sub-sequences per workgroup and threads of a workgroup-memory pass of radix `r`.
    fn shared_shape(
        &self,
        k: &FftConfig,
        r: u32,
        np: usize,
        lines: usize,
        limits: &kupfer_wgpu::wgpu::Limits,
    ) -> (u32, u32) {
        let mut group = if np == 1 {
            (k.single_values.min(self.cap) / r.max(1))
                .min((lines.max(1)).next_power_of_two().min(1 << 20) as u32)
                .clamp(1, fft::MAX_GROUP)
        } else {
            (k.group_values / r).clamp(2, fft::MAX_GROUP)
        };
        while group > 1 && fft::workgroup_bytes(r, group) > self.budget {
            group /= 2;
        }
        let max_wg = k
            .max_workgroup
            .min(limits.max_compute_invocations_per_workgroup)
            .min(limits.max_compute_workgroup_size_x)
            .max(64);
        let wg = ((group * r) / k.values_per_thread)
            .next_power_of_two()
            .clamp(64, max_wg);
        (group, wg)
    }

    /// Sub-sequences per workgroup and threads of a register pass (one thread per butterfly
    /// of its widest sub-pass).
    fn register_shape(
        &self,
        k: &FftConfig,
        pass: &PassInfo,
        np: usize,
        lines: usize,
        limits: &kupfer_wgpu::wgpu::Limits,
    ) -> (u32, u32) {
        let r = pass.radix;
        let qmax = pass.radices.iter().copied().max().unwrap_or(1);
        let values = if r >= 1024 {
            k.register_values_big
        } else {
            k.register_values
        };
        let mut group = (values / r).clamp(1, fft::MAX_GROUP);
        if np == 1 {
            group = group.min(lines.max(1).next_power_of_two().min(1 << 20) as u32);
        }
        let max_wg = limits
            .max_compute_invocations_per_workgroup
            .min(limits.max_compute_workgroup_size_x)
            .min(1024);
        while group > 1
            && (fft::workgroup_bytes(r, group) > self.budget || group * r / qmax > max_wg)
        {
            group /= 2;
        }
        (group, (group * r / qmax).max(1))
    }
}

/// Lanes a lanes pass may spread a sub-sequence over: up to 32, within the adapter's
/// smallest subgroup (1, no shuffles, without subgroup operations).
fn lane_span(device: &Device) -> u32 {
    let info = device.info();
    let (min, _) = info.subgroup_sizes;
    if !info
        .features
        .contains(kupfer_wgpu::wgpu::Features::SUBGROUP)
        || min == 0
        || !min.is_power_of_two()
    {
        return 1;
    }
    min.min(32)
}

/// Sub-sequences per workgroup and threads of a lanes pass: `G` lanes per sub-sequence,
/// [`lane_workgroup`] threads (within the device's limits, a multiple of the span).
fn lanes_shape(k: &FftConfig, pass: &PassInfo, limits: &kupfer_wgpu::wgpu::Limits) -> (u32, u32) {
    let (g, span) = fft::lane_geometry(pass.body, &pass.radices);
    let max = limits
        .max_compute_invocations_per_workgroup
        .min(limits.max_compute_workgroup_size_x);
    let largest = 1u32 << (31 - max.max(1).leading_zeros());
    let wg = k.lane_workgroup.next_power_of_two().min(largest).max(span);
    (wg / g, wg)
}

impl Plan {
    /// Runs the transform over `job`.
    pub(crate) fn run(&self, device: &Device, job: &Job) -> Result<()> {
        match self {
            Plan::Stockham(s) => s.run(device, job, None),
            Plan::Bluestein(b) => b.run(device, job),
        }
    }
}
