"""Noisy GD with the neighbour's dataset size n + 1 in the denominator (an add/remove habit under replace
adjacency): sqrt(T) Delta/((n + 1) sigma).

Unsound: n = T = Delta = sigma = 1: exact mu = sqrt(T) Delta/(n sigma) = 1, bound 1/2.
"""
import sympy as sp

from verify.theorem import Setting, Source, Theorem, sym

SRC = Source("self-test", "n + 1 for n")

N_PLUS_ONE = Theorem(
    id="user/gd-composition-n-plus-one", title="noisy GD with n + 1 for n", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="full", loss="any"),
    bound=sp.sqrt(sym.T) * sym.Delta / ((sym.n + 1) * sym.sigma))
