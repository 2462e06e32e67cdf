//! Complex64 and complex128 [`super::det`], [`super::slogdet`], [`super::cholesky_async`]
//! [`super::lu_factor`] and [`super::qr`] on native complex kernels (`shaders/linalg_cplx.wgsl`): LU with partial
//! pivoting, Cholesky and Householder QR, one workgroup per matrix in global memory, the columns split over launches
//! within lavapipe's loop budget. The determinant is NumPy's `sign * exp(log|det|)` with
//! `sign = (-1)^swaps prod(U_ii / |U_ii|)` (0 and `-inf` for an exactly zero pivot), computed
//! on the device without a read-back; Cholesky reads its `info` back as the real one does.

use super::factor::{self, check_binding, u32_of, whole};
use crate::array::Array;
use crate::device::Device;
use kupfer_core::eig as kernels;
use kupfer_core::{DType, Error, LinAlgError, Result};
use kupfer_wgpu::pipeline::Pipeline;
use kupfer_wgpu::{Binding, GpuBuffer, ShaderChecks};
use std::sync::Arc;

/// Loop iterations one thread may spend in one launch (lavapipe ends loops at 65535).
const BUDGET: usize = 30_000;

/// Matrices per dispatch (the grid's dimension limit).
const CHUNK: usize = 65535;

fn with_core(batch: &[usize], core: &[usize]) -> Vec<usize> {
    batch.iter().chain(core).copied().collect()
}

/// The complex kernels' pipeline of `entry`.
fn pipeline(device: &Device, entry: &str, real: DType) -> Result<Arc<Pipeline>> {
    let ctx = device.context();
    ctx.pipeline_with(
        &kernels::complex_factor(real, &ctx.target())?,
        entry,
        ShaderChecks::Trusted,
    )
}

/// Records `pipeline` over `count` matrices with the uniform words `[n, (batch0), k0, k1,
/// m, xc]` and `bindings`, the columns `0..steps` split into launches of `per_launch`.
#[allow(clippy::too_many_arguments)]
fn launch(
    device: &Device,
    pipeline: &Arc<Pipeline>,
    bindings: &[(u32, &Arc<GpuBuffer>)],
    count: usize,
    dims: [u32; 3],
    steps: usize,
    per_launch: usize,
) -> Result<()> {
    let buffers: Vec<&Arc<GpuBuffer>> = bindings.iter().map(|(_, b)| *b).collect();
    check_binding(device, &buffers)?;
    let [n, m, xc] = dims;
    let bindings: Vec<(u32, Binding)> = bindings.iter().map(|(i, b)| (*i, whole(b))).collect();
    for k0 in (0..steps).step_by(per_launch.max(1)) {
        let k1 = (k0 + per_launch.max(1)).min(steps);
        for b0 in (0..count).step_by(CHUNK) {
            let c = (count - b0).min(CHUNK) as u32;
            let mut p = Vec::with_capacity(kernels::CPLX_PARAMS_SIZE);
            for w in [n, b0 as u32, k0 as u32, k1 as u32, m, xc, 0, 0] {
                p.extend_from_slice(&w.to_le_bytes());
            }
            device
                .context()
                .dispatch_with(pipeline, Some(&p), bindings.clone(), [c, 1, 1])?;
        }
    }
    Ok(())
}

fn check_size(count: usize, elems: usize) -> Result<()> {
    if count
        .checked_mul(2 * elems)
        .is_none_or(|e| e > u32::MAX as usize)
    {
        return Err(Error::unsupported(
            "factoring stacks of more than 2^31 complex elements",
        ));
    }
    Ok(())
}

/// Runs `entry` (LU or Cholesky) over the `count` complex matrices of order `n` in `a` (in
/// place) with the i32 `aux`.
fn factor_in_place(
    device: &Device,
    entry: &str,
    real: DType,
    a: &Arc<GpuBuffer>,
    aux: &Arc<GpuBuffer>,
    count: usize,
    n: usize,
) -> Result<()> {
    check_size(count, n * n)?;
    // A column step costs each thread about (n^2 + 3n) / 64 + 40 loop iterations.
    let per_k = (n * n + 3 * n) / 64 + 40;
    let n32 = u32_of(n, "order")?;
    launch(
        device,
        &pipeline(device, entry, real)?,
        &[(1, a), (2, aux)],
        count,
        [n32, n32, 0],
        n,
        BUDGET / per_k,
    )
}

