//! The Rust indexing API (`get`, `set`, `update`, `update_masked`, `ufunc_at`, the index
//! functions) against NumPy on every dtype the adapter has: each case is a Python statement
//! list over `a` (a 4 x 5 array of the dtype, also viewed reversed and strided) and the same
//! operation through kupfer's API; results must match NumPy's exactly (values are copied,
//! never computed). Plus the Mandelbrot example against NumPy's `mandelbrot_cupy` and the
//! lazy-reader rule of in-place writes.

mod common;

use common::{default_device, dtypes, raw_bytes, values};
use kupfer as kp;
use kupfer::{idx, Array, DType, Index, SliceArg};
use serde_json::json;
use std::path::PathBuf;

type Op = fn(&Array) -> kp::Result<Array>;

/// Written by the test that counts its launches on the shared device, read by every other
/// test: the counts stay the counting test's own.
static LAUNCH_COUNTS: std::sync::RwLock<()> = std::sync::RwLock::new(());

fn arr_i64(v: &[i64], shape: &[usize]) -> Array {
    Array::from_slice(v, shape).unwrap()
}

/// (NumPy program over `a` ending in `r = ...`, kupfer's form).
fn cases() -> Vec<(&'static str, Op)> {
    vec![
        ("r = a[a != 0]", |a| {
            a.get(&[Index::Array(kp::not_equal(a, 0)?)])
        }),
        ("r = a[[3, -1, 0, 0]]", |a| {
            a.get(&idx![vec![3i64, -1, 0, 0]])
        }),
        ("r = a[:, [4, 1]]", |a| a.get(&idx![.., vec![4i64, 1]])),
        ("r = a[[1, 2], [0, -1]]", |a| {
            a.get(&idx![vec![1i64, 2], vec![0i64, -1]])
        }),
        ("r = a[::-1, 1:4][[0, 2]]", |a| {
            a.slice(&kp::s![..;-1, 1..4])?.get(&idx![vec![0i64, 2]])
        }),
        (
            "r = a.T[a.T.sum(axis=1) != 0] if a.dtype != bool else a.T[a.T.any(axis=1)]",
            |a| {
                let t = a.t()?;
                let m = kp::any(&t, 1isize, false)?;
                t.get(&[Index::Array(m)])
            },
        ),
        ("r = a[np.array([[1], [3]]), np.array([0, 2, 4])]", |a| {
            a.get(&[
                Index::Array(arr_i64(&[1, 3], &[2, 1])),
                Index::Array(arr_i64(&[0, 2, 4], &[3])),
            ])
        }),
        ("r = a[1, None, [2, 3]]", |a| {
            a.get(&[
                Index::Basic(SliceArg::Index(1)),
                Index::Basic(SliceArg::NewAxis),
                Index::List(vec![2, 3]),
            ])
        }),
        ("r = a[[]]", |a| a.get(&[Index::List(vec![])])),
        ("r = a[np.zeros((4, 5), dtype=bool)]", |a| {
            a.get(&[Index::Array(kp::zeros(&[4, 5], Some(DType::Bool))?)])
        }),
        ("r = a.copy(); r[[0, 2]] = a[1]", |a| {
            let r = a.copy()?;
            r.set(&idx![vec![0i64, 2]], &a.slice(&[SliceArg::Index(1)])?)?;
            Ok(r)
        }),
        ("r = a.copy(); r[r != 0] = a[0, 0]", |a| {
            let r = a.copy()?;
            let m = kp::not_equal(&r, 0)?;
            r.set(
                &[Index::Array(m)],
                &a.slice(&[SliceArg::Index(0), SliceArg::Index(0)])?,
            )?;
            Ok(r)
        }),
        ("r = a.copy(); r[[3, 3, 1], 1:3] = a[:3, :2]", |a| {
            let r = a.copy()?;
            r.set(&idx![vec![3i64, 3, 1], 1..3], &a.slice(&kp::s![..3, ..2])?)?;
            Ok(r)
        }),
        (
            "r = a.copy(); v = r[::-1]; v[[0, 1], [4, 4]] = a[0, :2]; r = r",
            |a| {
                let r = a.copy()?;
                let v = r.slice(&kp::s![..;-1])?;
                v.set(
                    &idx![vec![0i64, 1], vec![4i64, 4]],
                    &a.slice(&kp::s![0, ..2])?,
                )?;
                Ok(r)
            },
        ),
        (
            "r = a.copy(); r[np.array([True, False, True, False])] = a[3]",
            |a| {
                let r = a.copy()?;
                let m = Array::from_slice(&[true, false, true, false], &[4])?;
                r.set(&[Index::Array(m)], &a.slice(&[SliceArg::Index(3)])?)?;
                Ok(r)
            },
        ),
        ("r = np.take(a, [7, -1, 19])", |a| {
            kp::take(
                a,
                &arr_i64(&[7, -1, 19], &[3]).into(),
                None,
                kp::TakeMode::Raise,
            )
        }),
        ("r = np.extract(a != 0, a)", |a| {
            kp::extract(&kp::not_equal(a, 0)?, a)
        }),
        ("r = np.compress([True, False, True], a, axis=0)", |a| {
            kp::compress(&Array::from_slice(&[true, false, true], &[3])?, a, Some(0))
        }),
        (
            "r = np.take_along_axis(a, np.array([[4], [0], [1], [2]]), axis=1)",
            |a| kp::take_along_axis(a, &arr_i64(&[4, 0, 1, 2], &[4, 1]), Some(1)),
        ),
        // Row gathers: rows of 20 elements (16-, 8- or 4-byte units by dtype), reversed,
        // strided outer axes, 2-d and int32 index arrays, a later axis.
        ("r = np.concatenate([a] * 4, axis=1)[np.array([3, 0, -2])]", |a| {
            wide(a)?.get(&[Index::Array(arr_i64(&[3, 0, -2], &[3]))])
        }),
        (
            "r = np.concatenate([a] * 4, axis=1)[::-1][np.array([[1, 2], [3, -4]], dtype=np.int32)]",
            |a| {
                let i = Array::from_slice(&[1i32, 2, 3, -4], &[2, 2])?;
                wide(a)?.slice(&kp::s![..;-1])?.get(&[Index::Array(i)])
            },
        ),
        (
            "r = np.concatenate([a] * 4, axis=1).reshape(4, 2, 10)[:, 1][np.array([2, 0])]",
            |a| {
                wide(a)?
                    .reshape(&[4, 2, 10])?
                    .slice(&kp::s![.., 1])?
                    .get(&[Index::Array(arr_i64(&[2, 0], &[2]))])
            },
        ),
        (
            "r = np.concatenate([a] * 4, axis=1)[1:, np.array([5, -1, 19])]",
            |a| {
                wide(a)?.get(&idx![1.., arr_i64(&[5, -1, 19], &[3])])
            },
        ),
        (
            "r = np.take(np.concatenate([a] * 4, axis=1).reshape(4, 5, 4), [3, 0], axis=1)",
            |a| {
                kp::take(
                    &wide(a)?.reshape(&[4, 5, 4])?,
                    &arr_i64(&[3, 0], &[2]).into(),
                    Some(1),
                    kp::TakeMode::Raise,
                )
            },
        ),
        ("r = a[:, 1:][np.array(2)]", |a| {
            a.slice(&kp::s![.., 1..])?
                .get(&[Index::Array(arr_i64(&[2], &[]))])
        }),
    ]
}

