"""The notion registry: one record per notion, read by every part of the tool."""

import math

import mpmath
import numpy as np
import pytest
from scipy.stats import norm

from verify.errors import InputError
from verify.privacy.notions import Notion, effective_mu, invert_delta, notion, notions, register_notion


def test_every_notion_is_registered_once():
    names = [n.name for n in notions()]
    assert names == ["rdp", "gdp", "fdp", "eps_delta", "utility"]
    with pytest.raises(ValueError, match="already registered"):
        register_notion(Notion(name="gdp", label="again", quantity="mu"))


def test_unknown_notion_names_the_known_ones():
    with pytest.raises(InputError, match="rdp") as info:
        notion("zcdp")
    assert info.value.parameter == "notion"


def test_parameters_and_privacy_flags():
    assert {n.name: n.parameter for n in notions()} == {
        "rdp": "alpha", "gdp": None, "fdp": "eps", "eps_delta": "delta", "utility": None}
    assert not notion("utility").privacy
    assert all(n.privacy for n in notions() if n.name != "utility")


def test_invert_delta_on_a_closed_form():
    """delta(eps) = exp(-eps) inverts to eps = -log(delta)."""
    deltas = np.array([0.5, 0.1, 1e-3])
    eps = invert_delta(lambda e: np.exp(-np.asarray(e)), deltas)
    np.testing.assert_allclose(eps, -np.log(deltas), rtol=1e-12)
    assert invert_delta(lambda e: np.exp(-np.asarray(e)), np.array([2.0]))[0] == 0.0  # delta above the curve


def test_invert_delta_unreachable_is_infinite():
    """A curve with a singular part (delta never below 0.2) has eps = inf at delta = 0.1."""
    eps = invert_delta(lambda e: 0.2 + 0.8 * np.exp(-np.asarray(e)), np.array([0.1]))
    assert eps[0] == math.inf


def _gdp_delta_mpmath(mu, eps):
    """Dong, Roth & Su 2022, Cor 2.13, at 50 digits (independent of verify.privacy.gaussian)."""
    with mpmath.workdps(50):
        mu, eps = mpmath.mpf(mu), mpmath.mpf(eps)
        return float(mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2))


def test_gdp_reading_matches_an_independent_computation():
    eps = notion("gdp").to_eps(lambda at: 1.0, 1e-5)
    assert math.isclose(_gdp_delta_mpmath(1.0, eps), 1e-5, rel_tol=1e-8)


def test_fdp_reading_inverts_the_guarantee():
    """A guarantee stated as the Gaussian's delta(eps) reads back as the GDP epsilon."""
    def delta_of(e):
        return norm.cdf(-e / 1.0 + 0.5) - np.exp(e) * norm.cdf(-e / 1.0 - 0.5)
    eps = notion("fdp").to_eps(lambda at: float(delta_of(at)), 1e-3)
    assert math.isclose(_gdp_delta_mpmath(1.0, eps), 1e-3, rel_tol=1e-6)


def test_rdp_reading_of_a_gaussian_is_above_the_exact_eps():
    """RDP -> (eps, delta) is a valid (so not smaller) conversion: alpha mu^2 / 2 is mu-GDP's curve."""
    eps = notion("rdp").to_eps(lambda alpha: np.asarray(alpha) * 0.5, 1e-5)
    exact = notion("gdp").to_eps(lambda at: 1.0, 1e-5)
    assert exact <= eps <= 1.5 * exact


class _Gaussian:
    mu = None

    def __init__(self, mu):
        self._mu = mu

    def delta(self, eps):
        e = np.asarray(eps, dtype=float)
        return norm.cdf(-e / self._mu + self._mu / 2) - np.exp(e) * norm.cdf(-e / self._mu - self._mu / 2)


def test_effective_mu_of_a_profile_given_only_by_its_delta_curve():
    assert math.isclose(effective_mu(_Gaussian(0.8)), 0.8, rel_tol=1e-6)


def test_alpha_is_checked_by_its_notion():
    with pytest.raises(InputError, match="alpha must be > 1") as info:
        notion("rdp").check_parameter(np.array([1.0]), "here")
    assert info.value.parameter == "alpha"
