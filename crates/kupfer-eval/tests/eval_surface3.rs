//! Issue 24's everyday surface, third pass: Python ints beyond 64 bits in kupfer eval (exact
//! up to 128 bits, NEP 50's rules where they meet arrays of every integer dtype), `item()`,
//! `int()`, `float()`, `complex()` and `bool()` of NumPy scalars (uint64 from 2**63 up
//! included, in eval and in the Rust API), `ndarray.view(dtype)`, `np.shares_memory` /
//! `np.may_share_memory`, and `is` / `is not`. Each program runs in kupfer eval and in NumPy
//! (tests/python/program_oracle.py); results must agree in shape, dtype and values, and
//! programs NumPy refuses must fail in kupfer with a short error. Needs python3 with numpy
//! and an adapter with SHADER_INT64; fails, never skips, without them.

mod common;

use common::{assert_programs_match_numpy, assert_programs_refused_like_numpy, device};
use kupfer::{DType, Scalar};
use kupfer_eval::Session;
use std::process::Command;

const BIG_INTS: &[&str] = &[
    // Python ints in [2**63, 2**64) with uint64 arrays and scalars.
    "u = np.array([1, 2], dtype=np.uint64); u + 2**63",
    "u = np.array([1, 2], dtype=np.uint64); u * 2**63",
    "u = np.array([1, 2], dtype=np.uint64); 2**64 - 1 - u",
    "u = np.array([1, 2], dtype=np.uint64); u // 2**63",
    "u = np.array([1, 2], dtype=np.uint64); u ** 2**63",
    "u = np.array([1, 2], dtype=np.uint64); np.add(u, 2**63)",
    "u = np.array([1, 2], dtype=np.uint64); np.maximum(u, 2**63)",
    "u = np.array([1, 2], dtype=np.uint64); u - 2**63 - 1",
    "u = np.array([5, 2**63 + 5], dtype=np.uint64); u == 2**63 + 5",
    "u = np.array([5, 2**63 + 5], dtype=np.uint64); u < 2**64",
    "u = np.array([5, 2**63 + 5], dtype=np.uint64); u > -2**70",
    "u = np.array([5, 2**63 + 5], dtype=np.uint64); u == -1",
    "np.array([1]) < 2**63",
    "np.array([1], dtype=np.int8) < 2**100",
    "np.array([1.0]) < 2**63",
    "np.uint64(2**64 - 1)",
    "np.uint64(18446744073709551615) + 1",
    "np.uint64(5) + 2**63",
    "np.uint64(2**63) == 2**63",
    "np.uint64(2**63) > 2**63",
    "np.array([2**63, 1], dtype=np.uint64)",
    "np.array([2**64 - 1])",
    "np.array(2**63)",
    "np.asarray([2**63, 2**63])",
    "np.array([[2**63], [2**63]])",
    "np.array([2**63, True])",
    "np.array([2**63, 1])",
    "np.array([1, 2**63])",
    "np.array([2**63, -1])",
    "np.array([2**63, 1.5])",
    "np.array([2**63, 1j])",
    "np.array([2**63], dtype=np.float32)",
    "np.array([2**64], dtype=np.float64)",
    "np.array([2**63, 1.5], dtype=np.uint64)",
    "np.array([2**63], dtype=bool)",
    "np.full(2, 2**63)",
    "np.asarray(2**64 - 1, dtype=np.float32)",
    "np.arange(2**63, 2**63 + 3)",
    "np.array([1.5], dtype=np.float32) + 2**63",
    "np.array([1.5]) + 2**64",
    "np.array([2.5]) * 2**63",
    "np.negative(2**63)",
    "np.sqrt(2**63)",
    "np.float64(2**70)",
    "np.float32(2**64)",
    "np.iinfo(np.uint64).max",
    "np.iinfo(np.uint64).max + 0",
    "r = np.random.default_rng(1).integers(2**64 - 2, 2**64 - 1, size=1000, dtype=np.uint64, endpoint=True); np.array([r.min() == 2**64 - 2, r.max() == 2**64 - 1, r.dtype == np.uint64])",
    "r = np.random.default_rng(1).integers(2**63, 2**63 + 4, size=1000, dtype=np.uint64); np.array([r.min() == 2**63, r.max() == 2**63 + 3])",
    // Python int arithmetic, exact past 64 bits.
    "2**64 - 2**63 - 1",
    "(2**64 - 1) // 3",
    "(2**100 + 7) % 2**64",
    "-(2**64) // 7",
    "(2**64 - 1) & (2**63 + 1)",
    "(2**64 - 1) >> 60",
    "1 << 63",
    "~(2**64) + 2**65",
    "2**64 == 2.0**64",
    "2**64 + 1 > 2.0**64",
    "2**64 / 2**60",
    "2**64 * 0.5",
    "-2**126 * 2 < 2**126",
    "int(2.0**70) - 2**70",
    "int('18446744073709551615') - 2**64",
    "(1, 2, 3)[:2**70]",
    "1**(2**100)",
    "(-1)**(2**100 + 1)",
    "0**(2**100)",
    // NEP 50: Python ints that fit meet small integer dtypes.
    "np.array([1], dtype=np.uint8) + 254",
    "np.array([1, 200], dtype=np.uint8) == 300",
    "np.array([1], dtype=np.uint32) + 4294967294",
    // NumPy scalars to Python scalars.
    "np.uint64(2**63).item()",
    "np.uint64(2**64 - 1).item() - 2**64",
    "int(np.uint64(2**64 - 1))",
    "float(np.uint64(2**64 - 1))",
    "complex(np.uint64(2**63))",
    "int(np.float64(2.7))",
    "int(np.array(True))",
    "int(np.int8(-5)) * 2**60",
    "float(np.float32(0.1))",
    "complex(np.complex64(1 + 2j))",
    "bool(np.array([0]))",
    "bool(np.uint64(2**63))",
    "np.array([[5]]).item()",
    "np.array([1, 2, 3]).item(1)",
    "np.arange(6).reshape(2, 3).item(1, 2)",
    "np.arange(6).reshape(2, 3).item((1, 2))",
    "np.arange(6).reshape(2, 3).item(-1)",
    "np.arange(6).reshape(2, 3)[:, ::-1].item(0, 0)",
    "np.float16(0.1).item()",
    "np.float32(0.1).item()",
    "np.complex64(1 + 2j).item()",
    "np.array([True]).item()",
    "np.array([2**63 + 5], dtype=np.uint64).item() - 5",
    "x = np.array([3.5, 4.5]); x[1].item() + 1",
];

