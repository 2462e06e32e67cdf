//! `kupfer::fft` against NumPy (python3 at run time, transforms in complex128 of the same
//! float32/complex64 inputs): every function, sizes (1, 2, primes, smooth, powers of two,
//! Bluestein sizes), axes of 2-D/3-D arrays, strided views, norms, `n`/`s` cropping and
//! padding, and bad inputs. Accuracy is the relative L2 error against NumPy's float64 result
//! (issue 5: <= 1e-6 for powers of two, <= 5e-6 for Bluestein sizes).
//!
//! Double precision (float64 / complex128 input, adapters with SHADER_F64) is held to
//! float64 accuracy: 1e-14 relative L2 error (5e-14 for Bluestein sizes).
//!
//! Needs python3 with NumPy and a GPU adapter (lavapipe will do); fails, never skips,
//! without them.

mod common;

use common::Rng;
use kp::fft::{self, Norm};
use kp::{s, Array, Complex32, Complex64, DType};
use kupfer as kp;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

type Run = Box<dyn Fn(&Array) -> kp::Result<Array>>;

struct Case {
    id: String,
    /// Input values (interleaved re/im when complex).
    data: Vec<f32>,
    complex: bool,
    /// Uploaded as float64/complex128 (else float32/complex64).
    double: bool,
    shape: Vec<usize>,
    /// NumPy expression of `x` (the input as complex128/float64).
    expr: String,
    run: Run,
    /// Largest relative L2 error allowed.
    tol: f64,
}

const ORACLE: &str = r#"
import json, sys
import numpy as np
d = sys.argv[1]
cases = json.load(open(d + "/manifest.json"))
out = {}
for c in cases:
    raw = np.fromfile(d + "/" + c["id"] + ".in", dtype=np.float32)
    if c["complex"]:
        x = (raw[0::2] + 1j * raw[1::2]).astype(np.complex128)
    else:
        x = raw.astype(np.float64)
    x = x.reshape(c["shape"])
    try:
        r = np.asarray(eval(c["expr"]))
    except Exception as e:
        out[c["id"]] = {"error": str(e)}
        continue
    np.ascontiguousarray(r, dtype=np.complex128).view(np.float64).tofile(d + "/" + c["id"] + ".out")
    out[c["id"]] = {"shape": list(r.shape), "complex": bool(np.iscomplexobj(r))}
json.dump(out, open(d + "/results.json", "w"))
"#;

fn device() -> kp::Device {
    common::default_device()
}

fn random(seed: u64, n: usize) -> Vec<f32> {
    let mut rng = Rng(seed.wrapping_mul(0x9e3779b97f4a7c15) ^ 0xff7);
    (0..n).map(|_| (rng.unit() * 2.0 - 1.0) as f32).collect()
}

fn case(
    id: impl Into<String>,
    shape: &[usize],
    complex: bool,
    expr: impl Into<String>,
    tol: f64,
    run: impl Fn(&Array) -> kp::Result<Array> + 'static,
) -> Case {
    let id = id.into();
    let n: usize = shape.iter().product::<usize>() * if complex { 2 } else { 1 };
    let seed = id
        .bytes()
        .fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(b.into()));
    Case {
        data: random(seed, n),
        complex,
        double: false,
        shape: shape.to_vec(),
        expr: expr.into(),
        run: Box::new(run),
        tol,
        id,
    }
}

/// [`case`] of float64 / complex128 input, held to float64 accuracy.
fn case64(
    id: impl Into<String>,
    shape: &[usize],
    complex: bool,
    expr: impl Into<String>,
    run: impl Fn(&Array) -> kp::Result<Array> + 'static,
) -> Case {
    let id = id.into();
    let bluestein = shape.iter().any(|&n| tol(n) > 1e-6);
    Case {
        double: true,
        ..case(
            id,
            shape,
            complex,
            expr,
            if bluestein { 5e-14 } else { 1e-14 },
            run,
        )
    }
}

