//! The default normals and exponentials, float32 and float64 (the ziggurats of
//! `kupfer_core::random::ziggurat`: 16384 layers for the float32 normal by default, 256 for the others), `normal(loc, scale)`, `lognormal` and the float32 gamma
//! sampler (`kupfer_core::random::gamma`): the GPU's draws are the CPU emulation's bits (the
//! emulation performs exactly the float operations of the WGSL, none fused: what every driver
//! computes, so this is the test that the draws are the same bits on every driver), through
//! every kind of kernel that hosts a draw (four draws per Philox block in a contiguous
//! elementwise kernel; one per element in a strided one; a larger fused expression; fused
//! reductions; a boolean-mask compaction) and with the tables from each source
//! (`KUPFER_ZIG_TABLES`: the shared storage buffer by default, `private` and `workgroup` in
//! child processes), and with the float32 normal's other layer counts
//! (`KUPFER_ZIG_NORMAL32=4096`, `8192`, in child processes); and the distributions against
//! SciPy: Kolmogorov-Smirnov and moments on 2^20 draws, the tails beyond 3.5, 4, r, 4.5 and
//! 5 sigma against the exact probabilities, and the tails' own shape.
//!
//! Needs python3 with SciPy and a GPU adapter (lavapipe will do); fails, never skips. Run with
//! `KUPFER_RANDN` and `KUPFER_RANDEXP` unset or `ziggurat` (the defaults).

use kp::random::default_rng;
use kp::random::philox::ziggurat::{
    exp_det_f32, exponential_f32, normal32_layers, normal32_r, normal32_tables, normal_f32,
    EXPONENTIAL_R, NORMAL_R,
};
use kp::random::philox::RandomOp;
use kp::random::philox::{
    exponential_form, normal_form, seed_key, ziggurat::table_source, ExponentialForm, NormalForm,
};
use kp::{Array, SliceArg};
use kupfer as kp;
use std::io::Write;
use std::process::Command;

fn f32s(a: &Array) -> Vec<f32> {
    a.to_vec::<f32>().unwrap()
}

/// Every other column of a (rows, 2 cols) draw: a strided view, drawn one element per thread.
fn every_other_column(a: &Array) -> Vec<f32> {
    let all = SliceArg::Slice {
        start: None,
        stop: None,
        step: None,
    };
    let step2 = SliceArg::Slice {
        start: None,
        stop: None,
        step: Some(2),
    };
    f32s(&a.slice(&[all, step2]).unwrap().copy().unwrap())
}

fn choose_the_ziggurat_forms() {
    // The ziggurats are the default forms (nothing in this binary chooses another).
    assert_eq!(
        normal_form(),
        NormalForm::Ziggurat,
        "the default normal form (is KUPFER_RANDN set?)"
    );
    assert_eq!(
        exponential_form(),
        ExponentialForm::Ziggurat,
        "the default exponential form (is KUPFER_RANDEXP set?)"
    );
}

/// How many of `got` differ from `want(e)` in their bits.
fn differing(got: &[f32], want: impl Fn(usize) -> f32) -> usize {
    got.iter()
        .enumerate()
        .filter(|(e, g)| g.to_bits() != want(*e).to_bits())
        .count()
}

