"""Memory bounds of verify/privacy/pld.py: the byte-bounded cache, the size estimate made before a
composition is built (checked against dp_accounting's own truncation bound), and refusals."""

from __future__ import annotations

import pytest
from dp_accounting.pld import common

from verify.errors import InputError
from verify.privacy import pld
from verify.privacy.pld import ByteBoundedCache, Composition


def test_cache_evicts_least_recently_used_by_bytes():
    cache = ByteBoundedCache(100)
    cache.put("a", "A", 40)
    cache.put("b", "B", 40)
    assert cache.get("a") == "A"  # "a" is now the most recent
    cache.put("c", "C", 40)  # 120 > 100: the least recently used ("b") goes
    assert "b" not in cache and cache.get("a") == "A" and cache.get("c") == "C"
    assert cache.nbytes == 80 and len(cache) == 2


def test_cache_never_keeps_a_value_beyond_its_budget():
    cache = ByteBoundedCache(100)
    cache.put("a", "A", 60)
    built = cache.get_or_build("big", lambda: ("BIG", 101))
    assert built == "BIG" and "big" not in cache and cache.get("a") == "A"
    cache.put("a", "A2", 30)  # replacing an entry re-counts its size
    assert cache.nbytes == 30 and cache.get("a") == "A2"


def test_compositions_share_the_one_cache_and_respect_its_budget(monkeypatch):
    small = ByteBoundedCache(40 * 2**20)
    monkeypatch.setattr(pld, "CACHE", small)
    first = Composition.subsampled_gaussian(0.01, 1.0, 200)
    again = Composition.subsampled_gaussian(0.01, 1.0, 200)
    assert again.pld is first.pld  # built once
    for T in (100, 150, 200):  # about 15 MB each
        Composition.subsampled_gaussian(0.05, 1.0, T, adjacency="symmetric")
        assert small.nbytes <= small.max_bytes
    assert ("composed", 0.01, 1.0, 200, "add_remove", pld.DEFAULT_INTERVAL) not in small  # evicted


@pytest.mark.parametrize(
    "p, mu, T, adjacency",
    [
        (0.01, 1.0, 10_000, "add_remove"),
        (0.004, 1.0, 15_000, "add_remove"),
        (0.1, 4.0, 10, "add_remove"),
        (1.0, 2.0, 50, "add_remove"),
        (0.025, 1.886, 2000, "symmetric"),
        (0.3, 0.5, 100, "symmetric"),
        (0.2, 3.0, 3, "symmetric"),
        (0.5, 3.0, 10, "replace"),
        (0.05, 1.0, 200, "replace"),
    ],
)
def test_size_estimate_covers_dp_accountings_own_truncation(p, mu, T, adjacency):
    # reference: the range dp_accounting's self_compose keeps (its Chernoff bound, common.py), per PMF
    one = pld._one_step(p, mu, adjacency, pld.DEFAULT_INTERVAL)
    pmfs = [one._pmf_remove] if one._symmetric else [one._pmf_remove, one._pmf_add]
    actual = []
    for pmf in pmfs:
        probs = pmf.to_dense_pmf()._probs
        lo, hi = common.compute_self_convolve_bounds(probs, T, 1e-15)
        actual.append(hi - lo + 1)
        estimate = pld._composed_points(pmf, T)
        assert actual[-1] <= estimate <= 2.5 * actual[-1]
    # the FFT of the longest composition needs at least 48 bytes a point (complex power and its inverse)
    assert pld._composition_peak(p, mu, T, adjacency, pld.DEFAULT_INTERVAL) >= 48 * max(actual)


def test_a_composition_beyond_the_budget_is_refused_naming_T():
    # about 1e5 points a step and a composed range of ~1e9 points: refused from the estimate, never built
    before = pld.CACHE.nbytes
    estimate = pld.composition_bytes(0.5, 5.0, 2_000_000)
    assert estimate > pld.BUILD_BYTES
    with pytest.raises(InputError, match=r"^T=2000000 steps") as info:
        Composition.subsampled_gaussian(0.5, 5.0, 2_000_000)
    assert info.value.parameter == "T"
    assert pld.CACHE.nbytes - before < 64 * 2**20  # only the one-step PLD was built


def test_composing_two_huge_plds_is_refused_naming_other(monkeypatch):
    a = Composition.subsampled_gaussian(0.01, 1.0, 10)
    monkeypatch.setattr(pld, "BUILD_BYTES", 2**20)
    with pytest.raises(InputError) as info:
        a.compose(Composition.gaussian(1.0))
    assert info.value.parameter == "other"


def test_estimate_is_zero_when_nothing_needs_building():
    assert pld.composition_bytes(0.1, 0.0, 100) == 0
    assert pld.composition_bytes(0.1, 1.0, 0) == 0
    Composition.subsampled_gaussian(0.1, 1.0, 20)
    assert pld.composition_bytes(0.1, 1.0, 20) == 0  # cached


@pytest.mark.parametrize(
    "args, name",
    [((0.0, 1.0, 10), "p"), ((0.1, -1.0, 10), "mu"), ((0.1, 1.0, 2.5), "T"),
     ((0.1, 1.0, 10, "swap"), "adjacency"), ((0.1, 1.0, 10, "symmetric", 0.0), "value_discretization_interval")],
)
def test_estimate_validates_its_input(args, name):
    with pytest.raises(InputError) as info:
        pld.composition_bytes(*args)
    assert info.value.parameter == name
