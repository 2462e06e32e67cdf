//! sort, argsort, lexsort and sort_complex against NumPy.
//!
//! Data: random values with many ties, sprinkled with NaN, ±inf, -0.0 and 0.0 (floats),
//! for every dtype the adapter has; sizes around the row-sort limit and the radix tiles
//! (forced small by the engine's testing hook, so that small arrays run many tiles and the
//! segmented radix path); every axis, axis=None, reversed and strided views, empty arrays.
//! Sorted values must equal NumPy's (NaN equal to NaN, -0.0 to 0.0); argsort indices must
//! equal NumPy's `kind='stable'` indices exactly (kupfer's sorts are stable).
//!
//! Needs python3 with NumPy and a GPU adapter (lavapipe will do); fails, never skips.
//! Run: `cargo test -p kupfer-suite --test sort`.

mod common;

use kp::views::IntoSliceArg;
use kp::{Array, DType, HostData};
use kupfer as kp;
use serde_json::{json, Value};

/// Values with ties and (floats) special values; complex dtypes get (re, im) pairs.
fn data(seed: u64, n: usize, d: DType) -> Vec<f64> {
    let parts = if d.is_complex() { 2 } else { 1 };
    let (lo, hi) = match d {
        DType::Bool => (0.0, 1.0),
        DType::U32 | DType::U64 => (0.0, 40.0),
        _ => (-20.0, 20.0),
    };
    let mut v = common::values(seed, 0x5027, n * parts, d, lo, hi);
    if d.is_float() || d.is_complex() {
        let special = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 0.0];
        let mut state = seed.wrapping_mul(0x2545f4914f6cdd1d) | 1;
        for x in v.iter_mut() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            if state.is_multiple_of(7) {
                *x = special[(state >> 8) as usize % special.len()];
            } else if d.is_float() || d == DType::Complex64 {
                *x = (*x * 2.0).round() / 2.0;
            } else {
                *x = x.round();
            }
        }
    }
    v
}

fn upload(v: &[f64], d: DType, shape: &[usize]) -> Array {
    match d {
        DType::Complex64 => Array::from_slice(
            &v.chunks(2)
                .map(|c| kp::Complex32::new(c[0] as f32, c[1] as f32))
                .collect::<Vec<_>>(),
            shape,
        )
        .unwrap(),
        DType::Complex128 => Array::from_slice(
            &v.chunks(2)
                .map(|c| kp::Complex64::new(c[0], c[1]))
                .collect::<Vec<_>>(),
            shape,
        )
        .unwrap(),
        _ => common::upload(v, d, shape),
    }
}

/// An array's values as (re, im) f64 pairs.
fn pairs(a: &Array) -> Vec<(f64, f64)> {
    let r = |v: f64| (v, 0.0);
    match a.to_host().unwrap().data {
        HostData::Bool(v) => v.iter().map(|&x| r(f64::from(u8::from(x)))).collect(),
        HostData::I32(v) => v.iter().map(|&x| r(f64::from(x))).collect(),
        HostData::U32(v) => v.iter().map(|&x| r(f64::from(x))).collect(),
        HostData::I8(v) => v.iter().map(|&x| r(f64::from(x))).collect(),
        HostData::U8(v) => v.iter().map(|&x| r(f64::from(x))).collect(),
        HostData::I16(v) => v.iter().map(|&x| r(f64::from(x))).collect(),
        HostData::U16(v) => v.iter().map(|&x| r(f64::from(x))).collect(),
        HostData::I64(v) => v.iter().map(|&x| r(x as f64)).collect(),
        HostData::U64(v) => v.iter().map(|&x| r(x as f64)).collect(),
        HostData::F16(v) => v.iter().map(|&x| r(f64::from(x))).collect(),
        HostData::F32(v) => v.iter().map(|&x| r(f64::from(x))).collect(),
        HostData::F64(v) => v.iter().map(|&x| r(x)).collect(),
        HostData::Complex64(v) => v
            .iter()
            .map(|z| (f64::from(z.re), f64::from(z.im)))
            .collect(),
        HostData::Complex128(v) => v.iter().map(|z| (z.re, z.im)).collect(),
    }
}

fn same(a: f64, b: f64, tol: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= tol * b.abs().max(1.0)
}

type Run = Box<dyn Fn(&Array) -> kp::Result<Array>>;

/// Results of `unique` runs shared by the cases that check their parts.
type UniqueMemo =
    std::rc::Rc<std::cell::RefCell<std::collections::HashMap<String, kp::sort::Unique>>>;

/// The result stored under `key`, or `run`'s (stored when it succeeds).
fn memoized(
    memo: &UniqueMemo,
    key: &str,
    run: impl FnOnce() -> kp::Result<kp::sort::Unique>,
) -> kp::Result<kp::sort::Unique> {
    if let Some(u) = memo.borrow().get(key) {
        return Ok(u.clone());
    }
    let u = run()?;
    memo.borrow_mut().insert(key.to_string(), u.clone());
    Ok(u)
}

struct Case {
    id: String,
    dtype: DType,
    shape: Vec<usize>,
    data: Vec<f64>,
    /// NumPy expression over `a`.
    expr: String,
    run: Run,
    /// Relative tolerance (0: exact).
    tol: f64,
}