fn upload(c: &Case) -> Array {
    if c.double {
        let wide: Vec<f64> = c.data.iter().map(|&v| f64::from(v)).collect();
        return if c.complex {
            let z: Vec<Complex64> = wide
                .chunks_exact(2)
                .map(|p| Complex64::new(p[0], p[1]))
                .collect();
            Array::from_slice(&z, &c.shape).unwrap()
        } else {
            Array::from_slice(&wide, &c.shape).unwrap()
        };
    }
    if c.complex {
        let z: Vec<Complex32> = c
            .data
            .chunks_exact(2)
            .map(|p| Complex32::new(p[0], p[1]))
            .collect();
        Array::from_slice(&z, &c.shape).unwrap()
    } else {
        Array::from_slice(&c.data, &c.shape).unwrap()
    }
}

fn run_oracle(dir: &Path, cases: &[Case]) -> Value {
    std::fs::create_dir_all(dir).unwrap();
    let mut manifest = Vec::new();
    for c in cases {
        std::fs::write(
            dir.join(format!("{}.in", c.id)),
            bytemuck::cast_slice::<f32, u8>(&c.data),
        )
        .unwrap();
        manifest.push(json!({"id": c.id, "shape": c.shape, "complex": c.complex, "expr": c.expr}));
    }
    common::run_oracle(dir, &serde_json::Value::from(manifest), ORACLE)
}

