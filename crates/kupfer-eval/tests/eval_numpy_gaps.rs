//! NumPy functions whose docstring sessions `kupfer eval` did not run (issues 23 and 25's
//! gaps): `unravel_index(order='F')`, `ravel_multi_index` with an array, orders and
//! per-axis modes, `np.pad`'s median mode and odd reflections, `np.mgrid` / `np.ogrid` /
//! `np.s_` / `np.index_exp`, `fill_diagonal`, `digitize`, `out=` of the order statistics
//! and the `unique_*` named tuples; `ufunc.at` of every elementwise ufunc (`np.negative.at`,
//! `np.power.at`, ...), split functions with an index array, `np.unstack`,
//! `np.mask_indices` and `print(...)` statements. Each program runs in kupfer eval and in NumPy
//! (tests/python/program_oracle.py); results must agree in shape, dtype and values, and
//! programs NumPy refuses must fail in kupfer with a short error. Needs python3 with numpy;
//! fails, never skips, without them.

mod common;

use common::{assert_programs_match_numpy, assert_programs_refused_like_numpy, device};
use kupfer_eval::Session;

/// Programs whose last value must match NumPy's.
const CASES: &[&str] = &[
    // unravel_index: both orders, scalars, 0-d, empty, int32 and uint8 indices, bools
    "np.unravel_index([22, 41, 37], (7, 6))[1]",
    "np.unravel_index([31, 41, 13], (7, 6), order='F')[0]",
    "np.unravel_index([31, 41, 13], (7, 6), order='F')[1]",
    "np.unravel_index(1621, (6, 7, 8, 9), order='F')[2]",
    "np.unravel_index(1621, (6, 7, 8, 9))[3]",
    "np.unravel_index(np.arange(24, dtype=np.int32).reshape(4, 6), (2, 3, 4), order='F')[1]",
    "np.unravel_index(np.arange(24, dtype=np.int32).reshape(4, 6)[:, ::-1], (2, 3, 4), order='F')[2]",
    "np.unravel_index(np.array([5, 0, 3], dtype=np.uint8), (2, 3), order='F')[0]",
    "np.unravel_index(np.array([], dtype=np.int64), (2, 3), order='F')[1]",
    "np.unravel_index(np.array([True, False]), (2, 3))[1]",
    "np.unravel_index(0, (1,), order='F')[0]",
    "np.unravel_index(7, (8,), order='F')[0]",
    // ravel_multi_index: an array of rows, orders, every mode and per-axis modes
    "arr = np.array([[3, 6, 6], [4, 5, 1]]); np.ravel_multi_index(arr, (7, 6))",
    "arr = np.array([[3, 6, 6], [4, 5, 1]]); np.ravel_multi_index(arr, (7, 6), order='F')",
    "arr = np.array([[3, 6, 6], [4, 5, 1]]); np.ravel_multi_index(arr, (4, 6), mode='clip')",
    "arr = np.array([[3, 6, 6], [4, 5, 1]]); np.ravel_multi_index(arr, (4, 4), mode=('clip', 'wrap'))",
    "arr = np.array([[3, 6, 6], [4, 5, 1]]); np.ravel_multi_index(arr, (4, 4), mode=['wrap', 'clip'], order='F')",
    "np.ravel_multi_index((3, 1, 4, 1), (6, 7, 8, 9))",
    "np.ravel_multi_index((3, 1, 4, 1), (6, 7, 8, 9), order='F')",
    "np.ravel_multi_index(([-1, 7, 15], [2, -9, 3]), (5, 4), mode='wrap')",
    "np.ravel_multi_index(([-1, 7, 15], [2, -9, 3]), (5, 4), mode='clip', order='F')",
    "np.ravel_multi_index((np.array([[0], [2]], dtype=np.int32), np.array([1, 3, 0], dtype=np.uint16)), (3, 4))",
    "np.ravel_multi_index(np.array([[1, 0], [2, 1], [0, 3]], dtype=np.int32), (2, 3, 4), order='F')",
    "np.ravel_multi_index(np.arange(6).reshape(2, 3)[::-1], (6, 4))",
    "np.ravel_multi_index(np.zeros((2, 0), dtype=np.int64), (2, 3))",
    "np.ravel_multi_index(([True, False], [2, 1]), (2, 3))",
    // pad: median (stat_length, ints round half to even, floats), odd reflections
    "np.pad(np.array([1, 2, 4, 4, 9]), (2, 3), 'median')",
    "np.pad(np.array([1, 2, 4, 4, 9]), (2, 3), 'median', stat_length=2)",
    "np.pad(np.array([1.0, 2, 4, 4, 9]), (2, 3), 'median', stat_length=(2, 3))",
    "np.pad(np.array([1, 3, 2, 7], dtype=np.int32), (3, 4), 'median')",
    "np.pad(np.arange(12.0).reshape(3, 4) ** 2, ((1, 2), (2, 1)), 'median')",
    "np.pad(np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::-1], 1, mode='median', stat_length=((1, 2), (3, 1)))",
    "a = [1, 2, 3, 4, 5]; np.pad(a, (2, 3), 'reflect', reflect_type='odd')",
    "a = [1, 2, 3, 4, 5]; np.pad(a, (2, 3), 'symmetric', reflect_type='odd')",
    "a = [1, 2, 3, 4, 5]; np.pad(a, (7, 8), 'reflect', reflect_type='odd')",
    "a = [1, 2, 3, 4, 5]; np.pad(a, (7, 8), 'symmetric', reflect_type='odd')",
    "np.pad(np.array([1.0, 2, 3]), (5, 5), 'reflect', reflect_type='odd')",
    "np.pad(np.array([2.0, 7.0]), (5, 4), 'reflect', reflect_type='odd')",
    "np.pad(np.array([3]), (2, 2), 'reflect', reflect_type='odd')",
    "np.pad(np.array([3]), (2, 2), 'symmetric', reflect_type='odd')",
    "np.pad(np.array([1, 2, 3], dtype=np.uint8), 3, 'reflect', reflect_type='odd')",
    "np.pad(np.array([True, False, True]), 3, 'reflect', reflect_type='odd')",
    "np.pad(np.arange(12.0).reshape(3, 4) ** 2, ((4, 2), (1, 5)), 'symmetric', reflect_type='odd')",
    "np.pad(np.arange(12, dtype=np.int32).reshape(3, 4).T, ((0, 0), (2, 7)), 'reflect', reflect_type='odd')",
    "np.pad(np.array([1, 2, 3]), 3, 'reflect', reflect_type='even')",
    "np.pad(np.array([1, 2, 3]), 0, 'reflect', reflect_type='odd')",
    // mgrid, ogrid: int, float and complex-count steps, one slice, defaults
    "np.mgrid[0:5, 0:5]",
    "np.mgrid[-1:1:5j]",
    "np.mgrid[-1:1:5j, 0:3]",
    "np.mgrid[0:1:0.25, 1:3:0.5]",
    "np.mgrid[0:4:1j]",
    "np.mgrid[1:2:1j, 0:2]",
    "np.mgrid[:3]",
    "np.mgrid[0:10:3]",
    "np.mgrid[0:1:0.25,]",
    "np.mgrid[5:0:-2, 1:3]",
    "np.mgrid[0:2, 0:3, 0:1:2j]",
    "np.ogrid[-1:1:5j]",
    "np.ogrid[0:5, 0:5][0]",
    "np.ogrid[0:5, 0:5][1]",
    "np.ogrid[0:5, 0:3:0.5][1]",
    "np.ogrid[5:0, 0:3][0]",
    "np.ogrid[0:2:3j, 1:4, 0:2][2]",
    "x, y = np.ogrid[0:3, 0:4]; x * 10 + y",
    // s_ and index_exp
    "a = np.arange(10); a[np.s_[::2]]",
    "a = np.arange(12).reshape(3, 4); a[np.s_[1:, ::-1]]",
    "a = np.arange(12).reshape(3, 4); a[np.index_exp[2:0:-1]]",
    "a = np.arange(12).reshape(3, 4); np.delete(a, np.s_[::2], 1)",
    "np.arange(12).reshape(3, 4)[np.s_[..., 1]]",
    // fill_diagonal: 2-D, n-D, tall with and without wrap, wide, cycled values, views, casts
    "a = np.zeros((3, 3), int); np.fill_diagonal(a, 5); a",
    "a = np.zeros((3, 3, 3, 3), int); np.fill_diagonal(a, 4); a[1, 1]",
    "a = np.zeros((5, 3), int); np.fill_diagonal(a, 4); a",
    "a = np.zeros((5, 3), int); np.fill_diagonal(a, 4, wrap=True); a",
    "a = np.zeros((3, 5), int); np.fill_diagonal(a, 4, wrap=True); a",
    "a = np.zeros((8, 3)); np.fill_diagonal(a, [1.5, 2.5], wrap=True); a",
    "a = np.zeros((3, 3), int); np.fill_diagonal(np.fliplr(a), [1, 2, 3]); a",
    "a = np.zeros((3, 3), int); np.fill_diagonal(np.flipud(a), [1, 2, 3]); a",
    "a = np.zeros((4, 4), dtype=np.int32); np.fill_diagonal(a, 2.7); a",
    "a = np.zeros((4, 6), dtype=np.float32); np.fill_diagonal(a, np.arange(10.0)); a",
    "a = np.zeros((4, 4), dtype=bool); np.fill_diagonal(a, True); a",
    "a = np.zeros((3, 3), dtype=np.complex64); np.fill_diagonal(a, 1 - 2j); a",
    "a = np.arange(16.0).reshape(4, 4); np.fill_diagonal(a[::2, ::2], -1); a",
    "a = np.zeros((0, 3)); np.fill_diagonal(a, 1); a",
    "a = np.zeros((2, 2, 2), dtype=np.uint8); np.fill_diagonal(a, [7, 9]); a",
    // digitize: increasing and decreasing bins, right, ints, nan, inf, 0-d, empty, ties
    "x = np.array([0.2, 6.4, 3.0, 1.6]); bins = np.array([0.0, 1.0, 2.5, 4.0, 10.0]); np.digitize(x, bins)",
    "x = np.array([1.2, 10.0, 12.4, 15.5, 20.]); bins = np.array([0, 5, 10, 15, 20]); np.digitize(x, bins, right=True)",
    "x = np.array([1.2, 10.0, 12.4, 15.5, 20.]); bins = np.array([0, 5, 10, 15, 20]); np.digitize(x, bins, right=False)",
    "np.digitize(np.arange(-2, 13), [10, 7, 7, 3, 0])",
    "np.digitize(np.arange(-2, 13), [10, 7, 7, 3, 0], right=True)",
    "np.digitize(np.array([np.nan, 1.0, -np.inf, np.inf, 2.0]), [0.0, 1.0, 2.0])",
    "np.digitize(np.array([np.nan, 1.0, -np.inf, np.inf, 2.0]), [0.0, 1.0, 2.0], right=True)",
    "np.digitize(np.array([np.nan, 1.0, 5.0]), np.array([1.0, 2.0, np.nan]))",
    "np.digitize(np.array([np.nan, 1.0, 5.0]), np.array([np.nan, 2.0, 1.0]))",
    "np.digitize(np.array([np.nan, 1.0, 5.0]), np.array([np.nan, np.nan]))",
    "np.digitize(np.array([1, 2, 3]), [2, 2, 2])",
    "np.digitize(np.array([1, 2, 3]), [2, 2, 2], right=True)",
    "np.digitize(np.array([1, 2, 3], dtype=np.int32), np.array([], dtype=np.int32))",
    "np.digitize(2.5, [1, 2, 3])",
    "np.digitize(np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::-1], np.array([9.5, 4.0, 1.0], dtype=np.float32))",
    "np.digitize(np.array([], dtype=np.float64), [1.0, 2.0])",
    "np.digitize(np.array([5, 200, 17], dtype=np.uint8), np.array([0, 10, 100], dtype=np.uint8))",
    "np.digitize(np.array([-5, 3, 9], dtype=np.int64), np.arange(10, dtype=np.int64)[::-3])",
    // median / percentile / quantile (and nan forms) with out= and overwrite_input=
    "a = np.array([[10, 7, 4], [3, 2, 1]]); m = np.median(a, axis=0); out = np.zeros_like(m); np.median(a, axis=0, out=m); m",
    "a = np.array([[10, 7, 4], [3, 2, 1]]); out = np.zeros(2); r = np.median(a, axis=1, out=out); out + r",
    "a = np.array([[10.0, 7, 4], [3, 2, 1]]); b = a.copy(); np.median(b, axis=None, overwrite_input=True)",
    "a = np.array([[10.0, 7, 4], [3, 2, 1]]); out = np.zeros(3, dtype=np.int32); np.median(a, axis=0, out=out); out",
    "a = np.array([[10, 7, 4], [3, 2, 1]]); out = np.zeros(3); np.percentile(a, 50, axis=0, out=out); out",
    "a = np.array([[10, 7, 4], [3, 2, 1]]); out = np.zeros((2, 3)); np.percentile(a, [20, 90], axis=0, out=out); out",
    "a = np.array([[10.0, np.nan, 4], [3, 2, 1]]); out = np.zeros(3); np.nanmedian(a, axis=0, out=out); out",
    "a = np.array([[10.0, np.nan, 4], [3, 2, 1]]); out = np.zeros(2); np.nanpercentile(a, 25, axis=1, out=out, overwrite_input=True); out",
    "a = np.array([[10.0, np.nan, 4], [3, 2, 1]]); out = np.zeros((2, 2)); np.nanquantile(a, [0.5, 1.0], axis=1, out=out); out",
    "a = np.arange(24.0).reshape(2, 3, 4); out = np.zeros((2, 1, 4)); np.median(a, axis=1, keepdims=True, out=out); out",
    "a = np.arange(6.0).reshape(2, 3); base = np.zeros((4, 3)); out = base[1, ::-1]; np.percentile(a, 40, axis=0, out=out); base",
    // unique_* named tuples: attributes, indexing, unpacking
    "x = [1, 1, 2]; uniq = np.unique_all(x); uniq.values",
    "x = [1, 1, 2]; uniq = np.unique_all(x); uniq.indices",
    "x = [1, 1, 2]; uniq = np.unique_all(x); uniq.inverse_indices",
    "x = [1, 1, 2]; uniq = np.unique_all(x); uniq.counts",
    "x = [1, 1, 2]; uniq = np.unique_counts(x); uniq.counts",
    "x = [1, 1, 2]; uniq = np.unique_counts(x); uniq.values",
    "x = np.array([[3.0, 1.0], [3.0, np.nan]]); uniq = np.unique_inverse(x); uniq.inverse_indices",
    "x = np.array([[3.0, 1.0], [3.0, np.nan]]); uniq = np.unique_inverse(x); uniq.values",
    "x = np.array([5, 3, 5, 1], dtype=np.int32); np.unique_counts(x)[1]",
    "x = np.array([5, 3, 5, 1], dtype=np.int32); v, c = np.unique_counts(x); v * 10 + c",
    "x = np.array([5, 3, 5, 1], dtype=np.int32); np.unique_all(x).counts + np.unique_all(x)[3]",
    "x = np.array([5, 3, 5, 1], dtype=np.int32); u = np.unique_all(x); v, i, inv, c = u; v[inv] - x + c.sum() + i[0]",
    "x = np.array([5, 3, 5, 1], dtype=np.int32); u = w = np.unique_inverse(x); w.values[u.inverse_indices]",
    // diag_indices_from
    "a = np.arange(16).reshape(4, 4); a[np.diag_indices_from(a)]",
    "a = np.zeros((2, 2, 2), dtype=np.int32); a[np.diag_indices_from(a)] = 7; a",
    "np.diag_indices_from(np.ones((3, 3)))[1]",
    // pad with a dict pad_width (NumPy 2.4): {axis: width or (before, after)}, other axes
    // unpadded, negative axes, a repeated key's last value, bool keys and widths
    "a = np.arange(6).reshape(2, 3); np.pad(a, {1: (1, 2)})",
    "a = np.arange(6).reshape(2, 3); np.pad(a, {-1: 1, 0: (0, 1)}, mode='edge')",
    "a = np.arange(24.0).reshape(2, 3, 4); np.pad(a, {2: (2, 0), -3: True}, 'reflect')",
    "np.pad(np.arange(6).reshape(2, 3), {})",
    "d = {0: 1, 0: (2, 3)}; np.pad(np.arange(3), d, constant_values=7)",
    "w = {1: 2}; np.pad(np.ones((2, 2), dtype=np.float32), w, 'wrap')",
    "np.pad(np.arange(6).reshape(2, 3), {True: 1}, 'symmetric')",
    "np.pad(np.arange(6).reshape(2, 3), {0: (False, 2), 1: 0}, 'linear_ramp', end_values=-5)",
    "np.pad(np.arange(5.0), {0: (2, 3)}, 'mean', stat_length={0: 9}[0])",
    // ufunc.at for every elementwise ufunc (issue 23): unary ufuncs once per occurrence,
    // binary ones in index order, cast back unsafely; views, 0-d, empty, slices, 2-D
    // indices, bool masks, b broadcast; atomic ops whose dtypes have no kernel
    "a = np.array([1, 2, 3, 4]); np.negative.at(a, [0, 1]); a",
    "a = np.array([1, 2, 3, 4]); np.negative.at(a, [0, 0, 2, -1]); a",
    "a = np.arange(5.0); np.square.at(a, [1, 1, -1]); a",
    "a = np.arange(6, dtype=np.float32).reshape(2, 3); np.power.at(a, (1, [0, 2, 2]), 2); a",
    "a = np.arange(10); np.floor_divide.at(a, [9, 9, 8, -1], [2, 2, 3, 1]); a",
    "a = np.arange(8); np.divide.at(a, [1, 1, 3], 2); a",
    "a = np.arange(4.0); np.arctan2.at(a, [1, 1, 2], 3.0); a",
    "a = np.ones(4); np.hypot.at(a, [0, 0, 3], [3.0, 4.0, 1.0]); a",
    "a = np.array([-1.0, 2.0, -3.0]); np.copysign.at(a, [0, 0, 1], [-1.0, 1.0, -1.0]); a",
    "a = np.array([1.0, np.nan, 3.0]); np.fmax.at(a, [1, 1, 2], [5.0, 7.0, 1.0]); a",
    "a = np.array([1.0, np.nan, 3.0]); np.fmin.at(a, [0, 1], np.nan); a",
    "a = np.array([True, False, True]); np.logical_xor.at(a, [0, 0, 1], True); a",
    "a = np.array([True, False, True]); np.logical_not.at(a, [0, 0, 1]); a",
    "a = np.array([True, False, True]); np.logical_and.at(a, [0, 2], [True, False]); a",
    "a = np.array([0, 1, 2], dtype=np.int8); np.logical_or.at(a, [0, 0], 0); a",
    "a = np.arange(6); np.left_shift.at(a, [1, 1, 2], 2); a",
    "a = np.arange(60, 66, dtype=np.uint16); np.right_shift.at(a, [1, 1, -1], np.array([1, 2, 3], dtype=np.uint16)); a",
    "a = np.arange(10, 16); np.remainder.at(a, [0, 0, 5], [4, 3, 7]); a",
    "a = np.arange(-5.0, 1.0); np.mod.at(a, [0, 0, 1], 3); a",
    "a = np.array([1+2j, 3-1j]); np.conjugate.at(a, [0, 0, 1]); a",
    "a = np.array([1+2j, 3-1j], dtype=np.complex64); np.power.at(a, [1, 1], 2); a",
    "a = np.arange(4); np.greater.at(a, [0, 1, 1], 1); a",
    "a = np.arange(12.0).reshape(3, 4); np.sqrt.at(a, (slice(None), [0, 0])); a",
    "a = np.arange(5.0); np.exp2.at(a, np.array([[0, 1], [1, 4]])); a",
    "a = np.full((3, 3), 2.0); np.power.at(a, ([0, 0, 2], slice(None)), np.array([1.0, 2.0, 3.0])); a",
    "b = np.arange(10.0); a = b[::2]; np.square.at(a, [1, 1, 4]); b",
    "b = np.arange(6).reshape(2, 3); np.negative.at(b.T, ([0, 2, 2], [1, 0, 0])); b",
    "a = np.arange(3.0); np.square.at(a, np.array([], dtype=np.int64)); a",
    "a = np.arange(3.0); np.power.at(a, [], 2); a",
    "a = np.array(3.0); np.square.at(a, ()); a",
    "a = np.array([250, 3], dtype=np.uint8); np.power.at(a, [0, 1, 1], 2); a",
    "a = np.arange(4, dtype=np.int32); np.true_divide.at(a, [3, 3], np.array([2.0, 0.5])); a",
    "a = np.arange(4); np.multiply.at(a, [1, 1], 2.5); a",
    "a = np.arange(4); np.add.at(a, [0, 0], 1.5); a",
    "a = np.arange(1.0, 4.0); np.float_power.at(a, [0, 2, 2], 2); a",
    "a = np.array([-1.0, 0.0, 2.0]); np.heaviside.at(a, [0, 1, 1], 0.5); a",
    "a = np.zeros(3, dtype=np.float32); np.logaddexp.at(a, [0, 0, 2], np.float32(1.0)); a",
    "a = np.arange(5.0); np.sin.at(a, [True, False, True, False, True]); a",
    "a = np.arange(6.0).reshape(2, 3); np.negative.at(a, np.array([1, 1, 0], dtype=np.uint8)); a",
    "a = np.arange(4.0); np.abs.at(a, [-4]); a",
    "a = np.arange(4, dtype=np.int16); np.bitwise_left_shift.at(a, [3, 3], [1, 2]); a",
    "a = np.arange(4.0); np.subtract.at(a, [0, 0], 1); np.negative.at(a, [0]); a",
    "a = np.array([90.0, 180.0, 45.0]); np.deg2rad.at(a, [0, 2, 2]); np.rad2deg.at(a, [0]); a",
    "a = np.arange(3, dtype=np.float32); np.radians.at(a, [1, 1]); np.degrees.at(a, [2]); a",
    // the atomic ops where no kernel computes the loop (64-bit destinations with float or
    // complex values; NumPy accepts them and casts each step back): the rounds path
    "a = np.zeros(3, dtype=np.int64); np.maximum.at(a, [0, 0], 1.5); a",
    "a = np.arange(3, dtype=np.int64); np.minimum.at(a, [2, 2, 1], np.array([1.5, -0.5, 0.25])); a",
    "a = np.arange(3, dtype=np.int64); np.multiply.at(a, [2, 2], 1.5); a",
    "a = np.arange(3, dtype=np.uint64); np.add.at(a, [0, 0, 2], 1.5); a",
    "a = np.arange(3, dtype=np.uint64); np.subtract.at(a, [2, 2], 0.5); a",
    "a = np.arange(3, dtype=np.int64); np.add.at(a, [0, 0], np.array([1+1j, 2j])); a",
    // split and friends with an integer array, unstack, mask_indices, print statements
    "x = np.arange(16.0).reshape(4, 4); np.hsplit(x, np.array([3, 6]))[1]",
    "x = np.arange(16.0).reshape(4, 4); np.hsplit(x, np.array([3, 6]))[2]",
    "x = np.arange(8.0); np.split(x, np.array([3, 5, 6, 10]))[2]",
    "np.array_split(np.arange(8), np.array(3))[0]",
    "np.split(np.arange(6), np.array([2, 4], dtype=np.int32))[1]",
    "np.split(np.arange(6), np.array([4, -1], dtype=np.int8))[1]",
    "np.vsplit(np.arange(16.0).reshape(4, 4), np.array([3, 6]))[0]",
    "np.dsplit(np.arange(16.0).reshape(2, 2, 4), np.array([3, 6]))[0]",
    "np.split(np.arange(6), np.array([], dtype=np.int64))[0]",
    "np.array_split(np.arange(12).reshape(3, 4), np.array([1, 3]), axis=1)[1]",
    "np.unstack(np.arange(6).reshape(2, 3))[1]",
    "np.unstack(np.arange(24.0).reshape(2, 3, 4), axis=-1)[3]",
    "arr = np.arange(24).reshape(2, 3, 4); arr2 = np.stack(np.unstack(arr, axis=1), axis=1); np.all(arr == arr2)",
    "len(np.unstack(np.zeros((0, 3))))",
    "x = np.arange(6).reshape(2, 3); v = np.unstack(x, axis=1)[0]; v[0] = 9; x",
    "np.unstack(np.array([True, False]))[1]",
    "np.mask_indices(3, np.triu)[1]",
    "a = np.arange(16).reshape(4, 4); a[np.mask_indices(4, np.triu, 1)]",
    "np.mask_indices(4, np.tril, -1)[0]",
    "np.mask_indices(0, np.triu)[0]",
    "a = np.arange(9.0).reshape(3, 3); iu = np.mask_indices(3, np.tril); a[iu]",
    "a = np.arange(3); print(a); print('x', a + 1, sep='|', end=''); print(); a * 2",
    // integer arrays and NumPy scalars where NumPy takes ints or numbers (read to the host)
    "a = np.arange(6); np.tile(a, np.array([2, 1]))",
    "np.tile(np.arange(3), np.int64(2))",
    "a = np.arange(6); np.roll(a, np.array([1]))",
    "a = np.arange(6).reshape(2, 3); np.roll(a, np.array([1, 1]), axis=(0, 1))",
    "a = np.arange(6); np.reshape(a, np.array([2, 3]))",
    "a = np.arange(6); a.reshape(np.array([2, 3], dtype=np.int32))",
    "a = np.arange(6); np.insert(a, np.array([1, 2]), 5)",
    "a = np.arange(6); np.insert(a, np.array(1), [7, 8])",
    "a = np.arange(6); np.delete(a, np.array([0, 1]))",
    "a = np.arange(4); np.delete(a, np.array([True, False, True, False]))",
    "np.zeros(np.array([2, 3]))",
    "np.ones(np.array([2]), dtype=np.int32)",
    "np.arange(6).reshape(2, 3).transpose(np.array([1, 0]))",
    "np.transpose(np.arange(6).reshape(2, 3), np.array([1, 0]))",
    "np.broadcast_to(np.arange(3), np.array([2, 3]))",
    "np.unravel_index(5, np.array([2, 3]))[1]",
    "np.full(np.array([2]), 3)",
    "np.resize(np.arange(3), np.array([2, 2]))",
    "np.indices(np.array([2, 2]))",
    "np.eye(np.int64(3))",
    "np.tri(np.int64(3), k=np.int32(-1))",
    "np.tril_indices(np.int64(3))[0]",
    "np.split(np.arange(6), np.int64(3))[0]",
    "np.pad(np.arange(3), np.array([1, 2]))",
    "np.pad(np.arange(6).reshape(2, 3), np.array([[1, 0], [0, 2]]))",
    "np.squeeze(np.zeros((1, 3)), axis=np.int64(0))",
    "np.sum(np.arange(6).reshape(2, 3), axis=np.int64(1))",
    "np.arange(6).reshape(2, 3).sum(axis=np.array(0))",
    "np.moveaxis(np.zeros((2, 3, 4)), np.array([0]), np.array([2])).shape",
    "np.linspace(0, 1, np.int64(5))",
    "np.arange(10)[np.int64(3)]",
    "np.repeat(np.arange(3), np.int64(2))",
    "np.linspace(0, np.float64(1.0), 5)",
    "np.arange(np.int64(3))",
    "np.arange(np.float32(2.5))",
    "np.arange(np.int32(1), 7, np.int64(2))",
    "np.logspace(0, np.float64(2.0), np.int64(3))",
    "rng = np.random.default_rng(0); print(rng); x = np.float32(1.5); print(x, [1, 2.0], (3,), None, True); x",
];

