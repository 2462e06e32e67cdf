//! The CPU emulation of the deterministic float32 binomial sampler (`kp_det_binomial_f32` in
//! shaders/random_det.wgsl), bit for bit: inversion of word 0 below n p = 10, Hörmann's BTRS
//! above (two words an attempt from the element's own blocks 1..=16, then the mode), with
//! Loader's log-probabilities; every product that is added rounded on its own (and the sums
//! the WGSL fences against regrouping), quotients by [`div_det`], the fenced logarithm and
//! exponential and the correctly rounded root.

use super::poisson::{bd0, logfact_small, stirlerr, u01_mid};
use super::transforms::{div_det, log1p_det};
use super::ziggurat::exp_det_f32;
use super::{lit, ln_unit_fenced, philox4x32_10, stream_word, u01_f32};

/// `kp_det_stirlerr_any_f32`: Loader's stirlerr(k) for k >= 1.
fn stirlerr_any(k: f32) -> f32 {
    if k < 16.0 {
        let t = (k + 0.5) * ln_unit_fenced(k);
        return ((logfact_small(k as u32) - t) + k) - lit(0.918_938_533_204_672_7);
    }
    stirlerr(k)
}

/// `kp_det_binomial_logpmf_f32`: log of the binomial(n, p) probability of k (q = 1 - p).
pub(super) fn logpmf(k: f32, n: f32, p: f32, q: f32) -> f32 {
    if k == 0.0 {
        return n * log1p_det(-p);
    }
    if k == n {
        return n * ln_unit_fenced(p);
    }
    let lc = (((stirlerr_any(n) - stirlerr_any(k)) - stirlerr_any(n - k)) - bd0(k, n * p))
        - bd0(n - k, n * q);
    let lf = (lit(1.837_877_066_409_345_3) + ln_unit_fenced(k)) + log1p_det(-div_det(k, n));
    lc - lit(0.5) * lf
}

/// `kp_det_binomial_low_f32`: binomial(n, p) for p <= 1/2.
fn binomial_low(key: [u32; 2], draw: u64, e: u32, n: f32, p: f32) -> f32 {
    let q = 1.0 - p;
    let np = n * p;
    if np < 10.0 {
        let s = div_det(p, q);
        let a = (n + 1.0) * s;
        let mut r = exp_det_f32(n * log1p_det(-p));
        let mut u = u01_f32(stream_word(key, draw, e, 0));
        let mut x = 0.0f32;
        for _ in 0..256 {
            if u <= r || x >= n {
                break;
            }
            u -= r;
            x += 1.0;
            r *= div_det(a, x) - s;
        }
        return x.min(n);
    }
    let spq = (np * q).sqrt();
    let b = lit(1.15) + lit(2.53) * spq;
    let a = (lit(-0.0873) + lit(0.0248) * b) + lit(0.01) * p;
    let c = np + 0.5;
    let vr = lit(0.92) - div_det(lit(4.2), b);
    let alpha = (lit(2.83) + div_det(lit(5.1), b)) * spq;
    let m = ((n + 1.0) * p).floor();
    let logm = logpmf(m, n, p, q);
    for j in 1..=16u32 {
        let blk = philox4x32_10([e, j, draw as u32, (draw >> 32) as u32], key);
        for h in 0..2 {
            let u = u01_mid(blk[2 * h]) - 0.5;
            let v = u01_mid(blk[2 * h + 1]);
            let us = 0.5 - u.abs();
            let x = ((div_det(2.0 * a, us) + b) * u + c).floor();
            if x < 0.0 || x > n {
                continue;
            }
            if us >= lit(0.07) && v <= vr {
                return x;
            }
            let den = div_det(a, us * us) + b;
            let lhs = ln_unit_fenced(div_det(v * alpha, den));
            if lhs <= logpmf(x, n, p, q) - logm {
                return x;
            }
        }
    }
    m
}

/// Element `e`'s float32 binomial count of `n` trials with probability `p` in draw `draw`
/// (the GPU's bits).
pub fn binomial_f32(key: [u32; 2], draw: u64, e: u32, n: f32, p: f32) -> f32 {
    if n.is_nan() || n < 1.0 || p.is_nan() || p <= 0.0 {
        return 0.0;
    }
    if p >= 1.0 {
        return n;
    }
    let flip = p > 0.5;
    let x = binomial_low(key, draw, e, n, if flip { 1.0 - p } else { p });
    if flip {
        n - x
    } else {
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emulated_binomial_counts_have_the_right_mean_and_variance() {
        for (n, p) in [(10.0f32, 0.3f32), (1000.0, 0.5), (100.0, 0.95), (1e6, 1e-3)] {
            let draws = 20_000u32;
            let v: Vec<f64> = (0..draws)
                .map(|e| f64::from(binomial_f32([1, 2], 3, e, n, p)))
                .collect();
            let m = v.iter().sum::<f64>() / f64::from(draws);
            let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / f64::from(draws);
            let (mean, variance) = (f64::from(n * p), f64::from(n * p * (1.0 - p)));
            assert!(
                (m - mean).abs() < 5.0 * (variance / f64::from(draws)).sqrt(),
                "{n} {p}: mean {m}"
            );
            assert!(
                (var - variance).abs() < 0.06 * variance,
                "{n} {p}: var {var}"
            );
        }
    }
}
