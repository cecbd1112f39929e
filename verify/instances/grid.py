"""Exact density evolution of 1-D noisy gradient runs on a grid (DESIGN.md §6, third bullet).

One step of the canonical iteration in one dimension, for a mixture over what the batch contains,

    theta <- Proj_[lo, hi]( theta + c_k(theta) - eta Z ),   with probability w_k,   Z ~ N(0, sigma^2),

``c_k(theta) = -eta * g_k(theta)`` the displacement of batch composition ``k`` (a number for linear
losses, a callable for any other 1-D gradient map).  The law of ``theta`` lives on

    [atom at lo] + C cells of width h = (hi - lo)/C + [atom at hi],

a cell's mass sitting at its centre.  Transitions are Gaussian masses of the cells and tails (exact
CDF differences, formed in log space), so the discretised chain is a Markov chain whose laws are
computed exactly; the only approximation is "mass at the cell centre", which vanishes as h -> 0.

Translations (linear losses, any subsampling of the differing record) use one convolution per
step: ``direct`` (``np.convolve``: non-negative sums, full relative precision in the tails) or
``fft`` (``scipy.fft``: fast, absolute round-off ~1e-16; masses below a floor are replaced by the
floor in both laws and the floor is counted in the error).  Any other displacement uses a dense
transition matrix (``C <= 2048``; masses that underflow are raised to a floor far below any
resolved mass, in both laws, and counted in the error the same way).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence, Union

import numpy as np
import scipy.fft as sfft
from scipy.special import log_ndtr, ndtr

from verify.errors import InputError

Displacement = Union[float, Callable[[np.ndarray], np.ndarray]]

#: masses below this (relative to a total of 1) are FFT round-off in ``fft`` mode
FFT_FLOOR = 2.0 ** -48
#: masses below this underflow in ``dense`` mode (Gaussian rows vanish beyond ~38 standard deviations):
#: raised to it in both laws, so that far tails give a finite likelihood ratio, and reported as unresolved
DENSE_FLOOR = 2.0 ** -900
DENSE_MAX_CELLS = 2048


@dataclass(frozen=True)
class Mixture:
    """One step's law of the displacement: ``displacements[k]`` with probability ``weights[k]``."""

    weights: tuple[float, ...]
    displacements: tuple[Displacement, ...]

    def __post_init__(self) -> None:
        w = np.asarray(self.weights, dtype=float)
        if len(self.weights) != len(self.displacements) or not self.weights:
            raise InputError("a mixture needs one weight per displacement (and at least one)", "weights")
        if np.any(w < 0) or not np.isclose(w.sum(), 1.0, rtol=0, atol=1e-12):
            raise InputError(f"mixture weights must be >= 0 and sum to 1, got {self.weights}", "weights")

    @property
    def translation(self) -> bool:
        return all(not callable(c) for c in self.displacements)


