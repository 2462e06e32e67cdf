//! `matmul` (`@`) against NumPy: every dtype and mixed dtypes, 1-D / 2-D / N-d operands with
//! broadcast batch axes, transposed, sliced and negatively strided views, sizes 0, 1, primes,
//! shapes that are not multiples of the tiles and larger than one tile, lazy operands, every
//! kernel (forced: simple, gemv, every tile configuration the autotuner may pick) and bad
//! inputs.
//!
//! Each case draws random data (fixed seed), uploads two base arrays, applies kupfer views and
//! calls matmul; NumPy (python3 subprocess, the oracle) gets the same data and a Python
//! expression for the same views. Integer and bool results must match exactly (NumPy computes
//! them in kupfer's result dtype, so int32 products wrap alike); float results are compared
//! with NumPy's float64 product within eps(acc) (2 K + 16) (|A| @ |B|) + eps(out) |C|; complex
//! results likewise per component.
//!
//! Needs python3 with NumPy and a GPU adapter (lavapipe will do); fails, never skips, without
//! them. Run: `cargo test -p kupfer-suite --test matmul`.

mod common;

use common::eps;

use kp::{Array, DType, Force, MatmulPrecision, SliceArg};
use kupfer as kp;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

type RunFn = Box<dyn Fn(&Array, &Array) -> kp::Result<Array>>;

struct Case {
    id: String,
    a: (DType, Vec<usize>, Vec<f64>),
    b: (DType, Vec<usize>, Vec<f64>),
    /// NumPy expressions over the base arrays `a` and `b` giving the two operands.
    ea: String,
    eb: String,
    /// Inner dimension (for the tolerance).
    k: usize,
    run: RunFn,
}

fn values(seed: u64, n: usize, d: DType) -> Vec<f64> {
    let (lo, hi) = match d {
        DType::Bool => (0.0, 1.0),
        DType::I32 => (-60000.0, 60000.0),
        DType::U32 => (0.0, 90000.0),
        DType::I64 => (-1000.0, 1000.0),
        _ => (-1.0, 1.0),
    };
    // Complex operands take 2 values per element (re, im).
    let n = if d.is_complex() { 2 * n } else { n };
    common::values(seed, 0x3a7b, n, d, lo, hi)
}

fn upload(d: DType, shape: &[usize], v: &[f64]) -> Array {
    if d == DType::Complex64 {
        let c: Vec<kp::Complex32> = v
            .chunks(2)
            .map(|p| kp::Complex32::new(p[0] as f32, p[1] as f32))
            .collect();
        return Array::from_slice(&c, shape).unwrap();
    }
    if d == DType::Complex128 {
        let c: Vec<kp::Complex64> = v
            .chunks(2)
            .map(|p| kp::Complex64::new(p[0], p[1]))
            .collect();
        return Array::from_slice(&c, shape).unwrap();
    }
    common::upload(v, d, shape)
}

fn raw(d: DType, v: &[f64]) -> Vec<u8> {
    match d {
        DType::Complex64 => v.iter().flat_map(|x| (*x as f32).to_le_bytes()).collect(),
        DType::Complex128 => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        _ => common::raw_bytes(v, d),
    }
}

const ORACLE: &str = r#"
import json, sys, numpy as np
d = sys.argv[1]
cases = json.load(open(d + "/manifest.json"))
out = {}
def load(c, w):
    dt = c[w + "dtype"]
    raw = np.fromfile(d + "/" + c["id"] + "." + w, dtype=np.uint8 if dt == "bool" else dt)
    x = raw.astype(bool) if dt == "bool" else raw
    return x.reshape(c[w + "shape"])
