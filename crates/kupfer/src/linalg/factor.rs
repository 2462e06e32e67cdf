//! What the factorizations share: NumPy's dtype rule and shape checks for `linalg`, stacks of
//! matrices as dense device buffers, kernel launches, and the rule for reporting a failure
//! found on the device.
//!
//! # How a failure on the device reaches the caller
//!
//! A factorization kernel writes an `info` code per matrix (0, or 1 + the column where LU
//! met an exactly zero pivot or Cholesky a non-positive one). Functions whose NumPy
//! counterpart raises `LinAlgError` (`solve`, `inv`, `cholesky`) read the largest code back
//! **at the call**, after all their kernels are recorded (one small read-back, as CuPy's
//! cuSOLVER wrappers do), and return [`Error::LinAlg`] instead of a result: a singular or
//! indefinite matrix never yields a silently wrong array. Because a read-back blocks, these
//! functions exist natively and as `_async` versions (the browser's only form). Functions that
//! report singularity in their value (`det` and `slogdet` give 0 and (0, -inf);
//! `lu_factor` leaves the zero on U's diagonal as SciPy does) need no read-back and stay lazy.

use crate::array::Array;
use crate::device::Device;
use crate::reduce::Axis;
use crate::scalar::Scalar;
use kupfer_core::linalg::{self as kernels, SmallOp, PARAMS_SIZE};
use kupfer_core::{DType, Error, Layout, LinAlgError, Result};
use kupfer_wgpu::{Binding, GpuBuffer, ShaderChecks};
use std::sync::Arc;

/// The dtype a factorization computes and returns in: float64 for float64 and int64 input,
/// float32 for the other real types (kupfer never widens 32-bit types; NumPy would return
/// float64 for int32 and bool). float16 is refused as NumPy refuses it; complex matrices are
/// not factored by these kernels (`solve` and `inv` take them through the real embedding).
pub(crate) fn compute_dtype(d: DType) -> Result<DType> {
    match d {
        DType::F16 => Err(Error::unsupported(
            "array type float16 is unsupported in linalg",
        )),
        DType::Complex64 | DType::Complex128 => Err(Error::unsupported(format!(
            "array type {d} in factorizations (kupfer factors float32 and float64 matrices)"
        ))),
        DType::F64 | DType::I64 | DType::U64 => Ok(DType::F64),
        _ => Ok(DType::F32),
    }
}

/// The real dtype of a complex one, if `d` is complex.
pub(crate) fn complex_parts(d: DType) -> Option<DType> {
    match d {
        DType::Complex64 => Some(DType::F32),
        DType::Complex128 => Some(DType::F64),
        _ => None,
    }
}

/// The real embedding `[[Re a, -Im a], [Im a, Re a]]` of each complex matrix of `a`
/// (`..., n, m` gives `..., 2n, 2m`).
pub(crate) fn embed(a: &Array, real: DType) -> Result<Array> {
    let re = crate::real(a)?.astype(real)?;
    let im = crate::imag(a)?.astype(real)?;
    let top = crate::concatenate(&[re.clone(), crate::negative(&im)?], Some(-1), None)?;
    let bottom = crate::concatenate(&[im, re], Some(-1), None)?;
    crate::concatenate(&[top, bottom], Some(-2), None)
}

/// The batch shape and order of a stack of square matrices `(..., n, n)`, or NumPy's
/// `LinAlgError` for fewer than two dimensions or non-square matrices.
pub(crate) fn square(a: &Array) -> Result<(Vec<usize>, usize)> {
    let nd = a.ndim();
    if nd < 2 {
        return Err(LinAlgError::TooFewDimensions(nd).into());
    }
    let s = a.shape();
    if s[nd - 1] != s[nd - 2] {
        return Err(LinAlgError::NotSquare.into());
    }
    Ok((s[..nd - 2].to_vec(), s[nd - 1]))
}

