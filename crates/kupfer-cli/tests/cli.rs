//! The `kupfer` binary end to end, on whatever adapter the machine has (lavapipe in CI).

use std::process::{Command, Output};

fn kupfer(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kupfer"))
        .args(args)
        .output()
        .expect("the kupfer binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// kupfer's own stderr lines (drivers may add their own noise, e.g. Mesa's GL backend).
fn kupfer_stderr(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stderr)
        .lines()
        .filter(|l| l.starts_with("kupfer:"))
        .map(str::to_string)
        .collect()
}

/// Exit status 2 and exactly one kupfer error line containing `needle`.
fn assert_usage_error(o: &Output, needle: &str) {
    assert_eq!(o.status.code(), Some(2), "stderr: {:?}", kupfer_stderr(o));
    let lines = kupfer_stderr(o);
    assert_eq!(lines.len(), 1, "one error line expected, got {lines:?}");
    assert!(
        lines[0].starts_with("kupfer: error: ") && lines[0].contains(needle),
        "{lines:?} should mention {needle:?}"
    );
}

#[test]
fn info_lists_the_adapter() {
    let o = kupfer(&["info"]);
    assert!(
        o.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = stdout(&o);
    assert!(text.contains("Adapters"), "{text}");
    assert!(text.contains("Default device"), "{text}");
    assert!(text.contains("max storage buffer binding"), "{text}");
    assert!(text.contains("Memory pool"), "{text}");
}

#[test]
fn info_json_marks_one_default() {
    let o = kupfer(&["info", "--json"]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("valid JSON");
    let adapters = v["adapters"].as_array().expect("an adapter list");
    assert!(!adapters.is_empty());
    assert_eq!(
        adapters.iter().filter(|a| a["default"] == true).count(),
        1,
        "{v}"
    );
    let dev = &v["default_device"];
    assert!(dev["name"].is_string());
    assert!(dev["limits"]["max_buffer_size"].as_u64().unwrap_or(0) > 0);
    assert!(dev["features"]["shader_f16"].is_boolean());
}

#[test]
fn bench_json_lines_follow_the_anchor() {
    let o = kupfer(&[
        "bench",
        "--json",
        "--max-n",
        "4096",
        "saxpy_expr",
        "chain5_unfused",
        "sin_plus_cos",
        "tiny_op_wall",
        "tiny_op_amortized_wall",
        "h2d_pageable",
        "d2h_pageable",
    ]);
    assert!(
        o.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l:?}: {e}")))
        .collect();
    assert!(lines[0]["device"].is_string(), "a device header first");
    let cases: Vec<&serde_json::Value> = lines.iter().filter(|l| l.get("case").is_some()).collect();
    let names: Vec<&str> = cases.iter().filter_map(|c| c["case"].as_str()).collect();
    assert_eq!(
        names,
        [
            "saxpy_expr",
            "chain5_unfused",
            "sin_plus_cos",
            "tiny_op_wall",
            "tiny_op_amortized_wall",
            "h2d_pageable",
            "d2h_pageable"
        ]
    );
    for c in &cases {
        let ms = c["ms"].as_f64().expect("ms is a number");
        assert!(ms >= 0.0, "{c}");
        let name = c["case"].as_str().unwrap_or("");
        match name {
            "saxpy_expr" | "chain5_unfused" | "h2d_pageable" | "d2h_pageable" => {
                assert_eq!(c["n"], 4096, "{c}");
                assert!(c["gbs"].as_f64().is_some(), "{c}");
            }
            "sin_plus_cos" => {
                assert_eq!(c["n"], 4096, "{c}");
                assert!(c.get("gbs").is_none(), "the anchor has no metric: {c}");
            }
            "tiny_op_wall" => assert_eq!(c["mode"], "sync_each", "{c}"),
            "tiny_op_amortized_wall" => assert_eq!(c["mode"], "amortized", "{c}"),
            _ => {}
        }
    }
}

#[test]
fn bench_table_has_a_cpu_reference() {
    let o = kupfer(&["bench", "--max-n", "2^12", "saxpy_expr"]);
    assert!(
        o.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = stdout(&o);
    assert!(
        text.contains("CPU ms") && text.contains("speed-up"),
        "{text}"
    );
    let row = text
        .lines()
        .find(|l| l.starts_with("saxpy_expr"))
        .expect("a saxpy_expr row");
    assert!(row.contains("n=2^12") && row.ends_with('x'), "{row}");
}

#[test]
fn bench_profile_reports_dispatches_by_kernel() {
    let o = kupfer(&[
        "bench",
        "--profile",
        "--no-cpu",
        "--max-n",
        "2^12",
        "saxpy_expr",
        "tiny_op_wall",
    ]);
    let text = stdout(&o);
    assert!(
        o.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let lines: Vec<&str> = text.lines().collect();
    let row = lines
        .iter()
        .position(|l| l.starts_with("saxpy_expr"))
        .expect("a row");
    let summary = lines[row + 1];
    assert!(
        summary.starts_with("  profile: wall ") && summary.contains(" dispatches, GPU "),
        "{text}"
    );
    assert!(summary.contains("gaps"), "{summary}");
    assert!(lines[row + 2].trim_start().starts_with("kernel"), "{text}");
    let kernel: Vec<&str> = lines[row + 3].split_whitespace().collect();
    assert_eq!(kernel[0], "elementwise", "the fused saxpy kernel: {text}");
    assert!(kernel[1].parse::<u32>().is_ok_and(|c| c >= 1), "{text}");
    let tiny = lines
        .iter()
        .position(|l| l.starts_with("tiny_op_wall"))
        .expect("a row");
    assert!(
        lines[tiny + 1].starts_with("  profile: wall "),
        "a wall-clock case too: {text}"
    );

    let o = kupfer(&[
        "bench",
        "--json",
        "--profile",
        "--max-n",
        "2^12",
        "saxpy_expr",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let case: serde_json::Value = stdout(&o)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .find(|v: &serde_json::Value| v.get("case").is_some())
        .expect("a case line");
    let p = &case["profile"];
    let n = p["dispatches"].as_u64().expect("dispatches");
    assert!(n >= 1, "{case}");
    let f = |k: &str| p[k].as_f64().unwrap_or_else(|| panic!("{k} in {case}"));
    assert!(
        f("wall_ms") > 0.0 && f("gpu_ms") > 0.0 && f("gap_ms") >= 0.0,
        "{case}"
    );
    assert!(f("busy_ms") <= f("span_ms") + 1e-3, "{case}");
    let kernels = p["kernels"].as_array().expect("kernels");
    let counted: u64 = kernels
        .iter()
        .map(|k| k["count"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(counted, n, "{case}");
    assert!(
        kernels.iter().any(|k| k["kernel"] == "elementwise"),
        "{case}"
    );
}

#[test]
fn demo_passes() {
    let o = kupfer(&["demo"]);
    let text = stdout(&o);
    assert!(
        o.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(text.contains("Correctness: PASS"), "{text}");
    assert!(!text.contains("FAIL"), "{text}");
}

#[test]
fn unknown_subcommand_is_a_one_line_error() {
    let o = kupfer(&["frobnicate"]);
    assert_usage_error(&o, "frobnicate");
}

#[test]
fn unknown_bench_case_is_a_one_line_error() {
    let o = kupfer(&["bench", "--json", "no_such_case"]);
    assert_usage_error(&o, "unknown bench case 'no_such_case'");
    assert!(o.stdout.is_empty(), "nothing on stdout");
}

#[test]
fn bad_option_values_are_one_line_errors() {
    assert_usage_error(&kupfer(&["bench", "--max-n", "lots"]), "lots");
    assert_usage_error(&kupfer(&["bench", "--sizes", "huge"]), "huge");
    assert_usage_error(&kupfer(&["info", "--colour"]), "--colour");
}

#[test]
fn bad_backend_is_a_one_line_error() {
    let o = Command::new(env!("CARGO_BIN_EXE_kupfer"))
        .arg("info")
        .env("KUPFER_BACKEND", "glide")
        .output()
        .expect("runs");
    assert_usage_error(&o, "KUPFER_BACKEND");
}

#[test]
fn eval_errors_are_one_line() {
    assert_usage_error(&kupfer(&["eval", "x + 1", "x"]), "NAME=FILE.npy");
    assert_usage_error(
        &kupfer(&["eval", "x + 1", "x=/no/such/file.npy"]),
        "/no/such/file.npy",
    );
    // A syntax error: the first line is the error, then the source and a caret.
    let o = kupfer(&["eval", "a + (b * 2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(kupfer_stderr(&o)[0].contains("syntax error"));
}

/// A fresh directory for one test's files.
fn scratch(test: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("kupfer-cli-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("a temporary directory");
    d
}

/// Writes `host` as `dir/name.npy` and returns the `name=path` argument.
fn npy_arg(dir: &std::path::Path, name: &str, host: &kupfer::HostArray) -> String {
    let path = dir.join(format!("{name}.npy"));
    kupfer::io::write_npy(&path, host).expect("write .npy");
    format!("{name}={}", path.display())
}

fn host(shape: &[usize], data: kupfer::HostData) -> kupfer::HostArray {
    kupfer::HostArray::new(shape.to_vec(), data).expect("a host array")
}

fn eval_ok(args: &[&str]) -> String {
    let mut all = vec!["eval"];
    all.extend_from_slice(args);
    let o = kupfer(&all);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    stdout(&o)
}

#[test]
fn eval_prints_like_numpy() {
    let dir = scratch("print");
    let a = npy_arg(
        &dir,
        "a",
        &host(
            &[3, 4],
            kupfer::HostData::F32((0..12).map(|i| i as f32).collect()),
        ),
    );
    let b = npy_arg(
        &dir,
        "b",
        &host(&[4], kupfer::HostData::I32(vec![1, -2, 3, -4])),
    );
    assert_eq!(
        eval_ok(&["a", &a]),
        "[[ 0.  1.  2.  3.]\n [ 4.  5.  6.  7.]\n [ 8.  9. 10. 11.]]\n"
    );
    assert_eq!(eval_ok(&["a.sum(axis=0)", &a]), "[12. 15. 18. 21.]\n");
    assert_eq!(
        eval_ok(&["np.sum(a * b, axis=1)", &a, &b]),
        "[ -8. -16. -24.]\n"
    );
    assert_eq!(
        eval_ok(&["a[::-1, ::2].T", &a]),
        "[[ 8.  4.  0.]\n [10.  6.  2.]]\n"
    );
    assert_eq!(eval_ok(&["a.mean()", &a]), "5.5\n");
    assert_eq!(eval_ok(&["a.argmax()", &a]), "11\n");
    assert_eq!(
        eval_ok(&["abs(b).astype('float16')", &b]),
        "[1. 2. 3. 4.]\n"
    );
    assert_eq!(eval_ok(&["b > 0", &b]), "[ True False  True False]\n");
    assert_eq!(eval_ok(&["a.shape", &a]), "(3, 4)\n");
    assert_eq!(eval_ok(&["1 < 2 < 3"]), "True\n");
    assert_eq!(
        eval_ok(&["a[:2].cumsum(axis=1)", &a]),
        "[[ 0.  1.  3.  6.]\n [ 4.  9. 15. 22.]]\n"
    );
    assert_eq!(
        eval_ok(&["np.std(a, axis=1, ddof=1)", &a]),
        "[1.2909944 1.2909944 1.2909944]\n"
    );
    assert_eq!(eval_ok(&["numpy.arange(3) * 2"]), "[0 2 4]\n");
    // An expression starting with `-` is an expression, not an option.
    assert_eq!(eval_ok(&["-b + 1", &b]), "[ 0  3 -2  5]\n");
    assert_eq!(eval_ok(&["-1"]), "-1\n");
    // Bare NumPy names are NumPy's functions (`from numpy import *`), not Python's builtins.
    assert_eq!(eval_ok(&["sum(a, axis=0)", &a]), "[12. 15. 18. 21.]\n");
    assert_eq!(eval_ok(&["max(a, axis=1)", &a]), "[ 3.  7. 11.]\n");
    assert_eq!(eval_ok(&["any(b > 2, axis=0)", &b]), "True\n");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn eval_writes_npy() {
    let dir = scratch("write");
    let a = npy_arg(
        &dir,
        "a",
        &host(
            &[2, 3],
            kupfer::HostData::F32(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
        ),
    );
    let out = dir.join("out.npy");
    let out_s = out.display().to_string();
    let read = || kupfer::io::read_npy(&out).expect("the output is a .npy file");
    assert_eq!(
        eval_ok(&["a.T * 2", &a, "-o", &out_s]),
        "",
        "nothing printed"
    );
    let r = read();
    assert_eq!(r.shape, vec![3, 2]);
    assert_eq!(
        r.data,
        kupfer::HostData::F32(vec![2.0, 8.0, 4.0, 10.0, 6.0, 12.0])
    );
    eval_ok(&["a.sum()", &a, "-o", &out_s]);
    let r = read();
    assert!(r.shape.is_empty(), "a 0-d array");
    assert_eq!(r.data, kupfer::HostData::F32(vec![21.0]));
    // Python scalars become 0-d arrays of NumPy's dtypes.
    eval_ok(&["1 + 2", "-o", &out_s]);
    assert_eq!(
        (read().shape, read().data),
        (vec![], kupfer::HostData::I64(vec![3]))
    );
    eval_ok(&["7 / 2", "--output", &out_s]);
    assert_eq!(read().data, kupfer::HostData::F64(vec![3.5]));
    eval_ok(&["not 0", "-o", &out_s]);
    assert_eq!(read().data, kupfer::HostData::Bool(vec![true]));
    eval_ok(&["a.shape", &a, "-o", &out_s]);
    assert_eq!(
        (read().shape, read().data),
        (vec![2], kupfer::HostData::I64(vec![2, 3]))
    );
    // What cannot be an array is an error, and an unwritable path too.
    assert_usage_error(&kupfer(&["eval", "'text'", "-o", &out_s]), "string");
    let bad = dir.join("no/such/dir/out.npy").display().to_string();
    assert_usage_error(&kupfer(&["eval", "a", &a, "-o", &bad]), "no/such/dir");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn eval_user_errors_exit_2_with_one_line() {
    let dir = scratch("errors");
    let a = npy_arg(
        &dir,
        "a",
        &host(&[3], kupfer::HostData::F32(vec![1.0, 2.0, 3.0])),
    );
    let b = npy_arg(
        &dir,
        "b",
        &host(&[2], kupfer::HostData::F32(vec![1.0, 2.0])),
    );
    let ev = |expr: &str| kupfer(&["eval", expr, &a, &b]);
    assert_usage_error(&ev("c + 1"), "unknown name 'c'");
    assert_usage_error(&ev("np.frob(a)"), "unknown function 'np.frob'");
    assert_usage_error(&ev("a + b"), "shape mismatch");
    assert_usage_error(&ev("a.sum(axis=1)"), "axis 1 is out of bounds");
    assert_usage_error(&ev("a.astype('float128')"), "float128");
    assert_usage_error(&ev("a @ b"), "mismatched inner dimensions");
    assert_usage_error(&ev("a.tobytes()"), "'ndarray.tobytes' is not supported yet");
    assert_usage_error(&ev("a[7]"), "out of bounds");
    assert_usage_error(&ev("1 // 0"), "division");
    assert_usage_error(&ev("a and b"), "ambiguous");
    assert_usage_error(&ev("   "), "empty");
    // An input of a dtype kupfer lacks (datetime64[D]): a raw .npy written by hand.
    let mut npy = b"\x93NUMPY\x01\x00".to_vec();
    let mut header = "{'descr': '<M8[D]', 'fortran_order': False, 'shape': (2,), }".to_string();
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    npy.extend_from_slice(&(header.len() as u16).to_le_bytes());
    npy.extend_from_slice(header.as_bytes());
    npy.extend_from_slice(&[1u8; 16]);
    let p = dir.join("dates.npy");
    std::fs::write(&p, npy).expect("write");
    let arg = format!("x={}", p.display());
    assert_usage_error(&kupfer(&["eval", "x", &arg]), "M8");
    // A file that is not .npy at all.
    let p = dir.join("junk.npy");
    std::fs::write(&p, b"not numpy").expect("write");
    let arg = format!("x={}", p.display());
    assert_usage_error(&kupfer(&["eval", "x", &arg]), "junk.npy");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn eval_syntax_error_shows_a_caret() {
    let o = kupfer(&["eval", "a + (b * 2"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(
        err.contains(
            "kupfer: error: syntax error at column 5: '(' was never closed\n  a + (b * 2\n      ^"
        ),
        "{err}"
    );
    assert!(o.stdout.is_empty());
    // Syntax errors are found before inputs are read.
    let o = kupfer(&["eval", "a +* 1", "a=/no/such/file.npy"]);
    assert_usage_error(&o, "syntax error at column 4");
}

#[test]
fn help_and_version_succeed() {
    let o = kupfer(&["--help"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("bench"));
    let o = kupfer(&["--version"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains(env!("CARGO_PKG_VERSION")));
}

/// A raw `.npy` file: version 1 header `dict` (padded as NumPy pads it), then `data`.
fn raw_npy(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut npy = b"\x93NUMPY\x01\x00".to_vec();
    let mut header = dict.to_string();
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    npy.extend_from_slice(&(header.len() as u16).to_le_bytes());
    npy.extend_from_slice(header.as_bytes());
    npy.extend_from_slice(data);
    npy
}

#[test]
fn eval_refuses_overflowing_shapes() {
    let too_big = "array is too big";
    for expr in [
        "np.zeros((2**32, 2**32))",
        "np.ones((2**32, 2**32)).sum()",
        "np.ones((11, 1676976733973595602)).sum()",
        "np.zeros((11, 1676976733973595602))",
        "np.empty((3, 6148914691236517206))",
        "np.zeros((0, 2**62, 2**62))",
        "np.full((2**31, 2**31, 4), 1.5)",
        "np.arange(0).reshape(0, 2**62, 2**62)",
        "np.zeros(2**61).reshape(2**31, 2**31)",
    ] {
        assert_usage_error(&kupfer(&["eval", expr]), too_big);
    }
    assert_usage_error(
        &kupfer(&["eval", "np.ones((2**32, 1)) + np.ones((1, 2**32))"]),
        "broadcast dimensions too large",
    );
    assert_usage_error(
        &kupfer(&["eval", "np.zeros((2, -3))"]),
        "negative dimensions",
    );
    assert_usage_error(&kupfer(&["eval", "np.zeros((1,) * 65)"]), "dimension");
    // Huge but valid shapes: a clear out-of-memory or size error, never a panic.
    for expr in [
        "np.zeros(2**40)",
        "np.ones(2**40).sum()",
        "np.arange(2**40)",
    ] {
        let o = kupfer(&["eval", expr]);
        assert_eq!(o.status.code(), Some(2), "{expr}: {:?}", kupfer_stderr(&o));
        assert_eq!(
            kupfer_stderr(&o).len(),
            1,
            "{expr}: {:?}",
            kupfer_stderr(&o)
        );
    }
}

#[test]
fn eval_refuses_negative_integer_powers() {
    let dir = scratch("powers");
    let i = npy_arg(
        &dir,
        "i",
        &host(&[5], kupfer::HostData::I64(vec![-7, -1, 0, 3, 100])),
    );
    let msg = "Integers to negative integer powers are not allowed.";
    for expr in [
        "i ** -1",
        "2 ** i",
        "np.power(i, i)",
        "pow(i, -2)",
        "np.power(3, i)",
    ] {
        assert_usage_error(&kupfer(&["eval", expr, &i]), msg);
    }
    // Float results and non-negative exponents are fine.
    assert_eq!(
        eval_ok(&["i ** 2", &i]),
        "[   49     1     0     9 10000]\n"
    );
    assert_eq!(
        eval_ok(&["np.abs(i) ** (np.abs(i) % 3)", &i]),
        "[  7   1   1   1 100]\n"
    );
    assert_eq!(eval_ok(&["2 ** -1", &i]), "0.5\n");
    assert_eq!(eval_ok(&["2.0 ** i[:2]", &i]), "[0.0078125 0.5      ]\n");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn eval_python_errors_and_argument_types() {
    assert_usage_error(
        &kupfer(&["eval", "np.arange(np.nan)"]),
        "arange: cannot compute length",
    );
    assert_usage_error(
        &kupfer(&["eval", "np.arange(0, np.inf)"]),
        "Maximum allowed size exceeded",
    );
    assert_usage_error(
        &kupfer(&["eval", "divmod(1, 0)"]),
        "integer division or modulo by zero",
    );
    assert_usage_error(&kupfer(&["eval", "divmod(1.5, 0)"]), "float divmod()");
    assert_eq!(eval_ok(&["divmod(-7, 2)"]), "(-4, 1)\n");
    let a = "np.ones((2, 3))";
    assert_usage_error(
        &kupfer(&["eval", &format!("{a}.sum(axis=True)")]),
        "an integer is required",
    );
    assert_usage_error(
        &kupfer(&["eval", &format!("{a}.sum(axis=[0])")]),
        "'list' object cannot be interpreted as an integer",
    );
    assert_usage_error(
        &kupfer(&["eval", &format!("np.sin(x={a})")]),
        "takes from 1 to 2 positional arguments but 0 were given",
    );
}

#[test]
fn eval_reads_npy_inputs_with_a_bound() {
    let dir = scratch("bounded");
    let write = |name: &str, bytes: Vec<u8>| {
        let p = dir.join(name);
        std::fs::write(&p, bytes).expect("write");
        format!("x={}", p.display())
    };
    // The shape's element count wraps to 2 in 64 bits: refused, not read as 2 elements.
    let wrap = write(
        "wrap.npy",
        raw_npy(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 6148914691236517206), }",
            &[0; 8],
        ),
    );
    assert_usage_error(&kupfer(&["eval", "x", &wrap]), "array is too big");
    let short = write(
        "short.npy",
        raw_npy(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (1000,), }",
            &[0; 8],
        ),
    );
    assert_usage_error(&kupfer(&["eval", "x", &short]), "states 8000 bytes of data");
    let huge_dim = write(
        "dim.npy",
        raw_npy(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999999,), }",
            &[],
        ),
    );
    assert_usage_error(
        &kupfer(&["eval", "x", &huge_dim]),
        "Maximum allowed dimension exceeded",
    );
    // A version-2 header claiming 2 GiB: refused before it is read.
    let mut long = b"\x93NUMPY\x02\x00".to_vec();
    long.extend_from_slice(&(1u32 << 31).to_le_bytes());
    long.extend_from_slice(b"{'descr'");
    let long = write("long.npy", long);
    assert_usage_error(&kupfer(&["eval", "x", &long]), "max_header_size");
    // An endless device is no .npy, and is not read to its end.
    assert_usage_error(&kupfer(&["eval", "x", "x=/dev/zero"]), "magic");
    // A pipe: read up to the size its header states, the rest left unread.
    let header = raw_npy(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }",
        &[],
    );
    let stream = |extra: usize| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kupfer"))
            .args(["eval", "x.sum()", "x=/dev/stdin"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the kupfer binary runs");
        let mut stdin = child.stdin.take().expect("a pipe");
        let mut bytes = header.clone();
        for v in [1.0f64, 2.0, 3.0, 4.0] {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        bytes.truncate(header.len() + extra.min(32));
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            let _ = stdin.write_all(&bytes);
            // Then an endless tail when the data is complete: only a bounded read ends.
            if extra > 32 {
                let zeros = vec![0u8; 1 << 16];
                while stdin.write_all(&zeros).is_ok() {}
            }
        });
        let out = child.wait_with_output().expect("kupfer ends");
        writer
            .join()
            .expect("the writer ends when kupfer closes the pipe");
        out
    };
    let o = stream(usize::MAX);
    assert!(o.status.success(), "{:?}", kupfer_stderr(&o));
    assert_eq!(stdout(&o), "10.0\n");
    assert_usage_error(&stream(12), "states 32 bytes of data but the file holds 12");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `kupfer eval EXPR -o out` under a file-size limit of `blocks` 512-byte blocks.
#[cfg(unix)]
fn eval_with_file_limit(blocks: u32, expr: &str, out: &std::path::Path) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -f {blocks} && exec \"$0\" eval \"$1\" -o \"$2\""
        ))
        .arg(env!("CARGO_BIN_EXE_kupfer"))
        .arg(expr)
        .arg(out)
        .output()
        .expect("sh runs")
}

#[cfg(unix)]
#[test]
fn eval_output_is_atomic() {
    let dir = scratch("atomic");
    let out = dir.join("out.npy");
    let listing = || {
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .expect("list")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    // 800 KB of output against an 8 KiB limit: the write fails part-way.
    let o = eval_with_file_limit(16, "np.ones(100000)", &out);
    assert_usage_error(&o, "out.npy");
    assert!(listing().is_empty(), "no file left behind: {:?}", listing());
    // An existing file stays as it was.
    let old = kupfer::HostArray::new(vec![3], kupfer::HostData::I64(vec![1, 2, 3])).unwrap();
    kupfer::io::write_npy(&out, &old).expect("write");
    let before = std::fs::read(&out).expect("read");
    let o = eval_with_file_limit(16, "np.ones(100000)", &out);
    assert_usage_error(&o, "out.npy");
    assert_eq!(
        std::fs::read(&out).expect("read"),
        before,
        "the old file is untouched"
    );
    assert_eq!(listing(), vec!["out.npy".to_string()]);
    // Within the limit the file is replaced.
    let o = eval_with_file_limit(16, "np.arange(4)", &out);
    assert!(o.status.success(), "{:?}", kupfer_stderr(&o));
    let r = kupfer::io::read_npy(&out).expect("a .npy file");
    assert_eq!(r.data, kupfer::HostData::I64(vec![0, 1, 2, 3]));
    assert_eq!(listing(), vec!["out.npy".to_string()]);
    let _ = std::fs::remove_dir_all(&dir);
}
