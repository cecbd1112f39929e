"""Matching theorems to exact references, and the tolerance of a comparison with them.

An instance applies to a theorem when its setting is covered by the theorem's setting
(:meth:`verify.setting.Setting.covers`, the one rule) and it defines every parameter the theorem
needs; whether the theorem's assumptions hold is then decided on the instance's own derived
constants (``Instance.params()``), never on the values we asked for.  The exact value of an
instance in a theorem's notion is the notion record's (``theorem.notion_record.exact``).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import inspect
from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np

from verify.errors import InputError
from verify.instances import FAMILIES, Family
from verify.instances.instance import BoundedCache
from verify.theorem import VOCABULARY, Theorem


def families() -> Mapping[str, Family]:
    """The instance families (the registry of :mod:`verify.instances`)."""
    return FAMILIES


def is_grid(family: Family) -> bool:
    """Whether ``family``'s exact reference is a 1-D grid (its cost grows with T: keep its runs short)."""
    return family.cost == "grid"


def why_not_applicable(theorem: Theorem, instance) -> str | None:
    """``None`` when ``instance`` is admissible for ``theorem``'s setting, else the reason."""
    steps = 1 if instance.steps is None else instance.steps  # a mechanism without iterations releases once
    reason = theorem.setting.covers(instance.setting, instance.loss_classes, steps=steps)
    if reason is not None:
        return reason
    defined = set(instance.params()) | ({"M"} if "linear" in instance.loss_classes else set())
    missing = [p for p in theorem.parameters if p not in defined and p != theorem.notion_record.parameter]
    if missing:
        return f"instance does not define {', '.join(missing)}"
    return None


#: run quantities a family may choose itself unless the theorem depends on them
OPTIONAL = frozenset({"d", "p_decay"})  # p_decay: a decaying step schedule only for theorems about one


#: what :func:`instance_params` reads of the point itself (besides what the instance was built from)
POINT_READS = frozenset({"M"})


def instance_params(instance, point: Mapping[str, float]) -> dict[str, float]:
    """The instance's own constants; a linear loss is M-smooth for every M > 0, so M comes from the point
    (:data:`POINT_READS`)."""
    params = dict(instance.params())
    if "M" not in params and "linear" in instance.loss_classes and "M" in point:
        params["M"] = float(point["M"])
    return params


def keywords(family) -> Mapping[str, inspect.Parameter]:
    """The keywords ``family.build`` accepts (those of the builder behind it)."""
    return _signature(family.builder)


@functools.lru_cache(maxsize=256)
def _signature(builder) -> Mapping[str, inspect.Parameter]:
    return inspect.signature(builder).parameters


#: bytes of built instances (and of the InputErrors their builders raised) kept per process
INSTANCE_BUDGET = 32 * 2**20

#: instances by :func:`shared_key`, as built (their profiles are never computed here: each caller gets
#: a copy, whose profile comes from :data:`verify.instances.instance.PROFILES`), or the InputError
#: raised for those keywords.  The same probe points are built for every theorem of a run.  Measured
#: once, when built (a walk per hit would cost more than the build): a template does not grow, but
#: for the scalar profile a sampled-Gaussian builder keeps in its closure (under 1 kB).
INSTANCES = BoundedCache(INSTANCE_BUDGET, remeasure=False)


def build_from(family, kwargs: Mapping[str, object]):
    """Build ``family`` from the keywords of ``kwargs`` it accepts (a kept example may carry others).

    Built once per process for the same family and keywords (:data:`INSTANCES`), and the exact
    profile shared by every such instance (:func:`shared_key`), so that the theorems of one run build
    each instance and compute each reference once; an InputError is raised again, as a fresh copy.
    """
    accepted = keywords(family)
    kwargs = {k: v for k, v in kwargs.items() if k in accepted}
    key = shared_key(family, kwargs)
    if key is None:
        return family.build(**kwargs)
    built = INSTANCES.get(key, lambda: _built(family, kwargs, key))
    if isinstance(built, InputError):
        raise copy.copy(built)  # without the first raise's traceback (and the frames it holds)
    return dataclasses.replace(built)  # a copy: its profile is read from PROFILES, not kept by the template


def _built(family, kwargs: Mapping[str, object], key):
    """``family.build(**kwargs)`` sharing its profile under ``key``, or the InputError it raised."""
    try:
        return family.build(**kwargs).shared(key)
    except InputError as exc:
        exc.__context__ = exc.__cause__ = None  # keep no frames alive in the cache
        return exc.with_traceback(None)


def _canonical(value):
    """A hashable canonical form of a build keyword (numbers by type and exact value, arrays by dtype,
    shape and bytes); None when the value has none (the instance is then not shared)."""
    kind = type(value)
    if kind is float:  # the common keywords first (a key is made at every build)
        return ("float", value.hex())
    if kind is int:
        return ("int", value)
    if isinstance(value, (bool, str)) or value is None:
        return value
    if isinstance(value, (int, np.integer)):
        return ("int", int(value))
    if isinstance(value, (float, np.floating)):
        return ("float", float(value).hex())  # -0.0 apart from 0.0
    if isinstance(value, (list, tuple, np.ndarray)):
        array = np.asarray(value)
        if array.dtype.kind not in "biuf":
            return None
        array = np.ascontiguousarray(array)
        return ("array", array.dtype.str, array.shape, array.tobytes())
    return None


