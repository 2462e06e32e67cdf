//! Views: reshape, transpose, slicing, broadcasting, squeeze/expand_dims — no copy and no
//! kernel where NumPy would give a view.

use crate::array::Array;
use kupfer_core::layout::{checked_size, resolve_shape};
use kupfer_core::{Error, Result, SliceArg};

impl Array {
    /// Gives a new shape (one entry may be -1). A view when the strides allow, else a copy.
    pub fn reshape(&self, shape: &[isize]) -> Result<Array> {
        let new = resolve_shape(shape, self.size())?;
        checked_size(&new, self.dtype().host_size())?;
        if new == self.shape() {
            return Ok(self.clone());
        }
        let layout = self.layout()?;
        match layout.reshape_view(&new) {
            Some(l) => self.view(|_| Ok(l)),
            None => self.copy()?.view(|l| {
                l.reshape_view(&new)
                    .ok_or_else(|| Error::invalid("reshape of a contiguous copy failed"))
            }),
        }
    }

    /// Permutes the axes (`a.transpose(axes)`); `None` reverses them.
    pub fn transpose(&self, axes: Option<&[isize]>) -> Result<Array> {
        match axes {
            None => self.view(|l| Ok(l.transpose())),
            Some(ax) => self.view(|l| l.permute(ax)),
        }
    }

    /// Permutes the axes (array API `permute_dims`).
    pub fn permute_dims(&self, axes: &[isize]) -> Result<Array> {
        self.view(|l| l.permute(axes))
    }

    /// The transpose (`a.T`).
    pub fn t(&self) -> Result<Array> {
        self.transpose(None)
    }

    /// Swaps two axes.
    pub fn swapaxes(&self, a: isize, b: isize) -> Result<Array> {
        let n = self.ndim();
        let a = kupfer_core::layout::normalize_axis(a, n)?;
        let b = kupfer_core::layout::normalize_axis(b, n)?;
        let mut axes: Vec<isize> = (0..n as isize).collect();
        axes.swap(a, b);
        self.permute_dims(&axes)
    }

    /// NumPy basic indexing: integers, `start:stop:step` (negative steps too), new axes and
    /// an ellipsis — a view. See [`s!`](crate::s) for ndarray-style syntax.
    ///
    /// ```no_run
    /// use kupfer::{s, SliceArg};
    /// let a = kupfer::arange(0, 12, 1, None)?.reshape(&[3, 4])?;
    /// let b = a.slice(&s![.., ..;-1])?; // every row reversed
    /// let c = a.slice(&[SliceArg::Index(1), SliceArg::NewAxis])?; // shape [1, 4]
    /// # Ok::<(), kupfer::Error>(())
    /// ```
    pub fn slice(&self, args: &[SliceArg]) -> Result<Array> {
        self.view(|l| l.slice(args))
    }

    /// Broadcasts to `shape` (a read-only view with zero strides).
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Array> {
        self.view(|l| l.broadcast_to(shape))
    }

    /// Removes unit axes (all of them when `axes` is `None`).
    pub fn squeeze(&self, axes: Option<&[isize]>) -> Result<Array> {
        self.view(|l| l.squeeze(axes))
    }

    /// Inserts a unit axis at `axis`.
    pub fn expand_dims(&self, axis: isize) -> Result<Array> {
        self.view(|l| l.expand_dims(axis))
    }

    /// A 1-D view when possible, else a 1-D copy.
    pub fn ravel(&self) -> Result<Array> {
        self.reshape(&[-1])
    }

    /// A 1-D copy, always.
    pub fn flatten(&self) -> Result<Array> {
        self.copy()?.reshape(&[-1])
    }
}

/// Broadcasts several arrays against each other (views).
pub fn broadcast_arrays(arrays: &[Array]) -> Result<Vec<Array>> {
    let mut shape: Vec<usize> = Vec::new();
    for a in arrays {
        shape = kupfer_core::layout::broadcast_shapes(&shape, a.shape())?;
    }
    arrays.iter().map(|a| a.broadcast_to(&shape)).collect()
}

