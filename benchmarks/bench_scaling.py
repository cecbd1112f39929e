"""Benchmark: scaling efficiency of the verification suite on Dask, ratios measured in one run.

    python benchmarks/bench_scaling.py [--profile quick] [--workers 1,2,4] [--only PATTERN] [--no-split] [--modes ...]

For each number of workers k: the wall time T_k of checking a representative subset of the registry
(on a local cluster of k processes, the cluster's start included; k = 1 runs in this
process), each in a fresh process (caches cold, registry imported), the speed-up T_1 / T_k and the
efficiency T_1 / (k T_k), the CPU time of all its processes (the work a cluster repeats: each worker
computes the shared exact references it needs once); with the default grouping of ``verify run``
(``theorems``: a theorem per job, its search on a costly reference cut into blocks when the workers
outnumber the theorems), with every search whole in its theorem's job (``whole``: the layout before the
blocks), with every search on a costly reference in blocks (``blocks``), and with each unit (front
obligations, soundness blocks, audit) a job of its own (``units``, ``split=True``).  The
verdicts of every run are checked to be byte-identical to those of k = 1 (a benchmark that got another answer is not a benchmark).  Also measured:
the start-up of a local cluster whose workers are forked (they inherit the imported registry) against one
whose workers are spawned and import it (Dask's default), to the first result of a trivial task on each.

The ratios mean what they say only on a machine with at least max(k) idle cores: on a loaded machine
(another job's processes) they measure the load.  The load average is printed with the numbers.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import time

import theorems
from verify.check import parallel
from verify.check.suite import select

#: one or two theorems of each kind of work: closed forms, a cyclic/shuffled composition, an f-DP operator,
#: a 1-D density-evolution reference, an approximation (the CLT), an "as printed" variant
SUBSET = ("baselines/gaussian-mechanism/gdp", "baselines/noisy-gd/rdp", "chourasia2021/thm2", "chourasia2021/thm3",
          "bu2020/eq3.2", "bu2020/thm3", "bok2024/thm4.1", "bok2024/thm4.2", "bok2024/thm4.5",
          "bok2024/lemmaA.3", "altschuler2022/thm3.1", "altschuler2022/thm4.1")


def _timed(run) -> tuple[float, str]:
    start = time.perf_counter()
    verdicts = run()
    wall = time.perf_counter() - start
    return wall, json.dumps([v.to_json() for v in verdicts], sort_keys=True, default=float)


def _startup(method: str, workers: int) -> float:
    """Seconds from nothing to a result on every worker of a local cluster started with ``method``."""
    import dask
    from distributed import Client

    from verify.simulate import cluster

    saved = cluster.start_method
    cluster.start_method = lambda: method
    start = time.perf_counter()
    try:
        local = cluster.local_cluster(workers, preload=("verify.check.parallel",))
        with Client(local) as client:
            client.wait_for_workers(workers, timeout=120)
            client.run(len, "x")
        elapsed = time.perf_counter() - start
        local.close()
    finally:
        cluster.start_method = saved
        dask.config.set({"distributed.worker.multiprocessing-method": saved()})
    return elapsed


def _child(mode: str, workers: int, profile_name: str, ids: list[str]) -> dict:
    """One measurement, in a fresh process (no cache warmed by an earlier measurement); the registry is
    already imported (as in ``verify run``), the cluster's start is counted."""
    split, blocks = mode == "units", {"whole": "none", "blocks": "costly"}.get(mode, "auto")
    wall, verdicts = _timed(lambda: parallel.check_registered(ids, profile_name, seed=0, workers=workers, split=split,
                                                              blocks=blocks))
    return {"wall": wall, "digest": hashlib.sha256(verdicts.encode()).hexdigest()}


def _measure(mode: str, workers: int, args, ids: list[str]) -> dict:
    command = [sys.executable, __file__, "--child", mode, str(workers), "--profile", args.profile,
               "--ids", ",".join(ids)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)  # its workers included
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "cpu": cpu}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--workers", default="1,2,4", help="comma-separated numbers of workers (1 first)")
    parser.add_argument("--only", default=None, help="another subset (a pattern of verify run --only)")
    parser.add_argument("--no-split", action="store_true", help="skip the comparison with split units")
    parser.add_argument("--modes", default=None, help="comma-separated modes (theorems, whole, blocks, units)")
    parser.add_argument("--child", nargs=2, metavar=("MODE", "WORKERS"), help=argparse.SUPPRESS)
    parser.add_argument("--ids", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_child(args.child[0], int(args.child[1]), args.profile, args.ids.split(","))))
        return
    ids = [t.id for t in select(theorems.all(), args.only)] if args.only else list(SUBSET)
    counts = sorted({int(k) for k in args.workers.split(",")})
    print(f"{len(ids)} theorems, profile {args.profile}, seed 0; {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f} at the start; each measurement in a fresh process")
    for method in ("fork", "spawn"):
        print(f"cluster start-up ({method}, 2 workers, registry imported): {_startup(method, 2):.2f} s")
    modes = args.modes.split(",") if args.modes else ["theorems", "whole"] + ([] if args.no_split else ["units"])
    if modes[0] != "theorems":
        modes.insert(0, "theorems")  # the reference verdicts
    rows = {mode: [dict(workers=k, **_measure(mode, k, args, ids)) for k in counts] for mode in modes}
    reference = rows["theorems"][0]["digest"]
    print(f"{'unit':>8} {'workers':>7} {'wall':>8} {'speed-up':>8} {'efficiency':>10} {'CPU (all processes)':>20}"
          "  same verdicts as 1 worker")
    for mode in modes:
        base = rows[mode][0]["wall"]
        for row in rows[mode]:
            k = row["workers"]
            print(f"{mode:>8} {k:>7} {row['wall']:>7.1f}s {base / row['wall']:>8.2f} {base / (k * row['wall']):>10.2f}"
                  f" {row['cpu']:>19.1f}s  {'yes' if row['digest'] == reference else 'NO'}")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
