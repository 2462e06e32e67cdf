//! The driver of the orthogonal-factorization kernels (`shaders/linalg_orth.wgsl`):
//! Householder QR of stacks of `m x n` matrices (one reflector and its application per
//! column, recorded back to back with no read-back), forming `Q` from the reflectors, and
//! the one-sided (Hestenes) Jacobi SVD, whose sweeps run until a device-side flag says every
//! pair of columns is orthogonal to working precision (the flag is read back after each
//! sweep from the third on; a stack that has not converged after [`MAX_SWEEPS`] is reported
//! as NumPy's "SVD did not converge").

use super::factor::{self, check_binding, params, u32_of, whole};
use crate::array::Array;
use crate::device::Device;
use crate::reduce::Axis;
use crate::scalar::Scalar;
use kupfer_core::linalg as kernels;
use kupfer_core::{DType, Error, Result};
use kupfer_wgpu::pipeline::Pipeline;
use kupfer_wgpu::{GpuBuffer, ShaderChecks};
use std::collections::HashMap;
use std::sync::Arc;

/// Matrices per dispatch (the grid's y limit).
const CHUNK: usize = 65535;

/// The most Jacobi sweeps before a stack is reported as not converged (cyclic Jacobi
/// converges quadratically: 6 to 12 sweeps are typical).
pub(crate) const MAX_SWEEPS: usize = 40;

/// The orthogonal-factorization kernels of one dtype on one device.
pub(crate) struct Orth {
    device: Device,
    dtype: DType,
    pipelines: HashMap<&'static str, Arc<Pipeline>>,
    count: usize,
}

/// The words of the kernels' uniform block (`Params` in the template).
#[derive(Default, Clone, Copy)]
struct Words {
    m: u32,
    n: u32,
    k: u32,
    batch0: u32,
    count: u32,
    mode: u32,
    c0: u32,
    c1: u32,
    xc: u32,
    kmax: u32,
    tol_rot: f32,
    tol_conv: f32,
}

impl Words {
    fn bytes(&self) -> Vec<u8> {
        params(&[
            self.m,
            self.n,
            self.k,
            self.batch0,
            self.count,
            self.mode,
            self.c0,
            self.c1,
            self.xc,
            self.kmax,
            self.tol_rot.to_bits(),
            self.tol_conv.to_bits(),
        ])
    }
}

/// Machine epsilon of a float dtype.
pub(crate) fn eps(dtype: DType) -> f64 {
    if dtype == DType::F64 {
        f64::EPSILON
    } else {
        f32::EPSILON as f64
    }
}

impl Orth {
    /// The kernels for `count` matrices of `dtype` (at most 2^32 elements per stack).
    pub(crate) fn new(device: &Device, dtype: DType, count: usize, elems: usize) -> Result<Orth> {
        if count
            .checked_mul(elems)
            .is_none_or(|e| e > u32::MAX as usize)
        {
            return Err(Error::unsupported(
                "factoring stacks of more than 2^32 elements",
            ));
        }
        let ctx = device.context();
        let wgsl = kernels::orth(dtype, &ctx.target())?;
        let mut pipelines = HashMap::new();
        for entry in [
            "house",
            "house_apply",
            "jacobi_step",
            "jacobi_step_cplx",
            "clear_flags",
            "piv_perm",
        ] {
            pipelines.insert(
                entry,
                ctx.pipeline_with(&wgsl, entry, ShaderChecks::Trusted)?,
            );
        }
        Ok(Orth {
            device: device.clone(),
            dtype,
            pipelines,
            count,
        })
    }

    fn dispatch(
        &self,
        entry: &'static str,
        w: Words,
        bindings: Vec<(u32, kupfer_wgpu::Binding)>,
        groups: [u32; 3],
    ) -> Result<()> {
        let max_dim = self.device.context().max_workgroups_per_dim();
        if groups.iter().any(|&g| g > max_dim) {
            return Err(Error::unsupported("matrix too large for one launch"));
        }
        if groups.contains(&0) {
            return Ok(());
        }
        self.device.context().dispatch_with(
            &self.pipelines[entry],
            Some(&w.bytes()),
            bindings,
            groups,
        )
    }

    fn chunks(&self) -> impl Iterator<Item = (u32, u32)> {
        let count = self.count;
        (0..count)
            .step_by(CHUNK)
            .map(move |s| (s as u32, (count - s).min(CHUNK) as u32))
    }

    /// Records Householder QR of the `m x n` matrices in `a` (row-major, in place: R on and
    /// above the diagonal, the reflectors' vectors below it) with `tau` (`count * kmax`
    /// values, `kmax = min(m, n)`).
    pub(crate) fn qr(
        &self,
        a: &Arc<GpuBuffer>,
        tau: &Arc<GpuBuffer>,
        m: usize,
        n: usize,
    ) -> Result<()> {
        check_binding(&self.device, &[a, tau])?;
        let kmax = m.min(n);
        let (m32, n32) = (u32_of(m, "rows")?, u32_of(n, "columns")?);
        // house_apply binds a second stack; mode 0 never reads it.
        let dummy = factor::alloc(&self.device, 1, self.dtype)?;
        for k in 0..kmax as u32 {
            for (b0, c) in self.chunks() {
                let w = Words {
                    m: m32,
                    n: n32,
                    k,
                    batch0: b0,
                    kmax: kmax as u32,
                    ..Words::default()
                };
                let ab = vec![(1, whole(a)), (3, whole(tau))];
                self.dispatch("house", w, ab.clone(), [1, c, 1])?;
                let ab = vec![(1, whole(a)), (2, whole(&dummy)), (3, whole(tau))];
                let w = Words {
                    c0: k + 1,
                    c1: n32,
                    ..w
                };
                self.dispatch("house_apply", w, ab, [n32 - k - 1, c, 1])?;
            }
        }
        Ok(())
    }

