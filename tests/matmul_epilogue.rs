//! Matmul epilogues against NumPy: elementwise expressions over a product (`(a @ b) * 2 + c`,
//! bias rows and columns, relu, comparisons, transposed and batched operands, float16,
//! float64 and int32 products) must give NumPy's values, and run as ONE kernel where the
//! product is used by nothing else — or as the product plus an elementwise kernel where it is
//! (a product the caller still holds, a product used twice, inputs whose batch axes do not
//! collapse, 8-byte scalars).
//!
//! NumPy (python3 subprocess) evaluates the same expression over the same data in float64;
//! floats must agree within eps(acc) (2 K + 16) K |scale| + eps(out) |want|, integers and bools
//! exactly (bool results skip elements whose comparison is within that bound of a tie).
//! Every case runs on a device of its own test so that the dispatch counter sees only its
//! kernels. Needs python3 with NumPy and a GPU adapter (lavapipe will do); fails, never
//! skips, without them. Run: `cargo test -p kupfer-suite --test matmul_epilogue`.

mod common;

use common::eps;

use kp::{Array, DType};
use kupfer as kp;
use serde_json::{json, Value};

type RunFn = Box<dyn Fn(&[Array]) -> kp::Result<Array>>;

struct Case {
    id: &'static str,
    /// Named inputs `a`, `b`, `c`, ... : dtype and shape.
    inputs: Vec<(DType, Vec<usize>)>,
    /// The NumPy expression over the inputs.
    expr: &'static str,
    /// For bool results: the NumPy expression whose value near 0 makes an element a tie.
    near: Option<&'static str>,
    run: RunFn,
    /// Kernel launches expected when the result materialises (after the inputs are on the
    /// device): 1 when the expression is the product's epilogue.
    launches: u64,
    /// Inner dimension and the largest factor applied to the product (tolerance).
    k: usize,
    scale: f64,
}

fn data(seed: u64, dtype: DType, shape: &[usize]) -> Vec<f64> {
    let n: usize = shape.iter().product();
    let (lo, hi) = match dtype {
        DType::I32 => (-50.0, 50.0),
        _ => (-1.0, 1.0),
    };
    common::values(seed, 0xe71, n, dtype, lo, hi)
}

fn case(
    id: &'static str,
    inputs: Vec<(DType, Vec<usize>)>,
    expr: &'static str,
    launches: u64,
    run: impl Fn(&[Array]) -> kp::Result<Array> + 'static,
) -> Case {
    let k = inputs[0].1.last().copied().unwrap_or(1);
    Case {
        id,
        inputs,
        expr,
        near: None,
        run: Box::new(run),
        launches,
        k,
        scale: 2.0,
    }
}

