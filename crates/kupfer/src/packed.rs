//! Storage of a materialised array: one buffer shared by every view of it, either of the
//! dtype's own GPU representation ("words": one 32-bit word per small integer) or packed
//! (int8/uint8 four to a word, int16/uint16 two, NumPy's little-endian bytes).
//!
//! Fused kernels read packed words natively; a family that only reads an array during one call
//! reads an unpacked word copy (`Array::read_buffer_and_layout`, cached while alive), and the
//! storage stays packed. `ufunc.at` writes packed words in place with compare-exchange loops
//! on the word (a neighbour written by another thread is never clobbered); before such a
//! write the lazy readers of the packed buffer are materialised (`fusion::readers`) and the
//! cached copy is dropped. Handing the buffer to any other family that may write into it or
//! make views of it (`Array::buffer_and_layout`) turns the storage into words for good, for
//! every view at once, and that family writes words as before.

use crate::device::Device;
use kupfer_core::packing::{packed_bits, packed_words, per_word, PACK_WGSL, PACK_WRITE_WGSL};
use kupfer_core::{DType, Error, Layout, Result};
use kupfer_wgpu::{Binding, GpuBuffer, ShaderChecks};
use std::sync::{Arc, Mutex, OnceLock, Weak};

/// `KUPFER_PACK` (read once): `0` keeps one word per small integer everywhere; `unpack`
/// stores them packed but has fused kernels read an unpacked copy instead of the packed words.
fn setting() -> &'static str {
    static SETTING: OnceLock<String> = OnceLock::new();
    SETTING.get_or_init(|| std::env::var("KUPFER_PACK").unwrap_or_default())
}

/// Whether new small-integer arrays are stored packed.
pub(crate) fn enabled() -> bool {
    setting() != "0"
}

/// Whether the families beyond the fused kernels keep small integers packed: read-only
/// callers read an unpacked copy, `ufunc.at` writes packed words in place, and their results
/// are packed. `KUPFER_PACK=convert` has them turn a packed storage into words for good and
/// return word results (the behaviour before).
pub(crate) fn families() -> bool {
    enabled() && setting() != "convert"
}

/// Whether fused elementwise kernels read packed inputs directly.
pub(crate) fn native_loads() -> bool {
    enabled() && setting() != "unpack"
}

/// True when arrays of `dtype` are stored packed.
pub(crate) fn packs(dtype: DType) -> bool {
    packed_bits(dtype).is_some() && enabled()
}

/// The buffer of a materialised array and its views.
pub(crate) struct Storage {
    repr: Mutex<Repr>,
}

enum Repr {
    Words(Arc<GpuBuffer>),
    Packed(Arc<PackedBuffer>),
}

/// A packed buffer (never written after it is made).
pub(crate) struct PackedBuffer {
    device: Device,
    dtype: DType,
    buffer: Arc<GpuBuffer>,
    /// Elements held (the element slots of the last word beyond it are zero).
    len: usize,
    /// The last unpacked copy, while an expression or array still holds it.
    words: Mutex<Weak<GpuBuffer>>,
}

impl std::fmt::Debug for PackedBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PackedBuffer({} x {})", self.len, self.dtype)
    }
}

impl PackedBuffer {
    /// The packed words.
    pub(crate) fn buffer(&self) -> &Arc<GpuBuffer> {
        &self.buffer
    }

    /// The element type.
    pub(crate) fn dtype(&self) -> DType {
        self.dtype
    }

    /// One word per element slot (an unpacked copy, shared while alive; nobody writes into
    /// it unless it becomes an array's storage, see [`Storage::make_words`]).
    pub(crate) fn words(&self) -> Result<Arc<GpuBuffer>> {
        let mut cache = self.words.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(w) = cache.upgrade() {
            return Ok(w);
        }
        let w = unpack(&self.device, self.dtype, &self.buffer, self.len)?;
        *cache = Arc::downgrade(&w);
        Ok(w)
    }
}

impl PackedBuffer {
    /// One word per element slot for a reader of the elements `layout` touches: the whole
    /// unpacked copy (cached) when the view spans most of the buffer, else a fresh copy of
    /// just the words it touches (from a binding-aligned word), with the layout moved to it.
    pub(crate) fn words_for(&self, layout: &Layout) -> Result<(Arc<GpuBuffer>, Layout)> {
        let Some((lo, hi)) = layout.span() else {
            return Ok((self.words()?, layout.clone()));
        };
        let per = per_word(self.dtype);
        let unit = aligned_unit(&self.device) as usize;
        let first = (lo / per) / unit * unit;
        let last = (hi / per + 1).min(packed_words(self.dtype, self.len));
        let total = packed_words(self.dtype, self.len);
        if 2 * (last - first) >= total {
            return Ok((self.words()?, layout.clone()));
        }
        let words = unpack_range(&self.device, self.dtype, &self.buffer, first, last - first)?;
        let mut moved = layout.clone();
        moved.offset -= first * per;
        Ok((words, moved))
    }
}

