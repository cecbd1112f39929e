"""Admissible parameters of a theorem: sampled points and hypothesis strategies.

A point is a *consistent canonical run*: every vocabulary quantity is drawn together, so that the
identities of docs/conventions.md hold (``n = l*b``, ``q = b/n``, cyclic ``T = l*E``, ``m <= M``,
``eta < 2/M``), and a theorem then keeps the parameters it needs.  The theorem's own assumptions are
checked afterwards: a point that violates one is rejected, never silently repaired.

Two samplers build such points: :func:`canonical_point` draws the raw quantities (n, sigma, Delta, M,
...) for the symbolic obligations and the audit; :func:`search_point` draws the dimensionless groups a
sound bound depends on (per-step mu, eta*M, m/M, D/(eta sigma), l, T, the notion parameters) for the
soundness search, whose deterministic corners are :func:`corner_units`.
"""

from __future__ import annotations

import functools
import math
import zlib
from dataclasses import dataclass
from typing import Callable, Collection, Mapping

import numpy as np
import sympy as sp
from hypothesis import strategies as st

from verify.privacy.operators import ARRAY_MODULES
from verify.theorem import SYMBOLS, VOCABULARY, Assumption, Theorem

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
        "z": z, "Cclip": Cclip, "tpos": float(l), "rho": m,
        **{name: _extra(name, float(value)) for name, value in u.items() if name not in UNIT_NAMES},
    }


UNIT_NAMES = ("sigma", "Delta", "M", "m", "eta", "D", "z", "Cclip", "mu", "delta", "alpha", "eps")
#: vocabulary quantities a point derives from the others rather than draws: the differing record's batch
#: ``tpos`` (from the draw of the families' ``position`` keyword, the last batch by default) and the weak-convexity
#: constant ``rho`` (drawn like m: a fraction of M)
DERIVED = ("tpos", "rho")


def unit_names() -> tuple[str, ...]:
    """The unit draws a point needs: the core ones, plus one per variable a paper module added."""
    core = set(UNIT_NAMES) | set(INT_RANGES) | {"n", "q", "L", "T", "l", "E", "d"} | set(DERIVED)
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
    """``count`` random consistent points (numpy, seeded); fresh copies of the points drawn once per
    process for the same arguments and vocabulary (every theorem's audit and probe asks for the same)."""
    return [dict(p) for p in _canonical_points(count, seed, bool(cyclic), unit_names())]


@functools.lru_cache(maxsize=64, typed=True)  # a few MB: 64 draws of 64 points, or of 400
def _canonical_points(count: int, seed: int, cyclic: bool, names: tuple[str, ...]) -> tuple[dict[str, float], ...]:
    rng = np.random.default_rng(seed)
    # an added variable draws from its own stream (seeded by its name): the core draws, and each added
    # variable's, are the same whatever other modules added to the vocabulary in this process
    added = {name: np.random.default_rng([seed, zlib.crc32(name.encode())]).uniform(size=count)
             for name in names if name not in UNIT_NAMES}
    points = []
    for i in range(count):
        u = {name: rng.uniform() for name in UNIT_NAMES} | {name: float(draws[i]) for name, draws in added.items()}
        ints = {k: int(np.exp(rng.uniform(np.log(lo), np.log(hi + 1)))) for k, (lo, hi) in INT_RANGES.items()}
        ints = {k: min(max(v, INT_RANGES[k][0]), INT_RANGES[k][1]) for k, v in ints.items()}
        p = canonical_point(u, ints)
        if cyclic:
            p["T"] = p["l"] * p["E"]
        points.append(p)
    return tuple(points)


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


