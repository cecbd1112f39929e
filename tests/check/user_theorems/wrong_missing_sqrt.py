import sympy as sp

from verify.theorem import Assumption, Setting, Source, Theorem, contraction, sym

c = contraction()
SRC = Source("self-test", "deliberately wrong variant of a proved bound")

MISSING_SQRT = Theorem(
    id="user/constrained-no-sqrt", title="constrained bound without its square root", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="full", loss="convex", constraint="bounded"),
    bound=(3 * sym.Delta * sym.D / (sym.n * sym.eta)
           + (sym.Delta / sym.n) ** 2 * sp.ceiling(sym.D * sym.n / (sym.Delta * sym.eta))) / sym.sigma,
    assumptions=(Assumption(sym.eta <= 2 / sym.M),
                 Assumption(sym.T >= sp.ceiling(sym.D * sym.n / (sym.Delta * sym.eta)))))
