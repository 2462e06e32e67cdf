//! The small integer dtypes (int8, uint8, int16, uint16) against NumPy itself: each program
//! (statements separated by `;`, the last an expression) runs in kupfer eval and in NumPy
//! (tests/python/program_oracle.py); results must agree in shape, dtype and every value.
//! Covers NumPy's wrap-around, casts both ways, promotion, views at odd offsets and reversed,
//! strided writes, reductions, scans, comparisons, bitwise ops and sorting. Needs python3 with
//! numpy; fails, never skips, without them.
//!
//! Also the reductions' `out=` (a result written into an existing array and its views).
//!
//! dtypes: kupfer's one documented exception is its 32-bit rule (a 64-bit result of operands
//! of at most 32 bits is its 32-bit counterpart), so NumPy's int64 sum of int8 is int32 here;
//! NumPy's uint64 sums of unsigned inputs (which kupfer gives as uint32 by that rule) are
//! compared through `.astype(np.uint32)`.

mod common;

use common::{as_f64, demoted, numpy_programs, temp_dir};
use kupfer::{DType, HostArray, HostData};
use kupfer_eval::Session;
use std::process::Command;

const A8: &str = "a = np.array([250, 3, 7, 0, 128, 255, 1, 99, 200], dtype=np.uint8)";
const B8: &str = "b = np.array([-128, -1, 0, 1, 127, -50, 64, 3, -7], dtype=np.int8)";
const A16: &str = "c = np.array([65535, 0, 300, 40000, 7, 1, 32768, 12, 9], dtype=np.uint16)";
const B16: &str = "d = np.array([-32768, 32767, -1, 300, -300, 5, 0, 2, -9], dtype=np.int16)";

