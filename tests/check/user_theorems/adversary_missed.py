"""Wrong bounds the engine currently reports `verified` (H7 adversarial review, quick profile, seed 0).

Each is unsound on the instance its comment gives (exact values by closed forms or mpmath, independent of the
engine).  Each is wrong only where the soundness search does not look: outside the drawn ranges
(verify/check/domain.py: T <= T_MAX = 2000 with saturation corners beyond it dropped, E <= 40, d <= D_MAX = 4,
alpha <= 64, eps <= 10, 1e-10 <= delta <= 0.1; eta m > 1 almost never drawn), in a setting no exact family
reaches (shuffled batches on a loss that forgets the past; Poisson sampling under replace adjacency), between
the points of a free parameter's grid, or when a release-all theorem is compared with last-iterate references
(Setting.covers lets a theorem with release='all' cover last-iterate runs).  Kept out of
tests/check/test_adversary.py's verdict assertions on purpose (a test must not assert a wrong verdict); that test
asserts only their unsoundness.  `verify check` on this file should report every record `violated` once the
search reaches these regimes.
"""
import sympy as sp

from verify.theorem import Assumption, FreeParameter, Setting, Source, Theorem, contraction, sym

SRC = Source("self-test", "adversarial review H7: missed by the search")
R = sym.Delta / (sym.n * sym.sigma)
MU = sp.sqrt(sym.T) * R
FULL = Setting(batches="full", loss="any")
POISSON = Setting(algorithm="gaussian_mechanism", batches="poisson", adjacency="any")
SMALL_Q = 2 * sym.alpha * sym.q**2 / sym.z**2
c = contraction()

# Unsound only for T > 5000 (2/(1 + T/5000) < 1): linear loss (convex), n = Delta = sigma = 1, T = 10000:
# exact mu = sqrt(T) = 100, bound sqrt(20000/3) = 81.650.
LATE_SATURATION = Theorem(
    id="adv/convex-saturates-late", title="convex noisy GD saturating after 5000 steps", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="full", loss="convex"),
    bound=R * sp.sqrt(2 * sym.T / (1 + sym.T / 5000)))

# eps = 0 declared for delta >= 1/5 (the 'vacuous' range), the tail bound below: mu = 1, delta = 0.2: exact
# eps(0.2) = 0.653351 (delta(0) = 2 Phi(1/2) - 1 = 0.382925 > 0.2), bound 0.
VACUOUS_DELTA = Theorem(
    id="adv/eps-zero-above-delta-0.2", title="noisy GD, eps = 0 for delta >= 1/5", source=SRC,
    notion="eps_delta", kind="upper", setting=FULL,
    bound=sp.Piecewise((0, sym.delta >= sp.Rational(1, 5)),
                       (MU**2 / 2 + MU * sp.sqrt(2 * sp.log(1 / sym.delta)), True)))

# Altschuler-Talwar's small-q bound without its bound on the order: q = 0.1, z = 4, alpha = 80: exact 0.245998,
# bound 0.1 (at alpha = 64 it still holds: the first integer order that breaks it lies in (64, 80]).
SMALL_Q_ALL_ORDERS = Theorem(
    id="adv/poisson-small-q-all-orders", title="sampled Gaussian RDP 2 alpha q^2/z^2 at every order", source=SRC,
    notion="rdp", kind="upper", setting=POISSON, bound=SMALL_Q,
    assumptions=(Assumption(sym.q <= sp.Rational(1, 10)), Assumption(sym.z >= 4)))

