//! The sorting engine: permutations that sort the rows of a contiguous `(nrows, rowlen)`
//! array, and the gathers that apply them.
//!
//! - Rows of one key word (dtypes of at most 32 bits) that fit the workgroup memory (at most
//!   4096 elements, fewer on adapters with less than 32 KiB of it) are sorted one workgroup
//!   per row (several short rows per workgroup) by a bitonic network over (key, position)
//!   pairs: one key launch, one sort launch.
//! - Everything else runs the global LSD radix sort (`shaders/sort_radix.wgsl`): per 8-bit
//!   digit an upsweep (tile histograms), a scan of the histograms and a stable scatter, with
//!   keys and a u32 payload (the permutation). Keys of several words (64-bit, complex) are
//!   sorted word by word from the least significant, each word read through the permutation
//!   so far; a segmented sort of many long rows sorts by the row number last.
//! - Where the adapter runs workgroups with forward progress (`forward_progress`; or as
//!   `Config::sort` / `KUPFER_SORT` forces), the radix sort runs single-pass instead: one
//!   launch counts the digits of every pass, then one launch per digit ranks each tile and
//!   finds its offsets by decoupled look-back over per-(tile, digit) status words.
//!
//! Every launch is recorded into the device's pending batch: nothing here reads back or
//! waits. The portable kernels never wait on another workgroup; the single-pass kernel
//! waits only boundedly, on tiles that started before it, and counts a silent predecessor's
//! keys itself rather than wait longer.

use crate::array::Array;
use crate::config::SortEngine;
use crate::device::Device;
use kupfer_core::sort::{
    self as wgsl_gen, KeyLoad, KeyStore, KeyWord, Payload, RadixPass, RadixTuning, Ranking, Scatter,
};
use kupfer_core::{DType, Error, Layout, Result};
use kupfer_wgpu::pipeline::Pipeline;
use kupfer_wgpu::{Binding, GpuBuffer, ShaderChecks};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

static ROW_LIMIT_OVERRIDE: AtomicUsize = AtomicUsize::new(0);
static ITEMS_OVERRIDE: AtomicUsize = AtomicUsize::new(0);
static MASKS_OVERRIDE: AtomicUsize = AtomicUsize::new(0);

/// Testing hook: the longest row sorted inside one workgroup (0 restores the adapter's
/// limit; 1 sends every row of more than one element to the radix sort), and the keys per
/// thread of the radix tiles (0 restores the default; 4, 8 or 16), so that small arrays
/// exercise many tiles. Changes only performance, never results.
#[doc(hidden)]
pub fn set_limits_for_tests(row_limit: usize, items: usize) {
    ROW_LIMIT_OVERRIDE.store(row_limit, Ordering::Relaxed);
    ITEMS_OVERRIDE.store(items, Ordering::Relaxed);
}

fn wg_storage(device: &Device) -> u32 {
    device
        .context()
        .info()
        .limits
        .max_compute_workgroup_storage_size
}

/// Slots of the row sort (a power of two: two u32 per slot in workgroup memory).
fn row_slots(device: &Device) -> usize {
    let fit = (wg_storage(device) / 8).max(2);
    let slots = 1usize << (31 - fit.leading_zeros());
    slots.min(4096)
}

/// The longest row the row sort takes.
pub(crate) fn row_limit(device: &Device) -> usize {
    match ROW_LIMIT_OVERRIDE.load(Ordering::Relaxed) {
        0 => row_slots(device),
        v => v.min(row_slots(device)),
    }
}

/// Testing hook: rank radix tiles with the portable bit masks even where the adapter has
/// subgroups (`true`), or choose by the adapter (`false`). Changes only performance.
#[doc(hidden)]
pub fn set_portable_ranking_for_tests(portable: bool) {
    MASKS_OVERRIDE.store(usize::from(portable), Ordering::Relaxed);
}

/// How radix tiles are ranked on this device: subgroup ballots where the adapter has
/// subgroups of 8 to 128 lanes, bit masks otherwise.
fn ranking(device: &Device) -> Ranking {
    let ctx = device.context();
    let (min, max) = ctx.info().subgroup_sizes;
    let has = ctx
        .info()
        .features
        .contains(kupfer_wgpu::wgpu::Features::SUBGROUP);
    if has && MASKS_OVERRIDE.load(Ordering::Relaxed) == 0 && min >= 8 && max <= 128 && min <= max {
        Ranking::Subgroups {
            max_subgroups: wgsl_gen::RADIX_WG / min,
        }
    } else {
        Ranking::Masks
    }
}

static OLD_KERNEL_OVERRIDE: AtomicUsize = AtomicUsize::new(0);

/// Testing hook: the radix passes run the earlier kernel (`Some(true)`: the scatter stages
/// digits, the single-pass sort publishes tile counts after ranking), the current one
/// (`Some(false)`), or as `KUPFER_SORT_SCATTER` and `KUPFER_SORT_COUNTS` say (`None`).
/// Changes only performance.
#[doc(hidden)]
pub fn set_old_radix_kernel_for_tests(old: Option<bool>) {
    let v = match old {
        None => 0,
        Some(true) => 1,
        Some(false) => 2,
    };
    OLD_KERNEL_OVERRIDE.store(v, Ordering::Relaxed);
}

