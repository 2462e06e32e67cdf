"""The rightmost layer edge r of an L-layer normal ziggurat (of f(x) = exp(-x^2/2)) in mpmath.

kupfer_core::random::ziggurat takes r as an exact float64 constant (NORMAL32_R, NORMAL32_R_8192,
NORMAL32_R_4096) and builds the tables from it at run time in float64; this script is how those
constants were found. The common area is v = r f(r) + integral_r^inf f (the tail by erfc);
x_1 = r, x_{i+1} = f^-1(v / x_i + f(x_i)); r is the root of the closing condition
v / x_{L-1} + f(x_{L-1}) - 1 = 0 (the top layer's area is v too). The residual is positive
below the root (the recursion runs out of layers early: then 1 is added per missing layer)
and negative above; the root is bracketed and found by bisection mixed with a halving regula
falsi, to about 10^-(dps - 15).

Usage: python3 tools/ziggurat_r.py L [dps] lo hi
  python3 tools/ziggurat_r.py 16384 60 4.5 5.2   -> r 4.70514972920724869367637157278
  python3 tools/ziggurat_r.py 8192 60 4.4 5.0    -> r 4.54860060994913897333394074355
  python3 tools/ziggurat_r.py 4096 60 4.3 4.5    -> r 4.38594503487130485913330351918
(16384 at 45 digits gives the same 30 digits.) Prints r, the float64 nearest it (repr), v,
x_0 and the one-sided tail mass beyond r of the standard normal.
"""
import sys

import mpmath as mp

mp.mp.dps = int(sys.argv[2]) if len(sys.argv) > 2 else 60
L = int(sys.argv[1])
f = lambda x: mp.exp(-x*x/2)
def tailmass(r):  # integral_r^inf exp(-x^2/2) dx
    return mp.sqrt(mp.pi/2)*mp.erfc(r/mp.sqrt(2))
def resid(r):
    v = r*f(r) + tailmass(r)
    x = r
    for i in range(1, L-1):
        a = v/x + f(x)
        if a >= 1:
            return a - 1 + (L - 1 - i)  # r too small: recursion ran out early (positive)
        x = mp.sqrt(-2*mp.log(a))
    return v/x + f(x) - 1
# bracket then secant/bisection mix (anderson via findroot 'anderson' needs bracket)
lo, hi = mp.mpf(sys.argv[3]), mp.mpf(sys.argv[4])
rl, rh = resid(lo), resid(hi)
assert rl > 0 and rh < 0, (rl, rh)
# bisection until the residual is tiny and monotone, then secant (illinois)
for it in range(400):
    if rl < 1 and -rh < 1:  # both in the smooth regime: illinois regula falsi
        m = hi - rh*(hi-lo)/(rh-rl)
    else:
        m = (lo+hi)/2
    rm = resid(m)
    if rm > 0:
        lo, rl = m, rm
        rh /= 2 if rl < 1 else 1
    else:
        hi, rh = m, rm
        rl /= 2 if rh > -1 else 1
    if hi - lo < mp.mpf(10)**(-(mp.mp.dps-15)):
        break
r = (lo+hi)/2
v = r*f(r) + tailmass(r)
print("L", L, "iters", it)
print("r", mp.nstr(r, 30))
print("r float64 repr", repr(float(r)))
print("v", mp.nstr(v, 25), "x0", mp.nstr(v/f(r), 25))
print("tail mass (one-sided, /sqrt(2pi))", mp.nstr(tailmass(r)/mp.sqrt(2*mp.pi), 25))
