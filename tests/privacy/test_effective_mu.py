"""Tests of the effective-mu solve of verify/privacy/notions.py: the halvings with known outcomes skipped
give the plain bisection's result to the last bit, and the mu of a Gaussian curve."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

from verify.privacy.gaussian import gdp_delta
from verify.privacy.notions import (HALVINGS, MU_EPS_GRID, MU_HI, SATURATED, gdp_below, gdp_halvings, gdp_newton_mu,
                                    effective_mu)


def _plain_bisection(deltas: np.ndarray) -> np.ndarray:
    """Every halving tested: HALVINGS halvings of [0, MU_HI], stopping once no midpoint moves."""
    used = (deltas > 1e-14) & (deltas < 1.0 - SATURATED)
    lo, hi = np.zeros_like(deltas), np.full_like(deltas, MU_HI)
    for _ in range(HALVINGS):
        mid = 0.5 * (lo + hi)
        if np.all(mid[used] == lo[used]):
            break
        below = gdp_below(mid, MU_EPS_GRID, deltas)
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return lo[used]


def _curves() -> list[np.ndarray]:
    """delta(eps) curves of every shape effective_mu meets: Gaussian, mixtures, perturbed, arbitrary."""
    rng = np.random.default_rng(7)
    out = [np.asarray(gdp_delta(mu, MU_EPS_GRID)) for mu in (1e-6, 0.02, 0.5, 1.0, 3.0, 9.0, 14.0)]
    for _ in range(6):
        m1, m2 = np.exp(rng.uniform(-5.0, 2.5, 2))
        w = rng.uniform()
        out.append(w * np.asarray(gdp_delta(m1, MU_EPS_GRID)) + (1 - w) * np.asarray(gdp_delta(m2, MU_EPS_GRID)))
    for _ in range(4):
        d = np.asarray(gdp_delta(np.exp(rng.uniform(-3.0, 2.7)), MU_EPS_GRID))
        out.append(d * (1.0 + rng.uniform(-1e-3, 1e-3, d.size)))
    for _ in range(4):  # any decreasing values, some near the resolved limits 1e-14 and 1 - 1e-9
        d = np.sort(np.exp(rng.uniform(-40.0, 0.0, MU_EPS_GRID.size)))[::-1]
        d[rng.uniform(size=d.size) < 0.1] = 1.0 - 10.0 ** rng.uniform(-12.0, -1.0)
        d[:3] = (1e-14 * (1 + 1e-9), 1.0 - 1.01e-9, 2e-14)
        out.append(np.minimum(d, 1.0))
    return out


@pytest.mark.parametrize("deltas", _curves())
def test_halvings_equal_the_plain_bisection_to_the_last_bit(deltas):
    used = (deltas > 1e-14) & (deltas < 1.0 - SATURATED)
    assert np.array_equal(gdp_halvings(MU_EPS_GRID[used], deltas[used]), _plain_bisection(deltas))


def test_halvings_of_nothing():
    assert gdp_halvings(np.zeros(0), np.zeros(0)).shape == (0,)


@pytest.mark.parametrize("mu", [0.05, 0.7, 2.0, 6.0])
def test_newton_root_solves_the_gaussian_delta(mu):
    """delta_mu(eps) by 40-digit mpmath (DRS22 Cor. 1) and the root read back to 1e-12."""
    eps = np.array([0.0, 0.5, 2.0, 5.0])
    mp.mp.dps = 40
    m = mp.mpf(mu)
    delta = np.array([float(mp.ncdf(-e / m + m / 2) - mp.exp(e) * mp.ncdf(-e / m - m / 2)) for e in map(mp.mpf, eps)])
    ok = delta > 1e-14
    np.testing.assert_allclose(gdp_newton_mu(eps[ok], delta[ok]), mu, rtol=1e-12)


class _Curve:
    """A profile known only by its delta(eps) (no mu of its own)."""

    def __init__(self, mu: float):
        self._mu = mu

    def delta(self, eps):
        return gdp_delta(self._mu, eps)


@pytest.mark.parametrize("mu", [0.1, 1.0, 4.0])
def test_effective_mu_of_a_gaussian_curve_is_its_mu(mu):
    assert effective_mu(_Curve(mu)) == pytest.approx(mu, rel=1e-12)
