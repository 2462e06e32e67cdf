//! Packed storage of the small integers (int8/uint8 four to a 32-bit word, int16/uint16 two):
//! the device bytes an array takes, host round trips of views at every offset within a word
//! and reversed, `item`, `.npy` files written and read by NumPy itself, random integers of
//! uint8 and an in-place shuffle of a packed array. (Programs over every family, with NumPy as
//! the oracle, are in crates/kupfer-eval/tests/eval_packed.rs and eval_small_ints.rs.)

mod common;

use common::default_device;
use kupfer as kp;
use kupfer::{s, Array, DType, HostData};
use std::process::Command;

fn python(script: &str) -> String {
    let out = Command::new("python3")
        .args(["-c", script])
        .output()
        .expect("python3 with numpy");
    assert!(
        out.status.success(),
        "python failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

fn u8_values(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 37 % 256) as u8).collect()
}

fn i16_values(n: usize) -> Vec<i16> {
    (0..n).map(|i| (i * 4099 % 65536) as u16 as i16).collect()
}

#[test]
fn small_integers_take_one_or_two_bytes_on_the_device() {
    let _d = default_device();
    for n in [1usize, 3, 4, 5, 1001] {
        let a = Array::from_slice(&u8_values(n), &[n]).unwrap();
        assert_eq!(a.device_nbytes().unwrap(), n.div_ceil(4) * 4, "uint8 n={n}");
        let b = Array::from_slice(&i16_values(n), &[n]).unwrap();
        assert_eq!(b.device_nbytes().unwrap(), n.div_ceil(2) * 4, "int16 n={n}");
        let i8s: Vec<i8> = u8_values(n).iter().map(|&x| x as i8).collect();
        let c = Array::from_slice(&i8s, &[n]).unwrap();
        assert_eq!(c.device_nbytes().unwrap(), n.div_ceil(4) * 4, "int8 n={n}");
    }
    // Results of elementwise expressions are packed once materialised.
    let a = Array::from_slice(&u8_values(1001), &[1001]).unwrap();
    let sum = kp::add(&a, &a).unwrap();
    sum.eval().unwrap();
    assert_eq!(sum.device_nbytes().unwrap(), 1004);
    let c = a.astype(DType::U16).unwrap();
    assert_eq!(c.device_nbytes().unwrap(), 2004);
    // A multiple of 4 elements: the vector kernel writes whole packed words itself.
    for n in [1004usize, 4096] {
        let h = u8_values(n);
        let a = Array::from_slice(&h, &[n]).unwrap();
        let b = kp::multiply(&a, &a).unwrap();
        b.eval().unwrap();
        assert_eq!(b.device_nbytes().unwrap(), n);
        let want: Vec<u8> = h.iter().map(|x| x.wrapping_mul(*x)).collect();
        assert_eq!(b.to_vec::<u8>().unwrap(), want);
        let h16 = i16_values(n);
        let c = Array::from_slice(&h16, &[n]).unwrap();
        let d = kp::add(&c, &c).unwrap();
        d.eval().unwrap();
        assert_eq!(d.device_nbytes().unwrap(), 2 * n);
        let want: Vec<i16> = h16.iter().map(|x| x.wrapping_add(*x)).collect();
        assert_eq!(d.to_vec::<i16>().unwrap(), want);
    }
    // bool stays one word per element.
    let m = kp::greater(&a, 100i64).unwrap();
    assert_eq!(m.device_nbytes().unwrap(), 4004);
}

