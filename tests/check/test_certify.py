"""Certified violations and replay lines: ``verify.check.certify``.

Reference values come from mpmath (independent high-precision evaluation) or from arithmetic on the
stated errors, never from the function under test.
"""

from __future__ import annotations

import math
import shlex

import mpmath
import pytest
import sympy as sp

import theorems
from verify.check import certify
from verify.check import references as refs
from verify.check.evidence import Witness
from verify.privacy.operators import GDPDelta
from verify.theorem import Setting, Source, Theorem, sym

SRC = Source("self-test", "certify")


def _theorem(bound, kind="upper", notion="rdp", **kwargs) -> Theorem:
    return Theorem(id="user/certify", title="a bound for the certification tests", source=SRC, notion=notion,
                   kind=kind, setting=Setting(batches="full"), bound=bound, **kwargs)


def _comparison(exact, bound, tolerance=1e-9, at=2.0) -> refs.Comparison:
    return refs.Comparison(exact=exact, bound=bound, at=at, tolerance=tolerance)


def test_a_clear_violation_has_the_margin_left_after_the_stated_errors():
    t = _theorem(sym.alpha * sym.Delta ** 2 / (2 * sym.sigma ** 2))  # 2 * 1 / 2 = 1 at the point below
    params = {"Delta": 1.0, "sigma": 1.0, "alpha": 2.0}
    margin = certify.violation_margin(t, params, _comparison(1.5, 1.0, tolerance=1e-6))
    # gap 0.5 less the exact value's error 1e-6 * 1.5 (rdp has no resolution), relative to the bound 1
    assert margin == pytest.approx(0.5 - 1.5e-6, rel=1e-12)


def test_within_the_stated_tolerance_is_no_violation():
    t = _theorem(sym.alpha * sym.Delta ** 2 / (2 * sym.sigma ** 2))
    params = {"Delta": 1.0, "sigma": 1.0, "alpha": 2.0}
    assert certify.violation_margin(t, params, _comparison(1.0 + 5e-7, 1.0, tolerance=1e-6)) is None
    assert certify.violation_margin(t, params, _comparison(1.0 + 5e-6, 1.0, tolerance=1e-6)) is not None


def test_a_double_precision_rounding_of_the_bound_is_not_a_violation():
    """log(1 + Delta^2) at Delta = 1e-9 is 0 in double precision (no log1p), 1e-18 in truth: an exact value
    between the two is below the bound, whatever the float evaluation says."""
    t = _theorem(sp.log(1 + sym.Delta ** 2) * sym.alpha / sym.alpha)
    params = {"Delta": 1e-9, "alpha": 2.0}
    float_bound = float(t.evaluate(**params))
    assert float_bound == 0.0
    true_bound = float(mpmath.log1p(mpmath.mpf(1e-9) ** 2))
    exact = 0.5 * true_bound
    assert certify.violation_margin(t, params, _comparison(exact, float_bound)) is None
    # above the true bound it is a violation, with the margin taken against the true bound
    margin = certify.violation_margin(t, params, _comparison(2 * true_bound, float_bound))
    assert margin == pytest.approx(1.0 - 2e-9, rel=1e-6)


@pytest.mark.parametrize("kind,exact,violated", [
    ("upper", 0.5, False), ("upper", 2.0, True),
    ("lower", 0.5, True), ("lower", 2.0, False),
    ("exact", 0.5, True), ("exact", 2.0, True), ("exact", 1.0, False),
    ("approximation", 2.0, False),
])
def test_the_direction_of_each_kind(kind, exact, violated):
    t = _theorem(sym.alpha / 2, kind=kind)
    margin = certify.violation_margin(t, {"alpha": 2.0}, _comparison(exact, 1.0))
    assert (margin is not None) is violated
    if violated:
        assert margin == pytest.approx(abs(exact - 1.0) - 1e-9 * max(exact, 1.0), rel=1e-9)


def test_the_notion_resolution_is_absolute_slack():
    """f-DP compares delta values resolved to 1e-12: a gap below it is no evidence."""
    t = _theorem(sym.Delta * 0 + 1e-13 * sym.eps / sym.eps, notion="fdp")
    params = {"Delta": 1.0, "eps": 1.0}
    assert certify.violation_margin(t, params, _comparison(5e-13, 1e-13, at=1.0)) is None
    assert certify.violation_margin(t, params, _comparison(3e-12, 1e-13, at=1.0)) is not None


def test_a_numeric_operator_bound_carries_its_stated_error():
    t = _theorem(GDPDelta(sym.Delta / sym.sigma, sym.eps), notion="fdp")
    params = {"Delta": 1.0, "sigma": 1.0, "eps": 0.5}
    bound = float(t.evaluate(**params))
    within = bound * (1 + 0.5 * certify.OPERATOR_RTOL)
    beyond = bound * (1 + 10 * certify.OPERATOR_RTOL)
    assert certify.violation_margin(t, params, _comparison(within, bound, at=0.5)) is None
    assert certify.violation_margin(t, params, _comparison(beyond, bound, at=0.5)) is not None


