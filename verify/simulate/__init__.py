"""Simulated runs of the canonical algorithm and the empirical privacy audit (docs/architecture.md).

Python API (what the cross-check engine's ``audit`` obligation calls)::

    from verify.simulate import audit, simulate, Simulation, Logistic, Ball

    result = audit(target, runs=100_000, seed=0, confidence=0.95, delta=1e-5,
                   backend="numpy", device=None, workers=None, scheduler=None)
    result.eps_lower, result.mu_lower          # lower confidence bounds (joint, at `confidence`)
    result.delta_lower(eps), result.rdp_lower(alpha), result.eps_lower_at(delta)
    result.threshold, result.fpr, result.fnr   # the selected test and its rates

* ``target``: a :class:`Simulation`, an exact-reference instance of ``verify.instances``, or a name
  (a scenario of :data:`SCENARIOS` or an instance family) built with ``params={...}``.
* ``simulate(sim, runs, seed, backend=..., device=..., workers=..., scheduler=..., client=...)`` returns
  the last iterates on D and D' (:class:`Samples`); identical whether run in process or on Dask, for any
  grouping of the fixed seeded blocks (``SeedSequence(seed).spawn`` child ``i`` for block ``i``).
* ``audit_samples(theta0, theta1, ...)`` audits samples you already have; ``empirical_tradeoff``
  gives FPR/FNR with simultaneous Clopper–Pearson bands; ``compare_with_theorem`` (a
  :class:`BoundComparison`) / ``applies`` / ``instances_for`` check a registry upper bound against an
  audit; ``simulation_setting`` is a simulated run's concrete setting.
* The engine's ``audit`` obligation is :func:`verify.check.audit.audit_obligation`.
* Backends: ``numpy`` (default), ``torch`` (CPU or CUDA), ``cupy``; bad backend/device/runs/scheduler
  raise ``ValueError`` before any work starts.

Every bound holds with probability >= ``confidence`` (Clopper–Pearson, Bonferroni over the intervals
used, thresholds chosen on a held-out selection split): a valid upper bound never lies below it.
"""

from verify.simulate.api import (applies, audit, comparable, compare_with_theorem, instances_for, resolve,
                                 simulation_setting)
from verify.simulate.audit import (
    AuditResult,
    BoundComparison,
    ThresholdTest,
    TradeoffBand,
    audit_samples,
    clopper_pearson_lower,
    clopper_pearson_upper,
    delta_from_rates,
    empirical_tradeoff,
    eps_from_rates,
    mu_from_rates,
    rdp_from_rates,
)
from verify.simulate.backend import available_backends, get_backend
from verify.simulate.engine import BLOCK_SIZE, Samples, local_cluster, simulate
from verify.simulate.scenarios import SCENARIOS, huber_box, logistic_ball
from verify.simulate.spec import Ball, Box, Huber, Interval, Linear, Logistic, Quadratic, Simulation

__all__ = [
    "AuditResult", "BLOCK_SIZE", "Ball", "BoundComparison", "Box", "Huber", "Interval", "Linear", "Logistic",
    "Quadratic", "SCENARIOS", "Samples", "Simulation", "ThresholdTest", "TradeoffBand", "applies", "audit",
    "audit_samples", "available_backends", "clopper_pearson_lower", "clopper_pearson_upper",
    "comparable", "compare_with_theorem", "delta_from_rates", "empirical_tradeoff", "eps_from_rates", "get_backend",
    "huber_box", "instances_for", "local_cluster", "logistic_ball", "mu_from_rates", "rdp_from_rates", "resolve",
    "simulate", "simulation_setting",
]
