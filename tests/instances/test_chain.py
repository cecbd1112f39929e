"""Closed-form Gaussian chains against brute-force recursions and the papers' exact values."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from verify.instances import FAMILIES, quadratic_chain
from verify.instances.chain import QuadraticRun


def brute_force(H, records, eta, sigma, T, b, mean0, cov0):
    """Step the recursion theta <- (I - eta H) theta + eta hbar_k - eta Z_k, T times (moments only)."""
    n, d = records.shape
    l = n // b
    hbar = records.reshape(l, b, d).mean(axis=1)
    A = np.eye(d) - eta * H
    m, S = np.array(mean0, float), np.array(cov0, float)
    for k in range(T):
        m = A @ m + eta * hbar[k % l]
        S = A @ S @ A.T + (eta * sigma) ** 2 * np.eye(d)
    return m, S


@settings(deadline=None, max_examples=40)
@given(
    d=st.integers(1, 4),
    l=st.integers(1, 4),
    b=st.integers(1, 3),
    T=st.sampled_from([1, 2, 7, 50, 333, 1000]),
    x=st.lists(st.floats(1e-3, 1.9), min_size=4, max_size=4),
    sigma=st.floats(0.1, 5),
    init_var=st.sampled_from([0.0, 0.5]),
    seed=st.integers(0, 10**6),
)
def test_closed_form_matches_recursion(d, l, b, T, x, sigma, init_var, seed):
    rng = np.random.default_rng(seed)
    eta = 0.3
    lam = np.array(x[:d]) / eta
    n = l * b
    records = rng.normal(size=(n, d))
    mean0 = rng.normal(size=d)
    run = QuadraticRun(lam, records.reshape(l, b, d).mean(axis=1), eta, sigma, T, mean0, init_var)
    m, S = brute_force(np.diag(lam), records, eta, sigma, T, b, mean0, init_var * np.eye(d))
    np.testing.assert_allclose(run.mean(), m, rtol=1e-12, atol=1e-12 * np.abs(m).max())
    np.testing.assert_allclose(run.variances(), np.diag(S), rtol=1e-12)


@settings(deadline=None, max_examples=30)
@given(
    d=st.integers(2, 4),
    T=st.sampled_from([1, 3, 10, 100, 1000]),
    position=st.integers(0, 2),
    init=st.sampled_from(["fixed", "gaussian"]),
    seed=st.integers(0, 10**6),
)
def test_instance_mu_matches_recursion_in_rotated_basis(d, T, position, init, seed):
    """A full (non-diagonal) H: the profile's mu equals the brute-force Mahalanobis distance."""
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    lam = np.linspace(0.5, 2.0, d)
    H = Q @ np.diag(lam) @ Q.T
    H = 0.5 * (H + H.T)
    n, b, eta, sigma, Delta = 6, 2, 0.4, 1.3, 0.7
    v = rng.normal(size=d)
    inst = quadratic_chain(n, eta, sigma, T, Delta=Delta, H=H, batches="cyclic", b=b, position=position,
                           direction=v, init=init)
    records = np.zeros((n, d))
    diff = np.zeros((n, d))
    diff[position * b] = Delta * v / np.linalg.norm(v)
    init_var = eta * sigma ** 2 / lam.min() if init == "gaussian" else 0.0
    m0, S = brute_force(H, records, eta, sigma, T, b, np.zeros(d), init_var * np.eye(d))
    m1, S1 = brute_force(H, records + diff, eta, sigma, T, b, np.zeros(d), init_var * np.eye(d))
    dm = m1 - m0
    mu = math.sqrt(dm @ np.linalg.solve(S, dm))
    assert inst.profile().mu == pytest.approx(mu, rel=1e-10)
    assert inst.profile().renyi(3.0) == pytest.approx(1.5 * mu ** 2, rel=1e-10)


def bok_thm42_mu(L, n, sigma, eta, m, M, T):
    """Bok et al. 2024 Thm 4.2 as printed in the paper notes (docs/papers/bok2024.md)."""
    c = max(abs(1 - eta * m), abs(1 - eta * M))
    return L / (n * sigma) * math.sqrt((1 + c) / (1 - c) * (1 - c ** T) / (1 + c ** T))


