//! The demos' kupfer code against independent CPU references (natively, on whatever adapter
//! is there — lavapipe in CI). The browser test then checks the page against this same code.

use kupfer_web::{imagelab, mandelbrot, playground, source};

/// Smooth escape counts the plain way, in float32 like the GPU.
fn mandelbrot_cpu(v: &mandelbrot::View) -> Vec<f32> {
    let lin = |a: f64, b: f64, n: usize, i: usize| -> f32 {
        if i + 1 == n {
            b as f32
        } else {
            (a + i as f64 * ((b - a) / (n - 1) as f64)) as f32
        }
    };
    let mut out = Vec::with_capacity(v.width * v.height);
    for j in 0..v.height {
        for i in 0..v.width {
            let (cr, ci) = (
                lin(v.x_min, v.x_max, v.width, i),
                lin(v.y_min, v.y_max, v.height, j),
            );
            let (mut zr, mut zi) = (0f32, 0f32);
            let mut s = 0f32;
            for n in 0..v.max_iter {
                (zr, zi) = (zr * zr - zi * zi + cr, 2.0 * zr * zi + ci);
                let r = zr.hypot(zi);
                if r > 2.0 {
                    s = (n + 1) as f32 - r.ln().ln() / std::f32::consts::LN_2;
                    break;
                }
            }
            out.push(s);
        }
    }
    out
}

#[test]
fn mandelbrot_matches_a_cpu_loop() {
    for v in [
        mandelbrot::View::home(64, 48, 40),
        mandelbrot::View {
            x_min: -0.75,
            x_max: -0.73,
            y_min: 0.1,
            y_max: 0.115,
            width: 37,
            height: 29,
            max_iter: 60,
        },
    ] {
        let frame = pollster::block_on(mandelbrot::render(&v)).expect("render");
        let cpu = mandelbrot_cpu(&v);
        assert_eq!(frame.smooth.len(), cpu.len());
        assert_eq!(frame.rgba.len(), cpu.len() * 4);
        let off = frame
            .smooth
            .iter()
            .zip(&cpu)
            .filter(|(g, c)| (*g - *c).abs() > 1e-3 * c.abs().max(1.0))
            .count();
        assert!(
            off * 50 <= cpu.len(),
            "{v:?}: {off} of {} pixels differ",
            cpu.len()
        );
        // Inside the set is black, opaque everywhere.
        for (k, s) in frame.smooth.iter().enumerate() {
            let p = &frame.rgba[k * 4..k * 4 + 4];
            assert_eq!(p[3], 255);
            if *s == 0.0 {
                assert_eq!(&p[..3], &[0, 0, 0]);
            }
        }
    }
}

#[test]
fn image_lab_matches_a_cpu_loop() {
    let (w, h) = (29, 17);
    let img = imagelab::sample(w, h);
    assert_eq!(img.len(), w * h * 4);
    let px = imagelab::upload(&img, w, h).expect("upload");
    let f = |b: u8| f64::from(b) / 255.0;
    let lum = |r: f64, g: f64, b: f64| 0.2126 * r + 0.7152 * g + 0.0722 * b;
    // brightness and gamma
    let adj = imagelab::Adjust {
        brightness: -0.1,
        gamma: 2.0,
        ..Default::default()
    };
    let out = pollster::block_on(imagelab::download(&imagelab::apply(&px, &adj).unwrap())).unwrap();
    for (k, (a, b)) in out.iter().zip(&img).enumerate() {
        let want = if k % 4 == 3 {
            255.0
        } else {
            ((f(*b) - 0.1).clamp(0.0, 1.0).powf(0.5) * 255.0).round()
        };
        assert!(
            (f64::from(*a) - want).abs() <= 1.0,
            "byte {k}: {a} vs {want}"
        );
    }
    // edges: central differences of the luminance, two pixels smaller
    let adj = imagelab::Adjust {
        edges: true,
        ..Default::default()
    };
    let e = imagelab::apply(&px, &adj).unwrap();
    assert_eq!(e.shape(), &[h - 2, w - 2]);
    let out = pollster::block_on(imagelab::download(&e)).unwrap();
    let l = |i: usize, j: usize| {
        let p = &img[(j * w + i) * 4..];
        lum(f(p[0]), f(p[1]), f(p[2]))
    };
    for j in 1..h - 1 {
        for i in 1..w - 1 {
            let (gx, gy) = (l(i + 1, j) - l(i - 1, j), l(i, j + 1) - l(i, j - 1));
            let want = ((gx.hypot(gy) * 2.0).clamp(0.0, 1.0) * 255.0).round();
            let got = f64::from(out[((j - 1) * (w - 2) + i - 1) * 4]);
            assert!(
                (got - want).abs() <= 1.0,
                "edge ({i}, {j}): {got} vs {want}"
            );
        }
    }
    // a wrong byte count is an error, not a panic
    assert!(imagelab::upload(&img[1..], w, h).is_err());
}

