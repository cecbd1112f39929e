"""The two kinds of failure the tool tells apart.

* :class:`InputError` — the user's input is wrong (a parameter out of its domain, an assumption of a
  theorem that fails, an unknown id).  It *is* a ``ValueError`` (the Python interface promises
  ``ValueError`` for bad input) and carries the name of the parameter at fault, so the command line can
  say it on one line and exit with status 2.
* :class:`PointRefused` — an exact reference that cannot answer at one point (beyond the range where it is
  exact, or beyond memory).  A search skips such a point and counts it; it is an ``InputError`` too, so a user
  who asks a reference directly gets the same one-line refusal.  An ``InputError`` that is not a refusal,
  raised while a reference computes, is a bug of the reference, never a skipped point.
* everything else is the tool's own fault: the command line reports it as an internal error with its
  own exit status (never as the user's mistake).
"""

from __future__ import annotations


class InputError(ValueError):
    """Bad input, naming the parameter (``parameter``) and where it was given (``where``)."""

    def __init__(self, message: str, parameter: str | None = None, where: str = "") -> None:
        self.parameter = parameter
        self.where = where
        super().__init__(f"{where}: {message}" if where else message)


class PointRefused(InputError):
    """An exact reference refusing one point (outside its range of exactness or of memory), naming the
    parameter that puts the point out of reach."""


__all__ = ["InputError", "PointRefused"]
