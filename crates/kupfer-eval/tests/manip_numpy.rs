//! Array manipulation in kupfer eval against NumPy itself (python3 with numpy, the oracle
//! script tests/python/eval_oracle.py): joining, splitting, flipping, rolling, padding,
//! tiling, repeating, triangles, insert/delete, `np.array` of arrays — over every dtype,
//! strided, reversed and broadcast views, empty and 0-d arrays, negative axes. Results must
//! agree in shape, dtype and values; refusals must be refused with NumPy's message. Fails,
//! never skips, without python3/numpy or a GPU adapter.

mod common;

use common::{as_f64, demoted, numpy_expressions, temp_dir};
use kupfer::{f16, HostArray, HostData};
use kupfer_eval::evaluate;
use std::path::{Path, PathBuf};

fn host(shape: &[usize], data: HostData) -> HostArray {
    HostArray::new(shape.to_vec(), data).expect("consistent host array")
}

/// Deterministic values in [-k, k) with a few repeats and zeros.
fn vals(n: usize, seed: u64, k: f64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            let u = (s.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64;
            ((u * 2.0 - 1.0) * k * 4.0).round() / 4.0
        })
        .collect()
}

fn inputs() -> Vec<(&'static str, HostArray)> {
    let f = |shape: &[usize], seed| vals(shape.iter().product(), seed, 5.0);
    let f32s = |shape: &[usize], seed| {
        host(
            shape,
            HostData::F32(f(shape, seed).iter().map(|&v| v as f32).collect()),
        )
    };
    vec![
        ("f32", f32s(&[3, 4], 1)),
        ("g32", f32s(&[3, 4], 2)),
        ("v32", f32s(&[4], 3)),
        ("x3", f32s(&[2, 3, 4], 4)),
        ("sq", f32s(&[5, 5], 5)),
        ("e0", f32s(&[0, 4], 6)),
        ("s0", f32s(&[], 7)),
        ("f64", host(&[3, 4], HostData::F64(f(&[3, 4], 8)))),
        (
            "f16",
            host(
                &[3, 4],
                HostData::F16(f(&[3, 4], 9).iter().map(|&v| f16::from_f64(v)).collect()),
            ),
        ),
        (
            "i32",
            host(
                &[3, 4],
                HostData::I32(f(&[3, 4], 10).iter().map(|&v| v as i32).collect()),
            ),
        ),
        (
            "u32",
            host(
                &[4],
                HostData::U32(f(&[4], 11).iter().map(|&v| v.abs() as u32).collect()),
            ),
        ),
        (
            "i64",
            host(
                &[3, 4],
                HostData::I64(f(&[3, 4], 12).iter().map(|&v| (v * 1e6) as i64).collect()),
            ),
        ),
        (
            "b",
            host(
                &[3, 4],
                HostData::Bool(f(&[3, 4], 13).iter().map(|&v| v > 0.0).collect()),
            ),
        ),
        (
            "z",
            host(
                &[3, 4],
                HostData::Complex64(
                    f(&[3, 4], 14)
                        .iter()
                        .zip(f(&[3, 4], 15))
                        .map(|(&a, b)| kupfer::Complex32::new(a as f32, b as f32))
                        .collect(),
                ),
            ),
        ),
        (
            "z128",
            host(
                &[2, 3],
                HostData::Complex128(
                    f(&[2, 3], 16)
                        .iter()
                        .zip(f(&[2, 3], 17))
                        .map(|(&a, b)| kupfer::Complex64::new(a, b))
                        .collect(),
                ),
            ),
        ),
        ("nz", host(&[7], HostData::I32(vec![0, 0, 3, 0, 5, 0, 0]))),
        (
            "nz2",
            host(
                &[4, 5],
                HostData::F32(vec![
                    0., 0., 0., 0., 0., 0., 0., 1., 0., 0., 0., 2., 0., 0., 0., 0., 0., 0., 0., 0.,
                ]),
            ),
        ),
    ]
}

