//! Reordering without moving data where NumPy gives a view: `flip`, `fliplr`, `flipud`,
//! `rot90`, `moveaxis`, `rollaxis`, `atleast_1d/2d/3d` (views with negative strides or
//! permuted axes), and `roll` (one gather kernel, deferred: an elementwise expression
//! around it runs in the same kernel).

use super::launch::{gather, gather_words};
use crate::array::Array;
use crate::fusion::Lazy;
use crate::indexing::launch::{coordinate, u32_op, u32_scalar};
use crate::indexing::pending::PendingGather;
use kupfer_core::layout::normalize_axis;
use kupfer_core::manip::AxisMap;
use kupfer_core::{BinaryOp, DType, Error, Layout, Result, SliceArg};

const REVERSED: SliceArg = SliceArg::Slice {
    start: None,
    stop: None,
    step: Some(-1),
};

/// Normalised axes, refusing repeats with NumPy's message naming the argument.
pub(crate) fn unique_axes(axes: &[isize], ndim: usize, arg: &str) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let d = normalize_axis(a, ndim)?;
        if out.contains(&d) {
            return Err(Error::invalid(if arg.is_empty() {
                "repeated axis".to_string()
            } else {
                format!("repeated axis in `{arg}` argument")
            }));
        }
        out.push(d);
    }
    Ok(out)
}

/// Reverses the order of elements along `axes` (all of them when `None`) — a view with
/// negative strides (`numpy.flip`).
///
/// ```
/// let a = kupfer::Array::from_slice(&[1i32, 2, 3], &[3])?;
/// assert_eq!(kupfer::flip(&a, None)?.to_vec::<i32>()?, [3, 2, 1]);
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn flip(a: &Array, axes: Option<&[isize]>) -> Result<Array> {
    let n = a.ndim();
    let flipped = match axes {
        None => (0..n).collect(),
        Some(ax) => unique_axes(ax, n, "")?,
    };
    let args: Vec<SliceArg> = (0..n)
        .map(|d| {
            if flipped.contains(&d) {
                REVERSED
            } else {
                SliceArg::FULL
            }
        })
        .collect();
    a.slice(&args)
}

/// Reverses the columns (axis 1) — a view (`numpy.fliplr`).
pub fn fliplr(a: &Array) -> Result<Array> {
    if a.ndim() < 2 {
        return Err(Error::invalid("Input must be >= 2-d."));
    }
    flip(a, Some(&[1]))
}

/// Reverses the rows (axis 0) — a view (`numpy.flipud`).
pub fn flipud(a: &Array) -> Result<Array> {
    if a.ndim() < 1 {
        return Err(Error::invalid("Input must be >= 1-d."));
    }
    flip(a, Some(&[0]))
}

/// Rotates by 90 degrees `k` times in the plane of `axes`, from the first axis towards the
/// second — a view (`numpy.rot90`).
pub fn rot90(m: &Array, k: i64, axes: [isize; 2]) -> Result<Array> {
    let n = m.ndim() as isize;
    if axes[0] == axes[1] || (axes[0] - axes[1]).abs() == n {
        return Err(Error::invalid("Axes must be different."));
    }
    if axes.iter().any(|&a| a >= n || a < -n) {
        return Err(Error::invalid(format!(
            "Axes=({}, {}) out of range for array of ndim={n}.",
            axes[0], axes[1]
        )));
    }
    let (a0, a1) = (
        normalize_axis(axes[0], m.ndim())?,
        normalize_axis(axes[1], m.ndim())?,
    );
    let mut perm: Vec<isize> = (0..n).collect();
    perm.swap(a0, a1);
    match k.rem_euclid(4) {
        0 => Ok(m.clone()),
        2 => flip(&flip(m, Some(&[axes[0]]))?, Some(&[axes[1]])),
        1 => flip(m, Some(&[axes[1]]))?.transpose(Some(&perm)),
        _ => flip(&m.transpose(Some(&perm))?, Some(&[axes[1]])),
    }
}

/// Moves axes to new positions, the others keeping their order — a view
/// (`numpy.moveaxis`).
pub fn moveaxis(a: &Array, source: &[isize], destination: &[isize]) -> Result<Array> {
    let n = a.ndim();
    let source = unique_axes(source, n, "source")?;
    let destination = unique_axes(destination, n, "destination")?;
    if source.len() != destination.len() {
        return Err(Error::invalid(
            "`source` and `destination` arguments must have the same number of elements",
        ));
    }
    let mut order: Vec<usize> = (0..n).filter(|d| !source.contains(d)).collect();
    let mut pairs: Vec<(usize, usize)> = destination.into_iter().zip(source).collect();
    pairs.sort_unstable();
    for (dest, src) in pairs {
        order.insert(dest.min(order.len()), src);
    }
    let perm: Vec<isize> = order.into_iter().map(|d| d as isize).collect();
    a.permute_dims(&perm)
}

