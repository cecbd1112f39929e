"""Strongly convex noisy GD in RDP: alpha mu^2/2 with Bok et al. Thm 4.2's mu (a mu-GDP mechanism is
(alpha, alpha mu^2/2)-RDP)."""
import sympy as sp

from verify.theorem import Assumption, Setting, Source, Theorem, contraction, sym

c = contraction()
SRC = Source("self-test", "a correct bound that must never be flagged")

STRONGLY_CONVEX_RDP = Theorem(
    id="user/strongly-convex-rdp", title="strongly convex noisy GD, RDP", source=SRC,
    notion="rdp", kind="upper", setting=Setting(batches="full", loss="strongly_convex"),
    bound=sym.alpha / 2 * sym.Delta**2 / (sym.n * sym.sigma)**2 * (1 + c) / (1 - c) * (1 - c**sym.T) / (1 + c**sym.T),
    assumptions=(Assumption(sym.m > 0), Assumption(sym.m <= sym.M), Assumption(sym.eta < 2 / sym.M)))
