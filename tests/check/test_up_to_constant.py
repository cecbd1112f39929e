"""Statements made up to a constant ("lesssim"): verdict approximate with the implied constant, never
verified at constant 1 and never violated for exceeding it.

Reference values are closed forms: on the full-batch linear chain every iterate is Gaussian, the mean gap
grows by eta Delta/n per step and the variance by (eta sigma)^2, so the last iterate's GDP parameter is
exactly sqrt(T) Delta/(n sigma); a bound half of it implies the constant 2.
"""

from __future__ import annotations

import dataclasses
import json
import math

import pytest
import sympy as sp

from verify.check.evidence import PointsChecked, SoundnessChecked, Tightness, Witness
from verify.check.soundness import soundness
from verify.check.verdict import Obligation, Verdict, decide
from verify.theorem import Setting, Source, Theorem, sym

KEPT = {"family": "linear_chain", "n": 10, "eta": 1.0, "sigma": 1.0, "T": 4, "Delta": 1.0}

HALF = Theorem(
    id="user/half-composition", title="full-batch GD composition with a constant too small, stated up to a constant",
    source=Source("self-test", "planted lesssim record"),
    notion="gdp", kind="upper", setting=Setting(batches="full", loss="linear", constraint="none"),
    bound=sp.sqrt(sym.T) * sym.Delta / (2 * sym.n * sym.sigma),
    examples=(KEPT,), up_to_constant=True)


def _exact_mu(n, T, sigma, Delta, **_):
    return math.sqrt(T) * Delta / (n * sigma)


@pytest.fixture(scope="module")
def planted_verdict() -> Verdict:
    return decide(HALF, list(soundness(HALF, examples=6, seed=0, families=["linear_chain"])))


def test_planted_lesssim_record_exceeded_is_approximate_with_its_constant(planted_verdict):
    v = planted_verdict
    assert v.verdict == "approximate", v.reason
    assert v.as_expected
    # every full-batch linear chain gives exact/bound = 2 exactly (closed form above)
    kept = {k: KEPT[k] for k in ("n", "T", "sigma", "Delta")}
    assert _exact_mu(**kept) / HALF.evaluate(**kept) == pytest.approx(2.0, rel=1e-12)
    assert v.implied_constant == pytest.approx(2.0, rel=1e-6)
    assert "stated up to a constant" in v.reason and "C = 2" in v.reason
    assert "linear_chain" in v.reason  # the instance attaining it
    assert v.counterexample is None


def test_the_same_bound_proved_is_violated():
    proved = dataclasses.replace(HALF, id="user/half-composition/proved", up_to_constant=False)
    v = decide(proved, list(soundness(proved, examples=6, seed=0, families=["linear_chain"])))
    assert v.verdict == "violated"
    assert not v.as_expected
    assert v.implied_constant is None
    assert isinstance(v.counterexample, Witness) and v.counterexample.family == "linear_chain"
    assert v.counterexample.exact > v.counterexample.bound


def test_implied_constant_survives_json(planted_verdict):
    data = json.loads(json.dumps(planted_verdict.to_json()))
    assert data["implied_constant"] == pytest.approx(planted_verdict.implied_constant, rel=1e-15)
    back = Verdict.from_json(data)
    assert back.verdict == "approximate" and back.implied_constant == planted_verdict.implied_constant
    assert back.reason == planted_verdict.reason
    assert back.to_json() == data


# --- decide() on hand-made obligations: which constant, and what still violates ---------------------------------

def _witness(exact: float, bound: float, name: str = "w") -> Witness:
    return Witness(instance=name, family="f", parameters={"n": 2.0}, at=None, exact=exact, bound=bound)


def _lower_record(up_to_constant: bool = True) -> Theorem:
    return dataclasses.replace(HALF, id="user/lower", kind="lower", examples=(), up_to_constant=up_to_constant)


def test_lower_bound_up_to_a_constant_reports_the_smallest_ratio():
    least = _witness(0.3, 1.0, "least")
    sound = Obligation("soundness", "approximate", "stated up to a constant",
                       data=SoundnessChecked(examples=3, constant=0.3, largest=least))
    tight = Obligation("tightness", "passed", "", data=Tightness(max_ratio=4.0, median_ratio=1.0,
                                                                 worst=_witness(4.0, 1.0)))
    v = decide(_lower_record(), [sound, tight])
    assert v.verdict == "approximate"
    assert v.implied_constant == 0.3
    assert "largest constant" in v.reason and "C = 0.3" in v.reason and "least" in v.reason


def test_a_failed_comparison_is_no_violation_up_to_a_constant_but_other_failures_are():
    cex = _witness(3.0, 1.0, "over")
    failed = Obligation("soundness", "failed", "exact <= bound fails", counterexample=cex,
                        data=SoundnessChecked(examples=1))
    tight = Obligation("tightness", "passed", "", data=Tightness(max_ratio=3.0, median_ratio=3.0, worst=cex))
    v = decide(HALF, [failed, tight])
    assert v.verdict == "approximate" and v.implied_constant == 3.0
    v = decide(dataclasses.replace(HALF, up_to_constant=False), [failed, tight])
    assert v.verdict == "violated"
    scaling = Obligation("scaling", "failed", "not invariant under theta -> c theta")
    v = decide(HALF, [Obligation("well-formed", "passed", "", data=PointsChecked(3)), scaling, failed, tight])
    assert v.verdict == "violated" and v.reason.startswith("scaling")


def test_never_verified_at_constant_one_and_inconclusive_without_a_reference():
    passed = Obligation("soundness", "passed", "exact <= bound on 5 instances", data=SoundnessChecked(examples=5))
    tight = Obligation("tightness", "passed", "", data=Tightness(max_ratio=0.5, median_ratio=0.2,
                                                                 worst=_witness(0.5, 1.0)))
    v = decide(HALF, [passed, tight])
    assert v.verdict == "approximate" and v.implied_constant == 0.5
    v = decide(HALF, [Obligation("soundness", "inconclusive", "no exact reference family covers this setting")])
    assert v.verdict == "inconclusive" and v.implied_constant is None
