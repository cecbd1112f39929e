"""Reproduction of the papers' printed tables and figure parameter sets (``theorems/tables.py``).

Every computed cell comes from a registry theorem through one named conversion; a cell the registry cannot
compute yet (theorem not encoded, operator not available, assumption not met) is a *gap* with its reason,
never a crash.  Agreement with the printed value is judged at the printed precision.
"""

from __future__ import annotations

import math
from typing import Callable, Mapping

import theorems
from verify import validate
from verify.check.notions import eps_at_delta
from verify.errors import InputError
from verify.theorem import Theorem

#: relative slack on top of the printed rounding (printed values are themselves rounded inputs, e.g. sigma~)
RELATIVE_SLACK = 2e-3
#: the largest integer the crossing search looks at
CROSSING_LIMIT = 10**7


def _lookup_default(theorem_id: str) -> Theorem:
    return theorems.get(theorem_id)


def human_reason(exc: BaseException) -> str:
    """Why a value could not be computed, in words for a caption (no exception class, no traceback).

    An unmet assumption reads "outside its assumption X"; an unknown theorem "not in the registry"; anything
    else is the first line of the message without the exception's class name."""
    if isinstance(exc, KeyError):
        return f"not in the registry ({exc.args[0] if exc.args else 'unknown id'})"
    message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if "assumption violated" in message:
        return "outside its assumption " + message.split("assumption violated", 1)[1].lstrip(": ").strip()
    if isinstance(exc, InputError) and getattr(exc, "where", ""):
        message = message.split(": ", 1)[-1]
    return message[:160]


def exact_quantity(family_name: str, params: Mapping[str, float], quantity: str) -> float:
    """A quantity of the exact privacy profile of an instance family at ``params`` (conversion ``exact``).

    ``renyi``: the Rényi divergence at ``params["alpha"]``; ``event`` / ``event_prime``: the probability of the
    family's test event (``params["event"]``) under D / D'.  The family is built from the keywords it takes
    (``verify.check.references.build_from``), so the value is the engine's own exact reference."""
    from verify.check import references as refs  # the report's reproduction is the only caller
    from verify.instances import FAMILIES

    family = FAMILIES.get(family_name)
    if family is None:
        raise InputError(f"unknown instance family {family_name!r}", "family")
    accepted = refs.keywords(family)
    kwargs = {k: (int(v) if k in ("n", "b", "T") else float(v)) for k, v in params.items() if k in accepted}
    profile = refs.build_from(family, kwargs).profile()
    if quantity == "renyi":
        if "alpha" not in params:
            raise InputError("the exact Rényi divergence needs alpha", "alpha")
        return float(profile.renyi(float(params["alpha"])))
    if quantity in ("event", "event_prime"):
        masses = profile.p if quantity == "event" else profile.q
        return float(masses[-1])  # the event profile's support is [0, 1]: the last cell is the event
    raise InputError(f"quantity must be renyi, event or event_prime, got {quantity!r}", "quantity")


def theorem_params(theorem: Theorem, params: Mapping[str, float]) -> dict[str, float]:
    """The subset of ``params`` that ``theorem`` takes (its notion parameter excluded)."""
    extra = theorem.notion_record.parameter
    return {k: float(v) for k, v in params.items() if k in theorem.parameters and k != extra}