# ---------------------------------------------------------------------------------------------------
# the soundness search's coordinates: the dimensionless groups a sound bound depends on
# ---------------------------------------------------------------------------------------------------
#
# Every sound bound is invariant under theta -> c*theta, which (keeping eta fixed) scales Delta, L,
# sigma, D and Cclip by c and leaves eta, M, m, n, b, T and the notion parameters alone.  The search
# therefore draws the dimensionless groups (per-step mu, eta*M, m/M, D/(eta*sigma), z, l, b, E, T and
# the notion parameters) as unit coordinates in [0, 1], and one overall scale c on top (so that a bound
# which is not invariant still shows).  Errors live where a step is not nearly private (mu_step >~ 1),
# where few batches make an epoch (l <= 3), at T = 1 and around saturation, and at eta*M near 2 or
# near 2/(1 + m/M): each map puts mass there.  The shrink direction (a coordinate towards 0) is the
# simple run: T = 1, l = 1, b = 1, small mu.

#: the unit coordinates of a search point (one more per searched family keyword: ``u_<name>``)
SEARCH_COORDINATES = ("mu", "etaM", "mM", "M", "DES", "z", "l", "b", "E", "T", "d", "alpha", "eps", "delta",
                      "scale", "Tmod")
MU_RANGE = (1e-4, 30.0)  # per-step mu: Delta / (b sigma), or Delta / (n sigma) for full batches
#: the far ends of the ranges: a draw beyond :data:`KNEE` goes on log-uniformly from where the core range
#: (T <= 2000, E <= 40, d <= 4, alpha <= 64, eps <= 10, delta in [1e-10, 0.1]) stood at the knee to them, so
#: that a bound wrong only far out (late saturation, a dimension discount, a large order) is reached, while the
#: draws inside the knee, and every corner there, are those of the core range
T_MAX, E_MAX, B_MAX, L_MAX, D_MAX = 100_000, 1000, 256, 64, 16
T_CORE, E_CORE, D_CORE = 2000, 40, 4
ALPHA_MAX, EPS_MAX, DELTA_RANGE = 256.0, 50.0, (1e-15, 0.5)
#: the unit draw past which a range leaves its core (and, for delta, the one below which it does)
KNEE = 0.9
SMALL_L = (1, 2, 3)  # batches per epoch drawn most often: the regime where cyclic errors live


def _log(u: float, lo: float, hi: float) -> float:
    return float(lo * (hi / lo) ** float(u))


def _stretched(u: float, lo: float, core: float, far: float) -> float:
    """``lo (core/lo)^u`` up to :data:`KNEE`, then log-uniform on to ``far`` at u = 1."""
    u = float(u)
    if u <= KNEE or far == core:
        return float(lo * (core / lo) ** u)
    start = lo * (core / lo) ** KNEE
    return float(start * (far / start) ** ((u - KNEE) / (1.0 - KNEE)))


def _int_log(u: float, hi: int, core: int | None = None) -> int:
    """An integer in [1, hi], log-uniform in u as ``core^u`` (u = 0 -> 1) up to :data:`KNEE`, then on to ``hi``
    at u = 1 (``core``: ``hi``); inverse :func:`_int_unit`."""
    return int(min(max(round(_stretched(u, 1.0, core or hi, hi)), 1), hi))


def _int_unit(value: float, hi: int, core: int | None = None) -> float:
    """The unit draw giving the integer ``value`` (inverse of :func:`_int_log`)."""
    core = core or hi
    v, start = max(float(value), 1.0), float(core) ** KNEE
    if v <= start or hi == core:
        u = np.log(v) / np.log(core)
    else:
        u = KNEE + (1.0 - KNEE) * np.log(v / start) / np.log(hi / start)
    return float(min(max(u, 0.0), 1.0))


def _l_draw(u: float) -> int:
    """l = 1, 2, 3 with probability 0.15 each, else log-uniform in 4 .. L_MAX."""
    if u < 0.45:
        return SMALL_L[min(int(u / 0.15), 2)]
    return int(min(max(round(4 * (L_MAX / 4) ** ((u - 0.45) / 0.55)), 4), L_MAX))


def l_unit(l: float) -> float:
    """The unit draw giving ``l`` batches per epoch (inverse of the draw of l)."""
    if l <= 3:
        return 0.15 * (int(l) - 1) + 0.075
    return 0.45 + 0.55 * float(np.log(l / 4) / np.log(L_MAX / 4))


