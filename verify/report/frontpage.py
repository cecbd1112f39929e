"""The report's front page as data: the per-paper roll-up, the errata table, the
violations with their replay lines, and the ratio column said per relation.

Everything here reads the verdicts' JSON (``Verdict.to_json``) and the reproduced tables; the renderers
(:mod:`verify.report.render`) only lay it out.  An erratum row says where the paper errs, what it prints,
what is correct, how the error was detected (which obligation failed on the "as printed" record, which
printed cells do not come out, or "no software check"), the numbers, and the ``verify eval``
lines that replay them.  Findings no paper or paper note lists (an approximation that under-states the
privacy loss, a printed value that does not reproduce, a doubt of the paper notes the computation removes) are
rows of their own, marked ``origin = "software"``.
"""

from __future__ import annotations

import ast
import math
import re
import shlex
from collections import defaultdict
from typing import Any, Mapping

from theorems.findings import TABLE_NOTES
from theorems.tables import TABLES
from verify.check.certify import replay_line
from verify.check.evidence import ScalingCounterexample, StepOutcome, Witness, counterexample_from_json
from verify.check.verdict import Obligation
from verify.theorem import Theorem

PAPER_NAMES = {"chourasia2021": "Chourasia et al. 2021", "bu2020": "Bu et al. 2020", "bok2024": "Bok et al. 2024",
               "altschuler2022": "Altschuler & Talwar 2022", "baselines": "classical baselines"}
#: at most this many numbers (table cells) quoted per erratum; the rest are counted
QUOTED = 3


def g(x: Any, digits: int = 4) -> str:
    """A number in a sentence (4 significant digits); anything else as text."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return str(x)
    return f"{x:.{digits}g}" if math.isfinite(x) else str(x)


def eval_line(theorem_id: str, params: Mapping[str, Any]) -> str:
    """``verify eval ID name=value ...`` (values written so they read back to the same number)."""
    words = ["verify", "eval", theorem_id]
    for name, value in params.items():
        if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
            value = int(value)
        words.append(f"{name}={value!r}" if isinstance(value, float) else f"{name}={value}")
    return " ".join(shlex.quote(w) for w in words)


def _obligations(verdict: Mapping) -> list[dict]:
    return list(verdict.get("obligations", ()))


def _soundness(verdict: Mapping):
    """The soundness obligation's evidence (``SoundnessChecked``) and status, or (None, None)."""
    for o in _obligations(verdict):
        if o["name"] == "soundness":
            return Obligation.from_json(o).data, o["status"]
    return None, None


# ---------------------------------------------------------------------------------------------------
# the ratio column, said per relation (a bare "worst exact/bound" meant different things for upper and lower bounds)
# ---------------------------------------------------------------------------------------------------


def ratio_reading(kind: str, max_exact_over_bound: float | None) -> dict:
    """The summary's ratio for a theorem of ``kind``, exact/bound everywhere (as the terminal shows it): an
    upper bound's largest (the instance nearest to breaking it; <= 1 is sound); a lower bound's largest, at
    the instance where it is loosest (>= 1 is sound); an exact or approximate statement's largest (= 1 for
    exact)."""
    r = max_exact_over_bound
    if r is None or not math.isfinite(r):
        return {"label": "—", "value": None}
    if kind == "lower":
        return {"label": "largest exact/bound, loosest instance (>= 1 is sound)", "value": r}
    if kind == "upper":
        return {"label": "worst exact/bound (<= 1 is sound)", "value": r}
    return {"label": "largest exact/bound", "value": r}


def verdict_status(section: Mapping) -> str:
    """The verdict in words: a violated "as printed" record whose guarantee held on every compared instance
    (soundness passed; another check failed) is a wrong printed table or formula, not an unsound
    guarantee."""
    v = section["verdict"]
    verdict = v.get("verdict", "missing")
    if verdict != "violated":
        return verdict
    _, status = _soundness(v)
    failed = [o["name"] for o in _obligations(v) if o["status"] == "failed"]
    if status == "passed" and "soundness" not in failed:
        what = "printed table" if "table" in (section.get("statement", "") + section["id"]).lower() else \
            "printed formula"
        return f"{what} wrong ({', '.join(failed)} failed); guarantee sound"
    return "violated" + (" (as printed)" if section.get("printed_of") else "")


# ---------------------------------------------------------------------------------------------------
# per-paper roll-up
# ---------------------------------------------------------------------------------------------------


