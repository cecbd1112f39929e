"""Every command of the README's tour runs and exits 0 (with cheap arguments where the README's are long),
and the file the tour checks is the one the README shows how to write."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from verify.commands import main

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
CHEAP = "baselines/gaussian-mechanism/gdp"


def _tour() -> list[list[str]]:
    block = re.search(r"## A short tour\s+```sh\n(.*?)```", README, re.S).group(1)
    variables: dict[str, str] = {}
    commands = []
    for line in block.splitlines():
        words = shlex.split(line, comments=True)
        if not words:
            continue
        if len(words) == 1 and "=" in words[0]:
            name, _, value = words[0].partition("=")
            variables[name] = value
            continue
        expanded = []
        for w in words:
            expanded += shlex.split(variables[w[1:]]) if w.startswith("$") else [w]
        commands.append(expanded)
    return commands


def _cheap(argv: list[str]) -> list[str]:
    """The README's command with its long parts made short (the same options, smaller numbers)."""
    argv = [str(ROOT / a) if a.startswith("reports/") else a for a in argv]
    command = argv[1]
    if command == "run":
        if "--only" in argv:
            argv[argv.index("--only") + 1] = "bok2024/thm4.1"
        else:
            argv += ["--only", CHEAP]
        argv += ["--workers", "1"]
    elif command == "report":
        argv += ["--only", CHEAP, "--jobs", "1"]
    elif command == "check":
        argv += ["--examples", "3"]
    elif command == "audit":
        if "--runs" in argv:
            argv[argv.index("--runs") + 1] = "2000"
        else:
            argv += ["--runs", "2000"]
    return argv[1:]


TOUR = _tour()


def test_the_tour_has_every_command():
    assert {argv[1] for argv in TOUR} >= {"list", "show", "eval", "run", "check", "report", "audit", "account",
                                           "calibrate"}


@pytest.mark.parametrize("argv", TOUR, ids=[" ".join(a[:3]) for a in TOUR])
def test_every_command_of_the_tour_exits_0(argv, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    if argv[1] == "check":  # the README shows how to write the file the tour checks
        code = re.search(r"Save this as `([^`]+)`.*?```python\n(.*?)```", README, re.S)
        assert code and code.group(1) == argv[2]
        (tmp_path / argv[2]).write_text(code.group(2))
    status = main(_cheap(argv))
    assert status == 0, capsys.readouterr().err