const ORACLE: &str = r#"
import json, sys, numpy as np
d = sys.argv[1]
cases = json.load(open(d + "/manifest.json"))
out = []
for c in cases:
    raw = np.array(c["data"], dtype=np.float64)
    dt = c["dtype"]
    if dt.startswith("complex"):
        z = np.empty(raw.size // 2, dtype=np.complex128)
        z.real = raw[0::2]
        z.imag = raw[1::2]
        raw = z
    a = raw.astype(dt).reshape(c["shape"])
    try:
        r = np.asarray(eval(c["expr"]))
        rc = r.astype(np.complex128).ravel()
        out.append({"shape": list(r.shape), "dtype": str(r.dtype),
                    "re": [str(x) for x in rc.real], "im": [str(x) for x in rc.imag]})
    except Exception as e:
        out.append({"error": str(e)})
json.dump(out, open(d + "/results.json", "w"))
"#;

fn run_cases(name: &str, cases: Vec<Case>) {
    let dir = std::env::temp_dir().join(format!("kupfer-sort-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let manifest = Value::Array(
        cases
            .iter()
            .map(|c| {
                json!({"dtype": c.dtype.name(), "shape": c.shape,
                       "data": c.data.iter().map(|v| if v.is_nan() { json!("nan") }
                           else if v.is_infinite() { json!(if *v > 0.0 { "inf" } else { "-inf" }) }
                           else { json!(v) }).collect::<Vec<_>>(),
                       "expr": c.expr})
            })
            .collect(),
    );
    let results = common::run_oracle(&dir, &manifest, ORACLE);
    let _ = std::fs::remove_dir_all(&dir);
    let mut failures = Vec::new();
    for (c, res) in cases.iter().zip(results.as_array().unwrap()) {
        let a = upload(&c.data, c.dtype, &c.shape);
        let verdict = common::judge(
            res,
            || (c.run)(&a),
            |got| {
                let shape: Vec<usize> = serde_json::from_value(res["shape"].clone())
                    .map_err(|_| format!("NumPy raised {}", res["error"]))?;
                if got.shape() != shape.as_slice() {
                    return Err(format!("shape {:?}, expected {shape:?}", got.shape()));
                }
                let num = |v: &Value| v.as_str().unwrap().parse::<f64>().unwrap();
                let want: Vec<(f64, f64)> = res["re"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .zip(res["im"].as_array().unwrap())
                    .map(|(r, i)| (num(r), num(i)))
                    .collect();
                let have = pairs(got);
                if have.len() != want.len() {
                    return Err(format!("{} values, expected {}", have.len(), want.len()));
                }
                for (k, (h, w)) in have.iter().zip(&want).enumerate() {
                    if have.len() != want.len() || !(same(h.0, w.0, c.tol) && same(h.1, w.1, c.tol))
                    {
                        return Err(format!("element {k}: {h:?}, expected {w:?}"));
                    }
                }
                Ok(())
            },
        );
        if let Err(e) = verdict {
            failures.push(format!("{} [{}]: {e}", c.id, c.dtype));
        }
    }
    common::assert_no_failures(&failures, cases.len());
}

fn views() -> Vec<(&'static str, &'static str, Run)> {
    vec![
        ("", "a", Box::new(|a: &Array| Ok(a.clone()))),
        (
            "[::-1]",
            "a[::-1]",
            Box::new(|a: &Array| a.slice(&[kp::views::stepped(.., -1)])),
        ),
        (
            "[::2]",
            "a[::2]",
            Box::new(|a: &Array| a.slice(&[kp::views::stepped(.., 2)])),
        ),
    ]
}

/// Which multi-dimensional cases [`sort_cases`] adds: every axis of (7, 33), (3, 4, 5), (3, 0)
/// and a 0-d array (`All`: for float32 and complex64, a one-word and a several-word key
/// dtype, and `Layouts` for the rest; the axis moves are the same code for every dtype);
/// the axes that make distinct row layouts (`Layouts`: flattened, rows
/// along the last axis, along the first and along a middle one, an empty axis, 0-d); rows
/// of (7, 33) along the last axis and flattened (`Rows`); none.
#[derive(Clone, Copy, PartialEq)]
enum Shapes {
    All,
    Layouts,
    Rows,
    None,
}

/// Sorts and argsorts of every dtype but `skip` at `sizes`, the reversed and strided views at
/// `view_sizes` only (views are made contiguous before the engine runs), and the
/// multi-dimensional cases `shapes` says.
fn sort_cases(
    dev: &kp::Device,
    sizes: &[usize],
    view_sizes: &[usize],
    shapes: Shapes,
    skip: &[DType],
    seed: u64,
) -> Vec<Case> {
    let mut dtypes = common::dtypes(dev);
    dtypes.push(DType::Complex64);
    if dev.supports(DType::F64) {
        dtypes.push(DType::Complex128);
    }
    dtypes.retain(|d| !skip.contains(d));
    let mut cases = Vec::new();
    for &d in &dtypes {
        for &n in sizes {
            for (vname, vexpr, view) in views() {
                if !vname.is_empty() && !view_sizes.contains(&n) {
                    continue;
                }
                let view = std::rc::Rc::new(view);
                let v2 = view.clone();
                cases.push(Case {
                    id: format!("sort(a{vname}) n={n}"),
                    dtype: d,
                    shape: vec![n],
                    data: data(seed + n as u64, n, d),
                    expr: format!("np.sort({vexpr})"),
                    tol: 0.0,
                    run: Box::new(move |a| kp::sort(&view(a)?, Some(-1), None)),
                });
                cases.push(Case {
                    id: format!("argsort(a{vname}) n={n}"),
                    dtype: d,
                    shape: vec![n],
                    data: data(seed + n as u64, n, d),
                    expr: format!("np.argsort({vexpr}, kind='stable')"),
                    tol: 0.0,
                    run: Box::new(move |a| kp::argsort(&v2(a)?, Some(-1), Some("stable"))),
                });
            }
        }
        let every_axis = shapes == Shapes::All && matches!(d, DType::F32 | DType::Complex64);
        let shapes = if shapes == Shapes::All && !every_axis {
            Shapes::Layouts
        } else {
            shapes
        };
        let layouts: Vec<(Vec<usize>, Vec<Option<isize>>)> = match shapes {
            Shapes::All | Shapes::None => [vec![7, 33], vec![3, 4, 5], vec![3, 0], vec![]]
                .into_iter()
                .filter(|_| shapes == Shapes::All)
                .map(|shape| {
                    let nd = shape.len() as isize;
                    let axes = std::iter::once(None).chain((-nd..nd).map(Some)).collect();
                    (shape, axes)
                })
                .collect(),
            Shapes::Layouts => vec![
                (vec![7, 33], vec![None, Some(-1), Some(0)]),
                (vec![3, 4, 5], vec![Some(1)]),
                (vec![3, 0], vec![Some(0), Some(-1)]),
                (vec![], vec![None]),
            ],
            Shapes::Rows => vec![(vec![7, 33], vec![None, Some(-1)])],
        };
        for (shape, axes) in layouts {
            let n: usize = shape.iter().product();
            for axis in axes {
                let ax = axis.map_or("None".to_string(), |x| x.to_string());
                cases.push(Case {
                    id: format!("sort {shape:?} axis={ax}"),
                    dtype: d,
                    shape: shape.clone(),
                    data: data(seed + 7, n, d),
                    expr: format!("np.sort(a, axis={ax})"),
                    tol: 0.0,
                    run: Box::new(move |a| kp::sort(a, axis, Some("stable"))),
                });
                // The default kind: short rows of 32-bit values sort by their keys alone.
                cases.push(Case {
                    id: format!("sort {shape:?} axis={ax} default kind"),
                    dtype: d,
                    shape: shape.clone(),
                    data: data(seed + 8, n, d),
                    expr: format!("np.sort(a, axis={ax})"),
                    tol: 0.0,
                    run: Box::new(move |a| kp::sort(a, axis, None)),
                });
                cases.push(Case {
                    id: format!("argsort {shape:?} axis={ax}"),
                    dtype: d,
                    shape: shape.clone(),
                    data: data(seed + 7, n, d),
                    expr: format!("np.argsort(a, axis={ax}, kind='stable')"),
                    tol: 0.0,
                    run: Box::new(move |a| kp::argsort(a, axis, None)),
                });
            }
        }
    }
    cases
}

#[test]
fn sort_and_argsort_every_dtype_row_sort() {
    let dev = common::default_device();
    // Rows padded to a power of two (3, 33, 257), exactly one (2, 32), one element, and a
    // row of more elements than threads.
    let sizes = [1, 2, 3, 32, 33, 257, 1000];
    run_cases(
        "rows",
        sort_cases(&dev, &sizes, &[33, 1000], Shapes::All, &[], 1),
    );
}

#[test]
fn sort_and_argsort_every_dtype_radix() {
    let dev = common::default_device();
    // Rows of more than one element and tiles of 1024 keys go to the radix sort.
    kp::sort::set_limits_for_tests(1, 4);
    // A short tile, exactly one, one and a key more, four and a key more; the segmented
    // sort (the row number as a key) over every row layout. complex128 (five key words
    // through the permutation) sorts here as complex64 (three) does; its rows run the radix
    // sort in the row-sort test already.
    let sizes = [2, 1023, 1024, 1025, 4097];
    run_cases(
        "radix",
        sort_cases(
            &dev,
            &sizes,
            &[1025],
            Shapes::Layouts,
            &[DType::Complex128],
            2,
        ),
    );
    kp::sort::set_limits_for_tests(0, 0);
}

#[test]
fn sort_and_argsort_every_dtype_radix_portable_ranking() {
    // The bit-mask ranking (adapters without subgroups), on adapters that have subgroups,
    // for each kind of key: raw one-word (float32), raw two-word (int64), key words of 16 and
    // 8 bits (float16, bool) and several words through the permutation (complex64).
    let dev = common::default_device();
    kp::sort::set_portable_ranking_for_tests(true);
    kp::sort::set_limits_for_tests(1, 4);
    let sizes = [2, 1025, 4097];
    run_cases(
        "radix-masks",
        sort_cases(
            &dev,
            &sizes,
            &[1025],
            Shapes::Rows,
            &[DType::F64, DType::I32, DType::U32, DType::Complex128],
            3,
        ),
    );
    kp::sort::set_limits_for_tests(0, 0);
    kp::sort::set_portable_ranking_for_tests(false);
}

#[test]
fn sort_large_default_paths() {
    let dev = common::default_device();
    let mut cases = Vec::new();
    let mut dtypes = vec![DType::F32, DType::I32, DType::U32, DType::I64, DType::U64];
    if dev.supports(DType::F64) {
        dtypes.push(DType::F64);
    }
    for d in dtypes {
        // The row sort's longest row, the radix sort's shortest, two default tiles and a key
        // more, and many tiles.
        for n in [4096usize, 4097, 8193, 70001] {
            cases.push(Case {
                id: format!("sort n={n}"),
                dtype: d,
                shape: vec![n],
                data: data(n as u64, n, d),
                expr: "np.sort(a)".into(),
                tol: 0.0,
                run: Box::new(|a| kp::sort(a, Some(-1), None)),
            });
            cases.push(Case {
                id: format!("argsort n={n}"),
                dtype: d,
                shape: vec![n],
                data: data(n as u64, n, d),
                expr: "np.argsort(a, kind='stable')".into(),
                tol: 0.0,
                run: Box::new(|a| kp::argsort(a, Some(-1), Some("quicksort"))),
            });
        }
        // Keys spread over every digit of the key words.
        let (lo, hi) = match d {
            DType::I64 => (-4e18, 4e18),
            // uint64 keys on both sides of 2**63.
            DType::U64 => (0.0, 1.8e19),
            DType::I32 => (-2.1e9, 2.1e9),
            DType::U32 => (0.0, 4.2e9),
            DType::F32 => (-1e30, 1e30),
            _ => (-1e300, 1e300),
        };
        for n in [5000usize, 33000] {
            let wide = common::values(n as u64 + 5, 0x77, n, d, lo, hi);
            cases.push(Case {
                id: format!("sort wide n={n}"),
                dtype: d,
                shape: vec![n],
                data: wide.clone(),
                expr: "np.sort(a)".into(),
                tol: 0.0,
                run: Box::new(|a| kp::sort(a, Some(-1), None)),
            });
            cases.push(Case {
                id: format!("argsort wide n={n}"),
                dtype: d,
                shape: vec![n],
                data: wide,
                expr: "np.argsort(a, kind='stable')".into(),
                tol: 0.0,
                run: Box::new(|a| kp::argsort(a, None, None)),
            });
        }
        cases.push(Case {
            id: "sort rows (3, 5000) axis 1".into(),
            dtype: d,
            shape: vec![3, 5000],
            data: data(9, 15000, d),
            expr: "np.sort(a, axis=1)".into(),
            tol: 0.0,
            run: Box::new(|a| kp::sort(a, Some(1), None)),
        });
    }
    run_cases("large", cases);
}

#[test]
fn lexsort_and_sort_complex() {
    let _dev = common::default_device();
    let mut cases = Vec::new();
    for (n, limit) in [(50usize, 0usize), (3000, 1)] {
        cases.push(Case {
            id: format!("lexsort n={n} limit={limit}"),
            dtype: DType::I32,
            shape: vec![2, n],
            data: common::values(n as u64, 3, 2 * n, DType::I32, 0.0, 5.0),
            expr: "np.lexsort((a[0], a[1]))".into(),
            tol: 0.0,
            run: Box::new(move |a| {
                kp::sort::set_limits_for_tests(limit, 4);
                let k0 = a.slice(&[kp::SliceArg::Index(0)])?;
                let k1 = a.slice(&[kp::SliceArg::Index(1)])?;
                kp::lexsort(&[k0, k1], -1)
            }),
        });
    }
    cases.push(Case {
        id: "lexsort 2-D axis 0".into(),
        dtype: DType::F32,
        shape: vec![2, 6, 3],
        data: data(4, 36, DType::F32),
        expr: "np.lexsort((a[0], a[1]), axis=0)".into(),
        tol: 0.0,
        run: Box::new(|a| {
            let k0 = a.slice(&[kp::SliceArg::Index(0)])?;
            let k1 = a.slice(&[kp::SliceArg::Index(1)])?;
            kp::lexsort(&[k0, k1], 0)
        }),
    });
    cases.push(Case {
        id: "sort_complex".into(),
        dtype: DType::Complex64,
        shape: vec![4, 9],
        data: data(5, 36, DType::Complex64),
        expr: "np.sort_complex(a)".into(),
        tol: 0.0,
        run: Box::new(kp::sort_complex),
    });
    cases.push(Case {
        id: "sort bad kind".into(),
        dtype: DType::F32,
        shape: vec![4],
        data: data(5, 4, DType::F32),
        expr: "np.sort(a, kind='bogus')".into(),
        tol: 0.0,
        run: Box::new(|a| kp::sort(a, Some(-1), Some("bogus"))),
    });
    cases.push(Case {
        id: "sort axis out of range".into(),
        dtype: DType::F32,
        shape: vec![4],
        data: data(5, 4, DType::F32),
        expr: "np.sort(a, axis=1)".into(),
        tol: 0.0,
        run: Box::new(|a| kp::sort(a, Some(1), None)),
    });
    run_cases("lex", cases);
    kp::sort::set_limits_for_tests(0, 0);
}

fn float_cases(dev: &kp::Device) -> Vec<DType> {
    common::dtypes(dev)
        .into_iter()
        .filter(|d| d.is_float() || *d == DType::I32)
        .collect()
}

#[test]
fn order_statistics() {
    let dev = common::default_device();
    let mut cases = Vec::new();
    let methods = [
        "linear",
        "lower",
        "higher",
        "nearest",
        "midpoint",
        "inverted_cdf",
        "averaged_inverted_cdf",
        "closest_observation",
        "interpolated_inverted_cdf",
        "hazen",
        "weibull",
        "median_unbiased",
        "normal_unbiased",
    ];
    for d in float_cases(&dev) {
        let tol = common::eps(d).max(1.2e-7) * 8.0;
        for (shape, n) in [
            (vec![7usize, 9usize], 63usize),
            (vec![1, 6], 6),
            (vec![3, 1], 3),
        ] {
            for method in methods {
                let m = method.to_string();
                cases.push(Case {
                    id: format!("quantile {shape:?} {method}"),
                    dtype: d,
                    shape: shape.clone(),
                    data: data(n as u64, n, d),
                    expr: format!(
                        "np.quantile(a, [0.0, 0.1, 0.37, 0.5, 0.9, 1.0], axis=1, method='{method}')"
                    ),
                    tol,
                    run: Box::new(move |a| {
                        kp::quantiles(a, &[0.0, 0.1, 0.37, 0.5, 0.9, 1.0], Some(&[1]), &m, false)
                    }),
                });
            }
            cases.push(Case {
                id: format!("median {shape:?} axis 0 keepdims"),
                dtype: d,
                shape: shape.clone(),
                data: data(n as u64 + 1, n, d),
                expr: "np.median(a, axis=0, keepdims=True)".into(),
                tol,
                run: Box::new(|a| kp::median(a, Some(&[0]), true)),
            });
            cases.push(Case {
                id: format!("median {shape:?} all"),
                dtype: d,
                shape: shape.clone(),
                data: data(n as u64 + 2, n, d),
                expr: "np.median(a)".into(),
                tol,
                run: Box::new(|a| kp::median(a, None, false)),
            });
            cases.push(Case {
                id: format!("percentile {shape:?} scalar"),
                dtype: d,
                shape: shape.clone(),
                data: data(n as u64 + 3, n, d),
                expr: "np.percentile(a, 40.0, axis=(0, 1))".into(),
                tol,
                run: Box::new(|a| kp::percentile(a, 40.0, Some(&[0, 1]), "linear", false)),
            });
        }
    }
    for d in float_cases(&dev).into_iter().filter(|d| d.is_float()) {
        let tol = common::eps(d).max(1.2e-7) * 8.0;
        // Rows with NaN, one all-NaN row (NumPy warns and gives NaN).
        let mut v = data(77, 40, d);
        for x in v[30..].iter_mut() {
            *x = f64::NAN;
        }
        for (name, expr, run) in [
            (
                "nanmedian axis 1",
                "np.nanmedian(a, axis=1)",
                Box::new(|a: &Array| kp::sort::nanmedian(a, Some(&[1]), false)) as Run,
            ),
            (
                "nanmedian all",
                "np.nanmedian(a)",
                Box::new(|a: &Array| kp::sort::nanmedian(a, None, false)),
            ),
            (
                "nanquantile axis 1",
                "np.nanquantile(a, [0.0, 0.3, 0.5, 1.0], axis=1, method='weibull')",
                Box::new(|a: &Array| {
                    kp::sort::nanquantile(
                        a,
                        &[0.0, 0.3, 0.5, 1.0],
                        false,
                        Some(&[1]),
                        "weibull",
                        false,
                    )
                }),
            ),
            (
                "nanpercentile axis 0 keepdims",
                "np.nanpercentile(a, 35, axis=0, keepdims=True)",
                Box::new(|a: &Array| {
                    kp::sort::nanpercentile(a, &[35.0], true, Some(&[0]), "linear", true)
                }),
            ),
        ] {
            cases.push(Case {
                id: name.into(),
                dtype: d,
                shape: vec![4, 10],
                data: v.clone(),
                expr: expr.into(),
                tol,
                run,
            });
        }
    }
    cases.push(Case {
        id: "quantile out of range".into(),
        dtype: DType::F32,
        shape: vec![4],
        data: data(1, 4, DType::F32),
        expr: "np.quantile(a, 1.5)".into(),
        tol: 0.0,
        run: Box::new(|a| kp::quantile(a, 1.5, None, "linear", false)),
    });
    cases.push(Case {
        id: "quantile bad method".into(),
        dtype: DType::F32,
        shape: vec![4],
        data: data(1, 4, DType::F32),
        expr: "np.quantile(a, 0.5, method='bogus')".into(),
        tol: 0.0,
        run: Box::new(|a| kp::quantile(a, 0.5, None, "bogus", false)),
    });
    run_cases("quantile", cases);
}

#[test]
fn order_statistics_by_selection() {
    // Single long rows (past the row-sort limit, and short ones with the limit forced to 1)
    // take the radix selection: medians and scalar quantiles of every dtype, with and
    // without NaN, keys over all digits.
    let dev = common::default_device();
    let mut dtypes = common::dtypes(&dev);
    dtypes.retain(|&d| d != DType::Bool);
    let mut cases = Vec::new();
    for &d in &dtypes {
        let tol = common::eps(d).max(1.2e-7) * 8.0;
        for n in [2usize, 5, 4095, 4096, 4097, 20001] {
            let (lo, hi) = match d {
                DType::I64 => (-4e18, 4e18),
                DType::I32 => (-2.1e9, 2.1e9),
                DType::U32 => (0.0, 4.2e9),
                DType::Bool => (0.0, 1.0),
                DType::F16 => (-100.0, 100.0),
                _ => (-1e30, 1e30),
            };
            let sets = [
                ("ties", data(n as u64 + 40, n, d)),
                ("wide", common::values(n as u64, 0x99, n, d, lo, hi)),
            ];
            for (what, v) in sets {
                cases.push(Case {
                    id: format!("median {what} n={n}"),
                    dtype: d,
                    shape: vec![n],
                    data: v.clone(),
                    expr: "np.median(a)".into(),
                    tol,
                    run: Box::new(|a| kp::median(a, None, false)),
                });
                for method in ["linear", "lower", "nearest", "midpoint", "hazen"] {
                    let m = method.to_string();
                    cases.push(Case {
                        id: format!("quantile 0.3 {method} {what} n={n}"),
                        dtype: d,
                        shape: vec![n],
                        data: v.clone(),
                        expr: format!("np.quantile(a, 0.3, method='{method}')"),
                        tol,
                        run: Box::new(move |a| kp::quantile(a, 0.3, None, &m, false)),
                    });
                }
                cases.push(Case {
                    id: format!("percentile 99 reversed {what} n={n}"),
                    dtype: d,
                    shape: vec![n],
                    data: v,
                    expr: "np.percentile(a[::-1], 99)".into(),
                    tol,
                    run: Box::new(|a| {
                        kp::percentile(
                            &a.slice(&[kp::views::stepped(.., -1)])?,
                            99.0,
                            None,
                            "linear",
                            false,
                        )
                    }),
                });
            }
        }
    }
    run_cases("select", cases);
}

/// NumPy's expression for quantiles `qs` along `axis`: float32 and float16 results are
/// compared with NumPy's scalar-q results (a Python float q keeps the input's precision,
/// which kupfer keeps for every q), stacked along a first axis.
fn quantile_expr(func: &str, d: DType, qs: &[f64], rest: &str) -> String {
    let list: Vec<String> = qs.iter().map(|q| format!("{q:?}")).collect();
    if matches!(d, DType::F32 | DType::F16) {
        format!(
            "np.stack([np.{func}(a, q{rest}) for q in [{}]])",
            list.join(", ")
        )
    } else {
        format!("np.{func}(a, [{}]{rest})", list.join(", "))
    }
}

/// Values with ties, ±inf and ±0.0 but NaN only in row 1 (of rows of `rowlen`).
fn one_nan_row(seed: u64, n: usize, rowlen: usize, d: DType) -> Vec<f64> {
    let mut v = data(seed, n, d);
    for (k, x) in v.iter_mut().enumerate() {
        if x.is_nan() && k / rowlen != 1 {
            *x = 3.5;
        }
    }
    v
}

/// A testing hook's value around one call.
fn with_row_select_min<T>(min: usize, f: impl FnOnce() -> T) -> T {
    kp::sort::set_row_select_min_for_tests(min);
    let r = f();
    kp::sort::set_row_select_min_for_tests(0);
    r
}

#[test]
fn order_statistics_by_row_selection() {
    // Several quantiles at once and along an axis by the per-row selection (rows of 1024 or
    // more; short rows with the hook lowering that limit), the global selection of single
    // long rows (three ranks at a time) and of a few rows past 65536 elements: every method,
    // every dtype, NaN rows, ties, ±0.0, ±inf, axis 0 with keepdims, the nan functions with
    // an all-NaN row. Float32 and float64 results must equal NumPy's exactly.
    let dev = common::default_device();
    let mut dtypes = common::dtypes(&dev);
    dtypes.retain(|&d| d != DType::Bool);
    let methods = [
        "linear",
        "lower",
        "higher",
        "nearest",
        "midpoint",
        "inverted_cdf",
        "averaged_inverted_cdf",
        "closest_observation",
        "interpolated_inverted_cdf",
        "hazen",
        "weibull",
        "median_unbiased",
        "normal_unbiased",
    ];
    let qs = [0.0, 0.1, 0.37, 0.5, 0.9, 1.0];
    let mut cases = Vec::new();
    for &d in &dtypes {
        let tol = match d {
            DType::F32 | DType::F64 => 0.0,
            _ => common::eps(d).max(1.2e-7) * 8.0,
        };
        // (rows, rowlen, lowered row limit)
        for (nrows, rowlen, min) in [(4usize, 1500usize, 0usize), (6, 77, 1), (1, 9000, 0)] {
            let n = nrows * rowlen;
            let v = one_nan_row(n as u64, n, rowlen, d);
            let ms: &[&str] = if d.is_float() || nrows == 6 {
                &methods
            } else {
                &methods[..3]
            };
            for &method in ms {
                let m = method.to_string();
                cases.push(Case {
                    id: format!("quantile ({nrows}, {rowlen}) {method}"),
                    dtype: d,
                    shape: vec![nrows, rowlen],
                    data: v.clone(),
                    expr: quantile_expr(
                        "quantile",
                        d,
                        &qs,
                        &format!(", axis=1, method='{method}'"),
                    ),
                    tol,
                    run: Box::new(move |a| {
                        with_row_select_min(min, || kp::quantiles(a, &qs, Some(&[1]), &m, false))
                    }),
                });
            }
            cases.push(Case {
                id: format!("median ({nrows}, {rowlen}) axis 1"),
                dtype: d,
                shape: vec![nrows, rowlen],
                data: v.clone(),
                expr: "np.median(a, axis=1)".into(),
                tol,
                run: Box::new(move |a| {
                    with_row_select_min(min, || kp::median(a, Some(&[1]), false))
                }),
            });
            cases.push(Case {
                id: format!("percentile ({nrows}, {rowlen}) 5 50 95 keepdims"),
                dtype: d,
                shape: vec![nrows, rowlen],
                data: v.clone(),
                expr: quantile_expr(
                    "percentile",
                    d,
                    &[5.0, 50.0, 95.0],
                    ", axis=1, keepdims=True",
                ),
                tol,
                run: Box::new(move |a| {
                    with_row_select_min(min, || {
                        kp::percentiles(a, &[5.0, 50.0, 95.0], Some(&[1]), "linear", true)
                    })
                }),
            });
            // Along axis 0 of the transposed data: the rows are the columns.
            cases.push(Case {
                id: format!("percentile ({rowlen}, {nrows}) axis 0 keepdims"),
                dtype: d,
                shape: vec![rowlen, nrows],
                data: v.clone(),
                expr: quantile_expr("percentile", d, &[1.0, 99.0], ", axis=0, keepdims=True"),
                tol,
                run: Box::new(move |a| {
                    with_row_select_min(min, || {
                        kp::percentiles(a, &[1.0, 99.0], Some(&[0]), "linear", true)
                    })
                }),
            });
            // More targets than one launch holds (11 quantiles: 23 ranks).
            let many: Vec<f64> = (0..11).map(|k| k as f64 * 0.0937).collect();
            let many2 = many.clone();
            cases.push(Case {
                id: format!("quantile ({nrows}, {rowlen}) 11 qs"),
                dtype: d,
                shape: vec![nrows, rowlen],
                data: v.clone(),
                expr: quantile_expr("quantile", d, &many, ", axis=1, method='hazen'"),
                tol,
                run: Box::new(move |a| {
                    with_row_select_min(min, || {
                        kp::quantiles(a, &many2, Some(&[1]), "hazen", false)
                    })
                }),
            });
            if d.is_float() {
                // NaN everywhere, one all-NaN row.
                let mut w = data(n as u64 + 9, n, d);
                for x in w[rowlen.min(n - 1)..(2 * rowlen).min(n)].iter_mut() {
                    *x = f64::NAN;
                }
                cases.push(Case {
                    id: format!("nanquantile ({nrows}, {rowlen}) weibull"),
                    dtype: d,
                    shape: vec![nrows, rowlen],
                    data: w.clone(),
                    expr: quantile_expr("nanquantile", d, &qs, ", axis=1, method='weibull'"),
                    tol,
                    run: Box::new(move |a| {
                        with_row_select_min(min, || {
                            kp::sort::nanquantile(a, &qs, false, Some(&[1]), "weibull", false)
                        })
                    }),
                });
                cases.push(Case {
                    id: format!("nanmedian ({nrows}, {rowlen}) axis 1"),
                    dtype: d,
                    shape: vec![nrows, rowlen],
                    data: w,
                    expr: "np.nanmedian(a, axis=1)".into(),
                    tol,
                    run: Box::new(move |a| {
                        with_row_select_min(min, || kp::sort::nanmedian(a, Some(&[1]), false))
                    }),
                });
            }
        }
    }
    // A few rows past the per-row selection's longest: the global selection row by row.
    let n = 2 * 66000;
    cases.push(Case {
        id: "percentile (2, 66000)".into(),
        dtype: DType::F32,
        shape: vec![2, 66000],
        data: one_nan_row(5, n, 66000, DType::F32),
        expr: quantile_expr("percentile", DType::F32, &[5.0, 50.0, 95.0], ", axis=1"),
        tol: 0.0,
        run: Box::new(|a| kp::percentiles(a, &[5.0, 50.0, 95.0], Some(&[1]), "linear", false)),
    });
    run_cases("rowselect", cases);
}

#[test]
fn searchsorted_two_tiers_isin_unique() {
    // Sorted arrays much longer than the search's 2048 samples (windows of 35 elements
    // between samples, and of 1 with few distinct values), queries over many workgroups with
    // a ragged last one, both sides, every raw dtype, from an offset view; isin and unique
    // over such arrays.
    let dev = common::default_device();
    let mut dtypes = common::dtypes(&dev);
    dtypes.retain(|&d| d != DType::Bool && d != DType::F16);
    let mut cases = Vec::new();
    let n = 2048 * 35 + 5;
    for d in dtypes {
        let (lo, hi) = match d {
            DType::U32 => (0.0, 4e9),
            DType::I32 => (-2e9, 2e9),
            DType::I64 => (-4e18, 4e18),
            _ => (-1e6, 1e6),
        };
        let sets = [
            ("wide", common::values(3, 0x51, n, d, lo, hi)),
            ("ties", data(4, n, d)),
        ];
        for (what, v) in sets {
            for side in ["left", "right"] {
                let s: kp::sort::Side = side.parse().unwrap();
                cases.push(Case {
                    id: format!("searchsorted {what} n={n} {side}"),
                    dtype: d,
                    shape: vec![n],
                    data: v.clone(),
                    expr: format!("np.searchsorted(np.sort(a)[3:], a[::7], side='{side}')"),
                    tol: 0.0,
                    run: Box::new(move |a| {
                        let srt = kp::sort(a, Some(-1), None)?;
                        let srt = srt.slice(&[(3..).into_slice_arg()])?;
                        let q = a.slice(&[kp::views::stepped(.., 7)])?;
                        kp::searchsorted(&srt, &q, s, None)
                    }),
                });
            }
        }
    }
    // isin by the search that compares (NaN in nothing, -0.0 in 0.0) and unique's values
    // and counts after the keys-only sort, on the same long arrays.
    let mut dtypes = common::dtypes(&dev);
    dtypes.retain(|&d| d != DType::Bool);
    // The small integers take unique's counting path too.
    dtypes.extend([DType::I8, DType::U16]);
    for d in dtypes {
        let v = data(6, n, d);
        // Unsigned data without the negative values that NumPy would wrap.
        let v: Vec<f64> = if d == DType::U16 {
            v.iter().map(|x| x.abs()).collect()
        } else {
            v
        };
        for invert in [false, true] {
            let py = if invert { "True" } else { "False" };
            cases.push(Case {
                id: format!("isin n={n} invert={py}"),
                dtype: d,
                shape: vec![n],
                data: v.clone(),
                expr: format!("np.isin(a[::2], a[1::3], invert={py})"),
                tol: 0.0,
                run: Box::new(move |a| {
                    let x = a.slice(&[kp::views::stepped(.., 2)])?;
                    let t = a.slice(&[kp::views::stepped(1.., 3)])?;
                    kp::isin(&x, &t, invert)
                }),
            });
        }
        // NumPy 2.4 sorts float16 arrays this long wrongly (np.unique gives unsorted,
        // repeated values), so it is no oracle there.
        if d == DType::F16 {
            continue;
        }
        for equal_nan in [false, true] {
            let py = if equal_nan { "True" } else { "False" };
            cases.push(Case {
                id: format!("unique values n={n} equal_nan={py}"),
                dtype: d,
                shape: vec![n],
                data: v.clone(),
                expr: format!("np.unique(a, equal_nan={py})"),
                tol: 0.0,
                run: Box::new(move |a| Ok(kp::unique(a, false, false, false, equal_nan)?.values)),
            });
            cases.push(Case {
                id: format!("unique counts n={n} equal_nan={py}"),
                dtype: d,
                shape: vec![n],
                data: v.clone(),
                expr: format!("np.unique(a, return_counts=True, equal_nan={py})[1]"),
                tol: 0.0,
                run: Box::new(move |a| {
                    let u = kp::unique(a, false, false, true, equal_nan)?;
                    Ok(u.counts.expect("counts"))
                }),
            });
        }
    }
    // Integers spanning more than 4 bins per element: the sort, not the counting.
    for d in [DType::I32, DType::U32] {
        let (lo, hi) = if d == DType::I32 {
            (-2e9, 2e9)
        } else {
            (0.0, 4e9)
        };
        cases.push(Case {
            id: format!("unique counts wide n={n}"),
            dtype: d,
            shape: vec![n],
            data: common::values(8, 0x77, n, d, lo, hi),
            expr: "np.unique(a, return_counts=True)[1]".into(),
            tol: 0.0,
            run: Box::new(|a| {
                Ok(kp::unique(a, false, false, true, true)?
                    .counts
                    .expect("counts"))
            }),
        });
    }
    run_cases("search2", cases);
}

#[test]
fn searchsorted_unique_and_sets() {
    let dev = common::default_device();
    let mut dtypes = common::dtypes(&dev);
    dtypes.push(DType::Complex64);
    let mut cases = Vec::new();
    // One unique run per (dtype, n, equal_nan) serves its four cases (each still checked).
    let memo: UniqueMemo = Default::default();
    for d in dtypes {
        for n in [1usize, 5, 300, 5000] {
            let v = data(n as u64, n, d);
            for side in ["left", "right"] {
                let s: kp::sort::Side = side.parse().unwrap();
                cases.push(Case {
                    id: format!("searchsorted n={n} {side}"),
                    dtype: d,
                    shape: vec![n],
                    data: v.clone(),
                    expr: format!("np.searchsorted(np.sort(a), a[::-1], side='{side}')"),
                    tol: 0.0,
                    run: Box::new(move |a| {
                        let srt = kp::sort(a, Some(-1), None)?;
                        kp::searchsorted(&srt, &a.slice(&[kp::views::stepped(.., -1)])?, s, None)
                    }),
                });
            }
            cases.push(Case {
                id: format!("searchsorted offset views n={n}"),
                dtype: d,
                shape: vec![n],
                data: v.clone(),
                expr: "np.searchsorted(np.sort(a)[1:], a[n // 2:], side='right')"
                    .replace("n // 2", &(n / 2).to_string()),
                tol: 0.0,
                run: Box::new(move |a| {
                    let srt = kp::sort(a, Some(-1), None)?;
                    let srt = srt.slice(&[(1..).into_slice_arg()])?;
                    let q = a.slice(&[((n / 2) as isize..).into_slice_arg()])?;
                    kp::searchsorted(&srt, &q, kp::sort::Side::Right, None)
                }),
            });
            cases.push(Case {
                id: format!("searchsorted sorter n={n}"),
                dtype: d,
                shape: vec![n],
                data: v.clone(),
                expr: "np.searchsorted(a, a[:3], sorter=np.argsort(a, kind='stable'))".into(),
                tol: 0.0,
                run: Box::new(|a| {
                    let s = kp::argsort(a, Some(-1), None)?;
                    let q = a.slice(&[(0..3.min(a.size())).into_slice_arg()])?;
                    kp::searchsorted(a, &q, kp::sort::Side::Left, Some(&s))
                }),
            });
            // NumPy's representative of complex values with NaN parts under equal_nan is
            // not consistent (its value and its index can name different elements); kupfer
            // keeps the first in sort order. Complex set cases use NaN-free data.
            let v: Vec<f64> = if d.is_complex() {
                v.iter()
                    .map(|x| if x.is_nan() { 7.0 } else { *x })
                    .collect()
            } else {
                v
            };
            for (what, part) in [
                ("values", 0usize),
                ("index", 1),
                ("inverse", 2),
                ("counts", 3),
            ] {
                for equal_nan in [true, false] {
                    let py = if equal_nan { "True" } else { "False" };
                    cases.push(Case {
                        id: format!("unique {what} n={n} equal_nan={py}"),
                        dtype: d,
                        shape: vec![n],
                        data: v.clone(),
                        expr: format!(
                            "np.unique(a, return_index=True, return_inverse=True, \
                             return_counts=True, equal_nan={py})[{part}]"
                        ),
                        tol: 0.0,
                        run: Box::new({
                            let memo = memo.clone();
                            let key = format!("{d} {n} {equal_nan}");
                            move |a| {
                                let u = memoized(&memo, &key, || {
                                    kp::unique(a, true, true, true, equal_nan)
                                })?;
                                Ok(match part {
                                    0 => u.values,
                                    1 => u.indices.unwrap(),
                                    2 => u.inverse.unwrap(),
                                    _ => u.counts.unwrap(),
                                })
                            }
                        }),
                    });
                }
            }
            cases.push(Case {
                id: format!("isin n={n}"),
                dtype: d,
                shape: vec![n],
                data: v.clone(),
                expr: "np.isin(a, a[::3])".into(),
                tol: 0.0,
                run: Box::new(|a| kp::isin(a, &a.slice(&[kp::views::stepped(.., 3)])?, false)),
            });
            cases.push(Case {
                id: format!("intersect1d n={n}"),
                dtype: d,
                shape: vec![n],
                data: v.clone(),
                expr: "np.intersect1d(a[::2], a[1::3])".into(),
                tol: 0.0,
                run: Box::new(|a| {
                    let x = a.slice(&[kp::views::stepped(.., 2)])?;
                    let y = a.slice(&[kp::views::stepped(1.., 3)])?;
                    Ok(kp::intersect1d(&x, &y, false)?.0)
                }),
            });
            cases.push(Case {
                id: format!("intersect1d indices n={n}"),
                dtype: d,
                shape: vec![n],
                data: v.clone(),
                expr: "np.intersect1d(a[::2], a[1::3], return_indices=True)[2]".into(),
                tol: 0.0,
                run: Box::new(|a| {
                    let x = a.slice(&[kp::views::stepped(.., 2)])?;
                    let y = a.slice(&[kp::views::stepped(1.., 3)])?;
                    Ok(kp::intersect1d(&x, &y, true)?.1.unwrap().1)
                }),
            });
            cases.push(Case {
                id: format!("setdiff1d n={n}"),
                dtype: d,
                shape: vec![n],
                data: v.clone(),
                expr: "np.setdiff1d(a, a[::2])".into(),
                tol: 0.0,
                run: Box::new(|a| kp::setdiff1d(a, &a.slice(&[kp::views::stepped(.., 2)])?)),
            });
            cases.push(Case {
                id: format!("union1d n={n}"),
                dtype: d,
                shape: vec![n],
                data: v.clone(),
                expr: "np.union1d(a[::2], a[1::3])".into(),
                tol: 0.0,
                run: Box::new(|a| {
                    let x = a.slice(&[kp::views::stepped(.., 2)])?;
                    let y = a.slice(&[kp::views::stepped(1.., 3)])?;
                    kp::union1d(&x, &y)
                }),
            });
            for assume_unique in [false, true] {
                let au = if assume_unique { "True" } else { "False" };
                cases.push(Case {
                    id: format!("setxor1d n={n} assume_unique={au}"),
                    dtype: d,
                    shape: vec![n],
                    data: v.clone(),
                    expr: format!(
                        "np.setxor1d(np.unique(a[::2]), np.unique(a[1::3]), assume_unique={au})"
                    ),
                    tol: 0.0,
                    run: Box::new(move |a| {
                        let x = kp::unique(
                            &a.slice(&[kp::views::stepped(.., 2)])?,
                            false,
                            false,
                            false,
                            true,
                        )?;
                        let y = kp::unique(
                            &a.slice(&[kp::views::stepped(1.., 3)])?,
                            false,
                            false,
                            false,
                            true,
                        )?;
                        kp::setxor1d(&x.values, &y.values, assume_unique)
                    }),
                });
            }
            cases.push(Case {
                id: format!("setxor1d raw n={n}"),
                dtype: d,
                shape: vec![n],
                data: v.clone(),
                expr: "np.setxor1d(a, a[::-3])".into(),
                tol: 0.0,
                run: Box::new(|a| kp::setxor1d(a, &a.slice(&[kp::views::stepped(.., -3)])?, false)),
            });
        }
    }
    run_cases("sets", cases);
}

/// One `bins=`/`range=`/`density=`/`weights=` form of histogramdd for `d` dimensions and `n`
/// samples: the NumPy keyword text and kupfer's arguments.
struct HistForm {
    name: &'static str,
    py: String,
    bins: Vec<kp::sort::DimBins>,
    range: Option<Vec<Option<(f64, f64)>>>,
    density: bool,
    weights: Option<Vec<f64>>,
}

const HIST_EDGES: [f64; 6] = [-10.0, -2.0, 0.0, 0.0, 3.0, 20.0];

fn hist_forms(d: usize, n: usize) -> Vec<HistForm> {
    use kp::sort::DimBins;
    let counts = [3usize, 4, 2];
    let per_dim: Vec<DimBins> = counts[..d].iter().map(|&c| DimBins::Count(c)).collect();
    let per_dim_py = format!("{:?}", &counts[..d]);
    let edges = |dt: DType| {
        let e = Array::from_slice(&HIST_EDGES, &[HIST_EDGES.len()]).unwrap();
        e.astype(dt).unwrap()
    };
    let with_edges = |dt: DType| {
        let mut b = vec![DimBins::Edges(edges(dt))];
        b.extend((1..d).map(|_| DimBins::Count(4)));
        b
    };
    let rest = |py: &str| format!("[{py}] * {}", d - 1);
    let weights: Vec<f64> = (0..n).map(|i| ((i % 7) as f64 - 3.0) * 0.25).collect();
    vec![
        HistForm {
            name: "bins=5",
            py: "bins=5".into(),
            bins: vec![DimBins::Count(5)],
            range: None,
            density: false,
            weights: None,
        },
        HistForm {
            name: "bins per dim",
            py: format!("bins={per_dim_py}"),
            bins: per_dim.clone(),
            range: None,
            density: false,
            weights: None,
        },
        HistForm {
            name: "f64 edges",
            py: format!("bins=[np.array({HIST_EDGES:?})] + {}", rest("4")),
            bins: with_edges(DType::F64),
            range: None,
            density: false,
            weights: None,
        },
        HistForm {
            name: "f32 edges",
            py: format!(
                "bins=[np.array({HIST_EDGES:?}, dtype=np.float32)] + {}",
                rest("4")
            ),
            bins: with_edges(DType::F32),
            range: None,
            density: false,
            weights: None,
        },
        HistForm {
            name: "int edges",
            py: format!(
                "bins=[np.array({HIST_EDGES:?}).astype(np.int32)] + {}",
                rest("4")
            ),
            bins: with_edges(DType::I32),
            range: None,
            density: false,
            weights: None,
        },
        HistForm {
            name: "range",
            py: format!("bins=6, range=[(-5.0, 5.0)] + {}", rest("None")),
            bins: vec![DimBins::Count(6)],
            range: Some(
                std::iter::once(Some((-5.0, 5.0)))
                    .chain((1..d).map(|_| None))
                    .collect(),
            ),
            density: false,
            weights: None,
        },
        HistForm {
            name: "density",
            py: format!("bins={per_dim_py}, density=True"),
            bins: per_dim,
            range: None,
            density: true,
            weights: None,
        },
        HistForm {
            name: "many bins",
            py: "bins=70".into(),
            bins: vec![DimBins::Count(70)],
            range: None,
            density: false,
            weights: None,
        },
        HistForm {
            name: "decreasing edges (error)",
            py: format!("bins=[np.array([0.0, 2.0, 1.0])] + {}", rest("4")),
            bins: std::iter::once(DimBins::Edges(
                Array::from_slice(&[0.0f64, 2.0, 1.0], &[3]).unwrap(),
            ))
            .chain((1..d).map(|_| DimBins::Count(4)))
            .collect(),
            range: None,
            density: false,
            weights: None,
        },
        HistForm {
            name: "bins=0 (error)",
            py: "bins=0".into(),
            bins: vec![DimBins::Count(0)],
            range: None,
            density: false,
            weights: None,
        },
        HistForm {
            name: "reversed range (error)",
            py: format!("bins=2, range=[(1.0, -1.0)] + {}", rest("None")),
            bins: vec![DimBins::Count(2)],
            range: Some(
                std::iter::once(Some((1.0, -1.0)))
                    .chain((1..d).map(|_| None))
                    .collect(),
            ),
            density: false,
            weights: None,
        },
        HistForm {
            name: "short bins (error)",
            py: format!("bins=[2] * {}", d + 1),
            bins: vec![DimBins::Count(2); d + 1],
            range: None,
            density: false,
            weights: None,
        },
        HistForm {
            name: "weights",
            py: "bins=4, weights=((np.arange(len(a)) % 7) - 3) * 0.25".into(),
            bins: vec![DimBins::Count(4)],
            range: None,
            density: false,
            weights: Some(weights),
        },
    ]
}

#[test]
fn histogramdd_and_histogram2d() {
    let dev = common::default_device();
    let mut cases = Vec::new();
    for d in common::dtypes(&dev) {
        let main = matches!(d, DType::F32 | DType::F64 | DType::I32);
        let sizes: &[usize] = if main {
            &[0, 1, 7, 300, 4097]
        } else {
            &[7, 300]
        };
        let dims: &[usize] = if d == DType::F32 { &[1, 2, 3] } else { &[2] };
        for &n in sizes {
            for &dim in dims {
                // Finite values with ties on bin edges, then NumPy's special values.
                let lo = if d == DType::U32 { 0.0 } else { -20.0 };
                let finite: Vec<f64> = common::values(n as u64, 0x4157, n * dim, d, lo, 20.0)
                    .into_iter()
                    .map(|v| {
                        if d.is_float() {
                            (v * 2.0).round() / 2.0
                        } else {
                            v
                        }
                    })
                    .collect();
                let special = data(n as u64 + 1, n * dim, d);
                for (set, v) in [("finite", finite), ("special", special)] {
                    if set == "special" && !d.is_float() {
                        continue;
                    }
                    for form in hist_forms(dim, n) {
                        let form = std::rc::Rc::new(form);
                        let call = move |a: &Array, f: &HistForm| {
                            let w = f
                                .weights
                                .as_ref()
                                .map(|w| Array::from_slice(w, &[w.len()]))
                                .transpose()?;
                            kp::sort::histogramdd(
                                a,
                                &f.bins,
                                f.range.as_deref(),
                                f.density,
                                w.as_ref(),
                            )
                        };
                        let id = format!("histogramdd {} {set} n={n} d={dim}", form.name);
                        let f = form.clone();
                        cases.push(Case {
                            id: format!("{id} hist"),
                            dtype: d,
                            shape: vec![n, dim],
                            data: v.clone(),
                            expr: format!("np.histogramdd(a, {})[0]", form.py),
                            tol: if form.weights.is_some() || form.density {
                                1e-9
                            } else {
                                0.0
                            },
                            run: Box::new(move |a| Ok(call(a, &f)?.0)),
                        });
                        let f = form.clone();
                        cases.push(Case {
                            id: format!("{id} edges"),
                            dtype: d,
                            shape: vec![n, dim],
                            data: v.clone(),
                            expr: format!("np.concatenate(np.histogramdd(a, {})[1])", form.py),
                            tol: 0.0,
                            run: Box::new(move |a| {
                                kp::concatenate(&call(a, &f)?.1, None, Some(DType::F64))
                            }),
                        });
                        let f = form.clone();
                        cases.push(Case {
                            id: format!("{id} dtypes"),
                            dtype: d,
                            shape: vec![n, dim],
                            data: v.clone(),
                            expr: format!(
                                "(lambda r: np.array([r[0].dtype.itemsize] + \
                                 [e.dtype.itemsize for e in r[1]]))(np.histogramdd(a, {}))",
                                form.py
                            ),
                            tol: 0.0,
                            run: Box::new(move |a| {
                                let (h, e) = call(a, &f)?;
                                let sizes: Vec<i32> = std::iter::once(&h)
                                    .chain(&e)
                                    .map(|x| x.dtype().host_size() as i32)
                                    .collect();
                                Array::from_slice(&sizes, &[sizes.len()])
                            }),
                        });
                    }
                    if dim == 2 {
                        for (name, py, bins) in [
                            ("bins=5", "5".to_string(), vec![kp::sort::DimBins::Count(5)]),
                            (
                                "bins=[3, 4]",
                                "[3, 4]".into(),
                                vec![kp::sort::DimBins::Count(3), kp::sort::DimBins::Count(4)],
                            ),
                            (
                                "bins=edges",
                                format!("np.array({HIST_EDGES:?})"),
                                vec![kp::sort::DimBins::Edges(
                                    Array::from_slice(&HIST_EDGES, &[HIST_EDGES.len()]).unwrap(),
                                )],
                            ),
                        ] {
                            for part in 0..3 {
                                let bins = bins.clone();
                                cases.push(Case {
                                    id: format!("histogram2d {name} {set} n={n} part {part}"),
                                    dtype: d,
                                    shape: vec![n, dim],
                                    data: v.clone(),
                                    expr: format!(
                                        "np.histogram2d(a[:, 0], a[::-1, 1], bins={py})[{part}]"
                                    ),
                                    tol: 0.0,
                                    run: Box::new(move |a| {
                                        let x =
                                            a.slice(&[(..).into_slice_arg(), 0.into_slice_arg()])?;
                                        let y = a.slice(&[
                                            kp::views::stepped(.., -1),
                                            1.into_slice_arg(),
                                        ])?;
                                        let r = kp::sort::histogram2d(
                                            &x, &y, &bins, None, false, None,
                                        )?;
                                        Ok([r.0, r.1, r.2][part].clone())
                                    }),
                                });
                            }
                        }
                    }
                }
            }
        }
    }
    run_cases("histogramdd", cases);
}

/// Few distinct values (so that slices repeat); floats get -0.0, NaN and inf too.
fn low_diversity(seed: u64, n: usize, d: DType) -> Vec<f64> {
    let mut v: Vec<f64> = common::values(seed, 0x0a15, n, d, 0.0, 2.0)
        .into_iter()
        .map(f64::round)
        .collect();
    if d.is_float() || d.is_complex() {
        let special = [f64::NAN, f64::INFINITY, -0.0, 0.0];
        for (i, x) in v.iter_mut().enumerate() {
            let h = (i as u64 + seed).wrapping_mul(0x9e3779b97f4a7c15) >> 40;
            if h.is_multiple_of(11) {
                *x = special[(h >> 8) as usize % special.len()];
            }
        }
    }
    v
}

#[test]
fn unique_along_an_axis() {
    let dev = common::default_device();
    let mut cases = Vec::new();
    let mut dtypes = common::dtypes(&dev);
    dtypes.push(DType::Complex64);
    // One unique_axis run per (dtype, shape, axis, equal_nan) serves its four cases (values,
    // index, inverse, counts: each still checked against NumPy's).
    let memo: UniqueMemo = Default::default();
    for d in dtypes {
        let main = matches!(d, DType::F32 | DType::I32);
        let shapes: Vec<Vec<usize>> = if main {
            vec![
                vec![1, 3],
                vec![7, 2],
                vec![300, 3],
                vec![5000, 2],
                vec![4, 3, 2],
                vec![0, 3],
                vec![3, 0],
            ]
        } else {
            vec![vec![7, 2], vec![300, 3]]
        };
        for shape in shapes {
            let n: usize = shape.iter().product();
            let parts = if d.is_complex() { 2 } else { 1 };
            let v = low_diversity(n as u64 + 3, n * parts, d);
            let nd = shape.len() as isize;
            for axis in -nd..nd {
                // One stable sort pass per element of a slice: keep slices short.
                let ax = axis.rem_euclid(nd) as usize;
                if n / shape[ax].max(1) > 64 {
                    continue;
                }
                for (what, k) in [
                    ("values", 0usize),
                    ("index", 1),
                    ("inverse", 2),
                    ("counts", 3),
                ] {
                    for equal_nan in [true, false] {
                        if !equal_nan && (k != 0 || !d.is_float()) {
                            continue;
                        }
                        let en = if equal_nan { "True" } else { "False" };
                        cases.push(Case {
                            id: format!("unique axis={axis} {what} {shape:?} equal_nan={en}"),
                            dtype: d,
                            shape: shape.clone(),
                            data: v.clone(),
                            expr: format!(
                                "np.unique(a, axis={axis}, return_index=True, \
                                 return_inverse=True, return_counts=True, \
                                 equal_nan={en})[{k}]"
                            ),
                            tol: 0.0,
                            run: Box::new({
                                let memo = memo.clone();
                                let key = format!("{d} {shape:?} {axis} {equal_nan}");
                                move |a| {
                                    let u = memoized(&memo, &key, || {
                                        kp::sort::unique_axis(a, axis, true, true, true, equal_nan)
                                    })?;
                                    Ok(match k {
                                        0 => u.values,
                                        1 => u.indices.unwrap(),
                                        2 => u.inverse.unwrap(),
                                        _ => u.counts.unwrap(),
                                    })
                                }
                            }),
                        });
                    }
                }
            }
            if shape.len() == 2 && shape[0] > 1 {
                cases.push(Case {
                    id: format!("unique axis=0 of a reversed view {shape:?}"),
                    dtype: d,
                    shape: shape.clone(),
                    data: v.clone(),
                    expr: "np.unique(a[::-1, ::-1], axis=0, return_index=True)[1]".into(),
                    tol: 0.0,
                    run: Box::new(|a| {
                        let r =
                            a.slice(&[kp::views::stepped(.., -1), kp::views::stepped(.., -1)])?;
                        Ok(kp::sort::unique_axis(&r, 0, true, false, false, true)?
                            .indices
                            .unwrap())
                    }),
                });
            }
        }
    }
    // 1-D and out-of-range axes.
    let v = low_diversity(5, 40, DType::F32);
    for axis in [-2isize, -1, 0, 1] {
        cases.push(Case {
            id: format!("unique 1-D axis={axis}"),
            dtype: DType::F32,
            shape: vec![40],
            data: v.clone(),
            expr: format!("np.unique(a, axis={axis}, return_inverse=True)[1]"),
            tol: 0.0,
            run: Box::new(move |a| {
                Ok(kp::sort::unique_axis(a, axis, false, true, false, true)?
                    .inverse
                    .unwrap())
            }),
        });
    }
    run_cases("unique-axis", cases);
}

#[test]
fn histogram_bin_rules() {
    let dev = common::default_device();
    let mut cases = Vec::new();
    for d in common::dtypes(&dev) {
        if d == DType::Bool {
            continue;
        }
        for n in [1usize, 2, 50, 1000, 12000] {
            for (set, lo, hi) in [("wide", -20.0, 20.0), ("narrow", 0.0, 3.0)] {
                let lo = if d == DType::U32 { 0.0 } else { lo };
                let v: Vec<f64> = common::values(n as u64 + 11, 0x5703, n, d, lo, hi)
                    .into_iter()
                    .enumerate()
                    // A skewed, clustered sample so that the rules disagree.
                    .map(|(i, x)| {
                        if i % 3 == 0 {
                            (x * x / hi.max(1.0)).round()
                        } else {
                            x
                        }
                    })
                    .collect();
                for rule in [
                    "stone", "auto", "fd", "sturges", "doane", "scott", "rice", "sqrt",
                ] {
                    // NumPy's float16 std overflows (sums of squares in float16); kupfer's
                    // is accurate: their doane/scott widths differ.
                    if d == DType::F16 && matches!(rule, "doane" | "scott") {
                        continue;
                    }
                    cases.push(Case {
                        id: format!("histogram_bin_edges {rule} {set} n={n}"),
                        dtype: d,
                        shape: vec![n],
                        data: v.clone(),
                        expr: format!("np.histogram_bin_edges(a, bins='{rule}')"),
                        tol: 0.0,
                        run: Box::new(move |a| {
                            kp::sort::histogram_bin_edges(
                                a,
                                kp::sort::Bins::Rule(rule.into()),
                                None,
                                None,
                            )
                        }),
                    });
                }
            }
        }
    }
    run_cases("bin-rules", cases);
}

#[test]
fn histogram_bin_rules_with_range() {
    // With `range`, the rule sees only the data inside it and the bins span the range.
    let dev = common::default_device();
    let mut cases = Vec::new();
    for d in [DType::F32, DType::I32] {
        if !dev.supports(d) {
            continue;
        }
        let n = 500;
        let v: Vec<f64> = common::values(n as u64 + 3, 0x5704, n, d, -20.0, 20.0);
        for (lo, hi) in [(-5.0, 5.0), (0.0, 30.0), (3.0, 3.0), (100.0, 200.0)] {
            for rule in ["auto", "fd", "sturges", "doane", "scott", "rice", "sqrt"] {
                cases.push(Case {
                    id: format!("histogram {rule} range=({lo}, {hi})"),
                    dtype: d,
                    shape: vec![n],
                    data: v.clone(),
                    expr: format!("np.histogram(a, bins='{rule}', range=({lo}, {hi}))[0]"),
                    tol: 0.0,
                    run: Box::new(move |a| {
                        Ok(kp::sort::histogram_bins(
                            a,
                            kp::sort::Bins::Rule(rule.into()),
                            Some((lo, hi)),
                            None,
                        )?
                        .0)
                    }),
                });
            }
        }
    }
    run_cases("bin-rules-range", cases);
}

/// A handle on the default GPU whose global radix sort is `engine`, with tiles of `items`
/// keys per thread (4: 1024-key tiles, so that small arrays run many tiles) and the given
/// look-back patience (0: every predecessor is counted from its keys).
fn sort_engine_device(engine: kp::SortEngine, items: u32, patience: u32) -> kp::Device {
    let dev = common::default_device();
    let mut config = dev.config().clone();
    config.sort.engine = engine;
    config.sort.items = items;
    config.sort.patience = patience;
    dev.with_config(config)
}

#[test]
fn sort_and_argsort_every_dtype_onesweep() {
    // Sizes past the row sort's limit (4096), also in the [::2] views: the global sort,
    // at 1024-key tiles: around tile boundaries.
    let dev = sort_engine_device(kp::SortEngine::Onesweep, 4, 64);
    let _on = dev.use_device();
    // (Its small multi-dimensional cases would run the row sort: they are the row-sort
    // test's.)
    let sizes = [8193, 9216, 10239];
    run_cases(
        "onesweep",
        sort_cases(&dev, &sizes, &[9216], Shapes::None, &[], 4),
    );
}

#[test]
fn onesweep_look_back_fallback() {
    // Patience 0: no tile waits for another's status, every predecessor's digit counts are
    // recomputed from its keys (the path a tile takes when a predecessor never answers).
    // Patience 1: whatever is not ready at the first read is counted from its keys, the rest
    // read from the status (a mix that depends on the timing).
    for patience in [0, 1] {
        let dev = sort_engine_device(kp::SortEngine::Onesweep, 4, patience);
        let _on = dev.use_device();
        run_cases(
            &format!("onesweep-fallback-{patience}"),
            fallback_cases(&dev),
        );
    }
}

fn fallback_cases(dev: &kp::Device) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut dtypes = vec![
        DType::F32,
        DType::I32,
        DType::U32,
        DType::I64,
        DType::U64,
        DType::Complex64,
    ];
    if dev.supports(DType::F64) {
        dtypes.push(DType::F64);
    }
    for d in dtypes {
        for n in [8193usize, 12288] {
            cases.push(Case {
                id: format!("sort n={n}"),
                dtype: d,
                shape: vec![n],
                data: data(n as u64 + 11, n, d),
                expr: "np.sort(a)".into(),
                tol: 0.0,
                run: Box::new(|a| kp::sort(a, None, None)),
            });
            cases.push(Case {
                id: format!("argsort n={n}"),
                dtype: d,
                shape: vec![n],
                data: data(n as u64 + 12, n, d),
                expr: "np.argsort(a, kind='stable')".into(),
                tol: 0.0,
                run: Box::new(|a| kp::argsort(a, None, Some("stable"))),
            });
        }
    }
    cases
}

/// NumPy's order of float32 values: NaN last, -0.0 equal to 0.0.
fn numpy_order(a: f32, b: f32) -> std::cmp::Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => std::cmp::Ordering::Equal,
        (true, false) => std::cmp::Ordering::Greater,
        (false, true) => std::cmp::Ordering::Less,
        _ => a.partial_cmp(&b).unwrap(),
    }
}

