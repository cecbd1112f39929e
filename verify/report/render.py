"""The report's sections (a report dict of ``verify.report.build``) as blocks of the section model
(:mod:`verify.report.page`), and the two pages the writers make of them.

``report.md`` renders on a code-hosting site (GitHub math ``$$...$$``, figures as relative links into
``figures/``); ``report.html`` is one self-contained file: inline CSS, figures as inline SVG, formulas as
MathML (:mod:`verify.report.mathml`), no script and no external URL.  It opens with the front page
(:mod:`verify.report.frontpage`): per-paper roll-up, errata table, violations with replay lines, the
reproduction checklist; then the summary, one section per theorem, the reproduced tables and figures.
Each section is built once; :func:`markdown` and :func:`html_page` only lay the blocks out.
"""

from __future__ import annotations

import math
from typing import Mapping

from verify.report import frontpage
from verify.report import page as pg
from verify.report.build import slug
from verify.report.page import BR, Block, Bullets, Cell, Figure, Formula, Group, Heading, Item, Paragraph, Table
from verify.report.page import code, coloured, em, link, strong

VERDICT_MARK = {"verified": "✅", "violated": "❌", "approximate": "≈", "inconclusive": "❔", "ill-formed": "⚠",
                "missing": "—"}


def fmt(value, digits: int = 4) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        if value != 0 and (abs(value) >= 1e5 or abs(value) < 1e-3):
            return f"{value:.{digits}g}"
        return f"{value:.{digits}g}" if abs(value) >= 10 ** digits else f"{round(value, digits):g}"
    return str(value)


def cell_text(cell: Mapping, digits: int) -> tuple[str, str]:
    """A reproduced cell as (text, status)."""
    status = cell["status"]
    raw = cell.get("printed")
    # printed numbers as the paper prints them (trailing zeros kept: "5.60")
    printed = f"{raw:.{digits}f}" if isinstance(raw, float) and digits > 0 else fmt(raw)
    if status in ("printed-only", "not-applicable"):
        return printed, status
    if status == "gap":
        return f"{printed} (gap)", status
    computed = fmt(cell["computed"], max(digits + 2, 3))
    if status == "computed":
        return computed, status
    if status == "match":
        return f"{printed} ✓ ({computed})", status
    return f"{printed} ≠ {computed}", status



# ---------------------------------------------------------------------------------------------------
# the pages
# ---------------------------------------------------------------------------------------------------


def sections(report: Mapping) -> list[Block]:
    """Every section of the report, in page order."""
    blocks: list[Block] = []
    for part in (header, front, errata, violations, checklist, summary, theorem_sections, reproduction, gaps):
        blocks += part(report)
    return blocks


def markdown(report: Mapping) -> str:
    """The report as Markdown."""
    return pg.markdown(sections(report))


def html_page(report: Mapping, figure_svgs: Mapping[str, str], formulas: Mapping[str, str]) -> str:
    """The report as one self-contained HTML page: figures inline as SVG, formulas as MathML (the browser's
    own rendering: no script, no font, no external URL)."""
    head = ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>Tightness report</title>\n<style>{CSS}</style></head><body>")
    return head + "\n" + pg.html_blocks(sections(report), figure_svgs, formulas) + "\n</body></html>\n"


# ---------------------------------------------------------------------------------------------------
# sections
# ---------------------------------------------------------------------------------------------------

#: evidence longer than this (characters) is folded on the HTML page
FOLD = 400

NAV = (("front", "At a glance"), ("errata", "Errata"), ("violations", "Violations"), ("checklist", "Checklist"),
       ("summary", "Summary"), ("theorems", "Theorems"), ("reproduction", "Reproduction"), ("gaps", "Gaps"))


def _mutation_lines(report: Mapping) -> list[str]:
    """The mutation self-test's score line and its survivors (:class:`verify.check.mutation.MutationScore`)."""
    meta = report["meta"]
    if "mutation" not in meta:
        return []
    return [meta["mutation"]] + [f"mutant survived: {line}" for line in meta.get("mutation_survivors", [])]


