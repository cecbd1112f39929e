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
    [exact] = [y for label, y in series.items() if label.startswith("exact") and "linear_chain" in label]
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


def _table10(erratum):
    return {"id": "bok2024/table10", "label": "Table 10", "paper": "bok2024",
            "columns": [{"key": "e_star", "label": "E*", "theorem": "bok2024/thm4.6", "conversion": "crossing",
                         "erratum": erratum}],
            "rows": [{"label": "r", "params": {}, "cells": {"e_star": {"status": "mismatch", "printed": 31,
                                                                       "computed": 41.0}}}]}


def test_errata_evidence_collects_failed_checks_and_table_mismatches():
    theorem = theorems.get("bok2024/tables10-12")
    variant = theorem.variants[0]
    verdicts = {variant.id: {"verdict": "violated", "counterexample": None,
                             "obligations": [{"name": "scaling", "status": "failed", "detail": "not invariant"}]}}
    errata = build.errata_section([theorem, variant], verdicts, [_table10("bok2024/tables10-12")])
    kinds = [ev["kind"] for ev in errata[0]["evidence"]]
    assert errata[0]["theorem"] == theorem.id
    assert "failed scaling check" in kinds and "table mismatch" in kinds
    assert len(errata) == 1  # the mismatch is explained by the erratum, not listed again
    row = errata[0]
    # the row links the violated (as printed) record, not the corrected one, and says how it was detected
    assert row["record"] == variant.id and row["origin"] == "paper"
    assert row["detected"] == (f"scaling check failed on {variant.id}; table reproduction: 1 printed cell(s) do "
                               "not come out")
    assert "Table 10, r, E*: printed 31, computed 41" in row["numbers"]
    assert row["location"] == theorem.source.statement and row["printed"] == theorem.errata[0].text


def test_an_unexplained_table_mismatch_is_a_finding_of_its_own():
    # the Bu et al. Figure 4 mismatch (1.34 printed, 1.3498 computed) was attached to an unrelated erratum
    theorem = theorems.get("bu2020/appB.3")
    figure4 = {"id": "bu2020/figure4", "label": "Figure 4", "paper": "bu2020",
               "columns": [{"key": "eps_ma", "label": "MA eps", "theorem": "bu2020/appB.3",
                            "conversion": "eps_at_delta", "delta": 1e-5, "erratum": None}],
               "rows": [{"label": "top, sigma = 1.3, 20 epochs", "params": {"q": 0.25, "z": 1.3, "T": 80.0},
                         "cells": {"eps_ma": {"status": "mismatch", "printed": 1.34, "computed": 1.3498}}}]}
    errata = build.errata_section([theorem], {}, [figure4])
    own = [e for e in errata if e["theorem"] == theorem.id and e["origin"] == "paper"]
    assert own and all(not any(ev["kind"] == "table mismatch" for ev in e["evidence"]) for e in own)
    [finding] = [e for e in errata if e["origin"] == "software"]
    assert finding["location"] == "Figure 4, column MA eps" and "1.3498" in finding["corrected"]  # the note
    assert finding["replay"] == ["verify eval bu2020/appB.3 q=0.25 z=1.3 T=80 delta=1e-05"]


def test_a_confirmed_printed_value_is_a_finding():
    theorem = theorems.get("bu2020/appB.3")
    row = "eta=0.25, R=1.5, sigma=0.5, 100 epochs"
    table1 = {"id": "bu2020/table1", "label": "Table 1", "paper": "bu2020",
              "columns": [{"key": "eps_ma", "label": "MA eps", "theorem": "bu2020/appB.3", "conversion": "eps_at_delta",
                           "delta": 1e-5, "erratum": None}],
              "rows": [{"label": row, "params": {}, "cells": {"eps_ma": {"status": "match", "printed": 32.4,
                                                                         "computed": 32.4004}}}]}
    [finding] = [e for e in build.errata_section([theorem], {}, [table1]) if e["origin"] == "software"]
    assert "32.40 is correct" in finding["corrected"] and finding["numbers"] == ["printed 32.4, computed 32.4004"]
    table1["rows"][0]["cells"]["eps_ma"]["status"] = "mismatch"  # not confirmed in this run: said so
    found = [e for e in build.errata_section([theorem], {}, [table1]) if e["origin"] == "software"]
    assert any(e["corrected"] == "not confirmed in this run" for e in found)


