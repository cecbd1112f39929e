"""Adversarial (eps, delta) and f-DP readings of noisy GD's mu = sqrt(T) Delta/(n sigma) (H7 review).  Exact
values of mu-GDP by mpmath: delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2), eps(delta) its root."""
import sympy as sp

from verify.theorem import Assumption, Setting, Source, Theorem, sym

SRC = Source("self-test", "adversarial review H7")
MU = sp.sqrt(sym.T) * sym.Delta / (sym.n * sym.sigma)
FULL = Setting(batches="full", loss="any")

# The GDP parameter read as epsilon: mu = 1 (n = T = Delta = sigma = 1), delta = 1e-5: exact 4.37718, bound 1.
MU_AS_EPS = Theorem(
    id="adv/mu-read-as-eps", title="noisy GD, eps = mu", source=SRC, notion="eps_delta", kind="upper",
    setting=FULL, bound=MU)

# Gaussian tail with log10 for the natural log: mu = 1, delta = 1e-5: exact 4.37718, bound 1/2 + sqrt(10) = 3.66228.
LOG10 = Theorem(
    id="adv/tail-log10", title="noisy GD, eps = mu^2/2 + mu sqrt(2 log10(1/delta))", source=SRC,
    notion="eps_delta", kind="upper", setting=FULL, bound=MU**2 / 2 + MU * sp.sqrt(2 * sp.log(1 / sym.delta, 10)))

# Chernoff tail of the privacy loss used below its mean mu^2/2 (valid only for eps >= mu^2/2): mu = 2 (T = 4,
# n = Delta = sigma = 1), eps = 0: exact delta(0) = 2 Phi(1) - 1 = 0.682689, bound e^-1/2 = 0.606531.
CHERNOFF_BELOW_MEAN = Theorem(
    id="adv/fdp-chernoff-below-mean", title="noisy GD, delta(eps) = exp(-(eps - mu^2/2)^2/(2 mu^2))", source=SRC,
    notion="fdp", kind="upper", setting=FULL, bound=sp.exp(-(sym.eps - MU**2 / 2) ** 2 / (2 * MU**2)))

# RDP -> delta(eps) with alpha for alpha - 1 in the exponent, optimised over alpha (= exp(-eps^2/(2 mu^2))):
# mu = 2, eps = 8: exact delta = 4.95402e-4, bound e^-8 = 3.35463e-4.
CHERNOFF_CENTRE_ZERO = Theorem(
    id="adv/fdp-chernoff-centre-zero", title="noisy GD, delta(eps) = exp(-eps^2/(2 mu^2))", source=SRC,
    notion="fdp", kind="upper", setting=FULL, bound=sp.exp(-sym.eps**2 / (2 * MU**2)))

# --- correct but tight -----------------------------------------------------------------------------------
# delta(eps) <= Phi(mu/2 - eps/mu) (drop the second term) <= exp(-x^2/2)/2 at x = eps/mu - mu/2 >= 0, so
# eps = mu^2/2 + mu sqrt(2 log(1/(2 delta))) for delta <= 1/2: tight up to the Gaussian tail's polynomial factor.
HALF_TAIL = Theorem(
    id="adv/eps-half-tail", title="noisy GD, eps = mu^2/2 + mu sqrt(2 log(1/(2 delta)))", source=SRC,
    notion="eps_delta", kind="upper", setting=FULL,
    bound=MU**2 / 2 + MU * sp.sqrt(2 * sp.log(1 / (2 * sym.delta))),
    assumptions=(Assumption(sym.delta <= sp.Rational(1, 2)),))
