"""Generating the report: ``report.md``, ``report.html``, ``report.json`` and ``figures/*.svg`` in one folder.

The cross-check engine runs once per theorem (``verify.check.engine.check_theorem``, the same verdicts as
``verify run``); per-theorem plots are computed next to it, in worker processes
(:func:`verify.check.parallel.map_jobs`).  The files are written into a temporary folder beside the
output and moved into place at the end, so a failed run leaves nothing partially written.

The output folder is never emptied blindly: a folder holding anything but a previous report is refused,
and a previous report (marked by :data:`MARKER`) has only its own files replaced.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

import theorems
from verify.check.engine import check_theorem, search_effort, summary
from verify.check.mutation import mutable, self_test
from verify.check.parallel import map_jobs
from verify.check.verdict import Obligation, Verdict, decide
from verify.errors import InputError
from verify.report import build, incremental
from verify.report.mathml import bound_latex, bound_mathml, latex_mathml
from verify.report.render import html_page, markdown

DEFAULT_OUT = "reports/latest"
#: the file marking a folder as a report written by this tool; it lists the files the tool wrote
MARKER = ".verify-report.json"
_REPORT_FILES = ("report.md", "report.html", "report.json")


# ---------------------------------------------------------------------------------------------------
# the output folder
# ---------------------------------------------------------------------------------------------------


def check_output_dir(out: str) -> Path:
    """The output folder, refused (``InputError``) when it is a file, cannot be written, is not empty and not a
    previous report (marked by :data:`MARKER`), or holds a link where the report writes (a ``figures`` or
    ``screenshots`` folder, or a listed file, that leads outside it)."""
    target = Path(out)
    if target.exists() and not target.is_dir():
        raise InputError(f"--out {out}: exists and is not a directory", "--out")
    parent = target.resolve().parent
    if not parent.is_dir():
        raise InputError(f"--out {out}: parent directory {parent} does not exist", "--out")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"--out {out}: directory {parent} is not writable", "--out")
    if target.is_dir():
        if not os.access(target, os.W_OK | os.X_OK):
            raise InputError(f"--out {out}: directory is not writable", "--out")
        foreign = [] if (target / MARKER).is_file() else _foreign_entries(target)
        linked = [name for name in ("figures", "screenshots", *_own_files(target), *_REPORT_FILES)
                  if _through_link(target, name)]
        if linked:
            raise InputError(f"--out {out}: {linked[0]} is (or passes through) a symbolic link: the report would "
                             "write or delete outside the folder; give a folder without links", "--out")
        if foreign:
            raise InputError(f"--out {out}: the folder is not a previous report and holds files this tool did not "
                             f"write ({foreign[0]}" + (f" and {len(foreign) - 1} more" if len(foreign) > 1 else "")
                             + "); give an empty or new folder", "--out")
    try:  # permissions alone do not tell (root, read-only mounts): try it
        os.rmdir(tempfile.mkdtemp(dir=parent, prefix=f".{target.name}-probe-"))
    except OSError as exc:
        raise InputError(f"--out {out}: cannot write in {parent}: {exc.strerror}", "--out") from None
    return target


def _own_files(folder: Path) -> set[str]:
    """Files (relative paths) of a previous report in ``folder``: those its marker lists (nothing without a
    marker: a folder's files are the tool's only when it says so)."""
    marker = folder / MARKER
    if not marker.is_file():
        return set()
    try:
        listed = json.loads(marker.read_text(encoding="utf-8"))["files"]
        return {f for f in listed if isinstance(f, str) and _inside(f) and not _through_link(folder, f)} | {MARKER}
    except (OSError, ValueError, KeyError, TypeError):
        return {MARKER}


def _through_link(folder: Path, name: str) -> bool:
    """Whether ``folder/name`` is, or passes through, a symbolic link (writing or deleting there could reach
    outside the folder)."""
    path = folder
    for part in Path(name).parts:
        path = path / part
        if path.is_symlink():
            return True
    return False


def _inside(name: str) -> bool:
    """A relative path that stays inside the folder (a marker is a file anyone can edit)."""
    path = Path(name)
    return not path.is_absolute() and ".." not in path.parts


def _foreign_entries(folder: Path) -> list[str]:
    """What in an unmarked ``folder`` is not a report's (a folder counts once, as ``name/``)."""
    own = _own_files(folder)
    foreign = []
    for root, dirs, files in os.walk(folder):
        here = Path(root).relative_to(folder)
        for d in sorted(dirs):
            if (here / d).as_posix() != "figures":
                foreign.append((here / d).as_posix() + "/")
        dirs[:] = [d for d in dirs if (here / d).as_posix() == "figures"]
        foreign += [(here / f).as_posix() for f in sorted(files) if (here / f).as_posix() not in own]
    return foreign


