"""The audit entry point the cross-check engine and the ``verify audit`` command call."""

from __future__ import annotations

import time
from typing import Any, Callable, Mapping

import numpy as np

from verify.simulate.audit import AuditResult, audit_samples
from verify.simulate.engine import BLOCK_SIZE, simulate
from verify.simulate.spec import Simulation


#: runs per dataset for the ``audit`` obligation of ``verify run``, by suite profile
RUNS_BY_PROFILE: dict[str, int] = {"quick": 20_000, "default": 200_000, "full": 2_000_000}


def runs_for(profile: str = "default") -> int:
    """Runs per dataset for a suite profile (``quick``, ``default``, ``full``); ValueError otherwise."""
    try:
        return RUNS_BY_PROFILE[profile]
    except KeyError:
        raise ValueError(f"profile must be one of {', '.join(RUNS_BY_PROFILE)}, got {profile!r}") from None


def resolve(target: Any, params: Mapping[str, Any] | None = None) -> Simulation:
    """A :class:`Simulation` from a target: a Simulation, an exact-reference Instance, or a name.

    Names are scenario names (:data:`verify.simulate.scenarios.SCENARIOS`) or instance families
    (``verify.instances.FAMILIES``), built with ``params``.  ``ValueError`` for anything else.
    """
    from verify.simulate.scenarios import SCENARIOS

    params = dict(params or {})
    if isinstance(target, Simulation):
        if params:
            raise ValueError("params are only accepted with a scenario or family name")
        return target
    if isinstance(target, str):
        if target in SCENARIOS:
            try:
                return SCENARIOS[target](**params)
            except TypeError as exc:
                raise ValueError(f"{target}: {exc}") from None
        families = _families()
        if target in families:
            try:
                instance = families[target].build(**params)
            except TypeError as exc:
                raise ValueError(f"{target}: {exc}") from None
            return from_instance(instance)
        known = sorted(set(SCENARIOS) | set(families))
        raise ValueError(f"unknown instance or scenario {target!r} (known: {', '.join(known)})")
    if params:
        raise ValueError("params are only accepted with a scenario or family name")
    return from_instance(target)


def _families() -> dict:
    try:
        from verify.instances import FAMILIES
    except ImportError:
        return {}
    return dict(FAMILIES)


def from_instance(instance: Any) -> Simulation:
    """The simulation of an exact-reference instance (``verify.instances``); see :mod:`.adapter`."""
    from verify.simulate.adapter import simulation_of

    return simulation_of(instance)


def audit(target: Any, runs: int = 100_000, seed: int = 0, *, confidence: float = 0.95, delta: float = 1e-5,
          params: Mapping[str, Any] | None = None, statistic: Callable | None = None,
          backend: str = "numpy", device: str | None = None, workers: int | None = None,
          scheduler: str | None = None, client=None, block_size: int = BLOCK_SIZE,
          select_fraction: float = 0.2) -> AuditResult:
    """Simulate ``runs`` runs per side of ``target`` and audit them (issue 5, item 4).

    ``statistic`` overrides the target's own (the exact log-likelihood ratio when the instance knows
    it); without either, the projection on the mean difference of the selection split is used.
    Returns an :class:`AuditResult` whose bounds hold jointly with probability >= ``confidence``.
    Raises ``ValueError`` (naming the parameter) before any simulation for bad input.
    """
    sim = resolve(target, params)
    if not (0 < confidence < 1):
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    if not (0 <= delta < 1):
        raise ValueError(f"delta must lie in [0, 1), got {delta!r}")
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


def compare_with_theorem(result: AuditResult, theorem, constants: Mapping[str, float],
                         orders: np.ndarray | None = None) -> dict | None:
    """Check that an upper bound ``theorem`` is not below the audited lower bound (the audit obligation).

    Evaluates the theorem at ``constants`` (the canonical parameters of the simulated instance) in its
    own notion: gdp -> mu; eps_delta -> eps at the audit's delta; fdp -> delta at eps = 0
    (the total variation, where the audited delta is largest); rdp -> on a grid of orders.
    Returns None when the theorem needs a parameter the instance does not define (or one of its
    assumptions fails there), else ``{"ok", "bound", "lower", "at", "theorem", "notion"}``.
    """
    notion = theorem.notion
    params = {p: constants[p] for p in theorem.parameters if p in constants}
    extra = {"rdp": "alpha", "fdp": "eps", "eps_delta": "delta"}.get(notion)
    missing = [p for p in theorem.parameters if p not in params and p != extra]
    if missing or notion == "utility":
        return None
    if notion == "gdp":
        at, lower = None, np.asarray(result.mu_lower)
    elif notion == "eps_delta":
        at = np.asarray([result.delta])
        lower = np.asarray(result.eps_lower_at(at))
    elif notion == "fdp":
        at = np.asarray([0.0])  # one point (f-DP operators are costly); delta_lower is largest at eps = 0
        lower = np.asarray(result.delta_lower(at))
    else:
        at = np.asarray([1.5, 2.0, 4.0, 8.0, 16.0, 32.0]) if orders is None else np.asarray(orders, float)
        lower = np.asarray(result.rdp_lower(at))
    if extra:
        params[extra] = at
    try:
        bound = np.asarray(theorem.evaluate(**params), dtype=float)
    except ValueError:
        return None  # an assumption of the theorem fails on this instance: it does not apply
    ok = bool(np.all(np.isnan(bound) | (bound >= lower)))
    return {"ok": ok, "bound": bound.tolist(), "lower": lower.tolist(),
            "at": None if at is None else at.tolist(), "theorem": theorem.id, "notion": notion}