for c in cases:
    a = load(c, "a"); b = load(c, "b")
    try:
        x = eval(c["ea"]); y = eval(c["eb"])
        r = np.matmul(x, y)
    except Exception as e:
        out[c["id"]] = {"error": type(e).__name__ + ": " + str(e)}
        continue
    kind = c["out"]
    if kind in ("int32", "uint32", "int64", "bool"):
        w = np.matmul(x.astype(kind), y.astype(kind)).astype(np.float64)
        s = np.zeros_like(w)
    elif kind in ("complex64", "complex128"):
        xc = x.astype(np.complex128); yc = y.astype(np.complex128)
        w = np.matmul(xc, yc)
        s = np.matmul(np.abs(xc), np.abs(yc))
        w = np.stack([w.real, w.imag], -1)
        s = np.stack([s, s], -1)
    else:
        xf = x.astype(np.float64); yf = y.astype(np.float64)
        w = np.matmul(xf, yf)
        s = np.matmul(np.abs(xf), np.abs(yf))
    np.ascontiguousarray(w, dtype=np.float64).tofile(d + "/" + c["id"] + ".out")
    np.ascontiguousarray(s, dtype=np.float64).tofile(d + "/" + c["id"] + ".scale")
    out[c["id"]] = {"shape": list(r.shape)}
json.dump(out, open(d + "/results.json", "w"))
"#;

fn result_dtype(a: DType, b: DType) -> DType {
    kp::promote::result_type(a, b).unwrap_or(DType::F32)
}

fn run_oracle(dir: &Path, cases: &[Case]) -> Value {
    std::fs::create_dir_all(dir).unwrap();
    let mut manifest = Vec::new();
    for c in cases {
        std::fs::write(dir.join(format!("{}.a", c.id)), raw(c.a.0, &c.a.2)).unwrap();
        std::fs::write(dir.join(format!("{}.b", c.id)), raw(c.b.0, &c.b.2)).unwrap();
        manifest.push(json!({
            "id": c.id,
            "adtype": c.a.0.name(), "ashape": c.a.1,
            "bdtype": c.b.0.name(), "bshape": c.b.1,
            "ea": c.ea, "eb": c.eb,
            "out": result_dtype(c.a.0, c.b.0).name(),
        }));
    }
    common::run_oracle(dir, &serde_json::Value::from(manifest), ORACLE)
}

fn compare(c: &Case, got: &Array, dir: &Path, res: &Value) -> Result<(), String> {
    let want_dtype = result_dtype(c.a.0, c.b.0);
    common::check_shape_and_dtype(got, want_dtype, res)?;
    let want = common::read_f64(&dir.join(format!("{}.out", c.id)));
    let scale = common::read_f64(&dir.join(format!("{}.scale", c.id)));
    let vals: Vec<f64> = if want_dtype == DType::Complex64 {
        got.to_vec::<kp::Complex32>()
            .map_err(|e| e.to_string())?
            .iter()
            .flat_map(|z| [f64::from(z.re), f64::from(z.im)])
            .collect()
    } else if want_dtype == DType::Complex128 {
        got.to_vec::<kp::Complex64>()
            .map_err(|e| e.to_string())?
            .iter()
            .flat_map(|z| [z.re, z.im])
            .collect()
    } else {
        let h = got.to_host().map_err(|e| e.to_string())?;
        (0..got.size()).map(|i| h.data.get_f64(i)).collect()
    };
    if vals.len() != want.len() {
        return Err(format!("{} values, numpy {}", vals.len(), want.len()));
    }
    let acc = if want_dtype == DType::F16 {
        DType::F32
    } else {
        want_dtype
    };
    let mut bad = 0;
    let mut first = String::new();
    for (i, (&g, &w)) in vals.iter().zip(&want).enumerate() {
        let tol = eps(acc) * (2.0 * c.k as f64 + 16.0) * scale[i] + eps(want_dtype) * w.abs();
        if !(g == w || (g - w).abs() <= tol) {
            if bad == 0 {
                first = format!("first bad element {i}: kupfer {g}, numpy {w} (tol {tol:e})");
            }
            bad += 1;
        }
    }
    if bad > 0 {
        return Err(format!("{bad} of {} values differ; {first}", want.len()));
    }
    Ok(())
}

