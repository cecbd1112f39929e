"""The verification suite as a whole: which theorems (``--only``), user files, the JSON payload of a run,
and the comparison with a baseline (``verify run --baseline``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import fnmatch
import importlib.util
import io
import json
import sys
import tokenize
import traceback
from pathlib import Path
from typing import Callable

import theorems
from verify.check.engine import compare_baseline, summary
from verify.check.limits import TookTooLong, time_limit
from verify.check.verdict import Verdict
from verify.errors import InputError
from verify.theorem import Theorem, theorems_in

_GLOB = set("*?[")


def select(records: list[Theorem], pattern: str | None) -> list[Theorem]:
    """The theorems ``--only pattern`` names: an exact id selects that theorem only (``bok2024/thm4.1`` is
    not ``bok2024/thm4.10``); a pattern with ``*``, ``?`` or ``[`` is a glob; any other word selects the
    ids below it (``bok2024``, ``baselines/noisy-gd``)."""
    if not pattern:
        return list(records)
    if _GLOB & set(pattern):
        return [t for t in records if fnmatch.fnmatchcase(t.id, pattern)]
    exact = [t for t in records if t.id == pattern]
    if exact:
        return exact
    prefix = pattern.rstrip("/") + "/"
    return [t for t in records if t.id.startswith(prefix)]


def select_or_refuse(records: list[Theorem], pattern: str | None) -> list[Theorem]:
    if pattern is not None and not pattern.strip():
        raise InputError("--only: an empty pattern selects nothing (leave --only out for every theorem)", "--only")
    chosen = select(records, pattern)
    if not chosen:
        raise InputError(f"no theorem id matches {pattern!r} (see verify list)", "--only")
    return chosen


# ---------------------------------------------------------------------------------------------------
# user files
# ---------------------------------------------------------------------------------------------------


#: the longest a user's file may take to import (seconds; a file that sleeps or loops there is refused)
IMPORT_SECONDS = 120.0


def load_user_theorems(path: str, seconds: float | None = IMPORT_SECONDS) -> list[Theorem]:
    """Module-level ``Theorem`` records of a user file, which is imported (its code runs).

    Anything the file raises while it runs (any exception, ``sys.exit``, a runaway recursion) is the
    file's problem, not a crash: :class:`InputError` naming the file and the line; so is an import that takes
    more than ``seconds``.
    """
    file = Path(path)
    if not file.is_file():
        raise InputError(f"{path}: no such file", "file")
    spec = importlib.util.spec_from_file_location(f"verify_user_{abs(hash(str(file.resolve())))}", file)
    if spec is None or spec.loader is None:
        raise InputError(f"{path}: not a Python file", "file")
    module = importlib.util.module_from_spec(spec)
    try:
        with time_limit(seconds), contextlib.redirect_stdout(sys.stderr):  # prints never mix with --json
            spec.loader.exec_module(module)
    except KeyboardInterrupt:
        raise
    except TookTooLong:
        raise InputError(f"{path}: importing the file took more than {seconds:g} s (it sleeps or loops at import?)",
                         "file") from None
    except SyntaxError as exc:
        where = f"{exc.lineno}" if exc.filename and Path(exc.filename).resolve() == file.resolve() else \
            f"{_line_in(exc, file)}: in {exc.filename}:{exc.lineno}"
        raise InputError(f"{path}:{where}: syntax error: {exc.msg}", "file") from None
    except BaseException as exc:  # noqa: BLE001 - the user's code: SystemExit and RecursionError included
        raise InputError(f"{path}:{_line_in(exc, file)}: {_describe(exc)}", "file") from None
    found = theorems_in(vars(module))
    if not found:
        raise InputError(f"{path}: no module-level Theorem record found", "file")
    ids = [t.id for t in found]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise InputError(f"{path}: the id {twice[0]!r} names two records (each id names one record)", "file")
    return [dataclasses.replace(t, origin=path) for t in found]


def user_theorem(target: str) -> Theorem:
    """The record ``FILE::ID`` names: the user file is imported (its code runs) and ``ID`` looked up in it."""
    path, _, theorem_id = target.rpartition("::")
    records = {t.id: t for t in load_user_theorems(path)}
    if theorem_id not in records:
        raise InputError(f"{path}: no record with id {theorem_id!r} (it has {', '.join(records)})", "id")
    return records[theorem_id]


def read_source(path: str | Path) -> str:
    """A user's file as text, in the encoding its coding line declares (UTF-8 without one)."""
    try:
        with tokenize.open(path) as handle:
            return handle.read()
    except (SyntaxError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot be read as Python source ({exc})", "file") from None


def write_source(path: Path, text: str) -> None:
    """``text`` (read by :func:`read_source`) written back in the encoding its coding line declares."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(text.encode("utf-8", "surrogateescape")).readline)
    path.write_text(text, encoding=encoding)


def _line_in(exc: BaseException, file: Path) -> str:
    """The line of ``file`` whose execution failed (its first frame on the traceback)."""
    target = str(file.resolve())
    lines = [frame.lineno for frame in traceback.extract_tb(exc.__traceback__)
             if Path(frame.filename).resolve().as_posix() == Path(target).as_posix()]
    return str(lines[0]) if lines else "?"


def _describe(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        return f"the file called sys.exit({exc.code!r}) while being imported"
    message = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def lookup_with(extra: list[Theorem]) -> Callable[[str], Theorem]:
    """A theorem lookup that knows ``extra`` (a user's records) besides the registry."""
    own = {t.id: t for t in extra}

    def lookup(theorem_id: str) -> Theorem:
        if theorem_id in own:
            return own[theorem_id]
        return theorems.get(theorem_id)

    return lookup


# ---------------------------------------------------------------------------------------------------
# the payload of a run and the baseline
# ---------------------------------------------------------------------------------------------------


def run_payload(verdicts: list[Verdict], profile_name: str, seed: int) -> dict:
    """What ``verify run --json`` writes (and a baseline holds)."""
    return {"profile": profile_name, "seed": seed, "summary": summary(verdicts),
            "theorems": [v.to_json() for v in verdicts]}


def read_baseline(path: str, profile_name: str, seed: int) -> dict:
    """A baseline to compare a run with; refused at once when it was made with another profile or seed
    (the verdicts and ratios of different profiles are not comparable)."""
    try:
        baseline = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"--baseline {path}: cannot read: {exc.strerror}", "--baseline") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"--baseline {path}: not JSON ({exc})".splitlines()[0], "--baseline") from None
    if not isinstance(baseline, dict) or not isinstance(baseline.get("theorems"), list):
        raise InputError(f"--baseline {path}: not the output of verify run --json", "--baseline")
    if baseline.get("profile") != profile_name:
        raise InputError(f"--baseline {path} was made with --profile {baseline.get('profile')}, this run uses "
                         f"--profile {profile_name}: compare like with like", "--profile")
    if baseline.get("seed", 0) != seed:
        raise InputError(f"--baseline {path} was made with --seed {baseline.get('seed')}, this run uses "
                         f"--seed {seed}: compare like with like", "--seed")
    return baseline


def baseline_changes(verdicts: list[Verdict], baseline: dict, only: str | None) -> list[str]:
    """Differences from the baseline; with ``only``, theorems outside the selection are not missing."""
    selected = {v.id for v in verdicts}
    kept = [t for t in baseline.get("theorems", []) if not only or t.get("id") in selected]
    return compare_baseline(verdicts, {**baseline, "theorems": kept})


__all__ = ["baseline_changes", "load_user_theorems", "lookup_with", "read_baseline", "run_payload", "select",
           "select_or_refuse"]
