//! The factorization cases of the anchor's `linalg` section (`cupy_anchor_wave2.py`):
//! `solve_*`, `inv_*`, `cholesky_*`, `det_*` at n = 1024 and 4096 and `batched_inv_*`,
//! `batched_solve_*` for (batch, k) = (10000, 4), (10000, 8), (1000, 32), in float32 and
//! float64, on the anchor's matrices (uniform [0, 1) plus n on the diagonal; SPD
//! `a a^T + n I` for Cholesky); `qr_4096x1024_*` and `lstsq_4096x1024_*` (uniform [0, 1),
//! `b` its first column), `svd_*`, `svdvals_*`, `eigh_*`, `eigvalsh_*` at n = 256 and 1024
//! (uniform, `m + m^T` for eigh) and `batched_eigh_*` (`b + b^T`). CPU reference: unblocked
//! LU / Cholesky in plain Rust (n = 1024 only).

use super::cases::Measurement;
use super::{gpu_time, Timing};
use crate::common::HostRng;
use crate::error::CliResult;
use kupfer::{Array, DType};
use serde_json::Value;
use std::hint::black_box;

/// Matrix orders of the square cases.
pub const SIZES: &[usize] = &[1024, 4096];
/// Matrix orders of the batched cases (the batch follows from k).
pub const BATCHED_K: &[usize] = &[4, 8, 32];

/// Matrix orders of the SVD and eigh cases.
pub const SPECTRAL_SIZES: &[usize] = &[256, 1024];
/// Columns of the tall QR and lstsq cases (4096 rows).
pub const TALL: &[usize] = &[1024];

/// The sizes (`n`, or `k` for the batched cases) the case `name` runs at.
pub fn sizes(name: &str) -> &'static [usize] {
    if is_batched(name) {
        BATCHED_K
    } else if is_tall(name) {
        TALL
    } else if ["svd", "svdvals", "eigh", "eigvalsh"].contains(&op(name)) {
        SPECTRAL_SIZES
    } else {
        SIZES
    }
}

/// Elements of the case's input at size `n`.
pub fn elements(name: &str, n: usize) -> usize {
    if is_batched(name) {
        n * n * batch(n)
    } else if is_tall(name) {
        4096 * n
    } else {
        n * n
    }
}

/// True for the 4096 x n cases.
pub fn is_tall(name: &str) -> bool {
    name.contains("_4096x")
}

fn op(name: &str) -> &str {
    name.trim_start_matches("batched_")
        .trim_end_matches("_float32")
        .trim_end_matches("_float64")
}

/// The batch of the batched case of order `k`.
pub fn batch(k: usize) -> usize {
    if k >= 32 {
        1000
    } else {
        10000
    }
}

/// True for the batched cases.
pub fn is_batched(name: &str) -> bool {
    name.starts_with("batched_")
}

fn dtype(name: &str) -> DType {
    if name.ends_with("float64") {
        DType::F64
    } else {
        DType::F32
    }
}

/// `count` matrices of order `n`: uniform [0, 1) plus `n` on the diagonal (or `a a^T + n I`
/// for `spd`), as host f64 values.
fn matrices(count: usize, n: usize, spd: bool, seed: u64) -> Vec<f64> {
    let r: Vec<f64> = HostRng::new(seed)
        .uniform_f32(count * n * n)
        .into_iter()
        .map(f64::from)
        .collect();
    if !spd {
        return r
            .iter()
            .enumerate()
            .map(|(e, v)| v + if (e / n) % n == e % n { n as f64 } else { 0.0 })
            .collect();
    }
    let mut out = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let s: f64 = (0..n).map(|l| r[i * n + l] * r[j * n + l]).sum();
            let v = s + if i == j { n as f64 } else { 0.0 };
            out[i * n + j] = v;
            out[j * n + i] = v;
        }
    }
    out
}

fn upload(t: &Timing, v: &[f64], d: DType, shape: &[usize]) -> CliResult<Array> {
    let a = Array::from_slice_on(&t.device, v, shape)?;
    Ok(if d == DType::F64 { a } else { a.astype(d)? })
}

/// Unblocked LU with partial pivoting of a row-major matrix (the CPU reference).
fn cpu_lu(a: &mut [f64], n: usize) {
    for k in 0..n {
        let p = (k..n)
            .max_by(|&x, &y| a[x * n + k].abs().total_cmp(&a[y * n + k].abs()))
            .unwrap_or(k);
        if p != k {
            for j in 0..n {
                a.swap(k * n + j, p * n + j);
            }
        }
        let d = a[k * n + k];
        for i in k + 1..n {
            let l = a[i * n + k] / d;
            a[i * n + k] = l;
            for j in k + 1..n {
                a[i * n + j] -= l * a[k * n + j];
            }
        }
    }
}

