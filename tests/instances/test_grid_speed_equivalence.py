"""The grid engine's fast paths against the plain formulas they replace: a translation's dense matrix from
one kernel, the shuffled epochs as running products, the log engine's exact banded convolution."""

import numpy as np
import pytest
from scipy.special import logsumexp

import verify.instances.grid_log as grid_log
from verify.instances.grid import IntervalGrid, Mixture, convolve_band, evolve_shuffled
from verify.instances.grid_log import log_apply, log_convolve, log_runs, evolve_log


def _random_translation(rng, grid):
    k = int(rng.integers(1, 4))
    w = rng.dirichlet(np.ones(k))
    w = tuple(float(x) for x in w[:-1]) + (1.0 - float(w[:-1].sum()),)
    return Mixture(w, tuple(float(c) for c in rng.uniform(-0.4, 0.4, k) * (grid.hi - grid.lo)))


def test_a_translation_dense_matrix_is_the_rows_of_its_support_points():
    """Each row of ``dense`` is the law of ``Proj(x + c + Z)`` from the support point ``x`` (row by row),
    to relative 1e-10 wherever either is a normal double."""
    rng = np.random.default_rng(7)
    for _ in range(60):
        C = int(rng.integers(4, 300))
        lo = float(rng.uniform(-5, 0))
        grid = IntervalGrid(lo, lo + float(rng.uniform(0.1, 10)), C)
        s = float(rng.uniform(0.01, 3)) * (grid.hi - grid.lo) / 10
        mx = _random_translation(rng, grid)
        fast = grid.dense(mx, s)
        plain = sum(w * grid.row(grid.support + c, s) for w, c in zip(mx.weights, mx.displacements))
        big = np.maximum(fast, plain)
        ok = big > 1e-290
        assert np.all(np.abs(fast - plain)[ok] <= 1e-10 * big[ok])
        assert np.all(np.abs(fast - plain)[~ok] <= 1e-290)


def _shuffled_by_matrix_powers(grid, x0, s, still, use, l, T):
    """(1/l) sum_j A^j B A^(l-1-j) per epoch, written out with matrix powers (the definition)."""
    A, B = grid.dense(still, s), grid.dense(use, s)
    power = [np.eye(A.shape[0])]
    for _ in range(l):
        power.append(power[-1] @ A)
    row = lambda mx: sum(w * grid.row(np.array(x0 + c), s) for w, c in zip(mx.weights, mx.displacements))
    epochs, r = divmod(T, l)
    if r == 0:
        epochs, r = epochs - 1, l
    # the first epoch starts with the record used at step 0 (w0) or not (u0)
    first_len = l if epochs > 0 else r
    law = (row(use) @ power[first_len - 1]
           + sum(row(still) @ power[j - 1] @ B @ power[first_len - 1 - j] for j in range(1, first_len))) / l
    if epochs == 0:
        return law + (1 - r / l) * row(still) @ power[r - 1]
    epoch = sum(power[j] @ B @ power[l - 1 - j] for j in range(l)) / l
    for _ in range(epochs - 1):
        law = law @ epoch
    last = sum(power[j] @ B @ power[r - 1 - j] for j in range(r)) / l + (1 - r / l) * power[r]
    return law @ last


@pytest.mark.parametrize("l,T", [(1, 5), (3, 7), (3, 9), (4, 3), (2, 1)])
def test_shuffled_epochs_equal_the_averaged_matrix_products(l, T):
    grid = IntervalGrid(-3.0, 2.0, 90)
    still = Mixture((1.0,), (0.0,))
    pairs = [(still, Mixture((0.6, 0.4), (0.0, -0.7))), (still, Mixture((1.0,), (0.45,)))]
    state, small = evolve_shuffled(grid, 0.2, 0.3, pairs, l, T)
    assert small is None
    for i, (a, b) in enumerate(pairs):
        ref = _shuffled_by_matrix_powers(grid, 0.2, 0.3, a, b, l, T)
        np.testing.assert_allclose(state[i], ref, rtol=1e-11, atol=1e-300)
        assert ref.sum() == pytest.approx(1.0, abs=1e-12)


def _brute(x, kern):
    C = x.size
    idx = np.arange(C)[None, :] - np.arange(C)[:, None] + C - 1  # [j, i]
    with np.errstate(invalid="ignore"):
        return logsumexp(x[:, None] + kern[idx], axis=0)


