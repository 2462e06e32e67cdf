//! Cholesky factorization ([`cholesky`], numpy.linalg), batched over leading axes: one matrix
//! per workgroup in workgroup memory up to order 32 (`shaders/linalg_small.wgsl`), column
//! steps on the device beyond (`shaders/linalg_steps.wgsl`). A matrix that is not positive
//! definite is reported at the call (see [`super::factor`]).

use super::blocked::Steps;
use super::factor;
use crate::array::Array;
use kupfer_core::linalg::{SmallOp, SMALL_MAX};
use kupfer_core::{DType, LinAlgError, Result};

/// NumPy's `linalg.cholesky(a, upper=False)`: the lower factor `L` with `a = L @ L^T` of each
/// matrix of `a` (`..., n, n`), read from `a`'s lower triangle; with `upper`, the upper factor
/// `U = L^T` read from `a`'s upper triangle (NumPy's `upper=True`). Complex (Hermitian) matrices give
/// `a = L @ L^H` and `U = L^H` (native complex kernels, `linalg/complex_factor.rs`).
///
/// Errors: `LinAlgError: Matrix is not positive definite` (read back at the call).
///
/// ```
/// use kupfer as kp;
/// let a = kp::Array::from_slice(&[4.0f32, 2.0, 2.0, 5.0], &[2, 2])?;
/// let l: Vec<f32> = kp::linalg::cholesky(&a, false)?.to_vec()?;
/// assert!(l.iter().zip([2.0, 0.0, 1.0, 2.0]).all(|(x, w)| (x - w).abs() < 1e-5));
/// # Ok::<(), kp::Error>(())
/// ```
#[cfg(not(target_arch = "wasm32"))]
pub fn cholesky(a: &Array, upper: bool) -> Result<Array> {
    pollster::block_on(cholesky_async(a, upper))
}

/// [`cholesky`], async (the browser's only form: it reads the definiteness check back).
pub async fn cholesky_async(a: &Array, upper: bool) -> Result<Array> {
    if a.dtype().is_complex() {
        return super::complex_factor::cholesky_complex(a, upper).await;
    }
    let dtype = factor::compute_dtype(a.dtype())?;
    let (batch, n) = factor::square(a)?;
    let device = a.device().clone();
    let c: usize = batch.iter().product();
    let shape = a.shape().to_vec();
    if c == 0 || n == 0 {
        return crate::creation::full_on(&device, &shape, 0i64, Some(dtype));
    }
    // The upper factor of `a` is the transposed lower factor of `a^T`.
    let src = if upper {
        a.swapaxes(-1, -2)?
    } else {
        a.clone()
    };
    let (l, info) = if n <= SMALL_MAX {
        let ab = factor::dense(&src, dtype)?;
        let out = factor::alloc(&device, c * n * n, dtype)?;
        let aux = factor::alloc(&device, c, DType::I32)?;
        factor::run_small(
            &device,
            SmallOp::Cholesky,
            dtype,
            n,
            c,
            &ab,
            None,
            &out,
            &aux,
        )?;
        (out, aux)
    } else {
        let ab = factor::dense_copy(&src, dtype)?;
        let aux = factor::zeroed_i32(&device, c)?;
        let dummy = factor::alloc(&device, 1, dtype)?;
        let l = Steps::new(&device, dtype, n, c)?.cholesky(&ab, &aux, &dummy)?;
        (l, aux)
    };
    let info = factor::wrap(&device, DType::I32, info, &[c]);
    factor::check_info(&info, LinAlgError::NotPositiveDefinite).await?;
    let l = factor::wrap(&device, dtype, l, &shape);
    if upper {
        l.swapaxes(-1, -2)
    } else {
        Ok(l)
    }
}
