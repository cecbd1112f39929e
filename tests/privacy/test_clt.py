"""Tests of verify/privacy/clt.py against the papers' printed values and mpmath."""

from __future__ import annotations

import math

import mpmath as mp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.privacy.clt import clt_mu_poisson, clt_mu_symmetric, clt_mu_uniform

mp.mp.dps = 50


def test_reference_vector(gdp_vectors):
    for case in gdp_vectors["clt_mu_poisson"]["cases"]:
        assert clt_mu_poisson(case["q"], case["T"], case["z"]) == pytest.approx(case["mu"], rel=1e-12)


@pytest.mark.parametrize(
    "n, B, sigma, epochs, printed",
    [
        (60000, 256, 1.3, 15, 0.23),
        (60000, 256, 1.1, 60, 0.57),
        (60000, 256, 0.7, 45, 1.13),
        (60000, 256, 0.6, 62, 2.00),
        (60000, 256, 0.55, 68, 2.76),
        (60000, 256, 0.5, 100, 4.78),
        (29305, 256, 0.55, 18, 2.03),
        (25000, 512, 0.56, 9, 2.07),
    ],
)
def test_bu_tables_clt_mu(n, B, sigma, epochs, printed):
    # Bu et al. 2020 Tables 1-3, "CLT mu" (T = epochs n / B as a float, as TF-Privacy)
    assert clt_mu_poisson(B / n, epochs * n / B, sigma) == pytest.approx(printed, abs=0.005)


@pytest.mark.parametrize("epochs, printed", [(50, 1.03), (100, 1.45), (200, 2.05)])
def test_bok_table3_noisy_sgd_composition(epochs, printed):
    # Bok et al. 2024 Table 3 "Comp. NoisySGD": p = 0.025, mu1 = 2/3, T = 40 E
    assert clt_mu_symmetric(0.025, 2.0 / 3.0, 40 * epochs) == pytest.approx(printed, abs=0.005)


@pytest.mark.parametrize("mu1", [1e-8, 1e-4, 9e-3, 1.1e-2, 0.7, 4.9, 5.1, 20.0, 37.0])
def test_symmetric_matches_mpmath(mu1):
    m = mp.mpf(mu1)
    bracket = mp.exp(m * m) * mp.ncdf(1.5 * m) + 3 * mp.ncdf(-m / 2) - 2
    ref = mp.sqrt(2) * mp.mpf("0.01") * mp.sqrt(500) * mp.sqrt(bracket)
    assert clt_mu_symmetric(0.01, mu1, 500) == pytest.approx(float(ref), rel=1e-11)


def test_poisson_matches_mpmath_at_extremes():
    for z in [0.05, 0.5, 30.0, 1e4]:
        ref = mp.mpf("0.01") * mp.sqrt(1000 * mp.expm1(1 / mp.mpf(z) ** 2))
        assert clt_mu_poisson(0.01, 1000, z) == pytest.approx(float(ref), rel=1e-12)


@settings(deadline=None, max_examples=30)
@given(p=st.floats(1e-4, 1.0), T=st.floats(1.0, 1e6), z=st.floats(0.2, 100.0))
def test_uniform_is_symmetric_at_inverse_noise_and_above_poisson(p, T, z):
    u = clt_mu_uniform(p, T, z)
    assert u == clt_mu_symmetric(p, 1.0 / z, T)
    # symmetric vs one-sided: 2 F(m) / (e^{m^2} - 1) runs from 1 (m -> 0, both ~ m^2) to 2 (m -> inf)
    ratio = u / clt_mu_poisson(p, T, z)
    assert 1.0 - 1e-12 <= ratio <= math.sqrt(2.0) + 1e-12


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: clt_mu_poisson(0.0, 10, 1.0), "q"),
        (lambda: clt_mu_poisson(0.1, 0, 1.0), "T"),
        (lambda: clt_mu_poisson(0.1, 10, 0.0), "z"),
        (lambda: clt_mu_poisson(0.1, 10, 1e-3), "z"),
        (lambda: clt_mu_symmetric(0.1, -1.0, 10), "mu1"),
        (lambda: clt_mu_symmetric(0.1, 50.0, 10), "mu1"),
        (lambda: clt_mu_symmetric(2.0, 1.0, 10), "p"),
        (lambda: clt_mu_uniform(0.1, 10, float("nan")), "z"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        call()
