"""Fixtures shared by the engine's tests."""

import pytest

from verify.check import references as refs
from verify.instances.instance import PROFILES


@pytest.fixture
def fresh_caches():
    """Empty shared instances and profiles with their usual budgets, restored afterwards (a test that
    counts builds or compares against a cold computation must not see another test's entries)."""
    budgets = PROFILES.budget, refs.INSTANCES.budget
    PROFILES.clear()
    refs.INSTANCES.clear()
    yield
    PROFILES.clear(budget=budgets[0])
    refs.INSTANCES.clear(budget=budgets[1])
