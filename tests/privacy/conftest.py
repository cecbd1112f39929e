"""Shared fixtures for the privacy-calculus tests: the public reference tables in ``tests/data``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

#: reference values copied into the repository (provenance in tests/data/README.md)
REFERENCE = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture(scope="session")
def gdp_vectors() -> dict:
    return json.loads((REFERENCE / "gdp_vectors.json").read_text())


@pytest.fixture(scope="session")
def sgm_table() -> np.ndarray:
    return np.genfromtxt(REFERENCE / "sampled_gaussian_rdp.csv", delimiter=",", names=True)
