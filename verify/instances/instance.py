"""The :class:`Instance` record and the :class:`RunDescription` of its run.

An instance is one concrete run of the canonical algorithm (docs/conventions.md): losses, a pair of
neighbouring datasets, step size, noise, batches, constraint set, initialisation.  It carries the
constants it derives from its own definition (``params()``, in the canonical vocabulary), its
concrete :class:`~verify.setting.Setting` and the classes its losses belong to (so that
``theorem.setting.covers(instance.setting, instance.loss_classes, steps=instance.steps)`` decides
applicability), and the exact privacy of its last iterate (``profile()``, computed once).
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Generic, Hashable, Mapping, TypeVar

import numpy as np

from verify.cache import BoundedCache
from verify.cache import nbytes_of as profile_nbytes
from verify.errors import InputError
from verify.instances.profile import PrivacyProfile
from verify.setting import LOSSES, Setting
from verify.validate import choice, integer, nonnegative
from verify.vocabulary import batch_count, derive

#: every loss class an instance may declare (those :func:`verify.setting.loss_classes` knows)
LOSS_CLASSES: frozenset[str] = frozenset(LOSSES) - {"any"}

#: what a run description describes, hence how it is simulated: a Gaussian chain (quadratic or
#: linear per-record gradients, in the eigenbasis of H), a 1-D walk (one record with gradient g in D
#: and g' in D', every other loss zero), or a pair of Gaussian laws with no iteration (not simulated)
RUN_KINDS = ("gaussian_chain", "walk_1d", "gaussian_pair")

V = TypeVar("V")


@dataclass(frozen=True, eq=False)  # holds arrays: identity comparison
class RunDescription:
    """What one run of an instance is (canonical units), for simulations, replays and reports.

    Fields that do not apply to the run's ``kind`` (see :data:`RUN_KINDS`) are ``None``.  Arrays are
    stored as read-only views.  Gaussian chains are described in the eigenbasis of ``H``
    (``basis`` its eigenvectors, ``None`` when H was given diagonal).
    """

    kind: str
    loss: str = ""
    n: int | None = None
    b: int | None = None
    T: int | None = None
    eta: float | None = None
    sigma: float | None = None
    batches: str | None = None
    position: int | None = None  # the batch holding the differing record (cyclic batches)
    init: str | None = None
    # Gaussian chains
    eigenvalues: np.ndarray | None = None
    basis: np.ndarray | None = None
    records: np.ndarray | None = None  # the linear terms h_i of D; None: all zero
    differing_index: int | None = None
    gradient_difference: np.ndarray | None = None
    init_mean: np.ndarray | None = None
    init_var: float | None = None
    data: np.ndarray | None = None  # the records x_i of D when the losses are written through data
    data_prime: np.ndarray | None = None  # the differing record of D'
    # 1-D walks
    record_gradient: float | None = None
    record_gradient_prime: float | None = None
    x0: float | None = None
    interval: tuple[float, float] | None = None
    projection: tuple[float, float] | None = None
    window: tuple[float, float] | None = None  # the grid of an unconstrained walk
    cells: int | None = None
    method: str | None = None
    # what else a reader should know
    step: str | None = None  # one step of a composed mechanism, in words
    q: float | None = None
    z: float | None = None
    pair: str | None = None  # the pair of laws, in words
    tight: bool | None = None  # whether the construction attains the paper's bound
    sufficient: bool | None = None  # the last iterate is a sufficient statistic of all the iterates for the pair
    #: the run releases only this function of its last iterate (e.g. "1[theta_T >= 0]"): its exact value is a lower
    #: bound of the last iterate's privacy (data processing), evidence for a lower bound, a refutation of an upper one
    post_processing: str | None = None
    source: str = ""

    def __post_init__(self) -> None:
        choice("kind", self.kind, RUN_KINDS, "RunDescription")
        # the fields are the instance's attributes (no slots, no other attribute): read them in one pass
        arrays = [(name, value) for name, value in vars(self).items() if isinstance(value, np.ndarray)]
        for name, value in arrays:
            view = value.view()
            view.flags.writeable = False
            object.__setattr__(self, name, view)

    def get(self, key: str, default: Any = None) -> Any:
        """The field ``key`` (``default`` when it is unset); for readers of the former dictionary."""
        value = getattr(self, key, None) if key in _RUN_FIELDS else None
        return default if value is None else value

    def to_json(self) -> dict[str, Any]:
        """The set fields as JSON values (arrays and tuples as lists)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is None or (isinstance(value, str) and not value):
                continue
            if isinstance(value, np.ndarray):
                value = value.tolist()
            elif isinstance(value, tuple):
                value = list(value)
            elif isinstance(value, np.generic):
                value = value.item()
            out[f.name] = value
        return out


