//! The nonsymmetric eigenproblem, NumPy's [`eig`] and [`eigvals`], on the kernels of
//! `shaders/linalg_eig.wgsl` (LAPACK's geev path, one workgroup per matrix, batched):
//!
//! 1. Householder reduction to upper Hessenberg form, `A = Q H Q^H`.
//! 2. QR iterations to the Schur form `A = Z T Z^H`: Francis double shifts in real
//!    arithmetic for real matrices (conjugate pairs stay exact pairs, real eigenvalues stay
//!    exactly real), single shifts in complex arithmetic for complex ones; deflation at
//!    negligible subdiagonals, exceptional shifts every 10 iterations, and at most
//!    `30 max(10, n)` sweeps per matrix before NumPy's "Eigenvalues did not converge".
//! 3. For vectors: the real Schur form's 2 x 2 blocks triangularized by a complex rotation,
//!    the eigenvectors of the triangular `T` by back substitution, `V = Z X`, each column
//!    normalized to unit 2-norm with its largest component real (as LAPACK's geev).
//!
//! The QR launches keep each matrix's state on the device and run a bounded number of
//! steps, within lavapipe's loop budget; between launches the host reads back whether every
//! matrix has finished (after 1, 2, 4, ... launches). Real input gives real results when
//! every eigenvalue is real (NumPy's rule; one more read-back), complex results otherwise.

use super::factor::{self, check_binding, u32_of, whole};
use crate::array::Array;
use crate::device::Device;
use crate::reduce::Axis;
use crate::scalar::Scalar;
use kupfer_core::eig as kernels;
use kupfer_core::{DType, Error, LinAlgError, Result};
use kupfer_wgpu::pipeline::Pipeline;
use kupfer_wgpu::{Binding, GpuBuffer, ShaderChecks};
use std::collections::HashMap;
use std::sync::Arc;

/// The largest order `eig` takes. Beyond 512 a Householder step of the Hessenberg
/// reduction is split over launches (the reflector, then its application to bounded ranges
/// of columns and rows; Z set to the identity beforehand by an elementwise kernel) and the
/// Schur form's 2 x 2 blocks are made triangular over several launches; beyond about 1300
/// the eigenvector kernels split too (a column's back substitution by ranges of steps,
/// `V = Z X` by ranges of rows, then the normalization). One row of the Hessenberg
/// reduction's right-hand application costs a thread `4 n` iterations, which bounds the
/// order well above this; the number of launches (about `n^2 / 40` for the reduction)
/// is what makes larger orders impractical.
pub const EIG_ORDER_MAX: usize = 4096;

/// Loop iterations one thread may spend in one launch (lavapipe ends loops at 65535).
const BUDGET: usize = 30_000;

/// Matrices per dispatch (the grid's dimension limit).
const CHUNK: usize = 65535;

/// The most launches recorded between two read-backs of the QR state.
const MAX_GROUP: usize = 16;

fn with_core(batch: &[usize], core: &[usize]) -> Vec<usize> {
    batch.iter().chain(core).copied().collect()
}

fn not_converged() -> Error {
    LinAlgError::NotConverged("Eigenvalues".into()).into()
}

/// The kernels of one real dtype over `count` matrices of order `n`.
pub(super) struct Kernels {
    device: Device,
    pipelines: HashMap<&'static str, Arc<Pipeline>>,
    count: usize,
    n: u32,
    /// The loop budget the splits of the reduction and the eigenvector kernels keep to
    /// ([`BUDGET`], or lower in tests: `LinalgConfig::eig_split_budget`).
    split: usize,
}

