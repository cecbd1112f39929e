"""Every confirmed erratum re-found without help: the kept instances of every "as printed" record removed, the
quick budget and seed 0, the engine's own checks (search, scaling, claims) must still reach the violation.
(An erratum detected by a proof step keeps no instance: its check is the step's own draws, tested in
test_steps.py.)"""

from __future__ import annotations

import dataclasses

import pytest

import theorems
from verify.check.engine import check_theorem, search_effort

VARIANTS = sorted({e.variant for t in theorems.all() for e in t.errata if e.variant})


def test_every_erratum_variant_is_a_registered_record():
    assert VARIANTS and all(theorems.get(v).id == v for v in VARIANTS)


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_erratum_is_refound_without_its_kept_instances(variant):
    literal = theorems.get(variant)
    bare = dataclasses.replace(literal, examples=tuple(e for e in literal.examples if "family" not in e))
    verdict = check_theorem(bare, theorems.get, search_effort("quick"), seed=0)
    assert verdict.verdict == "violated", verdict.reason
    failed = {o.name for o in verdict.obligations if o.status == "failed"}
    assert failed & {"soundness", "scaling", "claims"}, failed
