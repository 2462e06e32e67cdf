//! Issue 24's everyday surface, second pass: `out=` of `clip`, `round`/`around`/
//! `ndarray.round`, `degrees`/`radians`, the two-output ufuncs (`divmod`, `modf`, `frexp`) and
//! the accumulations (`cumsum`, `cumprod`, `nancumsum`, `nancumprod`, `cumulative_sum`,
//! `cumulative_prod`), and of `choose`, `compress`, `take`, `dot`, `matmul`, `outer`, `trace`,
//! `einsum`, `concatenate`, `stack` and `nan_to_num(copy=False)`. Each program runs in kupfer eval and in NumPy
//! (tests/python/program_oracle.py); results must agree in shape, dtype (kupfer's 32-bit rule
//! aside) and values, and programs NumPy refuses must fail in kupfer with a short error that
//! says what NumPy says. Needs python3 with numpy; fails, never skips, without them.

mod common;

use common::{assert_programs_match_numpy, assert_programs_refused_like_numpy, device};
use kupfer_eval::Session;

const OUT: &[&str] = &[
    // clip: a ufunc's out= (views, broadcasting into a larger out, where=, casting, dtype=).
    "a = np.array([1.26, 2.5, -3.7]); o = np.zeros(3); r = np.clip(a, 0, 2, out=o); o",
    "a = np.array([1.26, 2.5, -3.7]); o = np.zeros(3); r = np.clip(a, 0, 2, out=o); r",
    "a = np.array([1.26, 2.5, -3.7]); np.clip(a, 0, 2, out=a); a",
    "a = np.arange(10.); np.clip(a[::2], 2, 5, out=a[1::2]); a",
    "a = np.arange(10); np.clip(a, 1, 8, out=a); a",
    "a = np.arange(10); a.clip(1, 8, out=a); a",
    "a = np.array([1.26, 2.5, -3.7]); o = np.zeros((2, 3)); np.clip(a, 0, 2, out=o[::-1]); o",
    "a = np.array([1.26, 2.5, -3.7]); o = np.zeros((1, 3)); np.clip(a, 0, 2, o); o",
    "a = np.array([1.26, 2.5, -3.7]); o = np.zeros(3, dtype=np.float32); np.clip(a, 0, 2, out=o); o",
    "a = np.array([1.26, 2.5, -3.7]); o = np.zeros(3, dtype=np.int64); np.clip(a, 0, 2, out=o, casting='unsafe'); o",
    "a = np.array([1.26, 2.5, -3.7]); o = np.full(3, 9.); np.clip(a, 0, 2, out=o, where=a > 0); o",
    "a = np.array([1.26, 2.5, -3.7]); o = np.zeros(3); np.clip(a, 0, None, out=o); o",
    "a = np.array([1.26, 2.5, -3.7]); o = np.zeros(3); np.clip(a, max=1, out=o); o",
    "a = np.array([1.26, 2.5, -3.7]); o = np.zeros(3); np.clip(a, min=-1, max=[0, 1, 2], out=o); o",
    "a = np.arange(5); o = np.zeros(5); np.clip(a, 1, 3, out=o); o",
    "np.clip(np.arange(5), 1, 3, dtype=float)",
    "np.clip(np.array([1.26, 2.5, -3.7]))",
    "np.clip(np.array([1.26, 2.5, -3.7]), None, None)",
    "o = np.zeros(0); np.clip(np.zeros(0), 0, 1, out=o); o",
    "o = np.array(0.); np.clip(np.array(5.), 0, 1, out=o); o",
    "a = np.array([np.nan, -np.inf, np.inf, -0.0]); o = np.ones(4); np.clip(a, -1, 1, out=o); o",
    // round / around / ndarray.round: PyArray_Round's out (same size, broadcastable, cast).
    "a = np.array([1.26, 2.5, -3.75]); o = np.zeros(3); np.round(a, 1, out=o); o",
    "a = np.array([1.26, 2.5, -3.75]); o = np.zeros(3); r = np.round(a, 1, out=o); r",
    "a = np.array([1.26, 2.5, -3.75]); np.around(a, out=a); a",
    "a = np.array([1.26, 2.5, -3.75]); o = np.zeros((1, 3)); a.round(1, out=o); o",
    "a = np.array([1.26, 2.5, -3.75]); o = np.zeros(3, dtype=np.float32); np.round(a, out=o); o",
    "a = np.array([[1.26, 2.5], [-3.75, 0.5]]); np.round(a[:, ::-1], 1, out=a[::-1]); a",
    "a = np.array([125, -252, 38]); o = np.zeros(3); np.round(a, -1, out=o); o",
    "a = np.array([125, -252, 38]); o = np.zeros(3); np.round(a, 1, out=o); o",
    "a = np.array([125, -252, 38]); o = np.zeros(3, dtype=np.int64); np.round(a, out=o); o",
    "a = np.array([1.5+2.25j, -0.5-1.5j]); o = np.zeros(2, dtype=complex); np.round(a, 1, out=o); o",
    "a = np.array([1.5, 2.5, np.nan, -np.inf, -0.4]); o = np.ones(5); np.round(a, out=o); o",
    "o = np.array(0.); np.round(2.567, 1, out=o); o",
    // degrees / radians: ufuncs.
    "a = np.arange(3.); o = np.zeros(3); np.degrees(a, out=o); o",
    "a = np.arange(3.); o = np.zeros(3); np.degrees(a, o); o",
    "a = np.arange(3.); np.radians(a, out=a); a",
    "a = np.arange(3); o = np.ones(3); np.rad2deg(a, where=a > 0, out=o); o",
    "a = np.arange(3); o = np.zeros(3, dtype=np.float32); np.deg2rad(a, out=o); o",
    "a = np.arange(6.).reshape(2, 3); o = np.zeros((2, 2, 3)); np.degrees(a[0], out=o); o",
    // Two-output ufuncs: out=(o1, o2), positional outputs, None entries, where=.
    "a = np.array([1.26, 2.5, -3.7]); q = np.zeros(3); r = np.zeros(3); np.divmod(a, 2, q, r); q + 10 * r",
    "a = np.array([1.26, 2.5, -3.7]); q = np.zeros(3); np.divmod(a, 2, out=(q, None)); q",
    "a = np.array([1.26, 2.5, -3.7]); q = np.zeros(3); t = np.divmod(a, 2, out=(q, None)); t[1]",
    "a = np.array([7, -7, 9]); q = np.zeros(3, dtype=np.int32); r = np.zeros(3); np.divmod(a, 4, out=(q, r)); q + 10 * r",
    "a = np.array([1.26, 2.5, -3.7]); f = np.zeros(3); i = np.zeros(3); np.modf(a, f, i); [f, i]",
    "a = np.array([1.26, 2.5, -3.7]); f = np.ones(3); i = np.ones(3); np.modf(a, out=(f, i), where=a > 0); [f, i]",
    "a = np.array([1.26, 2.5, -3.7, 0.0]); m = np.zeros(4); e = np.zeros(4, dtype=np.int32); np.frexp(a, out=(m, e)); e",
    "a = np.array([1.26, 2.5, -3.7, 0.0]); m = np.zeros(4); np.frexp(a, out=(m, None)); m",
    // Accumulations: the result cast into out unsafely, out's shape exactly.
    "a = np.array([0.5, 0.5, 0.5]); o = np.zeros(3, dtype=np.int64); np.cumsum(a, out=o); o",
    "a = np.array([0.5, 0.5, 0.5]); o = np.zeros(3, dtype=np.int64); r = a.cumsum(out=o); r",
    "a = np.arange(1., 7.).reshape(2, 3); o = np.zeros((2, 3)); np.cumprod(a, axis=1, out=o); o",
    "a = np.arange(1., 7.).reshape(2, 3); a.cumprod(axis=0, out=a); a",
    "a = np.arange(6.).reshape(2, 3); o = np.zeros((3, 2)); np.cumsum(a, axis=0, out=o.T); o",
    "a = np.array([1., np.nan, 2.]); o = np.zeros(3); np.nancumsum(a, out=o); o",
    "a = np.array([1., np.nan, 2.]); o = np.zeros(3); np.nancumprod(a, out=o); o",
    "a = np.array([0.5, 0.5, 0.5]); o = np.zeros(4); np.cumulative_sum(a, out=o, include_initial=True); o",
    "a = np.array([2., 3, 4]); o = np.zeros(3, dtype=np.float32); np.cumulative_prod(a, out=o); o",
    "a = np.array([1e20, 1e20]); o = np.zeros(2, dtype=np.float32); np.cumprod(a, out=o); o",
    // Functions that are not ufuncs, each with NumPy's own rule for out.
    "o = np.zeros(2); np.choose([0, 1], [[1, 2], [3, 4]], out=o); o",
    "o = np.zeros(2, dtype=np.int64); np.choose([0, 1], [[1.5, 2], [3, 4.5]], out=o); o",
    "o = np.zeros(2, dtype=bool); r = np.choose([0, 1], [[1, 0], [3, 0]], out=o); r",
    "o = np.zeros(1); np.compress([True, False], [1., 2], out=o); o",
    "o = np.zeros((2, 2), dtype=np.int64); np.compress([False, True, True], np.arange(6).reshape(2, 3), axis=1, out=o); o",
    "o = np.zeros(2, dtype=np.int64); np.take(np.arange(5), [1, 2], out=o); o",
    "o = np.zeros(2, dtype=np.float32); np.take(np.arange(5.), [1, 7], out=o, mode='clip'); o",
    "o = np.zeros(2, dtype=np.int64); np.take(np.arange(5.), [1, 7], out=o, mode='wrap'); o",
    "a = np.arange(6); np.take(a, [5, 4, 3], out=a[:3]); a",
    "o = np.zeros((2, 2)); np.dot(np.eye(2), np.arange(4.).reshape(2, 2), out=o); o",
    "o = np.zeros((2, 2)); r = np.dot(np.eye(2), np.arange(4.).reshape(2, 2), out=o); r",
    "o = np.zeros((3, 2, 2)); np.matmul(np.eye(2), np.arange(4.).reshape(2, 2), out=o); o",
    "o = np.zeros((2, 2), dtype=np.float32); np.matmul(np.eye(2), np.arange(4.).reshape(2, 2), out=o); o",
    "o = np.zeros((2, 2)); np.outer([1, 2], [3, 4], out=o); o",
    "o = np.zeros((2, 2)); np.outer([[1, 2]], [3, 4], out=o.T); o",
    "o = np.zeros(()); np.trace(np.arange(9.).reshape(3, 3), out=o); o",
    "o = np.zeros((), dtype=np.int64); np.trace(np.eye(3) * 1.5, out=o); o",
    "o = np.zeros(2); np.trace(np.arange(8.).reshape(2, 2, 2), axis1=1, axis2=2, out=o); o",
    "o = np.zeros(2); np.einsum('ii->i', np.arange(4.).reshape(2, 2), out=o); o",
    "o = np.zeros(2); np.einsum('ii->i', np.arange(4).reshape(2, 2), out=o); o",
    "o = np.zeros(2, dtype=np.float32); np.einsum('ii->i', np.arange(4.).reshape(2, 2), out=o, casting='same_kind'); o",
    "o = np.zeros(3); np.concatenate([np.arange(2.), [1]], out=o); o",
    "o = np.zeros(3); np.concatenate([np.arange(2), [1]], out=o); o",
    "o = np.zeros(3, dtype=np.int64); np.concatenate([np.arange(2.), [1.5]], out=o, casting='unsafe'); o",
    "o = np.zeros((2, 3)); np.concatenate([np.ones((1, 3)), np.zeros((1, 3))], out=o[::-1]); o",
    "o = np.zeros((2, 2)); np.stack([np.arange(2.), np.ones(2)], axis=1, out=o); o",
    "x = np.array([1., np.nan, np.inf]); np.nan_to_num(x, copy=False); x",
    "x = np.array([1., np.nan, np.inf]); v = x[::-1]; np.nan_to_num(x, copy=False, nan=-1); v",
    "x = np.array([1, 2]); np.nan_to_num(x, copy=False)",
];

