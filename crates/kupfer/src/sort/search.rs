//! `searchsorted` and `digitize`: a bounded binary search over the order-preserving keys of
//! the sorted array, so NaN, -0.0 and complex values compare as in NumPy's sort order. For
//! 32- and 64-bit integers and floats it is one launch of the two-tier search
//! (`shaders/sort_search_tiered.wgsl`: every workgroup searches 2048 samples of the sorted
//! array in workgroup memory, then a window of it in memory, four queries per thread, one
//! after the other), which computes keys from the raw elements and writes positions in the
//! default integer dtype; other dtypes take the one-tier search (`shaders/sort_search.wgsl`,
//! one thread per query, every step from memory) over precomputed key words. When `a` and
//! `v` share a dtype, are contiguous and there is no `sorter`, the call is that one launch
//! and nothing else (no cast, copy or key pass).
//!
//! `KUPFER_SEARCHSORTED=old` takes the one-tier search for every dtype (for timing);
//! `KUPFER_SEARCHSORTED=x1|x2|x4`, `_QPT`, `_TABLE` and `_SAMPLES` choose the two-tier
//! search's layout ([`SearchVariant`], also for timing; a table adds one small launch).
//! No read-back (digitize reads back whether the bins increase or decrease: one sync point,
//! hence `digitize_async`).

use super::engine;
use crate::array::Array;
use kupfer_core::sort as wgsl_gen;
use kupfer_core::sort_search as tiered;
use kupfer_core::{DType, Error, Layout, Result};
use kupfer_wgpu::{Binding, ShaderChecks};

/// Whether `KUPFER_SEARCHSORTED=old` (read once) asks for the one-tier search (one thread per
/// query, every step from memory) instead of the two-tier one.
pub(crate) fn one_tier() -> bool {
    static OLD: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *OLD.get_or_init(|| std::env::var("KUPFER_SEARCHSORTED").is_ok_and(|v| v == "old"))
}

/// The two-tier search's layout and its samples in workgroup memory (variants for timing).
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchVariant {
    /// Queries per thread (0: 4, or 8 with the third tier), their interleaving, the
    /// contiguous sample table, the third tier's spacing (0: as `fine_auto` says).
    pub form: tiered::TieredForm,
    /// Samples in workgroup memory (a power of two up to 8192; 0: the most of 2048, 1024,
    /// 512 and 256 that fit).
    pub samples: u32,
    /// The third tier's spacing for every size (a power of two from 2 to 256), where
    /// `form.fine` is 0 and `fine_auto` is set: [`FINE_SPACING`] for arrays of at least
    /// [`FINE_MIN_BYTES`].
    pub fine_auto: bool,
}

/// Keys between the third tier's table entries (one 64-byte memory burst of 32-bit keys).
pub const FINE_SPACING: u32 = 16;

/// Queries per thread of the three-tier search (the H200: 0.134 ms for 2^20 queries into
/// 2^24 float32 keys, 0.186 at 4 per thread as the two-tier search takes, 0.296 without the
/// third tier).
pub const FINE_QUERIES_PER_THREAD: u32 = 8;

/// The smallest sorted array (in key bytes) given the third tier: arrays the last-level
/// cache of a large GPU holds gain nothing from it and pay its launch.
pub const FINE_MIN_BYTES: usize = 32 << 20;

static VARIANT_OVERRIDE: std::sync::Mutex<Option<SearchVariant>> = std::sync::Mutex::new(None);

/// Testing hook: the two-tier search's variant (`None`: as the environment says). Changes
/// only performance.
#[doc(hidden)]
pub fn set_search_variant_for_tests(variant: Option<SearchVariant>) {
    *VARIANT_OVERRIDE.lock().unwrap_or_else(|e| e.into_inner()) = variant;
}

