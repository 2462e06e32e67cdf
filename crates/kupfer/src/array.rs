//! [`Array`]: a cheap handle to a GPU n-d array, materialised (a pooled buffer + a layout) or
//! lazy (an elementwise expression that materialises as one kernel when needed).

use crate::device::Device;
use crate::fusion::{materialise, materialise_packed, Lazy, MAX_NODES};
use crate::host::{Element, HostArray, HostData};
use crate::packed::{self, PackedBuffer, Storage};
use crate::scalar::Scalar;
use kupfer_core::layout::{checked_size, size_of};
use kupfer_core::{DType, Error, Layout, Result};
use kupfer_wgpu::GpuBuffer;
use std::sync::{Arc, Mutex};

/// An n-dimensional array on a GPU, NumPy/CuPy style.
///
/// Cloning is cheap (an `Arc`); views (slices, transposes, reshapes of contiguous data,
/// broadcasts) share the buffer. Elementwise results are lazy until needed, so chains of
/// elementwise ops run as one fused kernel.
///
/// ```no_run
/// use kupfer as kp;
/// let x = kp::Array::from_slice(&[1.0f32, 2.0, 3.0], &[3])?;
/// let y = (&x * 2.0 + 1.0).to_vec::<f32>()?;
/// assert_eq!(y, vec![3.0, 5.0, 7.0]);
/// # Ok::<(), kp::Error>(())
/// ```
#[derive(Clone)]
pub struct Array {
    inner: Arc<Inner>,
}

struct Inner {
    device: Device,
    dtype: DType,
    shape: Vec<usize>,
    state: Mutex<State>,
}

#[derive(Clone)]
enum State {
    Data {
        storage: Arc<Storage>,
        layout: Layout,
    },
    Lazy(Lazy),
}

/// A weak reference to an [`Array`] (does not keep it alive).
#[derive(Clone)]
pub(crate) struct WeakArray(std::sync::Weak<Inner>);

impl WeakArray {
    /// The array, if it is still alive.
    pub(crate) fn upgrade(&self) -> Option<Array> {
        self.0.upgrade().map(|inner| Array { inner })
    }
}

impl std::fmt::Debug for Array {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Array(shape={:?}, dtype={}, {})",
            self.shape(),
            self.dtype(),
            if self.is_lazy() {
                "lazy"
            } else {
                "materialised"
            }
        )
    }
}

impl Array {
    pub(crate) fn from_buffer(
        device: Device,
        dtype: DType,
        buffer: Arc<GpuBuffer>,
        layout: Layout,
    ) -> Array {
        Array {
            inner: Arc::new(Inner {
                device,
                dtype,
                shape: layout.shape.clone(),
                state: Mutex::new(State::Data {
                    storage: Storage::words(buffer),
                    layout,
                }),
            }),
        }
    }

    /// A family's finished result, packed when it holds int8/uint8/int16/uint16 in a word
    /// buffer of its own (C-contiguous from element 0; one pack pass), so that it takes 1 or
    /// 2 bytes per element like every other small-integer array. Other results, and all
    /// under `KUPFER_PACK=convert`, are returned as they are. Call it once the family has
    /// queued its last write into the buffer, before anyone else sees the array.
    pub(crate) fn into_packed_result(self) -> Result<Array> {
        // One element takes one word either way (and a reduction's scalar keeps its own
        // buffer, which a read-back may map directly).
        if !packed::families() || !packed::packs(self.dtype()) || self.size() <= 1 {
            return Ok(self);
        }
        let (storage, layout) = self.storage_and_layout(false)?;
        if storage.packed_buffer().is_some() || !layout.is_c_contiguous() || layout.offset != 0 {
            return Ok(self);
        }
        let words = storage.read_words()?;
        let device = self.device().clone();
        let (dtype, len) = (self.dtype(), self.size());
        let buffer = packed::pack(&device, dtype, &words, len)?;
        Ok(Array::from_packed(device, dtype, buffer, len, layout))
    }

