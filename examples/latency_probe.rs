//! Where a round trip's microseconds go: the floor through wgpu beside kupfer's own paths.
//!
//! ```text
//! cargo run --release --example latency_probe [REPS] [kupfer]
//! ```
//!
//! With `kupfer`, only kupfer's small round trips run (no floor, no transfers: for
//! profiling them).
//!
//! Prints one JSON object per line (median microseconds over REPS, default 2000):
//! - `wgpu_submit_only`: `queue.submit` of an encoder holding one tiny dispatch (pipeline and
//!   bind group made once), no wait;
//! - `wgpu_dispatch_block`: the same dispatch, then a blocking `poll` until it is done;
//! - `wgpu_dispatch_spin`: the same dispatch, then non-blocking polls until the queue is empty;
//! - `kupfer_op_sync_*`: `t + 1` on 16 elements, then `synchronize` (bench tiny_op_wall);
//! - `kupfer_sum_item_*`: the sum of 16 elements read back as a host scalar;
//! - `kupfer_sum_item_sync_*`: the same, then `synchronize`, as bench tiny_sum_to_host_wall
//!   times it;
//! - `kupfer_d2h_<n>_*`: `to_vec` of n float32 (bench d2h_pageable);
//! - `kupfer_scalar_feeds_2^24_{mapped,device}`: `x / x.sum()` over 2^24 float32 with the
//!   sum in host-mappable memory (where direct read-backs put it) and in device memory: what
//!   a big kernel pays for reading a scalar from host-visible memory;
//!
//! each with waits that block at once (`_block`) and that spin first (`_spin`, the default),
//! with kupfer's span breakdown (encode, submit, wait, read; per round trip), the host CPU
//! time of the calling thread per round trip (`host_cpu_us`: its host work, unlike wall time
//! steady on a loaded machine; a spinning wait counts in it) and how many read-backs mapped
//! their result without a copy (`mapped_reads_per_rep`).

use kupfer as kp;
use kupfer::wgpu;
use std::time::Instant;

/// CPU time this thread has run, in nanoseconds (Linux's /proc/thread-self/schedstat; 0
/// elsewhere): the host work of a round trip, unlike its wall time, does not grow when other
/// processes share the cores.
fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn median_us(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn time(reps: usize, mut f: impl FnMut()) -> f64 {
    for _ in 0..reps / 10 + 1 {
        f();
    }
    let mut v = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = Instant::now();
        f();
        v.push(t.elapsed().as_secs_f64() * 1e6);
    }
    median_us(v)
}

/// A pool of parked threads that copy byte ranges they are sent (the probe's question: does
/// a 4 MiB copy get faster over several threads that already exist?).
struct CopyPool {
    jobs: Vec<std::sync::mpsc::Sender<(usize, usize, usize)>>,
    done: std::sync::mpsc::Receiver<()>,
}

impl CopyPool {
    fn new(workers: usize) -> Self {
        let (done_tx, done) = std::sync::mpsc::channel();
        let jobs = (0..workers)
            .map(|_| {
                let (tx, rx) = std::sync::mpsc::channel::<(usize, usize, usize)>();
                let done_tx = done_tx.clone();
                std::thread::spawn(move || {
                    while let Ok((dst, src, len)) = rx.recv() {
                        // SAFETY: `copy` keeps both ranges alive and disjoint until every
                        // worker has answered on `done`.
                        unsafe {
                            std::ptr::copy_nonoverlapping(src as *const u8, dst as *mut u8, len)
                        };
                        let _ = done_tx.send(());
                    }
                });
                tx
            })
            .collect();
        CopyPool { jobs, done }
    }

    fn copy(&self, dst: &mut [u8], src: &[u8]) {
        let parts = self.jobs.len() + 1;
        let chunk = src.len().div_ceil(parts).div_ceil(4096) * 4096;
        let mut pieces = dst.chunks_mut(chunk).zip(src.chunks(chunk));
        let (d0, s0) = pieces.next().expect("non-empty copy");
        let mut sent = 0;
        for ((d, s), job) in pieces.zip(&self.jobs) {
            job.send((d.as_mut_ptr() as usize, s.as_ptr() as usize, s.len()))
                .expect("copy worker alive");
            sent += 1;
        }
        d0.copy_from_slice(s0);
        for _ in 0..sent {
            self.done.recv().expect("copy worker alive");
        }
    }
}

