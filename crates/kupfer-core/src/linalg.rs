//! Dense factorizations (LU with partial pivoting, Cholesky): WGSL generation from
//! `shaders/linalg_small.wgsl` (one matrix per workgroup in workgroup memory, n <=
//! [`SMALL_MAX`]) and `shaders/linalg_steps.wgsl` (blocked, a few launches per panel of
//! columns in global memory, any n; entry points `lu_panel`, `lu_swap`, `trsm`, `gemm_sub`,
//! `lu_logdet`, `chol_panel`, `chol_zero`, `pack`).
//!
//! Both compute in the matrices' dtype: float32, or float64 where the adapter has
//! SHADER_F64 (log and exp for determinants come from kupfer's libm).

use crate::codegen::Target;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::libm;
use crate::template::Template;

const SMALL: &str = include_str!("../../../shaders/linalg_small.wgsl");
const STEPS: &str = include_str!("../../../shaders/linalg_steps.wgsl");
const PANEL: &str = include_str!("../../../shaders/linalg_panel.wgsl");
const ORTH: &str = include_str!("../../../shaders/linalg_orth.wgsl");
const TINY: &str = include_str!("../../../shaders/linalg_tiny.wgsl");
const ROWS: &str = include_str!("../../../shaders/linalg_rows.wgsl");
const JACOBI: &str = include_str!("../../../shaders/linalg_jacobi.wgsl");
const QR: &str = include_str!("../../../shaders/linalg_qr.wgsl");
const FUSED: &str = include_str!("../../../shaders/linalg_fused.wgsl");

/// The largest order the workgroup-memory kernel factors (its matrix buffer holds 32 x 32).
pub const SMALL_MAX: usize = 32;

/// The largest order the one-matrix-per-thread kernel ([`tiny`]) factors (its matrix lives
/// in the thread's registers).
pub const TINY_MAX: usize = 8;

/// The largest order the one-thread-per-row kernel ([`rows`]) factors.
pub const ROWS_MAX: usize = SMALL_MAX;

/// Elements of the one-thread-per-row kernel's staging buffer in workgroup memory (its
/// matrices on the way in, its results on the way out): 8 KiB of float64, which keeps the
/// kernel's workgroup memory within WebGPU's default 16 KiB.
const ROWS_STAGE: usize = 1024;

/// Matrices of order `n` (1 to [`ROWS_MAX`]) per workgroup of the one-thread-per-row kernel
/// ([`rows`]): as many as fit 64 threads and the staging buffer (order 32: one; order 8:
/// eight; order 4: sixteen). Its workgroups have `n` times as many threads.
pub fn rows_per_group(n: usize) -> usize {
    let n = n.clamp(1, ROWS_MAX);
    (ROWS_STAGE / (n * n)).min(64 / n).max(1)
}

/// Byte size of the small and panel kernels' uniform blocks.
pub const PARAMS_SIZE: usize = 48;

/// Byte size of the blocked steps' uniform block (`shaders/linalg_steps.wgsl`: the panel
/// kernels' words, then `pack`'s offset, row stride and per-matrix stride, padding).
pub const STEPS_PARAMS_SIZE: usize = 64;

/// What the small kernel computes after factoring.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SmallOp {
    /// LU, then `X = A^-1 B` for `nrhs` right-hand-side columns.
    Solve,
    /// LU, then the inverse (the identity's columns solved).
    Inv,
    /// LU, then `sign * exp(log|det|)` per matrix (NumPy's det).
    Det,
    /// LU, then `(sign, log|det|)` per matrix.
    Slogdet,
    /// The packed factors (unit-lower L below the diagonal, U on and above) and the pivots.
    LuFactor,
    /// Cholesky's lower factor (strict upper triangle zeroed).
    Cholesky,
}

impl SmallOp {
    fn mode(self) -> u32 {
        match self {
            SmallOp::Solve => 0,
            SmallOp::Inv => 1,
            SmallOp::Det => 2,
            SmallOp::Slogdet => 3,
            SmallOp::LuFactor => 4,
            SmallOp::Cholesky => 5,
        }
    }
}

