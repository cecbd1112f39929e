import sympy as sp

from verify.theorem import Assumption, Setting, Source, Theorem, contraction, sym

c = contraction()
SRC = Source("self-test", "deliberately wrong variant of a proved bound")

GD_RDP = Theorem(
    id="user/gd-rdp", title="noisy GD, RDP composition of Gaussian mechanisms", source=SRC,
    notion="rdp", kind="upper", setting=Setting(batches="full", loss="any"),
    bound=sym.alpha * sym.T * sym.Delta**2 / (2 * sym.n**2 * sym.sigma**2))
