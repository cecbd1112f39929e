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
    with tradeoff ``C_p(G_mu)`` (Bok et al. Prop. D.4, their ``SymmPoissonSubsampledGaussianMechanism``).

Every one-step PLD is discretised the same way: the hockey-stick curve ``delta(eps)`` of the step's pair,
in closed form and vectorised over the whole loss grid ``eps = k h`` (:func:`_step_curve`), handed to
dp_accounting's pessimistic connect-the-dots discretisation (``create_pmf_pessimistic_connect_dots_fixed_gap``)
on the grid dp_accounting itself would use; dp_accounting composes (FFT). This is what
``from_gaussian_mechanism`` computes, without its one-Python-call-per-grid-point inverse of the loss.

Memory is bounded by construction. Before a composition is built its peak size is estimated
(:func:`composition_bytes`) and a composition beyond :data:`BUILD_BYTES` is refused with an InputError
naming ``T`` (or the interval, or ``mu``), never attempted. Built PLDs live in a least-recently-used
cache bounded in bytes (:data:`CACHE`, :data:`CACHE_BYTES`: the one cache class of :mod:`verify.cache`,
each value measured as it is held), shared with :mod:`verify.privacy.operators`. A cached composition
keeps its probabilities and two suffix sums (24 bytes a point; the losses are computed from the index).
The operators never build a PLD at ``p = 1`` (a composed Gaussian, closed form), which were the largest
entries of the soundness search and half its build time.
A last Gaussian step is composed analytically (:meth:`Composition.delta_with_gaussian`), so no grid is
ever built for it, however small its noise.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from dp_accounting.pld import pld_pmf as _pld_pmf
from dp_accounting.pld import privacy_loss_distribution as _pld
from dp_accounting.pld import privacy_loss_mechanism as _mechanism
from numpy.typing import ArrayLike
from scipy import special
from scipy.signal import lfilter

from verify import validate
from verify.cache import BoundedCache
from verify.errors import InputError, PointRefused
from verify.privacy.fdp import _inverse_amplification, subsampled_gaussian_delta
from verify.privacy.gaussian import _numeric, _result, gdp_delta_terms, gdp_eps, gdp_log_delta

__all__ = [
    "CACHE", "CACHE_BYTES", "BUILD_BYTES", "Composition", "composition_bytes",
    "subsampled_delta_limit", "symmetric_subsampled_gaussian_pld",
]

Sampling = Literal["poisson", "uniform"]
Adjacency = Literal["add_remove", "replace", "symmetric"]

#: default discretisation of the privacy loss (dp_accounting's default)
DEFAULT_INTERVAL = 1e-4
#: largest one-step grid we build (points; its connect-the-dots PMF passes through a dict of this size)
_MAX_GRID = 4_000_000
#: most composed steps (memory)
_MAX_STEPS = 10_000_000
#: bytes of built PLDs kept at once (least recently used evicted first)
CACHE_BYTES = 512 * 2**20
#: largest estimated peak of building one composition (FFT workspace); beyond, refused before any work
BUILD_BYTES = 3 * 2**29  # 1.5 GiB: with the cache and the interpreter, a worker stays under 3 GB
#: dp_accounting's truncation of composed tails (``DensePLDPmf.self_compose``) and of one-step noise
_TAIL_TRUNCATION = 1e-15
_LOG_MASS_TRUNCATION = -50.0
#: peak bytes per point: FFT self-composition (complex input, power, inverse, rolled copy) and one entry
#: of a cached composition (probabilities and two suffix sums; the losses are computed from the index)
_FFT_BYTES_PER_POINT = 64
_CACHED_BYTES_PER_POINT = 24


#: dp_accounting keeps a PMF of at most this many points sparse (``pld_pmf._MAX_PMF_SPARSE_SIZE``)
_SPARSE_PMF_SIZE = int(getattr(_pld_pmf, "_MAX_PMF_SPARSE_SIZE", 1000))

#: the cache of built PLDs (one-step and composed), measured by :func:`verify.cache.nbytes_of`
CACHE = BoundedCache(CACHE_BYTES)


def _pmf_points(pmf) -> int:
    return int(pmf.size)


def _pld_points(pld: _pld.PrivacyLossDistribution) -> int:
    pmfs = [pld._pmf_remove] if pld._symmetric else [pld._pmf_remove, pld._pmf_add]
    return sum(_pmf_points(p) for p in pmfs)


# ---------------------------------------------------------------------------------------------------
# one-step hockey-stick curves, in closed form and vectorised (the pairs dp_accounting discretises)
# ---------------------------------------------------------------------------------------------------


