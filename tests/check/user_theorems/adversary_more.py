"""Correct bounds that are tight somewhere the engine's search reaches (H7 review): none may be flagged."""
import sympy as sp

from verify.theorem import Assumption, Setting, Source, Theorem, sym

SRC = Source("self-test", "adversarial review H7: correct and tight")
R = sym.Delta / (sym.n * sym.sigma)
A = 1 - sym.eta * sym.m  # the persistence of the flattest direction

# Sampled Gaussian <= unsampled Gaussian at every order, under add/remove: Renyi divergence is jointly
# quasi-convex, so D_alpha((1 - q) N(0, z^2) + q N(1, z^2) || N(0, z^2)) <= D_alpha(N(1, z^2) || N(0, z^2)) =
# alpha/(2 z^2) (and the other direction alike); tight as q -> 1.  (Not under replace: adversary_missed.py.)
UNSAMPLED = Theorem(
    id="adv/poisson-unsampled-rdp", title="sampled Gaussian RDP <= alpha/(2 z^2)", source=SRC, notion="rdp",
    kind="upper", setting=Setting(algorithm="gaussian_mechanism", batches="poisson", adjacency="add_remove"),
    bound=sym.alpha / (2 * sym.z**2))

# Shuffled batches: for every fixed order the record enters E steps with sensitivity Delta/b (composition of
# E Gaussian mechanisms, the rest post-processing), and a mixture over orders is no less private (joint
# convexity); tight at l = 1 (full batches) on linear losses.
SHUFFLE = Theorem(
    id="adv/shuffle-composition", title="shuffled noisy GD, sqrt(E) Delta/(b sigma)", source=SRC, notion="gdp",
    kind="upper", setting=Setting(batches="shuffle", loss="any"),
    bound=sp.sqrt(sym.E) * sym.Delta / (sym.b * sym.sigma))

# Quadratics with eta m <= 1: mu^2/R^2 = f(a) = (sum_{k<T} a^k)^2 / sum_{k<T} a^2k at the worst persistence
# a = 1 - eta m >= 0, and f(a) <= min(T, (1 + a)/(1 - a)) (Cauchy-Schwarz; (1 - a^T)/(1 + a^T) <= 1 for a >= 0):
# tight as T -> 1 and as T -> oo.  (Without eta m <= 1 it is wrong: adversary_missed.py.)
SATURATING = Theorem(
    id="adv/quadratic-min-saturation", title="quadratic noisy GD, R sqrt(min(T, (2 - eta m)/(eta m)))", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="full", loss="quadratic"),
    bound=R * sp.sqrt(sp.Min(sym.T, (1 + A) / (1 - A))),
    assumptions=(Assumption(sym.m > 0), Assumption(sym.m <= sym.M), Assumption(sym.eta < 2 / sym.M),
                 Assumption(sym.eta * sym.m <= 1)))
