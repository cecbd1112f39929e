"""The Dask clusters every parallel command runs on: a local cluster on loopback, or an
existing one reached at a scheduler's address.

The simulated audit and the verification suite (``verify run``, ``check``, ``report``) share this one
module, so both start and reach clusters the same way.  A local cluster's workers are single-threaded
processes (the work is CPU-bound Python: threads would share one GIL) started once per command:

* on Linux they are forked from the parent (``fork``), which has already imported what a task needs (the
  registry, sympy, the engine), so a worker is ready in a fraction of a second instead of importing again
  for several seconds; elsewhere a ``forkserver`` that imports :data:`PRELOAD` once forks them;
* every worker runs :func:`dask_setup` at start (a Dask worker *preload*): it ignores SIGINT, because the
  parent decides when to stop (on Ctrl-C it cancels the futures and kills its workers; a worker that
  raised KeyboardInterrupt itself would print a traceback and be restarted by its nanny).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import numbers
import os
import signal
import sys
from typing import Sequence

from verify.errors import InputError

#: imported once by a ``forkserver`` before it forks workers (where ``fork`` is not used); the modules a
#: task of the suite needs, so that no task pays for importing them
PRELOAD = ("theorems", "verify.check.engine", "verify.check.parallel")


def start_method() -> str:
    """How a local cluster's workers start: ``fork`` on Linux (they inherit the parent's imports), else
    ``forkserver`` with :data:`PRELOAD` imported once in the server, else ``spawn``."""
    methods = multiprocessing.get_all_start_methods()
    if sys.platform.startswith("linux") and "fork" in methods:
        return "fork"
    return "forkserver" if "forkserver" in methods else "spawn"


def dask_setup(worker=None) -> None:  # noqa: ARG001 - the signature Dask's preload protocol calls
    """Run by each local worker when it starts: ignore SIGINT (see the module's docstring)."""
    with contextlib.suppress(ValueError):  # not the main thread of the process: nothing to do
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def local_cluster(workers: int, timeout: float = 60.0, preload: Sequence[str] = ()):
    """A Dask ``LocalCluster`` of ``workers`` single-threaded worker processes on 127.0.0.1 only.

    ``preload``: modules each worker imports as it starts (already there when forked).
    """
    if isinstance(workers, bool) or not isinstance(workers, numbers.Integral) or workers <= 0:
        raise InputError(f"workers must be a positive integer, got {workers!r}", "workers")
    import dask
    from distributed import LocalCluster

    method = start_method()
    if method == "forkserver":
        multiprocessing.get_context("forkserver").set_forkserver_preload(list(PRELOAD))
    _flush_std_streams()  # a forked worker flushes its copy of the buffers when it exits: print nothing twice
    dask.config.set({"distributed.worker.multiprocessing-method": method})
    cluster = LocalCluster(n_workers=int(workers), threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address="127.0.0.1:0", scheduler_kwargs={"dashboard": False}, silence_logs=50,
                           timeout=timeout, preload=["verify.simulate.cluster", *preload])
    if method == "fork" and "forkserver" in multiprocessing.get_all_start_methods():
        # A nanny restarts a worker that died while this process may be writing (progress lines): a fork then
        # can inherit a stdio lock held by that write and hang in the child.  The first workers are forked
        # while the caller waits for them; restarts (rare) come from a single-threaded forkserver.  The
        # setting is read again at each restart, hence set for the process, not for this call.
        multiprocessing.get_context("forkserver").set_forkserver_preload(list(PRELOAD))
        dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"})
    return cluster


def connect(scheduler: str, timeout: float = 10.0):
    """A Dask client on ``scheduler``; ``ValueError`` naming the address when it is unreachable."""
    from distributed import Client

    try:
        return Client(scheduler, timeout=timeout)
    except (OSError, TimeoutError, ValueError) as exc:
        raise InputError(f"scheduler {scheduler!r} is unreachable: {exc}".splitlines()[0], "--scheduler") from None


def worker_pids(cluster) -> list[int]:
    """The process ids of a local cluster's workers (those alive now)."""
    pids = []
    for nanny in list(getattr(cluster, "workers", {}).values()):
        with contextlib.suppress(Exception):  # a nanny that is starting or closing has no process
            pid = nanny.pid
            if pid:
                pids.append(int(pid))
    return pids


def kill_workers(cluster, restart: bool = True) -> None:
    """SIGKILL a local cluster's worker processes now (Ctrl-C: not after their current tasks).  Their nannies
    start new ones unless ``restart`` is false (they are told the cluster is closing first)."""
    if not restart:
        for nanny in list(getattr(cluster, "workers", {}).values()):
            with contextlib.suppress(Exception):
                nanny.close_gracefully(reason="verify: stopped")
    for pid in worker_pids(cluster):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def _flush_std_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):  # closed, detached or gone: nothing to duplicate
            pass


__all__ = ["PRELOAD", "connect", "dask_setup", "kill_workers", "local_cluster", "start_method", "worker_pids"]
