"""Admissible parameters of a theorem: sampled points and hypothesis strategies.

A point is a *consistent canonical run*: every vocabulary quantity is drawn together, so that the
identities of DESIGN.md §3 hold (``n = l*b``, ``q = b/n``, cyclic ``T = l*E``, ``m <= M``,
``eta < 2/M``), and a theorem then keeps the parameters it needs.  The theorem's own assumptions are
checked afterwards: a point that violates one is rejected, never silently repaired.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
from hypothesis import strategies as st

from verify.theorem import VOCABULARY, Theorem

# log10 ranges of the positive continuous quantities
LOG_RANGES: dict[str, tuple[float, float]] = {
    "sigma": (-1.0, 1.3),
    "Delta": (-2.0, 1.0),
    "M": (-2.0, 2.0),
    "z": (-0.5, 1.0),
    "Cclip": (-1.0, 1.0),
    "mu": (-2.0, 1.0),
    "delta": (-10.0, -1.0),
}
INT_RANGES: dict[str, tuple[int, int]] = {"b": (1, 256), "l": (1, 64), "E": (1, 40), "T": (1, 2000), "d": (1, 4)}


def canonical_point(u: Mapping[str, float], ints: Mapping[str, int]) -> dict[str, float]:
    """Build a consistent canonical parameter point from unit draws ``u`` and integer draws ``ints``."""

    def log_draw(name: str) -> float:
        lo, hi = LOG_RANGES[name]
        return float(10 ** (lo + (hi - lo) * u[name]))

    b, l, E = ints["b"], ints["l"], ints["E"]
    n = b * l
    M = log_draw("M")
    m = M * max(float(u["m"]), 1e-4) ** 2  # m in [1e-8 M, M], biased towards ill-conditioned problems
    eta = (2.0 / M) * (0.02 + 0.97 * float(u["eta"]))  # eta in (0, 2/M)
    sigma = log_draw("sigma")
    Delta = log_draw("Delta")
    z = log_draw("z")
    Cclip = log_draw("Cclip")
    return {
        "n": float(n), "b": float(b), "l": float(l), "q": b / n, "E": float(E), "T": float(ints["T"]),
        "eta": eta, "sigma": sigma, "Delta": Delta, "L": Delta / 2.0, "m": m, "M": M,
        "D": eta * Delta / n * 10 ** (-0.5 + 2.0 * u["D"]), "d": float(ints["d"]), "alpha": float(1.0 + 10 ** (-1.5 + 4.0 * u["alpha"])),
        "eps": 8.0 * float(u["eps"]), "delta": log_draw("delta"), "mu": log_draw("mu"),
        "z": z, "Cclip": Cclip,
        **{name: _extra(name, float(value)) for name, value in u.items() if name not in UNIT_NAMES},
    }


UNIT_NAMES = ("sigma", "Delta", "M", "m", "eta", "D", "z", "Cclip", "mu", "delta", "alpha", "eps")


def unit_names() -> tuple[str, ...]:
    """The unit draws a point needs: the core ones, plus one per variable a paper module added."""
    core = set(UNIT_NAMES) | set(INT_RANGES) | {"n", "q", "L", "T", "l", "E", "d"}
    return UNIT_NAMES + tuple(sorted(v for v in VOCABULARY if v not in core))


def _extra(name: str, u: float) -> float:
    """A value for a vocabulary variable added by a paper module, from its declared domain."""
    domain = VOCABULARY[name].domain
    if domain == "unit":
        return 0.01 + 0.98 * u
    if domain == "integer":
        return float(1 + int(20 * u))
    if domain == "real":
        return -5.0 + 10.0 * u
    return float(10 ** (-2.0 + 4.0 * u))


def canonical_points(count: int, seed: int, cyclic: bool = False) -> list[dict[str, float]]:
    """``count`` random consistent points (numpy, seeded)."""
    rng = np.random.default_rng(seed)
    points = []
    for _ in range(count):
        u = {name: rng.uniform() for name in unit_names()}
        ints = {k: int(np.exp(rng.uniform(np.log(lo), np.log(hi + 1)))) for k, (lo, hi) in INT_RANGES.items()}
        ints = {k: min(max(v, INT_RANGES[k][0]), INT_RANGES[k][1]) for k, v in ints.items()}
        p = canonical_point(u, ints)
        if cyclic:
            p["T"] = p["l"] * p["E"]
        points.append(p)
    return points


def canonical_strategy(cyclic: bool = False) -> st.SearchStrategy[dict[str, float]]:
    """Hypothesis strategy for consistent canonical points (shrinks towards small, simple runs)."""
    unit = st.floats(0.0, 1.0, allow_nan=False)
    ints = st.fixed_dictionaries({k: st.integers(lo, hi) for k, (lo, hi) in INT_RANGES.items()})
    units = st.fixed_dictionaries({name: unit for name in unit_names()})

    def build(pair):
        u, i = pair
        p = canonical_point(u, i)
        if cyclic:
            p["T"] = p["l"] * p["E"]
        return p

    return st.tuples(units, ints).map(build)


def restrict(theorem: Theorem, point: Mapping[str, float]) -> dict[str, float]:
    """The parameters of ``theorem`` taken from a canonical point."""
    return {p: point[p] for p in theorem.parameters}


def admissible(theorem: Theorem, params: Mapping[str, float]) -> bool:
    """Whether ``params`` satisfy the domains and every assumption of ``theorem``."""
    try:
        coerced = theorem.coerce(params)
    except ValueError:
        return False
    return not theorem.violated_assumptions(coerced)


def admissible_canonical(theorem: Theorem, count: int, seed: int, tries: int = 40) -> list[dict[str, float]]:
    """Up to ``count`` whole canonical points whose restriction is admissible for ``theorem`` (seeded)."""
    cyclic = "E" in theorem.parameters or theorem.setting.batches == "cyclic"
    found: list[dict[str, float]] = []
    for attempt in range(tries):
        for point in canonical_points(max(4 * count, 64), seed + 7919 * attempt, cyclic=cyclic):
            if admissible(theorem, restrict(theorem, point)):
                found.append(point)
                if len(found) >= count:
                    return found
    return found


def admissible_points(theorem: Theorem, count: int, seed: int, tries: int = 40) -> list[dict[str, float]]:
    """Up to ``count`` admissible parameter dicts for ``theorem`` (rejection sampling, seeded).

    When the default ranges hold no admissible point (a scope far from them, e.g. D >= 1000 eta L),
    the record's own parameter sets (``examples`` without a ``family``) stand in for the samples.
    """
    found = [restrict(theorem, p) for p in admissible_canonical(theorem, count, seed, tries)]
    if found:
        return found
    own = [{k: float(e[k]) for k in theorem.parameters} for e in theorem.examples
           if "family" not in e and all(k in e for k in theorem.parameters)]
    return [p for p in own if admissible(theorem, p)][:count]
