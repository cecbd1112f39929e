"""A theorem's guarantee converted to epsilon at a given delta (for comparisons across notions).

The conversion is the notion's own (``Notion.to_eps`` in :mod:`verify.privacy.notions`): GDP ->
(eps, delta) exactly, RDP -> (eps, delta) by the improved conversion over an order grid, an f-DP
delta(eps) curve inverted in eps.
"""

from __future__ import annotations

from typing import Mapping

from verify.errors import InputError
from verify.privacy.notions import notions
from verify.theorem import Theorem


def eps_at_delta(theorem: Theorem, params: Mapping[str, float], delta: float) -> float:
    """epsilon such that the theorem's guarantee implies (epsilon, delta)-DP at ``params``."""
    record = theorem.notion_record
    if record.to_eps is None:
        raise InputError(f"{theorem.id}: notion {record.name} has no (eps, delta) reading", "notion")
    parameter = record.parameter
    # a guarantee in one notion may be handed the parameter of another (a table row's eps): drop it
    notion_parameters = {n.parameter for n in notions() if n.parameter}
    base = {k: v for k, v in params.items() if k not in notion_parameters}

    def evaluate(at):
        return theorem.evaluate(**base) if parameter is None else theorem.evaluate(**base, **{parameter: at})

    return float(record.to_eps(evaluate, delta))


__all__ = ["eps_at_delta"]
