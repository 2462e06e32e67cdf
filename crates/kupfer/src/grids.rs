//! NumPy's index-trick grids, `np.mgrid[...]` and `np.ogrid[...]`, as functions of their
//! slices: each axis is `start + i * step` for `i` in `0..len` (a complex step `nj` in
//! NumPy is a count with the endpoint included: [`GridStep::Count`]). `mgrid` broadcasts
//! the axes into one dense `(ndim, len_0, ..., len_n)` array, `ogrid` leaves them open
//! (each axis' values along its own dimension, length 1 elsewhere), and a single slice
//! (`np.mgrid[a:b:c]`, not a tuple) is the 1-D [`grid_axis`].

use crate::array::Array;
use crate::device::Device;
use crate::scalar::Scalar;
use crate::ufuncs;
use kupfer_core::{DType, Error, Result};

/// The step part of one grid slice.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GridStep {
    /// A real step (`start:stop:step`; NumPy's default is 1): `ceil((stop - start) / step)`
    /// points, `stop` excluded.
    By(Scalar),
    /// A point count (`start:stop:nj` in NumPy): `n` points from `start` to `stop`, both
    /// included (as `linspace`).
    Count(usize),
}

/// One slice of `np.mgrid[...]` / `np.ogrid[...]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GridAxis {
    /// First value (NumPy's default is 0).
    pub start: Scalar,
    /// End of the range (excluded for [`GridStep::By`], included for [`GridStep::Count`]).
    pub stop: Scalar,
    /// Step or point count.
    pub step: GridStep,
}

impl GridAxis {
    /// `start:stop:step`.
    pub fn new(start: impl Into<Scalar>, stop: impl Into<Scalar>, step: impl Into<Scalar>) -> Self {
        GridAxis {
            start: start.into(),
            stop: stop.into(),
            step: GridStep::By(step.into()),
        }
    }

    /// `start:stop:{count}j`: `count` points from `start` to `stop` inclusive.
    pub fn count(start: impl Into<Scalar>, stop: impl Into<Scalar>, count: usize) -> Self {
        GridAxis {
            start: start.into(),
            stop: stop.into(),
            step: GridStep::Count(count),
        }
    }

    fn check(&self) -> Result<()> {
        let complex = |s: &Scalar| matches!(s, Scalar::Complex { .. });
        if complex(&self.start) || complex(&self.stop) {
            return Err(Error::invalid("grid start and stop must be real numbers"));
        }
        match self.step {
            GridStep::By(s) if complex(&s) => Err(Error::invalid(
                "a complex grid step is a point count: use GridStep::Count",
            )),
            GridStep::By(s) if s.as_f64() == 0.0 => Err(Error::invalid("division by zero")),
            _ => Ok(()),
        }
    }

    /// NumPy's point count: `ceil((stop - start) / step)` (may be negative), or the count.
    fn signed_len(&self) -> i64 {
        match self.step {
            GridStep::Count(n) => n as i64,
            GridStep::By(s) => match (self.start, self.stop, s) {
                (Scalar::Int(a), Scalar::Int(b), Scalar::Int(st)) => {
                    let (num, den) = (b - a, st);
                    let q = num / den;
                    if (num % den != 0) && ((num < 0) == (den < 0)) {
                        q + 1
                    } else {
                        q
                    }
                }
                _ => ((self.stop.as_f64() - self.start.as_f64()) / s.as_f64()).ceil() as i64,
            },
        }
    }

    /// Whether NumPy's result type for this slice is a float (any float part, or a count).
    fn is_float(&self) -> bool {
        let float = |s: &Scalar| matches!(s, Scalar::Float(_));
        float(&self.start)
            || float(&self.stop)
            || match self.step {
                GridStep::Count(_) => true,
                GridStep::By(s) => float(&s),
            }
    }