def shared_key(family, kwargs: Mapping[str, object]):
    """The key of the profile of ``family.build(**kwargs)`` in :data:`verify.instances.instance.PROFILES`:
    the family's name and builder and the canonical keywords (None when a keyword has no canonical form)."""
    items = []
    for name in sorted(kwargs):
        value = _canonical(kwargs[name])
        if value is None and kwargs[name] is not None:
            return None
        items.append((name, value))
    return (family.name, family.builder, tuple(items))


#: the prefix of a unit draw for a searched family keyword in a point: ``u_offset`` draws ``offset``
SEARCHED_PREFIX = "u_"


def searched_names() -> tuple[str, ...]:
    """The family keywords any registered family lets the search draw (sorted; the draw of ``name``
    is ``point["u_" + name]`` in [0, 1], see :attr:`verify.instances.Family.searched`)."""
    return tuple(sorted({name for family in FAMILIES.values() for name in family.searched}))


def build(family, point: Mapping[str, float], theorem: Theorem):
    """Build ``family`` from a canonical point, passing the keywords its ``build`` accepts.

    The family's searched keywords (:attr:`~verify.instances.Family.searched`) are drawn from the
    point's unit draws ``u_<name>`` when present (absent: the keyword keeps its default); a keyword the
    point gives directly, or the theorem's setting fixes, is not drawn.
    """
    accepted = keywords(family)
    kwargs = {}
    for name in accepted:
        if name in OPTIONAL and name not in theorem.parameters:
            continue  # let the family choose (e.g. the smallest dimension holding both m and M)
        if name in point:
            value = point[name]
            integer = name in VOCABULARY and VOCABULARY[name].domain == "integer"
            kwargs[name] = int(value) if integer else float(value)
    if "tpos" in theorem.parameters and "position" in accepted and "tpos" in point:
        kwargs["position"] = int(point["tpos"]) - 1  # the batch the theorem names (0-based for the builders)
    for key in ("batches", "adjacency", "init", "release"):  # the theorem's own setting (init: a Gaussian start)
        wanted = getattr(theorem.setting, key)
        if key in accepted and wanted != "any":
            kwargs[key] = wanted
    if "b" in kwargs and theorem.setting.batches == "full":
        kwargs.pop("b")
    _draw_searched(family, point, kwargs)
    return build_from(family, kwargs)


def _draw_searched(family, point: Mapping[str, float], kwargs: dict) -> None:
    """Add to ``kwargs`` the family's searched keywords drawn from the point's ``u_<name>``."""
    searched = getattr(family, "searched", None) or {}
    if not searched:
        return
    context: dict = {**family.defaults, **point, **kwargs}
    for name, draw in searched.items():
        key = SEARCHED_PREFIX + name
        if name in kwargs or key not in point:
            continue
        u = float(point[key])
        if not 0.0 <= u <= 1.0:
            raise InputError(f"{key} must be a unit draw in [0, 1], got {u!r}", key, family.name)
        value = draw(u, context)
        if value is not None:
            kwargs[name] = context[name] = value


@dataclass(frozen=True)
class Comparison:
    """One comparison of a bound with an exact value, in the theorem's notion."""

    exact: float
    bound: float
    at: float | None  # the notion parameter (alpha, eps or delta) or None
    tolerance: float
    #: the exact value's own absolute error, computed on demand (:func:`query_error`); None: closed form
    query_error: Callable[[], float] | None = field(default=None, compare=False, repr=False)

    @property
    def ratio(self) -> float:
        if self.bound == 0:
            return 0.0 if self.exact == 0 else np.inf
        return self.exact / self.bound


#: how many times its stated error a discretised reference is allowed (a refinement estimate can under-state
#: the true error: up to 1.6x seen on coarse grids at per-step mu 30)
ERROR_FACTOR = 4.0

#: the absolute rounding of a divergence computed from double-precision masses (they sum to one to ~1e-16;
#: a Renyi divergence or an eps read off them is not resolved below ~1e-14): a certified violation must
#: exceed it too (a grid once read 3.3e-16 of rounding against a bound of 6e-24 and certified it)
ROUNDING_FLOOR = 1e-14

#: the notions whose exact value a discretised profile states the error of (``DiscreteProfile.error_of``)
_ERROR_QUERIES = {"rdp": "renyi", "fdp": "delta", "eps_delta": "eps"}


def profile_tolerance(profile) -> float:
    """Relative slack for comparisons: machine precision for closed forms; for a discretised reference
    (a grid or a privacy-loss distribution) its own error estimate, and never less than 1e-6."""
    error = float(getattr(profile, "error", 0.0) or 0.0)
    floor = 1e-9 if getattr(profile, "mu", None) is not None else 1e-6
    return max(floor, ERROR_FACTOR * error)


def query_error(profile, notion, at) -> Callable[[], float] | None:
    """The absolute error of ``notion.exact(profile, at)`` (times :data:`ERROR_FACTOR`), computed when called:
    a grid's error for the quantity asked (its Rényi divergence at ``alpha``, its eps at ``delta``), which
    ``profile.error`` (the grid's error in delta at one eps, a relative slack) does not bound at large mu.
    A refinement estimate costs another evaluation on the coarser grid, so the engine asks only where a
    violation is being certified.  ``inf`` when the estimate cannot be computed (then nothing is certified);
    None for references without one."""
    error_of, query = getattr(profile, "error_of", None), _ERROR_QUERIES.get(notion.name)
    if error_of is None or query is None or at is None:
        return None

    def error() -> float:
        try:
            value = float(error_of(query, at))
        except (InputError, ArithmeticError, ValueError):
            return float("inf")
        return max(ERROR_FACTOR * value, ROUNDING_FLOOR) if value == value else float("inf")

    return error
