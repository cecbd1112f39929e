"""From an exact-reference :class:`verify.instances.instance.Instance` to a :class:`Simulation`.

The simulation runs the *same* pair of runs the instance describes (its typed
:class:`~verify.instances.instance.RunDescription`), so the audit can be checked against the
instance's exact profile.  The run's ``kind`` says how:

* ``gaussian_chain``: per-record gradients ``H theta - h_i`` in the eigenbasis of H (privacy is
  invariant under the rotation), D' moving record ``differing_index`` by ``gradient_difference``;
  the statistic is the exact log-likelihood ratio of the two Gaussian laws of the last iterate.
* ``walk_1d``: one record with gradient ``g`` in D and ``g'`` in D', every other loss zero (a
  zero-gradient record and an absent one give the same law, so add/remove is run as this
  replacement); projection onto the run's interval when it has one.  A run releasing every
  iterate is simulated through its last iterate (less information, so a lower bound for it is
  still a lower bound for the instance).
* ``gaussian_pair``: no iteration to simulate.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np

from verify.errors import InputError
from verify.instances.chain import QuadraticRun
from verify.instances.instance import Instance, RunDescription
from verify.simulate.spec import Interval, Quadratic, Simulation


def simulation_of(instance: Any) -> Simulation:
    """The :class:`Simulation` of ``instance``; :class:`InputError` when its run cannot be simulated."""
    if not isinstance(instance, Instance):
        raise InputError(f"target {instance!r} is neither a Simulation nor an instance of verify.instances",
                         "target")
    run = instance.run
    if run.kind == "gaussian_chain":
        sim = _chain(instance, run)
    elif run.kind == "walk_1d":
        sim = _walk(instance.name, run)
    else:
        raise InputError(f"no simulation is known for a run of kind {run.kind!r} (family {instance.family!r})",
                         "target", instance.name)
    return replace(sim, known_constants=instance.params())


def _chain(instance: Instance, run: RunDescription) -> Simulation:
    lam = np.asarray(run.eigenvalues, dtype=float)
    h = np.zeros((run.n, lam.size)) if run.records is None else np.asarray(run.records, dtype=float)
    i = run.differing_index
    x_other = h[i] + np.asarray(run.gradient_difference, dtype=float)
    sim = Simulation(Quadratic(lam), h, steps=run.T, eta=run.eta, sigma=run.sigma, index=i, x_other=x_other,
                     batches=run.batches, batch_size=run.b, theta0=np.asarray(run.init_mean, dtype=float),
                     init_std=math.sqrt(run.init_var), name=instance.name)
    statistic = _gaussian_llr(instance, run, lam, h)
    return sim if statistic is None else replace(sim, statistic=statistic)


def _gaussian_llr(instance: Instance, run: RunDescription, lam: np.ndarray, h: np.ndarray):
    """Exact LLR log(dQ/dP)(theta) of the equal-covariance Gaussian laws (diagonal in the eigenbasis)."""
    profile = instance.profile()
    if not getattr(profile, "equal_cov", False) or not getattr(profile, "diagonal", False):
        return None
    mean0 = QuadraticRun(eigenvalues=lam, batch_means=h.reshape(-1, run.b, lam.size).mean(axis=1), eta=run.eta,
                         sigma=run.sigma, T=run.T, init_mean=np.asarray(run.init_mean, dtype=float),
                         init_var=run.init_var).mean()
    shift = profile.mean1 - profile.mean0
    weight = shift / profile.cov0
    mid = mean0 + 0.5 * shift

    def exact_llr(theta: np.ndarray) -> np.ndarray:
        return (theta - mid) @ weight

    return exact_llr


def _walk(name: str, run: RunDescription) -> Simulation:
    index = run.position * run.b if run.batches == "cyclic" else 0
    X = np.zeros((run.n, 1))
    X[index, 0] = -run.record_gradient  # Quadratic(lam): gradient lam theta - x (lam = 0: linear)
    constraint = None if run.projection is None else Interval(*run.projection)
    curvature = 0.0 if run.eigenvalues is None else float(run.eigenvalues[0])
    return Simulation(Quadratic(curvature), X, steps=run.T, eta=run.eta, sigma=run.sigma, index=index,
                      x_other=[-run.record_gradient_prime], batches=run.batches, batch_size=run.b,
                      constraint=constraint, theta0=run.x0, name=name)
