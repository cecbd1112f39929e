"""The symbolic obligations' cheaper paths decide exactly what the plain sympy calls decide.

References: ``xreplace`` / ``sp.limit`` / one ``Theorem.evaluate`` call per point, i.e. the slower forms the
obligations used before; and bounds whose invariance or non-invariance is known by construction.
"""

import math

import mpmath
import numpy as np
import pytest
import sympy as sp

import theorems
from verify.check import symbolic
from verify.check.domain import admissible_points, canonical_points
from verify.theorem import Assumption, Claim, Source, Theorem, sym

# (altschuler2022/thm4.1 and its readings left out: their admissible points take seconds of rejection sampling)
CLOSED = [t for t in theorems.all() if t.closed_form and not t.id.startswith("altschuler2022/thm4.1")]
WITH_MINMAX = [t for t in theorems.all() if t.bound.has(sp.Min, sp.Max)]


def _record(bound, claims=(), assumptions=()):
    return Theorem(id="test/symbolic", title="t", source=Source("test", "eq. 1"), notion="gdp", kind="upper",
                   bound=bound, claims=claims, assumptions=assumptions)


@pytest.mark.parametrize("theorem", WITH_MINMAX[:12], ids=lambda t: t.id)
def test_substituted_has_the_value_of_xreplace(theorem):
    """The Min/Max left unevaluated after the scaling substitution: same value as sympy's xreplace, at
    random points and c = 3.1 (mpmath, 30 digits)."""
    subs = symbolic.scaling_substitution()
    fast = symbolic._substituted(theorem.bound, subs)
    plain = theorem.bound.xreplace(subs)
    dummies = {op: sp.Symbol(f"op{i}", positive=True) for i, op in
               enumerate(sorted(theorem.bound.atoms(symbolic.NumericOperator), key=str))}
    # an operator's value is not sympy's business: held at one value on both sides (their args scale alike)
    fast = fast.xreplace({symbolic._substituted(op, subs): d for op, d in dummies.items()})
    plain = plain.xreplace({op.xreplace(subs): d for op, d in dummies.items()})
    syms = sorted(fast.free_symbols | plain.free_symbols, key=lambda s: s.name)
    f, g = sp.lambdify(syms, fast, "mpmath"), sp.lambdify(syms, plain, "mpmath")
    rng = np.random.default_rng(0)
    with mpmath.workdps(30):
        for _ in range(20):
            args = [3.1 if s.name == "c_scale" else float(rng.uniform(0.05, 0.95)) if s.name in ("q", "gamma")
                    else float(rng.integers(1, 50)) if s.name in ("T", "E", "l", "nu", "b", "n", "d")
                    else float(rng.uniform(0.1, 3.0)) for s in syms]
            args = [mpmath.mpf(x) for x in args]
            a, b = f(*args), g(*args)
            assert mpmath.almosteq(a, b, rel_eps=mpmath.mpf(10) ** -25), (theorem.id, args)


def test_scaling_proves_an_invariant_min_and_refutes_a_variant_one():
    invariant = _record(sp.Min(sym.T, sym.D * sym.n / (sym.eta * sym.Delta)) * sym.Delta / (sym.n * sym.sigma))
    variant = _record(sp.Min(sym.T, sym.D * sym.n / sym.Delta) * sym.Delta / (sym.n * sym.sigma))
    ok = symbolic.scaling(invariant)
    assert (ok.status, ok.detail) == ("passed", "invariant under theta -> c*theta (symbolic)")
    bad = symbolic.scaling(variant)
    assert bad.status == "failed" and "c_scale" in bad.detail


def test_scaling_pulls_a_common_factor_out_of_a_min():
    """min(D^2, (eta Delta)^2) scales by c^2 as a whole (D -> cD, eta Delta -> c eta Delta): divided by
    (eta sigma)^2 it is invariant, divided by eta Delta it is not (factor c)."""
    homogeneous = sp.Min(sym.D**2, (sym.eta * sym.Delta) ** 2 * sym.T)
    subs = symbolic.scaling_substitution()
    assert symbolic._scaled(homogeneous, subs) == symbolic._SCALE**2 * homogeneous
    ok = symbolic.scaling(_record(homogeneous / (sym.eta * sym.sigma) ** 2))
    assert (ok.status, ok.detail) == ("passed", "invariant under theta -> c*theta (symbolic)")
    bad = symbolic.scaling(_record(homogeneous / (sym.eta * sym.Delta)))
    assert bad.status == "failed" and "c_scale" in bad.detail
    mixed = sp.Min(sym.D**2, sym.T)  # args scale differently: not rewritten, and not invariant
    assert symbolic._scaled(mixed, subs) == symbolic._substituted(mixed, subs)
    assert symbolic.scaling(_record(mixed)).status == "failed"


