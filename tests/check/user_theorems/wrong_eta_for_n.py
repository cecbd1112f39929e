import sympy as sp

from verify.theorem import Assumption, Setting, Source, Theorem, contraction, sym

c = contraction()
SRC = Source("self-test", "deliberately wrong variant of a proved bound")

ETA_FOR_N = Theorem(
    id="user/gd-composition-eta", title="composition with eta where n belongs", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="full", loss="any"),
    bound=sp.sqrt(sym.T) * sym.Delta * sym.eta / (sym.n * sym.sigma))