/// Programs NumPy refuses; kupfer must refuse them too, in a short error.
const REFUSED: &[&str] = &[
    "np.clip(np.arange(3.), 0, 1, out=np.zeros(4))",
    "np.clip(np.arange(3.), 0, 1, out=np.zeros(3, dtype=np.int64))",
    "np.clip(np.arange(3.), 0, 1, out=[0, 0, 0])",
    "np.clip(np.arange(3.), a_max=1)",
    "np.round(np.arange(3.), out=np.zeros((2, 3)))",
    "np.round(np.arange(3.), 1, out=np.zeros((3, 1)))",
    "np.round(np.arange(3.), out=np.zeros(3, dtype=bool))",
    "np.round(np.array([1 + 2j]), out=np.zeros(1))",
    "np.round(np.arange(3), out=np.zeros(3, dtype=bool))",
    "np.round(np.arange(3.), out=[0, 0, 0])",
    "np.degrees(np.arange(3.), out=np.zeros(3, dtype=np.int64))",
    "np.divmod(np.arange(3.), 2, out=np.zeros(3))",
    "np.divmod(np.arange(3.), 2, out=(np.zeros(3),))",
    "np.divmod(np.arange(3.), 2, np.zeros(3), out=(np.zeros(3), None))",
    "np.divmod(np.arange(3.), 2, out1=np.zeros(3))",
    "np.modf(np.arange(3.), out=(np.zeros(3), np.zeros(4)))",
    "np.cumsum(np.ones((2, 2)), out=np.zeros((2, 2)))",
    "np.cumsum(np.ones(3), out=np.zeros((1, 3)))",
    "np.cumsum(np.ones(3), out=[0, 0, 0])",
    "np.choose([0, 1], [[1, 2], [3, 4]], out=np.zeros(3))",
    "np.compress([True, False], [1., 2], out=np.zeros(2))",
    "np.compress([True, False], [1, 2], out=np.zeros(1, dtype=np.float32))",
    "np.take(np.arange(5), [1, 2], out=np.zeros(2))",
    "np.take(np.arange(5), [1, 7], out=np.zeros(2), mode='clip')",
    "np.compress([True, False], [1, 2], out=np.zeros(1))",
    "np.take(np.arange(5), [1, 2], out=np.zeros(3, dtype=np.int64))",
    "np.dot(np.eye(2), np.eye(2), out=np.zeros((2, 2), dtype=np.float32))",
    "np.dot(np.eye(2), np.eye(2), out=np.zeros((2, 2)).T)",
    "np.dot(np.eye(2), np.eye(2), out=np.zeros((1, 2, 2)))",
    "np.matmul(np.eye(2), np.eye(2), out=np.zeros((2, 2), dtype=np.int64))",
    "np.matmul(np.eye(2), np.eye(2), out=np.zeros((2, 3)))",
    "np.outer([1., 2], [3, 4], out=np.zeros((2, 2), dtype=np.int64))",
    "np.trace(np.eye(2), out=np.zeros(1))",
    "np.einsum('ii->i', np.eye(2), out=np.zeros(2, dtype=np.int64))",
    "np.einsum('ii->i', np.eye(2), out=np.zeros(3))",
    "np.concatenate([np.arange(2.), [1]], out=np.zeros(4))",
    "np.concatenate([np.arange(2.), [1]], out=np.zeros(3, dtype=np.int64))",
    "np.concatenate([np.arange(2.), [1]], out=np.zeros(3), dtype=float)",
    "np.stack([np.arange(2.), np.ones(2)], out=np.zeros((2, 3)))",
];

