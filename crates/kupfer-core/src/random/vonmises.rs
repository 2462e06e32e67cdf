//! The CPU emulation of the deterministic float32 von Mises sampler (`kp_det_vonmises_f32` in
//! shaders/random_det.wgsl), bit for bit: Best and Fisher's rejection method (as NumPy) with
//! the fenced turn cosine, logarithm and arccosine, quotients by [`div_det`], then the shift
//! by `mu` and NumPy's wrap into [-pi, pi].

use super::transforms::div_det;
use super::transforms64::u01_mid as u01_mid64;
use super::transforms64::{div_d64, ln_d64, normal_pair, sincos_turn, sqrt_d64};
use super::{lit, ln_unit_fenced, normal_pair_fenced, philox4x32_10, sincos_turn24_fenced};
use super::{poisson::u01_mid, stream_word};

/// libm_f32's arcsine fit coefficients `KPL32_B0..B5` (bits).
const B: [u32; 6] = [
    0x3e2a_aaa6,
    0x3d99_9c56,
    0x3d36_53aa,
    0x3d02_6973,
    0x3c6a_9180,
    0x3d1a_62a6,
];
/// pi/2 and pi as float32 plus their remainders (`KPL32_PIO2_H`, `_L`, `KPL32_PI_H`, `_L`).
const PIO2: [u32; 2] = [0x3fc9_0fdb, 0xb33b_bd2e];
const PI: [u32; 2] = [0x4049_0fdb, 0xb3bb_bd2e];

/// `kp_det_asin_p_f32`: z P(z).
fn asin_p(z: f32) -> f32 {
    let b = |i: usize| f32::from_bits(B[i]);
    let mut p = z * b(5) + b(4);
    for i in (0..4).rev() {
        p = z * p + b(i);
    }
    z * p
}

/// `kp_det_arccos_f32`: arccos(x) for x in [-1, 1] (a few ulp).
pub fn arccos_det(x: f32) -> f32 {
    let a = x.abs();
    if a <= 0.5 {
        let t = x + x * asin_p(x * x);
        return (f32::from_bits(PIO2[0]) - t) + f32::from_bits(PIO2[1]);
    }
    let z = 0.5 * (1.0 - a);
    let s = z.sqrt();
    let h = 2.0 * (s + s * asin_p(z));
    if x > 0.0 {
        return h;
    }
    (f32::from_bits(PI[0]) - h) + f32::from_bits(PI[1])
}

/// Best and Fisher's angle around 0 of element `e` (the WGSL's `x`).
fn around_zero(key: [u32; 2], draw: u64, e: u32, w0: u32, kappa: f32) -> f32 {
    if kappa.is_nan() {
        return kappa;
    }
    let pi = lit(std::f64::consts::PI);
    if kappa < lit(1e-8) {
        return pi * (2.0 * u01_mid(w0) - 1.0);
    }
    if kappa > lit(1e6) {
        let z = normal_pair_fenced(stream_word(key, draw, e, 1), stream_word(key, draw, e, 2))[0];
        return div_det(z, kappa.sqrt());
    }
    let s = if kappa < lit(1e-5) {
        div_det(1.0, kappa) + kappa
    } else {
        let r = 1.0 + (1.0 + (4.0 * kappa) * kappa).sqrt();
        let rho = div_det(r - (2.0 * r).sqrt(), 2.0 * kappa);
        div_det(1.0 + rho * rho, 2.0 * rho)
    };
    let mut w = 0.0f32;
    'attempts: for j in 1..=16u32 {
        let blk = philox4x32_10([e, j, draw as u32, (draw >> 32) as u32], key);
        for h in 0..2 {
            let z = sincos_turn24_fenced(blk[2 * h] >> 9)[0];
            w = div_det(1.0 + s * z, s + z).clamp(-1.0, 1.0);
            let y = kappa * (s - w);
            let v = u01_mid(blk[2 * h + 1]);
            if y * (2.0 - y) - v >= 0.0 || (ln_unit_fenced(div_det(y, v)) + 1.0) - y >= 0.0 {
                break 'attempts;
            }
        }
    }
    let angle = arccos_det(w);
    if w0 < 0x8000_0000 {
        -angle
    } else {
        angle
    }
}

