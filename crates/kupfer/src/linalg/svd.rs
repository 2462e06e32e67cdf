//! The singular value decomposition and the symmetric eigenproblem, both on the one-sided
//! (Hestenes) Jacobi method of [`super::orth`] — the simplest method that is correct on a
//! GPU without forward-progress guarantees: each round rotates `n / 2` disjoint pairs of
//! columns in parallel (one workgroup per pair and matrix, batched over the stack), sweeps
//! repeat until every pair is orthogonal to working precision.
//!
//! - [`svd`]: Jacobi on the columns of `a` (of `a^T` when wide) gives `A V = G` with
//!   orthogonal columns; the singular values are their norms, sorted descending, `V`
//!   accumulates the rotations, and `U` is `G`'s normalized columns passed through
//!   Householder QR, which re-orthonormalizes them, completes them for `full_matrices` and
//!   fills the columns of zero singular values. Complex matrices run the complex rotation
//!   (the pair's inner product made real by a phase on one column first), so `U` and `Vh`
//!   are unitary and `s` real.
//! - [`eigh`]: Jacobi on `B = A + s I` with `s = ||A||_F`, which is positive semidefinite,
//!   so its right singular vectors are `A`'s eigenvectors; the eigenvalues are the Rayleigh
//!   quotients `v^T A v` (for [`eigvalsh`], which accumulates no vectors, `sigma - s`),
//!   sorted ascending. Errors are normwise (about `eps ||A||`), as LAPACK's.
//!
//! Non-convergence after the sweep limit, or a non-finite input, is NumPy's `LinAlgError`
//! ("SVD did not converge", "Eigenvalues did not converge"), read back at the call.

use super::factor;
use super::orth::Orth;
use super::qr::{form_q, householder, matrix_stack};
use crate::array::Array;
use crate::device::Device;
use crate::reduce::Axis;
use crate::scalar::Scalar;
use kupfer_core::{DType, Error, LinAlgError, Result, SliceArg};

fn with_core(batch: &[usize], core: &[usize]) -> Vec<usize> {
    batch.iter().chain(core).copied().collect()
}

fn svd_failed() -> Error {
    LinAlgError::NotConverged("SVD".into()).into()
}

fn eig_failed() -> Error {
    LinAlgError::NotConverged("Eigenvalues".into()).into()
}

/// Reads back whether every element of `x` is finite.
async fn all_finite(x: &Array) -> Result<bool> {
    if x.size() == 0 {
        return Ok(true);
    }
    let ok = crate::all(&crate::isfinite(x)?, Axis::All, false)?
        .item_async()
        .await?;
    Ok(matches!(ok, Scalar::Bool(true)))
}

fn identities(device: &Device, batch: &[usize], n: usize, dtype: DType) -> Result<Array> {
    let eye = {
        let _guard = device.use_device();
        crate::creation::eye(n, None, 0, Some(dtype))?
    };
    eye.broadcast_to(&with_core(batch, &[n, n]))
}

/// The permutation matrices of `order` (`..., k`): `p[.., i, j] = (order[.., i] == j)`.
fn one_hot(order: &Array, dtype: DType) -> Result<Array> {
    let k = *order.shape().last().unwrap_or(&0);
    let cols = {
        let _guard = order.device().use_device();
        crate::creation::arange(0.0, k as f64, 1.0, Some(order.dtype()))?
    };
    crate::equal(&order.expand_dims(-1)?, &cols)?.astype(dtype)
}

/// Rows of `x` (`..., k, len`) reordered by `order` (`..., k`): a product with the
/// permutation matrix in exact float32/float64 arithmetic (the indices are valid by
/// construction, so no bounds check and no read-back).
async fn reorder_rows(x: &Array, order: &Array) -> Result<Array> {
    if x.dtype().is_complex() {
        let rows = order.expand_dims(-1)?.broadcast_to(x.shape())?;
        return crate::take_along_axis_async(x, &rows, Some(-2)).await;
    }
    let p = one_hot(order, x.dtype())?;
    crate::matmul_with(&p, x, crate::MatmulPrecision::Exact)
}

/// Values of `x` (`..., k`) reordered by `order` (`..., k`), exactly (a masked sum).
fn reorder_values(x: &Array, order: &Array) -> Result<Array> {
    let hit = crate::greater(&one_hot(order, DType::F32)?, 0.5)?;
    crate::sum(
        &crate::where_(&hit, &x.expand_dims(-2)?, 0)?.astype(x.dtype())?,
        -1isize,
        false,
    )
}

