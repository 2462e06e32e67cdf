//! The radix sort's and the two-tier search's timing variants (`KUPFER_SORT_BALLOT`, `_HIST`,
//! `_SCAN`, `_SKIP`, `KUPFER_SORT_ITEMS` beyond 16; `KUPFER_SEARCHSORTED=x1|x2|x4`,
//! `_QPT`, `_TABLE`, `_SAMPLES`), forced on through the testing hooks, against Rust's sorts
//! and a host binary search: values of every radix dtype with NaN, ±inf and both zeros,
//! sizes around the tiles, inputs whose passes have one digit for every key (the copied
//! passes), stable argsort, searchsorted on both sides and isin.
//!
//! Needs a GPU adapter (lavapipe will do); no Python. Kept apart from tests/sort.rs (the
//! suite's slowest binary). Run: `cargo test -p kupfer-suite --test sort_fast`.

mod common;

use kp::sort::{RadixTuning, SearchVariant};
use kp::{Array, DType, HostData};
use kupfer as kp;
use std::cmp::Ordering;

/// The tests share the process-wide testing hooks: one at a time.
static HOOKS: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn device(engine: kp::SortEngine, items: u32, patience: u32) -> kp::Device {
    let dev = common::default_device();
    let mut config = dev.config().clone();
    config.sort.engine = engine;
    config.sort.items = items;
    config.sort.patience = patience;
    dev.with_config(config)
}

const ALL: RadixTuning = RadixTuning {
    narrow_ballots: true,
    subgroup_counts: true,
    subgroup_scan: true,
    skip_trivial: true,
    unroll: true,
};

/// NumPy's order of floats: NaN last, -0.0 equal to 0.0.
fn float_order(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(&b).unwrap(),
    }
}

fn positions(a: &Array) -> Vec<usize> {
    match a.to_host().unwrap().data {
        HostData::I64(x) => x.iter().map(|&i| i as usize).collect(),
        HostData::I32(x) => x.iter().map(|&i| i as usize).collect(),
        other => panic!("positions of {other:?}"),
    }
}

/// A radix configuration of the variant test: name, engine, keys per thread, patience,
/// variants, bit-mask ranking, and the inputs it sorts.
type Config<'a> = (
    &'static str,
    kp::SortEngine,
    u32,
    u32,
    RadixTuning,
    bool,
    Vec<&'a Input>,
);

/// One input: its dtype, its values as f64 (exact for every dtype used here), and a label.
struct Input {
    label: String,
    dtype: DType,
    values: Vec<f64>,
    /// Whether argsort runs too (not for every input: each adds kernels to compile).
    argsort: bool,
}

fn upload(dev: &kp::Device, x: &Input) -> Array {
    let n = [x.values.len()];
    let v = &x.values;
    match x.dtype {
        DType::F32 => {
            Array::from_slice_on(dev, &v.iter().map(|&x| x as f32).collect::<Vec<_>>(), &n)
        }
        DType::F64 => Array::from_slice_on(dev, v, &n),
        DType::I32 => {
            Array::from_slice_on(dev, &v.iter().map(|&x| x as i32).collect::<Vec<_>>(), &n)
        }
        DType::U32 => {
            Array::from_slice_on(dev, &v.iter().map(|&x| x as u32).collect::<Vec<_>>(), &n)
        }
        DType::I64 => {
            Array::from_slice_on(dev, &v.iter().map(|&x| x as i64).collect::<Vec<_>>(), &n)
        }
        DType::U64 => {
            Array::from_slice_on(dev, &v.iter().map(|&x| x as u64).collect::<Vec<_>>(), &n)
        }
        DType::I16 => {
            Array::from_slice_on(dev, &v.iter().map(|&x| x as i16).collect::<Vec<_>>(), &n)
        }
        d => panic!("no input of {d}"),
    }
    .unwrap()
}