impl Kernels {
    pub(super) fn new(device: &Device, real: DType, count: usize, n: usize) -> Result<Kernels> {
        let ctx = device.context();
        let wgsl = kernels::eig(real, &ctx.target())?;
        let mut pipelines = HashMap::new();
        for entry in kernels::ENTRIES {
            pipelines.insert(
                entry,
                ctx.pipeline_with(&wgsl, entry, ShaderChecks::Trusted)?,
            );
        }
        Ok(Kernels {
            device: device.clone(),
            pipelines,
            count,
            n: u32_of(n, "order")?,
            split: (device.config().linalg.eig_split_budget as usize).clamp(64, BUDGET),
        })
    }

    /// Records `entry` over every matrix (`per_column`: one workgroup per column and matrix).
    fn launch(
        &self,
        entry: &'static str,
        words: [u32; 6],
        bindings: &[(u32, &Arc<GpuBuffer>)],
        per_column: bool,
    ) -> Result<()> {
        let buffers: Vec<&Arc<GpuBuffer>> = bindings.iter().map(|(_, b)| *b).collect();
        check_binding(&self.device, &buffers)?;
        let bindings: Vec<(u32, Binding)> = bindings.iter().map(|(i, b)| (*i, whole(b))).collect();
        let [steps, mode, maxits, k0, k1, part] = words;
        for b0 in (0..self.count).step_by(CHUNK) {
            let c = (self.count - b0).min(CHUNK) as u32;
            let mut p = Vec::with_capacity(kernels::PARAMS_SIZE);
            for w in [self.n, b0 as u32, steps, mode, maxits, k0, k1, part] {
                p.extend_from_slice(&w.to_le_bytes());
            }
            let groups = if per_column {
                [self.n, c, 1]
            } else {
                [c, 1, 1]
            };
            self.device.context().dispatch_with(
                &self.pipelines[entry],
                Some(&p),
                bindings.clone(),
                groups,
            )?;
        }
        Ok(())
    }
}

/// What the QR phase leaves: the Schur form `T` and (with vectors) `Z`, both complex.
pub(super) struct Schur {
    pub(super) t: Arc<GpuBuffer>,
    pub(super) z: Option<Arc<GpuBuffer>>,
}

/// Reads the QR state back: `Ok(true)` when every matrix is done, an error if one failed.
async fn qr_done(device: &Device, st: &Arc<GpuBuffer>, count: usize) -> Result<bool> {
    let state = factor::wrap(device, DType::I32, st.clone(), &[count, 8]);
    let words: Vec<i32> = state.to_vec_async().await?;
    let mut done = true;
    for m in words.chunks(8) {
        if m[2] != 0 {
            return Err(not_converged());
        }
        done &= m[0] <= 0;
    }
    Ok(done)
}

/// The Hessenberg reduction with each column's Householder step split over launches
/// within the loop budget (large orders): the reflector, then its application from the
/// left to ranges of columns and from the right to ranges of rows (of H and Z).
fn hessenberg_split(
    k: &Kernels,
    hess: &'static str,
    mode: u32,
    bindings: &[(u32, &Arc<GpuBuffer>)],
    kend: usize,
) -> Result<()> {
    let n = k.n as usize;
    // A column from the left costs a thread 2 n iterations, a row from the right 4 n
    // (H and Z); each thread takes one in 64 of the launch's range.
    let cols = 64 * (k.split / (2 * n)).max(1);
    let rows = 64 * (k.split / (4 * n)).max(1);
    for col in 0..kend {
        let c = col as u32;
        k.launch(hess, [0, mode, 0, c, c + 1, 1], bindings, false)?;
        for j0 in (col + 1..n).step_by(cols) {
            let j1 = (j0 + cols).min(n);
            k.launch(
                hess,
                [j0 as u32, mode, j1 as u32, c, c + 1, 2],
                bindings,
                false,
            )?;
        }
        for i0 in (0..n).step_by(rows) {
            let i1 = (i0 + rows).min(n);
            k.launch(
                hess,
                [i0 as u32, mode, i1 as u32, c, c + 1, 3],
                bindings,
                false,
            )?;
        }
    }
    Ok(())
}

