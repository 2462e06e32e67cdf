//! Large host copies (read-backs) split over a few parked threads.
//!
//! One thread copies about 11 GB/s out of a mapped read-back buffer on the H200's host; the
//! same 4 MiB copy took 350 µs on one thread, 75 µs on four and 45-60 µs on eight threads
//! that already exist (`examples/latency_probe.rs`), while spawning threads per copy cost
//! more than it saved. So the threads are made once, on the first large copy, and wait on a
//! channel. A copy that finds the pool busy (another thread's copy) runs on its own thread.
//! In the browser there are no threads: every copy is one `memcpy`.

use std::mem::MaybeUninit;

/// Copies shorter than this run on the calling thread (waking workers costs microseconds).
const POOL_FROM: usize = 256 << 10;

/// Appends `bytes` (a whole number of `T`s, at any alignment) to `out`.
pub(crate) fn append<T: bytemuck::Pod>(out: &mut Vec<T>, bytes: &[u8]) {
    let n = bytes.len() / std::mem::size_of::<T>();
    let bytes = &bytes[..n * std::mem::size_of::<T>()];
    if bytes.len() < POOL_FROM {
        match bytemuck::try_cast_slice::<u8, T>(bytes) {
            Ok(xs) => out.extend_from_slice(xs),
            Err(_) => out.extend(
                bytes
                    .chunks_exact(std::mem::size_of::<T>())
                    .map(bytemuck::pod_read_unaligned::<T>),
            ),
        }
        return;
    }
    out.reserve(n);
    let spare: &mut [MaybeUninit<T>] = &mut out.spare_capacity_mut()[..n];
    // SAFETY: `MaybeUninit<T>` has `T`'s layout, so the spare capacity is `bytes.len()`
    // writable bytes; any byte pattern is a valid `MaybeUninit<u8>`.
    let dst: &mut [MaybeUninit<u8>] =
        unsafe { std::slice::from_raw_parts_mut(spare.as_mut_ptr().cast(), bytes.len()) };
    copy(dst, bytes);
    // SAFETY: `copy` wrote all `n` elements' bytes, and every byte pattern is a valid `T`
    // (`T: Pod`).
    unsafe { out.set_len(out.len() + n) };
}

/// Copies `src` into `dst` (same length), over the pool's threads where it is free.
fn copy(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    assert_eq!(dst.len(), src.len(), "copy_pool::copy: lengths differ");
    #[cfg(not(target_arch = "wasm32"))]
    if let Some(pool) = native::pool()
        && let Ok(pool) = pool.try_lock()
    {
        pool.copy(dst, src);
        return;
    }
    copy_here(dst, src);
}

/// Copies on the calling thread.
fn copy_here(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    // SAFETY: both ranges are `src.len()` bytes long, and a `&mut` and a `&` never overlap.
    unsafe {
        std::ptr::copy_nonoverlapping(src.as_ptr(), dst.as_mut_ptr().cast::<u8>(), src.len())
    };
}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use super::{copy_here, MaybeUninit};
    use std::sync::mpsc::{channel, Receiver, Sender};
    use std::sync::{Mutex, OnceLock};

    /// Threads a copy is split over, the caller included.
    const MAX_THREADS: usize = 8;

    /// One piece of a copy: destination, source and length, as addresses.
    struct Piece {
        dst: usize,
        src: usize,
        len: usize,
    }

    /// Parked worker threads, each taking pieces from its own channel and answering on
    /// `done` when a piece is copied.
    pub(super) struct Pool {
        workers: Vec<Sender<Piece>>,
        done: Receiver<()>,
    }

    static POOL: OnceLock<Option<Mutex<Pool>>> = OnceLock::new();

    /// The process's pool (made on first use; None on a single core or where no thread
    /// could be started).
    pub(super) fn pool() -> Option<&'static Mutex<Pool>> {
        POOL.get_or_init(|| {
            let threads = std::thread::available_parallelism()
                .map_or(1, |n| n.get())
                .min(MAX_THREADS);
            let (done_tx, done) = channel();
            let workers: Vec<Sender<Piece>> = (1..threads)
                .filter_map(|k| {
                    let (tx, rx) = channel::<Piece>();
                    let done_tx = done_tx.clone();
                    std::thread::Builder::new()
                        .name(format!("kupfer-copy-{k}"))
                        .spawn(move || {
                            while let Ok(p) = rx.recv() {
                                // SAFETY: `Pool::copy` keeps both ranges alive, and writes
                                // nothing else into them, until this piece is answered.
                                unsafe {
                                    std::ptr::copy_nonoverlapping(
                                        p.src as *const u8,
                                        p.dst as *mut u8,
                                        p.len,
                                    )
                                };
                                if done_tx.send(()).is_err() {
                                    return;
                                }
                            }
                        })
                        .ok()
                        .map(|_| tx)
                })
                .collect();
            (!workers.is_empty()).then(|| Mutex::new(Pool { workers, done }))
        })
        .as_ref()
    }

    impl Pool {
        /// Copies `src` into `dst` (same length): one piece per worker and one here.
        pub(super) fn copy(&self, dst: &mut [MaybeUninit<u8>], src: &[u8]) {
            let parts = self.workers.len() + 1;
            let chunk = src.len().div_ceil(parts).div_ceil(4096) * 4096;
            let mut pieces = dst.chunks_mut(chunk).zip(src.chunks(chunk));
            let Some((here_dst, here_src)) = pieces.next() else {
                return;
            };
            let mut sent = 0;
            for ((d, s), worker) in pieces.zip(&self.workers) {
                let piece = Piece {
                    dst: d.as_mut_ptr() as usize,
                    src: s.as_ptr() as usize,
                    len: s.len(),
                };
                match worker.send(piece) {
                    Ok(()) => sent += 1,
                    // A worker that is gone takes no piece: copy it here.
                    Err(_) => copy_here(d, s),
                }
            }
            copy_here(here_dst, here_src);
            for _ in 0..sent {
                // An error means every worker has exited (all senders of `done` dropped), so
                // none of them still touches the ranges.
                if self.done.recv().is_err() {
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_every_size_and_alignment() {
        let source: Vec<u8> = (0..(3usize << 20) + 24)
            .map(|i| (i * 7 + 3) as u8)
            .collect();
        for len in [
            0usize,
            4,
            4096,
            POOL_FROM - 4,
            POOL_FROM,
            POOL_FROM + 12,
            3 << 20,
        ] {
            for offset in [0usize, 1, 4] {
                let bytes = &source[offset..offset + len];
                let mut out: Vec<u32> = vec![7, 8];
                append(&mut out, bytes);
                let expected: Vec<u32> = [7u32, 8]
                    .into_iter()
                    .chain(
                        bytes
                            .chunks_exact(4)
                            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
                    )
                    .collect();
                assert_eq!(out, expected, "len {len}, offset {offset}");
            }
        }
    }

    #[test]
    fn concurrent_copies_stay_separate() {
        let handles: Vec<_> = (0..4u8)
            .map(|t| {
                std::thread::spawn(move || {
                    let bytes: Vec<u8> = (0..2usize << 20).map(|i| (i as u8) ^ t).collect();
                    for _ in 0..8 {
                        let mut out: Vec<u8> = Vec::new();
                        append(&mut out, &bytes);
                        assert_eq!(out, bytes);
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().expect("copy thread");
        }
    }
}
