"""Memory bounds of verify/privacy/pld.py: the byte-bounded cache, the size estimate made before a
composition is built (checked against dp_accounting's own truncation bound), and refusals."""

from __future__ import annotations

import pytest
from dp_accounting.pld import common

from verify.errors import InputError
from verify.privacy import pld
from verify.cache import BoundedCache, nbytes_of
from verify.privacy.pld import Composition


def test_compositions_share_the_one_cache_and_respect_its_budget(monkeypatch):
    small = BoundedCache(40 * 2**20)
    monkeypatch.setattr(pld, "CACHE", small)
    first = Composition.subsampled_gaussian(0.01, 1.0, 200)
    again = Composition.subsampled_gaussian(0.01, 1.0, 200)
    assert again.pld is first.pld  # built once
    for T in (100, 150, 200):  # about 15 MB each
        Composition.subsampled_gaussian(0.05, 1.0, T, adjacency="symmetric")
        assert small.bytes <= small.budget
    assert ("composed", 0.01, 1.0, 200, "add_remove", pld.DEFAULT_INTERVAL) not in small  # evicted
    assert small.evictions >= 1 and small.hits >= 1


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


def test_a_cached_composition_is_measured_as_tracemalloc_sees_it(monkeypatch):
    # an independent measure of what the cache holds: the bytes Python and numpy allocated to build it
    import tracemalloc

    monkeypatch.setattr(pld, "CACHE", BoundedCache(2**30))
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        Composition.subsampled_gaussian(0.02, 1.0, 300, adjacency="symmetric")
        allocated = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert 0.8 * allocated <= pld.CACHE.bytes <= 1.2 * allocated
    assert pld.CACHE.bytes == sum(nbytes_of(v) for v, _ in pld.CACHE._entries.values())


def test_a_composition_beyond_the_budget_is_refused_naming_T():
    # about 1e5 points a step and a composed range of ~1e9 points: refused from the estimate, never built
    before = pld.CACHE.bytes
    estimate = pld.composition_bytes(0.5, 5.0, 2_000_000)
    assert estimate > pld.BUILD_BYTES
    with pytest.raises(InputError, match=r"^T=2000000 steps") as info:
        Composition.subsampled_gaussian(0.5, 5.0, 2_000_000)
    assert info.value.parameter == "T"
    assert pld.CACHE.bytes - before < 64 * 2**20  # only the one-step PLD was built


def test_composing_two_huge_plds_is_refused_naming_other(monkeypatch):
    a, b = Composition.subsampled_gaussian(0.01, 1.0, 10), Composition.gaussian(1.0)
    monkeypatch.setattr(pld, "BUILD_BYTES", 2**20)
    with pytest.raises(InputError) as info:
        a.compose(b)
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
