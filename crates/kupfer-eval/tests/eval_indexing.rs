//! Indexing, assignment and statements against NumPy itself: each program (statements
//! separated by `;`, the last an expression) runs in kupfer eval and in NumPy
//! (tests/python/program_oracle.py); results must agree in shape, dtype and values, and
//! programs NumPy refuses must fail in kupfer with a short error. Needs python3 with numpy;
//! fails, never skips, without them.

mod common;

use common::{assert_programs_match_numpy, assert_programs_refused_like_numpy, device};
use kupfer_eval::Session;

/// Programs whose last value must match NumPy's.
const CASES: &[&str] = &[
    // basic indexing still gives views
    "a = np.arange(24).reshape(2, 3, 4); a[1, ::-1, 1:3]",
    "a = np.arange(24).reshape(2, 3, 4); a[..., None, 2]",
    // boolean masks: full rank, partial rank, 0-d, every dtype
    "a = np.arange(12, dtype=np.float32).reshape(3, 4); a[a > 4.5]",
    "a = np.arange(12, dtype=np.int32).reshape(3, 4); a[(a % 3) == 0]",
    "a = np.arange(12, dtype=np.uint32); a[a > 7]",
    "a = np.arange(12, dtype=np.int64) - 6; a[a < 0]",
    "a = np.arange(12, dtype=np.float64).reshape(2, 6); a[a != 3]",
    "a = np.arange(12).astype(np.float16); a[a >= 5]",
    "a = (np.arange(12) % 3 == 0); a[a]",
    "a = np.arange(6) + 1j * np.arange(6); a = a.astype(np.complex64); a[a.real > 2]",
    "a = np.arange(24).reshape(2, 3, 4); a[np.array([True, False])]",
    "a = np.arange(24).reshape(2, 3, 4); a[:, np.array([True, False, True])]",
    "a = np.arange(24).reshape(2, 3, 4); m = a.sum(axis=2) > 20; a[m]",
    "a = np.arange(24).reshape(2, 3, 4); a[1, np.array([False, True, True])]",
    "a = np.arange(6); a[np.array(True)]",
    "a = np.arange(6); a[np.array(False)]",
    "a = np.arange(6); a[True]",
    "a = np.arange(6).reshape(2, 3); a[False]",
    "a = np.array(5.0); a[a > 1]",
    "a = np.arange(10.0); a[a > 100]",
    "a = np.arange(20.0).reshape(4, 5)[:, ::-2]; a[a > 6]",
    "x = np.arange(10.0); (x * 2 + 1)[x > 3]",
    // integer arrays and lists, negative indices, broadcasting, combinations
    "a = np.arange(10) * 3; a[[1, -1, 0, 1]]",
    "a = np.arange(10.0); a[np.array([[1, 2], [-3, 4]])]",
    "a = np.arange(12).reshape(3, 4); a[[0, 2]]",
    "a = np.arange(12).reshape(3, 4); a[:, [3, 0, -1]]",
    "a = np.arange(12).reshape(3, 4); a[[0, 1, 2], [3, 2, 1]]",
    "a = np.arange(12).reshape(3, 4); a[np.array([[0], [2]]), np.array([1, 3])]",
    "a = np.arange(24).reshape(2, 3, 4); a[:, [0, 2], 1:3]",
    "a = np.arange(24).reshape(2, 3, 4); a[[1, 0], :, [2, 3]]",
    "a = np.arange(24).reshape(2, 3, 4); a[0, :, [1, 2]]",
    "a = np.arange(24).reshape(2, 3, 4); a[[1], 1, [0, 3]]",
    "a = np.arange(24).reshape(2, 3, 4); a[..., [1, 2]]",
    "a = np.arange(24).reshape(2, 3, 4); a[None, [1, 0], ..., None]",
    "a = np.arange(24).reshape(2, 3, 4); a[[0, 1], None, [1, 2]]",
    "a = np.arange(24).reshape(2, 3, 4); a[np.array([1, 0], dtype=np.int32)]",
    "a = np.arange(24).reshape(2, 3, 4); a[np.array([1, 0], dtype=np.uint32), ::2][:, 1]",
    "a = np.arange(24).reshape(2, 3, 4).transpose(2, 0, 1); a[[3, 0], 1]",
    "a = np.arange(24.0).reshape(2, 3, 4); a[a[:, :, 0] > 4, 1:]",
    "a = np.arange(12).reshape(3, 4); a[[]]",
    "a = np.arange(12).reshape(3, 4); a[np.array([], dtype=np.int64), 1]",
    "a = np.arange(12.0).reshape(3, 4); i = np.array([2, 0]); (a * 2)[i]",
    "a = np.arange(5); a[a]",
    "cp.arange(6)[cp.array([5, 0])]",
    "cupy.arange(6)[[2]]",
    // assignment: scalars, arrays, broadcasting, casting
    "a = np.arange(10.0); a[a > 4] = 0; a",
    "a = np.arange(10.0); a[a > 4] = -a[a > 4]; a",
    "a = np.arange(10); a[a % 2 == 0] = np.array([10, 20, 30, 40, 50]); a",
    "a = np.arange(12.0).reshape(3, 4); a[a > 5] = 1.5; a",
    "a = np.arange(12).reshape(3, 4); a[[0, 2]] = 7; a",
    "a = np.arange(12).reshape(3, 4); a[:, [1, 3]] = np.array([[1, 2], [3, 4], [5, 6]]); a",
    "a = np.arange(12).reshape(3, 4); a[[0, 1], [1, 2]] = [100, 200]; a",
    "a = np.arange(12).reshape(3, 4); a[1:, 2] = np.array([9, 8]); a",
    "a = np.arange(12).reshape(3, 4); a[:, 1:] = 0; a",
    "a = np.arange(12).reshape(3, 4); a[...] = np.arange(4); a",
    "a = np.arange(12, dtype=np.int32); a[[1, 2]] = 2.7; a",
    "a = np.arange(12, dtype=np.int32); a[:3] = np.array([1.9, -2.9, 3.5]); a",
    "a = np.zeros(4, dtype=np.float16); a[[1, 3]] = 0.1; a",
    "a = np.zeros(5, dtype=bool); a[[1, 3]] = True; a",
    "a = np.zeros(5, dtype=np.complex64); a[a == 0] = 1 + 2j; a",
    "a = np.zeros(5, dtype=np.uint32); a[[4, 0]] = 7; a",
    "a = np.zeros(6); a[[1, 1, 1, 2]] = [1, 2, 3, 4]; a",
    "a = np.zeros(6); a[[5, 1, 5, 1, 5]] = np.arange(5.0); a",
    "a = np.zeros((3, 3)); a[[0, 0], [1, 1]] = [7, 8]; a",
    "a = np.zeros(6); a[np.array([-1, -6])] = 3; a",
    "a = np.arange(6.0); a[np.array(True)] = 0; a",
    "a = np.arange(6.0); a[[]] = 5; a",
    "a = np.arange(6.0); b = a[1:4]; a[a > 2] = -1; b",
    "a = np.arange(6.0); b = a.reshape(2, 3); b[:, 1] = 0; a",
    "a = np.arange(6.0); v = a[::-1]; v[[0, 1]] = 100; a",
    "a = np.arange(6.0); b = a * 2; a[0] = 100; b",
    "a = np.arange(6.0); b = a + 1; a[a > 2] = 0; b + a",
    "a = np.arange(8.0); a[1:] = a[:-1]; a",
    "a = np.arange(8.0); a[::-1] = a; a",
    "a = np.arange(8.0); a[a > 3] = a[::-1][a > 3]; a",
    "a = np.arange(8.0); a[:4] = a[:4] * 2 + 1; a",
    // augmented assignment
    "a = np.arange(6); a[a > 2] += 10; a",
    "a = np.arange(6.0); a[[0, 0, 1]] += 1; a",
    "a = np.arange(6.0); a[1:3] *= 4; a",
    "a = np.arange(6.0); b = a[1:]; a += 1; b",
    "a = np.arange(6); a -= 2; a",
    "x = 3; x += 4; x * 2",
    "a = np.arange(12.0).reshape(3, 4); a[:, 1] **= 2; a",
    "a = np.arange(6, dtype=np.int32); a[a > 1] //= 2; a",
    // the Mandelbrot update and masked statements
    "Z = np.arange(6.0) / 4 + 0j; C = Z.copy(); mask = np.abs(Z) < 1; Z[mask] = Z[mask] * Z[mask] + C[mask]; Z",
    "Z = (np.arange(12.0) / 8).reshape(3, 4).astype(np.complex64); C = Z + 0.25j; m = Z.real > 0.3; Z[m] = Z[m] * Z[m] + C[m]; Z[m] = Z[m] * Z[m] + C[m]; Z",
    "a = np.arange(6.0); m = a > 2; a[m] = np.sqrt(a[m]) + 1; a",
    "a = np.arange(6.0); m = a > 2; a[m] = np.where(a[m] > 4, a[m], -a[m]); a",
    "a = np.arange(6.0); m = a > 2; mat = np.zeros(6); mat[m] = 5 - np.log(np.log(a[m] + 3)) / np.log(2.0); mat",
    "mask = np.ones(5, dtype=bool); e = np.arange(5) > 2; mask[e] = False; mask",
    // statements, tuple unpacking, newlines
    "a, b = np.arange(3), 4; a * b",
    "x, y = np.arange(6).reshape(2, 3); x - y",
    "a = b = np.arange(3.0); a[0] = 9; b",
    "a = np.arange(5)\nb = a[a > 1]\nb.sum()",
    // index functions",
    "np.nonzero(np.array([[0, 1], [2, 0]]))[1]",
    "np.flatnonzero(np.array([[0, 1.5], [np.nan, 0]]))",
    "np.argwhere(np.arange(6).reshape(2, 3) % 2 == 1)",
    "np.where(np.array([0, 3, 0, 4]))[0]",
    "np.take(np.arange(12).reshape(3, 4), [2, -1], axis=1)",
    "np.take(np.arange(12).reshape(3, 4), [5, 11])",
    "np.take(np.arange(5), [7, -7], mode='wrap')",
    "np.take(np.arange(5), [7, -7], mode='clip')",
    "np.take_along_axis(np.arange(12).reshape(3, 4), np.array([[0], [3], [1]]), axis=1)",
    "a = np.arange(6.0); np.put(a, [0, 4], [-1, -2]); a",
    "a = np.arange(6.0); np.put(a, [0, 1, 2, 3], [7, 8]); a",
    // put into non-contiguous views: flat indices in the view's C order, writes seen by the base
    "a = np.arange(12.0).reshape(3, 4); np.put(a.T, [0, 1, -1], [-1, -2, -3]); a",
    "a = np.arange(12).reshape(3, 4); v = a[::-1, ::2]; np.put(v, np.array([5, 0]), 40); a",
    "a = np.arange(12).reshape(3, 4); np.put(a[:, 1:], [7, 20], [1, 2], mode='clip'); a",
    "a = np.arange(12).reshape(3, 4); np.put_along_axis(a, np.array([[1], [0], [3]]), 99, axis=1); a",
    "a = np.arange(6.0); np.place(a, a > 2, [10, 20]); a",
    "a = np.arange(6.0); np.putmask(a, a > 2, [10, 20]); a",
    "a = np.zeros(4); np.copyto(a, np.arange(4.0) * 2, where=np.array([True, False, True, False])); a",
    "np.compress([0, 1, 1], np.arange(12).reshape(3, 4), axis=0)",
    "np.compress([1, 0, 1], np.arange(12).reshape(3, 4), axis=1)",
    "np.extract(np.arange(6) % 2, np.arange(6) * 10)",
    "np.choose(np.array([2, 0, 1]), [np.arange(3), np.arange(3) * 10, np.arange(3) * 100])",
    "np.select([np.arange(6) < 2, np.arange(6) > 3], [np.arange(6), np.arange(6) ** 2], -1)",
    "np.indices((2, 3))",
    "np.ix_(np.array([0, 2]), np.array([1, 3]))[1]",
    "a = np.arange(12).reshape(3, 4); a[np.ix_([0, 2], [1, 3])]",
    "np.unravel_index(np.array([7, 11, 0]), (3, 4))[1]",
    "np.ravel_multi_index((np.array([1, 2]), np.array([3, 0])), (3, 4))",
    "np.diag_indices(3)[0]",
    "np.tril_indices(4)[1]",
    "np.triu_indices(4, k=1, m=5)[0]",
    "a = np.zeros(5, dtype=np.float32); np.add.at(a, [0, 0, 3, 0], 1); a",
    "a = np.zeros((2, 3), dtype=np.float32); np.add.at(a, (np.array([0, 0, 1]), np.array([2, 2, 0])), np.array([1.5, 2.5, 4], dtype=np.float32)); a",
    "a = np.zeros(4, dtype=bool); np.add.at(a, [1, 1], True); a",
    "a = np.zeros(5, dtype=np.int32); np.add.at(a, [1, 1, 4], np.array([2, 3, 4], dtype=np.int32)); a",
    "a = np.ones(4, dtype=np.float32); np.multiply.at(a, [1, 1, 2], 3); a",
    "a = np.zeros(4, dtype=np.float32); np.maximum.at(a, [0, 0, 2], np.array([5, 7, -1], dtype=np.float32)); a",
    "a = np.zeros(4, dtype=np.int32); np.minimum.at(a, [3, 3], np.array([-5, -7], dtype=np.int32)); a",
    "a = np.zeros(4, dtype=np.float32); np.subtract.at(a, [2, 2, 2], 1); a",
    // float16 (a compare-exchange on the word holding the element), complex64 and int64 sums
    "a = np.zeros(5, dtype=np.float16); np.add.at(a, [0, 0, 3, 4, 4, 4], np.array([1, 2.5, 3, 0.5, 0.25, 1], dtype=np.float16)); a",
    "a = np.arange(5, dtype=np.float16); np.maximum.at(a, [1, 1, 2, 4], np.array([7, np.nan, 1, -3], dtype=np.float16)); a",
    "a = np.arange(5, dtype=np.float16); np.minimum.at(a, [0, 3, 3], np.array([1, -2, 8], dtype=np.float16)); a",
    "a = np.ones(4, dtype=np.float16); np.multiply.at(a, [3, 3, 0], np.array([2, 3, -1], dtype=np.float16)); a",
    "a = np.ones(4, dtype=np.float16); np.subtract.at(a[::-1], [0, 0], 0.5); a",
    "a = np.zeros(3, dtype=np.complex64); np.add.at(a, [0, 0, 2], np.array([1+2j, 3-1j, 1j], dtype=np.complex64)); a",
    "a = np.ones(3, dtype=np.complex64); np.subtract.at(a, [1, 1], 2j); a",
    "a = np.array([2**40, -1, 2**32 - 1], dtype=np.int64); np.add.at(a, [0, 2, 2, 1, 1], np.array([2**33 + 7, 1, 2**32, -2**62, -2**62], dtype=np.int64)); a",
    "a = np.zeros((2, 2), dtype=np.int64); np.subtract.at(a, (np.array([0, 0, 1]), np.array([1, 1, 0])), np.array([5, -2**40, 1], dtype=np.int64)); a",
    // ufunc.at beyond 32-bit atomics (sorted offsets, a segmented scan): float64,
    // complex128, and int64/complex64 products and extrema, with repeats across chunks
    "a = np.arange(7.0); i = np.arange(1000) % 7; np.add.at(a, i, np.arange(1000) * 0.37); a",
    "a = np.ones(5); np.subtract.at(a, [-1, 0, -1, 4, -5], np.array([0.5, 2, 3, 0.25, 1])); a",
    "a = np.ones((3, 4)); np.multiply.at(a, (np.array([0, 0, 2, 0]), np.array([1, 1, 3, 1])), np.array([2.0, 3.0, 5.0, -0.5])); a",
    "a = np.ones((3, 4)); np.multiply.at(a, (slice(None), [1, 1, 3]), np.array([2.0, 3.0, 5.0])); a",
    "a = np.zeros(4); np.maximum.at(a, [0, 0, 1, 1, 2, 3], np.array([3.0, np.nan, -1, 5, -2, np.inf])); a",
    "a = np.zeros(4); np.minimum.at(a, [3, 0, 0, 1, 3], np.array([-np.inf, np.nan, 1, -7.5, 2])); a",
    "a = np.zeros((3, 4)); np.add.at(a, [0, 2, 0], np.arange(4.0)); a",
    "a = np.zeros((2, 3, 4)); np.maximum.at(a, (1, slice(None), [0, 0, 3]), np.arange(9.0).reshape(3, 3)); a",
    "a = np.ones(3); np.multiply.at(a, np.array([], dtype=np.int64), 2.0); a",
    "a = np.ones(3); np.multiply.at(a, 1, 5.0); a",
    "a = np.ones(3); np.multiply.at(a, [[0, 1], [0, 0]], np.array([[2.0], [3.0]])); a",
    "a = np.ones(6); np.multiply.at(a[::-2], [0, 0, 2], 3.0); a",
    "a = np.arange(1.0, 5.0); np.multiply.at(a, [0, 0, 1], a[[3, 3, 2]]); a",
    "a = np.zeros(5); v = np.sin(np.arange(200000.0)) * 1000; np.maximum.at(a, np.arange(200000) % 5, v); a",
    "a = np.zeros(5); v = np.cos(np.arange(200000.0)); np.minimum.at(a, (np.arange(200000) * 7) % 5, v); a",
    "a = np.zeros(3); np.subtract.at(a, [0, 1, 0, 0], np.array([1e16, 1.0, 1.0, -1e16])); a",
    "a = np.arange(1, 6, dtype=np.int64); np.multiply.at(a, [0, 0, 0, 4, -1], np.array([2**20, 2**20, 2**30, -3, 5], dtype=np.int64)); a",
    "a = np.ones(3, dtype=np.int64); i = np.arange(300000) % 3; np.multiply.at(a, i, np.where(np.arange(300000) % 7 == 0, -1, 1)); a",
    "a = np.zeros(4, dtype=np.int64); np.maximum.at(a, [1, 1, 2, 3, 3], np.array([2**40, 2**41, -2**50, -1, 2**62], dtype=np.int64)); a",
    "a = np.zeros(4, dtype=np.int64); np.minimum.at(a, [1, 1, 2, 3, 3], np.array([2**40, -2**41, -2**50, -1, -2**62], dtype=np.int64)); a",
    "a = np.zeros(7, dtype=np.int64); np.maximum.at(a, np.arange(100000) % 7, (np.arange(100000) * 7919) % 100003); a",
    "a = np.zeros(3, dtype=np.complex128); np.add.at(a, [0, 0, 2, -1], np.array([1+2j, 3-1j, 1j, 0.5])); a",
    "a = np.ones(3, dtype=np.complex128); np.subtract.at(a, [1, 1], np.array([2j, 1 - 1j])); a",
    "a = np.ones(3, dtype=np.complex128); np.multiply.at(a, [1, 1, 0], np.array([2j, 1 - 1j, -3 + 0.5j])); a",
    "a = np.zeros(3, dtype=np.complex128); np.maximum.at(a, [0, 0, 0, 1, 1], np.array([1+1j, 1+2j, 1+2j, -1j, complex(np.nan, 0)])); a",
    "a = np.zeros(3, dtype=np.complex128); np.minimum.at(a, [0, 0, 2, 2], np.array([1+1j, -1+2j, -1j, -1-1j])); a",
    "a = np.ones(3, dtype=np.complex64); np.multiply.at(a, [1, 1, 0], np.array([2j, 1 - 1j, -3 + 0.5j], dtype=np.complex64)); a",
    "a = np.zeros(3, dtype=np.complex64); np.maximum.at(a, [0, 0, 2, 2], np.array([1+1j, 1+3j, -1j, -2j], dtype=np.complex64)); a",
    "a = np.zeros(3, dtype=np.complex64); np.minimum.at(a, [0, 0, 2, 2], np.array([1+1j, 1+3j, -1j, -2j], dtype=np.complex64)); a",
    "a = np.ones(4, dtype=np.complex64); i = np.arange(5000) % 4; np.multiply.at(a, i, np.where(np.arange(5000) % 3 == 0, -1j, 1j).astype(np.complex64)); a",
    // gathers fused into the expression around them (one kernel): integer arrays, take, roll
    "x = np.arange(24.0).reshape(4, 6); i = np.array([3, -1, 0]); x[i] * 2 + np.arange(6.0)",
    "x = np.arange(24.0).reshape(4, 6)[:, ::-2]; x[np.array([[1], [2]]), np.array([0, 2])] - 1",
    "x = np.arange(10, dtype=np.int32); np.take(x, np.array([9, 0, -3])) * 3",
    "x = np.arange(12.0).reshape(3, 4); np.sqrt(np.take(x, [3, -3], axis=1)) + x[:, :2]",
    "x = np.arange(10.0); np.roll(x, 7) + 1",
    "x = np.arange(10.0); np.roll(x, -23) * x",
    "x = np.arange(24).reshape(4, 6); np.roll(x, (1, -2), axis=(0, 1)) - x",
    "x = np.arange(24.0).reshape(4, 6)[::-1, 1::2]; np.roll(x, 2, axis=1) + 0.5",
    "x = np.arange(24.0).reshape(4, 6).T; np.roll(x, 5) > 10",
    "x = np.arange(10.0); y = np.arange(10.0, 20.0); np.flip(x) + y",
    "x = np.arange(8.0); r = np.roll(x, 3); (r + 1, r)[1]",
    "x = np.arange(6.0); x[[1, 1, 4]] + np.roll(x, 1)[[0, 2, 5]]",
    // gaps: views as indices and targets, broadcast indices, 0-d and empty, every rule again
    "a = np.arange(24).reshape(2, 3, 4); a[[0, 1], :, [-1, 0]]",
    "a = np.arange(24).reshape(2, 3, 4); a[np.array([[0], [1]]), :, np.array([[1, 2, 3]])]",
    "a = np.arange(24).reshape(2, 3, 4); a[:, None, [0, 2], ..., [1, 3]]",
    "a = np.arange(12).reshape(3, 4); a[np.broadcast_to(np.array([2, 0]), (3, 2))]",
    "a = np.arange(12).reshape(3, 4); i = np.arange(4)[::-1]; a[:, i]",
    "a = np.arange(12).reshape(3, 4); a[np.array(-1)]",
    "a = np.arange(12).reshape(3, 4); a[np.array(1), np.array([0, 3])]",
    "a = np.arange(12).reshape(3, 4); a[np.zeros((2, 0), dtype=np.int64)]",
    "a = np.arange(12.0).reshape(3, 4); a[a > 100] = 5; a",
    "a = np.arange(12.0).reshape(3, 4); a[:, [1, 1, 2]] += 1; a",
    "a = np.arange(12.0).reshape(3, 4); a.T[[0, 2]] = np.array([9.0, 8.0, 7.0]); a",
    "a = np.arange(6); a[np.array([True, False, True, False, True, False])[::-1]]",
    "a = np.arange(12).reshape(3, 4); m = np.broadcast_to(np.array([True, False, True, True]), (3, 4)); a[m]",
    "a = np.arange(5.0); b = a[::2]; b[[0, -1]] = -1; a",
    "a = np.array(3.0); a[...] = 7; a",
    "a = np.array(3.0); a[None]",
    "a = np.arange(10); a[np.array([1, 2], dtype=np.uint32)] = 0; a",
    "a = np.arange(10.0); a[a > 5] = a[a > 5] * 2; a",
    "a = np.arange(4.0); a[[True, False, True, True]]",
    "np.take(np.arange(5), [-7, 12], mode='wrap')",
    "np.take(np.arange(5), [-7, 12], mode='clip')",
    "np.take(np.arange(12).reshape(3, 4), np.array([[0, -1]]), axis=-1)",
    "np.take(np.arange(5.0), 2)",
    "np.take(np.arange(12.0).reshape(3, 4)[::-1, ::2], [1, -1])",
    "np.choose([2, 0, 1], [np.arange(3), np.arange(3) * 10, np.arange(3) * 100])",
    "np.select([np.arange(5) < 2, np.arange(5) > 3], [np.arange(5), -np.arange(5)], default=9)",
    "np.argwhere(np.arange(6).reshape(2, 3) % 2 == 0)",
    "np.argwhere(np.array(3))",
    "np.flatnonzero(np.arange(6)[::-1] > 2)",
    "np.nonzero(np.zeros((2, 0)))[1]",
    "np.unravel_index(np.array([22, 41, 37]), (7, 6))[1]",
    "np.ravel_multi_index((np.array([3, 6, 6]), np.array([4, 5, 1])), (7, 6))",
    "np.ix_(np.array([0, 2]), np.array([1, 3]))[1]",
    "a = np.arange(12).reshape(3, 4); a[np.ix_([0, 2], [1, 3])]",
    "np.compress([False, True], np.arange(6).reshape(3, 2), axis=1)",
    "np.arange(6).reshape(3, 2).compress([True, False, True], axis=0)",
    "np.arange(6).reshape(3, 2)[::-1].compress(np.array([False, True, True]))",
    "np.extract(np.arange(6).reshape(2, 3) > 2, np.arange(6).reshape(2, 3)[:, ::-1])",
    "a = np.arange(6.0); np.copyto(a, np.array([9.0]), where=a > 2); a",
    "a = np.arange(6.0); np.putmask(a[::-1], a[::-1] > 2, [-1, -2]); a",
    "a = np.arange(6.0); np.place(a, a > 1, [10, 20, 30]); a",
    "np.indices((2, 3))[1]",
    "np.tril_indices(4, -1, 5)[1]",
    "np.triu_indices(3, 1)[0]",
    "np.diag_indices(3, 2)[0]",
    "a = np.arange(12).reshape(3, 4); np.take_along_axis(a[::-1], np.array([[3, 0]]), axis=1)",
    "a = np.arange(12).reshape(3, 4); np.put_along_axis(a.T, np.array([[0], [2], [1], [0]]), -5, axis=1); a",
];