/// 4 MiB copies from host memory and from a mapped read-back buffer, on one thread and on
/// pools of parked threads.
fn host_copy_threads(src: &[u8], device: &wgpu::Device, queue: &wgpu::Queue) {
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("probe read-back"),
        size: src.len() as u64,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let upload = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("probe upload"),
        size: src.len() as u64,
        usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    queue.write_buffer(&upload, 0, src);
    let mut enc = device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&upload, 0, &staging, 0, src.len() as u64);
    queue.submit([enc.finish()]);
    staging.slice(..).map_async(wgpu::MapMode::Read, |_| {});
    let _ = device.poll(wgpu::PollType::wait_indefinitely());
    let mapped = staging
        .slice(..)
        .get_mapped_range()
        .expect("the read-back buffer is mapped");
    let mut dst = vec![0u8; src.len()];
    let one_mapped = time(200, || {
        dst.copy_from_slice(&mapped);
        std::hint::black_box(&dst);
    });
    println!("{{\"case\": \"mapped_copy_4mib_1thread\", \"us\": {one_mapped:.2}}}");
    for workers in [1usize, 3, 7] {
        let pool = CopyPool::new(workers);
        let host = time(200, || {
            pool.copy(&mut dst, src);
            std::hint::black_box(&dst);
        });
        let from_map = time(200, || {
            pool.copy(&mut dst, &mapped);
            std::hint::black_box(&dst);
        });
        let fresh = time(200, || {
            let mut v = Vec::<u8>::with_capacity(src.len());
            let spare = &mut v.spare_capacity_mut()[..src.len()];
            // SAFETY: MaybeUninit<u8> and u8 share a layout; every byte is written below.
            let spare = unsafe { &mut *(spare as *mut [std::mem::MaybeUninit<u8>] as *mut [u8]) };
            pool.copy(spare, &mapped);
            // SAFETY: the pool wrote all src.len() bytes.
            unsafe { v.set_len(src.len()) };
            std::hint::black_box(v);
        });
        let threads = workers + 1;
        println!(
            "{{\"case\": \"pool_copy_4mib_{threads}threads\", \"host_us\": {host:.2}, \"mapped_us\": {from_map:.2}, \"mapped_to_fresh_us\": {fresh:.2}}}"
        );
    }
    drop(mapped);
    staging.unmap();
}

fn main() -> kp::Result<()> {
    let reps: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000);
    let dev = kp::Device::default_device()?;
    let ctx = dev.context();
    let device = ctx.device();
    let queue = ctx.queue();
    eprintln!("adapter: {} ({})", dev.info().name, dev.info().backend);
    let only_kupfer = std::env::args().nth(2).as_deref() == Some("kupfer");
    if !only_kupfer {
        wgpu_floor(reps, device, queue);
    }
    kupfer_round_trips(reps, &dev, !only_kupfer)?;
    if !only_kupfer {
        scalar_feeds_kernel(20)?;
    }
    Ok(())
}

/// `x / x.sum()` over 2^24 float32, then synchronize, with the scalar where a direct
/// read-back puts it (host-mappable memory: every thread of the big kernel reads it from
/// there) and in device memory (`KUPFER_SCALAR_READ=old`), on two devices of one process.
fn scalar_feeds_kernel(reps: usize) -> kp::Result<()> {
    let n = 1usize << 24;
    let host = vec![1f32; n];
    for (name, direct) in [("mapped", true), ("device", false)] {
        let mut config = kp::Config::from_env()?;
        config.runtime.direct_reads = direct;
        let dev = kp::Device::open(kp::AdapterChoice::Default, config)?;
        let x = kp::Array::from_slice_on(&dev, &host, &[n])?;
        let s = kp::sum(&x, kp::Axis::All, false)?;
        dev.synchronize()?;
        let mut failure = None;
        let us = time(reps, || {
            let step = kp::divide(&x, &s).and_then(|y| {
                y.eval()?;
                dev.synchronize()
            });
            if let Err(e) = step {
                failure = Some(e);
            }
        });
        if let Some(e) = failure {
            return Err(e);
        }
        let direct_reads = dev.context().direct_reads();
        println!(
            "{{\"case\": \"kupfer_scalar_feeds_2^24_{name}\", \"us\": {us:.2}, \"direct_reads\": {direct_reads}}}"
        );
    }
    Ok(())
}

