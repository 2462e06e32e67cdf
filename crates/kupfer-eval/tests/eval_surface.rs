//! Issue 24's everyday surface, the pieces this stop added: `np.cov` / `np.corrcoef`,
//! `where=` of `var`/`std`/`nanvar`/`nanstd`, `out=` (and `where=` with it) of ufunc calls,
//! `ndarray.flat`, dtype comparisons, `packbits` / `unpackbits`, and lambdas and list
//! comprehensions (`fromfunction`, `apply_along_axis`). Each program runs in kupfer eval and
//! in NumPy (tests/python/program_oracle.py); results must agree in shape, dtype (kupfer's
//! 32-bit rule aside) and values, and programs NumPy refuses must fail in kupfer with a short
//! error. Needs python3 with numpy; fails, never skips, without them.

mod common;

use common::{assert_programs_match_numpy, assert_programs_refused_like_numpy, device};
use kupfer_eval::Session;

const COV: &[&str] = &[
    "np.cov(np.array([[0, 2], [1, 1], [2, 0]]).T)",
    "np.cov([-2.1, -1, 4.3], [3, 1.1, 0.12])",
    "np.cov([-2.1, -1, 4.3])",
    "np.cov(np.array([[1., 2, 4, 7], [3, 1, 0.5, -2], [2, 2, 7, 1]]), bias=True)",
    "np.cov(np.array([[1., 2, 4, 7], [3, 1, 0.5, -2]]), ddof=3)",
    "np.cov(np.array([[1., 2, 4, 7], [3, 1, 0.5, -2]]), ddof=4)",
    "np.cov(np.array([[1., 2, 4, 7], [3, 1, 0.5, -2]]), ddof=-1)",
    "np.cov(np.array([[1., 2], [4, 7], [3, 1]]), rowvar=False)",
    "np.cov(np.array([[1., 2], [4, 7], [3, 1]]), np.array([[5., 1], [2, 2], [0, 9]]), rowvar=False)",
    "np.cov(np.array([[1., 2], [4, 7], [3, 1]]), np.array([5., 1, 2]), rowvar=False)",
    "np.cov(np.array([1., 2, 4]), rowvar=False)",
    "np.cov(np.array([[1., 2, 4], [3, 1, 0.5]]), fweights=[1, 2, 1])",
    "np.cov(np.array([[1., 2, 4], [3, 1, 0.5]]), aweights=[0.5, 1, 2])",
    "np.cov(np.array([[1., 2, 4], [3, 1, 0.5]]), fweights=[1, 2, 1], aweights=[0.5, 1, 2])",
    "np.cov(np.array([[1., 2, 4], [3, 1, 0.5]]), fweights=[1, 2, 1], aweights=[0.5, 1, 2], ddof=0)",
    "np.cov(np.array([[1., 2, 4], [3, 1, 0.5]]), fweights=np.array([0, 2, 0]))",
    "np.cov(np.array([[1., 2, 4], [3, 1, 0.5]]), aweights=[0.5, 1, 2], bias=True)",
    "np.cov(np.array([[1, 2, 4], [3, 1, 5]], dtype=np.int32))",
    "np.cov(np.array([[1, 2, 4], [3, 1, 5]], dtype=np.uint8))",
    "np.cov(np.array([[1, 2, 4], [3, 1, 5]]))",
    "np.cov(np.array([[True, False, True], [False, False, True]]))",
    "np.cov(np.array([[1., 2, 4], [3, 1, 5]], dtype=np.float32))",
    "np.cov(np.array([[1., 2, 4], [3, 1, 5]]), dtype=np.float32)",
    "np.cov(np.array([[1+1j, 2, 4j], [3, 1-2j, 5]]))",
    "np.cov(np.array([[1+1j, 2, 4j], [3, 1-2j, 5]], dtype=np.csingle))",
    "np.cov(np.array([[1., np.nan, 4], [3, 1, 5]]))",
    "np.cov(np.array([[1., np.inf, 4], [3, 1, 5]]))",
    "np.cov(np.array([[-0.0, 0.0, -0.0]]))",
    "np.cov(np.array(3.0))",
    "np.cov(np.array([5.0]))",
    "np.cov(np.zeros((0, 3)))",
    "np.cov(np.zeros((2, 0)))",
    "np.cov(np.arange(12.).reshape(3, 4)[:, ::-1])",
    "np.cov(np.arange(12.).reshape(3, 4)[::2, 1:])",
    "np.cov(np.broadcast_to(np.arange(4.), (3, 4)))",
    "np.cov(np.sin(np.arange(300.)).reshape(6, 50) * 1e3 + 1e4)",
    "np.cov(np.sin(np.arange(300.)).reshape(6, 50).astype(np.float32) * 10 + 100)",
    "np.corrcoef(np.array([[1., 2, 4], [3, 1, 0.5], [2, 2, 7]]))",
    "np.corrcoef([1., 2, 3, 4], [1., 3, 2, 5])",
    "np.corrcoef(np.array([[1., 2], [4, 7], [3, 1]]), rowvar=False)",
    "np.corrcoef(np.array([1., 2, 3]))",
    "np.corrcoef(np.array([1., 1, 1]))",
    "np.corrcoef(np.array([[1., 1, 1], [1, 2, 3]]))",
    "np.corrcoef(np.array([[1, 2, 4], [3, 1, 5]], dtype=np.int32))",
    "np.corrcoef(np.array([[1., 2, 4], [3, 1, 5]], dtype=np.float32))",
    "np.corrcoef(np.array([[1., 2, 4], [3, 1, 5]]), dtype=np.float32)",
    "np.corrcoef(np.array([[1+1j, 2, 4j], [3, 1-2j, 5]]))",
    "np.corrcoef(np.zeros((0, 3)))",
    "np.corrcoef(np.array([[1., np.nan, 4], [3, 1, 5]]))",
    "np.corrcoef(np.cos(np.arange(200.) ** 1.5).reshape(5, 40))",
];