#[test]
fn views_at_every_offset_in_a_word_read_back_exactly() {
    let _d = default_device();
    let n = 1003;
    let host = u8_values(n);
    let a = Array::from_slice(&host, &[n]).unwrap();
    for k in 0..4 {
        let v = a.slice(&s![k..]).unwrap();
        assert_eq!(v.to_vec::<u8>().unwrap(), host[k..], "a[{k}:]");
        let v = a.slice(&s![k..;3]).unwrap();
        let want: Vec<u8> = host[k..].iter().step_by(3).copied().collect();
        assert_eq!(v.to_vec::<u8>().unwrap(), want, "a[{k}::3]");
        let v = a.slice(&s![..n - k;-1]).unwrap();
        let want: Vec<u8> = host[..n - k].iter().rev().copied().collect();
        assert_eq!(v.to_vec::<u8>().unwrap(), want, "a[:n - {k}][::-1]");
        let h = a.slice(&s![k..k + 5]).unwrap().to_host().unwrap();
        assert_eq!(h.data, HostData::U8(host[k..k + 5].to_vec()));
        let one = a.slice(&s![k..k + 1]).unwrap();
        assert_eq!(one.item().unwrap(), kp::Scalar::Int(i64::from(host[k])));
    }
    let host16 = i16_values(n);
    let b = Array::from_slice(&host16, &[n]).unwrap();
    for k in 0..2 {
        let v = b.slice(&s![k..;-1]).unwrap();
        // ndarray's slice syntax: the range k.. walked backwards.
        let want: Vec<i16> = host16[k..].iter().rev().copied().collect();
        assert_eq!(v.to_vec::<i16>().unwrap(), want, "b[{k}:][::-1]");
        let v = b.slice(&s![k..]).unwrap();
        assert_eq!(v.to_vec::<i16>().unwrap(), host16[k..], "b[{k}:]");
    }
    for n in [0usize, 1, 2, 3] {
        let a = Array::from_slice(&u8_values(n), &[n]).unwrap();
        assert_eq!(a.to_vec::<u8>().unwrap(), u8_values(n));
    }
}