/// Element `e`'s float32 von Mises angle of mode `mu` and concentration `kappa` in draw
/// `draw` (the GPU's bits).
pub fn vonmises_f32(key: [u32; 2], draw: u64, e: u32, mu: f32, kappa: f32) -> f32 {
    let w0 = stream_word(key, draw, e, 0);
    let r = around_zero(key, draw, e, w0, kappa) + mu;
    if !r.is_finite() {
        return f32::from_bits(r.to_bits() | 0x7fc0_0000);
    }
    let pi = lit(std::f64::consts::PI);
    let tau = lit(std::f64::consts::TAU);
    let m = r.abs() + pi;
    let q = div_det(m, tau).floor();
    let wrapped = (m - q * tau) - pi;
    if r < 0.0 {
        -wrapped
    } else {
        wrapped
    }
}

/// `kp_d64_asin_p`'s Taylor coefficients of the arcsine, `(2n)! / (4^n n!^2 (2n + 1))` for
/// n = 1..=24, rounded to float64.
#[allow(clippy::excessive_precision)]
const ASIN64: [f64; 24] = [
    0.16666666666666666,
    0.075,
    0.044642857142857144,
    0.030381944444444444,
    0.022372159090909092,
    0.017352764423076924,
    0.01396484375,
    0.011551800896139705,
    0.009761609529194078,
    0.008390335809616815,
    0.0073125258735988454,
    0.006447210311889649,
    0.005740037670841924,
    0.005153309682319905,
    0.004660143486915096,
    0.004240907093679363,
    0.003880964558837669,
    0.0035692053938259347,
    0.003297059503473485,
    0.0030578216492580306,
    0.002846178401108942,
    0.00265787063820729,
    0.0024894486782468836,
    0.002338091892111975,
];

/// `kp_d64_asin_p`: asin(x) / x - 1 as z P(z) for z = x^2 <= 1/4.
fn asin_p64(z: f64) -> f64 {
    let mut p = z * ASIN64[23] + ASIN64[22];
    for c in ASIN64[..22].iter().rev() {
        p = z * p + c;
    }
    z * p
}

/// `kp_d64_arccos`: arccos(x) for x in [-1, 1] as every driver computes it (a few ulp).
pub fn arccos_d64(x: f64) -> f64 {
    let a = x.abs();
    if a <= 0.5 {
        let t = x + x * asin_p64(x * x);
        return (std::f64::consts::FRAC_PI_2 - t) + 6.123_233_995_736_766e-17;
    }
    let z = 0.5 * (1.0 - a);
    let s = sqrt_d64(z);
    let h = 2.0 * (s + s * asin_p64(z));
    if x > 0.0 {
        return h;
    }
    (std::f64::consts::PI - h) + 1.224_646_799_147_353_2e-16
}

