"""The soundness, tightness and exactness obligations from what the search saw."""

from __future__ import annotations

import math

import numpy as np

from verify.check import certify
from verify.check import references as refs
from verify.check.domain import admissible, admissible_canonical
from verify.check.evidence import ExactnessChecked, SoundnessChecked, Tightness, Witness
from verify.check.soundness import axes
from verify.check.soundness.candidates import short_point
from verify.check.soundness.record import (
    Record,
    _claimed_families,
    _comparable,
    _refutes,
    _relation,
    _replay_line,
    _witness,
    bound_ratio,
    compare,
    refute_only,
    theorem_parameters,
    violation_margin,
)
from verify.check.soundness.regimes import cells
from verify.check.verdict import Obligation
from verify.errors import InputError
from verify.theorem import Theorem


def operator_error_at_worst(theorem: Theorem, record: Record) -> float | None:
    """The relative error of an upper or exact bound with PLD operators at its tightest compared instance
    (:func:`verify.check.certify.operator_error`, by refinement), where no violation was found; None otherwise."""
    worst = record.worst
    if record.failure is not None or worst is None or theorem.kind not in ("upper", "exact"):
        return None
    extra = theorem.notion_record.parameter
    # sound is exact <= bound: in doubt where the true bound may lie below the computed one (direction -1)
    return certify.operator_error(theorem, {**worst.parameters, **({extra: worst.at} if extra else {})},
                                  -1 if theorem.kind == "upper" else 0)


def error_words(theorem: Theorem, record: Record, error: float | None) -> str:
    """The words on the bound's own error at its tightest instance (nothing without one)."""
    if error is None or record.worst is None or record.worst.ratio is None:
        return ""
    ratio = float(record.worst.ratio)
    margin = 1.0 - ratio if theorem.kind == "upper" else abs(1.0 - ratio)
    text = f"; its PLD operators' error at the tightest instance is {error:.2g} (relative, by refinement)"
    if not margin > error:
        text += f", more than the margin there ({margin:.2g}): sound up to that error"
    return text


def soundness_verdict(theorem: Theorem, names: list[str], record: Record, error: float | None = None) -> Obligation:
    def evidence(**extra) -> SoundnessChecked:
        needed = axes.admitted(theorem)
        compared = {axis: tuple(sorted(record.axes.get(axis, ()))) for axis in axes.AXES if axis in needed}
        return SoundnessChecked(record.examples, tuple(sorted(record.families)), cells=dict(sorted(record.cells.items())),
                                skipped=dict(sorted(record.skipped.items())), budget=dict(record.budget),
                                axes=compared, axes_needed={k: needed[k] for k in compared}, **extra)

    if record.failure is not None:
        f, big = record.failure, record.largest
        smallest = ("" if big.instance == f.instance and record.largest_margin == record.margin else
                    f"; smallest counterexample {f.instance}: exact {f.exact:.6g} vs bound {f.bound:.6g}, margin "
                    f"{record.margin:.3g}")
        return Obligation("soundness", "failed",
                          f"{_relation(theorem)} fails on {big.instance}: exact {big.exact:.6g} vs bound "
                          f"{big.bound:.6g}, certified relative margin {record.largest_margin:.3g}{smallest}",
                          counterexample=f,
                          data=evidence(margin=record.margin, largest=record.largest,
                                        largest_margin=record.largest_margin,
                                        replay=tuple(line for line in (_replay_line(theorem, f),
                                                                       _replay_line(theorem, record.largest)) if line)))
    if record.examples == 0:
        return Obligation("soundness", "inconclusive", f"no admissible instance found in families {', '.join(names)}"
                          + record.skip_note())
    families = tuple(sorted(record.families))
    coverage = f"; {len(record.cells)} regime cells" if record.cells else ""
    if getattr(theorem, "up_to_constant", False):
        ratios = np.asarray(record.ratios, dtype=float)
        finite = ratios[np.isfinite(ratios)]
        lower = theorem.kind == "lower"
        constant = float(finite.min() if lower else finite.max()) if finite.size else float("nan")
        witness = _constant_witness(record, lower)
        where = f" (at {witness.instance})" if witness is not None else ""
        return Obligation("soundness", "approximate",
                          f"stated up to a constant: the {'largest' if lower else 'smallest'} constant consistent "
                          f"with the exact values is C = {constant:.4g}{where}, over {record.examples} instances of "
                          f"{', '.join(families)}" + record.skip_note(),
                          data=evidence(constant=constant, largest=witness))
    gap = _evidence_gap(theorem, record)
    if gap is not None:
        return Obligation("soundness", "inconclusive",
                          f"{_relation(theorem)} held on {record.examples} admissible instances of {', '.join(families)}"
                          f", but {gap}" + record.skip_note(), data=evidence())
    refuting = (f"; besides, {record.refute_only} last-iterate comparisons (refute only)"
                if record.refute_only else "")
    return Obligation("soundness", "passed",
                      f"{_relation(theorem)} on {record.examples - record.refute_only} admissible instances of "
                      f"{', '.join(families)}" + coverage + refuting + record.skip_note()
                      + error_words(theorem, record, error),
                      data=evidence())


