"""Last-iterate RDP of noisy SGD whose step size changes across phases: Altschuler & Talwar 2022, eq. (5.7).

§5.3 of Altschuler & Talwar (docs/papers/altschuler2022.md) states, for convex, L-Lipschitz, M-smooth losses
on a convex set of diameter D, uniform batches of size b (replace-one adjacency), a fixed start and any step
sizes ``eta_t <= 2/M``, with ``sigma_1^2 + sigma_2^2 = sigma^2``::

    eps(alpha) <= min_tau (T - tau) Q + (T - tau - 1) alpha D^2 / (2 sigma_1^2 (sum_{t=tau+1}^{T-1} eta_t)^2),
    Q = S_alpha(b/n, b sigma_2 / (2L)).

``Q`` does not depend on the step sizes (the bias ``2 eta_t L/b`` and the noise ``eta_t sigma_2`` scale
together).  The registry record ``altschuler2022/eq5.7/both-directions`` is this bound for the schedule
``eta_t = eta t^(-p)`` with ``S_alpha`` in both directions (the literal one-direction reading is refuted on
other records of the paper); here it is evaluated for any piecewise-constant schedule (the phases of a
:class:`verify.account.running.Accountant`), every ``tau`` and split ``gamma = sigma_1^2/sigma^2`` on a grid
being valid (a grid minimum is still a bound).  ``2L`` enters only as the bound on the gradient difference, so
the sensitivity ``Delta`` (``<= 2L``) is used in its place.  The window ``nu = T - tau - 1`` ranges over
``{1, ..., T-1}`` (``tau = T - 1`` would divide by zero).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from verify import validate
from verify.errors import InputError
from verify.privacy.rdp import rdp_to_dp_improved, sampled_gaussian_rdp

#: the registry record whose statement this evaluates (its verdict decides whether the accountant may use it)
THEOREM = "altschuler2022/eq5.7/both-directions"
#: integer Rényi orders (the exact binomial series of sampled_gaussian_rdp in one direction: fast)
ORDERS = np.array([1.5, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64, 96, 128, 256], dtype=float)
#: grid of the noise split gamma = sigma_1^2 / sigma^2 in (0, 1)
SPLITS = np.linspace(0.0, 1.0, 65)[1:-1]
#: most windows evaluated (all of them up to this many steps, else a geometric grid of window lengths)
MAX_WINDOWS = 4096


def window_sums(etas: Sequence[float], steps: Sequence[int], windows: np.ndarray) -> np.ndarray:
    """``sum of the last nu step sizes`` for every window length ``nu`` (a piecewise-constant schedule:
    ``steps[i]`` steps of size ``etas[i]``, in order)."""
    etas = np.asarray(etas, dtype=float)[::-1]
    counts = np.asarray(steps, dtype=float)[::-1]
    ends = np.cumsum(counts)  # the last `ends[k]` steps cover the last k+1 phases
    before = np.concatenate([[0.0], np.cumsum(etas * counts)])
    k = np.searchsorted(ends, windows, side="left")  # the phase (from the end) holding the window's first step
    starts = np.concatenate([[0.0], ends])[k]
    return before[k] + (windows - starts) * etas[k]


def _windows(T: int, boundaries: np.ndarray) -> np.ndarray:
    if T - 1 <= MAX_WINDOWS:
        return np.arange(1, T, dtype=float)
    grid = np.unique(np.round(np.geomspace(1, T - 1, MAX_WINDOWS)))
    near = np.concatenate([boundaries - 1, boundaries, boundaries + 1])  # where the schedule changes
    near = near[(near >= 1) & (near <= T - 1)]
    return np.unique(np.concatenate([grid, near]))


def at22_varying_rdp(orders: np.ndarray, etas: Sequence[float], steps: Sequence[int], *, n: int, b: int,
                     sigma: float, Delta: float, D: float) -> np.ndarray:
    """Altschuler & Talwar 2022 eq. (5.7) at each Rényi order, for ``steps[i]`` steps of size ``etas[i]``.

    ``n`` records, uniform batches of size ``b < n``, ``sigma`` the canonical noise on the averaged gradient,
    ``Delta`` the gradient sensitivity (``2L`` in the paper), ``D`` the diameter.  S_alpha in both directions.
    Needs at least two steps.  Minimised over the window and over the split grid :data:`SPLITS`.
    """
    where = "at22_varying_rdp"
    n = validate.integer("n", n, where)
    b = validate.integer("b", b, where)
    if b >= n:
        raise InputError(f"eq. (5.7) needs b < n (q = b/n in (0, 1)), got b={b}, n={n}", "b", where)
    sigma = validate.positive("sigma", sigma, where)
    Delta = validate.positive("Delta", Delta, where)
    D = validate.positive("D", D, where)
    if len(etas) != len(steps) or not len(etas):
        raise InputError("etas and steps must be non-empty and of the same length", "etas", where)
    for eta in etas:
        validate.positive("eta", eta, where)
    counts = [validate.integer("steps", s, where) for s in steps]
    T = sum(counts)
    if T < 2:
        raise InputError(f"eq. (5.7) needs T >= 2 steps, got {T}", "T", where)
    orders = np.atleast_1d(np.asarray(orders, dtype=float))
    boundaries = np.cumsum(counts[::-1])[:-1].astype(float)
    nu = _windows(T, boundaries)
    W = window_sums(etas, counts, nu)
    # Q = S_alpha(b/n, b sigma_2 / Delta), sigma_2 = sqrt(1 - gamma) sigma: b sigma / Delta is the noise
    # multiplier of the summed gradient (sensitivity Delta)
    z = b * sigma / Delta
    Q = np.asarray(sampled_gaussian_rdp(b / n, z * np.sqrt(1.0 - SPLITS)[:, None], orders[None, :],
                                        direction="max"), dtype=float)
    best = np.full(orders.shape, np.inf)
    for i, gamma in enumerate(SPLITS):
        # (nu + 1) Q + nu alpha D^2 / (2 gamma sigma^2 W(nu)^2), windows along axis 0
        pabi = (nu / (2.0 * gamma * sigma**2 * W**2))[:, None] * (orders * D**2)[None, :]
        total = (nu + 1.0)[:, None] * Q[i][None, :] + pabi
        best = np.minimum(best, total.min(axis=0))
    return best


def at22_varying_eps(delta: float, etas: Sequence[float], steps: Sequence[int], **kwargs) -> float:
    """eps(delta) of :func:`at22_varying_rdp` (Canonne-Kamath-Steinke 2020 conversion, minimised over orders)."""
    delta = validate.probability("delta", delta, "at22_varying_eps", open_hi=True)
    rdp = at22_varying_rdp(ORDERS, etas, steps, **kwargs)
    return float(rdp_to_dp_improved(ORDERS, rdp, delta))


__all__ = ["MAX_WINDOWS", "ORDERS", "SPLITS", "THEOREM", "at22_varying_eps", "at22_varying_rdp", "window_sums"]
