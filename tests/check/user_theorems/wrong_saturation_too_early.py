"""Strongly convex noisy GD whose GDP bound saturates too early: Delta/(n sigma) sqrt(min(T, 1/(1 - c)))
with c = max(|1 - eta m|, |1 - eta M|); the exact limit is sqrt((1 + c)/(1 - c)), about sqrt(2/(1 - c)).

Unsound for large T: quadratic loss with m = M = 1, eta = 0.1 (c = 0.9), T = 1000, n = Delta = sigma = 1:
exact mu = sqrt(19 (1 - 0.9^1000)/(1 + 0.9^1000)) = 4.35890 (Bok et al. Thm 4.2 is exact there), bound
sqrt(min(1000, 10)) = 3.16228.
"""
import sympy as sp

from verify.theorem import Assumption, Setting, Source, Theorem, contraction, sym

c = contraction()
SRC = Source("self-test", "saturation too early")

SATURATION = Theorem(
    id="user/strongly-convex-saturation-early", title="strongly convex bound saturating at T = 1/(1 - c)",
    source=SRC, notion="gdp", kind="upper", setting=Setting(batches="full", loss="strongly_convex"),
    bound=sym.Delta / (sym.n * sym.sigma) * sp.sqrt(sp.Min(sym.T, 1 / (1 - c))),
    assumptions=(Assumption(sym.m > 0), Assumption(sym.m <= sym.M), Assumption(sym.eta < 2 / sym.M)))