def _evidence_gap(theorem: Theorem, record: Record) -> str | None:
    """What the compared instances leave unchecked of the theorem's claim (None: nothing): anything beyond its
    kept examples, when the search compared no instance of its own; a value of a structural axis its assumption
    class admits (every iterate released, a non-convex loss, the first batch, a partial epoch, an adjacency, ...:
    :mod:`verify.check.soundness.axes`) that no evidence reached."""
    gaps = []
    if record.examples and record.budget.get("replayed", 0) >= record.examples:
        gaps.append(f"only its kept example{'s' if record.examples > 1 else ''} could be compared: no instance the "
                    f"search drew or built was admissible, so its assumption class was not explored")
    left = axes.missing(axes.admitted(theorem), record.axes)
    if left:
        gaps.append("its assumption class admits cases no exact reference was compared on: " + axes.describe(left))
    return "; ".join(gaps) if gaps else None


def _constant_witness(record: Record, lower: bool) -> Witness | None:
    return record.least if lower else record.worst


def replay_examples(theorem: Theorem, record: Record) -> None:
    """Replay the record's kept instances: ``examples`` entries naming a ``family`` (with its build
    keywords and the notion parameter) are counterexamples or witnesses found earlier."""
    notion_parameter = theorem.notion_record.parameter
    for example in theorem.examples:
        if "family" not in example:
            continue
        example = dict(example)
        family = refs.families()[example.pop("family")]
        at = example.pop(notion_parameter) if notion_parameter else None
        instance = refs.build_from(family, example)
        if refs.why_not_applicable(theorem, instance) is not None or not _comparable(theorem, instance):
            continue
        params = theorem_parameters(theorem, instance, example, at)
        c = compare(theorem, instance, params, record)
        if c is None:
            continue
        witness = _witness(instance, theorem, c, params)
        record.families.add(instance.family)
        record.note(bound_ratio(theorem, c), witness, cells(theorem, refs.instance_params(instance, example), at))
        record.file(theorem, instance)
        margin = None if getattr(theorem, "up_to_constant", False) or not _refutes(theorem, instance) else \
            violation_margin(theorem, c, params)
        if margin is not None:
            record.violation(witness, margin)
            return


def _tightness(record: Record, error: float | None = None) -> Obligation:
    """The largest and median exact/bound; ``error``: the bound's own relative error at the largest
    (:func:`operator_error_at_worst`)."""
    if not record.ratios:
        return Obligation("tightness", "inconclusive", "no instance compared")
    ratios = np.asarray(record.ratios, dtype=float)
    finite = ratios[np.isfinite(ratios)]
    worst = float(finite.max()) if finite.size else float("nan")
    return Obligation("tightness", "passed",
                      f"largest exact/bound {worst:.4g} over {ratios.size} comparisons"
                      + ("" if error is None else f" (the bound's error there {error:.2g}, relative)"),
                      data=Tightness(max_ratio=worst, median_ratio=float(np.median(finite)) if finite.size else None,
                                     worst=record.worst, bound_error=error))


def exact_family(theorem: Theorem, seed: int = 0, points: int = 6) -> Obligation | None:
    """On each family the theorem claims to be exact on, the bound equals the exact value."""
    claimed = _claimed_families(theorem, ("exact_on",))
    available = refs.families()
    if not claimed:
        return None
    details, compared, record = [], 0, Record()
    for name in sorted(claimed):
        family = available.get(name)
        if family is None:
            details.append(f"family {name} is not available")
            continue
        subs = {c.value: c.subs for c in theorem.claims if c.kind == "exact_on"}.get(name, {})
        for point in admissible_canonical(theorem, points, seed):
            point = short_point(family, {**point, **{k: float(v) for k, v in subs.items()}}, theorem=theorem)
            params = {p: point[p] for p in theorem.parameters}
            try:
                instance = refs.build(family, point, theorem)
            except InputError:
                continue
            if (refs.why_not_applicable(theorem, instance) is not None or instance.run.tight is False
                    or refute_only(theorem, instance) is not None or instance.run.post_processing):
                continue  # the family's own flag: outside the range where it attains the bound
            at = params.get(theorem.notion_record.parameter) if theorem.notion_record.parameter else None
            own = theorem_parameters(theorem, instance, point, at)
            if not admissible(theorem, own):
                continue
            c = compare(theorem, instance, own, record)
            if c is None:
                continue
            compared += 1
            rel = max(1e-8, c.tolerance) if theorem.closed_form else max(1e-3, c.tolerance)
            resolution = theorem.notion_record.resolution
            if not math.isclose(c.exact, c.bound, rel_tol=rel, abs_tol=resolution):
                return Obligation("exactness", "failed",
                                  f"on {name}: exact {c.exact!r} != bound {c.bound!r}",
                                  counterexample=_witness(instance, theorem, c, own))
    if compared == 0:
        return Obligation("exactness", "inconclusive", ("; ".join(details) or
                          f"no admissible instance of {', '.join(sorted(claimed))}") + record.skip_note())
    return Obligation("exactness", "passed", f"bound = exact value on {compared} instances of "
                      f"{', '.join(sorted(claimed))}" + record.skip_note(), data=ExactnessChecked(compared))


def _ill_formed(record: Record) -> tuple[Obligation, ...]:
    """A failed well-formedness when the search met an admissible point where the bound is NaN (0/0, inf - inf):
    the record says nothing there, which is a defect of the record, not a privacy violation."""
    bad = record.ill_formed
    if bad is None:
        return ()
    shown = ", ".join(f"{k}={v:.6g}" for k, v in sorted(bad.parameters.items()))
    return (Obligation("well-formed", "failed", f"ill-formed at {shown}: the bound is NaN at this admissible point",
                       counterexample=bad),)
