"""Tests of verify/privacy/gaussian.py against public vectors, mpmath and independent identities."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from verify.privacy.gaussian import (
    gaussian_mechanism_delta,
    gaussian_mechanism_eps,
    gaussian_mechanism_mu,
    gaussian_mechanism_rdp,
    gdp_delta,
    gdp_eps,
    gdp_log_delta,
    gdp_to_rdp,
    tradeoff_gaussian,
    tradeoff_gaussian_inverse,
)

mp.mp.dps = 60
FAST = settings(deadline=None, max_examples=60)


def mp_log_delta(mu, eps) -> mp.mpf:
    """log delta(eps) of mu-GDP in 60-digit arithmetic (DRS22 Cor. 1)."""
    with mp.workdps(60):  # local: other modules change the global mpmath precision
        mu, eps = mp.mpf(mu), mp.mpf(eps)
        return +mp.log(mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2))


# ---- public reference vectors ---------------------------------------------------------------------


def test_gdp_delta_reference_vectors(gdp_vectors):
    for case in gdp_vectors["gdp_delta_of_eps"]["cases"]:
        got = gdp_delta(case["mu"], case["eps"])
        # the reference values are printed with 8-9 significant digits
        assert got == pytest.approx(case["delta"], abs=1e-8), case


def test_gdp_tradeoff_reference_vectors(gdp_vectors):
    block = gdp_vectors["gdp_tradeoff"]
    for case in block["cases"]:
        tpr = 1.0 - tradeoff_gaussian(case["a"], block["mu"])
        assert tpr == pytest.approx(case["tpr"], rel=1e-3), case


# ---- mpmath at extreme points ---------------------------------------------------------------------


@pytest.mark.parametrize("mu", [1e-4, 0.3, 1.0, 40.0, 50.0])
@pytest.mark.parametrize("eps", [-3.0, 0.0, 1e-3, 1.0, 30.0, 500.0])
def test_gdp_log_delta_matches_mpmath(mu, eps):
    ref = mp_log_delta(mu, eps)
    got = gdp_log_delta(mu, eps)
    assert math.isfinite(got)
    assert got == pytest.approx(float(ref), rel=1e-11, abs=1e-300 if ref != 0 else 1e-13)


@pytest.mark.parametrize("mu", [1e-4, 1.0, 40.0, 50.0])
@pytest.mark.parametrize("delta", [1e-300, 1e-100, 1e-10, 1e-5, 0.3])
def test_gdp_eps_solves_mpmath_equation(mu, delta):
    eps = gdp_eps(mu, delta)
    delta0 = float(mp.erf(mp.mpf(mu) / (2 * mp.sqrt(2))))  # delta(0) = 2 Phi(mu/2) - 1
    if delta >= delta0:
        assert eps == 0.0
        return
    assert eps > 0
    # at the returned eps, the high-precision delta equals the target (in log space)
    assert float(mp_log_delta(mu, eps)) == pytest.approx(math.log(delta), rel=1e-10)


def test_gdp_eps_zero_branch_and_mu_zero():
    assert gdp_eps(1.0, 0.5) == 0.0  # delta(0; 1) = 0.3829 < 0.5
    assert gdp_eps(0.0, 1e-5) == 0.0
    assert gdp_delta(0.0, 1.0) == 0.0
    assert gdp_delta(0.0, -1.0) == pytest.approx(1 - math.exp(-1.0), rel=1e-15)


# ---- round trips and properties --------------------------------------------------------------------


@FAST
@given(mu=st.floats(1e-3, 50.0), eps=st.floats(1e-3, 300.0))
@example(mu=40.0, eps=500.0)
@example(mu=1e-3, eps=1e-3)
def test_round_trip_eps_delta_eps(mu, eps):
    log_d = gdp_log_delta(mu, eps)
    if log_d < math.log(1e-300) or math.exp(log_d) >= 1.0:
        return  # outside the float range of delta in (0, 1): covered by the log-space tests above
    back = gdp_eps(mu, math.exp(log_d))
    if log_d < math.log(0.5):
        assert back == pytest.approx(eps, rel=1e-9, abs=1e-12)
    else:
        # delta near 1 stores little of eps (1 - delta ~ 1e-14 at mu=40, eps=500): check backward error
        assert gdp_delta(mu, back) == pytest.approx(math.exp(log_d), rel=1e-14)


@FAST
@given(a=st.floats(0.0, 1.0), mu=st.floats(0.0, 10.0))
def test_tradeoff_is_an_involution(a, mu):
    back = tradeoff_gaussian_inverse(tradeoff_gaussian(a, mu), mu)
    # G_mu is symmetric: G_mu(G_mu(a)) = a, up to the conditioning of Phi at the tails
    assert back == pytest.approx(a, abs=1e-9)


@FAST
@given(mu=st.floats(0.0, 20.0), eps=st.lists(st.floats(-50.0, 200.0), min_size=2, max_size=20))
def test_delta_non_increasing_and_in_unit_interval(mu, eps):
    e = np.sort(np.array(eps))
    d = gdp_delta(mu, e)
    assert np.all((d >= 0) & (d <= 1))
    assert np.all(np.diff(d) <= 1e-15)


@FAST
@given(mu=st.floats(0.0, 8.0))
def test_tradeoff_convex_non_increasing_below_identity(mu):
    a = np.linspace(0.0, 1.0, 2001)
    f = tradeoff_gaussian(a, mu)
    assert np.all(f <= 1.0 - a + 1e-15)
    assert np.all(np.diff(f) <= 1e-15)
    assert np.all(np.diff(f, 2) >= -1e-12)


def test_delta_is_the_conjugate_of_the_tradeoff():
    # delta(eps) = sup_a 1 - G_mu(a) - e^eps a (DRS22 Prop. 6), by brute force on a fine grid
    a = np.concatenate([np.logspace(-12, 0, 200001)])
    for mu, eps in [(0.5, 0.2), (1.0, 1.0), (2.0, 3.0)]:
        brute = np.max(1.0 - tradeoff_gaussian(a, mu) - math.exp(eps) * a)
        assert gdp_delta(mu, eps) == pytest.approx(brute, rel=1e-7)


def test_gdp_to_rdp_is_the_renyi_divergence_of_shifted_gaussians():
    # D_alpha(N(mu,1) || N(0,1)) by mpmath quadrature (Mironov 2017 Prop. 7 is alpha mu^2 / 2)
    for mu, alpha in [(0.5, 2.0), (1.3, 3.7), (2.0, 1.5)]:
        m, a = mp.mpf(mu), mp.mpf(alpha)
        integral = mp.quad(lambda x: mp.npdf(x, m, 1) ** a * mp.npdf(x, 0, 1) ** (1 - a), [-mp.inf, 0, m, mp.inf])
        ref = float(mp.log(integral) / (a - 1))
        assert gdp_to_rdp(mu, alpha) == pytest.approx(ref, rel=1e-12)


def test_gaussian_mechanism_balle_wang():
    # Balle & Wang 2018 Thm. 8 in the mechanism's own units, evaluated by mpmath
    s, sigma, delta = 2.0, 3.0, 1e-6
    eps = gaussian_mechanism_eps(s, sigma, delta)
    S, Sg, E = mp.mpf(s), mp.mpf(sigma), mp.mpf(eps)
    ref = mp.ncdf(S / (2 * Sg) - E * Sg / S) - mp.exp(E) * mp.ncdf(-S / (2 * Sg) - E * Sg / S)
    assert float(ref) == pytest.approx(delta, rel=1e-9)
    assert gaussian_mechanism_delta(s, sigma, eps) == pytest.approx(delta, rel=1e-9)
    assert gaussian_mechanism_mu(s, sigma) == pytest.approx(2.0 / 3.0)
    assert gaussian_mechanism_rdp(s, sigma, 3.0) == pytest.approx(3.0 * 4.0 / 18.0)


def test_broadcasting_shapes():
    mu = np.array([[0.5], [1.0]])
    eps = np.array([0.0, 1.0, 2.0])
    assert np.shape(gdp_delta(mu, eps)) == (2, 3)
    assert np.shape(gdp_eps(mu, np.array([1e-5, 1e-3, 0.1]))) == (2, 3)
    assert isinstance(gdp_delta(1.0, 1.0), float)


# ---- bad input and fuzz ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: gdp_delta(-1.0, 1.0), "mu"),
        (lambda: gdp_delta(float("nan"), 1.0), "mu"),
        (lambda: gdp_delta(1.0, float("nan")), "eps"),
        (lambda: gdp_eps(1.0, 0.0), "delta"),
        (lambda: gdp_eps(1.0, 1.0), "delta"),
        (lambda: gdp_eps(-0.1, 0.1), "mu"),
        (lambda: gdp_to_rdp(1.0, 1.0), "alpha"),
        (lambda: tradeoff_gaussian(1.5, 1.0), "a"),
        (lambda: tradeoff_gaussian(0.5, float("inf")), "mu"),
        (lambda: gaussian_mechanism_mu(1.0, 0.0), "noise"),
        (lambda: gaussian_mechanism_mu(-1.0, 1.0), "sensitivity"),
        (lambda: gdp_delta("abc", 1.0), "mu"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        call()


@settings(deadline=None, max_examples=100)
@given(
    mu=st.floats(0.0, 60.0),
    eps=st.floats(-1e3, 1e4),
    delta=st.floats(1e-308, 1.0, exclude_max=True),
    a=st.floats(0.0, 1.0),
)
def test_fuzz_no_nan_or_inf(mu, eps, delta, a):
    values = [gdp_delta(mu, eps), gdp_eps(mu, delta), tradeoff_gaussian(a, mu), gdp_to_rdp(mu, 2.0)]
    assert all(math.isfinite(v) for v in values)
    if mu >= 1e-100:  # below, log delta ~ -eps^2 / (2 mu^2) itself overflows a float
        assert math.isfinite(gdp_log_delta(mu, eps)) or (mu == 0.0 and eps >= 0.0)
