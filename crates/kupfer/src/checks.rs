//! Deferred checks: errors that depend on values still on the device.
//!
//! NumPy raises at once when a loop meets a bad value (a negative integer exponent); kupfer's
//! values stay on the GPU until read, so such a condition is computed on the device when the
//! op is recorded (a one-element flag, reduced from the operand, queued with the other work)
//! and reported by the device's next sync: the next read-back of any array of that device
//! (`to_vec`, `to_host`, `item`, ...) or `synchronize()` returns the error instead of values.
//! Each check is reported once.

use kupfer_core::{Error, Result};
use kupfer_wgpu::{Context, GpuBuffer};
use std::sync::{Arc, Mutex};

/// A queued flag: a u32 on the device, non-zero when the check failed.
struct Flag {
    buffer: Arc<GpuBuffer>,
    offset_bytes: u64,
    message: &'static str,
}

/// The checks of one device not reported yet.
#[derive(Default)]
pub(crate) struct DeferredChecks {
    pending: Mutex<Vec<Flag>>,
}

impl DeferredChecks {
    /// Queues the flag at `offset_bytes` of `buffer` (a u32, non-zero when the check failed,
    /// computed on the device by the op) with the message of the error it raises.
    pub(crate) fn push(&self, buffer: Arc<GpuBuffer>, offset_bytes: u64, message: &'static str) {
        self.lock().push(Flag {
            buffer,
            offset_bytes,
            message,
        });
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Flag>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Reads every queued flag (after the work before it) and returns the first failure.
    pub(crate) async fn report_async(&self, ctx: &Context) -> Result<()> {
        let flags = std::mem::take(&mut *self.lock());
        let mut first = None;
        for f in flags {
            let failed = ctx
                .read_with_async(&f.buffer, f.offset_bytes, 4, |b| b.iter().any(|&x| x != 0))
                .await?;
            if failed && first.is_none() {
                first = Some(f.message);
            }
        }
        match first {
            Some(message) => Err(Error::invalid(message)),
            None => Ok(()),
        }
    }
}
