"""Benchmark: Theorem.evaluate on 10^6 points vs the same formula hand-written in numpy, start-up (the
registry's import and build, ``verify --help`` and ``verify list``; targets 0.3 s and
1 s on an idle machine, each the best of 5 fresh processes, next to the bare numpy + scipy.special +
sympy import; ``verify list`` reads the registry's index once it is current, "index cold" builds it in a
fresh folder every time), and the CPU time of the symbolic obligations (well-formed, scaling, translation,
claims) on every registry record as the quick profile runs them, split by kind of bound (closed forms, free
parameters, numeric operators: the last are mostly PLD compositions and quadratures, not sympy).
Prints ratios measured in one run.

``--against DIR``: the same start-up and obligation figures for another copy of the tree (e.g.
``git archive HEAD`` unpacked in DIR), interleaved with this tree's, so that both are measured under the
same load.  ``--skip-startup`` / ``--skip-symbolic`` leave a part out."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
STARTUP = {
    "bare numpy + scipy.special + sympy": "import numpy, scipy.special, sympy",
    "registry import + build": "import theorems; theorems.all()",
    "verify --help": "from verify.commands import main; main(['--help'])",
    "verify list": "from verify.commands import main; main(['list'])",
    "verify list (index cold)": "import tempfile, pathlib; from verify.commands import main, registry\n"
                                "with tempfile.TemporaryDirectory() as d:\n"
                                "    registry.INDEX_DIR = pathlib.Path(d); main(['list'])",
}


def wall(code: str, tree: Path, repeat: int = 5) -> float:
    """Best wall time of ``python -c code`` in fresh processes with ``tree`` first on the path."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], env=env, cwd=tree, stdout=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - t0)
    return min(times)


def startup(against: Path | None) -> None:
    trees = [ROOT] + ([against] if against else [])
    print("start-up, best of 5 fresh processes (wall s)" + (f": this tree | {against}" if against else ""))
    for label, code in STARTUP.items():
        figures = [wall(code, tree) for tree in trees]
        ratio = f"   ratio {figures[1] / figures[0]:.2f}x" if against else ""
        print(f"  {label:36s} " + " | ".join(f"{f:6.2f}" for f in figures) + ratio)


SYMBOLIC = """
import json, time
import theorems
from verify.check import symbolic
from verify.check.engine import EFFORTS, for_theorem
spent = {"well-formed": 0.0, "scaling": 0.0, "translation": 0.0, "claims": 0.0}
kinds = {}
for t in theorems.all():
    effort = for_theorem(EFFORTS["quick"], t)
    t0 = time.process_time()
    for name, run in (("well-formed", lambda: symbolic.well_formed(t, 0, effort.form_points)),
                      ("scaling", lambda: symbolic.scaling(t, 0)),
                      ("translation", lambda: symbolic.translation(t)),
                      ("claims", lambda: symbolic.claims(t, theorems.get, 0, effort.claim_points))):
        a = time.process_time()
        run()
        spent[name] += time.process_time() - a
    kind = "operators" if t.operators else "free parameters" if t.free else "closed forms"
    kinds[kind] = kinds.get(kind, 0.0) + time.process_time() - t0
print(json.dumps({"obligations": spent, "kinds": kinds}))
"""


def symbolic_cpu(tree: Path) -> dict:
    """CPU seconds of the symbolic obligations on the whole registry, in a fresh process on ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, "-c", SYMBOLIC], env=env, cwd=tree, capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def symbolic(against: Path | None, repeat: int = 2) -> None:
    trees = [ROOT] + ([against] if against else [])
    runs = {tree: [] for tree in trees}
    for _ in range(repeat):  # interleaved: both trees under the same load
        for tree in trees:
            runs[tree].append(symbolic_cpu(tree))
    print("symbolic obligations, quick profile, every record (CPU s, best of 2)"
          + (f": this tree | {against}" if against else ""))
    best = {tree: min(r, key=lambda x: sum(x["obligations"].values())) for tree, r in runs.items()}
    rows = [("total", {t: sum(b["obligations"].values()) for t, b in best.items()})]
    rows += [(k, {t: b["obligations"][k] for t, b in best.items()}) for k in best[ROOT]["obligations"]]
    rows += [(f"records with {k}", {t: b["kinds"].get(k, 0.0) for t, b in best.items()})
             for k in ("closed forms", "free parameters", "operators")]
    for label, figures in rows:
        values = [figures[t] for t in trees]
        ratio = f"   ratio {values[1] / values[0]:.2f}x" if against and values[0] > 0 else ""
        print(f"  {label:36s} " + " | ".join(f"{v:6.2f}" for v in values) + ratio)


def best_interleaved(fns: dict, rounds: int = 15) -> dict:
    """The best wall time of each function over ``rounds`` rounds, the functions run one after the other in
    every round: on a shared machine a burst of load hits all of them alike, and the best of many rounds
    is the figure least moved by it (a ratio of two "best of 5" taken minutes apart moved 0.9-1.5x)."""
    times = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    return {name: min(t) for name, t in times.items()}


def main() -> None:
    t0 = time.perf_counter()
    against = Path(sys.argv[sys.argv.index("--against") + 1]) if "--against" in sys.argv else None
    if "--skip-startup" not in sys.argv:
        startup(against)
    if "--skip-symbolic" not in sys.argv:
        symbolic(against)
    import theorems

    thm = theorems.get("bok2024/thm4.2")
    rng = np.random.default_rng(0)
    N = 10**6
    M = rng.uniform(0.5, 2.0, N)
    m = M * rng.uniform(0.01, 1.0, N)
    eta = rng.uniform(0.01, 0.99, N) * 2 / M
    T = rng.integers(1, 1000, N).astype(float)
    params = dict(n=1000.0, Delta=1.0, sigma=2.0, m=m, M=M, eta=eta, T=T)

    def by_hand():
        c = np.maximum(np.abs(1 - eta * m), np.abs(1 - eta * M))
        cT = c**T
        return 1.0 / (1000.0 * 2.0) * np.sqrt((1 + c) / (1 - c) * (1 - cT) / (1 + cT))

    thm.evaluate(**params)  # compile once
    np.testing.assert_allclose(thm.evaluate(**params), by_hand(), rtol=1e-12)
    best = best_interleaved({"checked": lambda: thm.evaluate(**params),
                             "unchecked": lambda: thm.evaluate(allow_outside_assumptions=True, **params),
                             "by hand": by_hand})
    t_thm, t_raw, t_hand = best["checked"], best["unchecked"], best["by hand"]
    print(f"registry: {len(theorems.all())} records")
    print(f"Theorem.evaluate, 1e6 points, bok2024/thm4.2: {t_thm * 1e3:.1f} ms (with assumption checks), "
          f"{t_raw * 1e3:.1f} ms (without); numpy by hand {t_hand * 1e3:.1f} ms")
    print(f"ratio evaluate / by hand: {t_thm / t_hand:.2f} (checked), {t_raw / t_hand:.2f} (unchecked); "
          f"target <= 1.5")
    print(f"total {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