def _mixture_pair_delta(p: float, s: float, kind: str, eps: np.ndarray) -> np.ndarray:
    """delta(eps) of dp_accounting's one-step pairs of the Poisson-subsampled Gaussian, noise N(0,1):

    * "remove": ``P = (1-p) N(0,1) + p N(-s,1)`` against ``Q = N(0,1)``;
    * "add": ``P = N(0,1)`` against ``Q = (1-p) N(0,1) + p N(s,1)``;
    * "replace": ``P = (1-p) N(0,1) + p N(-s,1)`` against ``Q = (1-p) N(0,1) + p N(s,1)``.

    The loss ``log(P/Q)(x)`` decreases in x, so ``delta = P(X <= x*) - e^eps Q(X <= x*)`` at the point
    ``x* = -log(u*)/s`` where it equals eps (dp_accounting's ``get_delta_for_epsilon``, here in closed
    form and vectorised). With ``u = e^{-s x}``, ``c = e^{-s^2/2}``, weights ``a`` (of P) and ``b`` (of Q)
    on the shifted components, the loss is ``log((1-a) + a c u) - log((1-b) + b c/u)`` and ``u*`` solves
    ``a c u^2 + ((1-a) - e^eps (1-b)) u - e^eps b c = 0``: linear for "remove" (``u* = (e^eps-1+p)/(p c)``,
    amplification by subsampling, Balle, Barthe, Gaboardi 2018 Thm. 8) and "add"
    (``u* = p c e^eps / (1 - (1-p) e^eps)``), the positive root for "replace". Where no ``x*`` exists the
    curve is its limit: ``1 - e^eps`` ("remove", ``eps <= log(1-p)``), 0 ("add", ``eps >= -log(1-p)``).
    Everything in log space.
    """
    if kind == "replace" and p == 1.0:  # N(-s) against N(s): the Gaussian mechanism G_{2s}
        return np.exp(np.asarray(gdp_log_delta(2.0 * s, eps), dtype=float))
    log_p = math.log(p)
    log_1mp = math.log1p(-p) if p < 1.0 else -np.inf
    half_s2 = 0.5 * s * s
    if kind == "remove":
        out = -np.expm1(np.minimum(eps, 0.0))  # the limit 1 - e^eps, kept where eps <= log(1-p)
        inner = eps > log_1mp
        e = eps[inner]
        log_u = _inverse_amplification(p, e) + half_s2
        weights_p, weights_q = (log_1mp, log_p), (0.0, -np.inf)
    elif kind == "add":
        out = np.zeros(eps.shape)  # the limit 0, kept where eps >= -log(1-p)
        inner = eps < -log_1mp
        e = eps[inner]
        log_f = np.log(-np.expm1(e + log_1mp)) if p < 1.0 else np.zeros(e.shape)  # log(1 - (1-p) e^eps)
        log_u = e + log_p - half_s2 - log_f
        weights_p, weights_q = (0.0, -np.inf), (log_1mp, log_p)
    else:  # replace
        out = np.empty(eps.shape)
        inner = np.ones(eps.shape, dtype=bool)
        e = eps
        a = np.abs(e)
        log_abs_expm1 = np.where(e > 0, a + np.log(-np.expm1(-a)), np.log(-np.expm1(-a)))  # log|e^eps - 1|
        log_half_b = log_1mp + log_abs_expm1 - math.log(2.0) - (log_p - half_s2)  # log|A|, A = r(e^eps-1)/(2pc)
        g = e - 2.0 * log_half_b  # log(e^eps / A^2)
        t = np.logaddexp(0.0, 0.5 * np.logaddexp(0.0, g))  # log(1 + sqrt(1 + e^eps / A^2))
        log_u = np.where(e > 0, log_half_b + t, e - log_half_b - t)  # A < 0: u* = e^eps / (|A| + sqrt(A^2 + e^eps))
        log_u = np.where(e == 0, 0.0, log_u)
        weights_p, weights_q = (log_1mp, log_p), (log_1mp, log_p)
    x = -log_u / s
    log_phi_x = special.log_ndtr(x)
    log_cdf_p = np.logaddexp(weights_p[0] + log_phi_x, weights_p[1] + special.log_ndtr(x + s))
    log_cdf_q = np.logaddexp(weights_q[0] + log_phi_x, weights_q[1] + special.log_ndtr(x - s))
    with np.errstate(invalid="ignore"):  # x* = -inf (P(X <= x*) = 0) gives -inf - -inf: delta is 0 there
        out[inner] = np.where(log_cdf_p == -np.inf, 0.0,
                              np.exp(log_cdf_p) * -np.expm1(np.minimum(e + log_cdf_q - log_cdf_p, 0.0)))
    return out


