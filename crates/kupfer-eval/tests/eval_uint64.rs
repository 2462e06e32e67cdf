//! The uint64 dtype against NumPy itself: each program (statements separated by `;`, the last
//! an expression) runs in kupfer eval and in NumPy (tests/python/program_oracle.py); results
//! must agree in shape, dtype and every value, uint64 and int64 values compared exactly (not
//! through float64). Covers values above 2**63 and near 2**64 - 1, wrap-around, promotion with
//! every integer kind and Python ints, exact comparisons with int64, casts both ways,
//! reductions, sorting across 2**63, strided views, empty and 0-d arrays, and `.npy` files.
//! Needs python3 with numpy and an adapter with SHADER_INT64; fails, never skips, without
//! them.
//!
//! The large inputs are built by casting int64 values (`-1` is 2**64 - 1), as NumPy casts
//! them, or parsed from strings (`np.uint64('...')`); eval_surface3.rs writes them as Python
//! ints.

mod common;

use common::{as_f64, numpy_programs, temp_dir};
use kupfer::{DType, HostArray, HostData};
use kupfer_eval::Session;
use std::process::Command;

/// Ten uint64 values: 2**64 - 1, 0, 1, 2**64 - 2, 2**62, 3 * 2**62, 2**63 - 1, 2**63, a large
/// odd value and 2**64 - 7.
const U: &str = "u = np.array([-1, 0, 1, -2, 2**62, -(2**62), 9223372036854775807, \
                 -9223372036854775807 - 1, 12345678901234567, -7], dtype=np.int64).astype(np.uint64)";
/// Ten int64 values beside them.
const I: &str = "i = np.array([-1, 0, 1, 5, -(2**62), 2**62, 9223372036854775807, \
                 -9223372036854775807 - 1, 7, -7], dtype=np.int64)";
/// Small uint64 values (exact in float32 sums too).
const S: &str = "s = np.array([3, 10, 7, 0, 255, 1000], dtype=np.uint64)";