/// The two-tier search's variant: the testing hook's, else `KUPFER_SEARCHSORTED=x1|x2|x4`
/// (that many queries stepped together, branch-free), `KUPFER_SEARCHSORTED_QPT=1|2|4|8`
/// (queries per thread; unset: 4, 8 with the third tier), `KUPFER_SEARCHSORTED_TABLE=on` (samples from a contiguous table
/// written by a first launch), `KUPFER_SEARCHSORTED_SAMPLES=256..8192` and
/// `KUPFER_SEARCHSORTED_FINE=off|2..256` (no third tier, or that spacing at every size;
/// unset: [`FINE_SPACING`] from [`FINE_MIN_BYTES`]) (read once).
fn search_variant() -> SearchVariant {
    if let Some(v) = *VARIANT_OVERRIDE.lock().unwrap_or_else(|e| e.into_inner()) {
        return v;
    }
    static ENV: std::sync::OnceLock<SearchVariant> = std::sync::OnceLock::new();
    *ENV.get_or_init(|| {
        let var = |name: &str| std::env::var(name).ok().map(|v| v.trim().to_string());
        let interleave = match var("KUPFER_SEARCHSORTED").as_deref() {
            Some("x1") => 1,
            Some("x2") => 2,
            Some("x4") => 4,
            _ => 0,
        };
        // 0: as the search's tiers say (`two_tier_search`).
        let qpt = var("KUPFER_SEARCHSORTED_QPT")
            .and_then(|v| v.parse::<u32>().ok())
            .filter(|q| matches!(q, 1 | 2 | 4 | 8))
            .unwrap_or(0);
        let samples = var("KUPFER_SEARCHSORTED_SAMPLES")
            .and_then(|v| v.parse::<u32>().ok())
            .filter(|s| s.is_power_of_two() && (256..=8192).contains(s))
            .unwrap_or(0);
        let fine_var = var("KUPFER_SEARCHSORTED_FINE");
        let fine = fine_var
            .as_deref()
            .and_then(|v| v.parse::<u32>().ok())
            .filter(|f| f.is_power_of_two() && (2..=256).contains(f))
            .unwrap_or(0);
        SearchVariant {
            form: tiered::TieredForm {
                qpt,
                interleave,
                table: var("KUPFER_SEARCHSORTED_TABLE").as_deref() == Some("on"),
                fine,
            },
            samples,
            fine_auto: fine == 0 && fine_var.as_deref() != Some("off"),
        }
    })
}

/// Which of the equal positions [`searchsorted`] returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The first suitable position (`a[i-1] < v <= a[i]`).
    Left,
    /// The last (`a[i-1] <= v < a[i]`).
    Right,
}

impl std::str::FromStr for Side {
    type Err = Error;
    fn from_str(s: &str) -> Result<Side> {
        match s {
            "left" => Ok(Side::Left),
            "right" => Ok(Side::Right),
            _ => Err(Error::invalid(format!(
                "side must be 'left' or 'right' (got '{s}')"
            ))),
        }
    }
}

