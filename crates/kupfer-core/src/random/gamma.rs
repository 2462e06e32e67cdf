//! The CPU emulation of the float32 gamma sampler (`kp_gamma_f32` in
//! shaders/random_float.wgsl), bit for bit: Marsaglia and Tsang's method with the fenced
//! Box-Muller normals ([`super::normal_pair_fenced`]), every product that is added rounded
//! on its own, the fenced logarithm and exponential, and `1 / a`, `1 / sqrt(9 d)` by integer
//! first guesses and fixed Newton steps: what every driver computes.

use super::ziggurat::exp_neg_fenced;
use super::{ln_unit_fenced, normal_pair_fenced, philox4x32_10, stream_word};

/// `kp_recip_det_f32`: 1 / a from the integer guess and four Newton steps.
pub fn recip_det(a: f32) -> f32 {
    let mut y = f32::from_bits(0x7ef3_11c3u32.wrapping_sub(a.to_bits()));
    for _ in 0..4 {
        y = y * (2.0 - a * y);
    }
    y
}

/// `kp_rsqrt_det_f32`: 1 / sqrt(x) from the integer guess and four Newton steps.
pub fn rsqrt_det(x: f32) -> f32 {
    let mut y = f32::from_bits(0x5f37_59dfu32.wrapping_sub(x.to_bits() >> 1));
    let h = 0.5 * x;
    for _ in 0..4 {
        y = y * (1.5 - (h * y) * y);
    }
    y
}

fn u01_open(w: u32) -> f32 {
    ((w >> 8) + 1) as f32 * (1.0 / 16_777_216.0)
}

/// `kp_mt_try_f32`: the candidate `dd v` or -1.
fn mt_try(dd: f32, c: f32, z: f32, w: u32) -> f32 {
    let v0 = c * z + 1.0;
    if v0 <= 0.0 {
        return -1.0;
    }
    let v = v0 * v0 * v0;
    let u = u01_open(w);
    let z2 = z * z;
    if u < 1.0 - (0.0331f64 as f32) * (z2 * z2) {
        return dd * v;
    }
    let bound = 0.5 * z2 + dd * ((1.0 - v) + ln_unit_fenced(v));
    if ln_unit_fenced(u) < bound {
        return dd * v;
    }
    -1.0
}

/// Element `e`'s float32 standard gamma of shape `a` in draw `draw` (the GPU's bits).
pub fn gamma_f32(key: [u32; 2], draw: u64, e: u32, a: f32) -> f32 {
    if a.is_nan() || a <= 0.0 {
        return if a.is_nan() { a } else { 0.0 };
    }
    let boost = a < 1.0;
    let s = if boost { a + 1.0 } else { a };
    let dd = s - (1.0f64 / 3.0) as f32;
    let c = rsqrt_det(9.0 * dd);
    let mut x = dd;
    for j in 1..=16u32 {
        let b = philox4x32_10([e, j, draw as u32, (draw >> 32) as u32], key);
        let z = normal_pair_fenced(b[0], b[1]);
        let g0 = mt_try(dd, c, z[0], b[2]);
        if g0 >= 0.0 {
            x = g0;
            break;
        }
        let g1 = mt_try(dd, c, z[1], b[3]);
        if g1 >= 0.0 {
            x = g1;
            break;
        }
    }
    if boost {
        let w0 = stream_word(key, draw, e, 0);
        let h = -ln_unit_fenced(u01_open(w0)) * recip_det(a);
        x *= exp_neg_fenced(h);
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newton_reciprocals_are_within_two_ulps() {
        for k in 1..2000 {
            let a = k as f32 * 0.013 + 1e-3;
            let r = recip_det(a);
            assert!(
                (f64::from(r) * f64::from(a) - 1.0).abs() < 2.5e-7,
                "1/{a}: {r}"
            );
            let q = rsqrt_det(a);
            let want = 1.0 / f64::from(a).sqrt();
            assert!(
                (f64::from(q) - want).abs() < 2.5e-7 * want,
                "rsqrt {a}: {q}"
            );
        }
    }

    #[test]
    fn emulated_gammas_have_the_right_mean() {
        for a in [0.3f32, 1.0, 4.5, 1000.0] {
            let n = 20_000u32;
            let m: f64 = (0..n)
                .map(|e| f64::from(gamma_f32([1, 2], 3, e, a)))
                .sum::<f64>()
                / f64::from(n);
            assert!(
                (m - f64::from(a)).abs() < 0.05 * f64::from(a).max(1.0),
                "{a}: {m}"
            );
        }
    }
}
