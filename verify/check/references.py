"""Matching theorems to exact references, and reading the exact privacy in a theorem's own notion.

An instance applies to a theorem when its setting is covered by the theorem's setting and it defines
every parameter the theorem needs; whether the theorem's assumptions hold is then decided on the
instance's own derived constants (``Instance.params()``), never on the values we asked for.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Mapping

import numpy as np

from verify.theorem import Theorem

#: families whose exact reference is a 1-D grid (cost grows with T): keep their runs short
GRID_FAMILIES = frozenset({"interval_walk", "subsampled_linear", "bok_c16", "at22_thm41", "dpsgd_worst_step"})


def families() -> dict:
    """The instance families (empty when ``verify.instances`` is not available)."""
    try:
        from verify.instances import FAMILIES
    except ImportError:
        return {}
    return dict(FAMILIES)


def _covers(theorem_value: str, instance_value: str, wildcard: str = "any") -> bool:
    return theorem_value == wildcard or theorem_value == instance_value


def why_not_applicable(theorem: Theorem, instance) -> str | None:
    """``None`` when ``instance`` is admissible for ``theorem``'s setting, else the reason."""
    ts, its = theorem.setting, instance.setting
    if ts.algorithm not in ("any", its.algorithm):
        return f"algorithm {its.algorithm} is not {ts.algorithm}"
    if not _covers(ts.batches, its.batches):
        return f"batches {its.batches} is not {ts.batches}"
    if ts.loss != "any" and ts.loss not in instance.loss_classes:
        return f"losses are not {ts.loss}"
    if ts.constraint == "none" and its.constraint != "none":
        return "the theorem is for unconstrained runs"
    if ts.constraint == "bounded" and its.constraint == "none":
        return "the theorem needs a bounded constraint set"
    if not _covers(ts.adjacency, its.adjacency):
        return f"adjacency {its.adjacency} is not {ts.adjacency}"
    if ts.release == "last" and its.release == "all" and instance.params().get("T", 1) > 1:
        return "the instance's exact privacy is that of every iterate, the theorem bounds the last one"
    if ts.init not in ("any", its.init):
        return f"initialisation {its.init} is not {ts.init}"
    defined = set(instance.params()) | ({"M"} if "linear" in instance.loss_classes else set())
    missing = [p for p in theorem.parameters if p not in defined and p != theorem.notion_record.parameter]
    if missing:
        return f"instance does not define {', '.join(missing)}"
    return None


#: run quantities a family may choose itself unless the theorem depends on them
OPTIONAL = frozenset({"d"})


def instance_params(instance, point: Mapping[str, float]) -> dict[str, float]:
    """The instance's own constants; a linear loss is M-smooth for every M > 0, so M comes from the point."""
    params = dict(instance.params())
    if "M" not in params and "linear" in instance.loss_classes and "M" in point:
        params["M"] = float(point["M"])
    return params


def keywords(family) -> Mapping[str, inspect.Parameter]:
    """The keywords ``family.build`` accepts (those of the builder behind it)."""
    return inspect.signature(getattr(family, "builder", family.build)).parameters


def build_from(family, kwargs: Mapping[str, object]):
    """Build ``family`` from the keywords of ``kwargs`` it accepts (a kept example may carry others)."""
    accepted = keywords(family)
    return family.build(**{k: v for k, v in kwargs.items() if k in accepted})


def build(family, point: Mapping[str, float], theorem: Theorem):
    """Build ``family`` from a canonical point, passing the keywords its ``build`` accepts."""
    accepted = keywords(family)
    kwargs = {}
    for name in accepted:
        if name in OPTIONAL and name not in theorem.parameters:
            continue  # let the family choose (e.g. the smallest dimension holding both m and M)
        if name in point:
            value = point[name]
            kwargs[name] = int(value) if name in ("n", "b", "T", "E", "d", "l") else float(value)
    for key in ("batches", "adjacency"):
        wanted = getattr(theorem.setting, key)
        if key in accepted and wanted != "any":
            kwargs[key] = wanted
    if "b" in kwargs and theorem.setting.batches == "full":
        kwargs.pop("b")
    return family.build(**kwargs)


@dataclass(frozen=True)
class Comparison:
    """One comparison of a bound with an exact value, in the theorem's notion."""

    exact: float
    bound: float
    at: float | None  # the notion parameter (alpha, eps or delta) or None
    tolerance: float

    @property
    def ratio(self) -> float:
        if self.bound == 0:
            return 0.0 if self.exact == 0 else np.inf
        return self.exact / self.bound


def exact_value(theorem: Theorem, profile, at: float | None) -> float:
    """The exact privacy of ``profile`` in ``theorem``'s notion (at ``at``: alpha, eps or delta)."""
    notion = theorem.notion
    if notion == "gdp":
        return effective_mu(profile)
    if notion == "rdp":
        return float(profile.renyi(at))
    if notion == "fdp":
        return float(profile.delta(at))
    if notion == "eps_delta":
        return float(profile.eps(at))
    raise NotImplementedError(f"no exact reference for notion {notion}")


EPS_GRID = np.concatenate([np.linspace(0.0, 2.0, 21), np.linspace(2.25, 12.0, 40)])


def effective_mu(profile) -> float:
    """The smallest mu with T(P,Q) >= G_mu: exact for Gaussian pairs, else from delta(eps) on a grid.

    For a non-Gaussian pair, mu-GDP holds iff delta(eps) <= delta_mu(eps) for every eps (duality);
    the grid maximum of the per-eps mu is the pair's mu up to the grid (a lower estimate, so a bound
    that falls below it is violated for sure).
    """
    if getattr(profile, "mu", None) is not None:
        return float(profile.mu)
    from verify.privacy.gaussian import gdp_delta

    deltas = np.asarray(profile.delta(EPS_GRID), dtype=float)
    lo = np.zeros_like(deltas)
    hi = np.full_like(deltas, 60.0)
    for _ in range(80):  # bisection: gdp_delta is increasing in mu
        mid = 0.5 * (lo + hi)
        below = np.asarray(gdp_delta(np.maximum(mid, 1e-12), EPS_GRID)) < deltas
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
    return float(np.max(np.where(deltas > 1e-14, lo, 0.0)))


def profile_tolerance(profile) -> float:
    """Relative slack for comparisons: machine precision for closed forms; for a discretised reference
    (a grid or a privacy-loss distribution) its own error estimate, and never less than 1e-6."""
    error = float(getattr(profile, "error", 0.0) or 0.0)
    floor = 1e-9 if getattr(profile, "mu", None) is not None else 1e-6
    return max(floor, 4.0 * error)
