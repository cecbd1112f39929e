"""One phase of identical DP-SGD steps as a privacy-loss distribution, and a schedule of phases composed.

Each phase is the guarantee of one registry theorem (:data:`PHASE_THEOREMS`), computed by dp_accounting's
pessimistic PLD (:class:`verify.privacy.pld.Composition`); phases compose by adaptive composition
(Dong-Roth-Su 2022, Thm 4), the PLD product.  dp_accounting's optimistic estimate of the same steps gives
the lower end of a bracket ``[lower, upper]`` that contains the exact composition (none exists for
``C_q(G_mu)``, uniform batches).  Used by :class:`verify.account.running.Accountant` and, for a run's
bracket at a chosen accuracy, by :func:`verify.account.account`.

Units are DP-SGD's: noise of std ``z Cclip`` on the summed gradient, whose sensitivity is ``Delta``;
``ratio = Delta/Cclip``, so one unsampled step is ``G_mu`` with ``mu = ratio/z``.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass
from typing import Sequence

from dp_accounting import NeighboringRelation
from dp_accounting.pld import privacy_loss_distribution as _pld

from verify.privacy.pld import CACHE, Composition

#: (batches, adjacency) -> the registry theorem whose guarantee one phase of such steps has
PHASE_THEOREMS: dict[tuple[str, str], str] = {
    ("poisson", "add_remove"): "bu2020/thm3",
    ("full", "add_remove"): "bu2020/thm3",
    ("uniform", "replace"): "bok2024/thm4.8",
    ("full", "replace"): "baselines/noisy-gd/gdp",
}

@dataclass(frozen=True)
class Phase:
    """``steps`` identical steps: noise multiplier ``z``, sampling rate ``q``, batching, step size."""

    noise_multiplier: float
    sample_rate: float
    batches: str
    steps: int
    eta: float | None = None

    def same_kind(self, other: "Phase") -> bool:
        return (self.noise_multiplier, self.sample_rate, self.batches, self.eta) == (
            other.noise_multiplier, other.sample_rate, other.batches, other.eta)

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


# ---------------------------------------------------------------------------------------------------
# one phase as a PLD
# ---------------------------------------------------------------------------------------------------


def _step_mu(phase: Phase, ratio: float) -> float:
    """GDP mu of one unsampled step: the summed gradient's sensitivity over the noise std ``z Cclip``
    (``ratio = Delta/Cclip``)."""
    return ratio / phase.noise_multiplier


def _phase_pld(phase: Phase, adjacency: str, ratio: float, h: float, pessimistic: bool) -> Composition | None:
    """One phase's PLD: the guarantee of :data:`PHASE_THEOREMS` for it (None: no optimistic estimate)."""
    mu = _step_mu(phase, ratio)
    if (phase.batches, adjacency) == ("full", "replace"):
        total = mu * math.sqrt(phase.steps)  # G_mu^{⊗T} = G_{mu sqrt T}
        if pessimistic:
            return Composition.gaussian(total, h)
        return _optimistic(1.0, total, 1, h)
    if adjacency == "add_remove":
        if pessimistic:
            return Composition.subsampled_gaussian(phase.sample_rate, mu, phase.steps, "poisson", "add_remove", h)
        return _optimistic(phase.sample_rate, mu, phase.steps, h)
    if not pessimistic:
        return None  # C_q(G_mu): dp_accounting has no optimistic estimate of it
    return Composition.subsampled_gaussian(phase.sample_rate, mu, phase.steps, "uniform", "symmetric", h)


@functools.lru_cache(maxsize=8)
def _optimistic_step(q: float, mu: float, h: float) -> _pld.PrivacyLossDistribution:
    """dp_accounting's optimistic PLD of one Poisson-subsampled ``G_mu`` step (add/remove; Meiser-Mohammadi
    2018 privacy buckets, losses rounded down).  Kept: building it walks the grid in Python (~1 s)."""
    return _pld.from_gaussian_mechanism(
        standard_deviation=1.0 / mu, sensitivity=1.0, sampling_prob=q, pessimistic_estimate=False,
        value_discretization_interval=h, use_connect_dots=False,  # connect-the-dots is pessimistic only
        neighboring_relation=NeighboringRelation.ADD_OR_REMOVE_ONE)


def _optimistic(q: float, mu: float, steps: int, h: float) -> Composition:
    """dp_accounting's optimistic PLD of ``steps`` Poisson-subsampled ``G_mu`` steps (add/remove): a lower
    estimate of the exact composition."""
    one = _optimistic_step(q, mu, h)
    return Composition(one.self_compose(steps) if steps > 1 else one, h,
                       f"optimistic Poisson-subsampled G_{mu:g} (q={q:g})^{steps}")


def schedule_pld(phases: Sequence[Phase], adjacency: str, ratio: float, h: float,
                 pessimistic: bool = True) -> Composition | None:
    """The PLD of the phases one after the other (None: a phase has no such estimate, or no theorem).

    The composition of every prefix of two phases or more is kept in :data:`verify.privacy.pld.CACHE` (bounded
    in bytes; one phase is kept there already), so a schedule that grows by a phase, or whose last phase
    grows by steps (an accountant queried during training), composes only its last phase onto the kept prefix.
    """
    if not phases or any((p.batches, adjacency) not in PHASE_THEOREMS for p in phases):
        return None
    phases = tuple(phases)
    key = lambda k: ("schedule", phases[:k], adjacency, ratio, h, pessimistic)  # noqa: E731 - the prefix of k phases
    start = next((k for k in range(len(phases), 1, -1) if key(k) in CACHE), 1)  # the longest prefix kept
    pld = CACHE.get(key(start), lambda: None) if start > 1 else _phase_pld(phases[0], adjacency, ratio, h, pessimistic)
    for k in range(start + 1, len(phases) + 1):  # a loop, not a recursion: any number of phases
        last = None if pld is None else _phase_pld(phases[k - 1], adjacency, ratio, h, pessimistic)
        pld = None if last is None else CACHE.get(key(k), lambda: pld.compose(last))  # noqa: B023 - used at once
    return pld


def gaussian_mu(phases: Sequence[Phase], adjacency: str, ratio: float) -> float | None:
    """The exact GDP mu of the phases when every one is full-batch under replace-one (``G_mu`` steps compose
    to ``G_{sqrt(sum mu_i^2)}``, Dong-Roth-Su 2022, Cor. 3.3); None otherwise."""
    if phases and adjacency == "replace" and all(p.batches == "full" for p in phases):
        return math.sqrt(math.fsum(p.steps * _step_mu(p, ratio) ** 2 for p in phases))
    return None


__all__ = ["PHASE_THEOREMS", "Phase", "gaussian_mu", "schedule_pld"]
