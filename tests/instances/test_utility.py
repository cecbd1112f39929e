"""The exact excess-risk references of verify/instances/utility.py (Chourasia et al. 2021, Lemma 6 and Thm 4)
against independent computations: a step-by-step mpmath recursion of the free chain's moments, and seeded
Monte Carlo runs of projected noisy GD (numpy, np.clip) with a stated confidence interval."""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest

import theorems
from verify.errors import InputError
from verify.instances import FAMILIES
from verify.instances.profile import GaussianProfile
from verify.instances.utility import closed_form_risk, excess_risk_1d, grid_risk
from verify.privacy.notions import notion

#: two-sided normal quantile of the Monte Carlo checks: a false alarm once in ~10^5 seeds
Z_CONFIDENCE = 4.5


def _monte_carlo(m, eta, sigma, T, R, x0, v0, d=1, runs=200_000, seed=0):
    """Mean and standard error of (m/2)||theta_T||^2 over seeded runs of projected noisy GD on [-R, R]^d,
    started from Pi(N(x0, v0 I)) (the canonical iteration, written out here)."""
    rng = np.random.default_rng(seed)
    theta = np.clip(x0 + math.sqrt(v0) * rng.standard_normal((runs, d)), -R, R)
    for _ in range(T):
        theta = np.clip(theta - eta * m * theta - eta * sigma * rng.standard_normal((runs, d)), -R, R)
    risk = 0.5 * m * np.sum(theta ** 2, axis=1)
    return float(risk.mean()), float(risk.std(ddof=1) / math.sqrt(runs))


def _free_risk_by_recursion(m, eta, sigma, T, x0, v0):
    """(m/2) E[theta_T^2] of the unprojected chain, mean and variance stepped one iteration at a time."""
    mpmath.mp.dps = 40
    mean, var = mpmath.mpf(x0), mpmath.mpf(v0)
    a = 1 - mpmath.mpf(eta) * m
    for _ in range(T):
        mean, var = a * mean, a ** 2 * var + (mpmath.mpf(eta) * sigma) ** 2
    return float(m * (mean ** 2 + var) / 2)


@pytest.mark.parametrize("m, eta, sigma, T, x0", [
    (1.0, 0.5, 1.0, 1, -3.0), (0.3, 0.1, 2.0, 37, 5.0), (2.0, 0.01, 0.5, 4000, -1.0), (1e-3, 10.0, 0.1, 200, 40.0),
])
def test_closed_form_is_the_recursion_when_the_box_is_far(m, eta, sigma, T, x0):
    v0 = eta * sigma ** 2 / m
    risk, error = closed_form_risk(m, eta, sigma, T, R=1e6, x0=x0, v0=v0)
    assert risk == pytest.approx(_free_risk_by_recursion(m, eta, sigma, T, x0, v0), rel=1e-12)
    assert error < 1e-12 * risk


@pytest.mark.parametrize("params", [
    dict(eta=0.2, sigma=1.0, T=20, m=1.0, D=1.0),                # noise as wide as the box: the grid
    dict(eta=0.1, sigma=0.5, T=50, m=1.0, D=20.0),               # start near the end, projection negligible
    dict(eta=0.05, sigma=3.0, T=15, m=2.0, D=4.0, M=3.0, d=2),   # a box in two dimensions
])
def test_reference_agrees_with_monte_carlo(params):
    inst = FAMILIES["box_quadratic"].build(**params)
    d = int(inst.params()["d"])
    R = inst.run.projection[1]
    x0, v0 = float(inst.run.init_mean[0]), float(inst.run.init_var)
    mc, se = _monte_carlo(params["m"], params["eta"], params["sigma"], params["T"], R, x0, v0, d=d)
    exact = inst.profile().excess_risk
    assert abs(mc - exact) <= Z_CONFIDENCE * se + 4 * inst.profile().error * exact, (mc, se, exact)


def test_the_certified_error_covers_the_projection():
    # the projection matters (the box is 2.4 stationary stds wide each side): the free chain is off by more
    # than the grid's error, but by less than the certified bound
    m, eta, sigma, T, R, x0 = 1.0, 0.2, 1.0, 30, 0.8, -0.6
    v0 = eta * sigma ** 2 / m
    free, certified = closed_form_risk(m, eta, sigma, T, R, x0, v0)
    grid, refinement = grid_risk(m, eta, sigma, T, R, x0, v0, cells=512)
    assert refinement < abs(free - grid) <= certified + refinement
    assert excess_risk_1d(m, eta, sigma, T, R, x0, v0).method == "grid"


def test_box_is_as_wide_as_lemma6_allows():
    # L is the largest gradient norm m ||theta|| over the box (its corners), and diam(C) = 2L/m
    inst = FAMILIES["box_quadratic"].build(eta=0.1, sigma=1.0, T=5, m=0.7, D=3.0, d=3)
    R = inst.run.projection[1]
    corners = np.array(list(itertools.product((-R, R), repeat=3)))
    largest = max(float(np.linalg.norm(0.7 * c)) for c in corners)
    assert inst.params()["L"] == pytest.approx(largest, rel=1e-12)
    assert 2 * R * math.sqrt(3) == pytest.approx(inst.params()["D"], rel=1e-12)