def write_report(target: Path, report: dict, svgs: dict[str, str], formulas: dict[str, str],
                 extra: Callable[[Path, dict], list[str]] | None = None) -> None:
    """Write the report into a temporary folder beside ``target``, then move it into place: the whole
    folder when ``target`` does not exist or is empty, else file by file over the previous report's own
    files (anything else in the folder is left alone).  ``extra(folder, report)`` may add files to the
    temporary folder before the move (the screenshots) and returns their relative paths."""
    parent = target.resolve().parent
    remove_stale_temporaries(parent, target.name)
    try:
        tmp = Path(tempfile.mkdtemp(dir=parent, prefix=f".{target.name}-tmp-"))
    except OSError as exc:
        raise InputError(f"--out {target}: cannot write: {exc.strerror}", "--out") from None
    try:
        tmp.chmod(0o755)  # mkdtemp makes it private; the report is meant to be read
        (tmp / "figures").mkdir()
        files = {"report.json": json.dumps(report, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                 "report.md": markdown(report), "report.html": html_page(report, svgs, formulas),
                 **dict(svgs)}
        for name, text in files.items():
            (tmp / name).write_text(text, encoding="utf-8")
        names = sorted(files) + (sorted(extra(tmp, report)) if extra is not None else [])
        (tmp / MARKER).write_text(json.dumps({"generator": "verify report", "files": names}, indent=1)
                                  + "\n", encoding="utf-8")
        if target.is_dir() and any(target.iterdir()):
            _replace_own_files(target, tmp, names + [MARKER])
        else:
            if target.is_dir():
                target.rmdir()
            os.replace(tmp, target)
    except OSError as exc:
        raise InputError(f"--out {target}: cannot write: {exc.strerror}", "--out") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


#: a temporary folder of a report older than this (seconds) was left by a killed run
STALE_SECONDS = 3600


def remove_stale_temporaries(parent: Path, name: str) -> None:
    """Remove the temporary folders a killed ``verify report`` left beside its target (``.NAME-tmp-*``, older
    than :data:`STALE_SECONDS`: a running report's own is younger)."""
    import time

    for folder in parent.glob(f".{name}-tmp-*"):
        with contextlib.suppress(OSError):
            if folder.is_dir() and not folder.is_symlink() and time.time() - folder.stat().st_mtime > STALE_SECONDS:
                shutil.rmtree(folder)


def _replace_own_files(target: Path, new: Path, names: list[str]) -> None:
    for old in sorted(_own_files(target) - set(names)):  # the previous report's figures that are gone
        (target / old).unlink(missing_ok=True)
    for name in names:
        (target / name).parent.mkdir(parents=True, exist_ok=True)  # figures/, screenshots/
        os.replace(new / name, target / name)


# ---------------------------------------------------------------------------------------------------
# per-theorem work (runs in a worker process)
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TheoremResult:
    """One theorem's part of the report: its verdict, its section, its figures (SVG and caption by file) and
    its formulas (MathML by key, None where a formula could not be converted)."""

    verdict: Verdict
    section: dict
    svgs: dict[str, str]
    captions: dict[str, str]
    formulas: dict[str, str | None]

    def to_json(self) -> dict:
        return {"verdict": self.verdict.to_json(), "section": self.section, "svgs": self.svgs,
                "captions": self.captions, "formulas": self.formulas}

    @classmethod
    def from_json(cls, entry: Mapping) -> "TheoremResult":
        return cls(Verdict.from_json(entry["verdict"]), entry["section"], entry["svgs"], entry["captions"],
                   entry["formulas"])


@dataclass(frozen=True)
class ReproductionResult:
    """The papers' tables and figures reproduced: the report's data, figure SVGs and captions by file."""

    data: dict
    svgs: dict[str, str]
    captions: dict[str, str]

    def to_json(self) -> dict:
        return {"data": self.data, "svgs": self.svgs, "captions": self.captions}

    @classmethod
    def from_json(cls, entry: Mapping) -> "ReproductionResult":
        return cls(entry["data"], entry["svgs"], entry["captions"])


@dataclass(frozen=True)
class TheoremJob:
    """Check one theorem and draw its section (:func:`theorem_job`); with ``verdict`` (its JSON, as
    ``verify run`` stored it), only draw the section."""

    theorem_id: str
    profile_name: str
    seed: int
    verdict: Mapping | None = None

    def __call__(self) -> TheoremResult:
        return theorem_job(self.theorem_id, self.profile_name, self.seed, self.verdict)

    def label(self) -> str:
        return self.theorem_id


@dataclass(frozen=True)
class ReproductionJob:
    """Reproduce the papers' tables and figures (:func:`reproduction_job`)."""

    profile_name: str
    seed: int
    papers: tuple[str, ...] | None

    def __call__(self) -> ReproductionResult:
        return reproduction_job(self.profile_name, self.seed, self.papers)

    def label(self) -> str:
        return "tables and figures"


def theorem_job(theorem_id: str, profile_name: str, seed: int, known: Mapping | None = None) -> TheoremResult:
    """Check one theorem and draw its section; ``known``: its verdict's JSON, already computed with the same
    code, profile and seed (``verify run``'s, from the cache): the check is not run again."""
    theorem = theorems.get(theorem_id)
    if known is not None:
        verdict = Verdict.from_json(known)
    else:
        try:
            verdict = check_theorem(theorem, theorems.get, search_effort(profile_name), seed)
        except Exception as exc:  # noqa: BLE001 - a piece of the engine not in place yet: a gap, never a crash
            verdict = decide(theorem, [Obligation("internal-error", "inconclusive", _one_line(exc))])
    figures = build.Figures()
    options = build.Options(profile=profile_name, seed=seed)
    try:
        section = build.theorem_section(theorem, verdict.to_json(), theorems.get, options, figures)
    except Exception as exc:  # noqa: BLE001 - same: the section keeps the verdict and names the gap
        figures = build.Figures()
        section = build.theorem_section(theorem, verdict.to_json(), theorems.get, options, figures, curves=False)
        section["gaps"].append(f"curves could not be drawn: {_one_line(exc)}")
    section["bound"] = {**section["bound"], "latex": bound_latex(theorem.bound)}  # operator names intact
    formulas = {f"{theorem.id}#bound": bound_mathml(theorem.bound),
                f"{theorem.id}#paper": latex_mathml(theorem.paper_form) if theorem.paper_form else None}
    return TheoremResult(verdict, section, figures.svg, figures.captions, formulas)


def _one_line(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}".splitlines()[0][:300]


def reproduction_job(profile_name: str, seed: int, papers: tuple[str, ...] | None) -> ReproductionResult:
    """The papers' tables and figures reproduced."""
    figures = build.Figures()
    data = build.reproduction(build.Options(profile=profile_name, seed=seed), figures,
                              papers=set(papers) if papers is not None else None)
    return ReproductionResult(data, figures.svg, figures.captions)


def _run(job: TheoremJob | ReproductionJob) -> TheoremResult | ReproductionResult:
    """One unit of work of the pool (a module-level function: picklable)."""
    return job()


# ---------------------------------------------------------------------------------------------------
# the report
# ---------------------------------------------------------------------------------------------------


def generate(records, profile_name: str = "quick", seed: int = 0, only: str | None = None, jobs: int = 1,
             progress: Callable[[str], None] | None = None, reproduce_papers: set[str] | None = None,
             cache: incremental.ResultCache | None = None, stats: dict[str, int] | None = None) -> tuple:
    """Compute the report for ``records``: (report dict, figure SVGs by file, formula MathML, verdicts).

    ``progress(name)`` is called after each theorem (its id) and after the reproduction
    (``"tables and figures"``).  ``jobs > 1`` spreads the work over worker processes; the result does not
    depend on ``jobs``.  With a ``cache`` (:mod:`verify.report.incremental`), unchanged theorems, the
    reproduction and the mutation self-test are read back instead of computed, and what is computed is
    stored; a theorem whose verdict alone is cached (``verify run`` stored it) is not checked again, only
    drawn.  The result does not depend on the cache either.  ``stats`` (a dict) receives ``verdicts``: how
    many theorems' checks were read back that way.
    """
    ids = [t.id for t in records]
    papers = tuple(sorted(reproduce_papers)) if reproduce_papers is not None else None
    keys = _cache_keys(records, profile_name, seed, papers) if cache is not None else {}
    by_id, known, repro_result = _read_back(ids, cache, keys, progress)
    if stats is not None:
        stats["verdicts"] = len(known)
    todo = [t for t in records if t.id not in by_id]
    repro = [ReproductionJob(profile_name, seed, papers)] if repro_result is None else []
    if jobs <= 1:
        work = repro + [TheoremJob(t.id, profile_name, seed, known.get(t.id)) for t in todo]
    else:  # longest first (numerical compositions, then other operators): a better spread over the workers
        order = [TheoremJob(t.id, profile_name, seed, known.get(t.id))
                 for t in sorted(todo, key=lambda t: (t.id in known, _expected_cost(t)))]
        work = order[:jobs] + repro + order[jobs:]

    def done(index: int, result) -> None:
        job = work[index]
        if cache is not None:  # kept as soon as it is done: an interrupted report loses no finished theorem
            if isinstance(job, TheoremJob):
                cache.put(keys[job.theorem_id], result.to_json())
                if job.verdict is None:  # a check run here: verify run reads it back too
                    cache.put(keys[_VERDICT + job.theorem_id], result.verdict.to_json())
            else:
                cache.put(keys["reproduction"], result.to_json())
        if progress is not None:
            progress(job.label())

    results = map_jobs(_run, [(job,) for job in work], jobs, done)
    for job, result in zip(work, results):
        if isinstance(job, TheoremJob):
            by_id[job.theorem_id] = result
        else:
            repro_result = result
    figures = build.Figures()
    formulas: dict[str, str] = {}
    sections, verdicts = [], []
    for tid in ids:
        result = by_id[tid]
        verdicts.append(result.verdict)
        sections.append(result.section)
        figures.update(result.svgs, result.captions)
        formulas.update({k: v for k, v in result.formulas.items() if v})
    figures.update(repro_result.svgs, repro_result.captions)
    repro_data = repro_result.data
    verdict_by_id = {s["id"]: s["verdict"] for s in sections}
    mutation = mutation_result(verdicts, profile_name, seed, jobs, cache, keys.get("mutation"))
    report = {
        "meta": {**_meta(verdicts, profile_name, seed, only), "mutation": mutation["line"],
                 "mutation_survivors": mutation["survivors"]},
        "mutation": mutation["json"],
        "summary": build.summary_rows(sections),
        "theorems": sections,
        "errata": build.errata_section(list(records), verdict_by_id, repro_data["tables"]),
        "reproduction": repro_data,
        "gaps": _gaps(sections, repro_data),
        "figures_index": {f: figures.captions[f] for f in sorted(figures.svg)},
        "figures": figures.index(),
    }
    return report, figures.svg, formulas, verdicts


def _read_back(ids: list[str], cache, keys: dict[str, str], progress: Callable[[str], None] | None) -> tuple:
    """What ``cache`` holds for the report: the theorems' whole results, the verdicts alone (``verify run``'s) of
    the others, and the reproduction (None when not held)."""
    by_id: dict[str, TheoremResult] = {}
    known: dict[str, Mapping] = {}
    repro_result: ReproductionResult | None = None
    if cache is None:
        return by_id, known, repro_result
    for tid in ids:
        entry = cache.get(keys[tid])
        if entry is not None:
            by_id[tid] = TheoremResult.from_json(entry)
            if progress is not None:
                progress(tid)
            continue
        verdict = cache.get(keys[_VERDICT + tid], counted=False)
        if isinstance(verdict, dict) and verdict.get("id") == tid:
            known[tid] = verdict
    entry = cache.get(keys["reproduction"])
    if entry is not None:
        repro_result = ReproductionResult.from_json(entry)
        if progress is not None:
            progress("tables and figures")
    return by_id, known, repro_result


#: the prefix of a theorem's verdict key among :func:`_cache_keys` (its whole result's key is its id)
_VERDICT = "verdict "


def _cache_keys(records, profile_name: str, seed: int, papers: tuple[str, ...] | None) -> dict[str, str]:
    """Cache keys: one per theorem (its whole result) and one per theorem's verdict (shared with
    ``verify run``), the reproduction's (every record, since tables name theorems), and the mutation
    self-test's (the selected theorems' verdict keys, as ``verify run`` makes it)."""
    keys = {}
    for t in records:
        baseline = build.composition_baseline(t)
        related = [] if baseline is None else [x for x in (baseline.theorem, baseline.rdp) if x]
        keys[t.id] = incremental.theorem_key(t, theorems.get, profile_name, seed, related)
        keys[_VERDICT + t.id] = incremental.verdict_key(t, theorems.get, profile_name, seed)
    registry = [incremental.record_text(t) for t in theorems.all()]
    keys["reproduction"] = incremental.combined_key("reproduction", registry, profile_name, seed, repr(papers))
    keys["mutation"] = incremental.mutation_key([keys[_VERDICT + t.id] for t in records], profile_name, seed)
    return keys


def mutation_result(verdicts, profile_name: str, seed: int, workers: int, cache, key: str | None,
                    counting: Callable[[int], contextlib.AbstractContextManager] | None = None) -> dict:
    """The mutation self-test as ``verify run`` prints it and the report shows it (score line, survivors, JSON):
    read back from ``cache`` under ``key``, else run (``counting(total)``: the progress shown while it runs,
    given the number of theorems mutated) and stored."""
    if cache is not None:
        entry = cache.get(key)
        if isinstance(entry, dict) and {"line", "survivors", "json"} <= set(entry):
            return entry
    with (counting(sum(mutable(theorems.get(v.id), v, profile_name) for v in verdicts)) if counting is not None
          else contextlib.nullcontext()) as step:
        score = self_test(verdicts, profile_name, seed, workers, progress=step)
    out = {"line": score.line(), "survivors": score.survivor_lines(), "json": score.to_json()}
    if cache is not None:
        cache.put(key, out)
    return out


def _expected_cost(theorem) -> int:
    """Scheduling rank (lower runs first): curves inverted by scalar evaluations (f-DP compositions) are
    the slowest checks by far."""
    if theorem.notion_record.inverted:
        return 0
    if theorem.operators or theorem.free:
        return 1
    return 2


def _meta(verdicts, profile_name: str, seed: int, only: str | None) -> dict:
    s = summary(verdicts)
    missing: list[str] = []  # the paper modules are discovered (theorems.MODULES): none can be left out
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


__all__ = ["DEFAULT_OUT", "MARKER", "ReproductionJob", "ReproductionResult", "TheoremJob", "TheoremResult",
           "check_output_dir", "generate", "mutation_result", "reproduction_job", "theorem_job",
           "write_report"]
