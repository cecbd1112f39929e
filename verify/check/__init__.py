"""Obligations, verdicts, hypothesis strategies and counterexample shrinking (DESIGN.md §5)."""

from verify.check.engine import PROFILES, Profile, check_all, check_theorem, compare_baseline, profile, summary
from verify.check.verdict import Obligation, Verdict

__all__ = ["PROFILES", "Profile", "Obligation", "Verdict", "check_all", "check_theorem", "compare_baseline",
           "profile", "summary"]