#[test]
fn ziggurat_draws_are_their_cpu_emulation_bit_for_bit() {
    choose_the_ziggurat_forms();
    let n = 1usize << 17;
    // The contiguous normals: enough that a few hundred take the slow path (the tails beyond
    // the last layer, 2.5e-6 of draws with 16384 layers, are checked on the larger sample of
    // the Kolmogorov-Smirnov test).
    let nz = 1usize << 20;
    let seed = 2026u64;
    let key = seed_key(seed);
    let g = default_rng(Some(seed));
    // Draw 0: contiguous normals; 1: strided normals; 2: contiguous exponentials;
    // 3: strided exponentials; 4, 5: normal(loc, scale) with scalar and array parameters;
    // 6: lognormal.
    let z = f32s(&g.standard_normal(&[nz], None).unwrap());
    let zs = every_other_column(&g.standard_normal(&[n / 1024, 2048], None).unwrap());
    let x = f32s(&g.standard_exponential(&[n], None).unwrap());
    let xs = every_other_column(&g.standard_exponential(&[n / 1024, 2048], None).unwrap());
    let affine = f32s(&g.normal(1.5, 0.3, Some(&[n])).unwrap());
    let locs: Vec<f32> = (0..1000).map(|i| i as f32 * 0.37 - 100.0).collect();
    let loc = Array::from_slice(&locs, &[1000]).unwrap();
    let affine_arr = f32s(&g.normal(loc, 2.5, Some(&[n / 1000, 1000])).unwrap());
    let lognormal = f32s(&g.lognormal(0.5, 0.75, Some(&[n])).unwrap());
    let strided = |e: usize| (e / 1024 * 2048 + e % 1024 * 2) as u32;
    let checks = [
        differing(&z, |e| normal_f32(key, 0, e as u32)),
        differing(&zs, |e| normal_f32(key, 1, strided(e))),
        differing(&x, |e| exponential_f32(key, 2, e as u32)),
        differing(&xs, |e| exponential_f32(key, 3, strided(e))),
        differing(&affine, |e| 0.3f32 * normal_f32(key, 4, e as u32) + 1.5),
        differing(&affine_arr, |e| {
            2.5f32 * normal_f32(key, 5, e as u32) + locs[e % 1000]
        }),
        differing(&lognormal, |e| {
            exp_det_f32(0.75f32 * normal_f32(key, 6, e as u32) + 0.5)
        }),
    ];
    eprintln!("values differing from the CPU emulation: {checks:?}");
    assert_eq!(checks, [0; 7]);
    // The slow paths ran: the normals' words whose fast try is rejected (layer i = w & (L - 1),
    // the odd s = 2 (w >> log2 L) + 1 - 2^(32 - log2 L) not below K_i; 0.03% of words with
    // 16384 layers), as many as the tables make likely (within 5 binomial standard deviations).
    let t = normal32_tables();
    let shift = t.shift;
    let slow = (0..nz as u32)
        .filter(|&e| {
            let w = kp::random::philox::stream_word(key, 0, e, 0);
            let s = ((((w >> shift) << 1) | 1) as i32 - (1 << (32 - shift))).unsigned_abs();
            s >= t.fast[(w & ((1 << shift) - 1)) as usize][0]
        })
        .count();
    let accepted: u64 = t.fast.iter().map(|&[k, _]| u64::from(k).div_ceil(2)).sum();
    let p = 1.0 - accepted as f64 / (t.fast.len() as f64 * f64::from(1u32 << (31 - shift)));
    let (mean, sd) = (nz as f64 * p, (nz as f64 * p * (1.0 - p)).sqrt());
    let exp_tails = x.iter().filter(|&&v| v > EXPONENTIAL_R as f32).count();
    eprintln!(
        "{} layers: slow paths {slow} of {nz} ({mean:.0} expected); exponential tails {exp_tails}",
        normal32_layers()
    );
    assert!(
        (slow as f64 - mean).abs() < 5.0 * sd && slow > 100,
        "{slow} slow paths"
    );
    assert!(exp_tails > 5);
}

#[test]
fn a_fused_reduction_sees_the_same_ziggurat_draws() {
    choose_the_ziggurat_forms();
    let g = default_rng(Some(8));
    let z = g.standard_normal(&[7, 1001], None).unwrap();
    let sq = kp::sum(&(&z * &z), kp::Axis::Many(vec![1]), false)
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    let zs = f32s(&z);
    let key = seed_key(8);
    assert!(zs
        .iter()
        .enumerate()
        .all(|(e, v)| v.to_bits() == normal_f32(key, 0, e as u32).to_bits()));
    for (r, s) in sq.iter().enumerate() {
        let want: f64 = zs[r * 1001..(r + 1) * 1001]
            .iter()
            .map(|v| f64::from(v * v))
            .sum();
        assert!((f64::from(*s) - want).abs() < 1e-3 * want, "row {r}");
    }
}

/// Element `e` of the float32 uniform of draw `draw` (exact in float64).
fn uniform32(key: [u32; 2], draw: u64, e: u32) -> f32 {
    kp::random::philox::reference(RandomOp::Uniform, kp::DType::F32, key, draw, e, 0) as f32
}

