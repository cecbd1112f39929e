"""The 1-D grid engine at a large per-step mu (log masses) and its cheaper linear rows.

References independent of the engine: the Gaussian closed forms (D_alpha = alpha mu^2 / 2, Mironov 2017,
Prop. 7; eps(delta) of mu-GDP by mpmath bisection, Dong, Roth, Su 2022, Cor. 1), the quadratic chain's
closed form, mpmath quadrature of a projected step, and the former cell formula :func:`normal_mass`
(four log-CDFs per cell) for the new one-CDF-per-edge rows.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from tests.instances.test_finite_exact import _mp_gdp_eps
from verify.errors import InputError
from verify.instances import FAMILIES, quadratic_chain
from verify.instances.grid import (
    LINEAR_REACH,
    IntervalGrid,
    Mixture,
    evolve_many,
    evolve_shuffled,
    normal_mass,
)
from verify.instances.grid_log import evolve_log
from verify.instances.profile import DiscreteProfile


def test_rows_from_one_cdf_per_edge_equal_the_cell_formula_and_vanish_beyond_the_reach():
    """``row`` (band-limited, the CDF once per edge) against ``normal_mass`` of every cell, off-grid
    centres and centres outside the interval included; ``log_row`` against mpmath far beyond the doubles."""
    cases = [(-25.0, 25.0, 512, 0.25), (-1.0, 1.0, 256, 0.3), (0.0, 1.0, 64, 1e-3), (-60.0, 60.0, 512, 1.0)]
    for lo, hi, C, s in cases:
        grid = IntervalGrid(lo, hi, C)
        y = np.concatenate([grid.support, grid.support + 0.37 * s, [lo - 100.0, hi + 50.0]])
        z = (grid.edges - y[:, None]) / s
        reference = normal_mass(z[:, :-1], z[:, 1:])
        cells = grid.row(y, s)[:, 1:-1]
        resolved = reference > 1e-300
        np.testing.assert_allclose(cells[resolved], reference[resolved], rtol=1e-12, atol=0)
        assert np.all(cells[~resolved] <= 1e-300)
        far = np.abs((grid.centres - y[:, None]) / s) > LINEAR_REACH + 1
        assert np.all(cells[far] == 0.0) and np.all(reference[far] == 0.0)  # zero either way
    grid = IntervalGrid(0.0, 100.0, 400)
    logs = grid.log_row(np.array(0.0), 1.0)
    with mpmath.workdps(40):
        for i in (40, 200, 399):  # cells at 10, 50, 99.75 standard deviations
            a, b = mpmath.mpf(grid.edges[i]), mpmath.mpf(grid.edges[i + 1])
            exact = mpmath.log(mpmath.ncdf(-a) - mpmath.ncdf(-b))
            assert logs[1 + i] == pytest.approx(float(exact), rel=1e-12)
        assert logs[-1] == pytest.approx(float(mpmath.log(mpmath.ncdf(-100))), rel=1e-12)


def test_log_engine_is_the_linear_chain_where_that_is_resolved():
    """Translations, affine maps (dense) and shuffled epochs: the log engine's masses are the linear
    engines' to round-off wherever those are far above the smallest double."""
    grid = IntervalGrid(-3.0, 3.0, 200)
    for schedule in ([Mixture((1.0,), (0.2,))], [Mixture((0.7, 0.3), (0.0, 0.5))],
                     [Mixture((1.0,), (lambda t: 0.2 - 0.1 * t,))]):
        for T in (1, 2, 5):
            linear, _ = evolve_many(grid, 0.5, 0.4, [schedule], T, "dense")
            logs = evolve_log(grid, 0.5, 0.4, [schedule], T)
            ok = linear > 1e-250
            np.testing.assert_allclose(np.exp(logs[ok]), linear[ok], rtol=1e-12)
            assert np.all(np.isfinite(logs))
    still, use = Mixture((1.0,), (0.0,)), Mixture((1.0,), (0.3,))
    linear, _ = evolve_shuffled(grid, 0.0, 0.4, [(still, use)], 3, 7)
    logs = evolve_log(grid, 0.0, 0.4, [[still, use]], 7, shuffled=3)
    ok = linear > 1e-250
    np.testing.assert_allclose(np.exp(logs[ok]), linear[ok], rtol=1e-12)


