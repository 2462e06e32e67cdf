//! [`RuntimeConfig`]: how a [`crate::Context`] is opened and compiles kernels (adapter,
//! backends, tensor cores, shader checks, cache directory). The only place of this crate
//! that reads the environment: [`RuntimeConfig::from_env`].

use crate::context::AdapterChoice;
use kupfer_core::{Error, Result};
use std::path::PathBuf;

/// Settings of a GPU context, fixed when it is opened. `Default` holds the built-in values;
/// [`RuntimeConfig::from_env`] applies the `KUPFER_*` environment variables on top.
///
/// ```
/// let mut config = kupfer_wgpu::RuntimeConfig::default();
/// config.shader_checks = true; // every kernel keeps wgpu's bounds checks
/// assert!(config.cooperative_matrix);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct RuntimeConfig {
    /// Backends searched for adapters. `KUPFER_BACKEND`: `vulkan` (`vk`), `metal`, `dx12`
    /// (`d3d12`), `gl` (`gles`, `opengl`) or `webgpu` (`browser`); unset or empty: all.
    pub backends: wgpu::Backends,
    /// The adapter [`AdapterChoice::Default`] opens. `KUPFER_ADAPTER`: an index of
    /// `Context::adapters` or part of an adapter's name; unset: the high-performance adapter.
    pub adapter: AdapterChoice,
    /// Tensor cores (cooperative matrices) where the adapter has them. `KUPFER_COOP=0` turns
    /// them off (the device is then requested without wgpu's experimental features).
    pub cooperative_matrix: bool,
    /// Every kernel compiled with wgpu's bounds checks and loop bounding, kupfer's own too
    /// ([`crate::ShaderChecks`]). `KUPFER_SHADER_CHECKS=1` (for debugging a kernel).
    pub shader_checks: bool,
    /// Where compiled pipelines and tuned kernel choices are kept across runs (None: not
    /// kept). `KUPFER_CACHE_DIR` (empty: None), else `$XDG_CACHE_HOME/kupfer`, else
    /// `~/.cache/kupfer`; None in the browser.
    pub cache_dir: Option<PathBuf>,
    /// A directory each kernel compiled from now on is written to, named by a hash of its
    /// source (for kernel development: `tools/vkstats` reads them). `KUPFER_DUMP_WGSL`.
    pub dump_wgsl: Option<PathBuf>,
    /// Kernel parameters passed as immediates (Vulkan push constants, Metal bytes, DX12 root
    /// constants) where the device has them and the block fits, instead of a uniform block
    /// copied into a buffer before each batch. `KUPFER_IMMEDIATES=0` turns this off.
    pub immediates: bool,
    /// Small results the host is likely to read back (reductions to one value) are written
    /// by their kernel straight into a host-mappable buffer, which a read-back then maps
    /// without a copy command, where the device has MAPPABLE_PRIMARY_BUFFERS (native
    /// Vulkan, Metal, DX12; never the browser). Off by default: under the whole suite on
    /// lavapipe, with tests sharing a device from many threads, a submission met one of
    /// these buffers still mapped (a wgpu validation error) and the cause is not found yet.
    /// `KUPFER_SCALAR_READ=direct` turns it on; otherwise every read-back copies into a
    /// staging buffer first.
    pub direct_reads: bool,
    /// `queue.submit` is not followed by a non-blocking `poll` of the device: wgpu's submit
    /// ends with that poll itself (retiring finished work, firing map callbacks).
    /// `KUPFER_SUBMIT_POLL=old` polls a second time after every submission.
    pub lean_submit: bool,
    /// The per-dispatch GPU profile ([`crate::profile`]) on from the start.
    /// `KUPFER_PROFILE=1`; `KUPFER_PROFILE=pass` times each dispatch in a compute pass of its
    /// own even where timestamps inside passes are available (the WebGPU way, to test it).
    pub profile: ProfileMode,
}

/// Whether and how a context profiles its dispatches from the start ([`RuntimeConfig::profile`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProfileMode {
    /// Not profiled until [`crate::Context::set_profiling`] turns it on.
    #[default]
    Off,
    /// Profiled, with timestamps inside passes where the device has them.
    On,
    /// Profiled, each dispatch in its own compute pass with pass timestamps.
    PerPass,
}

