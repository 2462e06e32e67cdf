//! Custom kernels (ElementwiseKernel, ReductionKernel, RawKernel/RawModule, fuse) and the
//! examples built on them, against CPU references (plain Rust loops, ndarray for the axis
//! reductions). Needs a GPU adapter (lavapipe will do); fails, never skips, without one.

use kp::{args, Array, DType, ElementwiseKernel, Error, RawKernel, RawModule, ReductionKernel};
use kupfer as kp;
use ndarray::{ArrayD, Axis as NdAxis, IxDyn};

#[path = "../examples/custom_elementwise.rs"]
#[allow(dead_code)]
mod ex_elementwise;
#[path = "../examples/raw_matmul.rs"]
#[allow(dead_code)]
mod ex_matmul;
#[path = "../examples/custom_reduction.rs"]
#[allow(dead_code)]
mod ex_reduction;
#[path = "../examples/raw_saxpy.rs"]
#[allow(dead_code)]
mod ex_saxpy;

fn dev() -> kp::Device {
    kp::Device::current().expect("a GPU adapter (lavapipe will do)")
}

fn f32s(n: usize, seed: u32) -> Vec<f32> {
    let mut s = seed.wrapping_mul(2654435761).wrapping_add(12345);
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(1664525).wrapping_add(1013904223);
            (s >> 8) as f32 / (1u32 << 24) as f32 * 4.0 - 2.0
        })
        .collect()
}

fn close(got: &[f32], want: &[f32], rtol: f32, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= rtol * w.abs().max(1.0),
            "{what}: element {k}: {g} vs {w}"
        );
    }
}

fn dispatches() -> u64 {
    dev().context().dispatch_count()
}

/// A device of this test's own (current on this thread while the guard lives), so that
/// the dispatch counter sees only this test's kernels while other tests run in parallel.
fn own_device() -> (kp::Device, kp::DeviceGuard) {
    let d = kp::Device::new(kp::AdapterChoice::Default).expect("a GPU adapter");
    let g = d.use_device();
    (d, g)
}

#[test]
fn seeds_sigmoid_and_leaky_relu() {
    let h = f32s(1000, 1);
    let x = Array::from_slice(&h, &[1000]).unwrap();
    let (s, l) = ex_elementwise::sigmoid_and_leaky_relu(&x).unwrap();
    let ws: Vec<f32> = h.iter().map(|v| 1.0 / (1.0 + (-v).exp())).collect();
    let wl: Vec<f32> = h
        .iter()
        .map(|&v| if v > 0.0 { v } else { 0.1 * v })
        .collect();
    close(&s.to_vec::<f32>().unwrap(), &ws, 1e-5, "sigmoid");
    close(&l.to_vec::<f32>().unwrap(), &wl, 1e-6, "leaky_relu");
}

#[test]
fn seeds_reductions_and_row_norms() {
    let hx = f32s(100_003, 2);
    let hw = f32s(100_003, 3);
    let x = Array::from_slice(&hx, &[hx.len()]).unwrap();
    let w = Array::from_slice(&hw, &[hw.len()]).unwrap();
    let ws: f64 = hx
        .iter()
        .zip(&hw)
        .map(|(a, b)| (*a as f64) * (*b as f64))
        .sum();
    let ss: f64 = hx.iter().map(|a| (*a as f64) * (*a as f64)).sum();
    let got = ex_reduction::weighted_sum(&x, &w)
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    assert!(
        (got[0] as f64 - ws).abs() < 1e-3 * ws.abs().max(1.0),
        "{got:?} {ws}"
    );
    let got = ex_reduction::sum_of_squares(&x)
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    assert!((got[0] as f64 - ss).abs() < 1e-4 * ss, "{got:?} {ss}");
    // The seed: sum of squares of arange(10) is 285.
    let a = kp::arange(0.0, 10.0, 1.0, Some(DType::F32)).unwrap();
    assert_eq!(
        ex_reduction::sum_of_squares(&a)
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        vec![285.0]
    );
    // Per-row L2 norms, f32 and (where the adapter has it) f64.
    let (r, c) = (37, 301);
    let hm = f32s(r * c, 4);
    let want: Vec<f32> = hm
        .chunks(c)
        .map(|row| row.iter().map(|v| v * v).sum::<f32>().sqrt())
        .collect();
    let m = Array::from_slice(&hm, &[r, c]).unwrap();
    close(
        &ex_reduction::row_norms(&m)
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        &want,
        1e-5,
        "l2",
    );
    if dev().supports(DType::F64) {
        let m64 = m.astype(DType::F64).unwrap();
        let n = ex_reduction::row_norms(&m64).unwrap();
        assert_eq!(n.dtype(), DType::F64);
        let got: Vec<f32> = n
            .to_vec::<f64>()
            .unwrap()
            .iter()
            .map(|&v| v as f32)
            .collect();
        close(&got, &want, 1e-5, "l2 f64");
    }
}

