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
use kupfer_wgpu::pipeline::Pipeline;
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
        DType::F64 | DType::I64 => Ok(DType::F64),
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

fn neg_inf() -> u32 {
    f32::NEG_INFINITY.to_bits()
}

pub(crate) fn u32_of(v: usize, what: &str) -> Result<u32> {
    u32::try_from(v).map_err(|_| Error::unsupported(format!("{what} of {v} (at most 2^32 - 1)")))
}

/// Runs the small kernel of `op` over `count` matrices of order `n <= SMALL_MAX` in `a`
/// (with `nrhs` columns of right-hand sides in `rhs` for Solve), writing `out` and `aux`.
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
    let wgsl = kernels::small(op, dtype, &ctx.target())?;
    let pipeline = ctx.pipeline_with(&wgsl, "main", ShaderChecks::Trusted)?;
    check_binding(device, &[a, out, aux])?;
    let elems = count.checked_mul(n * n.max(rhs.map_or(0, |r| r.1)));
    if elems.is_none_or(|e| e > u32::MAX as usize) {
        return Err(Error::unsupported(
            "factoring stacks of more than 2^32 elements",
        ));
    }
    let max_dim = ctx.max_workgroups_per_dim() as usize;
    let gx = count.min(max_dim);
    let gy = count.div_ceil(gx);
    if gy > max_dim {
        return Err(Error::unsupported("too many matrices for one launch"));
    }
    let nrhs = rhs.map_or(0, |r| r.1);
    let p = params(&[n as u32, nrhs as u32, count as u32, gx as u32, neg_inf()]);
    let mut bindings = vec![(1, whole(a))];
    if let Some((r, _)) = rhs {
        check_binding(device, &[r])?;
        bindings.push((2, whole(r)));
    }
    bindings.push((3, whole(out)));
    bindings.push((4, whole(aux)));
    ctx.dispatch_with(&pipeline, Some(&p), bindings, [gx as u32, gy as u32, 1])
}

/// The column-step kernels of one dtype on one device, for recording a factorization.
///
/// Factorizations run blocked, as LAPACK's right-looking algorithms: column steps inside a
/// panel of [`PANEL`] columns, then the trailing matrix updated by one GEMM per panel
/// (kupfer's matmul reading the factors as strided views of the working buffer), whose
/// product `sub_block` subtracts in place. Nothing is read back between steps.
pub(crate) struct Steps {
    device: Device,
    dtype: DType,
    pipelines: std::collections::HashMap<&'static str, Arc<Pipeline>>,
    n: u32,
    count: usize,
}

/// Matrices per dispatch of the step kernels (the grid's y/z limit).
const CHUNK: usize = 65535;

/// Columns per panel of the blocked factorizations.
pub(crate) const PANEL: u32 = 64;

/// A rectangle of rows `r0..r1` and columns `c0..c1`.
#[derive(Clone, Copy)]
struct Region {
    r0: u32,
    r1: u32,
    c0: u32,
    c1: u32,
}

impl Region {
    fn is_empty(&self) -> bool {
        self.r0 >= self.r1 || self.c0 >= self.c1
    }
}

impl Steps {
    /// The step kernels for `count` matrices of order `n` in `dtype`.
    pub(crate) fn new(device: &Device, dtype: DType, n: usize, count: usize) -> Result<Steps> {
        let ctx = device.context();
        let wgsl = kernels::steps(dtype, &ctx.target())?;
        let mut pipelines = std::collections::HashMap::new();
        for entry in [
            "lu_pivot",
            "lu_update",
            "lu_backsub",
            "lu_logdet",
            "sub_block",
            "chol_col",
            "chol_update",
            "chol_zero",
        ] {
            pipelines.insert(
                entry,
                ctx.pipeline_with(&wgsl, entry, ShaderChecks::Trusted)?,
            );
        }
        let n32 = u32_of(n, "matrix order")?;
        if count
            .checked_mul(n * n)
            .is_none_or(|e| e > u32::MAX as usize)
        {
            return Err(Error::unsupported(
                "factoring stacks of more than 2^32 elements",
            ));
        }
        Ok(Steps {
            device: device.clone(),
            dtype,
            pipelines,
            n: n32,
            count,
        })
    }

