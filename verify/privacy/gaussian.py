"""Gaussian differential privacy: the tradeoff G_mu, (eps, delta) and Rényi conversions.

Conventions (Dong, Roth, Su 2022 "Gaussian differential privacy", JRSS-B; DRS22 below):

* ``G_mu(a) = Phi(Phi^{-1}(1 - a) - mu)`` is the tradeoff between N(0, 1) and N(mu, 1)
  (DRS22 eq. (6); Bok et al. 2024 Def. 2.4; Bu et al. 2020 Def. 2.3).
* mu-GDP is equivalent to (eps, delta(eps))-DP for all eps with
  ``delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)`` (DRS22 Cor. 1; Bok et al. Lemma A.3;
  Bu et al. eq. (3.2)); it implies (alpha, alpha mu^2 / 2)-RDP (Bok et al. Lemma A.4).
* The Gaussian mechanism with l2-sensitivity ``s`` and noise std ``noise`` is exactly (s / noise)-GDP.

Everything that can underflow is computed in log space; every function broadcasts over its arguments.
"""

from __future__ import annotations

import functools
import inspect

import numpy as np
from numpy.typing import ArrayLike

from verify import validate
from verify.errors import PointRefused
from verify.lazy import OnFirstUse

#: scipy.special, imported at its first use: a quarter of the registry's start-up, and list/show never call it
special = OnFirstUse("scipy.special", globals(), "special")

__all__ = [
    "tradeoff_gaussian",
    "tradeoff_gaussian_inverse",
    "gdp_delta",
    "gdp_log_delta",
    "gdp_eps",
    "gdp_to_rdp",
    "gaussian_mechanism_mu",
    "gaussian_mechanism_rdp",
    "gaussian_mechanism_delta",
    "gaussian_mechanism_eps",
]


# --------------------------------------------------------------------------------------------------
# the standard normal
# --------------------------------------------------------------------------------------------------

# Through scipy.special, not scipy.stats (0.6 s of import): scipy.stats' ``norm`` evaluates exactly these
# expressions (scipy/stats/_continuous_distns.py, ``_norm_cdf`` ... ``_norm_isf``), so values are bitwise
# the same (tests/privacy/test_normal.py).
_SQRT_2PI = np.sqrt(2 * np.pi)


def _norm_cdf(x):
    return special.ndtr(x)


def _norm_logcdf(x):
    return special.log_ndtr(x)


def _norm_ppf(p):
    return special.ndtri(p)


def _norm_pdf(x):
    with np.errstate(over="ignore"):  # x**2 = inf gives the right 0
        return np.exp(-x**2 / 2.0) / _SQRT_2PI


def _norm_sf(x):
    return special.ndtr(-x)


def _norm_logsf(x):
    return special.log_ndtr(-x)


def _norm_isf(p):
    return -special.ndtri(p) + 0.0  # + loc, as scipy.stats: isf(1/2) is 0.0, not -0.0


# --------------------------------------------------------------------------------------------------
# results
# --------------------------------------------------------------------------------------------------


def _result(x: np.ndarray):
    """Return a Python float for 0-d results, an array otherwise."""
    x = np.asarray(x, dtype=float)
    return float(x) if x.ndim == 0 else x


def _numeric(function=None, *, minus_inf: bool = False):
    """Decorator of the public numeric functions: numpy's floating-point warnings never reach the user
    (overflow in an intermediate is handled by the function: log space, explicit limits), and a NaN or an
    infinity in the result, which would be a silent wrong number, becomes an InputError.

    ``minus_inf=True`` admits ``-inf`` (a log of an exact 0, or of a value below the float range).
    """
    if function is None:
        return functools.partial(_numeric, minus_inf=minus_inf)

    @functools.wraps(function)
    def checked(*args, **kwargs):
        with np.errstate(all="ignore"):
            out = function(*args, **kwargs)
        values = np.asarray(out, dtype=float)
        bad = np.isnan(values) | (values == np.inf) | ((values == -np.inf) & (not minus_inf))
        if bad.any():
            first = next((n for n in inspect.signature(function).parameters if n != "self"), None)
            raise PointRefused(f"{function.__name__}: no accurate finite value at these parameters (outside the "
                               "range this computation resolves)", first)
        return out

    return checked


def _finite(compute, parameter: str, what: str):
    """``compute()`` (a closed form that can overflow), or InputError naming ``parameter``."""
    with np.errstate(over="ignore", invalid="ignore"):
        x = np.asarray(compute(), dtype=float)
    if not np.isfinite(x).all():
        raise PointRefused(f"{parameter} is out of range: {what} exceeds the float range", parameter)
    return _result(x)


