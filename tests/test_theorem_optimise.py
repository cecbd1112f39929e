"""Free-parameter grids (verify/theorem.py: Theorem._optimise): the admissible part of a grid, NaN grid points.

References are brute force in plain numpy over the same grid points (the grid rule of FreeParameter's
docstring), never the code under test.
"""

import numpy as np
import pytest
import sympy as sp

from verify.theorem import FreeParameter, Source, Theorem, sym

# ranges that depend on the parameter point: at T = 3 the grid of nu holds points outside [1, T - 1]
SPLIT = Theorem(
    id="test/optimise/split", title="split", source=Source("test", "eq. 1"), notion="gdp", kind="upper",
    bound=(sym.D + sym.eta * sym.nu) / (sym.eta * sp.sqrt(sym.nu)),
    free=(FreeParameter("nu", 1, sym.T - 1, integer=True),),
)

# the bound is NaN on part of the grid (sqrt of a negative number) and real elsewhere
PARTLY_NAN = Theorem(
    id="test/optimise/nan", title="nan", source=Source("test", "eq. 2"), notion="gdp", kind="upper",
    bound=sp.sqrt(sym.gamma - sym.D / (sym.D + 1)) + sym.sigma * (1 - sym.gamma),
    free=(FreeParameter("gamma", 0, 1, max_points=63),),
)

LOWER = Theorem(
    id="test/optimise/lower", title="lower", source=Source("test", "eq. 3"), notion="gdp", kind="lower",
    bound=sym.nu * sp.exp(-sym.nu / sym.T),
    free=(FreeParameter("nu", 1, sym.T, integer=True),),
)


def _nu_grid_values(D, eta, T_all):
    """Brute force for SPLIT: one grid for all points (1 .. max T - 1), the admissible part per point."""
    nu = np.arange(1, max(T_all) - 1 + 1, dtype=float)
    out = []
    for D_i, eta_i, T_i in zip(D, eta, T_all):
        ok = nu <= T_i - 1
        out.append(np.min((D_i + eta_i * nu[ok]) / (eta_i * np.sqrt(nu[ok]))))
    return np.array(out)


def test_ranges_that_differ_per_point_mask_the_grid():
    D, eta, T = np.array([5.0, 5.0, 0.2]), np.array([0.1, 0.1, 1.0]), np.array([3.0, 200.0, 60.0])
    got = SPLIT.evaluate(D=D, eta=eta, T=T)
    np.testing.assert_allclose(got, _nu_grid_values(D, eta, T), rtol=1e-15)
    assert got[0] > got[1]  # the optimum nu = 50 lies outside the first point's range


def test_one_point_grid_is_the_whole_range():
    for T in (2.0, 3.0, 7.0, 500.0):
        nu = np.arange(1, T, dtype=float)
        want = np.min((4.0 + 0.5 * nu) / (0.5 * np.sqrt(nu)))
        assert float(SPLIT.evaluate(D=4.0, eta=0.5, T=T)) == pytest.approx(want, rel=1e-15)


def test_nan_grid_points_are_skipped_and_a_lower_bound_takes_the_maximum():
    gamma = np.linspace(0.0, 1.0, 65)[1:-1]
    for D, s in ((0.5, 2.0), (3.0, 0.1), (40.0, 10.0)):
        with np.errstate(invalid="ignore"):
            values = np.sqrt(gamma - D / (D + 1)) + s * (1 - gamma)
        assert np.isnan(values).any() and not np.isnan(values).all()
        assert float(PARTLY_NAN.evaluate(D=D, sigma=s)) == pytest.approx(np.nanmin(values), rel=1e-15)
    # a lower bound takes the maximum over the grid
    for T in (1.0, 4.0, 30.0):
        nu = np.arange(1, T + 1)
        assert float(LOWER.evaluate(T=T)) == pytest.approx(np.max(nu * np.exp(-nu / T)), rel=1e-15)


def test_all_nan_grid_gives_inf_for_an_upper_bound():
    record = Theorem(
        id="test/optimise/all-nan", title="all nan", source=Source("test", "eq. 4"), notion="gdp", kind="upper",
        bound=sp.sqrt(-sym.D - sym.gamma), free=(FreeParameter("gamma", 0, 1, max_points=7),),
    )
    assert float(record.evaluate(D=1.0)) == np.inf
