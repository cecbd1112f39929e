"""A PLD operator's error is measured, not assumed: at small sampling rates over thousands of steps the
pessimistic PLD at the default interval exceeds the exact curve by far more than the floor of 1e-6 the
operators used to state, and a bound is neither violated on that excess nor called sound inside it unsaid.

The reference for each excess is the same composition at an eight times finer interval (a refinement the
measured error does not use)."""

from __future__ import annotations

import dataclasses
import pytest

import theorems
from verify.check import certify
from verify.check import references as refs
from verify.privacy.operators import pld_interval
from verify.privacy.pld import DEFAULT_INTERVAL

#: small rate, thousands of steps: where the excess is large (delta about 6e-9 at eps = 2)
POINT = dict(q=0.0043, z=1.0, T=3516, eps=2.0)


def _at(theorem, h=None, **point):
    values = {p: point[p] for p in theorem.parameters}
    if h is None:
        return float(theorem.evaluate(allow_outside_assumptions=True, **values))
    with pld_interval(h):
        return float(theorem.evaluate(allow_outside_assumptions=True, **values))


@pytest.fixture(scope="module")
def thm3():
    return theorems.get("bu2020/thm3")


def _point(theorem):
    return {p: POINT.get(p, 1.0) for p in theorem.parameters}


def test_the_measured_error_covers_the_excess_the_floor_understated(thm3):
    point = _point(thm3)
    coarse, finest = _at(thm3, **point), _at(thm3, DEFAULT_INTERVAL / 8, **point)
    excess = (coarse - finest) / coarse
    assert excess > 100 * certify.OPERATOR_RTOL  # the stated floor was 1e-6; the excess is 4e-4 here
    error = certify.operator_error(thm3, point, direction=-1)
    assert error >= excess
    # pessimistic: refining lowers the bound, so the true bound never lies above the computed one
    assert certify.operator_error(thm3, point, direction=+1) == certify.stated_rtol(thm3)
    assert certify.operator_error(theorems.get("bu2020/eq3.2"), point) is None  # a closed form: no PLD


def test_a_lower_bound_is_not_violated_on_the_excess_alone(thm3):
    """The same composition read as a lower bound, against an exact value on the finer grid: with the floor of
    1e-6 the excess would be certified as a violation; with the measured error it is not."""
    lower = dataclasses.replace(thm3, id="test/thm3-as-lower", kind="lower", variants=(), claims=(), steps=(),
                                errata=(), printed_of=None, expect_fail=())
    point = _point(lower)
    exact = _at(lower, DEFAULT_INTERVAL / 8, **point)
    comparison = refs.Comparison(exact=exact, bound=_at(lower, **point), at=point["eps"], tolerance=1e-9)
    assert certify.violation_margin(lower, point, comparison) is None
    # a real violation, well beyond the error, is still certified
    far = refs.Comparison(exact=0.5 * exact, bound=comparison.bound, at=point["eps"], tolerance=1e-9)
    assert certify.violation_margin(lower, point, far) > 0.4


def test_an_upper_bound_sound_only_inside_its_error_says_so(thm3):
    """An upper bound just below the exact value (by less than its own error) is stated as sound up to that
    error: the words name the error and the margin."""
    from verify.check.evidence import Witness
    from verify.check.soundness.obligations import error_words, operator_error_at_worst
    from verify.check.soundness.record import Record

    point = _point(thm3)
    bound = _at(thm3, **point)
    record = Record()
    record.examples, record.ratios = 1, [0.9999]
    record.families = {"dpsgd_worst_step"}
    record.worst = Witness(instance="x", family="dpsgd_worst_step",
                           parameters={k: v for k, v in point.items() if k != "eps"}, at=point["eps"],
                           exact=0.9999 * bound, bound=bound, parameter="eps", ratio=0.9999)
    error = operator_error_at_worst(thm3, record)
    assert error > 1e-4
    words = error_words(thm3, record, error)  # appended to a passed soundness obligation's detail
    assert "sound up to that error" in words and f"{error:.2g}" in words and "(0.0001)" in words
    assert "sound up to" not in error_words(thm3, record, 1e-5)  # a margin beyond the error: said, no doubt
