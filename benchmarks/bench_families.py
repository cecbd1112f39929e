"""Benchmarks of the family registry and the worst-case families: ratios measured in one run, no assertions.

1. ``Family.build`` dispatch: the builder's signature is read once per family instead
   of twice per build; ratio of the old dispatch (two ``inspect.signature`` calls, then the builder) to
   the new one, on the cheapest family (a Gaussian pair: the dispatch is most of its build).
2. Shuffled batches on the projected 1-D grid (an epoch kernel averaging the l position kernels, dense
   engine) against cyclic batches of the same size and engine: the cost of averaging the positions.

    python benchmarks/bench_families.py
"""

from __future__ import annotations

import inspect
import time

from verify.instances import FAMILIES


def best_of(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    fam = FAMILIES["gaussian_mechanism"]
    kwargs = dict(n=10, sigma=1.0, Delta=1.0)
    builds = 2000

    def new() -> None:
        for _ in range(builds):
            fam.build(**kwargs)

    def old() -> None:  # what Family.build did before: parameters and required from two signatures
        for _ in range(builds):
            params = inspect.signature(fam.builder).parameters
            [p for p in params if not p.startswith("_")]
            [p for p, v in inspect.signature(fam.builder).parameters.items() if v.default is inspect.Parameter.empty]
            fam.builder(**kwargs)

    t_new, t_old = best_of(new, 5), best_of(old, 5)
    print(f"Family.build x{builds} (gaussian_mechanism): cached {t_new * 1e3:.1f} ms, per-build signatures "
          f"{t_old * 1e3:.1f} ms, ratio old/new {t_old / t_new:.2f}")

    walk = FAMILIES["interval_walk"]
    common = dict(n=40, b=4, eta=1.0, sigma=1.0, T=60, Delta=2.0, D=8.0, offset=1.0, cells=512, method="dense")
    t_cyc = best_of(lambda: walk.build(batches="cyclic", **common).profile(), 3)
    t_shu = best_of(lambda: walk.build(batches="shuffle", **common).profile(), 3)
    print(f"projected walk, l=10, T=60, 512 cells, dense: cyclic {t_cyc:.3f} s, shuffle {t_shu:.3f} s, "
          f"ratio shuffle/cyclic {t_shu / t_cyc:.2f}")


if __name__ == "__main__":
    main()
