"""Rényi DP: conversions to (eps, delta), the Poisson-subsampled Gaussian, and the AT22 quantities.

* Classical conversion (Mironov 2017 "Rényi differential privacy", Prop. 3; AT22 Lemma 2.5):
  ``eps = rdp + log(1/delta) / (alpha - 1)``.
* Improved conversion (Canonne, Kamath, Steinke 2020, Prop. 12; Balle et al. 2020 "Hypothesis testing
  interpretations and Rényi DP", Thm. 21; Bok et al. 2024 §A.1 [BBG+20]):
  ``eps = rdp + log((alpha - 1)/alpha) - (log delta + log alpha) / (alpha - 1)``.
* Sampled Gaussian mechanism with noise multiplier sigma (sensitivity 1), Poisson rate q,
  add/remove adjacency (Mironov, Talwar, Zhang 2019 "Rényi DP of the sampled Gaussian mechanism";
  Altschuler & Talwar 2022 Def. 2.10):

  - ``direction="remove"``: ``D_alpha((1-q) N(0, s^2) + q N(1, s^2) || N(0, s^2))``, the direction of
    the public RDP accountants and of ``tests/data/sampled_gaussian_rdp.csv`` (MTZ19 Sec. 3.3);
  - ``direction="add"``: ``D_alpha(N(0, s^2) || (1-q) N(0, s^2) + q N(1, s^2))`` = ``S_alpha(q, sigma)`` of
    AT22 Def. 2.10;
  - ``direction="max"``: the larger of the two (the RDP guarantee under add/remove adjacency).

Both directions are ``log E_{x~N(0,s^2)}[(1 + u(x))^lam] / (alpha - 1)`` with
``u(x) = q expm1((2x - 1)/(2 s^2))``, ``E[u] = 0``, and ``lam = alpha`` (remove) or ``1 - alpha`` (add).
We always compute ``E[(1+u)^lam] - 1 = E[(1+u)^lam - 1 - lam u] >= 0`` so that tiny divergences keep full
relative precision: for integer orders (remove) by the binomial series
``sum_{k>=2} C(alpha,k) (1-q)^(alpha-k) q^k expm1((k^2-k)/(2 s^2))`` (all terms positive, log-sum-exp),
otherwise by composite Gauss-Legendre quadrature of a non-negative integrand in log space.
"""

from __future__ import annotations

import math
from typing import Callable, Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize, special
from scipy.stats import norm

from verify import validate
from verify.errors import InputError
from verify.privacy.gaussian import _numeric, _result

__all__ = [
    "rdp_to_dp_classical",
    "rdp_to_dp_improved",
    "rdp_to_delta",
    "rdp_to_dp_continuous",
    "sampled_gaussian_rdp",
    "at22_S",
    "at22_alpha_star",
]

Method = Literal["classical", "improved"]
Direction = Literal["remove", "add", "max"]


# --------------------------------------------------------------------------------------------------
# RDP -> (eps, delta)
# --------------------------------------------------------------------------------------------------


def _eps_terms(orders: np.ndarray, rdp: np.ndarray, log_delta: np.ndarray, method: str) -> np.ndarray:
    if method == "classical":  # Mironov 2017 Prop. 3
        return rdp - log_delta / (orders - 1.0)
    if method == "improved":  # Canonne-Kamath-Steinke 2020 Prop. 12 / Balle et al. 2020 Thm. 21
        return rdp + np.log1p(-1.0 / orders) - (log_delta + np.log(orders)) / (orders - 1.0)
    raise InputError(f"method must be 'classical' or 'improved', got {method!r}", "method")


