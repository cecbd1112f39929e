"""Benchmark: Theorem.evaluate on 10^6 points vs the same formula hand-written in numpy, and the time to
build the registry at import (issue 8).  Prints ratios measured in one run."""

import subprocess
import sys
import time

import numpy as np


def best_of(fn, repeat=5):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", "import time; t=time.perf_counter(); import theorems; "
                          "theorems.all(); print(time.perf_counter()-t)"], capture_output=True, text=True)
    registry = float(out.stdout.strip())
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
    print(f"registry import + build: {registry:.2f} s ({len(theorems.all())} records)")
    print(f"Theorem.evaluate, 1e6 points, bok2024/thm4.2: {t_thm * 1e3:.1f} ms (with assumption checks), "
          f"{t_raw * 1e3:.1f} ms (without); numpy by hand {t_hand * 1e3:.1f} ms")
    print(f"ratio evaluate / by hand: {t_thm / t_hand:.2f} (checked), {t_raw / t_hand:.2f} (unchecked); "
          f"target <= 1.5")
    print(f"total {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
