"""The smallest noise meeting a privacy target under the best valid bound (``verify calibrate``).

For every applicable theorem the verifier has verified, the noise ``sigma`` is found by a bracketing
root-finder on ``log sigma`` (:func:`smallest_sigma`) that only ever moves its upper end to a sigma whose
bound meets the target: the returned sigma never overshoots.  It stops when the bound there is within
``rtol`` of the target, ``target*(1 - rtol) <= value(sigma) <= target``, so re-accounting the run at the
returned sigma gives a guarantee that meets the target and is within the stated tolerance of it.  The
answer is the smallest sigma over the verified theorems; the composition baseline's sigma is reported too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping

import numpy as np

from verify import validate
from verify.account.accountant import (
    USED,
    as_run,
    classify,
    eligible,
    guarantee_eps,
    guarantee_mu,
    is_composition,
    _delta,
    _finite,
    _records,
)
from verify.account.applicability import Applicability, applicability
from verify.account.composition import PHASE_THEOREMS
from verify.account.run import Run, RunError
from verify.account.running import Accountant, Answer
from verify.account.verdicts import POLICY, verdict_source
from verify.errors import InputError
from verify.theorem import Theorem
from verify.privacy.rdp import rdp_to_dp_improved, sampled_gaussian_rdp
from verify.vocabulary import noise_multiplier

#: default relative tolerance on the target: target*(1 - RTOL) <= value(sigma) <= target
RTOL = 1e-4
#: the search range of sigma, relative to the natural scale Delta/b (per-step mu = 1)
SIGMA_RANGE = (1e-8, 1e8)


class CalibrationError(InputError):
    """No sigma meets the target, or every sigma down to the search floor does (exit status 2)."""


@dataclass(frozen=True)
class Target:
    """A privacy target: ``(eps, delta)``-DP or ``mu``-GDP."""

    eps: float | None = None
    delta: float | None = None
    mu: float | None = None

    def __post_init__(self) -> None:
        if self.mu is not None:
            if self.eps is not None or self.delta is not None:
                raise InputError("target: give either (eps, delta) or mu, not both", "mu")
            validate.positive("mu", self.mu, "target")
            return
        if self.eps is None or self.delta is None:
            raise InputError("target: give eps and delta, or mu", "eps" if self.eps is None else "delta")
        validate.positive("eps", self.eps, "target")
        _delta(self.delta)

    @property
    def value(self) -> float:
        return self.mu if self.mu is not None else self.eps

    @property
    def parameter(self) -> str:
        """The name of the target's value (``mu`` or ``eps``), for error messages."""
        return "mu" if self.mu is not None else "eps"

    @property
    def notion(self) -> str:
        return "mu" if self.mu is not None else f"eps at delta={self.delta:g}"

    def measure(self, theorem: Theorem, params: Mapping[str, float]) -> float:
        """The theorem's guarantee at ``params`` in the target's notion (``inf`` when it has no such reading)."""
        if self.mu is not None:
            mu = guarantee_mu(theorem, params)
            return math.inf if mu is None else mu
        return guarantee_eps(theorem, params, self.delta)

    def to_json(self) -> dict:
        return {"eps": self.eps, "delta": self.delta, "mu": self.mu}


@dataclass
class Root:
    """The result of :func:`smallest_sigma`."""

    sigma: float | None  # None: the target is out of reach in the search range
    value: float | None  # the bound at sigma (<= target)
    evaluations: int
    within_tolerance: bool
    note: str = ""
    #: the target is met at the bottom of the search range (it constrains nothing there)
    at_floor: bool = False