fn compare(c: &Case, got: &Array, dir: &Path, res: &Value) -> Result<f64, String> {
    if let Some(e) = res.get("error") {
        return Err(format!("numpy raised {e} but kupfer returned a result"));
    }
    let want_shape: Vec<usize> = res["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as usize)
        .collect();
    if got.shape() != want_shape.as_slice() {
        return Err(format!("shape {:?}, numpy {:?}", got.shape(), want_shape));
    }
    let numpy_complex = res["complex"].as_bool().unwrap();
    let want_dtype = match (numpy_complex, c.double) {
        (true, false) => DType::Complex64,
        (true, true) => DType::Complex128,
        (false, false) => got.dtype(),
        (false, true) => DType::F64,
    };
    if got.dtype() != want_dtype {
        return Err(format!(
            "dtype {} (numpy complex: {})",
            got.dtype(),
            res["complex"]
        ));
    }
    let want = common::read_f64(&dir.join(format!("{}.out", c.id)));
    let g = common::host_pairs(got);
    let (mut num, mut den) = (0.0f64, 0.0f64);
    for (i, &(re, im)) in g.iter().enumerate() {
        let (wr, wi) = (want[2 * i], want[2 * i + 1]);
        num += (re - wr).powi(2) + (im - wi).powi(2);
        den += wr * wr + wi * wi;
    }
    let rel = if den == 0.0 {
        num.sqrt()
    } else {
        (num / den).sqrt()
    };
    if rel.is_nan() || rel > c.tol {
        return Err(format!("relative L2 error {rel:e} > {:e}", c.tol));
    }
    Ok(rel)
}

fn run_cases(name: &str, cases: Vec<Case>) {
    let _dev = device();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("fft-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let t0 = std::time::Instant::now();
    let results = run_oracle(&dir, &cases);
    let t1 = std::time::Instant::now();
    let mut failures = Vec::new();
    let mut worst = (0.0f64, String::new());
    for c in &cases {
        let a = upload(c);
        let res = &results[&c.id];
        match common::judge(res, || (c.run)(&a), |got| compare(c, got, &dir, res)) {
            Ok(Some(rel)) if rel > worst.0 => worst = (rel, c.id.clone()),
            Ok(_) => {}
            Err(e) => failures.push(format!("{} [{}]: {e}", c.id, c.expr)),
        }
    }
    common::assert_no_failures(&failures, cases.len());
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "{name}: {} cases passed, worst rel L2 {:.2e} ({}) (numpy {:.1} s, kupfer {:.1} s)",
        cases.len(),
        worst.0,
        worst.1,
        (t1 - t0).as_secs_f64(),
        t1.elapsed().as_secs_f64()
    );
}

const NORMS: [(Norm, &str); 3] = [
    (Norm::Backward, "backward"),
    (Norm::Ortho, "ortho"),
    (Norm::Forward, "forward"),
];

/// Tolerance of a size: Stockham (smooth) or Bluestein.
fn tol(n: usize) -> f64 {
    let mut m = n;
    for p in [2, 3, 5, 7] {
        while m.is_multiple_of(p) {
            m /= p;
        }
    }
    if m == 1 {
        1e-6
    } else {
        5e-6
    }
}

#[test]
fn one_d_sizes_and_norms() {
    let sizes = [
        1usize, 2, 3, 5, 7, 8, 12, 16, 17, 97, 100, 128, 243, 1000, 1024, 4096, 4099, 10007,
    ];
    let mut cases = Vec::new();
    for (k, &n) in sizes.iter().enumerate() {
        let (norm, nn) = NORMS[k % 3];
        let t = tol(n);
        cases.push(case(
            format!("fft{n}"),
            &[n],
            true,
            format!("np.fft.fft(x, norm='{nn}')"),
            t,
            move |a| fft::fft(a, None, -1, norm),
        ));
        cases.push(case(
            format!("ifft{n}"),
            &[n],
            true,
            "np.fft.ifft(x)",
            t,
            |a| fft::ifft(a, None, -1, Norm::Backward),
        ));
        cases.push(case(
            format!("rfft{n}"),
            &[n],
            false,
            format!("np.fft.rfft(x, norm='{nn}')"),
            t,
            move |a| fft::rfft(a, None, -1, norm),
        ));
        let m = n / 2 + 1;
        cases.push(case(
            format!("irfft{n}"),
            &[m],
            true,
            format!("np.fft.irfft(x, n={n}, norm='{nn}')"),
            tol(n) * 2.0,
            move |a| fft::irfft(a, Some(n), -1, norm),
        ));
        cases.push(case(
            format!("hfft{n}"),
            &[m],
            true,
            format!("np.fft.hfft(x, n={n})"),
            tol(n) * 2.0,
            move |a| fft::hfft(a, Some(n), -1, Norm::Backward),
        ));
        cases.push(case(
            format!("ihfft{n}"),
            &[n],
            false,
            format!("np.fft.ihfft(x, norm='{nn}')"),
            t,
            move |a| fft::ihfft(a, None, -1, norm),
        ));
    }
    // Real input to fft, crop and zero-pad, the 2^16 case.
    cases.push(case(
        "fft_real_in",
        &[100],
        false,
        "np.fft.fft(x)",
        1e-6,
        |a| fft::fft(a, None, -1, Norm::Backward),
    ));
    cases.push(case(
        "fft_crop",
        &[100],
        true,
        "np.fft.fft(x, n=37)",
        5e-6,
        |a| fft::fft(a, Some(37), -1, Norm::Backward),
    ));
    cases.push(case(
        "fft_pad",
        &[100],
        true,
        "np.fft.fft(x, n=256)",
        1e-6,
        |a| fft::fft(a, Some(256), 0, Norm::Backward),
    ));
    cases.push(case(
        "rfft_pad_odd",
        &[10],
        false,
        "np.fft.rfft(x, n=15)",
        1e-6,
        |a| fft::rfft(a, Some(15), -1, Norm::Backward),
    ));
    cases.push(case(
        "irfft_default_n",
        &[9],
        true,
        "np.fft.irfft(x)",
        2e-6,
        |a| fft::irfft(a, None, -1, Norm::Backward),
    ));
    cases.push(case(
        "irfft_pad",
        &[5],
        true,
        "np.fft.irfft(x, n=20)",
        2e-6,
        |a| fft::irfft(a, Some(20), -1, Norm::Backward),
    ));
    cases.push(case(
        "hfft_default",
        &[6],
        true,
        "np.fft.hfft(x, norm='ortho')",
        2e-6,
        |a| fft::hfft(a, None, -1, Norm::Ortho),
    ));
    cases.push(case(
        "fft65536",
        &[1 << 16],
        true,
        "np.fft.fft(x)",
        1e-6,
        |a| fft::fft(a, None, -1, Norm::Backward),
    ));
    cases.push(case(
        "ifft65536",
        &[1 << 16],
        true,
        "np.fft.ifft(x, norm='ortho')",
        1e-6,
        |a| fft::ifft(a, None, -1, Norm::Ortho),
    ));
    run_cases("1d", cases);
}

#[test]
fn axes_views_and_nd() {
    let mut cases = vec![
        case(
            "ax0_2d",
            &[12, 10],
            true,
            "np.fft.fft(x, axis=0)",
            1e-6,
            |a| fft::fft(a, None, 0, Norm::Backward),
        ),
        case(
            "ax1_3d",
            &[3, 17, 4],
            true,
            "np.fft.fft(x, axis=1)",
            5e-6,
            |a| fft::fft(a, None, 1, Norm::Backward),
        ),
        case(
            "ax0_3d_real",
            &[16, 3, 5],
            false,
            "np.fft.rfft(x, axis=0)",
            1e-6,
            |a| fft::rfft(a, None, 0, Norm::Backward),
        ),
        case(
            "irfft_ax1",
            &[4, 5, 3],
            true,
            "np.fft.irfft(x, axis=1)",
            2e-6,
            |a| fft::irfft(a, None, 1, Norm::Backward),
        ),
        case("transposed", &[8, 6], true, "np.fft.fft(x.T)", 1e-6, |a| {
            fft::fft(&a.transpose(None)?, None, -1, Norm::Backward)
        }),
        case("reversed", &[20], true, "np.fft.fft(x[::-1])", 1e-6, |a| {
            fft::fft(&a.slice(&s![..;-1])?, None, -1, Norm::Backward)
        }),
        case(
            "stepped",
            &[6, 40],
            true,
            "np.fft.fft(x[1::2, 3::3], axis=-1)",
            1e-6,
            |a| fft::fft(&a.slice(&s![1..;2, 3..;3])?, None, -1, Norm::Backward),
        ),
        case(
            "stepped_ax0",
            &[6, 40],
            false,
            "np.fft.rfft(x[:, ::4], axis=0)",
            1e-6,
            |a| fft::rfft(&a.slice(&s![.., ..;4])?, None, 0, Norm::Backward),
        ),
        case(
            "permuted_3d",
            &[4, 5, 6],
            true,
            "np.fft.fft(x.transpose(2, 0, 1), axis=1)",
            1e-6,
            |a| fft::fft(&a.permute_dims(&[2, 0, 1])?, None, 1, Norm::Backward),
        ),
        case(
            "lazy_input",
            &[32],
            true,
            "np.fft.fft(x * 2 + 1)",
            1e-6,
            |a| fft::fft(&(a * 2.0 + 1.0), None, -1, Norm::Backward),
        ),
        case(
            "batched_64x64",
            &[64, 64],
            true,
            "np.fft.fft(x)",
            1e-6,
            |a| fft::fft(a, None, -1, Norm::Backward),
        ),
        case("fft2", &[12, 10], true, "np.fft.fft2(x)", 1e-6, |a| {
            fft::fft2(a, None, None, Norm::Backward)
        }),
        case(
            "ifft2_s",
            &[12, 10],
            true,
            "np.fft.ifft2(x, s=(8, 16), norm='ortho')",
            1e-6,
            |a| fft::ifft2(a, Some(&[8, 16]), None, Norm::Ortho),
        ),
        case("rfft2", &[9, 14], false, "np.fft.rfft2(x)", 1e-6, |a| {
            fft::rfft2(a, None, None, Norm::Backward)
        }),
        case("irfft2", &[9, 8], true, "np.fft.irfft2(x)", 2e-6, |a| {
            fft::irfft2(a, None, None, Norm::Backward)
        }),
        case(
            "irfft2_s",
            &[9, 8],
            true,
            "np.fft.irfft2(x, s=(9, 13))",
            2e-6,
            |a| fft::irfft2(a, Some(&[9, 13]), None, Norm::Backward),
        ),
        case("fftn_3d", &[4, 6, 10], true, "np.fft.fftn(x)", 1e-6, |a| {
            fft::fftn(a, None, None, Norm::Backward)
        }),
        case(
            "ifftn_axes",
            &[4, 6, 10],
            true,
            "np.fft.ifftn(x, axes=(0, 2), norm='forward')",
            1e-6,
            |a| fft::ifftn(a, None, Some(&[0, 2]), Norm::Forward),
        ),
        case(
            "fftn_s",
            &[4, 6, 10],
            true,
            "np.fft.fftn(x, s=(5, 11))",
            5e-6,
            |a| fft::fftn(a, Some(&[5, 11]), None, Norm::Backward),
        ),
        case(
            "rfftn_3d",
            &[4, 6, 10],
            false,
            "np.fft.rfftn(x)",
            1e-6,
            |a| fft::rfftn(a, None, None, Norm::Backward),
        ),
        case(
            "rfftn_axes",
            &[4, 6, 10],
            false,
            "np.fft.rfftn(x, axes=(2, 0))",
            1e-6,
            |a| fft::rfftn(a, None, Some(&[2, 0]), Norm::Backward),
        ),
        case(
            "irfftn_3d",
            &[4, 6, 6],
            true,
            "np.fft.irfftn(x)",
            2e-6,
            |a| fft::irfftn(a, None, None, Norm::Backward),
        ),
        case(
            "fft2_transposed",
            &[6, 10],
            true,
            "np.fft.fft2(x.T)",
            1e-6,
            |a| fft::fft2(&a.transpose(None)?, None, None, Norm::Backward),
        ),
        case("fftshift", &[5, 6], true, "np.fft.fftshift(x)", 0.0, |a| {
            fft::fftshift(a, None)
        }),
        case(
            "ifftshift_axis",
            &[5, 7],
            false,
            "np.fft.ifftshift(x, axes=(1,))",
            0.0,
            |a| fft::ifftshift(a, Some(&[1])),
        ),
        case(
            "fftshift_view",
            &[5, 7],
            false,
            "np.fft.fftshift(x.T[::-1])",
            0.0,
            |a| fft::fftshift(&a.transpose(None)?.slice(&s![..;-1])?, None),
        ),
        case(
            "fftfreq",
            &[1],
            false,
            "np.fft.fftfreq(9, 0.1).astype(np.float32)",
            0.0,
            |_| fft::fftfreq(9, 0.1)?.astype(DType::F32),
        ),
        case(
            "fftfreq_even",
            &[1],
            false,
            "np.fft.fftfreq(10).astype(np.float32)",
            0.0,
            |_| fft::fftfreq(10, 1.0)?.astype(DType::F32),
        ),
        case(
            "rfftfreq",
            &[1],
            false,
            "np.fft.rfftfreq(9, 2.0).astype(np.float32)",
            0.0,
            |_| fft::rfftfreq(9, 2.0)?.astype(DType::F32),
        ),
    ];
    for (norm, nn) in NORMS {
        cases.push(case(
            format!("fft2_{nn}"),
            &[7, 16],
            true,
            format!("np.fft.fft2(x, norm='{nn}')"),
            1e-6,
            move |a| fft::fft2(a, None, None, norm),
        ));
    }
    run_cases("nd", cases);
}

#[test]
fn large_sizes_accuracy() {
    // One pass per line for 2^12; several passes for 2^18 and 3^11; Bluestein over several
    // passes for 999983 (a prime) and 65537.
    let mut cases = vec![
        case("fft_2^18", &[1 << 18], true, "np.fft.fft(x)", 1e-6, |a| {
            fft::fft(a, None, -1, Norm::Backward)
        }),
        case("ifft_3^11", &[177147], true, "np.fft.ifft(x)", 1e-6, |a| {
            fft::ifft(a, None, -1, Norm::Backward)
        }),
        case(
            "rfft_2^18",
            &[1 << 18],
            false,
            "np.fft.rfft(x)",
            1e-6,
            |a| fft::rfft(a, None, -1, Norm::Backward),
        ),
        case("fft_65537", &[65537], true, "np.fft.fft(x)", 5e-6, |a| {
            fft::fft(a, None, -1, Norm::Backward)
        }),
        case("fft_999983", &[999983], true, "np.fft.fft(x)", 5e-6, |a| {
            fft::fft(a, None, -1, Norm::Backward)
        }),
        case(
            "fft_cols_4096x8",
            &[4096, 8],
            true,
            "np.fft.fft(x, axis=0)",
            1e-6,
            |a| fft::fft(a, None, 0, Norm::Backward),
        ),
    ];
    // Double precision over several passes and through Bluestein.
    cases.push(case64(
        "fft64_2^18",
        &[1 << 18],
        true,
        "np.fft.fft(x)",
        |a| fft::fft(a, None, -1, Norm::Backward),
    ));
    cases.push(case64(
        "fft64_999983",
        &[999983],
        true,
        "np.fft.fft(x)",
        |a| fft::fft(a, None, -1, Norm::Backward),
    ));
    // The anchor's sizes (2^20, 2^24, 1048577) on a real GPU: KUPFER_FFT_BIG=1.
    if std::env::var_os("KUPFER_FFT_BIG").is_some() {
        for n in [1usize << 20, 1 << 24, (1 << 20) | 1] {
            let t = if n.is_power_of_two() { 1e-6 } else { 5e-6 };
            cases.push(case(
                format!("fft_{n}"),
                &[n],
                true,
                "np.fft.fft(x)",
                t,
                |a| fft::fft(a, None, -1, Norm::Backward),
            ));
            cases.push(case(
                format!("rfft_{n}"),
                &[n],
                false,
                "np.fft.rfft(x)",
                t,
                |a| fft::rfft(a, None, -1, Norm::Backward),
            ));
        }
        cases.push(case(
            "fft2_4096sq",
            &[4096, 4096],
            true,
            "np.fft.fft2(x)",
            1e-6,
            |a| fft::fft2(a, None, None, Norm::Backward),
        ));
        cases.push(case(
            "batched_1024x4096",
            &[1024, 4096],
            true,
            "np.fft.fft(x, axis=1)",
            1e-6,
            |a| fft::fft(a, None, 1, Norm::Backward),
        ));
    }
    run_cases("large", cases);
}

#[test]
fn double_precision() {
    // float64 / complex128 input transforms in double precision and gives complex128
    // (float64 for irfft/hfft): every function, Stockham sizes of one and several passes,
    // Bluestein sizes, axes of a 3-D array, a strided view, the norms, and int64 input.
    let dev = device();
    if !dev.supports(DType::F64) {
        // GL, WebGPU, Metal: float64 is refused with Error::Unsupported, never computed in
        // float32 instead.
        let _g = dev.use_device();
        let r = Array::from_slice(&[1.0f32, 2.0], &[2])
            .and_then(|a| a.astype(DType::F64))
            .and_then(|a| fft::fft(&a, None, -1, Norm::Backward));
        assert!(matches!(r, Err(kp::Error::Unsupported(_))), "{r:?}");
        return;
    }
    let mut cases = Vec::new();
    for n in [
        1usize, 2, 3, 7, 8, 12, 60, 97, 128, 1000, 4096, 65536, 19683, 65537,
    ] {
        cases.push(case64(
            format!("fft_{n}"),
            &[n],
            true,
            "np.fft.fft(x)",
            |a| fft::fft(a, None, -1, Norm::Backward),
        ));
        cases.push(case64(
            format!("rfft_{n}"),
            &[n],
            false,
            "np.fft.rfft(x)",
            |a| fft::rfft(a, None, -1, Norm::Backward),
        ));
    }
    for (norm, name) in NORMS {
        cases.push(case64(
            format!("ifft_{name}"),
            &[3, 250],
            true,
            format!("np.fft.ifft(x, norm='{name}')"),
            move |a| fft::ifft(a, None, -1, norm),
        ));
        cases.push(case64(
            format!("irfft_{name}"),
            &[5, 33],
            true,
            format!("np.fft.irfft(x, n=64, norm='{name}')"),
            move |a| fft::irfft(a, Some(64), -1, norm),
        ));
        cases.push(case64(
            format!("hfft_{name}"),
            &[17],
            true,
            format!("np.fft.hfft(x, norm='{name}')"),
            move |a| fft::hfft(a, None, -1, norm),
        ));
        cases.push(case64(
            format!("ihfft_{name}"),
            &[31],
            false,
            format!("np.fft.ihfft(x, norm='{name}')"),
            move |a| fft::ihfft(a, None, -1, norm),
        ));
    }
    cases.push(case64(
        "fftn_3d",
        &[6, 10, 14],
        true,
        "np.fft.fftn(x)",
        |a| fft::fftn(a, None, None, Norm::Backward),
    ));
    cases.push(case64(
        "rfft2_axes",
        &[9, 16, 5],
        false,
        "np.fft.rfft2(x, axes=(0, 1), norm='ortho')",
        |a| fft::rfft2(a, None, Some(&[0, 1]), Norm::Ortho),
    ));
    cases.push(case64(
        "irfftn_s",
        &[8, 11],
        true,
        "np.fft.irfftn(x, s=(8, 20))",
        |a| fft::irfftn(a, Some(&[8, 20]), None, Norm::Backward),
    ));
    cases.push(case64(
        "fft_strided_cols",
        &[300, 8],
        true,
        "np.fft.fft(x[::3, 1::2], axis=0)",
        |a| fft::fft(&a.slice(&s![..;3, 1..;2])?, None, 0, Norm::Backward),
    ));
    cases.push(case64(
        "fft_cols_4096",
        &[4096, 3],
        true,
        "np.fft.fft(x, axis=0)",
        |a| fft::fft(a, None, 0, Norm::Backward),
    ));
    cases.push(case64(
        "fft_int64",
        &[40],
        false,
        "np.fft.fft(np.trunc(x * 1000).astype(np.int64))",
        |a| {
            let i = kp::trunc(&kp::multiply(a, 1000.0)?)?.astype(DType::I64)?;
            fft::fft(&i, None, -1, Norm::Backward)
        },
    ));
    run_cases("double", cases);
}

#[test]
fn bad_inputs_are_errors() {
    let _d = device();
    let x = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    let z = x.astype(DType::Complex64).unwrap();
    let e = |r: kp::Result<Array>| r.expect_err("should fail").to_string();
    assert!(e(fft::fft(&x, Some(0), -1, Norm::Backward)).contains("Invalid number"));
    assert!(e(fft::fft(&x, None, 2, Norm::Backward)).contains("axis"));
    assert!(e(fft::fft(&x, None, -3, Norm::Backward)).contains("axis"));
    assert!(e(fft::rfft(&z, None, -1, Norm::Backward)).contains("real"));
    let one = Array::from_slice(&[kp::Complex32::new(1.0, 0.0)], &[1]).unwrap();
    assert!(e(fft::irfft(&one, None, -1, Norm::Backward)).contains("Invalid number"));
    assert!(e(fft::fftn(&x, Some(&[2, 2, 2]), None, Norm::Backward)).contains("s has"));
    assert!(e(fft::fftn(&x, Some(&[2]), Some(&[0, 1]), Norm::Backward)).contains("different"));
    assert!(e(fft::fftn(&x, Some(&[0, 2]), None, Norm::Backward)).contains("Invalid number"));
    let scalar = Array::from_slice(&[1.0f32], &[]).unwrap();
    assert!(e(fft::fft(&scalar, None, -1, Norm::Backward)).contains("0-d"));
    assert!(Norm::from_name("bogus").is_err());
    assert!(fft::fftfreq(0, 1.0).is_err());
    // NumPy's ZeroDivisionError; sizes past any buffer fail before a host array is built.
    assert!(e(fft::fftfreq(8, 0.0)).contains("d = 0"));
    assert!(e(fft::rfftfreq(8, 0.0)).contains("d = 0"));
    assert!(e(fft::fftfreq(1 << 40, 1.0)).contains("largest buffer"));
    assert!(e(fft::rfftfreq(usize::MAX, 0.5)).contains("largest buffer"));
    // Empty batches give empty results of the right shape.
    let empty = Array::from_slice::<f32>(&[], &[0, 4]).unwrap();
    assert_eq!(
        fft::fft(&empty, None, -1, Norm::Backward).unwrap().shape(),
        &[0, 4]
    );
    assert_eq!(
        fft::rfft(&empty, Some(6), -1, Norm::Backward)
            .unwrap()
            .shape(),
        &[0, 4]
    );
    assert!(fft::fft(&empty, None, 0, Norm::Backward).is_err());
}

/// Outputs 0 and n/2 of a transform of real input are exactly real: stored with a zero
/// imaginary part of NumPy's sign (+0; -0 in ihfft, the conjugate of rfft), not the rounding
/// noise of the passes, which would flip `angle` of a negative sum between pi and -pi.
/// Bluestein sizes (19, 176 = 16 * 11, 4099) are the noisy ones; 1000 and 8 are Stockham.
#[test]
fn real_input_spectra_are_real_at_zero_and_nyquist() {
    let _d = device();
    let mut rng = Rng(91);
    let mut fails = Vec::new();
    for n in [19usize, 176, 4099, 1000, 8, 1] {
        let x: Vec<f32> = (0..n).map(|_| (rng.unit() * 5.0 - 4.0) as f32).collect();
        let a = Array::from_slice(&x, &[n]).unwrap();
        type Transform = fn(&Array, Option<usize>, isize, Norm) -> kp::Result<Array>;
        let transforms: [(&str, Transform, bool); 3] = [
            ("fft", fft::fft, false),
            ("rfft", fft::rfft, false),
            ("ihfft", fft::ihfft, true),
        ];
        for (name, f, negative_zero) in transforms {
            let got: Vec<Complex32> = f(&a, None, -1, Norm::Backward).unwrap().to_vec().unwrap();
            let mut bins = vec![0];
            if n % 2 == 0 {
                bins.push(n / 2);
            }
            for k in bins {
                let im = got[k].im;
                if im != 0.0 || im.is_sign_negative() != negative_zero {
                    fails.push(format!("{name} n={n} bin {k}: imaginary part {im:e}"));
                }
            }
        }
    }
    assert!(fails.is_empty(), "{}", fails.join("\n"));
}

// ------------------------------------------------------------------------------------------
// Forced pass kinds: each test runs the cases of `common/fft_forced.rs` on a device handle
// whose `Config::fft` makes every power-of-two size take the passes under test.

/// Register passes (`register_mode` 2: every power-of-two size runs them, not only where they
/// are the default).
#[test]
fn register_passes_match_reference() {
    common::fft_forced::forced_passes_match_reference(|f| {
        f.lanes = false;
        f.register_mode = 2;
    });
}

/// Pipelined register passes (`register_mode` 2 with three tiles per workgroup from one
/// workgroup on: the next tile's values fetched while the current one is transformed, and
/// batches that end on a partial turn), outer twiddles read from tables (computed ones are
/// the default everywhere else) and every pass baked (its uniform block compiled in; by
/// default only in batches of 2^16+ values).
#[test]
fn pipelined_register_passes_match_reference() {
    common::fft_forced::forced_passes_match_reference(|f| {
        f.lanes = false;
        f.register_mode = 2;
        f.pipeline_tiles = 3;
        f.pipeline_min_groups = 1;
        f.computed_twiddles = false;
        f.bake_min = 0;
    });
}

/// Lanes passes (registers and subgroup shuffles) for every power-of-two size at 4 values per
/// thread: more lanes per sub-sequence than values per thread (radix-2 shuffle stages across
/// the lanes; on lavapipe, whose subgroups have 8 lanes, up to 8 lanes). Inner twiddles are
/// computed in every pass here (by default only in register passes of 1024+), lanes and
/// workgroup-memory passes included.
#[test]
fn lanes_passes_match_reference() {
    common::fft_forced::forced_passes_match_reference(|f| {
        f.lanes = true;
        f.lane_values = 4;
        f.computed_inner = 1;
    });
}

/// Lanes passes at 32 values per thread and passes of up to 256 (the longest straight-line
/// DFTs, blocks of up to 8 lanes transposed by shuffles), every pass baked.
#[test]
fn wide_lanes_passes_match_reference() {
    common::fft_forced::forced_passes_match_reference(|f| {
        f.lanes = true;
        f.lane_values = 32;
        f.lane_radix = 256;
        f.bake_min = 0;
    });
}

/// A device handle's `Config::fft` decides its plans: a schedule of twelve radix-2 passes
/// forced on a handle of the default device runs a 4096-point transform in at least twelve
/// launches (one pass by default) and gives the same values within float32 accuracy.
#[test]
fn a_device_handles_config_chooses_its_passes() {
    let base = device();
    let mut config = base.config().clone();
    config.fft.schedule = Some(vec![2; 12]);
    let forced = base.with_config(config);
    assert_eq!(forced, base, "a handle on the same GPU");
    let z = random(4242, 4096);
    let run = |dev: &kp::Device| {
        let _current = dev.use_device();
        let x = Array::from_slice(&z, &[4096]).unwrap();
        x.eval().unwrap();
        dev.synchronize().unwrap();
        let before = dev.context().dispatch_count();
        let f = fft::fft(&x, None, -1, Norm::Backward).unwrap();
        f.eval().unwrap();
        (
            dev.context().dispatch_count() - before,
            common::host_pairs(&f),
        )
    };
    let (launches, got) = run(&forced);
    assert!(
        launches >= 12,
        "{launches} launches for twelve forced passes"
    );
    let (_, want) = run(&base);
    let (mut num, mut den) = (0.0, 0.0);
    for (a, b) in got.iter().zip(&want) {
        num += (a.0 - b.0).powi(2) + (a.1 - b.1).powi(2);
        den += b.0 * b.0 + b.1 * b.1;
    }
    assert!(
        (num / den).sqrt() < 1e-6,
        "relative L2 error {}",
        (num / den).sqrt()
    );
}
