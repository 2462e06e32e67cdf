//! What the NumPy-oracle tests of kupfer-eval share: a temporary directory, running a Python
//! oracle over a case file, and comparing kupfer's results with NumPy's.

#![allow(dead_code)] // each test binary uses its own subset

use kupfer::{DType, HostArray, HostData};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh temporary directory for one test (per process, so test binaries never share one).
pub fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kupfer-eval-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("a temporary directory");
    d
}

/// Runs `tests/python/<script>` over the case file `cases` (written into `dir`) and returns,
/// per case (`count` of them), NumPy's result or its error text.
pub fn run_oracle(
    script: &str,
    dir: &Path,
    cases: &str,
    count: usize,
) -> Vec<Result<HostArray, String>> {
    let case_file = dir.join("cases.txt");
    std::fs::write(&case_file, cases).expect("write the cases");
    let out = dir.join("numpy");
    std::fs::create_dir_all(&out).expect("an output directory");
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/python")
        .join(script);
    let o = Command::new("python3")
        .arg(script)
        .arg(&case_file)
        .arg(&out)
        .output()
        .expect("python3 must be installed for this test (with numpy)");
    assert!(
        o.status.success(),
        "the NumPy oracle failed (is numpy installed?):\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    (0..count)
        .map(|i| {
            let ok = out.join(format!("out_{i}.npy"));
            if ok.exists() {
                kupfer::io::read_npy(&ok).map_err(|e| format!("reading NumPy's result: {e}"))
            } else {
                Err(std::fs::read_to_string(out.join(format!("err_{i}.txt")))
                    .unwrap_or_else(|_| "no result".into()))
            }
        })
        .collect()
}

/// `eval_oracle.py` over expressions, with `inputs` (name, .npy path) bound first.
pub fn numpy_expressions(
    dir: &Path,
    inputs: &[(&str, PathBuf)],
    exprs: &[&str],
) -> Vec<Result<HostArray, String>> {
    let mut text = String::new();
    for (name, path) in inputs {
        text.push_str(&format!("{name}={}\n", path.display()));
    }
    text.push_str("---\n");
    for e in exprs {
        text.push_str(e);
        text.push('\n');
    }
    run_oracle("eval_oracle.py", dir, &text, exprs.len())
}

/// `program_oracle.py` over programs (statements; a program's newlines become `;`).
pub fn numpy_programs<S: AsRef<str>>(dir: &Path, programs: &[S]) -> Vec<Result<HostArray, String>> {
    let text: String = programs
        .iter()
        .map(|p| format!("{}\n", p.as_ref().replace('\n', "; ")))
        .collect();
    run_oracle("program_oracle.py", dir, &text, programs.len())
}

/// The values as f64 (complex as re, im pairs).
pub fn as_f64(d: &HostData) -> Vec<f64> {
    match d {
        HostData::Bool(v) => v.iter().map(|&b| f64::from(u8::from(b))).collect(),
        HostData::I32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        HostData::U32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        HostData::I8(v) => v.iter().map(|&x| f64::from(x)).collect(),
        HostData::U8(v) => v.iter().map(|&x| f64::from(x)).collect(),
        HostData::I16(v) => v.iter().map(|&x| f64::from(x)).collect(),
        HostData::U16(v) => v.iter().map(|&x| f64::from(x)).collect(),
        HostData::I64(v) => v.iter().map(|&x| x as f64).collect(),
        HostData::U64(v) => v.iter().map(|&x| x as f64).collect(),
        HostData::F16(v) => v.iter().map(|x| x.to_f64()).collect(),
        HostData::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        HostData::F64(v) => v.clone(),
        HostData::Complex64(v) => v
            .iter()
            .flat_map(|c| [f64::from(c.re), f64::from(c.im)])
            .collect(),
        HostData::Complex128(v) => v.iter().flat_map(|c| [c.re, c.im]).collect(),
    }
}

/// kupfer's documented 32-bit counterpart of a 64-bit NumPy result dtype (kupfer never
/// widens 32-bit operands implicitly).
pub fn demoted(d: DType) -> DType {
    match d {
        DType::I64 => DType::I32,
        DType::F64 => DType::F32,
        DType::Complex128 => DType::Complex64,
        d => d,
    }
}

/// (relative, absolute) tolerance for computed results of dtype `d`.
pub fn tolerance(d: DType) -> (f64, f64) {
    match d {
        DType::F16 => (4e-3, 4e-3),
        DType::F32 | DType::Complex64 => (2e-5, 2e-5),
        DType::F64 | DType::Complex128 => (1e-11, 1e-12),
        _ => (0.0, 0.0),
    }
}

/// Why `got` (kupfer) differs from `want` (NumPy) for `expr`, if it does: shape, dtype (the
/// 32-bit counterpart is accepted where `expr` names no 64-bit input) and values within
/// [`tolerance`].
pub fn mismatch(expr: &str, got: &HostArray, want: &HostArray) -> Option<String> {
    if got.shape != want.shape {
        return Some(format!("shape {:?}, NumPy {:?}", got.shape, want.shape));
    }
    let (gd, wd) = (got.dtype(), want.dtype());
    let demotion_ok = !expr.contains("64") && gd == demoted(wd);
    if gd != wd && !demotion_ok {
        return Some(format!("dtype {gd}, NumPy {wd}"));
    }
    let (rtol, atol) = tolerance(gd);
    let (g, w) = (as_f64(&got.data), as_f64(&want.data));
    for (i, (x, y)) in g.iter().zip(&w).enumerate() {
        let same = (x.is_nan() && y.is_nan()) || x == y || (x - y).abs() <= atol + rtol * y.abs();
        if !same {
            return Some(format!("element {i}: {x} vs NumPy {y}"));
        }
    }
    None
}

/// Makes sure a GPU adapter is there (lavapipe will do) before a test runs programs.
pub fn device() {
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        std::env::set_var("XDG_RUNTIME_DIR", "/tmp");
    }
    kupfer::Device::current().expect("a GPU adapter (lavapipe will do)");
}

