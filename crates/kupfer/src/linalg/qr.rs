//! NumPy's `linalg.qr`: Householder QR of stacks of `m x n` matrices on the device: blocked
//! ([`super::qr_blocked`]: panels of up to 32 columns, compact-WY updates on the tiled
//! matmul) for real matrices with at least `Config::linalg.qr_from` reflectors, else
//! [`super::orth`] (one reflector and its application to the trailing columns per column);
//! `Q` formed by applying the reflectors to the identity from the last one back.

use super::factor;
use super::orth::Orth;
use super::qr_blocked::{BlockedQr, KeptT};
use crate::array::Array;
use crate::device::Device;
use kupfer_core::{DType, Error, LinAlgError, Result, SliceArg};
use std::sync::Arc;

/// The `mode` of [`qr`] (NumPy's strings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QrMode {
    /// `'reduced'` (NumPy's default): `Q` is `m x k`, `R` is `k x n`, `k = min(m, n)`.
    Reduced,
    /// `'complete'`: `Q` is `m x m`, `R` is `m x n`.
    Complete,
    /// `'r'`: only `R` (`k x n`).
    R,
    /// `'raw'`: LAPACK's packed form, `(h, tau)` with `h` of shape `(..., n, m)` (the
    /// transposed factored matrix: R in its upper part, the reflectors below) and `tau`
    /// `(..., k)`.
    Raw,
}

impl std::str::FromStr for QrMode {
    type Err = Error;
    fn from_str(s: &str) -> Result<QrMode> {
        match s {
            "reduced" => Ok(QrMode::Reduced),
            "complete" => Ok(QrMode::Complete),
            "r" => Ok(QrMode::R),
            "raw" => Ok(QrMode::Raw),
            other => Err(Error::invalid(format!("Unrecognized mode '{other}'"))),
        }
    }
}

/// The result of [`qr`]: `q` and `r` (`q` is `None` for [`QrMode::R`]); for
/// [`QrMode::Raw`], `q` holds `h` and `r` holds `tau`.
#[derive(Debug, Clone)]
pub struct Qr {
    /// The orthonormal factor (or `h` for raw; `None` for mode `'r'`).
    pub q: Option<Array>,
    /// The upper-triangular factor (or `tau` for raw).
    pub r: Array,
}

fn with_core(batch: &[usize], core: &[usize]) -> Vec<usize> {
    batch.iter().chain(core).copied().collect()
}

/// The batch shape, rows and columns of a stack of matrices.
pub(crate) fn matrix_stack(a: &Array) -> Result<(Vec<usize>, usize, usize)> {
    let nd = a.ndim();
    if nd < 2 {
        return Err(LinAlgError::TooFewDimensions(nd).into());
    }
    let s = a.shape();
    Ok((s[..nd - 2].to_vec(), s[nd - 2], s[nd - 1]))
}

/// `m x cols` identity matrices for every matrix of the batch, as a fresh dense buffer.
fn identities(
    device: &Device,
    batch: &[usize],
    m: usize,
    cols: usize,
    dtype: DType,
) -> Result<Array> {
    let eye = {
        let _guard = device.use_device();
        crate::creation::eye(m, Some(cols), 0, Some(dtype))?
    };
    eye.broadcast_to(&with_core(batch, &[m, cols]))?.copy()
}

/// The packed factorization: the factored matrices (`batch + [m, n]`), tau (`batch + [k]`)
/// and, from the blocked path, its block reflectors' T for [`form_q`].
pub(crate) fn householder(a: &Array, dtype: DType) -> Result<(Array, Array, Option<KeptT>)> {
    let (batch, m, n) = matrix_stack(a)?;
    let device = a.device().clone();
    let count: usize = batch.iter().product();
    let k = m.min(n);
    if count == 0 || k == 0 {
        let h = a.astype(dtype)?.copy()?;
        let tau = crate::creation::full_on(&device, &with_core(&batch, &[k]), 0i64, Some(dtype))?;
        return Ok((h, tau, None));
    }
    if dtype.is_complex() {
        let (h, tau) = super::complex_factor::householder_complex(a, &batch, m, n, dtype)?;
        return Ok((h, tau, None));
    }
    let ab = factor::dense_copy(a, dtype)?;
    let tau = factor::alloc(&device, count * k, dtype)?;
    let kept = match BlockedQr::new(&device, dtype, count, m, k, n)? {
        Some(blocked) => blocked.factor(&ab, &tau, n)?,
        None => {
            Orth::new(&device, dtype, count, m * n)?.qr(&ab, &tau, m, n)?;
            None
        }
    };
    Ok((
        factor::wrap(&device, dtype, ab, &with_core(&batch, &[m, n])),
        factor::wrap(&device, dtype, tau, &with_core(&batch, &[k])),
        kept,
    ))
}

