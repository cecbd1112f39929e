"""Classical baselines against independent values: closed forms recomputed with scipy / mpmath, exact
iteration of the linear chain, the public reference table and Google's dp_accounting."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

import theorems
from verify.theorem import VOCABULARY

REFERENCE = Path(__file__).resolve().parents[1] / "data"


def get(theorem_id: str):
    return theorems.get(theorem_id)


def gdp_delta_scipy(mu: float, eps: float) -> float:
    return stats.norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * stats.norm.cdf(-eps / mu - mu / 2)


def renyi_gaussian_quadrature(shift: float, alpha: float) -> float:
    """D_alpha(N(shift, 1) || N(0, 1)) by quadrature in log space."""
    f = lambda x: math.exp(alpha * stats.norm.logpdf(x, shift) + (1 - alpha) * stats.norm.logpdf(x))  # noqa: E731
    return math.log(integrate.quad(f, -30, 30 + alpha * shift, points=[alpha * shift])[0]) / (alpha - 1)


STEP = {"Delta": 1.2, "n": 40, "sigma": 0.05}  # mu = 1.2 / (40 * 0.05) = 0.6


def test_gaussian_mechanism_three_notions():
    mu = 0.6
    assert get("baselines/gaussian-mechanism/gdp").evaluate(**STEP) == pytest.approx(mu, rel=1e-14)
    assert get("baselines/gaussian-mechanism/rdp").evaluate(**STEP, alpha=2.5) == pytest.approx(
        renyi_gaussian_quadrature(mu, 2.5), rel=1e-8)
    eps = get("baselines/gaussian-mechanism/eps-delta").evaluate(**STEP, delta=1e-5)
    assert gdp_delta_scipy(mu, float(eps)) == pytest.approx(1e-5, rel=1e-6)


def test_noisy_gd_matches_the_linear_chain():
    """Independent: linear losses, the differing record shifts every step by eta Delta / n; iterate."""
    n, eta, sigma, Delta, T = 40, 0.3, 0.05, 1.2, 17
    mean = var = 0.0
    for _ in range(T):
        mean += eta * Delta / n
        var += (eta * sigma) ** 2
    exact_mu = mean / math.sqrt(var)
    assert get("baselines/noisy-gd/gdp").evaluate(Delta=Delta, n=n, sigma=sigma, T=T) == pytest.approx(exact_mu,
                                                                                                      rel=1e-12)
    assert get("baselines/noisy-gd/rdp").evaluate(Delta=Delta, n=n, sigma=sigma, T=T, alpha=3.0) == pytest.approx(
        renyi_gaussian_quadrature(exact_mu, 3.0), rel=1e-8)


@settings(deadline=None, max_examples=40)
@given(rho=st.floats(1e-4, 50.0), delta=st.floats(1e-12, 0.1))
def test_noisy_gd_classical_conversion_is_the_minimum_over_orders(rho, delta):
    """Independent: brute-force minimum of rho a + log(1/delta)/(a-1) on a fine order grid."""
    mu = math.sqrt(2 * rho)
    a = 1 + np.geomspace(1e-6, 1e6, 200001)
    brute = float(np.min(rho * a + math.log(1 / delta) / (a - 1)))
    value = get("baselines/noisy-gd/eps-classical").evaluate(Delta=mu, n=1, sigma=1.0, T=1, delta=delta)
    assert value == pytest.approx(brute, rel=1e-6)
    improved = get("baselines/noisy-gd/eps-improved").evaluate(Delta=mu, n=1, sigma=1.0, T=1, delta=delta)
    assert improved <= value + 1e-9
    # never below the exact (eps, delta) of mu-GDP, which is tight for the composed Gaussian
    exact = get("baselines/gaussian-mechanism/eps-delta").evaluate(Delta=mu, n=1, sigma=1.0, delta=delta)
    assert improved >= exact - 1e-9


def test_noisy_gd_improved_conversion_against_dp_accounting():
    from dp_accounting.rdp import rdp_privacy_accountant as rdp_acc

    rho, delta = 0.3, 1e-5
    orders = np.linspace(1.001, 300, 300000)
    expected, _ = rdp_acc.compute_epsilon(orders, rho * orders, delta)
    value = get("baselines/noisy-gd/eps-improved").evaluate(Delta=math.sqrt(2 * rho), n=1, sigma=1.0, T=1,
                                                            delta=delta)
    assert value == pytest.approx(expected, rel=1e-4)


def test_moments_accountant_rdp_against_reference_table():
    """Canonical translation: q = b/n and noise multiplier z = b sigma / Delta."""
    with open(REFERENCE / "sampled_gaussian_rdp.csv") as fh:
        rows = [r for r in csv.DictReader(fh) if float(r["q"]) > 0][::61]
    checked = 0
    for r in rows:
        q, z = float(r["q"]), float(r["sigma"])
        n = round(1000 / q)  # b = 1000, n = b/q
        if not math.isclose(1000 / n, q, rel_tol=1e-12):
            continue
        value = get("baselines/moments-accountant/rdp").evaluate(
            Delta=2.0, b=1000, n=n, sigma=2.0 * z / 1000, alpha=float(r["order"]), T=int(float(r["steps"])))
        assert value == pytest.approx(float(r["rdp"]), rel=1e-6)
        checked += 1
    assert checked >= 10


def test_moments_accountant_eps_against_dp_accounting():
    import dp_accounting

    q, z, steps, delta = 0.01, 1.1, 1000, 1e-5
    accountant = dp_accounting.rdp.RdpAccountant()
    accountant.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(z)), steps)
    expected = accountant.get_epsilon(delta)  # improved conversion, dp_accounting's own order grid
    params = {"Delta": 1.0, "b": 10, "n": 1000, "sigma": z / 10, "T": steps, "delta": delta}
    improved = get("baselines/moments-accountant/eps-improved").evaluate(**params)
    classical = get("baselines/moments-accountant/eps-classical").evaluate(**params)
    assert improved == pytest.approx(expected, rel=0.02)
    assert improved < classical
    # the exact PLD composition (Bu et al. Thm 3) is never above an RDP bound
    exact = get("bu2020/thm3/eps").evaluate(q=q, z=z, T=steps, delta=delta)
    assert exact <= improved


def test_assumptions_and_domains():
    with pytest.raises(ValueError, match=r"b <= n"):
        get("baselines/moments-accountant/rdp").evaluate(Delta=1.0, b=20, n=10, sigma=1.0, alpha=2.0, T=3)
    with pytest.raises(ValueError, match="alpha"):
        get("baselines/noisy-gd/rdp").evaluate(Delta=1.0, n=10, sigma=1.0, alpha=1.0, T=3)
    with pytest.raises(ValueError, match="delta"):
        get("baselines/noisy-gd/eps-classical").evaluate(Delta=1.0, n=10, sigma=1.0, T=3, delta=0.0)


@settings(deadline=None, max_examples=30)
@given(c=st.sampled_from([0.25, 0.5, 2.0, 4.0]),
       theorem_id=st.sampled_from([t.id for t in theorems.all() if t.id.startswith("baselines/") and t.closed_form]))
def test_closed_forms_are_scale_invariant(c, theorem_id):
    base = {"Delta": 0.8, "n": 50, "b": 5, "sigma": 1.5, "T": 12, "alpha": 2.5, "delta": 1e-6}
    t = get(theorem_id)
    params = {k: base[k] for k in t.parameters}
    scaled = {k: v * c ** VOCABULARY[k].scale for k, v in params.items()}
    assert t.evaluate(**scaled) == pytest.approx(t.evaluate(**params), rel=1e-12)


def test_at_least_the_required_records():
    ids = [t.id for t in theorems.all()]
    mine = [i for i in ids if i.split("/")[0] in ("baselines", "bu2020", "bok2024")]
    assert len(mine) >= 22
