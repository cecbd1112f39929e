"""The parameter relations of docs/conventions.md, written once in verify.vocabulary."""

import math

import pytest

from verify.errors import InputError
from verify.vocabulary import contradictions, derive, noise_multiplier, sensitivity_of_lipschitz


def test_sampling_rate_and_batches_per_epoch():
    p = derive({"n": 60000, "b": 1500, "E": 50}, batches="cyclic")
    assert p["q"] == 1500 / 60000
    assert p["l"] == 40
    assert p["T"] == 2000


def test_epochs_from_steps_only_when_whole():
    assert derive({"n": 10, "b": 5, "T": 6}, batches="cyclic")["E"] == 3
    assert "E" not in derive({"n": 10, "b": 5, "T": 7}, batches="cyclic")


def test_full_batches_have_one_batch_per_epoch():
    assert derive({"n": 7, "b": 7, "T": 3}, batches="full")["l"] == 1


def test_dp_sgd_noise_both_ways():
    # Bu et al.: noise N(0, z^2 Cclip^2) on the summed gradient = sigma = z Cclip / b on the mean
    assert math.isclose(derive({"b": 256, "z": 1.1, "Cclip": 2.0})["sigma"], 1.1 * 2.0 / 256)
    assert math.isclose(derive({"b": 256, "sigma": 0.01, "Cclip": 2.0})["z"], 256 * 0.01 / 2.0)
    assert math.isclose(noise_multiplier(0.01, 256, 2.0), 1.28)


def test_given_values_are_kept_and_contradictions_named():
    assert derive({"n": 10, "b": 5, "q": 0.3})["q"] == 0.3
    problems = contradictions({"n": 10, "b": 5, "q": 0.3})
    assert len(problems) == 1 and problems[0].startswith("q = 0.3")
    assert contradictions({"n": 10, "b": 5, "q": 0.5}) == []


def test_lipschitz_sensitivity_depends_on_adjacency():
    assert sensitivity_of_lipschitz(1.5, "replace") == 3.0  # gradients +L and -L
    assert sensitivity_of_lipschitz(1.5, "add_remove") == 1.5
    with pytest.raises(InputError) as info:
        sensitivity_of_lipschitz(1.0, "swap")
    assert info.value.parameter == "adjacency"