/// Programs NumPy refuses: kupfer must fail too, with a short message.
const REFUSED: &[&str] = &[
    "np.unravel_index([1], (2, 3), order='K')",
    "np.unravel_index([6], (2, 3), order='F')",
    "np.unravel_index([-1], (2, 3))",
    "np.unravel_index(np.array([1.0]), (2, 3))",
    "np.ravel_multi_index(np.array([[1, 2], [0, 1]]), (2, 3))",
    "np.ravel_multi_index(([1, 2], [3, 4]), (2, 3), mode=('clip', 'wrap', 'raise'))",
    "np.ravel_multi_index(([1, 2], [3, 4]), (2, 3), mode='foo')",
    "np.ravel_multi_index(([1, 2], [3, 4]), (4, 5), order='X')",
    "np.ravel_multi_index(([1.0, 2], [3, 4]), (4, 5))",
    "np.ravel_multi_index([[1, 2]], (2, 3))",
    "np.ravel_multi_index(([0], [-1]), (2, 3))",
    "np.fill_diagonal(np.zeros(3), 1)",
    "np.fill_diagonal(np.zeros((2, 3, 2)), 1)",
    "np.digitize([1], [3, 1, 2])",
    "np.digitize([1], [[1, 2]])",
    "np.digitize([1], 1)",
    "np.digitize([1j], [1, 2])",
    "np.digitize([1], [1j, 2])",
    "np.digitize([1.0], np.array([np.nan, 1.0, 2.0]))",
    "np.pad(np.array([1, 2, 3]), 2, 'maximum', stat_length=0)",
    "np.mgrid[5:0, 0:3]",
    "np.mgrid[0:3:0, 0:2]",
    "np.mgrid[0:3:0]",
    "a = np.array([[10, 7, 4], [3, 2, 1]]); np.percentile(a, 30, axis=0, out=np.zeros(3, dtype=np.int64))",
    "a = np.array([[10, 7, 4], [3, 2, 1]]); np.median(a, axis=0, out=np.zeros((1, 3)))",
    "a = np.array([[10, 7, 4], [3, 2, 1]]); np.percentile(a, 50, axis=0, out=np.zeros(2))",
    "uniq = np.unique_counts([1, 1, 2]); uniq.inverse_indices",
    "np.pad(np.arange(6).reshape(2, 3), {2: 1})",
    "np.pad(np.arange(6).reshape(2, 3), {-3: 1})",
    "np.pad(np.arange(6).reshape(2, 3), {0: -1})",
    "np.pad(np.arange(6).reshape(2, 3), {1: (1, -2)})",
    "np.pad(np.arange(6).reshape(2, 3), {'a': 1})",
    "np.pad(np.arange(6).reshape(2, 3), {1.0: 1})",
    "np.pad(np.arange(6).reshape(2, 3), {0: (1, 2, 3)})",
    "np.pad(np.arange(6).reshape(2, 3), {0: [1, 2]})",
    "np.pad(np.arange(6).reshape(2, 3), {0: 1.5})",
    "np.pad(np.array(3), {})",
    "{[1]: 2}",
    "{np.arange(2): 2}",
    "{0: 1}[1]",
    "np.diag_indices_from(np.zeros(3))",
    "np.diag_indices_from(np.zeros((2, 3)))",
    "{0: 1}[[0]]",
    "a = np.arange(4.0); np.negative.at(a, [1], 3)",
    "a = np.arange(4.0); np.power.at(a, [1])",
    "a = np.arange(4.0); np.sqrt.at(a, [4])",
    "a = np.arange(4.0); np.sqrt.at(a, [-5])",
    "a = np.arange(4.0); np.power.at(a, [1, 2], [1.0, 2.0, 3.0])",
    "a = np.arange(4.0); np.sqrt.at(a, np.array([1.0]))",
    "a = np.arange(4.0); np.invert.at(a, [1])",
    "a = np.ones((2, 2)); np.exp.at(a, ([0], [0], [0]))",
    "a = np.arange(4.0); np.power.at(a, [0, 1], np.ones((2, 2)))",
    "np.split(np.arange(6), np.array([1.5]))",
    "np.split(np.arange(6), np.array(4))",
    "np.unstack(np.array(1))",
    "np.unstack(np.arange(3), axis=1)",
    "np.mask_indices(-1, np.triu)",
    "np.modf.at(np.arange(4.0), [1])",
    "np.degrees.at(np.arange(4.0), [1], 2.0)",
    "print(1, file=None, foo=2)",
    "np.zeros(np.array([2.0, 3.0]))",
    "np.eye(np.float64(3))",
    "np.tile(np.arange(3), np.array([1.5]))",
];