/// Hessenberg reduction and QR iterations on the dense stack `a` (real or complex).
pub(super) async fn schur(
    k: &Kernels,
    a: &Array,
    real: DType,
    complex: bool,
    want_z: bool,
) -> Result<Schur> {
    let device = &k.device;
    let (count, n) = (k.count, k.n as usize);
    let cdt = real.complex_of();
    let mode = u32::from(want_z);
    let dummy = factor::alloc(device, 4, real)?;
    let u = factor::alloc(device, 2 * count * n, real)?;
    let init: Vec<i32> = (0..count)
        .flat_map(|_| [n as i32, 0, 0, 0, 0, 0, 0, 0])
        .collect();
    let st = Array::from_slice_on(device, &init, &[count, 8])?
        .buffer_and_layout()?
        .0;
    let (mat, zmat, hess, qr) = if complex {
        (
            factor::dense_copy(a, cdt)?,
            factor::alloc(device, count * n * n, cdt)?,
            "hess_cplx",
            "qr_cplx",
        )
    } else {
        (
            factor::dense_copy(a, real)?,
            factor::alloc(device, count * n * n, real)?,
            "hess_real",
            "qr_real",
        )
    };
    // 1. Hessenberg: a Householder step costs each thread about 6 n ceil(n / 64) iterations
    // (and the first launch n^2 / 64 more to set Z to the identity).
    let per_k = 6 * n * n.div_ceil(64) + 64;
    let kend = n.saturating_sub(2);
    let split = per_k + n * n / 64 > k.split;
    // Split reductions find Z set to the identity (mode bit 2) by an elementwise kernel.
    let zmat = if split && want_z {
        let _current = device.use_device();
        let eye = crate::creation::eye(n, None, 0, Some(if complex { cdt } else { real }))?;
        factor::dense_copy(&eye.broadcast_to(&[count, n, n])?, eye.dtype())?
    } else {
        zmat
    };
    let z = if want_z { &zmat } else { &dummy };
    let (hb, zb) = if complex { (3, 4) } else { (1, 2) };
    let bindings = [(hb, &mat), (zb, z), (5, &u)];
    if split {
        hessenberg_split(k, hess, mode | 4, &bindings, kend)?;
    } else {
        // At least one launch: it also sets Z to the identity.
        let ks = (BUDGET / per_k).max(1);
        let mut k0 = 0;
        loop {
            let k1 = (k0 + ks).min(kend);
            k.launch(
                hess,
                [0, mode, 0, k0 as u32, k1 as u32, 0],
                &bindings,
                false,
            )?;
            k0 = k1;
            if k0 >= kend {
                break;
            }
        }
    }
    // 2. QR: a step is a deflation search (n) or one bulge-chasing step (4 ceil(n / 64)).
    let steps = (BUDGET / (n + 4 * n.div_ceil(64) + 16)).max(1);
    let maxits = 30 * n.max(10);
    let max_launches = (maxits * (n + 1) + 2 * n) / steps + 2;
    let mut launched = 0;
    let mut group = 1;
    loop {
        for _ in 0..group {
            k.launch(
                qr,
                [steps as u32, mode, maxits as u32, 0, 0, 0],
                &[(hb, &mat), (zb, z), (6, &st)],
                false,
            )?;
        }
        launched += group;
        if qr_done(device, &st, count).await? {
            break;
        }
        if launched >= max_launches {
            return Err(not_converged());
        }
        group = (group * 2).min(MAX_GROUP);
    }
    if complex {
        return Ok(Schur {
            t: mat,
            z: want_z.then_some(zmat),
        });
    }
    // 3. Real Schur form to complex triangular form.
    let shape = [count, n, n];
    let t = factor::dense_copy(&factor::wrap(device, real, mat.clone(), &shape), cdt)?;
    let zc = if want_z {
        Some(factor::dense_copy(
            &factor::wrap(device, real, zmat, &shape),
            cdt,
        )?)
    } else {
        None
    };
    let cdummy = factor::alloc(device, 4, real)?;
    // A block costs each thread about 3 ceil(n / 64) + 8 iterations.
    let per_launch = (BUDGET / (3 * n.div_ceil(64) + 8)).max(1);
    for j0 in (0..n.saturating_sub(1)).step_by(per_launch) {
        k.launch(
            "to_complex",
            [0, mode, 0, j0 as u32, (j0 + per_launch) as u32, 0],
            &[(1, &mat), (3, &t), (4, zc.as_ref().unwrap_or(&cdummy))],
            false,
        )?;
    }
    Ok(Schur { t, z: zc })
}

