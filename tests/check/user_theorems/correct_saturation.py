"""Strongly convex noisy GD saturating at the right time: Delta/(n sigma) sqrt(min(T, 2/(1 - c))), valid since
mu^2 = (Delta/(n sigma))^2 (1 + c)/(1 - c) (1 - c^T)/(1 + c^T) is at most T (Delta/(n sigma))^2 (composition)
and at most (Delta/(n sigma))^2 (1 + c)/(1 - c) <= (Delta/(n sigma))^2 2/(1 - c)."""
import sympy as sp

from verify.theorem import Assumption, Setting, Source, Theorem, contraction, sym

c = contraction()
SRC = Source("self-test", "a correct bound that must never be flagged")

SATURATION = Theorem(
    id="user/strongly-convex-saturation", title="strongly convex bound saturating at T = 2/(1 - c)", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="full", loss="strongly_convex"),
    bound=sym.Delta / (sym.n * sym.sigma) * sp.sqrt(sp.Min(sym.T, 2 / (1 - c))),
    assumptions=(Assumption(sym.m > 0), Assumption(sym.m <= sym.M), Assumption(sym.eta < 2 / sym.M)))