    /// An array over `storage` (shared with the arrays it is a view of).
    fn from_storage(device: Device, dtype: DType, storage: Arc<Storage>, layout: Layout) -> Array {
        Array {
            inner: Arc::new(Inner {
                device,
                dtype,
                shape: layout.shape.clone(),
                state: Mutex::new(State::Data { storage, layout }),
            }),
        }
    }

    /// An array over a packed buffer of `len` small integers.
    pub(crate) fn from_packed(
        device: Device,
        dtype: DType,
        buffer: Arc<GpuBuffer>,
        len: usize,
        layout: Layout,
    ) -> Array {
        let storage = Storage::packed(&device, dtype, buffer, len);
        Array::from_storage(device, dtype, storage, layout)
    }

    pub(crate) fn from_lazy(device: Device, shape: Vec<usize>, lazy: Lazy) -> Array {
        let a = Array {
            inner: Arc::new(Inner {
                device,
                dtype: lazy.dtype(),
                shape,
                state: Mutex::new(State::Lazy(lazy)),
            }),
        };
        // In-place writes (indexing/readers.rs) materialise lazy readers of their buffer first.
        crate::fusion::readers::register(&a);
        a
    }

    /// True when both handles are the same array (not merely equal values): what Python's
    /// `a is b` says of two names bound to one NumPy array.
    pub fn same_handle(&self, other: &Array) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Number of handles to this array.
    pub(crate) fn handle_count(&self) -> usize {
        Arc::strong_count(&self.inner)
    }

    /// A weak handle (the lazy-reader registry holds these).
    pub(crate) fn downgrade(&self) -> WeakArray {
        WeakArray(Arc::downgrade(&self.inner))
    }