@pytest.mark.parametrize("mu", [10.0, 20.0, 30.0])
@pytest.mark.parametrize("T, cells", [(1, 2048), (2, 4096)])
def test_a_walk_whose_walls_never_act_is_gaussian_composition_at_a_large_mu(mu, T, cells):
    """Full-batch linear walk, per-step mu = Delta/(n sigma) up to 30, on an interval wide enough that the
    walls hold no mass that matters: D_2 = 2 T mu^2 / 2 and eps(delta) of the sqrt(T) mu Gaussian, within
    the grid's stated errors.  The linear masses underflow where these are decided (Q's mass e^-1800)."""
    r = math.sqrt(T)
    lo, hi = -T * mu - 40 * r, 2 * T * mu + 40 * r  # D_2 is decided around -T mu (P's frame)
    profile = FAMILIES["interval_walk"].build(n=1, eta=1.0, sigma=1.0, T=T, Delta=mu, D=hi - lo, lo=lo, x0=0.0,
                                              cells=cells).profile()
    closed = 2.0 * T * mu ** 2 / 2
    for direction in ("forward", "backward"):
        value = float(profile.renyi(2.0, direction))
        assert np.isfinite(value) and value <= closed
        assert closed - value <= profile.error_of("renyi", 2.0, direction) < 1e-3 * closed
    reference = _mp_gdp_eps(mu * r, 1e-5)
    value = float(profile.eps(1e-5))
    assert abs(value - reference) <= profile.error_of("eps", 1e-5) < 1e-2 * reference


@pytest.mark.parametrize("mu", [20.0, 30.0])
def test_one_projected_step_at_a_large_mu_against_quadrature(mu):
    """T = 1 with the walls acting (interval [-5, mu + 5] sd): D_2 is decided by P's atom at lo, where Q has
    e^-(mu+5)^2/2; mpmath: atoms exactly, the interior by quadrature of p^2/q."""
    lo, hi = -5.0, mu + 5.0
    profile = FAMILIES["interval_walk"].build(n=1, eta=1.0, sigma=1.0, T=1, Delta=mu, D=hi - lo, lo=lo, x0=0.0,
                                              cells=2048).profile()
    with mpmath.workdps(30):
        m, a, b = mpmath.mpf(mu), mpmath.mpf(lo), mpmath.mpf(hi)
        atoms = (mpmath.ncdf(a) ** 2 / mpmath.ncdf(a - m) + mpmath.ncdf(-b) ** 2 / mpmath.ncdf(m - b))
        inside = mpmath.quad(lambda x: mpmath.npdf(x) ** 2 / mpmath.npdf(x, m), [a, 0, b])
        exact = float(mpmath.log(atoms + inside))
    value = float(profile.renyi(2.0))
    assert value <= exact * (1 + 1e-12)  # one step: the grid law is the binned law (data processing)
    assert exact - value <= profile.error_of("renyi", 2.0) < 1e-3 * exact


def test_a_projected_quadratic_at_a_large_mu_matches_the_gaussian_chain():
    """Dense engine (affine maps) on log masses: q = 1 (b = n), three steps, per-step mu 20,
    the walls 60 away: the quadratic chain's closed form."""
    for T, mu in ((3, 20.0),):
        exact = float(quadratic_chain(1, 0.5, 1.0, T, m=0.4, M=0.4, Delta=mu).profile().renyi(2.0))
        profile = FAMILIES["projected_quadratic"].build(n=1, b=1, eta=0.5, sigma=1.0, T=T, Delta=mu, D=120.0, m=0.4,
                                                        cells=2048).profile()
        value = float(profile.renyi(2.0))
        assert abs(value - exact) <= profile.error_of("renyi", 2.0) < 5e-3 * exact


def test_the_log_engine_refuses_beyond_its_work_limit_and_the_profile_falls_back():
    grid = IntervalGrid(-50.0, 50.0, 2048)
    with pytest.raises(InputError) as info:
        evolve_log(grid, 0.0, 0.25, [[Mixture((1.0,), (0.1,))]], 1000)
    assert info.value.parameter == "cells"

    def refuse():
        raise InputError("too much work", "cells")

    p, q = np.array([0.5, 0.5, 1e-260]), np.array([0.5, 0.5, 0.0])
    with pytest.raises(InputError, match="not resolved"):  # the linear masses alone, as without a resolver
        DiscreteProfile(p, q, resolve=refuse).renyi(2.0)
    logs = DiscreteProfile.from_log(np.log(p), [np.log(0.5), np.log(0.5), -700.0])  # q's mass e^-700, not 0
    resolved = DiscreteProfile(p, q, resolve=lambda: logs)
    assert float(resolved.renyi(2.0)) == pytest.approx(float(logs.renyi(2.0)), rel=1e-15)