/// Runs each program in a fresh `kupfer eval` session and in NumPy, and fails with every
/// program whose result differs (or that only one side refuses).
pub fn assert_programs_match_numpy(tag: &str, cases: &[&str]) {
    device();
    let dir = temp_dir(tag);
    let want = numpy_programs(&dir, cases);
    let _ = std::fs::remove_dir_all(&dir);
    let mut failures = Vec::new();
    for (program, want) in cases.iter().zip(want) {
        let got = kupfer_eval::Session::new()
            .run(program)
            .and_then(|v| v.to_host())
            .and_then(|h| h.to_host_array());
        match (got, want) {
            (Ok(g), Ok(w)) => {
                if let Some(m) = mismatch(program, &g, &w) {
                    failures.push(format!("{program}: {m}"));
                }
            }
            (Err(e), Ok(_)) => failures.push(format!("{program}: kupfer failed: {}", e.render())),
            (Ok(_), Err(e)) => failures.push(format!("{program}: NumPy failed: {e}")),
            (Err(e), Err(n)) => failures.push(format!("{program}: both failed: {e} / {n}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} programs differ from NumPy:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// Checks that NumPy refuses each program and that kupfer eval refuses it too, in an error
/// of at most three lines.
pub fn assert_programs_refused_like_numpy(tag: &str, cases: &[&str]) {
    device();
    let dir = temp_dir(tag);
    let numpy = numpy_programs(&dir, cases);
    let _ = std::fs::remove_dir_all(&dir);
    let mut failures = Vec::new();
    for (program, want) in cases.iter().zip(numpy) {
        if want.is_ok() {
            failures.push(format!("{program}: NumPy accepts it"));
        }
        match kupfer_eval::Session::new()
            .run(program)
            .and_then(|v| v.to_host())
        {
            Ok(v) => failures.push(format!("{program}: kupfer gave {}", v.repr())),
            Err(e) if e.render().lines().count() > 3 => {
                failures.push(format!("{program}: a long error: {}", e.render()))
            }
            Err(_) => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
