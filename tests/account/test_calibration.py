"""``verify.calibrate``: closed-form noise levels, the round trip through ``account``, never overshooting."""

from __future__ import annotations

import math

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import verify
from verify.account import CalibrationError, account, calibrate, smallest_sigma
from verify.account.calibration import RTOL
from verify.account.run import RunError

from .records import GD_COMPOSITION, GD_RDP, GD_STRONGLY_CONVEX, NO_SIGMA, RUN, VERDICTS

NOISELESS = {k: v for k, v in RUN.items() if k != "sigma"}
CLOSED_FORMS = [GD_COMPOSITION, GD_RDP, GD_STRONGLY_CONVEX]


def _gdp_mu_mpmath(eps: float, delta: float) -> float:
    """The mu whose GDP curve passes through (eps, delta) (Dong–Roth–Su Cor. 1), bisection at 40 digits."""
    with mpmath.workdps(40):
        def excess(mu):
            return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2) - delta

        lo, hi = mpmath.mpf("1e-6"), mpmath.mpf(100)
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (lo, mid) if excess(mid) > 0 else (mid, hi)
        return float(lo)


def test_mu_target_closed_form():
    mu_target = 0.5
    result = calibrate(NOISELESS, mu=mu_target, theorems=[GD_COMPOSITION], verdicts=VERDICTS)
    exact = math.sqrt(200) * 2.0 / (1000 * mu_target)  # sqrt(T) Delta / (n mu)
    assert exact * (1 - 1e-12) <= result.sigma <= exact / (1 - RTOL)
    assert mu_target * (1 - RTOL) <= result.best.value <= mu_target


def test_eps_target_against_mpmath_inversion():
    eps, delta = 1.0, 1e-6
    result = calibrate(NOISELESS, eps=eps, delta=delta, theorems=[GD_COMPOSITION], verdicts=VERDICTS)
    exact = math.sqrt(200) * 2.0 / (1000 * _gdp_mu_mpmath(eps, delta))
    assert exact * (1 - 1e-9) <= result.sigma <= exact * (1 + 10 * RTOL)


def test_best_bound_and_composition_baseline():
    mu_target = 0.2
    result = calibrate(NOISELESS, mu=mu_target, theorems=CLOSED_FORMS, verdicts=VERDICTS)
    c, T = 1 - 0.1 * 0.1, 200  # Bok et al. Thm 4.2 solved for sigma
    ours = 2.0 / (1000 * mu_target) * math.sqrt((1 + c) / (1 - c) * (1 - c**T) / (1 + c**T))
    comp = math.sqrt(T) * 2.0 / (1000 * mu_target)
    assert result.best.id == "test/gd-strongly-convex"
    assert ours * (1 - 1e-12) <= result.sigma <= ours / (1 - RTOL)
    assert result.composition.id == "test/gd-composition"
    assert comp * (1 - 1e-12) <= result.composition.sigma <= comp / (1 - RTOL)
    assert {r.id: r.note for r in result.rows}["test/gd-rdp"] == "no mu reading (rdp guarantee)"


@settings(deadline=None, max_examples=50)
@given(
    n=st.integers(100, 100_000),
    T=st.integers(1, 2000),
    m=st.floats(1e-3, 1.0),
    kappa=st.floats(1.0, 100.0),
    step=st.floats(0.05, 0.95),
    Delta=st.floats(0.1, 10.0),
    eps=st.floats(0.1, 10.0),
    log_delta=st.floats(-8.0, -3.0),
)
def test_round_trip_meets_the_target_within_tolerance(n, T, m, kappa, step, Delta, eps, log_delta):
    M = m * kappa
    run = dict(n=n, batches="full", T=T, eta=step * 2 / M, Delta=Delta, m=m, M=M)
    delta = 10.0**log_delta
    result = calibrate(run, eps=eps, delta=delta, theorems=CLOSED_FORMS, verdicts=VERDICTS)
    again = account(result.calibrated_run, delta=delta, theorems=CLOSED_FORMS, verdicts=VERDICTS)
    assert again.eps <= eps  # never overshoots
    assert again.eps >= eps * (1 - RTOL)  # within the stated tolerance
    # and it is the smallest: 2% less noise misses the target under every valid bound
    assert account(result.calibrated_run.with_sigma(0.98 * result.sigma), delta=delta, theorems=CLOSED_FORMS,
                   verdicts=VERDICTS).eps > eps


