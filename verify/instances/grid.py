"""Exact density evolution of 1-D noisy gradient runs on a grid (docs/references.md, third bullet).

One step of the canonical iteration in one dimension, for a mixture over what the batch contains,

    theta <- Proj_[lo, hi]( theta + c_k(theta) - eta Z ),   with probability w_k,   Z ~ N(0, sigma^2),

``c_k(theta) = -eta * g_k(theta)`` the displacement of batch composition ``k`` (a number for linear
losses, a callable for any other 1-D gradient map).  The law of ``theta`` lives on

    [atom at lo] + C cells of width h = (hi - lo)/C + [atom at hi],

a cell's mass sitting at its centre.  Transitions are Gaussian masses of the cells and tails (exact
differences of the edges' smaller tails, or of their logs), so the discretised chain is a Markov chain whose
laws are computed exactly; the only approximation is "mass at the cell centre", which vanishes as h -> 0.

Translations (linear losses, any subsampling of the differing record) use one convolution per
step: ``direct`` (``np.convolve``: non-negative sums, full relative precision in the tails) or
``fft`` (``scipy.fft``: fast, absolute round-off ~1e-16; masses below a floor are replaced by the
floor in both laws and the floor is counted in the error); shuffled batches convolve directly too.
Any other displacement uses a dense transition matrix (``C <= 2048``; masses that underflow are raised
to a floor far below any resolved mass, in both laws, and counted in the error the same way).

Large per-step mu: the masses that decide a Rényi divergence lie far below the smallest double (Q's
mass where P's is e^-450 is e^-1800 at mu = 30), so the linear engines underflow there.
:func:`evolve_log` evolves the same discretised chain on log masses (each step an exact log-sum-exp
product with the log transition, full relative precision at any depth).  A dense step costs C^2
exponentials; a translation's step is a convolution done exactly as linear ones, band of log scale by band
(:func:`_log_convolve`: no underflow, no term dropped that the log-sum-exp would not round to 0), several
times cheaper at C ~ 2048.  The builders still call it only when a query needs it
(:class:`~verify.instances.profile.DiscreteProfile`'s ``resolve``).  The Gaussian CDF is evaluated once per grid edge (not twice per cell), and a linear row
is computed only over the cells within ``LINEAR_REACH`` standard deviations of its centre: beyond them
every cell mass is below the smallest subnormal double, i.e. exactly 0 in linear scale anyway.
Equal steps (the record-free batches of a cycle, the unused-record part of D and D') are built once,
and the memory kept for them is bounded before anything is built (InputError naming ``cells``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable, Sequence, Union

import numpy as np
import scipy.fft as sfft
from scipy.special import log_ndtr, ndtr

from verify.errors import InputError, PointRefused
from verify.logspace import logsumexp

Displacement = Union[float, Callable[[np.ndarray], np.ndarray]]

#: masses below this (relative to a total of 1) are FFT round-off in ``fft`` mode
FFT_FLOOR = 2.0 ** -48
#: masses below this underflow in ``dense`` mode (Gaussian rows vanish beyond ~38 standard deviations):
#: raised to it in both laws, so that far tails give a finite likelihood ratio, and reported as unresolved
DENSE_FLOOR = 2.0 ** -900
DENSE_MAX_CELLS = 2048
#: a Gaussian cell mass more than this many standard deviations from the centre is below 2^-1074 (the
#: smallest subnormal double: P(Z > 38.6) ~ e^-747): exactly 0 in linear scale, so rows are band-limited
LINEAR_REACH = 38.7
#: bytes of component rows an :class:`IntervalGrid` remembers (:meth:`IntervalGrid._component`)
ROW_CACHE_BYTES = 96 * 2 ** 20
#: memory limit of the kernels (translations) or matrices (dense) kept, one per distinct step; InputError
#: naming cells beyond
TRANSLATION_MAX_BYTES = 2 ** 30


@dataclass(frozen=True)
class Mixture:
    """One step's law of the displacement: ``displacements[k]`` with probability ``weights[k]``."""

    weights: tuple[float, ...]
    displacements: tuple[Displacement, ...]

    def __post_init__(self) -> None:
        w = np.asarray(self.weights, dtype=float)
        if len(self.weights) != len(self.displacements) or not self.weights:
            raise InputError("a mixture needs one weight per displacement (and at least one)", "weights")
        if np.any(w < 0) or not abs(float(w.sum()) - 1.0) <= 1e-12:  # np.isclose(., 1, rtol=0, atol=1e-12)
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


