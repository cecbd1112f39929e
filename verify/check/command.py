"""The ``verify run`` and ``verify check`` commands."""

from __future__ import annotations

import fnmatch
import importlib.util
import json
import os
import tempfile
from pathlib import Path
from typing import Callable

from verify.check.engine import PROFILES, check_all, check_registered, compare_baseline, profile, summary
from verify.check.verdict import Verdict
from verify.theorem import Theorem, theorems_in


class CommandError(Exception):
    """Bad input: the CLI turns it into exit status 2 and one line."""


# ---------------------------------------------------------------------------------------------------
# loading user theorems
# ---------------------------------------------------------------------------------------------------


def load_user_theorems(path: str) -> list[Theorem]:
    """Module-level ``Theorem`` records of a user file; CommandError (one line) on any problem."""
    file = Path(path)
    if not file.is_file():
        raise CommandError(f"{path}: no such file")
    spec = importlib.util.spec_from_file_location(f"verify_user_{abs(hash(str(file.resolve())))}", file)
    if spec is None or spec.loader is None:
        raise CommandError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        raise CommandError(f"{path}:{exc.lineno}: syntax error: {exc.msg}") from None
    except (ValueError, TypeError, AttributeError, NameError, ImportError, KeyError) as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise CommandError(f"{path}: {type(exc).__name__}: {message}") from None
    found = theorems_in(vars(module))
    if not found:
        raise CommandError(f"{path}: no module-level Theorem record found")
    return found


def _lookup(extra: list[Theorem]) -> Callable[[str], Theorem]:
    import theorems

    own = {t.id: t for t in extra}

    def lookup(theorem_id: str) -> Theorem:
        if theorem_id in own:
            return own[theorem_id]
        return theorems.get(theorem_id)

    return lookup


# ---------------------------------------------------------------------------------------------------
# output
# ---------------------------------------------------------------------------------------------------

STYLE = {"verified": "green", "violated": "red", "approximate": "yellow", "inconclusive": "blue"}


def _table(verdicts: list[Verdict], title: str):
    from rich.table import Table

    table = Table(title=title)
    for col in ("theorem", "verdict", "max exact/bound", "expected", "reason"):
        table.add_column(col, overflow="fold")
    for v in verdicts:
        ratio = "" if v.max_ratio is None else f"{v.max_ratio:.4g}"
        expected = "yes" if v.as_expected else "[bold red]NO[/]"
        if v.printed_of:
            expected += " (as printed: must be caught)"
        reason = v.reason if len(v.reason) < 160 else v.reason[:157] + "..."
        table.add_row(v.id, f"[{STYLE[v.verdict]}]{v.verdict}[/]", ratio, expected, reason)
    return table


def _console(stderr: bool = False):
    """A rich console; 160 columns when the output is not a terminal (rich would fold tables to 80)."""
    from rich.console import Console

    console = Console(stderr=stderr)
    return console if console.is_terminal else Console(stderr=stderr, width=160)


