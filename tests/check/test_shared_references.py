"""Shared exact references: one build and one profile per family and build keywords in a
process, bounded in bytes, with byte-identical verdicts; and instances whose reference refuses counted,
never fatal (item 3)."""

from __future__ import annotations

import json
import tracemalloc

import numpy as np
import pytest

import theorems
from verify.check import references as refs
from verify.check import soundness as soundness_module
from verify.check.engine import check_theorem, search_effort
from verify.check.soundness import soundness
from verify.errors import InputError, PointRefused
from verify.instances import FAMILIES
from verify.instances.instance import PROFILES, BoundedCache, profile_nbytes
from verify.instances.profile import DiscreteProfile
from verify.setting import Setting
from verify.theorem import Claim, Source, Theorem, sym

WALK = {"n": 10, "eta": 0.1, "sigma": 1.0, "T": 20, "Delta": 1.0, "D": 1.0}


def _pair(cells: int, seed: int = 0) -> DiscreteProfile:
    rng = np.random.default_rng(seed)
    p, q = rng.random(cells) + 0.1, rng.random(cells) + 0.1
    return DiscreteProfile(p / p.sum(), q / q.sum())


def test_the_same_family_and_keywords_share_one_build_and_one_profile(fresh_caches):
    family = FAMILIES["interval_walk"]
    a = refs.build_from(family, WALK)
    b = refs.build_from(family, {**WALK, "unknown_keyword": 3})  # keywords the family does not take are dropped
    assert a is not b and a == b
    assert a.profile() is b.profile()
    assert PROFILES.misses == 2 and PROFILES.hits == 1  # the instance's profile and, inside it, its grid chain's
    assert refs.INSTANCES.misses == 1 and refs.INSTANCES.hits == 1
    # the values are those of an instance built directly, computed on its own (the chain not kept)
    PROFILES.clear()
    direct = family.build(**WALK).profile()
    assert direct is not a.profile()
    for eps in (0.0, 0.5, 2.0):
        assert a.profile().delta(eps) == direct.delta(eps)


def test_other_keywords_give_another_profile(fresh_caches):
    family = FAMILIES["interval_walk"]
    a = refs.build_from(family, WALK)
    b = refs.build_from(family, {**WALK, "T": 21})
    assert a.profile() is not b.profile()
    assert a.profile().delta(0.5) != b.profile().delta(0.5)


def test_keys_keep_number_types_signed_zeros_and_arrays_apart():
    family = FAMILIES["interval_walk"]
    assert refs.shared_key(family, {"T": 3}) != refs.shared_key(family, {"T": 3.0})
    assert refs.shared_key(family, {"x0": 0.0}) != refs.shared_key(family, {"x0": -0.0})
    assert refs.shared_key(family, {"H": np.eye(2)}) == refs.shared_key(family, {"H": np.eye(2)})
    assert refs.shared_key(family, {"H": np.eye(2)}) != refs.shared_key(family, {"H": 2 * np.eye(2)})
    assert refs.shared_key(family, {"H": object()}) is None  # no canonical form: not shared
    assert refs.shared_key(family, {"T": 3}) != refs.shared_key(FAMILIES["bok_c16"], {"T": 3})


def test_a_refused_build_is_raised_again_as_a_fresh_input_error(fresh_caches):
    family = FAMILIES["interval_walk"]
    errors = []
    for _ in range(2):
        with pytest.raises(InputError) as info:
            refs.build_from(family, {**WALK, "n": -1})
        errors.append(info.value)
    assert errors[0] is not errors[1] and str(errors[0]) == str(errors[1])
    assert errors[1].parameter == "n" and refs.INSTANCES.hits == 1


