"""Central-limit GDP parameters of subsampled Gaussian compositions (approximations, not bounds).

* Bu et al. 2020 eq. (3.1) (one-sided Poisson / add-remove form, their Thm. 5 corrected):
  ``mu = q sqrt(T (e^{1/z^2} - 1))``.
* DRS22 Cor. 4 / Bok et al. 2024 Lemma A.5 (symmetric ``C_p(G_mu1)^{⊗T}``):
  ``mu = sqrt(2) p sqrt(T) sqrt(e^{mu1^2} Phi(1.5 mu1) + 3 Phi(-0.5 mu1) - 2)``.
* The uniform-sampling CLT of DRS22 §5 (TF-Privacy ``compute_mu_uniform``; docs/papers/bu2020.md "(ext)
  Uniform-subsampling CLT") is the symmetric form with ``mu1 = 1/z``.

Bu et al. §7 (docs/papers/bu2020.md) shows the CLT can *under*-state the privacy loss at small delta: callers
must treat these as ``kind="approximation"``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from verify import validate
from verify.errors import PointRefused
from verify.privacy.gaussian import _norm_cdf, _numeric, _result

__all__ = ["clt_mu_poisson", "clt_mu_symmetric", "clt_mu_uniform"]

_LOG_MAX = np.log(np.finfo(float).max) - 1.0
# Taylor coefficients of F(m) = e^{m^2} Phi(1.5 m) + 3 Phi(-m/2) - 2 at m = 0, powers 2..8
_F_SERIES = np.array(
    [0.5, np.sqrt(2 / np.pi) / 2, 0.25, 3 * np.sqrt(2 / np.pi) / 16, 1 / 12, 69 * np.sqrt(2 / np.pi) / 1280, 1 / 48]
)


@_numeric
def clt_mu_poisson(q: ArrayLike, T: ArrayLike, z: ArrayLike) -> np.ndarray | float:
    """``mu_CLT = q sqrt(T (exp(1/z^2) - 1))``: Bu et al. 2020 eq. (3.1), Poisson rate q, noise multiplier z.

    ``q`` in (0, 1], ``T > 0`` (may be fractional, as T = epochs n / B in TF-Privacy), ``z > 0``.
    Computed as ``q sqrt(T) exp(log(expm1(1/z^2))/2)``; raises InputError naming z when mu overflows a float.
    """
    q = validate.array("q", q, low=0.0, low_open=True, high=1.0)
    T = validate.array("T", T, low=0.0, low_open=True)
    z = validate.array("z", z, low=0.0, low_open=True)
    with np.errstate(over="ignore", under="ignore", divide="ignore"):  # branches np.where discards
        log_x = -2.0 * np.log(z)
        x = np.exp(log_x)  # 1/z^2
        # log(e^x - 1): x + log1p(-e^-x) when large, log x + x/2 when tiny (1/z^2 may underflow)
        log_expm1 = np.where(x > 30.0, x + np.log1p(-np.exp(-np.minimum(x, 700.0))),
                             np.where(x > 1e-8, np.log(np.expm1(np.clip(x, 1e-8, 30.0))), log_x + x / 2.0))
        log_mu = np.log(q) + 0.5 * np.log(T) + 0.5 * log_expm1
    if (log_mu > _LOG_MAX).any():
        raise PointRefused("z is too small: mu_CLT = q sqrt(T (e^{1/z^2} - 1)) overflows a float", "z")
    return _result(np.exp(log_mu))


def _log_F(m: np.ndarray) -> np.ndarray:
    """log(e^{m^2} Phi(1.5 m) + 3 Phi(-m/2) - 2) for m >= 0 (m > 0 gives a positive argument)."""
    out = np.empty(m.shape)
    small = m < 1e-2
    ms = m[small]
    powers = ms[None, :] ** np.arange(2, 9)[:, None]
    with np.errstate(divide="ignore"):
        out[small] = np.log(np.sum(_F_SERIES[:, None] * powers, axis=0))
    mid = (~small) & (m <= 5.0)
    mm = m[mid]
    out[mid] = np.log(np.exp(mm * mm) * _norm_cdf(1.5 * mm) + 3.0 * _norm_cdf(-0.5 * mm) - 2.0)
    big = m > 5.0
    mb = m[big]
    out[big] = mb * mb + np.log(_norm_cdf(1.5 * mb) + (3.0 * _norm_cdf(-0.5 * mb) - 2.0) * np.exp(-mb * mb))
    return out


@_numeric
def clt_mu_symmetric(p: ArrayLike, mu1: ArrayLike, T: ArrayLike) -> np.ndarray | float:
    """``mu = sqrt(2) p sqrt(T) sqrt(e^{mu1^2} Phi(1.5 mu1) + 3 Phi(-mu1/2) - 2)``: CLT of ``C_p(G_mu1)^{⊗T}``.

    Bok et al. 2024 Lemma A.5 (DRS22 Cor. 4), as used for Thm. 4.8 (docs/papers/bok2024.md).
    ``p`` in (0, 1], ``mu1 >= 0`` the per-step GDP parameter, ``T > 0``. Small ``mu1`` uses the Taylor
    series of the bracket (it vanishes like mu1^2/2); large ``mu1`` works in log space.
    """
    p = validate.array("p", p, low=0.0, low_open=True, high=1.0)
    mu1 = validate.array("mu1", mu1, low=0.0)
    T = validate.array("T", T, low=0.0, low_open=True)
    p, mu1, T = np.broadcast_arrays(p, mu1, T)
    with np.errstate(divide="ignore"):
        log_mu = 0.5 * np.log(2.0 * T) + np.log(p) + 0.5 * _log_F(mu1)
    if (log_mu > _LOG_MAX).any():
        raise PointRefused("mu1 is too large: the symmetric CLT parameter overflows a float", "mu1")
    return _result(np.exp(log_mu))


@_numeric
def clt_mu_uniform(p: ArrayLike, T: ArrayLike, z: ArrayLike) -> np.ndarray | float:
    """Uniform (fixed-size, replace-one) subsampling CLT of DRS22 §5: :func:`clt_mu_symmetric` with mu1 = 1/z.

    ``mu = sqrt(2) p sqrt(T) sqrt(e^{1/z^2} Phi(1.5/z) + 3 Phi(-0.5/z) - 2)`` (docs/papers/bu2020.md,
    TF-Privacy ``compute_mu_uniform``). ``p`` in (0, 1], ``T > 0``, noise multiplier ``z > 0``.
    """
    z = validate.array("z", z, low=0.0, low_open=True)
    with np.errstate(over="ignore"):
        mu1 = 1.0 / z
    if not np.isfinite(mu1).all():
        raise PointRefused("z is too small: the per-step mu = 1/z overflows a float", "z")
    return clt_mu_symmetric(p, mu1, T)