#[test]
fn npy_files_round_trip_through_numpy() {
    let _d = default_device();
    let dir = std::env::temp_dir().join(format!("kupfer-packed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let from_numpy = dir.join("from_numpy.npy");
    let from_kupfer = dir.join("from_kupfer.npy");
    for dtype in ["uint8", "int8", "uint16", "int16"] {
        python(&format!(
            "import numpy as np; np.save(r'{}', (np.arange(1001) * 37 % 65536 - 300).astype(np.{dtype}).reshape(7, 143))",
            from_numpy.display()
        ));
        let a = kp::io::load(&from_numpy).unwrap();
        assert_eq!(a.dtype(), DType::from_name(dtype).unwrap());
        assert_eq!(
            a.device_nbytes().unwrap(),
            (1001 * a.dtype().host_size()).div_ceil(4) * 4
        );
        // A view at an odd offset with a negative stride (ndarray's slice syntax: columns 3..
        // walked backwards), saved and checked by NumPy.
        let v = a.slice(&s![1..;2, 3..;-1]).unwrap();
        kp::io::save(&from_kupfer, &v).unwrap();
        let verdict = python(&format!(
            "import numpy as np; a = np.load(r'{}'); b = np.load(r'{}'); \
             print(b.dtype == a.dtype and np.array_equal(b, a[1::2, 3:][:, ::-1]))",
            from_numpy.display(),
            from_kupfer.display()
        ));
        assert_eq!(verdict.trim(), "True", "{dtype}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn random_uint8_and_in_place_shuffle_of_packed_arrays() {
    let _d = default_device();
    let rng = kp::random::default_rng(Some(3));
    let x = rng
        .integers(0, Some(256), &[1001], Some(DType::U8), false)
        .unwrap();
    assert_eq!(x.dtype(), DType::U8);
    let v = x.to_vec::<u8>().unwrap();
    assert_eq!(v.len(), 1001);
    // 1001 draws over 256 values: every high and low value is reached with near certainty.
    assert!(v.iter().any(|&b| b >= 250) && v.iter().any(|&b| b <= 5));
    let host = u8_values(1003);
    let a = Array::from_slice(&host, &[1003]).unwrap();
    let tail = a.slice(&s![3..]).unwrap();
    rng.shuffle(&tail, 0).unwrap();
    let got = a.to_vec::<u8>().unwrap();
    assert_eq!(
        got[..3],
        host[..3],
        "the elements before the view are untouched"
    );
    let (mut g, mut w) = (got[3..].to_vec(), host[3..].to_vec());
    g.sort_unstable();
    w.sort_unstable();
    assert_eq!(g, w, "a permutation of the view");
    assert_ne!(got[3..], host[3..]);
}

#[test]
fn custom_kernels_and_fused_closures_read_packed_views() {
    let _d = default_device();
    let host = u8_values(1003);
    let a = Array::from_slice(&host, &[1003]).unwrap();
    let k =
        kp::ElementwiseKernel::new("uint8 x", "uint8 y", "y = x * 3u + 1u;", "packed_k").unwrap();
    let f = kp::fuse(|x: &Array| x * 3i64 + 1i64);
    for k0 in 1..4 {
        let v = a.slice(&s![k0..]).unwrap();
        let want: Vec<u8> = host[k0..]
            .iter()
            .map(|x| x.wrapping_mul(3).wrapping_add(1))
            .collect();
        let got = k.call(kp::args![&v]).unwrap();
        assert_eq!(got.dtype(), DType::U8);
        assert_eq!(got.to_vec::<u8>().unwrap(), want, "kernel on a[{k0}:]");
        let got = f.call(&[&v]).unwrap();
        assert_eq!(got.to_vec::<u8>().unwrap(), want, "fuse on a[{k0}:]");
    }
}

/// `ufunc.at` updates packed storage in place (it stays packed): every thread of one kernel
/// updates an element of the same few words, with repeated indices, and the sums wrap as
/// Rust's wrapping arithmetic does.
#[test]
fn ufunc_at_updates_packed_words_in_place() {
    let _d = default_device();
    for n in [1003usize, 1004] {
        let h = u8_values(n);
        let a = Array::from_slice(&h, &[n]).unwrap();
        // 4n updates: element i % 8 gets every i; all eight share two words.
        let idx: Vec<i64> = (0..4 * n as i64).map(|i| i % 8).collect();
        let vals: Vec<u8> = (0..4 * n).map(|i| (i * 7 % 256) as u8).collect();
        let v = Array::from_slice(&vals, &[4 * n]).unwrap();
        kp::ufunc_at(kp::AtOp::Add, &a, &kp::idx![idx.clone()], &v).unwrap();
        assert_eq!(a.device_nbytes().unwrap(), n.div_ceil(4) * 4);
        let mut want = h.clone();
        for (i, &x) in idx.iter().zip(&vals) {
            want[*i as usize] = want[*i as usize].wrapping_add(x);
        }
        assert_eq!(a.to_vec::<u8>().unwrap(), want, "uint8 add n={n}");

        let h16 = i16_values(n);
        let b = Array::from_slice(&h16, &[n]).unwrap();
        let view = b.slice(&s![1..;2]).unwrap();
        let idx: Vec<i64> = (0..2 * n as i64).map(|i| i % 5 - 2).collect();
        kp::ufunc_at(kp::AtOp::Multiply, &view, &kp::idx![idx.clone()], 3).unwrap();
        assert_eq!(b.device_nbytes().unwrap(), n.div_ceil(2) * 4);
        let mut want = h16.clone();
        let len = (n - 1).div_ceil(2) as i64;
        for i in idx {
            let at = 1 + 2 * i.rem_euclid(len) as usize;
            want[at] = want[at].wrapping_mul(3);
        }
        assert_eq!(b.to_vec::<i16>().unwrap(), want, "int16 multiply n={n}");
    }
}

/// Families that only read an array leave its storage packed (they read an unpacked copy),
/// and give NumPy's values.
#[test]
fn reading_families_leave_packed_storage_packed() {
    let _d = default_device();
    let n = 1003usize;
    let h = u8_values(n);
    let a = Array::from_slice(&h, &[n]).unwrap();
    let packed = |what: &str| assert_eq!(a.device_nbytes().unwrap(), 1004, "after {what}");
    let mut sorted = h.clone();
    sorted.sort();
    assert_eq!(
        kp::sort(&a, Some(-1), None)
            .unwrap()
            .to_vec::<u8>()
            .unwrap(),
        sorted
    );
    packed("sort");
    let order = kp::argsort(&a, Some(-1), Some("stable")).unwrap();
    let order: Vec<i64> = order.to_vec::<i64>().unwrap();
    let mut want: Vec<i64> = (0..n as i64).collect();
    want.sort_by_key(|&i| h[i as usize]);
    assert_eq!(order, want);
    packed("argsort");
    let idx = Array::from_slice(&[5i64, 0, 1002, 3, 3], &[5]).unwrap();
    let t = kp::take(&a, &(&idx).into(), None, kp::TakeMode::Raise).unwrap();
    assert_eq!(
        t.to_vec::<u8>().unwrap(),
        vec![h[5], h[0], h[1002], h[3], h[3]]
    );
    packed("take");
    let g = a.get(&kp::idx![vec![7i64, -1, 2]]).unwrap();
    assert_eq!(g.to_vec::<u8>().unwrap(), vec![h[7], h[1002], h[2]]);
    packed("fancy indexing");
    let v = a.slice(&s![1..]).unwrap();
    let c = kp::concatenate(&[v.clone(), a.clone()], None, None).unwrap();
    let want: Vec<u8> = h[1..].iter().chain(&h).copied().collect();
    assert_eq!(c.to_vec::<u8>().unwrap(), want);
    packed("concatenate");
    let f = kp::flip(&v, None).unwrap();
    let want: Vec<u8> = h[1..].iter().rev().copied().collect();
    assert_eq!(f.to_vec::<u8>().unwrap(), want);
    packed("flip");
    let m = a.slice(&s![1..13]).unwrap().reshape(&[3, 4]).unwrap();
    let mt = a.slice(&s![2..14]).unwrap().reshape(&[4, 3]).unwrap();
    let p = kp::matmul(&m, &mt).unwrap().to_vec::<u8>().unwrap();
    let mut want = vec![0u8; 9];
    for i in 0..3 {
        for j in 0..3 {
            for k in 0..4 {
                want[i * 3 + j] =
                    want[i * 3 + j].wrapping_add(h[1 + i * 4 + k].wrapping_mul(h[2 + k * 3 + j]));
            }
        }
    }
    assert_eq!(p, want);
    packed("matmul");
    let mx = kp::max(&v, kp::Axis::All, false)
        .unwrap()
        .to_vec::<u8>()
        .unwrap();
    assert_eq!(mx, vec![*h[1..].iter().max().unwrap()]);
    let total = kp::sum(&a, kp::Axis::All, false)
        .unwrap()
        .to_vec::<u32>()
        .unwrap();
    assert_eq!(total, vec![h.iter().map(|&x| x as u32).sum::<u32>()]);
    packed("reductions");
    let cs = kp::cumsum(&v, None, Some(DType::U8))
        .unwrap()
        .to_vec::<u8>()
        .unwrap();
    let mut acc = 0u8;
    let want: Vec<u8> = h[1..]
        .iter()
        .map(|&x| {
            acc = acc.wrapping_add(x);
            acc
        })
        .collect();
    assert_eq!(cs, want);
    packed("cumsum");
    let u = kp::bincount(&a, None, 0).unwrap().to_vec::<i64>().unwrap();
    assert_eq!(u.iter().sum::<i64>(), n as i64);
    packed("bincount");
}

/// Small-integer results of the families beyond the fused kernels are packed too.
#[test]
fn family_results_of_small_integers_are_packed() {
    let _d = default_device();
    let n = 1003usize;
    let h = i16_values(n);
    let a = Array::from_slice(&h, &[n]).unwrap();
    let words = |k: usize| k.div_ceil(2) * 4;
    let check = |r: &Array, what: &str| {
        assert_eq!(r.device_nbytes().unwrap(), words(r.size()), "{what}");
    };
    let sorted = kp::sort(&a, Some(-1), None).unwrap();
    check(&sorted, "sort");
    let mut want = h.clone();
    want.sort();
    assert_eq!(sorted.to_vec::<i16>().unwrap(), want);
    let v = a.slice(&s![1..]).unwrap();
    let c = kp::concatenate(&[v.clone(), a.clone()], None, None).unwrap();
    check(&c, "concatenate");
    let f = kp::flip(&v.reshape(&[6, 167]).unwrap(), Some(&[1])).unwrap();
    check(&f, "flip");
    let want: Vec<i16> = h[1..]
        .chunks(167)
        .flat_map(|r| r.iter().rev().copied())
        .collect();
    assert_eq!(f.to_vec::<i16>().unwrap(), want);
    let m = a.slice(&s![..1000]).unwrap().reshape(&[10, 100]).unwrap();
    let mx = kp::max(&m, 1, false).unwrap();
    check(&mx, "max");
    let want: Vec<i16> = h[..1000]
        .chunks(100)
        .map(|r| *r.iter().max().unwrap())
        .collect();
    assert_eq!(mx.to_vec::<i16>().unwrap(), want);
    let cs = kp::cumsum(&v, None, Some(DType::I16)).unwrap();
    check(&cs, "cumsum");
    let bools: Vec<bool> = h.iter().map(|&x| x > 0).collect();
    let mask = Array::from_slice(&bools, &[n]).unwrap();
    let sel = a.get(&kp::idx![mask]).unwrap();
    check(&sel, "boolean selection");
    let want: Vec<i16> = h.iter().copied().filter(|&x| x > 0).collect();
    assert_eq!(sel.to_vec::<i16>().unwrap(), want);
    let p = kp::matmul(
        &a.slice(&s![..12]).unwrap().reshape(&[3, 4]).unwrap(),
        &a.slice(&s![..12]).unwrap().reshape(&[4, 3]).unwrap(),
    )
    .unwrap();
    p.eval().unwrap();
    check(&p, "matmul");
}

/// Assignments write packed words in place (the storage stays packed): neighbouring
/// elements of one word written by different threads and by different writes, repeated
/// indices (the last one wins), masks, `put`, `place`, `putmask`, `copyto(where=)` and
/// `fill_diagonal`, checked against the same writes on a host copy.
#[test]
fn assignments_write_packed_words_in_place() {
    let _d = default_device();
    for n in [1003usize, 1004] {
        let mut h = u8_values(n);
        let a = Array::from_slice(&h, &[n]).unwrap();
        let check = |h: &Vec<u8>, what: &str| {
            assert_eq!(
                a.device_nbytes().unwrap(),
                n.div_ceil(4) * 4,
                "{what} n={n}"
            );
            assert_eq!(&a.to_vec::<u8>().unwrap(), h, "{what} n={n}");
        };
        for k in 1..=3usize {
            a.set(&kp::idx![k..;2], 200 + k as i64).unwrap();
            for x in h.iter_mut().skip(k).step_by(2) {
                *x = 200 + k as u8;
            }
            check(&h, "strided slice");
        }
        let rev = a.slice(&s![..;-3]).unwrap();
        rev.set(&kp::idx![..], 9).unwrap();
        for i in (0..n).rev().step_by(3) {
            h[i] = 9;
        }
        check(&h, "reversed view");
        // Repeated indices: the last write of each element wins.
        let idx: Vec<i64> = (0..400).map(|i| (i % 13) as i64 - 6).collect();
        let vals: Vec<u8> = (0..400).map(|i| i as u8).collect();
        let v = Array::from_slice(&vals, &[400]).unwrap();
        a.set(&kp::idx![idx.clone()], &v).unwrap();
        for (&i, &x) in idx.iter().zip(&vals) {
            h[i.rem_euclid(n as i64) as usize] = x;
        }
        check(&h, "repeated indices");
        let bools: Vec<bool> = h.iter().map(|&x| x % 3 == 0).collect();
        let mask = Array::from_slice(&bools, &[n]).unwrap();
        a.set_mask(&mask, 1).unwrap();
        for (x, &b) in h.iter_mut().zip(&bools) {
            if b {
                *x = 1;
            }
        }
        check(&h, "mask");
        let ind = Array::from_slice(&[1i64, 2, 5], &[3]).unwrap();
        kp::put(&a, &(&ind).into(), 77, kp::TakeMode::Raise).unwrap();
        for i in [1, 2, 5] {
            h[i] = 77;
        }
        check(&h, "put");
        let bools: Vec<bool> = h.iter().map(|&x| x > 100).collect();
        let mask = Array::from_slice(&bools, &[n]).unwrap();
        let src = Array::from_slice(&u8_values(n + 5)[5..], &[n]).unwrap();
        kp::copyto(&a, &src, kp::Casting::SameKind, Some(&mask)).unwrap();
        let hs = &u8_values(n + 5)[5..];
        for i in 0..n {
            if bools[i] {
                h[i] = hs[i];
            }
        }
        check(&h, "copyto where");
        let m = a.slice(&s![1..901]).unwrap().reshape(&[30, 30]).unwrap();
        kp::fill_diagonal(&m, 5, false).unwrap();
        for i in 0..30 {
            h[1 + i * 31] = 5;
        }
        check(&h, "fill_diagonal");
    }
}

/// A family reading a small view of a large packed array unpacks only the words the view
/// touches (from a binding-aligned word): views near the start, the middle and the end,
/// strided and reversed, read right.
#[test]
fn small_views_of_large_packed_arrays_read_right() {
    let _d = default_device();
    let n = (1usize << 20) + 3;
    let h = u8_values(n);
    let a = Array::from_slice(&h, &[n]).unwrap();
    for start in [1usize, 5000, 500_001, n - 300] {
        let v = a.slice(&s![start..start + 299;3]).unwrap();
        let hv: Vec<u8> = h[start..start + 299].iter().step_by(3).copied().collect();
        let mut sorted = hv.clone();
        sorted.sort();
        assert_eq!(
            kp::sort(&v, Some(-1), None)
                .unwrap()
                .to_vec::<u8>()
                .unwrap(),
            sorted
        );
        let c = kp::concatenate(&[v.clone(), v.clone()], None, None).unwrap();
        let want: Vec<u8> = hv.iter().chain(&hv).copied().collect();
        assert_eq!(c.to_vec::<u8>().unwrap(), want, "concatenate at {start}");
        let r = a.slice(&s![start..start + 200;-1]).unwrap();
        let hr: Vec<u8> = h[start..start + 200].iter().rev().copied().collect();
        let f = kp::flip(&r, None).unwrap();
        let want: Vec<u8> = hr.iter().rev().copied().collect();
        assert_eq!(f.to_vec::<u8>().unwrap(), want, "flip at {start}");
        let idx = Array::from_slice(&[0i64, 7, 99, -1], &[4]).unwrap();
        let t = kp::take(&v, &(&idx).into(), None, kp::TakeMode::Raise).unwrap();
        assert_eq!(
            t.to_vec::<u8>().unwrap(),
            vec![hv[0], hv[7], hv[99], hv[99]]
        );
        let m = a
            .slice(&s![start..start + 12])
            .unwrap()
            .reshape(&[3, 4])
            .unwrap();
        let mm = kp::matmul(&m, &m.transpose(None).unwrap()).unwrap();
        let mut want = vec![0u8; 9];
        for i in 0..3 {
            for j in 0..3 {
                for k in 0..4 {
                    let x = h[start + i * 4 + k].wrapping_mul(h[start + j * 4 + k]);
                    want[i * 3 + j] = want[i * 3 + j].wrapping_add(x);
                }
            }
        }
        assert_eq!(mm.to_vec::<u8>().unwrap(), want, "matmul at {start}");
    }
    assert_eq!(a.device_nbytes().unwrap(), n.div_ceil(4) * 4);
}

/// The in-place outputs of custom elementwise kernels write packed words: strided and offset
/// views of a packed array, neighbours in each word left intact, the storage still packed.
#[test]
fn custom_kernel_outputs_write_packed_views() {
    let _d = default_device();
    let k = kp::ElementwiseKernel::new("T x", "T y", "y = y + x;", "packed_acc").unwrap();
    let n = 1003usize;
    let h = i16_values(n);
    let base = Array::from_slice(&h, &[n]).unwrap();
    let mut want = h.clone();
    for k0 in 1..4usize {
        let view = base.slice(&s![k0..;3]).unwrap();
        let m = view.size();
        let add: Vec<i16> = (0..m).map(|i| (i * 7) as i16 - 300).collect();
        let x = Array::from_slice(&add, &[m]).unwrap();
        k.call(kp::args![&x, &view]).unwrap();
        for (i, j) in (k0..n).step_by(3).enumerate() {
            want[j] = want[j].wrapping_add(add[i]);
        }
        assert_eq!(base.to_vec::<i16>().unwrap(), want, "a[{k0}::3] += x");
        assert_eq!(base.device_nbytes().unwrap(), n.div_ceil(2) * 4);
    }
}

/// Contiguous assignments that cover whole packed words are copied word for word; the
/// words around them keep their other elements.
#[test]
fn whole_word_assignments_keep_their_neighbours() {
    let _d = default_device();
    for n in [1003usize, 1004] {
        let mut h = u8_values(n);
        let a = Array::from_slice(&h, &[n]).unwrap();
        let src: Vec<u8> = (0..n).map(|i| (i * 13 % 256) as u8).collect();
        let b = Array::from_slice(&src, &[n]).unwrap();
        for (lo, hi) in [
            (4usize, 12usize),
            (0, 4),
            (8, 1000),
            (1, 9),
            (4, 11),
            (4, 6),
            (8, n),
        ] {
            let part = b.slice(&s![lo..hi]).unwrap();
            a.set(&kp::idx![lo..hi], &part).unwrap();
            h[lo..hi].copy_from_slice(&src[lo..hi]);
            assert_eq!(
                a.to_vec::<u8>().unwrap(),
                h,
                "a[{lo}:{hi}] = b[{lo}:{hi}], n={n}"
            );
        }
        a.set(&kp::idx![..], 200).unwrap();
        assert_eq!(a.to_vec::<u8>().unwrap(), vec![200u8; n]);
        assert_eq!(a.device_nbytes().unwrap(), n.div_ceil(4) * 4);
    }
}

/// `empty` of a small integer dtype is packed storage, and filling it keeps it packed.
#[test]
fn empty_small_integer_arrays_are_packed() {
    let _d = default_device();
    for n in [1usize, 5, 1003] {
        let e = kp::empty(&[n], Some(DType::I8)).unwrap();
        assert_eq!(e.device_nbytes().unwrap(), n.div_ceil(4) * 4);
        let src: Vec<i8> = (0..n).map(|i| (i * 7 % 256) as u8 as i8).collect();
        let s = Array::from_slice(&src, &[n]).unwrap();
        e.set(&kp::idx![..], &s).unwrap();
        assert_eq!(e.to_vec::<i8>().unwrap(), src, "n={n}");
        assert_eq!(e.device_nbytes().unwrap(), n.div_ceil(4) * 4);
    }
}