impl Storage {
    /// Storage of the dtype's GPU representation.
    pub(crate) fn words(buffer: Arc<GpuBuffer>) -> Arc<Storage> {
        Arc::new(Storage {
            repr: Mutex::new(Repr::Words(buffer)),
        })
    }

    /// Packed storage of `len` elements of `dtype` on `device`.
    pub(crate) fn packed(
        device: &Device,
        dtype: DType,
        buffer: Arc<GpuBuffer>,
        len: usize,
    ) -> Arc<Storage> {
        Arc::new(Storage {
            repr: Mutex::new(Repr::Packed(Arc::new(PackedBuffer {
                device: device.clone(),
                dtype,
                buffer,
                len,
                words: Mutex::new(Weak::new()),
            }))),
        })
    }

    fn repr(&self) -> std::sync::MutexGuard<'_, Repr> {
        self.repr.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The packed buffer, if the storage is packed.
    pub(crate) fn packed_buffer(&self) -> Option<Arc<PackedBuffer>> {
        match &*self.repr() {
            Repr::Packed(p) => Some(p.clone()),
            Repr::Words(_) => None,
        }
    }

    /// A word buffer to read (the storage itself, or an unpacked copy of a packed one, which
    /// nobody writes into). The storage stays as it is.
    pub(crate) fn read_words(&self) -> Result<Arc<GpuBuffer>> {
        let packed = match &*self.repr() {
            Repr::Words(b) => return Ok(b.clone()),
            Repr::Packed(p) => p.clone(),
        };
        packed.words()
    }

    /// A word buffer to read the elements of `layout` from, and their layout in it (the
    /// storage itself, or an unpacked copy of the words the view touches).
    pub(crate) fn read_words_for(&self, layout: &Layout) -> Result<(Arc<GpuBuffer>, Layout)> {
        let packed = match &*self.repr() {
            Repr::Words(b) => return Ok((b.clone(), layout.clone())),
            Repr::Packed(p) => p.clone(),
        };
        packed.words_for(layout)
    }

    /// The packed buffer for an in-place write of packed words (None for word storage, or
    /// when [`families`] is off). The cached unpacked copy is dropped (readers holding it
    /// keep the values from before the write; later reads unpack again).
    pub(crate) fn packed_for_write(&self) -> Option<Arc<PackedBuffer>> {
        if !families() {
            return None;
        }
        let p = self.packed_buffer()?;
        *p.words.lock().unwrap_or_else(|p| p.into_inner()) = Weak::new();
        Some(p)
    }

    /// The word buffer a family may write into or view: a packed storage becomes words for
    /// good (every view sees the change).
    pub(crate) fn make_words(&self) -> Result<Arc<GpuBuffer>> {
        let mut repr = self.repr();
        let w = match &*repr {
            Repr::Words(b) => return Ok(b.clone()),
            // An unpacked copy still read by lazy expressions may become the storage: a later
            // write into it materialises those readers first (`fusion::readers`). It is no
            // longer handed out as a copy nobody writes.
            Repr::Packed(p) => {
                let w = p.words()?;
                *p.words.lock().unwrap_or_else(|p| p.into_inner()) = Weak::new();
                w
            }
        };
        *repr = Repr::Words(w.clone());
        Ok(w)
    }
}

/// A multiple of 256 words whose byte size is a multiple of the binding offset alignment:
/// word offsets of a multiple of it are aligned on both sides of a conversion.
fn aligned_unit(device: &Device) -> u64 {
    let align = device.context().binding_alignment().max(4);
    (align / 4).max(256).next_multiple_of(256)
}

/// Words (and element slots) per dispatch of the conversion kernels: a multiple of 256 words
/// whose word-per-element side fits one binding.
fn chunk_words(device: &Device, dtype: DType) -> u64 {
    let ctx = device.context();
    let per = per_word(dtype) as u64;
    let unit = aligned_unit(device);
    let max = ctx.max_binding_size() / (4 * per);
    ((max / unit) * unit).max(unit)
}

fn params(count: u64, elements: u64, dtype: DType, groups_x: u32) -> Vec<u8> {
    let bits = packed_bits(dtype).unwrap_or(32);
    let signed = u32::from(dtype.is_signed_int());
    [
        count as u32,
        elements.min(u64::from(u32::MAX)) as u32,
        bits,
        signed,
        groups_x,
        0,
        0,
        0,
    ]
    .iter()
    .flat_map(|x| x.to_le_bytes())
    .collect()
}