_RUN_FIELDS = frozenset(f.name for f in dataclasses.fields(RunDescription))


class Once(Generic[V]):
    """A value computed on first use: the explicit cache of a frozen record."""

    __slots__ = ("_compute", "_value")

    def __init__(self, compute: Callable[[], V]) -> None:
        self._compute = compute
        self._value: V | None = None

    def get(self) -> V:
        if self._value is None:
            self._value = self._compute()
        return self._value


# ---------------------------------------------------------------------------------------------------
# the exact profiles shared by every instance of the same family and build parameters (one process)
# ---------------------------------------------------------------------------------------------------

#: default budget of :data:`PROFILES` per process (bytes of the profiles' arrays and composed PLDs)
PROFILE_BUDGET = 256 * 2**20


#: the process's shared exact profiles, by key (family, builder, canonical build parameters): an
#: instance built with a ``key`` reads its profile from here
PROFILES = BoundedCache(PROFILE_BUDGET)


@dataclass(frozen=True)
class Instance:
    """One run and its neighbour; ``profile()`` is the exact privacy of the last iterate.

    * ``setting``, ``loss_classes``: the concrete setting of this very run and every class its losses
      belong to (built with :func:`verify.setting.loss_classes`);
    * ``constants``: canonical parameter values defined for this instance (see :meth:`params`);
    * ``run``: the :class:`RunDescription` (losses, data, H, eta, sigma, T, batches, ...);
    * ``compute``: builds the profile (called once);
    * ``extras``: further exact references of this instance by name (e.g. ``expected_excess_risk``
      for the quadratic chains);
    * ``key``: when set, the profile is shared through :data:`PROFILES` by every instance with the
      same key (in one process): the key must determine the profile, e.g. (family, builder, the
      canonical build parameters), see :meth:`shared`.
    """

    name: str
    family: str
    setting: Setting
    loss_classes: frozenset[str]
    constants: Mapping[str, float]
    run: RunDescription
    compute: Callable[[], PrivacyProfile] | None = field(default=None, compare=False, repr=False)
    extras: Mapping[str, Callable[..., Any]] = field(default_factory=dict, compare=False, repr=False)
    key: Hashable | None = field(default=None, compare=False, repr=False)
    _profile: Once[PrivacyProfile] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        unknown = set(self.loss_classes) - LOSS_CLASSES
        if unknown:
            raise InputError(f"unknown loss classes {sorted(unknown)}", "loss_classes", self.name)
        if not isinstance(self.run, RunDescription):
            raise InputError(f"run must be a RunDescription, got {type(self.run).__name__}", "run", self.name)
        # frozen all the way down: read-only copies of the mappings, the profile computed once
        object.__setattr__(self, "loss_classes", frozenset(self.loss_classes))
        object.__setattr__(self, "constants", MappingProxyType(dict(self.constants)))
        object.__setattr__(self, "extras", MappingProxyType(dict(self.extras)))
        compute = self._no_profile if self.compute is None else self.compute
        if self.key is not None and self.compute is not None:
            key = self.key
            compute = functools.partial(PROFILES.get, key, self.compute)
        object.__setattr__(self, "_profile", Once(compute))

    def shared(self, key: Hashable) -> "Instance":
        """This instance with its profile shared under ``key`` (see ``key`` above)."""
        return dataclasses.replace(self, key=key)

    def params(self) -> dict[str, float]:
        """Canonical parameter values: those of n, b, q, l, T, E, eta, sigma, Delta, L, m, M, D, d
        (and z, Cclip for DP-SGD) that are defined for this instance."""
        return dict(self.constants)

    @property
    def steps(self) -> int | None:
        """The number of steps of the run (``None`` for a mechanism without iterations)."""
        T = self.constants.get("T")
        return None if T is None else int(T)

    def profile(self) -> PrivacyProfile:
        """The exact privacy of the last iterate (computed on first use)."""
        return self._profile.get()

    def _no_profile(self) -> PrivacyProfile:
        raise InputError("this instance has no privacy profile", "profile", self.name)

    def reference(self, name: str, *args, **kwargs):
        """Evaluate the extra exact reference ``name`` (see ``extras``)."""
        if name not in self.extras:
            raise InputError(f"no reference {name!r}; has {sorted(self.extras)}", "name", self.name)
        return self.extras[name](*args, **kwargs)

    def expected_excess_risk(self, T=None):
        """Exact E[L_D(theta_T) - min L_D] (quadratic chains only); vectorised over ``T``."""
        return self.reference("expected_excess_risk", T)


