"""Log-space sums shared by the exact references (grids, Rényi quadratures, discrete pairs).

:func:`logsumexp` is ``scipy.special.logsumexp`` for a real array without weights, the same doubles in the
same operations, without its array-API dispatch: the references call it some ten thousand times a run on
short rows, where the dispatch cost ten times the arithmetic (``tests/test_logspace.py`` compares the two
bit for bit, ties, infinities and NaN included).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from verify.errors import InputError

__all__ = ["logsumexp"]


def logsumexp(a: ArrayLike, axis: int | tuple[int, ...] | None = None) -> np.ndarray | np.float64:
    """``log(sum(exp(a)))`` over ``axis`` (all axes when None), as scipy computes it: the largest term
    factored out and its ties counted apart (``log1p(s / m) + log(m) + max``, ``s`` the sum of the other
    shifted exponentials, ``m`` the number of maxima; Blanchard, Higham, Higham 2021), and where that is not
    finite (every term ``-inf``, a ``+inf`` or a NaN) ``log(sum(exp(a)))`` directly.  A 0-d result is a
    numpy scalar, as scipy's.  Anything but real numbers (strings, complex, None) is refused (InputError naming
    ``a``)."""
    a = np.asarray(a)
    if a.dtype.kind not in "biuf":
        raise InputError(f"logsumexp needs real numbers, got an array of dtype {a.dtype}", "a")
    a = a.astype(float, copy=False)
    if a.ndim == 0:
        a = a.reshape(1)
    if a.size == 0:  # scipy's answer for an empty sum (-inf over the reduced shape)
        from scipy.special import logsumexp as scipy_logsumexp

        return scipy_logsumexp(a, axis=axis)
    axes = tuple(range(a.ndim)) if axis is None else axis
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        top = np.max(a, axis=axes, keepdims=True)
        is_top = a == top
        ties = np.sum(is_top, axis=axes, keepdims=True, dtype=float)
        rest = np.where(is_top, -np.inf, a)
        s = np.sum(np.exp(rest - top), axis=axes, keepdims=True)
        s = np.where(s == 0, s, s / ties)
        out = np.log1p(s) + np.log(ties) + top
        bad = ~np.isfinite(out)
        if bad.any():
            out = np.where(bad, np.log(np.sum(np.exp(a), axis=axes, keepdims=True)), out)
    out = np.squeeze(out, axis=axes)
    return out[()] if out.ndim == 0 else out
