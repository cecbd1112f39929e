"""Exact composition of (subsampled) Gaussian mechanisms via Google's ``dp_accounting`` PLDs.

A :class:`Composition` is a thin, immutable wrapper over a ``dp_accounting`` pessimistic
``PrivacyLossDistribution`` (Doroshenko et al. 2022 "Connect the dots"), so every ``delta(eps)`` it
reports is an upper bound on the true value and every ``eps(delta)`` too. Mechanisms (per step the GDP
parameter ``mu`` = sensitivity / noise std):

* ``gaussian(mu)``: ``G_mu`` (symmetric).
* ``subsampled_gaussian(p, mu, T, sampling, adjacency)``:

  - ``adjacency="add_remove"`` (Poisson only): ``dp_accounting`` ``ADD_OR_REMOVE_ONE``, both orderings
    kept (Bu et al. 2020 Thm. 3: ``min{f, f^{-1}}**`` with ``f = (p G_mu + (1-p) Id)^{⊗T}``);
  - ``adjacency="replace"``: ``dp_accounting`` ``REPLACE_ONE`` with sensitivity ``mu/2``: the replaced
    record moves the subsampled mean from ``-mu/2`` to ``+mu/2`` (contributions clipped to norm ``mu/2``,
    distance ``mu``). Poisson and uniform (fixed-size) sampling give the same per-step pair here;
  - ``adjacency="symmetric"``: exactly ``C_p(G_mu)^{⊗T}`` (Bok et al. 2024 Thm. 4.8; DRS22 Thm. 9: only
    the distance ``mu`` of the two contributions is bounded), built from the privacy curve of a pair
    with tradeoff ``C_p(G_mu)`` (Bok et al. Prop. D.4, their ``SymmPoissonSubsampledGaussianMechanism``)
    by dp_accounting's pessimistic connect-the-dots discretisation.

Results are cached: building a mechanism with the same parameters twice reuses the composed PLD.
"""

from __future__ import annotations

import functools
from typing import Literal

import numpy as np
from dp_accounting import NeighboringRelation as _NeighborRel
from dp_accounting.pld import pld_pmf as _pld_pmf
from dp_accounting.pld import privacy_loss_distribution as _pld
from numpy.typing import ArrayLike
from scipy.signal import lfilter
from scipy.stats import norm

from verify import validate
from verify.errors import InputError
from verify.privacy.fdp import subsampled_gaussian_delta
from verify.privacy.gaussian import _numeric, _result, gdp_eps

__all__ = ["Composition", "subsampled_delta_limit", "symmetric_subsampled_gaussian_pld"]

Sampling = Literal["poisson", "uniform"]
Adjacency = Literal["add_remove", "replace", "symmetric"]

#: default discretisation of the privacy loss (dp_accounting's default)
DEFAULT_INTERVAL = 1e-4
#: largest one-step grid we build for the symmetric pair (points); beyond, ask for a coarser interval
_MAX_GRID = 4_000_000
#: most composed steps (memory)
_MAX_STEPS = 10_000_000
#: largest one-step grid we let dp_accounting build (points, estimated): beyond it runs for minutes
_MAX_DP_ACCOUNTING_GRID = 10_000_000


def _too_large(mu: float, h: float, span: float) -> InputError:
    coarsest = 2.0 * span / _MAX_GRID  # an interval with which the grid would fit
    if coarsest <= 0.1:
        return InputError(
            f"value_discretization_interval={h:g} is too fine for mu={mu:g}: the privacy loss spans "
            f"+-{span:.4g}; use an interval >= {coarsest:.2g}", "value_discretization_interval")
    return InputError(
        f"mu={mu:g} is too large (the noise is too small) for an exact PLD: the privacy loss spans +-{span:.4g}",
        "mu")


