"""Setting.covers, the one applicability rule: one test per field, and its edge cases."""

import dataclasses

import pytest

from verify.setting import LOSS_IMPLIES, Setting, loss_classes

RUN = Setting(algorithm="noisy_gd", batches="cyclic", loss="quadratic", constraint="none",
              adjacency="replace", init="fixed", release="last")


def test_identical_settings_cover():
    assert RUN.covers(RUN) is None


@pytest.mark.parametrize("field, theorem_value, run_value, covered", [
    ("algorithm", "any", "langevin", True),
    ("algorithm", "noisy_gd", "langevin", False),
    ("algorithm", "noisy_gd", "dp_sgd", True),  # DP-SGD is the canonical iteration on clipped gradients
    ("algorithm", "dp_sgd", "noisy_gd", False),  # ... but not conversely (no clipping norm)
    ("batches", "any", "poisson", True),
    ("batches", "cyclic", "poisson", False),
    ("batches", "full", "cyclic", False),
    ("constraint", "any", "bounded", True),
    ("constraint", "none", "bounded", False),
    ("constraint", "bounded", "none", False),
    ("constraint", "bounded", "bounded", True),
    ("adjacency", "any", "add_remove", True),
    ("adjacency", "replace", "add_remove", False),
    ("adjacency", "add_remove", "replace", False),
    ("init", "any", "gaussian", True),
    ("init", "fixed", "gaussian", False),
    ("init", "gaussian", "gaussian", True),
    ("release", "all", "last", True),
    ("release", "last", "all", False),
])
def test_each_field(field, theorem_value, run_value, covered):
    theorem = dataclasses.replace(RUN, **{field: theorem_value})
    run = dataclasses.replace(RUN, **{field: run_value})
    reason = theorem.covers(run)
    assert (reason is None) is covered, reason
    if not covered:
        assert isinstance(reason, str) and reason


@pytest.mark.parametrize("theorem_loss, run_loss, covered", [
    ("any", "logistic", True),
    ("convex", "quadratic", True),
    ("convex", "linear", True),
    ("convex", "huber", True),
    ("strongly_convex", "quadratic", False),  # a quadratic with m = 0 is not strongly convex
    ("strongly_convex", "squared", True),
    ("quadratic", "linear", False),
    ("lipschitz", "linear", True),
    ("lipschitz", "quadratic", False),  # unbounded gradients on an unconstrained domain
    ("linear", "linear", True),
])
def test_loss_classes_by_name(theorem_loss, run_loss, covered):
    theorem = dataclasses.replace(RUN, loss=theorem_loss)
    run = dataclasses.replace(RUN, loss=run_loss)
    assert (theorem.covers(run) is None) is covered


def test_instance_classes_override_the_name():
    """An instance knows more than its loss's name: a quadratic with m > 0 is strongly convex."""
    theorem = dataclasses.replace(RUN, loss="strongly_convex")
    assert theorem.covers(RUN) is not None
    assert theorem.covers(RUN, classes=loss_classes("quadratic") | {"strongly_convex"}) is None


def test_one_step_releases_only_its_last_iterate():
    theorem = dataclasses.replace(RUN, release="last")
    run = dataclasses.replace(RUN, release="all")
    assert theorem.covers(run, steps=1) is None
    assert theorem.covers(run, steps=2) is not None
    assert theorem.covers(run) is not None  # unknown length: not covered


def test_loss_closure_is_transitive():
    for name, implied in LOSS_IMPLIES.items():
        for other in implied:
            assert LOSS_IMPLIES[other] <= implied, (name, other)


def test_bad_values_are_refused():
    with pytest.raises(ValueError, match="Setting.batches"):
        Setting(batches="sometimes")
    with pytest.raises(ValueError, match="unknown loss class"):
        loss_classes("concave")


@pytest.mark.parametrize("theorem_release, run_release, steps, sufficient, refute_only", [
    ("all", "last", 2, False, True),  # a post-processing of what the theorem bounds: a lower bound of it
    ("all", "last", None, False, True),  # unknown length: no evidence either
    ("all", "last", 1, False, False),  # one step releases only its last iterate
    ("all", "last", 10, True, False),  # the last iterate is a sufficient statistic of all of them
    ("all", "all", 10, False, False),
    ("last", "last", 10, False, False),
])
def test_a_last_iterate_is_only_a_lower_bound_of_every_iterate(theorem_release, run_release, steps, sufficient,
                                                               refute_only):
    theorem = dataclasses.replace(RUN, release=theorem_release)
    run = dataclasses.replace(RUN, release=run_release)
    assert theorem.covers(run, steps=steps) is None  # covered (the bound applies to the run) ...
    reason = theorem.refute_only(run, steps=steps, sufficient=sufficient)  # ... but is it evidence?
    assert (reason is not None) is refute_only
    if refute_only:
        assert "every iterate" in reason


def test_each_claimed_adjacency_is_named_and_any_compares_both():
    assert dataclasses.replace(RUN, adjacency="any").adjacencies() == ("replace", "add_remove")
    assert dataclasses.replace(RUN, adjacency="add_remove").adjacencies() == ("add_remove",)
    assert set(dataclasses.replace(RUN, adjacency="any").adjacencies()) == {"replace", "add_remove"}
    assert set(RUN.adjacencies()) == {"replace"}
