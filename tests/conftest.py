"""Test-suite settings: a committed hypothesis example database, so that every counterexample ever
found replays on every run, and a fixed hypothesis seed (pyproject addopts) for reproducible CI."""

from pathlib import Path

from hypothesis import settings
from hypothesis.database import DirectoryBasedExampleDatabase

DATABASE = Path(__file__).parent / "hypothesis-db"

settings.register_profile("project", database=DirectoryBasedExampleDatabase(DATABASE), deadline=None,
                          print_blob=True)
settings.load_profile("project")