def _check_gaussian_grid(sensitivity: float, h: float, mu: float) -> None:
    """Refuse before dp_accounting allocates: its Gaussian PLD spans about s^2/2 + 8 s either side."""
    with np.errstate(over="ignore"):
        span = sensitivity * sensitivity / 2.0 + 8.0 * sensitivity
    if not span * 2.0 / h <= _MAX_DP_ACCOUNTING_GRID:
        raise _too_large(mu, h, span)


def symmetric_subsampled_gaussian_pld(
    p: float, mu: float, value_discretization_interval: float = DEFAULT_INTERVAL
) -> _pld.PrivacyLossDistribution:
    """Pessimistic ``dp_accounting`` PLD of one step whose tradeoff is exactly ``C_p(G_mu)``.

    Built with dp_accounting's pessimistic connect-the-dots discretisation (Doroshenko et al. 2022,
    Alg. 1), which needs only the hockey-stick curve delta(eps) of a pair with tradeoff ``C_p(G_mu)`` on
    the grid ``eps = k h``: that curve is :func:`verify.privacy.fdp.subsampled_gaussian_delta` (the
    privacy curve of Bok et al. 2024 Prop. D.4). The grid spans ``[-eps_hi, eps_hi]`` with
    ``delta(eps_hi) <= e^-50``; the mass beyond goes to +infinity (pessimistic). ``0 < p <= 1``,
    ``mu >= 0`` (0 gives the identity); when the grid would exceed 4e6 points, InputError naming the
    interval (a coarser one fits) or ``mu`` (the noise is too small for any).
    """
    p = validate.probability("p", p)
    mu = validate.nonnegative("mu", mu)
    h = _interval(value_discretization_interval)
    with np.errstate(all="ignore"):  # overflow is handled: a too-wide loss is refused by the grid check
        return _symmetric_pld(p, mu, h)


def _interval(value) -> float:
    """The discretisation interval of the privacy loss, in (0, 1] (coarser than one nat means nothing)."""
    h = validate.positive("value_discretization_interval", value)
    if h > 1.0:
        raise InputError(f"value_discretization_interval must be <= 1, got {value!r}", "value_discretization_interval")
    return h


@functools.lru_cache(maxsize=32)
def _symmetric_pld(p: float, mu: float, h: float) -> _pld.PrivacyLossDistribution:
    if mu == 0.0:
        return _pld.identity(value_discretization_interval=h)
    with np.errstate(over="ignore"):
        ell_hi = float(gdp_eps(mu, np.exp(-50.0)))
        # eps_hi = log(1 + p (e^ell_hi - 1)), written to avoid overflow of e^ell_hi
        eps_hi = ell_hi + float(np.log(p + (1.0 - p) * np.exp(-ell_hi)))
    eps_hi = max(eps_hi, 2.0 * h)
    if not (2.0 * eps_hi / h + 1.0 <= _MAX_GRID):
        raise _too_large(mu, h, eps_hi)
    k_hi = int(np.ceil(eps_hi / h))
    k = np.arange(-k_hi, k_hi + 1)
    deltas = np.asarray(subsampled_gaussian_delta(p, mu, k * h))
    deltas = np.minimum.accumulate(deltas)  # exact curve is non-increasing; remove rounding ripples
    pmf = _pld_pmf.create_pmf_pessimistic_connect_dots_fixed_gap(h, -k_hi, k_hi, deltas)
    return _pld.PrivacyLossDistribution(pmf)


