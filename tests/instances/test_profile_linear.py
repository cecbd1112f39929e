"""delta(eps) of linear masses asked for many eps at once (one searchsorted, one prefix sum per eps)."""

import numpy as np
import pytest

from verify.instances.profile import DiscreteProfile


def _pairs():
    rng = np.random.default_rng(12)
    for trial in range(12):
        n = int(rng.integers(3, 400))
        p, q = rng.random(n) ** 6, rng.random(n) ** 6
        if trial % 2 == 0:
            p[rng.random(n) < 0.2] = 0.0  # llr = -inf cells (P has no mass)
        if trial % 3 == 0:
            q[rng.random(n) < 0.2] = 0.0  # llr = +inf cells (Q has no mass): weight 1 whatever eps
        p[0], q[1] = 1.0, 1.0  # neither law all zero
        yield p / p.sum(), q / q.sum()


def _brute(p, q, eps):
    """sup_S P(S) - e^eps Q(S) = sum_i (p_i - e^eps q_i)^+, cell by cell (the definition)."""
    return np.array([np.sum(np.maximum(p - np.exp(e) * q, 0.0)) for e in eps])


EPS = np.array([-40.0, -3.0, -0.5, 0.0, 1e-9, 0.3, 1.0, 2.5, 7.0, 40.0])


@pytest.mark.parametrize("forward", [True, False])
def test_many_eps_against_the_definition(forward):
    for p, q in _pairs():
        pair = DiscreteProfile(p, q)
        got = pair.delta(EPS, "forward" if forward else "backward")
        want = _brute(p, q, EPS) if forward else _brute(q, p, EPS)
        assert np.allclose(got, want, rtol=1e-12, atol=1e-15)
        assert np.all(got >= 0.0) and np.all(np.diff(got) <= 1e-15)  # non-increasing in eps


def test_each_eps_gives_the_same_bits_alone_or_with_others():
    for p, q in _pairs():
        pair = DiscreteProfile(p, q)
        for direction in ("forward", "backward", "max"):
            together = pair.delta(EPS, direction)
            alone = np.array([pair.delta(e, direction) for e in EPS])
            assert np.array_equal(together, alone)
            shaped = pair.delta(EPS[::-1].reshape(2, 5), direction)
            assert shaped.shape == (2, 5) and np.array_equal(shaped.ravel(), together[::-1])


def test_only_cells_without_the_other_law_remain_at_large_eps():
    p = np.array([0.5, 0.25, 0.25, 0.0])
    q = np.array([0.0, 0.5, 0.25, 0.25])
    pair = DiscreteProfile(p, q)
    # at eps = 40 only the first cell (q = 0) counts, with weight exactly 1; below -log(...) every cell with p > 0
    assert pair.delta(40.0, "forward") == 0.5
    assert pair.delta(40.0, "backward") == 0.25
    assert pair.delta(-50.0, "forward") == pytest.approx(1.0 - np.exp(-50.0) * 0.75, rel=1e-15)