# ---------------------------------------------------------------------------------------------------
# validation helpers particular to instances (built on verify.validate)
# ---------------------------------------------------------------------------------------------------


def sensitivity(value, where: str) -> float:
    """Delta, the gradient difference of the differing record: > 0 (0 means D' = D)."""
    v = nonnegative("Delta", value, where)
    if v == 0:
        raise InputError("the differing record equals the original (Delta = 0)", "Delta", where)
    return v


def batches_of(n: int, batches: str, b, where: str, allowed: tuple[str, ...]) -> tuple[int, int]:
    """``(b, l)`` for a batch scheme: full (b = n, l = 1), cyclic (b divides n), poisson/uniform."""
    choice("batches", batches, allowed, where)
    if batches == "full":
        if b is not None and integer("b", b, where) != n:
            raise InputError(f"full batches need b = n (= {n}), got b={b}", "b", where)
        return n, 1
    if b is None:
        raise InputError(f"batches={batches!r} needs the batch size b", "b", where)
    b = integer("b", b, where)
    if b > n:
        raise InputError(f"b must be <= n, got b={b} > n={n}", "b", where)
    if batches == "cyclic" and n % b:
        raise InputError(f"cyclic batches need b to divide n, got n={n}, b={b}", "b", where)
    return b, batch_count(n, b, batches)


def batch_position(position, l: int, where: str) -> int:
    """The batch (0-based) holding the differing record: an integer below ``l``."""
    position = integer("position", position, where, low=0)
    if position >= l:
        raise InputError(f"position must be < l = n/b = {l}, got {position}", "position", where)
    return position


@dataclass(frozen=True)
class BatchPlan:
    """Validated batches of a run: the scheme, ``n``, ``b``, ``l`` (= n/b for cyclic batches, else 1)
    and ``position``, the batch holding the differing record."""

    batches: str
    n: int
    b: int
    l: int
    position: int

    @classmethod
    def of(cls, where: str, n, batches: str, b, position, allowed: tuple[str, ...]) -> "BatchPlan":
        n = integer("n", n, where)
        b, l = batches_of(n, batches, b, where, allowed)
        return cls(batches, n, b, l, batch_position(position, l, where))

    @property
    def q(self) -> float:
        """The fraction of the records a batch holds, ``b/n`` (the Poisson sampling rate)."""
        return derive({"n": self.n, "b": self.b})["q"]

    def constants(self, T: int) -> dict[str, float]:
        """``n``, ``b``, ``T``, ``q = b/n`` and, for cyclic batches, ``l``, ``E = T/l`` (when ``l``
        divides ``T``) and ``tpos``, the 1-based batch holding the differing record; full batches define
        neither ``l`` nor ``E`` (no cyclic theorem applies)."""
        if self.batches != "cyclic":
            return derive({"n": self.n, "b": self.b, "T": T})
        return {**derive({"n": self.n, "b": self.b, "T": T}, "cyclic"), "tpos": self.position + 1}

    def uses(self, T: int) -> int:
        """How many of ``T`` steps use the differing record's batch (full: all; cyclic: those of its batch)."""
        if self.batches == "full":
            return T
        if self.batches != "cyclic":
            raise InputError(f"the record's uses are random under {self.batches} batches", "batches")
        return (T - 1 - self.position) // self.l + 1 if self.position < T else 0


__all__ = ["BatchPlan", "Instance", "LOSS_CLASSES", "Once", "PROFILES", "PROFILE_BUDGET", "BoundedCache",
           "RUN_KINDS", "RunDescription", "batch_position", "batches_of", "profile_nbytes", "sensitivity"]