#[test]
fn seeds_raw_saxpy() {
    let n = 100_001;
    let hx = f32s(n, 5);
    let hy = f32s(n, 6);
    let x = Array::from_slice(&hx, &[n]).unwrap();
    let y = Array::from_slice(&hy, &[n]).unwrap();
    let out = ex_saxpy::saxpy(2.0, &x, &y).unwrap();
    let want: Vec<f32> = hx.iter().zip(&hy).map(|(a, b)| 2.0 * a + b).collect();
    close(&out.to_vec::<f32>().unwrap(), &want, 1e-6, "saxpy");
    // In place: y = 2 x + y, with y passed as input and output.
    let k = RawKernel::new(ex_saxpy::SAXPY, "saxpy").unwrap();
    let blocks = (n as u32).div_ceil(256);
    k.launch([blocks, 1, 1], args![2.0, &x, &y, &y, n]).unwrap();
    close(&y.to_vec::<f32>().unwrap(), &want, 1e-6, "saxpy in place");
}

fn cpu_matmul(a: &[f32], b: &[f32], m: usize, k: usize, n: usize) -> Vec<f32> {
    let mut c = vec![0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k).map(|q| a[i * k + q] * b[q * n + j]).sum();
        }
    }
    c
}

#[test]
fn seeds_tiled_matmul_raw_kernel() {
    // Compared with kupfer::matmul (as the seed's exercise asks) and a CPU matmul.
    for (m, k, n) in [(16, 16, 16), (37, 29, 45), (1, 100, 3), (64, 48, 80)] {
        let ha = f32s(m * k, 7);
        let hb = f32s(k * n, 8);
        let a = Array::from_slice(&ha, &[m, k]).unwrap();
        let b = Array::from_slice(&hb, &[k, n]).unwrap();
        let c = ex_matmul::tiled_matmul(&a, &b).unwrap();
        assert_eq!(c.shape(), &[m, n]);
        let got = c.to_vec::<f32>().unwrap();
        let what = format!("matmul {m}x{k}x{n}");
        close(&got, &cpu_matmul(&ha, &hb, m, k, n), 1e-4, &what);
        let kp_mm = kp::matmul(&a, &b).unwrap().to_vec::<f32>().unwrap();
        close(&got, &kp_mm, 1e-4, &format!("{what} vs kupfer::matmul"));
    }
}

/// `z = x * y + T(1)` for every dtype the adapter has (one pipeline each).
#[test]
fn placeholders_resolve_per_dtype() {
    let k = ElementwiseKernel::new("T x, T y", "T z", "z = x * y + T(1);", "fma1").unwrap();
    let hx: Vec<f64> = (0..50).map(|v| (v % 7) as f64).collect();
    let hy: Vec<f64> = (0..50).map(|v| (v % 5) as f64 + 1.0).collect();
    let want: Vec<f64> = hx.iter().zip(&hy).map(|(a, b)| a * b + 1.0).collect();
    let mut ran = 0;
    for d in [
        DType::F32,
        DType::F16,
        DType::I32,
        DType::U32,
        DType::F64,
        DType::I64,
    ] {
        if !dev().supports(d) {
            continue;
        }
        let x = Array::from_slice(&hx, &[50]).unwrap().astype(d).unwrap();
        let y = Array::from_slice(&hy, &[50]).unwrap().astype(d).unwrap();
        let z = k.call(args![&x, &y]).unwrap();
        assert_eq!(z.dtype(), d);
        let got = z.astype(DType::F64).unwrap().to_vec::<f64>().unwrap();
        assert_eq!(got, want, "{d}");
        ran += 1;
    }
    assert!(ran >= 3);
    // complex64: a snippet valid for vec2<f32> (addition and scaling).
    let c = ElementwiseKernel::new("T x, T y", "T z", "z = x + 2.0 * y;", "cadd").unwrap();
    let hx: Vec<kp::Complex32> = (0..10).map(|v| kp::Complex32::new(v as f32, 1.0)).collect();
    let x = Array::from_slice(&hx, &[10]).unwrap();
    let z = c
        .call(args![&x, &x])
        .unwrap()
        .to_vec::<kp::Complex32>()
        .unwrap();
    for (g, h) in z.iter().zip(&hx) {
        assert_eq!(*g, h * 3.0);
    }
    // Mixed: a concrete float32 input, a placeholder and a scalar (the seed's axpb).
    let axpb = ElementwiseKernel::new(
        "float32 x, float32 a, float32 b",
        "float32 y",
        "y = a * x + b",
        "axpb",
    )
    .unwrap();
    let x = kp::linspace(0.0, 1.0, 8, true, Some(DType::F32)).unwrap();
    let got = axpb
        .call(args![&x, 2.0, 1.0])
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    let want: Vec<f32> = (0..8).map(|k| 2.0 * (k as f32 / 7.0) + 1.0).collect();
    close(&got, &want, 1e-6, "axpb");
}

