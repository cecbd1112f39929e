"""The privacy calculus never understates silently: at extreme parameters every public function
returns the correct limit or raises ValueError (InputError naming the parameter).

Expected values come from closed-form limits or from mpmath at high precision, never from the code under
test. Each case was a silent wrong number before the fix (the value it gave is in the comment).
"""

from __future__ import annotations

import math
import warnings

import mpmath as mp
import numpy as np
import pytest

from tests.sweeps import sweep
from verify.errors import InputError
from verify.privacy import (
    PiecewiseLinearTradeoff,
    at22_alpha_star,
    at22_S,
    delta_from_tradeoff,
    gdp_log_delta,
    sampled_gaussian_rdp,
    subsample_tradeoff,
    symmetric_subsampled_gaussian_pld,
    tradeoff_gaussian,
)
from verify.privacy.operators import PoissonSubsampledGaussianDelta, SymmSubsampledGaussianDelta

D_INF = -math.log1p(-0.01)  # D_inf(N(0,s^2) || (1-q) N(0,s^2) + q N(1,s^2)) = -log(1 - q), q = 0.01


@pytest.fixture(autouse=True)
def _warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def _mp_rdp(q: float, s: float, alpha: float, direction: str, dps: int = 30) -> float:
    """log E_{x~N(0,s^2)}[(1 - q + q e^{(2x-1)/(2s^2)})^lam] / (alpha - 1) by mpmath quadrature over the
    union of the windows of 15 s around 0, 1 and alpha (remove) where the integrand lives."""
    with mp.workdps(dps):
        q, s, a = mp.mpf(q), mp.mpf(s), mp.mpf(alpha)
        lam = a if direction == "remove" else 1 - a

        def f(x):
            return mp.npdf(x, 0, s) * (1 - q + q * mp.exp((2 * x - 1) / (2 * s * s))) ** lam

        centres = sorted([0, 1, a] if direction == "remove" else [0, 1])
        windows = [[centres[0] - 15 * s, centres[0] + 15 * s]]
        for c in centres[1:]:  # the union of the windows, each point integrated once
            if c - 15 * s <= windows[-1][1]:
                windows[-1][1] = c + 15 * s
            else:
                windows.append([c - 15 * s, c + 15 * s])
        total = mp.mpf(0)
        for lo, hi in windows:
            total += mp.quad(f, mp.linspace(lo, hi, int(min((hi - lo) / (3 * s), 10)) + 1))
        return float(mp.log(total) / (a - 1))


# ---- S_alpha(q, sigma) of Altschuler & Talwar 2022 (the "add" direction) -----------------------------


def test_at22_S_tends_to_minus_log_one_minus_q_as_alpha_grows():
    # was 0.0 (a NaN in the quadrature read as underflow)
    assert at22_S(1e50, 0.01, 1.0) == pytest.approx(D_INF, rel=1e-12)


@pytest.mark.parametrize("sigma", [1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-150])
def test_at22_S_tends_to_minus_log_one_minus_q_as_sigma_vanishes(sigma):
    # was 0.0100503310 (1e-5), 0.0058 (1e-7), 0.0183 (1e-8, above D_inf), 1.6e-28 (1e-9): the quadrature
    # ran out of panels; the limit is exact here up to e^{-1/(8 sigma^2)}
    assert at22_S(2.0, 0.01, sigma) == pytest.approx(D_INF, rel=1e-12)


def test_at22_S_never_exceeds_its_alpha_infinity_limit():
    values = np.asarray(at22_S(np.geomspace(1.01, 1e60, 40), 0.01, 0.3))
    assert (values <= D_INF).all() and (np.diff(values) >= -1e-15).all()


@pytest.mark.parametrize("q, sigma, alpha", [(0.01, 1e-4, 2.5), (0.3, 0.02, 7.5)])
def test_at22_S_at_small_sigma_matches_mpmath(q, sigma, alpha):
    # (0.01, 1e-4, 2.5) was 0.0100503358950, above D_inf = 0.0100503358535
    assert at22_S(alpha, q, sigma) == pytest.approx(_mp_rdp(q, sigma, alpha, "add"), rel=1e-10)


