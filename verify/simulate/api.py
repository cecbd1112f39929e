"""The audit entry point: simulate a target and audit it; which simulations a theorem covers.

The ``audit`` obligation of the cross-check engine is built on these in :mod:`verify.check.audit`;
nothing here knows about obligations or verdicts.
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable, Iterator, Mapping

import numpy as np

from verify.errors import InputError
from verify.instances import FAMILIES
from verify.setting import Setting, loss_classes
from verify.simulate.adapter import simulation_of
from verify.simulate.audit import AuditResult, BoundComparison, audit_samples
from verify.simulate.engine import BLOCK_SIZE, simulate
from verify.simulate.scenarios import SCENARIOS
from verify.simulate.spec import Simulation
from verify.vocabulary import SYMBOLS


def resolve(target: Any, params: Mapping[str, Any] | None = None) -> Simulation:
    """A :class:`Simulation` from a target: a Simulation, an exact-reference Instance, or a name.

    Names are scenario names (:data:`verify.simulate.scenarios.SCENARIOS`) or instance families
    (``verify.instances.FAMILIES``), built with ``params``.  ``InputError`` for anything else.
    """
    params = dict(params or {})
    if isinstance(target, Simulation):
        if params:
            raise InputError("params are only accepted with a scenario or family name")
        return target
    if isinstance(target, str):
        if target in SCENARIOS:
            try:
                return SCENARIOS[target](**params)
            except TypeError as exc:
                raise InputError(f"{target}: {exc}") from None
        if target in FAMILIES:
            try:
                instance = FAMILIES[target].build(**params)
            except TypeError as exc:
                raise InputError(f"{target}: {exc}") from None
            return from_instance(instance)
        known = sorted(set(SCENARIOS) | set(FAMILIES))
        raise InputError(f"unknown instance or scenario {target!r} (known: {', '.join(known)})")
    if params:
        raise InputError("params are only accepted with a scenario or family name")
    return from_instance(target)


def from_instance(instance: Any) -> Simulation:
    """The simulation of an exact-reference instance (``verify.instances``); see :mod:`.adapter`."""
    return simulation_of(instance)


def audit(target: Any, runs: int = 100_000, seed: int = 0, *, confidence: float = 0.95, delta: float = 1e-5,
          params: Mapping[str, Any] | None = None, statistic: Callable | None = None,
          backend: str = "numpy", device: str | None = None, workers: int | None = None,
          scheduler: str | None = None, client=None, block_size: int = BLOCK_SIZE,
          select_fraction: float = 0.2) -> AuditResult:
    """Simulate ``runs`` runs per side of ``target`` and audit them.

    ``statistic`` overrides the target's own (the exact log-likelihood ratio when the instance knows
    it); without either, the projection on the mean difference of the selection split is used.
    Returns an :class:`AuditResult` whose bounds hold jointly with probability >= ``confidence``.
    Raises ``InputError`` (naming the parameter) before any simulation for bad input.
    """
    sim = resolve(target, params)
    if not (0 < confidence < 1):
        raise InputError(f"confidence must lie in (0, 1), got {confidence!r}", "confidence")
    if not (0 <= delta < 1):
        raise InputError(f"delta must lie in [0, 1), got {delta!r}", "delta")
    start = time.perf_counter()
    samples = simulate(sim, runs, seed, backend=backend, device=device, workers=workers, scheduler=scheduler,
                       client=client, block_size=block_size)
    elapsed = time.perf_counter() - start
    stat = statistic if statistic is not None else sim.statistic
    result = audit_samples(samples.theta0, samples.theta1, confidence=confidence, delta=delta,
                           statistic=stat, select_fraction=select_fraction)
    result.extra.update({"target": sim.name, "seed": int(seed), "backend": backend, "steps": sim.steps,
                         "d": sim.d, "simulation_seconds": elapsed,
                         "constants": {k: float(v) for k, v in sim.constants().items()}})
    return result


def _defines_parameters(theorem, constants: Mapping[str, float]) -> bool:
    """Whether the instance defines every parameter ``theorem`` needs but its notion's, and the notion has an
    audited lower bound."""
    notion = theorem.notion_record
    return notion.audit_lower is not None and all(p in constants or p == notion.parameter
                                                  for p in theorem.parameters)


def comparable(theorem, constants: Mapping[str, float]) -> bool:
    """Whether :func:`compare_with_theorem` can compare ``theorem`` on an instance of these ``constants``, as
    far as it is known before any simulation: the instance defines the parameters (:func:`_defines_parameters`)
    and no assumption of the theorem that leaves out its notion's parameter fails at them (one that does
    fail makes the comparison None at every audit point).  A theorem-shaped record without
    ``violated_assumptions`` is taken to have none."""
    if not _defines_parameters(theorem, constants):
        return False
    violated = getattr(theorem, "violated_assumptions", None)
    if violated is None:
        return True
    at = theorem.notion_record.parameter
    params = {p: np.asarray(math.nan if p == at else constants[p], dtype=float) for p in theorem.parameters}
    free = SYMBOLS[at] if at else None
    return not any(free not in a.relation.free_symbols for a in violated(params))


def compare_with_theorem(result: AuditResult, theorem, constants: Mapping[str, float],
                         orders: np.ndarray | None = None) -> BoundComparison | None:
    """Check that an upper bound ``theorem`` is not below the audited lower bound (the audit obligation).

    Evaluates the theorem at ``constants`` (the canonical parameters of the simulated instance) in its
    own notion, at the notion's audit points (``Notion.audit_at``: gdp -> mu; eps_delta -> eps at the
    audit's delta; fdp -> delta at eps = 0, where the audited delta is largest; rdp -> on a grid of
    orders, or ``orders``).  Returns None when the theorem needs a parameter the instance does not
    define, its notion has no audited lower bound, or an assumption of the theorem (or the domain of a
    parameter) fails there; any other error of the theorem surfaces.
    """
    if not _defines_parameters(theorem, constants):
        return None
    notion = theorem.notion_record
    params = {p: constants[p] for p in theorem.parameters if p in constants}
    at = notion.audit_at(result)
    if orders is not None and at is not None:
        at = np.asarray(orders, dtype=float)
    lower = np.asarray(notion.audit_lower(result, at))
    if notion.parameter:
        params[notion.parameter] = at
    try:
        bound = np.asarray(theorem.evaluate(**params), dtype=float)
    except InputError:
        return None  # an assumption of the theorem fails on this instance: it does not apply
    ok = bool(np.all(np.isnan(bound) | (bound >= lower)))
    return BoundComparison(theorem=theorem.id, notion=notion.name, ok=ok, bound=bound.tolist(),
                           lower=lower.tolist(), at=None if at is None else at.tolist())


def simulation_setting(sim: Simulation) -> tuple[Setting, frozenset[str]]:
    """The concrete setting of the simulated run ``sim`` and the loss classes its losses belong to.

    DP-SGD when the instance clips (it defines ``Cclip``); the last iterate is released; the loss
    classes are those of the loss's name, plus strongly convex when m > 0 and Lipschitz when L is
    defined.
    """
    consts = sim.constants()
    setting = Setting(algorithm="dp_sgd" if "Cclip" in consts else "noisy_gd", batches=sim.batches,
                      loss=sim.loss.name, constraint="none" if sim.constraint is None else "bounded",
                      adjacency=sim.adjacency, init="gaussian" if sim.init_std > 0 else "fixed", release="last")
    extra = {"strongly_convex"} if consts.get("m", 0.0) > 0 else set()
    if "L" in consts:
        extra.add("lipschitz")
    return setting, loss_classes(sim.loss.name, *extra)


def applies(theorem, sim: Simulation) -> bool:
    """Whether ``theorem`` is an upper bound whose setting covers the simulated run ``sim``
    (:meth:`verify.setting.Setting.covers`)."""
    if theorem.kind != "upper":
        return False
    setting, classes = simulation_setting(sim)
    return theorem.setting.covers(setting, classes, steps=sim.steps) is None


def instances_for(theorem, params: Mapping[str, Any] | None = None) -> Iterator[Simulation]:
    """Simulations ``theorem``'s setting covers: the scenarios first (with the theorem's batches and
    adjacency), then the instance families built from ``params`` alone; lazily, in that order.  A
    scenario or family that cannot be built from these parameters is skipped."""
    params = dict(params or {})
    s = theorem.setting
    batches = s.batches if s.batches != "any" else "full"
    adjacency = s.adjacency if s.adjacency != "any" else "replace"
    for name in SCENARIOS:
        trial = {"batches": batches, "adjacency": adjacency, **params}
        if batches == "full":
            trial.setdefault("b", trial.get("n", 100 if name == "logistic_ball" else 50))
        elif batches in ("cyclic", "shuffle"):
            trial.setdefault("b", 10)
        try:
            sim = resolve(name, trial)
        except InputError:
            continue
        if applies(theorem, sim):
            yield sim
    for name in FAMILIES:
        try:
            sim = resolve(name, params)
        except InputError:
            continue
        if applies(theorem, sim):
            yield sim


__all__ = ["applies", "audit", "comparable", "compare_with_theorem", "from_instance", "instances_for", "resolve",
           "simulation_setting"]
