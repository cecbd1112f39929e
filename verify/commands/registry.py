"""``verify list``, ``verify show ID`` and ``verify eval ID name=value ...``: the theorem registry.

``verify list`` prints what the records say of themselves (id, notion, kind, source, title, parameters),
which building the registry's symbolic bounds takes most of a second to learn.  The summaries are therefore
kept in an index, ``.verify-cache/registry/<key>.json`` under the project's root (a source checkout), keyed
by the SHA-256 of every source file of ``verify`` and ``theorems`` and the versions of Python and sympy: any
edit of any record or of the machinery that builds them makes a new key, and the registry is built again.
An index that cannot be read or written is simply not used (the output is the same, only slower).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import math
import sys
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from verify.commands.options import UsageError, emit, emit_json, parse_assignments

if TYPE_CHECKING:
    from verify.theorem import Theorem

_ROOT = Path(__file__).resolve().parents[2]
#: the index folder (git-ignored, as the report's cache), in a source checkout only (an installed copy writes
#: nothing next to itself, and builds the registry every time); bump FORMAT when a summary's layout changes
INDEX_DIR: Path | None = _ROOT / ".verify-cache" / "registry" if (_ROOT / "pyproject.toml").is_file() else None
FORMAT = 1


def add_list_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--no-printed", action="store_true", help="hide the 'as printed' variants")


def run_list(args: argparse.Namespace) -> int:
    records = [r for r in summaries() if not (args.no_printed and r["printed_of"] is not None)]
    if args.json:
        emit_json(records)
        return 0
    # plain columns, ids never cut (piped or on a narrow terminal; a table would fold or truncate them)
    rows = [(r["id"], r["notion"], r["kind"] + (" (as printed)" if r["printed_of"] is not None else ""),
             f"{r['source']['paper']}, {r['source']['statement']}", r["title"]) for r in records]
    header = ("id", "notion", "kind", "source", "title")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(4)]
    lines = [f"{len(records)} theorems"]
    for row in [header, *rows]:
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[4])
    emit("\n".join(lines))
    return 0


def index_key(roots: tuple[Path, ...] = (_ROOT / "verify", _ROOT / "theorems")) -> str:
    """The SHA-256 naming the index: every ``*.py`` file under ``roots`` (path and bytes), the index format
    and the versions of Python and sympy (which decide the parameters a bound's free symbols give)."""
    from verify.cache import digest_sources

    digest = hashlib.sha256(f"format {FORMAT} python {sys.version} sympy {_version('sympy')}".encode())
    for root in roots:
        digest_sources(digest, sorted(root.rglob("*.py")), root.parent)
    return digest.hexdigest()


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "unknown"


def summaries(index_dir: Path | None = None) -> list[dict]:
    """:func:`summary` of every registered theorem, in registry order, from the index when it is current
    (else from the registry, and the index written for the next time)."""
    folder = INDEX_DIR if index_dir is None else index_dir
    if folder is None:
        import theorems

        return [summary(t) for t in theorems.all()]
    from verify.cache import ResultCache

    key, index = index_key(), ResultCache(folder)
    records = index.get(key)
    if isinstance(records, list) and records and all(isinstance(r, dict) and _SUMMARY_KEYS <= r.keys()
                                                     for r in records):
        return records
    import theorems

    records = [summary(t) for t in theorems.all()]
    if index_key() != key:  # a source changed while the registry was built: these records may be of either
        return records
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
    index.put(key, records)  # written whole or not at all, also with several writers
    for stale in folder.glob("*.json"):  # indexes of earlier sources: never current again
        if stale.stem != key:
            with contextlib.suppress(OSError):
                stale.unlink()
    return records


#: the keys every summary has (an index whose records lack one is not used)
_SUMMARY_KEYS = frozenset({"id", "title", "notion", "kind", "source", "printed_of", "parameters"})


def summary(t: Theorem) -> dict:
    """The record of ``verify list --json`` for one theorem."""
    return {"id": t.id, "title": t.title, "notion": t.notion, "kind": t.kind,
            "source": {"paper": t.source.paper, "statement": t.source.statement, "seed": t.source.seed},
            "printed_of": t.printed_of, "parameters": list(t.parameters)}


def theorem(theorem_id: str) -> Theorem:
    """A registry theorem, or a user's record ``FILE::ID`` (the file is imported); UsageError for an unknown id."""
    import theorems

    if "::" in theorem_id:
        from verify.check.suite import user_theorem  # imports the user's file: only for this form

        return user_theorem(theorem_id)
    try:
        return theorems.get(theorem_id)
    except KeyError as exc:
        raise UsageError(exc.args[0], "id") from None


def add_show_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", help="theorem id, e.g. bok2024/thm4.2")
    p.add_argument("--json", action="store_true", help="machine-readable output")


def run_show(args: argparse.Namespace) -> int:
    t = theorem(args.id)
    record = t.to_json()
    if args.json:
        emit_json(record)
        return 0
    lines = [
        f"{t.id}: {t.title}",
        f"  source     {t.source}" + (f" ({t.origin})" if t.origin else ""),
        f"  notion     {t.notion} ({t.kind})" + (f", as printed; corrected in {t.printed_of}"
                                                 if t.printed_of else ""),
        "  setting    " + ", ".join(f"{k}={v}" for k, v in record["setting"].items()),
        f"  bound      {record['bound']['text']}",
        f"  LaTeX      {record['bound']['latex']}",
    ]
    if t.paper_form:
        lines.append(f"  paper      {t.paper_form}")
    if t.free:
        lines.append("  optimised  " + "; ".join(
            f"{f['name']} in [{f['lo']}, {f['hi']}]" + (" (integer)" if f["integer"] else "")
            for f in record["free_parameters"]))
    lines.append(f"  parameters {', '.join(t.parameters)}")
    lines += [f"  assumes    {a}" for a in t.assumptions]
    lines += [f"  claims     {c['kind']}: {c['text'] or c['value']}" for c in record["claims"]]
    lines += [f"  erratum    {e.text}" + (f" [variant {e.variant}]" if e.variant else "") for e in t.errata]
    lines += [f"  variant    {v.id}: {v.title}" for v in t.variants]
    if t.notes:
        lines.append(f"  notes      {t.notes}")
    emit("\n".join(lines))
    return 0


def add_eval_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", help="theorem id, or FILE::ID for a record of your own file (the file is imported: its "
                              "code runs)")
    p.add_argument("params", nargs="*", metavar="name=value", help="parameter values")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--allow-outside-assumptions", action="store_true",
                   help="evaluate even where an assumption of the theorem fails (reported in the output)")
    p.add_argument("--step", nargs="+", metavar=("STEP", "name=value"),
                   help="decide the proof step STEP of the theorem instead (its readings as printed and corrected; "
                        "the name=value words: the step's drawn values, default its own points); exit 1 when a "
                        "reading fails")
    p.add_argument("--family", nargs="+", metavar=("NAME", "name=value"),
                   help="evaluate on an instance of the family NAME instead: the name=value words are its build "
                        "keywords and the notion parameter; prints bound, exact value, ratio and whether the "
                        "inequality holds (exit 1 when it fails by a certified margin)")