fn host_values(a: &Array) -> Vec<f64> {
    match a.to_host().unwrap().data {
        HostData::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        HostData::F64(v) => v,
        HostData::I32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        HostData::U32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        HostData::I64(v) => v.iter().map(|&x| x as f64).collect(),
        HostData::U64(v) => v.iter().map(|&x| x as f64).collect(),
        HostData::I16(v) => v.iter().map(|&x| f64::from(x)).collect(),
        other => panic!("no values of {other:?}"),
    }
}

/// Inputs for sizes `sizes`: random values with ties and specials, and inputs whose radix
/// passes have one digit for every key (float64 widened from float32 in [0, 1), small
/// integers in int32/int64/uint64, all-equal values: copied passes under KUPFER_SORT_SKIP).
fn inputs(dev: &kp::Device, sizes: &[usize]) -> Vec<Input> {
    let mut out = Vec::new();
    let mut rng = common::Rng(0x5f57);
    let specials = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 0.0];
    for &n in sizes {
        let mut push = |label: &str, dtype: DType, values: Vec<f64>| {
            if dtype != DType::F64 || dev.supports(DType::F64) {
                out.push(Input {
                    label: format!("{label} {dtype} n={n}"),
                    dtype,
                    values,
                    argsort: matches!(
                        (label, dtype),
                        ("mixed", DType::F32) | ("widened unit", _) | ("small", DType::I64)
                    ),
                });
            }
        };
        let mixed: Vec<f64> = (0..n)
            .map(|_| {
                let r = rng.next();
                if r.is_multiple_of(13) {
                    specials[(r >> 8) as usize % specials.len()]
                } else {
                    ((r >> 6) % 5001) as f64 * 0.25 - 600.0
                }
            })
            .collect();
        push("mixed", DType::F32, mixed.clone());
        push("mixed", DType::F64, mixed);
        let unit: Vec<f64> = (0..n)
            .map(|_| f64::from((rng.next() >> 7) as f32 / (1u32 << 24) as f32))
            .collect();
        push("unit", DType::F32, unit.clone());
        push("widened unit", DType::F64, unit);
        let ints: Vec<f64> = (0..n)
            .map(|_| ((rng.next() << 1) ^ (rng.next() << 17)) as u32 as i32 as f64)
            .collect();
        push("random", DType::I32, ints);
        let small: Vec<f64> = (0..n).map(|_| (rng.next() % 1000) as f64 + 5.0).collect();
        push("small", DType::I32, small.clone());
        push("small", DType::I64, small.clone());
        push("small", DType::I16, small);
        let wide: Vec<f64> = (0..n)
            .map(|_| ((rng.next() << 20) ^ rng.next()) as f64)
            .collect();
        push("wide", DType::U64, wide.clone());
        push("wide", DType::U32, wide.iter().map(|&x| x % 4e9).collect());
        push("equal", DType::F32, vec![2.5; n]);
    }
    out
}

/// Sorts every input on `dev` (and stable-argsorts those marked), against Rust's sorts;
/// failures named after `config`.
fn check_sorts(dev: &kp::Device, config: &str, xs: &[&Input], failures: &mut Vec<String>) {
    for x in xs {
        let a = upload(dev, x);
        let mut want = x.values.clone();
        want.sort_by(|a, b| float_order(*a, *b));
        let got = host_values(&kp::sort(&a, None, None).unwrap());
        let same = got.len() == want.len()
            && got
                .iter()
                .zip(&want)
                .all(|(g, w)| g == w || (g.is_nan() && w.is_nan()));
        if !same {
            let k = got
                .iter()
                .zip(&want)
                .position(|(g, w)| !(g == w || (g.is_nan() && w.is_nan())));
            failures.push(format!(
                "{config} sort {}: first difference at {k:?}",
                x.label
            ));
        }
        if !x.argsort {
            continue;
        }
        let mut want_idx: Vec<usize> = (0..x.values.len()).collect();
        want_idx.sort_by(|&i, &j| float_order(x.values[i], x.values[j]));
        let idx = positions(&kp::argsort(&a, None, Some("stable")).unwrap());
        if idx != want_idx {
            failures.push(format!("{config} argsort {}", x.label));
        }
    }
}