/// Programs NumPy refuses: kupfer must fail too, with a short message.
const REFUSED: &[&str] = &[
    "a = np.arange(3); a[np.array([True, False, True, True])]",
    "a = np.arange(6).reshape(2, 3); a[np.array([[True, False, True]])]",
    "a = np.arange(3); a[[5]]",
    "a = np.arange(3); a[np.array([0, -4])]",
    "a = np.arange(12).reshape(3, 4); a[:, 4]",
    "a = np.arange(3); a[np.array([0.0, 1.0])]",
    "a = np.arange(3); a[0, 1]",
    "a = np.arange(6).reshape(2, 3); a[[0, 1], [0, 1, 2]]",
    "a = np.arange(6.0); a[a > 2] = np.array([1.0, 2.0])",
    "a = np.arange(6.0); a[[0, 1]] = np.array([1.0, 2.0, 3.0])",
    "a = np.arange(6.0); a[1:3] = np.array([1.0, 2.0, 3.0])",
    "a = np.arange(6, dtype=np.int32); a[a > 1] += 1.5",
    "a = np.arange(6, dtype=np.int32); a += 1.5",
    "a = np.arange(3); a[[7]] = 1",
    "a, b = np.arange(3)",
    "a, b = 3",
    "(1, 2)[0] = 5",
    "np.nonzero(np.array(3))",
    "np.take(np.arange(5), [9])",
    "np.choose(np.array([3]), [np.arange(1), np.arange(1)])",
    "np.unravel_index(np.array([12]), (3, 4))",
    "a = np.zeros(3, dtype=np.float32); np.add.at(a, [5], 1)",
    "a = np.zeros(3); np.multiply.at(a, [5], 2.0)",
    "a = np.zeros(3); np.maximum.at(a, [0, -4], 2.0)",
    "a = np.zeros(3); np.multiply.at(a, [0, 1], np.ones(3))",
    "a = np.arange(6).reshape(2, 3); a[np.array([True, False, True])]",
    "a = np.arange(6).reshape(2, 3); a[np.array([1.5])]",
    "a = np.arange(6).reshape(2, 3); a[:, np.array([3])]",
    "a = np.arange(6).reshape(2, 3); a[np.array([0, 1]), np.array([0, 1, 2])]",
    "a = np.arange(6).reshape(2, 3); a[0, 0, 0]",
    "np.take(np.arange(6).reshape(2, 3), [3], axis=0)",
    "np.take(np.arange(6).reshape(2, 3), [-7])",
];