fn scalar(dtype: DType, target: &Target) -> Result<(&'static str, &'static str)> {
    target.check(dtype, "this adapter")?;
    match dtype {
        DType::F32 => Ok(("f32", "f32")),
        DType::F64 => Ok(("f64", "f64")),
        d => Err(Error::unsupported(format!(
            "factorizations of {d} matrices on the GPU (float32 and float64)"
        ))),
    }
}

fn fill(template: &str, dtype: DType, target: &Target) -> Result<Template> {
    let (ty, suffix) = scalar(dtype, target)?;
    let log = format!("kp_log_{suffix}");
    let exp = format!("kp_exp_{suffix}");
    let lib = if dtype == DType::F64 {
        libm::subset(libm::LIBM_F64, [log.as_str(), exp.as_str()])
    } else {
        libm::subset(libm::LIBM_F32, [log.as_str(), exp.as_str()])
    };
    Ok(Template::new(template)
        .set_if_held("ENABLES", "")
        .set("T", ty)
        .set_if_held("LOG", &log)
        .set_if_held("EXP", &exp)
        .set_if_held("LIBM", &lib))
}

/// The small (one matrix per workgroup, 64 threads) kernel of `op` in `dtype`. Bindings: 0
/// uniforms (n, nrhs, batch, gx: u32; neg_inf: f32), 1 the matrices, 2 the right-hand sides
/// (Solve only), 3 the output, 4 the i32 `aux` (info per matrix for Solve, Inv and
/// Cholesky; n pivots per matrix for LuFactor; unused otherwise). `pivot_tree`: LU's pivot
/// search by a tree over 32 threads instead of one thread's loop (the same pivots).
pub fn small(op: SmallOp, dtype: DType, pivot_tree: bool, target: &Target) -> Result<String> {
    let rhs = if op == SmallOp::Solve {
        "@group(0) @binding(2) var<storage, read> rhs: array<T>;"
    } else {
        ""
    };
    let load = if op == SmallOp::Solve {
        "rhs[(bidx * n + i) * P.nrhs + j]"
    } else {
        "T(0)"
    };
    Ok(fill(SMALL, dtype, target)?
        .set("MODE", op.mode())
        .set("PIVOT_TREE", pivot_tree)
        .set("MAX_FINITE", max_finite(dtype))
        .set("RHS_BINDING", rhs)
        .set("LOAD_RHS", load)
        .render())
}

/// The one-matrix-per-thread kernel (`shaders/linalg_tiny.wgsl`) of `op` (Solve or Inv) for
/// matrices of order `n` (1 to [`TINY_MAX`], a constant of the variant) in `dtype`.
/// Bindings as [`small`]'s (uniforms n, nrhs, batch, gx — workgroups along x, 64 matrices
/// each —, neg_inf; aux: info per matrix).
pub fn tiny(op: SmallOp, n: usize, dtype: DType, target: &Target) -> Result<String> {
    if n == 0 || n > TINY_MAX || !matches!(op, SmallOp::Solve | SmallOp::Inv) {
        return Err(Error::invalid(format!(
            "the one-matrix-per-thread kernel solves and inverts orders 1 to {TINY_MAX}, not \
             {op:?} of order {n}"
        )));
    }
    let rhs = if op == SmallOp::Solve {
        "@group(0) @binding(2) var<storage, read> rhs: array<T>;"
    } else {
        ""
    };
    let load = if op == SmallOp::Solve {
        "rhs[(bidx * N + i) * P.nrhs + j]"
    } else {
        "T(0)"
    };
    Ok(fill(TINY, dtype, target)?
        .set("MODE", op.mode())
        .set("N", n)
        .set("NN", n * n)
        .set("RHS_BINDING", rhs)
        .set("LOAD_RHS", load)
        .render())
}

