"""1-D grid engine against closed forms, public accountant values, the numbers of docs/papers/ and Monte Carlo."""

import csv
import math
from pathlib import Path

import numpy as np
import pytest

from verify.instances import FAMILIES, quadratic_chain
from verify.instances.grid import IntervalGrid, Mixture, evolve, normal_mass
from verify.instances.profile import DiscreteProfile
from verify.privacy.gaussian import gdp_delta

RDP_TABLE = Path(__file__).resolve().parents[1] / "data" / "sampled_gaussian_rdp.csv"


def test_normal_mass_in_the_tails():
    """P(u <= Z <= v) against mpmath where plain CDF differences cancel to 0."""
    import mpmath as mp
    mp.mp.dps = 40
    for u, v in [(30.0, 30.5), (-40.0, -39.0), (-1.0, 2.0), (8.0, 8.0001)]:
        exact = mp.ncdf(v) - mp.ncdf(u)
        assert normal_mass(u, v) == pytest.approx(float(exact), rel=1e-10)


def _rows():
    rows = [r for r in csv.DictReader(RDP_TABLE.open()) if r["steps"] == "1"]
    keep = []
    for r in rows:
        q, z, a = float(r["q"]), float(r["sigma"]), float(r["order"])
        if q in (0.01, 0.05, 0.1, 0.2) and z in (0.5, 1.0, 2.0) and a <= 10:
            keep.append((q, z, a, float(r["rdp"])))
    return keep


def test_one_subsampled_step_matches_public_rdp_table():
    """T = 1: the last iterate is one Poisson-subsampled Gaussian step (add/remove, remove direction)."""
    rows = _rows()
    assert len(rows) >= 40
    cache = {}
    for q, z, a, ref in rows:
        if (q, z) not in cache:
            inst = FAMILIES["subsampled_linear"].build(n=round(1 / q), b=1, eta=1.0, sigma=z, T=1, Delta=1.0)
            cache[q, z] = inst.profile()
        prof = cache[q, z]
        value = prof.renyi(a, "backward")
        assert value == pytest.approx(ref, rel=1e-3)
        assert abs(value - ref) <= prof.error_of("renyi", a, "backward")  # the estimate covers the error


def test_unprojected_gaussian_matches_closed_form():
    """q = 1, no projection: the laws are N(0, T s^2) vs N(T c, T s^2), mu = sqrt(T) Delta/(b sigma)."""
    T, Delta, sigma = 4, 0.8, 1.0
    mu = math.sqrt(T) * Delta / sigma
    eps = np.array([0.0, 0.5, 1.0, 2.0])
    fine = FAMILIES["subsampled_linear"].build(n=1, b=1, eta=0.5, sigma=sigma, T=T, Delta=Delta, cells=2 ** 15,
                                               window=12, method="fft").profile()
    np.testing.assert_allclose(fine.delta(eps), gdp_delta(mu, eps), rtol=1e-6)
    np.testing.assert_allclose(fine.delta(eps, "backward"), gdp_delta(mu, eps), rtol=1e-6)
    direct = FAMILIES["subsampled_linear"].build(n=1, b=1, eta=0.5, sigma=sigma, T=T, Delta=Delta, cells=4096,
                                                 window=10, method="direct").profile()
    alpha = np.array([1.5, 2.0, 4.0])
    np.testing.assert_allclose(direct.extrapolate("renyi", alpha), alpha * mu ** 2 / 2, rtol=1e-6)
    np.testing.assert_allclose(direct.renyi(alpha), alpha * mu ** 2 / 2, rtol=1e-4)
    np.testing.assert_allclose(direct.extrapolate("renyi", alpha, "backward"), alpha * mu ** 2 / 2, rtol=1e-6)


