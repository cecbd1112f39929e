import sympy as sp

from verify.theorem import Assumption, Setting, Source, Theorem, contraction, sym

c = contraction()
SRC = Source("self-test", "deliberately wrong variant of a proved bound")

N_SQUARED = Theorem(
    id="user/gd-composition-n2", title="composition with n^2 for n", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="full", loss="any"),
    bound=sp.sqrt(sym.T) * sym.Delta / (sym.n**2 * sym.sigma))