const MASKED_MOMENTS: &[&str] = &[
    "np.var(np.array([1., 9, 3, 5]), where=[True, False, True, True])",
    "np.var(np.array([1., 9, 3, 5]), where=[True, False, True, True], ddof=1)",
    "np.std(np.array([[1., 5, 3, 4], [2, 2, 8, 1]]), axis=1, where=[True, False, True, True])",
    "np.std(np.array([[1., 5, 3, 4], [2, 2, 8, 1]]), axis=0, where=[[True], [False]], keepdims=True)",
    "np.var(np.array([[1., 5, 3, 4]]), axis=1, where=[True, False, True, True], ddof=3)",
    "np.var(np.array([[1., 5, 3, 4]]), axis=1, where=[True, False, True, True], ddof=4)",
    "np.var(np.array([[1., 5, 3, 4]]), axis=1, where=[False, False, False, False])",
    "np.var(np.array([[1., 5, 3, 4], [2, 2, 8, 1]]), where=np.array([[1, 0, 1, 1], [0, 1, 1, 1]], dtype=bool), axis=(0, 1), keepdims=True)",
    "np.var(np.array([[1, 5, 3, 4], [2, 2, 8, 1]]), where=[True, False, True, True], axis=1)",
    "np.var(np.array([[1, 5, 3, 4], [2, 2, 8, 1]], dtype=np.int32), where=[True, False, True, True], axis=1)",
    "np.var(np.array([[1., 5, 3, 4], [2, 2, 8, 1]], dtype=np.float32), where=[True, False, True, True], axis=1)",
    "np.var(np.array([[1+2j, 5, 3j, 4], [2, 2, 8, 1-1j]]), where=[True, False, True, True], axis=1)",
    "np.var(np.array([1., np.nan, 3, 5]), where=[True, False, True, True])",
    "np.var(np.array([1., np.nan, 3, 5]), where=[True, True, True, True])",
    "np.var(np.array([1., np.inf, 3, 5]), where=[True, False, True, True])",
    "np.var(np.array([1., np.inf, 3, 5]), where=[True, True, True, True])",
    "np.var(np.zeros((0, 3)), axis=0, where=True)",
    "np.var(np.zeros((0, 3)), axis=0, where=np.zeros((0, 3), dtype=bool))",
    "np.var(np.arange(12.).reshape(3, 4)[:, ::-1], axis=0, where=np.arange(12).reshape(3, 4) % 3 > 0)",
    "np.var(np.float64(3.0), where=True)",
    "np.var(np.array(3.0), where=np.array(False))",
    "np.var(np.array([[1., 5, 3, 4]]), axis=1, where=[True, False, True, True], correction=1)",
    "np.var(np.array([[1., 5, 3, 4]]), 1, None, None, 1, where=[True, False, True, True])",
    "np.array([[1., 5, 3, 4]]).var(axis=1, where=[True, False, True, True], ddof=1)",
    "np.array([[1., 5, 3, 4]]).std(axis=1, where=[True, False, True, True])",
    "o = np.zeros(2); np.var(np.array([[1., 5, 3, 4], [2, 2, 8, 1]]), axis=1, where=[True, False, True, True], out=o); o",
    "np.nanvar(np.array([[1., np.nan, 3, 4], [2, 5, np.nan, 1]]), axis=1, where=[True, True, False, True])",
    "np.nanvar(np.array([[1., np.nan, 3, 4]]), axis=1, where=[True, False, True, True], ddof=3)",
    "np.nanvar(np.array([[1., np.nan, 3, 4]]), axis=1, where=[True, False, True, True], ddof=2)",
    "np.nanvar(np.array([[1., np.nan, np.nan, 4]]), axis=1, where=[False, True, True, False])",
    "np.nanstd(np.array([[1., np.nan, 3, 4]]), axis=1, where=[True, False, True, True], ddof=1, keepdims=True)",
    "np.nanstd(np.array([[1, 2, 3, 4]]), axis=1, where=[True, False, True, True], ddof=3)",
    "np.nanvar(np.array([[1+1j, np.nan, 3, 4j]]), axis=1, where=[True, True, True, False])",
    "np.nanstd(np.array([[1., np.nan, 3, 4]], dtype=np.float32), axis=1, where=[True, True, True, False])",
];

