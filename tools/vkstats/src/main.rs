//! Compiles kupfer's tensor-core matmul kernels on the Vulkan driver with pipeline statistics
//! captured (VK_KHR_pipeline_executable_properties) and prints what the driver reports for
//! each: on NVIDIA registers per thread, local memory (spills; the value's low 32 bits),
//! shared memory and binary size. For kernel development on a real GPU; not part of the
//! workspace (it links ash directly).
//!
//! ```text
//! cd tools/vkstats && cargo run --release -- 2,2,4,4,32,1 4,2,4,4,32,1   # wm,wn,fm,fn,bk,stages
//! cargo run --release -- file:kernel.wgsl                               # any WGSL module
//! PRINT=1 cargo run --release -- 2,2,4,4,32,1                           # the WGSL only (no GPU)
//! CHECK=1 PRINT=1 cargo run --release -- file:kernel.wgsl                # validate and write SPIR-V only
//! ```
//!
//! `spv:PATH:BM:BN` builds (and with `TIME` times) a SPIR-V GEMM kernel written outside WGSL
//! with the same bindings, e.g. `cm2/gemm_cm2.comp` (VK_NV_cooperative_matrix2, enabled
//! where the driver has it), compiled by glslang 15 or later:
//! `glslang -V --target-env vulkan1.3 -DBM=128 -DBN=128 -DBK=32 -DWG=128 cm2/gemm_cm2.comp`.
//!
//! `TIME=4096` also runs each matmul kernel (kupfer's bindings: uniform block, A, B, C) as a
//! float16 4096^3 GEMM, prints the median of 20 dispatches (after `WARM`, default 300, untimed ones) and checks 256 entries against the
//! CPU (`gemm.rs`). `KUPFER_DUMP_WGSL=dir` makes kupfer write every kernel it compiles, so
//! `file:dir/*.wgsl` gives the statistics of any kernel family. `BARSEM0=1` (experiment)
//! strips the memory semantics of every barrier. `WGSL_OUT=dir` also writes each kernel's WGSL there. The SPIR-V is written with the options
//! kupfer's trusted kernels get from wgpu (SPIR-V 1.6, no bounds checks, no workgroup-memory
//! zeroing), so the statistics are those of the pipelines kupfer runs.
use ash::vk;
use kupfer_core::matmul::{generate, CoopConfig, Load, MatmulKernel, MatmulProgram};
use kupfer_core::DType;
use std::ffi::CStr;

fn spirv(wgsl: &str) -> Result<(Vec<u32>, naga::Module), String> {
    let module = naga::front::wgsl::parse_str(wgsl).map_err(|e| e.emit_to_string(wgsl))?;
    // Without the uniformity analysis: subgroup-uniform branches around cooperative-matrix
    // operations (warp-specialised kernels) are valid SPIR-V that naga's workgroup-level
    // analysis refuses.
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all() - naga::valid::ValidationFlags::CONTROL_FLOW_UNIFORMITY,
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| e.emit_to_string(wgsl))?;
    let mut caps = naga::FastHashSet::default();
    use naga::back::spv::Capability as C;
    for c in [
        C::Shader,
        C::Float16,
        C::Int16,
        C::Int64,
        C::Float64,
        C::StorageBuffer16BitAccess,
        C::UniformAndStorageBuffer16BitAccess,
        C::CooperativeMatrixKHR,
        C::VulkanMemoryModel,
        C::GroupNonUniform,
        C::GroupNonUniformBallot,
        C::GroupNonUniformShuffle,
        C::GroupNonUniformArithmetic,
    ] {
        caps.insert(c);
    }
    let opts = naga::back::spv::Options {
        lang_version: (1, 6),
        flags: naga::back::spv::WriterFlags::empty(),
        capabilities: Some(caps),
        bounds_check_policies: naga::proc::BoundsCheckPolicies {
            index: naga::proc::BoundsCheckPolicy::Unchecked,
            buffer: naga::proc::BoundsCheckPolicy::Unchecked,
            image_load: naga::proc::BoundsCheckPolicy::Unchecked,
            binding_array: naga::proc::BoundsCheckPolicy::Unchecked,
        },
        zero_initialize_workgroup_memory: naga::back::spv::ZeroInitializeWorkgroupMemoryMode::None,
        force_loop_bounding: false,
        ..Default::default()
    };
    let mut words =
        naga::back::spv::write_vec(&module, &info, &opts, None).map_err(|e| e.to_string())?;
    if std::env::var_os("BARSEM0").is_some() {
        let n = barriers_without_memory_semantics(&mut words);
        eprintln!("BARSEM0: {n} barrier semantics constants set to None");
    }
    Ok((words, module))
}