def _mm_draw(u: float) -> float:
    """m/M: 0 (u < 0.1, where the assumptions admit it), else log-uniform in [1e-8, 1]."""
    return 0.0 if u < 0.1 else float(10 ** (-8.0 + 8.0 * (u - 0.1) / 0.9))


def _etam_draw(u: float, k: float) -> float:
    """eta*M in (0, 2): small (u < 0.35, log in [1e-3, 1]), near 2/(1 + m/M) (0.35 <= u < 0.65, within a
    relative 10^-4 .. 0.3 on either side), near 2 (u >= 0.65, 2 - 2*10^(-4 .. -0.7))."""
    if u < 0.35:
        return _log(u / 0.35, 1e-3, 1.0)
    if u < 0.65:
        s = (u - 0.35) / 0.3  # 0 .. 1: below .. at .. above the contraction edge
        offset = 10 ** (-0.5 - 3.5 * (1 - abs(2 * s - 1)))
        return min(2.0 / (1.0 + k) * (1.0 + (offset if s > 0.5 else -offset)), 2.0 * (1 - 1e-4))
    return 2.0 - 2.0 * 10 ** (-4.0 + 3.3 * (1.0 - u) / 0.35)


def _alpha_draw(u: float) -> float:
    """alpha - 1 log-spaced: 1.01 .. 64 over the core (up to 27 at the knee), on to :data:`ALPHA_MAX`."""
    return 1.0 + _stretched(u, 1e-2, 10 ** 1.8, ALPHA_MAX - 1.0)


def _eps_draw(u: float) -> float:
    """eps = 10 u^2 (0 .. 8.1 at the knee), then log-uniform on to :data:`EPS_MAX`."""
    u, start = float(u), 10.0 * KNEE ** 2
    return 10.0 * u * u if u <= KNEE else float(start * (EPS_MAX / start) ** ((u - KNEE) / (1.0 - KNEE)))


def _delta_draw(u: float) -> float:
    """delta log-uniform: 10^(-10 + 9u) for u in [1 - KNEE, KNEE], on to the ends of :data:`DELTA_RANGE`."""
    u, lo, hi = float(u), *DELTA_RANGE
    if u < 1.0 - KNEE:
        start = 10 ** (-10.0 + 9.0 * (1.0 - KNEE))
        return float(lo * (start / lo) ** (u / (1.0 - KNEE)))
    return _stretched(u, 1e-10, 0.1, hi)


def search_point(u: Mapping[str, float], full_batch: bool = False, cyclic: bool = False) -> dict[str, float]:
    """One consistent canonical point (docs/conventions.md identities) from the unit coordinates ``u``.

    ``u`` holds every name of :data:`SEARCH_COORDINATES` (and may hold ``u_<keyword>`` draws for the
    families' searched keywords, passed through, and draws for vocabulary variables a paper module
    added).  ``full_batch``: the per-step mu is Delta / (n sigma) (the theorem's batches are full).
    ``cyclic``: T = l*E.  The point also keeps its unit coordinates (``"unit"``: for the guided phase).
    """
    c = _log(u["scale"], 1e-2, 1e2)
    l, b = _l_draw(u["l"]), _int_log(u["b"], B_MAX)
    n = l * b
    E = _int_log(u["E"], E_MAX, E_CORE)
    rest = min(l - 1, int(math.floor(float(u.get("Tmod", 0.0)) * l))) if cyclic else 0  # a partial last epoch
    T = l * E + rest if cyclic else _int_log(u["T"], T_MAX, T_CORE)
    k = _mm_draw(u["mM"])
    M = _log(u["M"], 0.1, 10.0)
    eta = _etam_draw(u["etaM"], k) / M
    mu = _log(u["mu"], *MU_RANGE)
    Delta = c
    sigma = Delta / ((n if full_batch else b) * mu)
    z = _log(u["z"], 10 ** -0.5, 10.0)
    point = {
        "n": float(n), "b": float(b), "l": float(l), "q": b / n, "E": float(E), "T": float(T),
        "eta": eta, "sigma": sigma, "Delta": Delta, "L": Delta / 2.0, "m": k * M, "M": M,
        "D": eta * sigma * _log(u["DES"], 1e-2, 1e3), "d": float(_int_log(u["d"], D_MAX, D_CORE)),
        "alpha": _alpha_draw(u["alpha"]), "eps": _eps_draw(u["eps"]), "delta": _delta_draw(u["delta"]),
        "mu": mu, "z": z, "Cclip": sigma * b / z, "rho": k * M,
        # the differing record's batch: the families' own draw of their position keyword (the last batch without one)
        "tpos": float(min(l, int(math.floor(float(u["u_position"]) * l)) + 1) if "u_position" in u else l),
    }
    if rest:
        del point["E"]  # not a whole number of epochs: a theorem stated in epochs does not apply
    for name, value in u.items():
        if name.startswith("u_"):
            point[name] = float(value)
        elif name not in SEARCH_COORDINATES and name in VOCABULARY and name not in point:
            point[name] = _extra(name, float(value))
    return point


