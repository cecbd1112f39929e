"""Symbolic obligations: well-formed, scaling invariance, claims (DESIGN.md §5).

Each check is symbolic first (sympy decides) and falls back to dense numeric grids only when sympy
cannot decide; the detail says which.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
import sympy as sp

from verify.check.domain import admissible_points, canonical_points
from verify.check.evidence import BadValue, ClaimsChecked, PointsChecked, ScalingCounterexample
from verify.check.verdict import Obligation
from verify.theorem import SYMBOLS, VOCABULARY, NumericOperator, Theorem

RTOL = 1e-9
_SCALE = sp.Symbol("c_scale", positive=True)


def _simplifies_to_zero(expr: sp.Expr) -> bool | None:
    """True/False when sympy decides ``expr == 0``; None when it cannot."""
    try:
        value = sp.simplify(expr)
    except Exception:  # sympy gives up on some Max/Abs/ceiling combinations
        return None
    if value == 0:
        return True
    if value.is_number:
        return bool(abs(complex(value)) < 1e-300)
    return None


# ---------------------------------------------------------------------------------------------------
# well-formed
# ---------------------------------------------------------------------------------------------------


def well_formed(theorem: Theorem, seed: int = 0, points: int = 24) -> Obligation:
    """Free symbols in the vocabulary; the bound real, finite and non-negative on admissible samples."""
    outside = sorted({s.name for s in theorem.bound.free_symbols} - set(SYMBOLS))
    if outside:
        return Obligation("well-formed", "failed", f"symbols outside the vocabulary: {outside}")
    samples = admissible_points(theorem, points, seed)
    if not samples:
        return Obligation("well-formed", "inconclusive",
                          "no admissible parameter point found by sampling the default ranges")
    bad = []
    nonnegative = theorem.notion_record.nonnegative
    for params in samples:
        value = float(theorem.evaluate(**params))
        if not math.isfinite(value) or (nonnegative and value < 0):
            bad.append((params, value))
    if bad:
        params, value = bad[0]
        return Obligation("well-formed", "failed", f"bound is {value} at an admissible point",
                          counterexample=BadValue(parameters=params, bound=value))
    return Obligation("well-formed", "passed", f"finite and non-negative on {len(samples)} admissible points",
                      data=PointsChecked(len(samples)))


# ---------------------------------------------------------------------------------------------------
# scaling (DESIGN.md §3)
# ---------------------------------------------------------------------------------------------------


def scaling_substitution(c: sp.Expr = _SCALE) -> dict[sp.Symbol, sp.Expr]:
    """theta' = c*theta: every vocabulary symbol times c**scale."""
    return {v.symbol: v.symbol * c**v.scale for v in VOCABULARY.values() if v.scale}


def _pieces(theorem: Theorem) -> list[tuple[str, sp.Expr]]:
    """The expressions that must each be invariant: the bound (or, through operators, their arguments)."""
    pieces: list[tuple[str, sp.Expr]] = []
    bound = theorem.bound
    operators = list(bound.atoms(NumericOperator))
    if operators:
        for op in operators:
            for name, arg in zip(type(op).arg_names or [f"arg{i}" for i in range(len(op.args))], op.args):
                pieces.append((f"{type(op).__name__}({name})", arg))
        dummies = {op: sp.Dummy(type(op).__name__, positive=True) for op in operators}
        rest = bound.xreplace(dummies)
        if rest.free_symbols - set(dummies.values()):
            pieces.append(("bound outside its operators", rest))
    else:
        pieces.append(("bound", bound))
    for f in theorem.free:
        pieces += [(f"range of {f.name}", sp.sympify(f.lo)), (f"range of {f.name}", sp.sympify(f.hi))]
    return pieces


def scaling(theorem: Theorem, seed: int = 0) -> Obligation:
    """Invariance under theta -> c*theta, exactly with sympy; numeric fallback where sympy cannot decide."""
    subs = scaling_substitution()
    undecided = []
    for label, expr in _pieces(theorem):
        scaled = expr.xreplace(subs)
        decided = _simplifies_to_zero(scaled - expr)
        if decided is None:
            decided = _simplifies_to_zero(sp.powsimp(sp.powdenest(scaled / expr, force=True), force=True) - 1) \
                if expr != 0 else None
        if decided is False or (decided is None and _numerically_variant(expr, scaled, theorem, seed)):
            factor = sp.simplify(scaled / expr) if expr != 0 else scaled
            return Obligation("scaling", "failed",
                              f"{label} is not invariant under theta -> c*theta (c = c_scale): it picks up "
                              f"the factor {sp.sstr(factor)}",
                              counterexample=_scaling_counterexample(theorem, seed))
        if decided is None:
            undecided.append(label)
    if undecided:
        return Obligation("scaling", "passed", "invariant (numerically; sympy could not decide "
                          + ", ".join(sorted(set(undecided))) + ")")
    return Obligation("scaling", "passed", "invariant under theta -> c*theta (symbolic)")