#[test]
fn out_of_everyday_functions_matches_numpy() {
    assert_programs_match_numpy("surface2-out", OUT);
}

#[test]
fn bad_outs_are_refused_like_numpy() {
    assert_programs_refused_like_numpy("surface2-out-refused", REFUSED);
}

/// Runs `program` and checks that it fails with a short error containing `want`.
fn assert_error(program: &str, want: &str) {
    match Session::new().run(program).and_then(|v| v.to_host()) {
        Ok(v) => panic!("{program}: no error, got {}", v.repr()),
        Err(e) => assert!(
            e.to_string().contains(want) && e.render().lines().count() <= 3,
            "{program}: {e} (wanted {want})"
        ),
    }
}

#[test]
fn out_errors_say_what_numpy_says() {
    device();
    for (program, want) in [
        (
            "np.clip(np.arange(3.), 0, 1, out=np.zeros(3, dtype=np.int64))",
            "Cannot cast ufunc 'clip' output from dtype('float64') to dtype('int64') with \
             casting rule 'same_kind'",
        ),
        (
            "np.clip(np.arange(3.), 0, None, out=np.zeros(3, dtype=np.int64))",
            "Cannot cast ufunc 'maximum' output",
        ),
        (
            "np.round(np.arange(3.), out=np.zeros((2, 3)))",
            "invalid output shape",
        ),
        (
            "np.round(np.arange(3.), 1, out=np.zeros((3, 1)))",
            "non-broadcastable output operand with shape (3,1) doesn't match the broadcast \
             shape (3,3)",
        ),
        (
            "np.round(np.arange(3.), out=np.zeros(3, dtype=bool))",
            "Cannot cast ufunc 'rint' output from dtype('float64') to dtype('bool')",
        ),
        (
            "np.round(np.array([1 + 2j]), out=np.zeros(1))",
            "array does not have imaginary part to set",
        ),
        (
            "np.round(np.arange(3), out=np.zeros(3, dtype=bool))",
            "Cannot cast array data from dtype('int64') to dtype('bool') according to the \
             rule 'same_kind'",
        ),
        (
            "np.divmod(np.arange(3.), 2, out=np.zeros(3))",
            "'out' must be a tuple of arrays",
        ),
        (
            "np.divmod(np.arange(3.), 2, out=(np.zeros(3),))",
            "The 'out' tuple must have exactly one entry per ufunc output",
        ),
        (
            "np.divmod(np.arange(3.), 2, np.zeros(3), out=(np.zeros(3), None))",
            "cannot specify 'out' as both a positional and keyword argument",
        ),
        (
            "np.cumsum(np.ones(3), out=np.zeros((1, 3)))",
            "provided out is the wrong size for the accumulation.",
        ),
        (
            "np.cumsum(np.ones(3), out=[0, 0, 0])",
            "output must be an array",
        ),
        (
            "np.choose([0, 1], [[1, 2], [3, 4]], out=np.zeros(3))",
            "choose: invalid shape for output array.",
        ),
        (
            "np.take(np.arange(5), [1, 2], out=np.zeros(3, dtype=np.int64))",
            "output array does not match result of ndarray.take",
        ),
        (
            "np.take(np.arange(5), [1, 2], out=np.zeros(2))",
            "Cannot cast array data from dtype('float64') to dtype('int64') according to the \
             rule 'safe'",
        ),
        (
            "np.dot(np.eye(2), np.eye(2), out=np.zeros((2, 2)).T)",
            "output array is not acceptable (must have the right datatype, number of \
             dimensions, and be a C-Array)",
        ),
        (
            "np.matmul(np.eye(2), np.eye(2), out=np.zeros((2, 2), dtype=np.int64))",
            "Cannot cast ufunc 'matmul' output from dtype('float64') to dtype('int64')",
        ),
        (
            "np.einsum('ii->i', np.eye(2), out=np.zeros(2, dtype=np.int64))",
            "Iterator requested dtype could not be cast from dtype('float64') to \
             dtype('int64'), the operand 1 dtype, according to the rule 'safe'",
        ),
        (
            "np.concatenate([np.arange(2.), [1]], out=np.zeros(4))",
            "Output array is the wrong shape",
        ),
        (
            "np.concatenate([np.arange(2.), [1]], out=np.zeros(3), dtype=float)",
            "concatenate() only takes `out` or `dtype` as an argument, but both were provided.",
        ),
    ] {
        assert_error(program, want);
    }
}

