"""The random phase: hypothesis draws of the unit coordinates that can change a comparison."""

from __future__ import annotations

import contextlib
import math
import warnings

import numpy as np
from hypothesis import HealthCheck, Phase, given, reject, settings, target
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from hypothesis.internal.conjecture import providers

from verify.check import references as refs
from verify.check.domain import corner_base, drawn_coordinates, search_strategy

#: rejected draws in a row, before any draw was compared, after which a random run stops: then one in 20
#: draws is admissible with confidence under 1% (0.95^90); hypothesis' own rule waits for 459 (a 1% rate)
HOPELESS = 90


class _Hopeless(BaseException):
    """Ends a random run from inside its test: a BaseException, so hypothesis neither catches nor shrinks it."""


@contextlib.contextmanager
def _history_free_generation():
    """Make hypothesis' choices depend on the seed only.

    Hypothesis also draws literal constants found in every local module loaded so far, so the same seed
    would give other instances after other theorems were checked in the same process (seen: different
    verdict ratios for ``verify run --workers 1`` and ``--workers 2``).  The engine's verdicts must not
    depend on that history, so the constant pool is emptied while a search runs.  (Private hook of
    hypothesis; a version without it has no such pool, and generation is left as it is.)
    """
    original = getattr(providers, "_get_local_constants", None)
    if original is None or not hasattr(providers, "Constants"):  # pragma: no cover
        yield
        return
    empty = providers.Constants()
    providers._get_local_constants = lambda: empty
    providers.CONSTANTS_CACHE.cache.clear()
    try:
        yield
    finally:
        providers._get_local_constants = original
        providers.CONSTANTS_CACHE.cache.clear()


class RandomPhase:
    """The random phase: hypothesis draws of the unit coordinates that can change a comparison (a mixin of
    :class:`~verify.check.soundness.search.Search`)."""

    def drawn(self) -> tuple[str, ...]:
        """The unit coordinates the random phase draws: those that move a quantity the theorem, one of its
        families' builders or their searched keywords' draws (``draw.reads``,
        :func:`~verify.instances.registry.reads`) read (:func:`~verify.check.domain.drawn_coordinates`);
        every coordinate when a draw does not say what it reads."""
        read = set(self.theorem.parameters) | refs.POINT_READS
        for name in self.names:
            family = refs.families()[name]
            read |= set(refs.keywords(family))
            for draw in (getattr(family, "searched", None) or {}).values():
                if getattr(draw, "reads", None) is None:
                    return self.coordinates
                read |= draw.reads
        return drawn_coordinates(self.coordinates, read, self.full, self.cyclic)

    def random(self, examples: int, seed: int, database, first: bool = True) -> None:
        """Hypothesis draws steered by ``target``; a violation is shrunk by hypothesis.  Not the ``first``
        run of a search: hypothesis' first draw, its simplest example (the same in every run, whatever the
        seed), is skipped, as the first run compared it.  Only the coordinates that can change a comparison
        are drawn (:meth:`drawn`; the others stay at their corner base).  A run stops early, as unsatisfiable,
        once :data:`HOPELESS` draws in a row were rejected before any was compared."""
        self.record.phase = "random"
        drawn, base = self.drawn(), corner_base(self.coordinates)
        strategy = st.tuples(st.sampled_from(self.names), search_strategy(drawn))
        skip, rejected, compared = [not first], [0], [0]

        @settings(max_examples=examples, deadline=None, database=database, derandomize=False,
                  suppress_health_check=list(HealthCheck),
                  phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
                  report_multiple_bugs=False)
        @hypothesis_seed(seed)
        @given(strategy)
        def prop(args):
            if skip[0]:
                skip[0] = False
                reject()
            name, values = args
            score, margin = self.evaluate(name, {**base, **dict(zip(drawn, values))})
            if score is None:
                rejected[0] += 1
                if not compared[0] and rejected[0] >= HOPELESS:
                    raise _Hopeless
                reject()
            compared[0] += 1
            target(float(np.clip(score, -1e300, 1e300)) if not math.isnan(score) else 0.0, label="ratio")
            if margin is not None:
                raise AssertionError(f"violation with relative margin {margin!r}")

        try:
            with _history_free_generation(), warnings.catch_warnings():
                # on a Dask worker, the worker's own threads draw from the global ``random`` while hypothesis
                # generates: it warns that a strategy used ``random``; none does (the draws depend on the seed
                # only: byte-identical JSON for any cluster), so the warning says nothing here
                warnings.filterwarnings("ignore", message="Do not use the `random` module inside strategies")
                prop()
        except (Unsatisfiable, AssertionError, _Hopeless):
            pass  # no admissible instance, or the failure hypothesis shrank: both are in ``record``