    /// The step between points: the slice's step, or `(stop - start) / (n - 1)` for a
    /// count (1 when `n` is 1, as NumPy).
    fn step_value(&self) -> Scalar {
        match self.step {
            GridStep::By(s) => s,
            GridStep::Count(n) if n != 1 => {
                Scalar::Float((self.stop.as_f64() - self.start.as_f64()) / (n as f64 - 1.0))
            }
            GridStep::Count(_) => Scalar::Int(1),
        }
    }

    /// `start + i * step` for `i` in `0..len`, in `dtype`.
    fn values(&self, len: usize, dtype: DType) -> Result<Array> {
        let i = crate::creation::arange(0i64, len as i64, 1i64, Some(dtype))?;
        ufuncs::add(&ufuncs::multiply(&i, self.step_value())?, self.start)?.astype(dtype)
    }
}

/// The dtype of a grid over `axes`: the device's default float if any part is a float or a
/// count, else its default integer (NumPy: `result_type` of the Python numbers).
fn grid_dtype(axes: &[GridAxis]) -> Result<DType> {
    let device = Device::current()?;
    Ok(if axes.iter().any(GridAxis::is_float) {
        device.default_float()
    } else {
        device.default_int()
    })
}

/// `np.mgrid[s_0, ..., s_n]` (a tuple of slices): the dense grid, shape
/// `(n + 1, len_0, ..., len_n)`, where `out[k]` holds axis `k`'s values along dimension `k`.
///
/// ```
/// use kupfer as kp;
/// use kp::grids::{mgrid, GridAxis};
/// let g = mgrid(&[GridAxis::new(0, 2, 1), GridAxis::count(0.0, 1.0, 3)])?;
/// assert_eq!(g.shape(), &[2, 2, 3]);
/// # Ok::<(), kp::Error>(())
/// ```
pub fn mgrid(axes: &[GridAxis]) -> Result<Array> {
    for a in axes {
        a.check()?;
    }
    let dtype = grid_dtype(axes)?;
    let lens: Vec<i64> = axes.iter().map(GridAxis::signed_len).collect();
    if lens.iter().any(|&n| n < 0) {
        return Err(Error::invalid("negative dimensions are not allowed"));
    }
    let shape: Vec<usize> = lens.iter().map(|&n| n as usize).collect();
    let open = open_axes(axes, &shape, dtype)?;
    let dense = open
        .iter()
        .map(|a| a.broadcast_to(&shape))
        .collect::<Result<Vec<_>>>()?;
    if dense.is_empty() {
        return crate::creation::zeros(&[0], Some(dtype));
    }
    crate::manip::stack(&dense, 0, Some(dtype))
}

/// `np.ogrid[s_0, ..., s_n]`: the open grid, one array per axis, axis `k`'s values along
/// dimension `k` and length 1 in every other (they broadcast to [`mgrid`]'s planes). A
/// negative length (`5:0`) is an empty axis, as NumPy's `arange`.
pub fn ogrid(axes: &[GridAxis]) -> Result<Vec<Array>> {
    for a in axes {
        a.check()?;
    }
    let dtype = grid_dtype(axes)?;
    let shape: Vec<usize> = axes
        .iter()
        .map(|a| a.signed_len().max(0) as usize)
        .collect();
    open_axes(axes, &shape, dtype)
}

fn open_axes(axes: &[GridAxis], shape: &[usize], dtype: DType) -> Result<Vec<Array>> {
    axes.iter()
        .enumerate()
        .map(|(k, a)| {
            let mut s = vec![1isize; axes.len()];
            s[k] = shape[k] as isize;
            a.values(shape[k], dtype)?.reshape(&s)
        })
        .collect()
}

/// `np.mgrid[start:stop:step]` and `np.ogrid[...]` of one slice (not a tuple): 1-D,
/// NumPy's `arange(start, stop, step)` for a real step, `count` points from `start` to
/// `stop` inclusive (a float array) for a count.
pub fn grid_axis(axis: &GridAxis) -> Result<Array> {
    axis.check()?;
    match axis.step {
        GridStep::By(step) => crate::creation::arange(axis.start, axis.stop, step, None),
        GridStep::Count(n) => axis.values(n, Device::current()?.default_float()),
    }
}
