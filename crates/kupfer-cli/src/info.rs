//! `kupfer info`: every adapter, the default device, its features, limits and memory pool
//! (CuPy's `cupy.show_config()` and `getDeviceProperties`).

use crate::common::{adapter_advice, fmt_bytes, para};
use crate::error::{CliError, CliResult};
use crate::outln;
use kupfer::wgpu;
use serde_json::{json, Value};

/// Arguments of `kupfer info`.
#[derive(Debug, clap::Args)]
pub struct InfoArgs {
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// One adapter as `kupfer info` lists it.
struct AdapterRow {
    index: usize,
    info: wgpu::AdapterInfo,
}

impl AdapterRow {
    fn backend(&self) -> &'static str {
        self.info.backend.to_str()
    }

    fn device_type(&self) -> String {
        format!("{:?}", self.info.device_type)
    }

    /// Driver as kupfer's `DeviceInfo` spells it (name and version joined).
    fn driver(&self) -> String {
        format!("{} {}", self.info.driver, self.info.driver_info)
            .trim()
            .to_string()
    }
}

/// The GPU features kupfer uses, with what each one enables.
const FEATURES: &[(&str, wgpu::Features, &str)] = &[
    ("shader-f16", wgpu::Features::SHADER_F16, "float16 arrays"),
    ("shader-f64", wgpu::Features::SHADER_F64, "float64 arrays"),
    (
        "shader-int64",
        wgpu::Features::SHADER_INT64,
        "int64/uint64 arrays",
    ),
    (
        "timestamp-query",
        wgpu::Features::TIMESTAMP_QUERY,
        "GPU timestamps",
    ),
    (
        "timestamp-query-inside-encoders",
        wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS,
        "events timed by the GPU",
    ),
    (
        "timestamp-query-inside-passes",
        wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES,
        "timestamps inside passes",
    ),
    (
        "pipeline-cache",
        wgpu::Features::PIPELINE_CACHE,
        "compiled kernels persist across runs",
    ),
    ("subgroup", wgpu::Features::SUBGROUP, "subgroup operations"),
];

fn env_or(name: &str, unset: &str) -> String {
    match std::env::var(name) {
        Ok(v) if !v.trim().is_empty() => format!("{name}={v}"),
        _ => unset.to_string(),
    }
}

/// Which adapter index `dev` was opened on: by KUPFER_ADAPTER when it is an index, else the
/// first adapter with the same name, backend, vendor and driver.
fn default_index(rows: &[AdapterRow], dev: &kupfer::Device) -> Option<usize> {
    if let Ok(v) = std::env::var("KUPFER_ADAPTER") {
        if let Ok(i) = v.trim().parse::<usize>() {
            return rows.iter().position(|r| r.index == i);
        }
    }
    let d = dev.info();
    rows.iter().position(|r| {
        r.info.name == d.name
            && r.backend() == d.backend
            && r.info.vendor == d.vendor
            && r.driver() == d.driver
    })
}

/// Runs `kupfer info`.
pub fn run(args: &InfoArgs) -> CliResult {
    let rows: Vec<AdapterRow> = kupfer::Device::adapters()?
        .into_iter()
        .enumerate()
        .map(|(index, info)| AdapterRow { index, info })
        .collect();
    // The adapters are listed even when opening the default device fails: that list is
    // what a person needs to set KUPFER_ADAPTER.
    let dev = kupfer::Device::default_device();
    let default = dev.as_ref().ok().and_then(|d| default_index(&rows, d));
    if args.json {
        print_json(&rows, default, dev.as_ref().ok())?;
    } else {
        print_text(&rows, default, dev.as_ref().ok());
    }
    match dev {
        Ok(_) => Ok(()),
        Err(e) => Err(CliError::from(e)),
    }
}

