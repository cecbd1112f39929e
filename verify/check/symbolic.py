"""Symbolic obligations: well-formed, scaling invariance, claims (docs/verdicts.md).

Each check is symbolic first (sympy decides) and falls back to dense numeric grids only when sympy
cannot decide; the detail says which.
"""

from __future__ import annotations

import math
from typing import Callable, Mapping

import numpy as np
import sympy as sp

from verify.check.domain import admissible_points, canonical_points
from verify.check.evidence import BadValue, ClaimsChecked, PointsChecked, ScalingCounterexample
from verify.check.verdict import Obligation
from verify.theorem import SYMBOLS, VOCABULARY, NumericOperator, Theorem

RTOL = 1e-9
_SCALE = sp.Symbol("c_scale", positive=True)


def _substituted(expr: sp.Basic, rule: Mapping[sp.Basic, sp.Basic]) -> sp.Basic:
    """``expr.xreplace(rule)``, except that a Min or Max whose arguments changed is rebuilt with
    ``evaluate=False``.

    The value is the same; sympy's re-evaluation of a Min/Max only compares its arguments pairwise
    (``factor_terms`` of every difference) to drop dominated ones, which on the registry's nested bounds took
    most of the scaling obligation's time and never decides an identity: the arguments of an invariant bound
    come back unchanged after substitution, and equal trees are then recognised as equal at once.
    """
    return _rebuilt(expr, rule, lambda e, args: e.func(*args, evaluate=False))


def _rebuilt(expr: sp.Basic, rule: Mapping[sp.Basic, sp.Basic], min_max) -> sp.Basic:
    """``expr`` with ``rule`` substituted bottom-up; a Min or Max whose arguments changed is rebuilt by
    ``min_max(old, new_args)``, every other changed node by its own constructor (shared subtrees once)."""
    memo: dict[sp.Basic, sp.Basic] = {}

    def walk(e: sp.Basic) -> sp.Basic:
        if e in rule:
            return rule[e]
        if not e.args:
            return e
        done = memo.get(e)
        if done is not None:
            return done
        args = tuple(walk(a) for a in e.args)
        if args == e.args:
            out = e
        elif isinstance(e, (sp.Min, sp.Max)):
            out = min_max(e, args)
        else:
            out = e.func(*args)
        memo[e] = out
        return out

    return walk(sp.sympify(expr))


def _equal(a: sp.Expr, b: sp.Expr) -> bool | None:
    """True/False when sympy decides ``a == b``; None when it cannot.

    Two exact tests come before the general ``simplify(a - b)``: identical trees are equal (the common
    case), and so are two expressions that ``simplify`` proves equal with every Min/Max they share held as a
    symbol with that Min/Max's own assumptions (an identity in the held symbol holds at its value; sympy
    otherwise re-canonicalises the Min/Max at every rewriting step, which made ``simplify`` several times
    slower).  Neither test can say "different": when they do not prove equality, ``simplify`` decides.
    """
    if a == b:
        return True
    shared = a.atoms(sp.Min, sp.Max) & b.atoms(sp.Min, sp.Max)
    if shared:
        held = {e: sp.Dummy(type(e).__name__, **{k: v for k, v in e.assumptions0.items() if v is not None})
                for e in shared}
        if _simplifies_to_zero(_substituted(a, held) - _substituted(b, held)) is True:
            return True
    return _simplifies_to_zero(a - b)


def _simplifies_to_zero(expr: sp.Expr) -> bool | None:
    """True/False when sympy decides ``expr == 0``; None when it cannot."""
    if expr == 0:
        return True
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
    for params, value in zip(samples, _bounds_at(theorem, samples)):
        if not math.isfinite(value) or (nonnegative and value < 0):
            bad.append((params, value))
    if bad:
        params, value = bad[0]
        shown = ", ".join(f"{k}={v:.6g}" for k, v in sorted(params.items()))
        return Obligation("well-formed", "failed", f"ill-formed at {shown}: the bound is {value} there",
                          counterexample=BadValue(parameters=params, bound=value))
    return Obligation("well-formed", "passed", f"finite and non-negative on {len(samples)} admissible points",
                      data=PointsChecked(len(samples)))


