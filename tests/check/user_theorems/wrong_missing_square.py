import sympy as sp

from verify.theorem import Assumption, Setting, Source, Theorem, contraction, sym

c = contraction()
SRC = Source("self-test", "deliberately wrong variant of a proved bound")

MISSING_SQUARE = Theorem(
    id="user/gd-rdp-sigma", title="RDP composition with sigma for sigma^2", source=SRC,
    notion="rdp", kind="upper", setting=Setting(batches="full", loss="any"),
    bound=sym.alpha * sym.T * sym.Delta**2 / (2 * sym.n**2 * sym.sigma))
