//! Loop-shaped cases of `shared/bench/cupy_anchor_wave2.py`, section `loops`: programs that
//! read a scalar back every iteration, so each iteration pays one round trip. Timed by the
//! wall clock (the median of 5 after the usual warm-up; the anchor's `wall` warms up once),
//! with a synchronize after the program.

use super::{wall_time, Timing};
use crate::common::HostRng;
use crate::error::CliResult;
use kupfer as kp;
use kupfer::{Array, DType};

use super::cases::Measurement;

/// The anchor's repetitions of a loop case.
const LOOP_REPS: usize = 5;

/// Runs the loop case `name`.
pub fn run(name: &str, t: &Timing) -> CliResult<Measurement> {
    match name {
        "loop_cg_dense_1024_200it" => cg_dense(t, 1024, 200),
        "loop_mandelbrot_1024sq_100it" => mandelbrot(t, 1024, 1024, 100),
        other => unreachable!("{other} is not a loop case"),
    }
}

/// 200 conjugate-gradient iterations on a dense SPD system `A = R Rᵀ + n I`, two scalar
/// read-backs an iteration (`p·Ap` and `r·r`), as the anchor's `cg_dense`.
fn cg_dense(t: &Timing, n: usize, iters: usize) -> CliResult<Measurement> {
    let dev = &t.device;
    let _guard = dev.use_device();
    let r_host = HostRng::new(1).uniform_f32(n * n);
    let r = Array::from_slice_on(dev, &r_host, &[n, n])?;
    let a = kp::add(
        kp::matmul(&r, &r.t()?)?,
        kp::multiply(kp::eye(n, None, 0, Some(DType::F32))?, n as f64)?,
    )?;
    a.eval()?;
    let dot = |u: &Array, v: &Array| -> kp::Result<f64> { Ok(kp::dot(u, v)?.item()?.as_f64()) };
    let solve = || -> kp::Result<Array> {
        let b = kp::ones(&[n], Some(DType::F32))?;
        let mut x = kp::zeros(&[n], Some(DType::F32))?;
        let mut r = kp::subtract(&b, kp::matmul(&a, &x)?)?;
        r.eval()?;
        let mut p = r.clone();
        let mut rs = dot(&r, &r)?;
        for _ in 0..iters {
            let ap = kp::matmul(&a, &p)?;
            ap.eval()?;
            let alpha = rs / dot(&p, &ap)?;
            x = kp::add(&x, kp::multiply(&p, alpha)?)?;
            r = kp::subtract(&r, kp::multiply(&ap, alpha)?)?;
            r.eval()?;
            let rs_new = dot(&r, &r)?;
            if rs_new.sqrt() < 1e-30 {
                break;
            }
            p = kp::add(&r, kp::multiply(&p, rs_new / rs)?)?;
            p.eval()?;
            rs = rs_new;
        }
        x.eval()?;
        Ok(x)
    };
    let ms = wall_time(t, LOOP_REPS, solve)?;
    Ok(Measurement::new(ms))
}

/// The seed's `mandelbrot_cupy` as the anchor runs it: complex64, the masked update
/// `Z[mask] = Z[mask] * Z[mask] + C[mask]` (one fused kernel in kupfer), escape counts and the
/// mask updated through the newly escaped points, and `mask.any()` read back every iteration.
fn mandelbrot(t: &Timing, width: usize, height: usize, max_iter: usize) -> CliResult<Measurement> {
    let dev = &t.device;
    let _guard = dev.use_device();
    let run = || -> kp::Result<Array> {
        let x = kp::linspace(-2.0, 1.0, width, true, Some(DType::F32))?;
        let y = kp::linspace(-1.5, 1.5, height, true, Some(DType::F32))?;
        let grid = kp::meshgrid(&[x, y], "xy")?;
        let c = kp::add(
            &grid[0],
            kp::multiply(kp::Scalar::Complex { re: 0.0, im: 1.0 }, &grid[1])?,
        )?;
        c.eval()?;
        let z = kp::zeros(c.shape(), Some(DType::Complex64))?;
        z.eval()?;
        let counts = kp::zeros(c.shape(), Some(DType::I32))?;
        counts.eval()?;
        let mask = kp::ones(c.shape(), Some(DType::Bool))?;
        mask.eval()?;
        for i in 0..max_iter {
            z.update_masked(&mask, |m| Ok(&m.get(&z)? * &m.get(&z)? + &m.get(&c)?))?;
            let escaped = kp::greater(kp::abs(&z)?, 2.0)?;
            let newly = kp::logical_and(&escaped, &mask)?;
            newly.eval()?;
            counts.set_mask(&newly, i as i64)?;
            mask.set_mask(&newly, false)?;
            if kp::any(&mask, kp::Axis::All, false)?.item()?.as_f64() == 0.0 {
                break;
            }
        }
        Ok(counts)
    };
    let ms = wall_time(t, LOOP_REPS, run)?;
    Ok(Measurement::new(ms))
}
