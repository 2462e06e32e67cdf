"""Prints NumPy's str()/repr() of many arrays, one case per line, for tests/numpy_format.rs.

Line format: dtype|shape|data-hex|str-hex|repr-hex|scalar-repr-hex (the last is empty unless
the array is 0-d). Data is C-order little-endian bytes (bool: one byte).
"""
import itertools
import sys

import numpy as np

assert np.lib.NumpyVersion(np.__version__) >= "2.2.0", np.__version__

out = sys.stdout
rng = np.random.default_rng(12345)
DTYPES = [np.bool_, np.int32, np.uint32, np.int64, np.float16, np.float32, np.float64, np.complex64]
FLOATS = [np.float16, np.float32, np.float64]


def emit(a):
    a = np.ascontiguousarray(a)
    h = lambda s: s.encode().hex()
    sr = h(repr(a[()])) if a.ndim == 0 else ""
    out.write(f"{a.dtype.name}|{','.join(map(str, a.shape))}|{a.tobytes().hex()}|{h(str(a))}|{h(repr(a))}|{sr}\n")


with np.errstate(all="ignore"):
    # Shapes, empties, summaries and wrapping for every dtype.
    for dt in DTYPES:
        for base in [np.arange(6), np.arange(24).reshape(2, 3, 4) - 7, np.arange(2000) * 3 - 11,
                     np.arange(3000).reshape(30, 100), np.arange(1000), np.arange(1001),
                     np.arange(2 * 1001).reshape(2, 1001), np.arange(7 * 8 * 9 * 3).reshape(7, 8, 9, 3),
                     np.arange(60).reshape(3, 20) * 1234567 - 500, np.array(5), np.array(-3), np.array(0)]:
            emit(base.astype(dt))
        for shape in [(0,), (2, 0), (0, 3), (1,), (1, 1, 1), (2, 1, 2)]:
            emit(np.ones(shape, dt))
    # Integers: extremes and widths.
    emit(np.array([2**31 - 1, -2**31, 0], np.int32))
    emit(np.array([2**32 - 1, 0, 7], np.uint32))
    emit(np.array([2**63 - 1, -2**63, 1], np.int64))
    emit(np.array(2**63 - 1, np.int64))
    emit(rng.integers(-10**9, 10**9, size=(7, 13)).astype(np.int64))
    emit(np.array([True]))
    emit(np.array([[True, False], [False, False]]))
    emit(np.array(False))

    # Floats: special values, thresholds of the scientific switch, rounding at 8 digits.
    special = [0.0, -0.0, 1.0, -1.5, 0.1, 0.2, 0.3, 1 / 3, 2 / 3, 1e-5, 1e-4, 0.0001, 9.9999e-5,
               1.00001e-4, 1e8, 99999999.0, 99999992.0, 1e16, 1e15, 9.999999e15, 1e-300, 5e-324,
               np.nan, np.inf, -np.inf, 123456.789, 1e3, 1000.5, 1001.0, 1e4, 3.14159, 2.5, 100.0,
               0.001953125, 1.0000000001, 65504.0, 65520.0, 6e-8, 1e-7, 2 ** -24, 16777217.0,
               134218208.0, 1e22, 1e23, 5e-5, 0.5, 0.25, 0.125, 1e10, 12345678.9, 0.30000000000000004]
    for dt in FLOATS:
        for v in special:
            emit(np.array(v, dt))
            emit(np.array([v], dt))
            emit(np.array([v, 1.0], dt))
            emit(np.array([v, -2.0, 0.5], dt))
        for _ in range(400):
            k = rng.integers(1, 7)
            emit(np.array(rng.choice(np.array(special, dtype=object), size=k).astype(float), dt))
        for scale in range(-12, 14):
            emit((rng.standard_normal(5) * 10.0 ** scale).astype(dt))
            emit((rng.standard_normal((3, 4)) * 10.0 ** scale).astype(dt))
            emit((rng.random(6) * 10.0 ** scale).astype(dt))
        emit(np.linspace(0, 1, 50).astype(dt))
        emit(np.linspace(-1e6, 1e6, 37).reshape(37).astype(dt))
        emit((np.arange(40).reshape(4, 10) / 7).astype(dt))
        emit((np.arange(1200).reshape(3, 20, 20) / 3).astype(dt))
        emit(np.array([np.nan, np.inf], dt))
        emit(np.array([np.nan, -np.inf], dt))
        emit(np.array([np.nan], dt))
        emit(np.array([np.inf, 1e-5], dt))
        emit(np.array([[np.nan, 1.5], [-np.inf, 1e10]], dt))

    # Every float16, as a scalar and as a one-element array.
    allh = np.arange(65536, dtype=np.uint16).view(np.float16)
    for x in allh:
        emit(np.array(x))
        emit(np.array([x]))
    # Random float32 / float64 bit patterns (all exponents).
    for bits, dt in [(np.uint32, np.float32), (np.uint64, np.float64)]:
        xs = rng.integers(0, np.iinfo(bits).max, size=6000, dtype=bits, endpoint=True).view(dt)
        for x in xs:
            emit(np.array(x))
            emit(np.array([x]))
        for i in range(0, 600, 3):
            emit(xs[i:i + 3])
        # Values that print positionally in float32 but not as their shortest repr.
        ys = (rng.random(3000) * 10.0 ** rng.integers(-4, 8, size=3000)).astype(dt)
        for i in range(0, 3000, 2):
            emit(ys[i:i + 2])

    # Complex.
    parts = [0.0, -0.0, 1.0, -2.5, 0.1, 1e-5, 1e10, np.nan, np.inf, -np.inf, 1 / 3]
    for re, im in itertools.product(parts, parts):
        z = np.complex64(complex(re, im))
        emit(np.array(z))
        emit(np.array([z]))
        emit(np.array([z, np.complex64(1 + 1j)]))
    for scale in range(-6, 9):
        z = (rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))) * 10.0 ** scale
        emit(z.astype(np.complex64))
    emit((np.arange(1100) * (1 + 2j)).astype(np.complex64))
    emit(np.array([1e-5 + 1j, 1 + 1e5j], np.complex64))
