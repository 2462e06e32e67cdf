//! format.rs against NumPy itself: `str(arr)`, `repr(arr)` and the scalar repr of 0-d arrays
//! for ~160k arrays of every dtype (every float16 value, random float32/float64 bit patterns,
//! special values, thresholds, summaries, wrapping). Needs python3 with numpy ≥ 2.2; fails,
//! never skips, without them.

use kupfer::{f16, Complex32, HostArray, HostData};
use kupfer_eval::format::{array_repr, array_str, scalar_repr, PrintOptions};
use std::process::Command;

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

fn text(s: &str) -> String {
    String::from_utf8(unhex(s)).expect("utf-8")
}

fn decode(dtype: &str, b: &[u8]) -> HostData {
    fn chunks<const N: usize, T>(b: &[u8], f: impl Fn([u8; N]) -> T) -> Vec<T> {
        b.chunks_exact(N)
            .map(|c| f(c.try_into().expect("chunk")))
            .collect()
    }
    match dtype {
        "bool" => HostData::Bool(b.iter().map(|&x| x != 0).collect()),
        "int32" => HostData::I32(chunks(b, i32::from_le_bytes)),
        "uint32" => HostData::U32(chunks(b, u32::from_le_bytes)),
        "int64" => HostData::I64(chunks(b, i64::from_le_bytes)),
        "float16" => HostData::F16(chunks(b, |c| f16::from_bits(u16::from_le_bytes(c)))),
        "float32" => HostData::F32(chunks(b, f32::from_le_bytes)),
        "float64" => HostData::F64(chunks(b, f64::from_le_bytes)),
        "complex64" => HostData::Complex64(chunks(b, |c: [u8; 8]| {
            Complex32::new(
                f32::from_le_bytes([c[0], c[1], c[2], c[3]]),
                f32::from_le_bytes([c[4], c[5], c[6], c[7]]),
            )
        })),
        other => panic!("unexpected dtype {other}"),
    }
}

#[test]
fn matches_numpy_str_and_repr() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/format_cases.py");
    let out = Command::new("python3")
        .arg(script)
        .output()
        .expect("python3 must be installed for this test (with numpy >= 2.2)");
    assert!(
        out.status.success(),
        "the NumPy case generator failed (is numpy >= 2.2 installed? `pip install numpy`):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    let opts = PrintOptions::default();
    let mut cases = 0;
    let mut failures = Vec::new();
    for line in stdout.lines() {
        let f: Vec<&str> = line.split('|').collect();
        assert_eq!(f.len(), 6, "bad line {line}");
        let shape: Vec<usize> = if f[1].is_empty() {
            vec![]
        } else {
            f[1].split(',').map(|s| s.parse().expect("dim")).collect()
        };
        let a = HostArray::new(shape, decode(f[0], &unhex(f[2]))).expect("host array");
        let want_str = text(f[3]);
        let want_repr = text(f[4]);
        let got_str = array_str(&a, &opts);
        let got_repr = array_repr(&a, &opts);
        cases += 1;
        if got_str != want_str {
            failures.push(format!(
                "str of {} {:?} {:?}:\n numpy: {want_str}\n   ours: {got_str}",
                f[0], a.shape, a.data
            ));
        }
        if got_repr != want_repr {
            failures.push(format!(
                "repr of {} {:?} {:?}:\n numpy: {want_repr}\n   ours: {got_repr}",
                f[0], a.shape, a.data
            ));
        }
        if !f[5].is_empty() {
            let want = text(f[5]);
            let got = scalar_repr(&a.data, 0);
            if got != want {
                failures.push(format!(
                    "scalar repr of {} {:?}:\n numpy: {want}\n   ours: {got}",
                    f[0], a.data
                ));
            }
        }
    }
    assert!(cases > 100_000, "only {cases} cases");
    let shown: Vec<&String> = failures.iter().take(25).collect();
    assert!(
        failures.is_empty(),
        "{} of {cases} cases differ from NumPy; first ones:\n{}",
        failures.len(),
        shown
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}
