"""One behaviour for every registry of named records (families, notions, numeric operators, theorems).

A :class:`Registry` is a read-only mapping from names to records, in registration order.  Records enter
through :meth:`Registry.add`, where a name already taken is an error unless ``replace=True`` (a typo must
never shadow a record silently); :meth:`Registry.lookup` refuses an unknown name with an
:class:`~verify.errors.InputError` that names the close matches and the known names.

    >>> kinds = Registry("colour")
    >>> kinds.add("red", 1)
    1
    >>> kinds.lookup("rde")
    Traceback (most recent call last):
    verify.errors.InputError: unknown colour 'rde' (did you mean 'red'?; known: red)
"""

from __future__ import annotations

import difflib
from typing import Generic, Iterator, Mapping, TypeVar

from verify.errors import InputError

R = TypeVar("R")

#: the most known names an error lists (beyond, it gives their number)
LISTED = 40


class Registry(Mapping[str, R], Generic[R]):
    """Named records of one ``kind``; ``parameter`` is the parameter an unknown name is blamed on."""

    def __init__(self, kind: str, parameter: str | None = None) -> None:
        self.kind = kind
        self.parameter = parameter or kind
        self._records: dict[str, R] = {}

    def add(self, name: str, record: R, *, replace: bool = False, where: str = "") -> R:
        """Register ``record`` as ``name`` and return it; a taken name needs ``replace=True``."""
        if not isinstance(name, str) or not name:
            raise InputError(f"a {self.kind} name must be a non-empty string, got {name!r}", "name", where)
        if name in self._records and not replace:
            raise InputError(f"{self.kind} {name!r} is already registered (pass replace=True to swap it)", "name",
                             where)
        self._records[name] = record
        return record

    def remove(self, name: str) -> R | None:
        """Take ``name`` out (a record registered for a while, as in a test); its record, or None."""
        return self._records.pop(name, None)

    def lookup(self, name: object) -> R:
        """The record of ``name``; an :class:`InputError` with close matches and the known names otherwise."""
        try:
            return self._records[name]  # type: ignore[index]
        except (KeyError, TypeError):
            raise InputError(self.unknown(name), self.parameter) from None

    def unknown(self, name: object) -> str:
        """The sentence that refuses ``name``: close matches first, then the known names (their number where
        there are more than :data:`LISTED`)."""
        close = difflib.get_close_matches(name, self._records, n=3) if isinstance(name, str) else []
        hint = f"did you mean {', '.join(map(repr, close))}?; " if close else ""
        known = ", ".join(self._records) if len(self) <= LISTED else f"{len(self)} registered"
        return f"unknown {self.kind} {name!r} ({hint}known: {known})"

    def __getitem__(self, name: str) -> R:
        return self._records[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._records)

    def __len__(self) -> int:
        return len(self._records)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}: {', '.join(self._records)})"


__all__ = ["Registry"]
