"""Proof steps as records: the numbered steps of a theorem's proof, each a claim software can decide.

A paper's errors often sit inside its proofs, not in its statements: a numeric claim printed wrong, a range
that reaches a division by zero, a probability of the algorithm inverted, a monotonicity reversed, a term
that does not scale like the rest.  A :class:`Step` records one such step in one or two readings: the
reading that holds (``corrected``) and, where the paper's text differs, the reading ``printed``.  The
``proof`` obligation (:mod:`verify.check.steps`) decides every reading; an erratum names the step that
detects it (:attr:`verify.theorem.Erratum.step`), and ``verify eval ID --step STEP`` replays it.

Step kinds and what decides them:

* ``relation``: ``lhs <= / >= / == rhs`` at seeded draws from the step's ``domain`` (and its corners), in
  50-digit arithmetic (mpmath) where the sides are closed forms;
* ``value``: a number the paper prints, ``rhs``, against the computed ``lhs``, within half a unit of the
  printed last digit (``tolerance``);
* ``monotone``: the sign of d lhs / d ``var`` (``relation`` "increasing" or "decreasing") at the draws;
* ``range``: ``lhs`` is a finite real number for every integer ``var`` from ``low`` to ``high`` (expressions
  of the drawn values), ends included;
* ``probability``: an event of the algorithm, simulated (``lhs``: a function ``(rng, values, runs) -> hits``),
  against the probability ``rhs``: a two-sided Clopper-Pearson interval at confidence ``1 - 1e-6``;
* ``scaling``: ``lhs relation rhs`` must be a statement about the run, so invariant under the
  re-parametrisation theta -> c theta (each symbol picks up ``c**scale``: the vocabulary's scales, and
  ``scales`` for the step's own symbols).

``loose=True`` says that the printed reading holds but is weaker than the corrected one (a valid, looser
step): both are decided, and the printed/corrected ratio is reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Mapping

import sympy as sp

from verify.errors import InputError
from verify.vocabulary import SYMBOLS

StepKind = Literal["relation", "value", "monotone", "range", "probability", "scaling"]
STEP_KINDS: tuple[str, ...] = ("relation", "value", "monotone", "range", "probability", "scaling")
RELATIONS = {"relation": ("<=", ">=", "=="), "value": ("==",), "monotone": ("increasing", "decreasing"),
             "range": ("finite",), "probability": ("==",), "scaling": ("<=", ">=", "==")}


@dataclass(frozen=True)
class Exact:
    """A side of a reading that is an exact reference: ``times`` (an expression of the point) times the
    ``quantity`` ("gdp": the pair's mu; "renyi": the Rényi divergence of order ``order`` in ``direction``,
    "max" for the larger) of the instance the family ``family`` builds from the point's values of ``keywords``
    (with ``fixed`` keywords besides).  The check layer builds it (:mod:`verify.check.steps`): a record names
    it, it never imports the instances."""

    family: str
    keywords: tuple[str, ...]
    quantity: Literal["gdp", "renyi"] = "gdp"
    order: float | None = None
    fixed: Mapping[str, Any] = field(default_factory=dict)
    direction: Literal["forward", "backward", "max"] = "max"
    times: Any = 1


@dataclass(frozen=True)
class Reading:
    """One reading of a step: ``lhs relation rhs`` in the words of ``text``.

    ``lhs`` and ``rhs`` are sympy expressions (or numbers) in the step's symbols, functions of the point's values,
    or :class:`Exact` references; a ``probability`` step's
    ``lhs`` is the simulated event, a function ``(rng, values, runs) -> hits``; a ``range`` step reads
    ``low`` and ``high`` (expressions) as the ends of its variable."""

    text: str
    lhs: Any
    relation: str = "<="
    rhs: Any = 0
    tolerance: float = 1e-9
    low: Any = None
    high: Any = None

    def __repr__(self) -> str:
        """Deterministic across processes (a function by its qualified name, not its address): the report's
        cache keys records by their text."""
        fields = ", ".join(f"{name}={_stable(getattr(self, name))}" for name in
                           ("text", "lhs", "relation", "rhs", "tolerance", "low", "high"))
        return f"Reading({fields})"


def _stable(value: Any) -> str:
    if callable(value) and not isinstance(value, sp.Basic):
        return f"<{getattr(value, '__module__', '?')}.{getattr(value, '__qualname__', type(value).__name__)}>"
    return repr(value)


@dataclass(frozen=True)
class Step:
    """One step of a proof (see the module docstring for the kinds)."""

    id: str
    where: str
    kind: StepKind
    corrected: Reading
    printed: Reading | None = None
    #: the drawn symbols and their ranges ``(low, high)``; a symbol of the vocabulary keeps its domain's type
    domain: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    #: values fixed by the proof (the step is checked there, not drawn)
    fixed: Mapping[str, Any] = field(default_factory=dict)
    #: symbols that take integer values
    integers: tuple[str, ...] = ()
    #: symbols computed from the drawn ones (``eta = m/(2 M^2)``), in this order
    derived: Mapping[str, Any] = field(default_factory=dict)
    var: str | None = None
    scales: Mapping[str, int] = field(default_factory=dict)
    loose: bool = False
    runs: int = 200_000
    #: at most this many seeded draws (a step whose sides are costly references); None: the effort's count
    draws: int | None = None

    def __post_init__(self) -> None:
        where = f"step {self.id}"
        if not isinstance(self.id, str) or not self.id or " " in self.id:
            raise InputError(f"a step id must be a non-empty word, got {self.id!r}", "id", where)
        if self.kind not in STEP_KINDS:
            raise InputError(f"kind must be one of {STEP_KINDS}, got {self.kind!r}", "kind", where)
        for reading in (self.corrected, self.printed):
            if reading is not None and reading.relation not in RELATIONS[self.kind]:
                raise InputError(f"a {self.kind} step's relation must be one of {RELATIONS[self.kind]}, got "
                                 f"{reading.relation!r}", "relation", where)
        if self.kind in ("monotone", "range") and not self.var:
            raise InputError(f"a {self.kind} step names its variable (var)", "var", where)
        if self.loose and self.printed is None:
            raise InputError("a loose step needs the printed reading it is looser than", "printed", where)
        for name, (low, high) in self.domain.items():
            if not low <= high:
                raise InputError(f"domain of {name}: need low <= high, got ({low}, {high})", "domain", where)

    @property
    def expected(self) -> str:
        """What the record says about the printed reading: ``"holds"`` (no printed reading differs),
        ``"fails"`` (an erratum) or ``"loose"`` (valid but weaker)."""
        if self.printed is None:
            return "holds"
        return "loose" if self.loose else "fails"


def symbols_of(step: Step) -> dict[str, sp.Symbol]:
    """The step's symbols by name: the vocabulary's where the name is there, else a positive symbol."""
    names = set(step.domain) | set(step.fixed) | set(step.derived) | set(step.integers) | set(step.scales)
    names |= {step.var} if step.var else set()
    return {name: SYMBOLS.get(name, sp.Symbol(name, positive=True)) for name in sorted(names)}


def event(function: Callable[..., Any]) -> Callable[..., Any]:
    """Mark ``function(rng, values, runs) -> hits`` as a simulated event of the algorithm (for readability)."""
    function.is_event = True  # type: ignore[attr-defined]
    return function


__all__ = ["Exact", "RELATIONS", "Reading", "STEP_KINDS", "Step", "StepKind", "event", "symbols_of"]
