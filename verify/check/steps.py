"""The ``proof`` obligation: every step of a theorem's proof (:mod:`verify.proof`) decided in its readings.

A reading is decided at seeded points of the step's domain (its corners first), in 50-digit arithmetic where
its sides are closed forms; a probability of the algorithm by a seeded simulation and an exact binomial
interval.  A step is *as expected* when its corrected reading holds and its printed reading behaves as the
record says (fails: an erratum confirmed; holds but weaker: a loose step).  A step that is not as expected is
a finding of this tool: a proof step that fails and that no paper lists.  Such a failure does not make the
theorem's statement violated (the statement is judged against exact references); it makes the ``proof``
obligation fail, and the report lists it.
"""

from __future__ import annotations

import functools
import itertools
import math
import shlex
from typing import Any, Mapping

import mpmath
import numpy as np
import sympy as sp

from verify.check.evidence import ProofChecked, ReadingOutcome, StepOutcome
from verify.check.verdict import Obligation
from verify.errors import InputError
from verify.instances import FAMILIES
from verify.privacy.notions import effective_mu
from verify.proof import Exact, Reading, Step, symbols_of
from verify.simulate.audit import clopper_pearson_lower, clopper_pearson_upper
from verify.theorem import VOCABULARY, NumericOperator, Theorem, lambdify_modules

#: digits of the arithmetic that decides closed-form readings
DIGITS = 50
#: the corners of a step's domain tried first (at most)
CORNERS = 8
#: the confidence of a probability step's two-sided exact binomial interval
CONFIDENCE = 1 - 1e-6
#: the factor of the scaling check's re-parametrisation theta -> c theta
SCALE = 3.1


# ---------------------------------------------------------------------------------------------------
# points
# ---------------------------------------------------------------------------------------------------


def points(step: Step, seed: int, count: int) -> list[dict[str, float]]:
    """The points a step is decided at: its fixed values alone when it draws nothing; else the corners of its
    domain (at most :data:`CORNERS`), then ``count`` seeded draws (log-uniform over a range wider than a
    decade of positive values, uniform otherwise; integers rounded), each completed by the derived values."""
    if not step.domain:
        return [_complete(step, {})]
    count = count if step.draws is None else min(count, step.draws)
    names = list(step.domain)
    corners = [dict(zip(names, ends)) for ends in itertools.product(*(step.domain[k] for k in names))][:CORNERS]
    rng = np.random.default_rng(seed)
    drawn = []
    for _ in range(count):
        u = {}
        for k in names:
            low, high = step.domain[k]
            if low > 0 and high > 10 * low:
                u[k] = float(math.exp(rng.uniform(math.log(low), math.log(high))))
            else:
                u[k] = float(rng.uniform(low, high))
        drawn.append(u)
    out = []
    for u in corners + drawn:
        u = {k: float(round(v)) if _integer(step, k) else v for k, v in u.items()}
        point = _complete(step, u)
        if point not in out:
            out.append(point)
    return out


def _integer(step: Step, name: str) -> bool:
    return name in step.integers or (name in VOCABULARY and VOCABULARY[name].domain == "integer")


def _complete(step: Step, drawn: Mapping[str, float]) -> dict[str, float]:
    """``drawn`` with the step's fixed values and, in order, its derived ones."""
    point = {**{k: float(v) for k, v in step.fixed.items()}, **drawn}
    for name, expr in step.derived.items():
        point[name] = float(_value(expr, point, step))
    return point


# ---------------------------------------------------------------------------------------------------
# values
# ---------------------------------------------------------------------------------------------------


def _value(expr: Any, point: Mapping[str, float], step: Step) -> mpmath.mpf | None:
    """``expr`` at ``point`` (None where it is not a finite real number): 50 digits for a closed form, double
    precision where it holds a numeric operator, the reference's value for an :class:`Exact`."""
    if isinstance(expr, Exact):
        factor = _value(expr.times, point, step)
        return None if factor is None else _real(float(factor) * _exact(expr, point))
    if callable(expr) and not isinstance(expr, sp.Basic):
        return _real(expr(point))
    expr = sp.sympify(expr)
    symbols = symbols_of(step)
    subs = {symbols[k]: sp.Float(v, DIGITS) for k, v in point.items() if k in symbols}
    if expr.atoms(NumericOperator):
        args, function = _numeric(expr)
        with np.errstate(all="ignore"):
            return _real(function(*(point[a.name] for a in args)))
    try:
        value = expr.xreplace(subs).evalf(DIGITS)  # substituted first: a zero denominator is zoo, not a huge number
    except (ZeroDivisionError, OverflowError, ValueError, TypeError):
        return None
    if value.free_symbols or value.has(sp.zoo, sp.nan, sp.oo, -sp.oo) or not value.is_number:
        return None
    re, im = value.as_real_imag()
    if im != 0 and abs(im) > 1e-40 * max(1, abs(re)):
        return None
    return mpmath.mpf(str(re)) if re.is_finite else None