# ---- the sampled Gaussian, remove direction ------------------------------------------------------------


@pytest.mark.parametrize("alpha", [1e150, 1e160, 1e200])
def test_sampled_gaussian_rdp_at_huge_orders_is_alpha_over_two_sigma_squared(alpha):
    # was 0.0 at 1e160 while 1e150 gave 5e149; D lies in [alpha/2 + alpha log(q)/(alpha-1), alpha/2 + log 2/(alpha-1)]
    assert sampled_gaussian_rdp(0.01, 1.0, alpha) == pytest.approx(alpha / 2.0, rel=1e-12)


@pytest.mark.parametrize("alpha", [2.5, 3.0])
def test_sampled_gaussian_rdp_at_tiny_sigma(alpha):
    # was 0.0 (2.5) and inf (3: (k^2-k)/(2 s^2) overflowed): D = alpha/(2 s^2) + O(log 1/q) = 1.25e308, 1.5e308
    assert sampled_gaussian_rdp(0.01, 1e-154, alpha) == pytest.approx(alpha / 2.0 / 1e-154 / 1e-154, rel=1e-12)


def test_sampled_gaussian_rdp_beyond_the_float_range_names_sigma():
    with pytest.raises(InputError, match="^sigma") as info:
        sampled_gaussian_rdp(0.01, 1e-160, 3.0)
    assert info.value.parameter == "sigma"


@pytest.mark.sweep
@pytest.mark.parametrize("q, sigma, alpha", sweep([(0.01, 1e-4, 200.5), (0.01, 1e-3, 2.5), (0.05, 0.5, 10.5)],
                                                  keep=[(0.01, 1e-4, 200.5), (0.05, 0.5, 10.5)]))
def test_sampled_gaussian_rdp_matches_mpmath(q, sigma, alpha):
    """Kept in the suite: a tiny sigma at a large order (the capped panels) and a moderate point; the sweep adds a
    small sigma at a small order (a second of mpmath quadrature)."""
    # at (1e-4, 200.5) the contiguous panels over [0, alpha] are capped; windows around the bumps hold the mass
    assert sampled_gaussian_rdp(q, sigma, alpha) == pytest.approx(_mp_rdp(q, sigma, alpha, "remove"), rel=1e-10)


# ---- alpha*(q, sigma) of AT22 Lemma 2.12 ---------------------------------------------------------------


def _mp_alpha_star(q: float, sigma: float) -> float:
    """Bisection on log(alpha - 1) of the two conditions exactly as printed, in 80-digit arithmetic."""
    with mp.workdps(80):
        q, s = mp.mpf(q), mp.mpf(sigma)

        def feasible(t):
            a = 1 + mp.exp(t)
            m = mp.log1p(1 / (q * (a - 1)))
            c1 = a <= m * s**2 / 2 - mp.log(s**2)
            c2 = a <= (m**2 * s**2 / 2 - mp.log(5 * s**2)) / (m + mp.log(q * a) + 1 / (2 * s**2))
            return c1 and c2

        lo, hi = mp.log(mp.mpf("1e-12")), mp.log(s / mp.sqrt(q) + 10) + 5
        if not feasible(lo):
            return 1.0
        assert not feasible(hi)
        for _ in range(300):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if feasible(mid) else (lo, mid)
        return float(1 + mp.exp(lo))


@pytest.mark.parametrize("q, sigma", [(0.01, 1e160), (1e-300, 5.0), (0.01, 5.0), (0.2, 0.8), (0.01, 1e300),
                                      (0.01, 1e-300)])
def test_at22_alpha_star_matches_the_printed_conditions(q, sigma):
    # (0.01, 1e160) and (1e-300, 5) were 1.0 (sigma^2 overflowed; M = log1p(1/(q(alpha-1))) was inf)
    assert at22_alpha_star(q, sigma) == pytest.approx(_mp_alpha_star(q, sigma), rel=1e-9)


# ---- log delta of mu-GDP --------------------------------------------------------------------------------