#[test]
fn preambles_fused_and_in_reductions() {
    let pre = "fn softplus(v: f32) -> f32 { return log(1.0 + exp(v)); }\nconst SCALE: f32 = 0.5;";
    let k = ElementwiseKernel::new("float32 x", "float32 y", "y = SCALE * softplus(x);", "sp")
        .unwrap()
        .with_preamble(pre);
    let h = f32s(300, 19);
    let x = Array::from_slice(&h, &[300]).unwrap();
    // Two calls of the same kernel in one fused expression share one copy of the preamble.
    let z = (k.call(args![&x]).unwrap() + k.call(args![&(&x * 2.0)]).unwrap())
        .to_vec::<f32>()
        .unwrap();
    let sp = |v: f32| 0.5 * (1.0 + v.exp()).ln();
    let want: Vec<f32> = h.iter().map(|&v| sp(v) + sp(2.0 * v)).collect();
    close(&z, &want, 1e-5, "preamble");
    // The preamble serves the reduce snippets too, in both passes of a split reduction.
    let r = ReductionKernel::new(
        "float32 x",
        "float32 y",
        "x",
        "pick(a, b)",
        "y = a",
        "-1e30",
        "mx",
    )
    .unwrap()
    .with_preamble("fn pick(p: f32, q: f32) -> f32 { return max(p, q); }");
    let big = Array::from_slice(&f32s(1 << 18, 20), &[1 << 18]).unwrap();
    let got = r.call(args![&big], kp::Axis::All, false).unwrap();
    let want = kp::max(&big, kp::Axis::All, false).unwrap();
    assert_eq!(got.to_vec::<f32>().unwrap(), want.to_vec::<f32>().unwrap());
    // An error in the preamble is located there.
    let bad = ElementwiseKernel::new("float32 x", "float32 y", "y = f(x)", "b")
        .unwrap()
        .with_preamble("fn f(v: f32) -> f32 {\n  return v +;\n}");
    let (l, _, m) = compile_at(bad.call(args![&x]).unwrap_err());
    assert!(m.contains("preamble"), "{m}");
    assert_eq!(l, 2, "{m}");
}

#[test]
fn broadcasting_views_and_index() {
    let k = ElementwiseKernel::new("T x, T y", "T z", "z = x - y * T(i);", "idx").unwrap();
    // [3, 1, 4] against a transposed [5, 1] view of a [1, 5] array → [3, 5, 4].
    let hx = f32s(12, 9);
    let x = Array::from_slice(&hx, &[3, 1, 4]).unwrap();
    let hy = f32s(5, 10);
    let y = Array::from_slice(&hy, &[1, 5]).unwrap().t().unwrap();
    let z = k.call(args![&x, &y]).unwrap();
    assert_eq!(z.shape(), &[3, 5, 4]);
    let got = z.to_vec::<f32>().unwrap();
    let mut want = Vec::new();
    for a in 0..3 {
        for (b, yb) in hy.iter().enumerate() {
            for c in 0..4 {
                let i = (a * 20 + b * 4 + c) as f32;
                want.push(hx[a * 4 + c] - yb * i);
            }
        }
    }
    close(&got, &want, 1e-6, "broadcast");
    // A negative-stride strided view.
    let base = Array::from_slice(&f32s(40, 11), &[4, 10]).unwrap();
    let v = base.slice(&kp::s![.., ..;-3]).unwrap();
    assert_eq!(v.shape(), &[4, 4]);
    let hv = v.to_vec::<f32>().unwrap();
    let z = k.call(args![&v, 0.5]).unwrap().to_vec::<f32>().unwrap();
    let want: Vec<f32> = hv
        .iter()
        .enumerate()
        .map(|(i, a)| a - 0.5 * i as f32)
        .collect();
    close(&z, &want, 1e-6, "view");
    // Empty arrays.
    let e = Array::from_slice::<f32>(&[], &[0, 3]).unwrap();
    assert_eq!(
        k.call(args![&e, 1.0])
            .unwrap()
            .to_vec::<f32>()
            .unwrap()
            .len(),
        0
    );
}

