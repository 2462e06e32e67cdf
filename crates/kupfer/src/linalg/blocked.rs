//! Blocked LU with partial pivoting and blocked Cholesky for matrices larger than the
//! workgroup-memory kernel takes, recorded as a few launches per panel of columns
//! (`shaders/linalg_steps.wgsl`): the tall panel factored by one workgroup per matrix, the
//! panel's row swaps applied to the other columns, a triangular solve for the block row, and
//! the trailing matrix updated in place by a tiled rank-`w` GEMM (`gemm_sub`). Nothing is read
//! back between launches. Panels of at most `256 * 16` rows are factored in registers
//! (`shaders/linalg_panel.wgsl`), taller ones in global memory.
//!
//! By default panels are grouped into blocks of [`update_block`] columns: the panels of a
//! block update only the block (and its block row, left-looking), and the rest of the
//! trailing matrix takes one in-place update per block on kupfer's tiled matmul kernel
//! (`C_sub -= A_sub @ B_sub` written into the factored matrix, its operands first copied
//! out by `pack`); back substitutions likewise by blocks of rows. Cholesky's one-workgroup
//! panel then factors only the diagonal block, `chol_rows` the rows below it in parallel.
//! `KUPFER_LINALG_UPDATE=old` keeps every update on `gemm_sub`.

use super::factor::{check_binding, neg_inf, u32_of, whole};
use crate::device::Device;
use crate::matmul::{subtract_product_in_place, Geometry, UpdatePlace};
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

/// The widest block of an in-place update (`pack` launches one thread per element of a
/// block's `n x width` panel).
const UPDATE_BLOCK_MAX: u32 = 256;

/// Columns per block whose trailing update runs as one in-place matmul, for order `n` and
/// panels of `panel` columns: `setting` ([`crate::config::LinalgConfig::update_block`]; 0
/// picks 64 below order 2048 and 128 from 2048: deeper blocks give the GEMM more arithmetic
/// per element of the trailing matrix it reads and writes), rounded up to a multiple of the
/// panel width.
pub(crate) fn update_block(n: u32, panel: u32, setting: u32) -> u32 {
    let want = match setting {
        0 if n >= 2048 => 128,
        0 => 64,
        w => w.min(UPDATE_BLOCK_MAX),
    };
    want.max(panel).div_ceil(panel) * panel
}