@functools.lru_cache(maxsize=64)
def _numeric(expr: sp.Expr):
    """(its symbols by name, the double-precision function) of an expression holding a numeric operator: made
    once, not at every point."""
    args = sorted(expr.free_symbols, key=lambda s: s.name)
    return args, sp.lambdify(args, expr, modules=lambdify_modules())


def _exact(reference: Exact, point: Mapping[str, float]) -> float:
    """The exact quantity of the instance the reference's family builds at ``point``."""
    keywords = {**reference.fixed, **{k: point[k] for k in reference.keywords}}
    keywords = {k: int(v) if isinstance(v, float) and v.is_integer() and k in ("n", "T", "b") else v
                for k, v in keywords.items()}
    return _exact_value(reference.family, tuple(sorted(keywords.items())), reference.quantity, reference.order,
                        reference.direction)


@functools.lru_cache(maxsize=64)
def _exact_value(family: str, keywords: tuple, quantity: str, order: float | None, direction: str) -> float:
    """One exact quantity (remembered: the two readings of a step often share a side)."""
    profile = FAMILIES.lookup(family).build(**dict(keywords)).profile()
    if quantity == "gdp":
        return effective_mu(profile)
    if direction != "max":
        return float(profile.renyi(order, direction))
    return float(max(profile.renyi(order), profile.renyi(order, "backward")))


def _real(value) -> mpmath.mpf | None:
    try:
        number = complex(value)
    except (TypeError, ValueError):
        return None
    if number.imag != 0 or not math.isfinite(number.real):
        return None
    return mpmath.mpf(number.real)


def _words(point: Mapping[str, float]) -> str:
    return ", ".join(f"{k}={v:.6g}" for k, v in point.items())


# ---------------------------------------------------------------------------------------------------
# deciding one reading
# ---------------------------------------------------------------------------------------------------


def decide(step: Step, reading: Reading, at: list[dict[str, float]], seed: int) -> ReadingOutcome:
    """Whether ``reading`` holds at every point of ``at``; the first point where it fails otherwise."""
    decider = {"relation": _relation, "value": _relation, "monotone": _monotone, "range": _range,
               "probability": _probability, "scaling": _scaling}[step.kind]
    for point in at:
        failure = decider(step, reading, point, seed)
        if failure is not None:
            detail, lhs, rhs = failure
            return ReadingOutcome(False, f"fails at {_words(point)}: {detail}" if point else f"fails: {detail}",
                                  point, _float(lhs), _float(rhs))
    last = at[-1] if at else {}
    lhs, rhs = _sides(step, reading, last)
    where = f"{len(at)} points" if len(at) > 1 else (_words(last) or "the proof's point")
    return ReadingOutcome(True, f"holds at {where}", last if len(at) == 1 else {}, _float(lhs), _float(rhs))


def _float(value) -> float | None:
    return None if value is None else float(value)


def _sides(step: Step, reading: Reading, point: Mapping[str, float]) -> tuple[Any, Any]:
    if step.kind in ("relation", "value"):
        return _value(reading.lhs, point, step), _value(reading.rhs, point, step)
    return None, None


def _relation(step: Step, reading: Reading, point: Mapping[str, float], seed: int):
    lhs, rhs = _sides(step, reading, point)
    if lhs is None or rhs is None:
        return ("a side is not a finite real number", lhs, rhs)
    if _holds(lhs, reading.relation, rhs, reading.tolerance, absolute=step.kind == "value"):
        return None
    return (f"{mpmath.nstr(lhs, 8)} {reading.relation} {mpmath.nstr(rhs, 8)} is false", lhs, rhs)


