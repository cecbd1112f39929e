"""Markdown and HTML renderings of a report dict (``verify.report.build``).

``report.md`` renders on a code-hosting site (GitHub math ``$$...$$``, figures as relative links into
``figures/``); ``report.html`` is one self-contained file: inline CSS, figures as inline SVG, formulas as
MathML (:mod:`verify.report.mathml`), no script and no external URL.  It opens with the front page
(:mod:`verify.report.frontpage`): per-paper roll-up, errata table, violations with replay lines, the
reproduction checklist; then the summary, one section per theorem, the reproduced tables and figures.
"""

from __future__ import annotations

import html
import math
import re
from typing import Callable, Mapping


from verify.report import frontpage
from verify.report.build import slug

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
# Markdown
# ---------------------------------------------------------------------------------------------------


def _md_escape(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown(report: Mapping) -> str:
    """The report as Markdown: header, summary, one section per theorem, errata, reproduction, gaps."""
    out: list[str] = []
    for part in (_md_header, _md_front, _md_errata, _md_violations, _md_checklist, _md_summary, _md_theorems,
                 _md_reproduction, _md_gaps):
        part(report, out.append)
    return "\n".join(out)


def _mutation_lines(report: Mapping) -> list[str]:
    """The mutation self-test's score line and its survivors (:class:`verify.check.mutation.MutationScore`)."""
    meta = report["meta"]
    if "mutation" not in meta:
        return []
    return [meta["mutation"]] + [f"mutant survived: {line}" for line in meta.get("mutation_survivors", [])]


def _md_header(report: Mapping, w: Callable[[str], None]) -> None:
    """Title and what the run was."""
    meta = report["meta"]
    w("# Tightness report")
    w("")
    w(f"Profile `{meta['profile']}`, seed {meta['seed']}" + (f", only `{meta['only']}`" if meta.get("only") else "")
      + f": {len(report['theorems'])} theorems. Verdicts: "
      + ", ".join(f"{k} {n}" for k, n in sorted(meta["counts"].items())) + ".")
    w("")
    for line in _mutation_lines(report):
        w(_md_escape(line) + "  ")
    w("")
    w("Also as [HTML](report.html) (self-contained) and [JSON](report.json).")
    w("")


def _md_summary(report: Mapping, w: Callable[[str], None]) -> None:
    """One line per theorem: verdict in words, the ratio said per relation, where it beats composition."""
    w("")
    w("## Summary")
    w("")
    w("| theorem | paper | notion | verdict | worst ratio (<= 1 is sound) | beats the composition baseline |")
    w("|---|---|---|---|---|---|")
    for r in report["summary"]:
        verdict = f"{VERDICT_MARK.get(r['verdict'], '')} {r.get('status', r['verdict'])}"
        w(f"| [{r['id']}](#{r['anchor']}) | {r['paper']} | {r['notion']} ({r['kind']}) | {_md_escape(verdict)} | "
          f"{_md_escape(_ratio_text(r))} | {_md_escape(r['beats_baseline'])} |")


def _ratio_text(row: Mapping) -> str:
    """``0.98 (exact/bound)`` or ``0.503 (bound/exact, loosest)``: which ratio, said per relation."""
    value = row.get("ratio", row.get("worst_ratio"))
    if value is None:
        return "—"
    label = row.get("ratio_label", "")
    which = "bound/exact, loosest" if label.startswith("bound/exact") else "exact/bound"
    return f"{fmt(value)} ({which})"


def _md_front(report: Mapping, w: Callable[[str], None]) -> None:
    """Per paper: verdicts, the search's coverage, the mutation score."""
    w("## At a glance")
    w("")
    w("| paper | theorems | verified | violated (as printed / unexpected) | approximate | inconclusive | "
      "instances compared | regime cells | mutants killed |")
    w("|---|---|---|---|---|---|---|---|---|")
    for r in frontpage.paper_rollup(report):
        unexpected = r["violated"] - r["violated_expected"]
        w(f"| {r['name']} | {r['theorems']} | {r['verified']} | {r['violated']} ({r['violated_expected']} / "
          f"{unexpected}) | {r['approximate']} | {r['inconclusive']} | {r['instances']} | {r['cells']} | "
          f"{r['mutation']} |")
    w("")
    w("Instances compared: exact references the soundness search compared the bounds with; regime cells: distinct "
      "regimes of the theorems' own coordinates it visited; mutants killed: deliberately wrong copies of the "
      "verified theorems that the search showed unsound.")
    w("")


def _md_theorems(report: Mapping, w: Callable[[str], None]) -> None:
    """A section per theorem."""
    w("")
    w("## Theorems")
    for s in report["theorems"]:
        _md_theorem(s, report, w)


def _md_theorem(s: Mapping, report: Mapping, w: Callable[[str], None]) -> None:
    """One theorem: record, bound, assumptions, verdict and obligations, curves, errata, gaps."""
    w("")
    w(f'<a id="{s["anchor"]}"></a>')
    w("")
    w(f"### {s['id']}: {_md_escape(s['title'])}")
    w("")
    w(f"*{s['paper']}, {s['statement']}*; notion `{s['notion']}`, kind `{s['kind']}`; setting "
      + ", ".join(f"{k}={v}" for k, v in s["setting"].items()) + ".")
    if s["printed_of"]:
        w(f"As printed in the paper; the corrected record is {_md_ref(s['printed_of'], report)}.")
    w("")
    w("Bound (canonical vocabulary):")
    w("")
    w(f"$$ {s['bound']['latex']} $$")
    w("")
    w(f"`{s['bound']['text']}`")
    if s["paper_form"]:
        w("")
        w("Paper's form:")
        w("")
        w(f"$$ {s['paper_form']} $$")
    if s["assumptions"]:
        w("")
        w("Assumptions:")
        w("")
        for a in s["assumptions"]:
            w(f"- {_md_escape(a['text'])} (`{a['relation']}`)")
    v = s["verdict"]
    w("")
    w(f"**Verdict: {frontpage.verdict_status(s)}** — {_md_escape(v.get('reason', ''))}")
    if v.get("obligations"):
        w("")
        w("| obligation | status | detail |")
        w("|---|---|---|")
        for o in v["obligations"]:
            w(f"| {o['name']} | {o['status']} | {_md_escape(o['detail'])} |")
    if v.get("verdict") == "violated":
        found = frontpage.violation(s)
        w("")
        w(f"Why violated: {_md_escape(found['status'])}.")
        for item in found["items"]:
            w(f"- {item['what']}: {_md_escape(item['text'])}" + (f"; replay: `{item['replay']}`" if item["replay"]
                                                                  else ""))
        if found.get("no_instance"):
            w(f"- {_md_escape(found['no_instance'])}")
    w("")
    w(f"Where it beats the composition baseline: {s['beats_baseline']}." + _point_text(s, "`"))
    if s.get("audit"):
        a = s["audit"]
        w("")
        w(f"Simulation audit on {a['instance']}: audited lower {fmt(a['lower'])} vs bound {fmt(a['bound'])} "
          f"({a['runs']} runs, confidence {a['confidence']}).")
    for f in s["figures"]:
        w("")
        w(f"![{report['figures_index'][f]}]({f})")
    for e in s["errata"]:
        w("")
        w(f"> Erratum: {_md_escape(e['text'])}")
    for g in s["gaps"]:
        w("")
        w(f"- gap: {_md_escape(g)}")


def _point_text(section: Mapping, quote: str) -> str:
    """`` Curves drawn at ORIGIN: k=v, ...`` (nothing when the section has no point)."""
    if not section.get("point"):
        return ""
    values = ", ".join(f"{k}={fmt(x)}" for k, x in section["point"].items())
    return f" Curves drawn at {section['point_origin'] or 'the point'}: {quote}{values}{quote}."


def _table_anchor(t: Mapping) -> str:
    return t.get("anchor") or "table-" + t["id"].replace("/", "-").replace(".", "-")


def _figure_anchor(f: Mapping) -> str:
    return f.get("anchor") or "figure-" + f.get("id", f["label"]).replace("/", "-").replace(".", "-")


def _md_errata(report: Mapping, w: Callable[[str], None]) -> None:
    """The errata table, then the findings of this tool that no paper or catalogue lists."""
    w("")
    w("## Errata")
    w("")
    rows = report["errata"]
    if not rows:
        w("No erratum among the selected theorems.")
    for title, origin, mine in frontpage.errata_groups(rows):
        w(f"### {title}")
        w("")
        w("| where | as printed | corrected | how detected | evidence | replay |")
        w("|---|---|---|---|---|---|")
        for e in mine:
            where = f"{frontpage.paper_name(e.get('paper', ''))}, {e.get('location', '')}; " + _md_ref(
                e.get("record") or e["theorem"], report)
            replay = "<br>".join(f"`{_md_escape(r)}`" for r in e.get("replay", ())) or "—"
            numbers = "<br>".join(_md_escape(n) for n in e.get("numbers", ())) or "—"
            w(f"| {_md_escape(where)} | {_md_escape(e.get('printed', e['text']))} | "
              f"{_md_escape(e.get('corrected', ''))} | {_md_escape(e.get('detected', ''))} | {numbers} | {replay} |")
        w("")


def _md_violations(report: Mapping, w: Callable[[str], None]) -> None:
    """Each violated record: the minimal and the largest-margin counterexample with their replay lines."""
    found = frontpage.violations(report)
    w("## Violations")
    w("")
    if not found:
        w("No theorem violated.")
    for v in found:
        expected = "expected: an as-printed record" if v["expected"] else "UNEXPECTED"
        w(f"- **{_md_ref(v['id'], report)}**: {_md_escape(v['status'])} ({expected})")
        for item in v["items"]:
            w(f"  - {item['what']}: {_md_escape(item['text'])}")
            if item["replay"]:
                w(f"    `{item['replay']}`")
        if v.get("no_instance"):
            w(f"  - {_md_escape(v['no_instance'])}")
    w("")


def _md_checklist(report: Mapping, w: Callable[[str], None]) -> None:
    """Every printed table and figure the catalogue lists: reproduced, or not and why."""
    w("## Reproduction checklist")
    w("")
    w("| paper | item | status | why |")
    w("|---|---|---|---|")
    repro = report["reproduction"]
    anchors = {_table_anchor(t) for t in repro["tables"]} | {_figure_anchor(f) for f in repro["figures"]}
    for c in frontpage.checklist(report):
        item = f"[{c['item']}](#{c['anchor']})" if c.get("anchor") in anchors else c["item"]
        w(f"| {frontpage.paper_name(c['paper'])} | {item} | {c['status']} | {_md_escape(c.get('why') or '')} |")
    w("")


def _md_reproduction(report: Mapping, w: Callable[[str], None]) -> None:
    """The papers' tables (printed against computed) and replotted figures."""
    w("")
    w("## Reproduction of the papers' tables and figures")
    repro = report["reproduction"]
    if repro.get("gap"):
        w("")
        w(f"- gap: {repro['gap']}")
    for t in repro["tables"]:
        w("")
        w(f'<a id="{_table_anchor(t)}"></a>')
        w("")
        w(f"### {t['paper']} {t['label']}")
        w("")
        w(f"{_md_escape(t['caption'])} Counts: " + ", ".join(f"{k} {n}" for k, n in t["counts"].items())
          + f". Source: {t['source']}." + (f" {t['note']}." if t["note"] else ""))
        w("")
        labels = [c["label"] + (" (extra)" if c["extra"] else "") for c in t["columns"]]
        w("| row | " + " | ".join(_md_escape(x) for x in labels) + " |")
        w("|---|" + "---|" * len(labels))
        for row in t["rows"]:
            texts = []
            for c in t["columns"]:
                text, status = cell_text(row["cells"][c["key"]], c["digits"])
                texts.append(f"**{text}**" if status == "mismatch" else text)
            w(f"| {_md_escape(row['label'])} | " + " | ".join(_md_escape(x) for x in texts) + " |")
        if any(c["theorem"] for c in t["columns"]):
            w("")
            w("Computed by: " + _computed_by(t) + ".")
    for f in repro["figures"]:
        w("")
        w(f'<a id="{_figure_anchor(f)}"></a>')
        w("")
        w(f"### {f['paper']} {f['label']} (replotted)")
        w("")
        w(_md_escape(f["caption"]))
        if f.get("figure"):
            w("")
            w(f"![{f['label']}]({f['figure']})")
        for s in f["series"]:
            if s["gap"]:
                w(f"- gap in {s['label']}: {_md_escape(s['gap'])}")


def _md_gaps(report: Mapping, w: Callable[[str], None]) -> None:
    """What the report could not show."""
    w("")
    w("## Gaps")
    w("")
    for g in report["gaps"] or ["none"]:
        w(f"- {_md_escape(g)}")
    w("")


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


def _in_report(theorem_id: str, report: Mapping) -> bool:
    return any(s["id"] == theorem_id for s in report["theorems"])


def _md_ref(theorem_id: str, report: Mapping) -> str:
    return f"[{theorem_id}](#{_anchor(theorem_id)})" if _in_report(theorem_id, report) else f"`{theorem_id}`"


def _html_ref(theorem_id: str, report: Mapping) -> str:
    if _in_report(theorem_id, report):
        return f'<a href="#{_e(_anchor(theorem_id))}">{_e(theorem_id)}</a>'
    return f"<code>{_e(theorem_id)}</code>"


def _anchor(theorem_id: str) -> str:
    return "thm-" + slug(theorem_id)


# ---------------------------------------------------------------------------------------------------
# HTML
# ---------------------------------------------------------------------------------------------------

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
"""


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def html_page(report: Mapping, figure_svgs: Mapping[str, str], formulas: Mapping[str, str]) -> str:
    """The report as one self-contained HTML page: figures inline as SVG, formulas as MathML (the browser's
    own rendering: no script, no font, no external URL)."""
    out: list[str] = []
    _html_header(report, out.append)
    _html_front(report, out.append)
    _html_errata(report, out.append)
    _html_violations(report, out.append)
    _html_checklist(report, out.append)
    _html_summary(report, out.append)
    _html_theorems(report, figure_svgs, formulas, out.append)
    _html_reproduction_tables(report, out.append)
    _html_reproduction_figures(report, figure_svgs, out.append)
    _html_gaps(report, out.append)
    return "\n".join(out) + "\n"


def _html_header(report: Mapping, w: Callable[[str], None]) -> None:
    """The document head, title and what the run was."""
    meta = report["meta"]
    w("<!DOCTYPE html>")
    w('<html lang="en"><head><meta charset="utf-8">')
    w('<meta name="viewport" content="width=device-width, initial-scale=1">')
    w("<title>Tightness report</title>")
    w(f"<style>{CSS}</style></head><body>")
    w("<h1>Tightness report</h1>")
    w(f"<p>Profile <code>{_e(meta['profile'])}</code>, seed {_e(meta['seed'])}"
      + (f", only <code>{_e(meta['only'])}</code>" if meta.get("only") else "")
      + f": {len(report['theorems'])} theorems. Verdicts: "
      + ", ".join(f'<span class="{_e(k)}">{_e(k)} {n}</span>' for k, n in sorted(meta["counts"].items())) + ".</p>")
    lines = _mutation_lines(report)
    if lines:
        w('<p class="mutation">' + "<br>".join(_e(line) for line in lines) + "</p>")
    w('<nav><a href="#front">At a glance</a> · <a href="#errata">Errata</a> · <a href="#violations">Violations</a> · '
      '<a href="#checklist">Checklist</a> · <a href="#summary">Summary</a> · <a href="#theorems">Theorems</a> · '
      '<a href="#reproduction">Reproduction</a> · <a href="#gaps">Gaps</a></nav>')


def _html_front(report: Mapping, w: Callable[[str], None]) -> None:
    """Per paper: verdicts, the search's coverage, the mutation score."""
    w('<h2 id="front">At a glance</h2>')
    w("<table><tr><th>paper</th><th>theorems</th><th>verified</th><th>violated<br><small>as printed / unexpected"
      "</small></th><th>approximate</th><th>inconclusive</th><th>instances compared</th><th>regime cells</th>"
      "<th>mutants killed</th></tr>")
    for r in frontpage.paper_rollup(report):
        unexpected = r["violated"] - r["violated_expected"]
        bad = ' class="violated"' if unexpected else ""
        w(f"<tr><td>{_e(r['name'])}</td><td>{r['theorems']}</td><td class=\"verified\">{r['verified']}</td>"
          f"<td{bad}>{r['violated']} ({r['violated_expected']} / {unexpected})</td>"
          f"<td class=\"approximate\">{r['approximate']}</td><td class=\"inconclusive\">{r['inconclusive']}</td>"
          f"<td>{r['instances']}</td><td>{r['cells']}</td><td>{_e(r['mutation'])}</td></tr>")
    w("</table>")
    w("<p><small>Instances compared: exact references the soundness search compared the bounds with; regime cells: "
      "distinct regimes of the theorems' own coordinates it visited; mutants killed: deliberately wrong copies of "
      "the verified theorems that the search showed unsound.</small></p>")


def _html_summary(report: Mapping, w: Callable[[str], None]) -> None:
    """One row per theorem."""
    w('<h2 id="summary">Summary</h2>')
    w("<table><tr><th>theorem</th><th>paper</th><th>notion</th><th>verdict</th>"
      '<th title="upper bounds: largest exact/bound; lower bounds: bound/exact where the bound is loosest">'
      "worst ratio (&lt;= 1 is sound)</th><th>beats the composition baseline</th></tr>")
    for r in report["summary"]:
        status = r.get("status", r["verdict"])
        cls = "sound-table" if status.startswith("printed") else r["verdict"]
        w(f'<tr><td><a href="#{_e(r["anchor"])}">{_e(r["id"])}</a></td><td>{_e(r["paper"])}</td>'
          f'<td>{_e(r["notion"])} ({_e(r["kind"])})</td><td class="{_e(cls)}">{_e(status)}</td>'
          f'<td>{_e(_ratio_text(r))}</td><td>{_e(r["beats_baseline"])}</td></tr>')
    w("</table>")


def _replay_html(line: str | None) -> str:
    return f"<code class=\"replay\">{_e(line)}</code>" if line else ""


def _html_violation_items(found: Mapping) -> str:
    items = "".join(f"<li>{_e(i['what'])}: {_e(i['text'])}" + (f"<br>{_replay_html(i['replay'])}" if i["replay"] else "")
                    + "</li>" for i in found["items"])
    if found.get("no_instance"):
        items += f"<li>{_e(found['no_instance'])}</li>"
    return f"<ul>{items}</ul>"


def _html_violations(report: Mapping, w: Callable[[str], None]) -> None:
    """Each violated record: the minimal and the largest-margin counterexample with their replay lines."""
    w('<h2 id="violations">Violations</h2>')
    found = frontpage.violations(report)
    if not found:
        w("<p>No theorem violated.</p>")
    for v in found:
        expected = "expected: an as-printed record" if v["expected"] else "UNEXPECTED"
        cls = "sound-table" if v["status"].startswith("printed") else "violated"
        w(f'<div class="violation"><p><strong>{_html_ref(v["id"], report)}</strong>: '
          f'<span class="{cls}">{_e(v["status"])}</span> ({expected})</p>{_html_violation_items(v)}</div>')


def _html_checklist(report: Mapping, w: Callable[[str], None]) -> None:
    """Every printed table and figure the catalogue lists: reproduced, or not and why."""
    w('<h2 id="checklist">Reproduction checklist</h2>')
    repro = report["reproduction"]
    anchors = {_table_anchor(t) for t in repro["tables"]} | {_figure_anchor(f) for f in repro["figures"]}
    w("<table><tr><th>paper</th><th>item</th><th>status</th><th>why</th></tr>")
    for c in frontpage.checklist(report):
        item = (f'<a href="#{_e(c["anchor"])}">{_e(c["item"])}</a>' if c.get("anchor") in anchors
                else _e(c["item"]))
        cls = "verified" if c["status"] == "reproduced" else "inconclusive"
        w(f"<tr><td>{_e(frontpage.paper_name(c['paper']))}</td><td>{item}</td>"
          f'<td class="{cls}">{_e(c["status"])}</td><td>{_e(c.get("why") or "")}</td></tr>')
    w("</table>")


def _html_theorems(report: Mapping, figure_svgs: Mapping[str, str], formulas: Mapping[str, str],
                   w: Callable[[str], None]) -> None:
    """A section per theorem."""
    w('<h2 id="theorems">Theorems</h2>')
    for s in report["theorems"]:
        _html_theorem(s, report, figure_svgs, formulas, w)


def _html_theorem(s: Mapping, report: Mapping, figure_svgs: Mapping[str, str], formulas: Mapping[str, str],
                  w: Callable[[str], None]) -> None:
    """One theorem: record, bound, assumptions, verdict and obligations, curves, errata, gaps."""
    w(f'<section class="theorem" id="{_e(s["anchor"])}" data-theorem="{_e(s["id"])}">')
    w(f"<h3>{_e(s['id'])}: {_e(s['title'])}</h3>")
    w(f"<p><em>{_e(s['paper'])}, {_e(s['statement'])}</em>; notion <code>{_e(s['notion'])}</code>, kind "
      f"<code>{_e(s['kind'])}</code>; setting "
      + ", ".join(f"{_e(k)}={_e(v)}" for k, v in s["setting"].items()) + ".</p>")
    if s["printed_of"]:
        w(f"<p>As printed in the paper; corrected record: {_html_ref(s['printed_of'], report)}.</p>")
    w("<p>Bound (canonical vocabulary):</p>")
    w(_formula(formulas.get(f"{s['id']}#bound")))
    w(f"<p><code>{_e(s['bound']['text'])}</code></p>")
    if s["paper_form"]:
        w("<p>Paper's form:</p>")
        w(_formula(formulas.get(f"{s['id']}#paper"), "the paper's LaTeX could not be converted: see report.md"))
    if s["assumptions"]:
        w("<p>Assumptions:</p><ul>")
        for a in s["assumptions"]:
            w(f"<li>{_e(a['text'])} (<code>{_e(a['relation'])}</code>)</li>")
        w("</ul>")
    v = s["verdict"]
    verdict = v.get("verdict", "missing")
    status = frontpage.verdict_status(s)
    cls = "sound-table" if status.startswith("printed") else verdict
    w(f'<p><strong>Verdict: <span class="{_e(cls)}">{_e(status)}</span></strong> — {_e(v.get("reason", ""))}'
      "</p>")
    if v.get("obligations"):
        w("<table><tr><th>obligation</th><th>status</th><th>detail</th></tr>")
        for o in v["obligations"]:
            cls = {"passed": "verified", "failed": "violated"}.get(o["status"], o["status"])
            w(f'<tr><td>{_e(o["name"])}</td><td class="{_e(cls)}">{_e(o["status"])}</td>'
              f'<td>{_e(o["detail"])}</td></tr>')
        w("</table>")
    if verdict == "violated":
        found = frontpage.violation(s)
        w(f"<p>Why violated: {_e(found['status'])}.</p>{_html_violation_items(found)}")
    point = ""
    if s.get("point"):
        point = (f" Curves drawn at {_e(s['point_origin'] or 'the point')}: <code>"
                 + _e(", ".join(f"{k}={fmt(x)}" for k, x in s["point"].items())) + "</code>.")
    w(f"<p>Where it beats the composition baseline: {_e(s['beats_baseline'])}.{point}</p>")
    if s.get("audit"):
        a = s["audit"]
        w(f"<p>Simulation audit on {_e(a['instance'])}: audited lower {_e(fmt(a['lower']))} vs bound "
          f"{_e(fmt(a['bound']))} ({_e(a['runs'])} runs, confidence {_e(a['confidence'])}).</p>")
    for f in s["figures"]:
        w(_figure(figure_svgs[f], report["figures_index"][f], f))
    for e in s["errata"]:
        w(f"<p><strong>Erratum:</strong> {_e(e['text'])}</p>")
    if s["gaps"]:
        w("<ul>" + "".join(f'<li class="gap">gap: {_e(g)}</li>' for g in s["gaps"]) + "</ul>")
    w("</section>")


def _html_errata(report: Mapping, w: Callable[[str], None]) -> None:
    """The errata table, then the findings of this tool that no paper or catalogue lists."""
    w('<h2 id="errata">Errata</h2>')
    rows = report["errata"]
    if not rows:
        w("<p>No erratum among the selected theorems.</p>")
    for title, origin, mine in frontpage.errata_groups(rows):
        w(f'<h3 id="errata-{origin}">{title}</h3>')
        w('<table class="errata"><tr><th>where</th><th>as printed</th><th>corrected</th><th>how detected</th>'
          "<th>evidence</th><th>replay</th></tr>")
        for e in mine:
            record = e.get("record") or e["theorem"]
            others = [r for r in e.get("records", ()) if r != record]
            where = (f"{_e(frontpage.paper_name(e.get('paper', '')))}, {_e(e.get('location', ''))}<br>"
                     + _html_ref(record, report)
                     + ("".join(f"<br><small>also {_html_ref(r, report)}</small>" for r in others)))
            if origin == "software":
                where += '<br><span class="finding">found by this tool</span>'
            numbers = "<br>".join(_e(n) for n in e.get("numbers", ())) or "—"
            replay = "<br>".join(_replay_html(r) for r in e.get("replay", ())) or "—"
            detected = e.get("detected", "")
            cls = ' class="gap"' if detected.startswith("catalogue only") else ""
            w(f"<tr><td>{where}</td><td>{_e(e.get('printed', e['text']))}</td><td>{_e(e.get('corrected', ''))}</td>"
              f"<td{cls}>{_e(detected)}</td><td>{numbers}</td><td>{replay}</td></tr>")
        w("</table>")


def _html_reproduction_tables(report: Mapping, w: Callable[[str], None]) -> None:
    """The papers' tables, printed against computed."""
    w('<h2 id="reproduction">Reproduction of the papers\' tables and figures</h2>')
    repro = report["reproduction"]
    if repro.get("gap"):
        w(f'<p class="gap">gap: {_e(repro["gap"])}</p>')
    w("<p>Each cell: printed value, ✓ and the computed value when they agree at the printed precision; "
      "printed ≠ computed (red) when they do not; yellow: the registry cannot compute it yet.</p>")
    for t in repro["tables"]:
        w(f'<h3 id="{_e(_table_anchor(t))}">{_e(t["paper"])} {_e(t["label"])}</h3>')
        w(f"<p>{_e(t['caption'])} Source: {_e(t['source'])}." + (f" {_e(t['note'])}." if t["note"] else "") + "</p>")
        w("<table><tr><th>row</th>" + "".join(
            f"<th>{_e(c['label'])}{' (extra)' if c['extra'] else ''}</th>" for c in t["columns"]) + "</tr>")
        for row in t["rows"]:
            cells = []
            for c in t["columns"]:
                cell = row["cells"][c["key"]]
                text, status = cell_text(cell, c["digits"])
                title = f' title="{_e(cell["reason"])}"' if cell.get("reason") else ""
                cells.append(f'<td class="{_e(status)}"{title}>{_e(text)}</td>')
            w(f"<tr><td>{_e(row['label'])}</td>{''.join(cells)}</tr>")
        w("</table>")
        if any(c["theorem"] for c in t["columns"]):
            w("<p><small>Computed by: " + _e(_computed_by(t)) + "</small></p>")


def _html_reproduction_figures(report: Mapping, figure_svgs: Mapping[str, str], w: Callable[[str], None]) -> None:
    """The papers' figures, replotted."""
    repro = report["reproduction"]
    for f in repro["figures"]:
        w(f'<h3 id="{_e(_figure_anchor(f))}">{_e(f["paper"])} {_e(f["label"])} (replotted)</h3>')
        if f.get("figure"):
            w(_figure(figure_svgs[f["figure"]], f["caption"], f["figure"]))
        else:
            w(f"<p>{_e(f['caption'])}</p>")
        gaps = [s for s in f["series"] if s["gap"]]
        if gaps:
            w("<ul>" + "".join(f'<li class="gap">gap in {_e(s["label"])}: {_e(s["gap"])}</li>' for s in gaps)
              + "</ul>")


def _html_gaps(report: Mapping, w: Callable[[str], None]) -> None:
    """What the report could not show, and the end of the document."""
    w('<h2 id="gaps">Gaps</h2><ul>')
    for g in report["gaps"] or ["none"]:
        w(f"<li>{_e(g)}</li>")
    w("</ul></body></html>")



def scoped_svg(svg: str, prefix: str) -> str:
    """``svg`` with every id (and every reference to one) prefixed, so inline SVGs sharing a page never
    share an id (matplotlib derives clip-path and glyph ids from a fixed salt)."""
    prefix = re.sub(r"[^A-Za-z0-9_-]", "-", prefix)
    svg = re.sub(r"<!--.*?-->\s*", "", svg, flags=re.S)  # matplotlib's comments quote mathtext source ($10^{0}$)
    svg = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{prefix}-{m.group(1)}"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}-{m.group(1)})", svg)
    return re.sub(r'href="#([^"]+)"', lambda m: f'href="#{prefix}-{m.group(1)}"', svg)


def _figure(svg: str, caption: str, name: str) -> str:
    body = scoped_svg(svg, "f-" + name.rsplit("/", 1)[-1].removesuffix(".svg"))
    return f'<figure data-figure="{_e(name)}">{body}<figcaption>{_e(caption)}</figcaption></figure>'


def _formula(mathml: str | None, missing: str = "") -> str:
    """A formula as MathML (:mod:`verify.report.mathml`); never LaTeX source on the page."""
    if mathml:
        return f'<div class="formula">{mathml}</div>'
    return f'<p class="gap">{_e(missing)}</p>' if missing else ""


__all__ = ["cell_text", "fmt", "html_page", "markdown"]
