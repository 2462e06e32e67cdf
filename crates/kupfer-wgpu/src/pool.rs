//! The device memory pool: freed buffers are kept in size-class bins and reused, as CuPy's
//! `MemoryPool`. Reuse is safe without fences because every use of a buffer is ordered on the
//! one queue: a buffer returns to its bin only after the commands that used it were submitted.

use kupfer_core::{Error, Result};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

const SMALL_LIMIT: u64 = 1 << 20;
const LARGE_GRANULE: u64 = 2 << 20;

/// Rounds a request up to its bin: powers of two up to 1 MiB (at least 256 bytes), then
/// multiples of 2 MiB.
pub fn size_class(bytes: u64) -> u64 {
    let b = bytes.max(256);
    if b <= SMALL_LIMIT {
        b.next_power_of_two()
    } else {
        // Saturates for sizes no adapter has (the caller then refuses them as too large).
        b.div_ceil(LARGE_GRANULE).saturating_mul(LARGE_GRANULE)
    }
}

#[derive(Default)]
struct State {
    /// Cached free blocks by (size class, host-mappable).
    free: HashMap<(u64, bool), Vec<wgpu::Buffer>>,
    used: u64,
    cached: u64,
    limit: Option<u64>,
}

/// Size-class pool of storage buffers for one device.
pub struct MemoryPool {
    state: Arc<Mutex<State>>,
    max_buffer_size: u64,
    /// Incremented whenever buffers are destroyed (anything caching their handles, such as
    /// the batch's bind groups, drops what it holds when this changes).
    generation: std::sync::atomic::AtomicU64,
}

/// A pooled storage buffer; returns to its pool's bin when the last handle drops.
pub struct GpuBuffer {
    buffer: Option<wgpu::Buffer>,
    size: u64,
    /// Made with MAP_READ too (see [`MemoryPool::alloc_mappable`]).
    mappable: bool,
    pool: Arc<Mutex<State>>,
}

impl std::fmt::Debug for GpuBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GpuBuffer({} bytes)", self.size)
    }
}

impl GpuBuffer {
    /// The wgpu buffer.
    pub fn raw(&self) -> &wgpu::Buffer {
        self.buffer.as_ref().expect("present until drop")
    }

    /// Size of the bin (≥ the requested size).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// True when the host can map this buffer itself (a read-back then needs no copy).
    pub fn is_mappable(&self) -> bool {
        self.mappable
    }
}

impl Drop for GpuBuffer {
    fn drop(&mut self) {
        if let Some(buf) = self.buffer.take() {
            let mut st = self.pool.lock().unwrap_or_else(|p| p.into_inner());
            st.used -= self.size;
            st.cached += self.size;
            st.free
                .entry((self.size, self.mappable))
                .or_default()
                .push(buf);
        }
    }
}

/// Buffer usages of pooled buffers.
pub const POOL_USAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_SRC)
    .union(wgpu::BufferUsages::COPY_DST);

/// Buffer usages of host-mappable pooled buffers (devices with MAPPABLE_PRIMARY_BUFFERS).
pub const MAPPABLE_USAGE: wgpu::BufferUsages = POOL_USAGE.union(wgpu::BufferUsages::MAP_READ);

