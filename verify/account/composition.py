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

import numpy as np
from dp_accounting import NeighboringRelation
from dp_accounting.pld import pld_pmf as _pld_pmf
from dp_accounting.pld import privacy_loss_distribution as _pld
from scipy import fft

from verify.errors import InputError
from verify.privacy.pld import BUILD_BYTES, Composition

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
    """The PLD of the phases one after the other (None: a phase has no such estimate, or no theorem)."""
    if not phases or any((p.batches, adjacency) not in PHASE_THEOREMS for p in phases):
        return None
    parts = [_phase_pld(p, adjacency, ratio, h, pessimistic) for p in phases]
    if any(part is None for part in parts):
        return None
    whole = parts[0]
    for part in parts[1:]:
        whole = whole.compose(part)
    return whole


# ---------------------------------------------------------------------------------------------------
# the same pessimistic PLD, composed faster (calibration evaluates it at many noise scales)
# ---------------------------------------------------------------------------------------------------

#: dp_accounting's tail truncation of a self-composition (``DensePLDPmf.self_compose``'s default)
TAIL_MASS_TRUNCATION = 1e-15


def self_composed(pmf, steps: int, tail_mass_truncation: float = TAIL_MASS_TRUNCATION):
    """``pmf.self_compose(steps)`` of a dense pessimistic PMF, computed faster, with the same guarantee.

    dp_accounting's ``common.self_convolve`` truncates the composed PMF to the window where the Chernoff bound
    (at orders ``±1..±20`` over the support length) leaves at most ``tail_mass_truncation`` outside, FFTs,
    and adds that mass to the infinity mass.  Here the same bounds come from the moment generating function
    at each order as a dot product with successive powers of ``e^{±i/n}`` (``|i * order| <= 20``: no overflow,
    no log-sum-exp needed; two exponentials of the support instead of forty log-sum-exp calls), widened by
    one grid point on each side (rounding), and the FFT is real.  The composed PMF equals
    dp_accounting's to rounding (tests/account/test_composition_fast.py), and is pessimistic for the same
    reason: the truncated tails are counted at infinity.
    """
    if not isinstance(pmf, _pld_pmf.DensePLDPmf) or steps <= 1:
        return pmf.self_compose(steps, tail_mass_truncation) if steps > 1 else pmf
    probs = np.asarray(pmf._probs, dtype=float)
    n = probs.size
    lower, upper = 0, (n - 1) * steps
    slack = math.log(2.0 / tail_mass_truncation)
    index = np.arange(n, dtype=float)
    for sign in (1, -1):
        # e^{i k/n} for k = 1..20 as successive powers of e^{i/n}: two exponentials instead of forty
        base = np.exp(sign * index / n)
        power = base.copy()
        for k in range(1, 21):
            if k > 1:
                power *= base
            mgf = float(np.add.reduce(probs * power))  # not np.dot: BLAS threads spin on a shared machine
            order = sign * k / n
            bound = (steps * math.log(mgf) + slack) / order if mgf > 0.0 else math.nan
            if not math.isfinite(bound):
                continue
            if sign > 0:
                upper = min(upper, math.ceil(bound) + 1)
            else:
                lower = max(lower, math.floor(bound) - 1)
    length = upper - lower + 1
    size = fft.next_fast_len(max(length, n), real=True)
    if 48 * size > BUILD_BYTES:  # the real FFT's workspace (input, spectrum, power, output)
        raise InputError(f"composing {steps} steps needs an FFT of {size} points (about {48 * size / 2**30:.2g} "
                         f"GiB, limit {BUILD_BYTES / 2**30:.2g} GiB): use fewer steps or a coarser interval", "T")
    composed = fft.irfft(fft.rfft(probs, size) ** steps, size)
    composed = np.roll(composed, -lower)[:length]
    infinity = tail_mass_truncation - math.expm1(steps * math.log1p(-pmf._infinity_mass))
    return _pld_pmf.DensePLDPmf(pmf._discretization, pmf._lower_loss * steps + lower, composed, infinity,
                                pmf._pessimistic_estimate)


def _fast_phase_pld(phase: Phase, adjacency: str, ratio: float, h: float) -> Composition:
    """:func:`_phase_pld` (pessimistic) with :func:`self_composed` for Poisson add/remove phases."""
    if adjacency != "add_remove" or phase.batches not in ("poisson", "full") or phase.steps <= 1:
        return _phase_pld(phase, adjacency, ratio, h, True)
    mu = _step_mu(phase, ratio)
    one = Composition.subsampled_gaussian(phase.sample_rate, mu, 1, "poisson", "add_remove", h).pld  # cached
    remove = self_composed(one._pmf_remove, phase.steps)
    add = None if one._symmetric else self_composed(one._pmf_add, phase.steps)
    return Composition(_pld.PrivacyLossDistribution(remove, add), h,
                       f"Poisson-subsampled G_{mu:g} (q={phase.sample_rate:g})^{phase.steps}")


def schedule_eps_fast(phases: Sequence[Phase], adjacency: str, ratio: float, h: float, delta: float) -> float:
    """eps(delta) of :func:`schedule_pld` (pessimistic), the Poisson phases composed by :func:`self_composed`:
    the calibration's curve (``inf`` when a phase has no composition theorem)."""
    if not phases or any((p.batches, adjacency) not in PHASE_THEOREMS for p in phases):
        return math.inf
    whole = None
    for phase in phases:
        part = _fast_phase_pld(phase, adjacency, ratio, h)
        whole = part if whole is None else whole.compose(part)
    return float(whole.eps(delta))


def gaussian_mu(phases: Sequence[Phase], adjacency: str, ratio: float) -> float | None:
    """The exact GDP mu of the phases when every one is full-batch under replace-one (``G_mu`` steps compose
    to ``G_{sqrt(sum mu_i^2)}``, Dong-Roth-Su 2022, Cor. 3.3); None otherwise."""
    if phases and adjacency == "replace" and all(p.batches == "full" for p in phases):
        return math.sqrt(sum(p.steps * _step_mu(p, ratio) ** 2 for p in phases))
    return None


__all__ = ["PHASE_THEOREMS", "Phase", "gaussian_mu", "schedule_eps_fast", "schedule_pld", "self_composed"]
