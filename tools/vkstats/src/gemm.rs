//! Times a matmul kernel (kupfer's binding interface: uniform block at 0, A, B, C at 1-3) as
//! a `size`-cubed float16 GEMM of row-major operands on the device, and checks sampled
//! entries of C against a CPU reference.
use crate::{Built, Vk};
use ash::vk;
use half::f16;

/// A buffer and its memory.
struct Buf {
    buf: vk::Buffer,
    mem: vk::DeviceMemory,
}

unsafe fn buffer(
    vk: &Vk,
    size: u64,
    usage: vk::BufferUsageFlags,
    host: bool,
) -> Result<Buf, String> {
    let d = &vk.device;
    let buf = d
        .create_buffer(
            &vk::BufferCreateInfo::default().size(size).usage(usage),
            None,
        )
        .map_err(|e| format!("buffer: {e:?}"))?;
    let req = d.get_buffer_memory_requirements(buf);
    let props = vk.instance.get_physical_device_memory_properties(vk.pd);
    // Device buffers in plain video memory, host buffers in plain system memory (not the
    // small host-visible window of video memory).
    let (want, avoid) = if host {
        (
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
            vk::MemoryPropertyFlags::DEVICE_LOCAL,
        )
    } else {
        (
            vk::MemoryPropertyFlags::DEVICE_LOCAL,
            vk::MemoryPropertyFlags::HOST_VISIBLE,
        )
    };
    let fits = |i: u32, strict: bool| {
        let f = props.memory_types[i as usize].property_flags;
        req.memory_type_bits & (1 << i) != 0 && f.contains(want) && !(strict && f.intersects(avoid))
    };
    let ty = (0..props.memory_type_count)
        .find(|&i| fits(i, true))
        .or_else(|| (0..props.memory_type_count).find(|&i| fits(i, false)))
        .ok_or("no memory type")?;
    let mem = d
        .allocate_memory(
            &vk::MemoryAllocateInfo::default()
                .allocation_size(req.size)
                .memory_type_index(ty),
            None,
        )
        .map_err(|e| format!("memory: {e:?}"))?;
    d.bind_buffer_memory(buf, mem, 0)
        .map_err(|e| format!("bind: {e:?}"))?;
    Ok(Buf { buf, mem })
}

/// The value of `const NAME: u32 = Vu;` in the kernel.
fn constant(wgsl: &str, name: &str) -> Option<u32> {
    let at = wgsl.find(&format!("const {name}: u32 = "))?;
    let rest = &wgsl[at..];
    let v = rest.split('=').nth(1)?.split(';').next()?.trim();
    v.trim_end_matches('u').parse().ok()
}

/// Runs the kernel as a `size`^3 GEMM: returns the median time of 20 dispatches, TFLOP/s and
/// the largest error of 256 sampled entries against the CPU.
pub fn time(vk: &Vk, built: &Built, wgsl: &str, size: u32) -> Result<String, String> {
    let (bm, bn) = (
        constant(wgsl, "BM").ok_or("no BM")?,
        constant(wgsl, "BN").ok_or("no BN")?,
    );
    time_tiles(vk, built, (bm, bn), wgsl.contains("CC: array<f32>"), size)
}

