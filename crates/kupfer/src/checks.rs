//! Deferred checks: errors that depend on values still on the device.
//!
//! NumPy raises at once when a loop meets a bad value (a negative integer exponent, an index
//! out of bounds in `a[idx]`); kupfer's values stay on the GPU until read, so such a
//! condition is computed on the device when the op is recorded (a few words written by a
//! kernel queued with the other work: a flag reduced from the operand, or the bounds words a
//! gather keeps) and reported by the device's next sync: the next read-back of any array of
//! that device (`to_vec`, `to_host`, `item`, ...) or `synchronize()` returns the error
//! instead of values. Every pending check is read in one read-back; each is reported once,
//! by a sync on the thread that recorded it (threads sharing a device do not see each
//! other's errors). A deferred producer whose kernel records a check (a gather that waits to
//! take the expression around it) is registered here too: a sync first runs those still
//! pending, so the sync after an op reports its errors as if it had run at once.

use crate::fusion::Deferred;
use kupfer_core::{Error, Result};
use kupfer_wgpu::{Context, GpuBuffer};
use std::cell::Cell;
use std::sync::{Arc, Mutex, Weak};
use std::thread::ThreadId;

thread_local! {
    /// The thread on whose behalf this thread records checks while it runs another thread's
    /// deferred producer ([`on_behalf_of`]); `None`: its own.
    static OWNER: Cell<Option<ThreadId>> = const { Cell::new(None) };
}

/// The thread that owns the checks recorded now: the one whose deferred producer is running
/// ([`on_behalf_of`]), else the current thread.
pub(crate) fn recording_thread() -> ThreadId {
    OWNER
        .with(Cell::get)
        .unwrap_or_else(|| std::thread::current().id())
}

/// Runs `f` recording checks for `owner`: a deferred producer (a pending gather) may run on
/// another thread than the one that recorded it (an assignment there materialises every lazy
/// reader of what it writes), and its errors still belong to the thread that recorded the
/// op, whose next sync reports them.
pub(crate) fn on_behalf_of<R>(owner: ThreadId, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<ThreadId>);
    impl Drop for Restore {
        fn drop(&mut self) {
            OWNER.with(|o| o.set(self.0));
        }
    }
    let _restore = Restore(OWNER.with(|o| o.replace(Some(owner))));
    f()
}

/// Turns a check's words (read back) into its error message, or `None` when it passed.
type Describe = Box<dyn Fn(&[u32]) -> Option<String> + Send + Sync>;

/// A queued check: `words` u32s on the device, decoded by `describe`.
struct Flag {
    thread: ThreadId,
    buffer: Arc<GpuBuffer>,
    offset_bytes: u64,
    words: u64,
    describe: Describe,
}

/// The checks of one device not reported yet.
#[derive(Default)]
pub(crate) struct DeferredChecks {
    pending: Mutex<Vec<Flag>>,
    /// Deferred producers that record checks when they run (thread, producer).
    producers: Mutex<Vec<(ThreadId, Weak<dyn Deferred>)>>,
}

impl DeferredChecks {
    /// Queues the flag at `offset_bytes` of `buffer` (a u32, non-zero when the check failed,
    /// computed on the device by the op) with the message of the error it raises.
    pub(crate) fn push(&self, buffer: Arc<GpuBuffer>, offset_bytes: u64, message: &'static str) {
        self.push_words(
            buffer,
            offset_bytes,
            1,
            Box::new(move |w| (w[0] != 0).then(|| message.to_string())),
        );
    }

    /// Queues `words` u32s of `buffer` at `offset_bytes` (written by kernels recorded
    /// before the next sync), decoded into an error message by `describe`.
    pub(crate) fn push_words(
        &self,
        buffer: Arc<GpuBuffer>,
        offset_bytes: u64,
        words: u64,
        describe: Describe,
    ) {
        self.lock().push(Flag {
            thread: recording_thread(),
            buffer,
            offset_bytes,
            words,
            describe,
        });
    }

    /// Registers a deferred producer whose run records a check: the next sync on this
    /// thread runs it first if it is still alive and pending.
    pub(crate) fn push_producer(&self, producer: Weak<dyn Deferred>) {
        let mut producers = self.producers.lock().unwrap_or_else(|p| p.into_inner());
        producers.retain(|(_, p)| p.strong_count() > 0);
        producers.push((recording_thread(), producer));
    }

    /// Runs this thread's registered producers that are still pending.
    fn run_producers(&self) -> Result<()> {
        let here = std::thread::current().id();
        let mine: Vec<Arc<dyn Deferred>> = {
            let mut producers = self.producers.lock().unwrap_or_else(|p| p.into_inner());
            let (mine, others) = std::mem::take(&mut *producers)
                .into_iter()
                .partition(|(t, _)| *t == here);
            *producers = others;
            mine.into_iter().filter_map(|(_, p)| p.upgrade()).collect()
        };
        for p in mine {
            if p.takes_epilogue() {
                p.buffer()?;
            }
        }
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Flag>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Reads every queued check (after the work before it; several are copied into one
    /// buffer first, so the report is one read-back) and returns the first failure.
    pub(crate) async fn report_async(&self, ctx: &Context) -> Result<()> {
        self.run_producers()?;
        let here = std::thread::current().id();
        let flags: Vec<Flag> = {
            let mut pending = self.lock();
            let (mine, others) = std::mem::take(&mut *pending)
                .into_iter()
                .partition(|f| f.thread == here);
            *pending = others;
            mine
        };
        if flags.is_empty() {
            return Ok(());
        }
        let total: u64 = flags.iter().map(|f| f.words).sum();
        let (buffer, offset) = if let [f] = flags.as_slice() {
            (f.buffer.clone(), f.offset_bytes)
        } else {
            let all = Arc::new(ctx.alloc(total * 4)?);
            let mut at = 0u64;
            for f in &flags {
                ctx.copy_buffer(&f.buffer, f.offset_bytes, &all, at * 4, f.words * 4);
                at += f.words;
            }
            (all, 0)
        };
        let words: Vec<u32> = ctx
            .read_with_async(&buffer, offset, total * 4, |b| {
                b.chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect()
            })
            .await?;
        let mut first = None;
        let mut at = 0usize;
        for f in &flags {
            let w = &words[at..at + f.words as usize];
            at += f.words as usize;
            if first.is_none() {
                first = (f.describe)(w);
            }
        }
        match first {
            Some(message) => Err(Error::invalid(message)),
            None => Ok(()),
        }
    }
}
