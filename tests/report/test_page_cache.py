"""``verify report`` reuses the results of unchanged theorems."""

from __future__ import annotations

import dataclasses
import json

import theorems
from verify.report import generate as gen
from verify.report import incremental
from verify.report.incremental import ResultCache, theorem_key

CHEAP = ("baselines/gaussian-mechanism/gdp", "baselines/gaussian-mechanism/rdp")


def _run(cache):
    records = [theorems.get(i) for i in CHEAP]
    return gen.generate(records, "quick", 0, None, 1, None, {"baselines"}, cache=cache)


def test_a_warm_report_computes_nothing_and_is_byte_identical(tmp_path, monkeypatch):
    cache = ResultCache.open(tmp_path / "cache")
    cold, cold_svgs, cold_formulas, cold_verdicts = _run(cache)
    assert (cache.hits, cache.misses) == (0, len(CHEAP) + 2)  # each theorem, the reproduction, the mutation test

    def no_work(*_args, **_kwargs):
        raise AssertionError("a cached result was computed again")

    monkeypatch.setattr(gen, "theorem_job", no_work)
    monkeypatch.setattr(gen, "reproduction_job", no_work)
    monkeypatch.setattr(gen, "self_test", no_work)
    warm_cache = ResultCache(tmp_path / "cache")
    warm, warm_svgs, warm_formulas, warm_verdicts = _run(warm_cache)
    assert (warm_cache.hits, warm_cache.misses) == (len(CHEAP) + 2, 0)
    dump = lambda r: json.dumps(r, indent=1, sort_keys=True, ensure_ascii=False)  # noqa: E731 - as write_report
    assert dump(warm) == dump(cold)
    assert warm_svgs == cold_svgs and warm_formulas == cold_formulas
    assert list(warm["theorems"][0]["setting"]) == list(cold["theorems"][0]["setting"])  # the page's order too
    assert [v.to_json() for v in warm_verdicts] == [v.to_json() for v in cold_verdicts]


def test_the_key_follows_the_record_the_profile_and_the_seed():
    t = theorems.get(CHEAP[0])
    key = theorem_key(t, theorems.get, "quick", 0)
    assert key == theorem_key(t, theorems.get, "quick", 0)
    assert key != theorem_key(dataclasses.replace(t, title=t.title + "!"), theorems.get, "quick", 0)
    assert key != theorem_key(dataclasses.replace(t, bound=t.bound * 2), theorems.get, "quick", 0)
    assert key != theorem_key(t, theorems.get, "full", 0) != theorem_key(t, theorems.get, "quick", 1)
    other = theorems.get(CHEAP[1])
    # a record it is compared with is part of its key (its section draws that record's curve)
    assert key != theorem_key(t, theorems.get, "quick", 0, related=[other.id])


def test_the_code_version_covers_the_machinery_not_the_layout(tmp_path, monkeypatch):
    root = tmp_path / "tree"
    for rel in ("verify/check/engine.py", "verify/report/render.py", "verify/commands/report.py",
                "theorems/tables.py", "theorems/__init__.py"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x = 1\n")
    monkeypatch.setattr(incremental, "_ROOT", root)

    def version() -> str:
        incremental.code_version.cache_clear()
        return incremental.code_version()

    before = version()
    (root / "verify/report/render.py").write_text("x = 2\n")  # layout only
    (root / "verify/commands/report.py").write_text("x = 2\n")  # the command line
    assert version() == before
    (root / "verify/check/engine.py").write_text("x = 2\n")
    after = version()
    assert after != before
    (root / "theorems/tables.py").write_text("x = 2\n")
    assert version() != after
    incremental.code_version.cache_clear()


def test_an_unreadable_entry_is_a_miss(tmp_path):
    cache = ResultCache.open(tmp_path)
    (tmp_path / "k.json").write_text("{not json")
    assert cache.get("k") is None and cache.misses == 1
    cache.put("k", {"a": [1, 2.5]})
    assert cache.get("k") == {"a": [1, 2.5]} and cache.hits == 1


def test_an_interrupted_report_keeps_what_it_finished(tmp_path):
    """Each result is stored as it finishes: a report stopped after its first theorem (Ctrl-C) has that
    theorem in the cache, and the next run computes only the rest."""
    import pytest

    cache = ResultCache.open(tmp_path / "cache")
    seen = []

    def stop_after_one(name):
        seen.append(name)
        if len(seen) == 2:  # the reproduction, then one theorem
            raise KeyboardInterrupt

    records = [theorems.get(i) for i in CHEAP]
    with pytest.raises(KeyboardInterrupt):
        gen.generate(records, "quick", 0, None, 1, stop_after_one, {"baselines"}, cache=cache)
    again = ResultCache(tmp_path / "cache")
    _run(again)
    assert again.hits >= 2  # the reproduction and the finished theorem were kept