/// The operands of the in-place updates, copied out of the factored matrices (a matmul may
/// not read the buffer it writes): per matrix `sstride` elements of rows of `ld` elements.
struct Scratch {
    block: u32,
    buf: Arc<GpuBuffer>,
    ld: u32,
    sstride: u32,
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
    /// Columns per block whose trailing update is one in-place matmul (a multiple of
    /// `panel`), or None for the previous path (every panel's update on `gemm_sub`).
    block: Option<u32>,
    /// Threads of the register-resident panel kernels (256, 512 or 1024).
    panel_threads: u32,
    /// The fused kernels (`shaders/linalg_fused.wgsl`) by entry point, made on first use.
    fused: RefCell<HashMap<&'static str, Arc<Pipeline>>>,
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
    /// `pack`: first element, row stride and per-matrix stride of the copy.
    off: u32,
    ld: u32,
    sstride: u32,
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
            "chol_rows",
            "pack",
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
        let config = &device.config().linalg;
        let panel = panel_width(n32, config.panel_width);
        let limits = &ctx.info().limits;
        let mut panel_threads = config.panel_threads;
        while panel_threads > 256
            && (panel_threads > limits.max_compute_invocations_per_workgroup
                || panel_threads > limits.max_compute_workgroup_size_x)
        {
            panel_threads /= 2;
        }
        Ok(Steps {
            device: device.clone(),
            dtype,
            pipelines,
            panels: RefCell::new(HashMap::new()),
            n: n32,
            count,
            panel,
            register_panels: config.register_panels,
            block: config
                .gemm_updates
                .then(|| update_block(n32, panel, config.update_block)),
            panel_threads,
            fused: RefCell::new(HashMap::new()),
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

    /// The panel kernel `entry` (`lu_panel` or `chol_panel`) for a panel of `rows` rows:
    /// the register-resident one where they fit, else the global-memory one.
    fn panel_pipeline(&self, entry: &'static str, rows: u32) -> Result<Arc<Pipeline>> {
        let threads = self.panel_threads;
        let rpt = rows.div_ceil(threads).next_power_of_two();
        if rpt > kernels::PANEL_RPT_MAX || !self.register_panels {
            return Ok(self.pipelines[entry].clone());
        }
        if let Some(p) = self.panels.borrow().get(&(entry, rpt)) {
            return Ok(p.clone());
        }
        let ctx = self.device.context();
        let subgroups = self.device.config().linalg.panel_subgroups
            && self.dtype == DType::F32
            && ctx
                .info()
                .features
                .contains(kupfer_wgpu::wgpu::Features::SUBGROUP);
        let pivot = if subgroups {
            kernels::PanelPivot::Subgroups
        } else {
            kernels::PanelPivot::Tree
        };
        let wgsl =
            kernels::panel_threads(self.dtype, rpt, self.panel, pivot, threads, &ctx.target())?;
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
                w.off,
                w.ld,
                w.sstride,
                0,
            ];
            let params: Vec<u8> = words.iter().flat_map(|x| x.to_le_bytes()).collect();
            debug_assert_eq!(params.len(), kernels::STEPS_PARAMS_SIZE);
            let b: Vec<(u32, Binding)> = bindings.iter().map(|(i, b)| (*i, whole(b))).collect();
            ctx.dispatch_with(pipeline, Some(&params), b, g)?;
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

    /// The scratch for in-place updates with `rows` rows of the block's width per matrix,
    /// or None for the previous path (configured so, or a scratch too large for one
    /// binding).
    fn scratch(&self, rows: usize) -> Result<Option<Scratch>> {
        let Some(block) = self.block else {
            return Ok(None);
        };
        let ld = block.next_multiple_of(4);
        let size = self.dtype.gpu_size();
        let ctx = self.device.context();
        let sstride = rows.checked_mul(ld as usize);
        let elements = sstride.and_then(|s| s.checked_mul(self.count));
        let (Some(sstride), Some(elements)) = (sstride, elements) else {
            return Ok(None);
        };
        if elements > i32::MAX as usize || (elements * size) as u64 > ctx.max_binding_size() {
            return Ok(None);
        }
        let buf = Arc::new(ctx.alloc(((elements * size) as u64).max(16))?);
        Ok(Some(Scratch {
            block,
            buf,
            ld,
            sstride: sstride as u32,
        }))
    }

    /// Records the copy of rows `r0..r1`, augmented columns `c0..c1` of every matrix into the
    /// scratch from element `off` (`transposed`: augmented column `c` as row `c - c0`).
    fn pack(
        &self,
        ar: &[(u32, &Arc<GpuBuffer>)],
        s: &Scratch,
        (r0, r1, c0, c1): (u32, u32, u32, u32),
        transposed: bool,
        off: u32,
        m: u32,
    ) -> Result<()> {
        if r0 >= r1 || c0 >= c1 {
            return Ok(());
        }
        let w = Words {
            m,
            mode: u32::from(transposed),
            r0,
            r1,
            c0,
            c1,
            off,
            ld: s.ld,
            sstride: s.sstride,
            ..Words::default()
        };
        let gx = ((r1 - r0) * (c1 - c0)).div_ceil(256);
        let mut b = ar.to_vec();
        b.push((4, &s.buf));
        self.launch("pack", w, &b, |c| [gx, c, 1])
    }

    /// Records `C -= A @ B` on the tuned matmul for every matrix: A (`rows x k`) and B
    /// transposed (`cols x k`) row-major in the scratch from elements `a_off` and `b_off`, C
    /// in `c` at `place`; `lower` computes only tiles reaching the lower triangle.
    #[allow(clippy::too_many_arguments)]
    fn update(
        &self,
        s: &Scratch,
        (rows, cols, k): (u32, u32, u32),
        a_off: u32,
        b_off: u32,
        c: &Arc<GpuBuffer>,
        place: UpdatePlace,
        lower: bool,
    ) -> Result<()> {
        let (ld, ss) = (s.ld as isize, s.sstride as isize);
        let geo = Geometry {
            m: rows as usize,
            n: cols as usize,
            k: k as usize,
            batch: self.count,
            oa: a_off as isize,
            ob: b_off as isize,
            sam: ld,
            sak: 1,
            sbk: 1,
            sbn: ld,
            bd: [1, 1, 1, self.count],
            ba: [0, 0, 0, ss],
            bb: [0, 0, 0, ss],
            a_dtype: self.dtype,
            b_dtype: self.dtype,
            a_buf: s.buf.clone(),
            b_buf: s.buf.clone(),
        };
        subtract_product_in_place(&self.device, &geo, self.dtype, c, place, lower)
    }

    /// The fused kernel `entry` (`shaders/linalg_fused.wgsl`) for panels of
    /// [`Steps::fused_width`] columns.
    fn fused_pipeline(&self, entry: &'static str) -> Result<Arc<Pipeline>> {
        if let Some(p) = self.fused.borrow().get(entry) {
            return Ok(p.clone());
        }
        let ctx = self.device.context();
        let wgsl = kernels::fused(self.dtype, self.fused_width(), &ctx.target())?;
        let p = ctx.pipeline_with(&wgsl, entry, ShaderChecks::Trusted)?;
        self.fused.borrow_mut().insert(entry, p.clone());
        Ok(p)
    }

    /// The fused paths' panel width: the configured one within the fused kernels' limit.
    fn fused_width(&self) -> u32 {
        self.panel.min(kernels::fused_width_max(self.dtype))
    }

    /// A scratch of `elements` elements per matrix for every matrix, or None where it would
    /// not fit one binding (or 32-bit indices).
    fn fused_scratch(&self, elements: usize) -> Result<Option<Arc<GpuBuffer>>> {
        let ctx = self.device.context();
        let size = self.dtype.gpu_size();
        match elements.checked_mul(self.count) {
            Some(e) if e <= u32::MAX as usize && (e * size) as u64 <= ctx.max_binding_size() => {
                Ok(Some(Arc::new(ctx.alloc(((e * size) as u64).max(16))?)))
            }
            _ => Ok(None),
        }
    }

    /// Records LU with partial pivoting of `[A | R]` on the fused kernels (see
    /// `shaders/linalg_fused.wgsl`): two launches per panel, then, if `back`, one per 32 rows
    /// of the back substitution. Returns the buffer holding the solution (`back`) or `r`,
    /// or None where the scratches do not fit (nothing recorded). L does not receive later
    /// panels' row swaps.
    fn lu_fused(
        &self,
        a: &Arc<GpuBuffer>,
        r: &Arc<GpuBuffer>,
        m: u32,
        aux: &Arc<GpuBuffer>,
        back: bool,
    ) -> Result<Option<Arc<GpuBuffer>>> {
        let n = self.n;
        let naug = n + m;
        let fw = self.fused_width();
        let tm = kernels::fused_tile_rows(self.dtype, fw);
        let per = n as usize * naug as usize;
        let (Some(x0), Some(x1)) = (self.fused_scratch(per)?, self.fused_scratch(per)?) else {
            return Ok(None);
        };
        let y = if back && m > 0 {
            match self.fused_scratch(n as usize * m as usize)? {
                Some(y) => Some(y),
                None => return Ok(None),
            }
        } else {
            None
        };
        let update = self.fused_pipeline("lu_update")?;
        let first = fw.min(n);
        if naug > first {
            let w = Words {
                m,
                c0: first,
                ..Words::default()
            };
            let gx = (n as u64 * u64::from(naug - first)).div_ceil(256).min(4096) as u32;
            let copy = self.fused_pipeline("lu_copy")?;
            self.launch_on(&copy, w, &[(1, a), (2, r), (5, &x0)], |c| [gx, c, 1])?;
        }
        let (mut src, mut dst) = (x0, x1);
        for k0 in (0..n).step_by(fw as usize) {
            let k1 = (k0 + fw).min(n);
            let base = Words {
                m,
                k0,
                k1,
                ..Words::default()
            };
            let panel = self.panel_pipeline("lu_panel", n - k0)?;
            self.launch_on(&panel, base, &[(1, a), (3, aux)], |c| [1, c, 1])?;
            if naug > k1 {
                let w = Words {
                    c0: (k1 + fw).min(n),
                    ..base
                };
                let gx = (naug - k1).div_ceil(kernels::fused_tile_cols(fw));
                let gy = (n - k1).div_ceil(tm).max(1);
                let b = [(1, a), (2, r), (3, aux), (4, &src), (5, &dst)];
                self.launch_on(&update, w, &b, |c| [gx, gy, c])?;
                std::mem::swap(&mut src, &mut dst);
            }
        }
        let Some(y) = y else {
            return Ok(Some(r.clone()));
        };
        let back_kernel = self.fused_pipeline("lu_back")?;
        let rows = kernels::FUSED_BACK_ROWS;
        let tnb = kernels::fused_back_cols(self.dtype);
        let starts: Vec<u32> = (0..n).step_by(rows as usize).collect();
        for &i0 in starts.iter().rev() {
            let w = Words {
                m,
                k0: i0,
                k1: (i0 + rows).min(n),
                ..Words::default()
            };
            let gx = m.div_ceil(tnb);
            let gy = i0.div_ceil(tm).max(1);
            let b = [(1, a), (2, r), (6, &y)];
            self.launch_on(&back_kernel, w, &b, |c| [gx, gy, c])?;
        }
        Ok(Some(y))
    }

    /// Records LU with partial pivoting of the matrices in `a` applied to the `m` columns of
    /// `r` too (elimination on `[A | R]`), then, if `back`, the solve of `U X = R`. `aux`
    /// (zeroed, `count * (n + 1)` int32) receives info and the pivots. `r` must hold at
    /// least one element even when `m` is 0. Returns the buffer holding the solution
    /// (`back`: `r`, or another on the fused path) or `r`. `l_needed`: `a` must end as
    /// LAPACK's factors (L with every row swap applied), which keeps it off the fused path.
    pub(crate) fn lu(
        &self,
        a: &Arc<GpuBuffer>,
        r: &Arc<GpuBuffer>,
        m: usize,
        aux: &Arc<GpuBuffer>,
        back: bool,
        l_needed: bool,
    ) -> Result<Arc<GpuBuffer>> {
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
        if n <= self.device.config().linalg.lu_fused_max
            && !l_needed
            && let Some(out) = self.lu_fused(a, r, m32, aux, back)?
        {
            return Ok(out);
        }
        let naug = n + m32;
        let ar = [(1, a), (2, r)];
        let all = [(1, a), (2, r), (3, aux)];
        // With in-place updates, blocks of `outer` columns: their panels update only the
        // block's own columns (and, left-looking, the block row right of it, rows of the
        // panel only: later panels' row swaps never reach them), and one matmul per block
        // updates the rest. Without, every panel updates everything right of it.
        let scratch = self.scratch(2 * n as usize + m)?;
        let outer = scratch.as_ref().map_or(self.panel, |s| s.block);
        for bk0 in (0..n).step_by(outer as usize) {
            let bk1 = (bk0 + outer).min(n);
            for k0 in (bk0..bk1).step_by(self.panel as usize) {
                let k1 = (k0 + self.panel).min(bk1);
                let base = Words {
                    m: m32,
                    k0,
                    k1,
                    ..Words::default()
                };
                let panel = self.panel_pipeline("lu_panel", n - k0)?;
                self.launch_on(&panel, base, &[(1, a), (3, aux)], |c| [1, c, 1])?;
                let others = naug - (k1 - k0);
                let gx = others.div_ceil(256);
                self.launch("lu_swap", base, &all, |c| [gx, c, 1])?;
                // The block row right of the block: the earlier panels' share,
                // [A12 | R1][k0..k1] -= L[k0..k1, bk0..k0] @ [U12 | R1][bk0..k0].
                if k0 > bk0 {
                    self.gemm_sub(
                        &ar,
                        Words {
                            mode: 0,
                            k0: bk0,
                            k1: k0,
                            r0: k0,
                            r1: k1,
                            c0: bk1,
                            c1: naug,
                            ..base
                        },
                    )?;
                }
                // The panel's block row: [U12 | R1] = L11^-1 [A12 | R1].
                self.trsm(
                    &ar,
                    Words {
                        mode: 0,
                        c0: k1,
                        c1: naug,
                        ..base
                    },
                )?;
                // The trailing rows: [A22 | R2] -= L21 @ [U12 | R1] (within the block).
                self.gemm_sub(
                    &ar,
                    Words {
                        mode: 0,
                        r0: k1,
                        r1: n,
                        c0: k1,
                        c1: if scratch.is_some() { bk1 } else { naug },
                        ..base
                    },
                )?;
            }
            if let Some(s) = scratch.as_ref().filter(|_| bk1 < n) {
                // [A22 | R2] -= L21 @ [U12 | R1] for the whole block, on the tuned matmul.
                let (w, rows, bt) = (bk1 - bk0, n - bk1, n * s.ld);
                self.pack(&ar, s, (bk1, n, bk0, bk1), false, 0, m32)?;
                self.pack(&ar, s, (bk0, bk1, bk1, naug), true, bt, m32)?;
                let (nn, mm) = (n as usize, m);
                let place = UpdatePlace {
                    offset: bk1 as usize * nn + bk1 as usize,
                    row_stride: nn,
                    batch_stride: nn * nn,
                };
                self.update(s, (rows, rows, w), 0, bt, a, place, false)?;
                if m32 > 0 {
                    let place = UpdatePlace {
                        offset: bk1 as usize * mm,
                        row_stride: mm,
                        batch_stride: nn * mm,
                    };
                    self.update(s, (rows, m32, w), 0, bt + rows * s.ld, r, place, false)?;
                }
            }
        }
        if back {
            self.back_substitute(a, r, m, false)?;
        }
        Ok(r.clone())
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
        // With in-place updates, blocks of `outer` rows: their 32-row steps update only the
        // block's rows, one matmul per block the rows above it.
        let scratch = self.scratch(n as usize + m)?;
        let outer = scratch.as_ref().map_or(PANEL_MAX, |s| s.block);
        let blocks: Vec<u32> = (0..n).step_by(outer as usize).collect();
        for &bi0 in blocks.iter().rev() {
            let bi1 = (bi0 + outer).min(n);
            let steps: Vec<u32> = (bi0..bi1).step_by(PANEL_MAX as usize).collect();
            for &i0 in steps.iter().rev() {
                let i1 = (i0 + PANEL_MAX).min(bi1);
                let w = Words {
                    m: m32,
                    k0: i0,
                    k1: i1,
                    mode: if unit { 2 } else { 1 },
                    r0: if scratch.is_some() { bi0 } else { 0 },
                    r1: i0,
                    c0: n,
                    c1: n + m32,
                    ..Words::default()
                };
                self.trsm(&ar, w)?;
                self.gemm_sub(&ar, Words { mode: 0, ..w })?;
            }
            if let Some(s) = scratch.as_ref().filter(|_| bi0 > 0) {
                // R[..bi0] -= U[..bi0, bi0..bi1] @ X[bi0..bi1] on the tuned matmul.
                let xt = n * s.ld;
                self.pack(&ar, s, (0, bi0, bi0, bi1), false, 0, m32)?;
                self.pack(&ar, s, (bi0, bi1, n, n + m32), true, xt, m32)?;
                let place = UpdatePlace {
                    offset: 0,
                    row_stride: m,
                    batch_stride: n as usize * m,
                };
                self.update(s, (bi0, m32, bi1 - bi0), 0, xt, r, place, false)?;
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
        check_binding(&self.device, &[a, aux, out])?;
        let w = Words {
            mode: u32::from(slog),
            ..Words::default()
        };
        self.launch("lu_logdet", w, &[(1, a), (3, aux), (4, out)], |c| [1, c, 1])
    }

    /// Records Cholesky on the fused kernel (one launch per panel) into a new zeroed buffer,
    /// which it returns; `a` is left partly updated. None where the output does not fit.
    fn cholesky_fused(
        &self,
        a: &Arc<GpuBuffer>,
        aux: &Arc<GpuBuffer>,
    ) -> Result<Option<Arc<GpuBuffer>>> {
        let n = self.n;
        let len = n as usize * n as usize * self.count;
        let bytes = (len * self.dtype.gpu_size()) as u64;
        if bytes > self.device.context().max_binding_size() {
            return Ok(None);
        }
        let zero = crate::creation::full_on(&self.device, &[len], 0i64, Some(self.dtype))?;
        let y = zero.buffer_and_layout()?.0;
        let fw = self.fused_width();
        let tm = kernels::fused_tile_rows(self.dtype, fw);
        let step = self.fused_pipeline("chol_step")?;
        for k0 in (0..n).step_by(fw as usize) {
            let k1 = (k0 + fw).min(n);
            let w = Words {
                k0,
                k1,
                ..Words::default()
            };
            let t = (n - k1).div_ceil(tm).max(1);
            self.launch_on(&step, w, &[(1, a), (3, aux), (6, &y)], |c| [t, t, c])?;
        }
        Ok(Some(y))
    }

    /// Records Cholesky (lower, strict upper triangle zeroed) of the matrices in `a`; `aux`
    /// (zeroed, `count` int32) receives info. `dummy` is any small buffer of the dtype (the
    /// shared update kernel binds a right-hand side). Returns the buffer holding the factor:
    /// `a`, or a new one on the fused path (`KUPFER_CHOL=fused`).
    pub(crate) fn cholesky(
        &self,
        a: &Arc<GpuBuffer>,
        aux: &Arc<GpuBuffer>,
        dummy: &Arc<GpuBuffer>,
    ) -> Result<Arc<GpuBuffer>> {
        check_binding(&self.device, &[a, aux])?;
        if self.n <= self.device.config().linalg.chol_fused_max
            && let Some(y) = self.cholesky_fused(a, aux)?
        {
            return Ok(y);
        }
        let n = self.n;
        let ad = [(1, a), (2, dummy)];
        // With in-place updates, blocks of `outer` columns: panels update the block's
        // columns, one matmul per block the rest of the trailing matrix.
        let scratch = self.scratch(n as usize)?;
        let outer = scratch.as_ref().map_or(self.panel, |s| s.block);
        for bk0 in (0..n).step_by(outer as usize) {
            let bk1 = (bk0 + outer).min(n);
            for k0 in (bk0..bk1).step_by(self.panel as usize) {
                let k1 = (k0 + self.panel).min(bk1);
                let w = Words {
                    k0,
                    k1,
                    mode: 1,
                    r0: k1,
                    r1: n,
                    c0: k1,
                    c1: if scratch.is_some() { bk1 } else { n },
                    ..Words::default()
                };
                if scratch.is_some() {
                    // The diagonal block in one workgroup, the rows below it in parallel.
                    let panel = self.panel_pipeline("chol_panel", k1 - k0)?;
                    let diagonal = Words { r1: k1, ..w };
                    self.launch_on(&panel, diagonal, &[(1, a), (3, aux)], |c| [1, c, 1])?;
                    let gx = (n - k1).div_ceil(256);
                    self.launch("chol_rows", w, &[(1, a)], |c| [gx, c, 1])?;
                } else {
                    let panel = self.panel_pipeline("chol_panel", n - k0)?;
                    self.launch_on(&panel, w, &[(1, a), (3, aux)], |c| [1, c, 1])?;
                }
                // A22 -= L21 @ L21^T (lower tiles; the upper triangle is cleared last).
                self.gemm_sub(&ad, w)?;
            }
            if let Some(s) = scratch.as_ref().filter(|_| bk1 < n) {
                // A22 -= L21 @ L21^T for the whole block, lower tiles, on the tuned matmul.
                let rows = n - bk1;
                self.pack(&ad, s, (bk1, n, bk0, bk1), false, 0, 0)?;
                let nn = n as usize;
                let place = UpdatePlace {
                    offset: bk1 as usize * nn + bk1 as usize,
                    row_stride: nn,
                    batch_stride: nn * nn,
                };
                self.update(s, (rows, rows, bk1 - bk0), 0, 0, a, place, true)?;
            }
        }
        let g = n.div_ceil(16);
        self.launch("chol_zero", Words::default(), &[(1, a)], |c| [g, g, c])?;
        Ok(a.clone())
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

    #[test]
    fn update_blocks_are_whole_panels() {
        assert_eq!(update_block(1024, 16, 0), 64);
        assert_eq!(update_block(2047, 16, 0), 64);
        assert_eq!(update_block(4096, 16, 0), 128);
        assert_eq!(update_block(300, 12, 0), 72);
        assert_eq!(update_block(300, 16, 24), 32);
        assert_eq!(update_block(300, 32, 8), 32);
        assert_eq!(update_block(4096, 16, 100_000), UPDATE_BLOCK_MAX);
    }
}
