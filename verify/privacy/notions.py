"""The privacy notions as records: everything the tool knows about a notion, in one place.

A theorem states its guarantee in one notion (docs/theorems.md).  Every part of the tool that must treat
notions differently — the engine comparing a bound with an exact profile, the (eps, delta) reading used
to compare theorems across notions, the report's axes, the command line's words, the audit — reads the
:class:`Notion` record here instead of testing ``notion == "..."``.  Adding a notion is one
:func:`register_notion` call.

Exact profiles (``verify.instances``) and audit results (``verify.simulate``) are used by duck typing:
a profile answers ``renyi(alpha)``, ``delta(eps)``, ``eps(delta)``, ``mu``; an audit answers
``mu_lower``, ``eps_lower_at(delta)``, ``delta_lower(eps)``, ``rdp_lower(alpha)``.  Nothing here imports
upward.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from verify.errors import InputError
from verify.privacy.gaussian import _gdp_log_delta, gdp_eps, gdp_log_delta, gdp_to_rdp
from verify.privacy.rdp import rdp_to_dp_improved
from verify.registry import Registry

#: ``evaluate(at)`` returns a theorem's value at its notion parameter ``at`` (None for gdp)
Evaluate = Callable[[Any], float]


@dataclass(frozen=True)
class Notion:
    """One privacy (or utility) notion.

    * ``parameter``: the parameter the notion's value is a function of (``alpha``, ``eps``,
      ``delta``), or None.
    * ``quantity``: the name of the value (``rdp_epsilon``, ``mu``, ...), as ``verify eval`` prints it.
    * ``grid``: the values of ``parameter`` at which a bound is compared with an exact profile.
    * ``probe``: a value of ``parameter`` used where only the other parameters matter (assumptions).
    * ``exact``: ``exact(profile, at)``, the exact value of an instance's profile in this notion.
    * ``to_eps``: ``to_eps(evaluate, delta)``, the epsilon at ``delta`` that a guarantee implies.
    * ``to_mu``: ``to_mu(evaluate)``, the GDP parameter a guarantee implies (None: no mu reading).
    * ``to_rdp``: ``to_rdp(evaluate, orders)``, the RDP curve a guarantee implies (None: no RDP reading).
    * ``audit_points`` and ``audit_lower``: where and how an audit's lower confidence bound reads
      (without ``audit_points``, at the audit's own value of ``parameter``: see :meth:`audit_at`).
    * ``resolution``: the absolute size below which a value carries no information at the accuracy
      of the discretised references (grids, privacy-loss distributions resolve probabilities to about
      1e-15): comparisons allow it as slack and tightness ratios leave such pairs out.
    * ``nonnegative``: whether every valid value is >= 0 (eps at a large delta may be negative).
    * ``inverted``: the value is a delta(eps) curve, read at a delta by inverting it through scalar
      evaluations (the costliest reading: plots and schedules treat such theorems apart).
    * ``signed``: ``signed(profile, at)``, the exact value without the floor ``exact`` keeps (eps(delta) is
      the smallest eps >= 0; a bound below 0 is compared with the smallest signed eps, see
      :func:`exact_against`); None: ``exact`` has no floor.
    """

    name: str
    label: str
    quantity: str
    parameter: str | None = None
    privacy: bool = True
    grid: tuple[float | None, ...] = (None,)
    probe: float | None = None
    exact: Callable[[Any, Any], float] | None = None
    to_eps: Callable[[Evaluate, float], float] | None = None
    to_mu: Callable[[Evaluate], float] | None = None
    to_rdp: Callable[[Evaluate, np.ndarray], np.ndarray] | None = None
    audit_points: tuple[float, ...] | None = None
    audit_lower: Callable[[Any, np.ndarray | None], np.ndarray] | None = None
    #: the parameter's own admissible set, as a check raising InputError
    check_parameter: Callable[[np.ndarray, str], None] | None = None
    resolution: float = 0.0
    nonnegative: bool = True
    inverted: bool = False
    signed: Callable[[Any, Any], float] | None = None

    def __str__(self) -> str:
        return self.name

    def audit_at(self, result: Any) -> np.ndarray | None:
        """The values of ``parameter`` at which an audit ``result`` is compared with a bound: the
        notion's ``audit_points``, else the audit's own value of the parameter (its ``delta``); None for
        a notion without a parameter."""
        if self.parameter is None:
            return None
        if self.audit_points is not None:
            return np.asarray(self.audit_points, dtype=float)
        return np.asarray([getattr(result, self.parameter)], dtype=float)


#: the registered notions by name, in registration order (read-only; register with :func:`register_notion`)
NOTIONS: Registry[Notion] = Registry("notion")


def register_notion(notion: Notion, *, replace: bool = False) -> Notion:
    """Add ``notion`` to the registry (a taken name needs ``replace=True``)."""
    return NOTIONS.add(notion.name, notion, replace=replace, where="register_notion")


def notion(name: str) -> Notion:
    """The record of a registered notion; InputError naming close matches and the known ones otherwise."""
    return NOTIONS.lookup(name)


def notions() -> tuple[Notion, ...]:
    """Every registered notion, in registration order."""
    return tuple(NOTIONS.values())


# ---------------------------------------------------------------------------------------------------
# delta(eps) curves
# ---------------------------------------------------------------------------------------------------


def invert_delta(delta_of: Callable[[np.ndarray], np.ndarray], delta: np.ndarray,
                 iterations: int = 200, eps_max: float = 1e4, rtol: float = 1e-14,
                 from_last_doubling: bool = False) -> np.ndarray:
    """``eps(delta) = min{eps >= 0: delta_of(eps) <= delta}`` by vectorised bisection.

    ``delta_of`` is non-increasing (every hockey-stick curve is).  The upper end of the bracket is
    found by doubling from 1; ``from_last_doubling`` starts the lower end at the last doubling point
    still above ``delta`` instead of at 0.  Bisection stops after ``iterations`` halvings or once every
    bracket is narrower than ``rtol`` (relative; 0: always ``iterations``).  Returns the conservative
    end of the final bracket, and ``inf`` where ``delta`` lies below ``delta_of(eps_max)`` (a pair with
    a part of P singular to Q, or beyond any eps of interest).  The one inversion of a delta(eps) curve
    in the tool.
    """
    delta = np.asarray(delta, dtype=float)
    flat = delta.ravel()
    out = np.zeros_like(flat)
    at_zero = np.asarray(delta_of(np.zeros(1)), dtype=float).ravel()[0]
    todo = flat < at_zero
    if not np.any(todo):
        return out.reshape(delta.shape)
    target = flat[todo]
    lo, at_lo, hi = 0.0, at_zero, np.ones(1)
    while (at_hi := np.asarray(delta_of(hi), dtype=float).ravel()[0]) > target.min() and hi[0] < eps_max:
        lo, at_lo, hi = hi[0], at_hi, hi * 2
    lo_v = np.where(at_lo > target, lo, 0.0) if from_last_doubling else np.zeros_like(target)
    hi_v = np.full_like(target, hi[0])
    unreachable = np.asarray(delta_of(hi), dtype=float).ravel()[0] > target
    for _ in range(iterations):
        mid = 0.5 * (lo_v + hi_v)
        above = np.asarray(delta_of(mid), dtype=float) > target
        lo_v = np.where(above, mid, lo_v)
        hi_v = np.where(above, hi_v, mid)
        if rtol > 0 and np.all(hi_v - lo_v <= rtol * np.maximum(1.0, hi_v)):
            break
    out[todo] = np.where(unreachable, np.inf, hi_v)
    return out.reshape(delta.shape)


# ---------------------------------------------------------------------------------------------------
# (eps, delta) readings of each notion's guarantee
# ---------------------------------------------------------------------------------------------------

#: Rényi orders over which an RDP curve is converted to (eps, delta)
RDP_ORDERS = np.concatenate([np.linspace(1.05, 3.0, 40), np.geomspace(3.1, 512.0, 60)])


def _eps_of_eps_delta(evaluate: Evaluate, delta: float) -> float:
    return float(evaluate(delta))


def _eps_of_gdp(evaluate: Evaluate, delta: float) -> float:
    return float(gdp_eps(float(evaluate(None)), delta))


def _eps_of_rdp(evaluate: Evaluate, delta: float) -> float:
    rdp = np.asarray(evaluate(RDP_ORDERS), dtype=float)
    return float(rdp_to_dp_improved(RDP_ORDERS, rdp, delta))


def _eps_of_fdp(evaluate: Evaluate, delta: float) -> float:
    """Invert the guarantee's delta(eps) (scalar evaluations: f-DP bounds are numeric operators);
    50 halvings of the last doubling bracket, the readings ``reports/baseline.json`` records."""
    curve = np.vectorize(lambda e: float(evaluate(float(e))), otypes=[float])
    return float(invert_delta(curve, np.asarray([delta]), iterations=50, rtol=0.0, from_last_doubling=True)[0])


def _check_alpha(alpha: np.ndarray, where: str) -> None:
    if np.any(np.asarray(alpha) <= 1):
        raise InputError("parameter alpha must be > 1", "alpha", where)


#: eps grid on which a non-Gaussian profile's effective mu is taken
MU_EPS_GRID = np.concatenate([np.linspace(0.0, 2.0, 21), np.linspace(2.25, 12.0, 40)])


def effective_mu(profile) -> float:
    """The smallest mu with T(P,Q) >= G_mu: exact for Gaussian pairs, else from delta(eps) on a grid.

    For a non-Gaussian pair, mu-GDP holds iff delta(eps) <= delta_mu(eps) for every eps (duality);
    the grid maximum of the per-eps mu is the pair's mu up to the grid (a lower estimate, so a bound
    that falls below it is violated for sure).  Where delta(eps) is 1 to double precision on the grid
    (mu >~ 14: it no longer tells mu apart there, and a rounded sum above 1 read as the bracket's end,
    60), the per-delta mu of eps(delta) at small delta is read too, in log space and with no upper end
    (:func:`_mu_from_eps`): the same duality, resolved at any mu.
    """
    if getattr(profile, "mu", None) is not None:
        return float(profile.mu)
    if hasattr(profile, "exact_mu"):  # a pair that knows its own mu (e.g. monotone likelihood ratio)
        return float(profile.exact_mu())
    deltas = np.asarray(profile.delta(MU_EPS_GRID), dtype=float)
    resolved = deltas < 1.0 - SATURATED  # (a rounded sum may even exceed 1: gdp_delta never does)
    used = (deltas > 1e-14) & resolved
    mu = float(np.max(gdp_halvings(MU_EPS_GRID[used], deltas[used]), initial=0.0))
    if np.all(resolved):
        return mu
    # delta(eps) is 1 to double precision somewhere on the grid (mu >~ 14): it no longer tells mu
    # apart there, while eps(delta) at small delta still does (read in log space, no upper end)
    return max(mu, _mu_from_eps(profile))


#: the bisection of :func:`effective_mu`: ``HALVINGS`` halvings of ``[0, MU_HI]``
MU_HI, HALVINGS = 60.0, 80
#: distances (relative, in units of 2^-52) below and above the Newton root at which :func:`gdp_halvings` tries
#: bracket ends, all in one evaluation
_BRACKET_ULPS = np.array([4.0, 64.0, 2.0**10, 2.0**16, 2.0**24, 2.0**34])


def gdp_below(mu: np.ndarray, eps: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """``gdp_delta(mu, eps) < delta``, the test of every halving (mu read as 1e-12 below it: its own
    validation and edge cases skipped, not reached)."""
    with np.errstate(all="ignore"):
        return np.exp(_gdp_log_delta(np.maximum(mu, 1e-12), eps)) < delta


def gdp_newton_mu(eps: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """The mu with ``gdp_delta(mu, eps) = delta``, near the float resolution: safeguarded Newton on
    ``log delta_mu(eps)`` in ``log mu`` within ``[1e-12, MU_HI]``, bisecting (in log mu) where a step
    leaves the bracket.  ``d delta_mu / d mu = phi(a)``, ``a = -eps/mu + mu/2`` (the two terms of the
    derivative of DRS22 Cor. 1 combine, as ``e^eps phi(a - mu) = phi(a)``)."""
    target = np.log(delta)
    s = np.zeros(eps.shape)
    lo, hi = np.full(eps.shape, math.log(1e-12)), np.full(eps.shape, math.log(MU_HI))
    active = np.arange(eps.size)  # only unconverged entries are iterated
    for _ in range(60):
        sa, ea = s[active], eps[active]
        mu = np.exp(sa)
        with np.errstate(all="ignore"):
            log_delta = _gdp_log_delta(mu, ea)
            g = log_delta - target[active]  # increasing in mu
            a = -ea / mu + mu / 2.0
            slope = mu * np.exp(-0.5 * a * a - 0.5 * math.log(2.0 * math.pi) - log_delta)  # d log delta / d log mu
            newton = sa - g / slope
        lo_a, hi_a = np.where(g < 0, sa, lo[active]), np.where(g < 0, hi[active], sa)
        ok = np.isfinite(newton) & (newton > lo_a) & (newton < hi_a)
        # a step this short leaves an error of its square: the rest is the rounding of log delta
        done = np.abs(newton - sa) <= 1e-12 * np.maximum(1.0, np.abs(sa))
        s[active] = np.where(done | ok, newton, 0.5 * (lo_a + hi_a))
        lo[active], hi[active] = lo_a, hi_a
        active = active[~done]
        if active.size == 0:
            break
    return np.exp(s)


def gdp_halvings(eps: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """Per entry, the lower end after :data:`HALVINGS` halvings of ``[0, MU_HI]`` by :func:`gdp_below` (gdp_delta
    is increasing in mu), or after the first halving whose midpoint rounds to an end (nothing moves after it).

    The same halvings with most tests skipped: a Newton root (:func:`gdp_newton_mu`) gives ends ``lo_end`` and
    ``hi_end`` where :func:`gdp_below` is true (at ``lo_end`` and every tried point below) and false (at
    ``hi_end`` and every tried point above), so a midpoint outside them has a known outcome (monotonicity, as
    the bisection itself assumes) and only midpoints between them, the last few halvings, are tested.
    """
    lo, hi = np.zeros(eps.shape), np.full(eps.shape, MU_HI)
    if eps.size == 0:
        return lo
    root = gdp_newton_mu(eps, delta)[:, None]
    offsets = _BRACKET_ULPS * 2.0**-52
    n = offsets.size
    tried = gdp_below(np.concatenate([root * (1.0 - offsets), root * (1.0 + offsets)], axis=1),
                   eps[:, None], delta[:, None])
    # how many of the farthest tries below are all true, above all false: the nearest such is the end
    n_lo = np.cumprod(tried[:, n - 1::-1], axis=1).sum(axis=1)
    n_hi = np.cumprod(~tried[:, :n - 1:-1], axis=1).sum(axis=1)
    rows = np.arange(eps.size)
    lo_end = np.where(n_lo > 0, root[rows, 0] * (1.0 - offsets[np.minimum(n - n_lo, n - 1)]), 0.0)
    hi_end = np.minimum(np.where(n_hi > 0, root[rows, 0] * (1.0 + offsets[np.minimum(n - n_hi, n - 1)]), MU_HI),
                        MU_HI)
    moving = np.ones(eps.shape, dtype=bool)
    for _ in range(HALVINGS):
        mid = 0.5 * (lo + hi)
        moving &= (mid != lo) & (mid != hi)
        if not moving.any():
            break
        below = mid <= lo_end
        test = moving & (mid > lo_end) & (mid < hi_end)
        if test.any():
            below[test] = gdp_below(mid[test], eps[test], delta[test])
        lo = np.where(moving & below, mid, lo)
        hi = np.where(moving & ~below, mid, hi)
    return lo


#: delta(eps) within this of 1 on :data:`MU_EPS_GRID` does not resolve mu: :func:`effective_mu` reads
#: eps(delta) on :data:`MU_DELTA_GRID` as well
SATURATED = 1e-9

#: delta grid on which a non-Gaussian profile's eps(delta) is read for a large effective mu
MU_DELTA_GRID = np.geomspace(1e-2, 1e-12, 11)


def _mu_from_eps(profile) -> float:
    """The largest per-delta mu: the smallest mu with ``delta_mu(eps_P(delta)) >= delta`` (mu-GDP needs it
    at every delta, DRS22 Cor. 1), by bisection on ``log delta_mu`` (:func:`gdp_log_delta`, exact far
    below the float range); infinite when some eps(delta) is (a part of mass >= delta that only one law
    charges: no finite mu), 0 when none is positive."""
    eps = np.asarray(profile.eps(MU_DELTA_GRID), dtype=float)
    if np.any(np.isposinf(eps)):
        return math.inf
    ok = np.isfinite(eps) & (eps > 0)
    if not np.any(ok):
        return 0.0
    eps, target = eps[ok], np.log(MU_DELTA_GRID[ok])
    lo, hi = np.zeros_like(eps), np.full_like(eps, 60.0)
    for _ in range(1100):  # doubling: delta_mu(eps) -> 1 as mu -> inf (mu = 2^1100 is beyond any double)
        short = np.asarray(gdp_log_delta(hi, eps)) < target
        if not np.any(short):
            break
        lo, hi = np.where(short, hi, lo), np.where(short, 2.0 * hi, hi)
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        below = np.asarray(gdp_log_delta(np.maximum(mid, 1e-12), eps)) < target
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
        if np.all(hi - lo <= 1e-15 * hi):
            break
    return float(np.max(lo))


def signed_eps(profile, delta: float) -> float:
    """The smallest real eps with ``delta(eps) <= delta``: ``profile.eps(delta)`` when positive, else the root
    of the hockey-stick divergence on eps <= 0, where it keeps decreasing (for a nearly private pair
    ``delta(eps) -> 1 - e^eps``, so eps(1/2) -> -log 2); ``-inf`` when ``delta(eps) <= delta`` for every eps
    down to -700 (delta = 1)."""
    eps = float(profile.eps(delta))
    if eps > 0:
        return eps
    lo = -1.0
    while float(profile.delta(lo)) <= delta:
        if lo < -700.0:
            return -math.inf
        lo *= 2.0
    from scipy import optimize  # not at import: `verify list` and `show` load no scipy.special

    return float(optimize.brentq(lambda e: float(profile.delta(e)) - delta, lo, 0.0, xtol=1e-14, rtol=1e-13))


def exact_against(notion: Notion, profile, at, bound: float) -> float:
    """The exact value of ``profile`` in ``notion`` at ``at``, compared with ``bound``: signed
    (``notion.signed``) where the bound lies below the floored value, so that a valid negative bound holds and
    a wrong one is refuted (eps at a large delta: exact 0 against a valid bound -0.69 is no violation)."""
    exact = float(notion.exact(profile, at))
    if notion.signed is not None and bound < exact <= 0:
        return float(notion.signed(profile, at))
    return exact


# ---------------------------------------------------------------------------------------------------
# the registry
# ---------------------------------------------------------------------------------------------------

RDP = register_notion(Notion(
    name="rdp", label="Rényi DP", quantity="rdp_epsilon", parameter="alpha",
    grid=(1.5, 2.0, 3.0, 4.0, 8.0, 16.0, 32.0), probe=2.0,
    exact=lambda profile, at: float(profile.renyi(at)), to_eps=_eps_of_rdp,
    to_rdp=lambda evaluate, orders: np.asarray(evaluate(orders), dtype=float),
    audit_points=(1.5, 2.0, 4.0, 8.0, 16.0, 32.0),
    audit_lower=lambda result, at: np.asarray(result.rdp_lower(at)),
    check_parameter=_check_alpha))
GDP = register_notion(Notion(
    name="gdp", label="Gaussian DP", quantity="mu", parameter=None,
    exact=lambda profile, at: effective_mu(profile),
    to_eps=_eps_of_gdp,
    to_mu=lambda evaluate: float(evaluate(None)),
    # mu-GDP implies RDP alpha*mu^2/2 at every order (Bok et al. 2024 Lemma A.4)
    to_rdp=lambda evaluate, orders: np.asarray(gdp_to_rdp(float(evaluate(None)), orders), dtype=float),
    audit_lower=lambda result, at: np.asarray(result.mu_lower)))
FDP = register_notion(Notion(
    name="fdp", label="f-DP (tradeoff curve)", quantity="delta", parameter="eps",
    grid=(0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0), probe=1.0,
    exact=lambda profile, at: float(profile.delta(at)), to_eps=_eps_of_fdp, inverted=True,
    audit_points=(0.0,),  # one point (f-DP operators are costly); the audited delta is largest at eps = 0
    audit_lower=lambda result, at: np.asarray(result.delta_lower(at)),
    resolution=1e-12))
EPS_DELTA = register_notion(Notion(
    name="eps_delta", label="(ε, δ)-DP", quantity="eps", parameter="delta",
    grid=(1e-2, 1e-3, 1e-5, 1e-8), probe=1e-5,
    exact=lambda profile, at: float(profile.eps(at)), to_eps=_eps_of_eps_delta,
    audit_lower=lambda result, at: np.asarray(result.eps_lower_at(at)),
    nonnegative=False, signed=signed_eps))


def _excess_risk(profile, at) -> float:
    """The exact expected excess risk an instance's profile carries (``excess_risk``: the utility
    references of ``verify.instances.utility``); InputError for a profile without one (no evidence)."""
    value = getattr(profile, "excess_risk", None)
    if value is None:
        raise InputError("the instance has no exact expected excess risk", "profile")
    return float(value)


UTILITY = register_notion(Notion(
    name="utility", label="expected excess risk", quantity="excess_risk", parameter=None, privacy=False,
    exact=_excess_risk))


__all__ = ["EPS_DELTA", "FDP", "GDP", "Notion", "RDP", "RDP_ORDERS", "UTILITY", "effective_mu", "invert_delta",
           "exact_against", "notion", "notions", "register_notion", "signed_eps"]