/// The first `cols` columns of `Q` from a packed factorization ([`householder`]; `kept`:
/// its block reflectors' T, if it kept them).
pub(crate) fn form_q(h: &Array, tau: &Array, cols: usize, kept: Option<&KeptT>) -> Result<Array> {
    let (batch, m, n) = matrix_stack(h)?;
    let device = h.device().clone();
    let dtype = h.dtype();
    let count: usize = batch.iter().product();
    let x = identities(&device, &batch, m, cols, dtype)?;
    if count == 0 || m.min(n) == 0 || cols == 0 {
        return Ok(x);
    }
    if dtype.is_complex() {
        let xb = factor::dense_copy(&x, dtype)?;
        super::complex_factor::apply_q_complex(h, tau, &xb, count, m, n, cols)?;
        return Ok(factor::wrap(
            &device,
            dtype,
            xb,
            &with_core(&batch, &[m, cols]),
        ));
    }
    let hb = factor::dense(h, dtype)?;
    let tb = factor::dense(tau, dtype)?;
    let xb: Arc<_> = factor::dense_copy(&x, dtype)?;
    let k = m.min(n);
    match BlockedQr::new(&device, dtype, count, m, k, cols)?.filter(|_| cols >= k) {
        Some(blocked) => blocked.form_q(&hb, &tb, n, &xb, cols, kept)?,
        None => {
            Orth::new(&device, dtype, count, m * m.max(n))?.apply_q(&hb, &tb, &xb, m, n, cols)?
        }
    }
    Ok(factor::wrap(
        &device,
        dtype,
        xb,
        &with_core(&batch, &[m, cols]),
    ))
}

/// NumPy's `linalg.qr(a, mode)`: `a = Q R` for each matrix of `a` (`..., m, n`), `Q` with
/// orthonormal columns and `R` upper triangular, by Householder reflections on the device
/// (LAPACK's sign convention: R's diagonal is `-sign(a_kk) * norm`, as NumPy gives).
/// Stays lazy: nothing is read back. Integer input computes in float (float32 for 32-bit
/// types: kupfer's documented exception). Complex matrices run on native complex kernels
/// (unitary `Q`, real diagonal of `R`, as zgeqrf).
///
/// ```
/// use kupfer as kp;
/// let a = kp::Array::from_slice(&[3.0f32, 1.0, 4.0, 2.0], &[2, 2])?;
/// let qr = kp::linalg::qr(&a, kp::linalg::QrMode::Reduced)?;
/// let r: Vec<f32> = qr.r.to_vec()?;
/// assert!((r[0] + 5.0).abs() < 1e-5 && r[2] == 0.0);
/// # Ok::<(), kp::Error>(())
/// ```
pub fn qr(a: &Array, mode: QrMode) -> Result<Qr> {
    let dtype = if a.dtype().is_complex() {
        a.dtype()
    } else {
        factor::compute_dtype(a.dtype())?
    };
    let (_, m, n) = matrix_stack(a)?;
    let k = m.min(n);
    let (h, tau, kept) = householder(a, dtype)?;
    let rows = |r: usize| -> Result<Array> {
        let top = h.slice(&[
            SliceArg::Ellipsis,
            SliceArg::range(0, r as isize),
            SliceArg::FULL,
        ])?;
        crate::triu(&top, 0)
    };
    match mode {
        QrMode::Raw => Ok(Qr {
            q: Some(h.swapaxes(-1, -2)?),
            r: tau,
        }),
        QrMode::R => Ok(Qr {
            q: None,
            r: rows(k)?,
        }),
        QrMode::Reduced => Ok(Qr {
            q: Some(form_q(&h, &tau, k, kept.as_ref())?),
            r: rows(k)?,
        }),
        QrMode::Complete => Ok(Qr {
            q: Some(form_q(&h, &tau, m, kept.as_ref())?),
            r: rows(m)?,
        }),
    }
}
