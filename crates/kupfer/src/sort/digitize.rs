//! `numpy.digitize`: NumPy's monotonicity test of the bins (increasing, decreasing or an
//! error), then one [`searchsorted`] launch over the bins (reversed for decreasing bins).
//! The test reads four flags back in one transfer: the one sync point, hence
//! [`digitize_async`].

use super::search::{searchsorted, Side};
use crate::array::Array;
use crate::ufuncs;
use kupfer_core::{DType, Error, Result, SliceArg};

/// NumPy's `_monotonicity(bins)` (`numpy/_core/src/multiarray/compiled_base.c`): the first
/// pair of adjacent bins that are not equal (`!=`, so a NaN makes one) decides the
/// direction — increasing if it is `<`, else decreasing — and every pair must then keep it.
/// Equal (or fewer than two) bins count as increasing.
async fn increasing(bins: &Array) -> Result<bool> {
    let n = bins.size();
    if n < 2 {
        return Ok(true);
    }
    let lo = bins.slice(&[SliceArg::Slice {
        start: None,
        stop: Some(n as isize - 1),
        step: None,
    }])?;
    let hi = bins.slice(&[SliceArg::Slice {
        start: Some(1),
        stop: None,
        step: None,
    }])?;
    let lt = ufuncs::less(&lo, &hi)?;
    let gt = ufuncs::greater(&lo, &hi)?;
    let ne = ufuncs::not_equal(&lo, &hi)?;
    use crate::reduce::{any, argmax, Axis};
    // The first unequal pair rises iff it is also the first rising pair (given one rises).
    let first_rises = ufuncs::equal(&argmax(&ne, None, false)?, &argmax(&lt, None, false)?)?;
    let flags = crate::manip::stack(
        &[
            any(&gt, Axis::All, false)?,
            any(&lt, Axis::All, false)?,
            any(&ne, Axis::All, false)?,
            first_rises,
        ],
        0,
        Some(DType::I32),
    )?
    .to_vec_async::<i32>()
    .await?;
    let (any_falls, any_rises, any_differs, first_rises) =
        (flags[0] != 0, flags[1] != 0, flags[2] != 0, flags[3] != 0);
    match (any_falls, any_rises) {
        (true, true) => Err(not_monotonic()),
        // Only NaN pairs differ: NumPy takes the decreasing branch.
        (false, false) => Ok(!any_differs),
        (false, true) if first_rises => Ok(true),
        (false, true) => Err(not_monotonic()),
        (true, false) => Ok(false),
    }
}

fn not_monotonic() -> Error {
    Error::invalid("bins must be monotonically increasing or decreasing")
}

/// `numpy.digitize(x, bins, right)`: the index of the bin each element of `x` falls in, with
/// `x`'s shape and the default integer dtype. `bins` is 1-D and monotonically increasing
/// (`bins[i-1] <= x < bins[i]`, or `bins[i-1] < x <= bins[i]` with `right`) or decreasing
/// (NumPy's `len(bins) - searchsorted(bins[::-1], x)`); anything else is NumPy's error.
/// NaN sorts last, as in `searchsorted`. Async: the monotonicity flags are read back once.
pub async fn digitize_async(x: &Array, bins: &Array, right: bool) -> Result<Array> {
    if x.dtype().is_complex() {
        return Err(Error::invalid("x may not be complex"));
    }
    if bins.dtype().is_complex() {
        return Err(Error::invalid(format!(
            "Cannot cast array data from dtype('{}') to dtype('float64') according to the rule \
             'safe'",
            bins.dtype()
        )));
    }
    match bins.ndim() {
        0 => {
            return Err(Error::invalid(
                "object of too small depth for desired array",
            ))
        }
        1 => {}
        _ => return Err(Error::invalid("object too deep for desired array")),
    }
    // Backwards on purpose: bins[i-1] <= x < bins[i] is the insertion point on the right.
    let side = if right { Side::Left } else { Side::Right };
    if increasing(bins).await? {
        searchsorted(bins, x, side, None)
    } else {
        let reversed = bins.slice(&[SliceArg::Stepped {
            start: 0,
            stop: None,
            step: -1,
        }])?;
        let pos = searchsorted(&reversed, x, side, None)?;
        let dt = pos.dtype();
        ufuncs::subtract(bins.size() as i64, &pos)?.astype(dt)
    }
}

/// `numpy.digitize(x, bins, right)`, blocking (see [`digitize_async`]).
///
/// ```
/// use kupfer as kp;
/// let x = kp::Array::from_slice(&[0.2f32, 6.4, 3.0, 1.6], &[4])?;
/// let bins = kp::Array::from_slice(&[0.0f32, 1.0, 2.5, 4.0, 10.0], &[5])?;
/// let i = kp::sort::digitize(&x, &bins, false)?;
/// assert_eq!(i.astype(kp::DType::I32)?.to_vec::<i32>()?, vec![1, 4, 3, 2]);
/// # Ok::<(), kp::Error>(())
/// ```
#[cfg(not(target_arch = "wasm32"))]
pub fn digitize(x: &Array, bins: &Array, right: bool) -> Result<Array> {
    pollster::block_on(digitize_async(x, bins, right))
}
