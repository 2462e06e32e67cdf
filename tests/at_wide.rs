//! `kupfer::ufunc_at` (the Rust API) with values whose dtype is not the destination's,
//! against NumPy 2.4: NumPy computes each step in the loop dtype of (destination, values) (a
//! Python int is int64, a float float64) and casts the result back into the destination, so
//! `np.maximum.at(uint8, i, 300)` writes 44. Every op on bool, the packed small integers,
//! int32, uint32, float16 and float32 destinations (and strided views of them), with int64,
//! float64, float32 and bool arrays and Python scalars as values. Repeated indices wherever
//! NumPy's result does not depend on the order of one element's steps (always for the
//! extrema); the other steps apply in an unspecified order, as documented.

mod common;

use common::{assert_no_failures, default_device, run_oracle};
use kupfer as kp;
use kupfer::{Array, AtOp, DType, Index, Scalar};
use serde_json::{json, Value};

const ORACLE: &str = r#"
import json, sys, os, warnings
import numpy as np
warnings.simplefilter("ignore")
d = sys.argv[1]
cases = json.load(open(os.path.join(d, "manifest.json")))
out = []
for c in cases:
    x = (np.arange(23) * 7919 % 65536 - 300).astype(c["dtype"])
    if c["dtype"] == "bool":
        x = np.arange(23) % 3 == 0
    dst = x[1::2] if c["view"] else x
    v = eval(c["values"], {"np": np})
    try:
        with np.errstate(all="ignore"):
            getattr(np, c["op"]).at(dst, np.array(c["idx"]), v)
        out.append({"values": x.astype(np.float64).tolist()})
    except Exception as e:
        out.append({"error": f"{type(e).__name__}: {e}"})
json.dump(out, open(os.path.join(d, "results.json"), "w"))
"#;

fn op_of(name: &str) -> AtOp {
    match name {
        "add" => AtOp::Add,
        "subtract" => AtOp::Subtract,
        "multiply" => AtOp::Multiply,
        "maximum" => AtOp::Maximum,
        _ => AtOp::Minimum,
    }
}