/// Experiment: sets the memory-semantics constants of every OpControlBarrier to 0 (an
/// execution-only barrier). Returns how many constants changed.
fn barriers_without_memory_semantics(words: &mut [u32]) -> usize {
    let mut sem_ids = std::collections::HashSet::new();
    let mut i = 5;
    while i < words.len() {
        let (len, op) = ((words[i] >> 16) as usize, words[i] & 0xffff);
        if op == 224 && len == 4 {
            sem_ids.insert(words[i + 3]);
        }
        i += len.max(1);
    }
    let mut changed = 0;
    let mut i = 5;
    while i < words.len() {
        let (len, op) = ((words[i] >> 16) as usize, words[i] & 0xffff);
        // OpConstant: type, result id, value
        if op == 43 && len == 4 && sem_ids.contains(&words[i + 2]) {
            words[i + 3] = 0;
            changed += 1;
        }
        i += len.max(1);
    }
    changed
}

/// `VK_NV_cooperative_matrix2`, which ash 0.38 predates.
const COOP2_NAME: &CStr = c"VK_NV_cooperative_matrix2";

/// `VkPhysicalDeviceCooperativeMatrix2FeaturesNV`.
#[repr(C)]
#[derive(Debug)]
struct Coop2Features {
    s_type: vk::StructureType,
    p_next: *mut std::ffi::c_void,
    /// workgroup scope, flexible dimensions, reductions, conversions, per-element
    /// operations, tensor addressing, block loads.
    flags: [vk::Bool32; 7],
}

impl Default for Coop2Features {
    fn default() -> Self {
        Coop2Features {
            s_type: vk::StructureType::from_raw(1_000_593_000),
            p_next: std::ptr::null_mut(),
            flags: [0; 7],
        }
    }
}

pub struct Vk {
    /// The loader, kept loaded while its instance is used.
    _entry: ash::Entry,
    pub instance: ash::Instance,
    pub pd: vk::PhysicalDevice,
    pub device: ash::Device,
    pub queue: vk::Queue,
    /// Nanoseconds per timestamp tick.
    pub tick_ns: f64,
    /// Whether the driver reports pipeline statistics.
    has_stats: bool,
    exec: ash::khr::pipeline_executable_properties::Device,
}

/// A compute pipeline and the layout objects it was built with.
pub struct Built {
    pub pipeline: vk::Pipeline,
    pub layout: vk::PipelineLayout,
    pub dsl: vk::DescriptorSetLayout,
    /// (binding, descriptor type) of every resource the module declares.
    pub bindings: Vec<(u32, vk::DescriptorType)>,
}

mod gemm;