def _orders_rdp(orders: ArrayLike, rdp: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    orders = validate.array("orders", orders, low=1.0, low_open=True)
    rdp = validate.array("rdp", rdp, low=0.0)
    orders, rdp = np.atleast_1d(orders), np.atleast_1d(rdp)
    try:
        orders, rdp = np.broadcast_arrays(orders, rdp)
    except ValueError as exc:
        raise InputError(f"orders and rdp must broadcast along the last axis: {orders.shape} vs {rdp.shape}", "orders") from exc
    return orders, rdp


def _rdp_to_eps(orders, rdp, delta, method: str):
    orders, rdp = _orders_rdp(orders, rdp)
    delta = validate.array("delta", delta, low=0.0, low_open=True, high=1.0, high_open=True)
    terms = _eps_terms(orders, rdp, np.log(delta)[..., None], method)
    return _result(np.maximum(np.min(terms, axis=-1), 0.0))


@_numeric
def rdp_to_dp_classical(orders: ArrayLike, rdp: ArrayLike, delta: ArrayLike) -> np.ndarray | float:
    """eps(delta) from RDP curves by Mironov 2017 Prop. 3 (= AT22 Lemma 2.5), minimised over the orders.

    ``orders`` (> 1) and ``rdp`` (>= 0) run along the last axis and broadcast against each other;
    ``delta`` in (0, 1) broadcasts against the remaining leading axes.
    """
    return _rdp_to_eps(orders, rdp, delta, "classical")


@_numeric
def rdp_to_dp_improved(orders: ArrayLike, rdp: ArrayLike, delta: ArrayLike) -> np.ndarray | float:
    """eps(delta) by Canonne-Kamath-Steinke 2020 Prop. 12 (Balle et al. 2020 Thm. 21), minimised over orders.

    Never larger than :func:`rdp_to_dp_classical` (it subtracts ``log(alpha)/(alpha-1) - log(1-1/alpha) > 0``
    at every order). Same array conventions as :func:`rdp_to_dp_classical`; the result is clipped at 0.
    """
    return _rdp_to_eps(orders, rdp, delta, "improved")


@_numeric
def rdp_to_delta(orders: ArrayLike, rdp: ArrayLike, eps: ArrayLike, method: Method = "improved") -> np.ndarray | float:
    """delta(eps) from RDP curves, minimised over the orders (both conversions, capped at 1).

    ``method="classical"``: ``delta = exp((alpha-1)(rdp - eps))`` (Mironov 2017 Prop. 3 solved for delta);
    ``method="improved"``: ``delta = exp((alpha-1)(rdp - eps + log(1 - 1/alpha)) - log alpha)``
    (Canonne-Kamath-Steinke 2020 Prop. 12). ``eps >= 0``.
    """
    orders, rdp = _orders_rdp(orders, rdp)
    eps = validate.array("eps", eps, low=0.0)[..., None]
    if method == "classical":
        log_terms = (orders - 1.0) * (rdp - eps)
    elif method == "improved":
        log_terms = (orders - 1.0) * (rdp - eps + np.log1p(-1.0 / orders)) - np.log(orders)
    else:
        raise InputError(f"method must be 'classical' or 'improved', got {method!r}", "method")
    return _result(np.exp(np.minimum(np.min(log_terms, axis=-1), 0.0)))


@_numeric
def rdp_to_dp_continuous(
    rdp_fn: Callable[[float], float],
    delta: float,
    method: Method = "improved",
    alpha_max: float = 1e4,
) -> tuple[float, float]:
    """``(eps, alpha_opt)``: the conversion minimised over a continuous order ``alpha`` in (1, alpha_max].

    ``rdp_fn(alpha)`` returns the RDP epsilon at order ``alpha``. A log-spaced scan of ``alpha - 1``
    (200 points) brackets the minimum, which bounded Brent then refines; the objective is the one of
    :func:`rdp_to_dp_classical` / :func:`rdp_to_dp_improved`. The result is clipped at 0.
    """
    delta = float(validate.array("delta", delta, low=0.0, low_open=True, high=1.0, high_open=True))
    alpha_max = float(validate.array("alpha_max", alpha_max, low=1.0, low_open=True))
    if not callable(rdp_fn):
        raise InputError("rdp_fn must be callable: alpha -> RDP epsilon", "rdp_fn")
    log_delta = np.log(delta)

    def objective(log_am1: float) -> float:
        alpha = 1.0 + np.exp(log_am1)
        r = float(rdp_fn(alpha))
        if np.isnan(r) or r < 0:
            raise InputError(f"rdp_fn({alpha!r}) returned {r!r}; it must return a non-negative number", "rdp_fn")
        return float(_eps_terms(np.asarray(alpha), np.asarray(r), np.asarray(log_delta), method))

    grid = np.linspace(np.log(1e-4), np.log(alpha_max - 1.0), 200)
    values = np.array([objective(g) for g in grid])
    i = int(np.argmin(values))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    best_x, best_v = grid[i], values[i]
    if hi > lo:
        res = optimize.minimize_scalar(objective, bounds=(lo, hi), method="bounded", options={"xatol": 1e-10})
        if res.fun < best_v:
            best_x, best_v = res.x, res.fun
    return max(float(best_v), 0.0), float(1.0 + np.exp(best_x))


# --------------------------------------------------------------------------------------------------
# the sampled Gaussian mechanism
# --------------------------------------------------------------------------------------------------

#: a closed-form sandwich narrower than this (relative) is returned instead of the series / quadrature
_SANDWICH_RTOL = 1e-13
#: most Gauss-Legendre panels laid over one contiguous range (beyond, only windows around the bumps)
_MAX_PANELS = 200_000


def _log_binomial_excess(q: np.ndarray, sigma: np.ndarray, alpha: int) -> np.ndarray:
    """log(E[(1+u)^alpha] - 1) for integer alpha >= 2 (remove direction), q in (0, 1)."""
    k = np.arange(2, alpha + 1, dtype=float)[:, None]
    log_comb = special.gammaln(alpha + 1.0) - special.gammaln(k + 1.0) - special.gammaln(alpha - k + 1.0)
    c = (k * k - k) / (2.0 * sigma[None, :] ** 2)
    log_expm1 = c + np.log(-np.expm1(-c))  # log(e^c - 1), c > 0
    terms = log_comb + (alpha - k) * np.log1p(-q[None, :]) + k * np.log(q[None, :]) + log_expm1
    return special.logsumexp(terms, axis=0)


def _sandwiched(q: np.ndarray, s: np.ndarray, alpha: np.ndarray, direction: str) -> tuple[np.ndarray, np.ndarray]:
    """Values known in closed form: ``(values, known)`` over points with q in [0, 1].

    q = 0 gives 0 and q = 1 gives ``alpha / (2 s^2)``. Otherwise a two-sided bound is returned (its upper
    end) where its width is below float noise, which is the case for huge orders and tiny ``s``, where
    series and quadrature fail. With ``z = (2x - 1)/(2 s^2)``, ``x ~ N(0, s^2)``, ``r = q/(1-q)``:

    * remove: ``(q e^z)^alpha <= (1 + u)^alpha <= 1 + e^{alpha z}``, and ``(1+u)^alpha <= (q e^z)^alpha
      (1 + eps)^alpha`` where ``e^-z / r <= eps``, give ``alpha/(2 s^2) + alpha log(q)/(alpha - 1) <= D``
      and ``D <= alpha/(2 s^2) + log(q^alpha (1+eps)^alpha + e^-c + Phi((x_eps - alpha)/s)) / (alpha - 1)``,
      ``c = alpha (alpha - 1)/(2 s^2)``, ``x_eps = 1/2 - s^2 log(r eps)`` (tilting ``e^{alpha z}`` moves
      N(0, s^2) to N(alpha, s^2)).
    * add: ``D <= D_inf = -log(1 - q)``, and ``D = D_inf + log E[(1 + r e^z)^{1-alpha}] / (alpha - 1)``
      with the expectation at least ``Phi(1/(2s) + s log(eps/r)) e^{-(alpha-1) eps}`` (restrict to
      ``r e^z <= eps``).
    """
    values = np.full(q.shape, np.nan)
    known = (q == 0.0) | (q == 1.0)
    values[q == 0.0] = 0.0  # the record is never used: both outputs are N(0, s^2)
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        c_over = (alpha / 2.0) / s / s  # alpha / (2 s^2) = c / (alpha - 1)
        values[q == 1.0] = c_over[q == 1.0]
        inner = np.flatnonzero(~known)
        qi, si, ai, ci = q[inner], s[inner], alpha[inner], c_over[inner]
        log_q = np.log(qi)
        log_r = log_q - np.log1p(-qi)
        if direction == "remove":
            lower = ci + log_q * (ai / (ai - 1.0))
            eps = 1e-17 * np.maximum(lower, 1e-300) * ((ai - 1.0) / ai)
            x_eps = 0.5 - si * si * (log_r + np.log(eps))
            tail = np.logaddexp(-ci * (ai - 1.0), norm.logcdf((x_eps - ai) / si))
            upper = ci + np.logaddexp(ai * (log_q + np.log1p(eps)), tail) / (ai - 1.0)
            # alpha / (2 s^2) beyond the float range: so is D (>= lower); reported by the caller
            tight = np.isinf(ci) | ((lower > 0.0) & (upper - lower <= _SANDWICH_RTOL * upper))
            upper = np.where(np.isinf(ci), np.inf, upper)
        else:
            upper = -np.log1p(-qi)
            gap = np.full(qi.shape, np.inf)
            for eps in (1e-16 * upper, 1.0 / (ai - 1.0)):
                gap_eps = eps - norm.logcdf(0.5 / si + si * (np.log(eps) - log_r)) / (ai - 1.0)
                gap = np.minimum(gap, np.where(np.isnan(gap_eps), np.inf, gap_eps))
            tight = gap <= _SANDWICH_RTOL * upper
    values[inner[tight]] = upper[tight]
    known[inner[tight]] = True
    return values, known


_GL_X, _GL_W = np.polynomial.legendre.leggauss(16)
# powers of the binomial series of (1+u)^lam - 1 - lam*u used for small |lam u|
_SERIES_K = np.arange(2, 12)


def _series_coefficients(lam: float) -> np.ndarray:
    """``d_k`` with ``C(lam, k) u^k = d_k (lam u)^k``, k in _SERIES_K (bounded for any real lam != 0)."""
    k = np.arange(1, _SERIES_K[-1] + 1)
    return np.cumprod((1.0 - (k - 1.0) / lam) / k)[_SERIES_K - 1]


def _log_excess_integrand(u: np.ndarray, lam: float) -> np.ndarray:
    """log((1+u)^lam - 1 - lam u) for u > -1 (the quantity is >= 0 for lam >= 1 or lam <= 0)."""
    out = np.empty(u.shape)
    # the truncated series needs |lam u| small, not only |u|
    small = (np.abs(u) < 1e-3) & (np.abs(u) * max(abs(lam), 1.0) < 0.1)
    v = lam * u[small]
    coef = _series_coefficients(lam)
    s = np.full(v.shape, coef[-1])
    for c in coef[-2::-1]:  # Horner: sum_k d_k v^(k-2)
        s = s * v + c
    with np.errstate(divide="ignore"):
        out[small] = 2.0 * np.log(np.abs(v)) + np.log(np.maximum(s, 0.0))
    rest = ~small
    ul = u[rest]
    lp = lam * np.log1p(ul)  # log (1+u)^lam
    big = lp > 1.0
    vals = np.empty(ul.shape)
    # log(e^lp - 1 - lam u) = lp + log1p(-(1 + lam u) e^{-lp}); the argument of log1p is >= -1 by convexity
    arg = -(1.0 + lam * ul[big]) * np.exp(-lp[big])
    with np.errstate(divide="ignore"):  # arg = -1 only when lam rounds to 1 (alpha - 1 ~ 1e-16)
        vals[big] = lp[big] + np.log1p(np.maximum(arg, -1.0))
    with np.errstate(divide="ignore"):
        vals[~big] = np.log(np.maximum(np.expm1(lp[~big]) - lam * ul[~big], 0.0))
    out[rest] = vals
    return out


def _panels(lo: float, hi: float, centres: tuple[float, ...], sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """Left and right ends of the quadrature panels (width ``sigma/2``) covering the integrand's mass.

    One contiguous range ``[lo, hi]`` while it needs at most ``_MAX_PANELS`` panels; beyond (sigma tiny
    against the range), the union of ``centre +- 12 sigma``: away from its bumps the integrand is below
    e^-72 of their peaks (see :func:`_log_quadrature_excess`), and the range in between would otherwise be
    under-resolved.
    """
    width = sigma / 2.0
    if not np.isfinite((hi - lo) / width):
        raise InputError(f"sigma={sigma:g} is too small for this order: the quadrature cannot resolve it", "sigma")
    if (hi - lo) / width <= _MAX_PANELS:
        n_panels = int(max(np.ceil((hi - lo) / width), 8))
        edges = np.linspace(lo, hi, n_panels + 1)
        return edges[:-1], edges[1:]
    windows = sorted((max(c - 12.0 * sigma, lo), min(c + 12.0 * sigma, hi)) for c in centres)
    merged = [list(windows[0])]
    for a, b in windows[1:]:
        if a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    lefts, rights = [], []
    for a, b in merged:
        edges = np.linspace(a, b, int(max(np.ceil((b - a) / width), 8)) + 1)
        lefts.append(edges[:-1])
        rights.append(edges[1:])
    return np.concatenate(lefts), np.concatenate(rights)


def _log_quadrature_excess(q: float, sigma: float, lam: float) -> float:
    """log(E_{x~N(0,sigma^2)}[(1+u)^lam] - 1) by composite Gauss-Legendre in log space.

    The integrand ``phi(x) h(u(x))``, ``h(u) = (1+u)^lam - 1 - lam u``, is a combination of
    ``phi(x) (1+u)^lam`` and of ``phi(x)`` and ``phi(x) u(x)`` (shapes of N(0, s^2) and N(1, s^2)).
    For lam > 0, ``phi (1+u)^lam`` is a mixture of N(k, s^2) bumps with k in [0, lam] (binomial
    expansion), so [-12 s, lam + 12 s] holds all the mass; its log lies within ``lam e^{-|y|}`` of the
    larger of two concave quadratics peaking at 0 and lam (``y = (x - x0)/s^2``, ``x0`` where
    ``q e^z = 1 - q``), so for small s the mass sits within 12 s of 0, lam and x0. For lam < 0 its log is
    concave with curvature <= -1/s^2 around its mode x* in [lam, 0] (root of x = lam w(x),
    w = q e^z / (1 - q + q e^z)), so [min(x*, 0) - 12 s, 1 + 12 s] holds all the mass (beyond 12 s: below
    e^-72 of the peak). Every piece is smooth on the scale s, so panels of s/2 with 16 nodes each resolve it.
    """
    if lam > 0:
        lo, hi = -12.0 * sigma, max(1.0, lam) + 12.0 * sigma
        centres: tuple[float, ...] = (0.0, 1.0, lam, 0.5 + sigma * sigma * (math.log1p(-q) - math.log(q)))
    else:
        a, b = lam, 0.0  # bisection for the mode of phi (1+u)^lam: psi(x) = lam w(x) - x decreases
        log_odds = math.log1p(-q) - math.log(q)
        for i in range(2000):
            if i >= 60 and b - a <= 1e-3 * sigma:
                break
            m = 0.5 * (a + b)
            z = ((2.0 * m - 1.0) / (2.0 * sigma)) / sigma
            w = 1.0 / (1.0 + math.exp(min(max(log_odds - z, -700.0), 700.0)))
            a, b = (m, b) if lam * w - m > 0 else (a, m)
        lo, hi = min(a, 0.0) - 12.0 * sigma, 1.0 + 12.0 * sigma
        centres = (a, 0.0, 1.0)
    left, right = _panels(lo, hi, centres, sigma)
    half = 0.5 * (right - left)
    mid = 0.5 * (right + left)
    x = (mid[:, None] + half[:, None] * _GL_X[None, :]).ravel()
    logw = np.log((half[:, None] * _GL_W[None, :]).ravel())
    with np.errstate(over="ignore", invalid="ignore"):
        z = ((2.0 * x - 1.0) / (2.0 * sigma)) / sigma
        # u = q expm1(z), computed as a log when z is large to avoid overflow of e^z
        u = q * np.expm1(np.minimum(z, 700.0))
        log_phi = -0.5 * (x / sigma) ** 2 - np.log(sigma * np.sqrt(2.0 * np.pi))
        log_h = _log_excess_integrand(u, lam)
        far = z > 700.0
        if far.any():  # (1+u)^lam with log(1+u) = log(1 - q + q e^z) ~ log q + z
            lp = lam * np.logaddexp(np.log1p(-q), np.log(q) + z[far])
            # lam > 0: (1+u)^lam dominates 1 + lam u by e^{600}; lam < 0 (AT22 direction): -lam u dominates
            log_h[far] = lp if lam > 0 else np.log(-lam) + np.log(q) + z[far]
        terms = logw + log_phi + log_h
    if np.isnan(terms).any() or np.isposinf(terms).any():
        raise InputError(
            f"alpha={1.0 + lam if lam < 0 else lam:g}, sigma={sigma:g}, q={q:g}: outside the range where the "
            "Rényi divergence of the sampled Gaussian is computed accurately", "alpha")
    top = float(np.max(terms))
    if top == -np.inf:  # the excess underflows everywhere (q ~ 1e-300): the divergence is 0
        return -np.inf
    return top + float(np.log(np.sum(np.exp(terms - top))))  # log-sum-exp (all terms finite or -inf)


def _sgm_rdp_one(q: float, sigma: float, alpha: float, direction: str) -> float:
    """RDP of one (q, sigma, alpha) point with q in (0, 1) in one direction, by quadrature."""
    lam = alpha if direction == "remove" else 1.0 - alpha
    log_ex = _log_quadrature_excess(q, sigma, lam)
    return float(np.logaddexp(0.0, log_ex) / (alpha - 1.0))


@_numeric
def sampled_gaussian_rdp(
    q: ArrayLike,
    sigma: ArrayLike,
    alpha: ArrayLike,
    steps: ArrayLike = 1,
    direction: Direction = "remove",
) -> np.ndarray | float:
    """RDP at order ``alpha`` of ``steps`` compositions of the Poisson-subsampled Gaussian mechanism.

    Sampling rate ``q`` in [0, 1] (q = 0 gives 0, as in the public accountants' table), noise multiplier
    ``sigma > 0`` (sensitivity 1), order ``alpha > 1``, ``steps >= 0``; ``direction`` as in the module
    docstring ("remove" = Mironov-Talwar-Zhang 2019 Sec. 3.3, the public accountants' table; "add" = AT22
    Def. 2.10; "max" = both). Composition is additive (Mironov 2017 Prop. 1). Integer orders in the remove
    direction use the exact binomial series (MTZ19 Sec. 3.3) in log space; all other cases use quadrature
    (see module docstring); huge orders and tiny sigma a closed-form sandwich (:func:`_sandwiched`).
    Raises InputError naming ``sigma`` when the divergence exceeds the float range.
    """
    q = validate.array("q", q, low=0.0, high=1.0)
    sigma = validate.array("sigma", sigma, low=0.0, low_open=True)
    alpha = validate.array("alpha", alpha, low=1.0, low_open=True)
    steps = validate.array("steps", steps, low=0.0)
    if direction not in ("remove", "add", "max"):
        raise InputError(f"direction must be 'remove', 'add' or 'max', got {direction!r}", "direction")
    q, sigma, alpha = np.broadcast_arrays(q, sigma, alpha)
    flat = np.stack([q.ravel(), sigma.ravel(), alpha.ravel()], axis=1)
    unique, inverse = np.unique(flat, axis=0, return_inverse=True)
    # integer orders, remove direction: one vectorised binomial series per order
    is_int = (unique[:, 2] == np.floor(unique[:, 2])) & (unique[:, 2] <= 5000)
    directions = ("remove", "add") if direction == "max" else (direction,)
    per_dir = []
    for d in directions:
        vals, done = _sandwiched(unique[:, 0], unique[:, 1], unique[:, 2], d)
        if d == "remove":
            series = is_int & ~done
            for a in np.unique(unique[series, 2]):
                sel = np.flatnonzero(series & (unique[:, 2] == a))
                step = max(1, int(2_000_000 // a))  # bound the (order x points) work array
                for start in range(0, sel.size, step):
                    idx = sel[start : start + step]
                    with np.errstate(over="ignore"):
                        log_ex = _log_binomial_excess(unique[idx, 0], unique[idx, 1], int(a))
                    vals[idx] = np.logaddexp(0.0, log_ex) / (a - 1.0)
                done[sel] = True
        for i in np.flatnonzero(~done):
            vals[i] = _sgm_rdp_one(*unique[i], d)
        if d == "add":  # D_alpha <= D_inf = -log(1 - q) (monotone in alpha)
            with np.errstate(divide="ignore"):
                vals = np.minimum(vals, -np.log1p(-unique[:, 0]))
        per_dir.append(vals)
    values = np.maximum.reduce(per_dir)
    with np.errstate(over="ignore", invalid="ignore"):
        out = values[inverse.ravel()].reshape(q.shape) * steps
    if not np.isfinite(out).all():
        i = int(np.flatnonzero(~np.isfinite(out.ravel()))[0])
        raise InputError(
            f"sigma={np.broadcast_to(sigma, out.shape).ravel()[i]:g} is too small for "
            f"alpha={np.broadcast_to(alpha, out.shape).ravel()[i]:g}: the Rényi divergence exceeds the float range",
            "sigma")
    return _result(out)


# --------------------------------------------------------------------------------------------------
# Altschuler & Talwar 2022
# --------------------------------------------------------------------------------------------------


@_numeric
def at22_S(alpha: ArrayLike, q: ArrayLike, sigma: ArrayLike) -> np.ndarray | float:
    """``S_alpha(q, sigma) = D_alpha(N(0, sigma^2) || (1-q) N(0, sigma^2) + q N(1, sigma^2))``.

    Altschuler & Talwar 2022 Definition 2.10 (pure Gaussian first): the "add" direction of
    :func:`sampled_gaussian_rdp`. ``alpha > 1``, ``q`` in (0, 1], ``sigma > 0``. Tends to
    ``-log(1 - q)`` as ``alpha -> infinity`` or ``sigma -> 0``.
    """
    q = validate.array("q", q, low=0.0, low_open=True, high=1.0)
    return sampled_gaussian_rdp(q, sigma, alpha, direction="add")


def _at22_feasible(log_am1: np.ndarray, log_q: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Both conditions of AT22 Lemma 2.12 at ``alpha = 1 + e^log_am1``, without overflow for any float s.

    ``M + log(q alpha) = log(alpha) + log(q + 1/(alpha - 1)) > 0``, so condition 2 is multiplied by its
    denominator; for s > 1e100 both sides are positive and compared as logarithms (s^2 overflows, M^2
    underflows).
    """
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        alpha = 1.0 + np.exp(log_am1)
        t = log_q + log_am1
        m = np.logaddexp(0.0, -t)  # M = log(1 + 1/(q (alpha - 1)))
        log_m = np.where(t > 30.0, -t - 0.5 * np.exp(-np.minimum(t, 745.0)), np.log(m))
        log_alpha = np.logaddexp(0.0, log_am1)
        log_den = np.log(log_alpha + np.logaddexp(log_q, -log_am1) + 0.5 / s / s)
        log_s = np.log(s)
        log_5 = math.log(5.0)
        plain = (alpha <= m * s * s / 2.0 - 2.0 * log_s) & (
            alpha * np.exp(log_den) <= m * m * s * s / 2.0 - log_5 - 2.0 * log_s)
        half_s2 = 2.0 * log_s - math.log(2.0)  # log(s^2 / 2)
        logs = (np.logaddexp(log_alpha, np.log(2.0 * log_s)) <= log_m + half_s2) & (
            np.logaddexp(log_alpha + log_den, np.log(log_5 + 2.0 * log_s)) <= 2.0 * log_m + half_s2)
    return np.where(s > 1e100, logs, plain)


@_numeric
def at22_alpha_star(q: ArrayLike, sigma: ArrayLike) -> np.ndarray | float:
    """``alpha*(q, sigma)``: the largest order admitted by AT22 Lemma 2.12 (Mironov-Talwar-Zhang 2019 Thm. 11).

    Largest alpha > 1 with ``alpha <= M sigma^2/2 - log(sigma^2)`` and
    ``alpha <= (M^2 sigma^2/2 - log(5 sigma^2)) / (M + log(q alpha) + 1/(2 sigma^2))``,
    ``M = log(1 + 1/(q(alpha - 1)))`` (catalogue/altschuler2022.md, "alpha*(q, sigma)"). The feasible set is
    an interval (1, alpha*]; found by bisection on log(alpha - 1). Returns 1.0 when no order > 1 is feasible.
    ``q`` in (0, 1), ``sigma > 0``.
    """
    q = validate.array("q", q, low=0.0, low_open=True, high=1.0, high_open=True)
    sigma = validate.array("sigma", sigma, low=0.0, low_open=True)
    q, sigma = np.broadcast_arrays(q, sigma)
    log_q = np.log(q)
    # condition 1 forces alpha (alpha - 1) <~ sigma^2 / (2q): an upper end that is surely infeasible
    hi = np.logaddexp(np.log(sigma) - 0.5 * log_q, math.log(10.0)) + 2.0
    lo = np.full(q.shape, np.log(1e-12))
    feasible_lo = _at22_feasible(lo, log_q, sigma)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        ok = _at22_feasible(mid, log_q, sigma)
        lo = np.where(ok, mid, lo)
        hi = np.where(ok, hi, mid)
    with np.errstate(over="ignore"):
        alpha_star = 1.0 + np.exp(lo)
    if not np.isfinite(alpha_star[feasible_lo]).all():
        raise InputError("sigma is too large: alpha*(q, sigma) exceeds the float range", "sigma")
    return _result(np.where(feasible_lo, alpha_star, 1.0))