const UFUNC_OUT: &[&str] = &[
    "a = np.arange(6.); b = np.zeros(6); r = np.add(a, 1, out=b); b",
    "a = np.arange(6.); b = np.zeros(6); r = np.add(a, 1, out=b); r",
    "a = np.arange(6.); b = np.zeros(6); r = np.add(a, 1, out=(b,)); b",
    "a = np.arange(6.); np.add(a[::2], 10, out=a[1::2]); a",
    "a = np.arange(6.); np.add(a[::2], 10, out=a[1::2], where=[True, False, True]); a",
    "a = np.arange(6.); r = np.add(a[::2], 10, out=a[1::2], where=[True, False, True]); r",
    "a = np.arange(4.); np.multiply(a, a[::-1], out=a); a",
    "a = np.arange(6).reshape(2, 3); np.negative(a, out=a); a",
    "a = np.arange(6).reshape(2, 3); o = np.zeros((2, 3), dtype=np.float64); np.sqrt(a, out=o); o",
    "a = np.arange(3, dtype=np.int32); o = np.zeros(3, dtype=np.int64); np.add(a, a, out=o); o",
    "o = np.zeros((2, 3)); np.add(np.arange(3.), 1, out=o); o",
    "o = np.zeros((2, 3)); np.add(1, 2, out=o); o",
    "o = np.zeros(3, dtype=np.float32); np.multiply(np.arange(3.), 0.5, out=o); o",
    "o = np.zeros(3, dtype=np.complex128); np.add(np.arange(3.), 1, out=o); o",
    "a = np.arange(6.).reshape(2, 3); np.sin(a, out=a.T[:, ::-1].T); a",
    "o = np.zeros((0, 3)); np.add(np.zeros((0, 3)), 1, out=o); o",
    "o = np.array(0.0); np.add(np.array(1.5), 2, out=o); o",
    "o = np.zeros(3, dtype=bool); np.less(np.arange(3), 1, out=o); o",
    "o = np.zeros(3, dtype=np.int32); np.add(np.arange(3), 1, out=o, casting='unsafe'); o",
    "o = np.zeros(3); np.add(np.arange(3), 1, out=o, dtype=np.float32); o",
    "o = np.zeros((2, 2, 3)); np.add(np.ones(3), 2, out=o[0, :1]); o",
    "x = np.array([-np.inf, 0., np.inf]); y = np.array([2, 2, 2]); np.isneginf(x, y); y",
    "x = np.array([-np.inf, 0., np.inf]); y = np.array([2, 2, 2]); np.isposinf(x, out=y)",
    "[np.iinfo(np.int16).min, np.iinfo(np.uint16).max, np.iinfo(np.int8).min, np.iinfo(np.uint8).max]",
    "o = np.full(3, 7.); np.sqrt(np.array([4., 9, 16]), out=o, where=np.array([True, False, True])); o",
];

