"""Exit statuses: 2 only for the user's input, 3 for an internal error (one line saying what to report),
130 for an interrupt; write errors on stdout are one line too (``verify list > /dev/full``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from verify import commands
from verify.commands import main

ROOT = Path(__file__).resolve().parents[2]


def _replace_run(monkeypatch, name: str, run) -> None:
    help_text, add, _ = commands.COMMANDS[name]
    monkeypatch.setitem(commands.COMMANDS, name, (help_text, add, run))


@pytest.mark.parametrize("error", [ValueError("a bug"), KeyError("k"), ZeroDivisionError("division by zero"),
                                   RuntimeError("line one\nline two")])
def test_an_internal_error_exits_3_and_says_so(monkeypatch, capsys, error):
    def broken(args):
        raise error

    _replace_run(monkeypatch, "list", broken)
    assert main(["list"]) == 3
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and out == ""
    assert lines[0].startswith(f"verify: internal error: {type(error).__name__}")
    assert "please report this with the command line" in lines[0]


def test_ctrl_c_exits_130_with_one_line(monkeypatch, capsys):
    def interrupted(args):
        raise KeyboardInterrupt

    _replace_run(monkeypatch, "list", interrupted)
    assert main(["list"]) == 130
    assert capsys.readouterr().err.strip().splitlines() == ["verify: interrupted"]


def _verify(*args, stdout=subprocess.PIPE):
    return subprocess.run([sys.executable, "-m", "verify", *args], stdout=stdout, stderr=subprocess.PIPE,
                          text=True, timeout=120, cwd=ROOT)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_verify_list_to_a_full_disk_is_one_line_exit_2():
    with open("/dev/full", "w") as full:  # `verify list > /dev/full`, interpreter exit included
        result = _verify("list", stdout=full)
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines() == ["verify: error: cannot write to standard output: "
                                                  "No space left on device"]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["show", "bok2024/thm4.2", "--json"], ["eval", "bok2024/thm4.1", "n=10", "T=1",
                                  "Delta=1", "sigma=1", "--json"], ["--help"]])
def test_a_full_disk_on_stdout_is_one_line_exit_2(args, monkeypatch, capsys):
    with open("/dev/full", "w") as full:
        monkeypatch.setattr("sys.stdout", full)
        try:
            status = main(args)
        except SystemExit as exc:  # --help
            status = exc.code
    assert status == 2
    assert capsys.readouterr().err.strip().splitlines() == ["verify: error: cannot write to standard output: "
                                                            "No space left on device"]


def test_a_reader_that_closes_early_is_not_an_error(monkeypatch, capsys):
    read, write = os.pipe()
    os.close(read)  # like `verify list | head -0`
    with os.fdopen(write, "w") as pipe:
        monkeypatch.setattr("sys.stdout", pipe)
        assert main(["list"]) == 0
    assert capsys.readouterr().err == ""


def test_list_never_cuts_ids_at_80_columns(capsys, monkeypatch):
    import theorems

    monkeypatch.setenv("COLUMNS", "80")
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    words = set(out.split())
    assert all(t.id in words for t in theorems.all())
