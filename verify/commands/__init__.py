"""The ``verify`` command (docs/architecture.md): one module per group of subcommands, parsing only.

Exit status: 0 success / nothing violated; 1 a violation was found; 2 the user's input is wrong
(:class:`~verify.errors.InputError`, a usage error, an output that cannot be written), with one line on
stderr naming the problem; 3 an internal error (a bug: one line saying what to report); 130 interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from typing import Callable, Sequence

import verify
from verify.commands.options import Parser, UsageError
from verify.errors import InputError


def _late(module: str, function: str) -> Callable:
    """``verify.commands.<module>.<function>``, imported on the first call: a subcommand's module loads
    sympy, the registry or the check engine, which ``verify --help`` and the other subcommands never need."""

    def call(*args):
        return getattr(importlib.import_module(f"verify.commands.{module}"), function)(*args)

    call.__name__ = call.__qualname__ = function
    return call


#: name -> (help, add_arguments, run); each subcommand's module is imported only when that subcommand runs
COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]] = {
    "list": ("list the registered theorems", _late("registry", "add_list_arguments"), _late("registry", "run_list")),
    "show": ("show one theorem: both forms of the bound, assumptions, claims, errata",
             _late("registry", "add_show_arguments"), _late("registry", "run_show")),
    "eval": ("evaluate a theorem's bound at given parameters", _late("registry", "add_eval_arguments"),
             _late("registry", "run_eval")),
    "run": ("run the verification suite", _late("verification", "add_run_arguments"), _late("verification", "run")),
    "check": ("check the theorems of a user file; the file is imported, i.e. its code is executed "
              "(check only files you trust)",
              _late("verification", "add_check_arguments"), _late("verification", "check")),
    "audit": ("empirical privacy audit by simulation", _late("audit", "add_arguments"), _late("audit", "run")),
    "report": ("write a tightness report", _late("report", "add_arguments"), _late("report", "run")),
    "account": ("best valid bound for a training run", _late("account", "add_account_arguments"),
                _late("account", "run_account")),
    "calibrate": ("smallest noise meeting a privacy target", _late("account", "add_calibrate_arguments"),
                  _late("account", "run_calibrate")),
}

EXIT_USAGE, EXIT_INTERNAL, EXIT_INTERRUPTED = 2, 3, 130


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``command``, only that subcommand's arguments are added (its module imported)."""
    parser = Parser(prog="verify",
                    description="Check privacy theorems of noisy gradient methods against exact references.",
                    epilog="Exit status: 0 success (nothing unexpected violated), 1 a violation was found, "
                           "2 bad input (one line on stderr), 3 internal error.")
    parser.add_argument("--version", action="version", version=f"verify {verify.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name, (help_text, add, _) in COMMANDS.items():
        subparser = sub.add_parser(name, help=help_text, description=help_text)
        if command is None or command == name:
            add(subparser)
    return parser


def _say(line: str) -> None:
    """One line on stderr (if stderr itself cannot be written, there is no one left to tell)."""
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def _one_line(text: str) -> str:
    lines = [line for line in str(text).splitlines() if line.strip()]
    return lines[0] if lines else ""


def _command_in(argv: Sequence[str]) -> str:
    """The subcommand's name: the first word that is not an option (the top level has no valued options)."""
    return next((word for word in argv if not word.startswith("-")), "")


def entry() -> None:
    """The ``verify`` program: :func:`main`, then exit.  After a Ctrl-C the worker pool is already
    stopped and temporary files removed (by the commands' own ``finally`` blocks): the process ends at
    once, skipping atexit handlers (the interpreter's finalisation of the registry's objects alone takes a
    second or more on a loaded machine, and it could wait on a pool helper thread), so that Ctrl-C always
    stops the command within 2 s."""
    code = main()
    if code == EXIT_INTERRUPTED:
        _exit_now(code)
    sys.exit(code)


def _exit_now(code: int) -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        parser = build_parser(_command_in(argv))
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 0
        return COMMANDS[args.command][2](args)
    except InputError as exc:  # UsageError and OutputError included
        _say(f"verify: error: {_one_line(exc) or type(exc).__name__}")
        return EXIT_USAGE
    except KeyboardInterrupt:
        _say("verify: interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # output piped into a reader that closed early (`verify list | head`)
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return 0
    except Exception as exc:  # noqa: BLE001 - a bug: say so, never pass it off as the user's mistake
        message = _one_line(exc)
        _say(f"verify: internal error: {type(exc).__name__}" + (f": {message}" if message else "")
             + " (please report this with the command line)")
        return EXIT_INTERNAL


__all__ = ["COMMANDS", "UsageError", "build_parser", "entry", "main"]
