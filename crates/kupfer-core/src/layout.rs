//! Shapes and strided layouts: broadcasting, slicing, transposes and reshapes as views.
//!
//! Strides and offsets count elements (not bytes) and may be negative (reversed views) or
//! zero (broadcast views).

use crate::error::{Error, Result};

/// One entry of an index expression such as NumPy's `a[1, ::-1, None, ...]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SliceArg {
    /// An integer index: removes the axis. Negative counts from the end.
    Index(isize),
    /// `start:stop:step`; `None` fields take NumPy's defaults (which depend on the step's sign).
    Slice {
        /// First index (inclusive).
        start: Option<isize>,
        /// End index (exclusive).
        stop: Option<isize>,
        /// Step; must not be 0.
        step: Option<isize>,
    },
    /// ndarray's `start..stop;step`: the range `[start, stop)` (negative bounds count from the
    /// end, `stop: None` is the end) walked with `step`; a negative step walks it from its end.
    Stepped {
        /// First index of the range (inclusive).
        start: isize,
        /// End of the range (exclusive).
        stop: Option<isize>,
        /// Step; must not be 0.
        step: isize,
    },
    /// `None` / `np.newaxis`: inserts an axis of length 1.
    NewAxis,
    /// `...`: as many full slices as needed.
    Ellipsis,
}

impl SliceArg {
    /// The full slice `:`.
    pub const FULL: SliceArg = SliceArg::Slice {
        start: None,
        stop: None,
        step: None,
    };

    /// `start..stop` with step 1.
    pub fn range(start: isize, stop: isize) -> SliceArg {
        SliceArg::Slice {
            start: Some(start),
            stop: Some(stop),
            step: None,
        }
    }
}

/// Shape, strides (in elements) and offset (in elements) of a view into a buffer.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Layout {
    /// Length of each axis.
    pub shape: Vec<usize>,
    /// Element step of each axis.
    pub strides: Vec<isize>,
    /// Element index of the first element.
    pub offset: usize,
}

/// Row-major (C-order) strides of a shape.
pub fn contiguous_strides(shape: &[usize]) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    let mut acc = 1isize;
    for (s, &n) in strides.iter_mut().zip(shape).rev() {
        *s = acc;
        acc = acc.saturating_mul(n.max(1) as isize);
    }
    strides
}

/// Number of elements of a shape. Saturates at `usize::MAX` instead of wrapping: shapes that
/// reach kupfer's arrays have passed [`checked_size`], so saturation only keeps an unchecked
/// caller from computing a small, wrong count.
pub fn size_of(shape: &[usize]) -> usize {
    if shape.contains(&0) {
        return 0;
    }
    shape.iter().fold(1usize, |acc, &n| acc.saturating_mul(n))
}

/// NumPy's limit on the number of axes (`NPY_MAXDIMS`).
pub const MAX_DIMS: usize = 64;

/// NumPy's "array is too big" message: the shape's bytes would pass `isize::MAX`.
pub const TOO_BIG: &str =
    "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.";

/// The element count of an array of `shape` whose elements take `itemsize` bytes, checked as
/// NumPy checks a new array's shape: at most [`MAX_DIMS`] axes, each at most `isize::MAX`, and
/// `size * itemsize` (zero-length axes skipped, as NumPy skips them) at most `isize::MAX`.
/// Every function that makes an array of a shape a user chose calls this first.
///
/// ```
/// use kupfer_core::layout::checked_size;
/// assert_eq!(checked_size(&[3, 4], 8).unwrap(), 12);
/// assert!(checked_size(&[1 << 32, 1 << 32], 1).is_err()); // 2^64 elements
/// assert!(checked_size(&[0, 1 << 62, 4], 8).is_err()); // NumPy refuses this too
/// ```
pub fn checked_size(shape: &[usize], itemsize: usize) -> Result<usize> {
    if shape.len() > MAX_DIMS {
        return Err(Error::invalid(format!(
            "maximum supported dimension for an ndarray is currently {MAX_DIMS}, found {}",
            shape.len()
        )));
    }
    let mut bytes = itemsize.max(1);
    for &n in shape {
        if n > isize::MAX as usize {
            return Err(Error::invalid("Maximum allowed dimension exceeded"));
        }
        if n == 0 {
            continue;
        }
        bytes = bytes
            .checked_mul(n)
            .filter(|&b| b <= isize::MAX as usize)
            .ok_or_else(|| Error::invalid(TOO_BIG))?;
    }
    Ok(size_of(shape))
}