const FLAT: &[&str] = &[
    "a = np.arange(6).reshape(2, 3); a.flat[4]",
    "a = np.arange(6).reshape(2, 3); a.flat[-1]",
    "a = np.arange(6).reshape(2, 3).T; a.flat[1:4]",
    "a = np.arange(6).reshape(2, 3).T; a.flat[::-2]",
    "a = np.arange(6).reshape(2, 3).T; a.flat[[1, 4]]",
    "a = np.arange(6).reshape(2, 3).T; a.flat[np.array([[1, 4], [0, 0]])]",
    "a = np.arange(6).reshape(2, 3); a.flat[a.flat[:] > 2]",
    "a = np.arange(6).reshape(2, 3); a.flat[...]",
    "a = np.arange(6).reshape(2, 3); b = a.flat[1:3]; b[0] = 100; a",
    "a = np.arange(6).reshape(2, 3).T; a.flat[[0, 2, 4]] = [10, 20]; a",
    "a = np.arange(6).reshape(2, 3); a.flat[a.flat[:] > 2] = 0; a",
    "a = np.arange(6.).reshape(2, 3); a.flat[::2] += 1; a",
    "a = np.arange(6.).reshape(2, 3); a.flat[3] = -0.0; a",
    "a = np.zeros((2, 3)); a.flat[:] = [1, 2]; a",
    "a = np.zeros((3, 4)); v = a[::2, 1:3]; v.flat[[0, 3]] = 5; a",
    "a = np.zeros(4, dtype=np.int32); a.flat[1:3] = 2.7; a",
    "a = np.arange(4); a.flat[[]]",
    "a = np.arange(6).reshape(2, 3).T; [x * 2 for x in a.flat]",
    "a = np.zeros((2, 3)); a.flat[1:5] = [[1, 2], [3, 4]]; a",
    "a = np.zeros((2, 3)); a.flat[[5, 0]] = np.array([[7.5]]); a",
];

const DTYPES: &[&str] = &[
    "a = np.ones(3); [a.dtype == float, a.dtype == int, a.dtype == complex, a.dtype == bool]",
    "a = np.arange(3); [a.dtype == int, a.dtype == float, int == a.dtype]",
    "a = np.arange(3, dtype=np.int32); [a.dtype == int, a.dtype == np.int32, a.dtype == 'int32', a.dtype == 'i4']",
    "[np.dtype('f4') == np.float32, np.dtype('float32') == 'f4', np.dtype(np.float64) == float]",
    "[np.ones(2, dtype=bool).dtype == bool, np.ones(2, dtype=np.complex64).dtype == complex]",
    "a = np.ones(3, dtype=np.float32); [a.dtype.kind == 'f', a.dtype.name == 'float32', a.dtype.itemsize]",
    "a = np.ones(3, dtype=np.uint8); [a.dtype.kind == 'u', a.dtype.name == 'uint8', a.dtype.itemsize]",
    "a = np.ones(3, dtype=np.cdouble); [a.dtype.kind == 'c', a.dtype.name == 'complex128', a.dtype.itemsize]",
    "a = np.ones(3, dtype=bool); [a.dtype.kind == 'b', a.dtype.name == 'bool', a.dtype.itemsize, a.dtype != int]",
    "a = np.ones(3, dtype=np.int16); [a.dtype.kind == 'i', a.dtype.name == 'int16', a.dtype.itemsize, a.dtype == np.short]",
];

