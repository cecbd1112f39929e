"""The ``verify`` command (DESIGN.md §8): one module per group of subcommands, parsing only.

Exit status: 0 success / nothing violated; 1 a violation was found; 2 the user's input is wrong
(:class:`~verify.errors.InputError`, a usage error, an output that cannot be written), with one line on
stderr naming the problem; 3 an internal error (a bug: one line saying what to report); 130 interrupted.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Callable, Sequence

import verify
from verify.commands import account, audit, registry, report, verification
from verify.commands.options import Parser, UsageError
from verify.errors import InputError

#: name -> (help, add_arguments, run)
COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]] = {
    "list": ("list the registered theorems", registry.add_list_arguments, registry.run_list),
    "show": ("show one theorem: both forms of the bound, assumptions, claims, errata",
             registry.add_show_arguments, registry.run_show),
    "eval": ("evaluate a theorem's bound at given parameters", registry.add_eval_arguments, registry.run_eval),
    "run": ("run the verification suite", verification.add_run_arguments, verification.run),
    "check": (verification.CHECK_HELP, verification.add_check_arguments, verification.check),
    "audit": ("empirical privacy audit by simulation", audit.add_arguments, audit.run),
    "report": ("write a tightness report", report.add_arguments, report.run),
    "account": ("best valid bound for a training run", account.add_account_arguments, account.run_account),
    "calibrate": ("smallest noise meeting a privacy target", account.add_calibrate_arguments,
                  account.run_calibrate),
}

EXIT_USAGE, EXIT_INTERNAL, EXIT_INTERRUPTED = 2, 3, 130


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="verify",
                    description="Check privacy theorems of noisy gradient methods against exact references.",
                    epilog="Exit status: 0 success (nothing unexpected violated), 1 a violation was found, "
                           "2 bad input (one line on stderr), 3 internal error.")
    parser.add_argument("--version", action="version", version=f"verify {verify.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name, (help_text, add, _) in COMMANDS.items():
        add(sub.add_parser(name, help=help_text, description=help_text))
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
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


__all__ = ["COMMANDS", "UsageError", "build_parser", "main"]
