"""The figures the README quotes, as each benchmark last measured them.

A benchmark that measures a figure the README states calls :func:`record` with the setting it measured and
the sentence the README quotes (written from the measured numbers).  The entry goes to
``benchmarks/results/<benchmark>.json`` with the machine it ran on; ``tests/test_readme_figures.py`` checks that
the README quotes every recorded sentence word for word, and that every figure the README attributes to a
benchmark is one of them.  Re-running a benchmark after a change that moves its figure and leaving the README as
it was fails that test: the README is updated with the benchmark's new sentence.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def machine() -> str:
    """The CPU model and the cores this process may use, in words."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{model}, {cores} cores"


def record(benchmark: str, key: str, setting: str, quote: str, values: dict) -> None:
    """Keep ``quote`` (the README's words, from the measured ``values``) under ``key`` of ``benchmark``."""
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{benchmark}.json"
    entries = json.loads(path.read_text()) if path.exists() else {}
    entries[key] = {"setting": setting, "quote": quote, "values": values, "machine": machine(),
                    "measured": time.strftime("%Y-%m-%d")}
    path.write_text(json.dumps(entries, indent=2, sort_keys=True) + "\n")
    print(f"recorded for the README ({path.name}, {key}): {quote}")


def child_cpu(command: list[str], **kwargs) -> tuple[float, float, subprocess.CompletedProcess]:
    """(CPU seconds, wall seconds, the finished process) of ``command`` run as a child: its user and system time
    and its children's (a Dask worker's included)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall, done
