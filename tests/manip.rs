//! Array manipulation through the Rust API: results on arrays large enough for many
//! workgroups (odd sizes, grids past one row of workgroups) against plain-Rust references,
//! the kernels each operation costs (views none, joins and gathers one, lazy inputs fused
//! where the design says so), the `_async` forms, and errors. The NumPy oracle cases are in
//! crates/kupfer-eval/tests/manip_numpy.rs. Needs a GPU adapter (lavapipe will do); fails,
//! never skips, without one.

use kp::{Array, DType, InsertAt, PadMode, Repeats, Sections};
use kupfer as kp;

fn f32s(n: usize, seed: u32) -> Vec<f32> {
    let mut s = seed.wrapping_mul(2654435761).wrapping_add(12345);
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(1664525).wrapping_add(1013904223);
            (s >> 8) as f32 / (1u32 << 24) as f32 * 4.0 - 2.0
        })
        .collect()
}

/// A device of this test's own (current while the guard lives), so that the dispatch
/// counter sees only this test's kernels while other tests run in parallel.
fn own_device() -> (kp::Device, kp::DeviceGuard) {
    let d = kp::Device::new(kp::AdapterChoice::Default).expect("a GPU adapter");
    let g = d.use_device();
    (d, g)
}

/// Kernels recorded on `dev` while `f` runs (its result evaluated).
fn kernels(dev: &kp::Device, f: impl FnOnce() -> kp::Result<Array>) -> u64 {
    let before = dev.context().dispatch_count();
    f().expect("the operation").eval().expect("eval");
    dev.context().dispatch_count() - before
}