/// A shape from signed lengths (as a user writes them), with NumPy's errors for negative
/// and oversized lengths; the result still needs [`checked_size`] for its total.
pub fn shape_from_signed(dims: &[i64]) -> Result<Vec<usize>> {
    dims.iter()
        .map(|&d| {
            if d < 0 {
                Err(Error::invalid("negative dimensions are not allowed"))
            } else {
                usize::try_from(d)
                    .ok()
                    .filter(|&n| n <= isize::MAX as usize)
                    .ok_or_else(|| Error::invalid("Maximum allowed dimension exceeded"))
            }
        })
        .collect()
}

/// NumPy broadcasting of two shapes.
///
/// ```
/// use kupfer_core::layout::broadcast_shapes;
/// assert_eq!(broadcast_shapes(&[3, 1], &[4]).unwrap(), vec![3, 4]);
/// assert!(broadcast_shapes(&[3], &[4]).is_err());
/// ```
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let da = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let db = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        out[i] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return Err(Error::ShapeMismatch {
                op: "broadcast".into(),
                lhs: a.to_vec(),
                rhs: b.to_vec(),
            });
        };
    }
    if checked_size(&out, 1).is_err() {
        return Err(Error::invalid("broadcast dimensions too large."));
    }
    Ok(out)
}

/// Normalises a possibly negative axis against `ndim`.
pub fn normalize_axis(axis: isize, ndim: usize) -> Result<usize> {
    let n = ndim as isize;
    if axis < -n || axis >= n {
        return Err(Error::invalid(format!(
            "axis {axis} is out of bounds for array of dimension {ndim}"
        )));
    }
    Ok(if axis < 0 { axis + n } else { axis } as usize)
}

/// Resolves a reshape target with at most one `-1` against a total size.
pub fn resolve_shape(new_shape: &[isize], size: usize) -> Result<Vec<usize>> {
    let mut unknown = None;
    let mut known = 1usize;
    for (i, &d) in new_shape.iter().enumerate() {
        if d == -1 {
            if unknown.replace(i).is_some() {
                return Err(Error::invalid("can only specify one unknown dimension"));
            }
        } else if d < 0 {
            return Err(Error::invalid(format!("negative dimension {d} in reshape")));
        } else {
            known = known.saturating_mul(d as usize);
        }
    }
    let mut out: Vec<usize> = new_shape.iter().map(|&d| d.max(0) as usize).collect();
    match unknown {
        Some(i) => {
            if known == 0 || !size.is_multiple_of(known) {
                return Err(Error::invalid(format!(
                    "cannot reshape array of size {size} into shape {new_shape:?}"
                )));
            }
            out[i] = size / known;
        }
        None if known != size => {
            return Err(Error::invalid(format!(
                "cannot reshape array of size {size} into shape {new_shape:?}"
            )))
        }
        None => {}
    }
    checked_size(&out, 1)?;
    Ok(out)
}

impl Layout {
    /// A C-contiguous layout of `shape` at offset 0.
    pub fn contiguous(shape: &[usize]) -> Layout {
        Layout {
            shape: shape.to_vec(),
            strides: contiguous_strides(shape),
            offset: 0,
        }
    }

    /// Number of axes.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// Number of elements.
    pub fn size(&self) -> usize {
        size_of(&self.shape)
    }

