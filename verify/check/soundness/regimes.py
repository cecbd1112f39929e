"""Regimes of a compared instance: the bound's saturation points and the coverage cells."""

from __future__ import annotations

import functools
import math
from typing import Callable, Mapping

import numpy as np
import sympy as sp

from verify.privacy.operators import ARRAY_MODULES
from verify.theorem import SYMBOLS, Theorem


def _saturations(theorem: Theorem) -> tuple[tuple[str, Callable], ...]:
    """(step symbol, compiled X) for each ``Min(T, X)`` / ``Min(E, X)`` of the bound: T (or E) beyond X
    no longer changes it."""
    return _compiled_saturations(theorem.bound, theorem.parameters)


@functools.lru_cache(maxsize=512)
def _compiled_saturations(bound: sp.Expr, parameters: tuple[str, ...]) -> tuple[tuple[str, Callable], ...]:
    out = []
    args = tuple(SYMBOLS[p] for p in parameters)
    for atom in bound.atoms(sp.Min):
        for step in ("T", "E"):
            symbol = SYMBOLS[step]
            if symbol in atom.args:
                rest = [a for a in atom.args if a != symbol]
                other = rest[0] if len(rest) == 1 else sp.Min(*rest)
                if other.free_symbols <= set(args):
                    out.append((step, sp.lambdify(args, other, modules=list(ARRAY_MODULES))))
    return tuple(out)


def saturation(theorem: Theorem, params: Mapping[str, float]) -> tuple[str, float] | None:
    """(``"T"`` or ``"E"``, X) for the first saturation of the bound at ``params`` (None: no Min on the steps)."""
    for step, compiled in _saturations(theorem):
        try:
            with np.errstate(all="ignore"):
                value = float(compiled(*(params[p] for p in theorem.parameters)))
        except (KeyError, TypeError, ValueError, ZeroDivisionError, OverflowError):
            continue
        if math.isfinite(value):
            return step, value
    return None


def cells(theorem: Theorem, own: Mapping[str, float], at) -> tuple[str, ...]:
    """The regime cells of one compared instance (its own constants ``own``, notion parameter ``at``)."""
    out = []
    full = theorem.setting.batches == "full"
    if "Delta" in own and "sigma" in own:
        batch = own.get("n" if full or "b" not in own else "b", own.get("n", 1.0))
        mu = own["Delta"] / (batch * own["sigma"]) if own["sigma"] > 0 else math.inf
        out.append("mu_step:" + ("<0.1" if mu < 0.1 else "0.1-1" if mu <= 1 else ">1"))
    if "T" in own:
        T = own["T"]
        sat = saturation(theorem, {**own, **({theorem.notion_record.parameter: at}
                                             if theorem.notion_record.parameter else {})})
        if T == 1:
            out.append("T:1")
        elif sat is not None:
            X = sat[1] * (own.get("l", 1.0) if sat[0] == "E" else 1.0)
            out.append("T:" + ("below" if T < 0.8 * X else "around" if T <= 1.25 * X else "above") + " saturation")
        else:
            out.append("T:" + ("2-10" if T <= 10 else ">10"))
    if "n" in own and "b" in own and own["b"] > 0:
        l = own.get("l", own["n"] / own["b"])
        out.append("l:" + (str(int(l)) if l in (1, 2, 3) else ">3"))
    if "eta" in own and "M" in own:
        etaM = own["eta"] * own["M"]
        out.append("etaM:" + ("small" if etaM < 0.5 else "near-2" if etaM >= 1.8 else "mid"))
        if "m" in own:
            k = own["m"] / own["M"]
            out.append("m/M:" + ("0" if k == 0 else "<1e-3" if k < 1e-3 else ">=1e-3"))
            if k > 0 and abs(etaM * (1 + k) / 2 - 1) < 0.05:
                out.append("etaM:near-2/(1+m/M)")
    parameter = theorem.notion_record.parameter
    if parameter == "alpha" and at is not None:
        out.append("alpha:" + ("<1.5" if at < 1.5 else "1.5-8" if at <= 8 else ">8"))
    elif parameter == "eps" and at is not None:
        out.append("eps:" + ("0" if at == 0 else "<=1" if at <= 1 else ">1"))
    elif parameter == "delta" and at is not None:
        out.append("delta:" + ("<=1e-6" if at <= 1e-6 else ">1e-6"))
    return tuple(out)
