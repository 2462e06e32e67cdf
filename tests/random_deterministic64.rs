//! The float64 transforms of uniforms (`kupfer_core::random::transforms64`: uniform, laplace,
//! logistic, gumbel, weibull, pareto, power, rayleigh, standard_cauchy, wald, triangular,
//! geometric, logseries and the `-log(U)` exponential, drawn in float64 for float64 parameters): the GPU's draws are
//! the CPU emulation's bits (the emulation performs exactly the float64 operations of
//! `shaders/random_det64.wgsl`, none fused: what every driver computes), 65536 draws for each
//! of several parameter sets, edge parameters included, broadcast and per-element parameter
//! arrays; plus Kolmogorov-Smirnov against SciPy for the continuous ones.
//!
//! Needs python3 with SciPy and a GPU adapter with float64 (lavapipe will do); fails, never
//! skips. Run with `KUPFER_RANDDET` unset (the deterministic kernels are the default).

use kp::random::default_rng;
use kp::random::philox::seed_key;
use kp::random::philox::transforms::{enabled, Transform};
use kp::{Array, DType};
use kupfer as kp;
use std::io::Write;
use std::process::Command;

const N: usize = 1 << 16;

fn f64s(a: &Array) -> Vec<f64> {
    assert_eq!(a.dtype(), DType::F64, "not drawn in float64");
    a.to_vec::<f64>().unwrap()
}

fn counts(a: &Array) -> Vec<f64> {
    a.astype(DType::I64)
        .unwrap()
        .to_vec::<i64>()
        .unwrap()
        .into_iter()
        .map(|v| v as f64)
        .collect()
}

/// A float64 parameter array of one element (broadcast over the draw).
fn one(x: f64) -> Array {
    Array::from_slice(&[x], &[1]).unwrap()
}