def paper_rollup(report: Mapping) -> list[dict]:
    """Per paper: the verdict counts (violations expected of "as printed" records apart), instances the
    soundness search compared, the regime cells it visited, the mutation score of its theorems, and its errata:
    confirmed by a software check, notation only, unchecked, and the findings no paper lists."""
    by_paper: dict[str, dict] = {}
    killed: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    paper_of = {s["id"]: s["paper"] for s in report["theorems"]}
    for t in report.get("mutation", {}).get("theorems", ()):
        paper = paper_of.get(t["id"])
        if paper is not None:
            killed[paper][0] += len(t.get("killed", ()))
            killed[paper][1] += len(t.get("killed", ())) + len(t.get("survivors", ()))
    for s in report["theorems"]:
        row = by_paper.setdefault(s["paper"], {"paper": s["paper"], "name": PAPER_NAMES.get(s["paper"], s["paper"]),
                                               "theorems": 0, "verified": 0, "violated": 0, "violated_expected": 0,
                                               "approximate": 0, "inconclusive": 0, "instances": 0, "cells": set(),
                                               "families": set()})
        v = s["verdict"]
        verdict = v.get("verdict", "inconclusive")
        row["theorems"] += 1
        row[verdict if verdict in row else "inconclusive"] += 1
        if verdict == "violated" and v.get("expected"):
            row["violated_expected"] += 1
        data, _ = _soundness(v)
        if data is not None:
            row["instances"] += getattr(data, "examples", 0) or 0
            row["cells"] |= set(getattr(data, "cells", None) or ())
            row["families"] |= set(getattr(data, "families", None) or ())
    errata: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for e in report.get("errata", ()):
        errata[e.get("paper", "")][e.get("status", "unchecked")] += 1
    out = []
    for paper, row in by_paper.items():
        k, n = killed.get(paper, (0, 0))
        counts = errata.get(paper, {})
        out.append({**row, "cells": len(row["cells"]), "families": len(row["families"]),
                    "mutation": f"{k}/{n}" if n else "—", "errata_confirmed": counts.get("confirmed", 0),
                    "errata_notation": counts.get("notation", 0),
                    "errata_unchecked": counts.get("unchecked", 0) + counts.get("not confirmed", 0),
                    "findings": counts.get("finding", 0)})
    return out


# ---------------------------------------------------------------------------------------------------
# violations: the minimal and the largest-margin counterexample, each with its replay line
# ---------------------------------------------------------------------------------------------------


def _witness_text(w: Witness) -> str:
    at = "" if w.at is None else f" at {w.parameter or 'at'}={g(w.at)}"
    return f"exact {g(w.exact, 6)} vs bound {g(w.bound, 6)} on {w.instance}{at}"


def _claim_point(detail: str) -> dict | None:
    """The parameter point a failed claim names (``fails at {'T': 3516.0, ...}``), or None."""
    m = re.search(r"fails at (\{[^{}]*\})", detail)
    if not m:
        return None
    try:
        point = ast.literal_eval(m.group(1))
    except (ValueError, SyntaxError):
        return None
    return point if isinstance(point, dict) else None