def convert(theorem: Theorem, params: Mapping[str, float], conversion: str, delta: float | None = None) -> float:
    """The value of ``theorem`` at ``params`` under a table conversion (``value`` or ``eps_at_delta``).

    ``value`` is :meth:`Theorem.evaluate` (the notion parameter, e.g. ``alpha``, taken from ``params``);
    ``eps_at_delta`` is :func:`verify.check.notions.eps_at_delta`.  Raises ``InputError`` naming what is wrong.
    """
    if conversion == "value":
        own = theorem_params(theorem, params)
        extra = theorem.notion_record.parameter
        if extra:
            if extra not in params:
                raise InputError(f"{theorem.id}: the table gives no {extra}", extra)
            own[extra] = float(params[extra])
        return float(theorem.evaluate(**own))
    if conversion == "eps_at_delta":
        if delta is None:
            raise InputError("eps_at_delta needs a delta", "delta")
        delta = validate.probability("delta", delta, open_hi=True)
        own = theorem_params(theorem, params)
        missing = [p for p in theorem.parameters if p not in own and p != theorem.notion_record.parameter]
        if missing:
            raise InputError(f"{theorem.id}: missing parameter(s) {', '.join(missing)}", missing[0])
        return float(eps_at_delta(theorem, own, delta))
    raise InputError(f"conversion must be 'value' or 'eps_at_delta', got {conversion!r}", "conversion")


def crossing(theorem: Theorem, against: Theorem, params: Mapping[str, float], var: str) -> int:
    """The smallest integer ``var`` at which ``against`` (non-decreasing in ``var``) reaches ``theorem``'s value.

    This is the ``t*`` / ``E*`` of Bok et al. Tables 8 and 10-12: where the geometric bound starts to beat
    composition.  Found by doubling and bisection (``against`` is a composition bound, monotone in ``var``).
    """
    target = convert(theorem, params, "value")
    base = theorem_params(against, params)

    def reaches(k: int) -> bool:
        return float(against.evaluate(**{**base, var: float(k)})) >= target * (1 - 1e-12)

    hi = 1
    while not reaches(hi):
        hi *= 2
        if hi > CROSSING_LIMIT:
            raise InputError(f"{against.id} does not reach {target:.4g} for {var} <= {CROSSING_LIMIT}", var)
    lo = hi // 2  # reaches(lo) is False (or lo == 0)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if reaches(mid):
            hi = mid
        else:
            lo = mid
    return hi


def agrees(printed: float, computed: float, digits: int) -> bool:
    """Whether ``computed`` rounds to ``printed`` at the printed precision (with a small relative slack)."""
    tol = 0.5 * 10.0 ** (-digits) + RELATIVE_SLACK * abs(printed)
    return abs(printed - computed) <= tol * (1 + 1e-9)


def _cell(table, column, row, lookup, computed_row: dict, heavy: bool) -> dict:
    printed = row.printed.get(column.key)
    cell: dict = {"printed": printed}
    if column.theorem is None and column.conversion != "exact":
        cell["status"] = "printed-only"
        return cell
    if not row.params:
        cell["status"] = "not-applicable"
        return cell
    if column.heavy and not heavy:
        cell["status"] = "gap"
        cell["reason"] = "exact composition: computed in the full profile only"
        return cell
    params = {**row.params, **column.params}
    params.update({name: params[key] for name, key in column.rename.items() if key in params})
    for name, key in column.inputs.items():
        source = computed_row.get(key)
        if source is None:
            cell["status"] = "gap"
            cell["reason"] = f"input {name} from column {key!r} is not available"
            return cell
        params[name] = source
    try:
        if column.conversion == "exact":
            value = exact_quantity(column.family, params, column.quantity)
        elif column.conversion == "crossing":
            theorem = lookup(column.theorem)
            value = float(crossing(theorem, lookup(column.against), params, column.var))
        else:
            value = convert(lookup(column.theorem), params, column.conversion, column.delta)
    except Exception as exc:  # noqa: BLE001 - a piece not written yet is a gap, never a crash
        cell.update(status="gap", reason=human_reason(exc))
        return cell
    if not math.isfinite(value):
        cell.update(status="gap", reason=f"non-finite value {value}")
        return cell
    computed_row[column.key] = value
    cell["computed"] = value
    if isinstance(printed, (int, float)) and not isinstance(printed, bool):
        cell["difference"] = value - float(printed)
        cell["status"] = "match" if agrees(float(printed), value, column.digits) else "mismatch"
    else:
        cell["status"] = "computed"
    return cell