/// Householder QR of the complex `m x n` matrices of `a` (dense copy, `dtype` complex):
/// the packed factors (`batch + [m, n]`) and tau (`batch + [k]`), as [`super::qr`]'s real
/// `householder`.
pub(super) fn householder_complex(
    a: &Array,
    batch: &[usize],
    m: usize,
    n: usize,
    dtype: DType,
) -> Result<(Array, Array)> {
    let Some(real) = factor::complex_parts(dtype) else {
        return Err(Error::invalid("householder_complex needs a complex dtype"));
    };
    let device = a.device().clone();
    let count: usize = batch.iter().product();
    let k = m.min(n);
    check_size(count, m * n)?;
    let h = factor::dense_copy(a, dtype)?;
    let tau = factor::alloc(&device, count * k, dtype)?;
    // A reflector costs each thread about 2 m ceil(n / 64) + 2 m / 64 + 40 iterations.
    let per_k = 2 * m * n.div_ceil(64) + m / 32 + 40;
    launch(
        &device,
        &pipeline(&device, "qr_cplx", real)?,
        &[(1, &h), (3, &tau)],
        count,
        [u32_of(n, "columns")?, u32_of(m, "rows")?, 0],
        k,
        BUDGET / per_k,
    )?;
    let shape = |core: &[usize]| -> Vec<usize> { batch.iter().chain(core).copied().collect() };
    Ok((
        factor::wrap(&device, dtype, h, &shape(&[m, n])),
        factor::wrap(&device, dtype, tau, &shape(&[k])),
    ))
}

/// `X := H_0 ... H_{k-1} X` for the complex `m x xc` matrices in the dense buffer `x`
/// (the reflectors of [`householder_complex`] in `h` and `tau`).
pub(super) fn apply_q_complex(
    h: &Array,
    tau: &Array,
    x: &Arc<GpuBuffer>,
    count: usize,
    m: usize,
    n: usize,
    xc: usize,
) -> Result<()> {
    let dtype = h.dtype();
    let Some(real) = factor::complex_parts(dtype) else {
        return Err(Error::invalid("apply_q_complex needs a complex dtype"));
    };
    let device = h.device().clone();
    check_size(count, m * m.max(n).max(xc))?;
    let hb = factor::dense(h, dtype)?;
    let tb = factor::dense(tau, dtype)?;
    let k = m.min(n);
    let per_k = 2 * m * xc.div_ceil(64) + 40;
    let per_launch = (BUDGET / per_k).max(1);
    let pipeline = pipeline(&device, "formq_cplx", real)?;
    // The reflectors from the last back: launches over descending ranges of k.
    let mut hi = k;
    while hi > 0 {
        let lo = hi.saturating_sub(per_launch);
        let bindings: [(u32, &Arc<GpuBuffer>); 3] = [(1, &hb), (3, &tb), (4, x)];
        let buffers: Vec<&Arc<GpuBuffer>> = bindings.iter().map(|(_, b)| *b).collect();
        check_binding(&device, &buffers)?;
        let bindings: Vec<(u32, Binding)> = bindings.iter().map(|(i, b)| (*i, whole(b))).collect();
        for b0 in (0..count).step_by(CHUNK) {
            let c = (count - b0).min(CHUNK) as u32;
            let mut p = Vec::with_capacity(kernels::CPLX_PARAMS_SIZE);
            for w in [
                n as u32, b0 as u32, lo as u32, hi as u32, m as u32, xc as u32, 0, 0,
            ] {
                p.extend_from_slice(&w.to_le_bytes());
            }
            device
                .context()
                .dispatch_with(&pipeline, Some(&p), bindings.clone(), [c, 1, 1])?;
        }
        hi = lo;
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

/// SciPy's `lu_factor` of complex matrices: the packed factors and the 0-based int32
/// pivots (`piv[i]`: the row interchanged with row `i`).
pub(super) fn lu_factor_complex(a: &Array) -> Result<(Array, Array)> {
    let (batch, n) = factor::square(a)?;
    let cdt = a.dtype();
    let Some(real) = factor::complex_parts(cdt) else {
        return Err(Error::invalid("lu_factor_complex needs complex input"));
    };
    let device = a.device().clone();
    device.check(real)?;
    let count: usize = batch.iter().product();
    let piv_shape = with_core(&batch, &[n]);
    if count == 0 || n == 0 {
        return Ok((
            crate::creation::full_on(&device, a.shape(), 0i64, Some(cdt))?,
            crate::creation::full_on(&device, &piv_shape, 0i64, Some(DType::I32))?,
        ));
    }
    let lu = factor::dense_copy(a, cdt)?;
    let piv = factor::alloc(&device, count * n, DType::I32)?;
    factor_in_place(&device, "lu_cplx", real, &lu, &piv, count, n)?;
    Ok((
        factor::wrap(&device, cdt, lu, a.shape()),
        factor::wrap(&device, DType::I32, piv, &piv_shape),
    ))
}