const CASES: &[&str] = &[
    // concatenate: axes, dtypes, views, lazy inputs, many inputs, empty arrays
    "np.concatenate([f32, g32])",
    "np.concatenate((f32, g32), axis=1)",
    "np.concatenate([f32, g32], axis=-1)",
    "np.concatenate([f32, g32[:2]])",
    "np.concatenate([f32, g32], axis=None)",
    "np.concatenate([x3, x3[:, ::-1]], axis=1)",
    "np.concatenate([x3[..., ::2], x3[..., 1::2], x3.transpose(0, 2, 1)[:, :2].transpose(0, 2, 1)], axis=2)",
    "np.concatenate([f32.T, g32.T[::-1]])",
    "np.concatenate([f32 * 2, g32 + 1], axis=1)",
    "np.concatenate([v32] * 9)",
    // lazy and mixed-dtype inputs, written into place
    "np.concatenate([f32 * 2, g32 + 1, f32 - g32], axis=1)",
    "np.concatenate([f32 * 2, g32[::-1] + 1])",
    "np.stack([f32 * 2, g32[::-1] + 1], axis=1)",
    "np.stack([f32 * 2, g32.T.T], axis=2)",
    "np.concatenate([f32, i32, f16], axis=0)",
    "np.concatenate([i32, b], axis=1)",
    "np.stack([v32 + 1, u32])",
    "np.stack([s0 + 1, s0 * 2])",
    "np.concatenate([e0 * 2, f32])",
    "np.concatenate([f32 > 0, b])",
    "np.concatenate([f32[:, :1]] * 10, axis=1)",
    "np.concatenate([f16, f16[::-1]], axis=1)",
    "np.concatenate([f64, f64[:1]])",
    "np.concatenate([i32, i64])",
    "np.concatenate([i32, b])",
    "np.concatenate([u32, u32])",
    "np.concatenate([b, b[::-1]], axis=1)",
    "np.concatenate([z, z[::-1]], axis=1)",
    "np.concatenate([z128, z128.conj()])",
    "np.concatenate([f32, z])",
    "np.concatenate([e0, f32])",
    "np.concatenate([e0, e0])",
    "np.concatenate([f32[:, :0], g32[:, :0]], axis=1)",
    "np.concatenate([f32, g32], dtype=np.float16)",
    "np.concatenate([i32, i32], dtype=np.float32)",
    "np.concatenate([f32, i32], dtype=np.int32, casting='unsafe')",
    "np.concatenate(x3)",
    "np.concat([f32, g32], axis=1)",
    "np.concatenate([np.broadcast_to(v32, (3, 4)), f32])",
    "np.concatenate([s0[None], v32])",
    // stack family
    "np.stack([f32, g32])",
    "np.stack([f32, g32], axis=1)",
    "np.stack([f32, g32], axis=-1)",
    "np.stack([v32, v32[::-1], v32 * 2, v32 + 1], axis=1)",
    "np.stack([i32, i32.T.T], axis=2)",
    "np.stack([s0, s0])",
    "np.stack([b, ~b])",
    "np.stack([f32, g32], dtype=np.float64)",
    "np.hstack([f32, g32])",
    "np.hstack([v32, v32])",
    "np.hstack([s0, v32])",
    "np.vstack([f32, v32])",
    "np.vstack([v32, v32])",
    "np.dstack([f32, g32])",
    "np.dstack([v32, v32])",
    "np.column_stack([v32, v32 * 2])",
    "np.column_stack([f32, v32[:3]])",
    "np.block([[f32, g32], [g32, f32]])",
    "np.block([v32, v32])",
    "np.block([[sq[:2, :2], sq[:2, 2:]], [sq[2:, :2], sq[2:, 2:]]])",
    "np.block([[f32], [v32]])",
    "np.block(f32)",
    "np.append(f32, g32)",
    "np.append(f32, g32, axis=0)",
    "np.append(v32, [1.5, 2.5])",
    "np.array([v32, v32 * 2])",
    "np.array([f32, g32, f32])",
    "np.array([v32, [1, 2, 3, 4]])",
    "np.asarray([s0, 1.5, 2])",
    "np.array([[s0, s0], [s0, s0]])",
    "np.array([f32, g32], dtype=np.float16)",
    // splitting (views)
    "np.split(np.arange(12), 3)[1]",
    "np.split(x3, 2)[1]",
    "np.split(f32, [1, 3])[2]",
    "np.split(f32, [1, 3], axis=1)[1]",
    "np.split(f32, [-1])[0]",
    "np.split(f32, [10])[1]",
    "np.split(f32, [2, 1])[1]",
    "len(np.split(f32, [1, 2, 3]))",
    "np.array_split(np.arange(10), 3)[0]",
    "np.array_split(np.arange(10), 3)[2]",
    "np.array_split(f32, 5, axis=1)[4]",
    "np.hsplit(f32, 2)[1]",
    "np.hsplit(v32, [1])[1]",
    "np.vsplit(f32, [1])[1]",
    "np.dsplit(x3, 2)[0]",
    "np.split(f32[::-1], 3)[0]",
    // flips and rotations (views)
    "np.flip(f32)",
    "np.flip(x3, 1)",
    "np.flip(x3, (0, 2))",
    "np.flip(x3, -1)",
    "np.fliplr(f32)",
    "np.flipud(v32)",
    "np.flip(z)",
    "np.flip(f32) + f32",
    "np.rot90(f32)",
    "np.rot90(f32, 2)",
    "np.rot90(f32, -1)",
    "np.rot90(f32, 3)",
    "np.rot90(x3, 1, axes=(1, 2))",
    "np.rot90(x3, 5, (2, 0))",
    "np.rollaxis(x3, 2)",
    "np.rollaxis(x3, 0, 3)",
    "np.rollaxis(x3, -1, 1)",
    "np.moveaxis(x3, [0, 1], [-1, -2])",
    // roll
    "np.roll(v32, 1)",
    "np.roll(v32, -5)",
    "np.roll(f32, 7)",
    "np.roll(f32, 1, axis=0)",
    "np.roll(f32, -1, axis=1)",
    "np.roll(f32, (1, 2), axis=(0, 1))",
    "np.roll(f32, (1, 2), axis=1)",
    "np.roll(f32, 2, axis=(0, 1))",
    "np.roll(x3[:, ::-1], 1, axis=-1)",
    "np.roll(f16, 3, axis=1)",
    "np.roll(i64, 2)",
    "np.roll(z, 1, axis=0)",
    "np.roll(b, 5)",
    "np.roll(e0, 2, axis=1)",
    "np.roll(f32, 1, axis=1) + 1",
    "np.roll(f32 * 2, 0)",
    // tile, repeat, resize
    "np.tile(v32, 2)",
    "np.tile(v32, (2, 1))",
    "np.tile(f32, (2, 3))",
    "np.tile(x3, 2)",
    "np.tile(f32, (1, 1, 2))",
    "np.tile(f32[::-1], 0)",
    "np.tile(z, 2)",
    "np.tile(s0, 3)",
    "np.repeat(v32, 2)",
    "np.repeat(f32, 3, axis=1)",
    "np.repeat(f32, 2, axis=-2)",
    "np.repeat(f32, [1, 0, 2], axis=0)",
    "np.repeat(f32, [2], axis=1)",
    "np.repeat(i32, 2)",
    "np.repeat(f32.T, [0, 1, 2, 3], axis=0)",
    "np.repeat(f16, 2, axis=0)",
    "np.repeat(s0, 4)",
    "np.repeat(b, 0)",
    "np.repeat(v32, np.array([1, 2, 3, 0]))",
    "f32.repeat(2)",
    "np.resize(v32, (3, 3))",
    "np.resize(f32, 5)",
    "np.resize(f32[::-1], (2, 7))",
    "np.resize(f32, 0)",
    // pad
    "np.pad(f32, 2)",
    "np.pad(f32, (1, 2))",
    "np.pad(f32, ((1, 0), (0, 3)))",
    "np.pad(f32, ((2,), (1,)))",
    "np.pad(f32, ((1, 2),))",
    "np.pad(f32, 1, constant_values=7)",
    "np.pad(f32, ((1, 1), (2, 2)), constant_values=((1, 2), (3, 4)))",
    "np.pad(f32, 2, constant_values=(-1, 1))",
    "np.pad(i32, 2, constant_values=2.7)",
    "np.pad(v32, 3, mode='edge')",
    "np.pad(f32, (2, 3), mode='edge')",
    "np.pad(f32, 2, mode='reflect')",
    "np.pad(v32, 9, mode='reflect')",
    "np.pad(f32[::-1, ::2], (1, 5), mode='reflect')",
    "np.pad(v32, 3, mode='symmetric')",
    "np.pad(v32, 10, mode='symmetric')",
    "np.pad(f32, ((1, 2), (3, 0)), mode='symmetric')",
    "np.pad(v32, (3, 6), mode='wrap')",
    "np.pad(f32, 5, mode='wrap')",
    "np.pad(v32[:1], 3, mode='reflect')",
    "np.pad(v32, 2, mode='maximum')",
    "np.pad(f32, 2, mode='minimum')",
    "np.pad(f32, (1, 2), mode='maximum', stat_length=2)",
    "np.pad(f32, 2, mode='mean')",
    "np.pad(i32, 2, mode='mean')",
    "np.pad(v32, 3, mode='mean', stat_length=(1, 2))",
    "np.pad(f32, 2, mode='linear_ramp')",
    "np.pad(f32, (2, 3), mode='linear_ramp', end_values=(5, -5))",
    "np.pad(i32, 3, mode='linear_ramp', end_values=10)",
    "np.pad(x3, 1, mode='edge')",
    "np.pad(f16, 1, mode='reflect')",
    "np.pad(f64, 2, mode='symmetric')",
    "np.pad(i64, 1, constant_values=-3)",
    "np.pad(b, 1, constant_values=True)",
    "np.pad(z, 1, mode='wrap')",
    "np.pad(z128, 1)",
    "np.pad(z, 1, constant_values=2)",
    "np.pad(e0, 1)",
    "np.pad(e0, ((0, 0), (1, 1)), mode='edge')",
    "np.pad(s0, 3)",
    "np.pad(f32 * 2 + 1, 1, mode='reflect')",
    "np.pad(f32, 0, mode='wrap')",
    // triangles
    "np.tril(sq)",
    "np.tril(sq, 1)",
    "np.tril(sq, -2)",
    "np.triu(sq)",
    "np.triu(sq, 2)",
    "np.triu(sq, -1)",
    "np.tril(f32, 10)",
    "np.triu(f32, -10)",
    "np.tril(x3)",
    "np.triu(x3[:, ::-1], 1)",
    "np.tril(v32)",
    "np.tril(i64, -1)",
    "np.triu(b)",
    "np.tril(z)",
    "np.tril(f16)",
    "np.tril(f32 * 2 - 1)",
    "np.tril(f32.T)",
    "np.tri(3)",
    "np.tri(3, 5, 1)",
    "np.tri(4, 2, k=-1, dtype=np.int32)",
    "np.tri(2, dtype=bool)",
    "np.diagflat(v32)",
    "np.diag(v32, 3)",
    "np.diag(v32[::-1], -2)",
    "np.diag(z[0], 1)",
    "np.diagflat(f32[:2], 1)",
    "np.diagflat([1, 2, 3], -2)",
    // insert, delete, trim_zeros
    "np.delete(v32, 1)",
    "np.delete(f32, [0, 2], axis=0)",
    "np.delete(f32, -1, axis=1)",
    "np.delete(f32, [1, 1, 5])",
    "np.delete(f32, slice(None, None, 2), axis=1)",
    "np.delete(f32, [True, False, True], axis=0)",
    "np.delete(f32, [], axis=1)",
    "np.insert(v32, 1, 9)",
    "np.insert(v32, 4, [7, 8])",
    "np.insert(f32, 1, 5, axis=1)",
    "np.insert(f32, 1, [1, 2, 3], axis=1)",
    "np.insert(f32, [1], [[1], [2], [3]], axis=1)",
    "np.insert(f32, 0, v32, axis=0)",
    "np.insert(f32, [0, 2, 2], 9, axis=1)",
    "np.insert(v32, [3, 1], [10, 20])",
    "np.insert(f32, -1, 0)",
    "np.insert(i32, 2, 7.9, axis=0)",
    "np.trim_zeros(nz)",
    "np.trim_zeros(nz, 'f')",
    "np.trim_zeros(nz, trim='b')",
    "np.trim_zeros(nz * 0)",
    "np.trim_zeros(nz2)",
    "np.trim_zeros(nz2, axis=1)",
    "np.trim_zeros(nz2, 'f', axis=0)",
    // 0-d inputs where NumPy takes them
    "np.flip(s0)",
    "np.roll(s0, 3)",
    "np.append(s0, v32)",
    "np.insert(s0, 0, 1.5)",
    "np.delete(s0, 0)",
    "np.resize(s0, (2, 2))",
    "np.diagflat(s0)",
    "np.block(s0)",
    "np.atleast_3d(s0)",
    "np.column_stack([s0, s0])",
    // gaps: views, 0-d, empty, negative axes, every mode again
    "np.roll(f32[::-1, ::2], (1, -3), axis=(0, 1))",
    "np.roll(e0, 2, axis=1)",
    "np.roll(s0, 3)",
    "np.roll(x3, -5)",
    "np.roll(x3.transpose(2, 0, 1), 13, axis=-1)",
    "np.roll(i64, [1, 2], axis=[0, 0])",
    "np.pad(f32[::-1], ((1, 2), (3, 0)), mode='reflect')",
    "np.pad(v32, 9, mode='reflect')",
    "np.pad(v32, 9, mode='symmetric')",
    "np.pad(v32, 10, mode='wrap')",
    "np.pad(f32, 2, mode='linear_ramp', end_values=(5, -1))",
    "np.pad(f32.T, ((0, 1), (2, 2)), mode='maximum')",
    "np.pad(f32, ((1, 0), (0, 3)), mode='mean')",
    "np.pad(i32, 3, mode='minimum')",
    "np.pad(e0, ((0, 0), (2, 1)), mode='edge')",
    "np.pad(e0, 1)",
    "np.pad(z, 1, mode='reflect')",
    "np.pad(b, (1, 2), mode='wrap')",
    "np.pad(f16[:, ::-1], 5, mode='reflect')",
    "np.tile(f32[::-1], (2, 1, 2))",
    "np.tile(e0, 3)",
    "np.repeat(f32.T, [1, 0, 2], axis=1)",
    "np.repeat(s0, 3)",
    "np.repeat(x3, 2, axis=-2)",
    "np.tril(x3[:, ::-1], -1)",
    "np.triu(f32.T, 2)",
    "np.tril(e0)",
    "np.tri(3, 5, -1, dtype=np.int32)",
    "np.split(x3, [1, 3], axis=2)[1]",
    "np.array_split(v32, 3)[2]",
    "np.hsplit(f32, [3])[1]",
    "np.flip(x3, (0, 2))",
    "np.flip(s0)",
    "np.rot90(f32, -3)",
    "np.rot90(x3, 2, axes=(2, 0))",
    "np.insert(f32, [1, 1], -7, axis=1)",
    "np.insert(v32, 0, [5, 6])",
    "np.delete(f32, [0, -1], axis=1)",
    "np.delete(x3, 1, axis=0)",
    "np.resize(f32[::-1], (5, 5))",
    "np.resize(v32, 0)",
    "np.trim_zeros(np.array([0, 0, 1, 0, 2, 0, 0]), 'b')",
    "np.trim_zeros(np.zeros(4))",
    "np.block([[f32, g32], [g32, f32]])",
    "np.append(f32, v32[None], axis=0)",
    "np.append(s0, v32)",
    "np.column_stack([v32, u32])",
    "np.moveaxis(x3, [0, 1], [-1, -2])",
    "np.swapaxes(x3, 0, -1)",
    "np.rollaxis(x3, 2, 1)",
    "np.array([v32, v32 * 2])",
    "np.asarray([s0, s0 + 1])",
    "np.diagflat(f32[:2], -2)",
    "np.atleast_3d(v32[::-1])",
    "np.dstack([v32, v32 * 2])",
    "np.vstack([v32, u32])",
];

