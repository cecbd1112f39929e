"""Typed evidence (verify/check/evidence.py): every record survives the JSON round trip, the JSON has
the keys the report and reports/baseline.json rely on, and a verdict read back from JSON is the same."""

from __future__ import annotations

import json
import math

import pytest

import theorems
from verify.check.engine import check_theorem, search_effort
from verify.check.evidence import (EVIDENCE, ApproximationError, ApproximationGap, ApproximationRow, AuditCounterexample,
                                   AuditEvidence, BadValue, ClaimsChecked, ExactnessChecked, InternalError,
                                   ProofChecked, ReadingOutcome, StepOutcome,
                                   PointsChecked, ScalingCounterexample, SoundnessChecked, Tightness, Witness,
                                   counterexample_from_json, evidence_from_json)
from verify.check.verdict import Obligation, Verdict

WITNESS = Witness(instance="quadratic_chain(n=4)", family="quadratic_chain", parameters={"n": 4.0, "sigma": 0.5},
                  at=2.0, exact=0.3, bound=0.25, parameter="alpha")
GDP_WITNESS = Witness(instance="g", family="gaussian_mechanism", parameters={"sigma": 1.0}, at=None, exact=1.0,
                      bound=1.0, ratio=1.0)

COUNTEREXAMPLES = [
    WITNESS,
    GDP_WITNESS,
    BadValue(parameters={"T": 3.0}, bound=-1.5),
    ScalingCounterexample(parameters={"eta": 0.1}, rescaled={"eta": 0.961}, c=3.1, bound=1.0, bound_rescaled=2.0),
    AuditCounterexample(instance="logistic_ball", parameters={"n": 50.0}, bound=[0.1, 0.2], lower=[0.3, 0.1],
                        at=[1.5, 2.0]),
]

EVIDENCE_RECORDS = [
    ("well-formed", PointsChecked(24)),
    ("claims", ClaimsChecked(0)),
    ("claims", ClaimsChecked(3, 1)),
    ("exactness", ExactnessChecked(6)),
    ("soundness", SoundnessChecked(20)),
    ("soundness", SoundnessChecked(20, ("gaussian_mechanism", "quadratic_chain"))),
    ("tightness", Tightness(max_ratio=0.9, median_ratio=0.5, worst=WITNESS)),
    ("tightness", Tightness(max_ratio=float("nan"), median_ratio=None, worst=None)),
    ("approximation", ApproximationError((ApproximationGap(parameters={"T": 1.0}, error="missing q"),))),
    ("approximation", ApproximationError(
        (ApproximationRow(parameters={"T": 10.0}, delta=1e-5, eps_approx=0.9, eps_exact=1.0, relative_error=-0.1,
                          understates=True, from_paper=True),), understated=1, paper_rows=1, paper_understated=1)),
    ("audit", AuditEvidence(instance="s", runs=1000, seed=0, confidence=0.95, constants={"n": 50.0}, ok=True,
                            bound=1.0, lower=0.5, at=None, theorem="t", notion="gdp")),
    ("internal-error", InternalError("<lambda>")),
    ("proof", ProofChecked((
        StepOutcome("normal-tail", "value", "App. A.4", "fails", ReadingOutcome(True, "holds", {}, 0.99922, 0.99922),
                    ReadingOutcome(False, "fails: 0.99922 == 0.999993 is false", {"x": 1.0}, 0.99922, 0.999993),
                    replay="verify eval t --step normal-tail"),
        StepOutcome("loose", "relation", "Lemma 6", "loose", ReadingOutcome(True, "holds at 3 points"),
                    ReadingOutcome(True, "holds at 3 points"), ratio=2.0)))),
]


def _same(a, b) -> bool:
    """Equality in which nan equals nan (a tightness check may see no finite ratio)."""
    return json.dumps(a.to_json(), sort_keys=True) == json.dumps(b.to_json(), sort_keys=True) and (
        a == b or any(isinstance(v, float) and math.isnan(v) for v in a.__dict__.values()))


@pytest.mark.parametrize("record", COUNTEREXAMPLES, ids=lambda r: type(r).__name__)
def test_counterexamples_round_trip_and_are_told_apart_by_their_keys(record):
    data = json.loads(json.dumps(record.to_json()))
    back = counterexample_from_json(data)
    assert type(back) is type(record) and back == record


@pytest.mark.parametrize("name,record", EVIDENCE_RECORDS, ids=lambda r: r if isinstance(r, str) else "")
def test_obligation_evidence_round_trips(name, record):
    obligation = Obligation(name, "passed", "detail", data=record)
    data = json.loads(json.dumps(obligation.to_json()))
    back = Obligation.from_json(data)
    assert back.name == name and back.status == "passed" and back.detail == "detail"
    assert _same(back.data, record)


def test_every_obligation_with_evidence_has_a_reader():
    assert {name for name, _ in EVIDENCE_RECORDS} == set(EVIDENCE)
    assert evidence_from_json("scaling", {}) is None
    with pytest.raises(ValueError, match="scaling"):
        evidence_from_json("scaling", {"points": 3})


def test_the_json_keeps_the_keys_of_the_baseline():
    # reports/baseline.json and the report read these keys: renaming a field must not change them
    assert set(WITNESS.to_json()) == {"instance", "family", "parameters", "alpha", "exact", "bound"}
    assert set(GDP_WITNESS.to_json()) == {"instance", "family", "parameters", "at", "exact", "bound", "ratio"}
    assert GDP_WITNESS.to_json()["at"] is None
    assert Tightness(float("inf"), None, None).to_json() == {"max_ratio": "inf", "median_ratio": None, "worst": None}
    audit = dict(EVIDENCE_RECORDS)["audit"]
    assert set(audit.to_json()) == {"instance", "runs", "seed", "confidence", "constants", "ok", "bound", "lower",
                                    "at", "theorem", "notion"}
    assert set(audit.counterexample().to_json()) == {"instance", "parameters", "bound", "lower", "at"}


def test_a_real_verdict_reads_back_from_its_json():
    verdict = check_theorem(theorems.get("bok2024/thm4.2"), theorems.get, search_effort("quick"), seed=0)
    data = json.loads(json.dumps(verdict.to_json(), sort_keys=True))
    back = Verdict.from_json(data)
    assert json.dumps(back.to_json(), sort_keys=True) == json.dumps(data, sort_keys=True)
    tight = next(o for o in back.obligations if o.name == "tightness")
    assert isinstance(tight.data, Tightness) and isinstance(tight.data.worst, Witness)
    assert tight.data.max_ratio == verdict.max_ratio


def test_a_printed_variant_keeps_whether_it_was_caught_as_expected():
    # expect_fail is not written to JSON; ``expected`` is, and reads back as it was
    caught_elsewhere = Verdict(id="p/as-printed", verdict="violated", printed_of="p",
                               obligations=[Obligation("claims", "failed", "off by 2")], expect_fail=("scaling",))
    assert caught_elsewhere.as_expected is False
    back = Verdict.from_json(json.loads(json.dumps(caught_elsewhere.to_json())))
    assert back.as_expected is False and back.to_json() == caught_elsewhere.to_json()