/// Whether the environment variable `name` is `value` (read once per `cell`), unless the
/// testing hook decides.
fn old_kernel(cell: &OnceLock<bool>, name: &str, value: &str) -> bool {
    match OLD_KERNEL_OVERRIDE.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => *cell.get_or_init(|| std::env::var(name).is_ok_and(|v| v == value)),
    }
}

/// What the radix scatter stages first: the key words holding the digits, or the digits
/// alone where `KUPFER_SORT_SCATTER=old` asks for the earlier kernel.
fn scatter() -> Scatter {
    static OLD: OnceLock<bool> = OnceLock::new();
    if old_kernel(&OLD, "KUPFER_SORT_SCATTER", "old") {
        Scatter::Digits
    } else {
        Scatter::KeyWords
    }
}

/// Whether single-pass tiles publish their digit counts before ranking (not where
/// `KUPFER_SORT_COUNTS=late` asks for the earlier kernel).
fn early_counts() -> bool {
    static LATE: OnceLock<bool> = OnceLock::new();
    !old_kernel(&LATE, "KUPFER_SORT_COUNTS", "late")
}

static TUNING_OVERRIDE: std::sync::Mutex<Option<RadixTuning>> = std::sync::Mutex::new(None);

/// Testing hook: the radix kernels' timing variants (`None`: as the environment says).
/// Changes only performance.
#[doc(hidden)]
pub fn set_radix_tuning_for_tests(tuning: Option<RadixTuning>) {
    *TUNING_OVERRIDE.lock().unwrap_or_else(|e| e.into_inner()) = tuning;
}

/// The radix kernels' variants (each off unless asked for or among the single-pass defaults
/// below; `KUPFER_SORT_FAST=all` turns on all five, `=off` leaves the
/// defaults off): `KUPFER_SORT_BALLOT=narrow` (one-word ballot masks where subgroups have at
/// most 32 lanes), `KUPFER_SORT_HIST=sub` (single-pass digit counts grouped per subgroup),
/// `KUPFER_SORT_SCAN=sub` (the tile scan by subgroup scans), `KUPFER_SORT_SKIP=on` (a
/// single-pass pass whose digit is one value for every key copies its tiles instead of
/// ranking them), `KUPFER_SORT_UNROLL=on` (per-key loops written out, also in the portable
/// sort). The testing hook decides first.
///
/// The single-pass sort (adapters with forward progress) also takes, unless the hook decides
/// or `KUPFER_SORT_FAST=off`: per-key loops written out key by key (their per-key arrays
/// otherwise went to local memory: the H200 sorted 2^26 float32 keys in 3.17 ms instead of
/// 3.86), the tile scan by subgroup scans and one-word ballots where subgroups have at most
/// 32 lanes (3.11 ms with both). The portable sort (lavapipe, WebGPU) keeps the loops,
/// sparing lavapipe's compiler the longer shaders.
fn radix_tuning(ranking: Ranking, max_subgroup: u32, single_pass: bool) -> RadixTuning {
    if let Some(t) = *TUNING_OVERRIDE.lock().unwrap_or_else(|e| e.into_inner()) {
        return narrow_where_possible(t, ranking, max_subgroup);
    }
    static ENV: OnceLock<RadixTuning> = OnceLock::new();
    let t = *ENV.get_or_init(|| {
        let is = |name: &str, value: &str| {
            std::env::var(name).is_ok_and(|v| v.trim() == value)
                || std::env::var("KUPFER_SORT_FAST").is_ok_and(|v| v.trim() == "all")
        };
        RadixTuning {
            narrow_ballots: is("KUPFER_SORT_BALLOT", "narrow"),
            subgroup_counts: is("KUPFER_SORT_HIST", "sub"),
            subgroup_scan: is("KUPFER_SORT_SCAN", "sub"),
            skip_trivial: is("KUPFER_SORT_SKIP", "on"),
            unroll: is("KUPFER_SORT_UNROLL", "on"),
        }
    });
    static OFF: OnceLock<bool> = OnceLock::new();
    let off =
        *OFF.get_or_init(|| std::env::var("KUPFER_SORT_FAST").is_ok_and(|v| v.trim() == "off"));
    let t = if single_pass && !off {
        RadixTuning {
            unroll: true,
            subgroup_scan: true,
            narrow_ballots: true,
            ..t
        }
    } else {
        t
    };
    narrow_where_possible(t, ranking, max_subgroup)
}

/// The WGSL of one radix pass, generated once per [`RadixPass`] (the written-out forms are
/// about 90 KB, half a millisecond of host time each, and every sort takes four or eight).
fn radix_module(pass: RadixPass) -> Arc<str> {
    static MODULES: std::sync::Mutex<Option<std::collections::HashMap<RadixPass, Arc<str>>>> =
        std::sync::Mutex::new(None);
    let mut modules = MODULES.lock().unwrap_or_else(|e| e.into_inner());
    modules
        .get_or_insert_with(Default::default)
        .entry(pass)
        .or_insert_with(|| wgsl_gen::radix(pass).into())
        .clone()
}

/// `t` with narrow ballots only where the ranking uses subgroups of at most 32 lanes.
fn narrow_where_possible(t: RadixTuning, ranking: Ranking, max_subgroup: u32) -> RadixTuning {
    RadixTuning {
        narrow_ballots: t.narrow_ballots
            && matches!(ranking, Ranking::Subgroups { .. })
            && max_subgroup <= 32,
        ..t
    }
}