fn run_cases(name: &str, cases: Vec<Case>) {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("matmul-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let t0 = std::time::Instant::now();
    let results = run_oracle(&dir, &cases);
    let t1 = std::time::Instant::now();
    let mut failures = Vec::new();
    for c in &cases {
        let a = upload(c.a.0, &c.a.1, &c.a.2);
        let b = upload(c.b.0, &c.b.1, &c.b.2);
        let res = &results[&c.id];
        let run = || (c.run)(&a, &b);
        if let Err(e) = common::judge(res, run, |got| compare(c, got, &dir, res)) {
            failures.push(format!("{}: {e}", c.id));
        }
    }
    common::assert_no_failures(&failures, cases.len());
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "{name}: {} cases passed (numpy {:.1} s, kupfer {:.1} s)",
        cases.len(),
        (t1 - t0).as_secs_f64(),
        t1.elapsed().as_secs_f64()
    );
}

fn device() -> kp::Device {
    kp::Device::current().expect("a GPU adapter (install mesa-vulkan-drivers for lavapipe)")
}

struct Builder {
    cases: Vec<Case>,
    seed: u64,
}

impl Builder {
    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        id: &str,
        (da, sa): (DType, &[usize]),
        (db, sb): (DType, &[usize]),
        ea: &str,
        eb: &str,
        k: usize,
        run: RunFn,
    ) {
        self.seed += 1;
        let na: usize = sa.iter().product();
        let nb: usize = sb.iter().product();
        self.cases.push(Case {
            id: format!("{id}-{}", self.seed),
            a: (da, sa.to_vec(), values(self.seed, na, da)),
            b: (db, sb.to_vec(), values(self.seed + 1000, nb, db)),
            ea: ea.into(),
            eb: eb.into(),
            k,
            run,
        });
    }

    /// Plain `a @ b` on the base arrays.
    fn plain(&mut self, id: &str, da: DType, sa: &[usize], db: DType, sb: &[usize]) {
        let k = sa.last().copied().unwrap_or(0);
        self.add(id, (da, sa), (db, sb), "a", "b", k, Box::new(kp::matmul));
    }
}

fn sl(start: Option<isize>, stop: Option<isize>, step: isize) -> SliceArg {
    SliceArg::Slice {
        start,
        stop,
        step: Some(step),
    }
}

#[test]
fn dtypes_and_mixed_dtypes() {
    let dev = device();
    let mut b = Builder {
        cases: Vec::new(),
        seed: 0,
    };
    let mut ds = common::dtypes(&dev);
    ds.push(DType::Complex64);
    for &d in &ds {
        b.plain(&format!("{d}-small"), d, &[7, 5], d, &[5, 3]);
        b.plain(&format!("{d}-vec-mat"), d, &[13], d, &[13, 6]);
        b.plain(&format!("{d}-mat-vec"), d, &[6, 13], d, &[13]);
        b.plain(&format!("{d}-dot"), d, &[29], d, &[29]);
        b.plain(&format!("{d}-batched"), d, &[2, 9, 11], d, &[11, 4]);
        b.plain(&format!("{d}-large"), d, &[37, 70], d, &[70, 41]);
    }
    for (x, y) in [
        (DType::I32, DType::F32),
        (DType::F16, DType::F32),
        (DType::Bool, DType::I32),
        (DType::U32, DType::I32),
        (DType::I32, DType::F16),
        (DType::Bool, DType::F32),
        (DType::F32, DType::Complex64),
        (DType::I32, DType::Complex64),
    ] {
        if !dev.supports(x) || !dev.supports(y) {
            continue;
        }
        b.plain(&format!("{x}-{y}"), x, &[9, 17], y, &[17, 10]);
        b.plain(&format!("{x}-{y}-big"), x, &[70, 66], y, &[66, 68]);
        b.plain(&format!("{x}-{y}-gemv"), x, &[40, 66], y, &[66]);
    }
    // Complex products large enough to run as real products of their parts (complex_parts):
    // complex @ complex, real @ complex both ways, broadcast batches, a transposed operand.
    let mut complex = vec![DType::Complex64];
    if dev.supports(DType::Complex128) {
        complex.push(DType::Complex128);
    }
    for &c in &complex {
        let r = c.real_part();
        b.plain(&format!("{c}-parts"), c, &[70, 80], c, &[80, 90]);
        b.plain(&format!("{c}-{r}-parts"), c, &[70, 80], r, &[80, 90]);
        b.plain(&format!("{r}-{c}-parts"), r, &[70, 80], c, &[80, 90]);
        b.plain(
            &format!("{c}-parts-bcast"),
            c,
            &[2, 1, 40, 70],
            c,
            &[3, 70, 100],
        );
        b.add(
            &format!("{c}-parts-transposed"),
            (c, &[80, 70]),
            (c, &[80, 90]),
            "a.T",
            "b",
            80,
            Box::new(|a, b| kp::matmul(&a.t()?, b)),
        );
    }
    if dev.supports(DType::Complex128) {
        b.plain(
            "f64-c64-parts",
            DType::F64,
            &[70, 80],
            DType::Complex64,
            &[80, 90],
        );
    }
    run_cases("dtypes", b.cases);
}

