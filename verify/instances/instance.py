"""The :class:`Instance` record and the :class:`Family` of instances a theorem is checked on.

An instance is one concrete run of the canonical algorithm (DESIGN.md §3): losses, a pair of
neighbouring datasets, step size, noise, batches, constraint set, initialisation.  It carries the
constants it derives from its own definition (``params()``, in the canonical vocabulary of
:mod:`verify.theorem`), the classes its losses belong to, and the exact privacy of its last
iterate (``profile()``, computed once and cached).
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from verify.instances.profile import PrivacyProfile
from verify.theorem import Setting

LOSS_CLASSES: frozenset[str] = frozenset(
    {"quadratic", "squared", "linear", "convex", "strongly_convex", "smooth", "lipschitz"})
# "squared": an isotropic quadratic, H = m I (the squared loss of Chourasia et al.)


@dataclass(frozen=True)
class Instance:
    """One run and its neighbour; ``profile()`` is the exact privacy of the last iterate.

    * ``constants``: canonical parameter values defined for this instance (see :meth:`params`).
    * ``run``: what describes the run (losses, data, H, x, x', eta, sigma, T, batches, projection,
      init) as plain values, for reports and replays.
    * ``compute``: builds the profile (called once).
    * ``extras``: further exact references of this instance by name (e.g.
      ``expected_excess_risk`` for the quadratic chains).
    """

    name: str
    family: str
    setting: Setting
    loss_classes: frozenset[str]
    constants: Mapping[str, float]
    run: Mapping[str, Any] = field(default_factory=dict)
    compute: Callable[[], PrivacyProfile] | None = field(default=None, compare=False, repr=False)
    extras: Mapping[str, Callable[..., Any]] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        unknown = set(self.loss_classes) - LOSS_CLASSES
        if unknown:
            raise ValueError(f"{self.name}: unknown loss classes {sorted(unknown)}")

    def params(self) -> dict[str, float]:
        """Canonical parameter values: those of n, b, q, l, T, E, eta, sigma, Delta, L, m, M, D, d
        (and z, Cclip for DP-SGD) that are defined for this instance."""
        return dict(self.constants)

    def profile(self) -> PrivacyProfile:
        """The exact privacy of the last iterate (cached)."""
        cached = self.__dict__.get("_profile")
        if cached is None:
            if self.compute is None:
                raise ValueError(f"{self.name}: this instance has no privacy profile")
            cached = self.compute()
            self.__dict__["_profile"] = cached
        return cached

    def reference(self, name: str, *args, **kwargs):
        """Evaluate the extra exact reference ``name`` (see ``extras``)."""
        if name not in self.extras:
            raise ValueError(f"{self.name}: no reference {name!r}; has {sorted(self.extras)}")
        return self.extras[name](*args, **kwargs)

    def expected_excess_risk(self, T=None):
        """Exact E[L_D(theta_T) - min L_D] (quadratic chains only); vectorised over ``T``."""
        return self.reference("expected_excess_risk", T)


@dataclass(frozen=True)
class Family:
    """A parametric family of instances: ``build(**canonical params, **family keywords)``."""

    name: str
    description: str
    setting: Setting
    builder: Callable[..., Instance] = field(repr=False)
    source: str = ""

    @property
    def parameters(self) -> tuple[str, ...]:
        """The keywords :meth:`build` accepts (canonical names first, then family keywords)."""
        names = [p for p in inspect.signature(self.builder).parameters if not p.startswith("_")]
        return tuple(names)

    @property
    def required(self) -> tuple[str, ...]:
        """The keywords :meth:`build` cannot do without."""
        sig = inspect.signature(self.builder).parameters
        return tuple(p for p, v in sig.items() if v.default is inspect.Parameter.empty)

    def build(self, **params) -> Instance:
        """Build one instance; ValueError naming the problem for invalid (or unknown, or missing)
        parameters."""
        unknown = [k for k in params if k not in self.parameters]
        if unknown:
            raise ValueError(f"{self.name}: unknown parameter(s) {', '.join(unknown)} "
                             f"(accepts {', '.join(self.parameters)})")
        missing = [k for k in self.required if k not in params]
        if missing:
            raise ValueError(f"{self.name}: missing parameter(s) {', '.join(missing)}")
        return self.builder(**params)


# ---------------------------------------------------------------------------------------------------
# validation helpers (every builder raises ValueError naming the parameter and the condition)
# ---------------------------------------------------------------------------------------------------


def positive(name: str, value, where: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: {name} must be a number, got {value!r}") from None
    if not (math.isfinite(v) and v > 0):
        raise ValueError(f"{where}: {name} must be finite and > 0, got {value!r}")
    return v


def nonnegative(name: str, value, where: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: {name} must be a number, got {value!r}") from None
    if not (math.isfinite(v) and v >= 0):
        raise ValueError(f"{where}: {name} must be finite and >= 0, got {value!r}")
    return v


def sensitivity(value, where: str) -> float:
    """Delta, the gradient difference of the differing record: > 0 (0 means D' = D)."""
    v = nonnegative("Delta", value, where)
    if v == 0:
        raise ValueError(f"{where}: the differing record equals the original (Delta = 0)")
    return v


def integer(name: str, value, where: str, low: int = 1, high: int = 2 ** 53) -> int:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: {name} must be an integer, got {value!r}") from None
    if not (math.isfinite(v) and v == round(v) and v >= low):
        raise ValueError(f"{where}: {name} must be an integer >= {low}, got {value!r}")
    if v > high:
        raise ValueError(f"{where}: {name} must be <= {high:g}, got {value!r}")
    return int(v)


def choice(name: str, value, options: tuple[str, ...], where: str) -> str:
    if value not in options:
        raise ValueError(f"{where}: {name} must be one of {options}, got {value!r}")
    return value


def batches_of(n: int, batches: str, b, where: str, allowed: tuple[str, ...]) -> tuple[int, int]:
    """``(b, l)`` for a batch scheme: full (b = n, l = 1), cyclic (b divides n), poisson/uniform."""
    choice("batches", batches, allowed, where)
    if batches == "full":
        if b is not None and integer("b", b, where) != n:
            raise ValueError(f"{where}: full batches need b = n (= {n}), got b={b}")
        return n, 1
    if b is None:
        raise ValueError(f"{where}: batches={batches!r} needs the batch size b")
    b = integer("b", b, where)
    if b > n:
        raise ValueError(f"{where}: b must be <= n, got b={b} > n={n}")
    if batches == "cyclic" and n % b:
        raise ValueError(f"{where}: cyclic batches need b to divide n, got n={n}, b={b}")
    return b, (n // b if batches == "cyclic" else 1)


def as_array(name: str, value, shape: tuple[int, ...], where: str) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: {name} must be numeric") from None
    if arr.shape != shape:
        raise ValueError(f"{where}: {name} must have shape {shape} (mismatched dimensions), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{where}: {name} must be finite")
    return arr


__all__ = ["Family", "Instance", "LOSS_CLASSES"]
