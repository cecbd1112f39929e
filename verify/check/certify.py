"""Certified violations and replayable evidence: a violation is reported with a replay line and certified numbers.

A bound is declared violated only with a *certified* margin: the gap between the exact value and the
bound must survive both stated errors,

* the bound's: a closed form is re-evaluated with 50 correct significant digits (sympy's adaptive evaluation,
  which raises its working precision through cancellations; mpmath where sympy cannot evaluate) at the very same
  parameters, so its own error is nil; a bound with numeric operators carries the operators' stated
  relative error (:data:`OPERATOR_RTOL` unless an operator states its own ``error``); a bound optimised
  over free parameters is evaluated in double precision (the grid optimum errs on the safe side: a grid
  minimum of an upper bound lies above the true infimum, so a value above it is above the infimum too);
* the exact value's: the comparison's ``tolerance`` (relative, :func:`verify.check.references.
  profile_tolerance`) and the notion's ``resolution`` (absolute).

:func:`violation_margin` is the one place that decides a violation.  :func:`replay` evaluates a theorem
on one instance of a family, as the engine does, and :func:`replay_line` writes the ``verify eval``
command line that does it again for a witness.
"""

from __future__ import annotations

import functools
import math
import shlex
import sys
from typing import Any, Mapping

import mpmath
import numpy as np
import sympy as sp
from sympy.core.evalf import PrecisionExhausted  # what a strict evalf raises

from verify.check import references as refs
from verify.check.evidence import Witness
from verify.errors import InputError
from verify.privacy.notions import exact_against
from verify.theorem import SYMBOLS, Theorem

#: significant digits of the high-precision re-evaluation of a closed-form bound
DIGITS = 50

#: relative error stated for a bound with numeric operators (privacy-loss distributions, quadratures,
#: series), unless an operator states its own ``error``: the floor of the discretised references
OPERATOR_RTOL = 1e-6

#: relative error allowed for a double-precision evaluation the high-precision one could not replace
FLOAT_RTOL = 1e-12


# ---------------------------------------------------------------------------------------------------
# certified violations
# ---------------------------------------------------------------------------------------------------


def violation_margin(theorem: Theorem, params: Mapping[str, float], comparison: refs.Comparison) -> float | None:
    """The certified relative margin (> 0) by which ``comparison`` violates ``theorem``, else None.

    Upper bounds are violated when exact > bound, lower bounds when exact < bound, exact values either
    way, and only by more than both stated errors (module docstring).  The margin is the gap left after
    subtracting them, relative to ``|bound|`` (or to the notion's resolution when the bound is 0):
    ``exact/bound - 1`` up to the errors for a positive upper bound.  ``params`` are the theorem's
    parameters the bound was evaluated at (the notion parameter included).
    """
    if theorem.kind not in ("upper", "lower", "exact"):
        return None  # an approximation is never violated
    exact, bound = float(comparison.exact), float(comparison.bound)
    if math.isnan(exact):
        return None
    resolution = max(float(theorem.notion_record.resolution), 1e-300)
    sides = [s for s, kinds in ((+1, ("upper", "exact")), (-1, ("lower", "exact"))) if theorem.kind in kinds]
    # double-precision screen: no high-precision evaluation where the float bound clearly holds
    slack = _exact_error(comparison, exact, bound) + resolution
    candidates = [s for s in sides if not (math.isfinite(bound) and s * (exact - bound) <= slack)]
    if not candidates:
        return None
    # a violation with the exact value above the bound is an artefact where the true bound lies above the
    # computed one (direction +1), one below it where the true bound lies below (-1)
    certified, error = high_precision_bound(theorem, params, bound, candidates[0] if len(candidates) == 1 else 0)
    if certified is None or math.isnan(certified):
        return None
    slack = _exact_error(comparison, exact, certified) + resolution + error
    if comparison.query_error is not None:  # the reference's own error for this query (a grid's, at large mu)
        slack += comparison.query_error()
    for side in candidates:
        gap = side * (exact - certified) - slack
        if gap > 0:  # an infinite bound on the wrong side (beyond the float range in 50 digits too): inf
            return math.inf if math.isinf(certified) else gap / max(abs(certified), resolution, sys.float_info.min)
    return None


def _exact_error(comparison: refs.Comparison, exact: float, bound: float) -> float:
    """The exact value's stated error: the comparison's relative tolerance (taken of the larger of the
    two values, the conservative reading the engine has always used)."""
    scale = max(abs(exact), abs(bound)) if math.isfinite(bound) else abs(exact)
    return float(comparison.tolerance) * scale


