//! Devices: the default device (chosen like CuPy's current device), explicit devices for
//! several GPUs, and sharing a wgpu device with an application.

use crate::checks::DeferredChecks;
use crate::config::Config;
use crate::kernels::{CacheEntry, FamilyCache};
use kupfer_core::{DType, Error, Result};
use kupfer_wgpu::{wgpu, AdapterChoice, Context, DeviceInfo};
use std::cell::RefCell;
use std::sync::Arc;

/// A GPU device. Cheap to clone.
///
/// ```no_run
/// let dev = kupfer::Device::default_device()?;
/// println!("{} on {}", dev.info().name, dev.info().backend);
/// # Ok::<(), kupfer::Error>(())
/// ```
#[derive(Clone)]
pub struct Device {
    pub(crate) ctx: Context,
    /// This handle's settings and caches (one `Arc`: cloning a device costs what it did).
    handle: Arc<Handle>,
    pub(crate) checks: Arc<DeferredChecks>,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Device({} on {})", self.info().name, self.info().backend)
    }
}

impl PartialEq for Device {
    fn eq(&self, other: &Self) -> bool {
        self.ctx.same_device(&other.ctx)
    }
}

/// What a device handle owns: its settings and the caches of what was chosen under them.
struct Handle {
    /// The settings this handle runs by (fixed: its caches hold what was chosen under them).
    config: Config,
    /// Every family's compiled kernels and plans, keyed by type (`kernels.rs`).
    caches: FamilyCache,
}

impl Handle {
    fn new(config: Config) -> Arc<Handle> {
        Arc::new(Handle {
            config,
            caches: FamilyCache::default(),
        })
    }
}

#[cfg(not(target_arch = "wasm32"))]
static DEFAULT: std::sync::Mutex<Option<Device>> = std::sync::Mutex::new(None);

#[cfg(target_arch = "wasm32")]
thread_local! {
    // wgpu's WebGPU objects are not Send: in the browser the default device is per thread.
    static DEFAULT: RefCell<Option<Device>> = const { RefCell::new(None) };
}

fn default_slot() -> Option<Device> {
    #[cfg(not(target_arch = "wasm32"))]
    return DEFAULT.lock().unwrap_or_else(|p| p.into_inner()).clone();
    #[cfg(target_arch = "wasm32")]
    return DEFAULT.with(|d| d.borrow().clone());
}

fn set_default_slot(device: Device) {
    #[cfg(not(target_arch = "wasm32"))]
    {
        *DEFAULT.lock().unwrap_or_else(|p| p.into_inner()) = Some(device);
    }
    #[cfg(target_arch = "wasm32")]
    DEFAULT.with(|d| *d.borrow_mut() = Some(device));
}

thread_local! {
    static CURRENT: RefCell<Vec<Device>> = const { RefCell::new(Vec::new()) };
}

impl Device {
    fn wrap(ctx: Context, mut config: Config) -> Device {
        config.runtime = ctx.config().clone();
        Device {
            ctx,
            handle: Handle::new(config),
            checks: Arc::new(DeferredChecks::default()),
        }
    }

    /// Opens a device on the chosen adapter (async: works in the browser too), configured by
    /// [`Config::from_env`].
    pub async fn new_async(choice: AdapterChoice) -> Result<Device> {
        Self::open_async(choice, Config::from_env()?).await
    }

    /// Opens a device on the chosen adapter ([`AdapterChoice::Default`]: the one
    /// `config.runtime` names), configured by `config`.
    pub async fn open_async(choice: AdapterChoice, config: Config) -> Result<Device> {
        let ctx = Context::with_config(choice, config.runtime.clone()).await?;
        Ok(Self::wrap(ctx, config))
    }