@pytest.mark.parametrize("batches, b", [("full", None), ("cyclic", 2), ("poisson", 1)])
def test_refinement_within_reported_error(batches, b):
    """Projected interval walk: halving the grid step changes delta(eps) and D_2 by less than the estimate."""
    kw = dict(n=4, eta=0.5, sigma=1.0, T=12, Delta=1.0, D=2.0, batches=batches, b=b)
    coarse = FAMILIES["interval_walk"].build(cells=512, **kw).profile()
    fine = FAMILIES["interval_walk"].build(cells=1024, **kw).profile()
    eps = np.linspace(0.0, 4.0, 41)
    change = np.max(np.abs(fine.delta(eps) - coarse.delta(eps)))
    assert 0 < change < coarse.error
    for a in (2.0, 5.0):
        assert abs(fine.renyi(a) - coarse.renyi(a)) < coarse.error_of("renyi", a)


@pytest.mark.parametrize("T, printed, digits", [(1, 2.9e-4, 5), (50, 5.46e-3, 5), (100, 5.61e-3, 5)])
def test_at22_construction_catalogue_values(T, printed, digits):
    """Altschuler–Talwar Thm 4.1 construction (docs/papers/altschuler2022.md): n=20, b=1, L=1, eta=0.1, D=2,
    sigma=3, D_2."""
    inst = FAMILIES["at22_thm41"].build(n=20, eta=0.1, sigma=3.0, T=T, Delta=1.0, D=2.0, b=1, cells=1024)
    assert round(float(inst.profile().renyi(2.0)), digits) == pytest.approx(printed, abs=1e-12)