/// Keys per thread of a radix tile: the config's (4 to 32, where the workgroup memory stages
/// them), else the testing hook's (4, 8 or 16), else as many as the workgroup memory stages
/// (at most 16).
fn radix_items(device: &Device, ranking: Ranking) -> u32 {
    let room = wg_storage(device).saturating_sub(ranking.fixed_bytes() + 256 * 4 + 256 + 128);
    let fit = room / (wgsl_gen::RADIX_WG * 4);
    if let v @ 4..=32 = device.config().sort.items
        && v <= fit
    {
        return v;
    }
    if let v @ (4 | 8 | 16) = ITEMS_OVERRIDE.load(Ordering::Relaxed) {
        return v as u32;
    }
    match fit {
        16.. => 16,
        8.. => 8,
        _ => 4,
    }
}

pub(crate) fn pipeline(device: &Device, wgsl: &str, entry: &str) -> Result<Arc<Pipeline>> {
    device
        .context()
        .pipeline_with(wgsl, entry, ShaderChecks::Trusted)
}

/// `groups` workgroups as a grid (x first, spilling into y) and its x width.
pub(crate) fn grid(device: &Device, groups: usize) -> Result<([u32; 3], u32)> {
    let max = device.context().max_workgroups_per_dim() as usize;
    let groups = groups.max(1);
    let x = groups.min(max);
    let y = groups.div_ceil(x);
    if y > max {
        return Err(Error::unsupported(format!(
            "a sort launch of {groups} workgroups (at most {max} x {max})"
        )));
    }
    Ok(([x as u32, y as u32, 1], x as u32))
}

/// The uniform block of a radix launch (`Params` of `shaders/sort_radix.wgsl`).
#[derive(Default)]
struct RadixParams {
    n: u32,
    shift: u32,
    nblocks: u32,
    grid_x: u32,
    off: u32,
    passes: u32,
    words: u32,
    status_at: u32,
    clear_at: u32,
    patience: u32,
    inline_scan: u32,
}

impl RadixParams {
    fn bytes(&self) -> Vec<u8> {
        params(&[
            self.n,
            self.shift,
            self.nblocks,
            self.grid_x,
            self.off,
            self.passes,
            self.words,
            self.status_at,
            self.clear_at,
            self.patience,
            self.inline_scan,
            0,
            0,
        ])
    }
}

pub(crate) fn params(fields: &[u32]) -> Vec<u8> {
    let mut bytes: Vec<u8> = fields.iter().flat_map(|v| v.to_le_bytes()).collect();
    bytes.resize(bytes.len().div_ceil(16) * 16, 0);
    bytes
}

/// A binding of the first `bytes` bytes of `buffer` (rounded up to 4).
pub(crate) fn bind(buffer: &Arc<GpuBuffer>, bytes: u64) -> Binding {
    Binding {
        buffer: buffer.clone(),
        offset: 0,
        size: bytes.div_ceil(4).max(1).min(buffer.size() / 4) * 4,
    }
}

/// A fresh buffer of `words` u32 words.
pub(crate) fn alloc_words(device: &Device, words: usize) -> Result<Arc<GpuBuffer>> {
    let bytes = (words.max(1) * 4) as u64;
    if bytes > device.context().max_binding_size() {
        return Err(Error::unsupported(format!(
            "sorting needs a buffer of {bytes} bytes, more than this adapter's largest \
             binding ({} bytes)",
            device.context().max_binding_size()
        )));
    }
    Ok(Arc::new(device.context().alloc(bytes)?))
}

/// The buffer, element offset and byte size in use of a contiguous array.
pub(crate) fn source(a: &Array) -> Result<(Arc<GpuBuffer>, u32, u64)> {
    let (buffer, layout) = a.read_buffer_and_layout()?;
    if !layout.is_c_contiguous() {
        return Err(Error::invalid("sort engine: source must be contiguous"));
    }
    let bytes = ((layout.offset + a.size()) * a.dtype().gpu_size()) as u64;
    let max = a.device().context().max_binding_size();
    if bytes > max {
        return Err(Error::unsupported(format!(
            "sorting an array of {bytes} bytes, more than this adapter's largest binding \
             ({max} bytes)"
        )));
    }
    Ok((buffer, layout.offset as u32, bytes))
}

/// Writes key word `word` of each element (`perm`: of element perm[i]) into a new buffer.
fn key_words_of(
    a: &Array,
    word: KeyWord,
    perm: Option<&Arc<GpuBuffer>>,
    rowlen: usize,
    signed_zero: bool,
) -> Result<Arc<GpuBuffer>> {
    let out = alloc_words(a.device(), a.size())?;
    write_key_words(a, word, perm, rowlen, signed_zero, &out, 1, 0)?;
    Ok(out)
}