/// Eigenvalues (and vectors) of the square stack `a`: `(w, v)` with NumPy's dtypes.
async fn eig_parts(a: &Array, want_vectors: bool) -> Result<(Array, Option<Array>)> {
    let (batch, n) = factor::square(a)?;
    let complex_input = a.dtype().is_complex();
    let real = match factor::complex_parts(a.dtype()) {
        Some(r) => r,
        None => factor::compute_dtype(a.dtype())?,
    };
    let cdt = real.complex_of();
    let out_dtype = if complex_input { cdt } else { real };
    let count: usize = batch.iter().product();
    let device = a.device().clone();
    device.check(real)?;
    if count == 0 || n == 0 {
        let w = crate::creation::full_on(&device, &with_core(&batch, &[n]), 0i64, Some(out_dtype))?;
        let v =
            crate::creation::full_on(&device, &with_core(&batch, &[n, n]), 0i64, Some(out_dtype))?;
        return Ok((w, want_vectors.then_some(v)));
    }
    if n > EIG_ORDER_MAX {
        return Err(Error::unsupported(format!(
            "eig of matrices of order {n} (at most {EIG_ORDER_MAX})"
        )));
    }
    if count
        .checked_mul(2 * n * n)
        .is_none_or(|e| e > u32::MAX as usize)
    {
        return Err(Error::unsupported(
            "eig of stacks of more than 2^31 elements",
        ));
    }
    if !all_finite(a).await? {
        return Err(LinAlgError::NotFinite.into());
    }
    let k = Kernels::new(&device, real, count, n)?;
    let schur = schur(&k, a, real, complex_input, want_vectors).await?;
    let t = factor::wrap(&device, cdt, schur.t.clone(), &with_core(&batch, &[n, n]));
    let w = t.diagonal(0, -2, -1)?.copy()?;
    let v = match &schur.z {
        Some(z) if want_vectors => {
            let y = factor::alloc(&device, count * n * n, cdt)?;
            let v = factor::alloc(&device, count * n * n, cdt)?;
            // A substitution step costs a thread about n / 64 iterations: ranges of steps
            // where all n would pass the budget.
            let per_step = n.div_ceil(64) + 2;
            let bind = [(3, &schur.t), (7, &y)];
            if n * per_step + n.div_ceil(64) <= k.split {
                k.launch("backsub", [0; 6], &bind, true)?;
            } else {
                let steps = (k.split / per_step).max(1);
                for s0 in (0..n).step_by(steps) {
                    let s1 = (s0 + steps).min(n) as u32;
                    k.launch("backsub", [0, 0, 0, s0 as u32, s1, 1], &bind, true)?;
                }
            }
            let mode = 1 | if complex_input { 0 } else { 2 };
            let bind = [(3, &schur.t), (4, z), (7, &y), (8, &v)];
            // A row of V = Z X costs a thread n iterations, each thread taking one row in
            // 64; the normalization 3 n / 64.
            if n.div_ceil(64) * n + 3 * n.div_ceil(64) + 16 <= k.split {
                k.launch("vecs", [0, mode, 0, 0, 0, 0], &bind, true)?;
            } else {
                let rows = 64 * (k.split / n).max(1);
                for r0 in (0..n).step_by(rows) {
                    let r1 = (r0 + rows).min(n) as u32;
                    k.launch("vecs", [0, mode, 0, r0 as u32, r1, 1], &bind, true)?;
                }
                k.launch("vecs", [0, mode, 0, 0, 0, 2], &bind, true)?;
            }
            Some(factor::wrap(&device, cdt, v, &with_core(&batch, &[n, n])))
        }
        _ => None,
    };
    if !complex_input && all_real(&w).await? {
        let w = crate::real(&w)?.copy()?;
        let v = match v {
            Some(v) => Some(crate::real(&v)?.copy()?),
            None => None,
        };
        return Ok((w, v));
    }
    Ok((w, v))
}

