"""Benchmark: ``verify report`` cold and warm (incremental), CPU and wall time, and report size.

    python benchmarks/bench_report.py [--profile quick] [--only PATTERN] [--jobs N]
    python benchmarks/bench_report.py --shared [--only PATTERN]

Runs the command twice (in a subprocess, like a user would) into a temporary directory with a fresh result
cache: cold (everything computed and cached), then warm (nothing changed: every result read back).  Prints
the wall and CPU time of each, the warm CPU against a 30 s target, whether the two
``report.json`` are byte-identical, and the size of each output.  Ratios are measured in this one run;
nothing is asserted.

``--shared`` (the setting the README quotes, recorded by ``benchmarks/figures.py`` for the whole registry):
with one worker each, the CPU seconds of a cold report (an empty cache), of ``verify run`` into a fresh cache,
and of the report after that run with the same cache (the run's verdicts and mutation self-test read back:
no theorem is checked again); the two reports' ``report.json`` must be byte-identical.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_SECONDS = 120.0
WARM_CPU_TARGET = 30.0


def _timed(cmd: list[str]) -> tuple[float, float, subprocess.CompletedProcess]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode not in (0, 1):
        print(proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "failed", file=sys.stderr)
        raise SystemExit(proc.returncode)
    return wall, cpu, proc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--only", default=None)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--split", action="store_true",
                        help="instead: time, in this process, the engine's check vs the report's own work per theorem")
    parser.add_argument("--shared", action="store_true",
                        help="instead: a cold report, then verify run and a report sharing its cache (one worker)")
    args = parser.parse_args()
    if args.split:
        split(args)
        return
    if args.shared:
        shared(args)
        return
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report"
        cmd = [sys.executable, "-m", "verify", "report", "--out", str(out), "--profile", args.profile,
               "--seed", str(args.seed), "--jobs", str(args.jobs), "--cache", str(Path(tmp) / "cache")]
        if args.only:
            cmd += ["--only", args.only]
        wall, cpu, _ = _timed(cmd)
        cold_json = (out / "report.json").read_bytes()
        warm_wall, warm_cpu, warm = _timed(cmd)
        identical = (out / "report.json").read_bytes() == cold_json
        sizes = {name: (out / name).stat().st_size for name in ("report.md", "report.html", "report.json")}
        figures = sorted((out / "figures").glob("*.svg"))
        fig_bytes = sum(f.stat().st_size for f in figures)
        load = os.getloadavg()[0]
    print(f"verify report --profile {args.profile} --jobs {args.jobs}" + (f" --only {args.only}" if args.only else ""))
    print(f"  cold: wall {wall:8.1f} s (target {TARGET_SECONDS:.0f} s: ratio {wall / TARGET_SECONDS:.2f}), "
          f"CPU (children) {cpu:8.1f} s")
    print(f"  warm: wall {warm_wall:8.1f} s, CPU {warm_cpu:8.1f} s (target {WARM_CPU_TARGET:.0f} s: ratio "
          f"{warm_cpu / WARM_CPU_TARGET:.2f}; warm/cold CPU {warm_cpu / cpu:.3f}); report.json "
          + ("byte-identical" if identical else "DIFFERS"))
    print(f"  {warm.stdout.strip().splitlines()[-1] if warm.stdout.strip() else ''}")
    print(f"  1-min load average {load:.1f}")
    for name, size in sizes.items():
        print(f"  {name:<18} {size / 1024:8.1f} KiB")
    print(f"  figures/*.svg      {fig_bytes / 1024:8.1f} KiB in {len(figures)} files")
    print(f"  html / json size ratio {sizes['report.html'] / sizes['report.json']:.2f}")


def shared(args) -> None:
    """CPU seconds of a cold report, of ``verify run`` into a fresh cache, and of the report after it."""
    from figures import child_cpu, record

    common = ["--profile", args.profile, "--seed", str(args.seed), "--workers", "1"]
    common += ["--only", args.only] if args.only else []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)

        def timed(name: str, *argv: str) -> float:
            cpu, wall, done = child_cpu([sys.executable, "-m", "verify", *argv, *common])
            if done.returncode not in (0, 1):
                raise SystemExit(f"verify {argv[0]} failed ({done.returncode}): {done.stderr.strip()[-300:]}")
            print(f"  {name:<34} {cpu:7.1f} s CPU {wall:7.1f} s wall")
            return cpu

        print(f"verify report and verify run, --profile {args.profile} --workers 1"
              + (f" --only {args.only}" if args.only else ""))
        cold = timed("report, cold (empty cache)", "report", "--out", str(folder / "cold"),
                     "--cache", str(folder / "empty"))
        run = timed("run, into a fresh cache", "run", "--cache", str(folder / "shared"))
        after = timed("report after the run (same cache)", "report", "--out", str(folder / "after"),
                      "--cache", str(folder / "shared"))
        identical = (folder / "cold" / "report.json").read_bytes() == (folder / "after" / "report.json").read_bytes()
    print(f"  report.json {'byte-identical' if identical else 'DIFFERS'}; run + report {run + after:.1f} s CPU "
          f"against {run + cold:.1f} s with nothing shared")
    if not identical:
        raise SystemExit("the report after the run differs from the cold report")
    if args.profile == "quick" and not args.only:
        record("bench_report", "shared",
               "verify report --workers 1 cold (empty cache); verify run --workers 1 into a fresh cache, then verify "
               "report --workers 1 with that cache (quick profile, seed 0)",
               f"`benchmarks/bench_report.py --shared`: {cold:.0f} s CPU for a cold report with one worker, "
               f"{after:.0f} s for the report after a `verify run` that shared its cache",
               {"cold_report_cpu_seconds": round(cold, 1), "run_cpu_seconds": round(run, 1),
                "report_after_run_cpu_seconds": round(after, 1)})


def split(args) -> None:
    """Per theorem: seconds in the cross-check engine vs seconds drawing the section (one process)."""
    import theorems
    from verify.check.suite import select
    from verify.check.engine import check_theorem, search_effort
    from verify.report import build

    effort = search_effort(args.profile)
    rows = []
    for t in select(theorems.all(), args.only):
        start = time.perf_counter()
        verdict = check_theorem(t, theorems.get, effort, args.seed)
        mid = time.perf_counter()
        build.theorem_section(t, verdict.to_json(), theorems.get, build.Options(effort.name, args.seed),
                              build.Figures())
        rows.append((t.id, mid - start, time.perf_counter() - mid))
    start = time.perf_counter()
    build.reproduction(build.Options(effort.name, args.seed), build.Figures())
    repro = time.perf_counter() - start
    check, section = sum(r[1] for r in rows), sum(r[2] for r in rows)
    total = check + section + repro
    print(f"{len(rows)} theorems, one process: engine {check:.1f} s, sections {section:.1f} s, "
          f"reproduction {repro:.1f} s (report's own share {(section + repro) / total:.2f})")
    for tid, c, s in sorted(rows, key=lambda r: -(r[1] + r[2]))[:10]:
        print(f"  {tid:<45} engine {c:6.1f} s   section {s:5.1f} s")


if __name__ == "__main__":
    main()
