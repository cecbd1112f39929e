"""The corner phase: a deterministic list of corners, the entry into a theorem's region, the structural
cases."""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize

from verify.check import references as refs
from verify.check.domain import (
    OVERSHOOT,
    STRONG_CONTRACTION,
    STRUCTURE,
    admissible,
    assumption_slacks,
    coordinate_moves,
    corner_units,
    l_unit,
    searched_corners,
    with_steps,
)
from verify.check.soundness.candidates import GRID_HORIZON, admits_on, params_on
from verify.check.soundness.record import _costly
from verify.check.soundness.regimes import saturation
from verify.theorem import Theorem

ONE_BATCH, TWO_BATCHES = l_unit(1), l_unit(2)  # the unit draws of l = 1 and l = 2


LARGE_MU = 0.8  # the unit draw of mu_step = 5


#: assumption evaluations (the point map and the assumptions, no reference) a feasibility search may spend to find
#: a theorem's region when every base corner lies outside it (:meth:`Search._feasible`)
FEASIBLE_EVALUATIONS = 600

#: points inside a region far from every corner (:meth:`CornerPhase._interior`), and the assumption evaluations
#: spent finding them
INTERIOR_POINTS, INTERIOR_TRIES = 4, 200

#: uniform draws that find no admissible point when a theorem's region is too small for the random phase
RARE_DRAWS = 64


#: the corners :meth:`CornerPhase.family_corners` listed, by theorem (its identity), family and search: a pure
#: function of those (the theorem's assumptions and bound, the family's builds, seeded walks)
_CORNERS: dict[tuple, tuple[Theorem, list[dict]]] = {}


