//! Order statistics of many rows, or many of one row, by radix selection instead of a sort
//! (the engine of `median`, `quantile` and `percentile` with their `nan` forms).
//!
//! - Rows of 1024 to 65536 elements (32768 for 64-bit dtypes): one workgroup per row (`shaders/sort_select_rows.wgsl`)
//!   finds up to 16 order statistics per launch in 4 steps per key word, all in one launch;
//!   more targets take more launches (at most [`MAX_ROW_LAUNCHES`]).
//! - A few rows longer than that: the global selection of the engine
//!   (`shaders/sort_select.wgsl`, three order statistics per run of counting passes), row by
//!   row.
//! - Anything else (short rows: the in-workgroup row sort is cheaper there; dtypes without raw
//!   keys) returns None and the caller sorts.
//!
//! `KUPFER_SELECT=old` restores the previous choice (the global selection for one long row
//! and at most three order statistics, sorting otherwise), for timing both.

use super::engine;
use crate::array::Array;
use crate::device::Device;
use kupfer_core::sort::KeyStore;
use kupfer_core::sort_select as wgsl_gen;
use kupfer_core::{DType, Error, Layout, Result};
use kupfer_wgpu::{Binding, GpuBuffer, ShaderChecks};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// The shortest row the per-row selection takes (shorter rows sort inside a workgroup).
const ROW_SELECT_MIN: usize = 1024;
/// The longest row the per-row selection takes (its threads loop over the row per step).
const ROW_SELECT_MAX: usize = 1 << 16;
/// Launches of the per-row selection (16 targets each) before sorting is cheaper.
pub(crate) const MAX_ROW_LAUNCHES: usize = 4;
/// The most rows the global selection takes one by one.
const GLOBAL_ROWS_MAX: usize = 16;
/// The shortest single row the global selection takes instead of one workgroup.
const GLOBAL_MIN: usize = 8192;

static MIN_OVERRIDE: AtomicUsize = AtomicUsize::new(0);

/// Testing hook: the shortest row the per-row selection takes (0 restores 1024), so that
/// short rows exercise it. Changes only performance.
#[doc(hidden)]
pub fn set_row_select_min_for_tests(min: usize) {
    MIN_OVERRIDE.store(min, Ordering::Relaxed);
}

fn row_select_min() -> usize {
    match MIN_OVERRIDE.load(Ordering::Relaxed) {
        0 => ROW_SELECT_MIN,
        v => v,
    }
}

/// Whether `KUPFER_SELECT=old` asks for the previous selection paths (read once).
pub(crate) fn old_paths() -> bool {
    static OLD: OnceLock<bool> = OnceLock::new();
    *OLD.get_or_init(|| std::env::var("KUPFER_SELECT").is_ok_and(|v| v == "old"))
}

/// The ranks wanted of each row.
pub(crate) enum Ranks<'a> {
    /// The same ranks of every row.
    Shared(&'a [usize]),
    /// `t` ranks per row, row after row (`nrows * t` values).
    PerRow(&'a [u32], usize),
}

impl Ranks<'_> {
    fn per_row(&self) -> usize {
        match self {
            Ranks::Shared(r) => r.len(),
            Ranks::PerRow(_, t) => *t,
        }
    }

    fn of_row(&self, row: usize) -> Vec<usize> {
        match self {
            Ranks::Shared(r) => r.to_vec(),
            Ranks::PerRow(r, t) => r[row * t..(row + 1) * t]
                .iter()
                .map(|&v| v as usize)
                .collect(),
        }
    }
}

/// The dtype a selection over `d` runs in (its own, or float32 for float16, uint8 for
/// bool: conversions that keep the order), or None where selection does not apply.
pub(crate) fn selection_dtype(d: DType) -> Option<DType> {
    match d {
        DType::F16 => Some(DType::F32),
        DType::Bool => Some(DType::U8),
        d if engine::keys_only_dtype(d) => Some(d),
        _ => None,
    }
}

/// Most targets of one per-row launch on this device (its workgroup memory).
fn targets_per_launch(device: &Device) -> usize {
    let storage = device
        .context()
        .info()
        .limits
        .max_compute_workgroup_storage_size;
    (1..=16u32)
        .rev()
        .find(|&t| wgsl_gen::select_rows_bytes(t) <= storage)
        .unwrap_or(0) as usize
}

