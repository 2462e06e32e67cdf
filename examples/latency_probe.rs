//! Where a round trip's microseconds go: the floor through wgpu beside kupfer's own paths.
//!
//! ```text
//! cargo run --release --example latency_probe [REPS]
//! ```
//!
//! Prints one JSON object per line (median microseconds over REPS, default 2000):
//! - `wgpu_submit_only`: `queue.submit` of an encoder holding one tiny dispatch (pipeline and
//!   bind group made once), no wait;
//! - `wgpu_dispatch_block`: the same dispatch, then a blocking `poll` until it is done;
//! - `wgpu_dispatch_spin`: the same dispatch, then non-blocking polls until the queue is empty;
//! - `kupfer_op_sync_*`: `t + 1` on 16 elements, then `synchronize` (bench tiny_op_wall);
//! - `kupfer_sum_item_*`: the sum of 16 elements read back as a host scalar
//!   (bench tiny_sum_to_host_wall);
//! - `kupfer_d2h_<n>_*`: `to_vec` of n float32 (bench d2h_pageable);
//!
//! each with waits that block at once (`_block`) and that spin first (`_spin`, the default),
//! with kupfer's span breakdown (encode, submit, wait, read; per round trip).

use kupfer as kp;
use kupfer::wgpu;
use std::time::Instant;

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
    println!("{{\"case\": \"wgpu_submit_only\", \"us\": {submit_only:.2}}}");
    println!("{{\"case\": \"wgpu_dispatch_spin_new_bind_group\", \"us\": {spin_newgroup:.2}}}");
    println!("{{\"case\": \"wgpu_dispatch_spin_param_copy\", \"us\": {spin_paramcopy:.2}}}");
    println!("{{\"case\": \"wgpu_dispatch_spin_write_buffer\", \"us\": {spin_writebuffer:.2}}}");
    println!("{{\"case\": \"host_copy_4mib_zeroed\", \"us\": {copy_zeroed:.2}}}");
    println!("{{\"case\": \"host_copy_4mib_uninit\", \"us\": {copy_fresh:.2}}}");
    println!("{{\"case\": \"wgpu_dispatch_block\", \"us\": {block:.2}}}");
    println!("{{\"case\": \"wgpu_dispatch_spin\", \"us\": {spin:.2}}}");

    let _guard = dev.use_device();
    let t = kp::ones(&[16], Some(kp::DType::F32))?;
    t.eval()?;
    let report = |name: &str, us: f64, reps: usize| {
        let s = ctx.spans();
        let per = |ns: u64| ns as f64 / 1e3 / reps as f64;
        println!(
            "{{\"case\": \"{name}\", \"us\": {us:.2}, \"encode_us\": {:.2}, \"submit_us\": {:.2}, \
             \"wait_us\": {:.2}, \"read_us\": {:.2}, \"submits_per_rep\": {:.2}, \"waits_per_rep\": {:.2}}}",
            per(s.encode_ns),
            per(s.submit_ns),
            per(s.wait_ns),
            per(s.read_ns),
            s.submits as f64 / reps as f64,
            s.waits as f64 / reps as f64,
        );
    };
    // Median wall time of `f` over `reps` runs after a tenth as many warm-ups; the spans
    // cover the timed runs only.
    let run = |reps: usize, f: &mut dyn FnMut() -> kp::Result<()>| -> kp::Result<f64> {
        for _ in 0..reps / 10 + 1 {
            f()?;
        }
        ctx.reset_spans();
        let mut samples = Vec::with_capacity(reps);
        for _ in 0..reps {
            let t0 = Instant::now();
            f()?;
            samples.push(t0.elapsed().as_secs_f64() * 1e6);
        }
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
        for (n, n_reps) in [(1usize << 20, 200), (1 << 26, 10)] {
            let host = vec![1f32; n];
            let d = kp::Array::from_slice_on(&dev, &host, &[n])?;
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
