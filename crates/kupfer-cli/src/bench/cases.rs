//! The benchmark cases: names, parameters and metrics exactly as `shared/bench/cupy_anchor.py`
//! has them, each with its kupfer form and a plain-Rust CPU reference.
//!
//! Only cases whose operation kupfer has are here (the README: "a case whose operation is not
//! built yet is left out, not faked").

use super::{cpu_time, gpu_time, wall_time, Timing};
use crate::common::HostRng;
use crate::error::CliResult;
use kupfer as kp;
use kupfer::{Array, Axis, DType};
use serde_json::Value;
use std::hint::black_box;

/// Element counts of the 1-D cases (`for n in (1 << 20, 1 << 24, 1 << 26)`).
pub const VECTOR_SIZES: &[usize] = &[1 << 20, 1 << 24, 1 << 26];
/// Element counts of the transfer cases (`for n in (1 << 20, 1 << 26)`).
pub const TRANSFER_SIZES: &[usize] = &[1 << 20, 1 << 26];
/// Side of the square matrix cases (`4096sq`).
pub const SQUARE: usize = 4096;
/// Elements of the tiny cases.
pub const TINY: usize = 16;
/// Operations per synchronize in `tiny_op_amortized_wall`.
pub const TINY_OPS_PER_SYNC: usize = 100;
/// Repetitions of the per-op wall-clock cases (the anchor's `reps=2000`).
pub const TINY_REPS: usize = 2000;

/// Which inputs a case needs, and so which sizes it runs at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// Two random f32 vectors `x`, `y` of n elements, n in [`VECTOR_SIZES`].
    Vector,
    /// A random 4096 × 4096 f32 matrix (and a 4096-element `linspace`).
    Square,
    /// A 16-element f32 array of ones.
    Tiny,
    /// A random f32 host vector of n elements, n in [`TRANSFER_SIZES`].
    Transfer,
    /// Matrix products; the square cases run at every side in
    /// [`MATMUL_SIZES`](super::matmul::MATMUL_SIZES) (`n` = the side).
    Matmul,
    /// A matmul case of one fixed size.
    MatmulFixed,
    /// FFT inputs made by the case (sizes from `fft_cases::sizes`).
    Fft,
    /// A random f32 image made by the case (side from `signal_cases::side`).
    Signal,
    /// Factorizations (`linalg_cases`): n in `linalg_cases::SIZES`, or k in
    /// `linalg_cases::BATCHED_K` for the batched cases.
    Linalg,
    /// Array manipulation inputs made by the case (`manip_cases`).
    Manip,
    /// Random numbers drawn by the case (sizes from `random_cases::sizes`).
    Random,
    /// Sorting inputs made by the case (sizes from `sort_cases::sizes`).
    Sort,
    /// Indexing inputs made by the case (sizes from `index_cases::sizes`).
    Index,
    /// A whole program with a scalar read-back every iteration (`loop_cases`).
    Loop,
}

/// One benchmark case.
#[derive(Debug)]
pub struct Case {
    /// The anchor's case name.
    pub name: &'static str,
    /// Its inputs.
    pub group: Group,
    /// What it runs, in NumPy terms.
    pub about: &'static str,
}