const BITS: &[&str] = &[
    "np.packbits(np.array([[[1,0,1],[0,1,0]],[[1,1,0],[0,0,1]]]), axis=-1)",
    "np.packbits(np.array([[[1,0,1],[0,1,0]],[[1,1,0],[0,0,1]]]), axis=0)",
    "np.packbits(np.array([[[1,0,1],[0,1,0]],[[1,1,0],[0,0,1]]]))",
    "np.packbits([1, 0, 1, 1, 0, 0, 0, 1, 1, 1], bitorder='little')",
    "np.packbits(np.array([True, False, True] * 7))",
    "np.packbits(np.array([-1, 2, 0, 0, 0, 0, 0, 0, 255], dtype=np.int16))",
    "np.packbits(np.arange(40).reshape(5, 8)[::-1, ::2] % 3, axis=1)",
    "np.packbits(np.zeros((2, 0), dtype=np.int64), axis=1)",
    "np.packbits(np.zeros((0, 3), dtype=bool), axis=1)",
    "np.packbits(np.array(3))",
    "np.packbits(np.array(0), axis=0)",
    "np.packbits(np.array([1, 1, 0], dtype=np.uint8), bitorder='little')",
    "np.unpackbits(np.array([[2], [7], [23]], dtype=np.uint8), axis=1)",
    "np.unpackbits(np.array([[2], [7], [23]], dtype=np.uint8), axis=1, count=-3)",
    "np.unpackbits(np.array([[2], [7], [23]], dtype=np.uint8), axis=1, count=2, bitorder='little')",
    "np.unpackbits(np.array([[2], [7], [23]], dtype=np.uint8), axis=1, count=11)",
    "np.unpackbits(np.array([[1, 2]], dtype=np.uint8), axis=0, count=3, bitorder='little')",
    "np.unpackbits(np.array([255, 0, 129], dtype=np.uint8))",
    "np.unpackbits(np.array([1], dtype=np.uint8), count=-8)",
    "np.unpackbits(np.array([1], dtype=np.uint8), count=0)",
    "np.unpackbits(np.array(5, dtype=np.uint8))",
    "np.unpackbits(np.array([], dtype=np.uint8))",
    "np.unpackbits(np.arange(12, dtype=np.uint8).reshape(3, 4)[:, ::-2], axis=0)",
    "a = np.arange(37) % 2 == 0; np.unpackbits(np.packbits(a), count=37)",
];

const LAMBDAS: &[&str] = &[
    "np.fromfunction(lambda i, j: i + j, (3, 3), dtype=int)",
    "np.fromfunction(lambda i, j: i == j, (3, 3), dtype=int)",
    "np.fromfunction(lambda i, j: i, (2, 2), dtype=float)",
    "np.fromfunction(lambda i: i * 2, (4,))",
    "np.fromfunction(lambda i, j, k: i * 100 + j * 10 + k, (2, 3, 2), dtype=np.int32)",
    "np.fromfunction(lambda i, j: i - j, (0, 3))",
    "np.fromfunction(lambda i, j, s: (i + j) * s, (2, 2), s=3)",
    "[x**2 for x in range(5)]",
    "[x * y for x in range(4) for y in range(x) if y > 0]",
    "np.array([i for i in range(10) if i % 3])",
    "[a + b for a, b in [(1, 2), (3, 4)]]",
    "[r.sum() for r in np.arange(6).reshape(2, 3)]",
    "[x for x in range(10, 0, -3)]",
    "[x for x in range(0)]",
    "sum(x for x in range(4))",
    "f = lambda x: x + 1; [f(2), f(x=3)]",
    "f = lambda: 7; f()",
    "k = 3; f = lambda x: x * k; f(np.arange(3))",
    "k = 3; f = lambda x: x * k; k = 5; f(np.arange(3))",
    "k = 3; f = lambda i: i * k; k = 5; np.fromfunction(f, (3,))",
    "[(lambda x: x + k)(1) for k in range(3)]",
    "adder = lambda n: lambda x: x + n; add2 = adder(2); n = 100; add2(5)",
    "g = lambda a, b: a(b) * 2; g(lambda x: x + 1, 4)",
    "b = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]]); np.apply_along_axis(lambda a: (a[0] + a[-1]) * 0.5, 0, b)",
    "b = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]]); np.apply_along_axis(lambda a: (a[0] + a[-1]) * 0.5, 1, b)",
    "b = np.array([[8, 1, 7], [4, 3, 9], [5, 2, 6]]); np.apply_along_axis(np.sort, 1, b)",
    "b = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]]); np.apply_along_axis(np.diag, -1, b)",
    "b = np.arange(24.).reshape(2, 3, 4); np.apply_along_axis(np.cumsum, 1, b)",
    "b = np.arange(24.).reshape(2, 3, 4); np.apply_along_axis(lambda v: v[:2], 0, b)",
    "b = np.arange(24.).reshape(2, 3, 4); np.apply_along_axis(lambda v, p: v.sum() ** p, 2, b, 2)",
    "b = np.arange(24.).reshape(2, 3, 4); np.apply_along_axis(np.sum, 1, b, keepdims=True)",
    "b = np.arange(6).reshape(2, 3); np.apply_along_axis(lambda v: v.max(), 1, b[:, ::-1])",
    "np.apply_along_axis(lambda v: v * 2, 0, np.arange(4.))",
    "np.apply_along_axis(np.sum, 0, np.zeros((0, 3)))",
    "b = np.array([[8, 1, 7], [4, 3, 9], [5, 2, 6]]); np.apply_along_axis(sorted, 1, b)",
    "np.array(sorted([3, 1.5, -2, 1]))",
    "np.array(sorted([3, 1, 2, 1], reverse=True))",
    "np.array(sorted(np.array([3., -1, 2, -0.0]), reverse=True))",
    "x = np.array([16., 5, 0.25]); np.ldexp(*np.frexp(x))",
    "vf = np.vectorize(lambda a, b: a * 2 + b); vf([1, 2, 3, 4], 2)",
    "vf = np.vectorize(lambda a, b: a * 2 + b); vf(np.arange(3.)[:, None], [10, 20])",
    "np.vectorize(lambda x: x, otypes=[float])([0, 1, 2])",
    "np.vectorize(lambda x: x, otypes='f')([0, 1, 2])",
    "np.vectorize(lambda x: np.sum(x))(np.arange(6).reshape(2, 3))",
    "np.vectorize(lambda x: x * 2, otypes=[float])(np.zeros((0, 2)))",
    "k = 2; vf = np.vectorize(lambda x: x * k); k = 3; vf([1, 2])",
    "np.vectorize(np.sin)(np.array(0.5))",
    "np.add(*[np.arange(3), 2])",
];