/// One-sided Jacobi on the columns of each `m x n` matrix of `a`: returns `G^T`
/// (`..., n, m`, rows orthogonal) and, if `want_v`, `V^T` (`..., n, n`) with `A V = G`.
/// `dtype` is the dtype computed in: float32/float64, or complex64/complex128 (the complex
/// kernel: `V` unitary).
async fn jacobi(a: &Array, dtype: DType, want_v: bool) -> Result<(Array, Option<Array>)> {
    let (batch, m, n) = matrix_stack(a)?;
    let device = a.device().clone();
    let count: usize = batch.iter().product();
    let (real, parts) = match factor::complex_parts(dtype) {
        Some(real) => (real, 2),
        None => (dtype, 1),
    };
    let gb = factor::dense_copy(&a.swapaxes(-1, -2)?, dtype)?;
    let vb = if want_v {
        Some(factor::dense_copy(
            &identities(&device, &batch, n, dtype)?,
            dtype,
        )?)
    } else {
        None
    };
    let orth = Orth::new(&device, real, count, parts * m.max(n) * n)?;
    if !orth.jacobi(&gb, vb.as_ref(), m, n, parts == 2).await? {
        return Err(svd_failed());
    }
    let g = factor::wrap(&device, dtype, gb, &with_core(&batch, &[n, m]));
    let v = vb.map(|vb| factor::wrap(&device, dtype, vb, &with_core(&batch, &[n, n])));
    Ok((g, v))
}

/// Row norms of `g` (`..., n, m`, real or complex) and the order sorting them descending.
async fn norms_descending(g: &Array) -> Result<(Array, Array)> {
    let squares = if g.dtype().is_complex() {
        crate::square(&crate::abs(g)?)?
    } else {
        crate::square(g)?
    };
    let s = crate::sqrt(&crate::sum(&squares, -1isize, false)?)?;
    let order = crate::argsort(&crate::negative(&s)?, Some(-1), None)?;
    let s = reorder_values(&s, &order)?;
    Ok((s, order))
}

/// The SVD of a stack with `m >= n`: `(U, s, Vh)` (or only `s`), in `dtype` (real or
/// complex; `s` is real).
async fn tall_svd(
    a: &Array,
    dtype: DType,
    full_matrices: bool,
    compute_uv: bool,
) -> Result<(Option<Array>, Array, Option<Array>)> {
    let (batch, m, n) = matrix_stack(a)?;
    let device = a.device().clone();
    let count: usize = batch.iter().product();
    let real = factor::complex_parts(dtype).unwrap_or(dtype);
    if count == 0 || n == 0 {
        let s = crate::creation::full_on(&device, &with_core(&batch, &[n]), 0i64, Some(real))?;
        if !compute_uv {
            return Ok((None, s, None));
        }
        let ucols = if full_matrices { m } else { n };
        let u = {
            let _guard = device.use_device();
            crate::creation::eye(m, Some(ucols), 0, Some(dtype))?
        }
        .broadcast_to(&with_core(&batch, &[m, ucols]))?
        .copy()?;
        let vh = identities(&device, &batch, n, dtype)?.copy()?;
        return Ok((Some(u), s, Some(vh)));
    }
    let (g, v) = jacobi(a, dtype, compute_uv).await?;
    let (s, order) = norms_descending(&g).await?;
    if !all_finite(&s).await? {
        return Err(svd_failed());
    }
    let Some(v) = v else {
        return Ok((None, s, None));
    };
    // The rows of `v` are V's columns: Vh is their conjugate.
    let vh = reorder_rows(&v, &order).await?;
    let vh = if dtype.is_complex() {
        crate::conjugate(&vh)?
    } else {
        vh
    };
    let g = reorder_rows(&g, &order).await?;
    let sc = s.expand_dims(-1)?;
    let safe = crate::where_(&crate::greater(&sc, 0)?, &sc, 1)?;
    let unit = crate::where_(&crate::greater(&sc, 0)?, &crate::divide(&g, &safe)?, 0)?;
    let (h, tau, kept) = householder(&unit.swapaxes(-1, -2)?.astype(dtype)?, dtype)?;
    let ucols = if full_matrices { m } else { n };
    let q = form_q(&h, &tau, ucols, kept.as_ref())?;
    // Q's first n columns are +-U's (R's diagonal is +-1 where s > 0, real also for complex
    // matrices): undo the signs.
    let rdiag = crate::real(&super::diagonal(&h, 0, -2, -1)?)?;
    let sign = crate::where_(&crate::less(&rdiag, 0)?, -1, 1)?.astype(dtype)?;
    let sign = if ucols > n {
        let ones =
            crate::creation::full_on(&device, &with_core(&batch, &[ucols - n]), 1i64, Some(dtype))?;
        crate::concatenate(&[sign, ones], Some(-1), None)?
    } else {
        sign
    };
    let u = crate::multiply(&q, &sign.expand_dims(-2)?)?;
    Ok((Some(u), s, Some(vh)))
}

