"""``verify run`` and ``verify report`` share their results cache: what one checked, the other reads back."""

from __future__ import annotations

import json

import theorems
from verify.commands import main
from verify.commands import verification
from verify.report import generate as gen
from verify.report.incremental import ResultCache

CHEAP = ("baselines/gaussian-mechanism/gdp", "baselines/gaussian-mechanism/rdp")
ONLY = "baselines/gaussian-mechanism/[gr]*"  # the two above, and nothing else


def _fail(*_args, **_kwargs):
    raise AssertionError("a result in the cache was computed again")


def _run(tmp_path, name: str, *extra: str) -> bytes:
    out = tmp_path / f"{name}.json"
    assert main(["run", "--only", ONLY, "--workers", "1", "--json", str(out), *extra]) == 0
    return out.read_bytes()


def test_a_report_after_a_run_checks_nothing_again(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    run = json.loads(_run(tmp_path, "run", "--cache", str(cache)))
    assert [t["id"] for t in run["theorems"]] == list(CHEAP)

    monkeypatch.setattr(gen, "check_theorem", _fail)  # the report draws; the run's verdicts are read back
    monkeypatch.setattr(gen, "self_test", _fail)
    stats: dict = {}
    report, _, _, verdicts = gen.generate([theorems.get(i) for i in CHEAP], "quick", 0, ONLY, 1, None, {"baselines"},
                                         cache=ResultCache(cache), stats=stats)
    assert stats == {"verdicts": len(CHEAP)}
    assert [v.to_json() for v in verdicts] == run["theorems"]
    assert [s["verdict"] for s in report["theorems"]] == run["theorems"]
    assert report["mutation"] == run["mutation"]


def test_a_run_reads_back_its_own_and_a_reports_verdicts_byte_for_byte(tmp_path, monkeypatch):
    cold = _run(tmp_path, "cold", "--no-cache")
    cache = tmp_path / "cache"
    gen.generate([theorems.get(i) for i in CHEAP], "quick", 0, ONLY, 1, None, {"baselines"},
                 cache=ResultCache.open(cache))  # the report stores the verdicts it checks and its mutation test
    monkeypatch.setattr(verification, "check_registered", _fail)
    monkeypatch.setattr(gen, "self_test", _fail)  # the run mutates through the report's helper
    assert _run(tmp_path, "warm", "--cache", str(cache)) == cold  # the output does not depend on the cache


def test_no_cache_reads_and_writes_nothing(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    _run(tmp_path, "first", "--cache", str(cache))
    checked = []
    real = verification.check_registered
    monkeypatch.setattr(verification, "check_registered", lambda ids, *a, **k: checked.extend(ids) or real(ids, *a, **k))
    _run(tmp_path, "again", "--no-cache", "--cache", str(cache), "--no-mutation")
    assert checked == list(CHEAP)  # nothing read back
    empty = tmp_path / "empty"
    _run(tmp_path, "none", "--no-cache", "--cache", str(empty), "--no-mutation")
    assert not empty.exists()  # nothing written


def test_a_run_where_the_default_cache_cannot_be_made_computes_everything(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".verify-cache").write_text("a file, not a folder")  # no cache can be made here
    assert _run(tmp_path, "plain", "--no-mutation") == _run(tmp_path, "uncached", "--no-mutation", "--no-cache")
    assert main(["run", "--only", ONLY, "--workers", "1", "--cache", ".verify-cache/x"]) == 2  # given: refused
