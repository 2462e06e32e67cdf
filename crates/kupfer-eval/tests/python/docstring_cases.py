"""The single-expression examples of NumPy's own docstrings: tests/eval_numpy.rs runs them
through kupfer eval and NumPy.

Usage: docstring_cases.py NAME,NAME,...

Prints `NAME<TAB>EXPRESSION` for every `>>> np....` line of the named functions' docstrings
that is one expression (no assignment, no continuation line) and that NumPy evaluates with
nothing but `np` defined.
"""

import re
import sys
import warnings

import numpy as np


def main():
    for name in sys.argv[1].split(","):
        f = getattr(np, name, None)
        if f is None or not f.__doc__:
            continue
        lines = f.__doc__.split("\n")
        for i, line in enumerate(lines):
            s = line.strip()
            if not s.startswith(">>> np."):
                continue
            expr = s[4:]
            if i + 1 < len(lines) and lines[i + 1].strip().startswith("..."):
                continue
            # an assignment (a `=` that is no comparison and no keyword argument)
            if "=" in re.sub(r"(==|<=|>=|!=|\w+=)", "", expr):
                continue
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    with np.errstate(all="ignore"):
                        eval(expr, {"np": np})
            except Exception:  # noqa: BLE001 - NumPy's own failures are not cases
                continue
            print(f"{name}\t{expr}")


if __name__ == "__main__":
    main()