#[test]
fn shapes_views_and_batches() {
    let f = DType::F32;
    let mut b = Builder {
        cases: Vec::new(),
        seed: 100,
    };
    // Sizes 0 and 1, primes, tile edges, larger than a tile.
    for (m, k, n) in [
        (0, 5, 3),
        (4, 0, 3),
        (3, 5, 0),
        (1, 1, 1),
        (1, 7, 1),
        (37, 41, 43),
        (64, 64, 64),
        (65, 63, 129),
        (131, 257, 139),
        (132, 256, 136),
        (200, 36, 260),
        (3, 300, 5),
    ] {
        b.plain(&format!("f32-{m}x{k}x{n}"), f, &[m, k], f, &[k, n]);
    }
    // float16 where the adapter has it (GL and WebGPU without shader-f16 refuse it: see
    // dtypes_and_mixed_dtypes).
    if device().supports(DType::F16) {
        b.plain(
            "f16-131x257x139",
            DType::F16,
            &[131, 257],
            DType::F16,
            &[257, 139],
        );
    }
    // Batches broadcasting.
    b.plain("bcast1", f, &[3, 1, 4, 5], f, &[2, 5, 6]);
    b.plain("bcast2", f, &[1, 4, 5], f, &[3, 5, 2]);
    b.plain("bcast3", f, &[2, 3, 4, 5], f, &[5, 6]);
    b.plain("bcast4", f, &[4, 5], f, &[2, 3, 5, 6]);
    b.plain("bcast5", f, &[3, 5], f, &[2, 1, 5, 70]);
    b.plain("vec-batch", f, &[5], f, &[2, 3, 5, 4]);
    b.plain("batch-vec", f, &[2, 3, 4, 5], f, &[5]);
    b.plain("batch-large", f, &[3, 70, 68], f, &[3, 68, 72]);
    // Transposed, sliced, negatively strided views.
    let t = |a: &Array| a.t();
    type View = fn(&Array) -> kp::Result<Array>;
    /// id, NumPy view of a, kupfer views of a and b, base shapes, inner dimension.
    type ViewCase = (
        &'static str,
        &'static str,
        View,
        View,
        [usize; 2],
        [usize; 2],
        usize,
    );
    let views: Vec<ViewCase> = vec![
        (
            "aT",
            "a.T",
            |a| a.t(),
            |b| Ok(b.clone()),
            [36, 68],
            [36, 72],
            36,
        ),
        (
            "bT",
            "a",
            |a| Ok(a.clone()),
            |b| b.t(),
            [68, 36],
            [72, 36],
            36,
        ),
        ("aTbT", "a.T", |a| a.t(), |b| b.t(), [36, 68], [72, 36], 36),
        (
            "rev",
            "a[::-1, ::-1]",
            |a| a.slice(&[sl(None, None, -1), sl(None, None, -1)]),
            |b| Ok(b.clone()),
            [67, 37],
            [37, 29],
            37,
        ),
        (
            "step",
            "a[::2, 1:]",
            |a| a.slice(&[sl(None, None, 2), sl(Some(1), None, 1)]),
            |b| Ok(b.clone()),
            [90, 41],
            [40, 50],
            40,
        ),
    ];
    for (id, ea, va, vb, sa, sb, k) in views {
        let eb = if id.contains("bT") { "b.T" } else { "b" };
        b.add(
            id,
            (f, &sa),
            (f, &sb),
            ea,
            eb,
            k,
            Box::new(move |a, b| kp::matmul(&va(a)?, &vb(b)?)),
        );
    }
    b.add(
        "b-rev-cols",
        (f, &[20, 33]),
        (f, &[33, 40]),
        "a",
        "b[::-1, ::-3]",
        33,
        Box::new(|a, b| kp::matmul(a, &b.slice(&[sl(None, None, -1), sl(None, None, -3)])?)),
    );
    b.add(
        "gemv-T",
        (f, &[64, 300]),
        (f, &[64]),
        "a.T",
        "b",
        64,
        Box::new(move |a, b| kp::matmul(&t(a)?, b)),
    );
    b.add(
        "vecmat-rowmajor",
        (f, &[256]),
        (f, &[256, 300]),
        "a",
        "b",
        256,
        Box::new(kp::matmul),
    );
    b.add(
        "gemv-strided-vec",
        (f, &[50, 64]),
        (f, &[128]),
        "a",
        "b[::2]",
        64,
        Box::new(|a, b| kp::matmul(a, &b.slice(&[sl(None, None, 2)])?)),
    );
    // Five batch axes that do not merge (a permuted view).
    b.add(
        "batch5",
        (f, &[2, 3, 2, 3, 2, 4, 5]),
        (f, &[3, 2, 3, 1, 2, 5, 3]),
        "a.transpose(1, 0, 3, 2, 4, 5, 6)",
        "b.transpose(1, 0, 2, 3, 4, 5, 6)",
        5,
        Box::new(|a, b| {
            kp::matmul(
                &a.transpose(Some(&[1, 0, 3, 2, 4, 5, 6]))?,
                &b.transpose(Some(&[1, 0, 2, 3, 4, 5, 6]))?,
            )
        }),
    );
    // Lazy operands.
    b.add(
        "lazy",
        (f, &[30, 20]),
        (f, &[20, 25]),
        "(a * 2 + 1)",
        "np.sin(b)",
        20,
        Box::new(|a, b| kp::matmul(&(a * 2.0 + 1.0), &kp::sin(b)?)),
    );
    // Bad inputs: NumPy raises, kupfer must return an error.
    b.add(
        "bad-inner",
        (f, &[2, 3]),
        (f, &[4, 5]),
        "a",
        "b",
        3,
        Box::new(kp::matmul),
    );
    b.add(
        "bad-vec",
        (f, &[3]),
        (f, &[4]),
        "a",
        "b",
        3,
        Box::new(kp::matmul),
    );
    b.add(
        "bad-batch",
        (f, &[2, 3, 4]),
        (f, &[3, 4, 5]),
        "a",
        "b",
        4,
        Box::new(kp::matmul),
    );
    b.add(
        "bad-0d",
        (f, &[1]),
        (f, &[3, 4]),
        "a.reshape(())",
        "b",
        1,
        Box::new(|a, b| kp::matmul(&a.reshape(&[])?, b)),
    );
    run_cases("shapes", b.cases);
}

