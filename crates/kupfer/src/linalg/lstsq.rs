//! What the SVD answers, composed from [`super::svd`] with matmuls and elementwise ops (no
//! kernels of their own): [`lstsq`], [`pinv`], [`matrix_rank`], [`cond`]; and the
//! reshaping wrappers [`tensorsolve`] and [`tensorinv`] over solve and inv.

use super::factor;
use super::qr::matrix_stack;
use super::svd::{svd_async, svdvals_async, svdvals_hermitian_async};
#[cfg(not(target_arch = "wasm32"))]
use super::NormOrd;
use crate::array::Array;
use crate::reduce::Axis;
use crate::scalar::Scalar;
use kupfer_core::{promote, DType, Error, LinAlgError, Result, SliceArg};

/// The result of [`lstsq`], NumPy's 4-tuple.
#[derive(Debug, Clone)]
pub struct Lstsq {
    /// The least-squares solution, `(n,)` or `(n, k)`.
    pub x: Array,
    /// The squared residual norm of each column of `b` when `a` has full column rank and
    /// more rows than columns; otherwise empty, `(0,)`.
    pub residuals: Array,
    /// The effective rank of `a`.
    pub rank: usize,
    /// The singular values of `a`, descending.
    pub s: Array,
}

fn eps(dtype: DType) -> f64 {
    super::orth::eps(dtype)
}

/// `1 / s` where `s > cutoff`, else 0.
fn inverted(s: &Array, cutoff: &Array) -> Result<Array> {
    let large = crate::greater(s, cutoff)?;
    let safe = crate::where_(&large, s, 1)?;
    crate::where_(&large, &crate::divide(1, &safe)?, 0)?.astype(s.dtype())
}

/// NumPy's `linalg.lstsq(a, b, rcond=None)`: the `x` minimizing `||b - a x||` for a 2-D `a`
/// (`m x n`) and `b` of `(m,)` or `(m, k)`, through the SVD as LAPACK's `gelsd`: singular
/// values at most `rcond * s_max` count as zero (`rcond` defaults to `eps * max(m, n)`);
/// `rank` is read back at the call.
///
/// ```
/// use kupfer as kp;
/// let a = kp::Array::from_slice(&[1.0f64, 0.0, 1.0, 1.0, 1.0, 2.0], &[3, 2])?;
/// let b = kp::Array::from_slice(&[1.0f64, 2.0, 3.0], &[3])?;
/// let r = kp::linalg::lstsq(&a, &b, None)?;
/// let x: Vec<f64> = r.x.to_vec()?;
/// assert!((x[0] - 1.0).abs() < 1e-12 && (x[1] - 1.0).abs() < 1e-12 && r.rank == 2);
/// # Ok::<(), kp::Error>(())
/// ```
#[cfg(not(target_arch = "wasm32"))]
pub fn lstsq(a: &Array, b: &Array, rcond: Option<f64>) -> Result<Lstsq> {
    pollster::block_on(lstsq_async(a, b, rcond))
}

