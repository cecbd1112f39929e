"""GDP -> (eps, delta) through the Gaussian tail of the privacy loss, centred at -mu^2/2 (its mean under the
other hypothesis) instead of +mu^2/2: eps = mu sqrt(2 log(1/delta)) - mu^2/2, for noisy GD
(mu = sqrt(T) Delta/(n sigma)).

Unsound: n = 1, T = 4, Delta = sigma = 1 (mu = 2), delta = 1e-5: exact eps(delta) of 2-GDP 9.99726 (mpmath root of
delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)), bound 2 sqrt(2 log(1e5)) - 2 = 7.59705.
"""
import sympy as sp

from verify.theorem import Setting, Source, Theorem, sym

SRC = Source("self-test", "GDP -> eps with the tail centred in the wrong place")
MU = sp.sqrt(sym.T) * sym.Delta / (sym.n * sym.sigma)

TAIL = Theorem(
    id="user/gd-eps-tail-wrong-centre", title="noisy GD, eps = mu sqrt(2 log(1/delta)) - mu^2/2", source=SRC,
    notion="eps_delta", kind="upper", setting=Setting(batches="full", loss="any"),
    bound=MU * sp.sqrt(2 * sp.log(1 / sym.delta)) - MU**2 / 2)
