"""``verify run`` (the suite on the registry) and ``verify check FILE.py`` (the suite on a user's file)."""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import Callable

import theorems
from verify.check.engine import EFFORTS, search_effort
from verify.check.limits import TookTooLong, time_limit
from verify.check.mutation import MutationScore, TheoremMutation, mutable, mutate, worst_witness
from verify.check.parallel import check_file, check_registered
from verify.check.suite import (IMPORT_SECONDS, baseline_changes, load_user_theorems, read_baseline, run_payload,
                                select_or_refuse)
from verify.check.verdict import Verdict
from verify.commands.options import (add_cache, add_execution, add_only, add_seed, check_writable, emit, emit_json,
                                     execution_of, output_path, positive_float, positive_int, print_rich, progress,
                                     write_json)
from verify.errors import InputError
from verify.report.generate import mutation_result
from verify.report.incremental import DEFAULT_CACHE, ResultCache, mutation_key, verdict_key

STYLE = {"verified": "green", "violated": "red", "approximate": "yellow", "inconclusive": "blue", "ill-formed": "magenta"}


def _table(verdicts: list[Verdict], title: str):
    """The verdicts with their full reasons (wrapped); exact/bound: the largest over the compared instances (for
    a lower bound the loosest), for a violated record its largest-margin counterexample's."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=title, caption="exact/bound: an upper bound is sound at <= 1, a lower bound at >= 1 "
                                       "(the largest over the compared instances: for a lower bound its loosest)")
    table.add_column("theorem", no_wrap=True)
    for col in ("verdict", "exact/bound", "expected", "reason"):
        table.add_column(col, overflow="fold")
    for v in verdicts:
        shown = v.shown_ratio()
        ratio = "" if shown is None else f"{shown:.4g}"
        expected = "yes" if v.as_expected else "[bold red]NO[/]"
        if v.printed_of:
            expected += " (as printed: must be caught)"
        table.add_row(escape(v.id), f"[{STYLE[v.verdict]}]{v.verdict}[/]", ratio, expected, escape(v.reason))
    return table


# ---------------------------------------------------------------------------------------------------
# verify run
# ---------------------------------------------------------------------------------------------------


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--profile", default="quick", choices=sorted(EFFORTS), help="how hard to look (default quick)")
    add_only(p)
    p.add_argument("--json", metavar="FILE", type=output_path, help="write the verdicts as JSON to FILE")
    add_seed(p)
    p.add_argument("--baseline", metavar="FILE",
                   help="compare with a baseline made with the same --profile and --seed "
                        "(reports/baseline.json: quick, 0); fail on a changed verdict or ratio")
    add_execution(p)
    p.add_argument("--no-mutation", action="store_true",
                   help="skip the mutation self-test (wrong versions of the verified theorems, made by rule, "
                        "must come back violated; quick: closed forms only)")
    add_cache(p, "reuse and store each theorem's verdict and the mutation self-test in DIR, where verify report "
                 "reads them too and then checks nothing again", DEFAULT_CACHE)


def run(args: argparse.Namespace) -> int:
    effort = search_effort(args.profile)
    baseline = read_baseline(args.baseline, effort.name, args.seed) if args.baseline else None
    if args.json:
        check_writable(args.json, "--json")
    records = select_or_refuse(theorems.all(), args.only)
    cache = None if args.no_cache else _open_cache(args.cache)
    with execution_of(args) as where:  # one cluster for the theorems and their mutants
        if where.scheduler is not None:  # reached (and its code checked) even when every result is cached: the
            where.width()                # exit status does not depend on the cache
        with progress(len(records), "checked") as step:
            verdicts, keys = _verdicts(records, effort.name, args.seed, where.workers, step, cache)
        payload = run_payload(verdicts, effort.name, args.seed)
        s = payload["summary"]
        lines = ["  ".join(f"{k}: {n}" for k, n in sorted(s["counts"].items()))]
        if not args.no_mutation:
            mutation = mutation_result(verdicts, effort.name, args.seed, where.workers, cache,
                                       mutation_key(keys, effort.name, args.seed) if cache is not None else None,
                                       lambda total: progress(total, "mutated"))
            payload["mutation"] = mutation["json"]
            lines += _mutation_lines(mutation["line"], mutation["survivors"])
    status = 0
    if s["unexpected"]:
        lines.append(f"[bold red]unexpected verdicts:[/] {', '.join(s['unexpected'])}")
        status = 1
    if baseline is not None:
        changes = baseline_changes(verdicts, baseline, args.only)
        payload["baseline_changes"] = changes
        lines += [f"[bold red]baseline:[/] {c}" for c in changes] or [
            f"baseline {args.baseline}: no verdict changed and every ratio within its tolerance"]
        status = status or (1 if changes else 0)
    if args.json:
        write_json(args.json, payload)
        lines.append(f"the verdicts with their evidence (instances, regime cells, counterexamples and their replay "
                     f"lines): {args.json}")
    else:
        lines.append("the verdicts with their evidence: verify run --json FILE; the tightness report: verify report "
                     "(report.md, report.html)")
    print_rich(_table(verdicts, f"verify run --profile {effort.name} (seed {args.seed}): {len(verdicts)} theorems"))
    for line in lines:
        print_rich(line)
    return status


def _open_cache(folder: str) -> ResultCache | None:
    """The results cache in ``folder``; the default folder, when it cannot be made or written (a read-only
    directory), is no cache at all: the run goes on and computes everything (a folder given with ``--cache``
    is refused, ``InputError``)."""
    try:
        return ResultCache.open(folder)
    except InputError:
        if folder == DEFAULT_CACHE:
            return None
        raise


def _verdicts(records: list, profile_name: str, seed: int, workers: int, step: Callable[[str], None],
              cache: ResultCache | None) -> tuple[list[Verdict], list[str]]:
    """The verdicts of ``records`` (in their order) and their cache keys: read back from ``cache`` where a run
    or a report with the same code, profile and seed stored them (:func:`verify.report.incremental.verdict_key`),
    the others checked and stored as each is done.  A verdict read back is the one computed (its JSON
    round-trips), so the output does not depend on the cache."""
    keys = [verdict_key(t, theorems.get, profile_name, seed) for t in records] if cache is not None else []
    known: dict[str, Verdict] = {}
    if cache is not None:
        for t, key in zip(records, keys):
            entry = cache.get(key)
            if isinstance(entry, dict) and entry.get("id") == t.id:
                known[t.id] = Verdict.from_json(entry)
                step(t.id)
    key_of = dict(zip((t.id for t in records), keys))

    def store(verdict: Verdict) -> None:  # kept as soon as it is decided: an interrupted run loses none
        if cache is not None:
            cache.put(key_of[verdict.id], verdict.to_json())

    todo = [t.id for t in records if t.id not in known]
    computed = check_registered(todo, profile_name, seed, workers, progress=step, finished=store) if todo else []
    by_id = {**known, **dict(zip(todo, computed))}
    return [by_id[t.id] for t in records], keys


def _mutation_lines(line: str, survivors: list[str]) -> list[str]:
    """The score line, and one line per survivor (the exit status does not change: a survivor is a defect of
    the search, not of the theorem)."""
    from rich.markup import escape

    return [escape(line)] + [f"[yellow]mutant survived:[/] {escape(s)}" for s in survivors]


# ---------------------------------------------------------------------------------------------------
# verify check
# ---------------------------------------------------------------------------------------------------

def add_check_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="a Python file with module-level Theorem records (it is imported: its code runs)")
    p.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    p.add_argument("--examples", type=_examples, default=None, help="hypothesis examples per theorem (at most 100,000)")
    p.add_argument("--import-timeout", type=positive_float, default=IMPORT_SECONDS, metavar="SECONDS",
                   help=f"the longest the file may take to import (default {IMPORT_SECONDS:g} s)")
    p.add_argument("--timeout", type=positive_float, default=None, metavar="SECONDS",
                   help="the longest one theorem's check may run (each job of it: its obligations, or one block "
                        "of its search; default " + ", ".join(f"{e.timeout:g} s ({e.name})" for e in EFFORTS.values())
                        + ")")
    add_seed(p)
    p.add_argument("--profile", default="quick", choices=sorted(EFFORTS), help="how hard to look (default quick)")
    add_execution(p)
    p.add_argument("--mutate", action="store_true",
                   help="also mutate each verified theorem by rule: mutants an exact instance shows unsound must "
                        "come back violated (the search's self-test on your bound)")


def _examples(text: str) -> int:
    """``--examples``: a positive integer of at most 100,000 (the limit of ``verify.testing.check``: beyond it a
    check runs for days, with no estimate worth showing)."""
    value = positive_int(text)
    if value > 100_000:
        raise argparse.ArgumentTypeError(f"at most 100000 examples per theorem, got {value}")
    return value


def check(args: argparse.Namespace) -> int:
    records = load_user_theorems(args.file, args.import_timeout)
    effort = search_effort(args.profile)
    if args.examples is not None:
        effort = replace(effort, examples=args.examples)
    with execution_of(args) as where, progress(len(records), "checked") as step:
        verdicts = check_file(args.file, records, effort, args.seed, where.workers, progress=step,
                              seconds=args.timeout or effort.timeout)
    mutations: dict[str, TheoremMutation] = {}
    if args.mutate:
        by_id = {t.id: t for t in records}
        chosen = [v for v in verdicts if mutable(by_id[v.id], v, "full")]
        with progress(len(chosen), "mutated") as step:
            for v in chosen:
                mutations[v.id] = _mutant(args.file, by_id[v.id], v, effort, args.seed, args.timeout or effort.timeout)
                step(v.id)
    if args.json:  # a list, as it always was; each entry the schema of a verify run --json theorem, whole
        emit_json([v.to_json() | ({"mutation": mutations[v.id].to_json()} if v.id in mutations else {})
                   for v in verdicts])
    else:
        print_rich(_table(verdicts, f"verify check {args.file}"))
        for v in verdicts:
            for what, line in v.replay_lines():
                emit(f"{v.id} {what}: replay with\n  {line}")  # one line, unwrapped: copied as it is
        if args.mutate:
            score = MutationScore(effort.name, f"{effort.name}: the file's verified theorems, every known-unsound "
                                  "mutant searched", tuple(mutations.values()))
            for line in _mutation_lines(score.line(), score.survivor_lines()):
                print_rich(line)
    return 1 if any(v.verdict in ("violated", "ill-formed") for v in verdicts) else 0


def _mutant(path: str, theorem, verdict: Verdict, effort, seed: int, seconds: float) -> TheoremMutation:
    """The mutation self-test on one theorem of the user's file, within the file's time limit."""
    try:
        with time_limit(seconds):
            return mutate(theorem, worst_witness(verdict), verdict.max_ratio, effort, seed)
    except TookTooLong:
        raise InputError(f"{path}: mutating {theorem.id} took more than {seconds:g} s (--timeout sets the limit)",
                         "--timeout") from None


__all__ = ["add_check_arguments", "add_run_arguments", "check", "run"]