#[test]
fn in_place_outputs() {
    let acc = ElementwiseKernel::new("T x", "T y", "y = y + x;", "accumulate").unwrap();
    let hx = f32s(64, 12);
    let x = Array::from_slice(&hx, &[8, 8]).unwrap();
    // Contiguous output: the snippet starts from the output's values.
    let y = Array::from_slice(&vec![1.0f32; 64], &[8, 8]).unwrap();
    let r = acc.call(args![&x, &y]).unwrap();
    let want: Vec<f32> = hx.iter().map(|v| v + 1.0).collect();
    close(&y.to_vec::<f32>().unwrap(), &want, 1e-6, "in place");
    close(&r.to_vec::<f32>().unwrap(), &want, 1e-6, "returned");
    // A strided output (every other column of a bigger array): only those elements change.
    let big = Array::from_slice(&vec![0.0f32; 8 * 16], &[8, 16]).unwrap();
    let view = big.slice(&kp::s![.., ..;2]).unwrap();
    acc.call(args![&x, &view]).unwrap();
    let hb = big.to_vec::<f32>().unwrap();
    for r in 0..8 {
        for c in 0..16 {
            let w = if c % 2 == 0 { hx[r * 8 + c / 2] } else { 0.0 };
            assert_eq!(hb[r * 16 + c], w, "({r}, {c})");
        }
    }
    // A broadcast input into an output; float16 at an odd offset (the scatter path).
    if dev().supports(DType::F16) {
        let base = Array::from_slice(&[kp::f16::from_f32(2.0); 9], &[9]).unwrap();
        let tail = base.slice(&kp::s![1..]).unwrap();
        let one = Array::from_slice(&[kp::f16::from_f32(1.5)], &[1]).unwrap();
        acc.call(args![&one, &tail]).unwrap();
        let got: Vec<f32> = base
            .to_vec::<kp::f16>()
            .unwrap()
            .iter()
            .map(|v| v.to_f32())
            .collect();
        assert_eq!(got, [2.0, 3.5, 3.5, 3.5, 3.5, 3.5, 3.5, 3.5, 3.5]);
    }
    // Two outputs, lazily and in place.
    let sc =
        ElementwiseKernel::new("T x", "T s, T c", "s = sin(x); c = cos(x);", "sincos").unwrap();
    let outs = sc.call_multi(args![&x]).unwrap();
    let ws: Vec<f32> = hx.iter().map(|v| v.sin()).collect();
    let wc: Vec<f32> = hx.iter().map(|v| v.cos()).collect();
    close(&outs[0].to_vec::<f32>().unwrap(), &ws, 1e-5, "sin");
    close(&outs[1].to_vec::<f32>().unwrap(), &wc, 1e-5, "cos");
    let s = kp::empty(&[8, 8], Some(DType::F32)).unwrap();
    let c = kp::empty(&[8, 8], Some(DType::F32)).unwrap();
    sc.call_multi(args![&x, &s, &c]).unwrap();
    close(&s.to_vec::<f32>().unwrap(), &ws, 1e-5, "sin in place");
    close(&c.to_vec::<f32>().unwrap(), &wc, 1e-5, "cos in place");
}

#[test]
fn fuses_with_surrounding_ops_in_one_kernel() {
    let (_d, _g) = own_device();
    let sigmoid =
        ElementwiseKernel::new("T x", "T y", "y = T(1) / (T(1) + exp(-x));", "sigmoid").unwrap();
    let hx = f32s(4096, 13);
    let x = Array::from_slice(&hx, &[4096]).unwrap();
    x.eval().unwrap();
    let before = dispatches();
    let s = sigmoid.call(args![&(&x * 2.0)]).unwrap();
    let z = (&s * 3.0 - &x).eval().unwrap().clone();
    assert_eq!(
        dispatches() - before,
        1,
        "x*2 → sigmoid → *3 - x must be one kernel"
    );
    let want: Vec<f32> = hx
        .iter()
        .map(|v| 3.0 / (1.0 + (-2.0 * v).exp()) - v)
        .collect();
    close(&z.to_vec::<f32>().unwrap(), &want, 1e-5, "fused");
    // The same kernel inside a reduction's map: one pass, no intermediate.
    let before = dispatches();
    let total = kp::sum(&sigmoid.call(args![&x]).unwrap(), kp::Axis::All, false).unwrap();
    total.eval().unwrap();
    assert_eq!(dispatches() - before, 1);
    let want: f32 = hx.iter().map(|v| 1.0 / (1.0 + (-v).exp())).sum();
    assert!((total.to_vec::<f32>().unwrap()[0] - want).abs() < 1e-2);
}

