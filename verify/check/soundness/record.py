"""What one search saw and the comparison of a bound with an exact value at one point."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Mapping

import numpy as np

from verify.check import certify
from verify.check import references as refs
from verify.check.evidence import BadValue, Witness
from verify.check.soundness import axes
from verify.errors import InputError, PointRefused
from verify.privacy.notions import exact_against
from verify.theorem import Theorem

#: failures of a bound (outside its assumptions) or of a build at one point: skipped and counted, never fatal
POINT_FAILURES = (InputError, FloatingPointError, OverflowError, ZeroDivisionError)
#: failures of a built reference at one point: its refusal, or floating point out of range (any other
#: InputError raised while a reference computes is its bug, never a skipped point)
REFERENCE_FAILURES = (PointRefused, FloatingPointError, OverflowError, ZeroDivisionError)


PHASES = ("replayed", "corners", "random", "boundary", "guided")


@dataclass(frozen=True)
class Budget:
    """How hard the search looks (per theorem): random draws, corners per costly family, the guided
    phase's evaluations and starts, the shrink's evaluations for a failure found outside hypothesis, and
    the boundary phase's reference evaluations (on closed-form references, and on costly ones: a numeric
    operator, a grid, a quadrature) and starting points."""

    random: int = 40
    corners: int = 10_000  # corner evaluations in all (shared round robin by the families)
    costly_corners: int = 8
    guided: int = 0
    starts: int = 2
    shrink: int = 40
    boundary: int = 24
    costly_boundary: int = 2
    boundary_starts: int = 3
    random_blocks: int = 1  # hypothesis runs the random draws are split into (work units: :func:`plan`)


@dataclass
class Record:
    """What one obligation run saw."""

    examples: int = 0
    ratios: list[float] = field(default_factory=list)
    worst: Witness | None = None
    least: Witness | None = None  # the smallest ratio (a lower bound's implied constant)
    failure: Witness | None = None
    margin: float | None = None  # of ``failure``
    largest: Witness | None = None  # the largest-margin violation
    largest_margin: float | None = None
    families: set[str] = field(default_factory=set)
    skipped: dict[str, int] = field(default_factory=dict)  # what refused ("reference", "bound") -> count
    reasons: dict[str, str] = field(default_factory=dict)  # the first message of each
    cells: dict[str, int] = field(default_factory=dict)  # regime cell -> instances compared there
    budget: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PHASES, 0))
    phase: str = "replayed"
    best: list = field(default_factory=list)  # (score, family, unit coordinates) of compared points
    found: tuple[str, dict] | None = None  # the first violation of the corners (family, unit point): shrunk
    refute_only: int = 0  # comparisons that may refute but are no evidence (Setting.refute_only)
    ill_formed: BadValue | None = None  # the first admissible point where the bound is NaN
    axes: dict[str, set[str]] = field(default_factory=dict)  # structural axis -> values the evidence reached

    def skip(self, what: str, exc: BaseException) -> None:
        """Note an instance skipped because its ``what`` refused with ``exc`` (no evidence either way)."""
        self.skipped[what] = self.skipped.get(what, 0) + 1
        message = str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__
        self.reasons.setdefault(what, message if isinstance(exc, InputError) else f"{type(exc).__name__}: {message}")

    def skip_note(self) -> str:
        """``"; skipped ..."`` for the obligation's detail ("" when nothing was skipped)."""
        if not self.skipped:
            return ""
        words = {"reference": "the exact reference is not computable", "bound": "the bound is not evaluable",
                 "non-finite exact": "the exact value is not finite in double precision"}
        parts = [f"{n} where {words.get(what, what)} ({self.reasons[what]})" for what, n in sorted(self.skipped.items())]
        return "; skipped as no evidence: " + "; ".join(parts)

    def note(self, ratio: float, witness: Witness, cells: tuple[str, ...] = ()) -> None:
        self.examples += 1
        self.budget[self.phase] = self.budget.get(self.phase, 0) + 1
        self.ratios.append(ratio)
        for cell in cells:
            self.cells[cell] = self.cells.get(cell, 0) + 1
        if math.isnan(ratio):
            return
        if self.worst is None or ratio > self.worst.ratio:
            self.worst = replace(witness, ratio=ratio)
        if self.least is None or ratio < self.least.ratio:
            self.least = replace(witness, ratio=ratio)

    def file(self, theorem: Theorem, instance) -> None:
        """Note what one compared ``instance`` is evidence for: nothing but a refutation when its exact value
        only bounds the claimed quantity from below (:meth:`verify.setting.Setting.refute_only`: a last
        iterate against a theorem about every iterate, unless the instance declares its last iterate a
        sufficient statistic, ``run.sufficient``), else the values of the structural axes it stands for
        (:func:`~verify.check.soundness.axes.values_of`)."""
        reason = refute_only(theorem, instance)
        if reason is not None:
            self.refute_only += 1
            self.reasons.setdefault("refute-only", reason)
            return
        for axis, values in axes.values_of(instance, transcript=theorem.setting.release == "all").items():
            self.axes.setdefault(axis, set()).update(values)

    def violation(self, witness: Witness, margin: float) -> None:
        """Note a (certified) violation: the latest is the reported one (hypothesis replays its shrunk
        example last), the largest margin is kept apart."""
        self.failure, self.margin = witness, margin
        if self.largest_margin is None or margin > self.largest_margin:
            self.largest, self.largest_margin = witness, margin


