"""Benchmark of the soundness search's boundary phase: what it costs.

Every registry theorem is checked in-process (``check_all``, quick profile unless ``--profile``, seed 0,
one process), then the mutation self-test is made from those verdicts in the same process (not through
``self_test``'s worker pool, whose CPU this process would not see).  CPU seconds (``time.process_time``)
spent inside ``Search.boundary`` (its bisections and its reference evaluations) are counted against
each part's total, so the ratio is measured in one run.  Reported: the totals, the phase's share, its
reference evaluations (the evidence budgets' ``boundary`` entries) and the mutation score with its
survivors.  No assertions.

    python benchmarks/bench_boundary.py [--profile quick] [--no-mutation]
"""

from __future__ import annotations

import argparse
import time

import theorems
from verify.check import mutation
from verify.check import soundness as soundness_module
from verify.check.engine import check_all, search_effort
from verify.check.evidence import SoundnessChecked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--no-mutation", action="store_true")
    args = parser.parse_args()

    spent = {"boundary": 0.0, "calls": 0}
    original = soundness_module.Search.boundary

    def timed(self):
        start = time.process_time()
        try:
            return original(self)
        finally:
            spent["boundary"] += time.process_time() - start
            spent["calls"] += 1

    soundness_module.Search.boundary = timed
    effort = search_effort(args.profile)
    start = time.process_time()
    verdicts = check_all(theorems.all(), theorems.get, effort, seed=0)
    checks = time.process_time() - start
    checks_boundary = spent["boundary"]
    evaluations = sum(o.data.budget.get("boundary", 0) for v in verdicts for o in v.obligations
                      if isinstance(o.data, SoundnessChecked) and o.data.budget)
    print(f"checks ({args.profile}, {len(verdicts)} theorems): {checks:.1f} CPU s, of which boundary phase "
          f"{checks_boundary:.2f} s ({checks_boundary / checks:.1%}) in {spent['calls']} searches, "
          f"{evaluations} reference evaluations")
    if not args.no_mutation:
        spent["boundary"] = 0.0
        start = time.process_time()
        # in this process (self_test would hand the theorems to worker processes, outside this timing)
        chosen = [v for v in verdicts if mutation.mutable(theorems.get(v.id), v, args.profile)]
        results = [mutation.mutate(theorems.get(v.id), mutation.worst_witness(v), v.max_ratio, effort, 0,
                                   mutation.SEARCHES.get(args.profile)) for v in chosen]
        score = mutation.MutationScore(args.profile, mutation.scope(args.profile), tuple(results))
        mutating = time.process_time() - start
        print(f"mutation self-test: {mutating:.1f} CPU s, of which boundary phase {spent['boundary']:.2f} s "
              f"({spent['boundary'] / mutating:.1%})")
        print(score.line())
        for line in score.survivor_lines():
            print("  survivor:", line)
    soundness_module.Search.boundary = original


if __name__ == "__main__":
    main()