#[test]
fn fuse_closure_is_one_kernel() {
    let (_d, _g) = own_device();
    let chain5 = kp::fuse(|x: &Array, y: &Array| (x * 2.0 + y * 3.0) / (x + y + 1.0));
    assert_eq!(chain5.arity(), 2);
    let hx: Vec<f32> = f32s(10_000, 14).iter().map(|v| v.abs()).collect();
    let hy: Vec<f32> = f32s(10_000, 15).iter().map(|v| v.abs()).collect();
    let x = Array::from_slice(&hx, &[10_000]).unwrap();
    let y = Array::from_slice(&hy, &[10_000]).unwrap();
    for _ in 0..2 {
        let before = dispatches();
        let z = chain5.call(&[&x, &y]).unwrap();
        assert!(!z.is_lazy());
        assert_eq!(dispatches() - before, 1);
        let want: Vec<f32> = hx
            .iter()
            .zip(&hy)
            .map(|(a, b)| (a * 2.0 + b * 3.0) / (a + b + 1.0))
            .collect();
        close(&z.to_vec::<f32>().unwrap(), &want, 1e-6, "chain5");
    }
    assert!(chain5.call(&[&x]).is_err());
    let f1 = kp::fuse(|x: &Array| kp::sqrt(x));
    assert_eq!(f1.call(&[&x]).unwrap().shape(), &[10_000]);
}

/// A ReductionKernel over every axis combination, with and without keepdims, vs ndarray.
#[test]
fn reduction_kernel_axes_keepdims() {
    let shape = [5usize, 7, 33];
    let h = f32s(5 * 7 * 33, 16);
    let x = Array::from_slice(&h, &shape).unwrap();
    let nd = ArrayD::from_shape_vec(IxDyn(&shape), h.clone()).unwrap();
    let ssq = ReductionKernel::new("T x", "T y", "x * x", "a + b", "y = a", "0", "ssq").unwrap();
    let mx =
        ReductionKernel::new("T x", "T y", "abs(x)", "max(a, b)", "y = a", "0", "maxabs").unwrap();
    for axes in [
        vec![0isize],
        vec![1],
        vec![2],
        vec![-1],
        vec![0, 2],
        vec![0, 1, 2],
    ] {
        for keepdims in [false, true] {
            let mut want_s = nd.mapv(|v| v * v);
            let mut want_m = nd.mapv(f32::abs);
            let mut sorted: Vec<usize> = axes.iter().map(|&a| a.rem_euclid(3) as usize).collect();
            sorted.sort_unstable();
            for &a in sorted.iter().rev() {
                want_s = want_s.sum_axis(NdAxis(a));
                want_m = want_m.fold_axis(NdAxis(a), 0.0, |m, v| m.max(*v));
                if keepdims {
                    want_s.insert_axis_inplace(NdAxis(a));
                    want_m.insert_axis_inplace(NdAxis(a));
                }
            }
            let s = ssq.call(args![&x], axes.clone(), keepdims).unwrap();
            let m = mx.call(args![&x], axes.clone(), keepdims).unwrap();
            assert_eq!(s.shape(), want_s.shape(), "{axes:?} {keepdims}");
            let ws: Vec<f32> = want_s.iter().copied().collect();
            let wm: Vec<f32> = want_m.iter().copied().collect();
            close(
                &s.to_vec::<f32>().unwrap(),
                &ws,
                1e-5,
                &format!("ssq {axes:?}"),
            );
            assert_eq!(m.to_vec::<f32>().unwrap(), wm, "maxabs {axes:?}");
        }
    }
    // Over a transposed view and a large 1-D input (split into two passes), against sum.
    let t = x.t().unwrap();
    let s = ssq.call(args![&t], 0, false).unwrap();
    let want = kp::sum(&(&t * &t), 0, false).unwrap();
    close(
        &s.to_vec::<f32>().unwrap(),
        &want.to_vec::<f32>().unwrap(),
        1e-5,
        "view",
    );
    let big = Array::from_slice(&f32s(1 << 20, 17), &[1 << 20]).unwrap();
    let s = ssq.call(args![&big], kp::Axis::All, false).unwrap();
    let want = kp::sum(&(&big * &big), kp::Axis::All, false).unwrap();
    close(
        &s.to_vec::<f32>().unwrap(),
        &want.to_vec::<f32>().unwrap(),
        1e-4,
        "big",
    );
}