#[test]
fn playground_prints_like_numpy_and_errors_in_one_line() {
    let inputs: Vec<(String, kupfer::Array)> = playground::inputs()
        .unwrap()
        .into_iter()
        .map(|(n, a, _)| (n, a))
        .collect();
    let run = |e: &str| pollster::block_on(playground::run(e, &inputs));
    assert_eq!(run("a.sum(axis=0)").unwrap(), "[12. 15. 18. 21.]");
    assert_eq!(run("b * 2 + 1").unwrap(), "[1 3 5 7]");
    assert_eq!(run("x.shape").unwrap(), "(1000000,)");
    let mean: f64 = run("r.mean()").unwrap().parse().unwrap();
    assert!((0.45..0.55).contains(&mean), "noise mean {mean}");
    for bad in ["a +", "foo(1)", "a + np.ones(5)", "zz"] {
        let e = run(bad).unwrap_err();
        assert!(!e.contains('\n') && !e.is_empty(), "{bad}: {e}");
    }
    assert!(run("a +").unwrap_err().contains("column"));
    for e in playground::EXAMPLES {
        assert!(run(e).is_ok(), "the page's example `{e}`: {:?}", run(e));
    }
}

#[test]
fn the_page_shows_each_demos_code() {
    for name in ["mandelbrot", "imagelab", "filters", "playground", "bench"] {
        assert!(
            source::snippet(name).is_some_and(|s| s.contains("kp::")),
            "{name}"
        );
    }
    let f = source::snippet("filters").unwrap_or_default();
    for call in ["signal::convolve2d", "fft::rfft2", "fft::irfft2", "fftfreq"] {
        assert!(f.contains(call), "the filters' code shows {call}");
    }
}

/// SciPy's `symm` boundary: mirrored with the edge repeated (-1 → 0, n → n - 1).
fn symm(i: isize, n: usize) -> usize {
    let n = n as isize;
    let mut i = i;
    while i < 0 || i >= n {
        i = if i < 0 { -i - 1 } else { 2 * n - i - 1 };
    }
    i as usize
}

/// `convolve2d(x, k, 'same', 'symm')` as a direct loop in f64.
fn convolve_cpu(x: &[f64], w: usize, h: usize, k: &[f32], n: usize) -> Vec<f64> {
    let c = (n / 2) as isize;
    let mut out = vec![0.0; w * h];
    for j in 0..h {
        for i in 0..w {
            let mut s = 0.0;
            for a in 0..n {
                for b in 0..n {
                    let y = symm(j as isize + c - a as isize, h);
                    let xx = symm(i as isize + c - b as isize, w);
                    s += f64::from(k[a * n + b]) * x[y * w + xx];
                }
            }
            out[j * w + i] = s;
        }
    }
    out
}

/// One DFT along rows or columns of a complex (re, im) image, f64.
fn dft_axis(z: &[(f64, f64)], w: usize, h: usize, rows: bool, inverse: bool) -> Vec<(f64, f64)> {
    let (len, count) = if rows { (w, h) } else { (h, w) };
    let at = |line: usize, k: usize| if rows { line * w + k } else { k * w + line };
    let sign = if inverse { 1.0 } else { -1.0 };
    let mut out = vec![(0.0, 0.0); z.len()];
    for line in 0..count {
        for f in 0..len {
            let (mut re, mut im) = (0.0, 0.0);
            for k in 0..len {
                let t = sign * 2.0 * std::f64::consts::PI * (f * k % len) as f64 / len as f64;
                let (a, b) = z[at(line, k)];
                re += a * t.cos() - b * t.sin();
                im += a * t.sin() + b * t.cos();
            }
            let s = if inverse { 1.0 / len as f64 } else { 1.0 };
            out[at(line, f)] = (re * s, im * s);
        }
    }
    out
}

