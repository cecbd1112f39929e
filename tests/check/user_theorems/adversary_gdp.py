"""Adversarial GDP bounds on noisy GD (H7 review): wrong only in a corner, or by a small factor, plus two correct
but tight ones.  Each wrong record names its instance and the exact value (closed forms, independent of the
engine: linear losses give mu = sqrt(T) Delta/(n sigma), quadratics Bok et al. Thm 4.2's formula, any pair has
TV <= 2 Phi(mu/2) - 1)."""
import sympy as sp

from verify.theorem import Assumption, Claim, Setting, Source, Theorem, contraction, sym

SRC = Source("self-test", "adversarial review H7")
R = sym.Delta / (sym.n * sym.sigma)  # per-step mu of a full batch
c = contraction()
STRONG = (Assumption(sym.m > 0), Assumption(sym.m <= sym.M), Assumption(sym.eta < 2 / sym.M))
BOK42 = R * sp.sqrt((1 + c) / (1 - c) * (1 - c**sym.T) / (1 + c**sym.T))

# Unsound once sqrt(T) Delta/(n sigma) > 20: linear loss, n = Delta = 1, sigma = 1/30, T = 1: exact 30, bound 20.
CAPPED = Theorem(
    id="adv/gd-capped-mu", title="noisy GD with mu capped at 20 ('no privacy beyond')", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="full", loss="any"),
    bound=sp.Min(sp.sqrt(sym.T) * R, 20))

# Saturation at the condition number M/m instead of ~2/(eta m): quadratic m = M = 1, eta = 0.5 (c = 0.5), T = 2,
# n = Delta = sigma = 1: exact sqrt(1.5 * 0.75 / 1.25 / 0.5) = sqrt(1.8) = 1.34164, bound sqrt(min(2, 1)) = 1.
CONDITION_NUMBER = Theorem(
    id="adv/sc-condition-number", title="strongly convex noisy GD saturating at T = M/m", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="full", loss="strongly_convex"),
    bound=R * sp.sqrt(sp.Min(sym.T, sym.M / sym.m)), assumptions=STRONG)

# A lower bound (the one-step mu) stated as an upper bound: same instance, exact 1.34164 > bound 1.
ONE_STEP = Theorem(
    id="adv/sc-one-step", title="strongly convex noisy GD: the privacy loss of one step", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="full", loss="strongly_convex"),
    bound=R, assumptions=STRONG)

# Diameter only, without the last step's gradient: D small vs eta Delta/n.  Linear loss on [-D/2, D/2], start 0,
# n = T = eta = Delta = sigma = 1, D = 0.01: the outputs are (almost) the two end atoms with masses
# Phi(-1/2) = 0.3085 and Phi(1/2) = 0.6915, TV >= 0.38 so mu >= 2 Phi^-1(1.38/2) = 0.99; bound 0.01.
DIAMETER_ONLY = Theorem(
    id="adv/constrained-diameter-only", title="constrained convex noisy GD: mu <= D/(eta sigma)", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="full", loss="convex", constraint="bounded"),
    bound=sp.Min(sp.sqrt(sym.T) * R, sym.D / (sym.eta * sym.sigma)),
    assumptions=(Assumption(sym.eta <= 2 / sym.M),))

# Small factors: linear loss, n = T = Delta = sigma = 1: exact mu = 1 (Bok et al. Thm 4.1 is exact there).
ONE_PERCENT = Theorem(
    id="adv/gd-minus-1pct", title="composition 1% too small", source=SRC, notion="gdp", kind="upper",
    setting=Setting(batches="full", loss="any"), bound=sp.Rational(99, 100) * sp.sqrt(sym.T) * R)
TENTH_PERCENT = Theorem(
    id="adv/gd-minus-0.1pct", title="composition 0.1% too small", source=SRC, notion="gdp", kind="upper",
    setting=Setting(batches="full", loss="any"), bound=sp.Rational(999, 1000) * sp.sqrt(sym.T) * R)
HUNDREDTH_PERCENT = Theorem(
    id="adv/gd-minus-0.01pct", title="composition 0.01% too small", source=SRC, notion="gdp", kind="upper",
    setting=Setting(batches="full", loss="any"), bound=sp.Rational(9999, 10000) * sp.sqrt(sym.T) * R)
# quadratic m = M = 1, eta = 0.5, T = 2: exact sqrt(1.8) = 1.341641, bound 0.999 of it.
SC_TENTH_PERCENT = Theorem(
    id="adv/sc-minus-0.1pct", title="strongly convex bound 0.1% too small", source=SRC, notion="gdp",
    kind="upper", setting=Setting(batches="full", loss="strongly_convex"),
    bound=sp.Rational(999, 1000) * BOK42, assumptions=STRONG)

