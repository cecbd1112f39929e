"""The theorem record and the canonical symbol vocabulary (docs/conventions.md, docs/theorems.md).

A :class:`Theorem` is data: what a paper claims, in the canonical convention
``theta <- Proj_C(theta - eta * (mean gradient + N(0, sigma^2 I)))``.  Obligations, references and
reports interpret it; nothing here verifies anything.

What :meth:`Theorem.evaluate` returns is the notion's value (``rdp``: epsilon at ``alpha``; ``gdp``:
mu; ``fdp``: delta at ``eps``; ``eps_delta``: epsilon at ``delta``; ``utility``: the excess-risk
bound); the notions themselves are records of :mod:`verify.privacy.notions`.  The vocabulary lives in
:mod:`verify.vocabulary`, the setting and its ``covers`` rule in :mod:`verify.setting`.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass, field
from typing import Literal, Mapping

import numpy as np
import sympy as sp

from verify.errors import InputError
from verify.privacy.notions import Notion, notion as notion_record
from verify.privacy.operators import ARRAY_MODULES, NumericOperator, lambdify_modules
from verify.proof import Exact, Reading, Step, event
from verify.setting import Setting
from verify.vocabulary import (SYMBOLS, VOCABULARY, Variable, add_variable, check_domain, contraction,  # noqa: F401
                               sym)

Kind = Literal["upper", "lower", "exact", "approximation"]
KINDS: tuple[str, ...] = ("upper", "lower", "exact", "approximation")


# ---------------------------------------------------------------------------------------------------
# Record parts
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """Where a statement comes from: ``Source("bok2024", "Theorem 4.2", "003_103c3a04b5c7620c.txt")``."""

    paper: str
    statement: str
    seed: str = ""
    note: str = ""

    def __str__(self) -> str:
        return f"{self.paper}, {self.statement}"


@dataclass(frozen=True)
class Assumption:
    """A condition on the parameters, as a sympy relation, with the paper's words for it."""

    relation: sp.Basic
    text: str = ""

    def __str__(self) -> str:
        return self.text or sp.sstr(self.relation)


@dataclass(frozen=True)
class FreeParameter:
    """A parameter the statement holds *for every* value of: the bound is optimised over it.

    For an upper bound the engine takes the minimum over ``[lo, hi]`` (every value gives a valid bound,
    so a grid minimum is still valid); for a lower bound the maximum.  ``lo`` and ``hi`` may depend on
    the other parameters.  Integer ranges are enumerated (or, when longer than ``max_points``,
    sampled on a geometric grid); real ranges use a grid of ``max_points`` points.
    """

    name: str
    lo: sp.Expr
    hi: sp.Expr
    integer: bool = False
    open_lo: bool = False
    open_hi: bool = False
    max_points: int = 2048

    @property
    def symbol(self) -> sp.Symbol:
        return SYMBOLS[self.name]


ClaimKind = Literal["limit", "equals", "le", "ge", "exact_on", "witness", "monotone", "approximates"]


@dataclass(frozen=True)
class Claim:
    """Something the paper says about its bound, checked by the ``claims`` obligation.

    * ``limit``: bound -> ``value`` as ``var`` -> ``point`` (``sp.oo`` allowed).
    * ``equals``: bound equals ``value`` (an expression or a theorem id) under ``subs``.
    * ``le`` / ``ge``: bound <= (>=) ``value`` (expression or theorem id) on the admissible domain,
      possibly restricted by ``subs``.
    * ``exact_on``: the bound is attained by the instance family ``value`` (a name known to
      ``verify.instances``).
    * ``monotone``: the bound is non-decreasing (``point = +1``) or non-increasing (``-1``) in ``var``.
    * ``witness``: (lower bounds) the bound holds on instances of the family ``value`` (the paper's
      construction), without being attained.
    * ``approximates``: (approximations) the quantity approximated is the theorem ``value``'s exact one.
    """

    kind: ClaimKind
    value: object = None
    var: str | None = None
    point: object = None
    subs: Mapping[str, object] = field(default_factory=dict)
    text: str = ""


@dataclass(frozen=True)
class Erratum:
    """A known error of the paper or of its text extraction, and the evidence for it."""

    text: str
    evidence: str = ""
    variant: str | None = None  # id of the "as printed" variant that encodes it
    step: str | None = None  # id of the proof step (:attr:`Theorem.steps`) whose check detects it
    #: why the erratum has no mathematical content a check could decide (a misnamed symbol in prose)
    notation: str = ""


