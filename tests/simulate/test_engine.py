"""Simulator: laws of the iterates against independent references, batches, projections, seeding."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.instances.chain import QuadraticRun
from verify.simulate import (Ball, Box, Huber, Interval, Linear, Logistic, Quadratic, Simulation, simulate)
from verify.simulate.backend import get_backend
from verify.simulate.engine import simulate_blocks


def _z(sample_mean, true_mean, sd, n):
    return np.abs(sample_mean - true_mean) / (sd / np.sqrt(n))


@pytest.mark.parametrize("b", [6, 2])  # full and cyclic
def test_quadratic_chain_moments_match_closed_form(b):
    # reference: the closed-form Gaussian chain of verify.instances.chain (another engine, no sampling)
    rng = np.random.default_rng(3)
    n, d, T = 6, 3, 7
    lam = np.array([0.5, 1.0, 2.0])
    X = rng.normal(size=(n, d))
    x_other = rng.normal(size=d)
    sim = Simulation(Quadratic(lam), X, steps=T, eta=0.3, sigma=0.7, index=1, x_other=x_other,
                     batches="full" if b == n else "cyclic", batch_size=b, theta0=[0.2, -0.1, 0.4], init_std=0.5)
    runs = 40_000
    s = simulate(sim, runs, seed=11)
    for theta, records in ((s.theta0, X), (s.theta1, np.vstack([X[:1], x_other, X[2:]]))):
        ref = QuadraticRun(lam, records.reshape(-1, b, d).mean(axis=1), 0.3, 0.7, T, np.array([0.2, -0.1, 0.4]), 0.25)
        sd = np.sqrt(ref.variances())
        assert np.all(_z(theta.mean(0), ref.mean(), sd, runs) < 4.5)
        # sample variance: sd of s^2 is about sqrt(2/n) sigma^2 for Gaussian data
        assert np.all(np.abs(theta.var(0) / ref.variances() - 1) < 4.5 * np.sqrt(2 / runs))


def test_schedule_is_used_step_by_step():
    # linear loss, no curvature: theta_T = theta_0 + sum_k eta_k (xbar - sigma Z_k) in distribution
    eta = np.array([0.1, 0.5, 0.2, 0.9])
    X = np.array([[1.0], [3.0]])
    sim = Simulation(Quadratic(0.0), X, steps=4, eta=eta, sigma=2.0, index=0, x_other=[5.0])
    s = simulate(sim, 50_000, seed=5)
    sd = 2.0 * np.sqrt(np.sum(eta ** 2))
    assert _z(s.theta0.mean(), eta.sum() * 2.0, sd, 50_000) < 4.5
    assert _z(s.theta1.mean(), eta.sum() * 4.0, sd, 50_000) < 4.5
    assert abs(s.theta0.std() / sd - 1) < 0.02


def _counts(batches, n=8, b=2, T=12, runs=4000, seed=0, x_other=None):
    # records e_i and a linear loss <-x, theta> (curvature 0): theta_T = (eta/b) * (times record i was used)
    sim = Simulation(Quadratic(0.0), np.eye(n), steps=T, eta=1.0, sigma=1e-9, index=0, x_other=x_other,
                     batches=batches, batch_size=b)
    s = simulate(sim, runs, seed=seed, block_size=1000)
    return np.round(s.theta0 * b).astype(int), np.round(s.theta1 * b).astype(int)


def test_shuffle_uses_every_record_once_per_epoch():
    c0, c1 = _counts("shuffle", T=12)  # 3 epochs of 4 batches
    assert np.all(c0 == 3)


def test_cyclic_order_is_fixed():
    c0, _ = _counts("cyclic", T=5)  # batches {0,1},{2,3},{4,5},{6,7},{0,1}
    assert np.all(c0 == np.array([2, 2, 1, 1, 1, 1, 1, 1]))


def test_uniform_batches_have_exactly_b_records_and_uniform_inclusion():
    c0, _ = _counts("uniform", runs=6000)
    assert np.all(c0.sum(axis=1) == 2 * 12)
    p = 2 / 8  # inclusion probability per step
    mean, sd = 12 * p, np.sqrt(12 * p * (1 - p))
    assert np.all(_z(c0.mean(0), mean, sd, 6000) < 4.5)


def test_poisson_inclusion_is_binomial_and_remove_drops_the_record():
    c0, c1 = _counts("poisson", runs=6000)
    q = 2 / 8
    mean, sd = 12 * q, np.sqrt(12 * q * (1 - q))
    assert np.all(_z(c0.mean(0), mean, sd, 6000) < 4.5)
    assert abs(c0.std(0).mean() / sd - 1) < 0.05
    assert np.all(c1[:, 0] == 0)  # add/remove: D' lacks record 0
    assert np.all(_z(c1[:, 1:].mean(0), mean, sd, 6000) < 4.5)


def _loss_sum(loss, theta, X, y):
    if loss.name == "logistic":
        return np.sum(np.logaddexp(0.0, -y * (X @ theta)))
    r = X @ theta - y
    k = loss.kappa
    return np.sum(np.where(np.abs(r) <= k, 0.5 * r * r, k * np.abs(r) - 0.5 * k * k))


@settings(deadline=None, max_examples=30)
@given(seed=st.integers(0, 10_000), which=st.sampled_from(["logistic", "huber"]))
def test_glm_gradients_match_finite_differences(seed, which):
    rng = np.random.default_rng(seed)
    n, d, R = 5, 3, 4
    X = rng.normal(size=(n, d))
    y = np.sign(rng.normal(size=n)) if which == "logistic" else rng.normal(size=n)
    loss = Logistic() if which == "logistic" else Huber(kappa=0.7)
    theta = rng.normal(size=(R, d)) * 2
    mask = (rng.random((R, n)) < 0.6).astype(float)
    xp = get_backend().xp
    g = loss.grad_sum(xp, theta, X, y, mask, None)
    h = 1e-6
    for r in range(R):
        on = mask[r] > 0
        for j in range(d):
            e = np.zeros(d)
            e[j] = h
            fd = (_loss_sum(loss, theta[r] + e, X[on], y[on]) - _loss_sum(loss, theta[r] - e, X[on], y[on])) / (2 * h)
            assert abs(g[r, j] - fd) < 1e-5 * (1 + abs(fd))


@pytest.mark.parametrize("constraint,inside,on_boundary", [
    (Ball(0.3, center=[0.1, 0.0]),
     lambda t: np.linalg.norm(t - [0.1, 0.0], axis=1) <= 0.3 * (1 + 1e-12),
     lambda t: np.linalg.norm(t - [0.1, 0.0], axis=1) > 0.3 * (1 - 1e-9)),
    (Box([-0.2, 0.0], [0.1, 0.5]),
     lambda t: np.all((t >= [-0.2, 0.0]) & (t <= [0.1, 0.5]), axis=1),
     lambda t: np.any((t == [-0.2, 0.0]) | (t == [0.1, 0.5]), axis=1)),
])
def test_iterates_stay_in_the_constraint_set(constraint, inside, on_boundary):
    X = np.array([[3.0, -2.0], [1.0, 1.0]])
    sim = Simulation(Linear(), X, steps=6, eta=0.5, sigma=1.0, index=0, x_other=[-3.0, 2.0],
                     constraint=constraint)
    s = simulate(sim, 3000, seed=1)
    assert np.all(inside(s.theta0)) and np.all(inside(s.theta1))
    assert np.mean(on_boundary(s.theta0)) > 0.1  # the constraint binds (a no-op projection fails this)


def test_interval_projection_of_a_single_step_matches_the_clipped_gaussian():
    # one step from 0 with gradient x = 1: theta_1 = clip(-eta (1 + sigma Z), lo, hi); P(theta_1 = lo) exact
    from scipy.stats import norm
    sim = Simulation(Linear(), np.array([[1.0]]), steps=1, eta=0.5, sigma=1.0, constraint=Interval(-0.6, 0.2))
    s = simulate(sim, 40_000, seed=2)
    p_lo = norm.sf((0.6 / 0.5 - 1.0) / 1.0)
    assert _z(np.mean(s.theta0 <= -0.6), p_lo, np.sqrt(p_lo * (1 - p_lo)), 40_000) < 4.5
    assert np.all(s.theta0 >= -0.6) and np.all(s.theta0 <= 0.2)


def test_samples_do_not_depend_on_how_blocks_are_grouped():
    sim = Simulation(Logistic(), np.random.default_rng(0).normal(size=(6, 2)), y=np.array([1, -1, 1, 1, -1, 1.0]),
                     steps=4, eta=0.4, sigma=0.5, index=2, x_other=[0.0, 1.0], y_other=-1.0, batches="poisson",
                     batch_size=2, constraint=Ball(1.0))
    runs, block = 2500, 300
    whole = simulate(sim, runs, seed=9, block_size=block)
    n_blocks = -(-runs // block)
    for groups in ([[i] for i in range(n_blocks)][::-1], [list(range(0, 5)), list(range(5, n_blocks))]):
        parts = sorted((p for g in groups for p in simulate_blocks(sim, 9, runs, block, g)), key=lambda p: p[0])
        assert np.array_equal(np.concatenate([p[1] for p in parts]), whole.theta0)
        assert np.array_equal(np.concatenate([p[2] for p in parts]), whole.theta1)
    other = simulate(sim, runs, seed=10, block_size=block)
    assert not np.array_equal(other.theta0, whole.theta0)


@pytest.mark.parametrize("kwargs,match", [
    ({"runs": 0}, "runs"),
    ({"runs": -5}, "runs"),
    ({"runs": 10, "backend": "cupy"}, "not installed"),
    ({"runs": 10, "backend": "jax"}, "backend"),
    ({"runs": 10, "backend": "torch", "device": "cuda:7"}, "does not exist"),
    ({"runs": 10, "device": "cuda"}, "does not exist"),
    ({"runs": 10, "seed": -1}, "seed"),
])
def test_bad_input_raises_value_error_naming_it(kwargs, match):
    sim = Simulation(Linear(), np.ones((2, 1)), steps=1, eta=1.0, sigma=1.0)
    runs = kwargs.pop("runs")
    with pytest.raises(ValueError, match=match):
        simulate(sim, runs, **kwargs)


@pytest.mark.parametrize("kwargs,match", [
    ({"steps": 0}, "steps"), ({"sigma": 0.0}, "sigma"), ({"eta": [1.0, 2.0]}, "eta"),
    ({"batches": "cyclic", "batch_size": 3}, "divide"), ({"batches": "weird"}, "batches"),
    ({"index": 9}, "index"), ({"x_other": [1.0, 2.0]}, "x_other"), ({"eta": -1.0}, "eta"),
])
def test_bad_simulation_fields(kwargs, match):
    base = dict(loss=Linear(), X=np.ones((4, 1)), steps=3, eta=1.0, sigma=1.0)
    base.update(kwargs)
    with pytest.raises(ValueError, match=match):
        Simulation(**base)


@pytest.mark.parametrize("backend_name", ["numpy", "torch"])
def test_kth_smallest_is_the_sorted_column(backend_name):
    if backend_name == "torch":
        pytest.importorskip("torch")
    from verify.simulate import get_backend

    backend = get_backend(backend_name, "cpu")
    values = np.random.default_rng(3).random((200, 37))
    values[:, 5] = values[:, 9]  # ties
    for k in (1, 2, 19, 37):
        got = backend.to_numpy(backend.kth_smallest(backend.asarray(values), k))
        np.testing.assert_array_equal(got, np.sort(values, axis=1)[:, k - 1:k])
