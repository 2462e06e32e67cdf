//! Adapter selection and the device context.

use crate::batch::Batch;
use crate::pipeline::PipelineCache;
use crate::pool::MemoryPool;
use kupfer_core::codegen::Target;
use kupfer_core::{Error, Result};
use std::sync::{Arc, Mutex};

use crate::config::RuntimeConfig;

/// How to pick an adapter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum AdapterChoice {
    /// [`RuntimeConfig::adapter`] (`KUPFER_ADAPTER`), else the high-performance adapter.
    #[default]
    Default,
    /// The n-th adapter of [`Context::adapters`].
    Index(usize),
    /// The first adapter whose name contains this (case-insensitive).
    Name(String),
}

/// Device properties, as `cupy.cuda.runtime.getDeviceProperties` gives them.
#[derive(Debug, Clone)]
pub struct DeviceInfo {
    /// Adapter name ("NVIDIA H100 80GB HBM3", "llvmpipe (LLVM 15.0.6, 256 bits)").
    pub name: String,
    /// Backend ("vulkan", "metal", "dx12", "gl", "webgpu").
    pub backend: String,
    /// Driver name and version.
    pub driver: String,
    /// Discrete, integrated, virtual, CPU, other.
    pub device_type: String,
    /// PCI vendor id.
    pub vendor: u32,
    /// Features of the device (requested: everything kupfer can use).
    pub features: wgpu::Features,
    /// Limits of the device (requested: the adapter's own).
    pub limits: wgpu::Limits,
    /// Smallest and largest subgroup size of the adapter (0 where it does not say).
    pub subgroup_sizes: (u32, u32),
}

impl DeviceInfo {
    fn new(info: &wgpu::AdapterInfo, features: wgpu::Features, limits: wgpu::Limits) -> Self {
        DeviceInfo {
            name: info.name.clone(),
            backend: info.backend.to_str().to_string(),
            driver: format!("{} {}", info.driver, info.driver_info)
                .trim()
                .to_string(),
            device_type: format!("{:?}", info.device_type),
            vendor: info.vendor,
            features,
            limits,
            subgroup_sizes: (info.subgroup_min_size, info.subgroup_max_size),
        }
    }
}

/// Features kupfer requests when the adapter has them.
pub fn wanted_features() -> wgpu::Features {
    wgpu::Features::SHADER_F16
        | wgpu::Features::SHADER_F64
        | wgpu::Features::SHADER_INT64
        | wgpu::Features::TIMESTAMP_QUERY
        | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS
        | wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES
        | wgpu::Features::PIPELINE_CACHE
        | wgpu::Features::SUBGROUP
        | wgpu::Features::IMMEDIATES
        | wgpu::Features::MAPPABLE_PRIMARY_BUFFERS
}

pub(crate) struct Inner {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: DeviceInfo,
    pub target: Target,
    pub pool: MemoryPool,
    pub batch: Mutex<Batch>,
    pub pipelines: PipelineCache,
    pub staging: crate::transfer::Staging,
    /// Kernel compilations not yet known to have succeeded (the browser reports shader errors
    /// asynchronously): awaited before the next read-back, which fails with their message.
    #[cfg(target_arch = "wasm32")]
    pub compile_checks: Mutex<Vec<crate::pipeline::CompileCheck>>,
    /// Kernel launches recorded so far.
    pub dispatches: std::sync::atomic::AtomicU64,
    pub coop: Option<CoopMatrix>,
    /// Host time of each round-trip stage (wait.rs).
    pub spans: crate::wait::Spans,
    /// The uniform blocks of a batch's kernels, rewritten at each submission (batch.rs).
    pub params_arena: Mutex<Option<wgpu::Buffer>>,
    /// How long waits spin before blocking, in nanoseconds (wait.rs): zero on a software
    /// adapter, whose "GPU" runs on the host's cores.
    pub spin_ns: std::sync::atomic::AtomicU64,
    /// The settings the context was opened with.
    pub config: RuntimeConfig,
    /// Largest parameter block passed as immediates (0: every block goes through the
    /// uniform arena). Only where immediates are native (Vulkan, Metal, DX12; GL emulates
    /// them with uniforms) and [`RuntimeConfig::immediates`] is on.
    pub immediate_bytes: u32,
    /// Small results meant for the host live in host-mappable buffers, read back without a
    /// copy ([`RuntimeConfig::direct_reads`] on a device with MAPPABLE_PRIMARY_BUFFERS; never
    /// in the browser).
    pub direct_reads: bool,
    /// The read-only tables kernels share, by binding number (tables.rs).
    pub shared_tables: Mutex<std::collections::HashMap<u32, wgpu::Buffer>>,
    /// The per-dispatch profile (profile.rs), made when profiling is first turned on.
    pub profiler: std::sync::OnceLock<crate::profile::Profiler>,
}