    fn state(&self) -> State {
        self.inner
            .state
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Shape.
    pub fn shape(&self) -> &[usize] {
        &self.inner.shape
    }

    /// Number of axes.
    pub fn ndim(&self) -> usize {
        self.inner.shape.len()
    }

    /// Number of elements.
    pub fn size(&self) -> usize {
        size_of(&self.inner.shape)
    }

    /// Element type.
    pub fn dtype(&self) -> DType {
        self.inner.dtype
    }

    /// Bytes of the elements as NumPy counts them (`size * itemsize`).
    pub fn nbytes(&self) -> usize {
        self.size() * self.dtype().host_size()
    }

    /// Bytes of GPU memory that hold this array's elements: `ceil(size / 4) * 4` for a
    /// materialised int8/uint8 array of its own, `ceil(size / 2) * 4` for int16/uint16 (packed;
    /// `KUPFER_PACK=0` stores one word per element), `size * itemsize` otherwise (bool: 4 per
    /// element). Materialises a lazy array.
    pub fn device_nbytes(&self) -> Result<usize> {
        let (storage, _) = self.storage_and_layout(true)?;
        Ok(match storage.packed_buffer() {
            Some(_) => kupfer_core::packing::packed_words(self.dtype(), self.size()) * 4,
            None => self.size() * self.dtype().gpu_size(),
        })
    }

    /// The device holding this array.
    pub fn device(&self) -> &Device {
        &self.inner.device
    }

    /// True while this array is an unevaluated elementwise expression (or a matrix product
    /// not run yet).
    pub fn is_lazy(&self) -> bool {
        matches!(self.state(), State::Lazy(_))
    }

    /// Materialises a lazy array now (one fused kernel; int8/uint8/int16/uint16 results are
    /// then packed). Does not wait for the GPU.
    pub fn eval(&self) -> Result<&Array> {
        self.storage_and_layout(true)?;
        Ok(self)
    }

    /// The storage and layout, materialising first if lazy (a small-integer result packed
    /// when `pack`).
    fn storage_and_layout(&self, pack: bool) -> Result<(Arc<Storage>, Layout)> {
        let mut st = self.inner.state.lock().unwrap_or_else(|p| p.into_inner());
        match &*st {
            State::Data { storage, layout } => Ok((storage.clone(), layout.clone())),
            State::Lazy(lazy) => {
                let device = &self.inner.device;
                let len = self.size();
                let storage = if pack && packed::packs(self.dtype()) {
                    let (buffer, packed) = materialise_packed(device, lazy, &self.inner.shape)?;
                    let buffer = if packed {
                        buffer
                    } else {
                        packed::pack(device, self.dtype(), &buffer, len)?
                    };
                    Storage::packed(device, self.dtype(), buffer, len)
                } else {
                    Storage::words(materialise(device, lazy, &self.inner.shape)?)
                };
                let layout = Layout::contiguous(&self.inner.shape);
                *st = State::Data {
                    storage: storage.clone(),
                    layout: layout.clone(),
                };
                Ok((storage, layout))
            }
        }
    }

    /// The buffer (one word per small integer) and layout, materialising first if lazy.
    /// The caller may write into the buffer or make views of it: packed storage becomes
    /// word storage for good, for every view of it (`packed.rs`).
    pub(crate) fn buffer_and_layout(&self) -> Result<(Arc<GpuBuffer>, Layout)> {
        let (storage, layout) = self.storage_and_layout(false)?;
        let buffer = storage.make_words()?;
        Ok((buffer, layout))
    }

    /// The buffer (one word per small integer) and layout for a caller that only reads it
    /// (no writes into it, no views of it): a packed storage stays packed and the caller
    /// reads an unpacked copy of the words the view touches, whose layout (returned) may
    /// differ from this array's (`packed.rs`). A lazy reader may keep the copy: it holds the
    /// values from before any later write, as the lazy-reader rule asks.
    pub(crate) fn read_buffer_and_layout(&self) -> Result<(Arc<GpuBuffer>, Layout)> {
        if !packed::families() {
            return self.buffer_and_layout();
        }
        let (storage, layout) = self.storage_and_layout(true)?;
        storage.read_words_for(&layout)
    }

    /// [`Array::read_buffer_and_layout`] for a caller that indexes the buffer with this
    /// array's own layout: the whole buffer (an unpacked copy of all of packed storage).
    pub(crate) fn read_whole_buffer(&self) -> Result<Arc<GpuBuffer>> {
        if !packed::families() {
            return Ok(self.buffer_and_layout()?.0);
        }
        let (storage, _) = self.storage_and_layout(true)?;
        storage.read_words()
    }

    /// The packed buffer and layout of this array for an in-place write of packed words, or
    /// None where its storage is words (materialises a lazy array).
    pub(crate) fn packed_for_write(&self) -> Result<Option<(Arc<PackedBuffer>, Layout)>> {
        let (storage, layout) = self.storage_and_layout(true)?;
        Ok(storage.packed_for_write().map(|p| (p, layout)))
    }

    /// The buffer and layout an in-place write goes to: the packed words of packed storage
    /// (the writer updates each element with atomics on its word, `packed.rs`), else the word
    /// buffer (`buffer_and_layout`). See [`Array::is_packed_buffer`].
    pub(crate) fn write_buffer_and_layout(&self) -> Result<(Arc<GpuBuffer>, Layout)> {
        if let Some((p, layout)) = self.packed_for_write()? {
            return Ok((p.buffer().clone(), layout));
        }
        self.buffer_and_layout()
    }

    /// True when `buffer` holds this array's elements packed.
    pub(crate) fn is_packed_buffer(&self, buffer: &Arc<GpuBuffer>) -> Result<bool> {
        let (storage, _) = self.storage_and_layout(true)?;
        Ok(storage
            .packed_buffer()
            .is_some_and(|p| Arc::ptr_eq(p.buffer(), buffer)))
    }

    /// True when both arrays are views of one storage (materialises lazy arrays).
    pub(crate) fn shares_storage(&self, other: &Array) -> Result<bool> {
        let (a, _) = self.storage_and_layout(true)?;
        let (b, _) = other.storage_and_layout(true)?;
        Ok(Arc::ptr_eq(&a, &b))
    }

    /// This array as an expression operand (a leaf when materialised; a packed array is read
    /// through an unpacked copy, and stays packed).
    pub(crate) fn lazy(&self) -> Result<Lazy> {
        Ok(match self.state() {
            State::Data { storage, layout } => match storage.packed_buffer() {
                Some(p) if packed::native_loads() => Lazy::packed_leaf(p, layout),
                _ => Lazy::leaf(storage.read_words()?, layout, self.dtype()),
            },
            State::Lazy(l) => l,
        })
    }

    /// An expression operand that keeps the fused tree within the fusion bounds: a lazy
    /// array too big to grow further is materialised first.
    /// A lazy random draw is materialised first unless the expression has this array's shape
    /// (`shape`): its values follow the output index.
    pub(crate) fn operand_within(
        &self,
        budget_nodes: usize,
        budget_leaves: usize,
        shape: &[usize],
    ) -> Result<Lazy> {
        let l = self.lazy()?;
        if l.nodes > budget_nodes || l.leaves > budget_leaves || (l.random && self.shape() != shape)
        {
            self.eval()?;
            return self.lazy();
        }
        Ok(l)
    }

    /// Largest number of distinct input arrays one fused kernel may read on this device.
    pub(crate) fn max_leaves(device: &Device) -> usize {
        let limit = device.info().limits.max_storage_buffers_per_shader_stage as usize;
        limit.saturating_sub(1).clamp(1, 16)
    }

    pub(crate) fn max_nodes() -> usize {
        MAX_NODES
    }

    /// A C-contiguous materialised version (self if already contiguous).
    pub fn ascontiguousarray(&self) -> Result<Array> {
        let (_, layout) = self.storage_and_layout(true)?;
        if layout.is_c_contiguous() {
            return Ok(self.clone());
        }
        self.copy()
    }

    /// A new array with a copy of the data (`a.copy()`).
    pub fn copy(&self) -> Result<Array> {
        self.storage_and_layout(true)?;
        let copy = Array::from_lazy(self.device().clone(), self.shape().to_vec(), self.lazy()?);
        copy.eval()?;
        Ok(copy)
    }

    /// Uploads host elements with the given shape to the current device.
    pub fn from_slice<T: Element>(data: &[T], shape: &[usize]) -> Result<Array> {
        Self::from_slice_on(&Device::current()?, data, shape)
    }

    /// Uploads host elements with the given shape to `device`.
    pub fn from_slice_on<T: Element>(
        device: &Device,
        data: &[T],
        shape: &[usize],
    ) -> Result<Array> {
        if checked_size(shape, T::DTYPE.host_size())? != data.len() {
            return Err(Error::invalid(format!(
                "{} elements cannot have shape {shape:?}",
                data.len()
            )));
        }
        device.check(T::DTYPE)?;
        if packed::packs(T::DTYPE) {
            let buffer = device.context().upload(&T::host_bytes(data))?;
            return Ok(Array::from_packed(
                device.clone(),
                T::DTYPE,
                buffer,
                data.len(),
                Layout::contiguous(shape),
            ));
        }
        let buffer = device.context().upload(&T::gpu_bytes(data))?;
        Ok(Array::from_buffer(
            device.clone(),
            T::DTYPE,
            buffer,
            Layout::contiguous(shape),
        ))
    }

    /// Uploads a host array to the current device (`cp.asarray`).
    pub fn from_host(host: &HostArray) -> Result<Array> {
        Self::from_host_on(&Device::current()?, host)
    }

    /// Uploads a host array to `device`.
    pub fn from_host_on(device: &Device, host: &HostArray) -> Result<Array> {
        device.check(host.dtype())?;
        if checked_size(&host.shape, host.dtype().host_size())? != host.data.len() {
            return Err(Error::invalid(format!(
                "{} elements cannot have shape {:?}",
                host.data.len(),
                host.shape
            )));
        }
        if packed::packs(host.dtype()) {
            let buffer = device.context().upload(&host.data.host_bytes())?;
            return Ok(Array::from_packed(
                device.clone(),
                host.dtype(),
                buffer,
                host.data.len(),
                Layout::contiguous(&host.shape),
            ));
        }
        let buffer = device.context().upload(&host.data.gpu_bytes())?;
        Ok(Array::from_buffer(
            device.clone(),
            host.dtype(),
            buffer,
            Layout::contiguous(&host.shape),
        ))
    }

    /// The packed buffer and the element offset of a C-contiguous packed array (copied into
    /// one first if needed), or None where small integers are stored as words.
    pub(crate) fn packed_contiguous(&self) -> Result<Option<(Arc<GpuBuffer>, usize)>> {
        if !packed::packs(self.dtype()) {
            return Ok(None);
        }
        let (storage, layout) = self.storage_and_layout(true)?;
        if layout.is_c_contiguous()
            && let Some(p) = storage.packed_buffer()
        {
            return Ok(Some((p.buffer().clone(), layout.offset)));
        }
        let copy = self.copy()?;
        let (storage, layout) = copy.storage_and_layout(true)?;
        Ok(storage
            .packed_buffer()
            .map(|p| (p.buffer().clone(), layout.offset)))
    }

    /// Reads the NumPy bytes of a packed array in C order and decodes them with `f`, or
    /// None where small integers are stored as words.
    async fn read_packed_async<R>(&self, f: impl FnOnce(&[u8]) -> R) -> Result<Option<R>> {
        let Some((buffer, offset)) = self.packed_contiguous()? else {
            return Ok(None);
        };
        let isz = self.dtype().host_size() as u64;
        let device = self.device();
        let values = device
            .context()
            .read_with_async(&buffer, offset as u64 * isz, self.size() as u64 * isz, f)
            .await?;
        device.checks.report_async(device.context()).await?;
        Ok(Some(values))
    }

    /// Reads the elements back in C order and decodes them straight from the mapped
    /// read-back memory with `f` (one host copy), after all prior work. A read-back is a
    /// sync: the device's deferred checks (`checks.rs`) are reported here.
    async fn read_contiguous_async<R>(&self, f: impl FnOnce(&[u8]) -> R) -> Result<R> {
        let a = self.ascontiguousarray()?;
        let (buffer, layout) = a.read_buffer_and_layout()?;
        let isz = self.dtype().gpu_size() as u64;
        let offset = layout.offset as u64 * isz;
        let size = self.size() as u64 * isz;
        let device = self.device();
        let values = device
            .context()
            .read_with_async(&buffer, offset, size, f)
            .await?;
        device.checks.report_async(device.context()).await?;
        Ok(values)
    }

    /// Copies the array to the host (`cp.asnumpy`), async (the browser's only form).
    pub async fn to_host_async(&self) -> Result<HostArray> {
        let dtype = self.dtype();
        let data = match self
            .read_packed_async(|b| packed::decode_host(dtype, b))
            .await?
        {
            Some(data) => data,
            None => {
                self.read_contiguous_async(|b| HostData::decode(dtype, b))
                    .await?
            }
        };
        Ok(HostArray {
            shape: self.shape().to_vec(),
            data,
        })
    }

    /// Copies the array to the host (`cp.asnumpy`).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn to_host(&self) -> Result<HostArray> {
        pollster::block_on(self.to_host_async())
    }