def violation(section: Mapping) -> dict:
    """What makes a violated record violated: the minimal (shrunk) counterexample and the largest-margin
    one, each with its replay line; for a violation without an instance (a failed scaling or claims
    check) the failed check, why there is no instance, and a line evaluating the point it names."""
    v = section["verdict"]
    tid = section["id"]
    out: dict[str, Any] = {"id": tid, "anchor": section["anchor"], "status": verdict_status(section),
                           "expected": bool(v.get("expected")), "printed_of": section.get("printed_of"),
                           "items": []}
    data, status = _soundness(v)
    replays = list(getattr(data, "replay", None) or ()) if data is not None else []
    cex = counterexample_from_json(v.get("counterexample"))
    if status == "failed":
        minimal = cex if isinstance(cex, Witness) else None
        detail = next(o["detail"] for o in _obligations(v) if o["name"] == "soundness")
        if minimal is not None or replays:
            text = _witness_text(minimal) if minimal is not None else detail
            out["items"].append({"what": "minimal counterexample (shrunk)", "text": text
                                 + (f"; certified margin {g(data.margin)}" if data.margin is not None else ""),
                                 "replay": replays[0] if replays else replay_line(tid, minimal)})
        largest = getattr(data, "largest", None)
        if largest is not None:
            out["items"].append({"what": "largest-margin counterexample", "text": _witness_text(largest)
                                 + (f"; margin {g(data.largest_margin)}" if data.largest_margin is not None else ""),
                                 "replay": replays[-1] if replays else replay_line(tid, largest)})
    for o in _obligations(v):
        if o["status"] != "failed" or o["name"] == "soundness":
            continue
        item = {"what": f"failed {o['name']} check", "text": o["detail"], "replay": None}
        if isinstance(cex, ScalingCounterexample) and o["name"] == "scaling":
            item["text"] += (f" (at c = {g(cex.c)}: bound {g(cex.bound, 6)} vs {g(cex.bound_rescaled, 6)} on the "
                             "rescaled twin; a correct bound is equal on both)")
            item["replay"] = eval_line(tid, cex.parameters) + "  # vs  " + eval_line(tid, cex.rescaled)
        elif o["name"] == "claims":
            point = _claim_point(o["detail"])
            if point:
                item["replay"] = eval_line(tid, point)
        out["items"].append(item)
    if not any(i["what"].endswith("counterexample (shrunk)") or i["what"].startswith("largest") for i in out["items"]):
        failed = [o["name"] for o in _obligations(v) if o["status"] == "failed"]
        out["no_instance"] = ("no instance counterexample: " + (
            f"the violation is a failed {', '.join(failed)} check, a property of the formula, not an instance "
            "whose exact privacy exceeds the bound" if failed else "the verdict names no failed check"))
        if status == "passed":
            out["no_instance"] += f"; the soundness search found none on {data.examples} instances"
    return out


def violations(report: Mapping) -> list[dict]:
    return [violation(s) for s in report["theorems"] if s["verdict"].get("verdict") == "violated"]


# ---------------------------------------------------------------------------------------------------
# the errata table
# ---------------------------------------------------------------------------------------------------


def _table_cells(tables: list[dict]) -> list[dict]:
    """Every mismatched printed cell, with what computes it (theorem, conversion, parameters)."""
    specs = {t.id: t for t in TABLES}
    out = []
    for t in tables:
        columns = {c["key"]: c for c in t["columns"]}
        for row in t["rows"]:
            for key, cell in row["cells"].items():
                if cell["status"] != "mismatch":
                    continue
                c = columns[key]
                out.append({"table": t["id"], "label": t["label"], "paper": t["paper"], "row": row["label"],
                            "column": c["label"], "key": key, "printed": cell["printed"],
                            "computed": cell["computed"], "erratum": c.get("erratum"), "theorem": c["theorem"],
                            "replay": _cell_replay(specs.get(t["id"]), row, c)})
    return out


def _cell_replay(spec, row: Mapping, column: Mapping) -> str | None:
    """The ``verify eval`` line computing a table cell, when the cell is one evaluation (a value, or an
    (eps, delta) theorem's eps at the column's delta)."""
    if spec is None or not column.get("theorem") or column.get("conversion") == "crossing" or column.get("inputs"):
        return None
    params = {**dict(row.get("params") or {}), **dict(column.get("params") or {})}
    if column.get("conversion") == "eps_at_delta":
        import theorems

        try:
            if theorems.get(column["theorem"]).notion != "eps_delta":
                return None
        except KeyError:
            return None
        params["delta"] = column["delta"]
    return eval_line(column["theorem"], params) if params else None


def _cell_text(m: Mapping) -> str:
    return f"{m['label']}, {m['row']}, {m['column']}: printed {g(m['printed'])}, computed {g(m['computed'], 5)}"


def _quoted(cells: list[dict]) -> list[str]:
    out = [_cell_text(m) for m in cells[:QUOTED]]
    if len(cells) > QUOTED:
        out.append(f"and {len(cells) - QUOTED} more cells ({', '.join(sorted({m['label'] for m in cells}))})")
    return out


