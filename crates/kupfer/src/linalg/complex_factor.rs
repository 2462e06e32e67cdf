//! Complex64 and complex128 [`super::det`], [`super::slogdet`] and [`super::cholesky`] on
//! native complex kernels (`shaders/linalg_cplx.wgsl`): LU with partial pivoting and
//! Cholesky, one workgroup per matrix in global memory, the columns split over launches
//! within lavapipe's loop budget. The determinant is NumPy's `sign * exp(log|det|)` with
//! `sign = (-1)^swaps prod(U_ii / |U_ii|)` (0 and `-inf` for an exactly zero pivot), computed
//! on the device without a read-back; Cholesky reads its `info` back as the real one does.

use super::factor::{self, check_binding, u32_of, whole};
use crate::array::Array;
use crate::device::Device;
use kupfer_core::eig as kernels;
use kupfer_core::{DType, Error, LinAlgError, Result};
use kupfer_wgpu::{GpuBuffer, ShaderChecks};
use std::sync::Arc;

/// Loop iterations one thread may spend in one launch (lavapipe ends loops at 65535).
const BUDGET: usize = 30_000;

/// Matrices per dispatch (the grid's dimension limit).
const CHUNK: usize = 65535;

fn with_core(batch: &[usize], core: &[usize]) -> Vec<usize> {
    batch.iter().chain(core).copied().collect()
}

/// Runs `entry` over the `count` complex matrices of order `n` in `a` (in place) with the
/// i32 `aux`.
fn factor_in_place(
    device: &Device,
    entry: &str,
    real: DType,
    a: &Arc<GpuBuffer>,
    aux: &Arc<GpuBuffer>,
    count: usize,
    n: usize,
) -> Result<()> {
    check_binding(device, &[a, aux])?;
    if count
        .checked_mul(2 * n * n)
        .is_none_or(|e| e > u32::MAX as usize)
    {
        return Err(Error::unsupported(
            "factoring stacks of more than 2^31 complex elements",
        ));
    }
    let ctx = device.context();
    let pipeline = ctx.pipeline_with(
        &kernels::complex_factor(real, &ctx.target())?,
        entry,
        ShaderChecks::Trusted,
    )?;
    // A column step costs each thread about (n^2 + 3n) / 64 + 40 loop iterations.
    let per_k = (n * n + 3 * n) / 64 + 40;
    let ks = (BUDGET / per_k).max(1);
    let n32 = u32_of(n, "order")?;
    for k0 in (0..n).step_by(ks) {
        let k1 = (k0 + ks).min(n);
        for b0 in (0..count).step_by(CHUNK) {
            let c = (count - b0).min(CHUNK) as u32;
            let mut p = Vec::with_capacity(kernels::CPLX_PARAMS_SIZE);
            for w in [n32, b0 as u32, k0 as u32, k1 as u32] {
                p.extend_from_slice(&w.to_le_bytes());
            }
            ctx.dispatch_with(
                &pipeline,
                Some(&p),
                vec![(1, whole(a)), (2, whole(aux))],
                [c, 1, 1],
            )?;
        }
    }
    Ok(())
}

/// `(sign, log|det|)` of each complex matrix of `a`: sign complex, log|det| real.
pub(super) fn slogdet_complex(a: &Array) -> Result<(Array, Array)> {
    let (batch, n) = factor::square(a)?;
    let cdt = a.dtype();
    let Some(real) = factor::complex_parts(cdt) else {
        return Err(Error::invalid("slogdet_complex needs complex input"));
    };
    let device = a.device().clone();
    device.check(real)?;
    let count: usize = batch.iter().product();
    if count == 0 || n == 0 {
        // det of a 0 x 0 matrix is 1: (1, 0).
        let sign = crate::creation::full_on(&device, &batch, 1i64, Some(cdt))?;
        let log = crate::creation::full_on(&device, &batch, 0i64, Some(real))?;
        return Ok((sign, log));
    }
    let lu = factor::dense_copy(a, cdt)?;
    let piv = factor::alloc(&device, count * n, DType::I32)?;
    factor_in_place(&device, "lu_cplx", real, &lu, &piv, count, n)?;
    let u = factor::wrap(&device, cdt, lu, &with_core(&batch, &[n, n]));
    let d = u.diagonal(0, -2, -1)?;
    let size = crate::abs(&d)?.astype(real)?;
    let log = crate::sum(&crate::log(&size)?, -1isize, false)?;
    let piv = factor::wrap(&device, DType::I32, piv, &with_core(&batch, &[n]));
    let rows = {
        let _guard = device.use_device();
        crate::creation::arange(0.0, n as f64, 1.0, Some(DType::I32))?
    };
    let swaps = crate::sum(
        &crate::not_equal(&piv, &rows)?.astype(real)?,
        -1isize,
        false,
    )?;
    // The phase: the pivots' angles plus pi per row swap.
    let angles = crate::arctan2(&crate::imag(&d)?, &crate::real(&d)?)?.astype(real)?;
    let phase = crate::add(
        &crate::sum(&angles, -1isize, false)?,
        &crate::multiply(&swaps, std::f64::consts::PI)?,
    )?;
    let unit = crate::add(
        &crate::cos(&phase)?.astype(cdt)?,
        &crate::multiply(
            &crate::sin(&phase)?.astype(cdt)?,
            crate::scalar::Scalar::Complex { re: 0.0, im: 1.0 },
        )?,
    )?;
    let singular = crate::any(&crate::equal(&size, 0.0)?, -1isize, false)?;
    let sign = crate::where_(&singular, 0.0, &unit)?.astype(cdt)?;
    Ok((sign, log))
}

/// The determinant of each complex matrix of `a`: `sign * exp(log|det|)`, as NumPy.
pub(super) fn det_complex(a: &Array) -> Result<Array> {
    let (sign, log) = slogdet_complex(a)?;
    crate::multiply(&sign, &crate::exp(&log)?.astype(a.dtype())?)?.astype(a.dtype())
}

/// The Cholesky factor of each Hermitian positive definite complex matrix of `a`: lower
/// (`A = L L^H`, read from the lower triangle) or, with `upper`, `U = L^H` read from the
/// upper triangle. `Matrix is not positive definite` is read back at the call.
pub(super) async fn cholesky_complex(a: &Array, upper: bool) -> Result<Array> {
    let (batch, n) = factor::square(a)?;
    let cdt = a.dtype();
    let Some(real) = factor::complex_parts(cdt) else {
        return Err(Error::invalid("cholesky_complex needs complex input"));
    };
    let device = a.device().clone();
    device.check(real)?;
    let count: usize = batch.iter().product();
    let shape = a.shape().to_vec();
    if count == 0 || n == 0 {
        return crate::creation::full_on(&device, &shape, 0i64, Some(cdt));
    }
    // The upper factor of A is L^H for the lower factor L of A^H (whose lower triangle is
    // A's upper one, conjugated).
    let src = if upper {
        crate::conjugate(&a.swapaxes(-1, -2)?)?
    } else {
        a.clone()
    };
    let l = factor::dense_copy(&src, cdt)?;
    let info = factor::zeroed_i32(&device, count)?;
    factor_in_place(&device, "chol_cplx", real, &l, &info, count, n)?;
    let info = factor::wrap(&device, DType::I32, info, &[count]);
    factor::check_info(&info, LinAlgError::NotPositiveDefinite).await?;
    let l = factor::wrap(&device, cdt, l, &shape);
    if upper {
        crate::conjugate(&l.swapaxes(-1, -2)?)
    } else {
        Ok(l)
    }
}
