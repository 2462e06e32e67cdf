//! SciPy's functions around stored factors: [`lu`] (P, L, U from [`super::lu_factor`]),
//! [`lu_solve`], [`cho_factor`] and [`cho_solve`], composed from the factorizations and
//! [`super::solve_triangular`]. Pivots become a permutation on the device
//! (`piv_perm` in `shaders/linalg_orth.wgsl`).

#[cfg(not(target_arch = "wasm32"))]
use super::factor;
use super::orth::Orth;
use crate::array::Array;
#[cfg(not(target_arch = "wasm32"))]
use kupfer_core::Error;
use kupfer_core::{DType, Result};

/// The row permutation of LAPACK-style pivots `piv` (`..., n`): row `i` of `P^T A` is row
/// `perm[i]` of `A`.
fn permutation(piv: &Array) -> Result<Array> {
    let n = *piv.shape().last().unwrap_or(&0);
    let batch = &piv.shape()[..piv.ndim().saturating_sub(1)];
    let count: usize = batch.iter().product();
    if count == 0 || n == 0 {
        return piv.astype(DType::I32);
    }
    let orth = Orth::new(piv.device(), DType::F32, count, n)?;
    let perm = orth.pivots_to_permutation(piv, n)?;
    let shape: Vec<isize> = piv.shape().iter().map(|&d| d as isize).collect();
    perm.reshape(&shape)
}

/// SciPy's `linalg.lu(a, permute_l=False)` for stacks of square matrices: `(p, l, u)` with
/// `a = p @ l @ u`, `p` a permutation matrix, `l` unit lower and `u` upper triangular; with
/// `permute_l`, `(p @ l, u)` as the first two of the three (the third is then `None`).
/// Stays lazy. (SciPy also factors rectangular matrices; kupfer's LU is square.)
pub fn lu(a: &Array, permute_l: bool) -> Result<(Array, Array, Option<Array>)> {
    let (lu, piv) = super::lu_factor(a)?;
    let dtype = lu.dtype();
    let n = *a.shape().last().unwrap_or(&0);
    let perm = permutation(&piv)?;
    let rows = {
        let _guard = a.device().use_device();
        crate::creation::arange(0.0, n as f64, 1.0, Some(DType::I32))?
    };
    // p[r, c] = 1 where perm[c] == r.
    let p = crate::equal(&perm.expand_dims(-2)?, &rows.expand_dims(-1)?)?.astype(dtype)?;
    let eye = {
        let _guard = a.device().use_device();
        crate::creation::eye(n, None, 0, Some(dtype))?
    };
    let l = crate::add(&crate::tril(&lu, -1)?, &eye)?;
    let u = crate::triu(&lu, 0)?;
    if permute_l {
        Ok((super::mm(&p, &l)?, u, None))
    } else {
        Ok((p, l, Some(u)))
    }
}

#[cfg(not(target_arch = "wasm32"))]
/// `b`'s rows gathered by `perm` (`..., n`); `b` is `(..., n, k)`.
fn gather_rows(b: &Array, perm: &Array) -> Result<Array> {
    let nd = b.ndim();
    let batch = kupfer_core::layout::broadcast_shapes(
        &b.shape()[..nd - 2],
        &perm.shape()[..perm.ndim() - 1],
    )?;
    let full: Vec<usize> = batch.iter().chain(&b.shape()[nd - 2..]).copied().collect();
    let idx = perm.expand_dims(-1)?.broadcast_to(&full)?;
    crate::take_along_axis(&b.broadcast_to(&full)?, &idx, Some(-2))
}

/// SciPy's `linalg.lu_solve((lu, piv), b, trans=0)`: solves `a x = b` (`trans` 0), `a^T x =
/// b` (1) or `a^H x = b` (2, the same for real matrices) from [`super::lu_factor`]'s output.
/// `b` is `(n,)` or `(..., n, k)`.
///
/// Errors: SciPy's for mismatched shapes; a zero on U's diagonal is reported as
/// `solve_triangular` reports it (read back at the call).
#[cfg(not(target_arch = "wasm32"))]
pub fn lu_solve(lu: &Array, piv: &Array, b: &Array, trans: u8) -> Result<Array> {
    let (_, n) = factor::square(lu)?;
    if b.ndim() == 0 || b.shape()[if b.ndim() == 1 { 0 } else { b.ndim() - 2 }] != n {
        return Err(Error::invalid(format!(
            "Shapes of lu {:?} and b {:?} are incompatible",
            lu.shape(),
            b.shape()
        )));
    }
    if trans > 2 {
        return Err(Error::invalid(format!(
            "trans must be 0, 1 or 2 ('N', 'T', 'C'), got {trans}"
        )));
    }
    let vector = b.ndim() == 1;
    let b2 = if vector {
        b.reshape(&[n as isize, 1])?
    } else {
        b.clone()
    };
    let perm = permutation(piv)?;
    let x = if trans == 0 {
        let pb = gather_rows(&b2, &perm)?;
        let y = super::solve_triangular(lu, &pb, 0, true, true)?;
        super::solve_triangular(lu, &y, 0, false, false)?
    } else {
        let z = super::solve_triangular(lu, &b2, trans, false, false)?;
        let w = super::solve_triangular(lu, &z, trans, true, true)?;
        let inverse = crate::argsort(&perm, Some(-1), None)?;
        gather_rows(&w, &inverse)?
    };
    if vector {
        let shape: Vec<isize> = x.shape()[..x.ndim() - 1]
            .iter()
            .map(|&d| d as isize)
            .collect();
        x.reshape(&shape)
    } else {
        Ok(x)
    }
}

/// SciPy's `linalg.cho_factor(a, lower=False)`: `(c, lower)` with the Cholesky factor in
/// `c`'s `lower` (or upper) triangle, read from that triangle of `a`; the other strict
/// triangle keeps `a`'s values, as SciPy's LAPACK call leaves them.
///
/// Errors: `LinAlgError` for a matrix that is not positive definite (read back at the call).
#[cfg(not(target_arch = "wasm32"))]
pub fn cho_factor(a: &Array, lower: bool) -> Result<(Array, bool)> {
    let f = super::cholesky(a, !lower)?;
    let rest = if lower {
        crate::triu(&a.astype(f.dtype())?, 1)?
    } else {
        crate::tril(&a.astype(f.dtype())?, -1)?
    };
    Ok((crate::add(&f, &rest)?, lower))
}

/// SciPy's `linalg.cho_solve((c, lower), b)`: solves `a x = b` from [`cho_factor`]'s
/// `(c, lower)` by two triangular solves. `b` is `(n,)` or `(..., n, k)`.
#[cfg(not(target_arch = "wasm32"))]
pub fn cho_solve(c: &Array, lower: bool, b: &Array) -> Result<Array> {
    let (_, n) = factor::square(c)?;
    if b.ndim() == 0 || b.shape()[if b.ndim() == 1 { 0 } else { b.ndim() - 2 }] != n {
        return Err(Error::invalid(format!(
            "incompatible dimensions ({:?} and {:?})",
            c.shape(),
            b.shape()
        )));
    }
    if lower {
        let y = super::solve_triangular(c, b, 0, true, false)?;
        super::solve_triangular(c, &y, 2, true, false)
    } else {
        let y = super::solve_triangular(c, b, 2, false, false)?;
        super::solve_triangular(c, &y, 0, false, false)
    }
}