/// Assignment to `a.real`, `a.imag` (also through an index and augmented), `a.flat` and
/// `a.shape`: writes reach the array and every view of it.
const ATTRIBUTES: &[&str] = &[
    "c = np.array([1+2j, 3-4j]); c.real = [5, 6]; c",
    "c = np.array([1+2j, 3-4j]); v = c[::-1]; c.imag = 7; v",
    "c = np.array([1+2j, 3-4j]); c.imag = np.inf; c.real = -np.nan; c",
    "c = np.array([1+2j, 3-4j]); c.real = 1+1j; c",
    "c = np.array([[1+2j, 3-4j], [5j, 6]]); c[0].real = [-0.0, 8]; c",
    "c = np.array([[1+2j, 3-4j], [5j, 6]]); c.T.imag = [1, 2]; c",
    "c = np.array([1+2j, 3-4j], dtype=np.complex64); c.imag = [1e300, 2]; c",
    "c = np.array([1+2j, 3-4j], dtype=np.complex64); c.real = np.array([0.1, 0.2]); c",
    "c = np.array([1+2j, 3-4j]); c.real += 1; c.imag *= 2; c",
    "c = np.array([1+2j, 3-4j]); v = c[::-1]; v.imag[0] = 9; c.real[c.real > 2] = 0; c",
    "c = np.array([[1+2j, 3-4j], [5j, 6]]); c.T.imag[c.T.real > 2] *= 10; c",
    "c = np.zeros(0, dtype=complex); c.real = 1; c",
    "c = np.array(1+2j); c.imag = 5; c",
    "f = np.array([1.5, 2.5]); f.real = [3, 4]; f",
    "f = np.array([1.5, 2.5]); v = f[::-1]; f.real = np.nan; v",
    "f = np.array([1.5, 2.5]); f.real[1] = 7; f",
    "i = np.arange(3); i.real = 2.7; i",
    "i = np.arange(3); i.real += 2; i",
    "a = np.array([1.0, np.nan]); b = np.array([1.0, np.nan]); a.real = np.nan; np.array_equal(a, b, equal_nan=True)",
    "a = np.zeros((2, 3)); a.flat = [1, 2]; a",
    "a = np.zeros((2, 3)); a.T.flat = [1, 2, 3, 4, 5, 6]; a",
    "a = np.zeros((2, 3)); a.flat = 5; a",
    "a = np.arange(6); b = a; a.shape = (3, 2); b",
    "a = np.arange(6); a.shape = (-1, 3); a",
    "a = np.arange(12).reshape(3, 4)[:, ::2]; a.shape = (6,); a",
];