const PROGRAMS: &[&str] = &[
    "{U}; u",
    // wrap-around arithmetic
    "{U}; u + u",
    "{U}; u + np.uint64(1)",
    "{U}; u - np.uint64(3)",
    "{U}; u * np.uint64(3)",
    "{U}; u * u",
    "{U}; -u",
    "{U}; np.negative(u)",
    "{U}; u // np.uint64(7)",
    "{U}; u % np.uint64(7)",
    "{U}; np.fmod(u, np.uint64(1000))",
    "{U}; np.divmod(u, np.uint64(10))[0]",
    "{U}; np.divmod(u, np.uint64(10))[1]",
    "{U}; u // np.uint64(0)",
    "{U}; u % u[::-1]",
    "{U}; u ** np.uint64(3)",
    "{S}; s ** np.uint64(2)",
    "{U}; np.square(u)",
    "{U}; u + 5",
    "{U}; u - 1",
    "{U}; 3 * u",
    "{U}; u // 3",
    "{U}; u ** 2",
    // promotion
    "{U}; {I}; u + i",
    "{U}; {I}; u * i",
    "{U}; u + np.arange(10, dtype=np.uint8)",
    "{U}; u - np.arange(10, dtype=np.uint32)",
    "{U}; u + np.arange(10, dtype=np.int8)",
    "{U}; u + np.arange(10, dtype=np.int32)",
    "{U}; u + np.float32(0.5)",
    "{U}; u + 0.5",
    "{U}; u / np.uint64(3)",
    "{U}; u / 2",
    "{U}; u + True",
    "{U}; u + np.array([1 + 2j], dtype=np.complex64)",
    "{U}; np.sqrt(u)",
    "{U}; np.sin(u[:4] % np.uint64(100))",
    "{U}; np.true_divide(u, u)",
    // comparisons, exact against int64 and Python ints
    "{U}; {I}; u == i",
    "{U}; {I}; u != i",
    "{U}; {I}; u < i",
    "{U}; {I}; u >= i",
    "{U}; {I}; i > u",
    "{U}; {I}; i <= u",
    "{U}; u > np.array([-1], dtype=np.int32)",
    "{U}; np.array([-5], dtype=np.int8) < u",
    "{U}; u == np.iinfo(np.uint64).max",
    "{U}; u > -1",
    "{U}; u < 0",
    "{U}; u >= 9223372036854775807",
    "{U}; u == u[::-1]",
    "{U}; u > np.float64(1e19)",
    // bitwise and shifts
    "{U}; u & np.uint64(0xff)",
    "{U}; u | np.uint64(1)",
    "{U}; u ^ u[::-1]",
    "{U}; ~u",
    "{U}; u << np.uint64(3)",
    "{U}; u >> np.uint64(60)",
    "{U}; u << np.uint64(64)",
    "{U}; u >> np.uint64(64)",
    "{U}; u >> 1",
    "{U}; np.left_shift(u, 63)",
    "{U}; np.bitwise_count(u)",
    "{U}; np.bitwise_and(u, 7)",
    // abs, sign, extrema, gcd, lcm
    "{U}; np.abs(u)",
    "{U}; np.sign(u)",
    "{U}; np.maximum(u, u[::-1])",
    "{U}; np.minimum(u, np.uint64(5))",
    "{U}; np.fmax(u, u[::-1])",
    "{U}; np.gcd(u, np.uint64(12))",
    "{S}; np.lcm(s, np.uint64(4))",
    "{U}; np.clip(u, np.uint64(2), np.uint64(2**62))",
    "{U}; np.where(u > 9223372036854775807, u, np.uint64(0))",
    // casts both ways
    "{U}; u.astype(np.int64)",
    "{U}; u.astype(np.int32)",
    "{U}; u.astype(np.uint32)",
    "{U}; u.astype(np.uint8)",
    "{U}; u.astype(np.int16)",
    "{U}; u.astype(np.float64)",
    "{U}; u.astype(np.float32)",
    "{U}; u.astype(np.float16)",
    "{U}; u.astype(bool)",
    "{U}; u.astype(np.complex128)",
    "np.array([-1, -128, 5, 127], dtype=np.int8).astype(np.uint64)",
    "np.array([-1, -32768, 300], dtype=np.int16).astype(np.uint64)",
    "np.array([-1, -2147483648, 2147483647], dtype=np.int32).astype(np.uint64)",
    "np.array([0, 4294967295, 7], dtype=np.uint32).astype(np.uint64)",
    "np.array([255, 0, 128], dtype=np.uint8).astype(np.uint64)",
    "np.array([True, False]).astype(np.uint64)",
    "i = np.array([-1, -5, 3, -2147483648], dtype=np.int32); np.where(i < 0, i.astype(np.uint64), np.uint64(0))",
    "i = np.array([-1, -5, 3, -2147483648], dtype=np.int32); (i.astype(np.uint64) >> np.uint64(32)) == np.uint64(4294967295)",
    "np.array([0.0, 1.9, 2.5, 1e19, 18446744073709549568.0, 9223372036854775808.0, 4503599627370497.0, -1.0, -2.5]).astype(np.uint64)",
    "np.array([0.0, 1.5, 1e19, 16777217.0, -1.0], dtype=np.float32).astype(np.uint64)",
    "np.array([0.0, 1.5, 65504.0, -3.0], dtype=np.float16).astype(np.uint64)",
    "np.array([1.5 + 2j, 1e19 + 0j]).astype(np.uint64)",
    // reductions and scans
    "{U}; np.sum(u)",
    "{U}; np.prod(u)",
    "{S}; np.prod(s[:3])",
    "{U}; np.max(u)",
    "{U}; np.min(u)",
    "{U}; np.argmax(u)",
    "{U}; np.argmin(u)",
    "{U}; np.argmax(u.reshape(2, 5), axis=1)",
    "{U}; np.argmin(u.reshape(5, 2), axis=0)",
    "{U}; np.max(u.reshape(2, 5), axis=0)",
    "{U}; np.sum(u.reshape(2, 5), axis=1)",
    "{U}; np.cumsum(u)",
    "{S}; np.cumprod(s[:3])",
    "{U}; np.mean(u)",
    "{U}; np.var(u)",
    "{S}; np.std(s)",
    "{U}; np.any(u > 2**62)",
    "{U}; np.all(u)",
    "{U}; np.count_nonzero(u)",
    "{U}; np.ptp(u)",
    // sorting and searching across 2**63
    "{U}; np.sort(u)",
    "{U}; np.sort(u)[::-1]",
    "{U}; np.argsort(u, kind='stable')",
    "{U}; np.unique(u)",
    "{U}; np.unique(np.concatenate([u, u[:3]]))",
    "{U}; np.searchsorted(np.sort(u), u)",
    "{U}; np.searchsorted(np.sort(u), np.uint64(9223372036854775807), side='right')",
    "{U}; np.sort(u.reshape(2, 5), axis=1)",
    "{U}; np.median(u)",
    // indexing with uint64 index arrays, manipulation
    "{U}; u[np.array([9, 0, 3], dtype=np.uint64)]",
    "{U}; np.arange(20.0)[np.array([19, 0, 7], dtype=np.uint64)]",
    "{U}; np.take(u, np.array([1, 2], dtype=np.uint64))",
    "{U}; u[u > 2**62]",
    "{U}; u[::-2]",
    "{U}; u[1::3] + np.uint64(1)",
    "{U}; u.reshape(2, 5).T",
    "{U}; u.reshape(2, 5).T + np.uint64(1)",
    "{U}; np.concatenate([u, np.arange(3, dtype=np.uint64)])",
    "{U}; np.stack([u, u[::-1]])",
    "{U}; np.flip(u)",
    "{U}; np.roll(u, 3)",
    "{U}; np.tile(u[:3], 2)",
    "{U}; np.repeat(u[:3], 2)",
    "{U}; np.pad(u[:3], 2)",
    "{U}; np.diff(u)",
    "{U}; np.where(u > 5, u, 5)",
    "{U}; u[2] = np.uint64(9); u",
    "{U}; u[::3] = 7; u",
    "{U}; u[u > 2**62] += np.uint64(1); u",
    // products wrap too
    "{U}; u.reshape(2, 5) @ u.reshape(5, 2)",
    "{U}; np.dot(u, u[::-1])",
    "{U}; np.einsum('i,i->', u, u)",
    "{U}; np.convolve(u[:5], u[5:])",
    "{U}; np.outer(u[:3], u[3:6])",
    // creation
    "np.arange(5, dtype=np.uint64)",
    "np.arange(2, 20, 3, dtype='uint64')",
    "np.zeros(3, dtype=np.uint64)",
    "np.ones((2, 2), dtype='u8')",
    "np.full(3, 7, dtype=np.uint64)",
    "np.empty(0, dtype=np.uint64)",
    "np.zeros((0, 3), dtype=np.uint64) + np.uint64(1)",
    "np.uint64(7)",
    "np.uint64(7) + np.uint64(8)",
    "np.uint64(0) - np.uint64(1)",
    "np.array(5, dtype=np.uint64) * 3",
    "np.array([1, 2], dtype=np.uint) + np.array([3, 4], dtype=np.uintp)",
    "np.array([1, 2], dtype='Q') + np.array([3, 4], dtype='L')",
    "np.arange(10, 0, -3, dtype=np.uint64)",
    "np.arange(10, 0, -3, dtype=np.uint32)",
    "{S}; np.linalg.norm(s)",
    "{S}; np.cov(s)",
    "{S}; np.round(s * np.uint64(7), -1)",
    "{U}; np.round(u, -2)",
    "{S}; np.percentile(s, 30)",
    "{S}; np.histogram(s, bins=3)[0]",
    "{S}; np.isin(s, np.array([7, 1000], dtype=np.uint64))",
    "{S}; a = np.zeros(3, dtype=np.uint64); np.add.at(a, np.array([0, 0, 2]), s[:3]); a",
    "{S}; a = np.zeros(3, dtype=np.uint64); np.subtract.at(a, np.array([0, 0, 2]), s[:3]); a",
    "{S}; a = np.zeros(3, dtype=np.uint64); np.maximum.at(a, np.array([0, 0, 2]), s[:3]); a",
    "np.issubdtype(np.uint64, np.unsignedinteger)",
    "np.issubdtype(np.uint64, np.signedinteger)",
    "np.can_cast(np.uint64, np.float64)",
    "np.can_cast(np.uint64, np.int64)",
    "np.uint64('18446744073709551615')",
    "np.uint64(' 9223372036854775809 ') * np.uint64(3)",
    "{U}; u == np.uint64('18446744073709551609')",
    "{U}; u + np.uint64('9223372036854775808')",
    "{U}; np.maximum(u, np.uint64('18446744073709551000'))",
    "np.array([np.uint64(5), 3])",
    "np.array([np.uint64(5), -3])",
    "np.stack([np.uint64(5), np.uint64(7)])",
    "np.uint64(5) * 2.5",
    "np.uint64(7) // np.int64(2)",
    "np.uint64(7) == np.int64(7)",
    "-np.uint64(1)",
    "np.sum([np.uint64(1), np.uint64(2)])",
    "{S}; np.bincount(np.array([0, 1, 1, 3, 3, 0]), weights=s)",
    "np.array([not np.uint64('18446744073709551615'), not np.uint64(0)])",
    "np.int8('-100')",
    "np.float32('1.5')",
    "np.iinfo(np.uint64).max",
    "np.iinfo(np.uint64).min",
    "np.iinfo('uint64').bits",
    "np.array([np.iinfo(np.uint64).max], dtype=np.uint64) + np.uint64(1)",
];