/// Every case, in the anchor's order.
pub const CASES: &[Case] = &[
    Case {
        name: "saxpy_expr",
        group: Group::Vector,
        about: "2.0 * x + y",
    },
    Case {
        name: "saxpy_kernel",
        group: Group::Vector,
        about: "ElementwiseKernel('float32 x, float32 y', 'float32 z', 'z = 2.0 * x + y')",
    },
    Case {
        name: "chain5_unfused",
        group: Group::Vector,
        about: "(x * 2 + y * 3) / (x + y + 1)",
    },
    Case {
        name: "chain5_fused",
        group: Group::Vector,
        about: "fuse(|x, y| (x * 2 + y * 3) / (x + y + 1))",
    },
    Case {
        name: "sin_plus_cos",
        group: Group::Vector,
        about: "sin(x) + cos(x)",
    },
    Case {
        name: "sum",
        group: Group::Vector,
        about: "x.sum()",
    },
    Case {
        name: "max",
        group: Group::Vector,
        about: "x.max()",
    },
    Case {
        name: "argmax",
        group: Group::Vector,
        about: "x.argmax()",
    },
    Case {
        name: "cumsum",
        group: Group::Vector,
        about: "cumsum(x)",
    },
    Case {
        name: "sum_axis0_4096sq",
        group: Group::Square,
        about: "m.sum(axis=0)",
    },
    Case {
        name: "sum_axis1_4096sq",
        group: Group::Square,
        about: "m.sum(axis=1)",
    },
    Case {
        name: "std_axis1_4096sq",
        group: Group::Square,
        about: "m.std(axis=1)",
    },
    Case {
        name: "transpose_copy_4096sq",
        group: Group::Square,
        about: "m.T.copy()",
    },
    Case {
        name: "broadcast_mul_mean_axis0",
        group: Group::Square,
        about: "(m * linspace(0, 1, 4096)).mean(axis=0)",
    },
    Case {
        name: "matmul_float32",
        group: Group::Matmul,
        about: "a @ b, float32 n x n",
    },
    Case {
        name: "matmul_float16",
        group: Group::Matmul,
        about: "a @ b, float16 n x n (float32 accumulation)",
    },
    Case {
        name: "matmul_float64",
        group: Group::Matmul,
        about: "a @ b, float64 n x n (not an anchor case; needs SHADER_F64)",
    },
    Case {
        name: "matmul_complex64",
        group: Group::Matmul,
        about: "a @ b, complex64 n x n (not an anchor case; tflops count 8 n^3)",
    },
    Case {
        name: "matmul_epilogue_float32",
        group: Group::Matmul,
        about: "(a @ b) * 2 + c, float32 n x n (the expression fused into the matmul; not an anchor case)",
    },
    Case {
        name: "batched_matmul_64x256",
        group: Group::MatmulFixed,
        about: "m @ m, m float32 64 x 256 x 256",
    },
    Case {
        name: "gemv_4096",
        group: Group::MatmulFixed,
        about: "A @ v, A float32 4096 x 4096, v 4096",
    },
    Case {
        name: "fft_c64",
        group: Group::Fft,
        about: "fft.fft(z), z complex64",
    },
    Case {
        name: "rfft_f32",
        group: Group::Fft,
        about: "fft.rfft(r), r float32",
    },
    Case {
        name: "fft_c64_batched_1024x4096",
        group: Group::Fft,
        about: "fft.fft(z, axis=1), z complex64 (1024, 4096)",
    },
    Case {
        name: "fft2_c64_4096sq",
        group: Group::Fft,
        about: "fft.fft2(z), z complex64 (4096, 4096)",
    },
    Case {
        name: "fft_c64_nonpow2",
        group: Group::Fft,
        about: "fft.fft(z), z complex64, n not a power of two",
    },
    Case {
        name: "convolve2d_1024_3x3",
        group: Group::Signal,
        about: "signal.convolve2d(img, k3, mode='same', boundary='symm'), img (1024, 1024)",
    },
    Case {
        name: "convolve2d_4096_3x3",
        group: Group::Signal,
        about: "signal.convolve2d(img, k3, mode='same', boundary='symm'), img (4096, 4096)",
    },
    Case {
        name: "solve_float32",
        group: Group::Linalg,
        about: "linalg.solve(a, b), b (n, 1), float32",
    },
    Case {
        name: "inv_float32",
        group: Group::Linalg,
        about: "linalg.inv(a), float32",
    },
    Case {
        name: "cholesky_float32",
        group: Group::Linalg,
        about: "linalg.cholesky(s), s = a a^T + n I, float32",
    },
    Case {
        name: "det_float32",
        group: Group::Linalg,
        about: "linalg.det(a), float32",
    },
    Case {
        name: "solve_float64",
        group: Group::Linalg,
        about: "linalg.solve(a, b), b (n, 1), float64",
    },
    Case {
        name: "inv_float64",
        group: Group::Linalg,
        about: "linalg.inv(a), float64",
    },
    Case {
        name: "cholesky_float64",
        group: Group::Linalg,
        about: "linalg.cholesky(s), s = a a^T + n I, float64",
    },
    Case {
        name: "det_float64",
        group: Group::Linalg,
        about: "linalg.det(a), float64",
    },
    Case {
        name: "batched_inv_float32",
        group: Group::Linalg,
        about: "linalg.inv(b), b (batch, k, k), float32",
    },
    Case {
        name: "batched_solve_float32",
        group: Group::Linalg,
        about: "linalg.solve(b, rhs), rhs (batch, k, 1), float32",
    },
    Case {
        name: "batched_inv_float64",
        group: Group::Linalg,
        about: "linalg.inv(b), b (batch, k, k), float64",
    },
    Case {
        name: "batched_solve_float64",
        group: Group::Linalg,
        about: "linalg.solve(b, rhs), rhs (batch, k, 1), float64",
    },
    Case {
        name: "qr_4096x1024_float32",
        group: Group::Linalg,
        about: "linalg.qr(t), t (4096, n), float32",
    },
    Case {
        name: "lstsq_4096x1024_float32",
        group: Group::Linalg,
        about: "linalg.lstsq(t, t[:, :1], rcond=None), t (4096, n), float32",
    },
    Case {
        name: "svd_float32",
        group: Group::Linalg,
        about: "linalg.svd(m, full_matrices=False), float32",
    },
    Case {
        name: "svdvals_float32",
        group: Group::Linalg,
        about: "linalg.svd(m, compute_uv=False), float32",
    },
    Case {
        name: "eigh_float32",
        group: Group::Linalg,
        about: "linalg.eigh(m + m^T), float32",
    },
    Case {
        name: "eigvalsh_float32",
        group: Group::Linalg,
        about: "linalg.eigvalsh(m + m^T), float32",
    },
    Case {
        name: "batched_eigh_float32",
        group: Group::Linalg,
        about: "linalg.eigh(b + b^T), b (batch, k, k), float32",
    },
    Case {
        name: "qr_4096x1024_float64",
        group: Group::Linalg,
        about: "linalg.qr(t), t (4096, n), float64",
    },
    Case {
        name: "lstsq_4096x1024_float64",
        group: Group::Linalg,
        about: "linalg.lstsq(t, t[:, :1], rcond=None), t (4096, n), float64",
    },
    Case {
        name: "svd_float64",
        group: Group::Linalg,
        about: "linalg.svd(m, full_matrices=False), float64",
    },
    Case {
        name: "svdvals_float64",
        group: Group::Linalg,
        about: "linalg.svd(m, compute_uv=False), float64",
    },
    Case {
        name: "eigh_float64",
        group: Group::Linalg,
        about: "linalg.eigh(m + m^T), float64",
    },
    Case {
        name: "eigvalsh_float64",
        group: Group::Linalg,
        about: "linalg.eigvalsh(m + m^T), float64",
    },
    Case {
        name: "batched_eigh_float64",
        group: Group::Linalg,
        about: "linalg.eigh(b + b^T), b (batch, k, k), float64",
    },
    Case {
        name: "concatenate_4x2^24",
        group: Group::Manip,
        about: "concatenate(parts), four float32 vectors of 2^24",
    },
    Case {
        name: "stack_axis1_4x2^24",
        group: Group::Manip,
        about: "stack(parts, axis=1), four float32 vectors of 2^24",
    },
    Case {
        name: "pad_reflect_4096sq",
        group: Group::Manip,
        about: "pad(m, 16, mode='reflect'), m float32 (4096, 4096)",
    },
    Case {
        name: "roll_axis1_4096sq",
        group: Group::Manip,
        about: "roll(m, 7, axis=1)",
    },
    Case {
        name: "flip_copy_4096sq",
        group: Group::Manip,
        about: "flip(m, axis=0).copy()",
    },
    Case {
        name: "uint8_affine_to_f32_2^26",
        group: Group::Manip,
        about: "x.astype(float32) * 0.5 + 3, x uint8 (packed)",
    },
    Case {
        name: "uint8_add_2^26",
        group: Group::Manip,
        about: "x + y, uint8 (packed)",
    },
    Case {
        name: "uint8_sort_2^24",
        group: Group::Manip,
        about: "sort(x), uint8 (packed source and result)",
    },
    Case {
        name: "uint8_setitem_strided_2^26",
        group: Group::Manip,
        about: "x[1::2] = 7 in place, uint8 (packed words)",
    },
    Case {
        name: "uint8_setitem_contiguous_2^26",
        group: Group::Manip,
        about: "x[4:] = y[4:] in place, uint8 (whole packed words copied)",
    },
    Case {
        name: "uint8_add_at_2^26",
        group: Group::Manip,
        about: "np.add.at(x, idx, 1), 2^22 random indices, uint8 (packed words)",
    },
    Case {
        name: "tril_4096sq",
        group: Group::Manip,
        about: "tril(m)",
    },
    Case {
        name: "rand",
        group: Group::Random,
        about: "rng.random(n, dtype=float32)",
    },
    Case {
        name: "randn",
        group: Group::Random,
        about: "rng.standard_normal(n, dtype=float32)",
    },
    Case {
        name: "integers",
        group: Group::Random,
        about: "rng.integers(0, 1000, n, dtype=int32)",
    },
    Case {
        name: "exponential",
        group: Group::Random,
        about: "rng.standard_exponential(n, dtype=float32)",
    },
    Case {
        name: "rand_affine_2^26",
        group: Group::Random,
        about: "rng.random(2**26, dtype=float32) * 2 - 1 (one kernel)",
    },
    Case {
        name: "permutation",
        group: Group::Random,
        about: "random.permutation(2**24)",
    },
    Case {
        name: "gamma",
        group: Group::Random,
        about: "random.gamma(2.0, size=2**24, dtype=float32)",
    },
    Case {
        name: "poisson",
        group: Group::Random,
        about: "random.poisson(3.0, size=2**24)",
    },
    Case {
        name: "choice_noreplace_2^20",
        group: Group::Random,
        about: "random.choice(2**20, size=2**20, replace=False)",
    },
    Case {
        name: "sort",
        group: Group::Sort,
        about: "sort(x), x float32",
    },
    Case {
        name: "argsort",
        group: Group::Sort,
        about: "argsort(x), x float32",
    },
    Case {
        name: "sort_int32",
        group: Group::Sort,
        about: "sort(x), x int32 2^24",
    },
    Case {
        name: "sort_float64",
        group: Group::Sort,
        about: "sort(x), x float64 2^24 (needs SHADER_F64)",
    },
    Case {
        name: "sort_axis1_4096sq",
        group: Group::Sort,
        about: "sort(m, axis=1), m float32 (4096, 4096)",
    },
    Case {
        name: "partition_median_2^24",
        group: Group::Sort,
        about: "partition(x, 2^23), x float32 2^24",
    },
    Case {
        name: "median",
        group: Group::Sort,
        about: "median(x), x float32 2^24",
    },
    Case {
        name: "percentile_axis1_4096sq",
        group: Group::Sort,
        about: "percentile(m, [5, 50, 95], axis=1), m float32 (4096, 4096)",
    },
    Case {
        name: "searchsorted_2^24_q2^20",
        group: Group::Sort,
        about: "searchsorted(sort(x), q), x float32 2^24, q 2^20",
    },
    Case {
        name: "unique_int32_2^24",
        group: Group::Sort,
        about: "unique(x), x int32 2^24 in [0, 2^20)",
    },
    Case {
        name: "unique_counts_int32_2^24",
        group: Group::Sort,
        about: "unique(x, return_counts=True), x int32 2^24 in [0, 2^20)",
    },
    Case {
        name: "isin_2^22_2^20",
        group: Group::Sort,
        about: "isin(a, b), a int32 2^22, b int32 2^20, both in [0, 2^22)",
    },
    Case {
        name: "tiny_op_wall",
        group: Group::Tiny,
        about: "t + 1.0 on 16 elements, then synchronize (as CuPy's tiny_op_wall)",
    },
    Case {
        name: "tiny_op_amortized_wall",
        group: Group::Tiny,
        about: "t + 1.0 on 16 elements, 100 ops per synchronize (kupfer's own case: per op)",
    },
    Case {
        name: "tiny_sum_to_host_wall",
        group: Group::Tiny,
        about: "float(t.sum()) on 16 elements",
    },
    Case {
        name: "loop_mandelbrot_1024sq_100it",
        group: Group::Loop,
        about: "the seed's Mandelbrot, 1024x1024, 100 iterations, mask.any() read back each",
    },
    Case {
        name: "loop_cg_dense_1024_200it",
        group: Group::Loop,
        about: "200 conjugate-gradient iterations, dense 1024 SPD system, 2 read-backs each",
    },
    Case {
        name: "h2d_pageable",
        group: Group::Transfer,
        about: "asarray(host) + synchronize",
    },
    Case {
        name: "d2h_pageable",
        group: Group::Transfer,
        about: "asnumpy(device array)",
    },
    Case {
        name: "mask_select",
        group: Group::Index,
        about: "x[x > 0.5]",
    },
    Case {
        name: "mask_assign_scalar",
        group: Group::Index,
        about: "y[y > 0.5] = 0.0",
    },
    Case {
        name: "take_random",
        group: Group::Index,
        about: "x[idx] (random int32 indices)",
    },
    Case {
        name: "nonzero",
        group: Group::Index,
        about: "nonzero(x > 0.5)",
    },
    Case {
        name: "mask_update_mandelbrot_2048sq",
        group: Group::Index,
        about: "Z[mask] = Z[mask] * Z[mask] + C[mask] (complex64, fused)",
    },
    Case {
        name: "take_rows_4096sq",
        group: Group::Index,
        about: "m[rows] (4096 random rows)",
    },
];

