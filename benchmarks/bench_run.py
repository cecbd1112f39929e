"""Benchmark: ``verify run`` (the README's main job), CPU and wall time; examples checked per second.

    python benchmarks/bench_run.py [--profile quick|full] [--workers N] [--api]

Runs ``verify run --workers 1`` as a user would (a subprocess, the mutation self-test included) and prints its
CPU time (user and system, the process and its children) and wall time; with the quick profile the figure is
recorded for the README (``benchmarks/figures.py``).  ``--api``: instead, the suite once through the Python API
over ``--workers`` processes, with the wall time, the number of instances compared (soundness examples) and the
rate.
"""

import argparse
import sys
import time

from figures import child_cpu, record

#: the README's target for the quick run, CPU seconds on a 2-core machine
TARGET_CPU = 60.0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--api", action="store_true")
    args = parser.parse_args()
    if args.api:
        api(args)
        return
    command = [sys.executable, "-m", "verify", "run", "--profile", args.profile, "--workers", "1",
               "--no-cache"]  # everything computed: verdicts cached by an earlier run would be read back
    cpu, wall, done = child_cpu(command)
    if done.returncode != 0:
        raise SystemExit(f"verify run failed ({done.returncode}): {done.stderr.strip()[-300:]}")
    counts = next(line for line in done.stdout.splitlines() if "verified:" in line).strip()
    print(f"verify run --profile {args.profile} --workers 1: {cpu:.1f} s CPU, {wall:.1f} s wall ({counts}); "
          f"target {TARGET_CPU:g} s CPU")
    if args.profile == "quick":
        record("bench_run", "quick", "verify run --workers 1 (quick profile, seed 0, mutation self-test included)",
               f"`benchmarks/bench_run.py`: {cpu:.0f} s CPU for the quick run with one worker",
               {"cpu_seconds": round(cpu, 1), "wall_seconds": round(wall, 1), "target_cpu_seconds": TARGET_CPU})


def api(args) -> None:
    import theorems
    from verify.check.parallel import check_registered

    ids = [t.id for t in theorems.all()]
    t0 = time.perf_counter()
    verdicts = check_registered(ids, args.profile, seed=0, workers=args.workers)
    wall = time.perf_counter() - t0
    examples = sum(o.data.examples for v in verdicts for o in v.obligations if o.name == "soundness" and o.data)
    counts: dict[str, int] = {}
    for v in verdicts:
        counts[v.verdict] = counts.get(v.verdict, 0) + 1
    print(f"verify run --profile {args.profile} --workers {args.workers}: {wall:.1f} s wall for {len(ids)} theorems")
    print(f"instances compared against exact references: {examples} ({examples / wall:.1f} per second)")
    print("verdicts: " + ", ".join(f"{k} {n}" for k, n in sorted(counts.items())))
    print(f"unexpected: {[v.id for v in verdicts if not v.as_expected]}")


if __name__ == "__main__":
    main()
