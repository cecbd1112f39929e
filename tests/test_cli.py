"""The `verify` command: list / show / eval, help and version, and one-line errors (exit 2)."""

import json
import subprocess
import sys

import numpy as np
import pytest

import verify
from verify.commands import main


def run(*args):
    return subprocess.run([sys.executable, "-m", "verify", *args], capture_output=True, text=True, timeout=300)


def test_version_and_help(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert verify.__version__ in capsys.readouterr().out
    assert main([]) == 0
    out = capsys.readouterr().out
    for command in ("list", "show", "eval", "run", "check", "report", "audit", "account", "calibrate"):
        assert command in out


def test_list_json_has_at_least_35_sourced_theorems(capsys):
    assert main(["list", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert len(records) >= 35
    ids = [r["id"] for r in records]
    assert len(ids) == len(set(ids))
    for r in records:
        assert r["source"]["paper"] and r["source"]["statement"], r["id"]
        assert any(ch.isdigit() for ch in r["source"]["statement"]), r["id"]


def test_show_json_has_both_forms(capsys):
    assert main(["show", "bok2024/thm4.2", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["id"] == "bok2024/thm4.2"
    assert record["bound"]["latex"] and record["bound"]["text"]
    assert record["assumptions"]
    assert main(["show", "bok2024/thm4.2"]) == 0
    assert "LaTeX" in capsys.readouterr().out


def test_eval_matches_hand_formula(capsys):
    n, Delta, sigma, eta, m, M, T = 1000, 1.0, 1.0, 0.1, 0.5, 1.0, 100
    args = ["eval", "bok2024/thm4.2", f"n={n}", f"Delta={Delta}", f"sigma={sigma}", f"eta={eta}", f"m={m}",
            f"M={M}", f"T={T}", "--json"]
    assert main(args) == 0
    value = json.loads(capsys.readouterr().out)["value"]
    c = max(abs(1 - eta * m), abs(1 - eta * M))
    expected = Delta / (n * sigma) * np.sqrt((1 + c) / (1 - c) * (1 - c**T) / (1 + c**T))
    assert value == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("args,message", [
    (["show", "nope/thm1"], "unknown theorem id"),
    (["eval", "nope/thm1"], "unknown theorem id"),
    (["eval", "bok2024/thm4.2", "n=10"], "missing parameter"),
    (["eval", "bok2024/thm4.2", "n=ten"], "not a number"),
    (["eval", "bok2024/thm4.2", "n=1000", "Delta=1", "sigma=-1", "eta=0.1", "m=0.5", "M=1", "T=10"],
     "sigma must be > 0"),
    (["eval", "bok2024/thm4.2", "n=1000", "Delta=1", "sigma=1", "eta=5", "m=0.5", "M=1", "T=10"],
     "assumption violated"),
    (["frobnicate"], "invalid choice"),
])
def test_bad_input_exits_2_with_one_line(args, message, capsys):
    assert main(args) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert out == "" and len(lines) == 1 and message in lines[0], err


def test_the_module_runs_as_the_command():
    result = run("show", "nope/thm1")
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "unknown theorem id" in result.stderr


def test_eval_outside_assumptions_is_allowed_and_said(capsys):
    args = ["eval", "bok2024/thm4.2", "n=1000", "Delta=1", "sigma=1", "eta=2.5", "m=0.5", "M=1", "T=10",
            "--allow-outside-assumptions", "--json"]
    assert main(args) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["outside_assumptions"]
