//! The CPU emulation of the deterministic float32 Poisson sampler (`kp_det_poisson_f32` in
//! shaders/random_det.wgsl), bit for bit: inversion of word 0 below lam = 10, Hörmann's PTRS
//! above (two words an attempt from the element's own blocks 1..=16, then `floor(lam)`), with
//! Loader's log-probabilities; every product that is added rounded on its own, quotients by
//! [`div_det`], the fenced logarithm and exponential and the correctly rounded root.

use super::gamma::recip_det;
use super::transforms::div_det;
use super::ziggurat::exp_det_f32;
use super::{lit, ln_unit_fenced, philox4x32_10, stream_word, u01_f32};

/// log(k!) for k < 16 (`kp_logfact_small_f32`'s table, as WGSL rounds its literals).
pub(super) fn logfact_small(k: u32) -> f32 {
    // The WGSL's literals as written (ln 2 among them).
    #[allow(clippy::approx_constant)]
    const T: [f64; 16] = [
        0.0,
        0.0,
        0.693_147_180_559_945,
        1.791_759_469_228_055_4,
        3.178_053_830_347_945,
        4.787_491_742_782_047,
        6.579_251_212_010_102,
        8.525_161_361_065_415,
        10.604_602_902_745_249,
        12.801_827_480_081_467,
        15.104_412_573_075_514,
        17.502_307_845_873_887,
        19.987_214_495_661_885,
        22.552_163_853_123_42,
        25.191_221_182_738_683,
        27.899_271_383_840_89,
    ];
    lit(T[k.min(15) as usize])
}

/// `kp_det_stirlerr_f32` (k >= 16).
pub(super) fn stirlerr(k: f32) -> f32 {
    let k2 = k * k;
    let mut t = div_det(lit(0.000_841_750_841_750_841_7), k2);
    for c in [
        0.000_595_238_095_238_095_3,
        0.000_793_650_793_650_793_7,
        0.002_777_777_777_777_778,
    ] {
        t = div_det(lit(c) - t, k2);
    }
    div_det(lit(0.083_333_333_333_333_33) - t, k)
}

/// `kp_det_bd0_f32`: x log(x / m) + m - x.
pub(super) fn bd0(x: f32, m: f32) -> f32 {
    if (x - m).abs() < lit(0.1) * (x + m) {
        let v = div_det(x - m, x + m);
        let v2 = v * v;
        let mut s = (x - m) * v;
        let mut ej = (2.0 * x) * v;
        for j in 1..40u32 {
            ej *= v2;
            let s1 = s + div_det(ej, (2 * j + 1) as f32);
            if s1 == s {
                break;
            }
            s = s1;
        }
        return s;
    }
    (x * ln_unit_fenced(div_det(x, m)) + m) - x
}

/// `kp_det_poisson_logpmf_f32`.
fn logpmf(k: f32, lam: f32, loglam: f32) -> f32 {
    if k < 16.0 {
        return (-lam + k * loglam) - logfact_small(k as u32);
    }
    (-stirlerr(k) - bd0(k, lam)) - lit(0.5) * ln_unit_fenced(lit(std::f64::consts::TAU) * k)
}

/// `kp_u01_mid_f32`.
pub(super) fn u01_mid(w: u32) -> f32 {
    ((w >> 9) as f32 + 0.5) * f32::EPSILON
}

/// Element `e`'s float32 Poisson count of mean `lam` in draw `draw` (the GPU's bits).
pub fn poisson_f32(key: [u32; 2], draw: u64, e: u32, lam: f32) -> f32 {
    if lam.is_nan() || lam <= 0.0 {
        return 0.0;
    }
    if lam < 10.0 {
        let u = u01_f32(stream_word(key, draw, e, 0));
        let mut p = exp_det_f32(-lam);
        let mut s = p;
        let mut n = 0.0f32;
        for _ in 0..256 {
            if u < s {
                break;
            }
            n += 1.0;
            p = (p * lam) * recip_det(n);
            let s1 = s + p;
            if s1 == s && n > lam {
                break;
            }
            s = s1;
        }
        return n;
    }
    let slam = lam.sqrt();
    let loglam = ln_unit_fenced(lam);
    let b = lit(0.931) + lit(2.53) * slam;
    let a = lit(-0.059) + lit(0.02483) * b;
    let ln_invalpha = ln_unit_fenced(lit(1.1239) + div_det(lit(1.1328), b - lit(3.4)));
    let vr = lit(0.9277) - div_det(lit(3.6224), b - 2.0);
    for j in 1..=16u32 {
        let blk = philox4x32_10([e, j, draw as u32, (draw >> 32) as u32], key);
        for h in 0..2 {
            let uu = u01_mid(blk[2 * h]) - 0.5;
            let v = u01_mid(blk[2 * h + 1]);
            let us = 0.5 - uu.abs();
            let n = (((div_det(2.0 * a, us) + b) * uu + lam) + lit(0.43)).floor();
            if us >= lit(0.07) && v <= vr {
                return n;
            }
            if n < 0.0 || (us < lit(0.013) && v > us) {
                continue;
            }
            let lhs = (ln_unit_fenced(v) + ln_invalpha) - ln_unit_fenced(div_det(a, us * us) + b);
            if lhs <= logpmf(n, lam, loglam) {
                return n;
            }
        }
    }
    lam.floor()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emulated_poisson_counts_have_the_right_mean_and_variance() {
        for lam in [0.5f32, 3.0, 9.99, 10.0, 42.0, 1e4] {
            let n = 20_000u32;
            let v: Vec<f64> = (0..n)
                .map(|e| f64::from(poisson_f32([1, 2], 3, e, lam)))
                .collect();
            let m = v.iter().sum::<f64>() / f64::from(n);
            let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / f64::from(n);
            let l = f64::from(lam);
            let tol = 5.0 * (l / f64::from(n)).sqrt();
            assert!((m - l).abs() < tol, "{lam}: mean {m}");
            assert!((var - l).abs() < 0.05 * l + 0.05, "{lam}: variance {var}");
        }
    }
}