def refute_only(theorem: Theorem, instance) -> str | None:
    """Why ``instance`` (covered) may only refute ``theorem``: its exact value is a lower bound of the claimed
    quantity (:meth:`verify.setting.Setting.refute_only`; ``run.sufficient``: the instance declares its last
    iterate a sufficient statistic of all its iterates).  None: the exact value is the claimed quantity."""
    steps = 1 if instance.steps is None else instance.steps
    released = getattr(instance.run, "post_processing", None)
    if released and theorem.kind == "upper":
        return f"the run releases only {released} of its last iterate (a lower bound of the claimed quantity)"
    sufficient = getattr(instance.run, "sufficient", None) is True
    return theorem.setting.refute_only(instance.setting, steps, sufficient)


def _refutes(theorem: Theorem, instance) -> bool:
    """Whether a failed comparison on ``instance`` refutes ``theorem``: not when the instance releases a
    post-processing of its last iterate and the theorem is a lower (or exact) bound: its exact value only bounds
    the claimed quantity from below, so it confirms a lower bound it exceeds and says nothing when below."""
    return theorem.kind == "upper" or not getattr(instance.run, "post_processing", None)


def _comparable(theorem: Theorem, instance) -> bool:
    """Whether a comparison on ``instance`` can count at all: a lower bound (or an exact value) is refuted only
    by an exact value below it, which a lower bound of the claimed quantity never certifies."""
    return theorem.kind == "upper" or refute_only(theorem, instance) is None


def theorem_parameters(theorem: Theorem, instance, point: Mapping[str, float], at) -> dict[str, float]:
    """The theorem's parameters read off the instance's own constants, plus the notion parameter ``at``."""
    own = refs.instance_params(instance, point)
    extra = theorem.notion_record.parameter
    params = {p: own[p] for p in theorem.parameters if p != extra}
    if extra:
        params[extra] = at
    return params


def compare(theorem: Theorem, instance, params: Mapping[str, float],
             record: Record | None = None) -> refs.Comparison | None:
    """The comparison at ``params``; with a ``record``, None (noted in ``record.skipped``) when the bound
    or the exact reference refuses there (:data:`POINT_FAILURES`)."""
    notion = theorem.notion_record
    at = params.get(notion.parameter) if notion.parameter else None
    with np.errstate(all="ignore"):
        try:
            bound = float(theorem.evaluate(**params))
        except POINT_FAILURES as exc:
            return _skipped(record, "bound", exc)
        try:
            profile = instance.profile()
            exact = exact_against(notion, profile, at, bound)
        except REFERENCE_FAILURES as exc:
            return _skipped(record, "reference", exc)
    return refs.Comparison(exact=exact, bound=bound, at=at, tolerance=refs.profile_tolerance(profile),
                           query_error=refs.query_error(profile, notion, at))


def _skipped(record: Record | None, what: str, exc: BaseException) -> None:
    """Note the refusal ``exc`` of the ``what`` in ``record``; raise it where there is none to note it in."""
    if record is None:
        raise exc
    record.skip(what, exc)
    return None


def violation_margin(theorem: Theorem, c: refs.Comparison, params: Mapping[str, float]) -> float | None:
    """The certified relative margin of a violation at ``params`` (> 0), or None: not a violation
    (:func:`verify.check.certify.violation_margin`, the one place that decides)."""
    if not (math.isfinite(c.exact) and math.isfinite(c.bound)):
        return None
    return certify.violation_margin(theorem, params, c)


def violates(theorem: Theorem, c: refs.Comparison, params: Mapping[str, float]) -> bool:
    """Whether the comparison is a (certified) violation of the theorem's relation."""
    return violation_margin(theorem, c, params) is not None


def _replay_line(theorem: Theorem, witness: Witness | None) -> str | None:
    """The ``verify eval`` command that replays ``witness``."""
    return None if witness is None else certify.replay_line(theorem.target, witness)


def _witness(instance, theorem: Theorem, c: refs.Comparison, params: Mapping[str, float]) -> Witness:
    """The witness of one comparison, with its build keywords (replayable)."""
    return certify.witness(theorem, instance, c, params)


def _costly(theorem: Theorem, family) -> bool:
    return bool(theorem.operators) or family.cost != "closed_form"


def _score(theorem: Theorem, ratio: float) -> float:
    """What the search maximises: exact/bound (upper), bound/exact (lower), the larger of both (exact)."""
    if not math.isfinite(ratio) or ratio < 0:
        return -math.inf if math.isnan(ratio) else (math.inf if ratio > 0 else -math.inf)
    inverse = 1.0 / ratio if ratio > 0 else math.inf
    if theorem.kind == "lower" and not getattr(theorem, "up_to_constant", False):
        return inverse
    if theorem.kind == "exact":
        return max(ratio, inverse)
    return ratio


def bound_ratio(theorem: Theorem, c: refs.Comparison) -> float:
    """exact/bound; NaN (left out of the tightness summary) when both lie below the notion's resolution, and for a
    negative bound (an eps at a large delta, compared signed: a ratio of two negative numbers says nothing of how
    tight the bound is)."""
    resolution = theorem.notion_record.resolution
    if (resolution > 0 and max(c.exact, c.bound) < resolution) or c.bound < 0:
        return float("nan")
    return c.ratio


def _relation(theorem: Theorem) -> str:
    return {"upper": "exact <= bound", "lower": "exact >= bound", "exact": "exact = bound",
            "approximation": "approximation"}[theorem.kind]


def _claimed_families(theorem: Theorem, kinds: tuple[str, ...] = ("exact_on", "witness")) -> set[str]:
    return {str(c.value) for c in theorem.claims if c.kind in kinds}