const BIG_INTS_REFUSED: &[&str] = &[
    "u = np.array([1, 2], dtype=np.uint64); u + (-1)",
    "u = np.array([1, 2], dtype=np.uint64); u + 2**64",
    "u = np.array([1, 2], dtype=np.uint64); u + (-2**63 - 1)",
    "np.array([1]) + 2**63",
    "np.array([True]) + 2**63",
    "np.array([True]) < 2**63",
    "np.array([1], dtype=np.int32) + 2**63",
    "np.array([1], dtype=np.uint32) + 2**63",
    "np.array([1], dtype=np.uint8) + 300",
    "np.array([1], dtype=np.uint8) + (-1)",
    "np.array([1], dtype=np.int8) + 128",
    "np.array([1], dtype=np.int8) - 129",
    "np.array([1], dtype=np.int8) + 2**64",
    "np.array([1], dtype=np.int8) + (-2**63)",
    "np.int8(5) + 300",
    "np.int64(1) + 2**63",
    "np.uint64(2**64)",
    "np.uint64(-1)",
    "np.int64(2**63)",
    "np.uint8(2**63)",
    "np.array([2**63], dtype=np.int64)",
    "np.array([2**64], dtype=np.uint64)",
    "np.array([2**63, -1], dtype=np.uint64)",
    "np.asarray([2**63], dtype=np.int8)",
    "np.zeros(2**63)",
    "(1, 2)[2**63]",
    "np.arange(3)[2**64]",
    "int(np.array([5]))",
    "float(np.array([]))",
    "np.array([1, 2, 3]).item()",
    "np.arange(6).item(7)",
    "np.arange(6).reshape(2, 3).item(2, 0)",
    "int(np.float64(np.nan))",
    "bool(np.array([1, 2]))",
];

