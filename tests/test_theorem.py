"""The theorem record: evaluation, validation, free-parameter optimisation (verify/theorem.py)."""

import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.theorem import Assumption, FreeParameter, Source, Theorem, sym, theorems_in

COMPOSITION = Theorem(
    id="test/composition", title="GD composition", source=Source("test", "eq. 1"), notion="gdp", kind="upper",
    bound=sp.sqrt(sym.T) * sym.Delta / (sym.n * sym.sigma),
    assumptions=(Assumption(sym.eta < 2 / sym.M, "eta in (0, 2/M)"),),
)

WINDOW = Theorem(
    id="test/window", title="window", source=Source("test", "eq. 2"), notion="gdp", kind="upper",
    bound=(sym.D + sym.eta * sym.Delta / sym.n * sym.nu) / (sym.eta * sym.sigma * sp.sqrt(sym.nu)),
    free=(FreeParameter("nu", 1, sym.T, integer=True),),
)


def test_parameters_are_the_free_symbols_and_assumption_symbols():
    assert set(COMPOSITION.parameters) == {"T", "Delta", "n", "sigma", "eta", "M"}


def test_evaluate_broadcasts_and_matches_hand_formula():
    T = np.array([1, 4, 9, 16])
    got = COMPOSITION.evaluate(T=T, Delta=2.0, n=10, sigma=0.5, eta=0.1, M=1.0)
    np.testing.assert_allclose(got, np.sqrt(T) * 2.0 / (10 * 0.5), rtol=1e-15)


def test_assumption_violation_names_the_assumption():
    with pytest.raises(ValueError, match=r"eta in \(0, 2/M\)"):
        COMPOSITION.evaluate(T=1, Delta=1, n=10, sigma=1, eta=3.0, M=1.0)
    value = COMPOSITION.evaluate(T=1, Delta=1, n=10, sigma=1, eta=3.0, M=1.0, allow_outside_assumptions=True)
    assert value == pytest.approx(0.1)


@pytest.mark.parametrize("bad,match", [
    (dict(sigma=0.0), "sigma must be > 0"), (dict(sigma=-1.0), "sigma must be > 0"),
    (dict(T=2.5), "T must be a positive integer"), (dict(n=float("nan")), "n is NaN"),
    (dict(Delta=float("inf")), "Delta must be finite"),
])
def test_bad_values_name_the_parameter(bad, match):
    params = dict(T=1, Delta=1, n=10, sigma=1, eta=0.1, M=1.0) | bad
    with pytest.raises(ValueError, match=match):
        COMPOSITION.evaluate(**params)


def test_missing_and_unknown_parameters():
    with pytest.raises(ValueError, match="missing parameter"):
        COMPOSITION.evaluate(T=1)
    with pytest.raises(ValueError, match="unknown parameter.*zeta"):
        COMPOSITION.evaluate(T=1, Delta=1, n=10, sigma=1, eta=0.1, M=1.0, zeta=1)


def test_bound_outside_vocabulary_is_refused():
    with pytest.raises(ValueError, match="outside the vocabulary"):
        Theorem(id="x", title="x", source=Source("x", "x"), notion="gdp", kind="upper", bound=sp.Symbol("foo"))
    with pytest.raises(ValueError, match="notion"):
        Theorem(id="x", title="x", source=Source("x", "x"), notion="zcdp", kind="upper", bound=sym.mu)


@settings(deadline=None, max_examples=40)
@given(T=st.integers(1, 300), D=st.floats(0.01, 10), eta=st.floats(0.01, 1), s=st.floats(0.1, 5))
def test_free_parameter_minimum_equals_brute_force(T, D, eta, s):
    got = float(WINDOW.evaluate(T=T, D=D, eta=eta, Delta=1.0, n=10, sigma=s))
    brute = min((D + eta / 10 * nu) / (eta * s * math.sqrt(nu)) for nu in range(1, T + 1))
    assert got == pytest.approx(brute, rel=1e-12)


def test_theorems_in_collects_variants_once():
    printed = Theorem(id="test/composition/as-printed", title="typo", source=Source("test", "eq. 1"),
                      notion="gdp", kind="upper", bound=sym.T * sym.Delta / (sym.n * sym.sigma),
                      printed_of="test/window2")
    parent = Theorem(id="test/window2", title="w", source=Source("test", "x"), notion="gdp", kind="upper",
                     bound=sym.Delta, variants=(printed,))
    found = theorems_in({"a": parent, "b": [parent, printed], "c": 3})
    assert [t.id for t in found] == ["test/window2", "test/composition/as-printed"]