def _cell_masses(z: np.ndarray, log: bool = False) -> np.ndarray:
    """Masses of ``Z ~ N(0, 1)`` between consecutive edges ``z[..., :-1]``, ``z[..., 1:]`` (as
    :func:`normal_mass`, but the CDF once per edge), or their logs (``log=True``: finite far beyond
    the double range).

    Each edge's smaller tail ``P(Z > |z|)`` once; a cell with both edges in one tail is the difference
    of two such tails (absolute round-off 1e-16 of the nearer tail, as ``ndtr(b) - ndtr(a)``), a cell
    across 0 is ``1 - P(Z < a) - P(Z > b)``.  In logs (``log_ndtr``, ``t`` the log tails) a one-tail cell
    is ``t_near + log(1 - e^(t_far - t_near))``, exact far below the smallest double."""
    upper = z[..., :-1] >= 0
    across = (~upper) & (z[..., 1:] > 0)
    if not log:  # tails P(Z > |z|) (ndtr, full relative precision to the smallest double) and differences
        e = np.abs(z)
        e = ndtr(np.negative(e, out=e))
        out = e[..., :-1] - e[..., 1:]
        np.negative(out, out=out, where=~upper)
        at = np.nonzero(across)  # at most one cell per row of edges: the middle mass there only
        out[at] = 1.0 - e[..., :-1][at] - e[..., 1:][at]
        return np.maximum(out, 0.0, out=out)
    small = log_ndtr(-np.abs(z))
    e = np.exp(small)
    # one tail: log of the ratio far/near (<= 0); across 0: the middle mass
    gap = small[..., 1:] - small[..., :-1]
    np.negative(gap, out=gap, where=~upper)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        share = -np.expm1(gap)
        share[across] = (1.0 - e[..., :-1] - e[..., 1:])[across]
        np.maximum(share, 0.0, out=share)
        near = np.where(upper, small[..., :-1], small[..., 1:])
        near[across] = 0.0
        return near + np.log(share)


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
        """Law on the grid of ``Proj(y + N(0, s^2))`` for each point ``y``: shape ``y.shape + (C+2,)``.

        Only the cells within ``LINEAR_REACH`` standard deviations of ``y`` are computed; the others
        are exactly 0 in double precision whichever way they are computed."""
        y = np.asarray(y, dtype=float)
        flat = y.reshape(-1)
        C = self.cells
        width = int(np.ceil(2 * LINEAR_REACH * s / self.h)) + 2
        out = np.zeros((flat.size, C + 2))
        out[:, 0] = np.exp(log_ndtr((self.lo - flat) / s))
        out[:, -1] = np.exp(log_ndtr((flat - self.hi) / s))
        if width >= C:
            out[:, 1:-1] = _cell_masses((self.edges - flat[:, None]) / s)
        else:
            centre = np.clip(np.nan_to_num((flat - self.lo) / self.h), -C, 2 * C)
            start = np.clip(np.floor(centre - width / 2).astype(np.int64), 0, C - width)
            edge = start[:, None] + np.arange(width + 1)
            cells = _cell_masses((self.edges[edge] - flat[:, None]) / s)
            np.put_along_axis(out, 1 + edge[:, :-1], cells, axis=1)
        return out.reshape(y.shape + (C + 2,))

    def log_row(self, y: np.ndarray, s: float) -> np.ndarray:
        """``log`` of :meth:`row`, every cell (finite far below the smallest double)."""
        y = np.asarray(y, dtype=float)[..., None]
        z = (self.edges - y) / s
        out = np.empty(y.shape[:-1] + (self.cells + 2,))
        out[..., 0] = log_ndtr(z[..., 0])
        out[..., 1:-1] = _cell_masses(z, log=True)
        out[..., -1] = log_ndtr(-z[..., -1])
        return out

    def _shifts(self, mixture: Mixture):
        """``(weight, destination of every support point)`` for each component of ``mixture``."""
        src = self.support
        for w, c in zip(mixture.weights, mixture.displacements):
            if w == 0:
                continue
            shift = np.asarray(c(src), dtype=float) if callable(c) else np.full(src.shape, float(c))
            if shift.shape != src.shape or not np.all(np.isfinite(shift)):
                raise InputError("a displacement map must return finite values of the input's shape", "displacements")
            yield w, src + shift

    def _component(self, dest: np.ndarray, s: float, log: bool) -> np.ndarray:
        """Rows of every support point moved to ``dest``, remembered by value: the same step (the
        unused-record component of D and D', a batch kernel that recurs) is computed once."""
        key = (dest.tobytes(), float(s), log)
        cache = self.__dict__.setdefault("_rows", {})
        if key not in cache:
            while cache and sum(v.nbytes for v in cache.values()) > ROW_CACHE_BYTES:
                cache.pop(next(iter(cache)))
            cache[key] = self.log_row(dest, s) if log else self.row(dest, s)
        return cache[key]

    def kernel(self, mixture: Mixture, s: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Cell-to-cell kernel of a translation mixture over offsets ``-(C-1)..C-1``, and the fold
        vectors: the probability that a cell's mass leaves the interval below ``lo`` / above ``hi``."""
        C, h = self.cells, self.h
        edges = (np.arange(-(C - 1), C + 1, dtype=float) - 0.5) * h
        kern = np.zeros(2 * C - 1)
        fold_lo, fold_hi = np.zeros(C), np.zeros(C)
        j = np.arange(C, dtype=float)
        for w, c in zip(mixture.weights, mixture.displacements):
            if w == 0:
                continue
            kern += w * _cell_masses((edges - c) / s)
            fold_lo += w * np.exp(log_ndtr((-(j + 0.5) * h - c) / s))  # P(x_j + c + Z < lo)
            fold_hi += w * np.exp(log_ndtr(-((C - j - 0.5) * h - c) / s))  # P(x_j + c + Z > hi)
        return kern, fold_lo, fold_hi

    def translation_step(self, mixture: Mixture, s: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The parts of a translation's :meth:`dense` matrix: :meth:`kernel` (kernel and fold vectors) and the
        rows of the atoms ``lo`` and ``hi``, ``(2, C+2)``."""
        if not np.all(np.isfinite(np.asarray(mixture.displacements, dtype=float))):
            raise InputError("a displacement map must return finite values of the input's shape", "displacements")
        weights = np.asarray(mixture.weights)
        atoms = np.stack([weights @ self.row(np.array([end + float(c) for c in mixture.displacements]), s)
                          for end in (self.lo, self.hi)])
        return (*self.kernel(mixture, s), atoms)

    def log_kernel(self, mixture: Mixture, s: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``log`` of :meth:`kernel` (every offset, finite far below the smallest double)."""
        C, h = self.cells, self.h
        edges = (np.arange(-(C - 1), C + 1, dtype=float) - 0.5) * h
        j = np.arange(C, dtype=float)
        parts = [(np.log(w) + _cell_masses((edges - c) / s, log=True),
                  np.log(w) + log_ndtr((-(j + 0.5) * h - c) / s),
                  np.log(w) + log_ndtr(-((C - j - 0.5) * h - c) / s))
                 for w, c in zip(mixture.weights, mixture.displacements) if w > 0]
        return tuple(logsumexp(np.stack([p[k] for p in parts]), axis=0) for k in range(3))

    def dense(self, mixture: Mixture, s: float) -> np.ndarray:
        """``(C+2, C+2)`` transition matrix of one step (any displacement).

        A translation's cell rows are shifts of one kernel (:meth:`kernel`: the CDF at ``2C`` edges, not
        at ``C`` edges per row); the masses are the same Gaussian cell masses, their arguments rounded
        differently (relative differences of a few ulps times the argument)."""
        C = self.cells
        if mixture.translation:
            kern, fold_lo, fold_hi, atoms = self.translation_step(mixture, s)
            out = np.empty((C + 2, C + 2))
            out[1:-1, 1:-1] = np.lib.stride_tricks.sliding_window_view(kern, C)[::-1]  # row j: kern[C-1-j:2C-1-j]
            out[1:-1, 0], out[1:-1, -1] = fold_lo, fold_hi
            out[0], out[-1] = atoms
            return out
        out = np.zeros((C + 2, C + 2))
        for w, dest in self._shifts(mixture):
            out += w * self._component(dest, s, log=False)
        return out

    def log_dense(self, mixture: Mixture, s: float) -> np.ndarray:
        """``log`` of :meth:`dense`, every entry."""
        parts = [np.log(w) + self._component(dest, s, log=True) for w, dest in self._shifts(mixture)]
        if len(parts) == 2:
            return logaddexp_as_logsumexp(*parts)
        return parts[0] if len(parts) == 1 else logsumexp(np.stack(parts), axis=0)


def logaddexp_as_logsumexp(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``scipy.special.logsumexp(np.stack([a, b]), axis=0)``, the same doubles, in a few passes over the
    arrays instead of some twenty: the larger term factored out, the other's share by ``log1p`` (``+ log 2``
    on a tie), and where that is not finite ``log(e^a + e^b)``, as scipy does."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        top = np.maximum(a, b)
        tie = a == b
        share = np.exp(np.minimum(a, b) - top)
        share[tie] = 0.0
        out = np.log1p(share)
        out += np.where(tie, np.log(2.0), 0.0)
        out += top
        bad = ~np.isfinite(out)
        if bad.any():
            out[bad] = np.log(np.exp(a[bad]) + np.exp(b[bad]))
    return out


def _band_cells(grid: IntervalGrid, schedules, s: float) -> int:
    """Offsets at which a translation kernel of ``schedules`` can be non-zero in double precision."""
    shifts = [float(c) for sch in schedules for mx in sch for c in mx.displacements]
    spread = max(shifts) - min(shifts) + 2 * LINEAR_REACH * s
    return int(min(2 * grid.cells - 1, spread / grid.h + 3))


def convolve_band(cells: np.ndarray, kern: np.ndarray) -> np.ndarray:
    """``np.convolve(cells, kern)[C-1:2C-1]`` (kernel over offsets ``-(C-1)..C-1``) over the kernel's
    non-zero band only: the same sums without their exact-zero terms (a kernel without zeros: the
    ``valid`` products only, not the ``C(C-1)`` that land outside the interval)."""
    C = cells.size
    nz = np.flatnonzero(kern)
    if nz.size == 0:
        return np.zeros(C)
    k0 = int(nz[0])
    if k0 == 0 and nz[-1] == kern.size - 1:  # the whole kernel: exactly the C products of each output
        return np.convolve(kern, cells, "valid")
    full = np.convolve(cells, kern[k0:int(nz[-1]) + 1])  # full[n] is the complete product at n + k0
    out = np.zeros(C)
    first, last = max(C - 1 - k0, 0), min(2 * C - 1 - k0, full.size)
    if last > first:
        out[first - (C - 1 - k0):last - (C - 1 - k0)] = full[first:last]
    return out


#: outputs per block of :func:`toeplitz_blocks` (its ``2 C`` by ``TOEPLITZ_BLOCK`` window matrix, 2 MB at C = 2048,
#: stays in cache, where the full ``C`` by ``C`` Toeplitz matrix, 32 MB, is read from memory)
TOEPLITZ_BLOCK = 64


def toeplitz_blocks(kern: np.ndarray, C: int) -> np.ndarray | None:
    """The cell-to-cell product of a whole kernel (offsets ``-(C-1)..C-1``) as ``C / b`` blocks of ``b`` outputs,
    ``W[i][m, p] = kern[i b + p - m + C - 1]`` (shape ``(C/b, C, b)``, a strided view of one ``2C`` by ``b``
    array of windows): ``rows @ W`` gives, block by block, what :func:`convolve_band` gives row by row, the same
    non-negative products summed by BLAS in another order.  Several rows share each read of a block; None when
    no block width divides ``C``."""
    width = next((b for b in (TOEPLITZ_BLOCK, 32, 16, 8) if C % b == 0), None)
    if width is None:
        return None
    # windows[r, p] = kern[r + p] for r < 2C - 1 (the last window padded with zeros), rows reversed so that
    # W[i][m] = windows[(i b + C - 1) - m] walks forward in m
    padded = np.concatenate([kern, np.zeros(width)])
    windows = np.lib.stride_tricks.sliding_window_view(padded, width)[:2 * C][::-1].copy()
    start = windows.shape[0] - C  # the row of W[0][0]: windows[C - 1] read backwards
    row, col = windows.strides
    return np.lib.stride_tricks.as_strided(windows[start:], shape=(C // width, C, width),
                                           strides=(-width * row, row, col), writeable=False)


def _distinct(grid: IntervalGrid, schedules, build) -> list[list[np.ndarray]]:
    """``build(mx)`` for every mixture of ``schedules``, computed once per distinct step (equal weights
    and equal destinations of every support point), e.g. the l - 1 record-free batches of a cycle."""
    keys = [[tuple((w, dest.tobytes()) for w, dest in grid._shifts(mx)) for mx in sch] for sch in schedules]
    count = len({k for row in keys for k in row})
    need = count * (grid.cells + 2) ** 2 * 8
    if need > TRANSLATION_MAX_BYTES:
        raise PointRefused(f"{count} distinct dense steps of {grid.cells} cells need {need / 2 ** 30:.2g} GiB (limit "
                           f"{TRANSLATION_MAX_BYTES / 2 ** 30:.2g} GiB): fewer cells", "cells")
    made: dict = {}
    for sch, row in zip(schedules, keys):
        for mx, key in zip(sch, row):
            if key not in made:
                made[key] = build(mx)
    return [[made[key] for key in row] for row in keys]


def step_product(grid: IntervalGrid, mixture: Mixture, s: float) -> Callable[[np.ndarray], np.ndarray]:
    """``X -> X @ grid.dense(mixture, s)`` for rows ``X`` of states ``(n, C+2)``.  A translation's matrix is
    never formed: its cell-to-cell block is one kernel, applied as a direct convolution (:func:`convolve_band`),
    plus the fold columns and the atoms' rows (:meth:`IntervalGrid.translation_step`, the parts of ``dense``).
    The same non-negative products as the matrix product, summed in another order (relative round-off of
    a sum of ``C + 2`` positive terms either way); the kernel stays in cache where the matrix, ``8 (C+2)^2``
    bytes, is read from memory at every step."""
    if not mixture.translation:
        matrix = grid.dense(mixture, s)
        return lambda rows: rows @ matrix
    kern, fold_lo, fold_hi, atoms = grid.translation_step(mixture, s)
    C = grid.cells

    @functools.cache
    def blocks() -> np.ndarray | None:
        """A kernel without zeros moves several rows at once by blocks of its Toeplitz matrix (the shuffled
        engine moves the unused and used rows of D and D' by the same step), made at its first such product; a
        banded kernel, or one row, goes by the convolution of its band."""
        return toeplitz_blocks(kern, C) if kern[0] > 0 and kern[-1] > 0 else None

    def product(rows: np.ndarray) -> np.ndarray:
        cells = rows[:, 1:-1]
        out = rows[:, :1] * atoms[0] + rows[:, -1:] * atoms[1]
        if len(cells) > 1 and blocks() is not None:
            out[:, 1:-1] += np.matmul(cells, blocks()).transpose(1, 0, 2).reshape(len(cells), C)
        else:
            out[:, 1:-1] += np.stack([convolve_band(x, kern) for x in cells])
        out[:, 0] += cells @ fold_lo
        out[:, -1] += cells @ fold_hi
        return out

    return product


def _scoped_rows(engine):
    """An engine call remembers component rows (:meth:`IntervalGrid._component`) only while it runs."""
    @functools.wraps(engine)
    def run(grid, *args, **kwargs):
        try:
            return engine(grid, *args, **kwargs)
        finally:
            grid.__dict__.pop("_rows", None)
    return run


def evolve(grid: IntervalGrid, x0: float, s: float, schedule: Sequence[Mixture], T: int,
           method: str = "auto") -> tuple[np.ndarray, np.ndarray | None]:
    """Law of ``theta_T`` on ``grid`` from ``theta_0 = x0``; step ``k`` uses ``schedule[k % len]``.

    Returns the state vector (atoms and cells) and, in ``fft`` and ``dense`` modes, the mask of entries
    that were below the floor (replaced by the floor); ``None`` when there were none (or ``direct``).
    """
    states, small = evolve_many(grid, x0, s, [schedule], T, method)
    return states[0], small


@_scoped_rows
def evolve_many(grid: IntervalGrid, x0: float, s, schedules: Sequence[Sequence[Mixture]], T: int,
                method: str = "auto") -> tuple[np.ndarray, np.ndarray | None]:
    """:func:`evolve` for several schedules of one length at once (e.g. D and D'): states ``(k, C+2)``.

    ``s`` is the noise std of every step, or a sequence of ``T`` stds, one per step (non-uniform step
    sizes ``eta_t sigma``; dense mode).  The floor mask (``fft`` and ``dense`` modes) is the union over
    the schedules.  Engines: ``dense`` (a transition matrix per distinct step, any displacement),
    ``direct`` and ``fft`` (translations only: a convolution per step, exact sums or FFT); ``auto`` chooses.
    """
    stds, method = _evolve_method(grid, x0, s, schedules, T, method)
    state = np.stack([_first_state(grid, x0, float(stds[0]), sch[0]) for sch in schedules])
    if method == "dense":
        return _evolve_dense(grid, state, stds, schedules, T)
    return _evolve_translations(grid, state, float(stds[0]), schedules, T, method)


def _evolve_method(grid: IntervalGrid, x0: float, s, schedules: Sequence[Sequence[Mixture]], T: int,
                   method: str) -> tuple[np.ndarray, str]:
    """The checked arguments of :func:`evolve_many`: the noise stds (one, or one per step) and the engine."""
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
    if method not in ("auto", "fft", "direct", "dense"):
        raise InputError(f"method must be auto, fft, direct or dense, got {method!r}", "method")
    L = len(schedules[0])
    if L == 0 or any(len(sch) != L for sch in schedules):
        raise InputError("schedules must be non-empty and of one length", "schedules")
    C = grid.cells
    translation = all(mx.translation for sch in schedules for mx in sch)
    if method == "auto":  # direct (exact sums) while its work, C times the kernel's band, stays moderate
        method = "dense" if not translation else (
            "direct" if C * _band_cells(grid, schedules, float(stds[0])) * T <= 1e9 else "fft")
    if method in ("fft", "direct") and not translation:
        raise InputError(f"method {method!r} needs translations only; use method='dense'", "method")
    if method == "dense" and C > DENSE_MAX_CELLS:
        raise InputError(f"method 'dense' supports at most {DENSE_MAX_CELLS} cells, got {C}", "cells")
    return stds, method


def _first_state(grid: IntervalGrid, x0: float, s: float, mx: Mixture) -> np.ndarray:
    """The law after the first step from ``x0`` (displacement mixture ``mx``, noise std ``s``)."""
    out = np.zeros(grid.cells + 2)
    for w, c in zip(mx.weights, mx.displacements):
        y = x0 + (float(c(np.array(x0))) if callable(c) else float(c))
        out += w * grid.row(np.array(y), s)
    return out


def _evolve_dense(grid: IntervalGrid, state: np.ndarray, stds: np.ndarray, schedules: Sequence[Sequence[Mixture]],
                  T: int) -> tuple[np.ndarray, np.ndarray | None]:
    """The dense engine: a transition matrix per distinct step (per step with per-step stds)."""
    L = len(schedules[0])
    if stds.size > 1:  # one transition matrix per step (its own noise std)
        for k in range(1, T):
            state = np.stack([state[i] @ grid.dense(sch[k % L], float(stds[k])) for i, sch in enumerate(schedules)])
    else:
        s = float(stds[0])
        mats = _distinct(grid, schedules, lambda mx: grid.dense(mx, s))
        for k in range(1, T):
            state = np.stack([state[i] @ mats[i][k % L] for i in range(len(schedules))])
    small = np.any(state < DENSE_FLOOR, axis=0)
    if not small.any():
        return state, None
    state = np.maximum(state, DENSE_FLOOR)
    return state / state.sum(axis=1, keepdims=True), small


def _evolve_translations(grid: IntervalGrid, state: np.ndarray, s: float, schedules: Sequence[Sequence[Mixture]],
                         T: int, method: str) -> tuple[np.ndarray, np.ndarray | None]:
    """The ``direct`` and ``fft`` engines (translations only): one kernel per distinct step (a cycle of l batches
    has two), memory independent of the cycle length; the walls' atoms folded in exactly."""
    C, L = grid.cells, len(schedules[0])
    distinct: dict = {}  # step key -> (number, mixture)
    key = lambda mx: (mx.weights, tuple(float(c) for c in mx.displacements))
    index = np.array([[distinct.setdefault(key(sch[j]), (len(distinct), sch[j]))[0] for sch in schedules]
                      for j in range(L)])  # (L, k): the distinct step of law i at position j
    steps = [mx for _, mx in distinct.values()]
    need = len(steps) * (2 * C - 1 + 2 * C + 2 * (C + 2)) * 8 * (2 if method == "fft" else 1)
    if need > TRANSLATION_MAX_BYTES:
        raise PointRefused(f"{len(steps)} distinct steps of {C} cells need {need / 2 ** 30:.2g} GiB of kernels (limit "
                           f"{TRANSLATION_MAX_BYTES / 2 ** 30:.2g} GiB): fewer cells", "cells")
    parts = [grid.translation_step(mx, s) for mx in steps]
    kernels = np.array([p[0] for p in parts])  # (distinct, 2C-1)
    folds_lo = np.array([p[1] for p in parts])  # (distinct, C)
    folds_hi = np.array([p[2] for p in parts])
    rows_lo, rows_hi = np.array([p[3][0] for p in parts]), np.array([p[3][1] for p in parts])  # (distinct, C+2)
    if method == "fft":  # circular convolution of size >= 2C - 1 leaves the interior exact
        nfft = sfft.next_fast_len(2 * C - 1, real=True)
        spectra = sfft.rfft(kernels, nfft, axis=-1)
    k_laws = len(schedules)
    gathered: dict = {}  # the steps' arrays of each law, gathered once per distinct combination (a few)

    def gather(j: np.ndarray) -> tuple:
        key = j.tobytes()
        out = gathered.get(key)
        if out is None:
            out = (spectra[j] if method == "fft" else None, folds_lo[j], folds_hi[j], rows_lo[j], rows_hi[j])
            if len(gathered) < 16:
                gathered[key] = out
        return out

    for k in range(1, T):
        j = index[k % L]  # the distinct step of each law
        spectrum, fold_lo, fold_hi, row_lo, row_hi = gather(j)
        cells = state[:, 1:-1]
        if method == "direct":
            middle = np.stack([convolve_band(cells[i], kernels[j[i]]) for i in range(k_laws)])
        else:
            middle = sfft.irfft(sfft.rfft(cells, nfft, axis=-1) * spectrum, nfft, axis=-1)[:, C - 1:2 * C - 1]
            middle[middle < FFT_FLOOR] = 0.0
        new = np.empty_like(state)
        new[:, 0] = np.einsum("ij,ij->i", cells, fold_lo)
        new[:, 1:-1] = middle
        new[:, -1] = np.einsum("ij,ij->i", cells, fold_hi)
        new += state[:, :1] * row_lo + state[:, -1:] * row_hi
        state = new
    if method == "fft" and T > 1:
        small = np.any(state < FFT_FLOOR, axis=0)
        state = np.maximum(state, FFT_FLOOR)
        return state / state.sum(axis=1, keepdims=True), small
    return state, None


@_scoped_rows
def evolve_shuffled(grid: IntervalGrid, x0: float, s: float, pairs: Sequence[tuple[Mixture, Mixture]], l: int,
                    T: int) -> tuple[np.ndarray, np.ndarray | None]:
    """Law of ``theta_T`` under shuffled batches, for several laws at once: states ``(k, C+2)``.

    Each of ``pairs`` is ``(still, use)``: the step without and with the differing record.  A fresh
    permutation every epoch of ``l`` steps puts the record in a uniform batch, independently across
    epochs, so one epoch's kernel is the average of the ``l`` kernels that use it at step ``j``,
    ``(1/l) sum_j A^j B A^(l-1-j)`` (``A``, ``B`` the dense steps ``still``, ``use``).  It is applied as two
    running vectors, ``U`` (not used yet this epoch) and ``W`` (used once): ``W <- W A + U B``,
    ``U <- U A``, the cost of ``2T`` steps (a translation's step a direct convolution of its kernel,
    :func:`step_product`; any other a dense product).  A partial last epoch of ``r`` steps uses the record
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
    k = len(pairs)
    # one product per distinct step (D and D' share the step without the record): rows of every law that a
    # step moves are multiplied at once (a translation's kernel, or a matrix read once per step)
    mats = _distinct(grid, [list(p) for p in pairs], lambda mx: step_product(grid, mx, s))
    number: dict = {}  # id of a distinct matrix -> its index
    distinct = [number.setdefault(id(m), (len(number), m))[1] for row in mats for m in row if id(m) not in number]
    which = [[number[id(m)][0] for m in row] for row in mats]  # (k, 2): the matrices of still and use

    def first(mx: Mixture) -> np.ndarray:
        return sum(w * grid.row(np.array(x0 + (float(c(np.array(x0))) if callable(c) else float(c))), s)
                   for w, c in zip(mx.weights, mx.displacements))

    unused = np.stack([first(still) for still, _ in pairs])  # after step 0, the first of epoch 0
    used = np.stack([first(use) for _, use in pairs])
    # row r of the stacked inputs (unused rows 0..k-1, used rows k..2k-1) times matrix m lands in new_unused
    # (still, from unused), new_used (still, from used) or new_used (use, from unused)
    jobs = [[] for _ in distinct]  # matrix -> (source row, target: 0 unused / 1 used, law)
    for i, (a, b) in enumerate(which):
        jobs[a] += [(i, 0, i), (k + i, 1, i)]
        jobs[b].append((i, 1, i))
    plan = [(m, *(np.array(col) for col in zip(*js))) for m, js in zip(distinct, jobs) if js]
    # a fresh epoch starts from used / l for both (every path used the record once): only the unused rows move;
    # with l = 1 every step is a fresh epoch and the law not using the record has weight 0: not computed
    fresh = [(m, rows[sel], to[sel], law[sel]) for m, rows, to, law in plan
             for sel in [(rows < k) & ((to == 1) | (l > 1))] if sel.any()]
    for t in range(1, T):
        src, steps = (used / l, fresh) if t % l == 0 else (np.concatenate([unused, used]), plan)
        new = np.zeros((2, k, grid.cells + 2))
        for m, rows, to, law in steps:
            np.add.at(new, (to, law), m(src[rows]))
        unused, used = new[0], new[1]
    done = T - l * ((T - 1) // l)  # steps of the last (possibly partial) epoch
    state = used / l + (1.0 - done / l) * unused
    small = np.any(state < DENSE_FLOOR, axis=0)
    if not small.any():
        return state, None
    state = np.maximum(state, DENSE_FLOOR)
    return state / state.sum(axis=1, keepdims=True), small


__all__ = ["DENSE_FLOOR", "DENSE_MAX_CELLS", "FFT_FLOOR", "IntervalGrid", "LINEAR_REACH", "Mixture", "evolve",
           "evolve_many", "evolve_shuffled", "normal_mass"]
