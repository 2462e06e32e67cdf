//! Deferred command recording: dispatches and copies are recorded on the host and encoded
//! into one command buffer (one compute pass between copies) at a sync point — a read-back,
//! `synchronize()`, or a bound on pending work. No per-op submit.

use crate::context::Context;
use crate::pipeline::Pipeline;
use crate::pool::GpuBuffer;
use crate::wait::Stage;
#[cfg(not(target_arch = "wasm32"))]
use kupfer_core::Error;
use kupfer_core::Result;
use std::collections::VecDeque;
use std::sync::Arc;

/// Pending commands after which a batch is submitted without waiting for a sync point.
const MAX_PENDING: usize = 1024;
/// Submissions allowed in flight before the host waits for the oldest.
const MAX_IN_FLIGHT: usize = 16;
/// Bind groups kept for reuse; past this many the cache starts over.
const MAX_CACHED_GROUPS: usize = 1024;

/// A storage-buffer range bound to a kernel.
#[derive(Debug, Clone)]
pub struct Binding {
    /// The buffer (kept alive until the batch is submitted).
    pub buffer: Arc<GpuBuffer>,
    /// Byte offset (a multiple of the adapter's storage offset alignment).
    pub offset: u64,
    /// Byte size of the range.
    pub size: u64,
}

pub(crate) enum Command {
    Dispatch {
        pipeline: Arc<Pipeline>,
        /// Storage bindings with their binding numbers.
        bindings: Vec<(u32, Binding)>,
        /// The shared tables the pipeline reads (tables.rs), whole, with their numbers.
        tables: Vec<(u32, wgpu::Buffer)>,
        /// The uniform block's range in the batch's parameter arena (binding 0), if any.
        params: Option<(u64, u64)>,
        /// The parameter block as immediates, for a pipeline compiled that way (else empty).
        immediates: Vec<u8>,
        groups: [u32; 3],
    },
    Copy {
        src: wgpu::Buffer,
        src_offset: u64,
        dst: wgpu::Buffer,
        dst_offset: u64,
        size: u64,
        _keep: Vec<Arc<GpuBuffer>>,
    },
    Timestamp {
        set: wgpu::QuerySet,
    },
    Resolve {
        set: wgpu::QuerySet,
        dst: wgpu::Buffer,
        offset: u64,
    },
}

#[derive(Default)]
pub(crate) struct Batch {
    commands: Vec<Command>,
    params: Vec<u8>,
    /// Submissions the GPU may still be running, numbered by `submitted` at their submit.
    in_flight: VecDeque<(u64, wgpu::SubmissionIndex)>,
    /// Submissions made so far.
    submitted: u64,
    /// Upload staging buffers to re-map (and cache) once this batch is submitted.
    remap: Vec<(wgpu::Buffer, u64)>,
    groups: BindGroupCache,
}

/// What a bind group binds: the pipeline (by address; the cached entry keeps it alive) and
/// each binding's buffer (by identity), offset and size.
#[derive(PartialEq, Eq, Hash)]
struct GroupKey {
    pipeline: usize,
    entries: Vec<(u32, wgpu::Buffer, u64, u64)>,
}

/// Bind groups made by earlier batches, reused when a dispatch binds the same ranges of the
/// same buffers to the same pipeline (a loop's kernels, whose pooled buffers recur): making a
/// bind group is the largest host cost of a tiny dispatch. Pooled buffers are never destroyed
/// while they can be bound, except by `MemoryPool::free_all_blocks`, which bumps the pool's
/// generation and so empties this cache.
#[derive(Default)]
struct BindGroupCache {
    groups: std::collections::HashMap<GroupKey, (wgpu::BindGroup, Arc<Pipeline>)>,
    generation: u64,
}

impl Context {
    fn lock_batch(&self) -> std::sync::MutexGuard<'_, Batch> {
        self.inner.batch.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records a kernel launch: `params` go to binding 0 (a uniform block), `bindings` to
    /// bindings 1.. in order.
    pub fn dispatch(
        &self,
        pipeline: &Arc<Pipeline>,
        params: &[u8],
        bindings: Vec<Binding>,
        groups: [u32; 3],
    ) -> Result<()> {
        let numbered = bindings
            .into_iter()
            .enumerate()
            .map(|(k, b)| (k as u32 + 1, b))
            .collect();
        self.dispatch_with(pipeline, Some(params), numbered, groups)
    }