#[test]
fn every_kernel_and_tile_config() {
    let f = DType::F32;
    let f64_ok = device().supports(DType::F64);
    let mut b = Builder {
        cases: Vec::new(),
        seed: 500,
    };
    let mut configs = kp::TileConfig::candidates();
    configs.push(kp::TileConfig::default_for(1, 1));
    // float64 tiles too: vec4<f64> loads (row-major and transposed), and below a float32
    // operand widened as it is read.
    let mut tile_dtypes = vec![(f, "")];
    if f64_ok {
        tile_dtypes.push((DType::F64, "-f64"));
    }
    for (i, tile) in configs.into_iter().enumerate() {
        let forced = move |a: &Array, b: &Array| {
            kp::matmul_forced(a, b, MatmulPrecision::Exact, Force::Tiled(tile))
        };
        // Row-major (vec4 loads of A along k, of B along n) and transposed (vec4 loads of A
        // along m, of B along k) and ragged (scalar loads) layouts.
        for &(d, suffix) in &tile_dtypes {
            b.add(
                &format!("tile{i}-rowmajor{suffix}"),
                (d, &[70, 36]),
                (d, &[36, 72]),
                "a",
                "b",
                36,
                Box::new(forced),
            );
            b.add(
                &format!("tile{i}-transposed{suffix}"),
                (d, &[36, 68]),
                (d, &[72, 36]),
                "a.T",
                "b.T",
                36,
                Box::new(move |a, b| forced(&a.t()?, &b.t()?)),
            );
        }
        if f64_ok {
            b.add(
                &format!("tile{i}-ragged-f32-f64"),
                (f, &[2, 33, 35]),
                (DType::F64, &[35, 31]),
                "a",
                "b",
                35,
                Box::new(forced),
            );
        }
        b.add(
            &format!("tile{i}-ragged-f16"),
            (DType::F16, &[2, 33, 35]),
            (DType::F16, &[35, 31]),
            "a",
            "b",
            35,
            Box::new(forced),
        );
    }
    // More batch indices than a dispatch's z limit (65535): the tiled kernel runs one batch
    // index per workgroup and is dispatched in chunks.
    let small = kp::TileConfig {
        bm: 32,
        bn: 32,
        bk: 16,
        tm: 4,
        tn: 4,
    };
    b.add(
        "tiled-batch-beyond-z-limit",
        (f, &[65539, 2, 3]),
        (f, &[3, 5]),
        "a",
        "b",
        3,
        Box::new(move |a, b| kp::matmul_forced(a, b, MatmulPrecision::Exact, Force::Tiled(small))),
    );
    b.add(
        "simple-f32",
        (f, &[2, 20, 30]),
        (f, &[30, 25]),
        "a",
        "b",
        30,
        Box::new(|a, b| kp::matmul_forced(a, b, MatmulPrecision::Exact, Force::Simple)),
    );
    b.add(
        "gemv-f32-vec4",
        (f, &[33, 1024]),
        (f, &[1024]),
        "a",
        "b",
        1024,
        Box::new(|a, b| kp::matmul_forced(a, b, MatmulPrecision::Exact, Force::Gemv)),
    );
    b.add(
        "gemv-f32-batched",
        (f, &[3, 33, 512]),
        (f, &[3, 512, 1]),
        "a",
        "b",
        512,
        Box::new(|a, b| kp::matmul_forced(a, b, MatmulPrecision::Exact, Force::Gemv)),
    );
    b.add(
        "dot-long",
        (f, &[5000]),
        (f, &[5000]),
        "a",
        "b",
        5000,
        Box::new(|a, b| a.matmul(b)),
    );
    b.add(
        "gemv-few-rows",
        (f, &[3, 2000]),
        (f, &[2000]),
        "a",
        "b",
        2000,
        Box::new(kp::matmul),
    );
    run_cases("kernels", b.cases);
}

