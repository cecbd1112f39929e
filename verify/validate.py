"""Input validation: one dialect for every public function (builders, conversions, commands).

Each helper returns the value converted (``float``, ``int``, ``str`` or an array) or raises
:class:`~verify.errors.InputError` naming the parameter and the violated condition, e.g.
``bok_c16: sigma must be finite and > 0, got -1``.  ``where`` is the function or record at fault.
"""

from __future__ import annotations

import math
import reprlib
from typing import Collection

from verify.errors import InputError
from verify.lazy import OnFirstUse

#: numpy only for :func:`array`: the command line's option parsing (``verify --help``) imports this module
np = OnFirstUse("numpy", globals(), "np")


def _as_float(name: str, value, where: str, what: str) -> float:
    """``float(value)``, or InputError saying ``name`` must be ``what`` (booleans are not numbers)."""
    if isinstance(value, bool):
        raise InputError(f"{name} must be {what}, got {value!r}", name, where)
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"{name} must be {what}, got {value!r}", name, where) from None


def number(name: str, value, where: str = "") -> float:
    """A real number (NaN refused; infinities allowed: the caller decides)."""
    v = _as_float(name, value, where, "a number")
    if math.isnan(v):
        raise InputError(f"{name} must be a number, got NaN", name, where)
    return v


def finite(name: str, value, where: str = "") -> float:
    v = number(name, value, where)
    if not math.isfinite(v):
        raise InputError(f"{name} must be finite, got {value!r}", name, where)
    return v


def positive(name: str, value, where: str = "") -> float:
    v = number(name, value, where)
    if not (math.isfinite(v) and v > 0):
        raise InputError(f"{name} must be finite and > 0, got {value!r}", name, where)
    return v


def nonnegative(name: str, value, where: str = "") -> float:
    v = number(name, value, where)
    if not (math.isfinite(v) and v >= 0):
        raise InputError(f"{name} must be finite and >= 0, got {value!r}", name, where)
    return v


def probability(name: str, value, where: str = "", *, open_lo: bool = True, open_hi: bool = False) -> float:
    """A number in the unit interval; ``(0, 1]`` by default."""
    v = number(name, value, where)
    lo_ok = v > 0 if open_lo else v >= 0
    hi_ok = v < 1 if open_hi else v <= 1
    if not (lo_ok and hi_ok):
        interval = ("(" if open_lo else "[") + "0, 1" + (")" if open_hi else "]")
        raise InputError(f"{name} must lie in {interval}, got {value!r}", name, where)
    return v


def integer(name: str, value, where: str = "", low: int = 1, high: int = 2 ** 53) -> int:
    """An integer in ``[low, high]`` (a float with an integer value is accepted)."""
    v = _as_float(name, value, where, "an integer")
    if not (math.isfinite(v) and v == round(v) and v >= low):
        raise InputError(f"{name} must be an integer >= {low}, got {value!r}", name, where)
    if v > high:
        raise InputError(f"{name} must be <= {high:g}, got {value!r}", name, where)
    return int(v)


def choice(name: str, value, options: Collection[str], where: str = "") -> str:
    if value not in options:
        raise InputError(f"{name} must be one of {tuple(options)}, got {value!r}", name, where)
    return value


def array(
    name: str,
    value,
    shape: tuple[int, ...] | None = None,
    where: str = "",
    *,
    low: float | None = None,
    low_open: bool = False,
    high: float | None = None,
    high_open: bool = False,
    finite: bool = True,
) -> np.ndarray:
    """A float array (of ``shape`` when given), NaN refused, finite unless ``finite=False``, every entry
    within ``low`` / ``high`` (open or closed ends) when given; broadcasting is left to the caller."""
    try:
        if np.iscomplexobj(value):  # a cast to float would drop the imaginary part with only a warning
            raise TypeError
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"{name} must be real numbers, got {reprlib.repr(value)}", name, where) from None
    if shape is not None and arr.shape != shape:
        raise InputError(f"{name} must have shape {shape} (mismatched dimensions), got {arr.shape}", name, where)
    if np.isnan(arr).any():
        raise InputError(f"{name} must not be NaN", name, where)
    if finite and not np.isfinite(arr).all():
        raise InputError(f"{name} must be finite, got {float(arr[~np.isfinite(arr)].ravel()[0])!r}", name, where)
    for bound, is_open, below in ((low, low_open, True), (high, high_open, False)):
        if bound is None:
            continue
        if below:
            bad, op = (arr <= bound, ">") if is_open else (arr < bound, ">=")
        else:
            bad, op = (arr >= bound, "<") if is_open else (arr > bound, "<=")
        if bad.any():
            raise InputError(f"{name} must be {op} {bound:g}, got {float(arr[bad].ravel()[0])!r}", name, where)
    return arr


__all__ = ["array", "choice", "finite", "integer", "nonnegative", "number", "positive", "probability"]