    /// Opens a device on the chosen adapter, configured by [`Config::from_env`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new(choice: AdapterChoice) -> Result<Device> {
        pollster::block_on(Self::new_async(choice))
    }

    /// Opens a device on the chosen adapter, configured by `config`.
    ///
    /// ```
    /// let mut config = kupfer::Config::from_env()?;
    /// config.runtime.shader_checks = true; // every kernel with wgpu's bounds checks
    /// let dev = kupfer::Device::open(kupfer::AdapterChoice::Default, config)?;
    /// assert!(dev.config().runtime.shader_checks);
    /// # Ok::<(), kupfer::Error>(())
    /// ```
    #[cfg(not(target_arch = "wasm32"))]
    pub fn open(choice: AdapterChoice, config: Config) -> Result<Device> {
        pollster::block_on(Self::open_async(choice, config))
    }

    /// A handle on the same GPU (same memory, queue and arrays: they mix freely with this
    /// device's) whose operations run by `config`'s kernel choices (FFT schedule, matmul
    /// tuning and precision). It compiles and caches its own kernels and plans, so nothing
    /// chosen under another config is reused. `config.runtime` does not apply (it is fixed
    /// when the GPU is opened: see [`Device::open`]); the handle keeps this device's.
    ///
    /// ```
    /// let dev = kupfer::Device::default_device()?;
    /// let mut config = dev.config().clone();
    /// config.fft.register_mode = 0; // workgroup-memory passes only
    /// let shared_memory_passes = dev.with_config(config);
    /// assert_eq!(shared_memory_passes, dev); // the same GPU
    /// # Ok::<(), kupfer::Error>(())
    /// ```
    pub fn with_config(&self, config: Config) -> Device {
        Device {
            ctx: self.ctx.clone(),
            handle: Handle::new(Config {
                runtime: self.ctx.config().clone(),
                ..config
            }),
            checks: self.checks.clone(),
        }
    }

    /// The settings this device runs by.
    pub fn config(&self) -> &Config {
        &self.handle.config
    }

    /// Opens the n-th adapter of [`Device::adapters`] (several GPUs).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn by_index(index: usize) -> Result<Device> {
        Self::new(AdapterChoice::Index(index))
    }

    /// Every adapter on this machine: (index, info). Opening none of them.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn adapters() -> Result<Vec<wgpu::AdapterInfo>> {
        Ok(pollster::block_on(Context::adapters())?
            .iter()
            .map(|a| a.get_info())
            .collect())
    }

    /// Shares an existing wgpu device and queue (e.g. an application's renderer), configured
    /// by [`Config::from_env`] (an unknown `KUPFER_BACKEND` is ignored: the adapter is the
    /// application's).
    pub fn from_wgpu(device: wgpu::Device, queue: wgpu::Queue) -> Device {
        let config = Config::from_env().unwrap_or_default();
        let ctx = Context::from_wgpu_with(device, queue, config.runtime.clone());
        Self::wrap(ctx, config)
    }

    /// The process-wide default device: opened on first use, configured by
    /// [`Config::from_env`] (KUPFER_BACKEND / KUPFER_ADAPTER or the high-performance adapter). In the browser, call [`crate::init`] first.
    pub fn default_device() -> Result<Device> {
        #[cfg(not(target_arch = "wasm32"))]
        {
            let mut slot = DEFAULT.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(d) = slot.as_ref() {
                return Ok(d.clone());
            }
            let d = Self::new(AdapterChoice::Default)?;
            *slot = Some(d.clone());
            Ok(d)
        }
        #[cfg(target_arch = "wasm32")]
        default_slot().ok_or_else(|| {
            Error::NoAdapter(
                "no default device yet: call `kupfer::init().await` first in the browser".into(),
            )
        })
    }

    /// Makes `device` the process-wide default.
    pub fn set_default(device: &Device) {
        set_default_slot(device.clone());
    }

    /// The device new arrays go to on this thread: the innermost [`Device::use_device`] scope,
    /// else the default device.
    pub fn current() -> Result<Device> {
        if let Some(d) = CURRENT.with(|c| c.borrow().last().cloned()) {
            return Ok(d);
        }
        Self::default_device()
    }

    /// Makes this device current on this thread until the guard drops (CuPy's
    /// `with cp.cuda.Device(1):`).
    pub fn use_device(&self) -> DeviceGuard {
        CURRENT.with(|c| c.borrow_mut().push(self.clone()));
        DeviceGuard { _private: () }
    }

    /// Name, backend, driver, type, limits and features.
    pub fn info(&self) -> &DeviceInfo {
        self.ctx.info()
    }

    /// The runtime context (wgpu device, queue, pool).
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// True when this device can hold and compute `dtype`.
    pub fn supports(&self, dtype: DType) -> bool {
        self.ctx.check_dtype(dtype).is_ok()
    }

    /// NumPy's default integer dtype here: int64 where the adapter has SHADER_INT64, else int32.
    pub fn default_int(&self) -> DType {
        if self.supports(DType::I64) {
            DType::I64
        } else {
            DType::I32
        }
    }

    /// NumPy's default float dtype here: float64 where the adapter has SHADER_F64, else float32.
    pub fn default_float(&self) -> DType {
        if self.supports(DType::F64) {
            DType::F64
        } else {
            DType::F32
        }
    }

    /// Blocks until all work submitted to this device has finished. Errors found on the
    /// device since the last sync (a negative integer exponent) are returned here.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn synchronize(&self) -> Result<()> {
        self.ctx.synchronize()?;
        pollster::block_on(self.checks.report_async(&self.ctx))
    }

    /// Resolves when all work submitted to this device has finished. Errors found on the
    /// device since the last sync (a negative integer exponent) are returned here.
    pub async fn synchronize_async(&self) -> Result<()> {
        self.ctx.synchronize_async().await?;
        self.checks.report_async(&self.ctx).await
    }

    /// The memory pool (CuPy's `get_default_memory_pool()`).
    pub fn memory_pool(&self) -> &kupfer_wgpu::MemoryPool {
        self.ctx.pool()
    }

    /// Records an event after all work so far (CuPy's `cuda.Event().record()`).
    pub fn record_event(&self) -> Result<kupfer_wgpu::Event> {
        self.ctx.record_event()
    }

    /// This device's cache entry of type `T` (a family's compiled kernels or plans), created
    /// empty on first use.
    pub(crate) fn cache<T: CacheEntry + Default>(&self) -> &T {
        self.handle.caches.get::<T>()
    }

    pub(crate) fn check(&self, dtype: DType) -> Result<()> {
        self.ctx.check_dtype(dtype)
    }

    pub(crate) fn same(&self, other: &Device) -> Result<()> {
        if self == other {
            Ok(())
        } else {
            Err(Error::invalid(format!(
                "arrays are on different devices ({} and {}); move one with `to_device`",
                self.info().name,
                other.info().name
            )))
        }
    }
}

/// Restores the previous current device when dropped.
pub struct DeviceGuard {
    _private: (),
}

impl Drop for DeviceGuard {
    fn drop(&mut self) {
        CURRENT.with(|c| {
            c.borrow_mut().pop();
        });
    }
}

/// Opens the default device asynchronously (required once in the browser, optional natively).
pub async fn init() -> Result<Device> {
    if let Some(d) = default_slot() {
        return Ok(d);
    }
    let d = Device::new_async(AdapterChoice::Default).await?;
    Device::set_default(&d);
    Ok(d)
}

/// Blocks until all work on the current device has finished (`cupy.cuda.Device().synchronize()`).
#[cfg(not(target_arch = "wasm32"))]
pub fn synchronize() -> Result<()> {
    Device::current()?.synchronize()
}
