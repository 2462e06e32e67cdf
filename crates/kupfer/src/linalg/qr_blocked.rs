//! Blocked Householder QR of real matrices (LAPACK's geqrf and orgqr with compact-WY block
//! reflectors), a few launches per panel of up to 32 columns and no read-back
//! (`shaders/linalg_qr.wgsl`):
//! - `qr_panel` factors the panel in one workgroup per matrix and builds the panel's T
//!   (`H_k0 ... H_{k1-1} = I - V T V^T`) and a packed copy of V in a scratch buffer;
//! - the trailing columns take `A2 -= V (T^T (V^T A2))` as two in-place products on the tiled
//!   matmul (`W1 = 0 - V^T A2`, then `A2 -= V W2`) around `qr_tw` (`W2 = -T^T W1`, which
//!   also clears W1 for the next panel).
//!
//! `Q` is formed backward from the identity the same way (`qr_panel` in its preparation mode
//! rebuilds T and V from the stored reflectors and tau; `W2 = -T W1`). The panels are narrowed
//! for tall matrices so each panel kernel's thread stays within lavapipe's loop budget;
//! where even 4 columns would not, or the scratch would not fit one binding, [`BlockedQr::new`]
//! returns None and the caller keeps the reflector-per-column kernels.

use super::factor::{u32_of, whole};
use crate::device::Device;
use crate::matmul::{subtract_product_in_place, Geometry, UpdatePlace};
use kupfer_core::linalg as kernels;
use kupfer_core::{DType, Result};
use kupfer_wgpu::pipeline::Pipeline;
use kupfer_wgpu::{GpuBuffer, ShaderChecks};
use std::sync::Arc;

/// Matrices per dispatch (the grid's y limit).
const CHUNK: usize = 65535;

/// The widest panel (the kernels' T and V rows hold this many columns).
const W: u32 = kernels::QR_PANEL_WIDTH;

/// Loop iterations a `qr_panel` thread may spend on one panel (lavapipe ends an
/// invocation's loops after 65535).
const PANEL_LOOP_BUDGET: u64 = 40_000;

/// Loop iterations of one `qr_panel` thread for a panel of `w` columns over `rows` rows: per
/// column two passes of the norm (rows / 256 each), the dot products and the update (rows /
/// (256 / slots) each), T's column; then the packing of V (rows * W / 256).
fn panel_loops(rows: u64, w: u32) -> u64 {
    let w = u64::from(w);
    let slots = w.next_power_of_two();
    w * (2 * rows.div_ceil(256) + 2 * (rows * slots).div_ceil(256) + u64::from(W) + 16)
        + (rows * u64::from(W)).div_ceil(256)
}

/// The panel width for matrices of `m` rows: 32, narrowed while a panel thread would loop
/// past [`PANEL_LOOP_BUDGET`]; None where even 4 columns would.
pub(crate) fn panel_width(m: usize) -> Option<u32> {
    [W, 16, 8, 4]
        .into_iter()
        .find(|&w| panel_loops(m as u64, w) <= PANEL_LOOP_BUDGET)
}

/// The most parts `W1 = V^T X2` is split into along its long contraction (the rows), and the
/// fewest rows of one part: with one part the product has only `w x cols` outputs for a few
/// workgroups, each looping over every row.
const SPLIT_MAX: usize = 16;
const SPLIT_ROWS: usize = 256;

/// The parts (a power of two) and rows per part of `W1`'s contraction over `rows` rows; the
/// remainder (`rows % parts`) is one more product.
fn split(rows: usize, most: usize) -> (usize, usize) {
    let parts = (rows / SPLIT_ROWS).clamp(1, most);
    let parts = 1 << parts.ilog2();
    (parts, rows / parts)
}