def smallest_sigma(value: Callable[[float], float], target: float, scale: float = 1.0, *, rtol: float = RTOL,
                   sigma_range: tuple[float, float] = SIGMA_RANGE, start: float | None = None,
                   accept: Callable[[float], bool] | None = None) -> Root:
    """Smallest sigma (up to ``rtol``) with ``value(sigma) <= target``, for a non-increasing ``value``.

    Bracketing on ``log sigma`` from ``start`` (default ``scale``) by growing factors, then log-log secant
    steps safeguarded by bisection.  Invariant: ``value(hi) <= target < value(lo)``; the answer is
    always ``hi``, a point where the target is met (never overshoots).  Stops once
    ``value(hi) >= target*(1 - rtol)``, or when the bracket is narrower than 1e-12 relatively (a jump in
    ``value``; then ``within_tolerance`` is False).  ``value`` may return ``inf`` where it has no valid
    reading (counted as not meeting the target).  The search range is ``scale * sigma_range``.
    ``accept(sigma)``, when given, replaces the stopping test ``value(sigma) >= target*(1 - rtol)`` (it is
    only asked at points that meet the target).
    """
    rtol = validate.probability("rtol", rtol, "smallest_sigma", open_hi=True)
    target = validate.positive("target", target, "smallest_sigma")
    lo_limit, hi_limit = scale * sigma_range[0], scale * sigma_range[1]
    calls = 0

    def f(s: float) -> float:
        nonlocal calls
        calls += 1
        v = value(s)
        return v if (v == v) else math.inf  # NaN never meets a target

    window = target * (1 - rtol)

    def close(s: float, fs: float) -> bool:  # asked only where the target is met
        return accept(s) if accept is not None else fs >= window

    s = scale if start is None else start
    fs = f(s)
    if fs <= target and close(s, fs):
        return Root(s, fs, calls, True)
    # bracketing steps grow 1.25, 1.56, 2.44, 4, 4, ...: the start is often close (another bound's answer)
    factor = 1.25
    if fs <= target:
        hi, f_hi = s, fs
        lo = s / factor
        f_lo = f(lo)
        while f_lo <= target:
            hi, f_hi = lo, f_lo
            if close(hi, f_hi):
                return Root(hi, f_hi, calls, True)
            if lo < lo_limit:
                return Root(hi, f_hi, calls, False, f"the target is met down to sigma={hi:.3g} (search floor)",
                            at_floor=True)
            factor = min(factor * factor, 4.0)
            lo /= factor
            f_lo = f(lo)
    else:
        lo, f_lo = s, fs
        hi = s * factor
        f_hi = f(hi)
        while f_hi > target:
            lo, f_lo = hi, f_hi
            if hi > hi_limit:
                return Root(None, None, calls, False, f"the target is not met at any sigma up to {hi:.3g}")
            factor = min(factor * factor, 4.0)
            hi *= factor
            f_hi = f(hi)
    last_moved = ""
    while not close(hi, f_hi):
        if hi / lo - 1 < 1e-12:
            return Root(hi, f_hi, calls, False, "the bound jumps across the target at this sigma")
        # secant steps aim inside the acceptance window; after two moves of the same end, bisect
        # (the Illinois safeguard against a secant that keeps landing on one side)
        mid = _next_point(lo, f_lo, hi, f_hi, target * (1 - rtol / 2), bisect=last_moved == "repeat")
        f_mid = f(mid)
        moved = "hi" if f_mid <= target else "lo"
        last_moved = "repeat" if last_moved.startswith(moved) else moved
        if moved == "hi":
            hi, f_hi = mid, f_mid
        else:
            lo, f_lo = mid, f_mid
    return Root(hi, f_hi, calls, True)


def _next_point(lo: float, f_lo: float, hi: float, f_hi: float, aim: float, bisect: bool = False) -> float:
    """The geometric midpoint, or a log-log secant step towards ``aim`` (inside the acceptance window) kept
    at least 1% of the bracket away from its ends (bounds behave like powers of sigma)."""
    a, b = math.log(lo), math.log(hi)
    guess = 0.5 * (a + b)
    if not bisect and math.isfinite(f_lo) and f_lo > 0 and f_hi > 0:
        ya, yb = math.log(f_lo), math.log(f_hi)
        if ya > yb:
            guess = a + (ya - math.log(aim)) * (b - a) / (ya - yb)
            guess = min(max(guess, a + 0.01 * (b - a)), b - 0.01 * (b - a))
    return math.exp(guess)


