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
    if column.theorem is None:
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
    for name, key in column.inputs.items():
        source = computed_row.get(key)
        if source is None:
            cell["status"] = "gap"
            cell["reason"] = f"input {name} from column {key!r} is not available"
            return cell
        params[name] = source
    try:
        theorem = lookup(column.theorem)
        if column.conversion == "crossing":
            value = float(crossing(theorem, lookup(column.against), params, column.var))
        else:
            value = convert(theorem, params, column.conversion, column.delta)
        if not math.isfinite(value):
            raise ValueError(f"non-finite value {value}")
    except KeyError as exc:
        cell.update(status="gap", reason=str(exc.args[0]) if exc.args else "unknown theorem")
        return cell
    except Exception as exc:  # noqa: BLE001 - a piece not written yet is a gap, never a crash
        message = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
        cell.update(status="gap", reason=message)
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
        "id": table.id, "paper": table.paper, "label": table.label, "caption": table.caption,
        "kind": table.kind, "source": table.source, "note": table.note,
        "columns": [{"key": c.key, "label": c.label, "theorem": c.theorem, "conversion": c.conversion,
                     "delta": c.delta, "digits": c.digits, "extra": c.extra, "heavy": c.heavy,
                     "params": dict(c.params), "note": c.note, "erratum": c.erratum,
                     **({"var": c.var, "against": c.against} if c.conversion == "crossing" else {})}
                    for c in table.columns],
        "rows": rows,
        "counts": dict(sorted(counts.items())),
    }


def figure_series(spec, lookup: Callable[[str], Theorem] | None = None) -> dict:
    """The curves of a figure parameter set (a ``theorems.tables.FigureSpec``): one series per curve and delta.

    Points the theorem cannot give (an assumption not met at that ``x``, a missing operator) are ``None``.
    """
    lookup = lookup or _lookup_default
    series = []
    deltas = spec.deltas if spec.quantity == "eps_at_delta" else (None,)
    for curve in spec.curves:
        for delta in deltas:
            ys, reason = [], ""
            try:
                theorem = lookup(curve.theorem)
            except KeyError as exc:
                theorem, reason = None, str(exc.args[0])
            for x in spec.xs:
                if theorem is None:
                    ys.append(None)
                    continue
                params = {**spec.params, **curve.params}
                if curve.x_param:
                    params[curve.x_param] = float(math.ceil(x * curve.x_scale - 1e-9))
                    params[spec.x] = float(x)
                else:
                    params[spec.x] = float(x)
                try:
                    y = convert(theorem, params, spec.quantity, delta)
                    ys.append(y if math.isfinite(y) else None)
                except Exception as exc:  # noqa: BLE001 - a gap in the curve, with the reason kept
                    ys.append(None)
                    reason = reason or f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
            if reason and any(s["theorem"] == curve.theorem and s["gap"] == reason for s in series):
                reason = ""  # same gap as the series above (another delta)
            series.append({"theorem": curve.theorem, "label": curve.label, "delta": delta,
                           "y": ys, "gap": reason})
    return {"id": spec.id, "paper": spec.paper, "label": spec.label, "caption": spec.caption, "x": spec.x,
            "xs": [float(x) for x in spec.xs], "quantity": spec.quantity, "ylabel": spec.ylabel,
            "series": series, "note": spec.note}


__all__ = ["agrees", "convert", "crossing", "figure_series", "reproduce_table", "theorem_params"]
