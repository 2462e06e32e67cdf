//! LU with partial pivoting and what is built on it: [`solve`], [`inv`], [`det`],
//! [`slogdet`] (numpy.linalg) and [`lu_factor`] (scipy.linalg), batched over leading axes.
//!
//! Matrices of order up to 32 are factored one per workgroup in workgroup memory, the solve,
//! inverse or determinant following in the same kernel (`shaders/linalg_small.wgsl`). Larger
//! ones are factored blocked (`shaders/linalg_steps.wgsl`, driven by [`super::blocked`]'s
//! `Steps`): each panel of columns factored by one workgroup per matrix (device-side pivot
//! search, row swaps and rank-1 steps), its swaps applied to the other columns, a triangular
//! solve for the block row and an in-place GEMM update of the trailing rows, then a blocked
//! back substitution for solves — recorded in one command stream with no read-back between
//! launches. Failures are reported as described in [`super::factor`].

use super::blocked::Steps;
use super::factor;
use crate::array::Array;
use kupfer_core::layout::broadcast_shapes;
use kupfer_core::linalg::{SmallOp, SMALL_MAX};
use kupfer_core::{promote, DType, Error, LinAlgError, Result, SliceArg};

fn count(batch: &[usize]) -> usize {
    batch.iter().product()
}

fn with_core(batch: &[usize], core: &[usize]) -> Vec<usize> {
    batch.iter().chain(core).copied().collect()
}

/// Solves `a @ x = b` with LU factors; returns `x` (stack of `n x m`) and the info codes.
fn solve_stack(a: &Array, b: &Array, dtype: DType) -> Result<(Array, Array)> {
    let device = a.device().clone();
    let (batch, n) = factor::square(a)?;
    let m = b.shape()[b.ndim() - 1];
    let c = count(&batch);
    let out_shape = with_core(&batch, &[n, m]);
    if c == 0 || n == 0 || m == 0 {
        let x = crate::creation::full_on(&device, &out_shape, 0i64, Some(dtype))?;
        let info = crate::creation::full_on(&device, &[0], 0i64, Some(DType::I32))?;
        return Ok((x, info));
    }
    if n <= SMALL_MAX {
        let ab = factor::dense(a, dtype)?;
        let bb = factor::dense(b, dtype)?;
        let out = factor::alloc(&device, c * n * m, dtype)?;
        let aux = factor::alloc(&device, c, DType::I32)?;
        factor::run_small(
            &device,
            SmallOp::Solve,
            dtype,
            n,
            c,
            &ab,
            Some((&bb, m)),
            &out,
            &aux,
        )?;
        return Ok((
            factor::wrap(&device, dtype, out, &out_shape),
            factor::wrap(&device, DType::I32, aux, &[c]),
        ));
    }
    let ab = factor::dense_copy(a, dtype)?;
    let rb = factor::dense_copy(b, dtype)?;
    let aux = factor::zeroed_i32(&device, c * (n + 1))?;
    let x = Steps::new(&device, dtype, n, c)?.lu(&ab, &rb, m, &aux, true, false)?;
    let info = factor::wrap(&device, DType::I32, aux, &[c, n + 1])
        .slice(&[SliceArg::FULL, SliceArg::Index(0)])?;
    Ok((factor::wrap(&device, dtype, x, &out_shape), info))
}

/// NumPy's `linalg.solve(a, b)`: the solution `x` of `a @ x = b` for a stack of square
/// matrices `a` (`..., n, n`) and right-hand sides `b`, either a vector `(n,)` (the result is
/// `(..., n)`) or a stack of matrices `(..., n, m)` whose batch axes broadcast with `a`'s.
///
/// Errors: `LinAlgError: Singular matrix` if any matrix has an exactly zero pivot in LU
/// with partial pivoting (read back at the call), NumPy's errors for shapes. The result is
/// float64 for float64 or int64 input and float32 otherwise.
///
/// ```
/// use kupfer as kp;
/// let a = kp::Array::from_slice(&[3.0f32, 1.0, 1.0, 2.0], &[2, 2])?;
/// let b = kp::Array::from_slice(&[9.0f32, 8.0], &[2])?;
/// let x: Vec<f32> = kp::linalg::solve(&a, &b)?.to_vec()?;
/// assert!((x[0] - 2.0).abs() < 1e-5 && (x[1] - 3.0).abs() < 1e-5);
/// # Ok::<(), kp::Error>(())
/// ```
#[cfg(not(target_arch = "wasm32"))]
pub fn solve(a: &Array, b: &Array) -> Result<Array> {
    pollster::block_on(solve_async(a, b))
}

