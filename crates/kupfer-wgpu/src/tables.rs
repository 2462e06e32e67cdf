//! Read-only tables that generated kernels share: the ziggurat tables of the random draws
//! (`kupfer_core::random::ziggurat::TABLE_BINDINGS`). Each is one buffer per device, made and
//! filled on first use, never written again, and bound by every dispatch of a pipeline whose
//! source declares it (at its fixed binding number), so every thread of every kernel reads the
//! same copy through the caches.

use crate::context::Context;
use kupfer_core::random::ziggurat::{table_bindings_in, TableBinding};
use kupfer_core::{Error, Result};

/// The shared tables that entry point `entry` of a kernel's source reads: those it declares
/// that the entry point reaches (a binding the entry point never uses is not in its layout,
/// and binding a buffer there would be an error; naga tells, as it tells wgpu).
pub(crate) fn tables_of(wgsl: &str, entry: &str) -> Vec<&'static TableBinding> {
    let declared: Vec<&'static TableBinding> = table_bindings_in(wgsl).collect();
    if declared.is_empty() {
        return declared;
    }
    let Ok(module) = naga::front::wgsl::parse_str(wgsl) else {
        return declared;
    };
    let mut validator = naga::valid::Validator::new(
        naga::valid::ValidationFlags::empty(),
        naga::valid::Capabilities::all(),
    );
    let (Ok(info), Some(index)) = (
        validator.validate(&module),
        module.entry_points.iter().position(|e| e.name == entry),
    ) else {
        return declared;
    };
    let uses = info.get_entry_point(index);
    declared
        .into_iter()
        .filter(|t| {
            module.global_variables.iter().any(|(handle, global)| {
                global
                    .binding
                    .as_ref()
                    .is_some_and(|b| b.group == 0 && b.binding == t.binding)
                    && !uses[handle].is_empty()
            })
        })
        .collect()
}

impl Context {
    /// The device's buffer of `table`, made and filled on first use.
    pub(crate) fn shared_table(&self, table: &TableBinding) -> Result<wgpu::Buffer> {
        let mut tables = self
            .inner
            .shared_tables
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(b) = tables.get(&table.binding) {
            return Ok(b.clone());
        }
        let bytes = (table.bytes)();
        let buffer = self.inner.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(table.name),
            size: bytes.len() as u64,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: true,
        });
        {
            let mut view = buffer
                .slice(..)
                .get_mapped_range_mut()
                .map_err(|e| Error::Device(format!("mapping a new table buffer failed: {e:?}")))?;
            view.slice(..bytes.len()).copy_from_slice(&bytes);
        }
        buffer.unmap();
        tables.insert(table.binding, buffer.clone());
        Ok(buffer)
    }
}

#[cfg(test)]
mod tests {
    use super::tables_of;
    use kupfer_core::random::ziggurat::{wgsl_tables_with, TableSource};

    #[test]
    fn only_entry_points_that_read_a_table_bind_it() {
        // The float32 normal table's accessor and buffer, and two entry points of which one
        // reads it.
        let tables = wgsl_tables_with("kp_zig_n32_fast(", TableSource::Storage);
        let src = format!(
            "{tables}@group(0) @binding(1) var<storage, read_write> out: array<u32>;\n\
             @compute @workgroup_size(64) fn reads(@builtin(global_invocation_id) id: vec3<u32>) {{\n\
             out[id.x] = kp_zig_n32_fast(id.x & 255u).x;\n}}\n\
             @compute @workgroup_size(64) fn writes(@builtin(global_invocation_id) id: vec3<u32>) {{\n\
             out[id.x] = id.x;\n}}\n"
        );
        let bound = |entry: &str| {
            tables_of(&src, entry)
                .iter()
                .map(|t| t.binding)
                .collect::<Vec<_>>()
        };
        assert_eq!(bound("reads"), [64]);
        assert!(bound("writes").is_empty());
        assert!(tables_of("@compute @workgroup_size(1) fn main() {}", "main").is_empty());
    }
}
