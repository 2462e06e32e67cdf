//! Waiting for the GPU, and where a round trip's time goes.
//!
//! A blocking `poll` sleeps in the driver until the submission's fence signals; on NVIDIA's
//! Vulkan driver the wake-up alone costs tens of microseconds, more than a small kernel runs. A
//! loop of non-blocking polls sees the completion within a few microseconds, so kupfer spins
//! on non-blocking polls for up to [`SPIN`] before it blocks, as CUDA's default
//! synchronisation does. On a CPU adapter (lavapipe, llvmpipe) the "GPU" is threads on the
//! same cores: a spinning thread would slow the work it waits for, so there it blocks at once.
//! The browser never waits: its read-backs are futures resolved by the page's event loop.
//!
//! [`Spans`] accumulate the host time of each stage of a round trip (encoding the batch,
//! `queue.submit`, waiting, mapping and copying a read-back) so that a benchmark can say where
//! the microseconds go.

use crate::context::Context;
#[cfg(not(target_arch = "wasm32"))]
use kupfer_core::{Error, Result};
use std::sync::atomic::{AtomicU64, Ordering};

/// How long a wait spins on non-blocking polls before it blocks in the driver, by default
/// (per device: [`Context::set_wait_spin`]).
pub const SPIN: std::time::Duration = std::time::Duration::from_millis(2);

/// How long a wait whose GPU work has finished waits for its map callback to run on another
/// thread's poll before it reports the device as lost.
#[cfg(not(target_arch = "wasm32"))]
const CALLBACK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(10);

/// Host time spent in each stage of the device's round trips since the last
/// [`Context::reset_spans`] (nanoseconds; always zero in the browser, which has no clock
/// fine enough).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SpanTimes {
    /// Building the command buffer of a batch: bind groups, the uniform arena, encoding.
    pub encode_ns: u64,
    /// `queue.submit`.
    pub submit_ns: u64,
    /// Waiting for submitted work (`synchronize`, and a read-back's wait for its copy).
    pub wait_ns: u64,
    /// Mapping a read-back buffer and copying its bytes out.
    pub read_ns: u64,
    /// Batches submitted.
    pub submits: u64,
    /// Waits (synchronizations and read-backs).
    pub waits: u64,
    /// Read-backs that mapped the result's own buffer (no copy command; see
    /// `Context::alloc_for_host`).
    pub mapped_reads: u64,
}

/// The counters behind [`SpanTimes`].
#[derive(Default)]
pub(crate) struct Spans {
    encode: AtomicU64,
    submit: AtomicU64,
    wait: AtomicU64,
    read: AtomicU64,
    submits: AtomicU64,
    waits: AtomicU64,
    pub(crate) mapped_reads: AtomicU64,
}

/// A stage being timed: adds its elapsed time to one counter when dropped.
pub(crate) struct Span<'a> {
    counter: &'a AtomicU64,
    #[cfg(not(target_arch = "wasm32"))]
    start: std::time::Instant,
}

impl Drop for Span<'_> {
    fn drop(&mut self) {
        #[cfg(not(target_arch = "wasm32"))]
        self.counter
            .fetch_add(self.start.elapsed().as_nanos() as u64, Ordering::Relaxed);
        #[cfg(target_arch = "wasm32")]
        let _ = self.counter;
    }
}

/// The stages of a round trip.
#[derive(Clone, Copy)]
pub(crate) enum Stage {
    Encode,
    Submit,
    /// Native only: the browser never waits.
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    Wait,
    Read,
}

impl Spans {
    pub(crate) fn start(&self, stage: Stage) -> Span<'_> {
        let counter = match stage {
            Stage::Encode => &self.encode,
            Stage::Submit => {
                self.submits.fetch_add(1, Ordering::Relaxed);
                &self.submit
            }
            Stage::Wait => {
                self.waits.fetch_add(1, Ordering::Relaxed);
                &self.wait
            }
            Stage::Read => &self.read,
        };
        Span {
            counter,
            #[cfg(not(target_arch = "wasm32"))]
            start: std::time::Instant::now(),
        }
    }
}

impl Context {
    /// Host time spent in each stage of this device's round trips since the last
    /// [`reset_spans`](Self::reset_spans).
    pub fn spans(&self) -> SpanTimes {
        let s = &self.inner.spans;
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        SpanTimes {
            encode_ns: get(&s.encode),
            submit_ns: get(&s.submit),
            wait_ns: get(&s.wait),
            read_ns: get(&s.read),
            submits: get(&s.submits),
            waits: get(&s.waits),
            mapped_reads: get(&s.mapped_reads),
        }
    }

    /// Sets the [`spans`](Self::spans) counters to zero.
    pub fn reset_spans(&self) {
        let s = &self.inner.spans;
        for a in [
            &s.encode,
            &s.submit,
            &s.wait,
            &s.read,
            &s.submits,
            &s.waits,
            &s.mapped_reads,
        ] {
            a.store(0, Ordering::Relaxed);
        }
    }

    /// How long this device's waits spin on non-blocking polls before blocking ([`SPIN`] by
    /// default on hardware adapters, zero on CPU adapters). Zero blocks at once.
    pub fn wait_spin(&self) -> std::time::Duration {
        std::time::Duration::from_nanos(self.inner.spin_ns.load(Ordering::Relaxed))
    }

    /// Sets how long this device's waits spin before blocking (see [`wait_spin`](Self::wait_spin)).
    pub fn set_wait_spin(&self, spin: std::time::Duration) {
        let ns = u64::try_from(spin.as_nanos()).unwrap_or(u64::MAX);
        self.inner.spin_ns.store(ns, Ordering::Relaxed);
    }

    /// Blocks until `done()` holds, which some poll of the device makes true (a map callback,
    /// or the queue running empty when `done` is `None`): non-blocking polls for up to
    /// [`wait_spin`](Self::wait_spin), then a blocking wait for everything submitted.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn wait_until(&self, done: Option<&dyn Fn() -> bool>) -> Result<()> {
        let _span = self.inner.spans.start(crate::wait::Stage::Wait);
        let device = &self.inner.device;
        let failed = |e: wgpu::PollError| Error::Device(format!("waiting for the GPU failed: {e}"));
        let spin = self.wait_spin();
        if !spin.is_zero() {
            let start = std::time::Instant::now();
            loop {
                let status = device.poll(wgpu::PollType::Poll).map_err(failed)?;
                let finished = match done {
                    Some(f) => f(),
                    None => status.is_queue_empty(),
                };
                if finished {
                    return Ok(());
                }
                if start.elapsed() >= spin {
                    break;
                }
                std::hint::spin_loop();
            }
        }
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(failed)?;
        // The queue is empty, but another thread's poll may have collected this wait's
        // map callback and not run it yet (wgpu runs callbacks after its locks are released):
        // wait for it, polling again in case it was never collected.
        if let Some(done) = done {
            let start = std::time::Instant::now();
            while !done() {
                if start.elapsed() >= CALLBACK_PATIENCE {
                    return Err(Error::Device(
                        "a read-back's mapping never completed after the GPU went idle".into(),
                    ));
                }
                std::thread::yield_now();
                device.poll(wgpu::PollType::Poll).map_err(failed)?;
            }
        }
        Ok(())
    }
}