def subsampled_delta_limit(p: float, mu: float, steps: int, eps: float) -> float | None:
    """delta(eps) of T-fold ``C_p(G_mu)`` (or of Bu et al.'s Poisson composition) when mu is so large that
    it equals its mu -> infinity limit ``1 - (1 - p)^T`` to float precision; None otherwise.

    Both tradeoffs lie above ``f_{0,p}^{⊗T} = f_{0, 1-(1-p)^T}`` (``f_p >= f_{0,p}``, composition is
    monotone), so delta(eps) <= the limit for eps >= 0. Below, both lie under ``f_p^{⊗T}`` and the event
    "some coordinate exceeds mu/2" shows delta(eps) >= limit - T Phi(-mu/2) (p + e^eps).
    """
    if not (eps >= 0.0 and mu > 0.0 and steps >= 1):
        return None
    limit = float(-np.expm1(steps * np.log1p(-p))) if p < 1.0 else 1.0
    log_gap = np.log(steps) + float(norm.logcdf(-mu / 2.0)) + float(np.logaddexp(np.log(p), eps))
    return limit if log_gap <= np.log(1e-16 * limit) else None


@functools.lru_cache(maxsize=8)  # a composed PMF of T ~ 1e4 steps holds ~1e6 floats
def _subsampled_gaussian(p: float, mu: float, steps: int, sampling: str, adjacency: str, h: float):
    if mu == 0.0 or p == 0.0 or steps == 0:
        return _pld.identity(value_discretization_interval=h)
    if adjacency == "symmetric":
        one = _symmetric_pld(p, mu, h)
    elif adjacency == "add_remove":
        _check_gaussian_grid(mu, h, mu)
        if sampling != "poisson":
            raise InputError("adjacency='add_remove' needs sampling='poisson' (fixed-size batches change size)", "adjacency")
        one = _pld.from_gaussian_mechanism(
            standard_deviation=1.0,
            sensitivity=mu,
            sampling_prob=p,
            value_discretization_interval=h,
            pessimistic_estimate=True,
            neighboring_relation=_NeighborRel.ADD_OR_REMOVE_ONE,
        )
    else:  # replace
        _check_gaussian_grid(mu / 2.0, h, mu)
        one = _pld.from_gaussian_mechanism(
            standard_deviation=1.0,
            sensitivity=mu / 2.0,
            sampling_prob=p,
            value_discretization_interval=h,
            pessimistic_estimate=True,
            neighboring_relation=_NeighborRel.REPLACE_ONE,
        )
    return one if steps == 1 else one.self_compose(steps)


@functools.lru_cache(maxsize=64)
def _gaussian(mu: float, h: float):
    if mu == 0.0:
        return _pld.identity(value_discretization_interval=h)
    _check_gaussian_grid(mu, h, mu)
    return _pld.from_gaussian_mechanism(
        standard_deviation=1.0, sensitivity=mu, value_discretization_interval=h, pessimistic_estimate=True
    )


class _HockeyStick:
    """Vectorised delta(eps) and eps(delta) of one dp_accounting PMF (same formulas as dp_accounting).

    dp_accounting's ``get_delta_for_epsilon`` / ``get_epsilon_for_delta`` walk the PMF in a Python loop
    (~1 s for the 2e5-point PMF of 1000 composed steps). With losses ``l_i = l_0 + i h``, probabilities
    ``p_i`` and infinity mass ``m``: ``delta(eps) = U_i - e^{eps - l_i} W_i`` for ``l_{i-1} < eps <= l_i``,
    ``U_i = m + sum_{j>=i} p_j``, ``W_i = sum_{j>=i} p_j e^{-(j-i) h}`` (suffix sums, computed once).
    """

    def __init__(self, pmf):
        dense = pmf.to_dense_pmf()
        # private fields of DensePLDPmf (dp_accounting 0.6): the grid and the masses
        h = dense._discretization
        probs = np.asarray(dense._probs, dtype=float)
        self.losses = (np.arange(probs.size) + dense._lower_loss) * h
        self.infinity_mass = float(dense._infinity_mass)
        self.upper = self.infinity_mass + np.cumsum(probs[::-1])[::-1]
        self.lower = lfilter([1.0], [1.0, -np.exp(-h)], probs[::-1])[::-1]

    def delta(self, eps: np.ndarray) -> np.ndarray:
        i = np.searchsorted(self.losses, eps, side="left")
        inside = i < self.losses.size
        out = np.full(eps.shape, self.infinity_mass)
        ii = i[inside]
        out[inside] = self.upper[ii] - np.exp(eps[inside] - self.losses[ii]) * self.lower[ii]
        return np.clip(out, self.infinity_mass, 1.0)

    def eps(self, delta: float) -> float:
        if self.infinity_mass > delta:
            return np.inf
        at_grid = self.upper - self.lower  # delta(l_i), non-increasing
        i = int(np.searchsorted(-at_grid, -delta, side="left"))  # first i with delta(l_i) <= delta
        if i >= self.losses.size:
            return max(float(self.losses[-1]), 0.0)
        if self.lower[i] <= 0.0 or self.upper[i] <= delta:
            return max(float(self.losses[i - 1]) if i > 0 else 0.0, 0.0)
        e = self.losses[i] + np.log((self.upper[i] - delta) / self.lower[i])
        return max(float(e), 0.0)


