"""The LSI constant of quadratic chains (verify/instances/lsi.py) against a brute-force path of variances."""

from __future__ import annotations

import numpy as np
import pytest

from verify.instances import FAMILIES


def _largest_variance_on_path(eigenvalues, eta, sigma, T, v0, substeps=50):
    """Iterate the tracing diffusion's variance along each eigenvector and look inside every step:
    v(s) = (1 - s lam)^2 v_k + eta sigma^2 s for s in [0, eta] (no closed form used)."""
    largest = v0
    for lam in eigenvalues:
        v = v0
        for _ in range(T):
            s = np.linspace(0.0, eta, substeps + 1)
            inside = (1 - s * lam) ** 2 * v + eta * sigma ** 2 * s
            largest = max(largest, float(inside.max()))
            v = float(inside[-1])
    return largest


@pytest.mark.parametrize("params", [
    dict(n=5, eta=0.1, sigma=1.0, T=10, m=1.0, M=2.0, Delta=1.0),
    dict(n=3, eta=0.9, sigma=0.3, T=7, m=0.5, M=2.0, Delta=2.0, d=3),   # eta*M close to 2: c < 0 oscillates
    dict(n=2, eta=0.05, sigma=2.0, T=40, m=0.2, M=0.2, Delta=1.0, init="gaussian"),  # Lemma 5's start
    dict(n=2, eta=0.05, sigma=2.0, T=5, m=0.2, M=0.8, Delta=1.0, init="gaussian", init_var=30.0),  # shrinking
])
def test_clsi_is_one_over_the_largest_variance_along_the_path(params):
    inst = FAMILIES["lsi_quadratic_chain"].build(**params)
    lam = np.asarray(inst.run.eigenvalues)
    brute = _largest_variance_on_path(lam, params["eta"], params["sigma"], params["T"], float(inst.run.init_var))
    assert inst.params()["clsi"] == pytest.approx(1.0 / brute, rel=1e-9)


def test_a_fixed_start_takes_the_last_variance():
    inst = FAMILIES["lsi_quadratic_chain"].build(n=5, eta=0.1, sigma=1.0, T=10, m=1.0, M=1.0, Delta=1.0)
    c = 1 - 0.1
    v_T = 0.01 * (1 - c ** 20) / (1 - c ** 2)  # geometric sum of eta^2 sigma^2 c^(2k), k < T
    assert inst.params()["clsi"] == pytest.approx(1 / v_T, rel=1e-12)