/// Attribute assignments NumPy refuses.
const ATTRIBUTES_REFUSED: &[&str] = &[
    "f = np.array([1.5, 2.5]); f.imag = 0",
    "f = np.array([1.5, 2.5]); f.imag[0] = 1",
    "c = np.array([1+2j, 3-4j]); c.real = [1, 2, 3]",
    "i = np.arange(3); i.real += 1.5",
    "a = np.arange(6).reshape(2, 3).T; a.shape = (6,)",
    "a = np.arange(6); a.shape = (4,)",
    "a = np.zeros((2, 3)); a.ndim = 3",
];

#[test]
fn attribute_assignment_matches_numpy() {
    assert_programs_match_numpy("surface2-attributes", ATTRIBUTES);
}

#[test]
fn bad_attribute_assignment_is_refused_like_numpy() {
    assert_programs_refused_like_numpy("surface2-attributes-refused", ATTRIBUTES_REFUSED);
    device();
    for (program, want) in [
        (
            "f = np.array([1.5, 2.5]); f.imag = 0",
            "array does not have imaginary part to set",
        ),
        (
            "f = np.array([1.5, 2.5]); f.imag[0] = 1",
            "assignment destination is read-only",
        ),
        (
            "c = np.array([1+2j, 3-4j]); c.real = [1, 2, 3]",
            "could not broadcast input array from shape (3,) into shape (2,)",
        ),
        (
            "a = np.arange(6).reshape(2, 3).T; a.shape = (6,)",
            "Incompatible shape for in-place modification",
        ),
        (
            "a = np.zeros((2, 3)); a.ndim = 3",
            "attribute 'ndim' of 'numpy.ndarray' objects is not writable",
        ),
    ] {
        assert_error(program, want);
    }
}