/// The one-thread-per-row kernel (`shaders/linalg_rows.wgsl`) of `op` (Solve or Inv) for
/// matrices of order `n` (1 to [`ROWS_MAX`]) with `nrhs` right-hand-side columns (Solve: 1 to
/// `n`; Inv ignores it) in `dtype`: [`rows_per_group`] matrices per workgroup, one thread per
/// row. Bindings as [`small`]'s (uniforms n, nrhs, batch, gx — workgroups along x —,
/// neg_inf; aux: info per matrix).
pub fn rows(op: SmallOp, n: usize, nrhs: usize, dtype: DType, target: &Target) -> Result<String> {
    let r = if op == SmallOp::Inv { n } else { nrhs };
    if n == 0 || n > ROWS_MAX || r == 0 || r > n || !matches!(op, SmallOp::Solve | SmallOp::Inv) {
        return Err(Error::invalid(format!(
            "the one-thread-per-row kernel solves (1 to n right-hand sides) and inverts orders \
             1 to {ROWS_MAX}, not {op:?} of order {n} with {nrhs} right-hand sides"
        )));
    }
    let (rhs, load) = if op == SmallOp::Solve {
        (
            "@group(0) @binding(2) var<storage, read> rhs: array<T>;",
            "rhs[(bidx * N + i) * R + j]",
        )
    } else {
        ("", "T(0)")
    };
    let g = rows_per_group(n);
    Ok(fill(ROWS, dtype, target)?
        .set("MODE", op.mode())
        .set("N", n)
        .set("R", r)
        .set("G", g)
        .set("WG", g * n)
        .set("STAGE", g * n * n)
        .set("PROW", 2 * g * (n + r))
        .set("XROW", 2 * g * r)
        .set("MAX_FINITE", max_finite(dtype))
        .set("RHS_BINDING", rhs)
        .set("LOAD_RHS", load)
        .render())
}

fn max_finite(dtype: DType) -> &'static str {
    if dtype == DType::F64 {
        "1.7976931348623157e308"
    } else {
        "3.4028234663852886e38"
    }
}

/// The largest order of the small symmetric eigensolver ([`jacobi_small`]).
pub const JACOBI_MAX: usize = 32;

/// Sweeps the small symmetric eigensolver runs at most before it reports non-convergence
/// (cyclic Jacobi converges quadratically: a few sweeps at these orders).
const JACOBI_SWEEPS: u32 = 30;

/// The shape of [`jacobi_small`]'s launch for order `n`: (matrices per workgroup, threads
/// per workgroup, bytes of workgroup memory with eigenvectors in `dtype`). A matrix has
/// `(m / 2)^2` threads (`m`: `n` rounded up to even), as many matrices as fit 64 threads.
pub fn jacobi_shape(n: usize, dtype: DType) -> (usize, usize, usize) {
    let n2 = n.clamp(1, JACOBI_MAX).next_multiple_of(2);
    let tpm = (n2 / 2) * (n2 / 2);
    let g = (64 / tpm).max(1);
    let size = if dtype == DType::F64 { 8 } else { 4 };
    // A and V, the rotations, the reduction, the scales; the flags and the order.
    let bytes = size * (2 * g * n2 * n2 + g * n2 + g * tpm + g) + 4 * (g + g * n2 + 2);
    (g, g * tpm, bytes)
}

/// The small symmetric eigensolver (`shaders/linalg_jacobi.wgsl`: parallel two-sided
/// cyclic Jacobi, several matrices of order `n` — 1 to [`JACOBI_MAX`] — per workgroup in
/// workgroup memory, see [`jacobi_shape`]) in `dtype`, with eigenvectors if `vectors`.
/// Bindings: 0 uniforms (n, batch, gx — workgroups along x —, uplo: 0 lower, 1 upper), 1
/// the matrices, 2 the ascending eigenvalues, 3 the eigenvectors (columns; `vectors` only),
/// 4 the i32 `aux` (0; 1 non-finite input; 2 not converged).
pub fn jacobi_small(n: usize, dtype: DType, vectors: bool, target: &Target) -> Result<String> {
    if n == 0 || n > JACOBI_MAX {
        return Err(Error::invalid(format!(
            "the small symmetric eigensolver takes orders 1 to {JACOBI_MAX}, not {n}"
        )));
    }
    let n2 = n.next_multiple_of(2);
    let (g, wg, _) = jacobi_shape(n, dtype);
    let eps = if dtype == DType::F64 {
        "2.220446049250313e-16"
    } else {
        "1.1920929e-7"
    };
    let (binding, store) = if vectors {
        (
            "@group(0) @binding(3) var<storage, read_write> v: array<T>;",
            "v[first * N * N + e] = V[gg * NN2 + row * N2 + col];",
        )
    } else {
        ("", "")
    };
    Ok(fill(JACOBI, dtype, target)?
        .set("N", n)
        .set("N2", n2)
        .set("HALF", n2 / 2)
        .set("TPM", wg / g)
        .set("G", g)
        .set("WG", wg)
        .set("NN2", n2 * n2)
        .set("VECTORS", vectors)
        .set("MAX_SWEEPS", JACOBI_SWEEPS)
        .set("EPS", eps)
        .set("MAX_FINITE", max_finite(dtype))
        .set("A_SIZE", g * n2 * n2)
        .set("V_SIZE", if vectors { g * n2 * n2 } else { 1 })
        .set("ROT_SIZE", g * n2 / 2)
        .set("A_PERM", g * n2)
        .set("V_BINDING", binding)
        .set("V_STORE", store)
        .render())
}