/// `numpy.searchsorted(a, v, side, sorter)`: for each element of `v`, the position in the
/// 1-D array `a` (sorted ascending in NumPy's order, or put in that order by the indices
/// `sorter`) where it would be inserted to keep the order. The result has `v`'s shape and
/// the default integer dtype. `a` and `v` are compared in their common dtype.
///
/// ```
/// use kupfer as kp;
/// let a = kp::Array::from_slice(&[1.0f32, 2.0, 2.0, 3.0], &[4])?;
/// let v = kp::Array::from_slice(&[2.0f32, 0.5, 9.0], &[3])?;
/// let left = kp::searchsorted(&a, &v, kp::sort::Side::Left, None)?;
/// assert_eq!(left.astype(kp::DType::I32)?.to_vec::<i32>()?, vec![1, 0, 4]);
/// # Ok::<(), kp::Error>(())
/// ```
pub fn searchsorted(a: &Array, v: &Array, side: Side, sorter: Option<&Array>) -> Result<Array> {
    if a.ndim() != 1 {
        return Err(Error::invalid("object too deep for desired array"));
    }
    let device = a.device().clone();
    let common = kupfer_core::promote::result_type(a.dtype(), v.dtype())?;
    let mut a = a.astype(common)?;
    if let Some(s) = sorter {
        if s.shape() != a.shape() {
            return Err(Error::invalid("sorter.size must equal a.size"));
        }
        if !(s.dtype().is_int() || s.dtype() == DType::Bool) {
            return Err(Error::invalid("sorter must only contain integers"));
        }
        let idx = s.astype(DType::U32)?.ascontiguousarray()?;
        let (ib, _) = idx.buffer_and_layout()?;
        let src = a.ascontiguousarray()?;
        let n = a.size();
        a = engine::take_rows(&src, n, &ib, n, false, 1, n, n)?.reshape(&[n as isize])?;
    }
    let a = a.ascontiguousarray()?;
    let q = v.astype(common)?.ascontiguousarray()?;
    let nq = q.size();
    let shape = v.shape().to_vec();
    let int = device.default_int();
    if nq == 0 || a.size() == 0 {
        return crate::creation::full_on(&device, &shape, 0i64, Some(int));
    }
    let n = a.size();
    let out_words = if int == DType::I64 { 2 } else { 1 };
    // Raw elements where the kernel computes keys itself, else precomputed key words.
    let (keys, abind, qbind, aoff, qoff) = match engine::raw_load(common, true) {
        Some((load, k)) => {
            let (ab, aoff, abytes) = engine::source(&a)?;
            let (qb, qoff, qbytes) = engine::source(&q)?;
            (
                wgsl_gen::SearchKeys::Raw(load, k),
                (ab, abytes),
                (qb, qbytes),
                aoff,
                qoff,
            )
        }
        None => {
            let (ak, k) = engine::interleaved_keys(&a)?;
            let (qk, _) = engine::interleaved_keys(&q)?;
            let abytes = (n * k * 4) as u64;
            let qbytes = (nq * k * 4) as u64;
            (
                wgsl_gen::SearchKeys::Words(k as u32),
                (ak, abytes),
                (qk, qbytes),
                0,
                0,
            )
        }
    };
    let out = engine::alloc_words(&device, nq * out_words)?;
    let ctx = device.context();
    let bind = |b: &std::sync::Arc<kupfer_wgpu::GpuBuffer>, bytes: u64| Binding {
        buffer: b.clone(),
        offset: 0,
        size: bytes.div_ceil(4).max(1) * 4,
    };
    if let (wgsl_gen::SearchKeys::Raw(..), false) = (keys, one_tier()) {
        let out_kind = tiered::SearchOut::Position(out_words as u32);
        if two_tier_search(&a, &q, u32::from(side == Side::Right), out_kind, &out)? {
            return Ok(Array::from_buffer(
                device.clone(),
                int,
                out,
                Layout::contiguous(&shape),
            ));
        }
    }
    let pipeline = ctx.pipeline_with(
        &wgsl_gen::search(keys, out_words as u32),
        "main",
        ShaderChecks::Trusted,
    )?;
    let groups = nq.div_ceil(256);
    let max = ctx.max_workgroups_per_dim() as usize;
    let gx = groups.min(max);
    let gy = groups.div_ceil(gx);
    let mut p: Vec<u8> = [
        n as u32,
        nq as u32,
        u32::from(side == Side::Right),
        gx as u32,
        aoff,
        qoff,
        0,
        0,
    ]
    .iter()
    .flat_map(|v| v.to_le_bytes())
    .collect();
    p.resize(32, 0);
    ctx.dispatch_with(
        &pipeline,
        Some(&p),
        vec![
            (1, bind(&abind.0, abind.1)),
            (2, bind(&qbind.0, qbind.1)),
            (3, bind(&out, (nq * out_words * 4) as u64)),
        ],
        [gx as u32, gy as u32, 1],
    )?;
    Ok(Array::from_buffer(
        device.clone(),
        int,
        out,
        Layout::contiguous(&shape),
    ))
}

