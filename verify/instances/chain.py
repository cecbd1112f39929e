"""Gaussian chains: noisy GD on quadratic and linear losses, laws of the last iterate in closed form.

Canonical iteration (docs/conventions.md) with per-record gradients ``grad l(theta; x_i) = H theta - h_i``
(a shared symmetric ``H``; ``H = 0`` for linear losses; ``h_i = H x_i + tilt_i``):

    theta_{k+1} = A theta_k + eta * hbar_k - eta * Z_k,   A = I - eta H,   Z_k ~ N(0, sigma^2 I),

``hbar_k`` the mean of ``h_i`` over batch ``B_k`` (full or cyclic batches).  With
``H = U diag(lam) U^T`` and ``a = 1 - eta lam`` every iterate is Gaussian:

    mean_T = A^T mean_0 + eta * sum_j A^{r_j} G(A^l, E_j) hbar_j,
    cov_T  = A^T S_0 A^T + eta^2 sigma^2 G(A^2, T),

``G(a, N) = sum_{k<N} a^k = (1 - a^N)/(1 - a)``, batch ``j`` used ``E_j`` times, last at step
``T - 1 - r_j``.  Everything is evaluated per eigenvalue from ``x = eta * lam`` with ``expm1`` and
``log1p``, so ``T = 10^6`` costs what ``T = 10`` does.  This is the computation behind Bok et al.
2024, Thm 4.2 (exact case) and Thm C.17, and Chourasia et al. 2021, Thm 3 (proof).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from verify.errors import PointRefused


def one_minus_power(x, n) -> np.ndarray:
    """``1 - a^n`` with ``a = 1 - x``, ``x = eta * lambda`` in ``[0, 2]``, accurate as ``x -> 0``.

    ``-expm1(n log1p(-x))`` for ``a >= 0``; for ``a < 0`` the sign of ``a^n`` is kept.
    """
    x = np.asarray(x, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        log_abs = np.where(x < 1, np.log1p(-np.minimum(x, 1.0)), np.log(np.abs(x - 1)))
        even = np.mod(n, 2) == 0
        neg = x > 1
        out = np.where(neg & ~even, 1 + np.exp(n * log_abs), -np.expm1(n * log_abs))
    out = np.where(x == 1, np.where(n == 0, 0.0, 1.0), out)
    return np.where(n == 0, 0.0, out)


def _power(x, n) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        log_abs = np.where(x < 1, np.log1p(-np.minimum(x, 1.0)), np.log(np.abs(x - 1)))
        sign = np.where((x > 1) & (np.mod(n, 2) == 1), -1.0, 1.0)
        val = sign * np.exp(n * log_abs)
    return np.where(n == 0, 1.0, np.where(x == 1, 0.0, val))


def geometric_sum(x, step, N) -> np.ndarray:
    """``sum_{k<N} a^{step k} = (1 - a^{step N}) / (1 - a^step)``, ``a = 1 - x``; ``N`` where ``a^step = 1``."""
    N = np.asarray(N, dtype=float)
    num = one_minus_power(x, step * N)
    den = one_minus_power(x, np.asarray(step, dtype=float) + 0 * N)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = num / den
    return np.where(den == 0, N, out)


@dataclass(frozen=True)
class QuadraticRun:
    """One run of noisy GD on ``l_i(theta) = 1/2 theta^T H theta - h_i^T theta`` (+ const), full or cyclic.

    ``batch_means`` is the ``(l, d)`` array of the batch means ``hbar_j`` of the ``h_i``, *in the
    eigenbasis of H* (columns of ``U``); step ``k`` uses batch ``k mod l`` (full batch: ``l = 1``).
    ``eigenvalues`` are the ``lam``; ``init_mean`` (eigenbasis) and ``init_var`` (a scalar: isotropic
    Gaussian initialisation ``N(init_mean, init_var I)``, 0 for a fixed start).
    """

    eigenvalues: np.ndarray
    batch_means: np.ndarray
    eta: float
    sigma: float
    T: int
    init_mean: np.ndarray
    init_var: float = 0.0

    @property
    def l(self) -> int:
        return self.batch_means.shape[0]

    def batch_weights(self) -> np.ndarray:
        """``(l, d)``: coefficient of ``hbar_j`` in the mean of the last iterate, per eigenvalue.

        ``eta * a^{r_j} * G(a^l, E_j)``: batch ``j`` is used at steps ``k = j + l e < T``.
        """
        x = self.eta * self.eigenvalues
        j = np.arange(self.l)[:, None]
        E = np.where(j < self.T, (self.T - 1 - j) // self.l + 1, 0)
        r = self.T - 1 - j - self.l * (E - 1)
        g = geometric_sum(x, self.l, E)
        return np.where(E > 0, self.eta * _power(x, np.maximum(r, 0)) * g, 0.0)

    def mean(self) -> np.ndarray:
        """Mean of the last iterate (eigenbasis)."""
        x = self.eta * self.eigenvalues
        return _power(x, self.T) * self.init_mean + np.sum(self.batch_weights() * self.batch_means, axis=0)

    def variances(self) -> np.ndarray:
        """Variances of the last iterate along each eigenvector (the covariance is diagonal there)."""
        x = self.eta * self.eigenvalues
        with np.errstate(over="ignore", invalid="ignore"):  # (eta sigma)^2 may exceed the float range
            noise = np.square(np.float64(self.eta) * np.float64(self.sigma)) * geometric_sum(x, 2, self.T)
            out = _power(x, 2 * self.T) * self.init_var + noise
        if not np.isfinite(out).all():
            raise PointRefused(
                f"sigma={self.sigma:g}, eta={self.eta:g}: the variance of the last iterate exceeds the float range",
                "sigma")
        return out


__all__ = ["QuadraticRun", "geometric_sum", "one_minus_power"]
