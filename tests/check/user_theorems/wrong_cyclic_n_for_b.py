import sympy as sp

from verify.theorem import Assumption, Setting, Source, Theorem, contraction, sym

c = contraction()
SRC = Source("self-test", "deliberately wrong variant of a proved bound")

CYCLIC_N = Theorem(
    id="user/cyclic-composition-n", title="cyclic composition with n where b belongs", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="cyclic", loss="any"),
    bound=sp.sqrt(sym.E) * sym.Delta / (sym.n * sym.sigma))