def _screened(theorem: Theorem, rows: list[dict[str, float]]) -> tuple[dict[str, np.ndarray], np.ndarray] | None:
    """Validation of a whole list of parameter points at once: the points stacked as float arrays (checked
    against their domains) and, per point, whether every assumption holds; None when some point is outside
    a domain (then each point must decide for itself, as one ``evaluate`` call per point does)."""
    try:
        stacked = theorem.coerce({k: np.array([r[k] for r in rows], dtype=float) for k in theorem.parameters})
    except (ValueError, KeyError, TypeError):
        return None
    return stacked, np.broadcast_to(theorem.assumptions_hold(stacked), (len(rows),))


def _bound_at_row(theorem: Theorem, stacked: Mapping[str, np.ndarray], i: int) -> float:
    """``float(theorem.evaluate(**row_i))`` without validating it again: the compiled bound on 0-d views of
    point ``i`` (the arrays one call per point would build, so the same ufunc loops and the same bits; a
    call on the whole array may differ in the last ulp, numpy's vector loops rounding differently)."""
    return float(theorem._evaluate_coerced({k: a[i:i + 1].reshape(()) for k, a in stacked.items()}))


def _bounds_at(theorem: Theorem, samples: list[dict[str, float]]) -> list[float]:
    """``float(theorem.evaluate(**p))`` for every admissible ``p`` in ``samples``, the points validated in
    one pass for a closed form; a bound with free parameters or numeric operators point by point (the grid
    of a free parameter spans the points evaluated together, and an operator's cost is its own)."""
    screened = _screened(theorem, samples) if theorem.closed_form and samples else None
    if screened is None or not screened[1].all():
        return [float(theorem.evaluate(**params)) for params in samples]  # raises where it did before
    return [_bound_at_row(theorem, screened[0], i) for i in range(len(samples))]


def _lazy_bounds(theorem: Theorem, rows: list[dict[str, float]]) -> Callable[[int], float | None]:
    """``value(i)``: the bound at ``rows[i]``, or None where evaluating it raises ValueError, KeyError or
    TypeError (a point outside the domain or the assumptions).  For a closed form every row is validated
    in one pass (:func:`_screened`); anything else is evaluated lazily, one row at a time and only for the
    rows asked for (a numeric operator is costly)."""

    def one(i: int) -> float | None:
        try:
            return float(theorem.evaluate(**rows[i]))
        except (ValueError, KeyError, TypeError):
            return None

    screened = _screened(theorem, rows) if theorem.closed_form and rows else None
    if screened is None:
        return one
    stacked, ok = screened
    return lambda i: _bound_at_row(theorem, stacked, i) if ok[i] else None


# ---------------------------------------------------------------------------------------------------
# scaling (docs/conventions.md)
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
        rest = _substituted(bound, dummies)
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
        decided = True if _scaled(expr, subs) == expr else None
        scaled = _substituted(expr, subs)
        if decided is None:
            decided = _equal(scaled, expr)
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


def _scaled(expr: sp.Expr, subs: Mapping[sp.Symbol, sp.Expr]) -> sp.Expr:
    """``expr`` under ``subs`` (the scaling substitution), with every Min or Max whose arguments all pick up
    the same positive factor ``r`` in ``c_scale`` alone written as ``r`` times the Min/Max itself: an exact
    rewriting (``min(r a, r b) = r min(a, b)`` for ``r > 0``) that lets sympy's own evaluation cancel the
    factor, where ``simplify`` on the whole bound takes a large part of a second.  The factor of an argument
    is read off ``factor_terms`` of both sides (which pulls ``c_scale`` out of the sums); when it is not one
    common power of ``c_scale``, the Min/Max is left as :func:`_substituted` leaves it."""
    def min_max(e: sp.Basic, args: tuple) -> sp.Basic:
        ratios = {sp.factor_terms(new) / sp.factor_terms(old) for new, old in zip(args, e.args)}
        ratio = ratios.pop() if len(ratios) == 1 else None
        if ratio is not None and ratio.free_symbols <= {_SCALE} and ratio.is_positive is True:
            return ratio * e
        return e.func(*args, evaluate=False)

    return _rebuilt(expr, subs, min_max)


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
    """A parameter point and its rescaled twin where the bound differs (numeric evidence): at admissible points,
    then at the first few with each integer parameter swept over a geometric grid (a bound with a threshold, a
    Min or a switch, differs from its twin only near the threshold)."""
    points = admissible_points(theorem, 12, seed)
    integers = [p for p in theorem.parameters if p in VOCABULARY and VOCABULARY[p].domain == "integer"]
    sweeps = [{**params, name: float(v)} for params in points for name in integers
              for v in sorted({round(1.15 ** k) for k in range(70)})]
    for params in points + sweeps:
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
                lim = _limit(theorem.bound.subs(subs), var, sp.sympify(claim.point))
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