class Composition:
    """An exactly composed privacy guarantee (pessimistic PLD), with delta(eps), eps(delta), tradeoff.

    Build with :meth:`gaussian` or :meth:`subsampled_gaussian`, combine with :meth:`compose`
    (adaptive composition of the two guarantees, DRS22 Thm. 4 / Bok et al. Def. 2.6).
    """

    __slots__ = ("_pld", "interval", "description", "_curves")

    def __init__(self, pld: _pld.PrivacyLossDistribution, interval: float, description: str):
        self._pld = pld
        self.interval = interval
        self.description = description
        self._curves: list[_HockeyStick] | None = None

    @property
    def pld(self) -> _pld.PrivacyLossDistribution:
        """The underlying dp_accounting ``PrivacyLossDistribution``."""
        return self._pld

    def _hockey_sticks(self) -> list[_HockeyStick]:
        if self._curves is None:
            pld = self._pld
            pmfs = [pld._pmf_remove] if pld._symmetric else [pld._pmf_remove, pld._pmf_add]
            self._curves = [_HockeyStick(pmf) for pmf in pmfs]
        return self._curves

    def __repr__(self) -> str:
        return f"Composition({self.description})"

    # ---- constructors -------------------------------------------------------------------------------

    @classmethod
    def gaussian(cls, mu: float, value_discretization_interval: float = DEFAULT_INTERVAL) -> "Composition":
        """``G_mu``: the Gaussian mechanism with sensitivity/noise ratio ``mu >= 0`` (DRS22 Thm. 2)."""
        mu = validate.nonnegative("mu", mu)
        h = _interval(value_discretization_interval)
        return cls(_gaussian(mu, h), h, f"G_{mu:g}")

    @classmethod
    def subsampled_gaussian(
        cls,
        p: float,
        mu: float,
        T: int = 1,
        sampling: Sampling = "poisson",
        adjacency: Adjacency = "add_remove",
        value_discretization_interval: float = DEFAULT_INTERVAL,
    ) -> "Composition":
        """``T``-fold composition of the subsampled Gaussian mechanism (per-step GDP ``mu``, rate ``p``).

        ``p`` in (0, 1], ``mu >= 0``, integer ``T >= 0``; ``sampling`` "poisson" or "uniform";
        ``adjacency`` "add_remove" (Poisson only), "replace" or "symmetric" (see module docstring).
        """
        p = validate.probability("p", p)
        mu = validate.nonnegative("mu", mu)
        # the composed PMF outgrows memory beyond ~1e7 steps (870 MB at T = 1e7, p = 0.01, mu = 1)
        T = validate.integer("T", T, low=0, high=_MAX_STEPS)
        validate.choice("sampling", sampling, ("poisson", "uniform"))
        validate.choice("adjacency", adjacency, ("add_remove", "replace", "symmetric"))
        if adjacency == "add_remove" and sampling != "poisson":
            raise InputError("adjacency='add_remove' needs sampling='poisson' (fixed-size batches change size)", "adjacency")
        h = _interval(value_discretization_interval)
        pld = _subsampled_gaussian(p, mu, T, sampling, adjacency, h)
        return cls(pld, h, f"{sampling}-subsampled G_{mu:g} (p={p:g}, {adjacency})^{T}")

    # ---- algebra ------------------------------------------------------------------------------------

    def compose(self, other: "Composition") -> "Composition":
        """The composition of the two guarantees (same discretisation interval required)."""
        if not isinstance(other, Composition):
            raise InputError(f"other must be a Composition, got {type(other).__name__}", "other")
        if other.interval != self.interval:
            raise InputError(
                f"other has value_discretization_interval {other.interval:g}, expected {self.interval:g}", "other"
            )
        return Composition(self._pld.compose(other._pld), self.interval, f"{self.description} ⊗ {other.description}")

    # ---- queries ------------------------------------------------------------------------------------

    @_numeric
    def delta(self, eps: ArrayLike) -> np.ndarray | float:
        """Upper bound on delta(eps) (hockey-stick divergence, max over both orderings). Any real eps."""
        eps = validate.array("eps", eps, finite=False)
        flat = eps.ravel()
        values = np.maximum.reduce([c.delta(flat) for c in self._hockey_sticks()])
        return _result(np.clip(values, 0.0, 1.0).reshape(eps.shape))

    @_numeric
    def eps(self, delta: ArrayLike) -> np.ndarray | float:
        """Upper bound on the smallest eps >= 0 with delta(eps) <= delta; ``delta`` in (0, 1).

        Raises ValueError when no finite eps reaches ``delta`` (the truncated tail mass of the PLD
        already exceeds it; at the default truncation this needs ``delta`` below ~1e-15 per step).
        """
        delta = validate.array("delta", delta, low=0.0, low_open=True, high=1.0, high_open=True)
        curves = self._hockey_sticks()
        out = np.array([max(c.eps(float(d)) for c in curves) for d in delta.ravel()])
        if not np.isfinite(out).all():
            raise InputError(f"delta={delta.ravel()[~np.isfinite(out)][0]!r} is below the PLD's infinity mass; no finite eps", "delta")
        return _result(out.reshape(delta.shape))

    @_numeric
    def tradeoff(self, a: ArrayLike, eps_grid: ArrayLike | None = None) -> np.ndarray | float:
        """Tradeoff curve implied by the PLD: ``f(a) = max(0, sup_eps 1 - delta(eps) - e^eps a)``.

        The supremum over all real eps of the duals is the (symmetrised) tradeoff function of the
        guarantee (DRS22 Prop. 6 and its converse Prop. 2.12). Default eps grid: 4001 points spanning
        the support of the privacy loss (a restricted supremum: a lower bound on the exact f, off by
        about the grid step times the local slope).
        """
        a = validate.array("a", a, low=0.0, high=1.0)
        if eps_grid is None:
            curves = self._hockey_sticks()
            lo = min(float(c.losses[0]) for c in curves)
            hi = max(float(c.losses[-1]) for c in curves)
            eps_grid = np.linspace(min(lo, -hi), max(hi, -lo), 4001)
        eps_grid = validate.array("eps_grid", eps_grid).ravel()
        deltas = np.asarray(self.delta(eps_grid), dtype=float)
        flat = a.ravel()
        values = np.empty(flat.shape)
        chunk = 512
        with np.errstate(divide="ignore", over="ignore"):
            log_a = np.log(flat)
            for start in range(0, flat.size, chunk):
                la = log_a[start : start + chunk]
                cand = 1.0 - deltas[None, :] - np.exp(np.minimum(eps_grid[None, :] + la[:, None], 700.0))
                values[start : start + chunk] = np.max(cand, axis=1)
        return _result(np.clip(values, 0.0, 1.0 - flat).reshape(a.shape))