/// Writes key word `word` of element i (or perm[i]) to `out[i * stride + at]`.
#[allow(clippy::too_many_arguments)]
fn write_key_words(
    a: &Array,
    word: KeyWord,
    perm: Option<&Arc<GpuBuffer>>,
    rowlen: usize,
    signed_zero: bool,
    out: &Arc<GpuBuffer>,
    stride: usize,
    at: usize,
) -> Result<()> {
    let device = a.device();
    let n = a.size();
    let (src, off, bytes) = source(a)?;
    let wgsl = wgsl_gen::key_word(a.dtype(), word, perm.is_some(), signed_zero)?;
    let p = pipeline(device, &wgsl, "main")?;
    let (groups, gx) = grid(device, n.div_ceil(256))?;
    let mut bindings = Vec::new();
    if word != KeyWord::Row {
        bindings.push((1, bind(&src, bytes)));
    }
    bindings.push((2, bind(out, (n * stride) as u64 * 4)));
    if let Some(perm) = perm {
        bindings.push((3, bind(perm, n as u64 * 4)));
    }
    let bytes = params(&[
        n as u32,
        off,
        rowlen.max(1) as u32,
        gx,
        stride as u32,
        at as u32,
        0,
        0,
    ]);
    device
        .context()
        .dispatch_with(&p, Some(&bytes), bindings, groups)
}

/// All key words of every element of a contiguous array, side by side (element i's words
/// at `i * words ..`, most significant first), and the word count.
pub(crate) fn interleaved_keys(a: &Array) -> Result<(Arc<GpuBuffer>, usize)> {
    let words = wgsl_gen::key_words(a.dtype());
    let k = words.len();
    let out = alloc_words(a.device(), a.size() * k)?;
    for (at, w) in words.into_iter().enumerate() {
        write_key_words(a, w, None, 1, false, &out, k, at)?;
    }
    Ok((out, k))
}

/// The keys a radix sort reads in its first pass: a buffer, the element offset of a raw
/// source, the bytes bound, and how words become keys.
pub(crate) struct RadixInput {
    pub(crate) buffer: Arc<GpuBuffer>,
    pub(crate) off: u32,
    pub(crate) bytes: u64,
    pub(crate) load: KeyLoad,
}

impl RadixInput {
    /// Key words already in a buffer (`key_words` per key).
    pub(crate) fn words(buffer: Arc<GpuBuffer>, n: usize, key_words: u32) -> RadixInput {
        RadixInput {
            buffer,
            off: 0,
            bytes: (n * key_words as usize * 4) as u64,
            load: KeyLoad::Words,
        }
    }
}

/// The most tiles for which the portable sort's downsweep sums the tiles' digit counts
/// itself instead of a `scan_columns` launch (256 workgroups of 16-barrier scans, most of
/// a small sort's time on lavapipe): `KUPFER_SORT_INLINE_SCAN` (0: always launch the scan);
/// 64.
fn inline_scan_tiles() -> usize {
    static TILES: OnceLock<usize> = OnceLock::new();
    *TILES.get_or_init(|| {
        std::env::var("KUPFER_SORT_INLINE_SCAN")
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(64)
    })
}

/// Whether the global radix sort of `n` keys in `nblocks` tiles runs single-pass: as the
/// device's config says (`KUPFER_SORT`), by default where the adapter is known to run
/// workgroups with forward progress, and only where the counts fit a status word and the
/// state fits a binding.
fn use_onesweep(device: &Device, n: usize, nblocks: usize) -> bool {
    let fits = n < (1 << 30)
        && SinglePassState::words(nblocks) as u64 * 4 <= device.context().max_binding_size();
    fits && match device.config().sort.engine {
        SortEngine::Portable => false,
        SortEngine::Onesweep => true,
        SortEngine::Auto => forward_progress(device.info()),
    }
}

/// Adapters whose resident workgroups are known to make progress while another spins: NVIDIA
/// (PCI vendor 0x10de) and AMD (0x1002) discrete GPUs on Vulkan or DX12. Software
/// rasterizers, Apple, WebGPU and the rest run the portable sort.
fn forward_progress(info: &kupfer_wgpu::DeviceInfo) -> bool {
    info.device_type == "DiscreteGpu"
        && matches!(info.vendor, 0x10de | 0x1002)
        && matches!(info.backend.as_str(), "vulkan" | "dx12")
}

/// The single-pass sort's state buffer: digit totals of every pass, the passes' tile
/// counters, and two areas of tile status (pass p uses area p % 2 and zeroes the other).
struct SinglePassState {
    buffer: Arc<GpuBuffer>,
    nblocks: usize,
}

impl SinglePassState {
    fn words(nblocks: usize) -> usize {
        wgsl_gen::ONESWEEP_STATUS_AT as usize + 2 * 256 * nblocks
    }

    fn new(device: &Device, nblocks: usize) -> Result<SinglePassState> {
        Ok(SinglePassState {
            buffer: alloc_words(device, Self::words(nblocks))?,
            nblocks,
        })
    }

    fn binding(&self) -> Binding {
        bind(&self.buffer, Self::words(self.nblocks) as u64 * 4)
    }

    /// Where pass `pass`'s tile status starts, and the next pass's (0 after the last).
    fn status_areas(&self, pass: u32, last: bool) -> (u32, u32) {
        let area = |k: u32| wgsl_gen::ONESWEEP_STATUS_AT + k * 256 * self.nblocks as u32;
        let next = if last { 0 } else { area((pass + 1) % 2) };
        (area(pass % 2), next)
    }