    /// The elements in C order as `Vec<T>`; `T` must match the dtype.
    pub async fn to_vec_async<T: Element>(&self) -> Result<Vec<T>> {
        if T::DTYPE != self.dtype() {
            return Err(Error::invalid(format!(
                "to_vec::<{}>() on a {} array; convert with astype first",
                T::DTYPE,
                self.dtype()
            )));
        }
        if let Some(values) = self.read_packed_async(T::decode_host).await? {
            return Ok(values);
        }
        if self.size() * self.dtype().gpu_size() < 8 << 20 {
            // Decoded in pieces as they arrive (the GPU copies the rest meanwhile); larger
            // reads are decoded whole, by several threads.
            let a = self.ascontiguousarray()?;
            let (buffer, layout) = a.read_buffer_and_layout()?;
            let isz = self.dtype().gpu_size() as u64;
            let device = self.device();
            let mut out = Vec::with_capacity(self.size());
            device
                .context()
                .read_pieces_async(
                    &buffer,
                    layout.offset as u64 * isz,
                    self.size() as u64 * isz,
                    |bytes| T::decode_onto(bytes, &mut out),
                )
                .await?;
            device.checks.report_async(device.context()).await?;
            return Ok(out);
        }
        self.read_contiguous_async(T::decode).await
    }