/// Reads back whether every element of `x` is finite (real and imaginary parts).
pub(super) async fn all_finite(x: &Array) -> Result<bool> {
    let finite = if x.dtype().is_complex() {
        crate::logical_and(
            &crate::isfinite(&crate::real(x)?)?,
            &crate::isfinite(&crate::imag(x)?)?,
        )?
    } else {
        crate::isfinite(x)?
    };
    let ok = crate::all(&finite, Axis::All, false)?.item_async().await?;
    Ok(matches!(ok, Scalar::Bool(true)))
}

/// Reads back whether every (complex) element of `w` has a zero imaginary part.
async fn all_real(w: &Array) -> Result<bool> {
    let zero = crate::equal(&crate::imag(w)?, 0.0)?;
    let ok = crate::all(&zero, Axis::All, false)?.item_async().await?;
    Ok(matches!(ok, Scalar::Bool(true)))
}

/// NumPy's `linalg.eig(a)`: the eigenvalues (`..., n`) and right eigenvectors (the columns
/// of `..., n, n`, unit 2-norm, largest component real) of each square matrix of `a`, so
/// that `a @ v[..., :, i] = w[..., i] * v[..., :, i]`.
///
/// Dtypes as NumPy's: complex input gives complex results; real input gives real results
/// when every eigenvalue is real and complex ones (complex64 for float32, complex128 for
/// float64) otherwise. Integer input computes in float64 (int64) or float32.
///
/// Errors: NumPy's for fewer than two dimensions or non-square matrices; `Array must not
/// contain infs or NaNs`; `Eigenvalues did not converge`. Orders above
/// [`EIG_ORDER_MAX`] are refused.
///
/// ```
/// use kupfer as kp;
/// let a = kp::Array::from_slice(&[2.0f32, 1.0, 0.0, 3.0], &[2, 2])?;
/// let (w, _v) = kp::linalg::eig(&a)?;
/// let mut w: Vec<f32> = w.to_vec()?;
/// w.sort_by(f32::total_cmp);
/// assert!((w[0] - 2.0).abs() < 1e-5 && (w[1] - 3.0).abs() < 1e-5);
/// # Ok::<(), kp::Error>(())
/// ```
#[cfg(not(target_arch = "wasm32"))]
pub fn eig(a: &Array) -> Result<(Array, Array)> {
    pollster::block_on(eig_async(a))
}

/// [`eig`], async (the browser's only form).
pub async fn eig_async(a: &Array) -> Result<(Array, Array)> {
    let (w, v) = eig_parts(a, true).await?;
    let v = v.ok_or_else(|| Error::Device("eig lost its vectors".into()))?;
    Ok((w, v))
}

/// NumPy's `linalg.eigvals(a)`: the eigenvalues of each square matrix of `a`, with
/// [`eig`]'s dtypes and errors (no vectors are accumulated).
#[cfg(not(target_arch = "wasm32"))]
pub fn eigvals(a: &Array) -> Result<Array> {
    pollster::block_on(eigvals_async(a))
}

/// [`eigvals`], async.
pub async fn eigvals_async(a: &Array) -> Result<Array> {
    Ok(eig_parts(a, false).await?.0)
}