/// The case called `name`.
pub fn find(name: &str) -> Option<&'static Case> {
    CASES.iter().find(|c| c.name == name)
}

/// One case's result.
#[derive(Debug, Clone)]
pub struct Measurement {
    /// Median milliseconds.
    pub ms: f64,
    /// Parameters, as the anchor names them (`n`).
    pub params: Vec<(&'static str, Value)>,
    /// The figure of merit, as the anchor names it (`gbs`), if the anchor has one.
    pub metric: Option<(&'static str, f64)>,
    /// Fields the anchor does not have (`mode`), so nobody mistakes what was timed.
    pub extra: Vec<(&'static str, Value)>,
    /// Median milliseconds of the same computation on the CPU in plain Rust.
    pub cpu_ms: Option<f64>,
}

impl Measurement {
    pub(crate) fn new(ms: f64) -> Measurement {
        Measurement {
            ms,
            params: Vec::new(),
            metric: None,
            extra: Vec::new(),
            cpu_ms: None,
        }
    }

    /// `tflops` = `flops` / time, as the anchor computes it.
    pub(crate) fn tflops(mut self, flops: f64) -> Self {
        self.metric = Some(("tflops", flops / (self.ms / 1e3) / 1e12));
        self
    }

    /// A figure of merit the anchor names (`mkeys_s`).
    pub(crate) fn metric(mut self, name: &'static str, v: f64) -> Self {
        self.metric = Some((name, v));
        self
    }

    pub(crate) fn n(mut self, n: usize) -> Self {
        self.params.push(("n", Value::from(n)));
        self
    }

    /// `gbs` = `bytes` / time, as the anchor computes it.
    pub(crate) fn gbs(mut self, bytes: f64) -> Self {
        self.metric = Some(("gbs", bytes / (self.ms / 1e3) / 1e9));
        self
    }

    pub(crate) fn extra(mut self, key: &'static str, v: impl Into<Value>) -> Self {
        self.extra.push((key, v.into()));
        self
    }

    pub(crate) fn cpu(mut self, ms: Option<f64>) -> Self {
        self.cpu_ms = ms;
        self
    }
}

/// Repetitions of a CPU reference: fewer for big inputs.
fn cpu_reps(n: usize) -> usize {
    if n >= 1 << 24 {
        3
    } else {
        10
    }
}

/// Runs a CPU reference if asked to.
fn maybe_cpu(t: &Timing, n: usize, f: impl FnMut()) -> Option<f64> {
    t.cpu.then(|| cpu_time(cpu_reps(n), f))
}

/// Inputs of the [`Group::Vector`] cases.
pub struct VectorInputs {
    n: usize,
    hx: Vec<f32>,
    hy: Vec<f32>,
    x: Array,
    y: Array,
}

impl VectorInputs {
    /// Two random f32 vectors of `n` elements (`rng.random(n, dtype=float32)`), on the host
    /// and on `dev`.
    pub fn new(dev: &kp::Device, n: usize) -> CliResult<VectorInputs> {
        let mut rng = HostRng::new(0);
        let hx = rng.uniform_f32(n);
        let hy = rng.uniform_f32(n);
        let x = Array::from_slice_on(dev, &hx, &[n])?;
        let y = Array::from_slice_on(dev, &hy, &[n])?;
        Ok(VectorInputs { n, hx, hy, x, y })
    }
}

/// Runs a [`Group::Vector`] case.
pub fn run_vector(case: &Case, inp: &VectorInputs, t: &Timing) -> CliResult<Measurement> {
    let (x, y, hx, hy, n) = (&inp.x, &inp.y, &inp.hx, &inp.hy, inp.n);
    let bytes3 = 3.0 * 4.0 * n as f64;
    let bytes1 = 4.0 * n as f64;
    let m = match case.name {
        "saxpy_expr" => {
            let ms = gpu_time(t, 20, || kp::add(kp::multiply(2.0, x)?, y))?;
            let cpu = maybe_cpu(t, n, || {
                let z: Vec<f32> = hx.iter().zip(hy).map(|(a, b)| 2.0 * a + b).collect();
                black_box(z);
            });
            Measurement::new(ms).n(n).gbs(bytes3).cpu(cpu)
        }
        "saxpy_kernel" => {
            let k = kp::ElementwiseKernel::new(
                "float32 x, float32 y",
                "float32 z",
                "z = 2.0 * x + y;",
                "saxpy_k",
            )?;
            let ms = gpu_time(t, 20, || k.call(kp::args![x, y]))?;
            let cpu = maybe_cpu(t, n, || {
                let z: Vec<f32> = hx.iter().zip(hy).map(|(a, b)| 2.0 * a + b).collect();
                black_box(z);
            });
            Measurement::new(ms).n(n).gbs(bytes3).cpu(cpu)
        }
        "chain5_fused" => {
            let f = kp::fuse(|x: &Array, y: &Array| (x * 2.0 + y * 3.0) / (x + y + 1.0));
            let ms = gpu_time(t, 20, || f.call(&[x, y]))?;
            let cpu = maybe_cpu(t, n, || {
                let z: Vec<f32> = hx
                    .iter()
                    .zip(hy)
                    .map(|(a, b)| (a * 2.0 + b * 3.0) / (a + b + 1.0))
                    .collect();
                black_box(z);
            });
            Measurement::new(ms).n(n).gbs(bytes3).cpu(cpu)
        }
        "chain5_unfused" => {
            let ms = gpu_time(t, 20, || {
                let num = kp::add(kp::multiply(x, 2.0)?, kp::multiply(y, 3.0)?)?;
                let den = kp::add(kp::add(x, y)?, 1.0)?;
                kp::divide(num, den)
            })?;
            let cpu = maybe_cpu(t, n, || {
                let z: Vec<f32> = hx
                    .iter()
                    .zip(hy)
                    .map(|(a, b)| (a * 2.0 + b * 3.0) / (a + b + 1.0))
                    .collect();
                black_box(z);
            });
            Measurement::new(ms).n(n).gbs(bytes3).cpu(cpu)
        }
        "sin_plus_cos" => {
            let ms = gpu_time(t, 20, || kp::add(kp::sin(x)?, kp::cos(x)?))?;
            let cpu = maybe_cpu(t, n, || {
                let z: Vec<f32> = hx.iter().map(|a| a.sin() + a.cos()).collect();
                black_box(z);
            });
            Measurement::new(ms).n(n).cpu(cpu)
        }
        "sum" => {
            let ms = gpu_time(t, 20, || kp::sum(x, Axis::All, false))?;
            let cpu = maybe_cpu(t, n, || {
                black_box(hx.iter().sum::<f32>());
            });
            Measurement::new(ms).n(n).gbs(bytes1).cpu(cpu)
        }
        "max" => {
            let ms = gpu_time(t, 20, || kp::max(x, Axis::All, false))?;
            let cpu = maybe_cpu(t, n, || {
                black_box(hx.iter().copied().fold(f32::NEG_INFINITY, f32::max));
            });
            Measurement::new(ms).n(n).gbs(bytes1).cpu(cpu)
        }
        "argmax" => {
            let ms = gpu_time(t, 20, || kp::argmax(x, None, false))?;
            let cpu = maybe_cpu(t, n, || {
                let mut best = (0usize, f32::NEG_INFINITY);
                for (i, &v) in hx.iter().enumerate() {
                    if v > best.1 {
                        best = (i, v);
                    }
                }
                black_box(best);
            });
            Measurement::new(ms).n(n).gbs(bytes1).cpu(cpu)
        }
        "cumsum" => {
            let ms = gpu_time(t, 20, || kp::cumsum(x, None, None))?;
            let cpu = maybe_cpu(t, n, || {
                let mut acc = 0f32;
                let z: Vec<f32> = hx
                    .iter()
                    .map(|&v| {
                        acc += v;
                        acc
                    })
                    .collect();
                black_box(z);
            });
            Measurement::new(ms).n(n).gbs(2.0 * bytes1).cpu(cpu)
        }
        other => unreachable!("{other} is not a vector case"),
    };
    Ok(m)
}

/// Inputs of the [`Group::Square`] cases.
pub struct SquareInputs {
    hm: Vec<f32>,
    hw: Vec<f32>,
    m: Array,
    w: Array,
}

impl SquareInputs {
    /// A random 4096 × 4096 f32 matrix and `linspace(0, 1, 4096, dtype=float32)`.
    pub fn new(dev: &kp::Device) -> CliResult<SquareInputs> {
        let mut rng = HostRng::new(1);
        let hm = rng.uniform_f32(SQUARE * SQUARE);
        let m = Array::from_slice_on(dev, &hm, &[SQUARE, SQUARE])?;
        let _guard = dev.use_device();
        let w = kp::linspace(0.0, 1.0, SQUARE, true, Some(DType::F32))?;
        let hw = w.to_vec::<f32>()?;
        Ok(SquareInputs { hm, hw, m, w })
    }
}

/// Runs a [`Group::Square`] case.
pub fn run_square(case: &Case, inp: &SquareInputs, t: &Timing) -> CliResult<Measurement> {
    let (m, w, hm, hw) = (&inp.m, &inp.w, &inp.hm, &inp.hw);
    let n = SQUARE;
    let bytes = 4.0 * (n * n) as f64;
    let cpu = |f: &mut dyn FnMut()| maybe_cpu(t, n * n, f);
    let r = match case.name {
        "sum_axis0_4096sq" => {
            let ms = gpu_time(t, 20, || kp::sum(m, 0, false))?;
            let c = cpu(&mut || {
                let mut out = vec![0f32; n];
                for row in hm.chunks_exact(n) {
                    for (o, v) in out.iter_mut().zip(row) {
                        *o += v;
                    }
                }
                black_box(out);
            });
            Measurement::new(ms).gbs(bytes).cpu(c)
        }
        "sum_axis1_4096sq" => {
            let ms = gpu_time(t, 20, || kp::sum(m, 1, false))?;
            let c = cpu(&mut || {
                let out: Vec<f32> = hm.chunks_exact(n).map(|r| r.iter().sum()).collect();
                black_box(out);
            });
            Measurement::new(ms).gbs(bytes).cpu(c)
        }
        "std_axis1_4096sq" => {
            let ms = gpu_time(t, 20, || kp::reduce::std(m, 1, 0, false))?;
            let c = cpu(&mut || {
                let out: Vec<f32> = hm
                    .chunks_exact(n)
                    .map(|r| {
                        let mean = r.iter().sum::<f32>() / n as f32;
                        let var = r.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>();
                        (var / n as f32).sqrt()
                    })
                    .collect();
                black_box(out);
            });
            Measurement::new(ms).cpu(c)
        }
        "transpose_copy_4096sq" => {
            let ms = gpu_time(t, 20, || m.t()?.copy())?;
            let c = cpu(&mut || {
                let mut out = vec![0f32; n * n];
                // Blocked, as any sensible CPU transpose is.
                const B: usize = 64;
                for i0 in (0..n).step_by(B) {
                    for j0 in (0..n).step_by(B) {
                        for i in i0..i0 + B {
                            for j in j0..j0 + B {
                                out[j * n + i] = hm[i * n + j];
                            }
                        }
                    }
                }
                black_box(out);
            });
            Measurement::new(ms).gbs(2.0 * bytes).cpu(c)
        }
        "broadcast_mul_mean_axis0" => {
            let ms = gpu_time(t, 20, || kp::mean(&kp::multiply(m, w)?, 0, false))?;
            let c = cpu(&mut || {
                let mut out = vec![0f32; n];
                for row in hm.chunks_exact(n) {
                    for ((o, v), s) in out.iter_mut().zip(row).zip(hw) {
                        *o += v * s;
                    }
                }
                out.iter_mut().for_each(|o| *o /= n as f32);
                black_box(out);
            });
            Measurement::new(ms).cpu(c)
        }
        other => unreachable!("{other} is not a square case"),
    };
    Ok(r)
}

/// Runs a [`Group::Tiny`] case on a 16-element array of ones.
pub fn run_tiny(case: &Case, t: &Timing) -> CliResult<Measurement> {
    let dev = &t.device;
    let tiny = {
        let _guard = dev.use_device();
        let a = kp::ones(&[TINY], Some(DType::F32))?;
        a.eval()?;
        a
    };
    let host = vec![1f32; TINY];
    // The CPU reference of a 16-element op: far below a timer's resolution, so time 10 000.
    let cpu_per_op = |f: &mut dyn FnMut()| {
        t.cpu.then(|| {
            cpu_time(5, || {
                for _ in 0..10_000 {
                    f();
                }
            }) / 10_000.0
        })
    };
    let add_cpu = &mut || {
        let z: Vec<f32> = black_box(&host).iter().map(|v| v + 1.0).collect();
        black_box(z);
    };
    let r = match case.name {
        "tiny_op_wall" => {
            let ms = wall_time(t, TINY_REPS, || {
                let r = kp::add(&tiny, 1.0)?;
                r.eval()?;
                Ok(r)
            })?;
            Measurement::new(ms)
                .extra("mode", "sync_each")
                .cpu(cpu_per_op(add_cpu))
        }
        "tiny_op_amortized_wall" => {
            // kupfer records ops into one command batch: a loop of ops and one synchronize,
            // per op.
            let k = TINY_OPS_PER_SYNC;
            let ms = wall_time(t, 20, || {
                for _ in 0..k {
                    kp::add(&tiny, 1.0)?.eval()?;
                }
                Ok(())
            })? / k as f64;
            Measurement::new(ms)
                .extra("mode", "amortized")
                .extra("ops_per_sync", k)
                .cpu(cpu_per_op(add_cpu))
        }
        "tiny_sum_to_host_wall" => {
            let ms = wall_time(t, TINY_REPS, || kp::sum(&tiny, Axis::All, false)?.item())?;
            let sum_cpu = &mut || {
                black_box(black_box(&host).iter().sum::<f32>());
            };
            Measurement::new(ms).cpu(cpu_per_op(sum_cpu))
        }
        other => unreachable!("{other} is not a tiny case"),
    };
    Ok(r)
}

/// Runs a [`Group::Transfer`] case with `n` random f32 values (no CPU reference: there is
/// nothing to transfer on the CPU).
pub fn run_transfer(case: &Case, n: usize, t: &Timing) -> CliResult<Measurement> {
    let dev = &t.device;
    let h = HostRng::new(2).uniform_f32(n);
    let bytes = 4.0 * n as f64;
    let ms = match case.name {
        "h2d_pageable" => wall_time(t, 10, || Array::from_slice_on(dev, &h, &[n]))?,
        "d2h_pageable" => {
            let d = Array::from_slice_on(dev, &h, &[n])?;
            dev.synchronize()?;
            wall_time(t, 10, || d.to_vec::<f32>())?
        }
        other => unreachable!("{other} is not a transfer case"),
    };
    Ok(Measurement::new(ms).n(n).gbs(bytes))
}
