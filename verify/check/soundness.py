"""Numeric obligations against exact references: soundness, tightness, exactness on claimed families.

The soundness search draws points in the theorem's own coordinates (:func:`verify.check.domain.search_point`:
per-step mu, eta*M, m/M, D/(eta sigma), l, b, E, T and the notion parameters, on scales that reach the
regimes where errors live), and runs in five phases, each counted in the evidence's budget:

1. ``replayed``: the record's kept instances (``examples`` naming a ``family``);
2. ``corners``: a deterministic list always tried (T = 1, T at the bound's saturation point and +-1,
   l in {1, 2, 3}, eta*M near 2, near 2/(1 + m/M) and small, m -> 0, m = M (also at mu_step = 2: the
   strongest contraction, tried by costly families too), q = 1, large mu, each searched family keyword at
   its ends), with every candidate family;
3. ``random``: hypothesis draws, steered by ``target()`` towards the largest exact/bound (upper) or
   bound/exact (lower); a failure is shrunk by hypothesis;
4. ``boundary``: from the best points found so far, each inequality assumption made tight in turn, by
   bisecting one unit coordinate that moves it (:meth:`_Search.boundary`): a bound's worst case often lies
   on an assumption's boundary, which random draws never hit;
5. ``guided``: a local optimiser (Nelder-Mead on the unit coordinates, integers rounded, clamped to
   [0, 1]) started from the best points found, so that the reported tightness is a supremum estimate.

Work units (:func:`plan`, :func:`run_block`, :func:`finish`): the first three phases are cut into blocks
fixed before anything is evaluated (the replay; the corners of each family, with its round-robin share of
the corner budget; the random draws in ``Budget.random_blocks`` hypothesis runs, the k-th seeded from
(seed, k)), which any process may run in any order; :func:`merge` puts their records together in block
order, and the boundary and guided phases then start from the best points of every block.  A violation in
a block ends the search there: the blocks after it are left out of the merge (run or not).
:func:`soundness` is the same thing in one process.

A violation is declared only with a certified margin (:func:`verify.check.certify.violation_margin`).  The obligation reports the shrunk counterexample and the largest-margin one.
Each compared instance is filed into regime cells (:func:`cells`), reported as coverage.

A drawn instance whose exact reference refuses to be built there (an :class:`InputError`, e.g. a
privacy-loss distribution too large for the memory budget, or a floating-point failure), or whose bound
refuses to be evaluated, is no evidence either way: it is skipped and counted (``Record.skipped``),
never fatal; so is an instance whose exact value is not finite ("non-finite exact").  The obligation's
detail says how many were skipped and why.

A theorem stated up to a constant (``Theorem.up_to_constant``) is never failed: the search maximises
exact/bound and reports the smallest constant consistent with the exact values (status ``approximate``).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import math
import warnings
from dataclasses import dataclass, field, replace
from typing import Callable, Mapping

import numpy as np
import sympy as sp
from hypothesis import HealthCheck, Phase, given, reject, settings, target
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from hypothesis.internal.conjecture import providers
from scipy import optimize

from verify.check import certify
from verify.check import references as refs
from verify.check.domain import (INTEGER_COORDINATES, OVERSHOOT, STRONG_CONTRACTION, TIGHT, Slack, admissible,
                                 admissible_canonical, assumption_slacks, canonical_points, coordinate_moves,
                                 corner_base, corner_units, drawn_coordinates, l_unit, search_coordinates,
                                 search_point, search_strategy, searched_corners, unit_names, with_steps)
from verify.check.evidence import ExactnessChecked, SoundnessChecked, Tightness, Witness
from verify.check.verdict import Obligation
from verify.errors import InputError
from verify.theorem import SYMBOLS, Theorem


#: failures of a reference or a bound at one point: skipped and counted, never fatal
POINT_FAILURES = (InputError, FloatingPointError, OverflowError, ZeroDivisionError)
PHASES = ("replayed", "corners", "random", "boundary", "guided")
ONE_BATCH, TWO_BATCHES = l_unit(1), l_unit(2)  # the unit draws of l = 1 and l = 2
LARGE_MU = 0.8  # the unit draw of mu_step = 5


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

#: assumption evaluations (the point map and the assumptions' closed forms, no reference) one bisection
#: may spend: the relative slack halves with the bracket, so 60 reach TIGHT from any unit bracket
BISECTIONS = 60

#: rejected draws in a row, before any draw was compared, after which a random run stops: then one in 20
#: draws is admissible with confidence under 1% (0.95^90); hypothesis' own rule waits for 459 (a 1% rate)
HOPELESS = 90


class _Hopeless(BaseException):
    """Ends a random run from inside its test: a BaseException, so hypothesis neither catches nor shrinks it."""


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
    adjacencies: set[str] = field(default_factory=set)  # concrete adjacencies of the evidence
    multi_step: int = 0  # evidence comparisons on runs of more than one step

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
        sufficient statistic, ``run.sufficient``), else its concrete adjacencies and whether it has steps."""
        steps = 1 if instance.steps is None else instance.steps
        reason = refute_only(theorem, instance)
        if reason is not None:
            self.refute_only += 1
            self.reasons.setdefault("refute-only", reason)
            return
        self.adjacencies.update(instance.setting.adjacencies())
        self.multi_step += steps > 1

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
    sufficient = getattr(instance.run, "sufficient", None) is True
    return theorem.setting.refute_only(instance.setting, steps, sufficient)