/// Expressions NumPy refuses, with the message kupfer's error must contain (NumPy's own,
/// checked against the oracle's text; empty where NumPy's wording is not kupfer's).
const REFUSED: &[(&str, &str)] = &[
    (
        "np.tile(v32, (2**62, 4))",
        "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible \
         size.",
    ),
    (
        "np.concatenate([f32, v32])",
        "all the input arrays must have same number of dimensions, but the array at index 0 \
         has 2 dimension(s) and the array at index 1 has 1 dimension(s)",
    ),
    (
        "np.concatenate([f32, g32[:, :2]])",
        "all the input array dimensions except for the concatenation axis must match exactly, \
         but along dimension 1, the array at index 0 has size 4 and the array at index 1 has \
         size 2",
    ),
    (
        "np.concatenate([s0, s0])",
        "zero-dimensional arrays cannot be concatenated",
    ),
    (
        "np.concatenate([])",
        "need at least one array to concatenate",
    ),
    (
        "np.concatenate([f32, g32], axis=2)",
        "axis 2 is out of bounds for array of dimension 2",
    ),
    (
        "np.concatenate([f32, f64], dtype=np.int32)",
        "Cannot cast array data from dtype('float32') to dtype('int32') according to the \
         rule 'same_kind'",
    ),
    (
        "np.stack([f32, v32])",
        "all input arrays must have the same shape",
    ),
    ("np.stack([])", "need at least one array to stack"),
    (
        "np.stack([f32, g32], axis=3)",
        "axis 3 is out of bounds for array of dimension 3",
    ),
    (
        "np.split(f32, 5)",
        "array split does not result in an equal division",
    ),
    (
        "np.array_split(f32, 0)",
        "number sections must be larger than 0.",
    ),
    (
        "np.vsplit(v32, 2)",
        "vsplit only works on arrays of 2 or more dimensions",
    ),
    (
        "np.dsplit(f32, 2)",
        "dsplit only works on arrays of 3 or more dimensions",
    ),
    ("np.fliplr(v32)", "Input must be >= 2-d."),
    (
        "np.flip(f32, 2)",
        "axis 2 is out of bounds for array of dimension 2",
    ),
    ("np.rot90(f32, axes=(0, 0))", "Axes must be different."),
    (
        "np.rot90(f32, axes=(0, 3))",
        "Axes=(0, 3) out of range for array of ndim=2.",
    ),
    ("np.rot90(f32, axes=(0, 1, 2))", "len(axes) must be 2."),
    (
        "np.roll(f32, (1, 2, 3), axis=(0, 1))",
        "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between \
         arg 0 with shape (3,) and arg 1 with shape (2,).",
    ),
    (
        "np.rollaxis(x3, 0, 5)",
        "'start' arg requires -3 <= start < 4, but 5 was passed in",
    ),
    ("np.tile(f32, -1)", "negative dimensions are not allowed"),
    (
        "np.repeat(v32, [1, 2])",
        "operands could not be broadcast together with shape (4,) (2,)",
    ),
    ("np.repeat(v32, -1)", "negative dimensions are not allowed"),
    (
        "np.repeat(v32, [1, -1, 1, 1])",
        "repeats may not contain negative values.",
    ),
    (
        "np.repeat(f32, 2, axis=2)",
        "axis 2 is out of bounds for array of dimension 2",
    ),
    (
        "np.pad(f32, ((1, 2), (3, 4), (5, 6)))",
        "operands could not be broadcast together with remapped shapes [original->remapped]: \
         (3,2)  and requested shape (2,2)",
    ),
    ("np.pad(f32, -1)", "index can't contain negative values"),
    (
        "np.pad(e0, 1, mode='edge')",
        "can't extend empty axis 0 using modes other than 'constant' or 'empty'",
    ),
    (
        "np.pad(f32, 1, mode='maximum', stat_length=0)",
        "stat_length of 0 yields no value for padding",
    ),
    (
        "np.pad(f32, 1, mode='nonsense')",
        "mode 'nonsense' is not supported",
    ),
    (
        "np.delete(v32, 4)",
        "index 4 is out of bounds for axis 0 with size 4",
    ),
    (
        "np.insert(v32, 5, 1)",
        "index 5 is out of bounds for axis 0 with size 4",
    ),
    (
        "np.trim_zeros(nz, 'x')",
        "unexpected character(s) in `trim`",
    ),
    ("np.block([[f32], f32])", "List depths are mismatched"),
    ("np.block([])", "List at arrays cannot be empty"),
    (
        "np.moveaxis(x3, [0, 0], [1, 2])",
        "repeated axis in `source` argument",
    ),
];

