"""Audit: exact binomial intervals, rate-to-privacy maps, and audits against exact Gaussian references."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest

from verify.instances.chain import QuadraticRun
from verify.instances.profile import GaussianProfile
from verify.privacy.gaussian import gdp_delta, gdp_eps, gdp_to_rdp, tradeoff_gaussian
from verify.simulate import (Quadratic, Simulation, audit, audit_samples, clopper_pearson_lower,
                             clopper_pearson_upper, delta_from_rates, empirical_tradeoff, eps_from_rates,
                             mu_from_rates, rdp_from_rates, simulate)


@settings(deadline=None, max_examples=60)
@given(n=st.integers(1, 500), frac=st.floats(0, 1), level=st.floats(0.5, 0.999))
def test_clopper_pearson_matches_scipy_exact_interval(n, frac, level):
    k = int(round(frac * n))
    # a one-sided bound at `level` is the matching end of the two-sided interval at 2 level - 1
    ci = binomtest(k, n).proportion_ci(confidence_level=2 * level - 1, method="exact")
    assert clopper_pearson_upper(k, n, level) == pytest.approx(ci.high, rel=1e-7, abs=1e-12)
    assert clopper_pearson_lower(k, n, level) == pytest.approx(ci.low, rel=1e-7, abs=1e-12)


def test_clopper_pearson_rejects_bad_counts():
    for k, n, level in ((5, 3, 0.9), (-1, 3, 0.9), (1, 0, 0.9), (1, 3, 1.0), (1.5, 3, 0.9)):
        with pytest.raises(ValueError):
            clopper_pearson_upper(k, n, level)


@settings(deadline=None, max_examples=50)
@given(mu=st.floats(0.1, 4.0), delta=st.floats(1e-8, 0.1))
def test_rates_on_the_gaussian_curve_give_back_the_exact_values(mu, delta):
    # points (a, G_mu(a)) of the exact tradeoff curve (verify.privacy.gaussian, an independent module)
    a = np.concatenate([np.logspace(-300, -1, 3000), np.linspace(0.1, 0.99, 200)])
    b = tradeoff_gaussian(a, mu)
    well_conditioned = (a > 1e-12) & (b < 1 - 1e-6)  # Phi^{-1} near 1 loses digits in double precision
    assert np.allclose(mu_from_rates(a, b)[well_conditioned], mu, rtol=1e-6, atol=1e-6)
    eps = eps_from_rates(a, b, delta)
    exact = gdp_eps(mu, delta)
    assert np.all(eps <= exact + 1e-9)
    assert eps.max() >= exact - 0.05 * max(exact, 0.1)
    e = np.linspace(0, 3, 7)
    lower = np.max(delta_from_rates(a[:, None], b[:, None], e[None, :]), axis=0)
    assert np.all(lower <= gdp_delta(mu, e) + 1e-12)
    for order in (1.5, 2.0, 10.0):
        assert np.all(rdp_from_rates(a, b, order)[well_conditioned] <= gdp_to_rdp(mu, order) * (1 + 1e-9))


def test_binary_renyi_divergence_against_mpmath():
    alpha, beta, order = 0.01, 0.3, 3.0
    p, q = mp.mpf(1) - mp.mpf(beta), mp.mpf(alpha)

    def d(p, q):
        return mp.log(p ** order * q ** (1 - order) + (1 - p) ** order * (1 - q) ** (1 - order)) / (order - 1)

    assert rdp_from_rates(alpha, beta, order) == pytest.approx(float(max(d(p, q), d(q, p))), rel=1e-12)
    assert rdp_from_rates(0.6, 0.5, 2.0) == 0.0  # 1 - beta < alpha: no evidence


def _chain(mu: float, d: int = 1, T: int = 3, eta: float = 0.4, sigma: float = 1.0, lam=None, b=None, n=4):
    """A quadratic chain whose exact last-iterate mu is ``mu`` (from the closed form of instances.chain)."""
    lam = np.full(d, 0.5) if lam is None else np.asarray(lam, float)
    X = np.zeros((n, d))
    direction = np.ones(d) / np.sqrt(d)
    run = lambda recs: QuadraticRun(lam, recs.reshape(-1, b or n, d).mean(axis=1), eta, sigma, T,  # noqa: E731
                                    np.zeros(d), 0.0)
    one = X.copy()
    one[0] = direction
    ref0, ref1 = run(X), run(one)
    unit = np.sqrt(np.sum((ref1.mean() - ref0.mean()) ** 2 / ref0.variances()))
    x_other = direction * mu / unit
    one[0] = x_other
    ref1 = run(one)
    sim = Simulation(Quadratic(lam), X, steps=T, eta=eta, sigma=sigma, index=0, x_other=x_other,
                     batches="full" if (b or n) == n else "cyclic", batch_size=b or n)
    return sim, GaussianProfile(ref0.mean(), ref0.variances(), ref1.mean(), ref1.variances())


def test_power_one_million_runs_gives_mu_lower_above_0_9():
    sim, exact = _chain(1.0)
    assert exact.mu == pytest.approx(1.0, rel=1e-12)
    result = audit(sim, runs=1_000_000, seed=2024, confidence=0.95)
    assert 0.9 <= result.mu_lower <= 1.0


def _llr(profile: GaussianProfile):
    dm, var = profile.mean1 - profile.mean0, profile.cov0
    mid = 0.5 * (profile.mean0 + profile.mean1)
    return lambda theta: ((theta - mid) * (dm / var)).sum(axis=1)


def test_empirical_tradeoff_band_contains_the_exact_curve_on_a_cyclic_chain():
    sim, exact = _chain(1.3, d=2, T=5, lam=[0.3, 1.2], b=2, n=4)
    s = simulate(sim, 60_000, seed=7)
    stat = _llr(exact)
    t = np.linspace(-3, 3, 25)
    band = empirical_tradeoff(stat(s.theta0), stat(s.theta1), t, confidence=0.95)
    assert np.all(band.contains(lambda a: exact.tradeoff(a, "forward")))
    # and it is not vacuous: a curve with a clearly different mu falls outside somewhere
    assert not np.all(band.contains(lambda a: tradeoff_gaussian(a, 1.15)))


def test_audit_lower_bounds_never_exceed_exact_values_on_20_seeded_instances():
    rng = np.random.default_rng(20)
    for i in range(20):
        d = int(rng.integers(1, 4))
        mu = float(rng.uniform(0.2, 2.5))
        sim, exact = _chain(mu, d=d, T=int(rng.integers(1, 6)), eta=float(rng.uniform(0.1, 1.0)),
                            lam=rng.uniform(0.0, 1.5, size=d), sigma=float(rng.uniform(0.3, 2.0)))
        assert exact.mu == pytest.approx(mu, rel=1e-9)
        stat = _llr(exact) if i % 2 else None  # exact LLR, or the mean-difference projection
        result = audit(sim, runs=20_000, seed=100 + i, statistic=stat, delta=1e-3)
        assert result.mu_lower <= exact.mu
        assert result.eps_lower <= exact.eps(1e-3)
        assert result.delta_lower(0.5) <= exact.delta(0.5)
        assert np.all(result.rdp_lower([2.0, 8.0]) <= exact.renyi([2.0, 8.0]))
        assert result.mu_lower >= 0.5 * mu  # and the audit has power


def test_audit_of_identical_datasets_finds_nothing():
    sim = Simulation(Quadratic(0.5), np.zeros((3, 2)), steps=3, eta=0.5, sigma=1.0, index=0, x_other=[0.0, 0.0])
    result = audit(sim, runs=50_000, seed=3)
    assert result.mu_lower < 0.03 and result.eps_lower < 0.03


def test_reversed_user_statistic_is_reoriented():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(200_000), rng.standard_normal(200_000) + 1.0
    r = audit_samples(-a, -b, statistic=lambda th: th[:, 0])
    assert 0.9 < r.mu_lower <= 1.0 and "reversed" in r.statistic


@pytest.mark.parametrize("kwargs,match", [
    ({"confidence": 1.0}, "confidence"), ({"delta": 1.0}, "delta"), ({"select_fraction": 0.0}, "select_fraction"),
])
def test_audit_samples_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        audit_samples(np.zeros(100), np.ones(100), **kwargs)


def test_audit_samples_needs_both_splits():
    with pytest.raises(ValueError, match="runs"):
        audit_samples(np.zeros(2), np.ones(2))
