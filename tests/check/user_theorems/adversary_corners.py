"""Adversarial bounds aimed at the edges of the engine's search (H7 review): shuffled batches, dimension,
saturation beyond the drawn T, DP-SGD's CLT, tiny delta, the Gaussian mechanism's noise multiplier."""
import sympy as sp

from verify.theorem import Assumption, Claim, Setting, Source, Theorem, sym

SRC = Source("self-test", "adversarial review H7")
R = sym.Delta / (sym.n * sym.sigma)
MU = sp.sqrt(sym.T) * R

# Bu et al.'s CLT approximation mu = q sqrt(T (e^(1/z^2) - 1)) stated as an upper bound: T = 1, q = 0.01, z = 0.5
# (b = 1, n = 100): bound 0.0731; the sampled Gaussian's delta at eps = 1 is about q Phi(2 - 3.576) = 5.7e-4,
# that of 0.0731-GDP below 1e-40.
CLT_AS_UPPER = Theorem(
    id="adv/dpsgd-clt-as-upper", title="DP-SGD, the CLT mu as an upper bound", source=SRC, notion="gdp",
    kind="upper", setting=Setting(algorithm="dp_sgd", batches="poisson", adjacency="add_remove", release="all"),
    bound=sym.q * sp.sqrt(sym.T * (sp.exp(1 / sym.z**2) - 1)))

# The Gaussian mechanism's mu read as 1/z^2 (variance for std): z = 2: exact mu = 1/z = 0.5, bound 0.25.
VARIANCE = Theorem(
    id="adv/gaussian-mechanism-variance", title="Gaussian mechanism, mu = 1/z^2", source=SRC, notion="gdp",
    kind="upper", setting=Setting(algorithm="gaussian_mechanism", adjacency="any", release="all"),
    bound=1 / sym.z**2)

# A lower bound above the composition upper bound, with its construction named: linear losses,
# n = T = Delta = sigma = 1: exact 1 < 1.1.
LOWER_WITH_WITNESS = Theorem(
    id="adv/lower-above-composition-witness", title="lower bound 1.1 sqrt(T) Delta/(n sigma) on linear losses",
    source=SRC, notion="gdp", kind="lower", setting=Setting(batches="full", loss="any"),
    bound=sp.Rational(11, 10) * MU, claims=(Claim("witness", value="linear_chain"),))

# A strongly convex lower bound sqrt(T) Delta/(n sigma) 'witnessed' by linear losses, which are not strongly
# convex: false for every m > 0 and T >= 2 (m = M = 1, eta = 0.5, T = 2, n = Delta = sigma = 1: every quadratic
# gives at most Bok et al. Thm 4.2's sqrt(1.8) = 1.34164 < sqrt(2)).  The construction lies outside the setting.
STRONG = (Assumption(sym.m > 0), Assumption(sym.m <= sym.M), Assumption(sym.eta < 2 / sym.M))
LOWER_OUTSIDE_SETTING = Theorem(
    id="adv/sc-lower-linear-witness", title="strongly convex lower bound witnessed by linear losses", source=SRC,
    notion="gdp", kind="lower", setting=Setting(batches="full", loss="strongly_convex"), bound=MU,
    assumptions=STRONG, claims=(Claim("witness", value="linear_chain"),))

# The same claimed exact on linear losses.
EXACT_OUTSIDE_SETTING = Theorem(
    id="adv/sc-exact-on-linear", title="strongly convex 'exact' value attained by linear losses", source=SRC,
    notion="gdp", kind="exact", setting=Setting(batches="full", loss="strongly_convex"), bound=MU,
    assumptions=STRONG, claims=(Claim("exact_on", value="linear_chain"),))
