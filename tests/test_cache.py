"""verify/cache.py: the one byte-bounded LRU cache, against a brute-force model of its contract."""

from __future__ import annotations

import random

import numpy as np
import pytest

from verify.cache import BoundedCache, nbytes_of
from verify.errors import InputError


class Grows:
    """A value that grows after it is stored (like a profile's lazily built sorted view)."""

    def __init__(self, n: int):
        self.data = np.zeros(n)

    def grow(self, n: int) -> None:
        self.data = np.zeros(n)


def _model_step(model: list[list], budget: int, key, size: int) -> None:
    """The contract, written the slow way: ``model`` lists [key, size] least recent first; the new
    entry goes last, then the least recent entries go while the total exceeds the budget (a value
    larger than the budget is not kept at all)."""
    for entry in list(model):
        if entry[0] == key:
            model.remove(entry)
    if size > budget:
        return
    model.append([key, size])
    while sum(s for _, s in model) > budget:
        model.pop(0)


@pytest.mark.parametrize("seed", range(6))
def test_contents_and_bytes_agree_with_a_brute_force_model(seed):
    rng = random.Random(seed)
    budget = rng.choice([0, 800, 4000, 20000])
    cache = BoundedCache(budget, remeasure=False)
    model: list[list] = []
    hits = misses = 0
    for _ in range(400):
        key = rng.randrange(12)
        n = rng.choice([1, 10, 60, 200, 900])  # float64 entries: 8 n bytes
        if rng.random() < 0.2:
            cache.put(key, np.zeros(n))
            _model_step(model, budget, key, 8 * n)
            continue
        if key in [k for k, _ in model]:
            hits += 1
            entry = next(e for e in model if e[0] == key)
            model.remove(entry)
            model.append(entry)
        else:
            misses += 1
            _model_step(model, budget, key, 8 * n)
        value = cache.get(key, lambda: np.zeros(n))
        assert isinstance(value, np.ndarray)
        assert [k for k, _ in model] == list(cache._entries)
        assert cache.bytes == sum(s for _, s in model) <= budget
    assert (cache.hits, cache.misses) == (hits, misses)
    assert len(cache) == len(model)


def test_a_value_that_grew_is_measured_again_and_evicts_the_least_recent():
    cache = BoundedCache(10_000)
    a = cache.get("a", lambda: Grows(100))  # 800 bytes
    cache.get("b", lambda: Grows(100))
    cache.get("c", lambda: Grows(100))
    a_again = cache.get("a", lambda: Grows(1))  # a hit: "a" is the most recent
    assert a_again is a and cache.hits == 1
    a.grow(1100)  # 8800 bytes now
    cache.get("c", lambda: Grows(1))  # the next call measures "a" again: 8800 + 800 + 800 > 10000
    assert cache.bytes <= cache.budget and "b" not in cache and "a" in cache
    assert cache.bytes == nbytes_of(a) + nbytes_of(cache.get("c", lambda: None))
    cache.get("a", lambda: Grows(1))  # "a" used last again
    a.grow(2000)  # beyond the whole budget: dropped when measured at the next call
    cache.get("c", lambda: Grows(1))
    assert "a" not in cache and cache.too_large == 1


def test_a_value_beyond_the_budget_is_returned_not_kept():
    cache = BoundedCache(1000)
    cache.get("small", lambda: np.zeros(10))
    big = cache.get("big", lambda: np.zeros(1000))
    assert big.size == 1000 and "big" not in cache and "small" in cache and cache.too_large == 1
    off = BoundedCache(0)
    calls = []
    for _ in range(2):
        off.get("x", lambda: calls.append(1) or np.zeros(1))
    assert len(calls) == 2 and len(off) == 0 and off.bytes == 0


def test_a_failed_compute_keeps_nothing():
    cache = BoundedCache(1000)

    def fail():
        raise InputError("no", "x")

    with pytest.raises(InputError):
        cache.get("k", fail)
    assert "k" not in cache and cache.misses == 1 and cache.bytes == 0


def test_nbytes_counts_shared_arrays_once_and_views_as_their_base():
    base = np.zeros(1000)
    view = base[::2]
    assert nbytes_of(view) == 8000
    holder = type("Holder", (), {})()
    holder.a, holder.b, holder.c = base, view, [base, base]
    assert 8000 <= nbytes_of(holder) <= 8000 + 1000  # one array plus container overheads
    captured = np.ones(500)
    closure = (lambda: captured)
    assert nbytes_of(closure) == 4000


def test_a_bad_budget_is_refused_naming_it():
    with pytest.raises(InputError, match="budget"):
        BoundedCache(-1)
    with pytest.raises(InputError, match="budget"):
        BoundedCache(10).clear(budget=2.5)
