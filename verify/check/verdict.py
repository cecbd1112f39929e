"""Outcomes of obligations and the verdict they add up to (DESIGN.md §5)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal, Mapping

from verify.check.evidence import Counterexample, Evidence, Tightness, counterexample_from_json, evidence_from_json

Status = Literal["passed", "failed", "inconclusive", "approximate"]
VERDICTS = ("verified", "violated", "approximate", "inconclusive")


@dataclass
class Obligation:
    """The outcome of one obligation on one theorem: its evidence (``data``, a record of
    :mod:`verify.check.evidence`, None when the check has nothing to show) and, when it failed, a
    counterexample.  The JSON holds no counterexample: the verdict's does."""

    name: str
    status: Status
    detail: str = ""
    data: Evidence | None = None
    counterexample: Counterexample | None = None

    def to_json(self) -> dict:
        return {"name": self.name, "status": self.status, "detail": self.detail,
                "data": {} if self.data is None else self.data.to_json()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Obligation":
        return cls(name=str(data["name"]), status=data["status"], detail=str(data.get("detail", "")),
                   data=evidence_from_json(str(data["name"]), data.get("data")))


@dataclass
class Verdict:
    """What the verifier concludes about one theorem."""

    id: str
    verdict: str
    obligations: list[Obligation]
    counterexample: Counterexample | None = None
    max_ratio: float | None = None
    reason: str = ""
    printed_of: str | None = None
    expect_fail: tuple[str, ...] = ()
    #: ``as_expected`` as read back from JSON (which records it, not ``expect_fail``)
    expected: bool | None = None

    @property
    def as_expected(self) -> bool:
        """An "as printed" variant is expected to be caught; a proved theorem must not be violated."""
        if self.expected is not None:
            return self.expected
        if self.printed_of is not None:
            failed = {o.name for o in self.obligations if o.status == "failed"}
            return bool(failed & set(self.expect_fail)) if self.expect_fail else self.verdict == "violated"
        return self.verdict != "violated"

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "verdict": self.verdict,
            "counterexample": None if self.counterexample is None else self.counterexample.to_json(),
            "max_ratio": _finite(self.max_ratio),
            "reason": self.reason,
            "printed_of": self.printed_of,
            "expected": self.as_expected,
            "obligations": [o.to_json() for o in self.obligations],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Verdict":
        """The verdict back from :meth:`to_json`."""
        return cls(id=str(data["id"]), verdict=str(data["verdict"]),
                   obligations=[Obligation.from_json(o) for o in data.get("obligations", [])],
                   counterexample=counterexample_from_json(data.get("counterexample")),
                   max_ratio=data.get("max_ratio"), reason=str(data.get("reason", "")),
                   printed_of=data.get("printed_of"), expected=data.get("expected"))


def decide(theorem, obligations: list[Obligation]) -> Verdict:
    """Combine obligation outcomes: any failure -> violated; an approximation -> approximate;
    verified only when soundness passed against an exact reference; else inconclusive."""
    failed = [o for o in obligations if o.status == "failed"]
    ratios = [o.data.max_ratio for o in obligations if isinstance(o.data, Tightness)]
    max_ratio = max(ratios) if ratios else None
    common = dict(id=theorem.id, obligations=obligations, max_ratio=max_ratio,
                  printed_of=theorem.printed_of, expect_fail=tuple(theorem.expect_fail))
    if failed:
        cex = next((o.counterexample for o in failed if o.counterexample), None)
        return Verdict(verdict="violated", counterexample=cex,
                       reason="; ".join(f"{o.name}: {o.detail}" for o in failed), **common)
    if theorem.kind == "approximation":
        approx = [o for o in obligations if o.status == "approximate"]
        reason = approx[0].detail if approx else "approximation: no exact reference to measure its error"
        return Verdict(verdict="approximate" if approx else "inconclusive", reason=reason, **common)
    sound = [o for o in obligations if o.name == "soundness" and o.status == "passed"]
    if sound:
        return Verdict(verdict="verified", reason=sound[0].detail, **common)
    gaps = [f"{o.name}: {o.detail}" for o in obligations if o.status == "inconclusive"]
    return Verdict(verdict="inconclusive",
                   reason="; ".join(gaps) or "no exact reference covers this setting", **common)


def _finite(x):
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None
