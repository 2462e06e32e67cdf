//! partition and argpartition against NumPy's contract (their order inside the parts is
//! unspecified, so NumPy checks the property rather than comparing elements): each kth
//! position holds the value `np.sort` puts there, nothing before it is larger and nothing
//! after it smaller (NaN last), the result is a permutation of the row (float signs of zeros
//! included), and argpartition's indices are a permutation whose gather has that property.
//! Shape and dtype must be NumPy's.
//!
//! Data: values with many ties, sprinkled with NaN, ±inf, -0.0 and 0.0 (floats), every dtype
//! (the small integers too); sizes around the selection's 1024-element minimum and the
//! scatter's 2048-element tiles; kth at 0, n-1, negative, repeated and several (up to the
//! 8 pivots one launch takes, and more, which sort); every axis, axis=None, reversed and
//! strided views; many short rows forced onto the per-row selection.
//!
//! Needs python3 with NumPy and a GPU adapter (lavapipe will do); fails, never skips.
//! Run: `cargo test -p kupfer-suite --test partition`.

mod common;

use kp::{Array, DType, HostData};
use kupfer as kp;
use serde_json::{json, Value};

/// Values with ties and (floats) special values.
fn data(seed: u64, n: usize, d: DType) -> Vec<f64> {
    let (lo, hi) = match d {
        DType::Bool => (0.0, 1.0),
        DType::U8 | DType::U16 | DType::U32 => (0.0, 40.0),
        _ => (-20.0, 20.0),
    };
    let mut v = common::values(seed, 0x9a27, n, d, lo, hi);
    if d.is_float() {
        let special = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 0.0];
        let mut state = seed.wrapping_mul(0x2545f4914f6cdd1d) | 1;
        for x in v.iter_mut() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            if state.is_multiple_of(6) {
                *x = special[(state >> 8) as usize % special.len()];
            } else {
                *x = (*x * 2.0).round() / 2.0;
            }
        }
    }
    v
}

fn json_num(v: f64) -> Value {
    if v.is_nan() {
        json!("nan")
    } else if v.is_infinite() {
        json!(if v > 0.0 { "inf" } else { "-inf" })
    } else {
        json!(v)
    }
}

/// An array's values as f64 (every real dtype; int64 values here are small).
fn host_values(a: &Array) -> Vec<f64> {
    match a.to_host().unwrap().data {
        HostData::Bool(v) => v.iter().map(|&x| f64::from(u8::from(x))).collect(),
        HostData::I8(v) => v.iter().map(|&x| f64::from(x)).collect(),
        HostData::U8(v) => v.iter().map(|&x| f64::from(x)).collect(),
        HostData::I16(v) => v.iter().map(|&x| f64::from(x)).collect(),
        HostData::U16(v) => v.iter().map(|&x| f64::from(x)).collect(),
        HostData::I32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        HostData::U32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        HostData::I64(v) => v.iter().map(|&x| x as f64).collect(),
        HostData::F16(v) => v.iter().map(|&x| f64::from(x)).collect(),
        HostData::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        HostData::F64(v) => v,
        other => panic!("unexpected host data {:?}", std::mem::discriminant(&other)),
    }
}