/// Programs whose last value must match NumPy's (`{A8}` etc. are the inputs above).
const PROGRAMS: &[&str] = &[
    // wrap-around
    "{A8}; a + np.uint8(10)",
    "{A8}; a + 10",
    "{A8}; a - 5",
    "{A8}; a * a",
    "{A8}; -a",
    "{A8}; ~a",
    "{B8}; b + b",
    "{B8}; -b",
    "{B8}; abs(b)",
    "{B8}; b * 3",
    "{B8}; b // 3",
    "{B8}; b % 5",
    "{B8}; b ** 2",
    "{A16}; c + c",
    "{A16}; c * 3",
    "{B16}; d * d",
    "{B16}; d - 1",
    "{B8}; np.square(b)",
    "{A8}; a << 3",
    "{A8}; a >> 2",
    "{B8}; b << 2",
    "{B8}; b >> 3",
    // promotion
    "{A8}; {B8}; a + b",
    "{A8}; {B8}; a * b",
    "{A8}; {B16}; a + d",
    "{B8}; {A16}; b + c",
    "{A16}; {B16}; c - d",
    "{A8}; a + np.float32(0.5)",
    "{A8}; a * np.array([1.5], dtype=np.float16)",
    "{B16}; d + np.array([0.25], dtype=np.float16)",
    "{A8}; a / np.uint8(3)",
    "{B8}; np.sqrt(np.abs(b.astype(np.int16)))",
    "{A8}; np.sin(a)",
    "{B16}; np.exp(d / 10000)",
    "{A8}; a + np.array([5], dtype=np.int32)",
    "{A8}; a + np.array([1.5 + 2j], dtype=np.complex64)",
    "{A8}; a + True",
    "{A8}; np.maximum(a, np.uint8(100))",
    "{B8}; np.minimum(b, np.int8(0))",
    // casts both ways
    "{A8}; a.astype(np.int8)",
    "{B8}; b.astype(np.uint8)",
    "{B8}; b.astype(np.uint16)",
    "{B16}; d.astype(np.int8)",
    "{A16}; c.astype(np.uint8)",
    "{B8}; b.astype(np.float32)",
    "{A8}; a.astype(np.float16)",
    "{A8}; a.astype(bool)",
    "{B16}; d.astype(np.int32)",
    "np.array([1.9, -1.9, 127.0, -128.0, 0.5], dtype=np.float32).astype(np.int8)",
    "np.array([1.9, 254.7, 0.0, 3.5], dtype=np.float32).astype(np.uint8)",
    "np.array([70000, -1, 65535], dtype=np.int32).astype(np.uint16)",
    "np.array([True, False, True]).astype(np.int8)",
    "np.array([1 + 2j, -3.5 + 0j], dtype=np.complex64).real.astype(np.int16)",
    "np.arange(5, dtype=np.uint8)",
    "np.zeros(3, dtype=np.int16) + 7",
    "np.full(4, 200, dtype=np.uint8) + np.uint8(100)",
    // views at odd offsets, reversed, strided writes
    "{A8}; a[1::2] + 1",
    "{A8}; a[::-1]",
    "{A8}; a[3:] * 2",
    "{B8}; b[::-3] - 1",
    "{A8}; a.reshape(3, 3).T + 0",
    "{A8}; a.reshape(3, 3)[:, 1]",
    "{A8}; a[1::2] = 9; a",
    "{A8}; a[::-2] = a[::-2] + 200; a",
    "{B8}; b[1:4] = np.array([5, 6, 7], dtype=np.int8); b",
    "{A16}; c[c > 100] = 1; c",
    "{A8}; a[a > 100] += 100; a",
    "{B8}; b[2] = -3; b",
    // reductions and scans
    "{B8}; np.sum(b)",
    "{B16}; np.sum(d)",
    "{A8}; np.sum(a).astype(np.uint32)",
    "{A8}; np.sum(a, dtype=np.uint8)",
    "{B8}; np.sum(b, dtype=np.int8)",
    "{A8}; np.max(a)",
    "{B8}; np.min(b)",
    "{B8}; np.max(b.reshape(3, 3), axis=0)",
    "{A16}; np.min(c.reshape(3, 3), axis=1)",
    "{A8}; np.argmax(a)",
    "{B8}; np.argmin(b)",
    "{B8}; np.prod(b[:3])",
    "{B8}; np.cumsum(b)",
    "{A8}; np.cumsum(a, dtype=np.uint8)",
    "{B8}; np.mean(b)",
    "{A8}; np.any(a > 200)",
    "{B8}; np.all(b != 0)",
    // comparisons and bitwise ops
    "{A8}; a > 100",
    "{A8}; {B8}; a == b",
    "{A8}; {B8}; a < b",
    "{B8}; b >= np.array([0], dtype=np.uint32)",
    "{A8}; a & np.uint8(0x0f)",
    "{A8}; {B8}; a | b",
    "{B8}; b ^ np.int8(-1)",
    "{A8}; np.bitwise_count(a)",
    "{B8}; np.bitwise_count(b)",
    "{A8}; np.gcd(a, np.uint8(6))",
    "{A8}; np.where(a > 100, a, np.uint8(0))",
    "{A8}; np.clip(a, 5, 100)",
    // sorting
    "{A8}; np.sort(a)",
    "{B8}; np.sort(b)",
    "{B16}; np.argsort(d, kind='stable')",
    "{A16}; np.sort(c)",
    "{A8}; np.unique(a)",
];

/// Reductions with `out=`: the result lands in the array (and its views) passed.
const OUT_PROGRAMS: &[&str] = &[
    "o = np.zeros(4, dtype=np.float32); r = np.sum(np.arange(12.0).reshape(3, 4), axis=0, out=o); o",
    "o = np.zeros(4, dtype=np.float32); r = np.sum(np.arange(12.0).reshape(3, 4), axis=0, out=o); r",
    "o = np.zeros(4); np.max(np.arange(12.0).reshape(3, 4), axis=0, out=o); o",
    "a = np.arange(12.0).reshape(3, 4); o = np.ones((3, 1)); np.min(a, axis=1, keepdims=True, out=o); o",
    "o = np.zeros((2, 4)); v = o[1]; np.sum(np.arange(12.0).reshape(3, 4), axis=0, out=v); o",
    "o = np.zeros((4, 2)); np.sum(np.arange(12.0).reshape(3, 4), axis=0, out=o[:, 1]); o",
    "o = np.zeros(3, dtype=bool); np.any(np.eye(3) > 0, axis=0, out=o); o",
    "a = np.arange(6.0); o = np.zeros(()); r = a.sum(out=o); o",
    "o = np.zeros(4, dtype=np.int32); np.sum(np.arange(12, dtype=np.int32).reshape(3, 4), axis=0, out=o); o",
    "o = np.zeros(4, dtype=np.float64); np.mean(np.arange(12.0).reshape(3, 4), axis=0, out=o); o",
    "o = np.zeros(4, dtype=np.int32); np.sum(np.arange(12.5)[:12].reshape(3, 4), axis=0, out=o); o",
    "o = np.zeros(4, dtype=bool); np.sum(np.arange(12.0).reshape(3, 4), axis=0, out=o); o",
    "o = np.zeros(4, dtype=np.float32); np.prod(np.arange(1.0, 13.0).reshape(3, 4), axis=0, out=o); o",
    "o = np.zeros(3, dtype=np.uint8); np.max(np.array([[1, 200, 3], [4, 5, 255]], dtype=np.uint8), axis=0, out=o); o",
];