@dataclass
class SigmaRow:
    """The sigma one applicable theorem needs for the target."""

    id: str
    title: str
    verdict: str
    status: str
    composition: bool
    sigma: float | None = None
    value: float | None = None
    evaluations: int = 0
    within_tolerance: bool = False
    note: str = ""
    solved: bool = False
    at_floor: bool = False  # the target is met down to the search floor (see Root.at_floor)
    #: when not solved: a sigma at which it was shown to miss the target (it needs more noise)
    needs_more_than: float | None = None

    def to_json(self) -> dict:
        return {"id": self.id, "title": self.title, "verdict": self.verdict, "status": self.status,
                "composition": self.composition, "sigma": _finite(self.sigma), "value": _finite(self.value),
                "evaluations": self.evaluations, "within_tolerance": self.within_tolerance,
                "needs_more_than": self.needs_more_than, "note": self.note}


@dataclass
class Calibration:
    """What ``verify calibrate`` reports (``to_json`` is the ``--json`` payload)."""

    run: Run
    target: Target
    rtol: float
    verdicts: str
    include_unverified: bool
    rows: list[SigmaRow]
    not_applicable: list[Applicability]
    best: SigmaRow
    composition: SigmaRow | None
    notes: list[str] = field(default_factory=list)

    @property
    def sigma(self) -> float:
        """The smallest sigma meeting the target under the best valid bound."""
        return self.best.sigma

    @property
    def z(self) -> float | None:
        """The DP-SGD noise multiplier for that sigma (``sigma*b/Cclip``), when a clipping norm is known."""
        return None if self.run.Cclip is None else noise_multiplier(self.sigma, self.run.b, self.run.Cclip)

    @property
    def calibrated_run(self) -> Run:
        return self.run.with_sigma(self.sigma)

    def to_json(self) -> dict:
        return {
            "run": self.run.to_json(), "target": self.target.to_json(), "rtol": self.rtol,
            "tolerance": (f"{self.target.notion} in [target*(1-{self.rtol:g}), target]" if self.best.within_tolerance
                          else f"{self.target.notion} <= target, not within rtol {self.rtol:g}: {self.best.note}"),
            "verdict_source": self.verdicts, "include_unverified": self.include_unverified,
            "verdict_policy": POLICY,
            "sigma": self.sigma, "z": self.z, "best": self.best.to_json(),
            "composition": None if self.composition is None else self.composition.to_json(),
            "sigma_ratio": (None if self.composition is None or self.composition.sigma is None
                            else self.composition.sigma / self.sigma),
            "theorems": [r.to_json() for r in self.rows],
            "not_applicable": [{"id": a.theorem.id, "reason": a.reason} for a in self.not_applicable],
            "notes": self.notes,
        }


def calibrate(run: Run | Mapping[str, object] | str | None = None, *, eps: float | None = None,
              delta: float | None = None, mu: float | None = None, rtol: float = RTOL,
              theorems: Iterable[Theorem] | None = None, verdicts: Mapping[str, str] | str | None = None,
              include_unverified: bool = False, **fields) -> Calibration:
    """Smallest sigma whose best valid bound meets the target ``(eps, delta)`` or ``mu``.

    ``run`` describes the run without its noise (as for :func:`verify.account.account`).  Raises
    :class:`CalibrationError` when no verified applicable theorem reaches the target at any sigma in
    ``SIGMA_RANGE`` times ``Delta/b``, and :class:`RunError` for a bad description (both :class:`~verify.errors.InputError`).
    """
    target = Target(eps=_opt(eps, "eps"), delta=_opt(delta, "delta"), mu=_opt(mu, "mu"))
    rtol = validate.probability("rtol", rtol, open_hi=True)
    base = as_run(run, fields, require_sigma=False)
    if base.sigma is not None:
        raise RunError("calibrate solves for sigma: drop sigma (or z) from the run description", "sigma")
    scale = base.Delta / base.b if base.Delta is not None else 1.0
    probe = base.with_sigma(scale)
    records = _records(theorems)
    applicable, not_applicable = classify(probe, records)
    source = verdict_source([a.theorem for a in applicable], verdicts)

    rows, solvable = [], []
    for a in applicable:
        t = a.theorem
        verdict = source.of(t.id)
        row = SigmaRow(t.id, t.title, verdict, eligible(t, verdict, include_unverified), is_composition(t))
        rows.append(row)
        if row.status != USED:
            continue
        if not ({"sigma", "z"} & set(t.parameters)):
            row.note = "does not depend on sigma"
            continue
        if target.mu is not None and t.notion_record.to_mu is None:
            row.note = f"no mu reading ({t.notion} guarantee)"
            continue
        solvable.append((row, _Measure(t, base, target)))

    hint = _composition_hint(base, target, rtol, source, include_unverified) if solvable else None
    best = _solve_smallest(solvable, target, scale, rtol, hint)
    if best is None:
        used = [r for r in rows if r.status == USED]
        why = ("no verified theorem applies to this run" if not used else
               f"no sigma up to {scale * SIGMA_RANGE[1]:.3g} meets {target.notion} <= {target.value:g} "
               f"under any of the {len(used)} verified applicable theorem(s)")
        raise CalibrationError(f"target unreachable: {why}", target.parameter)
    if best.at_floor:
        # every sigma down to the floor meets it: no tolerance can be stated, and no noise level follows
        raise CalibrationError(f"target {target.notion} <= {target.value:g} is met by {best.id} at every sigma "
                               f"down to {best.sigma:.3g} (the search floor, {SIGMA_RANGE[0]:g} x Delta/b): it "
                               f"constrains nothing; give a smaller target", target.parameter)
    best.status = "best"
    composition = _solve_smallest([(r, f) for r, f in solvable if r.composition], target, scale, rtol, hint)
    notes = [] if best.within_tolerance else [f"{best.id}: {best.note}"]
    return Calibration(base, target, rtol, source.origin, include_unverified, rows, not_applicable, best,
                       composition, notes)


