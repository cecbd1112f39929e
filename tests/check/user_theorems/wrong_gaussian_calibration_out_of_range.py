"""The classical Gaussian-mechanism calibration eps = mu sqrt(2 log(1.25/delta)) (Dwork-Roth Thm A.1) used
outside its range eps < 1, for noisy GD (mu = sqrt(T) Delta/(n sigma)).

Unsound at large mu: n = 1, T = 25, Delta = sigma = 1 (mu = 5), delta = 1e-5, linear loss: the exact
eps(delta) of 5-GDP is 33.1037 (mpmath root of delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)),
the bound 5 sqrt(2 log(125000)) = 24.2240.
"""
import sympy as sp

from verify.theorem import Setting, Source, Theorem, sym

SRC = Source("self-test", "conversion used outside its range")

CALIBRATION = Theorem(
    id="user/gd-eps-classical-calibration", title="noisy GD, Gaussian calibration used for eps > 1", source=SRC,
    notion="eps_delta", kind="upper", setting=Setting(batches="full", loss="any"),
    bound=sp.sqrt(sym.T) * sym.Delta / (sym.n * sym.sigma) * sp.sqrt(2 * sp.log(sp.Rational(5, 4) / sym.delta)))
