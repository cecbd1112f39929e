"""Shuffled batches in the running accountant: the derived record ``derived/shuffle/composition``.

References: GDP -> (eps, delta) solved here from Dong-Roth-Su 2022 Cor. 2.13 with scipy (not the package's
conversion), and the exact law of a shuffled run (``subsampled_linear(batches="shuffle")``, a partial epoch).
"""

from __future__ import annotations

import math

import pytest
from scipy.optimize import brentq
from scipy.stats import norm

from verify.account.running import SHUFFLE_THEOREM, Accountant
from verify.errors import InputError
from verify.instances.families import subsampled_linear

VERDICTS = {SHUFFLE_THEOREM: "verified"}


def gdp_eps_reference(mu: float, delta: float) -> float:
    def excess(eps: float) -> float:
        return norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * norm.cdf(-eps / mu - mu / 2) - delta
    return brentq(excess, 0.0, 50.0 * mu + 50.0, xtol=1e-13, rtol=1e-13)


def test_shuffled_steps_use_the_derived_record():
    acc = Accountant(verdicts=VERDICTS)
    acc.step(2.0, 0.01, batches="shuffle", steps=250)  # l = 100: three epochs begun
    answer = acc.epsilon(1e-5)
    assert (answer.theorem, answer.verdict, answer.adjacency) == (SHUFFLE_THEOREM, "verified", "replace")
    mu = math.sqrt(3) * 2.0 / 2.0  # replace-one: Delta = 2 Cclip, per use mu = Delta/(z Cclip)
    assert answer.eps == pytest.approx(gdp_eps_reference(mu, 1e-5), rel=1e-7)
    assert answer.bracket[0] is None  # a bound, not an exact composition


def test_shuffled_bound_holds_on_the_exact_shuffled_run():
    """n = 4, b = 2 (q = 1/2, l = 2), three steps (a partial epoch), z = 1.5, Cclip = 1: canonical sigma =
    z Cclip / b, gradients +-1 (Delta = 2)."""
    z, n, b, T, delta = 1.5, 4, 2, 3, 1e-3
    acc = Accountant(verdicts=VERDICTS, n=n)
    acc.step(z, b / n, batches="shuffle", steps=T)
    inst = subsampled_linear(n, 0.5, z / b, T, 2.0, b, batches="shuffle", offset=1.0, cells=8192)
    profile = inst.profile()
    exact = float(profile.eps(delta))
    answer = acc.epsilon(delta)
    assert answer.theorem == SHUFFLE_THEOREM
    assert exact * (1 - 1e-3) <= answer.eps
    assert acc.delta(answer.eps).delta == pytest.approx(delta, rel=1e-6)


def test_shuffled_schedules_outside_the_record_get_no_bound():
    changing = Accountant(verdicts=VERDICTS)
    changing.step(2.0, 0.01, batches="shuffle", steps=100).step(1.0, 0.01, batches="shuffle", steps=100)
    assert "one noise multiplier" in changing._shuffle_refusal()
    with pytest.raises(InputError, match="no verified bound"):
        changing.epsilon(1e-5)
    fractional = Accountant(verdicts=VERDICTS).step(2.0, 0.3, batches="shuffle", steps=10)
    assert "whole number" in fractional._shuffle_refusal()
    unverified = Accountant(verdicts={}).step(2.0, 0.01, batches="shuffle", steps=10)
    assert "verdict unchecked" in unverified._shuffle_refusal()


def test_constrained_convex_shuffled_run_gets_the_window_record():
    """A known run (n, eta, D, M, L) on shuffled batches: the one-phase route evaluates every registry record,
    the derived window bound among them, at the run's canonical values."""
    import theorems

    verdicts = {SHUFFLE_THEOREM: "verified", "derived/shuffle/window": "verified"}
    acc = Accountant(verdicts=verdicts, n=100, D=0.05, M=1.0, L=0.5, loss="convex")
    acc.step(0.5, 0.1, batches="shuffle", steps=200, eta=0.5)  # l = 10, 20 epochs
    answer = acc.epsilon(1e-5)
    window = [c for c in answer.candidates if c.theorem == "derived/shuffle/window"]
    assert window and answer.theorem == "derived/shuffle/window"  # the last iterate beats composition here
    # canonical units: b = 10, sigma = z Cclip / b = 0.05, Delta = 2 L = 1
    mu = float(theorems.get("derived/shuffle/window").evaluate(b=10, l=10, T=200, eta=0.5, sigma=0.05, Delta=1.0,
                                                               D=0.05, M=1.0))
    assert window[0].value == pytest.approx(gdp_eps_reference(mu, 1e-5), rel=1e-6)