def _limit(expr: sp.Expr, var: sp.Symbol, point: sp.Expr) -> sp.Expr:
    """``sp.limit(expr, var, point)``, with every Min or Max free of ``var`` held as a symbol carrying the
    assumptions sympy knows of it (a constant for the limit, as it is; sympy otherwise re-canonicalises it
    at every step of the series expansion, which was most of the time of a limit claim)."""
    held = {}
    for sub in expr.atoms(sp.Min, sp.Max):
        if var not in sub.free_symbols:
            known = {k: v for k, v in sub.assumptions0.items() if v is not None}
            held[sub] = sp.Dummy(type(sub).__name__, **known)
    if not held:
        return sp.limit(expr, var, point)
    return sp.limit(_substituted(expr, held), var, point).xreplace({d: e for e, d in held.items()})


def _numeric_compare(theorem, other, expr, claim, seed, op, points: int = 60) -> tuple[bool | None, str]:
    checked = 0
    cyc = "E" in theorem.parameters
    # the papers' own parameter sets first (table rows), then sampled points
    paper = [dict(e) for t in (theorem, other) if t is not None for e in t.examples if "family" not in e]
    fixed = {k: float(sp.sympify(v)) for k, v in claim.subs.items()}
    candidates = []
    for point in paper + canonical_points(400, seed + 11, cyclic=cyc):
        point = {**point, **fixed}
        if any(k not in point for k in theorem.parameters) or \
                (other is not None and any(k not in point for k in other.parameters)):
            continue
        candidates.append(point)
    ours = _lazy_bounds(theorem, [{k: p[k] for k in theorem.parameters} for p in candidates])
    theirs = None if other is None else _lazy_bounds(other, [{k: p[k] for k in other.parameters} for p in candidates])
    for i, point in enumerate(candidates):
        a = ours(i)
        if a is None:
            continue
        if theirs is not None:
            b = theirs(i)
            if b is None:
                continue
        else:
            try:
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
    quick = _mpmath_value(target)
    for p in points:
        p = {**p, claim.var: float(big)}
        try:
            a = float(theorem.evaluate(**p))
        except ValueError:
            continue
        # the claimed limit at 53-bit mpmath first; sympy's own substitution (as the evidence reads) decides
        # whenever that is not a clear pass
        b = quick(p)
        if b is not None and math.isclose(a, b, rel_tol=0.99e-4, abs_tol=0.99e-12):
            continue
        b = float(sp.N(target.subs({SYMBOLS[k]: v for k, v in p.items()})))
        if not math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-12):
            return False, f"at {claim.var}={big}: {a!r} vs claimed limit {b!r}"
    return True, f"matches the claimed limit at {claim.var}={big} (numeric)"


def _mpmath_value(expr: sp.Expr) -> Callable[[Mapping[str, float]], float | None]:
    """``value(params)``: ``expr`` at ``params`` through a function compiled once (mpmath, 53 bits), or None
    where that cannot give a finite real number (then the caller substitutes with sympy, as before)."""
    syms = sorted(expr.free_symbols, key=lambda s: s.name)
    names = [s.name for s in syms]
    try:
        f = sp.lambdify(syms, expr, "mpmath")
    except Exception:  # noqa: BLE001 - a printer without this function: the sympy path decides
        f = None

    def value(params: Mapping[str, float]) -> float | None:
        if f is None or any(n not in params for n in names):
            return None
        try:
            out = float(f(*(params[n] for n in names)))
        except Exception:  # noqa: BLE001 - complex, undefined, unsupported: the sympy path decides
            return None
        return out if math.isfinite(out) else None

    return value


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
    translated = _substituted(sp.sympify(theorem.paper_bound), dict(theorem.translation))
    decided = _equal(translated, theorem.bound)
    if decided is None:
        decided = _simplifies_to_zero(sp.powdenest(translated**2 - theorem.bound**2, force=True))
    if decided is True:
        return Obligation("translation", "passed", "paper's form equals the canonical form (symbolic)")
    if decided is False:
        return Obligation("translation", "failed",
                          f"paper's form translates to {sp.sstr(translated)}, not the canonical bound")
    return Obligation("translation", "inconclusive", "sympy could not decide the translation")
