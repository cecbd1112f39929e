"""Privacy profiles against independent values: public GDP vectors, mpmath quadrature, brute force."""

import itertools
import json
import math
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from verify.errors import InputError
from verify.instances.profile import DiscreteProfile, GaussianProfile

REFERENCE = Path(__file__).resolve().parents[1] / "data" / "gdp_vectors.json"


def test_gaussian_pair_against_public_gdp_vectors():
    ref = json.loads(REFERENCE.read_text())
    for case in ref["gdp_delta_of_eps"]["cases"]:
        pair = GaussianProfile([0.0], [4.0], [2 * case["mu"]], [4.0])  # shift 2 mu, std 2: mu-GDP
        assert pair.mu == pytest.approx(case["mu"], rel=1e-15)
        for direction in ("forward", "backward", "max"):
            assert pair.delta(case["eps"], direction) == pytest.approx(case["delta"], rel=1e-7)
    trade = ref["gdp_tradeoff"]
    pair = GaussianProfile([0.0, 0.0], [1.0, 1.0], [0.6, 0.8], [1.0, 1.0])  # |dm| = 1
    for case in trade["cases"]:
        assert 1 - pair.tradeoff(case["a"]) == pytest.approx(case["tpr"], rel=1e-3)


def test_gaussian_eps_inverts_public_delta():
    ref = json.loads(REFERENCE.read_text())
    for case in ref["gdp_delta_of_eps"]["cases"]:
        if case["eps"] <= 0:
            continue
        pair = GaussianProfile([0.0], [1.0], [case["mu"]], [1.0])
        assert pair.eps(case["delta"]) == pytest.approx(case["eps"], rel=1e-6)


def renyi_quadrature(m0, v0, m1, v1, alpha):
    mp.mp.dps = 20
    p = lambda x: mp.npdf(x, m0, mp.sqrt(v0))
    q = lambda x: mp.npdf(x, m1, mp.sqrt(v1))
    centre = (m0 + m1) / 2
    val = mp.quad(lambda x: p(x) ** alpha * q(x) ** (1 - alpha), [-mp.inf, centre - 10, centre, centre + 10, mp.inf])
    return float(mp.log(val) / (alpha - 1))


@settings(deadline=None, max_examples=8)
@given(m1=st.floats(-2, 2), v0=st.floats(0.5, 2), v1=st.floats(0.5, 2), alpha=st.floats(1.1, 4))
def test_general_covariance_renyi_against_quadrature(m1, v0, v1, alpha):
    pair = GaussianProfile([0.0], [v0], [m1], [v1])
    for direction, args in (("forward", (0.0, v0, m1, v1)), ("backward", (m1, v1, 0.0, v0))):
        sa = alpha * args[3] + (1 - alpha) * args[1]
        if sa <= 0.05:
            continue  # near the critical order the integral is numerically delicate
        assert pair.renyi(alpha, direction) == pytest.approx(renyi_quadrature(*args, alpha), rel=1e-8, abs=1e-12)


def test_general_covariance_full_matrix_equals_product_of_1d():
    """Rotation of a diagonal pair: the full-matrix formula equals the sum of 1-D quadratures."""
    rng = np.random.default_rng(3)
    Q, _ = np.linalg.qr(rng.normal(size=(2, 2)))
    v0, v1, dm = np.array([1.0, 2.0]), np.array([1.5, 1.7]), np.array([0.3, -0.4])
    pair = GaussianProfile(np.zeros(2), Q @ np.diag(v0) @ Q.T, Q @ dm, Q @ np.diag(v1) @ Q.T)
    expected = sum(renyi_quadrature(0.0, v0[i], dm[i], v1[i], 2.5) for i in range(2))
    assert pair.renyi(2.5, "forward") == pytest.approx(expected, rel=1e-9)
    assert pair.mu is None


def test_general_covariance_infinite_beyond_critical_order():
    """D_alpha(N(0,2)||N(0,1)) is infinite once alpha*1 + (1-alpha)*2 <= 0, i.e. alpha >= 2."""
    pair = GaussianProfile([0.0], [2.0], [0.0], [1.0])
    assert math.isinf(pair.renyi(2.5, "forward"))
    assert math.isfinite(pair.renyi(1.5, "forward"))


def brute_delta(p, q, eps):
    """max over all subsets S of P(S) - e^eps Q(S)."""
    best = 0.0
    for r in range(len(p) + 1):
        for S in itertools.combinations(range(len(p)), r):
            S = list(S)
            best = max(best, p[S].sum() - math.exp(eps) * q[S].sum())
    return best