fn open() -> Vk {
    unsafe {
        let entry = ash::Entry::load().expect("vulkan loader");
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
        let instance = entry
            .create_instance(
                &vk::InstanceCreateInfo::default().application_info(&app),
                None,
            )
            .expect("instance");
        let pds = instance.enumerate_physical_devices().expect("devices");
        let pd = *pds
            .iter()
            .find(|&&p| instance.get_physical_device_properties(p).vendor_id == 0x10de)
            .unwrap_or(&pds[0]);
        let props = instance.get_physical_device_properties(pd);
        eprintln!("device {:?}", CStr::from_ptr(props.device_name.as_ptr()));
        let available = instance
            .enumerate_device_extension_properties(pd)
            .unwrap_or_default();
        let has = |name: &CStr| {
            available
                .iter()
                .any(|e| e.extension_name_as_c_str() == Ok(name))
        };
        let has_coop = has(ash::khr::cooperative_matrix::NAME);
        let has_coop2 = has(COOP2_NAME);
        let has_stats = has(ash::khr::pipeline_executable_properties::NAME);
        let mut exts = Vec::new();
        for (name, present) in [
            (ash::khr::pipeline_executable_properties::NAME, has_stats),
            (ash::khr::cooperative_matrix::NAME, has_coop),
            (COOP2_NAME, has_coop2),
        ] {
            if present {
                exts.push(name.as_ptr());
            } else {
                eprintln!("no {name:?}");
            }
        }
        let prio = [1.0f32];
        let q = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(0)
            .queue_priorities(&prio)];
        let mut f11 = vk::PhysicalDeviceVulkan11Features::default()
            .storage_buffer16_bit_access(true)
            .uniform_and_storage_buffer16_bit_access(true);
        let mut f12 = vk::PhysicalDeviceVulkan12Features::default()
            .shader_float16(true)
            .shader_int8(true)
            .storage_buffer8_bit_access(true)
            .uniform_and_storage_buffer8_bit_access(true)
            .vulkan_memory_model(true)
            .vulkan_memory_model_device_scope(true);
        let mut f13 = vk::PhysicalDeviceVulkan13Features::default().subgroup_size_control(true);
        let mut coop =
            vk::PhysicalDeviceCooperativeMatrixFeaturesKHR::default().cooperative_matrix(has_coop);
        let mut pe = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
            .pipeline_executable_info(has_stats);
        let base = vk::PhysicalDeviceFeatures::default()
            .shader_int64(true)
            .shader_float64(instance.get_physical_device_features(pd).shader_float64 != 0)
            .shader_int16(true);
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&q)
            .enabled_extension_names(&exts)
            .enabled_features(&base)
            .push_next(&mut f11)
            .push_next(&mut f12)
            .push_next(&mut f13)
            .push_next(&mut coop)
            .push_next(&mut pe);
        // VK_NV_cooperative_matrix2's features (not in ash 0.38): whatever the driver has.
        let mut coop2 = Coop2Features::default();
        let mut info = info;
        if has_coop2 {
            let mut f2 = vk::PhysicalDeviceFeatures2 {
                p_next: (&mut coop2 as *mut Coop2Features).cast(),
                ..Default::default()
            };
            instance.get_physical_device_features2(pd, &mut f2);
            coop2.p_next = info.p_next as *mut std::ffi::c_void;
            info.p_next = (&coop2 as *const Coop2Features).cast();
            eprintln!("VK_NV_cooperative_matrix2 features {:?}", coop2.flags);
        }
        let device = instance.create_device(pd, &info, None).expect("device");
        let exec = ash::khr::pipeline_executable_properties::Device::new(&instance, &device);
        let queue = device.get_device_queue(0, 0);
        let tick_ns = props.limits.timestamp_period as f64;
        Vk {
            _entry: entry,
            instance,
            pd,
            device,
            queue,
            tick_ns,
            has_stats,
            exec,
        }
    }
}

/// Compiles `wgsl` into a compute pipeline with statistics captured.
fn build(vk: &Vk, wgsl: &str) -> Result<Built, String> {
    let (words, module) = spirv(wgsl)?;
    let mut bindings = Vec::new();
    for (_, g) in module.global_variables.iter() {
        if let Some(b) = &g.binding {
            let ty = match g.space {
                naga::AddressSpace::Uniform => vk::DescriptorType::UNIFORM_BUFFER,
                naga::AddressSpace::Storage { .. } => vk::DescriptorType::STORAGE_BUFFER,
                _ => continue,
            };
            bindings.push((b.binding, ty));
        }
    }
    build_words(vk, &words, bindings)
}

/// Builds a SPIR-V module with `bindings` ((binding, type) in set 0) into a compute pipeline
/// with statistics captured.
fn build_words(
    vk: &Vk,
    words: &[u32],
    bindings: Vec<(u32, vk::DescriptorType)>,
) -> Result<Built, String> {
    unsafe {
        let d = &vk.device;
        let sm = d
            .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(words), None)
            .map_err(|e| format!("module: {e:?}"))?;
        let layout_bindings: Vec<_> = bindings
            .iter()
            .map(|&(binding, ty)| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(binding)
                    .descriptor_type(ty)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        let dsl = d
            .create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&layout_bindings),
                None,
            )
            .map_err(|e| format!("set layout: {e:?}"))?;
        let layouts = [dsl];
        let layout = d
            .create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default().set_layouts(&layouts),
                None,
            )
            .map_err(|e| format!("pipeline layout: {e:?}"))?;
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(sm)
            .name(c"main");
        let ci = [vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(layout)
            .flags(if vk.has_stats {
                vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR
                    | vk::PipelineCreateFlags::CAPTURE_INTERNAL_REPRESENTATIONS_KHR
            } else {
                vk::PipelineCreateFlags::empty()
            })];
        let pipeline = d
            .create_compute_pipelines(vk::PipelineCache::null(), &ci, None)
            .map_err(|(_, e)| format!("pipeline failed: {e:?}"))?[0];
        Ok(Built {
            pipeline,
            layout,
            dsl,
            bindings,
        })
    }
}

