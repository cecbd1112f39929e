"""The boundary phase: each inequality assumption made tight from the best points found."""

from __future__ import annotations

import math

from verify.check import references as refs
from verify.check.domain import (
    INTEGER_COORDINATES,
    TIGHT,
    Slack,
    admissible,
    assumption_slacks,
    coordinate_moves,
)
from verify.check.soundness.record import _costly

#: assumption evaluations (the point map and the assumptions' closed forms, no reference) one bisection
#: may spend: the relative slack halves with the bracket, so 60 reach TIGHT from any unit bracket
BISECTIONS = 60


class BoundaryPhase:
    """The boundary phase: each inequality assumption made tight from the best points found (a mixin of
    :class:`~verify.check.soundness.search.Search`)."""

    def boundary(self) -> tuple[str, dict] | None:
        """Make the theorem's assumptions tight, from the best points found so far; stops at the first
        violation (returned).

        From each of the best few points (distinct, by score), every inequality assumption in turn
        (:func:`~verify.check.domain.assumption_slacks`) is made tight by :meth:`_tighten` and the tight
        point is compared (each such comparison is the phase's cost); the walk goes on from a tight
        point that could be compared, so that two assumptions can end up tight together (Chourasia et
        al. 2021, Thm 4 in (eps, delta): exact/bound peaks at m = M and eps = 2 log(1/delta) at once).
        Generic: no assumption is known by name.
        """
        self.record.phase = "boundary"
        slacks = assumption_slacks(self.theorem)
        if not slacks:
            return None
        moves = coordinate_moves(self.coordinates, self.full, self.cyclic)
        coordinates = {id(slack): [k for k in self.coordinates if moves.get(k, frozenset()) & slack.symbols]
                       for slack in slacks}
        left, tried = {False: self.budget.boundary, True: self.budget.costly_boundary}, set()
        for name, start in self._best(self.budget.boundary_starts):
            costly = _costly(self.theorem, refs.families()[name])
            current = start
            for slack in slacks:
                if left[costly] <= 0:
                    break
                moved = self._tighten(current, slack, coordinates[id(slack)])
                if moved is None:
                    continue
                key = self._key(name, moved)
                if key in tried:
                    continue
                tried.add(key)
                left[costly] -= 1
                score, margin = self.evaluate(name, moved)
                if margin is not None:
                    return name, moved
                if score is not None:
                    current = moved
        return None

    def _tighten(self, u: dict, slack: Slack, keys: list[str]) -> dict | None:
        """``u`` moved along the coordinates ``keys`` until the assumption ``slack`` is tight (relative slack
        at most :data:`~verify.check.domain.TIGHT`), staying admissible; None when it does not get tight.

        Along each coordinate, only the ends where the slack is smaller count: an end where the assumption
        fails is bisected to its boundary (an integer coordinate to the last admissible integer); when none
        is reached, the walk moves to the admissible point (an end, or the last admissible point before it)
        where the slack is smallest and tries the coordinates again from there (eps up to its end, then
        delta to eps = 2 log(1/delta)).  Only the point map and the assumptions' closed forms are
        evaluated here, never a reference.
        """
        inside = self._inside(u)
        if inside is None or not keys:
            return None
        current, now = dict(u), slack(inside)
        if not math.isfinite(now) or now <= TIGHT:
            return None  # tight already: the point was compared as it is
        for _ in range(len(keys) + 1):
            walk = None
            for key in keys:
                for end in (0.0, 1.0):
                    if current[key] == end:
                        continue
                    trial = {**current, key: end}
                    params = self._params(trial)
                    value = slack(params) if params is not None else math.nan
                    if not (math.isfinite(value) and value < now * (1 - 1e-6)):
                        continue  # not towards this assumption's boundary
                    if value >= 0 and admissible(self.theorem, params):
                        if value <= TIGHT:
                            return trial
                    else:
                        bracket = self._bisect(current, key, end)
                        if bracket is None:
                            continue
                        trial, beyond = bracket
                        value = slack(self._params(trial))
                        if value <= TIGHT or (key in INTEGER_COORDINATES and slack(self._params(beyond)) < 0):
                            return trial  # tight, or as tight as the integers allow
                    if walk is None or value < walk[0]:
                        walk = (value, trial)
            if walk is None or not walk[0] < now * (1 - 1e-6):
                return None
            now, current = walk
        return None

    def _bisect(self, u: dict, key: str, end: float) -> tuple[dict, dict] | None:
        """(the last admissible point, the first one beyond it) bisecting coordinate ``key`` between ``u``
        (admissible) and ``end`` (not); None when no point between them is admissible at the bisection's
        resolution.  An integer coordinate stops at adjacent draws (the last admissible integer)."""
        inner, outer, moved = u[key], end, False
        start = self._params(u)
        loose = [s for s in assumption_slacks(self.theorem) if not s(start) <= TIGHT]  # those that may get tight
        for _ in range(BISECTIONS):
            middle = 0.5 * (inner + outer)
            if middle in (inner, outer):
                break
            found = self._inside({**u, key: middle})
            if found is not None:
                inner, moved = middle, True
                if any(0 <= s(found) <= TIGHT * 1e-2 for s in loose):
                    break
            else:
                outer = middle
            if key in INTEGER_COORDINATES and abs(outer - inner) < 1e-6:
                break
        return ({**u, key: inner}, {**u, key: outer}) if moved else None
