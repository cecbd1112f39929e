"""A running accountant for a training loop with a changing schedule.

    >>> acc = verify.Accountant()                                             # doctest: +SKIP
    >>> for step in range(1000):
    ...     acc.step(noise_multiplier=1.1, sample_rate=0.01)                  # doctest: +SKIP
    >>> acc.step(noise_multiplier=0.9, sample_rate=0.02, steps=500)           # doctest: +SKIP
    >>> acc.epsilon(1e-5)                                                     # doctest: +SKIP
    Answer(eps=3.826, delta=1e-05, theorem='bu2020/thm3', verdict='verified', ...)

Units are DP-SGD's (Opacus, dp_accounting): per-example gradients clipped to norm ``Cclip``, Gaussian
noise of std ``noise_multiplier * Cclip`` added to their *sum*.  One step is then the (subsampled)
Gaussian mechanism with GDP parameter ``mu = Delta/(z Cclip)``: ``1/z`` under add/remove adjacency,
``2/z`` under replace-one (docs/conventions.md: ``sensitivity_of_lipschitz``).

At every query the answer is the smallest epsilon among the bounds that hold for the steps so far and
whose theorem the verifier has *verified* (policy of :mod:`verify.account.verdicts`):

* **Composition** (any schedule).  Each phase of identical steps is the guarantee of one registry
  theorem, exactly composed by dp_accounting's pessimistic PLD (:class:`verify.privacy.pld.Composition`):

  ===================  ============  ====================================================================
  batches              adjacency     per-phase theorem (:data:`PHASE_THEOREMS`)
  ===================  ============  ====================================================================
  poisson              add_remove    ``bu2020/thm3`` (Bu et al. 2020, Thm 3)
  full                 add_remove    ``bu2020/thm3`` at q = 1 (Poisson sampling with q = 1 is the full batch)
  uniform              replace       ``bok2024/thm4.8`` (Bok et al. 2024, Thm 4.8: ``C_q(G_mu)^{⊗T}``)
  full                 replace       ``baselines/noisy-gd/gdp`` (Dong-Roth-Su 2022, Cor. 2)
  ===================  ============  ====================================================================

  The phases are composed with each other by adaptive composition (Dong-Roth-Su 2022, Thm 4), which
  the PLD product implements.  Every PLD epsilon comes with a bracket ``[lower, upper]``: ``upper`` is the
  pessimistic estimate (the bound used), ``lower`` dp_accounting's optimistic estimate on the same grid
  (``accuracy``), so the exact composition lies in between; a full-batch Gaussian phase is exact
  (closed form).  No optimistic estimate exists for ``C_q(G_mu)`` (uniform batches): ``lower`` is None.
* **Every registry theorem** (last-iterate bounds among them) when the schedule is one phase and the
  accountant knows the run around it (``n``, and what the theorems need: ``eta`` per step, ``m``,
  ``M``, ``Delta``, ``D``...): the schedule is then a :class:`~verify.account.run.Run` and
  :func:`verify.account.account` picks the smallest verified bound.  Last-iterate theorems are never
  applied to a schedule that changes (their assumptions are stated for one constant run).

* **Shuffled batches** (a fresh permutation every epoch, replace-one): ``derived/shuffle/composition``
  (theorems/derived.py: the mixture over orders is at most as private as the worst order, joint convexity),
  ``mu = sqrt(ceil(T/l)) Delta/(b sigma)``, when every step has the same noise multiplier and sample rate
  and ``l = 1/q`` (or ``n/b``) is whole.
* **Step sizes that change across phases** (Altschuler & Talwar 2022, §5.3, eq. (5.7), record
  ``altschuler2022/eq5.7/both-directions``): uniform batches, one noise multiplier and sample rate, every
  phase with its ``eta``, and a run known to satisfy the record's assumptions for the whole schedule
  (``n``, ``D``, ``M`` with ``eta <= 2/M`` at every step, convex losses, fixed start, last iterate released):
  :func:`verify.account.stepsizes.at22_varying_eps`.

The adjacency follows the first step's batching unless given (``run.DEFAULT_ADJACENCY``): add/remove for
Poisson sampling (the convention of Opacus and dp_accounting), replace-one otherwise (fixed-size batches
cannot change size); the answer states it.  Poisson sampling under replace-one and cyclic batches have no
composition theorem in the registry: they get a bound only through the one-phase route.
"""