def errata_rows(records: list[Theorem], verdicts: Mapping[str, Mapping], tables: list[dict]) -> list[dict]:
    """The errata table: one row per distinct recorded erratum (shared by several records: listed once),
    then the software's own findings."""
    cells = _table_cells(tables)
    explained: dict[str, list[dict]] = defaultdict(list)
    for m in cells:
        if m["erratum"]:
            explained[m["erratum"]].append(m)
    rows: dict[tuple, dict] = {}
    for theorem in records:
        for e in theorem.errata:
            key = (e.text, e.evidence, e.variant)
            if key in rows:
                rows[key]["records"].append(theorem.id)
                continue
            rows[key] = _erratum_row(theorem, e, verdicts, explained)
    out = list(rows.values())
    shown = {m["table"] + m["row"] + m["key"] for r in out for m in r.pop("_cells", [])}
    out += _software_findings(records, verdicts, tables, [m for m in cells if m["table"] + m["row"] + m["key"]
                                                          not in shown])
    return out


def _erratum_row(theorem: Theorem, e, verdicts: Mapping[str, Mapping], explained: Mapping[str, list]) -> dict:
    detected, numbers, replay, evidence = [], [], [], []
    if e.variant and e.variant in verdicts:
        v = verdicts[e.variant]
        failed = [o for o in _obligations(v) if o["status"] == "failed"]
        section = {"id": e.variant, "anchor": "", "verdict": v, "printed_of": v.get("printed_of")}
        found = violation(section)
        for o in failed:
            kind = "failed scaling check" if o["name"] == "scaling" else f"failed {o['name']}"
            evidence.append({"kind": kind, "detail": o["detail"]})
            detected.append(f"{o['name']} check failed on {e.variant}")
        if v.get("counterexample"):
            evidence.append({"kind": "counterexample", "detail": v["counterexample"]})
        for item in found["items"]:
            numbers.append(f"{item['what']}: {item['text']}")
            if item["replay"]:
                replay.append(item["replay"])
        if not failed:
            detected.append(f"not caught: {e.variant} is {v.get('verdict')}")
            evidence.append({"kind": "variant not caught", "detail": f"{e.variant}: verdict {v.get('verdict')}"})
    elif e.variant:
        detected.append(f"{e.variant} not in this run")
        evidence.append({"kind": "variant not checked", "detail": f"{e.variant} is not in this run"})
    if e.step:
        found = _step_detection(theorem.id, e.step, verdicts)
        detected.append(found["detected"])
        numbers += found["numbers"]
        replay += found["replay"]
        evidence += found["evidence"]
    if e.notation:
        detected.append(f"notation only: {e.notation}")
    related = {theorem.id, *(x.id for x in theorem.variants), *([theorem.printed_of] if theorem.printed_of else [])}
    mine = [m for tid in sorted(related) for m in explained.get(tid, [])]
    if mine:
        detected.append(f"table reproduction: {len(mine)} printed cell(s) do not come out")
        numbers += _quoted(mine)
        replay += sorted({m["replay"] for m in mine if m["replay"]})[:2]
        evidence += [{"kind": "table mismatch", "detail": {k: m[k] for k in ("table", "label", "row", "column",
                                                                             "printed", "computed")}}
                     for m in mine]
    said = "; ".join(dict.fromkeys(detected)) or "no software check"
    return {"theorem": theorem.id, "record": e.variant or theorem.id, "records": [theorem.id], "origin": "paper",
            "paper": theorem.source.paper, "location": theorem.source.statement, "printed": e.text,
            "corrected": e.evidence, "text": e.text, "variant": e.variant, "step": e.step,
            "detected": said, "status": _row_status(said, e),
            "numbers": numbers, "replay": list(dict.fromkeys(replay)), "evidence": evidence, "_cells": mine}


def _row_status(detected: str, e) -> str:
    """An erratum row's standing: "confirmed" by a software check, "notation" (no mathematical content to
    check), "not confirmed" (a check ran and did not find it) or "unchecked"."""
    if e.notation:
        return "notation"
    if detected.startswith("no software check"):
        return "unchecked"
    if "not caught" in detected or "NOT confirmed" in detected or "not in this run" in detected:
        return "not confirmed"
    return "confirmed"


def step_outcomes(verdict: Mapping | None) -> list[StepOutcome]:
    """The decided proof steps of a verdict (its ``proof`` obligation), in the record's order."""
    for o in _obligations(verdict or {}):
        if o["name"] == "proof" and o.get("data"):
            return list(Obligation.from_json(o).data.steps)
    return []