def test_the_banded_log_convolution_is_the_log_sum_exp_at_any_depth():
    """Log masses spanning e^0 .. e^-1e5 (and -inf), Gaussian and rough kernels: every output equal to the
    plain log-sum-exp to 1e-12 relative in mass (1e-15 relative in the log beyond it)."""
    rng = np.random.default_rng(3)
    used = 0
    for trial in range(40):
        C = int(rng.integers(400, 900))
        width = float(np.exp(rng.uniform(np.log(2), np.log(60))))  # cells per standard deviation
        d = np.arange(-(C - 1), C, dtype=float)
        kern = -0.5 * ((d - rng.uniform(-20, 20)) / width) ** 2 + (rng.normal(0, 3, d.size) if trial % 3 == 0 else 0)
        centre = rng.uniform(0, C)
        x = -0.5 * ((np.arange(C) - centre) / (width * rng.uniform(0.5, 4))) ** 2 + rng.normal(0, 1, C)
        if trial % 4 == 1:
            x[: int(rng.integers(1, C // 2))] = -np.inf
        top = float(kern.max())
        runs = log_runs(kern, top)
        kern_runs = (runs, tuple(np.array(v, dtype=np.int64) for v in zip(*[(c, i, v.size) for c, i, v in runs])))
        toeplitz = np.lib.stride_tricks.sliding_window_view(kern[::-1], C)[:, ::-1]
        fast = log_convolve(x, kern_runs, top, toeplitz)
        ref = _brute(x, kern)
        if fast is None:
            continue
        used += 1
        assert np.array_equal(np.isneginf(fast), np.isneginf(ref))
        f = np.isfinite(ref)
        assert np.all(np.abs(fast[f] - ref[f]) <= 1e-12 + 1e-15 * np.abs(ref[f]))
    assert used >= 20  # the banded path itself was tested, not only its fallback


def test_a_translation_in_the_log_engine_equals_the_same_map_as_a_dense_step(monkeypatch):
    """The same mixture as numbers (banded convolution, folds and atoms apart) and as maps (dense log
    transition, the plain log-sum-exp): equal log masses far below the smallest double, projection included."""
    grid = IntervalGrid(-12.0, 6.0, 900)
    s = 0.12
    plain_steps = []
    monkeypatch.setattr(grid_log, "log_apply", lambda *a: plain_steps.append(1) or log_apply(*a))
    sch_t = [[Mixture((0.7, 0.3), (0.0, -1.5))], [Mixture((1.0,), (0.0,))]]
    sch_m = [[Mixture(mx.weights, tuple((lambda x, c=c: c + 0 * x) for c in mx.displacements)) for mx in sch]
             for sch in sch_t]
    fast = evolve_log(grid, 0.5, s, sch_t, 3)
    assert len(plain_steps) <= 2  # the banded convolution did (nearly) every step
    plain = evolve_log(grid, 0.5, s, sch_m, 3)
    assert np.isfinite(plain).all() and plain.min() < -700  # far below the smallest double
    np.testing.assert_allclose(fast, plain, rtol=1e-14, atol=1e-11)
    shuffled = evolve_log(grid, 0.5, s, [[sch_t[1][0], sch_t[0][0]]] * 2, 3, shuffled=2)
    shuffled_m = evolve_log(grid, 0.5, s, [[sch_m[1][0], sch_m[0][0]]] * 2, 3, shuffled=2)
    np.testing.assert_allclose(shuffled, shuffled_m, rtol=1e-14, atol=1e-11)


def test_a_whole_kernel_convolves_by_its_valid_products_only():
    rng = np.random.default_rng(5)
    for C in (4, 7, 300):
        cells, kern = rng.random(C), rng.random(2 * C - 1)
        np.testing.assert_allclose(convolve_band(cells, kern), np.convolve(cells, kern)[C - 1:2 * C - 1], rtol=1e-13)
        kern[:3] = 0.0  # a band: the other path
        np.testing.assert_allclose(convolve_band(cells, kern), np.convolve(cells, kern)[C - 1:2 * C - 1], rtol=1e-13)


def test_a_translation_that_is_not_finite_is_refused_by_name():
    grid = IntervalGrid(0.0, 1.0, 16)
    for bad in (float("inf"), float("nan")):
        with pytest.raises(ValueError, match="finite") as err:
            grid.dense(Mixture((1.0,), (bad,)), 0.1)
        assert err.value.parameter == "displacements"
