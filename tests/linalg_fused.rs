//! The fused blocked LU and Cholesky (`KUPFER_LU=fused`, `KUPFER_CHOL=fused`:
//! `shaders/linalg_fused.wgsl`, two launches per panel for LU, one for Cholesky, a back
//! substitution of one launch per 32 rows) and the register panels on 512 or 1024 threads,
//! forced on through device configs, at orders around the panel widths (8, 16, 32), the
//! fused tiles (32, 64 rows) and the back-substitution block (32): the LAPACK-style scaled
//! residuals of `tests/linalg_checks` (float32 and float64, batched, transposed views),
//! complex64 solves and inverses (their real embedding), exact zero pivots in a later panel
//! raising NumPy's `LinAlgError`, and fewer launches than the default path.
//!
//! Needs a GPU adapter (lavapipe will do); fails, never skips, without one. Run:
//! `cargo test -p kupfer-suite --test linalg_fused`.

mod common;
mod linalg_checks;

use kp::{DType, Error, LinAlgError};
use kupfer as kp;
use linalg_checks::*;

/// Held by every test here: the launch counts of [`fused_paths_record_fewer_launches`] are
/// the device's, which other tests' launches would add to.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

/// A device whose blocked LU and Cholesky take the fused kernels, with panels of `width`.
fn fused(width: u32, threads: u32) -> kp::Device {
    let dev = device();
    let mut config = dev.config().clone();
    config.linalg.lu_fused_max = u32::MAX;
    config.linalg.chol_fused_max = 1000;
    config.linalg.panel_width = width;
    config.linalg.panel_threads = threads;
    dev.with_config(config)
}

#[test]
fn fused_factorizations_across_panel_and_tile_boundaries() {
    let _serial = serial();
    // (panel width, panel threads, orders): float64 panels are at most 16 wide.
    let runs: [(u32, u32, &[usize]); 3] = [
        (16, 256, &[33, 64, 65, 129]),
        (8, 512, &[41]),
        (32, 1024, &[65, 97]),
    ];
    let mut failures = Vec::new();
    let mut total = 0;
    for (width, threads, sizes) in runs {
        let configured = fused(width, threads);
        let _guard = configured.use_device();
        for check in [solve_and_inv, lu_factor_and_det, cholesky_and_triangular] {
            let (f, t) = check(sizes);
            failures.extend(f.into_iter().map(|m| format!("panel {width}: {m}")));
            total += t;
        }
        if width == 16 {
            let (f, t) = complex_solve_and_inv(&[65]);
            failures.extend(f.into_iter().map(|m| format!("panel {width}: {m}")));
            total += t;
        }
    }
    common::assert_no_failures(&failures, total);
}

#[test]
fn fused_zero_pivots_in_a_later_panel_are_numpy_errors() {
    let _serial = serial();
    let configured = fused(16, 256);
    let _guard = configured.use_device();
    for dtype in dtypes() {
        let n = 70;
        // Column 40 (the third panel) is zero in the second matrix: its pivot is an exact
        // zero; the first matrix is regular.
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
        }
        let d = host(&kp::linalg::det(&a).unwrap());
        assert!(d[0] != 0.0 && d[1] == 0.0, "{dtype}: det {d:?}");
        let (s, l) = kp::linalg::slogdet(&a).unwrap();
        assert_eq!(host(&s)[1], 0.0);
        assert_eq!(host(&l)[1], f64::NEG_INFINITY);
        // Cholesky: a negative pivot in the fifth panel, the rest definite.
        let mut spd = vec![0.0; 2 * n * n];
        for k in 0..2 {
            for i in 0..n {
                spd[k * n * n + i * n + i] = if k == 1 && i == 66 { -1.0 } else { 2.0 };
            }
        }
        let c = common::upload(&spd, dtype, &[2, n, n]);
        let r = kp::linalg::cholesky(&c, false);
        assert!(
            matches!(r, Err(Error::LinAlg(LinAlgError::NotPositiveDefinite))),
            "{dtype}: {r:?}"
        );
    }
}

#[test]
fn fused_paths_record_fewer_launches() {
    let _serial = serial();
    // Order 300 in panels of 16: the default path records per panel a panel kernel, a
    // swap, a triangular solve and one or two updates (and per block of 64 columns copies
    // and matmuls), 147 launches in all; the fused one a panel kernel and one update per
    // panel, 10 launches of back substitution and a copy (67 with the solve's own copies
    // and checks). Cholesky: 24 launches instead of 64. Both paths give the same results.
    let n = 300;
    let data = random(3, n * n, DType::F32);
    let rhs = random(4, n, DType::F32);
    let run = |dev: &kp::Device| {
        let _guard = dev.use_device();
        let a = common::upload(&data, DType::F32, &[n, n]);
        let b = common::upload(&rhs, DType::F32, &[n]);
        let ctx = dev.context();
        let before = ctx.dispatch_count();
        let x = kp::linalg::solve(&a, &b).unwrap();
        let launches = ctx.dispatch_count() - before;
        let c = common::upload(&data, DType::F32, &[n, n]);
        let spd = c.matmul(&c.swapaxes(-1, -2).unwrap()).unwrap();
        let before = ctx.dispatch_count();
        let l = kp::linalg::cholesky(&spd, false).unwrap();
        let chol = ctx.dispatch_count() - before;
        (launches, chol, host(&x), host(&l))
    };
    let (old_lu, old_chol, x_old, l_old) = run(&device());
    let (new_lu, new_chol, x_new, l_new) = run(&fused(16, 256));
    assert!(2 * new_lu < old_lu, "solve: {new_lu} vs {old_lu} launches");
    assert!(
        2 * new_chol < old_chol,
        "cholesky: {new_chol} vs {old_chol} launches"
    );
    let close = |p: &[f64], q: &[f64], what: &str| {
        let scale = p.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let diff = p
            .iter()
            .zip(q)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        assert!(
            diff <= 1e-3 * scale,
            "{what} differ by {diff} (scale {scale})"
        );
    };
    close(&x_old, &x_new, "solutions");
    close(&l_old, &l_new, "Cholesky factors");
}
