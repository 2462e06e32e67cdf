"""The NumPy oracle of tests/eval_numpy.rs: evaluates expressions with NumPy itself.

Usage: eval_oracle.py CASES_FILE OUT_DIR

CASES_FILE holds `NAME=PATH.npy` lines (the inputs), a `---` line, then one expression per
line. For expression i this writes OUT_DIR/out_i.npy (the result as np.asarray would store
it) or OUT_DIR/err_i.txt (the exception's type and message).
"""

import os
import sys
import warnings

import numpy as np
import scipy
import scipy.linalg
import scipy.signal


def main():
    cases_file, out_dir = sys.argv[1], sys.argv[2]
    with open(cases_file, encoding="utf-8") as f:
        lines = f.read().split("\n")
    sep = lines.index("---")
    # Bare names are NumPy's, as after `from numpy import *` (kupfer eval's convention).
    env = {name: getattr(np, name) for name in np.__all__ if hasattr(np, name)}
    env.update({"np": np, "numpy": np, "scipy": scipy, "signal": scipy.signal})
    for line in lines[:sep]:
        name, path = line.split("=", 1)
        env[name] = np.load(path)
    exprs = [l for l in lines[sep + 1 :] if l.strip()]
    warnings.simplefilter("ignore")
    for i, expr in enumerate(exprs):
        try:
            with np.errstate(all="ignore"):
                r = eval(expr, dict(env))
            np.save(os.path.join(out_dir, f"out_{i}.npy"), np.asarray(r))
        except Exception as e:  # noqa: BLE001 - every failure is reported to the test
            with open(os.path.join(out_dir, f"err_{i}.txt"), "w", encoding="utf-8") as f:
                f.write(f"{type(e).__name__}: {e}")


if __name__ == "__main__":
    main()