@settings(deadline=None, max_examples=30)
@given(w=st.lists(st.floats(0.0, 1.0), min_size=10, max_size=10), eps=st.floats(-1, 3))
def test_discrete_delta_brute_force(w, eps):
    raw = np.array(w) + 1e-3
    p, q = raw[:5] / raw[:5].sum(), raw[5:] / raw[5:].sum()
    pair = DiscreteProfile(p, q)
    assert pair.delta(eps, "forward") == pytest.approx(brute_delta(p, q, eps), abs=1e-13)
    assert pair.delta(eps, "backward") == pytest.approx(brute_delta(q, p, eps), abs=1e-13)
    expected = sum(p ** 2.5 * q ** -1.5)
    assert pair.renyi(2.5, "forward") == pytest.approx(math.log(expected) / 1.5, rel=1e-12)


def test_discrete_tradeoff_vertices_brute_force():
    """At a = P(S) for every subset S, T(P,Q)(a) <= 1 - Q(S); equality for the Neyman-Pearson sets."""
    p = np.array([0.1, 0.2, 0.3, 0.4])
    q = np.array([0.4, 0.3, 0.2, 0.1])
    pair = DiscreteProfile(p, q)
    for r in range(5):
        for S in itertools.combinations(range(4), r):
            S = list(S)
            assert pair.tradeoff(p[S].sum(), "forward") <= 1 - q[S].sum() + 1e-15
    # NP sets: cells ordered by q/p decreasing are 0, 1, 2, 3
    for k in range(5):
        assert pair.tradeoff(p[:k].sum(), "forward") == pytest.approx(1 - q[:k].sum(), abs=1e-15)
    assert pair.tradeoff(0.05, "forward") == pytest.approx(1 - 0.5 * 0.4, abs=1e-15)  # randomised test


def test_discrete_eps_brute_force():
    p = np.array([0.5, 0.3, 0.2])
    q = np.array([0.2, 0.3, 0.5])
    pair = DiscreteProfile(p, q)
    # forward: delta(eps) = 0.5 - 0.2 e^eps for eps < log(0.5/0.2); solve = 0.1
    assert pair.eps(0.1, "forward") == pytest.approx(math.log(0.4 / 0.2), rel=1e-12)
    assert pair.eps(0.5, "forward") == 0.0


def test_singular_pair_is_infinite():
    pair = DiscreteProfile([0.5, 0.5, 0.0], [0.4, 0.4, 0.2])
    assert math.isinf(pair.renyi(2.0, "backward"))
    assert pair.renyi(2.0, "forward") == pytest.approx(math.log(0.5 ** 2 / 0.4 * 2), rel=1e-12)
    assert pair.delta(5.0, "backward") == pytest.approx(0.2, rel=1e-12)


@pytest.mark.parametrize("call, match", [
    (lambda g: g.renyi(1.0), "alpha"),
    (lambda g: g.renyi(float("nan")), "alpha"),
    (lambda g: g.delta(float("inf")), "eps"),
    (lambda g: g.eps(0.0), "delta"),
    (lambda g: g.eps(1.5), "delta"),
    (lambda g: g.tradeoff(-0.1), "type I"),
    (lambda g: g.delta(1.0, "sideways"), "direction"),
])
def test_bad_queries_raise(call, match):
    with pytest.raises(ValueError, match=match):
        call(GaussianProfile([0.0], [1.0], [1.0], [1.0]))
    with pytest.raises(ValueError, match=match):
        call(DiscreteProfile([0.5, 0.5], [0.3, 0.7]))


@pytest.mark.parametrize("call, parameter", [
    (lambda g: g.renyi(0.5), "alpha"),
    (lambda g: g.delta("x"), "eps"),
    (lambda g: g.eps(2.0), "delta"),
    (lambda g: g.tradeoff(1.5), "a"),
    (lambda g: g.delta(1.0, "sideways"), "direction"),
])
def test_bad_queries_are_input_errors_naming_the_parameter(call, parameter):
    """The command line answers an InputError with exit 2 and one line; anything else is an internal error."""
    with pytest.raises(InputError) as info:
        call(GaussianProfile([0.0], [1.0], [1.0], [1.0]))
    assert info.value.parameter == parameter