/// Programs NumPy refuses: kupfer must fail too, with a short message.
const REFUSED: &[&str] = &[
    "np.cov(np.zeros((2, 2, 2)))",
    "np.cov(np.zeros((2, 3)), np.zeros((2, 2, 2)))",
    "np.cov(np.zeros((2, 3)), np.zeros((2, 4)))",
    "np.cov(np.zeros((2, 3)), ddof=1.5)",
    "np.cov(np.zeros((2, 3)), fweights=[1, 2.5, 1])",
    "np.cov(np.zeros((2, 3)), fweights=[[1, 2, 1]])",
    "np.cov(np.zeros((2, 3)), fweights=[1, 2])",
    "np.cov(np.zeros((2, 3)), fweights=[1, -2, 1])",
    "np.cov(np.zeros((2, 3)), aweights=[1, -2, 1])",
    "np.cov(np.zeros((2, 3)), aweights=[1, 2])",
    "np.cov(np.zeros((2, 3)), aweights=[0, 0, 0])",
    "np.cov([1, 2, 3], dtype=int)",
    "np.corrcoef(np.zeros((2, 2, 2)))",
    "np.var(np.ones((2, 3)), where=np.ones(2, dtype=bool))",
    "np.std(np.ones((2, 3)), where=[[True], [False], [True]])",
    "a = np.arange(6); np.add(a, 1.5, out=a)",
    "a = np.arange(6.); np.add(a, 1, out=a[::2])",
    "np.add(np.ones(3), 1, out=np.zeros(4))",
    "np.add(1, 2, out=3)",
    "np.add(np.ones(3), 1, out=(np.zeros(3), np.zeros(3)))",
    "o = np.zeros(3, dtype=np.int32); np.add(np.arange(3), 1.5, out=o, casting='same_kind')",
    "a = np.arange(6).reshape(2, 3); a.flat[1, 2]",
    "a = np.arange(6).reshape(2, 3); a.flat[6]",
    "np.packbits(np.array([1.0]))",
    "np.packbits([1, 0, 1], axis=1)",
    "np.packbits([1, 0, 1], bitorder='x')",
    "np.unpackbits(np.array([1]))",
    "np.unpackbits(np.array([1], dtype=np.uint8), count=-9)",
    "f = lambda x: x; f(1, 2)",
    "f = lambda x, y: x; f(1)",
    "f = lambda x: x; f(y=1)",
    "np.apply_along_axis(np.sum, 0, np.zeros((3, 0)))",
    "np.apply_along_axis(np.sum, 2, np.zeros((2, 3)))",
    "[x for x in 3]",
    "np.vectorize(lambda x: x)(np.zeros(0))",
    "[(a, b) for a, b in [(1, 2, 3)]]",
];