def test_equal_steps_share_one_kernel_and_too_many_distinct_steps_are_refused_before_building():
    """A cycle of 2000 batches (each its own Mixture object) keeps two kernels; 5000 distinct translations on
    8192 cells would need 1.8 GiB of kernels: refused at once, naming cells."""
    grid = IntervalGrid(-4.0, 4.0, 256)
    use = Mixture((1.0,), (0.25,))
    cycle = [Mixture((1.0,), (0.0,)) for _ in range(1999)] + [use]
    (cyclic,), _ = evolve_many(grid, 0.0, 0.5, [cycle], 2003, "direct")
    still = Mixture((1.0,), (0.0,))
    (walk,), _ = evolve_many(grid, 0.0, 0.5, [[still] * 1999 + [use]], 2003, "dense")
    np.testing.assert_allclose(cyclic, walk, rtol=1e-9, atol=1e-300)  # the direct engine against the dense one
    big = IntervalGrid(-4.0, 4.0, 8192)
    with pytest.raises(InputError) as info:
        evolve_many(big, 0.0, 0.5, [[Mixture((1.0,), (k * 1e-4,)) for k in range(5000)]], 3, "fft")
    assert info.value.parameter == "cells"


def test_a_cell_where_both_linear_masses_underflow_can_decide_the_renyi_divergence():
    """log p = -800, log q = -3000 in one cell: both 0 in doubles, yet p^2/q = e^1400 there; the resolver's log
    masses give D_2 = log(sum p^2/q) by hand, delta(eps) needs no log masses."""
    log_p = np.array([np.log(0.5), np.log(0.5), -800.0])
    log_q = np.array([np.log(0.25), np.log(0.75), -3000.0])
    calls = []

    def resolve():
        calls.append(1)
        return DiscreteProfile.from_log(log_p, log_q)

    profile = DiscreteProfile(np.exp(log_p), np.exp(log_q), resolve=resolve)
    assert float(profile.delta(0.1, "forward")) == pytest.approx(0.5 * (1 - math.exp(0.1) * 0.5), rel=1e-12)
    assert not calls  # delta never needed the log masses
    with mpmath.workdps(30):
        by_hand = mpmath.log(mpmath.mpf(0.25) / 0.25 + mpmath.mpf(0.25) / 0.75 + mpmath.exp(-1600 + 3000))
    assert float(profile.renyi(2.0, "forward")) == pytest.approx(float(by_hand), rel=1e-12)
    assert calls == [1]


def _two_projected_steps_renyi2(mu: float, lo: float, hi: float) -> float:
    """D_2(P || Q) of two projected steps from 0 (noise 1; P still, Q moving mu a step), by mpmath: atoms
    of the second step by quadrature over the first step's interior, the interior density in closed form
    (a Gaussian product integrated over [lo, hi]), the ratio p^2/q by quadrature (many sub-intervals: the
    integrands are narrow peaks of e^-100 and less)."""
    F, f = mpmath.ncdf, mpmath.npdf
    with mpmath.workdps(15):
        lo, hi, mu = mpmath.mpf(lo), mpmath.mpf(hi), mpmath.mpf(mu)
        pieces = mpmath.linspace(lo, hi, 17)

        def law(c):
            a_lo, a_hi = F(lo - c), F(c - hi)  # the first step's atoms
            A_lo = a_lo * F(-c) + a_hi * F(lo - hi - c) + mpmath.quad(lambda y: f(y - c) * F(lo - y - c), pieces)
            A_hi = a_lo * F(lo + c - hi) + a_hi * F(c) + mpmath.quad(lambda y: f(y - c) * F(y + c - hi), pieces)
            density = lambda x: (a_lo * f(x - lo - c) + a_hi * f(x - hi - c)
                                 + mpmath.exp(-(x - 2 * c) ** 2 / 4) / (2 * mpmath.sqrt(mpmath.pi))
                                 * (F(mpmath.sqrt(2) * (hi - x / 2)) - F(mpmath.sqrt(2) * (lo - x / 2))))
            return A_lo, A_hi, density

        (p_lo, p_hi, p), (q_lo, q_hi, q) = law(mpmath.mpf(0)), law(mu)
        inside = mpmath.quad(lambda x: p(x) ** 2 / q(x), mpmath.linspace(lo, hi, 33))
        return float(mpmath.log(p_lo ** 2 / q_lo + p_hi ** 2 / q_hi + inside))


def test_two_projected_steps_at_mu_30_against_quadrature():
    """T = 2, walls acting ([-4, 2 mu + 4]): D_2 is decided by P's atom at lo, where Q's mass is e^-1000
    (0 in doubles): the log engine's value against mpmath, within the grid's stated error."""
    mu, lo = 30.0, -4.0
    hi = 2 * mu + 4
    profile = FAMILIES["interval_walk"].build(n=1, eta=1.0, sigma=1.0, T=2, Delta=mu, D=hi - lo, lo=lo, x0=0.0,
                                              cells=2048).profile()
    exact = _two_projected_steps_renyi2(mu, lo, hi)
    value = float(profile.renyi(2.0, "forward"))
    assert abs(value - exact) <= profile.error_of("renyi", 2.0, "forward") < 2e-4 * exact
