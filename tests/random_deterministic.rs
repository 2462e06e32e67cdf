//! The float32 distributions built from uniforms (`kupfer_core::random::transforms`: uniform,
//! laplace, logistic, gumbel, weibull, pareto, power, rayleigh, standard_cauchy, wald,
//! triangular, geometric, logseries): the GPU's draws are the CPU emulation's bits (the
//! emulation performs exactly the float32 operations of `shaders/random_det.wgsl`, none fused:
//! what every driver computes, so this is the test that the draws are the same bits on every
//! driver), 65536 draws for each of several parameter sets, edge parameters included, scalar
//! and broadcast array parameters; plus Kolmogorov-Smirnov against SciPy for the continuous
//! ones.
//!
//! Needs python3 with SciPy and a GPU adapter (lavapipe will do); fails, never skips. Run with
//! `KUPFER_RANDDET` unset (the deterministic kernels are the default).

use kp::random::default_rng;
use kp::random::philox::seed_key;
use kp::random::philox::transforms::{enabled, Transform};
use kp::{Array, DType, SliceArg};
use kupfer as kp;
use std::io::Write;
use std::process::Command;

const N: usize = 1 << 16;

fn f32s(a: &Array) -> Vec<f32> {
    a.to_vec::<f32>().unwrap()
}

fn counts(a: &Array) -> Vec<f32> {
    a.astype(DType::I64)
        .unwrap()
        .to_vec::<i64>()
        .unwrap()
        .into_iter()
        .map(|v| v as f32)
        .collect()
}

/// How many of `got` differ in their bits from the emulation of `t` with parameters `p(e)`
/// (element `e` of draw 0 of the seed), printing the first few.
fn differing(got: &[f32], seed: u64, t: Transform, p: impl Fn(usize) -> Vec<f32>) -> usize {
    let key = seed_key(seed);
    let mut bad = 0;
    for (e, g) in got.iter().enumerate() {
        let want = t.value(key, 0, e as u32, &p(e));
        if g.to_bits() != want.to_bits() {
            if bad < 3 {
                eprintln!(
                    "{t:?} {:?} element {e}: GPU {g:e}, emulation {want:e}",
                    p(e)
                );
            }
            bad += 1;
        }
    }
    bad
}

/// One draw of `t` with scalar parameters `p` from a fresh generator of `seed`.
fn draw(seed: u64, t: Transform, p: &[f64]) -> Vec<f32> {
    let g = default_rng(Some(seed));
    let s = Some(&[N][..]);
    match t {
        Transform::Uniform => f32s(&g.uniform(p[0], p[1], s).unwrap()),
        Transform::Laplace => f32s(&g.laplace(p[0], p[1], s).unwrap()),
        Transform::Logistic => f32s(&g.logistic(p[0], p[1], s).unwrap()),
        Transform::Gumbel => f32s(&g.gumbel(p[0], p[1], s).unwrap()),
        Transform::Weibull => f32s(&g.weibull(p[0], s).unwrap()),
        Transform::Pareto => f32s(&g.pareto(p[0], s).unwrap()),
        Transform::Power => f32s(&g.power(p[0], s).unwrap()),
        Transform::Rayleigh => f32s(&g.rayleigh(p[0], s).unwrap()),
        Transform::Cauchy => f32s(&g.standard_cauchy(&[N], None).unwrap()),
        Transform::Exponential => f32s(&g.standard_exponential(&[N], None).unwrap()),
        Transform::Wald => f32s(&g.wald(p[0], p[1], s).unwrap()),
        Transform::Triangular => f32s(&g.triangular(p[0], p[1], p[2], s).unwrap()),
        Transform::Geometric => counts(&g.geometric(p[0], s).unwrap()),
        Transform::Logseries => counts(&g.logseries(p[0], s).unwrap()),
        Transform::Poisson => counts(&g.poisson(p[0], s).unwrap()),
        Transform::Binomial => counts(&g.binomial(p[0], p[1], s).unwrap()),
        Transform::VonMises => f32s(&g.vonmises(p[0], p[1], s).unwrap()),
        Transform::Zipf => counts(&g.zipf_computed_in(p[0], s, DType::F32).unwrap()),
        Transform::Hypergeometric => counts(
            &g.hypergeometric_computed_in(p[0], p[1], p[2], s, DType::F32)
                .unwrap(),
        ),
        Transform::Quotient | Transform::StudentT | Transform::Noncentral => {
            panic!("{t:?} takes drawn parameters")
        }
    }
}