/// The singular value decomposition of each matrix of `a` (`..., m, n`), `k = min(m, n)`:
/// `(U, s, Vh)` or, without `compute_uv`, `(None, s, None)`.
async fn svd_parts(
    a: &Array,
    full_matrices: bool,
    compute_uv: bool,
    hermitian: bool,
) -> Result<(Option<Array>, Array, Option<Array>)> {
    let (_, m, n) = matrix_stack(a)?;
    let dtype = if a.dtype().is_complex() {
        a.dtype()
    } else {
        factor::compute_dtype(a.dtype())?
    };
    if let Some(real) = factor::complex_parts(dtype) {
        a.device().check(real)?;
    }
    if hermitian {
        return hermitian_svd(a, compute_uv).await;
    }
    if m >= n {
        tall_svd(a, dtype, full_matrices, compute_uv).await
    } else {
        // A^T = U S Vh gives A = Vh^T S U^T (plain transposes, unitary for complex too).
        let (u, s, vh) = tall_svd(&a.swapaxes(-1, -2)?, dtype, full_matrices, compute_uv).await?;
        let swap = |x: Option<Array>| x.map(|x| x.swapaxes(-1, -2)).transpose();
        Ok((swap(vh)?, s, swap(u)?))
    }
}

/// NumPy's `svd(a, hermitian=True)`: from [`eigh`] (lower triangle), `s = |w|` sorted
/// descending, `Vh = (U * sign(w))^H`.
async fn hermitian_svd(
    a: &Array,
    compute_uv: bool,
) -> Result<(Option<Array>, Array, Option<Array>)> {
    factor::square(a)?;
    if !compute_uv {
        let w = eigvalsh_async(a, Uplo::Lower).await?;
        let s = crate::abs(&w)?;
        let order = crate::argsort(&crate::negative(&s)?, Some(-1), None)?;
        return Ok((None, reorder_values(&s, &order)?, None));
    }
    let (w, v) = eigh_async(a, Uplo::Lower).await?;
    let s = crate::abs(&w)?;
    let order = crate::argsort(&crate::negative(&s)?, Some(-1), None)?;
    let sgn = crate::sign(&reorder_values(&w, &order)?)?;
    let s = reorder_values(&s, &order)?;
    let u = reorder_rows(&v.swapaxes(-1, -2)?, &order)
        .await?
        .swapaxes(-1, -2)?;
    let vh = crate::multiply(&u, &sgn.expand_dims(-2)?)?.swapaxes(-1, -2)?;
    let vh = if vh.dtype().is_complex() {
        crate::conjugate(&vh)?
    } else {
        vh
    };
    Ok((Some(u), s, Some(vh)))
}

/// NumPy's `linalg.svd(a, full_matrices, compute_uv=True, hermitian)`: `(U, S, Vh)` with
/// `a = U @ diag(S) @ Vh` for each matrix of `a` (`..., m, n`); `S` descending, `U`
/// `m x m` (`full_matrices`) or `m x k`, `Vh` `n x n` or `k x n`, `k = min(m, n)`. One-sided
/// Jacobi on the device (see the module docs). Complex input gives unitary `U` and `Vh` of
/// its dtype and real `S`; `hermitian` takes the lower triangle through [`eigh`].
///
/// Errors: `LinAlgError: SVD did not converge` (also for NaN or infinite input, as NumPy),
/// read back at the call.
///
/// ```
/// use kupfer as kp;
/// let a = kp::Array::from_slice(&[3.0f32, 0.0, 0.0, -4.0], &[2, 2])?;
/// let (_, s, _) = kp::linalg::svd(&a, true, false)?;
/// let s: Vec<f32> = s.to_vec()?;
/// assert!((s[0] - 4.0).abs() < 1e-5 && (s[1] - 3.0).abs() < 1e-5);
/// # Ok::<(), kp::Error>(())
/// ```
#[cfg(not(target_arch = "wasm32"))]
pub fn svd(a: &Array, full_matrices: bool, hermitian: bool) -> Result<(Array, Array, Array)> {
    pollster::block_on(svd_async(a, full_matrices, hermitian))
}

