"""Cyclic noisy GD bounded with the full-batch formula sqrt(T) Delta/(n sigma) (exact for the last iterate of
linear losses, where every step's noise accumulates, but not in general).

Unsound: quadratic loss M/2 theta^2 - x theta with eta M = 1 (every step forgets the past), l = 2 batches of
b = 1 (n = 2), E = 1 (T = 2), Delta = sigma = 1, the differing record in the last batch: the last iterate is
eta (x_last - Z), so exact mu = Delta/(b sigma) = 1, bound sqrt(2)/2 = 0.70711.
"""
import sympy as sp

from verify.theorem import Setting, Source, Theorem, sym

SRC = Source("self-test", "full-batch formula used for cyclic batches")

CYCLIC_FULL = Theorem(
    id="user/cyclic-full-batch-formula", title="cyclic noisy GD with sqrt(T) Delta/(n sigma)", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="cyclic", loss="any"),
    bound=sp.sqrt(sym.T) * sym.Delta / (sym.n * sym.sigma))
