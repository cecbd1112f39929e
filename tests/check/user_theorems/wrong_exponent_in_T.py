import sympy as sp

from verify.theorem import Assumption, Setting, Source, Theorem, contraction, sym

c = contraction()
SRC = Source("self-test", "deliberately wrong variant of a proved bound")

EXPONENT = Theorem(
    id="user/gd-composition-T14", title="composition with T^(1/4) for T^(1/2)", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="full", loss="any"),
    bound=sym.T ** sp.Rational(1, 4) * sym.Delta / (sym.n * sym.sigma))
