import sympy as sp

from verify.theorem import Assumption, Setting, Source, Theorem, contraction, sym

c = contraction()
SRC = Source("self-test", "deliberately wrong variant of a proved bound")

GD_COMPOSITION = Theorem(
    id="user/gd-composition", title="noisy GD, GDP composition (Bok et al. Thm 4.1)", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="full", loss="any"),
    bound=sp.sqrt(sym.T) * sym.Delta / (sym.n * sym.sigma))
