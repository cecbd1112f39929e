"""Benchmarks of certified violations: ratios measured in one run, no assertions.

1. ``violation_margin`` on a comparison that holds (the double-precision screen only) and on one that
   fails (the 50-digit re-evaluation of the closed form), against one double-precision evaluation of
   the same bound, on bok2024/thm4.2 at new points each time (no cache hits).
2. ``verify eval ID --family ...``: one replay of a kept counterexample (altschuler2022/b.3 on its
   1024-cell grid), cold (first build of the instance's profile) and warm.

    python benchmarks/bench_certify.py
"""

from __future__ import annotations

import time

import theorems
from verify.check import certify
from verify.check import references as refs


def margins() -> None:
    t = theorems.get("bok2024/thm4.2")
    base = dict(n=100.0, T=50.0, eta=0.5, sigma=1.0, m=0.5, M=1.0, Delta=1.0)
    points = [{k: v for k, v in dict(base, sigma=1.0 + 1e-3 * i).items() if k in t.parameters} for i in range(300)]
    certify.violation_margin(t, points[0], refs.Comparison(exact=1e9, bound=1.0, at=None, tolerance=1e-9))  # compile

    def per_call(f) -> float:
        start = time.perf_counter()
        for p in points[1:]:
            f(p)
        return (time.perf_counter() - start) / (len(points) - 1)

    evaluate = per_call(lambda p: float(t.evaluate(**p)))
    holds = per_call(lambda p: certify.violation_margin(t, p, refs.Comparison(0.0, 1.0, None, 1e-9)))
    certify._closed_form_cached.cache_clear()
    fails = per_call(lambda p: certify.violation_margin(t, p, refs.Comparison(1e9, 1.0, None, 1e-9)))
    print(f"  one float evaluation of the bound: {evaluate * 1e3:.3f} ms")
    print(f"  violation_margin, holds (screen): {holds * 1e3:.4f} ms = {holds / evaluate:.3f} x one evaluation")
    print(f"  violation_margin, fails (50 digits): {fails * 1e3:.3f} ms = {fails / evaluate:.2f} x one evaluation")


def replay() -> None:
    t = theorems.get("altschuler2022/b.3")
    kept = dict(next(e for e in t.examples if "family" in e))
    family, alpha = kept.pop("family"), kept.pop("alpha")
    start = time.perf_counter()
    certify.replay(t, family, kept, alpha)
    cold = time.perf_counter() - start
    start = time.perf_counter()
    certify.replay(t, family, kept, alpha)
    warm = time.perf_counter() - start
    print(f"  replay of altschuler2022/b.3's kept counterexample: cold {cold:.3f} s, warm {warm * 1e3:.2f} ms "
          f"(ratio {cold / warm:.0f})")


if __name__ == "__main__":
    print("certified margins")
    margins()
    print("replays")
    replay()