    /// Records a kernel launch with explicit binding numbers (group 0): `params`, if given,
    /// go to binding 0 as a uniform block; each storage binding to its number.
    pub fn dispatch_with(
        &self,
        pipeline: &Arc<Pipeline>,
        params: Option<&[u8]>,
        bindings: Vec<(u32, Binding)>,
        groups: [u32; 3],
    ) -> Result<()> {
        let align = u64::from(self.inner.info.limits.min_uniform_buffer_offset_alignment).max(16);
        // A pipeline compiled with its block as immediates takes exactly the block's bytes
        // (a parameter vector may be padded past it, or stop short of unused tail fields).
        let immediate_size = pipeline.immediate_size as usize;
        let immediates = if immediate_size > 0 {
            let mut bytes = params.unwrap_or_default().to_vec();
            bytes.resize(immediate_size, 0);
            bytes
        } else {
            Vec::new()
        };
        let params = params.filter(|_| immediate_size == 0);
        let tables = pipeline
            .tables
            .iter()
            .map(|t| Ok((t.binding, self.shared_table(t)?)))
            .collect::<Result<Vec<_>>>()?;
        let mut batch = self.lock_batch();
        let range = params.map(|params| {
            let start = (batch.params.len() as u64).div_ceil(align) * align;
            let size = (params.len() as u64).div_ceil(16).max(1) * 16;
            batch.params.resize(start as usize, 0);
            batch.params.extend_from_slice(params);
            batch.params.resize((start + size) as usize, 0);
            (start, size)
        });
        self.inner
            .dispatches
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        batch.commands.push(Command::Dispatch {
            pipeline: pipeline.clone(),
            bindings,
            tables,
            params: range,
            immediates,
            groups,
        });
        if batch.commands.len() >= MAX_PENDING {
            self.submit(&mut batch)?;
        }
        Ok(())
    }

    /// The device's uniform arena, at least `size` bytes (grown to the next power of two;
    /// a replaced arena lives on until the submissions using it are done).
    fn params_arena(&self, size: u64) -> wgpu::Buffer {
        let mut arena = self
            .inner
            .params_arena
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        match arena.as_ref() {
            Some(b) if b.size() >= size => b.clone(),
            _ => {
                let b = self.inner.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("kupfer params"),
                    size: size.next_power_of_two().max(4096),
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                *arena = Some(b.clone());
                b
            }
        }
    }

    /// Records a buffer-to-buffer copy.
    pub(crate) fn record_copy(&self, cmd: Command) {
        self.lock_batch().commands.push(cmd);
    }

    /// Queues an upload staging buffer for re-mapping after the next submit.
    pub(crate) fn after_submit(&self, staging: wgpu::Buffer, class: u64) {
        self.lock_batch().remap.push((staging, class));
    }

    /// Records a pooled-buffer copy (`size` a multiple of 4).
    pub fn copy_buffer(
        &self,
        src: &Arc<GpuBuffer>,
        src_offset: u64,
        dst: &Arc<GpuBuffer>,
        dst_offset: u64,
        size: u64,
    ) {
        self.record_copy(Command::Copy {
            src: src.raw().clone(),
            src_offset,
            dst: dst.raw().clone(),
            dst_offset,
            size,
            _keep: vec![src.clone(), dst.clone()],
        });
    }

    /// Number of kernel launches recorded on this device so far (for tests and profiling:
    /// a fused expression is one launch).
    pub fn dispatch_count(&self) -> u64 {
        self.inner
            .dispatches
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Submits everything recorded so far (does not wait).
    pub fn flush(&self) -> Result<()> {
        self.flush_numbered().map(|_| ())
    }

    /// Submits pending work; the number of submissions made so far, which covers it (see
    /// [`retire_through`](Self::retire_through)).
    pub(crate) fn flush_numbered(&self) -> Result<u64> {
        let mut batch = self.lock_batch();
        self.submit(&mut batch)?;
        Ok(batch.submitted)
    }

    /// Submits pending work and runs `f` (which maps `buffer` and waits for it) while
    /// holding the batch, so that no other thread records or submits work until `f` returns
    /// (a mapped buffer must not be used by a submission). When `f` succeeds and the work
    /// just submitted used `buffer`, all submissions so far are known to be done (the queue
    /// runs in order); a mapping of a buffer last used earlier says nothing about later work.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn flush_holding<R>(
        &self,
        buffer: &wgpu::Buffer,
        f: impl FnOnce() -> Result<R>,
    ) -> Result<R> {
        let mut batch = self.lock_batch();
        let uses = |cmd: &Command| match cmd {
            Command::Dispatch { bindings, .. } => {
                bindings.iter().any(|(_, b)| b.buffer.raw() == buffer)
            }
            Command::Copy { src, dst, .. } => src == buffer || dst == buffer,
            Command::Timestamp { .. } | Command::Resolve { .. } => false,
        };
        let covers_all = batch.commands.iter().rev().any(uses);
        self.submit(&mut batch)?;
        let out = f()?;
        if covers_all {
            batch.in_flight.clear();
        }
        Ok(out)
    }

