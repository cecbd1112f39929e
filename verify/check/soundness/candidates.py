"""Which families can build admissible instances of a theorem, and how long a grid run may be."""

from __future__ import annotations

from typing import Mapping

from verify.check import references as refs
from verify.check.domain import (
    admissible,
    canonical_points,
    corner_units,
    search_coordinates,
    search_point,
    unit_names,
)
from verify.check.soundness.record import theorem_parameters
from verify.errors import InputError
from verify.theorem import Theorem


def _flags(theorem: Theorem) -> tuple[bool, bool]:
    """(full batch, cyclic) of the theorem's points."""
    cyclic = theorem.setting.batches == "cyclic" or "E" in theorem.parameters
    return theorem.setting.batches == "full", cyclic


def candidate_families(theorem: Theorem, probe_seed: int = 0) -> list[str]:
    """Families that yield at least one admissible instance for ``theorem`` (probed on a few points:
    raw canonical draws and the search's corners).  Probed once per process for theorems alike in
    everything the probe reads (:data:`_CANDIDATES`)."""
    key = (probe_seed, tuple(theorem.parameters), theorem.setting, theorem.notion_record.parameter,
           tuple((name, id(family)) for name, family in refs.families().items()), unit_names())
    try:
        hash(key)
    except TypeError:  # pragma: no cover - a setting field that cannot be hashed: probe every time
        return _probe_families(theorem, probe_seed)
    if key not in _CANDIDATES:
        if len(_CANDIDATES) >= 1024:
            _CANDIDATES.clear()
        _CANDIDATES[key] = tuple(_probe_families(theorem, probe_seed))
    return list(_CANDIDATES[key])


#: the families :func:`candidate_families` found, by what its probe reads of a theorem (its parameters,
#: setting and notion parameter), the registry's families and the vocabulary (a few kB per process)
_CANDIDATES: dict[tuple, tuple[str, ...]] = {}


def _probe_families(theorem: Theorem, probe_seed: int) -> list[str]:
    return [name for name, reason in _probe(theorem, probe_seed).items() if reason is None]


def refusals(theorem: Theorem, probe_seed: int = 0) -> dict[str, str]:
    """Why each family yields no applicable instance for ``theorem`` on the probe points (its first instance's
    refusal, e.g. "instance does not define tpos", "losses are not strongly convex"): what a theorem no family
    covers is told, instead of a bare "no family"."""
    return {name: reason for name, reason in _probe(theorem, probe_seed).items() if reason is not None}


def _probe(theorem: Theorem, probe_seed: int) -> dict[str, str | None]:
    """Per family: None when some probe point builds an instance that applies to ``theorem``, else the first
    reason an instance it built did not apply (or that none could be built)."""
    found: dict[str, str | None] = {}
    full, cyclic = _flags(theorem)
    probes = canonical_points(12, probe_seed, cyclic=cyclic)
    corners = corner_units(search_coordinates(used=theorem.parameters))[:12]
    probes += [search_point(u, full, cyclic) for u in corners]
    for name, family in refs.families().items():
        found[name] = "no instance could be built at the probe points"
        for point in probes:
            point = short_point(family, point, theorem=theorem)
            try:
                instance = refs.build(family, point, theorem)
            except InputError:
                continue
            reason = refs.why_not_applicable(theorem, instance)
            if reason is None:
                found[name] = None
                break
            if found[name].startswith("no instance"):
                found[name] = reason
    return found


#: the longest run a grid-engine reference steps through when a theorem's region starts beyond :func:`short_point`'s
#: short horizon (Altschuler & Talwar 2022, Thm 4.1 needs T >= 0.75 D n / (L eta)): its cost per step is one FFT
GRID_HORIZON = 10_000


def short_point(family, point: dict, limit: int = 60, theorem: Theorem | None = None) -> dict:
    """Keep grid-engine runs short (their cost grows with T); cyclic points keep T = l*E.  When the short run
    is outside ``theorem``'s assumptions but the point itself (T <= :data:`GRID_HORIZON`) is inside, a theorem
    whose region starts late is compared there, not never: a cyclic point as drawn, another at the first T inside
    the region (:func:`_entry`)."""
    if not refs.is_grid(family) or point["T"] <= limit:
        return point
    p = dict(point)
    cyclic = "E" in p and p["T"] == p["l"] * p["E"]
    if cyclic:
        l = min(p["l"], float(limit))
        E = max(1.0, min(p["E"], float(limit // l)))
        p.update(l=l, E=E, T=l * E, n=l * p["b"], q=1.0 / l, tpos=min(p.get("tpos", l), l))
    else:
        p["T"] = float(limit)
    if (theorem is not None and point["T"] <= GRID_HORIZON and admits_on(theorem, family, point)
            and not admits_on(theorem, family, p)):
        return point if cyclic else _entry(theorem, family, p, point)
    return p


def _entry(theorem: Theorem, family, short: dict, long: dict) -> dict:
    """The shortest run between ``short`` (outside ``theorem``'s region) and ``long`` (inside) that lies inside it,
    by bisection on T (assumption evaluations only): a region that starts late is compared where it starts, not
    at the drawn length (a grid run's cost grows with T)."""
    lo, hi = int(short["T"]), int(long["T"])
    while hi - lo > max(1, lo // 64):
        mid = (lo + hi) // 2
        if admits_on(theorem, family, {**long, "T": float(mid)}):
            hi = mid
        else:
            lo = mid
    return {**long, "T": float(hi)}


def admits_on(theorem: Theorem, family, point: Mapping[str, float]) -> bool:
    """Whether the theorem's parameters are admissible on the instance ``family`` builds at ``point``
    (:func:`params_on`; False when it builds none there)."""
    params = params_on(theorem, family, point)
    return params is not None and admissible(theorem, params)


def params_on(theorem: Theorem, family, point: Mapping[str, float]) -> dict[str, float] | None:
    """The theorem's parameters read off the instance ``family`` builds at ``point`` (its own constants: a family
    may fix what the point draws, e.g. L = Delta where the point has Delta/2), the notion parameter from the
    point; None when it builds none there or lacks a parameter.  Builds are lazy: no reference is computed."""
    extra = theorem.notion_record.parameter
    try:
        return theorem_parameters(theorem, refs.build(family, point, theorem), point, point[extra] if extra else None)
    except (InputError, KeyError, ArithmeticError):
        return None
