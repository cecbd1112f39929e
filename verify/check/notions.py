"""A theorem's guarantee converted to epsilon at a given delta (for comparisons across notions).

Conversions are the valid ones of ``verify.privacy``: GDP -> (eps, delta) is exact (Balle–Wang /
Dong–Roth–Su); RDP -> (eps, delta) uses the improved conversion over an order grid; an f-DP delta(eps)
curve is inverted by bisection in eps (delta(eps) is non-increasing).
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from verify.theorem import Theorem

RDP_ORDERS = np.concatenate([np.linspace(1.05, 3.0, 40), np.geomspace(3.1, 512.0, 60)])


def eps_at_delta(theorem: Theorem, params: Mapping[str, float], delta: float) -> float:
    """epsilon such that the theorem's guarantee implies (epsilon, delta)-DP at ``params``."""
    notion = theorem.notion
    base = {k: v for k, v in params.items() if k not in ("alpha", "eps", "delta")}
    if notion == "eps_delta":
        return float(theorem.evaluate(**base, delta=delta))
    if notion == "gdp":
        from verify.privacy.gaussian import gdp_eps

        return float(gdp_eps(float(theorem.evaluate(**base)), delta))
    if notion == "rdp":
        from verify.privacy.rdp import rdp_to_dp_improved

        rdp = np.asarray(theorem.evaluate(**base, alpha=RDP_ORDERS), dtype=float)
        return float(rdp_to_dp_improved(RDP_ORDERS, rdp, delta))
    if notion == "fdp":
        lo, hi = 0.0, 1.0
        if float(theorem.evaluate(**base, eps=0.0)) <= delta:
            return 0.0
        while float(theorem.evaluate(**base, eps=hi)) > delta:
            lo, hi = hi, 2 * hi
            if hi > 1e4:
                return float("inf")
        for _ in range(50):
            mid = 0.5 * (lo + hi)
            if float(theorem.evaluate(**base, eps=mid)) > delta:
                lo = mid
            else:
                hi = mid
        return hi  # the conservative end of the bracket
    raise ValueError(f"{theorem.id}: notion {notion} has no (eps, delta) reading")