# Non-monotone in T, wrong at even T only: linear loss, n = Delta = sigma = 1, T = 2: exact sqrt(2) = 1.41421,
# bound sqrt(2) * 3/4 = 1.06066.
PARITY = Theorem(
    id="adv/gd-parity", title="composition with a parity term", source=SRC, notion="gdp", kind="upper",
    setting=Setting(batches="full", loss="any"),
    bound=sp.sqrt(sym.T) * R * (1 - (1 + (-1) ** sym.T) / (4 * sym.T)))

# Claimed for every batching, proved for full batches: cyclic, quadratic with eta M = 1 (each step forgets the
# past), n = 2, b = 1, E = 1 (T = 2), Delta = sigma = 1, the record in the last batch: exact mu = Delta/(b sigma)
# = 1, bound sqrt(2)/2 = 0.70711.
ANY_BATCHES = Theorem(
    id="adv/composition-any-batches", title="sqrt(T) Delta/(n sigma) claimed for any batches", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="any", loss="any"), bound=sp.sqrt(sym.T) * R)

# Sensitivity L claimed for both adjacencies: under replace it is 2L (linear losses +-L x, n = T = sigma = L = 1:
# exact mu = 2, bound 1).
ANY_ADJACENCY = Theorem(
    id="adv/lipschitz-any-adjacency", title="sqrt(T) L/(n sigma) claimed for any adjacency", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="full", loss="lipschitz", adjacency="any"),
    bound=sp.sqrt(sym.T) * sym.L / (sym.n * sym.sigma))

# A lower bound above the universal composition upper bound sqrt(T) Delta/(n sigma) (any instance, e.g. linear
# loss n = T = Delta = sigma = 1: exact 1 < 1.1).
LOWER_TOO_HIGH = Theorem(
    id="adv/lower-above-composition", title="lower bound 1.1 sqrt(T) Delta/(n sigma)", source=SRC,
    notion="gdp", kind="lower", setting=Setting(batches="full", loss="any"),
    bound=sp.Rational(11, 10) * sp.sqrt(sym.T) * R)

# Correct bound, false claim: its limit in T is R sqrt((1 + c)/(1 - c)), not R sqrt(1/(1 - c)).
FALSE_LIMIT = Theorem(
    id="adv/sc-false-limit", title="Bok et al. Thm 4.2 with a false limit claim", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="full", loss="strongly_convex"),
    bound=BOK42, assumptions=STRONG,
    claims=(Claim("limit", value=R * sp.sqrt(1 / (1 - c)), var="T", point=sp.oo),))

# The diameter of a constraint set in an unconstrained setting (D means nothing there, so every D > 0 is
# admissible): linear loss, n = T = eta = Delta = sigma = 1, D = 0.01: exact mu = 1, bound 0.01.
UNCONSTRAINED_D = Theorem(
    id="adv/unconstrained-uses-D", title="unconstrained noisy GD with a diameter", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="full", loss="any"),
    bound=sp.Min(sp.sqrt(sym.T) * R, sym.D / (sym.eta * sym.sigma)))

# Composition claimed exact for every loss: on a quadratic m = M = 1, eta = 1, T = 2, n = Delta = sigma = 1 the last
# iterate forgets the first step, exact mu = 1, 'exact' value sqrt(2).
EXACT_CLAIM = Theorem(
    id="adv/composition-claimed-exact", title="sqrt(T) Delta/(n sigma) claimed exact for any loss", source=SRC,
    notion="gdp", kind="exact", setting=Setting(batches="full", loss="any"), bound=sp.sqrt(sym.T) * R)

# --- correct but tight -----------------------------------------------------------------------------------
# Quadratics only: the exact worst case over curvatures in [m, M] is a = 1 - eta m (f(a) = (sum a^k)^2 / sum a^2k
# is increasing on (-1, 1)), tighter than Thm 4.2's max(|1 - eta m|, |1 - eta M|) when eta M > 2 - eta m.
QUADRATIC_EXACT = Theorem(
    id="adv/quadratic-exact-small-m", title="quadratic noisy GD with a = 1 - eta m", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="full", loss="quadratic"),
    bound=R * sp.sqrt((2 - sym.eta * sym.m) / (sym.eta * sym.m)
                      * (1 - (1 - sym.eta * sym.m) ** sym.T) / (1 + (1 - sym.eta * sym.m) ** sym.T)),
    assumptions=STRONG)

# One step from anywhere in C: the pre-noise points differ by <= D + eta Delta/n (a gradient step of a convex
# M-smooth loss with eta <= 2/M is non-expansive), projection is post-processing, mixtures by joint convexity.
ONE_STEP_FROM_C = Theorem(
    id="adv/constrained-one-step", title="constrained convex noisy GD: (D + eta Delta/n)/(eta sigma)", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="full", loss="convex", constraint="bounded"),
    bound=sp.Min(sp.sqrt(sym.T) * R, sym.D / (sym.eta * sym.sigma) + R),
    assumptions=(Assumption(sym.eta <= 2 / sym.M),))