#[test]
fn joins_of_many_rows_match_a_reference() {
    let (rows, w) = (301, [7usize, 1, 130]);
    let host: Vec<Vec<f32>> = w.iter().map(|&k| f32s(rows * k, k as u32)).collect();
    let arrays: Vec<Array> = host
        .iter()
        .zip(w)
        .map(|(h, k)| Array::from_slice(h, &[rows, k]).unwrap())
        .collect();
    let got = kp::concatenate(&arrays, Some(1), None).unwrap();
    assert_eq!(got.shape(), &[rows, 138]);
    let mut want = Vec::new();
    for r in 0..rows {
        for (h, &k) in host.iter().zip(&w) {
            want.extend_from_slice(&h[r * k..(r + 1) * k]);
        }
    }
    assert_eq!(got.to_vec::<f32>().unwrap(), want);

    // stack along a new last axis: four vectors interleaved (the vec4 store path).
    let n = 70_001;
    let parts: Vec<Vec<f32>> = (0..4).map(|s| f32s(n, 10 + s)).collect();
    let arrays: Vec<Array> = parts
        .iter()
        .map(|h| Array::from_slice(h, &[n]).unwrap())
        .collect();
    let got = kp::stack(&arrays, 1, None)
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    let want: Vec<f32> = (0..n)
        .flat_map(|i| parts.iter().map(move |p| p[i]))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn gathers_of_a_large_matrix_match_a_reference() {
    let (h, w) = (257, 1031);
    let host = f32s(h * w, 3);
    let m = Array::from_slice(&host, &[h, w]).unwrap();
    // roll along axis 1 by 7, and by -(w + 3) along axis 0.
    let got = kp::roll(&m, &[7], Some(&[1]))
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    for r in [0, 100, 256] {
        for c in [0, 6, 7, 1030] {
            assert_eq!(
                got[r * w + c],
                host[r * w + (c + w - 7) % w],
                "roll at ({r}, {c})"
            );
        }
    }
    // reflect padding of a reversed view.
    let rev = kp::flip(&m, Some(&[1])).unwrap();
    let p = 16;
    let got = kp::pad(&rev, &[(p, p)], &PadMode::Reflect).unwrap();
    assert_eq!(got.shape(), &[h + 2 * p, w + 2 * p]);
    let got = got.to_vec::<f32>().unwrap();
    let reflect = |i: isize, n: usize| {
        let per = 2 * n as isize - 2;
        let k = i.rem_euclid(per) as usize;
        if k < n {
            k
        } else {
            per as usize - k
        }
    };
    let ow = w + 2 * p;
    for r in [0usize, 15, 16, 200, h + 2 * p - 1] {
        for c in [0usize, 5, 16, 600, ow - 1] {
            let sr = reflect(r as isize - p as isize, h);
            let sc = w - 1 - reflect(c as isize - p as isize, w);
            assert_eq!(got[r * ow + c], host[sr * w + sc], "pad at ({r}, {c})");
        }
    }
    // tril of a lazy expression.
    let t = kp::tril(&kp::multiply(&m, 2.0).unwrap(), -3).unwrap();
    let got = t.to_vec::<f32>().unwrap();
    for r in [0usize, 3, 4, 256] {
        for c in [0usize, 1, 253, 254, 1030] {
            let want = if c + 3 <= r {
                host[r * w + c] * 2.0
            } else {
                0.0
            };
            assert_eq!(got[r * w + c], want, "tril at ({r}, {c})");
        }
    }
}

#[test]
fn kernels_per_operation() {
    let (dev, _g) = own_device();
    let x = Array::from_slice(&f32s(4096, 1), &[64, 64]).unwrap();
    let y = Array::from_slice(&f32s(4096, 2), &[64, 64]).unwrap();
    // Views: no kernel.
    assert_eq!(kernels(&dev, || kp::flip(&x, None)), 0);
    assert_eq!(kernels(&dev, || kp::rot90(&x, 1, [0, 1])), 0);
    let before = dev.context().dispatch_count();
    let parts = kp::split(&x, &Sections::Count(4), 1).unwrap();
    assert_eq!(parts.len(), 4);
    assert_eq!(dev.context().dispatch_count(), before);
    // One kernel each; inputs whose rows are evenly spaced are read in place.
    assert_eq!(
        kernels(&dev, || kp::concatenate(
            &[x.clone(), y.clone()],
            Some(1),
            None
        )),
        1
    );
    let every_other =
        |a: &Array, start: isize| a.slice(&[kp::SliceArg::FULL, kp::views::stepped(start.., 2)]);
    assert_eq!(
        kernels(&dev, || kp::stack(
            &[every_other(&x, 0)?, every_other(&y, 1)?],
            2,
            None
        )),
        1
    );
    assert_eq!(kernels(&dev, || kp::roll(&x, &[7], Some(&[1]))), 1);
    assert_eq!(
        kernels(&dev, || kp::pad(&x, &[(16, 16)], &PadMode::Reflect)),
        1
    );
    assert_eq!(kernels(&dev, || kp::tile(&x, &[2, 3])), 1);
    assert_eq!(
        kernels(&dev, || kp::repeat(&x, &Repeats::Each(3), Some(0))),
        1
    );
    // A lazy input fuses into tril; into a join it is evaluated once, straight into its
    // place (one kernel per input then).
    assert_eq!(kernels(&dev, || kp::tril(&kp::add(&x, &y)?, 0)), 1);
    assert_eq!(
        kernels(&dev, || kp::concatenate(
            &[kp::multiply(&x, 2.0)?, y.clone()],
            Some(0),
            None
        )),
        2
    );
    assert_eq!(
        kernels(&dev, || kp::concatenate(
            &[
                kp::multiply(&x, 2.0)?,
                kp::add(&y, 1.0)?,
                kp::subtract(&x, &y)?
            ],
            Some(1),
            None
        )),
        3
    );
    assert_eq!(
        kernels(&dev, || kp::stack(
            &[kp::multiply(&x, 2.0)?, kp::add(&y, 1.0)?],
            1,
            None
        )),
        2
    );
    let xi = x.astype(DType::I32).unwrap();
    xi.eval().unwrap();
    assert_eq!(
        kernels(&dev, || kp::concatenate(
            &[x.clone(), xi.clone()],
            Some(0),
            None
        )),
        2
    );
}

#[test]
fn synchronising_forms_agree_with_their_async_forms() {
    let a = Array::from_slice(&[1i32, 2, 3], &[3]).unwrap();
    let counts = Array::from_slice(&[2i32, 0, 3], &[3]).unwrap();
    let r = kp::repeat(&a, &Repeats::Counts(counts.clone()), None).unwrap();
    assert_eq!(r.to_vec::<i32>().unwrap(), [1, 1, 3, 3, 3]);
    let r = pollster::block_on(kp::repeat_async(&a, &Repeats::Counts(counts), None)).unwrap();
    assert_eq!(r.to_vec::<i32>().unwrap(), [1, 1, 3, 3, 3]);
    let z = Array::from_slice(&[0.0f32, 0.0, 1.5, 0.0, 2.0, 0.0], &[6]).unwrap();
    let t = kp::trim_zeros(&z, "fb", None).unwrap();
    assert_eq!(t.to_vec::<f32>().unwrap(), [1.5, 0.0, 2.0]);
    let t = pollster::block_on(kp::trim_zeros_async(&z, "b", None)).unwrap();
    assert_eq!(t.to_vec::<f32>().unwrap(), [0.0, 0.0, 1.5, 0.0, 2.0]);
}

#[test]
fn edits_and_blocks() {
    let a = kp::arange(0, 6, 1, Some(DType::I32))
        .unwrap()
        .reshape(&[2, 3])
        .unwrap();
    let v = Array::from_slice(&[9i32, 8], &[2]).unwrap();
    let ins = kp::insert(
        &a,
        &InsertAt::Indices(vec![0, 3]),
        &v.reshape(&[2, 1]).unwrap(),
        Some(1),
    );
    assert_eq!(
        ins.unwrap().to_vec::<i32>().unwrap(),
        [9, 0, 1, 2, 9, 8, 3, 4, 5, 8]
    );
    let del = kp::delete(&a, &[0, -1], Some(1)).unwrap();
    assert_eq!(del.to_vec::<i32>().unwrap(), [1, 4]);
    let b = kp::block(&kp::Block::List(vec![
        kp::Block::List(vec![a.clone().into(), a.clone().into()]),
        kp::Block::List(vec![a.clone().into(), a.clone().into()]),
    ]))
    .unwrap();
    assert_eq!(b.shape(), &[4, 6]);
    let err = kp::concatenate(&[a.clone(), v], Some(0), None).unwrap_err();
    assert!(
        err.to_string()
            .contains("must have same number of dimensions"),
        "{err}"
    );
}