impl Default for RuntimeConfig {
    fn default() -> Self {
        RuntimeConfig {
            backends: wgpu::Backends::all(),
            adapter: AdapterChoice::Default,
            cooperative_matrix: true,
            shader_checks: false,
            cache_dir: None,
            dump_wgsl: None,
            immediates: true,
            direct_reads: false,
            lean_submit: true,
            profile: ProfileMode::Off,
        }
    }
}

impl RuntimeConfig {
    /// The defaults with the `KUPFER_*` environment variables of each field applied (and the
    /// default cache directory). In the browser, the defaults. Errors: an unknown
    /// `KUPFER_BACKEND`.
    pub fn from_env() -> Result<RuntimeConfig> {
        #[cfg(target_arch = "wasm32")]
        return Ok(RuntimeConfig::default());
        #[cfg(not(target_arch = "wasm32"))]
        {
            let var = |name: &str| std::env::var(name).ok();
            let backends = match var("KUPFER_BACKEND") {
                None => wgpu::Backends::all(),
                Some(v) => parse_backends(&v)?,
            };
            let adapter = match var("KUPFER_ADAPTER") {
                Some(v) if !v.trim().is_empty() => match v.trim().parse::<usize>() {
                    Ok(i) => AdapterChoice::Index(i),
                    Err(_) => AdapterChoice::Name(v.trim().to_string()),
                },
                _ => AdapterChoice::Default,
            };
            let cache_dir = match std::env::var_os("KUPFER_CACHE_DIR") {
                Some(d) => (!d.is_empty()).then(|| d.into()),
                None => std::env::var_os("XDG_CACHE_HOME")
                    .map(|d| PathBuf::from(d).join("kupfer"))
                    .or_else(|| {
                        std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/kupfer"))
                    }),
            };
            Ok(RuntimeConfig {
                backends,
                adapter,
                cooperative_matrix: var("KUPFER_COOP").is_none_or(|v| v.trim() != "0"),
                shader_checks: var("KUPFER_SHADER_CHECKS").is_some_and(|v| v.trim() == "1"),
                cache_dir,
                dump_wgsl: std::env::var_os("KUPFER_DUMP_WGSL").map(PathBuf::from),
                immediates: var("KUPFER_IMMEDIATES").is_none_or(|v| v.trim() != "0"),
                direct_reads: var("KUPFER_SCALAR_READ").is_some_and(|v| v.trim() == "direct"),
                lean_submit: var("KUPFER_SUBMIT_POLL").is_none_or(|v| v.trim() != "old"),
                profile: match var("KUPFER_PROFILE").as_deref().map(str::trim) {
                    Some("1") => ProfileMode::On,
                    Some("pass") => ProfileMode::PerPass,
                    _ => ProfileMode::Off,
                },
            })
        }
    }
}

/// The backends a `KUPFER_BACKEND` value names.
pub fn parse_backends(name: &str) -> Result<wgpu::Backends> {
    match name.to_ascii_lowercase().as_str() {
        "" => Ok(wgpu::Backends::all()),
        "vulkan" | "vk" => Ok(wgpu::Backends::VULKAN),
        "metal" => Ok(wgpu::Backends::METAL),
        "dx12" | "d3d12" => Ok(wgpu::Backends::DX12),
        "gl" | "gles" | "opengl" => Ok(wgpu::Backends::GL),
        "webgpu" | "browser" => Ok(wgpu::Backends::BROWSER_WEBGPU),
        other => Err(Error::invalid(format!(
            "KUPFER_BACKEND={other} is not one of vulkan, metal, dx12, gl, webgpu"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_names_parse_and_unknown_ones_are_errors() {
        assert_eq!(parse_backends("Vulkan").unwrap(), wgpu::Backends::VULKAN);
        assert_eq!(parse_backends("").unwrap(), wgpu::Backends::all());
        assert_eq!(parse_backends("gles").unwrap(), wgpu::Backends::GL);
        let e = parse_backends("cuda").unwrap_err().to_string();
        assert!(e.contains("KUPFER_BACKEND=cuda"), "{e}");
    }
}