/// The bare floor through wgpu (a tiny dispatch, its submit and its waits), the cost of
/// each part of kupfer's path added to it alone, and host copies.
fn wgpu_floor(reps: usize, device: &wgpu::Device, queue: &wgpu::Queue) {
    // The bare floor: one pipeline and bind group, made once.
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: None,
        source: wgpu::ShaderSource::Wgsl(
            "@group(0) @binding(0) var<storage, read_write> x: array<f32>;
             @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
                 if (g.x < arrayLength(&x)) { x[g.x] = x[g.x] + 1.0; }
             }"
            .into(),
        ),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 64,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: buffer.as_entire_binding(),
        }],
    });
    let submit = || {
        let mut enc = device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &group, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        }
        queue.submit([enc.finish()]);
    };
    let wait_block = || {
        let _ = device.poll(wgpu::PollType::wait_indefinitely());
    };
    let wait_spin = || {
        while !device
            .poll(wgpu::PollType::Poll)
            .is_ok_and(|s| s.is_queue_empty())
        {
            std::hint::spin_loop();
        }
    };
    let submit_only = time(reps, &submit);
    wait_block();
    let block = time(reps, || {
        submit();
        wait_block();
    });
    let spin = time(reps, || {
        submit();
        wait_spin();
    });
    // The same dispatch with one cost of kupfer's path added each: a bind group made per
    // dispatch, a uniform block copied in from a staging buffer before the pass, and a
    // uniform block written with `queue.write_buffer`.
    let spin_newgroup = time(reps, || {
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: buffer.as_entire_binding(),
            }],
        });
        let mut enc = device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &group, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        }
        queue.submit([enc.finish()]);
        wait_spin();
    });
    let uniform = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 256,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let source = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 256,
        usage: wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let spin_paramcopy = time(reps, || {
        let mut enc = device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(&source, 0, &uniform, 0, 256);
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &group, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        }
        queue.submit([enc.finish()]);
        wait_spin();
    });
    let spin_writebuffer = time(reps, || {
        queue.write_buffer(&uniform, 0, &[0u8; 64]);
        submit();
        wait_spin();
    });
    // Host copies of 4 MiB into a zeroed and into an uninitialised allocation.
    let src = vec![1u8; 4 << 20];
    let copy_zeroed = time(200, || {
        let mut v = vec![0u8; src.len()];
        v.copy_from_slice(&src);
        std::hint::black_box(v);
    });
    let copy_fresh = time(200, || {
        std::hint::black_box(src.to_vec());
    });
    let mut warm_dst = vec![0u8; src.len()];
    let copy_warm = time(200, || {
        warm_dst.copy_from_slice(&src);
        std::hint::black_box(&warm_dst);
    });
    println!("{{\"case\": \"host_copy_4mib_warm\", \"us\": {copy_warm:.2}}}");
    host_copy_threads(&src, device, queue);
    println!("{{\"case\": \"wgpu_submit_only\", \"us\": {submit_only:.2}}}");
    println!("{{\"case\": \"wgpu_dispatch_spin_new_bind_group\", \"us\": {spin_newgroup:.2}}}");
    println!("{{\"case\": \"wgpu_dispatch_spin_param_copy\", \"us\": {spin_paramcopy:.2}}}");
    println!("{{\"case\": \"wgpu_dispatch_spin_write_buffer\", \"us\": {spin_writebuffer:.2}}}");
    println!("{{\"case\": \"host_copy_4mib_zeroed\", \"us\": {copy_zeroed:.2}}}");
    println!("{{\"case\": \"host_copy_4mib_uninit\", \"us\": {copy_fresh:.2}}}");
    println!("{{\"case\": \"wgpu_dispatch_block\", \"us\": {block:.2}}}");
    println!("{{\"case\": \"wgpu_dispatch_spin\", \"us\": {spin:.2}}}");
}

