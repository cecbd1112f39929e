"""One theorem's search: evaluating unit coordinates on a family, with the phases of its mixins."""

from __future__ import annotations

import math
from typing import Mapping

from verify.check import references as refs
from verify.check.domain import admissible, search_coordinates, search_point
from verify.check.evidence import BadValue
from verify.check.soundness.boundary import BoundaryPhase
from verify.check.soundness.candidates import _flags, short_point
from verify.check.soundness.corners import CornerPhase
from verify.check.soundness.guided import GuidedPhase
from verify.check.soundness.random_phase import RandomPhase
from verify.check.soundness.record import (
    POINT_FAILURES,
    Budget,
    Record,
    _comparable,
    _costly,
    _refutes,
    _score,
    _witness,
    bound_ratio,
    compare,
    theorem_parameters,
    violation_margin,
)
from verify.check.soundness.regimes import cells
from verify.theorem import Theorem


class Search(CornerPhase, RandomPhase, BoundaryPhase, GuidedPhase):
    """One theorem's search: evaluating unit coordinates on a family, the phases, the shrink."""

    def __init__(self, theorem: Theorem, names: list[str], record: Record, budget: Budget):
        self.theorem, self.names, self.record, self.budget = theorem, names, record, budget
        self.full, self.cyclic = _flags(theorem)
        searched = tuple(refs.searched_names()) if hasattr(refs, "searched_names") else ()
        self.coordinates = search_coordinates(searched, used=theorem.parameters)
        self.constant = bool(getattr(theorem, "up_to_constant", False))
        self.parameter = theorem.notion_record.parameter

    def point(self, u: Mapping[str, float]) -> dict[str, float]:
        return search_point(u, self.full, self.cyclic)

    def evaluate(self, name: str, u: Mapping[str, float]) -> tuple[float | None, float | None]:
        """(score, violation margin) of unit coordinates ``u`` on family ``name`` (score None: no
        evidence: inadmissible, refused or not finite, the latter two counted)."""
        theorem, record = self.theorem, self.record
        family = refs.families()[name]
        point = short_point(family, self.point(u), theorem=theorem)
        try:
            instance = refs.build(family, point, theorem)
        except POINT_FAILURES:
            return None, None
        if refs.why_not_applicable(theorem, instance) is not None or not _comparable(theorem, instance):
            return None, None
        at = point[self.parameter] if self.parameter else None
        try:
            params = theorem_parameters(theorem, instance, point, at)
        except KeyError:
            return None, None
        if not admissible(theorem, params):
            return None, None
        c = compare(theorem, instance, params, record)
        if c is None:
            return None, None
        if not math.isfinite(c.exact):
            record.skip("non-finite exact", OverflowError(f"exact value {c.exact} on {instance.name}"))
            return None, None
        if math.isnan(c.bound):
            if record.ill_formed is None:
                record.ill_formed = BadValue(parameters=dict(params), bound=c.bound)
            return None, None  # no statement at this point: the record is ill-formed (see _ill_formed)
        if not math.isfinite(c.bound):
            return None, None  # an infinite upper bound holds and says nothing
        witness = _witness(instance, theorem, c, params)
        record.families.add(name)
        ratio = bound_ratio(theorem, c)
        own = refs.instance_params(instance, point)
        record.note(ratio, witness, cells(theorem, own, at))
        record.file(theorem, instance)
        score = _score(theorem, ratio)
        if math.isfinite(score):
            record.best.append((score, name, dict(u)))
        margin = None if self.constant or not _refutes(theorem, instance) else violation_margin(theorem, c, params)
        if margin is not None:
            record.violation(witness, margin)
        return score, margin

    def _best(self, count: int, costly: bool = True) -> list[tuple[str, dict]]:
        """The ``count`` best distinct (family, unit coordinates) compared so far (``costly``: families
        whose reference is costly too)."""
        starts, seen = [], set()
        for score, name, u in sorted(self.record.best, key=lambda s: -s[0]):
            key = self._key(name, u)
            if key in seen or (not costly and _costly(self.theorem, refs.families()[name])):
                continue
            seen.add(key)
            starts.append((name, u))
            if len(starts) >= count:
                break
        return starts

    def _key(self, name: str, u: Mapping[str, float]) -> tuple:
        """What makes two unit points the same comparison: the family, and the quantities of the point the
        theorem or the family's builder reads (a coordinate that moves none of them is irrelevant here)."""
        point = self.point(u)
        read = set(self.theorem.parameters) | set(refs.keywords(refs.families()[name]))
        return name, tuple(sorted((k, v) for k, v in point.items() if k in read or k.startswith("u_")))

    def _params(self, u: Mapping[str, float]) -> dict[str, float] | None:
        """The theorem's parameters at ``u`` (None: the point map does not define one of them)."""
        point = self.point(u)
        try:
            return {p: point[p] for p in self.theorem.parameters}
        except KeyError:
            return None

    def _inside(self, u: Mapping[str, float]) -> dict[str, float] | None:
        """The theorem's parameters at ``u`` when they are admissible (None: outside, or undefined)."""
        params = self._params(u)
        return params if params is not None and admissible(self.theorem, params) else None
