"""f-DP: tradeoff curves, the conjugate duality to (eps, delta), and the subsampling operator C_p.

* ``f_{eps,delta}(a) = max{0, 1 - delta - e^eps a, e^-eps (1 - delta - a)}`` (Bu et al. 2020 eq. (2.1);
  DRS22 eq. (5)).
* An f-DP mechanism is (eps, delta(eps))-DP with ``delta(eps) = 1 + f*(-e^eps)
  = sup_a {1 - f(a) - e^eps a}`` (DRS22 Prop. 6; Bok et al. 2024 §1 "General conversions").
* ``C_p(f) = min{f_p, f_p^{-1}}**`` with ``f_p = p f + (1 - p) Id`` (Bok et al. 2024 Def. 4.7; DRS22 Def. 6),
  with the closed form for ``f = G_mu`` of docs/papers/bok2024.md Def. 4.7.
"""

from __future__ import annotations

import os
from typing import Callable

import numpy as np
from numpy.typing import ArrayLike

from verify import validate
from verify.errors import InputError, PointRefused
from verify.privacy.gaussian import (_norm_cdf, _norm_logsf, _norm_ppf, _norm_sf, _numeric, _result, gdp_log_delta,
                                     tradeoff_gaussian)

__all__ = [
    "tradeoff_eps_delta",
    "delta_from_tradeoff",
    "subsampled_gaussian_tradeoff",
    "subsample_tradeoff",
    "subsampled_gaussian_delta",
    "PiecewiseLinearTradeoff",
    "DEFAULT_GRID",
]

#: type-I errors used by the grid-based routines: dense near 0 and 1 (log-spaced) and in the bulk
DEFAULT_GRID: np.ndarray = np.unique(
    np.concatenate([[0.0, 1.0], np.logspace(-16, 0, 1601), 1.0 - np.logspace(-16, 0, 1601), np.linspace(0, 1, 4001)])
)
DEFAULT_GRID = DEFAULT_GRID[(DEFAULT_GRID >= 0.0) & (DEFAULT_GRID <= 1.0)]


@_numeric
def tradeoff_eps_delta(a: ArrayLike, eps: ArrayLike, delta: ArrayLike) -> np.ndarray | float:
    """``f_{eps,delta}(a) = max{0, 1 - delta - e^eps a, e^-eps (1 - delta - a)}``: (eps, delta)-DP as f-DP.

    Bu et al. 2020 eq. (2.1) (Wasserman & Zhou 2010). ``a`` in [0, 1], ``eps >= 0``, ``delta`` in [0, 1].
    """
    a = validate.array("a", a, low=0.0, high=1.0)
    eps = validate.array("eps", eps, low=0.0)
    delta = validate.array("delta", delta, low=0.0, high=1.0)
    with np.errstate(divide="ignore"):
        first = 1.0 - delta - np.exp(np.minimum(eps + np.log(a), 700.0))
    second = np.exp(-eps) * (1.0 - delta - a)
    return _result(np.maximum(0.0, np.maximum(first, second)))


#: bytes per requested grid point across the grid routines (3 sub-grids, ~10 work arrays, the hull lists)
_BYTES_PER_GRID_POINT = 600


def _available_memory() -> int:
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # not POSIX: assume 1 GiB
        return 2**30


def _grid(grid: ArrayLike | int | None) -> np.ndarray:
    if grid is None:
        return DEFAULT_GRID
    if np.ndim(grid) == 0:
        n = validate.integer("grid", grid, low=3)
        need = n * _BYTES_PER_GRID_POINT
        if need > _available_memory() // 2:  # estimate before allocating
            raise PointRefused(
                f"grid={n} needs about {need / 2**30:.3g} GiB, more than half the free memory "
                f"({_available_memory() / 2**30:.3g} GiB); use fewer points", "grid")
        return np.unique(np.concatenate([np.linspace(0.0, 1.0, n), np.logspace(-16, 0, n), 1.0 - np.logspace(-16, 0, n)]))
    g = np.unique(validate.array("grid", grid, low=0.0, high=1.0).ravel())
    if g.size < 3:
        raise InputError("grid must contain at least 3 distinct points in [0, 1]", "grid")
    return g