/// A stack of matrices as a fresh, dense (C-contiguous, offset 0) device buffer in `dtype`
/// that kernels may overwrite.
pub(crate) fn dense_copy(a: &Array, dtype: DType) -> Result<Arc<GpuBuffer>> {
    let c = a.astype(dtype)?.copy()?;
    let (buffer, layout) = c.buffer_and_layout()?;
    debug_assert!(layout.offset == 0 && layout.is_c_contiguous());
    Ok(buffer)
}

/// A stack of matrices as a dense device buffer in `dtype`, shared with `a` when already
/// dense (for kernels that only read it).
pub(crate) fn dense(a: &Array, dtype: DType) -> Result<Arc<GpuBuffer>> {
    let c = a.astype(dtype)?.ascontiguousarray()?;
    let (buffer, layout) = c.buffer_and_layout()?;
    if layout.offset == 0 {
        Ok(buffer)
    } else {
        dense_copy(&c, dtype)
    }
}

/// A device buffer of `len` elements of `dtype` (contents undefined), at least 16 bytes.
pub(crate) fn alloc(device: &Device, len: usize, dtype: DType) -> Result<Arc<GpuBuffer>> {
    let bytes = ((len * dtype.gpu_size()) as u64).div_ceil(16).max(1) * 16;
    Ok(Arc::new(device.context().alloc(bytes)?))
}

/// `len` zeroed int32 values on the device.
pub(crate) fn zeroed_i32(device: &Device, len: usize) -> Result<Arc<GpuBuffer>> {
    let z = crate::creation::full_on(device, &[len.max(1)], 0i64, Some(DType::I32))?;
    Ok(z.buffer_and_layout()?.0)
}

/// An array over a whole dense buffer.
pub(crate) fn wrap(
    device: &Device,
    dtype: DType,
    buffer: Arc<GpuBuffer>,
    shape: &[usize],
) -> Array {
    Array::from_buffer(device.clone(), dtype, buffer, Layout::contiguous(shape))
}

pub(crate) fn whole(buffer: &Arc<GpuBuffer>) -> Binding {
    Binding {
        buffer: buffer.clone(),
        offset: 0,
        size: buffer.size(),
    }
}

pub(crate) fn check_binding(device: &Device, buffers: &[&Arc<GpuBuffer>]) -> Result<()> {
    let max = device.context().max_binding_size();
    for b in buffers {
        if b.size() > max {
            return Err(Error::unsupported(format!(
                "factoring arrays of {} bytes, more than this adapter's largest binding \
                 ({max} bytes)",
                b.size()
            )));
        }
    }
    Ok(())
}

