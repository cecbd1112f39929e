"""From an exact-reference :class:`verify.instances.instance.Instance` to a :class:`Simulation`.

The simulation runs the *same* pair of runs the instance describes (its ``run`` record), so the
audit can be checked against the instance's exact profile:

* Gaussian chains (``quadratic_chain``, ``linear_chain``, ``bok_thm42``, ``bok_c17``,
  ``chourasia_thm3``): per-record gradients ``H theta - h_i`` in the eigenbasis of H (privacy is
  invariant under the rotation), D' moving record ``differing_index`` by ``gradient_difference``;
  the statistic is the exact log-likelihood ratio of the two Gaussian laws of the last iterate.
* 1-D walks (``interval_walk``, ``bok_c16``, ``at22_thm41``, ``subsampled_linear``,
  ``dpsgd_worst_step``): one record with gradient ``g`` in D and ``g'`` in D', every other loss zero
  (a zero-gradient record and an absent one give the same law, so add/remove is run as this
  replacement); projection onto the instance's interval when it has one.  ``dpsgd_worst_step``
  releases every iterate; its simulation is of the last iterate (less information, so a lower bound
  for it is still a lower bound for the instance).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np

from verify.simulate.spec import Interval, Quadratic, Simulation


def simulation_of(instance: Any) -> Simulation:
    """The :class:`Simulation` of ``instance``; ``ValueError`` when its run cannot be simulated."""
    run = getattr(instance, "run", None)
    params = instance.params() if hasattr(instance, "params") else None
    if not isinstance(run, dict) and not hasattr(run, "get") or params is None:
        raise ValueError(f"target {instance!r} is neither a Simulation nor an instance of verify.instances")
    name = getattr(instance, "name", "instance")
    if "eigenvalues" in run:
        return replace(_chain(instance, run, params, name), known_constants=dict(params))
    if "record_gradient" in run or "step" in run:
        return replace(_walk(instance, run, params, name), known_constants=dict(params))
    raise ValueError(f"{name}: no simulation is known for instances of family {instance.family!r}")


def _chain(instance, run, params, name) -> Simulation:
    lam = np.asarray(run["eigenvalues"], dtype=float)
    records = run.get("records")
    h = np.zeros((int(params["n"]), lam.size)) if records is None or isinstance(records, str) \
        else np.asarray(records, dtype=float)
    i = int(run["differing_index"])
    x_other = h[i] + np.asarray(run["gradient_difference"], dtype=float)
    init_var = float(run.get("init_var") or 0.0)
    sim = Simulation(Quadratic(lam), h, steps=int(run["T"]), eta=float(run["eta"]), sigma=float(run["sigma"]),
                     index=i, x_other=x_other, batches=run["batches"], batch_size=int(run["b"]),
                     theta0=np.asarray(run["init_mean"], dtype=float), init_std=math.sqrt(init_var),
                     name=name)
    return _with_statistic(sim, _gaussian_llr(instance, run, lam, h, init_var))


def _gaussian_llr(instance, run, lam, h, init_var):
    """Exact LLR log(dQ/dP)(theta) of the equal-covariance Gaussian laws (diagonal in the eigenbasis)."""
    from verify.instances.chain import QuadraticRun

    profile = instance.profile()
    if not getattr(profile, "equal_cov", False) or not getattr(profile, "diagonal", False):
        return None
    b = int(run["b"])
    try:
        mean0 = QuadraticRun(eigenvalues=lam, batch_means=h.reshape(-1, b, lam.size).mean(axis=1),
                             eta=float(run["eta"]), sigma=float(run["sigma"]), T=int(run["T"]),
                             init_mean=np.asarray(run["init_mean"], dtype=float), init_var=init_var).mean()
    except TypeError:  # the closed-form engine changed its signature: fall back to the projection
        return None
    shift = profile.mean1 - profile.mean0
    weight = shift / profile.cov0
    mid = mean0 + 0.5 * shift

    def exact_llr(theta: np.ndarray) -> np.ndarray:
        return (theta - mid) @ weight

    return exact_llr


def _walk(instance, run, params, name) -> Simulation:
    n, b = int(params["n"]), int(params["b"])
    batches = instance.setting.batches
    if "step" in run:  # dpsgd_worst_step: gradient 0 vs the clipped Delta of the added record
        g, g_prime = 0.0, -float(params["Delta"])
        T, eta, sigma = int(params["T"]), float(params["eta"]), float(params["sigma"])
        constraint, x0 = None, 0.0
    else:
        g, g_prime = float(run["record_gradient"]), float(run["record_gradient_prime"])
        T, eta, sigma = int(run["T"]), float(run["eta"]), float(run["sigma"])
        proj = run.get("projection")
        constraint = None if proj is None else Interval(float(proj[0]), float(proj[1]))
        x0 = float(run["x0"])
    index = int(run.get("position", 0)) * b if batches == "cyclic" else 0
    X = np.zeros((n, 1))
    X[index, 0] = -g  # Quadratic with zero curvature: gradient -x
    return Simulation(Quadratic(0.0), X, steps=T, eta=eta, sigma=sigma, index=index, x_other=[-g_prime],
                      batches=batches, batch_size=b, constraint=constraint, theta0=x0, name=name)


def _with_statistic(sim: Simulation, statistic) -> Simulation:
    return sim if statistic is None else replace(sim, statistic=statistic)
