"""Mutation self-test of the verifier: wrong theorems made by rule must be caught.

For a theorem the engine verified, :func:`mutants` derives wrong versions from its sympy bound by rule
(the bound times 0.9, ``T -> T - 1``, ``c^T -> c^(2T)``, ``q -> q^2``, ``2L -> L``, a square root
dropped, an exponent off by one, ``n`` for ``b``, saturation ``Min(T, X) -> Min(T, X/2)`` too early...;
lower bounds are mutated the other way), and along the structural axes: the differing record's batch off by one
(``tpos -> tpos +- 1``), whole epochs assumed (``T -> l floor(T/l)``), and a last-iterate bound claimed for every
iterate (the setting's ``release`` mutated; known unsound on the known instances' transcripts).  A mutant is a
:class:`~verify.theorem.Theorem` with the id ``ORIGINAL~rule``, no variants and no kept instances: the search must
find its failure on its own.

Which mutants are *known unsound* is decided without the search: a mutant is known unsound when its
bound is beyond the exact value, by more than :data:`KNOWN_MARGIN` and the reference's own tolerance,
on an instance the original's check compared (the worst instance of its tightness check, and its kept
instances, each re-evaluated here).  Each known-unsound mutant then goes through the engine's soundness
search from scratch (same seed, the budget the engine gives the original): the *mutation score* is
violated / known unsound.  A known-unsound mutant the search does not violate is a *survivor*: a defect
of the search.  Mutants no known instance shows unsound may still be sound (``c^T -> c^(2T)`` enlarges
``1 - c^T``): they are reported apart and never counted as killed.

The quick profile mutates the closed-form theorems only (a numeric-operator bound costs seconds per
evaluation); ``full`` mutates every verified theorem.  :func:`mutate` may bound the known-unsound mutants
searched (``searches``); those not searched are reported, never counted.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Mapping, Sequence

import sympy as sp

import theorems
from verify.check import certify
from verify.check import references as refs
from verify.check.engine import Effort, for_theorem, search_effort
from verify.check.evidence import Tightness, Witness, jsonable
from verify.check.parallel import map_jobs
from verify.check.soundness import soundness
from verify.check.verdict import Obligation, Verdict
from verify.errors import InputError
from verify.theorem import SYMBOLS, Theorem
from verify.privacy.operators import NumericOperator

#: relative margin by which a mutant must be beyond the exact value on a known instance to count as
#: known unsound (on top of the reference's tolerance): a mutant wrong by less is "not shown unsound"
KNOWN_MARGIN = 1e-3

#: the profiles that mutate every verified theorem; the others mutate the closed-form ones only
ALL_THEOREMS = frozenset({"full"})

T, E, L, Delta, q, b, n, m, M, alpha, delta, tpos, l = (SYMBOLS[s] for s in ("T", "E", "L", "Delta", "q", "b", "n",
                                                                             "m", "M", "alpha", "delta", "tpos", "l"))
HALF = sp.Rational(1, 2)


# ---------------------------------------------------------------------------------------------------
# rules
# ---------------------------------------------------------------------------------------------------

Rule = Callable[[sp.Expr], "list[tuple[str, sp.Expr]]"]


def _nodes(expr: sp.Expr, test: Callable[[sp.Basic], bool]) -> list[sp.Basic]:
    """Distinct subexpressions passing ``test``, in a stable pre-order: arguments sorted (a Min's are a set, in
    hash order, which changes from process to process with the string hashes)."""
    return list(dict.fromkeys(e for e in sp.preorder_traversal(expr, keys=True) if test(e)))


def _replaced(expr: sp.Expr, nodes: Iterable[sp.Basic], change: Callable[[sp.Basic], sp.Expr]) -> sp.Expr:
    """``expr`` with each of ``nodes`` replaced by ``change(node)`` (structurally, no algebra)."""
    return expr.xreplace({node: change(node) for node in nodes})


def _symbol_rule(symbol: sp.Symbol, new: sp.Expr, name: str) -> Rule:
    def rule(expr: sp.Expr) -> list[tuple[str, sp.Expr]]:
        return [(name, expr.xreplace({symbol: new}))] if symbol in expr.free_symbols else []
    return rule


def _depends_on_steps(e: sp.Basic) -> bool:
    return bool({T, E} & e.free_symbols)


def _step_powers(expr: sp.Expr) -> list[sp.Basic]:
    """Powers ``c^(f(T))`` and exponentials ``exp(f(T))`` whose exponent depends on the number of steps."""
    return _nodes(expr, lambda e: (isinstance(e, sp.Pow) and _depends_on_steps(e.exp))
                  or (isinstance(e, sp.exp) and _depends_on_steps(e.args[0])))


def _with_exponent(node: sp.Basic, change: Callable[[sp.Expr], sp.Expr]) -> sp.Expr:
    if isinstance(node, sp.exp):
        return sp.exp(change(node.args[0]), evaluate=False)
    return sp.Pow(node.base, change(node.exp), evaluate=False)


def _contraction_doubled(expr: sp.Expr) -> list[tuple[str, sp.Expr]]:
    nodes = _step_powers(expr)
    return [("c^T->c^(2T)", _replaced(expr, nodes, lambda p: _with_exponent(p, lambda x: 2 * x)))] if nodes else []


def _contraction_halved(expr: sp.Expr) -> list[tuple[str, sp.Expr]]:
    nodes = _step_powers(expr)
    return [("c^(2T)->c^T", _replaced(expr, nodes, lambda p: _with_exponent(p, lambda x: x / 2)))] if nodes else []


def _step_exponent_plus_one(expr: sp.Expr) -> list[tuple[str, sp.Expr]]:
    nodes = [p for p in _step_powers(expr) if isinstance(p, sp.Pow)]
    return [("c^T->c^(T+1)", _replaced(expr, nodes, lambda p: _with_exponent(p, lambda x: x + 1)))] if nodes else []


def _label(e: sp.Basic, index: int) -> str:
    text = sp.sstr(e).replace(" ", "")
    return text if len(text) <= 12 else f"#{index}"


def _power_off_by_one(expr: sp.Expr) -> list[tuple[str, sp.Expr]]:
    """Each integer power ``x^k`` (|k| >= 2) as ``x^(k-1)`` (its magnitude one lower)."""
    out = []
    powers = _nodes(expr, lambda e: isinstance(e, sp.Pow) and e.exp.is_Integer and abs(int(e.exp)) >= 2)
    for i, p in enumerate(powers[:3]):
        k = int(p.exp)
        lower = k - 1 if k > 0 else k + 1
        out.append((f"{_label(p.base, i)}^{k}->^{lower}", expr.xreplace({p: sp.Pow(p.base, lower)})))
    return out


def _sqrt_dropped(expr: sp.Expr) -> list[tuple[str, sp.Expr]]:
    """Each square root (or inverse square root) with its root dropped: ``sqrt(x) -> x``."""
    roots = _nodes(expr, lambda e: isinstance(e, sp.Pow) and e.exp in (HALF, -HALF) and not e.base.is_Number)
    return [(f"sqrt({_label(r.base, i)})->{_label(r.base, i)}",
             expr.xreplace({r: r.base if r.exp > 0 else 1 / r.base})) for i, r in enumerate(roots[:3])]


def _sqrt_moved(expr: sp.Expr) -> list[tuple[str, sp.Expr]]:
    return [("sqrt(bound)", sp.sqrt(expr))]


def _saturation(factor: sp.Expr, name: str) -> Rule:
    def rule(expr: sp.Expr) -> list[tuple[str, sp.Expr]]:
        mins = _nodes(expr, lambda e: isinstance(e, sp.Min) and T in e.args)
        if not mins:
            return []
        return [(name, _replaced(expr, mins, lambda e: sp.Min(*[a if a == T else factor * a for a in e.args],
                                                              evaluate=False)))]
    return rule


def _sampling(power: sp.Expr, name: str) -> Rule:
    """``q -> q^power``, also where the bound writes q as ``b/n`` (a numeric operator's argument)."""
    def rule(expr: sp.Expr) -> list[tuple[str, sp.Expr]]:
        if q in expr.free_symbols:
            return [(name, expr.xreplace({q: q ** power}))]
        ratio = b / n
        if any(a == ratio for op in expr.atoms(NumericOperator) for a in op.args):
            return [(name, expr.xreplace({ratio: ratio ** power}))]
        return []
    return rule


def _swap(x: sp.Symbol, y: sp.Symbol, name: str) -> Rule:
    def rule(expr: sp.Expr) -> list[tuple[str, sp.Expr]]:
        return [(name, expr.xreplace({x: y, y: x}))] if {x, y} <= expr.free_symbols else []
    return rule


def _log_delta(factor: sp.Expr, name: str) -> Rule:
    """The ``log(1/delta)`` term of a conversion scaled (the wrong log term of an RDP -> DP conversion)."""
    def rule(expr: sp.Expr) -> list[tuple[str, sp.Expr]]:
        logs = _nodes(expr, lambda e: isinstance(e, sp.log) and delta in e.free_symbols)
        return [(name, _replaced(expr, logs, lambda e: factor * e))] if logs else []
    return rule


def _epochs(rounding, name: str) -> Rule:
    """A bound stated in T for cyclic batches read as if T were a whole number of epochs, ``T -> l rounding(T/l)``:
    wrong only in a partial last epoch (a structural axis)."""
    def rule(expr: sp.Expr) -> list[tuple[str, sp.Expr]]:
        if T not in expr.free_symbols or l not in expr.free_symbols:
            return []
        return [(name, expr.xreplace({T: l * rounding(T / l)}))]
    return rule


def _scaled(factor: sp.Expr, name: str) -> Rule:
    def rule(expr: sp.Expr) -> list[tuple[str, sp.Expr]]:
        return [(name, factor * expr)]
    return rule


#: rules that make an upper bound smaller (for upper and exact theorems), in priority order
DOWN: tuple[Rule, ...] = (
    _scaled(sp.Rational(9, 10), "x0.9"),
    _symbol_rule(T, T - 1, "T->T-1"),
    _symbol_rule(E, E - 1, "E->E-1"),
    _contraction_doubled,
    _sampling(2, "q->q^2"),
    _symbol_rule(L, L / 2, "2L->L"),
    _symbol_rule(Delta, Delta / 2, "Delta->Delta/2"),
    _sqrt_dropped,
    _power_off_by_one,
    _symbol_rule(b, n, "b->n"),
    _saturation(HALF, "Min(T,X)->Min(T,X/2)"),
    _contraction_halved,
    _step_exponent_plus_one,
    _sqrt_moved,
    _symbol_rule(n, b, "n->b"),
    _swap(m, M, "m<->M"),
    _symbol_rule(alpha, alpha - 1, "alpha->alpha-1"),
    _log_delta(HALF, "log(1/delta)/2"),
    _symbol_rule(tpos, tpos + 1, "tpos->tpos+1"),
    _symbol_rule(tpos, tpos - 1, "tpos->tpos-1"),
    _epochs(sp.floor, "T->l*floor(T/l)"),
)

#: rules that make a lower bound larger
UP: tuple[Rule, ...] = (
    _scaled(sp.Rational(11, 10), "x1.1"),
    _symbol_rule(T, T + 1, "T->T+1"),
    _symbol_rule(E, E + 1, "E->E+1"),
    _contraction_halved,
    _sampling(HALF, "q->sqrt(q)"),
    _symbol_rule(L, 2 * L, "L->2L"),
    _symbol_rule(Delta, 2 * Delta, "Delta->2Delta"),
    _sqrt_dropped,
    _power_off_by_one,
    _symbol_rule(n, b, "n->b"),
    _saturation(sp.Integer(2), "Min(T,X)->Min(T,2X)"),
    _contraction_doubled,
    _step_exponent_plus_one,
    _sqrt_moved,
    _symbol_rule(b, n, "b->n"),
    _swap(m, M, "m<->M"),
    _symbol_rule(alpha, alpha + 1, "alpha->alpha+1"),
    _log_delta(sp.Integer(2), "2log(1/delta)"),
    _symbol_rule(tpos, tpos + 1, "tpos->tpos+1"),
    _symbol_rule(tpos, tpos - 1, "tpos->tpos-1"),
    _epochs(sp.ceiling, "T->l*ceil(T/l)"),
)

#: the structural mutant of a bound on the last iterate: the same bound claimed for every iterate released (a
#: hidden-state bound is below the transcript's privacy wherever forgetting helps)
EVERY_ITERATE = "last->every-iterate"


def mutant_id(theorem_id: str, rule: str) -> str:
    return f"{theorem_id}~{rule}"


def mutants(theorem: Theorem, max_ratio: float | None = None, limit: int | None = None) -> list[Theorem]:
    """Wrong versions of ``theorem`` by rule (at most ``limit``, in the rules' priority order).

    ``x0.9`` only when the found worst exact/bound ratio ``max_ratio`` exceeds 0.9 (else no instance is
    known where it fails).  Mutants equal to the original or to an earlier mutant are left out.
    """
    rules = UP if theorem.kind == "lower" else DOWN
    kept_examples = tuple(e for e in theorem.examples if "family" not in e)
    claims = tuple(c for c in theorem.claims if c.kind in ("exact_on", "witness"))  # the families of a lower bound
    seen = {theorem.bound}
    out: list[Theorem] = []
    for rule in rules:
        for name, bound in rule(theorem.bound):
            if name == "x0.9" and (max_ratio is None or not max_ratio > 0.9):
                continue
            if bound in seen:
                continue
            seen.add(bound)
            out.append(replace(theorem, id=mutant_id(theorem.id, name), title=f"{theorem.title} [mutant: {name}]",
                               bound=bound, variants=(), examples=kept_examples, claims=claims, printed_of=None,
                               expect_fail=(), errata=()))
            if limit is not None and len(out) >= limit:
                return out
    if theorem.kind == "upper" and theorem.setting.release == "last":
        out.append(replace(theorem, id=mutant_id(theorem.id, EVERY_ITERATE),
                           title=f"{theorem.title} [mutant: {EVERY_ITERATE}]",
                           setting=replace(theorem.setting, release="all"), variants=(), examples=kept_examples,
                           claims=claims, printed_of=None, expect_fail=(), errata=()))
    return out[:limit] if limit is not None else out


def rule_of(mutant: Theorem) -> str:
    return mutant.id.split("~", 1)[1]


# ---------------------------------------------------------------------------------------------------
# known instances
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class KnownInstance:
    """An instance the original's check compared, with its exact value in the theorem's notion."""

    family: str
    instance: str
    parameters: Mapping[str, float]  # the instance's own constants
    at: float | None  # the notion parameter
    exact: float
    tolerance: float  # the reference's relative tolerance (0 when not known: KNOWN_MARGIN covers it)
    origin: str  # "worst" (the tightness check's worst instance) or "kept" (a record's kept instance)

    def to_json(self) -> dict:
        return {"family": self.family, "instance": self.instance, "parameters": jsonable(dict(self.parameters)),
                "at": jsonable(self.at), "exact": jsonable(self.exact), "origin": self.origin}


def known_instances(theorem: Theorem, worst: Witness | None) -> list[KnownInstance]:
    """The record's kept instances (``examples`` naming a family), rebuilt and re-evaluated as the soundness
    obligation replays them, and the tightness check's worst instance when it is not one of them (rebuilt
    from its build keywords when the witness carries them, for the reference's tolerance)."""
    notion = theorem.notion_record
    known = []
    for example in theorem.examples:
        if "family" not in example:
            continue
        example = dict(example)
        family = refs.families()[example.pop("family")]
        at = example.pop(notion.parameter) if notion.parameter else None
        found = _evaluated(theorem, family, example, at, "kept")
        if found is not None:
            known.append(found)
    if worst is None or not math.isfinite(worst.exact):
        return known
    if any(k.instance == worst.instance and k.at == worst.at for k in known):
        return known  # the worst instance is a kept one: the search did not find it on its own
    build = getattr(worst, "build", None)
    family = refs.families().get(worst.family)
    rebuilt = _evaluated(theorem, family, build, worst.at, "worst") if build and family else None
    known.append(rebuilt or KnownInstance(worst.family, worst.instance, dict(worst.parameters), worst.at,
                                          worst.exact, 0.0, "worst"))
    return known


def _evaluated(theorem: Theorem, family, keywords: Mapping[str, object], at, origin: str) -> KnownInstance | None:
    """The instance ``family`` builds from ``keywords`` with its exact value at ``at`` (None if it refuses)."""
    if theorem.setting.release == "all" and "release" in refs.keywords(family):
        keywords = {**keywords, "release": "all"}  # the transcript of the same run
    try:
        instance = refs.build_from(family, keywords)
        if refs.why_not_applicable(theorem, instance) is not None:
            return None
        reference = instance.profile()
        exact = float(theorem.notion_record.exact(reference, at))
    except (InputError, FloatingPointError, OverflowError, ZeroDivisionError):  # refused there: not known
        return None
    if not math.isfinite(exact):
        return None
    return KnownInstance(instance.family, instance.name, refs.instance_params(instance, keywords), at, exact,
                         refs.profile_tolerance(reference), origin)


def beyond(theorem: Theorem, known: KnownInstance) -> float | None:
    """The mutant ``theorem``'s bound at ``known`` when the exact value is beyond it by more than the
    margin (exact > bound for an upper bound, < for a lower one, either for an exact value); else None."""
    notion = theorem.notion_record
    params = {p: known.parameters[p] for p in theorem.parameters if p != notion.parameter and p in known.parameters}
    if notion.parameter:
        params[notion.parameter] = known.at
    if len(params) < len(theorem.parameters):
        return None  # the instance does not define a parameter the mutant introduced
    try:
        value = float(theorem.evaluate(**params))
    except Exception:  # noqa: BLE001 - a mutant that cannot be evaluated there is not shown unsound
        return None
    if not math.isfinite(value):
        return None
    # the engine's one rule for a violation (certify), with KNOWN_MARGIN as the least relative tolerance
    comparison = refs.Comparison(exact=known.exact, bound=value, at=known.at,
                                 tolerance=max(KNOWN_MARGIN, known.tolerance))
    return value if certify.violation_margin(theorem, params, comparison) is not None else None


# ---------------------------------------------------------------------------------------------------
# the self-test
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MutantOutcome:
    """One mutant: whether a known instance shows it unsound (where), and whether the search violated it."""

    rule: str
    bound: str
    known_unsound: bool
    instance: KnownInstance | None = None
    mutant_bound: float | None = None  # the mutant's bound at ``instance``
    violated: bool | None = None  # None: not searched (not known unsound)
    detail: str = ""

    @property
    def survivor(self) -> bool:
        return self.known_unsound and self.violated is False

    def to_json(self) -> dict:
        out = {"rule": self.rule, "bound": self.bound, "known_unsound": self.known_unsound,
               "violated": self.violated}
        if self.instance is not None:
            out["instance"] = {**self.instance.to_json(), "mutant_bound": jsonable(self.mutant_bound)}
        if self.detail:
            out["detail"] = self.detail
        return out


@dataclass(frozen=True)
class TheoremMutation:
    id: str
    outcomes: tuple[MutantOutcome, ...]

    @property
    def killed(self) -> list[MutantOutcome]:
        return [o for o in self.outcomes if o.known_unsound and o.violated]

    @property
    def survivors(self) -> list[MutantOutcome]:
        return [o for o in self.outcomes if o.survivor]

    @property
    def not_shown(self) -> list[MutantOutcome]:
        return [o for o in self.outcomes if not o.known_unsound]

    @property
    def unsearched(self) -> list[MutantOutcome]:
        return [o for o in self.outcomes if o.known_unsound and o.violated is None]

    def to_json(self) -> dict:
        return {"id": self.id, "mutants": len(self.outcomes), "killed": [o.rule for o in self.killed],
                "survivors": [o.to_json() for o in self.survivors],
                "not_shown_unsound": [o.rule for o in self.not_shown],
                "not_searched": [o.rule for o in self.unsearched],
                "outcomes": [o.to_json() for o in self.outcomes]}


@dataclass(frozen=True)
class MutationScore:
    """The self-test of a run: per theorem, and the score violated / known unsound."""

    profile: str
    scope: str
    theorems: tuple[TheoremMutation, ...] = field(default_factory=tuple)

    @property
    def killed(self) -> int:
        return sum(len(t.killed) for t in self.theorems)

    @property
    def known_unsound(self) -> int:
        return sum(len(t.killed) + len(t.survivors) for t in self.theorems)

    @property
    def not_shown(self) -> int:
        return sum(len(t.not_shown) for t in self.theorems)

    @property
    def unsearched(self) -> int:
        return sum(len(t.unsearched) for t in self.theorems)

    def survivors(self) -> list[tuple[str, MutantOutcome]]:
        return [(t.id, o) for t in self.theorems for o in t.survivors]

    def line(self) -> str:
        line = (f"mutation score: {self.killed}/{self.known_unsound} known-unsound mutants violated "
                f"({self.not_shown} not shown unsound)")
        more = f"; {self.unsearched} known-unsound not searched" if self.unsearched else ""
        return f"{line}; {self.scope}{more}"

    def survivor_lines(self) -> list[str]:
        """One line per survivor (a known-unsound mutant the search did not violate: a defect of the search,
        not of the theorem): ``ID~rule (unsound on INSTANCE: exact X vs mutant Y, a kept instance)``."""
        lines = []
        for theorem_id, o in self.survivors():
            where = "" if o.instance is None else (f" (unsound on {o.instance.instance}: exact {o.instance.exact:.6g} "
                                                   f"vs mutant {o.mutant_bound:.6g}, a {o.instance.origin} instance)")
            lines.append(f"{theorem_id}~{o.rule}{where}")
        return lines

    def to_json(self) -> dict:
        return {"score": {"killed": self.killed, "known_unsound": self.known_unsound,
                          "not_shown_unsound": self.not_shown, "not_searched": self.unsearched,
                          "mutants": sum(len(t.outcomes) for t in self.theorems),
                          "theorems": len(self.theorems)},
                "profile": self.profile, "scope": self.scope,
                "survivors": [{"theorem": tid, **o.to_json()} for tid, o in self.survivors()],
                "theorems": [t.to_json() for t in self.theorems]}


def _search(mutant: Theorem, theorem: Theorem, effort: Effort, seed: int) -> tuple[Obligation, ...]:
    """The engine's soundness search on ``mutant`` from scratch, with the budget the engine gives ``theorem``."""
    own = for_theorem(effort, theorem)
    return soundness(mutant, own.examples, seed, budget=own.budget())


def mutate(theorem: Theorem, worst: Witness | None, max_ratio: float | None, effort: Effort, seed: int = 0,
           searches: int | None = None) -> TheoremMutation:
    """Every mutant of ``theorem``, known unsound or not; the engine's soundness search from scratch (same
    ``seed``, the engine's budget for the theorem) on the known-unsound ones, at most ``searches`` of them
    (taken in the rules' order, rotated by the theorem's id so that a bounded run still tries every rule
    somewhere); the others are reported as not searched."""
    known = known_instances(theorem, worst)
    found = []
    for mutant in mutants(theorem, max_ratio):
        # a mutant about every iterate is shown unsound on the known instances' transcripts
        own = known if mutant.setting == theorem.setting else known_instances(mutant, worst)
        shown = next(((k, v) for k in own if (v := beyond(mutant, k)) is not None), None)
        found.append((mutant, shown))
    unsound = [i for i, (_, shown) in enumerate(found) if shown is not None]
    if searches is not None and len(unsound) > searches:
        start = zlib.crc32(theorem.id.encode()) % len(unsound)
        unsound = sorted((unsound[start:] + unsound[:start])[:searches])
    outcomes = []
    for i, (mutant, shown) in enumerate(found):
        rule, text = rule_of(mutant), sp.sstr(mutant.bound)
        if shown is None:
            outcomes.append(MutantOutcome(rule, text, known_unsound=False))
        elif i not in unsound:
            outcomes.append(MutantOutcome(rule, text, known_unsound=True, instance=shown[0], mutant_bound=shown[1],
                                          detail=f"not searched (at most {searches} searches per theorem)"))
        else:
            try:
                sound = _search(mutant, theorem, effort, seed)[0]  # soundness first (tightness, an ill-formed point)
                violated, detail = sound.status == "failed", f"{sound.status}: {sound.detail}"
            except Exception as exc:  # noqa: BLE001 - the search failing on a mutant is a survivor, never a crash
                violated, detail = False, f"internal error: {type(exc).__name__}: {exc}".splitlines()[0][:300]
            outcomes.append(MutantOutcome(rule, text, known_unsound=True, instance=shown[0], mutant_bound=shown[1],
                                          violated=violated, detail=detail))
    return TheoremMutation(theorem.id, tuple(outcomes))


def mutable(theorem: Theorem, verdict: Verdict, profile_name: str) -> bool:
    """Mutated: the verified theorems (not "as printed" variants, not approximations, not bounds stated
    up to a constant); in the quick profile only the closed forms."""
    if verdict.verdict != "verified" or theorem.is_printed_variant or theorem.kind == "approximation":
        return False
    if getattr(theorem, "up_to_constant", False):
        return False
    return theorem.closed_form or profile_name in ALL_THEOREMS


def scope(profile_name: str) -> str:
    """What the profile mutates, in words (printed with the score)."""
    which = "every verified theorem" if profile_name in ALL_THEOREMS else "closed-form verified theorems"
    return f"{profile_name}: {which}, every known-unsound mutant searched"


def worst_witness(verdict: Verdict) -> Witness | None:
    """The worst instance of a verdict's tightness check (None when it compared none)."""
    return next((o.data.worst for o in verdict.obligations if isinstance(o.data, Tightness)), None)


def _mutate_registered(theorem_id: str, worst: Witness | None, max_ratio: float | None, profile_name: str,
                       seed: int) -> TheoremMutation:
    """One registry theorem's mutants (a job of the process pool)."""
    return mutate(theorems.get(theorem_id), worst, max_ratio, search_effort(profile_name), seed)


def self_test(verdicts: Sequence[Verdict], profile_name: str, seed: int = 0, workers: int = 1,
              progress: Callable[[str], None] | None = None) -> MutationScore:
    """The mutation self-test of the registry theorems whose ``verdicts`` a run produced, over ``workers``
    processes (the result does not depend on them: each theorem's mutants are seeded on their own)."""
    chosen = [v for v in verdicts if mutable(theorems.get(v.id), v, profile_name)]
    jobs = [(v.id, worst_witness(v), v.max_ratio, profile_name, seed) for v in chosen]
    done = None if progress is None else (lambda index, _: progress(chosen[index].id))
    results = map_jobs(_mutate_registered, jobs, workers, done)
    return MutationScore(profile_name, scope(profile_name), tuple(results))


__all__ = ["KNOWN_MARGIN", "KnownInstance", "MutantOutcome", "MutationScore", "TheoremMutation", "beyond",
           "known_instances", "mutable", "mutant_id", "mutants", "mutate", "rule_of", "scope",
           "self_test", "worst_witness"]
