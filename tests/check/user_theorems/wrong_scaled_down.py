import sympy as sp

from verify.theorem import Assumption, Setting, Source, Theorem, contraction, sym

c = contraction()
SRC = Source("self-test", "deliberately wrong variant of a proved bound")

SCALED = Theorem(
    id="user/gd-composition-95", title="composition scaled down by 5%", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="full", loss="any"),
    bound=sp.Rational(95, 100) * sp.sqrt(sym.T) * sym.Delta / (sym.n * sym.sigma))
