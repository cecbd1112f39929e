"""The guided phase (Nelder-Mead on the unit coordinates) and the shrink of a violation found outside hypothesis."""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize

from verify.check import references as refs
from verify.check.soundness.record import _costly


class GuidedPhase:
    """The guided phase (Nelder-Mead on the unit coordinates) and the shrink of a violation found outside
    hypothesis (a mixin of :class:`~verify.check.soundness.search.Search`)."""

    def guided(self) -> tuple[str, dict] | None:
        """Nelder-Mead from the best points found, on the coordinates that move this theorem's
        parameters; stops at the first violation (returned)."""
        self.record.phase = "guided"
        budget = self.budget.guided
        starts, seen = [], set()
        for score, name, u in sorted(self.record.best, key=lambda s: -s[0]):
            key = (name, tuple(sorted(u.items())))
            if key in seen or _costly(self.theorem, refs.families()[name]):
                continue
            seen.add(key)
            starts.append((name, u))
            if len(starts) >= self.budget.starts:
                break
        for i, (name, u) in enumerate(starts):
            each = (budget - self.record.budget["guided"]) // (len(starts) - i)
            if each < 4:
                break
            found = self._optimise(name, u, each)
            if found is not None:
                return found
        return None

    def _optimise(self, name: str, u: dict, evaluations: int) -> tuple[str, dict] | None:
        keys = self._moving(name)
        if not keys:
            return None
        x0 = np.array([u[k] for k in keys])
        found: list = []

        class _Found(Exception):
            pass

        def objective(x):
            trial = {**u, **{k: float(v) for k, v in zip(keys, np.clip(x, 0.0, 1.0))}}
            score, margin = self.evaluate(name, trial)
            if margin is not None:
                found.append((name, trial))
                raise _Found
            return -score if score is not None and math.isfinite(score) else (1e300 if score is None else -1e300)

        simplex = [x0] + [np.where(np.arange(len(keys)) == j, np.clip(x0[j] + (0.15 if x0[j] < 0.5 else -0.15), 0, 1),
                                   x0) for j in range(len(keys))]
        try:
            optimize.minimize(objective, x0, method="Nelder-Mead", bounds=[(0.0, 1.0)] * len(keys),
                              options={"maxfev": evaluations, "initial_simplex": np.array(simplex),
                                       "xatol": 1e-3, "fatol": 1e-6})
        except _Found:
            return found[0]
        return None

    def _moving(self, name: str) -> list[str]:
        """The unit coordinates that move a parameter of the theorem or a keyword of the family."""
        family = refs.families()[name]
        used = set(self.theorem.parameters) | set(refs.keywords(family))
        moves = {"mu": {"sigma", "Delta"}, "etaM": {"eta"}, "mM": {"m"}, "DES": {"D"}, "z": {"z", "Cclip"},
                 "l": {"l", "n", "q", "E"}, "b": {"b", "n", "q"}, "E": {"E"} | ({"T"} if self.cyclic else set()),
                 "T": set() if self.cyclic else {"T"}, "alpha": {"alpha"}, "eps": {"eps"}, "delta": {"delta"}}
        searched = set(getattr(family, "searched", {}) or {})
        out = []
        for key in self.coordinates:
            if key in moves:
                if moves[key] & used:
                    out.append(key)
            elif key.startswith("u_"):
                if key[2:] in searched:
                    out.append(key)
            elif key in used:
                out.append(key)
        return out

    def shrink(self, name: str, u: dict) -> None:
        """Move a violation found outside hypothesis towards the simple run (each coordinate to 0, then
        halved), keeping a certified violation; the last one kept is the reported counterexample."""
        self.record.phase = "guided" if self.record.phase == "guided" else "corners"
        left = self.budget.shrink
        current = dict(u)
        keys = self._moving(name)
        for _ in range(2):
            changed = False
            for key in keys:
                for value in (0.0, current[key] / 2):
                    if left <= 0 or value >= current[key]:
                        continue
                    left -= 1
                    trial = {**current, key: value}
                    _, margin = self.evaluate(name, trial)
                    if margin is not None:
                        current, changed = trial, True
                        break
            if not changed or left <= 0:
                break
        self.evaluate(name, current)  # the reported counterexample is the last violation noted
