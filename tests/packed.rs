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
