//! Read-only tables that generated kernels share: the ziggurat tables of the random draws
//! (`kupfer_core::random::ziggurat::TABLE_BINDINGS`). Each is one buffer per device, made and
//! filled on first use, never written again, and bound by every dispatch of a pipeline whose
//! source declares it (at its fixed binding number), so every thread of every kernel reads the
//! same copy through the caches.

use crate::context::Context;
use kupfer_core::random::ziggurat::{table_bindings_in, TableBinding};
use kupfer_core::{Error, Result};

/// The shared tables a kernel's source declares.
pub(crate) fn tables_of(wgsl: &str) -> Vec<&'static TableBinding> {
    table_bindings_in(wgsl).collect()
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
