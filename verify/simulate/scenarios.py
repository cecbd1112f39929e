"""Simulated instances beyond the exact engines: logistic and Huber regression in d dimensions.

Each scenario is a function of keyword parameters returning a :class:`Simulation`; data are drawn
from a seeded generator (``data_seed``) so a scenario is a fixed, replayable neighbouring pair.
Features are scaled to norm <= 1, so the Lipschitz constants in :meth:`Simulation.constants` are
those of the loss (logistic: L = 1; Huber: L = kappa).  The differing record is a worst-case-style
replacement: the record flipped to the opposite direction (replace-one), or removed (add/remove).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from verify.simulate.spec import Ball, Box, Huber, Logistic, Simulation
from verify.validate import choice, integer, positive


def _features(n: int, d: int, data_seed: int) -> np.ndarray:
    rng = np.random.default_rng(np.random.SeedSequence(data_seed))
    X = rng.standard_normal((n, d))
    X /= np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1.0)
    X *= rng.uniform(0.5, 1.0, size=(n, 1))
    return X


def _sizes(where: str, d, n, b, T) -> tuple[int, int, int, int]:
    """Dimension, records (at least 2: one differs), batch size and steps, validated."""
    return integer("d", d, where), integer("n", n, where, low=2), integer("b", b, where), integer("T", T, where)


def logistic_ball(d: int = 10, n: int = 100, b: int = 10, T: int = 20, eta: float = 0.5,
                  sigma: float = 0.2, radius: float = 1.0, batches: str = "poisson",
                  adjacency: str = "add_remove", data_seed: int = 0) -> Simulation:
    """Logistic regression in ``d`` dimensions, projected onto the ball of ``radius``.

    The differing record (index 0) is a unit feature along the first axis with label +1; in D' it is
    removed (add/remove) or replaced by its opposite with the same label (replace-one; note that
    ``(x, y)`` and ``(-x, -y)`` are the same logistic loss).
    """
    where = "logistic_ball"
    d, n, b, T = _sizes(where, d, n, b, T)
    eta, sigma, radius = positive("eta", eta, where), positive("sigma", sigma, where), positive("radius", radius, where)
    choice("adjacency", adjacency, ("add_remove", "replace"), where)
    X = _features(n, d, data_seed)
    y = np.where(np.random.default_rng(data_seed + 1).random(n) < 0.5, -1.0, 1.0)
    X[0] = 0.0
    X[0, 0] = 1.0
    y[0] = 1.0
    other = None if adjacency == "add_remove" else -X[0]
    return Simulation(Logistic(), X, steps=T, eta=eta, sigma=sigma, index=0, x_other=other, y=y,
                      y_other=None if other is None else 1.0, batches=batches, batch_size=b,
                      constraint=Ball(radius), name=f"logistic_ball(d={d}, {batches}, {adjacency})")


def huber_box(d: int = 5, n: int = 50, b: int = 10, T: int = 20, eta: float = 0.5, sigma: float = 0.2,
              kappa: float = 1.0, half_width: float = 1.0, batches: str = "shuffle",
              adjacency: str = "replace", data_seed: int = 0) -> Simulation:
    """Huber regression in ``d`` dimensions, projected onto the box ``[-half_width, half_width]^d``."""
    where = "huber_box"
    d, n, b, T = _sizes(where, d, n, b, T)
    eta, sigma, kappa = positive("eta", eta, where), positive("sigma", sigma, where), positive("kappa", kappa, where)
    hw = positive("half_width", half_width, where)
    choice("adjacency", adjacency, ("add_remove", "replace"), where)
    X = _features(n, d, data_seed)
    y = np.random.default_rng(data_seed + 1).standard_normal(n)
    X[0] = 0.0
    X[0, 0] = 1.0
    y[0] = 5.0 * kappa
    other = None if adjacency == "add_remove" else X[0]
    return Simulation(Huber(kappa), X, steps=T, eta=eta, sigma=sigma, index=0, x_other=other, y=y,
                      y_other=None if other is None else -5.0 * kappa, batches=batches, batch_size=b,
                      constraint=Box(-hw * np.ones(d), hw * np.ones(d)),
                      name=f"huber_box(d={d}, {batches}, {adjacency})")


SCENARIOS: dict[str, Callable[..., Simulation]] = {"logistic_ball": logistic_ball, "huber_box": huber_box}