pub(crate) fn params(words: &[u32]) -> Vec<u8> {
    let mut p = vec![0u8; PARAMS_SIZE];
    for (i, w) in words.iter().enumerate() {
        p[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    p
}

pub(crate) fn neg_inf() -> u32 {
    f32::NEG_INFINITY.to_bits()
}

pub(crate) fn u32_of(v: usize, what: &str) -> Result<u32> {
    u32::try_from(v).map_err(|_| Error::unsupported(format!("{what} of {v} (at most 2^32 - 1)")))
}

/// The most right-hand-side columns a one-matrix-per-thread solve takes (each thread solves
/// them one after another; more go to the one-matrix-per-workgroup kernel).
const TINY_RHS_MAX: usize = 64;

/// The largest float64 order the one-thread-per-row kernel takes: above it, a row of doubles
/// and its inverse's row per thread left 1000 matrices of order 32 slower than the
/// one-matrix-per-workgroup kernel on the H200 (inv 0.36-0.41 ms against 0.24, solve
/// 0.24 against 0.23), while at order 8 it was ahead (inv 0.11-0.13 ms against 0.16).
const ROWS_F64_MAX: usize = 16;

/// Runs the small kernel of `op` over `count` matrices of order `n <= SMALL_MAX` in `a`
/// (with `nrhs` columns of right-hand sides in `rhs` for Solve), writing `out` and `aux`:
/// solves and inverses from order [`crate::config::LinalgConfig::rows_from`] (float64 up to
/// order [`ROWS_F64_MAX`]) one thread per matrix row, smaller ones up to [`crate::config::LinalgConfig::thread_max`] one matrix
/// per thread in registers, everything else one matrix per workgroup.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_small(
    device: &Device,
    op: SmallOp,
    dtype: DType,
    n: usize,
    count: usize,
    a: &Arc<GpuBuffer>,
    rhs: Option<(&Arc<GpuBuffer>, usize)>,
    out: &Arc<GpuBuffer>,
    aux: &Arc<GpuBuffer>,
) -> Result<()> {
    debug_assert!(n <= kernels::SMALL_MAX);
    let ctx = device.context();
    let nrhs = rhs.map_or(0, |r| r.1);
    let solve_or_inv = matches!(op, SmallOp::Solve | SmallOp::Inv);
    let per_row = solve_or_inv
        && n as u64 >= u64::from(device.config().linalg.rows_from)
        && n <= kernels::ROWS_MAX
        && (dtype != DType::F64 || n <= ROWS_F64_MAX)
        && (op == SmallOp::Inv || (1..=n).contains(&nrhs));
    let per_thread = solve_or_inv
        && n <= kernels::TINY_MAX.min(device.config().linalg.thread_max as usize)
        && nrhs <= TINY_RHS_MAX;
    // Per row: several matrices of one thread per row per workgroup; per thread: 64
    // matrices per workgroup; else one matrix per workgroup.
    let (wgsl, per_group) = if per_row {
        (
            kernels::rows(op, n, nrhs, dtype, &ctx.target())?,
            kernels::rows_per_group(n),
        )
    } else if per_thread {
        (kernels::tiny(op, n, dtype, &ctx.target())?, 64)
    } else {
        let tree = device.config().linalg.pivot_tree;
        (kernels::small(op, dtype, tree, &ctx.target())?, 1)
    };
    let pipeline = ctx.pipeline_with(&wgsl, "main", ShaderChecks::Trusted)?;
    check_binding(device, &[a, out, aux])?;
    let elems = count.checked_mul(n * n.max(rhs.map_or(0, |r| r.1)));
    if elems.is_none_or(|e| e > u32::MAX as usize) {
        return Err(Error::unsupported(
            "factoring stacks of more than 2^32 elements",
        ));
    }
    let [gx, gy] = matrix_grid(device, count, per_group)?;
    let p = params(&[n as u32, nrhs as u32, count as u32, gx, neg_inf()]);
    let mut bindings = vec![(1, whole(a))];
    if let Some((r, _)) = rhs {
        check_binding(device, &[r])?;
        bindings.push((2, whole(r)));
    }
    bindings.push((3, whole(out)));
    bindings.push((4, whole(aux)));
    ctx.dispatch_with(&pipeline, Some(&p), bindings, [gx, gy, 1])
}

/// The grid of a launch over `count` matrices, `per_group` of them per workgroup: x first,
/// spilling into y (the kernels number a workgroup x + y * gx).
pub(crate) fn matrix_grid(device: &Device, count: usize, per_group: usize) -> Result<[u32; 2]> {
    let max_dim = device.context().max_workgroups_per_dim() as usize;
    let groups = count.div_ceil(per_group);
    let gx = groups.min(max_dim);
    let gy = groups.div_ceil(gx);
    if gy > max_dim {
        return Err(Error::unsupported("too many matrices for one launch"));
    }
    Ok([gx as u32, gy as u32])
}

/// Fails with `err` if any `info` code (int32 values on the device) is non-zero: the
/// read-back at the call described in the module docs.
pub(crate) async fn check_info(info: &Array, err: LinAlgError) -> Result<()> {
    if info.size() == 0 {
        return Ok(());
    }
    let worst = crate::reduce::max(info, Axis::All, false)?
        .item_async()
        .await?;
    match worst {
        Scalar::Int(0) => Ok(()),
        Scalar::Int(_) => Err(err.into()),
        other => Err(Error::Device(format!(
            "factorization status read back as {other:?}"
        ))),
    }
}