def _step_grid(p: float, mu: float, kind: str, h: float) -> tuple[int, int]:
    """Integer range ``[k_lo, k_hi]`` of the one-step loss grid ``k h`` (nothing is built).

    ``kind`` "symmetric": ``[-eps_hi, eps_hi]`` with ``delta(eps_hi) <= e^-50``; "remove", "add", "replace":
    dp_accounting's own connect-the-dots bounds (noise truncated at ``e^-50``), so grids are identical.
    """
    if kind == "symmetric":
        with np.errstate(over="ignore"):
            ell_hi = float(gdp_eps(mu, np.exp(_LOG_MASS_TRUNCATION)))
            # eps_hi = log(1 + p (e^ell_hi - 1)), written to avoid overflow of e^ell_hi
            eps_hi = ell_hi + float(np.log(p + (1.0 - p) * np.exp(-ell_hi)))
        eps_hi = max(eps_hi, 2.0 * h)
        if not (2.0 * eps_hi / h + 1.0 <= _MAX_GRID):
            raise _too_large(mu, h, eps_hi)
        k_hi = int(np.ceil(eps_hi / h))
        return -k_hi, k_hi
    sensitivity = mu / 2.0 if kind == "replace" else mu
    with np.errstate(over="ignore"):
        span = sensitivity * sensitivity / 2.0 + 8.0 * sensitivity  # about the loss range either side
    if not span * 2.0 / h <= _MAX_GRID:
        raise _too_large(mu, h, span)
    adjacency = {"remove": _mechanism.AdjacencyType.REMOVE, "add": _mechanism.AdjacencyType.ADD,
                 "replace": _mechanism.AdjacencyType.REPLACE}[kind]
    bounds = _mechanism.GaussianPrivacyLoss(
        1.0, sensitivity=sensitivity, log_mass_truncation_bound=_LOG_MASS_TRUNCATION, sampling_prob=p,
        adjacency_type=adjacency).connect_dots_bounds()
    k_lo, k_hi = math.floor(bounds.epsilon_lower / h), math.ceil(bounds.epsilon_upper / h)
    if not k_hi - k_lo + 1 <= _MAX_GRID:
        raise _too_large(mu, h, max(abs(bounds.epsilon_lower), abs(bounds.epsilon_upper)))
    return k_lo, k_hi


def _step_curve(p: float, mu: float, kind: str, eps: np.ndarray) -> np.ndarray:
    """The hockey-stick curve of one step's pair on ``eps`` (see :func:`_step_grid` for ``kind``)."""
    if kind == "symmetric":
        return np.asarray(subsampled_gaussian_delta(p, mu, eps), dtype=float)
    return _mixture_pair_delta(p, mu / 2.0 if kind == "replace" else mu, kind, eps)


def _step_pmf(p: float, mu: float, kind: str, h: float):
    """Pessimistic connect-the-dots PMF of one step (Doroshenko et al. 2022, Alg. 1, by dp_accounting)."""
    k_lo, k_hi = _step_grid(p, mu, kind, h)
    with np.errstate(all="ignore"):  # the curves handle their limits explicitly
        deltas = np.clip(_step_curve(p, mu, kind, np.arange(k_lo, k_hi + 1) * h), 0.0, 1.0)
    deltas = np.minimum.accumulate(deltas)  # exact curve is non-increasing; remove rounding ripples
    return _connect_dots_pmf(h, k_lo, k_hi, deltas)


def _connect_dots_pmf(h: float, k_lo: int, k_hi: int, deltas: np.ndarray):
    """The pessimistic connect-the-dots PMF of a non-increasing curve ``deltas`` on the grid ``k h``,
    ``k_lo <= k <= k_hi`` (Doroshenko et al. 2022, Alg. 1): mass
    ``((d_{i+1} - d_i) - e^h (d_i - d_{i-1})) / (e^h - 1)`` at ``eps_i``, ``1 - d_1 + (d_2 - d_1) / (e^h - 1)`` at
    the first point, ``(d_n - d_{n-1}) / (e^{-h} - 1)`` at the last, ``d_n`` at infinity.

    dp_accounting's ``create_pmf_pessimistic_connect_dots_fixed_gap`` computes these masses with numpy
    and then passes them through a Python dict of one entry per point (a third of an exact Poisson
    accounting's time); here the same arithmetic, in the same order, is handed to its ``DensePLDPmf``
    directly, so the PMF is bit for bit the one it builds (``tests/privacy/test_pld_shortcuts.py``).
    Below its sparse-size threshold dp_accounting builds a sparse PMF: its own function is called.
    """
    if deltas.size <= _SPARSE_PMF_SIZE:
        return _pld_pmf.create_pmf_pessimistic_connect_dots_fixed_gap(h, k_lo, k_hi, deltas)
    diffs = np.diff(deltas)
    probs = np.empty_like(deltas)
    probs[0] = 1 - deltas[0] + diffs[0] / math.expm1(h)
    probs[1:-1] = (diffs[1:] - diffs[:-1] * math.exp(h)) / math.expm1(h)
    probs[-1] = diffs[-1] / math.expm1(-h)
    return _pld_pmf.DensePLDPmf(h, k_lo, np.maximum(0.0, probs), deltas[-1], pessimistic_estimate=True)


