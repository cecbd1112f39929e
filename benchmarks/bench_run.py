"""Benchmark: wall time of `verify run` and examples checked per second.

    python benchmarks/bench_run.py [--profile quick|full] [--workers N]

Runs the suite once through the Python API, prints the wall time, the number of instances compared
(soundness examples) and the rate, and the slowest theorems.
"""

import argparse
import time

import theorems
from verify.check.parallel import check_registered


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
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