/// Inner dimensions long enough that one thread's k loop would pass lavapipe's 65535
/// iterations (which it ends silently, keeping a partial sum): such products run as sums of
/// K slices, on every kernel that loops over k.
#[test]
fn long_inner_dimension() {
    let (f, i) = (DType::F32, DType::I32);
    let mut b = Builder {
        cases: Vec::new(),
        seed: 900,
    };
    // Integers (the one-thread-per-output kernel): exact, wrapping as NumPy's int32 does; a
    // whole number of slices and a shorter last one.
    b.plain("int32-k70000", i, &[2, 70000], i, &[70000, 3]);
    b.plain("int32-k65536", i, &[3, 65536], i, &[65536, 2]);
    // Reversed and transposed operands, and broadcast batches (the slice axis is one more
    // batch axis).
    b.add(
        "int32-views",
        (i, &[3, 90001]),
        (i, &[2, 90001]),
        "a[:, ::-1]",
        "b.T",
        90001,
        Box::new(|a, b| {
            let rev = a.slice(&[sl(None, None, 1), sl(None, None, -1)])?;
            kp::matmul(&rev, &b.t()?)
        }),
    );
    b.plain("int32-batched", i, &[2, 1, 2, 20000], i, &[3, 20000, 2]);
    b.plain(
        "uint32-vector",
        DType::U32,
        &[3, 80000],
        DType::U32,
        &[80000],
    );
    // Small complex products stay one complex kernel.
    b.plain(
        "complex64-k40000",
        DType::Complex64,
        &[2, 40000],
        DType::Complex64,
        &[40000, 3],
    );
    // bool: A's rows hold about one true value each (all of 17 random bits), so whether a
    // row meets a true value of B depends on where it lies along K.
    b.add(
        "bool-sparse",
        (DType::Bool, &[8, 17, 100000]),
        (DType::Bool, &[100000, 3]),
        "a.all(axis=1)",
        "b",
        100000,
        Box::new(|a, b| kp::matmul(&kp::all(a, 1, false)?, b)),
    );
    // Matrix-vector products whose matrix has contiguous rows (the gemv kernel's columns
    // shape, four threads along k): `X.T @ y` of a tall X.
    b.add(
        "gemv-cols-tall",
        (f, &[300000, 5]),
        (f, &[300000]),
        "a.T",
        "b",
        300000,
        Box::new(|a, b| kp::matmul(&a.t()?, b)),
    );
    // Float products of small whole numbers sum exactly, so a lost term shows however long
    // K is (the tolerance's worst-case bound grows with K: it is given K = 1 here). Every
    // kernel that loops over k, forced: float32 on the simple kernel, float16 on the tiled
    // kernel's shallowest step (accumulated in float32 across the slices), the gemv
    // kernel's columns shape (four threads along k: `X.T @ y` of a tall X) on its own and as
    // the automatic choice.
    let whole = |x: &Array| kp::round(kp::multiply(x, 3.0)?, 0);
    let shallow = kp::TileConfig {
        bm: 32,
        bn: 32,
        bk: 4,
        tm: 4,
        tn: 4,
    };
    // (id, dtype, A shape, B shape, A read transposed, forced kernel)
    let long_float = [
        (
            "simple-f32",
            f,
            [2, 70000],
            [70000, 2],
            false,
            Some(Force::Simple),
        ),
        (
            "tiled-f16",
            DType::F16,
            [33, 40000],
            [40000, 5],
            false,
            Some(Force::Tiled(shallow)),
        ),
        (
            "gemv-cols-forced",
            f,
            [40000, 3],
            [40000, 1],
            true,
            Some(Force::Gemv),
        ),
        ("gemv-cols-tall", f, [300000, 5], [300000, 1], true, None),
    ];
    for (id, d, sa, sb, transpose_a, force) in long_float {
        let ea = if transpose_a {
            "np.round(a.T * 3)"
        } else {
            "np.round(a * 3)"
        };
        b.add(
            id,
            (d, &sa),
            (d, &sb),
            ea,
            "np.round(b * 3)",
            1,
            Box::new(move |a, b| {
                let a = if transpose_a {
                    whole(&a.t()?)?
                } else {
                    whole(a)?
                };
                let b = whole(b)?;
                match force {
                    Some(force) => kp::matmul_forced(&a, &b, MatmulPrecision::Exact, force),
                    None => kp::matmul(&a, &b),
                }
            }),
        );
    }
    run_cases("long-k", b.cases);
}

