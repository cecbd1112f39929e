"""The shared pieces of the command line: name=value words, JSON files (regular and special), progress."""

from __future__ import annotations

import io
import json
import math
import os
import stat

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.commands import main, options
from verify.commands.options import OutputError, UsageError, check_writable, parse_assignments, write_json


def test_assignments():
    assert parse_assignments(["n=10", "sigma=0.5"]) == {"n": 10.0, "sigma": 0.5}
    assert parse_assignments(["loss=logistic", "n=3"], options.number_or_word) == {"loss": "logistic", "n": 3}
    for bad, text in [(["n=1", "n=2"], "given twice"), (["n"], "name=value"), (["=1"], "name=value"),
                      (["n=x"], "not a number")]:
        with pytest.raises(UsageError, match=text):
            parse_assignments(bad)


def test_json_to_a_regular_file_is_replaced_atomically(tmp_path):
    target = tmp_path / "out.json"
    target.write_text("old")
    write_json(str(target), {"a": 1})
    assert json.loads(target.read_text()) == {"a": 1}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]  # no temporary file left


def test_json_to_a_fifo_writes_into_it_and_keeps_it(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader, so that opening for writing does not block
    try:
        write_json(str(fifo), {"a": 1})
        assert json.loads(os.read(reader, 1 << 16)) == {"a": 1}
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(fifo.stat().st_mode)  # not replaced by a regular file


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_json_to_a_full_device_is_an_output_error_and_the_device_stays():
    with pytest.raises(OutputError, match="No space left"):
        write_json("/dev/full", {"a": 1})
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_writability_is_checked_before_the_work(tmp_path):
    check_writable(str(tmp_path / "new.json"), "--json")
    for path, text in [(tmp_path, "is a directory"), (tmp_path / "no" / "x.json", "does not exist")]:
        with pytest.raises(UsageError, match=text):
            check_writable(str(path), "--json")
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o500)
        with pytest.raises(UsageError, match="--json"):
            check_writable(str(locked / "x.json"), "--json")


def test_progress_is_plain_lines_when_not_a_terminal(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    with options.progress(2, "checked") as step:
        step("a/1")
        step("b/2")
    assert err.getvalue().splitlines() == ["verify: checked 1/2: a/1", "verify: checked 2/2: b/2"]


def test_help_of_check_says_the_file_is_executed(capsys):
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    assert "executed" in capsys.readouterr().out


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=12), max_size=6))
def test_fuzz_name_value_words_parse_or_raise_usage_error(words):
    try:
        values = parse_assignments(words)
    except UsageError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert len(values) == len(words)
    for word in words:
        name, _, raw = word.partition("=")
        expected = float(raw)
        assert values[name] == expected or (math.isnan(values[name]) and math.isnan(expected))