def _numerically_variant(expr: sp.Expr, scaled: sp.Expr, theorem: Theorem, seed: int) -> bool:
    points = admissible_points(theorem, 12, seed)
    if not points:
        return False
    syms = sorted(expr.free_symbols | scaled.free_symbols - {_SCALE}, key=lambda s: s.name)
    f = sp.lambdify(syms, expr, "mpmath")
    g = sp.lambdify([*syms, _SCALE], scaled, "mpmath")
    for params in points:
        args = [params.get(s.name, 1.0) for s in syms]
        for c in (0.37, 3.1):
            try:
                a, b = float(f(*args)), float(g(*args, c))
            except (TypeError, ValueError, ZeroDivisionError):
                continue
            if not math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-300):
                return True
    return False


def _scaling_counterexample(theorem: Theorem, seed: int) -> ScalingCounterexample | None:
    """A parameter point and its rescaled twin where the bound differs (numeric evidence)."""
    for params in admissible_points(theorem, 12, seed):
        c = 3.1
        twin = {k: v * c ** VOCABULARY[k].scale if k in VOCABULARY else v for k, v in params.items()}
        try:
            a = float(theorem.evaluate(**params))
            b = float(theorem.evaluate(allow_outside_assumptions=True, **twin))
        except ValueError:
            continue
        if not math.isclose(a, b, rel_tol=1e-9):
            return ScalingCounterexample(parameters=params, rescaled=twin, c=c, bound=a, bound_rescaled=b)
    return None


# ---------------------------------------------------------------------------------------------------
# claims
# ---------------------------------------------------------------------------------------------------


def claims(theorem: Theorem, lookup: Callable[[str], Theorem], seed: int = 0, points: int = 60) -> Obligation:
    """Each claim symbolically where sympy decides, else on admissible samples."""
    outcomes = []
    for claim in theorem.claims:
        if claim.kind in ("exact_on", "witness", "approximates"):
            continue  # decided by the exactness, soundness and approximation obligations
        try:
            ok, how = _check_claim(theorem, claim, lookup, seed, points)
        except (KeyError, ValueError, TypeError, NotImplementedError) as exc:
            ok, how = None, f"could not check ({exc})"
        label = claim.text or f"{claim.kind} {claim.value}"
        outcomes.append((ok, f"{label}: {how}"))
    if not outcomes:
        return Obligation("claims", "passed", "no claims to check", data=ClaimsChecked(0))
    failed = [d for ok, d in outcomes if ok is False]
    if failed:
        return Obligation("claims", "failed", "; ".join(failed))
    undecided = [d for ok, d in outcomes if ok is None]
    detail = "; ".join(d for _, d in outcomes)
    return Obligation("claims", "inconclusive" if undecided and len(undecided) == len(outcomes) else "passed",
                      detail, data=ClaimsChecked(len(outcomes), len(undecided)))


def _value_expr(theorem: Theorem, value, lookup) -> tuple[Theorem | None, sp.Expr | None]:
    if isinstance(value, str):
        return lookup(value), None
    return None, sp.sympify(value)


def _check_claim(theorem: Theorem, claim, lookup, seed: int, points: int) -> tuple[bool | None, str]:
    subs = {SYMBOLS[k]: sp.sympify(v) for k, v in claim.subs.items()}
    other, expr = _value_expr(theorem, claim.value, lookup)
    if claim.kind == "limit":
        var = SYMBOLS[claim.var]
        target = expr if expr is not None else other.bound
        if theorem.closed_form:
            try:
                lim = sp.limit(theorem.bound.subs(subs), var, sp.sympify(claim.point))
                decided = _simplifies_to_zero(lim - target.subs(subs))
                if decided is not None:
                    return decided, f"limit {'=' if decided else '!='} claimed value (symbolic)"
            except (NotImplementedError, ValueError, TypeError):
                pass
        return _numeric_limit(theorem, claim, target, seed)
    if claim.kind == "equals":
        target = expr if expr is not None else other.bound
        if theorem.closed_form and (other is None or other.closed_form):
            decided = _simplifies_to_zero(theorem.bound.subs(subs) - target.subs(subs))
            if decided is not None:
                return decided, "equal (symbolic)" if decided else "not equal (symbolic)"
        return _numeric_compare(theorem, other, expr, claim, seed, lambda a, b: np.isclose(a, b, rtol=1e-7), points)
    if claim.kind in ("le", "ge"):
        op = (lambda a, b: a <= b * (1 + 1e-9) + 1e-300) if claim.kind == "le" else \
             (lambda a, b: a >= b * (1 - 1e-9) - 1e-300)
        return _numeric_compare(theorem, other, expr, claim, seed, op, points)
    if claim.kind == "monotone":
        return _numeric_monotone(theorem, claim, seed)
    raise NotImplementedError(f"claim kind {claim.kind}")


