//! Sorting, searching, sets and order statistics (`numpy.sort` and its family), on every GPU.
//!
//! - [`order`] — `sort`, `argsort`, `sort_complex`, `lexsort`, `partition`, `argpartition`
//!   (`partition.rs`: by radix selection and a bucket scatter, else a full sort, which
//!   satisfies partition's contract too).
//! - [`search`] — `searchsorted`; `digitize.rs` — `digitize` (bins' direction read back).
//! - [`unique`](mod@unique) — `unique` and the array API's `unique_*`, `isin`, `intersect1d`, `union1d`,
//!   `setdiff1d`, `setxor1d` (one read-back of the size: `_async` forms);
//!   [`unique_axis`](mod@unique_axis) — `unique(a, axis=k)`.
//! - [`histogram`] — `histogram` with explicit edges or NumPy's bin rules,
//!   `histogram_bin_edges` (statistics read back: `_async` forms).
//! - [`histogramdd`](mod@histogramdd) — `histogramdd` and `histogram2d`.
//! - [`quantile`](mod@quantile) — `median`, `quantile`, `percentile` (NumPy's 13 methods) and their `nan`
//!   forms (which read the per-row counts back); `selection.rs` — their order statistics by
//!   radix selection (one workgroup per row, or the global selection for a few long rows).
//! - `engine.rs`: the kernels' driver — key transforms, the row sort and the radix sort,
//!   and the gathers that apply a permutation.
//!
//! Order is NumPy's: NaN last, -0.0 equal to 0.0, complex values lexicographic by real then
//! imaginary part with NumPy's NaN classes (`R+Rj < R+nanj < nan+Rj < nan+nanj`).
//!
//! **Kinds.** `kind` may be `'quicksort'`, `'mergesort'`, `'heapsort'` or `'stable'` (or
//! NumPy's accepted prefixes: the first letter decides); every kind gives a stable result
//! in kupfer (the radix sort is stable by construction, the row sort breaks ties by
//! position). The one difference: an unstable kind of a long 1-D float32/float64/integer
//! `sort` runs a keys-only radix sort whose order puts -0.0 before 0.0 and orders NaNs by
//! their bits (a valid order for NumPy's unstable kinds, where equal values may come in any
//! order; every element keeps its bits), and so does the keys-only row sort (`rows_keys.rs`)
//! of short rows of 32-bit values. Integer sorts of every kind run these keys-only sorts
//! (equal integers are identical). `KUPFER_SORT_KEYS=payload` sends every sort through the
//! permutation and a gather instead.
//!
//! **Algorithm.** Elements become 32-bit key words whose unsigned order is NumPy's order
//! (signed integers: sign bit flipped; floats: all bits flipped for negatives, the sign bit
//! set otherwise, NaN the largest key, -0.0 mapped to 0.0; 64-bit and complex dtypes have
//! several words). Rows of one word that fit in workgroup memory (at most 4096 elements)
//! are sorted one workgroup per row by a bitonic network over (key, position) pairs. The rest
//! runs a least-significant-digit radix sort with 8-bit digits, four passes per 32-bit word;
//! each pass is an upsweep (per-tile digit counts), a scan of the counts and a stable
//! scatter (ranks from per-digit bit masks of the threads in workgroup memory, keys staged
//! in digit order so that writes coalesce). No pass waits on another workgroup, so the sort
//! is correct where workgroups have no forward-progress guarantee (lavapipe, Metal,
//! WebGPU). A sort along an axis moves the axis last; long rows of many-row arrays sort by
//! (row, key) in one radix sort.
//!
//! **Sync points.** sort, argsort, lexsort, sort_complex, partition, searchsorted, isin,
//! median and quantiles never read back: every launch goes into the device's pending batch.
//! unique and the set functions read back one count per compaction. Arrays above the adapter's largest storage binding
//! are a clear error.

mod digitize;
pub(crate) mod engine;
pub mod histogram;
pub mod histogramdd;
pub mod order;
mod partition;
pub mod quantile;
mod rows_keys;
pub mod search;
mod selection;
pub mod unique;
pub mod unique_axis;

#[cfg(not(target_arch = "wasm32"))]
pub use digitize::digitize;
pub use digitize::digitize_async;
#[doc(hidden)]
pub use engine::{
    set_limits_for_tests, set_old_radix_kernel_for_tests, set_portable_ranking_for_tests,
    set_radix_tuning_for_tests,
};
#[cfg(not(target_arch = "wasm32"))]
pub use histogram::{histogram_bin_edges, histogram_bins};
pub use histogram::{histogram_bins_async, Bins};
#[cfg(not(target_arch = "wasm32"))]
pub use histogramdd::{histogram2d, histogramdd};
pub use histogramdd::{histogram2d_async, histogramdd_async, DimBins};
#[doc(hidden)]
pub use kupfer_core::sort::RadixTuning;
#[doc(hidden)]
pub use kupfer_core::sort_search::TieredForm;
pub use order::{argpartition, argsort, lexsort, partition, sort, sort_complex};
pub use quantile::{median, percentile, percentiles, quantile, quantiles, QuantileMethod};
#[cfg(not(target_arch = "wasm32"))]
pub use quantile::{nanmedian, nanpercentile, nanquantile};
pub use quantile::{nanmedian_async, nanquantile_async};
#[doc(hidden)]
pub use search::{searchsorted, Side};
#[doc(hidden)]
pub use search::{set_search_variant_for_tests, SearchVariant, FINE_MIN_BYTES};
#[doc(hidden)]
pub use selection::set_row_select_min_for_tests;
#[cfg(not(target_arch = "wasm32"))]
pub use unique::{
    intersect1d, setdiff1d, setxor1d, union1d, unique, unique_all, unique_counts, unique_inverse,
    unique_values,
};
pub use unique::{
    intersect1d_async, isin, setdiff1d_async, setxor1d_async, union1d_async, unique_async, Unique,
};
#[cfg(not(target_arch = "wasm32"))]
pub use unique_axis::unique_axis;
pub use unique_axis::unique_axis_async;

use kupfer_core::{Error, Result};

/// Checks a NumPy sort `kind` (`None`: the default). Every kind is stable in kupfer;
/// returns whether the caller asked for stability explicitly (`'stable'`, `'mergesort'`).
pub(crate) fn check_kind(kind: Option<&str>) -> Result<bool> {
    match kind {
        None => Ok(false),
        Some(k) => match k.chars().next() {
            Some('q') | Some('h') => Ok(false),
            Some('s') | Some('m') => Ok(true),
            _ => Err(Error::invalid(format!(
                "sort kind must be one of 'quick', 'heap', or 'stable' (got '{k}')"
            ))),
        },
    }
}
