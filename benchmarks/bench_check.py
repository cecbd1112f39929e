"""Benchmark: ``verify check`` on a user's file, as a user runs it (a subprocess, one worker).

    python benchmarks/bench_check.py

Checks each file of ``tests/check/user_theorems/`` (correct bounds and adversaries' wrong ones) once and
prints its wall and CPU time; the median CPU time per file (a shared machine stretches the wall time) is
recorded for the README
(``benchmarks/figures.py``).
"""

import statistics
import sys
from pathlib import Path

from figures import child_cpu, record

FILES = sorted((Path(__file__).resolve().parents[1] / "tests" / "check" / "user_theorems").glob("*.py"))


def main() -> None:
    walls, cpus = [], []
    for path in FILES:
        cpu, wall, done = child_cpu([sys.executable, "-m", "verify", "check", str(path), "--workers", "1"])
        if done.returncode not in (0, 1):
            raise SystemExit(f"{path.name}: verify check failed ({done.returncode}): {done.stderr.strip()[-300:]}")
        walls.append(wall)
        cpus.append(cpu)
        print(f"{path.name:40} {wall:6.2f} s wall {cpu:6.2f} s CPU  exit {done.returncode}")
    median = statistics.median(cpus)
    print(f"median over {len(FILES)} files: {statistics.median(walls):.2f} s wall, {median:.2f} s CPU")
    record("bench_check", "median", f"verify check FILE --workers 1 on each of the {len(FILES)} files of "
           "tests/check/user_theorems (quick profile, seed 0)",
           f"`benchmarks/bench_check.py`: a median of {median:.1f} s CPU for `verify check` on one of the test "
           f"suite's {len(FILES)} theorem files",
           {"median_cpu_seconds": round(median, 2), "median_wall_seconds": round(statistics.median(walls), 2),
            "files": len(FILES)})


if __name__ == "__main__":
    main()
