"""Symbolic exactness: derive a tight family's privacy from the chain's recursion and prove it equals
the bound.

Each derivation starts from the one-step recursion of the family's two runs (on D and on D'),
sums the geometric series with sympy, and returns the exact GDP mu of the last iterate in the
canonical symbols, together with the substitution that specialises the theorem to the family (for
instance ``c = 1 - eta*m`` when ``eta <= 2/(M+m)``).  The obligation passes only when sympy proves
``mu_derived**2 - bound**2 == 0``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import sympy as sp

from verify.check.verdict import Obligation
from verify.theorem import Theorem, contraction, sym

_k = sp.Symbol("k", integer=True, nonnegative=True)
_c = sp.Symbol("c", positive=True)


def _geometric(ratio: sp.Expr, terms: sp.Expr) -> sp.Expr:
    """sum_{k=0}^{terms-1} ratio**k, the ratio != 1 branch."""
    total = sp.summation(ratio**_k, (_k, 0, terms - 1))
    if isinstance(total, sp.Piecewise):
        total = total.args[-1][0]
    return total


def gd_strongly_convex_quadratic() -> tuple[sp.Expr, dict]:
    """Bok et al. Thm 4.2 equality case: f_i = m/2 x^2, the differing record adds a tilt Delta*x.

    X_{k+1} = c X_k - eta*sigma*Z_k and X'_{k+1} = c X'_k - eta*Delta/n - eta*sigma*Z'_k, c = 1 - eta*m,
    X_0 = X'_0 = 0: the mean gap is (eta Delta/n) sum c^k, the variance eta^2 sigma^2 sum c^(2k).
    """
    gap = sym.eta * sym.Delta / sym.n * _geometric(_c, sym.T)
    var = sym.eta**2 * sym.sigma**2 * _geometric(_c**2, sym.T)
    mu = gap / sp.sqrt(var)
    return mu, {contraction(): _c, _c: 1 - sym.eta * sym.m}


def exponential_mechanism_quadratic() -> tuple[sp.Expr, dict]:
    """Bok et al. Cor 5.2 equality case: pi ∝ exp(-m x^2/2), pi' ∝ exp(-m x^2/2 - Delta x).

    Both are Gaussian with variance 1/m, means 0 and -Delta/m; the stationary law of the Langevin
    chain, i.e. the T -> oo limit of its mean/variance recursion with eta -> 0.
    """
    mean_gap = sym.Delta / sym.m
    std = 1 / sp.sqrt(sym.m)
    return mean_gap / std, {}


@dataclass(frozen=True)
class Derivation:
    """A family's exact privacy derived symbolically, in ``notion`` (the derivations here give GDP mu)."""

    derive: Callable[[], tuple[sp.Expr, dict]]
    notion: str = "gdp"


DERIVATIONS: dict[str, Derivation] = {
    "bok_thm42": Derivation(gd_strongly_convex_quadratic),
    "bok_cor52": Derivation(exponential_mechanism_quadratic),
}


def exactness(theorem: Theorem) -> Obligation | None:
    """For a theorem claimed exact on a family with a known derivation in its notion: prove bound =
    derived value (compared through their squares: both are non-negative)."""
    families = [str(c.value) for c in theorem.claims if c.kind == "exact_on" and str(c.value) in DERIVATIONS]
    if not families or not theorem.closed_form or any(DERIVATIONS[f].notion != theorem.notion for f in families):
        return None
    for family in families:
        derived, subs = DERIVATIONS[family].derive()
        bound = theorem.bound
        for old, new in subs.items():
            bound = bound.subs(old, new)
            derived = derived.subs(old, new)
        difference = sp.simplify(sp.factor(sp.simplify(derived**2 - bound**2)))
        if difference != 0:
            return Obligation("symbolic-exactness", "failed",
                              f"on {family}: derived mu^2 - bound^2 simplifies to {sp.sstr(difference)}")
    return Obligation("symbolic-exactness", "passed",
                      f"sympy derives the exact mu of {', '.join(families)} from the chain's recursion "
                      "and proves it equal to the bound")
