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
otherwise by composite Gauss-Legendre quadrature of a non-negative integrand in log space, batched over
all points at once (:func:`_log_quadrature_excess_batch`: a coarse rule checked by an embedded one, then
the one-point rule, then the one-point path itself where the batched layout does not apply).
"""

from __future__ import annotations

import math
from typing import Callable, Literal

import numpy as np
from numpy.typing import ArrayLike

from verify import validate
from verify.errors import InputError, PointRefused
from verify.lazy import OnFirstUse
from verify.logspace import logsumexp
from verify.privacy.gaussian import _norm_logcdf, _numeric, _result

special = OnFirstUse("scipy.special", globals(), "special")  # imported at its first use (start-up)

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
    from scipy import optimize  # here: 0.1 s of import that the registry never needs

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
    return logsumexp(terms, axis=0)


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
            tail = np.logaddexp(-ci * (ai - 1.0), _norm_logcdf((x_eps - ai) / si))
            upper = ci + np.logaddexp(ai * (log_q + np.log1p(eps)), tail) / (ai - 1.0)
            # alpha / (2 s^2) beyond the float range: so is D (>= lower); reported by the caller
            tight = np.isinf(ci) | ((lower > 0.0) & (upper - lower <= _SANDWICH_RTOL * upper))
            upper = np.where(np.isinf(ci), np.inf, upper)
        else:
            upper = -np.log1p(-qi)
            gap = np.full(qi.shape, np.inf)
            for eps in (1e-16 * upper, 1.0 / (ai - 1.0)):
                gap_eps = eps - _norm_logcdf(0.5 / si + si * (np.log(eps) - log_r)) / (ai - 1.0)
                gap = np.minimum(gap, np.where(np.isnan(gap_eps), np.inf, gap_eps))
            tight = gap <= _SANDWICH_RTOL * upper
    values[inner[tight]] = upper[tight]
    known[inner[tight]] = True
    return values, known


_GL_X, _GL_W = np.polynomial.legendre.leggauss(16)
# powers of the binomial series of (1+u)^lam - 1 - lam*u used for small |lam u|
_SERIES_K = np.arange(2, 12)
#: most quadrature nodes evaluated at once by the batched quadrature: work arrays of 256 KB stay in cache and
#: are reused by the allocator (arrays of 8 MB, at 1 << 20, cost twice the CPU in page faults and memory traffic);
#: a point is never split, so the value of each point does not depend on it
_BATCH_NODES = 1 << 15


def _series_coefficients(lam: np.ndarray) -> np.ndarray:
    """``d_k`` with ``C(lam, k) u^k = d_k (lam u)^k``, k in _SERIES_K (bounded for any real lam != 0).

    One row per element of ``lam`` (shape ``lam.shape + (len(_SERIES_K),)``).
    """
    k = np.arange(1, _SERIES_K[-1] + 1)
    return np.cumprod((1.0 - (k - 1.0) / lam[..., None]) / k, axis=-1)[..., _SERIES_K - 1]


def _log_excess_integrand(u: np.ndarray, lam: np.ndarray, point: np.ndarray,
                          lam_n: np.ndarray | None = None) -> np.ndarray:
    """log((1+u)^lam - 1 - lam u) for u > -1 (the quantity is >= 0 for lam >= 1 or lam <= 0).

    ``u`` at the nodes, ``lam`` per point, ``point`` the point of each node (``lam_n``: ``lam[point]``,
    when the caller has it).
    """
    out = np.empty(u.shape)
    if lam_n is None:
        lam_n = lam[point]
    # the truncated series needs |lam u| small, not only |u|
    abs_u = np.abs(u)
    small = (abs_u < 1e-3) & (abs_u * np.maximum(np.abs(lam_n), 1.0) < 0.1)
    if small.any():
        v = lam_n[small] * u[small]
        coef = _series_coefficients(lam).T.copy()  # one row per power, one column per point
        at = point[small]
        s = coef[-1][at]
        for c in coef[-2::-1]:  # Horner: sum_k d_k v^(k-2)
            s = s * v + c[at]
        with np.errstate(divide="ignore"):
            out[small] = 2.0 * np.log(np.abs(v)) + np.log(np.maximum(s, 0.0))
        rest = ~small
        ul, lr = u[rest], lam_n[rest]
    else:
        rest, ul, lr = None, u, lam_n
    log1p_u = np.log1p(ul)
    lp = lr * log1p_u  # log (1+u)^lam
    big = lp > 1.0
    vals = np.empty(ul.shape)
    # log(e^lp - 1 - lam u) = lp + log1p(-(1 + lam u) e^{-lp}); the argument of log1p is >= -1 by convexity
    lpb = lp[big]
    arg = -(1.0 + lr[big] * ul[big]) * np.exp(-lpb)
    with np.errstate(divide="ignore"):  # arg = -1 only when lam rounds to 1 (alpha - 1 ~ 1e-16)
        vals[big] = lpb + np.log1p(np.maximum(arg, -1.0))
    # e^lp - 1 - lam u cancels by a factor 2/(|lam - 1| u); for lam > 1/2 the form
    # (1+u) expm1((lam-1) log1p(u)) - (lam-1) u cancels by 2/(lam u) only (orders near 1: lam - 1 ~ 1e-3)
    above = ~big & (lr > 0.5)
    below = ~big & ~above
    um, lm = ul[above], lr[above] - 1.0
    with np.errstate(divide="ignore"):
        vals[above] = np.log(np.maximum((1.0 + um) * np.expm1(lm * log1p_u[above]) - lm * um, 0.0))
        vals[below] = np.log(np.maximum(np.expm1(lp[below]) - lr[below] * ul[below], 0.0))
    if rest is None:
        return vals
    out[rest] = vals
    return out


def _mass_range(q: np.ndarray, sigma: np.ndarray, lam: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(lo, hi, mode)`` per point: the range holding the integrand's mass (:func:`_log_quadrature_excess`).

    ``mode`` is the mode of ``phi (1+u)^lam`` for lam < 0 (to 1e-3 sigma, by bisection on
    ``psi(x) = lam w(x) - x``, which decreases), and ``lam`` for lam > 0.
    """
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        a, b = np.minimum(lam, 0.0), np.zeros(lam.shape)
        neg = np.flatnonzero(lam <= 0)
        log_odds = np.log1p(-q[neg]) - np.log(q[neg])
        an, bn, sn, ln = a[neg], b[neg], sigma[neg], lam[neg]
        active = np.arange(neg.size)
        for i in range(2000):
            if i >= 60:
                active = active[bn[active] - an[active] > 1e-3 * sn[active]]
            if active.size == 0:
                break
            m = 0.5 * (an[active] + bn[active])
            s = sn[active]
            z = ((2.0 * m - 1.0) / (2.0 * s)) / s
            w = 1.0 / (1.0 + np.exp(np.minimum(np.maximum(log_odds[active] - z, -700.0), 700.0)))
            up = ln[active] * w - m > 0
            an[active] = np.where(up, m, an[active])
            bn[active] = np.where(up, bn[active], m)
        a[neg] = an
    positive = lam > 0
    lo = np.where(positive, -12.0 * sigma, np.minimum(a, 0.0) - 12.0 * sigma)
    hi = np.where(positive, np.maximum(1.0, lam) + 12.0 * sigma, 1.0 + 12.0 * sigma)
    return lo, hi, np.where(positive, lam, a)