from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

import numpy as np

import theorems as registry
from verify import validate
from verify.account import stepsizes
from verify.account.accountant import BEST, account
from verify.account.composition import PHASE_THEOREMS, Phase, gaussian_mu, schedule_pld
from verify.account.routes import RUN_KEYS, SHUFFLE_THEOREM, Candidate, DerivedRoutes  # noqa: F401 (re-exported)
from verify.account.run import BATCHES, CHOICE_KEYS, DEFAULT_ADJACENCY, Run
from verify.account.schedule import read_schedule
from verify.account.verdicts import VerdictSource, baseline_path, verdict_source
from verify.errors import InputError
from verify.privacy.gaussian import gdp_delta, gdp_eps
from verify.privacy.pld import DEFAULT_INTERVAL, Composition
from verify.vocabulary import sensitivity_of_lipschitz

#: most points :meth:`Accountant.history` evaluates by default
HISTORY_POINTS = 20


@dataclass(frozen=True)
class Answer:
    """The smallest valid bound at a query, with its provenance; ``float(answer)`` is the value.

    ``bracket`` is ``(lower, upper)`` for a PLD composition (the exact composition lies inside; ``lower``
    None when no optimistic estimate exists) and ``(value, value)`` for a closed-form theorem.
    """

    value: float
    notion: str  # "eps" (at delta) or "delta" (at eps)
    at: float
    theorem: str
    verdict: str
    method: str
    adjacency: str
    steps: int
    bracket: tuple[float | None, float]
    candidates: tuple[Candidate, ...] = ()

    def __float__(self) -> float:
        return float(self.value)

    @property
    def eps(self) -> float:
        return self.value if self.notion == "eps" else self.at

    @property
    def delta(self) -> float:
        return self.at if self.notion == "eps" else self.value

    def __repr__(self) -> str:
        lo = "None" if self.bracket[0] is None else f"{self.bracket[0]:.6g}"
        return (f"Answer({self.notion}={self.value:.6g}, {'delta' if self.notion == 'eps' else 'eps'}={self.at:g}, "
                f"theorem={self.theorem!r}, verdict={self.verdict!r}, adjacency={self.adjacency!r}, "
                f"steps={self.steps}, bracket=[{lo}, {self.bracket[1]:.6g}])")

    def to_json(self) -> dict:
        return {"notion": self.notion, "value": self.value, "at": self.at, "theorem": self.theorem,
                "verdict": self.verdict, "method": self.method, "adjacency": self.adjacency, "steps": self.steps,
                "bracket": list(self.bracket),
                "candidates": [dataclasses.asdict(c) for c in self.candidates]}


def _checked_run(run: dict) -> dict:
    """The run keys of an :class:`Accountant`, validated when it is made (not at its first query)."""
    where = "Accountant"
    for name in ("n", "d"):
        if name in run:
            run[name] = validate.integer(name, run[name], where, low=1)
    for name in ("Cclip", "Delta", "L", "M", "D"):
        if name in run:
            run[name] = validate.positive(name, run[name], where)
    if "m" in run:
        run["m"] = validate.nonnegative("m", run["m"], where)
    for name in ("loss", "init", "release"):  # the run description's own admissible values
        if name in run:
            run[name] = validate.choice(name, run[name], CHOICE_KEYS[name], where)
    return run


