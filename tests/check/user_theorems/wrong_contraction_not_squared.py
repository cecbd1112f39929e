"""Strongly convex noisy GD whose noise variance sums c^k instead of c^(2k) (the contraction (1 - eta m) used
where (1 - eta m)^2 belongs): Delta/(n sigma) sqrt((1 - c^T)/(1 - c)); the exact value is
Delta/(n sigma) sqrt((1 + c)/(1 - c) (1 - c^T)/(1 + c^T)).

Unsound for T >= 2: quadratic with m = M = 1, eta = 0.5 (c = 0.5), T = 2, n = Delta = sigma = 1: exact
sqrt(3 * 0.75/1.25) = 1.34164, bound sqrt(0.75/0.5) = 1.22474.
"""
import sympy as sp

from verify.theorem import Assumption, Setting, Source, Theorem, contraction, sym

c = contraction()
SRC = Source("self-test", "contraction not squared in the noise variance")

NOT_SQUARED = Theorem(
    id="user/strongly-convex-not-squared", title="strongly convex bound with sum c^k for sum c^(2k)", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="full", loss="strongly_convex"),
    bound=sym.Delta / (sym.n * sym.sigma) * sp.sqrt((1 - c**sym.T) / (1 - c)),
    assumptions=(Assumption(sym.m > 0), Assumption(sym.m <= sym.M), Assumption(sym.eta < 2 / sym.M)))