    fn dispatch(
        &self,
        entry: &'static str,
        words: &[u32],
        bindings: Vec<(u32, Binding)>,
        groups: [u32; 3],
    ) -> Result<()> {
        self.device.context().dispatch_with(
            &self.pipelines[entry],
            Some(&params(words)),
            bindings,
            groups,
        )
    }

    /// Each chunk of matrices: (first, how many).
    fn chunks(&self) -> impl Iterator<Item = (u32, u32)> {
        let count = self.count;
        (0..count)
            .step_by(CHUNK)
            .map(move |s| (s as u32, (count - s).min(CHUNK) as u32))
    }

    /// One 16 x 16-tiled launch of `entry` over `reg` for matrices `b0..b0 + c`.
    #[allow(clippy::too_many_arguments)]
    fn region(
        &self,
        entry: &'static str,
        m: u32,
        k: u32,
        mode: u32,
        (b0, c): (u32, u32),
        reg: Region,
        bindings: Vec<(u32, Binding)>,
    ) -> Result<()> {
        if reg.is_empty() {
            return Ok(());
        }
        let gx = (reg.c1 - reg.c0).div_ceil(16);
        let gy = (reg.r1 - reg.r0).div_ceil(16);
        let max_dim = self.device.context().max_workgroups_per_dim();
        if gx > max_dim || gy > max_dim {
            return Err(Error::unsupported("matrix too large for one launch"));
        }
        let w = [
            self.n,
            m,
            k,
            b0,
            c,
            mode,
            reg.r0,
            reg.r1,
            reg.c0,
            reg.c1,
            neg_inf(),
            0,
        ];
        self.dispatch(entry, &w, bindings, [gx, gy, c])
    }

    /// A strided view of the stack in `buffer` (matrices of `rows x cols`): rows `r0..r1`,
    /// columns `c0..c1`.
    fn view(&self, buffer: &Arc<GpuBuffer>, cols: usize, rows: usize, reg: Region) -> Array {
        let layout = Layout {
            shape: vec![
                self.count,
                (reg.r1 - reg.r0) as usize,
                (reg.c1 - reg.c0) as usize,
            ],
            strides: vec![(rows * cols) as isize, cols as isize, 1],
            offset: reg.r0 as usize * cols + reg.c0 as usize,
        };
        Array::from_buffer(self.device.clone(), self.dtype, buffer.clone(), layout)
    }

    /// Records `target[reg] -= lhs @ rhs` for every matrix (`mode` 0: the target is `a`,
    /// 1: `r`), the product by matmul.
    fn gemm_sub(
        &self,
        (a, r, m): (&Arc<GpuBuffer>, &Arc<GpuBuffer>, u32),
        mode: u32,
        lhs: &Array,
        rhs: &Array,
        reg: Region,
    ) -> Result<()> {
        if reg.is_empty() {
            return Ok(());
        }
        let product = crate::matmul(lhs, rhs)?;
        let p = dense(&product, self.dtype)?;
        check_binding(&self.device, &[&p])?;
        for chunk in self.chunks() {
            self.region(
                "sub_block",
                m,
                0,
                mode,
                chunk,
                reg,
                vec![(1, whole(a)), (2, whole(r)), (4, whole(&p))],
            )?;
        }
        Ok(())
    }

