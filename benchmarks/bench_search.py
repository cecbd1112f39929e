"""Benchmark of the soundness search: exact comparisons per CPU second, and
the peak memory of the heaviest theorems of the full profile.  Ratios are taken in one run; no
assertions.

1. Search rate: the quick profile's instance mix, every registry theorem checked in-process
   (``check_all``, seed 0, one process), once with the shared exact references off (the profile
   cache's budget set to 0: every instance computes its own profile, as before the shared cache) and once on.
   Each configuration runs in a fresh interpreter, so that neither inherits the other's caches;
   reported: CPU seconds (``time.process_time`` around the checks, imports excluded), exact
   comparisons (the soundness examples compared), their ratio, the cache's counts, the random phase's
   draws (compared, rejected) and its CPU time split into hypothesis' own and the evaluations', and
   whether the two runs gave byte-identical verdicts (``Verdict.to_json``).
2. Peak memory: each theorem of ``--heavy`` (default bu2020/thm3, bok2024/thm4.9, bok2024/thm4.10)
   checked alone with ``--profile full`` in a fresh interpreter under an address-space limit
   (``--memory-limit``, GB; beyond it the child fails with MemoryError instead of taking the machine),
   reporting its CPU seconds, ``ru_maxrss`` and verdict.  ``--full-profile`` also runs the whole
   ``verify run --profile full`` through the process pool and reports the workers' peak ``ru_maxrss``.

3. Worker start (``--only pool``): the time from creating the process pool to the results of one tiny
   job per worker that needs the registry, with the pool's own start method (fork on Linux: the workers
   inherit the parent's imports) and with ``spawn`` (each worker imports the registry again), in one
   run; reported: wall seconds and the workers' CPU seconds, and their ratio.

``--tree DIR`` measures another checkout (for instance ``git archive HEAD | tar -x -C DIR``) next to
this one, so that before and after are measured in one run.

    python benchmarks/bench_search.py [--only search|memory|pool] [--tree DIR] [--memory-limit 6] [--full-profile]
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
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
HEAVY = ("bu2020/thm3", "bok2024/thm4.9", "bok2024/thm4.10")


# ---------------------------------------------------------------------------------------------------
# children: one measurement each, in a fresh interpreter, printing one JSON line
# ---------------------------------------------------------------------------------------------------


def _set_cache(enabled: bool):
    """Switch the shared instances and profiles off (budgets 0) or leave them on; the caches (profiles,
    instances, and the PLD cache where it counts), or None on a tree without them."""
    try:
        from verify.check.references import INSTANCES
        from verify.instances.instance import PROFILES
        from verify.privacy import pld
    except ImportError:
        return None
    if not enabled:
        PROFILES.clear(budget=0)
        INSTANCES.clear(budget=0)
    return PROFILES, INSTANCES, pld.CACHE


def _digest(verdicts) -> str:
    text = json.dumps([v.to_json() for v in verdicts], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _comparisons(verdicts) -> int:
    return sum(o.data.examples for v in verdicts for o in v.obligations
               if o.name == "soundness" and o.data is not None and hasattr(o.data, "examples"))


def _watch_random_phase() -> dict:
    """Count the random phase's draws and split its CPU time into hypothesis' own and the evaluations
    (wrapping ``Search.random`` and ``Search.evaluate``; an empty dict on a tree without them)."""
    try:
        from verify.check.soundness import Search
    except ImportError:
        return {}
    if not (hasattr(Search, "random") and hasattr(Search, "evaluate")):
        return {}
    seen = {"seconds": 0.0, "evaluating": 0.0, "compared": 0, "rejected": 0}
    random, evaluate = Search.random, Search.evaluate

    def timed_random(self, *args, **kwargs):
        start = time.process_time()
        try:
            return random(self, *args, **kwargs)
        finally:
            seen["seconds"] += time.process_time() - start

    def timed_evaluate(self, name, u):
        start = time.process_time()
        score, margin = evaluate(self, name, u)
        if self.record.phase == "random":
            seen["evaluating"] += time.process_time() - start
            seen["compared" if score is not None else "rejected"] += 1
        return score, margin

    Search.random, Search.evaluate = timed_random, timed_evaluate
    return seen


def child_search(cache: bool, profile_name: str) -> dict:
    import theorems
    from verify.check.engine import check_all, search_effort

    cached = _set_cache(cache)
    random_phase = _watch_random_phase()
    records = theorems.all()
    start = time.process_time()
    verdicts = check_all(records, theorems.get, search_effort(profile_name), seed=0)
    cpu = time.process_time() - start
    return {"cpu": cpu, "comparisons": _comparisons(verdicts), "theorems": len(verdicts), "random": random_phase,
            "digest": _digest(verdicts), "cache": None if cached is None else cached[0].stats(),
            "instances": None if cached is None else cached[1].stats(),
            "plds": None if cached is None or not hasattr(cached[2], "stats") else cached[2].stats(),
            "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def child_theorem(theorem_id: str, profile_name: str) -> dict:
    import theorems
    from verify.check.engine import check_theorem, search_effort

    start = time.process_time()
    verdict = check_theorem(theorems.get(theorem_id), theorems.get, search_effort(profile_name), seed=0)
    cpu = time.process_time() - start
    errors = [o.detail for o in verdict.obligations if o.name == "internal-error"]
    sound = [o.detail for o in verdict.obligations if o.name == "soundness"]
    return {"cpu": cpu, "verdict": verdict.verdict, "errors": errors, "soundness": sound,
            "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def child_full(workers: int) -> dict:
    import theorems
    from verify.check.parallel import check_registered

    ids = [t.id for t in theorems.all()]
    start = time.perf_counter()
    verdicts = check_registered(ids, "full", seed=0, workers=workers)
    wall = time.perf_counter() - start
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    counts: dict[str, int] = {}
    for v in verdicts:
        counts[v.verdict] = counts.get(v.verdict, 0) + 1
    return {"wall": wall, "worker_cpu": children.ru_utime + children.ru_stime, "counts": counts,
            "comparisons": _comparisons(verdicts), "worker_maxrss_mb": children.ru_maxrss / 1024}


def _registry_size() -> int:
    """A tiny job that needs the registry (a spawned worker imports it; a forked one has it)."""
    import theorems

    return len(theorems.all())


def child_pool(method: str, workers: int) -> dict:
    import theorems  # the parent of `verify run` has the registry and the engine imported
    import verify.check.engine  # noqa: F401
    from verify.check import parallel

    theorems.all()
    try:  # the pool's start method: the Dask cluster's (verify.simulate.cluster) or the old process pool's
        from verify.simulate import cluster as starter
    except ImportError:
        starter = parallel
    if method == "spawn":
        starter.start_method = lambda: "spawn"
    start = time.perf_counter()
    sizes = parallel.map_jobs(_registry_size, [()] * workers, workers=workers)
    wall = time.perf_counter() - start
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"wall": wall, "worker_cpu": children.ru_utime + children.ru_stime, "sizes": sizes,
            "method": starter.start_method()}


def _child_main(argv: list[str]) -> None:
    mode, *rest = argv
    limit = float(os.environ.get("BENCH_SEARCH_LIMIT_GB", "0"))
    if limit > 0:  # the child (and the workers it spawns) fail with MemoryError beyond it
        cap = int(limit * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    if mode == "search":
        out = child_search(rest[0] == "on", rest[1])
    elif mode == "theorem":
        out = child_theorem(rest[0], rest[1])
    elif mode == "pool":
        out = child_pool(rest[0], int(rest[1]))
    else:
        out = child_full(int(rest[0]))
    print("RESULT " + json.dumps(out))


# ---------------------------------------------------------------------------------------------------
# the parent
# ---------------------------------------------------------------------------------------------------


def run_child(tree: Path, args: list[str], limit_gb: float) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree), BENCH_SEARCH_LIMIT_GB=str(limit_gb))
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", *args], cwd=tree, env=env,
                          capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    return {"failed": f"exit {proc.returncode}: {tail[:200]}"}


def search(trees: list[tuple[str, Path]], profile_name: str) -> None:
    print(f"1. exact comparisons per CPU second, {profile_name} profile, every theorem in one process (seed 0)")
    rows = []
    for label, tree in trees:
        for cache in ("off", "on"):
            if label != "this tree" and cache == "on":
                continue  # another tree: measured as it is
            r = run_child(tree, ["search", cache, profile_name], 0)
            name = f"{label}, shared references {cache}" if label == "this tree" else label
            rows.append((name, r))
            if "failed" in r:
                print(f"   {name:38s} failed: {r['failed']}")
                continue
            cache_note = ""
            if r.get("cache") and cache == "on":
                c = r["cache"]
                i = r["instances"]
                cache_note = (f"\n{'':41s}profiles: {c['hits']} hits, {c['misses']} computed, {c['evictions']} "
                              f"evicted, {c['bytes'] / 2**20:.0f} MB held; instances: {i['hits']} hits, "
                              f"{i['misses']} built, {i['bytes'] / 2**20:.1f} MB held")
                if r.get("plds"):
                    q = r["plds"]
                    cache_note += (f"; PLDs: {q['hits']} hits, {q['misses']} built, {q['evictions']} evicted, "
                                   f"{q['bytes'] / 2**20:.0f} MB held")
            if r.get("random"):
                d = r["random"]
                cache_note += (f"\n{'':41s}random phase: {d['seconds']:.1f} s, of which hypothesis' own "
                               f"{d['seconds'] - d['evaluating']:.1f} s; draws compared {d['compared']}, "
                               f"rejected {d['rejected']}")
            print(f"   {name:38s} {r['cpu']:7.1f} s CPU  {r['comparisons']:5d} comparisons  "
                  f"{r['comparisons'] / r['cpu']:6.2f} per CPU s  peak {r['maxrss_mb']:.0f} MB  "
                  f"verdicts {r['digest']}{cache_note}")
    good = [(n, r) for n, r in rows if "failed" not in r]
    if len(good) >= 2:
        base_name, base = good[0]
        for name, r in good[1:]:
            rate = (r["comparisons"] / r["cpu"]) / (base["comparisons"] / base["cpu"])
            same = "identical verdicts" if r["digest"] == base["digest"] else "VERDICTS DIFFER"
            print(f"   {name} / {base_name}: comparisons per CPU s x{rate:.2f}, CPU time x{r['cpu'] / base['cpu']:.2f}; "
                  f"{same}")


def memory(trees: list[tuple[str, Path]], heavy: list[str], limit_gb: float) -> None:
    print(f"2. peak memory, full profile, each theorem alone (address space limited to {limit_gb:g} GB)")
    for theorem_id in heavy:
        for label, tree in trees:
            r = run_child(tree, ["theorem", theorem_id, "full"], limit_gb)
            if "failed" in r:
                print(f"   {theorem_id:18s} {label:12s} failed: {r['failed']}")
                continue
            notes = "; ".join(e[:90] for e in r["errors"]) or (r["soundness"][0][:90] if r["soundness"] else "")
            print(f"   {theorem_id:18s} {label:12s} {r['cpu']:7.1f} s CPU  peak {r['maxrss_mb']:7.0f} MB  "
                  f"{r['verdict']:12s} {notes}")


def full(trees: list[tuple[str, Path]], limit_gb: float, workers: int) -> None:
    print(f"3. verify run --profile full --workers {workers} (each process limited to {limit_gb:g} GB)")
    for label, tree in trees:
        r = run_child(tree, ["full", str(workers)], limit_gb)
        if "failed" in r:
            print(f"   {label:12s} failed: {r['failed']}")
            continue
        print(f"   {label:12s} {r['wall']:7.0f} s wall  {r['worker_cpu']:7.0f} s worker CPU  "
              f"worker peak {r['worker_maxrss_mb']:.0f} MB  {r['comparisons']} comparisons  {r['counts']}")


def pool(trees: list[tuple[str, Path]], workers: int, repeats: int = 3) -> None:
    print(f"3. worker start: {workers} workers, one registry job each (best of {repeats}, in one run)")
    for label, tree in trees:
        best: dict[str, dict] = {}
        for _ in range(repeats):
            for method in ("default", "spawn"):
                r = run_child(tree, ["pool", method, str(workers)], 0)
                if "failed" in r:
                    print(f"   {label:12s} {method}: failed: {r['failed']}")
                    return
                if method not in best or r["wall"] < best[method]["wall"]:
                    best[method] = r
        d, s = best["default"], best["spawn"]
        print(f"   {label:12s} {d['method']:10s} {d['wall']:6.2f} s wall {d['worker_cpu']:6.2f} s worker CPU; "
              f"spawn {s['wall']:6.2f} s wall {s['worker_cpu']:6.2f} s worker CPU; "
              f"wall x{s['wall'] / max(d['wall'], 1e-9):.1f} faster, worker CPU x{s['worker_cpu'] / max(d['worker_cpu'], 1e-9):.1f} less")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child_main(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=("search", "memory", "pool"), default=None)
    parser.add_argument("--profile", default="quick", help="profile of the search-rate measurement")
    parser.add_argument("--tree", type=Path, default=None, help="another checkout to measure (e.g. HEAD)")
    parser.add_argument("--heavy", nargs="*", default=list(HEAVY))
    parser.add_argument("--memory-limit", type=float, default=6.0, help="GB of address space per child")
    parser.add_argument("--full-profile", action="store_true", help="also run the whole full profile")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    trees = [("this tree", HERE)] + ([("other tree", args.tree.resolve())] if args.tree else [])
    if args.only in (None, "search"):
        search(list(reversed(trees)), args.profile)
    if args.only in (None, "memory"):
        memory(list(reversed(trees)), args.heavy, args.memory_limit)
        if args.full_profile:
            full(list(reversed(trees)), args.memory_limit, args.workers)
    if args.only in (None, "pool"):
        pool(list(reversed(trees)), args.workers)


if __name__ == "__main__":
    main()
