"""Time limits on a user's code: the import of a file, and each job of a theorem that ``verify check`` runs.

In the main thread a POSIX timer (SIGALRM) interrupts the code, a sleep included.  In another thread (a Dask
worker runs its jobs in one) the exception is set on that thread and raised at its next Python instruction: a
Python loop is stopped, a sleep or a long call into C is not.  Code stuck where no exception reaches it is
stopped from outside: ``verify check`` runs a user's jobs in other processes, and the parent, which then sees
no job finish for longer than the limit and its grace, stops them (:meth:`verify.check.parallel.Execution.run`).
"""

from __future__ import annotations

import contextlib
import ctypes
import signal
import threading
import time
from typing import Iterator


class TookTooLong(BaseException):
    """Raised in code that ran past its time limit.  A ``BaseException``, like ``KeyboardInterrupt``: no
    ``except Exception`` of the user's code or of a library swallows it."""


def grace(seconds: float) -> float:
    """How long past its limit code may take to stop before it is stopped from outside: a tenth of the limit,
    at least a second."""
    return max(1.0, seconds / 10)


@contextlib.contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise :class:`TookTooLong` in the code inside after ``seconds`` (``None`` or 0: no limit)."""
    if not seconds:
        yield
    elif threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        with _alarm(seconds):
            yield
    else:
        with _asynchronous(seconds):
            yield


@contextlib.contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    def expire(signum, frame):
        raise TookTooLong

    previous = signal.signal(signal.SIGALRM, expire)
    started = time.monotonic()
    outer, _ = signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer:  # a limit around this one: its time keeps running
            signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - started), 1e-3))


def _set_async_exc(thread: int, exception: type[BaseException] | None) -> None:
    """Raise ``exception`` in ``thread`` at its next Python instruction (``None``: forget one set, not raised yet)."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread),
                                               None if exception is None else ctypes.py_object(exception))


@contextlib.contextmanager
def _asynchronous(seconds: float) -> Iterator[None]:
    target = threading.get_ident()
    lock = threading.Lock()
    armed, fired = [True], [False]

    def expire() -> None:
        with lock:
            if armed[0]:
                _set_async_exc(target, TookTooLong)
                fired[0] = True

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        with lock:
            armed[0] = False
            timer.cancel()
            if fired[0]:  # set as the code finished: not to be raised in the caller's code
                _set_async_exc(target, None)


__all__ = ["TookTooLong", "grace", "time_limit"]