/// What kupfer eval refuses where NumPy makes an object array or Python an int past 128 bits.
const BEYOND: &[&str] = &[
    "np.array([2**64])",
    "np.array([2**64, 1.5])",
    "np.array([-2**63 - 1])",
    "2**128",
    "2**127",
    "2**127 + 2**127",
    "-(2**127) * 2",
    "1 << 128",
    "int(1e300)",
];

#[test]
fn big_python_ints_and_item_match_numpy() {
    assert_programs_match_numpy("surface3_ints", BIG_INTS);
}

#[test]
fn big_python_int_refusals_match_numpy() {
    assert_programs_refused_like_numpy("surface3_ints_refused", BIG_INTS_REFUSED);
}

#[test]
fn python_ints_beyond_128_bits_are_one_line_errors() {
    device();
    for p in BEYOND {
        match Session::new().run(p).and_then(|v| v.to_host()) {
            Ok(v) => panic!("{p}: kupfer gave {}", v.repr()),
            Err(e) => assert_eq!(e.render().lines().count(), 1, "{p}: {}", e.render()),
        }
    }
    let e = Session::new().run("2**128").unwrap_err().render();
    assert!(e.contains("128 bits"), "{e}");
    let e = Session::new()
        .run("np.array([2**64])")
        .unwrap_err()
        .render();
    assert!(e.contains("18446744073709551616"), "{e}");
}

/// Python ints past 64 bits print as Python prints them (checked against python3 itself).
#[test]
fn big_python_ints_print_as_python() {
    device();
    let exprs = [
        "2**64",
        "-2**64",
        "2**126 + (2**126 - 1)",
        "-2**126 * 2",
        "(2**64 - 1) * 3",
        "[2**63, -2**70]",
        "(2**64, 1)",
        "np.uint64(2**63).item() * 4",
        "int(np.uint64(2**64 - 1)) + 1",
        "np.iinfo(np.uint64).max",
        "np.uint64(2**64 - 1)",
        "np.array([2**63, 2**64 - 1], dtype=np.uint64)",
    ];
    let src = format!("import numpy as np\nfor e in {exprs:?}:\n    print(eval(e))\n",);
    let o = Command::new("python3")
        .arg("-c")
        .arg(&src)
        .output()
        .expect("python3 with numpy");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let want = String::from_utf8_lossy(&o.stdout).to_string();
    let want: Vec<&str> = want.lines().collect();
    assert_eq!(want.len(), exprs.len());
    for (e, w) in exprs.iter().zip(want) {
        let got = Session::new()
            .run(e)
            .and_then(|v| v.to_host())
            .unwrap_or_else(|err| panic!("{e}: {}", err.render()))
            .to_string();
        assert_eq!(got, w, "{e}");
    }
}

/// The Rust API: `item()` of a uint64 from 2**63 up is a `Scalar::BigInt`, exactly; other
/// integer dtypes still give `Scalar::Int`.
#[test]
fn rust_item_of_big_uint64() {
    device();
    for v in [u64::MAX, 1 << 63, (1 << 63) + 12345, 0, 7] {
        let a = kupfer::Array::from_slice(&[v], &[]).expect("upload");
        assert_eq!(a.item().expect("item"), Scalar::int(v.into()), "{v}");
        assert_eq!(a.item().unwrap().as_i128(), Some(i128::from(v)));
    }
    let a = kupfer::Array::from_slice(&[i64::MIN], &[]).expect("upload");
    assert_eq!(a.item().unwrap(), Scalar::Int(i64::MIN));
    // A Python int past i64 meets arrays as NumPy's does: uint64 keeps it, int64 refuses it.
    let u = kupfer::Array::from_slice(&[1u64, 2], &[2]).expect("upload");
    let sum = kupfer::add(&u, Scalar::int(1 << 63)).expect("uint64 + 2**63");
    assert_eq!(sum.dtype(), DType::U64);
    assert_eq!(sum.to_vec::<u64>().unwrap(), [(1 << 63) + 1, (1 << 63) + 2]);
    let i = kupfer::Array::from_slice(&[1i64], &[1]).expect("upload");
    let e = kupfer::add(&i, Scalar::int(1 << 63))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("Python int too large to convert to C long"),
        "{e}"
    );
}