/// How many of `got` differ in their bits from the emulation of `t` with parameters `p(e)`
/// (element `e` of draw 0 of the seed), printing the first few.
fn differing(got: &[f64], seed: u64, t: Transform, p: impl Fn(usize) -> Vec<f64>) -> usize {
    let key = seed_key(seed);
    let mut bad = 0;
    for (e, g) in got.iter().enumerate() {
        let want = t.value_f64(key, 0, e as u32, &p(e));
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

/// One draw of `t` with float64 parameters `p` (one-element arrays) from a fresh generator.
fn draw(seed: u64, t: Transform, p: &[f64]) -> Vec<f64> {
    let g = default_rng(Some(seed));
    let s = Some(&[N][..]);
    let a = |i: usize| one(p[i]);
    match t {
        Transform::Uniform => f64s(&g.uniform(a(0), a(1), s).unwrap()),
        Transform::Laplace => f64s(&g.laplace(a(0), a(1), s).unwrap()),
        Transform::Logistic => f64s(&g.logistic(a(0), a(1), s).unwrap()),
        Transform::Gumbel => f64s(&g.gumbel(a(0), a(1), s).unwrap()),
        Transform::Weibull => f64s(&g.weibull(a(0), s).unwrap()),
        Transform::Pareto => f64s(&g.pareto(a(0), s).unwrap()),
        Transform::Power => f64s(&g.power(a(0), s).unwrap()),
        Transform::Rayleigh => f64s(&g.rayleigh(a(0), s).unwrap()),
        Transform::Triangular => f64s(&g.triangular(a(0), a(1), a(2), s).unwrap()),
        Transform::Geometric => counts(&g.geometric(a(0), s).unwrap()),
        Transform::Logseries => counts(&g.logseries(a(0), s).unwrap()),
        Transform::Cauchy => f64s(&g.standard_cauchy(&[N], Some(DType::F64)).unwrap()),
        Transform::Wald => f64s(&g.wald(a(0), a(1), s).unwrap()),
        _ => panic!("{t:?} has no float64 form"),
    }
}

/// The parameter sets of each transform, edge values included (uniform's second is
/// `high - low`, as the emulation gets it).
fn cases() -> Vec<(Transform, Vec<f64>)> {
    use Transform::*;
    let mut v: Vec<(Transform, Vec<f64>)> = vec![];
    for p in [
        [0.0, 1.0],
        [-3.0, 5.0],
        [5.0, 5.0],
        [5.0, 2.0],
        [-1e300, 1e300],
        [1e-3, 1.000_000_001e-3],
    ] {
        v.push((Uniform, p.to_vec()));
    }
    for t in [Laplace, Logistic, Gumbel] {
        for p in [
            [0.0, 1.0],
            [3.0, 0.0],
            [-2.0, 1e-200],
            [1e10, 5.0],
            [0.25, 1e300],
        ] {
            v.push((t, p.to_vec()));
        }
    }
    for a in [0.0, 1e-3, 0.05, 1.0, 3.5, 100.0, f64::NAN] {
        v.push((Weibull, vec![a]));
    }
    for a in [1e-3, 0.05, 1.0, 3.0, 1e4, f64::NAN] {
        v.push((Pareto, vec![a]));
    }
    v.push((Laplace, vec![f64::NAN, 1.0]));
    v.push((Gumbel, vec![0.0, f64::NAN]));
    for a in [1e-3, 0.01, 1.0, 5.0, 1e5] {
        v.push((Power, vec![a]));
    }
    for s in [0.0, 1.0, 2.5, 1e-300] {
        v.push((Rayleigh, vec![s]));
    }
    for p in [
        [0.0, 0.5, 1.0],
        [0.0, 0.0, 1.0],
        [0.0, 1.0, 1.0],
        [-5.0, 2.0, 10.0],
        [1.0, 1.0 + 1e-12, 1.0 + 3e-12],
    ] {
        v.push((Triangular, p.to_vec()));
    }
    v.push((Cauchy, vec![]));
    for p in [
        [1.0, 1.0],
        [0.5, 3.0],
        [1e3, 1e-3],
        [1e-3, 1e3],
        [1e-200, 1e200],
    ] {
        v.push((Wald, p.to_vec()));
    }
    for p in [1.0, 0.5, 1e-3, 1e-7, 1e-15] {
        v.push((Geometric, vec![p]));
    }
    for p in [0.0, 0.5, 0.9, 0.999_999, 1.0 - 1e-12] {
        v.push((Logseries, vec![p]));
    }
    v
}

#[test]
fn float64_transforms_are_their_cpu_emulation_bit_for_bit() {
    assert!(enabled(), "KUPFER_RANDDET=off is set");
    let mut report = vec![];
    for (i, (t, p)) in cases().into_iter().enumerate() {
        let seed = 300 + i as u64;
        let got = draw(seed, t, &p);
        let mut pe = p.clone();
        if t == Transform::Uniform {
            pe[1] = p[1] - p[0];
        }
        let bad = differing(&got, seed, t, |_| pe.clone());
        report.push((t, p, bad));
    }
    let failed: Vec<_> = report.iter().filter(|r| r.2 != 0).collect();
    eprintln!("{} cases of {N} draws; differing: {failed:?}", report.len());
    assert!(failed.is_empty());
}

#[test]
fn float64_transforms_with_array_parameters_are_their_emulation() {
    // A parameter array broadcast over the rows of a (64, 1024) draw.
    let cols = 1024;
    let seed = 78;
    let a: Vec<f64> = (0..cols).map(|i| 0.05 + i as f64 * 0.01).collect();
    let loc: Vec<f64> = (0..cols).map(|i| i as f64 * 0.37 - 100.0).collect();
    let probs: Vec<f64> = (0..cols).map(|i| (i as f64 + 0.5) / cols as f64).collect();
    let arr = |v: &Vec<f64>| Array::from_slice(v, &[cols]).unwrap();
    let shape = [N / cols, cols];
    let s = Some(&shape[..]);
    let g = || default_rng(Some(seed));
    let checks = [
        differing(
            &f64s(&g().weibull(arr(&a), s).unwrap()),
            seed,
            Transform::Weibull,
            |e| vec![a[e % cols]],
        ),
        differing(
            &f64s(&g().gumbel(arr(&loc), arr(&a), s).unwrap()),
            seed,
            Transform::Gumbel,
            |e| vec![loc[e % cols], a[e % cols]],
        ),
        differing(
            &f64s(&g().pareto(arr(&a), s).unwrap()),
            seed,
            Transform::Pareto,
            |e| vec![a[e % cols]],
        ),
        differing(
            &counts(&g().geometric(arr(&probs), s).unwrap()),
            seed,
            Transform::Geometric,
            |e| vec![probs[e % cols]],
        ),
        differing(
            &counts(&g().logseries(arr(&probs), s).unwrap()),
            seed,
            Transform::Logseries,
            |e| vec![probs[e % cols]],
        ),
    ];
    eprintln!("differing: {checks:?}");
    assert_eq!(checks, [0; 5]);
}

#[test]
fn float64_log_form_exponentials_are_their_emulation_when_selected() {
    use kp::random::philox::ziggurat::exponential_f64;
    use kp::random::philox::{exponential_form, ExponentialForm};
    // The default exponential is the float64 ziggurat; KUPFER_RANDEXP=log draws -ln U of the
    // open 52-bit uniform through the fenced float64 logarithm. Either is deterministic.
    let seed = 91;
    let key = seed_key(seed);
    let got = f64s(
        &default_rng(Some(seed))
            .standard_exponential(&[N], Some(DType::F64))
            .unwrap(),
    );
    let bad = got
        .iter()
        .enumerate()
        .filter(|(e, g)| {
            let e = *e as u32;
            let want = match exponential_form() {
                ExponentialForm::Ziggurat => exponential_f64(key, 0, e),
                _ => Transform::Exponential.value_f64(key, 0, e, &[]),
            };
            g.to_bits() != want.to_bits()
        })
        .count();
    assert_eq!(bad, 0);
}

/// Kolmogorov-Smirnov p-values of SciPy's distribution `dist` for each sample.
fn ks(samples: &[(&str, Vec<f64>)]) -> Vec<f64> {
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
fn float64_transforms_pass_kolmogorov_smirnov() {
    let n = 1usize << 17;
    let g = default_rng(Some(2028));
    let s = Some(&[n][..]);
    let samples = vec![
        (
            "stats.uniform(-3, 8).cdf",
            f64s(&g.uniform(one(-3.0), one(5.0), s).unwrap()),
        ),
        (
            "stats.laplace(1, 2).cdf",
            f64s(&g.laplace(one(1.0), one(2.0), s).unwrap()),
        ),
        (
            "stats.logistic(1, 2).cdf",
            f64s(&g.logistic(one(1.0), one(2.0), s).unwrap()),
        ),
        (
            "stats.gumbel_r(1, 2).cdf",
            f64s(&g.gumbel(one(1.0), one(2.0), s).unwrap()),
        ),
        (
            "stats.weibull_min(0.7).cdf",
            f64s(&g.weibull(one(0.7), s).unwrap()),
        ),
        (
            "stats.lomax(2.5).cdf",
            f64s(&g.pareto(one(2.5), s).unwrap()),
        ),
        (
            "stats.powerlaw(3.0).cdf",
            f64s(&g.power(one(3.0), s).unwrap()),
        ),
        (
            "stats.rayleigh(scale=2.0).cdf",
            f64s(&g.rayleigh(one(2.0), s).unwrap()),
        ),
        (
            "stats.triang(7.0 / 15.0, -5, 15).cdf",
            f64s(&g.triangular(one(-5.0), one(2.0), one(10.0), s).unwrap()),
        ),
        (
            "stats.cauchy.cdf",
            f64s(&g.standard_cauchy(&[n], Some(DType::F64)).unwrap()),
        ),
        (
            "stats.invgauss(0.5 / 3.0, scale=3.0).cdf",
            f64s(&g.wald(one(0.5), one(3.0), s).unwrap()),
        ),
    ];
    let p = ks(&samples);
    eprintln!("KS p-values: {p:?}");
    for ((name, _), pv) in samples.iter().zip(&p) {
        assert!(*pv > 1e-3, "{name}: p = {pv}");
    }
}

#[test]
fn float64_geometric_and_logseries_match_their_laws() {
    // Chi-square-free check of the discrete laws: the means (1 / p; -p / ((1 - p) ln(1 - p)))
    // within 5 standard errors.
    let n = 1usize << 17;
    let g = default_rng(Some(2029));
    let s = Some(&[n][..]);
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let p = 0.2f64;
    let geo = counts(&g.geometric(one(p), s).unwrap());
    let sd = ((1.0 - p) / (p * p)).sqrt() / (n as f64).sqrt();
    assert!(
        (mean(&geo) - 1.0 / p).abs() < 5.0 * sd,
        "geometric mean {}",
        mean(&geo)
    );
    let q = 0.7f64;
    let ls = counts(&g.logseries(one(q), s).unwrap());
    let m = -q / ((1.0 - q) * (1.0 - q).ln());
    let var = -q * (q + (1.0 - q).ln()) / ((1.0 - q).powi(2) * (1.0 - q).ln().powi(2));
    let sd = (var / n as f64).sqrt();
    assert!(
        (mean(&ls) - m).abs() < 5.0 * sd,
        "logseries mean {}",
        mean(&ls)
    );
}

#[test]
fn float64_gammas_are_their_cpu_emulation_bit_for_bit() {
    use kp::random::philox::transforms64::gamma_f64;
    let mut bad = vec![];
    for (i, a) in [1e-3, 0.2, 0.5, 1.0, 1.5, 4.5, 100.0, 1e6, 0.0, f64::NAN]
        .into_iter()
        .enumerate()
    {
        let seed = 500 + i as u64;
        let key = seed_key(seed);
        let got = f64s(
            &default_rng(Some(seed))
                .standard_gamma(a, Some(&[N][..]), Some(DType::F64))
                .unwrap(),
        );
        let n = got
            .iter()
            .enumerate()
            .filter(|(e, g)| g.to_bits() != gamma_f64(key, 0, *e as u32, a).to_bits())
            .count();
        bad.push((a, n));
    }
    // Per-element shapes.
    let seed = 520;
    let key = seed_key(seed);
    let shapes: Vec<f64> = (0..N).map(|i| 0.01 + (i % 977) as f64 * 0.37).collect();
    let got = f64s(
        &default_rng(Some(seed))
            .standard_gamma(Array::from_slice(&shapes, &[N]).unwrap(), None, None)
            .unwrap(),
    );
    let n = got
        .iter()
        .enumerate()
        .filter(|(e, g)| g.to_bits() != gamma_f64(key, 0, *e as u32, shapes[*e]).to_bits())
        .count();
    bad.push((-1.0, n));
    eprintln!("differing: {bad:?}");
    assert!(bad.iter().all(|b| b.1 == 0));
}

#[test]
fn float64_gammas_pass_kolmogorov_smirnov() {
    let n = 1usize << 17;
    let g = default_rng(Some(2030));
    let s = Some(&[n][..]);
    let samples = vec![
        (
            "stats.gamma(0.3).cdf",
            f64s(&g.standard_gamma(0.3, s, Some(DType::F64)).unwrap()),
        ),
        (
            "stats.gamma(4.5).cdf",
            f64s(&g.standard_gamma(4.5, s, Some(DType::F64)).unwrap()),
        ),
        (
            "stats.gamma(1.0, scale=2.5).cdf",
            f64s(&g.gamma(one(1.0), one(2.5), s).unwrap()),
        ),
    ];
    let p = ks(&samples);
    eprintln!("KS p-values: {p:?}");
    for ((name, _), pv) in samples.iter().zip(&p) {
        assert!(*pv > 1e-3, "{name}: p = {pv}");
    }
}

/// How many of `got` differ in their bits from `want(e)` (the emulation spread over the
/// machine's threads: it is slow in a debug build).
fn count_differing(got: &[f64], want: impl Fn(u32) -> f64 + Sync) -> usize {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    let chunk = got.len().div_ceil(threads).max(1);
    std::thread::scope(|s| {
        let parts: Vec<_> = got
            .chunks(chunk)
            .enumerate()
            .map(|(c, part)| {
                let want = &want;
                s.spawn(move || {
                    part.iter()
                        .enumerate()
                        .filter(|(i, g)| g.to_bits() != want((c * chunk + i) as u32).to_bits())
                        .count()
                })
            })
            .collect();
        parts.into_iter().map(|h| h.join().unwrap()).sum()
    })
}

#[test]
fn float64_quotients_of_gamma_draws_are_their_cpu_emulation_bit_for_bit() {
    use kp::random::philox::transforms64::{div_d64, gamma_f64, poisson_f64, sqrt_d64};
    use kp::random::philox::ziggurat::normal_f64;
    use kp::random::philox::{normal_form, set_normal_form, NormalForm};
    // standard_t's and noncentral_chisquare's normal: the float64 ziggurat.
    let _ = set_normal_form(NormalForm::Ziggurat);
    assert_eq!(normal_form(), NormalForm::Ziggurat, "KUPFER_RANDN is set");
    let n = N / 2;
    let s = Some(&[n][..]);
    let chi = |key, draw, e, df: f64| 2.0 * gamma_f64(key, draw, e, df * 0.5);
    let mut bad = vec![];
    for (i, (a, b)) in [(0.5, 0.5), (2.0, 5.0), (1e-3, 1e3), (30.0, 0.2)]
        .into_iter()
        .enumerate()
    {
        let seed = 700 + i as u64;
        let key = seed_key(seed);
        let beta = f64s(&default_rng(Some(seed)).beta(one(a), one(b), s).unwrap());
        let want = |e: u32| {
            let x = gamma_f64(key, 0, e, a);
            div_d64(x, x + gamma_f64(key, 1, e, b))
        };
        bad.push(("beta", a, b, count_differing(&beta, want)));
        let f = f64s(&default_rng(Some(seed)).f(one(a), one(b), s).unwrap());
        let want = |e: u32| {
            let x = div_d64(chi(key, 0, e, a), a);
            div_d64(x, div_d64(chi(key, 1, e, b), b))
        };
        bad.push(("f", a, b, count_differing(&f, want)));
        let t = f64s(&default_rng(Some(seed)).standard_t(one(a), s).unwrap());
        let want = |e: u32| {
            let c = div_d64(chi(key, 1, e, a), a);
            div_d64(normal_f64(key, 0, e), sqrt_d64(c))
        };
        bad.push(("standard_t", a, 0.0, count_differing(&t, want)));
    }
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
        let seed = 720 + i as u64;
        let key = seed_key(seed);
        let got = f64s(
            &default_rng(Some(seed))
                .noncentral_chisquare(one(df), one(nonc), s)
                .unwrap(),
        );
        // Draws: 0 the normal, 1 the central gamma, 2 the shifted sum, 3 the Poisson count,
        // 4 the gamma of df + 2 i.
        let want = |e: u32| {
            if df > 1.0 {
                let c = 2.0 * gamma_f64(key, 1, e, (df - 1.0).max(1e-30) * 0.5);
                let t = normal_f64(key, 0, e) + sqrt_d64(nonc);
                c + t * t
            } else {
                let k = poisson_f64(key, 3, e, nonc * 0.5);
                2.0 * gamma_f64(key, 4, e, (df + k * 2.0) * 0.5)
            }
        };
        bad.push((
            "noncentral_chisquare",
            df,
            nonc,
            count_differing(&got, want),
        ));
    }
    eprintln!("differing: {bad:?}");
    assert!(bad.iter().all(|b| b.3 == 0));
}

#[test]
fn float64_quotients_pass_kolmogorov_smirnov() {
    let n = 1usize << 17;
    let g = default_rng(Some(2031));
    let s = Some(&[n][..]);
    let samples = vec![
        (
            "stats.beta(0.5, 2.0).cdf",
            f64s(&g.beta(one(0.5), one(2.0), s).unwrap()),
        ),
        (
            "stats.f(3.0, 7.0).cdf",
            f64s(&g.f(one(3.0), one(7.0), s).unwrap()),
        ),
        (
            "stats.t(4.0).cdf",
            f64s(&g.standard_t(one(4.0), s).unwrap()),
        ),
        (
            "stats.chi2(3.0).cdf",
            f64s(&g.chisquare(one(3.0), s).unwrap()),
        ),
        (
            "stats.ncx2(3.0, 2.0).cdf",
            f64s(&g.noncentral_chisquare(one(3.0), one(2.0), s).unwrap()),
        ),
    ];
    let p = ks(&samples);
    eprintln!("KS p-values: {p:?}");
    for ((name, _), pv) in samples.iter().zip(&p) {
        assert!(*pv > 1e-3, "{name}: p = {pv}");
    }
}

#[test]
fn float64_poisson_and_negative_binomial_are_their_cpu_emulation_bit_for_bit() {
    use kp::random::philox::transforms64::{div_d64, gamma_f64, poisson_f64};
    let mut bad = vec![];
    for (i, lam) in [0.0, 1e-3, 0.5, 3.0, 9.99, 10.0, 42.0, 1e4, 1e12, f64::NAN]
        .into_iter()
        .enumerate()
    {
        let seed = 800 + i as u64;
        let key = seed_key(seed);
        let got = counts(
            &default_rng(Some(seed))
                .poisson(one(lam), Some(&[N][..]))
                .unwrap(),
        );
        bad.push((
            "poisson",
            lam,
            count_differing(&got, |e| poisson_f64(key, 0, e, lam)),
        ));
    }
    // Per-element means over the range of both methods.
    let seed = 820;
    let key = seed_key(seed);
    let lams: Vec<f64> = (0..N).map(|i| (i % 1000) as f64 * 0.731).collect();
    let got = counts(
        &default_rng(Some(seed))
            .poisson(Array::from_slice(&lams, &[N]).unwrap(), None)
            .unwrap(),
    );
    let want = |e: u32| poisson_f64(key, 0, e, lams[e as usize]);
    bad.push(("poisson per element", 0.0, count_differing(&got, want)));
    // negative_binomial(n, p) with array parameters: the quotient (1 - p) / p (draw 0, reads
    // no words), the gamma of shape n (draw 1) times it, the Poisson of that (draw 2).
    for (i, (n, p)) in [(3.0f64, 0.4f64), (0.5, 0.9), (40.0, 0.01)]
        .into_iter()
        .enumerate()
    {
        let seed = 830 + i as u64;
        let key = seed_key(seed);
        let got = counts(
            &default_rng(Some(seed))
                .negative_binomial(one(n), one(p), Some(&[N / 2][..]))
                .unwrap(),
        );
        let scale = div_d64(1.0 - p, p);
        let want = |e: u32| poisson_f64(key, 2, e, gamma_f64(key, 1, e, n) * scale);
        bad.push(("negative_binomial", n, count_differing(&got, want)));
    }
    eprintln!("differing: {bad:?}");
    assert!(bad.iter().all(|b| b.2 == 0));
}

#[test]
fn float64_poisson_passes_chi_square_against_scipy() {
    let n = 1usize << 17;
    let g = default_rng(Some(2032));
    let mut script = String::from("import numpy as np\nfrom scipy import stats\nout = []\n");
    for lam in [3.0, 42.0, 1e4] {
        let k = counts(&g.poisson(one(lam), Some(&[n][..])).unwrap());
        let vals: Vec<String> = k.iter().map(|x| format!("{x}")).collect();
        script.push_str(&format!(
            "x = np.array([{}])\nlo, hi = stats.poisson.ppf([1e-4, 1 - 1e-4], {lam})\n\
             edges = np.arange(lo, hi + 2)\nobs = np.histogram(np.clip(x, lo, hi), edges)[0]\n\
             cdf = stats.poisson.cdf(edges[:-1], {lam})\n\
             exp = np.diff(np.concatenate([[0.0], cdf[:-1], [1.0]])) * len(x)\n\
             keep = exp > 20\nobs2 = obs[keep]\nexp2 = exp[keep]\n\
             if (~keep).any(): obs2 = np.append(obs2, obs[~keep].sum()); exp2 = np.append(exp2, exp[~keep].sum())\n\
             out.append(stats.chisquare(obs2, exp2 * obs2.sum() / exp2.sum()).pvalue)\n",
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
    let p: Vec<f64> = String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .map(|s| s.parse().unwrap())
        .collect();
    eprintln!("chi-square p-values: {p:?}");
    assert_eq!(p.len(), 3);
    assert!(p.iter().all(|&v| v > 1e-3), "{p:?}");
}

#[test]
fn float64_binomials_are_their_cpu_emulation_bit_for_bit() {
    use kp::random::philox::transforms64::binomial_f64;
    let mut bad = vec![];
    for (i, (n, p)) in [
        (10.0f64, 0.3f64),
        (1000.0, 0.7),
        (1e9, 0.25),
        (5.0, 0.999),
        (0.0, 0.5),
        (7.0, 1.0),
        (7.0, 0.0),
        (40.0, 0.5),
        (1e6, 1e-9),
    ]
    .into_iter()
    .enumerate()
    {
        let seed = 900 + i as u64;
        let key = seed_key(seed);
        let got = counts(
            &default_rng(Some(seed))
                .binomial(one(n), one(p), Some(&[N][..]))
                .unwrap(),
        );
        bad.push((
            n,
            p,
            count_differing(&got, |e| binomial_f64(key, 0, e, n, p)),
        ));
    }
    eprintln!("differing: {bad:?}");
    assert!(bad.iter().all(|b| b.2 == 0));
    // The law: mean and variance of binomial(1000, 0.7) within 5 standard errors.
    let m = 1usize << 17;
    let k = counts(
        &default_rng(Some(2033))
            .binomial(one(1000.0), one(0.7), Some(&[m][..]))
            .unwrap(),
    );
    let mean = k.iter().sum::<f64>() / m as f64;
    let var = k.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / m as f64;
    assert!(
        (mean - 700.0).abs() < 5.0 * (210.0 / m as f64).sqrt(),
        "mean {mean}"
    );
    assert!(
        (var - 210.0).abs() < 5.0 * 210.0 * (2.0 / m as f64).sqrt(),
        "variance {var}"
    );
}

#[test]
fn float64_vonmises_is_its_cpu_emulation_bit_for_bit() {
    use kp::random::philox::vonmises::vonmises_f64;
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
        (1e10, 2.0),
        (0.0, f64::NAN),
        (f64::NAN, 1.0),
        (f64::INFINITY, 1.0),
    ]
    .into_iter()
    .enumerate()
    {
        let seed = 1100 + i as u64;
        let key = seed_key(seed);
        let got = f64s(
            &default_rng(Some(seed))
                .vonmises(one(mu), one(kappa), Some(&[N][..]))
                .unwrap(),
        );
        let want = |e: u32| vonmises_f64(key, 0, e, mu, kappa);
        bad.push((mu, kappa, count_differing(&got, want)));
    }
    // Per-element concentrations over every branch, a scalar mode.
    let cols = 256;
    let kappas: Vec<f64> = (0..cols)
        .map(|i| match i % 4 {
            0 => i as f64 * 1e-7,
            _ => i as f64 * 0.05,
        })
        .collect();
    let seed = 1120;
    let key = seed_key(seed);
    let got = f64s(
        &default_rng(Some(seed))
            .vonmises(
                -1.0,
                Array::from_slice(&kappas, &[cols]).unwrap(),
                Some(&[N / cols, cols][..]),
            )
            .unwrap(),
    );
    let want = |e: u32| vonmises_f64(key, 0, e, -1.0, kappas[e as usize % cols]);
    bad.push((-1.0, -1.0, count_differing(&got, want)));
    eprintln!("differing: {bad:?}");
    assert!(bad.iter().all(|b| b.2 == 0));
}

#[test]
fn float64_vonmises_passes_kolmogorov_smirnov() {
    let n = 1usize << 17;
    let g = default_rng(Some(2034));
    let s = Some(&[n][..]);
    let mut samples = vec![];
    for (mu, kappa) in [(1.0f64, 0.5f64), (-3.0, 4.0), (0.0, 1e-6), (2.0, 300.0)] {
        // SciPy's support is [mu - pi, mu + pi]: compare x - mu wrapped into [-pi, pi).
        let x: Vec<f64> = f64s(&g.vonmises(one(mu), one(kappa), s).unwrap())
            .into_iter()
            .map(|v| {
                assert!(v.abs() <= std::f64::consts::PI);
                (v - mu + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU)
                    - std::f64::consts::PI
            })
            .collect();
        samples.push((format!("stats.vonmises({kappa}).cdf"), x));
    }
    // kappa above 1e6: the wrapped normal of variance 1 / kappa.
    samples.push((
        "stats.norm(0.5, 1 / np.sqrt(1e7)).cdf".to_string(),
        f64s(&g.vonmises(one(0.5), one(1e7), s).unwrap()),
    ));
    let named: Vec<(&str, Vec<f64>)> = samples
        .iter()
        .map(|(d, v)| (d.as_str(), v.clone()))
        .collect();
    let p = ks(&named);
    eprintln!("KS p-values: {p:?}");
    for ((name, _), pv) in named.iter().zip(&p) {
        assert!(*pv > 1e-3, "{name}: p = {pv}");
    }
}

#[test]
fn float64_zipf_is_its_cpu_emulation_bit_for_bit() {
    use kp::random::philox::zipf::zipf_f64;
    let mut bad = vec![];
    for (i, a) in [
        1.0001f64,
        1.1,
        1.5,
        2.0,
        3.5,
        50.0,
        1024.9,
        1025.0,
        f64::INFINITY,
    ]
    .into_iter()
    .enumerate()
    {
        let seed = 1200 + i as u64;
        let key = seed_key(seed);
        let got = counts(
            &default_rng(Some(seed))
                .zipf_computed_in(a, Some(&[N][..]), DType::F64)
                .unwrap(),
        );
        bad.push((a, count_differing(&got, |e| zipf_f64(key, 0, e, a))));
    }
    // Per-element exponents (a float64 array).
    let cols = 512;
    let a: Vec<f64> = (0..cols).map(|i| 1.01 + i as f64 * 0.013).collect();
    let seed = 1220;
    let key = seed_key(seed);
    let got = counts(
        &default_rng(Some(seed))
            .zipf(
                Array::from_slice(&a, &[cols]).unwrap(),
                Some(&[N / cols, cols][..]),
            )
            .unwrap(),
    );
    bad.push((
        -1.0,
        count_differing(&got, |e| zipf_f64(key, 0, e, a[e as usize % cols])),
    ));
    eprintln!("differing: {bad:?}");
    assert!(bad.iter().all(|b| b.1 == 0));
}

#[test]
fn float64_hypergeometric_is_its_cpu_emulation_bit_for_bit() {
    use kp::random::philox::hypergeometric::hypergeometric_f64;
    let mut bad = vec![];
    for (i, (good, nbad, sample)) in [
        (7i64, 5i64, 12i64),
        (100, 200, 5),
        (100, 200, 295),
        (10, 10, 10),
        (2000, 1000, 2500),
        (5_000_000, 1_000_000, 2_000_000),
        (0, 50, 20),
        (400_000_000, 500_000_000, 300_000_000),
        (999_999_999, 999_999_999, 1_999_999_990),
        (7, 5, 0),
        (0, 0, 0),
    ]
    .into_iter()
    .enumerate()
    {
        let seed = 1300 + i as u64;
        let key = seed_key(seed);
        let got = counts(
            &default_rng(Some(seed))
                .hypergeometric_computed_in(good, nbad, sample, Some(&[N][..]), DType::F64)
                .unwrap(),
        );
        let want = |e: u32| hypergeometric_f64(key, 0, e, good as f64, nbad as f64, sample as f64);
        bad.push((good, nbad, sample, count_differing(&got, want)));
    }
    eprintln!("differing: {bad:?}");
    assert!(bad.iter().all(|b| b.3 == 0));
}

#[test]
fn the_float64_ziggurat_tails_float32_step_rounds_to_nearest_even() {
    use kp::random::philox::ziggurat::ln_unit_fenced_f64;
    use kp::random::philox::{library, philox4x32_10};
    // kp_f64_to_f32_rne (WGSL lets a conversion of an inexact float64 round either way) and
    // the float64 ziggurat tail's logarithm built on it, against Rust's `as f32` (round to
    // nearest, ties to even) and the emulation: exact ties of both parities in every binade
    // the 53-bit uniforms reach, and random 53-bit uniforms.
    let mut x = vec![];
    for k in 0..53 {
        let lo = 2f64.powi(-k - 1);
        for j in 0..64u64 {
            // (2^24 + 2 j + 1) 2^-24 lo: halfway between two float32s (j even: the lower is
            // even; j odd: the upper), then just above and just below a tie.
            let t = (16_777_216.0 + (2 * j + 1) as f64) * lo * 2f64.powi(-24);
            let d = lo * 2f64.powi(-50);
            x.extend([t, t + d, t - d]);
        }
    }
    for i in 0..(N as u32 - x.len() as u32) {
        let b = philox4x32_10([i, 7, 0, 0], [1, 2]);
        let u = (f64::from(b[0] >> 5) * 67_108_864.0 + f64::from((b[1] >> 6) + 1))
            * (1.0 / 9_007_199_254_740_992.0);
        x.push(u * 2f64.powi(-((b[2] % 20) as i32)));
    }
    assert!(x.iter().all(|&v| v > 0.0 && v <= 1.0));
    let src = format!(
        "{}\n{}\n{}\n\
         @group(0) @binding(1) var<storage, read> xs: array<f64>;\n\
         @group(0) @binding(2) var<storage, read_write> narrow: array<u32>;\n\
         @group(0) @binding(3) var<storage, read_write> lns: array<f64>;\n\
         @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {{\n\
             if (g.x < arrayLength(&xs)) {{\n\
                 narrow[g.x] = bitcast<u32>(kp_f64_to_f32_rne(xs[g.x]));\n\
                 lns[g.x] = kp_ln_unit_fenced_f64(xs[g.x]);\n\
             }}\n\
         }}\n",
        include_str!("../shaders/libm_f32.wgsl"),
        include_str!("../shaders/libm_f64.wgsl"),
        library(["kp_f64_to_f32_rne", "kp_ln_unit_fenced_f64"], false),
    );
    let xs = Array::from_slice(&x, &[x.len()]).unwrap();
    let narrow = kp::zeros(&[x.len()], Some(DType::U32))
        .unwrap()
        .copy()
        .unwrap();
    let lns = kp::zeros(&[x.len()], Some(DType::F64))
        .unwrap()
        .copy()
        .unwrap();
    let groups = x.len().div_ceil(64) as u32;
    kp::RawKernel::new(&src, "main")
        .unwrap()
        .launch([groups, 1, 1], kp::args![&xs, &narrow, &lns])
        .unwrap();
    let narrow = narrow.to_vec::<u32>().unwrap();
    let lns = lns.to_vec::<f64>().unwrap();
    let bad_narrow = x
        .iter()
        .zip(&narrow)
        .filter(|(v, b)| (**v as f32).to_bits() != **b)
        .count();
    let bad_ln = x
        .iter()
        .zip(&lns)
        .filter(|(v, l)| ln_unit_fenced_f64(**v).to_bits() != l.to_bits())
        .count();
    assert_eq!((bad_narrow, bad_ln), (0, 0));
    // The ties did round to even, both ways.
    assert_eq!(narrow[0], 0.5f32.to_bits());
    assert_eq!(narrow[3], (0.5f32 + 2f32.powi(-23)).to_bits());
}