/// [`lstsq`], async (the browser's only form: it reads the rank back).
pub async fn lstsq_async(a: &Array, b: &Array, rcond: Option<f64>) -> Result<Lstsq> {
    if a.ndim() != 2 {
        return Err(LinAlgError::NotTwoDimensional(a.ndim()).into());
    }
    if b.ndim() != 1 && b.ndim() != 2 {
        return Err(LinAlgError::NotTwoDimensional(b.ndim()).into());
    }
    let (m, n) = (a.shape()[0], a.shape()[1]);
    if b.shape()[0] != m {
        return Err(LinAlgError::IncompatibleDimensions.into());
    }
    let common = promote::result_type(a.dtype(), b.dtype())?;
    if let Some(real) = factor::complex_parts(common) {
        return complex_lstsq(a, b, rcond, common, real).await;
    }
    let dtype = factor::compute_dtype(common)?;
    let vector = b.ndim() == 1;
    let b2 = if vector {
        b.reshape(&[m as isize, 1])?
    } else {
        b.clone()
    }
    .astype(dtype)?;
    let k = b2.shape()[1];
    let rcond = rcond.unwrap_or(eps(dtype) * m.max(n) as f64);
    let (u, s, vh) = svd_async(&a.astype(dtype)?, false, false).await?;
    let smax = if s.size() == 0 {
        crate::creation::full_on(a.device(), &[1], 0i64, Some(dtype))?
    } else {
        crate::reduce::max(&s, Axis::All, true)?
    };
    let cutoff = crate::multiply(&smax, rcond)?;
    let sinv = inverted(&s, &cutoff)?;
    let rank = if s.size() == 0 {
        0
    } else {
        match crate::count_nonzero(&crate::greater(&s, &cutoff)?, Axis::All, false)?
            .item_async()
            .await?
        {
            Scalar::Int(r) => r as usize,
            other => return Err(Error::Device(format!("rank read back as {other:?}"))),
        }
    };
    // x = V diag(1/s) U^T b
    let utb = super::mm(&u.swapaxes(-1, -2)?, &b2)?;
    let x = super::mm(
        &vh.swapaxes(-1, -2)?,
        &crate::multiply(&utb, &sinv.expand_dims(-1)?)?,
    )?;
    let residuals = if rank == n && m > n {
        let r = crate::subtract(&b2, &super::mm(&a.astype(dtype)?, &x)?)?;
        crate::sum(&crate::square(&r)?, 0isize, false)?
    } else {
        crate::creation::full_on(a.device(), &[0], 0i64, Some(dtype))?
    };
    let x = if vector {
        x.reshape(&[n as isize])?
    } else {
        x.reshape(&[n as isize, k as isize])?
    };
    Ok(Lstsq {
        x,
        residuals,
        rank,
        s,
    })
}

/// [`lstsq_async`] of complex operands through the real embedding (`min ||E x - b||` over
/// `[Re x; Im x]` is the same problem); E has each singular value twice, so its rank is
/// halved and every other singular value kept.
async fn complex_lstsq(
    a: &Array,
    b: &Array,
    rcond: Option<f64>,
    common: DType,
    real: DType,
) -> Result<Lstsq> {
    let (m, n) = (a.shape()[0], a.shape()[1]);
    let rcond = rcond.unwrap_or(eps(real) * m.max(n) as f64);
    let e = factor::embed(&a.astype(common)?, real)?;
    let b = b.astype(common)?;
    let axis = if b.ndim() == 1 { 0 } else { -2 };
    let rb = crate::concatenate(
        &[
            crate::real(&b)?.astype(real)?,
            crate::imag(&b)?.astype(real)?,
        ],
        Some(axis),
        None,
    )?;
    let r = Box::pin(lstsq_async(&e, &rb, Some(rcond))).await?;
    let half = |x: &Array, from: isize, to: isize| -> Result<Array> {
        if x.ndim() == 1 {
            x.slice(&[SliceArg::range(from, to)])
        } else {
            x.slice(&[SliceArg::range(from, to), SliceArg::FULL])
        }
    };
    let nn = n as isize;
    let x = crate::make_complex(&half(&r.x, 0, nn)?, &half(&r.x, nn, 2 * nn)?)?;
    let every_other = SliceArg::Stepped {
        start: 0,
        stop: None,
        step: 2,
    };
    Ok(Lstsq {
        x,
        residuals: r.residuals,
        rank: r.rank / 2,
        s: r.s.slice(&[every_other])?,
    })
}

/// NumPy's `linalg.pinv(a, rcond=1e-15, hermitian=False)`: the Moore-Penrose pseudo-inverse
/// of each matrix of `a` (`..., m, n` gives `..., n, m`), from the SVD with singular values
/// at most `rcond * s_max` dropped.
#[cfg(not(target_arch = "wasm32"))]
pub fn pinv(a: &Array, rcond: Option<f64>, hermitian: bool) -> Result<Array> {
    pollster::block_on(pinv_async(a, rcond, hermitian))
}