    /// The elements in C order as `Vec<T>`; `T` must match the dtype.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        pollster::block_on(self.to_vec_async())
    }

    /// The single element of a size-1 array as a Python-style scalar (`a.item()`).
    pub async fn item_async(&self) -> Result<Scalar> {
        if self.size() != 1 {
            return Err(Error::invalid(format!(
                "can only convert an array of size 1 to a scalar (size is {})",
                self.size()
            )));
        }
        let host = self.to_host_async().await?;
        Ok(match host.data {
            HostData::Bool(v) => Scalar::Bool(v[0]),
            HostData::I8(v) => Scalar::Int(v[0].into()),
            HostData::U8(v) => Scalar::Int(v[0].into()),
            HostData::I16(v) => Scalar::Int(v[0].into()),
            HostData::U16(v) => Scalar::Int(v[0].into()),
            HostData::I32(v) => Scalar::Int(v[0].into()),
            HostData::U32(v) => Scalar::Int(v[0].into()),
            HostData::I64(v) => Scalar::Int(v[0]),
            // From 2^63 up a uint64 is a Scalar::BigInt.
            HostData::U64(v) => Scalar::int(v[0].into()),
            HostData::F16(v) => Scalar::Float(v[0].into()),
            HostData::F32(v) => Scalar::Float(v[0].into()),
            HostData::F64(v) => Scalar::Float(v[0]),
            HostData::Complex64(v) => Scalar::Complex {
                re: v[0].re.into(),
                im: v[0].im.into(),
            },
            HostData::Complex128(v) => Scalar::Complex {
                re: v[0].re,
                im: v[0].im,
            },
        })
    }

    /// The single element of a size-1 array as a Python-style scalar (`a.item()`).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn item(&self) -> Result<Scalar> {
        pollster::block_on(self.item_async())
    }

    /// Converts to `dtype` (NumPy `astype`: floats to ints truncate, NaN to bool is true).
    pub fn astype(&self, dtype: DType) -> Result<Array> {
        self.device().check(dtype)?;
        if dtype == self.dtype() {
            return Ok(self.clone());
        }
        let l = self.operand_within(Self::max_nodes() - 1, usize::MAX, self.shape())?;
        Ok(Array::from_lazy(
            self.device().clone(),
            self.shape().to_vec(),
            l.cast(dtype),
        ))
    }

    /// Copies this array to another device.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn to_device(&self, device: &Device) -> Result<Array> {
        if device == self.device() {
            return Ok(self.clone());
        }
        Array::from_host_on(device, &self.to_host()?)
    }

    /// A view with a new layout over the same buffer.
    pub(crate) fn view(&self, f: impl FnOnce(&Layout) -> Result<Layout>) -> Result<Array> {
        let (storage, layout) = self.storage_and_layout(true)?;
        let new = f(&layout)?;
        checked_size(&new.shape, 1)?;
        Ok(Array::from_storage(
            self.device().clone(),
            self.dtype(),
            storage,
            new,
        ))
    }

    /// The storage and layout of a materialised array (`None` while lazy: an expression not
    /// run yet owns no memory), for memory-overlap questions.
    pub(crate) fn memory(&self) -> Option<(Arc<Storage>, Layout)> {
        match &*self.inner.state.lock().unwrap_or_else(|p| p.into_inner()) {
            State::Data { storage, layout } => Some((storage.clone(), layout.clone())),
            State::Lazy(_) => None,
        }
    }

    /// A view of this array's storage as `dtype` with `layout` (the caller checks that the
    /// dtype's storage encoding and the layout fit the bytes).
    pub(crate) fn reinterpret(&self, dtype: DType, layout: Layout) -> Result<Array> {
        let (storage, _) = self.storage_and_layout(true)?;
        checked_size(&layout.shape, 1)?;
        Ok(Array::from_storage(
            self.device().clone(),
            dtype,
            storage,
            layout,
        ))
    }

    /// The layout (materialising first if lazy).
    pub fn layout(&self) -> Result<Layout> {
        Ok(self.storage_and_layout(true)?.1)
    }
}