# ---------------------------------------------------------------------------------------------------
# The record
# ---------------------------------------------------------------------------------------------------


#: the largest bound a record may hold (operations, nesting depth, digits of one number): beyond, a bound is
#: refused before any search (a 10,000-term sum or 120 nested roots is a generated mistake, not a theorem)
MAX_OPERATIONS, MAX_DEPTH, MAX_DIGITS = 5000, 80, 400


def ill_formed(bound: sp.Expr) -> str:
    """Why ``bound`` cannot be a privacy bound before any number is computed ("" when nothing is wrong): an
    imaginary unit, an infinity or NaN written in it, or a size beyond :data:`MAX_OPERATIONS`,
    :data:`MAX_DEPTH` or :data:`MAX_DIGITS`."""
    if not isinstance(bound, sp.Expr):  # a relation, a tuple, a set: no number to bound anything
        return f"must be a sympy expression, got {type(bound).__name__}"
    if bound.has(sp.I):
        return "has an imaginary part (I): a privacy bound is real"
    if bound.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        return "holds an infinity or NaN (zoo, oo, nan) written in its formula"
    depth, stack, seen = 0, [(bound, 1)], 0
    while stack:
        node, level = stack.pop()
        depth, seen = max(depth, level), seen + 1
        if level > MAX_DEPTH:
            return f"is nested deeper than {MAX_DEPTH} levels"
        if seen > 4 * MAX_OPERATIONS:
            return f"has more than {MAX_OPERATIONS} operations"
        if isinstance(node, sp.Rational) and max(abs(node.p).bit_length(), node.q.bit_length()) > 3.33 * MAX_DIGITS:
            return f"holds a number with more than {MAX_DIGITS} digits"
        stack.extend((arg, level + 1) for arg in node.args)
    return ""


