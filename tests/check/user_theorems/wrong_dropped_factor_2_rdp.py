import sympy as sp

from verify.theorem import Assumption, Setting, Source, Theorem, contraction, sym

c = contraction()
SRC = Source("self-test", "deliberately wrong variant of a proved bound")

RDP_DROPPED_2 = Theorem(
    id="user/gd-rdp-quarter", title="RDP composition missing the factor 2 (4 in the denominator)", source=SRC,
    notion="rdp", kind="upper", setting=Setting(batches="full", loss="any"),
    bound=sym.alpha * sym.T * sym.Delta**2 / (4 * sym.n**2 * sym.sigma**2))
