"""Simulation throughput against the random-number floor, and Dask scaling.

    python benchmarks/bench_simulate.py [--quick]

1. Run-steps per second of the simulator on quadratic instances (d = 1 and d = 100, full batch)
   divided by the rate of drawing the same number of standard Gaussian variates with the same
   backend and generator (the physical floor of this workload).  Target: ratio >= 0.5.
2. Wall time of 10^7 run-steps (logistic, d = 10) on a local Dask cluster of 1 vs 2 workers:
   the speed-up ratio (the machine's free cores bound it).
All figures are measured in this one run; nothing is asserted.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from verify.simulate import Quadratic, Simulation, get_backend, local_cluster, logistic_ball, simulate
from verify.simulate.engine import BLOCK_SIZE


def _best(f, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def throughput(backend: str, d: int, runs: int, steps: int) -> tuple[float, float]:
    """(simulated run-steps per second, ratio to raw Gaussian draws of the same count)."""
    sim = Simulation(Quadratic(np.linspace(0.5, 1.0, d)), np.zeros((10, d)), steps=steps, eta=0.1, sigma=1.0,
                     index=0, x_other=np.ones(d))
    t_sim = _best(lambda: simulate(sim, runs, seed=1, backend=backend))
    be = get_backend(backend)
    blocks = -(-runs // BLOCK_SIZE)

    def draws():  # the same variates: 2 sides x steps x (runs, d), in the same block shapes
        for i in range(blocks):
            size = min(BLOCK_SIZE, runs - i * BLOCK_SIZE)
            for child in np.random.SeedSequence(1, spawn_key=(i,)).spawn(2):
                rng = be.generator(child)
                for _ in range(steps):
                    rng.normal((size, d))

    t_rng = _best(draws)
    run_steps = 2 * runs * steps
    return run_steps / t_sim, t_rng / t_sim


def scaling(run_steps: int = 10**7) -> tuple[float, float]:
    sim = logistic_ball(d=10, n=20, b=20, T=20, batches="full")
    runs = run_steps // (2 * sim.steps)
    out = []
    for workers in (1, 2):
        cluster = local_cluster(workers)
        from distributed import Client

        client = Client(cluster)
        try:
            simulate(sim, 2 * 4096, seed=0, client=client, block_size=4096)  # warm the workers
            out.append(_best(lambda: simulate(sim, runs, seed=0, client=client, block_size=4096), repeat=1))
        finally:
            client.close()
            cluster.close()
    return out[0], out[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    args = parser.parse_args()
    backends = ["numpy"]
    try:
        get_backend("torch", "cpu")
        backends.append("torch")
    except ValueError:
        pass
    print("throughput: run-steps/s (both datasets) and ratio to raw Gaussian draws (target >= 0.5)")
    for backend in backends:
        for d, runs, steps in ((1, 200_000, 50), (100, 20_000, 20)):
            if args.quick:
                runs //= 10
            rate, ratio = throughput(backend, d, runs, steps)
            print(f"  {backend:6s} d={d:<4d} runs={runs:<7d} T={steps:<3d} {rate:12.3e} run-steps/s   ratio {ratio:.2f}")
    if not args.quick:
        t1, t2 = scaling()
        print(f"dask scaling, 10^7 run-steps (logistic d=10): 1 worker {t1:.2f} s, 2 workers {t2:.2f} s, "
              f"speed-up {t1 / t2:.2f}")


if __name__ == "__main__":
    main()