def _comparable(theorem: Theorem, instance) -> bool:
    """Whether a comparison on ``instance`` can count at all: a lower bound (or an exact value) is refuted only
    by an exact value below it, which a lower bound of the claimed quantity never certifies."""
    return theorem.kind == "upper" or refute_only(theorem, instance) is None


def _parameters(theorem: Theorem, instance, point: Mapping[str, float], at) -> dict[str, float]:
    """The theorem's parameters read off the instance's own constants, plus the notion parameter ``at``."""
    own = refs.instance_params(instance, point)
    extra = theorem.notion_record.parameter
    params = {p: own[p] for p in theorem.parameters if p != extra}
    if extra:
        params[extra] = at
    return params


def _compare(theorem: Theorem, instance, params: Mapping[str, float],
             record: Record | None = None) -> refs.Comparison | None:
    """The comparison at ``params``; with a ``record``, None (noted in ``record.skipped``) when the bound
    or the exact reference refuses there (:data:`POINT_FAILURES`)."""
    notion = theorem.notion_record
    at = params.get(notion.parameter) if notion.parameter else None
    what = "bound"
    try:
        with np.errstate(all="ignore"):
            bound = float(theorem.evaluate(**params))
            what = "reference"
            profile = instance.profile()
            exact = float(notion.exact(profile, at))
    except POINT_FAILURES as exc:
        if record is None:
            raise
        record.skip(what, exc)
        return None
    return refs.Comparison(exact=exact, bound=bound, at=at, tolerance=refs.profile_tolerance(profile),
                           query_error=refs.query_error(profile, notion, at))


def violation_margin(theorem: Theorem, c: refs.Comparison, params: Mapping[str, float]) -> float | None:
    """The certified relative margin of a violation at ``params`` (> 0), or None: not a violation
    (:func:`verify.check.certify.violation_margin`, the one place that decides)."""
    if not (math.isfinite(c.exact) and math.isfinite(c.bound)):
        return None
    return certify.violation_margin(theorem, params, c)


def _violates(theorem: Theorem, c: refs.Comparison, params: Mapping[str, float]) -> bool:
    """Whether the comparison is a (certified) violation of the theorem's relation."""
    return violation_margin(theorem, c, params) is not None


def _replay_line(theorem: Theorem, witness: Witness | None) -> str | None:
    """The ``verify eval`` command that replays ``witness``."""
    return None if witness is None else certify.replay_line(theorem.id, witness)


def _witness(instance, theorem: Theorem, c: refs.Comparison, params: Mapping[str, float]) -> Witness:
    """The witness of one comparison, with its build keywords (replayable)."""
    return certify.witness(theorem, instance, c, params)


@contextlib.contextmanager
def _history_free_generation():
    """Make hypothesis' choices depend on the seed only.

    Hypothesis also draws literal constants found in every local module loaded so far, so the same seed
    would give other instances after other theorems were checked in the same process (seen: different
    verdict ratios for ``verify run --workers 1`` and ``--workers 2``).  The engine's verdicts must not
    depend on that history, so the constant pool is emptied while a search runs.  (Private hook of
    hypothesis; a version without it has no such pool, and generation is left as it is.)
    """
    original = getattr(providers, "_get_local_constants", None)
    if original is None or not hasattr(providers, "Constants"):  # pragma: no cover
        yield
        return
    empty = providers.Constants()
    providers._get_local_constants = lambda: empty
    providers.CONSTANTS_CACHE.cache.clear()
    try:
        yield
    finally:
        providers._get_local_constants = original
        providers.CONSTANTS_CACHE.cache.clear()


def _flags(theorem: Theorem) -> tuple[bool, bool]:
    """(full batch, cyclic) of the theorem's points."""
    cyclic = theorem.setting.batches == "cyclic" or "E" in theorem.parameters
    return theorem.setting.batches == "full", cyclic


