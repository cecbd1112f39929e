"""Unconstrained 1-D chains under shuffled batches: an exact mixture over the orders.

Noisy GD on ``l_i(theta) = lam/2 theta^2 + g_i theta`` in 1-D, unconstrained, a fresh permutation into
``l = n/b`` batches every epoch.  Every record but the differing one has ``g_i = 0``; the differing one has
gradient offset ``g`` in D and ``g - Delta`` in D'.  One step is ``theta <- a theta - eta g_i/b 1[used] - eta Z``
with ``a = 1 - eta lam``, so from ``theta_0 = 0``

    theta_T = -(eta g / b) S + N(0, v),   S = sum over the steps t that use the record of a^(T-1-t),
    v = (eta sigma)^2 sum_{k<T} a^(2k),

with the same Gaussian noise under D and D' and the same law of ``S``: the record's step is uniform over the
``l`` steps of each epoch, independently across epochs (and in a partial last epoch of ``r`` steps it is used
with probability ``r/l``).  The last iterates are therefore the Gaussian mixtures ``sum_S w_S N(-eta g S/b, v)``
against ``sum_S w_S N(-eta (g - Delta) S/b, v)``, whose weights are the exact law of ``S`` (a convolution over
the epochs; uses whose means differ by less than 1e-9 noise standard deviations merged).  Their cell masses on
a window holding every mean and 12 standard deviations on each side (the ends
collect the tails) are a post-processing of the last iterate, and the refinement against half the cells states
the error.  ``lam > 0``: strongly convex quadratics (the past forgotten); ``lam = 0``: linear losses; ``lam < 0``:
the concave quadratics of :func:`~verify.instances.families.nonconvex_chain` (the past kept).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from verify.errors import InputError, PointRefused
from verify.instances.families import draw_offset
from verify.instances.instance import BatchPlan, Instance, RunDescription, sensitivity
from verify.instances.profile import DiscreteProfile
from verify.instances.registry import reads, register_family
from verify.setting import Setting, loss_classes
from verify.validate import choice, finite, integer, positive

#: the most distinct values of S (orders, merged where equal) the mixture keeps
MAX_ORDERS = 2048
#: standard deviations of the noise beyond the extreme means that the window holds
WINDOW = 12.0


def order_law(a: float, l: int, T: int, resolution: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """``(values, weights)``: the law of ``S = sum a^(T-1-t)`` over the steps ``t`` that use the record, one uniform
    step per epoch of ``l`` steps (a partial last epoch of ``r`` steps: used with probability ``r/l``); values
    closer than ``resolution`` (absolute) or 1e-12 (relative) are merged into one."""
    values, weights = np.zeros(1), np.ones(1)
    for start in range(0, T, l):
        steps = np.arange(start, min(start + l, T))
        terms = np.concatenate([a ** (T - 1 - steps), [0.0] * (l - steps.size)])
        values = (values[:, None] + terms[None, :]).ravel()
        weights = (weights[:, None] / l * np.ones(l)[None, :]).ravel()
        values, weights = _merged(values, weights, resolution)
        if values.size > MAX_ORDERS:
            raise PointRefused(f"the shuffled orders give more than {MAX_ORDERS} distinct uses (l = {l}, T = {T})",
                               "T", "shuffled_chain")
    return values, weights


def _merged(values: np.ndarray, weights: np.ndarray, resolution: float) -> tuple[np.ndarray, np.ndarray]:
    """Values closer than ``resolution`` (or 1e-12 relative) summed into the first of them."""
    order = np.argsort(values, kind="stable")
    values, weights = values[order], weights[order]
    scale = max(float(np.max(np.abs(values))), 1e-300)
    starts = np.concatenate([[True], np.diff(values) > max(1e-12 * scale, resolution)])
    groups = np.cumsum(starts) - 1
    return values[starts], np.bincount(groups, weights=weights)


def _log_cell_masses(edges: np.ndarray, means: np.ndarray, weights: np.ndarray, sd: float) -> np.ndarray:
    """Log masses of the cells between ``edges`` (the first and last cells reaching to -inf, +inf) of the mixture,
    in log space all the way (a cell far in one law's tail keeps its mass relative to the other law's)."""
    z = (edges[None, :] - means[:, None]) / sd
    lo, hi = z[:, :-1], z[:, 1:]
    lo[:, 0], hi[:, -1] = -np.inf, np.inf
    # log(Phi(hi) - Phi(lo)) from the nearer tail: Phi(hi) - Phi(lo) = Phi(-lo) - Phi(-hi)
    upper = lo > 0
    a, c = np.where(upper, -hi, lo), np.where(upper, -lo, hi)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_c, log_a = special.log_ndtr(c), special.log_ndtr(a)
        per = log_c + np.log1p(-np.exp(np.minimum(log_a - log_c, 0.0)))
    per = np.where(np.isnan(per), -np.inf, per)
    return special.logsumexp(per + np.log(weights)[:, None], axis=0)


def shuffled_chain(n, b, eta, sigma, T, Delta, m=0.0, curvature_sign=1, offset=0.0, cells=2048,
                   name=None) -> Instance:
    """Unconstrained 1-D noisy GD under shuffled batches on ``lam/2 theta^2 + g theta``, ``lam = curvature_sign m``
    (module docstring): an exact mixture over the orders, discretised on ``cells`` cells."""
    where = "shuffled_chain"
    plan = BatchPlan.of(where, n, "cyclic", b, 0, ("cyclic",))  # a partition into l = n/b batches
    eta, sigma = positive("eta", eta, where), positive("sigma", sigma, where)
    T = integer("T", T, where, high=10 ** 5)
    Delta = sensitivity(Delta, where)
    choice("curvature_sign", curvature_sign, (-1, 0, 1), where)
    m = finite("m", m, where)
    lam = float(curvature_sign) * abs(m)
    if abs(eta * lam) >= 2:
        raise InputError(f"need eta*|lam| < 2, got {abs(eta * lam)}", "eta", where)
    offset = finite("offset", offset, where)
    cells = integer("cells", cells, where, low=64, high=2 ** 16)
    a = 1.0 - eta * lam
    with np.errstate(over="raise"):
        try:
            v = (eta * sigma) ** 2 * float(np.sum(a ** (2.0 * np.arange(T))))
        except FloatingPointError:
            raise InputError("the noise variance exceeds the float range (expanding steps over many steps)",
                             "T", where) from None
    if not math.isfinite(v):
        raise InputError("the noise variance exceeds the float range", "T", where)
    g, g_prime = offset, offset - Delta
    # uses whose means lie within 1e-9 noise standard deviations of each other are one component: the mixtures
    # move by less than the comparisons' floor (relative 1e-6)
    values, weights = order_law(a, plan.l, T, 1e-9 * math.sqrt(v) * plan.b / (eta * max(abs(g), abs(g_prime))))

    def compute() -> DiscreteProfile:
        sd = math.sqrt(v)
        means_d, means_p = -eta * g / plan.b * values, -eta * g_prime / plan.b * values
        lo = min(means_d.min(), means_p.min()) - WINDOW * sd
        hi = max(means_d.max(), means_p.max()) + WINDOW * sd

        def pair(count: int) -> DiscreteProfile:
            edges = np.linspace(lo, hi, count + 1)
            support = 0.5 * (edges[:-1] + edges[1:])
            return DiscreteProfile.from_log(_log_cell_masses(edges, means_d, weights, sd),
                                            _log_cell_masses(edges, means_p, weights, sd), support=support)

        fine, coarse = pair(cells), pair(cells // 2)
        profile = DiscreteProfile(fine.p, fine.q, support=fine.support, coarse=coarse)
        profile.error = profile.error_of("delta", np.linspace(0.0, 4.0, 41))
        return profile

    if lam > 0:
        classes, constants, loss = loss_classes("squared"), {"m": lam, "M": lam}, "quadratic"
    elif lam < 0:
        classes, constants, loss = loss_classes("concave_quadratic"), {"rho": -lam, "M": -lam}, "concave_quadratic"
    else:
        classes, constants, loss = loss_classes("linear"), {"m": 0.0}, "linear"
    if lam == 0 and max(abs(g), abs(g_prime)) > 0:
        constants["L"] = max(abs(g), abs(g_prime))
    batch = {k: v_ for k, v_ in plan.constants(T).items() if k != "tpos"}  # no fixed batch under shuffling
    setting = Setting(algorithm="noisy_gd", batches="shuffle", loss=loss, constraint="none", adjacency="replace",
                      init="fixed", release="last")
    run = RunDescription(kind="walk_1d", loss=f"{lam:g}/2 theta^2 + g theta", n=plan.n, b=plan.b, T=T, eta=eta,
                         sigma=sigma, batches="shuffle", init="fixed", record_gradient=g, record_gradient_prime=g_prime,
                         x0=0.0, cells=cells, eigenvalues=np.array([lam]))
    return Instance(name=name or f"{where}(n={plan.n}, b={plan.b}, T={T}, lam={lam:.4g})", family=where,
                    setting=setting, loss_classes=classes,
                    constants={**batch, "eta": eta, "sigma": sigma, "Delta": Delta, "d": 1, **constants}, run=run,
                    compute=compute)


@reads()
def draw_curvature_sign(u: float, context) -> int:
    """The sign of the curvature: concave (u < 1/3), linear (u < 2/3), strongly convex; the magnitude is m."""
    return -1 if u < 1 / 3 else 0 if u < 2 / 3 else 1


register_family("shuffled_chain", shuffled_chain, cost="grid", run_kind="walk_1d",
                exactness="an exact mixture of Gaussians over the shuffled orders (the law of the record's uses "
                          "by convolution over the epochs), discretised on a window, error by refinement",
                setting=Setting(batches="shuffle", loss="any", constraint="none", init="fixed"),
                source="shuffled batches (a fresh permutation every epoch), unconstrained",
                searched={"curvature_sign": draw_curvature_sign, "offset": draw_offset},
                example=dict(n=10, eta=0.1, sigma=1.0, T=5, Delta=1.0, b=5, m=0.5, curvature_sign=-1, cells=128))

__all__ = ["order_law", "shuffled_chain"]
