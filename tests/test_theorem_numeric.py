"""The numeric form Theorem.evaluate compiles (verify.theorem.numeric_form): square roots merged.

The reference is the bound as written, lambdified as it is (no rewriting), on the registry's example
points and on random points of every parameter's domain, assumptions ignored (so that NaN outside the
domain is exercised too).
"""

import numpy as np
import pytest
import sympy as sp

import theorems
from verify.privacy.operators import lambdify_modules
from verify.theorem import numeric_form, sym
from verify.vocabulary import VOCABULARY

ULPS = 4
REWRITTEN = [t for t in theorems.all() if t.closed_form and numeric_form(t.bound) != t.bound]


def _random_points(theorem, rng, n=4000):
    points = {}
    for name in theorem.parameters:
        domain = VOCABULARY[name].domain
        if domain == "integer":
            points[name] = rng.integers(1, 2000, n).astype(float)
        elif domain == "unit":
            points[name] = rng.uniform(1e-6, 1.0, n)
        elif domain == "real":
            points[name] = rng.normal(0.0, 3.0, n)
        else:
            points[name] = 10 ** rng.uniform(-3, 3, n)
    for example in theorem.examples:  # the paper's own points first
        for name in theorem.parameters:
            points[name][: len(theorem.examples)] = [e.get(name, points[name][0]) for e in theorem.examples]
    return points


def test_some_records_are_rewritten():
    assert {"bok2024/thm4.2", "bok2024/cor5.4/reading-a"} <= {t.id for t in REWRITTEN}


@pytest.mark.parametrize("theorem", REWRITTEN, ids=lambda t: t.id)
def test_values_within_4_ulps_and_nan_kept(theorem):
    symbols = theorem._argument_symbols
    as_written = sp.lambdify(symbols, theorem.bound, modules=lambdify_modules(), cse=True)
    points = _random_points(theorem, np.random.default_rng(12))
    args = [points[s.name] for s in symbols]
    with np.errstate(all="ignore"):
        want = np.asarray(as_written(*args), dtype=float)
        got = np.asarray(theorem._compiled(*args), dtype=float)
    assert np.array_equal(np.isnan(got), np.isnan(want))  # never a number where the formula gives NaN
    finite = np.isfinite(want)
    assert finite.sum() > 100
    assert np.array_equal(got[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)])
    ulps = np.abs(got[finite] - want[finite]) / np.spacing(np.abs(want[finite]))
    assert ulps.max() <= ULPS


def test_only_provably_nonnegative_radicands_are_merged():
    x, y = sp.symbols("x y", real=True)
    assert numeric_form(sp.sqrt(x) * sp.sqrt(y)) == sp.sqrt(x) * sp.sqrt(y)  # sqrt(-1) sqrt(-1) is NaN, not 1
    merged = numeric_form(sp.sqrt(sym.T) * sym.Delta / sp.sqrt(sym.n))
    assert len([p for p in merged.atoms(sp.Pow) if p.exp == sp.S.Half]) == 1
    compiled = sp.lambdify((sym.T, sym.Delta, sym.n), merged, "numpy")

    def f(*args):  # Theorem.evaluate passes numpy values, never Python floats
        return compiled(*np.array(args, dtype=float))

    with np.errstate(all="ignore"):
        assert np.isnan(f(np.nan, 1.0, 2.0)) and np.isnan(f(0.0, 1.0, 0.0)) and np.isnan(f(np.inf, 1.0, np.inf))
    assert f(4.0, 3.0, 9.0) == 2.0
