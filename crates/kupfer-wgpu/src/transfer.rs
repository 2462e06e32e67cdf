//! Host↔device transfers.
//!
//! Host→device: the bytes are written once into the queue's mapped staging memory
//! (`Queue::write_buffer`) and copied on the GPU, in queue order. A pooled buffer is only ever
//! free once every command that used it was submitted, so the write cannot overtake a reader.
//! Device→host: a GPU copy into a MAP_READ buffer, map, one host copy out.

use crate::batch::Command;
use crate::context::Context;
use crate::pool::size_class;
use crate::pool::GpuBuffer;
use crate::wait::Stage;
use kupfer_core::{Error, Result};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Largest result [`Context::alloc_for_host`] places in host-mappable memory.
pub const DIRECT_READ_BYTES: u64 = 256;

/// Cached staging buffers, so that repeated transfers skip the driver's allocation and
/// pinning of host-visible memory (which costs more than the copy itself for large arrays).
#[derive(Default)]
pub(crate) struct Staging {
    /// MAP_WRITE buffers, mapped and ready to fill, by size class.
    upload: Arc<Mutex<HashMap<u64, Vec<wgpu::Buffer>>>>,
    /// MAP_READ buffers, unmapped and idle, by size class.
    download: Mutex<HashMap<u64, Vec<wgpu::Buffer>>>,
}

impl Context {
    /// Allocates a pooled buffer holding `bytes` (zero-padded to a multiple of 4), written
    /// once into cached mapped staging memory and copied on the GPU in queue order.
    pub fn upload(&self, bytes: &[u8]) -> Result<Arc<GpuBuffer>> {
        let dst = Arc::new(self.alloc(bytes.len() as u64)?);
        if bytes.is_empty() {
            return Ok(dst);
        }
        let padded = (bytes.len() as u64).div_ceil(4) * 4;
        let (staging, class) = self.staged(bytes)?;
        self.record_copy(Command::Copy {
            src: staging.clone(),
            src_offset: 0,
            dst: dst.raw().clone(),
            dst_offset: 0,
            size: padded,
            _keep: vec![dst.clone()],
        });
        self.after_submit(staging, class);
        Ok(dst)
    }

