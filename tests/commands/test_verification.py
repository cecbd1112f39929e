"""``verify run`` / ``verify check``: which theorems ``--only`` selects, user files that fail while they run,
baselines made with another profile, and progress when the output is not a terminal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import theorems
from verify.check.suite import select
from verify.commands import main

BASELINE = Path(__file__).resolve().parents[2] / "reports" / "baseline.json"
CHEAP = "baselines/gaussian-mechanism/gdp"


@pytest.mark.parametrize("pattern,expected", [
    ("bok2024/thm4.1", ["bok2024/thm4.1"]),  # not thm4.10
    ("bok2024/thm4.1*", ["bok2024/thm4.1", "bok2024/thm4.10"]),
    ("bok2024/thm4.?", ["bok2024/thm4.1", "bok2024/thm4.2", "bok2024/thm4.3", "bok2024/thm4.4", "bok2024/thm4.5",
                        "bok2024/thm4.6", "bok2024/thm4.8", "bok2024/thm4.9"]),
    ("chourasia2021/thm2", ["chourasia2021/thm2"]),  # an exact id, not its as-printed variant
    ("baselines/gaussian-mechanism", ["baselines/gaussian-mechanism/gdp", "baselines/gaussian-mechanism/rdp",
                                      "baselines/gaussian-mechanism/eps-delta"]),
    ("thm4.1", []),  # no substring matching
])
def test_only_exact_ids_groups_and_globs(pattern, expected):
    assert [t.id for t in select(theorems.all(), pattern)] == expected


@pytest.mark.parametrize("source,line,text", [
    ("x = 1\ny = 1 / 0\n", 2, "ZeroDivisionError"),
    ("import sys\nsys.exit(0)\n", 2, "sys.exit(0)"),
    ("import sys\n\nsys.exit(7)\n", 3, "sys.exit(7)"),
    ("def f():\n    return f()\n\n\nf()\n", 5, "RecursionError"),
    ("raise KeyError('k')\n", 1, "KeyError"),
    ("class E(BaseException):\n    pass\n\nraise E()\n", 4, "E"),
    ("def broken(:\n", 1, "syntax error"),
])
def test_a_user_file_that_fails_while_it_runs_is_exit_2_naming_file_and_line(tmp_path, capsys, source, line,
                                                                            text):
    path = tmp_path / "mine.py"
    path.write_text(source)
    assert main(["check", str(path)]) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and f"mine.py:{line}:" in lines[0] and text in lines[0], err


def test_a_baseline_of_another_profile_or_seed_is_refused_before_the_run(tmp_path, capsys):
    assert main(["run", "--profile", "full", "--only", "bok2024/*", "--baseline", str(BASELINE)]) == 2
    err = capsys.readouterr().err
    assert "--profile quick" in err and "checked" not in err  # refused at once: nothing was checked
    assert main(["run", "--seed", "3", "--only", CHEAP, "--baseline", str(BASELINE)]) == 2
    assert "--seed" in capsys.readouterr().err


def test_run_prints_progress_lines_when_piped_and_writes_json(tmp_path, capsys):
    out = tmp_path / "out.json"
    assert main(["run", "--only", CHEAP, "--workers", "1", "--json", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"verify: checked 1/1: {CHEAP}" in err.splitlines()
    payload = json.loads(out.read_text())
    assert payload["profile"] == "quick" and [t["id"] for t in payload["theorems"]] == [CHEAP]


def test_a_syntax_error_in_a_module_the_file_imports_names_both(tmp_path, capsys, monkeypatch):
    (tmp_path / "helper_of_mine.py").write_text("def f(:\n")
    (tmp_path / "mine.py").write_text("import helper_of_mine\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["check", str(tmp_path / "mine.py")]) == 2
    line = capsys.readouterr().err.strip()
    assert "mine.py:1: in " in line and "helper_of_mine.py:1: syntax error" in line