/// A NumPy expression of values and kupfer's same values.
type ValueCase = (&'static str, fn() -> kp::Operand);

/// (NumPy expression, kupfer's values).
fn value_cases() -> Vec<ValueCase> {
    vec![
        ("np.array([300, -200, 5, 70000, -1, 2**40, 7, 255])", || {
            Array::from_slice(&[300i64, -200, 5, 70000, -1, 1 << 40, 7, 255], &[8])
                .unwrap()
                .into()
        }),
        (
            "np.array([300.5, -200.25, 5.75, -0.5, 1e10, 2.5, 255.9, -1e10])",
            || {
                Array::from_slice(
                    &[300.5f64, -200.25, 5.75, -0.5, 1e10, 2.5, 255.9, -1e10],
                    &[8],
                )
                .unwrap()
                .into()
            },
        ),
        (
            "np.array([1.5, -2.5, 3.25, 0.5, 7.0, 300.0, -300.0, 9.0], dtype=np.float32)",
            || {
                Array::from_slice(&[1.5f32, -2.5, 3.25, 0.5, 7.0, 300.0, -300.0, 9.0], &[8])
                    .unwrap()
                    .into()
            },
        ),
        (
            "np.array([True, False, True, True, False, True, False, True])",
            || {
                Array::from_slice(&[true, false, true, true, false, true, false, true], &[8])
                    .unwrap()
                    .into()
            },
        ),
        ("300", || kp::Operand::Scalar(Scalar::Int(300))),
        ("-1", || kp::Operand::Scalar(Scalar::Int(-1))),
        ("2.5", || kp::Operand::Scalar(Scalar::Float(2.5))),
        ("-300.75", || kp::Operand::Scalar(Scalar::Float(-300.75))),
    ]
}

#[test]
fn ufunc_at_with_values_of_other_dtypes_matches_numpy() {
    let dev = default_device();
    let dests = [
        ("bool", DType::Bool),
        ("uint8", DType::U8),
        ("int8", DType::I8),
        ("uint16", DType::U16),
        ("int16", DType::I16),
        ("int32", DType::I32),
        ("uint32", DType::U32),
        ("float32", DType::F32),
    ];
    let ops = ["add", "subtract", "multiply", "maximum", "minimum"];
    let repeated = [0i64, 3, 3, -1, 5, 3, 0, 7];
    let unique = [0i64, 3, 4, -1, 5, 6, 1, 7];
    let mut manifest = Vec::new();
    let mut runs = Vec::new();
    for (name, dtype) in dests {
        for op in ops {
            for (k, (expr, _)) in value_cases().into_iter().enumerate() {
                for view in [false, true] {
                    let float_steps = expr.contains('.') && !matches!(op, "maximum" | "minimum");
                    let bool_sums = dtype == DType::Bool && matches!(op, "add" | "subtract");
                    let idx: &[i64] = if (float_steps && dtype != DType::Bool) || bool_sums {
                        &unique
                    } else {
                        &repeated
                    };
                    manifest.push(
                        json!({"dtype": name, "op": op, "idx": idx, "values": expr, "view": view}),
                    );
                    runs.push((dtype, op, k, idx.to_vec(), view));
                }
            }
        }
    }
    let dir = std::env::temp_dir().join(format!("kupfer_at_wide_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let results = run_oracle(&dir, &Value::Array(manifest.clone()), ORACLE);
    let _ = std::fs::remove_dir_all(&dir);
    let mut failures = Vec::new();
    for ((dtype, op, k, idx, view), (case, want)) in runs
        .into_iter()
        .zip(manifest.iter().zip(results.as_array().unwrap()))
    {
        let base: Vec<i64> = (0..23).map(|j| (j * 7919 % 65536) - 300).collect();
        let x = if dtype == DType::Bool {
            let b: Vec<bool> = (0..23).map(|j| j % 3 == 0).collect();
            Array::from_slice_on(&dev, &b, &[23]).unwrap()
        } else {
            Array::from_slice_on(&dev, &base, &[23])
                .unwrap()
                .astype(dtype)
                .unwrap()
        };
        x.eval().unwrap();
        let dst = if view {
            x.slice(&kp::s![1..;2]).unwrap()
        } else {
            x.clone()
        };
        let values = (value_cases()[k].1)();
        let index = [Index::Array(Array::from_slice(&idx, &[idx.len()]).unwrap())];
        let got = kp::ufunc_at(op_of(op), &dst, &index, values)
            .and_then(|()| x.astype(DType::F64)?.to_vec::<f64>());
        match (got, want.get("values")) {
            (Ok(g), Some(w)) => {
                let w: Vec<f64> = w
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_f64().unwrap())
                    .collect();
                // serde_json parses decimals to within an ulp of f64: far below float32's.
                let close = |a: f64, b: f64| a == b || (a - b).abs() <= 1e-14 * b.abs();
                if g.len() != w.len() || g.iter().zip(&w).any(|(&a, &b)| !close(a, b)) {
                    failures.push(format!("{case}: got {g:?}, NumPy {w:?}"));
                }
            }
            (Err(e), Some(_)) => failures.push(format!("{case}: kupfer error {e}")),
            (Ok(_), None) => failures.push(format!("{case}: NumPy raised {}", want["error"])),
            (Err(_), None) => {}
        }
    }
    assert_no_failures(&failures, manifest.len());
}

/// A Python int beyond 64 bits is NumPy's OverflowError; bool minus bool its TypeError.
#[test]
fn ufunc_at_refuses_what_numpy_refuses() {
    default_device();
    let x = Array::from_slice(&[1u8, 2, 3], &[3]).unwrap();
    let i = [Index::Array(Array::from_slice(&[0i64], &[1]).unwrap())];
    let e = kp::ufunc_at(AtOp::Maximum, &x, &i, Scalar::BigInt(1 << 70)).unwrap_err();
    assert!(
        e.to_string()
            .ends_with("Python int too large to convert to C long"),
        "{e}"
    );
    let b = Array::from_slice(&[true, false], &[2]).unwrap();
    let e = kp::ufunc_at(AtOp::Subtract, &b, &i, true).unwrap_err();
    assert!(e.to_string().contains("numpy boolean subtract"), "{e}");
    // 2**63 is uint64 (NumPy's asarray): max(1, 2**63) wraps back to 0 in uint8.
    kp::ufunc_at(AtOp::Maximum, &x, &i, Scalar::BigInt(1 << 63)).unwrap();
    assert_eq!(x.to_vec::<u8>().unwrap(), vec![0, 2, 3]);
    kp::ufunc_at(AtOp::Add, &x, &i, Scalar::BigInt((1 << 63) + 5)).unwrap();
    assert_eq!(x.to_vec::<u8>().unwrap(), vec![5, 2, 3]);
}