/// [`time`] for a kernel of `bm` x `bn` output tiles per workgroup (grid x over N, y over
/// M) whose C is float32 when `c_f32`, else float16.
pub fn time_tiles(
    vk: &Vk,
    built: &Built,
    (bm, bn): (u32, u32),
    c_f32: bool,
    size: u32,
) -> Result<String, String> {
    let n = size as usize;
    let mut seed = 0x2545_f491_u32;
    let mut rand = || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        f16::from_f32((seed % 2001) as f32 / 1000.0 - 1.0)
    };
    let a: Vec<f16> = (0..n * n).map(|_| rand()).collect();
    let b: Vec<f16> = (0..n * n).map(|_| rand()).collect();
    let ab_bytes = (n * n * 2) as u64;
    let c_bytes = (n * n * if c_f32 { 4 } else { 2 }) as u64;
    let reps = 20u32;
    unsafe {
        let d = &vk.device;
        let st = vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::TRANSFER_DST
            | vk::BufferUsageFlags::TRANSFER_SRC;
        let ga = buffer(vk, ab_bytes, st, false)?;
        let gb = buffer(vk, ab_bytes, st, false)?;
        let gc = buffer(vk, c_bytes, st, false)?;
        let staging = buffer(
            vk,
            2 * ab_bytes + c_bytes,
            vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST,
            true,
        )?;
        let uni = buffer(vk, 256, vk::BufferUsageFlags::UNIFORM_BUFFER, true)?;
        let map = d
            .map_memory(staging.mem, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
            .map_err(|e| format!("map: {e:?}"))? as *mut u8;
        std::ptr::copy_nonoverlapping(a.as_ptr().cast::<u8>(), map, ab_bytes as usize);
        std::ptr::copy_nonoverlapping(
            b.as_ptr().cast::<u8>(),
            map.add(ab_bytes as usize),
            ab_bytes as usize,
        );
        // Params: m n k batch oa ob | sam sak sbk sbn | zero z0 | bd | ba | bb.
        let mut params = [0u32; 24];
        params[..4].copy_from_slice(&[size, size, size, 1]);
        params[6..10].copy_from_slice(&[size, 1, size, 1]);
        params[12..16].copy_from_slice(&[1, 1, 1, 1]);
        let umap = d
            .map_memory(uni.mem, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
            .map_err(|e| format!("map: {e:?}"))? as *mut u32;
        std::ptr::copy_nonoverlapping(params.as_ptr(), umap, params.len());

        let sizes = [
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::STORAGE_BUFFER,
                descriptor_count: 8,
            },
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::UNIFORM_BUFFER,
                descriptor_count: 2,
            },
        ];
        let pool = d
            .create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default()
                    .max_sets(1)
                    .pool_sizes(&sizes),
                None,
            )
            .map_err(|e| format!("pool: {e:?}"))?;
        let layouts = [built.dsl];
        let set = d
            .allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(pool)
                    .set_layouts(&layouts),
            )
            .map_err(|e| format!("set: {e:?}"))?[0];
        let infos: Vec<[vk::DescriptorBufferInfo; 1]> = built
            .bindings
            .iter()
            .map(|&(binding, _)| {
                let buf = match binding {
                    0 => uni.buf,
                    1 => ga.buf,
                    2 => gb.buf,
                    _ => gc.buf,
                };
                [vk::DescriptorBufferInfo {
                    buffer: buf,
                    offset: 0,
                    range: vk::WHOLE_SIZE,
                }]
            })
            .collect();
        let writes: Vec<vk::WriteDescriptorSet> = built
            .bindings
            .iter()
            .zip(&infos)
            .map(|(&(binding, ty), info)| {
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(binding)
                    .descriptor_type(ty)
                    .buffer_info(info)
            })
            .collect();
        d.update_descriptor_sets(&writes, &[]);

        let qp = d
            .create_query_pool(
                &vk::QueryPoolCreateInfo::default()
                    .query_type(vk::QueryType::TIMESTAMP)
                    .query_count(2 * reps),
                None,
            )
            .map_err(|e| format!("queries: {e:?}"))?;
        let cpool = d
            .create_command_pool(
                &vk::CommandPoolCreateInfo::default().queue_family_index(0),
                None,
            )
            .map_err(|e| format!("command pool: {e:?}"))?;
        let cb = d
            .allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(cpool)
                    .command_buffer_count(1),
            )
            .map_err(|e| format!("command buffer: {e:?}"))?[0];
        d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .map_err(|e| format!("begin: {e:?}"))?;
        d.cmd_reset_query_pool(cb, qp, 0, 2 * reps);
        d.cmd_copy_buffer(
            cb,
            staging.buf,
            ga.buf,
            &[vk::BufferCopy {
                src_offset: 0,
                dst_offset: 0,
                size: ab_bytes,
            }],
        );
        d.cmd_copy_buffer(
            cb,
            staging.buf,
            gb.buf,
            &[vk::BufferCopy {
                src_offset: ab_bytes,
                dst_offset: 0,
                size: ab_bytes,
            }],
        );
        let barrier = [vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::TRANSFER_WRITE | vk::AccessFlags::SHADER_WRITE)
            .dst_access_mask(
                vk::AccessFlags::SHADER_READ
                    | vk::AccessFlags::SHADER_WRITE
                    | vk::AccessFlags::TRANSFER_READ,
            )];
        let all = vk::PipelineStageFlags::TRANSFER | vk::PipelineStageFlags::COMPUTE_SHADER;
        // Every earlier transfer and dispatch done (and its writes visible) before what follows.
        let sync = || {
            d.cmd_pipeline_barrier(
                cb,
                all,
                all,
                vk::DependencyFlags::empty(),
                &barrier,
                &[],
                &[],
            )
        };
        sync();
        d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, built.pipeline);
        d.cmd_bind_descriptor_sets(
            cb,
            vk::PipelineBindPoint::COMPUTE,
            built.layout,
            0,
            &[set],
            &[],
        );
        // Untimed runs first: after the idle gap of a compilation the H100's driver leaves the
        // clock low until ~0.4 s of sustained work (DESIGN.md, performance model).
        let warm: u32 = std::env::var("WARM")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(300);
        for _ in 0..warm {
            d.cmd_dispatch(cb, size.div_ceil(bn), size.div_ceil(bm), 1);
            sync();
        }
        for r in 0..reps {
            // After the barrier, so that the start is stamped once the previous dispatch is done.
            d.cmd_write_timestamp(cb, vk::PipelineStageFlags::BOTTOM_OF_PIPE, qp, 2 * r);
            d.cmd_dispatch(cb, size.div_ceil(bn), size.div_ceil(bm), 1);
            d.cmd_write_timestamp(cb, vk::PipelineStageFlags::BOTTOM_OF_PIPE, qp, 2 * r + 1);
            sync();
        }
        d.cmd_copy_buffer(
            cb,
            gc.buf,
            staging.buf,
            &[vk::BufferCopy {
                src_offset: 0,
                dst_offset: 2 * ab_bytes,
                size: c_bytes,
            }],
        );
        d.end_command_buffer(cb)
            .map_err(|e| format!("end: {e:?}"))?;
        let fence = d
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .map_err(|e| format!("fence: {e:?}"))?;
        let cbs = [cb];
        d.queue_submit(
            vk.queue,
            &[vk::SubmitInfo::default().command_buffers(&cbs)],
            fence,
        )
        .map_err(|e| format!("submit: {e:?}"))?;
        d.wait_for_fences(&[fence], true, u64::MAX)
            .map_err(|e| format!("wait: {e:?}"))?;
        let mut stamps = vec![0u64; 2 * reps as usize];
        d.get_query_pool_results(
            qp,
            0,
            &mut stamps,
            vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
        )
        .map_err(|e| format!("queries: {e:?}"))?;
        let mut ms: Vec<f64> = stamps
            .chunks(2)
            .map(|t| t[1].saturating_sub(t[0]) as f64 * vk.tick_ns / 1e6)
            .collect();
        ms.sort_by(f64::total_cmp);
        let median = ms[ms.len() / 2];
        let cmap = map.add(2 * ab_bytes as usize);
        let c_at = |i: usize| -> f32 {
            if c_f32 {
                *(cmap as *const f32).add(i)
            } else {
                (*(cmap as *const f16).add(i)).to_f32()
            }
        };
        let mut worst = 0f32;
        for s in 0..256usize {
            let (i, j) = ((s * 7919 + 13) % n, (s * 104_729 + 7) % n);
            let want: f32 = (0..n)
                .map(|k| a[i * n + k].to_f32() * b[k * n + j].to_f32())
                .sum();
            worst = worst.max((c_at(i * n + j) - want).abs());
        }
        let tflops = 2.0 * (n as f64).powi(3) / (median * 1e-3) / 1e12;
        let min = ms[0];
        d.destroy_fence(fence, None);
        d.destroy_command_pool(cpool, None);
        d.destroy_query_pool(qp, None);
        d.destroy_descriptor_pool(pool, None);
        for b in [ga, gb, gc, staging, uni] {
            d.destroy_buffer(b.buf, None);
            d.free_memory(b.mem, None);
        }
        Ok(format!(
            "{size}^3 median {median:.4} ms (min {min:.4}) {tflops:.1} TFLOP/s, max |err| {worst:.3} over 256 entries"
        ))
    }
}
