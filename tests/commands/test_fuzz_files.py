"""A seeded fuzz of the files a user hands the tool: schedules, report cache entries, output paths and theorem
files.  Whatever is drawn: no traceback, no internal error (exit 3), one line on stderr for exit 2; a cache entry
is a value or a miss, never an exception."""

from __future__ import annotations

import json
import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verify.cache import ResultCache
from verify.commands import main

FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
NUMBER = st.one_of(st.integers(-3, 400), st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(
    [0, 1e-300, 1e308, 10 ** 30, 0.5, 1.0, 2.0]))
VALUE = st.one_of(NUMBER, st.text(max_size=5), st.booleans(), st.none(), st.lists(st.integers(0, 3), max_size=2))
PHASE_KEYS = ["noise_multiplier", "z", "sample_rate", "q", "b", "batches", "steps", "T", "epochs", "eta", "colour"]
TOP_KEYS = ["n", "adjacency", "Cclip", "Delta", "L", "m", "M", "D", "d", "loss", "init", "release", "colour"]


def _run(argv, capsys) -> tuple[int, str]:
    capsys.readouterr()
    try:
        status = main(argv)
    except SystemExit as exc:
        status = exc.code
    _, err = capsys.readouterr()
    err = "\n".join(line for line in err.splitlines() if line != "hello")  # what a user's file printed
    assert "Traceback" not in err and "internal error" not in err, (argv, err)
    assert status in (0, 1, 2), (argv, status, err)
    if status == 2:
        assert len(err.strip().splitlines()) == 1, (argv, err)
    return status, err


def _small(phase: dict) -> dict:
    """Keep a valid-looking phase cheap: at most 50 steps of full or Poisson batches."""
    for key in ("steps", "T"):
        if isinstance(phase.get(key), (int, float)) and not isinstance(phase[key], bool) and phase[key] > 50:
            phase[key] = 50
    phase.pop("epochs", None)
    return phase


schedule = st.fixed_dictionaries({}, optional={k: VALUE for k in TOP_KEYS}).flatmap(
    lambda top: st.lists(st.dictionaries(st.sampled_from(PHASE_KEYS), VALUE, max_size=4), max_size=3).map(
        lambda phases: {**top, "phases": [_small(p) for p in phases]}))


@settings(FUZZ, max_examples=40)
@given(data=schedule)
def test_fuzz_schedules(data, tmp_path_factory, capsys):
    path = tmp_path_factory.mktemp("s") / "schedule.json"
    try:
        text = json.dumps(data, allow_nan=True)
    except (TypeError, ValueError):
        return
    path.write_text(text)
    _run(["account", "--schedule", str(path), "--delta", "1e-5"], capsys)


@settings(FUZZ, max_examples=60)
@given(entry=st.recursive(VALUE, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                          st.dictionaries(st.text(max_size=6), inner, max_size=3)),
                          max_leaves=8), raw=st.booleans())
def test_fuzz_cache_entries(entry, raw, tmp_path_factory):
    folder = tmp_path_factory.mktemp("c")
    cache = ResultCache.open(folder)
    if raw:  # written by hand: never a result
        (folder / "k.json").write_text(json.dumps(entry, allow_nan=True))
        assert ResultCache(folder).get("k") is None
    else:  # written by the cache: read back as written (NaN compares unequal, so compare the JSON)
        cache.put("k", entry)
        again = ResultCache(folder).get("k")
        assert json.dumps(again, allow_nan=True, sort_keys=True) == json.dumps(entry, allow_nan=True, sort_keys=True)


PATHS = st.sampled_from(["", "/", "/dev/null", ".", "no/such/dir/out.json", "x" * 300 + ".json", "\0.json",
                         "~/out.json", "/proc/self/fd/1", "out.json", "sub/", "-"])


@settings(FUZZ, max_examples=12)
@given(path=PATHS)
def test_fuzz_json_output_paths(path, tmp_path_factory, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path_factory.mktemp("o"))
    _run(["run", "--only", "baselines/gaussian-mechanism/gdp", "--workers", "1", "--no-mutation", "--json", path],
         capsys)


BOUNDS = st.sampled_from(["GOOD", "GOOD * 0.9", "GOOD * (1 + sp.I)", "sp.zoo", "sp.nan * GOOD", "1 / (sym.n - sym.n)",
                          "sp.Symbol('foo')", "'text'", "None", "[GOOD]", "GOOD > 1", "sp.log(-GOOD)", "-GOOD",
                          "sp.sqrt(-1) * GOOD", "GOOD ** 1000", "sp.Integer(0)"])
LINES = st.sampled_from(["", "import os\n", "raise ValueError('boom')\n", "import sys\nsys.exit(3)\n",
                         "print('hello')\n", "x = 1 / 0\n", "def f(:\n"])


@settings(FUZZ, max_examples=20)
@given(bound=BOUNDS, extra=LINES, notion=st.sampled_from(["gdp", "rdp", "zcdp", ""]))
def test_fuzz_theorem_files(bound, extra, notion, tmp_path_factory, capsys):
    path = tmp_path_factory.mktemp("t") / "mine.py"
    path.write_text("import sympy as sp\nfrom verify.theorem import Theorem, Source, Setting, sym\n"
                    "GOOD = sp.sqrt(sym.T) * sym.Delta / (sym.n * sym.sigma)\n" + extra +
                    f"A = Theorem(id='u/x', title='t', source=Source('u', '1'), notion={notion!r}, kind='upper',\n"
                    f"            setting=Setting(batches='full', loss='linear'), bound={bound})\n")
    status, _ = _run(["check", str(path), "--examples", "5", "--workers", "1"], capsys)
    if bound in ("GOOD * (1 + sp.I)", "sp.zoo", "sp.nan * GOOD", "sp.Symbol('foo')", "None", "[GOOD]", "GOOD > 1"):
        assert status == 2, bound  # an ill-formed record is refused before any search
    assert not math.isnan(status)