def test_monte_carlo_agrees_with_grid_delta():
    """Plain numpy, 10^5 seeded runs of a projected cyclic walk: the empirical P(S) - e^eps Q(S) on the
    grid's optimal set S agrees with the grid's delta(eps) within its confidence interval."""
    n, b, eta, sigma, T, Delta, D, cells = 4, 2, 0.5, 0.8, 9, 1.0, 1.5, 1024
    inst = FAMILIES["interval_walk"].build(n=n, b=b, eta=eta, sigma=sigma, T=T, Delta=Delta, D=D, batches="cyclic",
                                           position=1, cells=cells)
    prof = inst.profile()
    grid = IntervalGrid(-D / 2, D / 2, cells)
    runs = 100_000
    rng = np.random.default_rng(2024)

    def simulate(record_gradient):
        theta = np.zeros(runs)
        for k in range(T):
            drift = -eta * record_gradient / b if k % (n // b) == 1 else 0.0
            theta = np.clip(theta + drift - eta * sigma * rng.standard_normal(runs), -D / 2, D / 2)
        state = np.clip(np.floor((theta + D / 2) / grid.h).astype(int) + 1, 1, cells)
        state[theta == -D / 2] = 0
        state[theta == D / 2] = cells + 1
        return state

    sp, sq = simulate(0.0), simulate(-Delta)
    llr = np.log(prof.p) - np.log(prof.q)  # every grid state has positive mass here
    assert prof.p.size == cells + 2
    for eps in (0.25, 0.5, 1.0):
        S = llr > eps
        a, c = S[sp], S[sq]
        est = a.mean() - math.exp(eps) * c.mean()
        se = math.sqrt(a.var() / runs + math.exp(2 * eps) * c.var() / runs)
        assert abs(est - prof.delta(eps, "forward")) < 4 * se + prof.error
        assert prof.delta(eps, "forward") > 0.02


def test_dense_engine_any_gradient_map_matches_quadratic_chain():
    """A non-translation map (1-D quadratic, unprojected in practice) via the dense engine vs the chain."""
    n, eta, sigma, T, m, Delta = 4, 0.3, 1.0, 12, 0.8, 1.5
    exact = quadratic_chain(n, eta, sigma, T, m=m, M=m, Delta=Delta).profile()
    values = []
    for cells in (512, 1024):
        grid = IntervalGrid(-8.0, 10.0, cells)
        P, _ = evolve(grid, 0.0, eta * sigma, [Mixture((1.0,), (lambda x: -eta * m * x,))], T)
        Q, _ = evolve(grid, 0.0, eta * sigma, [Mixture((1.0,), (lambda x: -eta * (m * x - Delta / n),))], T)
        values.append(DiscreteProfile(P, Q).renyi(2.0))
    assert values[1] == pytest.approx(exact.renyi(2.0), rel=1e-3)
    assert (4 * values[1] - values[0]) / 3 == pytest.approx(exact.renyi(2.0), rel=1e-6)


def test_engine_rejects_bad_input():
    with pytest.raises(ValueError, match="empty"):
        IntervalGrid(1.0, 1.0, 16)
    grid = IntervalGrid(0.0, 1.0, 16)
    with pytest.raises(ValueError, match="outside"):
        evolve(grid, 2.0, 0.1, [Mixture((1.0,), (0.0,))], 3)
    with pytest.raises(ValueError, match="sum to 1"):
        Mixture((0.5, 0.4), (0.0, 1.0))
    with pytest.raises(ValueError, match="translations"):
        evolve(grid, 0.5, 0.1, [Mixture((1.0,), (lambda x: -x,))], 3, method="fft")


def test_per_step_noise_and_dense_floor():
    from verify.instances.grid import DENSE_FLOOR, IntervalGrid, Mixture, evolve_many
    grid = IntervalGrid(-20.0, 20.0, 1024)  # cell width h: "mass at the centre" adds ~h^2/12 per step
    still = [Mixture((1.0,), (lambda t: -0.1 * t,))]
    # per-step stds: s_0 = 1 then 0.5 (dense only); a wrong length or a non-dense method is refused
    (state,), _ = evolve_many(grid, 0.0, [1.0, 0.5], [still], 2)
    var = 0.9 ** 2 * 1.0 + 0.25  # theta_2 = 0.9 theta_1 + 0.5 Z, theta_1 = Z
    assert float(state @ grid.support ** 2) == pytest.approx(var, rel=1e-3)
    with pytest.raises(ValueError, match="s"):
        evolve_many(grid, 0.0, [1.0, 0.5, 0.5], [still], 2)
    with pytest.raises(ValueError, match="dense"):
        evolve_many(grid, 0.0, [1.0, 0.5], [[Mixture((1.0,), (0.0,))]], 2, method="fft")
    # far tails underflow in dense mode (60 standard deviations): raised to the floor in both laws and flagged
    wide = IntervalGrid(-60.0, 60.0, 512)
    (far,), small = evolve_many(wide, 0.0, 1.0, [still], 2)
    assert small is not None and small.any() and far.min() >= DENSE_FLOOR * 0.99
    assert float(far @ wide.support ** 2) == pytest.approx(1.81, rel=1e-2)


def test_shuffled_epochs_of_one_batch_are_full_batch_steps_and_bad_input_is_named():
    from verify.errors import InputError
    from verify.instances.grid import evolve_many, evolve_shuffled

    grid = IntervalGrid(-2.0, 2.0, 64)
    still, use = Mixture((1.0,), (0.0,)), Mixture((1.0,), (0.3,))
    (shuffled,), _ = evolve_shuffled(grid, 0.0, 0.5, [(still, use)], 1, 5)  # l = 1: every step uses the record
    (full,), _ = evolve_many(grid, 0.0, 0.5, [[use]], 5, "dense")
    assert np.allclose(shuffled, full, rtol=0, atol=1e-15)
    # l = 2, T = 1: the record is in the first batch with probability 1/2
    (half,), _ = evolve_shuffled(grid, 0.0, 0.5, [(still, use)], 2, 1)
    assert np.allclose(half, 0.5 * grid.row(np.array(0.0), 0.5) + 0.5 * grid.row(np.array(0.3), 0.5), atol=1e-15)
    for kwargs, name in ((dict(l=0, T=3), "l"), (dict(l=2, T=0), "T")):
        with pytest.raises(InputError) as info:
            evolve_shuffled(grid, 0.0, 0.5, [(still, use)], **kwargs)
        assert info.value.parameter == name
    with pytest.raises(InputError) as info:
        evolve_shuffled(IntervalGrid(-2.0, 2.0, 4096), 0.0, 0.5, [(still, use)], 2, 3)
    assert info.value.parameter == "cells"