#[test]
fn reduction_kernel_types_scalars_and_post_map() {
    // int32 values counted into a uint32 accumulator, mean via post_map with a scalar-free
    // expression; a scalar input in the map; a bool output.
    let h: Vec<i32> = (0..1000).map(|v| v % 17 - 8).collect();
    let x = Array::from_slice(&h, &[10, 100]).unwrap();
    let count_pos = ReductionKernel::new(
        "int32 x, int32 t",
        "uint32 y",
        "select(0u, 1u, x > t)",
        "a + b",
        "y = a",
        "0",
        "count_above",
    )
    .unwrap();
    let got = count_pos
        .call(args![&x, 3], 1, false)
        .unwrap()
        .to_vec::<u32>()
        .unwrap();
    let want: Vec<u32> = h
        .chunks(100)
        .map(|r| r.iter().filter(|&&v| v > 3).count() as u32)
        .collect();
    assert_eq!(got, want);
    let any_neg = ReductionKernel::new(
        "T x", "bool y", "x < T(0)", "a || b", "y = a", "false", "anyneg",
    )
    .unwrap()
    .with_reduce_type("bool")
    .unwrap();
    let got = any_neg
        .call(args![&x], 0, false)
        .unwrap()
        .to_vec::<bool>()
        .unwrap();
    let want: Vec<bool> = (0..100)
        .map(|c| (0..10).any(|r| h[r * 100 + c] < 0))
        .collect();
    assert_eq!(got, want);
    // Long enough to split into two passes (partial bool accumulators stored between them),
    // along the reduced inner axis and along an outer one; each row/column holds at most one
    // negative, so a lost partial shows.
    let (rows, cols) = (20_000usize, 3usize);
    let mut long = vec![1i32; rows * cols];
    long[17_345 * cols + 1] = -1; // column 1
    long[3 * cols] = -5; // column 0
    let long_x = Array::from_slice(&long, &[rows, cols]).unwrap();
    let down = any_neg.call(args![&long_x], 0, false).unwrap();
    assert_eq!(down.to_vec::<bool>().unwrap(), vec![true, true, false]);
    let long_t = long_x.transpose(None).unwrap().ascontiguousarray().unwrap();
    let across = any_neg.call(args![&long_t], 1, false).unwrap();
    assert_eq!(across.to_vec::<bool>().unwrap(), vec![true, true, false]);
    let all = any_neg.call(args![&long_x], kp::Axis::All, false).unwrap();
    assert_eq!(all.to_vec::<bool>().unwrap(), vec![true]);
    // Sum in f32 of int32 values, then a post-map in the output type.
    let halfsum = ReductionKernel::new(
        "T x",
        "float32 y",
        "f32(x)",
        "a + b",
        "y = a * 0.5",
        "0",
        "halfsum",
    )
    .unwrap();
    let got = halfsum.call(args![&x], kp::Axis::All, true).unwrap();
    assert_eq!(got.shape(), &[1, 1]);
    assert_eq!(
        got.to_vec::<f32>().unwrap()[0],
        h.iter().sum::<i32>() as f32 * 0.5
    );
    // Empty reductions give post_map(identity), as in CuPy; empty outputs are empty.
    let e = Array::from_slice::<i32>(&[], &[3, 0]).unwrap();
    let mx7 =
        ReductionKernel::new("T x", "T y", "x", "max(a, b)", "y = a + T(7)", "-5", "m7").unwrap();
    let got = mx7.call(args![&e], 1, false).unwrap();
    assert_eq!(got.shape(), &[3]);
    assert_eq!(got.to_vec::<i32>().unwrap(), [2, 2, 2]);
    let got = mx7.call(args![&e], kp::Axis::All, true).unwrap();
    assert_eq!(got.shape(), &[1, 1]);
    assert_eq!(got.to_vec::<i32>().unwrap(), [2]);
    let got = mx7.call(args![&e], 0, false).unwrap();
    assert_eq!(got.shape(), &[0]);
    let x1 = Array::from_slice(&[1i32, -9, 3], &[3, 1]).unwrap();
    assert_eq!(
        mx7.call(args![&x1], 1, false)
            .unwrap()
            .to_vec::<i32>()
            .unwrap(),
        [8, 2, 10]
    );
}

const BLOCK_SUM: &str = "
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> partial: array<f32>;
@group(0) @binding(3) var<storage, read_write> hist: array<atomic<u32>>;
var<workgroup> tile: array<f32, 64>;

@compute @workgroup_size(64)
fn block_sum(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) l: u32) {
    let i = wg.x * 64u + l;
    let v = select(0.0, x[i], i < arrayLength(&x));
    tile[l] = v;
    workgroupBarrier();
    for (var w = 32u; w > 0u; w = w / 2u) {
        if (l < w) {
            tile[l] = tile[l] + tile[l + w];
        }
        workgroupBarrier();
    }
    if (l == 0u) {
        partial[wg.x] = tile[0];
    }
    if (i < arrayLength(&x)) {
        let bin = min(u32(max(v + 2.0, 0.0)), 3u);
        atomicAdd(&hist[bin], 1u);
    }
}

@compute @workgroup_size(64)
fn negate(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x < arrayLength(&partial)) {
        partial[g.x] = -partial[g.x];
    }
}
";

