"""Simulation of the exact-reference instances (verify.instances) agrees with their exact profiles."""

from __future__ import annotations

import numpy as np
import pytest

from verify.errors import InputError
from verify.instances import FAMILIES
from verify.simulate import audit, empirical_tradeoff, resolve, simulate


def _inside(lo, x, hi):
    return np.all((lo <= x) & (x <= hi))


@pytest.mark.parametrize("family,params", [
    ("quadratic_chain", dict(n=6, eta=0.3, sigma=1.0, T=6, m=0.5, M=2.0, Delta=1.5, d=3)),
    ("bok_c17", dict(n=4, b=2, eta=0.4, sigma=0.8, m=0.5, M=1.0, Delta=1.0, E=3)),
    ("linear_chain", dict(n=4, eta=0.5, sigma=1.0, T=4, Delta=2.0, batches="cyclic", b=2, position=1)),
])
def test_gaussian_chain_band_contains_the_exact_tradeoff(family, params):
    inst = FAMILIES[family].build(**params)
    exact = inst.profile()
    sim = resolve(inst)
    s = simulate(sim, 60_000, seed=17)
    stat = sim.statistic  # the exact LLR the adapter derived from the instance
    assert stat is not None
    t = np.linspace(-2.5, 2.5, 21) * max(exact.mu, 0.5) ** 2
    band = empirical_tradeoff(stat(s.theta0), stat(s.theta1), t)
    # the LLR test is optimal: its exact (alpha, beta) lie on the curve, which must cross every box
    assert np.all(band.contains(lambda a: exact.tradeoff(a, "forward")))


@pytest.mark.parametrize("family,params", [
    ("interval_walk", dict(n=4, eta=0.5, sigma=0.5, T=5, Delta=2.0, D=1.0)),
    ("interval_walk", dict(n=6, eta=0.4, sigma=0.6, T=9, Delta=1.0, D=0.8, batches="cyclic", b=2, position=2,
                           offset=0.5)),
    ("at22_thm41", dict(n=5, eta=0.5, sigma=0.4, T=6, Delta=1.5, D=1.0, b=1)),
])
def test_projected_1d_walk_rates_match_the_exact_grid_law(family, params):
    inst = FAMILIES[family].build(cells=2048, **params)
    exact = inst.profile()
    lo, hi = inst.run.projection
    sim = resolve(inst)
    s = simulate(sim, 60_000, seed=5)
    t = lo + (hi - lo) * np.linspace(0.05, 0.95, 13)
    band = empirical_tradeoff(s.theta0[:, 0], s.theta1[:, 0], t)
    support = exact.support
    a_exact = np.array([exact.p[support > x].sum() for x in t])
    b_exact = np.array([exact.q[support <= x].sum() for x in t])
    slack = 2 * (hi - lo) / 2048 + exact.error  # one cell either side of a threshold, plus the grid error
    assert _inside(band.alpha_lo - slack, a_exact, band.alpha_hi + slack)
    assert _inside(band.beta_lo - slack, b_exact, band.beta_hi + slack)
    # no test beats the exact tradeoff curve
    assert np.all(exact.tradeoff(band.alpha_hi, "forward") <= band.beta_hi + slack)


def test_lower_bounds_never_exceed_exact_values_on_20_seeded_family_instances():
    rng = np.random.default_rng(2020)
    checked = 0
    for i in range(20):
        kind = ("quadratic_chain", "linear_chain", "interval_walk", "subsampled_linear")[i % 4]
        T = int(rng.integers(1, 6))
        if kind == "quadratic_chain":
            p = dict(n=4, eta=float(rng.uniform(0.1, 0.8)), sigma=float(rng.uniform(0.5, 2)), T=T,
                     m=0.5, M=1.5, Delta=float(rng.uniform(0.5, 3)), d=2)
        elif kind == "linear_chain":
            p = dict(n=4, eta=float(rng.uniform(0.1, 1)), sigma=float(rng.uniform(0.5, 2)), T=T,
                     Delta=float(rng.uniform(0.5, 4)))
        elif kind == "interval_walk":
            p = dict(n=4, eta=float(rng.uniform(0.2, 1)), sigma=float(rng.uniform(0.3, 1)), T=T,
                     Delta=float(rng.uniform(0.5, 3)), D=float(rng.uniform(0.5, 2)), cells=1024)
        else:
            p = dict(n=8, b=2, eta=1.0, sigma=float(rng.uniform(0.3, 1)), T=T, Delta=1.0, cells=2048)
        inst = FAMILIES[kind].build(**p)
        exact = inst.profile()
        r = audit(inst, runs=20_000, seed=500 + i, delta=1e-3)
        assert r.eps_lower <= exact.eps(1e-3) + exact.error
        assert r.delta_lower(1.0) <= exact.delta(1.0) + exact.error
        if exact.mu is not None:
            assert r.mu_lower <= exact.mu
        checked += 1
    assert checked == 20


def test_the_adapter_reads_the_run_description():
    """dpsgd_worst_step: the 1-D walk of its last iterate (gradient 0 vs the clipped Delta, no projection)."""
    inst = FAMILIES["dpsgd_worst_step"].build(n=20, b=2, eta=0.5, sigma=1.5, T=3, Delta=2.0)
    sim = resolve(inst)
    assert (sim.n, sim.batch_size, sim.batches, sim.steps, sim.constraint) == (20, 2, "poisson", 3, None)
    np.testing.assert_array_equal(sim.x_other, [2.0])
    assert not np.any(sim.X) and sim.known_constants == inst.params()


def test_a_pair_of_laws_is_not_simulated():
    inst = FAMILIES["gaussian_mechanism"].build(n=4, sigma=0.5, Delta=2.0)
    with pytest.raises(InputError, match="gaussian_pair") as info:
        resolve(inst)
    assert info.value.parameter == "target"


def test_langevin_is_simulated_as_the_chain_of_one_record():
    """LMC is the canonical chain with n = 1 and sigma = sqrt(2/eta) (its run says so; it was a KeyError)."""
    eta, T = 0.2, 6
    inst = FAMILIES["langevin_quadratic"].build(eta=eta, T=T, m=0.5, M=1.0, Delta=1.0)
    sim = resolve(inst)
    assert (sim.n, sim.steps) == (1, T) and sim.sigma == pytest.approx(np.sqrt(2 / eta))
    assert sim.statistic is not None
    r = audit(inst, runs=20_000, seed=3, delta=1e-3)
    assert r.mu_lower <= inst.profile().mu


@pytest.mark.parametrize("name, params, parameter", [
    ("logistic_ball", dict(n=1), "n"),
    ("logistic_ball", dict(adjacency="any"), "adjacency"),
    ("logistic_ball", dict(radius=0.0), "radius"),
    ("huber_box", dict(T=2.5), "T"),
    ("huber_box", dict(half_width=-1.0), "half_width"),
])
def test_bad_scenario_parameters_are_input_errors(name, params, parameter):
    """The simulated scenarios validate like the exact families (one dialect: verify.validate)."""
    with pytest.raises(InputError) as info:
        resolve(name, params)
    assert info.value.parameter == parameter and str(info.value).startswith(f"{name}: ")
