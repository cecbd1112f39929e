"""The cheaper paths of the exact PLD references against independent references: at p = 1 the
operators are the Gaussian closed form (mpmath, and below dp_accounting's pessimistic PLD); a cached
composition without its losses array answers as dp_accounting's own PMF does; the summation terms of
the analytic last Gaussian step against mpmath; effective_mu's early stop against the full bisection."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from tests.sweeps import sweep
from verify.privacy import operators
from verify.privacy.gaussian import gdp_delta, gdp_delta_terms
from verify.privacy.notions import MU_EPS_GRID, SATURATED, effective_mu
from verify.privacy.pld import Composition


def _mp_gdp_delta(mu: float, eps: float) -> float:
    """delta(eps) of G_mu at 40 digits (DRS22 Cor. 1)."""
    with mp.workdps(40):
        mu, eps = mp.mpf(mu), mp.mpf(eps)
        return float(mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2))


EPS = np.array([-1.0, 0.0, 0.3, 1.0, 2.5, 6.0])


@pytest.mark.parametrize("mu, T", [(0.4, 3), (1.7, 1), (2.0, 4)])
def test_operators_at_p_one_are_the_composed_gaussian(mu, T):
    exact = np.array([_mp_gdp_delta(mu * math.sqrt(T), e) for e in EPS])
    for adjacency, op in (("symmetric", operators._symm_subsampled_delta),
                          ("add_remove", operators._poisson_subsampled_delta)):
        ours = op(1.0, mu, T, EPS)
        np.testing.assert_allclose(ours, exact, rtol=1e-9, atol=1e-300)
        # the pessimistic PLD bounds it from above, within its discretisation error
        pld = np.asarray(Composition.subsampled_gaussian(1.0, mu, T, adjacency=adjacency).delta(EPS))
        assert np.all(pld >= ours * (1 - 1e-12))
        big = exact > 1e-8
        np.testing.assert_allclose(pld[big], ours[big], rtol=2e-3)


def test_shift_operator_at_p_one_is_the_root_sum_of_squares():
    mu, k, last = 0.9, 4, np.array([0.3, 1.2, 5.0])
    eps = np.array([0.5, 1.0, 3.0])
    ours = operators._symm_subsampled_shift_delta(1.0, mu, k, last, eps)
    exact = [_mp_gdp_delta(math.sqrt(k * mu * mu + m * m), e) for m, e in zip(last, eps)]
    np.testing.assert_allclose(ours, exact, rtol=1e-9)
    pld = Composition.subsampled_gaussian(1.0, mu, k, adjacency="symmetric").delta_with_gaussian(last, eps)
    assert np.all(np.asarray(pld) >= ours * (1 - 1e-12))


def test_poisson_eps_at_p_one_inverts_the_closed_form():
    mu, T = 0.8, 9
    delta = np.array([1e-2, 1e-5, 1e-9])
    eps = operators._poisson_subsampled_eps(1.0, mu, T, delta)
    back = [_mp_gdp_delta(mu * math.sqrt(T), e) for e in eps]
    np.testing.assert_allclose(back, delta, rtol=1e-8)
    pld = np.asarray(Composition.subsampled_gaussian(1.0, mu, T).eps(delta))
    assert np.all(pld >= eps - 1e-12) and np.all(pld <= eps + 2e-3 * (1 + eps))


def _curves(composition):
    return composition._hockey_sticks()


@pytest.mark.parametrize("p, mu, T, adjacency", [(0.3, 1.3, 7, "add_remove"), (0.05, 2.0, 40, "symmetric")])
def test_losses_from_the_index_answer_as_dp_accountings_pmf(p, mu, T, adjacency):
    composition = Composition.subsampled_gaussian(p, mu, T, adjacency=adjacency)
    pld = composition.pld
    pmfs = [pld._pmf_remove] if pld._symmetric else [pld._pmf_remove, pld._pmf_add]
    rng = np.random.default_rng(3)
    for curve, pmf in zip(_curves(composition), pmfs):
        dense = pmf.to_dense_pmf()
        losses = (np.arange(dense._probs.size) + dense._lower_loss) * dense._discretization  # dp_accounting's
        np.testing.assert_array_equal(curve.losses(), losses)
        picks = losses[rng.integers(0, losses.size, 300)]
        x = np.concatenate([picks, np.nextafter(picks, np.inf), np.nextafter(picks, -np.inf),
                            rng.uniform(losses[0] - 1, losses[-1] + 1, 300), [losses[0], losses[-1], np.inf, -np.inf]])
        for side in ("left", "right"):
            np.testing.assert_array_equal(curve.search(x, side), np.searchsorted(losses, x, side))
        eps = rng.uniform(-1.0, losses[-1], 25)
        expected = [dense.get_delta_for_epsilon(float(e)) for e in eps]  # dp_accounting's own loop
        # dp_accounting subtracts near-equal sums past the support (values of a few 1e-15 either side of 0 there,
        # -2.6e-15 with dp_accounting 0.6): ours clips
        np.testing.assert_allclose(curve.delta(eps), expected, rtol=1e-9, atol=5e-15)


@pytest.mark.parametrize("mu", [1e-7, 1e-3, 0.05, 0.5, 1.41, 1.42, 4.0, 30.0])
def test_gaussian_terms_match_mpmath_to_1e_10(mu):
    cut = 0.5 * mu * mu + 12.0 * mu  # the window delta_with_gaussian sums over
    x = np.concatenate([np.linspace(-cut, cut, 41), [0.0, 0.5 * mu * mu, -0.5 * mu * mu]])
    ours = gdp_delta_terms(mu, x)
    for xi, v in zip(x, ours):
        exact = _mp_gdp_delta(mu, float(xi))
        assert v == pytest.approx(exact, rel=1e-10, abs=1e-300), (mu, xi)


def test_gaussian_terms_fall_back_where_the_direct_difference_cancels():
    # tiny mu, x in the window: the log-ratio is ~mu/12 and the direct form alone would lose digits
    mu = 1e-9
    x = np.linspace(-12 * mu, 12 * mu, 9)
    np.testing.assert_allclose(gdp_delta_terms(mu, x), np.asarray(gdp_delta(mu, x)), rtol=1e-10)


def _effective_mu_80_halvings(deltas):
    """effective_mu's bisection as first written: 80 halvings of [0, 60], no early stop."""
    lo, hi = np.zeros_like(deltas), np.full_like(deltas, 60.0)
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        below = np.asarray(gdp_delta(np.maximum(mid, 1e-12), MU_EPS_GRID)) < deltas
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    used = (deltas > 1e-14) & (deltas < 1.0 - SATURATED)
    return float(np.max(np.where(used, lo, 0.0)))


