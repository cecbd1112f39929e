"""Outcomes of obligations and the verdict they add up to (DESIGN.md §5)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

Status = Literal["passed", "failed", "inconclusive", "approximate"]
VERDICTS = ("verified", "violated", "approximate", "inconclusive")


@dataclass
class Obligation:
    """The outcome of one obligation on one theorem."""

    name: str
    status: Status
    detail: str = ""
    data: dict = field(default_factory=dict)
    counterexample: dict | None = None

    def to_json(self) -> dict:
        return {"name": self.name, "status": self.status, "detail": self.detail,
                "data": _jsonable(self.data)}


@dataclass
class Verdict:
    """What the verifier concludes about one theorem."""

    id: str
    verdict: str
    obligations: list[Obligation]
    counterexample: dict | None = None
    max_ratio: float | None = None
    reason: str = ""
    printed_of: str | None = None
    expect_fail: tuple[str, ...] = ()

    @property
    def as_expected(self) -> bool:
        """An "as printed" variant is expected to be caught; a proved theorem must not be violated."""
        if self.printed_of is not None:
            failed = {o.name for o in self.obligations if o.status == "failed"}
            return bool(failed & set(self.expect_fail)) if self.expect_fail else self.verdict == "violated"
        return self.verdict != "violated"

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "verdict": self.verdict,
            "counterexample": _jsonable(self.counterexample),
            "max_ratio": _finite(self.max_ratio),
            "reason": self.reason,
            "printed_of": self.printed_of,
            "expected": self.as_expected,
            "obligations": [o.to_json() for o in self.obligations],
        }


def decide(theorem, obligations: list[Obligation]) -> Verdict:
    """Combine obligation outcomes: any failure -> violated; an approximation -> approximate;
    verified only when soundness passed against an exact reference; else inconclusive."""
    failed = [o for o in obligations if o.status == "failed"]
    ratios = [o.data.get("max_ratio") for o in obligations if o.data.get("max_ratio") is not None]
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


def _jsonable(obj):
    """Plain JSON types (numpy scalars and arrays to floats and lists, inf/nan to strings)."""
    import numpy as np

    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        x = float(obj)
        if math.isfinite(x):
            return x
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return str(obj)