def _composition_hint(base: Run, target: Target, rtol: float, source, include_unverified: bool) -> float | None:
    """The sigma at which the run's PLD composition meets an (eps, delta) target, by the fast schedule
    calibration (:func:`calibrate_schedule`): where the search starts (None when no composition theorem
    covers the run).  Only a starting point: every answer is still checked on the theorems themselves."""
    if (target.mu is not None or base.Delta is None or (base.batches, base.adjacency) not in PHASE_THEOREMS):
        return None
    q = 1.0 if base.batches == "full" else base.b / base.n
    # units with Cclip = 1: noise std z = b*sigma on the summed gradient, sensitivity Delta
    acc = Accountant(adjacency=base.adjacency, verdicts=dict(source.verdicts), Delta=base.Delta,
                     include_unverified=include_unverified)
    acc.step(noise_multiplier=1.0, sample_rate=q, batches=base.batches, steps=base.T)
    if acc.composition_eps(target.delta) == math.inf:
        return None
    try:
        return calibrate_schedule(acc, eps=target.eps, delta=target.delta, rtol=rtol).factor / base.b
    except InputError:
        return None


def _solve_smallest(group: list[tuple[SigmaRow, "_Measure"]], target: Target, scale: float,
                    rtol: float, hint: float | None = None) -> SigmaRow | None:
    """The row of ``group`` needing the least sigma, solving as few theorems as possible.

    Cheap theorems are solved first (closed forms, most private at ``sigma = scale`` first; then bounds
    through numeric operators; f-DP curves last).  Once some theorem meets the target at ``s*``, a theorem
    that misses the target at ``s*`` needs more noise than ``s*`` (bounds are non-increasing in sigma) and
    costs one evaluation; one that meets it is solved downwards from ``s*``.
    """
    best: SigmaRow | None = None
    for row, measure in sorted(group, key=lambda g: (*g[1].order(scale), g[0].id)):
        if not row.solved:
            if best is not None and not measure.meets(best.sigma):
                row.note = f"needs more noise than sigma={best.sigma:.6g} (not solved further)"
                row.needs_more_than = best.sigma
                row.evaluations = measure.calls
                continue
            root = measure.solve(scale, rtol, hint if best is None else best.sigma)
            row.sigma, row.value, row.within_tolerance, row.note = (root.sigma, root.value, root.within_tolerance,
                                                                   root.note)
            row.at_floor = root.at_floor
            row.evaluations, row.solved = measure.calls, True
        if row.sigma is not None and (best is None or (row.sigma, row.id) < (best.sigma, best.id)):
            best = row
    return best


