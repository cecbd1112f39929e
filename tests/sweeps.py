"""Sweeps: one property checked over many settings (every theorem of a kind, every family, every worker
count).  The suite runs a representative subset, chosen to cover every code path, regime and kind (each
test's docstring says which); ``python benchmarks/bench_sweeps.py`` runs the same tests over every setting
(``VERIFY_FULL_SWEEPS=1``), so that nothing checked before is lost, only moved out of the default run.

    @pytest.mark.sweep
    @pytest.mark.parametrize("theorem_id", sweep(ALL_IDS, keep=REPRESENTATIVE))
    def test_...(theorem_id): ...
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence

#: set by benchmarks/bench_sweeps.py: every setting of every sweep
FULL = os.environ.get("VERIFY_FULL_SWEEPS") == "1"


def sweep(cases: Iterable, keep: Sequence | Callable[[object], bool]) -> list:
    """The parameters of a sweep test: all of ``cases`` under ``VERIFY_FULL_SWEEPS=1``, else those kept
    (``keep``: the kept cases themselves, each of which must be one of ``cases``, or a predicate)."""
    cases = list(cases)
    if FULL:
        return cases
    if callable(keep):
        return [c for c in cases if keep(c)]
    missing = [k for k in keep if k not in cases]
    if missing:
        raise ValueError(f"kept cases not in the sweep: {missing}")
    return [c for c in cases if c in keep]