def run_eval(args: argparse.Namespace) -> int:
    t = theorem(args.id)
    if args.step is not None:
        if args.family is not None:
            raise UsageError("give --step or --family, not both", "--step")
        return _eval_step(t, args)
    if args.family is not None:
        return _eval_on_family(t, args)
    params = parse_assignments(args.params)
    try:
        coerced = t.coerce(params)
        violated = [str(a) for a in t.violated_assumptions(coerced)]
        if violated and not args.allow_outside_assumptions:
            raise UsageError(f"{t.id}: assumption violated: {violated[0]}")
        value = float(t.evaluate(allow_outside_assumptions=True, **params))
    except OverflowError:
        raise UsageError(f"{t.id}: the bound overflows at these parameters") from None
    if not math.isfinite(value):
        raise UsageError(f"{t.id}: the bound is undefined ({value}) at these parameters"
                         + (f" (outside the assumption {violated[0]})" if violated else ""))
    quantity = t.notion_record.quantity
    if args.json:
        emit_json({"id": t.id, "notion": t.notion, "kind": t.kind, "quantity": quantity, "value": value,
                   "parameters": params, "outside_assumptions": violated})
    else:
        emit(f"{t.id} ({t.notion}, {t.kind}): {quantity} = {value:.10g}"
             + "".join(f"\nwarning: evaluated outside the assumption {v}" for v in violated))
    return 0


