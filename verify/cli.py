"""The ``verify`` command (DESIGN.md §8).

Exit status: 0 success / nothing violated; 1 a violation was found; 2 bad input, with one line on
stderr naming the problem.  Each subcommand lives in the module that owns its concern and registers
itself here through a ``(name, help, add_arguments, run)`` entry in :data:`COMMANDS`.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Callable, Sequence

import verify


class UsageError(Exception):
    """Bad input on the command line: exit status 2 and one line on stderr."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2 (argparse's own convention too)
        raise UsageError(message)


# ---------------------------------------------------------------------------------------------------
# list / show / eval  (the theorem registry)
# ---------------------------------------------------------------------------------------------------


def _add_list(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--no-printed", action="store_true", help="hide the 'as printed' variants")


def _run_list(args) -> int:
    import theorems

    records = theorems.all(printed=not args.no_printed)
    if args.json:
        print(json.dumps([_summary(t) for t in records], indent=2))
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{len(records)} theorems")
    for col in ("id", "notion", "kind", "source", "title"):
        table.add_column(col)
    for t in records:
        table.add_row(t.id, t.notion, t.kind + (" (as printed)" if t.is_printed_variant else ""),
                      str(t.source), t.title)
    Console().print(table)
    return 0


def _summary(t) -> dict:
    return {"id": t.id, "title": t.title, "notion": t.notion, "kind": t.kind,
            "source": {"paper": t.source.paper, "statement": t.source.statement, "seed": t.source.seed},
            "printed_of": t.printed_of, "parameters": list(t.parameters)}


def _theorem(theorem_id: str):
    import theorems

    try:
        return theorems.get(theorem_id)
    except KeyError as exc:
        raise UsageError(exc.args[0]) from None


def _add_show(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", help="theorem id, e.g. bok2024/thm4.2")
    p.add_argument("--json", action="store_true", help="machine-readable output")


def _run_show(args) -> int:
    t = _theorem(args.id)
    record = t.to_json()
    if args.json:
        print(json.dumps(record, indent=2))
        return 0
    lines = [
        f"{t.id}: {t.title}",
        f"  source     {t.source}" + (f" ({t.source.seed})" if t.source.seed else ""),
        f"  notion     {t.notion} ({t.kind})" + (f", as printed; corrected in {t.printed_of}"
                                                 if t.printed_of else ""),
        "  setting    " + ", ".join(f"{k}={v}" for k, v in record["setting"].items()),
        f"  bound      {record['bound']['text']}",
        f"  LaTeX      {record['bound']['latex']}",
    ]
    if t.paper_form:
        lines.append(f"  paper      {t.paper_form}")
    if t.free:
        lines.append("  optimised  " + "; ".join(
            f"{f['name']} in [{f['lo']}, {f['hi']}]" + (" (integer)" if f["integer"] else "")
            for f in record["free_parameters"]))
    lines.append(f"  parameters {', '.join(t.parameters)}")
    for a in t.assumptions:
        lines.append(f"  assumes    {a}")
    for c in record["claims"]:
        lines.append(f"  claims     {c['kind']}: {c['text'] or c['value']}")
    for e in t.errata:
        lines.append(f"  erratum    {e.text}" + (f" [variant {e.variant}]" if e.variant else ""))
    for v in t.variants:
        lines.append(f"  variant    {v.id}: {v.title}")
    if t.notes:
        lines.append(f"  notes      {t.notes}")
    print("\n".join(lines))
    return 0


def _add_eval(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", help="theorem id")
    p.add_argument("params", nargs="*", metavar="name=value", help="parameter values")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--allow-outside-assumptions", action="store_true",
                   help="evaluate even where an assumption of the theorem fails (reported in the output)")


def parse_assignments(items: Sequence[str], convert: Callable[[str], object] = float) -> dict[str, object]:
    """``name=value`` words into a dict; UsageError (exit 2) for a malformed, repeated or unconvertible one."""
    values: dict[str, object] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep or not name:
            raise UsageError(f"parameter {item!r} is not of the form name=value")
        if name in values:
            raise UsageError(f"parameter {name} given twice")
        try:
            values[name] = convert(raw)
        except ValueError:
            raise UsageError(f"parameter {name}: {raw!r} is not a number") from None
    return values


def _run_eval(args) -> int:
    t = _theorem(args.id)
    params = parse_assignments(args.params)
    try:
        coerced = t.coerce(params)
        violated = [str(a) for a in t.violated_assumptions(coerced)]
        if violated and not args.allow_outside_assumptions:
            raise UsageError(f"{t.id}: assumption violated: {violated[0]}")
        value = float(t.evaluate(allow_outside_assumptions=True, **params))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if not math.isfinite(value):
        raise UsageError(f"{t.id}: the bound is undefined ({value}) at these parameters"
                         + (f" (outside the assumption {violated[0]})" if violated else ""))
    quantity = {"rdp": "rdp_epsilon", "gdp": "mu", "fdp": "delta", "eps_delta": "eps",
                "utility": "excess_risk"}[t.notion]
    if args.json:
        print(json.dumps({"id": t.id, "notion": t.notion, "kind": t.kind, "quantity": quantity,
                          "value": value, "parameters": params,
                          "outside_assumptions": violated}, indent=2))
    else:
        print(f"{t.id} ({t.notion}, {t.kind}): {quantity} = {value:.10g}")
        for v in violated:
            print(f"warning: evaluated outside the assumption {v}")
    return 0


# ---------------------------------------------------------------------------------------------------
# the table of subcommands
# ---------------------------------------------------------------------------------------------------


def _lazy(module: str, add: str, run: str) -> tuple[Callable, Callable]:
    """A subcommand implemented in ``module`` (imported only when used, to keep start-up fast)."""
    import importlib

    def add_arguments(p: argparse.ArgumentParser) -> None:
        getattr(importlib.import_module(module), add)(p)

    def run_command(args) -> int:
        mod = importlib.import_module(module)
        try:
            return getattr(mod, run)(args)
        except (ValueError, getattr(mod, "CommandError", ValueError)) as exc:
            raise UsageError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None

    return add_arguments, run_command


COMMANDS: dict[str, tuple[str, Callable, Callable]] = {
    "list": ("list the registered theorems", _add_list, _run_list),
    "show": ("show one theorem: both forms of the bound, assumptions, claims, errata", _add_show, _run_show),
    "eval": ("evaluate a theorem's bound at given parameters", _add_eval, _run_eval),
    "run": ("run the verification suite", *_lazy("verify.check.command", "add_run_arguments", "run")),
    "check": ("check the theorems of a user file", *_lazy("verify.check.command", "add_check_arguments", "check")),
    "audit": ("empirical privacy audit by simulation", *_lazy("verify.simulate.command", "add_arguments", "run")),
    "report": ("write a tightness report", *_lazy("verify.report.command", "add_arguments", "run")),
    "account": ("best valid bound for a training run",
                *_lazy("verify.account.command", "add_account_arguments", "run_account")),
    "calibrate": ("smallest noise meeting a privacy target",
                  *_lazy("verify.account.command", "add_calibrate_arguments", "run_calibrate")),
}


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="verify",
                     description="Check privacy theorems of noisy gradient methods against exact references.",
                     epilog="Exit status: 0 success (nothing unexpected violated), 1 a violation was found, "
                            "2 bad input (one line on stderr).")
    parser.add_argument("--version", action="version", version=f"verify {verify.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (help_text, add, _) in COMMANDS.items():
        add(sub.add_parser(name, help=help_text, description=help_text))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 0
        return COMMANDS[args.command][2](args)
    except UsageError as exc:
        print(f"verify: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("verify: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into a reader that closed early (`verify list | head`)
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