const VIEWS: &[&str] = &[
    "a = np.arange(4.0); a.view(np.int64)",
    "a = np.arange(4.0); a.view('u8')",
    "a = np.arange(4.0); b = a.view(np.int64); b[0] = 1; a",
    "a = np.arange(4.0); b = a.view(); b[1] = 7; a",
    "a = np.arange(4.0); a.view() is a",
    "a = np.array([1.5, -2.0], dtype=np.float32); a.view(np.uint32)",
    "a = np.array([1, -1], dtype=np.int32); a.view(np.float32)",
    "a = np.array([1, -1], dtype=np.int32); a.view(np.uint32)",
    "a = np.array([-1, 5], dtype=np.int64); a.view(np.uint64)",
    "z = np.array([1 + 2j, 3 - 4j]); z.view(np.float64)",
    "z = np.array([1 + 2j, 3 - 4j]); f = z.view(np.float64); f[1] = 9; z",
    "z = np.array([[1 + 2j, 3 - 4j]], dtype=np.complex64); z.view(np.float32)",
    "z = np.array([1 + 2j, 3 - 4j], dtype=np.complex64); z.view(np.float64)",
    "z = np.array([1 + 2j, 3 - 4j], dtype=np.complex64); z.view(np.uint64)",
    "a = np.arange(8.0).reshape(2, 4); a.view(np.complex128)",
    "a = np.arange(8.0).reshape(2, 4); a[:, 2:].view(np.complex128)",
    "a = np.arange(8.0).reshape(2, 4); a.view(np.float32)",
    "a = np.arange(8, dtype=np.int32).reshape(2, 4); a.view(np.int64)",
    "a = np.arange(8, dtype=np.int32).reshape(2, 4); a[::-1].view(np.int64)",
    "a = np.arange(8, dtype=np.int32).reshape(2, 4); a.T.view(np.float32)",
    "a = np.arange(6, dtype=np.int32).reshape(2, 3)[:, 1:]; a.view(np.uint32)",
    "a = np.zeros((0, 4)); a.view(np.complex128)",
    "np.array(2.5).view(np.int64)",
    "np.array(2.5).view(np.uint64)",
    // shares_memory / may_share_memory
    "x = np.arange(10); np.shares_memory(x, x)",
    "x = np.arange(10); np.shares_memory(x[::2], x[1::2])",
    "x = np.arange(10); np.may_share_memory(x[::2], x[1::2])",
    "x = np.arange(10); np.shares_memory(x[::2], x[2::4])",
    "x = np.arange(10); np.shares_memory(x[:5], x[5:])",
    "x = np.arange(10); np.may_share_memory(x[:5], x[5:])",
    "x = np.arange(10); np.shares_memory(x[:6], x[5:])",
    "x = np.arange(12).reshape(3, 4); np.shares_memory(x[:, 0], x[:, 1])",
    "x = np.arange(12).reshape(3, 4); np.shares_memory(x[:, 1], x[2])",
    "x = np.arange(12).reshape(3, 4); np.shares_memory(x.T, x[::-1])",
    "x = np.arange(12).reshape(3, 4); np.shares_memory(x[:, ::3], x[:, 1:3])",
    "x = np.arange(12).reshape(3, 4); np.may_share_memory(x[:, ::3], x[:, 1:3])",
    "x = np.arange(12).reshape(3, 4); np.may_share_memory(x[:, ::3], x[:, 1:3], max_work=-1)",
    "x = np.arange(10); np.shares_memory(x, x.copy())",
    "x = np.arange(10); np.shares_memory(x, x + 1)",
    "x = np.arange(10); np.shares_memory(x[:0], x)",
    "x = np.arange(10); np.shares_memory(x, np.broadcast_to(x[3], (4,)))",
    "x = np.arange(10); np.shares_memory(x, np.broadcast_to(x[3:4], (4,)))",
    "x = np.arange(10); s = x[3]; x[3] = 100; s",
    "x = np.arange(6).reshape(2, 3); s = x[1, 2]; x += 1; s",
    "x = np.array(5); s = x[()]; x[...] = 7; s",
    "x = np.array(5); s = x[...]; x[...] = 7; s",
    "x = np.arange(10); np.shares_memory(x[4:], np.broadcast_to(x[3], (4,)))",
    "z = np.array([1 + 2j, 3 - 4j]); np.shares_memory(z.view(np.float64)[1::2], z.real)",
    "z = np.array([1 + 2j, 3 - 4j]); np.shares_memory(z.view(np.float64)[::2], z[1:])",
    "a = np.arange(3.0); np.shares_memory(np.asarray(a, dtype=np.float64), a)",
    "a = np.arange(3.0); np.shares_memory(np.asarray(a, dtype=np.float32), a)",
    "a = np.arange(3.0); np.shares_memory([1, 2], a)",
    // is / is not
    "a = np.arange(3); np.asarray(a) is a",
    "a = np.arange(3); np.asarray(a, dtype=np.float64) is a",
    "a = np.arange(3); a[:] is a",
    "a = np.arange(3); b = a; b is a",
    "a = np.arange(3); a is not a",
    "np.atleast_1d(np.arange(3)) is None",
    "x = np.arange(3); np.atleast_1d(x) is x",
    "x = np.zeros(3); y = np.tanh(np.ones(3), x); y is x",
    "x = np.zeros(3); y = np.add(1, 2, out=x); y is x",
    "np.conj is np.conjugate",
    "np.bitwise_not is np.invert",
    "np.abs is np.absolute",
    "np.sin is np.cos",
    "np.newaxis is None",
    "None is not None",
    "True is True",
    "(1 > 0) is True",
    "x = 5; x is x",
    "x = [1, 2]; x is x",
    "x = 5; x is None",
    "x = np.arange(3); x is x is x",
    "f = lambda t: t; g = f; g is f",
];

