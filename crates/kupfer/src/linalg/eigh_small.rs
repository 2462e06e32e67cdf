//! Batched symmetric eigenproblems of small order (`eigh` and `eigvalsh` of real matrices up
//! to order 32) in one launch: parallel two-sided cyclic Jacobi with several matrices per
//! workgroup in workgroup memory (`shaders/linalg_jacobi.wgsl`), which reads the `UPLO`
//! triangle, sorts the eigenvalues ascending and orders the eigenvector columns with them.
//! A non-finite input or a sweep limit reached is NumPy's "Eigenvalues did not converge",
//! read back at the call as the factorizations read theirs ([`super::factor`]).

use super::factor;
use super::svd::Uplo;
use crate::array::Array;
use crate::device::Device;
use kupfer_core::linalg::{self as kernels, JACOBI_MAX};
use kupfer_core::{DType, Error, LinAlgError, Result};
use kupfer_wgpu::ShaderChecks;

/// True when the one-launch solver takes matrices of order `n` in `dtype` on `device`: the
/// order is at most 32, its workgroup memory fits the adapter, and `KUPFER_LINALG_EIGH` is
/// not `old` ([`crate::config::LinalgConfig::small_eigh`]).
pub(super) fn applies(device: &Device, n: usize, dtype: DType) -> bool {
    let limit = device
        .context()
        .info()
        .limits
        .max_compute_workgroup_storage_size as usize;
    device.config().linalg.small_eigh
        && (1..=JACOBI_MAX).contains(&n)
        && kernels::jacobi_shape(n, dtype).2 <= limit
}

/// The ascending eigenvalues (`..., n`) of the symmetric matrices of `a`'s `uplo` triangle
/// (`..., n, n`, any real dtype, computed in `dtype`) and, if `vectors`, the eigenvectors
/// as columns (`..., n, n`).
pub(super) async fn eigh_small(
    a: &Array,
    dtype: DType,
    uplo: Uplo,
    vectors: bool,
) -> Result<(Array, Option<Array>)> {
    let (batch, n) = factor::square(a)?;
    let device = a.device().clone();
    let count: usize = batch.iter().product();
    let ctx = device.context();
    let wgsl = kernels::jacobi_small(n, dtype, vectors, &ctx.target())?;
    let pipeline = ctx.pipeline_with(&wgsl, "main", ShaderChecks::Trusted)?;
    let ab = factor::dense(a, dtype)?;
    let w = factor::alloc(&device, count * n, dtype)?;
    let v = if vectors {
        Some(factor::alloc(&device, count * n * n, dtype)?)
    } else {
        None
    };
    let aux = factor::alloc(&device, count, DType::I32)?;
    factor::check_binding(&device, &[&ab, &w, &aux])?;
    if count
        .checked_mul(n * n)
        .is_none_or(|e| e > u32::MAX as usize)
    {
        return Err(Error::unsupported(
            "eigenproblems of stacks of more than 2^32 elements",
        ));
    }
    let per_group = kernels::jacobi_shape(n, dtype).0;
    let [gx, gy] = factor::matrix_grid(&device, count, per_group)?;
    let upper = u32::from(uplo == Uplo::Upper);
    let p = factor::params(&[n as u32, count as u32, gx, upper]);
    let mut bindings = vec![(1, factor::whole(&ab)), (2, factor::whole(&w))];
    if let Some(v) = &v {
        factor::check_binding(&device, &[v])?;
        bindings.push((3, factor::whole(v)));
    }
    bindings.push((4, factor::whole(&aux)));
    ctx.dispatch_with(&pipeline, Some(&p), bindings, [gx, gy, 1])?;
    let info = factor::wrap(&device, DType::I32, aux, &[count]);
    factor::check_info(&info, LinAlgError::NotConverged("Eigenvalues".into())).await?;
    let shape_w: Vec<usize> = batch.iter().copied().chain([n]).collect();
    let shape_v: Vec<usize> = batch.iter().copied().chain([n, n]).collect();
    Ok((
        factor::wrap(&device, dtype, w, &shape_w),
        v.map(|v| factor::wrap(&device, dtype, v, &shape_v)),
    ))
}