    /// Records LU with partial pivoting of the matrices in `a` applied to the `m` columns of
    /// `r` too (elimination on `[A | R]`), then, if `back`, the solve of `U X = R` in place.
    /// `aux` (zeroed, `count * (n + 1)` int32) receives info and the pivots. `r` must hold at
    /// least one element even when `m` is 0.
    pub(crate) fn lu(
        &self,
        a: &Arc<GpuBuffer>,
        r: &Arc<GpuBuffer>,
        m: usize,
        aux: &Arc<GpuBuffer>,
        back: bool,
    ) -> Result<()> {
        check_binding(&self.device, &[a, r, aux])?;
        let n = self.n;
        let m32 = u32_of(m, "right-hand-side count")?;
        if self
            .count
            .checked_mul(n as usize * m)
            .is_none_or(|e| e > u32::MAX as usize)
        {
            return Err(Error::unsupported(
                "solving for more than 2^32 right-hand-side elements",
            ));
        }
        let naug = n + m32;
        let ar = || vec![(1, whole(a)), (2, whole(r))];
        let (nu, mu) = (n as usize, m);
        for j0 in (0..n).step_by(PANEL as usize) {
            let pe = (j0 + PANEL).min(n);
            // The panel: pivot, swap whole rows, eliminate inside the panel's columns.
            for k in j0..pe {
                for chunk in self.chunks() {
                    let w = [n, m32, k, chunk.0, chunk.1, 0, 0, 0, 0, 0, neg_inf(), 0];
                    self.dispatch(
                        "lu_pivot",
                        &w,
                        vec![(1, whole(a)), (2, whole(r)), (3, whole(aux))],
                        [1, chunk.1, 1],
                    )?;
                    let reg = Region {
                        r0: k + 1,
                        r1: n,
                        c0: k + 1,
                        c1: pe,
                    };
                    self.region("lu_update", m32, k, 0, chunk, reg, ar())?;
                }
            }
            // The block row right of the panel (U12 and R's rows): L11^-1 applied by steps.
            for k in j0..pe {
                for chunk in self.chunks() {
                    let reg = Region {
                        r0: k + 1,
                        r1: pe,
                        c0: pe,
                        c1: naug,
                    };
                    self.region("lu_update", m32, k, 0, chunk, reg, ar())?;
                }
            }
            // The trailing rows: A22 -= L21 @ U12, R2 -= L21 @ R1.
            if pe < n {
                let l21 = self.view(
                    a,
                    nu,
                    nu,
                    Region {
                        r0: pe,
                        r1: n,
                        c0: j0,
                        c1: pe,
                    },
                );
                let u12 = self.view(
                    a,
                    nu,
                    nu,
                    Region {
                        r0: j0,
                        r1: pe,
                        c0: pe,
                        c1: n,
                    },
                );
                let reg = Region {
                    r0: pe,
                    r1: n,
                    c0: pe,
                    c1: n,
                };
                self.gemm_sub((a, r, m32), 0, &l21, &u12, reg)?;
                if m > 0 {
                    let r1 = self.view(
                        r,
                        mu,
                        nu,
                        Region {
                            r0: j0,
                            r1: pe,
                            c0: 0,
                            c1: m32,
                        },
                    );
                    let reg = Region {
                        r0: pe,
                        r1: n,
                        c0: 0,
                        c1: m32,
                    };
                    self.gemm_sub((a, r, m32), 1, &l21, &r1, reg)?;
                }
            }
        }
        if back {
            self.back_substitute(a, r, m, false)?;
        }
        Ok(())
    }

    /// Records the solve of `U X = R` in place for the upper triangles `U` of the matrices in
    /// `a` (`unit`: a unit diagonal is assumed, the stored one is not read), by blocks of
    /// [`PANEL`] rows from the bottom: steps inside the diagonal block, then
    /// `R[..i0] -= U[..i0, i0..i1] @ X[i0..i1]` by matmul. `r` holds `m` columns.
    pub(crate) fn back_substitute(
        &self,
        a: &Arc<GpuBuffer>,
        r: &Arc<GpuBuffer>,
        m: usize,
        unit: bool,
    ) -> Result<()> {
        if m == 0 {
            return Ok(());
        }
        check_binding(&self.device, &[a, r])?;
        let n = self.n;
        let m32 = u32_of(m, "right-hand-side count")?;
        let (nu, mu) = (n as usize, m);
        let blocks: Vec<u32> = (0..n).step_by(PANEL as usize).collect();
        for &i0 in blocks.iter().rev() {
            let i1 = (i0 + PANEL).min(n);
            for k in (i0..i1).rev() {
                for (b0, c) in self.chunks() {
                    let w = [n, m32, k, b0, c, u32::from(unit), i0, 0, 0, 0, neg_inf(), 0];
                    self.dispatch(
                        "lu_backsub",
                        &w,
                        vec![(1, whole(a)), (2, whole(r))],
                        [m32.div_ceil(64), c, 1],
                    )?;
                }
            }
            if i0 > 0 {
                let u = self.view(
                    a,
                    nu,
                    nu,
                    Region {
                        r0: 0,
                        r1: i0,
                        c0: i0,
                        c1: i1,
                    },
                );
                let x = self.view(
                    r,
                    mu,
                    nu,
                    Region {
                        r0: i0,
                        r1: i1,
                        c0: 0,
                        c1: m32,
                    },
                );
                let reg = Region {
                    r0: 0,
                    r1: i0,
                    c0: 0,
                    c1: m32,
                };
                self.gemm_sub((a, r, m32), 1, &u, &x, reg)?;
            }
        }
        Ok(())
    }