def _panels(lo: float, hi: float, centres: tuple[float, ...], sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """Left and right ends of the quadrature panels (width ``sigma/2``) covering the integrand's mass.

    One contiguous range ``[lo, hi]`` while it needs at most ``_MAX_PANELS`` panels; beyond (sigma tiny
    against the range), the union of ``centre +- 12 sigma``: away from its bumps the integrand is below
    e^-72 of their peaks (see :func:`_log_quadrature_excess`), and the range in between would otherwise be
    under-resolved.
    """
    width = sigma / 2.0
    if not np.isfinite((hi - lo) / width):
        raise PointRefused(f"sigma={sigma:g} is too small for this order: the quadrature cannot resolve it", "sigma")
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


def _log_terms(left: np.ndarray, right: np.ndarray, panel_point: np.ndarray, q: np.ndarray, sigma: np.ndarray,
               lam: np.ndarray, rule: tuple[np.ndarray, np.ndarray] = (_GL_X, _GL_W)) -> tuple[np.ndarray, np.ndarray]:
    """``(terms, point)``: log(weight phi(x) h(u(x))) at the Gauss-Legendre nodes ``rule`` of every panel,
    and the point of each node (``panel_point`` maps panels to points; q, sigma, lam are per point)."""
    nodes, weights = rule
    half = 0.5 * (right - left)
    mid = 0.5 * (right + left)
    x = (mid[:, None] + half[:, None] * nodes[None, :]).ravel()
    logw = np.log((half[:, None] * weights[None, :]).ravel())
    point = np.repeat(panel_point, nodes.size)
    # per panel, then per node (np.repeat: the nodes of a panel are consecutive)
    qn, sn, ln = (np.repeat(v[panel_point], nodes.size) for v in (q, sigma, lam))
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        z = ((2.0 * x - 1.0) / (2.0 * sn)) / sn
        # u = q expm1(z), computed as a log when z is large to avoid overflow of e^z
        u = qn * np.expm1(np.minimum(z, 700.0))
        log_phi = -0.5 * (x / sn) ** 2 - np.repeat(np.log(sigma * np.sqrt(2.0 * np.pi))[panel_point], nodes.size)
        log_h = _log_excess_integrand(u, lam, point, ln)
        far = np.flatnonzero(z > 700.0)
        if far.size:  # (1+u)^lam with log(1+u) = log(1 - q + q e^z) ~ log q + z
            qf, zf, lf = qn[far], z[far], ln[far]
            lp = lf * np.logaddexp(np.log1p(-qf), np.log(qf) + zf)
            # lam > 0: (1+u)^lam dominates 1 + lam u by e^{600}; lam < 0 (AT22 direction): -lam u dominates
            log_h[far] = np.where(lf > 0, lp, np.log(-lf) + np.log(qf) + zf)
        return logw + log_phi + log_h, point


def _log_quadrature_excess(q: float, sigma: float, lam: float) -> float:
    """log(E_{x~N(0,sigma^2)}[(1+u)^lam] - 1) by composite Gauss-Legendre in log space (one point).

    The integrand ``phi(x) h(u(x))``, ``h(u) = (1+u)^lam - 1 - lam u``, is a combination of
    ``phi(x) (1+u)^lam`` and of ``phi(x)`` and ``phi(x) u(x)`` (shapes of N(0, s^2) and N(1, s^2)).
    For lam > 0, ``phi (1+u)^lam`` is a mixture of N(k, s^2) bumps with k in [0, lam] (binomial
    expansion), so [-12 s, lam + 12 s] holds all the mass; its log lies within ``lam e^{-|y|}`` of the
    larger of two concave quadratics peaking at 0 and lam (``y = (x - x0)/s^2``, ``x0`` where
    ``q e^z = 1 - q``), so for small s the mass sits within 12 s of 0, lam and x0. For lam < 0 its log is
    concave with curvature <= -1/s^2 around its mode x* in [lam, 0] (root of x = lam w(x),
    w = q e^z / (1 - q + q e^z)), so [min(x*, 0) - 12 s, 1 + 12 s] holds all the mass (beyond 12 s: below
    e^-72 of the peak). Every piece is smooth on the scale s, so panels of s/2 with 16 nodes each resolve it.
    :func:`_log_quadrature_excess_batch` applies the same rule to many points at once.
    """
    qa, sa, la = np.array([q]), np.array([sigma]), np.array([lam])
    lo, hi, mode = (float(v[0]) for v in _mass_range(qa, sa, la))
    if lam > 0:
        centres: tuple[float, ...] = (0.0, 1.0, lam, 0.5 + sigma * sigma * (math.log1p(-q) - math.log(q)))
    else:
        centres = (mode, 0.0, 1.0)
    left, right = _panels(lo, hi, centres, sigma)
    terms, _ = _log_terms(left, right, np.zeros(left.size, dtype=np.intp), qa, sa, la)
    if np.isnan(terms).any() or np.isposinf(terms).any():
        raise PointRefused(
            f"alpha={1.0 + lam if lam < 0 else lam:g}, sigma={sigma:g}, q={q:g}: outside the range where the "
            "Rényi divergence of the sampled Gaussian is computed accurately", "alpha")
    top = float(np.max(terms))
    if top == -np.inf:  # the excess underflows everywhere (q ~ 1e-300): the divergence is 0
        return -np.inf
    return top + float(np.log(np.sum(np.exp(terms - top))))  # log-sum-exp (all terms finite or -inf)


def _log_sums_on_panels(q: np.ndarray, sigma: np.ndarray, lam: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                        counts: np.ndarray, rules: tuple[tuple[np.ndarray, np.ndarray], ...]
                        ) -> tuple[list[np.ndarray], np.ndarray]:
    """Composite Gauss-Legendre log-sums per point, over ``counts`` equal panels of ``[lo, hi]``, one per rule
    (the panels of ``np.linspace(lo, hi, counts + 1)``), and which points have a NaN or +inf term."""
    sums = [np.empty(q.shape) for _ in rules]
    bad = np.zeros(q.shape, dtype=bool)
    nodes_per_panel = sum(r[0].size for r in rules)
    ends = np.cumsum(counts) * nodes_per_panel
    start = 0
    while start < q.size:  # chunks of consecutive points with at most _BATCH_NODES nodes (one point at least)
        stop = max(int(np.searchsorted(ends, (ends[start - 1] if start else 0) + _BATCH_NODES, side="right")),
                   start + 1)
        sl, n = slice(start, stop), counts[start:stop]
        panel_point = np.repeat(np.arange(n.size), n)
        first = np.cumsum(n) - n
        k = np.arange(panel_point.size) - first[panel_point]
        # the edges of np.linspace(lo, hi, n + 1): k (hi - lo)/n + lo, the last one hi itself
        step = ((hi[sl] - lo[sl]) / n)[panel_point]
        lo_p = lo[sl][panel_point]
        left = k * step + lo_p
        right = np.where(k + 1 == n[panel_point], hi[sl][panel_point], (k + 1) * step + lo_p)
        for rule, out in zip(rules, sums):
            terms, point = _log_terms(left, right, panel_point, q[sl], sigma[sl], lam[sl], rule)
            starts = first * rule[0].size
            bad[sl] |= np.logical_or.reduceat(np.isnan(terms) | (terms == np.inf), starts)
            with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
                top = np.maximum.reduceat(terms, starts)
                total = np.add.reduceat(np.exp(terms - top[point]), starts)
                out[sl] = np.where(top == -np.inf, -np.inf, top + np.log(total))
        start = stop
    return sums, bad


#: the coarse rule of the batched quadrature: panels of _COARSE_WIDTH sigma, 16 nodes, checked against 10
_COARSE_WIDTH = 3.0
_GL10 = np.polynomial.legendre.leggauss(10)
#: largest |log(16-node sum) - log(10-node sum)| accepted. Gauss-Legendre errors fall like rho^(-2n) for a
#: function analytic in a Bernstein ellipse rho, so the 16-node error is about this to the power 1.6 (1e-17)
_COARSE_TOL = 1e-11


def _log_quadrature_excess_batch(q: np.ndarray, sigma: np.ndarray, lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(values, done)``: :func:`_log_quadrature_excess` at many points in one vectorised pass.

    Over the same range as the one-point path, first a coarse rule: panels of ``3 min(sigma, sigma^2)``
    (the integrand varies on both scales) with 16 Gauss-Legendre nodes, accepted where the 10-node rule on
    the same panels agrees to ``_COARSE_TOL`` (in log, i.e. relative). Elsewhere, and where the coarse
    panels would not be fewer, the one-point rule itself (panels of sigma/2, 16 nodes), batched. Stated
    error: tests/privacy/test_rdp.py asserts 1e-12 relative against the one-point path on random points
    and against 50-digit mpmath at hard points. ``done`` is False where the one-point path must be used:
    the range needs more than ``_MAX_PANELS`` panels (it then integrates windows around the bumps), or a
    term is NaN or +inf (it then raises InputError naming the parameter).
    """
    values = np.full(q.shape, np.nan)
    done = np.zeros(q.shape, dtype=bool)
    lo, hi, _ = _mass_range(q, sigma, lam)
    with np.errstate(over="ignore", invalid="ignore"):
        n_fine = np.ceil((hi - lo) / (sigma / 2.0))
    todo = np.flatnonzero(np.isfinite(n_fine) & (n_fine <= _MAX_PANELS))
    if todo.size:
        # features on the scale sigma (the Gaussians) and sigma^2 (where q e^z crosses 1 - q)
        st = sigma[todo]
        n_coarse = np.maximum(np.ceil((hi[todo] - lo[todo]) / (_COARSE_WIDTH * st * np.minimum(st, 1.0))), 4)
        coarse = n_coarse < np.maximum(n_fine[todo], 8)
        rest, todo, n_coarse = todo[~coarse], todo[coarse], n_coarse[coarse].astype(np.intp)
        (sum16, sum10), bad = _log_sums_on_panels(q[todo], sigma[todo], lam[todo], lo[todo], hi[todo], n_coarse,
                                                  ((_GL_X, _GL_W), _GL10))
        with np.errstate(invalid="ignore"):
            ok = ~bad & ((sum16 == sum10) | (np.abs(sum16 - sum10) <= _COARSE_TOL))
        values[todo[ok]] = sum16[ok]
        done[todo[ok]] = True
        todo = np.sort(np.concatenate([rest, todo[~ok]]))
    if todo.size:  # the one-point rule, batched
        n = np.maximum(n_fine[todo], 8).astype(np.intp)
        (log_sum,), bad = _log_sums_on_panels(q[todo], sigma[todo], lam[todo], lo[todo], hi[todo], n, ((_GL_X, _GL_W),))
        values[todo] = log_sum
        done[todo] = ~bad
    return values, done


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
        rest = np.flatnonzero(~done)  # the rest by quadrature, all points at once
        a_rest = unique[rest, 2]
        log_ex, batched = _log_quadrature_excess_batch(unique[rest, 0], unique[rest, 1],
                                                       a_rest if d == "remove" else 1.0 - a_rest)
        vals[rest] = np.logaddexp(0.0, log_ex) / (a_rest - 1.0)
        for i in rest[~batched]:
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
        raise PointRefused(
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
    ``M = log(1 + 1/(q(alpha - 1)))`` (docs/papers/altschuler2022.md, "alpha*(q, sigma)"). The feasible set is
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
        raise PointRefused("sigma is too large: alpha*(q, sigma) exceeds the float range", "sigma")
    return _result(np.where(feasible_lo, alpha_star, 1.0))