/// Prints the driver's statistics of a built pipeline (and with `dump` its internal
/// representations' sizes; `OUT=dir` writes them).
fn stats(vk: &Vk, name: &str, built: &Built, dump: bool) {
    let p = built.pipeline;
    if !vk.has_stats {
        return;
    }
    unsafe {
        let pinfo = vk::PipelineInfoKHR::default().pipeline(p);
        let execs = vk
            .exec
            .get_pipeline_executable_properties(&pinfo)
            .unwrap_or_default();
        for (i, _) in execs.iter().enumerate() {
            let ei = vk::PipelineExecutableInfoKHR::default()
                .pipeline(p)
                .executable_index(i as u32);
            let st = vk
                .exec
                .get_pipeline_executable_statistics(&ei)
                .unwrap_or_default();
            let mut line = format!("{name}:");
            for s in &st {
                let v = match s.format {
                    vk::PipelineExecutableStatisticFormatKHR::BOOL32 => s.value.b32 as u64,
                    vk::PipelineExecutableStatisticFormatKHR::INT64 => s.value.i64 as u64,
                    vk::PipelineExecutableStatisticFormatKHR::UINT64 => s.value.u64,
                    _ => s.value.f64 as u64,
                };
                line += &format!(" {}={v}", CStr::from_ptr(s.name.as_ptr()).to_string_lossy());
            }
            println!("{line}");
            if dump {
                let reps = vk
                    .exec
                    .get_pipeline_executable_internal_representations(&ei)
                    .unwrap_or_default();
                let mut bufs: Vec<Vec<u8>> = reps.iter().map(|r| vec![0u8; r.data_size]).collect();
                let mut reps: Vec<_> = reps
                    .iter()
                    .zip(bufs.iter_mut())
                    .map(|(r, b)| vk::PipelineExecutableInternalRepresentationKHR {
                        data_size: r.data_size,
                        p_data: b.as_mut_ptr().cast(),
                        ..Default::default()
                    })
                    .collect();
                let mut count = reps.len() as u32;
                let _ = (vk
                    .exec
                    .fp()
                    .get_pipeline_executable_internal_representations_khr)(
                    vk.device.handle(),
                    &ei,
                    &mut count,
                    reps.as_mut_ptr(),
                );
                for (r, b) in reps.iter().zip(&bufs) {
                    let rn = CStr::from_ptr(r.name.as_ptr())
                        .to_string_lossy()
                        .to_string();
                    println!("  rep {rn} text={} {} bytes", r.is_text, b.len());
                    if let Ok(out) = std::env::var("WGSL_OUT") {
                        let f = format!("{out}/{name}_{}.txt", rn.replace(' ', "_"));
                        let _ = std::fs::write(f, b);
                    }
                }
            }
        }
    }
}

/// The float16 tensor-core kernel (operands read 8 at a time) of the configuration
/// `wm,wn,fm,fn,bk,stages` in `arg`.
fn coop_kernel(arg: &str) -> Result<String, String> {
    let numbers: Vec<u32> = arg
        .split(',')
        .map(|x| x.trim().parse().ok())
        .collect::<Option<_>>()
        .ok_or_else(|| format!("bad config {arg}"))?;
    let numbers: [u32; 6] = numbers
        .try_into()
        .map_err(|_| format!("bad config {arg}: six numbers wm,wn,fm,fn,bk,stages"))?;
    let program = MatmulProgram {
        a: DType::F16,
        b: DType::F16,
        out: DType::F16,
        kernel: MatmulKernel::Coop {
            cfg: CoopConfig::from_numbers(numbers, 32),
            f16_acc: false,
            a: Load::Vec8K,
            b: Load::Vec8Outer,
        },
        epilogue: None,
        update: None,
    };
    let target = kupfer_core::codegen::Target {
        f16: true,
        f64: true,
        i64: true,
    };
    generate(&program, &target).map_err(|e| format!("{arg}: {e}"))
}

