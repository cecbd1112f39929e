"""Which theorems a simulated run is checked against: the one rule (``Setting.covers``) on the run's
concrete setting; and only an InputError of a theorem means "does not apply"."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import sympy as sp

from verify.errors import InputError
from verify.privacy.notions import notion
from verify.setting import Setting
from verify.simulate import (Quadratic, Simulation, applies, audit, comparable, compare_with_theorem, huber_box,
                             instances_for, logistic_ball, simulation_setting)
from verify.theorem import Assumption, Source, Theorem, sym


def _theorem(**setting) -> Theorem:
    return Theorem(id="test/composition", title="GD composition", source=Source("test", "none"), notion="gdp",
                   kind="upper", bound=sp.sqrt(sym.T) * sym.Delta / (sym.n * sym.sigma), setting=Setting(**setting))


def test_the_concrete_setting_of_a_scenario():
    setting, classes = simulation_setting(logistic_ball(d=2, n=20, b=5, T=3, batches="poisson",
                                                        adjacency="add_remove"))
    # a Lipschitz loss is also a DP-SGD run (clipping at Cclip = L is the identity)
    assert setting == Setting(algorithm="dp_sgd", batches="poisson", loss="logistic", constraint="bounded",
                              adjacency="add_remove", init="fixed", release="last")
    assert {"logistic", "convex", "lipschitz"} <= classes and "strongly_convex" not in classes


def test_strong_convexity_and_initialisation_come_from_the_run():
    X = np.array([[1.0], [0.5], [-0.5]])
    sim = Simulation(Quadratic(2.0), X, steps=4, eta=0.1, sigma=1.0, x_other=np.array([-1.0]), init_std=0.3)
    setting, classes = simulation_setting(sim)
    assert setting.init == "gaussian" and setting.constraint == "none" and setting.batches == "full"
    assert setting.algorithm == "noisy_gd"  # no Lipschitz constant: not a DP-SGD run
    assert {"quadratic", "strongly_convex", "convex"} <= classes and "lipschitz" not in classes
    flat = Simulation(Quadratic(0.0), X, steps=4, eta=0.1, sigma=1.0, x_other=np.array([-1.0]))
    assert "strongly_convex" not in simulation_setting(flat)[1]


@pytest.mark.parametrize("field,value,covered", [
    ("batches", "poisson", True), ("batches", "cyclic", False), ("batches", "any", True),
    ("adjacency", "add_remove", True), ("adjacency", "replace", False),
    # adjacency "any" covers every run (the old rule refused it: no audit for such theorems)
    ("adjacency", "any", True),
    ("constraint", "bounded", True), ("constraint", "none", False),
    ("loss", "convex", True), ("loss", "lipschitz", True), ("loss", "strongly_convex", False),
    ("loss", "quadratic", False), ("init", "gaussian", False), ("init", "fixed", True),
    ("algorithm", "langevin", False), ("algorithm", "dp_sgd", True), ("algorithm", "noisy_gd", True),
])
def test_each_field_of_the_setting_decides(field, value, covered):
    sim = logistic_ball(d=2, n=20, b=5, T=3, batches="poisson", adjacency="add_remove")
    base = dict(batches="poisson", adjacency="add_remove", constraint="bounded")
    assert applies(_theorem(**{**base, field: value}), sim) is covered


def test_only_upper_bounds_are_audited():
    sim = logistic_ball(d=2, n=20, b=5, T=3, batches="poisson", adjacency="add_remove")
    theorem = _theorem(batches="poisson", adjacency="add_remove", constraint="bounded")
    assert applies(theorem, sim)
    lower = Theorem(id="test/lower", title="lower", source=Source("test", "none"), notion="gdp", kind="lower",
                    bound=theorem.bound, setting=theorem.setting)
    assert not applies(lower, sim)


def test_instances_for_a_theorem_of_any_adjacency_finds_a_scenario():
    theorem = _theorem(batches="shuffle", adjacency="any", constraint="bounded")
    sim = next(iter(instances_for(theorem, {"d": 2, "n": 20, "T": 3})))
    assert sim.name == "logistic_ball(d=2, shuffle, replace)" and applies(theorem, sim)


@pytest.fixture(scope="module")
def small_audit():
    sim = huber_box(d=2, n=20, b=5, T=3)
    return sim, audit(sim, runs=2_000, seed=0)


def _stub(evaluate, notion_name="gdp"):
    """A theorem-shaped record whose bound raises what ``evaluate`` raises."""
    return SimpleNamespace(id="test/stub", parameters=("n", "sigma"), notion_record=notion(notion_name),
                           evaluate=evaluate)


def test_an_assumption_failing_on_the_instance_means_not_applicable(small_audit):
    sim, result = small_audit

    def fails(**params):
        raise InputError("assumption violated: eta*M <= 1", None, "test/stub")

    assert compare_with_theorem(result, _stub(fails), sim.constants()) is None


def test_any_other_error_of_a_theorem_surfaces(small_audit):
    # before: every ValueError meant "does not apply", so a bug in a bound silently skipped its audit
    sim, result = small_audit

    def broken(**params):
        raise ValueError("math domain error")

    with pytest.raises(ValueError, match="math domain error"):
        compare_with_theorem(result, _stub(broken), sim.constants())


@pytest.mark.parametrize("notion_name,at", [("gdp", None), ("eps_delta", [1e-5]), ("fdp", [0.0]),
                                            ("rdp", [1.5, 2.0, 4.0, 8.0, 16.0, 32.0])])
def test_the_comparison_reads_each_notion_at_its_audit_points(small_audit, notion_name, at):
    sim, result = small_audit
    seen = {}

    def record(**params):
        seen.update(params)
        return np.full(np.shape(params.get(notion(notion_name).parameter or "n")), 1e9)

    comparison = compare_with_theorem(result, _stub(record, notion_name), sim.constants())
    assert comparison.ok and comparison.notion == notion_name and comparison.at == at
    lower = {"gdp": result.mu_lower, "eps_delta": result.eps_lower}.get(notion_name)
    if lower is not None:
        assert np.ravel(comparison.lower)[0] == pytest.approx(lower)  # the audit's own numbers
    assert set(seen) == {"n", "sigma"} | ({notion(notion_name).parameter} if at else set())


def test_comparable_is_known_before_simulating_and_agrees_with_the_comparison(small_audit):
    sim, result = small_audit
    constants = sim.constants()

    def anything(**params):
        return np.full(np.shape(params.get("mu", 1.0)), 1e9)

    needs_more = SimpleNamespace(id="test/stub", parameters=("n", "sigma", "clsi"), notion_record=notion("gdp"),
                                 evaluate=anything)
    assert comparable(_stub(anything), constants)
    assert compare_with_theorem(result, _stub(anything), constants) is not None
    assert not comparable(needs_more, constants)  # clsi: a parameter the simulated instance does not define
    assert compare_with_theorem(result, needs_more, constants) is None


@pytest.mark.parametrize("notion_name, relation, known_none", [
    ("gdp", sym.n >= 1000, True),  # fails at the instance's n (20): None at every audit point
    ("gdp", sym.n >= 2, False),
    ("rdp", sym.alpha >= 100, False),  # involves the audited orders: decided when comparing
    ("rdp", sym.T * sym.alpha >= 1e9, False),
])
def test_comparable_decides_assumptions_free_of_the_audit_points(small_audit, notion_name, relation, known_none):
    sim, result = small_audit
    bound = sp.sqrt(sym.T) * sym.Delta / (sym.n * sym.sigma) * (sym.alpha if notion_name == "rdp" else 1)
    theorem = Theorem(id="test/assumed", title="assumed", source=Source("test", "none"), notion=notion_name,
                      kind="upper", bound=bound, setting=Setting(constraint="bounded"),
                      assumptions=(Assumption(relation, "test"),))
    assert comparable(theorem, sim.constants()) is not known_none
    if known_none:
        assert compare_with_theorem(result, theorem, sim.constants()) is None
