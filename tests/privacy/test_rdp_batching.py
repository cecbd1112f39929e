"""The batched quadrature of verify/privacy/rdp.py does not depend on how its points are chunked."""

from __future__ import annotations

import numpy as np
import pytest

import verify.privacy.rdp as rdp


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_values_do_not_depend_on_the_batch_size(monkeypatch, direction):
    """Chunks never split a point: one point per chunk, the default, and one chunk give the same bits."""
    q = np.array([1e-3, 0.01, 0.05, 0.2, 0.5])[:, None, None]
    sigma = np.array([0.3, 0.8, 2.0, 6.0])[None, :, None]
    alpha = np.array([1.5, 2.5, 7.3, 40.5])[None, None, :]
    values = {}
    for nodes in (1, rdp._BATCH_NODES, 1 << 24):
        monkeypatch.setattr(rdp, "_BATCH_NODES", nodes)
        values[nodes] = rdp.sampled_gaussian_rdp(q, sigma, alpha, direction=direction)
    first, *rest = values.values()
    assert np.all(np.isfinite(first)) and np.all(first > 0)
    for other in rest:
        assert np.array_equal(first, other)


@pytest.mark.parametrize("lam", [-40.0, -0.7, 0.3, 0.9, 1.0 + 1e-3, 2.5, 60.0])
def test_excess_integrand_matches_mpmath(lam):
    """log((1+u)^lam - 1 - lam u) on every branch (series, large power, lam above and below 1/2)."""
    import mpmath as mp

    mp.mp.dps = 50
    u = np.array([-0.9, -0.5, -1e-2, -1e-5, 1e-6, 1e-4, 3e-2, 0.4, 2.0, 30.0, 1e3])
    got = rdp._log_excess_integrand(u, np.array([lam]), np.zeros(u.size, dtype=np.intp))
    for ui, gi in zip(u, got):
        x, lm = mp.mpf(float(ui)), mp.mpf(lam)
        ref = (1 + x) ** lm - 1 - lm * x
        if ref <= 0:  # lam in (0, 1): the excess is <= 0, the log is -inf or NaN
            continue
        assert gi == pytest.approx(float(mp.log(ref)), rel=1e-9, abs=1e-9)
