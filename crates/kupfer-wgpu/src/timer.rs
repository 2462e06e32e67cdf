//! Timing like CUDA events: an [`Event`] marks a point in the command stream; the time between
//! two events comes from GPU timestamp queries where the adapter has them
//! (TIMESTAMP_QUERY_INSIDE_ENCODERS), and from the host clock after a synchronize otherwise.

use crate::batch::Command;
use crate::context::Context;
use kupfer_core::{Error, Result};

/// A point in a device's command stream.
#[derive(Debug)]
pub struct Event {
    ctx: Context,
    mark: Mark,
}

#[derive(Debug)]
enum Mark {
    Gpu(wgpu::QuerySet),
    #[cfg(not(target_arch = "wasm32"))]
    Wall(std::time::Instant),
}

impl Context {
    /// True when events are timed by the GPU itself: TIMESTAMP_QUERY is enough (without
    /// TIMESTAMP_QUERY_INSIDE_ENCODERS, as in WebGPU, an event is an empty compute pass that
    /// writes its timestamp at the pass's beginning).
    pub fn has_gpu_timestamps(&self) -> bool {
        self.inner
            .info
            .features
            .contains(wgpu::Features::TIMESTAMP_QUERY)
    }

    /// True when a timestamp can be written between any two commands of an encoder.
    pub(crate) fn has_encoder_timestamps(&self) -> bool {
        self.inner
            .info
            .features
            .contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS)
    }

    /// Records an event after all work recorded so far. Without GPU timestamps this
    /// synchronizes and reads the host clock.
    pub fn record_event(&self) -> Result<Event> {
        if self.has_gpu_timestamps() {
            let set = self
                .inner
                .device
                .create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("kupfer event"),
                    ty: wgpu::QueryType::Timestamp,
                    count: 1,
                });
            self.record_copy(Command::Timestamp { set: set.clone() });
            return Ok(Event {
                ctx: self.clone(),
                mark: Mark::Gpu(set),
            });
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            self.synchronize()?;
            Ok(Event {
                ctx: self.clone(),
                mark: Mark::Wall(std::time::Instant::now()),
            })
        }
        #[cfg(target_arch = "wasm32")]
        Err(Error::unsupported(
            "events without GPU timestamp queries in the browser",
        ))
    }
}

impl Event {
    /// Milliseconds from `self` to `end` (like `cupy.cuda.get_elapsed_time`).
    pub async fn elapsed_ms_async(&self, end: &Event) -> Result<f64> {
        match (&self.mark, &end.mark) {
            (Mark::Gpu(a), Mark::Gpu(b)) => {
                let ctx = &self.ctx;
                let resolve = ctx.inner.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("kupfer timestamps"),
                    size: 512,
                    usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                });
                let staging = ctx.inner.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("kupfer timestamps read-back"),
                    size: 512,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                ctx.record_copy(Command::Resolve {
                    set: a.clone(),
                    dst: resolve.clone(),
                    offset: 0,
                });
                ctx.record_copy(Command::Resolve {
                    set: b.clone(),
                    dst: resolve.clone(),
                    offset: 256,
                });
                ctx.record_copy(Command::Copy {
                    src: resolve,
                    src_offset: 0,
                    dst: staging.clone(),
                    dst_offset: 0,
                    size: 512,
                    _keep: Vec::new(),
                });
                ctx.flush()?;
                let bytes = ctx.map_and_read(&staging, 512, <[u8]>::to_vec).await?;
                let t0 = u64::from_le_bytes(bytes[0..8].try_into().expect("8 bytes"));
                let t1 = u64::from_le_bytes(bytes[256..264].try_into().expect("8 bytes"));
                let period = f64::from(ctx.inner.queue.get_timestamp_period());
                Ok(t1.wrapping_sub(t0) as i64 as f64 * period / 1e6)
            }
            #[cfg(not(target_arch = "wasm32"))]
            (Mark::Wall(a), Mark::Wall(b)) => Ok(b.duration_since(*a).as_secs_f64() * 1e3),
            #[allow(unreachable_patterns)]
            _ => Err(Error::invalid(
                "events of different kinds cannot be compared",
            )),
        }
    }

    /// Blocking form of [`elapsed_ms_async`](Self::elapsed_ms_async).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn elapsed_ms(&self, end: &Event) -> Result<f64> {
        pollster::block_on(self.elapsed_ms_async(end))
    }
}
