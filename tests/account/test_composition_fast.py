"""The calibration's composition curve (the accountant's: verify/account/composition.py) against dp_accounting's own
accountant, and the coarse-to-fine calibration that solves it (verify/account/calibration.py)."""

from __future__ import annotations

import dp_accounting
import numpy as np
import pytest
from dp_accounting.pld import pld_privacy_accountant

from verify.account.calibration import _extrapolated, calibrate_schedule
from verify.account.running import Accountant

VERDICTS = {"bu2020/thm3": "verified"}


def test_schedule_curve_agrees_with_dp_accountings_accountant():
    """The calibration's curve is the accountant's composition (dp_accounting's pessimistic PLD, one path):
    against dp_accounting's own PLD accountant on the same two phases (it builds its PLD by its own route, one
    loss at a time), to its rounding."""
    acc = Accountant(verdicts=VERDICTS).step(1.1, 0.01, steps=300).step(0.9, 0.02, steps=100)
    mine = acc.composition_eps(1e-5)
    reference = pld_privacy_accountant.PLDAccountant(dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE,
                                                     value_discretization_interval=acc.accuracy)
    for z, q, steps in ((1.1, 0.01, 300), (0.9, 0.02, 100)):
        reference.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(z)), steps)
    assert mine == pytest.approx(reference.get_epsilon(1e-5), rel=1e-6)


def test_extrapolation_recovers_a_second_order_grid_error():
    """Richardson's extrapolation is exact for an error ``k h^2`` (the connect-the-dots PLD's order)."""
    E, k = 0.8, 37.0
    hs = (1e-3, 5e-4)
    assert _extrapolated(hs, [E + k * h**2 for h in hs], 1e-4) == pytest.approx(E + k * 1e-4**2, rel=1e-12)
    assert _extrapolated(hs, [E + k * h**2 for h in hs], 0.0) == pytest.approx(E, rel=1e-12)


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


def test_a_grown_schedule_composes_only_its_last_phase(monkeypatch):
    """The composition of a schedule's prefix is kept: extending the schedule by a phase composes once more,
    and the result equals the composition built from nothing (the same dp_accounting products)."""
    from verify.account import composition
    from verify.privacy import pld

    phases = [composition.Phase(1.1, 0.01, "poisson", 300), composition.Phase(0.9, 0.02, "poisson", 100),
              composition.Phase(1.3, 0.01, "poisson", 50)]
    pld.CACHE.clear()
    fresh = composition.schedule_pld(phases, "add_remove", 1.0, 1e-3).eps(1e-5)
    pld.CACHE.clear()
    composition.schedule_pld(phases[:2], "add_remove", 1.0, 1e-3)
    composes = []
    original = pld.Composition.compose
    monkeypatch.setattr(pld.Composition, "compose", lambda self, other: composes.append(1) or original(self, other))
    grown = composition.schedule_pld(phases, "add_remove", 1.0, 1e-3).eps(1e-5)
    assert len(composes) == 1 and grown == fresh
