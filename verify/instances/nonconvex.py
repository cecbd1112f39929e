"""A Lipschitz, smooth, non-convex loss in 1-D, unconstrained: exact density evolution on a window.

Every record shares the loss ``h(theta) = -rho c^2 log cosh(theta / c)`` (gradient ``-rho c tanh(theta/c)``,
bounded by ``rho c``; curvature ``-rho sech^2(theta/c)`` in ``[-rho, 0]``: rho-weakly convex, rho-smooth and
``rho c``-Lipschitz, concave, so not convex); the differing record adds the linear term ``g theta`` in D and
``(g - Delta) theta`` in D'.  Near 0 a step expands (the record's shift is kept, as for the concave quadratics of
:func:`~verify.instances.families.nonconvex_chain`); far out the gradient is a constant push outwards.  Unlike
those quadratics the losses are Lipschitz, so theorems stated in ``L`` for Lipschitz or smooth losses, without a
constraint set, are compared on a non-convex loss.  The laws of the last iterate are evolved exactly on a grid
(dense engine: one step is ``theta <- theta + eta rho c tanh(theta/c) - eta g/b 1[used] - eta Z``, a mixture of
maps) over a window holding the largest drift and ``window`` standard deviations of the noise's sum on each side
(the displacements are bounded and the noise enters additively, so every iterate lies within them but for that
sum's tail); the mass reaching the window's ends is added to the error, as for the other unconstrained grids.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from verify.errors import InputError
from verify.instances.families import draw_offset, draw_position
from verify.instances.walks import _grid_profile, _schedules
from verify.instances.grid import DENSE_MAX_CELLS, Mixture
from verify.instances.instance import BatchPlan, Instance, RunDescription, sensitivity
from verify.instances.profile import DiscreteProfile
from verify.instances.registry import register_family
from verify.setting import Setting, loss_classes
from verify.validate import finite, integer, positive


@dataclass(frozen=True)
class _Push:
    """The displacement ``shift + eta rho c tanh(theta / c)``: a translation plus the gradient step of ``h``."""

    shift: float
    push: float  # eta rho c
    width: float  # c

    def __call__(self, theta):
        return self.shift + self.push * np.tanh(np.asarray(theta) / self.width)


def tanh_walk(n, eta, sigma, T, Delta, rho, width=None, M=None, batches="full", b=None, position=0, offset=0.0,
              window=12.0, name=None) -> Instance:
    """Noisy GD on ``-rho c^2 log cosh(theta/c) + g_i theta`` (module docstring), ``c = width`` (default ``10 eta
    sigma``), full or cyclic batches, theta_0 = 0, unconstrained; exact laws on a window of at most 2048 cells."""
    where = "tanh_walk"
    eta, sigma = positive("eta", eta, where), positive("sigma", sigma, where)
    T = integer("T", T, where, high=10 ** 4)
    Delta = sensitivity(Delta, where)
    rho = positive("rho", rho, where)
    M = rho if M is None else positive("M", M, where)
    if M < rho:
        raise InputError(f"need M >= rho (the loss is rho-smooth), got M={M} < rho={rho}", "M", where)
    if eta * rho >= 2:
        raise InputError(f"need eta*rho < 2, got {eta * rho}", "eta", where)
    s = eta * sigma
    c = 10.0 * s if width is None else positive("width", width, where)
    offset = finite("offset", offset, where)
    window = positive("window", window, where)
    plan = BatchPlan.of(where, n, batches, b, position, ("full", "cyclic"))
    g, g_prime = offset, offset - Delta
    push = eta * rho * c
    # theta_k = (sum of bounded displacements) - eta (Z_0 + ... + Z_{k-1}): within the drift plus the noise's sum
    drift = T * (push + eta * max(abs(g), abs(g_prime)) / plan.b)
    half = drift + window * s * math.sqrt(T)
    cells = max(256, int(math.ceil(24 * half / s)))
    if cells > DENSE_MAX_CELLS:
        raise InputError(f"the window needs {cells} cells of width eta sigma/12 (at most {DENSE_MAX_CELLS}): the "
                         "drift over T steps is too large", "T", where)
    sch_d, sch_p = _schedules(plan.n, eta, plan, g, g_prime)

    def pushed(mx: Mixture) -> Mixture:
        return Mixture(mx.weights, tuple(_Push(float(d), push, c) for d in mx.displacements))

    sch_d, sch_p = [pushed(mx) for mx in sch_d], [pushed(mx) for mx in sch_p]

    def compute() -> DiscreteProfile:
        return _grid_profile(-half, half, 0.0, s, sch_d, sch_p, T, cells, "dense", escaped_is_error=True)

    constants = {**plan.constants(T), "eta": eta, "sigma": sigma, "Delta": Delta, "d": 1, "rho": rho, "M": M,
                 "L": rho * c + max(abs(g), abs(g_prime))}
    setting = Setting(algorithm="noisy_gd", batches=batches, loss="weakly_convex", constraint="none",
                      adjacency="replace", init="fixed", release="last")
    run = RunDescription(kind="walk_1d", loss="-rho c^2 log cosh(theta/c) + g theta", n=plan.n, b=plan.b, T=T,
                         eta=eta, sigma=sigma, batches=batches, position=plan.position, init="fixed",
                         record_gradient=g, record_gradient_prime=g_prime, x0=0.0, window=(-half, half), cells=cells,
                         method="dense")
    return Instance(name=name or f"{where}(n={plan.n}, T={T}, rho={rho:.4g}, batches={batches})", family=where,
                    setting=setting, loss_classes=loss_classes("weakly_convex", "nonconvex", "smooth", "lipschitz"),
                    constants=constants, run=run, compute=compute)


register_family("tanh_walk", tanh_walk, cost="grid", run_kind="walk_1d",
                exactness="1-D density evolution of a non-linear gradient map on a window (dense engine), the mass "
                          "reaching the window's ends added to the error",
                setting=Setting(batches="any", loss="weakly_convex", constraint="none", init="fixed"),
                source="a Lipschitz non-convex construction: an expanding step near 0, a bounded push outwards",
                searched={"offset": draw_offset, "position": draw_position},
                example=dict(n=10, eta=0.1, sigma=1.0, T=5, Delta=1.0, rho=0.5))

__all__ = ["tanh_walk"]
