"""Counterexamples the soundness search finds on its own: the records' kept instances removed,
the quick budget, the engine's own search must come back violated with a certified margin.

Altschuler & Talwar 2022, Thm 5.1, (5.3) as printed (``altschuler2022/eq5.3``): the search's
strong-contraction corner (m = M, mu_step = 2) refutes it.  The exact value is re-computed here on a grid
four times finer than the search's (an independent resolution of the same density evolution), and the
bound is evaluated from the record, not read off the witness.
"""

from __future__ import annotations

import dataclasses

import pytest

from theorems import get
from verify.check import references as refs
from verify.check.engine import for_theorem, search_effort
from verify.check.soundness import soundness


def test_eq53_as_printed_is_refuted_by_the_search_alone():
    literal = dataclasses.replace(get("altschuler2022/eq5.3"), examples=())
    assert not any("family" in e for e in literal.examples)
    own = for_theorem(search_effort("quick"), literal)
    sound, _ = soundness(literal, own.examples, seed=0, budget=own.budget())
    assert sound.status == "failed", sound.detail
    assert sound.data.margin > 0.1  # certified (certify.violation_margin), and not a near-tie
    w = sound.counterexample
    assert w.parameters["m"] == w.parameters["M"]
    fine = refs.build_from(refs.families()[w.family], {**w.build, "cells": 2048})
    exact = float(fine.profile().renyi(w.at, "backward"))
    params = {p: w.parameters[p] for p in literal.parameters if p != "alpha"}
    bound = float(literal.evaluate(alpha=w.at, **params))
    assert exact == pytest.approx(w.exact, rel=1e-3)
    assert exact > 1.5 * bound
    # the corrected reading holds there
    both = get("altschuler2022/eq5.3/both-directions")
    assert exact <= float(both.evaluate(alpha=w.at, **{p: w.parameters[p] for p in both.parameters if p != "alpha"}))
