//! The uint64 dtype through the Rust API, exact to the last bit: values above 2^63 and near
//! 2^64 - 1 go up and come back unchanged, elementwise arithmetic wraps as Rust's `wrapping_*`
//! (NumPy's modular arithmetic), comparisons with int64 are exact, reductions and scans wrap,
//! and sorts (both global engines and the row sort) order keys straddling 2^63 as Rust's sort
//! does. Contiguous, strided, reversed, empty and 0-d arrays. Fails, never skips, without an
//! adapter; NumPy itself is the oracle of `crates/kupfer-eval/tests/eval_uint64.rs`.

mod common;

use kupfer::{self as kp, Array, DType, Error, HostData};

/// Deterministic values over the whole uint64 range, with the edges mixed in.
fn values(n: usize, seed: u64) -> Vec<u64> {
    let mut rng = common::Rng(seed);
    let edges = [
        0,
        1,
        u64::MAX,
        u64::MAX - 1,
        1 << 63,
        (1 << 63) - 1,
        (1 << 63) + 1,
    ];
    (0..n)
        .map(|i| {
            let r = (rng.next() << 33) ^ (rng.next() << 11) ^ rng.next();
            if i % 11 == 0 {
                edges[(r % edges.len() as u64) as usize]
            } else {
                r
            }
        })
        .collect()
}

fn upload(v: &[u64]) -> Array {
    Array::from_slice(v, &[v.len()]).expect("upload")
}

fn download(a: &Array) -> Vec<u64> {
    assert_eq!(a.dtype(), DType::U64);
    a.to_vec::<u64>().expect("download")
}

#[test]
fn uint64_round_trips_exactly_through_views() {
    let _dev = common::default_device();
    let v = values(1001, 1);
    let a = upload(&v);
    assert_eq!(download(&a), v);
    assert_eq!(a.to_host().unwrap().data, HostData::U64(v.clone()));
    // strided and reversed views, copied and through an elementwise kernel
    let view = a.slice(&kp::s![..;-1]).unwrap();
    let want: Vec<u64> = v.iter().rev().copied().collect();
    assert_eq!(download(&view.ascontiguousarray().unwrap()), want);
    let view = a.slice(&kp::s![1..;3]).unwrap();
    let want: Vec<u64> = v[1..]
        .iter()
        .step_by(3)
        .map(|x| x.wrapping_add(7))
        .collect();
    assert_eq!(download(&kp::add(&view, 7).unwrap()), want);
    // 0-d and empty
    let z = Array::from_slice(&[u64::MAX], &[]).unwrap();
    assert_eq!(download(&kp::add(&z, &z).unwrap()), vec![u64::MAX - 1]);
    let e = Array::from_slice::<u64>(&[], &[0, 3]).unwrap();
    assert_eq!(kp::multiply(&e, 2).unwrap().shape(), &[0, 3]);
    assert_eq!(
        download(&kp::sum(&e, kp::Axis::All, false).unwrap()),
        vec![0]
    );
}

#[test]
fn uint64_arithmetic_wraps_as_rust() {
    let _dev = common::default_device();
    let x = values(777, 2);
    let y = values(777, 3);
    let (a, b) = (upload(&x), upload(&y));
    type Op = fn(u64, u64) -> u64;
    let cases: [(&str, kp::Result<Array>, Op); 9] = [
        ("add", kp::add(&a, &b), |p, q| p.wrapping_add(q)),
        ("subtract", kp::subtract(&a, &b), |p, q| p.wrapping_sub(q)),
        ("multiply", kp::multiply(&a, &b), |p, q| p.wrapping_mul(q)),
        ("floor_divide", kp::floor_divide(&a, &b), |p, q| {
            p.checked_div(q).unwrap_or(0)
        }),
        ("remainder", kp::remainder(&a, &b), |p, q| {
            p.checked_rem(q).unwrap_or(0)
        }),
        ("bitwise_xor", kp::bitwise_xor(&a, &b), |p, q| p ^ q),
        ("right_shift", kp::right_shift(&a, 13), |p, _| p >> 13),
        ("left_shift", kp::left_shift(&a, 63), |p, _| p << 63),
        ("maximum", kp::maximum(&a, &b), |p, q| p.max(q)),
    ];
    for (name, got, op) in cases {
        let want: Vec<u64> = x.iter().zip(&y).map(|(&p, &q)| op(p, q)).collect();
        assert_eq!(download(&got.unwrap()), want, "{name}");
    }
    let neg: Vec<u64> = x.iter().map(|p| p.wrapping_neg()).collect();
    assert_eq!(download(&kp::negative(&a).unwrap()), neg);
    let pow: Vec<u64> = x.iter().map(|p| p.wrapping_pow(5)).collect();
    assert_eq!(download(&kp::power(&a, 5).unwrap()), pow);
    let count = kp::bitwise_count(&a).unwrap();
    assert_eq!(count.dtype(), DType::U8);
    let want: Vec<u8> = x.iter().map(|p| p.count_ones() as u8).collect();
    assert_eq!(count.to_vec::<u8>().unwrap(), want);
}

