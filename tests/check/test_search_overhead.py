"""The search's own overhead: memory measured without visiting scalars, probe points and
candidate families computed once per process, each giving what a cold computation gives."""

from __future__ import annotations

import numpy as np

import theorems
from verify.cache import nbytes_of
from verify.check import domain
from verify.check import soundness as soundness_module


class _Plain:
    pass


class _Slotted:
    __slots__ = ("data", "scale")


class _MoreSlots(_Slotted):
    __slots__ = ("extra", "__dict__")


def test_scalars_count_nothing_and_every_array_once():
    # the rule of nbytes_of: 64 bytes an object, 8 an element of a small list or tuple, the arrays' bytes
    holder = _Plain()
    for i in range(300):
        setattr(holder, f"x{i}", float(i))  # scalars are part of their holder's overhead
    holder.name, holder.flag, holder.none = "walk", True, None
    holder.data = np.zeros(1000)
    assert nbytes_of(holder) == 64 + 8000
    holder.pair = (1.0, 2, holder.data)  # the array again: counted once
    assert nbytes_of(holder) == 64 + 8000 + 3 * 8

    slotted = _Slotted()
    slotted.data, slotted.scale = np.ones(100), 2.5
    assert nbytes_of(slotted) == 64 + 800
    both = _MoreSlots()
    both.data, both.extra = np.ones(10), np.ones(20)
    both.other = np.ones(40)  # in the instance's __dict__
    assert nbytes_of(both) == 64 + 8 * 40 + 8 * 10 + 8 * 20 + 64  # the __dict__ slot: a one-entry mapping
    assert nbytes_of(3.5) == nbytes_of("text") == nbytes_of(None) == nbytes_of(np.float64(1.0)) == 0


def test_canonical_points_are_fresh_copies_of_a_cold_draw():
    first = domain.canonical_points(16, 5, cyclic=True)
    first[0]["T"] = -1.0  # a caller's change does not reach the next caller
    first.append({})
    domain._canonical_points.cache_clear()
    cold = domain.canonical_points(16, 5, cyclic=True)
    again = domain.canonical_points(16, 5, cyclic=True)
    assert again == cold and again is not cold and again[0] is not cold[0]
    assert len(again) == 16 and all(p["T"] == p["l"] * p["E"] for p in again)
    assert domain.canonical_points(16, 5) != again  # not cyclic: another key


def test_candidate_families_are_those_of_a_fresh_probe():
    for theorem_id in ("bok2024/thm4.4", "altschuler2022/eq1.1", "baselines/noisy-gd/gdp"):
        theorem = theorems.get(theorem_id)
        names = soundness_module.candidate_families(theorem)
        assert names == soundness_module._probe_families(theorem, 0) and names
        names.append("not a family")  # the caller's list is its own
        assert soundness_module.candidate_families(theorem) == soundness_module._probe_families(theorem, 0)
