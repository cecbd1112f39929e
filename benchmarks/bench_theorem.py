"""Benchmark: Theorem.evaluate on 10^6 points vs the same formula hand-written in numpy, and start-up:
the registry's import and build, ``verify --help`` and ``verify list`` (issues 8 and 12; targets 0.3 s
and 1 s on an idle machine), each the best of 5 fresh processes, next to the bare numpy + scipy.special
+ sympy import.  Prints ratios measured in one run.

``--against DIR``: the same start-up figures for another copy of the tree (e.g. ``git archive HEAD``
unpacked in DIR), interleaved with this tree's, so that both are measured under the same load."""

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


def best_of(fn, repeat=5):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    t0 = time.perf_counter()
    against = Path(sys.argv[sys.argv.index("--against") + 1]) if "--against" in sys.argv else None
    startup(against)
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
    t_thm = best_of(lambda: thm.evaluate(**params))
    t_raw = best_of(lambda: thm.evaluate(allow_outside_assumptions=True, **params))
    t_hand = best_of(by_hand)
    print(f"registry: {len(theorems.all())} records")
    print(f"Theorem.evaluate, 1e6 points, bok2024/thm4.2: {t_thm * 1e3:.1f} ms (with assumption checks), "
          f"{t_raw * 1e3:.1f} ms (without); numpy by hand {t_hand * 1e3:.1f} ms")
    print(f"ratio evaluate / by hand: {t_thm / t_hand:.2f} (checked), {t_raw / t_hand:.2f} (unchecked); "
          f"target <= 1.5")
    print(f"total {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