def _holds(lhs, relation: str, rhs, tolerance: float, absolute: bool = False) -> bool:
    slack = tolerance if absolute else tolerance * max(abs(lhs), abs(rhs), mpmath.mpf("1e-300"))
    if relation == "<=":
        return lhs <= rhs + slack
    if relation == ">=":
        return lhs >= rhs - slack
    return abs(lhs - rhs) <= slack


def _monotone(step: Step, reading: Reading, point: Mapping[str, float], seed: int):
    """The sign of the derivative in ``step.var``: symbolic where the expression is a closed form, else a
    central difference."""
    expr = sp.sympify(reading.lhs)
    var = symbols_of(step)[step.var]
    if not expr.atoms(NumericOperator):
        slope = _value(sp.diff(expr, var), point, step)
    else:
        h = 1e-6 * max(abs(point[step.var]), 1e-12)
        up = _value(expr, {**point, step.var: point[step.var] + h}, step)
        down = _value(expr, {**point, step.var: point[step.var] - h}, step)
        slope = None if up is None or down is None else (up - down) / (2 * h)
    if slope is None:
        return ("the derivative is not a finite real number", None, None)
    scale = abs(_value(expr, point, step) or 1) / max(abs(point[step.var]), 1e-300)
    tiny = mpmath.mpf(10) ** (-30) * scale
    ok = slope >= -tiny if reading.relation == "increasing" else slope <= tiny
    return None if ok else (f"d/d{step.var} = {mpmath.nstr(slope, 6)}: not {reading.relation}", slope, 0)


def _range(step: Step, reading: Reading, point: Mapping[str, float], seed: int):
    """``lhs`` finite and real for every integer ``var`` in [low, high] (the ends, and up to 6 between)."""
    low, high = _value(reading.low, point, step), _value(reading.high, point, step)
    if low is None or high is None:
        return ("the range's ends are not finite", low, high)
    low, high = int(mpmath.ceil(low)), int(mpmath.floor(high))
    values = sorted({low, high, *np.linspace(low, high, 8).round().astype(int).tolist()})
    for v in values:
        if _value(reading.lhs, {**point, step.var: float(v)}, step) is None:
            return (f"at {step.var}={v} (in [{low}, {high}]) the expression is not a finite real number", None, v)
    return None


def _probability(step: Step, reading: Reading, point: Mapping[str, float], seed: int):
    """The simulated frequency of the event against the probability ``rhs``: exact binomial interval."""
    p = _value(reading.rhs, point, step)
    hits = int(reading.lhs(np.random.default_rng(seed), point, step.runs))
    half = (1 + CONFIDENCE) / 2
    low = float(clopper_pearson_lower(hits, step.runs, half))
    high = float(clopper_pearson_upper(hits, step.runs, half))
    if p is not None and low <= p <= high:
        return None
    return (f"simulated {hits}/{step.runs} = {hits / step.runs:.6g} (interval [{low:.6g}, {high:.6g}] at "
            f"confidence {CONFIDENCE}) against {mpmath.nstr(p, 8) if p is not None else p}", hits / step.runs, p)


def _scaling(step: Step, reading: Reading, point: Mapping[str, float], seed: int):
    """Both sides pick up one factor under theta -> c theta (each symbol scaled by c**scale)."""
    scaled = {k: v * SCALE ** _scale(step, k) for k, v in point.items()}
    factors = []
    for side in (reading.lhs, reading.rhs):
        before, after = _value(side, point, step), _value(side, scaled, step)
        if before is None or after is None or before == 0:
            return ("a side is zero or not a finite real number", before, after)
        factors.append(after / before)
    if abs(factors[0] - factors[1]) <= 1e-12 * abs(factors[0]):  # the scaled point is in double precision
        return None
    return (f"under theta -> {SCALE} theta the left side picks up {mpmath.nstr(factors[0], 6)}, the right side "
            f"{mpmath.nstr(factors[1], 6)}: not a statement about the run", factors[0], factors[1])


def _scale(step: Step, name: str) -> int:
    if name in step.scales:
        return int(step.scales[name])
    return VOCABULARY[name].scale if name in VOCABULARY else 0


# ---------------------------------------------------------------------------------------------------
# the obligation
# ---------------------------------------------------------------------------------------------------


