"""Noisy GD, GDP -> (eps, delta) through the Gaussian tail of the privacy loss: with mu = sqrt(T) Delta/(n sigma)
the loss is N(mu^2/2, mu^2) and delta(eps) <= P(loss > eps) <= exp(-(eps - mu^2/2)^2/(2 mu^2)), so
eps = mu^2/2 + mu sqrt(2 log(1/delta)) is valid (at mu = 1, delta = 1e-5: 5.29853 >= exact 4.37718)."""
import sympy as sp

from verify.theorem import Setting, Source, Theorem, sym

SRC = Source("self-test", "a correct bound that must never be flagged")
MU = sp.sqrt(sym.T) * sym.Delta / (sym.n * sym.sigma)

TAIL = Theorem(
    id="user/gd-eps-tail", title="noisy GD, eps = mu^2/2 + mu sqrt(2 log(1/delta))", source=SRC,
    notion="eps_delta", kind="upper", setting=Setting(batches="full", loss="any"),
    bound=MU**2 / 2 + MU * sp.sqrt(2 * sp.log(1 / sym.delta)))