    /// Zeroes the totals, counters and the first pass's status, counts the digits of every
    /// pass from the first pass's keys (`first`: its parameters) and turns each pass's
    /// counts into the digits' exclusive starts.
    fn prepare(
        &self,
        device: &Device,
        wgsl: &str,
        keys: &Arc<GpuBuffer>,
        key_bytes: u64,
        first: &RadixParams,
        passes: u32,
    ) -> Result<()> {
        let ctx = device.context();
        let words = wgsl_gen::ONESWEEP_STATUS_AT as usize + 256 * self.nblocks;
        let (groups, gx) = grid(device, words.div_ceil(256))?;
        let clear = RadixParams {
            words: words as u32,
            grid_x: gx,
            ..RadixParams::default()
        };
        let p = pipeline(device, wgsl, "clear_state")?;
        ctx.dispatch_with(&p, Some(&clear.bytes()), vec![(6, self.binding())], groups)?;
        let span = wgsl_gen::RADIX_WG as usize * wgsl_gen::HIST_ITEMS as usize;
        let (groups, gx) = grid(device, (first.n as usize).div_ceil(span))?;
        let count = RadixParams {
            n: first.n,
            off: first.off,
            passes,
            grid_x: gx,
            ..RadixParams::default()
        };
        let p = pipeline(device, wgsl, "histogram_all")?;
        ctx.dispatch_with(
            &p,
            Some(&count.bytes()),
            vec![(1, bind(keys, key_bytes)), (6, self.binding())],
            groups,
        )?;
        let p = pipeline(device, wgsl, "scan_totals")?;
        ctx.dispatch_with(
            &p,
            Some(&count.bytes()),
            vec![(6, self.binding())],
            [1, 1, 1],
        )
    }
}

/// What [`radix_sort`] wrote: the keys (None for `KeyStore::Nothing`) and the payload.
pub(crate) type Sorted = (Option<Arc<GpuBuffer>>, Option<Arc<GpuBuffer>>);

/// Stable LSD radix sort of `n` keys of `key_words` words (their low `bits` bits) with the
/// payload `vals` (None with `with_payload`: each key's position). The last pass writes the
/// keys as `store` says. Returns the written keys (None for `KeyStore::Nothing`) and payload.
#[allow(clippy::too_many_arguments)]
pub(crate) fn radix_sort(
    device: &Device,
    input: RadixInput,
    key_words: u32,
    store: KeyStore,
    vals: Option<Arc<GpuBuffer>>,
    with_payload: bool,
    n: usize,
    bits: u32,
) -> Result<Sorted> {
    radix_sort_to(
        device,
        input,
        key_words,
        store,
        vals,
        with_payload,
        false,
        n,
        bits,
    )
}

/// [`radix_sort`], the last pass writing the payload as int64 (2n words) with
/// `int64_positions`.
#[allow(clippy::too_many_arguments)]
fn radix_sort_to(
    device: &Device,
    input: RadixInput,
    key_words: u32,
    store: KeyStore,
    vals: Option<Arc<GpuBuffer>>,
    with_payload: bool,
    int64_positions: bool,
    n: usize,
    bits: u32,
) -> Result<Sorted> {
    let ranking = ranking(device);
    let items = radix_items(device, ranking);
    let tile = wgsl_gen::RADIX_WG as usize * items as usize;
    let nblocks = n.div_ceil(tile).max(1);
    let passes = bits.div_ceil(8).max(1);
    let single = if use_onesweep(device, n, nblocks) {
        Some(SinglePassState::new(device, nblocks)?)
    } else {
        None
    };
    let tuning = radix_tuning(
        ranking,
        device.context().info().subgroup_sizes.1,
        single.is_some(),
    );
    // The portable sort's tile histograms (the single-pass sort needs none).
    let hist_words = if single.is_some() {
        1
    } else {
        256 * nblocks + 256
    };
    let hist = alloc_words(device, hist_words)?;
    let hist_bytes = hist_words as u64 * 4;
    let kw = key_words as usize;
    let key_bytes = (n * kw) as u64 * 4;
    let nbytes = n as u64 * 4;
    let (groups, gx) = grid(device, nblocks)?;
    let ctx = device.context();
    let mut keys_in = input.buffer;
    let mut in_bytes = input.bytes;
    let mut spare_keys: Option<Arc<GpuBuffer>> = None;
    let mut vals_in = vals;
    let mut spare_vals: Option<Arc<GpuBuffer>> = None;
    let mut written: Option<Arc<GpuBuffer>> = None;
    for pass in 0..passes {
        let last = pass + 1 == passes;
        let load = if pass == 0 {
            input.load
        } else {
            KeyLoad::Words
        };
        let pass_store = if last { store } else { KeyStore::Words };
        let wide_vals = last && int64_positions;
        let payload = match (&vals_in, with_payload) {
            (_, false) => Payload::None,
            (None, true) => Payload::Position,
            (Some(_), true) => Payload::Words,
        };
        let wgsl = radix_module(RadixPass {
            items,
            key_words,
            load,
            store: pass_store,
            payload,
            ranking,
            scatter: scatter(),
            early_counts: early_counts(),
            int64_positions: wide_vals,
            tuning,
        });
        let off = if pass == 0 { input.off } else { 0 };
        let mut p = RadixParams {
            n: n as u32,
            shift: pass * 8,
            nblocks: nblocks as u32,
            grid_x: gx,
            off,
            ..RadixParams::default()
        };
        let mut b = vec![(1, bind(&keys_in, in_bytes))];
        let sweep = match &single {
            Some(state) => {
                if pass == 0 {
                    state.prepare(device, &wgsl, &keys_in, in_bytes, &p, passes)?;
                }
                let (status_at, clear_at) = state.status_areas(pass, last);
                p.status_at = status_at;
                p.clear_at = clear_at;
                p.patience = device.config().sort.patience;
                b.push((6, state.binding()));
                pipeline(device, &wgsl, "onesweep")?
            }
            None => {
                let bytes = p.bytes();
                let up = pipeline(device, &wgsl, "upsweep")?;
                ctx.dispatch_with(
                    &up,
                    Some(&bytes),
                    vec![(1, bind(&keys_in, in_bytes)), (2, bind(&hist, hist_bytes))],
                    groups,
                )?;
                if nblocks <= inline_scan_tiles() {
                    // Few tiles: each downsweep workgroup sums the raw counts itself.
                    p.inline_scan = 1;
                } else {
                    let scan = pipeline(device, &wgsl, "scan_columns")?;
                    ctx.dispatch_with(
                        &scan,
                        Some(&bytes),
                        vec![(2, bind(&hist, hist_bytes))],
                        [256, 1, 1],
                    )?;
                }
                b.push((2, bind(&hist, hist_bytes)));
                pipeline(device, &wgsl, "downsweep")?
            }
        };
        let bytes = p.bytes();
        let keys_out = if pass_store == KeyStore::Nothing {
            None
        } else {
            let out = match spare_keys.take() {
                Some(k) => k,
                None => alloc_words(device, n * kw)?,
            };
            b.push((3, bind(&out, key_bytes)));
            Some(out)
        };
        if let Some(v) = &vals_in {
            b.push((4, bind(v, nbytes)));
        }
        let vals_out = if with_payload {
            let out = match spare_vals.take() {
                Some(v) if !wide_vals => v,
                _ => alloc_words(device, if wide_vals { 2 * n } else { n })?,
            };
            b.push((5, bind(&out, if wide_vals { 2 * nbytes } else { nbytes })));
            Some(out)
        } else {
            None
        };
        ctx.dispatch_with(&sweep, Some(&bytes), b, groups)?;
        if let Some(out) = keys_out {
            // The first pass's input may be the caller's array: never reuse it.
            if pass > 0 {
                spare_keys = Some(keys_in);
            }
            keys_in = out.clone();
            in_bytes = key_bytes;
            written = Some(out);
        }
        if let Some(out) = vals_out {
            if let Some(old) = vals_in.take() {
                spare_vals = Some(old);
            }
            vals_in = Some(out);
        }
    }
    Ok((written, vals_in))
}

