"""Benchmarks of the exact references (verify/instances): ratios measured in one run, no assertions.

1. Closed-form Gaussian chain, d = 100: time of a profile (mu, Rényi, delta) at T = 10^6 vs T = 10
   (target ratio <= 2: the closed form has no loop over T).
2. 1-D grid engine: 2^14 cells, T = 10^3 steps, projected and Poisson-subsampled (target <= 5 s),
   with the accuracy reached (the refinement error estimate; the coarse companion grid is included
   in the time).
3. The grid engine against the committed one (``git show HEAD:verify/instances/grid.py``, loaded beside
   it): CPU seconds of the dense transition matrices of decaying step sizes (the work of
   ``altschuler2022/ex5.8``: one matrix per step, D = 150 eta sigma), of a cyclic schedule (equal steps
   built once), and of direct convolutions on a wide interval (the kernel's non-zero band only); the
   largest relative difference of the laws (where they exceed 1e-250).
4. Large per-step mu: a full-batch walk at mu = 30, T = 2, 4096 cells: the linear profile
   alone, then the Rényi divergence that needs the log engine (its extra time), against 2 T mu^2 / 2.

    python benchmarks/bench_instances.py [--only chain|grid|engine|log]
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from verify.instances import FAMILIES
from verify.instances import grid as new

HERE = Path(__file__).resolve().parent.parent


def chain_seconds(T: int, repeats: int = 20) -> float:
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        inst = FAMILIES["quadratic_chain"].build(n=1000, eta=0.5, sigma=1.0, T=T, m=1e-3, M=1.0, Delta=1.0, d=100,
                                                 init="gaussian")
        prof = inst.profile()
        prof.renyi([2.0, 8.0])
        prof.delta([0.5, 1.0])
        best = min(best, time.perf_counter() - start)
    return best


def committed_grid():
    """The committed grid module, imported under another name (None outside a git checkout)."""
    try:
        text = subprocess.run(["git", "show", "HEAD:verify/instances/grid.py"], cwd=HERE, capture_output=True,
                              text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    path = Path(tempfile.mkdtemp()) / "committed_grid.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("committed_grid", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["committed_grid"] = module
    spec.loader.exec_module(module)
    return module


def cpu(fn, repeats: int = 3):
    """Least CPU seconds of ``repeats`` calls, and the last result."""
    best, out = np.inf, None
    for _ in range(repeats):
        start = time.process_time()
        out = fn()
        best = min(best, time.process_time() - start)
    return best, out


def engine_workloads(module):
    """Three workloads on ``module``'s engine, each returning the laws (k, C+2)."""
    Mixture, IntervalGrid = module.Mixture, module.IntervalGrid
    eta, sigma, m, T, C = 1.0, 1.0, 0.1, 12, 512
    steps = eta * np.maximum(np.arange(T, dtype=float), 1.0) ** -0.5

    def affine(eta_t: float, shift: float):
        return lambda theta: shift - eta_t * m * theta

    def decaying():  # one dense matrix per step, uniform batches q = 1/2 (ex5.8's shape)
        grid = IntervalGrid(-75.0, 75.0, C)
        sch_d = [Mixture((1.0,), (affine(e, 0.0),)) for e in steps]
        sch_p = [Mixture((0.5, 0.5), (affine(e, 0.0), affine(e, e * 5.0))) for e in steps]
        return module.evolve_many(grid, 0.0, steps * sigma, [sch_d, sch_p], T)[0]

    def cyclic():  # l = 8 batches, the record in one: 7 equal steps per epoch
        grid = IntervalGrid(-40.0, 40.0, 1024)
        still = lambda: Mixture((1.0,), (affine(0.5, 0.0),))
        sch_d = [still() for _ in range(8)]
        sch_p = [still() for _ in range(7)] + [Mixture((1.0,), (affine(0.5, 2.0),))]
        return module.evolve_many(grid, 0.0, 0.5, [sch_d, sch_p], 24)[0]

    def wide_direct():  # translations, interval 400 sd wide: the kernel is non-zero on a fifth of the offsets
        grid = IntervalGrid(-100.0, 100.0, 4096)
        sch = [[Mixture((0.9, 0.1), (0.0, 0.5))], [Mixture((1.0,), (0.0,))]]
        return module.evolve_many(grid, 0.0, 0.5, sch, 40, "direct")[0]

    return {"dense, decaying steps (C=512, T=12)": decaying, "dense, cyclic l=8 (C=1024, T=24)": cyclic,
            "direct, wide interval (C=4096, T=40)": wide_direct}


def engine() -> None:
    old = committed_grid()
    if old is None:
        print("engine: no git checkout, nothing to compare")
        return
    ours, theirs = engine_workloads(new), engine_workloads(old)
    for name in ours:
        t_old, a = cpu(theirs[name])
        t_new, b = cpu(ours[name])
        ok = a > 1e-250
        diff = float(np.max(np.abs(a[ok] - b[ok]) / a[ok]))
        print(f"engine {name}: committed {t_old:.3f} s, now {t_new:.3f} s CPU, x{t_old / t_new:.2f}; "
              f"max relative difference {diff:.1e}")


def large_mu() -> None:
    mu, T, cells = 30.0, 2, 4096
    lo, hi = -T * mu - 40 * np.sqrt(T), 2 * T * mu + 40 * np.sqrt(T)
    start = time.process_time()
    prof = FAMILIES["interval_walk"].build(n=1, eta=1.0, sigma=1.0, T=T, Delta=mu, D=hi - lo, lo=lo, x0=0.0,
                                           cells=cells).profile()
    built = time.process_time() - start
    value = float(prof.renyi(2.0))
    total = time.process_time() - start
    print(f"log engine, mu={mu:g}, T={T}, {cells} cells: profile {built:.2f} s CPU (log masses included when a "
          f"likelihood ratio needs them), D_2 {value:.3f} +- {prof.error_of('renyi', 2.0):.2g} against "
          f"{2 * T * mu ** 2 / 2:g}; total {total:.2f} s")


def grid() -> None:
    for batches, b in (("poisson", 1), ("full", None)):
        start = time.perf_counter()
        inst = FAMILIES["interval_walk"].build(n=100, eta=0.1, sigma=0.5, T=1000, Delta=1.0, D=2.0, batches=batches,
                                               b=b, cells=2 ** 14, method="fft")
        prof = inst.profile()
        elapsed = time.perf_counter() - start
        print(f"grid 2^14 cells, T=10^3, projected, {batches}: {elapsed:.2f} s (target <= 5 s); "
              f"error estimate {prof.error:.2e} (sup |delta_h - delta_2h|), "
              f"delta(0.2) = {prof.delta(0.2):.6e}, D_2 = {prof.renyi(2.0):.6e} "
              f"(+- {prof.error_of('renyi', 2.0):.1e})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", choices=("chain", "grid", "engine", "log"))
    only = parser.parse_args().only
    if only in (None, "chain"):
        t10, t1m = chain_seconds(10), chain_seconds(10**6)
        print(f"chain d=100: T=10 {t10 * 1e3:.2f} ms, T=10^6 {t1m * 1e3:.2f} ms, ratio {t1m / t10:.2f} (target <= 2)")
    if only in (None, "grid"):
        grid()
    if only in (None, "engine"):
        engine()
    if only in (None, "log"):
        large_mu()


if __name__ == "__main__":
    main()
