"""The audit obligation (verify.check.audit): a valid bound passes, a too small one fails with a
counterexample, a lower bound is not audited; and its evidence survives the JSON round trip."""

from __future__ import annotations

import sympy as sp

import theorems
from verify.check.audit import audit_obligation
from verify.check.evidence import AuditCounterexample, AuditEvidence
from verify.check.verdict import Obligation
from verify.theorem import Setting, Source, Theorem, sym


def test_audit_obligation_passes_a_valid_theorem_and_fails_a_too_small_one():
    passed = audit_obligation(theorems.get("bok2024/thm4.1"), runs=20_000, seed=0)
    assert passed is not None and passed.name == "audit" and passed.status == "passed"
    assert passed.data.bound >= passed.data.lower > 0
    # Bok et al. Thm 4.1 bound divided by 10: invalid, and the audit must say so
    small = Theorem(id="test/thm4.1-over-10", title="too small", source=Source("test", "none"), notion="gdp",
                    kind="upper", bound=sp.sqrt(sym.T) * sym.Delta / (10 * sym.n * sym.sigma),
                    setting=Setting(batches="full", adjacency="replace", constraint="any"))
    failed = audit_obligation(small, runs=20_000, seed=0)
    assert failed is not None and failed.status == "failed" and failed.counterexample.lower > failed.data.bound
    lower = Theorem(id="test/lower", title="a lower bound", source=Source("test", "none"), notion="gdp",
                    kind="lower", bound=sym.Delta / (sym.n * sym.sigma))
    assert audit_obligation(lower, runs=1000) is None


def test_audit_evidence_round_trips_through_json():
    passed = audit_obligation(theorems.get("bok2024/thm4.1"), runs=2_000, seed=0)
    assert isinstance(passed.data, AuditEvidence)
    back = Obligation.from_json(passed.to_json())
    assert back.data == passed.data
    assert AuditCounterexample.from_json(passed.data.counterexample().to_json()) == passed.data.counterexample()
