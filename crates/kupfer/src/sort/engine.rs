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
//!
//! Every launch is recorded into the device's pending batch: nothing here reads back or
//! waits. No kernel waits on another workgroup.

use crate::array::Array;
use crate::device::Device;
use kupfer_core::sort::{self as gen, KeyWord, Payload};
use kupfer_core::{DType, Error, Layout, Result};
use kupfer_wgpu::pipeline::Pipeline;
use kupfer_wgpu::{Binding, GpuBuffer, ShaderChecks};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

static ROW_LIMIT_OVERRIDE: AtomicUsize = AtomicUsize::new(0);
static ITEMS_OVERRIDE: AtomicUsize = AtomicUsize::new(0);

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

/// Keys per thread of a radix tile: as many as the workgroup memory stages (at most 16).
fn radix_items(device: &Device) -> u32 {
    if let v @ (4 | 8 | 16) = ITEMS_OVERRIDE.load(Ordering::Relaxed) {
        return v as u32;
    }
    let room = wg_storage(device).saturating_sub(gen::RADIX_FIXED_BYTES + 256);
    match room / (gen::RADIX_WG * 4) {
        16.. => 16,
        8.. => 8,
        _ => 4,
    }
}

fn pipeline(device: &Device, wgsl: &str, entry: &str) -> Result<Arc<Pipeline>> {
    device
        .context()
        .pipeline_with(wgsl, entry, ShaderChecks::Trusted)
}

/// `groups` workgroups as a grid (x first, spilling into y) and its x width.
fn grid(device: &Device, groups: usize) -> Result<([u32; 3], u32)> {
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

fn params(fields: &[u32]) -> Vec<u8> {
    let mut bytes: Vec<u8> = fields.iter().flat_map(|v| v.to_le_bytes()).collect();
    bytes.resize(bytes.len().div_ceil(16) * 16, 0);
    bytes
}

/// A binding of the first `bytes` bytes of `buffer` (rounded up to 4).
fn bind(buffer: &Arc<GpuBuffer>, bytes: u64) -> Binding {
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
fn source(a: &Array) -> Result<(Arc<GpuBuffer>, u32, u64)> {
    let (buffer, layout) = a.buffer_and_layout()?;
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
    let wgsl = gen::key_word(a.dtype(), word, perm.is_some(), signed_zero)?;
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
    let words = gen::key_words(a.dtype());
    let k = words.len();
    let out = alloc_words(a.device(), a.size() * k)?;
    for (at, w) in words.into_iter().enumerate() {
        write_key_words(a, w, None, 1, false, &out, k, at)?;
    }
    Ok((out, k))
}

/// Stable LSD radix sort of `n` keys (their low `bits` bits) in place of `keys`, with the
/// payload `vals` (None: each key's position). Returns the sorted keys and payload.
pub(crate) fn radix_sort(
    device: &Device,
    keys: Arc<GpuBuffer>,
    vals: Option<Arc<GpuBuffer>>,
    with_payload: bool,
    n: usize,
    bits: u32,
) -> Result<(Arc<GpuBuffer>, Option<Arc<GpuBuffer>>)> {
    let items = radix_items(device);
    let tile = gen::RADIX_WG as usize * items as usize;
    let nblocks = n.div_ceil(tile).max(1);
    let hist = alloc_words(device, 256 * nblocks + 256)?;
    let hist_bytes = (256 * nblocks + 256) as u64 * 4;
    let nbytes = n as u64 * 4;
    let mut keys = [keys, alloc_words(device, n)?];
    let mut vals: [Option<Arc<GpuBuffer>>; 2] = match (with_payload, vals) {
        (false, _) => [None, None],
        (true, v) => [v, Some(alloc_words(device, n)?)],
    };
    let (groups, gx) = grid(device, nblocks)?;
    let ctx = device.context();
    for pass in 0..bits.div_ceil(8) {
        let payload = match (&vals[0], with_payload) {
            (_, false) => Payload::None,
            (None, true) => Payload::Position,
            (Some(_), true) => Payload::Words,
        };
        let wgsl = gen::radix(items, payload);
        let bytes = params(&[n as u32, pass * 8, nblocks as u32, gx]);
        let up = pipeline(device, &wgsl, "upsweep")?;
        ctx.dispatch_with(
            &up,
            Some(&bytes),
            vec![(1, bind(&keys[0], nbytes)), (2, bind(&hist, hist_bytes))],
            groups,
        )?;
        let scan = pipeline(device, &wgsl, "scan_columns")?;
        ctx.dispatch_with(
            &scan,
            Some(&bytes),
            vec![(2, bind(&hist, hist_bytes))],
            [256, 1, 1],
        )?;
        let down = pipeline(device, &wgsl, "downsweep")?;
        let mut b = vec![
            (1, bind(&keys[0], nbytes)),
            (2, bind(&hist, hist_bytes)),
            (3, bind(&keys[1], nbytes)),
        ];
        if let Some(v) = &vals[0] {
            b.push((4, bind(v, nbytes)));
        }
        if let Some(v) = &vals[1] {
            b.push((5, bind(v, nbytes)));
        }
        ctx.dispatch_with(&down, Some(&bytes), b, groups)?;
        keys.swap(0, 1);
        if with_payload {
            vals.swap(0, 1);
            if vals[1].is_none() {
                vals[1] = Some(alloc_words(device, n)?);
            }
        }
    }
    let [k, _] = keys;
    let [v, _] = vals;
    Ok((k, v))
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
        let words = gen::key_words(keys[0].dtype());
        if words.len() == 1 && rowlen <= row_limit(device) {
            let k = key_words_of(keys[0], words[0], None, rowlen, false)?;
            return row_sort(device, &k, nrows, rowlen).map(Perm::Local);
        }
    }
    let n = nrows * rowlen;
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
            gen::key_words(k.dtype())
                .into_iter()
                .map(|w| (*k, w, w.bits())),
        );
    }
    let mut perm: Option<Arc<GpuBuffer>> = None;
    for (src, word, bits) in passes.into_iter().rev() {
        let k = key_words_of(src, word, perm.as_ref(), rowlen, false)?;
        let (_, p) = radix_sort(device, k, perm.take(), true, n, bits)?;
        perm = p;
    }
    perm.map(Perm::Global)
        .ok_or_else(|| Error::invalid("sort engine: no key words"))
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
    let wgsl = gen::rows(slots as u32, l as u32, threads as u32);
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