    /// Notes that the GPU has finished submissions `1..=number` (a read-back of the last of
    /// them has arrived: the queue runs in order), so a `synchronize` with nothing newer
    /// pending returns without asking the driver.
    pub(crate) fn retire_through(&self, number: u64) {
        let mut batch = self.lock_batch();
        while batch.in_flight.front().is_some_and(|(n, _)| *n <= number) {
            batch.in_flight.pop_front();
        }
    }

    /// Submits pending work and blocks until the GPU has finished all of it.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn synchronize(&self) -> Result<()> {
        {
            let batch = self.lock_batch();
            if batch.commands.is_empty() && batch.in_flight.is_empty() {
                // Nothing recorded and nothing submitted that is not known to be done (after
                // a read-back, say): no poll of the driver.
                drop(batch);
                self.inner.pipelines.save_if_dirty();
                return Ok(());
            }
        }
        self.flush()?;
        self.wait_until(None)?;
        self.lock_batch().in_flight.clear();
        self.inner.pipelines.save_if_dirty();
        Ok(())
    }

    /// Submits pending work and resolves when the GPU has finished all of it.
    pub async fn synchronize_async(&self) -> Result<()> {
        self.flush()?;
        let (tx, rx) = futures_intrusive::channel::shared::oneshot_channel();
        self.inner.queue.on_submitted_work_done(move || {
            let _ = tx.send(());
        });
        #[cfg(not(target_arch = "wasm32"))]
        self.wait_until(None)?;
        rx.receive().await;
        Ok(())
    }

    fn submit(&self, batch: &mut Batch) -> Result<()> {
        if batch.commands.is_empty() {
            return Ok(());
        }
        let device = &self.inner.device;
        let encoding = self.inner.spans.start(Stage::Encode);
        let commands = std::mem::take(&mut batch.commands);
        let params = std::mem::take(&mut batch.params);
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("kupfer batch"),
        });
        // The uniform blocks go into the device's persistent arena, copied from a cached
        // staging buffer at the start of the batch: no buffer is created or destroyed per
        // submission. Rewriting the arena while an earlier submission may still read it is
        // safe: wgpu puts a barrier before the copy, which waits for every command submitted
        // before it on the queue.
        let arena = if params.is_empty() {
            None
        } else {
            let size = (params.len() as u64).div_ceil(16) * 16;
            let arena = self.params_arena(size);
            let (staging, class) = self.staged(&params)?;
            encoder.copy_buffer_to_buffer(&staging, 0, &arena, 0, size);
            batch.remap.push((staging, class));
            Some(arena)
        };
        let generation = self.inner.pool.generation();
        if batch.groups.generation != generation {
            batch.groups.groups.clear();
            batch.groups.generation = generation;
        }
        let mut profile = self.start_recording(&commands);
        let mut pass: Option<wgpu::ComputePass<'static>> = None;
        for cmd in &commands {
            match cmd {
                Command::Dispatch {
                    pipeline,
                    bindings,
                    tables,
                    params,
                    immediates,
                    groups,
                } => {
                    let mut key = GroupKey {
                        pipeline: Arc::as_ptr(pipeline) as usize,
                        entries: Vec::with_capacity(bindings.len() + tables.len() + 1),
                    };
                    if let (Some((offset, size)), Some(arena)) = (params, arena.as_ref()) {
                        key.entries.push((0, arena.clone(), *offset, *size));
                    }
                    for (k, b) in bindings.iter() {
                        key.entries
                            .push((*k, b.buffer.raw().clone(), b.offset, b.size.max(4)));
                    }
                    for (k, buffer) in tables {
                        key.entries.push((*k, buffer.clone(), 0, buffer.size()));
                    }
                    let group = match batch.groups.groups.get(&key) {
                        Some((group, _)) => group.clone(),
                        None => {
                            let entries: Vec<wgpu::BindGroupEntry> = key
                                .entries
                                .iter()
                                .map(|(binding, buffer, offset, size)| wgpu::BindGroupEntry {
                                    binding: *binding,
                                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                                        buffer,
                                        offset: *offset,
                                        size: wgpu::BufferSize::new(*size),
                                    }),
                                })
                                .collect();
                            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                                label: None,
                                layout: &pipeline.layout,
                                entries: &entries,
                            });
                            if batch.groups.groups.len() >= MAX_CACHED_GROUPS {
                                batch.groups.groups.clear();
                            }
                            batch
                                .groups
                                .groups
                                .insert(key, (group.clone(), pipeline.clone()));
                            group
                        }
                    };
                    let timed = profile.as_mut().and_then(|rec| {
                        let queries = rec.next(&pipeline.label, *groups)?;
                        Some((rec.set.clone(), rec.per_pass, queries))
                    });
                    if let Some((set, true, (begin, end))) = &timed {
                        // Profiled without timestamps inside passes: a pass per dispatch
                        // (the open pass ends first: an encoder has one pass at a time).
                        drop(pass.take());
                        pass = Some(
                            encoder
                                .begin_compute_pass(&wgpu::ComputePassDescriptor {
                                    label: Some("kupfer profiled dispatch"),
                                    timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                                        query_set: set,
                                        beginning_of_pass_write_index: Some(*begin),
                                        end_of_pass_write_index: Some(*end),
                                    }),
                                })
                                .forget_lifetime(),
                        );
                    }
                    let p = pass.get_or_insert_with(|| {
                        encoder
                            .begin_compute_pass(&wgpu::ComputePassDescriptor::default())
                            .forget_lifetime()
                    });
                    if let Some((set, false, (begin, _))) = &timed {
                        p.write_timestamp(set, *begin);
                    }
                    p.set_pipeline(&pipeline.pipeline);
                    p.set_bind_group(0, &group, &[]);
                    if !immediates.is_empty() {
                        p.set_immediates(0, immediates);
                    }
                    p.dispatch_workgroups(groups[0], groups[1], groups[2]);
                    match &timed {
                        Some((set, false, (_, end))) => p.write_timestamp(set, *end),
                        Some((_, true, _)) => pass = None,
                        None => {}
                    }
                }
                Command::Copy {
                    src,
                    src_offset,
                    dst,
                    dst_offset,
                    size,
                    ..
                } => {
                    pass = None;
                    encoder.copy_buffer_to_buffer(src, *src_offset, dst, *dst_offset, *size);
                }
                Command::Timestamp { set } => {
                    pass = None;
                    if self.has_encoder_timestamps() {
                        encoder.write_timestamp(set, 0);
                    } else {
                        // WebGPU: timestamps only at pass boundaries.
                        encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                            label: Some("kupfer event"),
                            timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                                query_set: set,
                                beginning_of_pass_write_index: Some(0),
                                end_of_pass_write_index: None,
                            }),
                        });
                    }
                }
                Command::Resolve { set, dst, offset } => {
                    pass = None;
                    encoder.resolve_query_set(set, 0..1, dst, *offset);
                }
            }
        }
        drop(pass);
        let file_profile = profile.map(|rec| self.finish_recording(rec, &mut encoder));
        let command_buffer = encoder.finish();
        drop(encoding);
        let index = {
            let _span = self.inner.spans.start(Stage::Submit);
            self.inner.queue.submit([command_buffer])
        };
        if let Some(file) = file_profile {
            file();
        }
        drop(commands);
        for (staging, class) in std::mem::take(&mut batch.remap) {
            self.remap_upload(staging, class);
        }
        batch.submitted += 1;
        let number = batch.submitted;
        batch.in_flight.push_back((number, index));
        if batch.in_flight.len() > MAX_IN_FLIGHT {
            if let Some((_, oldest)) = batch.in_flight.pop_front() {
                #[cfg(not(target_arch = "wasm32"))]
                self.inner
                    .device
                    .poll(wgpu::PollType::Wait {
                        submission_index: Some(oldest),
                        timeout: None,
                    })
                    .map_err(|e| Error::Device(format!("waiting for the GPU failed: {e}")))?;
                #[cfg(target_arch = "wasm32")]
                drop(oldest);
            }
        } else if !self.inner.config.lean_submit {
            // wgpu's `queue.submit` already ends with this poll (retiring finished work and
            // firing map callbacks): a second one only costs host time.
            let _ = self.inner.device.poll(wgpu::PollType::Poll);
        }
        Ok(())
    }
}
