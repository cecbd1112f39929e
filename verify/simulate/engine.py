"""Batched Monte Carlo of the canonical iteration on D and D', in seeded blocks, serial or on Dask.

Reproducibility: the runs are cut on a fixed grid of ``block_size`` runs; block
``i`` draws its random numbers from ``SeedSequence(seed, spawn_key=(i,))`` (the i-th child that
``SeedSequence(seed).spawn`` returns), split again into one child per side (D, D').  Tasks are groups
of whole blocks, so the samples depend only on ``(seed, runs, block_size)``, never on how the blocks
are grouped, how many workers ran them, or in which order.
"""

from __future__ import annotations

import contextlib
import math
import os
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from threadpoolctl import threadpool_limits

from verify.errors import InputError
from verify.simulate.backend import Backend, get_backend
from verify.simulate.cluster import connect, local_cluster
from verify.simulate.spec import Ball, Box, Simulation

#: runs per block: the unit of seeding (changing it changes the samples, like changing the seed)
BLOCK_SIZE = 16384


@dataclass(frozen=True)
class Samples:
    """Last iterates of ``runs`` independent runs on D (``theta0``) and on D' (``theta1``), each (R, d)."""

    theta0: np.ndarray
    theta1: np.ndarray
    seed: int
    block_size: int
    backend: str

    @property
    def runs(self) -> int:
        return int(self.theta0.shape[0])


# ---------------------------------------------------------------------------------------------------
# one block on one backend
# ---------------------------------------------------------------------------------------------------