def normal_mass(u, v) -> np.ndarray:
    """``P(u <= Z <= v)`` for ``Z ~ N(0, 1)``, accurate in both tails (log space), vectorised."""
    u = np.asarray(u, dtype=float)
    v = np.asarray(v, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        upper = u > 0  # both in the upper tail: P(Z >= u) - P(Z >= v)
        lower = v < 0
        la = np.where(upper, log_ndtr(-u), log_ndtr(v))
        lb = np.where(upper, log_ndtr(-v), log_ndtr(u))
        tail = np.exp(la) * -np.expm1(lb - la)
        tail = np.where(np.isneginf(la), 0.0, tail)
        middle = ndtr(v) - ndtr(u)
    return np.maximum(np.where(upper | lower, tail, middle), 0.0)


class IntervalGrid:
    """The grid: atoms at ``lo`` and ``hi`` and ``cells`` interior cells; state length ``cells + 2``."""

    def __init__(self, lo: float, hi: float, cells: int):
        if not (np.isfinite(lo) and np.isfinite(hi)):
            raise InputError("the interval ends lo and hi must be finite", "lo")
        if not hi > lo:
            raise InputError(f"the interval is empty: need lo < hi, got [{lo}, {hi}]", "hi")
        if int(cells) != cells or cells < 4:
            raise InputError(f"cells must be an integer >= 4, got {cells}", "cells")
        self.lo, self.hi, self.cells = float(lo), float(hi), int(cells)
        self.h = (self.hi - self.lo) / self.cells
        self.centres = self.lo + (np.arange(self.cells) + 0.5) * self.h
        self.edges = self.lo + np.arange(self.cells + 1) * self.h

    @property
    def support(self) -> np.ndarray:
        """Positions of the state entries: lo, the cell centres, hi."""
        return np.concatenate([[self.lo], self.centres, [self.hi]])

    def row(self, y: np.ndarray, s: float) -> np.ndarray:
        """Law on the grid of ``Proj(y + N(0, s^2))`` for each point ``y``: shape ``y.shape + (C+2,)``."""
        y = np.asarray(y, dtype=float)[..., None]
        z = (self.edges - y) / s
        out = np.empty(y.shape[:-1] + (self.cells + 2,))
        out[..., 0] = np.exp(log_ndtr(z[..., 0]))
        out[..., 1:-1] = normal_mass(z[..., :-1], z[..., 1:])
        out[..., -1] = np.exp(log_ndtr(-z[..., -1]))
        return out

    def kernel(self, mixture: Mixture, s: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Cell-to-cell kernel of a translation mixture over offsets ``-(C-1)..C-1``, and the fold
        vectors: the probability that a cell's mass leaves the interval below ``lo`` / above ``hi``."""
        C, h = self.cells, self.h
        m = np.arange(-(C - 1), C, dtype=float)
        kern = np.zeros(2 * C - 1)
        fold_lo, fold_hi = np.zeros(C), np.zeros(C)
        j = np.arange(C, dtype=float)
        for w, c in zip(mixture.weights, mixture.displacements):
            if w == 0:
                continue
            kern += w * normal_mass(((m - 0.5) * h - c) / s, ((m + 0.5) * h - c) / s)
            fold_lo += w * np.exp(log_ndtr((-(j + 0.5) * h - c) / s))  # P(x_j + c + Z < lo)
            fold_hi += w * np.exp(log_ndtr(-((C - j - 0.5) * h - c) / s))  # P(x_j + c + Z > hi)
        return kern, fold_lo, fold_hi

    def dense(self, mixture: Mixture, s: float) -> np.ndarray:
        """``(C+2, C+2)`` transition matrix of one step (any displacement)."""
        src = self.support
        out = np.zeros((self.cells + 2, self.cells + 2))
        for w, c in zip(mixture.weights, mixture.displacements):
            if w == 0:
                continue
            shift = np.asarray(c(src), dtype=float) if callable(c) else np.full(src.shape, float(c))
            if shift.shape != src.shape or not np.all(np.isfinite(shift)):
                raise InputError("a displacement map must return finite values of the input's shape", "displacements")
            out += w * self.row(src + shift, s)
        return out


def evolve(grid: IntervalGrid, x0: float, s: float, schedule: Sequence[Mixture], T: int,
           method: str = "auto") -> tuple[np.ndarray, np.ndarray | None]:
    """Law of ``theta_T`` on ``grid`` from ``theta_0 = x0``; step ``k`` uses ``schedule[k % len]``.

    Returns the state vector (atoms and cells) and, in ``fft`` and ``dense`` modes, the mask of entries
    that were below the floor (replaced by the floor); ``None`` when there were none (or ``direct``).
    """
    states, small = evolve_many(grid, x0, s, [schedule], T, method)
    return states[0], small


def evolve_many(grid: IntervalGrid, x0: float, s, schedules: Sequence[Sequence[Mixture]], T: int,
                method: str = "auto") -> tuple[np.ndarray, np.ndarray | None]:
    """:func:`evolve` for several schedules of one length at once (e.g. D and D'): states ``(k, C+2)``.

    ``s`` is the noise std of every step, or a sequence of ``T`` stds, one per step (non-uniform step
    sizes ``eta_t sigma``; dense mode).  The floor mask (``fft`` and ``dense`` modes) is the union over
    the schedules.
    """
    if not grid.lo <= x0 <= grid.hi:
        raise InputError(f"the initial point x0={x0} lies outside [{grid.lo}, {grid.hi}]", "x0")
    if int(T) != T or T < 1:
        raise InputError(f"T must be a positive integer, got {T}", "T")
    stds = np.atleast_1d(np.asarray(s, dtype=float))
    per_step = stds.size > 1 or np.ndim(s) > 0
    if stds.ndim != 1 or (per_step and stds.size != T) or not np.all(stds > 0) or not np.all(np.isfinite(stds)):
        raise InputError("the per-step noise std eta*sigma must be > 0 (one number, or one per step)", "s")
    if per_step and method not in ("auto", "dense"):
        raise InputError("per-step noise stds need method='dense'", "method")
    if per_step:
        method = "dense"
    s = float(stds[0])
    if method not in ("auto", "fft", "direct", "dense"):
        raise InputError(f"method must be auto, fft, direct or dense, got {method!r}", "method")
    L = len(schedules[0])
    if L == 0 or any(len(sch) != L for sch in schedules):
        raise InputError("schedules must be non-empty and of one length", "schedules")
    C = grid.cells
    translation = all(mx.translation for sch in schedules for mx in sch)
    if method == "auto":
        method = "dense" if not translation else ("direct" if C * C * T <= 1e9 else "fft")
    if method in ("fft", "direct") and not translation:
        raise InputError(f"method {method!r} needs translations only; use method='dense'", "method")
    if method == "dense" and C > DENSE_MAX_CELLS:
        raise InputError(f"method 'dense' supports at most {DENSE_MAX_CELLS} cells, got {C}", "cells")

    def first(mx: Mixture) -> np.ndarray:
        out = np.zeros(C + 2)
        for w, c in zip(mx.weights, mx.displacements):
            y = x0 + (float(c(np.array(x0))) if callable(c) else float(c))
            out += w * grid.row(np.array(y), s)
        return out

    state = np.stack([first(sch[0]) for sch in schedules])
    if method == "dense":
        if per_step:  # one transition matrix per step (its own noise std)
            for k in range(1, T):
                state = np.stack([state[i] @ grid.dense(sch[k % L], float(stds[k]))
                                  for i, sch in enumerate(schedules)])
        else:
            mats = [[grid.dense(mx, s) for mx in sch] for sch in schedules]
            for k in range(1, T):
                state = np.stack([state[i] @ mats[i][k % L] for i in range(len(schedules))])
        small = np.any(state < DENSE_FLOOR, axis=0)
        if not small.any():
            return state, None
        state = np.maximum(state, DENSE_FLOOR)
        return state / state.sum(axis=1, keepdims=True), small

    def atom_rows(end: float) -> np.ndarray:  # (L, k, C+2): law after one step from an atom
        return np.stack([np.stack([grid.row(np.array([end + float(c) for c in mx.displacements]), s).T
                                   @ np.asarray(mx.weights) for mx in [sch[j] for sch in schedules]])
                         for j in range(L)])

    parts = [[grid.kernel(sch[j], s) for sch in schedules] for j in range(L)]
    kernels = np.array([[p[0] for p in row] for row in parts])  # (L, k, 2C-1)
    folds_lo = np.array([[p[1] for p in row] for row in parts])  # (L, k, C)
    folds_hi = np.array([[p[2] for p in row] for row in parts])
    rows_lo, rows_hi = atom_rows(grid.lo), atom_rows(grid.hi)
    if method == "fft":  # circular convolution of size >= 2C - 1 leaves the interior exact
        nfft = sfft.next_fast_len(2 * C - 1, real=True)
        spectra = sfft.rfft(kernels, nfft, axis=-1)
    k_laws = len(schedules)
    for k in range(1, T):
        j = k % L
        cells = state[:, 1:-1]
        if method == "direct":
            middle = np.stack([np.convolve(cells[i], kernels[j, i])[C - 1:2 * C - 1] for i in range(k_laws)])
        else:
            middle = sfft.irfft(sfft.rfft(cells, nfft, axis=-1) * spectra[j], nfft, axis=-1)[:, C - 1:2 * C - 1]
            middle[middle < FFT_FLOOR] = 0.0
        new = np.empty_like(state)
        new[:, 0] = np.einsum("ij,ij->i", cells, folds_lo[j])
        new[:, 1:-1] = middle
        new[:, -1] = np.einsum("ij,ij->i", cells, folds_hi[j])
        new += state[:, :1] * rows_lo[j] + state[:, -1:] * rows_hi[j]
        state = new
    if method == "fft" and T > 1:
        small = np.any(state < FFT_FLOOR, axis=0)
        state = np.maximum(state, FFT_FLOOR)
        return state / state.sum(axis=1, keepdims=True), small
    return state, None


def evolve_shuffled(grid: IntervalGrid, x0: float, s: float, pairs: Sequence[tuple[Mixture, Mixture]], l: int,
                    T: int) -> tuple[np.ndarray, np.ndarray | None]:
    """Law of ``theta_T`` under shuffled batches, for several laws at once: states ``(k, C+2)``.

    Each of ``pairs`` is ``(still, use)``: the step without and with the differing record.  A fresh
    permutation every epoch of ``l`` steps puts the record in a uniform batch, independently across
    epochs, so one epoch's kernel is the average of the ``l`` kernels that use it at step ``j``,
    ``(1/l) sum_j A^j B A^(l-1-j)`` (``A``, ``B`` the dense steps ``still``, ``use``).  It is applied as two
    running vectors, ``U`` (not used yet this epoch) and ``W`` (used once): ``W <- W A + U B``,
    ``U <- U A``, the cost of ``2T`` dense steps.  A partial last epoch of ``r`` steps uses the record
    with probability ``r/l``: its law is ``W/l + (1 - r/l) U``.  The first step leaves ``x0`` exactly,
    as in :func:`evolve_many`; entries below ``DENSE_FLOOR`` are floored and masked, as there.
    """
    if not grid.lo <= x0 <= grid.hi:
        raise InputError(f"the initial point x0={x0} lies outside [{grid.lo}, {grid.hi}]", "x0")
    if int(T) != T or T < 1:
        raise InputError(f"T must be a positive integer, got {T}", "T")
    if int(l) != l or l < 1:
        raise InputError(f"l (batches per epoch) must be a positive integer, got {l}", "l")
    if not (np.isfinite(s) and s > 0):
        raise InputError("the per-step noise std eta*sigma must be > 0", "s")
    if grid.cells > DENSE_MAX_CELLS:
        raise InputError(f"shuffled batches use the dense engine: at most {DENSE_MAX_CELLS} cells, got "
                         f"{grid.cells}", "cells")
    l, T = int(l), int(T)
    out = []
    for still, use in pairs:
        A, B = grid.dense(still, s), grid.dense(use, s)

        def first(mx: Mixture) -> np.ndarray:
            return sum(w * grid.row(np.array(x0 + (float(c(np.array(x0))) if callable(c) else float(c))), s)
                       for w, c in zip(mx.weights, mx.displacements))

        unused, used = first(still), first(use)  # after step 0, the first of epoch 0
        for t in range(1, T):
            if t % l == 0:  # a whole epoch is done: every path used the record once
                start = used / l
                unused, used = start @ A, start @ B
            else:
                unused, used = unused @ A, used @ A + unused @ B
        done = T - l * ((T - 1) // l)  # steps of the last (possibly partial) epoch
        out.append(used / l + (1.0 - done / l) * unused)
    state = np.stack(out)
    small = np.any(state < DENSE_FLOOR, axis=0)
    if not small.any():
        return state, None
    state = np.maximum(state, DENSE_FLOOR)
    return state / state.sum(axis=1, keepdims=True), small


__all__ = ["DENSE_FLOOR", "DENSE_MAX_CELLS", "FFT_FLOOR", "IntervalGrid", "Mixture", "evolve", "evolve_many",
           "evolve_shuffled", "normal_mass"]