fn cases(f64_ok: bool) -> Vec<Case> {
    use DType::{Bool, F16, F32, F64, I32};
    let (m, k, n) = (37, 19, 53);
    let mat = |d: DType, r: usize, c: usize| (d, vec![r, c]);
    let mut v = vec![
        case(
            "scaled_plus_c",
            vec![mat(F32, m, k), mat(F32, k, n), mat(F32, m, n)],
            "(a @ b) * 2 + c",
            1,
            |x| Ok(&kp::matmul(&x[0], &x[1])? * 2.0 + &x[2]),
        ),
        case(
            "small_simple_kernel",
            vec![mat(F32, 5, 3), mat(F32, 3, 7), mat(F32, 5, 7)],
            "(a @ b) * 2 + c",
            1,
            |x| Ok(&kp::matmul(&x[0], &x[1])? * 2.0 + &x[2]),
        ),
        case(
            "bias_row_relu",
            vec![mat(F32, m, k), mat(F32, k, n), (F32, vec![n])],
            "np.maximum(a @ b + c, 0)",
            1,
            |x| kp::maximum(&(&kp::matmul(&x[0], &x[1])? + &x[2]), 0.0),
        ),
        case(
            "bias_column_minus",
            vec![mat(F32, m, k), mat(F32, k, n), mat(F32, m, 1)],
            "c - (a @ b) / 2",
            1,
            |x| Ok(&x[2] - &(&kp::matmul(&x[0], &x[1])? / 2.0)),
        ),
        case(
            "transposed_inputs",
            vec![mat(F32, k, m), mat(F32, n, k), mat(F32, n, m)],
            "a.T @ b.T + c.T * 3",
            1,
            |x| Ok(&kp::matmul(&x[0].t()?, &x[1].t()?)? + &(&x[2].t()? * 3.0)),
        ),
        case(
            "reversed_rows",
            vec![mat(F32, m, k), mat(F32, k, n), mat(F32, m, n)],
            "(a @ b) + c[::-1] * 2",
            1,
            |x| {
                let rev = kp::SliceArg::Slice {
                    start: None,
                    stop: None,
                    step: Some(-1),
                };
                Ok(&kp::matmul(&x[0], &x[1])? + &(&x[2].slice(&[rev])? * 2.0))
            },
        ),
        case(
            "user_kernel_in_the_epilogue",
            vec![mat(F32, m, k), mat(F32, k, n), mat(F32, m, n)],
            "1 / (1 + np.exp(-(a @ b))) + c",
            1,
            |x| {
                let sigmoid = kp::ElementwiseKernel::new(
                    "T x",
                    "T y",
                    "y = T(1) / (T(1) + exp(-x));",
                    "sigmoid",
                )?;
                let s = sigmoid.call(kp::args![&kp::matmul(&x[0], &x[1])?])?;
                Ok(&s + &x[2])
            },
        ),
        case(
            "batched_bias",
            vec![(F32, vec![3, m, k]), mat(F32, k, n), (F32, vec![3, 1, n])],
            "(a @ b) * 2 + c",
            1,
            |x| Ok(&kp::matmul(&x[0], &x[1])? * 2.0 + &x[2]),
        ),
        case(
            "batch_axes_that_do_not_collapse",
            vec![
                (F32, vec![2, 3, 8, k]),
                (F32, vec![2, 1, k, 9]),
                (F32, vec![2, 1, 8, 9]),
            ],
            "(a @ b) + c",
            2,
            |x| Ok(&kp::matmul(&x[0], &x[1])? + &x[2]),
        ),
        case(
            "float16",
            vec![mat(F16, m, k), mat(F16, k, n), mat(F16, m, n)],
            "(a @ b) * 0.5 + c",
            1,
            |x| Ok(&kp::matmul(&x[0], &x[1])? * 0.5 + &x[2]),
        ),
        case(
            "int32_exact",
            vec![mat(I32, 9, 7), mat(I32, 7, 11), mat(I32, 9, 11)],
            "(a @ b) * 3 - c",
            1,
            |x| Ok(&kp::matmul(&x[0], &x[1])? * 3i64 - &x[2]),
        ),
        case(
            "held_product_is_not_fused",
            vec![mat(F32, m, k), mat(F32, k, n), mat(F32, m, n)],
            "(a @ b) * 2 + c",
            2,
            |x| {
                let p = kp::matmul(&x[0], &x[1])?;
                let y = &p * 2.0 + &x[2];
                y.eval()?;
                // The product itself is there too, computed once.
                drop(p);
                Ok(y)
            },
        ),
        case(
            "product_used_twice",
            vec![mat(F32, m, k), mat(F32, k, n)],
            "(a @ b) * (a @ b) + 1",
            2,
            |x| {
                let p = kp::matmul(&x[0], &x[1])?;
                let y = &(&p * &p) + 1.0;
                drop(p);
                Ok(y)
            },
        ),
        case(
            "chained_products",
            vec![
                mat(F32, 8, 6),
                mat(F32, 6, 10),
                mat(F32, 10, 5),
                mat(F32, 8, 5),
            ],
            "(a @ b) @ c + d",
            2,
            |x| Ok(&kp::matmul(&kp::matmul(&x[0], &x[1])?, &x[2])? + &x[3]),
        ),
        case(
            "reduction_of_a_product",
            vec![mat(F32, m, k), mat(F32, k, n)],
            "(a @ b).sum(axis=0)",
            2,
            |x| kp::matmul(&x[0], &x[1])?.sum(0, false),
        ),
    ];
    let mut cmp = case(
        "comparison_to_bool",
        vec![
            mat(F32, m, k),
            mat(F32, k, n),
            mat(F32, m, n),
            mat(Bool, m, n),
        ],
        "((a @ b) > c) & d",
        1,
        |x| kp::logical_and(&kp::greater(&kp::matmul(&x[0], &x[1])?, &x[2])?, &x[3]),
    );
    cmp.near = Some("(a @ b) - c");
    v.push(cmp);
    // chained_products: the second product's K and the first's magnitude.
    if let Some(c) = v.iter_mut().find(|c| c.id == "chained_products") {
        c.scale = 6.0;
    }
    if let Some(c) = v.iter_mut().find(|c| c.id == "reduction_of_a_product") {
        c.scale = m as f64;
    }
    if let Some(c) = v.iter_mut().find(|c| c.id == "product_used_twice") {
        c.scale = k as f64;
    }
    if f64_ok {
        v.push(case(
            "float64_input_widens",
            vec![mat(F32, m, k), mat(F32, k, n), mat(F64, m, n)],
            "(a @ b) + c",
            1,
            |x| Ok(&kp::matmul(&x[0], &x[1])? + &x[2]),
        ));
        v.push(case(
            "float64_product_array_factor",
            vec![mat(F64, 12, 9), mat(F64, 9, 14), mat(F64, 12, 14)],
            "(a @ b) * c",
            1,
            |x| Ok(&kp::matmul(&x[0], &x[1])? * &x[2]),
        ));
        // Large enough for the tiled kernel's float64 tiles (no float64 scalar: an epilogue
        // takes no 8-byte scalars).
        v.push(case(
            "float64_tiled_product_epilogue",
            vec![mat(F64, 40, 36), mat(F64, 36, 44), mat(F64, 40, 44)],
            "np.maximum(a @ b - c, c)",
            1,
            |x| kp::maximum(&(&kp::matmul(&x[0], &x[1])? - &x[2]), &x[2]),
        ));
    }
    v
}

