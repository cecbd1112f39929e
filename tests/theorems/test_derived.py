"""Derived records for shuffled batches (theorems/derived.py), against exact shuffled instances.

References: the exact laws of shuffled runs (``subsampled_linear(batches="shuffle")``: unconstrained linear
losses, a partial epoch allowed; ``linear_chain(batches="shuffle")``; the projected walk
``interval_walk(batches="shuffle")`` through ``grid.evolve_shuffled``), read as GDP by
``verify.privacy.notions.effective_mu``; never the records themselves.
"""

from __future__ import annotations

import dataclasses
import math

import pytest
import sympy as sp

import theorems
import theorems.derived as derived
from verify.instances.families import interval_walk, linear_chain, subsampled_linear
from verify.privacy.notions import effective_mu
from verify.theorem import sym


def _bound(theorem, inst) -> float:
    params = inst.params()
    args = {k: params.get(k, 1.0) for k in theorem.parameters}  # M: a linear loss is smooth for every M
    return float(theorem.evaluate(**args))


def _exact(inst) -> tuple[float, float]:
    """The instance's exact mu and its stated absolute error (the grid's refinement estimate)."""
    profile = inst.profile()
    mu = effective_mu(profile)
    return mu, 4.0 * float(getattr(profile, "error", 0.0) or 0.0) * max(mu, 1.0) + 1e-9


def test_registered_with_shuffled_setting():
    for theorem_id in ("derived/shuffle/composition", "derived/shuffle/window"):
        record = theorems.get(theorem_id)
        assert record.setting.batches == "shuffle" and record.kind == "upper"
        assert "joint" in record.notes and "convex" in record.notes  # the argument is part of the record


SHUFFLED_LINEAR = [
    # (n, b, T, eta, sigma, Delta, offset): partial epochs (T not a multiple of l = n/b) included
    (4, 2, 1, 0.5, 1.0, 1.0, 0.0),
    (4, 2, 3, 0.5, 1.0, 1.0, 0.5),
    (6, 2, 4, 1.0, 0.5, 2.0, 0.0),
    (8, 2, 9, 0.3, 0.4, 1.0, 0.5),
]


@pytest.mark.parametrize("n, b, T, eta, sigma, Delta, offset", SHUFFLED_LINEAR)
def test_composition_holds_on_shuffled_linear_runs(n, b, T, eta, sigma, Delta, offset):
    inst = subsampled_linear(n, eta, sigma, T, Delta, b, batches="shuffle", offset=offset * Delta, cells=4096)
    mu, error = _exact(inst)
    assert mu - error <= _bound(derived.SHUFFLE_COMPOSITION, inst)


def test_composition_on_whole_epochs_matches_the_linear_chain_closed_form():
    # linear losses, whole epochs: the record is used E = T/l times whatever the order, noise eta sigma sqrt(T):
    # exact mu = E Delta/(b sigma sqrt(T)) (linear_chain docstring), below sqrt(E) Delta/(b sigma)
    n, b, T, eta, sigma, Delta = 6, 2, 6, 0.5, 1.0, 1.0
    inst = linear_chain(n, eta, sigma, T, Delta, batches="shuffle", b=b)
    E = T // (n // b)
    assert effective_mu(inst.profile()) == pytest.approx(E * Delta / (b * sigma * math.sqrt(T)), rel=1e-9)
    assert _bound(derived.SHUFFLE_COMPOSITION, inst) == pytest.approx(math.sqrt(E) * Delta / (b * sigma))


@pytest.mark.parametrize("n, b, T, eta, sigma, Delta, D", [
    (4, 2, 6, 1.0, 0.5, 2.0, 0.5),
    (6, 2, 6, 0.5, 1.0, 1.0, 1.0),
    (4, 2, 8, 1.0, 0.3, 1.0, 0.3),
])
def test_window_holds_on_shuffled_projected_walks(n, b, T, eta, sigma, Delta, D):
    inst = interval_walk(n, eta, sigma, T, Delta, D, batches="shuffle", b=b, cells=512)
    mu, error = _exact(inst)
    for theorem in (derived.SHUFFLE_WINDOW, derived.SHUFFLE_COMPOSITION):
        assert mu - error <= _bound(theorem, inst), theorem.id


def test_best_position_instead_of_worst_is_violated():
    """The wrong derivation: the record at its best position of the partial epoch (never used there), i.e.
    floor(T/l) uses instead of ceil(T/l).  One step with l = 2: the record is used with probability 1/2,
    so the exact mu is positive, while the wrong bound is 0."""
    wrong = dataclasses.replace(derived.SHUFFLE_COMPOSITION, id="wrong/shuffle/best-position",
                                bound=sp.sqrt(sp.floor(sym.T / sym.l)) * derived.MU_B, claims=())
    inst = subsampled_linear(4, 0.5, 1.0, 1, 1.0, 2, batches="shuffle", cells=4096)
    mu, error = _exact(inst)
    assert mu - error > _bound(wrong, inst) + 0.1  # violated by a wide margin
    assert mu - error <= _bound(derived.SHUFFLE_COMPOSITION, inst)  # the worst position holds


def test_the_engine_refutes_the_best_position_on_the_kept_partial_epoch():
    """The same wrong record through the verifier's obligations (``verify.testing.check``): the record's kept
    partial-epoch instance refutes it, with a replayable counterexample; the record itself is not refuted."""
    from verify.testing import check

    wrong = dataclasses.replace(derived.SHUFFLE_COMPOSITION, id="wrong/shuffle/best-position",
                                bound=sp.sqrt(sp.floor(sym.T / sym.l)) * derived.MU_B, claims=())
    verdict = check(wrong, max_examples=1)
    assert verdict.verdict == "violated"
    assert verdict.counterexample.family == "subsampled_linear" and verdict.counterexample.bound == 0.0