    /// True when elements are laid out densely in C order (offset may be non-zero).
    pub fn is_c_contiguous(&self) -> bool {
        if self.size() <= 1 {
            return true;
        }
        let mut acc = 1isize;
        for (&n, &s) in self.shape.iter().zip(&self.strides).rev() {
            if n != 1 && s != acc {
                return false;
            }
            acc *= n as isize;
        }
        true
    }

    /// The range of element indices `[lo, hi]` this view touches (None when empty).
    pub fn span(&self) -> Option<(usize, usize)> {
        if self.size() == 0 {
            return None;
        }
        let (mut lo, mut hi) = (self.offset as isize, self.offset as isize);
        for (&n, &s) in self.shape.iter().zip(&self.strides) {
            let ext = (n as isize - 1) * s;
            if ext < 0 {
                lo += ext;
            } else {
                hi += ext;
            }
        }
        Some((lo.max(0) as usize, hi.max(0) as usize))
    }

    /// Broadcasts this view to `shape` (a view with zero strides).
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Layout> {
        checked_size(shape, 1)?;
        if shape.len() < self.ndim() {
            return Err(Error::ShapeMismatch {
                op: "broadcast_to".into(),
                lhs: self.shape.clone(),
                rhs: shape.to_vec(),
            });
        }
        let lead = shape.len() - self.ndim();
        let mut strides = vec![0isize; shape.len()];
        for (i, &target) in shape.iter().enumerate().skip(lead) {
            let (n, s) = (self.shape[i - lead], self.strides[i - lead]);
            if n == target {
                strides[i] = if n == 1 { 0 } else { s };
            } else if n == 1 {
                strides[i] = 0;
            } else {
                return Err(Error::ShapeMismatch {
                    op: "broadcast_to".into(),
                    lhs: self.shape.clone(),
                    rhs: shape.to_vec(),
                });
            }
        }
        Ok(Layout {
            shape: shape.to_vec(),
            strides,
            offset: self.offset,
        })
    }

    /// Permutes the axes (`axes` is a permutation of `0..ndim`, negative entries allowed).
    pub fn permute(&self, axes: &[isize]) -> Result<Layout> {
        if axes.len() != self.ndim() {
            return Err(Error::invalid(format!(
                "axes {axes:?} don't match array of dimension {}",
                self.ndim()
            )));
        }
        let mut seen = vec![false; self.ndim()];
        let mut shape = Vec::with_capacity(axes.len());
        let mut strides = Vec::with_capacity(axes.len());
        for &a in axes {
            let a = normalize_axis(a, self.ndim())?;
            if std::mem::replace(&mut seen[a], true) {
                return Err(Error::invalid(format!(
                    "repeated axis in transpose: {axes:?}"
                )));
            }
            shape.push(self.shape[a]);
            strides.push(self.strides[a]);
        }
        Ok(Layout {
            shape,
            strides,
            offset: self.offset,
        })
    }

    /// Reverses the axes (`.T`).
    pub fn transpose(&self) -> Layout {
        Layout {
            shape: self.shape.iter().rev().copied().collect(),
            strides: self.strides.iter().rev().copied().collect(),
            offset: self.offset,
        }
    }

