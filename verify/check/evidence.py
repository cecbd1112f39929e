"""Typed evidence of the obligations: what each check saw, as frozen records (docs/verdicts.md).

An :class:`~verify.check.verdict.Obligation` carries its evidence (``data``) and, when it fails, a
counterexample, as the records below; they become JSON only at the command boundary
(``Verdict.to_json``).  Each record has ``to_json()`` and ``from_json()``; ``from_json(to_json(x))``
gives back ``x`` (numbers that JSON cannot hold, inf and nan, travel as the strings ``"inf"``,
``"-inf"``, ``"nan"``).

Readers of a verdict's JSON (the report) use :func:`evidence_from_json` and
:func:`counterexample_from_json` instead of chains of ``.get()``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Union

import numpy as np

from verify.errors import InputError
from verify.privacy.notions import notions

# ---------------------------------------------------------------------------------------------------
# JSON helpers
# ---------------------------------------------------------------------------------------------------


def jsonable(obj: Any) -> Any:
    """Plain JSON types (numpy scalars and arrays to floats and lists, inf/nan to strings)."""
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if hasattr(obj, "to_json"):
        return jsonable(obj.to_json())
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return jsonable(obj.tolist())
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        x = float(obj)
        if math.isfinite(x):
            return x
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return str(obj)


def _number(x: Any) -> float:
    """A number back from JSON: ``"inf"``, ``"-inf"``, ``"nan"`` become floats; an int stays an int
    (an instance's integer constants, n or T, are written as ints)."""
    if isinstance(x, str):
        return float(x)
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise TypeError(f"expected a number, got {x!r}")
    return x


def _optional(x: Any) -> float | None:
    return None if x is None else _number(x)


def _numbers(values: Any) -> float | list[float]:
    """A float or a list of floats back from JSON (audit bounds are either)."""
    if isinstance(values, list):
        return [_number(v) for v in values]
    return _number(values)


def _mapping(values: Mapping[str, Any] | None) -> dict[str, Any]:
    """A parameter mapping back from JSON: numbers as floats, anything else as it was."""
    out: dict[str, Any] = {}
    for key, value in (values or {}).items():
        try:
            out[key] = _number(value)
        except (TypeError, ValueError):
            out[key] = value
    return out


def _notion_keys() -> tuple[str, ...]:
    """The keys a witness may file its notion parameter under: each notion's parameter, or ``at``."""
    return tuple(dict.fromkeys(n.parameter for n in notions() if n.parameter)) + ("at",)


# ---------------------------------------------------------------------------------------------------
# counterexamples and witnesses
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Witness:
    """One comparison of a bound with an exact value on a concrete instance.

    The worst instance of the tightness check (with its ``ratio``), or, when the inequality fails, the
    counterexample of the soundness or exactness check.  ``parameter`` is the name of the notion
    parameter (``alpha``, ``eps``, ``delta``) the comparison was made at, None for notions without one
    (the JSON then files ``at`` under ``"at"``).
    """

    instance: str
    family: str
    parameters: dict[str, float]
    at: float | None
    exact: float
    bound: float
    parameter: str | None = None
    ratio: float | None = None
    #: the family's build keywords of the instance (``verify.check.certify.build_keywords``), which
    #: ``verify eval ID --family F ...`` replays (:func:`verify.check.certify.replay_line`); None: unknown
    build: dict[str, Any] | None = None

    def to_json(self) -> dict:
        out = {"instance": self.instance, "family": self.family, "parameters": jsonable(self.parameters),
               self.parameter or "at": jsonable(self.at), "exact": jsonable(self.exact),
               "bound": jsonable(self.bound)}
        if self.ratio is not None:
            out["ratio"] = jsonable(self.ratio)
        if self.build is not None:
            out["build"] = jsonable(self.build)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Witness":
        key = next((k for k in _notion_keys() if k in data), "at")
        return cls(instance=str(data["instance"]), family=str(data.get("family", "")),
                   parameters=_mapping(data.get("parameters")), at=_optional(data.get(key)),
                   exact=_number(data["exact"]), bound=_number(data["bound"]),
                   parameter=None if key == "at" else key, ratio=_optional(data.get("ratio")),
                   build=None if data.get("build") is None else _mapping(data["build"]))


@dataclass(frozen=True)
class BadValue:
    """A parameter point at which a bound is not a valid value (the well-formed check)."""

    parameters: dict[str, float]
    bound: float

    def to_json(self) -> dict:
        return {"parameters": jsonable(self.parameters), "bound": jsonable(self.bound)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "BadValue":
        return cls(parameters=_mapping(data["parameters"]), bound=_number(data["bound"]))


@dataclass(frozen=True)
class ScalingCounterexample:
    """A point and its twin under theta -> c*theta at which the bound differs (docs/conventions.md)."""

    parameters: dict[str, float]
    rescaled: dict[str, float]
    c: float
    bound: float
    bound_rescaled: float

    def to_json(self) -> dict:
        return {"parameters": jsonable(self.parameters), "rescaled": jsonable(self.rescaled),
                "c": jsonable(self.c), "bound": jsonable(self.bound),
                "bound_rescaled": jsonable(self.bound_rescaled)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ScalingCounterexample":
        return cls(parameters=_mapping(data["parameters"]), rescaled=_mapping(data["rescaled"]),
                   c=_number(data["c"]), bound=_number(data["bound"]),
                   bound_rescaled=_number(data["bound_rescaled"]))


@dataclass(frozen=True)
class AuditCounterexample:
    """A simulated instance whose audited lower bound exceeds the bound."""

    instance: str
    parameters: dict[str, float]
    bound: float | list[float]
    lower: float | list[float]
    at: list[float] | None

    def to_json(self) -> dict:
        return {"instance": self.instance, "parameters": jsonable(self.parameters), "bound": jsonable(self.bound),
                "lower": jsonable(self.lower), "at": jsonable(self.at)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "AuditCounterexample":
        return cls(instance=str(data["instance"]), parameters=_mapping(data["parameters"]),
                   bound=_numbers(data["bound"]), lower=_numbers(data["lower"]),
                   at=None if data.get("at") is None else list(_numbers(data["at"])))


Counterexample = Union[Witness, BadValue, ScalingCounterexample, AuditCounterexample]


def counterexample_from_json(data: Mapping[str, Any] | None) -> Counterexample | None:
    """The counterexample record of a verdict's JSON (told apart by its keys)."""
    if data is None:
        return None
    if "rescaled" in data:
        return ScalingCounterexample.from_json(data)
    if "lower" in data:
        return AuditCounterexample.from_json(data)
    if "exact" in data:
        return Witness.from_json(data)
    return BadValue.from_json(data)


# ---------------------------------------------------------------------------------------------------
# the evidence of each obligation
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PointsChecked:
    """well-formed: the number of admissible points the bound was evaluated on."""

    points: int

    def to_json(self) -> dict:
        return {"points": int(self.points)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "PointsChecked":
        return cls(points=int(data["points"]))


@dataclass(frozen=True)
class ClaimsChecked:
    """claims: how many claims were checked and, when any was, how many sympy and sampling left undecided."""

    claims: int
    undecided: int | None = None

    def to_json(self) -> dict:
        out = {"claims": int(self.claims)}
        if self.undecided is not None:
            out["undecided"] = int(self.undecided)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ClaimsChecked":
        undecided = data.get("undecided")
        return cls(claims=int(data["claims"]), undecided=None if undecided is None else int(undecided))


@dataclass(frozen=True)
class ExactnessChecked:
    """exactness: the number of instances of the claimed tight families the bound was compared on."""

    compared: int

    def to_json(self) -> dict:
        return {"compared": int(self.compared)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ExactnessChecked":
        return cls(compared=int(data["compared"]))


@dataclass(frozen=True)
class SoundnessChecked:
    """soundness: what the search compared and where.

    * ``examples``: admissible instances compared; ``families``: the families they came from;
    * ``cells``: regime cell (``"mu_step:>1"``, ``"T:1"``, ``"l:2"``, ``"etaM:near-2"``, ...) -> instances;
    * ``skipped``: what refused ("reference", "bound", "non-finite exact") -> instances skipped;
    * ``budget``: instances compared per phase (``replayed``, ``corners``, ``random``, ``guided``);
    * on a violation: ``margin`` (certified relative margin of the reported, shrunk counterexample),
      ``largest`` and ``largest_margin`` (the largest-margin violation seen), ``replay`` (the commands
      replaying both);
    * for a theorem stated up to a constant: ``constant`` (the constant the exact values imply) and
      ``largest`` (the instance attaining it);
    * ``axes``: per structural axis the theorem admits (:mod:`verify.check.soundness.axes`), the values the evidence
      reached; ``axes_needed``: the values its claim needs compared.
    """

    examples: int
    families: tuple[str, ...] | None = None
    cells: dict[str, int] | None = None
    skipped: dict[str, int] | None = None
    budget: dict[str, int] | None = None
    margin: float | None = None
    largest: Witness | None = None
    largest_margin: float | None = None
    replay: tuple[str, ...] | None = None
    constant: float | None = None
    axes: dict[str, tuple[str, ...]] | None = None
    axes_needed: dict[str, tuple[str, ...]] | None = None

    def to_json(self) -> dict:
        out: dict[str, Any] = {"examples": int(self.examples)}
        if self.families is not None:
            out["families"] = list(self.families)
        for key in ("cells", "skipped", "budget"):
            value = getattr(self, key)
            if value is not None:
                out[key] = {str(k): int(v) for k, v in value.items()}
        for key in ("margin", "largest_margin", "constant"):
            value = getattr(self, key)
            if value is not None:
                out[key] = jsonable(value)
        if self.largest is not None:
            out["largest"] = self.largest.to_json()
        if self.replay is not None:
            out["replay"] = list(self.replay)
        for key in ("axes", "axes_needed"):
            value = getattr(self, key)
            if value is not None:
                out[key] = {str(k): list(v) for k, v in value.items()}
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "SoundnessChecked":
        families = data.get("families")
        counts = {key: (None if data.get(key) is None else {str(k): int(v) for k, v in data[key].items()})
                  for key in ("cells", "skipped", "budget")}
        largest = data.get("largest")
        replay = data.get("replay")
        return cls(examples=int(data["examples"]), families=None if families is None else tuple(families),
                   margin=_optional(data.get("margin")), largest=None if largest is None else Witness.from_json(largest),
                   largest_margin=_optional(data.get("largest_margin")),
                   replay=None if replay is None else tuple(str(r) for r in replay),
                   constant=_optional(data.get("constant")),
                   **{key: (None if data.get(key) is None else {str(k): tuple(v) for k, v in data[key].items()})
                      for key in ("axes", "axes_needed")}, **counts)


@dataclass(frozen=True)
class Tightness:
    """tightness: the largest and median exact/bound ratio, and the instance attaining the largest."""

    max_ratio: float
    median_ratio: float | None
    worst: Witness | None
    #: the bound's own relative error at ``worst`` (a bound with PLD operators, measured by refinement)
    bound_error: float | None = None

    def to_json(self) -> dict:
        out = {"max_ratio": jsonable(self.max_ratio), "median_ratio": jsonable(self.median_ratio),
               "worst": None if self.worst is None else self.worst.to_json()}
        if self.bound_error is not None:
            out["bound_error"] = jsonable(self.bound_error)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Tightness":
        worst = data.get("worst")
        return cls(max_ratio=_number(data["max_ratio"]), median_ratio=_optional(data.get("median_ratio")),
                   worst=None if worst is None else Witness.from_json(worst),
                   bound_error=_optional(data.get("bound_error")))


@dataclass(frozen=True)
class ApproximationRow:
    """One point at which an approximation's eps(delta) was compared with the exact one."""

    parameters: dict[str, float]
    delta: float
    eps_approx: float
    eps_exact: float
    relative_error: float
    understates: bool
    from_paper: bool

    def to_json(self) -> dict:
        return {"parameters": jsonable(self.parameters), "delta": jsonable(self.delta),
                "eps_approx": jsonable(self.eps_approx), "eps_exact": jsonable(self.eps_exact),
                "relative_error": jsonable(self.relative_error), "understates": bool(self.understates),
                "from_paper": bool(self.from_paper)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ApproximationRow":
        return cls(parameters=_mapping(data["parameters"]), delta=_number(data["delta"]),
                   eps_approx=_number(data["eps_approx"]), eps_exact=_number(data["eps_exact"]),
                   relative_error=_number(data["relative_error"]), understates=bool(data["understates"]),
                   from_paper=bool(data["from_paper"]))


@dataclass(frozen=True)
class ApproximationGap:
    """A point at which the approximation or its exact reference could not be evaluated, and why."""

    parameters: dict[str, float]
    error: str

    def to_json(self) -> dict:
        return {"parameters": jsonable(self.parameters), "error": self.error}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ApproximationGap":
        return cls(parameters=_mapping(data["parameters"]), error=str(data["error"]))


@dataclass(frozen=True)
class ApproximationError:
    """approximation: the compared rows and, when any row compared, how many under-state eps."""

    rows: tuple[ApproximationRow | ApproximationGap, ...]
    understated: int | None = None
    paper_rows: int | None = None
    paper_understated: int | None = None

    def to_json(self) -> dict:
        out: dict[str, Any] = {"rows": [r.to_json() for r in self.rows]}
        for key in ("understated", "paper_rows", "paper_understated"):
            if getattr(self, key) is not None:
                out[key] = int(getattr(self, key))
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ApproximationError":
        rows = tuple(ApproximationGap.from_json(r) if "error" in r else ApproximationRow.from_json(r)
                     for r in data.get("rows", ()))
        counts = {k: (None if data.get(k) is None else int(data[k]))
                  for k in ("understated", "paper_rows", "paper_understated")}
        return cls(rows=rows, **counts)


@dataclass(frozen=True)
class AuditEvidence:
    """audit: the simulated instance, the Monte Carlo settings, and the comparison with the bound."""

    instance: str
    runs: int
    seed: int
    confidence: float
    constants: dict[str, float]
    ok: bool
    bound: float | list[float]
    lower: float | list[float]
    at: list[float] | None
    theorem: str
    notion: str

    def to_json(self) -> dict:
        return {"instance": self.instance, "runs": int(self.runs), "seed": int(self.seed),
                "confidence": jsonable(self.confidence), "constants": jsonable(self.constants),
                "ok": bool(self.ok), "bound": jsonable(self.bound), "lower": jsonable(self.lower),
                "at": jsonable(self.at), "theorem": self.theorem, "notion": self.notion}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "AuditEvidence":
        return cls(instance=str(data["instance"]), runs=int(data["runs"]), seed=int(data["seed"]),
                   confidence=_number(data["confidence"]), constants=_mapping(data["constants"]),
                   ok=bool(data["ok"]), bound=_numbers(data["bound"]), lower=_numbers(data["lower"]),
                   at=None if data.get("at") is None else list(_numbers(data["at"])),
                   theorem=str(data["theorem"]), notion=str(data["notion"]))

    def counterexample(self) -> AuditCounterexample:
        """The instance as a counterexample (when the audited lower bound exceeds the bound)."""
        return AuditCounterexample(instance=self.instance, parameters=dict(self.constants), bound=self.bound,
                                   lower=self.lower, at=self.at)


@dataclass(frozen=True)
class InternalError:
    """internal-error: the obligation step that raised (its message is the obligation's detail)."""

    step: str

    def to_json(self) -> dict:
        return {"step": self.step}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "InternalError":
        return cls(step=str(data["step"]))


@dataclass(frozen=True)
class ReadingOutcome:
    """proof: one reading of a step, decided: whether it holds, in words, and where it fails (the point, and
    the two sides there) or the point it was checked at."""

    holds: bool
    detail: str
    at: Mapping[str, float] = field(default_factory=dict)
    lhs: float | None = None
    rhs: float | None = None

    def to_json(self) -> dict:
        return {"holds": bool(self.holds), "detail": self.detail, "at": {k: _num(v) for k, v in self.at.items()},
                "lhs": _num(self.lhs), "rhs": _num(self.rhs)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ReadingOutcome":
        return cls(holds=bool(data["holds"]), detail=str(data["detail"]), at=dict(data.get("at") or {}),
                   lhs=data.get("lhs"), rhs=data.get("rhs"))


@dataclass(frozen=True)
class StepOutcome:
    """proof: one step decided in its readings, against what the record expects of the printed one
    (``expected``: "holds", "fails" or "loose"); ``ratio``: a loose step's smallest printed/corrected."""

    step: str
    kind: str
    where: str
    expected: str
    corrected: ReadingOutcome
    printed: ReadingOutcome | None = None
    ratio: float | None = None
    replay: str = ""

    @property
    def as_expected(self) -> bool:
        """The corrected reading holds and the printed one behaves as the record says."""
        if not self.corrected.holds:
            return False
        if self.expected == "fails":
            return self.printed is not None and not self.printed.holds
        if self.expected == "loose":
            return self.printed is not None and self.printed.holds and (self.ratio is None or self.ratio >= 1)
        return True

    def to_json(self) -> dict:
        return {"step": self.step, "kind": self.kind, "where": self.where, "expected": self.expected,
                "corrected": self.corrected.to_json(),
                "printed": None if self.printed is None else self.printed.to_json(), "ratio": _num(self.ratio),
                "replay": self.replay, "as_expected": self.as_expected}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "StepOutcome":
        printed = data.get("printed")
        return cls(step=str(data["step"]), kind=str(data["kind"]), where=str(data["where"]),
                   expected=str(data["expected"]), corrected=ReadingOutcome.from_json(data["corrected"]),
                   printed=None if printed is None else ReadingOutcome.from_json(printed), ratio=data.get("ratio"),
                   replay=str(data.get("replay", "")))


@dataclass(frozen=True)
class ProofChecked:
    """proof: every step of the theorem's proof, decided."""

    steps: tuple[StepOutcome, ...]

    def to_json(self) -> dict:
        return {"steps": [s.to_json() for s in self.steps]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ProofChecked":
        return cls(steps=tuple(StepOutcome.from_json(s) for s in data["steps"]))


def _num(value):
    """A number for JSON (None stays None; inf and nan as their names)."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else str(value)


Evidence = Union[PointsChecked, ClaimsChecked, ExactnessChecked, SoundnessChecked, Tightness,
                 ApproximationError, AuditEvidence, InternalError, ProofChecked]

#: the evidence record of each obligation that carries one (the others carry none: JSON ``{}``)
EVIDENCE: dict[str, type] = {
    "well-formed": PointsChecked,
    "claims": ClaimsChecked,
    "exactness": ExactnessChecked,
    "soundness": SoundnessChecked,
    "tightness": Tightness,
    "approximation": ApproximationError,
    "audit": AuditEvidence,
    "internal-error": InternalError,
    "proof": ProofChecked,
}


def evidence_from_json(obligation: str, data: Mapping[str, Any] | None) -> Evidence | None:
    """The evidence record of obligation ``obligation`` from its JSON ``data`` (None for ``{}``)."""
    if not data:
        return None
    kind = EVIDENCE.get(obligation)
    if kind is None:
        raise InputError(f"obligation {obligation!r} carries no evidence record, got data {sorted(data)}",
                         "obligation")
    return kind.from_json(data)


__all__ = ["ApproximationError", "ApproximationGap", "ApproximationRow", "AuditCounterexample", "AuditEvidence",
           "BadValue", "ClaimsChecked", "Counterexample", "EVIDENCE", "Evidence", "ExactnessChecked",
           "InternalError", "PointsChecked", "ScalingCounterexample", "SoundnessChecked", "Tightness", "Witness",
           "counterexample_from_json", "evidence_from_json", "jsonable"]
