"""verify.logspace.logsumexp against scipy.special.logsumexp: the same doubles, edges included."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.special import logsumexp as scipy_logsumexp

from verify.logspace import logsumexp

# finite values over the whole double range (ties, huge spreads), -inf (zero masses), +inf and NaN
entries = st.one_of(
    st.floats(-1e300, 1e300, allow_nan=False, allow_infinity=False),
    st.floats(-800.0, 800.0, allow_nan=False).map(round),  # ties
    st.sampled_from([-np.inf, -np.inf, np.inf, np.nan, 0.0, -745.2, 709.8]),
)


def _same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)


@settings(max_examples=300, deadline=None)
@given(hnp.arrays(float, hnp.array_shapes(min_dims=1, max_dims=3, max_side=6), elements=entries),
       st.integers(-1, 2))
def test_bit_for_bit_with_scipy(a, axis_pick):
    axis = None if axis_pick < 0 or axis_pick >= a.ndim else axis_pick
    with np.errstate(all="ignore"):
        expected = scipy_logsumexp(a, axis=axis)
    got = logsumexp(a, axis=axis)
    assert _same(got, expected), (a, axis, got, expected)
    assert type(got) is type(expected)  # a numpy scalar for a full reduction, as scipy's


@pytest.mark.parametrize("a, expected", [
    ([0.0, 0.0], np.log(2.0)),  # a tie: log1p(0) + log 2
    ([-np.inf, -np.inf], -np.inf),  # every mass 0
    ([1e308, 1e308], 1e308),  # the largest term factored out: no overflow of exp
    ([-1000.0, -1000.0 - np.log(3.0)], -1000.0 + np.log(4.0 / 3.0)),  # far below exp's range
])
def test_edges(a, expected):
    got = logsumexp(np.array(a))
    assert got == expected if np.isinf(expected) else got == pytest.approx(expected, rel=1e-15, abs=0)


def test_empty_and_scalar_as_scipy():
    assert _same(logsumexp(np.zeros((0,))), scipy_logsumexp(np.zeros((0,))))
    assert _same(logsumexp(np.zeros((2, 0)), axis=1), scipy_logsumexp(np.zeros((2, 0)), axis=1))
    assert _same(logsumexp(3.5), scipy_logsumexp(3.5))


@pytest.mark.parametrize("bad", [["a", "b"], [1 + 2j, 0.0], None, [object()]])
def test_anything_but_real_numbers_is_refused_by_name(bad):
    from verify.errors import InputError

    with pytest.raises(InputError, match="real numbers") as err:
        logsumexp(bad)
    assert err.value.parameter == "a"
