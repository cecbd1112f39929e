import sympy as sp

from verify.theorem import Assumption, Setting, Source, Theorem, contraction, sym

c = contraction()
SRC = Source("self-test", "deliberately wrong variant of a proved bound")

SWAPPED = Theorem(
    id="user/strongly-convex-swapped", title="strongly convex bound with M where m belongs", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="full", loss="strongly_convex"),
    bound=sym.Delta / (sym.n * sym.sigma) * sp.sqrt((2 - sym.eta * sym.M) / (sym.eta * sym.M)
          * (1 - (1 - sym.eta * sym.M)**sym.T) / (1 + (1 - sym.eta * sym.M)**sym.T)),
    assumptions=(Assumption(sym.m > 0), Assumption(sym.m <= sym.M), Assumption(sym.eta <= 2 / (sym.M + sym.m))))
