"""The ``audit`` obligation (docs/verdicts.md): Monte Carlo runs of the algorithm give an audited lower
bound (at a stated confidence) that a valid upper bound never lies below.

The simulations, the audit and the comparison in a theorem's notion are :mod:`verify.simulate`'s;
this module picks the simulated instance, caches audits shared by several theorems, and states the
outcome as an obligation with typed evidence.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from verify.cache import BoundedCache
from verify.check.evidence import AuditEvidence
from verify.check.verdict import Obligation
from verify.simulate import AuditResult, Simulation, audit, comparable, compare_with_theorem, instances_for
from verify.theorem import Theorem

#: scenario sizes used by the audit obligation (small: the suite audits many theorems)
OBLIGATION_SCENARIO = {"d": 5, "n": 50, "T": 10}

#: audits of one process, bounded in bytes (a theorem's audit is shared by the theorems of its scenario)
_AUDIT_CACHE = BoundedCache(8 * 2**20)


def _cached_audit(sim: Simulation, runs: int, seed: int, confidence: float) -> AuditResult:
    key = (sim.name, sim.batches, sim.adjacency, sim.n, sim.d, sim.steps, sim.batch_size, runs, seed, confidence)
    return _AUDIT_CACHE.get(key, lambda: audit(sim, runs=runs, seed=seed, confidence=confidence))


def audit_obligation(theorem: Theorem, runs: int = 20_000, seed: int = 0,
                     confidence: float = 0.95) -> Obligation | None:
    """The ``audit`` obligation on ``theorem``.

    Audits the first simulated instance the theorem's setting covers and on which its bound can be
    evaluated, and compares in the theorem's notion (``verify.simulate.compare_with_theorem``).
    Returns an obligation named ``audit`` (passed, or failed with a counterexample), or None when the
    theorem is not an upper or exact bound or no simulated instance fits its setting.  Audits are
    cached per (instance, runs, seed): several theorems share one simulation.
    """
    if theorem.kind not in ("upper", "exact"):
        return None
    upper = theorem if theorem.kind == "upper" else dataclasses.replace(theorem, kind="upper")
    for sim in instances_for(upper, OBLIGATION_SCENARIO):
        if not comparable(upper, sim.constants()):
            continue  # the comparison would be None whatever the runs: simulate nothing
        comparison = compare_with_theorem(_cached_audit(sim, runs, seed, confidence), upper, sim.constants())
        if comparison is None:
            continue
        evidence = AuditEvidence(instance=sim.name, runs=runs, seed=seed, confidence=confidence,
                                 constants=sim.constants(), ok=comparison.ok, bound=comparison.bound,
                                 lower=comparison.lower, at=comparison.at, theorem=comparison.theorem,
                                 notion=comparison.notion)
        settings = f"({runs} runs, {confidence:.0%})"
        if comparison.ok:
            return Obligation("audit", "passed", f"{sim.name}: bound {_short(comparison.bound)} >= audited lower "
                              f"{_short(comparison.lower)} {settings}", data=evidence)
        return Obligation("audit", "failed", f"{sim.name}: bound {_short(comparison.bound)} < audited lower bound "
                          f"{_short(comparison.lower)} {settings}", data=evidence,
                          counterexample=evidence.counterexample())
    return None


def _short(values: Any) -> str:
    arr = np.atleast_1d(np.asarray(values, dtype=float))
    return f"{arr[0]:.4g}" if arr.size == 1 else "[" + ", ".join(f"{v:.3g}" for v in arr[:4]) + (
        ", ...]" if arr.size > 4 else "]")


__all__ = ["OBLIGATION_SCENARIO", "audit_obligation"]
