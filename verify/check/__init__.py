"""Obligations, verdicts, hypothesis strategies and counterexample shrinking (docs/verdicts.md)."""

from verify.check.engine import EFFORTS, Effort, check_all, check_theorem, compare_baseline, search_effort, summary
from verify.check.verdict import Obligation, Verdict

__all__ = ["EFFORTS", "Effort", "Obligation", "Verdict", "check_all", "check_theorem", "compare_baseline",
           "search_effort", "summary"]