/// [`svd`], async (the browser's only form: it reads the convergence check back).
pub async fn svd_async(
    a: &Array,
    full_matrices: bool,
    hermitian: bool,
) -> Result<(Array, Array, Array)> {
    let (u, s, vh) = svd_parts(a, full_matrices, true, hermitian).await?;
    match (u, vh) {
        (Some(u), Some(vh)) => Ok((u, s, vh)),
        _ => Err(Error::Device("svd lost its vectors".into())),
    }
}

/// NumPy's `linalg.svdvals(x)` (= `svd(x, compute_uv=False)`): the singular values of each
/// matrix, descending (`..., k`).
#[cfg(not(target_arch = "wasm32"))]
pub fn svdvals(a: &Array) -> Result<Array> {
    pollster::block_on(svdvals_async(a))
}

/// [`svdvals`], async.
pub async fn svdvals_async(a: &Array) -> Result<Array> {
    Ok(svd_parts(a, false, false, false).await?.1)
}

/// [`svd`] with `compute_uv=False, hermitian=True`: `|eigvalsh(a)|` sorted descending.
#[cfg(not(target_arch = "wasm32"))]
pub fn svdvals_hermitian(a: &Array) -> Result<Array> {
    pollster::block_on(svdvals_hermitian_async(a))
}

/// [`svdvals_hermitian`], async.
pub async fn svdvals_hermitian_async(a: &Array) -> Result<Array> {
    Ok(svd_parts(a, false, false, true).await?.1)
}

/// Which triangle [`eigh`] reads (NumPy's `UPLO`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Uplo {
    /// `'L'` (NumPy's default).
    Lower,
    /// `'U'`.
    Upper,
}

impl std::str::FromStr for Uplo {
    type Err = Error;
    fn from_str(s: &str) -> Result<Uplo> {
        match s {
            "L" => Ok(Uplo::Lower),
            "U" => Ok(Uplo::Upper),
            _ => Err(Error::invalid("UPLO argument must be 'L' or 'U'")),
        }
    }
}

/// The symmetric matrix of `a`'s `uplo` triangle, and the shifted `B = A + ||A||_F I`.
fn symmetric(a: &Array, dtype: DType, uplo: Uplo) -> Result<(Array, Array, Array)> {
    let (batch, n) = factor::square(a)?;
    let a = a.astype(dtype)?;
    let sym = match uplo {
        Uplo::Lower => crate::add(
            &crate::tril(&a, 0)?,
            &crate::tril(&a, -1)?.swapaxes(-1, -2)?,
        )?,
        Uplo::Upper => crate::add(&crate::triu(&a, 0)?, &crate::triu(&a, 1)?.swapaxes(-1, -2)?)?,
    };
    let sym = sym.copy()?;
    let shift = crate::sqrt(&crate::sum(&crate::square(&sym)?, vec![-2isize, -1], true)?)?;
    let eye = identities(a.device(), &batch, n, dtype)?;
    let b = crate::add(&sym, &crate::multiply(&eye, &shift)?)?;
    Ok((sym, b, shift))
}

/// NumPy's `linalg.eigh(a, UPLO)`: eigenvalues (ascending, `..., n`) and eigenvectors (the
/// columns of `..., n, n`) of each symmetric matrix of `a`, read from its lower (`'L'`) or
/// upper triangle. Jacobi on the device (see the module docs); complex (Hermitian) matrices
/// run on the complex Schur form of `eig` (`linalg/hermitian.rs`).
///
/// Errors: NumPy's for non-square input; `Eigenvalues did not converge` for non-finite
/// input or after the sweep limit (read back at the call).
///
/// ```
/// use kupfer as kp;
/// let a = kp::Array::from_slice(&[2.0f32, 1.0, 1.0, 2.0], &[2, 2])?;
/// let (w, _) = kp::linalg::eigh(&a, kp::linalg::Uplo::Lower)?;
/// let w: Vec<f32> = w.to_vec()?;
/// assert!((w[0] - 1.0).abs() < 1e-5 && (w[1] - 3.0).abs() < 1e-5);
/// # Ok::<(), kp::Error>(())
/// ```
#[cfg(not(target_arch = "wasm32"))]
pub fn eigh(a: &Array, uplo: Uplo) -> Result<(Array, Array)> {
    pollster::block_on(eigh_async(a, uplo))
}