/// The parameter sets of each transform, edge values included (as the emulation gets them:
/// float32; uniform's second is `high - low`).
fn cases() -> Vec<(Transform, Vec<f64>)> {
    use Transform::*;
    let mut v: Vec<(Transform, Vec<f64>)> = vec![];
    for p in [
        [0.0, 1.0],
        [-3.0, 5.0],
        [5.0, 5.0],
        [5.0, 2.0],
        [-1e30, 1e30],
        [1e-3, 1.000_001e-3],
    ] {
        v.push((Uniform, p.to_vec()));
    }
    for t in [Laplace, Logistic, Gumbel] {
        for p in [
            [0.0, 1.0],
            [3.0, 0.0],
            [-2.0, 1e-20],
            [1e10, 5.0],
            [0.25, 1e30],
        ] {
            v.push((t, p.to_vec()));
        }
    }
    for a in [0.0, 0.05, 1.0, 3.5, 100.0, f64::NAN] {
        v.push((Weibull, vec![a]));
    }
    for a in [0.05, 1.0, 3.0, 1e4, f64::NAN] {
        v.push((Pareto, vec![a]));
    }
    v.push((Laplace, vec![f64::NAN, 1.0]));
    v.push((Gumbel, vec![0.0, f64::NAN]));
    v.push((Poisson, vec![f64::NAN]));
    for a in [0.01, 1.0, 5.0, 1e5] {
        v.push((Power, vec![a]));
    }
    for s in [0.0, 1.0, 2.5, 1e-30] {
        v.push((Rayleigh, vec![s]));
    }
    v.push((Cauchy, vec![]));
    for p in [[1.0, 1.0], [0.5, 3.0], [1e3, 1e-3], [1e-3, 1e3]] {
        v.push((Wald, p.to_vec()));
    }
    for p in [
        [0.0, 0.5, 1.0],
        [0.0, 0.0, 1.0],
        [0.0, 1.0, 1.0],
        [-5.0, 2.0, 10.0],
    ] {
        v.push((Triangular, p.to_vec()));
    }
    for p in [1.0, 0.5, 1e-3, 1e-7] {
        v.push((Geometric, vec![p]));
    }
    for p in [0.0, 0.5, 0.9, 0.999_999] {
        v.push((Logseries, vec![p]));
    }
    v
}

#[test]
fn deterministic_transforms_are_their_cpu_emulation_bit_for_bit() {
    assert!(enabled(), "KUPFER_RANDDET=off is set");
    let mut report = vec![];
    for (i, (t, p)) in cases().into_iter().enumerate() {
        // Parameters NaN included: every driver must give NaN (or NumPy's value) the same way.
        let seed = 100 + i as u64;
        let got = draw(seed, t, &p);
        let mut pe: Vec<f32> = p.iter().map(|&x| x as f32).collect();
        if t == Transform::Uniform {
            // The host computes high - low in float64.
            pe[1] = (p[1] - p[0]) as f32;
        }
        let bad = differing(&got, seed, t, |_| pe.clone());
        report.push((t, p, bad));
    }
    let failed: Vec<_> = report.iter().filter(|r| r.2 != 0).collect();
    eprintln!("{} cases of {N} draws; differing: {failed:?}", report.len());
    assert!(failed.is_empty());
}

