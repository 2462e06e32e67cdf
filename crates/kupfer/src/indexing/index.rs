//! [`Index`]: one entry of a NumPy index (`a[1, ::2, None, ..., idx, mask]`), the [`idx!`]
//! macro, and the resolution of a whole index against an array into a *plan*: a basic view
//! plus the advanced (integer-array) part and where its axes go in the result.
//!
//! NumPy's rules, as implemented: boolean arrays become the integer arrays of their
//! `nonzero` (a mask over `k` axes consumes `k` axes; a Python bool is a 0-d mask adding an
//! axis of length 1 or 0); when any advanced index is present, integers count as 0-d advanced
//! indices; the advanced indices broadcast together, and their axes replace the indexed axes
//! where the advanced indices are adjacent, else they go first.

use crate::array::Array;
use crate::device::Device;
use kupfer_core::layout::broadcast_shapes;
use kupfer_core::{DType, Error, Layout, Result, SliceArg};

/// One entry of an index, as NumPy takes them.
///
/// ```
/// use kupfer::{idx, Index, SliceArg};
/// let a = kupfer::arange(0, 12, 1, Some(kupfer::DType::I32))?.reshape(&[3, 4])?;
/// let mask = kupfer::greater(&a, 5)?;
/// let picked = a.get(&[Index::from(&mask)])?; // a[a > 5]
/// assert_eq!(picked.to_vec::<i32>()?, vec![6, 7, 8, 9, 10, 11]);
/// let cols = a.get(&idx![.., vec![3i64, 0]])?; // a[:, [3, 0]]
/// assert_eq!(cols.to_vec::<i32>()?, vec![3, 0, 7, 4, 11, 8]);
/// # Ok::<(), kupfer::Error>(())
/// ```
#[derive(Debug, Clone)]
pub enum Index {
    /// An integer, a slice, `None` (new axis) or `...` (basic indexing).
    Basic(SliceArg),
    /// An integer or boolean array (advanced indexing).
    Array(Array),
    /// A list of integers given on the host (checked and wrapped on the host).
    List(Vec<i64>),
    /// A Python bool (a 0-d mask).
    Bool(bool),
}

impl From<SliceArg> for Index {
    fn from(s: SliceArg) -> Index {
        Index::Basic(s)
    }
}

impl From<&Array> for Index {
    fn from(a: &Array) -> Index {
        Index::Array(a.clone())
    }
}

impl From<Array> for Index {
    fn from(a: Array) -> Index {
        Index::Array(a)
    }
}

impl From<Vec<i64>> for Index {
    fn from(v: Vec<i64>) -> Index {
        Index::List(v)
    }
}

impl From<&[i64]> for Index {
    fn from(v: &[i64]) -> Index {
        Index::List(v.to_vec())
    }
}

impl From<bool> for Index {
    fn from(b: bool) -> Index {
        Index::Bool(b)
    }
}

/// Converts something into one [`Index`] (used by [`idx!`](crate::idx)): everything [`s!`](crate::s)
/// takes, plus arrays, `Vec<i64>` lists and bools.
pub trait IntoIndex {
    /// The index entry.
    fn into_index(self) -> Index;
}

impl<T: crate::views::IntoSliceArg> IntoIndex for T {
    fn into_index(self) -> Index {
        Index::Basic(self.into_slice_arg())
    }
}

impl IntoIndex for &Array {
    fn into_index(self) -> Index {
        Index::Array(self.clone())
    }
}

impl IntoIndex for Array {
    fn into_index(self) -> Index {
        Index::Array(self)
    }
}

impl IntoIndex for Vec<i64> {
    fn into_index(self) -> Index {
        Index::List(self)
    }
}

impl IntoIndex for bool {
    fn into_index(self) -> Index {
        Index::Bool(self)
    }
}

impl IntoIndex for Index {
    fn into_index(self) -> Index {
        self
    }
}