#[test]
fn raw_module_workgroup_memory_barriers_atomics() {
    let module = RawModule::new(BLOCK_SUM).unwrap();
    let mut eps = module.entry_points();
    eps.sort();
    assert_eq!(eps, ["block_sum", "negate"]);
    let n = 1000;
    let h = f32s(n, 18);
    let x = Array::from_slice(&h, &[n]).unwrap();
    let groups = n.div_ceil(64);
    let partial = kp::empty(&[groups], Some(DType::F32)).unwrap();
    let hist = kp::zeros(&[4], Some(DType::U32)).unwrap();
    let k = module.get_function("block_sum").unwrap();
    assert_eq!(k.workgroup_size(), [64, 1, 1]);
    assert_eq!(k.nargs(), (3, 0));
    k.launch([groups as u32, 1, 1], args![&x, &partial, &hist])
        .unwrap();
    module
        .get_function("negate")
        .unwrap()
        .launch([1, 1, 1], args![&partial])
        .unwrap();
    let want: Vec<f32> = h.chunks(64).map(|c| -c.iter().sum::<f32>()).collect();
    close(&partial.to_vec::<f32>().unwrap(), &want, 1e-5, "block sums");
    let mut wh = [0u32; 4];
    for v in &h {
        wh[((v + 2.0).max(0.0) as u32).min(3) as usize] += 1;
    }
    assert_eq!(hist.to_vec::<u32>().unwrap(), wh);
}

#[test]
fn raw_kernel_subgroups_where_the_adapter_has_them() {
    let src = "
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(subgroup_invocation_id) s: u32) {
    let total = subgroupAdd(x[g.x]);
    if (s == 0u) {
        out[g.x] = total;
    }
}";
    let has = dev().info().features.contains(kp::wgpu::Features::SUBGROUP);
    match RawKernel::new(src, "main") {
        Ok(k) => {
            assert!(has, "subgroup module accepted without the SUBGROUP feature");
            let x = kp::ones(&[64], Some(DType::F32)).unwrap();
            let out = kp::zeros(&[64], Some(DType::F32)).unwrap();
            k.launch([1, 1, 1], args![&x, &out]).unwrap();
            let got = out.to_vec::<f32>().unwrap();
            // Subgroup sizes vary by adapter; the first lane of each subgroup holds its size.
            let size = got[0] as usize;
            assert!(size >= 1 && 64 % size == 0, "{got:?}");
            for (i, v) in got.iter().enumerate() {
                let w = if i % size == 0 { size as f32 } else { 0.0 };
                assert_eq!(*v, w, "lane {i}");
            }
        }
        Err(e) => {
            assert!(!has, "{e}");
            assert!(matches!(e, Error::Unsupported(_)), "{e}");
        }
    }
}

fn compile_at(e: Error) -> (usize, usize, String) {
    match e {
        Error::Compile {
            line,
            column,
            message,
        } => (line, column, message),
        e => panic!("expected a compile error, got {e}"),
    }
}

#[test]
fn wgsl_errors_point_into_the_users_text() {
    let (_d, _g) = own_device();
    let x = Array::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    let before = dispatches();
    // Line 2, column 9 of the snippet: an unknown identifier.
    let k = ElementwiseKernel::new("T x", "T y", "let t = x * 2.0;\ny = t + nope;", "bad").unwrap();
    let (l, c, m) = compile_at(k.call(args![&x]).unwrap_err());
    assert_eq!((l, c), (2, 9), "{m}");
    assert!(m.contains("bad") && m.contains("operation"), "{m}");
    // A type error (naga's validator): assigning an i32 to an f32 output.
    let k = ElementwiseKernel::new("float32 x", "float32 y", "y = 1i;", "typed").unwrap();
    let (l, _, m) = compile_at(k.call(args![&x]).unwrap_err());
    assert_eq!(l, 1, "{m}");
    // ReductionKernel: an error in reduce_expr, located there.
    let r = ReductionKernel::new("T x", "T y", "x", "a +* b", "y = a", "0", "r").unwrap();
    let (l, c, m) = compile_at(r.call(args![&x], kp::Axis::All, false).unwrap_err());
    assert!(m.contains("reduce_expr"), "{m}");
    assert_eq!((l, c), (1, 4), "{m}");
    let r =
        ReductionKernel::new("T x", "T y", "x\n  * undefined", "a + b", "y = a", "0", "r").unwrap();
    let (l, c, m) = compile_at(r.call(args![&x], kp::Axis::All, false).unwrap_err());
    assert!(m.contains("map_expr"), "{m}");
    assert_eq!((l, c), (2, 5), "{m}");
    // A raw module: line and column in the module.
    let e = RawModule::new("@compute @workgroup_size(1)\nfn main() {\n    let a = 1 +;\n}")
        .unwrap_err();
    let (l, _, m) = compile_at(e);
    assert_eq!(l, 3, "{m}");
    assert_eq!(dispatches(), before, "nothing may be dispatched");
}

