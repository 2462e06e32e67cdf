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
    for name in ["mandelbrot", "imagelab", "playground", "bench"] {
        assert!(
            source::snippet(name).is_some_and(|s| s.contains("kp::")),
            "{name}"
        );
    }
}
