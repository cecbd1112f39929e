"""verify/privacy/pld.py against dp_accounting itself: the vectorised one-step PLDs of subsampled
Gaussians (same grid, same masses as ``from_gaussian_mechanism``), composed epsilons equal to
``PLDAccountant``'s, and the analytic last Gaussian step against dp_accounting's composition and mpmath."""

from __future__ import annotations

import functools

import mpmath as mp
import numpy as np
import pytest
from dp_accounting import GaussianDpEvent, NeighboringRelation, PoissonSampledDpEvent
from dp_accounting.pld import privacy_loss_distribution as dp_pld
from dp_accounting.pld.pld_privacy_accountant import PLDAccountant

from tests.sweeps import sweep
from verify.privacy import operators
from verify.privacy.pld import Composition


@functools.cache
def _accountant(q: float, z: float, T: int, relation=NeighboringRelation.ADD_OR_REMOVE_ONE) -> PLDAccountant:
    """dp_accounting's own PLDAccountant on T Poisson-subsampled Gaussian steps (noise multiplier z, sensitivity
    1): the reference of several tests, composed once per job (a 500-step job: a second)."""
    accountant = PLDAccountant(relation)
    accountant.compose(PoissonSampledDpEvent(q, GaussianDpEvent(z)), T)
    return accountant


def _pmfs(pld):
    pmfs = [pld._pmf_remove] if pld._symmetric else [pld._pmf_remove, pld._pmf_add]
    return [p.to_dense_pmf() for p in pmfs]


@pytest.mark.sweep
@pytest.mark.parametrize(
    "p, mu, adjacency",
    sweep([(0.01, 1.0, "add_remove"), (0.3, 2.5, "add_remove"), (1.0, 1.3, "add_remove"),
           (0.05, 1.0, "replace"), (0.5, 3.0, "replace"), (1.0, 1.3, "replace")],
          keep=[(0.01, 1.0, "add_remove"), (1.0, 1.3, "add_remove"), (0.05, 1.0, "replace"), (0.5, 3.0, "replace")]),
)
def test_one_step_pmf_is_dp_accountings(p, mu, adjacency):
    """Kept in the suite: both relations subsampled (a symmetric and an asymmetric PLD), and p = 1; the sweep
    adds a larger subsampled mu under add/remove and p = 1 under replace."""
    relation = NeighboringRelation.ADD_OR_REMOVE_ONE if adjacency == "add_remove" else NeighboringRelation.REPLACE_ONE
    sensitivity = mu if adjacency == "add_remove" else mu / 2.0
    reference = dp_pld.from_gaussian_mechanism(1.0, sensitivity, sampling_prob=p, neighboring_relation=relation)
    ours = Composition.subsampled_gaussian(p, mu, 1, adjacency=adjacency).pld
    assert ours._symmetric == reference._symmetric
    for a, b in zip(_pmfs(reference), _pmfs(ours)):
        assert (a._lower_loss, a._probs.size) == (b._lower_loss, b._probs.size)  # the same grid
        # masses are second differences of delta over expm1(1e-4): rounding of 1e-16 becomes ~1e-11
        assert np.max(np.abs(a._probs - b._probs)) < 1e-10
        assert b._infinity_mass == pytest.approx(a._infinity_mass, rel=1e-9, abs=1e-30)


@pytest.mark.parametrize("relation, adjacency", [(NeighboringRelation.ADD_OR_REMOVE_ONE, "add_remove"),
                                                 (NeighboringRelation.REPLACE_ONE, "replace")])