/// The uniform words of one launch (`Params` in the shader).
#[derive(Clone, Copy, Default)]
struct Words {
    k0: u32,
    k1: u32,
    mode: u32,
    n: u32,
    cols: u32,
    tslot: u32,
    tcount: u32,
    /// qr_tw: W1's per-matrix stride and parts, and the matrix count where a remainder
    /// part follows all matrices' parts (0: none).
    wstride: u32,
    parts: u32,
    rem_count: u32,
    /// qr_panel packs V itself (1) or qr_pack follows (0).
    pack_here: u32,
}

/// The T of every panel of a factorization (kept by [`BlockedQr::factor`] for
/// [`BlockedQr::form_q`], which then only packs V): `count * panels` blocks of `W * W`.
pub(crate) struct KeptT {
    buf: Arc<GpuBuffer>,
    width: u32,
}

/// The blocked QR kernels and scratch for `count` matrices of `m` rows of one dtype.
pub(crate) struct BlockedQr {
    device: Device,
    dtype: DType,
    panel: Arc<Pipeline>,
    pack: Arc<Pipeline>,
    tw: Arc<Pipeline>,
    count: usize,
    m: u32,
    width: u32,
    /// Row stride of W1 and W2 (the most trailing columns, rounded up to 4).
    ld: u32,
    /// Per matrix: T, W2 and V (`vstride` elements); W1 in up to `split_max` parts per
    /// matrix and one remainder part (`W * ld` elements each), kept zero between panels.
    vbuf: Arc<GpuBuffer>,
    wbuf: Arc<GpuBuffer>,
    vstride: u32,
    split_max: usize,
    /// Row stride of the packed V: the panel width rounded up to 4.
    vw: u32,
}

impl BlockedQr {
    /// The kernels for `count` matrices of `m` rows whose products have at most `cols`
    /// columns, or None where the blocked path does not apply: fewer than
    /// [`crate::config::LinalgConfig::qr_from`] reflectors (`kmax`), panels beyond the loop
    /// budget, or a scratch larger than one binding.
    pub(crate) fn new(
        device: &Device,
        dtype: DType,
        count: usize,
        m: usize,
        kmax: usize,
        cols: usize,
    ) -> Result<Option<BlockedQr>> {
        if kmax < device.config().linalg.qr_from as usize || dtype.is_complex() {
            return Ok(None);
        }
        let Some(width) = panel_width(m) else {
            return Ok(None);
        };
        let width = width.min(device.config().linalg.qr_panel.max(1));
        let ctx = device.context();
        let ld = cols.next_multiple_of(4).max(4);
        let w = W as usize;
        let vw = width.next_multiple_of(4) as usize;
        let vstride = w * w + w * ld + vw * m;
        let size = dtype.gpu_size();
        let fits = |per: usize| {
            count
                .checked_mul(per)
                .filter(|&e| e <= i32::MAX as usize)
                .is_some_and(|e| (e * size) as u64 <= ctx.max_binding_size())
        };
        // W1's parts: as many as the first panel splits into and one binding holds (a
        // remainder part where there are several).
        let parts = |s: usize| s + usize::from(s > 1);
        let need = split(m, SPLIT_MAX).0;
        let Some(split_max) = [need, need.min(4), 1]
            .into_iter()
            .find(|&s| fits(parts(s) * w * ld))
        else {
            return Ok(None);
        };
        let wstride = parts(split_max) * w * ld;
        if !fits(vstride) || count.checked_mul(m * cols.max(1)).is_none() {
            return Ok(None);
        }
        let wgsl = kernels::qr_blocked(dtype, &ctx.target())?;
        let panel = ctx.pipeline_with(&wgsl, "qr_panel", ShaderChecks::Trusted)?;
        let tw = ctx.pipeline_with(&wgsl, "qr_tw", ShaderChecks::Trusted)?;
        let pack = ctx.pipeline_with(&wgsl, "qr_pack", ShaderChecks::Trusted)?;
        let vbuf = super::factor::alloc(device, count * vstride, dtype)?;
        let zeros = crate::creation::full_on(device, &[count * wstride], 0i64, Some(dtype))?;
        let wbuf = zeros.buffer_and_layout()?.0;
        Ok(Some(BlockedQr {
            device: device.clone(),
            dtype,
            panel,
            pack,
            tw,
            count,
            m: u32_of(m, "rows")?,
            width,
            ld: u32_of(ld, "columns")?,
            vbuf,
            wbuf,
            vstride: u32_of(vstride, "scratch")?,
            split_max,
            vw: vw as u32,
        }))
    }