def candidate_families(theorem: Theorem, probe_seed: int = 0) -> list[str]:
    """Families that yield at least one admissible instance for ``theorem`` (probed on a few points:
    raw canonical draws and the search's corners).  Probed once per process for theorems alike in
    everything the probe reads (:data:`_CANDIDATES`)."""
    key = (probe_seed, tuple(theorem.parameters), theorem.setting, theorem.notion_record.parameter,
           tuple((name, id(family)) for name, family in refs.families().items()), unit_names())
    try:
        hash(key)
    except TypeError:  # pragma: no cover - a setting field that cannot be hashed: probe every time
        return _probe_families(theorem, probe_seed)
    if key not in _CANDIDATES:
        if len(_CANDIDATES) >= 1024:
            _CANDIDATES.clear()
        _CANDIDATES[key] = tuple(_probe_families(theorem, probe_seed))
    return list(_CANDIDATES[key])


#: the families :func:`candidate_families` found, by what its probe reads of a theorem (its parameters,
#: setting and notion parameter), the registry's families and the vocabulary (a few kB per process)
_CANDIDATES: dict[tuple, tuple[str, ...]] = {}


def _probe_families(theorem: Theorem, probe_seed: int) -> list[str]:
    found = []
    full, cyclic = _flags(theorem)
    probes = canonical_points(12, probe_seed, cyclic=cyclic)
    corners = corner_units(search_coordinates(used=theorem.parameters))[:12]
    probes += [search_point(u, full, cyclic) for u in corners]
    for name, family in refs.families().items():
        for point in probes:
            point = _cap(family, point)
            try:
                instance = refs.build(family, point, theorem)
            except InputError:
                continue
            if refs.why_not_applicable(theorem, instance) is None:
                found.append(name)
                break
    return found