class _Measure:
    """sigma -> the theorem's guarantee for the run at that sigma (``inf`` where it does not apply),
    memoised: the ranking, the pruning and the root-finder often ask for the same sigma.

    For an f-DP theorem and an (eps, delta) target, meeting the target is ``delta(eps_target) <= delta``:
    one evaluation of the tradeoff curve instead of the ~50 that inverting it for eps takes.  The root is
    first found on that scale, then confirmed (and if needed refined) on the eps scale, so the tolerance
    stated for eps holds.
    """

    def __init__(self, theorem: Theorem, base: Run, target: Target) -> None:
        self.theorem, self.base, self.target = theorem, base, target
        self.cache: dict[float, float] = {}
        self.delta_cache: dict[tuple[float, float], float] = {}
        self.by_delta = _is_delta_curve(theorem) and target.mu is None

    @property
    def calls(self) -> int:
        return len(self.cache) + len(self.delta_cache)

    def _params(self, sigma: float) -> dict[str, float] | None:
        a = applicability(self.theorem, self.base.with_sigma(sigma))
        return a.params if a.applies else None

    def __call__(self, sigma: float) -> float:
        if sigma not in self.cache:
            params = self._params(sigma)
            self.cache[sigma] = math.inf if params is None else self.target.measure(self.theorem, params)
        return self.cache[sigma]

    def delta_at(self, sigma: float, eps: float | None = None) -> float:
        """delta(eps) of the theorem's tradeoff curve at this sigma (default eps: the target's; 1 where the
        theorem does not apply)."""
        eps = self.target.eps if eps is None else eps
        key = (sigma, eps)
        if key not in self.delta_cache:
            params = self._params(sigma)
            self.delta_cache[key] = 1.0 if params is None else float(self.theorem.evaluate(**params, eps=eps))
        return self.delta_cache[key]

    def meets(self, sigma: float) -> bool:
        if self.by_delta:
            return self.delta_at(sigma) <= self.target.delta
        return self(sigma) <= self.target.value

    def order(self, scale: float) -> tuple[int, float]:
        """Search order: (cost class, value at ``scale`` for closed forms, where evaluating is free)."""
        t = self.theorem
        if t.closed_form:
            return 0, self(scale)
        return (2 if _is_delta_curve(t) else 1), 0.0

    def solve(self, scale: float, rtol: float, start: float | None) -> Root:
        target = self.target
        if self.by_delta:
            # eps(delta) lies in [eps(1 - rtol), eps]  iff  delta(eps) <= delta <= delta(eps (1 - rtol))
            lower_eps = target.eps * (1 - rtol)
            root = smallest_sigma(self.delta_at, target.delta, scale, rtol=rtol, start=start,
                                  accept=lambda s: self.delta_at(s, lower_eps) >= target.delta)
            if root.sigma is None:
                return root
            value = self(root.sigma)
            if value <= target.value:
                return Root(root.sigma, value, self.calls, root.within_tolerance and value >= lower_eps, root.note)
            start = root.sigma  # the eps inversion's rounding: refine on the eps scale
        return smallest_sigma(self, target.value, scale, rtol=rtol, start=start)


# ---------------------------------------------------------------------------------------------------
# schedules: one noise scale for every phase (a schedule's phases keep their ratios of sigma)
# ---------------------------------------------------------------------------------------------------

#: PLD accuracies at which the curve is read before the accountant's own: the noise is solved at the first; the
#: two together predict the grid error left at a finer accuracy (:func:`_extrapolated`)
COARSE_ACCURACIES = (1e-3, 5e-4)
#: relative tolerance of the first solve at the coarse accuracy (where the grid error is predicted)
MIDDLE_RTOL = 1e-2
#: integer Rényi orders of the RDP model (the exact binomial series of sampled_gaussian_rdp: fast)
MODEL_ORDERS = np.array([2, 3, 4, 5, 6, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 64, 96, 128, 256], dtype=float)