/// Programs NumPy refuses: kupfer must fail too, with a one-line error.
const REFUSED: &[&str] = &[
    "{U}; u + (-1)",
    "{U}; u - (-5)",
    "np.array([-1], dtype=np.uint64)",
    "np.uint64(-1)",
    "np.uint64('-1')",
    "np.uint64('18446744073709551616')",
    "np.uint64('1.5')",
    "np.uint64('abc')",
    "{U}; np.bincount(u)",
    "{U}; {I}; u & i",
    "{U}; {I}; u << i",
];

fn program(p: &str) -> String {
    p.replace("{U}", U).replace("{I}", I).replace("{S}", S)
}

fn tolerance(d: DType) -> f64 {
    match d {
        DType::F16 => 4e-3,
        DType::F32 | DType::Complex64 => 2e-6,
        DType::F64 | DType::Complex128 => 1e-12,
        _ => 0.0,
    }
}

fn mismatch(got: &HostArray, want: &HostArray) -> Option<String> {
    if got.shape != want.shape {
        return Some(format!("shape {:?}, NumPy {:?}", got.shape, want.shape));
    }
    let (gd, wd) = (got.dtype(), want.dtype());
    if gd != wd {
        return Some(format!("dtype {gd}, NumPy {wd}"));
    }
    // 64-bit integers exactly.
    let exact = match (&got.data, &want.data) {
        (HostData::U64(g), HostData::U64(w)) => Some(g.iter().zip(w).position(|(a, b)| a != b)),
        (HostData::I64(g), HostData::I64(w)) => Some(g.iter().zip(w).position(|(a, b)| a != b)),
        _ => None,
    };
    if let Some(bad) = exact {
        return bad.map(|i| {
            format!(
                "element {i}: {} vs NumPy {}",
                kupfer_eval::format::scalar_str(&got.data, i),
                kupfer_eval::format::scalar_str(&want.data, i)
            )
        });
    }
    let tol = tolerance(gd);
    for (i, (x, y)) in as_f64(&got.data).iter().zip(as_f64(&want.data)).enumerate() {
        if !((x.is_nan() && y.is_nan()) || *x == y || (x - y).abs() <= tol * y.abs().max(1.0)) {
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
fn uint64_programs_match_numpy() {
    let programs: Vec<String> = PROGRAMS.iter().map(|p| program(p)).collect();
    let dir = temp_dir("uint64");
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
fn uint64_refusals_match_numpy() {
    let programs: Vec<String> = REFUSED.iter().map(|p| program(p)).collect();
    let dir = temp_dir("uint64-refused");
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

/// NumPy's printing of uint64 arrays and scalars, big values exactly.
#[test]
fn uint64_prints_as_numpy() {
    for (p, want) in [
        (
            "np.array([0, -1], dtype=np.int64).astype(np.uint64)",
            "[                   0 18446744073709551615]",
        ),
        ("np.uint64(7)", "7"),
        (
            "np.array(-1, dtype=np.int64).astype(np.uint64)",
            "18446744073709551615",
        ),
        ("np.iinfo(np.uint64).max", "18446744073709551615"),
        (
            "np.iinfo(np.uint64)",
            "iinfo(min=0, max=18446744073709551615, dtype=uint64)",
        ),
        ("np.array([1, 2], dtype=np.uint64).dtype", "uint64"),
    ] {
        let got = Session::new()
            .run(p)
            .and_then(|v| v.to_host())
            .map(|h| h.to_string())
            .unwrap_or_else(|e| panic!("{p}: {}", e.render()));
        assert_eq!(got, want, "{p}");
    }
}

/// `.npy` files of uint64 round-trip through kupfer and NumPy, values above 2**63 included,
/// and a strided view is written as its own contiguous data.
#[test]
fn uint64_npy_round_trips() {
    let dir = temp_dir("uint64-npy");
    let values = vec![
        0,
        1,
        1 << 63,
        u64::MAX,
        u64::MAX - 6,
        12_345_678_901_234_567,
    ];
    let host = HostArray::new(vec![6], HostData::U64(values.clone())).expect("host array");
    let path = dir.join("u.npy");
    let view_path = dir.join("v.npy");
    let gpu = kupfer::Array::from_host(&host).expect("upload");
    kupfer::io::save(&path, &gpu).expect("save");
    let view = gpu.slice(&kupfer::s![1..6;2]).expect("a strided view");
    kupfer::io::save(&view_path, &view).expect("save the view");
    let check = format!(
        "import numpy as np\n\
         a = np.load(r'{p}'); v = np.load(r'{vp}')\n\
         assert a.dtype == np.uint64, a.dtype\n\
         assert a.tolist() == {values:?}, a.tolist()\n\
         assert v.tolist() == a[1:6:2].tolist(), v.tolist()\n\
         np.save(r'{p}', a[::-1] + np.uint64(1))\n",
        p = path.display(),
        vp = view_path.display(),
    );
    let o = Command::new("python3")
        .arg("-c")
        .arg(&check)
        .output()
        .expect("python3 with numpy");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let back = kupfer::io::read_npy(&path).expect("NumPy's file");
    let want: Vec<u64> = values.iter().rev().map(|v| v.wrapping_add(1)).collect();
    assert_eq!(back.data, HostData::U64(want));
    let round = kupfer::Array::from_host(&back)
        .and_then(|a| a.to_vec::<u64>())
        .expect("download");
    assert_eq!(HostData::U64(round), back.data);
    let _ = std::fs::remove_dir_all(&dir);
}