@settings(deadline=None, max_examples=50)
@given(
    n=st.integers(1, 1000),
    m=st.floats(0.01, 10),
    ratio=st.floats(1.0, 100.0),
    frac=st.floats(0.01, 1.0),
    T=st.integers(1, 1000),
    sigma=st.floats(0.05, 20),
    L=st.floats(0.01, 100),
)
def test_bok_thm42_equality_case(n, m, ratio, frac, T, sigma, L):
    M = m * ratio
    eta = frac * 2 / (M + m)  # the tight range eta <= 2/(M+m)
    inst = FAMILIES["bok_thm42"].build(n=n, eta=eta, sigma=sigma, T=T, m=m, M=M, Delta=L)
    assert inst.run.tight
    assert inst.profile().mu == pytest.approx(bok_thm42_mu(L, n, sigma, eta, m, M, T), rel=1e-12)


def test_bok_thm42_figure1_value():
    """Bok et al. 2024 D.1 / Fig. 1: m=1, M=10, eta=0.05, L/(n sigma)=0.1, T=160 gives G_0.624."""
    inst = FAMILIES["bok_thm42"].build(n=100, eta=0.05, sigma=1.0, T=160, m=1, M=10, Delta=10)
    assert round(inst.profile().mu, 3) == 0.624


def test_bok_thm42_long_horizon_is_stable():
    """T = 10^6 with c = 1 - 1e-7: no loss of precision (closed form in T, expm1/log1p)."""
    n, sigma, m, M, L = 10, 1.0, 1e-7, 1e-7, 1.0
    eta = 1.0
    inst = FAMILIES["bok_thm42"].build(n=n, eta=eta, sigma=sigma, T=10**6, m=m, M=M, Delta=L)
    import mpmath as mp
    mp.mp.dps = 50
    c = 1 - mp.mpf(eta) * mp.mpf(m)
    exact = L / (n * sigma) * mp.sqrt((1 + c) / (1 - c) * (1 - c ** 10**6) / (1 + c ** 10**6))
    assert inst.profile().mu == pytest.approx(float(exact), rel=1e-12)


@pytest.mark.parametrize("position", [0, 3, 9])
def test_bok_c17_value(position):
    """Bok et al. 2024 Thm C.17: mu_j with j = position + 1; docs/papers/bok2024.md example l=10, c=0.98, E=50."""
    l, E, b, sigma, eta, m = 10, 50, 5, 1.0, 0.02, 1.0
    L = 0.2 * b * sigma  # L/(b sigma) = 0.2
    inst = FAMILIES["bok_c17"].build(n=l * b, b=b, eta=eta, sigma=sigma, E=E, m=m, M=5.0, Delta=L,
                                     position=position)
    c, j = 1 - eta * m, position + 1
    mu_j = 0.2 * c ** (l - j) * math.sqrt((1 - c ** 2) * (1 - c ** (l * E)) / ((1 - c ** l) ** 2 * (1 + c ** (l * E))))
    assert inst.profile().mu == pytest.approx(mu_j, rel=1e-12)
    if position == 9:
        assert round(inst.profile().mu, 4) == 0.2176  # the paper notes' (docs/papers/bok2024.md) printed value


def chourasia_exact(alpha, Sg, sigma_c, n, eta, K):
    """Chourasia et al. 2021, Thm 3 proof: the exact Rényi divergence of the squared-loss example."""
    q = 1 - eta
    return alpha * Sg ** 2 * (2 - eta) / (4 * sigma_c ** 2 * n ** 2) * (1 - q ** K) / (1 + q ** K)


@settings(deadline=None, max_examples=40)
@given(n=st.integers(1, 100), eta=st.floats(1e-3, 0.999), K=st.integers(1, 1000),
       sigma_c=st.floats(0.05, 5), Sg=st.floats(0.1, 10), d=st.integers(1, 3), alpha=st.floats(1.01, 50))
def test_chourasia_thm3_exact_value(n, eta, K, sigma_c, Sg, d, alpha):
    sigma = sigma_c / math.sqrt(eta / 2)  # canonical sigma: sigma_C = sigma sqrt(eta/2)
    inst = FAMILIES["chourasia_thm3"].build(n=n, eta=eta, sigma=sigma, T=K, Delta=Sg, d=d)
    assert inst.profile().renyi(alpha) == pytest.approx(chourasia_exact(alpha, Sg, sigma_c, n, eta, K), rel=1e-11)