def _step_kinds(adjacency: str, p: float) -> tuple[str, ...]:
    if adjacency == "symmetric":
        return ("symmetric",)
    if adjacency == "replace":
        return ("replace",)
    return ("remove",) if p == 1.0 else ("remove", "add")  # at p = 1 both orderings coincide


def _one_step(p: float, mu: float, adjacency: str, h: float) -> _pld.PrivacyLossDistribution:
    """The one-step PLD (cached in :data:`CACHE`); ``mu > 0``."""

    def build():
        return _pld.PrivacyLossDistribution(*[_step_pmf(p, mu, kind, h) for kind in _step_kinds(adjacency, p)])

    return CACHE.get(("step", p, mu, adjacency, h), build)


def _too_large(mu: float, h: float, span: float) -> PointRefused:
    coarsest = 2.0 * span / _MAX_GRID  # an interval with which the grid would fit
    if coarsest <= 0.1:
        return PointRefused(
            f"value_discretization_interval={h:g} is too fine for mu={mu:g}: the privacy loss spans "
            f"+-{span:.4g}; use an interval >= {coarsest:.2g}", "value_discretization_interval")
    return PointRefused(
        f"mu={mu:g} is too large (the noise is too small) for an exact PLD: the privacy loss spans +-{span:.4g}",
        "mu")


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
    if mu == 0.0:
        return _pld.identity(value_discretization_interval=h)
    return _one_step(p, mu, "symmetric", h)


def _interval(value) -> float:
    """The discretisation interval of the privacy loss, in (0, 1] (coarser than one nat means nothing)."""
    h = validate.positive("value_discretization_interval", value)
    if h > 1.0:
        raise InputError(f"value_discretization_interval must be <= 1, got {value!r}", "value_discretization_interval")
    return h


def subsampled_delta_limit(p: float, mu: float, steps: int, eps: float) -> float | None:
    """delta(eps) of T-fold ``C_p(G_mu)`` (or of Bu et al.'s Poisson composition) when mu is so large that
    it equals its mu -> infinity limit ``1 - (1 - p)^T`` to float precision; None otherwise.

    Both tradeoffs lie above ``f_{0,p}^{⊗T} = f_{0, 1-(1-p)^T}`` (``f_p >= f_{0,p}``, composition is
    monotone), so delta(eps) <= the limit for eps >= 0. Below, both lie under ``f_p^{⊗T}`` and the event
    "some coordinate exceeds mu/2" shows delta(eps) >= limit - T Phi(-mu/2) (p + e^eps).
    """
    if not (eps >= 0.0 and mu > 0.0 and steps >= 1):
        return None
    limit = float(-np.expm1(float(steps) * np.log1p(-p))) if p < 1.0 else 1.0
    log_gap = math.log(steps) + float(special.log_ndtr(-mu / 2.0)) + float(np.logaddexp(np.log(p), eps))
    return limit if log_gap <= np.log(1e-16 * limit) else None


# ---------------------------------------------------------------------------------------------------
# size estimates and composed PLDs
# ---------------------------------------------------------------------------------------------------


def _composed_points(pmf, steps: int) -> int:
    """Estimated length of dp_accounting's ``self_compose(steps)`` of one dense ``pmf``.

    dp_accounting keeps the range outside which the composed mass is below 1e-15 by a Chernoff bound; the
    estimate is the Gaussian range of the sum with 1.5 times its width, plus two one-step widths (the
    bound's slack at small T), capped by the exact support ``steps (n - 1) + 1``.
    ``tests/privacy/test_pld_memory.py`` checks it against dp_accounting's own bound.
    """
    dense = pmf.to_dense_pmf()
    probs = np.asarray(dense._probs, dtype=float)
    n = probs.size
    total = float(probs.sum())
    if steps == 1 or n == 1 or total <= 0.0:
        return n
    k = np.arange(n, dtype=float)  # element-wise sums: a BLAS call costs more here (thread wake-up)
    mean = float(np.sum(probs * k)) / total
    var = max(float(np.sum(probs * (k - mean) ** 2)) / total, 0.0)
    z = math.sqrt(2.0 * math.log(2.0 / _TAIL_TRUNCATION))
    gaussian = 1.5 * 2.0 * z * math.sqrt(steps * var)
    return int(min(steps * (n - 1) + 1, math.ceil(gaussian) + 2 * n))


