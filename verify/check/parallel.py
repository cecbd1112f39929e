"""The one execution layer: picklable jobs on a Dask cluster, results in a fixed order.

``verify run``, ``check``, ``report`` and ``audit`` run their jobs through :func:`execution`: in process for
one worker, on a local Dask cluster of ``workers`` single-threaded processes (127.0.0.1), or on an existing
cluster at ``scheduler``.  A command opens one execution and every :func:`map_jobs` inside it (the
theorems, then the mutation self-test) shares its cluster, which is started at the first map with more
than one job and closed when the command ends.

A theorem is one job, except that its soundness search on a costly reference is cut into blocks
(:func:`verify.check.soundness.plan`): the theorem's job plans them, each block is a job, and a last job
merges them and runs the phases that need every block's best points (submitted at once with the blocks'
futures as arguments: it starts as soon as that theorem's blocks are done, with no barrier between
theorems).

Why the results do not depend on where they run: every job is a pure function of its arguments (each
theorem's, each unit's and each block's checks are seeded on their own), the results are put back in the
order of the jobs whatever the order they finish in, and a job lost with a worker that died is simply run
again elsewhere (Dask reschedules it; the finishing job's block results are kept until the run ends, so a
lost one is recomputed) and gives the same value.  Local workers are forked from the parent, which has
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
import logging
import os
import signal
import threading
import time
import uuid
from pathlib import Path
from typing import Callable, Iterator, Sequence, TypeVar

import theorems
from verify.cache import digest_sources
from verify.check.limits import TookTooLong, grace, time_limit
from verify.check.engine import (Effort, check_unit, search_effort, soundness_block, soundness_finish, soundness_here,
                                 soundness_plan, theorem_units)
from verify.check.soundness import Plan, costly_plan
from verify.check.suite import load_user_theorems, lookup_with, read_source, write_source
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
        return self.run([(function, tuple(job)) for job in jobs],
                        None if done is None else lambda index, result: done(index, result) and [])

    def run(self, tasks: Sequence[tuple[Callable, tuple]],
            done: Callable[[int, object], list | None] | None = None, limit: float | None = None) -> list:
        """The results of ``tasks`` (``(function, args)``), in the order of the tasks.

        ``done(index, result)`` is called as each task finishes and may return more tasks, appended to the
        list; their arguments may name an earlier task's result by :class:`After` (on a cluster, its future:
        the task starts as soon as those are done, wherever they ran; follow-up tasks are started before
        the tasks given at first that have not started yet).  ``limit``: the seconds a task may run (the
        tasks limit themselves, :mod:`verify.check.limits`); on a cluster, when no task finishes for longer
        than that and its grace, the ones running are stuck where no exception reaches them: the workers
        are stopped and :class:`JobsStuck` names them."""
        tasks = list(tasks)
        if not self.distributed and limit:
            return _run_apart(tasks, done, limit)
        if not self.distributed or (self.scheduler is None and len(tasks) <= 1 and self._client is None):
            results: list = []
            while len(results) < len(tasks):
                function, args = tasks[len(results)]
                results.append(function(*(results[a.index] if isinstance(a, After) else a for a in args)))
                tasks += (done(len(results) - 1, results[-1]) or []) if done is not None else []
            return results
        if not tasks:
            return []
        client = self.client(size=len(tasks))
        run = uuid.uuid4().hex[:8]
        first = len(tasks)
        futures: list = []

        def submit(function, args) -> None:
            i = len(futures)
            name = getattr(function, "__name__", "job").strip("_")
            # the tasks given first are started in their order (priority falls); follow-ups before them
            priority = first - i if i < first else 2 * first
            futures.append(client.submit(function, *(futures[a.index] if isinstance(a, After) else a for a in args),
                                         key=f"verify-{name}-{run}-{i}", pure=False, priority=priority))

        for function, args in tasks:
            submit(function, args)
        index_of = {future.key: i for i, future in enumerate(futures)}
        out: dict[int, object] = {}
        try:
            pending, last = set(futures), time.monotonic()
            while pending:
                finished = _wait_some(pending)
                if finished:
                    last = time.monotonic()
                elif limit and time.monotonic() - last > limit + grace(limit):
                    keys = {str(key) for running in client.processing().values() for key in running}
                    raise JobsStuck(sorted(index_of[f.key] for f in pending if str(f.key) in keys))
                pending -= finished
                for future in sorted(finished, key=lambda f: index_of[f.key]):
                    index = index_of[future.key]
                    out[index] = future.result()  # a task's exception is raised here
                    for function, args in (done(index, out[index]) or []) if done is not None else []:
                        tasks.append((function, args))
                        submit(function, args)
                        index_of[futures[-1].key] = len(futures) - 1
                        pending.add(futures[-1])
        except BaseException:
            self.abort(futures)  # Ctrl-C or a failed task: stop now, not after the tasks under way
            raise
        for future in futures:  # kept until now: a follow-up task may still need its arguments
            future.release()
        return [out[i] for i in range(len(tasks))]

    def abort(self, futures=()) -> None:
        """Cancel ``futures`` and kill the local workers (an existing cluster's workers are left running:
        the scheduler drops the cancelled jobs).  Dask's own loggers in this process are silenced first: the
        scheduler and the client would log, with a traceback, each connection that the killed workers close
        under them (a run that stops says one line, ``verify: interrupted``)."""
        for name in ("distributed", "tornado"):
            logging.getLogger(name).setLevel(logging.CRITICAL + 1)
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


class JobsStuck(Exception):
    """Tasks of :meth:`Execution.run` (``args[0]``: their indices) that ran past the limit where no exception
    reached them (a sleep, a call into C)."""


class TimedOut(Exception):
    """Jobs of a user's theorems (``args``: their ids) that ran past the file's time limit.  An ``Exception``
    where :class:`~verify.check.limits.TookTooLong` is not: it crosses Dask as a task's error."""


