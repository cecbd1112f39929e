"""Shared fixtures for the privacy-calculus tests: the public reference tables in ../shared/reference."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

#: ``$VERIFY_SHARED/reference``, by default ``../shared/reference`` next to the repository
REFERENCE = Path(os.environ.get("VERIFY_SHARED", Path(__file__).resolve().parents[3] / "shared")) / "reference"


@pytest.fixture(scope="session")
def gdp_vectors() -> dict:
    return json.loads((REFERENCE / "gdp_vectors.json").read_text())


@pytest.fixture(scope="session")
def sgm_table() -> np.ndarray:
    return np.genfromtxt(REFERENCE / "sampled_gaussian_rdp.csv", delimiter=",", names=True)