def test_thm4_instances_run_the_papers_calibration():
    # docs/papers/chourasia2021.md, Theorem 4: eta = lambda/(2 beta^2), sigma_C^2 = 4 alpha L^2/(lambda eps' n^2);
    # canonical sigma = sigma_C/sqrt(eta/2)
    n, m, M, L, alpha, eps_p, d = 1000, 0.5, 2.0, 3.0, 4.0, 0.8, 2
    inst = FAMILIES["chourasia_thm4_rdp"].build(n=n, m=m, M=M, L=L, alpha=alpha, eps_rdp=eps_p, d=d, init="gaussian")
    eta = m / (2 * M ** 2)
    sigma_c = math.sqrt(4 * alpha * L ** 2 / (m * eps_p * n ** 2))
    own = inst.params()
    assert own["eta"] == pytest.approx(eta, rel=1e-12)
    assert own["sigma"] == pytest.approx(sigma_c / math.sqrt(eta / 2), rel=1e-12)
    assert own["T"] == math.ceil(2 * M ** 2 / m ** 2 * math.log(n ** 2 * eps_p / (alpha * d)))
    assert own["L"] == pytest.approx(L) and own["D"] == pytest.approx(2 * L / m)
    # the calibrated run is (alpha, eps')-RDP by Cor. 1 with Delta = 2L
    rdp = theorems.get("chourasia2021/cor1").evaluate(alpha=alpha, Delta=2 * L, n=n, m=m, M=M, eta=own["eta"],
                                                     sigma=own["sigma"], T=own["T"])
    assert float(rdp) <= eps_p
    # (eps, delta): alpha = 1 + 2 log(1/delta)/eps, eps' = eps/2, K* from n^2 eps^2/(4 log(1/delta) d)
    eps, delta = 1.0, 1e-5
    dp = FAMILIES["chourasia_thm4_dp"].build(n=n, m=m, M=M, L=L, eps=eps, delta=delta, d=d, init="gaussian")
    sigma_c2 = 8 * L ** 2 * (eps + 2 * math.log(1 / delta)) / (m * eps ** 2 * n ** 2)
    assert dp.params()["sigma"] ** 2 * eta / 2 == pytest.approx(sigma_c2, rel=1e-12)
    budget = n ** 2 * eps ** 2 / (4 * math.log(1 / delta) * d)
    assert dp.params()["T"] == math.ceil(2 * M ** 2 / m ** 2 * math.log(budget))


def test_utility_notion_reads_the_excess_risk():
    inst = FAMILIES["box_quadratic"].build(eta=0.1, sigma=1.0, T=5, m=1.0, D=30.0)
    utility = notion("utility")
    assert utility.exact(inst.profile(), None) == inst.profile().excess_risk
    for query in (lambda p: p.renyi(2.0), lambda p: p.delta(1.0), lambda p: p.eps(1e-5)):
        with pytest.raises(InputError):
            query(inst.profile())
    with pytest.raises(InputError, match="excess risk"):
        utility.exact(GaussianProfile([0.0], [1.0], [1.0], [1.0]), None)


@pytest.mark.parametrize("name, params, parameter", [
    ("box_quadratic", dict(eta=0.1, sigma=1.0, T=5, m=1.0, D=0.0), "D"),
    ("box_quadratic", dict(eta=0.1, sigma=1.0, T=5, m=1.0, M=0.5, D=1.0), "M"),
    ("box_quadratic", dict(eta=2.0, sigma=1.0, T=5, m=1.0, D=1.0), "eta"),
    ("box_quadratic", dict(eta=0.1, sigma=1.0, T=5, m=1.0, D=1.0, x0=3.0), "x0"),
    ("box_quadratic", dict(eta=0.1, sigma=1.0, T=5, m=1.0, D=1.0, method="exact"), "method"),
    ("chourasia_thm4_rdp", dict(n=2, m=1.0, M=1.0, L=1.0, alpha=2.0, eps_rdp=0.1, init="gaussian"), "n"),
    ("chourasia_thm4_rdp", dict(n=100, m=1.0, M=1.0, L=1.0, alpha=2.0, eps_rdp=0.1, init="fixed"), "init"),
    ("chourasia_thm4_dp", dict(n=100, m=1.0, M=1.0, L=1.0, eps=1.0, delta=1.5, init="gaussian"), "delta"),
])
def test_bad_input_names_the_parameter(name, params, parameter):
    with pytest.raises(InputError) as info:
        FAMILIES[name].build(**params)
    assert info.value.parameter == parameter


@pytest.mark.parametrize("eta, R, x0, T", [(0.01, 0.35, 0.0, 2000), (0.3, 1.2, -0.5, 40), (0.002, 0.15, 0.05, 3000)])
def test_exit_bound_is_above_the_simulated_exit_frequency(eta, R, x0, T):
    # the free chain (m = sigma = 1) leaving [-R, R] at some t <= T: seeded runs, the lower end of a 99.99%
    # interval of the frequency must stay below the bound (blocks with Lévy's maximal inequality)
    from verify.instances.utility import _log_exit

    v0 = eta
    rng = np.random.default_rng(1)
    runs = 20_000
    theta = x0 + math.sqrt(v0) * rng.standard_normal(runs)
    out = np.abs(theta) > R
    for _ in range(T):
        theta = (1 - eta) * theta - eta * rng.standard_normal(runs)
        out |= np.abs(theta) > R
    freq = out.mean()
    lower = freq - 3.9 * math.sqrt(max(freq * (1 - freq), 1.0 / runs) / runs)
    bound = math.exp(min(_log_exit(1.0, eta, 1.0, x0, v0, T, R), 0.0))
    assert 0.0 < freq and lower <= bound
    assert bound < 1.0  # informative
