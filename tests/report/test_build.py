"""Per-theorem sections, the 'beats the baseline' summary and the errata evidence."""

from __future__ import annotations

import math

import pytest

import theorems
from verify.check import references as refs
from verify.check.evidence import AuditEvidence, Tightness, Witness
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
    theorem = theorems.get("baselines/noisy-gd/gdp")
    family = refs.families()["linear_chain"]
    instance = refs.build(family, {"n": 50, "T": 10, "eta": 0.1, "sigma": 1.0, "Delta": 2.0, "L": 1.0, "d": 1,
                                   "b": 50, "q": 1.0, "m": 0.0, "M": 1.0, "D": 1.0}, theorem)
    worst = Witness(instance="linear chain", family="linear_chain", parameters=instance.params(), at=None,
                    exact=0.0, bound=1.0, ratio=0.0)
    verdict = {"obligations": [{"name": "tightness", "status": "passed", "detail": "",
                                "data": Tightness(max_ratio=0.0, median_ratio=None, worst=worst).to_json()}]}
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


def test_composition_baselines_come_from_the_registry_data():
    from theorems.tables import COMPOSITION_BASELINES

    for baseline in COMPOSITION_BASELINES:
        for theorem_id in filter(None, (baseline.theorem, baseline.rdp)):
            assert theorems.get(theorem_id).setting.batches == baseline.batches
    assert build.composition_baseline(theorems.get("bok2024/thm4.5")).theorem == "bok2024/thm4.4"
    assert build.composition_baseline(theorems.get("bok2024/thm4.2")).rdp == "baselines/noisy-gd/rdp"
    assert build.composition_baseline(theorems.get("bok2024/prop5.1")) is None  # Langevin, not noisy GD


def test_a_gdp_audit_is_marked_in_eps_and_its_evidence_read_typed():
    theorem = theorems.get("baselines/noisy-gd/gdp")
    constants = {"n": 50.0, "T": 10.0, "sigma": 1.0, "Delta": 2.0}
    audit = AuditEvidence(instance="linear chain", runs=1000, seed=0, confidence=0.95, constants=constants, ok=True,
                          bound=0.2, lower=0.1, at=None, theorem=theorem.id, notion="gdp")
    verdict = {"obligations": [{"name": "audit", "status": "passed", "detail": "", "data": audit.to_json()}]}
    section = build.theorem_section(theorem, verdict, theorems.get, build.Options(), build.Figures())
    assert section["point_origin"] == "the instance of the simulation audit"
    assert section["point"] == constants
    [mark] = [p for p in section["curve"]["points"] if p["label"].startswith("audited")]
    from verify.privacy.gaussian import gdp_eps

    assert mark["y"] == pytest.approx(float(gdp_eps(0.1, build.DELTA)))


def test_one_value_eps_readings():
    from verify.privacy.notions import notion

    assert build.value_as_eps(notion("eps_delta"), 0.7, 1e-5) == 0.7
    assert build.value_as_eps(notion("eps_delta"), 0.7, 1e-3) is None  # another delta: not this reading
    assert build.value_as_eps(notion("rdp"), 0.7, 2.0) is None  # one point of an RDP curve
    assert build.value_as_eps(notion("gdp"), 0.0, None) == 0.0


def test_summary_reads_the_tightness_evidence():
    def section(max_ratio):
        data = Tightness(max_ratio=max_ratio, median_ratio=0.5, worst=None).to_json()
        verdict = {"verdict": "verified", "expected": True,
                   "obligations": [{"name": "tightness", "status": "passed", "detail": "", "data": data}]}
        return {"id": "x", "anchor": "thm-x", "paper": "p", "notion": "gdp", "kind": "upper", "printed_of": None,
                "beats_baseline": "nowhere", "verdict": verdict}

    finite, infinite = build.summary_rows([section(0.9), section(math.inf)])
    assert (finite["worst_ratio"], finite["median_ratio"], finite["verdict"]) == (0.9, 0.5, "verified")
    assert infinite["worst_ratio"] is None  # "inf" in the JSON: no ratio to show