#[test]
fn deterministic_transforms_with_array_parameters_are_their_emulation() {
    // A parameter array broadcast over the rows of a (64, 1024) draw.
    let cols = 1024;
    let seed = 77;
    let a: Vec<f32> = (0..cols).map(|i| 0.05 + i as f32 * 0.01).collect();
    let loc: Vec<f32> = (0..cols).map(|i| i as f32 * 0.37 - 100.0).collect();
    let probs: Vec<f32> = (0..cols).map(|i| (i as f32 + 0.5) / cols as f32).collect();
    let arr = |v: &Vec<f32>| Array::from_slice(v, &[cols]).unwrap();
    let shape = [N / cols, cols];
    let s = Some(&shape[..]);
    let checks = [
        differing(
            &f32s(&default_rng(Some(seed)).weibull(arr(&a), s).unwrap()),
            seed,
            Transform::Weibull,
            |e| vec![a[e % cols]],
        ),
        differing(
            &f32s(
                &default_rng(Some(seed))
                    .gumbel(arr(&loc), arr(&a), s)
                    .unwrap(),
            ),
            seed,
            Transform::Gumbel,
            |e| vec![loc[e % cols], a[e % cols]],
        ),
        differing(
            &f32s(&default_rng(Some(seed)).wald(arr(&a), 2.0, s).unwrap()),
            seed,
            Transform::Wald,
            |e| vec![a[e % cols], 2.0],
        ),
        differing(
            &counts(&default_rng(Some(seed)).geometric(arr(&probs), s).unwrap()),
            seed,
            Transform::Geometric,
            |e| vec![probs[e % cols]],
        ),
        differing(
            &counts(&default_rng(Some(seed)).logseries(arr(&probs), s).unwrap()),
            seed,
            Transform::Logseries,
            |e| vec![probs[e % cols]],
        ),
    ];
    // Every other column of a (rows, 2 cols) draw: drawn one element per thread (the
    // generator's strided kernel), not four per Philox block.
    let step2 = [
        SliceArg::FULL,
        SliceArg::Slice {
            start: None,
            stop: None,
            step: Some(2),
        },
    ];
    let wide = default_rng(Some(seed))
        .logistic(0.5, 2.0, Some(&[N / cols, 2 * cols][..]))
        .unwrap();
    let strided = f32s(&wide.slice(&step2).unwrap().copy().unwrap());
    let every_other = |e: usize| (e / cols * 2 * cols + e % cols * 2) as u32;
    let key = seed_key(seed);
    let strided_bad = strided
        .iter()
        .enumerate()
        .filter(|(e, g)| {
            g.to_bits()
                != Transform::Logistic
                    .value(key, 0, every_other(*e), &[0.5, 2.0])
                    .to_bits()
        })
        .count();
    eprintln!("differing: {checks:?}, strided {strided_bad}");
    assert_eq!(checks, [0; 5]);
    assert_eq!(strided_bad, 0);
}

/// Kolmogorov-Smirnov p-values of SciPy's distribution `dist` for each sample.
fn ks(samples: &[(&str, Vec<f32>)]) -> Vec<f64> {
    let mut script = String::from("import sys, numpy as np\nfrom scipy import stats\nout = []\n");
    for (dist, v) in samples {
        let vals: Vec<String> = v.iter().map(|x| format!("{x:e}")).collect();
        script.push_str(&format!(
            "x = np.array([{}], dtype=np.float64)\nout.append(stats.kstest(x, {dist}).pvalue)\n",
            vals.join(",")
        ));
    }
    script.push_str("print(' '.join(repr(float(v)) for v in out))\n");
    let mut child = Command::new("python3")
        .arg("-")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "SciPy failed");
    String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .map(|s| s.parse().unwrap())
        .collect()
}

#[test]
fn deterministic_transforms_pass_kolmogorov_smirnov() {
    let n = 1usize << 17;
    let g = default_rng(Some(2027));
    let s = Some(&[n][..]);
    let samples = vec![
        (
            "stats.uniform(-3, 8).cdf",
            f32s(&g.uniform(-3.0, 5.0, s).unwrap()),
        ),
        (
            "stats.laplace(1, 2).cdf",
            f32s(&g.laplace(1.0, 2.0, s).unwrap()),
        ),
        (
            "stats.logistic(1, 2).cdf",
            f32s(&g.logistic(1.0, 2.0, s).unwrap()),
        ),
        (
            "stats.gumbel_r(1, 2).cdf",
            f32s(&g.gumbel(1.0, 2.0, s).unwrap()),
        ),
        (
            "stats.weibull_min(0.7).cdf",
            f32s(&g.weibull(0.7, s).unwrap()),
        ),
        ("stats.lomax(2.5).cdf", f32s(&g.pareto(2.5, s).unwrap())),
        ("stats.powerlaw(3.0).cdf", f32s(&g.power(3.0, s).unwrap())),
        (
            "stats.rayleigh(scale=2.0).cdf",
            f32s(&g.rayleigh(2.0, s).unwrap()),
        ),
        (
            "stats.cauchy.cdf",
            f32s(&g.standard_cauchy(&[n], None).unwrap()),
        ),
        (
            "stats.invgauss(0.5 / 3.0, scale=3.0).cdf",
            f32s(&g.wald(0.5, 3.0, s).unwrap()),
        ),
        (
            "stats.triang(7.0 / 15.0, -5, 15).cdf",
            f32s(&g.triangular(-5.0, 2.0, 10.0, s).unwrap()),
        ),
    ];
    let p = ks(&samples);
    eprintln!("KS p-values: {p:?}");
    for ((name, _), pv) in samples.iter().zip(&p) {
        assert!(*pv > 1e-3, "{name}: p = {pv}");
    }
}