def high_precision_bound(theorem: Theorem, params: Mapping[str, float], bound: float,
                         direction: int = 0) -> tuple[float | None, float]:
    """The bound at ``params`` and its stated absolute error.

    A closed form: its value with :data:`DIGITS` digits (rounded to a double: error half an ulp).  A
    bound with numeric operators: ``bound`` with :data:`OPERATOR_RTOL` (or the operators' own
    ``error``), and with PLD operators the error measured by refinement on the side ``direction`` names
    (:func:`operator_error`).  Otherwise (free parameters; a closed form mpmath cannot evaluate): ``bound``
    with :data:`FLOAT_RTOL`.  ``(None, 0)`` when no value is available.
    """
    if theorem.closed_form:
        value = _closed_form_value(theorem, params)
        if value is not None and not math.isnan(value):
            return value, 0.5 * _ulp(value)
    if not math.isfinite(bound) and not math.isinf(bound):
        return None, 0.0
    rtol = FLOAT_RTOL
    if theorem.operators:
        rtol = stated_rtol(theorem)
        refined = operator_error(theorem, params, direction)  # a candidate violation: the bound's error, measured
        if refined is not None:
            if not math.isfinite(refined):
                return None, 0.0  # the error cannot be measured here: no certified value
            rtol = max(rtol, refined)
    return bound, rtol * abs(bound) if math.isfinite(bound) else 0.0


def stated_rtol(theorem: Theorem) -> float:
    """The relative error its numeric operators state (:data:`OPERATOR_RTOL` at least)."""
    return max([OPERATOR_RTOL] + [float(getattr(type(op), "error", 0.0) or 0.0) for op in _operators(theorem)])


def _operators(theorem: Theorem) -> list:
    return [op for op in theorem.bound.atoms(sp.Function) if type(op).__name__ in theorem.operators]


def operator_error(theorem: Theorem, params: Mapping[str, float], direction: int = 0) -> float | None:
    """The relative error of the bound at ``params`` that its PLD operators' discretisation leaves (None: it has
    no such operator, ``refinable``): how far the true bound may lie above the computed one (``direction=+1``),
    below it (``-1``), or either way (``0``).

    A pessimistic PLD exceeds the exact curve by an amount first order in its interval ``h``: at ``h / 2`` the
    bound moves by about half its error, toward the true value, so the error stated is twice that move on the
    side it goes (and the operators' stated error on either side).  ``math.inf`` when the refined bound cannot
    be built here (its PLD refused, or a value that is not finite).
    """
    if not any(getattr(type(op), "refinable", False) for op in _operators(theorem)):
        return None
    from verify.privacy.operators import pld_interval
    from verify.privacy.pld import DEFAULT_INTERVAL

    point = {p: params[p] for p in theorem.parameters if p in params}
    try:
        coarse = float(theorem.evaluate(allow_outside_assumptions=True, **point))
        with pld_interval(DEFAULT_INTERVAL / 2):
            fine = float(theorem.evaluate(allow_outside_assumptions=True, **point))
    except (InputError, ArithmeticError, MemoryError):
        return math.inf
    if not (math.isfinite(coarse) and math.isfinite(fine)):
        return math.inf
    move = fine - coarse
    along = abs(move) if direction == 0 else max(direction * move, 0.0)
    return max(stated_rtol(theorem), 2.0 * along / max(abs(coarse), sys.float_info.min))


def _ulp(x: float) -> float:
    return math.ulp(x) if math.isfinite(x) else 0.0


def _closed_form_value(theorem: Theorem, params: Mapping[str, float]) -> float | None:
    """The closed-form bound at ``params`` with :data:`DIGITS` digits, as a double (None when it is not
    a real number there)."""
    names = tuple(p for p in theorem.parameters if p in params)
    values = tuple(float(params[p]) for p in names)
    return _closed_form_cached(theorem.bound, names, values)


#: the working precisions (digits) at which a closed form is evaluated, in turn, until two agree to :data:`DIGITS`
#: digits: a cancellation such as ``1 - exp(-x)`` at ``x = 1e-283`` reads 0 at 50 digits and needs about 300
PRECISIONS = (DIGITS, 8 * DIGITS, 80 * DIGITS)


@functools.lru_cache(maxsize=512)
def _closed_form_cached(bound: sp.Expr, names: tuple[str, ...], values: tuple[float, ...]) -> float | None:
    """The value with :data:`DIGITS` correct digits: mpmath at increasing precisions until two agree (None when
    none do: no certified value); sympy's strict adaptive evaluation where mpmath cannot evaluate the bound."""
    previous = None
    for digits in PRECISIONS:
        value = _mp_value(bound, names, values, digits)
        if value is None:
            break
        if previous is not None and (value == previous or
                                     abs(value - previous) <= mpmath.mpf(10) ** (4 - DIGITS) * abs(value)):
            return float(value)
        previous = value
    else:
        return None  # the precisions disagree to the end: a cancellation deeper than the last one resolves
    try:  # e.g. sums mpmath has no printer for
        value = bound.evalf(DIGITS, subs={SYMBOLS[k]: sp.Float(v, DIGITS) for k, v in zip(names, values)},
                            maxn=PRECISIONS[-1], strict=True)
        return float(value)
    except (PrecisionExhausted, TypeError, ValueError, ZeroDivisionError, OverflowError, AttributeError):
        return None