#[test]
fn uint64_comparisons_with_int64_are_exact() {
    let _dev = common::default_device();
    let x = values(500, 4);
    let s: Vec<i64> = values(500, 5)
        .iter()
        .enumerate()
        .map(|(i, &v)| if i % 3 == 0 { x[i] as i64 } else { v as i64 })
        .collect();
    let (a, b) = (upload(&x), Array::from_slice(&s, &[s.len()]).unwrap());
    let exact = |p: u64, q: i64| (p as i128).cmp(&(q as i128));
    for (name, got, want) in [
        (
            "less",
            kp::less(&a, &b),
            std::cmp::Ordering::is_lt as fn(_) -> _,
        ),
        ("equal", kp::equal(&a, &b), std::cmp::Ordering::is_eq),
        (
            "greater_equal",
            kp::greater_equal(&a, &b),
            std::cmp::Ordering::is_ge,
        ),
        (
            "greater (mirrored)",
            kp::less(&b, &a),
            std::cmp::Ordering::is_gt,
        ),
    ] {
        let got = got.unwrap().to_vec::<bool>().unwrap();
        let want: Vec<bool> = x.iter().zip(&s).map(|(&p, &q)| want(exact(p, q))).collect();
        assert_eq!(got, want, "{name}");
    }
    // NumPy's common dtype of uint64 and int64 is float64.
    assert_eq!(kp::add(&a, &b).unwrap().dtype(), DType::F64);
}

#[test]
fn uint64_reductions_and_scans_wrap() {
    let _dev = common::default_device();
    let x = values(3001, 6);
    let a = upload(&x);
    let sum = x.iter().fold(0u64, |s, &v| s.wrapping_add(v));
    assert_eq!(
        download(&kp::sum(&a, kp::Axis::All, false).unwrap()),
        vec![sum]
    );
    let max = *x.iter().max().unwrap();
    let min = *x.iter().min().unwrap();
    assert_eq!(
        download(&kp::max(&a, kp::Axis::All, false).unwrap()),
        vec![max]
    );
    assert_eq!(
        download(&kp::min(&a, kp::Axis::All, false).unwrap()),
        vec![min]
    );
    let first = |m: u64| x.iter().position(|&v| v == m).unwrap() as i64;
    let arg = |r: kp::Result<Array>| r.unwrap().astype(DType::I64).unwrap().to_vec::<i64>();
    assert_eq!(arg(kp::argmax(&a, None, false)).unwrap(), vec![first(max)]);
    assert_eq!(arg(kp::argmin(&a, None, false)).unwrap(), vec![first(min)]);
    let scan: Vec<u64> = x
        .iter()
        .scan(0u64, |s, &v| {
            *s = s.wrapping_add(v);
            Some(*s)
        })
        .collect();
    assert_eq!(download(&kp::cumsum(&a, None, None).unwrap()), scan);
    // rows: a (3, 1000) view reduced along its last axis
    let m = a
        .slice(&kp::s![..3000])
        .unwrap()
        .reshape(&[3, 1000])
        .unwrap();
    let rows = download(&kp::max(&m, kp::Axis::from(1), false).unwrap());
    let want: Vec<u64> = x[..3000]
        .chunks(1000)
        .map(|c| *c.iter().max().unwrap())
        .collect();
    assert_eq!(rows, want);
    let mean = kp::mean(&a, kp::Axis::All, false).unwrap();
    assert_eq!(mean.dtype(), DType::F64);
}

