"""GDP -> RDP with mu for mu^2: alpha mu/2 with mu = sqrt(T) Delta/(n sigma) (scale invariant, right at mu = 1,
conservative below: only large mu shows it).

Unsound: n = Delta = sigma = 1, T = 16 (mu = 4), alpha = 2: exact alpha mu^2/2 = 16, bound 2*4/2 = 4.
"""
import sympy as sp

from verify.theorem import Setting, Source, Theorem, sym

SRC = Source("self-test", "GDP -> RDP without the square")

MU_NOT_SQUARED = Theorem(
    id="user/gd-rdp-mu-not-squared", title="noisy GD RDP alpha mu/2", source=SRC,
    notion="rdp", kind="upper", setting=Setting(batches="full", loss="any"),
    bound=sym.alpha * sp.sqrt(sym.T) * sym.Delta / (2 * sym.n * sym.sigma))