def test_nan_exact_values_and_infinite_upper_bounds_are_never_violations():
    t = _theorem(sym.alpha / 2)
    assert certify.violation_margin(t, {"alpha": 2.0}, _comparison(float("nan"), 1.0)) is None
    t = _theorem(sp.exp(sym.alpha * 1000))  # overflows to inf in double precision, and is +huge in truth
    assert certify.violation_margin(t, {"alpha": 2.0}, _comparison(1e300, float("inf"))) is None


def test_the_high_precision_bound_agrees_with_mpmath():
    t = _theorem(sp.sqrt(sym.alpha) * sp.exp(-sym.T) / (1 - sp.exp(-sym.T)))
    params = {"alpha": 3.0, "T": 40.0}
    value, error = certify.high_precision_bound(t, params, float(t.evaluate(**params)))
    with mpmath.workdps(60):
        reference = mpmath.sqrt(3) * mpmath.exp(-40) / (1 - mpmath.exp(-40))
    assert value == float(reference)
    assert error <= math.ulp(value)


# ---------------------------------------------------------------------------------------------------
# replay lines
# ---------------------------------------------------------------------------------------------------


def test_build_keywords_give_back_the_instance():
    family = refs.families()["projected_quadratic"]
    kwargs = dict(n=2, b=1, T=1, eta=1.0, sigma=1.0, Delta=2.0, D=10.0, m=0.1, M=1.0, cells=1024)
    instance = refs.build_from(family, kwargs)
    keywords = certify.build_keywords(instance)
    assert keywords == kwargs
    assert all(type(keywords[k]) is type(v) for k, v in kwargs.items())  # n stays an int, D a float


def test_a_replay_line_round_trips_every_value_bit_for_bit():
    w = Witness(instance="x", family="interval_walk", parameters={}, at=0.1 + 0.2, exact=1.0, bound=1.0,
                parameter="alpha", build={"n": 2, "eta": 1 / 3, "batches": "uniform", "D": 1e-300})
    words = shlex.split(certify.replay_line("some/id", w))
    assert words[:5] == ["verify", "eval", "some/id", "--family", "interval_walk"]
    read = dict(word.split("=", 1) for word in words[5:])
    values = {k: certify.read_word(v) for k, v in read.items()}
    assert values == {"n": 2, "eta": 1 / 3, "batches": "uniform", "D": 1e-300, "alpha": 0.1 + 0.2}
    assert type(values["n"]) is int


def test_a_witness_without_build_keywords_falls_back_to_its_parameters_and_name():
    """A counterexample recorded before witnesses carried their build keywords (``verify run --json``
    of session 3): the family's keywords among its parameters and the words of its instance name."""
    w = Witness(instance="interval_walk(n=2, T=1, D=10.0, batches=uniform)", family="interval_walk",
                parameters={"D": 10.0, "Delta": 2.0, "L": 2.0, "T": 1, "b": 1, "d": 1, "eta": 1.0, "m": 0.0,
                            "n": 2, "q": 0.5, "sigma": 1.0},
                at=2.0, exact=2.6263417228898875, bound=0.6582464701720548, parameter="alpha")
    assert certify.witness_keywords(w) == {"D": 10.0, "Delta": 2.0, "T": 1, "b": 1, "eta": 1.0, "n": 2,
                                           "sigma": 1.0, "batches": "uniform"}


def test_replaying_a_kept_counterexample_reproduces_exact_and_bound():
    """altschuler2022/b.3 (as printed) on its kept instance: the values the engine recorded for it
    (``verify run --json``, quick, seed 0, session 3) come back from the replay."""
    t = theorems.get("altschuler2022/b.3")
    kept = dict(next(e for e in t.examples if "family" in e))
    family, alpha = kept.pop("family"), kept.pop("alpha")
    out = certify.replay(t, family, kept, alpha)
    c = out["comparison"]
    assert c.exact == pytest.approx(2.626321916318591, rel=1e-12)
    assert c.bound == pytest.approx(0.6836260749054235, rel=1e-12)
    assert out["margin"] is not None and out["margin"] > 2.8
    corrected = certify.replay(theorems.get("altschuler2022/b.3/both-directions"), family, kept, alpha)
    assert corrected["margin"] is None