def search_coordinates(searched: tuple[str, ...] = (), used: Collection[str] | None = None) -> tuple[str, ...]:
    """The unit coordinates of a search point: the core ones, the added vocabulary (only the variables in
    ``used``, a theorem's parameters, when given: its draws then do not depend on what other modules added to
    the vocabulary in this process), ``u_<searched>``."""
    extras = tuple(name for name in unit_names() if name not in UNIT_NAMES and (used is None or name in used))
    return SEARCH_COORDINATES + extras + tuple(f"u_{name}" for name in searched)


def search_strategy(coordinates: tuple[str, ...]) -> st.SearchStrategy[tuple[float, ...]]:
    """Hypothesis strategy for the unit coordinates ``coordinates``, as a tuple in their order (shrinks each
    towards 0: the simple run).  A flat tuple of floats: the fewest choices and wrappers per draw."""
    unit = st.floats(0.0, 1.0, allow_nan=False)
    return st.tuples(*(unit,) * len(coordinates))


def drawn_coordinates(coordinates: tuple[str, ...], read: Collection[str], full_batch: bool = False,
                      cyclic: bool = False) -> tuple[str, ...]:
    """The unit coordinates (of ``coordinates``, in their order) that move a quantity in ``read`` (a
    theorem's parameters and its families' keywords), and the searched keywords' draws ``u_<name>`` of the
    keywords in ``read``: a random draw of the others could not change a comparison, they stay at
    :data:`CORNER_BASE`.  What a coordinate moves is read off the point map at five draws of it from
    :data:`MOVE_BASES` points (one draw may move a quantity only where another coordinate lies: m/M moves
    eta only near the contraction edge)."""
    moves = dict(_moves(tuple(coordinates), full_batch, cyclic, MOVE_BASES, (0.0, 0.23, 0.5, 0.77, 1.0)))
    read = frozenset(read)
    return tuple(name for name in coordinates
                 if (name[2:] in read if name.startswith("u_") else bool(moves[name] & read)))


#: the points (the corner base, then seeded uniform draws) from which :func:`drawn_coordinates` moves each
#: coordinate
MOVE_BASES = 24


def corner_base(coordinates: tuple[str, ...]) -> dict[str, float]:
    """Every unit coordinate at its corner base (:data:`CORNER_BASE`, else 0.5)."""
    return {name: CORNER_BASE.get(name, 0.5) for name in coordinates}