    /// Applies NumPy basic indexing.
    pub fn slice(&self, args: &[SliceArg]) -> Result<Layout> {
        let consumed = args
            .iter()
            .filter(|a| {
                matches!(
                    a,
                    SliceArg::Index(_) | SliceArg::Slice { .. } | SliceArg::Stepped { .. }
                )
            })
            .count();
        if args.iter().filter(|a| **a == SliceArg::Ellipsis).count() > 1 {
            return Err(Error::invalid(
                "an index can only have a single ellipsis ('...')",
            ));
        }
        if consumed > self.ndim() {
            return Err(Error::invalid(format!(
                "too many indices for array: array is {}-dimensional, but {consumed} were indexed",
                self.ndim()
            )));
        }
        let mut shape = Vec::new();
        let mut strides = Vec::new();
        let mut offset = self.offset as isize;
        let mut axis = 0usize;
        let mut expanded: Vec<SliceArg> = Vec::with_capacity(args.len() + self.ndim());
        for a in args {
            if *a == SliceArg::Ellipsis {
                expanded.extend(std::iter::repeat_n(SliceArg::FULL, self.ndim() - consumed));
            } else {
                expanded.push(*a);
            }
        }
        for a in expanded {
            match a {
                SliceArg::NewAxis => {
                    shape.push(1);
                    strides.push(0);
                }
                SliceArg::Index(i) => {
                    let n = self.shape[axis] as isize;
                    let j = if i < 0 { i + n } else { i };
                    if j < 0 || j >= n {
                        return Err(Error::invalid(format!(
                            "index {i} is out of bounds for axis {axis} with size {n}"
                        )));
                    }
                    offset += j * self.strides[axis];
                    axis += 1;
                }
                SliceArg::Slice { start, stop, step } => {
                    let n = self.shape[axis] as isize;
                    let step = step.unwrap_or(1);
                    if step == 0 {
                        return Err(Error::invalid("slice step cannot be zero"));
                    }
                    let (start, len) = slice_indices(start, stop, step, n);
                    if len > 0 {
                        offset += start * self.strides[axis];
                    }
                    shape.push(len as usize);
                    strides.push(self.strides[axis] * step);
                    axis += 1;
                }
                SliceArg::Stepped { start, stop, step } => {
                    let n = self.shape[axis] as isize;
                    if step == 0 {
                        return Err(Error::invalid("slice step cannot be zero"));
                    }
                    let norm = |v: isize| (if v < 0 { v + n } else { v }).clamp(0, n);
                    let (lo, hi) = (norm(start), stop.map_or(n, norm));
                    let span = (hi - lo).max(0);
                    let len = (span + step.abs() - 1) / step.abs();
                    if len > 0 {
                        let first = if step > 0 { lo } else { hi - 1 };
                        offset += first * self.strides[axis];
                    }
                    shape.push(len as usize);
                    strides.push(self.strides[axis] * step);
                    axis += 1;
                }
                SliceArg::Ellipsis => unreachable!("expanded above"),
            }
        }
        for ax in axis..self.ndim() {
            shape.push(self.shape[ax]);
            strides.push(self.strides[ax]);
        }
        Ok(Layout {
            shape,
            strides,
            offset: offset.max(0) as usize,
        })
    }

    /// Reshapes without copying, if the strides allow it (NumPy's no-copy reshape rule).
    /// Returns `None` when a copy is needed.
    pub fn reshape_view(&self, new_shape: &[usize]) -> Option<Layout> {
        if size_of(new_shape) != self.size() {
            return None;
        }
        if self.size() == 0 || self.is_c_contiguous() {
            return Some(Layout {
                shape: new_shape.to_vec(),
                strides: contiguous_strides(new_shape),
                offset: self.offset,
            });
        }
        // Drop unit axes, then match groups of old axes to groups of new axes.
        let old: Vec<(usize, isize)> = self
            .shape
            .iter()
            .zip(&self.strides)
            .filter(|(&n, _)| n != 1)
            .map(|(&n, &s)| (n, s))
            .collect();
        let mut new_strides = vec![0isize; new_shape.len()];
        let (mut oi, mut ni) = (0usize, 0usize);
        while ni < new_shape.len() || oi < old.len() {
            // skip unit axes of the new shape
            if ni < new_shape.len() && new_shape[ni] == 1 {
                new_strides[ni] = 0;
                ni += 1;
                continue;
            }
            if oi >= old.len() || ni >= new_shape.len() {
                return None;
            }
            let (o_start, n_start) = (oi, ni);
            let (mut op, mut np) = (old[oi].0, new_shape[ni]);
            oi += 1;
            ni += 1;
            while op != np {
                if op < np {
                    op *= old.get(oi)?.0;
                    oi += 1;
                } else {
                    np *= *new_shape.get(ni)?;
                    ni += 1;
                }
            }
            // old axes o_start..oi must be mutually contiguous
            for k in o_start..oi - 1 {
                if old[k].1 != old[k + 1].1 * old[k + 1].0 as isize {
                    return None;
                }
            }
            let mut s = old[oi - 1].1;
            for k in (n_start..ni).rev() {
                new_strides[k] = s;
                s *= new_shape[k] as isize;
            }
        }
        Some(Layout {
            shape: new_shape.to_vec(),
            strides: new_strides,
            offset: self.offset,
        })
    }