    /// `bytes` (zero-padded to a multiple of 4) in a cached, mapped upload staging buffer,
    /// unmapped and ready to be copied from; returns it with its size class, to hand back
    /// through [`after_submit`](Self::after_submit) once a copy from it is recorded.
    pub(crate) fn staged(&self, bytes: &[u8]) -> Result<(wgpu::Buffer, u64)> {
        let padded = (bytes.len() as u64).div_ceil(4) * 4;
        let class = size_class(padded);
        let cached = lock(&self.inner.staging.upload)
            .get_mut(&class)
            .and_then(Vec::pop);
        let staging = match cached {
            Some(b) => b,
            None => self.inner.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("kupfer upload staging"),
                size: class,
                usage: wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: true,
            }),
        };
        {
            let mut view = staging
                .slice(..padded)
                .get_mapped_range_mut()
                .map_err(|e| {
                    Error::Device(format!("mapping upload staging memory failed: {e:?}"))
                })?;
            let aligned = bytes.len() / 4 * 4;
            view.slice(..aligned).copy_from_slice(&bytes[..aligned]);
            if aligned < bytes.len() {
                let mut tail = [0u8; 4];
                tail[..bytes.len() - aligned].copy_from_slice(&bytes[aligned..]);
                view.slice(aligned..aligned + 4).copy_from_slice(&tail);
            }
        }
        staging.unmap();
        Ok((staging, class))
    }

    /// Re-maps an upload staging buffer once the GPU is done with it and returns it to the
    /// cache (the mapping completes at a later poll).
    pub(crate) fn remap_upload(&self, staging: wgpu::Buffer, class: u64) {
        let free = self.inner.staging.upload.clone();
        let b = staging.clone();
        staging.map_async(wgpu::MapMode::Write, .., move |r| {
            if r.is_ok() {
                lock(&free).entry(class).or_default().push(b);
            }
        });
    }

    /// A pooled buffer of at least `bytes` bytes (contents undefined).
    pub fn alloc(&self, bytes: u64) -> Result<GpuBuffer> {
        self.inner.pool.alloc(&self.inner.device, bytes.max(4))
    }

    /// A pooled buffer for a small result the host will likely read back (a reduction to
    /// one value): where [`direct_reads`](Self::direct_reads) holds and `bytes` is at most
    /// [`DIRECT_READ_BYTES`], the buffer is host-mappable and a read-back of it maps it
    /// directly, with no copy command; otherwise an ordinary pooled buffer.
    pub fn alloc_for_host(&self, bytes: u64) -> Result<GpuBuffer> {
        if self.inner.direct_reads && bytes <= DIRECT_READ_BYTES {
            self.inner
                .pool
                .alloc_mappable(&self.inner.device, bytes.max(4))
        } else {
            self.alloc(bytes)
        }
    }

    /// Reads `size` bytes at `offset` of `buf` (multiples of 4) after all work recorded so far,
    /// and hands the mapped bytes to `f` (one host copy: `f` decodes straight from the mapping).
    pub async fn read_with_async<R>(
        &self,
        buf: &Arc<GpuBuffer>,
        offset: u64,
        size: u64,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<R> {
        if size == 0 {
            return Ok(f(&[]));
        }
        #[cfg(not(target_arch = "wasm32"))]
        if buf.is_mappable() {
            return self.read_mapped(buf, offset, size, f);
        }
        // Copies start and end on 4-byte boundaries: a float16 view may start mid-word.
        let lead = offset % 4;
        let padded = (size + lead).div_ceil(4) * 4;
        let class = size_class(padded);
        let staging = self.download_staging(class);
        self.record_copy(Command::Copy {
            src: buf.raw().clone(),
            src_offset: offset - lead,
            dst: staging.clone(),
            dst_offset: 0,
            size: padded,
            _keep: vec![buf.clone()],
        });
        let submission = self.flush_numbered()?;
        let out = self
            .map_and_read(&staging, padded, |b| {
                f(&b[lead as usize..(lead + size) as usize])
            })
            .await?;
        self.retire_through(submission);
        lock(&self.inner.staging.download)
            .entry(class)
            .or_default()
            .push(staging);
        Ok(out)
    }

    /// Reads like [`read_with_async`](Self::read_with_async), handing the bytes to `sink` in
    /// order, in one or two pieces. Natively, reads of 1 MiB and more (at a 16-byte aligned
    /// offset) are split over two submissions: the host copies the first eighth out while
    /// the GPU still copies the rest, so the GPU copy and the host copy overlap (a pageable
    /// read-back is otherwise the sum of the two).
    pub async fn read_pieces_async(
        &self,
        buf: &Arc<GpuBuffer>,
        offset: u64,
        size: u64,
        mut sink: impl FnMut(&[u8]),
    ) -> Result<()> {
        const SPLIT_FROM: u64 = 1 << 20;
        if cfg!(target_arch = "wasm32") || size < SPLIT_FROM || !offset.is_multiple_of(16) {
            return self.read_with_async(buf, offset, size, sink).await;
        }
        let first = (size / 8).max(64 << 10) / 16 * 16;
        let pieces = [(offset, first), (offset + first, size - first)];
        let mut staged = Vec::with_capacity(2);
        for (at, len) in pieces {
            let padded = len.div_ceil(4) * 4;
            let class = size_class(padded);
            let staging = self.download_staging(class);
            self.record_copy(Command::Copy {
                src: buf.raw().clone(),
                src_offset: at,
                dst: staging.clone(),
                dst_offset: 0,
                size: padded,
                _keep: vec![buf.clone()],
            });
            let submission = self.flush_numbered()?;
            staged.push((staging, class, len, padded, submission));
        }
        for (staging, class, len, padded, submission) in staged {
            self.map_and_read(&staging, padded, |b| sink(&b[..len as usize]))
                .await?;
            self.retire_through(submission);
            lock(&self.inner.staging.download)
                .entry(class)
                .or_default()
                .push(staging);
        }
        Ok(())
    }

    /// Reads a host-mappable buffer by mapping it (no copy command, no staging buffer):
    /// submits pending work and, holding the batch so that nothing is submitted while the
    /// buffer is mapped, waits for the mapping, hands the bytes to `f` and unmaps.
    #[cfg(not(target_arch = "wasm32"))]
    fn read_mapped<R>(
        &self,
        buf: &GpuBuffer,
        offset: u64,
        size: u64,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<R> {
        let start = offset / wgpu::MAP_ALIGNMENT * wgpu::MAP_ALIGNMENT;
        let end = (offset + size).div_ceil(4) * 4;
        let raw = buf.raw();
        self.inner
            .spans
            .mapped_reads
            .fetch_add(1, Ordering::Relaxed);
        self.flush_holding(raw, || {
            let outcome = Arc::new(Mutex::new(None));
            let sender = outcome.clone();
            raw.map_async(wgpu::MapMode::Read, start..end, move |r| {
                *lock(&sender) = Some(r);
            });
            self.wait_until(Some(&|| lock(&outcome).is_some()))?;
            let _span = self.inner.spans.start(Stage::Read);
            map_outcome(lock(&outcome).take())?;
            let out = {
                let view = raw.get_mapped_range(start..end).map_err(|e| {
                    Error::Device(format!("mapping a read-back buffer failed: {e:?}"))
                });
                view.map(|view| {
                    let lead = (offset - start) as usize;
                    f(&view[lead..lead + size as usize])
                })
            };
            raw.unmap();
            out
        })
    }

    /// An idle MAP_READ staging buffer of size class `class` (cached or new).
    fn download_staging(&self, class: u64) -> wgpu::Buffer {
        let cached = lock(&self.inner.staging.download)
            .get_mut(&class)
            .and_then(Vec::pop);
        cached.unwrap_or_else(|| {
            self.inner.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("kupfer read-back"),
                size: class,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        })
    }

    /// Reads bytes back to the host (see [`read_with_async`](Self::read_with_async)).
    pub async fn read_async(
        &self,
        buf: &Arc<GpuBuffer>,
        offset: u64,
        size: u64,
    ) -> Result<Vec<u8>> {
        self.read_with_async(buf, offset, size, <[u8]>::to_vec)
            .await
    }

    pub(crate) async fn map_and_read<R>(
        &self,
        staging: &wgpu::Buffer,
        size: u64,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<R> {
        #[cfg(target_arch = "wasm32")]
        self.check_compiles().await?;
        let (tx, rx) = futures_intrusive::channel::shared::oneshot_channel();
        let mapped = Arc::new(AtomicBool::new(false));
        let signal = mapped.clone();
        staging.map_async(wgpu::MapMode::Read, ..size, move |r| {
            signal.store(true, Ordering::Release);
            let _ = tx.send(r);
        });
        #[cfg(not(target_arch = "wasm32"))]
        self.wait_until(Some(&|| mapped.load(Ordering::Acquire)))?;
        #[cfg(target_arch = "wasm32")]
        drop(mapped);
        let result = rx.receive().await;
        let _span = self.inner.spans.start(Stage::Read);
        map_outcome(result)?;
        let out = {
            let view = staging
                .get_mapped_range(..size)
                .map_err(|e| Error::Device(format!("mapping a read-back buffer failed: {e:?}")))?;
            f(&view)
        };
        staging.unmap();
        Ok(out)
    }

    /// Blocking form of [`read_async`](Self::read_async).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn read(&self, buf: &Arc<GpuBuffer>, offset: u64, size: u64) -> Result<Vec<u8>> {
        pollster::block_on(self.read_async(buf, offset, size))
    }
}

/// The outcome of mapping a read-back buffer as kupfer's result: `None` when the callback
/// never ran (the device was lost).
fn map_outcome(outcome: Option<std::result::Result<(), wgpu::BufferAsyncError>>) -> Result<()> {
    match outcome {
        Some(Ok(())) => Ok(()),
        Some(Err(e)) => Err(Error::Device(format!(
            "mapping a read-back buffer failed: {e}"
        ))),
        None => Err(Error::Device(
            "the device was lost during a read-back".into(),
        )),
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