/// A NumPy index as an array of [`Index`]: [`s!`](crate::s)'s entries (integers, ranges, `;step`,
/// `SliceArg::NewAxis`, `SliceArg::Ellipsis`) plus arrays (`&mask`, `&idx`), `vec![..]` lists
/// of `i64` and bools. `a.get(&idx![.., &cols])` is NumPy's `a[:, cols]`.
#[macro_export]
macro_rules! idx {
    (@acc [$($acc:expr),*]) => { [$($acc),*] };
    (@acc [$($acc:expr),*] $r:expr ; $step:expr , $($rest:tt)*) => {
        $crate::idx!(@acc [$($acc,)* $crate::Index::Basic($crate::views::stepped($r, $step as isize))] $($rest)*)
    };
    (@acc [$($acc:expr),*] $r:expr ; $step:expr) => {
        $crate::idx!(@acc [$($acc,)* $crate::Index::Basic($crate::views::stepped($r, $step as isize))])
    };
    (@acc [$($acc:expr),*] $r:expr , $($rest:tt)*) => {
        $crate::idx!(@acc [$($acc,)* $crate::indexing::IntoIndex::into_index($r)] $($rest)*)
    };
    (@acc [$($acc:expr),*] $r:expr) => {
        $crate::idx!(@acc [$($acc,)* $crate::indexing::IntoIndex::into_index($r)])
    };
    ($($t:tt)*) => { $crate::idx!(@acc [] $($t)*) };
}

/// An advanced index over one axis of the (new-axis-expanded) view.
#[derive(Debug, Clone)]
pub(crate) enum Adv {
    /// Values known on the host (already wrapped into `0..len` and checked), with their shape.
    Host(Vec<i64>, Vec<usize>),
    /// An integer array on the device (checked by the gather, or by a read-back of its min
    /// and max before a write).
    Device(Array),
}

impl Adv {
    pub(crate) fn shape(&self) -> &[usize] {
        match self {
            Adv::Host(_, s) => s,
            Adv::Device(a) => a.shape(),
        }
    }
}

/// A resolved index: `view` is the array with every basic entry applied (new axes inserted,
/// slices taken; advanced axes left whole); `adv[k]` indexes view axis `axes[k]`.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub view: Layout,
    pub axes: Vec<usize>,
    pub adv: Vec<Adv>,
    /// The broadcast shape of the advanced indices.
    pub block: Vec<usize>,
    /// Where the block goes among the result's axes (0 when the advanced indices are not
    /// adjacent).
    pub block_at: usize,
    /// The result's shape.
    pub shape: Vec<usize>,
    /// The indexed array's axis of each advanced index (for error messages).
    pub src_axes: Vec<usize>,
    /// Device indices that hold negative values (wrapped in the offset expression).
    pub wrap: Vec<bool>,
    /// Device indices whose bounds the gather kernel checks (reported at the next sync).
    pub checked: Vec<bool>,
    /// The device (host lists are uploaded to it).
    pub device: Option<Device>,
}

impl Plan {
    /// View axes that are not advanced, in order.
    pub(crate) fn basic_axes(&self) -> Vec<usize> {
        (0..self.view.ndim())
            .filter(|j| !self.axes.contains(j))
            .collect()
    }

    /// The result axis of view axis `j` (a basic axis).
    pub(crate) fn out_axis(&self, j: usize) -> usize {
        let pos = self.basic_axes().iter().position(|&b| b == j).unwrap_or(0);
        if pos < self.block_at {
            pos
        } else {
            pos + self.block.len()
        }
    }
}

/// An index entry after expansion: per consumed or inserted axis.
#[derive(Debug, Clone)]
pub(crate) enum Entry {
    Basic(SliceArg),
    NewAxis,
    Int(isize),
    Array(Array),
    List(Vec<i64>),
    Bool(bool),
    /// An ellipsis standing for no axes: it still separates advanced indices (NumPy's rule
    /// counts positions in the index).
    Gap,
}

/// Number of axes an entry consumes.
fn consumes(i: &Index) -> usize {
    match i {
        Index::Basic(SliceArg::NewAxis) | Index::Basic(SliceArg::Ellipsis) | Index::Bool(_) => 0,
        Index::Basic(_) | Index::List(_) => 1,
        Index::Array(a) if a.dtype() == DType::Bool => a.ndim(),
        Index::Array(_) => 1,
    }
}

