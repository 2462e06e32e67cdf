//! Blocked LU with partial pivoting and blocked Cholesky for matrices larger than the
//! workgroup-memory kernel takes, recorded as a few launches per panel of columns
//! (`shaders/linalg_steps.wgsl`): the tall panel factored by one workgroup per matrix, the
//! panel's row swaps applied to the other columns, a triangular solve for the block row, and
//! the trailing matrix updated in place by a tiled rank-`w` GEMM (`gemm_sub`). Nothing is read
//! back between launches. Panels of at most `256 * 16` rows are factored in registers
//! (`shaders/linalg_panel.wgsl`), taller ones in global memory.

use super::factor::{check_binding, neg_inf, params, u32_of, whole};
use crate::device::Device;
use kupfer_core::linalg as kernels;
use kupfer_core::{DType, Error, Result};
use kupfer_wgpu::pipeline::Pipeline;
use kupfer_wgpu::{Binding, GpuBuffer, ShaderChecks};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

/// Matrices per dispatch (the grid's y/z limit).
const CHUNK: usize = 65535;

/// The widest panel, and the rows of a back-substitution block (the kernels' workgroup
/// arrays hold 32 rows of a block).
const PANEL_MAX: u32 = kernels::PANEL_WIDTH;

/// Loop iterations a panel kernel's thread may spend on one panel (lavapipe ends an
/// invocation's loops after 65535).
const PANEL_LOOP_BUDGET: u64 = 16384;

/// Tile edge of `gemm_sub` and column group of `trsm`.
const GEMM_TILE: u32 = 64;
const TRSM_COLUMNS: u32 = 16;

/// The panel width for order `n`: `preferred` (the device's
/// [`crate::config::LinalgConfig::panel_width`]: wider panels mean fewer launches, narrower
/// ones less work for the one workgroup that factors each panel) within 8..=32, narrowed
/// while a panel kernel's thread would loop longer than [`PANEL_LOOP_BUDGET`] (about
/// `n * w^2 / 512` iterations per panel).
pub(crate) fn panel_width(n: u32, preferred: u32) -> u32 {
    let mut w = preferred.clamp(8, PANEL_MAX);
    while w > 8 && u64::from(n) * u64::from(w * w) / 512 > PANEL_LOOP_BUDGET {
        w /= 2;
    }
    w
}

/// The blocked kernels of one dtype on one device, for `count` matrices of order `n`.
pub(crate) struct Steps {
    device: Device,
    dtype: DType,
    pipelines: HashMap<&'static str, Arc<Pipeline>>,
    /// Register-resident panel kernels by (entry point, rows per thread), made on first use.
    panels: RefCell<HashMap<(&'static str, u32), Arc<Pipeline>>>,
    n: u32,
    count: usize,
    panel: u32,
    register_panels: bool,
}

/// The uniform words of one launch (`Params` in the shader).
#[derive(Clone, Copy, Default)]
struct Words {
    m: u32,
    k0: u32,
    k1: u32,
    mode: u32,
    r0: u32,
    r1: u32,
    c0: u32,
    c1: u32,
}

impl Steps {
    /// The kernels for `count` matrices of order `n` in `dtype`.
    pub(crate) fn new(device: &Device, dtype: DType, n: usize, count: usize) -> Result<Steps> {
        let ctx = device.context();
        let wgsl = kernels::steps(dtype, &ctx.target())?;
        let mut pipelines = HashMap::new();
        for entry in [
            "lu_panel",
            "lu_swap",
            "trsm",
            "gemm_sub",
            "lu_logdet",
            "chol_panel",
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
            panels: RefCell::new(HashMap::new()),
            n: n32,
            count,
            panel: panel_width(n32, device.config().linalg.panel_width),
            register_panels: device.config().linalg.register_panels,
        })
    }

    /// Records `entry` for every chunk of matrices: `groups` gives the grid's x and y for
    /// one chunk of `c` matrices (the matrix index goes where the shader reads it).
    fn launch(
        &self,
        entry: &'static str,
        w: Words,
        bindings: &[(u32, &Arc<GpuBuffer>)],
        groups: impl Fn(u32) -> [u32; 3],
    ) -> Result<()> {
        self.launch_on(&self.pipelines[entry], w, bindings, groups)
    }

