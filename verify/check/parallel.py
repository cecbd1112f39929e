"""The one execution layer (issue 18): picklable jobs on a Dask cluster, results in a fixed order.

``verify run``, ``check``, ``report`` and ``audit`` run their jobs through :func:`execution`: in process for
one worker, on a local Dask cluster of ``workers`` single-threaded processes (127.0.0.1), or on an existing
cluster at ``scheduler``.  A command opens one execution and every :func:`map_jobs` inside it (the
theorems, then the mutation self-test) shares its cluster, which is started at the first map with more
than one job and closed when the command ends.

Why the results do not depend on where they run: every job is a pure function of its arguments (each
theorem's, each unit's checks are seeded on their own), the results are put back in the order of the jobs
whatever the order they finish in, and a job lost with a worker that died is simply run again elsewhere
(Dask reschedules it) and gives the same value.  Local workers are forked from the parent, which has
already imported the registry (:mod:`verify.simulate.cluster`), and keep their imports across jobs: the
registry is imported once per worker, never per job.  Workers of an existing cluster import it at their
first job; they must run the same code as the parent, which :class:`Execution` checks when it connects.

Ctrl-C (or a failed job): the parent cancels every future of the run and kills the local workers at
once, so the command stops within a second or two instead of finishing the jobs already started; the
parent wakes every :data:`_POLL_SECONDS` while it waits, so a SIGINT delivered to another thread is acted
on promptly too.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import threading
import uuid
from pathlib import Path
from typing import Callable, Iterator, Sequence, TypeVar

import theorems
from verify.cache import digest_sources
from verify.check.engine import check_unit, profile, theorem_units
from verify.check.suite import load_user_theorems, lookup_with
from verify.check.verdict import Verdict, decide
from verify.errors import InputError
from verify.simulate.cluster import PRELOAD, connect, kill_workers, local_cluster, start_method

R = TypeVar("R")

#: how often the parent wakes while waiting for workers (the bound on its reaction to Ctrl-C)
_POLL_SECONDS = 0.25


def default_workers() -> int:
    """The cores this process may use (the default of ``--workers``)."""
    with contextlib.suppress(AttributeError, OSError):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


class Execution:
    """Where one command's jobs run: in process (``workers == 1``), a local cluster of ``workers``
    processes, or the cluster at ``scheduler``.  The cluster is started (or reached) lazily, at the first
    :meth:`map` that needs it, and closed by :meth:`close`."""

    def __init__(self, workers: int | None = None, scheduler: str | None = None, connect_timeout: float = 10.0):
        if workers is not None and scheduler is not None:
            raise InputError("give either --workers or --scheduler, not both", "--workers")
        self.workers = default_workers() if workers is None and scheduler is None else workers
        self.scheduler = scheduler
        self.connect_timeout = connect_timeout
        self._client = None
        self._cluster = None

    @property
    def distributed(self) -> bool:
        """Whether jobs go to a cluster (an existing one, or more than one local worker)."""
        return self.scheduler is not None or (self.workers or 1) > 1

    def width(self) -> int:
        """How many jobs run at once: the local workers, or the threads of the scheduler's workers (which
        connects now).  Callers use it to order their jobs (the longest first, one per worker)."""
        if self.scheduler is None:
            return int(self.workers or 1)
        threads = self.client().nthreads()
        return max(1, sum(threads.values()))

    def client(self, size: int | None = None):
        """The Dask client, started now if need be: a local cluster of ``min(workers, size)`` processes, or
        the scheduler's (whose workers must run this very code: else ``InputError``)."""
        if self._client is None:
            if self.scheduler is not None:
                self._client = connect(self.scheduler, timeout=self.connect_timeout)
                try:
                    _check_same_code(self._client, self.scheduler)
                except BaseException:
                    self.close()
                    raise
            else:
                from distributed import Client

                workers = int(self.workers) if size is None else max(1, min(int(self.workers), size))
                with _sigint_deferred():  # a Ctrl-C while it starts: once its workers can be stopped
                    self._cluster = local_cluster(workers, preload=PRELOAD[-1:])
                    self._client = Client(self._cluster, timeout=60)
        return self._client

    def map(self, function: Callable[..., R], jobs: Sequence[tuple],
            done: Callable[[int, R], None] | None = None) -> list[R]:
        """``[function(*job) for job in jobs]``; see :func:`map_jobs`."""
        jobs = list(jobs)
        if not self.distributed or (self.scheduler is None and len(jobs) <= 1 and self._client is None):
            results = []
            for index, job in enumerate(jobs):
                results.append(function(*job))
                if done is not None:
                    done(index, results[-1])
            return results
        if not jobs:
            return []
        client = self.client(size=len(jobs))
        run = uuid.uuid4().hex[:8]
        name = getattr(function, "__name__", "job").strip("_")
        # submitted in the order given (the longest first), and started in that order: priority falls
        futures = [client.submit(function, *job, key=f"verify-{name}-{run}-{i}", pure=False,
                                 priority=len(jobs) - i)
                   for i, job in enumerate(jobs)]
        index_of = {future.key: i for i, future in enumerate(futures)}
        out: dict[int, R] = {}
        try:
            pending = set(futures)
            while pending:
                finished = _wait_some(pending)
                pending -= finished
                for future in sorted(finished, key=lambda f: index_of[f.key]):
                    index = index_of[future.key]
                    out[index] = future.result()  # a job's exception is raised here
                    future.release()
                    if done is not None:
                        done(index, out[index])
        except BaseException:
            self.abort(futures)  # Ctrl-C or a failed job: stop now, not after the jobs under way
            raise
        return [out[i] for i in range(len(jobs))]

    def abort(self, futures=()) -> None:
        """Cancel ``futures`` and kill the local workers (an existing cluster's workers are left running:
        the scheduler drops the cancelled jobs)."""
        if self._cluster is not None:
            kill_workers(self._cluster, restart=False)
        if self._client is not None:
            with contextlib.suppress(Exception):
                self._client.cancel(list(futures), force=True)
        self.close(fast=True)

    def close(self, fast: bool = False) -> None:
        """Close the client, and the local cluster if this execution started it."""
        client, cluster, self._client, self._cluster = self._client, self._cluster, None, None
        if client is not None:
            with contextlib.suppress(Exception):
                client.close(timeout=1 if fast else 10)
        if cluster is not None:
            if fast:
                kill_workers(cluster, restart=False)
            with contextlib.suppress(Exception):
                cluster.close(timeout=1 if fast else 10)