# 'Amplification by shuffling' sqrt(E/l) Delta/(b sigma) = sqrt(T) Delta/(n sigma), exact for linear losses only.
# Quadratic 1/2 theta^2 - x theta (convex), eta = M = 1 (each step forgets the past), n = 2, b = 1, E = 1, sigma = 1,
# Delta = 10: the other record x = 5, the differing one 5 vs -5: the last iterate is N(5, 1) vs 1/2 N(-5, 1) +
# 1/2 N(5, 1); at eps = 40 its delta is 0.397899 (mpmath quadrature), that of mu = sqrt(50)-GDP 0.0124255.
SHUFFLE_UNCONSTRAINED = Theorem(
    id="adv/shuffle-amplification", title="shuffled noisy GD, sqrt(E/l) Delta/(b sigma)", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="shuffle", loss="convex"),
    bound=sp.sqrt(sym.E / sym.l) * sym.Delta / (sym.b * sym.sigma))

# The same claimed for any constraint set: the unconstrained instance above refutes it.
SHUFFLE_ANY_CONSTRAINT = Theorem(
    id="adv/shuffle-amplification-any-constraint", title="shuffled noisy GD, sqrt(E/l) Delta/(b sigma), any C",
    source=SRC, notion="gdp", kind="upper", setting=Setting(batches="shuffle", loss="convex", constraint="any"),
    bound=sp.sqrt(sym.E / sym.l) * sym.Delta / (sym.b * sym.sigma), assumptions=(Assumption(sym.eta <= 2 / sym.M),))

# 'The noise is d-dimensional': a discount sqrt(10/(d + 6)), harmless for d <= 4.  The worst case is 1-D whatever
# d: linear loss along one axis, d = 5, n = T = Delta = sigma = 1: exact mu = 1, bound sqrt(10/11) = 0.953463.
DIMENSION = Theorem(
    id="adv/gd-dimension-discount", title="noisy GD with a dimension discount", source=SRC, notion="gdp",
    kind="upper", setting=Setting(batches="full", loss="any"), bound=MU * sp.sqrt(10 / (sym.d + 6)))

# Saturation written with Min, beyond the drawn T: linear loss, n = Delta = sigma = 1, T = 5001: exact
# sqrt(5001) = 70.7178, bound sqrt(5000) = 70.7107.
MIN_SATURATION = Theorem(
    id="adv/convex-min-saturation-5000", title="convex noisy GD saturating at T = 5000 (Min)", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="full", loss="convex"),
    bound=R * sp.sqrt(sp.Min(sym.T, 5000)))

# Dwork-Roth calibration without its 1.25, for mu <= 1.3 (at mu = 1.3 it still holds at delta = 1e-12): linear
# loss, n = 10, T = 169, Delta = sigma = 1 (mu = 1.3), delta = 1e-13: exact eps(delta) of 1.3-GDP 10.063613 (mpmath
# root), bound 1.3 sqrt(2 log(1e13)) = 10.058608.
CALIBRATION = Theorem(
    id="adv/calibration-no-1.25", title="noisy GD, eps = mu sqrt(2 log(1/delta)) for mu <= 1.3", source=SRC,
    notion="eps_delta", kind="upper", setting=Setting(batches="full", loss="any"),
    bound=MU * sp.sqrt(2 * sp.log(1 / sym.delta)), assumptions=(Assumption(MU <= sp.Rational(13, 10)),))

# A last-iterate bound (Bok et al. Thm 4.2) claimed when every iterate is released: then the run is T adaptively
# composed Gaussian mechanisms with shift eta Delta/n and noise eta sigma, mu = sqrt(T) Delta/(n sigma) on a
# quadratic (each step's mean shift given the past is exactly eta Delta/n).  m = M = 1, eta = 0.5, T = 2,
# n = Delta = sigma = 1: exact sqrt(2) = 1.41421, bound sqrt(1.8) = 1.34164.
ALL_ITERATES = Theorem(
    id="adv/sc-all-iterates", title="strongly convex last-iterate bound claimed for every iterate", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="full", loss="strongly_convex", release="all"),
    bound=R * sp.sqrt((1 + c) / (1 - c) * (1 - c**sym.T) / (1 + c**sym.T)),
    assumptions=(Assumption(sym.m > 0), Assumption(sym.m <= sym.M), Assumption(sym.eta < 2 / sym.M)))