#[test]
fn draws_fused_into_expressions_reductions_and_compactions_are_the_emulation_bits() {
    use kp::random::philox::ziggurat::{exponential_f64, normal_f64};
    choose_the_ziggurat_forms();
    let key = seed_key(77);
    let g = default_rng(Some(77));
    // float32, one elementwise kernel with three draws: z 2 + x - u (z 2 is exact, so a
    // contraction into a fused multiply-add changes nothing), at a length of whole blocks
    // (four draws per Philox block) and a ragged one (one per element).
    let mut draw = 0u64;
    for n in [1usize << 14, 3 * 4099] {
        let z = g.standard_normal(&[n], None).unwrap();
        let x = g.standard_exponential(&[n], None).unwrap();
        let u = g.random(&[n], None).unwrap();
        let got = f32s(&(&(&(&z * 2.0) + &x) - &u));
        let bad = differing(&got, |e| {
            let e = e as u32;
            (normal_f32(key, draw, e) * 2.0 + exponential_f32(key, draw + 1, e))
                - uniform32(key, draw + 2, e)
        });
        assert_eq!(bad, 0, "float32 expression of length {n}");
        draw += 3;
    }
    // float64, the same expression.
    let f64s = |a: &Array| a.to_vec::<f64>().unwrap();
    let n = 5001;
    let z = g.standard_normal(&[n], Some(kp::DType::F64)).unwrap();
    let x = g.standard_exponential(&[n], Some(kp::DType::F64)).unwrap();
    let u = g.random(&[n], Some(kp::DType::F64)).unwrap();
    let got = f64s(&(&(&(&z * 2.0) + &x) - &u));
    let f64_draw = draw;
    let bad = got
        .iter()
        .enumerate()
        .filter(|(e, v)| {
            let e = *e as u32;
            let u = kp::random::philox::reference(
                RandomOp::Uniform,
                kp::DType::F64,
                key,
                f64_draw + 2,
                e,
                0,
            );
            let want =
                (normal_f64(key, f64_draw, e) * 2.0 + exponential_f64(key, f64_draw + 1, e)) - u;
            v.to_bits() != want.to_bits()
        })
        .count();
    assert_eq!(bad, 0, "float64 expression");
    draw += 3;
    // Reductions fused with the draws: max and min (exact in any order) of z 3 - x over rows,
    // float32 and float64.
    let (rows, cols) = (6usize, 1003usize);
    for dtype in [kp::DType::F32, kp::DType::F64] {
        let z = g.standard_normal(&[rows, cols], Some(dtype)).unwrap();
        let x = g.standard_exponential(&[rows, cols], Some(dtype)).unwrap();
        let y = &(&z * 3.0) - &x;
        let hi = kp::max(&y, kp::Axis::Many(vec![1]), false).unwrap();
        let lo = kp::min(&y, kp::Axis::Many(vec![1]), false).unwrap();
        let hi = hi.astype(kp::DType::F64).unwrap().to_vec::<f64>().unwrap();
        let lo = lo.astype(kp::DType::F64).unwrap().to_vec::<f64>().unwrap();
        let value = |e: u32| {
            if dtype == kp::DType::F32 {
                f64::from(normal_f32(key, draw, e) * 3.0 - exponential_f32(key, draw + 1, e))
            } else {
                normal_f64(key, draw, e) * 3.0 - exponential_f64(key, draw + 1, e)
            }
        };
        for r in 0..rows {
            let vals: Vec<f64> = (0..cols).map(|c| value((r * cols + c) as u32)).collect();
            let want_hi = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let want_lo = vals.iter().copied().fold(f64::INFINITY, f64::min);
            assert_eq!((hi[r], lo[r]), (want_hi, want_lo), "{dtype} row {r}");
        }
        draw += 2;
    }
    // A boolean-mask compaction reading the lazy draw (the index kernel computes it).
    let n = 20_000;
    let z = g.standard_normal(&[n], None).unwrap();
    let mask = kp::greater(&z, 1.0).unwrap();
    let got = f32s(&z.get(&[kp::Index::Array(mask)]).unwrap());
    let want: Vec<f32> = (0..n as u32)
        .map(|e| normal_f32(key, draw, e))
        .filter(|&v| v > 1.0)
        .collect();
    assert_eq!(got.len(), want.len());
    assert_eq!(differing(&got, |e| want[e]), 0, "compaction");
}