def check_step(theorem: Theorem, step: Step, seed: int = 0, count: int = 24) -> StepOutcome:
    """One step decided in both readings (the printed one at the same points); its replay line names the point
    where the printed reading fails."""
    corrected, printed, ratio = _readings(step, points(step, seed, count), seed)
    failing = printed if printed is not None and not printed.holds else None
    return StepOutcome(step.id, step.kind, step.where, step.expected, corrected, printed, ratio,
                       replay_line(theorem.target, step, failing.at if failing is not None else None))


def _readings(step: Step, at: list[dict[str, float]], seed: int):
    """(corrected, printed or None, a loose step's printed/corrected ratio or None), all decided at ``at``."""
    corrected = decide(step, step.corrected, at, seed)
    printed = None if step.printed is None else decide(step, step.printed, at, seed)
    return corrected, printed, (_looseness(step, at) if step.loose else None)


def _looseness(step: Step, at: list[dict[str, float]]) -> float | None:
    """A loose step: the smallest printed/corrected ratio of the sides that differ (the right sides of
    ``<=`` relations, the left of ``>=``)."""
    side = "rhs" if step.corrected.relation == "<=" else "lhs"
    ratios = []
    for point in at:
        a = _value(getattr(step.printed, side), point, step)
        b = _value(getattr(step.corrected, side), point, step)
        if a is not None and b is not None and b != 0:
            ratios.append(float(a / b))
    return min(ratios) if ratios else None


def replay_line(target: str, step: Step, at: Mapping[str, float] | None = None) -> str:
    """The ``verify eval`` line that decides ``step`` of the record ``target`` (an id, or ``FILE::ID``) (at
    ``at``: the point where its printed reading fails; the step's own points otherwise)."""
    words = "".join(f" {k}={v!r}" for k, v in (at or {}).items() if k in step.domain)
    return f"verify eval {shlex.quote(target)} --step {step.id}{words}"


def proof_obligation(theorem: Theorem, seed: int = 0, count: int = 24) -> Obligation | None:
    """The ``proof`` obligation of a theorem that records proof steps (None for one that records none)."""
    if not theorem.steps:
        return None
    outcomes = tuple(check_step(theorem, step, seed, count) for step in theorem.steps)
    confirmed = [o for o in outcomes if o.as_expected and o.expected in ("fails", "loose")]
    unexpected = [o for o in outcomes if not o.as_expected]
    parts = [f"{len(outcomes)} proof step{'s' if len(outcomes) > 1 else ''} decided"]
    if confirmed:
        parts.append(f"errata confirmed: {', '.join(o.step for o in confirmed)}")
    first = next((o for o in outcomes if o.printed is not None and not o.printed.holds), None)
    if first is not None:
        parts.append(f"first step that fails as printed: {first.step} ({first.where}): {first.printed.detail}")
    if unexpected:
        o = unexpected[0]
        parts.append(f"NOT as recorded: {', '.join(u.step for u in unexpected)}; {o.step}: "
                     + (o.corrected.detail if not o.corrected.holds else
                        (o.printed.detail if o.printed is not None else "")))
    return Obligation("proof", "failed" if unexpected else "passed", "; ".join(parts), ProofChecked(outcomes))


def replay(theorem: Theorem, step_id: str, values: Mapping[str, float], seed: int = 0) -> StepOutcome:
    """``verify eval ID --step STEP k=v ...``: the step decided at the given values of its domain (its own
    points where none is given)."""
    step = theorem.step(step_id)
    unknown = sorted(set(values) - set(step.domain))
    if unknown:
        raise InputError(f"step {step.id} draws {', '.join(step.domain) or 'nothing'}; {unknown[0]!r} is not one "
                         "of them", unknown[0])
    if values:
        missing = sorted(set(step.domain) - set(values))
        if missing:
            raise InputError(f"step {step.id}: give every drawn value ({', '.join(step.domain)}); missing "
                             f"{missing[0]}", missing[0])
        at = [_complete(step, {k: float(v) for k, v in values.items()})]
    else:
        at = points(step, seed, 24)
    corrected, printed, ratio = _readings(step, at, seed)
    return StepOutcome(step.id, step.kind, step.where, step.expected, corrected, printed, ratio,
                       replay_line(theorem.target, step, values or None))


__all__ = ["check_step", "decide", "points", "proof_obligation", "replay", "replay_line"]