fn grid(device: &Device, threads: u64) -> Result<[u32; 3]> {
    let groups = threads.div_ceil(256).max(1);
    let max_dim = u64::from(device.context().max_workgroups_per_dim());
    let gx = groups.min(max_dim);
    let gy = groups.div_ceil(gx);
    if gy > max_dim {
        return Err(Error::unsupported("dispatch grid too large"));
    }
    Ok([gx as u32, gy as u32, 1])
}

/// One sign- or zero-extended word per element slot of the packed `buffer` of `len` elements.
pub(crate) fn unpack(
    device: &Device,
    dtype: DType,
    buffer: &Arc<GpuBuffer>,
    len: usize,
) -> Result<Arc<GpuBuffer>> {
    unpack_range(device, dtype, buffer, 0, packed_words(dtype, len))
}

/// [`unpack`] of the `count` packed words from word `first` (a multiple of
/// [`aligned_unit`]): element slot `j` of the result is element `first * per + j`.
fn unpack_range(
    device: &Device,
    dtype: DType,
    buffer: &Arc<GpuBuffer>,
    first: usize,
    count: usize,
) -> Result<Arc<GpuBuffer>> {
    let ctx = device.context();
    let per = per_word(dtype) as u64;
    let (first, words) = (first as u64, count as u64);
    let out = Arc::new(ctx.alloc(words * per * 4)?);
    let pipeline = ctx.pipeline_entry(PACK_WGSL, "unpack")?;
    let chunk = chunk_words(device, dtype);
    let mut start = 0u64;
    while start < words {
        let n = chunk.min(words - start);
        let g = grid(device, n * per)?;
        ctx.dispatch(
            &pipeline,
            &params(n * per, 0, dtype, g[0]),
            vec![
                Binding {
                    buffer: buffer.clone(),
                    offset: (first + start) * 4,
                    size: n * 4,
                },
                Binding {
                    buffer: out.clone(),
                    offset: start * per * 4,
                    size: n * per * 4,
                },
            ],
            g,
        )?;
        start += n;
    }
    Ok(out)
}

/// The first `len` elements of the word buffer `words`, packed into a new buffer.
pub(crate) fn pack(
    device: &Device,
    dtype: DType,
    words: &Arc<GpuBuffer>,
    len: usize,
) -> Result<Arc<GpuBuffer>> {
    let ctx = device.context();
    let per = per_word(dtype) as u64;
    let total = packed_words(dtype, len) as u64;
    let out = Arc::new(ctx.alloc(total * 4)?);
    let pipeline = ctx.pipeline_entry(PACK_WGSL, "pack")?;
    let chunk = chunk_words(device, dtype);
    let mut start = 0u64;
    while start < total {
        let n = chunk.min(total - start);
        let elements = len as u64 - start * per;
        let g = grid(device, n)?;
        ctx.dispatch(
            &pipeline,
            &params(n, elements, dtype, g[0]),
            vec![
                Binding {
                    buffer: words.clone(),
                    offset: start * per * 4,
                    size: elements.min(n * per) * 4,
                },
                Binding {
                    buffer: out.clone(),
                    offset: start * 4,
                    size: n * 4,
                },
            ],
            g,
        )?;
        start += n;
    }
    Ok(out)
}

/// The host bytes of packed small integers (little-endian), as NumPy holds them.
pub(crate) fn decode_host(dtype: DType, bytes: &[u8]) -> crate::host::HostData {
    use crate::host::HostData;
    let pairs = || bytes.chunks_exact(2).map(|c| [c[0], c[1]]);
    match dtype {
        DType::I8 => HostData::I8(bytes.iter().map(|&b| b as i8).collect()),
        DType::U8 => HostData::U8(bytes.to_vec()),
        DType::I16 => HostData::I16(pairs().map(i16::from_le_bytes).collect()),
        DType::U16 => HostData::U16(pairs().map(u16::from_le_bytes).collect()),
        d => HostData::decode(d, bytes),
    }
}

/// Rows of consecutive elements a packed write covers: `rows` rows of `cols` elements, row
/// `r` starting at element `first + r * stride`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rows {
    pub first: usize,
    pub rows: usize,
    pub cols: usize,
    pub stride: usize,
}