@dataclass
class ScheduleCalibration:
    """The noise scale ``factor`` (every phase's noise multiplier times it) meeting ``eps`` at ``delta``."""

    factor: float
    #: the composition's epsilon at the calibrated schedule (pessimistic PLD at the accountant's accuracy: the
    #: accountant's own reading)
    eps: float
    accountant: Accountant
    target: Target
    rtol: float
    #: PLD compositions at the accountant's accuracy (the expensive ones), and at the coarse accuracies
    fine_evaluations: int
    coarse_evaluations: int
    within_tolerance: bool
    note: str = ""

    @property
    def answer(self) -> Answer:
        """The accountant's full answer at the calibrated schedule (with its bracket: costs a composition)."""
        return self.accountant.epsilon(self.target.delta)

    @property
    def noise_multipliers(self) -> list[float]:
        return [p.noise_multiplier for p in self.accountant.phases]

    def to_json(self) -> dict:
        return {"factor": self.factor, "noise_multipliers": self.noise_multipliers, "target": self.target.to_json(),
                "rtol": self.rtol, "eps": self.eps, "answer": self.answer.to_json(),
                "schedule": self.accountant.to_json(),
                "fine_evaluations": self.fine_evaluations, "coarse_evaluations": self.coarse_evaluations,
                "within_tolerance": self.within_tolerance, "note": self.note}


def calibrate_schedule(accountant: Accountant, *, eps: float, delta: float, rtol: float = RTOL) -> ScheduleCalibration:
    """Smallest factor (up to ``rtol``) such that the schedule with every noise multiplier times the factor
    meets ``(eps, delta)`` under its PLD composition (the accountant's composition theorems).

    Never overshoots: a factor is accepted only where the pessimistic PLD at the accountant's accuracy
    meets the target, ``eps*(1 - rtol) <= eps(factor) <= eps``.  Work is reused coarse to fine: the PLD at
    accuracy 1e-3 is solved to 1e-2 by log-log secant steps from the root of the RDP composition (closed form,
    milliseconds), whose slope gives the first step (:func:`_secant_root`); there the curve at 5e-4 gives the
    grid error ``k h^2`` of the pessimistic PLD (:func:`_extrapolated`), which predicts the accountant's curve
    as the 1e-3 curve times a near-constant factor.  The 1e-3 curve is solved for the target over that factor
    (its points reused), so that the accountant's first evaluation usually lands in the window; a miss
    corrects the factor to the one read there (:func:`_shifted_solve`).  Every curve is the accountant's own
    (:meth:`Accountant.composition_eps`: dp_accounting's pessimistic PLD, composed once per noise scale and
    accuracy and kept in :data:`verify.privacy.pld.CACHE`), so the calibrated schedule reads exactly the eps it
    was solved for.  An accountant at accuracy 5e-4 or coarser is solved directly, by the same secant steps.
    """
    target = Target(eps=_opt(eps, "eps"), delta=_opt(delta, "delta"))
    rtol = validate.probability("rtol", rtol, open_hi=True)
    if not accountant.phases:
        raise InputError("the schedule has no steps", "steps")
    model = _memo(lambda c: _rdp_model_eps(accountant, c, target.delta))

    def curve(h: float) -> _memo:
        level = accountant.scaled(1.0, accuracy=h)
        return _memo(lambda c: level.scaled(c).composition_eps(target.delta))

    fine = curve(accountant.accuracy)
    coarse: list[_memo] = []
    if accountant.accuracy < COARSE_ACCURACIES[-1]:
        coarse = [curve(h) for h in COARSE_ACCURACIES]
        middle = coarse[0]
        c = _secant_root(middle, model, target.eps, max(rtol, MIDDLE_RTOL))
        if c is None:  # eight secant steps found no point: the bracketing root-finder (or: out of reach)
            found = smallest_sigma(middle, target.eps, rtol=max(rtol, MIDDLE_RTOL))
            if found.sigma is None:
                raise CalibrationError(f"target unreachable: no noise scale up to {found.note}", "eps")
            c = found.sigma
        at = [f(c) for f in coarse]
        shift = _extrapolated(COARSE_ACCURACIES, at, accountant.accuracy) / at[0] if 0 < at[0] < math.inf else 1.0

        def solve(aim: float, start: float | None) -> float | None:
            return _secant_root(middle, model, aim, rtol / 10, start)
    else:
        shift, c, middle = 1.0, None, fine

        def solve(aim: float, start: float | None) -> float | None:
            return _secant_root(fine, model, aim, rtol / 2, start)

    root = _shifted_solve(fine, middle, solve, model, target.eps, rtol, shift if 0 < shift < math.inf else 1.0, c)
    if root.sigma is None:
        raise CalibrationError(f"target unreachable: no noise scale up to {root.note}", "eps")
    calibrated = accountant.scaled(root.sigma)
    return ScheduleCalibration(root.sigma, root.value, calibrated, target, rtol, len(fine.cache),
                               sum(len(f.cache) for f in coarse), root.within_tolerance, root.note)