def _cap(family, point: dict, limit: int = 60) -> dict:
    """Keep grid-engine runs short (their cost grows with T); cyclic points keep T = l*E."""
    if not refs.is_grid(family) or point["T"] <= limit:
        return point
    p = dict(point)
    if p["T"] == p["l"] * p["E"]:
        l = min(p["l"], float(limit))
        E = max(1.0, min(p["E"], float(limit // l)))
        p.update(l=l, E=E, T=l * E, n=l * p["b"], q=1.0 / l)
    else:
        p["T"] = float(limit)
    return p


# ---------------------------------------------------------------------------------------------------
# regimes: saturation points and coverage cells
# ---------------------------------------------------------------------------------------------------


def _saturations(theorem: Theorem) -> tuple[tuple[str, Callable], ...]:
    """(step symbol, compiled X) for each ``Min(T, X)`` / ``Min(E, X)`` of the bound: T (or E) beyond X
    no longer changes it."""
    return _compiled_saturations(theorem.bound, theorem.parameters)


@functools.lru_cache(maxsize=512)
def _compiled_saturations(bound: sp.Expr, parameters: tuple[str, ...]) -> tuple[tuple[str, Callable], ...]:
    out = []
    args = tuple(SYMBOLS[p] for p in parameters)
    for atom in bound.atoms(sp.Min):
        for step in ("T", "E"):
            symbol = SYMBOLS[step]
            if symbol in atom.args:
                rest = [a for a in atom.args if a != symbol]
                other = rest[0] if len(rest) == 1 else sp.Min(*rest)
                if other.free_symbols <= set(args):
                    out.append((step, sp.lambdify(args, other, modules="numpy")))
    return tuple(out)


def saturation(theorem: Theorem, params: Mapping[str, float]) -> tuple[str, float] | None:
    """(``"T"`` or ``"E"``, X) for the first saturation of the bound at ``params`` (None: no Min on the steps)."""
    for step, compiled in _saturations(theorem):
        try:
            with np.errstate(all="ignore"):
                value = float(compiled(*(params[p] for p in theorem.parameters)))
        except (KeyError, TypeError, ValueError, ZeroDivisionError, OverflowError):
            continue
        if math.isfinite(value):
            return step, value
    return None


def cells(theorem: Theorem, own: Mapping[str, float], at) -> tuple[str, ...]:
    """The regime cells of one compared instance (its own constants ``own``, notion parameter ``at``)."""
    out = []
    full = theorem.setting.batches == "full"
    if "Delta" in own and "sigma" in own:
        batch = own.get("n" if full or "b" not in own else "b", own.get("n", 1.0))
        mu = own["Delta"] / (batch * own["sigma"]) if own["sigma"] > 0 else math.inf
        out.append("mu_step:" + ("<0.1" if mu < 0.1 else "0.1-1" if mu <= 1 else ">1"))
    if "T" in own:
        T = own["T"]
        sat = saturation(theorem, {**own, **({theorem.notion_record.parameter: at}
                                             if theorem.notion_record.parameter else {})})
        if T == 1:
            out.append("T:1")
        elif sat is not None:
            X = sat[1] * (own.get("l", 1.0) if sat[0] == "E" else 1.0)
            out.append("T:" + ("below" if T < 0.8 * X else "around" if T <= 1.25 * X else "above") + " saturation")
        else:
            out.append("T:" + ("2-10" if T <= 10 else ">10"))
    if "n" in own and "b" in own and own["b"] > 0:
        l = own.get("l", own["n"] / own["b"])
        out.append("l:" + (str(int(l)) if l in (1, 2, 3) else ">3"))
    if "eta" in own and "M" in own:
        etaM = own["eta"] * own["M"]
        out.append("etaM:" + ("small" if etaM < 0.5 else "near-2" if etaM >= 1.8 else "mid"))
        if "m" in own:
            k = own["m"] / own["M"]
            out.append("m/M:" + ("0" if k == 0 else "<1e-3" if k < 1e-3 else ">=1e-3"))
            if k > 0 and abs(etaM * (1 + k) / 2 - 1) < 0.05:
                out.append("etaM:near-2/(1+m/M)")
    parameter = theorem.notion_record.parameter
    if parameter == "alpha" and at is not None:
        out.append("alpha:" + ("<1.5" if at < 1.5 else "1.5-8" if at <= 8 else ">8"))
    elif parameter == "eps" and at is not None:
        out.append("eps:" + ("0" if at == 0 else "<=1" if at <= 1 else ">1"))
    elif parameter == "delta" and at is not None:
        out.append("delta:" + ("<=1e-6" if at <= 1e-6 else ">1e-6"))
    return tuple(out)


# ---------------------------------------------------------------------------------------------------
# the search
# ---------------------------------------------------------------------------------------------------


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


class _Search:
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
        point = _cap(family, self.point(u))
        try:
            instance = refs.build(family, point, theorem)
        except POINT_FAILURES:
            return None, None
        if refs.why_not_applicable(theorem, instance) is not None or not _comparable(theorem, instance):
            return None, None
        at = point[self.parameter] if self.parameter else None
        try:
            params = _parameters(theorem, instance, point, at)
        except KeyError:
            return None, None
        if not admissible(theorem, params):
            return None, None
        c = _compare(theorem, instance, params, record)
        if c is None:
            return None, None
        if not math.isfinite(c.exact):
            record.skip("non-finite exact", OverflowError(f"exact value {c.exact} on {instance.name}"))
            return None, None
        if not math.isfinite(c.bound):
            return None, None  # an infinite upper bound holds and says nothing
        witness = _witness(instance, theorem, c, params)
        record.families.add(name)
        ratio = _ratio(theorem, c)
        own = refs.instance_params(instance, point)
        record.note(ratio, witness, cells(theorem, own, at))
        record.file(theorem, instance)
        score = _score(theorem, ratio)
        if math.isfinite(score):
            record.best.append((score, name, dict(u)))
        margin = None if self.constant else violation_margin(theorem, c, params)
        if margin is not None:
            record.violation(witness, margin)
        return score, margin

    # -- phases -------------------------------------------------------------------------------------

    def corner_shares(self) -> dict[str, int]:
        """How many corners each family gets of the corner budget, fixed before any is evaluated: round
        robin (with many families, each gets its most telling corners first)."""
        lengths = {name: len(self.family_corners(name)) for name in self.names}
        shares, left = dict.fromkeys(self.names, 0), self.budget.corners
        for i in range(max(lengths.values(), default=0)):
            for name in self.names:
                if i < lengths[name] and left > 0:
                    shares[name] += 1
                    left -= 1
        return shares

    def family_corners(self, name: str) -> list[dict]:
        """The corners tried on family ``name`` in order (a costly family: the first few)."""
        family = refs.families()[name]
        return self._costly_corners(family) if _costly(self.theorem, family) else self.corner_list()

    def corners(self, name: str, count: int) -> tuple[str, dict] | None:
        """The first ``count`` corners of family ``name``; the first violation, if any."""
        self.record.phase = "corners"
        single = None  # whether q = 1 (l = 1) is admissible there: learnt from the first try
        found = None
        for u in self.family_corners(name)[:count]:
            if single is False and u["l"] == ONE_BATCH:
                u = {**u, "l": TWO_BATCHES}
            score, margin = self.evaluate(name, u)
            if u["l"] == ONE_BATCH and single is None:
                if score is None:  # e.g. subsampling theorems assume b < n: try l = 2 instead
                    score, margin = self.evaluate(name, u := {**u, "l": TWO_BATCHES})
                    single = False if score is not None else None
                else:
                    single = True
            if margin is not None and found is None:
                found = (name, u)
        return found

    def _costly_corners(self, family) -> list[dict]:
        """A family with a costly reference: the first corners, the strong-contraction and overshooting corners
        (:data:`~verify.check.domain.STRONG_CONTRACTION`, :data:`~verify.check.domain.OVERSHOOT`), two saturation corners and its own searched
        keywords' ends (at the base corner)."""
        every = corner_units(self.coordinates)
        units = [u for u in every if u["mu"] < LARGE_MU or u["T"] == u["E"] == 0.0]
        units = units[:self.budget.costly_corners]  # a large mu over many steps: the costliest composition
        units += [u for u in every if any(all(u[k] == v for k, v in extra.items()) for extra in (STRONG_CONTRACTION,
                                                                                                OVERSHOOT))
                  and u not in units]
        units += self._saturation_corners(units[:1])[:2]
        searched = tuple(getattr(family, "searched", {}) or {})
        return units + searched_corners(self.coordinates, searched)[::2]

    def corner_list(self) -> list[dict]:
        """The corners' unit coordinates: :func:`~verify.check.domain.corner_units`, then the bound's
        saturation point and +-1 from a few of them."""
        units = corner_units(self.coordinates)
        saturated = self._saturation_corners(units[:4] + units[8:10])
        return units[:2] + saturated[:3] + units[2:] + saturated[3:]

    def _saturation_corners(self, bases: list[dict]) -> list[dict]:
        """T at the bound's saturation point and +-1, from a few base corners."""
        out = []
        for u in bases:
            point = self.point(u)
            try:
                params = {p: point[p] for p in self.theorem.parameters}
            except KeyError:
                continue
            sat = saturation(self.theorem, params)
            if sat is None:
                continue
            for T in (math.floor(sat[1]), math.floor(sat[1]) + 1, math.floor(sat[1]) - 1, math.ceil(sat[1]) + 1):
                moved = with_steps(u, T, self.cyclic or sat[0] == "E")
                if moved is not None and moved not in out:
                    out.append(moved)
        return out

    def drawn(self) -> tuple[str, ...]:
        """The unit coordinates the random phase draws: those that move a quantity the theorem, one of its
        families' builders or their searched keywords' draws (``draw.reads``,
        :func:`~verify.instances.registry.reads`) read (:func:`~verify.check.domain.drawn_coordinates`);
        every coordinate when a draw does not say what it reads."""
        read = set(self.theorem.parameters) | refs.POINT_READS
        for name in self.names:
            family = refs.families()[name]
            read |= set(refs.keywords(family))
            for draw in (getattr(family, "searched", None) or {}).values():
                if getattr(draw, "reads", None) is None:
                    return self.coordinates
                read |= draw.reads
        return drawn_coordinates(self.coordinates, read, self.full, self.cyclic)

    def random(self, examples: int, seed: int, database, first: bool = True) -> None:
        """Hypothesis draws steered by ``target``; a violation is shrunk by hypothesis.  Not the ``first``
        run of a search: hypothesis' first draw, its simplest example (the same in every run, whatever the
        seed), is skipped, as the first run compared it.  Only the coordinates that can change a comparison
        are drawn (:meth:`drawn`; the others stay at their corner base).  A run stops early, as unsatisfiable,
        once :data:`HOPELESS` draws in a row were rejected before any was compared."""
        self.record.phase = "random"
        drawn, base = self.drawn(), corner_base(self.coordinates)
        strategy = st.tuples(st.sampled_from(self.names), search_strategy(drawn))
        skip, rejected, compared = [not first], [0], [0]

        @settings(max_examples=examples, deadline=None, database=database, derandomize=False,
                  suppress_health_check=list(HealthCheck),
                  phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
                  report_multiple_bugs=False)
        @hypothesis_seed(seed)
        @given(strategy)
        def prop(args):
            if skip[0]:
                skip[0] = False
                reject()
            name, values = args
            score, margin = self.evaluate(name, {**base, **dict(zip(drawn, values))})
            if score is None:
                rejected[0] += 1
                if not compared[0] and rejected[0] >= HOPELESS:
                    raise _Hopeless
                reject()
            compared[0] += 1
            target(float(np.clip(score, -1e300, 1e300)) if not math.isnan(score) else 0.0, label="ratio")
            if margin is not None:
                raise AssertionError(f"violation with relative margin {margin!r}")

        try:
            with _history_free_generation(), warnings.catch_warnings():
                # on a Dask worker, the worker's own threads draw from the global ``random`` while hypothesis
                # generates: it warns that a strategy used ``random``; none does (the draws depend on the seed
                # only: byte-identical JSON for any cluster), so the warning says nothing here
                warnings.filterwarnings("ignore", message="Do not use the `random` module inside strategies")
                prop()
        except (Unsatisfiable, AssertionError, _Hopeless):
            pass  # no admissible instance, or the failure hypothesis shrank: both are in ``record``

    def boundary(self) -> tuple[str, dict] | None:
        """Make the theorem's assumptions tight, from the best points found so far; stops at the first
        violation (returned).

        From each of the best few points (distinct, by score), every inequality assumption in turn
        (:func:`~verify.check.domain.assumption_slacks`) is made tight by :meth:`_tighten` and the tight
        point is compared (each such comparison is the phase's cost); the walk goes on from a tight
        point that could be compared, so that two assumptions can end up tight together (Chourasia et
        al. 2021, Thm 4 in (eps, delta): exact/bound peaks at m = M and eps = 2 log(1/delta) at once).
        Generic: no assumption is known by name.
        """
        self.record.phase = "boundary"
        slacks = assumption_slacks(self.theorem)
        if not slacks:
            return None
        moves = coordinate_moves(self.coordinates, self.full, self.cyclic)
        coordinates = {id(slack): [k for k in self.coordinates if moves.get(k, frozenset()) & slack.symbols]
                       for slack in slacks}
        left, tried = {False: self.budget.boundary, True: self.budget.costly_boundary}, set()
        for name, start in self._best(self.budget.boundary_starts):
            costly = _costly(self.theorem, refs.families()[name])
            current = start
            for slack in slacks:
                if left[costly] <= 0:
                    break
                moved = self._tighten(current, slack, coordinates[id(slack)])
                if moved is None:
                    continue
                key = self._key(name, moved)
                if key in tried:
                    continue
                tried.add(key)
                left[costly] -= 1
                score, margin = self.evaluate(name, moved)
                if margin is not None:
                    return name, moved
                if score is not None:
                    current = moved
        return None

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

    def _tighten(self, u: dict, slack: Slack, keys: list[str]) -> dict | None:
        """``u`` moved along the coordinates ``keys`` until the assumption ``slack`` is tight (relative slack
        at most :data:`~verify.check.domain.TIGHT`), staying admissible; None when it does not get tight.

        Along each coordinate, only the ends where the slack is smaller count: an end where the assumption
        fails is bisected to its boundary (an integer coordinate to the last admissible integer); when none
        is reached, the walk moves to the admissible point (an end, or the last admissible point before it)
        where the slack is smallest and tries the coordinates again from there (eps up to its end, then
        delta to eps = 2 log(1/delta)).  Only the point map and the assumptions' closed forms are
        evaluated here, never a reference.
        """
        inside = self._inside(u)
        if inside is None or not keys:
            return None
        current, now = dict(u), slack(inside)
        if not math.isfinite(now) or now <= TIGHT:
            return None  # tight already: the point was compared as it is
        for _ in range(len(keys) + 1):
            walk = None
            for key in keys:
                for end in (0.0, 1.0):
                    if current[key] == end:
                        continue
                    trial = {**current, key: end}
                    params = self._params(trial)
                    value = slack(params) if params is not None else math.nan
                    if not (math.isfinite(value) and value < now * (1 - 1e-6)):
                        continue  # not towards this assumption's boundary
                    if value >= 0 and admissible(self.theorem, params):
                        if value <= TIGHT:
                            return trial
                    else:
                        bracket = self._bisect(current, key, end)
                        if bracket is None:
                            continue
                        trial, beyond = bracket
                        value = slack(self._params(trial))
                        if value <= TIGHT or (key in INTEGER_COORDINATES and slack(self._params(beyond)) < 0):
                            return trial  # tight, or as tight as the integers allow
                    if walk is None or value < walk[0]:
                        walk = (value, trial)
            if walk is None or not walk[0] < now * (1 - 1e-6):
                return None
            now, current = walk
        return None

    def _bisect(self, u: dict, key: str, end: float) -> tuple[dict, dict] | None:
        """(the last admissible point, the first one beyond it) bisecting coordinate ``key`` between ``u``
        (admissible) and ``end`` (not); None when no point between them is admissible at the bisection's
        resolution.  An integer coordinate stops at adjacent draws (the last admissible integer)."""
        inner, outer, moved = u[key], end, False
        start = self._params(u)
        loose = [s for s in assumption_slacks(self.theorem) if not s(start) <= TIGHT]  # those that may get tight
        for _ in range(BISECTIONS):
            middle = 0.5 * (inner + outer)
            if middle in (inner, outer):
                break
            found = self._inside({**u, key: middle})
            if found is not None:
                inner, moved = middle, True
                if any(0 <= s(found) <= TIGHT * 1e-2 for s in loose):
                    break
            else:
                outer = middle
            if key in INTEGER_COORDINATES and abs(outer - inner) < 1e-6:
                break
        return ({**u, key: inner}, {**u, key: outer}) if moved else None

    def guided(self) -> tuple[str, dict] | None:
        """Nelder-Mead from the best points found, on the coordinates that move this theorem's
        parameters; stops at the first violation (returned)."""
        self.record.phase = "guided"
        budget = self.budget.guided
        starts, seen = [], set()
        for score, name, u in sorted(self.record.best, key=lambda s: -s[0]):
            key = (name, tuple(sorted(u.items())))
            if key in seen or _costly(self.theorem, refs.families()[name]):
                continue
            seen.add(key)
            starts.append((name, u))
            if len(starts) >= self.budget.starts:
                break
        for i, (name, u) in enumerate(starts):
            each = (budget - self.record.budget["guided"]) // (len(starts) - i)
            if each < 4:
                break
            found = self._optimise(name, u, each)
            if found is not None:
                return found
        return None

    def _optimise(self, name: str, u: dict, evaluations: int) -> tuple[str, dict] | None:
        keys = self._moving(name)
        if not keys:
            return None
        x0 = np.array([u[k] for k in keys])
        found: list = []

        class _Found(Exception):
            pass

        def objective(x):
            trial = {**u, **{k: float(v) for k, v in zip(keys, np.clip(x, 0.0, 1.0))}}
            score, margin = self.evaluate(name, trial)
            if margin is not None:
                found.append((name, trial))
                raise _Found
            return -score if score is not None and math.isfinite(score) else (1e300 if score is None else -1e300)

        simplex = [x0] + [np.where(np.arange(len(keys)) == j, np.clip(x0[j] + (0.15 if x0[j] < 0.5 else -0.15), 0, 1),
                                   x0) for j in range(len(keys))]
        try:
            optimize.minimize(objective, x0, method="Nelder-Mead", bounds=[(0.0, 1.0)] * len(keys),
                              options={"maxfev": evaluations, "initial_simplex": np.array(simplex),
                                       "xatol": 1e-3, "fatol": 1e-6})
        except _Found:
            return found[0]
        return None

    def _moving(self, name: str) -> list[str]:
        """The unit coordinates that move a parameter of the theorem or a keyword of the family."""
        family = refs.families()[name]
        used = set(self.theorem.parameters) | set(refs.keywords(family))
        moves = {"mu": {"sigma", "Delta"}, "etaM": {"eta"}, "mM": {"m"}, "DES": {"D"}, "z": {"z", "Cclip"},
                 "l": {"l", "n", "q", "E"}, "b": {"b", "n", "q"}, "E": {"E"} | ({"T"} if self.cyclic else set()),
                 "T": set() if self.cyclic else {"T"}, "alpha": {"alpha"}, "eps": {"eps"}, "delta": {"delta"}}
        searched = set(getattr(family, "searched", {}) or {})
        out = []
        for key in self.coordinates:
            if key in moves:
                if moves[key] & used:
                    out.append(key)
            elif key.startswith("u_"):
                if key[2:] in searched:
                    out.append(key)
            elif key in used:
                out.append(key)
        return out

    def shrink(self, name: str, u: dict) -> None:
        """Move a violation found outside hypothesis towards the simple run (each coordinate to 0, then
        halved), keeping a certified violation; the last one kept is the reported counterexample."""
        self.record.phase = "guided" if self.record.phase == "guided" else "corners"
        left = self.budget.shrink
        current = dict(u)
        keys = self._moving(name)
        for _ in range(2):
            changed = False
            for key in keys:
                for value in (0.0, current[key] / 2):
                    if left <= 0 or value >= current[key]:
                        continue
                    left -= 1
                    trial = {**current, key: value}
                    _, margin = self.evaluate(name, trial)
                    if margin is not None:
                        current, changed = trial, True
                        break
            if not changed or left <= 0:
                break
        self.evaluate(name, current)  # the reported counterexample is the last violation noted


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
        reason = "no exact reference family covers this setting"
        return Obligation("soundness", "inconclusive", reason), Obligation("tightness", "inconclusive", reason)
    budget = budget or Budget(random=examples)
    blocks = [Block("replayed")] if any("family" in e for e in theorem.examples) else []
    shares = _Search(theorem, list(names), Record(), budget).corner_shares()
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
        _replay(theorem, record)
        return record
    search = _Search(theorem, list(plan.families), record, plan.budget)
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
        out.adjacencies |= r.adjacencies
        out.multi_step += r.multi_step
        out.phase = r.phase
        if r.failure is not None:
            out.failure, out.margin, out.found = r.failure, r.margin, r.found
            break
    return out


def finish(theorem: Theorem, plan: Plan, records: list[Record]) -> tuple[Obligation, Obligation]:
    """Soundness and tightness from the records of ``plan``'s blocks (in block order; those after the first
    violation may be left out): merged, then, without a violation, the boundary and guided phases from the
    best points of every block; a violation found outside hypothesis is shrunk."""
    if len(records) > len(plan.blocks) or (len(records) < len(plan.blocks)
                                           and not any(r.failure is not None for r in records)):
        raise InputError(f"records must be one per block of the plan ({len(plan.blocks)}), got {len(records)}",
                         "records")
    record = merge(records)
    search = _Search(theorem, list(plan.families), record, plan.budget)
    found = record.found
    if record.failure is None:
        if plan.budget.boundary > 0:
            found = search.boundary()
        if found is None and plan.budget.guided > 0:
            found = search.guided()
    if found is not None and not _costly(theorem, refs.families()[found[0]]):
        search.shrink(*found)
    return _soundness(theorem, list(plan.families), record), _tightness(record)


def soundness(theorem: Theorem, examples: int = 40, seed: int = 0, database=None,
              families: list[str] | None = None, budget: Budget | None = None) -> tuple[Obligation, Obligation]:
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
    search = _Search(theorem, [], Record(), Budget())
    return [search.point(u) for u in search.corner_list()]


def _soundness(theorem: Theorem, names: list[str], record: Record) -> Obligation:
    def evidence(**extra) -> SoundnessChecked:
        return SoundnessChecked(record.examples, tuple(sorted(record.families)), cells=dict(sorted(record.cells.items())),
                                skipped=dict(sorted(record.skipped.items())), budget=dict(record.budget), **extra)

    if record.failure is not None:
        f = record.failure
        return Obligation("soundness", "failed",
                          f"{_relation(theorem)} fails on {f.instance}: exact {f.exact:.6g} vs bound {f.bound:.6g}"
                          f" (relative margin {record.margin:.3g}; largest margin {record.largest_margin:.3g} on "
                          f"{record.largest.instance})",
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
                      f"{', '.join(families)}" + coverage + refuting + record.skip_note(),
                      data=evidence())


def _evidence_gap(theorem: Theorem, record: Record) -> str | None:
    """What the compared instances leave unchecked of the theorem's claim (None: nothing): anything beyond its
    kept examples, when the search compared no instance of its own; every iterate, when only last iterates of
    several steps were compared; a concrete adjacency the theorem claims (``"any"``: both) that no evidence
    reached."""
    gaps = []
    if record.examples and record.budget.get("replayed", 0) >= record.examples:
        gaps.append(f"only its kept example{'s' if record.examples > 1 else ''} could be compared: no instance the "
                    f"search drew or built was admissible, so its assumption class was not explored")
    if record.refute_only and not record.multi_step:
        gaps.append(f"only last iterates were compared on runs of more than one step ({record.refute_only}: "
                    f"{record.reasons['refute-only']}), never every iterate")
    missing = [a for a in theorem.setting.adjacencies() if a not in record.adjacencies]
    if missing and record.examples > record.refute_only and theorem.kind == "upper":
        gaps.append(f"no {' or '.join(a.replace('_', '/') for a in missing)} pair was compared "
                    f"(adjacency {theorem.setting.adjacency} claimed)")
    return "; ".join(gaps) if gaps else None


def _constant_witness(record: Record, lower: bool) -> Witness | None:
    return record.least if lower else record.worst


def _replay(theorem: Theorem, record: Record) -> None:
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
        params = _parameters(theorem, instance, example, at)
        c = _compare(theorem, instance, params, record)
        if c is None:
            continue
        witness = _witness(instance, theorem, c, params)
        record.families.add(instance.family)
        record.note(_ratio(theorem, c), witness, cells(theorem, refs.instance_params(instance, example), at))
        record.file(theorem, instance)
        margin = None if getattr(theorem, "up_to_constant", False) else violation_margin(theorem, c, params)
        if margin is not None:
            record.violation(witness, margin)
            return


def _ratio(theorem: Theorem, c: refs.Comparison) -> float:
    """exact/bound; NaN (left out of the tightness summary) when both lie below the notion's resolution."""
    resolution = theorem.notion_record.resolution
    if resolution > 0 and max(c.exact, c.bound) < resolution:
        return float("nan")
    return c.ratio


def _relation(theorem: Theorem) -> str:
    return {"upper": "exact <= bound", "lower": "exact >= bound", "exact": "exact = bound",
            "approximation": "approximation"}[theorem.kind]


def _claimed_families(theorem: Theorem, kinds: tuple[str, ...] = ("exact_on", "witness")) -> set[str]:
    return {str(c.value) for c in theorem.claims if c.kind in kinds}


def _tightness(record: Record) -> Obligation:
    if not record.ratios:
        return Obligation("tightness", "inconclusive", "no instance compared")
    ratios = np.asarray(record.ratios, dtype=float)
    finite = ratios[np.isfinite(ratios)]
    worst = float(finite.max()) if finite.size else float("nan")
    return Obligation("tightness", "passed",
                      f"largest exact/bound {worst:.4g} over {ratios.size} comparisons",
                      data=Tightness(max_ratio=worst, median_ratio=float(np.median(finite)) if finite.size else None,
                                     worst=record.worst))


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
            point = _cap(family, {**point, **{k: float(v) for k, v in subs.items()}})
            params = {p: point[p] for p in theorem.parameters}
            try:
                instance = refs.build(family, point, theorem)
            except InputError:
                continue
            if (refs.why_not_applicable(theorem, instance) is not None or instance.run.tight is False
                    or refute_only(theorem, instance) is not None):
                continue  # the family's own flag: outside the range where it attains the bound
            at = params.get(theorem.notion_record.parameter) if theorem.notion_record.parameter else None
            own = _parameters(theorem, instance, point, at)
            if not admissible(theorem, own):
                continue
            c = _compare(theorem, instance, own, record)
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