/// [`pinv`], async.
pub async fn pinv_async(a: &Array, rcond: Option<f64>, hermitian: bool) -> Result<Array> {
    let (batch, m, n) = matrix_stack(a)?;
    if let Some(real) = factor::complex_parts(a.dtype()) {
        if hermitian {
            return Err(Error::unsupported(format!(
                "pinv(hermitian=True) of {} matrices",
                a.dtype()
            )));
        }
        // pinv of the real embedding is the embedding of pinv(a): its left block column.
        let p = Box::pin(pinv_async(&factor::embed(a, real)?, rcond, false)).await?;
        let block = |r0: usize| -> Result<Array> {
            p.slice(&[
                SliceArg::Ellipsis,
                SliceArg::range(r0 as isize, (r0 + n) as isize),
                SliceArg::range(0, m as isize),
            ])
        };
        return crate::make_complex(&block(0)?, &block(n)?);
    }
    let dtype = factor::compute_dtype(a.dtype())?;
    if m == 0 || n == 0 || batch.contains(&0) {
        let shape: Vec<usize> = batch.iter().copied().chain([n, m]).collect();
        return crate::creation::full_on(a.device(), &shape, 0i64, Some(dtype));
    }
    let rcond = rcond.unwrap_or(1e-15);
    let (u, s, vh) = svd_async(&a.astype(dtype)?, false, hermitian).await?;
    let cutoff = crate::multiply(&crate::reduce::max(&s, -1isize, true)?, rcond)?;
    let sinv = inverted(&s, &cutoff)?;
    super::mm(
        &vh.swapaxes(-1, -2)?,
        &crate::multiply(&u.swapaxes(-1, -2)?, &sinv.expand_dims(-1)?)?,
    )
}

/// NumPy's `linalg.matrix_rank(A, tol=None, hermitian=False, rtol=None)`: the number of
/// singular values above `tol` (default `s_max * rtol`, `rtol` defaulting to
/// `eps * max(m, n)`) for each matrix of `a`; for a 1-D or 0-D `a`, 1 unless all zero.
/// The result is int64 (int32 where the adapter has no 64-bit integers), of the batch shape.
#[cfg(not(target_arch = "wasm32"))]
pub fn matrix_rank(
    a: &Array,
    tol: Option<f64>,
    hermitian: bool,
    rtol: Option<f64>,
) -> Result<Array> {
    pollster::block_on(matrix_rank_async(a, tol, hermitian, rtol))
}

/// [`matrix_rank`], async.
pub async fn matrix_rank_async(
    a: &Array,
    tol: Option<f64>,
    hermitian: bool,
    rtol: Option<f64>,
) -> Result<Array> {
    if a.ndim() < 2 {
        return crate::any(&crate::not_equal(a, 0)?, Axis::All, false)?.astype(DType::I64);
    }
    let dtype = match factor::complex_parts(a.dtype()) {
        Some(real) => real,
        None => factor::compute_dtype(a.dtype())?,
    };
    let (_, m, n) = matrix_stack(a)?;
    let s = if hermitian {
        svdvals_hermitian_async(a).await?
    } else {
        svdvals_async(a).await?
    };
    let cutoff = match tol {
        Some(t) => crate::creation::full_on(a.device(), &[1], 0i64, Some(dtype))
            .and_then(|z| crate::add(&z, t))?,
        None => {
            let r = rtol.unwrap_or(eps(dtype) * m.max(n) as f64);
            if s.shape().last() == Some(&0) {
                crate::creation::full_on(a.device(), &[1], 0i64, Some(dtype))?
            } else {
                crate::multiply(&crate::reduce::max(&s, -1isize, true)?, r)?
            }
        }
    };
    crate::count_nonzero(&crate::greater(&s, &cutoff)?, -1isize, false)
}

