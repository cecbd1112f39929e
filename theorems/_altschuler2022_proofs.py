"""Altschuler & Talwar 2022: the functions its proof steps simulate or build (:mod:`theorems.altschuler2022`).

Each is a piece of the algorithm or of the paper's construction, computed, never the formula the step checks.
"""

from __future__ import annotations

import numpy as np

from verify.theorem import Exact, event


@event
def record_in_batch(rng, values, runs) -> int:
    """Runs in which record 0 is in a batch of b drawn uniformly without replacement from n records."""
    n_, b_ = int(values["n"]), int(values["b"])
    drawn = np.argpartition(rng.random((runs, n_)), b_ - 1, axis=1)[:, :b_]
    return int(np.count_nonzero((drawn == 0).any(axis=1)))


def one_step_gap(values) -> float:
    """|W_1 - W'_1| after one step from one point, batch of b holding the differing record: linear losses whose
    gradients are +L (x_i*) and -L (x'_i*), the other b-1 records shared (Step 3a's m_t, computed)."""
    eta_, L_, b_ = values["eta"], values["L"], int(values["b"])
    shared = np.full(b_ - 1, 0.37 * L_)
    w = 0.0 - eta_ / b_ * (shared.sum() + L_)
    w_other = 0.0 - eta_ / b_ * (shared.sum() - L_)
    return abs(w - w_other)


def positivity(start: float):
    """The positivity test 1[omega_T >= 0] on the X run (every loss 0: a symmetric Gaussian walk clamped to
    [-D/2, D/2]) started at ``start`` * D, at the proof's scope (D = 1000, eta = 1, sigma = 0.8, T = 1500)."""
    @event
    def positive(rng, values, runs) -> int:
        half, s = values["D"] / 2, values["eta"] * values["sigma"]
        w = np.full(runs, start * values["D"])
        for _ in range(int(values["T"])):
            w = np.clip(w + s * rng.standard_normal(runs), -half, half)
        return int(np.count_nonzero(w >= 0))
    positive.__qualname__ = f"positivity({start!r})"  # its text names the start (records are keyed by text)
    return positive


#: the proof's scope on the exact grid (n = 2, b = 1, eta = L = 1, D = 1000, sigma = 0.8; Tbar = 1500)
SCOPE_WALK = dict(n=2, b=1, eta=1.0, sigma=0.8, T=1500, Delta=1.0, D=1000.0, batches="uniform", cells=2**14)


def short_run(start: float) -> Exact:
    """D_2 (forward) of the T-step run from omega_0 = ``start`` D on the proof's construction (family interval_walk:
    the records' losses 0, the differing one L(D - omega) in D')."""
    return Exact("interval_walk", ("T",), "renyi", order=2.0, direction="forward",
                 fixed={**{k: v for k, v in SCOPE_WALK.items() if k != "T"}, "x0": start * 1000.0})


__all__ = ["SCOPE_WALK", "one_step_gap", "positivity", "record_in_batch", "short_run"]