/// [`eigh`], async (the browser's only form).
pub async fn eigh_async(a: &Array, uplo: Uplo) -> Result<(Array, Array)> {
    if a.dtype().is_complex() {
        let (w, v) = super::hermitian::eigh_complex(a, uplo, true).await?;
        let v = v.ok_or_else(|| Error::Device("eigh lost its vectors".into()))?;
        return Ok((w, v));
    }
    let dtype = factor::compute_dtype(a.dtype())?;
    let (batch, n) = factor::square(a)?;
    let count: usize = batch.iter().product();
    let device = a.device().clone();
    if count == 0 || n == 0 {
        let w = crate::creation::full_on(&device, &with_core(&batch, &[n]), 0i64, Some(dtype))?;
        let v = identities(&device, &batch, n, dtype)?.copy()?;
        return Ok((w, v));
    }
    if super::eigh_small::applies(&device, n, dtype) {
        let (w, v) = super::eigh_small::eigh_small(a, dtype, uplo, true).await?;
        let v = v.ok_or_else(|| Error::Device("eigh lost its vectors".into()))?;
        return Ok((w, v));
    }
    let (sym, b, _) = symmetric(a, dtype, uplo)?;
    let (_, v) = match jacobi(&b, dtype, true).await {
        Err(Error::LinAlg(LinAlgError::NotConverged(_))) => return Err(eig_failed()),
        r => r?,
    };
    let Some(vt) = v else {
        return Err(Error::Device("eigh lost its vectors".into()));
    };
    // Rayleigh quotients: w_i = v_i^T A v_i (rows of vt are the vectors).
    let av = super::mm(&vt, &sym)?;
    let w = crate::sum(&crate::multiply(&av, &vt)?, -1isize, false)?;
    let order = crate::argsort(&w, Some(-1), None)?;
    let w = reorder_values(&w, &order)?;
    if !all_finite(&w).await? {
        return Err(eig_failed());
    }
    let v = reorder_rows(&vt, &order).await?.swapaxes(-1, -2)?;
    Ok((w, v))
}

/// NumPy's `linalg.eigvalsh(a, UPLO)`: the eigenvalues of each symmetric matrix, ascending.
#[cfg(not(target_arch = "wasm32"))]
pub fn eigvalsh(a: &Array, uplo: Uplo) -> Result<Array> {
    pollster::block_on(eigvalsh_async(a, uplo))
}

/// [`eigvalsh`], async.
pub async fn eigvalsh_async(a: &Array, uplo: Uplo) -> Result<Array> {
    if a.dtype().is_complex() {
        return Ok(super::hermitian::eigh_complex(a, uplo, false).await?.0);
    }
    let dtype = factor::compute_dtype(a.dtype())?;
    let (batch, n) = factor::square(a)?;
    let count: usize = batch.iter().product();
    if count == 0 || n == 0 {
        return crate::creation::full_on(a.device(), &with_core(&batch, &[n]), 0i64, Some(dtype));
    }
    if super::eigh_small::applies(a.device(), n, dtype) {
        return Ok(super::eigh_small::eigh_small(a, dtype, uplo, false)
            .await?
            .0);
    }
    let (_, b, shift) = symmetric(a, dtype, uplo)?;
    let (g, _) = match jacobi(&b, dtype, false).await {
        Err(Error::LinAlg(LinAlgError::NotConverged(_))) => return Err(eig_failed()),
        r => r?,
    };
    let (s, _) = norms_descending(&g).await?;
    // Descending singular values of B minus the shift, reversed: ascending eigenvalues.
    let w = crate::subtract(&s, &shift.slice(&[SliceArg::Ellipsis, SliceArg::Index(0)])?)?;
    let w = w.slice(&[
        SliceArg::Ellipsis,
        SliceArg::Stepped {
            start: 0,
            stop: None,
            step: -1,
        },
    ])?;
    if !all_finite(&w).await? {
        return Err(eig_failed());
    }
    Ok(w)
}
