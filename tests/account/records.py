"""Theorem records of known closed form for the accounting tests (independent of the live registry).

``GD_COMPOSITION`` is the Gaussian composition of T full-batch steps (Dong–Roth–Su 2022, Cor. 2);
``GD_STRONGLY_CONVEX`` the strongly convex NoisyGD bound of Bok et al. 2024, Theorem 4.2; ``GD_RDP`` the RDP
composition (Mironov 2017, Prop. 1 and 7).  The others exercise the verdict policy.
"""

from __future__ import annotations

import sympy as sp

from verify.theorem import Assumption, Setting, Source, Theorem, contraction, sym

Delta, n, T, sigma, eta, m, M, D = sym.Delta, sym.n, sym.T, sym.sigma, sym.eta, sym.m, sym.M, sym.D
c = contraction()
MU_GD = sp.sqrt(T) * Delta / (n * sigma)

_SRC = Source("tests", "accounting fixtures")
_FULL_ALL = Setting(batches="full", loss="any", constraint="any", adjacency="replace", release="all")

GD_COMPOSITION = Theorem(
    id="test/gd-composition", title="T full-batch steps: GDP composition", source=_SRC,
    notion="gdp", kind="upper", setting=_FULL_ALL, bound=MU_GD)

GD_RDP = Theorem(
    id="test/gd-rdp", title="T full-batch steps: RDP composition", source=_SRC,
    notion="rdp", kind="upper", setting=_FULL_ALL, bound=sym.alpha * MU_GD**2 / 2)

GD_STRONGLY_CONVEX = Theorem(
    id="test/gd-strongly-convex", title="NoisyGD, strongly convex (Bok et al. Thm 4.2)", source=_SRC,
    notion="gdp", kind="upper",
    setting=Setting(batches="full", loss="strongly_convex", constraint="none", adjacency="replace", init="fixed"),
    bound=Delta / (n * sigma) * sp.sqrt((1 + c) / (1 - c) * (1 - c**T) / (1 + c**T)),
    assumptions=(Assumption(m > 0, "m-strongly convex losses (m > 0)"),
                 Assumption(M >= m, "M-smooth losses, M >= m"),
                 Assumption(eta < 2 / M, "step size eta in (0, 2/M)")))

# the same composition, ten times too small: what a wrong theorem looks like (verdict violated)
TOO_GOOD = Theorem(
    id="test/too-good", title="a wrong bound", source=_SRC,
    notion="gdp", kind="upper", setting=_FULL_ALL, bound=MU_GD / 10)

# smaller still, but only an approximation
APPROXIMATION = Theorem(
    id="test/approximation", title="an approximation", source=_SRC,
    notion="gdp", kind="approximation", setting=_FULL_ALL, bound=MU_GD / 20)

# smaller than the composition, verdict inconclusive: only the policy decides whether it is used
UNVERIFIED = Theorem(
    id="test/unverified", title="an inconclusive bound", source=_SRC,
    notion="gdp", kind="upper", setting=_FULL_ALL, bound=MU_GD / 2)

LOWER = Theorem(
    id="test/lower", title="a lower bound", source=_SRC,
    notion="gdp", kind="lower", setting=_FULL_ALL, bound=MU_GD / 100)

CONSTRAINED = Theorem(
    id="test/constrained", title="needs a bounded domain", source=_SRC,
    notion="gdp", kind="upper",
    setting=Setting(batches="full", loss="convex", constraint="bounded", adjacency="replace"),
    bound=D / (eta * sigma * sp.sqrt(T)) + Delta / (n * sigma))

NO_SIGMA = Theorem(
    id="test/no-sigma", title="a bound that does not depend on the noise", source=_SRC,
    notion="gdp", kind="upper", setting=_FULL_ALL, bound=sp.sqrt(T) * Delta / n)

ALL = (GD_COMPOSITION, GD_RDP, GD_STRONGLY_CONVEX, TOO_GOOD, APPROXIMATION, UNVERIFIED, LOWER, CONSTRAINED)

VERDICTS = {
    "test/gd-composition": "verified", "test/gd-rdp": "verified", "test/gd-strongly-convex": "verified",
    "test/too-good": "violated", "test/approximation": "approximate", "test/unverified": "inconclusive",
    "test/lower": "verified", "test/constrained": "verified", "test/no-sigma": "verified",
}

#: a strongly convex full-batch run (c = 1 - eta m = 0.99)
RUN = dict(n=1000, batches="full", T=200, eta=0.1, sigma=1.0, Delta=2.0, m=0.1, M=1.0)