def reproduce_table(table, lookup: Callable[[str], Theorem] | None = None, heavy: bool = False,
                    progress: Callable[[], None] | None = None) -> dict:
    """Printed against computed for every cell of ``table`` (a ``theorems.tables.PrintedTable``).

    Returns a JSON-ready dict: the table's description, and per row the cells with ``printed``,
    ``computed``, ``difference`` and a ``status`` (match, mismatch, computed, gap, printed-only,
    not-applicable).
    """
    lookup = lookup or _lookup_default
    rows = []
    for row in table.rows:
        computed_row: dict = {}
        cells = {}
        # columns that feed others are computed first (they come first in every table that uses inputs)
        for column in table.columns:
            cells[column.key] = _cell(table, column, row, lookup, computed_row, heavy)
        rows.append({"label": row.label, "params": dict(row.params), "cells": cells})
        if progress is not None:
            progress()
    counts: dict[str, int] = {}
    for r in rows:
        for c in r["cells"].values():
            counts[c["status"]] = counts.get(c["status"], 0) + 1
    return {
        "id": table.id, "anchor": anchor("table", table.id), "paper": table.paper, "label": table.label,
        "caption": table.caption, "kind": table.kind, "source": table.source, "note": table.note,
        "columns": [{"key": c.key, "label": c.label, "theorem": c.theorem, "conversion": c.conversion,
                     "delta": c.delta, "digits": c.digits, "extra": c.extra, "heavy": c.heavy,
                     "params": dict(c.params), "note": c.note, "erratum": c.erratum,
                     **({"var": c.var, "against": c.against} if c.conversion == "crossing" else {}),
                     **({"family": c.family, "quantity": c.quantity} if c.conversion == "exact" else {})}
                    for c in table.columns],
        "rows": rows,
        "counts": dict(sorted(counts.items())),
    }


def anchor(kind: str, item_id: str) -> str:
    """The HTML anchor of a reproduced table or figure (``table-bok2024-table5``, ``figure-bok2024-figure7``): the
    renderer's ids for them."""
    return f"{kind}-{item_id.replace('/', '-')}"


def _curve_value(theorem: Theorem, params: dict, spec, delta: float | None, curve, lookup) -> float:
    """One point of a curve: inputs taken from other theorems, then the theorem's value (its minimum with
    ``curve.min_with`` when the paper plots that minimum; outside this theorem's range, the other alone)."""
    for name, source in curve.inputs.items():
        params[name] = convert(lookup(source), params, "value")
    if curve.min_with is None:
        return convert(theorem, params, spec.quantity, delta)
    other = convert(lookup(curve.min_with), params, spec.quantity, delta)
    try:
        return min(convert(theorem, params, spec.quantity, delta), other)
    except InputError:
        return other