fn print_text(rows: &[AdapterRow], default: Option<usize>, dev: Option<&kupfer::Device>) {
    outln!("kupfer {}", env!("CARGO_PKG_VERSION"));
    outln!();
    outln!(
        "Adapters ({}):",
        env_or(
            "KUPFER_BACKEND",
            "all backends; KUPFER_BACKEND narrows them"
        )
    );
    if rows.is_empty() {
        outln!("  (none found)");
    }
    let name_w = rows
        .iter()
        .map(|r| r.info.name.len())
        .max()
        .unwrap_or(4)
        .max(4);
    if !rows.is_empty() {
        outln!(
            "    {:>2}  {:<name_w$}  {:<7}  {:<13}  driver",
            "#",
            "name",
            "backend",
            "type"
        );
    }
    for (i, r) in rows.iter().enumerate() {
        let mark = if Some(i) == default { "*" } else { " " };
        outln!(
            "  {mark} {:>2}  {:<name_w$}  {:<7}  {:<13}  {}",
            r.index,
            r.info.name,
            r.backend(),
            r.device_type(),
            r.driver()
        );
    }
    let Some(dev) = dev else {
        return;
    };
    let info = dev.info();
    let limits = &info.limits;
    outln!();
    outln!(
        "Default device{}: {} ({}, {})",
        default
            .map(|i| format!(" (* #{})", rows[i].index))
            .unwrap_or_default(),
        info.name,
        info.backend,
        info.device_type
    );
    outln!(
        "  chosen by:       {}",
        env_or(
            "KUPFER_ADAPTER",
            "the high-performance adapter (KUPFER_ADAPTER unset)"
        )
    );
    outln!("  driver:          {}", info.driver);
    outln!("  vendor id:       {:#06x}", info.vendor);
    outln!(
        "  default dtypes:  {} (integers), {} (floats)",
        dev.default_int(),
        dev.default_float()
    );
    outln!(
        "  event timing:    {}",
        if dev.context().has_gpu_timestamps() {
            "GPU timestamps"
        } else {
            "wall clock after a synchronize (no GPU timestamp queries)"
        }
    );
    if let Some(advice) = adapter_advice(info) {
        outln!();
        para(&advice);
    }
    outln!();
    outln!("Features:");
    for (name, f, what) in FEATURES {
        let yes = info.features.contains(*f);
        outln!(
            "  {:<32} {:<3}  {}",
            name,
            if yes { "yes" } else { "no" },
            what
        );
    }
    if let Some(i) = default {
        let a = &rows[i].info;
        if info.features.contains(wgpu::Features::SUBGROUP) {
            outln!(
                "  {:<32} {}..{}",
                "subgroup size",
                a.subgroup_min_size,
                a.subgroup_max_size
            );
        }
    }
    outln!();
    outln!("Limits:");
    let lim = |name: &str, v: String| outln!("  {name:<32} {v}");
    lim("max buffer size", fmt_bytes(limits.max_buffer_size));
    lim(
        "max storage buffer binding",
        fmt_bytes(limits.max_storage_buffer_binding_size),
    );
    lim(
        "max uniform buffer binding",
        fmt_bytes(limits.max_uniform_buffer_binding_size),
    );
    lim(
        "storage buffers per shader stage",
        limits.max_storage_buffers_per_shader_stage.to_string(),
    );
    lim(
        "workgroup size (x, y, z)",
        format!(
            "{}, {}, {}",
            limits.max_compute_workgroup_size_x,
            limits.max_compute_workgroup_size_y,
            limits.max_compute_workgroup_size_z
        ),
    );
    lim(
        "invocations per workgroup",
        limits.max_compute_invocations_per_workgroup.to_string(),
    );
    lim(
        "workgroup storage",
        fmt_bytes(u64::from(limits.max_compute_workgroup_storage_size)),
    );
    lim(
        "workgroups per dimension",
        limits.max_compute_workgroups_per_dimension.to_string(),
    );
    lim(
        "storage offset alignment",
        format!("{} B", limits.min_storage_buffer_offset_alignment),
    );
    lim("bind groups", limits.max_bind_groups.to_string());
    outln!();
    let pool = dev.memory_pool();
    outln!(
        "Memory pool: {} used, {} cached, {} total, limit {}",
        fmt_bytes(pool.used_bytes()),
        fmt_bytes(pool.free_bytes()),
        fmt_bytes(pool.total_bytes()),
        pool.limit().map(fmt_bytes).unwrap_or_else(|| "none".into())
    );
}

