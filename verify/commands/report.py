"""``verify report --out DIR``: the tightness report (:mod:`verify.report.generate`)."""

from __future__ import annotations

import argparse
import os

import theorems
from verify.check.engine import PROFILES, profile
from verify.check.suite import run_payload, select_or_refuse
from verify.commands.options import (add_only, add_seed, check_writable, emit, output_path, positive_int, progress,
                                     write_json)
from verify.report.generate import DEFAULT_OUT, check_output_dir, generate, write_report


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", default=DEFAULT_OUT, metavar="DIR", type=output_path,
                   help=f"output folder (default {DEFAULT_OUT}): new, empty, or a previous report, whose own "
                        "files alone are replaced")
    p.add_argument("--profile", default="quick", choices=sorted(PROFILES), help="how hard to look (default quick)")
    add_seed(p)
    add_only(p)
    p.add_argument("--jobs", type=positive_int, default=None, help="worker processes (default: min(2, CPUs))")
    p.add_argument("--write-baseline", metavar="FILE", type=output_path,
                   help="also write the verdicts as a regression baseline (the JSON of `verify run --json`)")


def run(args: argparse.Namespace) -> int:
    target = check_output_dir(args.out)
    if args.write_baseline:
        check_writable(args.write_baseline, "--write-baseline")
    prof = profile(args.profile)
    records = select_or_refuse(theorems.all(), args.only)
    jobs = args.jobs if args.jobs is not None else max(1, min(2, os.cpu_count() or 1))
    papers = {t.source.paper for t in records} if args.only else None
    with progress(len(records) + 1, "report") as step:
        report, svgs, formulas, verdicts = generate(records, prof.name, args.seed, args.only, jobs, step, papers)
    write_report(target, report, svgs, formulas)
    if args.write_baseline:
        write_json(args.write_baseline, run_payload(verdicts, prof.name, args.seed), "--write-baseline")
    counts = ", ".join(f"{k} {n}" for k, n in report["meta"]["counts"].items())
    emit(f"wrote {target}/report.md, report.html, report.json and {len(svgs)} figures ({counts})")
    return 1 if report["meta"]["unexpected"] else 0


__all__ = ["add_arguments", "run"]