    /// Removes the given unit axes (all unit axes when `axes` is `None`).
    pub fn squeeze(&self, axes: Option<&[isize]>) -> Result<Layout> {
        let drop: Vec<bool> = match axes {
            None => self.shape.iter().map(|&n| n == 1).collect(),
            Some(ax) => {
                let mut d = vec![false; self.ndim()];
                for &a in ax {
                    let a = normalize_axis(a, self.ndim())?;
                    if self.shape[a] != 1 {
                        return Err(Error::invalid(
                            "cannot select an axis to squeeze out which has size not equal to one",
                        ));
                    }
                    d[a] = true;
                }
                d
            }
        };
        let keep = |i: &usize| !drop[*i];
        Ok(Layout {
            shape: (0..self.ndim())
                .filter(keep)
                .map(|i| self.shape[i])
                .collect(),
            strides: (0..self.ndim())
                .filter(keep)
                .map(|i| self.strides[i])
                .collect(),
            offset: self.offset,
        })
    }

    /// Inserts a unit axis at `axis` (in the result's numbering, as NumPy).
    pub fn expand_dims(&self, axis: isize) -> Result<Layout> {
        let a = normalize_axis(axis, self.ndim() + 1)?;
        let mut out = self.clone();
        out.shape.insert(a, 1);
        out.strides.insert(a, 0);
        Ok(out)
    }
}

/// NumPy's `slice.indices` then length: (first index, number of elements).
fn slice_indices(
    start: Option<isize>,
    stop: Option<isize>,
    step: isize,
    n: isize,
) -> (isize, isize) {
    let clamp = |v: isize, lo: isize, hi: isize| v.max(lo).min(hi);
    let norm = |v: isize| if v < 0 { v + n } else { v };
    let (start, stop) = if step > 0 {
        (
            start.map_or(0, |s| clamp(norm(s), 0, n)),
            stop.map_or(n, |s| clamp(norm(s), 0, n)),
        )
    } else {
        (
            start.map_or(n - 1, |s| clamp(norm(s), -1, n - 1)),
            stop.map_or(-1, |s| clamp(norm(s), -1, n - 1)),
        )
    };
    let len = if step > 0 {
        if stop > start {
            (stop - start + step - 1) / step
        } else {
            0
        }
    } else if start > stop {
        (start - stop + (-step) - 1) / (-step)
    } else {
        0
    };
    (start, len)
}