def _extrapolated(hs: tuple[float, float], values: list[float], h: float) -> float:
    """The pessimistic PLD's eps at accuracy ``h`` predicted from its values at the two coarser ``hs``.

    The connect-the-dots PLD over-states eps by about ``k h^2`` (second order: Richardson's extrapolation,
    ``k`` from the two values).  Measured at 60 settings (q from 1e-3 to 0.05, 100 to 10,000 steps, eps from 0.5
    to 8 at delta 1e-5; 1e-3 and 5e-4 to 1e-4): within 1e-5 relatively of the value at 1e-4 at 48 of them,
    2e-4 at most, where many steps of little privacy loss each make the steps' losses comparable to the grid
    (there a composition is cheap).  A power fitted to three accuracies (2e-3 too) did worse: 8e-4 at most.
    Only a starting point: the accountant's curve itself is evaluated there.
    """
    (h1, h2), (a, b) = hs, values
    if not (math.isfinite(a) and math.isfinite(b)):
        return b
    return b - (a - b) * (h2**2 - h**2) / (h1**2 - h2**2)


class _memo:
    """A memoised function of one float (the solver and the model ask for the same points)."""

    def __init__(self, f: Callable[[float], float]) -> None:
        self.f, self.cache = f, {}

    def __call__(self, c: float) -> float:
        if c not in self.cache:
            self.cache[c] = self.f(c)
        return self.cache[c]


def _secant_root(f: _memo, model: Callable[[float], float], aim: float, tol: float,
                 start: float | None = None) -> float | None:
    """A point ``c`` with ``|log f(c) - log aim| <= tol`` for a non-increasing ``f`` (bounds behave like powers of
    the noise), by log-log secant steps; the caller reads ``f`` there (it may not have been read, see below).

    The first point is ``start`` (default: the cheap ``model``'s root).  Each step is a secant step through the
    last point and the one of ``f`` known nearest to it (every point ``f`` was ever asked, kept in its memo: the
    work of an earlier solve is reused), or, with no other point known (or a secant that rises), a Newton step
    with the model's slope.  The secant's error is about the product of its two points' errors (superlinear
    convergence), so when that product is below ``tol`` the step's point is returned without reading ``f``
    there.  Steps stay strictly inside the bracket ``f(lo) > aim > f(hi)`` once one is known (:func:`_within`).
    After eight points, the one nearest to the aim (None when none had a finite positive value).
    """
    lo = hi = None
    c = start if start is not None else smallest_sigma(model, aim, rtol=max(tol / 10, 1e-9)).sigma
    for _ in range(8):
        if c is None:
            break
        value = f(c)
        error = abs(math.log(value / aim)) if 0 < value < math.inf else math.inf
        if error <= tol:
            return c
        if value > aim:
            lo = c if lo is None else max(lo, c)
        else:
            hi = c if hi is None else min(hi, c)
        slope, partner = math.nan, math.inf
        if error < math.inf:
            others = [x for x, v in f.cache.items() if x != c and 0 < v < math.inf]
            if others:
                x = min(others, key=lambda x: abs(math.log(x / c)))
                slope, partner = math.log(f(x) / value) / math.log(x / c), abs(math.log(f(x) / aim))
            if not slope < 0:  # no other point, or rounding makes the curve rise there
                slope, partner = _log_ratio(model(c * 1.01), model(c)) / math.log(1.01), math.inf
        x = math.log(c) + math.log(aim / value) / slope if slope < 0 else math.nan  # NaN: no usable slope
        inside = lo is None or hi is None or math.log(lo) < x < math.log(hi)
        if inside and error * partner <= tol:
            return math.exp(x)
        if lo is not None and hi is not None:
            x = _within(x, lo, hi)
        elif not math.isfinite(x):
            x = math.log(c * 4.0 if value > aim else c / 4.0)
        c = math.exp(x)
    known = [(abs(math.log(v / aim)), x) for x, v in f.cache.items() if 0 < v < math.inf]
    return min(known)[1] if known else None


