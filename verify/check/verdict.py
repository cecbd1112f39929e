"""Outcomes of obligations and the verdict they add up to (docs/verdicts.md).

A theorem the paper states only up to a universal constant ("lesssim", ``Theorem.up_to_constant``) is
never ``verified`` and never ``violated`` for exceeding constant 1: its verdict is ``approximate``, with the
*implied constant* found by the search (the smallest C with exact <= C bound on every compared instance of an
upper bound, the largest C with exact >= C bound for a lower bound) in the reason and in the JSON.  Every
other failed obligation (scaling, claims, well-formedness) still makes it ``violated``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal, Mapping

from verify.check.evidence import (Counterexample, Evidence, Tightness, Witness, counterexample_from_json,
                                   evidence_from_json)

Status = Literal["passed", "failed", "inconclusive", "approximate"]
#: ``ill-formed``: the bound is not a number (NaN), negative for a non-negative notion, or not real at an
#: admissible point: a defect of the record, distinct from a privacy violation (which needs a certified margin
#: against an exact value)
VERDICTS = ("verified", "violated", "approximate", "inconclusive", "ill-formed")

#: the obligation whose failure makes a record ill-formed rather than violated
WELL_FORMED = "well-formed"


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
    #: for a theorem stated up to a constant: the constant the exact values imply (None otherwise, or
    #: when the search compared no instance)
    implied_constant: float | None = None

    def _refutation(self):
        """The evidence of a failed soundness check (None when soundness did not fail)."""
        return next((o.data for o in self.obligations if o.name == "soundness" and o.status == "failed"), None)

    def shown_ratio(self) -> float | None:
        """The exact/bound a table shows: a violated record's largest-margin counterexample's (the one its reason
        names first), else the largest over the compared instances (``max_ratio``)."""
        big = getattr(self._refutation(), "largest", None)
        if big is not None and getattr(big, "bound", None):
            return big.exact / big.bound
        return self.max_ratio

    def replay_lines(self) -> list[tuple[str, str]]:
        """The counterexamples of a violated soundness check with the ``verify eval`` lines that replay them,
        the largest margin first (the most persuasive), then the smallest one the search shrank to."""
        replay = getattr(self._refutation(), "replay", None)
        if not replay:
            return []
        lines = list(dict.fromkeys(reversed(replay)))  # (smallest, largest) in the evidence
        names = ("largest-margin counterexample", "smallest counterexample")
        return list(zip(names, lines)) if len(lines) == 2 else [("counterexample", lines[0])]

    @property
    def as_expected(self) -> bool:
        """An "as printed" variant is expected to be caught; a proved theorem must not be violated."""
        if self.expected is not None:
            return self.expected
        if self.printed_of is not None:
            failed = {o.name for o in self.obligations if o.status == "failed"}
            return bool(failed & set(self.expect_fail)) if self.expect_fail else self.verdict == "violated"
        return self.verdict not in ("violated", "ill-formed")

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "verdict": self.verdict,
            "counterexample": None if self.counterexample is None else self.counterexample.to_json(),
            "max_ratio": _finite(self.max_ratio),
            "implied_constant": _finite(self.implied_constant),
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
                   printed_of=data.get("printed_of"), expected=data.get("expected"),
                   implied_constant=data.get("implied_constant"))


def decide(theorem, obligations: list[Obligation]) -> Verdict:
    """Combine obligation outcomes: a failed well-formedness -> ill-formed (the bound is NaN, negative or not
    real at an admissible point: no privacy statement to judge); any other failure -> violated; an
    approximation -> approximate; verified only when soundness passed against an exact reference and no
    obligation raised an internal error; else inconclusive.  A failed ``proof`` obligation (a step of the
    proof that fails, :data:`PROOF_OBLIGATIONS`) changes no verdict: the report lists it as a finding.

    A theorem stated up to a constant gets ``approximate`` with its implied constant instead of
    ``verified``, and a soundness or audit failure (constant 1 exceeded) is no violation for it."""
    up_to_constant = bool(getattr(theorem, "up_to_constant", False))
    failed = [o for o in obligations if o.status == "failed" and o.name not in PROOF_OBLIGATIONS
              and not (up_to_constant and o.name in CONSTANT_OBLIGATIONS)]
    ratios = [o.data.max_ratio for o in obligations if isinstance(o.data, Tightness)]
    max_ratio = max(ratios) if ratios else None
    common = dict(id=theorem.id, obligations=obligations, max_ratio=max_ratio,
                  printed_of=theorem.printed_of, expect_fail=tuple(theorem.expect_fail))
    if failed:
        ill = [o for o in failed if o.name == WELL_FORMED]
        cex = next((o.counterexample for o in ill + failed if o.counterexample), None)
        return Verdict(verdict="ill-formed" if ill else "violated", counterexample=cex,
                       reason="; ".join(f"{o.name}: {o.detail}" for o in ill + [o for o in failed if o not in ill]),
                       **common)
    if theorem.kind == "approximation":
        approx = [o for o in obligations if o.status == "approximate"]
        reason = approx[0].detail if approx else "approximation: no exact reference to measure its error"
        return Verdict(verdict="approximate" if approx else "inconclusive", reason=reason, **common)
    if up_to_constant:
        compared = [o for o in obligations if o.name == "soundness" and o.status in ("passed", "failed", "approximate")]
        if compared:
            constant, witness = implied_constant(theorem, obligations)
            return Verdict(verdict="approximate", implied_constant=constant,
                           reason=constant_reason(theorem, constant, witness), **common)
    sound = [o for o in obligations if o.name == "soundness" and o.status == "passed"]
    internal = [o for o in obligations if o.name == "internal-error"]
    if sound and not internal:
        return Verdict(verdict="verified", reason=sound[0].detail, **common)
    gaps = [f"{o.name}: {o.detail}" for o in obligations if o.status == "inconclusive"]
    return Verdict(verdict="inconclusive",
                   reason="; ".join(gaps) or "no exact reference covers this setting", **common)


#: the obligations about a theorem's proof, not its statement: a proof step that fails does not refute the
#: statement (judged against exact references); it is a finding of the report
PROOF_OBLIGATIONS = ("proof",)
#: the obligations that compare the bound with exact (or audited) values: exceeding constant 1 there is
#: no violation of a statement made up to a constant
CONSTANT_OBLIGATIONS = ("soundness", "audit")


def implied_constant(theorem, obligations: list[Obligation]) -> tuple[float | None, Witness | None]:
    """The constant the compared instances imply for a statement made up to a constant, and where.

    Upper bound: the smallest C with exact <= C * bound on every compared instance (the largest
    exact/bound); lower bound: the largest C with exact >= C * bound (the smallest exact/bound).  Read from
    the soundness evidence when the search reports it (``constant``, and ``largest``, the instance attaining
    it: :class:`~verify.check.evidence.SoundnessChecked`); else from the tightness evidence (upper) and the
    failed comparison, which for a lower bound only bounds the constant from above.  None when nothing says.
    """
    for o in obligations:
        value = getattr(o.data, "constant", None)
        if o.name == "soundness" and value is not None and math.isfinite(value):
            return float(value), getattr(o.data, "largest", None)
    candidates: list[tuple[float, Witness | None]] = []
    lower = theorem.kind == "lower"
    for o in obligations:
        if isinstance(o.data, Tightness) and not lower and math.isfinite(o.data.max_ratio):
            candidates.append((float(o.data.max_ratio), o.data.worst))
        cex = o.counterexample
        if o.name == "soundness" and isinstance(cex, Witness) and cex.bound != 0:
            candidates.append((cex.exact / cex.bound, cex))
    if not candidates:
        return None, None
    return (min if lower else max)(candidates, key=lambda c: c[0])


def constant_reason(theorem, constant: float | None, witness: Witness | None) -> str:
    """The one-line reason of a statement made up to a constant."""
    lower = theorem.kind == "lower"
    if constant is None:
        return ("stated up to a constant: constant 1 holds on every compared instance (C "
                + (">= 1" if lower else "<= 1") + "); no implied constant recorded")
    what = "largest constant consistent with the exact values (exact >= C bound)" if lower else \
        "smallest constant consistent with the exact values (exact <= C bound)"
    where = ""
    if witness is not None:
        at = "" if witness.at is None else f", {witness.parameter or 'at'}={witness.at:.4g}"
        params = ", ".join(f"{k}={v:.4g}" if isinstance(v, (int, float)) else f"{k}={v}"
                           for k, v in witness.parameters.items())
        where = (f" (at {witness.instance}{at}: exact {witness.exact:.6g} vs bound {witness.bound:.6g}"
                 + (f"; {params}" if params else "") + ")")
    return f"stated up to a constant: the {what} is C = {constant:.4g}{where}"


def _finite(x):
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None