/// A view of the uploaded array, as NumPy writes it and as kupfer takes it.
type View = (&'static str, fn(&Array) -> kp::Result<Array>);

const VIEWS: [View; 3] = [
    ("a", |a| Ok(a.clone())),
    ("a[::-1]", |a| a.slice(&[kp::views::stepped(.., -1)])),
    ("a[::2]", |a| a.slice(&[kp::views::stepped(.., 2)])),
];

struct Case {
    id: String,
    dtype: DType,
    shape: Vec<usize>,
    data: Vec<f64>,
    view: View,
    kth: Vec<isize>,
    axis: Option<isize>,
    arg: bool,
}

/// Checks kupfer's result (`got`) of `np.partition(v, kth, axis)` or `np.argpartition` for
/// NumPy's contract; `"ok"` or what failed.
const ORACLE: &str = r#"
import json, sys, numpy as np
d = sys.argv[1]
cases = json.load(open(d + "/manifest.json"))

def le(x, v):
    # x <= v in NumPy's sort order (NaN last).
    return (x <= v) | np.isnan(v) if x.dtype.kind == "f" else x <= v

def check(c):
    a = np.array([float(x) for x in c["data"]]).astype(c["dtype"]).reshape(c["shape"])
    v = eval(c["view"])
    axis, kth = c["axis"], c["kth"]
    fn = np.argpartition if c["arg"] else np.partition
    try:
        want = fn(v, kth, axis=axis)
    except Exception as e:
        return "ok" if c["error"] is not None else f"numpy raised {e!r}, kupfer did not"
    if c["error"] is not None:
        return "kupfer raised " + c["error"]
    got = np.array([float(x) for x in c["got"]]).astype(c["got_dtype"]).reshape(c["got_shape"])
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"shape/dtype {got.shape} {got.dtype}, numpy {want.shape} {want.dtype}"
    src = v.ravel() if axis is None else v
    ax = 0 if axis is None else axis
    if c["arg"]:
        n = src.shape[ax]
        idx = np.sort(got, axis=ax)
        line = np.arange(n).reshape([-1 if k == (ax % src.ndim) else 1 for k in range(src.ndim)])
        if not np.array_equal(idx, np.broadcast_to(line, idx.shape)):
            return "indices are not a permutation of each row"
        got = np.take_along_axis(src, got, axis=ax)
    ref = np.sort(src, axis=ax)
    if not np.array_equal(np.sort(got, axis=ax), ref, equal_nan=src.dtype.kind == "f"):
        return "not a permutation of the row's values"
    if src.dtype.kind == "f":
        zero_signs = lambda x: np.sum(np.signbit(x) & (x == 0), axis=ax)
        if not np.array_equal(zero_signs(got), zero_signs(src)):
            return "-0.0 and 0.0 counts differ"
    n = src.shape[ax]
    g = np.moveaxis(got, ax, -1)
    r = np.moveaxis(ref, ax, -1)
    for k in np.atleast_1d(kth):
        k = int(k) % n
        kv = g[..., k:k + 1]
        if not np.array_equal(kv, r[..., k:k + 1], equal_nan=src.dtype.kind == "f"):
            return f"kth {k}: {kv.ravel()[:4]} where the sort has {r[..., k].ravel()[:4]}"
        if not np.all(le(g[..., :k], kv)):
            return f"kth {k}: a larger value before it"
        if not np.all(le(kv, g[..., k + 1:])):
            return f"kth {k}: a smaller value after it"
    return "ok"

out = []
for c in cases:
    try:
        out.append(check(c))
    except Exception as e:
        out.append("oracle error: " + repr(e))
json.dump(out, open(d + "/results.json", "w"))
"#;

fn run_cases(name: &str, cases: Vec<Case>) {
    let dir = std::env::temp_dir().join(format!("kupfer-part-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut entries = Vec::new();
    for c in &cases {
        let a = common::upload(&c.data, c.dtype, &c.shape);
        let run = || -> kp::Result<Array> {
            let v = (c.view.1)(&a)?;
            if c.arg {
                kp::argpartition(&v, &c.kth, c.axis)
            } else {
                kp::partition(&v, &c.kth, c.axis)
            }
        };
        let (got, got_dtype, got_shape, error) =
            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
                Ok(Ok(r)) => (
                    host_values(&r).into_iter().map(json_num).collect(),
                    r.dtype().name().to_string(),
                    r.shape().to_vec(),
                    Value::Null,
                ),
                Ok(Err(e)) => (Vec::new(), String::new(), Vec::new(), json!(e.to_string())),
                Err(_) => (Vec::new(), String::new(), Vec::new(), json!("a panic")),
            };
        entries.push(json!({
            "dtype": c.dtype.name(), "shape": c.shape,
            "data": c.data.iter().map(|&v| json_num(v)).collect::<Vec<_>>(),
            "view": c.view.0, "kth": c.kth, "axis": c.axis, "arg": c.arg,
            "got": got, "got_dtype": got_dtype, "got_shape": got_shape, "error": error,
        }));
    }
    let results = common::run_oracle(&dir, &Value::Array(entries), ORACLE);
    let _ = std::fs::remove_dir_all(&dir);
    let failures: Vec<String> = cases
        .iter()
        .zip(results.as_array().unwrap())
        .filter(|(_, r)| r.as_str() != Some("ok"))
        .map(|(c, r)| format!("{} [{}]: {}", c.id, c.dtype, r))
        .collect();
    common::assert_no_failures(&failures, cases.len());
}

fn all_dtypes(dev: &kp::Device) -> Vec<DType> {
    let mut d = common::dtypes(dev);
    d.extend(
        [DType::I8, DType::U8, DType::I16, DType::U16]
            .into_iter()
            .filter(|&t| dev.supports(t)),
    );
    d
}

#[test]
fn partition_one_row_every_dtype() {
    // One long row (the global selection above 8192 elements, one workgroup below), sizes
    // around the tiles, kth at both ends, negative, repeated and several; both functions.
    let dev = common::default_device();
    let mut cases = Vec::new();
    for d in all_dtypes(&dev) {
        for (s, n) in [1023usize, 1024, 2047, 2048, 2049, 8191, 8193, 20_481]
            .into_iter()
            .enumerate()
        {
            let m = n as isize;
            let kths: Vec<Vec<isize>> = vec![
                vec![0],
                vec![m - 1],
                vec![-1],
                vec![m / 2],
                vec![-3, 5, 5, m / 3],
                vec![0, m - 1],
                (0..8).map(|k| k * m / 8 + 1).collect(),
                (0..9).map(|k| k * m / 9).collect(),
            ];
            // Every kth set for two sizes; one or two per size otherwise (time).
            let pick: Vec<usize> = if s == 4 || s == 6 {
                (0..kths.len()).collect()
            } else {
                vec![s % kths.len(), (s + 3) % kths.len()]
            };
            let v = data(s as u64 + 1, n, d);
            for k in pick {
                for arg in [false, true] {
                    cases.push(Case {
                        id: format!("n={n} kth={:?} arg={arg}", kths[k]),
                        dtype: d,
                        shape: vec![n],
                        data: v.clone(),
                        view: VIEWS[(k + s) % 3],
                        kth: kths[k].clone(),
                        axis: Some(-1),
                        arg,
                    });
                }
            }
        }
    }
    // Rows of 2^18 elements and more take 8192-element tiles.
    let n = (1usize << 18) + 3;
    for d in [DType::F32, DType::I64] {
        if !dev.supports(d) {
            continue;
        }
        let v = data(77, n, d);
        for (kth, arg) in [(vec![n as isize / 2], false), (vec![1, -3], true)] {
            cases.push(Case {
                id: format!("n={n} kth={kth:?} arg={arg}"),
                dtype: d,
                shape: vec![n],
                data: v.clone(),
                view: VIEWS[0],
                kth,
                axis: None,
                arg,
            });
        }
    }
    // More than 256 tiles in a row: each thread of the per-row scan walks several.
    let n = (3usize << 19) + 7;
    let v = data(78, n, DType::F32);
    for (kth, arg) in [(vec![n as isize / 3], false), (vec![-5, 2], true)] {
        cases.push(Case {
            id: format!("n={n} kth={kth:?} arg={arg}"),
            dtype: DType::F32,
            shape: vec![n],
            data: v.clone(),
            view: VIEWS[0],
            kth,
            axis: Some(0),
            arg,
        });
    }
    run_cases("one", cases);
}

#[test]
fn partition_axes_views_and_rows() {
    // Every axis of 2-D and 3-D arrays, axis=None, views; short rows forced onto the
    // per-row selection; bad kth raise as NumPy does.
    let dev = common::default_device();
    kp::sort::set_row_select_min_for_tests(16);
    let mut cases = Vec::new();
    for d in [DType::F32, DType::I32, DType::F64, DType::U8, DType::F16] {
        if !dev.supports(d) {
            continue;
        }
        let shapes: [(Vec<usize>, Vec<Option<isize>>); 3] = [
            (vec![6, 2049], vec![Some(1), Some(0), Some(-1), None]),
            (vec![4100, 3], vec![Some(0), Some(1)]),
            (vec![3, 40, 37], vec![Some(0), Some(1), Some(2), None]),
        ];
        for (s, (shape, axes)) in shapes.into_iter().enumerate() {
            let n: usize = shape.iter().product();
            let v = data(40 + s as u64, n, d);
            for (j, axis) in axes.into_iter().enumerate() {
                for (kth, arg) in [
                    (vec![1isize], false),
                    (vec![-2, 0, 2], true),
                    (vec![2], true),
                ] {
                    cases.push(Case {
                        id: format!("shape={shape:?} axis={axis:?} kth={kth:?} arg={arg}"),
                        dtype: d,
                        shape: shape.clone(),
                        data: v.clone(),
                        view: VIEWS[(j + s) % 2],
                        kth,
                        axis,
                        arg,
                    });
                }
            }
        }
        // Out-of-bounds kth: both raise.
        cases.push(Case {
            id: "kth out of bounds".into(),
            dtype: d,
            shape: vec![3000],
            data: data(9, 3000, d),
            view: VIEWS[0],
            kth: vec![3000],
            axis: Some(0),
            arg: false,
        });
    }
    run_cases("axes", cases);
}
