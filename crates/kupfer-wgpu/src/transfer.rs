//! Host↔device transfers.
//!
//! Host→device: the bytes are written once into the queue's mapped staging memory
//! (`Queue::write_buffer`) and copied on the GPU, in queue order. A pooled buffer is only ever
//! free once every command that used it was submitted, so the write cannot overtake a reader.
//! Device→host: a GPU copy into a MAP_READ buffer, map, one host copy out.

use crate::batch::Command;
use crate::context::Context;
use crate::pool::GpuBuffer;
use kupfer_core::{Error, Result};
use std::sync::Arc;

impl Context {
    /// Allocates a pooled buffer holding `bytes` (zero-padded to a multiple of 4).
    pub fn upload(&self, bytes: &[u8]) -> Result<Arc<GpuBuffer>> {
        let buf = self.alloc(bytes.len() as u64)?;
        let aligned = bytes.len() / 4 * 4;
        if aligned > 0 {
            self.inner.queue.write_buffer(buf.raw(), 0, &bytes[..aligned]);
        }
        if aligned < bytes.len() {
            let mut tail = [0u8; 4];
            tail[..bytes.len() - aligned].copy_from_slice(&bytes[aligned..]);
            self.inner.queue.write_buffer(buf.raw(), aligned as u64, &tail);
        }
        Ok(Arc::new(buf))
    }

    /// A pooled buffer of at least `bytes` bytes (contents undefined).
    pub fn alloc(&self, bytes: u64) -> Result<GpuBuffer> {
        self.inner.pool.alloc(&self.inner.device, bytes.max(4))
    }

    /// Reads `size` bytes at `offset` of `buf` back to the host (both multiples of 4),
    /// after all work recorded so far.
    pub async fn read_async(&self, buf: &Arc<GpuBuffer>, offset: u64, size: u64) -> Result<Vec<u8>> {
        if size == 0 {
            return Ok(Vec::new());
        }
        let padded = size.div_ceil(4) * 4;
        let staging = self.inner.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("kupfer read-back"),
            size: padded,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.record_copy(Command::Copy {
            src: buf.raw().clone(),
            src_offset: offset,
            dst: staging.clone(),
            dst_offset: 0,
            size: padded,
            _keep: vec![buf.clone()],
        });
        self.flush()?;
        self.map_and_copy(&staging, size).await
    }

    pub(crate) async fn map_and_copy(&self, staging: &wgpu::Buffer, size: u64) -> Result<Vec<u8>> {
        let (tx, rx) = futures_intrusive::channel::shared::oneshot_channel();
        staging.map_async(wgpu::MapMode::Read, .., move |r| {
            let _ = tx.send(r);
        });
        #[cfg(not(target_arch = "wasm32"))]
        self.inner
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| Error::Device(format!("waiting for the GPU failed: {e}")))?;
        match rx.receive().await {
            Some(Ok(())) => {}
            Some(Err(e)) => return Err(Error::Device(format!("mapping a read-back buffer failed: {e}"))),
            None => return Err(Error::Device("the device was lost during a read-back".into())),
        }
        let out = {
            let view = staging
                .get_mapped_range(..)
                .map_err(|e| Error::Device(format!("mapping a read-back buffer failed: {e:?}")))?;
            view[..size as usize].to_vec()
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