    /// Records `X = H_0 H_1 ... H_{kmax-1} X` for the `m x xc` matrices in `x` (the
    /// reflectors left by [`Orth::qr`] in `a`, `m x n`, and `tau`): `Q`'s first `xc`
    /// columns when `x` starts as the identity.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn apply_q(
        &self,
        a: &Arc<GpuBuffer>,
        tau: &Arc<GpuBuffer>,
        x: &Arc<GpuBuffer>,
        m: usize,
        n: usize,
        xc: usize,
    ) -> Result<()> {
        check_binding(&self.device, &[a, tau, x])?;
        let kmax = m.min(n);
        let (m32, n32, xc32) = (
            u32_of(m, "rows")?,
            u32_of(n, "columns")?,
            u32_of(xc, "columns")?,
        );
        for k in (0..kmax as u32).rev() {
            for (b0, c) in self.chunks() {
                let w = Words {
                    m: m32,
                    n: n32,
                    k,
                    batch0: b0,
                    mode: 1,
                    c0: k.min(xc32),
                    c1: xc32,
                    xc: xc32,
                    kmax: kmax as u32,
                    ..Words::default()
                };
                self.dispatch(
                    "house_apply",
                    w,
                    vec![(1, whole(a)), (2, whole(x)), (3, whole(tau))],
                    [xc32 - k.min(xc32), c, 1],
                )?;
            }
        }
        Ok(())
    }

    /// Runs one-sided Jacobi on the `n` columns (rows of `g`, each of length `m`) of each
    /// matrix until they are mutually orthogonal, rotating the rows of `v` (`n x n` per
    /// matrix) alike when given. With `complex`, `g` and `v` hold complex matrices of this
    /// kernel set's real dtype as interleaved (re, im) pairs. Returns false if some matrix
    /// has not converged after [`MAX_SWEEPS`] sweeps.
    pub(crate) async fn jacobi(
        &self,
        g: &Arc<GpuBuffer>,
        v: Option<&Arc<GpuBuffer>>,
        m: usize,
        n: usize,
        complex: bool,
    ) -> Result<bool> {
        if n < 2 || m == 0 {
            return Ok(true);
        }
        let flags = factor::zeroed_i32(&self.device, self.count)?;
        let with_v = v.is_some();
        let dummy;
        let v = match v {
            Some(v) => v,
            None => {
                dummy = factor::alloc(&self.device, 1, self.dtype)?;
                &dummy
            }
        };
        check_binding(&self.device, &[g, v, &flags])?;
        let np = n + n % 2;
        let eps = eps(self.dtype);
        let w0 = Words {
            m: u32_of(m, "rows")?,
            n: u32_of(n, "columns")?,
            count: u32_of(self.count, "matrix count")?,
            mode: u32::from(with_v),
            kmax: np as u32,
            tol_rot: eps as f32,
            tol_conv: (eps * m.max(8) as f64) as f32,
            ..Words::default()
        };
        let flags_array = factor::wrap(&self.device, DType::I32, flags.clone(), &[self.count]);
        // Each matrix's squared Frobenius norm (invariant under the rotations): the scale
        // below which a column is zero to working precision.
        let parts = if complex { 2 } else { 1 };
        let columns = factor::wrap(
            &self.device,
            self.dtype,
            g.clone(),
            &[self.count, parts * n * m],
        );
        let fro2 = crate::reduce::sum(&crate::ufuncs::square(&columns)?, 1isize, false)?;
        let fro2 = factor::dense_copy(&fro2, self.dtype)?;
        for sweep in 0..MAX_SWEEPS {
            self.dispatch(
                "clear_flags",
                w0,
                vec![(4, whole(&flags))],
                [(self.count as u32).div_ceil(64), 1, 1],
            )?;
            for s in 0..(np - 1) as u32 {
                for (b0, c) in self.chunks() {
                    let w = Words {
                        k: s,
                        batch0: b0,
                        ..w0
                    };
                    self.dispatch(
                        if complex {
                            "jacobi_step_cplx"
                        } else {
                            "jacobi_step"
                        },
                        w,
                        vec![
                            (1, whole(v)),
                            (2, whole(g)),
                            (3, whole(&fro2)),
                            (4, whole(&flags)),
                        ],
                        [(np / 2) as u32, c, 1],
                    )?;
                }
            }
            if sweep >= 2 {
                let worst = crate::reduce::max(&flags_array, Axis::All, false)?
                    .item_async()
                    .await?;
                if let Scalar::Int(0) = worst {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// The permutations (`count x n` int32: row `i` of `P^T A` is row `perm[i]` of `A`) of
    /// LAPACK-style pivots (`count x n` int32, `piv[i]` swapped with `i` in turn).
    pub(crate) fn pivots_to_permutation(&self, piv: &Array, n: usize) -> Result<Array> {
        let len = (self.count * n) as isize;
        let zeros =
            crate::creation::full_on(&self.device, &[len as usize], 0i64, Some(DType::I32))?;
        let joined = crate::concatenate(
            &[piv.astype(DType::I32)?.reshape(&[len])?, zeros],
            None,
            None,
        )?;
        let both = factor::dense_copy(&joined, DType::I32)?;
        let w = Words {
            n: u32_of(n, "columns")?,
            count: u32_of(self.count, "matrix count")?,
            ..Words::default()
        };
        self.dispatch(
            "piv_perm",
            w,
            vec![(4, whole(&both))],
            [(self.count as u32).div_ceil(64), 1, 1],
        )?;
        let all = factor::wrap(&self.device, DType::I32, both, &[2, self.count, n]);
        all.slice(&[kupfer_core::SliceArg::Index(1)])
    }
}