/// Element `e`'s float64 von Mises angle of mode `mu` and concentration `kappa` in draw
/// `draw` (`kp_det_vonmises_f64`: the GPU's bits; NaN as the one quiet NaN).
pub fn vonmises_f64(key: [u32; 2], draw: u64, e: u32, mu: f64, kappa: f64) -> f64 {
    use std::f64::consts::{PI, TAU};
    let w0 = stream_word(key, draw, e, 0);
    let block = |j: u32| philox4x32_10([e, j, draw as u32, (draw >> 32) as u32], key);
    let x = if kappa.is_nan() {
        kappa
    } else if kappa < 1e-8 {
        PI * (2.0 * u01_mid64(w0, block(1)[0]) - 1.0)
    } else if kappa > 1e6 {
        div_d64(normal_pair(block(1))[0], sqrt_d64(kappa))
    } else {
        let s = if kappa < 1e-5 {
            div_d64(1.0, kappa) + kappa
        } else {
            let r = 1.0 + sqrt_d64(1.0 + (4.0 * kappa) * kappa);
            let rho = div_d64(r - sqrt_d64(2.0 * r), 2.0 * kappa);
            div_d64(1.0 + rho * rho, 2.0 * rho)
        };
        let mut w = 0.0f64;
        for j in 1..=32u32 {
            let blk = block(j);
            let z = sincos_turn(blk[0], blk[1])[0];
            w = div_d64(1.0 + s * z, s + z).clamp(-1.0, 1.0);
            let y = kappa * (s - w);
            let v = u01_mid64(blk[2], blk[3]);
            if y * (2.0 - y) - v >= 0.0 || (ln_d64(div_d64(y, v)) + 1.0) - y >= 0.0 {
                break;
            }
        }
        let angle = arccos_d64(w);
        if w0 < 0x8000_0000 {
            -angle
        } else {
            angle
        }
    };
    let r = x + mu;
    if !r.is_finite() {
        return f64::from_bits(0x7ff8_0000_0000_0000);
    }
    let m = r.abs() + PI;
    let q = div_d64(m, TAU).floor();
    let wrapped = (m - q * TAU) - PI;
    if r < 0.0 {
        -wrapped
    } else {
        wrapped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fenced_arccos_is_within_a_few_ulps() {
        for i in 0..=20_000 {
            let x = i as f32 / 10_000.0 - 1.0;
            let got = f64::from(arccos_det(x));
            let want = f64::from(x).acos();
            let ulp = f64::from(f32::EPSILON) * want.max(1e-30);
            assert!(
                (got - want).abs() <= 3.0 * ulp + 1e-45,
                "acos({x}): {got} {want}"
            );
        }
    }

    #[test]
    fn the_float64_arccos_is_within_a_few_ulps() {
        for i in 0..=200_000 {
            let x = i as f64 / 100_000.0 - 1.0;
            for x in [x, x * 1e-9, 1.0 - i as f64 * 1e-15] {
                let want = x.acos();
                let ulp = f64::EPSILON * want;
                assert!(
                    (arccos_d64(x) - want).abs() <= 2.0 * ulp,
                    "acos({x}): {} {want}",
                    arccos_d64(x)
                );
            }
        }
        assert_eq!(arccos_d64(1.0), 0.0);
        assert_eq!(arccos_d64(-1.0), std::f64::consts::PI);
    }

    #[test]
    fn emulated_float64_angles_are_in_range_and_centred() {
        for kappa in [0.0f64, 1e-9, 1e-6, 0.5, 4.0, 1e3, 1e7] {
            let n = 10_000u32;
            let v: Vec<f64> = (0..n)
                .map(|e| vonmises_f64([1, 2], 3, e, 0.5, kappa))
                .collect();
            assert!(v.iter().all(|x| x.abs() <= std::f64::consts::PI), "{kappa}");
            if kappa >= 4.0 {
                let m = v.iter().sum::<f64>() / f64::from(n);
                assert!((m - 0.5).abs() < 0.05, "{kappa}: mean {m}");
            }
        }
        assert!(vonmises_f64([1, 2], 3, 0, f64::NAN, 1.0).is_nan());
        assert!(vonmises_f64([1, 2], 3, 0, 0.0, f64::NAN).is_nan());
    }

    #[test]
    fn emulated_angles_are_in_range_and_centred() {
        for kappa in [0.0f32, 1e-6, 0.5, 4.0, 1e3, 1e7] {
            let n = 10_000u32;
            let v: Vec<f32> = (0..n)
                .map(|e| vonmises_f32([1, 2], 3, e, 0.5, kappa))
                .collect();
            assert!(v.iter().all(|x| x.abs() <= std::f32::consts::PI), "{kappa}");
            if kappa >= 4.0 {
                let m = v.iter().map(|&x| f64::from(x)).sum::<f64>() / f64::from(n);
                assert!((m - 0.5).abs() < 0.05, "{kappa}: mean {m}");
            }
        }
    }
}