    /// The panel kernel `entry` (`lu_panel` or `chol_panel`) for the panel starting at
    /// column `k0`: the register-resident one where its rows fit, else the global-memory one.
    fn panel_pipeline(&self, entry: &'static str, k0: u32) -> Result<Arc<Pipeline>> {
        let rows = self.n - k0;
        let rpt = rows.div_ceil(256).next_power_of_two();
        if rpt > kernels::PANEL_RPT_MAX || !self.register_panels {
            return Ok(self.pipelines[entry].clone());
        }
        if let Some(p) = self.panels.borrow().get(&(entry, rpt)) {
            return Ok(p.clone());
        }
        let ctx = self.device.context();
        let wgsl = kernels::panel(self.dtype, rpt, &ctx.target())?;
        let p = ctx.pipeline_with(&wgsl, entry, ShaderChecks::Trusted)?;
        self.panels.borrow_mut().insert((entry, rpt), p.clone());
        Ok(p)
    }

    /// [`Steps::launch`] on a given pipeline.
    fn launch_on(
        &self,
        pipeline: &Arc<Pipeline>,
        w: Words,
        bindings: &[(u32, &Arc<GpuBuffer>)],
        groups: impl Fn(u32) -> [u32; 3],
    ) -> Result<()> {
        let ctx = self.device.context();
        let max_dim = ctx.max_workgroups_per_dim();
        for s in (0..self.count).step_by(CHUNK) {
            let c = (self.count - s).min(CHUNK) as u32;
            let g = groups(c);
            if g.iter().any(|&d| d > max_dim) {
                return Err(Error::unsupported("matrix too large for one launch"));
            }
            if g.contains(&0) {
                return Ok(());
            }
            let words = [
                self.n,
                w.m,
                w.k0,
                w.k1,
                s as u32,
                c,
                w.mode,
                w.r0,
                w.r1,
                w.c0,
                w.c1,
                neg_inf(),
            ];
            let b: Vec<(u32, Binding)> = bindings.iter().map(|(i, b)| (*i, whole(b))).collect();
            ctx.dispatch_with(pipeline, Some(&params(&words)), b, g)?;
        }
        Ok(())
    }

    /// Records `T[r0..r1, c0..c1] -= A[r0..r1, k0..k1] @ B[k0..k1, c0..c1]` over augmented
    /// columns (`mode` 0: B is the augmented matrix; 1: B = A^T, lower tiles only).
    fn gemm_sub(&self, ar: &[(u32, &Arc<GpuBuffer>)], w: Words) -> Result<()> {
        if w.r0 >= w.r1 || w.c0 >= w.c1 || w.k0 >= w.k1 {
            return Ok(());
        }
        let gx = (w.c1 - w.c0).div_ceil(GEMM_TILE);
        let gy = (w.r1 - w.r0).div_ceil(GEMM_TILE);
        self.launch("gemm_sub", w, ar, |c| [gx, gy, c])
    }

    /// Records the triangular solve of the diagonal block `k0..k1` for augmented columns
    /// `c0..c1` (`mode` 0 unit lower, 1 upper, 2 unit upper).
    fn trsm(&self, ar: &[(u32, &Arc<GpuBuffer>)], w: Words) -> Result<()> {
        if w.c0 >= w.c1 || w.k0 >= w.k1 {
            return Ok(());
        }
        let gx = (w.c1 - w.c0).div_ceil(TRSM_COLUMNS);
        self.launch("trsm", w, ar, |c| [gx, 1, c])
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
            || n.checked_add(m32).is_none()
        {
            return Err(Error::unsupported(
                "solving for more than 2^32 right-hand-side elements",
            ));
        }
        let naug = n + m32;
        let ar = [(1, a), (2, r)];
        let all = [(1, a), (2, r), (3, aux)];
        for k0 in (0..n).step_by(self.panel as usize) {
            let k1 = (k0 + self.panel).min(n);
            let base = Words {
                m: m32,
                k0,
                k1,
                ..Words::default()
            };
            let panel = self.panel_pipeline("lu_panel", k0)?;
            self.launch_on(&panel, base, &[(1, a), (3, aux)], |c| [1, c, 1])?;
            let others = naug - (k1 - k0);
            let gx = others.div_ceil(256);
            self.launch("lu_swap", base, &all, |c| [gx, c, 1])?;
            // The block row: [U12 | R1] = L11^-1 [A12 | R1].
            self.trsm(
                &ar,
                Words {
                    mode: 0,
                    c0: k1,
                    c1: naug,
                    ..base
                },
            )?;
            // The trailing rows: [A22 | R2] -= L21 @ [U12 | R1].
            self.gemm_sub(
                &ar,
                Words {
                    mode: 0,
                    r0: k1,
                    r1: n,
                    c0: k1,
                    c1: naug,
                    ..base
                },
            )?;
        }
        if back {
            self.back_substitute(a, r, m, false)?;
        }
        Ok(())
    }