def _run_apart(tasks: list, done: Callable | None, limit: float) -> list:
    """:meth:`Execution.run` for one worker, with a time limit: the tasks run one after the other in a child
    process (forked: it has the parent's imports), which is stopped when a task does not come back within the
    limit and its grace (stuck where no exception reaches it, in a sleep or a call into C)."""
    import multiprocessing

    context = multiprocessing.get_context(start_method())
    ours, theirs = context.Pipe()
    child = context.Process(target=_serve, args=(theirs,), daemon=True)
    child.start()
    theirs.close()
    results: list = []
    try:
        while len(results) < len(tasks):
            function, args = tasks[len(results)]
            ours.send((function, tuple(results[a.index] if isinstance(a, After) else a for a in args)))
            if not ours.poll(limit + grace(limit)):
                raise JobsStuck([len(results)])
            ok, value = ours.recv()
            if not ok:
                raise value
            results.append(value)
            tasks += (done(len(results) - 1, value) or []) if done is not None else []
        return results
    finally:
        child.kill()
        child.join()
        ours.close()


def _serve(connection) -> None:
    """The child of :func:`_run_apart`: run each task received, send back ``(True, result)`` or ``(False,
    exception)``.  Ctrl-C is the parent's to act on (it stops this process)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            function, args = connection.recv()
        except EOFError:  # the parent is gone
            return
        try:
            answer = (True, function(*args))
        except BaseException as exc:  # noqa: BLE001 - handed to the parent, which raises it
            answer = (False, exc)
        try:
            connection.send(answer)
        except Exception as exc:  # noqa: BLE001 - an exception that cannot be pickled: its words
            connection.send((False, RuntimeError(f"{type(exc).__name__}: {exc}")))


class After:
    """An argument of a follow-up task of :meth:`Execution.run`: the result of task ``index``."""

    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index


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


def _theorem(source: tuple | None, theorem_id: str):
    """(the theorem, its lookup) in this process: from the registry (``source`` None, imported once per
    worker) or a user's file (``(path, text)``, loaded once per worker and file content).  What else this
    process loaded does not matter: a theorem's draws depend on its own variables only
    (:func:`~verify.check.domain.search_coordinates`, :func:`~verify.check.domain.canonical_points`)."""
    if source is None:
        return theorems.get(theorem_id), theorems.get
    records = _user_records(*source[:2])
    return {t.id: t for t in records}[theorem_id], lookup_with(records)


@contextlib.contextmanager
def _limited(source: tuple | None, theorem_id: str) -> Iterator[None]:
    """A job of a user's theorem within the file's time limit (``source[2]`` seconds;
    past it: :class:`TimedOut`).  The registry's jobs (``source`` None) have no limit."""
    try:
        with time_limit(None if source is None else source[2]):
            yield
    except TookTooLong:
        raise TimedOut(theorem_id) from None


