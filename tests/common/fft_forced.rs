//! The FFT cases that forced pass kinds (the `*_passes_match_reference` tests of
//! `tests/fft.rs`, each on a device handle whose `Config::fft` forces them) are checked on, against an f64 CPU reference DFT: 1-D sizes from 2 to 2^16 (one and two
//! passes, several lines per workgroup), batched rows, strided columns (several lines per
//! workgroup read column-fast, batches that do not fill the last workgroup), real input,
//! Hermitian input with real output, a transposed view, 2-D transforms, norms and Bluestein
//! sizes (whose inner power-of-two transform loads and stores through the chirp tables).
//! Accuracy: relative L2 error <= 1e-6 (powers of two), 5e-6 (Bluestein).

use super::Rng;
use kp::fft::{self, Norm};
use kp::{Array, Complex32};
use kupfer as kp;

type C64 = (f64, f64);

fn random(seed: u64, n: usize) -> Vec<f32> {
    let mut rng = Rng(seed.wrapping_mul(0x9e3779b97f4a7c15) ^ 0x5eed);
    (0..n).map(|_| (rng.unit() * 2.0 - 1.0) as f32).collect()
}

fn complex(seed: u64, n: usize) -> Vec<Complex32> {
    random(seed, 2 * n)
        .chunks_exact(2)
        .map(|p| Complex32::new(p[0], p[1]))
        .collect()
}

/// exp(sgn * -2 pi i k / n) with `k` reduced exactly.
fn root(k: usize, n: usize, sgn: f64) -> C64 {
    let a = -sgn * 2.0 * std::f64::consts::PI * ((k % n) as f64) / n as f64;
    (a.cos(), a.sin())
}