class _Curve:
    def __init__(self, deltas):
        self.deltas = deltas

    def delta(self, eps):
        return self.deltas


def test_effective_mu_early_stop_is_the_full_bisection():
    rng = np.random.default_rng(0)
    for _ in range(40):
        mu = rng.uniform(0.01, 12.0)
        deltas = np.minimum(np.asarray(gdp_delta(mu, MU_EPS_GRID)) * rng.uniform(0.5, 1.0, MU_EPS_GRID.size),
                            1.0 - 2 * SATURATED)
        assert effective_mu(_Curve(deltas)) == _effective_mu_80_halvings(deltas)


@pytest.mark.parametrize("p, mu, kind", [(0.01, 1.0, "remove"), (0.01, 1.0, "add"), (0.3, 2.0, "symmetric"),
                                         (0.05, 1.0, "replace"), (0.9, 12.0, "remove")])
def test_one_step_pmf_is_bit_for_bit_dp_accountings_connect_the_dots(p, mu, kind):
    from dp_accounting.pld import pld_pmf

    from verify.privacy import pld

    h = 1e-4
    k_lo, k_hi = pld._step_grid(p, mu, kind, h)
    with np.errstate(all="ignore"):
        deltas = np.minimum.accumulate(np.clip(pld._step_curve(p, mu, kind, np.arange(k_lo, k_hi + 1) * h), 0, 1))
    theirs = pld_pmf.create_pmf_pessimistic_connect_dots_fixed_gap(h, k_lo, k_hi, deltas)
    ours = pld._connect_dots_pmf(h, k_lo, k_hi, deltas)
    assert type(ours) is type(theirs)
    assert ours._lower_loss == theirs._lower_loss and ours._infinity_mass == theirs._infinity_mass
    np.testing.assert_array_equal(ours._probs, theirs._probs)
    # and below dp_accounting's sparse threshold, its own (sparse) PMF
    small = pld._connect_dots_pmf(h, 0, 9, np.linspace(0.5, 0.1, 10))
    assert type(small) is type(pld_pmf.create_pmf_pessimistic_connect_dots_fixed_gap(h, 0, 9, np.linspace(0.5, 0.1, 10)))


@pytest.mark.sweep
@pytest.mark.parametrize("p, mu, T, adjacency", sweep(
    [(0.025, 5.0, 2, "symmetric"), (0.025, 5.0, 3, "symmetric"), (0.2, 3.0, 3, "symmetric"),
     (0.1, 4.0, 2, "add_remove")],
    keep=[(0.025, 5.0, 2, "symmetric"), (0.2, 3.0, 3, "symmetric"), (0.1, 4.0, 2, "add_remove")]))
def test_untruncated_few_step_composition_answers_as_dp_accountings_self_compose(p, mu, T, adjacency):
    """Where the Chernoff window barely shortens the result, the composition asks dp_accounting for no tail
    truncation (no bounds computed): the same delta(eps) and eps(delta) as dp_accounting's default
    ``self_compose`` (truncation 1e-15) on the same one-step PLD, to the truncated mass.

    Kept in the suite: a symmetric PLD over two and over three steps, and an asymmetric one (add/remove); the
    sweep adds three steps at the first point (2.5 s of dp_accounting's FFT)."""
    from dp_accounting.pld import common

    from verify.privacy import pld

    one = pld._one_step(p, mu, adjacency, pld.DEFAULT_INTERVAL)
    pmf = one._pmf_remove
    assert pld._composed_length(pmf, T) == ((pmf.size - 1) * T + 1, False)  # the path under test is taken
    lo, hi = common.compute_self_convolve_bounds(pmf._probs, T, 1e-15)
    assert hi - lo + 1 > 0.8 * ((pmf.size - 1) * T + 1)  # dp_accounting's own window: not much shorter
    reference = one.self_compose(T)
    mine = Composition.subsampled_gaussian(p, mu, T, adjacency=adjacency)
    for e in (-0.5, 0.0, 0.3, 1.0, 3.0):
        assert mine.delta(e) == pytest.approx(reference.get_delta_for_epsilon(e), rel=1e-9, abs=2e-15)
    for d in (1e-3, 1e-6):
        assert mine.eps(d) == pytest.approx(reference.get_epsilon_for_delta(d), rel=1e-9, abs=1e-12)