def test_composed_epsilon_is_pld_accountants(relation, adjacency):
    # dp_accounting's own accountant on the same job (noise multiplier z = 1.2, sensitivity 1)
    q, z, T = 0.02, 1.2, 500
    accountant = _accountant(q, z, T, relation)
    mu = 1.0 / z if adjacency == "add_remove" else 2.0 / z  # replace: contributions +-1 at noise z
    ours = Composition.subsampled_gaussian(q, mu, T, adjacency=adjacency)
    for delta in (1e-3, 1e-5, 1e-8):  # 1.3e-7 apart under replace adjacency with dp_accounting 0.6 (its rounding)
        assert ours.eps(delta) == pytest.approx(accountant.get_epsilon(delta), rel=1e-6)
    eps = np.array([0.0, 0.5, 1.0, 2.0])
    assert np.allclose(ours.delta(eps), [accountant.get_delta(e) for e in eps], rtol=1e-7, atol=1e-15)


def _delta_gaussian_mp(mu, x):
    mu, x = mp.mpf(mu), mp.mpf(x)
    return mp.ncdf(-x / mu + mu / 2) - mp.exp(x) * mp.ncdf(-x / mu - mu / 2)


def test_analytic_last_step_is_the_expectation_over_the_losses_mpmath():
    # a hand-made PLD: masses w_i at losses k_i h and an infinite mass m; reference sum in 40 digits
    h, masses, infinity = 0.01, {-70: 0.2, 0: 0.1, 35: 0.4, 110: 0.25}, 0.05
    pld = dp_pld.PrivacyLossDistribution.create_from_rounded_probability(masses, infinity, h)
    comp = Composition(pld, h, "hand-made")
    # the last two points leave every loss beyond the window |eps - l| < mu^2/2 + 12 mu (closed-form tails)
    mu = np.array([0.3, 1.0, 2.0, 5.0, 0.3, 0.3, 0.3])
    eps = np.array([0.0, 0.5, 1.0, 8.0, -2.0, 8.0, -5.0])
    got = comp.delta_with_gaussian(mu, eps)
    with mp.workdps(40):
        exact = [float(infinity + sum(w * _delta_gaussian_mp(m, e - k * h) for k, w in masses.items()))
                 for m, e in zip(mu, eps)]
    assert np.allclose(got, exact, rtol=1e-12, atol=1e-30)
    assert np.all(got >= np.array(exact) * (1 - 1e-14))  # the tails are bounded from above


def test_analytic_last_step_of_a_gaussian_is_the_root_sum_of_squares():
    # G_a ⊗ G_b = G_sqrt(a^2 + b^2) (Bok et al. Lemma A.2); the PLD of G_a is pessimistic, G_b exact
    a, b = 0.6, 0.8
    eps = np.array([0.0, 0.5, 1.0, 3.0])
    got = Composition.gaussian(a).delta_with_gaussian(b, eps)
    with mp.workdps(30):
        exact = np.array([float(_delta_gaussian_mp(1.0, e)) for e in eps])
    assert np.all(got >= exact * (1 - 1e-12))
    assert np.allclose(got, exact, rtol=1e-4)


@pytest.mark.parametrize("p, mu, k, mu_last", [(0.02, 1.0, 50, 0.5), (0.1, 0.7, 20, 2.0), (0.05, 1.5, 10, 4.0)])
def test_analytic_last_step_agrees_with_dp_accountings_composition(p, mu, k, mu_last):
    sgd = Composition.subsampled_gaussian(p, mu, k, adjacency="symmetric")
    discretised = sgd.compose(Composition.gaussian(mu_last))  # dp_accounting's FFT with a discretised G
    eps = np.array([0.25, 0.5, 1.0, 2.0, 4.0])
    analytic = sgd.delta_with_gaussian(mu_last, eps)
    reference = discretised.delta(eps)
    # both pessimistic; the analytic one has the exact Gaussian, so it is lower by its discretisation error
    # (up to the FFT's absolute rounding, ~1e-14, in the reference)
    assert np.all(analytic <= reference * (1 + 1e-9) + 1e-13)
    assert np.allclose(analytic, reference, rtol=2e-3, atol=1e-12)
    assert np.all(analytic >= sgd.delta(eps))  # composing never lowers delta


