import sympy as sp

from verify.theorem import Assumption, Setting, Source, Theorem, contraction, sym

c = contraction()
SRC = Source("self-test", "deliberately wrong variant of a proved bound")

CYCLIC = Theorem(
    id="user/cyclic-composition", title="cyclic noisy GD, GDP composition (Bok et al. Thm 4.4)", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="cyclic", loss="any"),
    bound=sp.sqrt(sym.E) * sym.Delta / (sym.b * sym.sigma))
