//! `sort` of short rows without a permutation: the keys-only row sort
//! (`shaders/sort_rows_keys.wgsl`) for rows of 32-bit values that fit the workgroup memory,
//! where the order of equal values is free (every kind but the stable ones, and every kind of
//! integers, whose equal keys are identical values). One launch
//! reads the values and writes them sorted; the (key, position) row sort it replaces takes a
//! key launch, the sort and a gather. `KUPFER_ROWSORT=old` keeps that path.

use super::engine;
use crate::array::Array;
use kupfer_core::sort::KeyStore;
use kupfer_core::sort_rows as wgsl_gen;
use kupfer_core::{DType, Error, Layout, Result};
use kupfer_wgpu::{Binding, ShaderChecks};
use std::sync::OnceLock;

/// Whether `KUPFER_ROWSORT=old` asks for the (key, position) row sort (read once).
fn old_path() -> bool {
    static OLD: OnceLock<bool> = OnceLock::new();
    *OLD.get_or_init(|| std::env::var("KUPFER_ROWSORT").is_ok_and(|v| v == "old"))
}

/// Every row of the contiguous `(nrows, rowlen)` array `data` sorted (-0.0 before 0.0, NaN
/// last, every element's bits kept), or None where this path does not apply (64-bit and other dtypes,
/// rows longer than the workgroup memory holds).
pub(crate) fn sort_rows_keys(data: &Array, nrows: usize, rowlen: usize) -> Result<Option<Array>> {
    let device = data.device();
    let d = data.dtype();
    let store = match d {
        DType::F32 => KeyStore::F32,
        DType::I8 | DType::I16 | DType::I32 => KeyStore::I32,
        DType::U8 | DType::U16 | DType::U32 => KeyStore::Words,
        _ => return Ok(None),
    };
    let limit = engine::row_limit(device);
    if old_path() || nrows == 0 || rowlen < 2 || rowlen > limit {
        return Ok(None);
    }
    let Some((load, 1)) = engine::raw_load(d, false) else {
        return Ok(None);
    };
    let l = rowlen.next_power_of_two();
    let slots = limit
        .next_power_of_two()
        .min(l * nrows.next_power_of_two())
        .max(l);
    if slots > limit {
        return Ok(None);
    }
    let threads = (slots / 2).clamp(32, 256);
    let ctx = device.context();
    let wgsl = wgsl_gen::rows_keys(slots as u32, l as u32, threads as u32, load, store);
    let pipeline = ctx.pipeline_with(&wgsl, "main", ShaderChecks::Trusted)?;
    let n = nrows * rowlen;
    let (src, off, bytes) = engine::source(data)?;
    let out = engine::alloc_words(device, n)?;
    let groups = nrows.div_ceil(slots / l);
    let max = ctx.max_workgroups_per_dim() as usize;
    let gx = groups.min(max);
    let gy = groups.div_ceil(gx);
    if gy > max {
        return Err(Error::unsupported(format!(
            "a row sort of {groups} workgroups (at most {max} x {max})"
        )));
    }
    let p: Vec<u8> = [rowlen as u32, nrows as u32, gx as u32, off]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let bind = |b: &std::sync::Arc<kupfer_wgpu::GpuBuffer>, bytes: u64| Binding {
        buffer: b.clone(),
        offset: 0,
        size: bytes.div_ceil(4).max(1) * 4,
    };
    ctx.dispatch_with(
        &pipeline,
        Some(&p),
        vec![(1, bind(&src, bytes)), (2, bind(&out, n as u64 * 4))],
        [gx as u32, gy as u32, 1],
    )?;
    Ok(Some(
        Array::from_buffer(device.clone(), d, out, Layout::contiguous(&[nrows, rowlen]))
            .into_packed_result()?,
    ))
}