/// A permutation sorting each row of a `(nrows, rowlen)` array.
pub(crate) enum Perm {
    /// Positions within each row (row r's entries are 0..rowlen).
    Local(Arc<GpuBuffer>),
    /// Flat positions into the whole array.
    Global(Arc<GpuBuffer>),
}

/// The stable sorting permutation of every row of `a`, a C-contiguous materialised array
/// seen as `(nrows, rowlen)` (`nrows * rowlen == a.size() > 0`), in NumPy's order.
pub(crate) fn sort_rows(a: &Array, nrows: usize, rowlen: usize) -> Result<Perm> {
    lexsort_rows(&[a], nrows, rowlen)
}

/// The stable permutation sorting every row by `keys[0]`, ties by `keys[1]`, and so on
/// (arrays as in [`sort_rows`], all of one shape).
pub(crate) fn lexsort_rows(keys: &[&Array], nrows: usize, rowlen: usize) -> Result<Perm> {
    let device = keys[0].device();
    if keys.len() == 1 {
        let words = wgsl_gen::key_words(keys[0].dtype());
        if words.len() == 1 && rowlen <= row_limit(device) {
            let k = key_words_of(keys[0], words[0], None, rowlen, false)?;
            return row_sort(device, &k, nrows, rowlen).map(Perm::Local);
        }
    }
    let n = nrows * rowlen;
    if keys.len() == 1
        && nrows == 1
        && let Some(perm) = raw_argsort(keys[0], false)?
    {
        return Ok(Perm::Global(perm));
    }
    let mut passes: Vec<(&Array, KeyWord, u32)> = Vec::new();
    if nrows > 1 {
        passes.push((
            keys[0],
            KeyWord::Row,
            32 - (nrows as u32 - 1).leading_zeros(),
        ));
    }
    for k in keys {
        passes.extend(
            wgsl_gen::key_words(k.dtype())
                .into_iter()
                .map(|w| (*k, w, w.bits())),
        );
    }
    let mut perm: Option<Arc<GpuBuffer>> = None;
    for (src, word, bits) in passes.into_iter().rev() {
        let k = key_words_of(src, word, perm.as_ref(), rowlen, false)?;
        let input = RadixInput::words(k, n, 1);
        let (_, p) = radix_sort(
            device,
            input,
            1,
            KeyStore::Nothing,
            perm.take(),
            true,
            n,
            bits,
        )?;
        perm = p;
    }
    perm.map(Perm::Global)
        .ok_or_else(|| Error::invalid("sort engine: no key words"))
}