def _mp_value(bound: sp.Expr, names: tuple[str, ...], values: tuple[float, ...], digits: int):
    """The bound at ``values`` in mpmath with ``digits`` digits (an mpf; NaN for a complex value; None when
    mpmath cannot evaluate it)."""
    with mpmath.workdps(digits):
        try:
            value = _mp_function(bound, names)(*(mpmath.mpf(v) for v in values))
        except (TypeError, ValueError, ZeroDivisionError, OverflowError, NameError, AttributeError):
            return None
        if isinstance(value, mpmath.mpc):
            value = value.real if value.imag == 0 else mpmath.nan
        return +mpmath.mpf(value)


@functools.lru_cache(maxsize=256)
def _mp_function(bound: sp.Expr, names: tuple[str, ...]):
    """The bound as an mpmath function of ``names`` (keyed by the expression: a user's or a mutant's
    record with a known id has its own)."""
    return sp.lambdify(tuple(SYMBOLS[p] for p in names), bound, modules="mpmath")


# ---------------------------------------------------------------------------------------------------
# replays: one theorem on one instance of a family
# ---------------------------------------------------------------------------------------------------


def theorem_parameters(theorem: Theorem, instance, at, point: Mapping[str, Any] | None = None) -> dict[str, float]:
    """The theorem's parameters read off the instance's own constants (``point`` supplies M for a
    linear loss, :func:`verify.check.references.instance_params`), plus the notion parameter ``at``."""
    own = refs.instance_params(instance, point or {})
    extra = theorem.notion_record.parameter
    params = {p: own[p] for p in theorem.parameters if p != extra and p in own}
    if extra:
        params[extra] = at
    return params


def replay(theorem: Theorem, family_name: str, keywords: Mapping[str, Any], at=None,
           allow_outside_assumptions: bool = False) -> dict[str, Any]:
    """Evaluate ``theorem`` on the instance ``family_name(**keywords)`` at the notion parameter ``at``.

    The setting keywords not given (``batches``, ``adjacency``, ``init``) are the theorem's own, as the
    engine builds its instances (:func:`verify.check.references.build`).

    Returns the instance, the theorem's parameters, the :class:`~verify.check.references.Comparison`,
    the assumptions that fail there and the certified margin (None: no certified violation).
    InputError naming the parameter for a family, keyword or value that does not fit.
    """
    notion = theorem.notion_record
    if notion.exact is None:
        raise InputError(f"no exact {notion.name} reference: a {notion.name} theorem cannot be replayed on an instance",
                         "family", theorem.id)
    families = refs.families()
    if family_name not in families:
        raise InputError(f"unknown family {family_name!r} (known: {', '.join(sorted(families))})", "family", theorem.id)
    family = families[family_name]
    accepted = refs.keywords(family)
    extra = [k for k in keywords if k not in accepted and k != "M"]  # M: the smoothness of a linear loss
    if extra:
        raise InputError(f"unknown parameter {extra[0]} for family {family_name} "
                         f"(accepts {', '.join(p for p in accepted if not p.startswith('_'))})", extra[0], family_name)
    if notion.parameter and at is None:
        raise InputError(f"missing parameter {notion.parameter} (the notion parameter of a {notion.name} bound)",
                         notion.parameter, theorem.id)
    keywords = dict(keywords)
    for key in ("batches", "adjacency", "init"):  # the theorem's own setting, as the engine builds (refs.build)
        wanted = getattr(theorem.setting, key)
        if key in accepted and key not in keywords and wanted != "any":
            keywords[key] = wanted
    instance = refs.build_from(family, keywords)
    reason = refs.why_not_applicable(theorem, instance)
    if reason is not None:
        raise InputError(f"{instance.name} does not apply to {theorem.id}: {reason}", "family", theorem.id)
    params = theorem_parameters(theorem, instance, at, keywords)
    outside = [str(a) for a in theorem.violated_assumptions(theorem.coerce(params))]
    if outside and not allow_outside_assumptions:
        raise InputError(f"assumption violated on {instance.name}: {outside[0]}", None, theorem.id)
    try:
        bound = float(theorem.evaluate(allow_outside_assumptions=True, **params))
        profile = instance.profile()
        exact = exact_against(notion, profile, at, bound)
    except (NotImplementedError, OverflowError, FloatingPointError, ZeroDivisionError) as exc:
        raise InputError(f"not computable on {instance.name}: {type(exc).__name__}: {exc}", "family",
                         theorem.id) from None
    comparison = refs.Comparison(exact=exact, bound=bound, at=at, tolerance=refs.profile_tolerance(profile),
                                 query_error=refs.query_error(profile, notion, at))
    return {"instance": instance, "build": build_keywords(instance), "parameters": params,
            "comparison": comparison, "outside": outside, "margin": violation_margin(theorem, params, comparison)}