def _eval_step(t: Theorem, args: argparse.Namespace) -> int:
    """``verify eval ID --step STEP [k=v ...]``: one proof step decided in its readings (a replayed erratum)."""
    from verify.check.steps import replay  # the check engine: loaded only for this form

    step_id, *given = args.step
    outcome = replay(t, step_id, parse_assignments([*args.params, *given]))
    readings = [("as printed", outcome.printed), ("corrected", outcome.corrected)]
    readings = [(name, r) for name, r in readings if r is not None]
    if args.json:
        emit_json(outcome.to_json())
    else:
        step = t.step(step_id)
        lines = [f"{t.id}, proof step {step.id} ({step.kind}; {step.where}):"]
        for (name, r), reading in zip(readings, [x for x in (step.printed, step.corrected) if x is not None]):
            lines.append(f"  {name}: {reading.text}\n    {r.detail if r.holds else 'FAILS' + r.detail[len('fails'):]}")
        if outcome.ratio is not None:
            lines.append(f"  printed/corrected >= {outcome.ratio:.6g} (the printed reading is the weaker)")
        lines.append(f"  as the record says ({outcome.expected} as printed): {'yes' if outcome.as_expected else 'NO'}")
        emit("\n".join(lines))
    return 0 if all(r.holds for _, r in readings) else 1


def _eval_on_family(t: Theorem, args: argparse.Namespace) -> int:
    """``verify eval ID --family NAME k=v ...``: the theorem on one instance (a replayed witness)."""
    from verify.check import certify  # the check engine: loaded only for this form
    from verify.check.evidence import jsonable

    family, *given = args.family
    words = parse_assignments([*args.params, *given], convert=certify.read_word)
    notion = t.notion_record
    at = words.pop(notion.parameter) if notion.parameter and notion.parameter in words else None
    if at is not None and not isinstance(at, (int, float)):
        raise UsageError(f"parameter {notion.parameter}: {at!r} is not a number", notion.parameter)
    out = certify.replay(t, family, words, None if at is None else float(at),
                         allow_outside_assumptions=args.allow_outside_assumptions)
    c, margin = out["comparison"], out["margin"]
    holds = margin is None
    relation = {"upper": "exact <= bound", "lower": "exact >= bound", "exact": "exact = bound"}.get(t.kind, t.kind)
    if args.json:
        emit_json(jsonable({  # inf and nan as strings
            "id": t.id, "notion": t.notion, "kind": t.kind, "quantity": notion.quantity, "family": family,
            "instance": out["instance"].name, "build": out["build"], "parameters": out["parameters"], "at": c.at,
            "bound": c.bound, "exact": c.exact, "ratio": c.ratio, "tolerance": c.tolerance, "holds": holds,
            "certified_margin": margin, "outside_assumptions": out["outside"]}))
    else:
        at_text = f" at {notion.parameter}={c.at:g}" if notion.parameter else ""
        verdict = (f"holds ({relation} within tolerance {c.tolerance:.2g})" if holds
                   else f"VIOLATED ({relation} fails by a certified relative margin {margin:.4g})")
        bound = (f"{c.bound:.10g}" if math.isfinite(c.bound)
                 else f"{c.bound} (the bound is vacuous at this point: it says nothing)")
        emit(f"{t.id} ({t.notion}, {t.kind}) on {out['instance'].name}{at_text}:\n"
             f"  bound = {bound}\n  exact = {c.exact:.10g}\n  exact/bound = {c.ratio:.10g}\n  {verdict}"
             + "".join(f"\nwarning: evaluated outside the assumption {v}" for v in out["outside"]))
    return 0 if holds else 1


__all__ = ["add_eval_arguments", "add_list_arguments", "add_show_arguments", "run_eval",
           "index_key", "run_list", "run_show", "summaries", "summary", "theorem"]