/// kupfer's round trips, with their span breakdown, waits blocking at once and spinning.
fn kupfer_round_trips(reps: usize, dev: &kp::Device, transfers: bool) -> kp::Result<()> {
    let ctx = dev.context();
    let _guard = dev.use_device();
    let t = kp::ones(&[16], Some(kp::DType::F32))?;
    t.eval()?;
    let host_cpu = std::cell::Cell::new(0u64);
    let report = |name: &str, us: f64, reps: usize| {
        let s = ctx.spans();
        let per = |ns: u64| ns as f64 / 1e3 / reps as f64;
        println!(
            "{{\"case\": \"{name}\", \"us\": {us:.2}, \"host_cpu_us\": {:.2}, \"encode_us\": {:.2}, \
             \"submit_us\": {:.2}, \"wait_us\": {:.2}, \"read_us\": {:.2}, \"submits_per_rep\": {:.2}, \"waits_per_rep\": {:.2}, \
             \"mapped_reads_per_rep\": {:.2}}}",
            per(host_cpu.get()),
            per(s.encode_ns),
            per(s.submit_ns),
            per(s.wait_ns),
            per(s.read_ns),
            s.submits as f64 / reps as f64,
            s.waits as f64 / reps as f64,
            s.mapped_reads as f64 / reps as f64,
        );
    };
    // Median wall time of `f` over `reps` runs after a tenth as many warm-ups; the spans
    // cover the timed runs only.
    let run = |reps: usize, f: &mut dyn FnMut() -> kp::Result<()>| -> kp::Result<f64> {
        for _ in 0..reps / 10 + 1 {
            f()?;
        }
        ctx.reset_spans();
        let cpu0 = thread_cpu_ns();
        let mut samples = Vec::with_capacity(reps);
        for _ in 0..reps {
            let t0 = Instant::now();
            f()?;
            samples.push(t0.elapsed().as_secs_f64() * 1e6);
        }
        host_cpu.set(thread_cpu_ns().saturating_sub(cpu0));
        Ok(median_us(samples))
    };
    let default_spin = ctx.wait_spin();
    for (mode, spin) in [("block", std::time::Duration::ZERO), ("spin", default_spin)] {
        ctx.set_wait_spin(spin);
        let op = run(reps, &mut || {
            let r = kp::add(&t, 1.0)?;
            r.eval()?;
            dev.synchronize()
        })?;
        report(&format!("kupfer_op_sync_{mode}"), op, reps);
        let sum = run(reps, &mut || {
            let s = kp::sum(&t, kp::Axis::All, false)?.item()?.as_f64();
            std::hint::black_box(s);
            Ok(())
        })?;
        report(&format!("kupfer_sum_item_{mode}"), sum, reps);
        // The bench's shape: the scalar is read, then `synchronize` (which should find
        // nothing left to wait for), then the scalar is dropped.
        let sum_sync = run(reps, &mut || {
            let s = kp::sum(&t, kp::Axis::All, false)?.item()?;
            dev.synchronize()?;
            std::hint::black_box(s);
            Ok(())
        })?;
        report(&format!("kupfer_sum_item_sync_{mode}"), sum_sync, reps);
        let sizes: &[(usize, usize)] = if transfers {
            &[(1 << 20, 200), (1 << 26, 10)]
        } else {
            &[]
        };
        for &(n, n_reps) in sizes {
            let host = vec![1f32; n];
            let d = kp::Array::from_slice_on(dev, &host, &[n])?;
            dev.synchronize()?;
            let d2h = run(n_reps, &mut || {
                std::hint::black_box(d.to_vec::<f32>()?);
                Ok(())
            })?;
            report(&format!("kupfer_d2h_{n}_{mode}"), d2h, n_reps);
        }
    }
    ctx.set_wait_spin(default_spin);
    Ok(())
}