@contextlib.contextmanager
def _sigint_deferred():
    """Ctrl-C held back while a local cluster starts (interrupted half-way, its worker processes would have
    no owner left to stop them), then raised at once: never lost, late by the start (under a second)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: caught.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


def _wait_some(pending: set) -> set:
    """The futures of ``pending`` that have finished, waiting at most :data:`_POLL_SECONDS` for one."""
    from distributed import wait

    with contextlib.suppress(TimeoutError):
        wait(list(pending), timeout=_POLL_SECONDS, return_when="FIRST_COMPLETED")
    return {future for future in pending if future.done()}


#: the execution commands open (:func:`execution`); ``map_jobs`` runs inside it when there is one
_current: Execution | None = None


@contextlib.contextmanager
def execution(workers: int | None = None, scheduler: str | None = None,
              connect_timeout: float = 10.0) -> Iterator[Execution]:
    """One command's execution: every :func:`map_jobs` inside shares it (and its cluster), whatever
    ``workers`` the callers pass.  ``workers=None`` without a scheduler: the machine's cores."""
    global _current
    outer, _current = _current, Execution(workers, scheduler, connect_timeout)
    try:
        yield _current
    except BaseException:
        _current.abort()
        raise
    finally:
        _current.close()
        _current = outer


def map_jobs(function: Callable[..., R], jobs: Sequence[tuple], workers: int = 1,
             done: Callable[[int, R], None] | None = None, scheduler: str | None = None) -> list[R]:
    """``[function(*job) for job in jobs]``: in the current :func:`execution` if there is one, else over
    ``workers`` local processes (a Dask cluster started and closed here) or the cluster at ``scheduler``.

    Jobs are started in the order given (put the longest first) and the results come back in that same
    order whatever the workers; ``done(index, result)`` is called as each job finishes.  ``function``
    must be a module-level function and ``jobs`` picklable.  A job's exception is raised here.
    """
    if _current is not None:
        return _current.map(function, jobs, done)
    with execution(workers if scheduler is None else None, scheduler) as here:
        return here.map(function, jobs, done)


# ---------------------------------------------------------------------------------------------------
# the same code on every worker of an existing cluster
# ---------------------------------------------------------------------------------------------------


def code_fingerprint() -> str:
    """A digest of the source files of ``verify`` and ``theorems`` where this process imports them from.

    Read afresh at each call: it tells a worker installed from other sources (another machine, another
    version) from this one.  (A worker on this machine whose files were edited after it imported them is
    not caught: restart such workers.)"""
    digest = hashlib.sha256()
    for package in (Path(__file__).resolve().parents[1], Path(theorems.__file__).resolve().parent):
        digest_sources(digest, sorted(package.rglob("*.py")), package.parent)
    return digest.hexdigest()[:16]


def _check_same_code(client, scheduler: str) -> None:
    """Refuse a cluster whose workers run another version of the code (their verdicts could differ)."""
    try:
        theirs = client.run(code_fingerprint)
    except Exception as exc:  # noqa: BLE001 - e.g. the workers cannot import verify at all
        raise InputError(f"the workers of {scheduler} cannot run verify: {type(exc).__name__}: {exc}"
                         .splitlines()[0], "--scheduler") from None
    if not theirs:
        raise InputError(f"the cluster at {scheduler} has no workers", "--scheduler")
    ours = code_fingerprint()
    other = sorted(address for address, digest in theirs.items() if digest != ours)
    if other:
        raise InputError(f"the workers {', '.join(other)} of {scheduler} run another version of verify/theorems "
                         f"than this one ({theirs[other[0]]} != {ours}): install the same code there",
                         "--scheduler")


# ---------------------------------------------------------------------------------------------------
# the registry's theorems (verify run, benchmarks): work units of a theorem, merged in a fixed order
# ---------------------------------------------------------------------------------------------------