/// The keys-only radix sort of a contiguous 1-D float32, int32 or uint32 array: the values
/// themselves (-0.0 before 0.0, NaN canonical), without a permutation.
pub(crate) fn sort_keys_only(a: &Array) -> Result<Array> {
    let device = a.device();
    let n = a.size();
    let (word, back) = match a.dtype() {
        DType::F32 => (KeyWord::F32 { at: 0 }, Some(KeyWord::UnkeyF32)),
        // The small integers are one extended 32-bit word each: sorted as int32/uint32.
        DType::I8 | DType::I16 | DType::I32 => (KeyWord::I32, Some(KeyWord::UnkeyI32)),
        DType::U8 | DType::U16 | DType::U32 => (KeyWord::U32, None),
        d => return Err(Error::invalid(format!("keys-only sort of {d}"))),
    };
    let keys = key_words_of(a, word, None, n, true)?;
    let (sorted, _) = radix_sort(device, keys, None, false, n, 32)?;
    let out = match back {
        Some(back) => {
            let raw =
                Array::from_buffer(device.clone(), DType::U32, sorted, Layout::contiguous(&[n]));
            let values = key_words_of(&raw, back, None, n, true)?;
            Array::from_buffer(device.clone(), a.dtype(), values, Layout::contiguous(&[n]))
        }
        None => Array::from_buffer(device.clone(), a.dtype(), sorted, Layout::contiguous(&[n])),
    };
    Ok(out)
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
    let wpe = gen::words_per_element(d) as usize;
    let out_words = if wpe == 0 { n.div_ceil(2) } else { n * wpe };
    let out = alloc_words(device, out_words)?;
    let p = pipeline(device, &gen::take(d), "main")?;
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
    Ok(Array::from_buffer(
        device.clone(),
        d,
        out,
        Layout::contiguous(&[nrows, m]),
    ))
}