def test_chourasia_thm3_printed_number():
    """Catalogue §Thm 3 verification: d=2, n=10, eta=0.1, sigma=0.5, K=30, S_g=4, alpha=5 -> 1.3964."""
    inst = FAMILIES["chourasia_thm3"].build(n=10, eta=0.1, sigma=0.5 / math.sqrt(0.05), T=30, Delta=4, d=2)
    assert round(float(inst.profile().renyi(5)), 4) == 1.3964


def test_lemma5_gaussian_init_law():
    """Chourasia et al. Lemma 5's theta_0 ~ N(0, 2 sigma_C^2/lambda I): the variance stays 2 sigma_C^2/lambda
    ... only in the continuous limit; here: the recursion started from that law (independent loop)."""
    n, eta, sigma, m, T = 5, 0.1, 0.8, 0.5, 40
    inst = quadratic_chain(n, eta, sigma, T, m=m, M=2.0, Delta=1.0, init="gaussian")
    sigma_c2 = sigma ** 2 * eta / 2
    init_var = 2 * sigma_c2 / m
    H = np.diag([m, 2.0])
    _, S = brute_force(H, np.zeros((n, 2)), eta, sigma, T, n, np.zeros(2), init_var * np.eye(2))
    diff = np.zeros((n, 2)); diff[0, 0] = 1.0
    dm, _ = brute_force(H, diff, eta, sigma, T, n, np.zeros(2), init_var * np.eye(2))
    assert inst.params()["m"] == m and inst.setting.init == "gaussian"
    assert inst.profile().mu == pytest.approx(math.sqrt(dm @ np.linalg.solve(S, dm)), rel=1e-12)


def test_linear_chain_mu():
    """Linear losses, cyclic: E uses of a shift eta Delta / b against T steps of noise (independent sum)."""
    n, b, T, eta, sigma, Delta = 12, 3, 22, 0.1, 2.0, 4.0
    inst = FAMILIES["linear_chain"].build(n=n, eta=eta, sigma=sigma, T=T, Delta=Delta, batches="cyclic", b=b,
                                          position=1)
    uses = len([k for k in range(T) if k % (n // b) == 1])
    mu = uses * eta * Delta / b / (eta * sigma * math.sqrt(T))
    assert inst.profile().mu == pytest.approx(mu, rel=1e-13)
    full = FAMILIES["linear_chain"].build(n=n, eta=eta, sigma=sigma, T=T, Delta=Delta)
    assert full.profile().mu == pytest.approx(math.sqrt(T) * Delta / (n * sigma), rel=1e-13)  # Bok Thm 4.1
    assert full.params()["L"] == Delta / 2


def test_expected_excess_risk_matches_monte_carlo():
    """Exact E[L_D(theta_T) - L_D(theta*)] against a seeded Monte Carlo of noisy GD (2e4 runs)."""
    rng = np.random.default_rng(7)
    n, d, eta, sigma, T = 6, 3, 0.2, 0.9, 25
    lam = np.array([0.5, 1.0, 2.0])
    data = rng.normal(size=(n, d))
    inst = quadratic_chain(n, eta, sigma, T, eigenvalues=lam, Delta=1.0, records=data * lam, theta0=np.ones(d) * 3)
    runs = 20000
    theta = np.tile(np.ones(d) * 3, (runs, 1))
    xbar = data.mean(axis=0)
    for _ in range(T):
        grad = lam * (theta - xbar)
        theta = theta - eta * (grad + sigma * rng.normal(size=(runs, d)))
    risk = 0.5 * np.sum(lam * (theta - xbar) ** 2, axis=1)
    se = risk.std() / math.sqrt(runs)
    assert abs(inst.expected_excess_risk() - risk.mean()) < 4 * se


def test_expected_excess_risk_vectorised_over_T_and_limit():
    """Large T, theta0 = theta*: the stationary value 1/2 sum eta sigma^2 / (2 - eta lambda) (geometric series)."""
    n, d, eta, sigma = 4, 2, 0.3, 1.1
    lam = np.array([1.0, 3.0])
    inst = quadratic_chain(n, eta, sigma, 1, eigenvalues=lam, Delta=1.0)
    values = inst.expected_excess_risk(np.array([1, 10, 5000]))
    assert values.shape == (3,)
    assert values[0] == pytest.approx(0.5 * np.sum(lam * (eta * sigma) ** 2), rel=1e-12)
    assert values[2] == pytest.approx(0.5 * np.sum(eta * sigma ** 2 / (2 - eta * lam)), rel=1e-12)