def test_registry_round_trip_strongly_convex_full_batch():
    run = dict(n=1000, batches="full", T=200, eta=0.1, Delta=1.0, m=0.5, M=1.0)
    result = calibrate(run, eps=1.0, delta=1e-5, include_unverified=True, verdicts={})
    assert result.best.id == "bok2024/thm4.2"
    assert result.composition.sigma > 2 * result.sigma
    again = account(result.calibrated_run, delta=1e-5, include_unverified=True, verdicts={})
    assert again.best.id == "bok2024/thm4.2"
    assert 1.0 * (1 - RTOL) <= again.eps <= 1.0


def test_never_overshoots_a_jump():
    # a bound that jumps across the target: the answer stays on the side that meets it
    root = smallest_sigma(lambda s: 2.0 if s < 1.0 else 0.5, target=1.0, scale=0.3)
    assert root.sigma >= 1.0 and root.value == 0.5 and not root.within_tolerance
    assert root.sigma <= 1.0 + 1e-9


def test_never_overshoots_a_wiggly_bound():
    # non-monotone noise on a 1/sigma bound: whatever the path, the returned point meets the target
    root = smallest_sigma(lambda s: (1 + 0.01 * math.sin(1e3 * s)) / s, target=0.37, scale=1.0)
    assert root.value <= 0.37 and (1 + 0.01 * math.sin(1e3 * root.sigma)) / root.sigma <= 0.37


@pytest.mark.parametrize("kwargs, message", [
    (dict(mu=0.5, theorems=[NO_SIGMA]), "target unreachable"),
    (dict(mu=0.5, theorems=[GD_RDP]), "target unreachable"),
    (dict(mu=1e-9, theorems=[GD_COMPOSITION]), "no sigma up to"),
    (dict(eps=1.0, theorems=[GD_COMPOSITION]), "give eps and delta"),
    (dict(eps=1.0, delta=1e-5, mu=1.0, theorems=[GD_COMPOSITION]), "not both"),
    (dict(eps=-1.0, delta=1e-5, theorems=[GD_COMPOSITION]), "eps must be"),
    (dict(eps=1.0, delta=1.0, theorems=[GD_COMPOSITION]), "delta must lie in"),
])
def test_unreachable_or_bad_targets(kwargs, message):
    with pytest.raises(CalibrationError if "unreach" in message or "no sigma" in message else ValueError,
                       match=message):
        calibrate(NOISELESS, verdicts=VERDICTS, **kwargs)


def test_calibrate_refuses_a_given_sigma():
    with pytest.raises(RunError, match="drop sigma"):
        calibrate(RUN, mu=1.0, theorems=[GD_COMPOSITION], verdicts=VERDICTS)


def test_python_entry_point_and_noise_multiplier():
    run = {**NOISELESS, "Cclip": 1.0}
    result = verify.calibrate(run, mu=0.5, theorems=[GD_COMPOSITION], verdicts=VERDICTS)
    assert result.z == pytest.approx(result.sigma * 1000 / 1.0, rel=1e-12)  # z = sigma b / Cclip, b = n


@pytest.mark.parametrize("target", [dict(eps=1e300, delta=1e-5), dict(mu=1e300)])
def test_a_target_met_at_every_sigma_is_refused_not_answered_with_a_false_tolerance(target):
    # calibrate --eps 1e300 answered the search floor and stated a tolerance it did not meet
    with pytest.raises(CalibrationError, match="constrains nothing") as info:
        calibrate(NOISELESS, theorems=[GD_COMPOSITION], verdicts=VERDICTS, **target)
    assert info.value.parameter == ("mu" if "mu" in target else "eps")


def test_every_answer_meets_the_tolerance_it_states():
    result = calibrate(NOISELESS, mu=0.5, theorems=[GD_COMPOSITION], verdicts=VERDICTS)
    payload = result.to_json()
    assert payload["tolerance"] == "mu in [target*(1-0.0001), target]"
    assert 0.5 * (1 - payload["rtol"]) <= payload["best"]["value"] <= 0.5