    /// Records `pipeline` for every chunk of matrices, `gx` workgroups per matrix.
    fn launch(
        &self,
        pipeline: &Arc<Pipeline>,
        w: Words,
        kmax: u32,
        bindings: &[(u32, &Arc<GpuBuffer>)],
        gx: u32,
    ) -> Result<()> {
        let ctx = self.device.context();
        let slots = (w.k1 - w.k0).next_power_of_two();
        for s in (0..self.count).step_by(CHUNK) {
            let c = (self.count - s).min(CHUNK) as u32;
            let words = [
                self.m,
                w.n,
                w.k0,
                w.k1,
                s as u32,
                kmax,
                w.mode,
                slots,
                self.ld,
                self.vstride,
                w.wstride,
                w.cols,
                w.tslot,
                w.tcount,
                w.parts,
                w.rem_count,
                self.vw,
                w.pack_here,
                0,
                0,
            ];
            let params: Vec<u8> = words.iter().flat_map(|x| x.to_le_bytes()).collect();
            debug_assert_eq!(params.len(), kernels::QR_PARAMS_SIZE);
            let b = bindings.iter().map(|(i, b)| (*i, whole(b))).collect();
            ctx.dispatch_with(pipeline, Some(&params), b, [gx, c, 1])?;
        }
        Ok(())
    }

    /// Records `X2 -= V W2` with `W2 = -T^T (0 - V^T X2)` (`mode` 0: `Q^T` of the panel
    /// `k0..k1` applied) or `-T (..)` (`mode` 1: `Q` applied) for `X2` = rows `k0..m`,
    /// columns `c0..c0 + cols` of the matrices in `x` (row stride `stride`).
    #[allow(clippy::too_many_arguments)]
    fn apply(
        &self,
        (k0, k1): (u32, u32),
        mode: u32,
        kmax: u32,
        x: &Arc<GpuBuffer>,
        stride: u32,
        c0: u32,
        cols: u32,
    ) -> Result<()> {
        if cols == 0 {
            return Ok(());
        }
        let (w, rows) = ((k1 - k0) as usize, (self.m - k0) as usize);
        let (wd, ld, vs) = (W as isize, self.ld as isize, self.vstride as isize);
        let vw = self.vw as isize;
        let voff = wd * wd + wd * ld;
        let xstride = self.m as isize * stride as isize;
        let at = k0 as usize * stride as usize + c0 as usize;
        let product =
            |m, n, k, (oa, sam, sak), (ob, sbk, b_buf, bb): (_, _, &Arc<GpuBuffer>, _)| Geometry {
                m,
                n,
                k,
                batch: self.count,
                oa,
                ob,
                sam,
                sak,
                sbk,
                sbn: 1,
                bd: [1, 1, 1, self.count],
                ba: [0, 0, 0, vs],
                bb: [0, 0, 0, bb],
                a_dtype: self.dtype,
                b_dtype: self.dtype,
                a_buf: self.vbuf.clone(),
                b_buf: b_buf.clone(),
            };
        // W1 (zero) -= V^T X2, split along the rows: `parts` products of `chunk` rows (the
        // parts of matrix b at parts b * parts..), the remainder rows one more product (at
        // part count * parts + b); qr_tw sums them.
        let (parts, chunk) = split(rows, self.split_max);
        let part = W as usize * self.ld as usize;
        let mut g1 = product(
            w,
            cols as usize,
            chunk,
            (voff, 1, vw),
            (at as isize, stride as isize, x, xstride),
        );
        g1.batch = self.count * parts;
        g1.bd = [1, 1, self.count, parts];
        g1.ba = [0, 0, vs, chunk as isize * vw];
        g1.bb = [0, 0, xstride, (chunk * stride as usize) as isize];
        let p1 = UpdatePlace {
            offset: 0,
            row_stride: self.ld as usize,
            batch_stride: part,
        };
        subtract_product_in_place(&self.device, &g1, self.dtype, &self.wbuf, p1, false)?;
        let rem = rows - parts * chunk;
        if rem > 0 {
            let done = parts * chunk;
            let g = product(
                w,
                cols as usize,
                rem,
                (voff + done as isize * vw, 1, vw),
                (
                    (at + done * stride as usize) as isize,
                    stride as isize,
                    x,
                    xstride,
                ),
            );
            let p = UpdatePlace {
                offset: self.count * parts * part,
                row_stride: self.ld as usize,
                batch_stride: part,
            };
            subtract_product_in_place(&self.device, &g, self.dtype, &self.wbuf, p, false)?;
        }
        let words = Words {
            k0,
            k1,
            mode,
            cols,
            wstride: u32_of(parts * part, "scratch")?,
            parts: parts as u32,
            rem_count: if rem > 0 { self.count as u32 } else { 0 },
            ..Words::default()
        };
        let gx = self.ld.div_ceil(64);
        self.launch(
            &self.tw,
            words,
            kmax,
            &[(3, &self.vbuf), (4, &self.wbuf)],
            gx,
        )?;
        // X2 -= V W2.
        let vbuf = self.vbuf.clone();
        let g2 = product(
            rows,
            cols as usize,
            w,
            (voff, vw, 1),
            (wd * wd, ld, &vbuf, vs),
        );
        let p2 = UpdatePlace {
            offset: at,
            row_stride: stride as usize,
            batch_stride: xstride as usize,
        };
        subtract_product_in_place(&self.device, &g2, self.dtype, x, p2, false)
    }