/// Cooperative-matrix (tensor core) support of a device, as matmul uses it: 16x16x16 products
/// of f16 matrices into f32 (and f16) accumulators, run by subgroups of a fixed size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoopMatrix {
    /// The adapter's (fixed) subgroup size.
    pub subgroup_size: u32,
    /// f16 x f16 + f16 is available too (not only f32 accumulators).
    pub f16_acc: bool,
}

/// A GPU device with its queue, memory pool, pipeline cache and pending command batch.
/// Cheap to clone (an `Arc`).
#[derive(Clone)]
pub struct Context {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Context({} on {})",
            self.inner.info.name, self.inner.info.backend
        )
    }
}

const NO_ADAPTER_HELP: &str = "no GPU adapter was found. kupfer needs a Vulkan, Metal, DX12 or \
     GL driver; on Linux without a GPU install Mesa's software Vulkan driver \
     (`apt-get install mesa-vulkan-drivers`), or set KUPFER_BACKEND / KUPFER_ADAPTER \
     (see `kupfer info`)";

fn instance(backends: wgpu::Backends) -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    desc.backends = backends;
    wgpu::Instance::new(desc)
}

impl Context {
    /// Every adapter the backends of [`RuntimeConfig::from_env`] (`KUPFER_BACKEND`, or all)
    /// expose, in index order.
    #[cfg(not(target_arch = "wasm32"))]
    pub async fn adapters() -> Result<Vec<wgpu::Adapter>> {
        let backends = RuntimeConfig::from_env()?.backends;
        Ok(instance(backends).enumerate_adapters(backends).await)
    }

    /// Opens a device on the chosen adapter, configured by [`RuntimeConfig::from_env`].
    pub async fn new(choice: AdapterChoice) -> Result<Context> {
        Self::with_config(choice, RuntimeConfig::from_env()?).await
    }

    /// Opens a device on the chosen adapter ([`AdapterChoice::Default`]: `config.adapter`),
    /// configured by `config`.
    pub async fn with_config(choice: AdapterChoice, config: RuntimeConfig) -> Result<Context> {
        let adapter = Self::pick_adapter(choice, &config).await?;
        Self::from_adapter_with(adapter, config).await
    }

    async fn pick_adapter(choice: AdapterChoice, config: &RuntimeConfig) -> Result<wgpu::Adapter> {
        let backends = config.backends;
        let choice = match choice {
            AdapterChoice::Default => config.adapter.clone(),
            c => c,
        };
        let inst = instance(backends);
        match choice {
            AdapterChoice::Default => inst
                .request_adapter(&wgpu::RequestAdapterOptions {
                    power_preference: wgpu::PowerPreference::HighPerformance,
                    force_fallback_adapter: false,
                    compatible_surface: None,
                    apply_limit_buckets: false,
                })
                .await
                .map_err(|e| Error::NoAdapter(format!("{NO_ADAPTER_HELP} ({e})"))),
            #[cfg(not(target_arch = "wasm32"))]
            AdapterChoice::Index(i) => {
                let all = inst.enumerate_adapters(backends).await;
                let n = all.len();
                all.into_iter().nth(i).ok_or_else(|| {
                    Error::NoAdapter(format!(
                        "adapter index {i} out of range: {n} adapter(s) found"
                    ))
                })
            }
            #[cfg(not(target_arch = "wasm32"))]
            AdapterChoice::Name(name) => {
                let all = inst.enumerate_adapters(backends).await;
                let needle = name.to_lowercase();
                let names: Vec<String> = all.iter().map(|a| a.get_info().name).collect();
                all.into_iter()
                    .find(|a| a.get_info().name.to_lowercase().contains(&needle))
                    .ok_or_else(|| {
                        Error::NoAdapter(format!(
                            "no adapter name contains '{name}' (found: {names:?})"
                        ))
                    })
            }
            #[cfg(target_arch = "wasm32")]
            _ => Err(Error::unsupported(
                "choosing an adapter by index or name in the browser",
            )),
        }
    }