/// Expands the ellipsis, checks the count, and classifies the entries.
pub(crate) fn expand(index: &[Index], ndim: usize) -> Result<Vec<Entry>> {
    let consumed: usize = index.iter().map(consumes).sum();
    let ellipses = index
        .iter()
        .filter(|i| matches!(i, Index::Basic(SliceArg::Ellipsis)))
        .count();
    if ellipses > 1 {
        return Err(Error::invalid(
            "an index can only have a single ellipsis ('...')",
        ));
    }
    if consumed > ndim {
        return Err(Error::invalid(format!(
            "too many indices for array: array is {ndim}-dimensional, but {consumed} were indexed"
        )));
    }
    let mut out = Vec::with_capacity(index.len() + ndim);
    for i in index {
        match i {
            Index::Basic(SliceArg::Ellipsis) if ndim == consumed => out.push(Entry::Gap),
            Index::Basic(SliceArg::Ellipsis) => out.extend(std::iter::repeat_n(
                Entry::Basic(SliceArg::FULL),
                ndim - consumed,
            )),
            Index::Basic(SliceArg::NewAxis) => out.push(Entry::NewAxis),
            Index::Basic(SliceArg::Index(k)) => out.push(Entry::Int(*k)),
            Index::Basic(s) => out.push(Entry::Basic(*s)),
            Index::Array(a) => {
                if a.dtype() != DType::Bool && !a.dtype().is_int() {
                    return Err(Error::invalid(
                        "arrays used as indices must be of integer (or boolean) type",
                    ));
                }
                out.push(Entry::Array(a.clone()))
            }
            Index::List(v) => out.push(Entry::List(v.clone())),
            Index::Bool(b) => out.push(Entry::Bool(*b)),
        }
    }
    if ellipses == 0 {
        out.extend(std::iter::repeat_n(
            Entry::Basic(SliceArg::FULL),
            ndim - consumed,
        ));
    }
    Ok(out)
}

/// The mask of an index that is exactly one boolean array of rank `ndim` (the fused mask
/// paths), if it is one.
pub(crate) fn single_mask(index: &[Index], ndim: usize) -> Option<&Array> {
    match index {
        [Index::Array(m)] if m.dtype() == DType::Bool && m.ndim() == ndim => Some(m),
        _ => None,
    }
}

/// True when an expanded index has advanced entries.
pub(crate) fn is_advanced(entries: &[Entry]) -> bool {
    entries
        .iter()
        .any(|e| matches!(e, Entry::Array(_) | Entry::List(_) | Entry::Bool(_)))
}

/// The basic-only index as slice arguments.
pub(crate) fn basic_args(entries: &[Entry]) -> Vec<SliceArg> {
    entries
        .iter()
        .filter_map(|e| match e {
            Entry::Basic(s) => Some(*s),
            Entry::NewAxis => Some(SliceArg::NewAxis),
            Entry::Int(k) => Some(SliceArg::Index(*k)),
            Entry::Gap => None,
            _ => Some(SliceArg::FULL),
        })
        .collect()
}

/// NumPy's boolean-index shape check: `mask` covers `axes` of `shape` starting at `first`.
pub(crate) fn check_mask(mask: &[usize], shape: &[usize], first: usize) -> Result<()> {
    for (k, (&m, &s)) in mask.iter().zip(&shape[first..]).enumerate() {
        if m != s {
            return Err(Error::invalid(format!(
                "boolean index did not match indexed array along axis {}; size of axis is {s} \
                 but size of corresponding boolean axis is {m}",
                first + k
            )));
        }
    }
    Ok(())
}

/// Wraps and checks host index values against an axis of length `len`.
pub(crate) fn wrap_host(values: &[i64], len: usize, axis: usize) -> Result<Vec<i64>> {
    values
        .iter()
        .map(|&v| {
            let w = if v < 0 { v + len as i64 } else { v };
            if w < 0 || w >= len as i64 {
                Err(out_of_bounds(v, axis, len))
            } else {
                Ok(w)
            }
        })
        .collect()
}

/// NumPy's out-of-bounds message.
pub(crate) fn out_of_bounds(v: i64, axis: usize, len: usize) -> Error {
    Error::invalid(format!(
        "index {v} is out of bounds for axis {axis} with size {len}"
    ))
}

