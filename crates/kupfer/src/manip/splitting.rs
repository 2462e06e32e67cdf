//! Splitting: `split`, `array_split`, `hsplit`, `vsplit`, `dsplit`, `unstack`. Every piece is a view of
//! the input (no copy, no kernel).

use crate::array::Array;
use kupfer_core::layout::normalize_axis;
use kupfer_core::{Error, Result, SliceArg};

/// How to split: into a number of pieces, or at indices along the axis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sections {
    /// This many pieces.
    Count(usize),
    /// Pieces `[..i0]`, `[i0..i1]`, ..., `[ik..]` (Python slice bounds: negative counts from
    /// the end, out-of-range bounds clip).
    Indices(Vec<isize>),
}

fn piece(a: &Array, axis: usize, start: isize, stop: isize) -> Result<Array> {
    let mut args = vec![SliceArg::FULL; a.ndim()];
    args[axis] = SliceArg::range(start, stop);
    a.slice(&args)
}

/// Splits into views along `axis`; [`Sections::Count`] need not divide the axis evenly (the
/// first `len % count` pieces get one element more) (`numpy.array_split`).
pub fn array_split(a: &Array, sections: &Sections, axis: isize) -> Result<Vec<Array>> {
    let ax = normalize_axis(axis, a.ndim())?;
    let len = a.shape()[ax] as isize;
    let bounds: Vec<(isize, isize)> = match sections {
        Sections::Count(0) => return Err(Error::invalid("number sections must be larger than 0.")),
        Sections::Count(count) => {
            let count = *count as isize;
            let (each, extra) = (len / count, len % count);
            let mut start = 0;
            (0..count)
                .map(|i| {
                    let size = each + isize::from(i < extra);
                    let b = (start, start + size);
                    start += size;
                    b
                })
                .collect()
        }
        Sections::Indices(idx) => {
            let mut edges = vec![0isize];
            edges.extend(idx.iter().copied());
            edges.push(len);
            edges.windows(2).map(|w| (w[0], w[1])).collect()
        }
    };
    let explicit = matches!(sections, Sections::Indices(_));
    bounds
        .into_iter()
        .map(|(start, stop)| {
            if explicit {
                piece_py(a, ax, start, stop)
            } else {
                piece(a, ax, start, stop)
            }
        })
        .collect()
}

/// A Python slice `start:stop` along `axis` (negative bounds from the end, clipped).
fn piece_py(a: &Array, axis: usize, start: isize, stop: isize) -> Result<Array> {
    let len = a.shape()[axis] as isize;
    let clip = |v: isize| {
        if v < 0 {
            (v + len).max(0)
        } else {
            v.min(len)
        }
    };
    let (s, e) = (clip(start), clip(stop));
    piece(a, axis, s, e.max(s))
}

/// Splits into views along `axis`; a [`Sections::Count`] must divide the axis
/// (`numpy.split`).
///
/// ```
/// let a = kupfer::arange(0, 6, 1, Some(kupfer::DType::I32))?;
/// let parts = kupfer::split(&a, &kupfer::Sections::Count(3), 0)?;
/// assert_eq!(parts[1].to_vec::<i32>()?, [2, 3]);
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn split(a: &Array, sections: &Sections, axis: isize) -> Result<Vec<Array>> {
    if let Sections::Count(count) = sections {
        let ax = normalize_axis(axis, a.ndim())?;
        if *count == 0 {
            return Err(Error::invalid("number sections must be larger than 0."));
        }
        if !a.shape()[ax].is_multiple_of(*count) {
            return Err(Error::invalid(
                "array split does not result in an equal division",
            ));
        }
    }
    array_split(a, sections, axis)
}

/// Splits along axis 1 (axis 0 for 1-D arrays) (`numpy.hsplit`).
pub fn hsplit(a: &Array, sections: &Sections) -> Result<Vec<Array>> {
    if a.ndim() == 0 {
        return Err(Error::invalid(
            "hsplit only works on arrays of 1 or more dimensions",
        ));
    }
    split(a, sections, if a.ndim() > 1 { 1 } else { 0 })
}

/// Splits along axis 0 of an array of at least two axes (`numpy.vsplit`).
pub fn vsplit(a: &Array, sections: &Sections) -> Result<Vec<Array>> {
    if a.ndim() < 2 {
        return Err(Error::invalid(
            "vsplit only works on arrays of 2 or more dimensions",
        ));
    }
    split(a, sections, 0)
}

/// Splits along axis 2 of an array of at least three axes (`numpy.dsplit`).
pub fn dsplit(a: &Array, sections: &Sections) -> Result<Vec<Array>> {
    if a.ndim() < 3 {
        return Err(Error::invalid(
            "dsplit only works on arrays of 3 or more dimensions",
        ));
    }
    split(a, sections, 2)
}

/// The views `a[..., i, ...]` along `axis`, one per index (`numpy.unstack`, NumPy 2.1: the
/// inverse of [`stack`](crate::stack)). A 0-d `a` is NumPy's error.
///
/// ```
/// let a = kupfer::Array::from_slice(&[1i32, 2, 3, 4, 5, 6], &[2, 3])?;
/// let cols = kupfer::unstack(&a, 1)?;
/// assert_eq!(cols.len(), 3);
/// assert_eq!(cols[2].to_vec::<i32>()?, [3, 6]);
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn unstack(a: &Array, axis: isize) -> Result<Vec<Array>> {
    if a.ndim() == 0 {
        return Err(Error::invalid("Input array must be at least 1-d."));
    }
    let ax = normalize_axis(axis, a.ndim())?;
    (0..a.shape()[ax])
        .map(|i| {
            let mut args = vec![SliceArg::FULL; a.ndim()];
            args[ax] = SliceArg::Index(i as isize);
            a.slice(&args)
        })
        .collect()
}