#[test]
fn argument_errors_before_any_dispatch() {
    let (_d, _g) = own_device();
    let x = Array::from_slice(&[1.0f32, 2.0, 3.0], &[3]).unwrap();
    let xi = Array::from_slice(&[1i32, 2, 3], &[3]).unwrap();
    let y4 = Array::from_slice(&[1.0f32; 4], &[4]).unwrap();
    let before = dispatches();
    let k = ElementwiseKernel::new("T x, T y", "T z", "z = x + y", "add2").unwrap();
    let e = k.call(args![&x]).unwrap_err().to_string();
    assert!(e.contains("takes 2 inputs"), "{e}");
    let e = k.call(args![&x, &xi]).unwrap_err().to_string();
    assert!(e.contains("placeholder T"), "{e}");
    let e = k.call(args![&x, &y4]).unwrap_err();
    assert!(matches!(e, Error::ShapeMismatch { .. }), "{e}");
    let out = Array::from_slice(&[0.0f32; 2], &[2]).unwrap();
    assert!(matches!(
        k.call(args![&x, &x, &out]).unwrap_err(),
        Error::ShapeMismatch { .. }
    ));
    assert!(k.call(args![&x, &x, 1.0]).is_err());
    let f = ElementwiseKernel::new("float32 x", "float32 y", "y = x", "f").unwrap();
    let e = f.call(args![&xi]).unwrap_err().to_string();
    assert!(e.contains("declared float32") && e.contains("int32"), "{e}");
    let u = ElementwiseKernel::new("float32 x", "U y", "y = x", "u").unwrap();
    assert!(u
        .call(args![&x])
        .unwrap_err()
        .to_string()
        .contains("not bound"));
    assert!(ElementwiseKernel::new("raw T x", "T y", "y = x[0]", "r").is_err());
    assert!(ElementwiseKernel::new("T x", "T x", "x = x", "dup").is_err());
    assert!(ElementwiseKernel::new("T x", "", "", "none").is_err());
    let r = ReductionKernel::new("T x", "T y", "x", "a + b", "y = a", "0", "r").unwrap();
    assert!(r.call(args![&x, &x], kp::Axis::All, false).is_err());
    assert!(r.call(args![&x], 1, false).is_err());
    assert!(ReductionKernel::new("T x", "T y, T z", "x", "a + b", "y = a", "0", "r").is_err());
    // Raw kernels: count, dtype, read_write views.
    let saxpy = RawKernel::new(ex_saxpy::SAXPY, "saxpy").unwrap();
    assert_eq!(saxpy.nargs(), (3, 2));
    let out = kp::empty(&[3], Some(DType::F32)).unwrap();
    let e = saxpy
        .launch([1, 1, 1], args![2.0, &x, &x, &out])
        .unwrap_err()
        .to_string();
    assert!(e.contains("takes 3 arrays"), "{e}");
    let e = saxpy
        .launch([1, 1, 1], args![2.0, &xi, &x, &out, 3])
        .unwrap_err()
        .to_string();
    assert!(e.contains("int32"), "{e}");
    let e = saxpy
        .launch([1, 1, 1], args![2.0, &x, &x, &out, -3])
        .unwrap_err()
        .to_string();
    assert!(e.contains("'n'"), "{e}");
    let big = kp::empty(&[6], Some(DType::F32)).unwrap();
    let strided = big.slice(&kp::s![..;2]).unwrap();
    let e = saxpy
        .launch([1, 1, 1], args![2.0, &x, &x, &strided, 3])
        .unwrap_err()
        .to_string();
    assert!(e.contains("read_write"), "{e}");
    assert!(RawKernel::new(ex_saxpy::SAXPY, "nope").is_err());
    let fixed = RawKernel::new(
        "@group(0) @binding(1) var<storage, read_write> v: array<f32, 64>;
         @compute @workgroup_size(1) fn main() { v[63] = 1.0; }",
        "main",
    )
    .unwrap();
    let e = fixed
        .launch([1, 1, 1], args![&out])
        .unwrap_err()
        .to_string();
    assert!(e.contains("at least 256"), "{e}");
    assert_eq!(dispatches(), before, "nothing may be dispatched");
    // A read-only strided view is copied and works.
    saxpy
        .launch(
            [1, 1, 1],
            args![2.0, &strided.astype(DType::F32).unwrap(), &x, &out, 3],
        )
        .unwrap();
}