    /// Records the solve of `U X = R` in place for the upper triangles `U` of the matrices in
    /// `a` (`unit`: a unit diagonal is assumed, the stored one is not read), by blocks of
    /// rows from the bottom: the diagonal block's triangular solve, then
    /// `R[..i0] -= U[..i0, i0..i1] @ X[i0..i1]`. `r` holds `m` columns.
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
        if n.checked_add(m32).is_none() {
            return Err(Error::unsupported("more than 2^32 columns"));
        }
        let ar = [(1, a), (2, r)];
        let blocks: Vec<u32> = (0..n).step_by(PANEL_MAX as usize).collect();
        for &i0 in blocks.iter().rev() {
            let i1 = (i0 + PANEL_MAX).min(n);
            let w = Words {
                m: m32,
                k0: i0,
                k1: i1,
                mode: if unit { 2 } else { 1 },
                r0: 0,
                r1: i0,
                c0: n,
                c1: n + m32,
            };
            self.trsm(&ar, w)?;
            self.gemm_sub(&ar, Words { mode: 0, ..w })?;
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
        check_binding(&self.device, &[a, aux, out])?;
        let w = Words {
            mode: u32::from(slog),
            ..Words::default()
        };
        self.launch("lu_logdet", w, &[(1, a), (3, aux), (4, out)], |c| [1, c, 1])
    }

    /// Records Cholesky (lower, strict upper triangle zeroed) of the matrices in `a`; `aux`
    /// (zeroed, `count` int32) receives info. `dummy` is any small buffer of the dtype (the
    /// shared update kernel binds a right-hand side).
    pub(crate) fn cholesky(
        &self,
        a: &Arc<GpuBuffer>,
        aux: &Arc<GpuBuffer>,
        dummy: &Arc<GpuBuffer>,
    ) -> Result<()> {
        check_binding(&self.device, &[a, aux])?;
        let n = self.n;
        for k0 in (0..n).step_by(self.panel as usize) {
            let k1 = (k0 + self.panel).min(n);
            let w = Words {
                k0,
                k1,
                mode: 1,
                r0: k1,
                r1: n,
                c0: k1,
                c1: n,
                ..Words::default()
            };
            let panel = self.panel_pipeline("chol_panel", k0)?;
            self.launch_on(&panel, w, &[(1, a), (3, aux)], |c| [1, c, 1])?;
            // A22 -= L21 @ L21^T (lower tiles; the upper triangle is cleared last).
            self.gemm_sub(&[(1, a), (2, dummy)], w)?;
        }
        let g = n.div_ceil(16);
        self.launch("chol_zero", Words::default(), &[(1, a)], |c| [g, g, c])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panels_stay_within_the_loop_budget() {
        for n in [33u32, 64, 1000, 4096, 16384, 46340] {
            let w = panel_width(n, 32);
            assert!((8..=PANEL_MAX).contains(&w), "n={n} w={w}");
            assert!(
                w == 8 || u64::from(n) * u64::from(w * w) / 512 <= PANEL_LOOP_BUDGET,
                "n={n} w={w}"
            );
        }
        assert_eq!(panel_width(1024, 32), 32);
        assert_eq!(panel_width(1024, 1000), 32);
        assert_eq!(panel_width(1024, 12), 12);
        assert_eq!(panel_width(100, 2), 8);
    }
}