/// The complex stack `x_re + i x_im` from the stacked halves `[x_re; x_im]` (`..., 2n, m`).
fn unstack(x: &Array, n: usize) -> Result<Array> {
    let n = n as isize;
    let re = x.slice(&[SliceArg::Ellipsis, SliceArg::range(0, n), SliceArg::FULL])?;
    let im = x.slice(&[
        SliceArg::Ellipsis,
        SliceArg::range(n, 2 * n),
        SliceArg::FULL,
    ])?;
    crate::make_complex(&re, &im)
}

/// [`solve`], async (the browser's only form: it reads the singularity check back).
///
/// Complex systems are solved through their real embedding (`[[Re A, -Im A], [Im A,
/// Re A]] [Re x; Im x] = [Re b; Im b]`, singular exactly when `A` is).
pub async fn solve_async(a: &Array, b: &Array) -> Result<Array> {
    let common = promote::result_type(a.dtype(), b.dtype())?;
    if let Some(real) = factor::complex_parts(common) {
        let (_, n) = factor::square(a)?;
        let vector = b.ndim() == 1;
        let b2 = if vector && a.ndim() >= 2 {
            b.reshape(&[b.shape()[0] as isize, 1])?
        } else {
            b.clone()
        };
        if b2.ndim() < 2 {
            return Err(LinAlgError::TooFewDimensions(b2.ndim()).into());
        }
        let b2 = b2.astype(common)?;
        let rb = crate::concatenate(
            &[
                crate::real(&b2)?.astype(real)?,
                crate::imag(&b2)?.astype(real)?,
            ],
            Some(-2),
            None,
        )?;
        let x = Box::pin(solve_async(&factor::embed(&a.astype(common)?, real)?, &rb)).await?;
        let x = unstack(&x, n)?;
        return if vector {
            let s: Vec<isize> = x.shape()[..x.ndim() - 1]
                .iter()
                .map(|&d| d as isize)
                .collect();
            x.reshape(&s)
        } else {
            Ok(x)
        };
    }
    let dtype = factor::compute_dtype(common)?;
    let (abatch, n) = factor::square(a)?;
    let vector = b.ndim() == 1;
    let (bbatch, bn, m) = if vector {
        (Vec::new(), b.shape()[0], 1)
    } else {
        if b.ndim() < 2 {
            return Err(LinAlgError::TooFewDimensions(b.ndim()).into());
        }
        let s = b.shape();
        (s[..s.len() - 2].to_vec(), s[s.len() - 2], s[s.len() - 1])
    };
    if bn != n {
        let (name, sig) = if vector {
            ("solve1", "(m,m),(m)->(m)")
        } else {
            ("solve", "(m,m),(m,n)->(m,n)")
        };
        return Err(Error::invalid(format!(
            "{name}: Input operand 1 has a mismatch in its core dimension 0, with gufunc \
             signature {sig} (size {bn} is different from {n})"
        )));
    }
    let batch = broadcast_shapes(&abatch, &bbatch)?;
    let a = a.broadcast_to(&with_core(&batch, &[n, n]))?;
    let b = if vector {
        b.reshape(&[n as isize, 1])?
    } else {
        b.clone()
    };
    let b = b.broadcast_to(&with_core(&batch, &[n, m]))?;
    let (x, info) = solve_stack(&a, &b, dtype)?;
    factor::check_info(&info, LinAlgError::Singular).await?;
    if vector {
        let shape: Vec<isize> = with_core(&batch, &[n])
            .iter()
            .map(|&d| d as isize)
            .collect();
        x.reshape(&shape)
    } else {
        Ok(x)
    }
}

