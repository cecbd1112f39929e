"""The ``verify report`` command: write ``report.md``, ``report.html``, ``report.json`` and ``figures/*.svg``.

The cross-check engine runs once per theorem (``verify.check.engine.check_theorem``, the same verdicts as
``verify run``); per-theorem plots are computed next to it, in ``--jobs`` worker processes.  Output goes to a
temporary directory beside ``--out`` and is moved into place at the end, so a failed run leaves nothing
partially written.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Callable

from verify.report import build
from verify.report.render import formula_svg, html_page, markdown

DEFAULT_OUT = "reports/latest"


class CommandError(Exception):
    """Bad input: exit status 2 and one line."""


def add_arguments(p) -> None:
    from verify.check.engine import PROFILES

    p.add_argument("--out", default=DEFAULT_OUT, metavar="DIR", help=f"output directory (default {DEFAULT_OUT})")
    p.add_argument("--profile", default="quick", choices=sorted(PROFILES), help="how hard to look (default quick)")
    p.add_argument("--seed", type=int, default=0, help="seed of every random choice (default 0)")
    p.add_argument("--only", metavar="PATTERN", help="only theorem ids matching this glob or substring")
    p.add_argument("--jobs", type=int, default=None, help="worker processes (default: min(2, CPUs))")
    p.add_argument("--write-baseline", metavar="FILE",
                   help="also write the verdicts as a regression baseline (the JSON of `verify run --json`)")


# ---------------------------------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------------------------------


def check_output_dir(out: str) -> Path:
    """The resolved output directory; ``CommandError`` when it is a file or cannot be written."""
    target = Path(out)
    if target.exists() and not target.is_dir():
        raise CommandError(f"--out {out}: exists and is not a directory")
    parent = target.resolve().parent
    if not parent.is_dir():
        raise CommandError(f"--out {out}: parent directory {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise CommandError(f"--out {out}: directory {parent} is not writable")
    if target.is_dir() and not os.access(target, os.W_OK | os.X_OK):
        raise CommandError(f"--out {out}: directory is not writable")
    try:  # permissions alone do not tell (root, read-only mounts): try it
        os.rmdir(tempfile.mkdtemp(dir=parent, prefix=f".{target.name}-probe-"))
    except OSError as exc:
        raise CommandError(f"--out {out}: cannot write in {parent}: {exc.strerror}") from None
    return target


# ---------------------------------------------------------------------------------------------------
# per-theorem work (runs in a worker process)
# ---------------------------------------------------------------------------------------------------


def _lookup(theorem_id: str):
    import theorems

    return theorems.get(theorem_id)


def theorem_job(theorem_id: str, profile_name: str, seed: int) -> tuple:
    """Check one theorem and draw its section: (Verdict, section, figure SVGs, formula SVGs)."""
    import theorems
    from verify.check.engine import check_theorem, profile

    theorem = theorems.get(theorem_id)
    try:
        verdict = check_theorem(theorem, _lookup, profile(profile_name), seed)
    except Exception as exc:  # noqa: BLE001 - a piece of the engine not in place yet: a gap, never a crash
        from verify.check.verdict import Obligation, decide

        verdict = decide(theorem, [Obligation("internal-error", "inconclusive", _one_line(exc))])
    figures = build.Figures()
    options = build.Options(profile=profile_name, seed=seed)
    try:
        section = build.theorem_section(theorem, verdict.to_json(), _lookup, options, figures)
    except Exception as exc:  # noqa: BLE001 - same: the section keeps the verdict and names the gap
        figures = build.Figures()
        section = build.theorem_section(theorem, verdict.to_json(), _lookup, options, figures, curves=False)
        section["gaps"].append(f"curves could not be drawn: {_one_line(exc)}")
    formulas = {f"{theorem.id}#bound": formula_svg(theorem.latex()),
                f"{theorem.id}#paper": formula_svg(theorem.paper_form) if theorem.paper_form else None}
    return verdict, section, figures.svg, figures.captions, formulas


def _one_line(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}".splitlines()[0][:300]


def reproduction_job(profile_name: str, seed: int, papers: tuple[str, ...] | None) -> tuple:
    figures = build.Figures()
    data = build.reproduction(build.Options(profile=profile_name, seed=seed), figures,
                              papers=set(papers) if papers is not None else None)
    return data, figures.svg, figures.captions


# ---------------------------------------------------------------------------------------------------
# the report
# ---------------------------------------------------------------------------------------------------


def generate(records, profile_name: str = "quick", seed: int = 0, only: str | None = None, jobs: int = 1,
             progress: Callable[[str], None] | None = None, reproduce_papers: set[str] | None = None) -> tuple:
    """Compute the report for ``records``: (report dict, figure SVGs by file, formula SVGs, verdicts).

    ``progress(kind)`` is called after each theorem (``"theorem"``) and after the reproduction
    (``"reproduction"``).  ``jobs > 1`` spreads theorems over worker processes; the result does not depend
    on ``jobs``.
    """
    ids = [t.id for t in records]
    papers = tuple(sorted(reproduce_papers)) if reproduce_papers is not None else None
    results: dict[str, tuple] = {}
    if jobs <= 1:
        repro = reproduction_job(profile_name, seed, papers)
        if progress:
            progress("reproduction")
        for tid in ids:
            results[tid] = theorem_job(tid, profile_name, seed)
            if progress:
                progress("theorem")
    else:
        import multiprocessing

        with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            # longest first (numerical compositions, then other operators): a better spread over the workers
            order = sorted(records, key=_expected_cost)
            pending = {pool.submit(theorem_job, t.id, profile_name, seed): t.id for t in order[:jobs]}
            pending[pool.submit(reproduction_job, profile_name, seed, papers)] = "__reproduction__"
            pending.update({pool.submit(theorem_job, t.id, profile_name, seed): t.id for t in order[jobs:]})
            repro = None
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    key = pending.pop(future)
                    if key == "__reproduction__":
                        repro = future.result()
                        if progress:
                            progress("reproduction")
                    else:
                        results[key] = future.result()
                        if progress:
                            progress("theorem")
    figures = build.Figures()
    formulas: dict[str, str] = {}
    sections, verdicts = [], []
    for tid in ids:
        verdict, section, fsvg, fcap, forms = results[tid]
        verdicts.append(verdict)
        sections.append(section)
        figures.update(fsvg, fcap)
        formulas.update({k: v for k, v in forms.items() if v})
    repro_data, rsvg, rcap = repro
    figures.update(rsvg, rcap)
    by_id = {s["id"]: s["verdict"] for s in sections}
    report = {
        "meta": _meta(verdicts, profile_name, seed, only),
        "summary": build.summary_rows(sections),
        "theorems": sections,
        "errata": build.errata_section(list(records), by_id, repro_data["tables"]),
        "reproduction": repro_data,
        "gaps": _gaps(sections, repro_data),
        "figures_index": {f: figures.captions[f] for f in sorted(figures.svg)},
        "figures": figures.index(),
    }
    return report, figures.svg, formulas, verdicts


def _expected_cost(theorem) -> int:
    """Scheduling rank (lower runs first): exact compositions are the slowest checks by far."""
    if theorem.notion == "fdp":
        return 0
    if theorem.operators or theorem.free:
        return 1
    return 2


def _meta(verdicts, profile_name: str, seed: int, only: str | None) -> dict:
    from verify.check.engine import summary

    import theorems

    s = summary(verdicts)
    missing = []
    for module in theorems.MODULES:
        try:
            __import__(f"theorems.{module}")
        except ModuleNotFoundError:
            missing.append(module)
    return {"profile": profile_name, "seed": seed, "only": only, "counts": dict(sorted(s["counts"].items())),
            "unexpected": s["unexpected"], "theorems": s["theorems"], "missing_modules": missing,
            "generator": "verify report"}


def _gaps(sections: list[dict], repro: dict) -> list[str]:
    gaps = []
    for s in sections:
        v = s["verdict"]
        if v.get("verdict") == "inconclusive":
            gaps.append(f"{s['id']}: inconclusive ({v.get('reason', '')})"[:300])
    for t in repro.get("tables", []):
        n = t["counts"].get("gap", 0)
        if n:
            reasons = sorted({c.get("reason", "") for r in t["rows"] for c in r["cells"].values()
                              if c["status"] == "gap"})
            gaps.append(f"{t['paper']} {t['label']}: {n} cell(s) not computed ({'; '.join(reasons)})"[:300])
    for f in repro.get("figures", []):
        for s in f["series"]:
            if s["gap"]:
                gaps.append(f"{f['paper']} {f['label']} replot, {s['label']}: {s['gap']}"[:300])
    if repro.get("gap"):
        gaps.append(repro["gap"])
    return gaps


def write_report(target: Path, report: dict, svgs: dict[str, str], formulas: dict[str, str]) -> None:
    """Write the four outputs into a temporary directory beside ``target`` and move it into place."""
    parent = target.resolve().parent
    try:
        tmp = Path(tempfile.mkdtemp(dir=parent, prefix=f".{target.name}-tmp-"))
    except OSError as exc:
        raise CommandError(f"--out {target}: cannot write: {exc.strerror}") from None
    old = None
    try:
        tmp.chmod(0o755)  # mkdtemp makes it private; the report is meant to be read
        (tmp / "figures").mkdir()
        for file, svg in svgs.items():
            (tmp / file).write_text(svg, encoding="utf-8")
        (tmp / "report.json").write_text(json.dumps(report, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                                         encoding="utf-8")
        (tmp / "report.md").write_text(markdown(report), encoding="utf-8")
        (tmp / "report.html").write_text(html_page(report, svgs, formulas), encoding="utf-8")
        if target.exists():
            old = Path(tempfile.mkdtemp(dir=parent, prefix=f".{target.name}-old-"))
            os.replace(target, old / "previous")
        os.replace(tmp, target)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        if old is not None and (old / "previous").exists() and not target.exists():
            os.replace(old / "previous", target)
        raise CommandError(f"--out {target}: cannot write: {exc.strerror}") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


def run(args) -> int:
    import theorems
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from verify.check.command import run_payload, select, write_json_atomically
    from verify.check.engine import profile

    if args.seed < 0:
        raise CommandError(f"--seed must be >= 0, got {args.seed}")
    if args.jobs is not None and args.jobs < 1:
        raise CommandError(f"--jobs must be >= 1, got {args.jobs}")
    target = check_output_dir(args.out)
    if args.write_baseline and not Path(args.write_baseline).resolve().parent.is_dir():
        raise CommandError(f"--write-baseline {args.write_baseline}: directory does not exist")
    prof = profile(args.profile)
    records = select(theorems.all(), args.only)
    if not records:
        raise CommandError(f"no theorem id matches {args.only!r}")
    jobs = args.jobs if args.jobs is not None else max(1, min(2, os.cpu_count() or 1))
    papers = {t.source.paper for t in records} if args.only else None
    console = Console(stderr=True)
    with Progress(TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True) as bar:
        task = bar.add_task("report: theorems", total=len(records))
        repro = bar.add_task("report: tables and figures", total=1)

        def step(kind: str) -> None:
            bar.update(task if kind == "theorem" else repro, advance=1)

        report, svgs, formulas, verdicts = generate(records, prof.name, args.seed, args.only, jobs, step, papers)
    write_report(target, report, svgs, formulas)
    if args.write_baseline:
        write_json_atomically(args.write_baseline, run_payload(verdicts, prof.name, args.seed))
    counts = ", ".join(f"{k} {n}" for k, n in report["meta"]["counts"].items())
    Console().print(f"wrote {target}/report.md, report.html, report.json and {len(svgs)} figures ({counts})")
    return 1 if report["meta"]["unexpected"] else 0


__all__ = ["CommandError", "add_arguments", "check_output_dir", "generate", "run", "write_report"]
