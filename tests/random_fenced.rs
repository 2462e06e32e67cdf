//! The `fenced` float32 normal form (`set_normal_form(NormalForm::Fenced)` or
//! `KUPFER_RANDN=fenced`, not the default): its draws are the CPU emulation's bits on this
//! adapter and within an ulp of float64 Box-Muller for most. Its own test binary, because the
//! form is fixed once per process.
//!
//! Needs a GPU adapter (lavapipe will do); fails, never skips.

use kp::random::default_rng;
use kp::random::philox::{reference, seed_key, RandomOp};
use kp::{Array, DType};
use kupfer as kp;

fn f32s(a: &Array) -> Vec<f32> {
    a.to_vec::<f32>().unwrap()
}

/// Element `e` of the draw number `draw` of a generator seeded `seed`, on the CPU.
fn cpu(op: RandomOp, dtype: DType, seed: u64, draw: u64, n: usize, param: u32) -> Vec<f64> {
    (0..n as u32)
        .map(|e| reference(op, dtype, seed_key(seed), draw, e, param))
        .collect()
}

/// How many float32 ulps apart `a` and the float64 `b` rounded to float32 are.
fn ulps(a: f32, b: f64) -> u32 {
    let key = |x: f32| {
        let i = x.to_bits() as i32;
        if i < 0 {
            i64::from(i32::MIN) - i64::from(i)
        } else {
            i64::from(i)
        }
    };
    (key(a) - key(b as f32)).unsigned_abs() as u32
}

#[test]
fn fenced_normals_are_their_cpu_emulation_bit_for_bit_and_within_an_ulp_of_float64() {
    use kp::random::philox::{
        normal_form, normal_pair_fenced, set_normal_form, stream_word, NormalForm,
    };
    // The fenced float32 form: every value against the
    // CPU emulation of its fenced polynomials and correctly rounded root (bit for bit), and
    // against the float64 Box-Muller rounded to float32. Both paths of the code generator:
    // four normals per Philox block (contiguous) and one per element (a strided view).
    // The form is fixed once per process: this binary holds this one test, so it is chosen
    // before anything draws; afterwards it can no longer change.
    assert_eq!(set_normal_form(NormalForm::Fenced), Ok(()));
    assert_eq!(normal_form(), NormalForm::Fenced);
    assert_eq!(
        set_normal_form(NormalForm::Lean),
        Err(NormalForm::Fenced),
        "the form changed after it was fixed"
    );
    let n = 1usize << 20;
    let g = default_rng(Some(21));
    let z = f32s(&g.standard_normal(&[n], None).unwrap());
    let strided = g.standard_normal(&[n / 512, 1024], None).unwrap();
    let strided = f32s(
        &strided
            .slice(&[
                kp::SliceArg::Slice {
                    start: None,
                    stop: None,
                    step: None,
                },
                kp::SliceArg::Slice {
                    start: None,
                    stop: None,
                    step: Some(2),
                },
            ])
            .unwrap()
            .copy()
            .unwrap(),
    );
    let key = seed_key(21);
    let emulate = |draw: u64, e: u32| {
        let pair = e & !1;
        let a = stream_word(key, draw, pair, 0);
        let b = stream_word(key, draw, pair + 1, 0);
        normal_pair_fenced(a, b)[(e & 1) as usize]
    };
    let mut differ = 0;
    let mut within_one = 0;
    let mut worst = 0;
    let want = cpu(RandomOp::Normal, DType::F32, 21, 0, n, 0);
    for (e, (&got, &w)) in z.iter().zip(&want).enumerate() {
        if got.to_bits() != emulate(0, e as u32).to_bits() {
            differ += 1;
        }
        let u = ulps(got, w);
        within_one += usize::from(u <= 1);
        worst = worst.max(u);
    }
    for (j, &got) in strided.iter().enumerate() {
        let e = (j / 512 * 1024 + j % 512 * 2) as u32;
        if got.to_bits() != emulate(1, e).to_bits() {
            differ += 1;
        }
    }
    eprintln!(
        "fenced normals: {differ} of {} differ from the CPU emulation; {within_one} of {n} within 1 ulp of float64, at most {worst} ulp",
        n + strided.len()
    );
    assert_eq!(differ, 0, "values that differ from the CPU emulation");
    assert!(
        within_one * 100 >= n * 95,
        "{within_one} of {n} within 1 ulp"
    );
    assert!(worst <= 8, "{worst} ulp from the float64 Box-Muller");
}
