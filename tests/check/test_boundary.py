"""The soundness search's boundary phase: an assumption made tight by bisection, generic over
the theorem's assumptions, finds worst cases that lie ON an assumption's boundary.

Reference values are closed forms, never the search: the exact GDP of a linear full-batch chain is
sqrt(T) Delta / (n sigma); Chourasia et al. 2021, Thm 4 in (eps, delta), has exact/bound -> 4/15 at
m = M and eps = 2 log(1/delta) (the record's note: (4/15)(eps + 2 log(1/delta)) / (4 log(1/delta)) as
n -> oo, the 2L -> L mutant, bound/4, is unsound only where that exceeds 1/4).
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
import sympy as sp

import theorems
from verify.check.domain import TIGHT, assumption_slacks, corner_units
from verify.check.engine import search_effort
from verify.check.mutation import mutants, rule_of
from verify.check.soundness import Budget, Record, Search, soundness
from verify.setting import Setting
from verify.theorem import Assumption, Source, Theorem, sym

QUICK = search_effort("quick").budget()
THM4_DP = "chourasia2021/thm4/dp"


def _without_kept_instances(theorem: Theorem) -> Theorem:
    return replace(theorem, examples=tuple(e for e in theorem.examples if "family" not in e), variants=())


def test_slacks_are_relative_and_leave_out_single_term_domains():
    theorem = theorems.get(THM4_DP)
    slacks = {str(s.assumption): s for s in assumption_slacks(theorem)}
    assert "eps > 0" not in slacks and "lambda-strongly convex" not in slacks  # eps > 0, m > 0: one term
    edge = slacks["eps <= 2 log(1/delta)"]
    assert edge.symbols == {"eps", "delta"}
    assert edge({"eps": 2 * math.log(1e3), "delta": 1e-3}) == pytest.approx(0.0, abs=1e-15)
    # (2 log(1/delta) - eps) / (2 log(1/delta) + eps), by hand at delta = e^-2, eps = 1: 3/5
    assert edge({"eps": 1.0, "delta": math.exp(-2)}) == pytest.approx(3 / 5, rel=1e-12)
    assert edge({"eps": 5.0, "delta": math.exp(-2)}) < 0


def test_tighten_makes_an_assumption_tight_and_keeps_the_point_admissible():
    theorem = theorems.get(THM4_DP)
    search = Search(theorem, ["chourasia_thm4_dp"], Record(), Budget())
    edge = next(s for s in assumption_slacks(theorem) if str(s.assumption) == "eps <= 2 log(1/delta)")
    # eps = 2.5 and delta = 3e-6 (2 log(1/delta) = 25): neither coordinate alone reaches the boundary
    start = {**corner_units(search.coordinates)[0], "mM": 1.0, "eps": 0.5, "delta": 0.5}
    assert search._inside(start) is not None
    moved = search._tighten(start, edge, ["eps", "delta"])
    assert moved is not None
    params = search._inside(moved)
    assert params is not None  # admissible
    assert abs(params["eps"] - 2 * math.log(1 / params["delta"])) <= 2 * TIGHT * params["eps"]


def test_the_search_alone_reaches_the_worst_case_on_the_boundary(fresh_caches):
    theorem = _without_kept_instances(theorems.get(THM4_DP))
    sound, tight = soundness(theorem, seed=0, budget=QUICK)
    assert sound.status == "passed"
    assert tight.data.max_ratio >= 0.26
    w = tight.data.worst
    p = w.parameters
    assert p["m"] == p["M"] and p["eps"] == pytest.approx(2 * math.log(1 / p["delta"]), rel=1e-8)
    assert 0 < sound.data.budget["boundary"] <= QUICK.boundary
    # without the phase the same search stays far below (0.14 .. 0.19): the phase is what finds it
    plain = soundness(theorem, seed=0, budget=replace(QUICK, boundary=0))[1].data.max_ratio
    assert plain < 0.25


def test_the_mutant_unsound_only_on_the_boundary_is_violated(fresh_caches):
    original = theorems.get(THM4_DP)
    mutant = next(m for m in mutants(original, 0.2665) if rule_of(m) == "2L->L")
    assert sp.simplify(mutant.bound - original.bound / 4) == 0
    sound, _ = soundness(mutant, seed=0, budget=QUICK)
    assert sound.status == "failed"
    w = sound.counterexample
    assert w.exact > w.bound and w.parameters["m"] == w.parameters["M"]
    assert w.parameters["eps"] >= 0.875 * 2 * math.log(1 / w.parameters["delta"])  # ratio > 1/4 needs this


def _planted(bound, assumptions) -> Theorem:
    return Theorem(id="test/boundary", title="planted", source=Source("test", "none"), notion="gdp", kind="upper",
                   bound=bound, setting=Setting(batches="full", loss="linear", constraint="none"),
                   assumptions=assumptions)


def test_a_bound_wrong_only_near_an_assumption_boundary_is_violated(fresh_caches):
    # x = T Delta / (n sigma) = T mu_step, assumed at most 3; the bound is the exact sqrt(T) mu_step
    # except within a relative 1e-3 of x = 3, where it drops to 0 (a slip the corners never visit)
    mu_step = sym.Delta / (sym.n * sym.sigma)
    x = sym.T * mu_step
    bound = sp.sqrt(sym.T) * mu_step * sp.Min(1, 1000 * (3 - x))
    planted = _planted(bound, (Assumption(sym.Delta * sym.T <= 3 * sym.n * sym.sigma, "T mu_step <= 3"),))
    without = soundness(planted, seed=0, budget=replace(QUICK, boundary=0))[0]
    assert without.status == "passed"  # corners, random and guided phases miss it
    sound, _ = soundness(planted, seed=0, budget=QUICK)
    assert sound.status == "failed"
    for w in (sound.counterexample, sound.data.largest):
        p = w.parameters
        assert 2.997 < p["T"] * p["Delta"] / (p["n"] * p["sigma"]) <= 3 * (1 + 1e-12)
        assert w.exact == pytest.approx(math.sqrt(p["T"]) * p["Delta"] / (p["n"] * p["sigma"]), rel=1e-9)
        assert w.exact > w.bound


def test_a_correct_bound_with_a_tight_assumption_is_not_flagged(fresh_caches):
    mu_step = sym.Delta / (sym.n * sym.sigma)
    planted = _planted(sp.sqrt(sym.T) * mu_step,
                       (Assumption(sym.Delta * sym.T <= 3 * sym.n * sym.sigma, "T mu_step <= 3"),))
    sound, tight = soundness(planted, seed=0, budget=QUICK)
    assert sound.status == "passed" and sound.data.budget["boundary"] > 0
    assert tight.data.max_ratio == pytest.approx(1.0, rel=1e-9)