impl MemoryPool {
    pub(crate) fn new(max_buffer_size: u64) -> Self {
        MemoryPool {
            state: Arc::new(Mutex::new(State::default())),
            max_buffer_size,
            generation: std::sync::atomic::AtomicU64::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Bytes held by live arrays.
    pub fn used_bytes(&self) -> u64 {
        self.lock().used
    }

    /// Bytes held by the pool: live plus cached free blocks.
    pub fn total_bytes(&self) -> u64 {
        let st = self.lock();
        st.used + st.cached
    }

    /// Bytes in cached free blocks.
    pub fn free_bytes(&self) -> u64 {
        self.lock().cached
    }

    /// Releases every cached free block to the driver.
    pub fn free_all_blocks(&self) {
        let mut st = self.lock();
        self.generation
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        for (_, bufs) in st.free.drain() {
            for b in bufs {
                b.destroy();
            }
        }
        st.cached = 0;
    }

    /// How many times buffers were destroyed (see `free_all_blocks`): a handle cached under
    /// an older generation may name a destroyed buffer.
    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Caps [`total_bytes`](Self::total_bytes); `None` removes the cap.
    pub fn set_limit(&self, limit: Option<u64>) {
        self.lock().limit = limit;
    }

    /// The cap, if any.
    pub fn limit(&self) -> Option<u64> {
        self.lock().limit
    }

    /// A buffer of at least `bytes` bytes: a cached block of the same bin, or a new one.
    /// When the limit or the device refuses, cached blocks are freed and the request retried
    /// once; then [`Error::OutOfMemory`].
    pub fn alloc(&self, device: &wgpu::Device, bytes: u64) -> Result<GpuBuffer> {
        self.alloc_as(device, bytes, false)
    }

    /// Like [`alloc`](Self::alloc), a buffer the host can also map (MAP_READ; an error
    /// unless the device was opened with MAPPABLE_PRIMARY_BUFFERS). Drivers place such
    /// buffers in host-visible memory: for small results the host reads back, not for bulk
    /// data.
    pub fn alloc_mappable(&self, device: &wgpu::Device, bytes: u64) -> Result<GpuBuffer> {
        self.alloc_as(device, bytes, true)
    }

    fn alloc_as(&self, device: &wgpu::Device, bytes: u64, mappable: bool) -> Result<GpuBuffer> {
        if mappable
            && !device
                .features()
                .contains(wgpu::Features::MAPPABLE_PRIMARY_BUFFERS)
        {
            return Err(Error::unsupported(
                "host-mappable storage buffers on a device without MAPPABLE_PRIMARY_BUFFERS",
            ));
        }
        let class = size_class(bytes);
        if class > self.max_buffer_size {
            return Err(Error::OutOfMemory(format!(
                "{bytes} bytes exceed this adapter's largest buffer ({} bytes)",
                self.max_buffer_size
            )));
        }
        {
            let mut st = self.lock();
            if let Some(buf) = st.free.get_mut(&(class, mappable)).and_then(Vec::pop) {
                st.cached -= class;
                st.used += class;
                return Ok(self.wrap(buf, class, mappable));
            }
        }
        for attempt in 0..2 {
            let over_limit = {
                let st = self.lock();
                st.limit.is_some_and(|l| st.used + st.cached + class > l)
            };
            if over_limit {
                if attempt == 0 {
                    self.free_all_blocks();
                    continue;
                }
                let st = self.lock();
                return Err(Error::OutOfMemory(format!(
                    "allocating {class} bytes would exceed the pool limit of {} bytes ({} in use)",
                    st.limit.unwrap_or(0),
                    st.used
                )));
            }
            let usage = if mappable { MAPPABLE_USAGE } else { POOL_USAGE };
            match create_checked(device, class, usage) {
                Ok(buf) => {
                    self.lock().used += class;
                    return Ok(self.wrap(buf, class, mappable));
                }
                Err(e) if attempt == 0 => {
                    let _ = e;
                    self.free_all_blocks();
                }
                Err(e) => return Err(e),
            }
        }
        unreachable!("the loop returns on its second attempt")
    }

    fn wrap(&self, buf: wgpu::Buffer, size: u64, mappable: bool) -> GpuBuffer {
        GpuBuffer {
            buffer: Some(buf),
            size,
            mappable,
            pool: self.state.clone(),
        }
    }
}

/// Creates a buffer and reports the device's out-of-memory error instead of losing it.
fn create_checked(
    device: &wgpu::Device,
    size: u64,
    usage: wgpu::BufferUsages,
) -> Result<wgpu::Buffer> {
    let scope = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let buf = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("kupfer pool"),
        size,
        usage,
        mapped_at_creation: false,
    });
    let err = scope.pop();
    #[cfg(not(target_arch = "wasm32"))]
    if let Some(e) = pollster::block_on(err) {
        return Err(Error::OutOfMemory(format!(
            "the device could not allocate {size} bytes: {e}"
        )));
    }
    #[cfg(target_arch = "wasm32")]
    drop(err);
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::size_class;

    #[test]
    fn bins() {
        assert_eq!(size_class(1), 256);
        assert_eq!(size_class(300), 512);
        assert_eq!(size_class(1 << 20), 1 << 20);
        assert_eq!(size_class((1 << 20) + 1), 2 << 20);
        // Above 1 MiB: the next multiple of 2 MiB (77 * 2 MiB for 160 MB).
        assert_eq!(size_class(160_000_000), 77 * (2 << 20));
        assert_eq!(size_class(4 << 20), 4 << 20);
    }
}