# --------------------------------------------------------------------------------------------------
# tradeoff
# --------------------------------------------------------------------------------------------------


@_numeric
def tradeoff_gaussian(a: ArrayLike, mu: ArrayLike) -> np.ndarray | float:
    """``G_mu(a) = Phi(Phi^{-1}(1 - a) - mu)``: type II error of the best level-``a`` test of N(0,1) vs N(mu,1).

    DRS22 eq. (6); Bok et al. 2024 Definition 2.4. ``Phi^{-1}(1 - a)`` is computed as ``isf(a)`` so that
    tiny ``a`` keeps full relative precision. ``a`` in [0, 1], ``mu >= 0``.
    """
    a = validate.array("a", a, low=0.0, high=1.0)
    mu = validate.array("mu", mu, low=0.0)
    return _result(_norm_cdf(_norm_isf(a) - mu))


@_numeric
def tradeoff_gaussian_inverse(a: ArrayLike, mu: ArrayLike) -> np.ndarray | float:
    """The inverse ``G_mu^{-1}(a) = 1 - Phi(Phi^{-1}(a) + mu)``.

    ``G_mu`` is symmetric (DRS22 Prop. 2 / Bok et al. Def. 2.4: ``G_mu^{-1} = G_mu``), so this is
    ``G_mu`` again; it is kept as a separate name so that callers say which one they mean.
    """
    return tradeoff_gaussian(a, mu)


# --------------------------------------------------------------------------------------------------
# (eps, delta)
# --------------------------------------------------------------------------------------------------

# asymptotic series of erfcx(x) * x * sqrt(pi) = sum_k (-1)^k (2k-1)!! / (2 x^2)^k, used for x >= 30
_ERFCX_SERIES = np.array([1.0, -1.0, 3.0, -15.0, 105.0, -945.0, 10395.0, -135135.0])
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(20)


def _dlog_erfcx(x: np.ndarray) -> np.ndarray:
    """d/dx log erfcx(x) = 2x - 2 / (sqrt(pi) erfcx(x)), for x >= 0 (asymptotic form for x >= 30)."""
    x = np.asarray(x, dtype=float)
    out = np.empty_like(x)
    small = x < 30.0
    xs = x[small]
    out[small] = 2.0 * xs - 2.0 / (np.sqrt(np.pi) * special.erfcx(xs))
    if small.all():
        return out
    xl = x[~small]
    u = 1.0 / (2.0 * xl * xl)
    k = np.arange(len(_ERFCX_SERIES))
    s = np.sum(_ERFCX_SERIES[:, None] * u[None, :] ** k[:, None], axis=0)
    # d/dx of log(sum_k c_k u^k) with du/dx = -2u/x
    ds = np.sum((_ERFCX_SERIES * k)[:, None] * u[None, :] ** np.maximum(k - 1, 0)[:, None], axis=0)
    out[~small] = -1.0 / xl + ds * (-2.0 * u / xl) / s
    return out


def _log_erfcx_ratio(x: np.ndarray, h: np.ndarray) -> np.ndarray:
    """``log erfcx(x + h) - log erfcx(x)`` for x >= 0, h >= 0, without cancellation.

    For short intervals (h <= 1) the difference is the integral of d/dt log erfcx(t), done by
    20-point Gauss-Legendre (the integrand is smooth and slowly varying there); otherwise the
    difference of the logs is already well conditioned.
    """
    x, h = np.broadcast_arrays(np.asarray(x, float), np.asarray(h, float))
    out = np.empty(x.shape)
    short = h <= 1.0
    xs, hs = x[short], h[short]
    nodes = xs[:, None] + 0.5 * hs[:, None] * (_GL_NODES[None, :] + 1.0)
    out[short] = 0.5 * hs * np.sum(_GL_WEIGHTS[None, :] * _dlog_erfcx(nodes), axis=1)
    if short.all():
        return out
    xl, hl = x[~short], h[~short]
    out[~short] = np.log(special.erfcx(xl + hl)) - np.log(special.erfcx(xl))
    # x > 1e4: the two logs cancel; with erfcx(x) = S(1/(2x^2)) / (x sqrt(pi)) the ratio is
    # -log1p(h/x) + log S(u1) - log S(u0), S(u) = sum_k _ERFCX_SERIES[k] u^k
    far = ~short & (x > 1e4)
    if not far.any():
        return out
    xf, hf = x[far], h[far]
    k = np.arange(1, len(_ERFCX_SERIES))

    def log_s(u):
        return np.log1p(np.sum(_ERFCX_SERIES[1:, None] * u[None, :] ** k[:, None], axis=0))

    out[far] = -np.log1p(hf / xf) + log_s(0.5 / (xf + hf) ** 2) - log_s(0.5 / xf**2)
    return out


