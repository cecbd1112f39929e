"""The faster composition of the calibration (verify/account/composition.py) against dp_accounting's own, and
the coarse-to-fine calibration that uses it (verify/account/calibration.py)."""

from __future__ import annotations

import dp_accounting
import numpy as np
import pytest
from dp_accounting.pld import pld_privacy_accountant

from verify.account.calibration import AGREEMENT, _extrapolated, calibrate_schedule
from verify.account.composition import schedule_eps_fast, self_composed
from verify.account.running import Accountant
from verify.privacy.pld import Composition

VERDICTS = {"bu2020/thm3": "verified"}


@pytest.mark.parametrize("q, mu, steps", [(0.01, 2.0 / 1.3, 500), (0.05, 1.0, 40)])
def test_self_composition_equals_dp_accounting(q, mu, steps):
    one = Composition.subsampled_gaussian(q, mu, 1, "poisson", "add_remove", 1e-4).pld
    for pmf in (one._pmf_remove, one._pmf_add):
        mine, theirs = self_composed(pmf, steps), pmf.self_compose(steps)
        assert mine._infinity_mass == pytest.approx(theirs._infinity_mass, rel=1e-12, abs=1e-18)
        for eps in (0.0, 0.5, 2.0):
            assert mine.get_delta_for_epsilon(eps) == pytest.approx(theirs.get_delta_for_epsilon(eps), rel=1e-8,
                                                                    abs=1e-15)


def test_schedule_curve_agrees_with_the_accountant_within_the_margin():
    acc = Accountant(verdicts=VERDICTS).step(1.1, 0.01, steps=300).step(0.9, 0.02, steps=100)
    mine = schedule_eps_fast(acc.phases, acc.adjacency, acc.sensitivity_ratio, acc.accuracy, 1e-5)
    assert mine == pytest.approx(acc.composition_eps(1e-5), rel=AGREEMENT / 10)


def test_extrapolation_recovers_a_power_law():
    E, k, p = 0.8, 37.0, 1.9
    hs = (2e-3, 1e-3, 5e-4)
    assert _extrapolated(hs, [E + k * h**p for h in hs], 1e-4) == pytest.approx(E + k * 1e-4**p, rel=1e-10)


def test_calibration_needs_one_fine_composition_and_never_overshoots():
    """The extrapolated start lands in or next to the window: at most two compositions at the accountant's
    accuracy; the factor meets the target under the accountant and under dp_accounting's own PLD accountant (at
    a finer grid: independent)."""
    q, steps, eps, delta = 0.02, 400, 2.0, 1e-5
    result = calibrate_schedule(Accountant(verdicts=VERDICTS).step(1.0, q, steps=steps), eps=eps, delta=delta)
    assert result.fine_evaluations <= 2 and result.within_tolerance  # usually 1 (the benchmark prints them)
    assert eps * (1 - 1e-4) <= result.accountant.composition_eps(delta) <= eps
    reference = pld_privacy_accountant.PLDAccountant(dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE,
                                                     value_discretization_interval=1e-5)
    reference.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(result.factor)), steps)
    assert reference.get_epsilon(delta) <= eps
