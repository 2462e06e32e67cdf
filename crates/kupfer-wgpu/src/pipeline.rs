//! Compute pipelines, cached by their WGSL source, and persisted across runs through wgpu's
//! PIPELINE_CACHE where the adapter has it (in the user's cache directory), so that the first
//! call is slow once, not every run.

use crate::context::Context;
use kupfer_core::{Error, Result};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Which runtime checks wgpu compiles into a kernel.
///
/// By default wgpu (through naga) clamps every array index to the array's bounds and adds a
/// counter to every loop so that a shader cannot read outside its buffers or hang the GPU.
/// Those checks cost up to 20% in tight loops (the SIMT matmul's inner product). kupfer's own
/// generated kernels index only inside the buffers the launcher sizes for them and have only
/// bounded loops, so they are compiled [`ShaderChecks::Trusted`]; anything containing a
/// user's code (RawKernel modules, ElementwiseKernel and ReductionKernel snippets) stays
/// [`ShaderChecks::Checked`]. [`crate::RuntimeConfig::shader_checks`] (`KUPFER_SHADER_CHECKS=1`)
/// compiles everything checked (to rule out an out-of-bounds access when debugging a kernel).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShaderChecks {
    /// wgpu's bounds checks and loop bounding: for code kupfer did not write.
    Checked,
    /// No runtime checks: for kupfer's generated kernels.
    Trusted,
}

impl ShaderChecks {
    /// `self`, unless `all_checked` asks for every kernel to be checked.
    fn effective(self, all_checked: bool) -> ShaderChecks {
        if all_checked {
            ShaderChecks::Checked
        } else {
            self
        }
    }
}

/// A compiled compute pipeline with its bind group layout.
#[derive(Debug)]
pub struct Pipeline {
    pub(crate) pipeline: wgpu::ComputePipeline,
    pub(crate) layout: wgpu::BindGroupLayout,
    /// Bytes of the parameter block when it is passed as immediates (0: a uniform block at
    /// binding 0, or none).
    pub(crate) immediate_size: u32,
    /// The shared read-only tables the kernel reads (tables.rs), bound by every dispatch.
    pub(crate) tables: Vec<&'static kupfer_core::random::ziggurat::TableBinding>,
    /// The kernel's name in a profile: its template and entry point (profile.rs).
    pub(crate) label: Arc<str>,
}

impl Pipeline {
    /// The kernel's name in a [`crate::Profile`]: the `shaders/` template its source comes
    /// from and its entry point (`sort_radix/onesweep`; the template alone for `main`).
    pub fn label(&self) -> &str {
        &self.label
    }
}

/// How kupfer's kernels declare their parameter block: a uniform at binding 0.
const UNIFORM_PARAMS: &str = "@group(0) @binding(0) var<uniform> ";

pub(crate) struct PipelineCache {
    map: Mutex<HashMap<String, Arc<Pipeline>>>,
    disk: Option<DiskCache>,
    /// Pipelines compiled so far with their parameter block as immediates.
    with_immediates: std::sync::atomic::AtomicUsize,
}

struct DiskCache {
    cache: wgpu::PipelineCache,
    path: std::path::PathBuf,
    dirty: Mutex<bool>,
}

