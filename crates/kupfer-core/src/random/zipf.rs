//! The CPU emulation of the deterministic float32 Zipf sampler (`kp_det_zipf_f32` in
//! shaders/random_det.wgsl), bit for bit: Devroye's rejection method (as NumPy) with the
//! fenced exp, expm1 and log1p and deterministic quotients; two words an attempt from the
//! element's own blocks 1..=32, then 1.

use super::poisson::u01_mid;
use super::transforms::{div_det, expm1_det, log1p_det};
use super::transforms64::u01_mid as u01_mid64;
use super::transforms64::{div_d64, exp_d64, expm1_d64, log1p_d64};
use super::ziggurat::exp_det_f32;
use super::{lit, philox4x32_10};

/// Element `e`'s float32 Zipf count of exponent `a` in draw `draw` (the GPU's bits).
pub fn zipf_f32(key: [u32; 2], draw: u64, e: u32, a: f32) -> f32 {
    if a.is_nan() || a >= 1025.0 {
        return 1.0;
    }
    let am1 = a - 1.0;
    let t = am1 * lit(std::f64::consts::LN_2);
    let b = exp_det_f32(t);
    let bm1 = expm1_det(t);
    let span = -expm1_det(-am1 * lit(63.0 * std::f64::consts::LN_2));
    for j in 1..=32u32 {
        let blk = philox4x32_10([e, j, draw as u32, (draw >> 32) as u32], key);
        for h in 0..2 {
            let u = u01_mid(blk[2 * h]);
            let v = u01_mid(blk[2 * h + 1]);
            let lu = -log1p_det(-(u * span));
            let x = exp_det_f32(div_det(lu, am1)).floor();
            if !(1.0..9_223_372_036_854_775_808.0).contains(&x) {
                continue;
            }
            if x == 1.0 {
                return x;
            }
            let t1 = expm1_det(am1 * log1p_det(div_det(1.0, x)));
            if div_det((v * x) * t1, bm1) <= div_det(1.0 + t1, b) {
                return x;
            }
        }
    }
    1.0
}

/// Element `e`'s float64 Zipf count of exponent `a` in draw `draw` (`kp_det_zipf_f64`: the
/// GPU's bits): [`zipf_f32`] in float64 with the [`super::transforms64`] helpers, one attempt
/// per block (the open 52-bit uniforms of words x, y and z, w of blocks 1..=64), then 1.
pub fn zipf_f64(key: [u32; 2], draw: u64, e: u32, a: f64) -> f64 {
    if a.is_nan() || a >= 1025.0 {
        return 1.0;
    }
    let am1 = a - 1.0;
    let t = am1 * std::f64::consts::LN_2;
    let b = exp_d64(t);
    let bm1 = expm1_d64(t);
    let span = -expm1_d64(-am1 * 43.668_272_375_276_55);
    for j in 1..=64u32 {
        let blk = philox4x32_10([e, j, draw as u32, (draw >> 32) as u32], key);
        let u = u01_mid64(blk[0], blk[1]);
        let v = u01_mid64(blk[2], blk[3]);
        let lu = -log1p_d64(-(u * span));
        let x = exp_d64(div_d64(lu, am1)).floor();
        if !(1.0..9_223_372_036_854_775_808.0).contains(&x) {
            continue;
        }
        if x == 1.0 {
            return x;
        }
        let t1 = expm1_d64(am1 * log1p_d64(div_d64(1.0, x)));
        if div_d64((v * x) * t1, bm1) <= div_d64(1.0 + t1, b) {
            return x;
        }
    }
    1.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emulated_zipf_counts_follow_the_law_at_one_and_two() {
        // P(X = 1) = 1 / zeta(a), P(X = 2) = 2^-a / zeta(a); zeta(2) = pi^2 / 6.
        let n = 40_000u32;
        let v: Vec<f32> = (0..n).map(|e| zipf_f32([1, 2], 3, e, 2.0)).collect();
        let zeta = std::f64::consts::PI.powi(2) / 6.0;
        for (k, p) in [(1.0f32, 1.0 / zeta), (2.0, 0.25 / zeta)] {
            let f = v.iter().filter(|&&x| x == k).count() as f64 / f64::from(n);
            assert!((f - p).abs() < 0.01, "P({k}) = {f}, want {p}");
        }
        assert!(v.iter().all(|&x| x >= 1.0 && x.fract() == 0.0));
        assert_eq!(zipf_f32([1, 2], 3, 0, 2000.0), 1.0);
    }

    #[test]
    fn emulated_float64_zipf_counts_follow_the_law_at_one_and_two() {
        let n = 40_000u32;
        let v: Vec<f64> = (0..n).map(|e| zipf_f64([1, 2], 3, e, 2.0)).collect();
        let zeta = std::f64::consts::PI.powi(2) / 6.0;
        for (k, p) in [(1.0f64, 1.0 / zeta), (2.0, 0.25 / zeta)] {
            let f = v.iter().filter(|&&x| x == k).count() as f64 / f64::from(n);
            assert!((f - p).abs() < 0.01, "P({k}) = {f}, want {p}");
        }
        assert!(v.iter().all(|&x| x >= 1.0 && x.fract() == 0.0));
        assert_eq!(zipf_f64([1, 2], 3, 0, 2000.0), 1.0);
        assert_eq!(zipf_f64([1, 2], 3, 0, f64::INFINITY), 1.0);
        // a near 1: counts up to 2^63, never beyond.
        assert!((0..2000).all(|e| zipf_f64([1, 2], 3, e, 1.0001) < 9.3e18));
    }
}