    /// Records the panel kernel for columns `k0..k1` of the `m x n` matrices in `a`
    /// (`mode` 0: factor, keeping T in `kept` when given; 1: rebuild T and V from the stored
    /// reflectors; 2: V from them, T from `kept`).
    #[allow(clippy::too_many_arguments)]
    fn panel(
        &self,
        (k0, k1): (u32, u32),
        mode: u32,
        a: &Arc<GpuBuffer>,
        n: u32,
        tau: &Arc<GpuBuffer>,
        kmax: u32,
        kept: Option<&Arc<GpuBuffer>>,
    ) -> Result<()> {
        // V is packed by one thread per element (qr_pack) where the grid allows, after the
        // factorization (mode 0) or instead of the panel kernel (mode 2: T only copied).
        let gx = ((self.m - k0) as usize * self.vw as usize).div_ceil(256);
        let max_dim = self.device.context().max_workgroups_per_dim() as usize;
        let spread = mode != 1 && gx <= max_dim;
        let words = Words {
            k0,
            k1,
            mode,
            n,
            tslot: k0 / self.width,
            tcount: if kept.is_some() {
                kmax.div_ceil(self.width)
            } else {
                0
            },
            pack_here: u32::from(!spread),
            ..Words::default()
        };
        // Without kept T's, binding 5 is any other buffer (never read or written).
        let tc = kept.unwrap_or(&self.wbuf);
        if mode != 2 || !spread {
            self.launch(
                &self.panel,
                words,
                kmax,
                &[(1, a), (2, tau), (3, &self.vbuf), (5, tc)],
                1,
            )?;
        }
        if spread {
            self.launch(
                &self.pack,
                words,
                kmax,
                &[(1, a), (3, &self.vbuf), (5, tc)],
                gx as u32,
            )?;
        }
        Ok(())
    }

    /// The panels `(k0, k1)` of `kmax` reflectors.
    fn panels(&self, kmax: u32) -> Vec<(u32, u32)> {
        (0..kmax)
            .step_by(self.width as usize)
            .map(|k0| (k0, (k0 + self.width).min(kmax)))
            .collect()
    }

