"""The accountant's routes through the derived records and the step-size theorem: shuffled batches
(``derived/shuffle/composition``) and step sizes that change across phases (Altschuler & Talwar 2022, eq. (5.7)),
as candidates beside the registry's theorems (a mixin of :class:`verify.account.running.Accountant`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import theorems as registry
from verify.account import stepsizes
from verify.account.applicability import setting_mismatch
from verify.account.run import Run
from verify.privacy.gaussian import gdp_delta, gdp_eps
from verify.privacy.rdp import rdp_to_delta, rdp_to_dp_improved

#: run keys the accountant may know about the run around the schedule (for the one-phase route)
RUN_KEYS = ("n", "Cclip", "Delta", "L", "m", "M", "D", "d", "loss", "init", "release")
#: the derived record of shuffled batches (theorems/derived.py)
SHUFFLE_THEOREM = "derived/shuffle/composition"


@dataclass(frozen=True)
class Candidate:
    """One valid bound at a query: its epsilon (or delta), theorem, verdict and how it was obtained."""

    value: float
    theorem: str
    verdict: str
    method: str
    lower: float | None = None

class DerivedRoutes:
    """Candidates from the derived records (shuffled batches; step sizes changing across phases).  Reads the
    accountant's phases, run keys, adjacency and verdicts (``_phases``, ``run``, ``adjacency``, ``steps``,
    ``sensitivity_ratio``, ``_usable``, ``_verdict``)."""

    # -- shuffled batches: the derived record (theorems/derived.py) --------------------------------------

    def _shuffle_refusal(self) -> str:
        """Why the shuffled-batch record does not cover the schedule ("" when it does)."""
        phases = self._phases
        if not phases or any(p.batches != "shuffle" for p in phases):
            return "every step must use shuffled batches"
        if self.adjacency != "replace":
            return f"stated for replace-one adjacency, not {self.adjacency}"
        if len({(p.noise_multiplier, p.sample_rate) for p in phases}) > 1:
            return "stated for one noise multiplier and sample rate"
        if self._shuffle_batches_per_epoch() is None:
            return "l = 1/q is not a whole number of batches per epoch"
        if not self._usable(SHUFFLE_THEOREM):
            return f"verdict {self._verdict(SHUFFLE_THEOREM)}"
        return ""

    def _shuffle_batches_per_epoch(self) -> int | None:
        q = self._phases[0].sample_rate
        if "n" in self.run:
            n = int(self.run["n"])
            b = q * n
            return n // round(b) if abs(b - round(b)) <= 1e-9 * b and round(b) >= 1 and n % round(b) == 0 else None
        l = 1.0 / q
        return round(l) if abs(l - round(l)) <= 1e-9 * l else None

    def _shuffle_mu(self) -> float | None:
        if self._shuffle_refusal():
            return None
        p = self._phases[0]
        # Delta/(b sigma) = (Delta/Cclip)/z: evaluated at b = 1, sigma = z, Delta = Delta/Cclip
        record = registry.get(SHUFFLE_THEOREM)
        return float(record.evaluate(T=self.steps, l=self._shuffle_batches_per_epoch(), b=1,
                                     sigma=p.noise_multiplier, Delta=self.sensitivity_ratio))

    def _shuffle_candidate(self, notion: str, at: float) -> Candidate | None:
        mu = self._shuffle_mu()
        if mu is None:
            return None
        value = float(gdp_eps(mu, at)) if notion == "eps" else float(gdp_delta(mu, at))
        return Candidate(value, SHUFFLE_THEOREM, self._verdict(SHUFFLE_THEOREM),
                         f"closed form: mu = {mu:.6g} over ceil(T/l) epochs begun (worst position)")

    # -- step sizes changing across phases: Altschuler & Talwar 2022 eq. (5.7) ----------------------------

    def _varying_refusal(self) -> str:
        """Why eq. (5.7) does not cover the schedule ("" when it does)."""
        phases = self._phases
        if not phases or any(p.batches != "uniform" for p in phases):
            return "stated for uniform batches at every step"
        if len({(p.noise_multiplier, p.sample_rate) for p in phases}) > 1:
            return "stated for one noise multiplier and sample rate"
        if any(p.eta is None for p in phases):
            return "every phase needs its step size eta"
        if self.steps < 2:
            return "needs at least two steps"
        missing = [k for k in ("n", "D", "M") if k not in self.run]
        if missing:
            return "the run does not state " + ", ".join(missing)
        run = self._run_with(max(p.eta for p in phases))
        if run is None:
            return "b = q n is not a whole batch size"
        mismatch = setting_mismatch(registry.get(stepsizes.THEOREM), run)
        if mismatch:
            return mismatch
        if run.b >= run.n:
            return "needs b < n"
        if run.eta > 2.0 / float(self.run["M"]):
            return f"assumption violated: eta <= 2/M at every step (largest eta {run.eta:g})"
        if not self._usable(stepsizes.THEOREM):
            return f"verdict {self._verdict(stepsizes.THEOREM)}"
        return ""

    def _run_with(self, eta: float | None) -> Run | None:
        """The schedule as one constant run of step size ``eta`` (none when None), with the first phase's
        batch, noise and run keys over all its steps; None when ``n`` does not give a whole batch."""
        p = self._phases[0]
        n = int(self.run["n"])
        b = p.sample_rate * n
        if abs(b - round(b)) > 1e-9 * max(1.0, b) or round(b) < 1:
            return None
        values = {**{k: v for k, v in self.run.items() if k in RUN_KEYS}, "n": n, "b": int(round(b)),
                  "batches": p.batches, "T": self.steps, "z": p.noise_multiplier, "adjacency": self.adjacency}
        values.setdefault("Cclip", 1.0)
        if eta is not None:
            values["eta"] = eta
        return Run.from_mapping(values, where="accountant run")

    def _varying_rdp(self) -> np.ndarray | None:
        if self._varying_refusal():
            return None
        run = self._run_with(self._phases[0].eta)
        return stepsizes.at22_varying_rdp(stepsizes.ORDERS, [p.eta for p in self._phases],
                                          [p.steps for p in self._phases], n=run.n, b=run.b, sigma=run.sigma,
                                          Delta=run.Delta, D=float(self.run["D"]))

    def _varying_candidate(self, notion: str, at: float) -> Candidate | None:
        rdp = self._varying_rdp()
        if rdp is None:
            return None
        if notion == "eps":
            value = float(rdp_to_dp_improved(stepsizes.ORDERS, rdp, at))
        else:
            value = float(rdp_to_delta(stepsizes.ORDERS, rdp, at))
        return Candidate(value, stepsizes.THEOREM, self._verdict(stepsizes.THEOREM),
                         f"eq. (5.7) for the {len(self._phases)} step size phase(s) (last iterate, RDP)")

    def _derived_candidates(self, notion: str, at: float, rows) -> list[Candidate]:
        have = {r.id for r in rows}
        out = [c for c in (self._shuffle_candidate(notion, at), self._varying_candidate(notion, at))
               if c is not None and c.theorem not in have]
        return out


__all__ = ["Candidate", "DerivedRoutes", "RUN_KEYS", "SHUFFLE_THEOREM"]