/// NumPy's `linalg.inv(a)`: the inverse of each square matrix of `a` (`..., n, n`).
///
/// Errors: `LinAlgError: Singular matrix` (read back at the call) as NumPy raises it.
///
/// ```
/// use kupfer as kp;
/// let a = kp::Array::from_slice(&[4.0f64, 7.0, 2.0, 6.0], &[2, 2])?;
/// let ai: Vec<f64> = kp::linalg::inv(&a)?.to_vec()?;
/// let want = [0.6, -0.7, -0.2, 0.4];
/// assert!(ai.iter().zip(want).all(|(x, w)| (x - w).abs() < 1e-12));
/// # Ok::<(), kp::Error>(())
/// ```
#[cfg(not(target_arch = "wasm32"))]
pub fn inv(a: &Array) -> Result<Array> {
    pollster::block_on(inv_async(a))
}

/// [`inv`], async (the browser's only form: it reads the singularity check back). Complex
/// matrices are inverted through their real embedding (see [`solve_async`]).
pub async fn inv_async(a: &Array) -> Result<Array> {
    if let Some(real) = factor::complex_parts(a.dtype()) {
        let (_, n) = factor::square(a)?;
        let e = Box::pin(inv_async(&factor::embed(a, real)?)).await?;
        // The inverse's embedding: its first n columns are [Re X; Im X].
        let left = e.slice(&[
            SliceArg::Ellipsis,
            SliceArg::FULL,
            SliceArg::range(0, n as isize),
        ])?;
        return unstack(&left, n);
    }
    let dtype = factor::compute_dtype(a.dtype())?;
    let (batch, n) = factor::square(a)?;
    let device = a.device().clone();
    let c = count(&batch);
    let shape = a.shape().to_vec();
    if c == 0 || n == 0 {
        return crate::creation::full_on(&device, &shape, 0i64, Some(dtype));
    }
    let (x, info) = if n <= SMALL_MAX {
        let ab = factor::dense(a, dtype)?;
        let out = factor::alloc(&device, c * n * n, dtype)?;
        let aux = factor::alloc(&device, c, DType::I32)?;
        factor::run_small(&device, SmallOp::Inv, dtype, n, c, &ab, None, &out, &aux)?;
        (
            factor::wrap(&device, dtype, out, &shape),
            factor::wrap(&device, DType::I32, aux, &[c]),
        )
    } else {
        let eye = {
            let _guard = device.use_device();
            crate::creation::eye(n, None, 0, Some(dtype))?
        };
        solve_stack(a, &eye.broadcast_to(&shape)?, dtype)?
    };
    factor::check_info(&info, LinAlgError::Singular).await?;
    Ok(x)
}

/// LU factors of a stack of square matrices, and `(sign, log|det|)` or the determinant:
/// `slog` chooses. Returns an array of shape `batch` (det) or `batch + [2]` (slogdet).
fn logdet(a: &Array, slog: bool) -> Result<Array> {
    let dtype = factor::compute_dtype(a.dtype())?;
    let (batch, n) = factor::square(a)?;
    let device = a.device().clone();
    let c = count(&batch);
    let shape = if slog {
        with_core(&batch, &[2])
    } else {
        batch.clone()
    };
    if c == 0 {
        return crate::creation::full_on(&device, &shape, 0i64, Some(dtype));
    }
    if n == 0 {
        // det of a 0 x 0 matrix is 1; slogdet is (1, 0).
        let pair: &[f32] = if slog { &[1.0, 0.0] } else { &[1.0] };
        let p = crate::Array::from_slice_on(&device, pair, &[pair.len()])?.astype(dtype)?;
        return p.broadcast_to(&shape)?.copy();
    }
    let len = if slog { 2 * c } else { c };
    let out = factor::alloc(&device, len, dtype)?;
    if n <= SMALL_MAX {
        let ab = factor::dense(a, dtype)?;
        let aux = factor::alloc(&device, 1, DType::I32)?;
        let op = if slog { SmallOp::Slogdet } else { SmallOp::Det };
        factor::run_small(&device, op, dtype, n, c, &ab, None, &out, &aux)?;
    } else {
        let ab = factor::dense_copy(a, dtype)?;
        let aux = factor::zeroed_i32(&device, c * (n + 1))?;
        let dummy = factor::alloc(&device, 1, dtype)?;
        let steps = Steps::new(&device, dtype, n, c)?;
        steps.lu(&ab, &dummy, 0, &aux, false, false)?;
        steps.logdet(&ab, &aux, &out, slog)?;
    }
    Ok(factor::wrap(&device, dtype, out, &shape))
}