def _evaluate_tradeoff(f: Callable, a: np.ndarray) -> np.ndarray:
    if not callable(f):
        raise InputError("f must be a callable tradeoff function a -> f(a)", "f")
    values = np.asarray(f(a), dtype=float)
    if values.shape != a.shape:
        values = np.broadcast_to(values, a.shape).astype(float)
    if np.isnan(values).any() or (values < -1e-12).any() or (values > 1 + 1e-12).any():
        raise InputError("f must map [0, 1] into [0, 1] (got NaN or a value outside [0, 1])", "f")
    return np.clip(values, 0.0, 1.0)


@_numeric
def delta_from_tradeoff(f: Callable[[np.ndarray], np.ndarray], eps: ArrayLike, grid: ArrayLike | int | None = None) -> np.ndarray | float:
    """``delta(eps) = 1 + f*(-e^eps) = sup_{a in [0,1]} {1 - f(a) - e^eps a}`` for a tradeoff function ``f``.

    DRS22 Prop. 6 (Bu et al. 2020 §2.1 duality; Bok et al. Def. D.1). ``f`` must be vectorised over a
    numpy array of type-I errors and symmetric (otherwise this is delta of the ordered pair only; use
    ``max`` with ``f^{-1}`` for the symmetrised guarantee, Bu et al. §1 ⚠ note). The objective is concave
    in ``a``: the maximum over ``grid`` (default :data:`DEFAULT_GRID`) is refined by bounded Brent on the
    neighbouring grid cells. ``eps`` is any real (array allowed); result in [0, 1].
    """
    from scipy import optimize  # here: 0.1 s of import that the registry never needs

    eps = validate.array("eps", eps)
    a = _grid(grid)
    fa = _evaluate_tradeoff(f, a)
    flat = eps.ravel()
    out = np.empty(flat.shape)
    for i, e in enumerate(flat):
        ee = np.exp(min(e, 700.0))
        obj = 1.0 - fa - ee * a
        j = int(np.argmax(obj))
        best = obj[j]
        lo, hi = a[max(j - 1, 0)], a[min(j + 1, len(a) - 1)]
        if hi > lo:
            res = optimize.minimize_scalar(
                lambda t: -(1.0 - float(_evaluate_tradeoff(f, np.asarray([t]))[0]) - ee * t),
                bounds=(lo, hi),
                method="bounded",
                options={"xatol": 1e-14 * max(hi, 1e-300)},
            )
            best = max(best, -res.fun)
        out[i] = min(max(best, 0.0), 1.0)
    return _result(out.reshape(eps.shape))


# --------------------------------------------------------------------------------------------------
# subsampling
# --------------------------------------------------------------------------------------------------


