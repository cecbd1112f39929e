"""Numeric obligations against exact references: soundness, tightness, exactness on claimed families.

The soundness search draws points in the theorem's own coordinates (:func:`verify.check.domain.search_point`:
per-step mu, eta*M, m/M, D/(eta sigma), l, b, E, T and the notion parameters, on scales that reach the
regimes where errors live), and runs in five phases, each counted in the evidence's budget:

1. ``replayed``: the record's kept instances (``examples`` naming a ``family``);
2. ``corners``: a deterministic list always tried (T = 1, T at the bound's saturation point and +-1,
   l in {1, 2, 3}, eta*M near 2, near 2/(1 + m/M) and small, m -> 0, m = M (also at mu_step = 2: the
   strongest contraction, tried by costly families too), q = 1, large mu, each searched family keyword at
   its ends), with every candidate family;
3. ``random``: hypothesis draws, steered by ``target()`` towards the largest exact/bound (upper) or
   bound/exact (lower); a failure is shrunk by hypothesis;
4. ``boundary``: from the best points found so far, each inequality assumption made tight in turn, by
   bisecting one unit coordinate that moves it (:meth:`Search.boundary`): a bound's worst case often lies
   on an assumption's boundary, which random draws never hit;
5. ``guided``: a local optimiser (Nelder-Mead on the unit coordinates, integers rounded, clamped to
   [0, 1]) started from the best points found, so that the reported tightness is a supremum estimate.

Work units (:func:`plan`, :func:`run_block`, :func:`finish`): the first three phases are cut into blocks
fixed before anything is evaluated (the replay; the corners of each family, with its round-robin share of
the corner budget; the random draws in ``Budget.random_blocks`` hypothesis runs, the k-th seeded from
(seed, k)), which any process may run in any order; :func:`merge` puts their records together in block
order, and the boundary and guided phases then start from the best points of every block.  A violation in
a block ends the search there: the blocks after it are left out of the merge (run or not).
:func:`soundness` is the same thing in one process.

A violation is declared only with a certified margin (:func:`verify.check.certify.violation_margin`).  The
obligation reports the shrunk counterexample and the largest-margin one.
Each compared instance is filed into regime cells (:func:`cells`), reported as coverage.

A drawn instance whose exact reference refuses to be built there (an :class:`InputError`, e.g. a
privacy-loss distribution too large for the memory budget, or a floating-point failure), or whose bound
refuses to be evaluated, is no evidence either way: it is skipped and counted (``Record.skipped``),
never fatal; so is an instance whose exact value is not finite ("non-finite exact").  The obligation's
detail says how many were skipped and why.

A theorem stated up to a constant (``Theorem.up_to_constant``) is never failed: the search maximises
exact/bound and reports the smallest constant consistent with the exact values (status ``approximate``).

The package: :mod:`.record` (what a search saw, one comparison), :mod:`.candidates` (the families that apply, the
grid horizon), :mod:`.regimes` (saturation points, coverage cells), :mod:`.axes` (the structural axes a theorem's
assumption class admits), the phases :mod:`.corners`, :mod:`.random_phase`, :mod:`.boundary` and :mod:`.guided`
(mixins of :class:`.search.Search`), :mod:`.obligations` (soundness, tightness, exactness from a record) and
:mod:`.blocks` (plan, run, merge, finish; :func:`soundness` in one process).
"""

from verify.check.soundness import axes  # noqa: F401
from verify.check.soundness.blocks import (  # noqa: F401
    BLOCK_DRAWS,
    Block,
    Plan,
    _random_counts,
    block_seed,
    corner_points,
    costly_plan,
    finish,
    merge,
    plan,
    run_block,
    soundness,
)
from verify.check.soundness.boundary import BISECTIONS, BoundaryPhase  # noqa: F401
from verify.check.soundness.candidates import (  # noqa: F401
    _CANDIDATES,
    GRID_HORIZON,
    _flags,
    _probe_families,
    admits_on,
    candidate_families,
    params_on,
    refusals,
    short_point,
)
from verify.check.soundness.corners import (  # noqa: F401
    FEASIBLE_EVALUATIONS,
    LARGE_MU,
    ONE_BATCH,
    TWO_BATCHES,
    CornerPhase,
)
from verify.check.soundness.guided import GuidedPhase  # noqa: F401
from verify.check.soundness.obligations import (  # noqa: F401
    _constant_witness,
    _evidence_gap,
    _ill_formed,
    _tightness,
    exact_family,
    replay_examples,
    soundness_verdict,
)
from verify.check.soundness.random_phase import (  # noqa: F401
    HOPELESS,
    RandomPhase,
    _history_free_generation,
    _Hopeless,
)
from verify.check.soundness.record import (  # noqa: F401
    PHASES,
    POINT_FAILURES,
    Budget,
    Record,
    _claimed_families,
    _comparable,
    _costly,
    _refutes,
    _relation,
    _replay_line,
    _score,
    _witness,
    bound_ratio,
    compare,
    refute_only,
    theorem_parameters,
    violates,
    violation_margin,
)
from verify.check.soundness.regimes import (  # noqa: F401
    _compiled_saturations,
    _saturations,
    cells,
    saturation,
)
from verify.check.soundness.search import Search  # noqa: F401

__all__ = ["BISECTIONS", "BLOCK_DRAWS", "Block", "BoundaryPhase", "Budget", "CornerPhase", "FEASIBLE_EVALUATIONS",
           "GRID_HORIZON", "GuidedPhase", "HOPELESS", "LARGE_MU", "ONE_BATCH", "PHASES", "POINT_FAILURES", "Plan",
           "RandomPhase", "Record", "Search", "TWO_BATCHES", "admits_on", "block_seed", "bound_ratio",
           "candidate_families", "cells", "compare", "corner_points", "costly_plan", "exact_family", "finish", "merge",
           "params_on", "plan", "refusals", "refute_only", "replay_examples", "run_block", "saturation", "short_point",
           "soundness", "soundness_verdict", "theorem_parameters", "violates", "violation_margin"]