def _numeric_compare(theorem, other, expr, claim, seed, op, points: int = 60) -> tuple[bool | None, str]:
    checked = 0
    cyc = "E" in theorem.parameters
    # the papers' own parameter sets first (table rows), then sampled points
    paper = [dict(e) for t in (theorem, other) if t is not None for e in t.examples if "family" not in e]
    for point in paper + canonical_points(400, seed + 11, cyclic=cyc):
        point = {**point, **{k: float(sp.sympify(v)) for k, v in claim.subs.items()}}
        if any(k not in point for k in theorem.parameters) or \
                (other is not None and any(k not in point for k in other.parameters)):
            continue
        try:
            a = float(theorem.evaluate(**{k: point[k] for k in theorem.parameters}))
            if other is not None:
                b = float(other.evaluate(**{k: point[k] for k in other.parameters}))
            else:
                b = float(sp.N(expr.subs({SYMBOLS[k]: v for k, v in point.items() if k in SYMBOLS})))
        except (ValueError, KeyError, TypeError):
            continue
        checked += 1
        if not op(a, b):
            return False, f"fails at {({k: point[k] for k in sorted(set(theorem.parameters))})}: {a!r} vs {b!r}"
        if checked >= points:
            break
    if checked == 0:
        return None, "no admissible point where both sides apply"
    return True, f"holds on {checked} admissible points (numeric)"


def _numeric_limit(theorem, claim, target, seed) -> tuple[bool | None, str]:
    big = {"T": 10**7, "E": 10**6, "n": 10**8}.get(claim.var, 1e8)
    points = admissible_points(theorem, 8, seed)
    if not points:
        return None, "no admissible point"
    for p in points:
        p = {**p, claim.var: float(big)}
        try:
            a = float(theorem.evaluate(**p))
        except ValueError:
            continue
        b = float(sp.N(target.subs({SYMBOLS[k]: v for k, v in p.items()})))
        if not math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-12):
            return False, f"at {claim.var}={big}: {a!r} vs claimed limit {b!r}"
    return True, f"matches the claimed limit at {claim.var}={big} (numeric)"


def _numeric_monotone(theorem, claim, seed) -> tuple[bool | None, str]:
    points = admissible_points(theorem, 16, seed)
    direction = int(claim.point or 1)
    var = claim.var
    is_int = VOCABULARY[var].domain == "integer"
    for p in points:
        base = p[var]
        grid = np.unique(np.round(np.geomspace(1, max(base * 10, 20), 40))) if is_int else \
            np.geomspace(base / 10, base * 10, 40)
        try:
            values = np.asarray(theorem.evaluate(**{**p, var: grid}), dtype=float)
        except ValueError:
            continue
        steps = np.diff(values) * direction
        if np.any(steps < -1e-9 * np.abs(values[:-1])):
            return False, f"not monotone in {var} at {p}"
    return True, f"monotone in {var} on {len(points)} grids (numeric)"


# ---------------------------------------------------------------------------------------------------
# the paper's form vs the canonical form
# ---------------------------------------------------------------------------------------------------


def translation(theorem: Theorem) -> Obligation | None:
    """The paper's own bound, translated to the canonical convention, equals the canonical bound."""
    if theorem.paper_bound is None or not theorem.translation:
        return None
    translated = sp.sympify(theorem.paper_bound).xreplace(dict(theorem.translation))
    decided = _simplifies_to_zero(translated - theorem.bound)
    if decided is None:
        decided = _simplifies_to_zero(sp.powdenest(translated**2 - theorem.bound**2, force=True))
    if decided is True:
        return Obligation("translation", "passed", "paper's form equals the canonical form (symbolic)")
    if decided is False:
        return Obligation("translation", "failed",
                          f"paper's form translates to {sp.sstr(translated)}, not the canonical bound")
    return Obligation("translation", "inconclusive", "sympy could not decide the translation")
