"""Adversarial RDP bounds for the Poisson-subsampled Gaussian (H7 review).  Exact values by mpmath at integer
orders: D_alpha = log(sum_k C(alpha, k) (1 - q)^(alpha - k) q^k exp((k^2 - k)/(2 z^2)))/(alpha - 1)
(Mironov et al. 2019, Sec. 3.3)."""
import sympy as sp

from verify.theorem import Assumption, Setting, Source, Theorem, sym

SRC = Source("self-test", "adversarial review H7")
POISSON = Setting(algorithm="gaussian_mechanism", batches="poisson", adjacency="any")
SMALL_Q = 2 * sym.alpha * sym.q**2 / sym.z**2

# The same without its bound on the noise: q = 0.1, z = 0.5, alpha = 2: exact log(1 + 0.01 (e^4 - 1)) = 0.428851,
# bound 0.16.
SMALL_Q_ANY_NOISE = Theorem(
    id="adv/poisson-small-q-any-noise", title="sampled Gaussian RDP 2 alpha q^2/z^2 at any noise", source=SRC,
    notion="rdp", kind="upper", setting=POISSON, bound=SMALL_Q,
    assumptions=(Assumption(sym.q <= sp.Rational(1, 5)), Assumption(sym.alpha <= 8)))

# The binomial expansion truncated after its q^2 term: q = 0.5, z = 1, alpha = 3: exact 0.696889, bound
# log(1 + 3 * 0.25 (e - 1))/2 = 0.413994.
TRUNCATED = Theorem(
    id="adv/poisson-truncated-expansion", title="sampled Gaussian RDP, second-order expansion", source=SRC,
    notion="rdp", kind="upper", setting=POISSON,
    bound=sp.log(1 + sym.alpha * (sym.alpha - 1) / 2 * sym.q**2 * (sp.exp(1 / sym.z**2) - 1)) / (sym.alpha - 1),
    assumptions=(Assumption(sym.q < 1),))

# The order-2 closed form 0.1% too small, for orders alpha <= 2 (tight only at alpha = 2): q = 0.5, z = 1,
# alpha = 2: exact log(1 + 0.25 (e - 1)) = 0.357374, bound 0.357017.
ORDER_2_SMALL = Theorem(
    id="adv/poisson-order-2-minus-0.1pct", title="sampled Gaussian order-2 closed form, 0.1% too small",
    source=SRC, notion="rdp", kind="upper", setting=POISSON,
    bound=sp.Rational(999, 1000) * sp.log(1 + sym.q**2 * (sp.exp(1 / sym.z**2) - 1)),
    assumptions=(Assumption(sym.alpha <= 2), Assumption(sym.q < 1)))