def composition_bytes(p: float, mu: float, T: int, adjacency: Adjacency = "add_remove",
                      value_discretization_interval: float = DEFAULT_INTERVAL) -> int:
    """Estimated peak bytes of building ``Composition.subsampled_gaussian(p, mu, T, adjacency=...)``.

    Two stages, so that nothing large is ever built to find out: the one-step grid's size is a closed form
    (refused beyond 4e6 points); the composed length follows from the one-step PMF's variance
    (:func:`_composed_points`). 0 when nothing needs building (``mu = 0``, ``T = 0``) or it is cached.
    """
    p = validate.probability("p", p)
    mu = validate.nonnegative("mu", mu)
    T = validate.integer("T", T, low=0, high=_MAX_STEPS)
    validate.choice("adjacency", adjacency, ("add_remove", "replace", "symmetric"))
    h = _interval(value_discretization_interval)
    if mu == 0.0 or T == 0 or ("composed", p, mu, T, adjacency, h) in CACHE:
        return 0
    return _composition_peak(p, mu, T, adjacency, h)


#: dp_accounting's Chernoff truncation of a self-composition is kept only where it is expected to shorten the
#: FFT by more than this factor (see :func:`_composed_length`)
_TRUNCATION_GAIN = 1.25


def _composed_length(pmf, steps: int) -> tuple[int, bool]:
    """Estimated length of the self-composition of ``pmf`` as :func:`_self_composed` builds it, and whether it
    truncates the tails.

    dp_accounting bounds the kept window by Chernoff bounds at 40 orders, one log-sum-exp over the one-step
    PMF each: 60-70% of a composition's time when the window is not much shorter than the whole support
    ``steps (n - 1) + 1`` (few steps: at 2 or 3 steps it is the whole support).  There, asking dp_accounting
    for no truncation (``tail_mass_truncation=0``) skips the bounds and composes the whole support exactly.
    """
    n = int(pmf.size)
    full = steps * (n - 1) + 1
    if steps <= 1 or not isinstance(pmf, _pld_pmf.DensePLDPmf):
        return _composed_points(pmf, steps), True
    estimate = _composed_points(pmf, steps)
    if full <= _TRUNCATION_GAIN * estimate:
        return full, False
    return estimate, True


def _self_composed(pmf, steps: int):
    """dp_accounting's ``self_compose(steps)`` of one PMF: with its default tail truncation, or none where the
    truncation would barely shorten the result (:func:`_composed_length`).  Without truncation the mass
    dp_accounting's default adds at infinity (1e-15) is added all the same: it is what keeps delta(eps) an
    upper bound where the composed masses are below the FFT's rounding (~1e-16 a point), so both results are
    pessimistic and agree to the truncated tails (tests/privacy/test_pld_shortcuts.py)."""
    _, truncate = _composed_length(pmf, steps)
    if truncate:
        return pmf.self_compose(steps)
    whole = pmf.self_compose(steps, tail_mass_truncation=0.0)
    return _pld_pmf.DensePLDPmf(whole._discretization, whole._lower_loss, whole._probs,
                                whole._infinity_mass + _TAIL_TRUNCATION, whole._pessimistic_estimate)


def _composition_peak(p: float, mu: float, T: int, adjacency: str, h: float) -> int:
    one = _one_step(p, mu, adjacency, h)
    pmfs = [one._pmf_remove] if one._symmetric else [one._pmf_remove, one._pmf_add]
    sizes = [_composed_length(pmf, T)[0] for pmf in pmfs]
    # pmfs are composed one after the other: the peak is the largest FFT plus what is already kept
    return max(_FFT_BYTES_PER_POINT * s for s in sizes) + _CACHED_BYTES_PER_POINT * sum(sizes)


