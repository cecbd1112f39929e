"""Benchmarks of ``verify calibrate``: ratios measured in one run, no assertions.

1. Strongly convex full-batch run (n = 1000, T = 200): wall time of ``calibrate`` over the whole registry
   (target < 1 s), the sigma it returns against the composition baseline's.
2. Poisson-batch DP-SGD run (n = 60000, b = 256, 2 epochs, add/remove): wall time (target < 10 s), and the
   returned sigma against dp_accounting's own PLD calibration of the same subsampled Gaussian (an
   independent accountant; ratio ~ 1 up to the two tolerances).
3. Account at the returned sigma: the target is met and the bound sits within the stated tolerance.

Verdicts: every applicable theorem is treated as usable (``include_unverified=True``, no verdict file), so
the timing is that of the calibration itself, not of the engine's quick-check fallback.  The first call of
each setting is timed (cold caches), as a user would see it.

    python benchmarks/bench_account.py
"""

from __future__ import annotations

import time

from verify.account import account, calibrate
from verify.account.calibration import RTOL

FULL = dict(n=1000, batches="full", T=200, eta=0.1, Delta=1.0, m=0.5, M=1.0)
POISSON = dict(n=60000, b=256, batches="poisson", epochs=2, eta=0.1, Cclip=1.0, adjacency="add_remove")
TARGET = dict(eps=2.0, delta=1e-5)


def timed_calibration(run: dict, limit: float) -> object:
    import theorems

    theorems.all()  # registry import is start-up cost, not calibration
    start, cpu = time.perf_counter(), time.process_time()
    result = calibrate(run, **TARGET, include_unverified=True, verdicts={})
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    evaluations = sum(r.evaluations for r in result.rows)
    print(f"  calibrate: wall {seconds:.2f} s, cpu {cpu:.2f} s (target < {limit:g} s, ratios {seconds / limit:.2f} "
          f"wall, {cpu / limit:.2f} cpu; wall counts other jobs on the shared cores), "
          f"{evaluations} bound evaluations")
    comp = result.composition
    print(f"  sigma = {result.sigma:.6g} under {result.best.id}; composition {comp.id if comp else '-'} "
          f"needs {comp.sigma:.6g} (ratio {comp.sigma / result.sigma:.3f})" if comp else
          f"  sigma = {result.sigma:.6g} under {result.best.id}")
    again = account(result.calibrated_run, delta=TARGET["delta"], include_unverified=True, verdicts={})
    print(f"  round trip: eps = {again.eps:.6f} for target {TARGET['eps']} "
          f"(eps/target = {again.eps / TARGET['eps']:.6f}, tolerance [{1 - RTOL:.4f}, 1])")
    return result


def dp_accounting_sigma(run: dict) -> float:
    """sigma for the same target from dp_accounting's PLD accountant (Poisson subsampled Gaussian)."""
    from dp_accounting import calibrate_dp_mechanism, dp_event, mechanism_calibration
    from dp_accounting.pld import pld_privacy_accountant

    q = run["b"] / run["n"]
    steps = int(-(-run["epochs"] * run["n"] // run["b"]))  # ceil, as verify.account.run does

    def event(z: float):
        return dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(z)), steps)

    z = calibrate_dp_mechanism(pld_privacy_accountant.PLDAccountant, event, TARGET["eps"], TARGET["delta"],
                               mechanism_calibration.LowerEndpointAndGuess(0.3, 1.0), tol=1e-4)
    return z * run["Cclip"] / run["b"]


def main() -> None:
    print("1. strongly convex, full batch:", FULL)
    timed_calibration(FULL, 1.0)
    print("2. Poisson batches (DP-SGD):", POISSON)
    result = timed_calibration(POISSON, 10.0)
    start = time.perf_counter()
    reference = dp_accounting_sigma(POISSON)
    print(f"  dp_accounting PLD calibration: sigma = {reference:.6g} ({time.perf_counter() - start:.2f} s); "
          f"ours / theirs = {result.sigma / reference:.4f}")


if __name__ == "__main__":
    main()