#[test]
fn radix_variants_against_rust_sorts() {
    // Every radix variant on: every input on the single-pass engine at 1024-key tiles (sizes
    // around tile boundaries); a few inputs each on the single-pass engine at patience 0
    // (every predecessor recounted from its keys), the portable engine, the bit-mask ranking
    // with the copied passes, tiles of 12 keys per thread (not a power of two), and the
    // grouped counts and subgroup scan with four-word ballot masks.
    let _one = HOOKS.lock().unwrap_or_else(|e| e.into_inner());
    let base = common::default_device();
    let xs = inputs(&base, &[1025, 3000]);
    let pick = |labels: &[&str]| -> Vec<&Input> {
        xs.iter()
            .filter(|x| labels.iter().any(|l| x.label.starts_with(l)))
            .collect()
    };
    let mut failures = Vec::new();
    let wide_masks = RadixTuning {
        narrow_ballots: false,
        ..ALL
    };
    let masks_skip = RadixTuning {
        skip_trivial: true,
        ..RadixTuning::default()
    };
    let configs: Vec<Config> = vec![
        (
            "onesweep all",
            kp::SortEngine::Onesweep,
            4,
            64,
            ALL,
            false,
            xs.iter().collect(),
        ),
        (
            "onesweep all, patience 0",
            kp::SortEngine::Onesweep,
            4,
            0,
            ALL,
            false,
            pick(&["mixed float32", "widened", "small int64"]),
        ),
        (
            "portable all",
            kp::SortEngine::Portable,
            4,
            64,
            ALL,
            false,
            pick(&["mixed float32", "random int32"]),
        ),
        (
            "onesweep bit masks, skip",
            kp::SortEngine::Onesweep,
            4,
            64,
            masks_skip,
            true,
            pick(&["widened", "equal", "small int32"]),
        ),
        (
            "onesweep all, 12 items",
            kp::SortEngine::Onesweep,
            12,
            64,
            ALL,
            false,
            pick(&["mixed float32", "wide uint64"]),
        ),
        (
            "onesweep all, wide masks",
            kp::SortEngine::Onesweep,
            4,
            64,
            wide_masks,
            false,
            pick(&["unit float32", "small int64"]),
        ),
    ];
    for (name, engine, items, patience, tuning, masks, xs) in &configs {
        kp::sort::set_radix_tuning_for_tests(Some(*tuning));
        kp::sort::set_portable_ranking_for_tests(*masks);
        // Every length here passes the row sort's limit only with the limit at 1.
        kp::sort::set_limits_for_tests(1, 0);
        let dev = device(*engine, *items, *patience);
        let _on = dev.use_device();
        check_sorts(&dev, name, xs, &mut failures);
    }
    kp::sort::set_limits_for_tests(0, 0);
    kp::sort::set_portable_ranking_for_tests(false);
    kp::sort::set_radix_tuning_for_tests(None);
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn radix_variants_large_against_rust_sorts() {
    // 2^20 + 3 float32 keys (specials, ties) at the default tile size with every variant
    // on, single-pass engine.
    let _one = HOOKS.lock().unwrap_or_else(|e| e.into_inner());
    let base = common::default_device();
    let n = (1usize << 20) + 3;
    let xs: Vec<Input> = inputs(&base, &[n])
        .into_iter()
        .filter(|x| x.label.starts_with("mixed float32"))
        .collect();
    let xs: Vec<&Input> = xs.iter().collect();
    kp::sort::set_radix_tuning_for_tests(Some(ALL));
    let dev = device(kp::SortEngine::Onesweep, 0, 256);
    let _on = dev.use_device();
    let mut failures = Vec::new();
    check_sorts(&dev, "onesweep all, default tiles", &xs, &mut failures);
    kp::sort::set_radix_tuning_for_tests(None);
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Host searchsorted in NumPy's order (NaN last, -0.0 equal to 0.0).
fn host_search(sorted: &[f64], q: f64, right: bool) -> usize {
    sorted.partition_point(|&x| {
        let o = float_order(x, q);
        o == Ordering::Less || (right && o == Ordering::Equal)
    })
}

/// How many of kupfer's `searchsorted(a, q, side)` positions differ from the host search of
/// `sorted` (a's values) for `queries` (q's values).
fn search_mismatches(
    a: &Array,
    q: &Array,
    sorted: &[f64],
    queries: &[f64],
    side: kp::sort::Side,
) -> usize {
    let right = side == kp::sort::Side::Right;
    let got = positions(&kp::searchsorted(a, q, side, None).unwrap());
    let want = queries.iter().map(|&x| host_search(sorted, x, right));
    got.len().abs_diff(queries.len()) + got.iter().zip(want).filter(|(g, w)| **g != *w).count()
}

#[test]
fn search_variants_against_the_host() {
    // Every two-tier search layout (in turn and branch-free interleaved by 1, 2 and 4;
    // 1 to 8 queries per thread; the samples from the contiguous table or the array; 256 to
    // 8192 samples; a third tier of every 2nd to 256th key) on float32 with specials and ties
    // and on int64, both sides, and isin; arrays shorter than the samples, windows of several elements, query counts that
    // leave a group part-filled.
    let _one = HOOKS.lock().unwrap_or_else(|e| e.into_inner());
    let dev = common::default_device();
    let _on = dev.use_device();
    let mut rng = common::Rng(0x5ea6);
    let specials = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 0.0];
    let mut failures = Vec::new();
    // (queries per thread, interleaving, table, samples, third tier's spacing; whether isin
    // runs too)
    let forms: Vec<(u32, u32, bool, u32, u32, bool)> = vec![
        (4, 0, true, 8192, 0, false),
        (1, 1, false, 2048, 0, false),
        (4, 2, true, 0, 0, true),
        (8, 4, false, 256, 0, false),
        (4, 0, false, 0, 4, true),
        (1, 0, true, 512, 0, false),
        (4, 0, false, 2048, 16, true),
        (2, 0, true, 256, 256, false),
        (4, 2, false, 1024, 8, true),
        (8, 4, true, 256, 2, false),
    ];
    for n in [100usize, 2048 * 35 + 5] {
        let forms = if n < 256 { &forms[2..5] } else { &forms[..] };
        let mut sorted: Vec<f64> = (0..n)
            .map(|_| {
                let r = rng.next();
                if r.is_multiple_of(29) {
                    specials[(r >> 8) as usize % specials.len()]
                } else {
                    ((r >> 6) % 4001) as f64 * 0.5 - 1000.0
                }
            })
            .collect();
        sorted.sort_by(|a, b| float_order(*a, *b));
        let queries: Vec<f64> = (0..5001)
            .map(|i| {
                if i % 41 == 0 {
                    specials[i / 41 % specials.len()]
                } else {
                    (rng.next() % 4200) as f64 * 0.5 - 1050.0
                }
            })
            .collect();
        let ints: Vec<f64> = sorted
            .iter()
            .map(|&x| if x.is_finite() { x * 2.0 } else { 7.0 })
            .collect();
        let mut ints = ints;
        ints.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let int_q: Vec<f64> = queries
            .iter()
            .map(|&x| if x.is_finite() { x * 2.0 + 1.0 } else { -3.0 })
            .collect();
        let f = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<_>>();
        let i = |v: &[f64]| v.iter().map(|&x| x as i64).collect::<Vec<_>>();
        let a32 = Array::from_slice_on(&dev, &f(&sorted), &[n]).unwrap();
        let q32 = Array::from_slice_on(&dev, &f(&queries), &[queries.len()]).unwrap();
        let a64 = Array::from_slice_on(&dev, &i(&ints), &[n]).unwrap();
        let q64 = Array::from_slice_on(&dev, &i(&int_q), &[int_q.len()]).unwrap();
        for &(qpt, interleave, table, samples, fine, isin) in forms {
            kp::sort::set_search_variant_for_tests(Some(SearchVariant {
                form: kp::sort::TieredForm {
                    qpt,
                    interleave,
                    table,
                    fine,
                },
                samples,
                fine_auto: false,
            }));
            let id = format!(
                "n={n} qpt {qpt} x{interleave} table {table} samples {samples} fine {fine}"
            );
            for side in [kp::sort::Side::Left, kp::sort::Side::Right] {
                if search_mismatches(&a32, &q32, &sorted, &queries, side) > 0 {
                    failures.push(format!("{id} float32 {side:?}"));
                }
                if search_mismatches(&a64, &q64, &ints, &int_q, side) > 0 {
                    failures.push(format!("{id} int64 {side:?}"));
                }
            }
            if isin {
                let found = kp::isin(&q32, &a32, false)
                    .unwrap()
                    .to_vec::<bool>()
                    .unwrap();
                let want: Vec<bool> = queries
                    .iter()
                    .map(|&q| !q.is_nan() && sorted.contains(&q))
                    .collect();
                if found != want {
                    failures.push(format!("{id} isin"));
                }
            }
        }
    }
    kp::sort::set_search_variant_for_tests(None);
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn search_of_an_array_past_the_third_tiers_threshold() {
    // The default layout: a sorted array of FINE_MIN_BYTES (the third tier and its queries
    // per thread chosen by size), float32 and int64 with runs of equal values, both sides,
    // queries between, on and beyond the values; and isin, which searches the same way.
    let _one = HOOKS.lock().unwrap_or_else(|e| e.into_inner());
    kp::sort::set_search_variant_for_tests(None);
    let dev = common::default_device();
    let _on = dev.use_device();
    let mut rng = common::Rng(0x7f1e);
    let n = kp::sort::FINE_MIN_BYTES / 4;
    // Values 0, 0, 0, 3, 3, 3, 6, ... (runs of three) as float32, exact.
    let sorted: Vec<f64> = (0..n).map(|i| (i / 3 * 3) as f64).collect();
    let top = sorted[n - 1];
    let queries: Vec<f64> = (0..4099)
        .map(|i| match i % 7 {
            0 => -1.0,
            1 => top + 2.0,
            2 => ((rng.next() % n as u64) / 3 * 3) as f64,
            _ => (rng.next() % (n as u64 + 5)) as f64 - 0.5,
        })
        .collect();
    let f = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<_>>();
    let a32 = Array::from_slice_on(&dev, &f(&sorted), &[n]).unwrap();
    let q32 = Array::from_slice_on(&dev, &f(&queries), &[queries.len()]).unwrap();
    for side in [kp::sort::Side::Left, kp::sort::Side::Right] {
        let bad = search_mismatches(&a32, &q32, &sorted, &queries, side);
        assert_eq!(
            bad,
            0,
            "float32 {side:?}: {bad} of {} differ",
            queries.len()
        );
    }
    let found = kp::isin(&q32, &a32, false)
        .unwrap()
        .to_vec::<bool>()
        .unwrap();
    let want: Vec<bool> = queries
        .iter()
        .map(|&q| q >= 0.0 && q <= top && q.fract() == 0.0 && (q as usize).is_multiple_of(3))
        .collect();
    assert_eq!(found, want, "isin");
    let ints: Vec<i64> = sorted.iter().map(|&x| x as i64 - 7).collect();
    let a64 = Array::from_slice_on(&dev, &ints[..n / 2], &[n / 2]).unwrap();
    let iq: Vec<i64> = queries.iter().map(|&q| q.floor() as i64 - 7).collect();
    let q64 = Array::from_slice_on(&dev, &iq, &[iq.len()]).unwrap();
    let half: Vec<f64> = ints[..n / 2].iter().map(|&x| x as f64).collect();
    let iq: Vec<f64> = iq.iter().map(|&q| q as f64).collect();
    let bad = search_mismatches(&a64, &q64, &half, &iq, kp::sort::Side::Right);
    assert_eq!(bad, 0, "int64 right: {bad} of {} differ", iq.len());
}
