"""The Python interface a researcher meets first: the records from ``verify``, the vocabulary's symbols, the
allowed values in ``Theorem``'s docstring, an accountant that says what it holds, and an installed package that
keeps what the accountant reads."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import verify
from verify import setting
from verify.account.verdicts import PACKAGED, baseline_path, read_baseline
from verify.privacy.notions import notions
from verify.theorem import KINDS, SYMBOLS

ROOT = Path(__file__).resolve().parents[1]


def test_the_records_are_reached_from_verify():
    from verify.theorem import Theorem, sym

    assert verify.Theorem is Theorem and verify.sym is sym
    assert {"Theorem", "Setting", "Assumption", "Source", "sym", "Accountant"} <= set(dir(verify))


def test_dir_of_sym_lists_the_vocabulary():
    assert dir(verify.sym) == sorted(SYMBOLS) and "eta" in repr(verify.sym)


def test_the_theorem_docstring_lists_every_allowed_value():
    doc = " ".join(verify.Theorem.__doc__.split())
    values = [*KINDS, *(n.name for n in notions())]
    for allowed in (setting.ALGORITHMS, setting.BATCHES, setting.LOSSES, setting.CONSTRAINTS, setting.ADJACENCIES,
                    setting.INITS, setting.RELEASES):
        values += allowed
    missing = [v for v in values if v not in doc]
    assert missing == []


def test_an_accountant_says_what_it_holds_and_composes_with_itself():
    acc = verify.Accountant(n=1000)
    acc.step(noise_multiplier=1.0, sample_rate=0.01, steps=100)
    acc.step(noise_multiplier=2.0, sample_rate=0.01, steps=10)
    assert repr(acc).startswith("Accountant(110 steps in 2 phases: 100 x (z=1, q=0.01, poisson)")
    assert acc.compose(acc) is acc and repr(acc).startswith("Accountant(220 steps in 4 phases")


def test_the_packaged_verdicts_are_the_baselines():
    """verify/account/verdicts.json is what an installed accountant reads; refresh it after regenerating the
    baseline: python -c "from pathlib import Path; from verify.account.verdicts import package_verdicts;
    package_verdicts(Path('reports/baseline.json'))" """
    assert baseline_path() == ROOT / "reports" / "baseline.json"  # in the repository, the baseline itself
    assert read_baseline(PACKAGED).verdicts == read_baseline(baseline_path()).verdicts
    assert json.loads(PACKAGED.read_text())["profile"] == "quick"


def test_the_wheel_holds_the_type_marker_and_the_verdicts(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(tmp_path), str(ROOT)], check=True, capture_output=True, timeout=300)
    (wheel,) = tmp_path.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"verify/py.typed", "verify/account/verdicts.json", "verify/proof.py", "theorems/__init__.py"} <= names