def _fp_inverse_gaussian(a: np.ndarray, p: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """``f_p^{-1}(a)`` for ``f_p = p G_mu + (1-p) Id`` = T(Q, P) with P = N(0,1), Q = (1-p) N(0,1) + p N(mu,1).

    Solves ``(1-p) Phi(-c) + p Phi(mu - c) = 1 - a`` for c (bisection in log space, bracket
    ``[Phi^{-1}(a), Phi^{-1}(a) + mu]``) and returns ``Phi(-c)``.
    """
    with np.errstate(divide="ignore"):
        log_target = np.log1p(-a)
    lo = _norm_ppf(a)
    hi = lo + mu
    with np.errstate(divide="ignore"):
        lq, lp = np.log1p(-p), np.log(p)
    for _ in range(120):
        mid = 0.5 * (lo + hi)
        val = np.logaddexp(lq + _norm_logsf(mid), lp + _norm_logsf(mid - mu))
        above = val > log_target  # the left side decreases in c
        lo = np.where(above, mid, lo)
        hi = np.where(above, hi, mid)
    return _norm_sf(0.5 * (lo + hi))


@_numeric
def subsampled_gaussian_tradeoff(a: ArrayLike, p: ArrayLike, mu: ArrayLike) -> np.ndarray | float:
    """Closed form of ``C_p(G_mu)`` (Bok et al. 2024 Def. 4.7; DRS22 Thm. 9 for the SGD step).

    With ``x* = Phi(-mu/2)`` and ``y* = f_p(x*) = p Phi(-mu/2) + (1-p) Phi(mu/2)``:
    ``C_p(G_mu)(a) = f_p(a)`` for ``a <= x*``, ``x* + y* - a`` on ``[x*, y*]``, ``f_p^{-1}(a)`` for ``a >= y*``.
    ``a`` in [0, 1], ``p`` in [0, 1], ``mu >= 0``.
    """
    a = validate.array("a", a, low=0.0, high=1.0)
    p = validate.array("p", p, low=0.0, high=1.0)
    mu = validate.array("mu", mu, low=0.0)
    a, p, mu = np.broadcast_arrays(a, p, mu)
    x_star = _norm_cdf(-mu / 2.0)
    y_star = p * x_star + (1.0 - p) * _norm_cdf(mu / 2.0)
    out = np.empty(a.shape)
    left = a <= x_star
    out[left] = p[left] * np.asarray(tradeoff_gaussian(a[left], mu[left])) + (1.0 - p[left]) * (1.0 - a[left])
    middle = (~left) & (a <= y_star)
    out[middle] = x_star[middle] + y_star[middle] - a[middle]
    right = a > y_star
    if right.any():
        out[right] = _fp_inverse_gaussian(a[right], p[right], mu[right])
    return _result(np.clip(out, 0.0, 1.0 - a))


def _inverse_amplification(p: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """``log(1 + (e^eps - 1)/p)`` for ``eps > log(1 - p)``, ``p`` in (0, 1] (arrays, broadcast; not validated).

    The level at which a pair must be read so that its ``p``-subsampled version (the mixture
    ``(1-p) Q + p P`` against ``Q``) is read at ``eps``: the inverse of amplification by subsampling
    (Balle, Barthe, Gaboardi 2018 Thm. 8; Bok et al. 2024 Lemma A.3). One place for the subsampled
    Gaussian's hockey-stick curves (:func:`subsampled_gaussian_delta`, the "remove" pair of
    :mod:`verify.privacy.pld`). Three forms: ``log1p(expm1(eps)/p)`` where that ratio is finite (within a
    few ulps of eps times the slope, the conditioning of the value itself, also near ``eps = log(1-p)``);
    ``eps - log p + log1p(-(1-p) e^-eps)`` for ``eps > 30``; in log space,
    ``eps + log(-expm1(log(1-p) - eps)) - log p``, where the ratio leaves the float range (tiny ``p``) or
    rounds to -1. ``p = 1`` gives ``eps`` exactly.
    """
    p, eps = np.broadcast_arrays(np.asarray(p, dtype=float), np.asarray(eps, dtype=float))
    out = np.empty(eps.shape)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        ratio = np.expm1(np.minimum(eps, 30.0)) / p
        big = eps > 30.0
        direct = ~big & np.isfinite(ratio) & (ratio > -1.0)
        rest = ~big & ~direct
        out[direct] = np.log1p(ratio[direct])
        out[big] = eps[big] - np.log(p[big]) + np.log1p(-(1.0 - p[big]) * np.exp(-eps[big]))
        e, q = eps[rest], p[rest]
        out[rest] = e + np.log(-np.expm1(np.log1p(-q) - e)) - np.log(q)
    return np.where(p == 1.0, eps, out)


@_numeric
def subsampled_gaussian_delta(p: ArrayLike, mu: ArrayLike, eps: ArrayLike) -> np.ndarray | float:
    """delta(eps) of the symmetric tradeoff ``C_p(G_mu)`` in closed form.

    For eps >= 0 the supremum in ``delta = 1 + C_p(G_mu)*(-e^eps)`` lies where the slope is <= -1, i.e. on
    the ``f_p`` branch (Bok et al. 2024 Def. 4.7), whose hockey-stick divergence is
    ``p * delta_{G_mu}(log(1 + (e^eps - 1)/p))`` (amplification by subsampling, Balle, Barthe, Gaboardi
    2018 Thm. 8 / Lemma A.3 of Bok et al.). Negative eps by symmetry of ``C_p(G_mu)``:
    ``delta(eps) = 1 - e^eps + e^eps delta(-eps)``. ``p`` in (0, 1], ``mu >= 0``, any real eps.
    Computed in log space through :func:`verify.privacy.gaussian.gdp_log_delta`.
    """
    p = validate.array("p", p, low=0.0, low_open=True, high=1.0)
    mu = validate.array("mu", mu, low=0.0)
    eps = validate.array("eps", eps)
    p, mu, eps = np.broadcast_arrays(p, mu, eps)
    shape = p.shape
    p, mu, eps = (np.atleast_1d(x).ravel() for x in (p, mu, eps))
    ell = _inverse_amplification(p, np.abs(eps))
    log_d = np.log(p) + np.atleast_1d(gdp_log_delta(mu, ell))
    out = np.exp(log_d)
    neg = eps < 0
    # 1 - e^eps + e^eps delta(-eps)
    out[neg] = -np.expm1(eps[neg]) + np.exp(eps[neg] + log_d[neg])
    out = out.reshape(shape)
    return _result(np.clip(out, 0.0, 1.0))


class PiecewiseLinearTradeoff:
    """A convex tradeoff function given by its vertices, evaluated by linear interpolation.

    Returned by :func:`subsample_tradeoff`; ``grid`` and ``values`` are the hull vertices.
    """

    def __init__(self, grid: ArrayLike, values: ArrayLike):
        self.grid = validate.array("grid", grid, low=0.0, high=1.0)
        self.values = validate.array("values", values, shape=self.grid.shape, low=0.0, high=1.0)
        if self.grid.ndim != 1 or self.grid.size < 2:
            raise InputError(f"grid must be a 1-d array of at least 2 points, got shape {self.grid.shape}", "grid")
        if not (np.diff(self.grid) > 0).all():
            raise InputError("grid must be strictly increasing (np.interp needs sorted vertices)", "grid")

    @_numeric
    def __call__(self, a: ArrayLike) -> np.ndarray | float:
        a = validate.array("a", a, low=0.0, high=1.0)
        return _result(np.interp(a, self.grid, self.values))

    def __repr__(self) -> str:
        return f"PiecewiseLinearTradeoff({len(self.grid)} vertices)"


def _lower_hull(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices of the lower convex hull of points (x, y) (Andrew's monotone chain)."""
    order = np.lexsort((y, x))
    x, y = x[order], y[order]
    hx: list[float] = []
    hy: list[float] = []
    for xi, yi in zip(x, y):
        if hx and xi == hx[-1]:
            continue  # keep the lowest y for each x (sorted by y within equal x)
        while len(hx) >= 2 and (hx[-1] - hx[-2]) * (yi - hy[-2]) - (hy[-1] - hy[-2]) * (xi - hx[-2]) <= 0:
            hx.pop()
            hy.pop()
        hx.append(xi)
        hy.append(yi)
    return np.array(hx), np.array(hy)


def subsample_tradeoff(f: Callable[[np.ndarray], np.ndarray], p: float, grid: ArrayLike | int | None = None) -> PiecewiseLinearTradeoff:
    """Generic ``C_p(f) = min{f_p, f_p^{-1}}**`` on a grid (Bok et al. 2024 Def. 4.7; DRS22 Def. 6).

    The epigraph of ``min{f_p, f_p^{-1}}`` is the union of the epigraphs of ``f_p`` and of its reflection
    ``f_p^{-1}``, so its convex envelope is the lower convex hull of the points ``(a, f_p(a))`` and
    ``(f_p(a), a)`` for ``a`` on the grid. Returns a :class:`PiecewiseLinearTradeoff` (an upper
    approximation of ``C_p(f)`` between grid points, exact at the hull vertices up to the grid).
    ``p`` in [0, 1].
    """
    p = float(validate.array("p", p, low=0.0, high=1.0))
    a = _grid(grid)
    fp = p * _evaluate_tradeoff(f, a) + (1.0 - p) * (1.0 - a)
    xs = np.concatenate([a, fp])
    ys = np.concatenate([fp, a])
    hx, hy = _lower_hull(xs, ys)
    # the hull lives on [min x, max x]; f_p covers [0, 1] so this is [0, 1]
    return PiecewiseLinearTradeoff(hx, np.clip(hy, 0.0, 1.0))
