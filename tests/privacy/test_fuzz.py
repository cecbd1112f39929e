"""Fuzz of every public function of ``verify.privacy`` (its ``__all__``): arbitrary floats (0, negatives,
tiny, huge, NaN, inf) either raise a ValueError (InputError) or give finite, non-negative values; +inf only
where it is the exact answer; no numpy warning escapes (warnings are errors here)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

import verify.privacy as privacy
from verify.privacy import Composition, PiecewiseLinearTradeoff

# any float, with the edge values weighted in
ANY = st.one_of(
    st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5, 1e-300, 5e-324, 1e300, -1e300, np.inf, -np.inf, np.nan, 1e-9, 1e9]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(min_value=1e-12, max_value=1.0),
    st.floats(min_value=1.0, max_value=1e6),
)
FAST = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
SLOW = settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))


def _calls(function, *args, allow_inf: bool = False, **kwargs):
    """Call with warnings as errors; bad input may raise ValueError, anything else fails the test."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            value = function(*args, **kwargs)
        except ValueError:
            return None
    values = np.asarray(value, dtype=float)
    assert not np.isnan(values).any(), (function.__name__, args, value)
    assert (values >= 0).all(), (function.__name__, args, value)
    if not allow_inf:
        assert np.isfinite(values).all(), (function.__name__, args, value)
    return value


def _curve(a):  # a valid tradeoff function (G_1)
    return privacy.tradeoff_gaussian(a, 1.0)


TWO = [
    privacy.tradeoff_gaussian, privacy.tradeoff_gaussian_inverse, privacy.gdp_delta, privacy.gdp_eps,
    privacy.gdp_to_rdp, privacy.gaussian_mechanism_mu, privacy.at22_alpha_star,
]
THREE = [
    privacy.clt_mu_poisson, privacy.clt_mu_symmetric, privacy.clt_mu_uniform, privacy.gaussian_mechanism_rdp,
    privacy.gaussian_mechanism_delta, privacy.gaussian_mechanism_eps, privacy.at22_S, privacy.sampled_gaussian_rdp,
    privacy.subsampled_gaussian_tradeoff, privacy.subsampled_gaussian_delta, privacy.tradeoff_eps_delta,
]


@pytest.mark.parametrize("function", TWO, ids=lambda f: f.__name__)
@FAST
@given(x=ANY, y=ANY)
@example(x=0.01, y=1e160).via("AT22 alpha* overflowed to 1.0")
@example(x=1e-300, y=5.0).via("AT22 alpha* at tiny q")
@example(x=1e300, y=1e-300)
def test_two_argument_functions(function, x, y):
    _calls(function, x, y)


@pytest.mark.parametrize("function", THREE, ids=lambda f: f.__name__)
@FAST
@given(x=ANY, y=ANY, z=ANY)
@example(x=1e50, y=0.01, z=1.0)
@example(x=2.0, y=0.01, z=1e-9)
@example(x=0.01, y=1.0, z=1e160)
@example(x=0.01, y=1e-154, z=2.5)
def test_three_argument_functions(function, x, y, z):
    _calls(function, x, y, z)


def test_gdp_log_delta_is_minus_inf_only_where_delta_is_zero():
    # log delta = -inf is the exact value at mu = 0, eps >= 0 (delta = 0)
    assert privacy.gdp_log_delta(0.0, 1.0) == -np.inf


@FAST
@given(mu=ANY, eps=ANY)
@example(mu=7.752434422481432e-67, eps=-1.401298464324817e-45)
@example(mu=2.0, eps=1120850998362330.0)
@example(mu=3.7936742309925884e-158, eps=5.960464477539063e-08)
def test_gdp_log_delta(mu, eps):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            value = privacy.gdp_log_delta(mu, eps)
        except ValueError:
            return
    assert value <= 0.0 and not np.isnan(value)
    # -inf is the float value of log delta <= -(eps/mu - mu/2)^2 / 2 < -1.8e308 (or of delta = 0 at mu = 0)
    assert value > -np.inf or (mu == 0.0 and eps >= 0.0) or (eps > 0 and math.log(eps) - math.log(mu) > math.log(1.89e154))


@FAST
@given(orders=ANY, rdp=ANY, x=ANY)
def test_rdp_conversions(orders, rdp, x):
    for convert in (privacy.rdp_to_dp_classical, privacy.rdp_to_dp_improved, privacy.rdp_to_delta):
        _calls(convert, [1.5, orders], [0.1, rdp], x)


@SLOW
@given(delta=ANY, scale=ANY)
def test_rdp_to_dp_continuous(delta, scale):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            eps, alpha = privacy.rdp_to_dp_continuous(lambda a: a * scale, delta)
        except ValueError:
            return
    assert np.isfinite(eps) and eps >= 0 and alpha > 1


@SLOW
@given(p=ANY, eps=ANY, grid=st.one_of(st.none(), ANY, st.sampled_from([10**12, 10**6, 2, 3, 50])))
@example(p=0.5, eps=1.0, grid=10**12).via("MemoryError")
def test_tradeoff_helpers(p, eps, grid):
    _calls(privacy.delta_from_tradeoff, _curve, eps, grid=grid)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            made = privacy.subsample_tradeoff(_curve, p, grid=grid)
        except ValueError:
            return
    _calls(made, eps)


@FAST
@given(x=st.lists(ANY, min_size=0, max_size=4), y=st.lists(ANY, min_size=0, max_size=4), a=ANY)
@example(x=[0.0, np.nan, 1.0], y=[1.0, 0.5, 0.0], a=0.3).via("NaN vertex returned NaN")
def test_piecewise_linear_tradeoff(x, y, a):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            f = PiecewiseLinearTradeoff(x, y)
        except ValueError:
            return
    _calls(f, a)


@SLOW
@given(p=ANY, mu=ANY, h=st.one_of(st.just(1e-4), ANY))
@example(p=0.5, mu=0.0, h=1e-4).via("ZeroDivisionError")
@example(p=0.5, mu=1e300, h=1e-4).via("OverflowError")
def test_symmetric_subsampled_gaussian_pld(p, mu, h):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            privacy.symmetric_subsampled_gaussian_pld(p, mu, h)
        except ValueError:
            pass


def test_symmetric_subsampled_gaussian_pld_refuses_unhashable_input():
    with pytest.raises(ValueError, match="^p"):
        privacy.symmetric_subsampled_gaussian_pld([0.5, 0.2], 1.0)


@SLOW
@given(p=ANY, mu=ANY, T=st.one_of(st.integers(0, 20), ANY), x=ANY,
       adjacency=st.sampled_from(["symmetric", "add_remove", "replace"]))
def test_composition(p, mu, T, x, adjacency):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            comp = Composition.subsampled_gaussian(p, mu, T, adjacency=adjacency)
        except ValueError:
            return
    _calls(comp.delta, x)
    _calls(comp.eps, x)
    _calls(comp.tradeoff, x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            gaussian = Composition.gaussian(mu)
        except ValueError:
            return
    _calls(gaussian.delta, x)