#[test]
fn onesweep_and_portable_large_against_rust_sort() {
    // 2^20 + 3 float32 with ties, NaN, ±inf and both zeros, at the default tile size, on
    // both engines: sorted values against Rust's sort, argsort against Rust's stable sort
    // of the indices (kind='stable'); int32 and (where supported) float64 sorts likewise.
    let n = (1usize << 20) + 3;
    let mut rng = common::Rng(0x0e5);
    let special = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0, 0.0];
    let v: Vec<f32> = (0..n)
        .map(|_| {
            let r = rng.next();
            if r.is_multiple_of(11) {
                special[(r >> 8) as usize % special.len()]
            } else {
                ((r >> 12) % 200_001) as f32 * 0.25 - 25_000.0
            }
        })
        .collect();
    let mut want_idx: Vec<usize> = (0..n).collect();
    want_idx.sort_by(|&i, &j| numpy_order(v[i], v[j]));
    let ints: Vec<i32> = (0..n)
        .map(|_| ((rng.next() << 1) ^ (rng.next() << 16)) as u32 as i32)
        .collect();
    let mut want_ints = ints.clone();
    want_ints.sort_unstable();
    let wide: Vec<f64> = (0..n / 4).map(|_| (rng.unit() - 0.5) * 1e300).collect();
    let mut want_wide = wide.clone();
    want_wide.sort_by(|a, b| a.partial_cmp(b).unwrap());
    for engine in [kp::SortEngine::Onesweep, kp::SortEngine::Portable] {
        let dev = sort_engine_device(engine, 0, 64);
        let a = Array::from_slice_on(&dev, &v, &[n]).unwrap();
        let sorted = kp::sort(&a, None, None).unwrap().to_vec::<f32>().unwrap();
        let idx = kp::argsort(&a, None, Some("stable")).unwrap();
        let idx: Vec<usize> = match idx.to_host().unwrap().data {
            HostData::I64(x) => x.iter().map(|&i| i as usize).collect(),
            HostData::I32(x) => x.iter().map(|&i| i as usize).collect(),
            other => panic!("argsort gave {other:?}"),
        };
        for k in 0..n {
            let w = v[want_idx[k]];
            assert!(
                sorted[k] == w || (sorted[k].is_nan() && w.is_nan()),
                "{engine:?} sort: element {k} is {}, expected {w}",
                sorted[k]
            );
        }
        assert!(
            idx == want_idx,
            "{engine:?}: argsort differs from the stable order"
        );
        let a = Array::from_slice_on(&dev, &ints, &[n]).unwrap();
        let got = kp::sort(&a, None, None).unwrap().to_vec::<i32>().unwrap();
        assert!(got == want_ints, "{engine:?}: int32 sort differs");
        if dev.supports(DType::F64) {
            let a = Array::from_slice_on(&dev, &wide, &[wide.len()]).unwrap();
            let got = kp::sort(&a, None, None).unwrap().to_vec::<f64>().unwrap();
            assert!(got == want_wide, "{engine:?}: float64 sort differs");
        }
    }
}