def header(report: Mapping) -> list[Block]:
    """Title, what the run was, the mutation score, the way around."""
    meta = report["meta"]
    run = ["Profile ", code(meta["profile"]), f", seed {meta['seed']}"]
    if meta.get("only"):
        run += [", only ", code(meta["only"])]
    run.append(f": {len(report['theorems'])} theorems. Verdicts: ")
    for i, (k, n) in enumerate(sorted(meta["counts"].items())):
        run += [", " if i else "", coloured(f"{k} {n}", k)]
    run.append(".")
    blocks: list[Block] = [Heading(1, ["Tightness report"]), Paragraph(run)]
    lines = _mutation_lines(report)
    if lines:
        text: list = []
        for i, line in enumerate(lines):
            text += [BR, line] if i else [line]
        blocks.append(Paragraph(text, cls="mutation"))
    blocks.append(Paragraph(["Also as ", pg.Span("HTML", href="report.html"), " (self-contained) and ",
                             pg.Span("JSON", href="report.json"), "."], only="md"))
    nav: list = []
    for i, (anchor, label) in enumerate(NAV):
        nav += [" · " if i else "", link(label, anchor)]
    blocks.append(Paragraph(nav, only="html"))
    return blocks


def front(report: Mapping) -> list[Block]:
    """Per paper: verdicts, the search's coverage, the mutation score."""
    header_ = [Cell([h]) for h in ("paper", "theorems", "verified", "violated (as printed / unexpected)",
                                   "approximate", "inconclusive", "instances compared", "regime cells",
                                   "mutants killed", "errata confirmed by software", "notation only",
                                   "errata unchecked", "findings no paper lists")]
    rows = []
    for r in frontpage.paper_rollup(report):
        unexpected = r["violated"] - r["violated_expected"]
        rows.append([Cell([r["name"]]), Cell([str(r["theorems"])]), Cell([str(r["verified"])], "verified"),
                     Cell([f"{r['violated']} ({r['violated_expected']} / {unexpected})"],
                          "violated" if unexpected else ""),
                     Cell([str(r["approximate"])], "approximate"), Cell([str(r["inconclusive"])], "inconclusive"),
                     Cell([str(r["instances"])]), Cell([str(r["cells"])]), Cell([str(r["mutation"])]),
                     Cell([str(r["errata_confirmed"])], "verified"), Cell([str(r["errata_notation"])]),
                     Cell([str(r["errata_unchecked"])], "inconclusive" if r["errata_unchecked"] else ""),
                     Cell([str(r["findings"])])])
    note = ("Instances compared: exact references the soundness search compared the bounds with; regime cells: "
            "distinct regimes of the theorems' own coordinates it visited; mutants killed: deliberately wrong "
            "copies of the verified theorems that the search showed unsound; errata confirmed by software: errata "
            "a check of this tool detects (a record, a table cell, a proof step), each with its replay line; "
            "notation only: errata with no mathematical content to check (a misnamed symbol in prose).")
    return [Heading(2, ["At a glance"], "front"), Table(header_, rows), Paragraph([note], small=True)]


def summary(report: Mapping) -> list[Block]:
    """One row per theorem: verdict in words, the ratio said per relation, where it beats composition."""
    ratio = Cell(["exact/bound (largest; median)"],
                 title="upper bounds: sound at <= 1; lower bounds: sound at >= 1, the largest is the loosest instance")
    header_ = [Cell(["theorem"]), Cell(["paper"]), Cell(["notion"]), Cell(["verdict"]), ratio,
               Cell(["beats the composition baseline"])]
    rows = []
    for r in report["summary"]:
        status = r.get("status", r["verdict"])
        cls = "sound-table" if status.startswith("printed") else r["verdict"]
        rows.append([Cell([link(r["id"], r["anchor"])]), Cell([r["paper"]]), Cell([f"{r['notion']} ({r['kind']})"]),
                     Cell([f"{VERDICT_MARK.get(r['verdict'], '')} {status}"], cls), Cell([_ratio_text(r)]),
                     Cell([r["beats_baseline"]])])
    return [Heading(2, ["Summary"], "summary"), Table(header_, rows)]


def _ratio_text(row: Mapping) -> str:
    """``0.98; median 0.5`` (exact/bound, the largest and the median over the compared instances; a lower
    bound's largest is its loosest instance)."""
    value = row.get("ratio", row.get("worst_ratio"))
    if value is None:
        return "—"
    median = row.get("median_ratio")
    return fmt(value) + (f"; median {fmt(median)}" if median is not None else "") + (
        " (loosest)" if row.get("kind") == "lower" else "")