fn adapter_json(r: &AdapterRow, is_default: bool) -> Value {
    json!({
        "index": r.index,
        "name": r.info.name,
        "backend": r.backend(),
        "device_type": r.device_type(),
        "driver": r.driver(),
        "vendor": r.info.vendor,
        "device": r.info.device,
        "default": is_default,
    })
}

fn print_json(
    rows: &[AdapterRow],
    default: Option<usize>,
    dev: Option<&kupfer::Device>,
) -> CliResult {
    let adapters: Vec<Value> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| adapter_json(r, Some(i) == default))
        .collect();
    let device = dev.map(|dev| {
        let info = dev.info();
        let l = &info.limits;
        let features: serde_json::Map<String, Value> = FEATURES
            .iter()
            .map(|(name, f, _)| (name.replace('-', "_"), json!(info.features.contains(*f))))
            .collect();
        let pool = dev.memory_pool();
        let subgroup = default.map(|i| {
            json!([
                rows[i].info.subgroup_min_size,
                rows[i].info.subgroup_max_size
            ])
        });
        json!({
            "index": default.map(|i| rows[i].index),
            "name": info.name,
            "backend": info.backend,
            "device_type": info.device_type,
            "driver": info.driver,
            "vendor": info.vendor,
            "chosen_by": std::env::var("KUPFER_ADAPTER").ok().filter(|v| !v.trim().is_empty())
                .map(|v| format!("KUPFER_ADAPTER={v}"))
                .unwrap_or_else(|| "high-performance".into()),
            "default_int": dev.default_int().to_string(),
            "default_float": dev.default_float().to_string(),
            "gpu_timestamps": dev.context().has_gpu_timestamps(),
            "advice": adapter_advice(info),
            "features": features,
            "subgroup_size": subgroup,
            "limits": {
                "max_buffer_size": l.max_buffer_size,
                "max_storage_buffer_binding_size": l.max_storage_buffer_binding_size,
                "max_uniform_buffer_binding_size": l.max_uniform_buffer_binding_size,
                "max_storage_buffers_per_shader_stage": l.max_storage_buffers_per_shader_stage,
                "max_compute_workgroup_size": [
                    l.max_compute_workgroup_size_x,
                    l.max_compute_workgroup_size_y,
                    l.max_compute_workgroup_size_z,
                ],
                "max_compute_invocations_per_workgroup": l.max_compute_invocations_per_workgroup,
                "max_compute_workgroup_storage_size": l.max_compute_workgroup_storage_size,
                "max_compute_workgroups_per_dimension": l.max_compute_workgroups_per_dimension,
                "min_storage_buffer_offset_alignment": l.min_storage_buffer_offset_alignment,
                "max_bind_groups": l.max_bind_groups,
            },
            "memory_pool": {
                "used_bytes": pool.used_bytes(),
                "free_bytes": pool.free_bytes(),
                "total_bytes": pool.total_bytes(),
                "limit": pool.limit(),
            },
        })
    });
    let doc = json!({
        "kupfer": env!("CARGO_PKG_VERSION"),
        "backend_env": std::env::var("KUPFER_BACKEND").ok(),
        "adapter_env": std::env::var("KUPFER_ADAPTER").ok(),
        "adapters": adapters,
        "default_device": device,
    });
    let text = serde_json::to_string_pretty(&doc)
        .map_err(|e| CliError::usage(format!("cannot encode JSON: {e}")))?;
    outln!("{text}");
    Ok(())
}