/// The blocked-factorization kernels in `dtype` (one module, entry points named in the
/// module docs). Bindings: 0 uniforms (n, m, k0, k1, batch0, count, mode, r0, r1, c0, c1:
/// u32; neg_inf: f32), 1 the matrices, 2 the right-hand sides, 3 the i32 `aux`, 4 the
/// determinant output; each entry point binds only what it uses.
pub fn steps(dtype: DType, target: &Target) -> Result<String> {
    Ok(fill(STEPS, dtype, target)?.render())
}

/// Columns of the register-resident panel kernels ([`panel`]) at most.
pub const PANEL_WIDTH: u32 = 32;

/// The most rows per thread of the register-resident panel kernels (their panels have at
/// most `256 * PANEL_RPT_MAX` rows).
pub const PANEL_RPT_MAX: u32 = 16;

/// How `lu_panel` finds each column's pivot among its 256 threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PanelPivot {
    /// A tree through workgroup memory (eight barrier steps).
    Tree,
    /// Each subgroup's largest by subgroup operations, one barrier, then every thread
    /// reads the subgroups' results (float32 only; needs subgroups of at least 4 lanes).
    Subgroups,
}

/// The pivot search of [`PanelPivot::Tree`]: `p` the row, `pv` its |value|.
const PIVOT_TREE: &str = "        red_v[lid] = bv;
        red_i[lid] = bi;
        workgroupBarrier();
        for (var s = WG / 2u; s > 0u; s = s >> 1u) {
            if (lid < s) {
                let x = red_v[lid + s];
                let i = red_i[lid + s];
                if (x > red_v[lid] || (x == red_v[lid] && i < red_i[lid])) {
                    red_v[lid] = x;
                    red_i[lid] = i;
                }
            }
            workgroupBarrier();
        }
        let p = red_i[0];
        let pv = red_v[0];";

/// The pivot search of [`PanelPivot::Subgroups`] (no thread's `bv` is NaN: a NaN never
/// replaces the running largest).
const PIVOT_SUBGROUPS: &str = "        let sm = subgroupMax(bv);
        let si = subgroupMin(select(0xffffffffu, bi, bv == sm));
        if (sg_lane == 0u) {
            red_v[sg_id] = sm;
            red_i[sg_id] = si;
        }
        workgroupBarrier();
        var p = red_i[0];
        var pv = red_v[0];
        for (var s = 1u; s < sg_count; s = s + 1u) {
            let x = red_v[s];
            let i = red_i[s];
            if (x > pv || (x == pv && i < p)) {
                pv = x;
                p = i;
            }
        }";

/// The register-resident panel kernels (`shaders/linalg_panel.wgsl`: entry points `lu_panel`
/// and `chol_panel`) in `dtype` for panels of at most `256 * rows_per_thread` rows and
/// `width` (1 to [`PANEL_WIDTH`]) columns; `rows_per_thread` is a power of two up to
/// [`PANEL_RPT_MAX`]. `pivot`: how `lu_panel` searches (subgroups for float32 only).
/// Bindings as [`steps`]' (0 uniforms, 1 the matrices, 3 the i32 `aux`).
pub fn panel(
    dtype: DType,
    rows_per_thread: u32,
    width: u32,
    pivot: PanelPivot,
    target: &Target,
) -> Result<String> {
    panel_threads(dtype, rows_per_thread, width, pivot, 256, target)
}