@pytest.mark.parametrize("mu, eps", [(2.0, 1120850998362330.0), (1.0, 3e4), (5e-324, 0.0), (5e-324, 1e-300),
                                     (1e-101, 1e-100), (1e-101, -1e-101), (7.752434422481432e-67, -1.401298464324817e-45),
                                     (5.361941228590372e-109, -2.0), (1e-101, 1e-98), (1e-101, -3e-100)])
def test_gdp_log_delta_far_below_the_float_range(mu, eps):
    # was -inf at (2, 1.12e15) (the two logs of erfcx cancelled), at mu = 5e-324 (the subnormal mu was lost)
    # and at eps = -1.4e-45 (1 - e^eps rounded to 0)
    with mp.workdps(400):
        m, e = mp.mpf(mu), mp.mpf(eps)
        a = -e / m + m / 2
        expected = mp.log(mp.ncdf(a)) + mp.log(1 - mp.exp(e) * mp.ncdf(a - m) / mp.ncdf(a))
    assert gdp_log_delta(mu, eps) == pytest.approx(float(expected), rel=1e-12)


# ---- f-DP helpers and the PLD glue ---------------------------------------------------------------------


def test_piecewise_linear_tradeoff_refuses_a_nan_vertex():
    # was NaN at a = 0.3
    with pytest.raises(InputError, match="^grid"):
        PiecewiseLinearTradeoff([0.0, np.nan, 1.0], [1.0, 0.5, 0.0])


def test_piecewise_linear_tradeoff_refuses_unsorted_vertices():
    with pytest.raises(InputError, match="^grid"):
        PiecewiseLinearTradeoff([0.0, 0.7, 0.3, 1.0], [1.0, 0.2, 0.5, 0.0])


@pytest.mark.parametrize("helper", [delta_from_tradeoff, subsample_tradeoff])
def test_a_grid_beyond_memory_is_refused_before_allocating(helper):
    # was MemoryError (7.3 TiB)
    with pytest.raises(InputError, match="^grid") as info:
        helper(lambda a: tradeoff_gaussian(a, 1.0), 0.5, grid=10**12)
    assert info.value.parameter == "grid"


@pytest.mark.parametrize(
    "args, name",
    [(([0.5, 0.2], 1.0), "p"), ((0.5, -1.0), "mu"), ((0.5, 1e300), "mu"), ((0.0, 1.0), "p"), ((0.5, 1.0, 0.0),
                                                                                              "value_discretization_interval")],
)
def test_symmetric_subsampled_gaussian_pld_validates(args, name):
    # was TypeError "unhashable", OverflowError, ZeroDivisionError
    with pytest.raises(InputError) as info:
        symmetric_subsampled_gaussian_pld(*args)
    assert info.value.parameter == name


def test_symmetric_subsampled_gaussian_pld_of_mu_zero_is_the_identity():
    assert symmetric_subsampled_gaussian_pld(0.5, 0.0).get_delta_for_epsilon(0.0) == 0.0


@pytest.mark.parametrize("operator", [SymmSubsampledGaussianDelta, PoissonSubsampledGaussianDelta])
def test_subsampled_composition_with_vanishing_noise_is_its_closed_form_limit(operator):
    # bok2024/thm4.8 at sigma = 1e-300 raised OverflowError: C_p(G_inf) = f_{0,p}, whose T-fold
    # composition is f_{0, 1-(1-p)^T} (Dong, Roth, Su 2022): delta(eps) = 1 - (1-p)^T for eps >= 0
    expected = 1.0 - 0.9**10
    assert float(operator.numeric(0.1, 1e300, 10.0, 1.0)) == pytest.approx(expected, rel=1e-14)


def test_the_vanishing_noise_limit_agrees_with_the_exact_composition():
    # the PLD at mu = 9 is within T Phi(-mu/2) (p + e^eps) = 3e-5 of the limit, and below it (three steps: a
    # composition, at a third of the cost of ten)
    value = float(SymmSubsampledGaussianDelta.numeric(0.1, 9.0, 3.0, 1.0))
    assert 1.0 - 0.9**3 - 3e-5 <= value <= 1.0 - 0.9**3 + 1e-9