/// Programs NumPy refuses: kupfer must fail too.
const REFUSED: &[&str] = &[
    "o = np.zeros(4); np.sum(np.arange(12.0).reshape(3, 4), axis=0, out=(o, o))",
    "o = np.zeros(3); np.sum(np.arange(12.0).reshape(3, 4), axis=0, out=o)",
    "o = np.zeros((1, 4)); np.sum(np.arange(12.0).reshape(3, 4), axis=0, out=o)",
    "{A8}; a + 300",
    "{B8}; b + 128",
    "{B8}; b - (-129)",
    "np.array([256], dtype=np.uint8)",
    "np.array([-1], dtype=np.uint16)",
];

fn program(p: &str) -> String {
    p.replace("{A8}", A8)
        .replace("{B8}", B8)
        .replace("{A16}", A16)
        .replace("{B16}", B16)
}

fn tolerance(d: DType) -> f64 {
    match d {
        DType::F16 => 4e-3,
        DType::F32 | DType::Complex64 => 2e-6,
        _ => 0.0,
    }
}

fn mismatch(got: &HostArray, want: &HostArray) -> Option<String> {
    if got.shape != want.shape {
        return Some(format!("shape {:?}, NumPy {:?}", got.shape, want.shape));
    }
    let (gd, wd) = (got.dtype(), want.dtype());
    if gd != wd && gd != demoted(wd) {
        return Some(format!("dtype {gd}, NumPy {wd}"));
    }
    let tol = tolerance(gd);
    for (i, (x, y)) in as_f64(&got.data).iter().zip(as_f64(&want.data)).enumerate() {
        if !((x.is_nan() && y.is_nan()) || (x - y).abs() <= tol * y.abs().max(1.0)) {
            return Some(format!("element {i}: {x} vs NumPy {y}"));
        }
    }
    None
}

fn run(p: &str) -> Result<HostArray, String> {
    Session::new()
        .run(p)
        .and_then(|v| v.to_host())
        .and_then(|h| h.to_host_array())
        .map_err(|e| e.render())
}

#[test]
fn small_integer_programs_match_numpy() {
    programs_match_numpy("small-ints", PROGRAMS);
}

#[test]
fn reduction_out_programs_match_numpy() {
    programs_match_numpy("reduce-out", OUT_PROGRAMS);
}

