"""Benchmarks of the exact references (verify/instances): ratios measured in one run, no assertions.

1. Closed-form Gaussian chain, d = 100: time of a profile (mu, Rényi, delta) at T = 10^6 vs T = 10
   (target ratio <= 2: the closed form has no loop over T).
2. 1-D grid engine: 2^14 cells, T = 10^3 steps, projected and Poisson-subsampled (target <= 5 s),
   with the accuracy reached (the refinement error estimate; the coarse companion grid is included
   in the time).

    python benchmarks/bench_instances.py
"""

from __future__ import annotations

import time

import numpy as np

from verify.instances import FAMILIES


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


def main() -> None:
    t10, t1m = chain_seconds(10), chain_seconds(10**6)
    print(f"chain d=100: T=10 {t10 * 1e3:.2f} ms, T=10^6 {t1m * 1e3:.2f} ms, ratio {t1m / t10:.2f} (target <= 2)")

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


if __name__ == "__main__":
    main()
