"""The search cut into blocks (work units), run anywhere, merged in a fixed order and finished."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from verify.check import references as refs
from verify.check.soundness.candidates import candidate_families, refusals
from verify.check.soundness.obligations import (
    _ill_formed,
    _tightness,
    operator_error_at_worst,
    replay_examples,
    soundness_verdict,
)
from verify.check.soundness.record import Budget, Record, _claimed_families, _costly
from verify.check.soundness.search import Search
from verify.check.verdict import Obligation
from verify.errors import InputError
from verify.theorem import Theorem


@dataclass(frozen=True)
class Block:
    """One work unit of the search (:func:`run_block`): ``"replayed"``, the record's kept instances;
    ``"corners"``, the first ``count`` corners of ``family``; ``"random"``, one hypothesis run of ``count``
    draws seeded with ``seed``."""

    kind: str
    family: str | None = None
    count: int = 0
    seed: int = 0


@dataclass(frozen=True)
class Plan:
    """A theorem's search cut into blocks that depend on nothing but the theorem, the seed and the budget
    (never on results or on where they run); :func:`finish` merges their records in this order."""

    theorem: str
    families: tuple[str, ...]
    budget: Budget
    seed: int
    blocks: tuple[Block, ...]


def costly_plan(theorem: Theorem, plan: Plan) -> bool:
    """Whether ``plan`` compares against a costly reference (a numeric operator, a grid, a quadrature): its
    blocks are then worth running apart (a cheap search is best left whole, in one process)."""
    return any(_costly(theorem, refs.families()[name]) for name in plan.families)


def block_seed(seed: int, index: int) -> int:
    """The seed of the ``index``-th random block: ``seed`` itself for the first, else derived from both."""
    if index == 0:
        return seed
    return int.from_bytes(hashlib.sha256(f"verify-random-block/{seed}/{index}".encode()).digest()[:4], "big")


#: the fewest draws of a random block: hypothesis spends a run's first draws on simple examples, so many
#: tiny runs would draw less than one run of as many draws (a costly theorem's 3 quick draws stay one run)
BLOCK_DRAWS = 10


def _random_counts(draws: int, blocks: int) -> list[int]:
    """``draws`` split into at most ``blocks`` hypothesis runs of at least :data:`BLOCK_DRAWS` draws (one run
    when there are fewer; the first runs one draw larger)."""
    k = max(1, min(blocks, draws // BLOCK_DRAWS)) if draws > 0 else 0
    return [draws // k + (1 if i < draws % k else 0) for i in range(k)]


def plan(theorem: Theorem, examples: int = 40, seed: int = 0, families: list[str] | None = None,
         budget: Budget | None = None) -> Plan | tuple[Obligation, Obligation]:
    """The search's blocks on ``theorem`` (the replay of kept instances, the corners of each family with its
    round-robin share of the corner budget, the random draws in ``budget.random_blocks`` hypothesis runs),
    or the soundness and tightness obligations when no search is possible (no exact reference, no family)."""
    names = families if families is not None else candidate_families(theorem, seed)
    notion = theorem.notion_record
    if notion.exact is None:
        return (Obligation("soundness", "inconclusive", f"no exact {notion.name} reference is wired into the engine"),
                Obligation("tightness", "inconclusive", "no exact reference"))
    if theorem.kind in ("lower", "exact"):
        names = [n for n in names if n in _claimed_families(theorem)]
        if not names:
            reason = (f"{'a lower bound' if theorem.kind == 'lower' else 'an exact value'} is checked only on "
                      "its own construction; none is available")
            return Obligation("soundness", "inconclusive", reason), Obligation("tightness", "inconclusive", reason)
    if not names:
        refused: dict[str, list[str]] = {}
        for family, why in refusals(theorem, seed).items():
            refused.setdefault(why, []).append(family)
        common = sorted(refused.items(), key=lambda item: (-len(item[1]), item[0]))[:3]
        reason = "no exact reference family covers this setting" + (" (" + "; ".join(
            f"{why}: {', '.join(sorted(families)[:4])}{' ...' if len(families) > 4 else ''}"
            for why, families in common) + ")" if common else "")
        return Obligation("soundness", "inconclusive", reason), Obligation("tightness", "inconclusive", reason)
    budget = budget or Budget(random=examples)
    blocks = [Block("replayed")] if any("family" in e for e in theorem.examples) else []
    shares = Search(theorem, list(names), Record(), budget).corner_shares()
    blocks += [Block("corners", name, shares[name]) for name in names if shares[name] > 0]
    blocks += [Block("random", count=n, seed=block_seed(seed, i))
               for i, n in enumerate(_random_counts(budget.random, budget.random_blocks))]
    return Plan(theorem.id, tuple(names), budget, seed, tuple(blocks))


def run_block(theorem: Theorem, plan: Plan, block: Block, database=None) -> Record:
    """What one block of ``plan`` sees (a pure function of its arguments: any process may run it)."""
    if plan.theorem != theorem.id:
        raise InputError(f"plan is for {plan.theorem}, not {theorem.id}", "plan")
    record = Record()
    if block.kind == "replayed":
        replay_examples(theorem, record)
        return record
    search = Search(theorem, list(plan.families), record, plan.budget)
    if block.kind == "corners":
        record.found = search.corners(block.family, block.count)
    elif block.kind == "random":
        search.random(block.count, block.seed, database,
                      first=block == next(b for b in plan.blocks if b.kind == "random"))
    else:
        raise InputError(f"block kind must be replayed, corners or random, got {block.kind!r}", "block")
    return record


def merge(records: list[Record]) -> Record:
    """The blocks' records as one, in the blocks' order (whatever order they finished in): examples, cells,
    skips and budgets summed, ratios and best points concatenated, the worst (least) ratio the first largest
    (smallest), the largest margin the first largest; the first block with a violation ends the search:
    its failure is the reported one and the blocks after it are left out."""
    out = Record()
    for r in records:
        out.examples += r.examples
        out.ratios += r.ratios
        if r.worst is not None and (out.worst is None or r.worst.ratio > out.worst.ratio):
            out.worst = r.worst
        if r.least is not None and (out.least is None or r.least.ratio < out.least.ratio):
            out.least = r.least
        if r.largest_margin is not None and (out.largest_margin is None or r.largest_margin > out.largest_margin):
            out.largest, out.largest_margin = r.largest, r.largest_margin
        out.families |= r.families
        for what, n in r.skipped.items():
            out.skipped[what] = out.skipped.get(what, 0) + n
        for what, message in r.reasons.items():
            out.reasons.setdefault(what, message)
        for cell, n in r.cells.items():
            out.cells[cell] = out.cells.get(cell, 0) + n
        for phase, n in r.budget.items():
            out.budget[phase] = out.budget.get(phase, 0) + n
        out.best += r.best
        out.refute_only += r.refute_only
        for axis, values in r.axes.items():
            out.axes.setdefault(axis, set()).update(values)
        out.phase = r.phase
        if out.ill_formed is None:
            out.ill_formed = r.ill_formed
        if r.failure is not None:
            out.failure, out.margin, out.found = r.failure, r.margin, r.found
            break
    return out


def finish(theorem: Theorem, plan: Plan, records: list[Record]) -> tuple[Obligation, ...]:
    """Soundness and tightness from the records of ``plan``'s blocks (in block order; those after the first
    violation may be left out): merged, then, without a violation, the boundary and guided phases from the
    best points of every block; a violation found outside hypothesis is shrunk."""
    if len(records) > len(plan.blocks) or (len(records) < len(plan.blocks)
                                           and not any(r.failure is not None for r in records)):
        raise InputError(f"records must be one per block of the plan ({len(plan.blocks)}), got {len(records)}",
                         "records")
    record = merge(records)
    search = Search(theorem, list(plan.families), record, plan.budget)
    found = record.found
    if record.failure is None:
        if plan.budget.boundary > 0:
            found = search.boundary()
        if found is None and plan.budget.guided > 0:
            found = search.guided()
    if found is not None and not _costly(theorem, refs.families()[found[0]]):
        search.shrink(*found)
    error = operator_error_at_worst(theorem, record)
    return (soundness_verdict(theorem, list(plan.families), record, error), _tightness(record, error),
            *_ill_formed(record))


def soundness(theorem: Theorem, examples: int = 40, seed: int = 0, database=None,
              families: list[str] | None = None, budget: Budget | None = None) -> tuple[Obligation, ...]:
    """Soundness and tightness over admissible instances of the applicable families (corners, hypothesis
    draws and, with a ``budget`` that allows it, the boundary and guided phases); ``examples``: the random
    draws when no ``budget`` is given.  The blocks of :func:`plan` one after the other (none after the first
    violation: :func:`merge` leaves them out), then :func:`finish`: what any cluster gives."""
    searched = plan(theorem, examples, seed, families, budget)
    if isinstance(searched, tuple):
        return searched
    records = []
    for block in searched.blocks:
        records.append(run_block(theorem, searched, block, database))
        if records[-1].failure is not None:
            break
    return finish(theorem, searched, records)


def corner_points(theorem: Theorem) -> list[dict[str, float]]:
    """The canonical points of the corners the search always tries on ``theorem`` (saturation included)."""
    search = Search(theorem, [], Record(), Budget())
    return [search.point(u) for u in search.corner_list()]