/// The order statistics `ranks` (each below `rowlen`) of every row of `data`, a contiguous
/// `(nrows, rowlen)` array of a [`selection_dtype`], as a `(nrows, t)` array of its dtype
/// (column j: rank j); None where sorting is the better way (see the module docs).
pub(crate) fn select_rows(
    data: &Array,
    nrows: usize,
    rowlen: usize,
    ranks: &Ranks,
) -> Result<Option<Array>> {
    let t = ranks.per_row();
    let d = data.dtype();
    if nrows == 0 || rowlen == 0 || t == 0 || !engine::keys_only_dtype(d) {
        return Ok(None);
    }
    let device = data.device();
    if old_paths() {
        if nrows == 1 && t <= 3 && rowlen > engine::row_limit(device) {
            return by_global(data, nrows, rowlen, ranks).map(Some);
        }
        return Ok(None);
    }
    let per_launch = targets_per_launch(device);
    // Each thread loops over rowlen / 256 elements per step, 4 steps per key word (and over
    // the targets per element): 64-bit keys take rows half as long, to stay within
    // lavapipe's loop budget.
    let longest = if engine::raw_load(d, false).is_some_and(|(_, k)| k == 2) {
        ROW_SELECT_MAX / 2
    } else {
        ROW_SELECT_MAX
    };
    let fits_rows = (row_select_min()..=longest).contains(&rowlen)
        && per_launch > 0
        && t <= per_launch * MAX_ROW_LAUNCHES;
    let global = nrows <= GLOBAL_ROWS_MAX && rowlen > engine::row_limit(device);
    if global && (rowlen > longest || (nrows == 1 && rowlen >= GLOBAL_MIN)) {
        return by_global(data, nrows, rowlen, ranks).map(Some);
    }
    if fits_rows {
        return by_rows(data, nrows, rowlen, ranks, per_launch).map(Some);
    }
    if global {
        return by_global(data, nrows, rowlen, ranks).map(Some);
    }
    Ok(None)
}

/// The value store of the selection's dtype.
fn store_of(d: DType) -> KeyStore {
    match d {
        DType::F32 => KeyStore::F32,
        DType::I8 | DType::I16 | DType::I32 => KeyStore::I32,
        DType::F64 => KeyStore::F64,
        DType::I64 => KeyStore::I64,
        _ => KeyStore::Words,
    }
}

/// The per-row selection: one workgroup per row, `per_launch` targets per launch.
fn by_rows(
    data: &Array,
    nrows: usize,
    rowlen: usize,
    ranks: &Ranks,
    per_launch: usize,
) -> Result<Array> {
    let device = data.device();
    let ctx = device.context();
    let d = data.dtype();
    let Some((load, key_words)) = engine::raw_load(d, false) else {
        return Err(Error::invalid(format!("selection in {d}")));
    };
    let t = ranks.per_row();
    let (rank_words, stride): (Vec<u32>, usize) = match ranks {
        Ranks::Shared(r) => (r.iter().map(|&v| v as u32).collect(), 0),
        Ranks::PerRow(r, t) => (r.to_vec(), *t),
    };
    let rank_arr = Array::from_slice_on(device, &rank_words, &[rank_words.len()])?;
    let (rank_buf, _) = rank_arr.buffer_and_layout()?;
    let (src, off, bytes) = engine::source(data)?;
    let out_words = nrows * t * key_words as usize;
    let out = engine::alloc_words(device, out_words)?;
    let max = ctx.max_workgroups_per_dim() as usize;
    let gx = nrows.min(max);
    let gy = nrows.div_ceil(gx);
    if gy > max {
        return Err(Error::unsupported(format!(
            "a selection over {nrows} rows (at most {max} x {max})"
        )));
    }
    let bind = |b: &Arc<GpuBuffer>, bytes: u64| Binding {
        buffer: b.clone(),
        offset: 0,
        size: bytes.div_ceil(4).max(1) * 4,
    };
    let mut col0 = 0;
    while col0 < t {
        let targets = per_launch.min(t - col0);
        let wgsl = wgsl_gen::select_rows(targets as u32, key_words, load, store_of(d));
        let pipeline = ctx.pipeline_with(&wgsl, "main", ShaderChecks::Trusted)?;
        let fields = [
            rowlen as u32,
            nrows as u32,
            gx as u32,
            off,
            stride as u32,
            col0 as u32,
            t as u32,
            0,
        ];
        let p: Vec<u8> = fields.iter().flat_map(|v| v.to_le_bytes()).collect();
        ctx.dispatch_with(
            &pipeline,
            Some(&p),
            vec![
                (1, bind(&src, bytes)),
                (2, bind(&rank_buf, rank_words.len() as u64 * 4)),
                (3, bind(&out, out_words as u64 * 4)),
            ],
            [gx as u32, gy as u32, 1],
        )?;
        col0 += targets;
    }
    Array::from_buffer(device.clone(), d, out, Layout::contiguous(&[nrows, t])).into_packed_result()
}

/// The global selection, row by row and three ranks at a time.
fn by_global(data: &Array, nrows: usize, rowlen: usize, ranks: &Ranks) -> Result<Array> {
    let flat = data.reshape(&[(nrows * rowlen) as isize])?;
    let mut parts = Vec::new();
    for row in 0..nrows {
        let r = ranks.of_row(row);
        let line = flat
            .slice(&[kupfer_core::SliceArg::Slice {
                start: Some((row * rowlen) as isize),
                stop: Some(((row + 1) * rowlen) as isize),
                step: None,
            }])?
            .ascontiguousarray()?;
        for chunk in r.chunks(3) {
            parts.push(engine::select_ranks(&line, chunk)?);
        }
    }
    let all = if parts.len() == 1 {
        parts.pop().expect("one part")
    } else {
        crate::manip::concatenate(&parts, Some(0), None)?
    };
    all.reshape(&[nrows as isize, ranks.per_row() as isize])
}