/// Launches the two-tier search of the contiguous 1-D `sorted` for every element of the
/// contiguous `queries` (both of one dtype with a raw key load: the caller checks), writing
/// `out_kind` per query into `out`; `flag` is the side (1: right) for positions and the
/// inversion for membership. False (nothing launched) where the workgroup memory holds too
/// few samples.
fn two_tier_search(
    sorted: &Array,
    queries: &Array,
    flag: u32,
    out_kind: tiered::SearchOut,
    out: &std::sync::Arc<kupfer_wgpu::GpuBuffer>,
) -> Result<bool> {
    let device = sorted.device();
    let ctx = device.context();
    let Some((load, k)) = engine::raw_load(sorted.dtype(), true) else {
        return Ok(false);
    };
    let storage = ctx.info().limits.max_compute_workgroup_storage_size as usize;
    let variant = search_variant();
    let mut form = variant.form;
    let wanted = variant.samples as usize;
    let Some(samples) = [wanted, 2048usize, 1024, 512, 256]
        .into_iter()
        .find(|&s| s > 0 && s * k as usize * 4 <= storage)
    else {
        return Ok(false);
    };
    let n = sorted.size();
    let nq = queries.size();
    if form.fine == 0 && variant.fine_auto && n * k as usize * 4 >= FINE_MIN_BYTES {
        form.fine = FINE_SPACING;
    }
    if form.qpt == 0 {
        form.qpt = if form.fine > 0 {
            FINE_QUERIES_PER_THREAD
        } else {
            tiered::QUERIES_PER_THREAD
        };
    }
    if form.interleave > 0 && !form.qpt.is_multiple_of(form.interleave) {
        form.qpt = form.interleave;
    }
    let (ab, aoff, abytes) = engine::source(sorted)?;
    let (qb, qoff, qbytes) = engine::source(queries)?;
    let wgsl = tiered::search_tiered_form(load, k, samples as u32, out_kind, form);
    let pipeline = ctx.pipeline_with(&wgsl, "main", ShaderChecks::Trusted)?;
    let stride = n.div_ceil(samples);
    let per_group = 256 * form.qpt as usize;
    let groups = nq.div_ceil(per_group);
    let max = ctx.max_workgroups_per_dim() as usize;
    let gx = groups.min(max);
    let gy = groups.div_ceil(gx);
    let (side, invert) = match out_kind {
        tiered::SearchOut::Position(_) => (flag, 0),
        tiered::SearchOut::Membership => (0, flag),
    };
    let out_words = match out_kind {
        tiered::SearchOut::Position(w) => w as usize,
        tiered::SearchOut::Membership => 1,
    };
    let fields = [
        n as u32,
        nq as u32,
        side,
        gx as u32,
        aoff,
        qoff,
        stride as u32,
        n.div_ceil(stride) as u32,
        invert,
        0,
        0,
        0,
    ];
    let p: Vec<u8> = fields.iter().flat_map(|v| v.to_le_bytes()).collect();
    let bind = |b: &std::sync::Arc<kupfer_wgpu::GpuBuffer>, bytes: u64| Binding {
        buffer: b.clone(),
        offset: 0,
        size: bytes.div_ceil(4).max(1) * 4,
    };
    let mut bindings = vec![
        (1, bind(&ab, abytes)),
        (2, bind(&qb, qbytes)),
        (3, bind(out, (nq * out_words * 4) as u64)),
    ];
    if form.table {
        let words = n.div_ceil(stride) * k as usize;
        let table = engine::alloc_words(device, words)?;
        let make = ctx.pipeline_with(&wgsl, "make_table", ShaderChecks::Trusted)?;
        ctx.dispatch_with(
            &make,
            Some(&p),
            vec![(1, bind(&ab, abytes)), (4, bind(&table, words as u64 * 4))],
            [samples.div_ceil(256) as u32, 1, 1],
        )?;
        bindings.push((4, bind(&table, words as u64 * 4)));
    }
    if form.fine > 0 {
        let entries = n.div_ceil(form.fine as usize);
        let words = entries * k as usize;
        let fine = engine::alloc_words(device, words)?;
        let make = ctx.pipeline_with(&wgsl, "make_fine", ShaderChecks::Trusted)?;
        let groups = entries.div_ceil(256).clamp(1, max.min(4096)) as u32;
        ctx.dispatch_with(
            &make,
            Some(&p),
            vec![(1, bind(&ab, abytes)), (5, bind(&fine, words as u64 * 4))],
            [groups, 1, 1],
        )?;
        bindings.push((5, bind(&fine, words as u64 * 4)));
    }
    ctx.dispatch_with(&pipeline, Some(&p), bindings, [gx as u32, gy as u32, 1])?;
    Ok(true)
}

/// `isin` by one launch: for each element of `x` (contiguous, of `sorted`'s dtype), whether
/// the sorted 1-D contiguous `sorted` holds an equal value (negated with `invert`), as a bool
/// array of `x`'s size; None where the two-tier search does not take the dtype (or
/// `KUPFER_SEARCHSORTED=old`).
pub(crate) fn membership(sorted: &Array, x: &Array, invert: bool) -> Result<Option<Array>> {
    if one_tier() || engine::raw_load(sorted.dtype(), true).is_none() {
        return Ok(None);
    }
    let device = sorted.device();
    let out = engine::alloc_words(device, x.size())?;
    let launched = two_tier_search(
        sorted,
        x,
        u32::from(invert),
        tiered::SearchOut::Membership,
        &out,
    )?;
    Ok(launched.then(|| {
        Array::from_buffer(
            device.clone(),
            DType::Bool,
            out,
            Layout::contiguous(&[x.size()]),
        )
    }))
}
