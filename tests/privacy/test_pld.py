"""Tests of verify/privacy/pld.py: exact compositions against closed forms and the papers' numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from verify.privacy.clt import clt_mu_symmetric
from verify.privacy.fdp import subsampled_gaussian_delta, subsampled_gaussian_tradeoff
from verify.privacy.gaussian import gdp_delta, gdp_eps
from verify.privacy.pld import Composition

EPS = np.array([-1.0, 0.0, 0.1, 0.5, 1.0, 2.0])


@pytest.mark.parametrize("p, mu", [(0.25, 2.5), (0.01, 1.0), (0.5, 0.3), (1.0, 1.0)])
def test_symmetric_one_step_is_the_closed_form(p, mu):
    # T = 1: delta of the PLD built for C_p(G_mu) equals delta of the closed form (Bok et al. Def. 4.7)
    got = Composition.subsampled_gaussian(p, mu, 1, adjacency="symmetric").delta(EPS)
    exact = subsampled_gaussian_delta(p, mu, EPS)
    assert np.all(got >= exact * (1 - 1e-9) - 1e-15)  # pessimistic
    assert np.allclose(got, exact, rtol=1e-6, atol=1e-13)


def test_symmetric_one_step_tradeoff_is_cp():
    c = Composition.subsampled_gaussian(0.25, 2.5, 1, adjacency="symmetric")
    a = np.array([1e-4, 1e-3, 0.01, 0.1, 0.3, 0.5, 0.9])
    assert np.allclose(c.tradeoff(a), subsampled_gaussian_tradeoff(a, 0.25, 2.5), atol=2e-3)


@pytest.mark.parametrize("epochs, printed", [(50, 4.438), (100, 6.654), (200, 10.113)])
def test_bok_table4_noisy_sgd_column(epochs, printed):
    # Bok et al. 2024 Table 4 "Comp. NoisySGD": C_{0.025}(G_{2/3})^{⊗40E}, eps at delta=1e-5
    # (printed 4.44 / 6.65 / 10.11; PRV accountant with eps_error 1e-3 gives the 3-decimal values)
    c = Composition.subsampled_gaussian(0.025, 2.0 / 3.0, 40 * epochs, adjacency="symmetric")
    assert c.eps(1e-5) == pytest.approx(printed, abs=2e-3)


@pytest.mark.parametrize(
    "sigma, epochs, low, high",
    [(1.3, 15, 0.855, 0.875), (1.1, 60, 2.311, 2.452)],
)
def test_bu_exact_poisson_composition(sigma, epochs, low, high):
    # Bu et al. 2020 NoisySGD on MNIST (n=60000, B=256), add/remove, delta=1e-5; docs/papers/bu2020.md's
    # independent FFT composition brackets (bu2020.md §6): MNIST-1 exact 0.865, MNIST-2 in [2.311, 2.452]
    c = Composition.subsampled_gaussian(256 / 60000, 1.0 / sigma, math.ceil(epochs * 60000 / 256))
    assert low <= c.eps(1e-5) <= high


def test_gaussian_composition_is_root_sum_of_squares():
    # G_a ⊗ G_b = G_sqrt(a^2 + b^2) (Bok et al. Lemma A.2)
    c = Composition.gaussian(0.6).compose(Composition.gaussian(0.8))
    eps = np.array([0.0, 0.5, 1.0, 3.0])
    exact = gdp_delta(1.0, eps)
    got = c.delta(eps)
    assert np.all(got >= exact - 1e-15)
    assert np.allclose(got, exact, rtol=1e-4, atol=1e-12)
    assert c.eps(1e-5) == pytest.approx(gdp_eps(1.0, 1e-5), rel=1e-3)


def test_poisson_add_remove_one_step_remove_direction():
    # for eps >= 0 the remove direction dominates and its delta is p * delta_G(log(1 + (e^eps - 1)/p))
    p, mu = 0.1, 1.5
    eps = np.array([0.0, 0.2, 1.0, 2.0])
    got = Composition.subsampled_gaussian(p, mu, 1, adjacency="add_remove").delta(eps)
    exact = subsampled_gaussian_delta(p, mu, eps)
    assert np.all(got >= exact * (1 - 1e-9))
    assert np.allclose(got, exact, rtol=1e-4)


def test_orderings_between_adjacencies():
    # replace-one with clipped contributions (+-mu/2) is a special case of the symmetric C_p(G_mu) bound,
    # and the composition of the symmetrised per-step bound is weaker than Poisson add/remove
    p, mu, T = 0.05, 1.0, 200
    eps = np.array([0.5, 1.0, 2.0])
    sym = Composition.subsampled_gaussian(p, mu, T, adjacency="symmetric").delta(eps)
    rep = Composition.subsampled_gaussian(p, mu, T, adjacency="replace").delta(eps)
    rep_uniform = Composition.subsampled_gaussian(p, mu, T, sampling="uniform", adjacency="replace").delta(eps)
    ar = Composition.subsampled_gaussian(p, mu, T, adjacency="add_remove").delta(eps)
    assert np.all(rep <= sym)
    assert np.all(ar <= sym)
    assert np.array_equal(rep, rep_uniform)


def test_composition_with_a_gaussian_bok_thm_4_9_shape():
    # C_p(G_mu1)^{⊗k} ⊗ G_mu2 is less private than either factor, and at mu2 = 0 equals the first factor
    sgd = Composition.subsampled_gaussian(0.02, 1.0, 300, adjacency="symmetric")
    both = sgd.compose(Composition.gaussian(0.5))
    eps = np.array([0.5, 1.0, 2.0])
    assert np.all(both.delta(eps) >= sgd.delta(eps))
    assert np.all(both.delta(eps) >= gdp_delta(0.5, eps))
    assert np.allclose(sgd.compose(Composition.gaussian(0.0)).delta(eps), sgd.delta(eps))


def test_clt_is_close_to_exact_in_its_regime():
    # Bok et al. Lemma A.5: C_p(G_mu)^{⊗T} -> G_mu_CLT when p sqrt(T) is fixed; at p=0.005, T=4e4 close
    p, mu1, T = 0.005, 0.5, 40000
    exact = Composition.subsampled_gaussian(p, mu1, T, adjacency="symmetric", value_discretization_interval=1e-3)
    mu = clt_mu_symmetric(p, mu1, T)
    assert exact.eps(1e-3) == pytest.approx(gdp_eps(mu, 1e-3), rel=0.05)


def test_query_shapes_and_monotonicity():
    c = Composition.subsampled_gaussian(0.01, 1.0, 100)
    eps = np.linspace(-2, 5, 50)
    d = c.delta(eps)
    assert d.shape == (50,) and np.all(np.diff(d) <= 1e-15) and np.all((d >= 0) & (d <= 1))
    assert np.shape(c.eps(np.array([[1e-3, 1e-5]]))) == (1, 2)
    assert isinstance(c.delta(1.0), float)
    a = np.linspace(0, 1, 101)
    f = c.tradeoff(a)
    assert np.all(f <= 1 - a + 1e-15) and np.all(np.diff(f) <= 1e-12)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: Composition.subsampled_gaussian(0.0, 1.0, 10), "p"),
        (lambda: Composition.subsampled_gaussian(1.5, 1.0, 10), "p"),
        (lambda: Composition.subsampled_gaussian(0.1, -1.0, 10), "mu"),
        (lambda: Composition.subsampled_gaussian(0.1, 1.0, 2.5), "T"),
        (lambda: Composition.subsampled_gaussian(0.1, 1.0, 10, sampling="shuffle"), "sampling"),
        (lambda: Composition.subsampled_gaussian(0.1, 1.0, 10, adjacency="swap"), "adjacency"),
        (lambda: Composition.subsampled_gaussian(0.1, 1.0, 10, sampling="uniform"), "adjacency"),
        (lambda: Composition.gaussian(float("nan")), "mu"),
        (lambda: Composition.gaussian(1.0).delta(float("nan")), "eps"),
        (lambda: Composition.gaussian(1.0).eps(0.0), "delta"),
        (lambda: Composition.gaussian(1.0).compose(3), "other"),
        (lambda: Composition.gaussian(1.0).compose(Composition.gaussian(1.0, 1e-3)), "other"),
        (lambda: Composition.subsampled_gaussian(0.5, 40.0, 1, adjacency="symmetric"), "value_discretization_interval"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        call()
