"""The one process pool: picklable jobs over worker processes, results in a fixed order.

Workers do not import the registry again (issue 12): where the platform forks safely (Linux) they are
forked from the parent, which has already imported the registry and the engine (:data:`PRELOAD`), so a
worker starts in milliseconds instead of re-importing for a second or more; elsewhere a ``forkserver``
that imports :data:`PRELOAD` once forks them, and ``spawn`` is the last resort.  A forked worker
inherits the parent's process-wide caches, whose values are what a fresh computation returns (byte
identical), and every theorem's checks are seeded on their own, so the verdicts do not depend on the
start method or on the number of workers.  Workers ignore SIGINT; on Ctrl-C (or any error) in the
parent the pending jobs are dropped and the workers terminated at once, so the command stops within a
second or two instead of finishing the jobs already started.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
import sys
import threading
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Callable, Sequence, TypeVar

import theorems
from verify.check.engine import check_theorem, profile
from verify.check.verdict import Verdict

R = TypeVar("R")

#: how often the parent wakes while waiting for workers (the bound on its reaction to Ctrl-C)
_POLL_SECONDS = 0.25

#: what a worker needs imported before its first job (already imported here, so a fork inherits it)
PRELOAD = ("theorems", "verify.check.engine", "verify.check.verdict")


def start_method() -> str:
    """How workers start: ``fork`` on Linux (the parent's imports are inherited), else ``forkserver``
    with :data:`PRELOAD` imported once in the server, else ``spawn``."""
    methods = multiprocessing.get_all_start_methods()
    if sys.platform.startswith("linux") and "fork" in methods:
        return "fork"
    return "forkserver" if "forkserver" in methods else "spawn"


def _context():
    method = start_method()
    context = multiprocessing.get_context(method)
    if method == "forkserver":
        context.set_forkserver_preload(list(PRELOAD))
    return context


def map_jobs(function: Callable[..., R], jobs: Sequence[tuple], workers: int = 1,
             done: Callable[[int, R], None] | None = None) -> list[R]:
    """``[function(*job) for job in jobs]``, over ``workers`` processes when ``workers > 1``.

    Jobs are started in the order given (put the longest first) and the results come back in that same
    order whatever the workers; ``done(index, result)`` is called as each job finishes.  ``function``
    must be a module-level function and ``jobs`` picklable.  A job's exception is raised here.
    """
    if workers <= 1 or len(jobs) <= 1:
        results = []
        for index, job in enumerate(jobs):
            results.append(function(*job))
            if done is not None:
                done(index, results[-1])
        return results
    out: dict[int, R] = {}
    _flush_std_streams()  # a forked worker flushes its copy of the buffers when it exits: print nothing twice
    pool = ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=_context(), initializer=_ignore_sigint)
    try:
        with _sigint_blocked():  # the workers start at the first submit and inherit the blocked SIGINT
            index_of = {pool.submit(function, *job): i for i, job in enumerate(jobs)}
        pending = set(index_of)
        while pending:
            # a bounded wait: a Ctrl-C delivered to another thread (numpy's BLAS threads accept SIGINT
            # too) is acted on by the main thread only when it runs again, not when the next job ends
            finished, pending = wait(pending, timeout=_POLL_SECONDS, return_when=FIRST_COMPLETED)
            for future in sorted(finished, key=index_of.get):
                out[index_of[future]] = future.result()
                if done is not None:
                    done(index_of[future], out[index_of[future]])
    except BaseException:
        _stop(pool)  # Ctrl-C or a failed job: stop the workers now, not after their current jobs
        raise
    pool.shutdown(wait=True)
    return [out[i] for i in range(len(jobs))]


def _flush_std_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):  # closed, detached or gone: nothing to duplicate
            pass


def _ignore_sigint() -> None:
    """Worker initializer: the parent decides when to stop.  SIGINT arrives blocked (see
    :func:`_sigint_blocked`); a Ctrl-C already pending is discarded once ignored."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@contextlib.contextmanager
def _sigint_blocked():
    """SIGINT blocked while worker processes start: a child inherits the blocked mask, so a Ctrl-C
    while it is still importing cannot print its traceback; in the parent the signal stays pending and
    is delivered (KeyboardInterrupt) as soon as the block ends: it is never lost."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _stop(pool: ProcessPoolExecutor) -> None:
    """Cancel what has not started and terminate the workers (concurrent.futures only waits for them)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())  # no public handle before 3.14
    for process in processes:
        process.terminate()
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.join(timeout=0.5)
        if process.is_alive():  # a library in the worker may handle SIGTERM: SIGKILL cannot be
            process.kill()
            process.join(timeout=0.5)
    # let the pool's manager thread finish closing its pipes now: at interpreter exit CPython 3.11 would
    # otherwise race it and print "OSError: Bad file descriptor" after the user's Ctrl-C
    manager = getattr(pool, "_executor_manager_thread", None)
    if manager is not None:
        manager.join(timeout=1.0)


# ---------------------------------------------------------------------------------------------------
# the registry's theorems (verify run, benchmarks)
# ---------------------------------------------------------------------------------------------------


def _check_registered(theorem_id: str, profile_name: str, seed: int) -> Verdict:
    """Check one registry theorem by id (a worker inherits the registry imported by the parent)."""
    return check_theorem(theorems.get(theorem_id), theorems.get, profile(profile_name), seed)


def check_registered(ids: list[str], profile_name: str, seed: int = 0, workers: int = 1,
                     progress: Callable[[str], None] | None = None) -> list[Verdict]:
    """Check registry theorems, in ``workers`` processes; the verdicts do not depend on ``workers``
    (each theorem's checks are seeded on their own) and come back in the order of ``ids``."""
    done = None if progress is None else (lambda index, _: progress(ids[index]))
    return map_jobs(_check_registered, [(i, profile_name, seed) for i in ids], workers, done)


__all__ = ["PRELOAD", "check_registered", "map_jobs", "start_method"]
