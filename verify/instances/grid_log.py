"""The grid's log-mass engine: the laws of a 1-D run evolved in log space (:func:`evolve_log`), for masses below
the double-precision floor of the other engines of :mod:`verify.instances.grid` (their cells, rows and
kernels are shared: one grid, several engines).  Its convolution of translations is exact and banded
(:func:`log_convolve`); other steps apply a log transition in column blocks (:func:`log_apply`).
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from verify.errors import InputError, PointRefused
from verify.instances.grid import IntervalGrid, Mixture, _scoped_rows
from verify.logspace import logsumexp

#: the log engine's work limit, (C+2)^2 * steps * laws log-sum-exp terms (about 6 s on one core)
LOG_MAX_WORK = 2.0 ** 29
#: columns of a log transition processed at once (memory of one chunk: 8 bytes each)
LOG_CHUNK = 2 ** 21
#: band width (nats) of the log engine's exact convolution: a product of two scaled values stays >= e^-700
LOG_BAND = 350.0
#: at most this many pairs of bands' runs per convolution, else the log-sum-exp over the full columns
LOG_MAX_PAIRS = 4096
#: at most this many pairs of runs are considered at all (memory of the choice: some 64 bytes each)
LOG_MAX_CANDIDATES = 2 ** 20
#: memory of the convolution's partial sums (one vector of C per level of common factor)
LOG_LEVEL_BYTES = 32 * 2 ** 20
#: a term this far (nats) below a lower bound of its sum is exactly 0 after the log-sum-exp's scaling
#: (e^-745.2 rounds to 0), so the exact convolution may skip it
LOG_NEGLIGIBLE = 750.0
#: a pair of runs costs about as much as this many terms of the full log-sum-exp (calls, slicing)
LOG_PAIR_COST = 2048

def log_apply(a: np.ndarray, columns: Callable[[int, int], np.ndarray]) -> np.ndarray:
    """``log (e^a @ e^L)`` for the log transition ``L`` given by column blocks ``columns(i0, i1)``:
    each output is an exact log-sum-exp (its largest term factored out), at most ``LOG_CHUNK`` terms at once."""
    n = a.size
    out = np.empty(n)
    width = max(1, LOG_CHUNK // n)
    with np.errstate(invalid="ignore", divide="ignore"):
        for i0 in range(0, n, width):
            i1 = min(n, i0 + width)
            block = columns(i0, i1) + a[:, None]
            top = block.max(axis=0)
            block -= np.where(np.isfinite(top), top, 0.0)
            np.exp(block, out=block)
            out[i0:i1] = np.where(np.isneginf(top), -np.inf, top + np.log(block.sum(axis=0)))
    return out


def log_runs(v: np.ndarray, top: float) -> list[tuple[int, int, np.ndarray]]:
    """The finite entries of the log vector ``v`` in bands of ``LOG_BAND`` below ``top``, as runs of
    consecutive indices: ``(band, start, e^(v - (top - band LOG_BAND)))``, each value in (e^-LOG_BAND, 1]."""
    band = np.full(v.size, -1, dtype=np.int64)
    fin = np.isfinite(v)
    band[fin] = np.floor((top - v[fin]) / LOG_BAND).astype(np.int64)
    cut = np.flatnonzero(np.diff(band)) + 1
    out = []
    for i0, i1 in zip(np.concatenate([[0], cut]), np.concatenate([cut, [v.size]])):
        b = int(band[i0])
        if b >= 0:
            out.append((b, int(i0), np.exp(v[i0:i1] - (top - b * LOG_BAND))))
    return out


def log_convolve(x: np.ndarray, kern_runs, kern_top: float, toeplitz: np.ndarray) -> np.ndarray | None:
    """``log sum_j e^(x_j + k[i - j + C - 1])`` for ``i < C`` (``k`` the log kernel over offsets
    ``-(C-1)..C-1``, given by its runs, :func:`log_runs`, and as ``toeplitz[j, i]``), or ``None`` when that
    takes more calls than ``LOG_MAX_PAIRS`` or costs more than the full log-sum-exp (``C^2`` terms; a pair
    costs about ``LOG_PAIR_COST`` of them): the caller then sums the terms one by one.

    Exact scheme: ``x`` and ``k`` are split into bands of width ``LOG_BAND`` in log scale; in one band
    every value, scaled by the band's own factor, lies in (e^-350, 1], so a product of two lies in
    (e^-700, 1]: a normal double, never underflowing.  Each pair of bands is a linear convolution of
    non-negative numbers (``np.convolve``, direct sums: relative round-off of a sum of positive terms,
    as the log-sum-exp's own), added into the level of its common factor; the levels are combined in
    log space.  A pair is skipped only when each of its terms lies more than ``LOG_NEGLIGIBLE`` below a
    lower bound of every output it reaches (one exact term, ``x_j + k`` at a run's end ``j``): the full
    log-sum-exp, which factors out the largest term, rounds every such term to exactly 0."""
    C = x.size
    fin = np.isfinite(x)
    if not fin.any():
        return np.full(C, -np.inf)
    if C * C < 64 * LOG_PAIR_COST:
        return None
    top = float(x[fin].max())
    x_runs = log_runs(x, top)
    if len(x_runs) * len(kern_runs[0]) > min(C * C / 8, LOG_MAX_CANDIDATES):  # choosing would cost the full sum
        return None
    xb, xs, xl = (np.array(v, dtype=np.int64) for v in zip(*[(b, i, v.size) for b, i, v in x_runs]))
    kb, ks, kl = kern_runs[1]
    first = xs[:, None] + ks[None, :] - (C - 1)  # full[t] of a pair is output i = first + t
    lo, hi = np.maximum(first, 0), np.minimum(first + xl[:, None] + kl[None, :] - 1, C)
    scale = top + kern_top - LOG_BAND * (xb[:, None] + kb[None, :])  # every term of a pair is <= e^scale
    ends = np.unique(np.concatenate([xs, xs + xl - 1]))
    most = max(1, LOG_LEVEL_BYTES // (8 * C))  # any subset of the terms gives a lower bound: memory bounded
    if ends.size > most:
        ends = ends[np.linspace(0, ends.size - 1, most).astype(np.int64)]
    ends = np.union1d(ends, [int(np.argmax(np.where(fin, x, -np.inf)))])
    bound = (x[ends][:, None] + toeplitz[ends]).max(axis=0)  # output i >= one of its terms
    # range minimum of the bound over each pair's outputs (sparse table)
    table = [bound]
    while 2 ** len(table) <= C:
        prev, w = table[-1], 2 ** (len(table) - 1)
        table.append(np.minimum(prev[:-w], prev[w:]))
    reach = hi > lo
    p = np.zeros_like(lo)
    p[reach] = np.floor(np.log2(hi[reach] - lo[reach])).astype(np.int64)
    lowest = np.full(lo.shape, np.inf)
    for level in np.unique(p[reach]):
        at = reach & (p == level)
        t = table[level]
        lowest[at] = np.minimum(t[lo[at]], t[hi[at] - 2 ** int(level)])
    keep = reach & (scale >= lowest - LOG_NEGLIGIBLE)
    pairs = np.argwhere(keep)
    if len(pairs) > min(LOG_MAX_PAIRS, C * C / LOG_PAIR_COST):
        return None
    if np.unique(xb[pairs[:, 0]] + kb[pairs[:, 1]]).size * C * 8 > LOG_LEVEL_BYTES:  # one sum per level kept
        return None
    levels: dict = {}
    xi, ki = pairs[:, 0], pairs[:, 1]
    for i, k, f, l0, l1, m in zip(xi.tolist(), ki.tolist(), first[xi, ki].tolist(), lo[xi, ki].tolist(),
                                  hi[xi, ki].tolist(), (xb[xi] + kb[ki]).tolist()):
        acc = levels.get(m)
        if acc is None:
            acc = levels[m] = np.zeros(C)
        acc[l0:l1] += np.convolve(x_runs[i][2], kern_runs[0][k][2])[l0 - f:l1 - f]
    keys = sorted(levels)
    with np.errstate(divide="ignore"):
        logs = np.log(np.stack([levels[m] for m in keys])) + (top + kern_top
                                                              - LOG_BAND * np.array(keys, dtype=float))[:, None]
    return logs[0] if len(keys) == 1 else logsumexp(logs, axis=0)


def _log_step(grid: IntervalGrid, mixture: Mixture, s: float) -> Callable[[np.ndarray], np.ndarray]:
    """One step of the log engine, ``a -> log(e^a @ e^L)`` (``L`` the log transition): for a dense step
    :func:`log_apply` over its columns; for a translation the Toeplitz kernel's cell-to-cell part by
    :func:`log_convolve` (falling back to :func:`log_apply` over strided columns, never formed), the fold
    columns and the atoms' rows as log-sum-exps of their own."""
    C = grid.cells
    if not mixture.translation:
        matrix = grid.log_dense(mixture, s)
        return lambda a: log_apply(a, lambda i0, i1: matrix[:, i0:i1])
    kern, fold_lo, fold_hi = grid.log_kernel(mixture, s)
    # cell -> cell: L[j, i] = kern[i - j + C - 1], a view of the reversed kernel
    toeplitz = np.lib.stride_tricks.sliding_window_view(kern[::-1], C)[:, ::-1]
    atoms = [logsumexp(np.stack([np.log(w) + grid.log_row(np.array(end + float(c)), s)
                                 for w, c in zip(mixture.weights, mixture.displacements) if w > 0]), axis=0)
             for end in (grid.lo, grid.hi)]
    kern_top = float(kern[np.isfinite(kern)].max()) if np.isfinite(kern).any() else 0.0
    runs = log_runs(kern, kern_top)
    kern_runs = (runs, tuple(np.array(v, dtype=np.int64) for v in zip(*[(c, i, v.size) for c, i, v in runs])))

    def columns(i0: int, i1: int) -> np.ndarray:
        block = np.empty((C + 2, i1 - i0))
        block[0], block[-1] = atoms[0][i0:i1], atoms[1][i0:i1]
        if i0 == 0:
            block[1:-1, 0] = fold_lo
        if i1 == C + 2:
            block[1:-1, -1] = fold_hi
        c0, c1 = max(i0, 1), min(i1, C + 1)
        if c1 > c0:
            block[1:-1, c0 - i0:c1 - i0] = toeplitz[:, c0 - 1:c1 - 1]
        return block

    def apply(a: np.ndarray) -> np.ndarray:
        cells = log_convolve(a[1:-1], kern_runs, kern_top, toeplitz)
        if cells is None:
            return log_apply(a, columns)
        out = np.empty(C + 2)
        with np.errstate(invalid="ignore", divide="ignore"):
            ends = np.logaddexp(a[0] + atoms[0], a[-1] + atoms[1])  # the rows of the atoms lo and hi
            out[1:-1] = np.logaddexp(cells, ends[1:-1])
            out[0] = logsumexp(np.concatenate([ends[:1], a[1:-1] + fold_lo]))
            out[-1] = logsumexp(np.concatenate([ends[-1:], a[1:-1] + fold_hi]))
        return out

    return apply


@_scoped_rows
def evolve_log(grid: IntervalGrid, x0: float, s, schedules: Sequence[Sequence[Mixture]], T: int,
               shuffled: int | None = None) -> np.ndarray:
    """Log masses of the laws of :func:`evolve_many` (or, ``shuffled = l``, of :func:`evolve_shuffled`,
    ``schedules`` then being the pairs ``[still, use]``): states ``(k, C+2)``, exact at any depth.

    The same discretised chain as the linear engines, every step ``log(e^a @ e^L)`` with ``L`` the log
    transition (no floor, no underflow: the masses of a pair at per-step mu = 30, e^-2000 and below, keep
    full relative precision).  The work, ``(C+2)^2`` terms per step and law, is bounded by
    ``LOG_MAX_WORK`` (InputError naming ``cells`` beyond it).
    """
    if not grid.lo <= x0 <= grid.hi:
        raise InputError(f"the initial point x0={x0} lies outside [{grid.lo}, {grid.hi}]", "x0")
    if int(T) != T or T < 1:
        raise InputError(f"T must be a positive integer, got {T}", "T")
    T = int(T)
    stds = np.atleast_1d(np.asarray(s, dtype=float))
    per_step = stds.size > 1 or np.ndim(s) > 0
    if stds.ndim != 1 or (per_step and stds.size != T) or not np.all(stds > 0) or not np.all(np.isfinite(stds)):
        raise InputError("the per-step noise std eta*sigma must be > 0 (one number, or one per step)", "s")
    if shuffled is not None and (per_step or int(shuffled) != shuffled or shuffled < 1):
        raise InputError("shuffled batches need one noise std and l >= 1 batches per epoch", "l")
    L = len(schedules[0])
    if L == 0 or any(len(sch) != L for sch in schedules):
        raise InputError("schedules must be non-empty and of one length", "schedules")
    C = grid.cells
    work = float(C + 2) ** 2 * (T - 1) * len(schedules) * (2 if shuffled else 1)
    if work > LOG_MAX_WORK:
        raise PointRefused(f"the log-mass engine needs (C+2)^2 (T-1) laws = {work:.3g} terms, beyond "
                           f"{LOG_MAX_WORK:.3g}: use fewer cells (C = {C}) or steps (T = {T})", "cells")
    std = lambda k: float(stds[k] if per_step else stds[0])

    def first(mx: Mixture) -> np.ndarray:
        return logsumexp(np.stack([np.log(w) + grid.log_row(np.array(x0 + (float(c(np.array(x0))) if callable(c)
                                                                                  else float(c))), std(0))
                                   for w, c in zip(mx.weights, mx.displacements) if w > 0]), axis=0)

    out = []
    steps: dict = {}

    def step(mx: Mixture, k: int):
        key = (tuple((w, dest.tobytes()) for w, dest in grid._shifts(mx)), std(k))
        if key not in steps:
            if per_step:
                steps.clear()  # one kernel per step: keep only the current ones
            steps[key] = _log_step(grid, mx, std(k))
        return steps[key]

    for sch in schedules:
        if shuffled is None:
            state = first(sch[0])
            for k in range(1, T):
                state = step(sch[k % L], k)(state)
            out.append(state)
            continue
        l = int(shuffled)  # as evolve_shuffled: U not used yet this epoch, W used once
        still, use = sch
        unused, used = first(still), first(use)
        for t in range(1, T):
            if t % l == 0:
                start = used - np.log(l)
                unused, used = step(still, t)(start), step(use, t)(start)
            else:
                unused, used = (step(still, t)(unused),
                                np.logaddexp(step(still, t)(used), step(use, t)(unused)))
        done = T - l * ((T - 1) // l)
        rest = 1.0 - done / l
        state = used - np.log(l)
        if rest > 0:
            state = np.logaddexp(state, np.log(rest) + unused)
        out.append(state)
    return np.stack(out)


__all__ = ["LOG_MAX_WORK", "evolve_log"]
