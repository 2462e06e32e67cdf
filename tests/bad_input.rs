//! Bad input never gives a wrong answer: shapes whose sizes overflow, negative integer powers,
//! bounded `.npy` reads and atomic `.npy` writes.
//!
//! The shape tests are property tests: a seeded generator draws shapes from small lengths,
//! powers of two, lengths near `isize::MAX` and `usize::MAX` and random 64-bit values, and
//! every public creation, reshape and broadcast function must agree with NumPy's rule for a
//! new array's shape (checked against NumPy itself on a sample) — an error exactly where NumPy
//! raises, the right size everywhere else, and never a panic.

mod common;

use common::Rng;
use kp::{Array, DType, HostArray, HostData};
use kupfer as kp;
use std::panic::{catch_unwind, AssertUnwindSafe};

const TOO_BIG: &str = "array is too big";
const NEGATIVE_POWER: &str = "Integers to negative integer powers are not allowed.";

/// NumPy's rule for a new array's shape, written independently of kupfer's (in u128):
/// `Some(size)` when NumPy makes the array, `None` when it raises ValueError.
fn numpy_size(shape: &[u64], itemsize: u64) -> Option<u64> {
    if shape.len() > 64 || shape.iter().any(|&d| d > i64::MAX as u64) {
        return None;
    }
    let mut bytes = u128::from(itemsize);
    for &d in shape.iter().filter(|&&d| d != 0) {
        bytes *= u128::from(d);
        if bytes > i64::MAX as u128 {
            return None;
        }
    }
    Some(if shape.contains(&0) {
        0
    } else {
        shape.iter().product()
    })
}

/// One random axis length: mostly small, else a power of two (give or take one), a length
/// near `isize::MAX` or `usize::MAX`, or any 64-bit value.
fn length(rng: &mut Rng) -> u64 {
    match rng.next() % 10 {
        0..=4 => rng.next() % 5,
        5 | 6 => {
            let p = 1u64 << (rng.next() % 64);
            match rng.next() % 3 {
                0 => p - 1,
                1 => p,
                _ => p.wrapping_add(1),
            }
        }
        7 => i64::MAX as u64 - rng.next() % 3 + rng.next() % 3,
        8 => u64::MAX - rng.next() % 3,
        _ => rng_u64(rng),
    }
}

fn rng_u64(rng: &mut Rng) -> u64 {
    (rng.next() << 33) ^ (rng.next() << 2) ^ (rng.next() & 3)
}

/// A random shape: usually up to 5 axes, sometimes around NumPy's 64-axis limit.
fn shape(rng: &mut Rng) -> Vec<u64> {
    let ndim = if rng.next().is_multiple_of(20) {
        62 + (rng.next() % 5) as usize
    } else {
        (rng.next() % 6) as usize
    };
    (0..ndim)
        .map(|_| {
            if ndim > 8 {
                1 + rng.next() % 2
            } else {
                length(rng)
            }
        })
        .collect()
}

fn as_usize(shape: &[u64]) -> Vec<usize> {
    shape.iter().map(|&d| d as usize).collect()
}

/// Runs `f`, turning a panic into a failure message.
fn no_panic<T>(what: &str, f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|_| format!("{what}: panicked"))
}

/// Checks that `r` is what NumPy's rule says: an error for `None` (naming NumPy's problem),
/// else an array of `shape`.
fn agrees(
    what: &str,
    r: kp::Result<Array>,
    want: Option<u64>,
    shape: &[usize],
) -> Result<(), String> {
    match (r, want) {
        (Err(e), None) => {
            let m = e.to_string();
            let named = [
                TOO_BIG,
                "Maximum allowed dimension exceeded",
                "maximum supported dimension",
            ]
            .iter()
            .any(|n| m.contains(n));
            if named {
                Ok(())
            } else {
                Err(format!("{what}: error without NumPy's wording: {m}"))
            }
        }
        (Ok(a), None) => Err(format!("{what}: accepted, shape {:?}", a.shape())),
        (Err(e), Some(n)) => Err(format!(
            "{what}: refused a valid shape of {n} elements: {e}"
        )),
        (Ok(a), Some(n)) => {
            if a.shape() != shape || a.size() as u64 != n {
                Err(format!("{what}: shape {:?}, size {}", a.shape(), a.size()))
            } else {
                Ok(())
            }
        }
    }
}