fn mul(a: C64, b: C64) -> C64 {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

/// Unscaled DFT in f64 (radix 2 for powers of two, direct otherwise), sign `sgn` (1 forward).
fn dft(x: &[C64], sgn: f64) -> Vec<C64> {
    let n = x.len();
    if n <= 1 {
        return x.to_vec();
    }
    if n % 2 == 1 || n <= 8 {
        return (0..n)
            .map(|k| {
                x.iter().enumerate().fold((0.0, 0.0), |acc, (j, &v)| {
                    let t = mul(v, root(j * k, n, sgn));
                    (acc.0 + t.0, acc.1 + t.1)
                })
            })
            .collect();
    }
    let even: Vec<C64> = x.iter().step_by(2).copied().collect();
    let odd: Vec<C64> = x.iter().skip(1).step_by(2).copied().collect();
    let (e, o) = (dft(&even, sgn), dft(&odd, sgn));
    let mut out = vec![(0.0, 0.0); n];
    for k in 0..n / 2 {
        let t = mul(o[k], root(k, n, sgn));
        out[k] = (e[k].0 + t.0, e[k].1 + t.1);
        out[k + n / 2] = (e[k].0 - t.0, e[k].1 - t.1);
    }
    out
}

/// Applies `dft` along `axis` of a C-order array of `shape`, scaled by `scale`.
fn dft_axis(x: &[C64], shape: &[usize], axis: usize, sgn: f64, scale: f64) -> Vec<C64> {
    let n = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let outer: usize = shape[..axis].iter().product();
    let mut out = x.to_vec();
    for o in 0..outer {
        for i in 0..inner {
            let at = |j: usize| o * n * inner + j * inner + i;
            let line: Vec<C64> = (0..n).map(|j| x[at(j)]).collect();
            for (j, v) in dft(&line, sgn).into_iter().enumerate() {
                out[at(j)] = (v.0 * scale, v.1 * scale);
            }
        }
    }
    out
}

fn to64(z: &[Complex32]) -> Vec<C64> {
    z.iter()
        .map(|z| (f64::from(z.re), f64::from(z.im)))
        .collect()
}

/// Relative L2 error of `got` against `want`; collects a failure above `tol`.
fn check(fails: &mut Vec<String>, id: &str, got: &Array, want: &[C64], tol: f64) {
    let g = super::host_pairs(got);
    if g.len() != want.len() {
        fails.push(format!("{id}: {} values, expected {}", g.len(), want.len()));
        return;
    }
    let (mut num, mut den) = (0.0, 0.0);
    for (a, b) in g.iter().zip(want) {
        num += (a.0 - b.0).powi(2) + (a.1 - b.1).powi(2);
        den += b.0 * b.0 + b.1 * b.1;
    }
    let err = (num / den.max(1e-300)).sqrt();
    if err.is_nan() || err > tol {
        fails.push(format!("{id}: relative L2 error {err:e} > {tol:e}"));
    }
}

/// Checks every case against the reference on a handle of the default device whose FFT
/// schedule `force` sets (forcing the passes under test); the arrays are made on it, so
/// its plans run them.
pub fn forced_passes_match_reference(force: impl FnOnce(&mut kp::config::FftConfig)) {
    let base = super::default_device();
    let mut config = base.config().clone();
    force(&mut config.fft);
    let forced = base.with_config(config);
    let _current = forced.use_device();
    let mut fails = Vec::new();
    let tol = 1e-6;
    // 1-D complex, forward and inverse: single passes (2 to 4096 values) and two passes.
    for (i, n) in [
        2usize,
        4,
        8,
        16,
        32,
        64,
        128,
        512,
        1024,
        2048,
        4096,
        8192,
        1 << 16,
    ]
    .into_iter()
    .enumerate()
    {
        let z = complex(i as u64, n);
        let a = Array::from_slice(&z, &[n]).unwrap();
        let x = to64(&z);
        let f = fft::fft(&a, None, -1, Norm::Backward).unwrap();
        check(&mut fails, &format!("fft {n}"), &f, &dft(&x, 1.0), tol);
        let b = fft::ifft(&a, None, -1, Norm::Ortho).unwrap();
        let s = 1.0 / (n as f64).sqrt();
        let want: Vec<C64> = dft(&x, -1.0).iter().map(|v| (v.0 * s, v.1 * s)).collect();
        check(&mut fails, &format!("ifft ortho {n}"), &b, &want, tol);
    }
    // Batched rows, strided columns (lines per workgroup that do not divide the batch),
    // a transposed view, 2-D.
    for (shape, axis) in [
        (vec![8usize, 4096], 1usize),
        (vec![3, 256], 1),
        (vec![4096, 3], 0),
        (vec![64, 5], 0),
        (vec![2, 32, 7], 1),
    ] {
        let len: usize = shape.iter().product();
        let z = complex(len as u64, len);
        let a = Array::from_slice(&z, &shape).unwrap();
        let f = fft::fft(&a, None, axis as isize, Norm::Backward).unwrap();
        let want = dft_axis(&to64(&z), &shape, axis, 1.0, 1.0);
        check(
            &mut fails,
            &format!("fft {shape:?} axis {axis}"),
            &f,
            &want,
            tol,
        );
    }
    {
        let z = complex(77, 16 * 128);
        let a = Array::from_slice(&z, &[16, 128]).unwrap();
        let t = a.transpose(None).unwrap();
        let f = fft::fft(&t, None, -1, Norm::Forward).unwrap();
        let x = to64(&z);
        let tx: Vec<C64> = (0..128 * 16).map(|k| x[(k % 16) * 128 + k / 16]).collect();
        let want = dft_axis(&tx, &[128, 16], 1, 1.0, 1.0 / 16.0);
        check(&mut fails, "fft of a transposed view", &f, &want, tol);
        let f2 = fft::fft2(&a, None, None, Norm::Backward).unwrap();
        let want2 = dft_axis(
            &dft_axis(&x, &[16, 128], 1, 1.0, 1.0),
            &[16, 128],
            0,
            1.0,
            1.0,
        );
        check(&mut fails, "fft2 16x128", &f2, &want2, tol);
    }
    // Real input, Hermitian input with real output.
    for n in [16usize, 4096] {
        let r = random(n as u64 + 5, n);
        let a = Array::from_slice(&r, &[n]).unwrap();
        let x: Vec<C64> = r.iter().map(|&v| (f64::from(v), 0.0)).collect();
        let f = fft::rfft(&a, None, -1, Norm::Backward).unwrap();
        let want: Vec<C64> = dft(&x, 1.0)[..n / 2 + 1].to_vec();
        check(&mut fails, &format!("rfft {n}"), &f, &want, tol);
        let h = complex(n as u64 + 9, n / 2 + 1);
        let b = Array::from_slice(&h, &[n / 2 + 1]).unwrap();
        let g = fft::irfft(&b, Some(n), -1, Norm::Backward).unwrap();
        let hx = to64(&h);
        let full: Vec<C64> = (0..n)
            .map(|k| match k {
                0 => (hx[0].0, 0.0),
                k if k == n / 2 => (hx[k].0, 0.0),
                k if k < n / 2 => hx[k],
                k => (hx[n - k].0, -hx[n - k].1),
            })
            .collect();
        let want: Vec<C64> = dft(&full, -1.0)
            .iter()
            .map(|v| (v.0 / n as f64, 0.0))
            .collect();
        check(&mut fails, &format!("irfft {n}"), &g, &want, tol);
    }
    // A Bluestein size (inner power-of-two transforms of 64 values) and smooth sizes of
    // workgroup-memory passes (radices 8, 5, 3, 7).
    for n in [17usize, 1000, 840, 2187, 2401] {
        let z = complex(n as u64 + 3, n);
        let a = Array::from_slice(&z, &[n]).unwrap();
        let f = fft::fft(&a, None, -1, Norm::Backward).unwrap();
        check(
            &mut fails,
            &format!("fft {n}"),
            &f,
            &dft(&to64(&z), 1.0),
            5e-6,
        );
    }
    assert!(
        fails.is_empty(),
        "{} failures:\n{}",
        fails.len(),
        fails.join("\n")
    );
}
