"""A hypothesis fuzz of the command line (subcommands x arguments, in-process calls of ``main``): no
traceback, no internal error, one line on stderr for exit 2, no NaN or inf printed as a result, and no
exit 0 on nonsense.  Costly subcommands always get at least one nonsense argument, so that they stop at
validation and the fuzz stays fast."""

from __future__ import annotations

import json
import math
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pytest

import theorems
from verify.commands import main

CLOSED_FORM = sorted(t.id for t in theorems.all() if not t.operators and not t.free)
NUMBERS = ["1", "0.5", "2", "10", "100", "1000", "1e-3", "3"]
NONSENSE_VALUES = ["-1", "0", "nan", "inf", "-inf", "1e999", "x", "", "1,5", "0x", "--", "NaN", "1e-400j"]
OPTIONS = {
    "run": ["--profile", "--only", "--json", "--seed", "--baseline", "--workers"],
    "check": ["--examples", "--seed", "--profile"],
    "report": ["--out", "--profile", "--seed", "--only", "--jobs", "--write-baseline"],
    "audit": ["--runs", "--steps", "--backend", "--device", "--seed", "--confidence", "--delta", "--workers",
              "--connect-timeout"],
    "account": ["--n", "--b", "--T", "--sigma", "--eta", "--Delta", "--delta", "--orders", "--batches"],
    "calibrate": ["--n", "--b", "--T", "--eta", "--Delta", "--eps", "--delta", "--mu", "--rtol"],
}
# nonsense that each costly subcommand must refuse before doing any work
POISON = {
    "run": [["--workers", "0"], ["--seed", "-1"], ["--only", "no-such-theorem"], ["--json", ""],
            ["--profile", "slow"], ["--workers", "1", "--workers", "1"]],
    "check": [["/no/such/file.py"], ["x.py", "--examples", "0"], ["x.py", "--seed", "nan"]],
    "report": [["--jobs", "0"], ["--out", ""], ["--only", "no-such-theorem"], ["--seed", "-5"]],
    "audit": [["logistic_ball", "--runs", "0"], ["no_such_instance"], ["logistic_ball", "--confidence", "1"],
              ["logistic_ball", "T=1e12"], ["nobody/thm1"], ["logistic_ball", "--runs", str(10 ** 13)]],
    "account": [["--sigma", "x"], ["--n", "10", "--n", "10"], ["--delta", "2"], ["--colour", "3"]],
    "calibrate": [["--eps", "nan"], ["--rtol", "2"], ["--mu", "-1"], ["--eps", "1", "--eps", "1"]],
}

value = st.sampled_from(NUMBERS + NONSENSE_VALUES)
name = st.sampled_from(["n", "b", "T", "eta", "sigma", "Delta", "m", "M", "L", "D", "d", "q", "alpha", "eps",
                        "delta", "mu", "E", "z", "Cclip", "colour", ""])
assignment = st.builds(lambda n, v: f"{n}={v}", name, value)
word = st.one_of(assignment, st.sampled_from(["--json", "--no-printed", "--allow-outside-assumptions", "-x",
                                              "--", "=", "a=b=c"]), st.text(max_size=6))


#: values no parameter admits: an eval given one must not exit 0
GARBAGE = ["nan", "NaN", "x", "", "1,5", "0x", "1e-400j", "--"]


@st.composite
def full_eval(draw):
    """An eval with every parameter of a closed-form theorem, sometimes one of them garbage."""
    theorem = theorems.get(draw(st.sampled_from(CLOSED_FORM)))
    values = {p: draw(st.sampled_from(NUMBERS)) for p in theorem.parameters}
    if values and draw(st.booleans()):
        values[draw(st.sampled_from(sorted(values)))] = draw(st.sampled_from(GARBAGE))
    extra = ["--json"] if draw(st.booleans()) else []
    return ["eval", theorem.id, *[f"{k}={v}" for k, v in values.items()], *extra]


@st.composite
def cheap(draw):
    if draw(st.integers(0, 2)) == 0:
        return draw(full_eval())
    command = draw(st.sampled_from(["list", "show", "eval", "frobnicate", ""]))
    argv = [command] if command else []
    if command in ("show", "eval"):
        argv.append(draw(st.sampled_from(CLOSED_FORM + ["nope/thm", "", "bok2024"])))
    argv += draw(st.lists(word, max_size=8))
    return argv


@st.composite
def costly(draw):
    command = draw(st.sampled_from(sorted(POISON)))
    options = draw(st.lists(st.tuples(st.sampled_from(OPTIONS[command]), value), max_size=3, unique_by=lambda o: o[0]))
    argv = [command, *draw(st.sampled_from(POISON[command]))]
    for option, v in options:
        if option not in argv:
            argv += [option, v]
    return argv


_NUMBER = re.compile(r"(?<![\w.])-?(nan|inf|infinity)(?![\w])", re.I)


OUTCOMES: dict[int, int] = {}


def _check(argv, status, out, err):
    OUTCOMES[status] = OUTCOMES.get(status, 0) + 1
    assert "Traceback" not in err and "internal error" not in err, (argv, err)
    assert status in (0, 1, 2), (argv, status, err)
    if status == 2:
        assert len(err.strip().splitlines()) == 1, (argv, err)
    if status == 0 and argv[:1] == ["eval"]:
        printed = json.loads(out)["value"] if "--json" in argv else float(out.split("= ")[1].split()[0])
        assert math.isfinite(printed), (argv, out)
        assert not _NUMBER.search(out.split("\n")[0]), (argv, out)
    if argv[:1] == ["eval"] and any(a.startswith("colour=") or a in ("=", "a=b=c") or a.partition("=")[2] in GARBAGE
                                    for a in argv[2:] if a != "--json"):
        assert status != 0, (argv, out)


@settings(max_examples=450, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(argv=cheap())
def test_fuzz_cheap_subcommands(argv, capsys):
    capsys.readouterr()
    try:
        status = main(argv)
    except SystemExit as exc:  # --help / --version
        status = exc.code
    out, err = capsys.readouterr()
    _check(argv, status, out, err)


def test_the_fuzz_reached_both_successes_and_refusals():
    if not OUTCOMES:
        pytest.skip("counts the outcomes of test_fuzz_cheap_subcommands: run it first")
    assert OUTCOMES.get(0, 0) >= 20 and OUTCOMES.get(2, 0) >= 100, OUTCOMES


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(argv=costly())
def test_fuzz_costly_subcommands_refuse_nonsense_before_working(argv, capsys, tmp_path_factory, monkeypatch):
    monkeypatch.chdir(tmp_path_factory.getbasetemp())
    capsys.readouterr()
    status = main(argv)
    out, err = capsys.readouterr()
    _check(argv, status, out, err)
    assert status == 2 and out == "", (argv, status, out, err)