#[test]
fn creation_agrees_with_numpys_shape_rule() {
    let mut rng = Rng(28);
    let mut failures = Vec::new();
    let dtypes = [DType::F32, DType::I32, DType::Bool];
    for case in 0..600 {
        let s = shape(&mut rng);
        let dtype = dtypes[case % dtypes.len()];
        let itemsize = dtype.host_size() as u64;
        let want = numpy_size(&s, itemsize);
        let su = as_usize(&s);
        let mut check = |what: &str, f: &dyn Fn() -> kp::Result<Array>| {
            let what = format!("{what} {s:?} {dtype}");
            match no_panic(&what, f).and_then(|r| agrees(&what, r, want, &su)) {
                Ok(()) => {}
                Err(m) => failures.push(m),
            }
        };
        check("zeros", &|| kp::zeros(&su, Some(dtype)));
        check("ones", &|| kp::ones(&su, Some(dtype)));
        check("full", &|| kp::full(&su, 1, Some(dtype)));
        // checked_size is the rule itself.
        match (kp::checked_size(&su, itemsize as usize), want) {
            (Ok(n), Some(w)) if n as u64 == w => {}
            (Err(_), None) => {}
            (got, w) => failures.push(format!("checked_size {s:?}: {got:?}, NumPy {w:?}")),
        }
        // Uploads with no data: only an empty shape takes them (a size that wraps to 0 must not).
        let empty = no_panic("from_slice", || Array::from_slice::<f32>(&[], &su));
        let host = no_panic("HostArray::new", || {
            HostArray::new(su.clone(), HostData::F32(vec![]))
        });
        let want_f32 = numpy_size(&s, 4);
        match (empty, host, want_f32) {
            (Ok(Ok(a)), Ok(Ok(_)), Some(0)) if a.size() == 0 => {}
            (Ok(Err(_)), Ok(Err(_)), w) if w != Some(0) => {}
            (a, h, w) => failures.push(format!(
                "from_slice/HostArray::new of no data as {s:?}: {:?} / {:?}, NumPy size {w:?}",
                a.map(|r| r.map(|x| x.shape().to_vec())),
                h.map(|r| r.map(|x| x.shape))
            )),
        }
        // empty() allocates: valid shapes beyond the device are an out-of-memory error (sizes
        // between 2^20 and 2^40 elements are left out: they would really allocate).
        let affordable = want.is_none_or(|n| n <= 1 << 20 || n >= 1 << 40);
        if !affordable {
            continue;
        }
        if let Ok(r) = no_panic("empty", || kp::empty(&su, Some(dtype))) {
            match (r, want) {
                (Ok(a), Some(n)) if a.size() as u64 == n && n <= 1 << 20 => {}
                // Beyond the device (bool takes 4 bytes there: "too big" for the GPU).
                (Err(_), Some(n)) if n >= 1 << 40 => {}
                (Ok(a), Some(n)) if n > 1 << 20 && a.size() as u64 == n => {}
                (Err(_), None) => {}
                (r, w) => failures.push(format!(
                    "empty {s:?}: {:?}, NumPy {w:?}",
                    r.map(|a| a.size())
                )),
            }
        } else {
            failures.push(format!("empty {s:?}: panicked"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn reshape_and_broadcast_agree_with_numpys_shape_rule() {
    let mut rng = Rng(2828);
    let mut failures = Vec::new();
    let bases = [
        kp::zeros(&[0], Some(DType::F32))
            .unwrap()
            .eval()
            .unwrap()
            .clone(),
        kp::arange(0, 6, 1, Some(DType::F32)).unwrap(),
        kp::ones(&[1], Some(DType::F32))
            .unwrap()
            .eval()
            .unwrap()
            .clone(),
    ];
    for case in 0..600 {
        let s = shape(&mut rng);
        let su = as_usize(&s);
        let want = numpy_size(&s, 4);
        let base = &bases[case % bases.len()];
        // reshape: valid only where the size matches and NumPy's rule holds.
        let mut target: Vec<isize> = s.iter().map(|&d| d as isize).collect();
        if !target.is_empty() && rng.next().is_multiple_of(4) {
            let k = (rng.next() as usize) % target.len();
            target[k] = -1;
        }
        let what = format!("reshape of {:?} to {target:?}", base.shape());
        match no_panic(&what, || base.reshape(&target)) {
            Err(m) => failures.push(m),
            Ok(Ok(r)) => {
                let known = target
                    .iter()
                    .zip(r.shape())
                    .all(|(&t, &n)| t == -1 || t as usize == n);
                if r.size() != base.size() || !known || numpy_size(&as_u64(r.shape()), 4).is_none()
                {
                    failures.push(format!("{what}: gave {:?}", r.shape()));
                }
            }
            Ok(Err(_)) => {
                // Refused: right only if no valid shape of the base's size was asked for.
                let negative = target.iter().any(|&t| t < -1);
                if !negative && !target.contains(&-1) && want == Some(base.size() as u64) {
                    failures.push(format!("{what}: refused a valid reshape"));
                }
            }
        }
        // broadcast_to of a one-element array: exactly the shapes whose size fits.
        let one = &bases[2];
        let what = format!("broadcast_to {s:?}");
        // (NumPy cannot broadcast to fewer axes than the array has.)
        let fits = numpy_size(&s, 1).filter(|_| !s.is_empty());
        match no_panic(&what, || one.broadcast_to(&su)) {
            Err(m) => failures.push(m),
            Ok(r) => match (r, fits) {
                (Ok(a), Some(n)) if a.shape() == su && a.size() as u64 == n => {}
                (Err(_), None) => {}
                (r, w) => failures.push(format!("{what}: {:?}, NumPy {w:?}", r.map(|a| a.size()))),
            },
        }
        // Broadcasting two valid lazy arrays: refused where the result's size overflows.
        let other = shape(&mut rng);
        if let (Some(_), Some(_)) = (numpy_size(&s, 4), numpy_size(&other, 4)) {
            let what = format!("{s:?} + {other:?}");
            let r = no_panic(&what, || {
                let a = kp::ones(&su, Some(DType::F32))?;
                let b = kp::ones(&as_usize(&other), Some(DType::F32))?;
                kp::add(&a, &b)
            });
            match r {
                Err(m) => failures.push(m),
                Ok(Ok(c)) => {
                    if numpy_size(&as_u64(c.shape()), 4).is_none() {
                        failures.push(format!("{what}: gave {:?}", c.shape()));
                    }
                }
                Ok(Err(_)) => {}
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn as_u64(shape: &[usize]) -> Vec<u64> {
    shape.iter().map(|&d| d as u64).collect()
}

/// The model above is NumPy's rule: NumPy itself raises ValueError on exactly the shapes the
/// model refuses (MemoryError or success elsewhere).
#[test]
fn the_shape_rule_is_numpys() {
    let mut rng = Rng(7);
    let mut cases = Vec::new();
    while cases.len() < 300 {
        let s = shape(&mut rng);
        let itemsize = [1u64, 4, 8][rng.next() as usize % 3];
        cases.push((s, itemsize));
    }
    let script = r#"
import json, sys, numpy as np
cases = json.loads(sys.stdin.read())
out = []
for shape, itemsize in cases:
    try:
        np.empty(tuple(shape), dtype={1: np.int8, 4: np.float32, 8: np.float64}[itemsize])
        out.append(True)
    except ValueError:
        out.append(False)
    except MemoryError:
        out.append(True)
print(json.dumps(out))
"#;
    let input = serde_json::to_string(&cases).unwrap();
    let mut child = std::process::Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3 with NumPy (the oracle)");
    {
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
    }
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "the NumPy oracle failed");
    let numpy: Vec<bool> = serde_json::from_slice(&o.stdout).unwrap();
    for ((s, itemsize), ok) in cases.iter().zip(numpy) {
        assert_eq!(
            numpy_size(s, *itemsize).is_some(),
            ok,
            "{s:?} itemsize {itemsize}"
        );
        assert_eq!(
            kp::checked_size(&as_usize(s), *itemsize as usize).is_ok(),
            ok,
            "{s:?} itemsize {itemsize}"
        );
    }
}

#[test]
fn creation_functions_refuse_impossible_lengths() {
    let msg = |r: kp::Result<Array>| r.map(|a| a.shape().to_vec()).unwrap_err().to_string();
    assert!(msg(kp::arange(0.0, f64::NAN, 1.0, None)).contains("arange: cannot compute length"));
    assert!(
        msg(kp::arange(0.0, f64::INFINITY, 1.0, None)).contains("Maximum allowed size exceeded")
    );
    assert!(kp::arange(0, i64::MAX, 1, None).is_err());
    assert!(msg(kp::linspace(0.0, 1.0, 1 << 62, true, None)).contains(TOO_BIG));
    assert!(msg(kp::linspace(0.0, 1.0, usize::MAX, true, None))
        .contains("Maximum allowed dimension exceeded"));
    assert!(kp::linspace(0.0, 1.0, 1 << 40, true, None).is_err());
    assert!(msg(kp::eye(1 << 32, Some(1 << 32), 0, None)).contains(TOO_BIG));
    assert!(kp::zeros(&[1; 65], None).is_err());
    // Valid and small: still fine.
    assert_eq!(kp::zeros(&[1; 64], Some(DType::F32)).unwrap().size(), 1);
    assert_eq!(
        kp::arange(0.0, 3.0, 1.0, Some(DType::F32))
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        vec![0.0, 1.0, 2.0]
    );
    // A reduction of an overflowing shape cannot be reached: the shape is refused first.
    let r = kp::ones(&[11, 1676976733973595602], Some(DType::F32));
    assert!(msg(r).contains(TOO_BIG));
}

// ---------------------------------------------------------------------------------------
// Negative integer powers
// ---------------------------------------------------------------------------------------

fn ints() -> Array {
    Array::from_slice(&[-7i32, -1, 0, 3, 100], &[5]).unwrap()
}

#[test]
fn scalar_negative_exponents_are_refused_at_once() {
    let i = ints();
    let e = kp::power(&i, -1).unwrap_err();
    assert_eq!(e, kp::Error::invalid(NEGATIVE_POWER));
    let u = Array::from_slice(&[1u32, 2], &[2]).unwrap();
    assert!(kp::power(&u, -2).is_err());
    let b = Array::from_slice(&[true, false], &[2]).unwrap();
    assert!(kp::power(&b, -1).is_err());
    // An empty result computes nothing, so NumPy raises nothing.
    let none = Array::from_slice::<i32>(&[], &[0]).unwrap();
    assert_eq!(
        kp::power(&none, -1).unwrap().to_vec::<i32>().unwrap(),
        Vec::<i32>::new()
    );
    // Non-negative exponents and float results are fine.
    assert_eq!(
        kp::power(&i, 2).unwrap().to_vec::<i32>().unwrap(),
        vec![49, 1, 0, 9, 10000]
    );
    let f = kp::power(i.astype(DType::F32).unwrap(), -1).unwrap();
    assert!((f.to_vec::<f32>().unwrap()[3] - 1.0 / 3.0).abs() < 1e-6);
}

#[test]
fn array_negative_exponents_are_reported_at_the_next_sync() {
    // Deferred errors belong to a device: a device of this test's own keeps the other tests'
    // read-backs (on other threads) out of it.
    let device = kp::Device::new(kp::AdapterChoice::Default).expect("a device");
    let _guard = device.use_device();
    let i = ints();
    // The exponent's values are on the device: the power itself is recorded...
    let p = kp::power(2, &i).expect("recorded; checked on the device");
    // ...and the read-back that follows reports the error instead of values.
    assert_eq!(
        p.to_vec::<i32>().unwrap_err(),
        kp::Error::invalid(NEGATIVE_POWER)
    );
    // Reported once: the device is usable again.
    let ok = kp::power(&i, kp::absolute(&i).unwrap()).unwrap();
    let want: Vec<i32> = [-7i32, -1, 0, 3, 100]
        .iter()
        .map(|&v: &i32| v.wrapping_pow(v.unsigned_abs()))
        .collect();
    assert_eq!(ok.to_vec::<i32>().unwrap(), want);
    // synchronize() is a sync too, and a lazy exponent is checked as it is.
    let _q = kp::power(&i, kp::subtract(&i, 1).unwrap()).unwrap();
    assert_eq!(
        kp::synchronize().unwrap_err(),
        kp::Error::invalid(NEGATIVE_POWER)
    );
    kp::synchronize().expect("reported once");
    // Any read-back of the device reports it, even of another array (documented).
    let _r = kp::power(&i, &i).unwrap();
    let other = Array::from_slice(&[1.0f32], &[1]).unwrap();
    assert!(other.to_vec::<f32>().is_err());
    // Non-negative exponent arrays, unsigned ones and float results raise nothing.
    let u = Array::from_slice(&[0u32, 1, 2, 3, 4], &[5]).unwrap();
    kp::power(&i, &u).unwrap().eval().unwrap();
    kp::power(2.5, &i).unwrap().eval().unwrap();
    kp::power(&i, kp::absolute(&i).unwrap())
        .unwrap()
        .to_vec::<i32>()
        .unwrap();
    kp::synchronize().expect("nothing failed");
}

#[test]
fn negative_exponents_are_found_in_every_signed_dtype_and_view() {
    let device = kp::Device::new(kp::AdapterChoice::Default).expect("a device");
    let _guard = device.use_device();
    let n = 1000usize;
    for dtype in [DType::I8, DType::I16, DType::I32, DType::I64] {
        if !device.supports(dtype) {
            continue; // int64 on adapters without 64-bit integers
        }
        // One negative exponent, at the first, a middle and the last element.
        for at in [0, 517, n - 1] {
            // int64's negative has a low word without its top bit: only the high word tells.
            let mut v = vec![2i64; n];
            v[at] = if dtype == DType::I64 {
                5 - (1i64 << 32)
            } else {
                -1
            };
            let e = if dtype == DType::I64 {
                Array::from_slice(&v, &[n]).unwrap()
            } else {
                let narrow: Vec<i32> = v.iter().map(|&x| x as i32).collect();
                Array::from_slice(&narrow, &[n])
                    .unwrap()
                    .astype(dtype)
                    .unwrap()
            };
            let p = kp::power(3, &e).unwrap();
            assert_eq!(
                p.astype(DType::I32).unwrap().to_vec::<i32>().unwrap_err(),
                kp::Error::invalid(NEGATIVE_POWER),
                "{dtype:?}, negative at {at}"
            );
            // Views: a slice at an odd offset that leaves the negative out raises nothing;
            // a reversed or strided view that holds it raises.
            let skip = if at == 0 { 1 } else { 0 };
            let stop = if at == 0 { n } else { at } as isize;
            let clean = e
                .slice(&[kp::SliceArg::range(skip as isize, stop)])
                .unwrap();
            let want: Vec<i32> = vec![9; clean.size()];
            assert_eq!(
                kp::power(3, &clean)
                    .unwrap()
                    .astype(DType::I32)
                    .unwrap()
                    .to_vec::<i32>()
                    .unwrap(),
                want,
                "{dtype:?}, view before {at}"
            );
            let reversed = e
                .slice(&[kp::SliceArg::Slice {
                    start: None,
                    stop: None,
                    step: Some(-1),
                }])
                .unwrap();
            kp::power(3, &reversed).unwrap().eval().unwrap();
            assert!(
                kp::synchronize().is_err(),
                "{dtype:?}, reversed view, negative at {at}"
            );
            let step = if at % 3 == 0 { 3 } else { 1 };
            let strided = e
                .slice(&[kp::SliceArg::Slice {
                    start: None,
                    stop: None,
                    step: Some(step),
                }])
                .unwrap();
            kp::power(3, &strided).unwrap().eval().unwrap();
            assert!(
                kp::synchronize().is_err(),
                "{dtype:?}, strided view, negative at {at}"
            );
        }
        // No negative: nothing raised, and the values are right.
        let e = Array::from_slice(&vec![2i32; n], &[n])
            .unwrap()
            .astype(dtype)
            .unwrap();
        let got = kp::power(3, &e).unwrap().astype(DType::I32).unwrap();
        assert_eq!(got.to_vec::<i32>().unwrap(), vec![9i32; n], "{dtype:?}");
    }
}

// ---------------------------------------------------------------------------------------
// .npy reading and writing
// ---------------------------------------------------------------------------------------

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

fn f8_header(shape: &str) -> String {
    format!("{{'descr': '<f8', 'fortran_order': False, 'shape': {shape}, }}")
}

#[test]
fn npy_headers_are_checked_before_the_data() {
    let err = |b: &[u8]| kp::io::read_npy_bytes(b).unwrap_err().to_string();
    // The element count wraps to 2 in 64 bits: refused, not read as 2 elements.
    assert!(err(&raw_npy(&f8_header("(3, 6148914691236517206)"), &[0; 16])).contains(TOO_BIG));
    assert!(err(&raw_npy(&f8_header("(2**3,)"), &[])).contains("Python literal"));
    assert!(err(&raw_npy(&f8_header("(-1,)"), &[])).contains("negative dimensions"));
    assert!(err(&raw_npy(&f8_header("(18446744073709551616,)"), &[]))
        .contains("Maximum allowed dimension exceeded"));
    assert!(err(&raw_npy(&f8_header("(1000,)"), &[0; 8])).contains("states 8000 bytes"));
    assert!(err(&raw_npy("{'descr': '<f8'}", &[])).contains("shape"));
    // Extra bytes after the data are ignored, as NumPy ignores them.
    let ok = kp::io::read_npy_bytes(&raw_npy(&f8_header("(1,)"), &[0; 12])).unwrap();
    assert_eq!(ok.data, HostData::F64(vec![0.0]));
    // A version-2 header claiming 2 GiB is refused before it is read.
    let mut long = b"\x93NUMPY\x02\x00".to_vec();
    long.extend_from_slice(&(1u32 << 31).to_le_bytes());
    assert!(err(&long).contains("max_header_size"));
}

#[test]
fn endless_streams_are_read_only_as_far_as_the_header_states() {
    use std::io::Read;
    // A valid header followed by an endless stream: exactly 3 values are read.
    let stream = std::io::Cursor::new(raw_npy(&f8_header("(3,)"), &[])).chain(std::io::repeat(0));
    let h = kp::io::read_npy_from(stream, None).unwrap();
    assert_eq!(h.data, HostData::F64(vec![0.0; 3]));
    // No header at all (/dev/zero): refused at the magic.
    assert!(kp::io::read_npy_from(std::io::repeat(0), None).is_err());
    // An endless header: bounded by max_header_size.
    let mut v2 = b"\x93NUMPY\x02\x00".to_vec();
    v2.extend_from_slice(&(1u32 << 30).to_le_bytes());
    let endless = std::io::Cursor::new(v2).chain(std::io::repeat(b' '));
    assert!(kp::io::read_npy_from(endless, None)
        .unwrap_err()
        .to_string()
        .contains("max_header_size"));
    // A stream ending early.
    let short = std::io::Cursor::new(raw_npy(&f8_header("(3,)"), &[0; 9]));
    assert!(kp::io::read_npy_from(short, None)
        .unwrap_err()
        .to_string()
        .contains("states 24 bytes of data but the file holds 9"));
    // A regular file's length is checked first.
    let dir = std::env::temp_dir().join(format!("kupfer-bad-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("short.npy");
    std::fs::write(&p, raw_npy(&f8_header("(1000000000000,)"), &[0; 8])).unwrap();
    assert!(kp::io::read_npy(&p)
        .unwrap_err()
        .to_string()
        .contains("states 8000000000000 bytes"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn npy_writes_are_atomic() {
    let dir = std::env::temp_dir().join(format!("kupfer-atomic-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let listing = || {
        let mut v: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let a = HostArray::new(vec![2], HostData::I32(vec![1, 2])).unwrap();
    let b = HostArray::new(vec![3], HostData::F32(vec![1.0, 2.0, 3.0])).unwrap();
    let out = dir.join("out.npy");
    kp::io::write_npy(&out, &a).unwrap();
    kp::io::write_npy(&out, &b).unwrap();
    assert_eq!(kp::io::read_npy(&out).unwrap(), b);
    assert_eq!(listing(), vec!["out.npy"]);
    // A directory in the way: an error, the directory untouched, nothing left behind.
    std::fs::create_dir(dir.join("sub")).unwrap();
    assert!(kp::io::write_npy(dir.join("sub"), &a).is_err());
    assert!(dir.join("sub").is_dir());
    assert_eq!(listing(), vec!["out.npy", "sub"]);
    assert!(kp::io::write_npy(dir.join("none/out.npy"), &a).is_err());
    assert_eq!(listing(), vec!["out.npy", "sub"]);
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------
// Fuzz: mutated .npy files against NumPy's np.load
// ---------------------------------------------------------------------------------------

/// A random `.npy` file: a valid one of a random dtype and shape, then mutated (truncated,
/// a header byte changed, the shape replaced by a random or overflowing one, junk appended,
/// the length field or version changed).
fn mutated_npy(rng: &mut Rng) -> Vec<u8> {
    const DESCRS: &[(&str, usize)] = &[
        ("<f4", 4),
        ("<f8", 8),
        ("<i4", 4),
        ("<i8", 8),
        ("|b1", 1),
        ("<c8", 8),
        (">f8", 8),
        ("<u4", 4),
        ("<f2", 2),
        ("|i1", 1),
        ("<c16", 16),
        ("<u8", 8),
    ];
    let (descr, size) = DESCRS[rng.next() as usize % DESCRS.len()];
    let ndim = rng.next() % 4;
    let shape: Vec<u64> = (0..ndim).map(|_| rng.next() % 4).collect();
    let count: u64 = shape.iter().product();
    let mut shape_text = match shape.len() {
        1 => format!("({},)", shape[0]),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mutation = rng.next() % 8;
    if mutation == 0 {
        let s: Vec<String> = (0..1 + rng.next() % 3)
            .map(|_| length(rng).to_string())
            .collect();
        shape_text = format!("({},)", s.join(", "));
    }
    let fortran = if rng.next().is_multiple_of(3) {
        "True"
    } else {
        "False"
    };
    let dict =
        format!("{{'descr': '{descr}', 'fortran_order': {fortran}, 'shape': {shape_text}, }}");
    let data: Vec<u8> = (0..count as usize * size)
        .map(|_| (rng.next() % 7) as u8)
        .collect();
    let mut bytes = raw_npy(&dict, &data);
    match mutation {
        1 => bytes.truncate(rng.next() as usize % bytes.len()),
        2 => {
            let i = 8 + rng.next() as usize % (bytes.len() - 8).min(80);
            bytes[i] = b" ,()0123456789'{}:-x"[rng.next() as usize % 20];
        }
        3 => bytes.extend((0..rng.next() % 40).map(|_| rng.next() as u8)),
        4 => {
            let v = (rng.next() % 200) as u16;
            bytes[8..10].copy_from_slice(&v.to_le_bytes());
        }
        5 => bytes[6] = (rng.next() % 5) as u8,
        6 => {
            let i = rng.next() as usize % bytes.len();
            bytes[i] = rng.next() as u8;
        }
        _ => {}
    }
    bytes
}

/// 400 mutated `.npy` files read by kupfer and by NumPy's `np.load`: kupfer never panics,
/// and every array kupfer reads NumPy reads too, with the same shape and values. kupfer may
/// refuse what NumPy reads only for dtypes it does not have (float128, ...).
#[test]
fn npy_fuzz_matches_numpy() {
    let mut rng = Rng(0x28);
    let dir = std::env::temp_dir().join(format!("kupfer-npy-fuzz-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let files: Vec<Vec<u8>> = (0..400).map(|_| mutated_npy(&mut rng)).collect();
    for (i, f) in files.iter().enumerate() {
        std::fs::write(dir.join(format!("{i}.npy")), f).unwrap();
    }
    let script = r#"
import json, sys, os, numpy as np
d = sys.argv[1]
out = []
for i in range(int(sys.argv[2])):
    try:
        a = np.load(os.path.join(d, f"{i}.npy"), allow_pickle=False)
        v = np.ascontiguousarray(a).ravel()
        if a.dtype.kind == 'c':
            v = np.stack([v.real, v.imag], axis=-1).ravel()
        out.append({"shape": list(a.shape), "dtype": a.dtype.str, "values": v.astype("<f8").tobytes().hex()})
    except Exception as e:
        out.append({"error": type(e).__name__})
print(json.dumps(out))
"#;
    let o = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(&dir)
        .arg(files.len().to_string())
        .output()
        .expect("python3 with NumPy (the oracle)");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let numpy: Vec<serde_json::Value> = serde_json::from_slice(&o.stdout).unwrap();
    let (mut both_read, mut both_refused, mut kupfer_refused) = (0, 0, 0);
    let mut failures = Vec::new();
    for (i, (bytes, want)) in files.iter().zip(&numpy).enumerate() {
        let got = catch_unwind(AssertUnwindSafe(|| kp::io::read_npy_bytes(bytes)));
        let Ok(got) = got else {
            failures.push(format!("file {i}: kupfer panicked"));
            continue;
        };
        match (got, want.get("error")) {
            (Ok(h), None) => {
                let shape: Vec<usize> = serde_json::from_value(want["shape"].clone()).unwrap();
                let hex = want["values"].as_str().unwrap_or("");
                let values: Vec<f64> = (0..hex.len() / 16)
                    .map(|k| {
                        let b = u64::from_str_radix(&hex[16 * k..16 * k + 16], 16).unwrap();
                        f64::from_le_bytes(b.to_be_bytes())
                    })
                    .collect();
                let mine = host_f64(&h.data);
                let same = mine.len() == values.len()
                    && mine
                        .iter()
                        .zip(&values)
                        .all(|(a, b)| a == b || (a.is_nan() && b.is_nan()));
                if h.shape != shape || !same {
                    failures.push(format!(
                        "file {i}: kupfer read {:?}, NumPy {shape:?}",
                        h.shape
                    ));
                } else {
                    both_read += 1;
                }
            }
            (Ok(h), Some(e)) => failures.push(format!(
                "file {i}: kupfer read {:?} where NumPy raised {e}",
                h.shape
            )),
            (Err(_), Some(_)) => both_refused += 1,
            (Err(e), None) => {
                let dtype = want["dtype"].as_str().unwrap_or("");
                if ["i1", "u1", "i2", "u2", "u8"]
                    .iter()
                    .any(|d| dtype.ends_with(d))
                {
                    kupfer_refused += 1;
                } else {
                    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(120)]).into_owned();
                    failures.push(format!(
                        "file {i}: kupfer refused a {dtype} NumPy reads: {e}: {head:?}"
                    ));
                }
            }
        }
    }
    eprintln!(
        "npy fuzz: {} files: {both_read} read alike, {both_refused} refused by both, \
         {kupfer_refused} of dtypes kupfer lacks, {} failures",
        files.len(),
        failures.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn host_f64(d: &HostData) -> Vec<f64> {
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