/// The stable sorting permutation of a contiguous 1-D array of a dtype with raw keys (u32
/// positions, or int64 with `int64`), by the radix sort reading the elements themselves; None
/// for other dtypes.
fn raw_argsort(a: &Array, int64: bool) -> Result<Option<Arc<GpuBuffer>>> {
    let Some((load, key_words)) = raw_load(a.dtype(), true) else {
        return Ok(None);
    };
    let (buffer, off, bytes) = source(a)?;
    let input = RadixInput {
        buffer,
        off,
        bytes,
        load,
    };
    let (_, perm) = radix_sort_to(
        a.device(),
        input,
        key_words,
        KeyStore::Nothing,
        None,
        true,
        int64,
        a.size(),
        32 * key_words,
    )?;
    perm.map(Some)
        .ok_or_else(|| Error::invalid("sort engine: no permutation"))
}

/// `argsort` of a contiguous 1-D array of at least two elements into int64 positions
/// written by the radix sort's last pass (no cast), where the adapter's default integer is
/// int64 and the radix sort takes the row (None elsewhere).
pub(crate) fn argsort_int64(a: &Array) -> Result<Option<Array>> {
    let device = a.device();
    let n = a.size();
    let one_word = wgsl_gen::key_words(a.dtype()).len() == 1;
    if device.default_int() != DType::I64 || n < 2 || (one_word && n <= row_limit(device)) {
        return Ok(None);
    }
    let Some(perm) = raw_argsort(a, true)? else {
        return Ok(None);
    };
    Array::from_buffer(device.clone(), DType::I64, perm, Layout::contiguous(&[n]))
        .into_packed_result()
        .map(Some)
}

/// The row sort of `nrows` rows of `rowlen <= row_limit` keys.
fn row_sort(
    device: &Device,
    keys: &Arc<GpuBuffer>,
    nrows: usize,
    rowlen: usize,
) -> Result<Arc<GpuBuffer>> {
    let n = nrows * rowlen;
    let l = rowlen.next_power_of_two();
    let slots = row_slots(device).min(l * nrows.next_power_of_two()).max(l);
    let threads = (slots / 2).clamp(32, 256);
    let wgsl = wgsl_gen::rows(slots as u32, l as u32, threads as u32);
    let p = pipeline(device, &wgsl, "main")?;
    let out = alloc_words(device, n)?;
    let (groups, gx) = grid(device, nrows.div_ceil(slots / l))?;
    let bytes = params(&[rowlen as u32, nrows as u32, gx, 0]);
    device.context().dispatch_with(
        &p,
        Some(&bytes),
        vec![(1, bind(keys, n as u64 * 4)), (2, bind(&out, n as u64 * 4))],
        groups,
    )?;
    Ok(out)
}

/// How the radix sort's first pass reads raw elements of `dtype` as keys, and the key words
/// per element (None: dtypes whose keys need the key kernel). `equal_zeros`: -0.0 gets 0.0's
/// key (NumPy's order); otherwise the key is bijective (-0.0 just below 0.0).
pub(crate) fn raw_load(dtype: DType, equal_zeros: bool) -> Option<(KeyLoad, u32)> {
    Some(match dtype {
        DType::F32 => (KeyLoad::F32 { equal_zeros }, 1),
        // The small integers are one sign- or zero-extended 32-bit word each.
        DType::I8 | DType::I16 | DType::I32 => (KeyLoad::I32, 1),
        DType::U8 | DType::U16 | DType::U32 => (KeyLoad::U32, 1),
        DType::F64 => (KeyLoad::F64 { equal_zeros }, 2),
        DType::I64 => (KeyLoad::I64, 2),
        DType::U64 => (KeyLoad::U64, 2),
        _ => return None,
    })
}

/// How the last radix pass (or the selection) turns keys of `dtype` back into values.
fn value_store(dtype: DType) -> KeyStore {
    match dtype {
        DType::F32 => KeyStore::F32,
        DType::I8 | DType::I16 | DType::I32 => KeyStore::I32,
        DType::F64 => KeyStore::F64,
        DType::I64 => KeyStore::I64,
        _ => KeyStore::Words,
    }
}

/// Elements each thread of a selection step counts.
const SELECT_PER_THREAD: u32 = 32;