#[test]
fn onesweep_launches_once_per_digit() {
    // The single-pass sort runs one launch per digit plus a clear, a histogram and its
    // scan; the portable sort two per digit at these few tiles (the downsweep sums the tile
    // counts itself, no column scan): float32 (4 digits) is 7 launches against 8. A device
    // of its own (launches are counted per GPU context, and other tests launch meanwhile).
    let base = common::default_device();
    let own = kp::Device::open(kp::AdapterChoice::Default, base.config().clone())
        .expect("a GPU adapter (lavapipe will do)");
    let launches = |engine| {
        let mut config = own.config().clone();
        config.sort.engine = engine;
        let dev = own.with_config(config);
        let a = Array::from_slice_on(&dev, &vec![1.5f32; 20_000], &[20_000]).unwrap();
        let before = dev.context().dispatch_count();
        let s = kp::sort(&a, None, None).unwrap();
        let after = dev.context().dispatch_count();
        assert_eq!(s.to_vec::<f32>().unwrap(), vec![1.5f32; 20_000]);
        after - before
    };
    let single = launches(kp::SortEngine::Onesweep);
    let portable = launches(kp::SortEngine::Portable);
    assert_eq!(
        portable - single,
        1,
        "onesweep {single}, portable {portable}"
    );
}

#[test]
fn searchsorted_is_one_launch() {
    // The common case (a contiguous sorted array and queries of one raw dtype, no sorter)
    // is the search's launch alone: no cast, copy, key pass or separate int64 widening. A
    // device of its own (launches are counted per GPU context).
    let base = common::default_device();
    let dev = kp::Device::open(kp::AdapterChoice::Default, base.config().clone())
        .expect("a GPU adapter (lavapipe will do)");
    let sorted: Vec<f32> = (0..50_000).map(|i| i as f32 * 0.5).collect();
    let queries: Vec<f32> = (0..3000).map(|i| (i * 7 % 25_000) as f32 + 0.25).collect();
    let a = Array::from_slice_on(&dev, &sorted, &[sorted.len()]).unwrap();
    let v = Array::from_slice_on(&dev, &queries, &[queries.len()]).unwrap();
    for side in [kp::sort::Side::Left, kp::sort::Side::Right] {
        let before = dev.context().dispatch_count();
        let pos = kp::searchsorted(&a, &v, side, None).unwrap();
        assert_eq!(dev.context().dispatch_count() - before, 1, "{side:?}");
        let got = pos.astype(DType::I32).unwrap().to_vec::<i32>().unwrap();
        let want: Vec<i32> = queries
            .iter()
            .map(|q| sorted.partition_point(|x| x < q) as i32)
            .collect();
        assert_eq!(got, want, "{side:?}");
    }
}