#[test]
fn quotients_of_gamma_draws_are_their_cpu_emulation_bit_for_bit() {
    use kp::random::philox::gamma::gamma_f32;
    use kp::random::philox::transforms::div_det;
    use kp::random::philox::ziggurat::normal_f32;
    use kp::random::philox::{normal_form, set_normal_form, NormalForm};
    // standard_t's normal: the ziggurat (the same bits on every driver).
    let _ = set_normal_form(NormalForm::Ziggurat);
    assert_eq!(normal_form(), NormalForm::Ziggurat, "KUPFER_RANDN is set");
    let n = N / 2;
    let s = Some(&[n][..]);
    let chi = |key, draw, e, df: f64| 2.0 * gamma_f32(key, draw, e, (df / 2.0) as f32);
    let mut bad = vec![];
    for (i, (a, b)) in [(0.5, 0.5), (2.0, 5.0), (1e-3, 1e3), (30.0, 0.2)]
        .into_iter()
        .enumerate()
    {
        let seed = 300 + i as u64;
        let key = seed_key(seed);
        let g = default_rng(Some(seed));
        let beta = f32s(&g.beta(a, b, s).unwrap());
        let want = |e: u32| {
            let x = gamma_f32(key, 0, e, a as f32);
            div_det(x, x + gamma_f32(key, 1, e, b as f32))
        };
        bad.push(("beta", a, b, count_differing(&beta, want)));
        let g = default_rng(Some(seed));
        let f = f32s(&g.f(a, b, s).unwrap());
        let want = |e: u32| {
            let x = div_det(chi(key, 0, e, a), a as f32);
            div_det(x, div_det(chi(key, 1, e, b), b as f32))
        };
        bad.push(("f", a, b, count_differing(&f, want)));
        let g = default_rng(Some(seed));
        let t = f32s(&g.standard_t(a, s).unwrap());
        let want = |e: u32| {
            let c = div_det(chi(key, 1, e, a), a as f32);
            div_det(normal_f32(key, 0, e), c.sqrt())
        };
        bad.push(("standard_t", a, 0.0, count_differing(&t, want)));
    }
    // Dirichlet: gammas of shape (n / 4, 4), summed in index order.
    let alpha = [0.3, 1.0, 2.5, 40.0];
    let seed = 310;
    let key = seed_key(seed);
    let d = f32s(&default_rng(Some(seed)).dirichlet(&alpha, &[n / 4]).unwrap());
    let want = |e: u32| {
        let row = e / 4;
        let gam = |j: u32| gamma_f32(key, 0, row * 4 + j, alpha[j as usize] as f32);
        let sum = ((gam(0) + gam(1)) + gam(2)) + gam(3);
        div_det(gam(e % 4), sum)
    };
    bad.push(("dirichlet", 0.0, 0.0, count_differing(&d, want)));
    eprintln!("differing: {bad:?}");
    assert!(bad.iter().all(|b| b.3 == 0));
}

#[test]
fn dirichlet_with_many_categories_is_its_cpu_emulation_bit_for_bit() {
    use kp::random::philox::gamma::gamma_f32;
    use kp::random::philox::transforms::div_det;
    // 100 categories (past the fusion bound: the chain of additions is materialised in
    // pieces), on an adapter with float64 too: float32 gammas summed in index order and the
    // deterministic quotient, whatever the adapter. Its dtype is float32 (kupfer's rule for
    // Python-number parameters; NumPy's is float64).
    let k = 100usize;
    let alpha: Vec<f64> = (0..k).map(|i| 0.05 + i as f64 * 0.11).collect();
    let rows = N / k;
    let seed = 311;
    let key = seed_key(seed);
    let d = default_rng(Some(seed)).dirichlet(&alpha, &[rows]).unwrap();
    assert_eq!(d.dtype(), DType::F32);
    let got = f32s(&d);
    let gam: Vec<f32> = (0..rows * k)
        .map(|e| gamma_f32(key, 0, e as u32, alpha[e % k] as f32))
        .collect();
    let sums: Vec<f32> = gam
        .chunks(k)
        .map(|r| r[1..].iter().fold(r[0], |s, &x| s + x))
        .collect();
    let bad = count_differing(&got, |e| div_det(gam[e as usize], sums[e as usize / k]));
    assert_eq!(bad, 0);
}

