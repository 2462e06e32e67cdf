//! The CPU emulation of the deterministic float32 hypergeometric sampler
//! (`kp_det_hypergeometric_f32` in shaders/random_det.wgsl), bit for bit: NumPy's urn draws
//! in exact integers when the sample or its complement is below 10 (Lemire's bounded words
//! from the element's own blocks 1..=32), else Stadlober's HRUA with fenced arithmetic,
//! deterministic quotients and roots and Loader's log-probabilities ([`super::binomial`]).

use super::binomial::logpmf;
use super::poisson::u01_mid;
use super::transforms::div_det;
use super::transforms64::u01_mid as u01_mid64;
use super::transforms64::{binomial_logpmf, div_d64, ln_d64, sqrt_d64};
use super::{lit, ln_unit_fenced, philox4x32_10};

/// The urn draws of `kp_hypergeometric_f32` (exact: integers in float32).
fn urn(key: [u32; 2], draw: u64, e: u32, good: f32, total: f32, sample: f32) -> f32 {
    let flip = sample > (total * 0.5).floor();
    let mut left = if flip { total - sample } else { sample };
    let (mut rt, mut rg) = (total, good);
    let mut blk = [0u32; 4];
    for c in 0..137u32 {
        if !(left > 0.0 && rg > 0.0 && rt > rg) {
            break;
        }
        if c & 3 == 0 {
            let j = 1 + (c >> 2).min(31);
            blk = philox4x32_10([e, j, draw as u32, (draw >> 32) as u32], key);
        }
        let w = blk[(c & 3) as usize];
        let r = rt as u32;
        let low = w.wrapping_mul(r);
        if c < 128 && low < r && low < r.wrapping_neg() % r {
            continue;
        }
        if ((u64::from(w) * u64::from(r)) >> 32) < u64::from(rg as u32) {
            rg -= 1.0;
        }
        rt -= 1.0;
        left -= 1.0;
    }
    if rt == rg {
        rg -= left;
    }
    if flip {
        rg
    } else {
        good - rg
    }
}

/// `kp_det_hyper_logw_f32`.
fn logw(x: f32, mn: f32, mx: f32, cs: f32, p: f32, q: f32) -> f32 {
    logpmf(x, mn, p, q) + logpmf(cs - x, mx, p, q)
}

/// Element `e`'s float32 hypergeometric count (good items among `sample` drawn from `good`
/// good and `bad` bad ones) in draw `draw` (the GPU's bits).
pub fn hypergeometric_f32(
    key: [u32; 2],
    draw: u64,
    e: u32,
    good: f32,
    bad: f32,
    sample: f32,
) -> f32 {
    let total = good + bad;
    if sample < 10.0 || sample > total - 10.0 {
        return urn(key, draw, e, good, total, sample);
    }
    let cs = sample.min(total - sample);
    let (mn, mx) = (good.min(bad), good.max(bad));
    let p = div_det(mn, total);
    let q = div_det(mx, total);
    let a = cs * p + 0.5;
    let var_num = (((total - cs) * cs) * p) * q;
    let c = (div_det(var_num, total - 1.0) + 0.5).sqrt();
    let h = lit(1.715_527_769_921_413_5) * c + lit(0.898_916_162_058_898_8);
    let bound = (cs.min(mn) + 1.0).min((a + 16.0 * c).floor());
    let pw = div_det(cs, total);
    let qw = div_det(total - cs, total);
    let mut m = div_det((cs + 1.0) * (mn + 1.0), total + 2.0).floor();
    let mut g = logw(m, mn, mx, cs, pw, qw);
    for i in 0..2 {
        let m2 = (m - 1.0) + 2.0 * i as f32;
        if m2 >= 0.0 && m2 <= cs.min(mn) && m2 >= cs - mx {
            let g2 = logw(m2, mn, mx, cs, pw, qw);
            if g2 > g {
                m = m2;
                g = g2;
            }
        }
    }
    let a0 = a.floor();
    let af = a - a0;
    let mut x = m;
    'attempts: for j in 1..=64u32 {
        let blk = philox4x32_10([e, j, draw as u32, (draw >> 32) as u32], key);
        for i in 0..2 {
            let u = u01_mid(blk[2 * i]);
            let v = u01_mid(blk[2 * i + 1]);
            let kk = a0 + (af + div_det(h * (v - 0.5), u)).floor();
            if kk < 0.0 || kk >= bound {
                continue;
            }
            let t = logw(kk, mn, mx, cs, pw, qw) - g;
            if u * (4.0 - u) - 3.0 <= t {
                x = kk;
                break 'attempts;
            }
            if u * (u - t) >= 1.0 {
                continue;
            }
            if 2.0 * ln_unit_fenced(u) <= t {
                x = kk;
                break 'attempts;
            }
        }
    }
    if good > bad {
        x = cs - x;
    }
    if cs < sample {
        x = good - x;
    }
    x
}