/// [`panel`] with `threads` (256, 512 or 1024) threads per workgroup: panels of at most
/// `threads * rows_per_thread` rows.
pub fn panel_threads(
    dtype: DType,
    rows_per_thread: u32,
    width: u32,
    pivot: PanelPivot,
    threads: u32,
    target: &Target,
) -> Result<String> {
    if ![256, 512, 1024].contains(&threads) {
        return Err(Error::invalid(format!(
            "panel kernels run 256, 512 or 1024 threads, not {threads}"
        )));
    }
    if !rows_per_thread.is_power_of_two() || rows_per_thread > PANEL_RPT_MAX {
        return Err(Error::invalid(format!(
            "panel kernels hold 1 to {PANEL_RPT_MAX} rows per thread (a power of two), not \
             {rows_per_thread}"
        )));
    }
    if !(1..=PANEL_WIDTH).contains(&width) {
        return Err(Error::invalid(format!(
            "panel kernels take 1 to {PANEL_WIDTH} columns, not {width}"
        )));
    }
    let (code, args) = match pivot {
        PanelPivot::Tree => (PIVOT_TREE, ""),
        PanelPivot::Subgroups if dtype == DType::F32 => (
            PIVOT_SUBGROUPS,
            ", @builtin(subgroup_invocation_id) sg_lane: u32, \
             @builtin(subgroup_id) sg_id: u32, @builtin(num_subgroups) sg_count: u32",
        ),
        PanelPivot::Subgroups => {
            return Err(Error::invalid(
                "subgroup pivots are float32 only (subgroup operations on float64)",
            ))
        }
    };
    let subgroup_values = if args.is_empty() {
        "0u, 0u, 0u"
    } else {
        "sg_lane, sg_id, sg_count"
    };
    let columns: String = (0..width)
        .map(|kk| format!("    lu_column(&v, {kk}u, lid, k0, n, abase, w, {subgroup_values});\n"))
        .collect();
    Ok(fill(PANEL, dtype, target)?
        .set("RPT", rows_per_thread)
        .set("WG", threads)
        .set("W", width)
        .set("PIVOT_ARGS", args)
        .set("PIVOT", code)
        .set("COLUMNS", columns.trim_end())
        .render())
}

/// The widest panel of the fused blocked LU and Cholesky ([`fused`]): 32 columns in
/// float32, 16 in float64 (their tiles in workgroup memory stay within 16 KiB).
pub fn fused_width_max(dtype: DType) -> u32 {
    if dtype == DType::F64 {
        16
    } else {
        32
    }
}

/// Rows of the fused kernels' tiles for panels of `width` columns in `dtype`: 64, or 32
/// where 64 would take more than 8 KiB of workgroup memory per operand tile.
pub fn fused_tile_rows(dtype: DType, width: u32) -> u32 {
    if dtype == DType::F64 || width > 16 {
        32
    } else {
        64
    }
}

/// Columns of `lu_update`'s tiles ([`fused`]) for panels of `width` columns: 64, or 32 for
/// panels wider than 16.
pub fn fused_tile_cols(width: u32) -> u32 {
    if width > 16 {
        32
    } else {
        64
    }
}

/// Columns of `lu_back`'s tiles ([`fused`]) in `dtype`.
pub fn fused_back_cols(dtype: DType) -> u32 {
    if dtype == DType::F64 {
        32
    } else {
        64
    }
}

/// Rows per launch of the fused back substitution ([`fused`]'s `lu_back`).
pub const FUSED_BACK_ROWS: u32 = 32;