/// How many of `got` differ in their bits from `want(e)`.
fn count_differing(got: &[f32], want: impl Fn(u32) -> f32) -> usize {
    let mut bad = 0;
    for (e, g) in got.iter().enumerate() {
        let w = want(e as u32);
        if g.to_bits() != w.to_bits() {
            if bad < 3 {
                eprintln!("element {e}: GPU {g:e}, emulation {w:e}");
            }
            bad += 1;
        }
    }
    bad
}

#[test]
fn poisson_and_negative_binomial_are_their_cpu_emulation_bit_for_bit() {
    use kp::random::philox::gamma::gamma_f32;
    use kp::random::philox::poisson::poisson_f32;
    let mut bad = vec![];
    for (i, lam) in [0.0, 1e-3, 0.5, 3.0, 9.99, 10.0, 42.5, 1e3, 1e6]
        .into_iter()
        .enumerate()
    {
        let seed = 400 + i as u64;
        let key = seed_key(seed);
        let got = counts(
            &default_rng(Some(seed))
                .poisson(lam, Some(&[N][..]))
                .unwrap(),
        );
        let want = |e: u32| poisson_f32(key, 0, e, lam as f32);
        bad.push(("poisson", lam, count_differing(&got, want)));
    }
    // Array lam broadcast over rows: inversion and PTRS side by side.
    let cols = 512;
    let lams: Vec<f32> = (0..cols).map(|i| i as f32 * 0.1).collect();
    let seed = 420;
    let key = seed_key(seed);
    let arr = Array::from_slice(&lams, &[cols]).unwrap();
    let got = counts(
        &default_rng(Some(seed))
            .poisson(arr, Some(&[N / cols, cols][..]))
            .unwrap(),
    );
    let want = |e: u32| poisson_f32(key, 0, e, lams[e as usize % cols]);
    bad.push(("poisson array", 0.0, count_differing(&got, want)));
    // negative_binomial(n, p): Poisson of a gamma of shape n times (1 - p) / p.
    for (i, (n, p)) in [(3.0, 0.4), (0.5, 0.9), (50.0, 0.01)]
        .into_iter()
        .enumerate()
    {
        let seed = 430 + i as u64;
        let key = seed_key(seed);
        let got = counts(
            &default_rng(Some(seed))
                .negative_binomial(n, p, Some(&[N][..]))
                .unwrap(),
        );
        let scale = ((1.0 - p) / p) as f32;
        let want = |e: u32| poisson_f32(key, 1, e, gamma_f32(key, 0, e, n as f32) * scale);
        bad.push(("negative_binomial", n, count_differing(&got, want)));
    }
    eprintln!("differing: {bad:?}");
    assert!(bad.iter().all(|b| b.2 == 0));
}