/// Merges adjacent axes that every operand can walk as one (the same stride relation in all
/// of them), and drops unit axes. Returns the collapsed shape and per-operand strides; the
/// element order is unchanged. Used to give generated kernels the lowest rank possible.
pub fn collapse_axes(shape: &[usize], strides: &[Vec<isize>]) -> (Vec<usize>, Vec<Vec<isize>>) {
    let mut out_shape: Vec<usize> = Vec::new();
    let mut out_strides: Vec<Vec<isize>> = vec![Vec::new(); strides.len()];
    for (ax, &n) in shape.iter().enumerate() {
        if n == 1 {
            continue;
        }
        let mergeable = !out_shape.is_empty()
            && strides.iter().zip(&out_strides).all(|(s, o)| {
                let prev = *o.last().expect("same length as out_shape");
                prev == s[ax] * n as isize
            });
        if mergeable {
            let last = out_shape.len() - 1;
            out_shape[last] *= n;
            for (s, o) in strides.iter().zip(out_strides.iter_mut()) {
                o[last] = s[ax];
            }
        } else {
            out_shape.push(n);
            for (s, o) in strides.iter().zip(out_strides.iter_mut()) {
                o.push(s[ax]);
            }
        }
    }
    (out_shape, out_strides)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn elements(l: &Layout) -> Vec<usize> {
        let mut out = Vec::new();
        let n = l.size();
        for lin in 0..n {
            let mut rem = lin;
            let mut off = l.offset as isize;
            for ax in (0..l.ndim()).rev() {
                let c = rem % l.shape[ax];
                rem /= l.shape[ax];
                off += c as isize * l.strides[ax];
            }
            out.push(off as usize);
        }
        out
    }

    #[test]
    fn slicing_matches_numpy_rules() {
        let l = Layout::contiguous(&[10]);
        let r = l
            .slice(&[SliceArg::Slice {
                start: None,
                stop: None,
                step: Some(-3),
            }])
            .unwrap();
        assert_eq!(elements(&r), vec![9, 6, 3, 0]);
        let r = l
            .slice(&[SliceArg::Slice {
                start: Some(-2),
                stop: Some(2),
                step: Some(-1),
            }])
            .unwrap();
        assert_eq!(elements(&r), vec![8, 7, 6, 5, 4, 3]);
        let r = l.slice(&[SliceArg::range(5, 2)]).unwrap();
        assert_eq!(r.shape, vec![0]);
        assert!(l.slice(&[SliceArg::Index(10)]).is_err());
        let m = Layout::contiguous(&[3, 4]);
        let r = m
            .slice(&[SliceArg::Ellipsis, SliceArg::Index(-1), SliceArg::NewAxis])
            .unwrap();
        assert_eq!(r.shape, vec![3, 1]);
        assert_eq!(elements(&r), vec![3, 7, 11]);
    }

    #[test]
    fn reshape_views_and_copies() {
        let m = Layout::contiguous(&[4, 6]);
        let t = m.transpose();
        assert!(t.reshape_view(&[24]).is_none());
        let s = m.slice(&[SliceArg::FULL, SliceArg::range(0, 4)]).unwrap(); // 4x4, row stride 6
        let r = s.reshape_view(&[2, 2, 4]).unwrap();
        assert_eq!(elements(&r), elements(&s));
        assert!(s.reshape_view(&[16]).is_none());
        let r = t.reshape_view(&[6, 2, 2]).unwrap();
        assert_eq!(elements(&r), elements(&t));
    }

    #[test]
    fn collapse_merges_contiguous_runs() {
        let (s, st) = collapse_axes(&[2, 3, 4], &[vec![12, 4, 1], vec![0, 0, 1]]);
        assert_eq!(s, vec![6, 4]);
        assert_eq!(st, vec![vec![4, 1], vec![0, 1]]);
        let (s, _) = collapse_axes(&[2, 3, 4], &[vec![12, 4, 1]]);
        assert_eq!(s, vec![24]);
    }

    #[test]
    fn broadcasting() {
        assert_eq!(broadcast_shapes(&[], &[2, 3]).unwrap(), vec![2, 3]);
        assert_eq!(
            broadcast_shapes(&[5, 1, 3], &[4, 1]).unwrap(),
            vec![5, 4, 3]
        );
        let l = Layout::contiguous(&[3, 1])
            .broadcast_to(&[2, 3, 4])
            .unwrap();
        assert_eq!(l.strides, vec![0, 1, 0]);
        assert_eq!(resolve_shape(&[2, -1], 8).unwrap(), vec![2, 4]);
        assert!(resolve_shape(&[3, -1], 8).is_err());
    }
}