/// The values of the order statistics `ranks` (1 to 3 ranks, each below `a.size()`) of a
/// contiguous 1-D array of a [`keys_only_dtype`], by radix selection
/// (`shaders/sort_select.wgsl`): one counting pass over the data per 8 key bits, no sort and
/// no read-back. The result has `ranks.len()` elements of `a`'s dtype.
pub(crate) fn select_ranks(a: &Array, ranks: &[usize]) -> Result<Array> {
    let device = a.device();
    let n = a.size();
    let d = a.dtype();
    let Some((load, key_words)) = raw_load(d, false) else {
        return Err(Error::invalid(format!("selection in {d}")));
    };
    if ranks.is_empty() || ranks.len() > 3 || ranks.iter().any(|&r| r >= n) {
        return Err(Error::invalid("sort engine: selection ranks"));
    }
    let t = ranks.len() as u32;
    let wgsl = wgsl_gen::select(t, key_words, load, value_store(d), SELECT_PER_THREAD);
    let (buffer, off, bytes) = source(a)?;
    let mut init: Vec<u32> = Vec::new();
    for &r in ranks {
        init.extend(std::iter::repeat_n(0u32, key_words as usize));
        init.push(r as u32);
    }
    let state = Array::from_slice_on(device, &init, &[init.len()])?;
    let (state, _) = state.buffer_and_layout()?;
    let zeros = vec![0u32; 256 * ranks.len()];
    let hist = Array::from_slice_on(device, &zeros, &[zeros.len()])?;
    let (hist, _) = hist.buffer_and_layout()?;
    let out_words = ranks.len() * key_words as usize;
    let values = alloc_words(device, out_words)?;
    let state_bytes = init.len() as u64 * 4;
    let hist_bytes = zeros.len() as u64 * 4;
    let count = pipeline(device, &wgsl, "count")?;
    let pick = pipeline(device, &wgsl, "pick")?;
    let emit = pipeline(device, &wgsl, "emit")?;
    let (groups, gx) = grid(
        device,
        n.div_ceil(wgsl_gen::RADIX_WG as usize * SELECT_PER_THREAD as usize),
    )?;
    let ctx = device.context();
    let steps = 4 * key_words;
    for step in 0..steps {
        let shift = 32 * key_words - 8 - 8 * step;
        let p = params(&[n as u32, shift, u32::from(step == 0), off, gx]);
        ctx.dispatch_with(
            &count,
            Some(&p),
            vec![
                (1, bind(&buffer, bytes)),
                (2, bind(&state, state_bytes)),
                (3, bind(&hist, hist_bytes)),
            ],
            groups,
        )?;
        ctx.dispatch_with(
            &pick,
            Some(&p),
            vec![(2, bind(&state, state_bytes)), (3, bind(&hist, hist_bytes))],
            [1, 1, 1],
        )?;
    }
    let p = params(&[n as u32, 0, 0, off, gx]);
    ctx.dispatch_with(
        &emit,
        Some(&p),
        vec![
            (2, bind(&state, state_bytes)),
            (4, bind(&values, out_words as u64 * 4)),
        ],
        [1, 1, 1],
    )?;
    Array::from_buffer(
        device.clone(),
        d,
        values,
        Layout::contiguous(&[ranks.len()]),
    )
    .into_packed_result()
}

/// Whether [`sort_keys_only`] takes `dtype`.
pub(crate) fn keys_only_dtype(dtype: DType) -> bool {
    raw_load(dtype, false).is_some()
}

/// The keys-only radix sort of a contiguous 1-D array of a [`keys_only_dtype`] (integers,
/// float32, float64): the values themselves, bit for bit (-0.0 before 0.0, NaNs after +inf
/// with their signs and payloads), without a permutation. The first pass turns values into
/// bijective keys and the last turns keys back into values; 64-bit keys move as one two-word
/// key through every pass.
pub(crate) fn sort_keys_only(a: &Array) -> Result<Array> {
    let device = a.device();
    let n = a.size();
    let d = a.dtype();
    let Some((load, key_words)) = raw_load(d, false) else {
        return Err(Error::invalid(format!("keys-only sort of {d}")));
    };
    let store = value_store(d);
    let (buffer, off, bytes) = source(a)?;
    let input = RadixInput {
        buffer,
        off,
        bytes,
        load,
    };
    let (sorted, _) = radix_sort(
        device,
        input,
        key_words,
        store,
        None,
        false,
        n,
        32 * key_words,
    )?;
    let sorted = sorted.ok_or_else(|| Error::invalid("sort engine: no keys written"))?;
    Array::from_buffer(device.clone(), d, sorted, Layout::contiguous(&[n])).into_packed_result()
}

/// Gathers rows: result `(nrows, m)` with element (r, j) = `src[r, idx[r * idx_row_stride +
/// j]]` (`local`), or `src.flat[idx[r * idx_row_stride + j]]` (flat indices). `src` is a
/// contiguous materialised array seen as `(nrows, rowlen)`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn take_rows(
    src: &Array,
    rowlen: usize,
    idx: &Arc<GpuBuffer>,
    idx_len: usize,
    local: bool,
    nrows: usize,
    m: usize,
    idx_row_stride: usize,
) -> Result<Array> {
    let device = src.device();
    let d = src.dtype();
    let n = nrows * m;
    if n == 0 {
        return crate::creation::full_on(device, &[nrows, m], 0i64, Some(d));
    }
    let (buf, off, bytes) = source(src)?;
    let wpe = wgsl_gen::words_per_element(d) as usize;
    let out_words = if wpe == 0 { n.div_ceil(2) } else { n * wpe };
    let out = alloc_words(device, out_words)?;
    let p = pipeline(device, &wgsl_gen::take(d), "main")?;
    let (groups, gx) = grid(device, out_words.div_ceil(256))?;
    let bytes_p = params(&[
        n as u32,
        m as u32,
        if local { rowlen as u32 } else { 0 },
        idx_row_stride as u32,
        off,
        gx,
        0,
        0,
    ]);
    device.context().dispatch_with(
        &p,
        Some(&bytes_p),
        vec![
            (1, bind(&buf, bytes)),
            (2, bind(idx, idx_len as u64 * 4)),
            (3, bind(&out, out_words as u64 * 4)),
        ],
        groups,
    )?;
    Array::from_buffer(device.clone(), d, out, Layout::contiguous(&[nrows, m])).into_packed_result()
}