def test_the_witness_of_a_linear_instance_carries_M_and_replays():
    """altschuler2022/b.2 needs M, which a linear loss does not define (any M > 0 holds): the witness
    keeps the M the bound was evaluated at, so that its replay line evaluates the same bound."""
    t = theorems.get("altschuler2022/b.2")
    kept = dict(next(e for e in t.examples if "family" in e))
    family, alpha = kept.pop("family"), kept.pop("alpha")
    out = certify.replay(t, family, kept, alpha)
    w = certify.witness(t, out["instance"], out["comparison"], out["parameters"])
    assert w.parameters["M"] == kept["M"] and w.build["batches"] == "uniform"
    words = shlex.split(certify.replay_line(t.id, w))
    again = certify.replay(t, words[4], {k: certify.read_word(v) for k, v in
                                         (x.split("=", 1) for x in words[5:] if not x.startswith("alpha="))}, alpha)
    assert again["comparison"] == out["comparison"]


def test_a_lower_bound_beyond_the_float_range_is_violated_with_an_infinite_margin():
    t = _theorem(sp.exp(sym.alpha * 400), kind="lower")  # e^800: beyond doubles, in 50 digits too
    margin = certify.violation_margin(t, {"alpha": 2.0}, _comparison(1e300, float("inf")))
    assert margin == math.inf


def test_the_reference_s_own_error_for_the_query_is_slack_too():
    """A grid's error for the quantity compared (its Rényi divergence at large mu) can exceed its relative
    ``tolerance`` (an error in delta): a violation is certified only beyond it as well."""
    t = _theorem(sym.alpha * sym.Delta ** 2 / (2 * sym.sigma ** 2))
    params = {"Delta": 1.0, "sigma": 1.0, "alpha": 2.0}
    asked = []

    def error(value):
        def query():
            asked.append(value)
            return value
        return query

    beyond = refs.Comparison(exact=1.5, bound=1.0, at=2.0, tolerance=1e-6, query_error=error(0.6))
    assert certify.violation_margin(t, params, beyond) is None
    within = refs.Comparison(exact=1.5, bound=1.0, at=2.0, tolerance=1e-6, query_error=error(0.2))
    assert certify.violation_margin(t, params, within) == pytest.approx(0.5 - 1.5e-6 - 0.2, rel=1e-12)
    unknown = refs.Comparison(exact=1.5, bound=1.0, at=2.0, tolerance=1e-6, query_error=error(math.inf))
    assert certify.violation_margin(t, params, unknown) is None
    holds = refs.Comparison(exact=0.9, bound=1.0, at=2.0, tolerance=1e-6, query_error=error(1.0))
    assert certify.violation_margin(t, params, holds) is None
    assert asked == [0.6, 0.2, math.inf]  # asked only where a violation is being certified


def test_a_grid_at_mu_30_states_a_renyi_error_covering_its_true_error():
    """Full-batch walk at per-step mu = 30 whose walls never act: D_2 = alpha T mu^2 / 2 = 900 exactly; the
    query error the engine certifies with covers the grid's deviation from it."""
    from verify.instances import FAMILIES
    from verify.privacy.notions import RDP

    mu, lo, hi = 30.0, -70.0, 100.0
    profile = FAMILIES["interval_walk"].build(n=1, eta=1.0, sigma=1.0, T=1, Delta=mu, D=hi - lo, lo=lo, x0=0.0,
                                              cells=1024).profile()
    notion = RDP
    value = notion.exact(profile, 2.0)
    query = refs.query_error(profile, notion, 2.0)
    assert query is not None and math.isfinite(value)
    assert abs(value - 900.0) <= query()
    assert abs(value - 900.0) > refs.profile_tolerance(profile) * 900.0  # what the relative tolerance misses


def test_a_pld_reference_states_its_discretisation_error_for_the_query():
    """Bu et al.'s worst case at a small sampling rate over thousands of steps (q = 0.0043, mu = 0.77): the
    pessimistic PLD's eps(1e-5) at the default interval lies above the exact value by far more than the
    comparisons' relative floor; the error the engine certifies with covers its distance to a PLD four times
    finer (an independent, closer value from the same construction), and nothing is asked of closed forms."""
    from verify.instances import FAMILIES
    from verify.privacy.notions import EPS_DELTA, RDP
    from verify.privacy.pld import Composition

    n, b, T = 3750, 16, 3516  # q = 0.004267, z = b sigma / Delta = 1.3: mu = 0.769 per step
    profile = FAMILIES["dpsgd_worst_step"].build(n=n, b=b, eta=1.0, sigma=1.3 / b, T=T, Delta=1.0).profile()
    value = EPS_DELTA.exact(profile, 1e-5)
    finer = float(Composition.subsampled_gaussian(b / n, 1.0 / 1.3, T, value_discretization_interval=2.5e-5).eps(1e-5))
    query = refs.query_error(profile, EPS_DELTA, 1e-5)
    assert query is not None
    assert finer < value  # pessimistic: a coarser interval lies above
    assert value - finer <= query()
    assert value - finer > refs.profile_tolerance(profile) * value  # what the relative floor alone misses
    assert refs.query_error(profile, RDP, 2.0)() == refs.ROUNDING_FLOOR  # Rényi by additivity: a closed form