    /// Records the determinant (`slog` false: `sign * exp(log|det|)` per matrix) or
    /// `(sign, log|det|)` pairs into `out`, from factors and pivots left by [`Steps::lu`].
    pub(crate) fn logdet(
        &self,
        a: &Arc<GpuBuffer>,
        aux: &Arc<GpuBuffer>,
        out: &Arc<GpuBuffer>,
        slog: bool,
    ) -> Result<()> {
        let count = u32_of(self.count, "matrix count")?;
        let groups = count.div_ceil(64);
        if groups > self.device.context().max_workgroups_per_dim() {
            return Err(Error::unsupported("too many matrices for one launch"));
        }
        let w = [
            self.n,
            0,
            0,
            0,
            count,
            u32::from(slog),
            0,
            0,
            0,
            0,
            neg_inf(),
            0,
        ];
        self.dispatch(
            "lu_logdet",
            &w,
            vec![(1, whole(a)), (3, whole(aux)), (4, whole(out))],
            [groups, 1, 1],
        )
    }

    /// Records Cholesky (lower, strict upper triangle zeroed) of the matrices in `a`; `aux`
    /// (zeroed, `count` int32) receives info. `dummy` is any small buffer of the dtype.
    pub(crate) fn cholesky(
        &self,
        a: &Arc<GpuBuffer>,
        aux: &Arc<GpuBuffer>,
        dummy: &Arc<GpuBuffer>,
    ) -> Result<()> {
        check_binding(&self.device, &[a, aux])?;
        let n = self.n;
        let nu = n as usize;
        for j0 in (0..n).step_by(PANEL as usize) {
            let pe = (j0 + PANEL).min(n);
            for k in j0..pe {
                for chunk in self.chunks() {
                    let w = [n, 0, k, chunk.0, chunk.1, 0, 0, 0, 0, 0, neg_inf(), 0];
                    self.dispatch(
                        "chol_col",
                        &w,
                        vec![(1, whole(a)), (3, whole(aux))],
                        [1, chunk.1, 1],
                    )?;
                    let reg = Region {
                        r0: k + 1,
                        r1: n,
                        c0: k + 1,
                        c1: pe,
                    };
                    self.region("chol_update", 0, k, 0, chunk, reg, vec![(1, whole(a))])?;
                }
            }
            if pe < n {
                // A22 -= L21 @ L21^T (the whole block; its upper triangle is cleared last).
                let l21 = self.view(
                    a,
                    nu,
                    nu,
                    Region {
                        r0: pe,
                        r1: n,
                        c0: j0,
                        c1: pe,
                    },
                );
                let l21t = l21.swapaxes(-1, -2)?;
                let reg = Region {
                    r0: pe,
                    r1: n,
                    c0: pe,
                    c1: n,
                };
                self.gemm_sub((a, dummy, 0), 0, &l21, &l21t, reg)?;
            }
        }
        for chunk in self.chunks() {
            let reg = Region {
                r0: 0,
                r1: n,
                c0: 0,
                c1: n,
            };
            self.region("chol_zero", 0, 0, 0, chunk, reg, vec![(1, whole(a))])?;
        }
        Ok(())
    }
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