#: the point every corner starts from: l = 1 (q = 1), T = 10, mu_step = 1, eta*M = 0.8, m/M = 1e-4
CORNER_BASE = {"mu": float(np.log(1 / MU_RANGE[0]) / np.log(MU_RANGE[1] / MU_RANGE[0])), "etaM": 0.34,
               "mM": 0.1 + 0.9 * 0.5, "M": 0.5, "DES": 0.6, "z": 0.5, "l": 0.075, "b": _int_unit(4, B_MAX),
               "E": _int_unit(10, E_MAX, E_CORE), "T": _int_unit(10, T_MAX, T_CORE), "d": 0.0, "alpha": 0.5, "eps": 0.3,
               "delta": 0.5, "scale": 0.5, "Tmod": 0.0}

_MU_LARGE = 1.0  # mu_step = 30
_MU_10 = float(np.log(10 / MU_RANGE[0]) / np.log(MU_RANGE[1] / MU_RANGE[0]))
_MU_2 = float(np.log(2 / MU_RANGE[0]) / np.log(MU_RANGE[1] / MU_RANGE[0]))
_T1 = {"T": 0.0, "E": 0.0}

#: the strongest contraction (m = M, the end of the assumption M >= m) at a step that is not nearly
#: private (mu_step = 2), the notion parameters at their upper ends (it is the last of :data:`CORNERS`):
#: where a strongly convex bound leans hardest on forgetting the past (Altschuler & Talwar 2022, (5.3) as
#: printed fails there).  A family whose reference is costly tries it too, besides the first corners.
STRONG_CONTRACTION = {"mM": 1.0, "mu": _MU_2}

#: overshooting steps: m = M and eta*M ~ 1.6, so every curvature's persistence a = 1 - eta m ~ -0.6 < 0 (a
#: bound in (1 + a)/(1 - a), or in a^T, goes wrong at odd T; random draws almost never put m/M near 1 and
#: eta*M > 1 together), at T = 1 (early; families with a costly reference try it besides their first corners)
#: and at T = 3
OVERSHOOT = {"mM": 1.0, "etaM": 0.65, **_T1}
OVERSHOOT_ODD = {"mM": 1.0, "etaM": 0.65, "T": _int_unit(3, T_MAX, T_CORE), "E": _int_unit(3, E_MAX, E_CORE)}
#: the far ends of the steps (T = T_MAX, cyclic E = E_MAX) and of the dimension (d = D_MAX) at the slowest
#: contraction (eta*M = 1e-3), early: a bound that saturates too late or discounts the dimension shows there, and
#: the corner budget of a quick run reaches only the first corners (the notion parameters' far ends are reached
#: by the rotation, :data:`NOTION_CORNERS`)
FAR = {"T": 1.0, "E": 1.0, "etaM": 0.0, "d": 1.0}

#: the structural cases of cyclic and shuffled batches (:mod:`verify.check.soundness.axes`): the differing record
#: in the first and in the last of three batches, a partial last epoch (T = 3E + 1), at a step that is not nearly
#: private; and one epoch of two batches under the strongest contraction (m = M, eta M ~ 1: each step forgets the
#: past, so the last batch of an epoch is seen whole) on a wide interval (D = 100 eta sigma).  Families with a costly
#: reference try them too, besides their first corners.
STRUCTURE: tuple[dict[str, float], ...] = (
    {"l": l_unit(3), "u_position": 0.0, "mu": _MU_2}, {"l": l_unit(3), "u_position": 1.0, "mu": _MU_2},
    {"l": l_unit(3), "Tmod": 0.5, "mu": _MU_2}, {"l": l_unit(2), "Tmod": 0.75, "u_position": 0.0, "mu": _MU_2},
    {"l": l_unit(2), "mM": 1.0, "etaM": 0.49, "mu": _MU_2, "DES": 0.8, "u_offset": 0.0, **_T1},
)