#[test]
fn binomials_are_their_cpu_emulation_bit_for_bit() {
    use kp::random::philox::binomial::binomial_f32;
    let mut bad = vec![];
    for (i, (n, p)) in [
        (0.0f64, 0.5f64),
        (1.0, 0.5),
        (10.0, 0.3),
        (20.0, 0.5),
        (7.9, 0.7),
        (1000.0, 0.5),
        (100.0, 0.95),
        (1e6, 1e-3),
        (16_777_216.0, 0.25),
        (5.0, 0.0),
        (5.0, 1.0),
    ]
    .into_iter()
    .enumerate()
    {
        let seed = 500 + i as u64;
        let key = seed_key(seed);
        let got = counts(
            &default_rng(Some(seed))
                .binomial(n, p, Some(&[N][..]))
                .unwrap(),
        );
        let nt = n.trunc() as f32;
        let want = |e: u32| binomial_f32(key, 0, e, nt, p as f32);
        bad.push((n, p, count_differing(&got, want)));
    }
    // Array p broadcast over rows with an integer n array: both methods and the flip.
    let cols = 256;
    let ps: Vec<f32> = (0..cols).map(|i| (i as f32 + 0.5) / cols as f32).collect();
    let ns: Vec<i32> = (0..cols as i32).map(|i| 3 + i * 7).collect();
    let seed = 520;
    let key = seed_key(seed);
    let got = counts(
        &default_rng(Some(seed))
            .binomial(
                Array::from_slice(&ns, &[cols]).unwrap(),
                Array::from_slice(&ps, &[cols]).unwrap(),
                Some(&[N / cols, cols][..]),
            )
            .unwrap(),
    );
    let want = |e: u32| {
        binomial_f32(
            key,
            0,
            e,
            ns[e as usize % cols] as f32,
            ps[e as usize % cols],
        )
    };
    bad.push((-1.0, -1.0, count_differing(&got, want)));
    eprintln!("differing: {bad:?}");
    assert!(bad.iter().all(|b| b.2 == 0));
}

#[test]
fn noncentral_chisquare_is_its_cpu_emulation_bit_for_bit() {
    use kp::random::philox::gamma::gamma_f32;
    use kp::random::philox::poisson::poisson_f32;
    use kp::random::philox::ziggurat::normal_f32;
    use kp::random::philox::{normal_form, set_normal_form, NormalForm};
    let _ = set_normal_form(NormalForm::Ziggurat);
    assert_eq!(normal_form(), NormalForm::Ziggurat, "KUPFER_RANDN is set");
    let mut bad = vec![];
    for (i, (df, nonc)) in [
        (3.0f64, 2.0f64),
        (1.5, 0.0),
        (40.0, 1e3),
        (0.5, 2.0),
        (1.0, 0.3),
    ]
    .into_iter()
    .enumerate()
    {
        let seed = 600 + i as u64;
        let key = seed_key(seed);
        let got = f32s(
            &default_rng(Some(seed))
                .noncentral_chisquare(df, nonc, Some(&[N / 2][..]))
                .unwrap(),
        );
        let (d32, n32) = (df as f32, nonc as f32);
        // Draws: 0 the normal, 1 the central gamma, 2 the shifted sum, 3 the Poisson count,
        // 4 the gamma of df + 2 i.
        let want = |e: u32| {
            if d32 > 1.0 {
                let c = 2.0 * gamma_f32(key, 1, e, (d32 - 1.0).max(1e-30) * 0.5);
                let t = normal_f32(key, 0, e) + n32.sqrt();
                c + t * t
            } else {
                let k = poisson_f32(key, 3, e, n32 * 0.5);
                2.0 * gamma_f32(key, 4, e, (d32 + k * 2.0) * 0.5)
            }
        };
        bad.push((df, nonc, count_differing(&got, want)));
    }
    eprintln!("differing: {bad:?}");
    assert!(bad.iter().all(|b| b.2 == 0));
}

#[test]
fn vonmises_is_its_cpu_emulation_bit_for_bit() {
    use kp::random::philox::vonmises::vonmises_f32;
    let mut bad = vec![];
    for (i, (mu, kappa)) in [
        (0.0f64, 0.0f64),
        (0.0, 1e-9),
        (0.5, 1e-6),
        (1.0, 0.5),
        (-2.0, 4.0),
        (3.0, 1e3),
        (0.0, 1e7),
        (10.0, 2.0),
    ]
    .into_iter()
    .enumerate()
    {
        let seed = 700 + i as u64;
        let key = seed_key(seed);
        let got = f32s(
            &default_rng(Some(seed))
                .vonmises(mu, kappa, Some(&[N][..]))
                .unwrap(),
        );
        let want = |e: u32| vonmises_f32(key, 0, e, mu as f32, kappa as f32);
        bad.push((mu, kappa, count_differing(&got, want)));
    }
    let cols = 256;
    let kappas: Vec<f32> = (0..cols).map(|i| i as f32 * 0.05).collect();
    let seed = 720;
    let key = seed_key(seed);
    let got = f32s(
        &default_rng(Some(seed))
            .vonmises(
                -1.0,
                Array::from_slice(&kappas, &[cols]).unwrap(),
                Some(&[N / cols, cols][..]),
            )
            .unwrap(),
    );
    let want = |e: u32| vonmises_f32(key, 0, e, -1.0, kappas[e as usize % cols]);
    bad.push((-1.0, -1.0, count_differing(&got, want)));
    eprintln!("differing: {bad:?}");
    assert!(bad.iter().all(|b| b.2 == 0));
}

