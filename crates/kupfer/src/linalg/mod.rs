//! Linear algebra around matmul, NumPy style: products ([`dot`], [`vdot`], [`inner`],
//! [`outer`], [`tensordot`], [`kron`]), chains of products ([`multi_dot`],
//! [`matrix_power`]), [`cross`], [`einsum`], [`norm`] and diagonals ([`diagonal`], [`diag`], [`trace`]).
//!
//! Factorizations run on kernels of their own (`shaders/linalg_small.wgsl`,
//! `shaders/linalg_steps.wgsl`): LU with partial pivoting ([`solve`], [`inv`], [`det`],
//! [`slogdet`], [`lu_factor`]), [`cholesky`] and [`solve_triangular`]; `factor.rs` documents how a failure found on
//! the device (singular, not positive definite) reaches the caller. Householder [`qr`] and
//! the one-sided Jacobi [`svd`] and [`eigh`] run on `shaders/linalg_orth.wgsl`; [`lstsq`],
//! [`pinv`], [`matrix_rank`], [`cond`], the norms of order 2, -2 and 'nuc', SciPy's [`lu`],
//! [`lu_solve`], [`cho_factor`], [`cho_solve`] and [`polyfit`] are built on them.
//!
//! The products are composed from views (transpose/reshape/broadcast/diagonal strides), lazy
//! elementwise ops, reductions and one matrix product ([`crate::matmul`]) per contraction — no
//! kernels of its own. Result dtypes are NumPy's under kupfer's promotion rule (32-bit
//! operands are never widened to 64 bits).

mod blocked;
mod chain;
mod cholesky;
mod complex_factor;
mod cross;
mod diagonal;
mod eig;
mod eigh_small;
mod einsum;
mod factor;
mod factored;
mod hermitian;
mod lstsq;
mod lu;
mod norm;
mod orth;
mod polyfit;
mod products;
mod qr;
mod qr_blocked;
mod roots;
mod svd;
mod triangular;

pub use chain::{matrix_power, multi_dot};
#[cfg(not(target_arch = "wasm32"))]
pub use cholesky::cholesky;
pub use cholesky::cholesky_async;
pub use cross::cross;
pub use diagonal::{diag, diagonal, trace};
#[cfg(not(target_arch = "wasm32"))]
pub use eig::{eig, eigvals};
pub use eig::{eig_async, eigvals_async, EIG_ORDER_MAX};
pub use einsum::einsum;
pub use factored::lu;
#[cfg(not(target_arch = "wasm32"))]
pub use factored::{cho_factor, cho_solve, lu_solve};
#[cfg(not(target_arch = "wasm32"))]
pub use lstsq::{cond, lstsq, matrix_rank, pinv, tensorinv, tensorsolve};
pub use lstsq::{lstsq_async, matrix_rank_async, pinv_async, Lstsq};
pub use lu::{det, inv_async, lu_factor, slogdet, solve_async};
#[cfg(not(target_arch = "wasm32"))]
pub use lu::{inv, solve};
pub use norm::{matrix_norm, norm, vector_norm, NormOrd};
#[cfg(not(target_arch = "wasm32"))]
pub use polyfit::polyfit;
pub use polyfit::{polyfit_async, Polyfit};
pub use products::{dot, inner, kron, matvec, outer, tensordot, vdot, vecdot, vecmat, TensorAxes};
pub use qr::{qr, Qr, QrMode};
#[cfg(not(target_arch = "wasm32"))]
pub use roots::roots;
pub use roots::roots_async;
#[cfg(not(target_arch = "wasm32"))]
pub use svd::{eigh, eigvalsh, svd, svdvals, svdvals_hermitian};
pub use svd::{
    eigh_async, eigvalsh_async, svd_async, svdvals_async, svdvals_hermitian_async, Uplo,
};
#[cfg(not(target_arch = "wasm32"))]
pub use triangular::solve_triangular;
pub use triangular::solve_triangular_async;

use crate::array::Array;
use crate::reduce::Axis;
use crate::scalar::Scalar;
use kupfer_core::Result;

/// [`crate::sum`] that also takes complex64 (kupfer's reductions are real: the real and
/// imaginary parts are summed apart, each fused with the lazy input).
pub(crate) fn sum(a: &Array, axis: impl Into<Axis>, keepdims: bool) -> Result<Array> {
    let axis = axis.into();
    if !a.dtype().is_complex() {
        return crate::sum(a, axis, keepdims);
    }
    let re = crate::sum(&crate::real(a)?, axis.clone(), keepdims)?;
    let im = crate::sum(&crate::imag(a)?, axis, keepdims)?;
    let i = Scalar::Complex { re: 0.0, im: 1.0 };
    crate::add(re, crate::multiply(im, i)?)
}

/// The matrix product of two arrays of rank >= 2 (batch axes broadcast).
pub(crate) fn mm(a: &Array, b: &Array) -> Result<Array> {
    debug_assert!(a.ndim() >= 2 && b.ndim() >= 2);
    crate::matmul(a, b)
}
