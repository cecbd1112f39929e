"""Exact references stay finite where they are mathematically finite.

Large per-step mu: masses of the far tails lie below the smallest double, a delta(eps) curve is 1 to
double precision where GDP would be read off it, and eps(delta) lies beyond 1e4.  Every reference
value below is independent of the code under test: mpmath on the closed forms of the Gaussian
mechanism (Dong, Roth, Su 2022, Cor. 1; Mironov 2017, Prop. 7), and the data-processing inequality
(a discretised pair is at most as distinguishable as the continuous one).
"""

from __future__ import annotations

import functools

import mpmath
import numpy as np
import pytest
from scipy.special import log_ndtr

from verify.instances.profile import DiscreteProfile
from verify.privacy.notions import effective_mu


def _log_cells(edges: np.ndarray, mean: float) -> np.ndarray:
    """log P(N(mean, 1) in each cell, and in the two tails beyond the ends), in log space."""
    a, b = edges[:-1] - mean, edges[1:] - mean
    upper = a > 0
    la = np.where(upper, log_ndtr(-a), log_ndtr(b))
    lb = np.where(upper, log_ndtr(-b), log_ndtr(a))
    cells = la + np.log(-np.expm1(lb - la))
    return np.concatenate([[log_ndtr(edges[0] - mean)], cells, [log_ndtr(-(edges[-1] - mean))]])


@functools.lru_cache(maxsize=None)
def _binned_gaussians(mu: float, h: float = 0.01) -> tuple[np.ndarray, np.ndarray]:
    """N(0, 1) and N(mu, 1) binned on cells of width h covering [-2 mu - 20, 3 mu + 20] (log masses)."""
    edges = np.arange(-2 * mu - 20.0, 3 * mu + 20.0 + h / 2, h)
    return _log_cells(edges, 0.0), _log_cells(edges, mu)


def _mp_gdp_eps(mu: float, delta: float) -> float:
    """eps(delta) of mu-GDP: the root of Phi(-e/mu + mu/2) - e^e Phi(-e/mu - mu/2) = delta (50 digits)."""
    with mpmath.workdps(50):
        m, d = mpmath.mpf(mu), mpmath.mpf(delta)
        f = lambda e: mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2) - d
        lo, hi = mpmath.mpf(0), m * m  # f decreases in e: f(0) > 0 > f(mu^2) here; bisection to 1e-30
        while hi - lo > mpmath.mpf(10) ** -30 * hi:
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if f(mid) > 0 else (lo, mid)
        return float(hi)


@pytest.mark.parametrize("mu", [40.0, 80.0])
def test_log_masses_keep_the_renyi_divergence_finite_at_a_large_mu(mu):
    log_p, log_q = _binned_gaussians(mu)
    linear = DiscreteProfile(np.exp(log_p), np.exp(log_q))
    assert linear.renyi(2.0) == np.inf  # the tails of Q underflow where P has mass: a spurious singular part
    profile = DiscreteProfile.from_log(log_p, log_q)
    closed = float(mpmath.mpf(2) * mpmath.mpf(mu) ** 2 / 2)  # alpha mu^2 / 2 of the continuous pair
    value = float(profile.renyi(2.0))
    assert value <= closed * (1 + 1e-12)  # data processing
    assert value == pytest.approx(closed, rel=1e-4)  # cells of width 0.01 lose little


@pytest.mark.parametrize("mu,delta", [(40.0, 1e-5), (150.0, 1e-5)])
def test_eps_of_a_large_mu_is_finite_beyond_the_old_bracket(mu, delta):
    """At mu = 150, eps(1e-5) ~ 11900: beyond the bisection's former end 1e4 (then reported as inf)."""
    log_p, log_q = _binned_gaussians(mu, h=0.01 if mu < 100 else 0.05)
    profile = DiscreteProfile.from_log(log_p, log_q)
    reference = _mp_gdp_eps(mu, delta)
    value = float(profile.eps(delta))
    assert value <= reference * (1 + 1e-12)
    assert value == pytest.approx(reference, rel=2e-3)


@pytest.mark.parametrize("mu", [5.0, 20.0, 40.0, 80.0])
def test_effective_mu_reads_a_large_mu_in_log_space(mu):
    """GDP of a non-Gaussian profile (here binned Gaussians): read off delta(eps) for eps <= 12 it was 60
    (delta rounded above 1) or about 18 (delta = 1 to double precision) at these mu."""
    profile = DiscreteProfile.from_log(*_binned_gaussians(mu))
    value = effective_mu(profile)
    assert value <= mu * (1 + 1e-9)
    assert value == pytest.approx(mu, rel=1e-6)


def test_effective_mu_of_a_linear_profile_whose_delta_rounds_above_one():
    """The same pair from linear masses (mu = 20): the rounded delta(0) no longer reads as mu = 60."""
    log_p, log_q = _binned_gaussians(20.0)
    profile = DiscreteProfile(np.exp(log_p), np.exp(log_q))
    assert effective_mu(profile) == pytest.approx(20.0, rel=1e-6)


def test_log_masses_are_validated():
    with pytest.raises(ValueError, match="log_p"):
        DiscreteProfile.from_log([np.log(0.5), np.nan], [np.log(0.5), np.log(0.5)])
    with pytest.raises(ValueError, match="log_q"):
        DiscreteProfile.from_log([np.log(0.5), np.log(0.5)], [0.0, 0.0])  # sums to 2


def test_an_unsubsampled_composition_is_read_in_closed_form_at_a_large_mu():
    """Bu et al. 2020 Thm 3 at q = b/n = 1, per-step mu = 30, T = 10: exactly G_{30 sqrt 10}.  Its privacy-
    loss distribution was refused there (a grid too fine for mu = 30): an error, no evidence."""
    from verify.instances import FAMILIES

    profile = FAMILIES["dpsgd_worst_step"].build(n=2, b=2, eta=1.0, sigma=1.0, T=10, Delta=60.0).profile()
    mu = 30.0 * np.sqrt(10.0)
    assert profile.mu == pytest.approx(mu, rel=1e-15)
    assert float(profile.eps(1e-5)) == pytest.approx(_mp_gdp_eps(mu, 1e-5), rel=1e-12)
    with mpmath.workdps(50):
        m, e = mpmath.mpf(mu), mpmath.mpf(4000)
        delta = mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)
    assert float(profile.delta(4000.0)) == pytest.approx(float(delta), rel=1e-9)
    assert float(profile.renyi(2.0)) == pytest.approx(2.0 * mu ** 2 / 2, rel=1e-12)


def test_the_error_estimate_of_a_log_mass_profile_with_unresolved_cells_is_finite():
    """Dropping the unresolved cells (the error estimate) keeps the masses in log space as well."""
    log_p, log_q = _binned_gaussians(40.0)
    unresolved = np.zeros(log_p.shape, dtype=bool)
    unresolved[:5] = True  # the far left tail (x ~ -100), where P holds about e^-5000 and Q far less
    profile = DiscreteProfile.from_log(log_p, log_q, unresolved=unresolved)
    error = profile.error_of("renyi", 2.0)
    assert np.isfinite(error) and error < 1e-6 * float(profile.renyi(2.0))