@dataclass(frozen=True)
class Theorem:
    """A theorem record (docs/theorems.md): a bound on the privacy of a run, with what it assumes.

    * ``id``: "paper/label" (a user's own: any "prefix/name"); ``title``; ``source``: ``Source(paper, statement)``.
    * ``notion``: rdp (bound: the Rényi epsilon at order ``alpha``), gdp (mu), fdp (delta at ``eps`` of the
      trade-off curve), eps_delta (eps at ``delta``), utility (an excess risk); ``verify.privacy.notions``
      registers more.
    * ``kind``: upper, lower, exact or approximation.
    * ``bound``: a sympy expression in the vocabulary's symbols (``sym.eta``; ``dir(sym)`` lists them), with
      ``sympy`` functions and the numeric operators of ``verify.privacy.operators``.
    * ``setting``: ``Setting(algorithm=..., batches=..., loss=..., constraint=..., adjacency=..., init=...,
      release=...)``: algorithm in noisy_gd, langevin, exp_mech, gaussian_mechanism, dp_sgd, any; batches in
      full, cyclic, poisson, uniform, shuffle, any; loss in squared, quadratic, strongly_convex, linear,
      logistic, huber, convex, lipschitz, smooth, weakly_convex, nonconvex, concave_quadratic, any; constraint
      in none, bounded, any; adjacency in replace, add_remove, any; init in fixed, gaussian, stationary, any;
      release in last, all.
    * ``assumptions``: ``Assumption(relation, text)``; ``free``: parameters the bound minimises over
      (``FreeParameter``); ``claims``: ``Claim(kind, ...)`` with kind in limit, equals, le, ge, exact_on,
      monotone, witness, approximates; ``errata``: ``Erratum(text, evidence, variant=..., step=...,
      notation=...)``; ``steps``: the proof's steps (``Step``, ``Reading``, ``Exact``: docs/proof-steps.md).
    """

    id: str
    title: str
    source: Source
    notion: str
    kind: Kind
    bound: sp.Expr
    setting: Setting = Setting()
    assumptions: tuple[Assumption, ...] = ()
    free: tuple[FreeParameter, ...] = ()
    claims: tuple[Claim, ...] = ()
    errata: tuple[Erratum, ...] = ()
    paper_form: str = ""  # the paper's own statement, LaTeX, in the paper's symbols
    paper_bound: sp.Expr | None = None  # the same in the paper's sympy symbols, when available
    translation: Mapping[sp.Symbol, sp.Expr] = field(default_factory=dict)  # paper symbol -> canonical
    notes: str = ""
    #: parameter sets the paper itself evaluates (table rows, figure settings), checked deterministically
    examples: tuple[Mapping[str, float], ...] = ()
    printed_of: str | None = None  # for an "as printed" variant: the id of the corrected theorem
    expect_fail: tuple[str, ...] = ()  # obligations an "as printed" variant is expected to fail
    variants: tuple["Theorem", ...] = ()
    #: the paper states the bound with "lesssim": a universal constant C it does not give.  The bound is
    #: the statement with C = 1; the engine reports the implied constant (the smallest C consistent with
    #: the exact values for an upper bound, the largest for a lower bound), never ``verified`` at C = 1.
    up_to_constant: bool = False
    #: the proof's steps as checkable claims (:mod:`verify.proof`), checked by the ``proof`` obligation
    steps: tuple[Step, ...] = ()
    #: the user file the record was read from ("" for the registry's): replay lines name it (``FILE::ID``)
    origin: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id or any(ch.isspace() for ch in self.id) or "::" in self.id:
            raise InputError(f"id must be a non-empty string without spaces or '::' (e.g. 'me/thm1'), got {self.id!r}",
                             "id")
        notion_record(self.notion)  # InputError naming the registered notions
        if self.kind not in KINDS:
            raise InputError(f"kind must be one of {KINDS}, got {self.kind!r}", "kind", self.id)
        try:
            object.__setattr__(self, "bound", sp.sympify(self.bound))
        except (sp.SympifyError, TypeError, ValueError) as exc:
            raise InputError(f"bound is not an expression: {exc}", "bound", self.id) from None
        unknown = {s.name for s in self.bound.free_symbols} - set(SYMBOLS)
        if unknown:
            raise InputError(f"bound uses symbols outside the vocabulary: {sorted(unknown)}", "bound", self.id)
        problem = ill_formed(self.bound)
        if problem:
            raise InputError(f"bound {problem}", "bound", self.id)
        for v in self.variants:
            if v.printed_of != self.id:
                raise InputError(f"variant {v.id} must have printed_of={self.id!r}", "variants", self.id)
        steps = [s.id for s in self.steps]
        if len(set(steps)) != len(steps):
            raise InputError(f"step ids must be distinct, got {steps}", "steps", self.id)
        for e in self.errata:
            if e.step is not None and e.step not in steps:
                raise InputError(f"erratum {e.text[:40]!r} names step {e.step!r}, not one of {steps}", "errata",
                                 self.id)

    @property
    def target(self) -> str:
        """What ``verify eval`` takes to find this record again: its id, or ``FILE::ID`` for a user's record."""
        return f"{self.origin}::{self.id}" if self.origin else self.id

    def step(self, step_id: str) -> Step:
        """The proof step ``step_id``; InputError naming the theorem's steps otherwise."""
        for s in self.steps:
            if s.id == step_id:
                return s
        known = ", ".join(s.id for s in self.steps) or "none"
        raise InputError(f"unknown step {step_id!r} (steps of {self.id}: {known})", "step", self.id)

    # -- derived facts -------------------------------------------------------------------------------

    @property
    def notion_record(self) -> Notion:
        """The record of this theorem's notion (:mod:`verify.privacy.notions`)."""
        return notion_record(self.notion)

    @property
    def is_printed_variant(self) -> bool:
        return self.printed_of is not None

    @functools.cached_property
    def parameters(self) -> tuple[str, ...]:
        """The parameters :meth:`evaluate` requires, in a stable order."""
        names: set[str] = {s.name for s in self.bound.free_symbols}
        for a in self.assumptions:
            names |= {s.name for s in a.relation.free_symbols}
        for f in self.free:
            names |= {s.name for s in (sp.sympify(f.lo).free_symbols | sp.sympify(f.hi).free_symbols)}
        names -= {f.name for f in self.free}
        extra = self.notion_record.parameter
        if extra:
            names.add(extra)
        order = list(VOCABULARY)
        return tuple(sorted(names, key=order.index))

    @functools.cached_property
    def operators(self) -> tuple[str, ...]:
        """Names of the numeric operators the bound uses (empty for a closed form)."""
        return tuple(sorted({type(f).__name__ for f in self.bound.atoms(NumericOperator)}))

    @property
    def closed_form(self) -> bool:
        return not self.operators and not self.free

    # -- numerics ------------------------------------------------------------------------------------

    @functools.cached_property
    def _argument_symbols(self) -> tuple[sp.Symbol, ...]:
        return tuple(SYMBOLS[p] for p in self.parameters) + tuple(f.symbol for f in self.free)

    @functools.cached_property
    def _compiled(self):
        return sp.lambdify(self._argument_symbols, numeric_form(self.bound), modules=lambdify_modules(), cse=True)

    @functools.cached_property
    def _compiled_ranges(self):
        """``(lo, hi)`` of every free parameter as functions of the parameters, compiled once per record
        (the grid of :meth:`_optimise` is rebuilt on every evaluation, its bounds need not be)."""
        syms = tuple(SYMBOLS[p] for p in self.parameters)
        return [(sp.lambdify(syms, f.lo, list(ARRAY_MODULES)), sp.lambdify(syms, f.hi, list(ARRAY_MODULES)))
                for f in self.free]

    @functools.cached_property
    def _compiled_assumptions(self):
        syms = tuple(SYMBOLS[p] for p in self.parameters)
        return [(a, sp.lambdify(syms, a.relation, modules=list(ARRAY_MODULES))) for a in self.assumptions]

    def _checked(self, params: Mapping[str, object]) -> tuple[dict[str, np.ndarray], tuple[int, ...]]:
        """Check names, values and domains of ``params``: float arrays as given (not broadcast), and the
        broadcast shape."""
        missing = [p for p in self.parameters if p not in params]
        if missing:
            raise InputError(f"missing parameter(s) {', '.join(missing)} (needs {', '.join(self.parameters)})",
                             missing[0], self.id)
        unknown = [p for p in params if p not in self.parameters]
        if unknown:
            raise InputError(f"unknown parameter(s) {', '.join(unknown)} (needs {', '.join(self.parameters)})",
                             unknown[0], self.id)
        arrays = {}
        for name in self.parameters:
            try:
                value = np.asarray(params[name], dtype=float)
            except (TypeError, ValueError):
                raise InputError(f"parameter {name} must be a number, got {params[name]!r}", name, self.id) from None
            check_domain(name, value, where=self.id)
            arrays[name] = value
        record = self.notion_record
        if record.check_parameter is not None:
            record.check_parameter(arrays[record.parameter], self.id)
        return arrays, self._broadcast_shape(arrays.values())

    def _broadcast_shape(self, arrays) -> tuple[int, ...]:
        """The shape ``arrays`` broadcast to; InputError when they do not.  One shape besides scalars (a point,
        or one array of points) is that shape: ``np.broadcast_shapes`` only when the shapes differ."""
        shapes = [a.shape for a in arrays]
        distinct = set(shapes) - {()}
        if len(distinct) <= 1:
            return distinct.pop() if distinct else ()
        try:
            return np.broadcast_shapes(*shapes)
        except ValueError as exc:
            raise InputError(f"parameter shapes do not broadcast: {exc}", None, self.id) from None

    def coerce(self, params: Mapping[str, object]) -> dict[str, np.ndarray]:
        """Check names, values and domains of ``params``; return them as broadcast float arrays."""
        arrays, shape = self._checked(params)
        if not shape:
            return arrays  # all 0-d already: nothing to broadcast
        return dict(zip(arrays, np.broadcast_arrays(*arrays.values())))

    def violated_assumptions(self, params: Mapping[str, np.ndarray]) -> list[Assumption]:
        """The assumptions that fail at some point of ``params`` (already coerced, or checked)."""
        args = [params[p] for p in self.parameters]
        bad = []
        with np.errstate(all="ignore"):
            for assumption, test in self._compiled_assumptions:
                if not _all_true(test(*args)):
                    bad.append(assumption)
        return bad

    def assumptions_hold(self, params: Mapping[str, np.ndarray]) -> np.ndarray:
        """Per point of the broadcast shape of ``params`` (already coerced, or checked), whether every
        assumption holds there: the pointwise form of :meth:`violated_assumptions`, so that a whole array of
        candidate points is screened in one pass per assumption."""
        args = [params[p] for p in self.parameters]
        shape = np.broadcast_shapes(*(np.shape(a) for a in args)) if args else ()
        ok = np.ones(shape, dtype=bool)
        with np.errstate(all="ignore"):
            for _, test in self._compiled_assumptions:
                ok &= np.asarray(test(*args), dtype=bool)
        return ok

    def evaluate(self, *, allow_outside_assumptions: bool = False, **params) -> np.ndarray | float:
        """Evaluate the bound, vectorised over broadcastable parameter arrays.

        Raises ``ValueError`` naming the parameter for a missing, unknown, NaN or out-of-domain value,
        and naming the assumption when one fails (unless ``allow_outside_assumptions``).
        """
        # not broadcast: a scalar parameter stays a 0-d array (the same ufunc loops and values, fewer full
        # passes); not a numpy scalar, whose arithmetic is libm's rather than numpy's loops (other ulps)
        values, shape = self._checked(params)
        if not allow_outside_assumptions:
            bad = self.violated_assumptions(values)
            if bad:
                raise InputError(f"assumption violated: {bad[0]}", None, self.id)
        result = self._evaluate_coerced(values, shape)
        return result[()] if result.ndim == 0 else result

    def _evaluate_coerced(self, values: Mapping[str, np.ndarray], shape: tuple[int, ...] | None = None) -> np.ndarray:
        args = [values[p] for p in self.parameters]
        if shape is None:
            shape = np.broadcast_shapes(*(np.shape(a) for a in args)) if args else ()
        with np.errstate(all="ignore"):
            if not self.free:
                out = np.asarray(self._compiled(*args), dtype=float)
                if not args:
                    return out
                if out.shape == shape and not any(np.may_share_memory(out, a) for a in args):
                    return out  # a fresh array of the full shape already
                return np.broadcast_to(out, shape).copy()
            return self._optimise([np.asarray(a) for a in args])

    def _optimise(self, args: list[np.ndarray]) -> np.ndarray:
        """Minimise (upper bounds) or maximise (lower bounds) over the free parameters on a grid."""
        shape = np.broadcast_shapes(*(a.shape for a in args)) if args else ()
        grids = []
        for f, (lo_of, hi_of) in zip(self.free, self._compiled_ranges):
            lo = np.broadcast_to(np.asarray(lo_of(*args), dtype=float), shape)
            hi = np.broadcast_to(np.asarray(hi_of(*args), dtype=float), shape)
            grids.append(_grid(f, lo, hi))
        # grid axes go after the parameter axes: parameters get trailing singleton axes
        k = len(self.free)
        expanded = [a.reshape(a.shape + (1,) * k) for a in np.broadcast_arrays(*args)] if args else []
        full = shape + tuple(g[0].shape[-1] for g in grids)
        points, valid = [], None
        for i, (values, ok) in enumerate(grids):
            index = (slice(None),) * len(shape) + tuple(slice(None) if j == i else None for j in range(k))
            points.append(values[index])
            if ok is not None:  # None: every grid point is admissible at every parameter point
                valid = np.broadcast_to(ok[index], full) if valid is None else valid & ok[index]
        out = np.broadcast_to(np.asarray(self._compiled(*expanded, *points), dtype=float), full)
        upper = self.kind != "lower"
        fill = np.inf if upper else -np.inf
        # the extremum over admissible grid points that are not NaN (+-inf where there is none); a mask pass
        # only where some point is masked (the min/max of the same numbers: the same value)
        drop = np.isnan(out)
        if valid is not None:
            drop |= ~valid
        if drop.any():
            out = np.where(drop, fill, out)
        axes = tuple(range(len(shape), len(shape) + k))
        return out.min(axis=axes) if upper else out.max(axis=axes)

    # -- display -------------------------------------------------------------------------------------

    def latex(self) -> str:
        return sp.latex(self.bound)

    def text(self) -> str:
        return sp.sstr(self.bound)

    def to_json(self) -> dict:
        """A JSON-ready description (used by ``verify show --json`` and the reports)."""
        return {
            "id": self.id,
            "title": self.title,
            "source": dataclasses.asdict(self.source),
            "notion": self.notion,
            "kind": self.kind,
            "setting": dataclasses.asdict(self.setting),
            "parameters": list(self.parameters),
            "free_parameters": [
                {"name": f.name, "lo": sp.sstr(f.lo), "hi": sp.sstr(f.hi), "integer": f.integer}
                for f in self.free
            ],
            "bound": {"text": self.text(), "latex": self.latex()},
            "paper_form": self.paper_form,
            "operators": list(self.operators),
            "assumptions": [{"text": str(a), "relation": sp.sstr(a.relation),
                             "latex": sp.latex(a.relation)} for a in self.assumptions],
            "claims": [
                {"kind": c.kind, "value": c.value if isinstance(c.value, str) else sp.sstr(c.value),
                 "var": c.var, "point": None if c.point is None else sp.sstr(c.point),
                 "subs": {k: sp.sstr(v) for k, v in c.subs.items()}, "text": c.text}
                for c in self.claims
            ],
            "errata": [dataclasses.asdict(e) for e in self.errata],
            "printed_of": self.printed_of,
            "expect_fail": list(self.expect_fail),
            "up_to_constant": self.up_to_constant,
            "variants": [v.id for v in self.variants],
            "notes": self.notes,
        }