def test_bad_pairs_raise():
    with pytest.raises(ValueError, match="positive definite"):
        GaussianProfile([0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]], [1.0, 0.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="same length|one length"):
        GaussianProfile([0.0], [1.0], [1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="sum to 1"):
        DiscreteProfile([0.5, 0.4], [0.5, 0.5])


def delta_quadrature(m0, v0, m1, v1, eps):
    mp.mp.dps = 20
    p = lambda x: mp.npdf(x, m0, mp.sqrt(v0))
    q = lambda x: mp.npdf(x, m1, mp.sqrt(v1))
    g = lambda x: p(x) - mp.e ** eps * q(x)
    from scipy.stats import norm
    grid = np.linspace(-15, 15, 3001)
    values = norm.pdf(grid, m0, math.sqrt(v0)) - math.exp(eps) * norm.pdf(grid, m1, math.sqrt(v1))
    kinks = [mp.findroot(g, (grid[i], grid[i + 1]), solver="anderson")
             for i in range(len(grid) - 1) if values[i] * values[i + 1] < 0]
    pts = [-mp.inf] + kinks + [mp.inf]
    return float(sum(mp.quad(lambda x: max(g(x), 0), [a, b]) for a, b in zip(pts[:-1], pts[1:])))


@pytest.mark.parametrize("m1, v0, v1", [(0.7, 1.0, 2.0), (-0.3, 1.5, 0.6), (0.0, 1.0, 1.3)])
def test_unequal_variance_delta_against_quadrature(m1, v0, v1):
    pair = GaussianProfile([0.0], [v0], [m1], [v1])
    for eps in (-0.5, 0.3, 1.0):
        assert pair.delta(eps, "forward") == pytest.approx(delta_quadrature(0.0, v0, m1, v1, eps), rel=1e-9, abs=1e-14)
        assert pair.delta(eps, "backward") == pytest.approx(delta_quadrature(m1, v1, 0.0, v0, eps), rel=1e-9, abs=1e-14)
    d = pair.delta(0.4)
    assert pair.delta(pair.eps(d)) == pytest.approx(d, rel=1e-9)


def test_unequal_variance_tradeoff_against_fine_binning():
    """T(P,Q) in closed form vs the Neyman-Pearson curve of the two laws binned into 1e-3 cells."""
    from scipy.stats import norm
    m1, v0, v1 = 0.5, 1.0, 1.8
    edges = np.concatenate([[-np.inf], np.arange(-14, 14, 1e-3), [np.inf]])
    p = np.diff(norm.cdf(edges, 0.0, 1.0))
    q = np.diff(norm.cdf(edges, m1, math.sqrt(v1)))
    binned = DiscreteProfile(p, q)
    pair = GaussianProfile([0.0], [v0], [m1], [v1])
    a = np.array([1e-3, 0.01, 0.1, 0.3, 0.7])
    for direction in ("forward", "backward"):
        np.testing.assert_allclose(pair.tradeoff(a, direction), binned.tradeoff(a, direction), atol=2e-5)


def test_unequal_covariance_in_2d_is_reported_as_not_implemented():
    pair = GaussianProfile([0.0, 0.0], [1.0, 2.0], [1.0, 0.0], [1.0, 1.0])
    with pytest.raises(NotImplementedError):
        pair.delta(1.0)


def test_an_underflowed_tail_is_refused_not_read_as_an_infinite_renyi_divergence():
    """on a wide interval (n = 2, T = 1, eta = sigma = 0.5, D = 50, 2048 cells) the grid's linear masses
    underflow in one law's far tail while the other's sit at the bottom of the double range; that read as
    D_alpha = +inf (the true D_2 is 1: a Gaussian shift by mu = 1, alpha mu^2 / 2).  The same linear masses alone
    are refused, naming alpha, while a real singular part still gives +inf; the grid profile itself answers from
    its log masses: 1 within its stated error."""
    from verify.errors import InputError
    from verify.instances import FAMILIES
    from verify.instances.profile import DiscreteProfile

    wide = FAMILIES["interval_walk"].build(n=2, eta=0.5, sigma=0.5, T=1, Delta=1.0, D=50.0, cells=2048).profile()
    with pytest.raises(InputError, match="not resolved") as info:
        DiscreteProfile(wide.p, wide.q).renyi(2.0)
    assert info.value.parameter == "alpha"
    assert DiscreteProfile([0.5, 0.5], [1.0, 0.0]).renyi(2.0) == np.inf
    value, error = float(wide.renyi(2.0)), wide.error_of("renyi", 2.0)
    assert value <= 1.0 and 1.0 - value <= error < 5e-3  # T = 1: the binned Gaussians (data processing)
    narrow = FAMILIES["interval_walk"].build(n=2, eta=0.5, sigma=0.5, T=1, Delta=1.0, D=5.0, cells=2048)
    assert narrow.profile().renyi(2.0) == pytest.approx(1.0, rel=1e-4)  # 2/2 * 1^2, the walls 10 sd away


def _counting(resolve):
    """``resolve`` with a count of its calls (the log-mass engine runs)."""
    def counted():
        counted.calls += 1
        return resolve()
    counted.calls = 0
    return counted


def test_delta_and_eps_of_underflowed_tails_do_not_run_the_log_engine_when_it_cannot_change_them():
    """a grid pair whose tails underflow in one law (per-step mu = 20) needs its log masses for a Rényi
    divergence, but its delta(eps), eps(delta) and delta error are answered by the linear masses within their stated
    bound (each underflowed mass off by at most 2^-999): the log engine is not run for them, and its answers (the
    independent engine, evolve_log) agree to 1e-12, the delta error with the log masses' refinement estimate."""
    from verify.instances import FAMILIES

    built = FAMILIES["interval_walk"].build(n=2, eta=0.5, sigma=0.05, T=3, Delta=1.0, D=4.0, cells=512).profile()
    resolve = _counting(built.resolve)
    pair = DiscreteProfile(built.p, built.q, support=built.support, coarse=built.coarse,
                           unresolved=built.unresolved, resolve=resolve)
    assert pair._needs(False)  # some cell's mass underflows facing a mass above UNDERFLOW_MASS: the old trigger
    eps = np.array([0.0, 1.0, 4.0, 50.0])
    values, at = pair.delta(eps), pair.eps(1e-5)
    error = pair.error_of("delta", eps)
    assert resolve.calls == 0
    exact = built.resolve()  # the log-mass engine, run here independently
    np.testing.assert_allclose(values, exact.delta(eps), rtol=1e-12, atol=0)
    assert at == pytest.approx(float(exact.eps(1e-5)), rel=1e-12)
    rough = built.coarse.resolve()  # the refinement estimate from log masses, as it was computed before
    assert error == pytest.approx(float(np.max(np.abs(exact.delta(eps) - rough.delta(eps)))), rel=0, abs=1e-15)
    pair.renyi(2.0)  # a Rényi divergence depends on the underflowed masses: the log masses are computed
    assert resolve.calls == 1


def test_the_log_engine_runs_where_the_linear_masses_cannot_answer():
    """P = (0.6, 0.4), Q = (e^-2000, 1 - e^-2000): the linear Q underflows to (0, 1).  delta at eps = 1 is
    0.6 - e^(1 - 2000) both ways (no log masses needed); backward delta at eps = 700 (e^700 times the underflow) and
    eps(0.1) = 2000 + log(1/2) (the linear curve never falls below 0.6) need them; so does delta when an uncertain
    mass is the FFT floor (2^-48), whose round-off the bound does not cover."""
    log_p, log_q = np.log([0.6, 0.4]), np.array([-2000.0, 0.0])

    def fresh(p, q, unresolved=None):
        exact = lambda: DiscreteProfile.from_log(log_p, log_q)
        return DiscreteProfile(p, q, unresolved=unresolved, resolve=_counting(exact))

    pair = fresh([0.6, 0.4], [0.0, 1.0])
    assert pair.delta(1.0) == pytest.approx(0.6, rel=1e-15) and pair.resolve.calls == 0
    assert pair.delta(1.0, "backward") == 0.0 and pair.resolve.calls == 0
    assert 0 < pair.error_of("delta", 1.0) <= 1e-290 and pair.resolve.calls == 0
    assert pair.delta(700.0, "backward") == 0.0 and pair.resolve.calls == 1
    pair = fresh([0.6, 0.4], [0.0, 1.0])
    assert pair.eps(0.1) == pytest.approx(2000.0 + math.log(0.5), rel=1e-12) and pair.resolve.calls == 1
    floor = 2.0 ** -48
    floored = fresh([0.6 - floor, 0.4, floor], [floor, 1.0 - 2 * floor, floor], unresolved=[True, False, True])
    floored.delta(0.5)
    assert floored.resolve.calls == 1