/// The draws of the table source in force, against the emulation (this binary's default
/// source here; `the_other_table_sources_draw_the_same_bits` runs it in children with the others).
#[test]
fn the_table_source_in_force_draws_the_emulation_bits() {
    use kp::random::philox::ziggurat::{exponential_f64, normal_f64};
    choose_the_ziggurat_forms();
    let wanted = std::env::var("KUPFER_ZIG_TABLES").unwrap_or_else(|_| "storage".into());
    assert_eq!(format!("{:?}", table_source()).to_lowercase(), wanted);
    let layers = std::env::var("KUPFER_ZIG_NORMAL32").unwrap_or_else(|_| "16384".into());
    assert_eq!(normal32_layers().to_string(), layers);
    assert_eq!(normal32_tables().fast.len(), normal32_layers());
    let key = seed_key(99);
    let g = default_rng(Some(99));
    let n = 1usize << 14;
    let z = f32s(&g.standard_normal(&[n], None).unwrap());
    let x = f32s(&g.standard_exponential(&[n], None).unwrap());
    let z64 = g.standard_normal(&[n], Some(kp::DType::F64)).unwrap();
    let x64 = g.standard_exponential(&[n], Some(kp::DType::F64)).unwrap();
    let bad64 = |a: Array, f: &dyn Fn(u32) -> f64| {
        let v = a.to_vec::<f64>().unwrap();
        v.iter()
            .enumerate()
            .filter(|(e, v)| v.to_bits() != f(*e as u32).to_bits())
            .count()
    };
    let checks = [
        differing(&z, |e| normal_f32(key, 0, e as u32)),
        differing(&x, |e| exponential_f32(key, 1, e as u32)),
        bad64(z64, &|e| normal_f64(key, 2, e)),
        bad64(x64, &|e| exponential_f64(key, 3, e)),
    ];
    eprintln!("{wanted}, {layers} layers: values differing from the CPU emulation: {checks:?}");
    assert_eq!(checks, [0; 4]);
}

#[test]
fn the_other_table_sources_and_layer_counts_draw_the_emulation_bits() {
    // The other sources, and the float32 normal's other layer counts (each its own bits, the
    // emulation's for that count), in child processes of this binary (both are read once per
    // process; this one reads the defaults).
    for (var, source) in [
        ("KUPFER_ZIG_TABLES", "private"),
        ("KUPFER_ZIG_TABLES", "workgroup"),
        ("KUPFER_ZIG_NORMAL32", "4096"),
        ("KUPFER_ZIG_NORMAL32", "8192"),
    ] {
        let out = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "the_table_source_in_force_draws_the_emulation_bits",
                "--test-threads=1",
            ])
            .env(var, source)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("1 passed"),
            "{var}={source}:\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Runs SciPy expressions over the float64 samples `x` of each name; returns the values.
fn scipy(samples: &[(&str, Vec<f64>)], exprs: &[(&str, &str)]) -> Vec<f64> {
    // One directory per call: the tests run in parallel in one process.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("kupfer_ziggurat_{}_{call}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, v) in samples {
        let mut f = std::fs::File::create(dir.join(format!("{name}.bin"))).unwrap();
        for x in v {
            f.write_all(&x.to_le_bytes()).unwrap();
        }
    }
    let mut script = String::from("import sys, numpy as np\nfrom scipy import stats\n");
    for (name, expr) in exprs {
        script.push_str(&format!(
            "x = np.fromfile(sys.argv[1] + '/{name}.bin', dtype='<f8')\nprint(repr(float({expr})))\n"
        ));
    }
    let out = Command::new("python3")
        .arg("-c")
        .arg(&script)
        .arg(&dir)
        .output()
        .expect("python3 runs");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect()
}