#[test]
fn error_messages_name_both_shapes() {
    let a = kp::zeros(&[2, 3], Some(DType::F32)).unwrap();
    let b = kp::zeros(&[4, 5], Some(DType::F32)).unwrap();
    let e = kp::matmul(&a, &b).unwrap_err().to_string();
    assert!(
        e.contains("matmul: mismatched inner dimensions: (2, 3) @ (4, 5)"),
        "{e}"
    );
    let v = kp::zeros(&[4], Some(DType::F32)).unwrap();
    let e = kp::matmul(&a, &v).unwrap_err().to_string();
    assert!(e.contains("(2, 3) @ (4,)"), "{e}");
}

/// The matmul autotuner's on-disk store: a tuned choice made by one device is reused by the
/// next one on the same adapter (a later process, in practice) without tuning again, and a
/// damaged store is ignored. Tuning is forced on lavapipe (`MatmulConfig::tune` Always); the
/// store lives in a temporary cache directory (`RuntimeConfig::cache_dir`), both set in each
/// device's config. Results are checked against a CPU product.
mod tuned_choices {
    use super::common;
    use kp::{Array, DType};
    use kupfer as kp;

    fn cpu_matmul(a: &[f32], b: &[f32], n: usize) -> Vec<f64> {
        let mut c = vec![0f64; n * n];
        for i in 0..n {
            for p in 0..n {
                let x = f64::from(a[i * n + p]);
                for j in 0..n {
                    c[i * n + j] += x * f64::from(b[p * n + j]);
                }
            }
        }
        c
    }