/// The fused blocked LU and Cholesky kernels in `dtype` (`shaders/linalg_fused.wgsl`: entry
/// points `lu_copy`, `lu_update`, `lu_back`, `chol_step`) for panels of at most `width`
/// (1 to [`fused_width_max`]) columns. Bindings: 0 uniforms (as [`steps`]'), 1 the
/// matrices, 2 the right-hand sides, 3 the i32 `aux`, 4 and 5 the scratches read and
/// written, 6 the output (`lu_back`'s solution, `chol_step`'s factor).
pub fn fused(dtype: DType, width: u32, target: &Target) -> Result<String> {
    let max = if matches!(dtype, DType::F32 | DType::F64) {
        fused_width_max(dtype)
    } else {
        PANEL_WIDTH
    };
    if !(1..=max).contains(&width) {
        return Err(Error::invalid(format!(
            "fused factorization kernels take 1 to {max} columns in {dtype}, not {width}"
        )));
    }
    Ok(fill(FUSED, dtype, target)?
        .set("W", width)
        .set("TM", fused_tile_rows(dtype, width))
        .set("TN", fused_tile_cols(width))
        .set("B", FUSED_BACK_ROWS)
        .set("TNB", fused_back_cols(dtype))
        .render())
}

/// The orthogonal-factorization kernels in `dtype` (`shaders/linalg_orth.wgsl`: entry points
/// `house`, `house_apply`, `jacobi_step`, `jacobi_step_cplx`, `clear_flags`, `piv_perm`). Bindings: 0 uniforms
/// (m, n, k, batch0, count, mode, c0, c1, xc, kmax: u32; tol_rot, tol_conv: f32), 1 the
/// matrices, 2 a second matrix stack, 3 tau, 4 u32 flags; each entry point binds only what
/// it uses.
pub fn orth(dtype: DType, target: &Target) -> Result<String> {
    Ok(fill(ORTH, dtype, target)?.render())
}

/// The widest panel of the blocked Householder QR ([`qr_blocked`]).
pub const QR_PANEL_WIDTH: u32 = 32;

/// Byte size of the blocked QR kernels' uniform block.
pub const QR_PARAMS_SIZE: usize = 80;