#[test]
fn ziggurat_draws_pass_kolmogorov_smirnov_and_their_tails_are_exact() {
    choose_the_ziggurat_forms();
    let n = 1usize << 22;
    let g = default_rng(Some(4242));
    let z: Vec<f64> = f32s(&g.standard_normal(&[n], None).unwrap())
        .into_iter()
        .map(f64::from)
        .collect();
    let x: Vec<f64> = f32s(&g.standard_exponential(&[n], None).unwrap())
        .into_iter()
        .map(f64::from)
        .collect();
    let aff: Vec<f64> = f32s(&g.normal(-3.0, 0.5, Some(&[1 << 20])).unwrap())
        .into_iter()
        .map(f64::from)
        .collect();
    let logn: Vec<f64> = f32s(&g.lognormal(0.5, 0.75, Some(&[1 << 20])).unwrap())
        .into_iter()
        .map(f64::from)
        .collect();
    let r = normal32_r(normal32_layers());
    let re = EXPONENTIAL_R;
    let tail: Vec<f64> = z.iter().filter(|v| v.abs() > r).map(|v| v.abs()).collect();
    // The draws beyond the last layer (2.5e-6 of them with 16384 layers: about ten here) are
    // the emulation's bits: the tail method with this layer count's r.
    let key = seed_key(4242);
    let tail_bad = (0..n as u32)
        .filter(|&e| z[e as usize].abs() > r)
        .filter(|&e| (normal_f32(key, 0, e) as f64).to_bits() != z[e as usize].to_bits())
        .count();
    eprintln!(
        "{} normal tails, {tail_bad} differing from the emulation",
        tail.len()
    );
    assert!(tail.len() >= 3 && tail_bad == 0);
    let etail: Vec<f64> = x.iter().filter(|&&v| v > re).map(|v| v - re).collect();
    let head = |v: &[f64]| v[..1 << 20].to_vec();
    let samples = [
        ("z", head(&z)),
        ("x", head(&x)),
        ("aff", aff),
        ("logn", logn),
        ("tail", tail.clone()),
        ("etail", etail.clone()),
    ];
    let exprs = [
        ("z", "stats.kstest(x, 'norm').pvalue"),
        ("x", "stats.kstest(x, 'expon').pvalue"),
        ("aff", "stats.kstest(x, 'norm', args=(-3, 0.5)).pvalue"),
        (
            "logn",
            "stats.kstest(x, 'lognorm', args=(0.75, 0, np.exp(0.5))).pvalue",
        ),
        (
            "tail",
            &format!("stats.kstest(x, 'truncnorm', args=({r}, np.inf)).pvalue"),
        ),
        ("etail", "stats.kstest(x, 'expon').pvalue"),
    ];
    let p = scipy(&samples, &exprs);
    eprintln!(
        "KS p-values (normal, exponential, normal(-3, 0.5), lognormal, normal tail, exponential tail): {p:?}"
    );
    assert!(p.iter().all(|&p| p > 1e-4), "{p:?}");
    // The normals' first four moments (SciPy's sample mean, variance, skewness and excess
    // kurtosis of all 2^22) within 5 standard deviations of the normal's 0, 1, 0, 0.
    let m = scipy(
        &[("z", z.clone())],
        &[
            ("z", "np.mean(x)"),
            ("z", "np.var(x)"),
            ("z", "stats.skew(x)"),
            ("z", "stats.kurtosis(x)"),
        ],
    );
    eprintln!("normal moments (mean, variance, skewness, excess kurtosis): {m:?}");
    let nf = n as f64;
    for ((got, want), var) in m
        .iter()
        .zip([0.0, 1.0, 0.0, 0.0])
        .zip([1.0, 2.0, 6.0, 24.0])
    {
        assert!((got - want).abs() < 5.0 * (var / nf).sqrt(), "{m:?}");
    }
    // The counts beyond thresholds around the last layer against the exact probabilities
    // (two-sided normal, exponential), within 5 standard deviations of the binomial count.
    let probs = scipy(
        &[("none", vec![0.0])],
        &[
            ("none", "2 * stats.norm.sf(3.5)"),
            ("none", "2 * stats.norm.sf(4)"),
            ("none", &format!("2 * stats.norm.sf({r})")),
            ("none", "2 * stats.norm.sf(4.5)"),
            ("none", "2 * stats.norm.sf(5)"),
            ("none", &format!("stats.expon.sf({re})")),
            ("none", "stats.expon.sf(10)"),
            ("none", "stats.expon.sf(12)"),
        ],
    );
    let counts = [
        z.iter().filter(|v| v.abs() > 3.5).count(),
        z.iter().filter(|v| v.abs() > 4.0).count(),
        tail.len(),
        z.iter().filter(|v| v.abs() > 4.5).count(),
        z.iter().filter(|v| v.abs() > 5.0).count(),
        etail.len(),
        x.iter().filter(|&&v| v > 10.0).count(),
        x.iter().filter(|&&v| v > 12.0).count(),
    ];
    for (&c, &q) in counts.iter().zip(&probs) {
        let mean = nf * q;
        let sd = (nf * q * (1.0 - q)).sqrt();
        eprintln!("beyond: {c} drawn, {mean:.1} expected");
        assert!((c as f64 - mean).abs() <= 5.0 * sd + 3.0, "{c} vs {mean}");
    }
}