/// Converts something into one [`SliceArg`] (used by [`s!`](crate::s)).
pub trait IntoSliceArg {
    /// The slice argument.
    fn into_slice_arg(self) -> SliceArg;
}

impl IntoSliceArg for SliceArg {
    fn into_slice_arg(self) -> SliceArg {
        self
    }
}

macro_rules! int_slice_args {
    ($($t:ty),*) => {$(
        impl IntoSliceArg for $t {
            fn into_slice_arg(self) -> SliceArg {
                SliceArg::Index(self as isize)
            }
        }
        impl IntoSliceArg for std::ops::Range<$t> {
            fn into_slice_arg(self) -> SliceArg {
                SliceArg::Slice { start: Some(self.start as isize), stop: Some(self.end as isize), step: None }
            }
        }
        impl IntoSliceArg for std::ops::RangeFrom<$t> {
            fn into_slice_arg(self) -> SliceArg {
                SliceArg::Slice { start: Some(self.start as isize), stop: None, step: None }
            }
        }
        impl IntoSliceArg for std::ops::RangeTo<$t> {
            fn into_slice_arg(self) -> SliceArg {
                SliceArg::Slice { start: None, stop: Some(self.end as isize), step: None }
            }
        }
        impl IntoSliceArg for std::ops::RangeInclusive<$t> {
            fn into_slice_arg(self) -> SliceArg {
                let end = *self.end() as isize;
                SliceArg::Slice {
                    start: Some(*self.start() as isize),
                    stop: if end == -1 { None } else { Some(end + 1) },
                    step: None,
                }
            }
        }
    )*};
}
int_slice_args!(i32, i64, isize, usize);

impl IntoSliceArg for std::ops::RangeFull {
    fn into_slice_arg(self) -> SliceArg {
        SliceArg::FULL
    }
}

/// Applies a step the ndarray way: the range is taken first, then walked with `step`; a
/// negative step walks it from its end (`s![..;-1]` reverses, `s![1..4;-1]` is 3, 2, 1).
pub fn stepped(arg: impl IntoSliceArg, step: isize) -> SliceArg {
    match arg.into_slice_arg() {
        SliceArg::Slice { start, stop, .. } => SliceArg::Stepped {
            start: start.unwrap_or(0),
            stop,
            step,
        },
        other => other,
    }
}

/// ndarray-style slice syntax for [`Array::slice`]: `s![1, 2..5, ..;-1, NewAxis, 3..]`.
/// Entries are integers (remove the axis), ranges (`a..b`, `a..`, `..b`, `..`, `a..=b`), a
/// range with a step after `;` (ndarray semantics: a negative step walks the range backwards),
/// `SliceArg::NewAxis` and `SliceArg::Ellipsis`.
#[macro_export]
macro_rules! s {
    (@acc [$($acc:expr),*]) => { [$($acc),*] };
    (@acc [$($acc:expr),*] $r:expr ; $step:expr , $($rest:tt)*) => {
        $crate::s!(@acc [$($acc,)* $crate::views::stepped($r, $step as isize)] $($rest)*)
    };
    (@acc [$($acc:expr),*] $r:expr ; $step:expr) => {
        $crate::s!(@acc [$($acc,)* $crate::views::stepped($r, $step as isize)])
    };
    (@acc [$($acc:expr),*] $r:expr , $($rest:tt)*) => {
        $crate::s!(@acc [$($acc,)* $crate::views::IntoSliceArg::into_slice_arg($r)] $($rest)*)
    };
    (@acc [$($acc:expr),*] $r:expr) => {
        $crate::s!(@acc [$($acc,)* $crate::views::IntoSliceArg::into_slice_arg($r)])
    };
    ($($t:tt)*) => { $crate::s!(@acc [] $($t)*) };
}