impl Rows {
    /// The rows of a view whose last axis is contiguous and whose other axes step by one
    /// stride (after dropping axes of length 1): a C-contiguous view is one row. `None` for
    /// other views (reversed, strided rows of rows) and empty ones.
    pub(crate) fn of(layout: &Layout) -> Option<Rows> {
        let axes: Vec<(usize, isize)> = layout
            .shape
            .iter()
            .zip(&layout.strides)
            .filter(|&(&d, _)| d != 1)
            .map(|(&d, &s)| (d, s))
            .collect();
        if axes.iter().any(|&(d, _)| d == 0) {
            return None;
        }
        let first = layout.offset;
        match axes.as_slice() {
            [] => Some(Rows {
                first,
                rows: 1,
                cols: 1,
                stride: 1,
            }),
            [.., (cols, 1)] => {
                let lead = &axes[..axes.len() - 1];
                // The leading axes must collapse into one stride.
                let mut rows = 1usize;
                let mut stride = *cols as isize;
                if let Some(&(_, s)) = lead.last() {
                    stride = s;
                }
                for w in lead.windows(2) {
                    if w[0].1 != w[1].1 * w[1].0 as isize {
                        return None;
                    }
                }
                for &(d, _) in lead {
                    rows *= d;
                }
                if stride < *cols as isize {
                    return None;
                }
                Some(Rows {
                    first,
                    rows,
                    cols: *cols,
                    stride: stride as usize,
                })
            }
            _ => None,
        }
    }
}

/// What a packed write stores: one value everywhere, or the elements of packed rows.
pub(crate) enum RowSource<'a> {
    /// The element's bits (of a small integer), everywhere.
    Fill(u32),
    /// Packed words holding rows of the same shape (from `rows.first`, `rows.stride`).
    Packed {
        buffer: &'a Arc<GpuBuffer>,
        rows: Rows,
    },
}

/// Whole words each thread of `write_words` stores (strided by the thread count).
const WORDS_PER_THREAD: usize = 4;

/// Writes `source` into the rows `rows` of the packed buffer `dst` of `dtype`, word by word
/// (`shaders/pack_write.wgsl`): whole words by plain stores, each row's partial end words by
/// atomics on the covered elements only. False (nothing written) where a buffer exceeds one
/// binding or an offset a u32.
pub(crate) fn write_rows(
    device: &Device,
    dtype: DType,
    dst: &Arc<GpuBuffer>,
    rows: Rows,
    source: RowSource<'_>,
) -> Result<bool> {
    let ctx = device.context();
    let Some(bits) = packed_bits(dtype) else {
        return Ok(false);
    };
    let per = per_word(dtype);
    let max = ctx.max_binding_size();
    let end = rows.first + (rows.rows - 1) * rows.stride + rows.cols;
    if dst.size() > max || end > u32::MAX as usize {
        return Ok(false);
    }
    let mask = (1u64 << bits) as u32 - 1;
    let (src, fill, value, s0, s_stride) = match source {
        RowSource::Fill(v) => {
            let v = v & mask;
            let word = if bits == 8 {
                v * 0x0101_0101
            } else {
                v * 0x0001_0001
            };
            (Arc::new(ctx.alloc(16)?), 1u32, word, 0usize, 0usize)
        }
        RowSource::Packed { buffer, rows: s } => {
            let s_end = s.first + (s.rows - 1) * s.stride + s.cols;
            if buffer.size() > max || s_end > u32::MAX as usize || s.cols != rows.cols {
                return Ok(false);
            }
            (buffer.clone(), 0, 0, s.first, s.stride)
        }
    };
    let slots = rows.cols / per;
    let launch = |entry: &str, work: usize, per_thread: usize, dst_binding: u32| -> Result<()> {
        if work == 0 {
            return Ok(());
        }
        let threads = work.div_ceil(per_thread);
        let g = grid(device, threads as u64)?;
        let params: Vec<u8> = [
            threads as u32,
            rows.cols as u32,
            per.trailing_zeros(),
            bits,
            g[0],
            rows.first as u32,
            rows.stride as u32,
            s0 as u32,
            s_stride as u32,
            fill,
            value,
            slots.max(1) as u32,
            work as u32,
            0,
            0,
            0,
        ]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
        let pipeline = ctx.pipeline_with(PACK_WRITE_WGSL, entry, ShaderChecks::Trusted)?;
        ctx.dispatch_with(
            &pipeline,
            Some(&params),
            vec![(1, whole_binding(&src)), (dst_binding, whole_binding(dst))],
            g,
        )
    };
    let threads = rows
        .rows
        .checked_mul(slots)
        .filter(|&t| t <= u32::MAX as usize)
        .ok_or_else(|| Error::unsupported("a packed write of more than 2^32 words"))?;
    launch("write_words", threads, WORDS_PER_THREAD, 2)?;
    // Partial end words exist only where a row starts or ends inside a word.
    let aligned = rows.first.is_multiple_of(per)
        && rows.cols.is_multiple_of(per)
        && rows.stride.is_multiple_of(per);
    if !aligned {
        launch("write_edges", rows.rows * 2, 1, 3)?;
    }
    Ok(true)
}

fn whole_binding(buffer: &Arc<GpuBuffer>) -> Binding {
    Binding {
        buffer: buffer.clone(),
        offset: 0,
        size: buffer.size(),
    }
}