def test_up_to_constant_is_off_unless_stated_and_shown_in_the_json():
    import dataclasses
    import json

    assert COMPOSITION.up_to_constant is False and COMPOSITION.to_json()["up_to_constant"] is False
    lesssim = dataclasses.replace(COMPOSITION, up_to_constant=True)
    assert json.loads(json.dumps(lesssim.to_json()))["up_to_constant"] is True
    # the record is otherwise the same statement: the same bound, values and parameters
    assert lesssim.bound == COMPOSITION.bound and lesssim.parameters == COMPOSITION.parameters
    point = dict(Delta=1.0, n=10, sigma=2.0, T=4, eta=0.1, M=1.0)
    assert lesssim.evaluate(**point) == COMPOSITION.evaluate(**point) == 0.1


def test_assumptions_hold_is_violated_assumptions_point_by_point():
    """The pointwise screen (a whole array of candidate points validated at once) against one
    call of violated_assumptions per point."""
    rng = np.random.default_rng(3)
    M = rng.uniform(0.1, 3.0, 200)
    eta = rng.uniform(0.0, 4.0, 200) / M  # about half of them outside eta < 2/M
    params = dict(T=5.0, Delta=1.0, n=10.0, sigma=1.0, eta=eta, M=M)
    ok = COMPOSITION.assumptions_hold(COMPOSITION.coerce(params))
    expected = [not COMPOSITION.violated_assumptions(COMPOSITION.coerce({**params, "eta": e, "M": m}))
                for e, m in zip(eta, M)]
    assert ok.tolist() == expected and 0 < ok.sum() < 200


def test_free_parameter_range_is_compiled_once(monkeypatch):
    """The range of a free parameter is compiled on the first evaluation, not on every one."""
    window = Theorem(id="test/window3", title="w", source=Source("test", "x"), notion="gdp", kind="upper",
                     bound=WINDOW.bound, free=WINDOW.free)
    point = dict(T=7, D=1.0, eta=0.1, Delta=1.0, n=10, sigma=1.0)
    first = window.evaluate(**point)
    calls = []
    original = sp.lambdify
    monkeypatch.setattr(sp, "lambdify", lambda *a, **k: calls.append(1) or original(*a, **k))
    assert window.evaluate(**point) == first and calls == []


def test_scalar_coerce_keeps_zero_d_arrays():
    coerced = COMPOSITION.coerce(dict(T=1, Delta=1, n=10, sigma=1, eta=0.1, M=1.0))
    assert all(isinstance(v, np.ndarray) and v.shape == () and v.dtype == float for v in coerced.values())


def test_broadcast_shape_of_points_and_grids():
    """The shape evaluate returns: a point is 0-d, one array of points (with scalars) is that array's shape,
    two shapes broadcast as numpy does, and shapes that do not broadcast are refused (InputError)."""
    point = dict(T=4, Delta=1.0, n=10, sigma=1.0, eta=0.1, M=1.0)
    assert np.shape(COMPOSITION.evaluate(**point)) == ()
    assert COMPOSITION.evaluate(**(point | dict(T=np.arange(1.0, 6.0)))).shape == (5,)
    assert COMPOSITION.evaluate(**(point | dict(T=np.ones((2, 1)), n=np.array([10.0, 20.0, 30.0])))).shape == (2, 3)
    with pytest.raises(ValueError, match="do not broadcast"):
        COMPOSITION.evaluate(**(point | dict(T=np.ones(2), n=np.ones(3))))


def test_one_violating_point_of_an_array_fails_the_assumption_check():
    """violated_assumptions reduces an array of truth values (one bad point suffices) and reads a single
    truth value (a point) directly: both give the assumption's name."""
    point = dict(T=4, Delta=1.0, n=10, sigma=1.0, M=1.0)
    eta = np.array([0.1, 0.5, 2.5, 0.2])  # the third is outside eta < 2/M
    with pytest.raises(ValueError, match=r"eta in \(0, 2/M\)"):
        COMPOSITION.evaluate(eta=eta, **point)
    assert COMPOSITION.evaluate(eta=eta[[0, 1, 3]], **point).shape == (3,)
    assert [str(a) for a in COMPOSITION.violated_assumptions(COMPOSITION.coerce(point | dict(eta=2.5)))] == \
        ["eta in (0, 2/M)"]
    assert COMPOSITION.violated_assumptions(COMPOSITION.coerce(point | dict(eta=1.5))) == []