const ORACLE: &str = r#"
import json, sys
import numpy as np
d = sys.argv[1]
m = json.load(open(d + "/manifest.json"))
out = []
for c in m["cases"]:
    names = {}
    wide = {}
    for name, (dt, shape, vals) in zip("abcdef", c["inputs"]):
        x = np.array(vals, dtype=np.float64).reshape(shape).astype(dt)
        names[name] = x
        wide[name] = x if dt in ("int32", "bool") else x.astype(np.float64)
    native = eval(c["expr"], {"np": np}, names)
    hi = eval(c["expr"], {"np": np}, wide)
    r = {"shape": list(native.shape), "dtype": str(native.dtype),
         "values": np.asarray(hi, dtype=np.float64).ravel().tolist()}
    if c["near"]:
        r["near"] = np.asarray(eval(c["near"], {"np": np}, wide), dtype=np.float64).ravel().tolist()
    out.append(r)
json.dump(out, open(d + "/results.json", "w"))
"#;

#[test]
fn epilogues_match_numpy_and_fuse_into_the_matmul() {
    let device = kp::Device::new(kp::AdapterChoice::Default).expect("a GPU adapter");
    let _guard = device.use_device();
    let f64_ok = device.supports(DType::F64);
    let cases = cases(f64_ok);
    let mut manifest = Vec::new();
    let mut uploaded = Vec::new();
    for (ci, c) in cases.iter().enumerate() {
        let mut arrays = Vec::new();
        let mut descr = Vec::new();
        for (j, (dtype, shape)) in c.inputs.iter().enumerate() {
            let vals = data(ci as u64 * 16 + j as u64, *dtype, shape);
            arrays.push(common::upload(&vals, *dtype, shape));
            descr.push(json!([dtype.to_string(), shape, vals]));
        }
        manifest.push(json!({"expr": c.expr, "near": c.near, "inputs": descr}));
        uploaded.push(arrays);
    }
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("matmul-epilogue-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let results = common::run_oracle(&dir, &json!({ "cases": manifest }), ORACLE);
    let _ = std::fs::remove_dir_all(&dir);
    let mut failures = Vec::new();
    for ((c, arrays), res) in cases.iter().zip(&uploaded).zip(results.as_array().unwrap()) {
        for a in arrays {
            a.eval().unwrap();
        }
        kp::synchronize().unwrap();
        let before = device.context().dispatch_count();
        if let Err(e) = check(c, arrays, res, &device, before) {
            failures.push(format!("{}: {e}", c.id));
        }
    }
    common::assert_no_failures(&failures, cases.len());
}

fn check(
    c: &Case,
    arrays: &[Array],
    res: &Value,
    device: &kp::Device,
    before: u64,
) -> Result<(), String> {
    let got = (c.run)(arrays).map_err(|e| format!("kupfer error {e}"))?;
    got.eval().map_err(|e| format!("kupfer error {e}"))?;
    let launches = device.context().dispatch_count() - before;
    if launches != c.launches {
        return Err(format!(
            "{launches} kernel launches, expected {}",
            c.launches
        ));
    }
    let want_dtype = match res["dtype"].as_str().unwrap() {
        "float16" => DType::F16,
        "float32" => DType::F32,
        "float64" => DType::F64,
        "int32" => DType::I32,
        "int64" => DType::I64,
        "bool" => DType::Bool,
        other => return Err(format!("unexpected numpy dtype {other}")),
    };
    common::check_shape_and_dtype(&got, want_dtype, res)?;
    let g = got
        .astype(DType::F64)
        .and_then(|x| x.to_vec::<f64>())
        .map_err(|e| format!("read-back: {e}"))?;
    let w: Vec<f64> = res["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let product = c.inputs[0].0;
    let acc = if product == DType::F64 {
        DType::F64
    } else {
        DType::F32
    };
    let bound = eps(acc) * (2.0 * c.k as f64 + 16.0) * c.k as f64 * c.scale;
    let near: Option<Vec<f64>> = res.get("near").map(|n| {
        n.as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect()
    });
    for (i, (gv, wv)) in g.iter().zip(&w).enumerate() {
        let tol = bound
            + eps(want_dtype) * wv.abs()
            + if want_dtype == DType::F16 {
                eps(DType::F16) * c.k as f64
            } else {
                0.0
            };
        if let Some(near) = &near {
            if near[i].abs() <= bound * 4.0 {
                continue;
            }
        }
        let ok = if matches!(want_dtype, DType::I32 | DType::I64 | DType::Bool) {
            gv == wv
        } else {
            (gv - wv).abs() <= tol
        };
        if !ok {
            return Err(format!(
                "element {i}: {gv} vs numpy {wv} (tolerance {tol:.3e})"
            ));
        }
    }
    Ok(())
}