#[test]
fn searchsorted_two_tier_search_matches_the_host() {
    // The two-tier search on float32 (ties, ±inf, -0.0 against 0.0, NaN) and int64, windows
    // of 35 elements between samples, both sides; and isin through it. Against the host.
    let dev = common::default_device();
    let n = 2048 * 35 + 5;
    let mut sorted: Vec<f32> = (0..n)
        .map(|i| match i % 97 {
            0 => f32::NAN,
            1 => f32::INFINITY,
            2 => f32::NEG_INFINITY,
            3 => -0.0,
            4 => 0.0,
            _ => ((i * 7919) % 4001) as f32 * 0.5 - 1000.0,
        })
        .collect();
    let key = |x: f32| (x.is_nan(), if x.is_nan() { 0.0 } else { x });
    let below = |x: f32, q: f32| key(x).partial_cmp(&key(q)) == Some(std::cmp::Ordering::Less);
    sorted.sort_by(|a, b| key(*a).partial_cmp(&key(*b)).unwrap());
    let queries: Vec<f32> = (0..5000)
        .map(|i| match i % 50 {
            0 => f32::NAN,
            1 => -0.0,
            2 => f32::INFINITY,
            _ => ((i * 31) % 4200) as f32 * 0.5 - 1050.0,
        })
        .collect();
    let wide: Vec<i64> = {
        let mut w: Vec<i64> = (0..n as i64)
            .map(|i| (i * 7919) % 6007 * (1 << 40) - (1 << 52))
            .collect();
        w.sort_unstable();
        w
    };
    let wide_q: Vec<i64> = (0..3000i64)
        .map(|i| (i * 131) % 6200 * (1 << 40) - (1 << 52))
        .collect();
    let a = Array::from_slice_on(&dev, &sorted, &[n]).unwrap();
    let v = Array::from_slice_on(&dev, &queries, &[queries.len()]).unwrap();
    let aw = Array::from_slice_on(&dev, &wide, &[n]).unwrap();
    let vw = Array::from_slice_on(&dev, &wide_q, &[wide_q.len()]).unwrap();
    let positions = |r: kp::Array| r.astype(DType::I32).unwrap().to_vec::<i32>().unwrap();
    let mut failures = Vec::new();
    {
        for side in [kp::sort::Side::Left, kp::sort::Side::Right] {
            let right = side == kp::sort::Side::Right;
            let want: Vec<i32> = queries
                .iter()
                .map(|&q| {
                    sorted.partition_point(|&x| below(x, q) || (right && !below(q, x))) as i32
                })
                .collect();
            if positions(kp::searchsorted(&a, &v, side, None).unwrap()) != want {
                failures.push(format!("float32 {side:?}"));
            }
            let want: Vec<i32> = wide_q
                .iter()
                .map(|&q| wide.partition_point(|&x| x < q || (right && x == q)) as i32)
                .collect();
            if positions(kp::searchsorted(&aw, &vw, side, None).unwrap()) != want {
                failures.push(format!("int64 {side:?}"));
            }
        }
        let found = kp::isin(&v, &a, false).unwrap().to_vec::<bool>().unwrap();
        let want: Vec<bool> = queries
            .iter()
            .map(|&q| !q.is_nan() && sorted.contains(&q))
            .collect();
        if found != want {
            failures.push("isin".to_string());
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
}

/// Raw bit patterns of `d` (floats: NaNs of both signs and several payloads, ±0.0, ±inf,
/// subnormals, extremes, a few repeated values and random bits; integers: extremes, a few
/// repeated values and random bits) in the orders `pattern` names.
fn bit_patterns(d: DType, n: usize, pattern: &str, seed: u64) -> Vec<u64> {
    let mut rng = common::Rng(seed ^ 0xb175);
    let mut bits64 = || (rng.next() << 33) ^ (rng.next() << 2) ^ rng.next();
    let width = 8 * d.host_size() as u32;
    let mask = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let pool: Vec<u64> = match d {
        DType::F32 => vec![
            0x7fc0_0000,
            0xffc0_0000,
            0x7f80_0001,
            0xff80_0001,
            0x7fff_ffff,
            0xffff_ffff,
            0x7fc0_1234,
            0xffa0_0000,
            0x0000_0000,
            0x8000_0000,
            0x7f80_0000,
            0xff80_0000,
            0x0000_0001,
            0x8000_0001,
            0x007f_ffff,
            0x807f_ffff,
            0x7f7f_ffff,
            0xff7f_ffff,
            0x3fc0_0000,
            0xbfc0_0000,
            0x4120_0000,
        ],
        DType::F64 => vec![
            0x7ff8_0000_0000_0000,
            0xfff8_0000_0000_0000,
            0x7ff0_0000_0000_0001,
            0xfff0_0000_0000_0001,
            0x7fff_ffff_ffff_ffff,
            0xffff_ffff_ffff_ffff,
            0x7ff8_0000_dead_beef,
            0xfff4_0000_0000_0000,
            0,
            0x8000_0000_0000_0000,
            0x7ff0_0000_0000_0000,
            0xfff0_0000_0000_0000,
            1,
            0x8000_0000_0000_0001,
            0x000f_ffff_ffff_ffff,
            0x800f_ffff_ffff_ffff,
            0x7fef_ffff_ffff_ffff,
            0xffef_ffff_ffff_ffff,
            0x3ff8_0000_0000_0000,
            0xbff8_0000_0000_0000,
            0x4024_0000_0000_0001,
        ],
        _ => vec![0, 1, mask, mask >> 1, (mask >> 1) + 1, 5, mask - 4],
    };
    let mut v: Vec<u64> = match pattern {
        "equal" => vec![pool[6]; n],
        "few" => (0..n)
            .map(|_| pool[(bits64() % 3) as usize + 18.min(pool.len() - 3)])
            .collect(),
        _ => (0..n)
            .map(|_| {
                let r = bits64();
                if r % 3 == 0 {
                    r.rotate_left(7) & mask
                } else {
                    pool[(r >> 4) as usize % pool.len()]
                }
            })
            .collect(),
    };
    match pattern {
        "sorted" => v.sort_by(|&a, &b| numpy_cmp(d, a, b)),
        "reversed" => v.sort_by(|&a, &b| numpy_cmp(d, b, a)),
        _ => {}
    }
    v
}

/// NumPy's order of two bit patterns of `d` (floats: NaN last, -0.0 equal to 0.0).
fn numpy_cmp(d: DType, a: u64, b: u64) -> std::cmp::Ordering {
    let float = |x: f64, y: f64| match (x.is_nan(), y.is_nan()) {
        (true, true) => std::cmp::Ordering::Equal,
        (true, false) => std::cmp::Ordering::Greater,
        (false, true) => std::cmp::Ordering::Less,
        _ => x.partial_cmp(&y).unwrap(),
    };
    match d {
        DType::F32 => float(
            f64::from(f32::from_bits(a as u32)),
            f64::from(f32::from_bits(b as u32)),
        ),
        DType::F64 => float(f64::from_bits(a), f64::from_bits(b)),
        d if d.is_signed_int() => {
            let s = 64 - 8 * d.host_size() as u32;
            ((a << s) as i64 >> s).cmp(&((b << s) as i64 >> s))
        }
        _ => a.cmp(&b),
    }
}

fn upload_bits(dev: &kp::Device, d: DType, bits: &[u64]) -> Array {
    let n = [bits.len()];
    match d {
        DType::F32 => Array::from_slice_on(
            dev,
            &bits
                .iter()
                .map(|&b| f32::from_bits(b as u32))
                .collect::<Vec<_>>(),
            &n,
        ),
        DType::F64 => Array::from_slice_on(
            dev,
            &bits.iter().map(|&b| f64::from_bits(b)).collect::<Vec<_>>(),
            &n,
        ),
        DType::I8 => {
            Array::from_slice_on(dev, &bits.iter().map(|&b| b as i8).collect::<Vec<_>>(), &n)
        }
        DType::U8 => {
            Array::from_slice_on(dev, &bits.iter().map(|&b| b as u8).collect::<Vec<_>>(), &n)
        }
        DType::I16 => {
            Array::from_slice_on(dev, &bits.iter().map(|&b| b as i16).collect::<Vec<_>>(), &n)
        }
        DType::U16 => {
            Array::from_slice_on(dev, &bits.iter().map(|&b| b as u16).collect::<Vec<_>>(), &n)
        }
        DType::I32 => {
            Array::from_slice_on(dev, &bits.iter().map(|&b| b as i32).collect::<Vec<_>>(), &n)
        }
        DType::U32 => {
            Array::from_slice_on(dev, &bits.iter().map(|&b| b as u32).collect::<Vec<_>>(), &n)
        }
        DType::I64 => {
            Array::from_slice_on(dev, &bits.iter().map(|&b| b as i64).collect::<Vec<_>>(), &n)
        }
        DType::U64 => Array::from_slice_on(dev, bits, &n),
        _ => panic!("no bit patterns of {d}"),
    }
    .unwrap()
}

fn host_bits(a: &Array) -> Vec<u64> {
    match a.to_host().unwrap().data {
        HostData::F32(v) => v.iter().map(|x| u64::from(x.to_bits())).collect(),
        HostData::F64(v) => v.iter().map(|x| x.to_bits()).collect(),
        HostData::I8(v) => v.iter().map(|&x| u64::from(x as u8)).collect(),
        HostData::U8(v) => v.iter().map(|&x| u64::from(x)).collect(),
        HostData::I16(v) => v.iter().map(|&x| u64::from(x as u16)).collect(),
        HostData::U16(v) => v.iter().map(|&x| u64::from(x)).collect(),
        HostData::I32(v) => v.iter().map(|&x| u64::from(x as u32)).collect(),
        HostData::U32(v) => v.iter().map(|&x| u64::from(x)).collect(),
        HostData::I64(v) => v.iter().map(|&x| x as u64).collect(),
        HostData::U64(v) => v,
        other => panic!("no bits of {other:?}"),
    }
}

const BITS_ORACLE: &str = r#"
import json, sys, numpy as np
d = sys.argv[1]
cases = json.load(open(d + "/manifest.json"))
raw = {"float32": np.uint32, "float64": np.uint64, "int8": np.uint8, "uint8": np.uint8,
       "int16": np.uint16, "uint16": np.uint16, "int32": np.uint32, "uint32": np.uint32,
       "int64": np.uint64, "uint64": np.uint64}
out = []
for c in cases:
    u = raw[c["dtype"]]
    a = np.array(c["bits"], dtype=np.uint64).astype(u).view(c["dtype"])
    r = np.sort(eval(c["view"]), kind=c["kind"])
    out.append([int(x) for x in np.ascontiguousarray(r).view(u)])
json.dump(out, open(d + "/results.json", "w"))
"#;

#[test]
fn sort_keeps_every_bit() {
    // The keys-only sorts (the radix sort of long rows, the row sort of short rows) against
    // np.sort: the output's bit patterns are a permutation of the input's, non-decreasing in
    // NumPy's order, and equal to NumPy's values (NaN equal to NaN, -0.0 to 0.0). The stable
    // kind of floats (the payload path) and every kind of integers (keys alone) equal NumPy's
    // bits exactly. The portable engine runs every case; the single-pass engine at patience 0
    // (every predecessor counted from its keys) and the earlier radix kernel
    // (KUPFER_SORT_SCATTER=old, KUPFER_SORT_COUNTS=late) run the float cases of several
    // tiles. The look-back over published counts (patience > 0) is in
    // sort_and_argsort_every_dtype_onesweep and onesweep_look_back_fallback.
    let base = common::default_device();
    let mut dtypes = vec![
        DType::F32,
        DType::I32,
        DType::U32,
        DType::I64,
        DType::U64,
        DType::I8,
        DType::U8,
        DType::I16,
        DType::U16,
    ];
    if base.supports(DType::F64) {
        dtypes.push(DType::F64);
    }
    // (pattern, n, view, radix): at 1024-key tiles 1024 is one tile, 3001 several with a
    // short last one, the views 6001 reversed and 2051 strided (1026 elements); 100 and 4000
    // are single rows of the row sort at the default limits (radix false).
    let shapes: [(&str, usize, &str, bool); 9] = [
        ("mixed", 3001, "a", true),
        ("mixed", 6001, "a[::-1]", true),
        ("mixed", 2051, "a[::2]", true),
        ("equal", 2049, "a", true),
        ("few", 1024, "a", true),
        ("sorted", 1500, "a", true),
        ("reversed", 1500, "a", true),
        ("mixed", 100, "a", false),
        ("mixed", 4000, "a[::-1]", false),
    ];
    // Which (shape, dtype, kind) the portable engine runs: every shape for floats; the first
    // four shapes and the short rows for 32/64-bit integers; the first shape and the short
    // rows for the small integers (their keys are int32/uint32's); the stable kind for floats
    // and int32 (integers of every kind take the keys-only path).
    let portable_runs = |k: usize, d: DType, kind: &str| {
        let shape_ok = d.is_float() || k >= 7 || k == 0 || (!d.is_small_int() && k < 4);
        let kind_ok = kind == "quicksort" || d.is_float() || d == DType::I32;
        shape_ok && kind_ok
    };
    let mut manifest = Vec::new();
    let mut inputs = Vec::new();
    for &d in &dtypes {
        for (k, &(pattern, n, view, radix)) in shapes.iter().enumerate() {
            let bits = bit_patterns(d, n, pattern, k as u64 * 31 + d.host_size() as u64);
            for kind in ["quicksort", "stable"] {
                if !portable_runs(k, d, kind) {
                    continue;
                }
                manifest.push(json!({"dtype": d.name(), "bits": bits, "view": view, "kind": kind}));
                inputs.push((d, bits.clone(), k, view, radix, kind));
            }
        }
    }
    let dir = std::env::temp_dir().join(format!("kupfer-sort-bits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let results = common::run_oracle(&dir, &Value::Array(manifest), BITS_ORACLE);
    let _ = std::fs::remove_dir_all(&dir);
    let mut failures = Vec::new();
    let mut runs = 0;
    let configs = [
        (kp::SortEngine::Portable, 64, false),
        (kp::SortEngine::Onesweep, 0, false),
        (kp::SortEngine::Portable, 64, true),
        (kp::SortEngine::Onesweep, 0, true),
    ];
    for (ci, &(engine, patience, old_kernel)) in configs.iter().enumerate() {
        let dev = sort_engine_device(engine, 4, patience);
        kp::sort::set_old_radix_kernel_for_tests(Some(old_kernel));
        for ((d, bits, k, view, radix, kind), want) in
            inputs.iter().zip(results.as_array().unwrap())
        {
            let d = *d;
            if ci > 0 && !(d.is_float() && *k < 2 && *kind == "quicksort") {
                continue;
            }
            kp::sort::set_limits_for_tests(if *radix { 1 } else { 0 }, 0);
            let a = upload_bits(&dev, d, bits);
            let a = match *view {
                "a[::-1]" => a.slice(&[kp::views::stepped(.., -1)]).unwrap(),
                "a[::2]" => a.slice(&[kp::views::stepped(.., 2)]).unwrap(),
                _ => a,
            };
            let input = host_bits(&a);
            let got = host_bits(&kp::sort(&a, None, Some(kind)).unwrap());
            runs += 1;
            let want: Vec<u64> = want
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .collect();
            let id = format!(
                "{engine:?}/{patience}/old kernel {old_kernel} {d} {} n={} {view} {kind}",
                shapes[*k].0,
                bits.len()
            );
            let (mut have_sorted, mut in_sorted) = (got.clone(), input);
            have_sorted.sort_unstable();
            in_sorted.sort_unstable();
            if have_sorted != in_sorted {
                failures.push(format!("{id}: the output's bits are not the input's"));
                continue;
            }
            if let Some(k) = (1..got.len()).find(|&k| numpy_cmp(d, got[k - 1], got[k]).is_gt()) {
                failures.push(format!("{id}: element {k} below its predecessor"));
                continue;
            }
            let exact = *kind == "stable" || !d.is_float();
            let bad = got.iter().zip(&want).position(|(&g, &w)| {
                if exact {
                    g != w
                } else {
                    numpy_cmp(d, g, w).is_ne()
                }
            });
            if let Some(k) = bad {
                failures.push(format!(
                    "{id}: element {k} is {:#x}, NumPy's {:#x}",
                    got[k], want[k]
                ));
            }
        }
    }
    kp::sort::set_limits_for_tests(0, 0);
    kp::sort::set_old_radix_kernel_for_tests(None);
    common::assert_no_failures(&failures, runs);
}