/// Runs a factorization case at order `n` (the batched cases: `k`).
pub fn run(name: &str, n: usize, t: &Timing) -> CliResult<Measurement> {
    let d = dtype(name);
    let op = op(name);
    if is_tall(name) {
        let host: Vec<f64> = HostRng::new(15)
            .uniform_f32(4096 * n)
            .into_iter()
            .map(f64::from)
            .collect();
        let a = upload(t, &host, d, &[4096, n])?;
        let b = a.slice(&[kupfer::SliceArg::FULL, kupfer::SliceArg::range(0, 1)])?;
        let ms = if op.starts_with("qr") {
            gpu_time(t, 5, || {
                let qr = kupfer::linalg::qr(&a, kupfer::linalg::QrMode::Reduced)?;
                qr.r.eval()?;
                qr.q.ok_or_else(|| kupfer::Error::invalid("no q"))
            })?
        } else {
            gpu_time(t, 5, || kupfer::linalg::lstsq(&a, &b, None).map(|r| r.x))?
        };
        let mut m = Measurement::new(ms);
        m.params.push(("m", Value::from(4096)));
        m.params.push(("n", Value::from(n)));
        return Ok(m);
    }
    // Before the spectral cases: `batched_eigh_*` is a batched case, not eigh of one matrix.
    if is_batched(name) {
        let count = batch(n);
        let a = upload(t, &matrices(count, n, false, 11), d, &[count, n, n])?;
        let rhs = HostRng::new(12).uniform_f32(count * n);
        let rhs: Vec<f64> = rhs.into_iter().map(f64::from).collect();
        let b = upload(t, &rhs, d, &[count, n, 1])?;
        let ms = match op {
            "inv" => gpu_time(t, 20, || kupfer::linalg::inv(&a))?,
            "eigh" => {
                let h = kupfer::add(&a, &a.swapaxes(-1, -2)?)?.copy()?;
                gpu_time(t, 3, || {
                    let (w, v) = kupfer::linalg::eigh(&h, kupfer::linalg::Uplo::Lower)?;
                    w.eval()?;
                    Ok(v)
                })?
            }
            _ => gpu_time(t, 20, || kupfer::linalg::solve(&a, &b))?,
        };
        let mut m = Measurement::new(ms);
        m.params.push(("batch", Value::from(count)));
        m.params.push(("k", Value::from(n)));
        return Ok(m);
    }
    if ["svd", "svdvals", "eigh", "eigvalsh"].contains(&op) {
        let host: Vec<f64> = HostRng::new(16)
            .uniform_f32(n * n)
            .into_iter()
            .map(f64::from)
            .collect();
        let m = upload(t, &host, d, &[n, n])?;
        let h = kupfer::add(&m, &m.swapaxes(-1, -2)?)?.copy()?;
        let uplo = kupfer::linalg::Uplo::Lower;
        let ms = match op {
            "svd" => gpu_time(t, 3, || {
                let (u, s, vh) = kupfer::linalg::svd(&m, false, false)?;
                u.eval()?;
                s.eval()?;
                Ok(vh)
            })?,
            "svdvals" => gpu_time(t, 3, || kupfer::linalg::svdvals(&m))?,
            "eigh" => gpu_time(t, 3, || {
                let (w, v) = kupfer::linalg::eigh(&h, uplo)?;
                w.eval()?;
                Ok(v)
            })?,
            _ => gpu_time(t, 3, || kupfer::linalg::eigvalsh(&h, uplo))?,
        };
        return Ok(Measurement::new(ms).n(n));
    }
    let host = matrices(1, n, op == "cholesky", 13);
    let a = upload(t, &host, d, &[n, n])?;
    let rhs: Vec<f64> = HostRng::new(14)
        .uniform_f32(n)
        .into_iter()
        .map(f64::from)
        .collect();
    let b = upload(t, &rhs, d, &[n, 1])?;
    let reps = if n > 2048 { 5 } else { 10 };
    let ms = match op {
        "solve" => gpu_time(t, reps, || kupfer::linalg::solve(&a, &b))?,
        "inv" => gpu_time(t, reps, || kupfer::linalg::inv(&a))?,
        "cholesky" => gpu_time(t, reps, || kupfer::linalg::cholesky(&a, false))?,
        _ => gpu_time(t, reps, || kupfer::linalg::det(&a))?,
    };
    let cpu = (t.cpu && n <= 1024).then(|| {
        super::cpu_time(2, || {
            let mut m = host.clone();
            cpu_lu(&mut m, n);
            black_box(m);
        })
    });
    let m = Measurement::new(ms).n(n).cpu(cpu);
    Ok(match op {
        "solve" => m.tflops(2.0 / 3.0 * (n as f64).powi(3)),
        "cholesky" => m.tflops((n as f64).powi(3) / 3.0),
        _ => m,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lu_reconstructs_a_permuted_matrix() {
        let n = 5;
        let a = matrices(1, n, false, 3);
        let mut lu = a.clone();
        cpu_lu(&mut lu, n);
        // det(A) = prod(diag(U)) up to sign; A is diagonally dominant so no pivoting.
        let det: f64 = (0..n).map(|i| lu[i * n + i]).product();
        assert!(det > 0.0);
        let spd = matrices(1, 4, true, 3);
        for i in 0..4 {
            for j in 0..4 {
                assert_eq!(spd[i * 4 + j], spd[j * 4 + i]);
            }
        }
    }
}