def applies(theorem, sim: Simulation) -> bool:
    """Whether ``theorem``'s setting covers the simulated algorithm ``sim`` (DESIGN.md §4 Setting)."""
    s = theorem.setting
    if theorem.kind != "upper" or s.algorithm not in ("noisy_gd", "dp_sgd", "any"):
        return False
    if s.algorithm == "dp_sgd" and "Cclip" not in sim.constants():
        return False
    if s.batches not in ("any", sim.batches) or s.adjacency != sim.adjacency:
        return False
    if s.constraint == "none" and sim.constraint is not None:
        return False
    if s.constraint == "bounded" and sim.constraint is None:
        return False
    init = "gaussian" if sim.init_std > 0 else "fixed"
    if s.init not in ("any", init):
        return False
    consts = sim.constants()
    loss_ok = {
        "any": True,
        "lipschitz": "L" in consts,
        "convex": sim.loss.name in ("quadratic", "linear", "logistic", "huber"),
        "strongly_convex": consts.get("m", 0.0) > 0,
        "quadratic": sim.loss.name == "quadratic",
        "linear": sim.loss.name == "linear",
    }
    return bool(loss_ok.get(s.loss, False))


# ---------------------------------------------------------------------------------------------------
# the audit obligation of the cross-check engine (DESIGN.md §5)
# ---------------------------------------------------------------------------------------------------

#: scenario sizes used by the audit obligation (small: the suite audits many theorems)
OBLIGATION_SCENARIO = {"d": 5, "n": 50, "T": 10}


def instances_for(theorem, params: Mapping[str, Any] | None = None):
    """Simulations ``theorem``'s setting covers: the scenarios first (with the theorem's batches and
    adjacency), then the instance families built from ``params`` alone; lazily, in that order."""
    from verify.simulate.scenarios import SCENARIOS

    params = dict(params or {})
    s = theorem.setting
    batches = s.batches if s.batches != "any" else "full"
    for name in SCENARIOS:
        trial = {"batches": batches, "adjacency": s.adjacency, **params}
        if batches == "full":
            trial.setdefault("b", trial.get("n", 100 if name == "logistic_ball" else 50))
        elif batches in ("cyclic", "shuffle"):
            trial.setdefault("b", 10)
        try:
            sim = resolve(name, trial)
        except ValueError:
            continue
        if applies(theorem, sim):
            yield sim
    for name in _families():
        try:
            sim = resolve(name, params)
        except (ValueError, TypeError, NotImplementedError):
            continue
        if applies(theorem, sim):
            yield sim


_AUDIT_CACHE: dict = {}


def _cached_audit(sim: Simulation, runs: int, seed: int, confidence: float) -> AuditResult:
    key = (sim.name, sim.batches, sim.adjacency, sim.n, sim.d, sim.steps, sim.batch_size, runs, seed, confidence)
    if key not in _AUDIT_CACHE:
        _AUDIT_CACHE[key] = audit(sim, runs=runs, seed=seed, confidence=confidence)
    return _AUDIT_CACHE[key]


def audit_obligation(theorem, runs: int = 20_000, seed: int = 0, confidence: float = 0.95):
    """The ``audit`` obligation (DESIGN.md §5) for the cross-check engine.

    Audits the first simulated instance the theorem's setting covers and on which its bound can be
    evaluated, and compares in the theorem's notion (:func:`compare_with_theorem`).  Returns a
    ``verify.check.verdict.Obligation`` named ``audit`` (passed / failed with a counterexample), or
    None when the theorem is not an upper or exact bound or no simulated instance fits its setting.
    Audits are cached per (instance, runs, seed): several theorems share one simulation.
    """
    from verify.check.verdict import Obligation  # the engine's record; imported only when it asks

    if theorem.kind not in ("upper", "exact"):
        return None
    upper = theorem if theorem.kind == "upper" else _as_upper(theorem)
    for sim in instances_for(upper, OBLIGATION_SCENARIO):
        result = _cached_audit(sim, runs, seed, confidence)
        verdict = compare_with_theorem(result, upper, sim.constants())
        if verdict is None:
            continue
        data = {"instance": sim.name, "runs": runs, "seed": seed, "confidence": confidence,
                "constants": sim.constants(), **verdict}
        if verdict["ok"]:
            return Obligation("audit", "passed",
                              f"{sim.name}: bound {_short(verdict['bound'])} >= audited lower "
                              f"{_short(verdict['lower'])} ({runs} runs, {confidence:.0%})", data=data)
        return Obligation("audit", "failed",
                          f"{sim.name}: bound {_short(verdict['bound'])} < audited lower bound "
                          f"{_short(verdict['lower'])} ({runs} runs, {confidence:.0%})",
                          data=data, counterexample={"instance": sim.name, "parameters": sim.constants(),
                                                     "bound": verdict["bound"], "lower": verdict["lower"],
                                                     "at": verdict["at"]})
    return None


def _as_upper(theorem):
    import dataclasses

    return dataclasses.replace(theorem, kind="upper")


def _short(values) -> str:
    arr = np.atleast_1d(np.asarray(values, dtype=float))
    return f"{arr[0]:.4g}" if arr.size == 1 else "[" + ", ".join(f"{v:.3g}" for v in arr[:4]) + (
        ", ...]" if arr.size > 4 else "]")
