"""The NumPy oracle of tests/eval_indexing.rs: runs programs (statements separated by `;` or
newlines, the last one an expression) with NumPy itself.

Usage: program_oracle.py CASES_FILE OUT_DIR

CASES_FILE holds one program per line. For program i this writes OUT_DIR/out_i.npy (the
value of its last expression, as np.asarray stores it) or OUT_DIR/err_i.txt (the
exception's type and message). `cp.` and `cupy.` name NumPy too.
"""

import ast
import os
import sys
import warnings

import numpy as np


def run(program):
    tree = ast.parse(program)
    env = {"np": np, "numpy": np, "cp": np, "cupy": np}
    body = tree.body
    last = None
    if body and isinstance(body[-1], ast.Expr):
        last = ast.Expression(body[-1].value)
        body = body[:-1]
    exec(compile(ast.Module(body=body, type_ignores=[]), "<program>", "exec"), env)
    if last is None:
        return None
    return eval(compile(last, "<program>", "eval"), env)


def main():
    cases_file, out_dir = sys.argv[1], sys.argv[2]
    with open(cases_file, encoding="utf-8") as f:
        programs = [l for l in f.read().split("\n") if l.strip()]
    warnings.simplefilter("ignore")
    for i, p in enumerate(programs):
        try:
            with np.errstate(all="ignore"):
                r = run(p)
            np.save(os.path.join(out_dir, f"out_{i}.npy"), np.asarray(r))
        except Exception as e:  # noqa: BLE001 - every failure is reported to the test
            with open(os.path.join(out_dir, f"err_{i}.txt"), "w", encoding="utf-8") as f:
                f.write(f"{type(e).__name__}: {e}")


if __name__ == "__main__":
    main()