    /// Kernel launches of one materialised product on `device`, and its values.
    fn product(device: &kp::Device, a: &[f32], b: &[f32], n: usize) -> (u64, Vec<f32>) {
        let _guard = device.use_device();
        let x = Array::from_slice(a, &[n, n]).unwrap();
        let y = Array::from_slice(b, &[n, n]).unwrap();
        x.eval().unwrap();
        y.eval().unwrap();
        device.synchronize().unwrap();
        let before = device.context().dispatch_count();
        let c = kp::matmul(&x, &y).unwrap();
        c.eval().unwrap();
        let launches = device.context().dispatch_count() - before;
        (launches, c.to_vec::<f32>().unwrap())
    }

    fn check(got: &[f32], want: &[f64], n: usize) {
        let tol = common::eps(DType::F32) * (2.0 * n as f64 + 16.0) * n as f64;
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            assert!((f64::from(*g) - w).abs() <= tol, "element {i}: {g} vs {w}");
        }
    }

    #[test]
    fn a_tuned_choice_is_stored_and_reused_without_tuning() {
        let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("matmul-tune-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
            std::env::set_var("XDG_RUNTIME_DIR", "/tmp");
        }
        // Devices that tune on lavapipe too and keep their choices in `dir`.
        let open = || {
            let mut config = kp::Config::from_env().expect("a valid KUPFER_BACKEND");
            config.runtime.cache_dir = Some(dir.clone());
            config.matmul.tune = kp::config::MatmulTune::Always;
            kp::Device::open(kp::AdapterChoice::Default, config).expect("a GPU adapter")
        };
        let n = 256;
        let a: Vec<f32> = common::values(1, 0x7e, n * n, DType::F32, -1.0, 1.0)
            .iter()
            .map(|&v| v as f32)
            .collect();
        let b: Vec<f32> = common::values(2, 0x7e, n * n, DType::F32, -1.0, 1.0)
            .iter()
            .map(|&v| v as f32)
            .collect();
        let want = cpu_matmul(&a, &b, n);

        let first = open();
        let (launches, got) = product(&first, &a, &b, n);
        assert!(launches > 4, "the first device tunes ({launches} launches)");
        check(&got, &want, n);
        let stored: Vec<std::fs::DirEntry> = std::fs::read_dir(&dir)
            .expect("the cache directory was created")
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with("matmul-tune-"))
            .collect();
        assert_eq!(stored.len(), 1, "one store file for the adapter");
        let text = std::fs::read_to_string(stored[0].path()).unwrap();
        assert_eq!(text.lines().count(), 1, "one tuned shape class: {text}");

        // A new device (as a new process would) finds the choice: one launch, same values.
        let second = open();
        let (launches, got2) = product(&second, &a, &b, n);
        assert_eq!(launches, 1, "the stored choice is reused without tuning");
        assert_eq!(got, got2, "the same kernel gives the same bits");

        // A damaged store: the entry's choice is no candidate; the third device tunes again.
        let damaged = text.replace("TileConfig", "NoSuchConfig");
        std::fs::write(stored[0].path(), damaged).unwrap();
        let third = open();
        let (launches, got3) = product(&third, &a, &b, n);
        assert!(
            launches > 4,
            "a damaged entry is tuned again ({launches} launches)"
        );
        check(&got3, &want, n);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