def _batch_mask(sim: Simulation, backend: Backend, rng, k: int, runs: int, state: dict):
    """The batch B_k as a {0,1} mask: (n,) when deterministic, (runs, n) when random."""
    xp, n, b = backend.xp, sim.n, sim.batch_size
    if sim.batches == "full":
        return state["ones"]
    if sim.batches == "cyclic":
        j = k % (n // b)
        return state["cyclic"][j]
    if sim.batches == "poisson":
        return xp.astype(rng.uniform((runs, n)) < b / n, backend.dtype)
    if sim.batches == "uniform":
        u = rng.uniform((runs, n))
        kth = backend.kth_smallest(u, b)  # the b smallest draws pick the batch
        return xp.astype(u <= kth, backend.dtype)
    # shuffle: a fresh permutation per epoch; step j of the epoch takes ranks [j b, (j+1) b)
    per_epoch = n // b
    j = k % per_epoch
    if j == 0:
        state["rank"] = xp.argsort(xp.argsort(rng.uniform((runs, n)), axis=1), axis=1)
    rank = state["rank"]
    return xp.astype((rank >= j * b) & (rank < (j + 1) * b), backend.dtype)


def simulate_block(sim: Simulation, seed: int, block: int, runs: int, backend: Backend) -> tuple[np.ndarray, np.ndarray]:
    """Run block ``block`` (``runs`` runs) on both sides; returns the two (runs, d) numpy arrays."""
    xp = backend.xp
    children = np.random.SeedSequence(seed, spawn_key=(block,)).spawn(2)
    eta = sim.eta_schedule()
    out = []
    n, b, d = sim.n, sim.batch_size, sim.d
    for which, child in enumerate(children):
        rng = backend.generator(child)
        X_np, y_np, present_np = sim.side(which)
        X = backend.asarray(X_np)
        y = None if y_np is None else backend.asarray(y_np)
        present = backend.asarray(present_np)
        h = backend.asarray(sim.loss.curvature) if sim.loss.name == "quadratic" else None
        state = {"ones": present}
        if sim.batches == "cyclic":
            parts = np.zeros((n // b, n))
            for j in range(n // b):
                parts[j, j * b:(j + 1) * b] = 1.0
            state["cyclic"] = backend.asarray(parts * present_np)
        project = None
        if isinstance(sim.constraint, Ball):
            ctr = backend.asarray(np.broadcast_to(sim.constraint.center, (d,)))
            project = lambda th, c=ctr: sim.constraint.project(xp, th, c)  # noqa: E731
        elif isinstance(sim.constraint, Box):
            lo = backend.asarray(np.broadcast_to(sim.constraint.lo, (d,)))
            hi = backend.asarray(np.broadcast_to(sim.constraint.hi, (d,)))
            project = lambda th, lh=(lo, hi): sim.constraint.project(xp, th, lh)  # noqa: E731
        theta = xp.zeros((runs, d), dtype=backend.dtype) + backend.asarray(sim.theta0)
        if sim.init_std > 0:
            theta = theta + sim.init_std * rng.normal((runs, d))
        for k in range(sim.steps):
            mask = _batch_mask(sim, backend, rng, k, runs, state)
            if sim.batches != "full" and sim.batches != "cyclic":
                mask = mask * present
            grad = sim.loss.grad_sum(xp, theta, X, y, mask, h)
            noise = rng.normal((runs, d))
            theta = theta - float(eta[k]) * (grad * (1.0 / b) + sim.sigma * noise)
            if project is not None:
                theta = project(theta)
        out.append(backend.to_numpy(theta))
    return out[0], out[1]


def simulate_blocks(sim: Simulation, seed: int, runs: int, block_size: int, blocks: Sequence[int],
                    backend_name: str = "numpy", device: str | None = None) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """Run a group of whole blocks (the unit of work of a Dask task); returns (block, theta0, theta1)."""
    backend = get_backend(backend_name, device)
    results = []
    # one BLAS thread per block runner: the small products here lose badly to thread contention, and
    # parallelism comes from the blocks (Dask workers), not from BLAS
    with threadpool_limits(limits=1), _torch_threads(backend):
        for i in blocks:
            size = min(block_size, runs - i * block_size)
            t0, t1 = simulate_block(sim, seed, i, size, backend)
            results.append((i, t0, t1))
    return results


@contextlib.contextmanager
def _torch_threads(backend: Backend):
    if backend.name != "torch" or not backend.device.startswith("cpu"):
        yield
        return
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


# ---------------------------------------------------------------------------------------------------
# many blocks: in process or on a Dask cluster
# ---------------------------------------------------------------------------------------------------


def _validate(runs, seed, block_size) -> None:
    if isinstance(runs, bool) or not isinstance(runs, (int, np.integer)) or runs <= 0:
        raise InputError(f"runs must be a positive integer, got {runs!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(f"seed must be a non-negative integer, got {seed!r}")
    if not isinstance(block_size, (int, np.integer)) or block_size <= 0:
        raise InputError(f"block_size must be a positive integer, got {block_size!r}")


# ---------------------------------------------------------------------------------------------------
# what a simulation costs, estimated before it starts
# ---------------------------------------------------------------------------------------------------

#: array operations per second assumed for the time estimate (a conservative single-core figure)
OPS_PER_SECOND = 2e8
#: seconds of interpreter overhead per step, per side and block (dominant for few runs and many steps)
STEP_OVERHEAD = 5e-4
#: the longest simulation started without a second thought (longer ones are refused: say less, or chunk)
MAX_SECONDS = 7 * 24 * 3600.0


@dataclass(frozen=True)
class Cost:
    """Peak memory (bytes) and running time (seconds, one core) of ``simulate(sim, runs)``, estimated."""

    memory: float
    seconds: float


def estimate_cost(sim: Simulation, runs: int, block_size: int = BLOCK_SIZE) -> Cost:
    """The memory and time :func:`simulate` needs, from runs, steps, n and d (orders of magnitude, not a
    promise): the kept last iterates, the step-size schedule, and one block's working arrays."""
    n, d, steps = sim.n, sim.d, sim.steps
    block = min(runs, block_size)
    per_run = n if sim.batches in ("poisson", "uniform", "shuffle") else 0  # a random batch mask per run
    working = 8.0 * (block * (4 * d + 3 * per_run + n) + n * d + (n * n if sim.batches == "cyclic" else 0))
    memory = 8.0 * (4 * runs * d + 2 * steps) + working
    seconds = 2.0 * runs * steps * (2 * n * d + 4 * d + 3 * per_run + n) / OPS_PER_SECOND
    seconds += 2.0 * math.ceil(runs / block_size) * steps * STEP_OVERHEAD
    return Cost(memory, seconds)


def machine_memory() -> float:
    """The memory this process may use, in bytes: the smallest of the machine's physical memory, the process's
    address-space limit (``ulimit -v``) and its control group's limit (``memory.max``, cgroup v2, or
    ``memory.limit_in_bytes``, v1); infinite when none of them says."""
    limits = [math.inf]
    try:
        limits.append(float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")))
    except (ValueError, OSError, AttributeError):
        pass
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft not in (resource.RLIM_INFINITY, -1) and soft > 0:
            limits.append(float(soft))
    except (ImportError, ValueError, OSError):
        pass
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            text = open(path, encoding="ascii").read().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < 2 ** 60:  # "max", or v1's near-2^63 "no limit"
            limits.append(float(text))
    return min(limits)


def check_resources(sim: Simulation, runs: int, block_size: int = BLOCK_SIZE) -> Cost:
    """Refuse (``InputError`` naming runs or T) a simulation that cannot fit in this machine's memory or
    would run for more than :data:`MAX_SECONDS`; return the estimate otherwise."""
    cost = estimate_cost(sim, runs, block_size)
    culprit = "T" if 2 * sim.steps > 4 * runs * sim.d else "runs"
    available = machine_memory()
    if cost.memory > 0.8 * available:
        raise InputError(f"{culprit}: the simulation needs about {_bytes(cost.memory)} of memory, this machine has "
                         f"{_bytes(available)} (runs={runs}, T={sim.steps}, n={sim.n}, d={sim.d})", culprit)
    culprit = "T" if sim.steps > runs else "runs"
    if cost.seconds > MAX_SECONDS:
        raise InputError(f"{culprit}: the simulation would run for about {cost.seconds / 86400:.3g} days on one "
                         f"core (runs={runs}, T={sim.steps}, n={sim.n}, d={sim.d}); ask for fewer", culprit)
    return cost


def _bytes(x: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if x < 1024 or unit == "TiB":
            return f"{x:.3g} {unit}"
        x /= 1024
    return f"{x:.3g} TiB"


# the one place clusters are started and reached: verify.simulate.cluster (shared with `verify run`)


def simulate(sim: Simulation, runs: int, seed: int = 0, *, backend: str = "numpy", device: str | None = None,
             workers: int | None = None, scheduler: str | None = None, client=None,
             block_size: int = BLOCK_SIZE, blocks_per_task: int | None = None,
             timeout: float = 600.0) -> Samples:
    """Simulate ``runs`` runs of ``sim`` on D and on D'.

    In process by default; on a Dask ``client``, on the cluster at ``scheduler``, or on a fresh local
    cluster of ``workers`` processes (127.0.0.1).  The samples are identical in every case.
    Raises ``ValueError`` for bad ``runs``/``seed``, an unavailable backend or device, or an unreachable
    scheduler, before any work starts.
    """
    _validate(runs, seed, block_size)
    get_backend(backend, device)  # fail early, in the caller's process
    check_resources(sim, runs, block_size)
    n_blocks = math.ceil(runs / block_size)
    if client is None and workers is None and scheduler is None:
        parts = simulate_blocks(sim, seed, runs, block_size, range(n_blocks), backend, device)
    else:
        if workers is not None and scheduler is not None:
            raise InputError("give either workers or scheduler, not both")
        owned = []
        try:
            if client is None:
                if scheduler is not None:
                    client = connect(scheduler)
                else:
                    from distributed import Client

                    cluster = local_cluster(workers)
                    owned.append(cluster)
                    client = Client(cluster)
                owned.insert(0, client)
            parts = _run_on(client, sim, seed, runs, block_size, n_blocks, backend, device, blocks_per_task,
                            timeout)
        finally:
            for thing in owned:
                thing.close()
    parts.sort(key=lambda p: p[0])
    theta0 = np.concatenate([p[1] for p in parts], axis=0)
    theta1 = np.concatenate([p[2] for p in parts], axis=0)
    return Samples(theta0, theta1, int(seed), int(block_size), backend)


def _run_on(client, sim, seed, runs, block_size, n_blocks, backend, device, blocks_per_task, timeout):
    if blocks_per_task is None:
        n_workers = max(1, len(client.scheduler_info().get("workers", {})))
        blocks_per_task = max(1, math.ceil(n_blocks / (4 * n_workers)))
    groups = [list(range(s, min(s + blocks_per_task, n_blocks))) for s in range(0, n_blocks, blocks_per_task)]
    # the spec travels inside each task (no scatter): a task stays recomputable when a worker dies
    futures = [client.submit(simulate_blocks, sim, seed, runs, block_size, g, backend, device,
                             pure=False, retries=2) for g in groups]
    results = [f.result(timeout=timeout) for f in futures]
    return [part for group in results for part in group]
