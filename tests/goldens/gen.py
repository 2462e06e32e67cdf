#!/usr/bin/env python3
"""Golden cases for kupfer with NumPy as the oracle.

Usage: python3 tests/goldens/gen.py OUTDIR

Writes OUTDIR/manifest.jsonl (one JSON object per case) and the .npy files the cases name
(inputs `i*.npy`, expected outputs `e*.npy`). tests/goldens.rs runs it and checks kupfer
against every case. Randomness is seeded: the same NumPy gives the same files.

A case:
  {"id": "...", "kind": "ufunc" | "round" | "astype" | "creation" | "view" | "chain",
   "op": "add", "args": [ARG, ...], "params": {...},
   "expect": {"file": "e1.npy", "dtype": "float32", "shape": [..]}
           | {"files": [...], "dtype": ..}                (several outputs: meshgrid)
           | {"error": "Unsupported" | "InvalidArgument" | "ShapeMismatch", ...},
   "tol": {"ulp": N, "zero_sign": bool, "crel": N},      (floats and complex only)
   "allow_unsupported": bool,                              (kupfer documents a limitation)
   "note": "..."}
  ARG = {"a": "i3.npy", "shape": [base shape], "v": [VIEW_OP, ...]}
      | {"s": ["bool"|"int"|"float"|"complex", ...]}
  VIEW_OP = ["transpose", null | [axes]] | ["slice", [IDX, ...]] | ["broadcast_to", shape]
          | ["reshape", shape] | ["squeeze", null | [axes]] | ["expand_dims", axis]
          | ["swapaxes", a, b] | ["ravel"] | ["flatten"]
  IDX = int | {"start": int|null, "stop": int|null, "step": int|null} | "newaxis" | "..."
  Floats in JSON are decimal strings ("0.1", "nan", "inf", "-inf"): JSON number parsers are
  not all correctly rounded.

Expected dtypes and values follow kupfer's documented promotion (crates/kupfer-core/src/
promote.rs): NumPy 2's result dtype (NEP 50, Python scalars weak), except that a 64-bit result
(int64, float64, complex128) with no 64-bit operand becomes its 32-bit counterpart -- and then
the expected values are what the op gives when computed in that 32-bit dtype (the operands
cast to it first: int32 / int32 is float32(a) / float32(b)). complex128 with a 64-bit operand
is an Unsupported error. The small integers (int8, uint8, int16, uint16) are NumPy's own, with
its wrap-around; their section (sec_small_ints) runs every unary and binary function on them,
mixed with the other dtypes and Python scalars, and casts both ways.
Comparisons (bool results) are never demoted: their values are NumPy's.
"""

import hashlib
import json
import math
import os
import sys
import warnings

try:
    import numpy as np
except ImportError:
    sys.exit("tests/goldens/gen.py needs NumPy 2.x as the test oracle: pip install numpy")
if int(np.__version__.split(".")[0]) < 2:
    sys.exit(f"tests/goldens/gen.py needs NumPy >= 2 (NEP 50 promotion), found {np.__version__}: "
             "pip install -U numpy")

warnings.simplefilter("ignore")

DTYPES = ["bool", "int32", "uint32", "int64", "float16", "float32", "float64", "complex64",
          "complex128"]
INTS = ["int32", "uint32", "int64"]
FLOATS = ["float16", "float32", "float64"]
SMALL_INTS = ["int8", "uint8", "int16", "uint16"]
KUPFER_DTYPES = {np.dtype(d) for d in DTYPES + SMALL_INTS}
SEED = 20240917

# The ufuncs covered, by NumPy name: main() fills them from its arguments, which
# tests/goldens.rs takes from kupfer-core's op table (crates/kupfer-core/src/ops.rs).
BINARY = []
UNARY = []

# NumPy functions by kupfer name.
NPF = {"where": np.where, "clip": np.clip, "view": lambda a: a}

# ops kupfer documents as not supporting complex (expr.rs signatures); with a complex operand
# kupfer may answer Unsupported, but a value it gives must be right.
COMPLEX_LIMITED = {"maximum", "minimum", "fmax", "fmin", "less", "less_equal",
                   "greater", "greater_equal", "sign", "sqrt", "exp", "exp2", "expm1", "log",
                   "log1p", "log2", "log10", "cbrt", "sin", "cos", "tan", "arcsin", "arccos",
                   "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "rint",
                   "isnan", "isinf", "isfinite", "clip"}

# The libm-computed ops (ULP bounds of transcendentals); filled by main() as UNARY is.
TRANSCENDENTAL = set()
ROUNDED_ONCE = {"divide", "reciprocal", "sqrt"}
MINMAX = {"maximum", "minimum", "fmax", "fmin", "clip"}


def tol_for(op, dtype):
    """Tolerance for a float/complex result of `op` in `dtype` (None: exact)."""
    dt = np.dtype(dtype)
    if dt.kind == "c":
        if op in ("multiply", "divide", "square", "reciprocal"):
            return {"crel": 4}
        # a ** b as exp(b log a) (NumPy's too, for non-integral b and |n| >= 100): the few
        # ulp of log a are multiplied by |b log a| (about 35 for (1-1j) ** 100).
        if op == "power":
            return {"crel": 64}
        # a * b + c: where the sum cancels, |result| is far below the terms, and a driver's
        # fused multiply-add (lavapipe contracts f64) rounds differently from NumPy.
        if op == "chain":
            return {"crel": 32}
        # kupfer's complex64 functions (shaders/complex_f32.wgsl) compose f32 libm results:
        # a few ulp of |result|.
        if op in TRANSCENDENTAL or op == "sqrt":
            return {"crel": 8}
        return {"crel": 0}
    if dt.kind != "f":
        return None
    t = {"ulp": 0, "zero_sign": op not in MINMAX}
    if op in TRANSCENDENTAL:
        t["ulp"] = 1 if dt == np.float16 else 4
    elif op in ROUNDED_ONCE:
        t["ulp"] = 1 if dt == np.float16 else 2
    elif op == "remainder":
        t["ulp"] = 1 if dt == np.float16 else 2
    elif op in ("linspace", "arange"):
        t["ulp"] = 2
    elif op == "absolute":  # of complex: a hypot
        t["ulp"] = 2
    elif op == "chain":
        t["ulp"] = 8
    return t


def power_condition(a, b, r):
    """How much a ** b = exp(b log a) magnifies the few ulp of log a: max(1, |b| |log a|)
    over the elements with a finite result (NumPy's own result carries that error too)."""
    with np.errstate(all="ignore"):
        a, b = np.broadcast_arrays(np.asarray(a, dtype=complex), np.asarray(b, dtype=complex))
        c = np.abs(b) * np.abs(np.log(np.where(a == 0, 1, a)))
    c = c[np.isfinite(c) & np.isfinite(np.asarray(r))]
    return float(min(max(1.0, c.max()), 1e4)) if c.size else 1.0


def power_noise(a, b, r):
    """The elements of a complex a ** b that one case's tolerance cannot judge: where
    |b| |log a| passes 1e4 (power_condition's cap) the result is determined only to that many
    ulp, up to a phase that is rounding noise (e.g. (-3e-10-1j) ** 2**31 in complex64), and
    within rounding of overflow a finite result and an infinite one are both right. These are
    left out here; tests/complex_power.rs compares them element by element with a tolerance
    scaled by each element's own |b| |log a|."""
    r = np.asarray(r)
    with np.errstate(all="ignore"):
        a, b = np.broadcast_arrays(np.asarray(a, dtype=complex), np.asarray(b, dtype=complex))
        c = np.abs(b) * np.abs(np.log(np.where(a == 0, 1, a)))
        big = np.maximum(np.abs(r.real), np.abs(r.imag)) > np.finfo(r.dtype).max / 4
    return np.broadcast_to((np.isfinite(c) & (c > 1e4)) | big, r.shape)


