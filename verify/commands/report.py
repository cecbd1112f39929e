"""``verify report --out DIR``: the tightness report (:mod:`verify.report.generate`)."""

from __future__ import annotations

import argparse

import theorems
from verify.check.engine import EFFORTS, search_effort
from verify.check.suite import run_payload, select_or_refuse
from verify.commands.options import (add_cache, add_execution, add_only, add_seed, check_writable, emit,
                                     execution_of, output_path, progress, write_json)
from verify.report.browser import SHOTS, find_browser, take_screenshots
from verify.report.generate import DEFAULT_OUT, check_output_dir, generate, write_report
from verify.report.incremental import DEFAULT_CACHE, ResultCache


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", default=DEFAULT_OUT, metavar="DIR", type=output_path,
                   help=f"output folder (default {DEFAULT_OUT}): new, empty, or a previous report, whose own "
                        "files alone are replaced")
    p.add_argument("--profile", default="quick", choices=sorted(EFFORTS), help="how hard to look (default quick)")
    add_seed(p)
    add_only(p)
    add_execution(p, jobs_alias=True)
    p.add_argument("--write-baseline", metavar="FILE", type=output_path,
                   help="also write the verdicts as a regression baseline (the JSON of `verify run --json`)")
    add_cache(p, "reuse and store the results of unchanged theorems in DIR, and reuse the verdicts verify run "
                 "stored there", DEFAULT_CACHE)
    p.add_argument("--screenshots", action="store_true",
                   help="also write screenshots/front.png and screenshots/theorem.png (needs chromium)")


def run(args: argparse.Namespace) -> int:
    target = check_output_dir(args.out)
    if args.write_baseline:
        check_writable(args.write_baseline, "--write-baseline")
    effort = search_effort(args.profile)
    records = select_or_refuse(theorems.all(), args.only)
    if args.screenshots:
        find_browser()  # refused before any work when there is none
    cache = None if args.no_cache else ResultCache.open(args.cache)
    papers = {t.source.paper for t in records} if args.only else None
    stats: dict[str, int] = {}
    with execution_of(args) as where, progress(len(records) + 1, "report") as step:  # one cluster for all
        report, svgs, formulas, verdicts = generate(records, effort.name, args.seed, args.only, where.width(), step,
                                                    papers, cache=cache, stats=stats)
    write_report(target, report, svgs, formulas, take_screenshots if args.screenshots else None)
    shots = [str(target / s) for s in SHOTS] if args.screenshots else []
    if args.write_baseline:
        write_json(args.write_baseline, run_payload(verdicts, effort.name, args.seed), "--write-baseline")
    counts = ", ".join(f"{k} {n}" for k, n in report["meta"]["counts"].items())
    reused = f"; reused {cache.hits} cached result(s), computed {cache.misses}" if cache is not None else ""
    if stats.get("verdicts"):
        reused += f", {stats['verdicts']} of them only drawn (their verdicts were cached: not checked again)"
    emit(f"wrote {target}/report.md, report.html, report.json and {len(svgs)} figures ({counts}{reused})"
         + "".join(f"\nscreenshot: {s}" for s in shots))
    return 1 if report["meta"]["unexpected"] else 0


__all__ = ["add_arguments", "run"]