#[test]
fn programs_match_numpy() {
    assert_programs_match_numpy("programs", CASES);
}

#[test]
fn refusals_match_numpy() {
    assert_programs_refused_like_numpy("program-refusals", REFUSED);
}

#[test]
fn errors_say_what_numpy_says() {
    device();
    let cases = [
        (
            "a = np.arange(3); a[np.array([True, False, True, True])]",
            "boolean index did not match indexed array along axis 0; size of axis is 3 but size of corresponding boolean axis is 4",
        ),
        (
            "a = np.arange(3); a[np.array([0, 5])]",
            "index 5 is out of bounds for axis 0 with size 3",
        ),
        (
            "a = np.arange(3); a[[-4]]",
            "index -4 is out of bounds for axis 0 with size 3",
        ),
        (
            "a = np.arange(3); a[np.array([0.5])]",
            "arrays used as indices must be of integer (or boolean) type",
        ),
        (
            "a = np.arange(3); a[0, 0]",
            "too many indices for array: array is 1-dimensional, but 2 were indexed",
        ),
        (
            "a = np.arange(3.0); a[[0, 1]] = np.array([1.0, 2.0, 3.0])",
            "shape mismatch: value array of shape (3,) could not be broadcast to indexing result of shape (2,)",
        ),
    ];
    for (program, want) in cases {
        // An out-of-bounds device index is reported at the read (the next sync).
        match Session::new().run(program).and_then(|v| v.to_host()) {
            Ok(_) => panic!("{program}: no error"),
            Err(e) => assert!(
                e.to_string().contains(want),
                "{program}: {} (wanted {want})",
                e
            ),
        }
    }
}

#[test]
fn statements_parse_and_report() {
    device();
    let mut s = Session::new();
    assert!(matches!(
        s.run("a = np.arange(4)").unwrap(),
        kupfer_eval::Value::None
    ));
    let v = s.run("a[1:3]").unwrap().to_host().unwrap().to_string();
    assert_eq!(v, "[1 2]");
    // `np.`, `cp.` and `cupy.` are the same namespace.
    let v = s
        .run("cp.sum(a) + cupy.sum(a) + np.sum(a)")
        .unwrap()
        .to_host()
        .unwrap()
        .to_string();
    assert_eq!(v, "18");
    for bad in ["a[0] = ", "1 = a", "f(a) = 3", "a +", "(a, b) += 1"] {
        assert!(Session::new().run(bad).is_err(), "{bad}");
    }
}