/// `np.vectorize` with `signature=` (core dimensions, loop broadcasting, several outputs,
/// new output dimensions), `otypes=` (strings and lists), `excluded=` (positions and names)
/// and vectorized keyword arguments.
const VECTORIZE: &[&str] = &[
    "np.vectorize(lambda a, b: np.sum(a * b), signature='(n),(n)->()')(np.arange(6.).reshape(2, 3), [1, 2, 3])",
    "np.vectorize(lambda a, b: np.sum(a * b), signature='(n), (n) -> ()')(np.arange(12.).reshape(2, 1, 2, 3), np.ones((3, 1, 3)))",
    "np.vectorize(lambda x: x[::-1], signature='(n)->(n)')(np.arange(6).reshape(2, 3))",
    "t = np.vectorize(lambda x: (x.min(), x.max()), signature='(n)->(),()')(np.arange(6).reshape(2, 3)); t[0] * 10 + t[1]",
    "np.vectorize(lambda x: np.outer(x, x), signature='(n)->(n,n)')(np.arange(4).reshape(2, 2))",
    "np.vectorize(lambda x: np.arange(3) * x.sum(), signature='(n)->(m)')(np.arange(4).reshape(2, 2))",
    "np.vectorize(lambda m, v: m @ v, signature='(m,n),(n)->(m)')(np.arange(12.).reshape(2, 2, 3), np.array([1., 0, -1]))",
    "np.vectorize(lambda x: x.sum(), signature='(n)->()')(np.arange(3.))",
    "np.vectorize(lambda x: x.sum(), signature='(n)->()', otypes='f')(np.arange(6.).reshape(2, 3))",
    "np.vectorize(lambda x: x.sum(), signature='(n)->()', otypes=[np.float64])(np.zeros((0, 3)))",
    "np.vectorize(lambda x: x * 2, signature='()->()')(np.arange(4).reshape(2, 2))",
    "np.vectorize(lambda x: x * 2, signature='()->()')(5)",
    "np.vectorize(lambda x, y: x + y, otypes='d')(np.arange(3), 1)",
    "np.vectorize(lambda x, y: x + y, otypes=[np.float32])(np.arange(3), 1)",
    "np.vectorize(lambda x, y: x * y, excluded=[1])(np.arange(3), 2)",
    "np.vectorize(lambda x, y: x * y.sum(), excluded=(1,))(np.arange(3), np.arange(4))",
    "np.vectorize(np.clip, excluded=['max'])(np.arange(5.), min=np.array([[1], [2]]), max=3)",
    "np.vectorize(np.clip)(np.arange(5.), min=np.array([[1], [2]]), max=3)",
    "t = np.vectorize(lambda x: (x, x * 2.5))(np.arange(3)); t[1]",
    "t = np.vectorize(lambda x: (x, x * 2.5), otypes='ld')(np.arange(3)); t[1]",
    "np.vectorize(lambda x: x + 0.5, otypes='l')(np.arange(3))",
];