#[test]
fn gap_programs_match_numpy() {
    assert_programs_match_numpy("gap-programs", CASES);
}

#[test]
fn gap_refusals_match_numpy() {
    assert_programs_refused_like_numpy("gap-refusals", REFUSED);
}

/// Dict displays evaluate as Python's: a repeated key (`1`, `1.0`, `True` are one key) keeps
/// its first place and takes the last value; the repr is Python's.
#[test]
fn dict_displays_are_pythons() {
    device();
    for (program, want) in [
        (
            "{1: 2, 'a': (1, 2.5), 1.0: None}",
            "{1: None, 'a': (1, 2.5)}",
        ),
        ("{}", "{}"),
        (
            "{(1, 'x'): [1, 2], True: 3,\n 2: {0: 1}}",
            "{(1, 'x'): [1, 2], True: 3, 2: {0: 1}}",
        ),
        ("d = {0: 5}; d", "{0: 5}"),
    ] {
        let got = Session::new().run(program).and_then(|v| v.to_host());
        match got {
            Ok(v) => assert_eq!(v.repr(), want, "{program}"),
            Err(e) => panic!("{program}: {e}"),
        }
    }
}

#[test]
fn gap_errors_say_what_numpy_says() {
    device();
    let cases = [
        (
            "np.ravel_multi_index(np.array([[1, 2], [0, 1]]), (2, 3))",
            "invalid entry in coordinates array",
        ),
        (
            "np.ravel_multi_index(([1, 2], [3, 4]), (2, 3), mode=('clip', 'wrap', 'raise'))",
            "list of clipmodes has wrong length (3 instead of 2)",
        ),
        (
            "np.unravel_index([1], (2, 3), order='K')",
            "only 'C' or 'F' order is permitted",
        ),
        (
            "np.ravel_multi_index(([1.0, 2], [3, 4]), (4, 5))",
            "only int indices permitted",
        ),
        (
            "np.digitize([1], [3, 1, 2])",
            "bins must be monotonically increasing or decreasing",
        ),
        ("np.digitize([1j], [1, 2])", "x may not be complex"),
        (
            "np.fill_diagonal(np.zeros(3), 1)",
            "array must be at least 2-d",
        ),
        (
            "np.fill_diagonal(np.zeros((2, 3, 2)), 1)",
            "All dimensions of input must be of equal length",
        ),
        ("np.mgrid[5:0, 0:3]", "negative dimensions are not allowed"),
        (
            "uniq = np.unique_counts([1, 1, 2]); uniq.inverse_indices",
            "'UniqueCountsResult' object has no attribute 'inverse_indices'",
        ),
        (
            "np.pad(np.arange(6).reshape(2, 3), {2: 1})",
            "list assignment index out of range",
        ),
        (
            "np.pad(np.arange(6).reshape(2, 3), {0: -1})",
            "index can't contain negative values",
        ),
        (
            "np.pad(np.arange(6).reshape(2, 3), {'a': 1})",
            "list indices must be integers or slices, not str",
        ),
        (
            "np.pad(np.arange(6).reshape(2, 3), {0: (1, 2, 3)})",
            "Expected code to be unreachable, but got: (1, 2, 3)",
        ),
        ("{[1]: 2}", "unhashable type: 'list'"),
        (
            "np.diag_indices_from(np.zeros(3))",
            "input array must be at least 2-d",
        ),
        (
            "np.diag_indices_from(np.zeros((2, 3)))",
            "All dimensions of input must be of equal length",
        ),
        ("{0: 1}['k']", "KeyError: 'k'"),
        (
            "a = np.arange(4.0); np.negative.at(a, [1], 3)",
            "second operand provided when ufunc is unary",
        ),
        (
            "a = np.arange(4.0); np.power.at(a, [1])",
            "second operand needed for ufunc",
        ),
        (
            "a = np.arange(4.0); np.sqrt.at(a, [4])",
            "index 4 is out of bounds for axis 0 with size 4",
        ),
        (
            "a = np.arange(4.0); np.power.at(a, [1, 2], [1.0, 2.0, 3.0])",
            "array is not broadcastable to correct shape",
        ),
        (
            "np.modf.at(np.arange(4.0), [1])",
            "Only single output ufuncs supported at this time",
        ),
        (
            "np.unstack(np.array(1))",
            "Input array must be at least 1-d.",
        ),
    ];
    for (program, want) in cases {
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

/// `print(...)` statements write what Python's `print` writes (NumPy's `str()` of arrays and
/// scalars, Python's of lists, tuples, None and bools; `sep=` and `end=`).
#[test]
fn print_writes_what_python_prints() {
    device();
    let programs = [
        "a = np.arange(3); print(a); print('x', a + 1, sep='|', end=''); print()",
        "x = np.float32(1.5); print(x, [1, 2.0], (3,), None, True)",
        "print(np.linspace(0, 1, 5).reshape(1, 5), np.array([1+2j]), np.int8(-3), sep='\\n')",
        "print(np.zeros((2, 0)), np.array(7.25), end='!\\n')",
    ];
    let script = format!(
        "import numpy as np\nfor p in {programs:?}:\n    exec(p, {{'np': np}})\n    print('@@')\n"
    );
    let o = std::process::Command::new("python3")
        .arg("-c")
        .arg(&script)
        .output()
        .expect("python3 must be installed for this test (with numpy)");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let want = String::from_utf8_lossy(&o.stdout).to_string();
    let mut got = String::new();
    for p in programs {
        let mut s = Session::new();
        s.run(p).unwrap_or_else(|e| panic!("{p}: {e}"));
        got.push_str(&s.take_printed());
        got.push_str("@@\n");
    }
    assert_eq!(got, want);
}