def test_the_cache_is_bounded_in_bytes_least_recently_used_first_out():
    size = profile_nbytes(_pair(1000))
    cache = BoundedCache(budget=int(2.5 * size))
    calls = []

    def compute(seed):
        calls.append(seed)
        return _pair(1000, seed)

    first = cache.get("a", lambda: compute(0))
    cache.get("b", lambda: compute(1))
    assert cache.get("a", lambda: compute(0)) is first  # a hit, now the most recent
    cache.get("c", lambda: compute(2))  # over budget: b, the least recently used, goes
    assert cache.bytes <= cache.budget and len(cache) == 2 and cache.evictions == 1
    cache.get("b", lambda: compute(1))
    assert calls == [0, 1, 2, 1]
    small = BoundedCache(budget=size // 2)
    small.get("big", lambda: _pair(1000))
    assert len(small) == 0 and small.too_large == 1 and small.bytes == 0
    off = BoundedCache(budget=0)
    off.get("x", lambda: compute(3))
    off.get("x", lambda: compute(3))
    assert calls[-2:] == [3, 3] and len(off) == 0


def test_a_profile_grown_after_it_was_stored_is_measured_again():
    cache = BoundedCache(budget=2**30)
    value = cache.get("a", lambda: _pair(5000))
    stored = cache.bytes
    value.delta(0.5)  # builds the sorted view lazily (three more arrays)
    cache.get("b", lambda: _pair(10))
    assert cache.bytes - profile_nbytes(_pair(10)) >= stored + 3 * 8 * 5000


def test_the_byte_estimate_agrees_with_tracemalloc():
    # an independent measure: the memory numpy actually allocated for the profile
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        value = _pair(20000, seed=3)
        value.delta(1.0)
        allocated = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert 0.8 * allocated <= profile_nbytes(value) <= 1.2 * allocated


def test_a_bad_budget_is_refused_naming_it():
    with pytest.raises(InputError, match="budget"):
        BoundedCache(budget=-1)
    with pytest.raises(InputError, match="budget"):
        BoundedCache(budget=10).clear(budget=1.5)


def _verdicts_json(ids):
    quick = search_effort("quick")
    return [json.dumps(check_theorem(theorems.get(i), theorems.get, quick, 0).to_json(), sort_keys=True, default=str)
            for i in ids]


def test_verdicts_are_byte_identical_with_and_without_sharing(fresh_caches):
    # theorems over the same families (a closed form, chains and a 1-D grid): later ones read earlier references
    ids = ["chourasia2021/cor2", "chourasia2021/thm3/exact", "baselines/noisy-gd/rdp"]
    shared = _verdicts_json(ids)
    hits = PROFILES.hits + refs.INSTANCES.hits
    PROFILES.clear(budget=0)
    refs.INSTANCES.clear(budget=0)
    alone = _verdicts_json(ids)
    assert hits > 0 and PROFILES.hits == 0
    assert shared == alone


def _refusing_theorem() -> Theorem:
    """An RDP upper bound on the exact Gaussian mechanism (alpha mu^2 / 2: exact, so it holds)."""
    bound = sym.alpha * (sym.Delta / (sym.n * sym.sigma)) ** 2 / 2
    return Theorem(id="test/refusing", title="Gaussian mechanism", source=Source("test", "none"), notion="rdp",
                   kind="upper", bound=bound, setting=Setting(algorithm="gaussian_mechanism"),
                   claims=(Claim("exact_on", value="gaussian_mechanism"),))


def _every_third(monkeypatch, error):
    """Make every third comparison of the search meet an instance whose reference raises ``error``."""
    compare = soundness_module.compare
    refused = []

    def every_third_refuses(theorem, instance, params, record=None):
        refused.append(1)
        if len(refused) % 3 == 0:
            def guard():
                raise error
            instance = type(instance)(**{**{f: getattr(instance, f) for f in
                                            ("name", "family", "setting", "loss_classes", "constants", "run")},
                                         "compute": guard})
        return compare(theorem, instance, params, record)

    monkeypatch.setattr(soundness_module.search, "compare", every_third_refuses)
    return refused


def test_a_reference_bug_is_an_internal_error_not_a_skipped_point(monkeypatch, fresh_caches):
    """An InputError that is not a refusal, raised while a reference computes, is the reference's bug."""
    theorem = _refusing_theorem()
    names = soundness_module.candidate_families(theorem)
    _every_third(monkeypatch, InputError("a builder's own mistake", "cells"))
    with pytest.raises(InputError, match="a builder's own mistake"):
        soundness(theorem, examples=12, seed=0, families=names)


def test_an_instance_whose_reference_refuses_is_skipped_and_counted(monkeypatch, fresh_caches):
    theorem = _refusing_theorem()
    names = soundness_module.candidate_families(theorem)
    assert "gaussian_mechanism" in names
    plain, _ = soundness(theorem, examples=12, seed=0, families=names)
    assert plain.status == "passed" and "skipped" not in plain.detail

    compare = soundness_module.compare
    refused = []

    def every_third_refuses(theorem, instance, params, record=None):
        refused.append(1)
        if len(refused) % 3 == 0:  # what a memory guard does: PointRefused before building
            def guard():
                raise PointRefused("the privacy-loss grid would need 40 GB", "value_discretization_interval")
            instance = type(instance)(**{**{f: getattr(instance, f) for f in
                                            ("name", "family", "setting", "loss_classes", "constants", "run")},
                                         "compute": guard})
        return compare(theorem, instance, params, record)

    monkeypatch.setattr(soundness_module.search, "compare",  # where the search compares
                        every_third_refuses)
    sound, tight = soundness(theorem, examples=12, seed=0, families=names)
    assert sound.status == "passed" and tight.status == "passed"
    skipped = len(refused) // 3
    assert skipped >= 1
    assert f"{skipped} where the exact reference is not computable" in sound.detail
    assert "40 GB" in sound.detail
    assert sound.data.examples == len(refused) - skipped