/// `np.vectorize` calls NumPy refuses.
const VECTORIZE_REFUSED: &[&str] = &[
    "np.vectorize(lambda a, b: np.sum(a * b), signature='(n),(n)->()')(np.arange(6.).reshape(2, 3), [1, 2])",
    "np.vectorize(lambda a: a, signature='(n)->()')(np.arange(3))",
    "np.vectorize(lambda a: a, signature='(n)->()')(3)",
    "np.vectorize(lambda a: a, signature='(n->()')",
    "np.vectorize(lambda a: (a, a), signature='(n)->()')(np.arange(3))",
    "np.vectorize(lambda a: a, signature='(n)->(),()')(np.arange(3))",
    "np.vectorize(lambda a: a.sum(), signature='(n)->()')(np.zeros((0, 3)))",
    "np.vectorize(lambda a: a.sum(), signature='(n)->(m)', otypes='d')(np.zeros((0, 3)))",
    "np.vectorize(lambda a, b: a, signature='(n),(n)->(n)')(np.arange(3))",
    "np.vectorize(lambda a: a[:2], signature='(n)->(n)')(np.arange(3))",
    "np.vectorize(lambda a: a, otypes='x')",
    "np.vectorize(lambda x: 0, signature='(n)->(n)')(np.arange(6.).reshape(2, 3))",
    "np.vectorize(lambda a, b: a, signature='(),()->()')(np.arange(3), np.arange(2))",
];

#[test]
fn vectorize_with_signature_matches_numpy() {
    assert_programs_match_numpy("surface2-vectorize", VECTORIZE);
}

#[test]
fn bad_vectorize_calls_are_refused_like_numpy() {
    assert_programs_refused_like_numpy("surface2-vectorize-refused", VECTORIZE_REFUSED);
    device();
    for (program, want) in [
        (
            "np.vectorize(lambda a, b: np.sum(a * b), signature='(n),(n)->()')(np.arange(6.).reshape(2, 3), [1, 2])",
            "inconsistent size for core dimension 'n': 2 vs 3",
        ),
        (
            "np.vectorize(lambda a: a, signature='(n)->()')(3)",
            "0-dimensional argument does not have enough dimensions for all core dimensions \
             ('n',)",
        ),
        (
            "np.vectorize(lambda a: a, signature='(n ->()')",
            "not a valid gufunc signature: (n->()",
        ),
        (
            "np.vectorize(lambda a: (a, a), signature='(n)->()')(np.arange(3))",
            "wrong number of outputs from pyfunc: expected 1, got 2",
        ),
        (
            "np.vectorize(lambda a, b: a, signature='(n),(n)->(n)')(np.arange(3))",
            "wrong number of positional arguments: expected 2, got 1",
        ),
        (
            "np.vectorize(lambda a: a.sum(), signature='(n)->(m)', otypes='d')(np.zeros((0, 3)))",
            "cannot call `vectorize` with a signature including new output dimensions on size \
             0 inputs",
        ),
        (
            "np.vectorize(lambda a: a[:2], signature='(n)->(n)')(np.arange(3))",
            "inconsistent size for core dimension 'n': 2 vs 3",
        ),
        ("np.vectorize(lambda a: a, otypes='x')", "Invalid otype specified: x"),
    ] {
        assert_error(program, want);
    }
}

