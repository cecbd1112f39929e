"""Noisy GD stated in the Lipschitz constant L under replace adjacency with sensitivity L (it is 2L: records
with gradients +L and -L): sqrt(T) L/(n sigma).

Unsound: linear losses +-L x, n = T = sigma = 1, L = 1 (gradient difference 2): exact mu = 2 sqrt(T) L/(n sigma)
= 2, bound 1.
"""
import sympy as sp

from verify.theorem import Setting, Source, Theorem, sym

SRC = Source("self-test", "sensitivity L for 2L under replace adjacency")

LIPSCHITZ = Theorem(
    id="user/gd-lipschitz-L", title="noisy GD with sensitivity L (replace adjacency)", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="full", loss="lipschitz", adjacency="replace"),
    bound=sp.sqrt(sym.T) * sym.L / (sym.n * sym.sigma))
