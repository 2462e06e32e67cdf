//! Triangular solves: SciPy's `linalg.solve_triangular`, batched over leading axes, on the
//! blocked back substitution of [`super::factor`] (column steps inside 64-row blocks, a
//! matmul for the rows above each block). A lower or transposed system is read as an upper
//! one through reversed and transposed views, so one kernel serves every case.

use super::factor::{self, Steps};
use crate::array::Array;
use crate::reduce::Axis;
use crate::scalar::Scalar;
use kupfer_core::layout::broadcast_shapes;
use kupfer_core::{promote, Error, LinAlgError, Result, SliceArg};

/// A whole axis reversed (`::-1`).
fn reversed() -> SliceArg {
    SliceArg::Stepped {
        start: 0,
        stop: None,
        step: -1,
    }
}

/// SciPy's `linalg.solve_triangular(a, b, trans, lower, unit_diagonal)`: `x` with
/// `op(a) @ x = b` where `a` (`..., n, n`) is triangular (only its `lower` or upper triangle
/// is read), `op` is the identity (`trans = 0`) or the transpose (1, or 2: the conjugate
/// transpose, the same for real matrices), and `unit_diagonal` takes the diagonal as ones.
/// Complex systems run as [`super::solve_async`] of `op(a)`'s triangle.
/// `b` is `(n,)` or `(..., n, k)` with batch axes broadcasting against `a`'s.
///
/// Errors: SciPy's `LinAlgError` for an exactly zero diagonal element ("singular matrix:
/// resolution failed at diagonal i", read back at the call) unless `unit_diagonal`.
///
/// ```
/// use kupfer as kp;
/// let a = kp::Array::from_slice(&[2.0f32, 0.0, 1.0, 4.0], &[2, 2])?;
/// let b = kp::Array::from_slice(&[2.0f32, 9.0], &[2])?;
/// let x: Vec<f32> = kp::linalg::solve_triangular(&a, &b, 0, true, false)?.to_vec()?;
/// assert!((x[0] - 1.0).abs() < 1e-6 && (x[1] - 2.0).abs() < 1e-6);
/// # Ok::<(), kp::Error>(())
/// ```
#[cfg(not(target_arch = "wasm32"))]
pub fn solve_triangular(
    a: &Array,
    b: &Array,
    trans: u8,
    lower: bool,
    unit_diagonal: bool,
) -> Result<Array> {
    pollster::block_on(solve_triangular_async(a, b, trans, lower, unit_diagonal))
}

/// [`solve_triangular`], async (the browser's only form: it reads the singularity check
/// back).
pub async fn solve_triangular_async(
    a: &Array,
    b: &Array,
    trans: u8,
    lower: bool,
    unit_diagonal: bool,
) -> Result<Array> {
    if trans > 2 {
        return Err(Error::invalid(format!(
            "trans must be 0, 1 or 2 ('N', 'T', 'C'), got {trans}"
        )));
    }
    let common = promote::result_type(a.dtype(), b.dtype())?;
    let dtype = if common.is_complex() {
        common
    } else {
        factor::compute_dtype(common)?
    };
    let (abatch, n) = factor::square(a)?;
    let vector = b.ndim() == 1;
    if b.ndim() == 0 {
        return Err(LinAlgError::TooFewDimensions(0).into());
    }
    let (bbatch, bn, m) = if vector {
        (Vec::new(), b.shape()[0], 1)
    } else {
        let s = b.shape();
        (s[..s.len() - 2].to_vec(), s[s.len() - 2], s[s.len() - 1])
    };
    if bn != n {
        return Err(Error::invalid(format!(
            "shapes of a {:?} and b {:?} are incompatible",
            a.shape(),
            b.shape()
        )));
    }
    if !unit_diagonal && n > 0 && a.size() > 0 {
        let zero = crate::equal(&crate::linalg::diagonal(a, 0, -2, -1)?, 0)?;
        let flat = zero.reshape(&[-1])?;
        if let Scalar::Bool(true) = crate::any(&flat, Axis::All, false)?.item_async().await? {
            let first = match crate::argmax(&flat, None, false)?.item_async().await? {
                Scalar::Int(i) => i as usize % n,
                _ => 0,
            };
            return Err(LinAlgError::SingularAt(first).into());
        }
    }
    if dtype.is_complex() {
        return complex_triangular(a, b, dtype, trans, lower, unit_diagonal).await;
    }
    let batch = broadcast_shapes(&abatch, &bbatch)?;
    let shape = |core: &[usize]| -> Vec<usize> { batch.iter().chain(core).copied().collect() };
    let device = a.device().clone();
    let count: usize = batch.iter().product();
    let out_shape = if vector { shape(&[n]) } else { shape(&[n, m]) };
    if count == 0 || n == 0 || m == 0 {
        return crate::creation::full_on(&device, &out_shape, 0i64, Some(dtype));
    }
    // op(a) as an upper triangle: transpose for trans, then reverse both axes when lower.
    let mut u = a.broadcast_to(&shape(&[n, n]))?;
    let mut is_lower = lower;
    if trans != 0 {
        u = u.swapaxes(-1, -2)?;
        is_lower = !is_lower;
    }
    let b2 = if vector {
        b.reshape(&[n as isize, 1])?
    } else {
        b.clone()
    };
    let mut r = b2.broadcast_to(&shape(&[n, m]))?;
    if is_lower {
        u = u.slice(&[SliceArg::Ellipsis, reversed(), reversed()])?;
        r = r.slice(&[SliceArg::Ellipsis, reversed(), SliceArg::FULL])?;
    }
    let ub = factor::dense_copy(&u, dtype)?;
    let rb = factor::dense_copy(&r, dtype)?;
    Steps::new(&device, dtype, n, count)?.back_substitute(&ub, &rb, m, unit_diagonal)?;
    let mut x = factor::wrap(&device, dtype, rb, &shape(&[n, m]));
    if is_lower {
        x = x.slice(&[SliceArg::Ellipsis, reversed(), SliceArg::FULL])?;
    }
    if vector {
        let s: Vec<isize> = out_shape.iter().map(|&d| d as isize).collect();
        x.reshape(&s)
    } else {
        Ok(x)
    }
}

/// Complex triangular systems: `op(a)`'s triangle (with a unit diagonal when asked) solved
/// by [`super::solve_async`] (LU on the real embedding; the singular check is done).
async fn complex_triangular(
    a: &Array,
    b: &Array,
    dtype: kupfer_core::DType,
    trans: u8,
    lower: bool,
    unit_diagonal: bool,
) -> Result<Array> {
    let a = a.astype(dtype)?;
    let mut t = if lower {
        crate::tril(&a, 0)?
    } else {
        crate::triu(&a, 0)?
    };
    if unit_diagonal {
        let n = a.shape()[a.ndim() - 1];
        let eye = {
            let _guard = a.device().use_device();
            crate::creation::eye(n, None, 0, Some(dtype))?
        };
        let off = crate::subtract(&crate::ones_like(&eye, None)?, &eye)?;
        t = crate::add(&crate::multiply(&t, &off)?, &eye)?;
    }
    let op = match trans {
        0 => t,
        1 => t.swapaxes(-1, -2)?,
        _ => crate::conjugate(&t.swapaxes(-1, -2)?)?,
    };
    super::solve_async(&op, &b.astype(dtype)?).await
}