def test_shift_operator_groups_points_and_matches_one_at_a_time():
    p = np.full(6, 0.02)
    mu = np.full(6, 1.0)
    k = np.array([30.0, 30.0, 60.0, 60.0, 30.0, 1.0])
    mu_last = np.array([0.5, 1.0, 0.5, 0.0, 200.0, 0.3])
    eps = np.array([1.0, 1.0, 2.0, 1.0, 1.0, 0.5])
    got = operators._symm_subsampled_shift_delta(p, mu, k, mu_last, eps)
    for i in range(6):
        comp = Composition.subsampled_gaussian(0.02, 1.0, int(k[i]), adjacency="symmetric")
        expected = 1.0 if mu_last[i] == 200.0 else comp.delta_with_gaussian(mu_last[i], eps[i])
        assert got[i] == pytest.approx(expected, rel=1e-12)
    assert got[3] == pytest.approx(Composition.subsampled_gaussian(0.02, 1.0, 60, adjacency="symmetric").delta(1.0))


def test_bok_mnist_thm_4_10_needs_no_pld():
    # Bok et al.'s MNIST run (n=60000, b=1500, T=2000, eta=0.05, sigma=0.01, Delta=10, D=1, eps=1): the last
    # step alone is G(sqrt2 D/(eta sigma sqrt(nu))) with mu >= 63, whose delta(1) is 1 to 1e-200 (mpmath)
    from verify.privacy import pld

    nu = np.array([1.0, 3.0, 9.0, 30.0, 90.0, 300.0, 900.0, 2000.0])
    mu_last = np.sqrt(2.0) * 1.0 / (0.05 * 0.01 * np.sqrt(nu))
    with mp.workdps(30):
        assert all(1 - _delta_gaussian_mp(m, 1.0) < mp.mpf("1e-200") for m in mu_last)
    before = len(pld.CACHE)
    got = operators._symm_subsampled_shift_delta(0.025, 2 * np.sqrt(2) * 10 / (1500 * 0.01), nu, mu_last, 1.0)
    assert np.array_equal(got, np.ones(8))
    assert len(pld.CACHE) == before  # nothing was built


def test_eps_of_many_deltas_at_once_is_the_accountants_at_each():
    # one vectorised query over 60 deltas (from above delta(0) down to 1e-8) against dp_accounting's
    # own PLDAccountant one delta at a time (deeper, the two truncate the tails differently)
    q, z, T = 0.02, 1.2, 500
    accountant = _accountant(q, z, T)
    deltas = np.geomspace(1e-8, 0.9, 60)
    ours = Composition.subsampled_gaussian(q, 1.0 / z, T).eps(deltas)
    assert np.allclose(ours, [accountant.get_epsilon(d) for d in deltas], rtol=1e-7, atol=1e-12)


def test_poisson_operators_group_points_by_composition_and_match_the_accountant():
    # several (q, z, T) in one call, in mixed order: each value is the accountant's for its own job
    jobs = [(0.02, 1.2, 100), (0.05, 0.9, 40), (0.02, 1.2, 100), (0.05, 0.9, 40), (0.02, 1.2, 60)]
    eps = np.array([0.5, 1.0, 1.0, 0.0, 0.8])  # deltas above 1e-8 (see above)
    deltas = np.array([1e-5, 1e-3, 1e-7, 1e-2, 1e-6])
    q, z, T = (np.array(c, dtype=float) for c in zip(*jobs))
    got_delta = operators.PoissonSubsampledGaussianDelta.numeric(q, 1.0 / z, T, eps)
    got_eps = operators.PoissonSubsampledGaussianEps.numeric(q, 1.0 / z, T, deltas)
    for k, (qk, zk, Tk) in enumerate(jobs):
        accountant = _accountant(qk, zk, Tk)  # a job asked twice: its reference composed once
        assert got_delta[k] == pytest.approx(accountant.get_delta(eps[k]), rel=1e-7, abs=1e-15)
        assert got_eps[k] == pytest.approx(accountant.get_epsilon(deltas[k]), rel=1e-7, abs=1e-12)