def _all_true(value) -> bool:
    """``np.all(value)``; one truth value (what a test of 0-d parameters gives) without numpy's reduction
    machinery, which cost a fifth of a one-point :meth:`Theorem.evaluate` (3 assumptions)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    return bool(np.all(value))


def _grid(f: FreeParameter, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """Grid points of a free parameter for every parameter point, and which of them are admissible (None when
    all are: one range, or ranges that all hold the whole grid)."""
    lo_all, hi_all = float(np.min(lo)), float(np.max(hi))
    if f.integer:
        start = math.ceil(lo_all + (1 if f.open_lo and float(lo_all).is_integer() else 0))
        stop = math.floor(hi_all - (1 if f.open_hi and float(hi_all).is_integer() else 0))
        if stop < start:
            points = np.array([start], dtype=float)
        elif stop - start + 1 <= f.max_points:
            points = np.arange(start, stop + 1, dtype=float)
        else:
            offsets = np.unique(np.round(np.geomspace(1, float(stop - start + 1), f.max_points))) - 1
            points = float(start) + offsets
            points = np.unique(np.concatenate([points, [float(stop)]]))
    else:
        inner = np.linspace(0.0, 1.0, f.max_points + 2)[1:-1]
        points = lo_all + (hi_all - lo_all) * inner
    shape = lo.shape + (points.size,)
    values = np.broadcast_to(points, shape)
    lo_e, hi_e = lo[..., None], hi[..., None]
    ok = (values > lo_e) if f.open_lo else (values >= lo_e)
    ok &= (values < hi_e) if f.open_hi else (values <= hi_e)
    return values, (None if ok.all() else ok)


def _merged_roots(product: sp.Mul) -> sp.Expr:
    roots, rest = [], []
    for factor in product.args:
        if (isinstance(factor, sp.Pow) and factor.exp in (sp.S.Half, -sp.S.Half)
                and factor.base.is_nonnegative is True):
            roots.append(factor.base if factor.exp > 0 else sp.Pow(factor.base, -1, evaluate=False))
        else:
            rest.append(factor)
    if len(roots) < 2:
        return product
    return sp.Mul(*rest, sp.Pow(sp.Mul(*roots, evaluate=False), sp.S.Half, evaluate=False), evaluate=False)


def numeric_form(expr: sp.Expr) -> sp.Expr:
    """The bound as :meth:`Theorem.evaluate` computes it: in every product, the square roots of radicands
    sympy proves non-negative merged into one (``sqrt(a) sqrt(b) / sqrt(c)`` -> ``sqrt(a b / c)``), one
    square root and one array pass fewer each.

    Values move by a few ulps at most (tests/test_theorem_numeric.py asserts 4 ulps on every rewritten record),
    and a NaN stays a NaN: where the radicands are numbers they are >= 0, and 0/0, inf/inf and 0 inf give
    NaN in both forms. Not a simplification: nothing else is rewritten.
    """
    return expr.replace(lambda e: isinstance(e, sp.Mul), _merged_roots) if isinstance(expr, sp.Basic) else expr


def theorems_in(namespace: Mapping[str, object]) -> list[Theorem]:
    """The module-level :class:`Theorem` objects of a namespace, with their "as printed" variants (a record seen
    twice, under two names or as a variant, counts once; two different records of one id are refused)."""
    found: list[Theorem] = []
    seen: dict[str, Theorem] = {}
    for value in namespace.values():
        candidates = value if isinstance(value, (list, tuple)) else [value]
        for t in candidates:
            if isinstance(t, Theorem):
                for record in (t, *t.variants):
                    if record.id not in seen:
                        seen[record.id] = record
                        found.append(record)
                    elif seen[record.id] is not record and seen[record.id] != record:
                        raise InputError(f"the id {record.id!r} names two records (each id names one record)",
                                         "id")
    return found


__all__ = [
    "Assumption", "Claim", "Erratum", "Exact", "FreeParameter", "KINDS", "Notion", "Reading",
    "Setting", "Source", "Step", "SYMBOLS", "Theorem", "VOCABULARY", "Variable", "add_variable", "event",
    "check_domain", "contraction", "sym", "theorems_in",
]