#: the corners always tried, as overrides of :data:`CORNER_BASE` (notion parameters rotate separately),
#: most telling first: a family whose reference is costly tries only the first few
CORNERS: tuple[dict[str, float], ...] = (
    {}, _T1, {"mu": _MU_LARGE, **_T1}, {"mu": _MU_10, "etaM": 1.0, "mM": 0.0}, {"l": l_unit(2)}, OVERSHOOT, FAR,
    {"etaM": 0.5, "mM": 0.1 + 0.9 * 0.75}, {"l": l_unit(3)}, {"mu": _MU_10, "l": l_unit(2)},
    {"etaM": 1.0}, {"mM": 0.0}, {"l": l_unit(2), **_T1}, {"l": l_unit(3), "E": 0.0},
    {"etaM": 0.5, "mM": 0.1 + 0.9 * 0.5}, {"etaM": 0.0}, {"mM": 0.1}, {"mM": 0.0, "etaM": 1.0},
    {"mu": _MU_LARGE}, {"mu": _MU_10}, {"mu": 0.0, "T": 1.0, "E": 1.0},
    {"T": 1.0, "E": 1.0}, {"DES": 0.0}, {"DES": 1.0}, {"mu": _MU_10, "DES": 0.2},
    {"b": 0.0}, {"b": 0.0, "mu": _MU_10, **_T1}, {"mM": 1.0}, {"mM": 1.0, "b": 1.0, "mu": 0.0}, OVERSHOOT_ODD,
    STRONG_CONTRACTION, *STRUCTURE,
)
#: the notion parameters' unit draws cycled over the corners: mid, near the lower end, the upper end
NOTION_CORNERS = (0.5, 0.0, 1.0, 0.25, 0.75)
#: corners that take the notion parameters of the corner after them without moving the cycle (added later:
#: the other corners keep theirs)
_UNROTATED = (OVERSHOOT, OVERSHOOT_ODD, FAR, *STRUCTURE)


def corner_units(coordinates: tuple[str, ...]) -> list[dict[str, float]]:
    """The deterministic corner list in unit coordinates: :data:`CORNERS` (notion parameters cycling
    through :data:`NOTION_CORNERS`), then each searched keyword's draw at 0, 0.5 and 1."""
    base = corner_base(coordinates)
    out, i = [], 0
    for corner in CORNERS:
        u = {**base, **{k: v for k, v in corner.items() if k in base}}
        for name in ("alpha", "eps", "delta"):
            u[name] = NOTION_CORNERS[i % len(NOTION_CORNERS)]
        i += not any(corner is c for c in _UNROTATED)
        out.append(u)
    return out + searched_corners(coordinates)


def searched_corners(coordinates: tuple[str, ...], keywords: tuple[str, ...] | None = None) -> list[dict[str, float]]:
    """Each searched keyword's draw (``u_<name>``, of ``keywords`` when given) at 0 and 1 (0.5 is the
    base), at the base corner and at mu_step = 10, T = 1."""
    base = corner_base(coordinates)
    out = []
    for name in coordinates:
        if name.startswith("u_") and (keywords is None or name[2:] in keywords):
            for value in (0.0, 1.0):
                out.append({**base, name: value})
                out.append({**base, name: value, "mu": _MU_10, **_T1})
    return out


def with_steps(u: Mapping[str, float], T: float, cyclic: bool) -> dict[str, float] | None:
    """``u`` moved to T steps (cyclic: l = 1 and E = T); None when T is outside 1 .. T_MAX (E_MAX)."""
    T = int(round(T))
    top = E_MAX if cyclic else T_MAX
    if not 1 <= T <= top:
        return None
    moved = dict(u)
    if cyclic:
        moved.update(l=l_unit(1), E=_int_unit(T, E_MAX, E_CORE))
    else:
        moved["T"] = _int_unit(T, T_MAX, T_CORE)
    return moved


# ---------------------------------------------------------------------------------------------------
# assumption boundaries: where a bound is used at the edge of what its proof allows
# ---------------------------------------------------------------------------------------------------
#
# A bound's worst case often lies ON an assumption's boundary (Chourasia et al. 2021, Thm 4 in (eps,
# delta): exact/bound peaks at eps = 2 log(1/delta)), which random draws never hit.  The search makes
# an assumption tight by bisecting one unit coordinate; how tight it is reads off the relative slack.

