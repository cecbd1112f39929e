"""Tests of verify/privacy/rdp.py: public accountant table, mpmath quadrature, papers' numbers."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from dp_accounting.rdp import rdp_privacy_accountant as dp_rdp
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.sweeps import sweep
from verify.privacy.rdp import (
    at22_alpha_star,
    at22_S,
    rdp_to_delta,
    rdp_to_dp_classical,
    rdp_to_dp_continuous,
    rdp_to_dp_improved,
    sampled_gaussian_rdp,
)

mp.mp.dps = 40
FAST = settings(deadline=None, max_examples=40)
TF_ORDERS = np.array([1 + x / 10.0 for x in range(1, 100)] + list(range(12, 64)), dtype=float)


# ---- the public accountant table (remove direction) -------------------------------------------------


def test_every_row_of_the_reference_table(sgm_table):
    t = sgm_table
    got = sampled_gaussian_rdp(t["q"], t["sigma"], t["order"], t["steps"], direction="remove")
    is_int = t["order"] == np.floor(t["order"])
    zero = t["rdp"] == 0
    assert np.all(got[zero] == 0.0)
    rel = np.abs(got - t["rdp"])[~zero] / t["rdp"][~zero]
    assert rel[is_int[~zero]].max() <= 1e-8
    assert rel[~is_int[~zero]].max() <= 1e-6
    assert len(t) == 1344


def test_the_table_is_not_the_add_direction(sgm_table):
    # the table is D(mixture || N(0, s^2)) (Mironov-Talwar-Zhang 2019), strictly above the AT22 direction
    row = sgm_table[(sgm_table["q"] == 0.1) & (sgm_table["sigma"] == 1.0) & (sgm_table["order"] == 4.0)][0]
    add = sampled_gaussian_rdp(row["q"], row["sigma"], row["order"], row["steps"], direction="add")
    assert add < 0.9 * row["rdp"]


# ---- independent quadrature (mpmath) ----------------------------------------------------------------


def mp_sgm(q, s, alpha, direction):
    q, s, a = mp.mpf(q), mp.mpf(s), mp.mpf(alpha)
    lam = a if direction == "remove" else 1 - a

    def integrand(x):
        return mp.npdf(x, 0, s) * (1 - q + q * mp.exp((2 * x - 1) / (2 * s * s))) ** lam

    points = [-mp.inf, -10 * s, min(0, lam), 0.5, max(0, lam), max(0, lam) + 10 * s, mp.inf]
    return mp.log(mp.quad(integrand, sorted(set(points)))) / (a - 1)


@pytest.mark.parametrize(
    "q, sigma, alpha",
    [(0.01, 4.0, 2.0), (0.05, 1.5, 2.5), (0.2, 0.5, 10.0), (1e-3, 20.0, 1.5), (0.5, 1.0, 3.3), (0.9, 2.0, 7.25)],
)
@pytest.mark.parametrize("direction", ["add", "remove"])
def test_sgm_matches_mpmath_quadrature(q, sigma, alpha, direction):
    ref = float(mp_sgm(q, sigma, alpha, direction))
    assert sampled_gaussian_rdp(q, sigma, alpha, direction=direction) == pytest.approx(ref, rel=1e-9)


@pytest.mark.parametrize("q, sigma, alpha", [(0.01, 0.05, 3.5), (0.5, 0.5, 1000.5), (0.01, 1.0, 1024.0)])
def test_add_direction_hard_cases_match_mpmath(q, sigma, alpha):
    # small noise (mass of the N(1, s^2) part far out in units of s) and very large orders
    ref = float(mp_sgm(q, sigma, alpha, "add"))
    assert at22_S(alpha, q, sigma) == pytest.approx(ref, rel=1e-9)


@pytest.mark.parametrize("q", [1e-4, 0.05, 0.6])
@pytest.mark.parametrize("sigma", [0.1, 0.7, 5.0, 300.0])
def test_quadrature_agrees_with_binomial_series(q, sigma):
    # two independent evaluations of the remove direction at integer orders (MTZ19 series vs quadrature)
    from verify.privacy import rdp as rdp_module

    for alpha in (2, 9, 128, 1024):
        series = rdp_module._log_binomial_excess(np.array([q]), np.array([sigma]), alpha)[0]
        quad = rdp_module._log_quadrature_excess(q, sigma, float(alpha))
        assert np.logaddexp(0, quad) == pytest.approx(np.logaddexp(0, series), rel=1e-9)


def test_at22_printed_values():
    # docs/papers/altschuler2022.md: S_2(0.05, 1.5) = 1.2854e-3 (paper direction), reverse 1.3981e-3
    assert at22_S(2.0, 0.05, 1.5) == pytest.approx(1.2854e-3, rel=1e-4)
    assert sampled_gaussian_rdp(0.05, 1.5, 2.0, direction="remove") == pytest.approx(1.3981e-3, rel=1e-4)
    assert at22_S(2.0, 0.01, 4.0) == pytest.approx(6.437e-6, rel=1e-3)


@pytest.mark.parametrize(
    "q, sigma, ref, rel",
    [(0.01, 4, 14.34, 1e-3), (0.1, 4, 6.007, 1e-3), (0.01, 10, 50.5, 3e-3), (0.05, 8, 18.5, 3e-3), (0.19, 5, 4.99, 3e-3)],
)
def test_at22_alpha_star_catalogue_table(q, sigma, ref, rel):
    assert at22_alpha_star(q, sigma) == pytest.approx(ref, rel=rel)


@FAST
@given(q=st.floats(1e-3, 0.19), sigma=st.floats(4.0, 30.0), t=st.floats(0.01, 1.0))
def test_at22_lemma_2_12_holds_below_alpha_star(q, sigma, t):
    # Lemma 2.12: S_alpha(q, sigma) <= 2 alpha q^2 / sigma^2 for 1 < alpha <= alpha*(q, sigma)
    alpha_star = at22_alpha_star(q, sigma)
    alpha = 1.0 + t * (alpha_star - 1.0)
    if alpha <= 1.0 + 1e-9:
        return
    assert at22_S(alpha, q, sigma) <= 2 * alpha * q * q / sigma**2


# ---- properties ---------------------------------------------------------------------------------------


@FAST
@given(q=st.floats(1e-4, 1.0), sigma=st.floats(0.3, 50.0), orders=st.lists(st.floats(1.01, 64.0), min_size=2, max_size=6))
def test_rdp_non_decreasing_in_order_and_add_below_remove(q, sigma, orders):
    a = np.sort(np.array(orders))
    remove = sampled_gaussian_rdp(q, sigma, a, direction="remove")
    add = sampled_gaussian_rdp(q, sigma, a, direction="add")
    both = sampled_gaussian_rdp(q, sigma, a, direction="max")
    assert np.all(np.diff(remove) >= -1e-12 * remove[1:])
    assert np.all(np.diff(add) >= -1e-12 * add[1:])
    # Mironov-Talwar-Zhang 2019: the remove direction dominates
    assert np.all(add <= remove * (1 + 1e-9))
    assert np.all(both == np.maximum(add, remove))


def test_full_batch_is_the_gaussian_mechanism():
    assert sampled_gaussian_rdp(1.0, 2.0, 3.5, steps=4) == pytest.approx(4 * 3.5 / 8.0)


@FAST
@given(
    rdp=st.lists(st.floats(0.0, 50.0), min_size=3, max_size=3),
    delta=st.floats(1e-12, 0.5),
)
def test_improved_conversion_never_worse(rdp, delta):
    orders = np.array([1.5, 4.0, 32.0])
    classical = rdp_to_dp_classical(orders, rdp, delta)
    improved = rdp_to_dp_improved(orders, rdp, delta)
    assert 0.0 <= improved <= classical


def test_classical_conversion_by_hand_and_bu_tables():
    # one order: eps = rdp + log(1/delta)/(alpha-1)
    assert rdp_to_dp_classical([3.0], [0.5], 1e-5) == pytest.approx(0.5 + math.log(1e5) / 2)
    # Bu et al. 2020 Tables 1-4, "MA eps" column (printed to 2 decimals, some truncated; classical conversion, TF orders,
    # T = ceil(epochs n / B)); MNIST-6 is left out (no variant reproduces it, docs/papers/bu2020.md)
    rows = [
        (60000, 256, 1.3, 15, 1e-5, 1.19),
        (60000, 256, 1.1, 60, 1e-5, 3.01),
        (60000, 256, 0.7, 45, 1e-5, 7.10),
        (60000, 256, 0.6, 62, 1e-5, 13.27),
        (29305, 256, 0.55, 18, 1e-5, 14.70),
        (25000, 512, 0.56, 9, 1e-5, 15.24),
        (800167, 10000, 0.6, 20, 1e-6, 15.39),
    ]
    for n, B, sigma, epochs, delta, printed in rows:
        q, T = B / n, math.ceil(epochs * n / B)
        rdp = sampled_gaussian_rdp(q, sigma, TF_ORDERS, steps=T)
        assert rdp_to_dp_classical(TF_ORDERS, rdp, delta) == pytest.approx(printed, abs=0.01)


def test_improved_conversion_matches_dp_accounting():
    orders = TF_ORDERS
    rdp = sampled_gaussian_rdp(256 / 60000, 1.1, orders, steps=14063)
    ref, _ = dp_rdp.compute_epsilon(orders, rdp, 1e-5)
    assert rdp_to_dp_improved(orders, rdp, 1e-5) == pytest.approx(ref, rel=1e-12)
    ref_delta, _ = dp_rdp.compute_delta(orders, rdp, 3.0)
    ours = rdp_to_delta(orders, rdp, 3.0, method="improved")
    # dp_accounting also takes a min with a second bound, so it can only be smaller
    assert ours >= ref_delta * (1 - 1e-12)
    assert ours == pytest.approx(ref_delta, rel=1e-9) or ours < 10 * ref_delta


@FAST
@given(r=st.floats(0.0, 20.0), alpha=st.floats(1.1, 100.0), delta=st.floats(1e-15, 0.1))
def test_rdp_to_delta_inverts_the_eps_conversion(r, alpha, delta):
    for method, to_eps in [("classical", rdp_to_dp_classical), ("improved", rdp_to_dp_improved)]:
        eps = to_eps([alpha], [r], delta)
        if eps <= 0.0:
            continue
        assert rdp_to_delta([alpha], [r], eps, method=method) == pytest.approx(delta, rel=1e-8)


def test_continuous_conversion_gaussian_closed_form():
    # rdp = alpha mu^2/2: classical optimum eps = mu^2/2 + mu sqrt(2 log(1/delta)) at alpha = 1 + sqrt(2 log(1/delta))/mu
    mu, delta = 0.5, 1e-6
    eps, alpha = rdp_to_dp_continuous(lambda a: a * mu * mu / 2, delta, method="classical")
    L = math.log(1 / delta)
    assert eps == pytest.approx(mu * mu / 2 + mu * math.sqrt(2 * L), rel=1e-9)
    assert alpha == pytest.approx(1 + math.sqrt(2 * L) / mu, rel=1e-4)
    eps_imp, _ = rdp_to_dp_continuous(lambda a: a * mu * mu / 2, delta)
    assert eps_imp < eps


def test_broadcasting_conversions():
    orders = np.array([2.0, 8.0, 32.0])
    rdp = np.array([[0.1, 0.4, 1.6], [0.2, 0.8, 3.2]])
    assert np.shape(rdp_to_dp_classical(orders, rdp, 1e-5)) == (2,)
    assert np.shape(rdp_to_dp_improved(orders, rdp[:, None, :], np.array([1e-5, 1e-6]))) == (2, 2)


# ---- bad input and fuzz -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: sampled_gaussian_rdp(0.1, 0.0, 2.0), "sigma"),
        (lambda: sampled_gaussian_rdp(0.1, -1.0, 2.0), "sigma"),
        (lambda: sampled_gaussian_rdp(1.5, 1.0, 2.0), "q"),
        (lambda: sampled_gaussian_rdp(-0.1, 1.0, 2.0), "q"),
        (lambda: sampled_gaussian_rdp(0.1, 1.0, 1.0), "alpha"),
        (lambda: sampled_gaussian_rdp(0.1, 1.0, float("nan")), "alpha"),
        (lambda: sampled_gaussian_rdp(0.1, 1.0, 2.0, direction="up"), "direction"),
        (lambda: at22_S(2.0, 0.0, 1.0), "q"),
        (lambda: at22_alpha_star(1.0, 4.0), "q"),
        (lambda: rdp_to_dp_classical([2.0], [0.1], 0.0), "delta"),
        (lambda: rdp_to_dp_classical([2.0], [0.1], 1.0), "delta"),
        (lambda: rdp_to_dp_improved([1.0], [0.1], 0.1), "orders"),
        (lambda: rdp_to_dp_improved([2.0], [-0.1], 0.1), "rdp"),
        (lambda: rdp_to_delta([2.0], [0.1], float("nan")), "eps"),
        (lambda: rdp_to_delta([2.0], [0.1], 1.0, method="best"), "method"),
        (lambda: rdp_to_dp_continuous(lambda a: a, 2.0), "delta"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        call()


@settings(deadline=None, max_examples=30)
@given(
    q=st.floats(0.0, 1.0),
    sigma=st.floats(0.05, 1e3),
    alpha=st.one_of(st.integers(2, 256).map(float), st.floats(1.0, 256.0, exclude_min=True)),
    direction=st.sampled_from(["remove", "add", "max"]),
)
def test_fuzz_sgm_finite(q, sigma, alpha, direction):
    value = sampled_gaussian_rdp(q, sigma, alpha, steps=10, direction=direction)
    assert math.isfinite(value) and value >= 0.0


# ---- the batched quadrature ---------------------------------------------------------------


def _random_points(seed: int, n: int, log_sigma: tuple[float, float], log_am1: tuple[float, float]):
    rng = np.random.default_rng(seed)
    q = 10 ** rng.uniform(-6, np.log10(0.99), n)
    sigma = 10 ** rng.uniform(*log_sigma, n)
    alpha = 1 + 10 ** rng.uniform(*log_am1, n)
    return q, sigma, alpha


@pytest.mark.parametrize("direction", ["add", "remove"])
@pytest.mark.parametrize("log_sigma, log_am1", [((-1.5, 4.0), (-3.0, 3.0)), ((-2.0, 0.0), (-4.0, 1.5))])
def test_batched_quadrature_matches_the_one_point_path(direction, log_sigma, log_am1):
    from verify.privacy import rdp as rdp_module

    q, sigma, alpha = _random_points(7, 150, log_sigma, log_am1)
    alpha = np.where(alpha == np.floor(alpha), alpha + 0.5, alpha)  # the quadrature, not the binomial series
    batch = sampled_gaussian_rdp(q, sigma, alpha, direction=direction)
    one = np.array([rdp_module._sgm_rdp_one(*p, direction) for p in zip(q, sigma, alpha)])
    if direction == "add":
        one = np.minimum(one, -np.log1p(-q))
    # points the closed-form sandwich settles are not quadratures: compare where both integrate
    _, settled = rdp_module._sandwiched(q, sigma, alpha, direction)
    assert (~settled).sum() > 60
    np.testing.assert_allclose(batch[~settled], one[~settled], rtol=1e-12, atol=0)


def mp_sgm_excess(q, s, alpha, direction):
    """The same divergence from log(1 + E[(1+u)^lam - 1 - lam u]) at 50 digits (no cancellation near
    alpha = 1), with breakpoints every sigma so that mpmath resolves the sigma^2-wide transitions."""
    with mp.workdps(50):
        q, s, a = mp.mpf(q), mp.mpf(s), mp.mpf(alpha)
        lam = a if direction == "remove" else 1 - a

        def integrand(x):
            u = q * mp.expm1((2 * x - 1) / (2 * s * s))
            return mp.npdf(x, 0, s) * ((1 + u) ** lam - 1 - lam * u)

        points = sorted({-mp.inf, min(0, lam), mp.mpf(0.5), max(0, lam), mp.inf}
                        | {c + k * s for c in (0, 1, lam) for k in range(-15, 16)})
        return float(mp.log1p(mp.quad(integrand, points)) / (a - 1))


@pytest.mark.sweep
@pytest.mark.parametrize("q, sigma, alpha, direction", sweep([
    (3.5754784112279945e-4, 0.07442861161210873, 3.506126938791081, "add"),  # a sigma^2-wide transition
    (3.0809553538531815e-4, 1.362505205911951, 1.002375677179934, "remove"),  # orders near 1
    (1.9497798464844087e-6, 0.5268056099994539, 1.0010191858551412, "remove"),
    (0.05, 129.0, 2.7190173, "add"),  # AT22 Thm 3.1's typical point
    (0.1125, 0.412119397, 219.93704248, "add"),
    (0.01, 3.0, 20.5, "remove"),
], keep=lambda case: case[0] not in (1.9497798464844087e-6, 0.01)))
def test_batched_quadrature_matches_mpmath(q, sigma, alpha, direction):
    """A mpmath quadrature (a second) per point.  Kept in the suite: the sigma^2-wide transition, an order near
    1, AT22's typical point and a large order, both directions; the sweep adds a second order near 1 and a
    moderate remove point."""
    got = sampled_gaussian_rdp(np.array([q, q]), np.array([sigma, sigma * 1.5]), alpha, direction=direction)[0]
    assert got == pytest.approx(mp_sgm_excess(q, sigma, alpha, direction), rel=1e-12)


def test_points_beyond_the_batched_layout_use_the_one_point_path():
    from verify.privacy import rdp as rdp_module

    # sigma = 0.02 at order 6000.5: more than _MAX_PANELS panels of sigma/2 (windows around the bumps)
    q, sigma, alpha = np.array([0.3, 0.01]), np.array([0.02, 2.0]), np.array([6000.5, 3.5])
    lo, hi, _ = rdp_module._mass_range(q, sigma, alpha)
    assert (hi[0] - lo[0]) / (sigma[0] / 2) > rdp_module._MAX_PANELS
    values, done = rdp_module._log_quadrature_excess_batch(q, sigma, alpha)
    assert done.tolist() == [False, True]
    assert values[1] == pytest.approx(rdp_module._log_quadrature_excess(0.01, 2.0, 3.5), rel=1e-13)
    # the one-point path takes it (windows around the bumps); here it agrees with the closed-form sandwich
    one = rdp_module._sgm_rdp_one(0.3, 0.02, 6000.5, "remove")
    assert sampled_gaussian_rdp(0.3, 0.02, 6000.5, direction="remove") == pytest.approx(one, rel=1e-12)