/// Moves `axis` so that it lies before position `start` — a view (`numpy.rollaxis`; prefer
/// [`moveaxis`]).
pub fn rollaxis(a: &Array, axis: isize, start: isize) -> Result<Array> {
    let n = a.ndim();
    let axis = normalize_axis(axis, n)?;
    let mut start = if start < 0 { start + n as isize } else { start };
    if !(0..=n as isize).contains(&start) {
        return Err(Error::invalid(format!(
            "'start' arg requires {} <= start < {}, but {start} was passed in",
            -(n as isize),
            n + 1
        )));
    }
    if (axis as isize) < start {
        start -= 1;
    }
    if axis as isize == start {
        return Ok(a.clone());
    }
    let mut axes: Vec<isize> = (0..n as isize).filter(|&d| d != axis as isize).collect();
    axes.insert(start as usize, axis as isize);
    a.permute_dims(&axes)
}

/// `a` with at least one axis (a 0-d array becomes shape `[1]`) — a view.
pub fn atleast_1d(a: &Array) -> Result<Array> {
    match a.ndim() {
        0 => a.reshape(&[1]),
        _ => Ok(a.clone()),
    }
}

/// `a` with at least two axes (`[n]` becomes `[1, n]`) — a view.
pub fn atleast_2d(a: &Array) -> Result<Array> {
    match a.ndim() {
        0 => a.reshape(&[1, 1]),
        1 => a.expand_dims(0),
        _ => Ok(a.clone()),
    }
}

/// `a` with at least three axes (`[n]` becomes `[1, n, 1]`, `[m, n]` becomes `[m, n, 1]`)
/// — a view.
pub fn atleast_3d(a: &Array) -> Result<Array> {
    match a.ndim() {
        0 => a.reshape(&[1, 1, 1]),
        1 => a.expand_dims(0)?.expand_dims(2),
        2 => a.expand_dims(2),
        _ => Ok(a.clone()),
    }
}

/// Rolls elements along axes: `shift[i]` positions along `axis[i]` (the two broadcast
/// against each other; shifts of one axis add up), elements leaving one end coming back at
/// the other (`numpy.roll`). `axis = None` rolls the flattened array. One gather kernel.
///
/// ```
/// let a = kupfer::Array::from_slice(&[1i32, 2, 3, 4], &[4])?;
/// assert_eq!(kupfer::roll(&a, &[1], None)?.to_vec::<i32>()?, [4, 1, 2, 3]);
/// # Ok::<(), kupfer::Error>(())
/// ```
pub fn roll(a: &Array, shift: &[isize], axis: Option<&[isize]>) -> Result<Array> {
    let Some(axes) = axis else {
        let total: isize = shift.iter().sum();
        let flat = a.ravel()?;
        let shape: Vec<isize> = a.shape().iter().map(|&s| s as isize).collect();
        return roll(&flat, &[total], Some(&[0]))?.reshape(&shape);
    };
    let pairs = match (shift.len(), axes.len()) {
        (s, x) if s == x => shift.iter().copied().zip(axes.iter().copied()).collect(),
        (1, _) => axes.iter().map(|&x| (shift[0], x)).collect::<Vec<_>>(),
        (_, 1) => shift.iter().map(|&s| (s, axes[0])).collect(),
        (s, x) => {
            return Err(Error::invalid(format!(
                "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is \
                 between arg 0 with shape ({s},) and arg 1 with shape ({x},)."
            )))
        }
    };
    let n = a.ndim();
    let mut shifts = vec![0i128; n];
    for (s, x) in pairs {
        shifts[normalize_axis(x, n)?] += s as i128;
    }
    let maps: Vec<AxisMap> = a
        .shape()
        .iter()
        .zip(&shifts)
        .map(|(&len, &s)| {
            let len = len.max(1) as i128;
            AxisMap::Wrap {
                add: (-s).rem_euclid(len) as usize,
            }
        })
        .collect();
    if a.ndim() == 0 || a.size() == 0 || a.size() > u32::MAX as usize {
        return gather(a, a.shape(), &maps, &[], &[]);
    }
    // Deferred: its own kernel on first use, or one kernel with the expression around it
    // (`np.roll(x, 7) + 1`), reading element `off` of the source at each output element.
    let layout = a.layout()?;
    let off = roll_offsets(&layout, &maps);
    let (source, keep) = (a.clone(), maps.clone());
    PendingGather::map(
        a,
        a.shape().to_vec(),
        off,
        Box::new(move || gather_words(&source, source.shape(), &keep, &[], &[])),
    )
}

/// The element offset into the source's buffer of each output element of a roll: along each
/// axis the coordinate `(c + add) mod len` (one compare, as `c + add < 2 len`).
fn roll_offsets(layout: &Layout, maps: &[AxisMap]) -> Lazy {
    let shape = &layout.shape;
    let mut off = u32_scalar(layout.offset as u32);
    for (j, map) in maps.iter().enumerate() {
        let (len, stride) = (shape[j], layout.strides[j]);
        if len <= 1 || stride == 0 {
            continue;
        }
        let c = coordinate(shape, j);
        let at = match *map {
            AxisMap::Wrap { add } if add != 0 => {
                let t = u32_op(BinaryOp::Add, c, u32_scalar(add as u32));
                let len = u32_scalar(len as u32);
                let inside = Lazy::binary(BinaryOp::Less, t.clone(), len.clone(), DType::Bool);
                let wrapped = u32_op(BinaryOp::Subtract, t.clone(), len);
                Lazy::select(inside, t, wrapped, DType::U32)
            }
            _ => c,
        };
        let term = u32_op(BinaryOp::Multiply, at, u32_scalar(stride as i32 as u32));
        off = u32_op(BinaryOp::Add, off, term);
    }
    off
}