def _gdp_log_delta(mu: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """log delta(eps) of mu-GDP for broadcast arrays, mu > 0 (no validation).

    Returns -inf only where log delta itself is below -1.8e308 (e.g. mu = 1e-200, eps = 1).
    """
    with np.errstate(over="ignore", divide="ignore"):
        return _gdp_log_delta_unguarded(mu, eps)


def _gdp_log_delta_unguarded(mu: np.ndarray, eps: np.ndarray) -> np.ndarray:
    a = -eps / mu + mu / 2.0  # delta = Phi(a) - e^eps Phi(a - mu)
    out = np.empty(np.broadcast(a, mu).shape)
    a, mu, eps = np.broadcast_arrays(a, mu, eps)
    pos = a >= 5.0
    if pos.any():
        # a >= 5: Phi(a) ~ 1 and e^eps Phi(a - mu) < Phi(a)(1 - Phi(-5)): the direct difference is well conditioned
        ap, mp, ep = a[pos], mu[pos], eps[pos]
        log_d = ep + _norm_logcdf(ap - mp) - _norm_logcdf(ap)  # log(e^eps Phi(a - mu) / Phi(a)) < 0
        # delta near 1: log delta = log1p(-(Phi(-a) + e^eps Phi(a - mu))), both terms relative-accurate
        near_one = np.exp(_norm_logcdf(-ap)) + np.exp(ep + _norm_logcdf(ap - mp))
        # else log(Phi(a) (1 - d)) with 1 - d = -expm1(log d): keeps eps ~ -1e-45 (delta ~ 1 - e^eps)
        out[pos] = np.where(near_one < 0.5, np.log1p(-np.minimum(near_one, 0.5)),
                            _norm_logcdf(ap) + np.log(-np.expm1(np.minimum(log_d, 0.0))))
        if pos.all():
            return out
    # otherwise, with x = -a/sqrt2: Phi(a) = erfcx(x) e^{-x^2}/2 and e^eps Phi(a - mu) = erfcx(x + mu/sqrt2) e^{-x^2}/2
    an, mn = a[~pos], mu[~pos]
    x = -an / np.sqrt(2.0)
    ratio = _log_erfcx_ratio(x, mn / np.sqrt(2.0))  # log(e^eps Phi(b) / Phi(a)) < 0
    out[~pos] = _norm_logcdf(an) + np.log(-np.expm1(ratio))
    return out


#: relative error the direct difference of :func:`gdp_delta_terms` may have (beyond it: the exact path)
_DIRECT_RTOL = 1e-10


def gdp_delta_terms(mu: float, x: np.ndarray) -> np.ndarray:
    """``delta_G(mu, x)`` for one ``mu > 0`` and many ``x``, each to relative error 1e-10: the terms of a
    sum (the last Gaussian step of a composition, :meth:`verify.privacy.pld.Composition.delta_with_gaussian`)
    where :func:`gdp_delta`'s full precision would cost 20 erfcx per point.

    The direct form ``Phi(a) (1 - e^{x + log Phi(a - mu) - log Phi(a)})`` (``a = -x/mu + mu/2``, the
    branch :func:`gdp_delta` takes for ``a >= 5``) loses about ``u (|x| + |log Phi(a)| + |log Phi(a - mu)|)
    / |r|`` (relative, ``u`` the rounding of its logs) when the log-ratio ``r`` is small; where that could
    exceed 1e-10 the point goes through :func:`gdp_log_delta`.  No validation (``mu`` a positive float, ``x`` finite).
    """
    x = np.asarray(x, dtype=float)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        a = mu / 2.0 - x / mu
        log_phi_a = _norm_logcdf(a)
        log_phi_b = _norm_logcdf(a - mu)
        ratio = np.minimum(x + log_phi_b - log_phi_a, 0.0)  # log(e^x Phi(a - mu) / Phi(a)) <= 0
        out = np.exp(log_phi_a) * -np.expm1(ratio)
        # the rounding of the three terms of the ratio (a few ulps each) against the ratio itself
        loose = -ratio * _DIRECT_RTOL < 1e-15 * (np.abs(x) - log_phi_b - log_phi_a + 1.0)
        loose |= ~np.isfinite(out)
    if loose.any():
        out[loose] = np.exp(_gdp_log_delta(np.full(int(loose.sum()), float(mu)), x[loose]))
    return out


def _gdp_log_delta_small_mu(mu: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """log delta(eps) for mu < 1e-100, where the erfcx form loses the subnormal mu. With ``t = eps/mu``
    and Mills' ratio: ``delta = mu phi(t) e^{eps/2} (1 - t Phi(-t)/phi(t)) (1 + O(mu t))`` for t > -40
    (expand Phi(-t +- mu/2)); for t <= -40 both Phi are 1 to 1e-350 and ``delta = 1 - e^eps``."""
    with np.errstate(over="ignore"):
        t = eps / mu
    out = np.empty(t.shape)
    below = t <= -40.0
    out[below] = np.log(-np.expm1(eps[below]))
    huge = t >= 1.895e154  # log delta ~ -t^2/2 is below the float range
    out[huge] = -np.inf
    mid = ~below & (t <= 30.0)
    tm = t[mid]
    out[mid] = np.log(mu[mid]) + np.log(_norm_pdf(tm) - tm * _norm_sf(tm)) + eps[mid] / 2.0
    big = (t > 30.0) & ~huge  # phi(t) - t Phi(-t) = phi(t) (t^-2 - 3 t^-4 + 15 t^-6 - ...)
    tb = t[big]
    u = (1.0 / tb) / tb
    out[big] = (np.log(mu[big]) - (0.5 * tb) * tb - 0.5 * np.log(2.0 * np.pi) + eps[big] / 2.0
                + np.log(u * (1.0 - 3.0 * u * (1.0 - 5.0 * u * (1.0 - 7.0 * u * (1.0 - 9.0 * u))))))
    return out


@_numeric(minus_inf=True)
def gdp_log_delta(mu: ArrayLike, eps: ArrayLike) -> np.ndarray | float:
    """Natural log of :func:`gdp_delta`, accurate far below the float underflow (delta = 1e-300 and less).

    Bok et al. 2024 Lemma A.3 / DRS22 Cor. 1. Returns ``-inf`` only for ``mu == 0`` and ``eps >= 0``
    (delta is exactly 0 there).
    """
    mu = validate.array("mu", mu, low=0.0)
    eps = validate.array("eps", eps)
    mu, eps = np.broadcast_arrays(mu, eps)
    out = np.empty(mu.shape)
    zero = mu == 0.0
    # mu = 0: G_0 = Id and delta(eps) = (1 - e^eps)_+
    with np.errstate(divide="ignore"):
        out[zero] = np.where(eps[zero] < 0, np.log(-np.expm1(np.minimum(eps[zero], 0.0))), -np.inf)
    tiny = (~zero) & (mu < 1e-100)
    rest = ~(zero | tiny)
    out[rest] = _gdp_log_delta(mu[rest], eps[rest])
    out[tiny] = _gdp_log_delta_small_mu(mu[tiny], eps[tiny])
    return _result(out)


@_numeric
def gdp_delta(mu: ArrayLike, eps: ArrayLike) -> np.ndarray | float:
    """``delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)`` for mu-GDP.

    Bok et al. 2024 Lemma A.3; DRS22 Cor. 1; Bu et al. 2020 eq. (3.2). ``mu >= 0``; ``eps`` any real
    (the hockey-stick divergence is defined for negative eps too, where it tends to 1 - e^eps).
    Computed in log space (see :func:`gdp_log_delta`); values below ~1e-308 underflow to 0.
    """
    return _result(np.exp(gdp_log_delta(mu, eps)))


@_numeric
def gdp_eps(mu: ArrayLike, delta: ArrayLike) -> np.ndarray | float:
    """Smallest eps >= 0 with ``delta(eps; mu) <= delta``: the inverse of :func:`gdp_delta` in eps.

    Bok et al. 2024 Lemma A.3 inverted by root finding; Bu et al. footnote 10 convention: 0 when
    ``delta >= delta(0) = 2 Phi(mu/2) - 1``. Vectorised safeguarded Newton iteration on
    ``log delta(eps)`` inside the bracket ``[0, mu (mu/2 + Phi^{-1}(1 - delta))]`` (at the upper end
    ``delta(eps) <= Phi(-eps/mu + mu/2) = delta``), with bisection whenever Newton leaves the bracket.
    ``mu >= 0``, ``delta`` in (0, 1).
    """
    mu = validate.array("mu", mu, low=0.0)
    delta = validate.array("delta", delta, low=0.0, low_open=True, high=1.0, high_open=True)
    mu, delta = np.broadcast_arrays(mu, delta)
    out = np.zeros(mu.shape)
    log_target = np.log(delta)
    # delta(0) = 2 Phi(mu/2) - 1 = erf(mu / (2 sqrt 2))
    need = (mu > 0) & (delta < special.erf(mu / (2.0 * np.sqrt(2.0))))
    if not need.any():
        return _result(out)
    m, lt = mu[need], log_target[need]
    lo = np.zeros(m.shape)
    with np.errstate(over="ignore"):
        hi = m * (m / 2.0 + _norm_isf(delta[need]))
    if not np.isfinite(hi).all():  # eps ~ mu^2/2 itself overflows
        raise PointRefused(f"mu={m[~np.isfinite(hi)][0]:g} is too large: eps(delta) exceeds the float range", "mu")
    x = 0.5 * (lo + hi)
    active = np.arange(m.size)  # only unconverged entries are iterated
    for _ in range(200):
        ma, la, xa = m[active], lt[active], x[active]
        g = _gdp_log_delta(ma, xa) - la  # decreasing in eps
        lo_a = np.where(g > 0, xa, lo[active])
        hi_a = np.where(g > 0, hi[active], xa)
        # d/deps log delta = -e^eps Phi(-eps/mu - mu/2) / delta
        slope = -np.exp(xa + _norm_logcdf(-xa / ma - ma / 2.0) - (g + la))
        with np.errstate(divide="ignore", invalid="ignore"):
            newton = xa - g / slope
        ok = np.isfinite(newton) & (newton > lo_a) & (newton < hi_a)
        new = np.where(ok, newton, 0.5 * (lo_a + hi_a))
        done = np.abs(new - xa) <= 1e-15 * np.maximum(1.0, np.abs(xa))
        x[active], lo[active], hi[active] = new, lo_a, hi_a
        active = active[~done]
        if active.size == 0:
            break
    out[need] = x
    return _result(out)


# --------------------------------------------------------------------------------------------------
# Rényi
# --------------------------------------------------------------------------------------------------


@_numeric
def gdp_to_rdp(mu: ArrayLike, alpha: ArrayLike) -> np.ndarray | float:
    """mu-GDP implies (alpha, alpha mu^2 / 2)-RDP for every alpha > 1.

    Bok et al. 2024 Lemma A.4 (DRS22 Cor. B.6); tight for the Gaussian mechanism.
    """
    mu = validate.array("mu", mu, low=0.0)
    alpha = validate.array("alpha", alpha, low=1.0, low_open=True)
    return _finite(lambda: alpha * mu * mu / 2.0, "mu", "alpha mu^2 / 2")


# --------------------------------------------------------------------------------------------------
# the Gaussian mechanism
# --------------------------------------------------------------------------------------------------


@_numeric
def gaussian_mechanism_mu(sensitivity: ArrayLike, noise: ArrayLike) -> np.ndarray | float:
    """GDP parameter ``sensitivity / noise`` of ``x -> q(x) + N(0, noise^2 I)`` (DRS22 Thm. 2).

    ``sensitivity >= 0`` is the l2-sensitivity of ``q``, ``noise > 0`` the noise standard deviation.
    """
    sensitivity = validate.array("sensitivity", sensitivity, low=0.0)
    noise = validate.array("noise", noise, low=0.0, low_open=True)
    return _finite(lambda: sensitivity / noise, "noise", "sensitivity / noise")


@_numeric
def gaussian_mechanism_rdp(sensitivity: ArrayLike, noise: ArrayLike, alpha: ArrayLike) -> np.ndarray | float:
    """Rényi DP ``alpha sensitivity^2 / (2 noise^2)`` of the Gaussian mechanism (Mironov 2017, Prop. 7)."""
    return gdp_to_rdp(gaussian_mechanism_mu(sensitivity, noise), alpha)


@_numeric
def gaussian_mechanism_delta(sensitivity: ArrayLike, noise: ArrayLike, eps: ArrayLike) -> np.ndarray | float:
    """Exact delta(eps) of the Gaussian mechanism (Balle & Wang 2018, Thm. 8 = Bok et al. Lemma A.3)."""
    return gdp_delta(gaussian_mechanism_mu(sensitivity, noise), eps)


@_numeric
def gaussian_mechanism_eps(sensitivity: ArrayLike, noise: ArrayLike, delta: ArrayLike) -> np.ndarray | float:
    """Exact eps(delta) of the Gaussian mechanism (inverse of :func:`gaussian_mechanism_delta`)."""
    return gdp_eps(gaussian_mechanism_mu(sensitivity, noise), delta)