/// The FFT filter by a full complex DFT in f64: the Gaussian mask of the radial frequency
/// (NumPy's fftfreq) on every frequency, then the real part of the inverse.
fn fourier_cpu(x: &[f64], w: usize, h: usize, cutoff: f64, high: bool) -> Vec<f64> {
    let freq = |k: usize, n: usize| {
        let k = if k < n.div_ceil(2) {
            k as f64
        } else {
            k as f64 - n as f64
        };
        k / n as f64
    };
    let z: Vec<(f64, f64)> = x.iter().map(|&v| (v, 0.0)).collect();
    let mut s = dft_axis(&dft_axis(&z, w, h, true, false), w, h, false, false);
    for j in 0..h {
        for i in 0..w {
            let r2 = freq(j, h).powi(2) + freq(i, w).powi(2);
            let low = (-0.5 * r2 / (cutoff * cutoff)).exp();
            let m = if high { 1.0 - low } else { low };
            let v = &mut s[j * w + i];
            *v = (v.0 * m, v.1 * m);
        }
    }
    let back = dft_axis(&dft_axis(&s, w, h, false, true), w, h, true, true);
    back.iter()
        .map(|v| v.0 + if high { 0.5 } else { 0.0 })
        .collect()
}

#[test]
fn image_filters_match_a_cpu_reference() {
    use kupfer_web::filters::{self, Filter};
    let f = |b: u8| f64::from(b) / 255.0;
    let byte = |v: f64| (v.clamp(0.0, 1.0) * 255.0).round();
    // odd sizes (Bluestein FFTs, asymmetric edges) and an even one (radix FFTs, Nyquist)
    for (w, h) in [(29, 17), (24, 16)] {
        let img = imagelab::sample(w, h);
        let px = imagelab::upload(&img, w, h).expect("upload");
        let chan = |k: usize| -> Vec<f64> { img.chunks(4).map(|p| f(p[k])).collect() };
        let lum: Vec<f64> = img
            .chunks(4)
            .map(|p| 0.2126 * f(p[0]) + 0.7152 * f(p[1]) + 0.0722 * f(p[2]))
            .collect();
        let cases = [
            Filter::Box3,
            Filter::Box5,
            Filter::Gaussian,
            Filter::Sharpen,
            Filter::Sobel,
            Filter::LowPass(0.08),
            Filter::HighPass(0.08),
        ];
        for filter in cases {
            let adj = imagelab::Adjust {
                filter,
                ..Default::default()
            };
            let out = imagelab::apply(&px, &adj).expect("filter");
            assert_eq!(out.shape(), &[h, w], "{filter:?}");
            let got = pollster::block_on(imagelab::download(&out)).unwrap();
            let want: [Vec<f64>; 3] = match filter {
                Filter::Sobel => {
                    let sx = filters::SOBEL_X;
                    let sy: Vec<f32> = (0..9).map(|i| sx[(i % 3) * 3 + i / 3]).collect();
                    let gx = convolve_cpu(&lum, w, h, &sx, 3);
                    let gy = convolve_cpu(&lum, w, h, &sy, 3);
                    let m: Vec<f64> = gx.iter().zip(&gy).map(|(a, b)| a.hypot(*b) * 0.5).collect();
                    [m.clone(), m.clone(), m]
                }
                Filter::LowPass(c) | Filter::HighPass(c) => {
                    let high = matches!(filter, Filter::HighPass(_));
                    std::array::from_fn(|k| fourier_cpu(&chan(k), w, h, c, high))
                }
                _ => {
                    let (k, n) = filters::kernel(filter).expect("a kernel filter");
                    std::array::from_fn(|c| convolve_cpu(&chan(c), w, h, &k, n))
                }
            };
            for p in 0..w * h {
                for c in 0..4 {
                    let want = if c == 3 { 255.0 } else { byte(want[c][p]) };
                    let g = f64::from(got[p * 4 + c]);
                    assert!(
                        (g - want).abs() <= 1.0,
                        "{filter:?} {w}x{h} pixel {p} channel {c}: {g} vs {want}"
                    );
                }
            }
        }
    }
    // names, and a clear error for an unknown one
    for name in Filter::NAMES {
        assert!(Filter::parse(name, 0.1).is_ok(), "{name}");
    }
    assert_eq!(Filter::parse("lowpass", 0.2).unwrap(), Filter::LowPass(0.2));
    let e = Filter::parse("blurry", 0.1).unwrap_err().to_string();
    assert!(e.contains("blurry"), "{e}");
}