/// NumPy's `linalg.cond(x, p=None)`: the condition number of each matrix of `x` in the norm
/// `p`: for `None`/2/-2 the ratio of the largest and smallest singular values (inf for a
/// singular matrix), otherwise `norm(x, p) * norm(inv(x), p)` (square matrices; 'fro',
/// 'nuc', 1, -1, inf, -inf).
#[cfg(not(target_arch = "wasm32"))]
pub fn cond(x: &Array, p: Option<NormOrd>) -> Result<Array> {
    match p {
        None | Some(NormOrd::P(2.0)) | Some(NormOrd::P(-2.0)) => {
            let s = super::svdvals(x)?;
            let k = *s.shape().last().unwrap_or(&0) as isize;
            if k == 0 {
                return Err(Error::invalid("cond is not defined on empty arrays"));
            }
            let first = s.slice(&[SliceArg::Ellipsis, SliceArg::Index(0)])?;
            let last = s.slice(&[SliceArg::Ellipsis, SliceArg::Index(k - 1)])?;
            let r = if p == Some(NormOrd::P(-2.0)) {
                crate::divide(&last, &first)?
            } else {
                crate::divide(&first, &last)?
            };
            // 0 / 0 (a zero matrix) is NaN; NumPy reports it as inf.
            crate::where_(&crate::isnan(&r)?, f64::INFINITY, &r)?.astype(r.dtype())
        }
        Some(p) => {
            factor::square(x)?;
            let axes: &[isize] = &[-2, -1];
            let nx = super::norm(x, Some(p), Some(axes), false)?;
            // NumPy gives inf (not an error) for a singular matrix in these norms.
            match super::inv(x) {
                Ok(ix) => crate::multiply(&nx, &super::norm(&ix, Some(p), Some(axes), false)?),
                Err(Error::LinAlg(LinAlgError::Singular)) if x.ndim() == 2 => {
                    crate::creation::full_like(&nx, f64::INFINITY, None)
                }
                Err(e) => Err(e),
            }
        }
    }
}

/// NumPy's `linalg.tensorsolve(a, b, axes=None)`: the `x` with `tensordot(a, x,
/// x.ndim) == b`; `axes` are moved to the end of `a` first.
#[cfg(not(target_arch = "wasm32"))]
pub fn tensorsolve(a: &Array, b: &Array, axes: Option<&[isize]>) -> Result<Array> {
    let an = a.ndim();
    let mut a = a.clone();
    if let Some(axes) = axes {
        let mut all: Vec<isize> = (0..an as isize).collect();
        for &k in axes {
            let k = kupfer_core::layout::normalize_axis(k, an)? as isize;
            let pos = all
                .iter()
                .position(|&x| x == k)
                .ok_or_else(|| Error::invalid("list.remove(x): x not in list"))?;
            all.remove(pos);
            all.push(k);
        }
        a = a.transpose(Some(&all))?;
    }
    if b.ndim() > an {
        return Err(LinAlgError::TensorShape.into());
    }
    let old: Vec<usize> = a.shape()[b.ndim()..].to_vec();
    let prod: usize = old.iter().product();
    if prod.checked_mul(prod) != Some(a.size()) {
        return Err(LinAlgError::TensorShape.into());
    }
    let a2 = a.reshape(&[prod as isize, prod as isize])?;
    let b1 = b.reshape(&[-1])?;
    let x = super::solve(&a2, &b1)?;
    let shape: Vec<isize> = old.iter().map(|&d| d as isize).collect();
    x.reshape(&shape)
}

/// NumPy's `linalg.tensorinv(a, ind=2)`: the inverse of `a` seen as a matrix with the first
/// `ind` axes as rows; the result has shape `a.shape[ind:] + a.shape[:ind]`.
#[cfg(not(target_arch = "wasm32"))]
pub fn tensorinv(a: &Array, ind: usize) -> Result<Array> {
    if ind == 0 {
        return Err(Error::invalid("Invalid ind argument."));
    }
    let ind = ind.min(a.ndim());
    let s = a.shape();
    let prod: usize = s[ind..].iter().product();
    let rows = a.size().checked_div(prod).unwrap_or(0);
    let m = a.reshape(&[rows as isize, prod as isize])?;
    let inv = super::inv(&m)?;
    let shape: Vec<isize> = s[ind..]
        .iter()
        .chain(&s[..ind])
        .map(|&d| d as isize)
        .collect();
    inv.reshape(&shape)
}