#: relative slack at or under which an assumption counts as tight
TIGHT = 1e-9

#: the unit coordinates drawn as integers (l, b, E, T, d): bisection on them stops at the last
#: admissible integer, which is as tight as the integers allow
INTEGER_COORDINATES = frozenset({"l", "b", "E", "T", "d"})

_INEQUALITIES = (sp.LessThan, sp.StrictLessThan, sp.GreaterThan, sp.StrictGreaterThan)


@dataclass(frozen=True)
class Slack:
    """An inequality assumption ``lts <(=) gts`` read as its relative slack
    ``(gts - lts) / sum |terms of gts - lts|``: positive inside, 0 on the boundary, negative outside,
    and in [-1, 1] whatever the scale of the parameters."""

    assumption: Assumption
    symbols: frozenset[str]
    terms: Callable

    def __call__(self, params: Mapping[str, float]) -> float:
        """The relative slack at ``params`` (NaN where the terms are not finite)."""
        with np.errstate(all="ignore"):
            try:
                values = [float(t) for t in self.terms(*(params[s] for s in sorted(self.symbols)))]
            except (TypeError, ValueError, ZeroDivisionError, OverflowError):
                return math.nan
        scale = math.fsum(abs(v) for v in values)
        if not math.isfinite(scale):
            return math.nan
        return math.fsum(values) / scale if scale > 0 else 0.0


def assumption_slacks(theorem: Theorem) -> tuple[Slack, ...]:
    """The theorem's inequality assumptions that can be made tight, as :class:`Slack` (in the record's
    order).  Left out: equalities and compound conditions, and an inequality whose difference is a single
    term (``eps > 0``, ``m > 0``: a domain whose edge is a limit the point map reaches as a coordinate's
    end, never at a relative slack of 0)."""
    return _slacks(theorem.assumptions)


@functools.lru_cache(maxsize=512)
def _slacks(assumptions: tuple[Assumption, ...]) -> tuple[Slack, ...]:
    out = []
    for assumption in assumptions:
        relation = assumption.relation
        if not isinstance(relation, _INEQUALITIES):
            continue
        terms = sp.Add.make_args(relation.gts - relation.lts)
        if len(terms) < 2:
            continue
        names = frozenset(s.name for s in relation.free_symbols if s.name in SYMBOLS)
        if len(names) != len(relation.free_symbols):
            continue  # a symbol outside the vocabulary: not a parameter the search draws
        args = [SYMBOLS[name] for name in sorted(names)]
        out.append(Slack(assumption, names, sp.lambdify(args, list(terms), modules=list(ARRAY_MODULES))))
    return tuple(out)


def coordinate_moves(coordinates: tuple[str, ...], full_batch: bool = False,
                     cyclic: bool = False) -> dict[str, frozenset[str]]:
    """For each unit coordinate, the canonical quantities a change of it moves (read off the point map at
    two draws of that coordinate, the others at their corner base)."""
    return dict(_moves(tuple(coordinates), full_batch, cyclic))


@functools.lru_cache(maxsize=64)
def _moves(coordinates: tuple[str, ...], full_batch: bool, cyclic: bool, bases: int = 1,
           values: tuple[float, ...] = (0.23, 0.77)):
    """For each coordinate, the quantities that differ between the point map's points at ``values`` of it, from
    the corner base and ``bases - 1`` seeded uniform points."""
    rng = np.random.default_rng(20261127)
    starts = [corner_base(coordinates)] + [dict(zip(coordinates, rng.random(len(coordinates)).tolist()))
                                           for _ in range(bases - 1)]
    out = []
    for name in coordinates:
        moved: set[str] = set()
        for start in starts:
            points = [search_point({**start, name: v}, full_batch, cyclic) for v in values]
            keys = set().union(*points)
            moved.update(k for k in keys if any(p.get(k) != points[0].get(k) for p in points[1:]))
        out.append((name, frozenset(moved)))
    return tuple(out)