def _step_detection(theorem_id: str, step_id: str, verdicts: Mapping[str, Mapping]) -> dict:
    """How the proof step ``step_id`` of ``theorem_id`` detects an erratum: in words, its numbers, its replay."""
    outcome = next((s for s in step_outcomes(verdicts.get(theorem_id)) if s.step == step_id), None)
    if outcome is None:
        return {"detected": f"proof step {step_id} not in this run", "numbers": [], "replay": [],
                "evidence": [{"kind": "step not checked", "detail": f"{theorem_id} --step {step_id}"}]}
    numbers = ([f"as printed: {outcome.printed.detail}"] if outcome.printed is not None else []) \
        + [f"corrected: {outcome.corrected.detail}"]
    if not outcome.as_expected:
        said = f"proof step {step_id} ({outcome.kind}): NOT confirmed"
    elif outcome.expected == "loose":
        said = (f"proof step {step_id} ({outcome.kind}): both readings hold; the printed one is weaker"
                + (f" (printed/corrected >= {g(outcome.ratio, 4)})" if outcome.ratio is not None else ""))
    else:
        said = f"proof step {step_id} ({outcome.kind} check): fails as printed, holds corrected"
    return {"detected": said, "numbers": numbers, "replay": [outcome.replay] if outcome.replay else [],
            "evidence": [{"kind": "proof step", "detail": outcome.to_json()}]}


def _software_findings(records: list[Theorem], verdicts: Mapping[str, Mapping], tables: list[dict],
                       unexplained: list[dict]) -> list[dict]:
    """Rows no paper or paper note lists: approximations that under-state the privacy loss, printed cells
    that do not reproduce (with the note :data:`theorems.findings.TABLE_NOTES` gives them), and printed
    cells whose doubt in the paper notes the computation removes."""
    out = []
    for t in records:
        row = _understatement(t, verdicts.get(t.id))
        if row is not None:
            out.append(row)
        out += _step_findings(t, verdicts.get(t.id))
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for m in unexplained:
        groups[(m["table"], m["key"])].append(m)
    notes = {(n.table, n.row, n.column): n for n in TABLE_NOTES}
    for (table, key), ms in groups.items():
        note = next((notes[(table, m["row"], key)] for m in ms if (table, m["row"], key) in notes), None)
        out.append({"theorem": ms[0]["theorem"], "record": ms[0]["theorem"], "records": [ms[0]["theorem"]],
                    "origin": "software", "status": "finding", "paper": ms[0]["paper"],
                    "location": f"{ms[0]['label']}, column {ms[0]['column']}",
                    "printed": ", ".join(f"{g(m['printed'])} ({m['row']})" for m in ms),
                    "corrected": note.text if note else "computed: " + ", ".join(g(m["computed"], 5) for m in ms),
                    "text": f"printed {ms[0]['label']} values that do not reproduce", "variant": None,
                    "detected": f"table reproduction ({ms[0]['column']} = {ms[0]['theorem']})",
                    "numbers": _quoted(ms), "replay": sorted({m["replay"] for m in ms if m["replay"]})[:2],
                    "evidence": [{"kind": "table mismatch", "detail": {k: m[k] for k in
                                  ("table", "label", "row", "column", "printed", "computed")}} for m in ms]})
    by_cell = {(t["id"], row["label"], key): (t, row, cell) for t in tables for row in t["rows"]
               for key, cell in row["cells"].items()}
    for n in TABLE_NOTES:
        if n.kind != "confirmed" or (n.table, n.row, n.column) not in by_cell:
            continue
        t, row, cell = by_cell[(n.table, n.row, n.column)]
        column = next(c for c in t["columns"] if c["key"] == n.column)
        ok = cell["status"] == "match"
        out.append({"theorem": column["theorem"], "record": column["theorem"], "records": [column["theorem"]],
                    "origin": "software", "status": "finding", "paper": t["paper"],
                    "location": f"{t['label']}, {row['label']}, {column['label']}",
                    "printed": g(cell.get("printed")), "corrected": n.text if ok else "not confirmed in this run",
                    "text": n.text, "variant": None,
                    "detected": "table reproduction: " + ("the printed value is correct" if ok else
                                                          f"cell {cell['status']}"),
                    "numbers": [f"printed {g(cell.get('printed'))}, computed {g(cell.get('computed'), 6)}"],
                    "replay": [r for r in [_cell_replay(next((s for s in TABLES if s.id == t["id"]), None), row, column)]
                               if r],
                    "evidence": [{"kind": "table match" if ok else "table cell", "detail": n.text}]})
    return out


