import sympy as sp

from verify.theorem import Assumption, Setting, Source, Theorem, contraction, sym

c = contraction()
SRC = Source("self-test", "deliberately wrong variant of a proved bound")

LINEAR_T = Theorem(
    id="user/gd-rdp-sqrtT", title="RDP composition growing like sqrt(T)", source=SRC,
    notion="rdp", kind="upper", setting=Setting(batches="full", loss="any"),
    bound=sym.alpha * sp.sqrt(sym.T) * sym.Delta**2 / (2 * sym.n**2 * sym.sigma**2))