/// The blocked Householder QR kernels in `dtype` (`shaders/linalg_qr.wgsl`: entry points
/// `qr_panel`, `qr_pack` and `qr_tw`) for panels of at most [`QR_PANEL_WIDTH`] columns.
/// Bindings: 0 uniforms (m, n, k0, k1, batch0, kmax, mode, slots, ld, vstride, wstride,
/// cols, tslot, tcount, parts, rem_count, vw: u32, then padding to [`QR_PARAMS_SIZE`]), 1 the
/// matrices, 2 tau, 3 the scratch holding T, W2 and V, 4 the scratch holding W1, 5 the kept
/// T's.
pub fn qr_blocked(dtype: DType, target: &Target) -> Result<String> {
    Ok(fill(QR, dtype, target)?.set("W", QR_PANEL_WIDTH).render())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::naga_check::validate;
    use naga::valid::Capabilities;

    #[test]
    fn every_variant_validates() {
        let t = Target {
            f16: true,
            f64: true,
            i64: true,
        };
        let ops = [
            SmallOp::Solve,
            SmallOp::Inv,
            SmallOp::Det,
            SmallOp::Slogdet,
            SmallOp::LuFactor,
            SmallOp::Cholesky,
        ];
        // Stops compiling when a variant is added: add it to `ops` as well.
        for op in ops {
            match op {
                SmallOp::Solve
                | SmallOp::Inv
                | SmallOp::Det
                | SmallOp::Slogdet
                | SmallOp::LuFactor
                | SmallOp::Cholesky => {}
            }
        }
        // Every dtype the kernels take (float32, float64); the others are refused.
        for d in DType::ALL {
            if scalar(d, &t).is_err() {
                continue;
            }
            for op in ops {
                for tree in [false, true] {
                    validate(&small(op, d, tree, &t).unwrap(), Capabilities::empty());
                }
            }
            validate(&steps(d, &t).unwrap(), Capabilities::empty());
            for rpt in [1, 2, 4, 8, 16] {
                for width in [8, 16, 32] {
                    let tree = panel(d, rpt, width, PanelPivot::Tree, &t).unwrap();
                    validate(&tree, Capabilities::empty());
                    if rpt <= 4 {
                        for threads in [512, 1024] {
                            let p = panel_threads(d, rpt, width, PanelPivot::Tree, threads, &t);
                            validate(&p.unwrap(), Capabilities::empty());
                        }
                    }
                    if d == DType::F32 {
                        let sg = panel(d, rpt, width, PanelPivot::Subgroups, &t).unwrap();
                        validate(&sg, Capabilities::SUBGROUP);
                    }
                }
            }
            for width in [8, 16, 32] {
                if width <= fused_width_max(d) {
                    validate(&fused(d, width, &t).unwrap(), Capabilities::empty());
                }
            }
            validate(&orth(d, &t).unwrap(), Capabilities::empty());
            validate(&qr_blocked(d, &t).unwrap(), Capabilities::empty());
            for n in 1..=TINY_MAX {
                for op in [SmallOp::Solve, SmallOp::Inv] {
                    validate(&tiny(op, n, d, &t).unwrap(), Capabilities::empty());
                }
            }
            for n in 1..=ROWS_MAX {
                validate(
                    &rows(SmallOp::Inv, n, 0, d, &t).unwrap(),
                    Capabilities::empty(),
                );
                for nrhs in 1..=n {
                    validate(
                        &rows(SmallOp::Solve, n, nrhs, d, &t).unwrap(),
                        Capabilities::empty(),
                    );
                }
            }
        }
    }

    #[test]
    fn other_dtypes_are_refused() {
        let t = Target {
            f16: true,
            f64: false,
            i64: true,
        };
        assert!(small(SmallOp::Inv, DType::F64, true, &t).is_err());
        assert!(steps(DType::Complex64, &t).is_err());
        assert!(steps(DType::I32, &t).is_err());
        assert!(qr_blocked(DType::F64, &t).is_err());
        assert!(qr_blocked(DType::Complex64, &t).is_err());
        assert!(fused(DType::F32, 0, &t).is_err());
        assert!(fused(DType::F32, 33, &t).is_err());
        assert!(fused(DType::I32, 16, &t).is_err());
        assert!(panel(DType::F32, 3, 16, PanelPivot::Tree, &t).is_err());
        assert!(panel_threads(DType::F32, 4, 16, PanelPivot::Tree, 128, &t).is_err());
        assert!(panel(DType::F32, 32, 16, PanelPivot::Tree, &t).is_err());
        assert!(panel(DType::F32, 4, 33, PanelPivot::Tree, &t).is_err());
        assert!(panel(DType::F32, 4, 0, PanelPivot::Tree, &t).is_err());
        assert!(panel(DType::F64, 4, 16, PanelPivot::Subgroups, &t).is_err());
        assert!(tiny(SmallOp::Det, 4, DType::F32, &t).is_err());
        assert!(tiny(SmallOp::Inv, TINY_MAX + 1, DType::F32, &t).is_err());
        assert!(tiny(SmallOp::Inv, 0, DType::F32, &t).is_err());
        assert!(rows(SmallOp::Det, 4, 1, DType::F32, &t).is_err());
        assert!(jacobi_small(0, DType::F32, true, &t).is_err());
        assert!(jacobi_small(JACOBI_MAX + 1, DType::F32, true, &t).is_err());
        assert!(jacobi_small(4, DType::F64, true, &t).is_err());
        assert!(rows(SmallOp::Inv, ROWS_MAX + 1, 0, DType::F32, &t).is_err());
        assert!(rows(SmallOp::Solve, 4, 5, DType::F32, &t).is_err());
        assert!(rows(SmallOp::Solve, 4, 0, DType::F32, &t).is_err());
        assert!(rows(SmallOp::Inv, 4, 0, DType::F64, &t).is_err());
    }

    #[test]
    fn row_kernels_fit_workgroup_limits() {
        for n in 1..=ROWS_MAX {
            let g = rows_per_group(n);
            // Threads, and float64 workgroup memory: staging, keys, positions, pivot rows
            // and solved rows (inverse: n right-hand sides).
            let bytes = 8 * (g * n * n + g * n + 2 * g * 2 * n + 2 * g * n) + 4 * g * n;
            assert!(
                g * n <= 64 && bytes <= 16384,
                "order {n}: {g} matrices, {bytes} B"
            );
        }
    }
}
