"""The one least-recently-used cache bounded in bytes: memory bounded by construction.

Every process-wide cache of exact references uses :class:`BoundedCache`: the composed PLDs of
:mod:`verify.privacy.pld`, the shared exact profiles of :mod:`verify.instances.instance` and the built
instances of :mod:`verify.check.references`.  A value's size is measured by :func:`nbytes_of` (the numpy
arrays and large containers it reaches, each counted once), so no caller states sizes by hand; a value
that grows after it was stored (a profile's sorted view, made on first query) is measured again.  Beyond
its budget the least recently used entries are dropped; a value larger than the whole budget is returned
but not kept.  The counts (hits, misses, evictions, too large) are for benchmarks.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import tempfile
import types
from collections import OrderedDict
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Hashable, Iterable, TypeVar

import numpy as np

from verify.errors import InputError
from verify.validate import integer

V = TypeVar("V")

__all__ = ["BoundedCache", "ResultCache", "nbytes_of", "digest_sources"]


def nbytes_of(value: Any, _seen: set[int] | None = None, _depth: int = 0) -> int:
    """An estimate of the memory ``value`` holds: the bytes of the numpy arrays (and of the large
    containers) reachable through its attributes and the variables its closures captured, each counted
    once; code, modules, classes and bound methods are not followed.  The walk stops at depth 8.

    Scalars and strings count nothing (part of their holder's overhead) and are not visited: most of a
    profile's fields are, and the walk is run at every store.  The kind of a value is decided once per
    type (:func:`_kind_of`)."""
    if value is None or _depth > 8:
        return 0
    seen = set() if _seen is None else _seen
    key = id(value)
    if key in seen:
        return 0
    kind = _KINDS.get(type(value)) or _kind_of(type(value))
    if kind is _LEAF or kind is _CODE:
        return 0
    seen.add(key)
    depth = _depth + 1
    if kind is _ARRAY:
        owner = value.base
        return nbytes_of(owner, seen, depth) if isinstance(owner, np.ndarray) else int(value.nbytes)
    if kind is _FUNCTION:  # what a closure captured (not its globals or code)
        return _walk([_cell(c) for c in value.__closure__ or ()], seen, depth)
    if kind is _MAPPING:
        if len(value) > 64:  # a sparse PMF: ~100 bytes an entry (key, float, hash slot), not walked
            return 100 * len(value)
        return 64 * len(value) + _walk(list(value.values()), seen, depth)
    if kind is _SEQUENCE:
        if len(value) > 64:
            return 32 * len(value) + _walk(list(value)[:64], seen, depth) * len(value) // 64
        return 8 * len(value) + _walk(value, seen, depth)
    fields = getattr(value, "__dict__", None)
    total = 64 + (_walk(list(fields.values()), seen, depth) if fields else 0)
    for name in _slots(type(value)):
        if (fields is None or name not in fields) and hasattr(value, name):
            total += _walk((getattr(value, name),), seen, depth)
    return total


def _walk(values: Iterable[Any], seen: set[int], depth: int) -> int:
    """The sum of :func:`nbytes_of` over ``values``, without a call for the scalars that make most of them."""
    total, kinds = 0, _KINDS
    for value in values:
        if value is not None and kinds.get(type(value)) is not _LEAF:
            total += nbytes_of(value, seen, depth)
    return total


_LEAF, _CODE, _ARRAY, _FUNCTION, _MAPPING, _SEQUENCE, _OBJECT = (
    "leaf", "code", "array", "function", "mapping", "sequence", "object")
_KINDS: dict[type, str] = {}
_SLOTS: dict[type, tuple[str, ...]] = {}
_TYPES_KEPT = 4096


def _kind_of(kind: type) -> str:
    """How :func:`nbytes_of` measures the values of type ``kind`` (decided once per type)."""
    if issubclass(kind, (type, types.ModuleType, types.MethodType, types.BuiltinFunctionType,
                         functools.partial)):
        out = _CODE
    elif issubclass(kind, np.ndarray):
        out = _ARRAY
    elif issubclass(kind, (int, float, complex, str, bytes, np.generic)):
        out = _LEAF
    elif issubclass(kind, types.FunctionType):
        out = _FUNCTION
    elif issubclass(kind, (dict, MappingProxyType)):
        out = _MAPPING
    elif issubclass(kind, (list, tuple, set, frozenset)):
        out = _SEQUENCE
    else:
        out = _OBJECT
    if len(_KINDS) >= _TYPES_KEPT:  # types made on the fly (a class per call) must not pile up
        _KINDS.clear()
        _SLOTS.clear()
    _KINDS[kind] = out
    return out


def _slots(kind: type) -> tuple[str, ...]:
    """The names of the ``__slots__`` of ``kind`` and its bases (each once, the first class first)."""
    names = _SLOTS.get(kind)
    if names is None:
        found: dict[str, None] = {}
        for klass in kind.__mro__:
            slots = getattr(klass, "__slots__", ())
            for name in (slots,) if isinstance(slots, str) else slots:
                found.setdefault(name, None)
        names = _SLOTS[kind] = tuple(found)
    return names


def _cell(cell) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return None


class BoundedCache:
    """Values by key, least recently used first out, bounded in bytes (:func:`nbytes_of`).

    Beyond ``budget`` the least recently used entries are dropped, and a value larger than the whole
    budget is not kept.  A value may grow lazily after it is stored (a profile's sorted view or
    composed PLD made on first query): with ``remeasure`` the entry used last is measured again at the
    next call, so only that one entry can exceed its measured size, and then by its own growth (without
    it, values are measured once, when stored: for values that do not grow).  Values are what
    ``compute`` returns, so a hit gives byte-identical results.
    """

    def __init__(self, budget: int, remeasure: bool = True) -> None:
        self.budget = integer("budget", budget, "BoundedCache", low=0)
        self.remeasure = bool(remeasure)
        self._entries: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self.bytes = 0
        self.hits = self.misses = self.evictions = self.too_large = 0
        self._last: Hashable | None = None

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._entries

    def get(self, key: Hashable, compute: Callable[[], V]) -> V:
        """The value kept under ``key``, else ``compute()`` (kept when it fits the budget).  An exception
        of ``compute`` propagates and nothing is kept."""
        self._remeasure_last()
        entry = self._entries.get(key)
        if entry is not None:
            self.hits += 1
            self._entries.move_to_end(key)
            self._last = key
            return entry[0]
        self.misses += 1
        value = compute()
        self.put(key, value)
        return value

    def put(self, key: Hashable, value: Any) -> None:
        """Keep ``value`` under ``key`` (replacing and re-measuring an earlier value), as most recent."""
        self._remeasure_last()
        before = self._entries.pop(key)[1] if key in self._entries else 0
        self.bytes -= before
        if self.budget > 0:
            self._store(key, value, 0)
            self._last = key if key in self._entries else None

    def _remeasure_last(self) -> None:
        last = self._entries.get(self._last) if self.remeasure and self._last is not None else None
        if last is not None:  # it may have grown since it was used
            self._store(self._last, last[0], last[1], touch=False)

    def _store(self, key: Hashable, value: Any, before: int, touch: bool = True) -> None:
        size = nbytes_of(value)
        self.bytes += size - before
        self._entries[key] = (value, size)
        if touch:
            self._entries.move_to_end(key)
        if size > self.budget:
            self.too_large += 1
            del self._entries[key]
            self.bytes -= size
            if self._last == key:
                self._last = None
            return
        while self.bytes > self.budget:
            dropped_key, (_, dropped) = self._entries.popitem(last=False)
            self.bytes -= dropped
            self.evictions += 1
            if self._last == dropped_key:
                self._last = None

    def clear(self, budget: int | None = None) -> None:
        """Forget every entry and the counts (and set a new ``budget`` in bytes; 0 keeps nothing)."""
        self._entries.clear()
        self.bytes = self.hits = self.misses = self.evictions = self.too_large = 0
        self._last = None
        if budget is not None:
            self.budget = integer("budget", budget, "BoundedCache", low=0)

    def stats(self) -> dict[str, int]:
        return {"entries": len(self._entries), "bytes": self.bytes, "budget": self.budget, "hits": self.hits,
                "misses": self.misses, "evictions": self.evictions, "too_large": self.too_large}


def digest_sources(digest, paths: Iterable[Path], root: Path) -> None:
    """Feed ``digest`` (a hashlib object) each file's path relative to ``root`` and its bytes: the key by
    which cached results (the report's cache) and cluster workers (``--scheduler``) tell code versions
    apart.  A file removed while it is read contributes its name only (the code differs anyway)."""
    for path in paths:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        with contextlib.suppress(OSError):
            digest.update(path.read_bytes())
        digest.update(b"\0")


def _entry_digest(key: str, value: Any) -> str:
    """SHA-256 of a cache entry's key and its content (canonical JSON): what makes an entry self-verifying."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=True)
    return hashlib.sha256(f"{key}\0{text}".encode()).hexdigest()


class ResultCache:
    """A folder of JSON entries by key (``KEY.json``), counting hits and misses."""

    def __init__(self, folder: str | os.PathLike) -> None:
        self.folder = Path(folder)
        self.hits = 0
        self.misses = 0

    @classmethod
    def open(cls, folder: str | os.PathLike) -> "ResultCache":
        """The cache in ``folder``, created when missing; ``InputError`` (naming ``--cache``) when it
        cannot be made or written."""
        path = Path(folder)
        if path.exists() and not path.is_dir():
            raise InputError(f"--cache {folder}: exists and is not a directory", "--cache")
        try:
            path.mkdir(parents=True, exist_ok=True)
            os.rmdir(tempfile.mkdtemp(dir=path, prefix=".probe-"))
        except OSError as exc:
            raise InputError(f"--cache {folder}: cannot write: {exc.strerror}", "--cache") from None
        return cls(path)

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def get(self, key: str, counted: bool = True) -> Any | None:
        """The value stored under ``key``, or None (a miss): an entry that cannot be read, is not of the shape
        :meth:`put` writes, or whose digest does not match its content and key (edited by hand, truncated,
        copied under another key) is a miss, never a result.  ``counted=False``: a look-up the caller counts
        itself (not in :attr:`hits` and :attr:`misses`)."""
        try:
            with open(self._path(key), encoding="utf-8") as f:
                entry = json.load(f)
            value = entry["value"]
            ok = (isinstance(entry, dict) and entry.get("key") == key
                  and entry.get("digest") == _entry_digest(key, value))
        except (OSError, ValueError, KeyError, TypeError, RecursionError):
            ok = False
        if not ok:
            self.misses += counted
            return None
        self.hits += counted
        return value

    def put(self, key: str, value: Any) -> None:
        """Store ``value`` (JSON); a failed write leaves the cache as it was (the report does not depend
        on it)."""
        try:
            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".entry-", suffix=".tmp")
            entry = {"key": key, "digest": _entry_digest(key, value), "value": value}
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(entry, f, ensure_ascii=False, separators=(",", ":"))  # key order kept: the page follows it
            os.replace(tmp, self._path(key))
        except OSError:
            try:
                os.unlink(tmp)
            except (OSError, UnboundLocalError):
                pass