    /// Records Householder QR of the `m x n` matrices in `a` in place (R on and above the
    /// diagonal, the reflectors below it, as geqrf) with `tau` (`count * min(m, n)`). Returns
    /// the panels' T for [`BlockedQr::form_q`] where they fit one binding.
    pub(crate) fn factor(
        &self,
        a: &Arc<GpuBuffer>,
        tau: &Arc<GpuBuffer>,
        n: usize,
    ) -> Result<Option<KeptT>> {
        super::factor::check_binding(&self.device, &[a, tau])?;
        let n32 = u32_of(n, "columns")?;
        let kmax = self.m.min(n32);
        let blocks = (self.count * kmax.div_ceil(self.width) as usize)
            .checked_mul((W * W) as usize)
            .filter(|&e| {
                self.device.config().linalg.qr_keep_t
                    && e <= i32::MAX as usize
                    && (e * self.dtype.gpu_size()) as u64
                        <= self.device.context().max_binding_size()
            });
        let kept = match blocks {
            Some(e) => Some(super::factor::alloc(&self.device, e, self.dtype)?),
            None => None,
        };
        for (k0, k1) in self.panels(kmax) {
            self.panel((k0, k1), 0, a, n32, tau, kmax, kept.as_ref())?;
            self.apply((k0, k1), 0, kmax, a, n32, k1, n32 - k1)?;
        }
        Ok(kept.map(|buf| KeptT {
            buf,
            width: self.width,
        }))
    }

    /// Records `X = H_0 ... H_{kmax-1} X` for the `m x xc` matrices in `x` (`xc >= kmax`),
    /// the reflectors left by [`BlockedQr::factor`] in `h` (`m x n`) and `tau` (and the T's
    /// it kept, if any): `Q`'s first `xc` columns when `x` starts as the identity (orgqr).
    pub(crate) fn form_q(
        &self,
        h: &Arc<GpuBuffer>,
        tau: &Arc<GpuBuffer>,
        n: usize,
        x: &Arc<GpuBuffer>,
        xc: usize,
        kept: Option<&KeptT>,
    ) -> Result<()> {
        super::factor::check_binding(&self.device, &[h, tau, x])?;
        let (n32, xc32) = (u32_of(n, "columns")?, u32_of(xc, "columns")?);
        let kmax = self.m.min(n32);
        // T's kept by a factorization with the same panels are only copied.
        let kept = kept.filter(|t| t.width == self.width).map(|t| &t.buf);
        let mode = if kept.is_some() { 2 } else { 1 };
        for (k0, k1) in self.panels(kmax).into_iter().rev() {
            self.panel((k0, k1), mode, h, n32, tau, kmax, kept)?;
            self.apply((k0, k1), 1, kmax, x, xc32, k0, xc32 - k0)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contractions_split_into_whole_parts() {
        assert_eq!(split(100, SPLIT_MAX), (1, 100));
        assert_eq!(split(4096, SPLIT_MAX), (16, 256));
        assert_eq!(split(4064, SPLIT_MAX), (8, 508));
        assert_eq!(split(1000, SPLIT_MAX), (2, 500));
        assert_eq!(split(100_000, 4), (4, 25_000));
        for rows in 1..3000 {
            let (p, c) = split(rows, SPLIT_MAX);
            assert!(p.is_power_of_two() && p <= SPLIT_MAX && rows - p * c < p);
        }
    }

    #[test]
    fn panels_stay_within_the_loop_budget() {
        assert_eq!(panel_width(100), Some(32));
        assert_eq!(panel_width(4096), Some(32));
        assert_eq!(panel_width(8192), Some(16));
        for m in [1usize, 33, 1000, 4096, 5000, 20000, 70000, 300_000] {
            if let Some(w) = panel_width(m) {
                assert!(panel_loops(m as u64, w) <= PANEL_LOOP_BUDGET, "m={m} w={w}");
                assert!(panel_loops(m as u64, w) < 65535);
            }
        }
        assert_eq!(panel_width(10_000_000), None);
    }
}
