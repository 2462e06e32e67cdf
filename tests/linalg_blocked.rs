//! The blocked factorizations (orders above 32: panels of columns, block-row triangular
//! solves, in-place GEMM updates, back substitution by blocks of 64 rows) at the sizes where
//! blocks begin and end: one below, at and above a panel width (32) and a back-substitution
//! block (64), `3 * 32 + 5` and `3 * 64 + 5`, in float32 and float64, batched and on
//! transposed views. Judged by LAPACK-style scaled residuals computed on the host in float64
//! (`||A x - b|| / (||A|| ||x|| eps n)`, `||P A - L U||`, `||L L^T - A||`), determinants
//! against a float64 LU on the host, and exact zero pivots found in a later panel raising
//! NumPy's `LinAlgError`. The same checks run with 8-column panels and with the
//! global-memory panel kernels (device configs).
//!
//! Needs a GPU adapter (lavapipe will do); fails, never skips, without one. Run:
//! `cargo test -p kupfer-suite --test linalg_blocked`.

mod common;
mod linalg_checks;

use kp::{DType, Error, LinAlgError};
use kupfer as kp;
use linalg_checks::*;

/// Orders around the panel width (32) and the back-substitution block (64).
const SIZES: [usize; 6] = [33, 63, 64, 65, 101, 197];

#[test]
fn solve_and_inv_residuals_across_panel_boundaries() {
    let dev = device();
    let _guard = dev.use_device();
    let (failures, total) = solve_and_inv(&SIZES);
    common::assert_no_failures(&failures, total);
}

#[test]
fn lu_factor_and_determinants_across_panel_boundaries() {
    let dev = device();
    let _guard = dev.use_device();
    let (failures, total) = lu_factor_and_det(&SIZES);
    common::assert_no_failures(&failures, total);
}

#[test]
fn cholesky_and_triangular_solves_across_panel_boundaries() {
    let dev = device();
    let _guard = dev.use_device();
    let (failures, total) = cholesky_and_triangular(&SIZES);
    common::assert_no_failures(&failures, total);
}

#[test]
fn zero_pivots_in_a_later_panel_are_numpy_errors() {
    let dev = device();
    let _guard = dev.use_device();
    for dtype in dtypes() {
        let n = 101;
        // Column 40 (in the second panel) is zero in the second matrix: its pivot is an
        // exact zero.
        let mut data = random(7, 2 * n * n, dtype);
        for i in 0..n {
            data[n * n + i * n + 40] = 0.0;
        }
        let a = common::upload(&data, dtype, &[2, n, n]);
        let b = common::upload(&random(8, n, dtype), dtype, &[n]);
        for r in [kp::linalg::solve(&a, &b), kp::linalg::inv(&a)] {
            assert!(
                matches!(r, Err(Error::LinAlg(LinAlgError::Singular))),
                "{dtype}: {r:?}"
            );
            if let Err(e) = r {
                assert_eq!(e.to_string(), "LinAlgError: Singular matrix");
            }
        }
        let d = host(&kp::linalg::det(&a).unwrap());
        assert!(d[0] != 0.0 && d[1] == 0.0, "{dtype}: det {d:?}");
        let (s, l) = kp::linalg::slogdet(&a).unwrap();
        assert_eq!(host(&s)[1], 0.0);
        assert_eq!(host(&l)[1], f64::NEG_INFINITY);
        // Cholesky: a negative pivot in the third panel.
        let mut spd = vec![0.0; n * n];
        for i in 0..n {
            spd[i * n + i] = if i == 70 { -1.0 } else { 2.0 };
        }
        let c = common::upload(&spd, dtype, &[n, n]);
        let r = kp::linalg::cholesky(&c, false);
        assert!(
            matches!(r, Err(Error::LinAlg(LinAlgError::NotPositiveDefinite))),
            "{dtype}: {r:?}"
        );
    }
}

#[test]
fn narrow_panels_and_global_memory_panels() {
    let dev = device();
    // (panel width, register panels, sizes): 8-column panels cross many boundaries at
    // small orders; global-memory panels are what panels of more than 4096 rows use.
    let runs: [(u32, bool, &[usize]); 3] = [
        (8, true, &[33, 40, 41, 47, 75]),
        (8, false, &[33, 41, 75]),
        (32, false, &[65, 101]),
    ];
    let mut failures = Vec::new();
    let mut total = 0;
    for (width, registers, sizes) in runs {
        let mut config = dev.config().clone();
        config.linalg.panel_width = width;
        config.linalg.register_panels = registers;
        let configured = dev.with_config(config);
        let _guard = configured.use_device();
        for check in [solve_and_inv, lu_factor_and_det, cholesky_and_triangular] {
            let (f, t) = check(sizes);
            failures.extend(
                f.into_iter()
                    .map(|m| format!("panel {width} registers {registers}: {m}")),
            );
            total += t;
        }
    }
    common::assert_no_failures(&failures, total);
}

