//! `partition` and `argpartition` by selection instead of a sort.
//!
//! The distinct `kth` of every row (at most [`wgsl_gen::MAX_PIVOTS`]) are found by the radix
//! selection of `median` (`selection.rs`: the global selection for a few long rows, one
//! workgroup per row otherwise; no data is moved). Those pivots split each row into
//! `2 * pivots + 1` buckets — below the first pivot, equal to it, between it and the next,
//! and so on — and three launches of `shaders/sort_partition.wgsl` write the buckets one
//! after the other: per-tile bucket counts, one workgroup per row turning them into start
//! positions, and a scatter that reads the data again. Each pivot lands at its rank with
//! smaller keys before and larger after, NumPy's whole promise (the order inside a bucket is
//! unspecified in NumPy; here it is deterministic). Keys are the sort's order-preserving
//! words with -0.0 below 0.0 (NumPy treats them as equal, so either order is valid) and
//! every NaN last.
//!
//! Taken for every dtype the selection has (float16 and bool through float32 and uint8),
//! rows of at least 1024 elements; anything else sorts (see [`super::order::partition`]).
//! `KUPFER_PARTITION=sort` always sorts, for timing both.

use super::engine;
use super::order::Rows;
use super::selection::{select_rows, selection_dtype, Ranks};
use crate::array::Array;
use kupfer_core::sort_partition as wgsl_gen;
use kupfer_core::{DType, Layout, Result};
use std::sync::OnceLock;

/// Whether `KUPFER_PARTITION=sort` asks for the full sort (read once).
fn sort_always() -> bool {
    static SORT: OnceLock<bool> = OnceLock::new();
    *SORT.get_or_init(|| std::env::var("KUPFER_PARTITION").is_ok_and(|v| v == "sort"))
}

/// The distinct ranks of `kth` (already checked against `n`), ascending.
fn ranks(kth: &[isize], n: usize) -> Vec<usize> {
    let mut r: Vec<usize> = kth
        .iter()
        .map(|&k| if k < 0 { k + n as isize } else { k } as usize)
        .collect();
    r.sort_unstable();
    r.dedup();
    r
}

/// `a` partitioned along `axis` around `kth` (checked by the caller): its values, or with
/// `positions` the positions along the axis (default integer dtype); None where sorting
/// does it (see the module docs).
pub(crate) fn by_selection(
    a: &Array,
    kth: &[isize],
    axis: Option<isize>,
    positions: bool,
) -> Result<Option<Array>> {
    let d = a.dtype();
    let Some(sel) = selection_dtype(d) else {
        return Ok(None);
    };
    if sort_always() || a.size() == 0 {
        return Ok(None);
    }
    let rows = Rows::along(a, axis)?;
    let (nrows, rowlen) = (rows.nrows, rows.rowlen);
    let ranks = ranks(kth, rowlen);
    if ranks.is_empty() || ranks.len() > wgsl_gen::MAX_PIVOTS as usize {
        return Ok(None);
    }
    let data = rows.data.astype(sel)?.ascontiguousarray()?;
    let Some(pivots) = select_rows(&data, nrows, rowlen, &Ranks::Shared(&ranks))? else {
        return Ok(None);
    };
    let device = a.device();
    let Some((load, key_words)) = engine::raw_load(sel, false) else {
        return Ok(None);
    };
    let int = device.default_int();
    let out_kind = if positions {
        wgsl_gen::PartitionOut::Positions {
            words: if int == DType::I64 { 2 } else { 1 },
        }
    } else {
        wgsl_gen::PartitionOut::Values { words: key_words }
    };
    let out_words = match out_kind {
        wgsl_gen::PartitionOut::Positions { words } | wgsl_gen::PartitionOut::Values { words } => {
            words as usize
        }
    };
    let m = ranks.len();
    let buckets = 2 * m + 1;
    let items = wgsl_gen::partition_items(rowlen);
    let tiles = rowlen.div_ceil(256 * items as usize);
    let (src, off, bytes) = engine::source(&data)?;
    let pivots = pivots.ascontiguousarray()?;
    let (pbuf, poff, pbytes) = engine::source(&pivots)?;
    let starts = engine::alloc_words(device, nrows * tiles * buckets)?;
    let out = engine::alloc_words(device, nrows * rowlen * out_words)?;
    let wgsl = wgsl_gen::partition(load, key_words, items, m as u32, out_kind);
    let count = engine::pipeline(device, &wgsl, "count")?;
    let scan = engine::pipeline(device, &wgsl, "scan")?;
    let scatter = engine::pipeline(device, &wgsl, "scatter")?;
    let (tile_groups, tile_x) = engine::grid(device, nrows * tiles)?;
    let (row_groups, row_x) = engine::grid(device, nrows)?;
    let fields = |grid_x: u32| {
        engine::params(&[
            rowlen as u32,
            nrows as u32,
            tiles as u32,
            grid_x,
            off,
            poff,
            0,
            0,
        ])
    };
    let starts_bytes = (nrows * tiles * buckets * 4) as u64;
    let out_bytes = (nrows * rowlen * out_words * 4) as u64;
    let ctx = device.context();
    let inputs = || {
        vec![
            (1, engine::bind(&src, bytes)),
            (2, engine::bind(&pbuf, pbytes)),
            (3, engine::bind(&starts, starts_bytes)),
        ]
    };
    ctx.dispatch_with(&count, Some(&fields(tile_x)), inputs(), tile_groups)?;
    ctx.dispatch_with(
        &scan,
        Some(&fields(row_x)),
        vec![(3, engine::bind(&starts, starts_bytes))],
        row_groups,
    )?;
    let mut bound = inputs();
    bound.push((4, engine::bind(&out, out_bytes)));
    ctx.dispatch_with(&scatter, Some(&fields(tile_x)), bound, tile_groups)?;
    let layout = Layout::contiguous(&[nrows, rowlen]);
    let result = if positions {
        Array::from_buffer(device.clone(), int, out, layout)
    } else {
        Array::from_buffer(device.clone(), sel, out, layout).astype(d)?
    };
    rows.restore(result).map(Some)
}