# delta(eps) = 0 declared beyond eps = 10 (1 below): mu = 10 (n = T = Delta = 1, sigma = 0.1), eps = 20: exact
# delta = Phi(3) - e^20 Phi(-7) = 0.997983, bound 0.
NOTHING_BEYOND_10 = Theorem(
    id="adv/fdp-zero-beyond-eps-10", title="noisy GD, delta(eps) = 0 for eps > 10", source=SRC, notion="fdp",
    kind="upper", setting=Setting(batches="full", loss="any"), bound=sp.Piecewise((0, sym.eps > 10), (1, True)))

# Cyclic composition saturating at E = 50 epochs: linear loss, l = 1 (b = n = 1), E = 51, Delta = sigma = 1:
# exact sqrt(51) = 7.14143, bound sqrt(50) = 7.07107.
EPOCH_SATURATION = Theorem(
    id="adv/cyclic-min-saturation-50-epochs", title="cyclic noisy GD saturating at E = 50 (Min)", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="cyclic", loss="any"),
    bound=sp.sqrt(sp.Min(sym.E, 50)) * sym.Delta / (sym.b * sym.sigma))

# 'For every gamma in (0, 1)' with a narrow dip at gamma = 1/2, between the points of the free parameter's grid
# (k/2049): at gamma = 1/2 the bound is half the composition value, so the statement is false on every linear
# instance (n = T = Delta = sigma = 1: exact mu = 1, bound at gamma = 1/2 is 0.5).
NARROW_DIP = Theorem(
    id="adv/free-parameter-narrow-dip", title="composition with a free parameter dipping between grid points",
    source=SRC, notion="gdp", kind="upper", setting=FULL,
    bound=MU * (1 - sp.exp(-((sym.gamma - sp.Rational(1, 2)) * 10**5) ** 2) / 2),
    free=(FreeParameter("gamma", 0, 1, open_lo=True, open_hi=True),))

# The add/remove bound alpha/(2 z^2) claimed for any adjacency.  Under replace the sampled record's clipped
# contribution goes from +Cclip to -Cclip: (1 - q) N(0, z^2) + q N(1, z^2) vs (1 - q) N(0, z^2) + q N(-1, z^2).
# q = 0.9, z = 1, alpha = 2: D_2 = 2.56851 (mpmath quadrature), bound 1.  The sampled-Gaussian families are
# add/remove only, so nothing under replace is compared.
UNSAMPLED_ANY_ADJACENCY = Theorem(
    id="adv/poisson-unsampled-rdp-any-adjacency", title="sampled Gaussian RDP alpha/(2 z^2), any adjacency",
    source=SRC, notion="rdp", kind="upper", setting=POISSON, bound=sym.alpha / (2 * sym.z**2))

# The saturating quadratic bound of adversary_more.py without its assumption eta m <= 1: when every curvature
# overshoots (a = 1 - eta m < 0) and T is odd, (1 - a^T)/(1 + a^T) > 1.  m = M = 1, eta = 1.5 (a = -1/2), T = 1,
# n = Delta = sigma = 1: one step is exactly Delta/(n sigma) = 1-GDP, bound sqrt(min(1, 1/3)) = 0.57735 (T = 3:
# exact sqrt(f(-1/2)) = sqrt(0.5625/1.3125) = 0.65465).  The search almost never draws eta m > 1 (m/M near 1 and
# eta M > 1 at once): no corner combines them.
A = 1 - sym.eta * sym.m
OVERSHOOT = Theorem(
    id="adv/quadratic-min-saturation-overshoot", title="quadratic noisy GD, R sqrt(min(T, (1 + a)/(1 - a))), any eta",
    source=SRC, notion="gdp", kind="upper", setting=Setting(batches="full", loss="quadratic"),
    bound=R * sp.sqrt(sp.Min(sym.T, (1 + A) / (1 - A))),
    assumptions=(Assumption(sym.m > 0), Assumption(sym.m <= sym.M), Assumption(sym.eta < 2 / sym.M)))
