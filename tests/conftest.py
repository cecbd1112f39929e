"""Test-suite settings: a committed hypothesis example database, so that every counterexample ever
found replays on every run, and a fixed hypothesis seed (pyproject addopts) for reproducible CI."""

import subprocess
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis.database import DirectoryBasedExampleDatabase

DATABASE = Path(__file__).parent / "hypothesis-db"

settings.register_profile("project", database=DirectoryBasedExampleDatabase(DATABASE), deadline=None,
                          print_blob=True)
settings.load_profile("project")


def pytest_configure(config):
    config.addinivalue_line("markers", "sweep: a sweep whose full run is benchmarks/bench_sweeps.py (tests/sweeps.py)")


@pytest.fixture
def verify_cli(capsys):
    """``verify ARGV`` run in this process: :func:`verify.commands.main` (the whole program but its
    ``sys.exit``, which ``tests/test_cli.py`` checks through ``python -m verify``), argparse's own exits
    included.  Returns a ``CompletedProcess`` (returncode, stdout, stderr) like ``subprocess.run``.

    A fresh interpreter spends about a second importing the registry before the command starts; in this
    process it is already imported, so a call costs only its command's work.  Tests about the process itself
    (what start-up imports, signals, a child stopped at a time limit, PYTHONHASHSEED) still start one."""
    from verify.commands import main

    def run(*argv: str) -> subprocess.CompletedProcess:
        capsys.readouterr()
        try:
            status = main([str(a) for a in argv])
        except SystemExit as exc:
            status = exc.code
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(list(argv), status, out, err)

    return run


@pytest.fixture(scope="session")
def fresh_registry_import() -> dict:
    """What ``import theorems; theorems.all()`` does in a fresh interpreter, read once for the tests that ask
    (a second of start-up per process): ``vocabulary_before`` (the vocabulary's names before the papers were
    imported), ``vocabulary_unchanged`` (the same names after) and ``modules`` (which of the libraries the
    registry must not import were imported)."""
    import json
    import sys

    code = ("import json, sys\nimport verify.vocabulary as v\nbefore = list(v.VOCABULARY)\n"
            "import theorems\ntheorems.all()\n"
            "print(json.dumps({'vocabulary_before': before, 'vocabulary_unchanged': before == list(v.VOCABULARY),\n"
            "                  'modules': sorted(m for m in ('scipy.stats', 'dp_accounting') if m in sys.modules)}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])
