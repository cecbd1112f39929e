import sympy as sp

from verify.theorem import Assumption, Setting, Source, Theorem, contraction, sym

c = contraction()
SRC = Source("self-test", "deliberately wrong variant of a proved bound")

OFF_BY_ONE = Theorem(
    id="user/strongly-convex-off-by-one", title="strongly convex bound with T - 1 for T", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="full", loss="strongly_convex"),
    bound=sym.Delta / (sym.n * sym.sigma) * sp.sqrt((1 + c) / (1 - c) * (1 - c**(sym.T - 1)) / (1 + c**(sym.T - 1))),
    assumptions=(Assumption(sym.m > 0), Assumption(sym.m <= sym.M), Assumption(sym.eta < 2 / sym.M)))