#[test]
fn uint64_sorts_straddle_two_to_the_63() {
    let dev = common::default_device();
    for n in [1000usize, 9000, 70001] {
        let x = values(n, 7 + n as u64);
        let mut want = x.clone();
        want.sort_unstable();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&i| x[i]);
        for engine in [kp::SortEngine::Onesweep, kp::SortEngine::Portable] {
            let mut config = dev.config().clone();
            config.sort.engine = engine;
            let d = dev.with_config(config);
            let _on = d.use_device();
            let a = Array::from_slice_on(&d, &x, &[n]).unwrap();
            assert_eq!(
                download(&kp::sort(&a, Some(-1), None).unwrap()),
                want,
                "{engine:?} n={n}"
            );
            let idx = kp::argsort(&a, Some(-1), Some("stable"))
                .unwrap()
                .astype(DType::I64)
                .unwrap()
                .to_vec::<i64>()
                .unwrap();
            let idx: Vec<usize> = idx.iter().map(|&i| i as usize).collect();
            assert_eq!(idx, order, "{engine:?} argsort n={n}");
        }
    }
    // unique and searchsorted of keys on both sides of 2^63
    let x: Vec<u64> = values(5000, 9)
        .iter()
        .map(|v| v % 7 + (1 << 63) - 3)
        .collect();
    let a = upload(&x);
    let mut distinct = x.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let u = kp::unique(&a, false, false, false, true).unwrap();
    assert_eq!(download(&u.values), distinct);
    let probe = upload(&[0, (1 << 63) - 1, 1 << 63, u64::MAX]);
    let pos = kp::searchsorted(&u.values, &probe, kp::sort::Side::Left, None)
        .unwrap()
        .astype(DType::I64)
        .unwrap()
        .to_vec::<i64>()
        .unwrap();
    let want: Vec<i64> = [0, (1u64 << 63) - 1, 1 << 63, u64::MAX]
        .iter()
        .map(|p| distinct.partition_point(|v| v < p) as i64)
        .collect();
    assert_eq!(pos, want);
}

#[test]
fn uint64_index_arrays_and_random_integers() {
    let _dev = common::default_device();
    let data: Vec<f32> = (0..100).map(|i| i as f32 * 0.5).collect();
    let a = Array::from_slice(&data, &[100]).unwrap();
    let idx = upload(&[99, 0, 42, 42]);
    let got = kp::take(&a, &idx.into(), None, kp::TakeMode::Raise)
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    assert_eq!(got, vec![49.5, 0.0, 21.0, 21.0]);
    let bad = upload(&[100]);
    assert!(kp::take(&a, &bad.into(), None, kp::TakeMode::Raise)
        .and_then(|t| t.to_vec::<f32>())
        .is_err());
    let rng = kp::random::default_rng(Some(7));
    let r = rng
        .integers_broadcast(
            kp::Scalar::Int(1 << 62).into(),
            Some(kp::Scalar::Int((1 << 62) + 1000).into()),
            Some(&[4096]),
            Some(DType::U64),
            false,
        )
        .unwrap();
    let v = download(&r);
    assert!(v
        .iter()
        .all(|&x| ((1 << 62)..(1 << 62) + 1000).contains(&x)));
    assert!(v.iter().any(|&x| x != v[0]));
    match rng.integers_broadcast(
        kp::Scalar::Int(-1).into(),
        Some(kp::Scalar::Int(5).into()),
        None,
        Some(DType::U64),
        false,
    ) {
        Err(Error::InvalidArgument(m)) => assert!(m.contains("uint64"), "{m}"),
        other => panic!("a negative low for uint64: {other:?}"),
    }
}