    /// Opens a device on `adapter` with every feature kupfer can use and the adapter's limits.
    ///
    /// Tensor cores: where the adapter has EXPERIMENTAL_COOPERATIVE_MATRIX with 16x16x16 f16
    /// products into f32, a fixed subgroup size and SHADER_F16, the device is requested with
    /// wgpu's experimental features enabled (matmul's cooperative-matrix kernels need them).
    /// [`RuntimeConfig::cooperative_matrix`] (`KUPFER_COOP=0`) turns this off. Configured by
    /// [`RuntimeConfig::from_env`].
    pub async fn from_adapter(adapter: wgpu::Adapter) -> Result<Context> {
        Self::from_adapter_with(adapter, RuntimeConfig::from_env()?).await
    }

    /// [`Context::from_adapter`] configured by `config`.
    pub async fn from_adapter_with(
        adapter: wgpu::Adapter,
        config: RuntimeConfig,
    ) -> Result<Context> {
        let mut features = adapter.features() & wanted_features();
        if !config.direct_reads {
            features.remove(wgpu::Features::MAPPABLE_PRIMARY_BUFFERS);
        }
        let limits = adapter.limits();
        let coop = Self::coop_support(&adapter, config.cooperative_matrix);
        if coop.is_some() {
            features |= wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX;
        }
        let experimental = if coop.is_some() {
            // SAFETY: only the cooperative-matrix feature is used experimentally, by kernels
            // validated by naga and checked against the SIMT kernel's results.
            unsafe { wgpu::ExperimentalFeatures::enabled() }
        } else {
            wgpu::ExperimentalFeatures::disabled()
        };
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("kupfer"),
                required_features: features,
                required_limits: limits,
                experimental_features: experimental,
                memory_hints: wgpu::MemoryHints::Performance,
                trace: wgpu::Trace::Off,
            })
            .await
            .map_err(|e| Error::NoAdapter(format!("the device request failed: {e}")))?;
        let mut ctx = Self::from_parts(device, queue, &adapter.get_info(), config);
        if let Some(inner) = Arc::get_mut(&mut ctx.inner) {
            inner.coop = coop;
        }
        Ok(ctx)
    }

    fn coop_support(adapter: &wgpu::Adapter, wanted: bool) -> Option<CoopMatrix> {
        let off = !wanted;
        let f = adapter.features();
        if off
            || !f.contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX)
            || !f.contains(wgpu::Features::SHADER_F16)
        {
            return None;
        }
        let info = adapter.get_info();
        if info.subgroup_min_size != info.subgroup_max_size || info.subgroup_min_size == 0 {
            return None;
        }
        let props = adapter.cooperative_matrix_properties();
        let has = |cr| {
            props.iter().any(|p| {
                (p.m_size, p.n_size, p.k_size) == (16, 16, 16)
                    && p.ab_type == wgpu::CooperativeScalarType::F16
                    && p.cr_type == cr
            })
        };
        has(wgpu::CooperativeScalarType::F32).then(|| CoopMatrix {
            subgroup_size: info.subgroup_min_size,
            f16_acc: has(wgpu::CooperativeScalarType::F16),
        })
    }

    /// Tensor-core support (None where the device has no usable cooperative matrices).
    pub fn cooperative_matrix(&self) -> Option<CoopMatrix> {
        self.inner.coop
    }

    /// Shares an existing wgpu device and queue (e.g. an application's renderer), configured
    /// by [`RuntimeConfig::from_env`] (its adapter and backend fields do not apply; an
    /// unknown `KUPFER_BACKEND` is ignored here).
    pub fn from_wgpu(device: wgpu::Device, queue: wgpu::Queue) -> Context {
        Self::from_wgpu_with(device, queue, RuntimeConfig::from_env().unwrap_or_default())
    }

    /// [`Context::from_wgpu`] configured by `config`.
    pub fn from_wgpu_with(
        device: wgpu::Device,
        queue: wgpu::Queue,
        config: RuntimeConfig,
    ) -> Context {
        let info = device.adapter_info();
        Self::from_parts(device, queue, &info, config)
    }

    /// The settings this context was opened with.
    pub fn config(&self) -> &RuntimeConfig {
        &self.inner.config
    }

    fn from_parts(
        device: wgpu::Device,
        queue: wgpu::Queue,
        adapter: &wgpu::AdapterInfo,
        config: RuntimeConfig,
    ) -> Context {
        let features = device.features();
        let limits = device.limits();
        let info = DeviceInfo::new(adapter, features, limits.clone());
        let target = Target {
            f16: features.contains(wgpu::Features::SHADER_F16),
            f64: features.contains(wgpu::Features::SHADER_F64),
            i64: features.contains(wgpu::Features::SHADER_INT64),
        };
        let pipelines = PipelineCache::new(&device, adapter, config.cache_dir.as_deref());
        let native_immediates = matches!(
            adapter.backend,
            wgpu::Backend::Vulkan | wgpu::Backend::Metal | wgpu::Backend::Dx12
        );
        let immediate_bytes = if config.immediates
            && native_immediates
            && features.contains(wgpu::Features::IMMEDIATES)
        {
            limits.max_immediate_size
        } else {
            0
        };
        let direct_reads = cfg!(not(target_arch = "wasm32"))
            && config.direct_reads
            && features.contains(wgpu::Features::MAPPABLE_PRIMARY_BUFFERS);
        let ctx = Context {
            inner: Arc::new(Inner {
                pool: MemoryPool::new(limits.max_buffer_size),
                batch: Mutex::new(Batch::default()),
                pipelines,
                staging: Default::default(),
                #[cfg(target_arch = "wasm32")]
                compile_checks: Mutex::new(Vec::new()),
                dispatches: Default::default(),
                device,
                queue,
                info,
                target,
                coop: None,
                spans: Default::default(),
                params_arena: Mutex::new(None),
                spin_ns: std::sync::atomic::AtomicU64::new(
                    if adapter.device_type == wgpu::DeviceType::Cpu {
                        0
                    } else {
                        crate::wait::SPIN.as_nanos() as u64
                    },
                ),
                config,
                immediate_bytes,
                direct_reads,
                shared_tables: Default::default(),
                profiler: Default::default(),
            }),
        };
        if ctx.inner.config.profile != crate::config::ProfileMode::Off {
            ctx.set_profiling(true);
        }
        ctx
    }

    /// The wgpu device.
    pub fn device(&self) -> &wgpu::Device {
        &self.inner.device
    }

    /// The wgpu queue.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.inner.queue
    }

    /// Name, backend, driver, limits, features.
    pub fn info(&self) -> &DeviceInfo {
        &self.inner.info
    }

    /// Largest kernel parameter block passed as immediates (Vulkan push constants, Metal
    /// bytes, DX12 root constants) rather than as a uniform block; 0 where every block is a
    /// uniform block (WebGPU, GL, or [`RuntimeConfig::immediates`] off).
    pub fn immediate_bytes(&self) -> u32 {
        self.inner.immediate_bytes
    }

    /// Shader features for code generation.
    pub fn target(&self) -> Target {
        self.inner.target
    }

    /// True when small results meant for the host are read back by mapping their own
    /// buffer, without a copy command (see [`alloc_for_host`](Self::alloc_for_host)).
    pub fn direct_reads(&self) -> bool {
        self.inner.direct_reads
    }

    /// The memory pool.
    pub fn pool(&self) -> &MemoryPool {
        &self.inner.pool
    }

    /// Checks that this device can hold and compute `dtype`.
    pub fn check_dtype(&self, dtype: kupfer_core::DType) -> Result<()> {
        self.inner.target.check(dtype, &self.inner.info.name)
    }

    /// Largest buffer range one binding may cover, in bytes.
    pub fn max_binding_size(&self) -> u64 {
        self.inner.info.limits.max_storage_buffer_binding_size
    }

    /// Required alignment of storage-buffer binding offsets, in bytes.
    pub fn binding_alignment(&self) -> u64 {
        u64::from(self.inner.info.limits.min_storage_buffer_offset_alignment)
    }

    /// Largest workgroup count per dispatch dimension.
    pub fn max_workgroups_per_dim(&self) -> u32 {
        self.inner.info.limits.max_compute_workgroups_per_dimension
    }

    /// True when both contexts are the same device.
    pub fn same_device(&self, other: &Context) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}