#[test]
fn cov_and_corrcoef_match_numpy() {
    assert_programs_match_numpy("surface-cov", COV);
}

#[test]
fn masked_moments_match_numpy() {
    assert_programs_match_numpy("surface-moments", MASKED_MOMENTS);
}

#[test]
fn ufunc_out_matches_numpy() {
    assert_programs_match_numpy("surface-out", UFUNC_OUT);
}

#[test]
fn flat_matches_numpy() {
    assert_programs_match_numpy("surface-flat", FLAT);
}

#[test]
fn dtype_comparisons_match_numpy() {
    assert_programs_match_numpy("surface-dtypes", DTYPES);
}

#[test]
fn packbits_match_numpy() {
    assert_programs_match_numpy("surface-bits", BITS);
}

#[test]
fn lambdas_and_comprehensions_match_numpy() {
    assert_programs_match_numpy("surface-lambdas", LAMBDAS);
}

#[test]
fn surface_refusals_match_numpy() {
    assert_programs_refused_like_numpy("surface-refusals", REFUSED);
}

#[test]
fn surface_errors_say_what_numpy_says() {
    device();
    let cases = [
        (
            "np.cov(np.zeros((2, 2, 2)))",
            "m has more than 2 dimensions",
        ),
        ("np.cov(np.zeros((2, 3)), ddof=1.5)", "ddof must be integer"),
        (
            "np.cov(np.zeros((2, 3)), fweights=[1, 2.5, 1])",
            "fweights must be integer",
        ),
        (
            "np.cov(np.zeros((2, 3)), aweights=[1, 2])",
            "incompatible numbers of samples and aweights",
        ),
        (
            "np.cov(np.zeros((2, 3)), fweights=[1, -2, 1])",
            "fweights cannot be negative",
        ),
        (
            "np.cov([1, 2, 3], dtype=int)",
            "Cannot cast ufunc 'subtract' output from dtype('float64') to dtype('int64') with \
             casting rule 'same_kind'",
        ),
        (
            "a = np.arange(6); np.add(a, 1.5, out=a)",
            "Cannot cast ufunc 'add' output from dtype('float64') to dtype('int64') with casting \
             rule 'same_kind'",
        ),
        (
            "a = np.arange(6.); np.add(a, 1, out=a[::2])",
            "operands could not be broadcast together with shapes (6,) () (3,)",
        ),
        ("np.add(1, 2, out=3)", "return arrays must be of ArrayType"),
        (
            "a = np.arange(6).reshape(2, 3); a.flat[1, 2]",
            "too many indices for flat iterator: flat iterator is 1-dimensional, but 2 were \
             indexed",
        ),
        (
            "np.packbits(np.array([1.0]))",
            "Expected an input array of integer or boolean data type",
        ),
        (
            "np.unpackbits(np.array([1]))",
            "Expected an input array of unsigned byte data type",
        ),
        (
            "np.unpackbits(np.array([1], dtype=np.uint8), count=-9)",
            "-count larger than number of elements",
        ),
        (
            "np.packbits([1], bitorder='x')",
            "'order' must be either 'little' or 'big'",
        ),
        (
            "f = lambda x, y: x; f(1)",
            "<lambda>() missing 1 required positional argument: 'y'",
        ),
        // Python would give [3, 3, 3] (the loop variable's last value): refused, not wrong.
        (
            "fs = [lambda x: x + k for k in range(3)]; [g(1) for g in fs]",
            "outside its iteration",
        ),
        (
            "np.apply_along_axis(np.sum, 0, np.zeros((3, 0)))",
            "Cannot apply_along_axis when any iteration dimensions are 0",
        ),
    ];
    for (program, want) in cases {
        match Session::new().run(program).and_then(|v| v.to_host()) {
            Ok(v) => panic!("{program}: no error, got {}", v.repr()),
            Err(e) => assert!(
                e.to_string().contains(want) && e.render().lines().count() <= 3,
                "{program}: {} (wanted {want})",
                e
            ),
        }
    }
}
