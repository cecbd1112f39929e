"""The best valid bound for a training run (``verify account``).

For a :class:`~verify.account.run.Run`, every registry theorem is classified (applies or why not), the
guarantee of each applicable one is converted to the notions asked for — epsilon at a given delta, the
GDP parameter mu, RDP at given orders — and the smallest epsilon among the theorems the verifier has
*verified* is the answer (policy in :mod:`verify.account.verdicts`).  The composition baseline (the bound
that holds when every iterate is released) is reported next to it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

import numpy as np

import theorems as registry
from theorems.tables import COMPOSITIONS
from verify import validate
from verify.account.applicability import Applicability, applicability
from verify.account.composition import PHASE_THEOREMS, Phase, gaussian_mu, schedule_pld
from verify.account.run import Run, RunError
from verify.account.verdicts import POLICY, VerdictSource, verdict_source
from verify.check.notions import eps_at_delta
from verify.errors import InputError
from verify.privacy.gaussian import gdp_eps
from verify.theorem import Theorem

#: statuses of an applicable theorem's row
USED, BEST, APPROXIMATE, UNVERIFIED, VIOLATED, FAILED = (
    "used", "best", "approximate", "unverified", "violated", "error")


def is_composition(theorem: Theorem) -> bool:
    """A bound valid when every iterate is released (a composition bound), so a baseline for the others."""
    return theorem.setting.release == "all" or theorem.id in COMPOSITIONS


# ---------------------------------------------------------------------------------------------------
# conversions
# ---------------------------------------------------------------------------------------------------


def _evaluate_at(theorem: Theorem, params: Mapping[str, float]):
    """``at -> theorem at params``, ``at`` being the value of its notion parameter (None: it has none)."""
    name = theorem.notion_record.parameter

    def evaluate(at):
        return theorem.evaluate(**params, **({name: at} if name else {}))

    return evaluate


def guarantee_eps(theorem: Theorem, params: Mapping[str, float], delta: float) -> float:
    """epsilon such that the theorem's guarantee at ``params`` implies (epsilon, delta)-DP: the notion's
    (eps, delta) reading, through :func:`verify.check.notions.eps_at_delta`."""
    return eps_at_delta(theorem, params, delta)


def guarantee_mu(theorem: Theorem, params: Mapping[str, float]) -> float | None:
    """The GDP parameter mu the guarantee implies (``None`` when its notion has no mu reading)."""
    to_mu = theorem.notion_record.to_mu
    return None if to_mu is None else float(to_mu(_evaluate_at(theorem, params)))


def guarantee_rdp(theorem: Theorem, params: Mapping[str, float], orders: Sequence[float]) -> list[float] | None:
    """RDP epsilon at ``orders`` the guarantee implies (``None`` when its notion has no RDP reading)."""
    if not len(orders):
        return []
    to_rdp = theorem.notion_record.to_rdp
    if to_rdp is None:
        return None
    values = to_rdp(_evaluate_at(theorem, params), np.asarray(orders, dtype=float))
    return [float(v) for v in np.atleast_1d(values)]


# ---------------------------------------------------------------------------------------------------
# the account
# ---------------------------------------------------------------------------------------------------


@dataclass
class BoundRow:
    """One applicable theorem, its verdict, and its guarantee in the notions asked for."""

    id: str
    title: str
    source: str
    notion: str
    kind: str
    verdict: str
    status: str
    composition: bool
    eps: float | None = None
    mu: float | None = None
    rdp: list[float] | None = None
    error: str = ""

    def to_json(self, orders: Sequence[float]) -> dict:
        return {"id": self.id, "title": self.title, "source": self.source, "notion": self.notion,
                "kind": self.kind, "verdict": self.verdict, "status": self.status,
                "composition": self.composition, "eps": _finite(self.eps), "mu": _finite(self.mu),
                "rdp": None if self.rdp is None else {f"{a:g}": _finite(v) for a, v in zip(orders, self.rdp)},
                "error": self.error}


@dataclass
class Accounting:
    """What ``verify account`` reports (``to_json`` is the ``--json`` payload)."""

    run: Run
    delta: float
    orders: tuple[float, ...]
    verdicts: str
    include_unverified: bool
    rows: list[BoundRow]
    not_applicable: list[Applicability]
    best: BoundRow | None
    composition: BoundRow | None
    notes: list[str] = field(default_factory=list)
    #: the run's composition by PLD at the accuracy asked for, with its bracket (:func:`pld_bracket`)
    pld: dict | None = None

    @property
    def eps(self) -> float | None:
        """epsilon of the best valid bound at ``delta`` (``None`` when no eligible theorem applies)."""
        return None if self.best is None else self.best.eps

    def row(self, theorem_id: str) -> BoundRow:
        for r in self.rows:
            if r.id == theorem_id:
                return r
        raise KeyError(f"{theorem_id!r} is not among the applicable theorems")

    def to_json(self) -> dict:
        return {
            "run": self.run.to_json(),
            "delta": self.delta,
            "orders": list(self.orders),
            "verdict_source": self.verdicts,
            "include_unverified": self.include_unverified,
            "verdict_policy": POLICY,
            "best": None if self.best is None else {"id": self.best.id, "eps": _finite(self.best.eps),
                                                    "verdict": self.best.verdict},
            "composition": None if self.composition is None else {"id": self.composition.id,
                                                                  "eps": _finite(self.composition.eps)},
            "bounds": [r.to_json(self.orders) for r in self.rows if r.status in (BEST, USED)],
            "approximations": [r.to_json(self.orders) for r in self.rows if r.status == APPROXIMATE],
            "not_used": [r.to_json(self.orders) for r in self.rows if r.status in (UNVERIFIED, VIOLATED, FAILED)],
            "not_applicable": [{"id": a.theorem.id, "reason": a.reason} for a in self.not_applicable],
            "pld": self.pld,
            "notes": self.notes,
        }


def as_run(run: Run | Mapping[str, object] | str | None, fields: Mapping[str, object], *,
           require_sigma: bool = True) -> Run:
    """A :class:`Run` from a Run, a mapping, a TOML path, or keyword fields (which override)."""
    if isinstance(run, Run):
        if fields:
            raise RunError("give either a Run or keyword fields, not both", "run")
        if require_sigma and run.sigma is None:
            raise RunError("run description: the noise is missing: give sigma, or z and Cclip", "sigma")
        return run
    if isinstance(run, str) or hasattr(run, "read_text"):
        return Run.from_toml(run, fields, require_sigma=require_sigma)
    return Run.from_mapping({**(run or {}), **fields}, require_sigma=require_sigma)


def classify(run: Run, records: Iterable[Theorem]) -> tuple[list[Applicability], list[Applicability]]:
    """Split ``records`` into those that apply to ``run`` and those that do not (with the reason)."""
    yes, no = [], []
    for theorem in records:
        a = applicability(theorem, run)
        (yes if a.applies else no).append(a)
    return yes, no


def eligible(theorem: Theorem, verdict: str, include_unverified: bool) -> str:
    """The status a theorem of this verdict gets before evaluation (the policy of verify.account.verdicts)."""
    if theorem.kind == "approximation" or verdict == "approximate":
        return APPROXIMATE
    if verdict in ("violated", "ill-formed"):
        return VIOLATED
    if verdict == "verified" or include_unverified:
        return USED
    return UNVERIFIED


def account(run: Run | Mapping[str, object] | str | None = None, *, delta: float = 1e-5,
            orders: Sequence[float] = (), theorems: Iterable[Theorem] | None = None,
            verdicts: Mapping[str, str] | str | None = None, include_unverified: bool = False,
            accuracy: float | None = None, **fields) -> Accounting:
    """Every registry theorem that applies to ``run``, converted to (eps at ``delta``, mu, RDP at ``orders``),
    with the smallest verified epsilon marked as the best valid bound.

    ``accuracy`` (the PLD's loss discretisation, e.g. 1e-4): also compose the run's steps by PLD at that
    accuracy under its composition theorem (:func:`pld_bracket`), with the bracket ``[lower, upper]`` that
    contains the exact composition; when ``upper`` beats every other bound it is the best valid bound.

    ``run`` is a :class:`Run`, a mapping of run keys, or a TOML path; keyword ``fields`` (``n=..., b=...``)
    add to or override it.  ``theorems`` defaults to ``theorems.all()``; ``verdicts`` to
    ``reports/baseline.json`` (a quick check when it is missing).  ``InputError`` (a ``ValueError``; :class:`RunError`)
    names the key for a bad description.
    """
    delta = _delta(delta)
    order_values = tuple(validate.number("orders", a) for a in orders)
    for a in order_values:
        if not (math.isfinite(a) and a > 1):
            raise InputError(f"orders: every Rényi order must be a finite number > 1, got {a:g}", "orders")
    the_run = as_run(run, fields)
    records = _records(theorems)
    applicable, not_applicable = classify(the_run, records)
    source = verdict_source([a.theorem for a in applicable], verdicts)
    rows = [_row(a, source, the_run, delta, order_values, include_unverified) for a in applicable]
    best = _smallest(r for r in rows if r.status == USED)
    if best is not None:
        best.status = BEST
    pld = None
    if accuracy is not None:
        pld = pld_bracket(the_run, delta, validate.positive("accuracy", accuracy), source, include_unverified)
        # a finer grid's bound replaces the best only when smaller beyond rounding (the default grid's is equal)
        if pld is not None and pld.get("eps") is not None and (best is None or pld["eps"] < best.eps * (1 - 1e-9)):
            theorem = registry.get(pld["theorem"])
            row = BoundRow(theorem.id, f"{theorem.title} (PLD at accuracy {accuracy:g})", str(theorem.source),
                           theorem.notion, theorem.kind, pld["verdict"], BEST, True, eps=pld["eps"])
            if best is not None:
                best.status = USED
            rows.append(row)
            best = row
    composition = _smallest(r for r in rows if r.status in (USED, BEST) and r.composition)
    return Accounting(the_run, delta, order_values, source.origin, include_unverified, rows, not_applicable,
                      best, composition, notes=_notes(the_run, applicable, not_applicable, rows), pld=pld)


def pld_bracket(run: Run, delta: float, accuracy: float, source: VerdictSource,
                include_unverified: bool = False) -> dict | None:
    """eps at ``delta`` of the run's steps composed by PLD at ``accuracy`` under the composition theorem of
    its batching and adjacency (:data:`verify.account.composition.PHASE_THEOREMS`), with the bracket
    ``[lower, upper]`` (dp_accounting's optimistic and pessimistic estimates; ``lower`` None when no
    optimistic estimate exists).  None when no such theorem covers the run or it may not be used."""
    theorem_id = PHASE_THEOREMS.get((run.batches, run.adjacency))
    if theorem_id is None or run.Delta is None or run.sigma is None:
        return None
    verdict = source.of(theorem_id)
    if eligible(registry.get(theorem_id), verdict, include_unverified) != USED:
        return None
    # units with Cclip = 1: noise std b*sigma on the summed gradient, sensitivity Delta
    phases = [Phase(run.b * run.sigma, 1.0 if run.batches == "full" else run.b / run.n, run.batches, run.T)]
    out = {"theorem": theorem_id, "verdict": verdict, "accuracy": accuracy, "eps": None, "bracket": None,
           "error": ""}
    try:
        mu = gaussian_mu(phases, run.adjacency, run.Delta)
        if mu is not None:  # exact: a closed form
            out["eps"] = float(gdp_eps(mu, delta))
            out["bracket"] = [out["eps"], out["eps"]]
            return out
        upper = float(schedule_pld(phases, run.adjacency, run.Delta, accuracy).eps(delta))
        optimistic = schedule_pld(phases, run.adjacency, run.Delta, accuracy, pessimistic=False)
        out["eps"] = upper
        out["bracket"] = [None if optimistic is None else float(optimistic.eps(delta)), upper]
    except InputError as exc:  # too fine for memory: refused before any work (verify.privacy.pld)
        out["error"] = str(exc).splitlines()[0]
    except ArithmeticError as exc:  # a per-step mu beyond what the PLD resolves (dp_accounting squares the noise)
        out["eps"] = out["bracket"] = None
        out["error"] = (f"the PLD composition is out of the float range at per-step mu = Delta/(b sigma) = "
                        f"{run.Delta / (run.b * run.sigma):g} ({type(exc).__name__})")
    return out


def _row(a: Applicability, source: VerdictSource, run: Run, delta: float, orders: tuple[float, ...],
         include_unverified: bool) -> BoundRow:
    t = a.theorem
    verdict = source.of(t.id)
    row = BoundRow(t.id, t.title, str(t.source), t.notion, t.kind, verdict,
                   eligible(t, verdict, include_unverified), is_composition(t))
    if row.status == VIOLATED:
        return row  # never evaluated, never used
    try:
        row.eps = guarantee_eps(t, a.params, delta)
        row.mu = guarantee_mu(t, a.params)
        row.rdp = guarantee_rdp(t, a.params, orders)
    except Exception as exc:  # noqa: BLE001 - a bound that cannot be evaluated is reported, never used
        row.status, row.error = FAILED, f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
        return row
    if row.eps is None or not math.isfinite(row.eps) or row.eps < 0:
        if row.status == USED:
            row.status, row.error = FAILED, f"no finite epsilon at delta={delta:g}"
    return row


def _smallest(rows: Iterable[BoundRow]) -> BoundRow | None:
    candidates = [r for r in rows if r.eps is not None and math.isfinite(r.eps)]
    return min(candidates, key=lambda r: (r.eps, r.id)) if candidates else None


def _notes(run: Run, applicable: list[Applicability], not_applicable: list[Applicability],
           rows: list[BoundRow]) -> list[str]:
    notes = []
    step = [a.theorem.id for a in not_applicable if "eta" in a.violated_symbols]
    if step and run.eta is not None:
        notes.append(f"eta={run.eta:g} is outside the step-size range of {len(step)} theorem(s): "
                     + ", ".join(step))
    if not any(r.status in (USED, BEST) for r in rows):
        notes.append("no verified theorem applies to this run: no valid bound can be reported")
    return notes


def _records(theorems: Iterable[Theorem] | None) -> list[Theorem]:
    return registry.all() if theorems is None else list(theorems)


def _delta(delta: float) -> float:
    return validate.probability("delta", delta, open_hi=True)


def _finite(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)