#[test]
fn float32_zipf_is_its_cpu_emulation_bit_for_bit() {
    use kp::random::philox::zipf::zipf_f32;
    let mut bad = vec![];
    for (i, a) in [1.0001f64, 1.5, 2.0, 3.5, 50.0, 1025.0]
        .into_iter()
        .enumerate()
    {
        let seed = 800 + i as u64;
        let key = seed_key(seed);
        // The float32 path (what adapters without float64, the browser's, draw).
        let got = counts(
            &default_rng(Some(seed))
                .zipf_computed_in(a, Some(&[N][..]), DType::F32)
                .unwrap(),
        );
        let want = |e: u32| zipf_f32(key, 0, e, a as f32);
        bad.push((a, count_differing(&got, want)));
    }
    eprintln!("differing: {bad:?}");
    assert!(bad.iter().all(|b| b.1 == 0));
}

#[test]
fn float32_hypergeometric_is_its_cpu_emulation_bit_for_bit() {
    use kp::random::philox::hypergeometric::hypergeometric_f32;
    let mut bad = vec![];
    for (i, (good, nbad, sample)) in [
        (7i64, 5i64, 12i64),
        (100, 200, 5),
        (100, 200, 295),
        (10, 10, 10),
        (1000, 2000, 500),
        (2000, 1000, 2500),
        (5_000_000, 1_000_000, 2_000_000),
        (0, 50, 20),
    ]
    .into_iter()
    .enumerate()
    {
        let seed = 900 + i as u64;
        let key = seed_key(seed);
        // The float32 path (what adapters without float64, the browser's, draw); 2^14 draws
        // a set (2^17 in all: the emulation of HRUA is slow in a debug build).
        let got = counts(
            &default_rng(Some(seed))
                .hypergeometric_computed_in(good, nbad, sample, Some(&[N / 4][..]), DType::F32)
                .unwrap(),
        );
        let want = |e: u32| hypergeometric_f32(key, 0, e, good as f32, nbad as f32, sample as f32);
        bad.push((good, nbad, sample, count_differing(&got, want)));
    }
    eprintln!("differing: {bad:?}");
    assert!(bad.iter().all(|b| b.3 == 0));
}

#[test]
fn exponentials_are_their_cpu_emulation_bit_for_bit() {
    use kp::random::philox::ziggurat::exponential_f32;
    use kp::random::philox::{exponential_form, ExponentialForm};
    // Either form is deterministic: the ziggurat, or the fenced -ln U of the `log` form.
    let form = exponential_form();
    let mut bad = vec![];
    for (i, scale) in [1.0f64, 2.5, 0.0, 1e-30].into_iter().enumerate() {
        let seed = 1000 + i as u64;
        let key = seed_key(seed);
        let got = f32s(
            &default_rng(Some(seed))
                .exponential(scale, Some(&[N][..]))
                .unwrap(),
        );
        let want = |e: u32| {
            let x = match form {
                ExponentialForm::Ziggurat => exponential_f32(key, 0, e),
                _ => Transform::Exponential.value(key, 0, e, &[]),
            };
            scale as f32 * x
        };
        bad.push((scale, count_differing(&got, want)));
    }
    eprintln!("{form:?} differing: {bad:?}");
    assert!(bad.iter().all(|b| b.1 == 0));
}

#[test]
fn nan_shapes_give_nan_gammas_and_lognormals() {
    // A driver may assume no float is NaN (lavapipe folded `x != x` to false): the samplers
    // test NaN on the bits.
    let g = default_rng(Some(5));
    let gam = f32s(&g.standard_gamma(f64::NAN, Some(&[64][..]), None).unwrap());
    let logn = f32s(&g.lognormal(f64::NAN, 1.0, Some(&[64][..])).unwrap());
    let wei = f32s(&g.weibull(f64::NAN, Some(&[64][..])).unwrap());
    assert!(gam.iter().chain(&logn).chain(&wei).all(|v| v.is_nan()));
}
