"""Every confirmed erratum re-found without help: the kept instances of every "as printed" record removed, the
quick budget and seed 0, the engine's own checks (search, scaling, claims) must still reach the violation.
(An erratum detected by a proof step keeps no instance: its check is the step's own draws, tested in
test_steps.py.)"""

from __future__ import annotations

import dataclasses

import pytest

import theorems
from tests.sweeps import sweep
from verify.check.engine import check_theorem, search_effort

VARIANTS = sorted({e.variant for t in theorems.all() for e in t.errata if e.variant})


def test_every_erratum_variant_is_a_registered_record():
    assert VARIANTS and all(theorems.get(v).id == v for v in VARIANTS)
    assert set(SWEEP_ONLY) < set(VARIANTS)


#: re-found by the same soundness search on the same kind of record (Altschuler and Talwar's RDP bounds under
#: uniform batches, as altschuler2022/eq5.3, eq1.1/sgm and b.3/first-order in the suite), a second or two each:
#: in the full sweep (benchmarks/bench_sweeps.py)
SWEEP_ONLY = ("altschuler2022/b.2", "altschuler2022/b.3", "altschuler2022/ex5.8/constant-1")


@pytest.mark.sweep
@pytest.mark.parametrize("variant", sweep(VARIANTS, keep=lambda v: v not in SWEEP_ONLY))
def test_the_erratum_is_refound_without_its_kept_instances(variant):
    """Kept in the suite: every paper's errata and every way one is re-found (the search alone, the scaling
    check alone, a claim, the search and the scaling check together), upper, lower and approximation records;
    the sweep adds three more of Altschuler and Talwar's re-found by the search (SWEEP_ONLY)."""
    literal = theorems.get(variant)
    bare = dataclasses.replace(literal, examples=tuple(e for e in literal.examples if "family" not in e))
    verdict = check_theorem(bare, theorems.get, search_effort("quick"), seed=0)
    assert verdict.verdict == "violated", verdict.reason
    failed = {o.name for o in verdict.obligations if o.status == "failed"}
    assert failed & {"soundness", "scaling", "claims"}, failed