class CornerPhase:
    """The corner phase: a deterministic list of corners, the entry into a theorem's region, the structural
    cases (a mixin of :class:`~verify.check.soundness.search.Search`)."""

    def corner_shares(self) -> dict[str, int]:
        """How many corners each family gets of the corner budget, fixed before any is evaluated: round
        robin (with many families, each gets its most telling corners first)."""
        lengths = {name: len(self.family_corners(name)) for name in self.names}
        shares, left = dict.fromkeys(self.names, 0), self.budget.corners
        for i in range(max(lengths.values(), default=0)):
            for name in self.names:
                if i < lengths[name] and left > 0:
                    shares[name] += 1
                    left -= 1
        return shares

    def family_corners(self, name: str) -> list[dict]:
        """The corners tried on family ``name`` in order (a costly family: the first few).  Listed once per process
        for a theorem and family (:data:`_CORNERS`): the plan counts them, each block walks them."""
        family = refs.families()[name]
        key = (id(self.theorem), name, id(family), tuple(self.coordinates), self.full, self.cyclic,
               self.budget.costly_corners)
        kept = _CORNERS.get(key)
        if kept is not None and kept[0] is self.theorem:
            return kept[1]
        listed = self._costly_corners(family) if _costly(self.theorem, family) else self.corner_list()
        if len(_CORNERS) >= 4096:
            _CORNERS.clear()
        _CORNERS[key] = (self.theorem, listed)  # the record kept with them: its id is not reused meanwhile
        return listed

    def corners(self, name: str, count: int) -> tuple[str, dict] | None:
        """The first ``count`` corners of family ``name``; the first violation, if any."""
        self.record.phase = "corners"
        single = None  # whether q = 1 (l = 1) is admissible there: learnt from the first try
        found = None
        for u in self.family_corners(name)[:count]:
            if single is False and u["l"] == ONE_BATCH:
                u = {**u, "l": TWO_BATCHES}
            score, margin = self.evaluate(name, u)
            if u["l"] == ONE_BATCH and single is None:
                if score is None:  # e.g. subsampling theorems assume b < n: try l = 2 instead
                    score, margin = self.evaluate(name, u := {**u, "l": TWO_BATCHES})
                    single = False if score is not None else None
                else:
                    single = True
            if margin is not None and found is None:
                found = (name, u)
        return found

    def _costly_corners(self, family) -> list[dict]:
        """A family with a costly reference: the first corners, the strong-contraction and overshooting corners
        (:data:`~verify.check.domain.STRONG_CONTRACTION`, :data:`~verify.check.domain.OVERSHOOT`), two saturation
        corners, the entry into the theorem's region (and, when the region is too small for the random phase, a
        few points inside it with the searched keywords' ends there) and its own searched keywords' ends (at the
        base corner)."""
        every = corner_units(self.coordinates)
        units = [u for u in every if u["mu"] < LARGE_MU or u["T"] == u["E"] == 0.0]
        units = units[:self.budget.costly_corners]  # a large mu over many steps: the costliest composition
        extras = (STRONG_CONTRACTION, OVERSHOOT) + (STRUCTURE if self.cyclic else ())
        units += [u for u in every if any(all(u.get(k, v) == v for k, v in extra.items()) for extra in extras)
                  and u not in units]
        units += self._saturation_corners(units[:1])[:2]
        entries, far = self._entry_corners(every[:4], family)
        searched = tuple(getattr(family, "searched", {}) or {})
        rare = far and self._rare(family)  # the random phase will not get there either
        interior = self._interior(entries, family, searched) if rare else []
        inside = self._structure_from(entries) + interior + (self._searched_from(entries[:1] + interior, searched)
                                                             if rare else [])
        units += [u for u in entries + inside if u not in units]
        return units + searched_corners(self.coordinates, searched)[::2]

    def corner_list(self) -> list[dict]:
        """The corners' unit coordinates: :func:`~verify.check.domain.corner_units`, then the bound's
        saturation point and +-1 from a few of them."""
        units = corner_units(self.coordinates)
        saturated = self._saturation_corners(units[:4] + units[8:10])
        entries, _ = self._entry_corners(units[:4])  # only when the first corners lie outside the region: first then
        return entries + self._structure_from(entries) + units[:2] + saturated[:3] + units[2:] + saturated[3:]

    def _structure_from(self, entries: list[dict]) -> list[dict]:
        """The structural corners (:data:`~verify.check.domain.STRUCTURE`, cyclic and shuffled batches) moved onto
        the first entry point: when the base corner lies outside a theorem's region (one pass, b = 1), the
        structural cases are tried inside it."""
        if not entries or not self.cyclic:
            return []
        return [{**entries[0], **{k: v for k, v in corner.items() if k in entries[0]}} for corner in STRUCTURE]

    def _searched_from(self, points: list[dict], searched: tuple[str, ...]) -> list[dict]:
        """The family's searched keywords' ends (``u_<name>`` at 1 and 0) moved onto each of ``points`` (inside
        the region): a release or an event the base corner cannot reach, tried where the theorem applies."""
        return [{**u, f"u_{name}": value} for u in points for name in searched if f"u_{name}" in u
                for value in (1.0, 0.0) if u[f"u_{name}"] != value]

    def _rare(self, family) -> bool:
        """Whether the theorem's region is too small for the random phase on ``family``: none of
        :data:`RARE_DRAWS` seeded uniform draws of the unit coordinates lies inside it (assumption evaluations
        only; a region holding 5% of the draws is missed so with probability under 4%)."""
        rng = np.random.default_rng(RARE_DRAWS)
        for _ in range(RARE_DRAWS):
            if self._admitted(dict(zip(self.coordinates, rng.uniform(size=len(self.coordinates)))), family):
                return False
        return True

    def _interior(self, entries: list[dict], family=None, searched: tuple[str, ...] = ()) -> list[dict]:
        """A few points inside a region the random phase cannot hit (only a feasibility search found it): a walk
        from the first entry point, one coordinate at a time (those that move the theorem's parameters, and the
        family's ``searched`` keywords' draws), each move drawn (seeded) within a window that halves when it
        leaves the region, kept when it stays inside.
        :data:`INTERIOR_POINTS` points, from at most :data:`INTERIOR_TRIES` assumption evaluations."""
        if not entries:
            return []
        theirs = self._parameter_coordinates()
        keys = [k for k in self.coordinates if k in theirs or (k.startswith("u_") and k[2:] in searched)]
        rng = np.random.default_rng(len(keys))  # the same walk in every run
        out, at, width = [], entries[0], 0.5
        for _ in range(INTERIOR_TRIES):
            k = keys[int(rng.integers(len(keys)))]
            trial = {**at, k: float(np.clip(at[k] + width * rng.uniform(-1.0, 1.0), 0.0, 1.0))}
            if self._admitted(trial, family) and self.point(trial)["T"] <= GRID_HORIZON:
                at = trial
                out.append(trial)
                if len(out) == INTERIOR_POINTS:
                    break
            else:
                width = max(width / 2, 1e-3)
        return out

    def _entry_corners(self, bases: list[dict], family=None) -> tuple[list[dict], bool]:
        """Where the theorem's region begins, when the base corners lie outside its assumptions: from each, the
        first number of steps inside them (on a grid of the steps' unit draw: a region that starts late, T >=
        T-bar); when no base gets inside that way, the point a feasibility search reaches from the first
        (:meth:`_feasible`: a region far from every corner, several assumptions at once; the flag returned
        says so).  Only the point map and the assumptions are evaluated; with a ``family``, on the constants
        of the instances it builds."""
        out = []
        steps = "E" if self.cyclic else "T"
        outside = [u for u in bases if not self._admitted(u, family)]
        for u in outside:
            for value in np.linspace(0.0, 1.0, 101):
                moved = {**u, steps: float(value)}
                if self._admitted(moved, family):
                    if moved not in out:
                        out.append(moved)
                    break
        if outside and not out and len(outside) == len(bases):
            found = self._feasible(outside[0], family)
            return ([], False) if found is None else ([found], True)
        return out, False

    def _parameter_coordinates(self) -> list[str]:
        """The unit coordinates that move at least one of the theorem's parameters, in coordinate order."""
        moves = coordinate_moves(self.coordinates, self.full, self.cyclic)
        return [k for k in self.coordinates if moves.get(k, frozenset()) & set(self.theorem.parameters)]

    def _admitted(self, u: dict, family=None) -> bool:
        """Whether ``u`` lies in the theorem's region: on the point's values, or (``family``) on the constants of
        the instance the family builds there (:func:`~verify.check.soundness.candidates.admits_on`)."""
        if family is None:
            return self._inside(u) is not None
        return admits_on(self.theorem, family, self.point(u))

    def _feasible(self, u: dict, family=None) -> dict | None:
        """An admissible point near ``u``: Nelder-Mead on the coordinates that move the theorem's parameters,
        minimising the assumptions' summed relative violation (:func:`~verify.check.domain.assumption_slacks`),
        stopped at the first admissible point it meets (None within :data:`FEASIBLE_EVALUATIONS`); with a
        ``family``, admissible on the constants of the instance it builds there."""
        slacks = assumption_slacks(self.theorem)
        keys = self._parameter_coordinates()
        if not keys:
            return None
        found: list[dict] = []

        class _Found(Exception):
            pass

        def violation(x) -> float:
            trial = {**u, **{k: float(v) for k, v in zip(keys, np.clip(x, 0.0, 1.0))}}
            params = self._params(trial) if family is None else params_on(self.theorem, family, self.point(trial))
            if params is None:
                return 1e3
            # beyond GRID_HORIZON steps a grid reference would not be built: as far from the region as outside it
            late = max(0.0, math.log10(params.get("T", 1.0) / GRID_HORIZON))
            if late == 0.0 and admissible(self.theorem, params):
                found.append(trial)
                raise _Found
            values = [s(params) for s in slacks]
            return 1.0 + late + math.fsum(-v for v in values if math.isfinite(v) and v < 0)  # 1: something fails

        x0 = np.array([u[k] for k in keys])
        simplex = [x0] + [np.where(np.arange(len(keys)) == j, 1.0 - x0[j] if abs(x0[j] - 0.5) > 0.25 else
                                   (x0[j] + 0.4) % 1.0, x0) for j in range(len(keys))]
        for options in ({"initial_simplex": np.array(simplex)}, {}):  # wide steps, then scipy's small ones
            try:
                optimize.minimize(violation, x0, method="Nelder-Mead", bounds=[(0.0, 1.0)] * len(keys),
                                  options={"maxfev": FEASIBLE_EVALUATIONS // 2, **options})
            except _Found:
                return found[0]
        return None

    def _saturation_corners(self, bases: list[dict]) -> list[dict]:
        """T at the bound's saturation point and +-1, from a few base corners."""
        out = []
        for u in bases:
            point = self.point(u)
            try:
                params = {p: point[p] for p in self.theorem.parameters}
            except KeyError:
                continue
            sat = saturation(self.theorem, params)
            if sat is None:
                continue
            for T in (math.floor(sat[1]), math.floor(sat[1]) + 1, math.floor(sat[1]) - 1, math.ceil(sat[1]) + 1):
                moved = with_steps(u, T, self.cyclic or sat[0] == "E")
                if moved is not None and moved not in out:
                    out.append(moved)
        return out