/// NumPy's result or error text per expression, over the inputs written as .npy files.
fn numpy_results(dir: &Path, exprs: &[&str]) -> Vec<Result<HostArray, String>> {
    let files: Vec<(&str, PathBuf)> = inputs()
        .into_iter()
        .map(|(name, h)| {
            let path = dir.join(format!("{name}.npy"));
            kupfer::io::write_npy(&path, &h).expect("write an input");
            (name, path)
        })
        .collect();
    numpy_expressions(dir, &files, exprs)
}

fn vars() -> Vec<(String, kupfer::Array)> {
    inputs()
        .into_iter()
        .map(|(n, h)| (n.to_string(), kupfer::Array::from_host(&h).expect("upload")))
        .collect()
}

fn mismatch(expr: &str, got: &HostArray, want: &HostArray) -> Option<String> {
    if got.shape != want.shape {
        return Some(format!("shape {:?}, NumPy {:?}", got.shape, want.shape));
    }
    let (gd, wd) = (got.dtype(), want.dtype());
    if gd != wd && (expr.contains("64") || gd != demoted(wd)) {
        return Some(format!("dtype {gd}, NumPy {wd}"));
    }
    // Copies are exact; only the statistic and ramp modes of pad compute.
    let tol = if expr.contains("mean") || expr.contains("ramp") {
        1e-5
    } else {
        0.0
    };
    for (i, (x, y)) in as_f64(&got.data).iter().zip(as_f64(&want.data)).enumerate() {
        let same = (x.is_nan() && y.is_nan()) || *x == y || (x - y).abs() <= tol * (1.0 + y.abs());
        if !same {
            return Some(format!("element {i}: {x} vs NumPy {y}"));
        }
    }
    None
}

