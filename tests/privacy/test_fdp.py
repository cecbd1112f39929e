"""Tests of verify/privacy/fdp.py: duality, the closed form of C_p(G_mu) against the generic hull."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.privacy.fdp import (
    delta_from_tradeoff,
    subsample_tradeoff,
    subsampled_gaussian_delta,
    subsampled_gaussian_tradeoff,
    tradeoff_eps_delta,
)
from verify.privacy.gaussian import gdp_delta, tradeoff_gaussian

FAST = settings(deadline=None, max_examples=30)


def test_eps_delta_tradeoff_bu_example():
    # Bu et al. §1: min_a (a + f_{eps,delta}(a)) = 2(1-delta)/(1+e^eps); eps=3.01, delta=1e-5 -> 0.09395 ("9.4 %")
    a = np.linspace(0, 1, 200001)
    assert np.min(a + tradeoff_eps_delta(a, 3.01, 1e-5)) == pytest.approx(0.09395, abs=5e-5)


def test_delta_from_tradeoff_recovers_eps_delta():
    f = lambda a: tradeoff_eps_delta(a, 1.0, 1e-3)  # noqa: E731
    assert delta_from_tradeoff(f, 1.0) == pytest.approx(1e-3, rel=1e-9)
    # at eps = 0 the sup sits at the kink a = (1-delta)/(1+e)
    assert delta_from_tradeoff(f, 0.0) == pytest.approx(1 - 2 * (1 - 1e-3) / (1 + math.e), rel=1e-8)


@pytest.mark.parametrize("mu", [0.2, 1.0, 3.0])
def test_delta_from_tradeoff_of_gaussian_is_lemma_a3(mu):
    eps = np.array([-1.0, 0.0, 0.5, 1.0, 2.0, 4.0])
    got = delta_from_tradeoff(lambda a: tradeoff_gaussian(a, mu), eps)
    ref = gdp_delta(mu, eps)
    assert np.allclose(got, ref, rtol=1e-8, atol=1e-15)


@pytest.mark.parametrize("p, mu", [(0.25, 2.5), (0.01, 1.0), (0.5, 5.0), (0.9, 0.3), (1.0, 1.0)])
def test_closed_form_cp_matches_generic_convex_envelope(p, mu):
    hull = subsample_tradeoff(lambda a: tradeoff_gaussian(a, mu), p)
    a = np.linspace(0, 1, 5001)
    # the hull is a piecewise-linear interpolation of the exact envelope on the default grid
    assert np.max(np.abs(hull(a) - subsampled_gaussian_tradeoff(a, p, mu))) < 5e-6


def test_cp_of_full_sampling_is_the_gaussian():
    a = np.linspace(0, 1, 101)
    assert np.allclose(subsampled_gaussian_tradeoff(a, 1.0, 1.3), tradeoff_gaussian(a, 1.3), atol=1e-12)


def test_cp_first_branch_is_the_one_sided_mixture():
    # Bok et al. §C.4.1 fact (a): C_p(G_mu) = f_p = p G_mu + (1-p) Id for a <= Phi(-mu/2)
    p, mu = 0.25, 2.5
    a = np.linspace(0, 0.1056, 50)  # Phi(-1.25) = 0.10565
    assert np.allclose(subsampled_gaussian_tradeoff(a, p, mu), p * tradeoff_gaussian(a, mu) + (1 - p) * (1 - a), atol=1e-15)


@FAST
@given(p=st.floats(0.001, 1.0), mu=st.floats(0.0, 8.0))
def test_cp_is_a_symmetric_tradeoff_function(p, mu):
    a = np.linspace(0, 1, 1001)
    f = subsampled_gaussian_tradeoff(a, p, mu)
    assert np.all(f <= 1 - a + 1e-15)
    assert np.all(np.diff(f) <= 1e-12)
    assert np.all(np.diff(f, 2) >= -1e-9)
    # symmetric: C(C(a)) = a, away from the flat ends where the inverse is ill-conditioned
    inner = (f > 1e-6) & (f < 1 - 1e-6)
    assert np.allclose(subsampled_gaussian_tradeoff(f[inner], p, mu), a[inner], atol=1e-6)


@pytest.mark.parametrize("p, mu", [(0.25, 2.5), (0.05, 1.0), (0.5, 0.5)])
def test_closed_form_delta_of_cp_matches_conjugate(p, mu):
    eps = np.array([-2.0, -0.3, 0.0, 0.1, 0.5, 1.0, 2.0])
    ref = delta_from_tradeoff(lambda a: subsampled_gaussian_tradeoff(a, p, mu), eps)
    got = subsampled_gaussian_delta(p, mu, eps)
    big = ref > 1e-9
    assert np.allclose(got[big], ref[big], rtol=1e-7)
    assert np.all(np.abs(got - ref) < 1e-12 + 1e-7 * ref)


@FAST
@given(p=st.floats(1e-4, 1.0), mu=st.floats(0.0, 10.0), eps=st.lists(st.floats(-20, 60), min_size=2, max_size=10))
def test_cp_delta_non_increasing_in_unit_interval(p, mu, eps):
    e = np.sort(np.array(eps))
    d = subsampled_gaussian_delta(p, mu, e)
    assert np.all((d >= 0) & (d <= 1))
    assert np.all(np.diff(d) <= 1e-15)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: tradeoff_eps_delta(0.5, -1.0, 0.1), "eps"),
        (lambda: tradeoff_eps_delta(0.5, 1.0, 1.5), "delta"),
        (lambda: subsampled_gaussian_tradeoff(0.5, 1.5, 1.0), "p"),
        (lambda: subsampled_gaussian_tradeoff(0.5, 0.5, -1.0), "mu"),
        (lambda: subsampled_gaussian_tradeoff(float("nan"), 0.5, 1.0), "a"),
        (lambda: subsampled_gaussian_delta(0.0, 1.0, 1.0), "p"),
        (lambda: delta_from_tradeoff(lambda a: a, float("nan")), "eps"),
        (lambda: delta_from_tradeoff("G", 1.0), "f"),
        (lambda: subsample_tradeoff(lambda a: 1 - a, 2.0), "p"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        call()


@settings(deadline=None, max_examples=60)
@given(a=st.floats(0.0, 1.0), p=st.floats(0.0, 1.0), mu=st.floats(0.0, 60.0), eps=st.floats(-100.0, 1e3))
def test_fuzz_no_nan_or_inf(a, p, mu, eps):
    assert math.isfinite(subsampled_gaussian_tradeoff(a, p, mu))
    assert math.isfinite(tradeoff_eps_delta(a, abs(eps), p))
    if p > 0:
        assert math.isfinite(subsampled_gaussian_delta(p, mu, eps))


def test_inverse_amplification_matches_mpmath_across_scales():
    # reference: log(1 + (e^eps - 1)/p) at 60 digits; tiny p, huge eps and eps just above log(1 - p)
    # (where 1 + (e^eps - 1)/p cancels) are the cases where a direct float formula loses digits
    import mpmath

    from verify.privacy.fdp import _inverse_amplification

    ps = [1.0, 0.5, 0.01, 1e-6, 1e-12, 1e-200, 1e-300]
    cases = []
    for p in ps:
        log_1mp = float(mpmath.log1p(-mpmath.mpf(p))) if p < 1 else -np.inf
        eps = [1e-300, 1e-12, 1e-3, 0.5, 3.0, 29.9, 30.1, 200.0, 700.0, 1e4]
        if p < 1:  # negative eps down to just above log(1 - p), where the "remove" curve reads it
            eps += [log_1mp * f for f in (0.5, 0.9, 0.999, 0.999999)]
        cases += [(p, e) for e in eps]
    p = np.array([c[0] for c in cases])
    eps = np.array([c[1] for c in cases])
    got = _inverse_amplification(p, eps)
    with mpmath.workdps(60):
        want = [float(mpmath.log1p(mpmath.expm1(mpmath.mpf(e)) / mpmath.mpf(q))) for q, e in cases]
        # the slope d ell / d eps = e^eps / (e^eps - 1 + p): near eps = log(1 - p) the value is ill-conditioned
        # (log(1 - p) itself is rounded), so a few ulps of eps times the slope are allowed there
        slope = [float(mpmath.exp(e) / (mpmath.expm1(mpmath.mpf(e)) + mpmath.mpf(q))) for q, e in cases]
    for (q, e), g, w, k in zip(cases, got, want, slope):
        allowed = 1e-13 * abs(w) + 4 * np.spacing(abs(e)) * k
        assert abs(g - w) <= allowed, (q, e, g, w)