def _units_job(source: tuple | None, theorem_id: str, effort: Effort, seed: int, units: tuple[str, ...],
               apart: str = "costly") -> tuple[dict[str, list], Plan | None]:
    """Work units of one theorem, one after the other in this process: the obligations of each, and the plan
    of its soundness search when that search is left to blocks run apart (``apart``: ``"costly"``, a search
    on a costly reference, :func:`~verify.check.soundness.costly_plan`; ``"all"``; ``"none"``)."""
    with _limited(source, theorem_id):
        return _units(source, theorem_id, effort, seed, units, apart)


def _units(source: tuple | None, theorem_id: str, effort: Effort, seed: int, units: tuple[str, ...],
           apart: str) -> tuple[dict[str, list], Plan | None]:
    theorem, lookup = _theorem(source, theorem_id)
    out, planned = {}, None
    for unit in units:
        if unit != "soundness":
            out[unit] = check_unit(theorem, lookup, effort, seed, unit)
            continue
        search = soundness_plan(theorem, effort, seed)
        if isinstance(search, Plan) and len(search.blocks) > 1 and (
                apart == "all" or (apart == "costly" and costly_plan(theorem, search))):
            planned = search
        else:
            out[unit] = soundness_here(theorem, search)
    return out, planned


def _block_job(source: tuple | None, theorem_id: str, planned: Plan, index: int):
    """One block of a theorem's soundness search (its record, or an internal error's obligation)."""
    with _limited(source, theorem_id):
        return soundness_block(_theorem(source, theorem_id)[0], planned, index)


def _finish_job(source: tuple | None, theorem_id: str, planned: Plan, *outcomes) -> list:
    """The soundness and tightness obligations from the blocks' outcomes (in block order)."""
    with _limited(source, theorem_id):
        return soundness_finish(_theorem(source, theorem_id)[0], planned, list(outcomes))


def check_registered(ids: list[str], profile_name: str, seed: int = 0, workers: int = 1,
                     progress: Callable[[str], None] | None = None,
                     scheduler: str | None = None, split: bool = False, blocks: str = "auto",
                     finished: Callable[[Verdict], None] | None = None) -> list[Verdict]:
    """Check registry theorems; the verdicts come back in the order of ``ids`` and do not depend on the
    workers or the cluster (see :func:`_in_units`).  ``progress(id)`` is called as each theorem is done, and
    ``finished(verdict)`` with its verdict (``verify run`` stores it in the results cache at once).

    A theorem is one job; ``blocks``: which soundness searches are cut into blocks, each a job of its own,
    and a job that merges them (so that one costly theorem no longer runs on one worker alone): ``"costly"``,
    those on a costly reference (a numeric operator, a grid, a quadrature), ``"all"``, ``"none"``, or
    ``"auto"`` (the default): the costly ones when the cluster runs more jobs at once than there are
    theorems, else none.  The blocks of a theorem share costly exact references (PLD compositions, density
    grids) that one process computes once and several compute each: with a theorem per worker slot and more
    to come, they only add work (``benchmarks/bench_scaling.py``: the registry on 2 workers, 177 s with the
    costly searches in blocks against 128 s without).  ``split``: every work unit is a job of its own and
    every search is cut into blocks.  The grouping never changes a result."""
    return _in_units(None, [theorems.get(i) for i in ids], search_effort(profile_name), seed, workers, progress,
                     scheduler, split, blocks, finished)