#[test]
fn manipulation_matches_numpy() {
    let dir = temp_dir("oracle");
    let want = numpy_results(&dir, CASES);
    let _ = std::fs::remove_dir_all(&dir);
    let vars = vars();
    let mut failures = Vec::new();
    for (expr, want) in CASES.iter().zip(want) {
        let got = evaluate(expr, &vars)
            .and_then(|v| v.to_host())
            .and_then(|h| h.to_host_array());
        match (got, want) {
            (Ok(g), Ok(w)) => {
                if let Some(m) = mismatch(expr, &g, &w) {
                    failures.push(format!("{expr}: {m}"));
                }
            }
            (Err(e), Ok(_)) => failures.push(format!("{expr}: kupfer failed: {}", e.render())),
            (Ok(_), Err(e)) => failures.push(format!("{expr}: NumPy failed: {e}")),
            (Err(e), Err(n)) => failures.push(format!("{expr}: both failed: {e} / {n}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} expressions differ from NumPy:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}

#[test]
fn refusals_match_numpy() {
    let dir = temp_dir("refusals");
    let exprs: Vec<&str> = REFUSED.iter().map(|(e, _)| *e).collect();
    let numpy = numpy_results(&dir, &exprs);
    let _ = std::fs::remove_dir_all(&dir);
    let vars = vars();
    let mut failures = Vec::new();
    for ((expr, message), want) in REFUSED.iter().zip(numpy) {
        match &want {
            Ok(_) => failures.push(format!("{expr}: NumPy accepts it")),
            Err(n) if !n.contains(message) => {
                failures.push(format!("{expr}: NumPy says {n}, not {message}"))
            }
            Err(_) => {}
        }
        match evaluate(expr, &vars).and_then(|v| v.to_host()) {
            Ok(v) => failures.push(format!("{expr}: kupfer gave {}", v.repr())),
            Err(e) => {
                let text = e.render();
                if text.lines().count() > 3 {
                    failures.push(format!("{expr}: a long error: {text}"));
                }
                if !text.contains(message) {
                    failures.push(format!("{expr}: kupfer says {text}, NumPy {want:?}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
