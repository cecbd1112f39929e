"""Cached results for ``verify report``: an unchanged theorem is not checked again.

A theorem's result (its verdict, section, figures and formulas) is stored as JSON under a key made of

* the record: ``repr`` of the frozen :class:`~verify.theorem.Theorem` (bound, assumptions, claims, errata,
  examples, variants: everything that decides its checks), and the records it names (a claim against
  another theorem, its composition baseline), whose change changes its section;
* the code version: a hash of the machinery's sources (``verify/**/*.py``, except the command line and the
  modules that only lay results out, :data:`LAYOUT_ONLY`) and of the registry's non-record data
  (``theorems/tables.py``: printed tables, figure parameters, composition baselines;
  ``theorems/__init__.py``); editing one theorem module re-checks the records that changed, not all;
* the profile and the seed.

Reading back gives the same bytes of ``report.json`` as a cold run (tested): the verdict travels through
``Verdict.to_json``/``from_json``, which round-trip.  The papers' tables and figures and the mutation
self-test are cached the same way, keyed by every record they read.  Entries are written atomically
(a temporary file renamed into place); an unreadable entry is a miss, never an error.

Shared with ``verify run`` (the same folder by default): each theorem's *verdict* is an entry of its own
(:func:`verdict_key`: the record and the records it names, not the ones only its section draws), and so is
the mutation self-test over the selected theorems (:func:`mutation_key`: their verdicts' keys).  ``verify run``
reads and writes both; ``verify report`` reads them for a theorem whose whole result is not cached (it then
only draws the section: the checks are not run again) and writes them for the checks it runs.
"""

from __future__ import annotations

import functools
import hashlib
import re
import sys
from pathlib import Path
from typing import Callable, Iterable

from verify.cache import ResultCache, digest_sources
from verify.theorem import Theorem

#: default cache folder, relative to the current directory (never outside it)
DEFAULT_CACHE = ".verify-cache/report"
#: bump when the layout of a cached entry changes
FORMAT = 2  # 2: self-verifying entries, keyed by the library versions too

_ROOT = Path(__file__).resolve().parents[2]
#: modules that only lay out or store cached results (they compute none): editing them keeps the cache
LAYOUT_ONLY = frozenset({"verify/report/render.py", "verify/report/page.py", "verify/report/frontpage.py",
                         "verify/report/browser.py",
                         "verify/report/incremental.py"})
_ID = re.compile(r"[a-z0-9_.-]+(?:/[A-Za-z0-9_.+-]+)+")


#: the libraries whose versions can change a computed result (an upgrade makes every cached result a miss)
LIBRARIES = ("sympy", "numpy", "scipy", "mpmath", "dp-accounting", "matplotlib", "latex2mathml")


def library_versions() -> str:
    """Python's version and those of :data:`LIBRARIES`, as one line."""
    from importlib import metadata

    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "absent"

    return f"python {sys.version.split()[0]}; " + "; ".join(f"{n} {version(n)}" for n in LIBRARIES)


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """SHA-256 of the machinery's sources, the registry's non-record data (see the module docstring) and the
    versions of Python and of the libraries that compute (:func:`library_versions`)."""
    h = hashlib.sha256(f"format {FORMAT}\0{library_versions()}".encode())
    files = [p for p in sorted((_ROOT / "verify").rglob("*.py")) if p.relative_to(_ROOT).as_posix() not in LAYOUT_ONLY
             and "commands" not in p.relative_to(_ROOT).parts]
    files += [_ROOT / "theorems" / "tables.py", *sorted((_ROOT / "theorems").glob("_*.py"))]  # __init__, helpers
    digest_sources(h, [p for p in files if p.is_file()], _ROOT)
    return h.hexdigest()


def record_text(theorem: Theorem) -> str:
    """The record as text: ``repr`` of the frozen dataclass (deterministic across processes)."""
    return repr(theorem)


def theorem_key(theorem: Theorem, lookup: Callable[[str], Theorem], profile: str, seed: int,
                related: Iterable[str] = ()) -> str:
    """The cache key of one theorem's result: the record, the records it names or is compared with
    (``related``), the code version, the profile and the seed."""
    return _digest("theorem", _record_parts(theorem, lookup, related), profile, seed)


def verdict_key(theorem: Theorem, lookup: Callable[[str], Theorem], profile: str, seed: int) -> str:
    """The cache key of one theorem's verdict (``Verdict.to_json``, what ``verify run`` computes and the report
    shows): the record, the records it names (a claim against another theorem), the code version, the profile
    and the seed."""
    return _digest("verdict", _record_parts(theorem, lookup, ()), profile, seed)


def mutation_key(verdict_keys: Iterable[str], profile: str, seed: int) -> str:
    """The cache key of the mutation self-test over a selection of theorems (its score line, survivors and
    JSON): the keys of their verdicts (:func:`verdict_key`), which are all it reads."""
    return combined_key("mutation", verdict_keys, profile, seed)


def _record_parts(theorem: Theorem, lookup: Callable[[str], Theorem], related: Iterable[str]) -> list[str]:
    """The record's text and that of each record it names or is compared with (``related``)."""
    text = record_text(theorem)
    names = sorted((set(_ID.findall(text)) | set(related)) - {theorem.id})
    parts = [f"theorem {theorem.id}", text]
    for name in names:
        try:
            parts.append(record_text(lookup(name)))
        except KeyError:  # a word shaped like an id that is none (a file path in a note)
            continue
    return parts


def combined_key(kind: str, keys: Iterable[str], profile: str, seed: int, extra: str = "") -> str:
    """The key of a result that reads many records (the reproduction, the mutation self-test)."""
    return _digest(kind, [extra, *sorted(keys)], profile, seed)


def _digest(kind: str, parts: list[str], profile: str, seed: int) -> str:
    h = hashlib.sha256(f"{kind}\0{code_version()}\0{profile}\0{seed}".encode())
    for part in parts:
        h.update(b"\0" + part.encode())
    return h.hexdigest()


__all__ = ["DEFAULT_CACHE", "ResultCache", "code_version", "combined_key", "mutation_key", "record_text", "theorem_key",
           "verdict_key"]
