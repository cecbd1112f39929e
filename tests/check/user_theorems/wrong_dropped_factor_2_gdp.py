import sympy as sp

from verify.theorem import Assumption, Setting, Source, Theorem, contraction, sym

c = contraction()
SRC = Source("self-test", "deliberately wrong variant of a proved bound")

DROPPED_2 = Theorem(
    id="user/strongly-convex-half", title="strongly convex bound with a spurious factor 1/2", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="full", loss="strongly_convex"),
    bound=sym.Delta / (2 * sym.n * sym.sigma) * sp.sqrt((1 + c) / (1 - c) * (1 - c**sym.T) / (1 + c**sym.T)),
    assumptions=(Assumption(sym.m > 0), Assumption(sym.m <= sym.M), Assumption(sym.eta < 2 / sym.M)))