/// `a` (4 x 5) repeated into 4 x 20.
fn wide(a: &Array) -> kp::Result<Array> {
    kp::concatenate(&[a.clone(), a.clone(), a.clone(), a.clone()], Some(1), None)
}

const ORACLE: &str = r#"
import json, sys, os
import numpy as np
d = sys.argv[1]
m = json.load(open(os.path.join(d, "manifest.json")))
res = {}
for t in m["tests"]:
    a = np.frombuffer(open(os.path.join(d, t["file"]), "rb").read(), dtype=t["dtype"]).reshape(4, 5).copy()
    env = {"np": np, "a": a}
    try:
        exec(t["code"], env)
        r = np.ascontiguousarray(env["r"])
        out = os.path.join(d, t["id"] + ".out")
        open(out, "wb").write(r.astype(r.dtype.newbyteorder("<")).tobytes())
        res[t["id"]] = {"shape": list(r.shape), "dtype": str(r.dtype)}
    except Exception as e:
        res[t["id"]] = {"error": f"{type(e).__name__}: {e}"}
json.dump(res, open(os.path.join(d, "results.json"), "w"))
"#;

fn numpy_name(d: DType) -> &'static str {
    match d {
        DType::Bool => "bool",
        DType::I8 => "int8",
        DType::U8 => "uint8",
        DType::I16 => "int16",
        DType::U16 => "uint16",
        DType::I32 => "int32",
        DType::U32 => "uint32",
        DType::I64 => "int64",
        DType::U64 => "uint64",
        DType::F16 => "float16",
        DType::F32 => "float32",
        DType::F64 => "float64",
        DType::Complex64 => "complex64",
        DType::Complex128 => "complex128",
    }
}