class Accountant(DerivedRoutes):
    """A running privacy accountant: record steps as they happen, ask for epsilon or delta at any time.

    ``adjacency``: "add_remove" or "replace" (default: follows the first step's batching, see the module
    docstring).  ``accuracy``: the PLD's discretisation of the privacy loss (dp_accounting's
    ``value_discretization_interval``, default 1e-4); the bracket of every PLD answer shows its effect.
    ``verdicts``: as for :func:`verify.account.account` (default ``reports/baseline.json``).
    ``run``: what is known about the run around the schedule (keys :data:`RUN_KEYS`: ``n``, ``Cclip``
    (default 1), ``Delta``, ``L``, ``m``, ``M``, ``D``, ``d``, ``loss``, ``init``, ``release``), used by the
    one-phase route to every registry theorem.
    """

    def __init__(self, *, adjacency: str | None = None, accuracy: float = DEFAULT_INTERVAL,
                 verdicts: Mapping[str, str] | str | None = None, include_unverified: bool = False,
                 **run: object) -> None:
        if adjacency is not None:
            validate.choice("adjacency", adjacency, ("add_remove", "replace"), "Accountant")
        self._adjacency = adjacency
        self._adjacency_defaulted = False
        self.accuracy = validate.positive("accuracy", accuracy, "Accountant")
        if self.accuracy > 1.0:
            raise InputError(f"accuracy must be <= 1 (the PLD's loss discretisation), got {accuracy!r}", "accuracy")
        unknown = sorted(set(run) - set(RUN_KEYS))
        if unknown:
            raise InputError(f"Accountant: unknown run key {unknown[0]!r} (known: {', '.join(RUN_KEYS)})", unknown[0])
        self.run = _checked_run({k: v for k, v in run.items() if v is not None})
        if verdicts is not None and not isinstance(verdicts, (str, os.PathLike, Mapping)):
            raise InputError(f"verdicts must be a mapping of theorem ids to verdicts or a baseline file, got "
                             f"{type(verdicts).__name__}", "verdicts", "Accountant")
        self._verdicts = verdicts
        self._source: VerdictSource | None = None
        self.include_unverified = include_unverified
        self._phases: list[Phase] = []
        self._events: list[int] = []  # cumulative steps after each step() call
        self._cache: dict[tuple, Composition] = {}

    # -- recording ----------------------------------------------------------------------------------

    @property
    def adjacency(self) -> str | None:
        """The adjacency in force (None until it is given or the first step fixes it)."""
        if self._adjacency is None and self._phases:
            return DEFAULT_ADJACENCY[self._phases[0].batches]
        return self._adjacency

    @property
    def adjacency_given(self) -> bool:
        """Whether the adjacency was given (else it follows the first step's batching)."""
        return self._adjacency is not None and not self._adjacency_defaulted

    @property
    def sensitivity_ratio(self) -> float:
        """``Delta / Cclip``: the summed gradient's sensitivity in units of the clipping norm.  ``Delta`` is
        the run's when given, else what ``L``-Lipschitz losses or clipping at ``Cclip`` (default 1)
        guarantee under the adjacency (as :class:`~verify.account.run.Run` derives it)."""
        adjacency = self.adjacency or "add_remove"
        clip = float(self.run.get("Cclip", 1.0))
        if "Delta" in self.run:
            return float(self.run["Delta"]) / clip
        if "L" in self.run:
            return float(sensitivity_of_lipschitz(float(self.run["L"]), adjacency)) / clip
        return float(sensitivity_of_lipschitz(1.0, adjacency))

    @property
    def phases(self) -> tuple[Phase, ...]:
        return tuple(self._phases)

    @property
    def steps(self) -> int:
        return sum(p.steps for p in self._phases)

    def step(self, noise_multiplier: float, sample_rate: float | None = None, *, batches: str = "poisson",
             steps: int = 1, eta: float | None = None) -> "Accountant":
        """Record ``steps`` steps of noise multiplier ``noise_multiplier`` (noise std / clipping norm on the
        summed gradient) and sampling rate ``sample_rate`` (``b/n``; 1 for full batches).  O(1): the
        work is done at the next query.  Returns the accountant."""
        where = "Accountant.step"
        z = validate.positive("noise_multiplier", noise_multiplier, where)
        if not math.isfinite(z):
            raise InputError(f"noise_multiplier must be finite, got {noise_multiplier!r}", "noise_multiplier", where)
        batches = validate.choice("batches", batches, BATCHES, where)
        if batches == "full":
            if sample_rate is not None and validate.number("sample_rate", sample_rate, where) != 1.0:
                raise InputError(f"full batches have sample_rate 1, got {sample_rate!r}", "sample_rate", where)
            q = 1.0
        else:
            if sample_rate is None:
                raise InputError(f"{batches} batches need a sample_rate (b/n)", "sample_rate", where)
            q = validate.probability("sample_rate", sample_rate, where)
        count = validate.integer("steps", steps, where)
        eta = None if eta is None else validate.positive("eta", eta, where)
        self._append(Phase(z, q, batches, count, eta))
        self._events.append((self._events[-1] if self._events else 0) + count)  # O(1): no sum over the phases
        return self

    def _append(self, phase: Phase) -> None:
        if self._phases and self._phases[-1].same_kind(phase):
            last = self._phases[-1]
            self._phases[-1] = dataclasses.replace(last, steps=last.steps + phase.steps)
        else:
            self._phases.append(phase)

    def compose(self, other: "Accountant") -> "Accountant":
        """Append ``other``'s steps after this accountant's (both must use the same adjacency)."""
        if not isinstance(other, Accountant):
            raise InputError(f"other must be an Accountant, got {type(other).__name__}", "other")
        mine, theirs = self.adjacency, other.adjacency
        if mine is not None and theirs is not None and mine != theirs:
            raise InputError(f"other uses {theirs} adjacency, this accountant {mine}", "other")
        if self._adjacency is None and mine is None:  # nothing recorded here yet: take other's, if given
            self._adjacency = other._adjacency
            self._adjacency_defaulted = other._adjacency_defaulted
        elif self._adjacency is None:  # fix the default of this accountant's first step
            self._adjacency, self._adjacency_defaulted = mine, True
        phases, events = list(other._phases), list(other._events)  # other may be self: read it once
        for phase in phases:
            self._append(phase)
        offset = self._events[-1] if self._events else 0
        self._events += [offset + e for e in events]
        return self

    def __repr__(self) -> str:
        steps = sum(p.steps for p in self._phases)
        phases = "; ".join(f"{p.steps} x (z={p.noise_multiplier:g}, q={p.sample_rate:g}, {p.batches})"
                           for p in self._phases[:4]) + ("; ..." if len(self._phases) > 4 else "")
        run = "".join(f", {k}={v!r}" for k, v in self.run.items())
        return (f"Accountant({steps} steps in {len(self._phases)} phase{'s' if len(self._phases) != 1 else ''}"
                f"{': ' + phases if phases else ''}; adjacency={self.adjacency!r}{run})")

    @classmethod
    def from_schedule(cls, phases: Iterable[Mapping[str, object]], **options) -> "Accountant":
        """An accountant that has recorded ``phases`` (mappings with the keys of :meth:`step`)."""
        acc = cls(**options)
        for i, phase in enumerate(phases):
            if not isinstance(phase, Mapping):
                raise InputError(f"schedule phase {i + 1} must be a table of step keys, got {phase!r}", "schedule")
            unknown = sorted(set(phase) - {"noise_multiplier", "sample_rate", "batches", "steps", "eta"})
            if unknown:
                raise InputError(f"schedule phase {i + 1}: unknown key {unknown[0]!r}", unknown[0])
            acc.step(**phase)
        return acc

    @classmethod
    def from_file(cls, path, **options) -> "Accountant":
        """An accountant that has recorded the phases of a TOML or JSON schedule file
        (:mod:`verify.account.schedule`); ``options`` override the file's top-level keys."""
        file_options, steps = read_schedule(path)
        merged = {**file_options, **{k: v for k, v in options.items() if v is not None}}
        return cls.from_schedule(steps, **merged)

    def scaled(self, factor: float, accuracy: float | None = None) -> "Accountant":
        """The same schedule with every noise multiplier times ``factor`` (and the PLD at ``accuracy``)."""
        factor = validate.positive("factor", factor, "Accountant.scaled")
        acc = Accountant.__new__(Accountant)
        acc.__dict__.update(self.__dict__)
        acc._adjacency, acc._adjacency_defaulted = self.adjacency, not self.adjacency_given
        acc._phases = [dataclasses.replace(p, noise_multiplier=p.noise_multiplier * factor) for p in self._phases]
        acc._events, acc.run = list(self._events), dict(self.run)
        if accuracy is not None:
            acc.accuracy = validate.positive("accuracy", accuracy, "Accountant.scaled")
        acc._cache = {}
        return acc

    def composition_eps(self, delta: float) -> float:
        """eps(delta) of the pessimistic PLD composition alone (no bracket, no registry theorems; ``inf``
        when no usable composition theorem covers the schedule): what calibration solves."""
        if self._composition_theorem() is None:
            return math.inf
        mu = gaussian_mu(self._phases, self.adjacency, self.sensitivity_ratio)
        if mu is not None:
            return float(gdp_eps(mu, delta))
        return float(self._composed(pessimistic=True).eps(delta))

    def to_json(self) -> dict:
        return {"adjacency": self.adjacency, "accuracy": self.accuracy, "steps": self.steps,
                "phases": [p.to_json() for p in self._phases], "run": dict(self.run)}

    def truncated(self, steps: int) -> "Accountant":
        """The accountant as it was after its first ``steps`` steps (same options, shared caches)."""
        steps = validate.integer("steps", steps, "Accountant.truncated", low=0, high=max(self.steps, 0))
        acc = Accountant.__new__(Accountant)
        acc.__dict__.update(self.__dict__)
        acc._adjacency, acc._adjacency_defaulted = self.adjacency, not self.adjacency_given
        acc._phases, left = [], steps
        for phase in self._phases:
            if left <= 0:
                break
            acc._phases.append(dataclasses.replace(phase, steps=min(phase.steps, left)))
            left -= phase.steps
        acc._events, acc.run = [e for e in self._events if e <= steps], dict(self.run)
        return acc

    # -- queries --------------------------------------------------------------------------------------

    def epsilon(self, delta: float, *, bracket: bool = True) -> Answer:
        """The smallest verified epsilon at ``delta`` for the steps so far, with its provenance.

        ``bracket=False`` skips the optimistic estimate (the answer's lower end is then None): a PLD
        composition less, for a caller that only needs the bound."""
        delta = validate.probability("delta", delta, "Accountant.epsilon", open_hi=True)
        self._require_steps()
        return self._answer("eps", delta, self._candidates_eps(delta, bracket))

    def delta(self, eps: float) -> Answer:
        """The smallest verified delta at ``eps`` for the steps so far (composition bounds and, on the
        one-phase route, the applicable f-DP theorems, whose value at ``eps`` is delta)."""
        eps = validate.nonnegative("eps", eps, "Accountant.delta")
        self._require_steps()
        return self._answer("delta", eps, self._candidates_delta(eps))

    def history(self, delta: float, points: int | None = HISTORY_POINTS) -> list[tuple[int, Answer]]:
        """``(steps, epsilon at delta)`` after the recorded ``step()`` calls.

        Each point costs one query (a PLD composition of that many steps), so at most ``points`` of them are
        evaluated, evenly spaced over the calls and always including the last (``points=None``: every
        call).  Composition bounds never decrease along the history; a last-iterate bound (one-phase
        route) need not increase with the number of steps.
        """
        delta = validate.probability("delta", delta, "Accountant.history", open_hi=True)
        events = sorted(set(self._events))
        if points is not None:
            points = validate.integer("points", points, "Accountant.history")
            if len(events) > points:
                idx = np.unique(np.round(np.linspace(0, len(events) - 1, points)).astype(int))
                events = [events[i] for i in idx]
        return [(k, self.truncated(k).epsilon(delta)) for k in events]

    def _require_steps(self) -> None:
        if not self._phases:
            raise InputError("no steps recorded: call step() first", "steps")

    # -- candidates ----------------------------------------------------------------------------------

    def _answer(self, notion: str, at: float, candidates: list[Candidate]) -> Answer:
        if not candidates:
            raise InputError(f"no verified bound covers this schedule ({self._describe()}): "
                             + "; ".join(self._why_not()), "batches")
        best = min(candidates, key=lambda c: (c.value, c.theorem))
        upper = best.value
        lower = best.lower if best.lower is not None else (upper if best.method == "closed form" else None)
        return Answer(upper, notion, at, best.theorem, best.verdict, best.method, self.adjacency, self.steps,
                      (lower, upper), tuple(sorted(candidates, key=lambda c: (c.value, c.theorem))))

    def _describe(self) -> str:
        return ", ".join(f"{p.steps} x (z={p.noise_multiplier:g}, q={p.sample_rate:g}, {p.batches})"
                         for p in self._phases) + f", {self.adjacency}"

    def _why_not(self) -> list[str]:
        reasons = []
        for p in self._phases:
            key = (p.batches, self.adjacency)
            if key not in PHASE_THEOREMS:
                hint = " (use adjacency='add_remove')" if key == ("poisson", "replace") else ""
                reasons.append(f"no composition theorem for {p.batches} batches under {self.adjacency} "
                               f"adjacency{hint}")
            else:
                tid = PHASE_THEOREMS[key]
                reasons.append(f"{tid} has verdict {self._verdict(tid)}")
        if any(p.batches == "shuffle" for p in self._phases):
            reasons.append(f"{SHUFFLE_THEOREM}: {self._shuffle_refusal()}")
        if len(self._phases) > 1:
            reasons.append(f"{stepsizes.THEOREM}: {self._varying_refusal()}")
            reasons.append("a changing schedule: other last-iterate theorems not applied")
        elif "n" not in self.run:
            reasons.append("the run's n is not known: other theorems not consulted")
        return list(dict.fromkeys(reasons))

    def _verdict(self, theorem_id: str) -> str:
        if self._source is None:
            # the records are needed only for a quick check, when no verdict file exists (importing the
            # registry costs seconds)
            given = isinstance(self._verdicts, Mapping) or Path(self._verdicts or baseline_path()).is_file()
            ids = [] if given else sorted(set(PHASE_THEOREMS.values()))
            self._source = verdict_source([registry.get(i) for i in ids], self._verdicts)
        return self._source.of(theorem_id)

    def _usable(self, theorem_id: str) -> bool:
        return self._verdict(theorem_id) == "verified" or (
            self.include_unverified and self._verdict(theorem_id) not in ("violated", "approximate", "ill-formed"))

    def _composition_theorem(self) -> str | None:
        """The phase theorems' ids joined (None when a phase has no usable composition theorem)."""
        ids = []
        for p in self._phases:
            tid = PHASE_THEOREMS.get((p.batches, self.adjacency))
            if tid is None or not self._usable(tid):
                return None
            ids.append(tid)
        return " + ".join(dict.fromkeys(ids))

    def _composed(self, pessimistic: bool) -> Composition | None:
        """The PLD of the whole schedule (pessimistic, or dp_accounting's optimistic estimate: None when a
        phase has none), built once per schedule."""
        key = (tuple(self._phases), self.adjacency, self.sensitivity_ratio, self.accuracy, pessimistic)
        if key not in self._cache:
            try:
                self._cache[key] = schedule_pld(self._phases, self.adjacency, self.sensitivity_ratio, self.accuracy,
                                                pessimistic)
            except ArithmeticError as exc:  # dp_accounting squares the noise std: beyond ~1e154 it overflows
                z = max(p.noise_multiplier for p in self._phases)
                raise InputError(f"noise_multiplier={z:g} is beyond the float range of the PLD composition "
                                 f"({type(exc).__name__}: {exc})", "noise_multiplier") from None
        return self._cache[key]

    def _composition_candidate(self, notion: str, at: float, bracket: bool = True) -> Candidate | None:
        tid = self._composition_theorem()
        if tid is None:
            return None
        verdicts = " + ".join(dict.fromkeys(self._verdict(t) for t in tid.split(" + ")))
        try:
            mu = gaussian_mu(self._phases, self.adjacency, self.sensitivity_ratio)
        except OverflowError:  # per-step mu beyond the float range: no number to answer with
            raise InputError("noise_multiplier is too small: the privacy loss exceeds the float range",
                             "noise_multiplier") from None
        if mu is not None:  # G_mu exactly: no discretisation
            value = float(gdp_eps(mu, at)) if notion == "eps" else float(gdp_delta(mu, at))
            return Candidate(value, tid, verdicts, "closed form", value)
        upper = self._composed(pessimistic=True)
        lower = self._composed(pessimistic=False) if bracket else None
        query = (lambda c: float(c.eps(at))) if notion == "eps" else (lambda c: float(c.delta(at)))
        method = (f"{len(self._phases)} phase(s) composed exactly (dp_accounting PLD, pessimistic, "
                  f"accuracy {self.accuracy:g})")
        return Candidate(query(upper), tid, verdicts, method, None if lower is None else query(lower))

    def _one_phase_run(self) -> Run | None:
        """The schedule as a :class:`Run` when it is one phase and ``n`` is known (else None)."""
        if len(self._phases) != 1 or "n" not in self.run:
            return None
        return self._run_with(self._phases[0].eta)

    def _registry_rows(self, delta: float | None):
        run = self._one_phase_run()
        if run is None:
            return None, []
        result = account(run, delta=delta if delta is not None else 1e-5, verdicts=self._verdicts,
                         include_unverified=self.include_unverified)
        return run, [r for r in result.rows if r.status in (BEST, "used")]

    def _candidates_eps(self, delta: float, bracket: bool = True) -> list[Candidate]:
        out = []
        comp = self._composition_candidate("eps", delta, bracket)
        if comp is not None:
            out.append(comp)
        _, rows = self._registry_rows(delta)
        out += [Candidate(r.eps, r.id, r.verdict, "registry theorem for the one-phase run (verify account)")
                for r in rows if r.eps is not None and math.isfinite(r.eps)]
        out += self._derived_candidates("eps", delta, rows)
        return out

    def _candidates_delta(self, eps: float) -> list[Candidate]:
        out = []
        comp = self._composition_candidate("delta", eps)
        if comp is not None:
            out.append(comp)
        run, rows = self._registry_rows(None)
        out += self._derived_candidates("delta", eps, rows)
        method = "registry theorem for the one-phase run (verify account)"
        for r in rows:
            theorem = registry.get(r.id)
            if theorem.notion_record.inverted:  # an f-DP curve: its value at eps is delta
                params = {k: v for k, v in run.parameters().items() if k in theorem.parameters}
                out.append(Candidate(float(theorem.evaluate(**params, eps=eps)), r.id, r.verdict, method))
            elif r.mu is not None:  # mu-GDP: delta(eps) of G_mu (Dong-Roth-Su 2022, Cor. 2.13)
                out.append(Candidate(float(gdp_delta(r.mu, eps)), r.id, r.verdict, method))
        return out


__all__ = ["Accountant", "Answer", "Candidate", "Phase"]
