"""Bad command lines: exit status 2, exactly one line on stderr naming the problem, nothing on stdout, no
file written.  One row per defect once found (and the usual suspects), in the spirit of hypothesis' own
invalid-argument tables."""

from __future__ import annotations

import pytest

from verify.commands import main

CHEAP = "baselines/gaussian-mechanism/gdp"
RUN_ARGS = ["--n", "10", "--T", "1"]

BAD = [
    # (argv, text the one line must contain)
    (["frobnicate"], "invalid choice"),
    (["list", "--json", "--json"], "--json given twice"),
    (["show"], "required"),
    (["show", "nope/thm1"], "unknown theorem id"),
    (["eval", "bok2024/thm4.2", "n=1", "n=2"], "n given twice"),
    (["eval", "bok2024/thm4.2", "n"], "name=value"),
    (["eval", "bok2024/thm4.2", "=3"], "name=value"),
    (["eval", "bok2024/thm4.2", "n=1e999999"], "n"),
    (["eval", "bok2024/thm4.2", "n=nan", "Delta=1", "sigma=1", "eta=0.1", "m=0.5", "M=1", "T=10"], "n"),
    (["run", "--json", ""], "--json"),
    (["run", "--json", "   "], "--json"),
    (["run", "--only", "zzz-none"], "no theorem id matches"),
    (["run", "--only", "bok2024/thm4.1", "--only", "bok2024/thm4.2"], "--only given twice"),
    (["run", "--workers", "0"], "--workers"),
    (["run", "--workers", "two"], "--workers"),
    (["run", "--seed", "-1"], "--seed"),
    (["run", "--profile", "slow"], "--profile"),
    (["run", "--only", CHEAP, "--json", "/no/such/folder/out.json"], "does not exist"),
    (["run", "--only", CHEAP, "--baseline", "/no/such/baseline.json"], "cannot read"),
    (["check", "/no/such/file.py"], "no such file"),
    (["check", "x.py", "--examples", "0"], "--examples"),
    (["report", "--out", ""], "--out"),
    (["report", "--jobs", "0"], "--jobs"),
    (["report", "--only", CHEAP, "--write-baseline", ""], "--write-baseline"),
    (["audit", "logistic_ball", "--runs", "0"], "--runs"),
    (["audit", "logistic_ball", "--runs", "10", "--runs", "20"], "--runs given twice"),
    (["audit", "logistic_ball", "--steps", "-2"], "--steps"),
    (["audit", "logistic_ball", "--confidence", "nan"], "--confidence"),
    (["audit", "logistic_ball", "--delta", "1"], "--delta"),
    (["audit", "logistic_ball", "--delta", "x"], "--delta"),
    (["audit", "logistic_ball", "--scheduler", "tcp://127.0.0.1:9", "--connect-timeout", "nan"],
     "--connect-timeout"),
    (["audit", "logistic_ball", "--scheduler", "tcp://127.0.0.1:9", "--connect-timeout", "-1"],
     "--connect-timeout"),
    (["audit", "logistic_ball", "--scheduler", "tcp://127.0.0.1:9", "--connect-timeout", "inf"],
     "--connect-timeout"),
    (["audit", "logistic_ball", "--workers", "2", "--scheduler", "tcp://127.0.0.1:9"], "not both"),
    (["audit", "logistic_ball", "T=1000000000000", "--runs", "100"], "T: the simulation needs"),
    (["audit", "logistic_ball", "--runs", str(10 ** 12)], "runs: the simulation needs"),
    (["audit", "logistic_ball", "T=10000000", "--runs", "100000"], "T: the simulation would run"),
    (["audit", "logistic_ball", "n=1", "n=2"], "n given twice"),
    (["account", *RUN_ARGS, "--sigma", "0.01", "--sigma", "0.02"], "--sigma given twice"),
    (["account", *RUN_ARGS, "--sigma", "1", "--delta", "2"], "delta"),
    (["account", *RUN_ARGS, "--sigma", "1", "--orders", "a,b"], "--orders"),
    (["calibrate", *RUN_ARGS, "--Delta", "1", "--eps", "1", "--eps", "2", "--delta", "1e-5"], "--eps given twice"),
]


@pytest.mark.parametrize("argv,message", BAD, ids=lambda a: " ".join(a) if isinstance(a, list) else None)
def test_bad_invocation_exits_2_with_one_line(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("verify: error: "), err
    assert message in lines[0], err
    assert list(tmp_path.iterdir()) == []  # nothing written