/// The trailing updates on the tuned matmul (in place into the factored matrices, one per
/// block of panels; `KUPFER_LINALG_UPDATE`) and on the previous path (every panel's update
/// on the plain tile kernel, orders 101 and 300), at orders that cross several blocks and are
/// multiples of neither the panel, the block nor the matmul tile (300, 517), with narrow blocks at
/// small orders (blocks of 16 and 24 columns over panels of 8). The same residual checks
/// as above, plus complex64 solves and inverses at order 300 (a real embedding of order 600).
/// One test per configuration, so that the test threads share the work.
fn blocked_config(gemm: bool, block: u32, width: u32, sizes: &[usize]) {
    let dev = device();
    let mut failures = Vec::new();
    let mut total = 0;
    let mut config = dev.config().clone();
    config.linalg.gemm_updates = gemm;
    config.linalg.update_block = block;
    config.linalg.panel_width = width;
    let configured = dev.with_config(config);
    let _guard = configured.use_device();
    let label = format!("updates {gemm} block {block} panel {width}");
    for check in [solve_and_inv, lu_factor_and_det, cholesky_and_triangular] {
        let (f, t) = check(sizes);
        failures.extend(f.into_iter().map(|m| format!("{label}: {m}")));
        total += t;
    }
    if sizes.contains(&300) {
        let (f, t) = complex_solve_and_inv(&[300]);
        failures.extend(f.into_iter().map(|m| format!("{label}: {m}")));
        total += t;
    }
    common::assert_no_failures(&failures, total);
}

#[test]
fn in_place_gemm_updates_at_panel_width_16() {
    blocked_config(true, 0, 16, &[300, 517]);
}

#[test]
fn the_previous_update_path() {
    blocked_config(false, 0, 16, &[101, 300]);
}

#[test]
fn in_place_gemm_updates_in_blocks_of_16() {
    blocked_config(true, 16, 8, &[33, 41, 75, 101]);
}

#[test]
fn in_place_gemm_updates_in_blocks_of_24() {
    blocked_config(true, 24, 8, &[75, 130]);
}

#[test]
fn subgroup_and_tree_panel_pivots_agree() {
    // The register panel's float32 pivot search by subgroups (the default where the adapter
    // has them) and by the tree: the same pivots, so the same factors bit for bit. Small
    // integer entries make ties in |a| common (the lower row wins both ways); a NaN column
    // entry is never the pivot. The first pivot of each matrix is checked on the host
    // (the first largest |a[i, 0]|, as LAPACK's isamax picks).
    let dev = device();
    let mut failures = Vec::new();
    let mut total = 0;
    for (seed, &n) in [40usize, 65, 300].iter().enumerate() {
        total += 1;
        let batch = 2;
        let mut data: Vec<f64> = random(70 + seed as u64, batch * n * n, DType::F32)
            .iter()
            .map(|x| (x * 4.0).round())
            .collect();
        data[n * n + 5 * n + 3] = f64::NAN;
        let factor = |subgroups: bool| {
            let mut config = dev.config().clone();
            config.linalg.panel_subgroups = subgroups;
            let configured = dev.with_config(config);
            let _guard = configured.use_device();
            let a = common::upload(&data, DType::F32, &[batch, n, n]);
            let (lu, piv) = kp::linalg::lu_factor(&a).unwrap();
            (lu.to_vec::<f32>().unwrap(), piv.to_vec::<i32>().unwrap())
        };
        let (lu_sg, piv_sg) = factor(true);
        let (lu_tree, piv_tree) = factor(false);
        if piv_sg != piv_tree {
            failures.push(format!("n={n}: pivots differ"));
        }
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
        if bits(&lu_sg) != bits(&lu_tree) {
            failures.push(format!("n={n}: factors differ"));
        }
        for k in 0..batch {
            let col = (0..n).map(|i| data[k * n * n + i * n].abs());
            let first = col
                .enumerate()
                .fold(
                    (0, -1.0),
                    |(bi, bv), (i, x)| if x > bv { (i, x) } else { (bi, bv) },
                )
                .0;
            if piv_sg[k * n] as usize != first {
                failures.push(format!(
                    "n={n} matrix {k}: first pivot {} not {first}",
                    piv_sg[k * n]
                ));
            }
        }
    }
    common::assert_no_failures(&failures, total);
}