def _counterexamples(found: Mapping) -> Bullets:
    """A violation's counterexamples, each with its replay line."""
    items = [Item([f"{i['what']}: {i['text']}"] + ([BR, code(i["replay"], "replay")] if i["replay"] else []))
             for i in found["items"]]
    if found.get("no_instance"):
        items.append(Item([found["no_instance"]]))
    return Bullets(items)


def violations(report: Mapping) -> list[Block]:
    """Each violated record: the minimal and the largest-margin counterexample with their replay lines."""
    blocks: list[Block] = [Heading(2, ["Violations"], "violations")]
    found = frontpage.violations(report)
    if not found:
        blocks.append(Paragraph(["No theorem violated."]))
    for v in found:
        expected = "expected: an as-printed record" if v["expected"] else "UNEXPECTED"
        cls = "sound-table" if v["status"].startswith("printed") else "violated"
        title = Paragraph([_ref(v["id"], report, bold=True), ": ", coloured(v["status"], cls), f" ({expected})"])
        blocks.append(Group([title, _counterexamples(v)], cls="violation"))
    return blocks


def checklist(report: Mapping) -> list[Block]:
    """Every printed table and figure of the papers: reproduced, or not and why."""
    repro = report["reproduction"]
    anchors = {_table_anchor(t) for t in repro["tables"]} | {_figure_anchor(f) for f in repro["figures"]}
    rows = []
    for c in frontpage.checklist(report):
        item = link(c["item"], c["anchor"]) if c.get("anchor") in anchors else c["item"]
        cls = "verified" if c["status"] == "reproduced" else "inconclusive"
        rows.append([Cell([frontpage.paper_name(c["paper"])]), Cell([item]), Cell([c["status"]], cls),
                     Cell([c.get("why") or ""])])
    header_ = [Cell([h]) for h in ("paper", "item", "status", "why")]
    return [Heading(2, ["Reproduction checklist"], "checklist"), Table(header_, rows)]


def theorem_sections(report: Mapping) -> list[Block]:
    """A section per theorem."""
    return [Heading(2, ["Theorems"], "theorems")] + [theorem(s, report) for s in report["theorems"]]


def theorem(s: Mapping, report: Mapping) -> Group:
    """One theorem: record, bound, assumptions, verdict and obligations, curves, errata, gaps."""
    setting = ", ".join(f"{k}={v}" for k, v in s["setting"].items())
    blocks: list[Block] = [
        Heading(3, [f"{s['id']}: {s['title']}"]),
        Paragraph([em(f"{s['paper']}, {s['statement']}"), "; notion ", code(s["notion"]), ", kind ", code(s["kind"]),
                   f"; setting {setting}."]),
    ]
    if s["printed_of"]:
        blocks.append(Paragraph(["As printed in the paper; the corrected record is ", _ref(s["printed_of"], report),
                                 "."]))
    blocks += [Paragraph(["Bound (canonical vocabulary):"]), Formula(s["bound"]["latex"], f"{s['id']}#bound"),
               Paragraph([code(s["bound"]["text"])])]
    if s["paper_form"]:
        blocks += [Paragraph(["Paper's form:"]),
                   Formula(s["paper_form"], f"{s['id']}#paper", "the paper's LaTeX could not be converted: see "
                                                               "report.md")]
    if s["assumptions"]:
        blocks += [Paragraph(["Assumptions:"]),
                   Bullets([Item([a["text"], " (", code(a["relation"]), ")"]) for a in s["assumptions"]])]
    blocks += _verdict(s)
    point = ""
    if s.get("point"):
        values = ", ".join(f"{k}={fmt(x)}" for k, x in s["point"].items())
        point = f" Curves drawn at {s['point_origin'] or 'the point'}: {values}."
    blocks.append(Paragraph([f"Where it beats the composition baseline: {s['beats_baseline']}.{point}"]))
    if s.get("audit"):
        a = s["audit"]
        blocks.append(Paragraph([f"Simulation audit on {a['instance']}: audited lower {fmt(a['lower'])} vs bound "
                                 f"{fmt(a['bound'])} ({a['runs']} runs, confidence {a['confidence']})."]))
    blocks += [Figure(f, report["figures_index"][f]) for f in s["figures"]]
    blocks += [Paragraph([strong("Erratum:"), " ", e["text"]]) for e in s["errata"]]
    if s["gaps"]:
        blocks.append(Bullets([Item([f"gap: {g}"], "gap") for g in s["gaps"]]))
    return Group(blocks, tag="section", cls="theorem", anchor=s["anchor"], data={"theorem": s["id"]})