def test_an_understating_approximation_is_a_finding():
    from verify.check.evidence import ApproximationError, ApproximationRow

    theorem = theorems.get("bu2020/eq3.1/eps")
    rows = (ApproximationRow({"q": 0.01, "z": 1.0, "E": 10.0}, 1e-5, 0.8, 1.0, -0.2, True, True),
            ApproximationRow({"q": 0.01, "z": 0.5, "E": 10.0}, 1e-5, 3.1, 3.0, 1 / 30, False, True))
    data = ApproximationError(rows=rows, understated=1, paper_rows=2, paper_understated=1).to_json()
    verdicts = {theorem.id: {"verdict": "approximate", "obligations": [
        {"name": "approximation", "status": "approximate", "detail": "under-states", "data": data}]}}
    [finding] = [e for e in build.errata_section([theorem], verdicts, []) if e["origin"] == "software"]
    assert finding["numbers"][0] == "under-states eps on 1 of 2 compared points (1 of the paper's 2 rows)"
    assert "approximate eps 0.8 vs exact 1 (-20.0%)" in finding["numbers"][1]
    assert finding["replay"] == ["verify eval bu2020/eq3.1/eps q=0.01 z=1 E=10 delta=1e-05"]


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
    marks = [p for p in section["curve"]["points"] if p["label"].startswith("audited")]
    if section["point"] == constants:  # drawn at the audit's instance: its lower bound is a mark on the eps axis
        from verify.privacy.gaussian import gdp_eps

        assert [m["y"] for m in marks] == [pytest.approx(float(gdp_eps(0.1, build.DELTA)))]
    else:  # drawn at the paper's parameters: the audit is stated in the text, read from the typed evidence
        assert marks == [] and section["audit"]["lower"] == 0.1 and section["audit"]["runs"] == 1000


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


def test_the_ratio_is_said_per_relation():
    from verify.report.frontpage import ratio_reading

    assert ratio_reading("upper", 0.8) == {"label": "worst exact/bound (<= 1 is sound)", "value": 0.8}
    # a lower bound whose loosest instance has exact/bound 1.9888 (chourasia2021/thm3): the same convention
    lower = ratio_reading("lower", 1.9888)
    assert lower["label"].startswith("largest exact/bound") and lower["value"] == pytest.approx(1.9888, rel=1e-4)
    assert ratio_reading("upper", None)["value"] is None


def _violated(obligations, counterexample=None, printed_of="x", statement="Theorem 1"):
    return {"id": "p/x/as-printed", "anchor": "thm-p-x-as-printed", "statement": statement, "printed_of": printed_of,
            "verdict": {"verdict": "violated", "expected": True, "counterexample": counterexample,
                        "obligations": obligations}}


def test_a_wrong_printed_table_with_a_sound_guarantee_says_so():
    from verify.report.frontpage import verdict_status, violation

    sound = {"name": "soundness", "status": "passed", "detail": "", "data": {"examples": 17}}
    scaling = {"name": "scaling", "status": "failed", "detail": "not invariant", "data": {}}
    section = _violated([scaling, sound], statement="Tables 10-12 (E* column)")
    assert verdict_status(section) == "printed table wrong (scaling failed); guarantee sound"
    found = violation(section)
    assert found["no_instance"].endswith("the soundness search found none on 17 instances")
    assert verdict_status(_violated([scaling, {**sound, "status": "failed"}])) == "violated (as printed)"


def test_a_violation_shows_the_minimal_and_the_largest_margin_counterexample():
    from verify.report.frontpage import violation

    small = Witness(instance="w(n=2)", family="interval_walk", parameters={"n": 2}, at=2.0, exact=2.0, bound=1.0,
                    parameter="alpha", build={"n": 2})
    large = Witness(instance="w(n=9)", family="interval_walk", parameters={"n": 9}, at=2.0, exact=9.0, bound=1.0,
                    parameter="alpha", build={"n": 9})
    data = {"examples": 5, "margin": 1.0, "largest": large.to_json(), "largest_margin": 8.0,
            "replay": ["verify eval p/x/as-printed --family interval_walk n=2 alpha=2.0",
                       "verify eval p/x/as-printed --family interval_walk n=9 alpha=2.0"]}
    section = _violated([{"name": "soundness", "status": "failed", "detail": "exact <= bound fails", "data": data}],
                        counterexample=small.to_json())
    minimal, largest = violation(section)["items"]
    assert minimal["what"].startswith("minimal") and "exact 2 vs bound 1 on w(n=2) at alpha=2" in minimal["text"]
    assert minimal["replay"].endswith("n=2 alpha=2.0") and largest["replay"].endswith("n=9 alpha=2.0")
    assert "margin 8" in largest["text"] and "no_instance" not in violation(section)


def test_a_failed_claim_replays_the_point_it_names():
    from verify.report.frontpage import violation

    claims = {"name": "claims", "status": "failed", "data": {},
              "detail": "the limit is (3.1): fails at {'T': 3516.0, 'q': 0.25, 'z': 1.3}: 13.4 vs 0.22"}
    found = violation(_violated([claims]))
    assert found["items"][0]["replay"] == "verify eval p/x/as-printed T=3516 q=0.25 z=1.3"
    assert found["no_instance"].startswith("no instance counterexample: the violation is a failed claims check")
