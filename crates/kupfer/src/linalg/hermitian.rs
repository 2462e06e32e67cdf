//! The Hermitian eigenproblem of complex matrices (`eigh` and `eigvalsh` of complex64 and
//! complex128), on the complex Schur form of [`super::eig`]: for a Hermitian `A`, the
//! single-shift QR iterations give `A = Z T Z^H` with `T` diagonal to working precision and
//! `Z` unitary, so the eigenvalues are `Re T_ii` and the eigenvectors `Z`'s columns —
//! orthonormal even where eigenvalues repeat. Both are sorted ascending, as LAPACK's heevd.

use super::eig::{all_finite, schur, Kernels};
use super::factor;
use super::svd::Uplo;
use crate::array::Array;
use kupfer_core::{Error, LinAlgError, Result};

fn with_core(batch: &[usize], core: &[usize]) -> Vec<usize> {
    batch.iter().chain(core).copied().collect()
}

/// The Hermitian matrices of `a`'s `uplo` triangle (the diagonal's imaginary part ignored,
/// as LAPACK does).
fn hermitian(a: &Array, uplo: Uplo) -> Result<Array> {
    let strict = match uplo {
        Uplo::Lower => crate::tril(a, -1)?,
        Uplo::Upper => crate::triu(a, 1)?,
    };
    let mirrored = crate::conjugate(&strict.swapaxes(-1, -2)?)?;
    let n = a.shape()[a.ndim() - 1];
    let eye = {
        let _guard = a.device().use_device();
        crate::creation::eye(n, None, 0, Some(a.dtype()))?
    };
    let diag = crate::multiply(&crate::real(a)?, &crate::real(&eye)?)?;
    crate::add(&crate::add(&strict, &mirrored)?, &diag.astype(a.dtype())?)?.copy()
}

/// `eigh` (`want_vectors`) or `eigvalsh` of a complex stack: ascending real eigenvalues
/// (`..., n`) and the unitary eigenvectors (`..., n, n`).
pub(super) async fn eigh_complex(
    a: &Array,
    uplo: Uplo,
    want_vectors: bool,
) -> Result<(Array, Option<Array>)> {
    let (batch, n) = factor::square(a)?;
    let Some(real) = factor::complex_parts(a.dtype()) else {
        return Err(Error::invalid("eigh_complex needs complex input"));
    };
    let device = a.device().clone();
    device.check(real)?;
    let count: usize = batch.iter().product();
    if count == 0 || n == 0 {
        let w = crate::creation::full_on(&device, &with_core(&batch, &[n]), 0i64, Some(real))?;
        let v =
            crate::creation::full_on(&device, &with_core(&batch, &[n, n]), 0i64, Some(a.dtype()))?;
        return Ok((w, want_vectors.then_some(v)));
    }
    if n > super::eig::EIG_ORDER_MAX {
        return Err(Error::unsupported(format!(
            "eigh of complex matrices of order {n} (at most {})",
            super::eig::EIG_ORDER_MAX
        )));
    }
    let h = hermitian(a, uplo)?;
    if !all_finite(&h).await? {
        return Err(LinAlgError::NotConverged("Eigenvalues".into()).into());
    }
    let k = Kernels::new(&device, real, count, n)?;
    let s = schur(&k, &h, real, true, want_vectors).await?;
    let shape = with_core(&batch, &[n, n]);
    let t = factor::wrap(&device, a.dtype(), s.t, &shape);
    let w = crate::real(&t.diagonal(0, -2, -1)?)?.copy()?;
    let order = crate::argsort(&w, Some(-1), None)?;
    let w = crate::take_along_axis_async(&w, &order, Some(-1)).await?;
    let v = match s.z {
        Some(z) if want_vectors => {
            let z = factor::wrap(&device, a.dtype(), z, &shape);
            let cols = order.expand_dims(-2)?.broadcast_to(&shape)?;
            Some(crate::take_along_axis_async(&z, &cols, Some(-1)).await?)
        }
        _ => None,
    };
    Ok((w, v))
}
