"""A step of the shuffled engine without its matrix: a translation's product as a convolution of one kernel
against the dense matrix it replaces (the matrix built row by row from the support points' laws); the log
engine's two-component sum against scipy's logsumexp, double for double."""

import numpy as np
import pytest
from scipy.special import logsumexp

from verify.instances.grid import (IntervalGrid, Mixture, convolve_band, logaddexp_as_logsumexp, step_product,
                                   toeplitz_blocks, evolve_shuffled)


def _rows_matrix(grid, mx, s):
    """The transition matrix by its definition: row ``j`` is the law of ``Proj(x_j + c + Z)``."""
    return sum(w * grid.row(grid.support + c, s) for w, c in zip(mx.weights, mx.displacements))


@pytest.mark.parametrize("cells,s", [(64, 0.5), (256, 0.1), (300, 0.02), (700, 0.004)])
def test_a_translation_step_is_the_product_with_its_matrix_in_the_tails_too(cells, s):
    """Narrow noise puts entries at every scale down to the smallest double (and exact zeros beyond the
    kernel's band): the product agrees to 1e-12 relative wherever it is a normal double (both are sums of
    the same non-negative terms), and is 0 exactly where the matrix product is."""
    rng = np.random.default_rng(11)
    grid = IntervalGrid(-1.0, 1.5, cells)
    rows = rng.random((5, cells + 2)) ** 3
    rows[0, :] = 0.0
    rows[0, [0, -1]] = 0.5  # the atoms' rows alone
    rows[1, 1:-1] = 0.0
    rows[1, cells // 3] = 1.0  # one cell: a row of the matrix
    mixtures = (Mixture((1.0,), (0.0,)), Mixture((0.3, 0.7), (0.0, -0.35)),
                Mixture((0.5, 0.25, 0.25), (0.2, -0.9, 1.7)))
    for mx in mixtures:
        out = step_product(grid, mx, s)(rows)
        # against the matrix it replaces (the same entries: round-off of the sums only), and against the
        # definition (the entries' Gaussian arguments rounded differently: a few ulps times the argument)
        for ref, rtol in ((rows @ grid.dense(mx, s), 1e-12), (rows @ _rows_matrix(grid, mx, s), 1e-10)):
            assert out.shape == ref.shape
            big = np.maximum(out, ref)
            ok = big > 1e-290
            assert np.all(np.abs(out - ref)[ok] <= rtol * big[ok])
            assert np.all(np.abs(out - ref)[~ok] <= 1e-290)
        if s < 0.1:
            assert np.any((ref > 0) & (ref < 1e-200))  # the deep tail was exercised
        np.testing.assert_allclose(out.sum(axis=1), rows.sum(axis=1), rtol=1e-12)  # a stochastic matrix


def test_blocks_of_a_whole_kernel_give_each_rows_convolution():
    """Several rows against a kernel without zeros go through blocks of its Toeplitz matrix (one BLAS product):
    the convolution of each row, to the round-off of a sum of non-negative terms, at every scale down to the
    subnormals (a kernel whose far end is e^-714, rows spanning 600 orders of magnitude)."""
    rng = np.random.default_rng(5)
    for cells in (8, 64, 256, 2048):
        offsets = np.arange(-(cells - 1), cells) / cells
        kern = np.exp(-0.5 * ((offsets - 0.02) / 0.027) ** 2)  # down to e^-714 at the far end: no zeros
        assert kern.min() > 0
        rows = np.exp(-rng.random((3, cells)) * 1400.0)
        blocks = toeplitz_blocks(kern, cells)
        got = np.matmul(rows, blocks).transpose(1, 0, 2).reshape(3, cells)
        ref = np.stack([convolve_band(x, kern) for x in rows])
        ok = ref > 1e-290
        assert np.all(np.abs(got - ref)[ok] <= 1e-12 * ref[ok]) and np.all(np.abs(got - ref)[~ok] <= 1e-290)
    assert toeplitz_blocks(np.ones(25), 13) is None  # no block width divides 13: row by row


def test_a_map_step_is_its_dense_product():
    grid = IntervalGrid(-2.0, 2.0, 40)
    mx = Mixture((0.5, 0.5), (lambda x: -0.3 * x, lambda x: 0.1 - 0.3 * x))
    rows = np.random.default_rng(3).random((3, 42))
    np.testing.assert_array_equal(step_product(grid, mx, 0.2)(rows), rows @ grid.dense(mx, 0.2))


def test_shuffled_translations_deep_in_the_tails_equal_the_running_matrix_products():
    """``W <- W A + U B``, ``U <- U A`` with the matrices written out, at a narrow noise whose laws span
    hundreds of orders of magnitude."""
    grid = IntervalGrid(-1.0, 1.0, 200)
    s, x0, l, T = 0.01, -0.2, 3, 8
    still, use = Mixture((1.0,), (0.0,)), Mixture((0.5, 0.5), (0.0, 0.12))
    (state,), small = evolve_shuffled(grid, x0, s, [(still, use)], l, T)
    A, B = _rows_matrix(grid, still, s), _rows_matrix(grid, use, s)
    start = lambda mx: sum(w * grid.row(np.array(x0 + c), s) for w, c in zip(mx.weights, mx.displacements))
    U, W = start(still), start(use)
    for t in range(1, T):
        U, W = (W / l @ A, W / l @ B) if t % l == 0 else (U @ A, W @ A + U @ B)
    ref = W / l + (1 - (T - l * ((T - 1) // l)) / l) * U
    if small is not None:  # entries below the dense floor are raised to it (and masked), as documented
        assert np.all(ref[small] < 2.0 ** -900 * 1.01)
        ref = np.maximum(ref, 2.0 ** -900)
        ref /= ref.sum()
    assert ref.min() < 1e-100
    ok = np.maximum(state, ref) > 1e-290
    np.testing.assert_allclose(state[ok], ref[ok], rtol=1e-11)


def test_a_translation_that_is_not_finite_is_refused_by_name_in_the_shuffled_engine():
    grid = IntervalGrid(0.0, 1.0, 16)
    still = Mixture((1.0,), (0.0,))
    for bad in (float("inf"), float("nan")):
        with pytest.raises(ValueError, match="finite") as err:
            evolve_shuffled(grid, 0.5, 0.1, [(still, Mixture((1.0,), (bad,)))], 2, 3)
        assert err.value.parameter == "displacements"


def test_the_two_term_log_sum_is_scipys_logsumexp_double_for_double():
    """Ties, zeros of either sign, infinities and NaN included: the same doubles (sign bits too)."""
    rng = np.random.default_rng(2)
    for _ in range(100):
        n = int(rng.integers(1, 2000))
        a, b = (-rng.random(n) * 10 ** rng.uniform(-3, 4) for _ in range(2))
        tie = rng.random(n) < 0.1
        b[tie] = a[tie]
        for arr in (a, b):
            for value, share in ((-np.inf, 0.05), (np.inf, 0.01), (np.nan, 0.01), (0.0, 0.01), (-0.0, 0.01)):
                arr[rng.random(n) < share] = value
            arr[rng.random(n) < 0.02] *= -1
        out, ref = logaddexp_as_logsumexp(a, b), logsumexp(np.stack([a, b]), axis=0)
        assert np.array_equal(out, ref, equal_nan=True)
        assert np.array_equal(np.signbit(out), np.signbit(ref))


def test_a_two_component_log_matrix_is_the_log_of_the_matrix():
    grid = IntervalGrid(-1.0, 1.0, 60)
    mx = Mixture((0.25, 0.75), (lambda x: -0.5 * x, lambda x: 0.3 - 0.5 * x))
    log_m, m = grid.log_dense(mx, 0.02), grid.dense(mx, 0.02)
    ok = m > 1e-290
    np.testing.assert_allclose(np.exp(log_m[ok]), m[ok], rtol=1e-12)
    assert np.all(log_m[~ok] < np.log(1e-289))
    assert np.isfinite(log_m).all() and (~ok).any()  # finite far below the smallest double