def _in_units(source: tuple | None, records: list, effort: Effort, seed: int, workers: int,
              progress: Callable[[str], None] | None, scheduler: str | None, split: bool,
              blocks: str = "auto", finished: Callable[[Verdict], None] | None = None) -> list[Verdict]:
    """Each theorem's work units (:func:`~verify.check.engine.theorem_units`), one job per theorem or per
    unit (``split``), then the blocks of a search left apart and the job that merges them (submitted as soon
    as the theorem's first job has planned them: no barrier between theorems); the obligations merged in the
    units' fixed order and decided.  Every unit and block is seeded on its own and is a pure function of its
    arguments: the verdicts do not depend on where, or grouped how, or in which order they run."""
    units = {t.id: theorem_units(t) for t in records}
    if blocks not in ("auto", "costly", "all", "none"):
        raise InputError(f"blocks must be auto, costly, all or none, got {blocks!r}", "blocks")
    tasks = [(_units_job, (source, t.id, effort, seed, (u,))) for t in records for u in units[t.id]] if split \
        else [(_units_job, (source, t.id, effort, seed, units[t.id])) for t in records]
    owner = [args[1] for _, args in tasks]
    left = {t.id: owner.count(t.id) for t in records}
    finishes: dict[int, str] = {}  # index of a finishing task -> its theorem
    obligations: dict[str, dict[str, list]] = {t.id: {} for t in records}
    by_id = {t.id: t for t in records}
    decided: dict[str, Verdict] = {}

    def verdict(theorem) -> Verdict:
        if theorem.id not in decided:
            decided[theorem.id] = decide(theorem, [o for unit in units[theorem.id]
                                                   for o in obligations[theorem.id][unit]])
        return decided[theorem.id]

    def done(index: int, result) -> list:
        theorem_id = owner[index]
        more = []
        if index in finishes:
            obligations[theorem_id]["soundness"] = result
        elif isinstance(result, tuple):
            found, planned = result
            obligations[theorem_id].update(found)
            if planned is not None:
                first = len(owner)
                more = [(_block_job, (source, theorem_id, planned, i)) for i in range(len(planned.blocks))]
                more.append((_finish_job, (source, theorem_id, planned, *(After(first + i) for i in range(len(more))))))
                finishes[first + len(more) - 1] = theorem_id
                owner.extend([theorem_id] * len(more))
                left[theorem_id] += len(more)
        left[theorem_id] -= 1
        if left[theorem_id] == 0:
            if finished is not None:
                finished(verdict(by_id[theorem_id]))
            if progress is not None:
                progress(theorem_id)
        return more

    def run(here: Execution) -> None:
        apart = "all" if split else blocks
        if apart == "auto":
            apart = "costly" if here.distributed and here.width() > len(records) else "none"
        if apart != "none" and here.distributed:
            here.client()  # one theorem's blocks go to the cluster too
        try:
            here.run([(function, (*args, apart)) for function, args in tasks], done,
                     limit=None if source is None else source[2])
        except JobsStuck as exc:
            raise TimedOut(*sorted({owner[i] for i in exc.args[0]})) from None

    if _current is not None:
        run(_current)
    else:
        with execution(workers if scheduler is None else None, scheduler) as here:
            run(here)
    return [verdict(t) for t in records]


# ---------------------------------------------------------------------------------------------------
# a user's file (verify check): its text travels with each job, so that any worker can load it
# ---------------------------------------------------------------------------------------------------


#: the records of users' files a process loaded, by the digest of their text (the most recent :data:`USER_FILES`)
_user_files: dict[str, list] = {}
USER_FILES = 16


def _remember(digest: str, records: list) -> list:
    """Keep ``records`` of one user's file, forgetting the oldest beyond :data:`USER_FILES`."""
    if digest not in _user_files:
        while len(_user_files) >= USER_FILES:
            _user_files.pop(next(iter(_user_files)))
        _user_files[digest] = records
    return _user_files[digest]


def _user_records(path: str, text: str) -> list:
    """The records of a user's file as the parent read it: the file itself where it is the same, else the
    text written to a private folder under the file's own name (a worker on another machine)."""
    digest = hashlib.sha256(text.encode()).hexdigest()
    if digest not in _user_files:
        here = Path(path)
        try:
            same = here.is_file() and read_source(here) == text
        except (OSError, InputError):
            same = False
        if not same:
            import tempfile

            here = Path(tempfile.mkdtemp(prefix="verify-check-")) / here.name
            write_source(here, text)
        return _remember(digest, load_user_theorems(str(here)))
    return _user_files[digest]


def check_file(path: str, records: list, effort, seed: int = 0, workers: int = 1,
               progress: Callable[[str], None] | None = None, scheduler: str | None = None,
               split: bool = False, blocks: str = "auto", seconds: float | None = None) -> list[Verdict]:
    """``verify check``: the theorems ``records`` of the user's file ``path``, like
    :func:`check_registered`; the verdicts come back in the order of ``records``.  ``seconds``: the longest
    one job of a theorem may run (its check, or one block of its search; ``None``: no limit); past it,
    ``InputError`` names the theorem."""
    text = read_source(path)
    # this process (and a worker forked from it) uses the records already loaded: the file runs once
    _remember(hashlib.sha256(text.encode()).hexdigest(), list(records))
    try:
        return _in_units((path, text, seconds), list(records), effort, seed, workers, progress, scheduler, split,
                         blocks)
    except TimedOut as exc:
        raise InputError(f"{path}: checking {', '.join(map(str, exc.args))} took more than {seconds:g} s (does "
                         f"its bound sleep or loop? --timeout sets the limit)", "--timeout") from None


__all__ = ["After", "Execution", "JobsStuck", "PRELOAD", "TimedOut", "check_file", "check_registered",
           "code_fingerprint", "default_workers", "execution", "map_jobs", "start_method"]