def _verdict(s: Mapping) -> list[Block]:
    """The verdict in words, its obligations, and why a violated record is violated."""
    v = s["verdict"]
    verdict = v.get("verdict", "missing")
    status = frontpage.verdict_status(s)
    cls = "sound-table" if status.startswith("printed") else verdict
    blocks: list[Block] = [Paragraph([strong("Verdict: "), strong(status, cls), f" — {v.get('reason', '')}"])]
    if v.get("obligations"):
        rows = [[Cell([o["name"]]), Cell([o["status"]], {"passed": "verified", "failed": "violated"}.get(
            o["status"], o["status"])), Cell([o["detail"]], fold=FOLD)] for o in v["obligations"]]
        blocks.append(Table([Cell(["obligation"]), Cell(["status"]), Cell(["detail"])], rows))
    if verdict == "violated":
        found = frontpage.violation(s)
        blocks += [Paragraph([f"Why violated: {found['status']}."]), _counterexamples(found)]
    return blocks


def errata(report: Mapping) -> list[Block]:
    """The errata table, then the findings of this tool that no paper or paper note lists."""
    blocks: list[Block] = [Heading(2, ["Errata"], "errata")]
    rows = report["errata"]
    if not rows:
        blocks.append(Paragraph(["No erratum among the selected theorems."]))
    header_ = [Cell([h]) for h in ("where", "as printed", "corrected", "how detected", "evidence", "replay")]
    for title, origin, mine in frontpage.errata_groups(rows):
        table = []
        for e in mine:
            record = e.get("record") or e["theorem"]
            where: list = [f"{frontpage.paper_name(e.get('paper', ''))}, {e.get('location', '')}", BR,
                           _ref(record, report)]
            for other in (r for r in e.get("records", ()) if r != record):
                where += [BR, "also ", _ref(other, report)]
            if origin == "software":
                where += [BR, coloured("found by this tool", "finding")]
            detected = e.get("detected", "")
            table.append([Cell(where), Cell([e.get("printed", e["text"])]), Cell([e.get("corrected", "")]),
                          Cell([detected], "gap" if detected.startswith("no software check") else ""),
                          Cell(_lines(e.get("numbers", ())), fold=FOLD),
                          Cell(_lines([code(r, "replay") for r in e.get("replay", ())]))])
        blocks += [Heading(3, [title], f"errata-{origin}"), Table(header_, table, cls="errata")]
    return blocks


def _lines(parts) -> list:
    """Parts one per line ("—" when there are none)."""
    out: list = []
    for i, part in enumerate(parts):
        out += [BR, part] if i else [part]
    return out or ["—"]


def reproduction(report: Mapping) -> list[Block]:
    """The papers' tables (printed against computed) and replotted figures."""
    repro = report["reproduction"]
    blocks: list[Block] = [Heading(2, ["Reproduction of the papers' tables and figures"], "reproduction")]
    if repro.get("gap"):
        blocks.append(Paragraph([f"gap: {repro['gap']}"], cls="gap"))
    blocks.append(Paragraph(["Each cell: printed value, ✓ and the computed value when they agree at the printed "
                             "precision; printed ≠ computed (bold, red) when they do not; (gap): the registry "
                             "cannot compute it yet."]))
    for t in repro["tables"]:
        counts = ", ".join(f"{k} {n}" for k, n in t["counts"].items())
        caption = f"{t['caption']} Counts: {counts}. Source: {t['source']}." + (f" {t['note']}." if t["note"] else "")
        header_ = [Cell(["row"])] + [Cell([c["label"] + (" (extra)" if c["extra"] else "")]) for c in t["columns"]]
        rows = []
        for row in t["rows"]:
            cells = [Cell([row["label"]])]
            for c in t["columns"]:
                cell = row["cells"][c["key"]]
                text, status = cell_text(cell, c["digits"])
                cells.append(Cell([strong(text) if status == "mismatch" else text], status, cell.get("reason", "")))
            rows.append(cells)
        blocks += [Heading(3, [f"{t['paper']} {t['label']}"], _table_anchor(t)), Paragraph([caption]),
                   Table(header_, rows)]
        if any(c["theorem"] for c in t["columns"]):
            blocks.append(Paragraph([f"Computed by: {_computed_by(t)}."], small=True))
    for f in repro["figures"]:
        blocks.append(Heading(3, [f"{f['paper']} {f['label']} (replotted)"], _figure_anchor(f)))
        blocks.append(Figure(f["figure"], f["caption"]) if f.get("figure") else Paragraph([f["caption"]]))
        series_gaps = [Item([f"gap in {s['label']}: {s['gap']}"], "gap") for s in f["series"] if s["gap"]]
        if series_gaps:
            blocks.append(Bullets(series_gaps))
    return blocks