def build_keywords(instance) -> dict[str, Any] | None:
    """The keywords ``instance`` was built with (``family.build(**keywords)`` builds it again), read
    off its shared-profile key (:func:`verify.check.references.shared_key`, whose canonical forms this
    decodes: an int stays an int, a float keeps its bits); None for an instance built without a key."""
    key = getattr(instance, "key", None)
    if not (isinstance(key, tuple) and len(key) == 3 and isinstance(key[2], tuple)):
        return None
    out: dict[str, Any] = {}
    for name, value in key[2]:
        if isinstance(value, tuple) and value and value[0] == "int":
            out[name] = int(value[1])
        elif isinstance(value, tuple) and value and value[0] == "float":
            out[name] = float.fromhex(value[1])
        elif isinstance(value, tuple) and value and value[0] == "array":
            _, dtype, shape, data = value
            out[name] = np.frombuffer(data, dtype=np.dtype(dtype)).reshape(shape).tolist()
        else:
            out[name] = value
    return out


def witness(theorem: Theorem, instance, comparison: refs.Comparison, params: Mapping[str, float],
            ratio: float | None = None) -> Witness:
    """The :class:`Witness` of ``comparison`` on ``instance``: the instance's constants plus the
    theorem's parameters it does not define (M of a linear loss), and its build keywords (replayable)."""
    extra = theorem.notion_record.parameter
    own = dict(instance.params())
    own.update({k: v for k, v in params.items() if k != extra and k not in own})
    return Witness(instance=instance.name, family=instance.family, parameters=own, at=comparison.at,
                   exact=comparison.exact, bound=comparison.bound, parameter=extra, ratio=ratio,
                   build=build_keywords(instance))


def witness_keywords(witness: Witness) -> dict[str, Any]:
    """The family build keywords of ``witness``: its ``build`` keywords when it carries them, else its
    parameters that the family accepts and the words (``batches=uniform``) its instance name shows."""
    build = getattr(witness, "build", None)
    if build:
        return dict(build)
    family = refs.families().get(witness.family)
    accepted = refs.keywords(family) if family is not None else {}
    out = {k: v for k, v in witness.parameters.items() if k in accepted}
    for word in _name_words(witness.instance):
        name, _, value = word.partition("=")
        if name in accepted and name not in out and not _is_number(value):
            out[name] = value
    return out


def _name_words(name: str) -> list[str]:
    inside = name[name.find("(") + 1:name.rfind(")")] if "(" in name else ""
    return [w.strip() for w in inside.split(",") if "=" in w]


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def replay_line(theorem_id: str, witness: Witness) -> str:
    """The ``verify eval`` command line that evaluates ``theorem_id`` again on ``witness``'s instance."""
    words = ["verify", "eval", theorem_id, "--family", witness.family]
    keywords = witness_keywords(witness)
    if "M" not in keywords and "M" in witness.parameters:  # a linear loss: M is the theorem's, not the family's
        keywords["M"] = witness.parameters["M"]
    for name, value in keywords.items():
        words.append(f"{name}={_word(value)}")
    if witness.parameter is not None and witness.at is not None:
        words.append(f"{witness.parameter}={_word(witness.at)}")
    return " ".join(shlex.quote(w) for w in words)


def _word(value: Any) -> str:
    """A value as ``verify eval`` reads it back to the same type and bits (an int stays an int)."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    if isinstance(value, (list, tuple, np.ndarray)):
        return "[" + ",".join(_word(v) for v in np.asarray(value).ravel().tolist()) + "]"
    return str(value)


def read_word(raw: str) -> Any:
    """A ``name=value`` value of a replay line: an int, a float, a list ``[a,b]`` of numbers, a word."""
    if raw.startswith("[") and raw.endswith("]"):
        return [read_word(v) for v in raw[1:-1].split(",") if v]
    for cast in (int, float):
        try:
            return cast(raw)
        except ValueError:
            pass
    if raw in ("True", "False"):
        return raw == "True"
    return raw


__all__ = ["DIGITS", "FLOAT_RTOL", "OPERATOR_RTOL", "build_keywords", "high_precision_bound", "operator_error",
           "read_word", "replay", "replay_line", "stated_rtol", "theorem_parameters", "violation_margin", "witness",
           "witness_keywords"]