def _with_progress(total: int, console, work: Callable[[Callable[[str], None]], list[Verdict]]) -> list[Verdict]:
    """Run ``work(step)`` under a transient progress bar; ``work`` calls ``step(theorem_id)`` per theorem."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True) as bar:
        task = bar.add_task("checking", total=total)
        return work(lambda theorem_id: bar.update(task, advance=1, description=f"checked {theorem_id}"))


def write_json_atomically(path: str, payload: dict) -> None:
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise CommandError(f"{path}: directory {directory} does not exist")
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".verify-", suffix=".json")
    try:
        with os.fdopen(fd, "w") as handle:
            json.dump(payload, handle, indent=2, sort_keys=True)
            handle.write("\n")
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise CommandError(f"{path}: cannot write: {exc.strerror}") from None


def run_payload(verdicts: list[Verdict], prof_name: str, seed: int) -> dict:
    return {"profile": prof_name, "seed": seed, "summary": summary(verdicts),
            "theorems": [v.to_json() for v in verdicts]}


# ---------------------------------------------------------------------------------------------------
# verify run
# ---------------------------------------------------------------------------------------------------


def add_run_arguments(p) -> None:
    p.add_argument("--profile", default="quick", choices=sorted(PROFILES), help="how hard to look (default quick)")
    p.add_argument("--only", metavar="PATTERN", help="only theorem ids matching this glob or substring")
    p.add_argument("--json", metavar="FILE", help="write the verdicts as JSON to FILE")
    p.add_argument("--seed", type=int, default=0, help="seed of every random choice (default 0)")
    p.add_argument("--baseline", metavar="FILE",
                   help="compare with a baseline (reports/baseline.json); fail on a changed verdict or ratio")
    p.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1),
                   help="processes checking theorems in parallel (default: up to 2); verdicts do not depend on it")


def select(records: list[Theorem], pattern: str | None) -> list[Theorem]:
    if not pattern:
        return records
    return [t for t in records if fnmatch.fnmatch(t.id, pattern) or pattern in t.id]


def run(args) -> int:
    import theorems
    from rich.console import Console

    if args.seed < 0:
        raise CommandError(f"--seed must be >= 0, got {args.seed}")
    baseline = None
    if args.baseline:
        try:
            baseline = json.loads(Path(args.baseline).read_text())
        except OSError as exc:
            raise CommandError(f"{args.baseline}: cannot read: {exc.strerror}") from None
        except json.JSONDecodeError as exc:
            raise CommandError(f"{args.baseline}: not JSON ({exc.msg} at line {exc.lineno})") from None
    if args.json and not Path(args.json).parent.resolve().is_dir():
        raise CommandError(f"{args.json}: directory {Path(args.json).parent} does not exist")
    records = select(theorems.all(), args.only)
    if not records:
        raise CommandError(f"no theorem id matches {args.only!r}")
    prof = profile(args.profile)
    if args.workers < 1:
        raise CommandError(f"--workers must be >= 1, got {args.workers}")
    console = Console(stderr=True)
    verdicts = _with_progress(len(records), console, lambda step: check_registered(
        [t.id for t in records], prof.name, args.seed, args.workers, progress=step))
    out = _console()
    out.print(_table(verdicts, f"verify run --profile {prof.name} (seed {args.seed}): {len(verdicts)} theorems"))
    payload = run_payload(verdicts, prof.name, args.seed)
    s = payload["summary"]
    out.print("  ".join(f"{k}: {n}" for k, n in sorted(s["counts"].items())))
    status = 0
    if s["unexpected"]:
        out.print(f"[bold red]unexpected verdicts:[/] {', '.join(s['unexpected'])}")
        status = 1
    if baseline is not None:
        selected = {v.id for v in verdicts}  # with --only, theorems outside the selection are not missing
        changes = compare_baseline(verdicts, {**baseline, "theorems": [
            t for t in baseline.get("theorems", []) if t["id"] in selected or not args.only]})
        payload["baseline_changes"] = changes
        for c in changes:
            out.print(f"[bold red]baseline:[/] {c}")
        if changes:
            status = 1
    if args.json:
        write_json_atomically(args.json, payload)
    return status


# ---------------------------------------------------------------------------------------------------
# verify check
# ---------------------------------------------------------------------------------------------------


def add_check_arguments(p) -> None:
    p.add_argument("file", help="a Python file with module-level Theorem records")
    p.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    p.add_argument("--examples", type=int, default=None, help="hypothesis examples per theorem")
    p.add_argument("--seed", type=int, default=0, help="seed of every random choice (default 0)")
    p.add_argument("--profile", default="quick", choices=sorted(PROFILES))


def check(args) -> int:
    from dataclasses import replace

    from rich.console import Console

    if args.examples is not None and args.examples <= 0:
        raise CommandError(f"--examples must be > 0, got {args.examples}")
    records = load_user_theorems(args.file)
    prof = profile(args.profile)
    if args.examples is not None:
        prof = replace(prof, examples=args.examples)
    console = Console(stderr=True)
    verdicts = _with_progress(len(records), console, lambda step: check_all(
        records, _lookup(records), prof, args.seed, progress=lambda t: step(t.id)))
    if args.json:
        print(json.dumps([_check_json(v) for v in verdicts], indent=2))
    else:
        _console().print(_table(verdicts, f"verify check {args.file}"))
    return 1 if any(v.verdict == "violated" for v in verdicts) else 0


def _check_json(v: Verdict) -> dict:
    full = v.to_json()
    return {"id": full["id"], "verdict": full["verdict"], "counterexample": full["counterexample"],
            "max_ratio": full["max_ratio"], "reason": full["reason"],
            "obligations": [{"name": o["name"], "status": o["status"], "detail": o["detail"]}
                            for o in full["obligations"]]}