def _composed(p: float, mu: float, T: int, adjacency: str, h: float) -> "_Curves":
    """``T``-fold composition of the one-step PLD with its hockey-stick curves (cached in :data:`CACHE`)."""

    def build():
        peak = _composition_peak(p, mu, T, adjacency, h)
        if peak > BUILD_BYTES:
            raise PointRefused(
                f"T={T} steps of mu={mu:g}, p={p:g} at value_discretization_interval={h:g} would need about "
                f"{peak / 2**30:.2g} GiB to compose exactly (limit {BUILD_BYTES / 2**30:.2g} GiB); use fewer "
                f"steps or a coarser interval", "T")
        one = _one_step(p, mu, adjacency, h)
        if T == 1:
            return _Curves(one)
        remove = _self_composed(one._pmf_remove, T)
        return _Curves(_pld.PrivacyLossDistribution(remove, None if one._symmetric else _self_composed(one._pmf_add, T)))

    return CACHE.get(("composed", p, mu, T, adjacency, h), build)


def _gaussian(mu: float, h: float) -> "_Curves":
    """``G_mu`` (``mu > 0``): the one-step PLD without subsampling, as dp_accounting builds it."""
    return _composed(1.0, mu, 1, "add_remove", h)


class _HockeyStick:
    """Vectorised delta(eps) and eps(delta) of one dp_accounting PMF (same formulas as dp_accounting).

    dp_accounting's ``get_delta_for_epsilon`` / ``get_epsilon_for_delta`` walk the PMF in a Python loop
    (~1 s for the 2e5-point PMF of 1000 composed steps). With losses ``l_i = l_0 + i h``, probabilities
    ``p_i`` and infinity mass ``m``: ``delta(eps) = U_i - e^{eps - l_i} W_i`` for ``l_{i-1} < eps <= l_i``,
    ``U_i = m + sum_{j>=i} p_j``, ``W_i = sum_{j>=i} p_j e^{-(j-i) h}`` (suffix sums, computed once).
    """

    __slots__ = ("probs", "first", "h", "size", "infinity_mass", "upper", "lower")

    def __init__(self, pmf):
        dense = pmf.to_dense_pmf()
        # private fields of DensePLDPmf (dp_accounting 0.6): the grid and the masses
        self.h = h = float(dense._discretization)
        self.probs = np.asarray(dense._probs, dtype=float)
        self.first = int(dense._lower_loss)
        self.size = int(self.probs.size)
        self.infinity_mass = float(dense._infinity_mass)
        self.upper = self.infinity_mass + np.cumsum(self.probs[::-1])[::-1]
        self.lower = lfilter([1.0], [1.0, -np.exp(-h)], self.probs[::-1])[::-1]

    # The losses l_i = (i + first) h are not kept (a cached composition holds millions of points): each
    # is computed as dp_accounting computes it, from the integer index, so values are bit for bit the same.

    def loss(self, i) -> np.ndarray | float:
        """The loss ``l_i`` of index ``i`` (integer or integer array)."""
        return (np.asarray(i, dtype=np.int64) + self.first) * self.h

    def losses(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """The losses ``l_start .. l_{stop-1}``."""
        return (np.arange(start, self.size if stop is None else stop) + self.first) * self.h

    def search(self, x, side: str = "left") -> np.ndarray:
        """``np.searchsorted(losses, x, side)`` without the losses array: the index from ``x / h``, then
        corrected against the exact losses (the division can round across a grid point)."""
        x = np.asarray(x, dtype=float)
        with np.errstate(invalid="ignore"):
            guess = np.clip(np.ceil(x / self.h) - self.first, 0, self.size)
        i = np.where(np.isnan(guess), self.size, guess).astype(np.int64)
        for _ in range(2):
            below = i > 0
            previous = self.loss(np.maximum(i - 1, 0))
            i = i - (below & ((previous >= x) if side == "left" else (previous > x)))
            above = i < self.size
            current = self.loss(np.minimum(i, self.size - 1))
            i = i + (above & ((current < x) if side == "left" else (current <= x)))
        return i

    def delta(self, eps: np.ndarray) -> np.ndarray:
        i = self.search(eps, side="left")
        inside = i < self.size
        out = np.full(eps.shape, self.infinity_mass)
        ii = i[inside]
        out[inside] = self.upper[ii] - np.exp(eps[inside] - self.loss(ii)) * self.lower[ii]
        return np.clip(out, self.infinity_mass, 1.0)

    def delta_with_gaussian(self, mu: float, eps: float) -> float:
        """delta(eps) of this PLD composed with ``G_mu``: ``m + sum_i p_i delta_G(mu, eps - l_i)``.

        The composed privacy loss is ``L + L_G`` with independent terms and ``L_G`` finite, so
        ``E[(1 - e^{eps - L - L_G})_+] = sum_i p_i E[(1 - e^{eps - l_i - L_G})_+]`` plus the infinite mass:
        the hockey-stick divergence of a product pair is the PLD's expectation of the Gaussian's
        (Dong, Roth, Su 2022 Prop. B.1 / Bok et al. Def. 2.6 in PLD form). One vectorised pass over the
        losses with ``|eps - l_i| < c = mu^2/2 + 12 mu``; beyond, ``delta_G(x) <= delta_G(c) < Phi(-12)``
        (x >= c) and ``delta_G(x) = 1 - e^x + e^x delta_G(-x)`` (x <= -c, by the symmetry of G_mu) give
        closed forms from the suffix sums, with ``delta_G(c)`` times the mass added so the result stays an
        upper bound (off by less than 2e-33).
        """
        cut = 0.5 * mu * mu + 12.0 * mu
        tail = float(np.exp(np.asarray(gdp_log_delta(mu, cut), dtype=float)))
        n = self.size
        i_lo = int(self.search(eps - cut, side="right"))  # l_i <= eps - c: x >= c
        i_hi = int(self.search(eps + cut, side="left"))  # l_i >= eps + c: x <= -c
        total = self.infinity_mass + tail * float(np.sum(self.probs[:i_lo]))
        if i_hi < n:  # sum_{i >= i_hi} p_i (1 - e^{eps - l_i}) + e^{eps - l_i} p_i delta_G(c)
            high = (self.upper[i_hi] - self.infinity_mass) - np.exp(eps - self.loss(i_hi)) * self.lower[i_hi]
            total += max(float(high), 0.0) + tail * float(self.upper[i_hi] - self.infinity_mass)
        chunk = 1 << 20
        for start in range(i_lo, i_hi, chunk):
            stop = min(start + chunk, i_hi)
            # FFT rounding leaves masses of -1e-14 or so: dropping them keeps the sum an upper bound
            w = np.maximum(self.probs[start:stop], 0.0)
            x = eps - self.losses(start, stop)
            total += float(np.sum(w * gdp_delta_terms(mu, x)))
        return min(total, 1.0)

    def eps(self, delta: np.ndarray) -> np.ndarray:
        """The smallest eps >= 0 with delta(eps) <= delta, for each entry of ``delta`` (inf below the
        infinity mass): on the segment of the grid where delta(l_i) crosses it, the closed form of the
        curve between grid points (one searchsorted for all the deltas)."""
        delta = np.asarray(delta, dtype=float)
        at_grid = self.upper - self.lower  # delta(l_i), non-increasing
        i = np.searchsorted(-at_grid, -delta, side="left")  # first i with delta(l_i) <= delta
        n = self.size
        out = np.empty(delta.shape)
        beyond = i >= n
        out[beyond] = max(float(self.loss(n - 1)), 0.0)
        j = np.minimum(i, n - 1)
        previous = np.where(i > 0, self.loss(np.maximum(i - 1, 0)), 0.0)
        at_previous = ~beyond & ((self.lower[j] <= 0.0) | (self.upper[j] <= delta))
        out[at_previous] = previous[at_previous]
        inside = ~beyond & ~at_previous
        with np.errstate(divide="ignore", invalid="ignore"):
            out[inside] = self.loss(j[inside]) + np.log((self.upper[j[inside]] - delta[inside]) / self.lower[j[inside]])
        out = np.maximum(out, 0.0)
        out[self.infinity_mass > delta] = np.inf
        return out


class _Curves:
    """A built PLD with the hockey-stick curves of its PMFs (what the cache keeps)."""

    __slots__ = ("pld", "curves")

    def __init__(self, pld: _pld.PrivacyLossDistribution):
        self.pld = pld
        pmfs = [pld._pmf_remove] if pld._symmetric else [pld._pmf_remove, pld._pmf_add]
        self.curves = [_HockeyStick(pmf) for pmf in pmfs]


class Composition:
    """An exactly composed privacy guarantee (pessimistic PLD), with delta(eps), eps(delta), tradeoff.

    Build with :meth:`gaussian` or :meth:`subsampled_gaussian`, combine with :meth:`compose`
    (adaptive composition of the two guarantees, DRS22 Thm. 4 / Bok et al. Def. 2.6), or compose a last
    Gaussian step analytically with :meth:`delta_with_gaussian`.
    """

    __slots__ = ("_pld", "interval", "description", "_curves")

    def __init__(self, pld: _pld.PrivacyLossDistribution, interval: float, description: str,
                 _curves: _Curves | None = None):
        self._pld = pld
        self.interval = interval
        self.description = description
        self._curves = _curves

    @property
    def pld(self) -> _pld.PrivacyLossDistribution:
        """The underlying dp_accounting ``PrivacyLossDistribution``."""
        return self._pld

    def _hockey_sticks(self) -> list[_HockeyStick]:
        if self._curves is None:
            self._curves = _Curves(self._pld)
        return self._curves.curves

    def __repr__(self) -> str:
        return f"Composition({self.description})"

    # ---- constructors -------------------------------------------------------------------------------

    @classmethod
    def gaussian(cls, mu: float, value_discretization_interval: float = DEFAULT_INTERVAL) -> "Composition":
        """``G_mu``: the Gaussian mechanism with sensitivity/noise ratio ``mu >= 0`` (DRS22 Thm. 2)."""
        mu = validate.nonnegative("mu", mu)
        h = _interval(value_discretization_interval)
        if mu == 0.0:
            return cls(_pld.identity(value_discretization_interval=h), h, "G_0")
        built = _gaussian(mu, h)
        return cls(built.pld, h, f"G_{mu:g}", built)

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
        A composition whose estimated build exceeds :data:`BUILD_BYTES` is refused (InputError naming ``T``).
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
        description = f"{sampling}-subsampled G_{mu:g} (p={p:g}, {adjacency})^{T}"
        if mu == 0.0 or T == 0:
            return cls(_pld.identity(value_discretization_interval=h), h, description)
        with np.errstate(all="ignore"):  # overflow is handled: a too-wide loss is refused by the grid check
            built = _composed(p, mu, T, adjacency, h)
        return cls(built.pld, h, description, built)

    # ---- algebra ------------------------------------------------------------------------------------

    def compose(self, other: "Composition") -> "Composition":
        """The composition of the two guarantees (same discretisation interval required).

        Refused (InputError naming ``other``) when the FFT would exceed :data:`BUILD_BYTES`; a Gaussian
        last step needs no grid at all through :meth:`delta_with_gaussian`.
        """
        if not isinstance(other, Composition):
            raise InputError(f"other must be a Composition, got {type(other).__name__}", "other")
        if other.interval != self.interval:
            raise InputError(
                f"other has value_discretization_interval {other.interval:g}, expected {self.interval:g}", "other"
            )
        points = _pld_points(self._pld) + _pld_points(other._pld)
        if _FFT_BYTES_PER_POINT * points > BUILD_BYTES:
            raise PointRefused(f"composing PLDs of {points} points in all would need more than "
                               f"{BUILD_BYTES / 2**30:.2g} GiB", "other")
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
    def delta_with_gaussian(self, mu: ArrayLike, eps: ArrayLike) -> np.ndarray | float:
        """Upper bound on delta(eps) of this guarantee composed with ``G_mu`` (``mu >= 0``, any real eps).

        Computed analytically: for each ordering, ``m + sum_i p_i delta_G(mu, eps - l_i)`` over the PLD's
        losses ``l_i`` with masses ``p_i`` and infinite mass ``m`` (the PLD is pessimistic and ``G_mu``
        exact, so the result bounds the true composition from above, more tightly than a discretised
        Gaussian). No grid is built for ``G_mu``, however large ``mu``. Bok et al. 2024 Thms 4.9, 4.10.
        """
        mu = validate.array("mu", mu, low=0.0)
        eps = validate.array("eps", eps, finite=False)
        mu, eps = np.broadcast_arrays(mu, eps)
        flat_mu, flat_eps = mu.ravel(), eps.ravel()
        curves = self._hockey_sticks()
        out = np.empty(flat_mu.shape)
        for j, (m, e) in enumerate(zip(flat_mu, flat_eps)):
            if m == 0.0:
                out[j] = max(float(c.delta(np.array([e]))[0]) for c in curves)
            else:
                out[j] = max(c.delta_with_gaussian(float(m), float(e)) for c in curves)
        return _result(np.clip(out, 0.0, 1.0).reshape(mu.shape))

    @_numeric
    def eps(self, delta: ArrayLike) -> np.ndarray | float:
        """Upper bound on the smallest eps >= 0 with delta(eps) <= delta; ``delta`` in (0, 1).

        Raises ValueError when no finite eps reaches ``delta`` (the truncated tail mass of the PLD
        already exceeds it; at the default truncation this needs ``delta`` below ~1e-15 per step).
        """
        delta = validate.array("delta", delta, low=0.0, low_open=True, high=1.0, high_open=True)
        curves = self._hockey_sticks()
        out = np.maximum.reduce([c.eps(delta.ravel()) for c in curves])
        if not np.isfinite(out).all():
            raise PointRefused(f"delta={delta.ravel()[~np.isfinite(out)][0]!r} is below the PLD's infinity mass; no "
                               "finite eps", "delta")
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
            lo = min(float(c.loss(0)) for c in curves)
            hi = max(float(c.loss(c.size - 1)) for c in curves)
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