def jf(x):
    """A float for JSON, as its shortest round-trip decimal string ("nan", "inf", "-inf" too):
    JSON number parsers are not all correctly rounded."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(x)


class A:
    """An array argument: a contiguous base (uploaded) and view ops applied on the GPU."""

    def __init__(self, base, views=()):
        self.base = np.asarray(base).copy(order="C")
        self.views = [list(v) for v in views]

    def value(self):
        return apply_views(self.base, self.views)


class S:
    """A Python scalar argument (NEP 50 weak)."""

    def __init__(self, v):
        self.v = v

    def json(self):
        v = self.v
        if isinstance(v, bool):
            return ["bool", v]
        if isinstance(v, int):
            return ["int", v]
        if isinstance(v, float):
            return ["float", jf(v)]
        return ["complex", jf(v.real), jf(v.imag)]


def np_index(args):
    out = []
    for a in args:
        if a == "newaxis":
            out.append(None)
        elif a == "...":
            out.append(Ellipsis)
        elif isinstance(a, dict):
            out.append(slice(a.get("start"), a.get("stop"), a.get("step")))
        else:
            out.append(a)
    return tuple(out)


def apply_views(x, views):
    for v in views:
        op = v[0]
        if op == "transpose":
            x = x.transpose(v[1]) if v[1] is not None else x.T
        elif op == "slice":
            x = x[np_index(v[1])]
        elif op == "broadcast_to":
            x = np.broadcast_to(x, tuple(v[1]))
        elif op == "reshape":
            x = x.reshape(v[1])
        elif op == "squeeze":
            x = np.squeeze(x, axis=None if v[1] is None else tuple(v[1]))
        elif op == "expand_dims":
            x = np.expand_dims(x, v[1])
        elif op == "swapaxes":
            x = np.swapaxes(x, v[1], v[2])
        elif op == "ravel":
            x = x.ravel()
        elif op == "flatten":
            x = x.flatten()
        else:
            raise ValueError(op)
    return x


def sl(start=None, stop=None, step=None):
    return {"start": start, "stop": stop, "step": step}


def is64(dt):
    return np.dtype(dt) in (np.dtype("int64"), np.dtype("uint64"), np.dtype("float64"),
                            np.dtype("complex128"))


def kupfer_dtype(rdt, operand_dtypes):
    """kupfer's result dtype for NumPy's result dtype `rdt`, or ("error", kind)."""
    rdt = np.dtype(rdt)
    any64 = any(is64(d) for d in operand_dtypes)
    if is64(rdt) and not any64:
        return {"i": np.dtype("int32"), "u": np.dtype("uint32"), "f": np.dtype("float32"),
                "c": np.dtype("complex64")}[rdt.kind]
    if rdt not in KUPFER_DTYPES:
        raise AssertionError(f"unexpected NumPy result dtype {rdt}")
    return rdt


class Gen:
    def __init__(self, out):
        self.out = out
        self.cases = []
        self.files = {}
        self.nfile = 0
        self.rng = np.random.default_rng(SEED)
        self.counts = {}

    # ---------------------------------------------------------------- files
    def save(self, arr, prefix):
        arr = np.asarray(arr).copy(order="C")  # (np.ascontiguousarray would make 0-d 1-d)
        key = (prefix, arr.dtype.str, arr.shape, hashlib.sha1(arr.tobytes()).hexdigest())
        if key in self.files:
            return self.files[key]
        name = f"{prefix}{self.nfile}.npy"
        self.nfile += 1
        np.save(os.path.join(self.out, name), arr)
        self.files[key] = name
        return name

    def arg_json(self, a):
        if isinstance(a, A):
            return {"a": self.save(a.base, "i"), "shape": list(a.base.shape), "v": a.views}
        return {"s": a.json()}

    def emit(self, case, section):
        case["id"] = f"{section}-{len(self.cases)}"
        self.counts[section] = self.counts.get(section, 0) + 1
        self.cases.append(case)

    def expect_value(self, r, op, kind_dtype=None):
        r = np.asarray(r)
        e = {"file": self.save(r, "e"), "dtype": str(r.dtype), "shape": list(r.shape)}
        return e, tol_for(op, r.dtype)

    # ---------------------------------------------------------------- elementwise
    def ufunc(self, section, op, args, params=None, kind="ufunc", value_args=None, note=None):
        """One elementwise case; NumPy gives the expected dtype, values or error."""
        params = params or {}
        vals = [a.value() if isinstance(a, A) else a.v for a in args]
        # operands that take part in promotion (where's condition does not)
        pidx = [1, 2] if (kind == "ufunc" and op == "where") else range(len(args))
        strong = [vals[i].dtype for i in pidx if isinstance(args[i], A)]
        if not strong:  # only Python scalars: NumPy converts them with default dtypes
            strong = [np.asarray(vals[i]).dtype for i in pidx]
        case = {"kind": kind, "op": op, "args": [self.arg_json(a) for a in args],
                "params": params}
        if note:
            case["note"] = note
        if any(isinstance(a, A) and a.base.dtype.kind == "c" for a in args) or any(
                isinstance(a, S) and isinstance(a.v, complex) for a in args):
            if op in COMPLEX_LIMITED:
                case["allow_unsupported"] = True

        def call(vs):
            if kind == "round":
                return np.round(vs[0], params["decimals"])
            if kind == "astype":
                return vs[0].astype(params["dtype"])
            return NPF[op](*vs)

        try:
            r = np.asarray(call(vals))
        except OverflowError as e:
            case["expect"] = {"error": "InvalidArgument", "numpy": f"OverflowError: {e}"}
            return self.emit(case, section)
        except TypeError as e:  # includes UFuncTypeError
            case["expect"] = {"error": "Unsupported", "numpy": f"TypeError: {e}"}
            return self.emit(case, section)
        except ValueError as e:
            if "broadcast" in str(e):
                shapes = [list(np.shape(v)) for v in vals]
                case["expect"] = {"error": "ShapeMismatch", "shapes": shapes,
                                  "numpy": f"ValueError: {e}"}
            else:
                case["expect"] = {"error": "InvalidArgument", "numpy": f"ValueError: {e}"}
            return self.emit(case, section)
        kdt = kupfer_dtype(r.dtype, strong) if kind != "astype" else r.dtype
        if isinstance(kdt, tuple):
            case["expect"] = {"error": kdt[1], "numpy": f"result {r.dtype} (complex128)"}
            return self.emit(case, section)
        if kdt != r.dtype:
            # demoted: compute in the 32-bit dtype, the operands cast to it first
            va = range(len(args)) if value_args is None else value_args
            vals2 = [v.astype(kdt) if (i in va and isinstance(args[i], A)) else v
                     for i, v in enumerate(vals)]
            if not any(isinstance(args[i], A) for i in pidx):
                vals2 = [kdt.type(v) if i in va else v for i, v in enumerate(vals)]
            try:
                r2 = np.asarray(call(vals2))
            except OverflowError as e:  # a Python int that fits NumPy's int64 but not int32
                case["expect"] = {"error": "InvalidArgument",
                                  "numpy": f"in {kdt}: OverflowError: {e}"}
                return self.emit(case, section)
            if r2.dtype != kdt:
                r2 = r2.astype(kdt)
            case["note"] = (case.get("note", "") + f" NumPy {r.dtype} -> kupfer {kdt}").strip()
            r = r2
            vals = vals2
        e, tol = self.expect_value(r, op)
        case["expect"] = e
        if tol and op == "power" and r.dtype.kind == "c":
            noise = power_noise(vals[0], vals[1], r)
            tol = {"crel": tol["crel"] * power_condition(vals[0], vals[1], np.where(noise, np.nan, r))}
            if noise.any():
                case["noise"] = [int(i) for i in np.flatnonzero(noise)]
        if tol:
            case["tol"] = tol
        return self.emit(case, section)

    def error(self, section, kind, op, args, params, error, note):
        self.emit({"kind": kind, "op": op, "args": [self.arg_json(a) for a in args],
                   "params": params, "expect": {"error": error}, "note": note}, section)

    # ---------------------------------------------------------------- values
    def edge(self, dtype, op=None):
        """Edge values of a dtype (a 1-D array of that dtype)."""
        dt = np.dtype(dtype)
        nan, inf = float("nan"), float("inf")
        if dt == np.bool_:
            return np.array([False, True])
        if dt.kind in "iu":
            info = np.iinfo(dt)
            w = dt.itemsize * 8
            v = [0, 1, 2, 3, 7, 31, 32, 33, w - 1, w, 100, 12345, info.max, info.max - 1]
            if dt.kind == "i":
                v += [-1, -2, -3, -7, -100, info.min, info.min + 1]
            else:
                v += [2 ** 31, 2 ** 31 - 1]
            if dt == np.int64:
                v += [2 ** 32, -(2 ** 32), 2 ** 53 + 1, 2 ** 31]
            v = [x for x in v if info.min <= x <= info.max]
            return np.array(sorted(set(v)), dtype=dt)
        if dt.kind == "f":
            fi = np.finfo(dt)
            v = [nan, inf, -inf, 0.0, -0.0, float(fi.smallest_subnormal),
                 -float(fi.smallest_subnormal), float(fi.tiny), float(fi.max), -float(fi.max),
                 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0, 0.1, -7.0, 100.0, math.pi]
            if dt == np.float16:
                v += [1e-3, 1000.0, 2049.0]
            elif dt == np.float32:
                v += [1e-30, 1e30, -1e30, 16777217.0, 1e-7]
            else:
                v += [1e-300, 1e300, 2.0 ** 53 + 1, 1e-15]
            return np.array(v, dtype=dt)
        # complex: finite values
        parts = [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, 1e10, -3e-10]
        v = [complex(a, b) for a in parts for b in parts[::3]]
        v += [1e20 + 1e20j, 1e-20 - 2e-20j, 3 - 4j]
        if dt == np.complex128:
            v += [1e200 - 1e200j, 1e-200 + 3e-200j, 0.1 + 0.7j]
        return np.array(v, dtype=dt)

    def rand(self, dtype, n, lo=None, hi=None, positive=False, log=False):
        """Random values of a dtype in [lo, hi] (uniform or log-uniform magnitude)."""
        dt = np.dtype(dtype)
        g = self.rng
        if dt == np.bool_:
            return g.random(n) < 0.5
        if dt.kind in "iu":
            info = np.iinfo(dt)
            lo = info.min if lo is None else max(lo, info.min)
            hi = info.max if hi is None else min(hi, info.max)
            if positive:
                lo = max(lo, 1)
            return g.integers(lo, hi, size=n, dtype=dt, endpoint=True)
        if log:
            lo = 1e-6 if lo is None else lo
            hi = 1e6 if hi is None else hi
            mag = np.exp(g.uniform(math.log(lo), math.log(hi), n))
            sign = np.ones(n) if positive else np.where(g.random(n) < 0.5, -1.0, 1.0)
            x = mag * sign
        else:
            lo = -10.0 if lo is None else lo
            hi = 10.0 if hi is None else hi
            x = g.uniform(lo, hi, n)
        if dt.kind == "c":
            y = g.uniform(lo, hi, n)
            return (x + 1j * y).astype(dt)
        return x.astype(dt)

    def unary_input(self, op, dtype):
        """Edge values plus random values in the op's interesting domain."""
        dt = np.dtype(dtype)
        e = self.edge(dt, op)
        big = 60000.0 if dt == np.float16 else 1e6
        dom = {
            "exp": (-100, 100), "exp2": (-150, 130), "expm1": (-5, 5), "sinh": (-20, 20),
            "cosh": (-20, 20), "tanh": (-10, 10), "sin": (-10, 10), "cos": (-10, 10),
            "tan": (-1.5, 1.5), "arcsin": (-1, 1), "arccos": (-1, 1), "arctanh": (-1, 1),
            "arccosh": (1, 100), "log1p": (-1, 10), "arctan": (-50, 50),
        }
        if dt == np.float16:
            dom.update({"exp": (-15, 11), "exp2": (-24, 15.9), "sinh": (-11, 11),
                        "cosh": (-11, 11)})
        if dt.kind in "iu":
            small = {"exp": (-20, 20), "exp2": (-30, 30), "expm1": (-20, 20), "sinh": (-20, 20),
                     "cosh": (-20, 20), "arcsin": (-1, 1), "arccos": (-1, 1),
                     "arctanh": (-1, 1), "reciprocal": (1, 1000)}
            lo, hi = small.get(op, (-1000, 1000))
            r = self.rand(dt, 40, lo, hi)
            if op == "reciprocal":  # NumPy: 1/0 is undefined behaviour (a float->int cast)
                e = e[e != 0]
                r = np.concatenate([r, -r]) if dt.kind == "i" else r
            return np.concatenate([e, r, self.rand(dt, 20)])
        if dt.kind == "c":
            return np.concatenate([e, self.rand(dt, 30, -3, 3)])
        if op in ("log", "log2", "log10", "sqrt", "reciprocal", "cbrt", "arcsinh"):
            hi = 60000.0 if dt == np.float16 else (1e30 if dt == np.float32 else 1e300)
            lo = 1e-4 if dt == np.float16 else (1e-35 if dt == np.float32 else 1e-300)
            r = self.rand(dt, 120, lo, hi, positive=op not in ("cbrt", "arcsinh", "reciprocal"),
                          log=True)
            near1 = self.rand(dt, 30, 0.5, 2.0)
            return np.concatenate([e, r, near1])
        if op in ("sin", "cos", "tan"):
            lo, hi = dom[op]
            large = self.rand(dt, 30, 10, big, log=True)
            return np.concatenate([e, self.rand(dt, 120, lo, hi), large])
        if op in ("expm1", "log1p", "arcsinh", "arctanh", "tanh", "sinh", "arcsin", "arctan"):
            tiny = self.rand(dt, 20, 1e-4 if dt == np.float16 else 1e-12, 1e-2, log=True)
            lo, hi = dom.get(op, (-10, 10))
            return np.concatenate([e, self.rand(dt, 100, lo, hi), tiny])
        if op in dom:
            lo, hi = dom[op]
            return np.concatenate([e, self.rand(dt, 150, lo, hi)])
        if op in ("floor", "ceil", "trunc", "rint"):
            halves = (self.rng.integers(-40, 40, 40) + 0.5).astype(dt)
            return np.concatenate([e, halves, self.rand(dt, 60, -1e4, 1e4)])
        return np.concatenate([e, self.rand(dt, 60, 1e-3, 1e3, log=True)])

    def pair_inputs(self, op, da, db):
        """Two 1-D arrays: the cross product of edge values, then random pairs."""
        da, db = np.dtype(da), np.dtype(db)
        ea, eb = self.edge(da, op), self.edge(db, op)
        if op in ("left_shift", "right_shift"):
            shifts = [0, 1, 2, 7, 15, 30, 31, 32, 33, 40, 63, 64, 65, 100]
            if db.kind == "i":
                shifts += [-1, -2, -33]
            if db.kind in "iu":
                shifts = [s for s in shifts if np.iinfo(db).min <= s <= np.iinfo(db).max]
            eb = np.array(shifts, dtype=db) if db.kind != "b" else eb
        if op == "power":
            if da.kind in "iub" and db.kind in "iub":
                # integers to negative integer powers are a NumPy ValueError: left out
                eb = np.array([v for v in [0, 1, 2, 3, 5, 7, 31, 32, 33, 63, 64, 100]
                               if v <= np.iinfo(db).max] if db.kind != "b" else [0, 1], dtype=db)
        a = np.repeat(ea, len(eb))
        b = np.tile(eb, len(ea))
        n = 120
        if op == "power" and da.kind in "iub" and db.kind in "iub":
            ra, rb = self.rand(da, n, -6, 6), self.rand(db, n, 0, 12)
        elif op == "power":
            ra = self.rand(da, n, 0.01, 10) if da.kind == "f" else self.rand(da, n, 0, 9)
            rb = self.rand(db, n, -6, 6) if db.kind == "f" else self.rand(db, n, -3, 6)
        elif op in ("left_shift", "right_shift"):
            ra, rb = self.rand(da, n), self.rand(db, n, 0, 80)
        elif op in ("floor_divide", "remainder", "fmod"):
            ra = self.rand(da, n, -1000, 1000)
            rb = self.rand(db, n, -40, 40)
            if db.kind == "f":
                rb = self.rand(db, n, 0.1, 40, log=True)
            if op == "fmod" and da.kind == "f" and da != np.float16:
                # quotients far beyond 2^53: exact only by long division, not x - y*trunc(x/y)
                big = np.array([1e30, -1e30, 3e38, 1.5e-30, 1e20, -7e15, 16777217.0, 1e-40])
                div = np.array([3.3, 3.3, 0.1, 1e-38, -0.7, 1e-5, 3.0, 1e-44])
                if da == np.float64:
                    big = np.concatenate([big, [1e300, -1e308, 5e-324, 1e200]])
                    div = np.concatenate([div, [3.3, 1e-300, 5e-324, -1e-200]])
                with np.errstate(all="ignore"):
                    ra = np.concatenate([ra, big.astype(da)])
                    rb = np.concatenate([rb, div.astype(db)])
        else:
            ra, rb = self.rand(da, n, -100, 100), self.rand(db, n, -100, 100)
        return np.concatenate([a, ra]), np.concatenate([b, rb])

    # ---------------------------------------------------------------- sections
    def sec_unary(self):
        """Every unary function x every dtype, on 1-D contiguous edge + domain values."""
        for op in UNARY:
            for d in DTYPES:
                x = self.unary_input(op, d)
                self.ufunc("unary", op, [A(x)])

    def sec_binary_same(self):
        """Every binary function x every dtype (both operands that dtype)."""
        for op in BINARY:
            for d in DTYPES:
                a, b = self.pair_inputs(op, d, d)
                self.ufunc("binary", op, [A(a), A(b)])

    def sec_binary_mixed(self):
        """All mixed dtype pairs for a representative set of binary functions."""
        ops = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "fmod",
               "power", "maximum", "fmin", "arctan2", "hypot", "equal", "less", "greater_equal",
               "logical_and", "bitwise_or", "left_shift", "right_shift"]
        for op in ops:
            for da in DTYPES:
                for db in DTYPES:
                    if da == db:
                        continue
                    a, b = self.pair_inputs(op, da, db)
                    self.ufunc("mixed", op, [A(a), A(b)])
        # comparisons whose exact answer needs more than 32 bits of common type
        a = np.array([2147483647, -1, 16777217, -16777217, 0, 2147483647], np.int32)
        b = np.array([2147483648.0, 4294967295.0, 16777216.0, -16777216.0, -0.0, 2147483520.0],
                     np.float32)
        u = np.array([2147483648, 4294967295, 3, 0, 0, 2147483648], np.uint32)
        for op in ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]:
            self.ufunc("mixed", op, [A(a), A(b)], note="exact comparison int32 vs float32")
            self.ufunc("mixed", op, [A(a), A(u)], note="exact comparison int32 vs uint32")

    def sec_scalars(self):
        """Python scalars (weak, NEP 50) on either side of every dtype."""
        ops = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "fmod",
               "power", "maximum", "minimum", "arctan2", "equal", "less", "logical_or", "bitwise_and",
               "left_shift", "right_shift"]
        scalars = [S(True), S(3), S(-2), S(2.5), S(-0.0), S(1.5 - 2j)]
        for op in ops:
            for d in DTYPES:
                x = self.edge(d, op)
                x = np.concatenate([x, self.rand(d, 20, -50, 50)])
                if op == "power" and d in INTS:
                    x = self.rand(d, 30, 0, 6)  # scalar ** x: no negative integer powers
                for s in scalars:
                    if op == "power" and d in INTS + ["bool"] and s.v == -2:
                        continue  # negative integer powers of integers are a NumPy ValueError
                    if op in ("left_shift", "right_shift") and s.v == -2:
                        continue
                    self.ufunc("scalar", op, [A(x), s])
                    self.ufunc("scalar", op, [s, A(x)])
        # special scalar values
        for d in ["float16", "float32", "float64", "int32", "uint32", "bool"]:
            x = np.concatenate([self.edge(d), self.rand(d, 10)])
            for s in [S(float("nan")), S(float("inf")), S(-float("inf")), S(1e10), S(1e-45),
                      S(2 ** 31 - 1), S(2 ** 40), S(-1), S(2 ** 32 - 1)]:
                for op in ["add", "multiply", "maximum", "less"]:
                    self.ufunc("scalar", op, [A(x), s])
        # only scalars: NumPy's default dtypes (int64, float64, bool)
        for op, a, b in [("add", 1, 2), ("add", 1, 2.5), ("multiply", True, 3),
                         ("divide", 7, 2), ("less", 1, 2.5), ("add", True, False),
                         ("floor_divide", -7, 2), ("power", 2.0, 0.5)]:
            self.ufunc("scalar", op, [S(a), S(b)])
        for op, a in [("sin", 1.0), ("negative", 5), ("sqrt", 2), ("logical_not", 0),
                      ("absolute", -3.5), ("isnan", float("nan"))]:
            self.ufunc("scalar", op, [S(a)])

    def sec_shapes(self):
        """0-d, 1-element, empty, odd 1-D, 2-D, 3-D, 4-D; broadcasting pairs."""
        shapes = [(), (1,), (0,), (7,), (33,), (257,), (5, 7), (3, 0, 2), (3, 4, 5),
                  (2, 3, 2, 5), (1, 1, 1, 1)]
        for shp in shapes:
            for d in ["float32", "int32", "float64", "float16", "bool", "complex64", "int64"]:
                n = int(np.prod(shp))
                x = self.rand(d, n, -5, 5).reshape(shp)
                y = self.rand(d, n, -5, 5).reshape(shp)
                for op in ["negative", "absolute", "exp", "logical_not"]:
                    self.ufunc("shapes", op, [A(x)])
                for op in ["add", "multiply", "maximum", "less", "bitwise_xor"]:
                    self.ufunc("shapes", op, [A(x), A(y)])
        pairs = [((3, 1), (1, 4)), ((5,), (2, 3, 5)), ((), (4, 3)), ((2, 1, 3, 1), (5, 1, 4)),
                 ((0, 3), (1, 3)), ((1,), (6,)), ((4, 1, 1), (3, 2)), ((2, 3, 4), (3, 1)),
                 ((1, 0), (5, 1)), ((2, 1, 1, 3), (1, 4, 5, 1))]
        for sa, sb in pairs:
            for d1, d2 in [("float32", "float32"), ("int32", "float32"), ("int64", "int32"),
                           ("float16", "float64"), ("bool", "uint32")]:
                x = self.rand(d1, int(np.prod(sa)), -9, 9).reshape(sa)
                y = self.rand(d2, int(np.prod(sb)), -9, 9).reshape(sb)
                for op in ["add", "subtract", "greater", "maximum", "arctan2", "floor_divide"]:
                    self.ufunc("broadcast", op, [A(x), A(y)])
                    self.ufunc("broadcast", op, [A(y), A(x)])
            c = self.rand("bool", int(np.prod(sa))).reshape(sa)
            x = self.rand("float32", int(np.prod(sb))).reshape(sb)
            self.ufunc("broadcast", "where", [A(c), A(x), S(-1.0)])
        # shapes that do not broadcast: a ShapeMismatch naming both shapes
        for sa, sb in [((3,), (4,)), ((2, 3), (3, 2)), ((0,), (2,)), ((5, 1, 3), (4, 2))]:
            x = self.rand("float32", int(np.prod(sa))).reshape(sa)
            y = self.rand("float32", int(np.prod(sb))).reshape(sb)
            for op in ["add", "less", "arctan2"]:
                self.ufunc("broadcast", op, [A(x), A(y)])
            c = self.rand("bool", int(np.prod(sa))).reshape(sa)
            self.ufunc("broadcast", "where", [A(c), A(y), S(0.0)])

    def view_bases(self):
        """(base shape, view ops) pairs covering kupfer's view kinds."""
        return [
            ((5, 7), [["transpose", None]]),
            ((3, 4, 5), [["transpose", [2, 0, 1]]]),
            ((2, 3, 4, 5), [["transpose", [3, 1, 0, 2]]]),
            ((17,), [["slice", [sl(step=-1)]]]),
            ((6, 7), [["slice", [sl(step=-2), sl(5, 0, -1)]]]),
            ((20,), [["slice", [sl(1, None, 3)]]]),
            ((6, 8), [["slice", [sl(step=2), sl(1, None, 3)]]]),
            ((7,), [["broadcast_to", [4, 7]]]),
            ((3, 1), [["broadcast_to", [2, 3, 5]]]),
            ((4, 5, 6), [["slice", [2, sl(), sl(step=2)]]]),
            ((4, 5, 6), [["slice", ["...", -1]]]),
            ((5,), [["slice", ["newaxis", sl(), "newaxis"]]]),
            ((4, 6), [["slice", [sl(1, 3), "newaxis", sl(None, None, -2)]]]),
            ((6, 5), [["transpose", None], ["slice", [sl(step=-1), sl(1, 5, 2)]]]),
            ((3, 4, 5), [["swapaxes", 0, 2], ["reshape", [5, -1]]]),
            ((24,), [["reshape", [2, 3, 4]], ["slice", [sl(step=-1), 1]]]),
            ((2, 1, 3), [["squeeze", None], ["expand_dims", 0]]),
            ((1, 5, 1), [["squeeze", [0]], ["broadcast_to", [3, 5, 4]],
                         ["slice", [sl(step=-1), "...", sl(step=3)]]]),
            ((9, 9), [["slice", [sl(8, None, -3), sl(-1, -9, -4)]]]),
            ((10,), [["slice", [sl(3, 3)]]]),
        ]

    def sec_views(self):
        """Elementwise ops on strided, reversed, broadcast, indexed and new-axis views."""
        for shp, views in self.view_bases():
            for d in ["float32", "int32", "float64", "float16", "bool", "complex64", "int64",
                      "uint32"]:
                base = self.rand(d, int(np.prod(shp)), -20, 20).reshape(shp)
                v = A(base, views)
                out_shape = v.value().shape
                other = self.rand(d, int(np.prod(out_shape)), -20, 20).reshape(out_shape)
                self.ufunc("views", "view", [v], kind="view")
                self.ufunc("views", "negative", [v])
                self.ufunc("views", "add", [v, A(other)])
                self.ufunc("views", "multiply", [A(other), v])
                if d in ("float32", "int32"):
                    self.ufunc("views", "sin", [v])
                    self.ufunc("views", "subtract", [v, v])
                    self.ufunc("views", "where", [A(other > 0), v, S(7)])
                    self.ufunc("views", "astype", [v], kind="astype",
                               params={"dtype": "float64" if d == "int32" else "int32"})
                    self.ufunc("views", "clip", [v, S(-3), A(other)])
        # view pairs: a transposed operand against a reversed one
        x = self.rand("float32", 35, -5, 5).reshape(5, 7)
        y = self.rand("float32", 35, -5, 5).reshape(7, 5)
        self.ufunc("views", "add", [A(x, [["transpose", None]]),
                                    A(y, [["slice", [sl(step=-1), sl(step=-1)]]])])
        self.ufunc("views", "hypot", [A(x, [["slice", [sl(step=2)]]]),
                                      A(y, [["transpose", None], ["slice", [sl(1, None, 2)]]])])

    def sec_clip_where_round(self):
        for d in DTYPES:
            x = np.concatenate([self.edge(d), self.rand(d, 30, -20, 20)])
            lo = self.rand(d, len(x), -10, 0)
            hi = self.rand(d, len(x), 0, 10)
            self.ufunc("clip", "clip", [A(x), A(lo), A(hi)])
            self.ufunc("clip", "clip", [A(x), S(-3), S(5)])
            self.ufunc("clip", "clip", [A(x), S(-2.5), S(4.5)])
            self.ufunc("clip", "clip", [A(x), S(5), S(-3)], note="lo > hi gives hi")
        for da in DTYPES:
            for db in DTYPES:
                a = np.concatenate([self.edge(da), self.rand(da, 10)])
                b = self.rand(db, len(a), -50, 50)
                c = self.rand("bool", len(a))
                self.ufunc("where", "where", [A(c), A(a), A(b)], value_args=[1, 2])
        for d in DTYPES:
            a = np.concatenate([self.edge(d), self.rand(d, 10)])
            c = np.concatenate([self.edge(d)[::-1], self.rand(d, 10)])
            self.ufunc("where", "where", [A(c), A(a), S(0)], value_args=[1, 2],
                       note="non-bool condition: truthiness (NaN is true)")
            self.ufunc("where", "where", [A(c > c[0] if d != "complex64" else c != 0),
                                          S(1.5), A(a)], value_args=[1, 2])
        c = self.rand("bool", 12).reshape(3, 4)
        self.ufunc("where", "where", [A(c), S(1), S(2.5)], value_args=[1, 2])
        self.ufunc("where", "where", [A(c), S(1), S(2)], value_args=[1, 2])
        self.ufunc("where", "where", [S(True), A(self.rand("int32", 4)), S(-1)],
                   value_args=[1, 2])
        for d in FLOATS:
            x = np.concatenate([self.edge(d), self.rand(d, 40, -1000, 1000),
                                np.array([2.675, 0.125, 0.375, -0.625, 1.005, 12345.678, 15.5,
                                          -25.0, 250.0, 0.05], dtype=d)])
            for dec in [-3, -1, 0, 1, 2, 5]:
                self.ufunc("round", "round", [A(x)], params={"decimals": dec}, kind="round")
        for d in INTS:
            x = np.concatenate([np.array([0, 15, 25, -15, -25, 14, 16, 123456789, 7, 50, 150,
                                          -150, 99995], dtype=np.int64),
                                self.rng.integers(-10 ** 6, 10 ** 6, 20)])
            if d == "uint32":
                x = np.abs(x)
            x = x.astype(d)
            for dec in [-3, -1, 0, 2]:
                self.ufunc("round", "round", [A(x)], params={"decimals": dec}, kind="round")

    def astype_input(self, src, dst):
        """Values whose conversion NumPy defines (no NaN/inf/out-of-range float -> int)."""
        s, t = np.dtype(src), np.dtype(dst)
        if s.kind in "fc" and t.kind in "iu":
            lo, hi = (np.iinfo(t).min, np.iinfo(t).max)
            frac = [0.0, -0.0, 0.5, -0.5, 0.99, -0.99, 1.5, -2.7, 2.7, 100.25, 3.0]
            extra = {"float16": [65504.0, 2048.0, 0.0001], "float32": [16777216.0, 2e9, 1e-40],
                     "float64": [2147483647.75, 4e9, 9e18, 5e-324],
                     "complex64": [16777216.0, 2e9, 1e-40],
                     "complex128": [2147483647.75, 4e9, 9e18, 5e-324]}[src]
            v = [x for x in frac + extra + [-x for x in extra]
                 if lo <= math.trunc(x) <= hi and not (t == np.int64 and abs(x) >= 2 ** 63)]
            r = self.rand("float64", 30, max(lo, -6e4), min(hi, 6e4))
            arr = np.concatenate([np.array(v), r])
            if s.kind == "c":
                arr = arr + 1j * self.rand("float64", len(arr), -5, 5)
            arr = arr.astype(s)
            re = arr.real.astype(np.float64)
            keep = np.isfinite(re) & (np.trunc(re) >= lo) & (np.trunc(re) <= hi)
            if t == np.int64:
                keep &= np.abs(re) < 2.0 ** 63
            return arr[keep]
        base = np.concatenate([self.edge(s), self.rand(s, 30)])
        if s.kind in "iu" and t == np.float16:
            big = [v for v in [2049, 65504, 65519, 65520, 70000] if v <= np.iinfo(s).max]
            base = np.concatenate([base, np.array(big, dtype=s)])
        if s.kind == "f" and t.kind == "f":
            base = np.concatenate([base, self.rand(s, 30, 1e-12, 1e12, log=True),
                                   self.rand(s, 10, 1e-42, 1e-36, log=True)])
        if s.kind == "c":
            nan = float("nan")
            base = np.concatenate([base, np.array([complex(nan, 0), complex(0, nan),
                                                   complex(0, 0.5), complex(1e39, 0)], dtype=s)])
        return base

    def sec_astype(self):
        for src in DTYPES:
            for dst in DTYPES:
                x = self.astype_input(src, dst)
                note = "complex -> real keeps the real part" if src.startswith("complex") else None
                self.ufunc("astype", "astype", [A(x)], params={"dtype": dst}, kind="astype",
                           note=note)
        x = self.rand("float32", 60, -1e4, 1e4).reshape(3, 4, 5)
        for dst in ["int32", "float16", "float64", "bool"]:
            self.ufunc("astype", "astype", [A(x, [["transpose", [1, 2, 0]],
                                                  ["slice", [sl(step=-1)]]])],
                       params={"dtype": dst}, kind="astype")

    def sec_small_ints(self):
        """int8, uint8, int16 and uint16: every unary and binary function (NumPy's wrap-around),
        mixed with each other and the other dtypes, Python scalars, views, and casts both
        ways."""
        for op in UNARY:
            for d in SMALL_INTS:
                self.ufunc("small", op, [A(self.unary_input(op, d))])
        for op in BINARY:
            for d in SMALL_INTS:
                a, b = self.pair_inputs(op, d, d)
                self.ufunc("small", op, [A(a), A(b)])
        ops = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "power",
               "maximum", "equal", "less", "bitwise_or", "left_shift", "right_shift"]
        others = SMALL_INTS + ["bool", "int32", "uint32", "int64", "float16", "float32",
                               "float64", "complex64"]
        for op in ops:
            for da in SMALL_INTS:
                for db in others:
                    if da == db:
                        continue
                    a, b = self.pair_inputs(op, da, db)
                    self.ufunc("small", op, [A(a), A(b)])
                    self.ufunc("small", op, [A(b), A(a)])
        for op in ["add", "subtract", "multiply", "floor_divide", "maximum", "less",
                   "bitwise_and", "left_shift"]:
            for d in SMALL_INTS:
                x = np.concatenate([self.edge(d), self.rand(d, 20)])
                for s in [S(True), S(3), S(-2), S(2.5), S(300), S(1.5 - 2j)]:
                    if op == "left_shift" and s.v == -2:
                        continue
                    self.ufunc("small", op, [A(x), s])
                    self.ufunc("small", op, [s, A(x)])
        for d in SMALL_INTS:
            for other in DTYPES + SMALL_INTS:
                self.ufunc("small", "astype", [A(self.astype_input(d, other))],
                           params={"dtype": other}, kind="astype")
                if other != d:
                    self.ufunc("small", "astype", [A(self.astype_input(other, d))],
                               params={"dtype": d}, kind="astype")
            # views at odd offsets, reversed and strided
            base = self.rand(d, 60).reshape(3, 4, 5)
            for views in ([["slice", [sl(1, None, 2)]]], [["slice", [sl(step=-1), 1]]],
                          [["transpose", [2, 0, 1]], ["slice", [sl(1, None, 3)]]]):
                self.ufunc("small", "add", [A(base, views), S(7)])
                self.ufunc("small", "multiply", [A(base, views), A(base, views)])

    def sec_chains(self):
        """Several ops fused into one kernel: intermediates keep their NumPy dtypes."""
        progs = [
            [["multiply", 0, 1], ["add", "t0", 2]],
            [["sin", 0], ["multiply", "t0", 1], ["maximum", "t1", 2], ["negative", "t2"]],
            [["add", 0, 1], ["multiply", "t0", "t0"], ["subtract", "t1", 2],
             ["absolute", "t2"], ["add", "t3", 0]],
            [["greater", 0, 1], ["where", "t0", 0, 2], ["multiply", "t1", 1]],
            [["exp", 0], ["log", "t0"], ["add", "t1", 1]],
        ]
        for d in ["float16", "float32", "float64", "int32", "int64", "complex64", "complex128"]:
            for prog in progs:
                if d in ("int32", "int64") and any(s[0] in ("sin", "exp", "log") for s in prog):
                    continue
                if d.startswith("complex") and any(s[0] in ("sin", "exp", "log", "maximum",
                                                            "greater") for s in prog):
                    continue
                draws = [self.rand(d, 77, -3, 3) for _ in range(3)]
                if prog[0][0] == "exp":
                    # log(exp(x)) + 1 cancels near x = -1, where one ulp of x is many of the
                    # result: keep the first operand away from there (the draws stay the same,
                    # so later cases do not move).
                    x = draws[0]
                    draws[0] = np.where(np.abs(x + 1) < 0.25, x + 0.5, x).astype(x.dtype)
                args = [A(x) for x in draws]
                vals = [a.value() for a in args]
                temps = []
                for step in prog:
                    refs = [vals[r] if isinstance(r, int) else temps[int(r[1:])]
                            for r in step[1:]]
                    temps.append(np.asarray(NPF[step[0]](*refs)))
                r = temps[-1]
                e, tol = self.expect_value(r, "chain")
                case = {"kind": "chain", "op": "chain", "args": [self.arg_json(a) for a in args],
                        "params": {"program": prog}, "expect": e}
                if tol:
                    case["tol"] = tol
                self.emit(case, "chain")

    # ---------------------------------------------------------------- creation
    def creation(self, op, params, result, tol_op=None):
        if isinstance(result, list):
            files = [self.save(np.asarray(r), "e") for r in result]
            e = {"files": files, "dtype": str(result[0].dtype),
                 "shape": list(np.shape(result[0]))}
            tol = tol_for(tol_op or op, result[0].dtype)
        else:
            e, tol = self.expect_value(result, tol_op or op)
        case = {"kind": "creation", "op": op, "args": [], "params": params, "expect": e}
        if tol:
            case["tol"] = tol
        self.emit(case, "creation")

    def sec_creation(self):
        def sc(v):
            return S(v).json()

        for start, stop, step, dt in [(0, 10, 1, None), (-5, 17, 3, None), (10, 0, -1, None),
                                      (10, -7, -4, None), (0, 0, 1, None), (5, 0, 1, None),
                                      (0.0, 1.0, 0.1, None), (1.5, -2.25, -0.25, None),
                                      (0, 10, 1, "float32"), (0.0, 3.3, 0.3, "float32"),
                                      (-1.0, 1.0, 0.125, "float16"), (0, 100, 7, "int32"),
                                      (3, -9, -2, "int32"), (0, 50, 3, "uint32"),
                                      (0.5, 10.0, 1.0, "int32"), (0, 1e6, 1.5, "float64"),
                                      (0, 2, 1, "bool"), (2 ** 40, 2 ** 40 + 20, 3, None)]:
            r = np.arange(start, stop, step, dtype=dt)
            self.creation("arange", {"start": sc(start), "stop": sc(stop), "step": sc(step),
                                     "dtype": dt}, r)
        for start, stop, num, endpoint, dt in [(0.0, 1.0, 5, True, None), (0.0, 1.0, 5, False, None),
                                               (-3.0, 7.0, 0, True, None), (2.0, 5.0, 1, True, None),
                                               (2.0, 5.0, 1, False, None),
                                               (1.0, -1.0, 101, True, "float32"),
                                               (0.0, 10.0, 7, False, "float32"),
                                               (-1e10, 1e10, 33, True, None),
                                               (0.0, 1.0, 11, True, "float16"),
                                               (0.0, 100.0, 9, True, "int32"),
                                               (-10.0, 10.0, 7, True, "int32"),
                                               (5.0, 5.0, 4, True, None)]:
            r = np.linspace(start, stop, num, endpoint=endpoint, dtype=dt)
            self.creation("linspace", {"start": jf(start), "stop": jf(stop), "num": num,
                                       "endpoint": endpoint, "dtype": dt}, r)
        for n, m, k, dt in [(3, None, 0, None), (4, 6, 1, "int32"), (4, 6, -2, "float32"),
                            (5, 3, -1, "bool"), (3, 3, 5, None), (3, 4, -4, "float16"),
                            (1, None, 0, "int64"), (0, None, 0, None), (4, 2, 1, "complex64"),
                            (6, 6, -5, "uint32")]:
            r = np.eye(n, m, k, dtype=dt)
            self.creation("eye", {"n": n, "m": m, "k": k, "dtype": dt}, r)
        for n, dt in [(4, None), (1, "int32"), (0, "float32"), (7, "bool")]:
            self.creation("identity", {"n": n, "dtype": dt}, np.identity(n, dtype=dt))
        for shape, dt in [((), None), ((3,), "int32"), ((2, 0), "float32"), ((2, 3, 4), "bool"),
                          ((5, 1), "complex64"), ((3, 2), "float16"), ((4,), "uint32")]:
            self.creation("zeros", {"shape": list(shape), "dtype": dt}, np.zeros(shape, dtype=dt))
            self.creation("ones", {"shape": list(shape), "dtype": dt}, np.ones(shape, dtype=dt))
        for shape, v, dt in [((2, 3), 7, None), ((4,), 2.5, None), ((3,), True, None),
                             ((2, 2), 2.5, "int32"), ((3,), -1, "uint32"), ((2,), 1e10, "float16"),
                             ((5,), -0.0, "float32"), ((), 3, "float64"), ((2,), 1.5 + 2j, "complex64"),
                             ((3,), float("nan"), "float32"), ((2, 2), 5, "bool")]:
            try:
                with np.errstate(all="ignore"):
                    r = np.full(shape, v, dtype=dt)
            except OverflowError as e:
                self.emit({"kind": "creation", "op": "full", "args": [],
                           "params": {"shape": list(shape), "value": sc(v), "dtype": dt},
                           "expect": {"error": "InvalidArgument", "numpy": str(e)}}, "creation")
                continue
            self.creation("full", {"shape": list(shape), "value": sc(v), "dtype": dt}, r)
        for lens, dt, indexing in [((3, 4), "float32", "xy"), ((3, 4), "float32", "ij"),
                                   ((2, 3, 4), "int32", "xy"), ((2, 3, 4), "int64", "ij"),
                                   ((5,), "float64", "xy"), ((1, 0), "float32", "ij")]:
            xs = [self.rand(dt, n, -9, 9) for n in lens]
            rs = np.meshgrid(*xs, indexing=indexing)
            inputs = [self.save(x, "i") for x in xs]
            e = {"files": [self.save(np.asarray(r), "e") for r in rs], "dtype": dt,
                 "shape": list(rs[0].shape)}
            self.emit({"kind": "creation", "op": "meshgrid",
                       "args": [{"a": f, "shape": [len(x)], "v": []} for f, x in zip(inputs, xs)],
                       "params": {"indexing": indexing}, "expect": e}, "creation")

    # ---------------------------------------------------------------- views
    def sec_view_ops(self):
        """View functions on their own: values after reshape/transpose/... on the GPU."""
        a24 = self.rand("int32", 24, -99, 99)
        f60 = self.rand("float32", 60)
        cases = [
            (a24, [["reshape", [2, 3, 4]]]),
            (a24, [["reshape", [4, -1]]]),
            (a24, [["reshape", [-1]]]),
            (a24, [["reshape", [2, 3, 4]], ["transpose", None], ["reshape", [4, 6]]]),  # copy
            (a24, [["reshape", [4, 6]], ["slice", [sl(step=2)]], ["reshape", [-1]]]),
            (a24, [["reshape", [4, 6]], ["slice", [sl(), sl(step=-1)]], ["reshape", [2, 12]]]),
            (a24, [["reshape", [2, 3, 4]], ["transpose", [1, 0, 2]]]),
            (a24, [["reshape", [2, 3, 4]], ["transpose", [-1, 0, 1]]]),
            (a24, [["reshape", [1, 2, 1, 12, 1]], ["squeeze", None]]),
            (a24, [["reshape", [1, 2, 1, 12, 1]], ["squeeze", [0, -1]]]),
            (a24, [["reshape", [4, 6]], ["expand_dims", 1]]),
            (a24, [["reshape", [4, 6]], ["expand_dims", -1]]),
            (a24, [["reshape", [4, 6]], ["transpose", None], ["ravel"]]),
            (a24, [["reshape", [4, 6]], ["ravel"]]),
            (a24, [["reshape", [4, 6]], ["slice", [sl(step=-1)]], ["flatten"]]),
            (a24, [["reshape", [4, 6]], ["flatten"]]),
            (a24, [["slice", [sl(2, 3)]], ["broadcast_to", [5, 1]]]),
            (a24, [["reshape", [4, 1, 6]], ["broadcast_to", [2, 4, 3, 6]]]),
            (a24, [["slice", [sl(None, None, -5)]]]),
            (a24, [["slice", [sl(-3, None)]]]),
            (a24, [["slice", [sl(100, 200)]]]),
            (a24, [["slice", [sl(-100, 5, 2)]]]),
            (a24, [["slice", [sl(20, 2, -3)]]]),
            (a24, [["reshape", [2, 3, 4]], ["slice", ["...", 1]]]),
            (a24, [["reshape", [2, 3, 4]], ["slice", [1, "..."]]]),
            (a24, [["reshape", [2, 3, 4]], ["slice", ["newaxis", "...", "newaxis", sl(step=-2)]]]),
            (a24, [["reshape", [2, 3, 4]], ["slice", [-1, -1, -1]]]),
            (a24, [["reshape", [2, 3, 4]], ["swapaxes", 0, -1]]),
            (f60, [["reshape", [3, 4, 5]], ["slice", [sl(step=-1), sl(1, None, 2), "..."]],
                   ["transpose", [2, 0, 1]], ["reshape", [-1, 2]]]),
            (f60, [["reshape", [5, 12]], ["slice", [sl(1, 4), sl(2, 11, 4)]],
                   ["expand_dims", 0], ["broadcast_to", [3, 3, 3]], ["transpose", None]]),
            (self.rand("float32", 1), [["reshape", []], ["expand_dims", 0],
                                       ["broadcast_to", [4]]]),
            (self.rand("float64", 1), [["reshape", []], ["slice", ["newaxis", "newaxis"]]]),
            (self.rand("float64", 1), [["reshape", []], ["slice", ["..."]]]),
        ]
        for base, views in cases:
            self.ufunc("viewops", "view", [A(base, views)], kind="view")
        # errors: bad reshape, bad axes, indices out of range
        errs = [
            (a24, [["reshape", [5, -1]]], "InvalidArgument"),
            (a24, [["reshape", [-1, -1]]], "InvalidArgument"),
            (a24, [["reshape", [7]]], "InvalidArgument"),
            (a24, [["reshape", [4, 6]], ["transpose", [0, 0]]], "InvalidArgument"),
            (a24, [["reshape", [4, 6]], ["transpose", [0, 2]]], "InvalidArgument"),
            (a24, [["reshape", [4, 6]], ["transpose", [0]]], "InvalidArgument"),
            (a24, [["reshape", [4, 6]], ["squeeze", [0]]], "InvalidArgument"),
            (a24, [["reshape", [4, 6]], ["squeeze", [5]]], "InvalidArgument"),
            (a24, [["reshape", [4, 6]], ["expand_dims", 3]], "InvalidArgument"),
            (a24, [["reshape", [4, 6]], ["expand_dims", -4]], "InvalidArgument"),
            (a24, [["slice", [24]]], "InvalidArgument"),
            (a24, [["slice", [-25]]], "InvalidArgument"),
            (a24, [["slice", [0, 0]]], "InvalidArgument"),
            (a24, [["slice", [sl(step=0)]]], "InvalidArgument"),
            (a24, [["slice", ["...", "..."]]], "InvalidArgument"),
            (a24, [["reshape", [4, 6]], ["swapaxes", 0, 2]], "InvalidArgument"),
            (a24, [["broadcast_to", [2, 12]]], "ShapeMismatch|InvalidArgument"),
            (a24, [["reshape", [4, 6]], ["broadcast_to", [6]]], "ShapeMismatch|InvalidArgument"),
        ]
        for base, views, err in errs:
            try:
                apply_views(base, views)
                raise AssertionError(f"NumPy accepted {views}")
            except (ValueError, IndexError, TypeError) as e:
                msg = f"{type(e).__name__}: {e}"
            self.emit({"kind": "view", "op": "view",
                       "args": [{"a": self.save(base, "i"), "shape": list(base.shape), "v": views}],
                       "params": {},
                       "expect": {"error": err, "numpy": msg}}, "viewerr")

    def sec_errors(self):
        """Errors NumPy raises that kupfer must return (never panic)."""
        f = self.rand("float32", 8)
        c = self.rand("complex64", 8)
        b = self.rand("bool", 8)
        d = self.rand("float64", 8)
        i64 = self.rand("int64", 8)
        u = self.rand("uint32", 8)
        for op, args in [("negative", [A(b)]), ("subtract", [A(b), A(b)]),
                         ("bitwise_and", [A(f), A(f)]), ("invert", [A(f)]),
                         ("left_shift", [A(f), S(1)]), ("bitwise_or", [A(d), A(i64)]),
                         ("add", [A(c), A(d)]), ("multiply", [A(c), A(i64)]),
                         ("add", [A(d), S(1j)]), ("floor_divide", [A(c), A(c)]),
                         ("remainder", [A(c), S(2)]), ("arctan2", [A(c), A(f)]),
                         ("floor", [A(c)]), ("add", [A(u), S(-1)]),
                         ("add", [A(self.rand("int32", 8)), S(2 ** 40)]),
                         ("equal", [A(u), S(2 ** 33)]), ("sign", [A(b)]),
                         ("positive", [A(b)]), ("where", [A(b), A(c), A(d)])]:
            self.ufunc("errors", op, args, value_args=[1, 2] if op == "where" else None)

    # ---------------------------------------------------------------- main
    def run(self):
        self.sec_unary()
        self.sec_binary_same()
        self.sec_binary_mixed()
        self.sec_scalars()
        self.sec_shapes()
        self.sec_views()
        self.sec_clip_where_round()
        self.sec_astype()
        self.sec_small_ints()
        self.sec_chains()
        self.sec_creation()
        self.sec_view_ops()
        self.sec_errors()
        with open(os.path.join(self.out, "manifest.jsonl"), "w") as fh:
            for c in self.cases:
                fh.write(json.dumps(c, allow_nan=False) + "\n")
        summary = ", ".join(f"{k} {v}" for k, v in self.counts.items())
        print(f"gen.py: NumPy {np.__version__}, {len(self.cases)} cases ({summary}), "
              f"{self.nfile} files in {self.out}")


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: gen.py OUTDIR UNARY BINARY TRANSCENDENTAL (comma-separated NumPy names; "
                 "tests/goldens.rs passes kupfer-core's op table)")
    out = sys.argv[1]
    UNARY.extend(sys.argv[2].split(","))
    BINARY.extend(sys.argv[3].split(","))
    TRANSCENDENTAL.update(sys.argv[4].split(","))
    NPF.update({name: getattr(np, name) for name in BINARY + UNARY})
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(out):
        if name.endswith(".npy") or name == "manifest.jsonl":
            os.remove(os.path.join(out, name))
    Gen(out).run()


if __name__ == "__main__":
    main()