def _check_registered_units(theorem_id: str, profile_name: str, seed: int, units: tuple[str, ...]) -> list:
    """Work units of one registry theorem, one after the other in this process (their obligations, in
    order); a worker imported the registry once."""
    theorem, prof = theorems.get(theorem_id), profile(profile_name)
    return [o for unit in units for o in check_unit(theorem, theorems.get, prof, seed, unit)]


def check_registered(ids: list[str], profile_name: str, seed: int = 0, workers: int = 1,
                     progress: Callable[[str], None] | None = None,
                     scheduler: str | None = None, split: bool = False) -> list[Verdict]:
    """Check registry theorems; the verdicts come back in the order of ``ids`` and do not depend on the
    workers or the cluster (see :func:`_in_units`).  ``progress(id)`` is called as each theorem is done.

    ``split``: each work unit of a theorem is a job of its own (one costly theorem then no longer runs on
    one worker alone), instead of one job per theorem.  Not the default: the units of a theorem share
    costly exact references (PLD compositions, density grids) that a process computes once, so split
    units on different workers compute them twice (``benchmarks/bench_scaling.py``: 1.7 times the CPU
    time of one process, against 1.2 times per theorem, on two workers)."""
    return _in_units([theorems.get(i) for i in ids], profile(profile_name), _check_registered_units,
                     lambda theorem_id, units: (theorem_id, profile_name, seed, units), workers, progress,
                     scheduler, split)


def _in_units(records: list, prof, function: Callable[..., list], job: Callable[[str, tuple], tuple], workers: int,
              progress: Callable[[str], None] | None, scheduler: str | None, split: bool) -> list[Verdict]:
    """Each theorem's work units (:func:`~verify.check.engine.theorem_units`), one job per theorem or per
    unit (``split``), ``function(*job(id, units))`` giving the units' obligations in order; the obligations
    merged in the units' fixed order and decided.  Every unit is seeded on its own and is a pure function
    of its arguments: the verdicts do not depend on where, or grouped how, or in which order units run."""
    units = {t.id: theorem_units(t) for t in records}
    # the theorems in the order given (progress lines come steadily), a theorem's units side by side
    keys = [(t.id, (u,)) for t in records for u in units[t.id]] if split else [(t.id, units[t.id]) for t in records]
    left = {t.id: sum(1 for key in keys if key[0] == t.id) for t in records}

    def done(index: int, _) -> None:
        theorem_id = keys[index][0]
        left[theorem_id] -= 1
        if left[theorem_id] == 0 and progress is not None:
            progress(theorem_id)

    results = map_jobs(function, [job(*key) for key in keys], workers, done, scheduler)
    by_unit = {(key[0], key[1]): result for key, result in zip(keys, results)}
    return [decide(t, [o for key in keys if key[0] == t.id for o in by_unit[key]]) for t in records]


# ---------------------------------------------------------------------------------------------------
# a user's file (verify check): its text travels with each job, so that any worker can load it
# ---------------------------------------------------------------------------------------------------


def _check_user_units(path: str, text: str, theorem_id: str, prof, seed: int, units: tuple[str, ...]) -> list:
    """Work units of a theorem of a user's file (loaded once per worker and file content)."""
    records = _user_records(path, text)
    theorem, lookup = {t.id: t for t in records}[theorem_id], lookup_with(records)
    return [o for unit in units for o in check_unit(theorem, lookup, prof, seed, unit)]


_user_files: dict[str, list] = {}


def _user_records(path: str, text: str) -> list:
    """The records of a user's file as the parent read it: the file itself where it is the same, else the
    text written to a private folder under the file's own name (a worker on another machine)."""
    digest = hashlib.sha256(text.encode()).hexdigest()
    if digest not in _user_files:
        here = Path(path)
        try:
            same = here.is_file() and here.read_text(encoding="utf-8") == text
        except (OSError, UnicodeDecodeError):
            same = False
        if not same:
            import tempfile

            here = Path(tempfile.mkdtemp(prefix="verify-check-")) / here.name
            here.write_text(text, encoding="utf-8")
        _user_files[digest] = load_user_theorems(str(here))
    return _user_files[digest]


def check_file(path: str, records: list, prof, seed: int = 0, workers: int = 1,
               progress: Callable[[str], None] | None = None, scheduler: str | None = None,
               split: bool = False) -> list[Verdict]:
    """``verify check``: the theorems ``records`` of the user's file ``path``, like
    :func:`check_registered`; the verdicts come back in the order of ``records``."""
    text = Path(path).read_text(encoding="utf-8")
    # this process (and a worker forked from it) uses the records already loaded: the file runs once
    _user_files.setdefault(hashlib.sha256(text.encode()).hexdigest(), list(records))
    return _in_units(list(records), prof, _check_user_units,
                     lambda theorem_id, units: (path, text, theorem_id, prof, seed, units), workers, progress,
                     scheduler, split)


__all__ = ["Execution", "PRELOAD", "check_file", "check_registered", "code_fingerprint", "default_workers", "execution",
           "map_jobs", "start_method"]
