"""Per-theorem sections, the 'beats the baseline' summary and the errata evidence."""

from __future__ import annotations

import math

import pytest

import theorems
from verify.check import references as refs
from verify.report import build


def test_beats_summary_in_words():
    xs = [1.0, 2.0, 4.0, 8.0]
    assert build.beats_summary("T", xs, [1, 1, 1, 1], [1, 2, 3, 4]) == "T >= 2 (checked up to 8)"
    assert build.beats_summary("T", xs, [0.5] * 4, [1] * 4) == "everywhere on T in [1, 8]"
    assert build.beats_summary("T", xs, [2] * 4, [1] * 4) == "nowhere on T in [1, 8]"
    assert build.beats_summary("E", xs, [0, 2, 0, 2], [1] * 4) == "E in {1, 4}"
    assert build.beats_summary("T", xs, [None] * 4, [1] * 4) == "not compared"


def test_slug_is_anchor_safe():
    assert build.slug("bok2024/thm4.6/window") == "bok2024-thm4-6-window"


def test_composition_bound_section_draws_exact_equal_to_bound():
    # Gaussian composition is exact on linear losses (Bok et al. Thm 4.1, [DRS22]): the exact curve from the
    # engine's closed-form reference must coincide with the bound at every T
    if "linear_chain" not in refs.families():
        pytest.skip("verify.instances has no linear_chain family")
    theorem = theorems.get("baselines/noisy-gd/gdp")
    family = refs.families()["linear_chain"]
    instance = refs.build(family, {"n": 50, "T": 10, "eta": 0.1, "sigma": 1.0, "Delta": 2.0, "L": 1.0, "d": 1,
                                   "b": 50, "q": 1.0, "m": 0.0, "M": 1.0, "D": 1.0}, theorem)
    verdict = {"obligations": [{"name": "tightness", "status": "passed", "detail": "",
                                "data": {"worst": {"family": "linear_chain", "parameters": instance.params(),
                                                   "exact": 0.0}}}]}
    figures = build.Figures()
    section = build.theorem_section(theorem, verdict, theorems.get, build.Options(), figures)
    series = {s["label"]: s["y"] for s in section["curve"]["series"]}
    exact = series["exact (linear_chain family)"]
    bound = series[f"bound ({theorem.id})"]
    pairs = [(a, b) for a, b in zip(exact, bound) if a is not None and b is not None]
    assert len(pairs) >= 5
    assert all(math.isclose(a, b, rel_tol=1e-6) for a, b in pairs)
    assert any(f.endswith("-eps.svg") for f in section["figures"])
    assert any(f.endswith("-tradeoff.svg") for f in section["figures"])


def test_utility_theorems_get_a_section_without_curves():
    theorem = next(t for t in theorems.all() if t.notion == "utility")
    figures = build.Figures()
    section = build.theorem_section(theorem, {"verdict": "inconclusive", "obligations": []}, theorems.get,
                                    build.Options(), figures)
    assert section["id"] == theorem.id and section["figures"] == [] and section["gaps"]


def test_errata_evidence_collects_failed_checks_and_table_mismatches():
    theorem = theorems.get("bok2024/tables10-12")
    variant = theorem.variants[0]
    verdicts = {variant.id: {"verdict": "violated", "counterexample": None,
                             "obligations": [{"name": "scaling", "status": "failed", "detail": "not invariant"}]}}
    table = {"id": "bok2024/table10", "label": "Table 10",
             "columns": [{"key": "e_star", "label": "E*", "theorem": "bok2024/thm4.6",
                          "erratum": "bok2024/tables10-12"}],
             "rows": [{"label": "r", "cells": {"e_star": {"status": "mismatch", "printed": 31, "computed": 41.0}}}]}
    errata = build.errata_section([theorem, variant], verdicts, [table])
    kinds = [ev["kind"] for ev in errata[0]["evidence"]]
    assert errata[0]["theorem"] == theorem.id
    assert "failed scaling check" in kinds and "table mismatch" in kinds
    assert len(errata) == 1  # the mismatch is explained by the erratum, not listed again