#[test]
fn float32_gammas_are_their_cpu_emulation_bit_for_bit_and_pass_kolmogorov_smirnov() {
    use kp::random::philox::gamma::gamma_f32;
    // Shapes below 1 (boosted by U^(1/a)), at 1, between, and large; 2^16 draws each against
    // the emulation of the fenced sampler, then KS against SciPy's gamma on 2^17.
    let shapes = [0.3f32, 1.0, 4.5, 1000.0];
    let n = 1usize << 16;
    let g = default_rng(Some(31));
    let key = seed_key(31);
    let mut samples = Vec::new();
    for (draw, &a) in shapes.iter().enumerate() {
        let v = f32s(
            &g.standard_gamma(f64::from(a), Some(&[2 * n]), None)
                .unwrap(),
        );
        let bad = differing(&v[..n], |e| gamma_f32(key, draw as u64, e as u32, a));
        assert_eq!(
            bad, 0,
            "shape {a}: {bad} of {n} differ from the CPU emulation"
        );
        samples.push(v.into_iter().map(f64::from).collect::<Vec<f64>>());
    }
    let names = ["g0", "g1", "g2", "g3"];
    let named: Vec<(&str, Vec<f64>)> = names.iter().copied().zip(samples).collect();
    let exprs: Vec<(&str, String)> = names
        .iter()
        .zip(shapes)
        .map(|(name, a)| {
            (
                *name,
                format!("stats.kstest(x, 'gamma', args=({a},)).pvalue"),
            )
        })
        .collect();
    let exprs: Vec<(&str, &str)> = exprs.iter().map(|(a, b)| (*a, b.as_str())).collect();
    let p = scipy(&named, &exprs);
    eprintln!("gamma KS p-values: {p:?}");
    assert!(p.iter().all(|&p| p > 1e-4), "{p:?}");
}

#[test]
fn float64_ziggurat_draws_are_their_cpu_emulation_bit_for_bit() {
    use kp::random::philox::ziggurat::{exp_det_f64, exponential_f64, normal_f64};
    choose_the_ziggurat_forms();
    let g = default_rng(Some(64));
    let n = 1usize << 16;
    let f64s = |a: kp::Result<Array>| a.unwrap().to_vec::<f64>().unwrap();
    // 2n draws each: the first n against the emulation, all in the KS tests.
    let z = match g.standard_normal(&[2 * n], Some(kp::DType::F64)) {
        Ok(z) => z.to_vec::<f64>().unwrap(),
        Err(e) => panic!("lavapipe has float64: {e}"),
    };
    let x = f64s(g.standard_exponential(&[2 * n], Some(kp::DType::F64)));
    let locs: Vec<f64> = (0..1000).map(|i| f64::from(i) * 0.37 - 100.0).collect();
    let loc = Array::from_slice(&locs, &[1000]).unwrap();
    let aff = f64s(g.normal(loc, 2.5, Some(&[n / 1000, 1000])));
    let means = Array::from_slice(&[0.5f64, -1.0, 2.0, 0.0], &[4]).unwrap();
    let logn = f64s(g.lognormal(means, 0.75, Some(&[n / 4, 4])));
    let key = seed_key(64);
    let bad = |got: &[f64], want: &dyn Fn(usize) -> f64| {
        got.iter()
            .enumerate()
            .filter(|(e, v)| v.to_bits() != want(*e).to_bits())
            .count()
    };
    let checks = [
        bad(&z[..n], &|e| normal_f64(key, 0, e as u32)),
        bad(&x[..n], &|e| exponential_f64(key, 1, e as u32)),
        bad(&aff, &|e| {
            2.5 * normal_f64(key, 2, e as u32) + locs[e % 1000]
        }),
        bad(&logn, &|e| {
            exp_det_f64(0.75 * normal_f64(key, 3, e as u32) + [0.5, -1.0, 2.0, 0.0][e % 4])
        }),
    ];
    eprintln!("float64 values differing from the CPU emulation: {checks:?}");
    assert_eq!(checks, [0; 4]);
    let tails = z.iter().filter(|v| v.abs() > NORMAL_R).count();
    assert!(tails > 2, "{tails} normal tails");
    let p = scipy(
        &[("z", z), ("x", x)],
        &[
            ("z", "stats.kstest(x, 'norm').pvalue"),
            ("x", "stats.kstest(x, 'expon').pvalue"),
        ],
    );
    eprintln!("float64 KS p-values: {p:?}");
    assert!(p.iter().all(|&p| p > 1e-4), "{p:?}");
}