/// The urn draws of `kp_hyper_urn_f64` (the float32 urn's integers, below 2^31 here).
fn urn64(key: [u32; 2], draw: u64, e: u32, good: f64, total: f64, sample: f64) -> f64 {
    let flip = sample > (total * 0.5).floor();
    let mut left = if flip { total - sample } else { sample };
    let (mut rt, mut rg) = (total, good);
    let mut blk = [0u32; 4];
    for c in 0..137u32 {
        if !(left > 0.0 && rg > 0.0 && rt > rg) {
            break;
        }
        if c & 3 == 0 {
            let j = 1 + (c >> 2).min(31);
            blk = philox4x32_10([e, j, draw as u32, (draw >> 32) as u32], key);
        }
        let w = blk[(c & 3) as usize];
        let r = rt as u32;
        let low = w.wrapping_mul(r);
        if c < 128 && low < r && low < r.wrapping_neg() % r {
            continue;
        }
        if ((u64::from(w) * u64::from(r)) >> 32) < u64::from(rg as u32) {
            rg -= 1.0;
        }
        rt -= 1.0;
        left -= 1.0;
    }
    if rt == rg {
        rg -= left;
    }
    if flip {
        rg
    } else {
        good - rg
    }
}

/// `kp_d64_hyper_logw`.
fn logw64(x: f64, mn: f64, mx: f64, cs: f64, p: f64, q: f64) -> f64 {
    binomial_logpmf(x, mn, p, q) + binomial_logpmf(cs - x, mx, p, q)
}

/// Element `e`'s float64 hypergeometric count in draw `draw` (`kp_det_hypergeometric_f64`:
/// the GPU's bits): the urn draws, else [`hypergeometric_f32`]'s HRUA in float64 with the
/// [`super::transforms64`] helpers, one attempt per block (the open 52-bit uniforms of words
/// x, y and z, w of blocks 1..=128), then the mode.
pub fn hypergeometric_f64(
    key: [u32; 2],
    draw: u64,
    e: u32,
    good: f64,
    bad: f64,
    sample: f64,
) -> f64 {
    let total = good + bad;
    if sample < 10.0 || sample > total - 10.0 {
        return urn64(key, draw, e, good, total, sample);
    }
    let cs = sample.min(total - sample);
    let (mn, mx) = (good.min(bad), good.max(bad));
    let p = div_d64(mn, total);
    let q = div_d64(mx, total);
    let a = cs * p + 0.5;
    let var_num = (((total - cs) * cs) * p) * q;
    let c = sqrt_d64(div_d64(var_num, total - 1.0) + 0.5);
    let h = 1.715_527_769_921_413_5 * c + 0.898_916_162_058_898_8;
    let bound = (cs.min(mn) + 1.0).min((a + 16.0 * c).floor());
    let pw = div_d64(cs, total);
    let qw = div_d64(total - cs, total);
    let mut m = div_d64((cs + 1.0) * (mn + 1.0), total + 2.0).floor();
    let mut g = logw64(m, mn, mx, cs, pw, qw);
    for i in 0..2 {
        let m2 = (m - 1.0) + 2.0 * f64::from(i);
        if m2 >= 0.0 && m2 <= cs.min(mn) && m2 >= cs - mx {
            let g2 = logw64(m2, mn, mx, cs, pw, qw);
            if g2 > g {
                m = m2;
                g = g2;
            }
        }
    }
    let a0 = a.floor();
    let af = a - a0;
    let mut x = m;
    for j in 1..=128u32 {
        let blk = philox4x32_10([e, j, draw as u32, (draw >> 32) as u32], key);
        let u = u01_mid64(blk[0], blk[1]);
        let v = u01_mid64(blk[2], blk[3]);
        let kk = a0 + (af + div_d64(h * (v - 0.5), u)).floor();
        if kk < 0.0 || kk >= bound {
            continue;
        }
        let t = logw64(kk, mn, mx, cs, pw, qw) - g;
        if u * (4.0 - u) - 3.0 <= t {
            x = kk;
            break;
        }
        if u * (u - t) >= 1.0 {
            continue;
        }
        if 2.0 * ln_d64(u) <= t {
            x = kk;
            break;
        }
    }
    if good > bad {
        x = cs - x;
    }
    if cs < sample {
        x = good - x;
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emulated_hypergeometric_counts_have_the_right_mean() {
        for (good, bad, sample) in [(100.0f32, 200.0f32, 5.0f32), (1000.0, 2000.0, 500.0)] {
            let n = 20_000u32;
            let m = (0..n)
                .map(|e| f64::from(hypergeometric_f32([1, 2], 3, e, good, bad, sample)))
                .sum::<f64>()
                / f64::from(n);
            let want = f64::from(sample * good / (good + bad));
            assert!(
                (m - want).abs() < 0.02 * want + 0.02,
                "{good} {bad} {sample}: {m}"
            );
        }
    }

    #[test]
    fn emulated_float64_hypergeometric_counts_have_the_right_mean() {
        for (good, bad, sample) in [
            (100.0f64, 200.0f64, 5.0f64),
            (1000.0, 2000.0, 500.0),
            (4e8, 5e8, 3e8),
        ] {
            let n = 5_000u32;
            let v: Vec<f64> = (0..n)
                .map(|e| hypergeometric_f64([1, 2], 3, e, good, bad, sample))
                .collect();
            let m = v.iter().sum::<f64>() / f64::from(n);
            let want = sample * good / (good + bad);
            let total = good + bad;
            let var = sample * good / total * bad / total * (total - sample) / (total - 1.0);
            assert!(
                (m - want).abs() < 5.0 * (var / f64::from(n)).sqrt() + 1e-9,
                "{good} {bad} {sample}: {m}"
            );
            assert!(v
                .iter()
                .all(|x| x.fract() == 0.0 && *x >= 0.0 && *x <= sample));
        }
    }
}