/// kupfer's bytes in NumPy's layout (bool: one byte).
fn host_bytes(a: &Array) -> Vec<u8> {
    match a.to_host().unwrap().data {
        kp::HostData::Bool(v) => v.iter().map(|&b| u8::from(b)).collect(),
        kp::HostData::I32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        kp::HostData::U32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        kp::HostData::I8(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        kp::HostData::U8(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        kp::HostData::I16(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        kp::HostData::U16(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        kp::HostData::I64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        kp::HostData::U64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        kp::HostData::F16(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        kp::HostData::F32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        kp::HostData::F64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        kp::HostData::Complex64(v) => v
            .iter()
            .flat_map(|z| [z.re.to_le_bytes(), z.im.to_le_bytes()].concat())
            .collect(),
        kp::HostData::Complex128(v) => v
            .iter()
            .flat_map(|z| [z.re.to_le_bytes(), z.im.to_le_bytes()].concat())
            .collect(),
    }
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kupfer-indexing-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn api_matches_numpy_on_every_dtype() {
    let _shared = LAUNCH_COUNTS.read().unwrap_or_else(|p| p.into_inner());
    let dev = default_device();
    let dir = temp_dir("api");
    let cases = cases();
    let mut tests = Vec::new();
    let mut inputs = Vec::new();
    for (k, &dt) in dtypes(&dev).iter().enumerate() {
        // Small integers with zeros (masks select a part), in every dtype.
        let data: Vec<f64> = values(k as u64 + 1, 23, 20, dt, 0.0, 3.0)
            .iter()
            .map(|v| v.floor())
            .collect();
        let file = format!("in_{k}.bin");
        std::fs::write(dir.join(&file), raw_bytes(&data, dt)).unwrap();
        let a = common::upload(&data, dt, &[4, 5]);
        inputs.push((dt, a));
        for (c, (code, _)) in cases.iter().enumerate() {
            tests.push(json!({
                "id": format!("t{k}_{c}"), "file": file, "dtype": numpy_name(dt), "code": code,
            }));
        }
    }
    let res = common::run_oracle(&dir, &json!({ "tests": tests }), ORACLE);
    let mut failures = Vec::new();
    let mut total = 0;
    for (k, (dt, a)) in inputs.iter().enumerate() {
        for (c, (code, op)) in cases.iter().enumerate() {
            total += 1;
            let id = format!("t{k}_{c}");
            let want = &res[&id];
            match op(a) {
                Err(e) => {
                    if want.get("error").is_none() {
                        failures.push(format!("{dt} {code}: kupfer error {e}"));
                    }
                }
                Ok(got) => {
                    if let Some(e) = want.get("error") {
                        failures.push(format!("{dt} {code}: numpy raised {e}"));
                        continue;
                    }
                    let shape: Vec<usize> = want["shape"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|v| v.as_u64().unwrap() as usize)
                        .collect();
                    if got.shape() != shape.as_slice() {
                        failures.push(format!("{dt} {code}: shape {:?} vs {shape:?}", got.shape()));
                        continue;
                    }
                    // Index results: the default int where NumPy gives intp.
                    let want_dt = want["dtype"].as_str().unwrap();
                    if numpy_name(got.dtype()) != want_dt {
                        failures.push(format!("{dt} {code}: dtype {} vs {want_dt}", got.dtype()));
                        continue;
                    }
                    let bytes = std::fs::read(dir.join(format!("{id}.out"))).unwrap();
                    if host_bytes(&got) != bytes {
                        failures.push(format!("{dt} {code}: values differ"));
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    common::assert_no_failures(&failures, total);
}

/// A gather with an out-of-bounds device index fails at the next sync with NumPy's message
/// (the largest offending index), once; writes check before touching memory. Runs on a
/// device of its own: deferred checks are reported by the next sync of their device.
#[test]
fn out_of_bounds_gathers_fail_at_the_next_sync() {
    let _shared = LAUNCH_COUNTS.read().unwrap_or_else(|p| p.into_inner());
    default_device();
    let dev = kp::Device::new(kp::AdapterChoice::Default).expect("a GPU adapter");
    let on = |v: &[i64], shape: &[usize]| Array::from_slice_on(&dev, v, shape).unwrap();
    let values: Vec<f32> = (0..10).map(|v| v as f32).collect();
    let a = Array::from_slice_on(&dev, &values, &[10]).unwrap();
    let m = a.reshape(&[2, 5]).unwrap();
    let mut index_dtypes = vec![DType::I32, DType::U32];
    if dev.supports(DType::I64) {
        index_dtypes.push(DType::I64);
    }
    let msg = |v: &str, axis: usize, len: usize| {
        format!("index {v} is out of bounds for axis {axis} with size {len}")
    };
    for dt in index_dtypes {
        let idx = |v: &[i64], shape: &[usize]| on(v, shape).astype(dt).unwrap();
        if dt.is_signed_int() {
            // In-bounds negative indices wrap.
            let ok = a.get(&[Index::Array(idx(&[-1, -10], &[2]))]).unwrap();
            assert_eq!(ok.to_vec::<f32>().unwrap(), vec![9.0, 0.0], "{dt}");
        }
        let mut cases: Vec<(Vec<Index>, &Array, String)> = vec![
            (
                vec![Index::Array(idx(&[0, 12, 3], &[3]))],
                &a,
                msg("12", 0, 10),
            ),
            (
                vec![Index::Array(idx(&[10], &[1, 1]))],
                &a,
                msg("10", 0, 10),
            ),
            (vec![Index::Array(idx(&[1, 2], &[2]))], &m, msg("2", 0, 2)),
            (idx![.., idx(&[4, 5], &[2])].to_vec(), &m, msg("5", 1, 5)),
            (
                vec![
                    Index::Array(idx(&[0, 1], &[2])),
                    Index::Array(idx(&[0, 7], &[2])),
                ],
                &m,
                msg("7", 1, 5),
            ),
        ];
        if dt.is_signed_int() {
            cases.push((vec![Index::Array(idx(&[-11], &[1]))], &a, msg("-11", 0, 10)));
            cases.push((
                vec![Index::Array(idx(&[i32::MIN as i64], &[1]))],
                &a,
                msg(&i32::MIN.to_string(), 0, 10),
            ));
        }
        for (index, src, want) in cases {
            let r = src.get(&index).unwrap();
            let e = r.to_vec::<f32>().unwrap_err().to_string();
            assert!(e.contains(&want), "{dt}: {e} (wanted {want})");
            // Reported once: the next read succeeds.
            let next = a.get(&idx![vec![1i64]]).unwrap().to_vec::<f32>().unwrap();
            assert_eq!(next, vec![1.0]);
        }
    }
    // Far beyond 2^31 past the axis (int64): named without its clamped value.
    if dev.supports(DType::I64) {
        let _r = a.get(&[Index::Array(on(&[1 << 40], &[1]))]).unwrap();
        let e = dev.synchronize().unwrap_err().to_string();
        assert!(
            e.contains("an index is out of bounds for axis 0 with size 10"),
            "{e}"
        );
    }
    // Several pending gathers: the first failure is reported, then nothing.
    let i32s = |v: &[i64]| on(v, &[v.len()]).astype(DType::I32).unwrap();
    let _bad = a.get(&[Index::Array(i32s(&[3, 11]))]).unwrap();
    let good = a.get(&[Index::Array(i32s(&[3]))]).unwrap();
    let _worse = a.get(&[Index::Array(i32s(&[30]))]).unwrap();
    let e = good.to_vec::<f32>().unwrap_err().to_string();
    assert!(e.contains(&msg("11", 0, 10)), "{e}");
    dev.synchronize().unwrap();
    // A write raises before it writes anything.
    let b = a.copy().unwrap();
    let e = b
        .set(&[Index::Array(on(&[0, 10], &[2]))], 5.0)
        .unwrap_err()
        .to_string();
    assert!(e.contains(&msg("10", 0, 10)), "{e}");
    assert_eq!(b.to_vec::<f32>().unwrap(), values);
}

/// A pending gather's bounds error belongs to the thread that recorded it, even when another
/// thread runs its kernel: an assignment on any thread materialises every lazy reader of
/// what it writes (a pending gather counts as one), which once ran the gather there and
/// filed its error under that thread, so the recording thread's next sync saw nothing (the
/// flaky failure of `out_of_bounds_gathers_fail_at_the_next_sync` beside other tests).
#[test]
fn a_gather_run_by_another_thread_reports_to_the_thread_that_recorded_it() {
    let _shared = LAUNCH_COUNTS.read().unwrap_or_else(|p| p.into_inner());
    default_device();
    let dev = kp::Device::new(kp::AdapterChoice::Default).expect("a GPU adapter");
    let values: Vec<f32> = (0..10).map(|v| v as f32).collect();
    let a = Array::from_slice_on(&dev, &values, &[10]).unwrap();
    let index = Array::from_slice_on(&dev, &[3i32, 11], &[2]).unwrap();
    let bad = a.get(&[Index::Array(index)]).unwrap();
    assert!(bad.is_lazy(), "the gather waits for its first use");
    // Another thread writes into an array of its own: the write materialises every lazy
    // reader it might affect, this thread's pending gather included.
    std::thread::scope(|s| {
        s.spawn(|| {
            let other = Array::from_slice_on(&dev, &[1.0f32; 4], &[4]).unwrap();
            other
                .set(&[Index::Array(kp::greater(&other, 0.5).unwrap())], 2.0)
                .unwrap();
            assert_eq!(other.to_vec::<f32>().unwrap(), vec![2.0; 4]);
        })
        .join()
        .unwrap();
    });
    let e = dev.synchronize().unwrap_err().to_string();
    assert!(
        e.contains("index 11 is out of bounds for axis 0 with size 10"),
        "{e}"
    );
    // Reported once.
    dev.synchronize().unwrap();
    drop(bad);
}

#[test]
fn lazy_readers_keep_old_values_and_views_see_writes() {
    let _shared = LAUNCH_COUNTS.read().unwrap_or_else(|p| p.into_inner());
    default_device();
    let a = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4]).unwrap();
    let view = a.slice(&kp::s![1..]).unwrap();
    let before = &a * 10.0; // lazy, reads a
    let m = kp::greater(&a, 2.0).unwrap();
    a.set(&[Index::Array(m.clone())], 0.0).unwrap();
    assert_eq!(
        before.to_vec::<f32>().unwrap(),
        vec![10.0, 20.0, 30.0, 40.0]
    );
    assert_eq!(a.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 0.0, 0.0]);
    assert_eq!(view.to_vec::<f32>().unwrap(), vec![2.0, 0.0, 0.0]);
    // The mask was computed from the old values too.
    assert_eq!(m.to_vec::<bool>().unwrap(), vec![false, false, true, true]);
    // An update reading the array elsewhere sees the old values (a copy is taken).
    let b = Array::from_slice(&[1i32, 2, 3, 4, 5], &[5]).unwrap();
    b.set(&kp::idx![1..], b.slice(&kp::s![..4]).unwrap())
        .unwrap();
    assert_eq!(b.to_vec::<i32>().unwrap(), vec![1, 1, 2, 3, 4]);
}

#[test]
fn repeated_indices_last_write_wins_and_at_accumulates() {
    let _shared = LAUNCH_COUNTS.read().unwrap_or_else(|p| p.into_inner());
    default_device();
    let n = 5000;
    let idx: Vec<i64> = (0..n).map(|i| (i * 7919 % 13) as i64).collect();
    let vals: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let a = kp::zeros(&[13], Some(DType::F32)).unwrap();
    let iv = Array::from_slice(&idx, &[n]).unwrap();
    let vv = Array::from_slice(&vals, &[n]).unwrap();
    a.set(&[Index::Array(iv.clone())], &vv).unwrap();
    let mut want = vec![0.0f32; 13];
    for (i, &j) in idx.iter().enumerate() {
        want[j as usize] = vals[i];
    }
    assert_eq!(a.to_vec::<f32>().unwrap(), want);
    // np.add.at: every repeat counts (integers: exact).
    let c = kp::zeros(&[13], Some(DType::I32)).unwrap();
    kp::add_at(&c, &[Index::Array(iv)], 1).unwrap();
    let mut counts = vec![0i32; 13];
    for &j in &idx {
        counts[j as usize] += 1;
    }
    assert_eq!(c.to_vec::<i32>().unwrap(), counts);
    // int64 sums under contention: the carries of 5000 concurrent adds across the low word.
    if default_device().supports(DType::I64) {
        let big = kp::zeros(&[13], Some(DType::I64)).unwrap();
        let step = (1i64 << 32) - 3;
        kp::add_at(&big, &[Index::Array(iv_of(&idx))], step).unwrap();
        let want: Vec<i64> = counts.iter().map(|&c| c as i64 * step).collect();
        assert_eq!(big.to_vec::<i64>().unwrap(), want);
    }
    // float64 and int64 products have no 64-bit atomics: sorted runs, in NumPy's order.
    if default_device().supports(DType::F64) {
        let f = kp::ones(&[13], Some(DType::F64)).unwrap();
        let halves: Vec<f64> = (0..n).map(|i| 0.5 + (i % 3) as f64).collect();
        let hv = Array::from_slice(&halves, &[n]).unwrap();
        kp::add_at(&f, &[Index::Array(iv_of(&idx))], &hv).unwrap();
        let mut want = vec![1.0f64; 13];
        for (i, &j) in idx.iter().enumerate() {
            want[j as usize] += halves[i];
        }
        assert_eq!(f.to_vec::<f64>().unwrap(), want);
    }
    if default_device().supports(DType::I64) {
        let p = kp::ones(&[13], Some(DType::I64)).unwrap();
        let signs: Vec<i64> = (0..n).map(|i| if i % 7 == 0 { -3 } else { 1 }).collect();
        let sv = Array::from_slice(&signs, &[n]).unwrap();
        kp::ufunc_at(kp::AtOp::Multiply, &p, &[Index::Array(iv_of(&idx))], &sv).unwrap();
        let mut want = vec![1i64; 13];
        for (i, &j) in idx.iter().enumerate() {
            want[j as usize] = want[j as usize].wrapping_mul(signs[i]);
        }
        assert_eq!(p.to_vec::<i64>().unwrap(), want);
    }
}

fn iv_of(idx: &[i64]) -> Array {
    Array::from_slice(idx, &[idx.len()]).unwrap()
}

#[test]
fn masked_update_is_where_in_place() {
    let _shared = LAUNCH_COUNTS.read().unwrap_or_else(|p| p.into_inner());
    default_device();
    let z = Array::from_slice(&[0.5f32, 1.0, 2.0, -1.0], &[4]).unwrap();
    let c = Array::from_slice(&[0.25f32, 0.25, 0.25, 0.25], &[4]).unwrap();
    let mask = Array::from_slice(&[true, false, true, true], &[4]).unwrap();
    let alias = z.slice(&kp::s![..]).unwrap();
    z.update_masked(&mask, |m| Ok(&m.get(&z)? * &m.get(&z)? + &m.get(&c)?))
        .unwrap();
    assert_eq!(alias.to_vec::<f32>().unwrap(), vec![0.5, 1.0, 4.25, 1.25]);
    let wrong = Array::from_slice(&[true, false], &[2]).unwrap();
    let e = z.update_masked(&wrong, |m| m.get(&z)).unwrap_err();
    assert!(e.to_string().contains("boolean index did not match"), "{e}");
}

#[allow(dead_code)]
#[path = "../examples/mandelbrot.rs"]
mod mandelbrot_example;

const MANDEL_NUMPY: &str = r#"
import json, sys, os
import numpy as np
d = sys.argv[1]
m = json.load(open(os.path.join(d, "manifest.json")))
def mandelbrot_numpy(x_min, x_max, y_min, y_max, width, height, max_iter):
    x = np.linspace(x_min, x_max, width, dtype=np.float64)
    y = np.linspace(y_min, y_max, height, dtype=np.float64)
    X, Y = np.meshgrid(x, y, indexing="ij")
    C = X + 1j * Y
    Z = np.zeros_like(C, dtype=np.complex128)
    mat = np.zeros(C.shape, dtype=np.float64)
    mask = np.ones(C.shape, dtype=bool)
    for n in range(max_iter):
        Z[mask] = Z[mask] * Z[mask] + C[mask]
        escaped = np.abs(Z) > 2.0
        newly_escaped = escaped & mask
        if newly_escaped.any():
            z_new = Z[newly_escaped]
            mat[newly_escaped] = n + 1 - np.log(np.log(np.abs(z_new))) / np.log(2.0)
            mask[newly_escaped] = False
        if not mask.any():
            break
    return mat
r = mandelbrot_numpy(*m["args"])
open(os.path.join(d, "mat.bin"), "wb").write(r.astype("<f8").tobytes())
json.dump({"shape": list(r.shape)}, open(os.path.join(d, "results.json"), "w"))
"#;

#[test]
fn mandelbrot_matches_numpy() {
    let _shared = LAUNCH_COUNTS.read().unwrap_or_else(|p| p.into_inner());
    let dev = default_device();
    if !dev.supports(DType::F64) {
        panic!("the Mandelbrot port needs float64 (SHADER_F64), which this adapter lacks");
    }
    let dir = temp_dir("mandel");
    let (w, h, iters) = (48usize, 32usize, 40usize);
    let res = common::run_oracle(
        &dir,
        &json!({ "args": [-2.0, 1.0, -1.0, 1.0, w, h, iters] }),
        MANDEL_NUMPY,
    );
    assert_eq!(res["shape"], json!([w, h]));
    let want = common::read_f64(&dir.join("mat.bin"));
    let _ = std::fs::remove_dir_all(&dir);
    let got: Vec<f64> = mandelbrot_example::mandelbrot(-2.0, 1.0, -1.0, 1.0, w, h, iters)
        .unwrap()
        .to_vec()
        .unwrap();
    assert_eq!(got.len(), want.len());
    let mut escaped = 0;
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        // Escape counts are exact; the smooth part agrees to rounding.
        assert_eq!(*g == 0.0, *w == 0.0, "point {i}: {g} vs NumPy {w}");
        assert!(
            (g - w).abs() <= 1e-9 * w.abs().max(1.0),
            "point {i}: {g} vs NumPy {w}"
        );
        escaped += usize::from(*w != 0.0);
    }
    assert!(escaped > 100 && escaped < w * h, "{escaped} points escaped");
}

/// A gather inside an elementwise expression is one kernel (the expression is the gather's
/// epilogue), with NumPy's values; used on its own or shared, it runs as its own kernel.
#[test]
fn gathers_fuse_into_the_expression_around_them() {
    let _alone = LAUNCH_COUNTS.write().unwrap_or_else(|p| p.into_inner());
    let dev = default_device();
    let launches = || dev.context().dispatch_count();
    let x = Array::from_slice(
        &(0..50).map(|v| v as f32 * 0.5).collect::<Vec<_>>(),
        &[5, 10],
    )
    .unwrap();
    let y = Array::from_slice(&(0..30).map(|v| v as f32).collect::<Vec<_>>(), &[3, 10]).unwrap();
    let idx = Array::from_slice(&[4i32, -1, 0], &[3]).unwrap();
    x.eval().unwrap();
    y.eval().unwrap();
    idx.eval().unwrap();
    // x[idx] * 2 + y: one launch.
    let before = launches();
    let r = kp::add(
        kp::multiply(x.get(&[Index::Array(idx.clone())]).unwrap(), 2.0).unwrap(),
        &y,
    )
    .unwrap();
    r.eval().unwrap();
    assert_eq!(launches() - before, 1);
    let want: Vec<f32> = [4usize, 4, 0]
        .iter()
        .enumerate()
        .flat_map(|(i, &row)| {
            (0..10).map(move |c| (row * 10 + c) as f32 * 0.5 * 2.0 + (i * 10 + c) as f32)
        })
        .collect();
    assert_eq!(r.to_vec::<f32>().unwrap(), want);
    // take(x, i) + 1 over the flattened array, host list index: one launch.
    let before = launches();
    let t = kp::add(
        kp::take(
            &x,
            &Array::from_slice(&[49i64, 3, -50], &[3]).unwrap().into(),
            None,
            kp::TakeMode::Raise,
        )
        .unwrap(),
        1.0,
    )
    .unwrap();
    t.eval().unwrap();
    assert_eq!(launches() - before, 1);
    assert_eq!(t.to_vec::<f32>().unwrap(), vec![25.5, 2.5, 1.0]);
    // Shared: the gathered array stays readable and right.
    let g = x.get(&idx![vec![1i64, 1]]).unwrap();
    let s = kp::sqrt(&g).unwrap();
    assert_eq!(
        s.to_vec::<f32>().unwrap()[..2],
        [(5.0f32).sqrt(), (5.5f32).sqrt()]
    );
    assert_eq!(g.to_vec::<f32>().unwrap()[0], 5.0);
    // np.roll(x, 7, axis=1) + 1 and np.flip(x) + x: one launch each.
    let before = launches();
    let rolled = kp::add(kp::roll(&x, &[7], Some(&[1])).unwrap(), 1.0).unwrap();
    rolled.eval().unwrap();
    assert_eq!(launches() - before, 1);
    let want: Vec<f32> = (0..50)
        .map(|i| ((i / 10) * 10 + (i % 10 + 3) % 10) as f32 * 0.5 + 1.0)
        .collect();
    assert_eq!(rolled.to_vec::<f32>().unwrap(), want);
    let before = launches();
    let flipped = kp::add(kp::flip(&x, None).unwrap(), &x).unwrap();
    flipped.eval().unwrap();
    assert_eq!(launches() - before, 1);
    assert_eq!(flipped.to_vec::<f32>().unwrap(), vec![24.5f32; 50]);
    // A roll used alone runs its own kernel, with the same values.
    let alone = kp::roll(&x, &[-13], None).unwrap();
    let want: Vec<f32> = (0..50).map(|i| ((i + 13) % 50) as f32 * 0.5).collect();
    assert_eq!(alone.to_vec::<f32>().unwrap(), want);
    // An out-of-bounds device index inside a fused expression fails at the next sync.
    let bad = Array::from_slice(&[0i32, 7], &[2]).unwrap();
    let f = kp::multiply(x.get(&[Index::Array(bad)]).unwrap(), 2.0).unwrap();
    let e = f.to_vec::<f32>().unwrap_err().to_string();
    assert!(
        e.contains("index 7 is out of bounds for axis 0 with size 5"),
        "{e}"
    );
}

/// The one-element gather (`x[idx]`, several elements per thread by default) and the
/// compaction (`x[mask]`, `nonzero`: blocks sized by the input, offsets summed in the write
/// pass for few blocks) give the same values under every kernel setting
/// (`KUPFER_GATHER_ITEMS`, `KUPFER_COMPACT=old`), at sizes that leave partial strides and
/// blocks, and an out-of-bounds index in any item is still reported with its value.
/// (Values are copied, so the host's gather and filter are NumPy's results exactly.)
#[test]
fn gathers_and_compactions_agree_across_kernel_settings() {
    let _shared = LAUNCH_COUNTS.read().unwrap_or_else(|p| p.into_inner());
    let base = default_device();
    let mut settings = Vec::new();
    for (items, direct, take) in [
        (1u32, true, ""),
        (2, true, ""),
        (4, true, ""),
        (8, true, ""),
        (4, false, ""),
        // `KUPFER_TAKE`'s variants: consecutive elements per thread, workgroup sizes.
        (4, true, "contig"),
        (8, true, "contig,wg64"),
        (2, true, "contig,wg1024"),
        (1, true, "wg128"),
        (4, true, "wg512"),
        (8, true, "strided,wg64"),
    ] {
        let mut config = base.config().clone();
        config.indexing.gather_items = items;
        config.indexing.direct_compaction = direct;
        config.indexing.apply_take(take);
        settings.push((
            format!("items {items} direct {direct} take {take}"),
            base.with_config(config),
        ));
    }
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for n in [1usize, 3, 4, 5, 1000, 8192, 8193, 70_001, 300_001] {
        let values: Vec<f32> = (0..n).map(|_| (next() % 1000) as f32 / 1000.0).collect();
        let index: Vec<i32> = (0..n)
            .map(|_| (next() % (2 * n as u64)) as i32 - n as i32)
            .collect();
        let gathered: Vec<f32> = index
            .iter()
            .map(|&i| values[if i < 0 { i + n as i32 } else { i } as usize])
            .collect();
        let kept: Vec<f32> = values.iter().copied().filter(|&v| v > 0.5).collect();
        let where_kept: Vec<i64> = (0..n as i64)
            .filter(|&i| values[i as usize] > 0.5)
            .collect();
        for (what, dev) in &settings {
            let x = Array::from_slice_on(dev, &values, &[n]).unwrap();
            let i = Array::from_slice_on(dev, &index, &[n]).unwrap();
            let got = x
                .get(&[Index::Array(i.clone())])
                .unwrap()
                .to_vec::<f32>()
                .unwrap();
            assert!(got == gathered, "{what} n={n}: gather");
            let got = kp::take(&x, &i.clone().into(), None, kp::TakeMode::Raise)
                .unwrap()
                .to_vec::<f32>()
                .unwrap();
            assert!(got == gathered, "{what} n={n}: take");
            let mask = kp::greater(&x, 0.5).unwrap();
            let got = x.get(&[Index::Array(mask.clone())]).unwrap();
            assert!(
                got.to_vec::<f32>().unwrap() == kept,
                "{what} n={n}: x[mask]"
            );
            let nz = kp::nonzero(&mask).unwrap();
            assert_eq!(nz.len(), 1);
            assert_eq!(nz[0].dtype(), dev.default_int(), "{what}");
            let got = nz[0].astype(DType::I64).unwrap().to_vec::<i64>().unwrap();
            assert!(got == where_kept, "{what} n={n}: nonzero");
            // A bad index in the last element (the last item of some thread) is reported.
            if n >= 3 {
                let mut bad = index.clone();
                bad[n - 1] = n as i32 + 2;
                let bad = Array::from_slice_on(dev, &bad, &[n]).unwrap();
                let e = x
                    .get(&[Index::Array(bad)])
                    .unwrap()
                    .to_vec::<f32>()
                    .unwrap_err()
                    .to_string();
                let want = format!("index {} is out of bounds for axis 0 with size {n}", n + 2);
                assert!(e.contains(&want), "{what}: {e}");
            }
        }
    }
}

/// `nonzero` of a 1-D mask is one launch up to 8192 elements (one block: the write pass) and
/// two above (count, write: the write pass sums the earlier blocks' counts, and writes the
/// int64 indices itself), plus the read-back of the count.
#[test]
fn nonzero_launches_once_or_twice() {
    let _alone = LAUNCH_COUNTS.write().unwrap_or_else(|p| p.into_inner());
    let base = default_device();
    let mut config = base.config().clone();
    config.indexing.direct_compaction = true;
    let dev = base.with_config(config);
    for (n, want) in [(5000usize, 1u64), (8192, 1), (100_000, 2)] {
        let values: Vec<f32> = (0..n)
            .map(|i| ((i * 7919) % 1000) as f32 / 1000.0)
            .collect();
        let x = Array::from_slice_on(&dev, &values, &[n]).unwrap();
        x.eval().unwrap();
        let before = dev.context().dispatch_count();
        let nz = kp::nonzero(&kp::greater(&x, 0.5).unwrap()).unwrap();
        assert_eq!(dev.context().dispatch_count() - before, want, "n={n}");
        let want_ix: Vec<i64> = (0..n as i64)
            .filter(|&i| values[i as usize] > 0.5)
            .collect();
        let got = nz[0].astype(DType::I64).unwrap().to_vec::<i64>().unwrap();
        assert!(got == want_ix, "n={n}");
    }
}