fn programs_match_numpy(tag: &str, programs: &[&str]) {
    let programs: Vec<String> = programs.iter().map(|p| program(p)).collect();
    let dir = temp_dir(tag);
    let want = numpy_programs(&dir, &programs);
    let _ = std::fs::remove_dir_all(&dir);
    let mut failures = Vec::new();
    for (p, want) in programs.iter().zip(want) {
        match (run(p), want) {
            (Ok(g), Ok(w)) => {
                if let Some(m) = mismatch(&g, &w) {
                    failures.push(format!("{p}: {m}"));
                }
            }
            (Err(e), Ok(_)) => failures.push(format!("{p}: kupfer failed: {e}")),
            (_, Err(e)) => failures.push(format!("{p}: NumPy failed: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} programs differ from NumPy:\n{}",
        failures.len(),
        programs.len(),
        failures.join("\n")
    );
}

#[test]
fn small_integer_refusals_match_numpy() {
    let programs: Vec<String> = REFUSED.iter().map(|p| program(p)).collect();
    let dir = temp_dir("small-ints-refused");
    let want = numpy_programs(&dir, &programs);
    let _ = std::fs::remove_dir_all(&dir);
    for (p, want) in programs.iter().zip(want) {
        assert!(want.is_err(), "{p}: NumPy accepts it");
        match run(p) {
            Ok(h) => panic!("{p}: kupfer gave {h:?}"),
            Err(e) => assert_eq!(e.lines().count(), 1, "{p}: a long error: {e}"),
        }
    }
}

/// kupfer's 32-bit rule for sums: NumPy's uint64 sum of uint8/uint16 is uint32 here, its int64
/// sum of int8/int16 int32; the values wrap only when `dtype=` names a small type.
#[test]
fn small_integer_sums_follow_the_32_bit_rule() {
    for (p, dtype, value) in [
        (
            "np.sum(np.full(300, 255, dtype=np.uint8))",
            DType::U32,
            76500.0,
        ),
        (
            "np.sum(np.full(3, 65535, dtype=np.uint16))",
            DType::U32,
            196605.0,
        ),
        (
            "np.sum(np.full(300, -128, dtype=np.int8))",
            DType::I32,
            -38400.0,
        ),
        (
            "np.cumsum(np.full(3, 200, dtype=np.uint8))[-1]",
            DType::U32,
            600.0,
        ),
    ] {
        let h = run(p).unwrap_or_else(|e| panic!("{p}: {e}"));
        assert_eq!((h.dtype(), h.data.get_f64(0)), (dtype, value), "{p}");
    }
}

/// `.npy` files of every small integer dtype round-trip through kupfer and NumPy, including
/// views at odd offsets written back.
#[test]
fn small_integer_npy_round_trips() {
    let dir = temp_dir("small-ints-npy");
    let arrays = [
        HostData::I8(vec![-128, -1, 0, 1, 127]),
        HostData::U8(vec![0, 1, 128, 254, 255]),
        HostData::I16(vec![-32768, -1, 0, 300, 32767]),
        HostData::U16(vec![0, 1, 40000, 65534, 65535]),
    ];
    for data in arrays {
        let host = HostArray::new(vec![5], data).expect("host array");
        let name = host.dtype().name();
        let path = dir.join(format!("{name}.npy"));
        let gpu = kupfer::Array::from_host(&host).expect("upload");
        let odd = gpu
            .slice(&kupfer::s![1..4;2])
            .expect("a view at an odd offset");
        kupfer::io::save(&path, &gpu).expect("save");
        let odd_path = dir.join(format!("{name}_odd.npy"));
        kupfer::io::save(&odd_path, &odd).expect("save the view");
        let check = format!(
            "import numpy as np, sys\n\
             a = np.load(r'{}'); o = np.load(r'{}')\n\
             assert a.dtype == np.dtype('{name}'), a.dtype\n\
             assert a.tolist() == {:?}, a.tolist()\n\
             assert o.tolist() == a[1:4:2].tolist(), o.tolist()\n\
             np.save(r'{}', (a[::-1] + 1).astype('{name}'))\n",
            path.display(),
            odd_path.display(),
            (0..5)
                .map(|i| host.data.get_f64(i) as i64)
                .collect::<Vec<_>>(),
            path.display(),
        );
        let o = Command::new("python3")
            .arg("-c")
            .arg(&check)
            .output()
            .expect("python3 with numpy");
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let back = kupfer::io::read_npy(&path).expect("NumPy's file");
        assert_eq!(back.dtype(), host.dtype());
        for i in 0..5 {
            let want = host.data.get_f64(4 - i) + 1.0;
            let (lo, hi) = host.dtype().int_range().expect("an integer dtype");
            let span = (hi - lo + 1) as f64;
            let wrapped = if want > hi as f64 { want - span } else { want };
            assert_eq!(back.data.get_f64(i), wrapped, "{name} element {i}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
