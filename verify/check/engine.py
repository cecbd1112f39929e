"""Running every obligation on a theorem and collecting verdicts (docs/verdicts.md)."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace
from typing import Callable, Iterable

from threadpoolctl import ThreadpoolController

from verify.check import symbolic
from verify.check.audit import audit_obligation
from verify.check.domain import admissible_points
from verify.check.evidence import ApproximationError, ApproximationGap, ApproximationRow, InternalError
from verify.check.exactness import exactness
from verify.check.notions import eps_at_delta
from verify.check.soundness import Budget, Plan, Record, exact_family, finish, plan, run_block
from verify.check.steps import proof_obligation
from verify.check.verdict import Obligation, Verdict, decide
from verify.errors import InputError
from verify.theorem import Theorem


@dataclass(frozen=True)
class Effort:
    """How hard to look (the command line's ``--profile``): examples per theorem, claim points, approximation
    points, the Monte Carlo runs per dataset of the audit obligation, the points of the symbolic checks, and
    the share a costly bound gets (the one place those counts are set)."""

    name: str
    examples: int
    claim_points: int
    approximation_points: int
    audit_runs: int
    guided: int = 0  # evaluations of the soundness search's guided phase (closed-form references only)
    starts: int = 2  # its starting points (the best found by the corners and the random phase)
    costly_corners: int = 8  # corners tried on a family whose reference is costly (all on the others)
    corners: int = 10_000  # corner evaluations per theorem in all (families take turns)
    boundary: int = 24  # the boundary phase's evaluations on closed-form references
    costly_boundary: int = 2  # ... and on costly ones (numeric operators, grids, quadratures)
    boundary_starts: int = 3  # its starting points (the best found so far)
    random_blocks: int = 1  # hypothesis runs the random draws are split into (work units of a cluster)
    form_points: int = 24  # points of the well-formedness check (closed-form bounds)
    costly_form_points: int = 3  # ... of a bound with numeric operators
    family_points: int = 6  # points of the exact-family check (closed-form bounds)
    costly_family_points: int = 2  # ... of a bound with numeric operators
    costly_examples: tuple[int, int] = (6, 3)  # a costly bound's random draws: examples // 6, at least 3
    costly_claim_points: tuple[int, int] = (10, 4)  # ... and claim points: claim_points // 10, at least 4
    step_points: int = 24  # seeded points a proof step is decided at (besides its domain's corners)
    timeout: float = 300.0  # seconds one job of a user's theorem may run (verify check --timeout)

    def budget(self, examples: int | None = None) -> Budget:
        """The soundness search's budget (``examples``: its random draws, default the profile's)."""
        return Budget(random=self.examples if examples is None else examples, corners=self.corners,
                      costly_corners=self.costly_corners, guided=self.guided, starts=self.starts,
                      boundary=self.boundary, costly_boundary=self.costly_boundary,
                      boundary_starts=self.boundary_starts, random_blocks=self.random_blocks)


EFFORTS = {
    "quick": Effort("quick", examples=20, claim_points=40, approximation_points=2, audit_runs=20_000,
                     guided=16, starts=2, costly_corners=4, corners=64, random_blocks=2),
    "full": Effort("full", examples=200, claim_points=200, approximation_points=40, audit_runs=400_000,
                    guided=400, starts=4, costly_corners=40, boundary=200, costly_boundary=16, boundary_starts=8,
                    random_blocks=8, step_points=200, timeout=3600.0),
}


def search_effort(name: str) -> Effort:
    """The named search effort (the command line's ``--profile``: quick or full)."""
    try:
        return EFFORTS[name]
    except KeyError:
        raise InputError(f"profile (the search effort) must be one of {', '.join(EFFORTS)}, got {name!r}",
                         "profile") from None


def approximation_error(theorem: Theorem, lookup: Callable[[str], Theorem], seed: int,
                        points: int) -> Obligation | None:
    """Signed error in eps(delta) of an approximation against the exact result it approximates."""
    if theorem.kind != "approximation":
        return None
    targets = [c.value for c in theorem.claims if c.kind == "approximates"]
    if not targets:
        return Obligation("approximation", "inconclusive", "the record does not name what it approximates")
    exact = lookup(str(targets[0]))
    paper_rows = [dict(e) for e in theorem.examples]
    rows = [_approximation_row(theorem, exact, params, params in paper_rows)
            for params in paper_rows + admissible_points(theorem, points, seed)]
    good = [r for r in rows if isinstance(r, ApproximationRow)]
    if not good:
        return Obligation("approximation", "inconclusive", "could not evaluate against the exact reference",
                          data=ApproximationError(tuple(rows)))
    under = [r for r in good if r.understates]
    paper = [r for r in good if r.from_paper]
    paper_under = [r for r in paper if r.understates]
    worst = min(r.relative_error for r in good)
    detail = (f"under-states eps on {len(under)} of {len(good)} points (worst {100 * worst:+.1f}%)"
              + (f"; on the paper's rows: {len(paper_under)} of {len(paper)}" if paper else "")
              + f"; exact reference {exact.id}")
    return Obligation("approximation", "approximate", detail,
                      data=ApproximationError(tuple(good), understated=len(under), paper_rows=len(paper),
                                              paper_understated=len(paper_under)))


def _approximation_row(theorem: Theorem, exact: Theorem, params: dict,
                       from_paper: bool) -> ApproximationRow | ApproximationGap:
    """eps(delta) of the approximation and of the exact result at one point (delta 1e-5 unless given)."""
    delta = float(params.get("delta", 1e-5))
    own = {k: v for k, v in params.items() if k in theorem.parameters}
    try:
        approx = eps_at_delta(theorem, own, delta)
        truth = eps_at_delta(exact, {k: params[k] for k in exact.parameters if k in params}, delta)
    except (ValueError, KeyError) as exc:  # kept as a row saying why: never a silent gap
        return ApproximationGap(parameters=params, error=str(exc))
    return ApproximationRow(parameters=own, delta=delta, eps_approx=approx, eps_exact=truth,
                            relative_error=(approx - truth) / truth if truth > 0 else 0.0,
                            understates=bool(approx < truth * (1 - 1e-9)), from_paper=from_paper)


def audit(theorem: Theorem, effort: Effort, seed: int) -> Obligation | None:
    """Monte Carlo audit (:mod:`verify.check.audit`): the audited lower bound never exceeds the bound."""
    if theorem.operators and effort.name == "quick":
        return Obligation("audit", "inconclusive", "skipped in the quick profile: the bound is a costly numeric "
                          "operator (run --profile full)")
    return audit_obligation(theorem, runs=effort.audit_runs, seed=seed)


def for_theorem(effort: Effort, theorem: Theorem) -> Effort:
    """``effort`` as spent on ``theorem``: numeric operators (PLD compositions, numerical integrals) are
    costly, so a share of the random draws and of the claim points (:attr:`Effort.costly_examples`,
    :attr:`Effort.costly_claim_points`), and the costly point counts of the symbolic checks."""
    if not theorem.operators:
        return effort
    (draws, least_draws), (claims, least_claims) = effort.costly_examples, effort.costly_claim_points
    return replace(effort, examples=max(least_draws, effort.examples // draws),
                   claim_points=max(least_claims, effort.claim_points // claims), form_points=effort.costly_form_points,
                   family_points=effort.costly_family_points)


#: the work units of a theorem, in the order their obligations are merged (the verdict depends on that
#: order only): the symbolic and exact-family checks, then the soundness search (or, for an
#: approximation, its error), then the Monte Carlo audit.  Each is seeded on its own, so a cluster may run
#: the units of one theorem at once, anywhere, and the merged obligations are those of one process.  The
#: soundness search is itself cut into blocks (:func:`soundness_plan`, :func:`soundness_block`,
#: :func:`soundness_finish`): in one process, the ``"soundness"`` unit is exactly those, one after the other.
UNITS = ("front", "soundness", "approximation", "audit")


def theorem_units(theorem: Theorem) -> tuple[str, ...]:
    """The units :func:`check_theorem` runs on ``theorem``, in merge order."""
    if theorem.kind == "approximation":
        return ("front", "approximation")
    return ("front", "soundness", "audit")


def soundness_plan(theorem: Theorem, effort: Effort, seed: int) -> Plan | list[Obligation]:
    """The blocks of ``theorem``'s soundness search under ``effort`` (as :func:`for_theorem` spends it), or its
    obligations when there is nothing to search (or the plan failed: an internal error)."""
    spent = for_theorem(effort, theorem)
    planned = _guard(lambda: plan(theorem, spent.examples, seed, budget=spent.budget()), "soundness plan")
    if isinstance(planned, Plan):
        return planned
    return list(planned) if isinstance(planned, tuple) else [planned]


def soundness_block(theorem: Theorem, planned: Plan, index: int, database=None) -> Record | Obligation:
    """The record of block ``index`` of ``planned`` (an internal error: its obligation, reported by
    :func:`soundness_finish` as one process would)."""
    return _guard(lambda: run_block(theorem, planned, planned.blocks[index], database), f"soundness block {index}")


def soundness_finish(theorem: Theorem, planned: Plan, outcomes: list[Record | Obligation]) -> list[Obligation]:
    """Soundness and tightness from the blocks' outcomes in block order (those after the first violation or
    internal error are not read)."""
    records = []
    for outcome in outcomes:
        if isinstance(outcome, Obligation):
            return [outcome]
        records.append(outcome)
        if outcome.failure is not None:
            break
    result = _guard(lambda: finish(theorem, planned, records), "soundness finish")
    return list(result) if isinstance(result, tuple) else [result]


def _soundness_unit(theorem: Theorem, effort: Effort, seed: int, database=None) -> list[Obligation]:
    """The soundness search in this process: the plan, its blocks in order (none after a violation), the
    finish: what a cluster running the blocks anywhere gives."""
    return soundness_here(theorem, soundness_plan(theorem, effort, seed), database)


def soundness_here(theorem: Theorem, planned: Plan | list[Obligation], database=None) -> list[Obligation]:
    """The obligations of a planned soundness search, its blocks run in this process in order."""
    if not isinstance(planned, Plan):
        return planned
    outcomes: list[Record | Obligation] = []
    for index in range(len(planned.blocks)):
        outcomes.append(soundness_block(theorem, planned, index, database))
        if isinstance(outcomes[-1], Obligation) or outcomes[-1].failure is not None:
            break
    return soundness_finish(theorem, planned, outcomes)


def check_unit(theorem: Theorem, lookup: Callable[[str], Theorem], effort: Effort, seed: int, unit: str,
               database=None) -> list[Obligation]:
    """The obligations of one work unit (:data:`UNITS`) of ``theorem``; an internal error of an obligation
    is an inconclusive outcome (:func:`_guard`), never a crash or a pass."""
    if unit == "soundness":
        return _soundness_unit(theorem, effort, seed, database)
    effort = for_theorem(effort, theorem)
    if unit == "front":
        steps = (
            ("well-formed", lambda: symbolic.well_formed(theorem, seed, effort.form_points)),
            ("scaling", lambda: symbolic.scaling(theorem, seed)),
            ("translation", lambda: symbolic.translation(theorem)),
            ("claims", lambda: symbolic.claims(theorem, lookup, seed, effort.claim_points)),
            ("exactness", lambda: exactness(theorem)),
            ("exact family", lambda: exact_family(theorem, seed, points=effort.family_points)),
            ("proof", lambda: proof_obligation(theorem, seed, effort.step_points)),
        )
    elif unit == "approximation":
        steps = (("approximation", lambda: approximation_error(theorem, lookup, seed, effort.approximation_points)),)
    elif unit == "audit":
        steps = (("audit", lambda: audit(theorem, effort, seed)),)
    else:
        raise InputError(f"unit must be one of {', '.join(UNITS)}, got {unit!r}", "unit")
    obligations: list[Obligation] = []
    for name, step in steps:
        result = _guard(step, name)
        if result is not None:
            obligations.append(result)
    return obligations


def check_theorem(theorem: Theorem, lookup: Callable[[str], Theorem], effort: Effort, seed: int = 0,
                  database=None) -> Verdict:
    """Every obligation of docs/verdicts.md on one theorem, and the verdict (its units one after the other)."""
    return decide(theorem, [o for unit in theorem_units(theorem)
                            for o in check_unit(theorem, lookup, effort, seed, unit, database)])


@functools.lru_cache(maxsize=1)
def _blas() -> ThreadpoolController:
    """The native thread pools (BLAS, OpenMP), found once per process (a limit then costs ~15 us)."""
    return ThreadpoolController()


def _guard(step, name: str):
    """Run an obligation (``name``: the step an internal error names); an internal error becomes an inconclusive
    outcome, never a crash or a pass.

    With one BLAS thread: parallelism comes from processes (the cluster's workers, one thread each), and an
    obligation's products are small (vector-matrix steps of a 1-D grid): a second thread only spins, 2-3% more
    CPU in one process and no time saved.  The same thread count in process and in a worker (forked with its
    parent's BLAS pool, which the cluster's ``OPENBLAS_NUM_THREADS=1`` no longer reaches) also keeps the sums
    of a product in one order, whichever runs it."""
    try:
        with _blas().limit(limits=1):
            return step()
    except Exception as exc:  # noqa: BLE001 - reported, and never counted as a pass
        return Obligation("internal-error", "inconclusive", f"{type(exc).__name__}: {exc}".splitlines()[0][:300],
                          data=InternalError(name))


def check_all(records: Iterable[Theorem], lookup: Callable[[str], Theorem], effort: Effort, seed: int = 0,
              progress: Callable[[Theorem], None] | None = None, database=None) -> list[Verdict]:
    verdicts = []
    for theorem in records:
        verdicts.append(check_theorem(theorem, lookup, effort, seed, database))
        if progress is not None:
            progress(theorem)
    return verdicts


def summary(verdicts: list[Verdict]) -> dict:
    counts: dict[str, int] = {}
    for v in verdicts:
        counts[v.verdict] = counts.get(v.verdict, 0) + 1
    unexpected = [v.id for v in verdicts if not v.as_expected]
    return {"counts": counts, "unexpected": unexpected, "theorems": len(verdicts)}


def compare_baseline(verdicts: list[Verdict], baseline: dict, ratio_tolerance: float = 0.05) -> list[str]:
    """Differences from a baseline run: changed verdicts, or tightness ratios moved beyond tolerance."""
    old = {v["id"]: v for v in baseline.get("theorems", [])}
    changes = []
    for v in verdicts:
        before = old.get(v.id)
        if before is None:
            changes.append(f"{v.id}: new theorem (verdict {v.verdict})")
            continue
        if before["verdict"] != v.verdict:
            changes.append(f"{v.id}: verdict {before['verdict']} -> {v.verdict}")
        a, b = before.get("max_ratio"), v.max_ratio
        if a is not None and b is not None and math.isfinite(b):
            if abs(b - a) > ratio_tolerance * max(abs(a), 1e-12):
                changes.append(f"{v.id}: max exact/bound ratio {a:.4g} -> {b:.4g}")
    for gone in set(old) - {v.id for v in verdicts}:
        changes.append(f"{gone}: missing from this run")
    return changes


__all__ = ["EFFORTS", "Effort", "UNITS", "check_theorem", "check_unit", "check_all", "theorem_units", "summary",
           "soundness_plan", "soundness_block", "soundness_finish", "soundness_here",
           "compare_baseline", "for_theorem", "search_effort", "approximation_error"]