def _within(x: float, lo: float, hi: float) -> float:
    """``x = log c`` kept strictly inside the bracket ``[log lo, log hi]`` (1% of its width from either end), or
    the bracket's middle when ``x`` is outside it or NaN (a bisection)."""
    a, b = math.log(lo), math.log(hi)
    return min(max(x, a + 0.01 * (b - a)), b - 0.01 * (b - a)) if a < x < b else 0.5 * (a + b)


def _log_ratio(a: float, b: float) -> float:
    """``log(a / b)``; NaN unless both are finite and positive."""
    return math.log(a / b) if 0 < a < math.inf and 0 < b < math.inf else math.nan


def _shifted_solve(fine: _memo, coarse: _memo, solve: Callable[[float, float | None], float | None],
                   model: Callable[[float], float], target: float, rtol: float, shift: float,
                   start: float | None) -> Root:
    """Root of ``fine`` in the window ``[target(1 - rtol), target]``, its first points solved on the cheaper
    ``coarse``.

    ``fine`` is taken to be ``coarse`` times ``shift`` near the root: a point is where ``coarse`` meets the aim
    (the window's middle) over ``shift`` (``solve``), then ``shift`` is corrected to the ratio read there, once.
    Where that ratio changes too fast with the noise for two such points to land (a grid as coarse as the
    target), the secant steps continue on ``fine`` itself (:func:`_secant_root`, its points reused), and
    :func:`smallest_sigma` finishes from the best point that meets the target: only such points are ever
    returned.  ``coarse`` may be ``fine`` itself (``shift`` 1: solved directly).
    """
    aim = target * (1 - rtol / 2)
    lo = hi = None  # lo: misses the target; hi: meets it
    c = start
    for attempt in range(3):
        guess = solve(aim / shift, c) if attempt < 2 else _secant_root(fine, model, aim, rtol / 2, c)
        if lo is not None and hi is not None:
            guess = math.exp(_within(math.log(guess) if guess is not None else math.nan, lo, hi))
        if guess is None:
            break
        c = guess
        value = fine(c)
        if value <= target:
            if value >= target * (1 - rtol):
                return Root(c, value, 0, True)
            hi = c if hi is None else min(hi, c)
        else:
            lo = c if lo is None else max(lo, c)
        base = coarse(c) if attempt == 0 else math.nan
        if 0 < value < math.inf and 0 < base < math.inf:
            shift = value / base
    return smallest_sigma(fine, target, rtol=rtol, start=hi if hi is not None else c)


def _rdp_model_eps(accountant: Accountant, factor: float, delta: float) -> float:
    """eps(delta) of the schedule's Poisson-subsampled Gaussian RDP composition (Mironov 2017; improved
    conversion, Balle et al. 2020): the calibration's cheap model (any batching is modelled as Poisson)."""
    ratio = accountant.sensitivity_ratio
    total = np.zeros(MODEL_ORDERS.shape)
    for p in accountant.phases:
        total = total + np.asarray(sampled_gaussian_rdp(p.sample_rate, p.noise_multiplier * factor / ratio,
                                                        MODEL_ORDERS, steps=p.steps), dtype=float)
    return float(rdp_to_dp_improved(MODEL_ORDERS, total, delta))


def _is_delta_curve(theorem: Theorem) -> bool:
    """Whether the guarantee is a delta(eps) curve (its value at ``eps`` is delta: f-DP tradeoffs)."""
    return theorem.notion_record.inverted


def _opt(x: float | None, name: str) -> float | None:
    return None if x is None else validate.number(name, x, "target")


__all__ = ["Calibration", "CalibrationError", "RTOL", "Root", "SIGMA_RANGE", "ScheduleCalibration", "SigmaRow",
           "Target", "calibrate", "calibrate_schedule", "smallest_sigma"]
