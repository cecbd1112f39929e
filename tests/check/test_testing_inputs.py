"""verify.testing refuses bad arguments with a ValueError naming the parameter (never an AttributeError
deep inside the engine, never an unbounded run)."""

import pytest

import theorems
from verify.testing import assert_sound, check


@pytest.mark.parametrize("bad", [None, "bok2024/thm4.2", 3])
def test_a_theorem_that_is_not_a_record_is_refused(bad):
    with pytest.raises(ValueError, match="theorem must be a verify.Theorem record"):
        assert_sound(bad)


@pytest.mark.parametrize("keyword, value, words", [
    ("seed", "x", "seed must be an integer"), ("seed", -1, "seed must be an integer >= 0"),
    ("seed", 1.5, "seed must be an integer"), ("max_examples", 10 ** 12, "max_examples must be <= 100000"),
    ("max_examples", 0, "max_examples"),
])
def test_bad_seed_and_budget_are_refused_before_any_work(keyword, value, words):
    with pytest.raises(ValueError, match=words):
        check(theorems.get("bok2024/thm4.2"), **{keyword: value})
