"""Torch (CPU) backend: the same instances give the same statistics as numpy within Monte Carlo error."""

from __future__ import annotations

import numpy as np
import pytest

from verify.instances import FAMILIES
from verify.simulate import get_backend, huber_box, logistic_ball, resolve, simulate

torch = pytest.importorskip("torch")


def _two_sample_z(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(a.mean(0) - b.mean(0)) / np.sqrt(a.var(0) / len(a) + b.var(0) / len(b) + 1e-300)


@pytest.mark.parametrize("make", [
    lambda: resolve(FAMILIES["quadratic_chain"].build(n=4, eta=0.3, sigma=1.0, T=5, m=0.5, M=2.0, Delta=1.0, d=2)),
    lambda: resolve(FAMILIES["interval_walk"].build(n=4, eta=0.5, sigma=0.5, T=5, Delta=2.0, D=1.0)),
    lambda: logistic_ball(d=5, n=20, b=4, T=8, batches="poisson"),
    lambda: huber_box(d=3, n=12, b=3, T=8, batches="shuffle"),
    lambda: logistic_ball(d=3, n=12, b=3, T=6, batches="uniform", adjacency="replace"),
], ids=["chain", "walk", "logistic-poisson", "huber-shuffle", "logistic-uniform"])
def test_torch_cpu_matches_numpy_within_monte_carlo_error(make):
    sim = make()
    runs = 20_000
    a = simulate(sim, runs, seed=3, backend="numpy")
    b = simulate(sim, runs, seed=3, backend="torch", device="cpu")
    assert b.backend == "torch" and not np.array_equal(a.theta0, b.theta0)  # really another generator
    for x, y in ((a.theta0, b.theta0), (a.theta1, b.theta1)):
        assert np.all(_two_sample_z(x, y) < 4.5)
        assert np.all(np.abs(x.std(0) - y.std(0)) <= 0.05 * x.std(0) + 1e-12)
        # the same event frequencies, e.g. landing in the upper half-space of the first coordinate
        med = np.median(x[:, 0])
        pa, pb = np.mean(x[:, 0] > med), np.mean(y[:, 0] > med)
        assert abs(pa - pb) < 4.5 * np.sqrt(0.5 / runs)


def test_torch_backend_is_reproducible():
    sim = logistic_ball(d=3, n=10, b=2, T=4)
    a = simulate(sim, 3000, seed=8, backend="torch", block_size=1000)
    b = simulate(sim, 3000, seed=8, backend="torch", block_size=1000)
    assert np.array_equal(a.theta0, b.theta0)


def test_torch_device_resolution():
    assert get_backend("torch", "cpu").device == "cpu"
    with pytest.raises(ValueError, match="not a torch device|not supported"):
        get_backend("torch", "banana")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="does not exist"):
            get_backend("torch", "cuda")