def test_equal_with_held_min_max_proves_only_true_identities():
    c = sp.Max(sp.Abs(1 - sym.eta * sym.m), sp.Abs(1 - sym.eta * sym.M))
    left = (1 - c**2) / (c ** (-2 * sym.T) - 1)
    right = (1 - c**2) * c ** (2 * sym.T) / (1 - c ** (2 * sym.T))
    assert symbolic._equal(left, right) is True
    assert symbolic._equal(left, right * c) is not True  # off by the factor c: never "equal"
    assert symbolic._equal(sp.Min(sym.T, c), sp.Min(sym.T, c)) is True


def test_limit_with_held_min_max_matches_sympy():
    a = sp.Min(sym.D / sym.eta, sym.Delta)
    expr = a * (1 - sp.exp(-sym.T * sym.sigma)) + 1 / sym.T
    assert symbolic._limit(expr, sym.T, sp.oo) == sp.limit(expr, sym.T, sp.oo) == a


@pytest.mark.parametrize("theorem", CLOSED, ids=lambda t: t.id)
def test_vectorised_bounds_are_the_per_point_values(theorem):
    """well_formed validates a closed form's points in one pass: the values are bit-identical to one call each."""
    points = admissible_points(theorem, 24, 0)
    per_point = [float(theorem.evaluate(**p)) for p in points]
    got = symbolic._bounds_at(theorem, points)
    assert [v.hex() for v in got] == [v.hex() for v in per_point]


@pytest.mark.parametrize("tid", ["bok2024/thm4.2", "bok2024/thm4.5", "chourasia2021/cor2", "bu2020/thm5"])
def test_lazy_bounds_skip_exactly_the_points_one_call_rejects(tid):
    """Canonical points, many outside the assumptions: the vectorised screen skips the same ones, and the
    values of the others are those of one call per point."""
    theorem = theorems.get(tid)
    rows = [{k: p[k] for k in theorem.parameters} for p in canonical_points(200, 11, cyclic="E" in theorem.parameters)]
    for row in rows[::3]:  # a third of them outside an assumption (eta M < 2 or eta m < 1), or a domain (T = 1/2)
        if "M" in row:
            row["eta"] = 2.5 / row["M"]
        elif "m" in row:
            row["eta"] = 1.5 / row["m"]
        else:
            row["T"] = 0.5
    value = symbolic._lazy_bounds(theorem, rows)
    skipped = 0
    for i, row in enumerate(rows):
        try:
            expected = float(theorem.evaluate(**row))
        except ValueError:
            expected = None
            skipped += 1
        got = value(i)
        assert (got is None) == (expected is None), (i, row)
        if got is not None:
            assert got.hex() == expected.hex()
    assert 0 < skipped < len(rows)


def test_numeric_limit_failure_reports_sympys_value():
    """A wrong claimed limit still fails, with the claimed value as sympy substitutes it (the evidence)."""
    c = sp.Max(sp.Abs(1 - sym.eta * sym.m), sp.Abs(1 - sym.eta * sym.M))
    wrong = 1.01 * sym.Delta / (sym.n * sym.sigma * sp.sqrt(1 - c))
    thm = _record(sym.Delta / (sym.n * sym.sigma) * sp.sqrt((1 - c**sym.T) / (1 - c)),
                  claims=(Claim("limit", value=wrong, var="T", point=sp.oo),),
                  assumptions=(Assumption(sym.m > 0), Assumption(sym.M >= sym.m), Assumption(sym.eta < 2 / sym.M)))
    ok, how = symbolic._numeric_limit(thm, thm.claims[0], wrong, 0)
    assert ok is False
    p = {**admissible_points(thm, 8, 0)[0], "T": 1e7}
    b = float(sp.N(wrong.subs({getattr(sym, k): v for k, v in p.items()})))
    assert how.endswith(f"vs claimed limit {b!r}")
    right = wrong / 1.01
    assert symbolic._numeric_limit(thm, thm.claims[0], right, 0)[0] is True
    assert math.isfinite(symbolic._mpmath_value(right)(p))
