"""The two kinds of failure the tool tells apart.

* :class:`InputError` — the user's input is wrong (a parameter out of its domain, an assumption of a
  theorem that fails, an unknown id).  It *is* a ``ValueError`` (the Python interface promises
  ``ValueError`` for bad input) and carries the name of the parameter at fault, so the command line can
  say it on one line and exit with status 2.
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


__all__ = ["InputError"]