impl PipelineCache {
    /// The pipelines of `device`, kept on disk in `cache_dir` where the device can.
    pub(crate) fn new(
        device: &wgpu::Device,
        adapter: &wgpu::AdapterInfo,
        cache_dir: Option<&std::path::Path>,
    ) -> Self {
        PipelineCache {
            map: Mutex::new(HashMap::new()),
            disk: Self::open_disk(device, adapter, cache_dir),
            with_immediates: Default::default(),
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn open_disk(
        device: &wgpu::Device,
        adapter: &wgpu::AdapterInfo,
        cache_dir: Option<&std::path::Path>,
    ) -> Option<DiskCache> {
        if !device.features().contains(wgpu::Features::PIPELINE_CACHE) {
            return None;
        }
        let name = wgpu::util::pipeline_cache_key(adapter)?;
        let path = cache_dir?.join(name);
        let data = std::fs::read(&path).ok();
        // SAFETY: the data was written by `PipelineCache::get_data` of a device with the same
        // cache key (wgpu validates the header and falls back to an empty cache otherwise).
        let cache = unsafe {
            device.create_pipeline_cache(&wgpu::PipelineCacheDescriptor {
                label: Some("kupfer pipelines"),
                data: data.as_deref(),
                fallback: true,
            })
        };
        Some(DiskCache {
            cache,
            path,
            dirty: Mutex::new(false),
        })
    }

    #[cfg(target_arch = "wasm32")]
    fn open_disk(
        _: &wgpu::Device,
        _: &wgpu::AdapterInfo,
        _: Option<&std::path::Path>,
    ) -> Option<DiskCache> {
        None
    }

    /// Writes the pipeline cache to disk if pipelines were compiled since the last write.
    pub(crate) fn save_if_dirty(&self) {
        let Some(disk) = &self.disk else { return };
        let mut dirty = disk.dirty.lock().unwrap_or_else(|p| p.into_inner());
        if !*dirty {
            return;
        }
        *dirty = false;
        if let Some(data) = disk.cache.get_data() {
            if let Some(dir) = disk.path.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            let tmp = disk.path.with_extension("tmp");
            if std::fs::write(&tmp, data).is_ok() {
                let _ = std::fs::rename(&tmp, &disk.path);
            }
        }
    }
}

/// With [`crate::RuntimeConfig::dump_wgsl`] (`KUPFER_DUMP_WGSL=dir`), writes each kernel
/// compiled from now on to `dir` (for kernel development: `tools/vkstats` reads them back
/// for the driver's register counts), named by a hash of its source and entry point.
#[cfg(not(target_arch = "wasm32"))]
fn dump_wgsl(dir: Option<&std::path::Path>, key: &str, wgsl: &str) {
    use std::hash::{Hash, Hasher};
    let Some(dir) = dir else {
        return;
    };
    let mut h = std::collections::hash_map::DefaultHasher::new();
    key.hash(&mut h);
    let _ = std::fs::create_dir_all(dir);
    let _ = std::fs::write(dir.join(format!("{:016x}.wgsl", h.finish())), wgsl);
}

/// A pending shader-compilation result (the browser only answers asynchronously).
#[cfg(target_arch = "wasm32")]
pub(crate) type CompileCheck =
    std::pin::Pin<Box<dyn std::future::Future<Output = Option<wgpu::Error>>>>;

impl Context {
    /// Resolves the pending compilation checks: the first failed kernel is an error (a kupfer
    /// bug: generated WGSL the browser's compiler rejects).
    #[cfg(target_arch = "wasm32")]
    pub(crate) async fn check_compiles(&self) -> Result<()> {
        let pending = std::mem::take(
            &mut *self
                .inner
                .compile_checks
                .lock()
                .unwrap_or_else(|p| p.into_inner()),
        );
        for check in pending {
            if let Some(e) = check.await {
                return Err(Error::Device(format!(
                    "kernel failed to compile (a kupfer bug; please report it): {e}"
                )));
            }
        }
        Ok(())
    }

    /// The pipeline for a WGSL module with entry point `main`, compiled once per source, with
    /// wgpu's runtime checks ([`ShaderChecks::Checked`]).
    pub fn pipeline(&self, wgsl: &str) -> Result<Arc<Pipeline>> {
        self.pipeline_with(wgsl, "main", ShaderChecks::Checked)
    }

    /// The pipeline for entry point `entry` of a WGSL module, compiled once per (source,
    /// entry point), with wgpu's runtime checks. The bind group layout is derived from what
    /// the entry point uses.
    pub fn pipeline_entry(&self, wgsl: &str, entry: &str) -> Result<Arc<Pipeline>> {
        self.pipeline_with(wgsl, entry, ShaderChecks::Checked)
    }

    /// The pipeline for entry point `entry` of a WGSL module compiled with `checks`, once per
    /// (source, entry point, checks).
    ///
    /// A [`ShaderChecks::Trusted`] module must never index outside its arrays or buffers and
    /// must have only loops that end: it runs without wgpu's bounds checks and loop bounding.
    pub fn pipeline_with(
        &self,
        wgsl: &str,
        entry: &str,
        checks: ShaderChecks,
    ) -> Result<Arc<Pipeline>> {
        let checks = checks.effective(self.inner.config.shader_checks);
        let cache = &self.inner.pipelines;
        let key = match (entry, checks) {
            ("main", ShaderChecks::Checked) => wgsl.to_string(),
            _ => format!("{entry}\0{checks:?}\0{wgsl}"),
        };
        if let Some(p) = cache
            .map
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
        {
            return Ok(p.clone());
        }
        #[cfg(not(target_arch = "wasm32"))]
        dump_wgsl(self.inner.config.dump_wgsl.as_deref(), &key, wgsl);
        let immediate = self.immediate_variant(wgsl);
        let (pipeline, immediate_size) = match immediate {
            // A block the driver refuses as immediates (it should not happen: the size was
            // checked) still compiles as a uniform block.
            Some((source, size)) => match self.compile(&source, entry, checks) {
                Ok(p) => (p, size),
                Err(_) => (self.compile(wgsl, entry, checks)?, 0),
            },
            None => (self.compile(wgsl, entry, checks)?, 0),
        };
        if immediate_size > 0 {
            cache
                .with_immediates
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        let layout = pipeline.get_bind_group_layout(0);
        let p = Arc::new(Pipeline {
            pipeline,
            layout,
            immediate_size,
            tables: crate::tables::tables_of(wgsl, entry),
            label: crate::profile::kernel_label(wgsl, entry),
        });
        cache
            .map
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key, p.clone());
        if let Some(d) = &cache.disk {
            *d.dirty.lock().unwrap_or_else(|p| p.into_inner()) = true;
        }
        Ok(p)
    }

    /// `wgsl` with its parameter block (`@group(0) @binding(0) var<uniform>`) declared as
    /// immediates, and the block's size, where the device takes immediates and the block fits
    /// (Vulkan push constants: usually 256 bytes). Pushing the block with the dispatch saves
    /// the copy of a batch's uniform blocks into their buffer and the barrier after it, a few
    /// microseconds of every small round trip.
    fn immediate_variant(&self, wgsl: &str) -> Option<(String, u32)> {
        let max = self.inner.immediate_bytes;
        if max == 0 || wgsl.matches(UNIFORM_PARAMS).count() != 1 {
            return None;
        }
        let source = wgsl.replacen(UNIFORM_PARAMS, "var<immediate> ", 1);
        let module = naga::front::wgsl::parse_str(&source).ok()?;
        let (_, block) = module
            .global_variables
            .iter()
            .find(|(_, v)| v.space == naga::AddressSpace::Immediate)?;
        let size = module.types[block.ty].inner.size(module.to_ctx());
        (size > 0 && size <= max && size.is_multiple_of(4)).then_some((source, size))
    }

    /// Compiles one entry point of `wgsl`; a validation error is returned natively and
    /// reported before the next read-back in the browser.
    fn compile(
        &self,
        wgsl: &str,
        entry: &str,
        checks: ShaderChecks,
    ) -> Result<wgpu::ComputePipeline> {
        let device = &self.inner.device;
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let desc = wgpu::ShaderModuleDescriptor {
            label: Some("kupfer kernel"),
            source: wgpu::ShaderSource::Wgsl(wgsl.into()),
        };
        let module = match checks {
            ShaderChecks::Checked => device.create_shader_module(desc),
            // SAFETY: only kupfer's generated kernels are compiled Trusted; they index inside
            // the buffers and workgroup arrays their launchers size for them (the tests run
            // every kernel family on ragged shapes) and every loop has a finite bound.
            ShaderChecks::Trusted => unsafe {
                device.create_shader_module_trusted(desc, wgpu::ShaderRuntimeChecks::unchecked())
            },
        };
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("kupfer kernel"),
            layout: None,
            module: &module,
            entry_point: Some(entry),
            compilation_options: Default::default(),
            cache: self.inner.pipelines.disk.as_ref().map(|d| &d.cache),
        });
        let error = scope.pop();
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(e) = pollster::block_on(error) {
            return Err(Error::Device(format!(
                "kernel failed to compile (a kupfer bug; please report it): {e}"
            )));
        }
        #[cfg(target_arch = "wasm32")]
        self.inner
            .compile_checks
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(Box::pin(error));
        Ok(pipeline)
    }

    /// How many kernels compiled so far take their parameters as immediates (see
    /// [`Context::immediate_bytes`]).
    pub fn pipelines_with_immediates(&self) -> usize {
        self.inner
            .pipelines
            .with_immediates
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Writes newly compiled pipelines to the on-disk cache now.
    pub fn save_pipeline_cache(&self) {
        self.inner.pipelines.save_if_dirty();
    }
}