const VIEWS_REFUSED: &[&str] = &[
    "a = np.arange(6.0).reshape(2, 3); a.view(np.complex128)",
    "a = np.arange(8.0).reshape(2, 4); a.T.view(np.complex128)",
    "np.array(2.5).view(np.float32)",
    "np.shares_memory(np.arange(3))",
];

/// What kupfer refuses of views and identity (NumPy accepts these), each a one-line error.
const VIEWS_UNSUPPORTED: &[&str] = &[
    "np.arange(3, dtype=np.int8).view(np.uint8)",
    "np.array([True]).view(np.int8)",
    "np.arange(3, dtype=np.float16).view(np.int16)",
    "np.arange(4, dtype=np.int32)[1:].view(np.int64)",
    "x = 5; y = 5; x is y",
    "np.float64 is np.float64",
];

#[test]
fn views_shares_memory_and_identity_match_numpy() {
    assert_programs_match_numpy("surface3_views", VIEWS);
}

#[test]
fn view_refusals_match_numpy() {
    assert_programs_refused_like_numpy("surface3_views_refused", VIEWS_REFUSED);
}

#[test]
fn unsupported_views_and_identity_are_one_line_errors() {
    device();
    for p in VIEWS_UNSUPPORTED {
        match Session::new().run(p).and_then(|v| v.to_host()) {
            Ok(v) => panic!("{p}: kupfer gave {}", v.repr()),
            Err(e) => assert_eq!(e.render().lines().count(), 1, "{p}: {}", e.render()),
        }
    }
}