/// Statements and Python conventions of NumPy's docstring sessions (`assert`, the truth value
/// of one-element arrays in `not`/`and`/`or`, long repeated lists), and the gaps those
/// sessions showed: `tril_indices_from`, histogram's `density=` and bin rules with `range=`.
const SESSIONS: &[&str] = &[
    "a = np.array([[10, 7, 4], [3, 2, 1]]); b = a.copy(); assert np.all(a == b); b",
    "a = np.arange(3); assert not np.all(a == 0), 'all zero'; a",
    "a = np.arange(3); assert a.sum() == 3; a[::-1]",
    "not np.arange(3).sum()",
    "not np.array([0.0])",
    "np.arange(3).max() and 7",
    "np.arange(3).min() or 5",
    "np.array(2.5) > 1 and np.array(1) == 1",
    "b = np.array([1, 2e-9, 3e-9] * 100000); b.sum()",
    "len((1, 2) * 40000)",
    "a = np.arange(16).reshape(4, 4); a[np.tril_indices_from(a)]",
    "a = np.arange(12).reshape(3, 4); a[np.tril_indices_from(a, k=1)]",
    "a = np.arange(12).reshape(4, 3); np.triu_indices_from(a, -1)[1]",
    "a = np.arange(12).reshape(4, 3); a[np.triu_indices_from(a, k=2)]",
    "np.tril_indices_from(np.zeros((0, 3)))[0]",
    // histogram's density= and bin rules with range=.
    "np.histogram(np.arange(4), bins=np.arange(5), density=True)[0]",
    "np.histogram([1, 2, 1], bins=[0, 1, 2, 3], density=True)[0]",
    "np.histogram(np.arange(10, dtype=np.float32), bins=3, density=True)[0]",
    "np.histogram(np.arange(10.), bins=4, range=(2, 5), density=True)[0]",
    "np.histogram(np.arange(10.), bins=[0, 1, 5, 10], weights=np.arange(10.) / 2, density=True)[0]",
    "np.histogram(np.array([1., np.inf]), bins=[0, 2, np.inf], density=True)[0]",
    "np.histogram(np.arange(6.), density=True)[1]",
    "arr = np.array([0, 0, 0, 1, 2, 3, 3, 4, 5]); np.histogram_bin_edges(arr, bins='auto', range=(0, 1))",
    "arr = np.array([0, 0, 0, 1, 2, 3, 3, 4, 5]); np.histogram_bin_edges(arr, bins=2)",
    "arr = np.array([0, 0, 0, 1, 2, 3, 3, 4, 5]); np.histogram_bin_edges(arr, bins='sqrt', range=(1, 4))",
    "np.histogram(np.arange(100.) ** 1.5, bins='fd', range=(10, 500))[0]",
    "np.histogram_bin_edges(np.arange(5), bins='rice', range=(7, 9))",
    "np.histogram_bin_edges(np.arange(5.), bins='scott', range=(2, 2))",
    // bincount with float64 / int64 weights (float64 sums).
    "w = np.array([0.3, 0.5, 0.2, 0.7, 1., -0.6]); x = np.array([0, 1, 1, 2, 2, 2]); np.bincount(x, weights=w)",
    "np.bincount(np.array([True, False, True]), weights=np.array([1, 2, 3]))",
    "np.bincount(np.array([3, 1]), weights=np.array([1e300, 2.]), minlength=6)",
    "np.bincount(np.zeros(0, dtype=int), weights=np.zeros(0))",
];

/// Statements NumPy (Python) refuses.
const SESSIONS_REFUSED: &[&str] = &[
    "a = np.arange(3); assert a.sum() == 4",
    "a = np.arange(3); assert a.sum() == 4, 'bad sum'",
    "assert np.arange(3) == 1",
    "not np.zeros(0)",
    "np.arange(2) and 1",
    "np.tril_indices_from(np.zeros(3))",
    "np.triu_indices_from(np.zeros((2, 2, 2)))",
    "np.histogram_bin_edges(np.arange(5.), bins='auto', range=(3, 1))",
    "np.histogram_bin_edges(np.arange(5.), bins='auto', range=(0, np.inf))",
];

#[test]
fn session_statements_match_numpy() {
    assert_programs_match_numpy("surface2-sessions", SESSIONS);
}

#[test]
fn bad_session_statements_are_refused_like_numpy() {
    assert_programs_refused_like_numpy("surface2-sessions-refused", SESSIONS_REFUSED);
    device();
    assert_error(
        "a = np.arange(3); assert a.sum() == 4, 'bad sum'",
        "AssertionError: bad sum",
    );
}