def _step_findings(theorem: Theorem, verdict: Mapping | None) -> list[dict]:
    """Proof steps that fail where the record says they hold (a corrected reading, or a step printed as it
    holds): errors no paper or paper note lists."""
    out = []
    for s in step_outcomes(verdict):
        if s.corrected.holds:
            continue
        out.append({"theorem": theorem.id, "record": theorem.id, "records": [theorem.id], "origin": "software",
                    "paper": theorem.source.paper, "location": s.where, "step": s.step,
                    "printed": f"proof step {s.step}", "corrected": "(none: the step fails as the record reads it)",
                    "text": f"proof step {s.step} of {theorem.id} fails", "variant": None,
                    "detected": f"proof step {s.step} ({s.kind} check)", "status": "finding",
                    "numbers": [s.corrected.detail], "replay": [s.replay] if s.replay else [],
                    "evidence": [{"kind": "proof step", "detail": s.to_json()}]})
    return out


def _understatement(theorem: Theorem, verdict: Mapping | None) -> dict | None:
    """An approximation's under-statement of the privacy loss (its approximation evidence), as a finding."""
    if verdict is None or theorem.kind != "approximation":
        return None
    for o in _obligations(verdict):
        if o["name"] != "approximation" or o["status"] != "approximate":
            continue
        data = Obligation.from_json(o).data
        rows = [r for r in getattr(data, "rows", ()) if hasattr(r, "relative_error")]
        under = [r for r in rows if r.understates]
        if not under:
            return None
        worst = min(under, key=lambda r: r.relative_error)
        paper_rows = [r for r in rows if r.from_paper]
        params = ", ".join(f"{k}={g(x)}" for k, x in worst.parameters.items() if k != "delta")
        numbers = [f"under-states eps on {len(under)} of {len(rows)} compared points"
                   + (f" ({sum(r.understates for r in paper_rows)} of the paper's {len(paper_rows)} rows)"
                      if paper_rows else ""),
                   f"worst: {params}, delta={g(worst.delta)}: approximate eps {g(worst.eps_approx, 5)} vs exact "
                   f"{g(worst.eps_exact, 5)} ({100 * worst.relative_error:+.1f}%)"]
        replay = []
        if theorem.notion == "eps_delta":
            replay.append(eval_line(theorem.id, {**{k: x for k, x in worst.parameters.items() if k != "delta"},
                                                 "delta": worst.delta}))
        return {"theorem": theorem.id, "record": theorem.id, "records": [theorem.id], "origin": "software",
                "status": "finding", "paper": theorem.source.paper, "location": theorem.source.statement,
                "printed": f"{theorem.title} (an approximation the paper uses as the privacy guarantee)",
                "corrected": "the exact composition is larger: the approximation under-states the privacy loss "
                             "where its error is negative", "text": o["detail"], "variant": None,
                "detected": "approximation error against exact composition", "numbers": numbers,
                "replay": replay, "evidence": [{"kind": "approximation", "detail": o["detail"]}]}
    return None


def errata_groups(rows: list[dict]) -> list[tuple[str, str, list[dict]]]:
    """The errata table's two parts, (title, origin, rows), each when not empty: the papers' errata, then
    the findings of this tool."""
    parts = (("Errata of the papers", "paper"), ("Found by this tool (no paper or paper note lists them)", "software"))
    out = []
    for title, origin in parts:
        mine = [e for e in rows if e.get("origin", "paper") == origin]
        if mine:
            out.append((title, origin, mine))
    return out


def checklist(report: Mapping) -> list[dict]:
    """The reproduction checklist: the one the reproduction gives, else every reproduced table and figure
    as reproduced."""
    repro = report.get("reproduction", {})
    if repro.get("checklist") is not None:
        return list(repro["checklist"])
    out = [{"paper": t["paper"], "item": t["label"], "status": "reproduced", "why": "",
            "anchor": "table-" + t["id"].replace("/", "-")} for t in repro.get("tables", ())]
    out += [{"paper": f["paper"], "item": f"{f['label']} (replotted)", "status": "reproduced", "why": "",
             "anchor": ""} for f in repro.get("figures", ())]
    return out


def paper_name(paper: str) -> str:
    return PAPER_NAMES.get(paper, paper)


__all__ = ["checklist", "errata_groups", "errata_rows", "eval_line", "paper_name", "paper_rollup", "ratio_reading",
           "verdict_status", "violation", "violations"]