def gaps(report: Mapping) -> list[Block]:
    """What the report could not show."""
    return [Heading(2, ["Gaps"], "gaps"), Bullets([Item([g]) for g in report["gaps"] or ["none"]])]


def _table_anchor(t: Mapping) -> str:
    return t.get("anchor") or "table-" + t["id"].replace("/", "-").replace(".", "-")


def _figure_anchor(f: Mapping) -> str:
    return f.get("anchor") or "figure-" + f.get("id", f["label"]).replace("/", "-").replace(".", "-")


def _computed_by(table: Mapping) -> str:
    """Which theorem and conversion produce each computed column."""
    parts = []
    for c in table["columns"]:
        if not c["theorem"]:
            continue
        args = c["theorem"] + (f", delta={c['delta']:g}" if c["delta"] else "")
        if c["conversion"] == "crossing":
            args += f", against {c['against']} in {c['var']}"
        parts.append(f"{c['label']} = {c['conversion']}({args})")
    return "; ".join(parts)


def _ref(theorem_id: str, report: Mapping, bold: bool = False) -> pg.Span:
    """A theorem id: a link to its section when the report holds one, else code."""
    if any(s["id"] == theorem_id for s in report["theorems"]):
        return pg.Span(theorem_id, "strong" if bold else "", href="#thm-" + slug(theorem_id))
    return code(theorem_id)


CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:1100px;margin:2em auto;
padding:0 1em;color:#1b1f24;background:#fff;line-height:1.45}
h1{border-bottom:3px solid #0b5cad;padding-bottom:.2em}h2{border-bottom:1px solid #ccd;margin-top:2em}
table{border-collapse:collapse;margin:.6em 0;font-size:.88em}th,td{border:1px solid #c8ccd2;padding:3px 7px;
vertical-align:top}th{background:#eef2f7}tr:nth-child(even) td{background:#fafbfc}
.verified{color:#116329;font-weight:600}.violated{color:#b3261e;font-weight:600}
.approximate{color:#9a6700;font-weight:600}.inconclusive{color:#0b5cad;font-weight:600}
td.mismatch{background:#ffd7d5 !important;font-weight:700}td.match{background:#dff5e3 !important}
td.gap{background:#fff4c2 !important}code,pre{background:#f3f4f6;padding:1px 4px;font-size:.85em}
pre{padding:.6em;overflow-x:auto}figure{margin:1em 0}figcaption{font-size:.85em;color:#555}
.formula{overflow-x:auto;margin:.4em 0 .8em}.formula math{font-size:1.25em}.gap{color:#7a5b00}
section.theorem{border-left:4px solid #0b5cad;padding-left:1em;margin:2em 0}
.sound-table{color:#8a4b00;font-weight:600}.finding{background:#e8f0fe;color:#0b5cad;font-size:.8em;padding:0 4px;
border-radius:3px}code.replay{display:inline-block;word-break:break-all;font-size:.78em}
table.errata td{max-width:22em;overflow-wrap:anywhere}.violation{margin:.5em 0}
details summary{cursor:pointer;color:#0b5cad}
"""



__all__ = ["cell_text", "fmt", "html_page", "markdown", "sections"]