/// NumPy's `linalg.det(a)`: the determinant of each square matrix of `a` (`..., n, n`),
/// computed as NumPy does from LU with partial pivoting (`sign * exp(log|det|)`; 0 for a
/// singular matrix, no error). Stays lazy: nothing is read back.
///
/// ```
/// use kupfer as kp;
/// let a = kp::Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
/// let d: Vec<f32> = kp::linalg::det(&a)?.to_vec()?;
/// assert!((d[0] + 2.0).abs() < 1e-5);
/// # Ok::<(), kp::Error>(())
/// ```
pub fn det(a: &Array) -> Result<Array> {
    if a.dtype().is_complex() {
        return super::complex_factor::det_complex(a);
    }
    logdet(a, false)
}

/// NumPy's `linalg.slogdet(a)`: `(sign, logabsdet)` of each square matrix of `a`; a
/// singular matrix gives `(0, -inf)`. Stays lazy: nothing is read back.
pub fn slogdet(a: &Array) -> Result<(Array, Array)> {
    if a.dtype().is_complex() {
        return super::complex_factor::slogdet_complex(a);
    }
    let both = logdet(a, true)?;
    let sign = both.slice(&[SliceArg::Ellipsis, SliceArg::Index(0)])?;
    let log = both.slice(&[SliceArg::Ellipsis, SliceArg::Index(1)])?;
    Ok((sign, log))
}

/// SciPy's `linalg.lu_factor(a)` for a stack of square matrices: `(lu, piv)` with the unit
/// lower factor below the diagonal of `lu`, the upper factor on and above it, and `piv[i]`
/// the row interchanged with row `i` (int32, 0-based, as SciPy). A singular matrix leaves an
/// exact zero on U's diagonal (SciPy warns; kupfer does not read anything back).
pub fn lu_factor(a: &Array) -> Result<(Array, Array)> {
    if a.dtype().is_complex() {
        return super::complex_factor::lu_factor_complex(a);
    }
    let dtype = factor::compute_dtype(a.dtype())?;
    let (batch, n) = factor::square(a)?;
    let device = a.device().clone();
    let c = count(&batch);
    let shape = a.shape().to_vec();
    let piv_shape = with_core(&batch, &[n]);
    if c == 0 || n == 0 {
        return Ok((
            crate::creation::full_on(&device, &shape, 0i64, Some(dtype))?,
            crate::creation::full_on(&device, &piv_shape, 0i64, Some(DType::I32))?,
        ));
    }
    if n <= SMALL_MAX {
        let ab = factor::dense(a, dtype)?;
        let out = factor::alloc(&device, c * n * n, dtype)?;
        let aux = factor::alloc(&device, c * n, DType::I32)?;
        factor::run_small(
            &device,
            SmallOp::LuFactor,
            dtype,
            n,
            c,
            &ab,
            None,
            &out,
            &aux,
        )?;
        return Ok((
            factor::wrap(&device, dtype, out, &shape),
            factor::wrap(&device, DType::I32, aux, &piv_shape),
        ));
    }
    let ab = factor::dense_copy(a, dtype)?;
    let aux = factor::zeroed_i32(&device, c * (n + 1))?;
    let dummy = factor::alloc(&device, 1, dtype)?;
    Steps::new(&device, dtype, n, c)?.lu(&ab, &dummy, 0, &aux, false, true)?;
    let piv = factor::wrap(&device, DType::I32, aux, &[c, n + 1])
        .slice(&[SliceArg::FULL, SliceArg::range(1, n as isize + 1)])?;
    let piv_i: Vec<isize> = piv_shape.iter().map(|&d| d as isize).collect();
    Ok((
        factor::wrap(&device, dtype, ab, &shape),
        piv.reshape(&piv_i)?,
    ))
}