/// `spv:PATH:BM:BN[:f32]`: a SPIR-V GEMM kernel with kupfer's bindings (uniform block, A, B,
/// C at 0-3; float16 C unless `f32`) and `BM` x `BN` output tiles per workgroup, built and,
/// with `TIME`, timed (an experiment beside the WGSL path: kernels written outside WGSL).
fn spv_kernel(vk: Option<&Vk>, spec: &str, time_size: Option<u32>) {
    let parts: Vec<&str> = spec.split(':').collect();
    let (Some(path), Some(bm), Some(bn)) = (
        parts.first(),
        parts.get(1).and_then(|v| v.parse::<u32>().ok()),
        parts.get(2).and_then(|v| v.parse::<u32>().ok()),
    ) else {
        println!("spv:{spec}: expected spv:PATH:BM:BN[:f32]");
        return;
    };
    let c_f32 = parts.get(3) == Some(&"f32");
    let name = path.rsplit('/').next().unwrap_or(path);
    let bytes = match std::fs::read(path) {
        Ok(b) if b.len() % 4 == 0 => b,
        Ok(_) => return println!("{name}: not whole SPIR-V words"),
        Err(e) => return println!("{name}: {e}"),
    };
    let words: Vec<u32> = bytes
        .chunks(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let Some(vk) = vk else {
        return println!("{name}: {} words (no device with PRINT)", words.len());
    };
    let bindings = vec![
        (0, vk::DescriptorType::UNIFORM_BUFFER),
        (1, vk::DescriptorType::STORAGE_BUFFER),
        (2, vk::DescriptorType::STORAGE_BUFFER),
        (3, vk::DescriptorType::STORAGE_BUFFER),
    ];
    match build_words(vk, &words, bindings) {
        Ok(built) => {
            stats(vk, name, &built, false);
            if let Some(size) = time_size {
                match gemm::time_tiles(vk, &built, (bm, bn), c_f32, size) {
                    Ok(line) => println!("{name}: {line}"),
                    Err(e) => println!("{name}: timing failed: {e}"),
                }
            }
        }
        Err(e) => println!("{name}: {e}"),
    }
}

fn main() {
    let print_only = std::env::var_os("PRINT").is_some();
    let vk = (!print_only).then(open);
    let dump = std::env::var_os("DUMP").is_some();
    let time_size: Option<u32> = std::env::var("TIME").ok().and_then(|v| v.parse().ok());
    for arg in std::env::args().skip(1) {
        if let Some(spec) = arg.strip_prefix("spv:") {
            spv_kernel(vk.as_ref(), spec, time_size);
            continue;
        }
        let (name, wgsl) = match arg.strip_prefix("file:") {
            Some(path) => match std::fs::read_to_string(path) {
                Ok(w) => (path.rsplit('/').next().unwrap_or(path).to_string(), w),
                Err(e) => {
                    println!("{path}: {e}");
                    continue;
                }
            },
            None => match coop_kernel(&arg) {
                Ok(w) => (format!("coop_{}", arg.replace(',', "_")), w),
                Err(e) => {
                    println!("{e}");
                    continue;
                }
            },
        };
        if let Ok(out) = std::env::var("WGSL_OUT") {
            let _ = std::fs::write(format!("{out}/{name}.wgsl"), &wgsl);
        }
        let Some(vk) = &vk else {
            if std::env::var_os("CHECK").is_some() {
                match spirv(&wgsl) {
                    Ok(_) => println!("{name}: valid"),
                    Err(e) => println!("{name}: {e}"),
                }
                continue;
            }
            println!("{wgsl}");
            continue;
        };
        match build(vk, &wgsl) {
            Ok(built) => {
                stats(vk, &name, &built, dump);
                if let Some(size) = time_size {
                    match gemm::time(vk, &built, &wgsl, size) {
                        Ok(line) => println!("{name}: {line}"),
                        Err(e) => println!("{name}: timing failed: {e}"),
                    }
                }
            }
            Err(e) => println!("{name}: {e}"),
        }
    }
}
