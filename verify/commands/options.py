"""What every subcommand shares: the parser, option types, ``name=value`` words, output and progress.

Input errors are :class:`UsageError` (an :class:`~verify.errors.InputError`): the command line prints
them on one line and exits with status 2.  Output that cannot be written (a full disk, a closed or
unwritable file) is the user's environment, not a bug: :class:`OutputError`, also exit 2.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Callable, Iterator, Sequence

from verify import validate
from verify.errors import InputError


class UsageError(InputError):
    """Bad input on the command line: exit status 2 and one line on stderr."""


class OutputError(InputError):
    """The output could not be written (disk full, permission denied, ...): exit status 2."""


# ---------------------------------------------------------------------------------------------------
# the parser: one line on errors, every option at most once
# ---------------------------------------------------------------------------------------------------


class _Once:
    """Mixin for argparse actions: an option given twice is refused (like a repeated name=value)."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault("_given", set())
        if option_string is not None:
            if self.dest in given:
                raise UsageError(f"option {option_string} given twice", option_string)
            given.add(self.dest)
        super().__call__(parser, namespace, values, option_string)


# argparse's own store actions (private names, stable since Python 3.2) with the check in front
class _StoreOnce(_Once, argparse._StoreAction):
    pass


class _StoreTrueOnce(_Once, argparse._StoreTrueAction):
    pass


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` that raises :class:`UsageError` instead of exiting, refuses repeated options,
    never abbreviates long options (``--m`` and ``--M`` are different keys) and reports write errors."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        self.register("action", None, _StoreOnce)
        self.register("action", "store", _StoreOnce)
        self.register("action", "store_true", _StoreTrueOnce)

    def error(self, message: str):
        raise UsageError(message)

    def _print_message(self, message: str, file=None) -> None:
        if message:
            emit(message, end="", stream=file or sys.stdout)


# ---------------------------------------------------------------------------------------------------
# option types (argparse ``type=``): the option is named by argparse in the error line
# ---------------------------------------------------------------------------------------------------


def _option_type(check: Callable[[str], object]) -> Callable[[str], object]:
    """An argparse ``type=`` from a :mod:`verify.validate` check; argparse names the option in the error."""
    def convert(raw: str):
        try:
            return check(raw)
        except InputError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return convert


positive_float = _option_type(lambda raw: validate.positive("value", raw))
unit_interval = _option_type(lambda raw: validate.probability("value", raw, open_hi=True))  # (0, 1)
half_open_unit = _option_type(lambda raw: validate.probability("value", raw, open_lo=False, open_hi=True))  # [0, 1)
positive_int = _option_type(lambda raw: validate.integer("value", raw, low=1))
seed = _option_type(lambda raw: validate.integer("value", raw, low=0))


def output_path(raw: str) -> str:
    """A file name to write to (not empty)."""
    if not raw.strip():
        raise argparse.ArgumentTypeError("must name a file, got ''")
    return raw


def scheduler_address(raw: str) -> str:
    """A Dask scheduler's address (``tcp://HOST:PORT``, or ``HOST:PORT``): not empty (an empty address would
    make Dask start a cluster of its own), no blanks."""
    if not raw.strip() or any(c.isspace() for c in raw):
        raise argparse.ArgumentTypeError(f"must be an address such as tcp://HOST:PORT, got {raw!r}")
    return raw


def add_seed(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=seed, default=0, help="seed of every random choice (default 0)")


def add_only(p: argparse.ArgumentParser) -> None:
    p.add_argument("--only", metavar="PATTERN",
                   help="only these theorems: an exact id (bok2024/thm4.1), a paper or group "
                        "(bok2024, baselines/noisy-gd), or a glob (e.g. 'bok2024/thm4.*')")


def add_cache(p: argparse.ArgumentParser, what: str, default: str) -> None:
    """``--cache DIR`` / ``--no-cache``: the results cache ``verify run`` and ``verify report`` share
    (:mod:`verify.report.incremental`); ``what`` says what the command reads and stores there."""
    p.add_argument("--cache", metavar="DIR", type=output_path, default=default,
                   help=f"{what} (default {default}, in the current directory; shared by verify run and verify "
                        "report): keyed by the record, the code version, the profile and the seed")
    p.add_argument("--no-cache", action="store_true", help="compute everything, read and write no cache")


def add_execution(p: argparse.ArgumentParser, default: str = "the machine's cores", jobs_alias: bool = False) -> None:
    """``--workers N`` / ``--scheduler ADDRESS`` / ``--connect-timeout``: where the command's jobs run (one
    execution layer on Dask: :mod:`verify.check.parallel`).  ``jobs_alias``: ``--jobs`` is an older name of
    ``--workers``."""
    names = ("--workers", "--jobs") if jobs_alias else ("--workers",)
    p.add_argument(*names, dest="workers", type=positive_int, default=None, metavar="N",
                   help=f"worker processes of a local Dask cluster on 127.0.0.1 (default: {default}; 1: in this "
                        "process); the results do not depend on it")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS", type=scheduler_address,
                   help="run on the existing Dask cluster whose scheduler is at ADDRESS (tcp://HOST:PORT); its "
                        "workers must have the same verify installed")
    p.add_argument("--connect-timeout", type=positive_float, default=10.0, metavar="SECONDS",
                   help="how long to try reaching --scheduler (default 10)")


def execution_of(args: argparse.Namespace, default_workers: int | None = None):
    """The execution (:func:`verify.check.parallel.execution`) the options ask for; ``--workers`` and
    ``--scheduler`` together are refused."""
    from verify.check.parallel import execution

    if args.workers is not None and args.scheduler is not None:
        raise UsageError("give either --workers or --scheduler, not both", "--workers")
    workers = args.workers if args.workers is not None or args.scheduler is not None else default_workers
    return execution(workers, args.scheduler, args.connect_timeout)


# ---------------------------------------------------------------------------------------------------
# name=value words
# ---------------------------------------------------------------------------------------------------


def parse_assignments(items: Sequence[str], convert: Callable[[str], object] = float) -> dict[str, object]:
    """``name=value`` words into a dict; UsageError for a malformed, repeated or unconvertible one."""
    values: dict[str, object] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep or not name:
            raise UsageError(f"parameter {item!r} is not of the form name=value")
        if name in values:
            raise UsageError(f"parameter {name} given twice", name)
        try:
            values[name] = convert(raw)
        except (ValueError, OverflowError):
            raise UsageError(f"parameter {name}: {raw!r} is not a number", name) from None
    return values


def number_or_word(raw: str) -> int | float | str:
    """An int, else a float, else the word itself (instance parameters such as ``loss=logistic``)."""
    for cast in (int, float):
        try:
            return cast(raw)
        except ValueError:
            pass
    return raw


# ---------------------------------------------------------------------------------------------------
# output
# ---------------------------------------------------------------------------------------------------


def emit(text: str, end: str = "\n", stream=None) -> None:
    """Write ``text`` to stdout (or ``stream``) now; a write error becomes :class:`OutputError`."""
    stream = sys.stdout if stream is None else stream
    try:
        stream.write(text + end)
        stream.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        _discard(stream)
        name = "standard output" if stream is sys.stdout else getattr(stream, "name", "output")
        raise OutputError(f"cannot write to {name}: {exc.strerror or exc}") from None


def _discard(stream) -> None:
    """Point a failed stream at /dev/null so that the interpreter's last flush does not fail again."""
    with contextlib.suppress(Exception):
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())


def emit_json(payload) -> None:
    emit(json.dumps(payload, indent=2, default=float))


def check_writable(path: str, option: str) -> None:
    """Fail now (before a long run) when ``path`` cannot be written as :func:`write_json` will write it (a name
    the system refuses, too long or with a NUL byte, included)."""
    try:
        _writable(path, option)
    except UsageError:
        raise
    except (OSError, ValueError) as exc:
        raise UsageError(f"{option} {path[:60]!r}: cannot be written: {getattr(exc, 'strerror', None) or exc}",
                         option) from None


def _writable(path: str, option: str) -> None:
    if "\0" in path:
        raise UsageError(f"{option} {path[:60]!r}: a file name cannot hold a NUL byte", option)
    target = Path(path)
    if target.is_dir():
        raise UsageError(f"{option} {path}: is a directory", option)
    if target.exists() and not stat.S_ISREG(target.stat().st_mode):
        if not os.access(target, os.W_OK):
            raise UsageError(f"{option} {path}: not writable", option)
        return
    directory = target.parent
    if not directory.is_dir():
        raise UsageError(f"{option} {path}: directory {directory} does not exist", option)
    if target.exists() and not os.access(target, os.W_OK):
        raise UsageError(f"{option} {path}: not writable", option)
    try:  # permissions alone do not tell (root, read-only mounts): try it
        fd, probe = tempfile.mkstemp(dir=directory, prefix=".verify-probe-")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot write in {directory}: {exc.strerror}", option) from None


def write_json(path: str, payload, option: str = "--json") -> None:
    """Write ``payload`` to ``path``: atomically (temporary file, then rename) for a regular file; directly
    for a symbolic link (through it), a device, pipe or other special file, which must never be replaced by a
    regular file."""
    text = json.dumps(payload, indent=2, sort_keys=True) + "\n"
    target = Path(path)
    try:
        # a link is written through (its target gets the JSON, the link stays), as is a special file
        if target.is_symlink() or (target.exists() and not stat.S_ISREG(target.stat().st_mode)):
            with open(target, "w", encoding="utf-8") as handle:
                handle.write(text)
            return
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".verify-", suffix=".json")
    except OSError as exc:
        raise OutputError(f"{option} {path}: cannot write: {exc.strerror or exc}", option) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(tmp, _mode_for(target))  # mkstemp makes it private
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise OutputError(f"{option} {path}: cannot write: {exc.strerror or exc}", option) from None


def _mode_for(target: Path) -> int:
    """The mode a plain ``open(target, "w")`` would leave: the old file's, else 0o666 less the umask."""
    if target.exists():
        return stat.S_IMODE(target.stat().st_mode)
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


# ---------------------------------------------------------------------------------------------------
# progress on stderr: a bar on a terminal, plain lines otherwise
# ---------------------------------------------------------------------------------------------------


@contextlib.contextmanager
def progress(total: int, what: str) -> Iterator[Callable[[str], None]]:
    """``step(name)`` once per finished item: a transient bar on a terminal, else one plain line per item
    on stderr (a piped or redirected run is not silent for minutes)."""
    if sys.stderr.isatty():
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=Console(stderr=True), transient=True) as bar:
            task = bar.add_task(what, total=total)
            yield lambda name: bar.update(task, advance=1, description=f"{what}: {name}")
        return
    done = 0

    def step(name: str) -> None:
        nonlocal done
        done += 1
        with contextlib.suppress(OSError):  # progress is a courtesy: never fail a run over it
            print(f"verify: {what} {done}/{total}: {name}", file=sys.stderr, flush=True)

    yield step


def console():
    """A rich console on stdout; 160 columns when stdout is not a terminal (rich would fold to 80)."""
    from rich.console import Console

    out = Console()
    return out if out.is_terminal else Console(width=160)


def print_rich(renderable) -> None:
    """Print through rich, with write errors reported like :func:`emit`'s."""
    out = console()
    with out.capture() as captured:
        out.print(renderable)
    emit(captured.get(), end="")


__all__ = ["OutputError", "Parser", "UsageError", "add_execution", "add_only", "add_seed", "check_writable", "console",
           "emit", "emit_json", "execution_of", "half_open_unit", "number_or_word", "output_path", "parse_assignments",
           "positive_float", "positive_int", "print_rich", "progress", "scheduler_address", "seed", "unit_interval",
           "write_json"]