/// Resolves `entries` (expanded, masks already replaced by integer arrays via `nonzero`)
/// against `layout` into a [`Plan`]. Integers become host 0-d advanced indices (NumPy's rule
/// when advanced indices are present); host lists are wrapped and checked here.
pub(crate) fn plan(layout: &Layout, entries: &[Entry], device: &Device) -> Result<Plan> {
    // Insert new axes first (as full slices of length-1 axes), so every entry indexes one
    // axis of `expanded`.
    let mut shape = Vec::new();
    let mut strides = Vec::new();
    let mut args = Vec::new();
    let mut adv_at: Vec<(usize, Adv)> = Vec::new();
    let mut src_axes = Vec::new();
    let mut src = 0usize;
    let mut src_axis_of = Vec::new();
    // The position in the index of each advanced entry (adjacency is decided there).
    let mut positions = Vec::new();
    for (position, e) in entries.iter().enumerate() {
        let j = shape.len();
        let before = adv_at.len();
        match e {
            Entry::Gap => {}
            Entry::NewAxis => {
                shape.push(1);
                strides.push(0);
                args.push(SliceArg::FULL);
                src_axis_of.push(None);
            }
            Entry::Bool(b) => {
                shape.push(1);
                strides.push(0);
                args.push(SliceArg::FULL);
                src_axis_of.push(None);
                let n = usize::from(*b);
                adv_at.push((j, Adv::Host(vec![0; n], vec![n])));
                src_axes.push(src);
            }
            _ => {
                shape.push(layout.shape[src]);
                strides.push(layout.strides[src]);
                src_axis_of.push(Some(src));
                match e {
                    Entry::Basic(s) => args.push(*s),
                    Entry::Int(k) => {
                        args.push(SliceArg::FULL);
                        let w = wrap_host(&[*k as i64], layout.shape[src], src)?;
                        adv_at.push((j, Adv::Host(w, vec![])));
                        src_axes.push(src);
                    }
                    Entry::List(v) => {
                        args.push(SliceArg::FULL);
                        let w = wrap_host(v, layout.shape[src], src)?;
                        adv_at.push((j, Adv::Host(w, vec![v.len()])));
                        src_axes.push(src);
                    }
                    Entry::Array(a) => {
                        args.push(SliceArg::FULL);
                        adv_at.push((j, Adv::Device(a.clone())));
                        src_axes.push(src);
                    }
                    _ => unreachable!("new axes handled above"),
                }
                src += 1;
            }
        }
        if adv_at.len() > before {
            positions.push(position);
        }
    }
    let expanded = Layout {
        shape,
        strides,
        offset: layout.offset,
    };
    let view = expanded.slice(&args)?;
    let mut block: Vec<usize> = Vec::new();
    for (_, a) in &adv_at {
        block = broadcast_shapes(&block, a.shape()).map_err(|_| {
            let shapes: Vec<String> = adv_at
                .iter()
                .map(|(_, a)| {
                    let s: Vec<String> = a.shape().iter().map(|d| d.to_string()).collect();
                    if s.len() == 1 {
                        format!("({},)", s[0])
                    } else {
                        format!("({})", s.join(","))
                    }
                })
                .collect();
            Error::invalid(format!(
                "shape mismatch: indexing arrays could not be broadcast together with shapes {}",
                shapes.join(" ")
            ))
        })?;
    }
    let axes: Vec<usize> = adv_at.iter().map(|(j, _)| *j).collect();
    let adjacent = positions.windows(2).all(|w| w[1] == w[0] + 1);
    let basic: Vec<usize> = (0..view.ndim()).filter(|j| !axes.contains(j)).collect();
    let block_at = if adjacent {
        basic.iter().filter(|&&j| j < axes[0]).count()
    } else {
        0
    };
    let mut out_shape: Vec<usize> = basic[..block_at].iter().map(|&j| view.shape[j]).collect();
    out_shape.extend(&block);
    out_shape.extend(basic[block_at..].iter().map(|&j| view.shape[j]));
    let wrap = vec![false; adv_at.len()];
    Ok(Plan {
        view,
        axes,
        src_axes,
        checked: wrap.clone(),
        wrap,
        device: Some(device.clone()),
        adv: adv_at.into_iter().map(|(_, a)| a).collect(),
        block,
        block_at,
        shape: out_shape,
    })
}