def figure_series(spec, lookup: Callable[[str], Theorem] | None = None, heavy: bool = True) -> dict:
    """The curves of a figure parameter set (a ``theorems.tables.FigureSpec``): one series per curve and delta.

    Points the theorem cannot give (an assumption not met at that ``x``, a missing operator) are ``None``, and
    the series' ``gap`` says why in words (the first such reason, with the x values it concerns).  A ``heavy``
    curve (a numerical composition minimised over a window) is computed only when ``heavy`` is true.
    """
    lookup = lookup or _lookup_default
    series = []
    deltas = spec.deltas if spec.quantity == "eps_at_delta" else (None,)
    for curve in spec.curves:
        for delta in deltas:
            ys, reason, missed = [], "", []
            try:
                theorem = lookup(curve.theorem)
            except KeyError as exc:
                theorem, reason = None, f"not drawn: {human_reason(exc)}"
            if theorem is not None and curve.heavy and not heavy:
                theorem, reason = None, ("not drawn: a numerical composition minimised over a window, drawn in the "
                                         "full profile only")
            for x in spec.xs:
                if theorem is None:
                    ys.append(None)
                    continue
                params = {**spec.params, **curve.params, **curve.by_x.get(x, {})}
                if curve.x_param:
                    params[curve.x_param] = float(math.ceil(x * curve.x_scale - 1e-9))
                params[spec.x] = float(x)
                try:
                    y = _curve_value(theorem, params, spec, delta, curve, lookup)
                    if not math.isfinite(y):
                        raise InputError("no finite value", spec.x)
                    ys.append(y)
                except Exception as exc:  # noqa: BLE001 - a gap in the curve, with the reason kept
                    ys.append(None)
                    missed.append(x)
                    reason = reason or human_reason(exc)
            if missed and len(missed) < len(spec.xs):
                reason = f"omitted at {spec.x} = {', '.join(f'{v:g}' for v in missed)}: {reason}"
            elif missed:
                reason = f"not drawn: {reason}"
            if reason and any(s["label"] == curve.label and s["gap"] == reason for s in series):
                reason = ""  # same gap as the series above (another delta)
            series.append({"theorem": curve.theorem, "label": curve.label, "delta": delta, "kind": curve.kind,
                           "y": ys, "gap": reason})
    return {"id": spec.id, "anchor": anchor("figure", spec.id), "paper": spec.paper, "label": spec.label,
            "caption": spec.caption, "x": spec.x, "xs": [float(x) for x in spec.xs], "quantity": spec.quantity,
            "ylabel": spec.ylabel, "series": series, "note": spec.note}


def checklist(items, tables: list[dict], figures: list[dict]) -> list[dict]:
    """Every printed table and figure of the papers (``theorems.tables.CHECKLIST``): reproduced or not, and why.

    A table counts as reproduced when no computed cell disagrees with its printed value except where a recorded
    erratum explains it (column ``erratum``) and no cell is a gap; a figure when every series is drawn.  The
    anchor is the first reproduction's (``table-...`` / ``figure-...``)."""
    tables_by_id = {t["id"]: t for t in tables}
    figures_by_id = {f["id"]: f for f in figures}
    out = []
    for item in items:
        found, problems, first = False, [], ""
        for rid in item.reproduced_by:
            for data, problem in ((tables_by_id.get(rid), _table_problem), (figures_by_id.get(rid), _figure_problem)):
                if data is None:
                    continue
                found = True
                first = first or data["anchor"]
                why = problem(data)
                if why:
                    problems.append(why)
        if not item.reproduced_by:
            status, why = "not reproduced", item.why
        elif not found:
            status, why = "not reproduced", "not part of this report (its paper was not selected)"
        elif problems:
            status, why = "not reproduced", "; ".join(problems)
        else:
            status, why = "reproduced", ""
        out.append({"paper": item.paper, "item": item.item, "status": status, "why": why,
                    "anchor": first if found else ""})
    return out


def _table_problem(table: dict) -> str:
    keys = {c["key"]: c for c in table["columns"]}
    bad, gaps = [], []
    for row in table["rows"]:
        for key, cell in row["cells"].items():
            if cell["status"] == "mismatch" and not keys[key].get("erratum"):
                bad.append(f"{row['label']}, {keys[key]['label']}: printed {cell['printed']:g}, "
                           f"computed {cell['computed']:.{keys[key]['digits'] + 1}f}")
            elif cell["status"] == "gap":
                gaps.append(cell.get("reason", ""))
    if bad:
        return f"{len(bad)} printed value(s) not reproduced ({bad[0]}" + ("; ..." if len(bad) > 1 else "") + ")"
    if gaps:
        return f"{len(gaps)} cell(s) not computed: {sorted(set(gaps))[0]}"
    return ""


def _figure_problem(figure: dict) -> str:
    missing = [s for s in figure["series"] if all(y is None for y in s["y"])]
    if missing:
        return f"{missing[0]['label']}: {missing[0]['gap'] or 'no value'}"
    return ""


__all__ = ["agrees", "anchor", "checklist", "convert", "crossing", "exact_quantity", "figure_series", "human_reason",
           "reproduce_table", "theorem_params"]
