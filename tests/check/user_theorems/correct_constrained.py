import sympy as sp

from verify.theorem import Assumption, Setting, Source, Theorem, contraction, sym

c = contraction()
SRC = Source("self-test", "deliberately wrong variant of a proved bound")

CONSTRAINED = Theorem(
    id="user/constrained", title="constrained convex noisy GD (Bok et al. Thm 4.3)", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="full", loss="convex", constraint="bounded"),
    bound=sp.sqrt(3 * sym.Delta * sym.D / (sym.n * sym.eta)
                  + (sym.Delta / sym.n) ** 2 * sp.ceiling(sym.D * sym.n / (sym.Delta * sym.eta))) / sym.sigma,
    assumptions=(Assumption(sym.eta <= 2 / sym.M),
                 Assumption(sym.T >= sp.ceiling(sym.D * sym.n / (sym.Delta * sym.eta)))))
